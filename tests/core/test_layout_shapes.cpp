// Big program shapes (core/synth/Shapes.h) through the graph model and the
// layout: each shape opens, every visible instruction has a node, every
// reader of a value reaches the value's producer by an edge or a stub, no
// edge dot sees is long, and a layout that would run for minutes is
// cancelled or cut short by its budget and returns.
#include <QtTest>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

#include "layout/GraphModel.h"
#include "layout/GraphvizLayout.h"
#include "report/GraphDot.h"
#include "synth/JsonSpec.h"
#include "synth/Shapes.h"

using namespace ptescope;
using layout::GraphModel;
using layout::NodeKind;

namespace {

program::Program shapeAfterPasses(const std::string& name, size_t layers) {
  auto built = synth::shapeProgram(name, layers);
  if (!built) qFatal("%s: %s", name.c_str(), built.error().message.c_str());
  auto passed = synth::applyDevicePasses(synth::SynthesizedProgram{built.value(), {}});
  if (!passed) qFatal("%s passes: %s", name.c_str(), passed.error().message.c_str());
  return passed.value();
}

// Small sizes CI runs quickly, big enough to have groups and fan-out.
const std::vector<std::pair<std::string, size_t>>& testShapes() {
  static const std::vector<std::pair<std::string, size_t>> shapes{
      {"llm", 16}, {"moe", 8}, {"pipeline", 40}, {"fanout", 120}};
  return shapes;
}

// The node that makes value `v` for a reader at instruction `at`, found
// from the dataflow alone: the last earlier writer's node, or the input's.
std::optional<size_t> producerNode(const layout::MethodGraph& graph, const GraphModel& model, int32_t v, size_t at) {
  const auto& facts = graph.dataflow().value(v);
  std::optional<size_t> writer;
  for (size_t w : facts.writers)
    if (w < at) writer = w;
  if (writer) return model.nodeOfInstruction(*writer);
  if (facts.is_method_input) return model.findNode("in" + std::to_string(v));
  return std::nullopt;
}

// Every tensor an instruction reads from another node reaches it from its
// producer: by an edge carrying it, or through a stub of that producer.
void checkReadersReachProducers(const layout::MethodGraph& graph, const GraphModel& model, size_t& stubbed) {
  const auto& method = graph.method();
  for (size_t c = 0; c < graph.dataflow().instructionCount(); ++c) {
    const auto reader = model.nodeOfInstruction(c);
    QVERIFY(reader);
    for (int32_t v : graph.dataflow().instructions()[c].inputs) {
      if (!program::items(method.values)[size_t(v)].tensor()) continue;
      const auto producer = producerNode(graph, model, v, c);
      if (!producer || *producer == *reader) continue;
      bool reached = false;
      for (const auto& e : model.edges) {
        if (e.to != *reader) continue;
        const auto& from = model.nodes[e.from];
        if (e.from == *producer && (e.value == v || e.merged_values > 1)) reached = true;
        if (from.kind == NodeKind::Stub && from.stub_source == *producer &&
            std::find(from.stub_values.begin(), from.stub_values.end(), v) != from.stub_values.end()) {
          reached = true;
          ++stubbed;
        }
      }
      QVERIFY2(reached, qPrintable(QString("instruction %1 reads %%%2 but neither an edge nor a stub brings it from its producer")
                                       .arg(c)
                                       .arg(v)));
    }
  }
}

// No edge spans more than `far` nodes in program order, so dot's crossing
// reduction never sees the long fan-out edges that stalled it.
void checkEdgesAreShort(const GraphModel& model, size_t far) {
  std::vector<size_t> byOrder(model.nodes.size());
  for (size_t i = 0; i < byOrder.size(); ++i) byOrder[i] = i;
  std::stable_sort(byOrder.begin(), byOrder.end(),
                   [&](size_t a, size_t b) { return model.nodes[a].order < model.nodes[b].order; });
  std::vector<size_t> rank(model.nodes.size());
  for (size_t r = 0; r < byOrder.size(); ++r) rank[byOrder[r]] = r;
  for (const auto& e : model.edges) {
    const size_t span = rank[e.from] > rank[e.to] ? rank[e.from] - rank[e.to] : rank[e.to] - rank[e.from];
    // Constants are ranked by their first reader, after it when ordered by index.
    QVERIFY2(span <= far + 2, qPrintable(QString("edge %1 -> %2 spans %3 nodes")
                                             .arg(QString::fromStdString(model.nodes[e.from].key),
                                                  QString::fromStdString(model.nodes[e.to].key))
                                             .arg(span)));
  }
}

}  // namespace

class LayoutShapesTest : public QObject {
  Q_OBJECT

 private slots:
  void shapesAreListedAndSized() {
    QCOMPARE(synth::programShapes().size(), size_t(4));
    for (const char* name : {"llm", "moe", "pipeline", "fanout"}) QVERIFY(synth::findProgramShape(name));
    QVERIFY(!synth::shapeProgram("transformer", 4));
    QVERIFY(!synth::shapeProgram("llm", 0));
    // The per-layer counts the CLI prints are what the programs have.
    for (const auto& [name, layers] : testShapes()) {
      const auto* shape = synth::findProgramShape(name);
      const auto one = shapeAfterPasses(name, 2), two = shapeAfterPasses(name, 3);
      const auto count = [](const program::Program& p) {
        return program::items(program::items(p.methods().front().chains).front().instructions).size();
      };
      QCOMPARE(count(two) - count(one), shape->instructions_per_layer_with_copies);
      auto built1 = synth::shapeProgram(name, 2), built2 = synth::shapeProgram(name, 3);
      const auto before = [&](const Result<program::Program>& p) { return count(p.value()); };
      QCOMPARE(before(built2) - before(built1), shape->instructions_per_layer);
    }
    // The llm shape: caches written in place by index_put (out = the cache).
    const auto llm = shapeAfterPasses("llm", 2);
    const auto graph = layout::MethodGraph::analyze(llm.methods().front());
    size_t inPlace = 0;
    for (const auto& ins : graph.dataflow().instructions())
      for (int32_t out : ins.outputs)
        if (std::find(ins.inputs.begin(), ins.inputs.end(), out) != ins.inputs.end()) ++inPlace;
    QCOMPARE(inPlace, size_t(4));  // K and V of two layers
  }

  void eachShapeOpensWithEveryInstructionAndProducer() {
    for (const auto& [name, layers] : testShapes()) {
      const auto program = shapeAfterPasses(name, layers);
      const auto graph = layout::MethodGraph::analyze(program.methods().front());
      for (bool full : {false, true}) {
        const auto view = full ? graph.fullExpansion() : graph.initialExpansion();
        const GraphModel model = graph.build(view);
        // A node for every instruction not inside a collapsed group.
        for (size_t c = 0; c < graph.dataflow().instructionCount(); ++c) {
          const auto node = model.nodeOfInstruction(c);
          QVERIFY(node);
          const auto& n = model.nodes[*node];
          if (n.kind != NodeKind::Group) QCOMPARE(n.instruction, std::optional<size_t>(c));
          if (full) QVERIFY2(n.kind != NodeKind::Group, name.c_str());
        }
        size_t stubbed = 0;
        checkReadersReachProducers(graph, model, stubbed);
        if (QTest::currentTestFailed()) return;
        // Every shape has values read all over: some readers go through stubs.
        QVERIFY2(stubbed > 0, name.c_str());
        checkEdgesAreShort(model, layout::ModelOptions{}.stub_far);
        if (QTest::currentTestFailed()) return;
      }
      // The first picture lays out, every node placed.
      auto placed = layout::layoutGraph(graph.build(graph.initialExpansion()));
      QVERIFY2(placed, name.c_str());
      QVERIFY(!placed->quick);
      for (const auto& g : placed->nodes) QVERIFY(g.width > 10 && std::isfinite(g.center.y));
    }
  }

  void stubsNameTheirValuesAndProducer() {
    const auto program = shapeAfterPasses("fanout", 60);
    const auto graph = layout::MethodGraph::analyze(program.methods().front());
    const GraphModel model = graph.build(graph.fullExpansion());
    const int32_t inputValue = program::items(program.methods().front().inputs).front();
    const auto input = model.findNode("in" + std::to_string(inputValue));
    QVERIFY(input);
    size_t stubs = 0;
    for (const auto& n : model.nodes) {
      if (n.kind != NodeKind::Stub) continue;
      ++stubs;
      QCOMPARE(n.stub_source, input);
      const std::string name = "%" + std::to_string(inputValue);
      QCOMPARE(n.stub_values, std::vector<int32_t>{inputValue});
      QCOMPARE(n.title, name);
      QVERIFY(n.subtitle.find("input " + name) != std::string::npos);
      QVERIFY(std::find(n.search_terms.begin(), n.search_terms.end(), name) != n.search_terms.end());
    }
    // 120 readers of the input: a handful near it get edges, the rest stubs.
    QVERIFY(stubs >= 100 && stubs < 120);
    // Without stubs every reader is an edge from the input.
    layout::ModelOptions noStubs;
    noStubs.stubs = false;
    const GraphModel plain = graph.build(graph.fullExpansion(), noStubs);
    size_t fromInput = 0;
    for (const auto& e : plain.edges) fromInput += e.from == *plain.findNode("in" + std::to_string(inputValue));
    QCOMPARE(fromInput, size_t(120));
  }

  void cancelStopsARunningLayout() {
    // The fan-out graph without stubs is one that dot works on for
    // minutes (the stall this issue is about), at only ~250 nodes.
    const auto program = shapeAfterPasses("fanout", 500);
    const auto graph = layout::MethodGraph::analyze(program.methods().front());
    layout::ModelOptions noStubs;
    noStubs.stubs = false;
    GraphModel model = graph.build(graph.initialExpansion(), noStubs);
    std::atomic<bool> cancel{false};
    std::atomic<bool> returned{false};
    std::optional<Result<layout::GraphLayout>> result;
    std::thread worker([&] {
      result.emplace(layout::layoutGraph(model, {}, &cancel));
      returned = true;
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    QVERIFY(!returned);  // still in dot
    cancel = true;
    worker.join();  // returns: the dot process was killed
    QVERIFY(returned);
    QVERIFY(!*result);
    QCOMPARE(result->error().message, std::string(layout::kLayoutCancelled));

    // A budget ends it too, with a picture: every node placed, a note.
    layout::LayoutOptions budget;
    budget.time_budget_seconds = 0.3;
    auto cut = layout::layoutGraph(model, budget);
    QVERIFY(cut);
    QVERIFY(cut->quick);
    QVERIFY(cut->note.find("budget") != std::string::npos);
    QCOMPARE(cut->nodes.size(), model.nodes.size());
    for (const auto& g : cut->nodes) QVERIFY(g.width > 10 && g.center.x > 0 && g.center.y > 0);
    for (const auto& e : cut->edges) QVERIFY(e.path.size() >= 4);
  }

  void twoLayoutsRunSideBySide() {
    // Two dot processes at once: both long layouts are in flight together
    // and both stop on cancel.
    const auto program = shapeAfterPasses("fanout", 500);
    const auto graph = layout::MethodGraph::analyze(program.methods().front());
    layout::ModelOptions noStubs;
    noStubs.stubs = false;
    const GraphModel model = graph.build(graph.initialExpansion(), noStubs);
    std::atomic<bool> cancel{false};
    std::atomic<int> done{0};
    std::vector<std::thread> threads;
    std::vector<std::string> errors(2);
    for (int t = 0; t < 2; ++t)
      threads.emplace_back([&, t] {
        auto r = layout::layoutGraph(model, {}, &cancel);
        errors[size_t(t)] = r ? "finished" : r.error().message;
        ++done;
      });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    QCOMPARE(done.load(), 0);
    cancel = true;
    for (auto& t : threads) t.join();
    QCOMPARE(errors[0], std::string(layout::kLayoutCancelled));
    QCOMPARE(errors[1], std::string(layout::kLayoutCancelled));
  }

  void quickLayoutPlacesParallelWorkSideBySide() {
    const auto program = shapeAfterPasses("moe", 2);
    const auto graph = layout::MethodGraph::analyze(program.methods().front());
    const GraphModel model = graph.build(graph.fullExpansion());
    const auto quick = layout::quickLayout(model);
    QCOMPARE(quick.nodes.size(), model.nodes.size());
    // Producers sit above what reads them.
    for (const auto& e : model.edges) {
      if (model.nodes[e.from].order >= model.nodes[e.to].order) continue;
      QVERIFY(quick.nodes[e.from].center.y < quick.nodes[e.to].center.y);
    }
    // The 8 experts of a layer (the delegates after its attention) share a row.
    std::vector<size_t> delegates;
    for (size_t c = 0; c < model.instruction_count; ++c)
      if (model.nodes[*model.nodeOfInstruction(c)].kind == NodeKind::Delegate) delegates.push_back(*model.nodeOfInstruction(c));
    QVERIFY(delegates.size() >= 9);
    for (size_t e = 2; e <= 8; ++e) QCOMPARE(quick.nodes[delegates[e]].center.y, quick.nodes[delegates[1]].center.y);
    QVERIFY(quick.nodes[delegates[0]].center.y < quick.nodes[delegates[1]].center.y);
  }

  void bigGraphsBecomePinnedDot() {
    const auto program = shapeAfterPasses("fanout", 100);
    const auto graph = layout::MethodGraph::analyze(program.methods().front());
    auto placed = layout::layoutGraph(graph.build(graph.fullExpansion()));
    QVERIFY(placed);
    const std::string dot = report::toPinnedDot(placed.value());
    QVERIFY(dot.find("layout=\"nop2\"") != std::string::npos);
    size_t positions = 0;
    for (size_t at = dot.find("pos="); at != std::string::npos; at = dot.find("pos=", at + 1)) ++positions;
    QCOMPARE(positions, placed->model.nodes.size() + placed->model.edges.size() + placed->regions.size());
  }
};

QTEST_GUILESS_MAIN(LayoutShapesTest)
#include "test_layout_shapes.moc"
