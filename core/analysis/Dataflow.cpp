#include "analysis/Dataflow.h"

#include <algorithm>
#include <limits>
#include <map>
#include <string_view>
#include <utility>

#include "analysis/Summary.h"
#include "program/Operands.h"

namespace ptescope::analysis {
using namespace ptescope::program;

// How the reads and writes of an instruction are found.
//
// The file stores only argument lists; which arguments an instruction writes
// is in the operator schema, which a .pte does not carry. ExecuTorch's emitter
// is regular enough to recover it:
//
// KernelCall. Out-variant ops are emitted as args = the schema's inputs, then
// the `out` argument(s), then the return value(s), which are the same values
// as the outs: `aten::add.out` is [a, b, alpha, out, out], `et_copy::_h2d_copy.out`
// is [self, out, out]; a multi-output op ends in one TensorList of its outs
// (upstream's emitter; `native_layer_norm.out` is [..., out, mean, rstd,
// TensorList[out, mean, rstd]]), while older ptescope programs repeat the
// outs ([..., o1, o2, o1, o2], which the runtime refuses). The writes are
// found, first match wins, as
//   1. the return block: the shortest trailing block of tensor args that repeats
//      the block just before it ([..., o1, o2, o1, o2]: outs o1, o2);
//   2. a tuple return stored as one list: the last arg is a TensorList whose
//      members are the args just before it (etnp::lstm.out in lstm-custom-op.pte
//      is [..., out, hn, cn, TensorList[out, hn, cn]]);
//   3. an in-place return: the trailing run of tensor args that each repeat an
//      earlier arg ([self, indices, values, accumulate, self] for index_put_);
//      the earlier occurrence stays a read, since the kernel updates it;
// and then, going backwards from the first out found (or from the end when
// there is no return, as for ops returning ()), every Tensor or tensor list
// arg not defined before the instruction is an output too: scratch outs that
// are not returned (cortex_m::quantized_depthwise_conv2d.out writes a
// zero-size buffer before its out in keyword-spotting-cortex-m.pte) and the
// out lists of ops without a return. Schemas put out args last, so the scan
// stops at the first defined or non-tensor arg: an undefined tensor further
// left is an input with no writer (an elided static view, see
// ValueFacts::storage_alias_of), not an output.
// "Defined before" means a method input, a stored constant or mutable buffer,
// a non-tensor literal, or a value written by an earlier instruction; a tensor
// list is defined when all its tensor members are.
// The only ops that do not follow this shape are the runtime's primitives
// (see the table below): scalar ops that return their result as the last arg,
// and et_copy_index, which writes into its first arg.
// An out list writes its tensor members; a read list reads all its members.
//
// MoveCall reads move_from and writes move_to, JumpFalseCall reads its
// condition, FreeCall reads (and so ends the lifetime of) its value.
//
// DelegateCall: see splitDelegateArgs.
//
// Lifetimes follow instruction order and ignore jumps: a loop built from
// JumpFalseCall would need its values kept across the back edge, which no
// sample or program ptescope writes has.

namespace {

bool inRange(int64_t index, size_t count) { return index >= 0 && static_cast<uint64_t>(index) < count; }

bool isTensorList(ValueKind kind) { return kind == ValueKind::TensorList || kind == ValueKind::OptionalTensorList; }
bool isTensorLike(ValueKind kind) { return kind == ValueKind::Tensor || isTensorList(kind); }

// A planned tensor with stored initial bytes: a mutable buffer (spec
// pte-format §8, cases 1 and 3).
bool isMutableState(const Tensor& tensor) {
  return tensor.allocation_info && (tensor.data_buffer_idx > 0 || tensor.isExternal());
}

// Member value indices of a list value, in order, valid ones only (an
// OptionalTensorList's -1 stands for None and refers to no value).
std::vector<int32_t> listMembers(const Value& value, size_t valueCount) {
  std::vector<int32_t> members;
  auto take = [&](auto index) {
    if (inRange(index, valueCount)) members.push_back(static_cast<int32_t>(index));
  };
  if (const auto* list = std::get_if<TensorListValue>(&value.data)) {
    for (int32_t i : items(list->items)) take(i);
  } else if (const auto* optional = std::get_if<OptionalTensorListValue>(&value.data)) {
    for (int32_t i : items(optional->items)) take(i);
  } else if (const auto* ints = std::get_if<IntListValue>(&value.data)) {
    for (int64_t i : items(ints->items)) take(i);
  }
  return members;
}

void appendUnique(std::vector<int32_t>& list, int32_t value) {
  if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

// The runtime's primitive ops (executorch's register_prim_ops.cpp) are not
// out-variants: the scalar ones take their result as the last arg
// (aten::sym_size.int(self, dim) -> [self, dim, result]).
bool returnsScalarAsLastArg(std::string_view opName) {
  if (opName == "executorch_prim::et_copy_index" || opName == "executorch_prim::et_view") return false;
  return opName.starts_with("executorch_prim::") || opName == "aten::sym_size" || opName == "aten::sym_numel" ||
         opName == "aten::_local_scalar_dense";
}
// et_copy_index(copy_to, copy_from, index) -> () writes into copy_to.
bool writesFirstArgInPlace(std::string_view opName) { return opName == "executorch_prim::et_copy_index"; }

// Walks one method in instruction order, knowing at each point which values
// are defined.
class MethodWalker {
 public:
  explicit MethodWalker(const Method& method)
      : method_(method), values_(items(method.values)), defined_(values_.size(), false),
        lastMention_(lastMentions(method)) {
    for (size_t v = 0; v < values_.size(); ++v) {
      const Value& value = values_[v];
      if (const Tensor* tensor = value.tensor())
        defined_[v] = tensor->isConstant() || isMutableState(*tensor);
      else
        defined_[v] = !isTensorList(value.kind());  // literals; lists follow their members
    }
    for (int32_t v : items(method.inputs))
      if (inRange(v, values_.size())) defined_[static_cast<size_t>(v)] = true;
    for (size_t v = 0; v < values_.size(); ++v)
      if (defined_[v]) notePlace(v);
  }

  // The instruction about to be walked (its flat index).
  void setPosition(size_t flatIndex) { position_ = flatIndex; }

  bool isDefined(int32_t v) const {
    if (!inRange(v, values_.size())) return true;  // nothing to write; Validate reports it
    const Value& value = values_[static_cast<size_t>(v)];
    if (!isTensorList(value.kind())) return defined_[static_cast<size_t>(v)];
    // A member that is an elided view of a live value is defined (an out
    // list's members may all sit at places of dead values in other shapes,
    // so the shape alone does not count here).
    for (int32_t member : listMembers(value, values_.size()))
      if (values_[static_cast<size_t>(member)].kind() == ValueKind::Tensor && !defined_[static_cast<size_t>(member)] &&
          !looksLikeElidedView(member, /*reshapeCounts=*/false))
        return false;
    return true;
  }

  ValueKind kindOf(int32_t v) const {
    return inRange(v, values_.size()) ? values_[static_cast<size_t>(v)].kind() : ValueKind::None;
  }

  // Adds a read of `v` (and of its members when it is a list).
  void addRead(InstructionFacts& facts, int32_t v) const {
    if (!inRange(v, values_.size())) return;
    appendUnique(facts.inputs, v);
    for (int32_t member : listMembers(values_[static_cast<size_t>(v)], values_.size()))
      appendUnique(facts.inputs, member);
  }

  // Adds a write of `v` (and of its tensor members when it is a list).
  void addWrite(InstructionFacts& facts, int32_t v) const {
    if (!inRange(v, values_.size())) return;
    appendUnique(facts.outputs, v);
    const Value& value = values_[static_cast<size_t>(v)];
    if (!isTensorList(value.kind())) return;
    for (int32_t member : listMembers(value, values_.size()))
      if (values_[static_cast<size_t>(member)].kind() == ValueKind::Tensor) appendUnique(facts.outputs, member);
  }

  void kernelCall(InstructionFacts& facts, const KernelCall& call) const {
    const auto& args = items(call.args);
    const auto& operators = items(method_.operators);
    std::string opName;
    if (inRange(call.op_index, operators.size())) {
      const Operator& op = operators[static_cast<size_t>(call.op_index)];
      opName = op.name.value_or("");
      facts.label = op.qualifiedName();
      facts.is_h2d_copy = isH2dCopy(op);
      facts.is_d2h_copy = isD2hCopy(op);
    } else {
      facts.label = "operator #" + std::to_string(call.op_index) + " (out of range)";
    }

    const size_t n = args.size();
    std::vector<bool> reads(n, true);
    std::vector<bool> writes(n, false);
    auto markOut = [&](size_t position) {
      reads[position] = false;
      writes[position] = true;
    };

    if (n > 0 && returnsScalarAsLastArg(opName) && !isTensorLike(kindOf(args[n - 1]))) {
      markOut(n - 1);
    } else if (n > 0 && writesFirstArgInPlace(opName)) {
      writes[0] = true;
    } else {
      const size_t firstOut = findReturnedOuts(args, reads, writes);
      for (size_t position = firstOut; position > 0; --position) {
        const int32_t v = args[position - 1];
        if (!isTensorLike(kindOf(v)) || isDefined(v) || looksLikeElidedView(v, /*reshapeCounts=*/true)) break;
        markOut(position - 1);
      }
    }
    for (size_t i = 0; i < n; ++i)
      if (reads[i]) addRead(facts, args[i]);
    for (size_t i = 0; i < n; ++i)
      if (writes[i]) addWrite(facts, args[i]);
  }

  // Marks the out and return positions (rules 1-3 above) and returns the
  // position of the first out (args.size() when there is no return).
  size_t findReturnedOuts(const std::vector<int32_t>& args, std::vector<bool>& reads, std::vector<bool>& writes) const {
    const size_t n = args.size();
    auto tensorLikeAt = [&](size_t i) { return isTensorLike(kindOf(args[i])); };
    auto markOut = [&](size_t from, size_t to) {
      for (size_t i = from; i < to; ++i) {
        reads[i] = false;
        writes[i] = true;
      }
    };

    // 1. [..., outs, outs]: the shortest repeated trailing block.
    for (size_t m = 1; 2 * m <= n; ++m) {
      bool repeats = true;
      for (size_t j = 0; j < m && repeats; ++j)
        repeats = tensorLikeAt(n - m + j) && args[n - m + j] == args[n - 2 * m + j];
      if (repeats) {
        markOut(n - 2 * m, n);
        return n - 2 * m;
      }
    }

    // 2. [..., o1, o2, TensorList[o1, o2]].
    if (n > 0 && isTensorList(kindOf(args[n - 1]))) {
      const auto members = listMembers(values_[static_cast<size_t>(args[n - 1])], values_.size());
      if (!members.empty() && members.size() < n &&
          std::equal(members.begin(), members.end(), args.end() - 1 - static_cast<std::ptrdiff_t>(members.size()))) {
        markOut(n - 1 - members.size(), n);
        return n - 1 - members.size();
      }
    }

    // 3. [self, ..., self]: returns that repeat earlier args. The run can only
    // shrink as it grows (its prefix shrinks), so stop at the first failure.
    size_t run = 0;
    while (run < n) {
      const size_t start = n - run - 1;
      if (!tensorLikeAt(start)) break;
      bool allRepeatEarlier = true;
      for (size_t i = start; i < n && allRepeatEarlier; ++i)
        allRepeatEarlier = std::find(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(start), args[i]) !=
                           args.begin() + static_cast<std::ptrdiff_t>(start);
      if (!allRepeatEarlier) break;
      ++run;
    }
    if (run > 0) {
      markOut(n - run, n);  // the earlier occurrences stay reads: in-place update
      return n - run;
    }
    return n;
  }

  void delegateCall(InstructionFacts& facts, const DelegateCall& call) const {
    const auto& delegates = items(method_.delegates);
    if (inRange(call.delegate_index, delegates.size())) {
      const auto& id = delegates[static_cast<size_t>(call.delegate_index)].id;
      facts.label = "delegate " + (id ? *id : std::string("<no id>"));
    } else {
      facts.label = "delegate #" + std::to_string(call.delegate_index) + " (out of range)";
    }
    // Lists among the args are never outputs; their definedness is their
    // members', which splitDelegateArgs does not need to know.
    const DelegateArgSplit split = splitDelegateArgs(method_, items(call.args), [&](int32_t v) {
      return (inRange(v, values_.size()) && defined_[static_cast<size_t>(v)]) ||
             looksLikeElidedView(v, /*reshapeCounts=*/false);
    });
    for (int32_t v : split.inputs) addRead(facts, v);
    for (int32_t v : split.outputs) addWrite(facts, v);
  }

  void markWritten(const InstructionFacts& facts) {
    for (int32_t v : facts.outputs) {
      defined_[static_cast<size_t>(v)] = true;
      notePlace(static_cast<size_t>(v));
    }
  }

 private:
  using Place = std::pair<uint32_t, uint64_t>;

  // The last instruction (flat index) naming each value, directly or as a
  // list member; method outputs are named after the last one.
  static std::vector<int64_t> lastMentions(const Method& method) {
    const auto& values = items(method.values);
    std::vector<int64_t> last(values.size(), -1);
    int64_t at = 0;
    auto mention = [&](int64_t v) {
      if (!inRange(v, values.size())) return;
      last[static_cast<size_t>(v)] = at;
      for (int32_t member : listMembers(values[static_cast<size_t>(v)], values.size()))
        last[static_cast<size_t>(member)] = at;
    };
    for (const auto& chain : items(method.chains))
      for (const auto& instruction : items(chain.instructions)) {
        forEachOperand(instruction.data, mention);
        ++at;
      }
    for (int32_t v : items(method.outputs))
      if (inRange(v, values.size())) last[static_cast<size_t>(v)] = std::numeric_limits<int64_t>::max();
    return last;
  }

  void notePlace(size_t v) {
    const Tensor* tensor = values_[v].tensor();
    if (tensor && tensor->allocation_info && !tensor->isConstant())
      latestAt_[{tensor->allocation_info->memory_id, tensor->allocation_info->offset()}] = static_cast<int32_t>(v);
  }

  // An undefined tensor that upstream's emitter left as an elided static view
  // (ValueFacts::storage_alias_of) rather than an out the instruction writes:
  // it sits at the place of the value defined there last, with its dtype and
  // byte size (upstream's _ViewSpec requires both), and that value is still
  // named by this or a later instruction (a fresh out cannot take the place of
  // a live value). With `reshapeCounts`, another shape than the value's is
  // enough too: used for the unreturned scratch outs before a kernel's outs,
  // which only some kernels have, not for a delegate's outputs, which often
  // reuse the place of a dead value of the same size in another shape.
  bool looksLikeElidedView(int32_t v, bool reshapeCounts) const {
    if (!inRange(v, values_.size()) || defined_[static_cast<size_t>(v)]) return false;
    const Tensor* view = values_[static_cast<size_t>(v)].tensor();
    if (view == nullptr || !view->allocation_info || view->isConstant()) return false;
    const auto found = latestAt_.find({view->allocation_info->memory_id, view->allocation_info->offset()});
    if (found == latestAt_.end() || found->second == v) return false;
    const Tensor& base = *values_[static_cast<size_t>(found->second)].tensor();
    const int64_t bytes = view->nbytes();
    if (view->scalar_type != base.scalar_type || bytes < 0 || bytes != base.nbytes()) return false;
    const bool baseLive = lastMention_[static_cast<size_t>(found->second)] >= static_cast<int64_t>(position_);
    return baseLive || (reshapeCounts && items(view->sizes) != items(base.sizes));
  }

  const Method& method_;
  const std::vector<Value>& values_;
  std::vector<bool> defined_;
  std::vector<int64_t> lastMention_;
  std::map<Place, int32_t> latestAt_;  // place -> the value defined there last
  size_t position_ = 0;
};

void pushUnique(std::vector<size_t>& ascending, size_t instruction) {
  if (ascending.empty() || ascending.back() != instruction) ascending.push_back(instruction);
}

}  // namespace

// DelegateCall.args are the delegate's inputs followed by its outputs
// (flattened); the file does not record where one ends (device-semantics §2.2,
// open question 1). Rule: the outputs are the longest trailing run of Tensor
// args that are not defined before the call (not a method input, not a stored
// constant or mutable buffer, not written by an earlier instruction);
// everything before that run is input. Non-tensor args (Int, lists, ...) are
// always inputs and end the run. Value ids cannot be used instead, because
// the emitter may give scalar inputs higher ids than the outputs.
// The rule is exact for programs ptescope writes (inputs are always defined
// before the call, outputs never are) and for every delegate in the samples.
// It would misplace an output the delegate writes into an already defined
// tensor (a mutable buffer or an input updated in place: counted as input),
// and an input that nothing defines (counted as output when it is last).
DelegateArgSplit splitDelegateArgs(const Method& method, const std::vector<int32_t>& args,
                                   const std::vector<bool>& definedBefore) {
  return splitDelegateArgs(method, args, [&](int32_t v) {
    return v >= 0 && static_cast<size_t>(v) < definedBefore.size() && definedBefore[static_cast<size_t>(v)];
  });
}

DelegateArgSplit splitDelegateArgs(const Method& method, const std::vector<int32_t>& args,
                                   const std::function<bool(int32_t)>& definedBefore) {
  const auto& values = items(method.values);
  auto isUndefinedTensor = [&](int32_t v) {
    if (!inRange(v, values.size())) return false;
    return values[static_cast<size_t>(v)].kind() == ValueKind::Tensor && !definedBefore(v);
  };
  size_t firstOutput = args.size();
  while (firstOutput > 0 && isUndefinedTensor(args[firstOutput - 1])) --firstOutput;
  DelegateArgSplit split;
  split.inputs.assign(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(firstOutput));
  split.outputs.assign(args.begin() + static_cast<std::ptrdiff_t>(firstOutput), args.end());
  return split;
}

std::vector<size_t> nonCopyInstructions(const Dataflow& flow) {
  std::vector<size_t> list;
  for (const auto& facts : flow.instructions())
    if (!facts.is_h2d_copy && !facts.is_d2h_copy) list.push_back(facts.flat_index);
  return list;
}

std::optional<size_t> Dataflow::flatIndex(uint32_t chain, uint32_t indexInChain) const {
  if (chain + 1 >= chain_starts_.size()) return std::nullopt;
  const size_t flat = chain_starts_[chain] + indexInChain;
  if (flat >= chain_starts_[chain + 1]) return std::nullopt;
  return flat;
}

namespace {

// Every instruction's reads and writes, in flat order; each value's readers
// and writers.
void walkInstructions(const Method& method, std::vector<InstructionFacts>& flat, std::vector<size_t>& chainStarts,
                      std::vector<ValueFacts>& valueFacts) {
  MethodWalker walker(method);
  const auto& chains = items(method.chains);
  for (size_t c = 0; c < chains.size(); ++c) {
    chainStarts.push_back(flat.size());
    const auto& instructions = items(chains[c].instructions);
    for (size_t i = 0; i < instructions.size(); ++i) {
      InstructionFacts facts;
      facts.flat_index = flat.size();
      facts.chain = static_cast<uint32_t>(c);
      facts.index_in_chain = static_cast<uint32_t>(i);
      facts.kind = instructions[i].kind();
      walker.setPosition(facts.flat_index);
      const auto& data = instructions[i].data;
      if (const auto* kernel = std::get_if<KernelCall>(&data)) {
        facts.op_index = kernel->op_index;
        walker.kernelCall(facts, *kernel);
      } else if (const auto* delegate = std::get_if<DelegateCall>(&data)) {
        facts.delegate_index = delegate->delegate_index;
        walker.delegateCall(facts, *delegate);
      } else if (const auto* move = std::get_if<MoveCall>(&data)) {
        facts.label = "move";
        walker.addRead(facts, move->move_from);
        walker.addWrite(facts, move->move_to);
      } else if (const auto* jump = std::get_if<JumpFalseCall>(&data)) {
        facts.label = "jump_false";
        walker.addRead(facts, jump->cond_value_index);
      } else if (const auto* free = std::get_if<FreeCall>(&data)) {
        facts.label = "free";
        walker.addRead(facts, free->value_index);
      } else {
        facts.label = "none";
      }
      walker.markWritten(facts);
      for (int32_t v : facts.inputs) pushUnique(valueFacts[static_cast<size_t>(v)].consumers, facts.flat_index);
      for (int32_t v : facts.outputs) pushUnique(valueFacts[static_cast<size_t>(v)].writers, facts.flat_index);
      flat.push_back(std::move(facts));
    }
  }
  chainStarts.push_back(flat.size());
}

// Each value's origin and lifetime over the `count` instructions.
void classifyValues(const Method& method, size_t count, std::vector<ValueFacts>& valueFacts) {
  const auto& values = items(method.values);
  for (int32_t v : items(method.inputs))
    if (inRange(v, values.size())) valueFacts[static_cast<size_t>(v)].is_method_input = true;
  for (int32_t v : items(method.outputs))
    if (inRange(v, values.size())) valueFacts[static_cast<size_t>(v)].is_method_output = true;

  for (size_t v = 0; v < values.size(); ++v) {
    ValueFacts& facts = valueFacts[v];
    const Tensor* tensor = values[v].tensor();
    facts.is_mutable_state = tensor && isMutableState(*tensor);
    if (!facts.writers.empty()) facts.producer = facts.writers.front();
    const bool touched = !facts.consumers.empty() || !facts.writers.empty();
    if (!touched && !facts.is_method_input && !facts.is_method_output) continue;  // Unused, no lifetime

    if (facts.is_method_input)
      facts.origin = ValueOrigin::MethodInput;
    else if (tensor && (tensor->isConstant() || facts.is_mutable_state))
      facts.origin = ValueOrigin::Constant;
    else if (facts.producer)
      facts.origin = ValueOrigin::Instruction;
    else
      facts.origin = tensor ? ValueOrigin::Undefined : ValueOrigin::Constant;  // non-tensors are literals

    size_t firstTouch = 0;
    size_t lastTouch = 0;
    if (touched) {
      firstTouch = std::min(facts.consumers.empty() ? count : facts.consumers.front(),
                            facts.writers.empty() ? count : facts.writers.front());
      lastTouch = std::max(facts.consumers.empty() ? 0 : facts.consumers.back(),
                           facts.writers.empty() ? 0 : facts.writers.back());
    }
    const bool liveFromStart = facts.is_method_input || facts.is_mutable_state || !touched;
    const bool liveToEnd = facts.is_method_output || facts.is_mutable_state;
    facts.lifetime = std::make_pair(liveFromStart ? size_t{0} : firstTouch, liveToEnd ? count : lastTouch);
  }
}

// Elided views: an Undefined planned tensor over the storage of a value
// defined before its first read reads that value's data. A view covers its
// base's bytes or fewer; a larger tensor at the same address is not a view of
// it (a planner that gave it the base's place would run past the base).
void resolveStorageAliases(const Method& method, size_t count, std::vector<ValueFacts>& valueFacts) {
  const auto& values = items(method.values);
  std::map<std::pair<uint32_t, uint64_t>, std::vector<int32_t>> definedAtAddress;
  auto addressOf = [&](size_t v) {
    const auto& allocation = *values[v].tensor()->allocation_info;
    return std::make_pair(allocation.memory_id, allocation.offset());
  };
  for (size_t v = 0; v < values.size(); ++v) {
    const Tensor* tensor = values[v].tensor();
    const ValueOrigin origin = valueFacts[v].origin;
    if (tensor && tensor->allocation_info && origin != ValueOrigin::Undefined && origin != ValueOrigin::Unused)
      definedAtAddress[addressOf(v)].push_back(static_cast<int32_t>(v));
  }
  for (size_t v = 0; v < values.size(); ++v) {
    ValueFacts& alias = valueFacts[v];
    const Tensor* tensor = values[v].tensor();
    if (alias.origin != ValueOrigin::Undefined || !tensor || !tensor->allocation_info) continue;
    const auto found = definedAtAddress.find(addressOf(v));
    if (found == definedAtAddress.end()) continue;
    const size_t firstRead = alias.consumers.empty() ? count : alias.consumers.front();
    // The latest definition before the read is what the storage holds then;
    // inputs and mutable state count as defined before instruction 0.
    std::optional<int32_t> base;
    int64_t baseDefinedAt = -2;
    for (int32_t candidate : found->second) {
      const ValueFacts& c = valueFacts[static_cast<size_t>(candidate)];
      const int64_t definedAt = (c.is_method_input || c.is_mutable_state || !c.producer)
                                    ? -1
                                    : static_cast<int64_t>(*c.producer);
      if (definedAt < static_cast<int64_t>(firstRead) && definedAt > baseDefinedAt) {
        base = candidate;
        baseDefinedAt = definedAt;
      }
    }
    if (!base) continue;
    const int64_t aliasBytes = tensor->nbytes(), baseBytes = values[static_cast<size_t>(*base)].tensor()->nbytes();
    if (aliasBytes < 0 || baseBytes < 0 || aliasBytes > baseBytes) continue;
    alias.storage_alias_of = base;
    auto& baseLifetime = valueFacts[static_cast<size_t>(*base)].lifetime;
    if (baseLifetime && alias.lifetime) baseLifetime->second = std::max(baseLifetime->second, alias.lifetime->second);
  }
}

}  // namespace

Dataflow Dataflow::build(const Method& method) {
  Dataflow flow;
  flow.values_.resize(items(method.values).size());
  walkInstructions(method, flow.instructions_, flow.chain_starts_, flow.values_);
  classifyValues(method, flow.instructions_.size(), flow.values_);
  resolveStorageAliases(method, flow.instructions_.size(), flow.values_);
  return flow;
}

}  // namespace ptescope::analysis
