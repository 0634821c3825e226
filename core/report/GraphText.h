// `ptescope-cli info --graph`: each method's instructions, one line each,
// with the values they read and write:
//   0  aten::add.out  [%0 float32[1] cpu:0, %1 float32[1] cpu:0, %3 Int=1] -> [%2 float32[1] cpu:0]
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/Dataflow.h"
#include "program/Program.h"

namespace ptescope::report {

// One value as the graph prints it: "%1 float32[2,2] cuda:0" for a tensor,
// "%4 Int=1", "%7 IntList=[1, 1]", "%10 TensorList[%7 float32[2] cpu:0, ...]",
// "%3 Null"; "%9 <out of range>" for a bad index.
std::string graphValueText(const program::Method& method, int32_t value);

// The lines of one method (no header), from its dataflow.
std::string methodGraphText(const program::Method& method, const analysis::Dataflow& flow);
// Every method: a header line per method, then its instruction lines.
std::string graphText(const program::Program& program);

// The same facts as JSON: one object per instruction with its index, chain,
// kind, label, and input and output value indices.
nlohmann::json methodGraphJson(const analysis::Dataflow& flow);
nlohmann::json methodGraphJson(const program::Method& method);

}  // namespace ptescope::report
