// The whole device pipeline (strip, propagate, plan, report) on the large
// synthetic program at ~5k and ~50k instructions.
//
//   build/tests/bench/bench_pipeline [--runs N]
#include <cstring>

#include "BenchSupport.h"
#include "passes/Pipeline.h"
#include "synth/Scenarios.h"

using namespace ptescope;

int main(int argc, char** argv) {
  int runs = 5;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--runs") == 0) runs = std::max(1, std::atoi(argv[i + 1]));
  std::printf("%-8s %10s %10s %12s %12s\n", "layers", "instrs in", "instrs out", "pipeline s", "re-run s");
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
    auto count = [](const program::Program& p) {
      size_t n = 0;
      for (const auto& c : program::items(p.methods()[0].chains)) n += program::items(c.instructions).size();
      return n;
    };
    std::printf("%-8zu %10zu %10zu %12.4f %12.4f\n", layers, count(built.value()), count(result.program), first, again);
    if (previous > 0) std::printf("growth: 50k/5k time ratio %.1f (linear = 10)\n", first / previous);
    previous = first;
  }
  return 0;
}
