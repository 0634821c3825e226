// Issue 27: how fast a run that must not happen is refused, and how fast a
// run that is cancelled stops.
//  - refusal: Executor::create at the default budget on a program of a few
//    hundred bytes whose one input declares 22 GiB (target: well under a
//    second; nothing is allocated);
//  - cancel inside a kernel: a [N, N] @ [N, N] float matrix product, run
//    whole, then with Cancel raised from another thread a fifth of the way
//    in; the time from that to the run's return is what a user waits after
//    pressing Cancel (target: well under a second, whatever N).
//
//   build/tests/bench/bench_budget [--runs N] [--sizes 512,1024,1536]
#include <atomic>
#include <cstring>
#include <sstream>
#include <thread>

#include "BenchSupport.h"
#include "exec/Executor.h"
#include "exec/HostRuntime.h"
#include "exec/MemoryBudget.h"
#include "synth/JsonSpec.h"
#include "util/HostMemory.h"

using namespace ptescope;

namespace {

std::string matmulSpec(int n) {
  std::ostringstream s;
  s << R"({"methods": [{"name": "forward", "inputs": ["a", "b"], "outputs": ["y"], "tensors": {)"
    << R"("a": {"dtype": "float32", "sizes": [)" << n << ", " << n << R"(]}, )"
    << R"("b": {"dtype": "float32", "sizes": [)" << n << ", " << n << R"(]}, )"
    << R"("y": {"dtype": "float32", "sizes": [)" << n << ", " << n << R"(]}}, )"
    << R"("nodes": [{"op": "aten::mm.out", "inputs": ["a", "b"], "outputs": ["y"]}]}]})";
  return s.str();
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 5;
  std::string sizes = "512,1024,1536";
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--runs") == 0) runs = std::max(1, std::atoi(argv[i + 1]));
    if (std::strcmp(argv[i], "--sizes") == 0) sizes = argv[i + 1];
  }
  // 22 GiB declared by one input of a tiny program.
  auto huge = synth::synthesizeFromSpec(R"({"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["y"],
    "tensors": {"x": {"dtype": "float32", "sizes": [5767168, 1024]}, "y": {"dtype": "float32", "sizes": [5767168, 1024]}},
    "nodes": [{"op": "aten::relu.out", "inputs": ["x"], "outputs": ["y"]}]}]})");
  if (!huge) return std::fprintf(stderr, "%s\n", huge.error().message.c_str()), 1;
  exec::HostRuntime runtime;
  std::string message;
  const double refuse = bench::medianSeconds(runs, [&] {
    auto executor = exec::Executor::create(huge->program, "forward", runtime);
    if (executor) std::fprintf(stderr, "not refused\n"), std::abort();
    message = executor.error().message;
  });
  std::printf("refusal at the default budget (%s of %s available): median %.3f ms, %zu live allocations\n",
              exec::memoryText(exec::defaultHostMemoryBudget()).c_str(),
              exec::memoryText(hostAvailableMemoryBytes()).c_str(), refuse * 1e3, runtime.liveAllocations().size());
  std::printf("  %s\n\n", message.c_str());

  std::printf("%6s %12s %16s\n", "N", "whole s", "cancel wait ms");
  std::stringstream list(sizes);
  for (std::string item; std::getline(list, item, ',');) {
    const int n = std::stoi(item);
    auto program = synth::synthesizeFromSpec(matmulSpec(n));
    if (!program) return std::fprintf(stderr, "%s\n", program.error().message.c_str()), 1;
    auto executor = exec::Executor::create(program->program, "forward", runtime);
    if (!executor) return std::fprintf(stderr, "%s\n", executor.error().message.c_str()), 1;
    if (!(*executor)->fillInputs({}).ok()) return 1;
    const double whole = bench::medianSeconds(1, [&] {
      if (!(*executor)->run()) std::abort();
    });
    // Cancel pressed a fifth of the way into the kernel, from another thread
    // (as the app's button does); the wait is from then to the run's return.
    std::vector<double> waits;
    for (int r = 0; r < runs; ++r) {
      std::atomic<bool> cancel{false};
      std::chrono::steady_clock::time_point pressed;
      std::thread button([&] {
        std::this_thread::sleep_for(std::chrono::duration<double>(whole / 5));
        pressed = std::chrono::steady_clock::now();
        cancel = true;
      });
      auto record = (*executor)->run([&cancel] { return cancel.load(); });
      const auto returned = std::chrono::steady_clock::now();
      button.join();
      if (!record || !record->cancelled) std::abort();
      waits.push_back(std::chrono::duration<double>(returned - pressed).count());
    }
    std::printf("%6d %12.3f %16.2f\n", n, whole, bench::median(waits) * 1e3);
  }
  return 0;
}
