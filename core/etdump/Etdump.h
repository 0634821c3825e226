// Reading an ETDump: the trace that ExecuTorch's event tracer (ETDumpGen)
// writes as a .etdp file, schema core/schema/etdump.fbs.
//
// The reader runs the FlatBuffers verifier over the whole buffer before it
// reads a field, accepts the size-prefixed form the runtime writes and the
// un-prefixed form Python's serializer writes, and turns the flatbuffer into
// plain typed events (no pointers into the file survive the call).
//
// Facts it relies on (see ../shared/etdump-samples/README.md):
// - one RunData ("block") per Program::load_method ("Default") and per
//   Method::execute ("Execute"); the method name is recorded nowhere;
// - events are stored in the order they ended, so an OPERATOR_CALL follows
//   the native_call_* it encloses;
// - times are ticks of the platform clock, whose length the file does not
//   hold (the POSIX runtime ticks in nanoseconds).
//
// Usage:
//   auto dump = etdump::readEtdumpFile("model.etdp");
//   if (!dump) report(dump.error().message);      // names the file and the fault
//   for (const auto& block : dump->blocks) ...
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <variant>
#include <vector>

#include "util/Result.h"

namespace ptescope::etdump {

struct ProfileEvent {
  std::string name;  // empty for delegate events, which carry an id instead
  int32_t chain_index = 0;
  int32_t instruction_id = -1;
  int32_t delegate_debug_id_int = -1;
  std::string delegate_debug_id_str;
  std::vector<uint8_t> delegate_debug_metadata;
  uint64_t start_ticks = 0;
  uint64_t end_ticks = 0;

  uint64_t durationTicks() const { return end_ticks >= start_ticks ? end_ticks - start_ticks : 0; }
  // Logged by a delegate from inside its DELEGATE_CALL (an int or string id).
  bool isDelegateEvent() const { return delegate_debug_id_int != -1 || !delegate_debug_id_str.empty(); }
  // Outside any instruction: Program::load_method, Method::init, Method::execute.
  bool isFrameworkEvent() const { return chain_index == -1; }
  // "op #1", "id 0", or the name.
  std::string displayName() const;
};

struct AllocationEvent {
  int32_t allocator_id = 0;  // 1-based into RunData::allocators
  uint64_t allocation_size = 0;
};

// A logged tensor; its bytes are in the debug buffer at `offset`.
struct DebugTensor {
  int8_t scalar_type = 0;  // executorch ScalarType code
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides;
  int64_t offset = 0;      // -1 for an empty tensor
  // sizes × element size; nullopt for an unknown type or a bad size.
  std::optional<uint64_t> nbytes() const;
};

struct DebugValue {
  enum class Kind : int8_t { Null = 0, Int, Bool, Float, Double, Tensor, TensorList, String };
  Kind kind = Kind::Null;
  int64_t int_value = 0;
  double double_value = 0;  // Float and Double
  bool bool_value = false;
  std::vector<DebugTensor> tensors;  // one for Tensor, the list for TensorList
  bool output = false;               // the `output` flag (program output tensors)
};
std::string debugValueKindName(DebugValue::Kind kind);

struct DebugEvent {
  uint64_t chain_index = 0;  // program outputs: 2^64 - 1
  int32_t instruction_id = -1;
  int32_t delegate_debug_id_int = -1;
  std::string delegate_debug_id_str;
  std::string name;
  std::optional<DebugValue> value;
  // Logged after Method::execute ended (log_outputs).
  bool isProgramOutput() const { return chain_index == UINT64_MAX; }
};

using Event = std::variant<ProfileEvent, AllocationEvent, DebugEvent>;

struct RunData {
  std::string name;  // "Default" (a load_method) or "Execute" (one execute())
  int32_t bundled_input_index = -1;
  std::vector<std::string> allocators;
  std::vector<Event> events;  // in file order (the order they ended)

  size_t profileEventCount() const;
  size_t debugEventCount() const;
  size_t allocationEventCount() const;
};

struct Etdump {
  uint32_t version = 0;
  bool size_prefixed = true;  // as the runtime writes it
  std::vector<RunData> blocks;

  size_t profileEventCount() const;
  size_t debugEventCount() const;
  size_t allocationEventCount() const;
};

// `where` (a file name) starts every error message.
Result<Etdump> parseEtdump(std::span<const uint8_t> bytes, const std::string& where);
Result<Etdump> readEtdumpFile(const std::string& path);

// The bytes of a logged tensor in the debug buffer (the file the runner wrote
// next to the trace). Errors say which tensor lies outside the buffer.
Result<std::span<const uint8_t>> tensorBytes(const DebugTensor& tensor, std::span<const uint8_t> debugBuffer);

// How long a tick is. The file does not say; the runtime's POSIX clock ticks
// in nanoseconds, which is the default (upstream's Inspector assumes the same).
struct TickScale {
  double ns_per_tick = 1.0;
  double seconds(uint64_t ticks) const { return double(ticks) * ns_per_tick * 1e-9; }
  bool valid() const { return ns_per_tick > 0 && ns_per_tick < 1e12; }
};

}  // namespace ptescope::etdump
