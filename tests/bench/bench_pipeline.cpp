// The whole device pipeline (strip, propagate, plan, report) on the large
// synthetic program at ~5k and ~50k instructions, and the GUI's diff view
// marks for an edit that removes copies (both skip options): the report
// turned into marks (report::methodChanges) and put on the graph model of
// the first picture (layout::markChanges). The edit takes every delegate off
// the GPU, so every copy is removed: the most ghosts a diff can have.
//
//   build/tests/bench/bench_pipeline [--runs N]
#include <cstring>

#include "BenchSupport.h"
#include "analysis/Dataflow.h"
#include "layout/DiffMarks.h"
#include "passes/Pipeline.h"
#include "report/PassReportChanges.h"
#include "synth/Scenarios.h"

using namespace ptescope;

int main(int argc, char** argv) {
  int runs = 5;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--runs") == 0) runs = std::max(1, std::atoi(argv[i + 1]));
  std::printf("%-8s %10s %10s %12s %12s %10s %12s\n", "layers", "instrs in", "instrs out", "pipeline s", "re-run s",
              "removed", "diff marks s");
  double previous = 0;
  for (size_t layers : {500u, 5000u}) {
    auto built = synth::largeProgram(layers);
    if (!built) return std::fprintf(stderr, "%s\n", built.error().message.c_str()), 1;
    passes::PipelineOptions options;
    passes::PipelineResult result;
    const double first = bench::medianSeconds(runs, [&] {
      auto r = passes::runPipeline(built.value(), options);
      if (!r) std::abort();
      result = std::move(r.value());
    });
    // Strip + propagate again on the pipeline's own output (the GUI's edit loop).
    const double again = bench::medianSeconds(runs, [&] {
      if (!passes::runPipeline(result.program, options)) std::abort();
    });
    // The edit: no delegate has a target device any more.
    passes::PipelineOptions offGpu;
    const auto& name = result.program.methods()[0].displayName();
    for (size_t d = 0; d < program::items(result.program.methods()[0].delegates).size(); ++d)
      offGpu.target_devices[{name, int32_t(d)}] = std::nullopt;
    auto edited = passes::runPipeline(result.program, offGpu);
    if (!edited) return std::fprintf(stderr, "%s\n", edited.error().message.c_str()), 1;
    const auto& loadedMethod = result.program.methods()[0];
    const auto& editedMethod = edited->program.methods()[0];
    const auto flow = analysis::Dataflow::build(editedMethod);
    const auto graph = layout::MethodGraph::analyze(editedMethod);
    const auto view = graph.initialExpansion();
    size_t removed = 0;
    const double marks = bench::medianSeconds(runs, [&] {
      auto changes = report::methodChanges(edited->report.methods[0], loadedMethod, editedMethod, flow);
      auto model = graph.build(view);
      layout::markChanges(model, graph, changes);
      removed = changes.removed_copies.size();
    });
    auto count = [](const program::Program& p) {
      size_t n = 0;
      for (const auto& c : program::items(p.methods()[0].chains)) n += program::items(c.instructions).size();
      return n;
    };
    std::printf("%-8zu %10zu %10zu %12.4f %12.4f %10zu %12.4f\n", layers, count(built.value()), count(result.program),
                first, again, removed, marks);
    if (previous > 0) std::printf("growth: 50k/5k time ratio %.1f (linear = 10)\n", first / previous);
    previous = first;
  }
  return 0;
}
