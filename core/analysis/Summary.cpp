#include "analysis/Summary.h"

namespace ptescope::analysis {
using namespace ptescope::program;

bool isH2dCopy(const Operator& op) { return op.name && *op.name == kH2dCopyOperator; }
bool isD2hCopy(const Operator& op) { return op.name && *op.name == kD2hCopyOperator; }

MethodSummary summarizeMethod(const Method& method) {
  MethodSummary s;
  s.name = method.displayName();
  const auto& values = items(method.values);
  s.values = values.size();
  for (const auto& v : values) {
    ++s.values_by_kind[valueKindName(v.kind())];
    if (const auto* t = v.tensor()) {
      ++s.tensors_by_device[t->device().str()];
      if (t->isConstant()) ++s.constant_tensors;
      if (t->isPlanned()) ++s.planned_tensors;
    }
  }
  const auto& operators = items(method.operators);
  for (const auto& op : operators) s.operators.push_back(op.qualifiedName());
  for (const auto& chain : items(method.chains)) {
    for (const auto& ins : items(chain.instructions)) {
      ++s.instructions;
      ++s.instructions_by_kind[instructionKindName(ins.kind())];
      if (const auto* k = std::get_if<KernelCall>(&ins.data)) {
        ++s.kernel_calls;
        if (k->op_index >= 0 && static_cast<size_t>(k->op_index) < operators.size()) {
          const auto& op = operators[static_cast<size_t>(k->op_index)];
          if (isH2dCopy(op)) ++s.h2d_copies;
          if (isD2hCopy(op)) ++s.d2h_copies;
        }
      } else if (ins.kind() == InstructionKind::DelegateCall) {
        ++s.delegate_calls;
      }
    }
  }
  s.inputs = items(method.inputs);
  s.outputs = items(method.outputs);
  s.non_const_buffer_sizes = items(method.non_const_buffer_sizes);
  s.non_const_buffer_device = items(method.non_const_buffer_device);
  return s;
}

}  // namespace ptescope::analysis
