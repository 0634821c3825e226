// A program for the per-output bit-exactness tests (issue 36 part 4): output
// 0 is relu(x) (aten::relu.out float32 is `same` in every class of
// tests/oracle/record.tsv: proven), output 1 is linear(x, w, b) (the portable
// library has no linear.out: `oracle-refused`, so not proven).
#pragma once

#include "synth/ProgramBuilder.h"

namespace ptescope::test {

inline Result<program::Program> reluAndLinearProgram() {
  synth::ProgramBuilder builder;
  auto& m = builder.addMethod("forward");
  auto x = m.addTensor(program::ScalarType::Float, {2, 3});
  auto w = m.addTensor(program::ScalarType::Float, {4, 3});
  auto bias = m.addTensor(program::ScalarType::Float, {4});
  auto r = m.addTensor(program::ScalarType::Float, {2, 3});
  auto lin = m.addTensor(program::ScalarType::Float, {2, 4});
  m.addKernelCall("aten::relu.out", {x}, {r});
  m.addKernelCall("aten::linear.out", {x, w, bias}, {lin});
  m.setInputs({x, w, bias});
  m.setOutputs({r, lin});
  return builder.build();
}

}  // namespace ptescope::test
