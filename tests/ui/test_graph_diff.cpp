// The graph's diff view, offscreen: after an edit the main window shows the
// edited program with its changes against the file marked (ghosts of removed
// copies wired where they were, retargeted delegates, moved values), and the
// Current / As loaded / Diff switch shows the right program each time.
// Expectations are computed from the programs themselves, not from the
// pipeline's report that the view is built from.
#include <QtTest>

#include <QAction>
#include <QLabel>
#include <QUndoStack>

#include "support/TestSupport.h"
#include "support/UiTestSupport.h"
#include "ui/panels/ChangesPanel.h"
#include "ui/document/Document.h"
#include "ui/graph/GraphView.h"
#include "ui/window/MainWindow.h"

using namespace ptescope;
using layout::Change;
using layout::NodeKind;
using program::items;
using ui::MainWindow;

namespace {


// Copy instructions of a method by direction, read off its operators.
size_t copyCount(const program::Method& method, const std::string& op) {
  size_t n = 0;
  for (const auto& chain : items(method.chains))
    for (const auto& ins : items(chain.instructions))
      if (const auto* k = std::get_if<program::KernelCall>(&ins.data))
        if (size_t(k->op_index) < items(method.operators).size() && items(method.operators)[size_t(k->op_index)].name == op)
          ++n;
  return n;
}

std::vector<size_t> delegateCalls(const program::Method& method) {
  std::vector<size_t> calls;
  size_t flat = 0;
  for (const auto& chain : items(method.chains))
    for (const auto& ins : items(chain.instructions)) {
      if (std::holds_alternative<program::DelegateCall>(ins.data)) calls.push_back(flat);
      ++flat;
    }
  return calls;
}

size_t instructionCount(const program::Method& method) {
  size_t n = 0;
  for (const auto& chain : items(method.chains)) n += items(chain.instructions).size();
  return n;
}

size_t marked(const layout::GraphModel& model, Change change) {
  size_t n = 0;
  for (const auto& node : model.nodes) n += node.change == change;
  return n;
}


}  // namespace

class GraphDiffTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { qputenv("PTESCOPE_NO_DIALOGS", "1"); }

  void removedInputCopyIsAGhostBeforeItsDelegate() {
    const QString demo = test::writeDemoProgram("diff-demo.pte");
    QVERIFY(!demo.isEmpty());
    ui::Document doc;
    MainWindow window(&doc);
    QVERIFY(test::showProgram(window, demo, "forward"));
    QCOMPARE(window.graphMode(), MainWindow::GraphMode::Current);
    QVERIFY(test::waitForGraph(window.graph()));

    const int m = doc.currentMethodIndex();
    auto options = doc.methodOptions(m);
    options.skip_h2d_for_method_inputs = true;
    doc.setMethodOptions(m, options);
    doc.waitForPipeline();
    QVERIFY2(doc.pipelineError().isEmpty(), qPrintable(doc.pipelineError()));
    // The first edit switches the graph to the diff view.
    QCOMPARE(window.graphMode(), MainWindow::GraphMode::Diff);
    QVERIFY(window.graph()->isDiffView());
    QVERIFY(test::waitForGraph(window.graph()));

    const auto& loaded = doc.loadedProgram().methods()[size_t(m)];
    const auto& current = doc.program().methods()[size_t(m)];
    const size_t removedH2d = copyCount(loaded, "et_copy::_h2d_copy") - copyCount(current, "et_copy::_h2d_copy");
    QCOMPARE(removedH2d, size_t(1));
    const auto& model = window.graph()->currentLayout()->model;
    QCOMPARE(marked(model, Change::Removed), removedH2d);
    QCOMPARE(marked(model, Change::Added), size_t(0));

    // The ghost hangs between the method input and the first delegate call.
    std::optional<size_t> ghost;
    for (size_t i = 0; i < model.nodes.size(); ++i)
      if (model.nodes[i].change == Change::Removed) ghost = i;
    QVERIFY(ghost);
    QCOMPARE(model.nodes[*ghost].kind, NodeKind::CopyH2D);
    QVERIFY(!model.nodes[*ghost].instruction);  // not in the edited program
    const int32_t input = items(current.inputs).front();
    const size_t firstDelegate = delegateCalls(current).front();
    bool fromInput = false, toDelegate = false;
    for (const auto& e : model.edges) {
      if (e.to == *ghost && model.nodes[e.from].kind == NodeKind::Input && model.nodes[e.from].value == input)
        fromInput = e.change == Change::Removed;
      if (e.from == *ghost && model.nodes[e.to].instruction == firstDelegate) toDelegate = e.change == Change::Removed;
    }
    QVERIFY(fromInput);
    QVERIFY(toDelegate);
    // The input now lives on the delegate's device: a moved value.
    bool inputMoved = false;
    for (const auto& node : model.nodes)
      if (node.kind == NodeKind::Input && node.value == input) inputMoved = node.change == Change::Moved;
    QVERIFY(inputMoved);
    QVERIFY2(window.graph()->diffSummary().contains("1 copy removed"), qPrintable(window.graph()->diffSummary()));
    auto* banner = window.graph()->findChild<QLabel*>("graphBanner");
    QVERIFY(banner && banner->isVisible());
    QVERIFY(test::saveScreenshot(window, "diff-view"));

    // As loaded: the file's program, nothing marked.
    window.findChild<QAction*>("viewAsLoaded")->trigger();
    QCOMPARE(window.graphMode(), MainWindow::GraphMode::AsLoaded);
    QVERIFY(test::waitForGraph(window.graph()));
    const auto& asLoaded = window.graph()->currentLayout()->model;
    QCOMPARE(asLoaded.instruction_count, instructionCount(loaded));
    QCOMPARE(marked(asLoaded, Change::Removed) + marked(asLoaded, Change::Moved), size_t(0));
    // No diff: the banner only says that the panels show the edited program.
    QVERIFY2(banner->text().startsWith("The file as loaded (read-only)"), qPrintable(banner->text()));
    size_t h2dNodes = 0;
    for (const auto& node : asLoaded.nodes) h2dNodes += node.kind == NodeKind::CopyH2D;
    QCOMPARE(h2dNodes, copyCount(loaded, "et_copy::_h2d_copy"));

    // Current: the edited program, nothing marked.
    window.setGraphMode(MainWindow::GraphMode::Current);
    QVERIFY(test::waitForGraph(window.graph()));
    const auto& edited = window.graph()->currentLayout()->model;
    QCOMPARE(edited.instruction_count, instructionCount(current));
    QCOMPARE(marked(edited, Change::Removed), size_t(0));

    // Undo: the diff view says there is nothing left.
    window.setGraphMode(MainWindow::GraphMode::Diff);
    doc.undoStack()->undo();
    doc.waitForPipeline();
    QVERIFY(test::waitForGraph(window.graph()));
    QCOMPARE(marked(window.graph()->currentLayout()->model, Change::Removed), size_t(0));
    QVERIFY(window.graph()->diffSummary().contains("no changes"));
  }

  void removedOutputCopyEndsAtTheOutput() {
    const QString demo = test::writeDemoProgram("diff-demo.pte");
    ui::Document doc;
    MainWindow window(&doc);
    QVERIFY(window.openFile(demo));
    QVERIFY(window.showMethod("prefill"));
    const int m = doc.currentMethodIndex();
    auto options = doc.methodOptions(m);
    options.skip_d2h_for_method_outputs = true;
    doc.setMethodOptions(m, options);
    doc.waitForPipeline();
    QVERIFY(test::waitForGraph(window.graph()));
    const auto& current = doc.program().methods()[size_t(m)];
    const auto& model = window.graph()->currentLayout()->model;
    const int32_t output = items(current.outputs).front();
    bool ghostToOutput = false;
    for (const auto& e : model.edges)
      if (model.nodes[e.from].change == Change::Removed && model.nodes[e.from].kind == NodeKind::CopyD2H &&
          model.nodes[e.to].kind == NodeKind::Output && model.nodes[e.to].value == output)
        ghostToOutput = true;
    QVERIFY(ghostToOutput);
    // Clicking the removed copy in the Changes list, from the "as loaded"
    // view, goes to the diff view and selects what the copy read.
    window.setGraphMode(MainWindow::GraphMode::AsLoaded);
    QVERIFY(test::waitForGraph(window.graph()));
    QListWidgetItem* removedItem = nullptr;
    for (int i = 0; i < window.changes()->count(); ++i)
      if (window.changes()->item(i)->text().contains(QString::fromUtf8("\u2212 d2h"))) removedItem = window.changes()->item(i);
    QVERIFY(removedItem);
    emit window.changes()->itemClicked(removedItem);
    QCOMPARE(window.graphMode(), MainWindow::GraphMode::Diff);
    QVERIFY(test::waitForGraph(window.graph()));
    QCOMPARE(window.graph()->selectedValue(), std::optional<int32_t>(output));
  }

  void retargetedDelegateIsMarkedWithItsNewDevice() {
    const QString demo = test::writeDemoProgram("diff-demo.pte");
    ui::Document doc;
    MainWindow window(&doc);
    QVERIFY(window.openFile(demo));
    QVERIFY(window.showMethod("forward"));
    const int m = doc.currentMethodIndex();
    doc.setDelegateTarget(m, 1, program::Device{program::DeviceType::Cuda, 1});
    doc.waitForPipeline();
    QVERIFY(test::waitForGraph(window.graph()));
    const auto& current = doc.program().methods()[size_t(m)];
    // The call of delegate 1 in the edited program.
    std::optional<size_t> call;
    size_t flat = 0;
    for (const auto& chain : items(current.chains))
      for (const auto& ins : items(chain.instructions)) {
        if (const auto* d = std::get_if<program::DelegateCall>(&ins.data); d && d->delegate_index == 1) call = flat;
        ++flat;
      }
    QVERIFY(call);
    const auto& model = window.graph()->currentLayout()->model;
    const auto node = model.nodeOfInstruction(*call);
    QVERIFY(node);
    QCOMPARE(model.nodes[*node].change, Change::Moved);
    QVERIFY2(QString::fromStdString(model.nodes[*node].change_note).contains("cuda:0 → cuda:1"),
             model.nodes[*node].change_note.c_str());
    // Every value now on cuda:1 was on cuda:0 or cpu before: its edges say so.
    size_t movedEdges = 0;
    for (const auto& e : model.edges)
      if (e.change == Change::Moved) {
        ++movedEdges;
        QVERIFY(QString::fromStdString(e.change_note).contains("cuda:1"));
      }
    QVERIFY(movedEdges > 0);
    // The copies to and from that delegate now go to cuda:1: each is marked.
    size_t cuda1Copies = 0, markedCopies = 0;
    for (const auto& copy : model.nodes) {
      if (copy.kind != NodeKind::CopyH2D && copy.kind != NodeKind::CopyD2H) continue;
      const program::Device cuda1{program::DeviceType::Cuda, 1};
      if (copy.copy_source == cuda1 || copy.copy_destination == cuda1) {
        ++cuda1Copies;
        markedCopies += copy.change == Change::Moved && QString::fromStdString(copy.change_note).contains("was");
      }
    }
    QCOMPARE(cuda1Copies, size_t(2));
    QCOMPARE(markedCopies, cuda1Copies);
    // A panel selecting while the graph shows the file as loaded (another
    // numbering) brings the edited program's view back first.
    window.setGraphMode(MainWindow::GraphMode::AsLoaded);
    QVERIFY(test::waitForGraph(window.graph()));
    window.selectInstruction(*call);
    QCOMPARE(window.graphMode(), MainWindow::GraphMode::Diff);
    QVERIFY(test::waitForGraph(window.graph()));
    QCOMPARE(window.graph()->selectedInstruction(), call);
    QVERIFY(test::saveScreenshot(window, "diff-retarget"));
  }

  void bigProgramMarksGroupsInsteadOfThousandsOfGhosts() {
    const QString path = test::tempDir() + "/large.pte";
    QCOMPARE(test::runCli({"synth", "--large", "300", "-o", path}).exitCode, 0);
    ui::Document doc;
    MainWindow window(&doc);
    QVERIFY(window.openFile(path));
    QVERIFY(test::waitForGraph(window.graph()));
    const int m = doc.currentMethodIndex();
    const auto& loaded = doc.loadedProgram().methods()[size_t(m)];
    const size_t copiesBefore = copyCount(loaded, "et_copy::_h2d_copy") + copyCount(loaded, "et_copy::_d2h_copy");
    QVERIFY(copiesBefore > 1000);
    doc.setAllDelegateTargets(m, std::nullopt);  // everything back on the CPU: every copy goes
    doc.waitForPipeline();
    QVERIFY2(doc.pipelineError().isEmpty(), qPrintable(doc.pipelineError()));
    QCOMPARE(window.graphMode(), MainWindow::GraphMode::Diff);
    QVERIFY(test::waitForGraph(window.graph()));
    const auto& model = window.graph()->currentLayout()->model;
    QVERIFY(model.has_groups);
    const size_t ghosts = marked(model, Change::Removed);
    QVERIFY(ghosts <= 200);
    size_t changedGroups = 0;
    for (const auto& node : model.nodes)
      changedGroups += node.kind == NodeKind::Group && node.change == Change::Moved &&
                       QString::fromStdString(node.change_note).contains("inside");
    QVERIFY(changedGroups > 0);
    QVERIFY2(window.graph()->diffSummary().contains(QString::number(copiesBefore) + " copies removed"),
             qPrintable(window.graph()->diffSummary()));
  }
};

QTEST_MAIN(GraphDiffTest)
#include "test_graph_diff.moc"
