// keyword-spotting-cortex-m.pte (a DS-CNN keyword spotter lowered to
// cortex_m:: operators) runs with every instruction executed and gives the
// real runtime's outputs bit for bit.
//
// How the expected numbers were made: the ExecuTorch runtime built from the
// upstream source at commit cff6f4dd (runtime/executor, portable and
// quantized kernels, prim ops) plus upstream's backends/cortex_m/ops/op_*.cpp
// registered under their operators.yaml names, linked against CMSIS-NN at
// commit dbf45dbf (the commit upstream's backends/cortex_m/CMakeLists.txt
// pins), compiled for x86 without the Arm DSP/MVE extensions so CMSIS-NN
// takes its portable C code; built outside this repository and not
// committed. It loaded the sample, set the input from a .npy file with the
// values of inputValues() below, ran "forward" once and wrote the output as
// .npy; the twelve floats here are that file's contents.
#include <QtTest>

#include <filesystem>

#include "exec/HostRuntime.h"
#include "exec/InputFiles.h"
#include "exec/RunOnce.h"
#include "support/TestSupport.h"

using namespace ptescope;
using ST = program::ScalarType;

namespace {

constexpr int64_t kInputElements = 1 * 1 * 49 * 10;

// The inputs, element k in memory order of the float32 [1, 1, 49, 10] input:
//   0: the oracle's default fill ((k mod 11) - 5) / 4
//   1: (((37 k) mod 61) - 30) * 0.75                   (within [-22.5, 22.5])
//   2: x_k = (1103515245 x_{k-1} + 12345) mod 2^31, x_{-1} = 12345; x_k / 2^31 * 800 - 400
//      (well past the input quantizer's range, so it clamps)
std::vector<float> inputValues(int which) {
  std::vector<float> v(static_cast<size_t>(kInputElements));
  uint64_t x = 12345;
  for (int64_t k = 0; k < kInputElements; ++k) {
    double value = 0;
    if (which == 0) {
      value = double((k % 11) - 5) / 4.0;
    } else if (which == 1) {
      value = double(((k * 37) % 61) - 30) * 0.75;
    } else {
      x = (1103515245ull * x + 12345ull) % (1ull << 31);
      value = double(x) / double(1ull << 31) * 800.0 - 400.0;
    }
    v[size_t(k)] = float(value);
  }
  return v;
}

// What the real runtime wrote for each input (see the top of this file).
const std::vector<float> kExpected[3] = {
    {-3.24015641f, -3.70303583f, 2.93157005f, -1.85151792f, -1.54293168f, 2.93157005f, -1.54293168f, -2.62298369f,
     -2.31439757f, 2.00581121f, -5.40026093f, -0.462879479f},
    {-13.886385f, -15.1207304f, -0.617172658f, -9.10329628f, -8.48612404f, -8.6404171f, 1.3886385f, 0.308586329f,
     -18.9780598f, -12.8063326f, 6.1717267f, -20.5209904f},
    {-14.6578503f, -16.817955f, -1.23434532f, -6.32601976f, -18.6694736f, -8.17753792f, -9.10329628f, 8.02324486f,
     -21.4467506f, -10.6462288f, -10.8005219f, 7.09748554f},
};

}  // namespace

class ExecCortexMSampleTest : public QObject {
  Q_OBJECT
 private slots:
  void keywordSpottingMatchesTheRealRuntime_data() {
    QTest::addColumn<int>("which");
    QTest::newRow("default fill") << 0;
    QTest::newRow("pattern") << 1;
    QTest::newRow("clamping") << 2;
  }

  void keywordSpottingMatchesTheRealRuntime() {
    QFETCH(int, which);
    PTESCOPE_REQUIRE_SAMPLES();
    auto loaded = test::loadOrFail(test::samplePath("keyword-spotting-cortex-m.pte"));

    exec::HostTensor input;
    input.dtype = ST::Float;
    input.sizes = {1, 1, 49, 10};
    const auto values = inputValues(which);
    input.bytes.resize(values.size() * 4);
    std::memcpy(input.bytes.data(), values.data(), input.bytes.size());
    const std::string dir = (test::tempDir() + "/kws" + QString::number(which)).toStdString();
    std::filesystem::create_directories(dir);
    test::writeAll(QString::fromStdString(dir + "/0.npy"), exec::encodeNpy(input));

    exec::HostRuntime runtime;
    exec::RunOnceOptions options;
    options.method = "forward";
    options.inputs.directory = dir;
    auto result = exec::runMethodOnce(loaded.program, runtime, options);
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    QVERIFY2(result->not_executed.empty(), result->not_executed.empty() ? "" : result->not_executed[0].reason.c_str());
    QCOMPARE(result->outputs.size(), size_t(1));
    const auto& out = result->outputs[0];
    QVERIFY(out.tensor.has_value());
    QCOMPARE(int(out.tensor->dtype), int(ST::Float));
    QCOMPARE(out.tensor->sizes, (std::vector<int64_t>{1, 12}));
    QCOMPARE(out.tensor->bytes.size(), size_t(48));
    std::vector<float> got(12);
    std::memcpy(got.data(), out.tensor->bytes.data(), 48);
    for (size_t i = 0; i < 12; ++i)
      QVERIFY2(got[i] == kExpected[which][i],  // bit for bit: the outputs are dequantized int8 values
               qPrintable(QString("output %1: %2, the runtime gave %3").arg(i).arg(double(got[i]), 0, 'g', 9)
                              .arg(double(kExpected[which][i]), 0, 'g', 9)));
  }

  void profileExecutesEveryInstruction() {
    PTESCOPE_REQUIRE_SAMPLES();
    auto loaded = test::loadOrFail(test::samplePath("keyword-spotting-cortex-m.pte"));
    exec::HostRuntime runtime;
    exec::RunOnceOptions options;
    options.method = "forward";
    auto result = exec::runMethodOnce(loaded.program, runtime, options);
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    QCOMPARE(result->not_executed.size(), size_t(0));
  }
};

QTEST_APPLESS_MAIN(ExecCortexMSampleTest)
#include "test_exec_cortex_m_sample.moc"
