// The runtime's own operators: et_view (an alias of its input's memory),
// et_copy_index, and the scalar operators on Int/Double/Bool values that
// dynamic-shape programs use (sym_size, sym_numel, executorch_prim::add.Scalar,
// ...), whose result replaces the value of their last argument.
#include <cmath>

#include "exec/kernels/KernelSupport.h"

namespace ptescope::exec::kernels {
namespace {

using program::ValueData;

// A scalar argument: Int, Double or Bool.
struct Number {
  double value = 0;
  bool integral = true;
  bool boolean = false;
};

Result<Number> number(KernelContext& ctx, size_t arg) {
  if (arg >= ctx.argCount()) return makeError("missing argument " + std::to_string(arg));
  const auto& data = ctx.literal(arg);
  if (const auto* v = std::get_if<program::IntValue>(&data)) return Number{double(v->value), true, false};
  if (const auto* v = std::get_if<program::DoubleValue>(&data)) return Number{v->value, false, false};
  if (const auto* v = std::get_if<program::BoolValue>(&data)) return Number{v->value ? 1.0 : 0.0, true, true};
  return makeError("argument " + std::to_string(arg) + " (" + ctx.valueName(arg) + ") is a " +
                   program::valueKindName(ctx.kind(arg)) + ", not a scalar");
}

KernelResult setResult(KernelContext& ctx, size_t arg, ValueData value) {
  if (arg >= ctx.argCount()) return makeError("missing result argument " + std::to_string(arg));
  if (auto status = ctx.setLiteral(arg, std::move(value)); !status) return status.error();
  return KernelOutcome::done();
}

ValueData integerValue(double v) { return program::IntValue{int64_t(v)}; }
ValueData doubleValue(double v) { return program::DoubleValue{v}; }

enum class Result2 { Same, Double, Bool };

// (a, b, out): out = op(a, b); Same gives an Int when both are integral.
KernelResult binaryScalar(KernelContext& ctx, double (*op)(double, double), Result2 kind) {
  auto x = number(ctx, 0);
  if (!x) return x.error();
  auto y = number(ctx, 1);
  if (!y) return y.error();
  const double v = op(x->value, y->value);
  if (kind == Result2::Bool) return setResult(ctx, 2, program::BoolValue{v != 0});
  if (kind == Result2::Double || !(x->integral && y->integral)) return setResult(ctx, 2, doubleValue(v));
  return setResult(ctx, 2, integerValue(v));
}

// (a, out).
KernelResult unaryScalar(KernelContext& ctx, double (*op)(double), int resultKind /*0 same, 1 int, 2 double, 3 bool*/) {
  auto x = number(ctx, 0);
  if (!x) return x.error();
  const double v = op(x->value);
  switch (resultKind) {
    case 1: return setResult(ctx, 1, integerValue(v));
    case 2: return setResult(ctx, 1, doubleValue(v));
    case 3: return setResult(ctx, 1, program::BoolValue{v != 0});
    default: return setResult(ctx, 1, x->integral ? integerValue(v) : doubleValue(v));
  }
}

// aten::sym_size.int(self, dim, out).
KernelResult symSize(KernelContext& ctx) {
  TensorRef* self = ctx.argCount() > 0 ? ctx.tensor(0) : nullptr;
  if (self == nullptr) return makeError("sym_size: argument 0 is not a tensor");
  auto dimArg = ctx.intArg(1);
  if (!dimArg) return dimArg.error();
  auto dim = normalizeDim(*dimArg, self->sizes.size());
  if (!dim) return dim.error();
  return setResult(ctx, 2, program::IntValue{self->sizes.empty() ? 1 : self->sizes[*dim]});
}

// aten::sym_numel(self, out).
KernelResult symNumel(KernelContext& ctx) {
  TensorRef* self = ctx.argCount() > 0 ? ctx.tensor(0) : nullptr;
  if (self == nullptr) return makeError("sym_numel: argument 0 is not a tensor");
  return setResult(ctx, 1, program::IntValue{self->numel()});
}

// aten::_local_scalar_dense(self, out): the one element of a tensor as a scalar.
KernelResult localScalarDense(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  if (a.failed()) return a.outcome();
  if (self.numel() != 1) return a.fail("_local_scalar_dense: " + a.name(0) + " does not hold exactly one element");
  if (self.dtype() == ScalarType::Bool) return setResult(ctx, 1, program::BoolValue{self.get(0) != 0});
  if (isFloating(self.dtype())) return setResult(ctx, 1, doubleValue(self.get(0)));
  return setResult(ctx, 1, program::IntValue{self.index(0)});
}

// executorch_prim::et_view.default(self, size, out): out aliases self's memory
// under new sizes.
KernelResult etView(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  auto sizes = a.ints(1);
  if (a.failed()) return a.outcome();
  TensorRef* out = ctx.argCount() > 2 ? ctx.tensor(2) : nullptr;
  if (out == nullptr) return a.fail("et_view: argument 2 is not a tensor");
  if (out->dtype != self.dtype()) return a.fail("et_view: " + a.name(0) + " and " + a.name(2) + " differ in dtype");
  if (sizes.size() != out->sizes.size()) return a.fail("et_view: size " + shapeText(sizes) + " does not have the rank of " + a.name(2));
  int minus = -1;
  int64_t known = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1 && minus < 0)
      minus = int(i);
    else if (sizes[i] < 0)
      return a.fail("et_view: negative size in " + shapeText(sizes));
    else
      known *= sizes[i];
  }
  if (minus >= 0) sizes[size_t(minus)] = known ? self.numel() / known : 0;
  if (numelOf(sizes) != self.numel())
    return a.fail("et_view: " + shapeText(sizes) + " does not hold the " + std::to_string(self.numel()) + " elements of " + a.name(0));
  // The alias takes the memory and where it lives; the capacity is self's.
  out->sizes = sizes;
  out->data = self.tensor->data;
  out->capacity = self.tensor->capacity;
  out->memory = self.tensor->memory;
  out->writable = self.tensor->writable;
  return KernelOutcome::done();
}

// executorch_prim::et_copy_index.tensor(copy_to, copy_from, index): copy_to[index] = copy_from,
// growing copy_to's first dimension to index + 1.
KernelResult etCopyIndex(KernelContext& ctx) {
  Args a(ctx);
  auto to = a.out(0), from = a.in(1);
  const int64_t index = a.integer(2);
  if (a.failed()) return a.outcome();
  if (index < 0) return a.fail("et_copy_index: index " + std::to_string(index) + " is negative");
  if (to.rank() != from.rank() + 1) return a.fail("et_copy_index: the ranks of " + a.name(0) + " and " + a.name(1) + " must differ by 1");
  Sizes sizes{index + 1};
  for (size_t d = 0; d < from.rank(); ++d) {
    if (to.size(d + 1) != from.size(d)) return a.fail("et_copy_index: shapes of " + a.name(0) + " and " + a.name(1) + " do not match");
    sizes.push_back(from.size(d));
  }
  if (auto status = resize(to, sizes); !status) return status.error();
  KernelCancelPoll cancelled;
  for (int64_t i = 0; i < from.numel() && !cancelled(); ++i) copyElement(to, index * from.numel() + i, from, i);
  return KernelOutcome::done();
}

double floorDiv(double x, double y) { return std::floor(x / y); }
double pyMod(double x, double y) {
  double r = std::fmod(x, y);
  if (r != 0 && ((r < 0) != (y < 0))) r += y;
  return r;
}

}  // namespace

void addPrimKernels(KernelRegistry& r) {
  r.add("aten::sym_size.int", symSize);
  r.add("aten::sym_numel", symNumel);
  r.add("aten::_local_scalar_dense", localScalarDense);
  r.add("executorch_prim::et_view.default", etView);
  r.add("executorch_prim::et_copy_index.tensor", etCopyIndex);
  using B = double (*)(double, double);
  const std::tuple<const char*, B, Result2> binaries[] = {
      {"add.Scalar", [](double x, double y) { return x + y; }, Result2::Same},
      {"sub.Scalar", [](double x, double y) { return x - y; }, Result2::Same},
      {"mul.Scalar", [](double x, double y) { return x * y; }, Result2::Same},
      {"floordiv.Scalar", floorDiv, Result2::Same},
      {"floordiv.int", floorDiv, Result2::Same},
      {"truediv.Scalar", [](double x, double y) { return x / y; }, Result2::Double},
      {"mod.Scalar", pyMod, Result2::Same},
      {"mod.int", pyMod, Result2::Same},
      {"sym_max.Scalar", [](double x, double y) { return std::max(x, y); }, Result2::Same},
      {"sym_min.Scalar", [](double x, double y) { return std::min(x, y); }, Result2::Same},
      {"eq.Scalar", [](double x, double y) { return double(x == y); }, Result2::Bool},
      {"gt.Scalar", [](double x, double y) { return double(x > y); }, Result2::Bool},
      {"lt.Scalar", [](double x, double y) { return double(x < y); }, Result2::Bool},
      {"ge.Scalar", [](double x, double y) { return double(x >= y); }, Result2::Bool},
      {"le.Scalar", [](double x, double y) { return double(x <= y); }, Result2::Bool},
  };
  for (const auto& [name, op, kind] : binaries) {
    const B f = op;
    const Result2 k = kind;
    r.add(std::string("executorch_prim::") + name, [f, k](KernelContext& c) { return binaryScalar(c, f, k); });
  }
  using U = double (*)(double);
  const std::tuple<const char*, U, int> unaries[] = {
      {"neg.Scalar", [](double x) { return -x; }, 0},
      {"sym_not.Scalar", [](double x) { return double(x == 0); }, 3},
      {"sym_float.Scalar", [](double x) { return x; }, 2},
      {"sym_int.Scalar", [](double x) { return std::trunc(x); }, 1},
      {"ceil.Scalar", [](double x) { return std::ceil(x); }, 1},
      {"round.Scalar", [](double x) { return std::nearbyint(x); }, 1},
      {"trunc.Scalar", [](double x) { return std::trunc(x); }, 1},
  };
  for (const auto& [name, op, kind] : unaries) {
    const U f = op;
    const int k = kind;
    r.add(std::string("executorch_prim::") + name, [f, k](KernelContext& c) { return unaryScalar(c, f, k); });
  }
}

}  // namespace ptescope::exec::kernels
