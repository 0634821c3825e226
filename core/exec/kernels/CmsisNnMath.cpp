// See CmsisNnMath.h. Every int32 sum and product that the C code leaves to
// the hardware goes through wrapping helpers, so overflow behaves as on the
// device instead of being undefined.
#include "exec/kernels/CmsisNnMath.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <cstring>
#include <vector>

namespace ptescope::exec::kernels::cmsis {
namespace {

int32_t wrapAdd(int32_t a, int32_t b) { return int32_t(uint32_t(a) + uint32_t(b)); }
int32_t wrapSub(int32_t a, int32_t b) { return int32_t(uint32_t(a) - uint32_t(b)); }
int32_t wrapMul(int32_t a, int32_t b) { return int32_t(uint32_t(a) * uint32_t(b)); }
int32_t shiftLeft(int32_t a, int32_t bits) { return int32_t(uint32_t(a) << bits); }

int32_t clampTo(int32_t v, Activation act) { return std::min(std::max(v, act.min), act.max); }

// The final store: the C code casts the clamped int32 to int8.
int8_t store8(int32_t v) { return int8_t(uint8_t(uint32_t(v) & 0xFF)); }

}  // namespace

int32_t highMultiplyNoSaturation(int32_t a, int32_t b) {
  const int64_t product = int64_t(a) * int64_t(b) + (int64_t(1) << 30);
  return int32_t(uint32_t(uint64_t(product >> 31)));
}

int32_t highMultiply(int32_t a, int32_t b) {
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  int64_t nudge = int64_t(1) << 30;
  if ((a < 0) != (b < 0)) nudge = 1 - nudge;
  const int64_t total = nudge + int64_t(a) * int64_t(b);
  return int32_t(total / (int64_t(1) << 31));  // truncates toward zero
}

int32_t roundingShiftRight(int32_t value, int32_t exponent) {
  const int32_t mask = int32_t((uint64_t(1) << exponent) - 1);
  const int32_t remainder = mask & value;
  int32_t result = value >> exponent;
  int32_t threshold = mask >> 1;
  if (result < 0) ++threshold;
  if (remainder > threshold) ++result;
  return result;
}

int32_t saturatingShiftLeft(int32_t value, int32_t exponent) {
  const int32_t threshold = int32_t((uint64_t(1) << (31 - exponent)) - 1);
  if (value > threshold) return INT32_MAX;
  if (value < -threshold) return INT32_MIN;
  return shiftLeft(value, exponent);
}

int32_t requantize(int32_t value, int32_t multiplier, int32_t shift) {
  const int32_t left = shift > 0 ? shift : 0;
  const int32_t right = shift > 0 ? 0 : -shift;
  return roundingShiftRight(highMultiplyNoSaturation(shiftLeft(value, left), multiplier), right);
}

int32_t expOnNegativeValues(int32_t value) {
  // exp(a) for a in [-1/4, 0) by a Taylor polynomial around -1/8, then one
  // factor exp(-2^k / 4) for each set bit k of the remaining whole quarters.
  const int32_t quarter = 1 << 24;
  const int32_t moduloMinusQuarter = wrapSub(value & (quarter - 1), quarter);
  const int32_t remainder = wrapSub(moduloMinusQuarter, value);
  const int32_t x = wrapAdd(shiftLeft(moduloMinusQuarter, 5), 1 << 28);
  const int32_t x2 = highMultiply(x, x);
  const int32_t x3 = highMultiply(x2, x);
  const int32_t x4 = highMultiply(x2, x2);
  const int32_t x4Over4 = roundingShiftRight(x4, 2);
  const int32_t cubicAndQuartic = highMultiply(wrapAdd(x4Over4, x3), 715827883);  // * 1/3
  const int32_t polynomial = wrapAdd(x, roundingShiftRight(wrapAdd(cubicAndQuartic, x2), 1));
  const int32_t expMinusEighth = 1895147668;
  int32_t result = wrapAdd(expMinusEighth, highMultiply(expMinusEighth, polynomial));
  static constexpr int32_t kFactors[7] = {1672461947, 1302514674, 790015084, 290630308, 39332535, 720401, 242};
  for (int k = 0; k < 7; ++k)
    if ((remainder & (1 << (24 + k))) != 0) result = highMultiply(result, kFactors[k]);
  return value == 0 ? INT32_MAX : result;
}

int32_t oneOverOnePlusX(int32_t value) {
  // Newton-Raphson on the half denominator (1 + x) / 2, three steps.
  const int64_t sum = int64_t(value) + int64_t(INT32_MAX);
  const int32_t halfDenominator = int32_t((sum + (sum >= 0 ? 1 : -1)) / 2);
  int32_t x = wrapAdd(1515870810, highMultiply(halfDenominator, -1010580540));
  const int32_t one = 1 << 29;
  for (int step = 0; step < 3; ++step) {
    const int32_t error = wrapSub(one, highMultiply(halfDenominator, x));
    x = wrapAdd(x, saturatingShiftLeft(highMultiply(x, error), 2));
  }
  return saturatingShiftLeft(x, 1);
}

// ---- convolutions ----------------------------------------------------------

namespace {

int8_t finish(int32_t acc, const Requantization& q, int32_t channel) {
  int32_t v = requantize(acc, q.multipliers[channel], q.shifts[channel]);
  v = wrapAdd(v, q.output_offset);
  return store8(clampTo(v, q.activation));
}

// Calls tap(iy, ix, ky, kx) for each kernel position of output (oy, ox) that falls inside the
// input (padding contributes nothing), in CMSIS-NN's order: kernel rows, then columns.
template <typename Tap>
void forEachTap(const ConvShape& s, int32_t oy, int32_t ox, Tap&& tap) {
  // In 64 bits: a stride or dilation near int32's limit must not overflow
  // (CMSIS-NN's own int32 arithmetic would); such taps fall outside the input.
  for (int32_t ky = 0; ky < s.kernel_h; ++ky) {
    const int64_t iy = int64_t(oy) * s.stride_h - s.pad_h + int64_t(ky) * s.dilation_h;
    if (iy < 0 || iy >= s.in_h) continue;
    for (int32_t kx = 0; kx < s.kernel_w; ++kx) {
      const int64_t ix = int64_t(ox) * s.stride_w - s.pad_w + int64_t(kx) * s.dilation_w;
      if (ix >= 0 && ix < s.in_w) tap(int32_t(iy), int32_t(ix), ky, kx);
    }
  }
}

}  // namespace

void convolve(const ConvShape& s, const Requantization& q, const int8_t* input, const int8_t* weights,
              const int32_t* bias, int8_t* output) {
  const int32_t groups = s.kernel_c > 0 ? s.in_c / s.kernel_c : 1;
  const int32_t perGroup = groups > 0 ? s.out_c / groups : s.out_c;
  for (int32_t n = 0; n < s.batch; ++n)
    for (int32_t oy = 0; oy < s.out_h; ++oy) {
      if (q.stop_requested != nullptr && q.stop_requested()) return;
      for (int32_t ox = 0; ox < s.out_w; ++ox)
        for (int32_t oc = 0; oc < s.out_c; ++oc) {
          const int32_t group = perGroup > 0 ? oc / perGroup : 0;
          int32_t acc = bias != nullptr ? bias[oc] : 0;
          forEachTap(s, oy, ox, [&](int32_t iy, int32_t ix, int32_t ky, int32_t kx) {
            const int8_t* px = input + ((int64_t(n) * s.in_h + iy) * s.in_w + ix) * s.in_c + int64_t(group) * s.kernel_c;
            const int8_t* w = weights + ((int64_t(oc) * s.kernel_h + ky) * s.kernel_w + kx) * s.kernel_c;
            for (int32_t ic = 0; ic < s.kernel_c; ++ic)
              acc = wrapAdd(acc, wrapMul(int32_t(px[ic]) + q.input_offset, int32_t(w[ic])));
          });
          output[((int64_t(n) * s.out_h + oy) * s.out_w + ox) * s.out_c + oc] = finish(acc, q, oc);
        }
    }
}

void depthwiseConvolve(const ConvShape& s, int32_t multiplier, const Requantization& q, const int8_t* input,
                       const int8_t* weights, const int32_t* bias, int8_t* output) {
  for (int32_t n = 0; n < s.batch; ++n)
    for (int32_t oy = 0; oy < s.out_h; ++oy) {
      if (q.stop_requested != nullptr && q.stop_requested()) return;
      for (int32_t ox = 0; ox < s.out_w; ++ox)
        for (int32_t ic = 0; ic < s.in_c; ++ic)
          for (int32_t m = 0; m < multiplier; ++m) {
            const int32_t oc = ic * multiplier + m;
            int32_t acc = bias != nullptr ? bias[oc] : 0;
            forEachTap(s, oy, ox, [&](int32_t iy, int32_t ix, int32_t ky, int32_t kx) {
              const int32_t x = input[((int64_t(n) * s.in_h + iy) * s.in_w + ix) * s.in_c + ic];
              const int32_t w = weights[(int64_t(ky) * s.kernel_w + kx) * s.out_c + oc];
              acc = wrapAdd(acc, wrapMul(x + q.input_offset, w));
            });
            output[((int64_t(n) * s.out_h + oy) * s.out_w + ox) * s.out_c + oc] = finish(acc, q, oc);
          }
    }
}

namespace {

// The reverse-convolution path (stride <= 2, more than 16 input channels):
// a stride-1 convolution of the zero-upsampled input with the flipped
// filter, which is the textbook transposed convolution.
void transposeByGather(const ConvShape& s, const Requantization& q, const int8_t* input, const int8_t* weights,
                       const int32_t* bias, int8_t* output) {
  for (int32_t n = 0; n < s.batch; ++n)
    for (int32_t oy = 0; oy < s.out_h; ++oy) {
      if (q.stop_requested != nullptr && q.stop_requested()) return;
      for (int32_t ox = 0; ox < s.out_w; ++ox)
        for (int32_t oc = 0; oc < s.out_c; ++oc) {
          int32_t acc = bias != nullptr ? bias[oc] : 0;
          // Output (oy, ox) gathers input (iy, ix) through tap (ky, kx) when iy*stride - pad + ky == oy.
          for (int32_t ky = 0; ky < s.kernel_h; ++ky) {
            const int32_t ty = oy + s.pad_h - ky;
            if (ty < 0 || ty % s.stride_h != 0) continue;
            const int32_t iy = ty / s.stride_h;
            if (iy >= s.in_h) continue;
            for (int32_t kx = 0; kx < s.kernel_w; ++kx) {
              const int32_t tx = ox + s.pad_w - kx;
              if (tx < 0 || tx % s.stride_w != 0) continue;
              const int32_t ix = tx / s.stride_w;
              if (ix >= s.in_w) continue;
              const int8_t* px = input + ((int64_t(n) * s.in_h + iy) * s.in_w + ix) * s.in_c;
              const int8_t* w = weights + ((int64_t(oc) * s.kernel_h + ky) * s.kernel_w + kx) * s.in_c;
              for (int32_t ic = 0; ic < s.in_c; ++ic)
                acc = wrapAdd(acc, wrapMul(int32_t(px[ic]) + q.input_offset, int32_t(w[ic])));
            }
          }
          output[((int64_t(n) * s.out_h + oy) * s.out_w + ox) * s.out_c + oc] = finish(acc, q, oc);
        }
    }
}

// The scatter path (arm_transpose_conv_s8): each input row adds its taps into
// a ring of max(kernel_h, stride_h) accumulator rows; rows are emitted
// (requantized, cropped by pad_w) stride_h at a time once an input row needs
// no top cropping, the rest after the last input row. While input rows are
// cropped at the top, their taps land from the ring's first row on, so for
// a pad that is not a multiple of the stride the rows do not line up with
// the textbook definition; this reproduces what the device computes.
bool transposeByScatter(const ConvShape& s, const Requantization& q, const int8_t* input, const int8_t* weights,
                        const int32_t* bias, int8_t* output) {
  const int64_t rowElements = int64_t(s.in_w - 1) * s.stride_w + std::max(s.kernel_w, s.stride_w);
  const int64_t rowWidth = rowElements * s.out_c;
  const int64_t ringRows = std::max(s.kernel_h, s.stride_h);
  const int64_t ringSize = ringRows * rowWidth;
  // Rows written and the columns read must stay inside the output and the ring.
  int64_t emitted = 0;
  for (int32_t j = 0; j < s.in_h; ++j)
    if (std::max(0, s.pad_h - j * s.stride_h) == 0) emitted += s.stride_h;
  for (int32_t y = 0; y < s.kernel_h - s.stride_h; ++y) {
    const int64_t row = int64_t(s.in_h) * s.stride_h + y;
    if (row >= s.pad_h && row < int64_t(s.pad_h) + s.out_h) ++emitted;
  }
  if (emitted != s.out_h || int64_t(s.pad_w) + s.out_w > rowElements) return false;

  std::vector<int32_t> ring(static_cast<size_t>(ringSize));
  auto resetRow = [&](int64_t at) {
    for (int64_t x = 0; x < rowElements; ++x)
      for (int32_t c = 0; c < s.out_c; ++c) ring[size_t(at + x * s.out_c + c)] = bias != nullptr ? bias[c] : 0;
  };
  int8_t* out = output;
  auto emitRow = [&](int64_t at) {
    const int32_t* src = ring.data() + at + int64_t(s.out_c) * s.pad_w;
    for (int32_t x = 0; x < s.out_w; ++x)
      for (int32_t c = 0; c < s.out_c; ++c) *out++ = finish(src[int64_t(x) * s.out_c + c], q, c);
  };
  const int8_t* in = input;
  for (int32_t n = 0; n < s.batch; ++n) {
    for (int64_t r = 0; r < ringRows; ++r) resetRow(r * rowWidth);
    int64_t ringRow = 0;
    for (int32_t j = 0; j < s.in_h; ++j) {
      if (q.stop_requested != nullptr && q.stop_requested()) return true;  // stopped, not refused
      const int32_t skipTop = std::max(0, s.pad_h - j * s.stride_h);
      const int32_t skipBottom = std::max(0, (j * s.stride_h + s.kernel_h) - (s.pad_h + s.out_h) - 1);
      const int32_t rows = s.kernel_h - skipTop - skipBottom;
      for (int32_t ix = 0; ix < s.in_w; ++ix) {
        const int8_t* px = in + int64_t(ix) * s.in_c;
        for (int32_t oc = 0; oc < s.out_c; ++oc)
          for (int32_t r = 0; r < rows; ++r) {
            const int32_t ky = skipTop + r;
            const int64_t at = (ringRow + int64_t(r) * rowWidth) % ringSize;
            for (int32_t kx = 0; kx < s.kernel_w; ++kx) {
              const int8_t* w = weights + ((int64_t(oc) * s.kernel_h + ky) * s.kernel_w + kx) * s.in_c;
              int32_t acc = 0;
              for (int32_t ic = 0; ic < s.in_c; ++ic) acc = wrapAdd(acc, wrapMul(int32_t(px[ic]) + q.input_offset, int32_t(w[ic])));
              int32_t& cell = ring[size_t(at + (int64_t(ix) * s.stride_w + kx) * s.out_c + oc)];
              cell = wrapAdd(cell, acc);
            }
          }
      }
      in += int64_t(s.in_w) * s.in_c;
      if (skipTop == 0)
        for (int32_t y = 0; y < s.stride_h; ++y) {
          emitRow(ringRow);
          resetRow(ringRow);
          ringRow = (ringRow + rowWidth) % ringSize;
        }
    }
    for (int32_t y = 0; y < s.kernel_h - s.stride_h; ++y) {
      const int64_t row = int64_t(s.in_h) * s.stride_h + y;
      if (row >= s.pad_h && row < int64_t(s.pad_h) + s.out_h) emitRow(ringRow);
      ringRow = (ringRow + rowWidth) % ringSize;
    }
  }
  return true;
}

}  // namespace

bool transposeConvolve(const ConvShape& s, const Requantization& q, const int8_t* input, const int8_t* weights,
                       const int32_t* bias, int8_t* output) {
  if (s.stride_h <= 2 && s.stride_w <= 2 && s.in_c > 16) {
    transposeByGather(s, q, input, weights, bias, output);
    return true;
  }
  return transposeByScatter(s, q, input, weights, bias, output);
}

// ---- matrix products -------------------------------------------------------

namespace {

int8_t finishTensor(int32_t acc, int32_t multiplier, int32_t shift, int32_t outputOffset, Activation act) {
  return store8(clampTo(wrapAdd(requantize(acc, multiplier, shift), outputOffset), act));
}

}  // namespace

void fullyConnected(int32_t batches, int32_t inFeatures, int32_t outFeatures, int32_t inputOffset, int32_t filterOffset,
                    int32_t outputOffset, int32_t multiplier, int32_t shift, Activation act, const int8_t* input,
                    const int8_t* weights, const int32_t* bias, int8_t* output, bool (*stopRequested)()) {
  for (int32_t b = 0; b < batches; ++b) {
    if (stopRequested != nullptr && stopRequested()) return;
    for (int32_t j = 0; j < outFeatures; ++j) {
      int32_t acc = bias != nullptr ? bias[j] : 0;
      const int8_t* x = input + int64_t(b) * inFeatures;
      const int8_t* w = weights + int64_t(j) * inFeatures;
      for (int32_t k = 0; k < inFeatures; ++k)
        acc = wrapAdd(acc, wrapMul(int32_t(x[k]) + inputOffset, int32_t(w[k]) + filterOffset));
      output[int64_t(b) * outFeatures + j] = finishTensor(acc, multiplier, shift, outputOffset, act);
    }
  }
}

void batchMatmul(int32_t batches, int32_t rows, int32_t inner, int32_t cols, int32_t lhsOffset, int32_t rhsOffset,
                 int32_t outputOffset, int32_t multiplier, int32_t shift, Activation act, const int8_t* lhs,
                 const int8_t* rhsTransposed, int8_t* output, bool (*stopRequested)()) {
  for (int32_t b = 0; b < batches; ++b)
    fullyConnected(rows, inner, cols, lhsOffset, rhsOffset, outputOffset, multiplier, shift, act,
                   lhs + int64_t(b) * rows * inner, rhsTransposed + int64_t(b) * cols * inner, nullptr,
                   output + int64_t(b) * rows * cols, stopRequested);
}

// ---- pooling ---------------------------------------------------------------

namespace {

template <class Fold>
bool pool(const PoolShape& s, const int8_t* input, int8_t* output, Fold&& fold) {
  for (int32_t n = 0; n < s.batch; ++n)
    for (int32_t oy = 0; oy < s.out_h; ++oy)
      for (int32_t ox = 0; ox < s.out_w; ++ox) {
        // The window in 64 bits (no overflow for strides near int32's limit), then clipped to the input.
        const int64_t y0 = int64_t(oy) * s.stride_h - s.pad_h, x0 = int64_t(ox) * s.stride_w - s.pad_w;
        const int64_t yBegin64 = std::max<int64_t>(y0, 0), yEnd64 = std::min<int64_t>(y0 + s.kernel_h, s.in_h);
        const int64_t xBegin64 = std::max<int64_t>(x0, 0), xEnd64 = std::min<int64_t>(x0 + s.kernel_w, s.in_w);
        if (yBegin64 >= yEnd64 || xBegin64 >= xEnd64) return false;
        const int32_t yBegin = int32_t(yBegin64), yEnd = int32_t(yEnd64);
        const int32_t xBegin = int32_t(xBegin64), xEnd = int32_t(xEnd64);
        for (int32_t c = 0; c < s.channels; ++c) {
          const int8_t* base = input + int64_t(n) * s.in_h * s.in_w * s.channels + c;
          output[((int64_t(n) * s.out_h + oy) * s.out_w + ox) * s.channels + c] =
              fold(base, yBegin, yEnd, xBegin, xEnd);
        }
      }
  return true;
}

}  // namespace

bool averagePool(const PoolShape& s, Activation act, const int8_t* input, int8_t* output) {
  return pool(s, input, output, [&](const int8_t* base, int32_t y0, int32_t y1, int32_t x0, int32_t x1) {
    int32_t sum = 0, count = 0;
    for (int32_t y = y0; y < y1; ++y)
      for (int32_t x = x0; x < x1; ++x) {
        sum = wrapAdd(sum, base[(int64_t(y) * s.in_w + x) * s.channels]);
        ++count;
      }
    // C division truncates; the half count added first rounds to nearest, midpoints away from zero.
    const int32_t mean = sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
    return store8(clampTo(mean, act));
  });
}

bool maxPool(const PoolShape& s, Activation act, const int8_t* input, int8_t* output) {
  return pool(s, input, output, [&](const int8_t* base, int32_t y0, int32_t y1, int32_t x0, int32_t x1) {
    int8_t best = base[(int64_t(y0) * s.in_w + x0) * s.channels];
    for (int32_t y = y0; y < y1; ++y)
      for (int32_t x = x0; x < x1; ++x) best = std::max(best, base[(int64_t(y) * s.in_w + x) * s.channels]);
    return store8(clampTo(best, act));
  });
}

// ---- data movement and elementwise ----------------------------------------

void pad(const int32_t dims[4], const int32_t before[4], const int32_t after[4], int8_t value, const int8_t* input,
         int8_t* output) {
  int64_t out[4];
  for (int d = 0; d < 4; ++d) out[d] = int64_t(before[d]) + dims[d] + after[d];
  std::memset(output, value, size_t(out[0] * out[1] * out[2] * out[3]));
  for (int64_t a = 0; a < dims[0]; ++a)
    for (int64_t b = 0; b < dims[1]; ++b)
      for (int64_t c = 0; c < dims[2]; ++c) {
        const int8_t* src = input + ((a * dims[1] + b) * dims[2] + c) * dims[3];
        int8_t* dst = output + (((a + before[0]) * out[1] + (b + before[1])) * out[2] + (c + before[2])) * out[3] + before[3];
        std::memcpy(dst, src, size_t(dims[3]));
      }
}

void add(int64_t count, const int8_t* a, int32_t aOffset, int32_t aMultiplier, int32_t aShift, const int8_t* b,
         int32_t bOffset, int32_t bMultiplier, int32_t bShift, int32_t leftShift, int32_t outOffset, int32_t outMultiplier,
         int32_t outShift, Activation act, int8_t* out) {
  for (int64_t i = 0; i < count; ++i) {
    const int32_t x = requantize(shiftLeft(int32_t(a[i]) + aOffset, leftShift), aMultiplier, aShift);
    const int32_t y = requantize(shiftLeft(int32_t(b[i]) + bOffset, leftShift), bMultiplier, bShift);
    const int32_t sum = wrapAdd(requantize(wrapAdd(x, y), outMultiplier, outShift), outOffset);
    out[i] = store8(clampTo(sum, act));
  }
}

void multiply(int64_t count, const int8_t* a, int32_t aOffset, const int8_t* b, int32_t bOffset, int32_t outOffset,
              int32_t outMultiplier, int32_t outShift, Activation act, int8_t* out) {
  for (int64_t i = 0; i < count; ++i) {
    const int32_t product = wrapMul(int32_t(a[i]) + aOffset, int32_t(b[i]) + bOffset);
    out[i] = store8(clampTo(wrapAdd(requantize(product, outMultiplier, outShift), outOffset), act));
  }
}

bool softmax(int32_t rows, int32_t rowSize, int32_t inputMultiplier, int32_t inputShift, int32_t diffMin,
             const int8_t* input, int8_t* output) {
  constexpr int32_t kAccumulationBits = 12;
  const int32_t scale = 1 << inputShift;
  for (int32_t r = 0; r < rows; ++r) {
    const int8_t* row = input + int64_t(r) * rowSize;
    int8_t* dst = output + int64_t(r) * rowSize;
    int8_t max = row[0];
    for (int32_t c = 1; c < rowSize; ++c) max = std::max(max, row[c]);
    auto expOf = [&](int32_t diff) { return expOnNegativeValues(highMultiply(wrapMul(diff, scale), inputMultiplier)); };
    int32_t sum = 0;
    for (int32_t c = 0; c < rowSize; ++c) {
      const int32_t diff = int32_t(row[c]) - max;
      if (diff >= diffMin) sum = wrapAdd(sum, roundingShiftRight(expOf(diff), kAccumulationBits));
    }
    int32_t headroom = 32;
    if (sum != 0) headroom = std::countl_zero(uint32_t(sum));
    const int32_t normalized = sum > 0 ? shiftLeft(sum, headroom) : 0;
    const int32_t reciprocal = oneOverOnePlusX(wrapSub(normalized, INT32_MIN));
    const int32_t bitsOverUnit = kAccumulationBits - headroom + 23;
    bool any = false;
    for (int32_t c = 0; c < rowSize; ++c) any = any || int32_t(row[c]) - max >= diffMin;
    if (any && (bitsOverUnit < 0 || bitsOverUnit > 31)) return false;
    for (int32_t c = 0; c < rowSize; ++c) {
      const int32_t diff = int32_t(row[c]) - max;
      if (diff >= diffMin) {
        const int32_t v = wrapAdd(roundingShiftRight(highMultiply(reciprocal, expOf(diff)), bitsOverUnit), -128);
        dst[c] = store8(std::min(std::max(v, -128), 127));
      } else {
        dst[c] = -128;
      }
    }
  }
  return true;
}

}  // namespace ptescope::exec::kernels::cmsis
