// libFuzzer: run what reads on the host runtime, within a budget: at most
// 64 MiB allocated per memory pool (the executor refuses bigger runs before
// allocating) and 20000 instructions per run (a JumpFalseCall loop is
// stopped). Nothing may crash, leak, or read or write outside a buffer.
#include <cstddef>
#include <cstdint>

#include "FuzzSupport.h"
#include "exec/Executor.h"
#include "exec/HostRuntime.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ptescope;
  auto loaded = pte::readProgramBytes(Bytes::copyOf({data, size}), "fuzz.pte", fuzz::fuzzReadOptions());
  if (!loaded) return 0;
  exec::HostRuntime runtime;
  exec::ExecutorOptions options;
  options.max_memory = 64ull << 20;
  options.max_steps = 20000;
  for (const auto& method : loaded->program.methods()) {
    auto executor = exec::Executor::create(loaded->program, method.displayName(), runtime, options);
    if (!executor) continue;
    if (!executor.value()->fillInputs({})) continue;
    (void)executor.value()->run();
  }
  return 0;
}
