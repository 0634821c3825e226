// A ninth look at issue 34's classes: what the eighteenth walkthrough (a
// helper who wrote none of the fixes, on programs of its own) found.
#include <QtTest>

#include <QAbstractScrollArea>
#include <QComboBox>
#include <QDockWidget>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QScrollBar>
#include <QTableView>
#include <QTableWidget>
#include <QTreeView>

#include "etdump/EtdumpWriter.h"
#include "pte/Writer.h"
#include "report/ProfileWriters.h"
#include "support/RoundTripPrograms.h"
#include "support/TestSupport.h"
#include "support/UiTestSupport.h"
#include "ui/common/ElidedLabel.h"
#include "ui/common/ItemRoles.h"
#include "ui/document/Document.h"
#include "ui/document/Selection.h"
#include "ui/graph/GraphItems.h"
#include "ui/graph/GraphLegend.h"
#include "ui/graph/GraphView.h"
#include "ui/panels/AdvisorPanel.h"
#include "ui/panels/OutputsPanel.h"
#include "ui/profile/LinkSelection.h"
#include "ui/profile/ProfileSession.h"
#include "ui/profile/TimelineView.h"
#include "ui/profile/TransfersModel.h"
#include "ui/window/MainWindow.h"

using namespace ptescope;

namespace {

QString fileText(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

// A spec of METHODS, each relu(x) on the CPU, written and synthesized as
// <tempDir>/<name>.pte.
QString reluMethods(const QString& name, const QStringList& methods) {
  QString all;
  for (const QString& method : methods)
    all += QString(R"(%1{"name": "%2", "inputs": ["x"], "outputs": ["y"],
        "tensors": {"x": {"dtype": "float32", "sizes": [2, 3]}, "y": {"dtype": "float32", "sizes": [2, 3]}},
        "nodes": [{"op": "aten::relu.out", "inputs": ["x"], "outputs": ["y"]}]})")
               .arg(all.isEmpty() ? "" : ",", method);
  const QString spec = test::tempDir() + "/" + name + ".json";
  QFile file(spec);
  if (!file.open(QIODevice::WriteOnly)) return {};
  file.write(("{\"methods\": [" + all + "]}").toUtf8());
  file.close();
  return test::synthProgram(name + ".pte", {spec});
}

QStringList legendTexts(ui::GraphView* graph) {
  QStringList out;
  for (auto* legend : graph->findChildren<ui::GraphLegend*>())
    for (const auto& entry : legend->entries()) out << entry.text;
  return out;
}

}  // namespace

class WalkthroughNineTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { qputenv("PTESCOPE_NO_DIALOGS", "1"); }

  // Finding 2: with the rows in measured order, the banner, the notes and
  // Undo named each candidate by its predicted rank ("candidate 3" under row
  // #2). Every row is named by the number in its # column. Finding 5: an
  // emulated profile's savings say so in their column's header.
  void theAdvisorNamesTheRowsNumber() {
    const QString program = test::synthProgram("h2d_d2h.pte", {"--scenario", "h2d_d2h"});
    QVERIFY(!program.isEmpty());
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(program));
    ui::AdvisorPanel* panel = w.window.advisor();
    const QString json = test::tempDir() + "/h2d_d2h-profile.json";
    auto run = test::runCli({"profile", program, "--runtime", "host", "--iterations", "2", "--warmup", "0", "--json", json});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    auto read = report::readProfileJson(json.toStdString());
    QVERIFY(read.ok());
    exec::TransferProfile profile = read.value();
    QVERIFY(profile.emulated);
    // d2h far dearer than measured h2d: the measured order is not the predicted one.
    for (auto& c : profile.copies) {
      const double seconds = c.direction == program::CopyDirection::HostToDevice ? 100e-6 : 1000e-6;
      c.seconds = exec::TimingStats{seconds, seconds, seconds};
      c.samples = {seconds, seconds};
    }
    QSignalSpy done(panel, &ui::AdvisorPanel::searchFinished);
    panel->setMeasuredProfile(std::make_shared<const exec::TransferProfile>(profile));
    if (!panel->isSearching()) QVERIFY(panel->refresh());
    QVERIFY(done.wait(60000));
    QVERIFY(panel->measured().has_value());
    bool reordered = false;
    for (const auto& m : panel->measured()->candidates) reordered = reordered || m.rank != m.predicted_rank;
    QVERIFY2(reordered, "the measured ranks equal the predicted ones: the test shows nothing");
    QTableWidget* table = panel->table();
    const int measuredColumn = 5;
    QCOMPARE(table->horizontalHeaderItem(measuredColumn)->text(), QString("Measured saving (emulated)"));
    auto* notes = panel->findChild<QLabel*>("advisorNotes");
    QVERIFY(notes != nullptr);
    QVERIFY2(notes->text().contains("The profile is emulated"), qPrintable(notes->text()));
    for (int row = 0; row < table->rowCount(); ++row) {
      const QString shown = table->item(row, 0)->text();
      table->clearSelection();
      QSignalSpy previewed(panel, &ui::AdvisorPanel::previewReady);
      table->selectRow(row);
      QCoreApplication::processEvents();
      QVERIFY2(notes->text().startsWith("Candidate " + shown + " asks of the caller:"),
               qPrintable(QString("row #%1: %2").arg(shown, notes->text().left(60))));
      QVERIFY(previewed.count() > 0 || previewed.wait(30000));
      const QString note = previewed.last().at(3).toString();
      QVERIFY2(note.startsWith("preview of advisor candidate " + shown + " "), qPrintable(QString("row #%1: %2").arg(shown, note)));
    }
    const QString first = table->item(0, 0)->text();
    QVERIFY(panel->applyRow(0));
    QVERIFY2(w.doc.undoStack()->undoText().startsWith("apply advisor candidate " + first + " "),
             qPrintable(w.doc.undoStack()->undoText()));
    // A profile measured on a GPU: the plain header.
    profile.emulated = false;
    panel->setMeasuredProfile(std::make_shared<const exec::TransferProfile>(profile));
    if (!panel->isSearching()) QVERIFY(panel->refresh());
    QTRY_VERIFY(panel->measured().has_value() && !panel->measured()->emulated);
    QCOMPARE(table->horizontalHeaderItem(measuredColumn)->text(), QString("Measured saving"));
  }

  // Finding 3: a failed Run Once's message stayed over the file's name for
  // 15 s after a run of another method succeeded. Finding 7: the header
  // counted the skipped delegates as run.
  void aRunThatSucceedsReplacesTheFailure() {
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.openDemo());
    auto* outputs = w.window.outputsPanel();
    emit outputs->failed(QStringLiteral("method 'decode' input 0: the runtime refuses it"));
    QVERIFY2(w.window.statusMessage().startsWith("Run Once failed: "), qPrintable(w.window.statusMessage()));
    QSignalSpy finished(outputs, &ui::OutputsPanel::finished);
    QVERIFY(outputs->runOnce());
    QVERIFY(finished.wait(60000));
    QVERIFY2(!w.window.statusMessage().contains("failed"), qPrintable(w.window.statusMessage()));
    QVERIFY2(w.window.statusMessage().contains("Ran method 'forward' once"), qPrintable(w.window.statusMessage()));
    // The demo's forward: two CudaBackend calls ptescope does not run.
    size_t all = 0, delegates = 0;
    for (const auto& chain : program::items(w.doc.currentMethod()->chains))
      for (const auto& instruction : program::items(chain.instructions)) {
        ++all;
        if (instruction.kind() == program::InstructionKind::DelegateCall) ++delegates;
      }
    QVERIFY(delegates > 0);
    auto* header = outputs->findChild<QLabel*>("outputsHeader");
    QVERIFY(header != nullptr);
    QVERIFY2(header->text().contains(QString("%1 instructions run, %2 not executed").arg(all - delegates).arg(delegates)),
             qPrintable(header->text()));
  }

  // Finding 8: "1 h2d / 1 d2h copies" in the status bar; finding 12: the
  // legend asked to profile a method that has nothing to time.
  void countsAndALegendWithNothingToTime() {
    const QString path = reluMethods("cpu-methods", {"forward", "other"});
    QVERIFY(!path.isEmpty());
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(path));
    auto* counts = w.window.findChild<ui::ElidedLabel*>("countsStatus");
    QVERIFY(counts != nullptr);
    QVERIFY2(counts->text().endsWith("copies: 0 h2d / 0 d2h"), qPrintable(counts->text()));
    auto* overlay = w.window.findChild<QComboBox*>("overlayMetric");
    QVERIFY(overlay != nullptr);
    overlay->setCurrentIndex(overlay->findData(int(ui::GraphView::OverlayMetric::Time)));
    QVERIFY(test::waitForGraph(w.window.graph()));
    const QStringList legend = legendTexts(w.window.graph());
    QVERIFY2(legend.contains("no copies in this method: nothing to time (placement colours)"), qPrintable(legend.join(" | ")));
    QVERIFY2(!legend.join(" ").contains("profile it"), qPrintable(legend.join(" | ")));
    // The demo has copies and no profile: it is asked for there.
    QVERIFY(w.openDemo());
    overlay->setCurrentIndex(overlay->findData(int(ui::GraphView::OverlayMetric::Time)));
    QVERIFY(test::waitForGraph(w.window.graph()));
    QVERIFY2(legendTexts(w.window.graph()).join(" ").contains("profile it"), qPrintable(legendTexts(w.window.graph()).join(" | ")));
  }

  // Finding 10: File > Open of a .ptd refused it although the program of the
  // same name was beside it (the command line opened that one).
  void aPtdOpensTheProgramBesideIt() {
    const QString dir = test::tempDir() + "/ptd-open";
    QVERIFY(QDir().mkpath(dir));
    const QString pte = dir + "/model.pte";
    QCOMPARE(test::runCli({"synth", "--demo", "-o", pte}).exitCode, 0);
    QVERIFY(QFile::exists(dir + "/aoti_cuda_blob.ptd"));
    QVERIFY(QFile::copy(dir + "/aoti_cuda_blob.ptd", dir + "/model.ptd"));
    QVERIFY(QFile::copy(dir + "/aoti_cuda_blob.ptd", dir + "/alone.ptd"));
    test::ShownWindow w({1000, 700});
    QVERIFY2(w.window.openFile(dir + "/model.ptd"), qPrintable(w.window.lastError()));
    QCOMPARE(QFileInfo(w.doc.path()).fileName(), QString("model.pte"));
    QVERIFY(!w.window.openFile(dir + "/alone.ptd"));
    QVERIFY2(w.window.lastError().contains("no alone.pte beside it"), qPrintable(w.window.lastError()));
    QCOMPARE(QFileInfo(w.doc.path()).fileName(), QString("model.pte"));  // the open document stays
  }

  // Finding 9: at 1600 px a 70-character method name was cut in the status
  // bar (280 px) and the tool bar's Method box with half the bar empty.
  void aLongNameTakesTheRoomThereIs() {
    const QString name = QString::fromUtf8("encoder_ünïcødé_with_a_very_long_method_name_that_goes_on_and_on");
    const QString path = reluMethods("long-name", {"forward", name});
    QVERIFY(!path.isEmpty());
    for (const QSize size : {QSize(1000, 700), QSize(1600, 1000)}) {
      test::ShownWindow w(size);
      QVERIFY(w.open(path));
      QVERIFY(w.window.showMethod(name));
      QVERIFY(test::waitForGraph(w.window.graph()));
      QTest::qWait(50);
      auto* status = w.window.findChild<ui::ElidedLabel*>("methodStatus");
      QVERIFY(status != nullptr);
      if (size.width() >= 1600) QTRY_VERIFY2(!status->isElided(), qPrintable(status->shownText()));
      auto* box = w.window.findChild<QComboBox*>("methodSelector");
      QVERIFY(box != nullptr);
      const int nameWidth = box->fontMetrics().horizontalAdvance(name);
      if (size.width() >= 1600)
        QVERIFY2(box->width() >= nameWidth * 3 / 4,
                 qPrintable(QString("the Method box is %1 px for a name of %2 px").arg(box->width()).arg(nameWidth)));
      // Nothing pushes the window past its size.
      QVERIFY2(w.window.width() <= size.width(), qPrintable(QString("the window is %1 px wide").arg(w.window.width())));
    }
  }

  // Finding 13: at 1000 x 700 the overview sat over a copy's measurement
  // pill and cut "13.1 ms emulated" to "13.1 ms emulate". It takes a corner
  // where no pill shows, wherever the view is scrolled.
  void theOverviewCoversNoMeasurement() {
    test::ShownWindow w({1000, 700});
    QVERIFY(w.openDemo());
    QVERIFY(test::profileOnHost(w.window, w.doc.currentMethodIndex(), 2, 0));
    ui::GraphView* graph = w.window.graph();
    QVERIFY(test::waitForGraph(graph));
    QWidget* overview = nullptr;
    for (auto* child : graph->findChildren<QWidget*>())
      if (child->accessibleName() == "Overview") overview = child;
    QVERIFY(overview != nullptr);
    const auto& model = graph->currentLayout()->model;
    size_t checked = 0;
    for (int step = 0; step < 12; ++step) {
      // Scroll the picture under the overview's corner, a step at a time.
      auto* canvas = graph->canvas();
      canvas->horizontalScrollBar()->setValue(canvas->horizontalScrollBar()->maximum() * step / 11);
      canvas->verticalScrollBar()->setValue(canvas->verticalScrollBar()->maximum() * (11 - step) / 11);
      QCoreApplication::processEvents();
      if (!overview->isVisible()) continue;
      const QRect box(overview->mapTo(graph, QPoint(0, 0)), overview->size());
      for (size_t n = 0; n < model.nodes.size(); ++n) {
        const auto* item = test::graphNodeItem(*graph, n);
        if (item == nullptr || !item->overlay()) continue;
        const QRect pill = canvas->mapFromScene(item->overlayBadgeSceneRect(item->badgeSide())).boundingRect();
        const QRect shown(canvas->viewport()->mapTo(graph, pill.topLeft()), pill.size());
        if (!shown.intersects(QRect(canvas->viewport()->mapTo(graph, QPoint(0, 0)), canvas->viewport()->size()))) continue;
        ++checked;
        QVERIFY2(!shown.intersects(box), qPrintable(QString("step %1: the overview (%2,%3 %4x%5) covers the pill '%6'")
                                                        .arg(step).arg(box.x()).arg(box.y()).arg(box.width()).arg(box.height())
                                                        .arg(item->overlay()->text)));
      }
    }
    QVERIFY2(checked > 0, "no measurement pill was in view: the test shows nothing");
  }

  // At the app's first size (1400 x 900) the Details dock was 243 px and a
  // host profile's fourth Timeline lane ("not executed") needed a scroll.
  // Every lane shows there, and in the 1600 x 1000 window, without any
  // resizing of the dock.
  void theFirstSizeShowsEveryLane() {
    for (const QSize size : {QSize(1400, 900), QSize(1600, 1000)}) {
      test::ShownWindow w(size);
      QVERIFY(w.openDemo());
      QVERIFY(test::profileOnHost(w.window, w.doc.currentMethodIndex(), 2, 0));
      QVERIFY(w.window.showPanel("timeline"));
      QCoreApplication::processEvents();
      auto* timeline = w.window.findChild<ui::TimelineView*>("timeline");
      QVERIFY(timeline != nullptr);
      QTRY_VERIFY(!timeline->bars().empty());
      QVERIFY(timeline->lanes().size() >= 4);
      auto* canvas = timeline->findChild<QAbstractScrollArea*>("timelineCanvas");
      QVERIFY(canvas != nullptr);
      QTest::qWait(50);
      QVERIFY2(canvas->verticalScrollBar()->maximum() == 0,
               qPrintable(QString("at %1x%2, %3 px of lanes scroll (dock %4 px)")
                              .arg(size.width()).arg(size.height()).arg(canvas->verticalScrollBar()->maximum())
                              .arg(w.window.findChild<QDockWidget*>("bottomDock")->height())));
    }
  }

  // Review: the diff banner, the Changes list and the Advisor price the same
  // edit on each refresh; the price is kept until the link, the host memory
  // or a program changes, and is then made again.
  void anEditsPriceIsKeptUntilSomethingChanges() {
    test::ShownWindow w({1000, 700});
    QVERIFY(w.openDemo());
    auto options = w.doc.methodOptions(0);
    options.skip_h2d_for_method_inputs = true;
    w.doc.setMethodOptions(0, options);
    w.doc.waitForPipeline();
    auto* links = w.window.linkSelection();
    const auto loaded = w.doc.loadedSnapshot();
    const auto edited = w.doc.programSnapshot();
    const std::string forward = w.doc.currentMethod()->displayName();
    const auto first = links->predictEdit(loaded, edited, forward);
    const auto fresh = links->predictEdit(*loaded, *edited, forward);
    QVERIFY(first && fresh);
    QCOMPARE(first->after.copySeconds(), fresh->after.copySeconds());
    QVERIFY(first->before.copyCount() > first->after.copyCount());
    // Another host memory: priced again (pinned copies cost less).
    links->setHostMemory(exec::HostMemoryKind::Pinned);
    const auto pinned = links->predictEdit(loaded, edited, forward);
    const auto pinnedFresh = links->predictEdit(*loaded, *edited, forward);
    QVERIFY(pinned && pinnedFresh);
    QCOMPARE(pinned->before.copySeconds(), pinnedFresh->before.copySeconds());
    QVERIFY(pinned->before.copySeconds() != first->before.copySeconds());
    // Another edit: another program, priced again.
    options.skip_d2h_for_method_outputs = true;
    w.doc.setMethodOptions(0, options);
    w.doc.waitForPipeline();
    QVERIFY(w.doc.programSnapshot() != edited);
    const auto both = links->predictEdit(loaded, w.doc.programSnapshot(), forward);
    QVERIFY(both);
    QVERIFY(both->after.copyCount() < pinned->after.copyCount());
  }

  // Walkthrough 19: a program whose only step is a delegate ptescope does
  // not run "ran once" with outputs of zeros; the header and the status say
  // nothing ran. A failed run names the file (the Profile's error did).
  void aRunWhereNothingRanSaysSo() {
    const QString spec = test::tempDir() + "/only-delegate.json";
    QFile file(spec);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["y"],
        "tensors": {"x": {"dtype": "float32", "sizes": [4]}, "y": {"dtype": "float32", "sizes": [4]}},
        "nodes": [{"delegate": "XnnpackBackend", "inputs": ["x"], "outputs": ["y"]}]}]})");
    file.close();
    const QString path = test::synthProgram("only-delegate.pte", {spec});
    QVERIFY(!path.isEmpty());
    test::ShownWindow w({1000, 700});
    QVERIFY(w.open(path));
    auto* outputs = w.window.outputsPanel();
    QSignalSpy finished(outputs, &ui::OutputsPanel::finished);
    QVERIFY(outputs->runOnce());
    QVERIFY(finished.wait(60000));
    auto* header = outputs->findChild<ui::ElidedLabel*>("outputsHeader");
    QVERIFY(header != nullptr);
    QVERIFY2(header->text().contains("ran no instruction") && header->text().contains("outputs were not computed"),
             qPrintable(header->text()));
    QVERIFY2(w.window.statusMessage().contains("ran no instruction"), qPrintable(w.window.statusMessage()));
    emit outputs->failed(QStringLiteral("the memory budget is exceeded"));
    QVERIFY2(w.window.statusMessage().startsWith("Run Once failed: only-delegate.pte "), qPrintable(w.window.statusMessage()));
    QVERIFY2(w.window.lastError().endsWith("the memory budget is exceeded"), qPrintable(w.window.lastError()));
  }

  // Walkthrough 19: a finding about a delegate (PTS007 here) selected
  // nothing on a double-click; it selects the delegate's call. The Program
  // tree's highlight follows a method chosen in the Method box, and a wide
  // window keeps the status bar's counts beside a message.
  void findingsTreeAndCountsFollow() {
    const QString spec = test::tempDir() + "/cpu-target.json";
    QFile file(spec);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["y"],
        "tensors": {"x": {"dtype": "float32", "sizes": [4]}, "r": {"dtype": "float32", "sizes": [4]},
                    "y": {"dtype": "float32", "sizes": [4]}},
        "nodes": [{"op": "aten::relu.out", "inputs": ["x"], "outputs": ["r"]},
                  {"delegate": "XnnpackBackend", "compile_specs": {"target_device": "cpu:0"}, "inputs": ["r"], "outputs": ["y"]}]},
        {"name": "other", "inputs": ["a"], "outputs": ["b"],
         "tensors": {"a": {"dtype": "float32", "sizes": [4]}, "b": {"dtype": "float32", "sizes": [4]}},
         "nodes": [{"op": "aten::relu.out", "inputs": ["a"], "outputs": ["b"]}]}]})");
    file.close();
    const QString path = test::synthProgram("cpu-target.pte", {spec});
    QVERIFY(!path.isEmpty());
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(path));
    QVERIFY(w.window.showMethod("other"));
    QVERIFY(test::waitForGraph(w.window.graph()));
    auto* view = w.window.findChild<QTableView*>("diagnosticsView");
    QVERIFY(view != nullptr);
    QModelIndex finding;
    for (int row = 0; row < view->model()->rowCount(); ++row)
      if (view->model()->index(row, 0).data().toString().startsWith("PTS007") ||
          view->model()->index(row, 1).data().toString().startsWith("PTS007"))
        finding = view->model()->index(row, 0);
    QVERIFY2(finding.isValid(), "no PTS007 finding listed");
    QSignalSpy selected(w.window.selection(), &ui::Selection::instructionSelected);
    emit view->activated(finding);
    QCOMPARE(w.doc.currentMethod()->displayName(), std::string("forward"));
    QVERIFY(selected.count() > 0);
    size_t call = 0, flat = 0;  // the delegate's call (after relu and the copy the passes put before it)
    for (const auto& chain : program::items(w.doc.currentMethod()->chains))
      for (const auto& instruction : program::items(chain.instructions)) {
        if (instruction.kind() == program::InstructionKind::DelegateCall) call = flat;
        ++flat;
      }
    QVERIFY(call > 0);
    QCOMPARE(selected.last().at(0).value<size_t>(), call);
    // The tree's highlight is on the method shown.
    auto* tree = w.window.findChild<QTreeView*>("programTree");
    QVERIFY(tree != nullptr);
    QVERIFY(w.window.showMethod("other"));
    QCOMPARE(tree->currentIndex().data().toString(), QString("other"));
    // A message in a wide window: the counts stay.
    emit w.window.outputsPanel()->failed(QStringLiteral("x"));
    auto* counts = w.window.findChild<ui::ElidedLabel*>("countsStatus");
    QVERIFY(counts != nullptr && counts->isVisibleTo(&w.window));
  }

  // Finding 4: an imported trace of two methods showed the method on screen
  // only (the other: "profile this method"), and the exported report left
  // the other out while `report --etdump` had it.
  void everyMethodOfATraceKeepsItsMeasurements() {
    const auto program = test::twoMethodProgram("[1, 8]");
    const QString pte = test::tempDir() + "/two-traced.pte", etdp = test::tempDir() + "/two-traced.etdp";
    QVERIFY(pte::writeProgramFile(program, pte.toStdString()).ok());
    test::writeAll(etdp, etdump::serializeEtdump(test::twoMethodTrace(program)));
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(pte));
    QVERIFY(w.window.showMethod("encoder"));
    QVERIFY2(w.window.importEtdump(etdp), qPrintable(w.window.lastError()));
    QCOMPARE(w.window.profileSession()->latest()->profile->method, std::string("encoder"));
    QVERIFY2(w.window.statusMessage().contains("(also 'decoder': choose it in Method)"), qPrintable(w.window.statusMessage()));
    QVERIFY(w.window.showMethod("decoder"));
    QCOMPARE(w.window.profileSession()->latest()->profile->method, std::string("decoder"));
    QVERIFY2(w.window.profileSession()->latest()->label.contains(" · decoder · "),
             qPrintable(w.window.profileSession()->latest()->label));
    // Its copies carry the trace's medians, as the CLI reads them.
    const QString json = test::tempDir() + "/two-traced.json";
    QCOMPARE(test::runCli({"etdump", pte, etdp, "--json", json}).exitCode, 0);
    const auto bytes = test::readAll(json);
    const auto cli = nlohmann::json::parse(bytes.begin(), bytes.end());
    const nlohmann::json* decoder = nullptr;
    for (const auto& m : cli["methods"])
      if (m["method"] == "decoder") decoder = &m;
    QVERIFY(decoder != nullptr && !(*decoder)["copies"].empty());
    auto* transfers = qobject_cast<ui::TransfersModel*>(
        qobject_cast<QSortFilterProxyModel*>(w.window.transfersView()->model())->sourceModel());
    QVERIFY(transfers->hasMeasurements());
    for (const auto& c : (*decoder)["copies"]) {
      const int row = transfers->rowOfInstruction(c["instruction"].get<size_t>());
      QVERIFY(row >= 0);
      const double median = transfers->index(row, ui::TransfersModel::MedianTime).data(ui::SortRole).toDouble();
      QVERIFY2(qFuzzyCompare(median * 1e6, c["median_us"].get<double>()), qPrintable(QString::number(median)));
    }
    // The report holds both methods' measurements, as `report --etdump` does.
    const QString report = test::tempDir() + "/two-traced.html";
    QVERIFY2(w.window.exportHtmlReportTo(report), qPrintable(w.window.lastError()));
    const QString html = fileText(report);
    for (const char* method : {"m0", "m1"}) {
      const int start = html.indexOf(QString("<section class=\"method\" id=\"%1\">").arg(method));
      QVERIFY(start >= 0);
      const QString section = html.mid(start, html.indexOf("</section>", start) - start);
      QVERIFY2(section.contains("<h3>Measured transfers</h3>"), qPrintable(QString("%1 has no measurements").arg(method)));
    }
  }
};

QTEST_MAIN(WalkthroughNineTest)
#include "test_walkthrough_nine.moc"
