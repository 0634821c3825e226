#include "passes/ProgramEdit.h"

#include <algorithm>
#include <set>

#include "program/Operands.h"

namespace ptescope::passes {
using namespace ptescope::program;

void forEachValueReference(Method& method, const std::function<void(int32_t&)>& visit) {
  if (method.inputs)
    for (auto& v : *method.inputs) visit(v);
  if (method.outputs)
    for (auto& v : *method.outputs) visit(v);
  if (method.values) {
    for (auto& value : *method.values) {
      if (auto* tl = std::get_if<TensorListValue>(&value.data); tl && tl->items) {
        for (auto& item : *tl->items) visit(item);
      } else if (auto* otl = std::get_if<OptionalTensorListValue>(&value.data); otl && otl->items) {
        for (auto& item : *otl->items)
          if (item != -1) visit(item);
      } else if (auto* il = std::get_if<IntListValue>(&value.data); il && il->items) {
        for (auto& item : *il->items) {
          int32_t narrow = static_cast<int32_t>(item);
          visit(narrow);
          item = narrow;
        }
      }
    }
  }
  if (!method.chains) return;
  for (auto& chain : *method.chains) {
    if (chain.inputs)
      for (auto& v : *chain.inputs) visit(v);
    if (chain.outputs)
      for (auto& v : *chain.outputs) visit(v);
    if (!chain.instructions) continue;
    for (auto& instruction : *chain.instructions) forEachOperand(instruction.data, visit);
  }
}

std::vector<int32_t> compactValues(Method& method, const std::vector<bool>& keep) {
  auto& values = ensure(method.values);
  std::vector<int32_t> mapping(values.size(), -1);
  std::vector<Value> kept;
  kept.reserve(values.size());
  for (size_t v = 0; v < values.size(); ++v) {
    if (v < keep.size() && !keep[v]) continue;
    mapping[v] = static_cast<int32_t>(kept.size());
    kept.push_back(std::move(values[v]));
  }
  values = std::move(kept);
  forEachValueReference(method, [&](int32_t& ref) {
    if (ref >= 0 && static_cast<size_t>(ref) < mapping.size()) ref = mapping[static_cast<size_t>(ref)];
  });
  return mapping;
}

std::optional<InstructionPosition> positionOf(const Method& method, size_t flat) {
  size_t base = 0;
  const auto& chains = items(method.chains);
  for (size_t c = 0; c < chains.size(); ++c) {
    const size_t n = items(chains[c].instructions).size();
    if (flat < base + n) return InstructionPosition{static_cast<uint32_t>(c), static_cast<uint32_t>(flat - base)};
    base += n;
  }
  return std::nullopt;
}

void removeInstructions(Method& method, std::vector<size_t> flatIndices) {
  if (!method.chains) return;
  std::set<size_t> remove(flatIndices.begin(), flatIndices.end());
  size_t base = 0;
  for (auto& chain : *method.chains) {
    auto& instrs = ensure(chain.instructions);
    const size_t n = instrs.size();
    std::vector<bool> dropped(n, false);
    for (size_t i = 0; i < n; ++i) dropped[i] = remove.count(base + i) > 0;
    // removedBefore[i]: how many instructions before position i go away.
    std::vector<int32_t> removedBefore(n + 1, 0);
    for (size_t i = 0; i < n; ++i) removedBefore[i + 1] = removedBefore[i] + (dropped[i] ? 1 : 0);
    std::vector<Instruction> keptInstrs;
    std::vector<FrameList> keptFrames;
    const bool hasTrace = chain.stacktrace && chain.stacktrace->size() == n;
    for (size_t i = 0; i < n; ++i) {
      if (dropped[i]) continue;
      Instruction ins = std::move(instrs[i]);
      if (auto* jump = std::get_if<JumpFalseCall>(&ins.data)) {
        const auto d = static_cast<size_t>(std::clamp<int64_t>(jump->destination_instruction, 0, int64_t(n)));
        jump->destination_instruction -= removedBefore[d];
      }
      keptInstrs.push_back(std::move(ins));
      if (hasTrace) keptFrames.push_back(std::move((*chain.stacktrace)[i]));
    }
    instrs = std::move(keptInstrs);
    if (hasTrace) chain.stacktrace = std::move(keptFrames);
    base += n;
  }
}

void insertInstruction(Method& method, InstructionPosition position, Instruction instruction) {
  auto& chain = ensure(method.chains).at(position.chain);
  auto& instrs = ensure(chain.instructions);
  const size_t at = std::min<size_t>(position.index, instrs.size());
  const bool hasTrace = chain.stacktrace && chain.stacktrace->size() == instrs.size();
  for (auto& ins : instrs)
    if (auto* jump = std::get_if<JumpFalseCall>(&ins.data); jump && jump->destination_instruction >= int32_t(at))
      ++jump->destination_instruction;
  if (auto* jump = std::get_if<JumpFalseCall>(&instruction.data); jump && jump->destination_instruction > int32_t(at))
    ++jump->destination_instruction;
  instrs.insert(instrs.begin() + static_cast<std::ptrdiff_t>(at), std::move(instruction));
  if (hasTrace) chain.stacktrace->insert(chain.stacktrace->begin() + static_cast<std::ptrdiff_t>(at), FrameList{});
}

int32_t ensureOperator(Method& method, const std::string& name, const std::string& overload) {
  auto& ops = ensure(method.operators);
  for (size_t i = 0; i < ops.size(); ++i)
    if (ops[i].name.value_or("") == name && ops[i].overload.value_or("") == overload) return static_cast<int32_t>(i);
  ops.push_back(Operator{name, overload});
  return static_cast<int32_t>(ops.size() - 1);
}

void dropUnusedOperators(Method& method) {
  if (!method.operators || !method.chains) return;
  auto& ops = *method.operators;
  std::vector<bool> used(ops.size(), false);
  for (const auto& chain : items(method.chains))
    for (const auto& ins : items(chain.instructions))
      if (const auto* k = std::get_if<KernelCall>(&ins.data); k && k->op_index >= 0 && size_t(k->op_index) < ops.size())
        used[size_t(k->op_index)] = true;
  std::vector<int32_t> mapping(ops.size(), -1);
  std::vector<Operator> kept;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!used[i]) continue;
    mapping[i] = static_cast<int32_t>(kept.size());
    kept.push_back(std::move(ops[i]));
  }
  ops = std::move(kept);
  for (auto& chain : *method.chains)
    for (auto& ins : ensure(chain.instructions))
      if (auto* k = std::get_if<KernelCall>(&ins.data); k && k->op_index >= 0 && size_t(k->op_index) < mapping.size())
        k->op_index = mapping[size_t(k->op_index)];
}

int32_t appendValue(Method& method, Value value) {
  auto& values = ensure(method.values);
  values.push_back(std::move(value));
  return static_cast<int32_t>(values.size() - 1);
}

}  // namespace ptescope::passes
