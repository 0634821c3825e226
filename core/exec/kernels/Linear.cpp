// Matrix products (mm, bmm, addmm, linear), convolution (1-D and 2-D,
// grouped, dilated, transposed), pooling (max with indices, avg, adaptive
// avg), constant padding and nearest upsampling.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>

#include "exec/kernels/KernelSupport.h"

namespace ptescope::exec::kernels {
namespace {

template <class T>
std::vector<T> loadAs(const Operand& t) {
  std::vector<T> values(size_t(t.numel()));
  KernelCancelPoll cancelled;
  for (size_t i = 0; i < values.size() && !cancelled(); ++i) values[i] = elementAs<T>(t, int64_t(i));
  return values;
}

template <class T>
void storeAs(const Operand& t, const std::vector<T>& values) {
  KernelCancelPoll cancelled;
  for (size_t i = 0; i < values.size() && !cancelled(); ++i) setElement(t, int64_t(i), values[i]);
}

// c[m,n] = sum_k a[m,k] * b[k,n] (bTransposed: b is [n,k]) as vec_matmul
// (kernels/portable/cpu/vec_ops.h) computes it: in the element type T, the
// sum starting at 0 and adding a[i,k] * b[k,j] for k in order.
// False when the run was cancelled and it stopped early (KernelCancelPoll,
// one output's k multiply-adds at a time).
template <class T>
bool matmul(const T* a, const T* b, T* c, int64_t m, int64_t k, int64_t n, bool bTransposed) {
  KernelCancelPoll cancelled;
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      if (cancelled(std::max<int64_t>(k, 1))) return false;
      T sum = T(0);
      for (int64_t p = 0; p < k; ++p) sum += a[i * k + p] * (bTransposed ? b[j * k + p] : b[p * n + j]);
      c[i * n + j] = sum;
    }
  }
  return true;
}

std::string product(const Args& a, size_t x, const Operand& ox, size_t y, const Operand& oy) {
  return a.name(x) + " " + shapeText(ox.sizes()) + " and " + a.name(y) + " " + shapeText(oy.sizes());
}

// The matrix kernels accept the real types, half and bfloat16 (no bool), all
// operands of one dtype, as the portable kernels check.
bool sameMatrixDtype(Args& a, const char* name, std::initializer_list<const Operand*> operands) {
  const ScalarType t = (*operands.begin())->dtype();
  for (const Operand* o : operands)
    if (o->dtype() != t) {
      a.fail(std::string(name) + ": the operands do not all have the dtype of " + a.name(0));
      return false;
    }
  if (t == ScalarType::Bool || !withElementType(t, [](auto) {})) {
    a.fail(std::string(name) + ": " + a.name(0) + " has a dtype the kernel does not take");
    return false;
  }
  return true;
}

// mm.out(self, mat2, *, out).
KernelResult mm(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0), mat2 = a.in(1);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  if (self.rank() != 2 || mat2.rank() != 2 || self.size(1) != mat2.size(0))
    return a.fail("mm: cannot multiply " + product(a, 0, self, 1, mat2));
  if (!sameMatrixDtype(a, "mm", {&self, &mat2, &out})) return a.outcome();
  if (auto status = resize(out, {self.size(0), mat2.size(1)}); !status) return status.error();
  withElementType(self.dtype(), [&]<class T>(T) {
    std::vector<T> c(size_t(self.size(0) * mat2.size(1)));
    if (matmul(loadAs<T>(self).data(), loadAs<T>(mat2).data(), c.data(), self.size(0), self.size(1), mat2.size(1), false))
      storeAs(out, c);
  });
  return KernelOutcome::done();
}

// bmm.out(self, mat2, *, out).
KernelResult bmm(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0), mat2 = a.in(1);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  if (self.rank() != 3 || mat2.rank() != 3 || self.size(0) != mat2.size(0) || self.size(2) != mat2.size(1))
    return a.fail("bmm: cannot multiply " + product(a, 0, self, 1, mat2));
  if (!sameMatrixDtype(a, "bmm", {&self, &mat2, &out})) return a.outcome();
  const int64_t batch = self.size(0), m = self.size(1), k = self.size(2), n = mat2.size(2);
  if (auto status = resize(out, {batch, m, n}); !status) return status.error();
  withElementType(self.dtype(), [&]<class T>(T) {
    const auto x = loadAs<T>(self), y = loadAs<T>(mat2);
    std::vector<T> c(size_t(batch * m * n));
    for (int64_t b = 0; b < batch; ++b)
      if (!matmul(x.data() + b * m * k, y.data() + b * k * n, c.data() + b * m * n, m, k, n, false)) return;
    storeAs(out, c);
  });
  return KernelOutcome::done();
}

// addmm.out(self, mat1, mat2, *, beta, alpha, out) as op_addmm.cpp: the
// product as vec_matmul, then product * alpha + self * beta in the element
// type (alpha and beta cast to it; beta 0 still multiplies, so NaN and inf
// in self carry through as upstream's).
KernelResult addmm(KernelContext& ctx) {
  Args a(ctx);
  auto bias = a.in(0), mat1 = a.in(1), mat2 = a.in(2);
  const double beta = a.scalar(3), alpha = a.scalar(4);
  auto out = a.out(5);
  if (a.failed()) return a.outcome();
  if (mat1.rank() != 2 || mat2.rank() != 2 || mat1.size(1) != mat2.size(0))
    return a.fail("addmm: cannot multiply " + product(a, 1, mat1, 2, mat2));
  if (!sameMatrixDtype(a, "addmm", {&bias, &mat1, &mat2, &out})) return a.outcome();
  const Sizes sizes{mat1.size(0), mat2.size(1)};
  auto shape = broadcastShapes({bias.sizes(), sizes});
  if (!shape || *shape != sizes)
    return a.fail("addmm: " + a.name(0) + " " + shapeText(bias.sizes()) + " does not broadcast to " + shapeText(sizes));
  if (auto status = resize(out, sizes); !status) return status.error();
  const auto strides = broadcastStrides(bias.sizes(), sizes);
  withElementType(out.dtype(), [&]<class T>(T) {
    std::vector<T> c(size_t(sizes[0] * sizes[1]));
    if (!matmul(loadAs<T>(mat1).data(), loadAs<T>(mat2).data(), c.data(), sizes[0], mat1.size(1), sizes[1], false)) return;
    const T alphaT(alpha), betaT(beta);
    for (int64_t i = 0; i < sizes[0]; ++i)
      for (int64_t j = 0; j < sizes[1]; ++j) {
        T& v = c[size_t(i * sizes[1] + j)];
        v = v * alphaT + elementAs<T>(bias, i * strides[0] + j * strides[1]) * betaT;
      }
    storeAs(out, c);
  });
  return KernelOutcome::done();
}

// linear.out(input, weight, bias?, *, out): input @ weight^T + bias. The
// portable library has no linear kernel (programs export it as permute_copy
// + addmm or mm); this one accumulates as vec_matmul and adds the bias in the
// element type.
KernelResult linear(KernelContext& ctx) {
  Args a(ctx);
  auto input = a.in(0), weight = a.in(1);
  const auto bias = a.optIn(2);
  auto out = a.out(3);
  if (a.failed()) return a.outcome();
  if (input.rank() < 1 || weight.rank() != 2 || input.size(input.rank() - 1) != weight.size(1))
    return a.fail("linear: cannot apply " + a.name(1) + " " + shapeText(weight.sizes()) + " to " + a.name(0) + " " +
                  shapeText(input.sizes()));
  if (!sameMatrixDtype(a, "linear", {&input, &weight, &out})) return a.outcome();
  const int64_t k = weight.size(1), n = weight.size(0), m = input.numel() / std::max<int64_t>(k, 1);
  if (bias && bias->numel() != n && bias->numel() != 1)
    return a.fail("linear: bias " + a.name(2) + " does not have " + std::to_string(n) + " elements");
  Sizes sizes = input.sizes();
  sizes.back() = n;
  if (auto status = resize(out, sizes); !status) return status.error();
  withElementType(out.dtype(), [&]<class T>(T) {
    std::vector<T> c(size_t(m * n));
    if (!matmul(loadAs<T>(input).data(), loadAs<T>(weight).data(), c.data(), m, k, n, true)) return;
    if (bias)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          c[size_t(i * n + j)] = c[size_t(i * n + j)] + elementAs<T>(*bias, bias->numel() == 1 ? 0 : j);
    storeAs(out, c);
  });
  return KernelOutcome::done();
}

// A 1-D or 2-D spatial parameter list, expanded to two entries (H, W); a
// 1-D operation is a 2-D one with H = 1.
// `fallback` fills an empty list; the H entry of a 1-D operation is the
// neutral value (1 for strides and dilations, 0 for paddings).
Result<std::array<int64_t, 2>> spatial(const std::vector<int64_t>& values, size_t dims, int64_t fallback, const char* what) {
  const int64_t neutral = std::string_view(what).find("padding") != std::string_view::npos ? 0 : 1;
  if (values.empty()) return std::array<int64_t, 2>{dims == 2 ? fallback : neutral, fallback};
  if (values.size() == 1) return std::array<int64_t, 2>{dims == 2 ? values[0] : neutral, values[0]};
  if (values.size() == 2 && dims == 2) return std::array<int64_t, 2>{values[0], values[1]};
  return makeError(std::string(what) + " has " + std::to_string(values.size()) + " entries for a " + std::to_string(dims) +
                   "-D operation");
}

// The memory position of each element of `t` in logical (row-major) order.
std::vector<int64_t> memoryOffsets(const Operand& t) {
  std::vector<int64_t> offsets(size_t(t.numel()));
  const Sizes strides =
      t.tensor->default_dim_order || t.tensor->dim_order.empty() ? contiguousStrides(t.sizes()) : stridesForDimOrder(t.sizes(), t.tensor->dim_order);
  forEachIndex<1>(t.sizes(), {strides}, [&](int64_t i, const std::array<int64_t, 1>& off) { offsets[size_t(i)] = off[0]; });
  return offsets;
}

struct ConvShape {
  int64_t n, cin, ih, iw, cout, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw, groups;
};

// The arithmetic of the portable convolution (op_convolution.cpp) in the
// element type T (withElementType's: Reduced<…> rounds half and bfloat16
// after every operation, Wrapped<…> wraps integers), `round` applied on top. Not transposed: each output element sums in * w over its
// group's input channels, then kernel rows, then kernel columns, from 0, and
// adds the bias last. Transposed: each output starts at its bias (or 0) and
// receives in * w in the order of (input row, input column, input channel,
// kernel row, kernel column).
template <class T, class Round>
void convolve(const ConvShape& c, const Operand& input, const Operand& weight, const std::optional<Operand>& bias,
              const Operand& out, bool transposed, Round round) {
  // Tensors in any dim order (upstream computes their strides from it): read
  // and written here in logical (contiguous) order.
  const auto load = [](const Operand& t) {
    const auto offsets = memoryOffsets(t);
    std::vector<T> values(offsets.size());
    KernelCancelPoll cancelled;
    for (size_t i = 0; i < values.size() && !cancelled(); ++i) values[i] = elementAs<T>(t, offsets[i]);
    return values;
  };
  const auto x = load(input), w = load(weight);
  const auto biasOf = [&](int64_t oc) { return bias ? elementAs<T>(*bias, oc) : T(0); };
  const int64_t cinG = c.cin / c.groups, coutG = c.cout / c.groups, plane = c.oh * c.ow;
  std::vector<T> y(size_t(c.n * c.cout * plane), T(0));
  if (transposed)
    for (int64_t i = 0; i < int64_t(y.size()); ++i) y[size_t(i)] = biasOf((i / plane) % c.cout);
  // One look at Cancel per output (or input) element: cin/groups × kh × kw
  // multiply-adds.
  KernelCancelPoll cancelled;
  const int64_t perElement = std::max<int64_t>(cinG * c.kh * c.kw, 1);
  for (int64_t b = 0; b < c.n; ++b) {
    for (int64_t g = 0; g < c.groups; ++g) {
      for (int64_t oc = g * coutG; oc < (g + 1) * coutG; ++oc) {
        T* target = y.data() + (b * c.cout + oc) * plane;
        if (!transposed) {
          // Weight [cout, cin/groups, kh, kw].
          for (int64_t oy = 0; oy < c.oh; ++oy) {
            for (int64_t ox = 0; ox < c.ow; ++ox) {
              if (cancelled(perElement)) return;
              T acc = T(0);
              for (int64_t ic = g * cinG; ic < (g + 1) * cinG; ++ic) {
                const T* kernel = w.data() + (oc * cinG + (ic - g * cinG)) * c.kh * c.kw;
                const T* channel = x.data() + (b * c.cin + ic) * c.ih * c.iw;
                for (int64_t ky = 0; ky < c.kh; ++ky) {
                  const int64_t iy = c.sh * oy + c.dh * ky - c.ph;
                  if (iy < 0 || iy >= c.ih) continue;
                  for (int64_t kx = 0; kx < c.kw; ++kx) {
                    const int64_t ix = c.sw * ox + c.dw * kx - c.pw;
                    if (ix < 0 || ix >= c.iw) continue;
                    acc = round(acc + round(channel[iy * c.iw + ix] * kernel[ky * c.kw + kx]));
                  }
                }
              }
              if (bias) acc = round(acc + biasOf(oc));
              target[oy * c.ow + ox] = acc;
            }
          }
        } else {
          // Weight [cin, cout/groups, kh, kw].
          for (int64_t iy = 0; iy < c.ih; ++iy) {
            for (int64_t ix = 0; ix < c.iw; ++ix) {
              if (cancelled(perElement)) return;
              for (int64_t ic = g * cinG; ic < (g + 1) * cinG; ++ic) {
                const T value = x[size_t((b * c.cin + ic) * c.ih * c.iw + iy * c.iw + ix)];
                const T* kernel = w.data() + (ic * coutG + (oc - g * coutG)) * c.kh * c.kw;
                for (int64_t ky = 0; ky < c.kh; ++ky) {
                  const int64_t oy = c.sh * iy + c.dh * ky - c.ph;
                  if (oy < 0 || oy >= c.oh) continue;
                  for (int64_t kx = 0; kx < c.kw; ++kx) {
                    const int64_t ox = c.sw * ix + c.dw * kx - c.pw;
                    if (ox < 0 || ox >= c.ow) continue;
                    T& cell = target[oy * c.ow + ox];
                    cell = round(cell + round(value * kernel[ky * c.kw + kx]));
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  const auto outOffsets = memoryOffsets(out);
  for (size_t i = 0; i < y.size() && !cancelled(); ++i) setElement(out, outOffsets[i], y[i]);
}

// convolution.out(input, weight, bias?, stride, padding, dilation, transposed,
// output_padding, groups, *, out).
KernelResult convolution(KernelContext& ctx) {
  Args a(ctx);
  // Any dim order (channels_last included), as upstream's kernel; input and out alike.
  auto input = a.inAnyLayout(0), weight = a.inAnyLayout(1);
  const auto bias = a.optIn(2);
  const auto strideArg = a.ints(3), paddingArg = a.ints(4), dilationArg = a.ints(5);
  const bool transposed = a.flag(6);
  const auto outputPaddingArg = a.ints(7);
  const int64_t groups = a.integer(8);
  auto out = a.outAnyLayout(9);
  if (a.failed()) return a.outcome();
  // The dim order, empty when it is the contiguous one.
  const auto orderOf = [](const Operand& t) {
    std::vector<int64_t> order = t.tensor->default_dim_order ? std::vector<int64_t>{} : t.tensor->dim_order;
    bool identity = true;
    for (size_t d = 0; d < order.size(); ++d) identity = identity && order[d] == int64_t(d);
    return identity ? std::vector<int64_t>{} : order;
  };
  if (orderOf(input) != orderOf(out))
    return a.fail("convolution: out " + a.name(9) + " does not have the dim order of " + a.name(0));
  if ((input.rank() != 3 && input.rank() != 4) || weight.rank() != input.rank())
    return a.fail("convolution: " + a.name(0) + " " + shapeText(input.sizes()) + " and weight " + shapeText(weight.sizes()) +
                  " are not a 1-D or 2-D convolution");
  const size_t dims = input.rank() - 2;
  auto stride = spatial(strideArg, dims, 1, "stride");
  auto padding = spatial(paddingArg, dims, 0, "padding");
  auto dilation = spatial(dilationArg, dims, 1, "dilation");
  auto outputPadding = spatial(outputPaddingArg, dims, 0, "output_padding");
  for (const auto* r : {&stride, &padding, &dilation, &outputPadding})
    if (!*r) return a.fail("convolution: " + r->error().message);
  const int64_t n = input.size(0), cin = input.size(1);
  const int64_t ih = dims == 2 ? input.size(2) : 1, iw = input.size(dims == 2 ? 3 : 2);
  const int64_t kh = dims == 2 ? weight.size(2) : 1, kw = weight.size(dims == 2 ? 3 : 2);
  if (groups <= 0 || cin % groups != 0) return a.fail("convolution: " + std::to_string(cin) + " input channels in " + std::to_string(groups) + " groups");
  const auto [sh, sw] = *stride;
  const auto [ph, pw] = *padding;
  const auto [dh, dw] = *dilation;
  const auto [oph, opw] = *outputPadding;
  if (sh <= 0 || sw <= 0 || dh <= 0 || dw <= 0) return a.fail("convolution: stride and dilation must be positive");
  int64_t cout, oh, ow;
  if (!transposed) {
    cout = weight.size(0);
    if (weight.size(1) * groups != cin || cout % groups != 0)
      return a.fail("convolution: weight " + shapeText(weight.sizes()) + " does not fit " + std::to_string(cin) +
                    " input channels in " + std::to_string(groups) + " groups");
    oh = (ih + 2 * ph - dh * (kh - 1) - 1) / sh + 1;
    ow = (iw + 2 * pw - dw * (kw - 1) - 1) / sw + 1;
  } else {
    if (weight.size(0) != cin) return a.fail("convolution: transposed weight " + shapeText(weight.sizes()) + " does not have " + std::to_string(cin) + " input channels");
    cout = weight.size(1) * groups;
    oh = (ih - 1) * sh - 2 * ph + dh * (kh - 1) + oph + 1;
    ow = (iw - 1) * sw - 2 * pw + dw * (kw - 1) + opw + 1;
  }
  if (oh <= 0 || ow <= 0) return a.fail("convolution: the output of " + a.name(0) + " " + shapeText(input.sizes()) + " would be empty");
  if (bias && bias->numel() != cout) return a.fail("convolution: bias " + a.name(2) + " does not have " + std::to_string(cout) + " elements");
  Sizes sizes = dims == 2 ? Sizes{n, cout, oh, ow} : Sizes{n, cout, ow};
  if (auto status = resize(out, sizes); !status) return status.error();
  const ConvShape shape{n, cin, ih, iw, cout, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw, groups};
  // In the element type (ET_SWITCH_REALHBF16_TYPES): float and double
  // natively, half and bfloat16 rounding every step, integers wrapping in
  // their own width as upstream's CTYPE accumulator does.
  if (input.dtype() == ScalarType::Bool || !withElementType(input.dtype(), [&]<class T>(T) {
        convolve<T>(shape, input, weight, bias, out, transposed, [](T v) { return v; });
      }))
    return a.fail("convolution: " + a.name(0) + " has a dtype the kernel does not take");
  return KernelOutcome::done();
}

// Output length of a pooling window, as PyTorch's pooling_output_shape.
int64_t pooledSize(int64_t in, int64_t k, int64_t pad, int64_t stride, int64_t dilation, bool ceil) {
  int64_t out = (in + 2 * pad - dilation * (k - 1) - 1 + (ceil ? stride - 1 : 0)) / stride + 1;
  if (ceil && (out - 1) * stride >= in + pad) --out;
  return out;
}

struct Pool2d {
  int64_t planes = 1, ih = 0, iw = 0, oh = 0, ow = 0;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1;
  Sizes out_sizes;
};

Result<Pool2d> planPool(const Operand& self, const std::vector<int64_t>& kernel, const std::vector<int64_t>& stride,
                        const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation, bool ceil) {
  if (self.rank() != 3 && self.rank() != 4) return makeError("pooling needs a 3-D or 4-D input, not " + shapeText(self.sizes()));
  auto k = spatial(kernel, 2, 1, "kernel_size");
  auto s = spatial(stride, 2, 0, "stride");
  auto p = spatial(padding, 2, 0, "padding");
  auto d = spatial(dilation, 2, 1, "dilation");
  for (const auto* r : {&k, &s, &p, &d})
    if (!*r) return r->error();
  Pool2d pool;
  const size_t r = self.rank();
  pool.ih = self.size(r - 2);
  pool.iw = self.size(r - 1);
  for (size_t i = 0; i + 2 < r; ++i) pool.planes *= self.size(i);
  std::tie(pool.kh, pool.kw) = std::pair{(*k)[0], (*k)[1]};
  std::tie(pool.sh, pool.sw) = stride.empty() ? std::pair{pool.kh, pool.kw} : std::pair{(*s)[0], (*s)[1]};
  std::tie(pool.ph, pool.pw) = std::pair{(*p)[0], (*p)[1]};
  std::tie(pool.dh, pool.dw) = std::pair{(*d)[0], (*d)[1]};
  if (pool.kh <= 0 || pool.kw <= 0 || pool.sh <= 0 || pool.sw <= 0 || pool.dh <= 0 || pool.dw <= 0)
    return makeError("pooling: kernel_size, stride and dilation must be positive");
  if (pool.ph > pool.kh / 2 || pool.pw > pool.kw / 2) return makeError("pooling: padding must be at most half the kernel size");
  pool.oh = pooledSize(pool.ih, pool.kh, pool.ph, pool.sh, pool.dh, ceil);
  pool.ow = pooledSize(pool.iw, pool.kw, pool.pw, pool.sw, pool.dw, ceil);
  if (pool.oh <= 0 || pool.ow <= 0) return makeError("pooling: the output of " + shapeText(self.sizes()) + " would be empty");
  pool.out_sizes = self.sizes();
  pool.out_sizes[r - 2] = pool.oh;
  pool.out_sizes[r - 1] = pool.ow;
  return pool;
}

// max_pool2d_with_indices.out(self, kernel_size, stride, padding, dilation,
// ceil_mode, *, out, indices).
KernelResult maxPool(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const auto kernel = a.ints(1), stride = a.ints(2), padding = a.ints(3), dilation = a.ints(4);
  const bool ceil = a.flag(5);
  auto out = a.out(6), indices = a.out(7);
  if (a.failed()) return a.outcome();
  auto pool = planPool(self, kernel, stride, padding, dilation, ceil);
  if (!pool) return a.fail("max_pool2d_with_indices: " + pool.error().message);
  if (auto status = resize(out, pool->out_sizes); !status) return status.error();
  if (auto status = resize(indices, pool->out_sizes); !status) return status.error();
  const Pool2d& p = *pool;
  KernelCancelPoll cancelled;
  for (int64_t plane = 0; plane < p.planes; ++plane) {
    for (int64_t oy = 0; oy < p.oh; ++oy) {
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        if (cancelled(p.kh * p.kw)) return KernelOutcome::done();
        double best = -INFINITY;
        int64_t bestIndex = -1;
        for (int64_t ky = 0; ky < p.kh; ++ky) {
          const int64_t iy = oy * p.sh - p.ph + ky * p.dh;
          if (iy < 0 || iy >= p.ih) continue;
          for (int64_t kx = 0; kx < p.kw; ++kx) {
            const int64_t ix = ox * p.sw - p.pw + kx * p.dw;
            if (ix < 0 || ix >= p.iw) continue;
            const double v = self.get(plane * p.ih * p.iw + iy * p.iw + ix);
            if (bestIndex < 0 || v > best || std::isnan(v)) {
              best = v;
              bestIndex = iy * p.iw + ix;
              if (std::isnan(v)) break;
            }
          }
        }
        const int64_t o = plane * p.oh * p.ow + oy * p.ow + ox;
        out.set(o, best);
        indices.set(o, double(bestIndex));
      }
    }
  }
  return KernelOutcome::done();
}

// avg_pool2d.out(self, kernel_size, stride, padding, ceil_mode,
// count_include_pad, divisor_override?, *, out) as op_avg_pool2d.cpp and
// kernel_reduction_then_map_2d: for floating dtypes and int64 only; the
// window's in-bounds elements summed in the element type T in row-major
// order (the first one starts the sum; half and bfloat16 round every step),
// then divided in T by the divisor_override or the count (the padded window
// with count_include_pad, else the in-bounds elements). A window wholly in
// the padding writes nothing, as upstream's loop skips it.
template <class T>
void avgPoolAs(const Operand& self, const Operand& out, const Pool2d& p, std::optional<int64_t> divisor, bool countPad) {
  KernelCancelPoll cancelled;
  for (int64_t plane = 0; plane < p.planes; ++plane) {
    for (int64_t oy = 0; oy < p.oh; ++oy) {
      for (int64_t ox = 0; ox < p.ow; ++ox) {
        if (cancelled(p.kh * p.kw)) return;
        int64_t y0 = oy * p.sh - p.ph, x0 = ox * p.sw - p.pw;
        int64_t y1 = std::min(y0 + p.kh, p.ih + p.ph), x1 = std::min(x0 + p.kw, p.iw + p.pw);
        const int64_t padded = (y1 - y0) * (x1 - x0);
        y0 = std::max<int64_t>(y0, 0);
        x0 = std::max<int64_t>(x0, 0);
        y1 = std::min(y1, p.ih);
        x1 = std::min(x1, p.iw);
        if (y0 >= y1 || x0 >= x1) continue;
        T sum{};
        bool started = false;
        for (int64_t iy = y0; iy < y1; ++iy)
          for (int64_t ix = x0; ix < x1; ++ix) {
            const T x = elementAs<T>(self, plane * p.ih * p.iw + iy * p.iw + ix);
            sum = started ? x + sum : x;
            started = true;
          }
        const int64_t count = divisor ? *divisor : countPad ? padded : (y1 - y0) * (x1 - x0);
        const int64_t o = plane * p.oh * p.ow + oy * p.ow + ox;
        if constexpr (requires { typename T::is_wrapped; })
          out.setInteger(o, int64_t(sum.v) / count);
        else
          setElement(out, o, T(sum / T(double(count))));
      }
    }
  }
}

KernelResult avgPool(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const auto kernel = a.ints(1), stride = a.ints(2), padding = a.ints(3);
  const bool ceil = a.flag(4), countPad = a.flag(5);
  const auto divisor = a.optInteger(6);
  auto out = a.out(7);
  if (a.failed()) return a.outcome();
  if (!isFloating(self.dtype()) && self.dtype() != ScalarType::Long)
    return a.fail("avg_pool2d: " + a.name(0) + " is " + program::scalarTypeShortName(self.dtype()) +
                  ", the portable kernel takes floating-point and int64 tensors");
  if (out.dtype() != self.dtype()) return a.fail("avg_pool2d: out " + a.name(7) + " does not have the dtype of " + a.name(0));
  auto pool = planPool(self, kernel, stride, padding, {}, ceil);
  if (!pool) return a.fail("avg_pool2d: " + pool.error().message);
  if (divisor && *divisor == 0) return a.fail("avg_pool2d: divisor_override is 0");
  if (auto status = resize(out, pool->out_sizes); !status) return status.error();
  withElementType(self.dtype(), [&]<class T>(T) { avgPoolAs<T>(self, out, *pool, divisor, countPad); });
  return KernelOutcome::done();
}

// _adaptive_avg_pool2d.out(self, output_size, *, out) as
// op__adaptive_avg_pool2d.cpp: floating and int64 tensors; each window's
// bounds from float floor/ceil of out_idx * in_size / out_size, its elements
// summed in a float (a double element is added in double and the sum rounded
// back to float), divided by the count in float, cast to the element type.
KernelResult adaptiveAvgPool(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const auto outputSize = a.ints(1);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  if ((self.rank() != 3 && self.rank() != 4) || outputSize.size() != 2 || outputSize[0] <= 0 || outputSize[1] <= 0)
    return a.fail("_adaptive_avg_pool2d: needs a 3-D or 4-D input and two positive output sizes");
  if (!isFloating(self.dtype()) && self.dtype() != ScalarType::Long)
    return a.fail("_adaptive_avg_pool2d: " + a.name(0) + " is " + program::scalarTypeShortName(self.dtype()) +
                  ", the portable kernel takes floating-point and int64 tensors");
  const size_t r = self.rank();
  const int64_t ih = self.size(r - 2), iw = self.size(r - 1), oh = outputSize[0], ow = outputSize[1];
  int64_t planes = 1;
  for (size_t i = 0; i + 2 < r; ++i) planes *= self.size(i);
  Sizes sizes = self.sizes();
  sizes[r - 2] = oh;
  sizes[r - 1] = ow;
  if (auto status = resize(out, sizes); !status) return status.error();
  KernelCancelPoll cancelled;
  const auto start = [](int64_t o, int64_t outSize, int64_t inSize) {
    return int64_t(std::floor(float(o * inSize) / float(outSize)));
  };
  const auto end = [](int64_t o, int64_t outSize, int64_t inSize) {
    return int64_t(std::ceil(float((o + 1) * inSize) / float(outSize)));
  };
  const bool isDouble = self.dtype() == ScalarType::Double, isLong = self.dtype() == ScalarType::Long;
  for (int64_t plane = 0; plane < planes; ++plane)
    for (int64_t oy = 0; oy < oh; ++oy) {
      const int64_t y0 = start(oy, oh, ih), y1 = end(oy, oh, ih);
      for (int64_t ox = 0; ox < ow; ++ox) {
        const int64_t x0 = start(ox, ow, iw), x1 = end(ox, ow, iw);
        if (cancelled((y1 - y0) * (x1 - x0))) return KernelOutcome::done();
        float sum = 0;
        for (int64_t iy = y0; iy < y1; ++iy)
          for (int64_t ix = x0; ix < x1; ++ix) {
            const int64_t i = plane * ih * iw + iy * iw + ix;
            if (isDouble) sum = float(double(sum) + self.get(i));
            else if (isLong) sum += float(self.integerAt(i));
            else sum += float(self.get(i));
          }
        const float mean = sum / float((y1 - y0) * (x1 - x0));
        const int64_t o = plane * oh * ow + oy * ow + ox;
        if (isLong) out.setInteger(o, int64_t(mean));
        else out.set(o, double(mean));
      }
    }
  return KernelOutcome::done();
}

// constant_pad_nd.out(self, pad, value, *, out): pad holds (before, after)
// pairs from the last dimension backwards.
KernelResult constantPad(KernelContext& ctx) {
  Args a(ctx);
  auto self = a.in(0);
  const auto pad = a.ints(1);
  const double value = a.scalar(2);
  auto out = a.out(3);
  if (a.failed()) return a.outcome();
  if (pad.size() % 2 != 0 || pad.size() / 2 > self.rank())
    return a.fail("constant_pad_nd: " + std::to_string(pad.size()) + " pad values for rank " + std::to_string(self.rank()));
  Sizes sizes = self.sizes();
  Sizes before(sizes.size(), 0);
  for (size_t i = 0; i < pad.size() / 2; ++i) {
    const size_t d = sizes.size() - 1 - i;
    before[d] = pad[2 * i];
    sizes[d] += pad[2 * i] + pad[2 * i + 1];
    if (sizes[d] < 0) return a.fail("constant_pad_nd: negative padding removes more than dimension " + std::to_string(d) + " holds");
  }
  if (auto status = resize(out, sizes); !status) return status.error();
  const Sizes inStrides = contiguousStrides(self.sizes());
  const int64_t total = numelOf(sizes);
  Sizes index(sizes.size(), 0);
  KernelCancelPoll cancelled;
  for (int64_t o = 0; o < total && !cancelled(); ++o) {
    int64_t source = 0;
    bool inside = true;
    for (size_t d = 0; d < sizes.size(); ++d) {
      const int64_t i = index[d] - before[d];
      if (i < 0 || i >= self.size(d)) {
        inside = false;
        break;
      }
      source += i * inStrides[d];
    }
    if (inside)
      copyElement(out, o, self, source);
    else
      out.set(o, value);
    nextIndex(index, sizes);
  }
  return KernelOutcome::done();
}

// Where output index `o` reads along one axis and with what weights, as
// upstream's compute_source_index_and_lambda<float, float> (upsample_util.h).
struct BilinearTap {
  int64_t first = 0, second = 0;
  float weightFirst = 1, weightSecond = 0;
};

BilinearTap bilinearTap(float ratio, int64_t o, int64_t inSize, int64_t outSize, bool alignCorners) {
  BilinearTap tap;
  if (outSize == inSize) {
    tap.first = tap.second = o;
    return tap;
  }
  float real = alignCorners ? ratio * float(o) : ratio * (float(o) + 0.5f) - 0.5f;
  if (!alignCorners && real < 0.0f) real = 0.0f;
  tap.first = std::min(int64_t(std::floor(real)), inSize - 1);
  const float lambda = std::min(std::max(real - float(tap.first), 0.0f), 1.0f);
  tap.second = tap.first + (tap.first < inSize - 1 ? 1 : 0);
  tap.weightSecond = lambda;
  tap.weightFirst = 1.0f - lambda;
  return tap;
}

// The ratio upstream passes to the kernel: (in - 1) / (out - 1) with
// align_corners, else 1 / scale, where scale is the scale factor or out / in
// (area_pixel_compute_scale<double>, narrowed to float).
float bilinearRatio(int64_t inSize, int64_t outSize, bool alignCorners, double scale) {
  if (alignCorners) return outSize > 1 ? float(double(inSize - 1) / double(outSize - 1)) : 0.0f;
  return float(1.0 / scale);
}

// The four-tap blend in T (float, or double for float64 inputs) with float weights.
template <class T>
void bilinearBlend(const Operand& input, const Operand& out, const BilinearTap* ys, const BilinearTap* xs, const Sizes& inStrides,
                   const Sizes& outStrides) {
  KernelCancelPoll cancelled;
  for (int64_t n = 0; n < out.size(0); ++n)
    for (int64_t c = 0; c < out.size(1); ++c)
      for (int64_t h = 0; h < out.size(2); ++h)
        for (int64_t w = 0; w < out.size(3); ++w) {
          if (cancelled()) return;
          const BilinearTap& y = ys[h];
          const BilinearTap& x = xs[w];
          const int64_t base = n * inStrides[0] + c * inStrides[1];
          const auto at = [&](int64_t row, int64_t col) {
            return static_cast<T>(input.get(base + row * inStrides[2] + col * inStrides[3]));
          };
          const T top = at(y.first, x.first) * x.weightFirst + at(y.first, x.second) * x.weightSecond;
          const T bottom = at(y.second, x.first) * x.weightFirst + at(y.second, x.second) * x.weightSecond;
          const T value = top * y.weightFirst + bottom * y.weightSecond;
          out.set(n * outStrides[0] + c * outStrides[1] + h * outStrides[2] + w * outStrides[3], double(value));
        }
}

// upsample_bilinear2d.vec_out(input, output_size?, align_corners, scale_factors?, *, out), as
// op_upsample_bilinear2d.cpp: contiguous or channels_last input (out in the same dim order),
// exactly one of output_size and scale_factors, the arithmetic in float.
KernelResult upsampleBilinear(KernelContext& ctx) {
  Args a(ctx);
  auto input = a.inAnyLayout(0);
  const auto outputSize = a.optInts(1);
  const bool alignCorners = a.flag(2);
  std::optional<std::vector<double>> scales;
  if (!ctx.isNullArg(3)) scales = a.doubles(3);
  auto out = a.outAnyLayout(4);
  if (a.failed()) return a.outcome();
  const char* op = "upsample_bilinear2d: ";
  if (input.rank() != 4 || out.rank() != 4) return a.fail(std::string(op) + "needs 4-D input and out, not " + shapeText(input.sizes()));
  if (out.dtype() != input.dtype()) return a.fail(std::string(op) + "out " + a.name(4) + " does not have the dtype of " + a.name(0));
  if (input.dtype() == ScalarType::Bool) return a.fail(std::string(op) + a.name(0) + " is bool");
  const auto order = [](const Operand& t) {
    return t.tensor->default_dim_order || t.tensor->dim_order.empty() ? std::vector<int64_t>{0, 1, 2, 3} : t.tensor->dim_order;
  };
  const auto inOrder = order(input), outOrder = order(out);
  if (inOrder != std::vector<int64_t>{0, 1, 2, 3} && inOrder != std::vector<int64_t>{0, 2, 3, 1})
    return a.fail(std::string(op) + a.name(0) + " is neither contiguous nor channels_last");
  if (outOrder != inOrder) return a.fail(std::string(op) + "out " + a.name(4) + " does not have the dim order of " + a.name(0));
  if (outputSize.has_value() == scales.has_value())
    return a.fail(std::string(op) + "needs exactly one of output_size and scale_factors");
  const int64_t ih = input.size(2), iw = input.size(3);
  int64_t oh, ow;
  double scaleH, scaleW;
  if (scales) {
    if (scales->size() != 2 || (*scales)[0] <= 0 || (*scales)[1] <= 0)
      return a.fail(std::string(op) + "scale_factors must be two positive numbers");
    scaleH = (*scales)[0];
    scaleW = (*scales)[1];
    // Upstream narrows the products to int32 (SizesType); beyond its range that cast is undefined.
    const double h = double(ih) * scaleH, w = double(iw) * scaleW;
    if (!(h < 2147483648.0) || !(w < 2147483648.0))
      return a.fail(std::string(op) + "scale_factors " + std::to_string(scaleH) + ", " + std::to_string(scaleW) +
                    " give an output size beyond int32");
    oh = int64_t(int32_t(h));
    ow = int64_t(int32_t(w));
  } else {
    if (outputSize->size() != 2 || (*outputSize)[0] <= 0 || (*outputSize)[1] <= 0)
      return a.fail(std::string(op) + "output_size must be two positive sizes");
    oh = (*outputSize)[0];
    ow = (*outputSize)[1];
    scaleH = double(oh) / double(ih);
    scaleW = double(ow) / double(iw);
  }
  if (oh <= 0 || ow <= 0)
    return a.fail(std::string(op) + "upsampled output size must be non-empty, but was " + std::to_string(oh) + " x " + std::to_string(ow));
  const Sizes sizes{input.size(0), input.size(1), oh, ow};
  if (auto status = resize(out, sizes); !status) return status.error();
  if (out.numel() == 0 || input.numel() == 0) return KernelOutcome::done();
  const float ratioH = bilinearRatio(ih, oh, alignCorners, scaleH), ratioW = bilinearRatio(iw, ow, alignCorners, scaleW);
  std::vector<BilinearTap> ys, xs;
  for (int64_t h = 0; h < oh; ++h) ys.push_back(bilinearTap(ratioH, h, ih, oh, alignCorners));
  for (int64_t w = 0; w < ow; ++w) xs.push_back(bilinearTap(ratioW, w, iw, ow, alignCorners));
  const Sizes inStrides = stridesForDimOrder(input.sizes(), inOrder), outStrides = stridesForDimOrder(sizes, outOrder);
  if (input.dtype() == ScalarType::Double)
    bilinearBlend<double>(input, out, ys.data(), xs.data(), inStrides, outStrides);
  else
    bilinearBlend<float>(input, out, ys.data(), xs.data(), inStrides, outStrides);
  return KernelOutcome::done();
}

// upsample_nearest2d.vec_out(input, output_size?, scale_factors?, *, out).
KernelResult upsampleNearest(KernelContext& ctx) {
  Args a(ctx);
  auto input = a.in(0);
  const auto outputSize = a.optInts(1);
  std::optional<std::vector<double>> scales;
  if (!ctx.isNullArg(2)) scales = a.doubles(2);
  auto out = a.out(3);
  if (a.failed()) return a.outcome();
  if (input.rank() != 4) return a.fail("upsample_nearest2d: needs a 4-D input, not " + shapeText(input.sizes()));
  const int64_t ih = input.size(2), iw = input.size(3);
  int64_t oh, ow;
  double scaleH, scaleW;
  if (outputSize && outputSize->size() == 2) {
    oh = (*outputSize)[0];
    ow = (*outputSize)[1];
    scaleH = double(ih) / double(oh);
    scaleW = double(iw) / double(ow);
  } else if (scales && scales->size() == 2 && (*scales)[0] > 0 && (*scales)[1] > 0) {
    oh = int64_t(std::floor(double(ih) * (*scales)[0]));
    ow = int64_t(std::floor(double(iw) * (*scales)[1]));
    scaleH = 1.0 / (*scales)[0];
    scaleW = 1.0 / (*scales)[1];
  } else {
    return a.fail("upsample_nearest2d: needs two output sizes or two positive scale factors");
  }
  const int64_t planes = input.size(0) * input.size(1);
  if (auto status = resize(out, {input.size(0), input.size(1), oh, ow}); !status) return status.error();
  KernelCancelPoll cancelled;
  for (int64_t plane = 0; plane < planes; ++plane)
    for (int64_t oy = 0; oy < oh; ++oy) {
      const int64_t iy = std::min(int64_t(std::floor(double(oy) * scaleH)), ih - 1);
      for (int64_t ox = 0; ox < ow; ++ox) {
        if (cancelled()) return KernelOutcome::done();
        const int64_t ix = std::min(int64_t(std::floor(double(ox) * scaleW)), iw - 1);
        copyElement(out, plane * oh * ow + oy * ow + ox, input, plane * ih * iw + iy * iw + ix);
      }
    }
  return KernelOutcome::done();
}

}  // namespace

void addLinearKernels(KernelRegistry& r) {
  r.add("aten::mm.out", mm);
  r.add("aten::bmm.out", bmm);
  r.add("aten::addmm.out", addmm);
  r.add("aten::linear.out", linear);
  r.add("aten::convolution.out", convolution);
  r.add("aten::upsample_bilinear2d.vec_out", upsampleBilinear);
  r.add("aten::max_pool2d_with_indices.out", maxPool);
  r.add("aten::avg_pool2d.out", avgPool);
  r.add("aten::_adaptive_avg_pool2d.out", adaptiveAvgPool);
  r.add("aten::constant_pad_nd.out", constantPad);
  r.add("aten::upsample_nearest2d.vec_out", upsampleNearest);
}

}  // namespace ptescope::exec::kernels
