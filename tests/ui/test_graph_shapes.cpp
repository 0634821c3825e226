// ui::GraphView offscreen on the big program shapes (core/synth/Shapes.h):
// each opens with an item for every node, stubs lead to their producer,
// and cancelling a long layout comes back with the picture kept.
#include <QtTest>

#include <QGraphicsView>
#include <QSignalSpy>

#include "support/UiTestSupport.h"
#include "synth/JsonSpec.h"
#include "synth/Shapes.h"
#include "ui/graph/GraphItems.h"
#include "ui/graph/GraphView.h"

using namespace ptescope;
using layout::NodeKind;
using ui::GraphView;

namespace {

std::shared_ptr<const program::Program> shapeAfterPasses(const std::string& name, size_t layers) {
  auto built = synth::shapeProgram(name, layers);
  if (!built) qFatal("%s: %s", name.c_str(), built.error().message.c_str());
  auto passed = synth::applyDevicePasses(synth::SynthesizedProgram{built.value(), {}});
  if (!passed) qFatal("%s passes: %s", name.c_str(), passed.error().message.c_str());
  return std::make_shared<const program::Program>(std::move(passed.value()));
}

QPoint viewportPointOfNode(const GraphView& view, size_t node) {
  const auto& g = view.currentLayout()->nodes[node];
  view.canvas()->centerOn(g.center.x, g.center.y);
  return view.canvas()->mapFromScene(QPointF(g.center.x, g.center.y));
}

}  // namespace

class GraphShapesTest : public QObject {
  Q_OBJECT

 private slots:
  void eachShapeOpens() {
    for (const auto& [name, layers] : std::vector<std::pair<std::string, size_t>>{
             {"llm", 12}, {"moe", 6}, {"pipeline", 30}, {"fanout", 100}}) {
      GraphView view;
      view.resize(1000, 700);
      view.show();
      QSignalSpy finished(&view, &GraphView::layoutFinished);
      view.setMethod(shapeAfterPasses(name, layers), 0);
      QVERIFY2(finished.wait(60000), name.c_str());
      const auto* layout = view.currentLayout();
      QVERIFY(layout);
      // An item on screen for every node, every visible instruction among them.
      for (size_t i = 0; i < layout->model.nodes.size(); ++i) QVERIFY(test::graphNodeItem(view, i));
      for (size_t c = 0; c < layout->model.instruction_count; ++c) {
        const auto node = layout->model.nodeOfInstruction(c);
        QVERIFY(node);
        QVERIFY(layout->model.nodes[*node].kind == NodeKind::Group || layout->model.nodes[*node].instruction == c);
      }
      QVERIFY(!layout->quick);
    }
  }

  void doubleClickOnAStubGoesToTheProducer() {
    GraphView view;
    view.resize(1000, 700);
    view.show();
    QSignalSpy finished(&view, &GraphView::layoutFinished);
    view.setMethod(shapeAfterPasses("llm", 12), 0);
    QVERIFY(finished.wait(60000));
    const auto& model = view.currentLayout()->model;
    std::optional<size_t> stub;
    for (size_t i = 0; i < model.nodes.size() && !stub; ++i)
      if (model.nodes[i].kind == NodeKind::Stub && model.nodes[model.nodes[i].stub_source.value()].instruction) stub = i;
    QVERIFY(stub);
    const size_t producer = *model.nodes[*stub].stub_source;
    QSignalSpy selected(&view, &GraphView::instructionSelected);
    QTest::mouseDClick(view.canvas()->viewport(), Qt::LeftButton, {}, viewportPointOfNode(view, *stub));
    QCOMPARE(view.selectedInstruction(), model.nodes[producer].instruction);
    QVERIFY(!selected.isEmpty());
    // Selecting the stub lights up its producer.
    QTest::mouseClick(view.canvas()->viewport(), Qt::LeftButton, {}, viewportPointOfNode(view, *stub));
    QCOMPARE(test::graphNodeItem(view, producer)->emphasis(), ui::Emphasis::Related);
  }

  void cancelOpenAllComesBack() {
    GraphView view;
    view.resize(1000, 700);
    view.show();
    QSignalSpy finished(&view, &GraphView::layoutFinished);
    view.setMethod(shapeAfterPasses("fanout", 1500), 0);
    QVERIFY(finished.wait(60000));
    const auto* first = view.currentLayout();
    QSignalSpy cancelled(&view, &GraphView::layoutCancelled);
    view.expandAll();  // 6,000 instructions in stripes: seconds of dot
    QTest::qWait(200);
    QVERIFY(view.layoutPending());
    view.cancelLayout();
    QVERIFY(cancelled.wait(10000));  // control comes back
    QVERIFY(!view.layoutPending());
    QCOMPARE(view.currentLayout(), first);  // the picture stays
  }
};

QTEST_MAIN(GraphShapesTest)
#include "test_graph_shapes.moc"
