// A seventh look at issue 34's classes: what the sixth walkthrough left
// (a status line about another method) and what the seventh found.
#include <QtTest>

#include "support/TestSupport.h"
#include "support/UiTestSupport.h"
#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QScrollArea>
#include <QTabWidget>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableWidget>

#include "ui/document/Document.h"
#include "ui/graph/GraphLegend.h"
#include "ui/graph/GraphView.h"
#include "ui/panels/AdvisorPanel.h"
#include "ui/panels/MemoryPlanView.h"
#include "ui/panels/OutputsPanel.h"
#include "ui/profile/TransfersModel.h"
#include <QUndoStack>
#include "ui/window/MainWindow.h"

using namespace ptescope;

namespace {

// The graph legend's scale and the notes after it, "|"-separated.
QString scaleAndNotes(const ui::GraphLegend& legend) {
  QString text;
  for (const auto& e : legend.entries())
    if (e.kind == ui::LegendEntry::Scale || e.kind == ui::LegendEntry::Note) text += e.text + "|";
  return text;
}

}  // namespace

class WalkthroughSevenTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { qputenv("PTESCOPE_NO_DIALOGS", "1"); }

  // "Profiled forward · host emulation ..." stayed on the status line after
  // the user switched to prefill, over a graph with no profile; back on
  // forward a new profile says so again.
  void aProfilesMessageLeavesWithItsMethod() {
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.openDemo());
    QVERIFY(w.window.showMethod("forward"));
    QVERIFY(test::profileOnHost(w.window, w.doc.currentMethodIndex(), 2, 0));
    QTRY_VERIFY2(w.window.statusMessage().startsWith("Profiled forward"), qPrintable(w.window.statusMessage()));
    QVERIFY(w.window.showMethod("prefill"));
    QVERIFY2(w.window.statusMessage().isEmpty(), qPrintable(w.window.statusMessage()));
    // A message about no method (a file written) stays when the method changes.
    w.window.showStatus("Wrote the report /tmp/x.html", 5000);
    QVERIFY(w.window.showMethod("forward"));
    QCOMPARE(w.window.statusMessage(), QString("Wrote the report /tmp/x.html"));
  }

  // The Advisor said "best 1 of the 4 valid edits that save time" over one
  // row on a moe program: the other 3 only add edits to the first for no
  // more saving and were listed nowhere (the CLI lists them under none).
  // The count is of what a full list shows; the rest are said apart.
  void theAdvisorCountsWhatItLists() {
    const QString path = test::synthProgram("moe-advise.pte", {"--shape", "moe", "--layers", "2"});
    QVERIFY(!path.isEmpty());
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(path));
    auto* panel = w.window.advisor();
    QVERIFY(panel != nullptr);
    QSignalSpy done(panel, &ui::AdvisorPanel::searchFinished);
    QVERIFY(panel->isSearching() || panel->refresh());
    QVERIFY(done.wait(60000));
    QVERIFY(panel->advice().has_value());
    const auto* advice = &*panel->advice();
    QVERIFY2(advice->valid_with_saving > advice->candidates.size(), "the moe program has valid edits that add to others");
    const int rows = panel->table()->rowCount();
    QCOMPARE(size_t(rows), advice->candidates.size());
    const QString header = panel->findChild<QLabel*>("advisorHeader")->text();
    QVERIFY2(!header.contains(" of the "), qPrintable(header));
    QVERIFY2(header.contains(rows == 1 ? QString("1 valid edit saves time.") : QString("%1 valid edits save time.").arg(rows)),
             qPrintable(header));
    auto cli = test::runCli({"advise", path, "--top", "0"});
    QCOMPARE(cli.exitCode, 0);
    QVERIFY2(cli.out.contains(QString("not listed: %1 valid edit").arg(advice->valid_with_saving - advice->candidates.size()).toUtf8()),
             cli.out.constData());
    auto top1 = test::runCli({"advise", path, "--top", "1"});
    QCOMPARE(top1.exitCode, 0);
    if (advice->candidates.size() > 1)
      QVERIFY2(top1.out.contains(QString("the best 1 of %1 valid edits").arg(advice->candidates.size()).toUtf8()),
               top1.out.constData());
  }

  // After an edit the totals said "measured before the edits", but each
  // Transfers row's median and the graph's badges and legend ("emulated copy
  // time") read as the edited program's times.
  void timesOfBeforeTheEditsSaySoWhereTheyShow() {
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.openDemo());
    const int m = w.doc.currentMethodIndex();
    QVERIFY(test::profileOnHost(w.window, m, 2, 0));
    w.window.setOverlayMetric(ui::GraphView::OverlayMetric::Time);
    auto* model = w.window.transfersModel();
    QVERIFY(model != nullptr);
    QCOMPARE(model->headerData(ui::TransfersModel::MedianTime, Qt::Horizontal).toString(), QString("Median"));
    auto* legend = w.window.graph()->findChild<ui::GraphLegend*>();
    QVERIFY(legend != nullptr);
    auto scale = [legend] { return scaleAndNotes(*legend); };
    QTRY_VERIFY(!scale().isEmpty());
    QVERIFY2(!scale().contains("before the edits"), qPrintable(scale()));
    auto options = w.doc.methodOptions(m);
    options.skip_d2h_for_method_outputs = true;
    w.doc.setMethodOptions(m, options);
    w.doc.waitForPipeline();
    QTRY_COMPARE(model->headerData(ui::TransfersModel::MedianTime, Qt::Horizontal).toString(),
                 QString("Median (before edits)"));
    QTRY_VERIFY2(scale().contains("|times measured before the edits|"), qPrintable(scale()));
    // Undone: the profile is of this program again.
    w.doc.undoStack()->undo();
    w.doc.waitForPipeline();
    QTRY_COMPARE(model->headerData(ui::TransfersModel::MedianTime, Qt::Horizontal).toString(), QString("Median"));
    QTRY_VERIFY2(!scale().isEmpty() && !scale().contains("before the edits"), qPrintable(scale()));
  }

  // The file changed on disk and was reloaded, no edit made: the profile of
  // the program before read "Median (before edits)", "measured before the
  // edits" (there were none).
  void timesOfBeforeAReloadSayTheProgramChanged() {
    const QString path = test::writeDemoProgram("reloaded-demo.pte");
    QVERIFY(!path.isEmpty());
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(path));
    QVERIFY(w.window.showMethod("forward"));
    QVERIFY(test::profileOnHost(w.window, w.doc.currentMethodIndex(), 2, 0));
    w.window.setOverlayMetric(ui::GraphView::OverlayMetric::Time);
    auto* model = w.window.transfersModel();
    auto* legend = w.window.graph()->findChild<ui::GraphLegend*>();
    QVERIFY(legend != nullptr);
    auto scale = [legend] { return scaleAndNotes(*legend); };
    auto cli = test::runCli({"propagate", path, "-o", path, "--force", "--method", "forward", "--skip-d2h-outputs"});
    QCOMPARE(cli.exitCode, 0);
    QVERIFY(w.doc.reload());
    w.doc.waitForPipeline();
    QVERIFY(test::waitForGraph(w.window.graph()));
    QVERIFY(!w.doc.isModified());
    QTRY_COMPARE(model->headerData(ui::TransfersModel::MedianTime, Qt::Horizontal).toString(),
                 QString("Median (before changes)"));
    QTRY_VERIFY2(scale().contains("|times measured before the program changed|"), qPrintable(scale()));
    QVERIFY2(w.window.transferTotals()->text().contains("measured before the program changed (the program then)"),
             qPrintable(w.window.transferTotals()->text()));
  }

  // A long method name in the tool bar's Method box was cut with no
  // ellipsis and no tool tip ("encode_image_tc"); the Timeline's zoom was
  // read by a screen reader as a bare "100%".
  void aLongMethodNameReadsWhole() {
    const QString name = "encode_image_tokens_for_the_vision_tower";
    const QString spec = test::tempDir() + "/long-method.json";
    QFile file(spec);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(QString(R"({"methods": [{"name": "%1", "inputs": ["x"], "outputs": ["y"],
        "tensors": {"x": {"dtype": "float32", "sizes": [2, 3]}, "y": {"dtype": "float32", "sizes": [2, 3]}},
        "nodes": [{"op": "aten::relu.out", "inputs": ["x"], "outputs": ["y"]}]}]})")
                   .arg(name)
                   .toUtf8());
    file.close();
    const QString path = test::synthProgram("long-method.pte", {spec});
    QVERIFY(!path.isEmpty());
    test::ShownWindow w({1000, 700});
    QVERIFY(w.open(path));
    auto* combo = w.window.findChild<QComboBox*>("methodSelector");
    QVERIFY(combo != nullptr);
    QCOMPARE(combo->currentText(), name);
    QVERIFY2(combo->toolTip().contains(name), qPrintable(combo->toolTip()));
    QVERIFY2(combo->width() < combo->fontMetrics().horizontalAdvance(name), "the box is wide enough: nothing to elide");
    auto* zoom = w.window.findChild<QLabel*>("timelineZoom");
    QVERIFY(zoom != nullptr);
    QCOMPARE(zoom->accessibleName(), QString("Timeline zoom"));
  }

  // At 1000 x 700 the Details dock opened at half the window on a program
  // with five buffers (the Memory plan's bands set its minimum): the graph
  // had 200 px. The plan scrolls inside the dock now; it keeps its share.
  void theDetailsDockKeepsItsShare() {
    const QString path = test::synthProgram("pipe8.pte", {"--shape", "pipeline", "--layers", "8"});
    QVERIFY(!path.isEmpty());
    test::ShownWindow w({1000, 700});
    QVERIFY(w.open(path));
    auto* dock = w.window.findChild<QDockWidget*>("bottomDock");
    QVERIFY(dock != nullptr);
    auto* tabs = w.window.bottomTabs();
    auto show = [&](const QString& tab) {
      for (int i = 0; i < tabs->count(); ++i)
        if (tabs->tabText(i) == tab) tabs->setCurrentIndex(i);
      QCoreApplication::processEvents();
    };
    QVERIFY2(w.window.memoryPlan()->bands().size() >= 5, "the pipeline plans a buffer per device");
    show("Memory plan");
    QVERIFY2(dock->height() <= w.window.height() * 30 / 100, qPrintable(QString("Details is %1 px").arg(dock->height())));
    // The bands are all there, below the fold: the page scrolls.
    auto* page = w.window.findChild<QScrollArea*>("memoryPlanPage");
    QVERIFY(page != nullptr);
    QVERIFY(page->widget()->height() >= page->viewport()->height());
  }

  // Find "relu" went to its first match ("1 of 2"); Escape on the graph
  // cleared the selection but Find still said "1 of 2" over nothing
  // selected. It says how many there are; F3 goes to the first again.
  void findSaysNoCurrentMatchOnceTheSelectionIsCleared() {
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.openDemo());
    auto* field = w.window.findChild<QLineEdit*>("findField");
    auto* status = w.window.findChild<QLabel*>("findStatus");
    QVERIFY(field != nullptr && status != nullptr);
    field->setText("CudaBackend");
    QTRY_VERIFY2(status->text().startsWith("1 of "), qPrintable(status->text()));
    const QString count = status->text().mid(QString("1 of ").size());
    auto* canvas = w.window.graph()->canvas();
    canvas->setFocus();
    QTest::keyClick(canvas, Qt::Key_Escape);
    QTRY_VERIFY2(!w.window.graph()->selectedInstruction().has_value(), "Escape clears the selection");
    QTRY_COMPARE(status->text(), count + (count == "1" ? " match" : " matches"));
    QTest::keyClick(canvas, Qt::Key_F3);
    QTRY_COMPARE(status->text(), "1 of " + count);
  }

  // Run Once's outputs of one method stayed listed under the next method
  // shown (%2, %3, %8 beside a method that has %0 and %1).
  void runOnceOutputsLeaveWithTheirMethod() {
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.openDemo());
    QVERIFY(w.window.showMethod("forward"));
    auto* panel = w.window.outputsPanel();
    QSignalSpy finished(panel, &ui::OutputsPanel::finished);
    QVERIFY(panel->runOnce());
    QVERIFY(finished.wait(60000) || finished.count() == 1);
    QVERIFY(panel->table()->rowCount() > 0);
    QVERIFY(w.window.showMethod("prefill"));
    QCOMPARE(panel->table()->rowCount(), 0);
  }

  // Undo of an applied Advisor candidate left its row selected, so the
  // candidate came back as a preview: the graph went on drawing it after
  // Undo (the banner's "preview" cut at 1000 px).
  void undoingAnAppliedCandidateLeavesNoPreview() {
    const QString path = test::synthProgram("advise-undo.pte", {"--scenario", "cross_device"});
    QVERIFY(!path.isEmpty());
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(path));
    auto* panel = w.window.advisor();
    QSignalSpy done(panel, &ui::AdvisorPanel::searchFinished);
    QVERIFY(panel->isSearching() || panel->refresh());
    QVERIFY(done.wait(60000));
    QVERIFY(panel->table()->rowCount() > 0);
    panel->table()->selectRow(0);
    QVERIFY(panel->applyRow(0));
    w.doc.waitForPipeline();
    QVERIFY(w.doc.isModified());
    w.doc.undoStack()->undo();
    w.doc.waitForPipeline();
    QVERIFY(!w.doc.isModified());
    QTest::qWait(300);  // a preview would be under way
    QVERIFY(panel->table()->selectionModel()->selectedRows().isEmpty());
    QVERIFY(!panel->isPreviewing());
  }

  // Edit > Undo cut the text in its middle: "Undo enable skip d2h for
  // outputs…ng_method_name_for_testing'" for both methods "encoder_..." and
  // "decoder_...", the part that tells them apart gone.
  void theUndoItemKeepsWhatTellsMethodsApart() {
    const QString spec = test::tempDir() + "/two-long.json";
    QFile file(spec);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QString method = R"({"name": "%1_attention_block_with_a_really_long_method_name_for_testing", "inputs": ["x"],
        "outputs": ["y"], "tensors": {"x": {"dtype": "float32", "sizes": [2, 3]}, "y": {"dtype": "float32", "sizes": [2, 3]}},
        "nodes": [{"op": "aten::relu.out", "inputs": ["x"], "outputs": ["y"]}]})";
    file.write(QString(R"({"methods": [%1, %2]})").arg(method.arg("encoder"), method.arg("decoder")).toUtf8());
    file.close();
    const QString path = test::synthProgram("two-long.pte", {spec});
    QVERIFY(!path.isEmpty());
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(path));
    const int decoder = 1;
    auto options = w.doc.methodOptions(decoder);
    options.alloc_graph_output = false;
    w.doc.setMethodOptions(decoder, options);
    w.doc.waitForPipeline();
    auto* undo = w.window.findChild<QAction*>("undoAction");
    QVERIFY(undo != nullptr);
    QVERIFY2(undo->text().contains("decoder"), qPrintable(undo->text()));
    QVERIFY2(undo->toolTip().contains("decoder_attention_block_with_a_really_long_method_name_for_testing"),
             qPrintable(undo->toolTip()));
  }
};

QTEST_MAIN(WalkthroughSevenTest)
#include "test_walkthrough_seven.moc"
