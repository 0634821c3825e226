// What a new user meets in the app's first minutes (issue 24), checked on the
// widgets: Properties names the right values, every shortcut is bound once,
// nothing makes the window wider than the screen, Find says what it found and
// reaches closed groups, names are text, per-document state resets, Save As
// names the file. tests/e2e drives the same things in a real X session.
#include <QtTest>

#include <QAccessible>
#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QRegularExpression>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QTreeWidget>
#include <QUndoStack>

#include <map>
#include <set>

#include "analysis/Dataflow.h"
#include "layout/GraphModel.h"
#include "pte/Reader.h"
#include "support/TestSupport.h"
#include "support/UiTestSupport.h"
#include "ui/document/Document.h"
#include "ui/graph/GraphCanvas.h"
#include "ui/graph/GraphView.h"
#include "ui/panels/PassOptionsPanel.h"
#include "ui/panels/PropertiesPanel.h"
#include "ui/window/MainWindow.h"

using namespace ptescope;

namespace {

// The value indices a text names ("%0 float32[1,64] cpu:0" → {0}).
std::vector<int> valueRefs(const QString& text) {
  std::vector<int> refs;
  auto it = QRegularExpression(QStringLiteral("%(\\d+)")).globalMatch(text);
  while (it.hasNext()) refs.push_back(it.next().captured(1).toInt());
  return refs;
}

// The child rows' value column under the top-level row named `key`.
QStringList childValues(QTreeWidget* tree, const QString& key) {
  QStringList values;
  for (int i = 0; i < tree->topLevelItemCount(); ++i) {
    auto* item = tree->topLevelItem(i);
    if (item->text(0) != key) continue;
    for (int c = 0; c < item->childCount(); ++c) values << item->child(c)->text(1);
  }
  return values;
}

QString writeShape(const QString& name, const QStringList& args) { return test::synthProgram(name, args); }

struct Window : test::ShownWindow {
  using ShownWindow::ShownWindow;
  QLineEdit* find() { return window.findChild<QLineEdit*>("findField"); }
  QLabel* findStatus() { return window.findChild<QLabel*>("findStatus"); }
};

}  // namespace

class FirstMinutesTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    qputenv("PTESCOPE_NO_DIALOGS", "1");
    QCoreApplication::setOrganizationName("ptescope-tests");
    QCoreApplication::setApplicationName("test_first_minutes");
    QSettings().clear();
  }

  // Item 1: the Inputs and Outputs rows name exactly the instruction's values
  // (chained QString::arg used to put the tensor text into "%3").
  void propertiesNameTheInstructionsValues() {
    Window w;
    QVERIFY(w.openDemo());
    const analysis::Dataflow* flow = w.doc.currentDataflow();
    QVERIFY(flow != nullptr && flow->instructionCount() > 0);
    auto* properties = w.window.properties();
    for (size_t k = 0; k < flow->instructionCount(); ++k) {
      properties->showInstruction(k);
      const auto& facts = flow->instructions()[k];
      for (const auto& [key, expected] : {std::pair{QString("Inputs"), facts.inputs}, std::pair{QString("Outputs"), facts.outputs}}) {
        const QStringList rows = childValues(properties, key);
        QCOMPARE(size_t(rows.size()), expected.size());
        for (int r = 0; r < rows.size(); ++r) {
          const auto refs = valueRefs(rows[r]);
          QVERIFY2(refs.size() == 1 && refs[0] == expected[size_t(r)],
                   qPrintable(QString("#%1 %2 row %3: '%4', expected %%5").arg(k).arg(key).arg(r).arg(rows[r]).arg(expected[size_t(r)])));
        }
      }
    }
  }

  // Item 2: no key sequence belongs to two actions (Qt then fires neither),
  // Reload is not F5, and Redo answers Ctrl+Shift+Z.
  void everyShortcutIsBoundOnce() {
    Window w;
    QVERIFY(w.openDemo());
    std::map<QString, QStringList> owners;
    for (auto* action : w.window.findChildren<QAction*>())
      for (const QKeySequence& key : action->shortcuts())
        owners[key.toString(QKeySequence::PortableText)] << action->text();
    for (const auto& [key, actions] : owners)
      QVERIFY2(actions.size() == 1, qPrintable(key + " is bound to " + actions.join(" and ")));
    QVERIFY(owners.count("F5"));
    QVERIFY(owners.count("Ctrl+Shift+Z"));

    // An edit, undone with Ctrl+Z, redone with Ctrl+Shift+Z.
    auto* undo = w.doc.undoStack();
    w.doc.setDelegateTarget(0, 0, program::Device{program::DeviceType::Cuda, 1});
    w.doc.waitForPipeline();
    QCOMPARE(undo->index(), 1);
    QTest::keyClick(&w.window, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(undo->index(), 0);
    QTest::keyClick(&w.window, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(undo->index(), 1);
  }

  // Item 3: long texts (totals, status messages, a long link name) do not
  // set a minimum width beyond a small screen.
  void nothingWidensTheWindowPastTheScreen() {
    Window w({1000, 700});
    QVERIFY(w.openDemo());
    w.window.showStatus(QString("a long status message that goes on ").repeated(20));
    w.window.transferTotals()->setText(QString("h2d 12 copies · 3.0 MiB · 1.23 ms (−0.20 ms vs previous) ").repeated(6));
    QCoreApplication::processEvents();
    QVERIFY2(w.window.minimumSizeHint().width() <= 1000, qPrintable(QString::number(w.window.minimumSizeHint().width())));
    w.window.resize(1000, 700);
    QCoreApplication::processEvents();
    QVERIFY2(w.window.width() <= 1000, qPrintable(QString::number(w.window.width())));
  }

  // Item 4: double-clicking a stub goes to its producer and selects it; the
  // double click's release does not select what is then under the pointer.
  void stubDoubleClickSelectsTheProducer() {
    const QString path = writeShape("llm4.pte", {"--shape", "llm", "--layers", "4"});
    QVERIFY(!path.isEmpty());
    Window w({1600, 1000});
    QVERIFY(w.open(path));
    auto* view = w.window.graph();
    view->expandAll();
    QVERIFY(test::waitForGraph(view));
    const auto& model = view->currentLayout()->model;
    std::optional<size_t> stub;
    for (size_t n = 0; n < model.nodes.size() && !stub; ++n)
      if (model.nodes[n].stub_source) stub = n;
    QVERIFY2(stub, "the llm shape's layout draws stubs (input_pos, the mask)");
    auto* item = test::graphNodeItem(*view, *stub);
    QVERIFY(item != nullptr);
    auto* canvas = view->canvas();
    canvas->centerOn(item);
    QCoreApplication::processEvents();
    const QPoint at = canvas->mapFromScene(item->sceneBoundingRect().center());
    // As the window system delivers it: press, release, press + double
    // click, release (QTest::mouseDClick stops before the last release).
    QTest::mouseDClick(canvas->viewport(), Qt::LeftButton, Qt::NoModifier, at);
    QTest::mouseRelease(canvas->viewport(), Qt::LeftButton, Qt::NoModifier, at);
    QCoreApplication::processEvents();
    const size_t source = *model.nodes[*stub].stub_source;
    QCOMPARE(view->selectedInstruction(), model.nodes[source].instruction);
  }

  // Item 5: "cpu" is explained as invalid where it is chosen; one retarget
  // is one "delegate retargeted".
  void cpuTargetIsExplainedAndOneRetargetCountsOnce() {
    QVERIFY(ui::PassOptionsPanel::deviceChoiceMeaning("cpu").contains("not valid"));
    QVERIFY(ui::PassOptionsPanel::deviceChoiceMeaning("none").contains("backend moves its own data"));
    Window w;
    QVERIFY(w.openDemo());
    w.window.setGraphMode(ui::MainWindow::GraphMode::Diff);
    w.doc.setDelegateTarget(w.doc.currentMethodIndex(), 0, program::Device{program::DeviceType::Cuda, 1});
    w.doc.waitForPipeline();
    QVERIFY(test::waitForGraph(w.window.graph()));
    const QString banner = w.window.graph()->diffSummary();
    QVERIFY2(banner.contains("1 delegate retargeted"), qPrintable(banner));
    QVERIFY2(!banner.contains("delegates retargeted"), qPrintable(banner));
    // The cpu choice in the panel shows its warning.
    w.doc.setDelegateTarget(w.doc.currentMethodIndex(), 0, program::Device{program::DeviceType::Cpu, 0});
    w.doc.waitForPipeline();
    auto* note = w.window.findChild<QLabel*>("targetDeviceNote");
    QVERIFY(note != nullptr);
    QVERIFY2(note->text().contains("not valid"), qPrintable(note->text()));
  }

  // Item 6: the first picture's text is at least as large as the UI's.
  void firstPictureIsLegible() {
    for (const QStringList& shape : {QStringList{"--demo"}, QStringList{"--shape", "llm", "--layers", "8"}}) {
      const QString path = writeShape("legible.pte", shape);
      QVERIFY(!path.isEmpty());
      Window w({1000, 700});
      QVERIFY(w.open(path));
      const double uiPixels = QFontInfo(w.window.font()).pixelSize();
      const double zoom = w.window.graph()->zoomLevel();
      QVERIFY2(zoom * 8 >= uiPixels - 0.5, qPrintable(QString("%1: zoom %2, UI font %3 px").arg(shape.join(' ')).arg(zoom).arg(uiPixels)));
    }
  }

  // Item 7: another file starts with its own Find, overlay, zoom.
  void openingAnotherFileResetsTheView() {
    const QString a = test::writeDemoProgram("a.pte");
    const QString b = test::writeDemoProgram("b.pte");
    Window w;
    QVERIFY(w.open(a));
    const double initial = w.window.graph()->zoomLevel();
    w.find()->setText("%4");
    w.window.graph()->zoomIn();
    w.window.graph()->zoomIn();
    w.window.setOverlayMetric(ui::GraphView::OverlayMetric::Time);
    QVERIFY(w.open(b));
    QVERIFY(w.find()->text().isEmpty());
    QCOMPARE(w.window.graph()->findMatchCount(), 0);
    QCOMPARE(w.window.graph()->overlayMetric(), ui::GraphView::OverlayMetric::Placement);
    QCOMPARE(w.window.graph()->zoomLevel(), initial);
    QVERIFY(w.window.windowTitle().startsWith("b.pte"));
  }

  // Item 9: Find says how many it found, or that it found nothing (and then
  // selects nothing); #N is exact and reaches into closed groups.
  void findSaysWhatItFoundAndReachesClosedGroups() {
    Window w;
    QVERIFY(w.openDemo());
    w.find()->setText("#2");
    QCOMPARE(w.window.graph()->selectedInstruction(), std::optional<size_t>(2));
    QCOMPARE(w.findStatus()->text(), QString("1 of 1"));
    w.find()->setText("no such operator");
    QCOMPARE(w.findStatus()->text(), QString("Not found"));
    QVERIFY(!w.window.graph()->selectedInstruction());
    w.find()->clear();
    QVERIFY(w.findStatus()->text().isEmpty());

    const QString fanout = writeShape("fanout.pte", {"--shape", "fanout", "--instructions", "2000"});
    QVERIFY(!fanout.isEmpty());
    QVERIFY(w.open(fanout));
    auto* view = w.window.graph();
    QVERIFY(!view->currentLayout()->model.nodeOfInstruction(1200) ||
            view->currentLayout()->model.nodes[*view->currentLayout()->model.nodeOfInstruction(1200)].kind ==
                layout::NodeKind::Group);
    QSignalSpy picked(view, &ui::GraphView::instructionSelected);
    w.find()->setText("#1200");
    QVERIFY(test::waitForGraph(view));
    QTRY_COMPARE(view->selectedInstruction(), std::optional<size_t>(1200));
    QVERIFY(!picked.isEmpty());
    QCOMPARE(picked.last().at(0).value<size_t>(), size_t(1200));
    QVERIFY(view->canvas()->accessibleDescription().contains("#1200"));
  }

  // Item 10: Tab leaves a table; the View menu has zoom, fit, find, groups.
  void keyboardLeavesTablesAndTheViewMenuHasTheGraphsCommands() {
    Window w;
    QVERIFY(w.openDemo());
    for (auto* view : w.window.findChildren<QTableView*>())
      QVERIFY2(!view->tabKeyNavigation(), qPrintable(view->objectName()));
    QMenu* viewMenu = nullptr;
    for (auto* action : w.window.menuBar()->actions())
      if (action->text().remove('&') == "View") viewMenu = action->menu();
    QVERIFY(viewMenu != nullptr);
    QStringList texts;
    for (auto* action : viewMenu->actions()) texts << action->text().remove('&').section('\t', 0, 0);
    for (const char* expected : {"Zoom In", "Zoom Out", "Fit to Window", "Find...", "Open All Groups", "Close All Groups"})
      QVERIFY2(texts.contains(expected), qPrintable(texts.join(", ")));
  }

  // Item 12: Save As names the file (the title follows, no "*"); the
  // window is then the saved file (issue 34 item 2): its history starts
  // there and the next edit marks it again.
  void saveAsRenamesTheDocument() {
    Window w;
    QVERIFY(w.openDemo());
    w.doc.setDelegateTarget(w.doc.currentMethodIndex(), 0, program::Device{program::DeviceType::Cuda, 1});
    w.doc.waitForPipeline();
    QVERIFY(w.window.isWindowModified());
    const QString path = test::tempDir() + "/edited.pte";
    QVERIFY(w.window.saveTo(path));
    QVERIFY(QFile::exists(path));
    QVERIFY(!w.window.isWindowModified());
    QVERIFY2(w.window.windowTitle().startsWith("edited.pte"), qPrintable(w.window.windowTitle()));
    QVERIFY(!w.doc.undoStack()->canUndo());
    w.doc.setDelegateTarget(w.doc.currentMethodIndex(), 0, program::Device{program::DeviceType::Cuda, 0});
    w.doc.waitForPipeline();
    QVERIFY(w.window.isWindowModified());
  }

  // Item 13: an option that changes nothing says why.
  void anEditThatChangesNothingSaysWhy() {
    const QString path = writeShape("llm2.pte", {"--shape", "llm", "--layers", "2"});
    QVERIFY(!path.isEmpty());
    Window w;
    QVERIFY(w.open(path));
    w.window.setGraphMode(ui::MainWindow::GraphMode::Diff);
    const int m = w.doc.currentMethodIndex();
    auto options = w.doc.methodOptions(m);
    options.skip_h2d_for_method_inputs = true;
    w.doc.setMethodOptions(m, options);
    w.doc.waitForPipeline();
    QVERIFY(test::waitForGraph(w.window.graph()));
    QVERIFY(w.doc.isModified());
    const QStringList reasons = w.doc.unchangedReasons(m);
    QVERIFY2(reasons.join(' ').contains("no method input is copied"), qPrintable(reasons.join(' ')));
    QVERIFY2(w.window.graph()->diffSummary().contains("no method input is copied"), qPrintable(w.window.graph()->diffSummary()));
  }

  // Item 19: Open Recent lists only files that exist.
  void openRecentDropsFilesThatAreGone() {
    QSettings().remove("recentFiles");
    const QString keep = test::writeDemoProgram("recent-keep.pte");
    const QString gone = test::writeDemoProgram("recent-gone.pte");
    Window w;
    QVERIFY(w.open(gone));
    QVERIFY(w.open(keep));
    QVERIFY(QFile::remove(gone));
    Window again;
    QMenu* recent = nullptr;
    for (auto* menu : again.window.findChildren<QMenu*>())
      if (menu->title().remove('&') == "Open Recent") recent = menu;
    QVERIFY(recent != nullptr);
    QStringList listed;
    for (auto* action : recent->actions()) listed << action->data().toString();
    QVERIFY(listed.contains(QFileInfo(keep).absoluteFilePath()));
    QVERIFY(!listed.contains(QFileInfo(gone).absoluteFilePath()));
  }

  // Item 20: an 8-layer model well under 300 instructions has layer groups.
  void repeatedLayersAreGroupedInSmallerPrograms() {
    const QString path = writeShape("llm8.pte", {"--shape", "llm", "--layers", "8"});
    QVERIFY(!path.isEmpty());
    auto loaded = pte::readProgramFile(path.toStdString());
    QVERIFY(loaded.ok());
    const auto& method = loaded.value().program.methods().front();
    const auto graph = layout::MethodGraph::analyze(method);
    QVERIFY(graph.dataflow().instructionCount() < 300);
    QCOMPARE(graph.groups().layers, size_t(8));
  }

  // Accessibility: the graph's regions and the nodes in sight are the
  // canvas's accessible children (words, region, place on screen); its
  // description says what is selected; the zoom is a label.
  void theGraphIsReadableThroughAccessibility() {
    Window w({1600, 1000});
    QVERIFY(w.openDemo());
    w.window.graph()->fitToWindow();
    QCoreApplication::processEvents();
    QAccessibleInterface* canvas = QAccessible::queryAccessibleInterface(w.window.graph()->canvas());
    QVERIFY(canvas != nullptr);
    QCOMPARE(canvas->text(QAccessible::Name), QString("Graph"));
    QStringList regions, nodes;
    for (int i = 0; i < canvas->childCount(); ++i) {
      QAccessibleInterface* child = canvas->child(i);
      QVERIFY(child != nullptr && child->parent() == canvas);
      QVERIFY(!child->rect().isEmpty());
      if (child->role() == QAccessible::Grouping) regions << child->text(QAccessible::Name);
      else nodes << child->text(QAccessible::Name) + " | " + child->text(QAccessible::Description);
    }
    QCOMPARE(regions, (QStringList{"cpu:0", "cuda:0"}));
    const QString all = nodes.join('\n');
    QVERIFY2(all.contains("h2d 256 B #0 cpu:0 → cuda:0 | in the cpu:0 region, instruction #0"), qPrintable(all));
    QVERIFY2(all.contains("CudaBackend #1 → cuda:0 | in the cuda:0 region, instruction #1"), qPrintable(all));
    w.window.graph()->selectInstruction(1);
    QCOMPARE(canvas->text(QAccessible::Description), QString("Selected: CudaBackend · #1 → cuda:0"));
    auto* zoom = w.window.findChild<QLabel*>("zoomLevel");
    QVERIFY(zoom != nullptr);
    QCOMPARE(zoom->text(), QString::number(qRound(w.window.graph()->zoomLevel() * 100)) + "%");
  }

  // Item 21: a name from the file is shown as text, never as rich text.
  void namesAreText() {
    const QString spec = test::tempDir() + "/html-name.json";
    QFile file(spec);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"methods": [{"name": "fwd<b>bold</b><script>x</script>", "inputs": ["x"], "outputs": ["y"],
      "tensors": {"x": {"dtype": "float32", "sizes": [4]}, "y": {"dtype": "float32", "sizes": [4]}},
      "nodes": [{"op": "aten::relu.out", "inputs": ["x"], "outputs": ["y"]}]}]})");
    file.close();
    const QString path = test::tempDir() + "/html-name.pte";
    QCOMPARE(test::runCli({"synth", spec, "-o", path}).exitCode, 0);
    Window w;
    QVERIFY(w.open(path));
    const QString name = "fwd<b>bold</b><script>x</script>";
    auto* method = w.window.statusBar()->findChild<QLabel*>("methodStatus");
    QVERIFY(method != nullptr);
    QCOMPARE(method->text(), "method " + name);
    QCOMPARE(method->textFormat(), Qt::PlainText);
    for (auto* label : w.window.findChildren<QLabel*>())
      if (label->text().contains("<script>") && !label->property("richText").toBool())
        QVERIFY2(label->textFormat() == Qt::PlainText, qPrintable(label->objectName() + ": " + label->text()));
  }
};

QTEST_MAIN(FirstMinutesTest)
#include "test_first_minutes.moc"
