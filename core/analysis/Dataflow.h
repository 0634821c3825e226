// Def/use facts for one method: which instruction produces and which consume
// each value, and each value's lifetime in instruction order. The passes, the
// executor, the layout and the UI all read the program through this.
//
// Instructions are numbered by their flat position over all chains, chain 0
// first ("instruction order").
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "program/Program.h"

namespace ptescope::analysis {

struct InstructionFacts {
  size_t flat_index = 0;
  uint32_t chain = 0;
  uint32_t index_in_chain = 0;
  program::InstructionKind kind = program::InstructionKind::None;
  // Values read and written, in argument order, each listed once. A list
  // argument (TensorList, OptionalTensorList, IntList) contributes the list
  // value and its member values (an OptionalTensorList's -1 "None" entries
  // are skipped). A value can be in both lists when an instruction reads and
  // writes it (an in-place kernel, a mutable buffer's write-back).
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  // "aten::add.out", "delegate XnnpackBackend", "move", "jump_false", "free".
  std::string label;
  int32_t op_index = -1;        // KernelCall
  int32_t delegate_index = -1;  // DelegateCall
  bool is_h2d_copy = false;
  bool is_d2h_copy = false;
};

enum class ValueOrigin {
  Unused,        // referenced by nothing and produced by nothing
  MethodInput,   // listed in the method's inputs
  Constant,      // a stored constant tensor or a non-tensor literal; also a mutable
                 // buffer (stored initial state) and a list no instruction writes
  Instruction,   // written by an instruction
  Undefined,     // read but never written (run-time supplied, not an input)
};

struct ValueFacts {
  ValueOrigin origin = ValueOrigin::Unused;
  std::optional<size_t> producer;  // first instruction that writes it
  std::vector<size_t> consumers;   // instructions that read it, ascending, unique
  std::vector<size_t> writers;     // instructions that write it, ascending, unique
  bool is_method_input = false;
  bool is_method_output = false;
  // A planned tensor with stored initial data (a mutable buffer such as a KV
  // cache): it holds state from before the first instruction to after the
  // last, so its lifetime is the whole method.
  bool is_mutable_state = false;
  // For a tensor that is read but never written (origin Undefined) and that
  // is planned at the same (memory_id, offset) as a value defined before its
  // first read: that value. Upstream elides static views (reshape) this way:
  // no instruction, only a second tensor over the base's storage (see
  // keyword-spotting-cortex-m.pte, value 271 over 257). The base's lifetime
  // is extended to cover the alias's reads.
  std::optional<int32_t> storage_alias_of;
  // Inclusive range of instruction positions during which the value must
  // hold its data: method inputs from 0, method outputs until
  // instruction_count (one past the last instruction), mutable state for the
  // whole method, every other value from its producer (or first reader) to
  // its last reader (or its producer when nothing reads it). Absent for
  // values that no instruction touches and that are neither input nor output.
  std::optional<std::pair<size_t, size_t>> lifetime;
};

class Dataflow {
 public:
  static Dataflow build(const program::Method& method);

  const std::vector<InstructionFacts>& instructions() const { return instructions_; }
  const std::vector<ValueFacts>& values() const { return values_; }
  const ValueFacts& value(int32_t index) const { return values_.at(static_cast<size_t>(index)); }
  size_t instructionCount() const { return instructions_.size(); }
  // Where the instruction at `chain`/`indexInChain` sits in instruction
  // order; empty when out of range.
  std::optional<size_t> flatIndex(uint32_t chain, uint32_t indexInChain) const;

 private:
  std::vector<InstructionFacts> instructions_;
  std::vector<ValueFacts> values_;
  std::vector<size_t> chain_starts_;  // flat index of each chain's first instruction
};

// The flat indices of the instructions that are not et_copy calls,
// ascending. The device passes only add and remove copies, so the k-th of
// them is the same instruction in every edit of one loaded program.
std::vector<size_t> nonCopyInstructions(const Dataflow& flow);

// The split of a DelegateCall's args into inputs and outputs, which the file
// does not record: the outputs are the longest trailing run of Tensor args
// not defined before the call, everything before them is input. See the full
// rule in Dataflow.cpp (and README's "Delegate arguments" note).
// `definedBefore[v]` tells whether value v is defined (method input,
// constant/literal, or written by an earlier instruction) at the call.
struct DelegateArgSplit {
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
};
// Out-of-range args count as inputs (Validate reports them).
DelegateArgSplit splitDelegateArgs(const program::Method& method, const std::vector<int32_t>& args,
                                   const std::vector<bool>& definedBefore);
// The same with definedness as a predicate (Dataflow counts an elided static
// view of a defined value as defined: it is an input).
DelegateArgSplit splitDelegateArgs(const program::Method& method, const std::vector<int32_t>& args,
                                   const std::function<bool(int32_t)>& definedBefore);

}  // namespace ptescope::analysis
