#include "pte/Reader.h"

#include <bit>
#include <cstring>
#include <set>
#include <type_traits>
#include <filesystem>
#include <set>

#include "flat_tensor_generated.h"
#include "program/DelegatePayload.h"
#include "program/Validate.h"
#include "program_generated.h"
#include "util/MappedFile.h"
#include "util/Utf8.h"

namespace ptescope::pte {
namespace fb = executorch_flatbuffer;
namespace ft = flat_tensor_flatbuffer;
using namespace ptescope::program;

namespace {

// Upstream runtime's verifier limits.
constexpr unsigned kMaxDepth = 64;
constexpr unsigned kMaxTables = 1000000;

static_assert(std::endian::native == std::endian::little, "flatbuffer scalars are read as stored (little-endian)");

// A flatbuffer vector's elements, copied out byte-wise: the verifier checks
// only the alignment of a vector's length, so the elements of a [long],
// [double] or [uint64] vector in a file not written by a flatbuffers builder
// can sit at an address that is not a multiple of 8, where reading them
// through a typed pointer (the vector's accessors) is undefined behaviour.
// A vector of tables, each converted; an absent vector stays absent.
template <class Table, class Convert>
auto tables(const flatbuffers::Vector<flatbuffers::Offset<Table>>* v, Convert convert)
    -> Opt<std::vector<decltype(convert(static_cast<const Table*>(nullptr)))>> {
  if (v == nullptr) return std::nullopt;
  std::vector<decltype(convert(static_cast<const Table*>(nullptr)))> list;
  list.reserve(v->size());
  for (const Table* item : *v) list.push_back(convert(item));
  return list;
}

template <class T>
Opt<std::vector<T>> scalars(const flatbuffers::Vector<T>* v) {
  static_assert(std::is_arithmetic_v<T>);
  if (v == nullptr) return std::nullopt;
  std::vector<T> out(v->size());
  if (!out.empty()) std::memcpy(out.data(), v->Data(), out.size() * sizeof(T));
  return out;
}

class ProgramDecoder {
 public:
  explicit ProgramDecoder(const Bytes& file) : file_(file) {}

  // The flatbuffers verifier accepts union tags it does not know; the
  // runtime does not, so the first one found fails the read.
  const std::string& firstError() const { return firstError_; }
  void noteError(std::string message) const {
    if (firstError_.empty()) firstError_ = std::move(message);
  }

  // A string as the model holds it: printable UTF-8 (util/Utf8.h). The bytes
  // of one that is not valid UTF-8 are kept for the writer.
  Opt<std::string> str(const flatbuffers::String* s) const { return decoded(s, false); }
  // A name (method, operator, delegate id, key, tensor name): also on one
  // line with nothing invisible (printableLine), so every report, table and
  // message that prints it keeps its lines; the writer writes the bytes back.
  Opt<std::string> nameText(const flatbuffers::String* s) const { return decoded(s, true); }
  Opt<std::string> decoded(const flatbuffers::String* s, bool oneLine) const {
    if (s == nullptr) return std::nullopt;
    std::string raw(s->data(), s->size());
    std::string shown = oneLine ? printableLine(raw) : printableUtf8(raw);
    if (shown == raw) {
      if (raw.find("\\x") != std::string::npos || raw.find("\\u") != std::string::npos) escapedLookalikes_.insert(raw);
      return raw;
    }
    raw_.emplace(shown, std::move(raw));
    ++escapedStrings_;
    return shown;
  }
  // The raw bytes by printable form; a printable form that is also a valid
  // string of the same file is ambiguous and kept as printed.
  std::map<std::string, std::string> rawStrings() const {
    auto out = raw_;
    for (const auto& lookalike : escapedLookalikes_) out.erase(lookalike);
    return out;
  }
  size_t escapedStrings() const { return escapedStrings_; }

  // Bytes of a [ubyte] vector inside the mapped file.
  Opt<Bytes> bytesOf(const flatbuffers::Vector<uint8_t>* v) const {
    if (v == nullptr) return std::nullopt;
    const auto offset = static_cast<size_t>(v->data() - file_.data());
    return file_.slice(offset, v->size());
  }

  Tensor tensor(const fb::Tensor* t) const {
    Tensor out;
    out.scalar_type = static_cast<ScalarType>(t->scalar_type());
    out.storage_offset = t->storage_offset();
    out.sizes = scalars(t->sizes());
    out.dim_order = scalars(t->dim_order());
    out.requires_grad = t->requires_grad();
    out.data_buffer_idx = t->data_buffer_idx();
    if (const auto* a = t->allocation_info())
      out.allocation_info = AllocationInfo{a->memory_id(), a->memory_offset_low(), a->memory_offset_high()};
    out.layout = t->layout();
    out.shape_dynamism = static_cast<ShapeDynamism>(t->shape_dynamism());
    if (const auto* e = t->extra_tensor_info()) {
      ExtraTensorInfo extra;
      extra.mutable_data_segments_idx = e->mutable_data_segments_idx();
      extra.fully_qualified_name = nameText(e->fully_qualified_name());
      extra.location = static_cast<TensorDataLocation>(e->location());
      extra.device_type = static_cast<DeviceType>(e->device_type());
      extra.device_index = e->device_index();
      out.extra_tensor_info = extra;
    }
    return out;
  }

  Value value(const fb::EValue* e) const {
    Value v;
    if (e->val_type() != fb::KernelTypes::NONE && e->val_type() != fb::KernelTypes::Null && e->val() == nullptr) {
      noteError("a " + std::string(fb::EnumNameKernelTypes(e->val_type())) + " value has no data");
      return v;
    }
    switch (e->val_type()) {
      case fb::KernelTypes::NONE: v.data = NoneValue{}; break;
      case fb::KernelTypes::Null: v.data = NullValue{}; break;
      case fb::KernelTypes::Int: v.data = IntValue{e->val_as_Int()->int_val()}; break;
      case fb::KernelTypes::Bool: v.data = BoolValue{e->val_as_Bool()->bool_val()}; break;
      case fb::KernelTypes::Double: v.data = DoubleValue{e->val_as_Double()->double_val()}; break;
      case fb::KernelTypes::Tensor: v.data = tensor(e->val_as_Tensor()); break;
      case fb::KernelTypes::String: v.data = StringValue{str(e->val_as_String()->string_val())}; break;
      case fb::KernelTypes::IntList: v.data = IntListValue{scalars(e->val_as_IntList()->items())}; break;
      case fb::KernelTypes::DoubleList: v.data = DoubleListValue{scalars(e->val_as_DoubleList()->items())}; break;
      case fb::KernelTypes::BoolList: v.data = BoolListValue{scalars(e->val_as_BoolList()->items())}; break;
      case fb::KernelTypes::TensorList: v.data = TensorListValue{scalars(e->val_as_TensorList()->items())}; break;
      case fb::KernelTypes::OptionalTensorList:
        v.data = OptionalTensorListValue{scalars(e->val_as_OptionalTensorList()->items())};
        break;
      default:
        noteError("a value has unknown type tag " + std::to_string(static_cast<int>(e->val_type())));
    }
    return v;
  }

  Instruction instruction(const fb::Instruction* i) const {
    Instruction out;
    if (i->instr_args_type() != fb::InstructionArguments::NONE && i->instr_args() == nullptr) {
      noteError("a " + std::string(fb::EnumNameInstructionArguments(i->instr_args_type())) +
                " instruction has no arguments");
      return out;
    }
    switch (i->instr_args_type()) {
      case fb::InstructionArguments::NONE: out.data = NoInstruction{}; break;
      case fb::InstructionArguments::KernelCall: {
        const auto* k = i->instr_args_as_KernelCall();
        out.data = KernelCall{k->op_index(), scalars(k->args())};
        break;
      }
      case fb::InstructionArguments::DelegateCall: {
        const auto* d = i->instr_args_as_DelegateCall();
        out.data = DelegateCall{d->delegate_index(), scalars(d->args())};
        break;
      }
      case fb::InstructionArguments::MoveCall: {
        const auto* m = i->instr_args_as_MoveCall();
        out.data = MoveCall{m->move_from(), m->move_to()};
        break;
      }
      case fb::InstructionArguments::JumpFalseCall: {
        const auto* j = i->instr_args_as_JumpFalseCall();
        out.data = JumpFalseCall{j->cond_value_index(), j->destination_instruction()};
        break;
      }
      case fb::InstructionArguments::FreeCall: out.data = FreeCall{i->instr_args_as_FreeCall()->value_index()}; break;
      default:
        noteError("an instruction has unknown type tag " + std::to_string(static_cast<int>(i->instr_args_type())));
    }
    return out;
  }

  Chain chain(const fb::Chain* c) const {
    Chain out;
    out.inputs = scalars(c->inputs());
    out.outputs = scalars(c->outputs());
    out.instructions = tables(c->instructions(), [&](const fb::Instruction* i) { return instruction(i); });
    if (const auto* traces = c->stacktrace()) {
      auto& list = out.stacktrace.emplace();
      for (const auto* frames : *traces) {
        FrameList fl;
        if (const auto* fitems = frames->items()) {
          auto& fs = fl.items.emplace();
          for (const auto* f : *fitems) fs.push_back(Frame{str(f->filename()), f->lineno(), str(f->name()), str(f->context())});
        }
        list.push_back(std::move(fl));
      }
    }
    return out;
  }

  Method method(const fb::ExecutionPlan* p) const {
    Method m;
    m.name = nameText(p->name());
    if (const auto* c = p->container_meta_type())
      m.container_meta_type = ContainerMetadata{str(c->encoded_inp_str()), str(c->encoded_out_str())};
    m.values = tables(p->values(), [&](const fb::EValue* e) { return value(e); });
    m.inputs = scalars(p->inputs());
    m.outputs = scalars(p->outputs());
    m.chains = tables(p->chains(), [&](const fb::Chain* c) { return chain(c); });
    m.operators = tables(p->operators(), [&](const fb::Operator* o) { return Operator{nameText(o->name()), nameText(o->overload())}; });
    if (const auto* dels = p->delegates()) {
      auto& list = m.delegates.emplace();
      for (const auto* d : *dels) {
        BackendDelegate bd;
        bd.id = nameText(d->id());
        if (const auto* r = d->processed())
          bd.processed = DelegateDataReference{static_cast<DelegateDataLocation>(r->location()), r->index()};
        if (const auto* specs = d->compile_specs()) {
          auto& sl = bd.compile_specs.emplace();
          for (const auto* s : *specs) sl.push_back(CompileSpec{nameText(s->key()), scalars(s->value())});
        }
        list.push_back(std::move(bd));
      }
    }
    m.non_const_buffer_sizes = scalars(p->non_const_buffer_sizes());
    m.non_const_buffer_device = tables(p->non_const_buffer_device(), [&](const fb::NonConstBufferDevice* d) {
      return NonConstBufferDevice{d->buffer_idx(), static_cast<DeviceType>(d->device_type()), d->device_index()};
    });
    return m;
  }

  Result<Program> program(const fb::Program* p, const std::optional<ExtendedHeader>& header,
                          const std::string& name) const {
    Program out;
    out.version = p->version();
    out.execution_plan = tables(p->execution_plan(), [&](const fb::ExecutionPlan* plan) { return method(plan); });
    out.constant_buffer =
        tables(p->constant_buffer(), [&](const fb::Buffer* b) { return ConstantBuffer{bytesOf(b->storage())}; });
    out.backend_delegate_data = tables(p->backend_delegate_data(), [&](const fb::BackendDelegateInlineData* d) {
      return DelegateInlineData{bytesOf(d->data())};
    });
    if (const auto* segs = p->segments()) {
      auto& list = out.segments.emplace();
      const uint64_t base = header ? header->segment_base_offset : 0;
      for (flatbuffers::uoffset_t i = 0; i < segs->size(); ++i) {
        const auto* s = segs->Get(i);
        Segment segment;
        segment.offset = s->offset();
        if (s->size() > 0) {
          if (!header || base == 0)
            return makeError(name + ": segment " + std::to_string(i) + " holds " + std::to_string(s->size()) +
                             " bytes but the file has no extended header giving a segment base, so the data "
                             "cannot be located");
          const uint64_t fileSize = file_.size();
          if (s->offset() > fileSize - base || s->size() > fileSize - base - s->offset())
            return makeError(name + ": segment " + std::to_string(i) + " (offset " + std::to_string(s->offset()) +
                             ", " + std::to_string(s->size()) + " bytes, from base " + std::to_string(base) +
                             ") runs past the end of the file (" + std::to_string(fileSize) +
                             " bytes); the file is truncated or corrupt");
          segment.data = file_.slice(static_cast<size_t>(base + s->offset()), static_cast<size_t>(s->size()));
        } else {
          segment.data = file_.slice(0, 0);
        }
        list.push_back(std::move(segment));
      }
    }
    if (const auto* cs = p->constant_segment())
      out.constant_segment = SubsegmentOffsets{cs->segment_index(), scalars(cs->offsets())};
    out.mutable_data_segments = tables(p->mutable_data_segments(), [&](const fb::SubsegmentOffsets* s) {
      return SubsegmentOffsets{s->segment_index(), scalars(s->offsets())};
    });
    out.named_data =
        tables(p->named_data(), [&](const fb::NamedData* d) { return NamedData{nameText(d->key()), d->segment_index()}; });
    return out;
  }

 private:
  const Bytes& file_;
  mutable std::string firstError_;
  mutable std::map<std::string, std::string> raw_;
  mutable std::set<std::string> escapedLookalikes_;
  mutable size_t escapedStrings_ = 0;
};

bool hasExternalTensors(const Program& program) {
  for (const auto& m : program.methods())
    for (const auto& v : items(m.values))
      if (const auto* t = v.tensor(); t && t->isExternal()) return true;
  return false;
}

// External tensors (EXTERNAL constants) whose data no attached .ptd holds,
// one entry each: "method 'forward' value 3: <why>".
std::vector<std::string> missingExternalTensors(const Program& program) {
  std::vector<std::string> missing;
  for (const auto& m : program.methods()) {
    for (size_t v = 0; v < items(m.values).size(); ++v) {
      const auto* t = (*m.values)[v].tensor();
      if (t == nullptr || !t->isExternal()) continue;
      TensorDataSource src = tensorData(program, *t);
      if (src.kind == TensorDataSource::Kind::Missing)
        missing.push_back("method '" + m.displayName() + "' value " + std::to_string(v) + ": " + src.detail);
    }
  }
  return missing;
}

// AOTI delegates whose named data (weights) is not in the program: it lives
// in a .ptd such as aoti_cuda_blob.ptd. One entry per missing key, each
// "method 'forward' delegate CudaBackend: 'key' (weights_blob)".
std::vector<std::string> missingDelegateData(const Program& program) {
  std::vector<std::string> missing;
  std::set<std::string> seen;
  for (const auto& m : program.methods())
    for (const auto& d : items(m.delegates)) {
      if (!isAotiBackend(d.id.value_or(""))) continue;
      for (const auto& n : describeDelegatePayload(program, d).named_data)
        if (n.where == NamedDataLocation::Where::Missing) {
          std::string entry = "method '" + m.displayName() + "' delegate " + d.id.value_or("") + ": '" + n.key +
                              "' (" + n.role + ")";
          if (seen.insert(entry).second) missing.push_back(std::move(entry));
        }
    }
  return missing;
}

// Per-item problems of one kind as one warning: "named data not found:
// <first>" for one, "998 named data entries not found; the first: <first>"
// for many (a program with hundreds of them printed hundreds of lines).
std::string foldedWarning(const std::vector<std::string>& entries, const std::string& one, const std::string& many,
                          const std::string& hint) {
  if (entries.size() == 1) return one + ": " + entries.front() + hint;
  return std::to_string(entries.size()) + " " + many + "; the first: " + entries.front() + hint;
}

// A data file the caller named (--ptd, the app's Attach) that does not load
// is an error: a program named as the data file was read with a warning and
// its tensors shown without data. Files found beside the program stay
// warnings (another .ptd may sit there).
Status attachExternalData(LoadedProgram& loaded, const ReadOptions& options) {
  Program& program = loaded.program;
  std::vector<std::string> paths = options.ptd_paths;
  program.external_data = options.external_data;
  const bool findBeside = options.find_ptd_beside && options.external_data.empty();
  const bool needsDelegateData = !missingDelegateData(program).empty();
  if (paths.empty() && needsDelegateData && !hasExternalTensors(program) && findBeside && !loaded.file.path.empty())
    paths = candidateDataFiles(loaded.file.path);
  const bool needs = hasExternalTensors(program);
  if (paths.empty() && needs && findBeside && !loaded.file.path.empty())
    paths = candidateDataFiles(loaded.file.path);
  // What the program still lacks: a file found beside it is attached only
  // when it holds some of that (another program's aoti_cuda_blob.ptd left in
  // the folder was listed as this one's data).
  const auto lacking = [&program] { return missingDelegateData(program).size() + missingExternalTensors(program).size(); };
  std::vector<std::string> passedOver;
  for (const auto& path : paths) {
    auto data = readDataFile(path);
    if (!data && !options.ptd_paths.empty()) return makeError("data file not loaded: " + data.error().message);
    if (!data) {
      loaded.warnings.push_back("external data not loaded: " + data.error().message);
      continue;
    }
    const bool named = !options.ptd_paths.empty();
    const size_t before = named ? 0 : lacking();
    program.external_data.push_back(std::move(data.value()));
    if (!named && lacking() == before) {
      program.external_data.pop_back();
      passedOver.push_back(path);
    }
  }
  // Said where data is still missing (the file was looked at); a file beside
  // a program that has all its data is simply not its.
  if (!passedOver.empty() && lacking() > 0)
    for (const auto& path : passedOver)
      loaded.warnings.push_back("external data not attached: " + path +
                                " beside the program holds none of the data it lacks (another program's file?)");
  const std::string hint = paths.empty() ? " (no .ptd file found beside the program; pass --ptd FILE)" : "";
  if (needsDelegateData)
    if (auto missing = missingDelegateData(program); !missing.empty())
      loaded.warnings.push_back(
          foldedWarning(missing, "named data not found", "named data entries of AOTI delegates not found", hint));
  if (!needs) return Ok{};
  const std::vector<std::string> missingTensors = missingExternalTensors(program);
  if (!missingTensors.empty())
    loaded.warnings.push_back(
        foldedWarning(missingTensors, "external tensor data missing", "external tensors have no data", hint));
  return Ok{};
}

}  // namespace

std::string escapedStringsWarning(size_t count) {
  return std::to_string(count) + (count == 1 ? " string" : " strings") +
         " (names, ids, keys) in the program are not valid UTF-8 or hold control characters (a line break in a "
         "name); each such byte is shown as \\xNN, and a write keeps the original bytes";
}

std::vector<std::string> candidateDataFiles(const std::string& programPath) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  fs::path p(programPath);
  std::error_code ec;
  for (const fs::path& candidate :
       {fs::path(p).replace_extension(".ptd"), p.parent_path() / "_default_external_constant.ptd",
        p.parent_path() / "aoti_cuda_blob.ptd"}) {
    if (fs::is_regular_file(candidate, ec)) {
      std::string s = candidate.string();
      if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
    }
  }
  return out;
}

namespace {

// Everything but the external data, which needs to know the file's path.
Result<LoadedProgram> decodeProgram(Bytes bytes, const std::string& name) {
  const auto file = bytes.span();
  // The runtime's loaders read a 64-byte head first; anything shorter can
  // never load.
  if (file.size() < kMinimumProgramFileSize)
    return makeError(name + ": file is " + std::to_string(file.size()) +
                     " bytes, too small to be an ExecuTorch program (at least " +
                     std::to_string(kMinimumProgramFileSize) + " bytes)");
  if (std::memcmp(file.data() + 4, "ET12", 4) != 0) {
    std::string id;
    for (int i = 4; i < 8; ++i) {
      char c = static_cast<char>(file[static_cast<size_t>(i)]);
      id += (c >= 32 && c < 127) ? c : '?';
    }
    if (file[4] == 'E' && file[5] == 'T')
      return makeError(name + ": incompatible program version '" + id + "' (this tool reads 'ET12')");
    // The two other ExecuTorch files a user may pick for a program: say what
    // they are and what to do with them, not only which bytes differ.
    if (id == "FT01")
      return makeError(name + ": an ExecuTorch data file (.ptd, 'FT01'), not a program: open the .pte that uses it "
                              "(ptescope-cli info reads a .ptd)");
    if (id == "ED00" || std::memcmp(file.data() + 8, "ED00", 4) == 0)
      return makeError(name + ": an ETDump (the runtime's trace, 'ED00'), not a program: open the program it was "
                              "recorded on, then File > Import ETDump (ptescope-cli etdump PROGRAM TRACE)");
    return makeError(name + ": not an ExecuTorch program: identifier at byte 4 is '" + id + "', expected 'ET12'");
  }
  auto header = parseExtendedHeader(file);
  if (!header) return makeError(name + ": " + header.error().message);
  LoadedProgram loaded;
  loaded.file.file_size = file.size();
  loaded.file.header = *header;
  loaded.file.program_size = *header ? (*header)->program_size : file.size();
  const uint8_t* base = file.data();
  const size_t programSize = static_cast<size_t>(loaded.file.program_size);
  if (reinterpret_cast<uintptr_t>(base) % 16 != 0) {
    // Flatbuffer alignment checks are relative to real addresses: copy an
    // unaligned buffer into aligned storage first.
    return decodeProgram(Bytes::copyOf(file), name);
  }
  flatbuffers::Verifier verifier(base, programSize, kMaxDepth, kMaxTables);
  if (!fb::VerifyProgramBuffer(verifier))
    return makeError(name + ": the program flatbuffer failed verification (corrupt or truncated within its first " +
                     std::to_string(programSize) + " bytes)");
  const fb::Program* root = fb::GetProgram(base);
  ProgramDecoder decoder(bytes);
  auto program = decoder.program(root, *header, name);
  if (!program) return program.error();
  if (!decoder.firstError().empty()) return makeError(name + ": " + decoder.firstError());
  loaded.program = std::move(program.value());
  loaded.program.raw_strings = decoder.rawStrings();
  loaded.escaped_strings = decoder.escapedStrings();
  if (loaded.escaped_strings > 0) loaded.warnings.push_back(escapedStringsWarning(loaded.escaped_strings));
  auto problems = validateProgram(loaded.program);
  if (!problems.empty()) {
    std::string message = name + ": " + problems.front();
    if (problems.size() > 1) message += " (and " + std::to_string(problems.size() - 1) + " more problems)";
    return makeError(message);
  }
  return loaded;
}

}  // namespace

Result<LoadedProgram> readProgramBytes(Bytes bytes, const std::string& name, const ReadOptions& options) {
  auto loaded = decodeProgram(std::move(bytes), name);
  if (loaded)
    if (auto attached = attachExternalData(loaded.value(), options); !attached) return attached.error();
  return loaded;
}

Result<LoadedProgram> readProgramFile(const std::string& path, const ReadOptions& options) {
  auto bytes = mapFile(path);
  if (!bytes) return bytes.error();
  auto loaded = decodeProgram(bytes.value(), path);
  if (!loaded) return loaded;
  loaded->file.path = path;
  if (auto attached = attachExternalData(loaded.value(), options); !attached) return attached.error();
  return loaded;
}

Result<program::ExternalData> readDataBytes(Bytes bytes, const std::string& name) {
  auto file = bytes.span();
  auto header = parseFlatTensorHeader(file);
  if (!header) return makeError(name + ": " + header.error().message);
  if (reinterpret_cast<uintptr_t>(file.data()) % 16 != 0) return readDataBytes(Bytes::copyOf(file), name);
  const size_t fbSize = static_cast<size_t>(header->flatbuffer_offset + header->flatbuffer_size);
  flatbuffers::Verifier verifier(file.data(), fbSize, kMaxDepth, kMaxTables);
  if (!ft::VerifyFlatTensorBuffer(verifier))
    return makeError(name + ": the data file flatbuffer failed verification (corrupt, truncated, or the pre-2025-06 "
                            "FlatTensor layout that current runtimes no longer read)");
  const auto* root = ft::GetFlatTensor(file.data());
  program::ExternalData out;
  out.path = name;
  if (root->segments() == nullptr || root->named_data() == nullptr)
    return makeError(name + ": data file lacks segments or named_data");
  const auto* segments = root->segments();
  for (const auto* nd : *root->named_data()) {
    program::ExternalData::Entry entry;
    entry.key = nd->key() ? printableUtf8(std::string_view(nd->key()->data(), nd->key()->size())) : std::string();
    if (nd->segment_index() >= segments->size())
      return makeError(name + ": named data '" + entry.key + "' refers to segment " +
                       std::to_string(nd->segment_index()) + ", out of range (" + std::to_string(segments->size()) +
                       " segments)");
    const auto* seg = segments->Get(nd->segment_index());
    const uint64_t b = header->segment_base_offset;
    if (seg->offset() > file.size() - b || seg->size() > file.size() - b - seg->offset())
      return makeError(name + ": named data '" + entry.key + "' runs past the end of the file");
    entry.data = bytes.slice(static_cast<size_t>(b + seg->offset()), static_cast<size_t>(seg->size()));
    if (const auto* layout = nd->tensor_layout())
      entry.layout = TensorLayout{static_cast<ScalarType>(layout->scalar_type()), scalars(layout->sizes()),
                                  scalars(layout->dim_order())};
    out.entries.push_back(std::move(entry));
  }
  return out;
}

Result<program::ExternalData> readDataFile(const std::string& path) {
  auto bytes = mapFile(path);
  if (!bytes) return bytes.error();
  auto data = readDataBytes(bytes.value(), path);
  if (data) data->path = path;
  return data;
}

}  // namespace ptescope::pte
