// Reductions, softmax and the norms against hand-worked values and their
// defining properties (rows of a softmax sum to 1, a layer norm's rows have
// mean 0 and variance 1), in upstream's argument layouts.
#include <QtTest>

#include <cmath>
#include <limits>
#include <numeric>

#include "support/KernelHarness.h"

using namespace ptescope;
using ptescope::testing::KernelHarness;
using ST = program::ScalarType;

class KernelsReductionsTest : public QObject {
  Q_OBJECT
 private slots:
  void sumAndMeanOverDims() {
    KernelHarness h;
    const int32_t a = h.tensor(ST::Float, {2, 3}, {1, 2, 3, 4, 5, 6});
    const int32_t out = h.output(ST::Float, 6);
    // sum.IntList_out(self, dim?, keepdim, *, dtype?, out)
    KH_DONE(h.call("aten::sum.IntList_out", {a, h.ints({1}), h.boolean(false), h.none(), out, out}));
    KH_SIZES(h, out, {2});
    KH_VALUES(h, out, 0, {6, 15});
    KH_DONE(h.call("aten::sum.IntList_out", {a, h.ints({0}), h.boolean(true), h.none(), out, out}));
    KH_SIZES(h, out, {1, 3});
    KH_VALUES(h, out, 0, {5, 7, 9});
    KH_DONE(h.call("aten::sum.IntList_out", {a, h.none(), h.boolean(false), h.none(), out, out}));
    KH_SIZES(h, out, {});
    KH_VALUES(h, out, 0, {21});
    KH_DONE(h.call("aten::mean.out", {a, h.ints({-1}), h.boolean(true), h.none(), out, out}));
    KH_SIZES(h, out, {2, 1});
    KH_VALUES(h, out, 0, {2, 5});
    KH_DONE(h.call("aten::mean.dtype_out", {a, h.none(), out, out}));
    KH_VALUES(h, out, 0, {3.5});
    const int32_t ints = h.tensor(ST::Long, {4}, {1, 2, 3, 4});
    const int32_t lo = h.output(ST::Long, 1);
    KH_DONE(h.call("aten::sum.IntList_out", {ints, h.ints({0}), h.boolean(false), h.none(), lo, lo}));
    KH_VALUES(h, lo, 0, {10});
    KH_DONE(h.call("aten::prod.int_out", {ints, h.integer(0), h.boolean(false), h.none(), lo, lo}));
    KH_VALUES(h, lo, 0, {24});
    QVERIFY(!h.call("aten::sum.IntList_out", {a, h.ints({2}), h.boolean(false), h.none(), out, out}).ok());
  }

  void extremesAndArgExtremes() {
    KernelHarness h;
    const int32_t a = h.tensor(ST::Float, {2, 3}, {3, 7, 7, -1, -5, 0});
    const int32_t out = h.output(ST::Float, 6);
    KH_DONE(h.call("aten::amax.out", {a, h.ints({1}), h.boolean(false), out, out}));
    KH_VALUES(h, out, 0, {7, 0});
    KH_DONE(h.call("aten::amin.out", {a, h.ints({0}), h.boolean(false), out, out}));
    KH_VALUES(h, out, 0, {-1, -5, 0});
    const int32_t idx = h.output(ST::Long, 6);
    KH_DONE(h.call("aten::argmax.out", {a, h.integer(1), h.boolean(false), idx, idx}));
    KH_VALUES(h, idx, 0, {1, 2});  // the first of equal maxima
    KH_DONE(h.call("aten::argmin.out", {a, h.none(), h.boolean(false), idx, idx}));
    KH_SIZES(h, idx, {});
    KH_VALUES(h, idx, 0, {4});
    // max.dim_max(self, dim, keepdim, *, max, max_values) -> (values, indices) as one TensorList
    const int32_t values = h.output(ST::Float, 3), indices = h.output(ST::Long, 3);
    KH_DONE(h.call("aten::max.dim_max", {a, h.integer(0), h.boolean(true), values, indices, h.list({values, indices})}));
    KH_SIZES(h, values, {1, 3});
    KH_VALUES(h, values, 0, {3, 7, 7});
    KH_VALUES(h, indices, 0, {0, 0, 0});
    KH_DONE(h.call("aten::min.dim_min", {a, h.integer(1), h.boolean(false), values, indices, h.list({values, indices})}));
    KH_VALUES(h, values, 0, {3, -5});
    KH_VALUES(h, indices, 0, {0, 1});
    const int32_t b = h.tensor(ST::Bool, {2, 2}, {0, 0, 0, 1});
    const int32_t any = h.output(ST::Bool, 2);
    KH_DONE(h.call("aten::any.dims_out", {b, h.ints({1}), h.boolean(false), any, any}));
    KH_VALUES(h, any, 0, {0, 1});
    KH_DONE(h.call("aten::any.all_out", {b, any, any}));
    KH_VALUES(h, any, 0, {1});
  }

  void varianceWithAndWithoutCorrection() {
    KernelHarness h;
    const int32_t a = h.tensor(ST::Float, {2, 4}, {1, 2, 3, 4, 2, 2, 2, 2});
    const int32_t out = h.output(ST::Float, 2);
    // var.correction_out(self, dim?, *, correction?, keepdim, out): mean 2.5, squared deviations 5
    KH_DONE(h.call("aten::var.correction_out", {a, h.ints({1}), h.integer(1), h.boolean(false), out, out}));
    KH_VALUES(h, out, 1e-6, {5.0 / 3.0, 0});
    KH_DONE(h.call("aten::var.correction_out", {a, h.ints({1}), h.integer(0), h.boolean(false), out, out}));
    KH_VALUES(h, out, 1e-6, {1.25, 0});
    KH_DONE(h.call("aten::var.out", {a, h.ints({1}), h.boolean(true), h.boolean(false), out, out}));
    KH_VALUES(h, out, 1e-6, {5.0 / 3.0, 0});
  }

  void cumsumAlongADim() {
    KernelHarness h;
    const int32_t a = h.tensor(ST::Int, {2, 3}, {1, 2, 3, 4, 5, 6});
    const int32_t out = h.output(ST::Long, 6);
    KH_DONE(h.call("aten::cumsum.out", {a, h.integer(1), h.none(), out, out}));
    KH_VALUES(h, out, 0, {1, 3, 6, 4, 9, 15});
    KH_DONE(h.call("aten::cumsum.out", {a, h.integer(0), h.integer(int(ST::Long)), out, out}));
    KH_VALUES(h, out, 0, {1, 2, 3, 5, 7, 9});
  }

  void softmaxRowsSumToOne() {
    KernelHarness h;
    const int32_t a = h.tensor(ST::Float, {2, 3}, {1, 2, 3, 1000, 1000, 1000});
    const int32_t out = h.output(ST::Float, 6);
    // _softmax.out(self, dim, half_to_float, *, out)
    KH_DONE(h.call("aten::_softmax.out", {a, h.integer(-1), h.boolean(false), out, out}));
    const auto v = h.values(out);
    const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
    std::string why;
    QVERIFY2(ptescope::testing::closeTo(v, {std::exp(1.0) / z, std::exp(2.0) / z, std::exp(3.0) / z, 1 / 3.0, 1 / 3.0, 1 / 3.0}, 1e-6, &why),
             why.c_str());
    QVERIFY(std::abs(v[0] + v[1] + v[2] - 1) < 1e-6);
    KH_DONE(h.call("aten::_log_softmax.out", {a, h.integer(1), h.boolean(false), out, out}));
    const auto l = h.values(out);
    QVERIFY(std::abs(std::exp(l[0]) + std::exp(l[1]) + std::exp(l[2]) - 1) < 1e-6);
    QVERIFY(std::abs(l[3] + std::log(3.0)) < 1e-6);
    // along dim 0 each column sums to one
    KH_DONE(h.call("aten::_softmax.out", {a, h.integer(0), h.boolean(false), out, out}));
    const auto c = h.values(out);
    for (int j = 0; j < 3; ++j) QVERIFY(std::abs(c[size_t(j)] + c[size_t(3 + j)] - 1) < 1e-6);
  }

  void layerNormNormalizesRowsAndReturnsStatistics() {
    KernelHarness h;
    const int32_t x = h.tensor(ST::Float, {2, 4}, {1, 2, 3, 4, -2, 0, 2, 4});
    const int32_t w = h.tensor(ST::Float, {4}, {1, 1, 2, 2});
    const int32_t b = h.tensor(ST::Float, {4}, {0, 0, 0, 1});
    const int32_t out = h.output(ST::Float, 8), mean = h.output(ST::Float, 2), rstd = h.output(ST::Float, 2);
    // native_layer_norm.out(input, normalized_shape, weight?, bias?, eps, *, out0, out1, out2) -> one TensorList
    KH_DONE(h.call("aten::native_layer_norm.out", {x, h.ints({4}), h.none(), h.none(), h.real(0), out, mean, rstd,
                                                     h.list({out, mean, rstd})}));
    KH_SIZES(h, mean, {2, 1});
    KH_VALUES(h, mean, 1e-6, {2.5, 1});
    KH_VALUES(h, rstd, 1e-6, {1 / std::sqrt(1.25), 1 / std::sqrt(5.0)});
    const auto v = h.values(out);
    for (int r = 0; r < 2; ++r) {
      double m = 0, s = 0;
      for (int c = 0; c < 4; ++c) m += v[size_t(r * 4 + c)] / 4;
      for (int c = 0; c < 4; ++c) s += (v[size_t(r * 4 + c)] - m) * (v[size_t(r * 4 + c)] - m) / 4;
      QVERIFY(std::abs(m) < 1e-6);
      QVERIFY(std::abs(s - 1) < 1e-5);
    }
    KH_DONE(h.call("aten::native_layer_norm.out", {x, h.ints({4}), w, b, h.real(1e-5), out, mean, rstd, h.list({out, mean, rstd})}));
    const double r0 = 1 / std::sqrt(1.25 + 1e-5), r1 = 1 / std::sqrt(5 + 1e-5);
    KH_VALUES(h, out, 1e-5, {-1.5 * r0, -0.5 * r0, 2 * 0.5 * r0, 2 * 1.5 * r0 + 1, -3 * r1, -r1, 2 * r1, 2 * 3 * r1 + 1});
    QVERIFY(!h.call("aten::native_layer_norm.out", {x, h.ints({3}), h.none(), h.none(), h.real(0), out, mean, rstd,
                                                     h.list({out, mean, rstd})}).ok());
  }

  void groupAndBatchNorm() {
    KernelHarness h;
    // N=1, C=2, HxW=2, two groups: each channel normalized on its own
    const int32_t x = h.tensor(ST::Float, {1, 2, 2}, {1, 3, 10, 20});
    const int32_t out = h.output(ST::Float, 4), mean = h.output(ST::Float, 2), rstd = h.output(ST::Float, 2);
    KH_DONE(h.call("aten::native_group_norm.out", {x, h.none(), h.none(), h.integer(1), h.integer(2), h.integer(2), h.integer(2),
                                                     h.real(0), out, mean, rstd, h.list({out, mean, rstd})}));
    KH_VALUES(h, out, 1e-6, {-1, 1, -1, 1});
    KH_VALUES(h, mean, 1e-6, {2, 15});
    KH_VALUES(h, rstd, 1e-6, {1, 0.2});
    // _native_batch_norm_legit_no_training.out: (x - running_mean) / sqrt(running_var + eps) * w + b per channel
    const int32_t rm = h.tensor(ST::Float, {2}, {1, 10});
    const int32_t rv = h.tensor(ST::Float, {2}, {4, 25});
    const int32_t w = h.tensor(ST::Float, {2}, {1, 2});
    const int32_t b = h.tensor(ST::Float, {2}, {0, 1});
    const int32_t o2 = h.output(ST::Float, 4), sm = h.output(ST::Float, 2), si = h.output(ST::Float, 2);
    KH_DONE(h.call("aten::_native_batch_norm_legit_no_training.out",
                   {x, w, b, rm, rv, h.real(0.1), h.real(0), o2, sm, si, h.list({o2, sm, si})}));
    KH_VALUES(h, o2, 1e-6, {0, 1, 1, 5});
  }

  // topk.values(self, k, dim, largest, sorted, *, values, indices) -> one TensorList (issue 26,
  // item 2). NaN ranks above every number (upstream's float_less_than), and equal values come
  // out in the order of upstream's std::nth_element / std::sort, which is not their input
  // order. Expected values: the real runtime (upstream cff6f4dd, built as DEVELOPERS.md says)
  // ran a program of this one call (`ptescope-cli synth`) on these inputs and wrote them.
  void topkTiesAndNaN() {
    KernelHarness h;
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    const int32_t x = h.tensor(ST::Float, {2, 12}, {1, nan, 3, 3, -2, nan, 0, 3, 7, -1, inf, 2,  //
                                                     5, 5, 5, 5, 5, 5, nan, 1, 1, 1, 1, 1});
    const int32_t values = h.output(ST::Float, 12), indices = h.output(ST::Long, 12);
    KH_DONE(h.call("aten::topk.values", {x, h.integer(5), h.integer(1), h.boolean(true), h.boolean(true), values, indices,
                                         h.list({values, indices})}));
    KH_SIZES(h, values, {2, 5});
    const std::vector<double> want = {nan, nan, inf, 7, 3, nan, 5, 5, 5, 5}, got = h.values(values);
    QCOMPARE(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i)
      QVERIFY2(std::isnan(want[i]) ? std::isnan(got[i]) : got[i] == want[i], qPrintable(QString("element %1: %2").arg(i).arg(got[i])));
    QCOMPARE(h.longValues(indices), (std::vector<int64_t>{1, 5, 10, 8, 2, 6, 1, 5, 4, 2}));
    // Smallest 6, unsorted: nth_element's order.
    KH_DONE(h.call("aten::topk.values", {x, h.integer(6), h.integer(-1), h.boolean(false), h.boolean(false), values, indices,
                                         h.list({values, indices})}));
    KH_VALUES(h, values, 0, {2, 1, -1, 0, -2, 3, 1, 1, 1, 1, 1, 5});
    QCOMPARE(h.longValues(indices), (std::vector<int64_t>{11, 0, 9, 6, 4, 7, 9, 7, 8, 10, 11, 1}));
    // k = 0 gives empty outputs; k beyond the dimension is refused.
    KH_DONE(h.call("aten::topk.values", {x, h.integer(0), h.integer(1), h.boolean(true), h.boolean(true), values, indices,
                                         h.list({values, indices})}));
    KH_SIZES(h, values, {2, 0});
    QVERIFY(!h.call("aten::topk.values", {x, h.integer(13), h.integer(1), h.boolean(true), h.boolean(true), values, indices,
                                          h.list({values, indices})})
                 .ok());
  }
};

QTEST_APPLESS_MAIN(KernelsReductionsTest)
#include "test_kernels_reductions.moc"
