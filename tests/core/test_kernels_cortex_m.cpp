// The cortex_m:: kernels (CMSIS-NN's int8 arithmetic) against cases worked
// out by hand here, in the argument layouts of upstream's operators.yaml:
// the requantization's two roundings (the doubling high multiply rounds .5
// up, the final shift rounds .5 away from zero), per-channel multipliers,
// activation clamps, padding that adds nothing even with an input offset,
// pooling windows that count only elements inside the input, and the
// refusals for bad arguments.
#include <QtTest>

#include "exec/kernels/CmsisNnMath.h"
#include "support/KernelHarness.h"

using namespace ptescope;
using ptescope::testing::KernelHarness;
using ST = program::ScalarType;

namespace {

constexpr double kHalf = 1073741824.0;  // 2^30: 0.5 in Q0.31

// An int8 4-D [N, C, H, W] tensor stored channels_last; `nhwc` in memory order.
int32_t channelsLast(KernelHarness& h, std::vector<int64_t> sizes, const std::vector<double>& nhwc) {
  const int32_t id = h.tensor(ST::Char, std::move(sizes), nhwc);
  h.ref(id).default_dim_order = false;
  h.ref(id).dim_order = {0, 2, 3, 1};
  return id;
}
int32_t channelsLastOut(KernelHarness& h, std::vector<int64_t> sizes) {
  const int32_t id = h.staticOutput(ST::Char, std::move(sizes));
  h.ref(id).default_dim_order = false;
  h.ref(id).dim_order = {0, 2, 3, 1};
  return id;
}

// Runs `op` and checks that it was refused with an error mentioning `needle`.
void expectError(KernelHarness& h, std::string_view op, std::vector<int32_t> args, const char* needle) {
  auto result = h.call(op, std::move(args));
  QVERIFY2(!result.ok(), "the kernel accepted bad arguments");
  QVERIFY2(result.error().message.find(needle) != std::string::npos, result.error().message.c_str());
}
void expectUnsupported(KernelHarness& h, std::string_view op, std::vector<int32_t> args, const char* needle) {
  auto result = h.call(op, std::move(args));
  QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
  QCOMPARE(int(result->kind), int(exec::KernelOutcome::Kind::Unsupported));
  QVERIFY2(result->reason.find(needle) != std::string::npos, result->reason.c_str());
}

}  // namespace

class KernelsCortexMTest : public QObject {
  Q_OBJECT
 private slots:
  void requantizeRoundsTwice() {
    namespace m = exec::kernels::cmsis;
    // shift 0: (v * 2^30 + 2^30) >> 31 = floor((v + 1) / 2): .5 rounds up.
    QCOMPARE(m::requantize(3, 1 << 30, 0), 2);
    QCOMPARE(m::requantize(-3, 1 << 30, 0), -1);
    QCOMPARE(m::requantize(5, 1 << 30, 0), 3);
    // shift -1: then a right shift that rounds .5 away from zero.
    QCOMPARE(m::requantize(6, 1 << 30, -1), 2);    // 3.5 -> 3, 3 / 2 = 1.5 -> 2
    QCOMPARE(m::requantize(-6, 1 << 30, -1), -2);  // -2.5 -> -3, -1.5 -> -2
    QCOMPARE(m::requantize(2, 1 << 30, -1), 1);    // 1, 0.5 -> 1
    QCOMPARE(m::requantize(-2, 1 << 30, -1), -1);  // -0.5 -> -1, -0.5 -> -1
    // shift +1 doubles first: 0.5 * 2 is the identity.
    QCOMPARE(m::requantize(-77, 1 << 30, 1), -77);
    QCOMPARE(m::requantize(123456, 1 << 30, 1), 123456);
    // The saturating high multiply: only INT32_MIN * INT32_MIN saturates.
    QCOMPARE(m::highMultiply(INT32_MIN, INT32_MIN), INT32_MAX);
    QCOMPARE(m::highMultiply(1 << 30, 1 << 30), 1 << 29);
    QCOMPARE(m::roundingShiftRight(-3, 1), -2);
    QCOMPARE(m::roundingShiftRight(5, 2), 1);  // 1.25
    QCOMPARE(m::roundingShiftRight(6, 2), 2);  // 1.5
    QCOMPARE(m::expOnNegativeValues(0), INT32_MAX);
  }

  void quantizeAndDequantize() {
    KernelHarness h;
    const int32_t x = h.tensor(ST::Float, {5}, {1.25, -0.25, 100, -100, 0.75});
    const int32_t q = h.output(ST::Char, 5);
    // quantize_per_tensor.out(input, scale, zero_point, quant_min, quant_max, dtype, *, out)
    KH_DONE(h.call("cortex_m::quantize_per_tensor.out",
                   {x, h.real(0.5), h.integer(3), h.integer(-128), h.integer(127), h.integer(1), q, q}));
    // x / 0.5 rounded half to even: 2.5 -> 2, -0.5 -> -0, 200, -200 (clamped), 1.5 -> 2; plus 3.
    KH_VALUES(h, q, 0, {5, 3, 127, -128, 5});
    const int32_t q16 = h.output(ST::Short, 5);
    KH_DONE(h.call("cortex_m::quantize_per_tensor.out",
                   {x, h.real(0.5), h.integer(3), h.integer(-32768), h.integer(32767), h.integer(2), q16, q16}));
    KH_VALUES(h, q16, 0, {5, 3, 203, -197, 5});
    const int32_t back = h.output(ST::Float, 5);
    KH_DONE(h.call("cortex_m::dequantize_per_tensor.out",
                   {q, h.real(0.5), h.integer(3), h.integer(-128), h.integer(127), h.integer(1), back, back}));
    KH_VALUES(h, back, 0, {1.0, 0.0, 62.0, -65.5, 1.0});
    // Refusals: float input to dequantize, zero point outside the range, dtype not int8/int16.
    expectError(h, "cortex_m::dequantize_per_tensor.out",
                {q, h.real(0.5), h.integer(200), h.integer(-128), h.integer(127), h.integer(1), back, back}, "zero_point");
    expectError(h, "cortex_m::quantize_per_tensor.out",
                {x, h.real(0.5), h.integer(3), h.integer(-128), h.integer(127), h.integer(6), q, q}, "not int8 or int16");
    expectError(h, "cortex_m::quantize_per_tensor.out",
                {q, h.real(0.5), h.integer(3), h.integer(-128), h.integer(127), h.integer(1), q, q}, "float32");
    expectError(h, "cortex_m::quantize_per_tensor.out",
                {x, h.real(0.5), h.integer(3), h.integer(-129), h.integer(127), h.integer(1), q, q}, "quant_min");
    // The generated unboxing counts the arguments (7 + the return slot).
    expectError(h, "cortex_m::quantize_per_tensor.out",
                {x, h.real(0.5), h.integer(3), h.integer(-128), h.integer(127), h.integer(1), q}, "Expected 8 args received 7");
  }

  void conv1x1PerChannelAndClamps() {
    KernelHarness h;
    // Input [1, 2, 1, 2] channels_last: pixel 0 = (10, -4), pixel 1 = (-128, 127).
    const int32_t x = channelsLast(h, {1, 2, 1, 2}, {10, -4, -128, 127});
    // Weight OHWI [2, 1, 1, 2]: filter 0 = (1, 2), filter 1 = (-3, 1).
    const int32_t w = h.tensor(ST::Char, {2, 1, 1, 2}, {1, 2, -3, 1});
    const int32_t bias = h.tensor(ST::Int, {2}, {7, -100});
    const int32_t mult = h.tensor(ST::Int, {2}, {kHalf, kHalf});
    const int32_t shift = h.tensor(ST::Int, {2}, {0, -1});
    const int32_t scratch = h.tensor(ST::Byte, {0}, {});
    const int32_t out = channelsLastOut(h, {1, 2, 1, 2});
    auto conv = [&](int64_t actMin, int64_t actMax, int32_t biasArg, int32_t scratchArg, int32_t input) {
      return h.call("cortex_m::quantized_conv2d.out",
                    {input, w, biasArg, h.ints({1, 1}), h.ints({0, 0}), h.ints({1, 1}), h.integer(5), h.integer(-3), mult, shift,
                     h.integer(actMin), h.integer(actMax), scratchArg, out, out});
    };
    KH_DONE(conv(-128, 127, bias, scratch, x));
    // pixel 0, x + 5 = (15, 1): ch0 15 + 2 + 7 = 24 -> floor(25/2) = 12 -> 9;
    //   ch1 -45 + 1 - 100 = -144 -> floor(-143/2) = -72 -> /2 = -36 -> -39.
    // pixel 1, (-123, 132): ch0 -123 + 264 + 7 = 148 -> 74 -> 71;
    //   ch1 369 + 132 - 100 = 401 -> 201 -> 100.5 rounds away -> 101 -> 98.
    KH_VALUES(h, out, 0, {9, -39, 71, 98});
    KH_DONE(conv(-20, 20, bias, scratch, x));
    KH_VALUES(h, out, 0, {9, -20, 20, 20});
    // Without bias: 17 -> 9 -> 6; -44 -> -22 -> -11 -> -14; 141 -> 71 -> 68; 501 -> 251 -> 125.5 -> 126 -> 123.
    KH_DONE(conv(-128, 127, h.none(), scratch, x));
    KH_VALUES(h, out, 0, {6, -14, 68, 123});

    // Refusals: an NCHW input with several channels and pixels, a float weight,
    // a general (3x3) convolution without scratch memory, a multiplier per channel missing.
    const int32_t nchw = h.tensor(ST::Char, {1, 2, 1, 2}, {10, -4, -128, 127});
    expectError(h, "cortex_m::quantized_conv2d.out",
                {nchw, w, bias, h.ints({1, 1}), h.ints({0, 0}), h.ints({1, 1}), h.integer(5), h.integer(-3), mult, shift,
                 h.integer(-128), h.integer(127), scratch, out, out},
                "channels_last");
    const int32_t fw = h.tensor(ST::Float, {2, 1, 1, 2}, {1, 2, -3, 1});
    expectError(h, "cortex_m::quantized_conv2d.out",
                {x, fw, bias, h.ints({1, 1}), h.ints({0, 0}), h.ints({1, 1}), h.integer(5), h.integer(-3), mult, shift,
                 h.integer(-128), h.integer(127), scratch, out, out},
                "must be int8");
    const int32_t w3 = h.tensor(ST::Char, {2, 3, 3, 2}, std::vector<double>(36, 1));
    expectError(h, "cortex_m::quantized_conv2d.out",
                {x, w3, bias, h.ints({1, 1}), h.ints({1, 1}), h.ints({1, 1}), h.integer(5), h.integer(-3), mult, shift,
                 h.integer(-128), h.integer(127), scratch, out, out},
                "scratch buffer");
    const int32_t oneMult = h.tensor(ST::Int, {1}, {kHalf});
    expectError(h, "cortex_m::quantized_conv2d.out",
                {x, w, bias, h.ints({1, 1}), h.ints({0, 0}), h.ints({1, 1}), h.integer(5), h.integer(-3), oneMult, shift,
                 h.integer(-128), h.integer(127), scratch, out, out},
                "one entry per output channel");
    const int32_t badShift = h.tensor(ST::Int, {2}, {0, 31});
    expectError(h, "cortex_m::quantized_conv2d.out",
                {x, w, bias, h.ints({1, 1}), h.ints({0, 0}), h.ints({1, 1}), h.integer(5), h.integer(-3), mult, badShift,
                 h.integer(-128), h.integer(127), scratch, out, out},
                "[-31, 30]");
    expectError(h, "cortex_m::quantized_conv2d.out",
                {x, w, bias, h.ints({1, 1, 1}), h.ints({0, 0}), h.ints({1, 1}), h.integer(5), h.integer(-3), mult, shift,
                 h.integer(-128), h.integer(127), scratch, out, out},
                "stride must have 2 entries");
  }

  // Found by fuzz_exec (UBSan: "signed integer overflow: 2 * 1577058305"): a
  // stride near int32's limit overflowed the window arithmetic. Now output row
  // 0 reads input row 0 and every later row starts past the input, so it gets
  // the bias alone: 7 -> floor(8/2) = 4 -> 1 (filter 0), -100 -> -50 -> -25 -> -28.
  void convWithAStrideNearInt32sLimit() {
    KernelHarness h;
    const int32_t x = channelsLast(h, {1, 2, 3, 1}, {10, -4, -128, 127, 1, 1});
    const int32_t w = h.tensor(ST::Char, {2, 1, 1, 2}, {1, 2, -3, 1});
    const int32_t bias = h.tensor(ST::Int, {2}, {7, -100});
    const int32_t mult = h.tensor(ST::Int, {2}, {kHalf, kHalf});
    const int32_t shift = h.tensor(ST::Int, {2}, {0, -1});
    const int32_t scratch = h.tensor(ST::Byte, {0}, {});
    const int32_t out = channelsLastOut(h, {1, 2, 3, 1});
    KH_DONE(h.call("cortex_m::quantized_conv2d.out",
                   {x, w, bias, h.ints({1577058305, 1}), h.ints({0, 0}), h.ints({1, 1}), h.integer(5), h.integer(-3), mult,
                    shift, h.integer(-128), h.integer(127), scratch, out, out}));
    // Row 0 as in conv1x1PerChannelAndClamps' pixel 0: (9, -39).
    KH_VALUES(h, out, 0, {9, -39, 1, -28, 1, -28});
  }

  void conv3x3WithPaddingAndScratch() {
    KernelHarness h;
    // One channel, 2x2 image (1, 2 / 3, 4), an all-ones 3x3 filter, padding 1:
    // every output sums the whole image with offset 1 on the pixels inside only.
    const int32_t x = channelsLast(h, {1, 1, 2, 2}, {1, 2, 3, 4});
    const int32_t w = h.tensor(ST::Char, {1, 3, 3, 1}, std::vector<double>(9, 1));
    const int32_t mult = h.tensor(ST::Int, {1}, {kHalf});
    const int32_t shift = h.tensor(ST::Int, {1}, {1});
    const int32_t scratch = h.tensor(ST::Byte, {64}, {});
    const int32_t out = channelsLastOut(h, {1, 1, 2, 2});
    KH_DONE(h.call("cortex_m::quantized_conv2d.out",
                   {x, w, h.none(), h.ints({1, 1}), h.ints({1, 1}), h.ints({1, 1}), h.integer(1), h.integer(0), mult, shift,
                    h.integer(-128), h.integer(127), scratch, out, out}));
    KH_VALUES(h, out, 0, {14, 14, 14, 14});  // (1+1) + (2+1) + (3+1) + (4+1)
  }

  void depthwiseMultiplierPadding() {
    KernelHarness h;
    // Input [1, 1, 3, 1] = (1, 2, 3), depth_multiplier 2, a 3x1 filter [1, 3, 1, 2]:
    // taps (ky, oc): (1, 0), (1, 1), (1, -1); padding 1 along H, input offset 1.
    const int32_t x = h.tensor(ST::Char, {1, 1, 3, 1}, {1, 2, 3});
    const int32_t w = h.tensor(ST::Char, {1, 3, 1, 2}, {1, 0, 1, 1, 1, -1});
    const int32_t mult = h.tensor(ST::Int, {2}, {kHalf, kHalf});
    const int32_t shift = h.tensor(ST::Int, {2}, {1, 0});  // channel 0 unchanged, channel 1 halved (.5 up)
    const int32_t scratch = h.tensor(ST::Byte, {0}, {});
    const int32_t out = channelsLastOut(h, {1, 2, 3, 1});
    KH_DONE(h.call("cortex_m::quantized_depthwise_conv2d.out",
                   {x, w, h.none(), h.ints({1, 1}), h.ints({1, 0}), h.ints({1, 1}), h.integer(2), h.integer(1), h.integer(0), mult,
                    shift, h.integer(-128), h.integer(127), scratch, out, out}));
    // x + 1 = (2, 3, 4); rows: ch0 = 2+3, 2+3+4, 3+4; ch1 = 2-3, 3-4, 0*3+4 -> halved: 0, 0, floor(5/2) = 2.
    KH_VALUES(h, out, 0, {5, 0, 9, 0, 7, 2});
    // depth_multiplier that does not give the output channels; batch 2.
    expectError(h, "cortex_m::quantized_depthwise_conv2d.out",
                {x, w, h.none(), h.ints({1, 1}), h.ints({1, 0}), h.ints({1, 1}), h.integer(3), h.integer(1), h.integer(0), mult,
                 shift, h.integer(-128), h.integer(127), scratch, out, out},
                "depth_multiplier");
    // Found by fuzz_exec under UBSan: a depth_multiplier near int64's limit
    // overflowed the check input channels (2 here) * multiplier; it is
    // refused, and multiplier 1 on the same tensors runs.
    const int32_t x2c = channelsLast(h, {1, 2, 1, 1}, {1, 2});
    const int32_t w2c = h.tensor(ST::Char, {1, 1, 1, 2}, {1, 1});
    const int32_t out2c = channelsLastOut(h, {1, 2, 1, 1});
    auto depthwise2c = [&](int64_t multiplier) {
      return std::vector<int32_t>{x2c, w2c, h.none(), h.ints({1, 1}), h.ints({0, 0}), h.ints({1, 1}), h.integer(multiplier),
                                  h.integer(0), h.integer(0), mult, shift, h.integer(-128), h.integer(127), scratch, out2c,
                                  out2c};
    };
    expectError(h, "cortex_m::quantized_depthwise_conv2d.out", depthwise2c(6557241057451442177),
                "depth_multiplier 6557241057451442177");
    KH_DONE(h.call("cortex_m::quantized_depthwise_conv2d.out", depthwise2c(1)));
    const int32_t x2 = h.tensor(ST::Char, {2, 1, 3, 1}, {1, 2, 3, 1, 2, 3});
    expectError(h, "cortex_m::quantized_depthwise_conv2d.out",
                {x2, w, h.none(), h.ints({1, 1}), h.ints({1, 0}), h.ints({1, 1}), h.integer(2), h.integer(1), h.integer(0), mult,
                 shift, h.integer(-128), h.integer(127), scratch, out, out},
                "batch must be 1");
  }

  void transposeConvolution() {
    KernelHarness h;
    // Input [1, 1, 1, 2] = (1, 2), filter [1, 1, 2, 1] = (1, 10), stride (1, 2):
    // each input pixel lays down one copy of the filter: (1, 10, 2, 20).
    const int32_t x = h.tensor(ST::Char, {1, 1, 1, 2}, {1, 2});
    const int32_t w = h.tensor(ST::Char, {1, 1, 2, 1}, {1, 10});
    const int32_t mult = h.tensor(ST::Int, {1}, {kHalf});
    const int32_t shift = h.tensor(ST::Int, {1}, {1});
    const int32_t scratch = h.tensor(ST::Byte, {256}, {});
    const int32_t none = h.tensor(ST::Byte, {0}, {});
    const int32_t out = channelsLastOut(h, {1, 1, 1, 4});
    auto call = [&](int32_t input, int32_t weight, int32_t output, std::vector<int64_t> stride, std::vector<int64_t> pad, int32_t s) {
      return h.call("cortex_m::quantized_transpose_conv2d.out",
                    {input, weight, h.none(), h.ints(stride), h.ints(pad), h.ints({0, 0}), h.ints({1, 1}), h.integer(0), h.integer(0),
                     mult, shift, h.integer(-128), h.integer(127), s, none, output, output});
    };
    KH_DONE(call(x, w, out, {1, 2}, {0, 0}, scratch));
    KH_VALUES(h, out, 0, {1, 10, 2, 20});
    // CMSIS-NN returns an argument error without scratch memory.
    QVERIFY(!call(x, w, out, {1, 2}, {0, 0}, none).ok());
    // kernel 4, stride 2, pad 1 on 5 rows: the row scatter writes 9 of the 10 output rows.
    const int32_t x5 = h.tensor(ST::Char, {1, 1, 5, 1}, {1, 2, 3, 4, 5});
    const int32_t w4 = h.tensor(ST::Char, {1, 4, 1, 1}, {1, 1, 1, 1});
    const int32_t out10 = channelsLastOut(h, {1, 1, 10, 1});
    auto r = call(x5, w4, out10, {2, 1}, {1, 0}, scratch);
    QVERIFY(r.ok());
    QCOMPARE(int(r->kind), int(exec::KernelOutcome::Kind::Unsupported));
  }

  void linearWithOffsets() {
    KernelHarness h;
    const int32_t x = h.tensor(ST::Char, {1, 3}, {1, 2, 3});
    const int32_t w = h.tensor(ST::Char, {2, 3}, {1, 1, 1, 2, -1, 0});
    const int32_t bias = h.tensor(ST::Int, {2}, {10, -10});
    const int32_t out = h.staticOutput(ST::Char, {1, 2});
    // quantized_linear.out(input, weights, bias?, kernel_sum?, input_offset, filter_offset, output_offset,
    //   multipliers[], shifts[], activation_max, activation_min, *, out)
    auto linear = [&](int64_t filterOffset, int64_t actMax, int32_t b) {
      return h.call("cortex_m::quantized_linear.out", {x, w, b, h.none(), h.integer(1), h.integer(filterOffset), h.integer(0),
                                                        h.ints({int64_t(kHalf)}), h.ints({1}), h.integer(actMax), h.integer(-128), out, out});
    };
    KH_DONE(linear(0, 127, bias));
    KH_VALUES(h, out, 0, {19, -9});  // (2+3+4) + 10, (4-3+0) - 10
    KH_DONE(linear(2, 127, bias));
    KH_VALUES(h, out, 0, {37, 9});  // 3*(2+3+4) + 10, 8+3+8 - 10
    KH_DONE(linear(2, 20, bias));   // activation_max clamps
    KH_VALUES(h, out, 0, {20, 9});
    KH_DONE(linear(0, 127, h.none()));
    KH_VALUES(h, out, 0, {9, 1});
    const int32_t wBad = h.tensor(ST::Char, {2, 2}, {1, 1, 1, 1});
    expectError(h, "cortex_m::quantized_linear.out", {x, wBad, bias, h.none(), h.integer(1), h.integer(0), h.integer(0),
                                                        h.ints({int64_t(kHalf)}), h.ints({1}), h.integer(127), h.integer(-128), out, out},
                "weights");
    expectError(h, "cortex_m::quantized_linear.out", {x, w, bias, h.none(), h.integer(1), h.integer(0), h.integer(0),
                                                        h.ints({int64_t(kHalf)}), h.ints({1}), h.integer(-128), h.integer(127), out, out},
                "activation_min");
  }

  void batchMatmul() {
    KernelHarness h;
    const int32_t lhs = h.tensor(ST::Char, {1, 1, 2}, {1, 2});
    const int32_t rhs = h.tensor(ST::Char, {1, 2, 2}, {3, 4, -1, 0});  // already transposed: rows are columns
    const int32_t scratch = h.tensor(ST::Byte, {0}, {});
    const int32_t out = h.staticOutput(ST::Char, {1, 1, 2});
    KH_DONE(h.call("cortex_m::quantized_batch_matmul.out",
                   {lhs, h.integer(1), rhs, h.integer(0), h.integer(0), h.integer(int64_t(kHalf)), h.integer(1), scratch, out, out}));
    KH_VALUES(h, out, 0, {18, -2});  // (2, 3) . (3, 4), (2, 3) . (-1, 0)
    const int32_t rhsBad = h.tensor(ST::Char, {1, 2, 3}, {0, 0, 0, 0, 0, 0});
    expectError(h, "cortex_m::quantized_batch_matmul.out",
                {lhs, h.integer(1), rhsBad, h.integer(0), h.integer(0), h.integer(int64_t(kHalf)), h.integer(1), scratch, out, out},
                "inner dims");
  }

  // Exports made with earlier cortex_m:: schemas (upstream operators.yaml
  // history, issue 26 item 3): before b581615fa8 / 23b6ba0483 the kernels had
  // no scratch arguments, before 2cce41f9bf avg_pool2d had no ceil_mode. They
  // run with the numbers of the current schema; a count that matches no
  // version is refused naming every version and the change that added what
  // it lacks.
  void olderSchemasRun() {
    KernelHarness h;
    // conv2d with 14 arguments (no scratch): a 3x3 filter with padding, which
    // the current schema only runs with a non-empty scratch.
    const int32_t x = channelsLast(h, {1, 1, 2, 2}, {1, 2, 3, 4});
    const int32_t w = h.tensor(ST::Char, {1, 3, 3, 1}, std::vector<double>(9, 1));
    const int32_t mult = h.tensor(ST::Int, {1}, {kHalf});
    const int32_t shift = h.tensor(ST::Int, {1}, {1});
    const int32_t out = channelsLastOut(h, {1, 1, 2, 2});
    std::vector<int32_t> conv = {x, w, h.none(), h.ints({1, 1}), h.ints({1, 1}), h.ints({1, 1}), h.integer(1), h.integer(0), mult,
                                 shift, h.integer(-128), h.integer(127), out, out};
    KH_DONE(h.call("cortex_m::quantized_conv2d.out", conv));
    KH_VALUES(h, out, 0, {14, 14, 14, 14});
    // 13 arguments match no version: the error names both.
    conv.erase(conv.begin() + 11);
    auto r = h.call("cortex_m::quantized_conv2d.out", conv);
    QVERIFY(!r.ok());
    const std::string message = r.error().message;
    QVERIFY2(message.find("13 arguments match no version") != std::string::npos, message.c_str());
    QVERIFY2(message.find("takes 15") != std::string::npos && message.find("takes 14 (without scratch)") != std::string::npos,
             message.c_str());
    QVERIFY2(message.find("b581615fa8") != std::string::npos && message.find("Expected") == std::string::npos, message.c_str());

    // depthwise_conv2d with 15 (no scratch).
    const int32_t xd = h.tensor(ST::Char, {1, 1, 3, 1}, {1, 2, 3});
    const int32_t wd = h.tensor(ST::Char, {1, 3, 1, 2}, {1, 0, 1, 1, 1, -1});
    const int32_t multd = h.tensor(ST::Int, {2}, {kHalf, kHalf});
    const int32_t shiftd = h.tensor(ST::Int, {2}, {1, 0});
    const int32_t outd = channelsLastOut(h, {1, 2, 3, 1});
    KH_DONE(h.call("cortex_m::quantized_depthwise_conv2d.out",
                   {xd, wd, h.none(), h.ints({1, 1}), h.ints({1, 0}), h.ints({1, 1}), h.integer(2), h.integer(1), h.integer(0), multd,
                    shiftd, h.integer(-128), h.integer(127), outd, outd}));
    KH_VALUES(h, outd, 0, {5, 0, 9, 0, 7, 2});

    // transpose_conv2d with 15 (neither scratch nor output_scratch).
    const int32_t xt = h.tensor(ST::Char, {1, 1, 1, 2}, {1, 2});
    const int32_t wt = h.tensor(ST::Char, {1, 1, 2, 1}, {1, 10});
    const int32_t outt = channelsLastOut(h, {1, 1, 1, 4});
    KH_DONE(h.call("cortex_m::quantized_transpose_conv2d.out",
                   {xt, wt, h.none(), h.ints({1, 2}), h.ints({0, 0}), h.ints({0, 0}), h.ints({1, 1}), h.integer(0), h.integer(0), mult,
                    shift, h.integer(-128), h.integer(127), outt, outt}));
    KH_VALUES(h, outt, 0, {1, 10, 2, 20});

    // batch_matmul with 9 (no scratch).
    const int32_t lhs = h.tensor(ST::Char, {1, 1, 2}, {1, 2});
    const int32_t rhs = h.tensor(ST::Char, {1, 2, 2}, {3, 4, -1, 0});
    const int32_t outm = h.staticOutput(ST::Char, {1, 1, 2});
    KH_DONE(h.call("cortex_m::quantized_batch_matmul.out",
                   {lhs, h.integer(1), rhs, h.integer(0), h.integer(0), h.integer(int64_t(kHalf)), h.integer(1), outm, outm}));
    KH_VALUES(h, outm, 0, {18, -2});

    // avg_pool2d with 10 (no ceil_mode) and 9 (no ceil_mode, no scratch).
    const int32_t xp = h.tensor(ST::Char, {1, 1, 2, 3}, {1, 2, 4, -3, -4, -4});
    const int32_t scratch = h.tensor(ST::Byte, {0}, {});
    const int32_t outp = channelsLastOut(h, {1, 1, 2, 2});
    KH_DONE(h.call("cortex_m::quantized_avg_pool2d.out", {xp, h.ints({2, 2}), h.ints({2, 2}), h.ints({1, 1}), h.integer(0), h.integer(0),
                                                           h.integer(0), scratch, outp, outp}));
    KH_VALUES(h, outp, 0, {1, 3, -3, -4});
    const int32_t outp9 = channelsLastOut(h, {1, 1, 2, 2});
    KH_DONE(h.call("cortex_m::quantized_avg_pool2d.out",
                   {xp, h.ints({2, 2}), h.ints({2, 2}), h.ints({1, 1}), h.integer(0), h.integer(0), h.integer(0), outp9, outp9}));
    KH_VALUES(h, outp9, 0, {1, 3, -3, -4});

    // quantized_add with 13 (before 6fccd5ae12's fused activation: clamps to int8's range).
    const int32_t qa = h.tensor(ST::Char, {2}, {11, -100});
    const int32_t qb = h.tensor(ST::Char, {2}, {5, -100});
    const int32_t outa = h.staticOutput(ST::Char, {2});
    KH_DONE(h.call("cortex_m::quantized_add.out",
                   {qa, h.integer(2), h.integer(int64_t(kHalf)), h.integer(0), qb, h.integer(-3), h.integer(int64_t(kHalf)), h.integer(0),
                    h.integer(1), h.integer(int64_t(kHalf)), h.integer(-19), outa, outa}));
    KH_VALUES(h, outa, 0, {10, -99});

    // quantized_linear's first schema (17) has other arithmetic: refused, naming the change.
    std::vector<int32_t> oldLinear(16, h.integer(0));
    oldLinear.push_back(outm);
    auto rl = h.call("cortex_m::quantized_linear.out", oldLinear);
    QVERIFY(!rl.ok());
    QVERIFY2(rl.error().message.find("9843222446") != std::string::npos && rl.error().message.find("re-export") != std::string::npos,
             rl.error().message.c_str());
    auto r8 = h.call("cortex_m::quantized_avg_pool2d.out",
                     {xp, h.ints({2, 2}), h.ints({2, 2}), h.ints({1, 1}), h.integer(0), h.integer(0), outp9, outp9});
    QVERIFY(!r8.ok());
    QVERIFY2(r8.error().message.find("takes 10 (without ceil_mode)") != std::string::npos &&
                 r8.error().message.find("takes 9 (without ceil_mode and scratch)") != std::string::npos &&
                 r8.error().message.find("2cce41f9bf") != std::string::npos,
             r8.error().message.c_str());
  }

  // max_pool2d on contiguous (NCHW) tensors: upstream's runtime refuses them
  // at every version; the refusal names the tensor's dim order and why.
  void maxPoolOnContiguousTensors() {
    KernelHarness h;
    const int32_t x = h.tensor(ST::Char, {1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});
    const int32_t out = h.staticOutput(ST::Char, {1, 2, 1, 1});
    expectError(h, "cortex_m::quantized_max_pool2d.out",
                {x, h.ints({2, 2}), h.ints({1, 1}), h.ints({0, 0}), h.ints({1, 1}), h.boolean(false), h.integer(0), h.integer(0),
                 h.integer(-128), h.integer(127), out, out},
                "has dim order (0, 1, 2, 3) (contiguous). Upstream's runtime refuses it too");
  }

  void averageAndMaxPooling() {
    KernelHarness h;
    // [1, 1, 2, 3]: rows (1, 2, 4) and (-3, -4, -4).
    const int32_t x = h.tensor(ST::Char, {1, 1, 2, 3}, {1, 2, 4, -3, -4, -4});
    const int32_t scratch = h.tensor(ST::Byte, {0}, {});
    const int32_t out = channelsLastOut(h, {1, 1, 1, 2});
    auto avg = [&](int32_t o, std::vector<int64_t> k, std::vector<int64_t> s, std::vector<int64_t> p) {
      return h.call("cortex_m::quantized_avg_pool2d.out", {x, h.ints(k), h.ints(s), h.ints(p), h.boolean(false), h.integer(0),
                                                            h.integer(0), h.integer(0), scratch, o, o});
    };
    KH_DONE(avg(out, {2, 2}, {1, 1}, {0, 0}));
    KH_VALUES(h, out, 0, {-1, -1});  // -4/4 = -1; -2/4 = -0.5 rounds away from zero
    // Padding 1, stride 2: the windows count only elements inside the input.
    const int32_t out2 = channelsLastOut(h, {1, 1, 2, 2});
    KH_DONE(avg(out2, {2, 2}, {2, 2}, {1, 1}));
    KH_VALUES(h, out2, 0, {1, 3, -3, -4});  // 1/1, (2+4)/2, -3/1, (-4-4)/2
    expectError(h, "cortex_m::quantized_avg_pool2d.out",
                {x, h.ints({2, 2}), h.ints({2, 2}), h.ints({1, 1}), h.boolean(false), h.integer(0), h.integer(0), h.integer(0),
                 scratch, out, out},
                "output shape mismatch");
    // max_pool2d.out(input, kernel, stride, padding, dilation, ceil_mode, in_zp, out_zp, act_min, act_max, *, out)
    auto maxPool = [&](int64_t actMax, bool ceil, int64_t outZp) {
      return h.call("cortex_m::quantized_max_pool2d.out", {x, h.ints({2, 2}), h.ints({1, 1}), h.ints({0, 0}), h.ints({1, 1}), h.boolean(ceil),
                                                            h.integer(0), h.integer(outZp), h.integer(-128), h.integer(actMax), out, out});
    };
    KH_DONE(maxPool(127, false, 0));
    KH_VALUES(h, out, 0, {2, 4});
    KH_DONE(maxPool(3, false, 0));
    KH_VALUES(h, out, 0, {2, 3});
    expectError(h, "cortex_m::quantized_max_pool2d.out", {x, h.ints({2, 2}), h.ints({1, 1}), h.ints({0, 0}), h.ints({1, 1}), h.boolean(true),
                                                          h.integer(0), h.integer(0), h.integer(-128), h.integer(127), out, out},
                "ceil_mode");
    expectError(h, "cortex_m::quantized_max_pool2d.out", {x, h.ints({2, 2}), h.ints({1, 1}), h.ints({0, 0}), h.ints({1, 1}), h.boolean(false),
                                                          h.integer(0), h.integer(5), h.integer(-128), h.integer(127), out, out},
                "zero points must match");
    // A window entirely in the padding has nothing to take the maximum of.
    const int32_t one = h.tensor(ST::Char, {1, 1, 1, 1}, {9});
    const int32_t wide = channelsLastOut(h, {1, 1, 1, 3});
    expectUnsupported(h, "cortex_m::quantized_max_pool2d.out",
                      {one, h.ints({1, 1}), h.ints({1, 1}), h.ints({0, 1}), h.ints({1, 1}), h.boolean(false), h.integer(0), h.integer(0),
                       h.integer(-128), h.integer(127), wide, wide},
                      "no input element");
  }

  void padMemoryOrder() {
    KernelHarness h;
    const int32_t x = h.tensor(ST::Char, {2, 2}, {1, 2, 3, 4});
    const int32_t out = h.staticOutput(ST::Char, {3, 3});
    KH_DONE(h.call("cortex_m::pad.out", {x, h.ints({0, 0, 1, 0}), h.ints({0, 0, 0, 1}), h.integer(-7), out, out}));
    KH_VALUES(h, out, 0, {-7, -7, -7, 1, 2, -7, 3, 4, -7});
    // channels_last: the pads apply to (N, H, W, C): one more channel of -1 after each pixel.
    const int32_t y = channelsLast(h, {1, 2, 1, 2}, {1, 2, 3, 4});  // pixels (1, 2), (3, 4)
    const int32_t out2 = channelsLastOut(h, {1, 3, 1, 2});
    KH_DONE(h.call("cortex_m::pad.out", {y, h.ints({0, 0, 0, 0}), h.ints({0, 0, 0, 1}), h.integer(-1), out2, out2}));
    KH_VALUES(h, out2, 0, {1, 2, -1, 3, 4, -1});
    expectError(h, "cortex_m::pad.out", {x, h.ints({0, 0, -1, 0}), h.ints({0, 0, 0, 1}), h.integer(0), out, out}, "non-negative");
    expectError(h, "cortex_m::pad.out", {x, h.ints({0, 1}), h.ints({0, 1}), h.integer(0), out, out}, "4 entries");
  }

  void addAndMultiply() {
    KernelHarness h;
    const int32_t a = h.tensor(ST::Char, {2}, {11, -100});
    const int32_t b = h.tensor(ST::Char, {2}, {5, -100});
    const int32_t out = h.staticOutput(ST::Char, {2});
    // Inputs scaled by 0.5 after the fixed << 20: (x - z) * 2^19; the output multiplier 0.5 with
    // shift -19 then gives (a' + b') / 2, rounded half away from zero.
    KH_DONE(h.call("cortex_m::quantized_add.out",
                   {a, h.integer(2), h.integer(int64_t(kHalf)), h.integer(0), b, h.integer(-3), h.integer(int64_t(kHalf)), h.integer(0),
                    h.integer(1), h.integer(int64_t(kHalf)), h.integer(-19), h.integer(-128), h.integer(127), out, out}));
    KH_VALUES(h, out, 0, {10, -99});  // (9 + 8) / 2 = 8.5 -> 9, + 1; (-102 - 97) / 2 = -99.5 -> -100, + 1
    // Channel broadcast: a [1, 2, 2, 1] channels_last plus a per-channel [1, 2, 1, 1].
    const int32_t big = channelsLast(h, {1, 2, 2, 1}, {1, 2, 3, 4});  // pixels (1, 2), (3, 4)
    const int32_t perChannel = h.tensor(ST::Char, {1, 2, 1, 1}, {10, 20});
    const int32_t bout = channelsLastOut(h, {1, 2, 2, 1});
    KH_DONE(h.call("cortex_m::quantized_add.out",
                   {perChannel, h.integer(0), h.integer(int64_t(kHalf)), h.integer(0), big, h.integer(0), h.integer(int64_t(kHalf)),
                    h.integer(0), h.integer(0), h.integer(int64_t(kHalf)), h.integer(-18), h.integer(-128), h.integer(127), bout, bout}));
    KH_VALUES(h, bout, 0, {11, 22, 13, 24});
    expectError(h, "cortex_m::quantized_add.out",
                {a, h.integer(2), h.integer(int64_t(1) << 32), h.integer(0), b, h.integer(-3), h.integer(int64_t(kHalf)), h.integer(0),
                 h.integer(1), h.integer(int64_t(kHalf)), h.integer(-19), h.integer(-128), h.integer(127), out, out},
                "outside int32");
    const int32_t c3 = h.tensor(ST::Char, {3}, {1, 2, 3});
    expectError(h, "cortex_m::quantized_add.out",
                {a, h.integer(0), h.integer(int64_t(kHalf)), h.integer(0), c3, h.integer(0), h.integer(int64_t(kHalf)), h.integer(0),
                 h.integer(0), h.integer(int64_t(kHalf)), h.integer(-18), h.integer(-128), h.integer(127), out, out},
                "same sizes");
    // mul.out(self, self_zp, other, other_zp, out_zp, out_multiplier, out_shift, *, out):
    // multiplier 0.5, shift 0: 3 * 1 = 3 -> 1.5 rounds up to 2, -3 -> -1.5 rounds up to -1.
    const int32_t m1 = h.tensor(ST::Char, {3}, {3, -3, 127});
    const int32_t m2 = h.tensor(ST::Char, {3}, {1, 1, 127});
    const int32_t mout = h.staticOutput(ST::Char, {3});
    KH_DONE(h.call("cortex_m::quantized_mul.out",
                   {m1, h.integer(0), m2, h.integer(0), h.integer(0), h.integer(int64_t(kHalf)), h.integer(0), mout, mout}));
    KH_VALUES(h, mout, 0, {2, -1, 127});  // 127 * 127 / 2 clamps at 127
    KH_DONE(h.call("cortex_m::quantized_mul.out",
                   {m1, h.integer(1), m2, h.integer(-1), h.integer(-5), h.integer(int64_t(kHalf)), h.integer(1), mout, mout}));
    KH_VALUES(h, mout, 0, {-1, -13, 127});  // (3-1)(1+1) - 5, (-3-1)(2) - 5, big
  }

  void divideActivationExtremes() {
    KernelHarness h;
    const int32_t a = h.tensor(ST::Char, {3}, {10, 7, 5});
    const int32_t b = h.tensor(ST::Char, {3}, {4, -2, 0});
    const int32_t out = h.staticOutput(ST::Char, {3});
    KH_DONE(h.call("cortex_m::quantized_div.out", {a, h.integer(0), b, h.integer(0), h.integer(1), h.real(1.0), out, out}));
    KH_VALUES(h, out, 0, {4, -3, 1});  // 2.5 -> 3, -3.5 -> -4 (half away), x / 0 -> 0; plus 1
    // LUT: lut[k] = (k mod 7) - 3, indexed by x + 128.
    std::vector<double> table;
    for (int k = 0; k < 256; ++k) table.push_back((k % 7) - 3);
    const int32_t lut = h.tensor(ST::Char, {256}, table);
    const int32_t x = h.tensor(ST::Char, {3}, {-128, 0, 127});
    KH_DONE(h.call("cortex_m::quantized_activation.out", {x, lut, out, out}));
    KH_VALUES(h, out, 0, {-3, -1, 0});
    const int32_t shortLut = h.tensor(ST::Char, {255}, std::vector<double>(255, 0));
    expectError(h, "cortex_m::quantized_activation.out", {x, shortLut, out, out}, "256");
    // minimum / maximum broadcast [2, 1] with [1, 3].
    const int32_t p = h.tensor(ST::Char, {2, 1}, {-5, 7});
    const int32_t q = h.tensor(ST::Char, {1, 3}, {0, 10, -128});
    const int32_t e = h.output(ST::Char, 6);
    KH_DONE(h.call("cortex_m::maximum.out", {p, q, e, e}));
    KH_SIZES(h, e, {2, 3});
    KH_VALUES(h, e, 0, {0, 10, -5, 7, 10, 7});
    KH_DONE(h.call("cortex_m::minimum.out", {p, q, e, e}));
    KH_VALUES(h, e, 0, {-5, -5, -128, 0, 7, -128});
    const int32_t f = h.tensor(ST::Float, {1, 3}, {0, 0, 0});
    expectError(h, "cortex_m::minimum.out", {p, f, e, e}, "must be int8");
  }

  void softmaxProperties() {
    KernelHarness h;
    // Output scale 1/256, zero point -128: a probability p reads 256 p - 128.
    // Four equal values: 1/4 each -> -64. One value far above the rest (beyond diff_min): 1 -> 127
    // (clamped), the rest exactly -128. Two equal maxima, the others below diff_min: 1/2 -> 0.
    const int32_t x = h.tensor(ST::Char, {3, 4}, {5, 5, 5, 5, 100, -100, -100, -100, 0, 0, -128, -128});
    const int32_t out = h.staticOutput(ST::Char, {3, 4});
    auto call = [&](int32_t input, int64_t dim, int64_t outZp) {
      return h.call("cortex_m::softmax.out",
                    {input, h.integer(dim), h.integer(0), h.integer(outZp), h.integer(1518500250), h.integer(22), h.integer(-50), out, out});
    };
    KH_DONE(call(x, -1, -128));
    KH_VALUES(h, out, 0, {-64, -64, -64, -64, 127, -128, -128, -128, 0, 0, -128, -128});
    expectError(h, "cortex_m::softmax.out",
                {x, h.integer(0), h.integer(0), h.integer(-128), h.integer(1518500250), h.integer(22), h.integer(-50), out, out},
                "last dimension");
    expectError(h, "cortex_m::softmax.out",
                {x, h.integer(1), h.integer(0), h.integer(0), h.integer(1518500250), h.integer(22), h.integer(-50), out, out}, "-128");
  }

  void transposeCopies() {
    KernelHarness h;
    const int32_t x = h.tensor(ST::Char, {2, 3}, {1, 2, 3, 4, 5, 6});
    const int32_t out = h.staticOutput(ST::Char, {3, 2});
    KH_DONE(h.call("cortex_m::transpose.out", {x, h.ints({1, 0}), out, out}));
    KH_VALUES(h, out, 0, {1, 4, 2, 5, 3, 6});
    // [2, 1, 2] with perm (2, 0, 1): out[c][a][b] = in[a][b][c].
    const int32_t y = h.tensor(ST::Char, {2, 1, 2}, {1, 2, 3, 4});
    const int32_t out3 = h.staticOutput(ST::Char, {2, 2, 1});
    KH_DONE(h.call("cortex_m::transpose.out", {y, h.ints({2, 0, 1}), out3, out3}));
    KH_VALUES(h, out3, 0, {1, 3, 2, 4});
    expectError(h, "cortex_m::transpose.out", {y, h.ints({2, 2, 1}), out3, out3}, "not a permutation");
    expectError(h, "cortex_m::transpose.out", {y, h.ints({0, 1, 2}), out3, out3}, "permuted");
    // CMSIS-NN swaps a 2-D input whatever perm says; the identity is not computed.
    const int32_t same = h.staticOutput(ST::Char, {2, 3});
    expectUnsupported(h, "cortex_m::transpose.out", {x, h.ints({0, 1}), same, same}, "identity");
  }
};

QTEST_APPLESS_MAIN(KernelsCortexMTest)
#include "test_kernels_cortex_m.moc"
