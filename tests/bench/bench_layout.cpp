// Graph layout of the large synthetic program (issue 5): time to the first
// picture (dataflow + layer detection + initial view + Graphviz layout) and
// time to lay out every instruction (striped layout), at 5k and 50k
// instructions as built, i.e. 8.5k and 85k once the device passes have added
// the copies. The program goes through the passes first because that is what
// the GUI shows. Results go to RESULTS.md ("Graph layout").
//
// A second table times the same first picture in the GUI: GraphView from
// setMethod() to a painted grab (analysis and layout on the worker thread,
// then scene items and the first paint), offscreen.
//
// Issue 12, with --shapes llm,moe,pipeline,fanout,large [--sizes 2000,10000,50000]
// [--full-up-to N]: per shape and size (instructions after the passes;
// "large" is the old local-edge program) the core time to the first
// picture, the GUI's (setMethod to painted grab) with the longest UI stall
// meanwhile, the full layout (core, and GUI with its longest stall) up to
// --full-up-to instructions, the time Cancel takes to give control back
// during an open-all layout, and peak memory (the process, and the largest
// dot child).
//
// Usage: bench_layout [--runs N] [--full-runs N] [--layers A,B,...] [--whole-dot]
//   --whole-dot also times one dot run over the whole first program (what
//   the stripes replace; about 40 s at 8,500 nodes).
//   --gui-full also times GraphView::expandAll() to a painted grab (stripes
//   on the worker, then scene items for every node and edge).
//   --scene-slice MS: how long one event-loop turn may spend adding scene
//   items (GraphView::setSceneSlice; default 12; 1e9 adds them all at once,
//   as before the scene was filled in slices).
#include <sys/resource.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QImage>
#include <QTimer>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "BenchSupport.h"
#include "layout/GraphModel.h"
#include "layout/GraphvizLayout.h"
#include "passes/Pipeline.h"
#include "synth/JsonSpec.h"
#include "synth/Scenarios.h"
#include "synth/Shapes.h"
#include "ui/graph/GraphView.h"

using namespace ptescope;

namespace {

// --scene-slice: GraphView::setSceneSlice for every GUI timing.
double gSceneSliceMs = 12;

struct Figures {
  size_t nodes = 0;
  size_t edges = 0;
  size_t stripes_or_groups = 0;
  double dot_seconds = 0;
};

// Everything between "the program is loaded" and "the scene can be drawn".
Figures layOut(const program::Method& method, bool full, const layout::LayoutOptions& options = {}) {
  const auto graph = layout::MethodGraph::analyze(method);
  const auto view = full ? graph.fullExpansion() : graph.initialExpansion();
  auto model = graph.build(view);
  Figures f;
  f.nodes = model.nodes.size();
  f.edges = model.edges.size();
  for (const auto& n : model.nodes) f.stripes_or_groups += n.kind == layout::NodeKind::Group;
  auto placed = layout::layoutGraph(std::move(model), options);
  if (!placed) {
    std::fprintf(stderr, "layout failed: %s\n", placed.error().message.c_str());
    std::exit(1);
  }
  f.dot_seconds = placed->seconds;
  return f;
}

std::vector<size_t> parseList(const char* text) {
  std::vector<size_t> out;
  std::string item;
  for (const char* p = text;; ++p) {
    if (*p == ',' || *p == '\0') {
      if (!item.empty()) out.push_back(std::stoul(item));
      item.clear();
      if (*p == '\0') break;
    } else {
      item += *p;
    }
  }
  return out;
}

// setMethod() to a grab of the painted view.
// With `full`, from expandAll() to a grab of everything laid out.
double guiSeconds(std::shared_ptr<const program::Program> program, bool full) {
  ui::GraphView view;
  view.resize(1200, 900);
  view.setSceneSlice(gSceneSliceMs);
  view.show();
  QEventLoop loop;
  QObject::connect(&view, &ui::GraphView::layoutFinished, &loop, &QEventLoop::quit);
  const double first = bench::seconds([&] {
    view.setMethod(program, 0);
    loop.exec();
    (void)view.grab().toImage();
  });
  if (!full) return first;
  return bench::seconds([&] {
    view.expandAll();
    loop.exec();
    (void)view.grab().toImage();
  });
}

// ---- issue 12: every program shape ----

// A program of about `instructions` instructions after the passes: one of
// the shapes, or "large" (the old local-edge program, 17 per layer).
std::shared_ptr<const program::Program> shapeProgram(const std::string& shape, size_t instructions) {
  Result<program::Program> built = makeError("none");
  if (shape == "large") {
    built = synth::largeProgram(std::max<size_t>(1, instructions / 17));
  } else {
    auto layers = synth::layersForInstructions(shape, instructions);
    if (!layers) {
      std::fprintf(stderr, "%s\n", layers.error().message.c_str());
      std::exit(1);
    }
    built = synth::shapeProgram(shape, layers.value());
  }
  if (!built) {
    std::fprintf(stderr, "%s: %s\n", shape.c_str(), built.error().message.c_str());
    std::exit(1);
  }
  auto passed = synth::applyDevicePasses(synth::SynthesizedProgram{built.value(), {}});
  if (!passed) {
    std::fprintf(stderr, "%s passes: %s\n", shape.c_str(), passed.error().message.c_str());
    std::exit(1);
  }
  return std::make_shared<const program::Program>(std::move(passed.value()));
}

// Longest gap between ticks of a 5 ms timer on the UI thread while `work`
// runs its event loop: how long the UI was blocked at most.
struct StallMeter {
  QTimer timer;
  QElapsedTimer clock;
  qint64 last = 0, longest = 0;
  StallMeter() {
    timer.setInterval(5);
    QObject::connect(&timer, &QTimer::timeout, [this] {
      const qint64 now = clock.elapsed();
      longest = std::max(longest, now - last);
      last = now;
    });
  }
  void start() {
    clock.start();
    last = 0;
    timer.start();
  }
  double stopMs() {
    timer.stop();
    longest = std::max(longest, clock.elapsed() - last);
    return double(longest);
  }
};

struct GuiFigures {
  double first = 0, firstStallMs = 0;
  double full = -1, fullStallMs = 0;
  double cancel = -1;
  bool fullQuick = false;
};

GuiFigures guiShape(std::shared_ptr<const program::Program> program, bool full) {
  GuiFigures g;
  ui::GraphView view;
  view.resize(1200, 900);
  view.setSceneSlice(gSceneSliceMs);
  view.show();
  QEventLoop loop;
  QObject::connect(&view, &ui::GraphView::layoutFinished, &loop, &QEventLoop::quit);
  QObject::connect(&view, &ui::GraphView::layoutCancelled, &loop, &QEventLoop::quit);
  StallMeter stall;
  stall.start();
  g.first = bench::seconds([&] {
    view.setMethod(program, 0);
    loop.exec();
    (void)view.grab().toImage();
  });
  g.firstStallMs = stall.stopMs();
  // Cancel: open everything, cancel after 0.3 s, time until control is back.
  view.expandAll();
  QTimer::singleShot(300, &loop, &QEventLoop::quit);
  loop.exec();
  if (view.layoutPending()) {
    g.cancel = bench::seconds([&] {
      view.cancelLayout();
      loop.exec();
    });
  }
  if (full) {
    stall.start();
    g.full = bench::seconds([&] {
      view.expandAll();
      loop.exec();
      (void)view.grab().toImage();
    });
    g.fullStallMs = stall.stopMs();
    g.fullQuick = view.currentLayout() && view.currentLayout()->quick;
  }
  return g;
}

int runShapes(const std::vector<std::string>& shapes, const std::vector<size_t>& sizes, size_t fullUpTo, int runs) {
  std::printf("%-9s %7s | %8s %6s | %8s %8s | %8s %7s %8s | %8s %8s | %9s %9s\n", "shape", "instrs", "first s", "nodes",
              "gui 1st", "stall ms", "full s", "nodes", "stall ms", "cancel s", "quick", "peak MiB", "dot MiB");
  for (const auto& shape : shapes) {
    for (size_t size : sizes) {
      auto program = shapeProgram(shape, size);
      const program::Method& method = program->methods().front();
      const size_t instructions = analysis::Dataflow::build(method).instructionCount();
      Figures first;
      const double firstSeconds = bench::medianSeconds(runs, [&] { first = layOut(method, false); });
      const bool full = instructions <= fullUpTo;
      Figures whole;
      double fullSeconds = -1;
      if (full) fullSeconds = bench::seconds([&] { whole = layOut(method, true); });
      // Peak memory of everything above in a child of its own; the dot
      // processes' peak separately (they are the child's children).
      struct rusage before {};
      getrusage(RUSAGE_CHILDREN, &before);
      const double peak = bench::peakMiBInChild([&] {
        layOut(method, false);
        if (full) layOut(method, true);
      });
      const GuiFigures gui = guiShape(program, full);
      struct rusage after {};
      getrusage(RUSAGE_CHILDREN, &after);
      std::printf("%-9s %7zu | %8.3f %6zu | %8.3f %8.0f | ", shape.c_str(), instructions, firstSeconds, first.nodes, gui.first,
                  gui.firstStallMs);
      if (full) std::printf("%8.2f %7zu %8.0f | ", fullSeconds, whole.nodes, gui.fullStallMs);
      else std::printf("%8s %7s %8s | ", "-", "-", "-");
      if (gui.cancel >= 0) std::printf("%8.3f ", gui.cancel);
      else std::printf("%8s ", "done");
      std::printf("%8s | %9.1f %9.1f\n", gui.fullQuick ? "yes" : "no", peak, double(after.ru_maxrss) / 1024.0);
      std::fflush(stdout);
    }
  }
  return 0;
}

std::vector<std::string> parseNames(const char* text) {
  std::vector<std::string> out;
  std::string item;
  for (const char* p = text;; ++p) {
    if (*p == ',' || *p == '\0') {
      if (!item.empty()) out.push_back(item);
      item.clear();
      if (*p == '\0') break;
    } else {
      item += *p;
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5;
  int fullRuns = 1;
  bool wholeDot = false;
  bool guiFull = false;
  std::vector<size_t> layerCounts = {500, 5000};
  std::vector<std::string> shapes;
  std::vector<size_t> sizes = {2000, 10000, 50000};
  size_t fullUpTo = 10000;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    const bool hasValue = i + 1 < argc;
    if (flag == "--runs" && hasValue) runs = std::atoi(argv[++i]);
    else if (flag == "--full-runs" && hasValue) fullRuns = std::atoi(argv[++i]);
    else if (flag == "--layers" && hasValue) layerCounts = parseList(argv[++i]);
    else if (flag == "--whole-dot") wholeDot = true;
    else if (flag == "--gui-full") guiFull = true;
    else if (flag == "--shapes" && hasValue) shapes = parseNames(argv[++i]);
    else if (flag == "--sizes" && hasValue) sizes = parseList(argv[++i]);
    else if (flag == "--full-up-to" && hasValue) fullUpTo = std::stoul(argv[++i]);
    else if (flag == "--scene-slice" && hasValue) gSceneSliceMs = std::atof(argv[++i]);
  }
  qputenv("QT_QPA_PLATFORM", "offscreen");
  int qtArgc = 1;
  QApplication app(qtArgc, argv);
  if (!shapes.empty()) return runShapes(shapes, sizes, fullUpTo, runs);
  std::vector<std::shared_ptr<const program::Program>> programs;

  std::printf("%-8s %10s | %12s %7s %7s %7s | %12s %7s %7s %9s\n", "layers", "instrs", "first s", "nodes", "edges",
              "groups", "full s", "nodes", "edges", "dot s");
  std::vector<double> fullTimes;
  for (size_t layers : layerCounts) {
    auto built = synth::largeProgram(layers);
    if (!built) {
      std::fprintf(stderr, "largeProgram(%zu): %s\n", layers, built.error().message.c_str());
      return 1;
    }
    auto passed = passes::runPipeline(built.value(), passes::PipelineOptions{});
    if (!passed) {
      std::fprintf(stderr, "pipeline: %s\n", passed.error().message.c_str());
      return 1;
    }
    programs.push_back(std::make_shared<const program::Program>(std::move(passed->program)));
    const program::Method& method = programs.back()->methods().front();
    const size_t instructions = analysis::Dataflow::build(method).instructionCount();

    Figures first;
    const double firstSeconds = bench::medianSeconds(runs, [&] { first = layOut(method, false); });
    Figures full;
    const double fullSeconds = bench::medianSeconds(fullRuns, [&] { full = layOut(method, true); });
    fullTimes.push_back(fullSeconds);
    std::printf("%-8zu %10zu | %12.3f %7zu %7zu %7zu | %12.2f %7zu %7zu %9.2f\n", layers, instructions, firstSeconds,
                first.nodes, first.edges, first.stripes_or_groups, fullSeconds, full.nodes, full.edges, full.dot_seconds);
    std::fflush(stdout);
  }
  if (fullTimes.size() >= 2 && fullTimes.front() > 0)
    std::printf("growth: full layout time ratio last/first %.1f (instruction ratio %.0f)\n", fullTimes.back() / fullTimes.front(),
                double(layerCounts.back()) / double(layerCounts.front()));

  std::printf("\nGUI first frame (GraphView::setMethod to painted grab, median of %d)\n", runs);
  for (size_t k = 0; k < programs.size(); ++k) {
    std::vector<double> times;
    for (int r = 0; r < runs; ++r) times.push_back(guiSeconds(programs[k], false));
    std::printf("%-8zu %10s | first %8.3f s", layerCounts[k], "", bench::median(times));
    if (guiFull) std::printf(" | open all groups %8.2f s", guiSeconds(programs[k], true));
    std::printf("\n");
    std::fflush(stdout);
  }

  if (wholeDot && !programs.empty()) {
    layout::LayoutOptions oneRun;
    oneRun.stripe_above = size_t(-1);
    Figures whole;
    const double seconds = bench::seconds([&] { whole = layOut(programs.front()->methods().front(), true, oneRun); });
    std::printf("\nwhole graph in one dot run, %zu layers: %.2f s (%zu nodes)\n", layerCounts.front(), seconds, whole.nodes);
  }
  return 0;
}
