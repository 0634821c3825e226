// What a new user meets, round two (issue 34, items 15-28), checked on the
// widgets offscreen; tests/e2e drives the same things in a real X session.
#include <QtTest>

#include <QFile>
#include <QAction>
#include <QDockWidget>
#include <QGraphicsView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSet>
#include <QSignalSpy>
#include <QStyle>
#include <QTabWidget>
#include <QTableWidget>
#include <QTableView>

#include <unistd.h>

#include <map>

#include "support/TestSupport.h"
#include "support/UiTestSupport.h"
#include "ui/common/ElidedLabel.h"
#include "ui/common/ItemRoles.h"
#include "ui/document/Document.h"
#include "ui/panels/AdvisorPanel.h"
#include "ui/profile/ProfileSession.h"
#include "ui/profile/TransfersModel.h"
#include "layout/GraphvizLayout.h"
#include "ui/graph/GraphItems.h"
#include "ui/graph/GraphView.h"
#include "ui/window/MainWindow.h"

using namespace ptescope;

namespace {

using test::synthProgram;

struct Window : test::ShownWindow {
  using ShownWindow::ShownWindow;
  QLabel* findStatus() { return window.findChild<QLabel*>("findStatus"); }
  QLabel* graphMessage() { return window.graph()->findChild<QLabel*>("graphMessage"); }
};

// `ptescope-cli synth` of a JSON spec: NAME.pte in the test's folder.
QString specProgram(const QString& name, const QString& spec) {
  const QString specPath = test::tempDir() + "/" + name + ".json";
  QFile file(specPath);
  if (!file.open(QIODevice::WriteOnly) || file.write(spec.toUtf8()) < 0) return QString();
  file.close();
  return synthProgram(name + ".pte", {specPath});
}

// A method that runs `delegates` CUDA delegates one after the other.
QString delegateChain(const QString& name, int delegates) {
  QString nodes, tensors = R"("x": {"dtype": "float32", "sizes": [4]})";
  QString previous = "x";
  for (int d = 0; d < delegates; ++d) {
    const QString out = QString("y%1").arg(d);
    tensors += QString(R"(, "%1": {"dtype": "float32", "sizes": [4]})").arg(out);
    nodes += QString(R"(%1{"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:0"}, "blob": "b%2",
                     "inputs": ["%3"], "outputs": ["%4"]})")
                 .arg(QString(d ? ", " : ""), QString::number(d), previous, out);
    previous = out;
  }
  return specProgram(name, QString(R"({"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["%1"],
                                        "tensors": {%2}, "nodes": [%3]}]})").arg(previous, tensors, nodes));
}

// Brings the Advisor tab to the front and waits for its search to end.
bool searchInTheAdvisor(ui::AdvisorPanel* panel) {
  if (auto* tabs = qobject_cast<QTabWidget*>(panel->parentWidget()->parentWidget())) tabs->setCurrentWidget(panel);
  QSignalSpy done(panel, &ui::AdvisorPanel::searchFinished);
  if (!panel->isSearching() && !panel->refresh()) return false;
  return done.wait(120000);
}

size_t instructionCount(const ui::Document& doc) {
  size_t n = 0;
  for (const auto& chain : program::items(doc.loadedProgram().methods().front().chains)) n += program::items(chain.instructions).size();
  return n;
}

}  // namespace

class NewUserRoundTwoTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { qputenv("PTESCOPE_NO_DIALOGS", "1"); }

  // Item 20: a file re-exported as another program under the same name
  // reloads (nothing unsaved) with the Find status of the new picture and
  // the new picture's initial view, not the old graph's "1 of 1" and zoom.
  void autoReloadFindsAgainAndStartsFromTheInitialView() {
    const QString big = synthProgram("reload-big.pte", {"--shape", "llm", "--layers", "8"});
    const QString small = synthProgram("reload-small.pte", {"--demo"});
    QVERIFY(!big.isEmpty() && !small.isEmpty());
    // The zoom a window of the same size opens the small program at.
    double smallZoom = 0;
    {
      Window fresh;
      QVERIFY(fresh.open(small));
      smallZoom = fresh.window.graph()->zoomLevel();
    }
    const QString path = test::tempDir() + "/re-exported-program.pte";
    QVERIFY(QFile::copy(big, path));
    Window w;
    QVERIFY(w.open(path));
    const size_t bigInstructions = instructionCount(w.doc);
    QVERIFY(bigInstructions > 60);
    w.window.findChild<QLineEdit*>("findField")->setText("#60");  // as typed: Find searches as one types
    QCOMPARE(w.findStatus()->text(), QString("1 of 1"));
    w.window.graph()->zoomIn();
    w.window.graph()->zoomIn();
    QVERIFY(std::abs(w.window.graph()->zoomLevel() - smallZoom) > 0.05);
    // The exporter writes the new program and renames it over the old one.
    QVERIFY(QFile::copy(small, path + ".new"));
    QVERIFY(::rename(QFile::encodeName(path + ".new").constData(), QFile::encodeName(path).constData()) == 0);
    QTRY_VERIFY_WITH_TIMEOUT(instructionCount(w.doc) < 60, 10000);
    QVERIFY(test::waitForGraph(w.window.graph()));
    // The demo has fewer than 61 instructions: #60 is found nowhere now.
    QCOMPARE(w.findStatus()->text(), QString("Not found"));
    QVERIFY2(std::abs(w.window.graph()->zoomLevel() - smallZoom) < 1e-6,
             qPrintable(QString("zoom %1 after the reload, %2 when opened").arg(w.window.graph()->zoomLevel()).arg(smallZoom)));
  }

  // Item 27: an emulated profile hides the columns it has no figure for
  // ("% of peak", "Measured / predicted"), instead of "—" on every row.
  void anEmulatedProfileHidesItsEmptyColumns() {
    Window w;
    QVERIFY(w.open(synthProgram("emulated-profile.pte", {"--demo"})));
    QTableView* view = w.window.transfersView();
    QVERIFY(!view->isColumnHidden(ui::TransfersModel::Instruction));
    ui::ProfileRequest request;
    request.method = w.doc.currentMethodIndex();
    request.runtime = exec::RuntimePreference::Host;  // emulated: no GPU measured
    request.iterations = 3;
    request.warmup = 1;
    QSignalSpy finished(w.window.profileSession(), &ui::ProfileSession::finished);
    QVERIFY(w.window.startProfile(request));
    QVERIFY(finished.wait(60000));
    QVERIFY(w.window.profileSession()->latest()->profile->emulated);
    QCOMPARE(view->model()->columnCount(), int(ui::TransfersModel::kMeasuredColumns));
    QVERIFY(view->isColumnHidden(ui::TransfersModel::PeakShare));
    QVERIFY(view->isColumnHidden(ui::TransfersModel::MeasuredOverPredicted));
    // The measured columns an emulated profile does fill stay.
    QVERIFY(!view->isColumnHidden(ui::TransfersModel::MedianTime));
    QVERIFY(!view->isColumnHidden(ui::TransfersModel::Bandwidth));
    // Item 26: the Bytes cells are spelled as everywhere else ("1.0 KiB"),
    // the sort role keeps the number.
    const QModelIndex bytes = view->model()->index(0, ui::TransfersModel::Bytes);
    const qint64 n = bytes.data(ui::SortRole).toLongLong();
    const QString cell = bytes.data().toString();
    QVERIFY(n > 0);
    QVERIFY2(cell != QString::number(n) && QRegularExpression("^\\d+(\\.\\d)? (B|KiB|MiB|GiB)$").match(cell).hasMatch(),
             qPrintable(cell));
  }

  // Item 26: the memory plan, only painted, says its bands' texts to screen
  // readers (and to tests/e2e), with sizes spelled as everywhere else.
  void memoryPlanSaysItsBands() {
    // x -> relu (CPU) -> r -> CUDA delegate -> y, each float32[2048]: 2048 x 4 B = 8 KiB.
    // Buffer 1 (cpu:0) holds x and r, both live at instruction 0: 16 KiB, all of it at
    // once; buffer 2 (cuda:0) the copy of r and y, both live at the delegate: 16 KiB too.
    const QString program = specProgram("memory-plan-bands", R"({"methods": [{"name": "forward",
        "inputs": ["x"], "outputs": ["y"], "tensors": {"x": {"dtype": "float32", "sizes": [2048]},
        "r": {"dtype": "float32", "sizes": [2048]}, "y": {"dtype": "float32", "sizes": [2048]}},
        "nodes": [{"op": "aten::relu.out", "inputs": ["x"], "outputs": ["r"]},
                  {"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:0"}, "inputs": ["r"], "outputs": ["y"]}]}]})");
    QVERIFY(!program.isEmpty());
    Window w;
    QVERIFY(w.open(program));
    auto* plan = w.window.findChild<QWidget*>("memoryPlan");
    QVERIFY(plan != nullptr);
    QCOMPARE(plan->accessibleName(), QString("Memory plan"));
    QCOMPARE(plan->accessibleDescription(),
             QString("buffer 1 · cpu:0: 16.0 KiB, at most 16.0 KiB live, highest byte 16.0 KiB; "
                     "buffer 2 · cuda:0: 16.0 KiB, at most 16.0 KiB live, highest byte 16.0 KiB"));
  }

  // Item 27: each Diagnostics text is whole in its cell at 1000x700, the
  // fix too (it was a 240 px column of one line: "export with alloc…").
  void diagnosticsTextsAreWhole() {
    Window w;
    QVERIFY(w.open(synthProgram("diagnostics-whole.pte", {"--demo"})));
    auto options = w.doc.methodOptions(0);
    options.skip_d2h_for_method_outputs = true;  // PTS002: forward's output planned on cuda:0
    w.doc.setMethodOptions(0, options);
    w.doc.waitForPipeline();
    auto* view = w.window.findChild<QTableView*>("diagnosticsView");
    QVERIFY(view != nullptr);
    if (auto* tabs = w.window.findChild<QTabWidget*>("bottomTabs")) tabs->setCurrentWidget(view);
    QTRY_VERIFY(view->model()->rowCount() > 0);
    QTRY_VERIFY(view->isVisible());
    const QFontMetrics metrics(view->font());
    for (int row = 0; row < view->model()->rowCount(); ++row)
      for (int column = 0; column < view->model()->columnCount(); ++column) {
        const QString text = view->model()->index(row, column).data().toString();
        if (text.isEmpty()) continue;
        // The cell less the item's margins (3 px a side in Qt's styles, 2 more for slack).
        const int width = view->columnWidth(column) - 10;
        const int needed = metrics.boundingRect(QRect(0, 0, std::max(width, 1), 100000), Qt::TextWordWrap, text).height();
        QVERIFY2(needed <= view->rowHeight(row) && metrics.horizontalAdvance(text.section(' ', 0, 0)) <= width,
                 qPrintable(QString("row %1, column %2: %3 needs %4 px in %5 px, the row is %6 px high")
                                .arg(row).arg(column).arg(text).arg(needed).arg(width).arg(view->rowHeight(row))));
      }
  }

  // Item 27: a delegate's name is whole in a node sized for it: the box is
  // sized from an average glyph (layout::nodeSize), the title drawn in the
  // GUI's bold sans is wider; it was cut to "VulkanBacke…rAdrenoGPUs".
  void delegateNamesAreWholeInTheirNodes() {
    for (const char* name : {"VulkanBackendForAdrenoGPUs", "XnnpackBackend", "CudaBackend", "TensorRTBackend"}) {
      layout::GraphNode node;
      node.kind = layout::NodeKind::Delegate;
      node.title = name;
      node.subtitle = "#2 → cuda:0";
      // The painter's text area in a delegate box: a 9 px band and 4 px on the left, 6 px on the right.
      const double width = layout::nodeSize(node).width - 9 - 4 - 6;
      const auto shown = ui::fittedTitle(QString::fromUtf8(name), width);
      QVERIFY2(shown.text == QString::fromUtf8(name), qPrintable(shown.text + QString(" in %1 px").arg(width)));
      QVERIFY(shown.font.pixelSize() >= ui::kNodeTitlePixels - 2);
    }
    // A short title keeps the title font; one far too long is elided, not shrunk further.
    QCOMPARE(ui::fittedTitle("relu", 100).font.pixelSize(), ui::kNodeTitlePixels);
    const auto cut = ui::fittedTitle(QString("VeryLongBackendName").repeated(10), 150);
    QVERIFY(cut.text.contains(QChar(0x2026)));
    QCOMPARE(cut.font.pixelSize(), ui::kNodeTitlePixels);
  }

  // Item 24: with many delegates the Pass options panel stays inside its
  // dock (no wider than what the dock shows), also with more delegates than
  // get a chooser each, and after an edit makes an option bold.
  void passOptionsStayInsideTheDock() {
    for (const int delegates : {40, 60}) {
      const QString program = delegateChain(QString("chain%1").arg(delegates), delegates);
      QVERIFY(!program.isEmpty());
      Window w;
      QVERIFY(w.open(program));
      auto* scroll = w.window.findChild<QScrollArea*>("passOptionsScroll");
      QVERIFY(scroll != nullptr);
      auto* dock = w.window.findChild<QDockWidget*>("passOptionsDock");
      dock->raise();
      auto insideTheDock = [&] { return scroll->widget()->width() <= scroll->viewport()->width(); };
      QTRY_VERIFY2(insideTheDock(), qPrintable(QString("%1 delegates: the panel is %2 px wide, the dock shows %3 px")
                                                   .arg(delegates).arg(scroll->widget()->width()).arg(scroll->viewport()->width())));
      auto options = w.doc.methodOptions(0);
      options.skip_h2d_for_method_inputs = !options.skip_h2d_for_method_inputs;  // shown bold: edited
      w.doc.setMethodOptions(0, options);
      w.doc.waitForPipeline();
      QTRY_VERIFY2(insideTheDock(), qPrintable(QString("%1 delegates, after an edit: the panel is %2 px wide, the dock shows %3 px")
                                                   .arg(delegates).arg(scroll->widget()->width()).arg(scroll->viewport()->width())));
    }
  }

  // Item 18: File > Save As has Ctrl+Shift+S; no two items of a menu share
  // a mnemonic (Open Recent and Reload were both R); the zoom keys work
  // while the Find box has the focus.
  void keysOfMenusAndFind() {
    Window w;
    QVERIFY(w.open(synthProgram("keys.pte", {"--demo"})));
    auto* saveAs = w.window.findChild<QAction*>("saveAsAction");
    QVERIFY(saveAs != nullptr);
    QCOMPARE(saveAs->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    for (QMenu* menu : w.window.menuBar()->findChildren<QMenu*>()) {
      std::map<QChar, QStringList> owners;
      for (QAction* action : menu->actions()) {
        const QString text = action->text().section('\t', 0, 0);
        for (qsizetype i = 0; i + 1 < text.size(); ++i) {
          if (text[i] != '&') continue;
          if (text[i + 1] == '&') { ++i; continue; }
          owners[text[i + 1].toLower()] << text;
          break;
        }
      }
      for (const auto& [letter, texts] : owners)
        QVERIFY2(texts.size() == 1, qPrintable(menu->title() + ": " + texts.join(" and ") + " share the mnemonic " + letter));
    }
    auto* find = w.window.findChild<QLineEdit*>("findField");
    find->setFocus();
    QTRY_VERIFY(find->hasFocus());
    const double before = w.window.graph()->zoomLevel();
    QTest::keyClick(find, Qt::Key_Equal, Qt::ControlModifier);
    QVERIFY2(w.window.graph()->zoomLevel() > before * 1.2, qPrintable(QString("zoom %1 -> %2").arg(before).arg(w.window.graph()->zoomLevel())));
    QTest::keyClick(find, Qt::Key_Minus, Qt::ControlModifier);
    QVERIFY(std::abs(w.window.graph()->zoomLevel() - before) < 1e-6);
  }

  // Item 19: Open All Groups on a big program keeps the selected
  // instruction selected and in sight; Fit then shows the whole graph,
  // however small (it stopped at 1% and showed an eighth of it).
  void openAllGroupsKeepsTheSelectionAndFitShowsAll() {
    Window w;
    QVERIFY(w.open(synthProgram("big-groups.pte", {"--shape", "llm", "--instructions", "1500"})));
    ui::GraphView* graph = w.window.graph();
    QVERIFY(graph->hasGroups());
    QCOMPARE(graph->find("#700"), 1);
    QVERIFY(test::waitForGraph(graph));  // #700 was inside a closed group: it opened
    QGraphicsView* canvas = graph->canvas();
    QVERIFY2(canvas->accessibleDescription().contains("#700"), qPrintable(canvas->accessibleDescription()));
    graph->expandAll();
    QVERIFY(test::waitForGraph(graph));
    QVERIFY2(canvas->accessibleDescription().contains("#700"), qPrintable(canvas->accessibleDescription()));
    const auto* layout = graph->currentLayout();
    const auto node = layout->model.nodeOfInstruction(700);
    QVERIFY(node.has_value());
    const QRectF inSight = canvas->mapToScene(canvas->viewport()->rect()).boundingRect();
    const auto* item = test::graphNodeItem(*graph, *node);
    QVERIFY(item != nullptr);
    QVERIFY2(inSight.contains(item->sceneBoundingRect().center()), "the selected instruction is out of sight");
    graph->fitToWindow();
    const QRectF all(layout->bounds.x, layout->bounds.y, layout->bounds.width, layout->bounds.height);
    const QRectF fitted = canvas->mapToScene(canvas->viewport()->rect()).boundingRect();
    auto text = [](const QRectF& r) { return QString("(%1, %2, %3 x %4)").arg(r.x()).arg(r.y()).arg(r.width()).arg(r.height()); };
    // A few pixels of rounding at this scale aside (a pixel is ~300 units).
    const double slack = 8 / graph->zoomLevel();
    QVERIFY2(fitted.adjusted(-slack, -slack, slack, slack).contains(all),
             qPrintable(QString("Fit shows %1 of the graph %2 at %3%").arg(text(fitted), text(all)).arg(graph->zoomLevel() * 100)));
  }

  // Item 18: the arrow keys move the selection between the graph's nodes
  // (the first press selects the first node in sight).
  void arrowKeysMoveBetweenNodes() {
    Window w;
    QVERIFY(w.open(synthProgram("arrows.pte", {"--demo"})));
    QGraphicsView* canvas = w.window.graph()->canvas();
    canvas->setFocus();
    QCOMPARE(canvas->accessibleDescription(), QString("Nothing selected"));
    QTest::keyClick(canvas, Qt::Key_Down);
    const QString first = canvas->accessibleDescription();
    QVERIFY2(first.startsWith("Selected:"), qPrintable(first));
    QTest::keyClick(canvas, Qt::Key_Down);
    const QString second = canvas->accessibleDescription();
    QVERIFY2(second.startsWith("Selected:") && second != first, qPrintable(first + " / " + second));
    QTest::keyClick(canvas, Qt::Key_Up);
    QCOMPARE(canvas->accessibleDescription(), first);
  }

  // Item 27: the Undo menu item keeps to the menu's width however long the
  // edit's text is (the whole text is its tooltip), and a "&" in a name is
  // shown, not taken for a mnemonic.
  void undoItemIsShortAndWhole() {
    Window w;
    QVERIFY(w.open(synthProgram("undo-long.pte", {"--demo"})));
    auto* undo = [&]() -> QAction* {
      for (QAction* action : w.window.findChildren<QAction*>())
        if (action->shortcut() == QKeySequence(QKeySequence::Undo)) return action;
      return nullptr;
    }();
    QVERIFY(undo != nullptr);
    const QString longText = QString("apply candidate 1 & co: ") + QString("set delegate 0 of 'forward' to cuda:1, ").repeated(8);
    passes::ProgramEdits edits = w.doc.edits();
    auto options = w.doc.methodOptions(0);
    options.skip_d2h_for_method_outputs = !options.skip_d2h_for_method_outputs;
    edits.options[w.doc.program().methods().front().displayName()] = options;
    w.doc.pushEdits(edits, longText);
    w.doc.waitForPipeline();
    const QString shown = undo->text();
    // 60 average characters, the verb and a little slack for the ellipsis.
    const QFontMetrics metrics(w.window.menuBar()->font());
    QVERIFY2(metrics.horizontalAdvance(shown) <= metrics.averageCharWidth() * 70, qPrintable(shown));
    QVERIFY2(shown.contains(QChar(0x2026)), qPrintable(shown));
    QVERIFY2(shown.contains("&& co"), qPrintable(shown));
    QCOMPARE(undo->toolTip(), "Undo " + longText);
  }

  // Item 17: every candidate's Edits are whole in their cell (wrapped at
  // the flags when long), at 1000x700, so two candidates never look alike.
  void advisorEditsAreWhole() {
    Window w;
    QVERIFY(w.open(delegateChain("advisor-chain", 6)));
    ui::AdvisorPanel* panel = w.window.advisor();
    QVERIFY(searchInTheAdvisor(panel));
    QTableWidget* table = panel->table();
    QVERIFY(table->rowCount() >= 2);
    const int column = 1;  // Edits
    QCOMPARE(table->horizontalHeaderItem(column)->text(), QString("Edits"));
    const QFontMetrics metrics(table->font());
    // The cell's text area: its width less the style's text margin a side.
    const int margin = table->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, table) + 1;
    const int width = table->columnWidth(column) - 2 * margin;
    QSet<QString> shown;
    for (int row = 0; row < table->rowCount(); ++row) {
      const QString text = table->item(row, column)->text();
      const QRect needed = metrics.boundingRect(QRect(0, 0, width, 100000), Qt::TextWordWrap, text);
      QVERIFY2(needed.height() <= table->rowHeight(row),
               qPrintable(QString("row %1: '%2' needs %3 px, the row is %4 px").arg(row).arg(text).arg(needed.height()).arg(table->rowHeight(row))));
      QVERIFY2(needed.width() <= width, qPrintable(QString("row %1: '%2' is %3 px wide in %4 px").arg(row).arg(text).arg(needed.width()).arg(width)));
      shown << text;
    }
    QCOMPARE(int(shown.size()), table->rowCount());
  }

  // Item 17 at 1000x700: on cross_device (candidates of three flags and a
  // --set-device, 1 and 2 differing only in it) more than two candidates are
  // whole in sight with the one-line search note under them (the note's
  // three lines of room and Edits wrapped at half the table left 2½), and
  // the status line above them is whole.
  void advisorShowsThreeCandidatesAt1000x700() {
    Window w;
    QVERIFY(w.open(synthProgram("advisor-cross.pte", {"--scenario", "cross_device"})));
    ui::AdvisorPanel* panel = w.window.advisor();
    QVERIFY(searchInTheAdvisor(panel));
    QTest::qWait(50);
    QTableWidget* table = panel->table();
    QVERIFY(table->rowCount() >= 3);
    QVERIFY(table->item(0, 1)->text() != table->item(1, 1)->text());
    const QRect shown = table->viewport()->rect();
    int whole = 0;
    for (int row = 0; row < table->rowCount(); ++row)
      if (shown.contains(table->visualRect(table->model()->index(row, 1)))) ++whole;
    QVERIFY2(whole >= 3, qPrintable(QString("%1 whole candidates in a %2 px high table, rows %3 px")
                                        .arg(whole).arg(shown.height()).arg(table->rowHeight(0))));
    // The status line beside the buttons is whole too (it ran to "... that save ti…").
    auto* header = panel->findChild<ui::ElidedLabel*>("advisorHeader");
    QVERIFY(header != nullptr);
    QVERIFY2(!header->isElided(), qPrintable(header->shownText() + " / " + header->text()));
  }

  // An empty Diagnostics table says why it is empty ("No findings"), in
  // the table; a finding takes its place.
  void emptyDiagnosticsSayNoFindings() {
    Window w;
    QVERIFY(w.open(synthProgram("no-findings.pte", {"--scenario", "h2d_d2h"})));
    QTableView* view = w.window.diagnosticsView();
    QCOMPARE(view->model()->rowCount(), 0);
    auto* empty = view->viewport()->findChild<QLabel*>("diagnosticsEmpty");
    QVERIFY(empty != nullptr);
    QVERIFY2(!empty->isHidden() && empty->text().startsWith("No findings"), qPrintable(empty->text()));
    QCOMPARE(view->accessibleDescription(), empty->text());
    QVERIFY(view->viewport()->rect().contains(empty->geometry()));
    // Skipping the h2d of a planned input is an error (PTS001): a row.
    auto options = w.doc.methodOptions(0);
    options.enable_non_cpu_memory_planning = true;
    options.skip_h2d_for_method_inputs = true;
    w.doc.setMethodOptions(0, options);
    w.doc.waitForPipeline();
    QTRY_VERIFY(view->model()->rowCount() > 0);
    QVERIFY(empty->isHidden());
    QCOMPARE(view->accessibleDescription(), QString());
  }

  // Item 28: the window with no program says how to open one.
  void theEmptyWindowSaysHowToOpenAProgram() {
    Window w;
    QLabel* message = w.graphMessage();
    QVERIFY(message != nullptr);
    QTRY_VERIFY2(message->isVisible(), qPrintable(QString("hidden %1, graph visible %2, text '%3'")
                                                       .arg(message->isHidden()).arg(w.window.graph()->isVisible()).arg(message->text())));
    QVERIFY2(message->text().contains("Ctrl+O") && message->text().contains("Open Demo Program"), qPrintable(message->text()));
    QCOMPARE(message->accessibleName(), message->text());
    // A program shown: the hint goes.
    QVERIFY(w.open(synthProgram("hint-demo.pte", {"--demo"})));
    QVERIFY(!message->isVisible());
  }
};

QTEST_MAIN(NewUserRoundTwoTest)
#include "test_new_user_round_two.moc"
