// The shared CPU samples' outputs against the real ExecuTorch runtime.
//
// How the expected numbers were made: the ExecuTorch runtime built from the
// upstream source at commit cff6f4dd (runtime/executor, the portable kernel
// library kernels/portable and kernels/quantized, prim ops; outside this
// repository, not committed) loaded each sample below, set every method
// input from the same .npy files this test writes (see inputValues), ran the
// method once and wrote each output as .npy; the values here are those
// files' contents, whole (every output is tiny). Samples whose results come
// from a delegate (XNNPACK, QNN, OpenVINO, Ethos-U) are not here: neither
// runtime can compute those, and the real one only ran stubs.
//
// The inputs: input i of a method, element k in memory order, is
//   float:  (((k + 3 i) mod 11) - 5) / 4     int: (k + i) mod 4     bool: k mod 2 == 1
#include <QtTest>

#include <filesystem>

#include "exec/HostRuntime.h"
#include "exec/InputFiles.h"
#include "exec/RunOnce.h"
#include "exec/kernels/KernelSupport.h"
#include "support/TestSupport.h"

using namespace ptescope;
using ST = program::ScalarType;

namespace {

std::vector<double> inputValues(ST dtype, int64_t count, size_t position) {
  std::vector<double> values(static_cast<size_t>(count));
  for (int64_t k = 0; k < count; ++k) {
    const int64_t i = int64_t(position);
    if (exec::kernels::isFloating(dtype))
      values[size_t(k)] = double(((k + 3 * i) % 11) - 5) / 4.0;
    else if (dtype == ST::Bool)
      values[size_t(k)] = k % 2 == 1;
    else
      values[size_t(k)] = double((k + i) % 4);
  }
  return values;
}

struct Expected {
  ST dtype;
  std::vector<int64_t> sizes;
  std::vector<double> values;
};

struct Case {
  const char* file;
  const char* method;
  std::vector<Expected> outputs;
};

// What the real runtime wrote (see the top of this file).
const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"add.pte", "forward", {{ST::Float, {1}, {-1.75}}}},
      {"add-constant-segment.pte", "forward", {{ST::Float, {3}, {-0.25, 0.0, 0.25}}}},
      {"linear-legacy-constant-buffer.pte", "forward", {{ST::Float, {2, 2}, {-1.75, -1.0, -0.25, 0.5}}}},
      {"external-constants.pte", "forward", {{ST::Float, {2, 2}, {-1.75, -1.0, -0.25, 0.5}}}},
      {"dtypes.pte", "forward", {{ST::Long, {1}, {0}}, {ST::Float, {1}, {-1.0}}}},
      {"multi-method.pte", "forward", {{ST::Float, {2}, {-0.25, 0.0}}}},
      {"multi-method.pte", "double", {{ST::Float, {2}, {-0.25, 0.0}}}},
      {"const-methods.pte", "forward", {{ST::Float, {3}, {-0.25, 0.0, 0.25}}}},
      {"const-methods.pte", "get_tensor", {{ST::Long, {3}, {1, 2, 3}}}},
      {"const-methods.pte", "get_scalar", {{ST::Long, {}, {128}}}},
      {"const-methods.pte", "get_double", {{ST::Double, {}, {2.5}}}},
      {"const-methods.pte", "get_bool", {{ST::Bool, {}, {1}}}},
  };
  return all;
}

}  // namespace

class ExecReferenceOutputsTest : public QObject {
  Q_OBJECT
 private slots:
  void cpuSamplesMatchTheRealRuntime_data() {
    QTest::addColumn<int>("index");
    for (size_t i = 0; i < cases().size(); ++i)
      QTest::newRow((std::string(cases()[i].file) + ":" + cases()[i].method).c_str()) << int(i);
  }

  void cpuSamplesMatchTheRealRuntime() {
    QFETCH(int, index);
    const Case& c = cases()[size_t(index)];
    if (test::samplesDir().isEmpty()) QSKIP("samples folder absent");
    auto loaded = test::loadOrFail(test::samplePath(c.file));
    const program::Program& program = loaded.program;
    const program::Method* method = program.findMethod(c.method);
    QVERIFY(method != nullptr);

    // Write the inputs as .npy files, as they were given to the real runtime.
    const std::string dir = (test::tempDir() + "/" + QString::number(index)).toStdString();
    std::filesystem::create_directories(dir);
    const auto& inputs = program::items(method->inputs);
    for (size_t i = 0; i < inputs.size(); ++i) {
      const auto* tensor = std::get_if<program::Tensor>(&program::items(method->values)[size_t(inputs[i])].data);
      if (tensor == nullptr) continue;
      exec::HostTensor t;
      t.dtype = tensor->scalar_type;
      for (int32_t s : program::items(tensor->sizes)) t.sizes.push_back(s);
      const auto values = inputValues(t.dtype, exec::kernels::numelOf(t.sizes), i);
      const auto codec = exec::kernels::codecFor(t.dtype);
      t.bytes.resize(values.size() * size_t(codec.size));
      for (size_t k = 0; k < values.size(); ++k) codec.store(t.bytes.data() + k * size_t(codec.size), values[k]);
      test::writeAll(QString::fromStdString(dir + "/" + std::to_string(i) + ".npy"), exec::encodeNpy(t));
    }

    exec::HostRuntime runtime;
    exec::RunOnceOptions options;
    options.method = c.method;
    options.inputs.directory = dir;
    auto result = exec::runMethodOnce(program, runtime, options);
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    QVERIFY2(result->not_executed.empty(), result->not_executed.empty() ? "" : result->not_executed[0].reason.c_str());
    QCOMPARE(result->outputs.size(), c.outputs.size());
    for (size_t o = 0; o < c.outputs.size(); ++o) {
      const auto& want = c.outputs[o];
      const auto& got = result->outputs[o];
      std::vector<double> values;
      if (got.tensor) {
        QCOMPARE(int(got.tensor->dtype), int(want.dtype));
        QCOMPARE(got.tensor->sizes, want.sizes);
        values = exec::elementsOf(*got.tensor);
      } else if (const auto* i = std::get_if<program::IntValue>(&got.literal)) {
        QCOMPARE(int(want.dtype), int(ST::Long));
        values = {double(i->value)};
      } else if (const auto* d = std::get_if<program::DoubleValue>(&got.literal)) {
        QCOMPARE(int(want.dtype), int(ST::Double));
        values = {d->value};
      } else if (const auto* b = std::get_if<program::BoolValue>(&got.literal)) {
        QCOMPARE(int(want.dtype), int(ST::Bool));
        values = {b->value ? 1.0 : 0.0};
      } else {
        QFAIL("an output that is neither a tensor nor a scalar");
      }
      QCOMPARE(values, want.values);  // the same float32 results, bit for bit
    }
  }
};

QTEST_APPLESS_MAIN(ExecReferenceOutputsTest)
#include "test_exec_reference_outputs.moc"
