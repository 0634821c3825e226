// Elementwise kernels: arithmetic, comparisons, logic and bitwise ops with
// numpy broadcasting, where/masked_fill/clamp, and the unary functions and
// activations of the portable library.
#include <cmath>
#include <numbers>

#include "exec/kernels/KernelSupport.h"

namespace ptescope::exec::kernels {
namespace {

// One operand of an elementwise kernel: a tensor, or a Scalar argument.
struct Source {
  const Operand* tensor = nullptr;
  double constant = 0;
};

// out[i] = f(values of every source at i), broadcasting the tensors.
template <class F>
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
  std::array<double, kMax> values{};
  forEachIndex<kMax>(*sizes, strides, [&](int64_t i, const std::array<int64_t, kMax>& off) {
    for (size_t n = 0; n < sources.size(); ++n)
      values[n] = sources[n].tensor ? sources[n].tensor->get(off[n]) : sources[n].constant;
    out.set(i, f(values.data()));
  });
  return KernelOutcome::done();
}

Source otherSource(const TensorOrScalar& other) {
  return {other.tensor ? &other.tensor : nullptr, other.constant};
}

using Binary = double (*)(double, double);

double pythonRemainder(double x, double y) {
  double r = std::fmod(x, y);
  if (r != 0 && ((r < 0) != (y < 0))) r += y;
  return r;
}

int64_t asInt(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9.2e18) return INT64_MAX;
  if (v <= -9.2e18) return INT64_MIN;
  return int64_t(v);
}

// (self, other, *, out) with other a tensor or (scalarOther) a Scalar.
KernelResult binary(KernelContext& ctx, bool scalarOther, Binary op) {
  Args a(ctx);
  auto self = a.in(0);
  const auto other = a.inOrScalar(1, scalarOther);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  return mapElements({{&self}, otherSource(other)}, out, [op](const double* v) { return op(v[0], v[1]); });
}

// add/sub: (self, other, alpha, *, out).
KernelResult addLike(KernelContext& ctx, bool scalarOther, double sign) {
  Args a(ctx);
  auto self = a.in(0);
  const auto other = a.inOrScalar(1, scalarOther);
  const double alpha = a.scalar(2) * sign;
  auto out = a.out(3);
  if (a.failed()) return a.outcome();
  return mapElements({{&self}, otherSource(other)}, out,
                     [alpha](const double* v) { return v[0] + alpha * v[1]; });
}

// rsub.Scalar_out(self, other, alpha, *, out): other - alpha * self.
KernelResult rsub(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const double other = a.scalar(1), alpha = a.scalar(2);
  auto out = a.out(3);
  if (a.failed()) return a.outcome();
  return mapElements({{&self}}, out, [=](const double* v) { return other - alpha * v[0]; });
}

// div.out_mode / div.Scalar_mode_out: (self, other, *, rounding_mode, out).
KernelResult divMode(KernelContext& ctx, bool scalarOther) {
  Args a(ctx);
  auto self = a.in(0);
  const auto other = a.inOrScalar(1, scalarOther);
  const auto mode = a.optText(2);
  auto out = a.out(3);
  if (a.failed()) return a.outcome();
  if (mode && *mode != "trunc" && *mode != "floor") return a.fail("div: unknown rounding_mode '" + *mode + "'");
  const int rounding = !mode ? 0 : *mode == "trunc" ? 1 : 2;
  const bool integral = isIntegral(out.dtype(), true);
  return mapElements({{&self}, otherSource(other)}, out, [=](const double* v) {
    if (integral && v[1] == 0) return 0.0;
    const double q = v[0] / v[1];
    return rounding == 1 ? std::trunc(q) : rounding == 2 ? std::floor(q) : q;
  });
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
KernelResult unary(KernelContext& ctx, Unary op, size_t outArg = 1) {
  Args a(ctx);
  auto self = a.in(0);
  auto out = a.out(outArg);
  if (a.failed()) return a.outcome();
  return mapElements({{&self}}, out, [op](const double* v) { return op(v[0]); });
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
double geluExact(double x) { return 0.5 * x * (1.0 + std::erf(x / std::numbers::sqrt2)); }
double geluTanh(double x) {
  const double k = std::sqrt(2.0 / std::numbers::pi);
  return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}

// gelu.out(self, *, approximate='none', out).
KernelResult gelu(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const auto mode = a.optText(1);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  const std::string approximate = mode.value_or("none");
  if (approximate != "none" && approximate != "tanh") return a.fail("gelu: unknown approximate '" + approximate + "'");
  const Unary op = approximate == "tanh" ? geluTanh : geluExact;
  return mapElements({{&self}}, out, [op](const double* v) { return op(v[0]); });
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

// leaky_relu.out(self, negative_slope, *, out).
KernelResult leakyRelu(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const double slope = a.scalar(1);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  return mapElements({{&self}}, out, [=](const double* v) { return v[0] > 0 ? v[0] : v[0] * slope; });
}

// elu.out(self, alpha, scale, input_scale, *, out).
KernelResult elu(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const double alpha = a.scalar(1), scale = a.scalar(2), inputScale = a.scalar(3);
  auto out = a.out(4);
  if (a.failed()) return a.outcome();
  return mapElements({{&self}}, out, [=](const double* v) {
    return v[0] > 0 ? scale * v[0] : scale * alpha * (std::exp(v[0] * inputScale) - 1.0);
  });
}

double sign(double x) { return std::isnan(x) ? x : double((x > 0) - (x < 0)); }

void addBinary(KernelRegistry& r, const std::string& name, Binary op, bool withScalar = true, const char* tensorOverload = "Tensor_out",
               const char* scalarOverload = "Scalar_out") {
  r.add("aten::" + name + "." + tensorOverload, [op](KernelContext& c) { return binary(c, false, op); });
  if (withScalar) r.add("aten::" + name + "." + scalarOverload, [op](KernelContext& c) { return binary(c, true, op); });
}

}  // namespace

void addElementwiseKernels(KernelRegistry& r) {
  r.add("aten::add.out", [](KernelContext& c) { return addLike(c, false, 1); });
  r.add("aten::add.Scalar_out", [](KernelContext& c) { return addLike(c, true, 1); });
  r.add("aten::sub.out", [](KernelContext& c) { return addLike(c, false, -1); });
  r.add("aten::sub.Scalar_out", [](KernelContext& c) { return addLike(c, true, -1); });
  r.add("aten::rsub.Scalar_out", rsub);
  addBinary(r, "mul", [](double x, double y) { return x * y; }, true, "out");
  addBinary(r, "div", [](double x, double y) { return x / y; }, true, "out");
  r.add("aten::div.out_mode", [](KernelContext& c) { return divMode(c, false); });
  r.add("aten::div.Scalar_mode_out", [](KernelContext& c) { return divMode(c, true); });
  addBinary(r, "pow", [](double x, double y) { return std::pow(x, y); }, true, "Tensor_Tensor_out", "Tensor_Scalar_out");
  r.add("aten::pow.Scalar_out", powScalarBase);
  addBinary(r, "remainder", pythonRemainder);
  addBinary(r, "fmod", [](double x, double y) { return std::fmod(x, y); });
  addBinary(r, "floor_divide", [](double x, double y) { return std::floor(x / y); }, false, "out");
  addBinary(r, "atan2", [](double x, double y) { return std::atan2(x, y); }, false, "out");
  addBinary(r, "maximum", [](double x, double y) { return std::isnan(x) || std::isnan(y) ? NAN : std::max(x, y); }, false, "out");
  addBinary(r, "minimum", [](double x, double y) { return std::isnan(x) || std::isnan(y) ? NAN : std::min(x, y); }, false, "out");
  addBinary(r, "eq", [](double x, double y) { return double(x == y); });
  addBinary(r, "ne", [](double x, double y) { return double(x != y); });
  addBinary(r, "lt", [](double x, double y) { return double(x < y); });
  addBinary(r, "le", [](double x, double y) { return double(x <= y); });
  addBinary(r, "gt", [](double x, double y) { return double(x > y); });
  addBinary(r, "ge", [](double x, double y) { return double(x >= y); });
  addBinary(r, "logical_and", [](double x, double y) { return double(x != 0 && y != 0); }, false, "out");
  addBinary(r, "logical_or", [](double x, double y) { return double(x != 0 || y != 0); }, false, "out");
  addBinary(r, "logical_xor", [](double x, double y) { return double((x != 0) != (y != 0)); }, false, "out");
  addBinary(r, "bitwise_and", [](double x, double y) { return double(asInt(x) & asInt(y)); });
  addBinary(r, "bitwise_or", [](double x, double y) { return double(asInt(x) | asInt(y)); });
  addBinary(r, "bitwise_xor", [](double x, double y) { return double(asInt(x) ^ asInt(y)); });
  addBinary(r, "bitwise_left_shift", [](double x, double y) { return double(asInt(x) << (asInt(y) & 63)); }, true, "Tensor_out", "Tensor_Scalar_out");
  addBinary(r, "bitwise_right_shift", [](double x, double y) { return double(asInt(x) >> (asInt(y) & 63)); }, true, "Tensor_out", "Tensor_Scalar_out");

  r.add("aten::bitwise_not.out", [](KernelContext& c) {
    TensorRef* self = c.argCount() > 0 ? c.tensor(0) : nullptr;
    if (self && self->dtype == ScalarType::Bool) return unary(c, [](double x) { return double(x == 0); });
    return unary(c, [](double x) { return double(~asInt(x)); });
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

  const std::pair<const char*, Unary> unaries[] = {
      {"abs", [](double x) { return std::fabs(x); }},
      {"acos", [](double x) { return std::acos(x); }},
      {"acosh", [](double x) { return std::acosh(x); }},
      {"asin", [](double x) { return std::asin(x); }},
      {"asinh", [](double x) { return std::asinh(x); }},
      {"atan", [](double x) { return std::atan(x); }},
      {"atanh", [](double x) { return std::atanh(x); }},
      {"ceil", [](double x) { return std::ceil(x); }},
      {"cos", [](double x) { return std::cos(x); }},
      {"cosh", [](double x) { return std::cosh(x); }},
      {"erf", [](double x) { return std::erf(x); }},
      {"exp", [](double x) { return std::exp(x); }},
      {"expm1", [](double x) { return std::expm1(x); }},
      {"floor", [](double x) { return std::floor(x); }},
      {"log", [](double x) { return std::log(x); }},
      {"log10", [](double x) { return std::log10(x); }},
      {"log1p", [](double x) { return std::log1p(x); }},
      {"log2", [](double x) { return std::log2(x); }},
      {"neg", [](double x) { return -x; }},
      {"reciprocal", [](double x) { return 1.0 / x; }},
      {"relu", [](double x) { return x > 0 ? x : (std::isnan(x) ? x : 0.0); }},
      {"round", [](double x) { return std::nearbyint(x); }},
      {"rsqrt", [](double x) { return 1.0 / std::sqrt(x); }},
      {"sign", sign},
      {"silu", [](double x) { return x * sigmoid(x); }},
      {"sin", [](double x) { return std::sin(x); }},
      {"sinh", [](double x) { return std::sinh(x); }},
      {"sqrt", [](double x) { return std::sqrt(x); }},
      {"tan", [](double x) { return std::tan(x); }},
      {"tanh", [](double x) { return std::tanh(x); }},
      {"trunc", [](double x) { return std::trunc(x); }},
      {"logical_not", [](double x) { return double(x == 0); }},
      {"isnan", [](double x) { return double(std::isnan(x)); }},
      {"isinf", [](double x) { return double(std::isinf(x)); }},
  };
  for (const auto& [name, op] : unaries) {
    const Unary f = op;
    r.add(std::string("aten::") + name + ".out", [f](KernelContext& c) { return unary(c, f); });
  }
}

}  // namespace ptescope::exec::kernels
