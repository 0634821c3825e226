// The editable in-memory model of an ExecuTorch program.
//
// It mirrors the serialized schema one to one, independent of the generated
// flatbuffer classes, so that a program read and written back unchanged is
// the same program. Fields that a file may omit are std::optional, because
// "absent" and "empty" print differently and upstream tools write both.
// Large byte ranges are Bytes that reference the mapped input file.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "program/Types.h"
#include "util/Bytes.h"

namespace ptescope::program {

template <class T>
using Opt = std::optional<T>;

// Reads an optional list as a (possibly empty) list.
template <class T>
const std::vector<T>& items(const Opt<std::vector<T>>& list) {
  static const std::vector<T> kEmpty;
  return list ? *list : kEmpty;
}
// Makes an optional list present (empty if it was absent) and returns it.
template <class T>
std::vector<T>& ensure(Opt<std::vector<T>>& list) {
  if (!list) list.emplace();
  return *list;
}

struct AllocationInfo {
  uint32_t memory_id = 0;  // 1-based planned buffer index
  uint32_t memory_offset_low = 0;
  uint32_t memory_offset_high = 0;

  uint64_t offset() const { return uint64_t(memory_offset_low) | (uint64_t(memory_offset_high) << 32); }
  void setOffset(uint64_t offset) {
    memory_offset_low = static_cast<uint32_t>(offset & 0xffffffffu);
    memory_offset_high = static_cast<uint32_t>(offset >> 32);
  }
};

struct ExtraTensorInfo {
  uint64_t mutable_data_segments_idx = 0;
  Opt<std::string> fully_qualified_name;
  TensorDataLocation location = TensorDataLocation::Segment;
  DeviceType device_type = DeviceType::Cpu;
  int8_t device_index = 0;
};

struct Tensor {
  ScalarType scalar_type = ScalarType::Byte;
  int32_t storage_offset = 0;
  Opt<std::vector<int32_t>> sizes;
  Opt<std::vector<uint8_t>> dim_order;
  bool requires_grad = false;
  uint32_t data_buffer_idx = 0;
  Opt<AllocationInfo> allocation_info;
  int8_t layout = 0;
  ShapeDynamism shape_dynamism = ShapeDynamism::Static;
  Opt<ExtraTensorInfo> extra_tensor_info;

  Device device() const;
  // Sets the device the way upstream's emitter does: CPU clears the fields to
  // their defaults, anything else creates ExtraTensorInfo when needed.
  void setDevice(Device device);
  bool isExternal() const {
    return extra_tensor_info && extra_tensor_info->location == TensorDataLocation::External;
  }
  // Stored constant: data in the program (or .ptd), not memory-planned.
  bool isConstant() const { return !allocation_info && (data_buffer_idx > 0 || isExternal()); }
  bool isPlanned() const { return allocation_info.has_value(); }
  // Number of elements; -1 when a size is negative or the product overflows.
  int64_t numel() const;
  // numel × element size; -1 when unknown.
  int64_t nbytes() const;
};

// The EValue union. Kinds are numbered as the schema's union tags.
enum class ValueKind : uint8_t {
  None = 0, Null = 1, Int = 2, Bool = 3, Double = 4, Tensor = 5, String = 6,
  IntList = 7, DoubleList = 8, BoolList = 9, TensorList = 10, OptionalTensorList = 11,
};
std::string valueKindName(ValueKind kind);

struct NoneValue {};
struct NullValue {};
struct IntValue { int64_t value = 0; };
struct BoolValue { bool value = false; };
struct DoubleValue { double value = 0; };
struct StringValue { Opt<std::string> value; };
// IntList, TensorList and OptionalTensorList items are indices into values.
struct IntListValue { Opt<std::vector<int64_t>> items; };
struct DoubleListValue { Opt<std::vector<double>> items; };
struct BoolListValue { Opt<std::vector<uint8_t>> items; };
struct TensorListValue { Opt<std::vector<int32_t>> items; };
struct OptionalTensorListValue { Opt<std::vector<int32_t>> items; };

using ValueData = std::variant<NoneValue, NullValue, IntValue, BoolValue, DoubleValue, Tensor, StringValue,
                               IntListValue, DoubleListValue, BoolListValue, TensorListValue,
                               OptionalTensorListValue>;

struct Value {
  ValueData data;

  ValueKind kind() const { return static_cast<ValueKind>(data.index()); }
  Tensor* tensor() { return std::get_if<Tensor>(&data); }
  const Tensor* tensor() const { return std::get_if<Tensor>(&data); }
};

struct Operator {
  Opt<std::string> name;
  Opt<std::string> overload;
  // "name.overload" as the runtime looks it up ("name" when no overload).
  std::string qualifiedName() const;
};

struct KernelCall { int32_t op_index = 0; Opt<std::vector<int32_t>> args; };
struct DelegateCall { int32_t delegate_index = 0; Opt<std::vector<int32_t>> args; };
struct MoveCall { int32_t move_from = 0; int32_t move_to = 0; };
struct JumpFalseCall { int32_t cond_value_index = 0; int32_t destination_instruction = 0; };
struct FreeCall { int32_t value_index = 0; };
struct NoInstruction {};

enum class InstructionKind : uint8_t { None = 0, KernelCall = 1, DelegateCall = 2, MoveCall = 3, JumpFalseCall = 4, FreeCall = 5 };
std::string instructionKindName(InstructionKind kind);

using InstructionData = std::variant<NoInstruction, KernelCall, DelegateCall, MoveCall, JumpFalseCall, FreeCall>;

struct Instruction {
  InstructionData data;
  InstructionKind kind() const { return static_cast<InstructionKind>(data.index()); }
};

struct Frame {
  Opt<std::string> filename;
  int32_t lineno = 0;
  Opt<std::string> name;
  Opt<std::string> context;
};
struct FrameList { Opt<std::vector<Frame>> items; };

struct Chain {
  Opt<std::vector<int32_t>> inputs;
  Opt<std::vector<int32_t>> outputs;
  Opt<std::vector<Instruction>> instructions;
  Opt<std::vector<FrameList>> stacktrace;
};

struct CompileSpec {
  Opt<std::string> key;
  Opt<std::vector<uint8_t>> value;
  std::string valueText() const { const auto& v = items(value); return std::string(v.begin(), v.end()); }
};

struct DelegateDataReference {
  DelegateDataLocation location = DelegateDataLocation::Inline;
  uint32_t index = 0;
};

struct BackendDelegate {
  Opt<std::string> id;
  Opt<DelegateDataReference> processed;
  Opt<std::vector<CompileSpec>> compile_specs;

  // The first compile spec with this key, as upstream's pass looks it up.
  const CompileSpec* findCompileSpec(std::string_view key) const;
};

struct NonConstBufferDevice {
  int32_t buffer_idx = 0;  // 1-based, as non_const_buffer_sizes
  DeviceType device_type = DeviceType::Cpu;
  int8_t device_index = 0;
};

struct ContainerMetadata {
  Opt<std::string> encoded_inp_str;
  Opt<std::string> encoded_out_str;
};

// ExecutionPlan in the schema.
struct Method {
  Opt<std::string> name;
  Opt<ContainerMetadata> container_meta_type;
  Opt<std::vector<Value>> values;
  Opt<std::vector<int32_t>> inputs;
  Opt<std::vector<int32_t>> outputs;
  Opt<std::vector<Chain>> chains;
  Opt<std::vector<Operator>> operators;
  Opt<std::vector<BackendDelegate>> delegates;
  Opt<std::vector<int64_t>> non_const_buffer_sizes;
  Opt<std::vector<NonConstBufferDevice>> non_const_buffer_device;

  std::string displayName() const { return name ? *name : std::string("<unnamed>"); }
  // Device of planned buffer `bufferIdx` (1-based) as the runtime reports
  // it: the first matching entry, CPU:0 when none.
  Device bufferDevice(int32_t bufferIdx) const;
};

// Legacy constant_buffer entry: tensor bytes inside the flatbuffer.
struct ConstantBuffer { Opt<Bytes> storage; };
struct DelegateInlineData { Opt<Bytes> data; };

struct SubsegmentOffsets {
  uint32_t segment_index = 0;
  Opt<std::vector<uint64_t>> offsets;
};

struct NamedData {
  Opt<std::string> key;
  uint32_t segment_index = 0;
};

// One entry of Program.segments: its bytes. Offsets are laid out again on
// every write; `offset` keeps the value read from the file for display.
struct Segment {
  Bytes data;
  uint64_t offset = 0;
};

// Layout of a tensor stored in a .ptd file.
struct TensorLayout {
  ScalarType scalar_type = ScalarType::Byte;
  Opt<std::vector<int32_t>> sizes;
  Opt<std::vector<uint8_t>> dim_order;
};

// External named data (.ptd, "FT01"), kept beside the program. Not written
// back into the .pte.
struct ExternalData {
  std::string path;
  struct Entry {
    std::string key;
    Bytes data;
    Opt<TensorLayout> layout;
  };
  std::vector<Entry> entries;
  const Entry* find(std::string_view key) const;
};

struct Program {
  uint32_t version = 0;
  Opt<std::vector<Method>> execution_plan;
  Opt<std::vector<ConstantBuffer>> constant_buffer;
  Opt<std::vector<DelegateInlineData>> backend_delegate_data;
  Opt<std::vector<Segment>> segments;
  Opt<SubsegmentOffsets> constant_segment;
  Opt<std::vector<SubsegmentOffsets>> mutable_data_segments;
  Opt<std::vector<NamedData>> named_data;

  // Not serialized into the .pte: external data files that resolve EXTERNAL
  // constants.
  std::vector<ExternalData> external_data;

  // The model holds every string as printable UTF-8 (util/Utf8.h: a byte
  // that is not valid UTF-8 is shown as \xNN), so text, JSON and the GUI
  // show the same name. The reader records here the file's bytes of each
  // string it had to escape, by its printable form; the writer writes those
  // bytes back, so a program read and written unchanged stays byte-exact.
  std::map<std::string, std::string> raw_strings;

  const std::vector<Method>& methods() const { return items(execution_plan); }
  std::vector<Method>& methods() { return ensure(execution_plan); }
  const Method* findMethod(std::string_view name) const;
  Method* findMethod(std::string_view name);
};

// Where a tensor's stored bytes come from, with the bytes when available.
struct TensorDataSource {
  enum class Kind { None, ConstantSegment, LegacyConstantBuffer, External, MutableSegment, Missing };
  Kind kind = Kind::None;
  Bytes data;          // empty when kind is None or Missing
  std::string detail;  // what is missing, for Missing
};
// Resolves the stored data of a tensor (constant segment, legacy buffer,
// mutable data segment or external .ptd).
TensorDataSource tensorData(const Program& program, const Tensor& tensor);

// Bytes of a delegate's processed blob, or an empty optional when its
// reference is out of range.
Opt<Bytes> delegateBlob(const Program& program, const BackendDelegate& delegate);

}  // namespace ptescope::program
