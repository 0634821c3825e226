// Elementwise kernels: arithmetic, comparisons, logic and bitwise ops with
// numpy broadcasting, where/masked_fill/clamp, and the unary functions and
// activations of the portable library.
#include <cmath>
#include <limits>
#include <numbers>
#include <tuple>
#include <type_traits>

#include "exec/kernels/KernelSupport.h"

namespace ptescope::exec::kernels {
namespace {

// One operand of an elementwise kernel: a tensor, or a Scalar argument
// (`integer` holds an Int or Bool Scalar exactly).
struct Source {
  const Operand* tensor = nullptr;
  double constant = 0;
  int64_t integer = 0;
};

template <class T>
T readSource(const Source& s, int64_t offset) {
  if constexpr (std::is_same_v<T, int64_t>)
    return s.tensor ? s.tensor->integerAt(offset) : s.integer;
  else
    return s.tensor ? s.tensor->get(offset) : s.constant;
}

// out[i] = f(values of every source at i), broadcasting the tensors; the
// values are read as T (double, or int64_t for the exact integer kernels)
// and f's result stored as T.
template <class T = double, class F>
KernelResult mapElements(const std::vector<Source>& sources, const Operand& out, F f) {
  std::vector<Sizes> shapes;
  for (const auto& s : sources)
    if (s.tensor) shapes.push_back(s.tensor->sizes());
  auto sizes = broadcastShapes(shapes);
  if (!sizes) return sizes.error();
  if (auto status = resize(out, *sizes); !status) return status.error();
  constexpr size_t kMax = 3;
  std::array<Sizes, kMax> strides;
  for (size_t i = 0; i < kMax; ++i)
    strides[i] = i < sources.size() && sources[i].tensor ? broadcastStrides(sources[i].tensor->sizes(), *sizes)
                                                         : Sizes(sizes->size(), 0);
  std::array<T, kMax> values{};
  forEachIndex<kMax>(*sizes, strides, [&](int64_t i, const std::array<int64_t, kMax>& off) {
    for (size_t n = 0; n < sources.size(); ++n) values[n] = readSource<T>(sources[n], off[n]);
    if constexpr (std::is_same_v<T, int64_t>)
      out.setInteger(i, f(values.data()));
    else
      out.set(i, f(values.data()));
  });
  return KernelOutcome::done();
}

Source otherSource(const TensorOrScalar& other) {
  return {other.tensor ? &other.tensor : nullptr, other.constant};
}

using Binary = double (*)(double, double);

// (self, other, *, out) with other a tensor or (scalarOther) a Scalar.
// `exact`, when given, computes integer operands and outs exactly (int64 beyond 2^53 too).
using IntBinary = int64_t (*)(int64_t, int64_t);
bool allIntegers(std::initializer_list<const Operand*> operands) {
  for (const Operand* o : operands)
    if (*o && !isIntegral(o->dtype(), false)) return false;
  return true;
}
KernelResult binary(KernelContext& ctx, bool scalarOther, Binary op, IntBinary exact = nullptr) {
  Args a(ctx);
  auto self = a.in(0);
  const auto other = a.inOrScalar(1, scalarOther);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  if (exact && !scalarOther && allIntegers({&self, &other.tensor, &out}))
    return mapElements<int64_t>({{&self}, otherSource(other)}, out, [exact](const int64_t* v) { return exact(v[0], v[1]); });
  return mapElements({{&self}, otherSource(other)}, out, [op](const double* v) { return op(v[0], v[1]); });
}

// ---- the kernels that compute in the common type ----------------------------
//
// The portable kernels below compute in the compute type of the common dtype
// (get_compute_type: integers in their own type, half and bfloat16 in float32),
// so their integer results wrap and their float32 results round in float32.

// The second operand of a binary kernel: a tensor, or a Scalar (read exactly).
struct Binary2 {
  Source source;
  ScalarType common = ScalarType::Float;
};

// (self, other, ...) with other a tensor or (scalarOther) a Scalar: the sources and
// the common dtype (promoteTypes / promote_type_with_scalar).
Binary2 binaryOperands(Args& a, const Operand& self, size_t otherArg, bool scalarOther, Operand& otherTensor) {
  Binary2 b;
  if (!scalarOther) {
    otherTensor = a.in(otherArg);
    b.source = {&otherTensor};
    if (self && otherTensor) b.common = promoteTypes(self.dtype(), otherTensor.dtype());
    return b;
  }
  KernelContext& ctx = a.context();
  const auto kind = otherArg < ctx.argCount() ? ctx.kind(otherArg) : program::ValueKind::None;
  b.source.constant = a.scalar(otherArg);
  if (kind == program::ValueKind::Int) b.source.integer = a.integer(otherArg);
  else b.source.integer = int64_t(b.source.constant != 0 && kind == program::ValueKind::Bool);
  if (self) b.common = promoteWithScalar(self.dtype(), kind);
  return b;
}

// A value of the compute type `c` (an integer type or bool) as the C++ cast to it gives.
int64_t castInteger(ScalarType c, int64_t v) {
  switch (c) {
    case ScalarType::Bool: return v != 0;
    case ScalarType::Byte: return uint8_t(v);
    case ScalarType::Char: return int8_t(v);
    case ScalarType::Short: return int16_t(v);
    case ScalarType::Int: return int32_t(v);
    default: return v;
  }
}

bool isIntegerOrBool(ScalarType t) {
  return isIntegral(t, true) && t != ScalarType::UInt16 && t != ScalarType::UInt32 && t != ScalarType::UInt64;
}

enum class BitOp { And, Or, Xor, Left, Right };

// One bitwise op in the compute type `c` as upstream's compiled C++ gives it.
// `lhs << rhs` and `lhs >> rhs` by a negative count or one of at least the
// width are undefined in C++; upstream's kernels (pattern/bitwise_op.h) compile
// them to the CPU's shift instruction, which on x86-64 (shl/sar) and AArch64
// (lslv/asrv) takes the count modulo the operand width: 32 bits for int32 and
// the narrower types (which C++ promotes to int before shifting, then the
// result is cast back), 64 for int64. So int32 -3 << -7 is -3 << 25.
int64_t bitOp(BitOp op, ScalarType c, int64_t x, int64_t y) {
  switch (op) {
    case BitOp::And: return x & y;
    case BitOp::Or: return x | y;
    case BitOp::Xor: return x ^ y;
    default: break;
  }
  const bool left = op == BitOp::Left;
  if (c == ScalarType::Long) {
    const unsigned n = unsigned(y) & 63u;
    return left ? int64_t(uint64_t(x) << n) : x >> n;
  }
  const int32_t a = int32_t(x);
  const unsigned n = unsigned(int32_t(y)) & 31u;
  return left ? int32_t(uint32_t(a) << n) : a >> n;
}

// bitwise_and/or/xor and the shifts (.Tensor_out / .Scalar_out): integer and
// bool operands only, computed exactly in the common type.
KernelResult bitwise(KernelContext& ctx, bool scalarOther, BitOp op, const char* name) {
  Args a(ctx);
  auto self = a.in(0);
  Operand otherTensor;
  const Binary2 other = binaryOperands(a, self, 1, scalarOther, otherTensor);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  if (!isIntegerOrBool(self.dtype()) || (otherTensor && !isIntegerOrBool(otherTensor.dtype())) ||
      !isIntegerOrBool(other.common))
    return a.fail(std::string(name) + ": the operands of " + a.name(0) + " are not integer or bool");
  const ScalarType c = other.common;
  return mapElements<int64_t>({{&self}, other.source}, out, [=](const int64_t* v) {
    return castInteger(c, bitOp(op, c, castInteger(c, v[0]), castInteger(c, v[1])));
  });
}

// The runtime's floor_divide (util/math_util.h) for integers and floats.
int64_t floorDivideInteger(int64_t a, int64_t b) {
  if (b == -1) return int64_t(0 - uint64_t(a));  // INT_MIN / -1 wraps (the runtime's CPU traps there)
  const int64_t q = a / b;
  if ((a < 0) == (b < 0)) return q;
  return a % b ? q - 1 : q;
}
template <class T>
T floorDivideReal(T a, T b) {
  if (b == 0) return std::signbit(a) ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
  const T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0 && std::signbit(b) != std::signbit(mod)) return div - 1;
  return div;
}
// remainder_override: C's % for integers; for floats fmod kept in a float
// (for double too, as upstream's `float rem`) and moved to the divisor's sign.
template <class T>
T remainderReal(T a, T b) {
  float rem = float(std::fmod(a, b));
  if (((a < 0) != (b < 0)) && rem != 0) rem = float(rem + b);
  return T(rem);
}

enum class DivOp { FloorDivide, Trunc, Floor, Remainder, Fmod };

// One of the dividing ops in compute type `c`; an integer zero divisor sets `zero`.
template <class T>
T divideReal(DivOp op, T a, T b) {
  switch (op) {
    case DivOp::Trunc: return std::trunc(T(a / b));
    case DivOp::Remainder: return remainderReal(a, b);
    case DivOp::Fmod: return std::fmod(a, b);
    default: return floorDivideReal(a, b);
  }
}
int64_t divideInteger(DivOp op, ScalarType c, int64_t a, int64_t b) {
  if (op == DivOp::Remainder) return b == -1 ? 0 : a % b;
  if (op == DivOp::Trunc) {
    const int64_t q = b == -1 ? int64_t(0 - uint64_t(a)) : a / b;
    // value = std::trunc(a / b): the quotient goes through a double and back
    return c == ScalarType::Long && std::fabs(double(q)) >= 9.2233720368547758e18 ? INT64_MIN : int64_t(double(q));
  }
  return floorDivideInteger(a, b);
}

// floor_divide.out, div.out_mode / div.Scalar_mode_out, remainder.Tensor_out /
// .Scalar_out, fmod.Tensor_out / .Scalar_out as their portable kernels:
// a bool common dtype is refused; an integer division by zero is refused
// (InvalidArgument, "integer division by zero"), for a Scalar divisor before
// computing. fmod computes integers in double (so its Tensor overload turns an
// integer zero divisor into NaN, as upstream, and is not refused).
KernelResult divide(KernelContext& ctx, bool scalarOther, DivOp op, const char* name, size_t outArg = 2) {
  Args a(ctx);
  auto self = a.in(0);
  Operand otherTensor;
  const Binary2 other = binaryOperands(a, self, 1, scalarOther, otherTensor);
  std::optional<std::string> mode;
  if (op == DivOp::Trunc) mode = a.optText(2);
  auto out = a.out(outArg);
  if (a.failed()) return a.outcome();
  if (op == DivOp::Trunc) {
    if (!mode)  // no rounding mode: div.out's true division
      return mapElements({{&self}, other.source}, out, [](const double* v) { return v[0] / v[1]; });
    if (*mode != "trunc" && *mode != "floor") return a.fail("div: unknown rounding_mode '" + *mode + "'");
    if (*mode == "floor") op = DivOp::Floor;
  }
  if (other.common == ScalarType::Bool) return a.fail(std::string(name) + ": bool operands " + a.name(0) + " are not supported");
  ScalarType c = computeType(other.common);
  if (op == DivOp::Fmod && c != ScalarType::Float) c = ScalarType::Double;
  const bool integral = isIntegral(other.common, true);
  if (scalarOther && integral && other.source.constant == 0)
    return a.fail(std::string(name) + ": integer division by zero (" + a.name(1) + " is 0)");
  if (isIntegral(c, true)) {
    bool zero = false;
    auto result = mapElements<int64_t>({{&self}, other.source}, out, [&](const int64_t* v) -> int64_t {
      const int64_t x = castInteger(c, v[0]), y = castInteger(c, v[1]);
      if (y == 0) {
        zero = true;
        return 0;
      }
      return castInteger(c, divideInteger(op, c, x, y));
    });
    if (result && zero) return a.fail(std::string(name) + ": integer division by zero in " + a.name(1));
    return result;
  }
  if (c == ScalarType::Double)
    return mapElements({{&self}, other.source}, out, [op](const double* v) { return divideReal(op, v[0], v[1]); });
  return mapElements({{&self}, other.source}, out,
                     [op](const double* v) { return double(divideReal(op, float(v[0]), float(v[1]))); });
}

// out = f(values) computed in T (float, double or Wrapped<…>, as
// withElementType names the compute types): each value cast to T first
// (load_to_compute), integers wrapping.
template <class T, class F>
KernelResult computeAs(const std::vector<Source>& sources, const Operand& out, F f) {
  if constexpr (requires { typename T::is_wrapped; })
    return mapElements<int64_t>(sources, out, [&](const int64_t* v) {
      return int64_t(f(T::of(uint64_t(v[0])), T::of(uint64_t(v[1]))).v);
    });
  else
    return mapElements(sources, out, [&](const double* v) { return double(f(T(v[0]), T(v[1]))); });
}

// A Scalar argument as T: an Int exactly (wrapping), else its double value.
template <class T>
T scalarAs(Args& a, size_t arg) {
  if constexpr (requires { typename T::is_wrapped; }) {
    if (a.context().kind(arg) == program::ValueKind::Int) return T::of(uint64_t(a.integer(arg)));
  }
  return T(a.scalar(arg));
}

// add/sub (self, other, alpha, *, out) and mul (self, other, *, out) as op_add.cpp,
// op_sub.cpp, op_mul.cpp: `a + alpha * b`, `a - alpha * b`, `a * b` in the compute
// type (float32 rounds twice with an alpha, integers wrap); a floating alpha
// with an integer compute type is refused, as upstream's extract_scalar refuses it.
// add/sub (self - alpha * other), mul, and rsub.Scalar_out (other - alpha *
// self, op_rsub.cpp: real compute types only, so bool is refused).
enum class Arith { Add, Sub, Mul, RSub };
KernelResult arithmetic(KernelContext& ctx, bool scalarOther, Arith op) {
  Args a(ctx);
  auto self = a.in(0);
  Operand otherTensor;
  const Binary2 other = binaryOperands(a, self, 1, scalarOther, otherTensor);
  const size_t outArg = op == Arith::Mul ? 2 : 3;
  const double alpha = op == Arith::Mul ? 1.0 : a.scalar(2);
  auto out = a.out(outArg);
  if (a.failed()) return a.outcome();
  const ScalarType c = computeType(other.common);
  const char* name = op == Arith::Add ? "add" : op == Arith::Sub ? "sub" : op == Arith::RSub ? "rsub" : "mul";
  if (op != Arith::Mul && isIntegral(c, true) && ctx.kind(2) == program::ValueKind::Double)
    return a.fail(std::string(name) + ": alpha " + a.name(2) + " is not an integer for integer operands");
  if ((op == Arith::Sub || op == Arith::RSub) && c == ScalarType::Bool)
    return a.fail(std::string(name) + ": bool operands are not supported");
  if (c != ScalarType::Bool) {
    std::optional<KernelResult> done;
    withElementType(c, [&]<class T>(T) {
      const T alphaT = op == Arith::Mul ? T(1) : scalarAs<T>(a, 2);
      done = computeAs<T>({{&self}, other.source}, out, [&](T x, T y) {
        return op == Arith::Add ? x + alphaT * y : op == Arith::Sub ? x - alphaT * y : op == Arith::RSub ? y - alphaT * x : x * y;
      });
    });
    if (done) return *done;
  }
  // bool: through double, stored as bool (any nonzero is true)
  const double sign = op == Arith::Sub ? -1.0 : 1.0;
  return mapElements({{&self}, other.source}, out, [=](const double* v) {
    return op == Arith::Mul ? v[0] * v[1] : v[0] + sign * alpha * v[1];
  });
}

// atan2.out: in float (double when either operand is double), as op_atan2.cpp.
KernelResult atan2Kernel(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  Operand otherTensor;
  const Binary2 other = binaryOperands(a, self, 1, false, otherTensor);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  if (other.common == ScalarType::Double)
    return mapElements({{&self}, other.source}, out, [](const double* v) { return std::atan2(v[0], v[1]); });
  return mapElements({{&self}, other.source}, out,
                     [](const double* v) { return double(std::atan2(float(v[0]), float(v[1]))); });
}

// abs and neg as op_abs.cpp / op_neg.cpp in the element type: `x < 0 ? -x : x`
// keeps -0.0 (and an integer minimum wraps to itself), `-x` wraps too.
KernelResult signOp(KernelContext& ctx, bool negate) {
  Args a(ctx);
  auto self = a.in(0);
  auto out = a.out(1);
  if (a.failed()) return a.outcome();
  if (isIntegral(self.dtype(), false)) {
    const ScalarType t = self.dtype();
    return mapElements<int64_t>({{&self}}, out, [=](const int64_t* v) {
      const int64_t x = v[0];
      return castInteger(t, negate || x < 0 ? int64_t(0 - uint64_t(x)) : x);
    });
  }
  return mapElements({{&self}}, out, [=](const double* v) { return negate || v[0] < 0 ? -v[0] : v[0]; });
}

// pow.Scalar_out(Scalar self, Tensor exponent, *, out).
KernelResult powScalarBase(KernelContext& ctx) {
  Args a(ctx);
  const double base = a.scalar(0);
  auto exponent = a.in(1);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  return mapElements({{&exponent}}, out, [base](const double* v) { return std::pow(base, v[0]); });
}

// where.self_out(condition, self, other, *, out).
KernelResult where(KernelContext& ctx) {
  Args a(ctx);
  auto condition = a.in(0), self = a.in(1), other = a.in(2);
  auto out = a.out(3);
  if (a.failed()) return a.outcome();
  // Integer values exactly (int64 beyond 2^53 too), as the runtime copies them.
  if (allIntegers({&self, &other, &out}))
    return mapElements<int64_t>({{&condition}, {&self}, {&other}}, out,
                                [](const int64_t* v) { return v[0] != 0 ? v[1] : v[2]; });
  return mapElements({{&condition}, {&self}, {&other}}, out, [](const double* v) { return v[0] != 0 ? v[1] : v[2]; });
}

// masked_fill.Scalar_out(self, mask, value, *, out).
KernelResult maskedFill(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0), mask = a.in(1);
  const double value = a.scalar(2);
  auto out = a.out(3);
  if (a.failed()) return a.outcome();
  if (mask.dtype() != ScalarType::Bool) return a.fail("masked_fill: mask " + a.name(1) + " is not a bool tensor");
  return mapElements({{&self}, {&mask}}, out, [value](const double* v) { return v[1] != 0 ? value : v[0]; });
}

// The values of an integer dtype (bool excluded); empty for the others.
std::optional<std::pair<int64_t, int64_t>> integerRange(ScalarType type) {
  switch (type) {
    case ScalarType::Byte: return std::pair<int64_t, int64_t>{0, UINT8_MAX};
    case ScalarType::Char: return std::pair<int64_t, int64_t>{INT8_MIN, INT8_MAX};
    case ScalarType::Short: return std::pair<int64_t, int64_t>{INT16_MIN, INT16_MAX};
    case ScalarType::Int: return std::pair<int64_t, int64_t>{INT32_MIN, INT32_MAX};
    case ScalarType::Long: return std::pair<int64_t, int64_t>{INT64_MIN, INT64_MAX};
    default: return std::nullopt;
  }
}

double clampValue(double x, std::optional<double> lo, std::optional<double> hi) {
  if (std::isnan(x)) return x;
  if (lo && x < *lo) x = *lo;
  if (hi && x > *hi) x = *hi;
  return x;
}

// clamp.out(self, min?, max?, *, out) with Scalars.
KernelResult clampScalar(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const auto lo = a.optScalar(1), hi = a.optScalar(2);
  auto out = a.out(3);
  if (a.failed()) return a.outcome();
  if (!lo && !hi) return a.fail("clamp: at least one of min and max must be given");
  // op_clamp.cpp's checks: the dtype promoted with the bounds (a Double bound
  // makes an integer or bool tensor float32, an Int bound makes a bool one
  // int64) is out's, and each bound fits out's dtype (an integer out: the
  // bound cast to int64; a floating one: a finite bound within its range).
  ScalarType common = self.dtype();
  for (size_t arg : {size_t(1), size_t(2)}) {
    const auto kind = ctx.kind(arg);
    if (kind == program::ValueKind::Double && !isFloating(common)) common = ScalarType::Float;
    if (kind == program::ValueKind::Int && common == ScalarType::Bool) common = ScalarType::Long;
  }
  if (common != out.dtype())
    return a.fail("clamp: out " + a.name(3) + " is not " + program::scalarTypeShortName(common) + ", the dtype of " +
                  a.name(0) + " with the bounds");
  for (const auto& [bound, name] : {std::pair{lo, "min"}, std::pair{hi, "max"}}) {
    if (!bound) continue;
    bool fits = true;
    if (isFloating(out.dtype())) {
      const double most = out.dtype() == ScalarType::Float ? double(std::numeric_limits<float>::max())
                          : out.dtype() == ScalarType::Half ? 65504.0
                          : out.dtype() == ScalarType::BFloat16 ? 3.3895313892515355e38
                                                                : std::numeric_limits<double>::max();
      fits = !std::isfinite(*bound) || std::fabs(*bound) <= most;
    } else if (out.dtype() != ScalarType::Bool) {
      const auto range = integerRange(out.dtype());
      const int64_t v = std::isfinite(*bound) && std::fabs(*bound) < 9.2e18 ? int64_t(*bound) : int64_t(0);
      fits = range && v >= range->first && v <= range->second;
    }
    if (!fits) return a.fail(std::string("clamp: the ") + name + " bound does not fit out " + a.name(3) + "'s dtype");
  }
  return mapElements({{&self}}, out, [=](const double* v) { return clampValue(v[0], lo, hi); });
}

// clamp.Tensor_out(self, min?, max?, *, out) with tensors.
KernelResult clampTensor(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const auto lo = a.optIn(1), hi = a.optIn(2);
  auto out = a.out(3);
  if (a.failed()) return a.outcome();
  if (!lo && !hi) return a.fail("clamp: at least one of min and max must be given");
  const bool hasLo = lo.has_value(), hasHi = hi.has_value();
  return mapElements({{&self}, {hasLo ? &*lo : nullptr}, {hasHi ? &*hi : nullptr}}, out, [=](const double* v) {
    return clampValue(v[0], hasLo ? std::optional<double>(v[1]) : std::nullopt,
                      hasHi ? std::optional<double>(v[2]) : std::nullopt);
  });
}

using Unary = double (*)(double);

// (self, *, out).
// `exact`, when given, computes integer tensors exactly (int64 beyond 2^53 too).
using IntUnary = int64_t (*)(int64_t);
KernelResult unary(KernelContext& ctx, Unary op, size_t outArg = 1, IntUnary exact = nullptr) {
  Args a(ctx);
  auto self = a.in(0);
  auto out = a.out(outArg);
  if (a.failed()) return a.outcome();
  if (exact && isIntegral(self.dtype(), false) && isIntegral(out.dtype(), false))
    return mapElements<int64_t>({{&self}}, out, [exact](const int64_t* v) { return exact(v[0]); });
  return mapElements({{&self}}, out, [op](const double* v) { return op(v[0]); });
}

// The unary math of pattern/unary_ufunc_*.cpp: fn_float for every input
// dtype but double (integers, bool, half and bfloat16 are cast to float
// first), fn_double for double, the result cast to out's dtype. Upstream
// passes one function template for both, so `1.0 / x` divides in double and
// rounds to float once.
struct FloatMath {
  const char* name;
  float (*f)(float);
  double (*d)(double);
};
template <class Fn>
constexpr FloatMath floatMath(const char* name, Fn) {
  return {name, [](float x) -> float { return Fn{}(x); }, [](double x) -> double { return Fn{}(x); }};
}

// `toFloating`: unary_ufunc_realhbbf16_to_floathbf16 (out must be floating);
// otherwise unary_ufunc_realhbf16 (out has self's dtype; no bool).
KernelResult floatMathKernel(KernelContext& ctx, const FloatMath& m, bool toFloating) {
  Args a(ctx);
  auto self = a.in(0);
  auto out = a.out(1);
  if (a.failed()) return a.outcome();
  if (toFloating && !isFloating(out.dtype()))
    return a.fail(std::string(m.name) + ": out " + a.name(1) + " is not a floating-point tensor");
  if (!toFloating && (out.dtype() != self.dtype() || self.dtype() == ScalarType::Bool))
    return a.fail(std::string(m.name) + ": out " + a.name(1) + " does not have the dtype of " + a.name(0));
  if (self.dtype() == ScalarType::Double) return mapElements({{&self}}, out, [&m](const double* v) { return m.d(v[0]); });
  return mapElements({{&self}}, out, [&m](const double* v) { return double(m.f(float(v[0]))); });
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// sigmoid.out(self, *, out) as the portable kernel (op_sigmoid.cpp): in the
// compute type (double for float64, else float: half, bfloat16 and integer
// inputs are read as float), 1 / (1 + std::exp(-x)) with std::exp of that
// type; out must be floating.
KernelResult sigmoidKernel(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  auto out = a.out(1);
  if (a.failed()) return a.outcome();
  if (!isFloating(out.dtype())) return a.fail("sigmoid: out " + a.name(1) + " is not a floating-point tensor");
  if (self.dtype() == ScalarType::Double) return mapElements({{&self}}, out, [](const double* v) { return sigmoid(v[0]); });
  return mapElements({{&self}}, out, [](const double* v) {
    const float x = static_cast<float>(v[0]);
    return double(1.0f / (1.0f + std::exp(-x)));
  });
}
// std::tanh of a value of T as upstream's C++ resolves it: double's for
// double, float's for float, and for c10::Half / c10::BFloat16 the overload
// of c10/util/BFloat16-math.h, which computes in float and returns T (so the
// result is rounded to 16 bits before anything else uses it).
template <class T>
double tanhOf(T x) {
  if constexpr (std::is_same_v<T, double>) return std::tanh(x);
  else if constexpr (std::is_same_v<T, float>) return double(std::tanh(x));
  else return double(T(double(std::tanh(float(double(x))))));
}

// gelu.out(self, *, approximate, out) as op_gelu.cpp in the element type T:
// ±inf give 0 and inf; 'none' is `0.5 * x * (1 + erf(x * M_SQRT1_2))`, whose
// double constants make it double arithmetic for every T; 'tanh' computes
// x³ and the inner term in T, std::tanh of T (tanhOf: half and bfloat16
// round its result to T) and the rest in double, as the C++ of the kernel
// promotes it.
template <class T>
double geluAs(double in, bool tanhMode) {
  const T x(in);
  if (double(x) == -INFINITY) return 0.0;
  if (double(x) == INFINITY) return INFINITY;
  if (!tanhMode) return double(T(0.5 * double(x) * (1 + std::erf(double(x) * M_SQRT1_2))));
  const T beta(M_SQRT2 * M_2_SQRTPI * 0.5), kappa(double(float(0.044715)));
  const T cubed = x * x * x;
  const T inner = beta * (x + kappa * cubed);
  return double(T(0.5 * double(x) * (1.0 + tanhOf(inner))));
}

KernelResult gelu(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const auto mode = a.optText(1);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  const std::string approximate = mode.value_or("none");
  if (approximate != "none" && approximate != "tanh") return a.fail("gelu: unknown approximate '" + approximate + "'");
  if (!isFloating(self.dtype())) return a.fail("gelu: " + a.name(0) + " is not a floating-point tensor");
  const bool tanhMode = approximate == "tanh";
  std::optional<KernelResult> done;
  withElementType(self.dtype(), [&]<class T>(T) {
    if constexpr (!requires { typename T::is_wrapped; })
      done = mapElements({{&self}}, out, [=](const double* v) { return geluAs<T>(v[0], tanhMode); });
  });
  return *done;
}

// hardtanh.out(self, min_val, max_val, *, out).
KernelResult hardtanh(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const double lo = a.scalar(1), hi = a.scalar(2);
  auto out = a.out(3);
  if (a.failed()) return a.outcome();
  return mapElements({{&self}}, out, [=](const double* v) { return clampValue(v[0], lo, hi); });
}

// leaky_relu.out(self, negative_slope, *, out) as op_leaky_relu.cpp: x >= 0
// stays, else x * slope in the element type (half rounds as c10::Half).
KernelResult leakyRelu(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const double slope = a.scalar(1);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  if (!isFloating(self.dtype())) return a.fail("leaky_relu: " + a.name(0) + " is not a floating-point tensor");
  std::optional<KernelResult> done;
  withElementType(self.dtype(), [&]<class T>(T) {
    if constexpr (!requires { typename T::is_wrapped; }) {
      const T s(slope);
      done = mapElements({{&self}}, out, [=](const double* v) { return v[0] >= 0 ? v[0] : double(T(v[0]) * s); });
    }
  });
  return *done;
}

// elu.out(self, alpha, scale, input_scale, *, out) as op_elu.cpp in MathT
// (float for float, half and bfloat16; double for double): x <= 0 gives
// expm1(x * input_scale) * (alpha * scale), else x * scale (so -0.0 stays -0.0).
template <class M>
double eluAs(double in, double alpha, double scale, double inputScale) {
  const M x = M(in), negcoef = M(alpha) * M(scale);
  return double(x <= M(0) ? std::expm1(x * M(inputScale)) * negcoef : x * M(scale));
}

KernelResult elu(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const double alpha = a.scalar(1), scale = a.scalar(2), inputScale = a.scalar(3);
  auto out = a.out(4);
  if (a.failed()) return a.outcome();
  if (!isFloating(self.dtype())) return a.fail("elu: " + a.name(0) + " is not a floating-point tensor");
  if (self.dtype() == ScalarType::Double)
    return mapElements({{&self}}, out, [=](const double* v) { return eluAs<double>(v[0], alpha, scale, inputScale); });
  return mapElements({{&self}}, out, [=](const double* v) { return eluAs<float>(v[0], alpha, scale, inputScale); });
}

double sign(double x) { return std::isnan(x) ? x : double((x > 0) - (x < 0)); }

void addBinary(KernelRegistry& r, const std::string& name, Binary op, bool withScalar = true, const char* tensorOverload = "Tensor_out",
               const char* scalarOverload = "Scalar_out", IntBinary exact = nullptr) {
  r.add("aten::" + name + "." + tensorOverload, [op, exact](KernelContext& c) { return binary(c, false, op, exact); });
  if (withScalar) r.add("aten::" + name + "." + scalarOverload, [op](KernelContext& c) { return binary(c, true, op); });
}

}  // namespace

void addElementwiseKernels(KernelRegistry& r) {
  r.add("aten::add.out", [](KernelContext& c) { return arithmetic(c, false, Arith::Add); });
  r.add("aten::add.Scalar_out", [](KernelContext& c) { return arithmetic(c, true, Arith::Add); });
  r.add("aten::sub.out", [](KernelContext& c) { return arithmetic(c, false, Arith::Sub); });
  r.add("aten::sub.Scalar_out", [](KernelContext& c) { return arithmetic(c, true, Arith::Sub); });
  r.add("aten::mul.out", [](KernelContext& c) { return arithmetic(c, false, Arith::Mul); });
  r.add("aten::mul.Scalar_out", [](KernelContext& c) { return arithmetic(c, true, Arith::Mul); });
  r.add("aten::atan2.out", atan2Kernel);
  r.add("aten::abs.out", [](KernelContext& c) { return signOp(c, false); });
  r.add("aten::neg.out", [](KernelContext& c) { return signOp(c, true); });
  r.add("aten::rsub.Scalar_out", [](KernelContext& c) { return arithmetic(c, true, Arith::RSub); });
  addBinary(r, "div", [](double x, double y) { return x / y; }, true, "out");
  r.add("aten::div.out_mode", [](KernelContext& c) { return divide(c, false, DivOp::Trunc, "div", 3); });
  r.add("aten::div.Scalar_mode_out", [](KernelContext& c) { return divide(c, true, DivOp::Trunc, "div", 3); });
  addBinary(r, "pow", [](double x, double y) { return std::pow(x, y); }, true, "Tensor_Tensor_out", "Tensor_Scalar_out");
  r.add("aten::pow.Scalar_out", powScalarBase);
  r.add("aten::remainder.Tensor_out", [](KernelContext& c) { return divide(c, false, DivOp::Remainder, "remainder"); });
  r.add("aten::remainder.Scalar_out", [](KernelContext& c) { return divide(c, true, DivOp::Remainder, "remainder"); });
  r.add("aten::fmod.Tensor_out", [](KernelContext& c) { return divide(c, false, DivOp::Fmod, "fmod"); });
  r.add("aten::fmod.Scalar_out", [](KernelContext& c) { return divide(c, true, DivOp::Fmod, "fmod"); });
  r.add("aten::floor_divide.out", [](KernelContext& c) { return divide(c, false, DivOp::FloorDivide, "floor_divide"); });
  addBinary(r, "maximum", [](double x, double y) { return std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y); }, false, "out",
            "", [](int64_t x, int64_t y) { return std::max(x, y); });
  addBinary(r, "minimum", [](double x, double y) { return std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y); }, false, "out",
            "", [](int64_t x, int64_t y) { return std::min(x, y); });
  addBinary(r, "eq", [](double x, double y) { return double(x == y); });
  addBinary(r, "ne", [](double x, double y) { return double(x != y); });
  addBinary(r, "lt", [](double x, double y) { return double(x < y); });
  addBinary(r, "le", [](double x, double y) { return double(x <= y); });
  addBinary(r, "gt", [](double x, double y) { return double(x > y); });
  addBinary(r, "ge", [](double x, double y) { return double(x >= y); });
  addBinary(r, "logical_and", [](double x, double y) { return double(x != 0 && y != 0); }, false, "out");
  addBinary(r, "logical_or", [](double x, double y) { return double(x != 0 || y != 0); }, false, "out");
  addBinary(r, "logical_xor", [](double x, double y) { return double((x != 0) != (y != 0)); }, false, "out");
  const std::tuple<const char*, BitOp, const char*, const char*> bitwiseOps[] = {
      {"bitwise_and", BitOp::And, "Tensor_out", "Scalar_out"},
      {"bitwise_or", BitOp::Or, "Tensor_out", "Scalar_out"},
      {"bitwise_xor", BitOp::Xor, "Tensor_out", "Scalar_out"},
      {"bitwise_left_shift", BitOp::Left, "Tensor_out", "Tensor_Scalar_out"},
      {"bitwise_right_shift", BitOp::Right, "Tensor_out", "Tensor_Scalar_out"},
  };
  for (const auto& [name, op, tensorOverload, scalarOverload] : bitwiseOps) {
    const std::string n = name;
    const BitOp o = op;
    r.add("aten::" + n + "." + tensorOverload, [o, n](KernelContext& c) { return bitwise(c, false, o, n.c_str()); });
    r.add("aten::" + n + "." + scalarOverload, [o, n](KernelContext& c) { return bitwise(c, true, o, n.c_str()); });
  }
  // bitwise_not.out: bool is logical not, the integer types ~x; same dtype in and out.
  r.add("aten::bitwise_not.out", [](KernelContext& c) {
    Args a(c);
    auto self = a.in(0);
    auto out = a.out(1);
    if (a.failed()) return a.outcome();
    if (!isIntegerOrBool(self.dtype()) || out.dtype() != self.dtype())
      return a.fail("bitwise_not: " + a.name(0) + " is not an integer or bool tensor of out's dtype");
    const bool isBool = self.dtype() == ScalarType::Bool;
    return mapElements<int64_t>({{&self}}, out, [isBool](const int64_t* v) { return isBool ? int64_t(v[0] == 0) : ~v[0]; });
  });
  r.add("aten::where.self_out", where);
  r.add("aten::masked_fill.Scalar_out", maskedFill);
  r.add("aten::clamp.out", clampScalar);
  r.add("aten::clamp.Tensor_out", clampTensor);
  r.add("aten::hardtanh.out", hardtanh);
  r.add("aten::leaky_relu.out", leakyRelu);
  r.add("aten::elu.out", elu);
  r.add("aten::gelu.out", gelu);
  r.add("aten::sigmoid.out", sigmoidKernel);

  static constexpr FloatMath toFloating[] = {
      floatMath("acos", [](auto x) { return std::acos(x); }),
      floatMath("acosh", [](auto x) { return std::acosh(x); }),
      floatMath("asin", [](auto x) { return std::asin(x); }),
      floatMath("asinh", [](auto x) { return std::asinh(x); }),
      floatMath("atan", [](auto x) { return std::atan(x); }),
      floatMath("atanh", [](auto x) { return std::atanh(x); }),
      floatMath("cos", [](auto x) { return std::cos(x); }),
      floatMath("cosh", [](auto x) { return std::cosh(x); }),
      floatMath("erf", [](auto x) { return std::erf(x); }),
      floatMath("exp", [](auto x) { return std::exp(x); }),
      floatMath("expm1", [](auto x) { return std::expm1(x); }),
      floatMath("log", [](auto x) { return std::log(x); }),
      floatMath("log10", [](auto x) { return std::log10(x); }),
      floatMath("log1p", [](auto x) { return std::log1p(x); }),
      floatMath("log2", [](auto x) { return std::log2(x); }),
      floatMath("reciprocal", [](auto x) { return decltype(x)(1.0 / x); }),
      floatMath("rsqrt", [](auto x) { return decltype(x)(1.0 / std::sqrt(x)); }),
      floatMath("sin", [](auto x) { return std::sin(x); }),
      floatMath("sinh", [](auto x) { return std::sinh(x); }),
      floatMath("sqrt", [](auto x) { return std::sqrt(x); }),
      floatMath("tan", [](auto x) { return std::tan(x); }),
      floatMath("tanh", [](auto x) { return std::tanh(x); }),
  };
  static constexpr FloatMath sameType[] = {
      floatMath("ceil", [](auto x) { return std::ceil(x); }),
      floatMath("floor", [](auto x) { return std::floor(x); }),
      floatMath("trunc", [](auto x) { return std::trunc(x); }),
  };
  for (const FloatMath& m : toFloating)
    r.add(std::string("aten::") + m.name + ".out", [&m](KernelContext& c) { return floatMathKernel(c, m, true); });
  for (const FloatMath& m : sameType)
    r.add(std::string("aten::") + m.name + ".out", [&m](KernelContext& c) { return floatMathKernel(c, m, false); });

  const std::pair<const char*, Unary> unaries[] = {
      // op_relu.cpp: NaN or x >= 0 stays (so -0.0 stays -0.0), else 0
      {"relu", [](double x) { return std::isnan(x) || x >= 0 ? x : 0.0; }},
      {"round", [](double x) { return std::nearbyint(x); }},
      {"sign", sign},
      {"silu", [](double x) { return x * sigmoid(x); }},
      {"logical_not", [](double x) { return double(x == 0); }},
      {"isnan", [](double x) { return double(std::isnan(x)); }},
      {"isinf", [](double x) { return double(std::isinf(x)); }},
  };
  // relu, round and sign of integers, exactly (round keeps an integer as it is).
  const std::pair<const char*, IntUnary> exactUnaries[] = {
      {"relu", [](int64_t x) { return x < 0 ? int64_t(0) : x; }},
      {"round", [](int64_t x) { return x; }},
      {"sign", [](int64_t x) { return int64_t((x > 0) - (x < 0)); }},
  };
  for (const auto& [name, op] : unaries) {
    const Unary f = op;
    IntUnary exact = nullptr;
    for (const auto& [n, e] : exactUnaries)
      if (std::string_view(n) == name) exact = e;
    r.add(std::string("aten::") + name + ".out", [f, exact](KernelContext& c) { return unary(c, f, 1, exact); });
  }
}

}  // namespace ptescope::exec::kernels
