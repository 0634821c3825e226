// What the CPU kernel families share: reading and writing elements of any
// supported dtype, the argument checks every kernel makes, broadcasting,
// dimension arithmetic and reduction plans.
//
// Arithmetic runs in double and is stored in the output's dtype (the
// portable kernels compute in the common type; for float32 and the small
// integer types this gives the same numbers up to the last bit of
// transcendental functions), except where float32 rounding in upstream's
// order decides the last bit: softmax, log_softmax, sigmoid, convolution,
// var_mean and upsample_bilinear2d compute in the element type exactly as
// their portable kernels do, and so do the unary float math, the bitwise
// and dividing ops, the matrix products, convolution, batch norm, sum and
// mean (issue 36; tests/oracle checks them against the runtime). Kernels that only move elements (views,
// permutes, cat, slices, gathers) copy bytes when the dtypes agree, so int64
// values and NaN payloads survive exactly.
//
// Argument positions follow the out-variant schemas as upstream's emitter
// writes them: the schema's arguments in order (outs last), then the
// return value again (a single out) or one TensorList of the outs (several).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "exec/Kernels.h"

namespace ptescope::exec::kernels {

using program::ScalarType;

float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);
float bfloat16ToFloat(uint16_t b);
uint16_t floatToBfloat16(float f);

using Loader = double (*)(const uint8_t*);
using Storer = void (*)(uint8_t*, double);

struct ElementCodec {
  Loader load = nullptr;
  Storer store = nullptr;
  int size = 0;
  bool floating = false;
};
// Empty (load == nullptr) for dtypes the kernels do not read.
ElementCodec codecFor(ScalarType type);
bool isFloating(ScalarType type);
bool isIntegral(ScalarType type, bool includeBool);

// The runtime's type promotion (c10's promoteTypes for the real, half,
// bfloat16 and bool types): bool below everything, a signed and an unsigned
// 8-bit integer meet at int16, half and bfloat16 meet at float32.
ScalarType promoteTypes(ScalarType a, ScalarType b);
// promote_type_with_scalar: a Double Scalar lifts integer and bool tensors to
// float32, an Int Scalar lifts only bool to int64, a Bool Scalar lifts nothing.
ScalarType promoteWithScalar(ScalarType tensor, program::ValueKind scalar);
// get_compute_type: half and bfloat16 compute in float32.
inline ScalarType computeType(ScalarType common) {
  return common == ScalarType::Half || common == ScalarType::BFloat16 ? ScalarType::Float : common;
}

// A tensor argument after its checks.
struct Operand {
  TensorRef* tensor = nullptr;
  ElementCodec codec;

  explicit operator bool() const { return tensor != nullptr; }
  ScalarType dtype() const { return tensor->dtype; }
  const std::vector<int64_t>& sizes() const { return tensor->sizes; }
  size_t rank() const { return tensor->sizes.size(); }
  int64_t numel() const { return tensor->numel(); }
  int64_t size(size_t dim) const { return tensor->sizes[dim]; }
  double get(int64_t i) const { return codec.load(tensor->data + i * codec.size); }
  void set(int64_t i, double v) const { codec.store(tensor->data + i * codec.size, v); }
  uint8_t* at(int64_t i) const { return tensor->data + i * codec.size; }
  // An element as an integer index (int32/int64 read exactly).
  int64_t index(int64_t i) const;
  // An integer or bool element exactly (every integer dtype, int64 beyond 2^53 too).
  int64_t integerAt(int64_t i) const;
  // Stores an integer as a C++ cast to the element type does: integer dtypes keep the low
  // bits (two's complement), bool is v != 0, floating dtypes round.
  void setInteger(int64_t i, int64_t v) const;
};

// An argument that is a Tensor in one overload and a Scalar in another
// (add.out / add.Scalar_out): `tensor` is empty for the Scalar.
struct TensorOrScalar {
  Operand tensor;
  double constant = 0;
};

// Reads a kernel's arguments by position. Each accessor checks its
// argument; the first broken-program problem becomes an error, the first
// situation outside ptescope's kernels (device memory, an unreadable dtype,
// a non-contiguous dim order) becomes "unsupported". After reading every
// argument a kernel asks failed() and returns outcome() when true.
class Args {
 public:
  explicit Args(KernelContext& ctx) : ctx_(ctx) {}

  Operand in(size_t arg);                  // a readable tensor
  Operand out(size_t arg);                 // a writable tensor
  // The same for kernels that handle any dim order themselves (the dim-order copies).
  Operand inAnyLayout(size_t arg);
  Operand outAnyLayout(size_t arg);
  std::optional<Operand> optIn(size_t arg);  // None → nullopt
  // A readable tensor, or (scalar) a Scalar argument.
  TensorOrScalar inOrScalar(size_t arg, bool scalar);
  std::vector<Operand> tensors(size_t arg, bool writable = false);  // a TensorList
  std::vector<std::optional<Operand>> optTensors(size_t arg);       // an OptionalTensorList (or TensorList)
  int64_t integer(size_t arg);
  std::optional<int64_t> optInteger(size_t arg);
  double scalar(size_t arg);  // Int, Double or Bool
  std::optional<double> optScalar(size_t arg);
  bool flag(size_t arg);
  std::vector<int64_t> ints(size_t arg);
  std::optional<std::vector<int64_t>> optInts(size_t arg);
  std::vector<double> doubles(size_t arg);
  std::optional<std::string> optText(size_t arg);  // a String (None → nullopt)
  // An optional ScalarType argument (stored as an Int); nullopt for None.
  std::optional<ScalarType> optDtype(size_t arg);

  bool failed() const { return error_.has_value() || !reason_.empty(); }
  KernelResult outcome() const;
  // Records a problem found later by the kernel.
  KernelResult fail(const std::string& message);
  KernelResult unsupported(const std::string& reason);
  KernelContext& context() { return ctx_; }
  std::string name(size_t arg) const { return ctx_.valueName(arg); }

 private:
  Operand check(TensorRef* tensor, const std::string& name, bool writable, bool anyLayout = false);
  Operand get(size_t arg, bool writable, bool anyLayout);
  void addError(const std::string& message);
  // The value of a context accessor's result; on an error, records it and gives `fallback`.
  template <class T>
  T take(Result<T> value, T fallback) {
    if (!value) {
      addError(value.error().message);
      return fallback;
    }
    return std::move(value.value());
  }
  // read(arg), or nullopt when the argument is None.
  template <class Read>
  auto unlessNone(size_t arg, Read read) -> std::optional<decltype((this->*read)(arg))> {
    if (ctx_.isNullArg(arg)) return std::nullopt;
    return (this->*read)(arg);
  }
  KernelContext& ctx_;
  std::optional<Error> error_;
  std::string reason_;
};

// ---- arithmetic in the element type ------------------------------------------
//
// The portable kernels that accumulate (matrix products, convolution, batch
// norm) add and multiply in the tensor's C++ element type, so each step
// rounds (or wraps) there. These types do the same with ptescope's element
// values:
// - float and double natively;
// - Reduced<Half>, Reduced<BFloat16>: c10::Half / c10::BFloat16, whose
//   operators compute in float and round the result back to 16 bits;
// - Wrapped<I>: an integer type, whose sums and products keep the low bits
//   (C++ promotes the narrow types to int and the assignment truncates; int32
//   and int64 overflow wraps on every CPU the runtime is built for).
template <ScalarType S>
struct Reduced {
  float v = 0;
  Reduced() = default;
  explicit Reduced(double x) : v(round(float(x))) {}
  static float round(float f) {
    return S == ScalarType::Half ? halfToFloat(floatToHalf(f)) : bfloat16ToFloat(floatToBfloat16(f));
  }
  static Reduced of(float f) {
    Reduced r;
    r.v = round(f);
    return r;
  }
  friend Reduced operator+(Reduced a, Reduced b) { return of(a.v + b.v); }
  friend Reduced operator-(Reduced a, Reduced b) { return of(a.v - b.v); }
  friend Reduced operator*(Reduced a, Reduced b) { return of(a.v * b.v); }
  friend Reduced operator/(Reduced a, Reduced b) { return of(a.v / b.v); }
  Reduced& operator+=(Reduced b) { return *this = *this + b; }
  explicit operator double() const { return v; }
};
template <class I>
struct Wrapped {
  using is_wrapped = void;
  I v = 0;
  Wrapped() = default;
  explicit Wrapped(double x) : v(I(int64_t(x))) {}
  static Wrapped of(uint64_t bits) {
    Wrapped w;
    w.v = I(bits);
    return w;
  }
  friend Wrapped operator+(Wrapped a, Wrapped b) { return of(uint64_t(int64_t(a.v)) + uint64_t(int64_t(b.v))); }
  friend Wrapped operator-(Wrapped a, Wrapped b) { return of(uint64_t(int64_t(a.v)) - uint64_t(int64_t(b.v))); }
  friend Wrapped operator*(Wrapped a, Wrapped b) { return of(uint64_t(int64_t(a.v)) * uint64_t(int64_t(b.v))); }
  Wrapped& operator+=(Wrapped b) { return *this = *this + b; }
  explicit operator double() const { return double(v); }
};

// Calls f(T{}) with T the C++ type the portable kernels use for `type`
// (float, double, Reduced<…>, Wrapped<…>); false for a dtype without one.
template <class F>
bool withElementType(ScalarType type, F&& f) {
  switch (type) {
    case ScalarType::Float: f(float{}); return true;
    case ScalarType::Double: f(double{}); return true;
    case ScalarType::Half: f(Reduced<ScalarType::Half>{}); return true;
    case ScalarType::BFloat16: f(Reduced<ScalarType::BFloat16>{}); return true;
    case ScalarType::Byte: f(Wrapped<uint8_t>{}); return true;
    case ScalarType::Char: f(Wrapped<int8_t>{}); return true;
    case ScalarType::Short: f(Wrapped<int16_t>{}); return true;
    case ScalarType::Int: f(Wrapped<int32_t>{}); return true;
    case ScalarType::Long: f(Wrapped<int64_t>{}); return true;
    default: return false;
  }
}

// Element i of t as T (exact for every dtype T stands for, int64 included).
template <class T>
T elementAs(const Operand& t, int64_t i) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>)
    return T(t.get(i));
  else if constexpr (requires { typename T::is_wrapped; })
    return T::of(uint64_t(t.integerAt(i)));
  else
    return T(t.get(i));
}
template <class T>
void setElement(const Operand& t, int64_t i, T v) {
  if constexpr (requires { typename T::is_wrapped; })
    t.setInteger(i, int64_t(v.v));
  else
    t.set(i, double(v));
}

// ---- shapes ----------------------------------------------------------------

using Sizes = std::vector<int64_t>;

int64_t numelOf(const Sizes& sizes);
Sizes contiguousStrides(const Sizes& sizes);
// Element strides of a tensor stored in `dimOrder` (outermost first; empty
// or the identity: contiguous).
Sizes stridesForDimOrder(const Sizes& sizes, const std::vector<int64_t>& dimOrder);
// "[2, 3]".
std::string shapeText(const Sizes& sizes);
// Dimension `dim` in [0, rank) (rank 0 accepts 0 and -1), or an error.
Result<size_t> normalizeDim(int64_t dim, size_t rank);
// Numpy broadcasting of several shapes.
Result<Sizes> broadcastShapes(const std::vector<Sizes>& shapes);
// Element strides of a contiguous tensor of `sizes` read as if broadcast to
// `outSizes` (0 along broadcast dimensions).
Sizes broadcastStrides(const Sizes& sizes, const Sizes& outSizes);

// Walks every element of `sizes` in row-major order, calling
// visit(linearIndex, offsets) with each operand's element offset under its
// strides. Stops early when the run is cancelled (KernelCancelPoll); what
// the caller computed is then dropped with the run.
template <size_t N, class Visit>
void forEachIndex(const Sizes& sizes, const std::array<Sizes, N>& strides, Visit&& visit) {
  const int64_t total = numelOf(sizes);
  if (total == 0) return;
  KernelCancelPoll cancelled;
  std::vector<int64_t> index(sizes.size(), 0);
  std::array<int64_t, N> offsets{};
  for (int64_t linear = 0; linear < total; ++linear) {
    if (cancelled()) return;
    visit(linear, offsets);
    for (size_t d = sizes.size(); d-- > 0;) {
      ++index[d];
      for (size_t n = 0; n < N; ++n) offsets[n] += strides[n][d];
      if (index[d] < sizes[d]) break;
      for (size_t n = 0; n < N; ++n) offsets[n] -= strides[n][d] * sizes[d];
      index[d] = 0;
    }
  }
}

// Steps a row-major multi-index over `sizes` to the next element (the last
// dimension fastest); after the last element it wraps to all zeros.
inline void nextIndex(Sizes& index, const Sizes& sizes) {
  for (size_t d = sizes.size(); d-- > 0;) {
    if (++index[d] < sizes[d]) return;
    index[d] = 0;
  }
}

// Copies element `from` of `src` into element `to` of `dst`: bytes when the
// dtypes agree, between integer (and bool) dtypes exactly as a C++ cast (the
// low bits), else through double.
inline void copyElement(const Operand& dst, int64_t to, const Operand& src, int64_t from) {
  if (dst.tensor->dtype == src.tensor->dtype)
    std::memcpy(dst.at(to), src.at(from), size_t(dst.codec.size));
  else if (!src.codec.floating && !dst.codec.floating)
    dst.setInteger(to, src.integerAt(from));
  else
    dst.set(to, src.get(from));
}

// Which dimensions a reduction folds and the result's sizes.
struct ReductionPlan {
  Sizes out_sizes;         // with or without the kept 1s
  Sizes out_strides;       // per input dimension: the output element stride (0 when reduced)
  std::vector<bool> reduced;
  int64_t group = 1;       // input elements per output element
};
// `dims` empty or absent reduces every dimension (as the portable kernels do
// for an empty dim list).
Result<ReductionPlan> planReduction(const Sizes& sizes, const std::optional<std::vector<int64_t>>& dims, bool keepdim);

// Resizes `out` (a runtime error on a mismatch, as the runtime's resize).
inline Status resize(const Operand& out, const Sizes& sizes) { return resizeTensor(*out.tensor, sizes); }

// Kernel families; each adds its kernels to the registry.
void addElementwiseKernels(KernelRegistry& registry);
void addReductionKernels(KernelRegistry& registry);
void addLinearKernels(KernelRegistry& registry);
void addShapeKernels(KernelRegistry& registry);
void addIndexingKernels(KernelRegistry& registry);
void addCreationKernels(KernelRegistry& registry);
void addQuantizedKernels(KernelRegistry& registry);
void addPrimKernels(KernelRegistry& registry);
void addCustomKernels(KernelRegistry& registry);  // custom ops of the shared samples
void addCortexMKernels(KernelRegistry& registry);  // cortex_m:: (CMSIS-NN int8 kernels)

}  // namespace ptescope::exec::kernels
