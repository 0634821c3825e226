// An eleventh look at issue 34's classes: what the twenty-first walkthrough
// (a helper who wrote none of the fixes, on programs of its own) found and
// the tenth round left open.
#include <QtTest>

#include <QAction>
#include <QCheckBox>
#include <QPushButton>
#include <QHeaderView>
#include <QTableView>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QScrollArea>
#include <QScrollBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QToolButton>
#include <QTreeView>

#include "support/TestSupport.h"
#include "support/UiTestSupport.h"
#include "ui/common/MemoryBudgetSetting.h"
#include "ui/document/Document.h"
#include "ui/document/Selection.h"
#include "ui/graph/GraphItems.h"
#include "ui/graph/GraphView.h"
#include "ui/panels/AdvisorPanel.h"
#include "ui/panels/ChangesPanel.h"
#include "ui/panels/MemoryPlanView.h"
#include "ui/panels/OutputsPanel.h"
#include "ui/profile/ProfileSession.h"
#include "ui/profile/ProfileDialog.h"
#include "ui/profile/TimelineView.h"
#include "ui/profile/TransfersModel.h"
#include "ui/window/MainWindow.h"

using namespace ptescope;

namespace {

// A JSON spec written to <tempDir>/<name>.json and built; empty on failure.
QString specProgram(const QString& name, const QJsonArray& methods) {
  const QString path = test::tempDir() + "/" + name + ".json";
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly)) return {};
  file.write(QJsonDocument(QJsonObject{{"methods", methods}}).toJson());
  file.close();
  return test::synthProgram(name + ".pte", {path});
}

QJsonObject tensor(int rows, int columns) {
  return QJsonObject{{"dtype", "float32"}, {"sizes", QJsonArray{rows, columns}}};
}

QJsonObject relu(const QString& in, const QString& out) {
  return QJsonObject{{"op", "aten::relu.out"}, {"inputs", QJsonArray{in}}, {"outputs", QJsonArray{out}}};
}

QJsonObject cuda(const QString& device, const QString& in, const QString& out) {
  return QJsonObject{{"delegate", "CudaBackend"},
                     {"compile_specs", QJsonObject{{"target_device", device}}},
                     {"inputs", QJsonArray{in}},
                     {"outputs", QJsonArray{out}}};
}

// `relus` relu steps on the CPU, then one CudaBackend delegate on `device`
// and a relu after it: the first device region lies below the first
// instruction.
QJsonObject chainMethod(const QString& method, int relus, const QString& device) {
  QJsonObject tensors{{"x0", tensor(16, 16)}, {"d", tensor(16, 16)}, {"z", tensor(16, 16)}};
  QJsonArray nodes;
  int t = 0;
  for (; t < relus; ++t) {
    tensors.insert(QString("x%1").arg(t + 1), tensor(16, 16));
    nodes.append(relu(QString("x%1").arg(t), QString("x%1").arg(t + 1)));
  }
  nodes.append(cuda(device, QString("x%1").arg(t), "d"));
  nodes.append(relu("d", "z"));
  return QJsonObject{{"name", method}, {"inputs", QJsonArray{"x0"}}, {"outputs", QJsonArray{"z"}},
                     {"tensors", tensors}, {"nodes", nodes}};
}

// relu, then a delegate on cuda:0, relu, cuda:1, ... (eight steps): a buffer
// per device, each of a few 64 B tensors.
QJsonObject fourDevicesMethod() {
  QJsonObject tensors{{"a0", tensor(4, 4)}};
  QJsonArray nodes;
  for (int i = 0; i < 8; ++i) {
    const QString in = i == 0 ? QString("a0") : QString("b%1").arg(i - 1), out = QString("b%1").arg(i);
    tensors.insert(out, tensor(4, 4));
    nodes.append(i % 2 == 0 ? relu(in, out) : cuda(QString("cuda:%1").arg(i / 2), in, out));
  }
  return QJsonObject{{"name", "forward"}, {"inputs", QJsonArray{"a0"}}, {"outputs", QJsonArray{"b7"}},
                     {"tensors", tensors}, {"nodes", nodes}};
}

QRectF inSight(ui::GraphView* graph) {
  return graph->canvas()->mapToScene(graph->canvas()->viewport()->rect()).boundingRect();
}

}  // namespace

class WalkthroughElevenTest : public QObject {
  Q_OBJECT

 private slots:
  void cleanup() { ui::setMemoryBudget(0); }

  // F7: a Run Once that fails says so in the Outputs panel, brought forward,
  // whole in its empty table, and in the status bar (the window's lastError);
  // the modal dialog on top of both is gone (tests allow no dialog, so the
  // e2e scenario checks that no dialog comes up).
  void aFailedRunIsSaidInTheOutputsPanel() {
    test::ShownWindow w({1000, 700});
    QVERIFY(w.openDemo());
    QVERIFY(w.window.showPanel("values"));
    ui::setMemoryBudget(1024);
    ui::OutputsPanel* panel = w.window.outputsPanel();
    QSignalSpy failed(panel, &ui::OutputsPanel::failed);
    auto* run = w.window.findChild<QAction*>("runOnceAction");
    QVERIFY(run != nullptr);
    run->trigger();
    QVERIFY(failed.count() == 1 || failed.wait(30000));
    const QString message = failed.first().first().toString();
    QVERIFY2(message.contains("budget"), qPrintable(message));
    auto* tabs = w.window.findChild<QTabWidget*>("bottomTabs");
    QCOMPARE(tabs->currentWidget(), static_cast<QWidget*>(panel));
    auto* note = panel->findChild<QLabel*>("outputsEmpty");
    QVERIFY(note != nullptr);
    QTRY_VERIFY(note->isVisible());
    QCOMPARE(note->text(), "Run failed: " + message);
    QVERIFY2(w.window.statusMessage().startsWith("Run Once failed: "), qPrintable(w.window.statusMessage()));
    QVERIFY(w.window.lastError().endsWith(message));
  }

  // F8: the Changes list's current line follows the arrow keys and Enter
  // onto the graph, as a click does.
  void theChangesListFollowsTheKeyboard() {
    test::ShownWindow w({1000, 700});
    QVERIFY(w.open(test::synthProgram("kbd-changes.pte", {"--scenario", "cross_device"})));
    w.doc.setDelegateTarget(0, 1, std::nullopt);
    QVERIFY(test::waitForGraph(w.window.graph()));
    QVERIFY(w.window.showPanel("changes"));
    auto* list = w.window.findChild<ui::ChangesPanel*>("changes");
    QVERIFY(list != nullptr);
    QVERIFY2(list->count() > 2, "the edit lists no changes");
    list->setFocus();
    QTRY_VERIFY(list->hasFocus());
    list->setCurrentRow(0);
    ui::Selection* selection = w.window.selection();
    int moved = 0;
    for (int row = 1; row < list->count(); ++row) {
      QTest::keyClick(list, Qt::Key_Down);
      QCOMPARE(list->currentRow(), row);
      const QListWidgetItem* item = list->item(row);
      const int value = item->data(ui::ChangesPanel::ValueRole).toInt();
      const qlonglong instruction = item->data(ui::ChangesPanel::InstructionRole).toLongLong();
      if (instruction >= 0) {
        QVERIFY2(selection->instruction() == size_t(instruction), qPrintable(item->text()));
        ++moved;
      } else if (value >= 0) {
        QVERIFY2(selection->value() == value, qPrintable(item->text()));
        ++moved;
      }
    }
    QVERIFY2(moved >= 2, "no line of the list names a value or an instruction");
    // Enter on a line selects it again after the selection moved elsewhere.
    for (int row = 0; row < list->count(); ++row)
      if (list->item(row)->data(ui::ChangesPanel::ValueRole).toInt() >= 0) {
        list->setCurrentRow(row);
        break;
      }
    selection->clear();
    QTest::keyClick(list, Qt::Key_Return);
    QVERIFY(selection->value().has_value() || selection->instruction().has_value());
  }

  // F12: an option the passes refuse stays set (its pair may follow) but
  // Changes says, first, that it changes nothing yet and why; Save writes
  // nothing (it wrote the last accepted program under the refused option).
  void aRefusedOptionIsSaidAndNotSaved() {
    test::ShownWindow w({1000, 700});
    QVERIFY(w.open(test::synthProgram("refused.pte", {"--scenario", "multiple_same_device_consumers"})));
    auto options = w.doc.methodOptions(0);
    options.skip_h2d_for_method_inputs = true;
    w.doc.setMethodOptions(0, options);
    w.doc.waitForPipeline();
    QVERIFY2(!w.doc.pipelineError().isEmpty(), "the passes took skip_h2d_for_method_inputs on inputs read twice");
    auto* list = w.window.findChild<ui::ChangesPanel*>("changes");
    QTRY_VERIFY(list->count() > 0 && list->item(0)->text().startsWith("The options as set are refused"));
    QVERIFY2(list->item(0)->text().contains(w.doc.pipelineError()), qPrintable(list->item(0)->text()));
    const QString out = test::tempDir() + "/refused-saved.pte";
    QFile::remove(out);
    QString error;
    QVERIFY(!w.doc.saveAs(out, false, &error));
    QVERIFY2(error.startsWith("Cannot save: the passes refuse the options as set"), qPrintable(error));
    QVERIFY(!QFile::exists(out));
    // The graph's banner says it in every view (it read "no changes in this
    // method" in the diff view; walkthrough 22).
    auto* banner = w.window.graph()->findChild<QLabel*>("graphBanner");
    QVERIFY(banner != nullptr);
    QTRY_VERIFY2(banner->text().contains("The options as set are refused"), qPrintable(banner->text()));
    // Taken back, the list says what it said before.
    w.doc.undoStack()->undo();
    w.doc.waitForPipeline();
    QTRY_VERIFY(!list->item(0)->text().startsWith("The options as set are refused"));
    QTRY_VERIFY(!banner->text().contains("refused"));
  }

  // Walkthrough 22, F2: the Changes list names what the diff banner counts:
  // the retargeted delegate and each copy kept that now goes to another
  // device, each selecting its instruction.
  void theChangesListNamesRetargetedDelegatesAndCopies() {
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(test::synthProgram("retarget-list.pte", {"--scenario", "cross_device"})));
    w.doc.setDelegateTarget(0, 1, program::parseDeviceSpec("cuda:3").value());
    w.doc.waitForPipeline();
    const auto marks = w.doc.methodChanges(0);
    QVERIFY(marks != nullptr && !marks->retargeted.empty());
    QVERIFY(!marks->retargeted_delegates.empty());
    auto* list = w.window.findChild<ui::ChangesPanel*>("changes");
    QStringList lines;
    for (int row = 0; row < list->count(); ++row) lines << list->item(row)->text();
    for (const auto& [instruction, note] : marks->retargeted) {
      const QString line = QString("  ~ #%1 %2 %3")
                               .arg(instruction)
                               .arg(marks->retargeted_delegates.count(instruction) ? "delegate call:" : "copy:")
                               .arg(QString::fromStdString(note));
      const int row = int(lines.indexOf(line));
      QVERIFY2(row >= 0, qPrintable(line + " is not in:\n" + lines.join("\n")));
      QCOMPARE(list->item(row)->data(ui::ChangesPanel::InstructionRole).toLongLong(), qlonglong(instruction));
    }
    QVERIFY2(lines.join("\n").contains("delegate call: target cuda:1 → cuda:3"), qPrintable(lines.join("\n")));
  }

  // Walkthrough 22, F5 and F6: a rejected edit selected in the Advisor has
  // its reason whole under the table; the Memory plan names the tensor it
  // has selected above the plan.
  void selectionsAreSaidWhole() {
    test::ShownWindow w({1000, 700});
    QVERIFY(w.open(test::synthProgram("rejected-whole.pte", {"--scenario", "gpu_and_cpu_consumers"})));
    QVERIFY(w.window.showPanel("advisor"));
    auto* advisor = w.window.findChild<ui::AdvisorPanel*>();
    QVERIFY(advisor != nullptr);
    QSignalSpy done(advisor, &ui::AdvisorPanel::searchFinished);
    advisor->findChild<QCheckBox*>("advisorShowRejected")->setChecked(true);
    QVERIFY(advisor->isSearching() || advisor->refresh());
    QVERIFY(done.wait(60000));
    QVERIFY(!advisor->advice()->rejected.empty());
    auto* table = advisor->findChild<QTableWidget*>("advisorTable");
    const int row = int(advisor->advice()->candidates.size());
    table->selectRow(row);
    const QString notes = advisor->findChild<QLabel*>("advisorNotes")->text();
    const auto& rejected = advisor->advice()->rejected.front();
    QVERIFY2(notes.contains(QString::fromStdString(rejected.reason)), qPrintable(notes));

    // Walkthrough 23, F4: Enter on the focused Apply applies a candidate,
    // as Space does (push buttons outside dialogs took only Space).
    QVERIFY(!advisor->advice()->candidates.empty());
    table->selectRow(0);
    auto* apply = advisor->findChild<QPushButton*>("advisorApply");
    QTRY_VERIFY(apply->isEnabled());
    apply->setFocus();
    QTRY_VERIFY(apply->hasFocus());
    QVERIFY(!w.doc.isModified());
    QTest::keyClick(apply, Qt::Key_Return);
    QVERIFY2(w.doc.isModified(), "Enter on the focused Apply did not apply the candidate");

    QVERIFY(w.window.showPanel("memory"));
    auto* plan = w.window.findChild<ui::MemoryPlanView*>("memoryPlan");
    auto* said = w.window.findChild<QLabel*>("memoryPlanHint");
    QVERIFY(plan != nullptr && said != nullptr);
    QVERIFY(!plan->blocks().empty());
    plan->setFocus();
    QTest::keyClick(plan, Qt::Key_Home);
    const auto& first = plan->blocks().front();
    QCOMPARE(said->text(), "Selected: " + first.label);
    QTest::keyClick(plan, Qt::Key_Escape);
    QVERIFY(!said->text().startsWith("Selected"));
  }

  // Walkthrough 22, F7: each buffer's size figures are whole: packed into
  // lines of the titles' width (as wide as they need, within a quarter of
  // the plan) and the band tall enough for them.
  void memoryPlanCaptionsAreWhole() {
    for (const QSize size : {QSize(1600, 1000), QSize(1000, 700)}) {
      test::ShownWindow w(size);
      QVERIFY(w.open(specProgram("captions", QJsonArray{fourDevicesMethod()})));
      QVERIFY(w.window.showPanel("memory"));
      auto* plan = w.window.findChild<ui::MemoryPlanView*>("memoryPlan");
      QTRY_VERIFY(plan->isVisible());
      QTest::qWait(20);
      const QFontMetrics metrics(plan->font());
      for (const auto& band : plan->bands()) {
        const QStringList lines = plan->captionLines(band, metrics);
        for (const QString& line : lines)
          QVERIFY2(metrics.horizontalAdvance(line) <= plan->titleWidth() - 8,
                   qPrintable(QString("'%1' is wider than the titles' %2 px").arg(line).arg(plan->titleWidth())));
        QVERIFY2(plan->bufferRect(band.buffer).height() >= 18 + 16 * lines.size(),
                 qPrintable(QString("buffer %1 is %2 px high for %3 lines").arg(band.buffer)
                                .arg(plan->bufferRect(band.buffer).height()).arg(lines.size())));
      }
    }
  }

  // Walkthrough 20, finding 16: a copy an edit moves to another device (its
  // delegate retargeted) keeps its measurement, said to be of the device it
  // went to then; it was a "removed" row beside an unmeasured new one.
  void aMovedCopyKeepsItsMeasurement() {
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(test::synthProgram("moved-copy.pte", {"--scenario", "cross_device"})));
    QVERIFY(test::profileOnHost(w.window, 0));
    w.doc.setDelegateTarget(0, 1, program::parseDeviceSpec("cuda:3").value());
    w.doc.waitForPipeline();
    auto* model = w.window.transfersModel();
    QTRY_VERIFY(!model->rows().empty());
    int moved = 0;
    for (const auto& row : model->rows()) {
      if (row.inside) continue;
      QVERIFY2(!row.removed, qPrintable(QString("a removed row of %%1 %2 → %3").arg(row.source).arg(row.from, row.to)));
      const QString device = row.direction == program::CopyDirection::HostToDevice ? row.to : row.from;
      if (device != "cuda:3") continue;
      QVERIFY2(row.latest != nullptr, qPrintable(QString("the copy of %%1 to cuda:3 lost its measurement").arg(row.source)));
      QCOMPARE(row.measuredDevice, QString("cuda:1"));
      ++moved;
    }
    QVERIFY2(moved > 0, "no copy moved to cuda:3");
    for (int r = 0; r < model->rowCount(); ++r) {
      const QString to = model->data(model->index(r, ui::TransfersModel::To)).toString();
      const QString from = model->data(model->index(r, ui::TransfersModel::From)).toString();
      if (to.startsWith("cuda:3") || from.startsWith("cuda:3"))
        QVERIFY2(to == "cuda:3 (measured cuda:1)" || from == "cuda:3 (measured cuda:1)", qPrintable(from + " → " + to));
    }
  }

  // Walkthrough 22, F4 and F8: a profile that ends while another method is
  // shown still sorts Transfers by median; at 1600 px its progress has the
  // room of its text and the counts give way to it.
  void aProfileSortsAndHasRoomAtEverySize() {
    const QString program =
        specProgram("two-methods-wide", QJsonArray{chainMethod("forward", 3, "cuda:0"), chainMethod("backward", 2, "cuda:1")});
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(program));
    ui::ProfileRequest request;
    request.method = 0;
    request.runtime = exec::RuntimePreference::Host;
    request.iterations = 400;
    QSignalSpy finished(w.window.profileSession(), &ui::ProfileSession::finished);
    QVERIFY(w.window.startProfile(request));
    auto* progress = w.window.findChild<QLabel*>("profileStatusText");
    auto* counts = w.window.findChild<QLabel*>("countsStatus");
    QVERIFY(progress->width() >= progress->fontMetrics().horizontalAdvance(
                                     "forward: measuring 19831/100000, instruction 342 of 360, 12 s so far"));
    if (finished.count() == 0) QVERIFY(!counts->isVisible());
    QVERIFY(w.window.showMethod("backward"));
    QVERIFY(finished.count() == 1 || finished.wait(60000));
    QTRY_VERIFY(counts->isVisible());
    QVERIFY(w.window.showMethod("forward"));
    auto* header = w.window.transfersView()->horizontalHeader();
    QCOMPARE(header->sortIndicatorSection(), int(ui::TransfersModel::MedianTime));
    QCOMPARE(header->sortIndicatorOrder(), Qt::DescendingOrder);
  }

  // F5, F18: the profile's progress names the method it measures; a user
  // who picks another method while it runs stays there (the window went
  // back to the measured one), told where the profile is; at 1000 px the
  // counts give way to the progress so that the method is readable.
  void aProfileLeavesTheMethodTheUserPicked() {
    const QString program =
        specProgram("two-methods", QJsonArray{chainMethod("forward", 3, "cuda:0"), chainMethod("backward", 2, "cuda:1")});
    QVERIFY(!program.isEmpty());
    test::ShownWindow w({1000, 700});
    QVERIFY(w.open(program));
    QCOMPARE(w.doc.currentMethodIndex(), 0);
    ui::ProfileRequest request;
    request.method = 0;
    request.runtime = exec::RuntimePreference::Host;
    request.iterations = 400;
    request.warmup = 1;
    QSignalSpy finished(w.window.profileSession(), &ui::ProfileSession::finished);
    QVERIFY(w.window.startProfile(request));
    auto* progress = w.window.findChild<QLabel*>("profileStatusText");
    auto* counts = w.window.findChild<QLabel*>("countsStatus");
    auto* method = w.window.findChild<QLabel*>("methodStatus");
    QVERIFY(progress != nullptr && counts != nullptr && method != nullptr);
    QTRY_VERIFY(w.window.profileStatus()->isVisible() || finished.count() == 1);
    if (finished.count() == 0) {
      QVERIFY2(progress->text().startsWith("forward: "), qPrintable(progress->text()));
      QVERIFY(!counts->isVisible());
    }
    QVERIFY(w.window.showMethod("backward"));
    QVERIFY(finished.count() == 1 || finished.wait(60000));
    QTest::qWait(50);
    QCOMPARE(w.doc.currentMethodIndex(), 1);
    QVERIFY2(w.window.statusMessage().contains("pick forward in Method"), qPrintable(w.window.statusMessage()));
    // The method's label is whole beside the status message and the GPU line.
    QTRY_VERIFY(method->text() == "method backward");
    QVERIFY2(method->width() >= method->fontMetrics().horizontalAdvance(method->text()),
             qPrintable(QString("the method label is %1 px for '%2'").arg(method->width()).arg(method->text())));
    // Without a move the window shows the measured method, as before.
    QVERIFY(w.window.showMethod("forward"));
    request.iterations = 3;
    QSignalSpy again(w.window.profileSession(), &ui::ProfileSession::finished);
    request.method = 1;
    QVERIFY(w.window.startProfile(request));
    QVERIFY(again.wait(60000));
    QCOMPARE(w.doc.currentMethodIndex(), 1);
  }

  // F2: the first picture starts at the drawing's left edge, moved only as
  // far as showing the first device region's corner takes; when the first
  // instruction fits beside it, it is in the picture too.
  void theFirstPictureKeepsTheStartInSight() {
    const QString program = specProgram("device-below", QJsonArray{chainMethod("forward", 3, "cuda:1")});
    QVERIFY(!program.isEmpty());
    for (const QSize size : {QSize(1600, 1000), QSize(1000, 700)}) {
      test::ShownWindow w(size);
      QVERIFY(w.open(program));
      ui::GraphView* graph = w.window.graph();
      const auto* layout = graph->currentLayout();
      QVERIFY(layout != nullptr);
      const QRectF shown = inSight(graph);
      const layout::RegionGeometry* device = nullptr;
      for (const auto& region : layout->regions)
        if (!region.device.isCpu()) device = &region;
      QVERIFY(device != nullptr);
      // The region's title and a little under it.
      const QRectF corner(device->rect.x, device->rect.y, 48, 48);
      QVERIFY2(shown.contains(corner), qPrintable(QString("%1x%2: the cuda:1 region's corner is out of sight").arg(size.width()).arg(size.height())));
      // The drawing's left edge (its leftmost region) is in sight, or the
      // picture moved right only as far as the region's first device step
      // takes (its title and delegate call, clear of the overview's column).
      double left = device->rect.x;
      for (const auto& region : layout->regions) left = std::min(left, region.rect.x);
      double step = device->rect.x + std::min(device->rect.width, 120.0);
      for (size_t n = 0; n < layout->model.nodes.size(); ++n)
        if (layout->model.nodes[n].kind == layout::NodeKind::Delegate)
          step = std::max(step, test::graphNodeItem(*graph, n)->sceneBoundingRect().right());
      const double overview = (graph->findChild<QWidget*>("graphOverview") != nullptr
                                   ? graph->findChild<QWidget*>("graphOverview")->width() + 8
                                   : 0) / graph->zoomLevel();
      QVERIFY2(shown.left() <= std::max(left, step + 16 + overview - shown.width()) + 1, qPrintable(QString("%1x%2: the picture starts at x %3, right of the drawing's left edge %4")
                                                    .arg(size.width()).arg(size.height()).arg(shown.left()).arg(left)));
      const auto first = layout->model.nodeOfInstruction(0);
      QVERIFY(first.has_value());
      const QRectF node = test::graphNodeItem(*graph, *first)->sceneBoundingRect();
      const QRectF both = node.united(corner);
      if (both.height() + 32 <= shown.height())
        QVERIFY2(shown.contains(node), qPrintable(QString("%1x%2: #0 is out of sight though it fits beside the device region")
                                                      .arg(size.width()).arg(size.height())));
      else  // only as far down as the region takes: the view's bottom edge is near it
        QVERIFY2(shown.bottom() <= corner.bottom() + 60, "the picture went further down than the device region takes");
    }
  }

  // Walkthrough 23, F10 and F6's class: Undo and Redo say what they did (an
  // edit of another method than the one shown changed with no sign).
  void undoSaysWhatItUndid() {
    test::ShownWindow w({1000, 700});
    QVERIFY(w.openDemo());
    QVERIFY(w.doc.methodCount() >= 2);
    w.doc.setDelegateTarget(1, 0, program::parseDeviceSpec("cuda:1").value());
    w.doc.waitForPipeline();
    QCOMPARE(w.doc.currentMethodIndex(), 0);
    const QString edit = w.doc.undoStack()->undoText();
    QVERIFY(!edit.isEmpty());
    w.window.findChild<QAction*>("undoAction")->trigger();
    w.doc.waitForPipeline();
    QCOMPARE(w.window.statusMessage(), "Undone: " + edit);
    QVERIFY(!w.doc.isModified());
    w.window.findChild<QAction*>("redoAction")->trigger();
    w.doc.waitForPipeline();
    QCOMPARE(w.window.statusMessage(), "Redone: " + edit);
  }

  // Walkthrough 23, F2: a profile of an edit, kept after the edit is undone,
  // is said to be of edits since undone (it read "measured before the
  // program changed" over the file's own program); a profile of the file
  // then edited still reads "before the edits".
  void aProfileOfAnUndoneEditSaysSo() {
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(test::synthProgram("undone-profile.pte", {"--scenario", "cross_device"})));
    w.doc.setDelegateTarget(0, 1, std::nullopt);
    w.doc.waitForPipeline();
    QVERIFY(test::profileOnHost(w.window, 0, 2, 0));
    auto* model = w.window.transfersModel();
    QVERIFY(model->measuredBeforeWords().isEmpty());  // of the program shown
    w.window.findChild<QAction*>("undoAction")->trigger();
    w.doc.waitForPipeline();
    QVERIFY(!w.doc.isModified());
    QTRY_COMPARE(model->measuredBeforeWords(), QString("with edits since undone"));
    QCOMPARE(model->headerData(ui::TransfersModel::MedianTime, Qt::Horizontal).toString(), QString("Median (other edits)"));
    QVERIFY2(w.window.transferTotals()->text().contains("measured with edits since undone (the program then)"),
             qPrintable(w.window.transferTotals()->text()));
    // Profiled as the file, then edited: before the edits.
    QVERIFY(test::profileOnHost(w.window, 0, 2, 0));
    w.doc.setDelegateTarget(0, 1, std::nullopt);
    w.doc.waitForPipeline();
    QTRY_COMPARE(model->measuredBeforeWords(), QString("before the edits"));
  }

  // Walkthrough 23, F11: an edit and its Undo keep the Program tree's open
  // branches and its current row (every edit closed the method's Delegates
  // and put the focus on the method).
  void theProgramTreeKeepsWhatIsOpen() {
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.openDemo());
    auto* tree = w.window.findChild<QTreeView*>("programTree");
    QVERIFY(tree != nullptr);
    QAbstractItemModel* model = tree->model();
    const auto child = [model](const QModelIndex& parent, const QString& prefix) {
      for (int r = 0; r < model->rowCount(parent); ++r)
        if (model->index(r, 0, parent).data().toString().startsWith(prefix)) return model->index(r, 0, parent);
      return QModelIndex();
    };
    const QModelIndex methods = child({}, "Methods");
    const QModelIndex forward = child(methods, "forward");
    const QModelIndex delegates = child(forward, "Delegates");
    QVERIFY(delegates.isValid());
    tree->expand(methods);
    tree->expand(forward);
    tree->expand(delegates);
    const QModelIndex first = model->index(0, 0, delegates);
    QVERIFY(first.isValid());
    const QString name = first.data().toString();
    tree->setCurrentIndex(first);
    const auto stillOpen = [&] {
      const QModelIndex m = child({}, "Methods"), f = child(m, "forward"), d = child(f, "Delegates");
      return d.isValid() && tree->isExpanded(m) && tree->isExpanded(f) && tree->isExpanded(d) &&
             tree->currentIndex() == model->index(0, 0, d) && tree->currentIndex().data().toString() == name;
    };
    w.doc.setDelegateTarget(0, 0, program::parseDeviceSpec("cuda:1").value());
    w.doc.waitForPipeline();
    QTRY_VERIFY2(stillOpen(), "the edit closed the Program tree's Delegates or moved its current row");
    w.window.findChild<QAction*>("undoAction")->trigger();
    w.doc.waitForPipeline();
    QTRY_VERIFY2(stillOpen(), "Undo closed the Program tree's Delegates or moved its current row");
  }

  // Walkthrough 23, F14 and F13: the Timeline's zoom keys keep the selected
  // copy in view (they zoomed about the middle); the Profile dialog is as
  // tall as its wrapped hints need at the width it is given.
  void zoomKeepsTheSelectionAndHintsAreWhole() {
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(test::synthProgram("timeline-zoom.pte", {"--scenario", "cross_device"})));
    QVERIFY(test::profileOnHost(w.window, 0, 2, 0));
    QVERIFY(w.window.showPanel("timeline"));
    auto* timeline = w.window.findChild<ui::TimelineView*>("timeline");
    QVERIFY(timeline != nullptr);
    QTest::qWait(50);
    // The first copy: the leftmost bars.
    const auto* dataflow = w.doc.currentDataflow();
    std::optional<size_t> copy;
    for (const auto& ins : dataflow->instructions())
      if (ins.is_h2d_copy && !copy) copy = ins.flat_index;
    QVERIFY(copy.has_value());
    timeline->selectInstruction(*copy);
    QVERIFY(timeline->instructionInView(*copy));
    for (int i = 0; i < 4; ++i) timeline->zoomIn();
    QVERIFY(timeline->zoom() > 4);
    QVERIFY2(timeline->instructionInView(*copy), "zooming in lost the selected copy");

    ui::ProfileDialog dialog(w.doc.program(), 0, &w.window);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    dialog.resize(640, 200);
    QTest::qWait(50);
    for (auto* label : dialog.findChildren<QLabel*>()) {
      if (!label->wordWrap() || !label->isVisible() || label->text().isEmpty()) continue;
      QVERIFY2(label->height() >= label->heightForWidth(label->width()) - 1,
               qPrintable(QString("'%1' is %2 px high for %3").arg(label->text().left(40)).arg(label->height())
                              .arg(label->heightForWidth(label->width()))));
    }
  }

  // Walkthrough 23, F8 and F9: the Transfers Summary unfolded after a
  // profile leaves the totals above it whole (they were cut in half at
  // 1600x1000); with no profile it shows no empty table over its "No
  // profile" line.
  void theSummaryLeavesTheTotalsWhole() {
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(test::synthProgram("summary-room.pte", {"--scenario", "cross_device"})));
    QVERIFY(w.window.showPanel("transfers"));
    auto* toggle = w.window.findChild<QToolButton*>("transferSummaryToggle");
    auto* table = w.window.findChild<QTableWidget*>("transferSummary");
    auto* breakdown = w.window.findChild<QLabel*>("transferBreakdown");
    QVERIFY(toggle != nullptr && table != nullptr && breakdown != nullptr);
    toggle->click();
    QTRY_VERIFY(breakdown->isVisible());
    QVERIFY2(!table->isVisible(), "an empty statistics table stands over 'No profile'");
    QVERIFY(breakdown->text().startsWith("No profile"));
    QVERIFY(test::profileOnHost(w.window, 0, 2, 0));
    QTRY_VERIFY(table->isVisible());
    QTest::qWait(50);
    auto* totals = w.window.transferTotals();
    auto* area = w.window.findChild<QWidget*>("transferTotalsArea");
    QVERIFY(area != nullptr && !totals->text().isEmpty());
    const int line = totals->fontMetrics().lineSpacing();
    QVERIFY2(area->height() >= line, qPrintable(QString("the totals have %1 px for a %2 px line").arg(area->height()).arg(line)));
  }

  // Walkthrough 23, F15: no two edge labels stand on each other (two
  // copies into one TensorRT delegate read "flofloat16[1,128]").
  void edgeLabelsDoNotOverlap() {
    QJsonObject tensors{{"a", tensor(1, 128)}, {"b", tensor(1, 128)}, {"y", tensor(1, 128)}, {"z", tensor(1, 128)}};
    QJsonArray nodes{QJsonObject{{"delegate", "TensorRTBackend"},
                                 {"compile_specs", QJsonObject{{"target_device", "cuda:7"}}},
                                 {"tensorrt", QJsonObject{{"engine", "engine-bytes"}}},
                                 {"inputs", QJsonArray{"a", "b"}},
                                 {"outputs", QJsonArray{"y"}}},
                     relu("y", "z")};
    const QString program = specProgram(
        "two-into-trt", QJsonArray{QJsonObject{{"name", "forward"}, {"inputs", QJsonArray{"a", "b"}},
                                               {"outputs", QJsonArray{"z"}}, {"tensors", tensors}, {"nodes", nodes}}});
    QVERIFY(!program.isEmpty());
    for (const QString& path : {program, test::writeDemoProgram("labels-demo.pte")}) {
      test::ShownWindow w({1600, 1000});
      QVERIFY(w.open(path));
      std::vector<QRectF> labels;
      for (auto* item : w.window.graph()->scene()->items())
        if (item->type() == ui::GraphEdgeItem::Type)
          if (const QRectF r = static_cast<ui::GraphEdgeItem*>(item)->labelSceneRect(); !r.isEmpty()) labels.push_back(r);
      QVERIFY(labels.size() >= 3);
      for (size_t i = 0; i < labels.size(); ++i)
        for (size_t j = i + 1; j < labels.size(); ++j)
          QVERIFY2(!labels[i].intersects(labels[j]),
                   qPrintable(QString("%1: edge labels at (%2, %3) and (%4, %5) overlap")
                                  .arg(QFileInfo(path).fileName()).arg(labels[i].x()).arg(labels[i].y())
                                  .arg(labels[j].x()).arg(labels[j].y())));
    }
  }

  // Walkthrough 23, F5: a big program (an llm of 3,000 instructions, its
  // first device step far from its start) opens on its start: the first
  // instruction and the left edge of the drawing (it opened on its middle,
  // moved as far as the first device region took).
  void aBigProgramOpensOnItsStart() {
    const QString program = test::synthProgram("start-llm.pte", {"--shape", "llm", "--instructions", "3000"});
    QVERIFY(!program.isEmpty());
    for (const QSize size : {QSize(1600, 1000), QSize(1000, 700)}) {
      test::ShownWindow w(size);
      QVERIFY(w.open(program));
      ui::GraphView* graph = w.window.graph();
      const auto* layout = graph->currentLayout();
      const auto first = layout->model.nodeOfInstruction(0);
      QVERIFY(first.has_value());
      const QRectF node = test::graphNodeItem(*graph, *first)->sceneBoundingRect();
      const QRectF shown = inSight(graph);
      QVERIFY2(shown.contains(node), qPrintable(QString("%1x%2: #0 at (%3, %4) is out of the picture (%5, %6, %7 x %8)")
                                                    .arg(size.width()).arg(size.height()).arg(node.x()).arg(node.y())
                                                    .arg(shown.x()).arg(shown.y()).arg(shown.width()).arg(shown.height())));
    }
  }

  // F4, F14, F3: the Memory plan scrolls a tensor selected with the keys into
  // view, zooms its instruction axis (buttons, Ctrl+=, Ctrl+wheel), and gives
  // a buffer of small tensors the height their labels need.
  void theMemoryPlanFollowsTheKeysAndZooms() {
    // Five buffers (cpu:0, cuda:0..3) so that the plan is taller than the
    // Details panel at 1000x700.
    const QString program = specProgram("plan-tall", QJsonArray{fourDevicesMethod()});
    QVERIFY(!program.isEmpty());
    test::ShownWindow w({1000, 700});
    QVERIFY(w.open(program));
    QVERIFY(w.window.showPanel("memory"));
    auto* plan = w.window.findChild<ui::MemoryPlanView*>("memoryPlan");
    auto* page = w.window.findChild<QScrollArea*>("memoryPlanPage");
    QVERIFY(plan != nullptr && page != nullptr);
    QTRY_VERIFY(plan->isVisible());
    QVERIFY2(plan->bands().size() >= 4, qPrintable(QString("%1 buffers").arg(plan->bands().size())));
    QVERIFY2(plan->height() > page->viewport()->height(), "the plan fits its page: nothing to scroll to");
    // Right steps from tensor to tensor into the last buffer, below the
    // fold: the selected tensor is scrolled into view.
    plan->setFocus();
    const int lastBuffer = plan->bands().back().buffer;
    QTest::keyClick(plan, Qt::Key_Home);
    for (size_t step = 0; step < plan->blocks().size(); ++step) {
      const auto* selected = &plan->blocks().front();
      for (const auto& block : plan->blocks())
        if (block.value == plan->selectedValue()) selected = &block;
      if (selected->buffer == lastBuffer) break;
      QTest::keyClick(plan, Qt::Key_Right);
    }
    const QRectF block = plan->valueRect(plan->selectedValue());
    QVERIFY(!block.isEmpty());
    QTest::qWait(20);
    const QRect visible(-plan->pos(), page->viewport()->size());
    QVERIFY2(visible.contains(block.toAlignedRect()),
             qPrintable(QString("the selected tensor at y %1 is out of the visible %2..%3")
                            .arg(block.top()).arg(visible.top()).arg(visible.bottom())));

    // Zoom: Ctrl+= widens the plan, its buttons and Ctrl+0 fit it again.
    const int fitted = plan->width();
    QCOMPARE(plan->zoom(), 1.0);
    QTest::keyClick(plan, Qt::Key_Equal, Qt::ControlModifier);
    QVERIFY2(plan->zoom() > 1.0, "Ctrl+= does not zoom the Memory plan");
    QTRY_VERIFY(plan->width() > fitted * 1.3);
    QVERIFY(page->horizontalScrollBar()->maximum() > 0);
    auto* zoomIn = w.window.findChild<QToolButton*>("memoryPlanZoomIn");
    auto* fit = w.window.findChild<QToolButton*>("memoryPlanFit");
    auto* level = w.window.findChild<QLabel*>("memoryPlanZoom");
    QVERIFY(zoomIn != nullptr && fit != nullptr && level != nullptr);
    QCOMPARE(zoomIn->accessibleName(), QString("Zoom in"));
    const double before = plan->zoom();
    zoomIn->click();
    QVERIFY(plan->zoom() > before);
    QCOMPARE(level->text(), QString("%1%").arg(qRound(plan->zoom() * 100)));
    QWheelEvent wheel(QPointF(300, 20), plan->mapToGlobal(QPointF(300, 20)), QPoint(), QPoint(0, -120), Qt::NoButton,
                      Qt::ControlModifier, Qt::NoScrollPhase, false);
    const double wheelFrom = plan->zoom();
    QApplication::sendEvent(plan, &wheel);
    QVERIFY2(plan->zoom() < wheelFrom, "Ctrl+wheel does not zoom the Memory plan");
    QTest::keyClick(plan, Qt::Key_0, Qt::ControlModifier);
    QCOMPARE(plan->zoom(), 1.0);
    QTRY_VERIFY(page->horizontalScrollBar()->maximum() == 0);
    QVERIFY(!fit->isEnabled());

    // Each buffer holds four 64 B tensors' rows at most: every tensor's band
    // is tall enough for its label (they were 5-10 px slivers).
    const int label = QFontMetrics(plan->font()).height() * 85 / 100 - 2;
    for (const auto& each : plan->blocks())
      QVERIFY2(plan->valueRect(each.value).height() >= label,
               qPrintable(QString("%%1 is %2 px high").arg(each.value).arg(plan->valueRect(each.value).height())));
  }

  // F3: the instruction axis numbers every 1st, 2nd, 5th, 10th, 20th...
  // instruction, as many as there is room for, never skipping unevenly
  // ("0 1 2 3 4 _ 6 7 8 9 10 _ 12").
  void theInstructionAxisStepsEvenly() {
    QCOMPARE(ui::MemoryPlanView::axisStep(13, 100, 30), size_t(1));
    QCOMPARE(ui::MemoryPlanView::axisStep(17, 48, 30), size_t(1));
    QCOMPARE(ui::MemoryPlanView::axisStep(17, 20, 30), size_t(2));
    QCOMPARE(ui::MemoryPlanView::axisStep(1900, 0.5, 40), size_t(100));
    for (double column : {0.3, 1.0, 7.0, 13.0, 33.0}) {
      const size_t step = ui::MemoryPlanView::axisStep(2000, column, 36);
      QVERIFY2(double(step) * column >= 36, qPrintable(QString("step %1 at %2 px").arg(step).arg(column)));
      size_t mantissa = step;
      while (mantissa % 10 == 0) mantissa /= 10;
      QVERIFY2(mantissa == 1 || mantissa == 2 || mantissa == 5, qPrintable(QString("step %1").arg(step)));
    }
    QCOMPARE(ui::MemoryPlanView::axisStep(5, 0, 30), size_t(6));  // no room: the first number only
  }
};

QTEST_MAIN(WalkthroughElevenTest)
#include "test_walkthrough_eleven.moc"
