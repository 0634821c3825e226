// Reading an ETDump of a 50k-instruction method (synth::largeProgram(5000)),
// written with the flatbuffers builder as ETDumpGen lays it out (one load,
// 3 runs: about 250k profile events): parse + verify, then the mapping to the
// program and the statistics, then the profile the views show; median of
// --runs (default 5), and peak memory.
//
//   build/tests/bench/bench_etdump [--runs N]
#include <cstring>
#include <iostream>

#include "BenchSupport.h"
#include "etdump/Etdump.h"
#include "etdump/EtdumpProfile.h"
#include "etdump/EtdumpWriter.h"
#include "synth/Scenarios.h"

using namespace ptescope;

int main(int argc, char** argv) {
  int runs = 5;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--runs") == 0) runs = std::max(1, std::atoi(argv[i + 1]));
  std::printf("%-8s %8s %10s %10s %10s %10s %10s %10s\n", "layers", "instrs", "events", "MiB", "parse s", "map s",
              "profile s", "peak MiB");
  for (size_t layers : {500u, 5000u}) {
    auto program = synth::largeProgram(layers);
    if (!program) return std::fprintf(stderr, "%s\n", program.error().message.c_str()), 1;
    auto dump = etdump::synthesizeEtdump(program.value(), etdump::TraceSpec{});
    if (!dump) return std::fprintf(stderr, "%s\n", dump.error().message.c_str()), 1;
    const auto bytes = etdump::serializeEtdump(dump.value());
    const size_t instructions = program->methods().front().chains->front().instructions->size();

    etdump::Etdump parsed;
    const double parse = bench::medianSeconds(runs, [&] {
      auto r = etdump::parseEtdump(bytes, "bench.etdp");
      if (!r) std::abort();
      parsed = std::move(r.value());
    });
    etdump::EtdumpAnalysis analysis;
    const double map = bench::medianSeconds(runs, [&] {
      auto r = etdump::analyzeEtdump(parsed, program.value());
      if (!r || !r->warning().empty()) std::abort();
      analysis = std::move(r.value());
    });
    const double profile = bench::medianSeconds(runs, [&] {
      auto p = etdump::toTransferProfile(analysis.methods.front(), program.value(), "bench.pte");
      if (p.instructions.size() != instructions) std::abort();
    });
    const double peak = bench::peakMiBInChild([&] {
      auto r = etdump::parseEtdump(bytes, "bench.etdp");
      auto a = etdump::analyzeEtdump(r.value(), program.value());
      auto p = etdump::toTransferProfile(a->methods.front(), program.value(), "bench.pte");
      if (p.instructions.empty()) std::abort();
    });
    std::printf("%-8zu %8zu %10zu %10.1f %10.3f %10.3f %10.3f %10.1f\n", layers, instructions, parsed.profileEventCount(),
                double(bytes.size()) / (1024.0 * 1024), parse, map, profile, peak);
  }
  return 0;
}
