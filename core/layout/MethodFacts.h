// Facts about one method's values and instructions that the graph model
// reads when it names, places and groups nodes: literal and tensor text,
// devices, operator names, delegate targets and instruction signatures.
// Internal to core/layout (GraphModel.cpp, LayerDetection.cpp,
// ModelBuilder.cpp).
#pragma once

#include <optional>
#include <string>

#include "analysis/Dataflow.h"
#include "layout/GraphModel.h"
#include "program/Program.h"

namespace ptescope::layout {

// The names every core/layout source uses.
using analysis::Dataflow;
using analysis::InstructionFacts;
using analysis::ValueOrigin;
using program::Device;
using program::InstructionKind;
using program::Method;
using program::Tensor;
using program::ValueKind;

namespace facts {

const program::Value* valueAt(const program::Method& method, int32_t index);
const program::Tensor* tensorAt(const program::Method& method, int32_t index);
// "int", "tensor list", ... for a value kind.
std::string lowerKindName(program::ValueKind kind);
// The literal a method returns without computing it ("5", "true", "\"mean\"").
std::string literalText(const program::Method& method, int32_t index);
std::string tensorName(const program::Method& method, int32_t index);
program::Device valueDevice(const program::Method& method, int32_t index);
// "aten::native_layer_norm.out" -> "native_layer_norm".
std::string shortOperatorName(const std::string& qualified);
std::string operatorName(const program::Method& method, int32_t opIndex);
const program::BackendDelegate* delegateAt(const program::Method& method, int32_t index);
// The delegate's target_device compile spec, if it names one.
std::optional<program::Device> delegateTarget(const program::Method& method, int32_t index);
// Where an instruction runs, for its region and colour (see MethodFacts.cpp).
program::Device instructionDevice(const program::Method& method, const analysis::InstructionFacts& ins);
NodeKind instructionNodeKind(const analysis::InstructionFacts& ins);
// What makes two instructions "the same step" for layer detection.
std::string instructionSignature(const program::Method& method, const analysis::InstructionFacts& ins);

}  // namespace facts
}  // namespace ptescope::layout
