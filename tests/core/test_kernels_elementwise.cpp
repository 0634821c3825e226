// Elementwise CPU kernels against hand-worked values, in the argument
// layout upstream's emitter writes (schema order, outs, then the return
// value again), for every dtype family they accept.
#include <QtTest>

#include <cmath>

#include "support/KernelHarness.h"

using namespace ptescope;
using ptescope::testing::KernelHarness;
using ST = program::ScalarType;

class KernelsElementwiseTest : public QObject {
  Q_OBJECT
 private slots:
  void addBroadcastsWithAlpha() {
    KernelHarness h;
    const int32_t a = h.tensor(ST::Float, {2, 3}, {1, 2, 3, 4, 5, 6});
    const int32_t b = h.tensor(ST::Float, {3}, {10, 20, 30});
    const int32_t out = h.output(ST::Float, 6);
    // add.out(self, other, *, alpha, out) -> out
    KH_DONE(h.call("aten::add.out", {a, b, h.integer(2), out, out}));
    KH_SIZES(h, out, {2, 3});
    KH_VALUES(h, out, 0, {21, 42, 63, 24, 45, 66});
  }

  void addInEveryDtype() {
    for (ST dtype : {ST::Float, ST::Double, ST::Half, ST::BFloat16, ST::Int, ST::Long, ST::Short, ST::Char, ST::Byte}) {
      KernelHarness h;
      const int32_t a = h.tensor(dtype, {4}, {1, 2, 3, 100});
      const int32_t b = h.tensor(dtype, {4}, {4, 5, 6, 20});
      const int32_t out = h.output(dtype, 4);
      KH_DONE(h.call("aten::add.out", {a, b, h.integer(1), out, out}));
      KH_VALUES(h, out, 0, {5, 7, 9, 120});
    }
    KernelHarness h;  // bool + bool stays a bool
    const int32_t a = h.tensor(ST::Bool, {3}, {0, 1, 1});
    const int32_t b = h.tensor(ST::Bool, {3}, {0, 0, 1});
    const int32_t out = h.output(ST::Bool, 3);
    KH_DONE(h.call("aten::add.out", {a, b, h.integer(1), out, out}));
    KH_VALUES(h, out, 0, {0, 1, 1});
  }

  void mixedDtypesStoreInTheOutputsDtype() {
    KernelHarness h;
    const int32_t a = h.tensor(ST::Int, {3}, {1, 2, 3});
    const int32_t b = h.tensor(ST::Float, {3}, {0.5, 0.25, -1});
    const int32_t out = h.output(ST::Float, 3);
    KH_DONE(h.call("aten::mul.out", {a, b, out, out}));
    KH_VALUES(h, out, 0, {0.5, 0.5, -3});
    // int / int is a true division into a float output
    const int32_t c = h.tensor(ST::Long, {2}, {7, -7});
    const int32_t d = h.tensor(ST::Long, {2}, {2, 2});
    const int32_t q = h.output(ST::Float, 2);
    KH_DONE(h.call("aten::div.out", {c, d, q, q}));
    KH_VALUES(h, q, 0, {3.5, -3.5});
  }

  void scalarOverloadsAndRsub() {
    KernelHarness h;
    const int32_t a = h.tensor(ST::Float, {3}, {1, 2, 3});
    const int32_t out = h.output(ST::Float, 3);
    KH_DONE(h.call("aten::sub.Scalar_out", {a, h.real(0.5), h.integer(2), out, out}));
    KH_VALUES(h, out, 0, {0, 1, 2});
    KH_DONE(h.call("aten::mul.Scalar_out", {a, h.integer(3), out, out}));
    KH_VALUES(h, out, 0, {3, 6, 9});
    KH_DONE(h.call("aten::rsub.Scalar_out", {a, h.integer(10), h.integer(2), out, out}));
    KH_VALUES(h, out, 0, {8, 6, 4});
    KH_DONE(h.call("aten::div.Scalar_out", {a, h.integer(4), out, out}));
    KH_VALUES(h, out, 0, {0.25, 0.5, 0.75});
  }

  void divisionRoundingModesAndRemainders() {
    KernelHarness h;
    const int32_t a = h.tensor(ST::Float, {4}, {7, -7, 7, -7});
    const int32_t b = h.tensor(ST::Float, {4}, {2, 2, -2, -2});
    const int32_t out = h.output(ST::Float, 4);
    KH_DONE(h.call("aten::div.out_mode", {a, b, h.text("floor"), out, out}));
    KH_VALUES(h, out, 0, {3, -4, -4, 3});
    KH_DONE(h.call("aten::div.out_mode", {a, b, h.text("trunc"), out, out}));
    KH_VALUES(h, out, 0, {3, -3, -3, 3});
    KH_DONE(h.call("aten::div.out_mode", {a, b, h.none(), out, out}));
    KH_VALUES(h, out, 0, {3.5, -3.5, -3.5, 3.5});
    // Python's remainder takes the divisor's sign, fmod the dividend's
    KH_DONE(h.call("aten::remainder.Tensor_out", {a, b, out, out}));
    KH_VALUES(h, out, 0, {1, 1, -1, -1});
    KH_DONE(h.call("aten::fmod.Tensor_out", {a, b, out, out}));
    KH_VALUES(h, out, 0, {1, -1, 1, -1});
    const int32_t i = h.tensor(ST::Long, {2}, {-7, 9});
    const int32_t iout = h.output(ST::Long, 2);
    // For integers upstream's remainder_override is C's %, which keeps the dividend's sign
    // (the runtime gives -3 too; tests/oracle/record.tsv).
    KH_DONE(h.call("aten::remainder.Scalar_out", {i, h.integer(4), iout, iout}));
    KH_VALUES(h, iout, 0, {-3, 1});
    KH_DONE(h.call("aten::floor_divide.out", {i, h.tensor(ST::Long, {1}, {4}), iout, iout}));
    KH_VALUES(h, iout, 0, {-2, 2});
  }

  void powInItsThreeForms() {
    KernelHarness h;
    const int32_t a = h.tensor(ST::Float, {3}, {1, 2, 3});
    const int32_t e = h.tensor(ST::Float, {3}, {3, 2, 0.5});
    const int32_t out = h.output(ST::Float, 3);
    KH_DONE(h.call("aten::pow.Tensor_Tensor_out", {a, e, out, out}));
    KH_VALUES(h, out, 1e-6, {1, 4, std::sqrt(3.0)});
    KH_DONE(h.call("aten::pow.Tensor_Scalar_out", {a, h.integer(2), out, out}));
    KH_VALUES(h, out, 0, {1, 4, 9});
    KH_DONE(h.call("aten::pow.Scalar_out", {h.integer(2), a, out, out}));
    KH_VALUES(h, out, 0, {2, 4, 8});
  }

  void comparisonsGiveBools() {
    KernelHarness h;
    const int32_t a = h.tensor(ST::Float, {2, 2}, {1, 2, 3, 4});
    const int32_t b = h.tensor(ST::Float, {2}, {2, 2});
    const int32_t out = h.output(ST::Bool, 4);
    const std::vector<std::pair<const char*, std::vector<double>>> cases = {
        {"eq", {0, 1, 0, 0}}, {"ne", {1, 0, 1, 1}}, {"lt", {1, 0, 0, 0}},
        {"le", {1, 1, 0, 0}}, {"gt", {0, 0, 1, 1}}, {"ge", {0, 1, 1, 1}}};
    for (const auto& [name, want] : cases) {
      KH_DONE(h.call(std::string("aten::") + name + ".Tensor_out", {a, b, out, out}));
      std::string why;
      QVERIFY2(ptescope::testing::closeTo(h.values(out), want, 0, &why), (std::string(name) + ": " + why).c_str());
      KH_DONE(h.call(std::string("aten::") + name + ".Scalar_out", {a, h.integer(2), out, out}));
      QVERIFY2(ptescope::testing::closeTo(h.values(out), want, 0, &why), (std::string(name) + " scalar: " + why).c_str());
    }
    const int32_t ints = h.tensor(ST::Long, {3}, {5, 6, 7});
    const int32_t o3 = h.output(ST::Bool, 3);
    KH_DONE(h.call("aten::gt.Scalar_out", {ints, h.integer(5), o3, o3}));
    KH_VALUES(h, o3, 0, {0, 1, 1});
  }

  void whereMaskedFillAndLogic() {
    KernelHarness h;
    const int32_t cond = h.tensor(ST::Bool, {2, 1}, {1, 0});
    const int32_t x = h.tensor(ST::Float, {2, 2}, {1, 2, 3, 4});
    const int32_t y = h.tensor(ST::Float, {}, {-1});
    const int32_t out = h.output(ST::Float, 4);
    // where.self_out(condition, self, other, *, out)
    KH_DONE(h.call("aten::where.self_out", {cond, x, y, out, out}));
    KH_SIZES(h, out, {2, 2});
    KH_VALUES(h, out, 0, {1, 2, -1, -1});
    const int32_t mask = h.tensor(ST::Bool, {2}, {0, 1});
    KH_DONE(h.call("aten::masked_fill.Scalar_out", {x, mask, h.real(-9), out, out}));
    KH_VALUES(h, out, 0, {1, -9, 3, -9});
    const int32_t p = h.tensor(ST::Bool, {4}, {0, 0, 1, 1});
    const int32_t q = h.tensor(ST::Bool, {4}, {0, 1, 0, 1});
    const int32_t lo = h.output(ST::Bool, 4);
    KH_DONE(h.call("aten::logical_and.out", {p, q, lo, lo}));
    KH_VALUES(h, lo, 0, {0, 0, 0, 1});
    KH_DONE(h.call("aten::logical_xor.out", {p, q, lo, lo}));
    KH_VALUES(h, lo, 0, {0, 1, 1, 0});
    KH_DONE(h.call("aten::bitwise_not.out", {p, lo, lo}));
    KH_VALUES(h, lo, 0, {1, 1, 0, 0});
    const int32_t n = h.tensor(ST::Int, {2}, {0, 5});
    const int32_t no = h.output(ST::Int, 2);
    KH_DONE(h.call("aten::bitwise_not.out", {n, no, no}));
    KH_VALUES(h, no, 0, {-1, -6});
    KH_DONE(h.call("aten::bitwise_and.Scalar_out", {n, h.integer(4), no, no}));
    KH_VALUES(h, no, 0, {0, 4});
  }

  void clampFamily() {
    KernelHarness h;
    const int32_t a = h.tensor(ST::Float, {4}, {-3, -0.5, 0.5, 3});
    const int32_t out = h.output(ST::Float, 4);
    KH_DONE(h.call("aten::clamp.out", {a, h.integer(-1), h.none(), out, out}));
    KH_VALUES(h, out, 0, {-1, -0.5, 0.5, 3});
    KH_DONE(h.call("aten::clamp.out", {a, h.real(-1), h.real(1), out, out}));
    KH_VALUES(h, out, 0, {-1, -0.5, 0.5, 1});
    QVERIFY(!h.call("aten::clamp.out", {a, h.none(), h.none(), out, out}).ok());
    const int32_t hi = h.tensor(ST::Float, {4}, {0, 0, 0, 2});
    KH_DONE(h.call("aten::clamp.Tensor_out", {a, h.none(), hi, out, out}));
    KH_VALUES(h, out, 0, {-3, -0.5, 0, 2});
    KH_DONE(h.call("aten::hardtanh.out", {a, h.integer(-2), h.integer(2), out, out}));
    KH_VALUES(h, out, 0, {-2, -0.5, 0.5, 2});
    KH_DONE(h.call("aten::leaky_relu.out", {a, h.real(0.1), out, out}));
    KH_VALUES(h, out, 1e-7, {-0.3, -0.05, 0.5, 3});
  }

  void activationsAndUnaryFunctions() {
    KernelHarness h;
    const int32_t a = h.tensor(ST::Float, {3}, {-1, 0, 1});
    const int32_t out = h.output(ST::Float, 3);
    const double e = std::exp(1.0);
    const std::vector<std::pair<const char*, std::vector<double>>> cases = {
        {"relu", {0, 0, 1}},
        {"sigmoid", {1 / (1 + e), 0.5, 1 / (1 + 1 / e)}},
        {"tanh", {-(e * e - 1) / (e * e + 1), 0, (e * e - 1) / (e * e + 1)}},
        {"exp", {1 / e, 1, e}},
        {"neg", {1, 0, -1}},
        {"abs", {1, 0, 1}},
        {"sign", {-1, 0, 1}},
        {"erf", {-0.8427007929497149, 0, 0.8427007929497149}},
        {"sin", {-0.8414709848078965, 0, 0.8414709848078965}},
        {"cos", {0.5403023058681398, 1, 0.5403023058681398}},
    };
    for (const auto& [name, want] : cases) {
      KH_DONE(h.call(std::string("aten::") + name + ".out", {a, out, out}));
      std::string why;
      QVERIFY2(ptescope::testing::closeTo(h.values(out), want, 1e-6, &why), (std::string(name) + ": " + why).c_str());
    }
    const int32_t p = h.tensor(ST::Float, {3}, {0.25, 4, 16});
    KH_DONE(h.call("aten::rsqrt.out", {p, out, out}));
    KH_VALUES(h, out, 0, {2, 0.5, 0.25});
    KH_DONE(h.call("aten::sqrt.out", {p, out, out}));
    KH_VALUES(h, out, 0, {0.5, 2, 4});
    KH_DONE(h.call("aten::log.out", {p, out, out}));
    KH_VALUES(h, out, 1e-6, {-std::log(4.0), std::log(4.0), std::log(16.0)});
    KH_DONE(h.call("aten::reciprocal.out", {p, out, out}));
    KH_VALUES(h, out, 0, {4, 0.25, 0.0625});
    const int32_t r = h.tensor(ST::Float, {4}, {0.5, 1.5, 2.5, -0.5});
    const int32_t ro = h.output(ST::Float, 4);
    KH_DONE(h.call("aten::round.out", {r, ro, ro}));  // half to even
    KH_VALUES(h, ro, 0, {0, 2, 2, -0});
    // gelu.out(self, *, approximate, out): 0.5 x (1 + erf(x / sqrt 2)) and its tanh form
    KH_DONE(h.call("aten::gelu.out", {a, h.text("none"), out, out}));
    KH_VALUES(h, out, 1e-6, {-0.15865525393145707, 0, 0.8413447460685429});
    KH_DONE(h.call("aten::gelu.out", {a, h.text("tanh"), out, out}));
    KH_VALUES(h, out, 1e-6, {-0.15880800939172324, 0, 0.8411919906082768});
    QVERIFY(!h.call("aten::gelu.out", {a, h.text("cubic"), out, out}).ok());
  }

  void halfAndBfloat16RoundTrip() {
    KernelHarness h;
    const int32_t a = h.tensor(ST::Half, {3}, {1.5, -2.25, 65504});
    const int32_t out = h.output(ST::Float, 3);
    KH_DONE(h.call("aten::neg.out", {a, out, out}));
    KH_VALUES(h, out, 0, {-1.5, 2.25, -65504});
    const int32_t b = h.tensor(ST::BFloat16, {2}, {3.0, 0.15625});
    const int32_t bo = h.output(ST::BFloat16, 2);
    KH_DONE(h.call("aten::mul.Scalar_out", {b, h.integer(2), bo, bo}));
    KH_VALUES(h, bo, 0, {6.0, 0.3125});
  }

  void badArgumentsAreErrorsAndDeviceMemoryIsUnsupported() {
    KernelHarness h;
    const int32_t a = h.tensor(ST::Float, {2, 3}, {});
    const int32_t b = h.tensor(ST::Float, {4}, {});
    const int32_t out = h.output(ST::Float, 12);
    auto r = h.call("aten::add.out", {a, b, h.integer(1), out, out});
    QVERIFY(!r.ok());
    QVERIFY2(r.error().message.find("broadcast") != std::string::npos, r.error().message.c_str());
    const int32_t small = h.staticOutput(ST::Float, {2});
    QVERIFY(!h.call("aten::add.out", {a, a, h.integer(1), small, small}).ok());  // a static out cannot grow
    const int32_t c = h.tensor(ST::Float, {2}, {1, 2});
    h.makeConstant(c);
    QVERIFY(!h.call("aten::relu.out", {c, c, c}).ok());  // a constant cannot be written
    const int32_t d = h.tensor(ST::Float, {2}, {1, 2});
    h.ref(d).memory = exec::MemoryPlace::onDevice(program::Device{program::DeviceType::Cuda, 0});
    auto u = h.call("aten::relu.out", {d, out, out});
    QVERIFY(u.ok());
    QCOMPARE(u->kind, exec::KernelOutcome::Kind::Unsupported);
    QVERIFY(u->reason.find("host") != std::string::npos);
  }
};

QTEST_APPLESS_MAIN(KernelsElementwiseTest)
#include "test_kernels_elementwise.moc"
