#include "program/Validate.h"

#include <algorithm>

namespace ptescope::program {
namespace {

class Checker {
 public:
  explicit Checker(const Program& program) : program_(program) {}

  std::vector<std::string> run() {
    if (!program_.execution_plan) problems_.push_back("the program has no execution_plan");
    const auto& methods = program_.methods();
    for (size_t m = 0; m < methods.size(); ++m) checkMethod(methods[m], m);
    checkProgramTables();
    return std::move(problems_);
  }

 private:
  void add(std::string text) { problems_.push_back(std::move(text)); }

  std::string where(const Method& method, size_t m) const {
    return "method " + std::to_string(m) + " ('" + method.displayName() + "')";
  }

  void checkProgramTables() {
    const size_t segmentCount = items(program_.segments).size();
    if (program_.constant_segment && items(program_.constant_segment->offsets).size() > 1 &&
        program_.constant_segment->segment_index >= segmentCount)
      add("constant_segment.segment_index " + std::to_string(program_.constant_segment->segment_index) +
          " is out of range (" + std::to_string(segmentCount) + " segments)");
    const auto& mutables = items(program_.mutable_data_segments);
    for (size_t i = 0; i < mutables.size(); ++i)
      if (items(mutables[i].offsets).size() > 1 && mutables[i].segment_index >= segmentCount)
        add("mutable_data_segments[" + std::to_string(i) + "].segment_index " +
            std::to_string(mutables[i].segment_index) + " is out of range (" + std::to_string(segmentCount) +
            " segments)");
    const auto& named = items(program_.named_data);
    if (!named.empty() && !program_.segments) add("named_data is present but the program has no segments");
    for (size_t i = 0; i < named.size(); ++i) {
      if (!named[i].key) add("named_data[" + std::to_string(i) + "] has no key");
      if (named[i].segment_index >= segmentCount)
        add("named_data[" + std::to_string(i) + "] ('" + named[i].key.value_or("") + "') segment_index " +
            std::to_string(named[i].segment_index) + " is out of range (" + std::to_string(segmentCount) +
            " segments)");
    }
  }

  void checkValueIndex(int64_t index, size_t count, const std::string& what) {
    if (index < 0 || static_cast<uint64_t>(index) >= count)
      add(what + " refers to value " + std::to_string(index) + ", out of range (" + std::to_string(count) +
          " values)");
  }

  void checkMethod(const Method& method, size_t m) {
    const std::string at = where(method, m);
    if (!method.name) add(at + " has no name");
    if (!method.values) add(at + " has no values");
    if (!method.inputs) add(at + " has no inputs list");
    if (!method.outputs) add(at + " has no outputs list");
    if (!method.chains || method.chains->empty()) add(at + " has no chains");
    if (!method.delegates) add(at + " has no delegates list");
    if (!method.non_const_buffer_sizes) add(at + " has no non_const_buffer_sizes");
    const auto& values = items(method.values);
    const size_t n = values.size();
    for (size_t i = 0; i < items(method.inputs).size(); ++i)
      checkValueIndex((*method.inputs)[i], n, at + ": input " + std::to_string(i));
    for (size_t i = 0; i < items(method.outputs).size(); ++i)
      checkValueIndex((*method.outputs)[i], n, at + ": output " + std::to_string(i));

    const auto& sizes = items(method.non_const_buffer_sizes);
    for (size_t i = 0; i < sizes.size(); ++i)
      if (sizes[i] < 0) add(at + ": non_const_buffer_sizes[" + std::to_string(i) + "] is negative");
    for (const auto& entry : items(method.non_const_buffer_device))
      if (entry.buffer_idx < 1 || static_cast<size_t>(entry.buffer_idx) >= std::max<size_t>(sizes.size(), 1))
        add(at + ": non_const_buffer_device names buffer " + std::to_string(entry.buffer_idx) +
            ", out of range (planned buffers are 1.." + std::to_string(sizes.empty() ? 0 : sizes.size() - 1) + ")");

    for (size_t v = 0; v < n; ++v) checkValue(method, values[v], v, at);

    const size_t operatorCount = items(method.operators).size();
    const auto& delegates = items(method.delegates);
    for (size_t d = 0; d < delegates.size(); ++d) checkDelegate(delegates[d], at + ": delegate " + std::to_string(d));
    const auto& chains = items(method.chains);
    for (size_t c = 0; c < chains.size(); ++c) {
      const auto& chain = chains[c];
      if (!chain.instructions) add(at + ": chain " + std::to_string(c) + " has no instructions list");
      const auto& instructions = items(chain.instructions);
      for (size_t i = 0; i < instructions.size(); ++i) {
        const std::string ia = at + ": instruction " + std::to_string(i) + (chains.size() > 1 ? " of chain " + std::to_string(c) : "") +
                               " (" + instructionKindName(instructions[i].kind()) + ")";
        std::visit(
            [&](const auto& ins) {
              using T = std::decay_t<decltype(ins)>;
              if constexpr (std::is_same_v<T, NoInstruction>) {
                add(ia + " has no arguments");
              } else if constexpr (std::is_same_v<T, KernelCall>) {
                if (ins.op_index < 0 || static_cast<size_t>(ins.op_index) >= operatorCount)
                  add(ia + ": op_index " + std::to_string(ins.op_index) + " is out of range (" +
                      std::to_string(operatorCount) + " operators)");
                if (!ins.args) add(ia + " has no args");
                for (int32_t a : items(ins.args)) checkValueIndex(a, n, ia + ": an argument");
              } else if constexpr (std::is_same_v<T, DelegateCall>) {
                if (ins.delegate_index < 0 || static_cast<size_t>(ins.delegate_index) >= delegates.size())
                  add(ia + ": delegate_index " + std::to_string(ins.delegate_index) + " is out of range (" +
                      std::to_string(delegates.size()) + " delegates)");
                if (!ins.args) add(ia + " has no args");
                for (int32_t a : items(ins.args)) checkValueIndex(a, n, ia + ": an argument");
              } else if constexpr (std::is_same_v<T, MoveCall>) {
                checkValueIndex(ins.move_from, n, ia + ": move_from");
                checkValueIndex(ins.move_to, n, ia + ": move_to");
              } else if constexpr (std::is_same_v<T, JumpFalseCall>) {
                checkValueIndex(ins.cond_value_index, n, ia + ": cond_value_index");
                if (ins.destination_instruction < 0 ||
                    static_cast<size_t>(ins.destination_instruction) > instructions.size())
                  add(ia + ": destination_instruction " + std::to_string(ins.destination_instruction) +
                      " is out of range (" + std::to_string(instructions.size()) + " instructions)");
              } else if constexpr (std::is_same_v<T, FreeCall>) {
                checkValueIndex(ins.value_index, n, ia + ": value_index");
              }
            },
            instructions[i].data);
      }
    }
  }

  void checkDelegate(const BackendDelegate& delegate, const std::string& at) {
    if (!delegate.id) add(at + " has no backend id");
    if (!delegate.processed) {
      add(at + " has no processed data reference");
      return;
    }
    const auto& ref = *delegate.processed;
    if (ref.location == DelegateDataLocation::Inline) {
      size_t count = items(program_.backend_delegate_data).size();
      if (ref.index >= count)
        add(at + " ('" + delegate.id.value_or("") + "'): inline data index " + std::to_string(ref.index) +
            " is out of range (" + std::to_string(count) + " inline blobs)");
    } else if (ref.location == DelegateDataLocation::Segment) {
      size_t count = items(program_.segments).size();
      if (ref.index >= count)
        add(at + " ('" + delegate.id.value_or("") + "'): segment index " + std::to_string(ref.index) +
            " is out of range (" + std::to_string(count) + " segments)");
    } else {
      add(at + ": unknown data location " + std::to_string(static_cast<int>(ref.location)));
    }
    for (const auto& spec : items(delegate.compile_specs))
      if (!spec.key) add(at + " has a compile spec without a key");
  }

  void checkValue(const Method& method, const Value& value, size_t v, const std::string& at) {
    const auto& values = items(method.values);
    const size_t n = values.size();
    const std::string va = at + ": value " + std::to_string(v);
    if (value.kind() == ValueKind::None) add(va + " has no type");
    // Every item of a list names a value of the kind the list holds.
    auto checkItems = [&](const auto& list, ValueKind kind, const char* listName, const char* kindText) {
      for (int64_t item : items(list))
        if (item < 0 || static_cast<uint64_t>(item) >= n)
          checkValueIndex(item, n, va + " (" + listName + ")");
        else if (values[static_cast<size_t>(item)].kind() != kind)
          add(va + " (" + listName + ") item " + std::to_string(item) + " is a " +
              valueKindName(values[static_cast<size_t>(item)].kind()) + ", not " + kindText);
    };
    if (const auto* list = std::get_if<IntListValue>(&value.data)) {
      checkItems(list->items, ValueKind::Int, "IntList", "an Int");
    } else if (const auto* tl = std::get_if<TensorListValue>(&value.data)) {
      checkItems(tl->items, ValueKind::Tensor, "TensorList", "a Tensor");
    } else if (const auto* otl = std::get_if<OptionalTensorListValue>(&value.data)) {
      for (int32_t item : items(otl->items))
        if (item != -1) checkValueIndex(item, n, va + " (OptionalTensorList)");
    } else if (const auto* tensor = std::get_if<Tensor>(&value.data)) {
      checkTensor(method, *tensor, va + " (Tensor)");
    }
  }

  void checkTensor(const Method& method, const Tensor& tensor, const std::string& at) {
    if (!isValidScalarType(static_cast<int>(tensor.scalar_type)))
      add(at + ": invalid scalar type " + std::to_string(static_cast<int>(tensor.scalar_type)));
    if (!tensor.sizes) add(at + " has no sizes");
    if (!tensor.dim_order) add(at + " has no dim_order");
    for (int32_t s : items(tensor.sizes))
      if (s < 0) add(at + ": negative size " + std::to_string(s));
    if (tensor.sizes && tensor.dim_order && tensor.sizes->size() != tensor.dim_order->size())
      add(at + ": dim_order has " + std::to_string(tensor.dim_order->size()) + " entries for " +
          std::to_string(tensor.sizes->size()) + " dimensions");
    if (tensor.allocation_info) {
      const auto& sizes = items(method.non_const_buffer_sizes);
      uint32_t id = tensor.allocation_info->memory_id;
      if (id < 1 || id >= sizes.size()) {
        add(at + ": memory_id " + std::to_string(id) + " is out of range (planned buffers are 1.." +
            std::to_string(sizes.empty() ? 0 : sizes.size() - 1) + ")");
      } else {
        int64_t nbytes = tensor.nbytes();
        uint64_t offset = tensor.allocation_info->offset();
        if (nbytes >= 0 && (offset > static_cast<uint64_t>(sizes[id]) ||
                            static_cast<uint64_t>(nbytes) > static_cast<uint64_t>(sizes[id]) - offset))
          add(at + ": " + std::to_string(nbytes) + " bytes at offset " + std::to_string(offset) +
              " run past planned buffer " + std::to_string(id) + " (" + std::to_string(sizes[id]) + " bytes)");
      }
    }
    if (tensor.isConstant() && !tensor.isExternal()) {
      TensorDataSource source = tensorData(program_, tensor);
      if (source.kind == TensorDataSource::Kind::Missing) add(at + ": " + source.detail);
    }
  }

  const Program& program_;
  std::vector<std::string> problems_;
};

}  // namespace

std::vector<std::string> validateProgram(const Program& program) { return Checker(program).run(); }

}  // namespace ptescope::program
