// Issue 27's reproducers, built by code: a program of about a kilobyte whose
// corrupt sizes declare one huge method input. The CLI (profile, run), the
// core executor and the app must refuse it at the default memory budget
// before allocating anything.
#pragma once

#include <QString>

#include <algorithm>
#include <cstdint>

#include "pte/Writer.h"
#include "synth/ProgramBuilder.h"
#include "util/HostMemory.h"

namespace ptescope::test {

// A method "forward" whose one input (and output) is an unplanned float32
// tensor of `bytes` (rounded down to whole rows of 1 KiB): running it needs
// the tensor and the executor's host copy of the input, twice `bytes`.
inline Result<program::Program> hugeInputProgram(uint64_t bytes) {
  const uint64_t rows = std::max<uint64_t>(1, std::min<uint64_t>(bytes / 1024, uint64_t(INT32_MAX)));
  synth::ProgramBuilder builder;
  auto& m = builder.addMethod("forward");
  const auto x = m.addTensor(program::ScalarType::Float, {int32_t(rows), 256});
  m.setInputs({x});
  m.setOutputs({x});
  synth::BuildOptions options;
  options.planning.alloc_graph_input = false;
  options.planning.alloc_graph_output = false;
  return builder.build(options);
}

// The case: 22 GiB, or on a machine with more memory available than
// that, as much as is available, so the run is over the default budget
// (half of what is available) everywhere and a test never starts it.
inline uint64_t overBudgetInputBytes() { return std::max<uint64_t>(22ull << 30, hostAvailableMemoryBytes()); }

// Writes hugeInputProgram(bytes) to `path`; false when that failed.
inline bool writeHugeInputProgram(const QString& path, uint64_t bytes) {
  auto built = hugeInputProgram(bytes);
  return built.ok() && pte::writeProgramFile(built.value(), path.toStdString()).ok();
}

}  // namespace ptescope::test
