#include "program/Program.h"

namespace ptescope::program {

Device Tensor::device() const {
  if (!extra_tensor_info) return {};
  return Device{extra_tensor_info->device_type, extra_tensor_info->device_index};
}

void Tensor::setDevice(Device device) {
  if (device.isCpu() && device.index == 0) {
    if (extra_tensor_info) {
      extra_tensor_info->device_type = DeviceType::Cpu;
      extra_tensor_info->device_index = 0;
    }
    return;
  }
  if (!extra_tensor_info) extra_tensor_info.emplace();
  extra_tensor_info->device_type = device.type;
  extra_tensor_info->device_index = device.index;
}

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int32_t s : items(sizes)) {
    if (s < 0) return -1;
    if (s != 0 && n > INT64_MAX / s) return -1;
    n *= s;
  }
  return n;
}

int64_t Tensor::nbytes() const {
  int64_t n = numel();
  int size = elementSize(scalar_type);
  if (n < 0 || size == 0) return -1;
  if (n > INT64_MAX / size) return -1;
  return n * size;
}

std::string valueKindName(ValueKind kind) {
  switch (kind) {
    case ValueKind::None: return "None";
    case ValueKind::Null: return "Null";
    case ValueKind::Int: return "Int";
    case ValueKind::Bool: return "Bool";
    case ValueKind::Double: return "Double";
    case ValueKind::Tensor: return "Tensor";
    case ValueKind::String: return "String";
    case ValueKind::IntList: return "IntList";
    case ValueKind::DoubleList: return "DoubleList";
    case ValueKind::BoolList: return "BoolList";
    case ValueKind::TensorList: return "TensorList";
    case ValueKind::OptionalTensorList: return "OptionalTensorList";
  }
  return "Unknown";
}

std::string instructionKindName(InstructionKind kind) {
  switch (kind) {
    case InstructionKind::None: return "None";
    case InstructionKind::KernelCall: return "KernelCall";
    case InstructionKind::DelegateCall: return "DelegateCall";
    case InstructionKind::MoveCall: return "MoveCall";
    case InstructionKind::JumpFalseCall: return "JumpFalseCall";
    case InstructionKind::FreeCall: return "FreeCall";
  }
  return "Unknown";
}

std::string Operator::qualifiedName() const {
  std::string result = name.value_or("");
  if (overload && !overload->empty()) result += "." + *overload;
  return result;
}

const CompileSpec* BackendDelegate::findCompileSpec(std::string_view key) const {
  for (const auto& spec : items(compile_specs))
    if (spec.key && *spec.key == key) return &spec;
  return nullptr;
}

Device Method::bufferDevice(int32_t bufferIdx) const {
  for (const auto& entry : items(non_const_buffer_device))
    if (entry.buffer_idx == bufferIdx) return Device{entry.device_type, entry.device_index};
  return {};
}

const ExternalData::Entry* ExternalData::find(std::string_view key) const {
  for (const auto& entry : entries)
    if (entry.key == key) return &entry;
  return nullptr;
}

const Method* Program::findMethod(std::string_view name) const {
  for (const auto& m : methods())
    if (m.name && *m.name == name) return &m;
  return nullptr;
}

Method* Program::findMethod(std::string_view name) {
  for (auto& m : methods())
    if (m.name && *m.name == name) return &m;
  return nullptr;
}

TensorDataSource tensorData(const Program& program, const Tensor& tensor) {
  TensorDataSource source;
  int64_t nbytes = tensor.nbytes();
  auto missing = [&](std::string detail) {
    source.kind = TensorDataSource::Kind::Missing;
    source.detail = std::move(detail);
    return source;
  };
  if (tensor.isExternal()) {
    source.kind = TensorDataSource::Kind::External;
    const auto& fqn = tensor.extra_tensor_info->fully_qualified_name;
    if (!fqn) return missing("external tensor has no fully_qualified_name");
    for (const auto& file : program.external_data) {
      if (const auto* entry = file.find(*fqn)) {
        source.data = entry->data;
        return source;
      }
    }
    return missing("external tensor '" + *fqn + "' is in no loaded .ptd file");
  }
  if (tensor.data_buffer_idx == 0) return source;
  const uint32_t idx = tensor.data_buffer_idx;
  if (tensor.allocation_info) {
    source.kind = TensorDataSource::Kind::MutableSegment;
    const auto& mutables = items(program.mutable_data_segments);
    if (mutables.empty()) return missing("no mutable_data_segments for data_buffer_idx " + std::to_string(idx));
    const auto& offsets = items(mutables[0].offsets);
    const auto& segments = items(program.segments);
    if (idx >= offsets.size()) return missing("mutable data index " + std::to_string(idx) + " out of range");
    if (mutables[0].segment_index >= segments.size()) return missing("mutable data segment out of range");
    const Bytes& seg = segments[mutables[0].segment_index].data;
    if (nbytes < 0 || offsets[idx] > seg.size() || uint64_t(nbytes) > seg.size() - offsets[idx])
      return missing("mutable data for index " + std::to_string(idx) + " runs past its segment");
    source.data = seg.slice(offsets[idx], static_cast<size_t>(nbytes));
    return source;
  }
  const auto& cs = program.constant_segment;
  if (cs && items(cs->offsets).size() > 0) {
    source.kind = TensorDataSource::Kind::ConstantSegment;
    const auto& offsets = *cs->offsets;
    const auto& segments = items(program.segments);
    if (idx >= offsets.size())
      return missing("constant index " + std::to_string(idx) + " out of range (" +
                     std::to_string(offsets.size()) + " constant offsets)");
    if (cs->segment_index >= segments.size()) return missing("constant segment index out of range");
    const Bytes& seg = segments[cs->segment_index].data;
    if (nbytes < 0 || offsets[idx] > seg.size() || uint64_t(nbytes) > seg.size() - offsets[idx])
      return missing("constant " + std::to_string(idx) + " runs past the constant segment");
    source.data = seg.slice(offsets[idx], static_cast<size_t>(nbytes));
    return source;
  }
  source.kind = TensorDataSource::Kind::LegacyConstantBuffer;
  const auto& buffers = items(program.constant_buffer);
  if (idx >= buffers.size())
    return missing("constant_buffer index " + std::to_string(idx) + " out of range (" +
                   std::to_string(buffers.size()) + " buffers)");
  const Bytes storage = buffers[idx].storage.value_or(Bytes());
  if (nbytes < 0 || uint64_t(nbytes) > storage.size())
    return missing("constant_buffer " + std::to_string(idx) + " holds fewer bytes than the tensor needs");
  source.data = storage.slice(0, static_cast<size_t>(nbytes));
  return source;
}

Opt<Bytes> delegateBlob(const Program& program, const BackendDelegate& delegate) {
  if (!delegate.processed) return std::nullopt;
  const auto& ref = *delegate.processed;
  if (ref.location == DelegateDataLocation::Inline) {
    const auto& inl = items(program.backend_delegate_data);
    if (ref.index >= inl.size()) return std::nullopt;
    return inl[ref.index].data.value_or(Bytes());
  }
  const auto& segs = items(program.segments);
  if (ref.index >= segs.size()) return std::nullopt;
  return segs[ref.index].data;
}

}  // namespace ptescope::program
