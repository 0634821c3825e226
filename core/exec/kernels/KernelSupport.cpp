// Element codecs, argument checks and shape arithmetic for the CPU kernels.
#include "exec/kernels/KernelSupport.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <limits>

namespace ptescope::exec::kernels {

float halfToFloat(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else {  // subnormal: normalize
      exponent = 127 - 15 + 1;
      while ((mantissa & 0x400u) == 0) {
        mantissa <<= 1;
        --exponent;
      }
      bits = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
    }
  } else if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else {
    bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
  }
  return std::bit_cast<float>(bits);
}

uint16_t floatToHalf(float f) {
  const uint32_t bits = std::bit_cast<uint32_t>(f);
  const uint16_t sign = uint16_t((bits >> 16) & 0x8000u);
  const int32_t exponent = int32_t((bits >> 23) & 0xffu) - 127 + 15;
  uint32_t mantissa = bits & 0x7fffffu;
  if (((bits >> 23) & 0xffu) == 0xffu) return uint16_t(sign | 0x7c00u | (mantissa ? 0x200u : 0u));
  if (exponent >= 0x1f) return uint16_t(sign | 0x7c00u);
  if (exponent <= 0) {
    if (exponent < -10) return sign;
    mantissa |= 0x800000u;
    const uint32_t shift = uint32_t(14 - exponent);
    uint32_t half = mantissa >> shift;
    const uint32_t rest = mantissa & ((1u << shift) - 1);
    const uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
    return uint16_t(sign | half);
  }
  uint32_t half = (uint32_t(exponent) << 10) | (mantissa >> 13);
  const uint32_t rest = mantissa & 0x1fffu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;  // may carry into the exponent, as it should
  return uint16_t(sign | half);
}

float bfloat16ToFloat(uint16_t b) { return std::bit_cast<float>(uint32_t(b) << 16); }

uint16_t floatToBfloat16(float f) {
  uint32_t bits = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return 0x7fc0u;
  bits += 0x7fffu + ((bits >> 16) & 1u);  // round to nearest even
  return uint16_t(bits >> 16);
}

namespace {

template <class T>
T loadAs(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <class T>
void storeAs(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

// Converts a double to an integer type as the runtime's C++ cast does on
// x86-64: truncated toward zero. NaN and values out of range are undefined in
// C++; the compiled runtime gives what cvttsd2si gives there, the "integer
// indefinite" (the minimum) of a 32-bit conversion for int32 and the narrower
// types (which then keep its low bits, as they keep the low bits of any value
// in int32's range: 300.0 to int8 is 44) and of a 64-bit one for int64 and
// uint32. ptescope computes the same without the undefined behaviour.
int64_t convert64(double v) {
  return v >= -9223372036854775808.0 && v < 9223372036854775808.0 ? int64_t(v) : INT64_MIN;
}
int32_t convert32(double v) { return v > -2147483649.0 && v < 2147483648.0 ? int32_t(v) : INT32_MIN; }
template <class T>
T saturate(double v) {
  if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, uint32_t>)
    return T(convert64(v));
  else if constexpr (std::is_same_v<T, uint64_t>)
    return v >= 9223372036854775808.0 ? uint64_t(convert64(v - 9223372036854775808.0)) ^ (uint64_t(1) << 63)
                                      : uint64_t(convert64(v));
  else
    return T(convert32(v));
}

// The codec of an integer dtype stored as T: stores convert as the runtime's cast.
template <class T>
ElementCodec integerCodec() {
  return {[](const uint8_t* p) { return double(loadAs<T>(p)); },
          [](uint8_t* p, double v) { storeAs(p, saturate<T>(v)); }, int(sizeof(T)), false};
}

}  // namespace

ElementCodec codecFor(ScalarType type) {
  switch (type) {
    case ScalarType::Byte: return integerCodec<uint8_t>();
    case ScalarType::Char: return integerCodec<int8_t>();
    case ScalarType::Short: return integerCodec<int16_t>();
    case ScalarType::Int: return integerCodec<int32_t>();
    case ScalarType::Long: return integerCodec<int64_t>();
    case ScalarType::UInt16: return integerCodec<uint16_t>();
    case ScalarType::UInt32: return integerCodec<uint32_t>();
    case ScalarType::UInt64: return integerCodec<uint64_t>();
    case ScalarType::Bool:
      return {[](const uint8_t* p) { return loadAs<uint8_t>(p) ? 1.0 : 0.0; },
              [](uint8_t* p, double v) { storeAs<uint8_t>(p, v != 0 ? 1 : 0); }, 1, false};
    case ScalarType::Half:
      return {[](const uint8_t* p) { return double(halfToFloat(loadAs<uint16_t>(p))); },
              [](uint8_t* p, double v) { storeAs(p, floatToHalf(float(v))); }, 2, true};
    case ScalarType::BFloat16:
      return {[](const uint8_t* p) { return double(bfloat16ToFloat(loadAs<uint16_t>(p))); },
              [](uint8_t* p, double v) { storeAs(p, floatToBfloat16(float(v))); }, 2, true};
    case ScalarType::Float:
      return {[](const uint8_t* p) { return double(loadAs<float>(p)); },
              [](uint8_t* p, double v) { storeAs(p, float(v)); }, 4, true};
    case ScalarType::Double:
      return {[](const uint8_t* p) { return loadAs<double>(p); }, [](uint8_t* p, double v) { storeAs(p, v); }, 8, true};
    default:
      return {};
  }
}

bool isFloating(ScalarType type) {
  return type == ScalarType::Float || type == ScalarType::Double || type == ScalarType::Half ||
         type == ScalarType::BFloat16;
}

bool isIntegral(ScalarType type, bool includeBool) {
  switch (type) {
    case ScalarType::Byte:
    case ScalarType::Char:
    case ScalarType::Short:
    case ScalarType::Int:
    case ScalarType::Long:
    case ScalarType::UInt16:
    case ScalarType::UInt32:
    case ScalarType::UInt64:
      return true;
    case ScalarType::Bool:
      return includeBool;
    default:
      return false;
  }
}

int64_t Operand::index(int64_t i) const {
  switch (tensor->dtype) {
    case ScalarType::Long: {
      int64_t v;
      std::memcpy(&v, at(i), 8);
      return v;
    }
    case ScalarType::Int: {
      int32_t v;
      std::memcpy(&v, at(i), 4);
      return v;
    }
    default:
      return int64_t(get(i));
  }
}

int64_t Operand::integerAt(int64_t i) const {
  const uint8_t* p = at(i);
  switch (tensor->dtype) {
    case ScalarType::Byte: return loadAs<uint8_t>(p);
    case ScalarType::Char: return loadAs<int8_t>(p);
    case ScalarType::Short: return loadAs<int16_t>(p);
    case ScalarType::Int: return loadAs<int32_t>(p);
    case ScalarType::Long: return loadAs<int64_t>(p);
    case ScalarType::UInt16: return loadAs<uint16_t>(p);
    case ScalarType::UInt32: return loadAs<uint32_t>(p);
    case ScalarType::UInt64: return int64_t(loadAs<uint64_t>(p));
    case ScalarType::Bool: return loadAs<uint8_t>(p) != 0;
    default: return int64_t(get(i));
  }
}

void Operand::setInteger(int64_t i, int64_t v) const {
  uint8_t* p = at(i);
  switch (tensor->dtype) {
    case ScalarType::Byte: return storeAs(p, uint8_t(v));
    case ScalarType::Char: return storeAs(p, int8_t(v));
    case ScalarType::Short: return storeAs(p, int16_t(v));
    case ScalarType::Int: return storeAs(p, int32_t(v));
    case ScalarType::Long: return storeAs(p, v);
    case ScalarType::UInt16: return storeAs(p, uint16_t(v));
    case ScalarType::UInt32: return storeAs(p, uint32_t(v));
    case ScalarType::UInt64: return storeAs(p, uint64_t(v));
    case ScalarType::Bool: return storeAs(p, uint8_t(v != 0));
    default: return set(i, double(v));
  }
}

namespace {
// Rank in c10's promotion lattice for the signed integers and the floats.
int integerWidth(ScalarType t) {
  switch (t) {
    case ScalarType::Char: return 1;
    case ScalarType::Short: return 2;
    case ScalarType::Int: return 4;
    case ScalarType::Long: return 8;
    default: return 0;
  }
}
}  // namespace

ScalarType promoteTypes(ScalarType a, ScalarType b) {
  if (a == b) return a;
  if (a == ScalarType::Bool) return b;
  if (b == ScalarType::Bool) return a;
  const bool fa = isFloating(a), fb = isFloating(b);
  if (fa && fb) {
    if (a == ScalarType::Double || b == ScalarType::Double) return ScalarType::Double;
    return ScalarType::Float;  // float with half/bfloat16, or half with bfloat16
  }
  if (fa) return a;
  if (fb) return b;
  if (a == ScalarType::Byte || b == ScalarType::Byte) {
    const ScalarType other = a == ScalarType::Byte ? b : a;
    return integerWidth(other) <= 2 ? ScalarType::Short : other;  // uint8 with int8/int16: int16
  }
  return integerWidth(a) >= integerWidth(b) ? a : b;
}

ScalarType promoteWithScalar(ScalarType tensor, program::ValueKind scalar) {
  if (scalar == program::ValueKind::Double) return isFloating(tensor) ? tensor : ScalarType::Float;
  if (scalar == program::ValueKind::Int) return tensor == ScalarType::Bool ? ScalarType::Long : tensor;
  return tensor;
}

// ---- Args --------------------------------------------------------------------

void Args::addError(const std::string& message) {
  if (!error_) error_ = makeError(message);
}

KernelResult Args::outcome() const {
  if (error_) return *error_;
  return KernelOutcome::unsupported(reason_);
}

KernelResult Args::fail(const std::string& message) { return makeError(message); }

KernelResult Args::unsupported(const std::string& reason) { return KernelOutcome::unsupported(reason); }

Operand Args::check(TensorRef* t, const std::string& name, bool writable, bool anyLayout) {
  Operand op{t, codecFor(t->dtype)};
  if (!t->onHost()) {
    if (reason_.empty())
      reason_ = name + " is in " + t->memory.str() + " memory (tagged " + t->device.str() +
                "); ptescope's CPU kernels only read host tensors";
  } else if (op.codec.load == nullptr) {
    if (reason_.empty())
      reason_ = name + " has dtype " + program::scalarTypeShortName(t->dtype) + ", outside ptescope's CPU kernels";
  } else if (!anyLayout && !t->default_dim_order && t->sizes.size() > 1) {
    if (reason_.empty()) reason_ = name + " has a non-contiguous dim_order";
  } else if (t->data == nullptr && t->numel() > 0) {
    addError(name + " has no memory (unbound or freed)");
  } else if (writable && !t->writable) {
    addError(name + " is a stored constant and cannot be written");
  }
  return op;
}

Operand Args::in(size_t arg) { return get(arg, false, false); }
Operand Args::inAnyLayout(size_t arg) { return get(arg, false, true); }
Operand Args::outAnyLayout(size_t arg) { return get(arg, true, true); }

Operand Args::get(size_t arg, bool writable, bool anyLayout) {
  if (arg >= ctx_.argCount()) {
    addError("missing tensor argument " + std::to_string(arg));
    return {};
  }
  TensorRef* t = ctx_.tensor(arg);
  if (t == nullptr) {
    addError("argument " + std::to_string(arg) + " (" + ctx_.valueName(arg) + ") is a " +
             program::valueKindName(ctx_.kind(arg)) + ", not a tensor");
    return {};
  }
  return check(t, ctx_.valueName(arg), writable, anyLayout);
}

Operand Args::out(size_t arg) { return get(arg, true, false); }

std::optional<Operand> Args::optIn(size_t arg) { return unlessNone(arg, &Args::in); }

TensorOrScalar Args::inOrScalar(size_t arg, bool scalar) {
  if (scalar) return {Operand{}, this->scalar(arg)};
  return {in(arg), 0};
}

std::vector<Operand> Args::tensors(size_t arg, bool writable) {
  std::vector<Operand> result;
  if (arg >= ctx_.argCount()) {
    addError("missing tensor list argument " + std::to_string(arg));
    return result;
  }
  const auto* list = std::get_if<program::TensorListValue>(&ctx_.literal(arg));
  if (list == nullptr) {
    addError("argument " + std::to_string(arg) + " (" + ctx_.valueName(arg) + ") is a " +
             program::valueKindName(ctx_.kind(arg)) + ", not a TensorList");
    return result;
  }
  for (int32_t item : program::items(list->items)) {
    TensorRef* t = ctx_.tensorAt(item);
    if (t == nullptr) {
      addError(ctx_.valueName(arg) + ": item %" + std::to_string(item) + " is not a tensor");
      return {};
    }
    result.push_back(check(t, "%" + std::to_string(item), writable));
  }
  return result;
}

std::vector<std::optional<Operand>> Args::optTensors(size_t arg) {
  std::vector<std::optional<Operand>> result;
  if (arg >= ctx_.argCount()) {
    addError("missing tensor list argument " + std::to_string(arg));
    return result;
  }
  const auto& data = ctx_.literal(arg);
  std::vector<int32_t> itemList;
  if (const auto* list = std::get_if<program::OptionalTensorListValue>(&data))
    itemList = program::items(list->items);
  else if (const auto* plain = std::get_if<program::TensorListValue>(&data))
    itemList = program::items(plain->items);
  else {
    addError("argument " + std::to_string(arg) + " (" + ctx_.valueName(arg) + ") is a " +
             program::valueKindName(ctx_.kind(arg)) + ", not an OptionalTensorList");
    return result;
  }
  for (int32_t item : itemList) {
    if (item < 0) {
      result.emplace_back(std::nullopt);
      continue;
    }
    TensorRef* t = ctx_.tensorAt(item);
    if (t == nullptr) {
      const auto* literal = ctx_.literalAt(item);
      if (literal && (std::holds_alternative<program::NoneValue>(*literal) ||
                      std::holds_alternative<program::NullValue>(*literal))) {
        result.emplace_back(std::nullopt);
        continue;
      }
      addError(ctx_.valueName(arg) + ": item %" + std::to_string(item) + " is not a tensor");
      return {};
    }
    result.emplace_back(check(t, "%" + std::to_string(item), false));
  }
  return result;
}

int64_t Args::integer(size_t arg) { return take<int64_t>(ctx_.intArg(arg), 0); }

std::optional<int64_t> Args::optInteger(size_t arg) { return unlessNone(arg, &Args::integer); }

double Args::scalar(size_t arg) { return take<double>(ctx_.scalarArg(arg), 0); }

std::optional<double> Args::optScalar(size_t arg) { return unlessNone(arg, &Args::scalar); }

bool Args::flag(size_t arg) { return take<bool>(ctx_.boolArg(arg), false); }

std::vector<int64_t> Args::ints(size_t arg) { return take<std::vector<int64_t>>(ctx_.intListArg(arg), {}); }

std::optional<std::vector<int64_t>> Args::optInts(size_t arg) { return unlessNone(arg, &Args::ints); }

std::vector<double> Args::doubles(size_t arg) {
  if (arg >= ctx_.argCount()) {
    addError("missing argument " + std::to_string(arg));
    return {};
  }
  if (const auto* list = std::get_if<program::DoubleListValue>(&ctx_.literal(arg))) return program::items(list->items);
  addError("argument " + std::to_string(arg) + " (" + ctx_.valueName(arg) + ") is a " +
           program::valueKindName(ctx_.kind(arg)) + ", not a DoubleList");
  return {};
}

std::optional<std::string> Args::optText(size_t arg) {
  if (ctx_.isNullArg(arg)) return std::nullopt;
  if (const auto* text = std::get_if<program::StringValue>(&ctx_.literal(arg))) return text->value.value_or("");
  addError("argument " + std::to_string(arg) + " (" + ctx_.valueName(arg) + ") is a " +
           program::valueKindName(ctx_.kind(arg)) + ", not a String");
  return std::nullopt;
}

std::optional<ScalarType> Args::optDtype(size_t arg) {
  if (ctx_.isNullArg(arg)) return std::nullopt;
  const int64_t code = integer(arg);
  if (!program::isValidScalarType(int(code))) {
    addError("argument " + std::to_string(arg) + " (" + ctx_.valueName(arg) + ") holds " + std::to_string(code) +
             ", not a ScalarType");
    return std::nullopt;
  }
  return ScalarType(code);
}

// ---- shapes ----------------------------------------------------------------

int64_t numelOf(const Sizes& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

Sizes contiguousStrides(const Sizes& sizes) {
  Sizes strides(sizes.size(), 1);
  for (size_t d = sizes.size(); d-- > 1;) strides[d - 1] = strides[d] * std::max<int64_t>(sizes[d], 1);
  return strides;
}

Sizes stridesForDimOrder(const Sizes& sizes, const std::vector<int64_t>& dimOrder) {
  if (dimOrder.size() != sizes.size()) return contiguousStrides(sizes);
  Sizes strides(sizes.size(), 1);
  int64_t stride = 1;
  for (size_t k = dimOrder.size(); k-- > 0;) {
    const auto d = size_t(dimOrder[k]);
    if (d >= sizes.size()) return contiguousStrides(sizes);
    strides[d] = stride;
    stride *= std::max<int64_t>(sizes[d], 1);
  }
  return strides;
}

std::string shapeText(const Sizes& sizes) {
  std::string text = "[";
  for (size_t i = 0; i < sizes.size(); ++i) text += (i ? ", " : "") + std::to_string(sizes[i]);
  return text + "]";
}

Result<size_t> normalizeDim(int64_t dim, size_t rank) {
  const int64_t r = int64_t(std::max<size_t>(rank, 1));
  if (dim < -r || dim >= r)
    return makeError("dim " + std::to_string(dim) + " is out of range for rank " + std::to_string(rank));
  return size_t(dim < 0 ? dim + r : dim);
}

Result<Sizes> broadcastShapes(const std::vector<Sizes>& shapes) {
  size_t rank = 0;
  for (const auto& s : shapes) rank = std::max(rank, s.size());
  Sizes out(rank, 1);
  for (const auto& s : shapes) {
    for (size_t k = 0; k < s.size(); ++k) {
      const size_t o = rank - 1 - k;
      const int64_t d = s[s.size() - 1 - k];
      if (d == out[o] || d == 1) continue;
      if (out[o] != 1) {
        std::string all;
        for (const auto& t : shapes) all += (all.empty() ? "" : " and ") + shapeText(t);
        return makeError("shapes " + all + " do not broadcast");
      }
      out[o] = d;
    }
  }
  return out;
}

Sizes broadcastStrides(const Sizes& sizes, const Sizes& outSizes) {
  Sizes strides(outSizes.size(), 0);
  int64_t stride = 1;
  for (size_t k = 0; k < sizes.size() && k < outSizes.size(); ++k) {
    const size_t i = sizes.size() - 1 - k;
    const size_t o = outSizes.size() - 1 - k;
    strides[o] = sizes[i] == 1 ? 0 : stride;
    stride *= sizes[i];
  }
  return strides;
}

Result<ReductionPlan> planReduction(const Sizes& sizes, const std::optional<std::vector<int64_t>>& dims, bool keepdim) {
  ReductionPlan plan;
  plan.reduced.assign(sizes.size(), false);
  if (!dims || dims->empty()) {
    std::fill(plan.reduced.begin(), plan.reduced.end(), true);
  } else {
    for (int64_t d : *dims) {
      auto dim = normalizeDim(d, sizes.size());
      if (!dim) return dim.error();
      if (sizes.empty()) continue;
      if (plan.reduced[*dim]) return makeError("dim " + std::to_string(d) + " appears twice in the reduction");
      plan.reduced[*dim] = true;
    }
  }
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (plan.reduced[d]) {
      plan.group *= sizes[d];
      if (keepdim) plan.out_sizes.push_back(1);
    } else {
      plan.out_sizes.push_back(sizes[d]);
    }
  }
  // Output strides per input dimension.
  plan.out_strides.assign(sizes.size(), 0);
  int64_t stride = 1;
  for (size_t d = sizes.size(); d-- > 0;) {
    if (plan.reduced[d]) continue;
    plan.out_strides[d] = stride;
    stride *= sizes[d];
  }
  return plan;
}

}  // namespace ptescope::exec::kernels
