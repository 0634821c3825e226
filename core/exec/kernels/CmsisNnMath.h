// The integer arithmetic of the CMSIS-NN kernels that upstream's cortex_m::
// operators call, on raw buffers (no tensors, no checks), for the
// cortex_m kernel family (CortexM.cpp). Written from the documented
// semantics of CMSIS-NN's portable C code (the path a build without the Arm
// DSP/MVE extensions takes, and the one the extensions are tested against):
//   - requantize(v, m, s): v * 2^max(s,0), then the rounding doubling high
//     multiply by m ((v*m + 2^30) >> 31, no saturation), then a rounding
//     right shift by max(-s,0) (midpoints away from zero);
//   - int32 accumulators wrap as the hardware's do;
//   - convolutions and matrix products accumulate (x + input_offset) *
//     (w + filter_offset) over the taps inside the input (padding adds
//     nothing), add the bias, requantize per output channel, add the output
//     offset and clamp to the activation range;
//   - softmax follows the fixed-point exp / 1/(1+x) approximations (5
//     integer bits for exp's input, 12 accumulation bits).
// Layouts are CMSIS-NN's: activations NHWC, conv weights OHWI, depthwise
// weights 1HWC (C = in_channels * multiplier), fully connected weights
// [out, in], batch matmul's right side already transposed ([batch, cols, inner]).
//
// Free of project headers so it can be compiled on its own.
#pragma once

#include <cstdint>

namespace ptescope::exec::kernels::cmsis {

// ---- fixed-point primitives ----------------------------------------------

// (a * b + 2^30) >> 31 without saturation.
int32_t highMultiplyNoSaturation(int32_t a, int32_t b);
// The saturating rounding doubling high multiply (rounds half away from
// zero; INT32_MIN * INT32_MIN gives INT32_MAX).
int32_t highMultiply(int32_t a, int32_t b);
// value / 2^exponent rounded to nearest, midpoints away from zero; exponent in [0, 31].
int32_t roundingShiftRight(int32_t value, int32_t exponent);
// value * 2^exponent, saturated; exponent in [0, 31).
int32_t saturatingShiftLeft(int32_t value, int32_t exponent);
// The per-channel / per-tensor requantization; shift in [-31, 31].
int32_t requantize(int32_t value, int32_t multiplier, int32_t shift);
// exp(x) for x <= 0 in Q5.26 in, Q0.31 out.
int32_t expOnNegativeValues(int32_t value);
// 1 / (1 + x) for x in [0, 1) in Q0.31, result in Q2.29 (times 2).
int32_t oneOverOnePlusX(int32_t value);

// ---- kernels ----------------------------------------------------------------

struct Activation {
  int32_t min = -128;
  int32_t max = 127;
};

struct ConvShape {
  int32_t batch = 1;
  int32_t in_h = 1, in_w = 1, in_c = 1;
  int32_t out_h = 1, out_w = 1, out_c = 1;
  int32_t kernel_h = 1, kernel_w = 1;
  int32_t kernel_c = 1;  // conv: input channels per group; depthwise: unused
  int32_t stride_h = 1, stride_w = 1;
  int32_t pad_h = 0, pad_w = 0;
  int32_t dilation_h = 1, dilation_w = 1;
};

struct Requantization {
  int32_t input_offset = 0;
  int32_t output_offset = 0;
  Activation activation;
  const int32_t* multipliers = nullptr;  // per output channel
  const int32_t* shifts = nullptr;
  // Asked before each output row (each input row for the scatter path): true
  // stops the convolution early, its output partly written (the cortex_m
  // kernels pass the run's Cancel; the run is then dropped). Null: never.
  bool (*stop_requested)() = nullptr;
};

// arm_convolve_wrapper_s8: groups = in_c / kernel_c.
void convolve(const ConvShape& shape, const Requantization& q, const int8_t* input, const int8_t* weights,
              const int32_t* bias /* nullable */, int8_t* output);
// arm_depthwise_conv_wrapper_s8: out_c = in_c * multiplier.
void depthwiseConvolve(const ConvShape& shape, int32_t multiplier, const Requantization& q, const int8_t* input,
                       const int8_t* weights, const int32_t* bias, int8_t* output);
// arm_transpose_conv_wrapper_s8 (no dilation, no output padding): for
// stride <= 2 with more than 16 input channels the textbook transposed
// convolution (output (y*stride - pad + ky, x*stride - pad + kx) gathers input
// (y, x) through tap (ky, kx)); otherwise CMSIS-NN's row-scatter algorithm,
// which differs from the textbook when pad_h is not a multiple of stride_h.
// False (nothing reliable written) when the scatter path would emit a number
// of rows other than out_h or read columns past its accumulator rows.
bool transposeConvolve(const ConvShape& shape, const Requantization& q, const int8_t* input, const int8_t* weights,
                       const int32_t* bias, int8_t* output);

// arm_fully_connected_s8 over `batches` rows, one multiplier and shift.
// `stopRequested` (nullable), asked before each row, stops it early as
// Requantization::stop_requested does; so for batchMatmul.
void fullyConnected(int32_t batches, int32_t inFeatures, int32_t outFeatures, int32_t inputOffset, int32_t filterOffset,
                    int32_t outputOffset, int32_t multiplier, int32_t shift, Activation act, const int8_t* input,
                    const int8_t* weights, const int32_t* bias, int8_t* output, bool (*stopRequested)() = nullptr);
// arm_batch_matmul_s8: out[b, i, j] = sum_k (lhs[b, i, k] + lhsOffset) * (rhsT[b, j, k] + rhsOffset).
void batchMatmul(int32_t batches, int32_t rows, int32_t inner, int32_t cols, int32_t lhsOffset, int32_t rhsOffset,
                 int32_t outputOffset, int32_t multiplier, int32_t shift, Activation act, const int8_t* lhs,
                 const int8_t* rhsTransposed, int8_t* output, bool (*stopRequested)() = nullptr);

struct PoolShape {
  int32_t batch = 1, in_h = 1, in_w = 1, channels = 1, out_h = 1, out_w = 1;
  int32_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
};
// arm_avgpool_s8: the rounded mean of the window's elements inside the
// input. False (nothing written for that window) when a window holds none.
bool averagePool(const PoolShape& shape, Activation act, const int8_t* input, int8_t* output);
// arm_max_pool_s8: false when a window holds no input element.
bool maxPool(const PoolShape& shape, Activation act, const int8_t* input, int8_t* output);

// arm_pad_s8 on four dims (outermost first).
void pad(const int32_t dims[4], const int32_t before[4], const int32_t after[4], int8_t value, const int8_t* input,
         int8_t* output);

// arm_elementwise_add_s8 (left_shift 20 as the cortex_m op passes).
void add(int64_t count, const int8_t* a, int32_t aOffset, int32_t aMultiplier, int32_t aShift, const int8_t* b,
         int32_t bOffset, int32_t bMultiplier, int32_t bShift, int32_t leftShift, int32_t outOffset, int32_t outMultiplier,
         int32_t outShift, Activation act, int8_t* out);
// arm_elementwise_mul_s8.
void multiply(int64_t count, const int8_t* a, int32_t aOffset, const int8_t* b, int32_t bOffset, int32_t outOffset,
              int32_t outMultiplier, int32_t outShift, Activation act, int8_t* out);

// arm_softmax_s8 over rows of `rowSize` (output zero point -128, scale 1/256).
// inputShift in [0, 30]; false when a row's sum needs a shift beyond 31 bits.
bool softmax(int32_t rows, int32_t rowSize, int32_t inputMultiplier, int32_t inputShift, int32_t diffMin,
             const int8_t* input, int8_t* output);

}  // namespace ptescope::exec::kernels::cmsis
