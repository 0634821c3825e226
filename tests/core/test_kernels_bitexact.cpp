// softmax, log_softmax, sigmoid and convolution bit for bit as the portable
// kernels compute them (issue 26, item 1): float32 arithmetic in their order
// with std::exp / std::log of float, not double rounded once at the end (that
// differed from the runtime by 1-2 ulp in 8 to 32 elements of each case here);
// and var_mean and upsample_bilinear2d (item 2), whose float arithmetic differs
// from double's too.
//
// How the expected bits were obtained: ExecuTorch built from upstream source
// at commit cff6f4dd32e6 (runtime/, kernels/portable (these kernels and
// util/), prim_ops, data loader; flatc-generated schema headers; g++ -O2,
// x86-64, outside this repository as DEVELOPERS.md describes) ran a program
// of the one operator written by `ptescope-cli synth` from the same shapes
// and arguments, with the inputs below written as raw float32 files; its
// output bytes are the hex words here. `ptescope-cli run --runtime host` on
// the same program and inputs wrote the same bytes.
//
// Inputs: input i (in argument order), element k: float32 of
// ((k * 7919 + 131 i) mod 1013) / 127 - 4.
#include <QtTest>

#include <cmath>
#include <cstring>
#include <functional>

#include "support/KernelHarness.h"

using namespace ptescope;
using ptescope::testing::KernelHarness;
using ST = program::ScalarType;

namespace {

std::vector<double> inputValues(int64_t count, int salt) {
  std::vector<double> values;
  for (int64_t k = 0; k < count; ++k) values.push_back(double(float(double((k * 7919 + salt * 131) % 1013) / 127.0 - 4.0)));
  return values;
}

int32_t input(KernelHarness& h, std::vector<int64_t> sizes, int salt) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return h.tensor(ST::Float, std::move(sizes), inputValues(n, salt));
}

// The float32 words of a tensor, in memory order.
std::vector<uint32_t> bits(KernelHarness& h, int32_t id) {
  std::vector<uint32_t> words(size_t(h.ref(id).numel()));
  std::memcpy(words.data(), h.ref(id).data, words.size() * 4);
  return words;
}

void compareBits(const std::vector<uint32_t>& got, const std::vector<uint32_t>& want) {
  QCOMPARE(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    float g, w;
    std::memcpy(&g, &got[i], 4);
    std::memcpy(&w, &want[i], 4);
    QVERIFY2(got[i] == want[i], qPrintable(QString("element %1: %2 (0x%3), the runtime wrote %4 (0x%5)")
                                               .arg(i).arg(double(g), 0, 'g', 9).arg(got[i], 8, 16, QChar('0'))
                                               .arg(double(w), 0, 'g', 9).arg(want[i], 8, 16, QChar('0'))));
  }
}

// Runs `op` on input 0 of `sizes`, the arguments `extra` makes, then out
// (twice, as the emitter writes a single out), and compares out's bits.
void expectOneInputBits(std::string_view op, std::vector<int64_t> sizes,
                        const std::function<std::vector<int32_t>(KernelHarness&)>& extra, const std::vector<uint32_t>& want) {
  KernelHarness h;
  const int32_t x = input(h, sizes, 0);
  const int32_t out = h.staticOutput(ST::Float, sizes);
  std::vector<int32_t> args{x};
  for (int32_t arg : extra(h)) args.push_back(arg);
  args.insert(args.end(), {out, out});
  KH_DONE(h.call(op, args));
  compareBits(bits(h, out), want);
}

// The runtime's output of convolution() below (and, stored channels_last, of
// convolutionChannelsLast()).
const std::vector<uint32_t> kConvolutionBits = {
    0xc135a643, 0x41926732, 0xc1dfb4d4, 0xc1d27282, 0x4110430a, 0xc17ce522,
    0x423d15a0, 0xc05f724e, 0xc1e4876c, 0xbf1bc0a4, 0xc002638b, 0x42159746,
    0x41a76b50, 0xc236257d, 0xc1d9a716, 0x4154d2b8, 0x418bcd88, 0x41bd6c9a,
    0xc05a04a8, 0xc0ca58ba, 0xc18459b4, 0x41c5c51d, 0x42166006, 0xc1c1ae74,
    0xc1d53c7d, 0xc1215920, 0x41b2fc25, 0xc112350c, 0xbfc2a9ac, 0xc185e16f,
    0x418e2d1a, 0x41d8dcb1, 0x408914b0, 0xc0c1564f, 0xc18fe4b2, 0x41c0c36b,
    0x40f66230, 0x41995757, 0xc1e134b0, 0x41276475, 0x41dcbd83, 0xc1d13bcc,
    0x40ff955a, 0x408e3928, 0x4192fc24, 0xc102eeaf, 0x42011625, 0x40fc95e4,
    0xc1dc4fae, 0xc142713a,
};

}  // namespace

class KernelsBitExactTest : public QObject {
  Q_OBJECT
 private slots:
  void softmax() {
    // _softmax.out(self, dim, half_to_float, *, out)
    expectOneInputBits("aten::_softmax.out", {2, 9}, [](KernelHarness& h) { return std::vector<int32_t>{h.integer(1), h.boolean(false)}; }, {
    0x39c7470e, 0x3e8403b7, 0x3d7614b8, 0x3c655a58, 0x3b55c314, 0x3a473b23,
    0x3f03fbd0, 0x3df605ff, 0x3ce54ca0, 0x3b6949de, 0x3a596e20, 0x3f100a3b,
    0x3e063f9a, 0x3cfa3ebe, 0x3be93bea, 0x3ad96118, 0x39ca9a35, 0x3e863791,
    });
  }

  void softmaxRefusesHalfToFloat() {
    KernelHarness h;
    const int32_t x = input(h, {2, 9}, 0);
    const int32_t out = h.staticOutput(ST::Float, {2, 9});
    auto r = h.call("aten::_softmax.out", {x, h.integer(1), h.boolean(true), out, out});
    QVERIFY(!r.ok());
    QVERIFY2(r.error().message.find("half to float conversion is not supported") != std::string::npos, r.error().message.c_str());
  }

  // On channels_last tensors upstream's apply_over_dim steps by the dimension's
  // stride under the dim order: over dim 1 of [1, 3, 2, 2] it computes only the
  // first pixel's channels (the runtime's output: the other nine elements are
  // left as they were), and over dim 2 or 3 it would walk past the tensor's end
  // (the runtime aborts with heap corruption), which is refused.
  void softmaxOnChannelsLast() {
    KernelHarness h;
    const auto channelsLast = [&](int32_t id) {
      h.ref(id).default_dim_order = false;
      h.ref(id).dim_order = {0, 2, 3, 1};
      return id;
    };
    const int32_t x = channelsLast(h.tensor(ST::Float, {1, 3, 2, 2}, {-1, 1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
    const int32_t out = channelsLast(h.staticOutput(ST::Float, {1, 3, 2, 2}));
    std::memset(h.ref(out).data, 0, 48);
    KH_DONE(h.call("aten::_softmax.out", {x, h.integer(1), h.boolean(false), out, out}));
    const auto got = h.values(out);
    // exp(x - 5) / sum over (-1, 1, 5) in float, as the runtime computed them for these inputs.
    const float e0 = std::exp(-6.0f), e1 = std::exp(-4.0f), e2 = std::exp(0.0f), sum = e0 + e1 + e2;
    QCOMPARE(got[0], double(e0 / sum));
    QCOMPARE(got[1], double(e1 / sum));
    QCOMPARE(got[2], double(e2 / sum));
    for (size_t i = 3; i < got.size(); ++i) QCOMPARE(got[i], 0.0);
    auto r = h.call("aten::_softmax.out", {x, h.integer(3), h.boolean(false), out, out});
    QVERIFY(!r.ok());
    QVERIFY2(r.error().message.find("walk past the end") != std::string::npos, r.error().message.c_str());
  }

  void logSoftmax() {
    expectOneInputBits("aten::_log_softmax.out", {2, 9}, [](KernelHarness& h) { return std::vector<int32_t>{h.integer(1), h.boolean(false)}; }, {
    0xc0fc00cd, 0xbfad7e2a, 0xc033f98a, 0xc0889a00, 0xc0b7373a, 0xc0e5d474,
    0xbf299991, 0xc007a0d9, 0xc064db4d, 0xc0b46b24, 0xc0e3085e, 0xbf1338e2,
    0xc00208ae, 0xc05f4322, 0xc09e3ecb, 0xc0ccdc06, 0xc0fb7940, 0xbfab5ff9,
    });
  }

  void sigmoid() {
    expectOneInputBits("aten::sigmoid.out", {32}, [](KernelHarness&) { return std::vector<int32_t>{}; }, {
    0x3c9357d1, 0x3f6cee3e, 0x3f3e466a, 0x3ece3f4e, 0x3e0b1626, 0x3d10b502,
    0x3f761821, 0x3f5a4a4b, 0x3f13020c, 0x3e74dd4c, 0x3d8bbd1e, 0x3f7af2c1,
    0x3f6ba440, 0x3f3ac103, 0x3ec59514, 0x3e02c955, 0x3d07223f, 0x3f75659c,
    0x3f57f440, 0x3f0e8d0e, 0x3e67e802, 0x3d82ca0d, 0x3f7a95ca, 0x3f6a45fe,
    0x3f371dd1, 0x3ebd0e6a, 0x3df5d368, 0x3cfc58e1, 0x3f74a71b, 0x3f55805e,
    0x3f0a0ed7, 0x3e5b70d2,
    });
  }

  void convolution() {
    KernelHarness h;
    const int32_t x = input(h, {1, 3, 5, 5}, 0), w = input(h, {2, 3, 3, 3}, 1), b = input(h, {2}, 2);
    const int32_t out = h.staticOutput(ST::Float, {1, 2, 5, 5});
    // convolution.out(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups, *, out)
    KH_DONE(h.call("aten::convolution.out", {x, w, b, h.ints({1, 1}), h.ints({1, 1}), h.ints({1, 1}), h.boolean(false),
                                             h.ints({0, 0}), h.integer(1), out, out}));
    compareBits(bits(h, out), kConvolutionBits);
  }

  // The same convolution with input, weight and out channels_last (dim order 0, 2, 3, 1):
  // upstream reads them through strides made from the dim order, so the numbers are the same,
  // stored channels_last (programs like this gave the runtime's bytes too).
  void convolutionChannelsLast() {
    KernelHarness h;
    const auto nhwc = [](const std::vector<double>& nchw, int64_t n, int64_t c, int64_t hw) {
      std::vector<double> out(nchw.size());
      for (int64_t b = 0; b < n; ++b)
        for (int64_t ch = 0; ch < c; ++ch)
          for (int64_t p = 0; p < hw; ++p) out[size_t((b * hw + p) * c + ch)] = nchw[size_t((b * c + ch) * hw + p)];
      return out;
    };
    const auto channelsLast = [&](int32_t id) {
      h.ref(id).default_dim_order = false;
      h.ref(id).dim_order = {0, 2, 3, 1};
      return id;
    };
    const int32_t x = channelsLast(h.tensor(ST::Float, {1, 3, 5, 5}, nhwc(inputValues(75, 0), 1, 3, 25)));
    const int32_t w = channelsLast(h.tensor(ST::Float, {2, 3, 3, 3}, nhwc(inputValues(54, 1), 2, 3, 9)));
    const int32_t b = input(h, {2}, 2);
    const int32_t out = channelsLast(h.staticOutput(ST::Float, {1, 2, 5, 5}));
    KH_DONE(h.call("aten::convolution.out", {x, w, b, h.ints({1, 1}), h.ints({1, 1}), h.ints({1, 1}), h.boolean(false),
                                             h.ints({0, 0}), h.integer(1), out, out}));
    std::vector<uint32_t> wantNhwc(kConvolutionBits.size());
    for (size_t ch = 0; ch < 2; ++ch)
      for (size_t p = 0; p < 25; ++p) wantNhwc[p * 2 + ch] = kConvolutionBits[ch * 25 + p];
    compareBits(bits(h, out), wantNhwc);
  }

  void transposedConvolution() {
    KernelHarness h;
    const int32_t x = input(h, {1, 2, 3, 3}, 0), w = input(h, {2, 2, 3, 3}, 1), b = input(h, {2}, 2);
    const int32_t out = h.staticOutput(ST::Float, {1, 2, 5, 5});
    KH_DONE(h.call("aten::convolution.out", {x, w, b, h.ints({2, 2}), h.ints({1, 1}), h.ints({1, 1}), h.boolean(true),
                                             h.ints({0, 0}), h.integer(1), out, out}));
    compareBits(bits(h, out), {
    0x409e092d, 0x411260fa, 0x40842b9e, 0xc1b2e8b8, 0xc16f45da, 0xc13f9495,
    0xc15c68b1, 0xbfc40b1a, 0x414120bf, 0xc115db15, 0xc113b23a, 0x408f9822,
    0xc0607a68, 0x408a16b4, 0x400dd41a, 0x40e56378, 0xc0501926, 0xc093ede8,
    0x4190946f, 0xc0cbae0a, 0x3fb431f8, 0xc1117ae6, 0x40e433bf, 0xc1b3a178,
    0xc13f41ca, 0xc132da5e, 0x3fff71ca, 0x4019ec4a, 0x412e2c38, 0xc012717c,
    0xc0d78c52, 0x41a9cc8b, 0xc19796bd, 0xc1abd135, 0x4162f486, 0xc09b125d,
    0xc15199a1, 0xc0ecebfb, 0xc191b99f, 0xc11f62ce, 0x410106d8, 0xc0b66ad0,
    0x41691531, 0xc13f99a9, 0xc11d4561, 0x4067ca8a, 0x40757808, 0x3f882e9a,
    0x410341ba, 0xc0684678,
    });
  }

  // var_mean.correction_out(self, dim?, *, correction?, keepdim, out0, out1) -> one TensorList:
  // over the last dimension (upstream's fast path: the variance divided in float) and over
  // the first (divided in double), correction 1.
  void varMean() {
    KernelHarness h;
    const int32_t x = input(h, {3, 7}, 0);
    const int32_t var = h.staticOutput(ST::Float, {3}), mean = h.staticOutput(ST::Float, {3});
    KH_DONE(h.call("aten::var_mean.correction_out",
                   {x, h.ints({1}), h.integer(1), h.boolean(false), var, mean, h.list({var, mean})}));
    compareBits(bits(h, var), {0x40fbe524, 0x409af245, 0x409af245});
    compareBits(bits(h, mean), {0xbec99327, 0x3f4de4ef, 0xbe8dada5});
    const int32_t var0 = h.staticOutput(ST::Float, {7}), mean0 = h.staticOutput(ST::Float, {7});
    KH_DONE(h.call("aten::var_mean.correction_out",
                   {x, h.ints({0}), h.integer(1), h.boolean(false), var0, mean0, h.list({var0, mean0})}));
    compareBits(bits(h, var0), {0x4106d3c9, 0x409dc6a4, 0x409dc6a2, 0x4106d3c9, 0x4106d3c9, 0x4106d3ca, 0x409dc6a2});
    compareBits(bits(h, mean0), {0xbf67239c, 0x3e993265, 0xbf942851, 0x3d36c2d5, 0x3f9f947f, 0xbe57035d, 0x3f7dfbf8});
    // Fewer elements than the correction: NaN, as upstream.
    const int32_t one = input(h, {2, 1}, 0);
    const int32_t var1 = h.output(ST::Float, 2), mean1 = h.output(ST::Float, 2);
    KH_DONE(h.call("aten::var_mean.correction_out",
                   {one, h.ints({1}), h.none(), h.boolean(true), var1, mean1, h.list({var1, mean1})}));
    KH_SIZES(h, var1, {2, 1});
    QVERIFY(std::isnan(h.values(var1)[0]) && std::isnan(h.values(mean1)[1]));
  }

  // upsample_bilinear2d.vec_out(input, output_size?, align_corners, scale_factors?, *, out)
  // (item 2): float weights and blends as upstream's; [1, 2, 2, 3] to [1, 2, 3, 4] by
  // output_size, then with align_corners by scale factors 1.5.
  void upsampleBilinear() {
    const std::vector<uint32_t> bySize = {
        0xc0800000, 0x3d993260, 0x3ffc9932, 0x3f881020, 0xc00c9932, 0xbf1d5ab6, 0xbe58b168, 0xbf8f9f3f,
        0xbec99326, 0xbfa6eddc, 0xc01962c6, 0xc053a74f, 0x404d9b36, 0x401356ad, 0x3f9ad5ac, 0x3e993265,
        0x3f83870e, 0x3defdfc0, 0x3f052a56, 0x40068d1a, 0xbf942851, 0xc00458b1, 0xbe2d5ab0, 0x4079f3e8};
    const std::vector<uint32_t> aligned = {
        0xc0800000, 0x3eb162c8, 0x40022f08, 0x3f881020, 0xc00c9932, 0xbf025a09, 0xbe1a8a70, 0xbf8f9f3f,
        0xbec99326, 0xbfaeb2bb, 0xc0158056, 0xc053a74f, 0x404d9b36, 0x400f743e, 0x3fa29a8a, 0x3e993265,
        0x3f83870e, 0x3d6723a0, 0x3ed45356, 0x40068d1a, 0xbf942851, 0xc0083b21, 0xbee1c37c, 0x4079f3e8};
    KernelHarness h;
    const int32_t x = input(h, {1, 2, 2, 3}, 0);
    const int32_t out = h.output(ST::Float, 24, {1, 2, 3, 4});
    KH_DONE(h.call("aten::upsample_bilinear2d.vec_out", {x, h.ints({3, 4}), h.boolean(false), h.none(), out, out}));
    KH_SIZES(h, out, {1, 2, 3, 4});
    compareBits(bits(h, out), bySize);
    KH_DONE(h.call("aten::upsample_bilinear2d.vec_out", {x, h.none(), h.boolean(true), h.doubles({1.5, 1.5}), out, out}));
    compareBits(bits(h, out), aligned);
    // The same input stored channels_last gives the same numbers, written channels_last.
    const auto nchw = inputValues(12, 0);
    std::vector<double> nhwc(12);
    for (int c = 0; c < 2; ++c)
      for (int p = 0; p < 6; ++p) nhwc[size_t(p * 2 + c)] = nchw[size_t(c * 6 + p)];
    const int32_t xl = h.tensor(ST::Float, {1, 2, 2, 3}, nhwc);
    const int32_t outl = h.output(ST::Float, 24, {1, 2, 3, 4});
    for (int32_t id : {xl, outl}) {
      h.ref(id).default_dim_order = false;
      h.ref(id).dim_order = {0, 2, 3, 1};
    }
    KH_DONE(h.call("aten::upsample_bilinear2d.vec_out", {xl, h.ints({3, 4}), h.boolean(false), h.none(), outl, outl}));
    std::vector<uint32_t> bySizeNhwc(24);
    for (size_t c = 0; c < 2; ++c)
      for (size_t p = 0; p < 12; ++p) bySizeNhwc[p * 2 + c] = bySize[c * 12 + p];
    compareBits(bits(h, outl), bySizeNhwc);
    // A scale whose output size is beyond int32 (upstream's cast would be undefined): refused.
    QVERIFY(!h.call("aten::upsample_bilinear2d.vec_out", {x, h.none(), h.boolean(false), h.doubles({1e300, 1.0}), out, out}).ok());
    // Both or neither of output_size and scale_factors: refused.
    QVERIFY(!h.call("aten::upsample_bilinear2d.vec_out", {x, h.ints({3, 4}), h.boolean(false), h.doubles({1.5, 1.5}), out, out}).ok());
  }
};

QTEST_APPLESS_MAIN(KernelsBitExactTest)
#include "test_kernels_bitexact.moc"
