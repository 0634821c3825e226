// The programs of issue 25's "Done when", built by code for the advisor's
// core and CLI tests: each is a pre-pass graph put through the device
// pipeline with upstream's default options, i.e. what export writes.
#pragma once

#include <string>
#include <vector>

#include "passes/Pipeline.h"
#include "program/Program.h"
#include "synth/JsonSpec.h"
#include "synth/ProgramBuilder.h"
#include "util/Result.h"

namespace ptescope::testprograms {

inline Result<program::Program> exportedDefault(const synth::ProgramBuilder& builder) {
  auto built = builder.build();
  if (!built) return built.error();
  return synth::applyDevicePasses(synth::SynthesizedProgram{built.value(), {}});
}

// x -> delegate (cuda:0) -> y: inputs and outputs touch only the delegate.
inline Result<program::Program> singleGpuProgram() {
  using program::ScalarType;
  synth::ProgramBuilder builder;
  auto& m = builder.addMethod("forward");
  const auto x = m.addTensor(ScalarType::Float, {64, 64});
  const auto y = m.addTensor(ScalarType::Float, {64, 64});
  m.addDelegateCall("CudaBackend", synth::aotiCompileSpecs("forward"), {'a'}, {x}, {y});
  m.setInputs({x});
  m.setOutputs({y});
  return exportedDefault(builder);
}

// x is read by the delegate and by a CPU relu: skip_h2d cannot retag it.
inline Result<program::Program> sharedPlaceholderProgram() {
  using program::ScalarType;
  synth::ProgramBuilder builder;
  auto& m = builder.addMethod("forward");
  const auto x = m.addTensor(ScalarType::Float, {64, 64});
  const auto y = m.addTensor(ScalarType::Float, {64, 64});
  const auto r = m.addTensor(ScalarType::Float, {64, 64});
  const auto out = m.addTensor(ScalarType::Float, {64, 64});
  m.addDelegateCall("CudaBackend", synth::aotiCompileSpecs("forward"), {'a'}, {x}, {y});
  m.addKernelCall("aten::relu.out", {x}, {r});
  m.addKernelCall("aten::add.out", {y, r, m.addInt(1)}, {out});
  m.setInputs({x});
  m.setOutputs({out});
  return exportedDefault(builder);
}

// A chain of delegates on `devices` (e.g. cuda:0, cuda:1, cuda:0): x -> d0
// -> d1 -> ... -> out, each hop between two devices a D2H and an H2D copy.
// With `weightBytes`, each delegate carries AOTI weights of that size (its
// own content, so each has its own key).
inline Result<program::Program> chainProgram(const std::vector<std::string>& devices, size_t weightBytes = 0) {
  using program::ScalarType;
  synth::ProgramBuilder builder;
  auto& m = builder.addMethod("forward");
  auto current = m.addTensor(ScalarType::Float, {32, 32});
  m.setInputs({current});
  for (size_t i = 0; i < devices.size(); ++i) {
    const auto next = m.addTensor(ScalarType::Float, {32, 32});
    std::vector<uint8_t> payload{uint8_t('a' + i)};
    if (weightBytes > 0) {
      std::vector<uint8_t> so{uint8_t('s'), uint8_t(i)};
      std::vector<uint8_t> weights(weightBytes, uint8_t(i + 1));
      payload = builder.addAotiPayload(so, weights, "cuda", false);
    }
    m.addDelegateCall("CudaBackend", synth::aotiCompileSpecs("forward", devices[i]), payload, {current}, {next});
    current = next;
  }
  m.setOutputs({current});
  return exportedDefault(builder);
}

}  // namespace ptescope::testprograms
