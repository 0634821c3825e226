// The executor on the CPU-only shared samples: outputs against values
// computed here from the inputs and the constants stored in the file (never
// from the executor itself).
#include <QtTest>

#include <cstring>

#include "exec/Executor.h"
#include "exec/HostRuntime.h"
#include "support/TestSupport.h"

using namespace ptescope;
using namespace ptescope::exec;

namespace {

std::vector<uint8_t> floatBytes(const std::vector<float>& values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// A stored constant's elements, read straight from the program's bytes.
template <class T>
std::vector<double> storedConstant(const program::Program& program, const program::Method& method, int32_t value) {
  const auto* tensor = (*method.values)[size_t(value)].tensor();
  const auto source = program::tensorData(program, *tensor);
  std::vector<double> out;
  for (size_t i = 0; i + sizeof(T) <= source.data.size(); i += sizeof(T)) {
    T x;
    std::memcpy(&x, source.data.data() + i, sizeof(T));
    out.push_back(double(x));
  }
  return out;
}

std::vector<double> readValues(Executor& executor, int32_t value) {
  auto tensor = executor.readTensor(value);
  if (!tensor) {
    QTest::qFail(tensor.error().message.c_str(), __FILE__, __LINE__);
    return {};
  }
  return tensor->toDoubles();
}

// Float32 results computed in double agree to float rounding.
void compareFloats(const std::vector<double>& actual, const std::vector<double>& expected) {
  QCOMPARE(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i)
    QVERIFY2(std::fabs(actual[i] - double(float(expected[i]))) <= 1e-6 * std::max(1.0, std::fabs(expected[i])),
             qPrintable(QString("element %1: %2 vs expected %3").arg(i).arg(actual[i]).arg(expected[i])));
}

std::unique_ptr<Executor> makeExecutor(const program::Program& program, const std::string& method, HostRuntime& runtime) {
  auto executor = Executor::create(program, method, runtime);
  if (!executor) {
    QTest::qFail(executor.error().message.c_str(), __FILE__, __LINE__);
    return nullptr;
  }
  return std::move(executor.value());
}

void runOnce(Executor& executor) {
  auto record = executor.run();
  QVERIFY2(record.ok(), record ? "" : record.error().message.c_str());
  for (const auto& step : record->steps)
    QVERIFY2(step.status == StepStatus::Executed, qPrintable(QString::fromStdString(step.label + ": " + step.reason)));
}

}  // namespace

class ExecSamplesTest : public QObject {
  Q_OBJECT
 private slots:
  void addWithChosenInputs() {
    PTESCOPE_REQUIRE_SAMPLES();
    auto loaded = test::loadOrFail(test::samplePath("add.pte"));
    HostRuntime runtime;
    auto executor = makeExecutor(loaded.program, "forward", runtime);
    QVERIFY(executor);
    // forward(a, b) = a + 1 * b, float32[1] each.
    QVERIFY(executor->writeTensor(0, floatBytes({2.5f})).ok());
    QVERIFY(executor->writeTensor(1, floatBytes({-0.75f})).ok());
    runOnce(*executor);
    compareFloats(readValues(*executor, 2), {1.75});
  }

  void addWithRandomInputs() {
    PTESCOPE_REQUIRE_SAMPLES();
    auto loaded = test::loadOrFail(test::samplePath("add.pte"));
    HostRuntime runtime;
    auto executor = makeExecutor(loaded.program, "forward", runtime);
    QVERIFY(executor);
    QVERIFY(executor->fillInputs(InputOptions{7, {}}).ok());
    const auto a = readValues(*executor, 0), b = readValues(*executor, 1);
    QVERIFY(a != b);  // two inputs, two different draws
    runOnce(*executor);
    compareFloats(readValues(*executor, 2), {a[0] + b[0]});
  }

  void addConstantSegment() {
    PTESCOPE_REQUIRE_SAMPLES();
    auto loaded = test::loadOrFail(test::samplePath("add-constant-segment.pte"));
    const auto& method = *loaded.program.findMethod("forward");
    // Value 0 is the constant (a 0-dim float in the constant segment),
    // value 1 the input float32[3], value 2 the output: x + c.
    const auto constant = storedConstant<float>(loaded.program, method, 0);
    QCOMPARE(constant.size(), size_t(1));
    HostRuntime runtime;
    auto executor = makeExecutor(loaded.program, "forward", runtime);
    QVERIFY(executor);
    QVERIFY(executor->writeTensor(1, floatBytes({1.0f, -2.0f, 0.5f})).ok());
    runOnce(*executor);
    compareFloats(readValues(*executor, 2), {1.0 + constant[0], -2.0 + constant[0], 0.5 + constant[0]});
    QCOMPARE(executor->binding(0)->kind, TensorBinding::Kind::Constant);
  }

  void linearLegacyConstantBuffer() {
    PTESCOPE_REQUIRE_SAMPLES();
    auto loaded = test::loadOrFail(test::samplePath("linear-legacy-constant-buffer.pte"));
    const auto& method = *loaded.program.findMethod("forward");
    // %3 = %0 * %2 (input), %4 = %3 + 1 * %1; %0 and %1 live in the legacy
    // constant_buffer inside the flatbuffer.
    const auto weight = storedConstant<float>(loaded.program, method, 0);
    const auto bias = storedConstant<float>(loaded.program, method, 1);
    QCOMPARE(weight.size(), size_t(4));
    QCOMPARE(bias.size(), size_t(4));
    HostRuntime runtime;
    auto executor = makeExecutor(loaded.program, "forward", runtime);
    QVERIFY(executor);
    QVERIFY(executor->fillInputs(InputOptions{42, {}}).ok());
    const auto x = readValues(*executor, 2);
    QCOMPARE(x.size(), size_t(4));
    runOnce(*executor);
    std::vector<double> expected;
    for (size_t i = 0; i < 4; ++i) expected.push_back(double(float(weight[i] * x[i])) + bias[i]);
    compareFloats(readValues(*executor, 4), expected);
  }

  void multiMethodBothMethods() {
    PTESCOPE_REQUIRE_SAMPLES();
    auto loaded = test::loadOrFail(test::samplePath("multi-method.pte"));
    for (const char* name : {"forward", "double"}) {
      const auto& method = *loaded.program.findMethod(name);
      // %2 = float(%0), an int64 constant; %5 = %1 + 1 * %2.
      const auto constant = storedConstant<int64_t>(loaded.program, method, 0);
      QCOMPARE(constant.size(), size_t(1));
      HostRuntime runtime;
      auto executor = makeExecutor(loaded.program, name, runtime);
      QVERIFY(executor);
      QVERIFY(executor->writeTensor(1, floatBytes({3.0f, -1.5f})).ok());
      runOnce(*executor);
      compareFloats(readValues(*executor, 2), {constant[0]});
      compareFloats(readValues(*executor, 5), {3.0 + constant[0], -1.5 + constant[0]});
    }
  }

  void runsAreRepeatable() {
    PTESCOPE_REQUIRE_SAMPLES();
    auto loaded = test::loadOrFail(test::samplePath("linear-legacy-constant-buffer.pte"));
    HostRuntime runtime;
    auto executor = makeExecutor(loaded.program, "forward", runtime);
    QVERIFY(executor);
    QVERIFY(executor->fillInputs({}).ok());
    runOnce(*executor);
    const auto first = readValues(*executor, 4);
    runOnce(*executor);
    QCOMPARE(readValues(*executor, 4), first);
  }
};

QTEST_GUILESS_MAIN(ExecSamplesTest)
#include "test_exec_samples.moc"
