// Load + dataflow of the large synthetic program at ~5k and ~50k
// instructions, against `flatc --json --raw-binary` decoding the same file
// (what users reach for today), measured in the same run; and peak memory.
//
//   build/tests/bench/bench_load [--runs N]
#include <cstring>
#include <filesystem>
#include <iostream>

#include "BenchSupport.h"
#include "analysis/Dataflow.h"
#include "pte/Reader.h"
#include "pte/Writer.h"
#include "synth/Scenarios.h"

using namespace ptescope;

int main(int argc, char** argv) {
  int runs = 5;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--runs") == 0) runs = std::max(1, std::atoi(argv[i + 1]));
  const auto dir = std::filesystem::temp_directory_path() / "ptescope-bench-load";
  std::filesystem::create_directories(dir);
  const std::string schema = PTESCOPE_SCHEMA_DIR "/program.fbs";

  std::printf("%-8s %8s %10s %12s %12s %10s %10s\n", "layers", "instrs", "bytes", "load+df s", "flatc s", "flatc/ours", "peak MiB");
  double previous = 0;
  for (size_t layers : {500u, 5000u}) {
    auto built = synth::largeProgram(layers);
    if (!built) return std::fprintf(stderr, "%s\n", built.error().message.c_str()), 1;
    // As built (5,000 / 50,000 instructions); the copies the passes add are
    // measured by bench_pipeline.
    auto& program = built;
    const std::string path = (dir / ("large-" + std::to_string(layers) + ".pte")).string();
    if (auto s = pte::writeProgramFile(program.value(), path); !s) return std::fprintf(stderr, "%s\n", s.error().message.c_str()), 1;
    size_t instructions = 0;
    auto work = [&] {
      auto loaded = pte::readProgramFile(path);
      if (!loaded) std::abort();
      instructions = 0;
      for (const auto& m : loaded->program.methods()) instructions += analysis::Dataflow::build(m).instructionCount();
    };
    work();
    const double ours = bench::medianSeconds(runs, work);
    const double flatc = bench::commandSeconds("flatc --json --raw-binary -o " + dir.string() + " " + schema + " -- " + path, std::max(1, runs / 2));
    const double peak = bench::peakMiBInChild(work);
    std::printf("%-8zu %8zu %10ju %12.4f %12.4f %10.1f %10.1f\n", layers, instructions,
                uintmax_t(std::filesystem::file_size(path)), ours, flatc, flatc / ours, peak);
    if (previous > 0) std::printf("growth: 50k/5k time ratio %.1f (linear = 10)\n", ours / previous);
    previous = ours;
  }
  return 0;
}
