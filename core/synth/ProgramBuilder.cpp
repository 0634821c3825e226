#include "synth/ProgramBuilder.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <sstream>

#include "program/Text.h"
#include "program/Validate.h"
#include "util/Sha256.h"

namespace ptescope::synth {
using namespace ptescope::program;

namespace {

uint64_t alignUp(uint64_t n, uint64_t alignment) { return (n + alignment - 1) / alignment * alignment; }

// IEEE binary16 bits of `value`, rounded to nearest even.
uint16_t toHalfBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
  const uint32_t exponent = (bits >> 23) & 0xffu;
  uint32_t mantissa = bits & 0x7fffffu;
  if (exponent == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mantissa ? 0x200u : 0u));  // inf, NaN
  const int halfExponent = static_cast<int>(exponent) - 127 + 15;
  if (halfExponent >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow to inf
  if (halfExponent <= 0) {  // subnormal half, or zero
    if (halfExponent < -10) return sign;
    mantissa |= 0x800000u;
    const int shift = 14 - halfExponent;
    uint32_t half = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = (static_cast<uint32_t>(halfExponent) << 10) | (mantissa >> 13);
  const uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;  // may carry into the exponent: still right
  return static_cast<uint16_t>(sign | half);
}

uint16_t toBFloat16Bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if (std::isnan(value)) return 0x7fc0u;
  bits += 0x7fffu + ((bits >> 16) & 1u);  // round to nearest even
  return static_cast<uint16_t>(bits >> 16);
}

template <class T>
void append(std::vector<uint8_t>& out, T value) {
  uint8_t raw[sizeof(T)];
  std::memcpy(raw, &value, sizeof(T));
  out.insert(out.end(), raw, raw + sizeof(T));
}

std::string formatNumber(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

template <class T>
Result<T> integral(double value, const char* typeName) {
  if (std::trunc(value) != value || value < static_cast<double>(std::numeric_limits<T>::lowest()) ||
      value > static_cast<double>(std::numeric_limits<T>::max()))
    return makeError("value " + formatNumber(value) + " cannot be stored as " + typeName);
  return static_cast<T>(value);
}

}  // namespace

std::vector<CompileSpecEntry> aotiCompileSpecs(std::string_view methodName, std::string_view targetDevice) {
  return {textCompileSpec("method_name", methodName), textCompileSpec("target_device", targetDevice)};
}

CompileSpecEntry textCompileSpec(std::string key, std::string_view text) {
  return CompileSpecEntry{std::move(key), std::vector<uint8_t>(text.begin(), text.end())};
}

Result<Operator> parseOperatorName(std::string_view op) {
  const size_t separator = op.find("::");
  if (separator == std::string_view::npos || separator == 0)
    return makeError("operator '" + std::string(op) + "' has no namespace (expected namespace::name.overload, e.g. aten::add.out)");
  const size_t dot = op.find('.', separator + 2);
  const std::string_view name = op.substr(0, dot);
  if (name.size() == separator + 2)
    return makeError("operator '" + std::string(op) + "' has no name after its namespace");
  Operator result;
  result.name = std::string(name);
  result.overload = dot == std::string_view::npos ? std::string() : std::string(op.substr(dot + 1));
  if (dot != std::string_view::npos && result.overload->empty())
    return makeError("operator '" + std::string(op) + "' ends with '.' but has no overload name");
  if (result.qualifiedName().size() >= 100)
    return makeError("operator '" + std::string(op) + "' is 100 characters or longer; the runtime cannot look it up");
  return result;
}

Result<std::vector<uint8_t>> encodeElements(ScalarType dtype, const std::vector<double>& values) {
  std::vector<uint8_t> out;
  out.reserve(values.size() * static_cast<size_t>(std::max(elementSize(dtype), 1)));
  for (double v : values) {
    switch (dtype) {
      case ScalarType::Float: append(out, static_cast<float>(v)); break;
      case ScalarType::Double: append(out, v); break;
      case ScalarType::Half: append(out, toHalfBits(static_cast<float>(v))); break;
      case ScalarType::BFloat16: append(out, toBFloat16Bits(static_cast<float>(v))); break;
      case ScalarType::Bool: append(out, static_cast<uint8_t>(v != 0 ? 1 : 0)); break;
#define PTESCOPE_INTEGRAL(TYPE, CTYPE, NAME)          \
  case ScalarType::TYPE: {                            \
    auto x = integral<CTYPE>(v, NAME);                \
    if (!x) return x.error();                         \
    append(out, x.value());                           \
    break;                                            \
  }
      PTESCOPE_INTEGRAL(Byte, uint8_t, "uint8")
      PTESCOPE_INTEGRAL(Char, int8_t, "int8")
      PTESCOPE_INTEGRAL(Short, int16_t, "int16")
      PTESCOPE_INTEGRAL(Int, int32_t, "int32")
      PTESCOPE_INTEGRAL(Long, int64_t, "int64")
      PTESCOPE_INTEGRAL(UInt16, uint16_t, "uint16")
      PTESCOPE_INTEGRAL(UInt32, uint32_t, "uint32")
      PTESCOPE_INTEGRAL(UInt64, uint64_t, "uint64")
#undef PTESCOPE_INTEGRAL
      default:
        return makeError("constant data of dtype " + scalarTypeShortName(dtype) +
                         " cannot be given as numbers; use a plain integer, float or bool dtype");
    }
  }
  return out;
}

// ---------------------------------------------------------------------------

MethodBuilder::MethodBuilder(std::string name) : name_(std::move(name)) {
  method_.name = name_;
  method_.values.emplace();
  method_.inputs.emplace();
  method_.outputs.emplace();
  Chain chain;
  chain.inputs.emplace();
  chain.outputs.emplace();
  chain.instructions.emplace();
  method_.chains = std::vector<Chain>{std::move(chain)};
  method_.operators.emplace();
  method_.delegates.emplace();
  method_.non_const_buffer_sizes = std::vector<int64_t>{0};
}

void MethodBuilder::fail(std::string message) {
  if (firstError_.empty()) firstError_ = std::move(message);
}

ValueId MethodBuilder::addValue(ValueData data) {
  auto& values = ensure(method_.values);
  values.push_back(Value{std::move(data)});
  return static_cast<ValueId>(values.size() - 1);
}

bool MethodBuilder::checkValue(ValueId id, const std::string& what) {
  if (id < 0 || static_cast<size_t>(id) >= valueCount()) {
    fail(what + " refers to value " + std::to_string(id) + ", which does not exist (" +
         std::to_string(valueCount()) + " values)");
    return false;
  }
  return true;
}

size_t MethodBuilder::instructionCount() const { return items(items(method_.chains).front().instructions).size(); }

void MethodBuilder::appendInstruction(InstructionData data) {
  ensure((*method_.chains)[0].instructions).push_back(Instruction{std::move(data)});
}

ValueId MethodBuilder::addTensor(ScalarType dtype, std::vector<int32_t> sizes, ShapeDynamism dynamism) {
  if (!isValidScalarType(static_cast<int>(dtype))) fail("a tensor has the invalid dtype code " + std::to_string(static_cast<int>(dtype)));
  if (sizes.size() > 16) fail("a tensor has rank " + std::to_string(sizes.size()) + "; the runtime allows at most 16");
  for (int32_t s : sizes)
    if (s < 0) fail("a tensor has the negative size " + std::to_string(s));
  Tensor tensor;
  tensor.scalar_type = dtype;
  std::vector<uint8_t> dimOrder(sizes.size());
  for (size_t i = 0; i < dimOrder.size(); ++i) dimOrder[i] = static_cast<uint8_t>(i);
  tensor.sizes = std::move(sizes);
  tensor.dim_order = std::move(dimOrder);
  tensor.shape_dynamism = dynamism;
  return addValue(std::move(tensor));
}

void MethodBuilder::setDimOrder(ValueId id, std::vector<uint8_t> dimOrder) {
  if (!checkValue(id, "a dim order's tensor")) return;
  Tensor* tensor = (*method_.values)[static_cast<size_t>(id)].tensor();
  if (tensor == nullptr || dimOrder.size() != program::items(tensor->sizes).size()) {
    fail("a dim order names no tensor of its rank");
    return;
  }
  tensor->dim_order = std::move(dimOrder);
}

ValueId MethodBuilder::addConstant(ScalarType dtype, std::vector<int32_t> sizes, std::vector<uint8_t> data) {
  const ValueId id = addTensor(dtype, std::move(sizes));
  constants_.emplace_back(id, std::move(data));
  return id;
}

ValueId MethodBuilder::addInt(int64_t value) { return addValue(IntValue{value}); }
ValueId MethodBuilder::addDouble(double value) { return addValue(DoubleValue{value}); }
ValueId MethodBuilder::addBool(bool value) { return addValue(BoolValue{value}); }
ValueId MethodBuilder::addNull() { return addValue(NullValue{}); }
ValueId MethodBuilder::addString(std::string value) { return addValue(StringValue{std::move(value)}); }

ValueId MethodBuilder::addIntList(const std::vector<int64_t>& list) {
  std::vector<int64_t> indices;
  for (int64_t item : list) indices.push_back(addInt(item));
  return addValue(IntListValue{std::move(indices)});
}

ValueId MethodBuilder::addDoubleList(std::vector<double> list) { return addValue(DoubleListValue{std::move(list)}); }

ValueId MethodBuilder::addBoolList(const std::vector<bool>& list) {
  return addValue(BoolListValue{std::vector<uint8_t>(list.begin(), list.end())});
}

ValueId MethodBuilder::addView(ValueId base, std::vector<int32_t> sizes) {
  const std::string what = "a view of value " + std::to_string(base);
  if (!checkValue(base, what)) return -1;
  const Tensor* of = (*method_.values)[static_cast<size_t>(base)].tensor();
  const bool constant = std::any_of(constants_.begin(), constants_.end(), [&](const auto& c) { return c.first == base; });
  if (of == nullptr || constant || viewBase_.count(base)) {
    fail(what + ": the base must be a tensor that is not a constant or a view");
    return -1;
  }
  if (of->shape_dynamism != ShapeDynamism::Static) {
    fail(what + ": the base is not static (upstream elides only static views)");
    return -1;
  }
  const std::string baseType = tensorTypeText(*of);
  const int64_t baseBytes = of->nbytes();
  const ValueId view = addTensor(of->scalar_type, std::move(sizes));
  const Tensor& made = *(*method_.values)[static_cast<size_t>(view)].tensor();
  if (made.nbytes() != baseBytes) {
    fail(what + ": " + tensorTypeText(made) + " is " + std::to_string(made.nbytes()) + " bytes, its base " + baseType +
         " is " + std::to_string(baseBytes) + " (a view has its base's byte size)");
    return -1;
  }
  viewBase_[view] = base;
  return view;
}

bool MethodBuilder::checkNotView(ValueId id, const std::string& what) {
  auto found = viewBase_.find(id);
  if (found == viewBase_.end()) return true;
  fail(what + " is value " + std::to_string(id) + ", a view of value " + std::to_string(found->second) +
       ": a view is not written and is no method input or output");
  return false;
}

ValueId MethodBuilder::addTensorList(std::vector<ValueId> tensors) {
  for (ValueId t : tensors)
    if (checkValue(t, "a tensor list item") && !(*method_.values)[static_cast<size_t>(t)].tensor())
      fail("a tensor list item refers to value " + std::to_string(t) + ", which is not a tensor");
  return addValue(TensorListValue{std::move(tensors)});
}

ValueId MethodBuilder::addOptionalTensorList(std::vector<ValueId> tensors) {
  for (ValueId t : tensors)
    if (t != -1 && checkValue(t, "an optional tensor list item") && !(*method_.values)[static_cast<size_t>(t)].tensor())
      fail("an optional tensor list item refers to value " + std::to_string(t) + ", which is not a tensor");
  return addValue(OptionalTensorListValue{std::move(tensors)});
}

void MethodBuilder::addKernelCall(std::string_view op, const std::vector<ValueId>& inputs,
                                  const std::vector<ValueId>& outputs) {
  const std::string what = "kernel call " + std::to_string(instructionCount()) + " (" + std::string(op) + ")";
  auto parsed = parseOperatorName(op);
  if (!parsed) {
    fail(what + ": " + parsed.error().message);
    return;
  }
  for (ValueId v : inputs) checkValue(v, what + ": an input");
  for (ValueId v : outputs) {
    if (!checkValue(v, what + ": an output") || !checkNotView(v, what + ": an output")) continue;
    const auto kind = (*method_.values)[static_cast<size_t>(v)].kind();
    if (kind != ValueKind::Tensor && kind != ValueKind::TensorList)
      fail(what + ": output value " + std::to_string(v) + " is a " + valueKindName(kind) + ", not a tensor");
  }
  // Operators are deduplicated by (name, overload) in first-use order.
  const std::string key = parsed->qualifiedName();
  auto found = operatorIndex_.find(key);
  if (found == operatorIndex_.end()) {
    auto& operators = ensure(method_.operators);
    found = operatorIndex_.emplace(key, static_cast<int32_t>(operators.size())).first;
    operators.push_back(std::move(parsed.value()));
  }
  KernelCall call;
  call.op_index = found->second;
  std::vector<int32_t> args(inputs.begin(), inputs.end());
  args.insert(args.end(), outputs.begin(), outputs.end());
  // The return, as the emitter writes it.
  if (outputs.size() == 1) {
    const Value& out = (*method_.values)[static_cast<size_t>(outputs[0])];
    if (const auto* list = std::get_if<TensorListValue>(&out.data))
      args.push_back(addValue(TensorListValue{list->items}));
    else
      args.push_back(outputs[0]);
  } else if (outputs.size() > 1) {
    args.push_back(addValue(TensorListValue{std::vector<int32_t>(outputs.begin(), outputs.end())}));
  }
  call.args = std::move(args);
  appendInstruction(call);
}

void MethodBuilder::addDelegateCall(std::string backendId, std::vector<CompileSpecEntry> compileSpecs,
                                    std::vector<uint8_t> blob, const std::vector<ValueId>& inputs,
                                    const std::vector<ValueId>& outputs) {
  const std::string what = "delegate call " + std::to_string(instructionCount()) + " (" + backendId + ")";
  if (backendId.empty()) fail(what + ": the backend id is empty");
  for (ValueId v : inputs) checkValue(v, what + ": an input");
  for (ValueId v : outputs)
    if (checkValue(v, what + ": an output")) checkNotView(v, what + ": an output");
  BackendDelegate delegate;
  delegate.id = std::move(backendId);
  auto& specs = delegate.compile_specs.emplace();
  for (auto& entry : compileSpecs) {
    CompileSpec spec;
    spec.key = std::move(entry.key);
    spec.value = std::move(entry.value);  // always present: the runtime reads it without a null check
    specs.push_back(std::move(spec));
  }
  delegate.processed = DelegateDataReference{};  // resolved by build()
  auto& delegates = ensure(method_.delegates);
  DelegateCall call;
  call.delegate_index = static_cast<int32_t>(delegates.size());
  delegates.push_back(std::move(delegate));
  delegateBlobs_.push_back(std::move(blob));
  std::vector<int32_t> args(inputs.begin(), inputs.end());
  args.insert(args.end(), outputs.begin(), outputs.end());
  call.args = std::move(args);
  appendInstruction(call);
}

void MethodBuilder::setInputs(std::vector<ValueId> inputs) {
  for (ValueId v : inputs)
    if (checkValue(v, "a method input")) checkNotView(v, "a method input");
  method_.inputs = std::move(inputs);
}

void MethodBuilder::setOutputs(std::vector<ValueId> outputs) {
  for (ValueId v : outputs)
    if (checkValue(v, "a method output")) checkNotView(v, "a method output");
  method_.outputs = std::move(outputs);
}

void MethodBuilder::setDevice(ValueId id, Device device) {
  if (!checkValue(id, "setDevice")) return;
  Tensor* tensor = (*method_.values)[static_cast<size_t>(id)].tensor();
  if (!tensor) {
    fail("setDevice: value " + std::to_string(id) + " is not a tensor");
    return;
  }
  tensor->setDevice(device);
}

// ---------------------------------------------------------------------------

ProgramBuilder::ProgramBuilder() = default;
ProgramBuilder::~ProgramBuilder() = default;
ProgramBuilder::ProgramBuilder(ProgramBuilder&&) noexcept = default;
ProgramBuilder& ProgramBuilder::operator=(ProgramBuilder&&) noexcept = default;

MethodBuilder& ProgramBuilder::addMethod(std::string name) {
  methods_.push_back(std::make_unique<MethodBuilder>(std::move(name)));
  return *methods_.back();
}

MethodBuilder* ProgramBuilder::findMethod(std::string_view name) {
  for (auto& m : methods_)
    if (m->name() == name) return m.get();
  return nullptr;
}

void ProgramBuilder::addNamedData(std::string key, std::vector<uint8_t> data) {
  addExternalNamedData(std::string(), std::move(key), std::move(data));
}

void ProgramBuilder::addExternalNamedData(std::string tag, std::string key, std::vector<uint8_t> data) {
  if (key.empty()) {
    if (namedDataError_.empty()) namedDataError_ = "a named data entry has an empty key";
    return;
  }
  for (const auto& entry : namedData_) {
    if (entry.key != key) continue;
    if ((entry.tag != tag || entry.data != data) && namedDataError_.empty())
      namedDataError_ = "the named data key '" + key + "' is given twice with different data or places";
    return;
  }
  namedData_.push_back(NamedEntry{std::move(tag), std::move(key), std::move(data)});
}

std::vector<uint8_t> ProgramBuilder::addAotiPayload(const std::vector<uint8_t>& so, const std::vector<uint8_t>& weights,
                                                    std::string_view deviceName, bool weightsExternal) {
  const std::string soKey = sha256Hex(so) + "_so_blob";
  const std::string weightsKey = sha256Hex(weights) + "_weights_blob";
  addNamedData(soKey, so);
  addExternalNamedData(weightsExternal ? "aoti_" + std::string(deviceName) + "_blob" : std::string(), weightsKey,
                       weights);
  const std::string processed = soKey + "\n" + weightsKey;
  return std::vector<uint8_t>(processed.begin(), processed.end());
}

namespace {

// Before planning, each view and its base share a place of their own (the
// planner knows a view only by its address, as in a loaded program); the
// plan then gives them one real place.
void placeViewsOverTheirBase(Method& method, const std::map<ValueId, ValueId>& views) {
  auto& values = *method.values;
  std::map<ValueId, uint64_t> placeOfBase;
  for (const auto& [view, base] : views) {
    const uint64_t offset = 16 * placeOfBase.emplace(base, placeOfBase.size()).first->second;
    for (ValueId v : {view, base}) {
      AllocationInfo info;
      info.memory_id = 1;
      info.setOffset(offset);
      values[static_cast<size_t>(v)].tensor()->allocation_info = info;
    }
  }
}

// A view read where Dataflow takes it for an output (a delegate's last input
// whose base nothing uses later: see Dataflow's elided views) would be
// planned on its own; the builder refuses to write such a program.
Status checkViewsPlaced(const Method& method, const std::map<ValueId, ValueId>& views) {
  const auto& values = items(method.values);
  for (const auto& [view, base] : views) {
    const auto& a = values[static_cast<size_t>(view)].tensor()->allocation_info;
    const auto& b = values[static_cast<size_t>(base)].tensor()->allocation_info;
    const bool same = a.has_value() == b.has_value() &&
                      (!a || (a->memory_id == b->memory_id && a->offset() == b->offset()));
    if (!same)
      return makeError("method '" + method.displayName() + "': value " + std::to_string(view) + ", a view of value " +
                       std::to_string(base) +
                       ", is read where it reads as an output (the last input of a delegate whose base nothing "
                       "uses later, or of a kernel in its base's shape); it cannot be planned over its base");
  }
  return Ok{};
}

}  // namespace

Result<Program> ProgramBuilder::build(const BuildOptions& options) const {
  if (!namedDataError_.empty()) return makeError(namedDataError_);
  const uint64_t constantAlignment = options.constant_alignment;
  if (constantAlignment == 0 || (constantAlignment & (constantAlignment - 1)) != 0)
    return makeError("constant alignment " + std::to_string(constantAlignment) + " is not a power of two");

  Program program;
  program.version = 0;
  program.constant_buffer.emplace();  // present and empty, as upstream writes it
  program.backend_delegate_data.emplace();
  auto& segments = program.segments.emplace();
  segments.emplace_back();  // segment 0: the constant segment, filled below

  std::vector<uint8_t> constantSegment;
  std::vector<uint64_t> constantOffsets{0};  // offsets[0] is the "no data" placeholder
  std::set<std::string> methodNames;
  std::vector<std::vector<uint8_t>> segmentBlobs{{}};  // content of each segment, [0] the constants
  std::map<std::vector<uint8_t>, uint32_t> blobSegment;  // identical blobs share one segment
  std::optional<uint32_t> emptyInlineBlob;

  auto& methods = program.methods();
  for (const auto& builder : methods_) {
    const std::string where = "method '" + builder->name() + "'";
    if (!builder->firstError_.empty()) return makeError(where + ": " + builder->firstError_);
    if (!methodNames.insert(builder->name()).second)
      return makeError(where + " is defined twice; method names must be unique");
    Method method = builder->method_;
    auto& values = *method.values;

    for (const auto& [id, data] : builder->constants_) {
      Tensor& tensor = *values[static_cast<size_t>(id)].tensor();
      const int64_t nbytes = tensor.nbytes();
      if (nbytes < 0 || static_cast<uint64_t>(nbytes) != data.size())
        return makeError(where + ": constant value " + std::to_string(id) + " has " + std::to_string(data.size()) +
                         " bytes of data for a " + scalarTypeShortName(tensor.scalar_type) + " tensor of " +
                         std::to_string(nbytes) + " bytes");
      // Each constant starts at the tensor alignment; the padding goes
      // between constants, not after the last one.
      constantSegment.resize(alignUp(constantSegment.size(), constantAlignment), 0);
      constantOffsets.push_back(constantSegment.size());
      constantSegment.insert(constantSegment.end(), data.begin(), data.end());
      tensor.data_buffer_idx = static_cast<uint32_t>(constantOffsets.size() - 1);
    }

    auto& delegates = *method.delegates;
    for (size_t d = 0; d < delegates.size(); ++d) {
      const auto& blob = builder->delegateBlobs_[d];
      DelegateDataReference ref;
      if (blob.empty()) {
        if (!emptyInlineBlob) {
          emptyInlineBlob = static_cast<uint32_t>(program.backend_delegate_data->size());
          program.backend_delegate_data->push_back(DelegateInlineData{Bytes()});
        }
        ref.location = DelegateDataLocation::Inline;
        ref.index = *emptyInlineBlob;
      } else {
        ref.location = DelegateDataLocation::Segment;
        auto [found, added] = blobSegment.emplace(blob, static_cast<uint32_t>(segmentBlobs.size()));
        if (added) segmentBlobs.push_back(blob);
        ref.index = found->second;
      }
      delegates[d].processed = ref;
    }
    methods.push_back(std::move(method));
  }

  // Named data: in-program entries get a segment each after the delegate
  // blobs (identical bytes share one); tagged ones go to their data file.
  std::vector<std::pair<std::string, uint32_t>> namedSegments;  // key -> index into segmentBlobs
  for (const auto& entry : namedData_) {
    if (!entry.tag.empty()) {
      const std::string path = entry.tag + ".ptd";
      auto file = std::find_if(program.external_data.begin(), program.external_data.end(),
                               [&](const ExternalData& d) { return d.path == path; });
      if (file == program.external_data.end()) {
        program.external_data.push_back(ExternalData{path, {}});
        file = program.external_data.end() - 1;
      }
      file->entries.push_back(ExternalData::Entry{entry.key, Bytes::copyOf(entry.data), std::nullopt});
      continue;
    }
    auto [found, added] = blobSegment.emplace(entry.data, static_cast<uint32_t>(segmentBlobs.size()));
    if (added) segmentBlobs.push_back(entry.data);
    namedSegments.emplace_back(entry.key, found->second);
  }

  // Segment 0 holds the constants. A delegate blob identical to it would be
  // merged with it by the writer; share it here already so that a re-read
  // program has the same structure.
  segments[0].data = Bytes::fromVector(constantSegment);
  std::vector<uint32_t> segmentIndex(segmentBlobs.size(), 0);
  for (size_t s = 1; s < segmentBlobs.size(); ++s) {
    if (!constantSegment.empty() && segmentBlobs[s] == constantSegment) continue;
    segmentIndex[s] = static_cast<uint32_t>(segments.size());
    segments.push_back(Segment{Bytes::fromVector(std::move(segmentBlobs[s])), 0});
  }
  for (auto& method : methods)
    for (auto& delegate : ensure(method.delegates))
      if (delegate.processed->location == DelegateDataLocation::Segment)
        delegate.processed->index = segmentIndex[delegate.processed->index];
  if (!namedSegments.empty()) {
    auto& named = program.named_data.emplace();
    for (const auto& [key, index] : namedSegments) named.push_back(NamedData{key, segmentIndex[index]});
  }
  program.constant_segment = SubsegmentOffsets{0, constantOffsets};

  if (options.plan_memory) {
    for (size_t m = 0; m < methods.size(); ++m) {
      Method& method = methods[m];
      const auto& views = methods_[m]->viewBase_;
      placeViewsOverTheirBase(method, views);
      auto perMethod = options.planning_per_method.find(method.displayName());
      const auto& planning = perMethod != options.planning_per_method.end() ? perMethod->second : options.planning;
      auto plan = passes::planMemory(method, planning);
      if (!plan) return plan.error();
      if (auto placed = checkViewsPlaced(method, views); !placed) return placed.error();
    }
  }

  const auto problems = validateProgram(program);
  if (!problems.empty()) return makeError("the built program is not valid: " + problems.front());
  return program;
}

}  // namespace ptescope::synth
