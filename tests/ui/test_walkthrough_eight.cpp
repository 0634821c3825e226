// An eighth look at issue 34's classes: what the seventh walkthrough left
// open (a dock that grows with the Timeline) and what the eighth found.
#include <QtTest>

#include <QAbstractScrollArea>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QTreeWidget>
#include <QScrollArea>
#include <QSignalSpy>
#include <QTableWidget>
#include <QScrollBar>
#include <QTabWidget>

#include "support/TestSupport.h"
#include "support/UiTestSupport.h"
#include "ui/common/ElidedLabel.h"
#include "ui/document/Document.h"
#include "ui/graph/GraphView.h"
#include "ui/panels/AdvisorPanel.h"
#include "ui/panels/ChangesPanel.h"
#include "ui/panels/PropertiesPanel.h"
#include "ui/profile/LinkSelection.h"
#include "ui/profile/TimelineView.h"
#include "ui/window/MainWindow.h"

using namespace ptescope;

namespace {

QString fileText(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? QString::fromUtf8(file.readAll()) : QString();
}

}  // namespace

class WalkthroughEightTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { qputenv("PTESCOPE_NO_DIALOGS", "1"); }

  // At 1000 x 700 a profile made the Details dock taller (the Timeline asked
  // for every lane at full height, its axis and legend: the graph above lost
  // a third of its room). The dock keeps its share; the lanes get thinner
  // and the legend stays in view under them.
  void theTimelineLeavesTheDockItsShare() {
    test::ShownWindow w({1000, 700});
    QVERIFY(w.openDemo());
    auto* dock = w.window.findChild<QDockWidget*>("bottomDock");
    QVERIFY(dock != nullptr);
    auto showTimeline = [&] {
      QVERIFY(w.window.showPanel("timeline"));
      QCoreApplication::processEvents();
    };
    showTimeline();
    const int before = dock->height();
    QVERIFY(test::profileOnHost(w.window, w.doc.currentMethodIndex(), 2, 0));
    auto* timeline = w.window.findChild<ui::TimelineView*>("timeline");
    QVERIFY(timeline != nullptr);
    QTRY_VERIFY(!timeline->legendTexts().isEmpty());
    showTimeline();
    QVERIFY(timeline->isVisible());
    QVERIFY2(dock->height() <= std::max(before, w.window.height() * 30 / 100),
             qPrintable(QString("Details went from %1 to %2 px of %3").arg(before).arg(dock->height()).arg(w.window.height())));
    // Everything the timeline draws is in its view: lanes, axis and legend.
    QVERIFY2(timeline->contentHeight() <= timeline->canvas()->height(),
             qPrintable(QString("drawn %1 px in a view of %2").arg(timeline->contentHeight()).arg(timeline->canvas()->height())));
    // The lanes that do not fit scroll: selecting a copy of the last lane
    // (from the graph or the Transfers table) brings it into view, where a
    // click finds it.
    const auto& bars = timeline->bars();
    const auto last = std::find_if(bars.begin(), bars.end(), [&](const auto& b) { return b.lane == timeline->lanes().back(); });
    QVERIFY(last != bars.end());
    const size_t instruction = last->instruction;
    const QRect view = timeline->canvas()->rect();
    QVERIFY2(!view.contains(last->rect.toRect()), "the last lane is below the fold at this size");
    timeline->selectInstruction(instruction);
    QCoreApplication::processEvents();
    const auto shown = std::find_if(bars.begin(), bars.end(), [&](const auto& b) { return b.instruction == instruction; });
    QVERIFY(view.contains(shown->rect.center().toPoint()));
    QCOMPARE(size_t(timeline->barAt(shown->rect.center())), size_t(shown - bars.begin()));
    QVERIFY(timeline->contentHeight() <= timeline->canvas()->height());
    if (qEnvironmentVariableIsSet("PTESCOPE_TEST_SHOTS")) w.window.grab().save(qEnvironmentVariable("PTESCOPE_TEST_SHOTS") + "/timeline-1000.png");
  }

  // With room (the Details dock at its default for a 1000 px high window,
  // 260 px; another test's window may have left a smaller one in the
  // settings), every lane is in view at once: nothing scrolls.
  void everyLaneIsInViewWithRoom() {
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.openDemo());
    auto* dock = w.window.findChild<QDockWidget*>("bottomDock");
    QVERIFY(dock != nullptr);
    w.window.resizeDocks({dock}, {260}, Qt::Vertical);
    QVERIFY(test::profileOnHost(w.window, w.doc.currentMethodIndex(), 2, 0));
    QVERIFY(w.window.showPanel("timeline"));
    QCoreApplication::processEvents();
    auto* timeline = w.window.findChild<ui::TimelineView*>("timeline");
    QVERIFY(timeline != nullptr);
    QTRY_VERIFY(!timeline->bars().empty());
    // The lanes need no scrolling, or for less than a lane (the dock's
    // settled height varies by a few pixels: the CI saw 9 px to scroll), and
    // every bar, brought into view by selecting its instruction, can be hit
    // where it is drawn (none under the axis or the legend).
    auto* canvas = timeline->findChild<QAbstractScrollArea*>("timelineCanvas");
    QVERIFY(canvas != nullptr);
    QTRY_VERIFY2(canvas->verticalScrollBar()->maximum() < 20,
                 qPrintable(QString("%1 px of lanes scroll").arg(canvas->verticalScrollBar()->maximum())));
    const QRect view = timeline->canvas()->rect();
    for (size_t i = 0; i < timeline->bars().size(); ++i) {
      timeline->selectInstruction(timeline->bars()[i].instruction);
      QCoreApplication::processEvents();
      const auto& bar = timeline->bars()[i];
      QVERIFY(view.contains(bar.rect.center().toPoint()));
      const int hit = timeline->barAt(bar.rect.center());
      QVERIFY2(hit >= 0 && timeline->bars()[size_t(hit)].lane == bar.lane, qPrintable(QString("bar %1 cannot be hit").arg(i)));
    }
    QVERIFY(timeline->contentHeight() <= view.height());
    if (qEnvironmentVariableIsSet("PTESCOPE_TEST_SHOTS")) w.window.grab().save(qEnvironmentVariable("PTESCOPE_TEST_SHOTS") + "/timeline-1600.png");
  }

  // A planned buffer of no bytes (every tensor of the QNN sample's method is
  // the delegate's) reads "empty, on cpu:0", not "0 B on cpu:0".
  void anEmptyBufferSaysEmpty() {
    const QString sample = test::samplePath("stories260k-qnn-multimethod.pte");
    if (sample.isEmpty() || !QFileInfo::exists(sample)) QSKIP("the shared QNN sample is absent");
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(sample));
    auto* tree = w.window.properties();
    QTreeWidgetItem* buffers = nullptr;
    for (int i = 0; i < tree->topLevelItemCount(); ++i)
      if (tree->topLevelItem(i)->text(0) == "Planned buffers") buffers = tree->topLevelItem(i);
    QVERIFY(buffers != nullptr && buffers->childCount() >= 1);
    QCOMPARE(buffers->child(0)->text(0), QString("Buffer 1"));
    QCOMPARE(buffers->child(0)->text(1), QString("empty, on cpu:0"));
    // Another method of the file with a real buffer keeps its size.
    test::ShownWindow demo({1600, 1000});
    QVERIFY(demo.openDemo());
    auto* demoTree = demo.window.properties();
    for (int i = 0; i < demoTree->topLevelItemCount(); ++i)
      if (demoTree->topLevelItem(i)->text(0) == "Planned buffers")
        QCOMPARE(demoTree->topLevelItem(i)->child(0)->text(1), QString("512 B on cpu:0"));
  }

  // Delegate 1 (CudaBackend) of the demo loses its target_device: the passes
  // drop the copies around it and the backend copies the same tensors
  // inside it. The diff banner priced that but its words counted only the
  // et_copy copies removed; the Changes list priced the et_copy copies
  // only ("predicted -10 µs", a saving, where the banner said +) and listed
  // none of the copies now inside the delegate.
  void changesCountAndPriceTheCopiesInsideDelegates() {
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.openDemo());
    const int m = w.doc.currentMethodIndex();
    w.doc.setDelegateTarget(m, 1, std::nullopt);
    w.doc.waitForPipeline();
    QVERIFY2(w.doc.pipelineError().isEmpty(), qPrintable(w.doc.pipelineError()));
    QCOMPARE(w.window.graphMode(), ui::MainWindow::GraphMode::Diff);
    QTRY_VERIFY(w.window.graph()->diffSummary().contains("inside"));
    const QString banner = w.window.graph()->diffSummary();
    QVERIFY2(banner.contains("+2 copies inside delegates"), qPrintable(banner));
    // The same tensors cross the same link: no saving.
    QVERIFY2(banner.contains("predicted no change in copy time"), qPrintable(banner));
    // Both edits' copies priced, none a bare "0".
    QVERIFY2(!banner.contains("\u2192 0)"), qPrintable(banner));
    // The Changes list: the same sign in its method line, and one row per
    // copy now inside the delegate.
    auto* changes = w.window.changes();
    QString header;
    QStringList inside;
    for (int i = 0; i < changes->count(); ++i) {
      const QString text = changes->item(i)->text();
      if (text.startsWith("method 'forward'")) header = text;
      if (text.contains("inside delegate")) inside << text;
    }
    QVERIFY2(header.contains("predicted no change in copy time"), qPrintable(header));
    QCOMPARE(inside.size(), 2);
    for (const auto& row : inside) {
      QVERIFY2(row.startsWith("  + inside delegate 1 (CudaBackend): cuda staging "), qPrintable(row));
      QVERIFY2(row.contains(" B") && row.contains("\u00b7 ~"), qPrintable(row));
    }
  }

  // Find '#3' selected a copy of 'forward'; shown instead, a method with no
  // instruction #3 left the graph's description naming forward's copy
  // ("Selected: d2h 64.0 KiB · #3 ...") over a picture where nothing is.
  void anotherMethodsSelectionIsNotAnnounced() {
    const QString spec = test::tempDir() + "/two-methods.json";
    QFile file(spec);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"methods": [
      {"name": "forward", "inputs": ["x"], "outputs": ["w"],
       "tensors": {"x": {"dtype": "float32", "sizes": [2, 3]}, "y": {"dtype": "float32", "sizes": [2, 3]},
                   "z": {"dtype": "float32", "sizes": [2, 3]}, "w": {"dtype": "float32", "sizes": [2, 3]}},
       "nodes": [{"op": "aten::relu.out", "inputs": ["x"], "outputs": ["y"]},
                 {"op": "aten::relu.out", "inputs": ["y"], "outputs": ["z"]},
                 {"op": "aten::relu.out", "inputs": ["z"], "outputs": ["w"]}]},
      {"name": "small", "inputs": ["a"], "outputs": ["b"],
       "tensors": {"a": {"dtype": "float32", "sizes": [2]}, "b": {"dtype": "float32", "sizes": [2]}},
       "nodes": [{"op": "aten::relu.out", "inputs": ["a"], "outputs": ["b"]}]}]})");
    file.close();
    const QString path = test::synthProgram("two-methods.pte", {spec});
    QVERIFY(!path.isEmpty());
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(path));
    auto* graph = w.window.graph();
    QVERIFY(test::waitForGraph(graph));
    QCOMPARE(graph->find("#2"), 1);
    QWidget* canvas = graph->canvas();
    QVERIFY(canvas != nullptr);
    QVERIFY2(canvas->accessibleDescription().startsWith("Selected: "), qPrintable(canvas->accessibleDescription()));
    w.doc.setCurrentMethod(1);
    QVERIFY(test::waitForGraph(graph));
    QTRY_COMPARE(graph->currentLayout()->model.method_name, std::string("small"));
    QCOMPARE(graph->selectedInstruction(), std::optional<size_t>());
    QTRY_COMPARE(canvas->accessibleDescription(), QString("Nothing selected"));
  }

  // At 1000x700, a profile, then an edit: the Timeline's line says the
  // profile is of the program before the edits, and that long line made
  // the window 1169 px wide (the right docks went off the screen, and it
  // stayed so after Undo). It is elided at the panel's width.
  void theTimelinesLineNeverWidensTheWindow() {
    test::ShownWindow w({1000, 700});
    QVERIFY(w.openDemo());
    const int m = w.doc.currentMethodIndex();
    QVERIFY(test::profileOnHost(w.window, m, 2, 0));
    auto options = w.doc.methodOptions(m);
    options.skip_d2h_for_method_outputs = true;
    w.doc.setMethodOptions(m, options);
    w.doc.waitForPipeline();
    QVERIFY(w.window.showPanel("timeline"));
    QCoreApplication::processEvents();
    auto* timeline = w.window.findChild<ui::TimelineView*>("timeline");
    QVERIFY(timeline != nullptr);
    QTRY_VERIFY2(timeline->infoText().contains("before the edits"), qPrintable(timeline->infoText()));
    QTest::qWait(50);
    QVERIFY2(w.window.width() <= 1000, qPrintable(QString("the window is %1 px wide").arg(w.window.width())));
    QVERIFY(w.window.minimumSizeHint().width() <= 1000);
  }

  // A method with a long name, shown and left: the right dock widened for
  // good (the graph lost a third of its width at 1000x700), and Properties
  // cut the name at the end that tells it from its twin ("..._v2_draft" and
  // "..._v2_final" both read "encode_image_patches_with_a_very_long_method_nam…").
  void aLongMethodNameWidensNothing() {
    const QString spec = test::tempDir() + "/long-twins.json";
    QFile file(spec);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QString methods;
    for (const char* name : {"forward", "encode_image_patches_with_a_very_long_method_name_v2_final",
                             "encode_image_patches_with_a_very_long_method_name_v2_draft"})
      methods += QString(R"(%1{"name": "%2", "inputs": ["x"], "outputs": ["y"],
          "tensors": {"x": {"dtype": "float32", "sizes": [2, 3]}, "y": {"dtype": "float32", "sizes": [2, 3]}},
          "nodes": [{"op": "aten::relu.out", "inputs": ["x"], "outputs": ["y"]}]})")
                     .arg(methods.isEmpty() ? "" : ",", name);
    file.write(("{\"methods\": [" + methods + "]}").toUtf8());
    file.close();
    const QString path = test::synthProgram("long-twins.pte", {spec});
    QVERIFY(!path.isEmpty());
    for (const QSize size : {QSize(1000, 700), QSize(1600, 1000)}) {
      test::ShownWindow w(size);
      QVERIFY(w.open(path));
      QVERIFY(test::waitForGraph(w.window.graph()));
      const int graphWidth = w.window.graph()->width();
      auto* tree = w.window.properties();
      QStringList shownNames;  // the Method row as drawn, per long method
      for (int m : {1, 2, 0}) {
        w.doc.setCurrentMethod(m);
        QVERIFY(test::waitForGraph(w.window.graph()));
        QTest::qWait(30);
        for (int i = 0; i < tree->topLevelItemCount(); ++i)
          if (tree->topLevelItem(i)->text(0) == "Method" && m > 0)
            shownNames << tree->fontMetrics().elidedText(tree->topLevelItem(i)->text(1), tree->textElideMode(),
                                                         tree->columnWidth(1) - 8);
      }
      QCOMPARE(shownNames.size(), 2);
      QVERIFY2(shownNames[0] != shownNames[1], qPrintable(shownNames.join(" | ")));
      QVERIFY2(shownNames[0].endsWith("final") && shownNames[1].endsWith("draft"), qPrintable(shownNames.join(" | ")));
      // The status bar's GPU line stays whole beside the long name.
      w.doc.setCurrentMethod(2);
      QVERIFY(test::waitForGraph(w.window.graph()));
      auto* gpu = w.window.findChild<ui::ElidedLabel*>("gpuStatus");
      QVERIFY(gpu != nullptr);
      QTRY_VERIFY2(!gpu->isElided(), qPrintable(gpu->shownText()));
      w.doc.setCurrentMethod(0);
      QVERIFY(test::waitForGraph(w.window.graph()));
      QVERIFY2(w.window.width() <= size.width(), qPrintable(QString("the window is %1 px wide").arg(w.window.width())));
      QVERIFY2(w.window.graph()->width() >= graphWidth - 2,
               qPrintable(QString("the graph went from %1 to %2 px").arg(graphWidth).arg(w.window.graph()->width())));
    }
  }

  // File > Export Report after a profile and an edit: the report said "7
  // copies per call" over measurements of the program before the edit (3
  // d2h per iteration, PRF001 naming instructions the edited program does
  // not have) without a word; the window says "before the edits". A failed
  // export names the file once.
  void aReportSaysItsMeasurementsAreFromBeforeTheEdits() {
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.openDemo());
    const int m = w.doc.currentMethodIndex();
    QVERIFY(test::profileOnHost(w.window, m, 2, 0));
    const QString fresh = test::tempDir() + "/fresh.report.html";
    QVERIFY(w.window.exportHtmlReportTo(fresh));
    QVERIFY(!fileText(fresh).contains("before the edits"));
    auto options = w.doc.methodOptions(m);
    options.skip_d2h_for_method_outputs = true;
    w.doc.setMethodOptions(m, options);
    w.doc.waitForPipeline();
    const QString edited = test::tempDir() + "/edited.report.html";
    QVERIFY(w.window.exportHtmlReportTo(edited));
    const QString html = fileText(edited);
    QVERIFY2(html.contains(">Measured (before the edits)</th>"), "the copies' measured column");
    QVERIFY2(html.contains("Measured before the edits: the counts, times and findings below are of the program then"),
             "the measured section");
    const QString nowhere = test::tempDir() + "/no-such-folder/r.html";
    QVERIFY(!w.window.exportHtmlReportTo(nowhere));
    QCOMPARE(w.window.lastError().count(nowhere), 1);
  }

  // At 1000x700 Pass options scrolls; a check box that gets the focus from
  // outside the panel (Tab from Properties) was left scrolled out of view.
  void aFocusedPassOptionIsInView() {
    test::ShownWindow w({1000, 700});
    QVERIFY(w.openDemo());
    auto* scroll = w.window.findChild<QScrollArea*>("passOptionsScroll");
    QVERIFY(scroll != nullptr);
    // Show the Pass options tab of the right dock.
    auto* dock = scroll->parentWidget();
    while (dock != nullptr && qobject_cast<QDockWidget*>(dock) == nullptr) dock = dock->parentWidget();
    QVERIFY(dock != nullptr);
    dock->show();
    dock->raise();
    QCoreApplication::processEvents();
    QTRY_VERIFY(scroll->isVisible());
    QVERIFY2(scroll->verticalScrollBar()->maximum() > 0, "the panel scrolls at this size");
    scroll->verticalScrollBar()->setValue(scroll->verticalScrollBar()->maximum());
    QCoreApplication::processEvents();
    // The first focusable control of the panel, from outside it.
    QWidget* first = nullptr;
    for (QWidget* c : scroll->widget()->findChildren<QWidget*>())
      if ((c->focusPolicy() & Qt::TabFocus) && c->isVisible() && c->isEnabled()) {
        first = c;
        break;
      }
    QVERIFY(first != nullptr);
    const QRect before(first->mapTo(scroll->viewport(), QPoint(0, 0)), first->size());
    QVERIFY2(!scroll->viewport()->rect().contains(before), "scrolled to the bottom, the first control is out of view");
    w.window.properties()->setFocus();
    QCoreApplication::processEvents();
    first->setFocus(Qt::TabFocusReason);
    QCoreApplication::processEvents();
    const QRect after(first->mapTo(scroll->viewport(), QPoint(0, 0)), first->size());
    QVERIFY2(scroll->viewport()->rect().contains(after), qPrintable(QString("at y=%1 in a view %2 high").arg(after.y()).arg(scroll->viewport()->height())));
  }

  // An edit that removes every copy: "(10.8 µs → none)", not "→ 0)".
  void noCopyTimeIsNone() {
    ui::LinkSelection links;
    const QString text = links.savingText(10.8e-6, 0);
    QVERIFY2(text.contains(QString::fromUtf8("(10.8 µs → none)")), qPrintable(text));
    QVERIFY2(links.savingText(0, 5e-6).contains(QString::fromUtf8("(none → 5.00 µs)")), qPrintable(links.savingText(0, 5e-6)));
  }

  // A long edit of a method with a short name: the Undo item cut the text's
  // middle, where the name was ("Undo apply advisor candidate 1 to
  // …tputs --no-alloc-graph-input)"); with four methods one could not tell
  // which it undoes. The name stays; the text around it is cut at its ends.
  void theUndoItemKeepsAShortMethodName() {
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.openDemo());
    const int m = 1;  // prefill
    auto options = w.doc.methodOptions(m);
    options.skip_h2d_for_method_inputs = true;
    options.skip_d2h_for_method_outputs = true;
    options.alloc_graph_input = false;
    w.doc.setMethodOptions(m, options);
    w.doc.waitForPipeline();
    // As the Advisor words an applied candidate: the name in the middle.
    const auto edits = w.doc.edits();
    w.doc.undoStack()->undo();
    w.doc.waitForPipeline();
    w.doc.pushEdits(edits, "apply advisor candidate 1 to 'prefill' (--skip-h2d-inputs --skip-d2h-outputs "
                           "--no-alloc-graph-input --set-device prefill:0=cuda:0)");
    w.doc.waitForPipeline();
    auto* undo = w.window.findChild<QAction*>("undoAction");
    QVERIFY(undo != nullptr);
    QVERIFY2(undo->toolTip().size() > 70, qPrintable(undo->toolTip()));  // long enough to be cut
    QVERIFY2(undo->text().contains("'prefill'"), qPrintable(undo->text()));
    QVERIFY2(undo->text().startsWith("&Undo apply advisor candidate 1"), qPrintable(undo->text()));
    QVERIFY2(undo->text().size() < undo->toolTip().size(), qPrintable(undo->text()));  // cut, at its end
  }

  // At 1000x700 an 8-stage pipeline's one candidate had a row 210 px tall
  // (the caller's duties wrapped in a 107 px column beside a 360 px Device
  // memory) in a 76 px view, its short cells centred below the fold: the
  // row looked blank. Cells start at their row's top; Device memory wraps
  // at 200 px.
  void anAdvisorRowShowsItsStart() {
    const QString path = test::synthProgram("pipe8-advise.pte", {"--shape", "pipeline", "--layers", "8"});
    QVERIFY(!path.isEmpty());
    test::ShownWindow w({1000, 700});
    QVERIFY(w.open(path));
    QVERIFY(w.window.showPanel("advisor"));
    auto* panel = w.window.advisor();
    QVERIFY(panel != nullptr);
    QSignalSpy done(panel, &ui::AdvisorPanel::searchFinished);
    QVERIFY(panel->isSearching() || panel->refresh());
    QVERIFY(done.wait(60000));
    auto* table = panel->table();
    QTRY_VERIFY(table->rowCount() >= 1);
    QCoreApplication::processEvents();
    const int view = table->viewport()->height();
    const int line = table->fontMetrics().lineSpacing();
    for (int column = 0; column < table->columnCount(); ++column) {
      if (table->isColumnHidden(column) || table->item(0, column) == nullptr || table->item(0, column)->text().isEmpty()) continue;
      QVERIFY2(table->item(0, column)->textAlignment() & Qt::AlignTop, qPrintable(table->horizontalHeaderItem(column)->text()));
      const QRect cell = table->visualRect(table->model()->index(0, column));
      QVERIFY2(cell.top() + line <= view, qPrintable(QString("%1 starts at %2 in a view %3 high")
                                                         .arg(table->horizontalHeaderItem(column)->text()).arg(cell.top()).arg(view)));
    }
    QVERIFY(table->columnWidth(6) <= 200);
  }
};

QTEST_MAIN(WalkthroughEightTest)
#include "test_walkthrough_eight.moc"
