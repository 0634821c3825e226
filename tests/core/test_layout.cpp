// core/layout: the graph model of a method (nodes, edges, devices,
// crossings, groups for big programs) and its Graphviz layout.
#include <QtTest>

#include <atomic>
#include <cmath>
#include <thread>

#include "layout/DeviceStyle.h"
#include "layout/GraphModel.h"
#include "layout/GraphvizLayout.h"
#include "passes/Pipeline.h"
#include "report/GraphDot.h"
#include "support/TestSupport.h"
#include "synth/Scenarios.h"

using namespace ptescope;
using layout::GraphModel;
using layout::NodeKind;

namespace {

program::Program demoAfterPasses() {
  auto demo = synth::synthesizeDemo();
  if (!demo) qFatal("demo: %s", demo.error().message.c_str());
  auto passed = synth::applyDevicePasses(demo.value());
  if (!passed) qFatal("passes: %s", passed.error().message.c_str());
  return passed.value();
}

program::Program largeAfterPasses(size_t layers) {
  auto built = synth::largeProgram(layers);
  if (!built) qFatal("large: %s", built.error().message.c_str());
  auto passed = passes::runPipeline(built.value(), passes::PipelineOptions{});
  if (!passed) qFatal("pipeline: %s", passed.error().message.c_str());
  return passed->program;
}

size_t countKind(const GraphModel& model, NodeKind kind) {
  size_t n = 0;
  for (const auto& node : model.nodes) n += node.kind == kind;
  return n;
}

GraphModel modelOf(const program::Method& method) {
  const auto graph = layout::MethodGraph::analyze(method);
  return graph.build(graph.initialExpansion());
}

// Every node inside the drawing, with a size; every edge routed.
void checkPlaced(const layout::GraphLayout& placed) {
  QCOMPARE(placed.nodes.size(), placed.model.nodes.size());
  QCOMPARE(placed.edges.size(), placed.model.edges.size());
  for (size_t i = 0; i < placed.nodes.size(); ++i) {
    const auto& g = placed.nodes[i];
    QVERIFY2(std::isfinite(g.center.x) && std::isfinite(g.center.y), placed.model.nodes[i].key.c_str());
    QVERIFY(g.width > 10 && g.height > 10);
    QVERIFY2(g.center.x >= 0 && g.center.x <= placed.bounds.width, placed.model.nodes[i].key.c_str());
    QVERIFY2(g.center.y >= 0 && g.center.y <= placed.bounds.height, placed.model.nodes[i].key.c_str());
  }
  for (const auto& e : placed.edges) {
    QVERIFY(e.path.size() >= 2);
    QCOMPARE((e.path.size() - 1) % 3, size_t(0));
  }
}

bool inside(const layout::RectF& r, const layout::PointF& p) {
  return p.x >= r.x && p.x <= r.x + r.width && p.y >= r.y && p.y <= r.y + r.height;
}

}  // namespace

class LayoutTest : public QObject {
  Q_OBJECT
 private slots:
  // Walkthrough 20, finding 13: cuda:4 was drawn in cuda:0's green (the
  // palette repeated every four GPUs). Every device of the choosers (cpu,
  // cuda:0-7) and the higher indices a file may name have colours apart
  // from each other and from the copies' orange and red, by a visible
  // distance (the sum of channel differences).
  void devicesHaveColoursOfTheirOwn() {
    auto distance = [](layout::Rgb a, layout::Rgb b) {
      return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue());
    };
    std::vector<std::pair<QString, layout::Rgb>> colours{{"cpu:0", layout::deviceStyle(program::Device{}).stroke},
                                                         {"h2d", layout::h2dCopyStyle().stroke},
                                                         {"d2h", layout::d2hCopyStyle().stroke}};
    for (int8_t i = 0; i < 16; ++i)
      colours.emplace_back(QString("cuda:%1").arg(i), layout::deviceStyle(program::Device{program::DeviceType::Cuda, i}).stroke);
    for (size_t a = 0; a < colours.size(); ++a)
      for (size_t b = a + 1; b < colours.size(); ++b) {
        // The first eight GPUs and the CPU and copies: clearly apart; the
        // higher indices at least not the same colour.
        const bool chooser = a < 11 && b < 11;
        QVERIFY2(distance(colours[a].second, colours[b].second) >= (chooser ? 90 : 30),
                 qPrintable(QString("%1 %2 and %3 %4").arg(colours[a].first, QString::fromStdString(colours[a].second.hex()),
                                                           colours[b].first, QString::fromStdString(colours[b].second.hex()))));
      }
  }

  void demoAfterPassesIsLaidOutWithCopiesAndRegions() {
    const auto program = demoAfterPasses();
    for (const auto& method : program.methods()) {
      auto model = modelOf(method);
      QCOMPARE(countKind(model, NodeKind::CopyH2D), size_t(2));
      QCOMPARE(countKind(model, NodeKind::CopyD2H), size_t(2));
      QCOMPARE(countKind(model, NodeKind::Delegate), size_t(2));
      QCOMPARE(countKind(model, NodeKind::Input), size_t(1));
      QCOMPARE(countKind(model, NodeKind::Output), size_t(1));
      QVERIFY(!model.has_groups);
      for (const auto& node : model.nodes) {
        if (node.kind == NodeKind::CopyH2D) {
          QCOMPARE(node.copy_source.str(), std::string("cpu:0"));
          QCOMPARE(node.copy_destination.str(), std::string("cuda:0"));
          QVERIFY(node.copy_bytes > 0);
          QVERIFY(node.title.find("h2d") == 0);
        }
        if (node.kind == NodeKind::CopyD2H) QCOMPARE(node.copy_destination.str(), std::string("cpu:0"));
        if (node.kind == NodeKind::Delegate) {
          QCOMPARE(node.device.str(), std::string("cuda:0"));
          QCOMPARE(node.title, std::string("CudaBackend"));
          QVERIFY(node.subtitle.find("cuda:0") != std::string::npos);
        }
      }
      // Each copy's output crosses into the other device; after the passes
      // no tensor changes device without a copy.
      size_t crossings = 0;
      for (const auto& e : model.edges) {
        QVERIFY(!e.implicit_crossing);
        QVERIFY(!e.label.empty());
        if (!e.crosses_device) continue;
        ++crossings;
        const auto fromKind = model.nodes[e.from].kind;
        QVERIFY(fromKind == NodeKind::CopyH2D || fromKind == NodeKind::CopyD2H);
      }
      QCOMPARE(crossings, size_t(4));
      QCOMPARE(model.devices.size(), size_t(2));

      auto placed = layout::layoutGraph(model);
      QVERIFY2(placed, placed ? "" : placed.error().message.c_str());
      checkPlaced(*placed);
      QVERIFY(placed->edge_labels_placed);
      QCOMPARE(placed->regions.size(), size_t(2));
      for (const auto& region : placed->regions) {
        // Every node of the device lies in its region.
        for (size_t i = 0; i < placed->model.nodes.size(); ++i) {
          const auto& node = placed->model.nodes[i];
          if (node.has_device && node.device == region.device)
            QVERIFY2(inside(region.rect, placed->nodes[i].center), node.key.c_str());
        }
      }
    }
  }

  void edgesCarryDtypeAndShape() {
    const auto program = demoAfterPasses();
    const auto model = modelOf(*program.findMethod("forward"));
    bool sawShape = false;
    for (const auto& e : model.edges) sawShape = sawShape || e.label == "float32[1,64]";
    QVERIFY(sawShape);
  }

  void beforeThePassesCrossingsHaveNoCopy() {
    auto demo = synth::synthesizeDemo();
    QVERIFY(demo);
    const auto model = modelOf(demo->program.methods().front());
    QCOMPARE(countKind(model, NodeKind::CopyH2D), size_t(0));
    size_t implicit = 0;
    for (const auto& e : model.edges) implicit += e.implicit_crossing;
    QVERIFY(implicit >= 2);  // CPU tensors into the cuda:0 delegates and back
  }

  void dotTextHasClustersAndStyles() {
    const auto program = demoAfterPasses();
    const std::string dot = report::toDot(modelOf(program.methods().front()));
    QVERIFY(dot.find("digraph") != std::string::npos);
    QVERIFY(dot.find("subgraph cluster_d0") != std::string::npos);
    QVERIFY(dot.find("label=\"cuda:0\"") != std::string::npos);
    QVERIFY(dot.find("shape=\"rarrow\"") != std::string::npos);
    QVERIFY(dot.find("shape=\"larrow\"") != std::string::npos);
  }

  void dotQuotesEveryValueButHtmlLabels() {
    // Names from a file land in tooltips; one shaped like "<...>" used to be
    // written unquoted (as if it were an HTML label) and could add DOT
    // statements of its own.
    const auto program = demoAfterPasses();
    auto model = modelOf(program.methods().front());
    QVERIFY(!model.nodes.empty());
    const std::string hostile = "<x>\"]; injected [label=<y>";
    model.nodes.front().tooltip = hostile;
    model.nodes.front().change_note.clear();
    const std::string dot = report::toDot(model);
    QVERIFY(dot.find("tooltip=<x>") == std::string::npos);
    QVERIFY2(dot.find("tooltip=\"<x>\\\"]; injected [label=<y>\"") != std::string::npos, dot.c_str());
    // Node labels stay HTML (GraphStyle escaped their text).
    QVERIFY(dot.find("label=<") != std::string::npos);
  }

  void emptyAndConstantOnlyMethods() {
    // A method with nothing at all.
    program::Method empty;
    empty.name = "nothing";
    auto graph = layout::MethodGraph::analyze(empty);
    auto model = graph.build({});
    QVERIFY(model.nodes.empty());
    auto placed = layout::layoutGraph(model);
    QVERIFY2(placed, placed ? "" : placed.error().message.c_str());
    QVERIFY(placed->nodes.empty());
  }

  void constantMethodsSample() {
    PTESCOPE_REQUIRE_SAMPLES();
    const auto loaded = test::loadOrFail(test::samplePath("const-methods.pte"));
    size_t zeroInstructionMethods = 0;
    for (const auto& method : loaded.program.methods()) {
      const auto graph = layout::MethodGraph::analyze(method);
      const auto model = graph.build(graph.initialExpansion());
      if (graph.dataflow().instructionCount() == 0) {
        ++zeroInstructionMethods;
        // The returned constant is drawn: a constant node into the output.
        QCOMPARE(countKind(model, NodeKind::Output), program::items(method.outputs).size());
        QCOMPARE(countKind(model, NodeKind::Constant), size_t(1));
        QCOMPARE(model.edges.size(), size_t(1));
      }
      auto placed = layout::layoutGraph(model);
      QVERIFY2(placed, placed ? "" : placed.error().message.c_str());
      checkPlaced(*placed);
    }
    QVERIFY(zeroInstructionMethods >= 3);
  }

  void everySampleLaysOut() {
    PTESCOPE_REQUIRE_SAMPLES();
    for (const auto& path : test::samplePrograms()) {
      const auto loaded = test::loadOrFail(path);
      for (const auto& method : loaded.program.methods()) {
        auto placed = layout::layoutGraph(modelOf(method));
        QVERIFY2(placed, qPrintable(path + ": " + QString::fromStdString(placed ? "" : placed.error().message)));
        checkPlaced(*placed);
      }
    }
  }

  void cancelBeforeAndDuringLayout() {
    const auto program = demoAfterPasses();
    std::atomic<bool> cancel{true};
    auto result = layout::layoutGraph(modelOf(program.methods().front()), {}, &cancel);
    QVERIFY(!result);
    QCOMPARE(result.error().message, std::string(layout::kLayoutCancelled));

    // A striped layout stops between stripes once the flag is set.
    const auto large = largeAfterPasses(60);
    const auto graph = layout::MethodGraph::analyze(large.methods().front());
    auto model = graph.build(graph.fullExpansion());
    QVERIFY(model.nodes.size() > 1000);
    layout::LayoutOptions options;
    options.stripe_above = 200;
    options.stripe_nodes = 150;
    std::atomic<bool> stop{false};
    int calls = 0;
    auto progress = [&](double fraction, const std::string&) {
      ++calls;
      if (fraction > 0.2) stop = true;
    };
    auto stopped = layout::layoutGraph(std::move(model), options, &stop, progress);
    QVERIFY(!stopped);
    QCOMPARE(stopped.error().message, std::string(layout::kLayoutCancelled));
    QVERIFY(calls > 2);

    // Cancelling the analysis itself.
    std::atomic<bool> early{true};
    QVERIFY(layout::MethodGraph::analyze(large.methods().front(), {}, &early).cancelled());
  }

  void stripedLayoutPlacesEverything() {
    const auto large = largeAfterPasses(40);
    const auto graph = layout::MethodGraph::analyze(large.methods().front());
    auto model = graph.build(graph.fullExpansion());
    layout::LayoutOptions options;
    options.stripe_above = 200;
    options.stripe_nodes = 200;
    std::vector<double> fractions;
    auto placed = layout::layoutGraph(std::move(model), options, nullptr,
                                      [&](double f, const std::string&) { fractions.push_back(f); });
    QVERIFY(placed);
    checkPlaced(*placed);
    QVERIFY(std::is_sorted(fractions.begin(), fractions.end()));
    QVERIFY(placed->regions.size() > 2);  // regions per stripe
  }

  void bigProgramsOpenAsLayers() {
    const auto large = largeAfterPasses(500);
    const auto& method = large.methods().front();
    const auto graph = layout::MethodGraph::analyze(method);
    QCOMPARE(graph.groups().period, synth::kLargeProgramInstructionsPerLayer + synth::kLargeProgramCopiesPerLayer);
    QCOMPARE(graph.groups().layers, size_t(500));
    QCOMPARE(graph.groups().layer_start, size_t(0));
    const auto first = graph.initialExpansion();
    QVERIFY(graph.visibleNodeEstimate(first) <= 160);
    auto model = graph.build(first);
    QVERIFY(model.has_groups);
    QVERIFY(model.nodes.size() <= 200);
    // The first layer is open in full, with its copies.
    QVERIFY(model.nodeOfInstruction(0) && model.nodes[*model.nodeOfInstruction(0)].kind != NodeKind::Group);
    QVERIFY(countKind(model, NodeKind::CopyH2D) >= 3);
    // The last instruction is inside a collapsed group; its path opens it.
    const size_t last = graph.dataflow().instructionCount() - 1;
    QCOMPARE(model.nodes[*model.nodeOfInstruction(last)].kind, NodeKind::Group);
    const auto path = graph.groupPathOf(last);
    QVERIFY(path.size() >= 2);
    auto expanded = first;
    expanded.insert(path.begin(), path.end());
    auto opened = graph.build(expanded);
    QVERIFY(opened.nodes[*opened.nodeOfInstruction(last)].kind != NodeKind::Group);
    QVERIFY(opened.nodes.size() > model.nodes.size());
    // Group titles name layers; constants fold into their readers.
    bool sawLayers = false;
    for (const auto& n : model.nodes) sawLayers = sawLayers || n.title.rfind("layers ", 0) == 0;
    QVERIFY(sawLayers);
    QVERIFY(model.constants_folded);
    // Values between collapsed groups are still edges, with their type.
    size_t groupToGroup = 0;
    for (const auto& e : model.edges)
      if (model.nodes[e.from].kind == NodeKind::Group && model.nodes[e.to].kind == NodeKind::Group) {
        ++groupToGroup;
        QCOMPARE(e.label, std::string("float32[1,8,32]"));
      }
    QVERIFY(groupToGroup > 0);
    auto placed = layout::layoutGraph(std::move(model));
    QVERIFY(placed);
    checkPlaced(*placed);
  }

  void unrepeatedBigMethodsAreChunked() {
    // Distinct operators everywhere: no period, fixed-size chunks.
    program::Method method;
    method.name = "chunks";
    auto& values = program::ensure(method.values);
    auto& ops = program::ensure(method.operators);
    auto& chain = program::ensure(method.chains).emplace_back();
    auto& instructions = program::ensure(chain.instructions);
    const int count = 700;
    for (int i = 0; i <= count; ++i) {
      program::Tensor t;
      t.scalar_type = program::ScalarType::Float;
      t.sizes = std::vector<int32_t>{4};
      values.push_back(program::Value{t});
    }
    for (int i = 0; i < count; ++i) {
      program::Operator op;
      op.name = "custom::op" + std::to_string(i);
      ops.push_back(op);
      instructions.push_back(program::Instruction{program::KernelCall{i, std::vector<int32_t>{i, i + 1}}});
    }
    method.inputs = std::vector<int32_t>{0};
    method.outputs = std::vector<int32_t>{count};
    const auto graph = layout::MethodGraph::analyze(method);
    QCOMPARE(graph.groups().period, size_t(0));
    QVERIFY(!graph.groups().groups.empty());
    QVERIFY(graph.groups().top.size() <= 40);
    const auto model = graph.build({});
    QVERIFY(model.nodes.size() <= 42);
    QVERIFY(graph.build(graph.fullExpansion()).nodes.size() == size_t(count) + 2);
  }

  void layoutsFromSeveralThreadsQueue() {
    const auto program = demoAfterPasses();
    const auto model = modelOf(program.methods().front());
    std::atomic<int> ok{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&] {
        for (int k = 0; k < 3; ++k)
          if (layout::layoutGraph(model)) ++ok;
      });
    for (auto& t : threads) t.join();
    QCOMPARE(ok.load(), 12);
  }

  void rendersSvgAndPng() {
    const auto program = demoAfterPasses();
    const auto model = modelOf(program.methods().front());
    auto svg = report::renderGraph(model, "svg");
    QVERIFY2(svg, svg ? "" : svg.error().message.c_str());
    QVERIFY(svg->find("<svg") != std::string::npos);
    auto png = report::renderGraph(model, "png");
    QVERIFY2(png, png ? "" : png.error().message.c_str());
    QVERIFY(png->rfind("\x89PNG", 0) == 0);
    QVERIFY(!report::renderGraph(model, "no-such-format"));
  }
};

QTEST_GUILESS_MAIN(LayoutTest)
#include "test_layout.moc"
