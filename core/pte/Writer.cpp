#include "pte/Writer.h"

#include <map>

#include "program/Validate.h"
#include "program_generated.h"
#include "pte/ExtendedHeader.h"
#include "pte/Reader.h"
#include "util/MappedFile.h"

namespace ptescope::pte {
namespace fb = executorch_flatbuffer;
using namespace ptescope::program;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

namespace {

constexpr size_t kForceAlign = 16;  // force_align of Buffer.storage and inline delegate data

class ProgramEncoder {
 public:
  ProgramEncoder(FlatBufferBuilder& b, std::vector<uint32_t> segmentMap, const std::map<std::string, std::string>& raw)
      : b_(b), segmentMap_(std::move(segmentMap)), raw_(raw) {}

  template <class T>
  Offset<flatbuffers::Vector<T>> vec(const Opt<std::vector<T>>& v) {
    if (!v) return 0;
    return b_.CreateVector(*v);
  }
  // The file's own bytes for a string the reader had to escape.
  Offset<flatbuffers::String> str(const Opt<std::string>& s) {
    if (!s) return 0;
    auto raw = raw_.find(*s);
    return b_.CreateString(raw == raw_.end() ? *s : raw->second);
  }
  Offset<flatbuffers::Vector<uint8_t>> alignedBytes(const Opt<Bytes>& bytes) {
    if (!bytes) return 0;
    b_.ForceVectorAlignment(bytes->size(), 1, kForceAlign);
    return b_.CreateVector(bytes->data(), bytes->size());
  }
  // A vector of tables built by `make`, or absent when the list is.
  template <class T, class F>
  auto tableVector(const Opt<std::vector<T>>& list, F&& make) {
    using O = decltype(make(list->front()));
    if (!list) return Offset<flatbuffers::Vector<O>>(0);
    std::vector<O> offsets;
    offsets.reserve(list->size());
    for (const auto& item : *list) offsets.push_back(make(item));
    return b_.CreateVector(offsets);
  }

  uint32_t segment(uint32_t index) const { return index < segmentMap_.size() ? segmentMap_[index] : index; }

  Offset<fb::Tensor> tensor(const Tensor& t) {
    auto sizes = vec(t.sizes);
    auto dimOrder = vec(t.dim_order);
    Offset<fb::AllocationDetails> alloc = 0;
    if (t.allocation_info)
      alloc = fb::CreateAllocationDetails(b_, t.allocation_info->memory_id, t.allocation_info->memory_offset_low,
                                          t.allocation_info->memory_offset_high);
    Offset<fb::ExtraTensorInfo> extra = 0;
    if (t.extra_tensor_info) {
      const auto& e = *t.extra_tensor_info;
      extra = fb::CreateExtraTensorInfo(b_, e.mutable_data_segments_idx, str(e.fully_qualified_name),
                                        static_cast<fb::TensorDataLocation>(e.location),
                                        static_cast<fb::DeviceType>(e.device_type), e.device_index);
    }
    return fb::CreateTensor(b_, static_cast<fb::ScalarType>(t.scalar_type), t.storage_offset, sizes, dimOrder,
                            t.requires_grad, t.data_buffer_idx, alloc, t.layout,
                            static_cast<fb::TensorShapeDynamism>(t.shape_dynamism), extra);
  }

  Offset<fb::EValue> value(const Value& v) {
    fb::KernelTypes type = static_cast<fb::KernelTypes>(v.kind());
    Offset<void> val = std::visit(
        [&](const auto& x) -> Offset<void> {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, NoneValue>) return 0;
          else if constexpr (std::is_same_v<T, NullValue>) return fb::CreateNull(b_).Union();
          else if constexpr (std::is_same_v<T, IntValue>) return fb::CreateInt(b_, x.value).Union();
          else if constexpr (std::is_same_v<T, BoolValue>) return fb::CreateBool(b_, x.value).Union();
          else if constexpr (std::is_same_v<T, DoubleValue>) return fb::CreateDouble(b_, x.value).Union();
          else if constexpr (std::is_same_v<T, Tensor>) return tensor(x).Union();
          else if constexpr (std::is_same_v<T, StringValue>) return fb::CreateString(b_, str(x.value)).Union();
          else if constexpr (std::is_same_v<T, IntListValue>) return fb::CreateIntList(b_, vec(x.items)).Union();
          else if constexpr (std::is_same_v<T, DoubleListValue>) return fb::CreateDoubleList(b_, vec(x.items)).Union();
          else if constexpr (std::is_same_v<T, BoolListValue>) return fb::CreateBoolList(b_, vec(x.items)).Union();
          else if constexpr (std::is_same_v<T, TensorListValue>) return fb::CreateTensorList(b_, vec(x.items)).Union();
          else return fb::CreateOptionalTensorList(b_, vec(x.items)).Union();
        },
        v.data);
    return fb::CreateEValue(b_, type, val);
  }

  Offset<fb::Instruction> instruction(const Instruction& i) {
    fb::InstructionArguments type = static_cast<fb::InstructionArguments>(i.kind());
    Offset<void> args = std::visit(
        [&](const auto& x) -> Offset<void> {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, NoInstruction>) return 0;
          else if constexpr (std::is_same_v<T, KernelCall>) return fb::CreateKernelCall(b_, x.op_index, vec(x.args)).Union();
          else if constexpr (std::is_same_v<T, DelegateCall>)
            return fb::CreateDelegateCall(b_, x.delegate_index, vec(x.args)).Union();
          else if constexpr (std::is_same_v<T, MoveCall>) return fb::CreateMoveCall(b_, x.move_from, x.move_to).Union();
          else if constexpr (std::is_same_v<T, JumpFalseCall>)
            return fb::CreateJumpFalseCall(b_, x.cond_value_index, x.destination_instruction).Union();
          else return fb::CreateFreeCall(b_, x.value_index).Union();
        },
        i.data);
    return fb::CreateInstruction(b_, type, args);
  }

  Offset<fb::Chain> chain(const Chain& c) {
    auto inputs = vec(c.inputs);
    auto outputs = vec(c.outputs);
    auto instructions = tableVector(c.instructions, [&](const Instruction& i) { return instruction(i); });
    auto stacktrace = tableVector(c.stacktrace, [&](const FrameList& fl) {
      auto frames = tableVector(fl.items, [&](const Frame& f) {
        return fb::CreateFrame(b_, str(f.filename), f.lineno, str(f.name), str(f.context));
      });
      return fb::CreateFrameList(b_, frames);
    });
    return fb::CreateChain(b_, inputs, outputs, instructions, stacktrace);
  }

  Offset<fb::ExecutionPlan> method(const Method& m) {
    auto name = str(m.name);
    Offset<fb::ContainerMetadata> meta = 0;
    if (m.container_meta_type)
      meta = fb::CreateContainerMetadata(b_, str(m.container_meta_type->encoded_inp_str),
                                         str(m.container_meta_type->encoded_out_str));
    auto values = tableVector(m.values, [&](const Value& v) { return value(v); });
    auto inputs = vec(m.inputs);
    auto outputs = vec(m.outputs);
    auto chains = tableVector(m.chains, [&](const Chain& c) { return chain(c); });
    auto operators = tableVector(m.operators, [&](const Operator& o) {
      return fb::CreateOperator(b_, str(o.name), str(o.overload));
    });
    auto delegates = tableVector(m.delegates, [&](const BackendDelegate& d) {
      auto id = str(d.id);
      Offset<fb::BackendDelegateDataReference> processed = 0;
      if (d.processed) {
        uint32_t index = d.processed->location == DelegateDataLocation::Segment ? segment(d.processed->index)
                                                                                : d.processed->index;
        processed = fb::CreateBackendDelegateDataReference(b_, static_cast<fb::DataLocation>(d.processed->location),
                                                           index);
      }
      auto specs = tableVector(d.compile_specs, [&](const CompileSpec& s) {
        return fb::CreateCompileSpec(b_, str(s.key), vec(s.value));
      });
      return fb::CreateBackendDelegate(b_, id, processed, specs);
    });
    auto sizes = vec(m.non_const_buffer_sizes);
    auto devices = tableVector(m.non_const_buffer_device, [&](const NonConstBufferDevice& d) {
      return fb::CreateNonConstBufferDevice(b_, d.buffer_idx, static_cast<fb::DeviceType>(d.device_type),
                                            d.device_index);
    });
    return fb::CreateExecutionPlan(b_, name, meta, values, inputs, outputs, chains, operators, delegates, sizes,
                                   devices);
  }

  Offset<fb::Program> program(const Program& p, const std::vector<std::pair<uint64_t, uint64_t>>& segmentLayout) {
    auto plans = tableVector(p.execution_plan, [&](const Method& m) { return method(m); });
    auto constantBuffer = tableVector(p.constant_buffer, [&](const ConstantBuffer& c) {
      return fb::CreateBuffer(b_, alignedBytes(c.storage));
    });
    auto inlineData = tableVector(p.backend_delegate_data, [&](const DelegateInlineData& d) {
      return fb::CreateBackendDelegateInlineData(b_, alignedBytes(d.data));
    });
    Offset<flatbuffers::Vector<Offset<fb::DataSegment>>> segments = 0;
    if (p.segments) {
      std::vector<Offset<fb::DataSegment>> list;
      for (const auto& [offset, size] : segmentLayout) list.push_back(fb::CreateDataSegment(b_, offset, size));
      segments = b_.CreateVector(list);
    }
    Offset<fb::SubsegmentOffsets> constantSegment = 0;
    if (p.constant_segment)
      constantSegment = fb::CreateSubsegmentOffsets(b_, segment(p.constant_segment->segment_index),
                                                    vec(p.constant_segment->offsets));
    auto mutableSegments = tableVector(p.mutable_data_segments, [&](const SubsegmentOffsets& s) {
      return fb::CreateSubsegmentOffsets(b_, segment(s.segment_index), vec(s.offsets));
    });
    auto namedData = tableVector(p.named_data, [&](const NamedData& n) {
      return fb::CreateNamedData(b_, str(n.key), segment(n.segment_index));
    });
    return fb::CreateProgram(b_, p.version, plans, constantBuffer, inlineData, segments, constantSegment,
                             mutableSegments, namedData);
  }

 private:
  FlatBufferBuilder& b_;
  std::vector<uint32_t> segmentMap_;
  const std::map<std::string, std::string>& raw_;
};

class ReadBackVerifier : public FileVerifier {
 public:
  explicit ReadBackVerifier(const Program& original) : original_(original) {}
  Status verify(const std::string& temporaryPath) const override {
    ReadOptions options;
    options.find_ptd_beside = false;
    auto loaded = readProgramFile(temporaryPath, options);
    if (!loaded) return loaded.error();
    if (loaded->program.methods().size() != original_.methods().size())
      return makeError("re-read program has " + std::to_string(loaded->program.methods().size()) +
                       " methods instead of " + std::to_string(original_.methods().size()));
    return Ok{};
  }

 private:
  const Program& original_;
};

}  // namespace

Result<std::vector<uint8_t>> serializeProgram(const Program& program, const WriteOptions& options) {
  const uint64_t alignment = options.segment_alignment;
  if (alignment == 0 || (alignment & (alignment - 1)) != 0)
    return makeError("segment alignment " + std::to_string(alignment) + " is not a power of two");

  // Identical non-empty segments are stored once; references are remapped.
  const auto& segments = items(program.segments);
  std::vector<uint32_t> segmentMap(segments.size());
  std::vector<size_t> kept;  // original index of each written segment
  for (size_t i = 0; i < segments.size(); ++i) {
    segmentMap[i] = static_cast<uint32_t>(kept.size());
    if (!segments[i].data.empty()) {
      for (size_t k = 0; k < kept.size(); ++k) {
        if (segments[kept[k]].data == segments[i].data) {
          segmentMap[i] = static_cast<uint32_t>(k);
          break;
        }
      }
    }
    if (segmentMap[i] == kept.size()) kept.push_back(i);
  }
  std::vector<std::pair<uint64_t, uint64_t>> layout;
  uint64_t end = 0;
  for (size_t k = 0; k < kept.size(); ++k) {
    const uint64_t size = segments[kept[k]].data.size();
    const uint64_t offset = k == 0 ? 0 : alignUp(end, alignment);
    layout.emplace_back(offset, size);
    end = offset + size;
  }

  FlatBufferBuilder builder(1024);
  ProgramEncoder encoder(builder, segmentMap, program.raw_strings);
  auto root = encoder.program(program, layout);
  builder.Finish(root, fb::ProgramIdentifier());
  const uint8_t* fbData = builder.GetBufferPointer();
  const size_t fbSize = builder.GetSize();

  std::vector<uint8_t> out;
  if (end == 0) {
    out.assign(fbData, fbData + fbSize);
    // The runtime (and the reader) read a 64-byte head first; a program this
    // small (no methods, no data) is padded with zeros after the flatbuffer
    // so that what is written can always be read.
    if (out.size() < kMinimumProgramFileSize) out.resize(kMinimumProgramFileSize, 0);
    return out;
  }
  const size_t headerSize = static_cast<size_t>(alignUp(kExtendedHeaderLength, std::max<size_t>(kForceAlign, builder.GetBufferMinAlignment())));
  ExtendedHeader header;
  header.program_size = headerSize + fbSize;
  header.segment_base_offset = alignUp(header.program_size, alignment);
  header.segment_data_size = end;
  out.reserve(static_cast<size_t>(header.segment_base_offset + end));
  const uint32_t root32 = readLe32(fbData) + static_cast<uint32_t>(headerSize);
  appendLe32(out, root32);
  out.insert(out.end(), fbData + 4, fbData + 8);
  auto headerBytes = encodeExtendedHeader(header, headerSize);
  out.insert(out.end(), headerBytes.begin(), headerBytes.end());
  out.insert(out.end(), fbData + 8, fbData + fbSize);
  out.resize(static_cast<size_t>(header.segment_base_offset), 0);
  for (size_t k = 0; k < kept.size(); ++k) {
    out.resize(static_cast<size_t>(header.segment_base_offset + layout[k].first), 0);
    const auto& data = segments[kept[k]].data;
    out.insert(out.end(), data.data(), data.data() + data.size());
  }
  if (out.size() < kMinimumProgramFileSize) out.resize(kMinimumProgramFileSize, 0);
  return out;
}

Status writeProgramFile(const Program& program, const std::string& path, const WriteOptions& options) {
  if (!options.input_path.empty() && !options.allow_overwrite_input && sameFile(options.input_path, path))
    return makeError(path + ": refusing to overwrite the input program; write to another file or allow overwriting "
                            "explicitly (--force)");
  auto problems = validateProgram(program);
  if (!problems.empty()) return makeError(path + ": not written, the program is invalid: " + problems.front());
  auto bytes = serializeProgram(program, options);
  if (!bytes) return makeError(path + ": " + bytes.error().message);
  ReadBackVerifier verifier(program);
  return writeFileAtomically(path, bytes.value(), &verifier);
}

}  // namespace ptescope::pte
