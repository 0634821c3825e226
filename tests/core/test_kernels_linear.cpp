// Matrix products, convolution, pooling, padding and upsampling against
// hand-worked values and identities (a 1x1 identity kernel returns its
// input, an all-ones 3x3 kernel gives box sums, adaptive pooling to 1x1 is
// the mean), in upstream's argument layouts.
#include <QtTest>

#include "support/KernelHarness.h"

using namespace ptescope;
using ptescope::testing::KernelHarness;
using ST = program::ScalarType;

class KernelsLinearTest : public QObject {
  Q_OBJECT
 private slots:
  void matrixProducts() {
    KernelHarness h;
    const int32_t a = h.tensor(ST::Float, {2, 3}, {1, 2, 3, 4, 5, 6});
    const int32_t b = h.tensor(ST::Float, {3, 2}, {7, 8, 9, 10, 11, 12});
    const int32_t out = h.output(ST::Float, 4);
    KH_DONE(h.call("aten::mm.out", {a, b, out, out}));
    KH_SIZES(h, out, {2, 2});
    KH_VALUES(h, out, 0, {58, 64, 139, 154});
    // addmm.out(self, mat1, mat2, *, beta, alpha, out): beta * bias + alpha * a @ b
    const int32_t bias = h.tensor(ST::Float, {2}, {1, -1});
    KH_DONE(h.call("aten::addmm.out", {bias, a, b, h.integer(2), h.real(0.5), out, out}));
    KH_VALUES(h, out, 0, {31, 30, 71.5, 75});
    // linear.out(input, weight, bias?, *, out): input @ weight^T + bias, over leading dims
    const int32_t x = h.tensor(ST::Float, {1, 2, 3}, {1, 2, 3, 4, 5, 6});
    const int32_t w = h.tensor(ST::Float, {2, 3}, {1, 0, 0, 0, 1, 1});
    const int32_t lo = h.output(ST::Float, 4);
    KH_DONE(h.call("aten::linear.out", {x, w, bias, lo, lo}));
    KH_SIZES(h, lo, {1, 2, 2});
    KH_VALUES(h, lo, 0, {2, 4, 5, 10});
    KH_DONE(h.call("aten::linear.out", {x, w, h.none(), lo, lo}));
    KH_VALUES(h, lo, 0, {1, 5, 4, 11});
    // bmm over a batch of two: the second is the first times -1
    const int32_t p = h.tensor(ST::Float, {2, 1, 2}, {1, 2, -1, -2});
    const int32_t q = h.tensor(ST::Float, {2, 2, 1}, {3, 4, 3, 4});
    const int32_t bo = h.output(ST::Float, 2);
    KH_DONE(h.call("aten::bmm.out", {p, q, bo, bo}));
    KH_SIZES(h, bo, {2, 1, 1});
    KH_VALUES(h, bo, 0, {11, -11});
    const int32_t il = h.tensor(ST::Long, {1, 2}, {3, 4});
    const int32_t ir = h.tensor(ST::Long, {2, 1}, {5, 6});
    const int32_t io = h.output(ST::Long, 1);
    KH_DONE(h.call("aten::mm.out", {il, ir, io, io}));
    KH_VALUES(h, io, 0, {39});
    QVERIFY(!h.call("aten::mm.out", {a, a, out, out}).ok());
  }

  void convolutionIdentityAndBoxSums() {
    KernelHarness h;
    std::vector<double> image(16);
    for (int i = 0; i < 16; ++i) image[size_t(i)] = i + 1;
    const int32_t x = h.tensor(ST::Float, {1, 1, 4, 4}, image);
    const int32_t one = h.tensor(ST::Float, {1, 1, 1, 1}, {1});
    const int32_t out = h.output(ST::Float, 64);
    // convolution.out(input, weight, bias?, stride, padding, dilation, transposed, output_padding, groups, *, out)
    auto conv = [&](int32_t w, int32_t bias, std::vector<int64_t> stride, std::vector<int64_t> pad, std::vector<int64_t> dil,
                    bool transposed, int64_t groups, int32_t input) {
      return h.call("aten::convolution.out", {input, w, bias, h.ints(stride), h.ints(pad), h.ints(dil), h.boolean(transposed),
                                              h.ints({0, 0}), h.integer(groups), out, out});
    };
    KH_DONE(conv(one, h.none(), {1, 1}, {0, 0}, {1, 1}, false, 1, x));
    KH_SIZES(h, out, {1, 1, 4, 4});
    KH_VALUES(h, out, 0, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
    const int32_t ones = h.tensor(ST::Float, {1, 1, 3, 3}, std::vector<double>(9, 1));
    const int32_t bias = h.tensor(ST::Float, {1}, {100});
    KH_DONE(conv(ones, bias, {1, 1}, {0, 0}, {1, 1}, false, 1, x));
    KH_SIZES(h, out, {1, 1, 2, 2});
    KH_VALUES(h, out, 0, {154, 163, 190, 199});  // 3x3 box sums plus the bias
    KH_DONE(conv(ones, h.none(), {2, 2}, {1, 1}, {1, 1}, false, 1, x));
    KH_SIZES(h, out, {1, 1, 2, 2});
    KH_VALUES(h, out, 0, {14, 30, 57, 99});  // windows clipped by the padding: 1+2+5+6, 2+3+4+6+7+8, ...
    KH_DONE(conv(ones, h.none(), {1, 1}, {0, 0}, {2, 2}, false, 1, h.tensor(ST::Float, {1, 1, 5, 5}, std::vector<double>(25, 1))));
    KH_SIZES(h, out, {1, 1, 1, 1});
    KH_VALUES(h, out, 0, {9});  // dilation 2 spans the whole 5x5
    // depthwise: two channels, groups 2, each its own scale
    const int32_t x2 = h.tensor(ST::Float, {1, 2, 1, 2}, {1, 2, 3, 4});
    const int32_t dw = h.tensor(ST::Float, {2, 1, 1, 1}, {10, -1});
    KH_DONE(conv(dw, h.none(), {1, 1}, {0, 0}, {1, 1}, false, 2, x2));
    KH_VALUES(h, out, 0, {10, 20, -3, -4});
    // mixing: one output channel summing both inputs
    const int32_t mix = h.tensor(ST::Float, {1, 2, 1, 1}, {1, 1});
    KH_DONE(conv(mix, h.none(), {1, 1}, {0, 0}, {1, 1}, false, 1, x2));
    KH_VALUES(h, out, 0, {4, 6});
    // 1-D: [N, C, L] with a [1, 1, 2] kernel
    const int32_t seq = h.tensor(ST::Float, {1, 1, 4}, {1, 2, 3, 4});
    const int32_t k1 = h.tensor(ST::Float, {1, 1, 2}, {1, -1});
    KH_DONE(h.call("aten::convolution.out", {seq, k1, h.none(), h.ints({1}), h.ints({0}), h.ints({1}), h.boolean(false), h.ints({0}),
                                            h.integer(1), out, out}));
    KH_SIZES(h, out, {1, 1, 3});
    KH_VALUES(h, out, 0, {-1, -1, -1});
    // transposed, stride 2: each input scatters a 2x2 copy of the kernel
    const int32_t small = h.tensor(ST::Float, {1, 1, 1, 2}, {1, 2});
    const int32_t tk = h.tensor(ST::Float, {1, 1, 2, 2}, {1, 2, 3, 4});
    KH_DONE(conv(tk, h.none(), {2, 2}, {0, 0}, {1, 1}, true, 1, small));
    KH_SIZES(h, out, {1, 1, 2, 4});
    KH_VALUES(h, out, 0, {1, 2, 2, 4, 3, 4, 6, 8});
  }

  void maxPoolWithIndices() {
    KernelHarness h;
    const int32_t x = h.tensor(ST::Float, {1, 1, 4, 4}, {1, 5, 2, 0, 3, 4, 8, 1, 0, 0, 1, 1, -1, 9, 1, 2});
    const int32_t out = h.output(ST::Float, 16), idx = h.output(ST::Long, 16);
    // max_pool2d_with_indices.out(self, kernel_size, stride, padding, dilation, ceil_mode, *, out, indices) -> TensorList
    KH_DONE(h.call("aten::max_pool2d_with_indices.out", {x, h.ints({2, 2}), h.ints({2, 2}), h.ints({0, 0}), h.ints({1, 1}),
                                                          h.boolean(false), out, idx, h.list({out, idx})}));
    KH_SIZES(h, out, {1, 1, 2, 2});
    KH_VALUES(h, out, 0, {5, 8, 9, 2});
    QCOMPARE(h.longValues(idx), (std::vector<int64_t>{1, 6, 13, 15}));
    // an empty stride means the kernel size; padding pads with -inf
    KH_DONE(h.call("aten::max_pool2d_with_indices.out", {x, h.ints({3, 3}), h.ints({}), h.ints({1, 1}), h.ints({1, 1}),
                                                          h.boolean(false), out, idx, h.list({out, idx})}));
    KH_SIZES(h, out, {1, 1, 2, 2});
    KH_VALUES(h, out, 0, {5, 8, 9, 2});
    KH_DONE(h.call("aten::max_pool2d_with_indices.out", {x, h.ints({3, 3}), h.ints({2, 2}), h.ints({0, 0}), h.ints({1, 1}),
                                                          h.boolean(true), out, idx, h.list({out, idx})}));
    KH_SIZES(h, out, {1, 1, 2, 2});  // ceil mode keeps the partial window
    KH_VALUES(h, out, 0, {8, 8, 9, 2});
  }

  void averagePools() {
    KernelHarness h;
    const int32_t x = h.tensor(ST::Float, {1, 1, 2, 2}, {1, 2, 3, 6});
    const int32_t out = h.output(ST::Float, 16);
    // avg_pool2d.out(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override?, *, out)
    KH_DONE(h.call("aten::avg_pool2d.out", {x, h.ints({2, 2}), h.ints({2, 2}), h.ints({0, 0}), h.boolean(false), h.boolean(true),
                                           h.none(), out, out}));
    KH_VALUES(h, out, 0, {3});
    KH_DONE(h.call("aten::avg_pool2d.out", {x, h.ints({2, 2}), h.ints({1, 1}), h.ints({1, 1}), h.boolean(false), h.boolean(true),
                                           h.none(), out, out}));
    KH_SIZES(h, out, {1, 1, 3, 3});
    KH_VALUES(h, out, 1e-6, {0.25, 0.75, 0.5, 1, 3, 2, 0.75, 2.25, 1.5});
    KH_DONE(h.call("aten::avg_pool2d.out", {x, h.ints({2, 2}), h.ints({1, 1}), h.ints({1, 1}), h.boolean(false), h.boolean(false),
                                           h.none(), out, out}));
    KH_VALUES(h, out, 1e-6, {1, 1.5, 2, 2, 3, 4, 3, 4.5, 6});
    KH_DONE(h.call("aten::avg_pool2d.out", {x, h.ints({2, 2}), h.ints({2, 2}), h.ints({0, 0}), h.boolean(false), h.boolean(true),
                                           h.integer(2), out, out}));
    KH_VALUES(h, out, 0, {6});
    // _adaptive_avg_pool2d.out(self, output_size, *, out): to 1x1 is the mean of each plane
    const int32_t planes = h.tensor(ST::Float, {2, 2, 3}, {1, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 12});
    KH_DONE(h.call("aten::_adaptive_avg_pool2d.out", {planes, h.ints({1, 1}), out, out}));
    KH_SIZES(h, out, {2, 1, 1});
    KH_VALUES(h, out, 0, {3.5, 2});
    KH_DONE(h.call("aten::_adaptive_avg_pool2d.out", {planes, h.ints({2, 2}), out, out}));
    KH_VALUES(h, out, 0, {1.5, 2.5, 4.5, 5.5, 0, 0, 0, 6});
  }

  void padAndUpsample() {
    KernelHarness h;
    const int32_t x = h.tensor(ST::Float, {2, 2}, {1, 2, 3, 4});
    const int32_t out = h.output(ST::Float, 32);
    // constant_pad_nd.out(self, pad, value, *, out): (left, right) of the last dim, then the one before
    KH_DONE(h.call("aten::constant_pad_nd.out", {x, h.ints({1, 0, 0, 1}), h.integer(9), out, out}));
    KH_SIZES(h, out, {3, 3});
    KH_VALUES(h, out, 0, {9, 1, 2, 9, 3, 4, 9, 9, 9});
    KH_DONE(h.call("aten::constant_pad_nd.out", {x, h.ints({-1, 0}), h.integer(0), out, out}));
    KH_VALUES(h, out, 0, {2, 4});
    // upsample_nearest2d.vec_out(input, output_size?, scale_factors?, *, out)
    const int32_t img = h.tensor(ST::Float, {1, 1, 2, 2}, {1, 2, 3, 4});
    KH_DONE(h.call("aten::upsample_nearest2d.vec_out", {img, h.none(), h.doubles({2, 2}), out, out}));
    KH_SIZES(h, out, {1, 1, 4, 4});
    KH_VALUES(h, out, 0, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
    KH_DONE(h.call("aten::upsample_nearest2d.vec_out", {img, h.ints({2, 4}), h.none(), out, out}));
    KH_VALUES(h, out, 0, {1, 1, 2, 2, 3, 3, 4, 4});
  }
};

QTEST_APPLESS_MAIN(KernelsLinearTest)
#include "test_kernels_linear.moc"
