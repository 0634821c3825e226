// A fifth look at issue 34's classes, at what the fourth walkthrough left:
// what a panel says must be true of what it shows (Run Once on a program
// that uses no device memory says nothing is emulated, the timeline says
// which of its two totals is the median), what the user typed for one file
// does not hide another file's rows, a menu item's name is its words only,
// and a long driver error leaves the status line readable.
#include <QtTest>

#include <QAction>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QTabBar>
#include <QTabWidget>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTableWidget>
#include <QTreeWidget>

#include <nlohmann/json.hpp>

#include "support/TestSupport.h"
#include "support/UiTestSupport.h"
#include "ui/common/ElidedLabel.h"
#include "ui/document/Document.h"
#include "ui/graph/GraphItems.h"
#include "ui/graph/GraphView.h"
#include "layout/GraphvizLayout.h"
#include "ui/panels/AdvisorPanel.h"
#include "ui/panels/OutputsPanel.h"
#include "ui/panels/PropertiesPanel.h"
#include "ui/profile/TransfersModel.h"
#include "ui/window/MainWindow.h"

using namespace ptescope;

namespace {

// Brings the bottom tab holding `page` to the front.
void showTabOf(ui::MainWindow& window, QWidget* page) {
  for (int i = 0; i < window.bottomTabs()->count(); ++i)
    if (window.bottomTabs()->widget(i) == page || window.bottomTabs()->widget(i)->isAncestorOf(page))
      window.bottomTabs()->setCurrentIndex(i);
}


}  // namespace

class WalkthroughFiveTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { qputenv("PTESCOPE_NO_DIALOGS", "1"); }

  // Run Once on the host of a method whose buffers are all host memory:
  // nothing was emulated, so the Outputs header does not say "device memory
  // emulated" (it did); on the demo, with device-planned buffers, it does.
  void runOnceSaysEmulatedOnlyWhereDeviceMemoryIs() {
    test::ShownWindow w;
    const QString cpu = test::cpuOnlyProgram();
    QVERIFY(!cpu.isEmpty());
    for (const auto& [path, emulated] : {std::pair{cpu, false}, std::pair{QString(), true}}) {
      QVERIFY(path.isEmpty() ? w.openDemo() : w.open(path));
      ui::OutputsPanel* panel = w.window.outputsPanel();
      showTabOf(w.window, panel);
      QSignalSpy finished(panel, &ui::OutputsPanel::finished);
      QVERIFY(panel->runOnce());
      QVERIFY(finished.wait(60000) || finished.count() == 1);
      auto* header = panel->findChild<ui::ElidedLabel*>("outputsHeader");
      QVERIFY(header != nullptr);
      QCOMPARE(header->text().contains("emulated"), emulated);
      if (!emulated) QVERIFY2(header->text().contains("host CPU"), qPrintable(header->text()));
    }
  }

  // The Values filter belongs to the file it was typed for: opening another
  // one clears it (a table left empty by the last file's words read as a
  // program without values), and while a filter hides every row the table
  // says so in its middle and in its description.
  void theValuesFilterDoesNotCarryOverAndSaysWhatItHides() {
    test::ShownWindow w;
    QVERIFY(w.openDemo());
    auto* filter = w.window.findChild<QLineEdit*>("valuesFilter");
    auto* view = w.window.findChild<QTableView*>("valuesView");
    QVERIFY(filter != nullptr && view != nullptr);
    showTabOf(w.window, view);
    const int all = view->model()->rowCount();
    QVERIFY(all > 0);
    auto* note = view->viewport()->findChild<QLabel*>("valuesEmpty");
    QVERIFY(note != nullptr);
    QVERIFY(note->isHidden());
    // Typed as a person types: the rows are gone after the first letters,
    // and the note follows the words to the end.
    for (const char* typed : {"n", "no-such", "no-such-words-anywhere"}) filter->setText(QString::fromLatin1(typed));
    QCOMPARE(view->model()->rowCount(), 0);
    QVERIFY(!note->isHidden());
    QVERIFY2(note->text().contains("matching 'no-such-words-anywhere'") && note->text().contains(QString::number(all)),
             qPrintable(note->text()));
    QCOMPARE(view->accessibleDescription(), note->text());
    QVERIFY(view->viewport()->rect().contains(note->geometry()));
    // Another file: the filter is gone, its rows are shown.
    QVERIFY(w.open(test::cpuOnlyProgram()));
    QCOMPARE(filter->text(), QString());
    QVERIFY(view->model()->rowCount() > 0);
    QVERIFY(note->isHidden());
    QCOMPARE(view->accessibleDescription(), QString());
  }

  // Properties lists the method's planned buffers one per row (on one line
  // "1: 16.0 KiB cpu:0; 2: 24.0 …" was cut), and the Values table gives a
  // tensor's offset in the units of its Bytes column, the exact byte in the
  // tool tip (a raw "16384" stood beside "8.0 KiB").
  void buffersAndOffsetsReadInUnits() {
    test::ShownWindow w;
    QVERIFY(w.openDemo());
    const QTreeWidget* properties = w.window.properties();
    QTreeWidgetItem* buffers = nullptr;
    for (int i = 0; i < properties->topLevelItemCount(); ++i)
      if (properties->topLevelItem(i)->text(0) == "Planned buffers") buffers = properties->topLevelItem(i);
    QVERIFY(buffers != nullptr);
    const auto& sizes = program::items(w.doc.currentMethod()->non_const_buffer_sizes);
    QCOMPARE(buffers->text(1), QString::number(sizes.size() - 1));
    QCOMPARE(buffers->childCount(), int(sizes.size() - 1));
    QVERIFY(buffers->isExpanded());
    for (int i = 0; i < buffers->childCount(); ++i) {
      QCOMPARE(buffers->child(i)->text(0), QString("Buffer %1").arg(i + 1));
      QVERIFY2(buffers->child(i)->text(1).contains(" on cpu:0") || buffers->child(i)->text(1).contains(" on cuda:0"),
               qPrintable(buffers->child(i)->text(1)));
    }
    auto* view = w.window.findChild<QTableView*>("valuesView");
    QVERIFY(view != nullptr);
    auto* model = view->model();
    int offsetColumn = -1, bytesColumn = -1;
    for (int c = 0; c < model->columnCount(); ++c) {
      if (model->headerData(c, Qt::Horizontal).toString() == "Offset") offsetColumn = c;
      if (model->headerData(c, Qt::Horizontal).toString() == "Bytes") bytesColumn = c;
    }
    QVERIFY(offsetColumn >= 0 && bytesColumn >= 0);
    int offsets = 0;
    for (int r = 0; r < model->rowCount(); ++r) {
      const QString text = model->index(r, offsetColumn).data().toString();
      if (text.isEmpty()) continue;
      ++offsets;
      QVERIFY2(QRegularExpression("^[\\d.,]+ (B|KiB|MiB|GiB)$").match(text).hasMatch(), qPrintable(text));
      QVERIFY2(model->index(r, offsetColumn).data(Qt::ToolTipRole).toString().startsWith("At byte "),
               qPrintable(model->index(r, offsetColumn).data(Qt::ToolTipRole).toString()));
    }
    QVERIFY(offsets > 0);
  }

  // The first picture of a short chain (relu then sigmoid) at 1000×700
  // starts at the drawing's top left: the region's title, the input and both
  // calls whole, at the legible zoom (centred on the first call, it cut the
  // title and input above and the second call below).
  void aShortChainOpensWithItsStartInSight() {
    const QString spec = test::tempDir() + "/two-calls.json";
    QFile file(spec);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["z"],
        "tensors": {"x": {"dtype": "float32", "sizes": [2, 3]}, "y": {"dtype": "float32", "sizes": [2, 3]},
                    "z": {"dtype": "float32", "sizes": [2, 3]}},
        "nodes": [{"op": "aten::relu.out", "inputs": ["x"], "outputs": ["y"]},
                  {"op": "aten::sigmoid.out", "inputs": ["y"], "outputs": ["z"]}]}]})");
    file.close();
    const QString path = test::synthProgram("two-calls.pte", {spec});
    QVERIFY(!path.isEmpty());
    test::ShownWindow w;
    QVERIFY(w.open(path));
    const ui::GraphView& view = *w.window.graph();
    const QRectF shown = view.canvas()->mapToScene(view.canvas()->viewport()->rect()).boundingRect();
    const auto& model = view.currentLayout()->model;
    int checked = 0;
    for (size_t n = 0; n < model.nodes.size(); ++n) {
      const auto& node = model.nodes[n];
      if (!node.instruction && node.kind != layout::NodeKind::Input) continue;
      auto* item = test::graphNodeItem(view, n);
      QVERIFY(item != nullptr);
      QVERIFY2(shown.contains(item->sceneBoundingRect()), qPrintable(QString::fromStdString(node.title)));
      ++checked;
    }
    QCOMPARE(checked, 3);
    for (const auto& region : view.currentLayout()->regions)
      QVERIFY2(shown.contains(QPointF(region.rect.x + 8, region.rect.y + 8)), "the region's title corner is out of sight");
    const double uiPixels = QFontInfo(w.window.font()).pixelSize();
    QVERIFY(view.zoomLevel() * ui::kNodeSubtitlePixels >= uiPixels - 0.5);
  }

  // After a profile the copies' time pills and the badges of copies inside
  // delegates cover no node and no edge label (an edge's "256 B · 20.0 ns
  // emulated", wider than the label dot made room for, lay over the label
  // beside it, and the node's pill over its own edge's label); the edges
  // that leave a copy keep their label and take its colour.
  void overlayPillsCoverNoLabel() {
    const QString trt = test::tempDir() + "/trt-staging.json";
    QFile file(trt);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(test::kTensorRTStagingSpec);
    file.close();
    const QString staging = test::synthProgram("trt-staging.pte", {trt});
    QVERIFY(!staging.isEmpty());
    for (const QString& path : {QString(), staging}) {
      test::ShownWindow w({1600, 1000});
      QVERIFY(path.isEmpty() ? w.openDemo() : w.open(path));
      if (path.isEmpty()) {
        QVERIFY(test::profileOnHost(w.window, 0, 3, 1));
        w.window.setOverlayMetric(ui::GraphView::OverlayMetric::Time);
      }
      QVERIFY(test::waitForGraph(w.window.graph()));
      std::vector<ui::GraphNodeItem*> nodes;
      std::vector<ui::GraphEdgeItem*> edges;
      for (auto* item : w.window.graph()->scene()->items()) {
        if (auto* n = qgraphicsitem_cast<ui::GraphNodeItem*>(item)) nodes.push_back(n);
        if (auto* e = qgraphicsitem_cast<ui::GraphEdgeItem*>(item)) edges.push_back(e);
      }
      std::vector<std::pair<QString, QRectF>> pills;
      for (auto* n : nodes)
        if (n->overlay()) pills.emplace_back(QString::fromStdString(n->node().title), n->overlayBadgeSceneRect(n->badgeSide()));
      for (auto* e : edges) {
        if (!e->insideMarkRect().isEmpty()) pills.emplace_back("inside-delegate badge", e->insideMarkRect());
        if (e->overlay()) {
          QVERIFY2(e->overlay()->text.isEmpty(), qPrintable(e->overlay()->text));
          QVERIFY(!e->labelSceneRect().isEmpty());
        }
      }
      QVERIFY2(!pills.empty(), qPrintable(path));
      for (const auto& [what, rect] : pills) {
        for (auto* n : nodes)
          QVERIFY2(!rect.intersects(n->boxSceneRect()) || n->overlayBadgeSceneRect(n->badgeSide()) == rect,
                   qPrintable(what + " covers the node " + QString::fromStdString(n->node().title)));
        for (auto* e : edges)
          QVERIFY2(!rect.intersects(e->labelSceneRect()), qPrintable(what + " covers an edge label"));
        for (const auto& [other, otherRect] : pills)
          QVERIFY2(&otherRect == &rect || !rect.intersects(otherRect), qPrintable(what + " covers " + other));
      }
    }
  }

  // What the last file had selected does not carry over: after File > Open
  // of another program nothing is selected and the tables start at their
  // top (Transfers kept its current row, #2, and selected #2 of the new
  // program); and when the selection moves to an instruction without a row
  // (an arrow key off a copy) the copy's row is no longer lit.
  void selectionsBelongToTheirFileAndTheirRow() {
    test::ShownWindow w;
    QVERIFY(w.openDemo());
    QTableView* transfers = w.window.transfersView();
    const auto& model = w.window.graph()->currentLayout()->model;
    std::optional<size_t> copy, kernel;
    for (const auto& node : model.nodes) {
      if (!node.instruction) continue;
      if (node.kind == layout::NodeKind::CopyH2D || node.kind == layout::NodeKind::CopyD2H) copy = copy ? copy : node.instruction;
      else if (node.kind == layout::NodeKind::Kernel) kernel = kernel ? kernel : node.instruction;
    }
    QVERIFY(copy && kernel);
    w.window.selectInstruction(*copy);
    QVERIFY(transfers->currentIndex().isValid());
    w.window.selectInstruction(*kernel);
    QVERIFY(!transfers->currentIndex().isValid());
    QVERIFY(transfers->selectionModel()->selectedRows().isEmpty());
    w.window.selectInstruction(*copy);
    QVERIFY(transfers->currentIndex().isValid());
    QVERIFY(w.open(test::cpuOnlyProgram()));
    QVERIFY(!transfers->currentIndex().isValid());
    QVERIFY(!w.window.graph()->selectedInstruction() && !w.window.graph()->selectedValue());
    QCOMPARE(w.window.properties()->topLevelItem(0)->text(0), QString("Method"));
    // A method without a copy: its Transfers table says so.
    auto* note = transfers->viewport()->findChild<QLabel*>("transfersEmpty");
    QVERIFY(note != nullptr);
    QCOMPARE(transfers->model()->rowCount(), 0);
    QVERIFY2(!note->isHidden() && note->text().startsWith("This method has no copies"), qPrintable(note->text()));
    QCOMPARE(transfers->accessibleDescription(), note->text());
  }

  // A refused edit's error leaves the status line when the program is valid
  // again (it stayed after Undo, over a valid edit).
  void aRefusedEditsErrorLeavesWithIt() {
    test::ShownWindow w;
    // a is read by two delegates: skipping its h2d is refused by the pass.
    QVERIFY(w.open(test::synthProgram("sacd.pte", {"--scenario", "same_and_cross_device"})));
    auto options = w.doc.methodOptions(0);
    const auto valid = options;
    options.enable_non_cpu_memory_planning = true;
    options.skip_h2d_for_method_inputs = true;
    w.doc.setMethodOptions(0, options);
    w.doc.waitForPipeline();
    QTRY_VERIFY(!w.window.statusMessage().isEmpty());
    const QString error = w.window.statusMessage();
    QVERIFY2(error.contains("skip_h2d_for_method_inputs"), qPrintable(error));
    // Pairing the skips would not lift this refusal: it is not offered.
    auto* pair = w.window.findChild<QPushButton*>("pairFix");
    QVERIFY(pair != nullptr);
    QVERIFY(pair->isHidden());
    w.doc.undoStack()->undo();
    w.doc.waitForPipeline();
    QTRY_COMPARE(w.window.statusMessage(), QString());
    QCOMPARE(w.doc.methodOptions(0).skip_h2d_for_method_inputs, valid.skip_h2d_for_method_inputs);
  }

  // Profiling a program with no copy: no "emulated" (nothing was), no
  // "0.00 GB/s" of no copy, and the graph keeps its placement colours.
  void aProfileWithoutCopiesSaysNothingEmulated() {
    test::ShownWindow w;
    QVERIFY(w.open(test::cpuOnlyProgram()));
    QVERIFY(test::profileOnHost(w.window, 0, 2, 0));
    const QString totals = w.window.transferTotals()->text();
    QVERIFY2(!totals.contains("emulated") && !totals.contains("GB/s") && totals.contains("h2d 0 copies"), qPrintable(totals));
    QCOMPARE(w.window.graph()->overlayMetric(), ui::GraphView::OverlayMetric::Placement);
  }

  // A selected group opened with a double-click hands the selection to its
  // first instruction, and Properties follows (it kept the group's facts
  // while the graph said "Selected: mm · #150").
  void anOpenedGroupHandsItsSelectionOn() {
    const QString path = test::synthProgram("llm-open.pte", {"--shape", "llm", "--layers", "8"});
    QVERIFY(!path.isEmpty());
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(path));
    ui::GraphView& view = *w.window.graph();
    std::optional<size_t> group;
    const auto& nodes = view.currentLayout()->model.nodes;
    for (size_t n = 0; n < nodes.size() && !group; ++n)
      if (nodes[n].kind == layout::NodeKind::Group) group = n;
    QVERIFY(group);
    const size_t first = nodes[*group].order;
    const auto& g = view.currentLayout()->nodes[*group];
    view.canvas()->centerOn(g.center.x, g.center.y);
    const QPoint at = view.canvas()->mapFromScene(QPointF(g.center.x, g.center.y));
    QTest::mouseClick(view.canvas()->viewport(), Qt::LeftButton, {}, at);
    QCOMPARE(w.window.properties()->topLevelItem(1)->text(0), QString("Group"));
    QSignalSpy laidOut(&view, &ui::GraphView::layoutFinished);
    QTest::mouseDClick(view.canvas()->viewport(), Qt::LeftButton, {}, at);
    QVERIFY(laidOut.wait(60000));
    QCOMPARE(view.selectedInstruction(), std::optional<size_t>(first));
    QCOMPARE(w.window.properties()->topLevelItem(0)->text(0), QString("Instruction"));
    QCOMPARE(w.window.properties()->topLevelItem(0)->text(1), QString::number(first));
  }

  // After Save As the Advisor compares with the saved file (it kept
  // "'forward' as loaded: 4 copies ... best 2 of 3" and row 1 "(applied)"
  // about the file before, while advise on the saved file says it is best).
  void theAdvisorFollowsSaveAs() {
    const QString original = test::writeDemoProgram("advisor-save-as.pte");
    QVERIFY(!original.isEmpty());
    test::ShownWindow w;
    QVERIFY(w.open(original));
    ui::AdvisorPanel* panel = w.window.advisor();
    showTabOf(w.window, panel);
    QSignalSpy done(panel, &ui::AdvisorPanel::searchFinished);
    if (!panel->isSearching()) QVERIFY(panel->refresh());
    QVERIFY(done.wait(120000) || done.count() > 0);
    QVERIFY(panel->advice().has_value() && !panel->advice()->candidates.empty());
    const size_t before = panel->advice()->copies_now.total();
    QVERIFY(panel->applyRow(0));
    w.doc.waitForPipeline();
    const QString saved = test::tempDir() + "/advisor-saved.pte";
    QFile::remove(saved);
    QVERIFY(w.window.saveTo(saved));
    QTRY_VERIFY_WITH_TIMEOUT(!panel->isSearching() && panel->advice().has_value() &&
                                 panel->advice()->copies_now.total() < before,
                             60000);
    auto cli = test::runCli({"advise", saved, "--json"});
    QCOMPARE(cli.exitCode, 0);
    const auto json = nlohmann::json::parse(cli.out.toStdString());
    const auto& now = json["methods"][0]["copies_now"];
    QCOMPARE(now["h2d"].get<size_t>() + now["d2h"].get<size_t>(), panel->advice()->copies_now.total());
  }

  // The Summary and the Timeline speak of the method shown: with the latest
  // profile of another method they name it (the Summary showed forward's
  // breakdown under 'double').
  void profilesOfAnotherMethodAreNamedNotShown() {
    const QString spec = test::tempDir() + "/two-methods.json";
    QFile file(spec);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"methods": [
      {"name": "forward", "inputs": ["x"], "outputs": ["y"],
       "tensors": {"x": {"dtype": "float32", "sizes": [4]}, "y": {"dtype": "float32", "sizes": [4]}},
       "nodes": [{"op": "aten::relu.out", "inputs": ["x"], "outputs": ["y"]}]},
      {"name": "double", "inputs": ["x"], "outputs": ["y"],
       "tensors": {"x": {"dtype": "float32", "sizes": [4]}, "y": {"dtype": "float32", "sizes": [4]}},
       "nodes": [{"op": "aten::sigmoid.out", "inputs": ["x"], "outputs": ["y"]}]}]})");
    file.close();
    test::ShownWindow w;
    QVERIFY(w.open(test::synthProgram("two-methods.pte", {spec})));
    QVERIFY(w.window.showMethod("forward"));
    QVERIFY(test::profileOnHost(w.window, w.doc.currentMethodIndex(), 2, 0));
    auto* breakdown = w.window.findChild<QLabel*>("transferBreakdown");
    QVERIFY(breakdown != nullptr);
    QVERIFY2(breakdown->text().contains("Median iteration"), qPrintable(breakdown->text()));
    QVERIFY(w.window.showMethod("double"));
    QTRY_VERIFY2(breakdown->text().contains("The latest profile measured method 'forward'"), qPrintable(breakdown->text()));
    auto* canvas = w.window.findChild<QWidget*>("timelineCanvas");
    QVERIFY(canvas != nullptr);
    QVERIFY2(canvas->accessibleDescription().contains("measured method 'forward'"), qPrintable(canvas->accessibleDescription()));
  }

  // A copy an edit removed keeps its row, its values numbered as in the
  // program it was measured on: "%0 before", never a bare %0 beside the
  // live rows' values of another numbering.
  void removedRowsSayTheirValuesAreOfBefore() {
    test::ShownWindow w;
    QVERIFY(w.open(test::synthProgram("h2d-d2h-removed.pte", {"--scenario", "h2d_d2h"})));
    QVERIFY(test::profileOnHost(w.window, 0, 2, 0));
    auto options = w.doc.methodOptions(0);
    options.enable_non_cpu_memory_planning = true;
    options.skip_h2d_for_method_inputs = true;
    w.doc.setMethodOptions(0, options);
    w.doc.waitForPipeline();
    auto* model = qobject_cast<ui::TransfersModel*>(
        qobject_cast<QSortFilterProxyModel*>(w.window.transfersView()->model())->sourceModel());
    QVERIFY(model != nullptr);
    int removed = 0;
    for (int r = 0; r < model->rowCount(); ++r) {
      const QString source = model->index(r, ui::TransfersModel::Source).data().toString();
      const QString destination = model->index(r, ui::TransfersModel::Destination).data().toString();
      if (model->rows()[size_t(r)].removed) {
        ++removed;
        QVERIFY2(source.endsWith(" before") && destination.endsWith(" before"), qPrintable(source + " → " + destination));
      } else {
        QVERIFY2(!source.contains("before"), qPrintable(source));
      }
    }
    QVERIFY(removed > 0);
  }

  // Run Once's first values are whole where the verdict leaves room (they
  // were cut at 40 digits beside a verdict column wider than its text).
  void firstValuesAreWholeWhereThereIsRoom() {
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.openDemo());
    ui::OutputsPanel* panel = w.window.outputsPanel();
    showTabOf(w.window, panel);
    QSignalSpy finished(panel, &ui::OutputsPanel::finished);
    QVERIFY(panel->runOnce());
    QVERIFY(finished.wait(60000) || finished.count() == 1);
    QTableWidget* table = panel->table();
    QVERIFY(table->rowCount() > 0);
    const QString values = table->item(0, 6)->text();
    const int needed = table->fontMetrics().horizontalAdvance(values) + 4;
    QVERIFY2(table->columnWidth(6) >= needed,
             qPrintable(QString("'%1' needs %2 px, has %3").arg(values).arg(needed).arg(table->columnWidth(6))));
  }

  // --tab NAME (showPanel) shows the panel of that name: the Advisor's tab
  // was missing from the list, so "summary" showed the Advisor and
  // "outputs" the program's facts; those facts are the "Info" tab now (the
  // Transfers panel's profile Summary had the same name).
  void panelsShownByTheirNames() {
    test::ShownWindow w;
    QVERIFY(w.openDemo());
    QTabWidget* tabs = w.window.bottomTabs();
    QVERIFY(w.window.showPanel("outputs"));
    QCOMPARE(tabs->currentWidget(), static_cast<QWidget*>(w.window.outputsPanel()));
    QVERIFY(w.window.showPanel("advisor"));
    QCOMPARE(tabs->currentWidget(), static_cast<QWidget*>(w.window.advisor()));
    for (const char* name : {"info", "summary"}) {
      QVERIFY(w.window.showPanel(name));
      QCOMPARE(tabs->tabText(tabs->currentIndex()), QString("Info"));
    }
    QVERIFY(w.window.showPanel("transfers"));
    QCOMPARE(tabs->tabText(tabs->currentIndex()), QString("Transfers"));
    QVERIFY(!w.window.showPanel("nosuch"));
    for (int i = 0; i < tabs->count(); ++i) QVERIFY2(tabs->tabText(i) != "Summary", "a tab is still named Summary");
  }

  // The View menu's items are named by their words; their keys are the
  // items' shortcuts (shown beside them), not text after a tab that screen
  // readers read as part of the name ("Zoom In\tCtrl+=").
  void viewMenuItemsAreNamedByTheirWords() {
    test::ShownWindow w;
    QVERIFY(w.openDemo());
    const std::pair<const char*, QKeySequence> items[] = {
        {"zoomInAction", QKeySequence(Qt::CTRL | Qt::Key_Equal)},
        {"zoomOutAction", QKeySequence(Qt::CTRL | Qt::Key_Minus)},
        {"fitAction", QKeySequence(Qt::CTRL | Qt::Key_0)},
        {"findNextAction", QKeySequence(Qt::Key_F3)},
        {"findPreviousAction", QKeySequence(Qt::SHIFT | Qt::Key_F3)},
    };
    for (const auto& [name, key] : items) {
      auto* action = w.window.findChild<QAction*>(name);
      QVERIFY2(action != nullptr, name);
      QVERIFY2(!action->text().contains('\t'), qPrintable(action->text()));
      QCOMPARE(action->shortcut(), key);
      QCOMPARE(action->shortcutContext(), Qt::WidgetShortcut);
    }
    // No item of any menu carries its key in its text.
    for (auto* menu : w.window.menuBar()->findChildren<QMenu*>())
      for (auto* action : menu->actions()) QVERIFY2(!action->text().contains('\t'), qPrintable(action->text()));
    // The graph's own keys still zoom (the menu's are not ambiguous with them).
    w.window.graph()->canvas()->setFocus();
    const double before = w.window.graph()->zoomLevel();
    QTest::keyClick(w.window.graph()->canvas()->viewport(), Qt::Key_Equal, Qt::ControlModifier);
    QTRY_VERIFY(w.window.graph()->zoomLevel() > before);
  }

  // The timeline's line is the iteration drawn and its bar the median
  // iteration: each says which (two totals side by side read as one
  // contradicting the other), and the bar's words are whole at 1000 px.
  void theTimelineSaysWhichTotalIsWhich() {
    test::ShownWindow w;
    QVERIFY(w.openDemo());
    QVERIFY(test::profileOnHost(w.window, 0, 5, 1));
    auto* timeline = w.window.findChild<QWidget*>("timeline");
    QVERIFY(timeline != nullptr);
    showTabOf(w.window, timeline);
    auto* info = timeline->findChild<QLabel*>("timelineInfo");
    QVERIFY(info != nullptr);
    QVERIFY2(info->text().startsWith("iteration 1: "), qPrintable(info->text()));
    QWidget* bar = timeline->findChild<QWidget*>("timeBreakdown");
    QVERIFY(bar != nullptr);
    const QString words = bar->accessibleDescription();
    QVERIFY2(words.startsWith("median iteration "), qPrintable(words));
    QTRY_VERIFY(bar->isVisible() && bar->width() > 0);
    // The Summary's table says what its counts cover (every copy of every
    // measured iteration, not one iteration as the totals line), and its
    // bandwidth is memcpy's on the host.
    auto* caption = w.window.findChild<QLabel*>("transferSummaryCaption");
    QVERIFY(caption != nullptr);
    QVERIFY2(caption->text().startsWith("Every copy of the 5 iterations measured"), qPrintable(caption->text()));
    auto* stats = w.window.findChild<QTableWidget*>("transferSummary");
    QVERIFY(stats != nullptr);
    QCOMPARE(stats->horizontalHeaderItem(9)->text(), QString("memcpy GB/s"));
    QVERIFY2(bar->fontMetrics().horizontalAdvance(words) <= bar->width() - 12,
             qPrintable(QString("%1 px of words in a %2 px bar").arg(bar->fontMetrics().horizontalAdvance(words)).arg(bar->width())));
  }

  // With a measured profile open the Advisor's status line is still whole
  // at 1000 px (" Ranked by the measured profile (...)" cut it); the notes
  // name the profile the ranking comes from.
  void theAdvisorsMeasuredRankingLineIsWholeAt1000() {
    test::ShownWindow w;
    QVERIFY(w.openDemo());
    QVERIFY(test::profileOnHost(w.window, 0, 3, 1));
    ui::AdvisorPanel* panel = w.window.advisor();
    showTabOf(w.window, panel);
    QSignalSpy done(panel, &ui::AdvisorPanel::searchFinished);
    if (!panel->isSearching()) QVERIFY(panel->refresh());
    QVERIFY(done.wait(120000) || done.count() > 0);
    QTRY_VERIFY(panel->measured().has_value());
    auto* header = panel->findChild<ui::ElidedLabel*>("advisorHeader");
    QVERIFY(header != nullptr);
    QVERIFY2(header->text().contains("by measured time."), qPrintable(header->text()));
    QVERIFY2(!header->isElided(), qPrintable(header->shownText() + " / " + header->text()));
    const QString notes = panel->findChild<QLabel*>("advisorNotes")->text();
    QVERIFY2(notes.contains("from the profile ") && notes.contains("iterations"), qPrintable(notes));
  }

  // After an emulated profile the status line keeps to a few words on why
  // there was no GPU; the driver's whole error is its tool tip.
  void theStatusLineKeepsTheDriversErrorInItsToolTip() {
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.openDemo());
    ui::ProfileRequest request;
    request.method = 0;
    request.runtime = exec::RuntimePreference::Auto;
    request.iterations = 2;
    request.warmup = 0;
    QSignalSpy finished(w.window.profileSession(), &ui::ProfileSession::finished);
    QVERIFY(w.window.startProfile(request));
    QVERIFY(finished.wait(60000));
    const auto selection = exec::selectRuntime(exec::RuntimePreference::Auto);
    QVERIFY(selection.ok());
    if (!selection->runtime->isEmulated()) QSKIP("a GPU answered: the profile ran on it and needs no notice");
    const QString message = w.window.statusMessage();
    auto* label = w.window.findChild<QLabel*>("statusMessage");
    QVERIFY(label != nullptr);
    QVERIFY2(message.contains(QString::fromStdString(selection->short_notice)), qPrintable(message));
    QVERIFY2(!message.contains(QString::fromStdString(selection->notice)), qPrintable(message));
    QVERIFY2(label->toolTip().contains(QString::fromStdString(selection->notice).toHtmlEscaped()) ||
                 label->toolTip().contains(QString::fromStdString(selection->notice)),
             qPrintable(label->toolTip()));
    QVERIFY2(label->fontMetrics().horizontalAdvance(message) <= label->width(),
             qPrintable(QString("'%1' is %2 px in %3").arg(message).arg(label->fontMetrics().horizontalAdvance(message)).arg(label->width())));
  }
};

QTEST_MAIN(WalkthroughFiveTest)
#include "test_walkthrough_five.moc"
