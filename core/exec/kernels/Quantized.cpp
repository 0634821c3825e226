// quantized_decomposed:: quantize and dequantize, per tensor (scale and zero
// point as numbers or as one-element tensors) and per channel, plus
// embedding_byte. The arithmetic is float32 as in upstream's quantized CPU
// kernels: q = clamp(zero_point + nearbyint(value * (1/scale)), min, max) and
// x = (q - zero_point) * scale.
#include <cmath>
#include <cstdint>

#include "exec/kernels/KernelSupport.h"

namespace ptescope::exec::kernels {
namespace {

// Upstream's kernels convert with a plain cast, which C++ leaves undefined
// for NaN, infinities and values out of range (a scale of 0, an input of
// inf); on x86, where the runtime runs, the conversion gives the "integer
// indefinite" (the type's minimum). These say so explicitly, without UB.
int64_t truncatedToInt64(double v) {
  constexpr double kLimit = 9223372036854775808.0;  // 2^63
  if (!(v >= -kLimit && v < kLimit)) return INT64_MIN;
  return int64_t(v);
}

int32_t truncatedToInt32(double v) {
  if (!(v > -2147483649.0 && v < 2147483648.0)) return INT32_MIN;
  return int32_t(v);
}

double quantizeValue(double value, double scale, int64_t zeroPoint, int64_t qmin, int64_t qmax) {
  const float inverse = 1.0f / float(scale);
  const float product = inverse * float(value);
  int64_t q = truncatedToInt64(int32_t(zeroPoint) + std::nearbyint(product));
  q = std::clamp(q, qmin, qmax);
  return double(q);
}

double dequantizeValue(double q, double scale, int64_t zeroPoint) {
  return double(float(truncatedToInt32(q) - int32_t(zeroPoint)) * float(scale));
}

// (input, scale, zero_point, quant_min, quant_max, dtype, ...): scale and
// zero_point are numbers, or (tensorParams) one-element tensors.
struct PerTensor {
  double scale = 1;
  int64_t zero_point = 0;
  int64_t quant_min = 0, quant_max = 0;
};

PerTensor readPerTensor(Args& a, bool tensorParams) {
  PerTensor p;
  if (tensorParams) {
    auto scale = a.in(1), zeroPoint = a.in(2);
    // The kernels check that each holds one element.
    if (!a.failed() && scale.numel() == 1 && zeroPoint.numel() == 1) {
      p.scale = scale.get(0);
      p.zero_point = zeroPoint.index(0);
    }
  } else {
    p.scale = a.scalar(1);
    p.zero_point = a.integer(2);
  }
  p.quant_min = a.integer(3);
  p.quant_max = a.integer(4);
  return p;
}

// The .Tensor overloads pass scale and zero_point as tensors of one element.
KernelResult checkParamTensors(Args& a, bool tensorParams, const std::string& kernel) {
  if (!tensorParams) return KernelOutcome::done();
  auto scale = a.in(1), zp = a.in(2);
  if (scale.numel() != 1 || zp.numel() != 1) return a.fail(kernel + ": scale and zero_point tensors must hold one element");
  return KernelOutcome::done();
}

// quantize_per_tensor.out / .Tensor_out(input, scale, zero_point, quant_min,
// quant_max, dtype, *, out) (quantizing) and dequantize_per_tensor.out /
// .Tensor_out(..., dtype, *, out_dtype?, out): the arguments read and
// checked, then out[i] = convert(input[i], parameters). As upstream's
// kernels, element i in memory of the input becomes element i in memory of
// out whatever the tensors' dim orders (channels_last included): the runtime
// neither checks nor converts the layout here.
template <class Convert>
KernelResult perTensor(KernelContext& ctx, bool tensorParams, bool quantizing, Convert convert) {
  const std::string kernel = quantizing ? "quantize_per_tensor" : "dequantize_per_tensor";
  Args a(ctx);
  auto input = a.inAnyLayout(0);
  const PerTensor p = readPerTensor(a, tensorParams);
  auto out = a.outAnyLayout(quantizing ? 6 : 7);
  if (a.failed()) return a.outcome();
  if (auto r = checkParamTensors(a, tensorParams, kernel); !r) return r;
  if (quantizing) {
    if (p.quant_min > p.quant_max)
      return a.fail("quant_min " + std::to_string(p.quant_min) + " is greater than quant_max " + std::to_string(p.quant_max));
    if (!isFloating(input.dtype())) return a.fail(kernel + ": input " + a.name(0) + " is not a float tensor");
  }
  if (auto status = resize(out, input.sizes()); !status) return status.error();
  KernelCancelPoll cancelled;
  for (int64_t i = 0; i < input.numel() && !cancelled(); ++i) out.set(i, convert(input.get(i), p));
  return KernelOutcome::done();
}

KernelResult quantizePerTensor(KernelContext& ctx, bool tensorParams) {
  return perTensor(ctx, tensorParams, true, [](double x, const PerTensor& p) {
    return quantizeValue(x, p.scale, p.zero_point, p.quant_min, p.quant_max);
  });
}

KernelResult dequantizePerTensor(KernelContext& ctx, bool tensorParams) {
  return perTensor(ctx, tensorParams, false,
                   [](double x, const PerTensor& p) { return dequantizeValue(x, p.scale, p.zero_point); });
}

// The channel of element i along `axis`.
struct Channels {
  int64_t inner = 1, count = 1;
  Channels(const Sizes& sizes, size_t axis) {
    count = sizes.empty() ? 1 : sizes[axis];
    for (size_t d = axis + 1; d < sizes.size(); ++d) inner *= sizes[d];
  }
  int64_t of(int64_t i) const { return (i / inner) % count; }
};

// quantize_per_channel.out(input, scales, zero_points, axis, quant_min, quant_max, dtype, *, out).
KernelResult quantizePerChannel(KernelContext& ctx) {
  Args a(ctx);
  auto input = a.in(0), scales = a.in(1), zeroPoints = a.in(2);
  const int64_t axisArg = a.integer(3), qmin = a.integer(4), qmax = a.integer(5);
  auto out = a.out(7);
  if (a.failed()) return a.outcome();
  auto axis = normalizeDim(axisArg, input.rank());
  if (!axis) return axis.error();
  const Channels channels(input.sizes(), *axis);
  if (scales.numel() != channels.count || zeroPoints.numel() != channels.count)
    return a.fail("quantize_per_channel: scales and zero_points need " + std::to_string(channels.count) + " entries (axis " +
                  std::to_string(*axis) + ")");
  if (qmin > qmax) return a.fail("quantize_per_channel: quant_min is greater than quant_max");
  if (auto status = resize(out, input.sizes()); !status) return status.error();
  KernelCancelPoll cancelled;
  for (int64_t i = 0; i < input.numel() && !cancelled(); ++i) {
    const int64_t c = channels.of(i);
    out.set(i, quantizeValue(input.get(i), scales.get(c), zeroPoints.index(c), qmin, qmax));
  }
  return KernelOutcome::done();
}

// dequantize_per_channel.out(input, scales, zero_points?, axis, quant_min,
// quant_max, dtype, *, out_dtype?, out).
KernelResult dequantizePerChannel(KernelContext& ctx) {
  Args a(ctx);
  auto input = a.in(0), scales = a.in(1);
  const auto zeroPoints = a.optIn(2);
  const int64_t axisArg = a.integer(3);
  auto out = a.out(8);
  if (a.failed()) return a.outcome();
  auto axis = normalizeDim(axisArg, input.rank());
  if (!axis) return axis.error();
  const Channels channels(input.sizes(), *axis);
  if (scales.numel() != channels.count || (zeroPoints && zeroPoints->numel() != channels.count))
    return a.fail("dequantize_per_channel: scales and zero_points need " + std::to_string(channels.count) + " entries (axis " +
                  std::to_string(*axis) + ")");
  if (auto status = resize(out, input.sizes()); !status) return status.error();
  KernelCancelPoll cancelled;
  for (int64_t i = 0; i < input.numel() && !cancelled(); ++i) {
    const int64_t c = channels.of(i);
    out.set(i, dequantizeValue(input.get(i), scales.get(c), zeroPoints ? zeroPoints->index(c) : 0));
  }
  return KernelOutcome::done();
}

// embedding_byte.out(weight, weight_scales, weight_zero_points?, quant_min,
// quant_max, indices, *, out) (and .dtype_out with a dtype before out): rows of
// an int8 table dequantized per row (or per group of columns).
KernelResult embeddingByte(KernelContext& ctx, size_t outArg) {
  Args a(ctx);
  auto weight = a.in(0), scales = a.in(1);
  const auto zeroPoints = a.optIn(2);
  auto indices = a.in(5);
  auto out = a.out(outArg);
  if (a.failed()) return a.outcome();
  if (weight.rank() != 2) return a.fail("embedding_byte: weight " + a.name(0) + " must be 2-D");
  const int64_t rows = weight.size(0), dim = weight.size(1);
  const int64_t groupsPerRow = scales.rank() == 2 ? scales.size(1) : 1;
  if (scales.size(0) != rows || groupsPerRow <= 0 || dim % groupsPerRow != 0)
    return a.fail("embedding_byte: scales " + shapeText(scales.sizes()) + " do not fit weight " + shapeText(weight.sizes()));
  const int64_t groupSize = dim / groupsPerRow;
  Sizes sizes = indices.sizes();
  sizes.push_back(dim);
  if (auto status = resize(out, sizes); !status) return status.error();
  KernelCancelPoll cancelled;
  for (int64_t k = 0; k < indices.numel(); ++k) {
    if (cancelled(dim)) return KernelOutcome::done();
    const int64_t row = indices.index(k);
    if (row < 0 || row >= rows) return a.fail("embedding_byte: index " + std::to_string(row) + " is out of range for " + std::to_string(rows) + " rows");
    for (int64_t j = 0; j < dim; ++j) {
      const int64_t g = row * groupsPerRow + j / groupSize;
      const double zp = zeroPoints ? zeroPoints->get(g) : 0.0;
      out.set(k * dim + j, double(float(weight.get(row * dim + j) - zp) * float(scales.get(g))));
    }
  }
  return KernelOutcome::done();
}

}  // namespace

void addQuantizedKernels(KernelRegistry& r) {
  r.add("quantized_decomposed::quantize_per_tensor.out", [](KernelContext& c) { return quantizePerTensor(c, false); });
  r.add("quantized_decomposed::quantize_per_tensor.Tensor_out", [](KernelContext& c) { return quantizePerTensor(c, true); });
  r.add("quantized_decomposed::dequantize_per_tensor.out", [](KernelContext& c) { return dequantizePerTensor(c, false); });
  r.add("quantized_decomposed::dequantize_per_tensor.Tensor_out", [](KernelContext& c) { return dequantizePerTensor(c, true); });
  r.add("quantized_decomposed::quantize_per_channel.out", quantizePerChannel);
  r.add("quantized_decomposed::dequantize_per_channel.out", dequantizePerChannel);
  r.add("quantized_decomposed::embedding_byte.out", [](KernelContext& c) { return embeddingByte(c, 6); });
  r.add("quantized_decomposed::embedding_byte.dtype_out", [](KernelContext& c) { return embeddingByte(c, 7); });
}

}  // namespace ptescope::exec::kernels
