// The placement advisor (core/advise, issue 25) on the program shapes of
// synth::shapeProgram (llm, moe, pipeline) at about 2k, 10k and 50k
// instructions after the device passes, as exported (default options):
// advise::advise with the default budget (2,000 pipeline runs or 5 s per
// method), the link pcie-gen4-x16. Prints the search used, the pipeline
// runs, whether the budget stopped it, the best saving, and the median time.
// Target: under 2 s at 10k.
//
//   build/tests/bench/bench_advise [--runs N] [--sizes 2000,10000,50000] [--shapes llm,moe,pipeline] [--devices N]
#include <cstring>
#include <sstream>

#include "BenchSupport.h"
#include "advise/Advise.h"
#include "synth/JsonSpec.h"
#include "synth/Shapes.h"

using namespace ptescope;

namespace {
std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) out.push_back(item);
  return out;
}
}  // namespace

int main(int argc, char** argv) {
  int runs = 3, devices = 0;
  std::string sizes = "2000,10000,50000", shapes = "llm,moe,pipeline";
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--runs") == 0) runs = std::max(1, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--sizes") == 0) sizes = argv[i + 1];
    if (std::strcmp(argv[i], "--shapes") == 0) shapes = argv[i + 1];
    if (std::strcmp(argv[i], "--devices") == 0) devices = std::atoi(argv[i + 1]);
  }
  std::printf("%-9s %8s %8s %11s %6s %7s %6s %11s %9s\n", "shape", "instrs", "delegs", "search", "runs", "budget",
              "cands", "best us", "advise s");
  for (const auto& shape : split(shapes))
    for (const auto& size : split(sizes)) {
      auto layers = synth::layersForInstructions(shape, std::stoul(size));
      if (!layers) return std::fprintf(stderr, "%s\n", layers.error().message.c_str()), 1;
      auto built = synth::shapeProgram(shape, layers.value());
      if (!built) return std::fprintf(stderr, "%s\n", built.error().message.c_str()), 1;
      auto program = synth::applyDevicePasses(synth::SynthesizedProgram{built.value(), {}});
      if (!program) return std::fprintf(stderr, "%s\n", program.error().message.c_str()), 1;
      size_t instructions = 0;
      for (const auto& c : program::items(program->methods()[0].chains)) instructions += program::items(c.instructions).size();
      advise::AdviseOptions options;
      options.devices = devices;
      advise::MethodAdvice last;
      const double seconds = bench::medianSeconds(runs, [&] {
        auto advice = advise::advise(program.value(), options);
        if (!advice) std::fprintf(stderr, "%s\n", advice.error().message.c_str()), std::abort();
        last = advice->methods.front();
      });
      std::printf("%-9s %8zu %8zu %11s %6zu %7s %6zu %11.2f %9.3f\n", shape.c_str(), instructions, last.device_delegates,
                  last.search == advise::SearchKind::Exhaustive ? "exhaustive" : "local", last.pipeline_runs,
                  last.budget_reached ? "hit" : "-", last.candidates.size(),
                  last.candidates.empty() ? 0.0 : last.candidates.front().predicted_saving_us, seconds);
      std::fflush(stdout);
    }
  return 0;
}
