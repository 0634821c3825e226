// Kernels that create tensors: full/full_like/zeros/ones/fill, scalar_tensor,
// arange and the empty tensors (whose contents stay as they were).
#include <cmath>

#include "exec/kernels/KernelSupport.h"

namespace ptescope::exec::kernels {
namespace {

KernelResult fillWith(const Operand& out, const Sizes& sizes, double value) {
  if (auto status = resize(out, sizes); !status) return status.error();
  KernelCancelPoll cancelled;
  for (int64_t i = 0; i < out.numel() && !cancelled(); ++i) out.set(i, value);
  return KernelOutcome::done();
}

// full.out(size, fill_value, *, out).
KernelResult full(KernelContext& ctx) {
  Args a(ctx);
  const auto sizes = a.ints(0);
  const double value = a.scalar(1);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  return fillWith(out, sizes, value);
}

// zeros.out / ones.out(size, *, out).
KernelResult constant(KernelContext& ctx, double value) {
  Args a(ctx);
  const auto sizes = a.ints(0);
  auto out = a.out(1);
  if (a.failed()) return a.outcome();
  return fillWith(out, sizes, value);
}

// full_like.out(self, fill_value, *, memory_format?, out) and
// fill.Scalar_out(self, value, *, out).
KernelResult like(KernelContext& ctx, size_t outArg) {
  Args a(ctx);
  auto self = a.in(0);
  const double value = a.scalar(1);
  auto out = a.out(outArg);
  if (a.failed()) return a.outcome();
  return fillWith(out, self.sizes(), value);
}

// fill.Tensor_out(self, value (0-D), *, out).
KernelResult fillTensor(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0), value = a.in(1);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  if (value.numel() != 1) return a.fail("fill.Tensor: " + a.name(1) + " must hold one element");
  return fillWith(out, self.sizes(), value.get(0));
}

// scalar_tensor.out(s, *, out).
KernelResult scalarTensor(KernelContext& ctx) {
  Args a(ctx);
  const double value = a.scalar(0);
  auto out = a.out(1);
  if (a.failed()) return a.outcome();
  return fillWith(out, {}, value);
}

KernelResult arange(Args& a, double start, double end, double step, const Operand& out) {
  if (a.failed()) return a.outcome();
  if (step == 0 || std::isnan(step)) return a.fail("arange: step must be nonzero");
  if ((end - start) / step < 0) return a.fail("arange: the range [" + std::to_string(start) + ", " + std::to_string(end) + ") and step do not agree");
  const int64_t count = int64_t(std::ceil((end - start) / step));
  if (auto status = resize(out, {count}); !status) return status.error();
  KernelCancelPoll cancelled;
  for (int64_t i = 0; i < count && !cancelled(); ++i) out.set(i, start + double(i) * step);
  return KernelOutcome::done();
}

// empty.out(size, *, memory_format?, out), _empty_dim_order.out(size, *, dim_order?, out).
KernelResult empty(KernelContext& ctx) {
  Args a(ctx);
  const auto sizes = a.ints(0);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  if (auto status = resize(out, sizes); !status) return status.error();
  return KernelOutcome::done();
}

}  // namespace

void addCreationKernels(KernelRegistry& r) {
  r.add("aten::full.out", full);
  r.add("aten::zeros.out", [](KernelContext& c) { return constant(c, 0.0); });
  r.add("aten::ones.out", [](KernelContext& c) { return constant(c, 1.0); });
  r.add("aten::full_like.out", [](KernelContext& c) { return like(c, 3); });
  r.add("aten::fill.Scalar_out", [](KernelContext& c) { return like(c, 2); });
  r.add("aten::fill.Tensor_out", fillTensor);
  r.add("aten::scalar_tensor.out", scalarTensor);
  r.add("aten::arange.out", [](KernelContext& c) {  // arange.out(end, *, out)
    Args a(c);
    const double end = a.scalar(0);
    auto out = a.out(1);
    return arange(a, 0, end, 1, out);
  });
  r.add("aten::arange.start_out", [](KernelContext& c) {  // arange.start_out(start, end, step, *, out)
    Args a(c);
    const double start = a.scalar(0), end = a.scalar(1), step = a.scalar(2);
    auto out = a.out(3);
    return arange(a, start, end, step, out);
  });
  r.add("aten::empty.out", empty);
  r.add("dim_order_ops::_empty_dim_order.out", empty);
}

}  // namespace ptescope::exec::kernels
