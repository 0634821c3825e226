// A small portable subset of ExecuTorch's CPU kernels, enough to compute the
// CPU parts of the shared samples, the demo and the synthetic programs with
// real values. Arithmetic runs in double and is stored in the output's dtype
// (the portable kernels compute in the common type; for the float and small
// integer types this gives the same numbers). Argument positions follow the
// out-variant schemas, e.g. add.out(self, other, alpha, *, out).
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>
#include <string>

#include "exec/Kernels.h"

namespace ptescope::exec {
namespace {

using program::ScalarType;

// ---- element access ----------------------------------------------------

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

// Converts to an integer type the way a C++ cast does, but without the
// undefined behaviour for NaN and out-of-range values.
template <class T>
T saturate(double v) {
  if (std::isnan(v)) return T(0);
  if (v <= double(std::numeric_limits<T>::lowest())) return std::numeric_limits<T>::lowest();
  if (v >= double(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
  return T(v);
}

using Loader = double (*)(const uint8_t*);
using Storer = void (*)(uint8_t*, double);

struct ElementCodec {
  Loader load = nullptr;
  Storer store = nullptr;
  int size = 0;
  bool floating = false;
};

ElementCodec codecFor(ScalarType type) {
  switch (type) {
    case ScalarType::Byte:
      return {[](const uint8_t* p) { return double(loadAs<uint8_t>(p)); },
              [](uint8_t* p, double v) { storeAs(p, saturate<uint8_t>(v)); }, 1, false};
    case ScalarType::Char:
      return {[](const uint8_t* p) { return double(loadAs<int8_t>(p)); },
              [](uint8_t* p, double v) { storeAs(p, saturate<int8_t>(v)); }, 1, false};
    case ScalarType::Short:
      return {[](const uint8_t* p) { return double(loadAs<int16_t>(p)); },
              [](uint8_t* p, double v) { storeAs(p, saturate<int16_t>(v)); }, 2, false};
    case ScalarType::Int:
      return {[](const uint8_t* p) { return double(loadAs<int32_t>(p)); },
              [](uint8_t* p, double v) { storeAs(p, saturate<int32_t>(v)); }, 4, false};
    case ScalarType::Long:
      return {[](const uint8_t* p) { return double(loadAs<int64_t>(p)); },
              [](uint8_t* p, double v) { storeAs(p, saturate<int64_t>(v)); }, 8, false};
    case ScalarType::UInt16:
      return {[](const uint8_t* p) { return double(loadAs<uint16_t>(p)); },
              [](uint8_t* p, double v) { storeAs(p, saturate<uint16_t>(v)); }, 2, false};
    case ScalarType::UInt32:
      return {[](const uint8_t* p) { return double(loadAs<uint32_t>(p)); },
              [](uint8_t* p, double v) { storeAs(p, saturate<uint32_t>(v)); }, 4, false};
    case ScalarType::UInt64:
      return {[](const uint8_t* p) { return double(loadAs<uint64_t>(p)); },
              [](uint8_t* p, double v) { storeAs(p, saturate<uint64_t>(v)); }, 8, false};
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

// ---- argument checks ---------------------------------------------------

// A tensor input a CPU kernel may read, or why not.
struct Input {
  TensorRef* tensor = nullptr;
  ElementCodec codec;
};

// Checks shared by every CPU kernel. Unsupported situations become
// `*unsupported`; broken programs become an error.
Result<Input> readableTensor(KernelContext& ctx, size_t arg, std::string* unsupported) {
  TensorRef* t = arg < ctx.argCount() ? ctx.tensor(arg) : nullptr;
  if (t == nullptr) {
    if (arg >= ctx.argCount()) return makeError("missing tensor argument " + std::to_string(arg));
    return makeError("argument " + std::to_string(arg) + " (" + ctx.valueName(arg) + ") is a " +
                     program::valueKindName(ctx.kind(arg)) + ", not a tensor");
  }
  Input input{t, codecFor(t->dtype)};
  if (!t->onHost()) {
    *unsupported = ctx.valueName(arg) + " is in " + t->memory.str() + " memory (tagged " + t->device.str() +
                   "); ptescope's CPU kernels only read host tensors";
  } else if (input.codec.load == nullptr) {
    *unsupported = ctx.valueName(arg) + " has dtype " + program::scalarTypeShortName(t->dtype) +
                   ", outside ptescope's portable kernels";
  } else if (!t->default_dim_order && t->sizes.size() > 1) {
    *unsupported = ctx.valueName(arg) + " has a non-contiguous dim_order";
  } else if (t->data == nullptr && t->numel() > 0) {
    return makeError(ctx.valueName(arg) + " has no memory (unbound or freed)");
  }
  return input;
}

Result<Input> writableTensor(KernelContext& ctx, size_t arg, std::string* unsupported) {
  auto input = readableTensor(ctx, arg, unsupported);
  if (!input) return input;
  if (!input->tensor->writable) return makeError(ctx.valueName(arg) + " is a stored constant and cannot be written");
  return input;
}

// Collects the outcome of several argument checks: the first error wins,
// then the first unsupported reason.
class Checks {
 public:
  template <class T>
  bool add(const Result<T>& result) {
    if (!result && !error_) error_ = result.error();
    return result.ok();
  }
  std::string* reason() { return &reason_; }
  bool failed() const { return error_.has_value() || !reason_.empty(); }
  KernelResult outcome() const {
    if (error_) return *error_;
    return KernelOutcome::unsupported(reason_);
  }

 private:
  std::optional<Error> error_;
  std::string reason_;
};

// Sizes of a broadcast of a and b (numpy rules), or an error naming both.
Result<std::vector<int64_t>> broadcastSizes(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1)
      return makeError("shapes " + describeShape(ScalarType::Float, a).substr(7) + " and " +
                       describeShape(ScalarType::Float, b).substr(7) + " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

// Element strides of a contiguous tensor of `sizes` read as if broadcast to
// `outSizes` (0 along broadcast dimensions).
std::vector<int64_t> broadcastStrides(const std::vector<int64_t>& sizes, const std::vector<int64_t>& outSizes) {
  std::vector<int64_t> strides(outSizes.size(), 0);
  int64_t stride = 1;
  for (size_t k = 0; k < sizes.size(); ++k) {
    const size_t i = sizes.size() - 1 - k;
    const size_t o = outSizes.size() - 1 - k;
    strides[o] = sizes[i] == 1 ? 0 : stride;
    stride *= sizes[i];
  }
  return strides;
}

// Walks every element of `outSizes` in row-major order, calling
// visit(outIndex, offsets...) with each operand's element offset.
template <size_t N, class Visit>
void forEachBroadcast(const std::vector<int64_t>& outSizes, const std::array<std::vector<int64_t>, N>& strides, Visit visit) {
  int64_t total = 1;
  for (int64_t s : outSizes) total *= s;
  if (total == 0) return;
  std::vector<int64_t> index(outSizes.size(), 0);
  std::array<int64_t, N> offsets{};
  for (int64_t linear = 0; linear < total; ++linear) {
    visit(linear, offsets);
    for (size_t d = outSizes.size(); d-- > 0;) {
      ++index[d];
      for (size_t n = 0; n < N; ++n) offsets[n] += strides[n][d];
      if (index[d] < outSizes[d]) break;
      for (size_t n = 0; n < N; ++n) offsets[n] -= strides[n][d] * outSizes[d];
      index[d] = 0;
    }
  }
}

// ---- kernels -------------------------------------------------------------

using BinaryOp = double (*)(double, double, double /*alpha*/);

// out = op(self, other) with broadcasting. `alphaArg` is the position of a
// Scalar alpha (or SIZE_MAX), `otherIsScalar` reads `other` as a Scalar.
KernelResult binaryKernel(KernelContext& ctx, BinaryOp op, size_t alphaArg, size_t outArg, bool otherIsScalar) {
  Checks checks;
  auto self = readableTensor(ctx, 0, checks.reason());
  checks.add(self);
  Result<Input> other = Input{};
  Result<double> otherScalar = 0.0;
  if (otherIsScalar)
    checks.add(otherScalar = ctx.scalarArg(1));
  else
    checks.add(other = readableTensor(ctx, 1, checks.reason()));
  Result<double> alpha = 1.0;
  if (alphaArg != SIZE_MAX) checks.add(alpha = ctx.scalarArg(alphaArg));
  auto out = writableTensor(ctx, outArg, checks.reason());
  checks.add(out);
  if (checks.failed()) return checks.outcome();

  const std::vector<int64_t> otherSizes = otherIsScalar ? std::vector<int64_t>{} : other->tensor->sizes;
  auto sizes = broadcastSizes(self->tensor->sizes, otherSizes);
  if (!sizes) return sizes.error();
  if (auto status = resizeTensor(*out->tensor, *sizes); !status) return status.error();

  const std::array<std::vector<int64_t>, 2> strides{broadcastStrides(self->tensor->sizes, *sizes),
                                                    broadcastStrides(otherSizes, *sizes)};
  const uint8_t* a = self->tensor->data;
  const uint8_t* b = otherIsScalar ? nullptr : other->tensor->data;
  uint8_t* o = out->tensor->data;
  const int sa = self->codec.size, sb = otherIsScalar ? 0 : other->codec.size, so = out->codec.size;
  const Loader la = self->codec.load, lb = otherIsScalar ? nullptr : other->codec.load;
  const Storer st = out->codec.store;
  const double scalar = *otherScalar, alphaValue = *alpha;
  forEachBroadcast<2>(*sizes, strides, [&](int64_t i, const std::array<int64_t, 2>& off) {
    const double x = la(a + off[0] * sa);
    const double y = lb ? lb(b + off[1] * sb) : scalar;
    st(o + i * so, op(x, y, alphaValue));
  });
  return KernelOutcome::done();
}

using UnaryOp = double (*)(double);

KernelResult unaryKernel(KernelContext& ctx, UnaryOp op, size_t outArg) {
  Checks checks;
  auto self = readableTensor(ctx, 0, checks.reason());
  checks.add(self);
  auto out = writableTensor(ctx, outArg, checks.reason());
  checks.add(out);
  if (checks.failed()) return checks.outcome();
  if (auto status = resizeTensor(*out->tensor, self->tensor->sizes); !status) return status.error();
  const int64_t n = self->tensor->numel();
  for (int64_t i = 0; i < n; ++i)
    out->codec.store(out->tensor->data + i * out->codec.size, op(self->codec.load(self->tensor->data + i * self->codec.size)));
  return KernelOutcome::done();
}

// A copy that may change the dtype (to_copy, clone, _to_dim_order_copy).
// `dimOrderArg` holds an optional dim order that must be the contiguous one.
KernelResult convertingCopy(KernelContext& ctx, size_t dimOrderArg, size_t outArg) {
  if (dimOrderArg != SIZE_MAX && !ctx.isNullArg(dimOrderArg)) {
    auto order = ctx.intListArg(dimOrderArg);
    if (!order) return order.error();
    for (size_t i = 0; i < order->size(); ++i)
      if ((*order)[i] != int64_t(i))
        return KernelOutcome::unsupported("a non-contiguous dim_order is outside ptescope's portable kernels");
  }
  return unaryKernel(ctx, [](double x) { return x; }, outArg);
}

// Reads `dim` into range [0, rank).
Result<size_t> normalizeDim(int64_t dim, size_t rank) {
  const int64_t r = int64_t(std::max<size_t>(rank, 1));
  if (dim < -r || dim >= r) return makeError("dim " + std::to_string(dim) + " is out of range for rank " + std::to_string(rank));
  return size_t(dim < 0 ? dim + r : dim);
}

KernelResult softmaxKernel(KernelContext& ctx, bool logarithmic) {
  Checks checks;
  auto self = readableTensor(ctx, 0, checks.reason());
  checks.add(self);
  auto dimArg = ctx.intArg(1);
  checks.add(dimArg);
  auto out = writableTensor(ctx, 3, checks.reason());
  checks.add(out);
  if (checks.failed()) return checks.outcome();
  const auto& sizes = self->tensor->sizes;
  auto dim = normalizeDim(*dimArg, sizes.size());
  if (!dim) return dim.error();
  if (auto status = resizeTensor(*out->tensor, sizes); !status) return status.error();
  const int64_t length = sizes.empty() ? 1 : sizes[*dim];
  int64_t inner = 1, outer = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (d < *dim) outer *= sizes[d];
    if (d > *dim) inner *= sizes[d];
  }
  std::vector<double> row(size_t(std::max<int64_t>(length, 0)));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const int64_t base = o * length * inner + i;
      double maximum = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < length; ++k) {
        row[size_t(k)] = self->codec.load(self->tensor->data + (base + k * inner) * self->codec.size);
        maximum = std::max(maximum, row[size_t(k)]);
      }
      double sum = 0;
      for (int64_t k = 0; k < length; ++k) sum += std::exp(row[size_t(k)] - maximum);
      for (int64_t k = 0; k < length; ++k) {
        const double shifted = row[size_t(k)] - maximum;
        const double value = logarithmic ? shifted - std::log(sum) : std::exp(shifted) / sum;
        out->codec.store(out->tensor->data + (base + k * inner) * out->codec.size, value);
      }
    }
  }
  return KernelOutcome::done();
}

// native_layer_norm.out(input, normalized_shape, weight?, bias?, eps, *, out, mean, rstd)
KernelResult layerNormKernel(KernelContext& ctx) {
  Checks checks;
  auto input = readableTensor(ctx, 0, checks.reason());
  checks.add(input);
  auto normalized = ctx.intListArg(1);
  checks.add(normalized);
  Result<Input> weight = Input{}, bias = Input{};
  if (!ctx.isNullArg(2)) checks.add(weight = readableTensor(ctx, 2, checks.reason()));
  if (!ctx.isNullArg(3)) checks.add(bias = readableTensor(ctx, 3, checks.reason()));
  auto eps = ctx.scalarArg(4);
  checks.add(eps);
  auto out = writableTensor(ctx, 5, checks.reason());
  checks.add(out);
  auto mean = writableTensor(ctx, 6, checks.reason());
  checks.add(mean);
  auto rstd = writableTensor(ctx, 7, checks.reason());
  checks.add(rstd);
  if (checks.failed()) return checks.outcome();

  const auto& sizes = input->tensor->sizes;
  if (normalized->size() > sizes.size() ||
      !std::equal(normalized->begin(), normalized->end(), sizes.end() - std::ptrdiff_t(normalized->size())))
    return makeError("normalized_shape does not match the trailing sizes of " + ctx.valueName(0));
  const size_t axis = sizes.size() - normalized->size();
  int64_t rows = 1, columns = 1;
  for (size_t d = 0; d < sizes.size(); ++d) (d < axis ? rows : columns) *= sizes[d];
  std::vector<int64_t> statSizes(sizes.begin(), sizes.begin() + std::ptrdiff_t(axis));
  statSizes.resize(sizes.size(), 1);
  for (auto* t : {out->tensor, mean->tensor, rstd->tensor}) {
    const auto& target = t == out->tensor ? sizes : statSizes;
    if (auto status = resizeTensor(*t, target); !status) return status.error();
  }
  const Input* w = weight->tensor ? &weight.value() : nullptr;
  const Input* b = bias->tensor ? &bias.value() : nullptr;
  for (const Input* affine : {w, b})
    if (affine && affine->tensor->numel() != columns)
      return makeError("layer norm weight/bias %" + std::to_string(affine->tensor->value) + " has " +
                       std::to_string(affine->tensor->numel()) + " elements, the normalized shape " + std::to_string(columns));
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* row = input->tensor->data + r * columns * input->codec.size;
    double sum = 0, squares = 0;
    for (int64_t c = 0; c < columns; ++c) {
      const double x = input->codec.load(row + c * input->codec.size);
      sum += x;
      squares += x * x;
    }
    const double m = columns ? sum / double(columns) : 0.0;
    const double variance = columns ? std::max(squares / double(columns) - m * m, 0.0) : 0.0;
    const double inverse = 1.0 / std::sqrt(variance + *eps);
    for (int64_t c = 0; c < columns; ++c) {
      double y = (input->codec.load(row + c * input->codec.size) - m) * inverse;
      if (w) y *= w->codec.load(w->tensor->data + c * w->codec.size);
      if (b) y += b->codec.load(b->tensor->data + c * b->codec.size);
      out->codec.store(out->tensor->data + (r * columns + c) * out->codec.size, y);
    }
    mean->codec.store(mean->tensor->data + r * mean->codec.size, m);
    rstd->codec.store(rstd->tensor->data + r * rstd->codec.size, inverse);
  }
  return KernelOutcome::done();
}

// addmm.out(self, mat1, mat2, beta, alpha, *, out) and mm.out(self, mat2, *, out):
// out = beta * bias + alpha * (a @ b).
KernelResult matmulKernel(KernelContext& ctx, bool withBias) {
  const size_t aArg = withBias ? 1 : 0, bArg = withBias ? 2 : 1, outArg = withBias ? 5 : 2;
  Checks checks;
  Result<Input> bias = Input{};
  if (withBias) checks.add(bias = readableTensor(ctx, 0, checks.reason()));
  auto a = readableTensor(ctx, aArg, checks.reason());
  checks.add(a);
  auto b = readableTensor(ctx, bArg, checks.reason());
  checks.add(b);
  Result<double> beta = 1.0, alpha = 1.0;
  if (withBias) {
    checks.add(beta = ctx.scalarArg(3));
    checks.add(alpha = ctx.scalarArg(4));
  }
  auto out = writableTensor(ctx, outArg, checks.reason());
  checks.add(out);
  if (checks.failed()) return checks.outcome();
  const auto& as = a->tensor->sizes;
  const auto& bs = b->tensor->sizes;
  if (as.size() != 2 || bs.size() != 2 || as[1] != bs[0])
    return makeError("matrix shapes " + describeShape(a->tensor->dtype, as) + " and " + describeShape(b->tensor->dtype, bs) +
                     " cannot be multiplied");
  const std::vector<int64_t> sizes{as[0], bs[1]};
  std::vector<int64_t> biasStrides(2, 0);
  if (withBias) {
    auto shape = broadcastSizes(bias->tensor->sizes, sizes);
    if (!shape || *shape != sizes) return makeError("bias " + ctx.valueName(0) + " does not broadcast to the product");
    biasStrides = broadcastStrides(bias->tensor->sizes, sizes);
  }
  if (auto status = resizeTensor(*out->tensor, sizes); !status) return status.error();
  for (int64_t i = 0; i < sizes[0]; ++i) {
    for (int64_t j = 0; j < sizes[1]; ++j) {
      double sum = 0;
      for (int64_t k = 0; k < as[1]; ++k)
        sum += a->codec.load(a->tensor->data + (i * as[1] + k) * a->codec.size) *
               b->codec.load(b->tensor->data + (k * bs[1] + j) * b->codec.size);
      double value = *alpha * sum;
      if (withBias)
        value += *beta * bias->codec.load(bias->tensor->data + (i * biasStrides[0] + j * biasStrides[1]) * bias->codec.size);
      out->codec.store(out->tensor->data + (i * sizes[1] + j) * out->codec.size, value);
    }
  }
  return KernelOutcome::done();
}

// view_copy.out(self, size, *, out): the same elements under new sizes (one
// size may be -1).
KernelResult viewCopyKernel(KernelContext& ctx) {
  Checks checks;
  auto self = readableTensor(ctx, 0, checks.reason());
  checks.add(self);
  auto requested = ctx.intListArg(1);
  checks.add(requested);
  auto out = writableTensor(ctx, 2, checks.reason());
  checks.add(out);
  if (checks.failed()) return checks.outcome();
  std::vector<int64_t> sizes = *requested;
  int64_t known = 1;
  int inferred = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1 && inferred < 0)
      inferred = int(i);
    else
      known *= sizes[i];
  }
  const int64_t numel = self->tensor->numel();
  if (inferred >= 0 && known != 0) sizes[size_t(inferred)] = numel / known;
  if (std::accumulate(sizes.begin(), sizes.end(), int64_t(1), std::multiplies<>()) != numel)
    return makeError("view_copy: sizes do not hold the " + std::to_string(numel) + " elements of " + ctx.valueName(0));
  if (auto status = resizeTensor(*out->tensor, sizes); !status) return status.error();
  for (int64_t i = 0; i < numel; ++i)
    out->codec.store(out->tensor->data + i * out->codec.size, self->codec.load(self->tensor->data + i * self->codec.size));
  return KernelOutcome::done();
}

// permute_copy.out(self, dims, *, out).
KernelResult permuteCopyKernel(KernelContext& ctx) {
  Checks checks;
  auto self = readableTensor(ctx, 0, checks.reason());
  checks.add(self);
  auto dims = ctx.intListArg(1);
  checks.add(dims);
  auto out = writableTensor(ctx, 2, checks.reason());
  checks.add(out);
  if (checks.failed()) return checks.outcome();
  const auto& in = self->tensor->sizes;
  if (dims->size() != in.size()) return makeError("permute_copy: " + std::to_string(dims->size()) + " dims for rank " + std::to_string(in.size()));
  std::vector<int64_t> inStrides(in.size(), 1);
  for (size_t d = in.size(); d-- > 1;) inStrides[d - 1] = inStrides[d] * in[d];
  std::vector<int64_t> sizes(in.size()), strides(in.size());
  std::vector<bool> seen(in.size(), false);
  for (size_t d = 0; d < dims->size(); ++d) {
    auto source = normalizeDim((*dims)[d], in.size());
    if (!source || seen[*source]) return makeError("permute_copy: dims are not a permutation");
    seen[*source] = true;
    sizes[d] = in[*source];
    strides[d] = inStrides[*source];
  }
  if (auto status = resizeTensor(*out->tensor, sizes); !status) return status.error();
  forEachBroadcast<1>(sizes, {strides}, [&](int64_t i, const std::array<int64_t, 1>& off) {
    out->codec.store(out->tensor->data + i * out->codec.size, self->codec.load(self->tensor->data + off[0] * self->codec.size));
  });
  return KernelOutcome::done();
}

double addOp(double x, double y, double alpha) { return x + alpha * y; }
double subOp(double x, double y, double alpha) { return x - alpha * y; }
double mulOp(double x, double y, double) { return x * y; }
double divOp(double x, double y, double) { return x / y; }

}  // namespace

void addPortableKernels(KernelRegistry& r) {
  r.add("aten::add.out", [](KernelContext& c) { return binaryKernel(c, addOp, 2, 3, false); });
  r.add("aten::sub.out", [](KernelContext& c) { return binaryKernel(c, subOp, 2, 3, false); });
  r.add("aten::mul.out", [](KernelContext& c) { return binaryKernel(c, mulOp, SIZE_MAX, 2, false); });
  r.add("aten::div.out", [](KernelContext& c) { return binaryKernel(c, divOp, SIZE_MAX, 2, false); });
  r.add("aten::add.Scalar_out", [](KernelContext& c) { return binaryKernel(c, addOp, 2, 3, true); });
  r.add("aten::sub.Scalar_out", [](KernelContext& c) { return binaryKernel(c, subOp, 2, 3, true); });
  r.add("aten::mul.Scalar_out", [](KernelContext& c) { return binaryKernel(c, mulOp, SIZE_MAX, 2, true); });
  r.add("aten::div.Scalar_out", [](KernelContext& c) { return binaryKernel(c, divOp, SIZE_MAX, 2, true); });

  r.add("aten::relu.out", [](KernelContext& c) { return unaryKernel(c, [](double x) { return x > 0 ? x : 0.0; }, 1); });
  r.add("aten::sigmoid.out", [](KernelContext& c) { return unaryKernel(c, [](double x) { return 1.0 / (1.0 + std::exp(-x)); }, 1); });
  r.add("aten::silu.out", [](KernelContext& c) { return unaryKernel(c, [](double x) { return x / (1.0 + std::exp(-x)); }, 1); });
  r.add("aten::tanh.out", [](KernelContext& c) { return unaryKernel(c, [](double x) { return std::tanh(x); }, 1); });
  r.add("aten::exp.out", [](KernelContext& c) { return unaryKernel(c, [](double x) { return std::exp(x); }, 1); });
  r.add("aten::sin.out", [](KernelContext& c) { return unaryKernel(c, [](double x) { return std::sin(x); }, 1); });
  r.add("aten::cos.out", [](KernelContext& c) { return unaryKernel(c, [](double x) { return std::cos(x); }, 1); });
  r.add("aten::neg.out", [](KernelContext& c) { return unaryKernel(c, [](double x) { return -x; }, 1); });
  r.add("aten::abs.out", [](KernelContext& c) { return unaryKernel(c, [](double x) { return std::fabs(x); }, 1); });
  r.add("aten::sqrt.out", [](KernelContext& c) { return unaryKernel(c, [](double x) { return std::sqrt(x); }, 1); });
  r.add("aten::rsqrt.out", [](KernelContext& c) { return unaryKernel(c, [](double x) { return 1.0 / std::sqrt(x); }, 1); });

  r.add("aten::_softmax.out", [](KernelContext& c) { return softmaxKernel(c, false); });
  r.add("aten::_log_softmax.out", [](KernelContext& c) { return softmaxKernel(c, true); });
  r.add("aten::native_layer_norm.out", layerNormKernel);
  r.add("aten::mm.out", [](KernelContext& c) { return matmulKernel(c, false); });
  r.add("aten::addmm.out", [](KernelContext& c) { return matmulKernel(c, true); });
  r.add("aten::view_copy.out", viewCopyKernel);
  r.add("aten::permute_copy.out", permuteCopyKernel);

  // Copies that may convert the dtype: (self, non_blocking, dim_order?, *, out)
  // and (self, non_blocking, memory_format?, *, out) / (self, memory_format?, *, out).
  r.add("dim_order_ops::_to_dim_order_copy.out", [](KernelContext& c) { return convertingCopy(c, 2, 3); });
  r.add("dim_order_ops::_clone_dim_order.out", [](KernelContext& c) { return convertingCopy(c, 2, 3); });
  r.add("aten::_to_copy.out", [](KernelContext& c) { return convertingCopy(c, SIZE_MAX, 3); });
  r.add("aten::clone.out", [](KernelContext& c) { return convertingCopy(c, SIZE_MAX, 2); });
}

}  // namespace ptescope::exec
