#include "layout/MethodFacts.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace ptescope::layout::facts {

const program::Value* valueAt(const Method& method, int32_t index) {
  const auto& values = program::items(method.values);
  if (index < 0 || size_t(index) >= values.size()) return nullptr;
  return &values[size_t(index)];
}

const Tensor* tensorAt(const Method& method, int32_t index) {
  const auto* v = valueAt(method, index);
  return v ? v->tensor() : nullptr;
}

std::string lowerKindName(ValueKind kind) {
  switch (kind) {
    case ValueKind::Int: return "int";
    case ValueKind::Bool: return "bool";
    case ValueKind::Double: return "double";
    case ValueKind::String: return "string";
    case ValueKind::IntList: return "int list";
    case ValueKind::DoubleList: return "double list";
    case ValueKind::BoolList: return "bool list";
    case ValueKind::TensorList: return "tensor list";
    case ValueKind::OptionalTensorList: return "optional tensor list";
    case ValueKind::Null: return "null";
    case ValueKind::None: return "none";
    case ValueKind::Tensor: return "tensor";
  }
  return "value";
}

// The literal a method returns without computing it ("Int = 5").
std::string literalText(const Method& method, int32_t index) {
  const auto* v = valueAt(method, index);
  if (!v) return "?";
  char text[64];
  switch (v->kind()) {
    case ValueKind::Int:
      std::snprintf(text, sizeof text, "%" PRId64, std::get<program::IntValue>(v->data).value);
      return text;
    case ValueKind::Bool: return std::get<program::BoolValue>(v->data).value ? "true" : "false";
    case ValueKind::Double:
      std::snprintf(text, sizeof text, "%g", std::get<program::DoubleValue>(v->data).value);
      return text;
    case ValueKind::String: {
      const auto& s = std::get<program::StringValue>(v->data).value;
      std::string body = s ? *s : std::string();
      if (body.size() > 24) body = body.substr(0, 21) + "...";
      return "\"" + body + "\"";
    }
    default: return lowerKindName(v->kind());
  }
}

std::string tensorName(const Method& method, int32_t index) {
  const auto* t = tensorAt(method, index);
  if (!t || !t->extra_tensor_info || !t->extra_tensor_info->fully_qualified_name) return {};
  return *t->extra_tensor_info->fully_qualified_name;
}

Device valueDevice(const Method& method, int32_t index) {
  const auto* t = tensorAt(method, index);
  return t ? t->device() : Device{};
}

// "aten::native_layer_norm.out" -> "native_layer_norm".
std::string shortOperatorName(const std::string& qualified) {
  std::string name = qualified;
  if (auto colon = name.rfind("::"); colon != std::string::npos) name = name.substr(colon + 2);
  if (auto dot = name.find('.'); dot != std::string::npos) name = name.substr(0, dot);
  return name.empty() ? qualified : name;
}

std::string operatorName(const Method& method, int32_t opIndex) {
  const auto& ops = program::items(method.operators);
  if (opIndex < 0 || size_t(opIndex) >= ops.size()) return "<operator " + std::to_string(opIndex) + ">";
  return ops[size_t(opIndex)].qualifiedName();
}

const program::BackendDelegate* delegateAt(const Method& method, int32_t index) {
  const auto& delegates = program::items(method.delegates);
  if (index < 0 || size_t(index) >= delegates.size()) return nullptr;
  return &delegates[size_t(index)];
}

std::optional<Device> delegateTarget(const Method& method, int32_t index) {
  const auto* d = delegateAt(method, index);
  if (!d) return std::nullopt;
  const auto* spec = d->findCompileSpec("target_device");
  if (!spec) return std::nullopt;
  auto parsed = program::parseDeviceSpec(spec->valueText());
  if (!parsed) return std::nullopt;
  return parsed.value();
}

// Where an instruction runs, for its region and colour. A kernel runs where
// its outputs live; a delegate on its target device; a copy is listed under
// its source device (it reads there; the runtime runs it on the host).
Device instructionDevice(const Method& method, const InstructionFacts& ins) {
  if (ins.kind == InstructionKind::DelegateCall) {
    if (auto target = delegateTarget(method, ins.delegate_index)) return *target;
  }
  if (ins.is_h2d_copy || ins.is_d2h_copy) {
    for (int32_t v : ins.inputs)
      if (tensorAt(method, v)) return valueDevice(method, v);
  }
  if (ins.kind == InstructionKind::KernelCall || ins.kind == InstructionKind::DelegateCall) {
    for (int32_t v : ins.outputs)
      if (tensorAt(method, v)) return valueDevice(method, v);
    for (int32_t v : ins.inputs)
      if (tensorAt(method, v)) return valueDevice(method, v);
  }
  return Device{};
}

NodeKind instructionNodeKind(const InstructionFacts& ins) {
  if (ins.is_h2d_copy) return NodeKind::CopyH2D;
  if (ins.is_d2h_copy) return NodeKind::CopyD2H;
  if (ins.kind == InstructionKind::KernelCall) return NodeKind::Kernel;
  if (ins.kind == InstructionKind::DelegateCall) return NodeKind::Delegate;
  return NodeKind::Control;
}

// What makes two instructions "the same step" for layer detection.
std::string instructionSignature(const Method& method, const InstructionFacts& ins) {
  std::string sig = std::to_string(int(ins.kind)) + "|" + ins.label + "|" + instructionDevice(method, ins).str();
  if (ins.kind == InstructionKind::DelegateCall) {
    if (const auto* d = delegateAt(method, ins.delegate_index)) sig += "|" + d->id.value_or("");
  }
  return sig;
}

}  // namespace ptescope::layout::facts
