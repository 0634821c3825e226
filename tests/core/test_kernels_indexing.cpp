// Indexing, quantize/dequantize and the samples' custom LSTM against
// hand-worked values, in upstream's argument layouts (OptionalTensorList
// indices with -1 for None, ScalarType arguments as Ints).
#include <QtTest>

#include <cmath>
#include <limits>

#include "support/KernelHarness.h"

using namespace ptescope;
using ptescope::testing::KernelHarness;
using ST = program::ScalarType;

class KernelsIndexingTest : public QObject {
  Q_OBJECT
 private slots:
  void advancedIndexing() {
    KernelHarness h;
    const int32_t x = h.tensor(ST::Float, {3, 4}, {0, 1, 2, 3, 10, 11, 12, 13, 20, 21, 22, 23});
    const int32_t out = h.output(ST::Float, 12);
    // index.Tensor_out(self, indices?[], *, out)
    const int32_t rows = h.longs({2}, {2, 0});
    KH_DONE(h.call("aten::index.Tensor_out", {x, h.optionalList({rows}), out, out}));
    KH_SIZES(h, out, {2, 4});
    KH_VALUES(h, out, 0, {20, 21, 22, 23, 0, 1, 2, 3});
    // x[:, [3, -1]]: None first, the result dim stays in place
    const int32_t cols = h.longs({2}, {3, -1});
    KH_DONE(h.call("aten::index.Tensor_out", {x, h.optionalList({-1, cols}), out, out}));
    KH_SIZES(h, out, {3, 2});
    KH_VALUES(h, out, 0, {3, 3, 13, 13, 23, 23});
    // x[[0, 2], [1, 3]] pairs the indices; x[[[0], [2]], [1, 3]] broadcasts them
    const int32_t r = h.longs({2}, {0, 2}), c = h.longs({2}, {1, 3});
    KH_DONE(h.call("aten::index.Tensor_out", {x, h.optionalList({r, c}), out, out}));
    KH_SIZES(h, out, {2});
    KH_VALUES(h, out, 0, {1, 23});
    const int32_t rc = h.longs({2, 1}, {0, 2});
    KH_DONE(h.call("aten::index.Tensor_out", {x, h.optionalList({rc, c}), out, out}));
    KH_SIZES(h, out, {2, 2});
    KH_VALUES(h, out, 0, {1, 3, 21, 23});
    // a bool mask over the first dim
    const int32_t mask = h.tensor(ST::Bool, {3}, {1, 0, 1});
    KH_DONE(h.call("aten::index.Tensor_out", {x, h.optionalList({mask}), out, out}));
    KH_SIZES(h, out, {2, 4});
    KH_VALUES(h, out, 0, {0, 1, 2, 3, 20, 21, 22, 23});
    const int32_t bad = h.longs({1}, {3});
    auto e = h.call("aten::index.Tensor_out", {x, h.optionalList({bad}), out, out});
    QVERIFY(!e.ok());
    QVERIFY2(e.error().message.find("out of range") != std::string::npos, e.error().message.c_str());
  }

  void indexPutWritesAndAccumulates() {
    KernelHarness h;
    const int32_t x = h.tensor(ST::Float, {2, 3}, {0, 0, 0, 0, 0, 0});
    const int32_t idx = h.longs({3}, {0, 2, 0});
    const int32_t values = h.tensor(ST::Float, {3}, {1, 2, 3});
    const int32_t out = h.output(ST::Float, 6);
    // index_put.out(self, indices?[], values, accumulate, *, out): x[:, [0, 2, 0]] += values
    KH_DONE(h.call("aten::index_put.out", {x, h.optionalList({-1, idx}), values, h.boolean(true), out, out}));
    KH_VALUES(h, out, 0, {4, 0, 2, 4, 0, 2});
    const int32_t rowIdx = h.longs({1}, {1});
    const int32_t row = h.tensor(ST::Float, {3}, {7, 8, 9});
    KH_DONE(h.call("aten::index_put.out", {x, h.optionalList({rowIdx}), row, h.boolean(false), out, out}));
    KH_VALUES(h, out, 0, {0, 0, 0, 7, 8, 9});
    // index_put_(self, indices?[], values, accumulate) writes self
    const int32_t kv = h.tensor(ST::Float, {4}, {0, 0, 0, 0});
    const int32_t pos = h.longs({1}, {2});
    KH_DONE(h.call("aten::index_put_", {kv, h.optionalList({pos}), h.tensor(ST::Float, {1}, {5}), h.boolean(false), kv}));
    KH_VALUES(h, kv, 0, {0, 0, 5, 0});
  }

  void indexSelectEmbeddingGatherScatter() {
    KernelHarness h;
    const int32_t table = h.tensor(ST::Float, {3, 2}, {0, 1, 10, 11, 20, 21});
    const int32_t out = h.output(ST::Float, 12);
    KH_DONE(h.call("aten::index_select.out", {table, h.integer(1), h.longs({2}, {1, 1}), out, out}));
    KH_SIZES(h, out, {3, 2});
    KH_VALUES(h, out, 0, {1, 1, 11, 11, 21, 21});
    // embedding.out(weight, indices, padding_idx, scale_grad_by_freq, sparse, *, out)
    const int32_t tokens = h.longs({2, 2}, {2, 0, 1, 2});
    KH_DONE(h.call("aten::embedding.out", {table, tokens, h.integer(-1), h.boolean(false), h.boolean(false), out, out}));
    KH_SIZES(h, out, {2, 2, 2});
    KH_VALUES(h, out, 0, {20, 21, 0, 1, 10, 11, 20, 21});
    const int32_t int32Tokens = h.tensor(ST::Int, {1}, {1});
    KH_DONE(h.call("aten::embedding.out", {table, int32Tokens, h.integer(-1), h.boolean(false), h.boolean(false), out, out}));
    KH_VALUES(h, out, 0, {10, 11});
    QVERIFY(!h.call("aten::embedding.out", {table, h.longs({1}, {3}), h.integer(-1), h.boolean(false), h.boolean(false), out, out}).ok());
    // gather.out(self, dim, index, *, sparse_grad, out)
    const int32_t g = h.longs({3, 1}, {1, 0, 1});
    KH_DONE(h.call("aten::gather.out", {table, h.integer(1), g, h.boolean(false), out, out}));
    KH_SIZES(h, out, {3, 1});
    KH_VALUES(h, out, 0, {1, 10, 21});
    // scatter.src_out / scatter_add.out(self, dim, index, src, *, out)
    const int32_t zeros = h.tensor(ST::Float, {3}, {0, 0, 0});
    const int32_t at = h.longs({3}, {2, 2, 0});
    const int32_t src = h.tensor(ST::Float, {3}, {1, 2, 3});
    const int32_t so = h.output(ST::Float, 3);
    KH_DONE(h.call("aten::scatter_add.out", {zeros, h.integer(0), at, src, so, so}));
    KH_VALUES(h, so, 0, {3, 0, 3});
    KH_DONE(h.call("aten::scatter.value_out", {zeros, h.integer(0), h.longs({1}, {1}), h.real(4), so, so}));
    KH_VALUES(h, so, 0, {0, 4, 0});
  }

  void quantizeAndDequantizePerTensor() {
    KernelHarness h;
    const int32_t x = h.tensor(ST::Float, {5}, {0.5, -0.5, 0.05, 100, -100});
    const int32_t q = h.output(ST::Char, 5);
    // quantize_per_tensor.out(input, scale, zero_point, quant_min, quant_max, dtype, *, out):
    // clamp(zp + round_half_even(x / scale)); 0.05 / 0.1 = 0.5 rounds to 0
    KH_DONE(h.call("quantized_decomposed::quantize_per_tensor.out",
                   {x, h.real(0.1), h.integer(3), h.integer(-128), h.integer(127), h.integer(int(ST::Char)), q, q}));
    KH_VALUES(h, q, 0, {8, -2, 3, 127, -128});
    const int32_t y = h.output(ST::Float, 5);
    // dequantize_per_tensor.out(input, scale, zero_point, quant_min, quant_max, dtype, *, out_dtype?, out)
    KH_DONE(h.call("quantized_decomposed::dequantize_per_tensor.out",
                   {q, h.real(0.1), h.integer(3), h.integer(-128), h.integer(127), h.integer(int(ST::Char)), h.none(), y, y}));
    KH_VALUES(h, y, 1e-6, {0.5, -0.5, 0, 12.4, -13.1});
    // the Tensor_out forms take one-element scale/zero_point tensors; uint8 output
    const int32_t scale = h.tensor(ST::Double, {1}, {0.5});
    const int32_t zp = h.longs({1}, {128});
    const int32_t u = h.output(ST::Byte, 5);
    KH_DONE(h.call("quantized_decomposed::quantize_per_tensor.Tensor_out",
                   {x, scale, zp, h.integer(0), h.integer(255), h.integer(int(ST::Byte)), u, u}));
    KH_VALUES(h, u, 0, {129, 127, 128, 255, 0});
    KH_DONE(h.call("quantized_decomposed::dequantize_per_tensor.Tensor_out",
                   {u, scale, zp, h.integer(0), h.integer(255), h.integer(int(ST::Byte)), h.none(), y, y}));
    KH_VALUES(h, y, 1e-6, {0.5, -0.5, 0, 63.5, -64});
  }

  // Channels-last tensors (issue 26, item 2): upstream's per-tensor kernels map
  // element i in memory to element i in memory, whatever the dim order; the
  // real runtime (cff6f4dd) gave the same bytes as ptescope on quantize +
  // dequantize programs whose 4-D tensors were all channels_last.
  void quantizePerTensorChannelsLast() {
    KernelHarness h;
    auto channelsLast = [&](int32_t id) {
      h.ref(id).default_dim_order = false;
      h.ref(id).dim_order = {0, 2, 3, 1};
      return id;
    };
    // [1, 2, 1, 2] channels_last: memory (pixel 0: c0, c1), (pixel 1: c0, c1).
    const int32_t x = channelsLast(h.tensor(ST::Float, {1, 2, 1, 2}, {0.5, -0.5, 0.05, 100}));
    const int32_t q = channelsLast(h.output(ST::Char, 4, {1, 2, 1, 2}));
    KH_DONE(h.call("quantized_decomposed::quantize_per_tensor.out",
                   {x, h.real(0.1), h.integer(3), h.integer(-128), h.integer(127), h.integer(int(ST::Char)), q, q}));
    KH_VALUES(h, q, 0, {8, -2, 3, 127});
    const int32_t y = channelsLast(h.output(ST::Float, 4, {1, 2, 1, 2}));
    KH_DONE(h.call("quantized_decomposed::dequantize_per_tensor.out",
                   {q, h.real(0.1), h.integer(3), h.integer(-128), h.integer(127), h.integer(int(ST::Char)), h.none(), y, y}));
    KH_VALUES(h, y, 1e-6, {0.5, -0.5, 0, 12.4});
  }

  // Found by fuzz_exec (UBSan: "-inf is outside the range of representable
  // values of type 'long'"): a scale of 0 or an infinite input made the
  // quantizer convert inf/NaN to an integer. The result is what the cast gives
  // on x86, where upstream's kernel runs: the integer minimum, then the clamp.
  void quantizeOfInfinitiesAndAZeroScaleIsDefined() {
    KernelHarness h;
    const float inf = std::numeric_limits<float>::infinity();
    const int32_t x = h.tensor(ST::Float, {4}, {inf, -inf, std::nan(""), 1});
    const int32_t q = h.output(ST::Char, 4);
    KH_DONE(h.call("quantized_decomposed::quantize_per_tensor.out",
                   {x, h.real(0.5), h.integer(3), h.integer(-128), h.integer(127), h.integer(int(ST::Char)), q, q}));
    KH_VALUES(h, q, 0, {-128, -128, -128, 5});
    const int32_t z = h.output(ST::Char, 4);
    KH_DONE(h.call("quantized_decomposed::quantize_per_tensor.out",
                   {x, h.real(0), h.integer(3), h.integer(-128), h.integer(127), h.integer(int(ST::Char)), z, z}));
    KH_VALUES(h, z, 0, {-128, -128, -128, -128});
    // int64 codes far outside int32 dequantize from the integer minimum too.
    const int32_t big = h.longs({2}, {int64_t(1) << 40, 7});
    const int32_t y = h.output(ST::Float, 2);
    KH_DONE(h.call("quantized_decomposed::dequantize_per_tensor.out",
                   {big, h.real(1), h.integer(0), h.integer(INT64_MIN), h.integer(INT64_MAX), h.integer(int(ST::Long)), h.none(), y, y}));
    KH_VALUES(h, y, 0, {double(INT32_MIN), 7});
  }

  void quantizeAndDequantizePerChannel() {
    KernelHarness h;
    const int32_t w = h.tensor(ST::Float, {2, 2}, {1, -1, 1, -1});
    const int32_t scales = h.tensor(ST::Double, {2}, {0.5, 0.25});
    const int32_t zps = h.longs({2}, {0, 10});
    const int32_t q = h.output(ST::Char, 4);
    // quantize_per_channel.out(input, scales, zero_points, axis, quant_min, quant_max, dtype, *, out)
    KH_DONE(h.call("quantized_decomposed::quantize_per_channel.out",
                   {w, scales, zps, h.integer(0), h.integer(-128), h.integer(127), h.integer(int(ST::Char)), q, q}));
    KH_VALUES(h, q, 0, {2, -2, 14, 6});
    const int32_t y = h.output(ST::Float, 4);
    // dequantize_per_channel.out(input, scales, zero_points?, axis, quant_min, quant_max, dtype, *, out_dtype?, out)
    KH_DONE(h.call("quantized_decomposed::dequantize_per_channel.out",
                   {q, scales, zps, h.integer(0), h.integer(-128), h.integer(127), h.integer(int(ST::Char)), h.none(), y, y}));
    KH_VALUES(h, y, 0, {1, -1, 1, -1});
    KH_DONE(h.call("quantized_decomposed::dequantize_per_channel.out",
                   {q, scales, h.none(), h.integer(1), h.integer(-128), h.integer(127), h.integer(int(ST::Char)), h.none(), y, y}));
    KH_VALUES(h, y, 0, {1, -0.5, 7, 1.5});  // along axis 1 without zero points
    QVERIFY(!h.call("quantized_decomposed::dequantize_per_channel.out",
                    {q, h.tensor(ST::Double, {3}, {1, 1, 1}), h.none(), h.integer(0), h.integer(-128), h.integer(127),
                     h.integer(int(ST::Char)), h.none(), y, y}).ok());
    // embedding_byte.out(weight, weight_scales, weight_zero_points?, quant_min, quant_max, indices, *, out)
    const int32_t table = h.tensor(ST::Char, {2, 2}, {4, 8, -2, 2});
    const int32_t rowScales = h.tensor(ST::Float, {2}, {0.5, 2});
    const int32_t e = h.output(ST::Float, 4);
    KH_DONE(h.call("quantized_decomposed::embedding_byte.out",
                   {table, rowScales, h.none(), h.integer(-128), h.integer(127), h.longs({2}, {1, 0}), e, e}));
    KH_SIZES(h, e, {2, 2});
    KH_VALUES(h, e, 0, {-4, 4, 2, 4});
  }

  void lstmCustomOpFollowsTorchLstm() {
    KernelHarness h;
    // T=2, B=1, I=1, H=1; weights chosen so every gate is hand-computable
    const int32_t input = h.tensor(ST::Float, {2, 1, 1}, {1, 0});
    const int32_t h0 = h.tensor(ST::Float, {1, 1}, {0});
    const int32_t c0 = h.tensor(ST::Float, {1, 1}, {0.5});
    const int32_t wih = h.tensor(ST::Float, {4, 1}, {0, 0, 1, 0});  // gate order i, f, g, o
    const int32_t whh = h.tensor(ST::Float, {4, 1}, {0, 0, 0, 0});
    const int32_t bih = h.tensor(ST::Float, {4}, {0, 0, 0, 0});
    const int32_t bhh = h.tensor(ST::Float, {4}, {0, 0, 0, 0});
    const int32_t out = h.output(ST::Float, 2), hn = h.output(ST::Float, 1), cn = h.output(ST::Float, 1);
    KH_DONE(h.call("etnp::lstm.out", {input, h0, c0, wih, whh, bih, bhh, out, hn, cn, h.list({out, hn, cn})}));
    // every sigmoid gate is 0.5; g = tanh(x): c1 = 0.25 + 0.5 tanh(1), c2 = 0.5 c1, h = 0.5 tanh(c)
    const double c1 = 0.25 + 0.5 * std::tanh(1.0), c2 = 0.5 * c1;
    KH_SIZES(h, out, {2, 1, 1});
    KH_VALUES(h, out, 1e-6, {0.5 * std::tanh(c1), 0.5 * std::tanh(c2)});
    KH_VALUES(h, hn, 1e-6, {0.5 * std::tanh(c2)});
    KH_VALUES(h, cn, 1e-6, {c2});
  }

  // masked_scatter.out(self, mask, source, *, out) (issue 26, item 2): the mask broadcast
  // over self's rows takes source's elements in order; too few is refused as upstream does.
  // The same calls on the real runtime (upstream cff6f4dd, DEVELOPERS.md) wrote these values
  // and refused the short source.
  void maskedScatter() {
    KernelHarness h;
    const int32_t self = h.tensor(ST::Float, {2, 3}, {1, 2, 3, 4, 5, 6});
    const int32_t mask = h.tensor(ST::Bool, {3}, {1, 0, 1});
    const int32_t source = h.tensor(ST::Float, {5}, {10, 20, 30, 40, 50});
    const int32_t out = h.output(ST::Float, 6);
    KH_DONE(h.call("aten::masked_scatter.out", {self, mask, source, out, out}));
    KH_SIZES(h, out, {2, 3});
    KH_VALUES(h, out, 0, {10, 2, 20, 30, 5, 40});
    const int32_t shortSource = h.tensor(ST::Float, {3}, {10, 20, 30});
    auto r = h.call("aten::masked_scatter.out", {self, mask, shortSource, out, out});
    QVERIFY(!r.ok());
    QVERIFY2(r.error().message.find("doesn't have enough elements") != std::string::npos, r.error().message.c_str());
    const int32_t longs = h.tensor(ST::Long, {2}, {1, 2});
    QVERIFY(!h.call("aten::masked_scatter.out", {self, mask, longs, out, out}).ok());  // source of another dtype
  }
};

QTEST_APPLESS_MAIN(KernelsIndexingTest)
#include "test_kernels_indexing.moc"
