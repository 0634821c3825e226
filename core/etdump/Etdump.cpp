#include "etdump/Etdump.h"

#include <algorithm>
#include <cstring>

#include "etdump_generated.h"
#include "program/Types.h"
#include "util/MappedFile.h"

namespace ptescope::etdump {

namespace fb = ::etdump_flatbuffer;

namespace {

// Deep enough for Value → TensorList → Tensor; many tables for long traces
// (a 50k-instruction method run 3 times has well over a million).
constexpr unsigned kMaxDepth = 64;
constexpr unsigned kMaxTables = 100'000'000;

uint32_t readU32(const uint8_t* p) {
  return uint32_t(p[0]) | (uint32_t(p[1]) << 8) | (uint32_t(p[2]) << 16) | (uint32_t(p[3]) << 24);
}

std::string printable(const uint8_t* p, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += (p[i] >= 0x20 && p[i] < 0x7f) ? char(p[i]) : '.';
  return out;
}

std::string str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

DebugTensor tensorOf(const fb::Tensor& t) {
  DebugTensor out;
  out.scalar_type = int8_t(t.scalar_type());
  if (t.sizes()) out.sizes.assign(t.sizes()->begin(), t.sizes()->end());
  if (t.strides()) out.strides.assign(t.strides()->begin(), t.strides()->end());
  out.offset = t.offset();
  return out;
}

DebugValue valueOf(const fb::Value& v) {
  DebugValue out;
  const int8_t kind = int8_t(v.val());
  out.kind = kind >= 0 && kind <= int8_t(DebugValue::Kind::String) ? DebugValue::Kind(kind) : DebugValue::Kind::Null;
  if (v.int_value()) out.int_value = v.int_value()->int_val();
  if (v.bool_value()) out.bool_value = v.bool_value()->bool_val();
  if (v.float_value()) out.double_value = v.float_value()->float_val();
  if (v.double_value()) out.double_value = v.double_value()->double_val();
  if (v.tensor()) out.tensors.push_back(tensorOf(*v.tensor()));
  if (v.tensor_list() && v.tensor_list()->tensors())
    for (const auto* t : *v.tensor_list()->tensors())
      if (t) out.tensors.push_back(tensorOf(*t));
  out.output = v.output() && v.output()->bool_val();
  return out;
}

ProfileEvent profileOf(const fb::ProfileEvent& e) {
  ProfileEvent out;
  out.name = str(e.name());
  out.chain_index = e.chain_index();
  out.instruction_id = e.instruction_id();
  out.delegate_debug_id_int = e.delegate_debug_id_int();
  out.delegate_debug_id_str = str(e.delegate_debug_id_str());
  if (e.delegate_debug_metadata()) out.delegate_debug_metadata.assign(e.delegate_debug_metadata()->begin(), e.delegate_debug_metadata()->end());
  out.start_ticks = e.start_time();
  out.end_ticks = e.end_time();
  return out;
}

DebugEvent debugOf(const fb::DebugEvent& e) {
  DebugEvent out;
  out.chain_index = e.chain_index();
  out.instruction_id = e.instruction_id();
  out.delegate_debug_id_int = e.delegate_debug_id_int();
  out.delegate_debug_id_str = str(e.delegate_debug_id_str());
  out.name = str(e.name());
  if (e.debug_entry()) out.value = valueOf(*e.debug_entry());
  return out;
}

template <class E>
size_t countOf(const std::vector<Event>& events) {
  return size_t(std::count_if(events.begin(), events.end(), [](const Event& e) { return std::holds_alternative<E>(e); }));
}

}  // namespace

std::string ProfileEvent::displayName() const {
  if (!name.empty()) return name;
  if (!delegate_debug_id_str.empty()) return delegate_debug_id_str;
  if (delegate_debug_id_int != -1) return "delegate id " + std::to_string(delegate_debug_id_int);
  return "<unnamed>";
}

std::optional<uint64_t> DebugTensor::nbytes() const {
  const int element = program::elementSize(program::ScalarType(scalar_type));
  if (element <= 0) return std::nullopt;
  uint64_t n = uint64_t(element);
  for (int64_t s : sizes) {
    if (s < 0) return std::nullopt;
    if (s != 0 && n > UINT64_MAX / uint64_t(s)) return std::nullopt;
    n *= uint64_t(s);
  }
  return n;
}

std::string debugValueKindName(DebugValue::Kind kind) {
  switch (kind) {
    case DebugValue::Kind::Null: return "Null";
    case DebugValue::Kind::Int: return "Int";
    case DebugValue::Kind::Bool: return "Bool";
    case DebugValue::Kind::Float: return "Float";
    case DebugValue::Kind::Double: return "Double";
    case DebugValue::Kind::Tensor: return "Tensor";
    case DebugValue::Kind::TensorList: return "TensorList";
    case DebugValue::Kind::String: return "String";
  }
  return "?";
}

size_t RunData::profileEventCount() const { return countOf<ProfileEvent>(events); }
size_t RunData::debugEventCount() const { return countOf<DebugEvent>(events); }
size_t RunData::allocationEventCount() const { return countOf<AllocationEvent>(events); }

size_t Etdump::profileEventCount() const {
  size_t n = 0;
  for (const auto& b : blocks) n += b.profileEventCount();
  return n;
}
size_t Etdump::debugEventCount() const {
  size_t n = 0;
  for (const auto& b : blocks) n += b.debugEventCount();
  return n;
}
size_t Etdump::allocationEventCount() const {
  size_t n = 0;
  for (const auto& b : blocks) n += b.allocationEventCount();
  return n;
}

Result<Etdump> parseEtdump(std::span<const uint8_t> bytes, const std::string& where) {
  const uint8_t* data = bytes.data();
  const size_t size = bytes.size();
  if (size < 8) return makeError(where + ": too short to be an ETDump (" + std::to_string(size) + " bytes)");

  Etdump dump;
  const fb::ETDump* root = nullptr;
  if (std::memcmp(data + 4, fb::ETDumpIdentifier(), 4) == 0) {
    // Un-prefixed, as Python's serializer writes it.
    dump.size_prefixed = false;
    flatbuffers::Verifier verifier(data, size, kMaxDepth, kMaxTables);
    if (!fb::VerifyETDumpBuffer(verifier))
      return makeError(where + ": corrupt ETDump: the flatbuffer verifier rejects it (truncated or damaged)");
    root = fb::GetETDump(data);
  } else if (size >= 12 && std::memcmp(data + 8, fb::ETDumpIdentifier(), 4) == 0) {
    // Size-prefixed, as the runtime's ETDumpGen writes it.
    const uint64_t prefix = readU32(data);
    if (prefix + 4 > size)
      return makeError(where + ": truncated ETDump: its size prefix says " + std::to_string(prefix + 4) +
                       " bytes, the file has " + std::to_string(size));
    flatbuffers::Verifier verifier(data, size_t(prefix + 4), kMaxDepth, kMaxTables);
    if (!fb::VerifySizePrefixedETDumpBuffer(verifier))
      return makeError(where + ": corrupt ETDump: the flatbuffer verifier rejects it (truncated or damaged)");
    root = fb::GetSizePrefixedETDump(data);
  } else {
    const std::string at4 = printable(data + 4, 4);
    if (at4 == "ET12" || at4.rfind("ET", 0) == 0)
      return makeError(where + ": this is an ExecuTorch program (identifier '" + at4 + "'), not an ETDump (.etdp)");
    return makeError(where + ": not an ETDump: no 'ED00' identifier at byte 4 or 8 (found '" + at4 + "' / '" +
                     (size >= 12 ? printable(data + 8, 4) : std::string()) + "')");
  }

  dump.version = root->version();
  if (const auto* runs = root->run_data()) {
    dump.blocks.reserve(runs->size());
    for (const fb::RunData* run : *runs) {
      RunData block;
      if (run == nullptr) continue;
      block.name = str(run->name());
      block.bundled_input_index = run->bundled_input_index();
      if (run->allocators())
        for (const auto* a : *run->allocators()) block.allocators.push_back(a ? str(a->name()) : std::string());
      if (const auto* events = run->events()) {
        block.events.reserve(events->size());
        for (const fb::Event* e : *events) {
          if (e == nullptr) continue;
          if (e->profile_event()) {
            block.events.emplace_back(profileOf(*e->profile_event()));
          } else if (e->allocation_event()) {
            block.events.emplace_back(AllocationEvent{e->allocation_event()->allocator_id(), e->allocation_event()->allocation_size()});
          } else if (e->debug_event()) {
            block.events.emplace_back(debugOf(*e->debug_event()));
          }
        }
      }
      dump.blocks.push_back(std::move(block));
    }
  }
  return dump;
}

Result<Etdump> readEtdumpFile(const std::string& path) {
  auto bytes = mapFile(path);
  if (!bytes) return makeError(path + ": " + bytes.error().message);
  return parseEtdump(bytes->span(), path);
}

Result<std::span<const uint8_t>> tensorBytes(const DebugTensor& tensor, std::span<const uint8_t> debugBuffer) {
  const auto n = tensor.nbytes();
  if (!n) return makeError("logged tensor of scalar type " + std::to_string(int(tensor.scalar_type)) + " has no known size");
  if (*n == 0 || tensor.offset == -1) return std::span<const uint8_t>{};
  if (tensor.offset < 0 || uint64_t(tensor.offset) > debugBuffer.size() || *n > debugBuffer.size() - uint64_t(tensor.offset))
    return makeError("logged tensor at offset " + std::to_string(tensor.offset) + " (" + std::to_string(*n) +
                     " bytes) lies outside the " + std::to_string(debugBuffer.size()) + "-byte debug buffer");
  return debugBuffer.subspan(size_t(tensor.offset), size_t(*n));
}

}  // namespace ptescope::etdump
