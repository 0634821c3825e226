// ptescope-cli run: one execution of a synthesized CPU program, its outputs
// read back from the .npy files it wrote and checked against values this test
// computes itself; the printed summary; repeatable random inputs; and the
// one-line errors on bad input.
#include <QtTest>

#include <cmath>

#include <nlohmann/json.hpp>
#include <variant>

#include "exec/InputFiles.h"
#include "support/TestSupport.h"

using namespace ptescope;
using ptescope::test::runCli;

namespace {

// y = softmax((a + b) @ w, dim=1), also returning t = a + b.
const char* const kSpec = R"({
  "methods": [{
    "name": "forward",
    "inputs": ["a", "b"],
    "outputs": ["t", "y"],
    "tensors": {"a": {"dtype": "float32", "sizes": [2, 3]},
                "b": {"dtype": "float32", "sizes": [3]},
                "t": {"dtype": "float32", "sizes": [2, 3]},
                "m": {"dtype": "float32", "sizes": [2, 2]},
                "y": {"dtype": "float32", "sizes": [2, 2]}},
    "constants": {"w": {"dtype": "float32", "sizes": [3, 2], "data": [1, 0, 0, 1, 1, 1]}},
    "nodes": [
      {"op": "aten::add.out", "inputs": ["a", "b"], "args": [1], "outputs": ["t"]},
      {"op": "aten::mm.out", "inputs": ["t", "w"], "outputs": ["m"]},
      {"op": "aten::_softmax.out", "inputs": ["m"], "args": [1, false], "outputs": ["y"]}
    ]
  }]
})";

exec::HostTensor floats(std::vector<int64_t> sizes, const std::vector<float>& values) {
  exec::HostTensor t;
  t.dtype = program::ScalarType::Float;
  t.sizes = std::move(sizes);
  t.bytes.resize(values.size() * 4);
  std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  return t;
}

std::vector<double> readFloats(const QString& path) {
  auto t = exec::readNpyFile(path.toStdString());
  if (!t) return {};
  return t->toDoubles();
}

}  // namespace

class CliRunTest : public QObject {
  Q_OBJECT
 private:
  QString program_;

 private slots:
  void initTestCase() {
    const QString dir = test::tempDir();
    const QString spec = dir + "/spec.json";
    const std::string text = kSpec;
    test::writeAll(spec, std::vector<uint8_t>(text.begin(), text.end()));
    program_ = dir + "/model.pte";
    auto r = runCli({"synth", spec, "-o", program_, "--no-passes"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
  }

  void writesOutputsThatMatchIndependentValues() {
    const QString dir = test::tempDir() + "/io";
    QVERIFY(QDir().mkpath(dir + "/in"));
    const std::vector<float> a{1, 2, 3, -1, 0, 4}, b{0.5f, -1, 2};
    test::writeAll(dir + "/in/0.npy", exec::encodeNpy(floats({2, 3}, a)));
    test::writeAll(dir + "/in/1.npy", exec::encodeNpy(floats({3}, b)));
    auto r = runCli({"run", program_, "--inputs", dir + "/in", "--outputs", dir + "/out", "--runtime", "host"});
    QVERIFY2(r.exitCode == 0, r.err.constData());

    // t = a + b (b broadcast over rows); m = t @ w; y = softmax over each row of m
    std::vector<double> t(6);
    for (int i = 0; i < 6; ++i) t[size_t(i)] = double(a[size_t(i)]) + double(b[size_t(i % 3)]);
    QCOMPARE(readFloats(dir + "/out/0.npy"), t);
    std::vector<double> y;
    for (int row = 0; row < 2; ++row) {
      const double m0 = t[size_t(3 * row)] + t[size_t(3 * row + 2)], m1 = t[size_t(3 * row + 1)] + t[size_t(3 * row + 2)];
      const double z = std::exp(m0) + std::exp(m1);
      y.push_back(std::exp(m0) / z);
      y.push_back(std::exp(m1) / z);
    }
    const auto got = readFloats(dir + "/out/1.npy");
    QCOMPARE(got.size(), y.size());
    for (size_t i = 0; i < y.size(); ++i) QVERIFY2(std::abs(got[i] - y[i]) < 1e-6, qPrintable(QString::number(got[i])));
    auto shape = exec::readNpyFile((dir + "/out/1.npy").toStdString());
    QVERIFY(shape.ok());
    QCOMPARE(shape->sizes, (std::vector<int64_t>{2, 2}));

    // The summary: dtype and shape, min/max/mean, and nothing left unexecuted.
    const QString out = QString::fromUtf8(r.out);
    QVERIFY2(out.contains("float32[2,3]") && out.contains("float32[2,2]"), qPrintable(out));
    QVERIFY2(out.contains("min -1  max 6  mean 2"), qPrintable(out));  // t = [1.5, 1, 5, -0.5, -1, 6]
    QVERIFY2(out.contains("3 instructions run, 0 not executed"), qPrintable(out));
    // A CPU-only method: nothing was emulated, and the line says where it ran.
    QVERIFY2(out.contains("· host CPU (the method uses no device memory)\n") && !out.contains("emulated"), qPrintable(out));
  }

  void randomInputsRepeatWithTheirSeed() {
    const QString dir = test::tempDir() + "/seeds";
    const std::pair<const char*, const char*> runs[] = {{"7", "a"}, {"7", "b"}, {"8", "c"}};
    for (const auto& [seed, name] : runs) {
      auto r = runCli({"run", program_, "--seed", seed, "--outputs", dir + "/" + name, "--runtime", "host"});
      QVERIFY2(r.exitCode == 0, r.err.constData());
    }
    QDir folder(dir);
    const auto entries = folder.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    QCOMPARE(entries.size(), 3);
    // a and b used seed 7, c seed 8
    const auto first = test::readAll(dir + "/" + entries[0] + "/0.npy");
    const auto second = test::readAll(dir + "/" + entries[1] + "/0.npy");
    const auto third = test::readAll(dir + "/" + entries[2] + "/0.npy");
    QVERIFY(!first.empty());
    QVERIFY(first == second);
    QVERIFY(first != third);
  }

  // A delegate ptescope cannot run is a step taken, not one run: the demo's
  // forward has two CudaBackend delegate calls among its instructions, and
  // the line counts the others as run (it said "8 instructions run, 2 not
  // executed"). One output file is "1 output file".
  void countsTheInstructionsThatRan() {
    const QString dir = test::tempDir() + "/demo-run";
    QVERIFY(QDir().mkpath(dir));
    const QString demo = dir + "/demo.pte";
    QCOMPARE(runCli({"synth", "--demo", "-o", demo}).exitCode, 0);
    const auto loaded = test::loadOrFail(demo);
    const auto& forward = loaded.program.methods().front();
    size_t all = 0, delegates = 0;
    for (const auto& chain : program::items(forward.chains))
      for (const auto& instruction : program::items(chain.instructions)) {
        ++all;
        if (instruction.kind() == program::InstructionKind::DelegateCall) ++delegates;
      }
    QVERIFY(delegates > 0 && all > delegates);
    auto r = runCli({"run", demo, "--outputs", dir + "/out", "--runtime", "host"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QString out = QString::fromUtf8(r.out);
    QVERIFY2(out.contains(QString("\n%1 instructions run, %2 not executed\n").arg(all - delegates).arg(delegates)), qPrintable(out));
    QVERIFY2(out.contains("wrote 1 output file to "), qPrintable(out));
    auto j = runCli({"run", demo, "--json", "--runtime", "host"});
    QVERIFY2(j.exitCode == 0, j.err.constData());
    const auto json = nlohmann::json::parse(j.out.toStdString());
    QCOMPARE(json["instructions"].get<size_t>(), all);
    QCOMPARE(json["instructions_run"].get<size_t>(), all - delegates);
  }

  void reportsWhatWasNotExecuted() {
    if (test::samplesDir().isEmpty()) QSKIP("samples folder absent");
    auto r = runCli({"run", test::samplePath("quantized-xnnpack.pte"), "--runtime", "host"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QString out = QString::fromUtf8(r.out);
    QVERIFY2(out.contains("1 not executed") && out.contains("XnnpackBackend"), qPrintable(out));
  }

  // Each output says whether every kernel behind it is proven bit-exact by
  // the differential record (tests/oracle/record.tsv): add, mm and _softmax
  // of float32 are `same` there in every class; linear.out is
  // `oracle-refused` (the portable library has no such kernel).
  void saysWhichOutputsAreBitExact() {
    auto r = runCli({"run", program_, "--runtime", "host"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(QString::fromUtf8(r.out).count("       bit-exact with the runtime\n"), 2);

    auto j = runCli({"run", program_, "--runtime", "host", "--json"});
    QVERIFY2(j.exitCode == 0, j.err.constData());
    const auto json = nlohmann::json::parse(j.out.toStdString());
    QCOMPARE(json["method"].get<std::string>(), std::string("forward"));
    QCOMPARE(json["outputs"].size(), size_t(2));
    for (const auto& o : json["outputs"]) {
      QCOMPARE(o["bit_exact"].get<bool>(), true);
      QCOMPARE(o["bit_exact_text"].get<std::string>(), std::string("bit-exact with the runtime"));
      QCOMPARE(o["dtype"].get<std::string>(), std::string("float32"));
    }
    QCOMPARE(json["outputs"][0]["sizes"], nlohmann::json({2, 3}));

    // y = relu(linear(x, w, b)): linear.out is not proven, so y is not.
    const QString dir = test::tempDir();
    const std::string spec = R"({"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["y"],
      "tensors": {"x": {"dtype": "float32", "sizes": [2, 3]}, "l": {"dtype": "float32", "sizes": [2, 2]},
                  "y": {"dtype": "float32", "sizes": [2, 2]}},
      "constants": {"w": {"dtype": "float32", "sizes": [2, 3], "fill": 0.5}, "b": {"dtype": "float32", "sizes": [2], "fill": 1}},
      "nodes": [{"op": "aten::linear.out", "inputs": ["x", "w", "b"], "outputs": ["l"]},
                {"op": "aten::relu.out", "inputs": ["l"], "outputs": ["y"]}]}]})";
    test::writeAll(dir + "/linear.json", std::vector<uint8_t>(spec.begin(), spec.end()));
    auto made = runCli({"synth", dir + "/linear.json", "-o", dir + "/linear.pte", "--no-passes"});
    QVERIFY2(made.exitCode == 0, made.err.constData());
    auto l = runCli({"run", dir + "/linear.pte", "--runtime", "host"});
    QVERIFY2(l.exitCode == 0, l.err.constData());
    QVERIFY2(l.out.contains("       not proven: aten::linear.out (float32) the runtime refuses it (with bias), ptescope computes it\n"),
             l.out.constData());
    auto lj = runCli({"run", dir + "/linear.pte", "--runtime", "host", "--json"});
    QVERIFY2(lj.exitCode == 0, lj.err.constData());
    const auto linear = nlohmann::json::parse(lj.out.toStdString());
    QCOMPARE(linear["outputs"][0]["bit_exact"].get<bool>(), false);
    QCOMPARE(linear["outputs"][0]["not_proven"].size(), size_t(1));
    QCOMPARE(linear["outputs"][0]["not_proven"][0]["instruction"].get<int>(), 0);
    QCOMPARE(linear["outputs"][0]["not_proven"][0]["kernel"].get<std::string>(), std::string("aten::linear.out"));

    // --json prints one object: the runner's comparison is text, so not both.
    test::expectOneLineCliError(runCli({"run", program_, "--runtime", "host", "--json", "--runner", "/bin/true"}));
  }

  void badInputIsOneLine() {
    test::expectOneLineCliError(runCli({"run", test::tempDir() + "/missing.pte"}));
    test::expectOneLineCliError(runCli({"run", program_, "--method", "nope"}));
    test::expectOneLineCliError(runCli({"run", program_, "--inputs", test::tempDir() + "/no-such-folder", "--runtime", "host"}));
    const QString file = test::tempDir() + "/a-file";
    test::writeAll(file, {1, 2, 3});
    test::expectOneLineCliError(runCli({"run", program_, "--outputs", file, "--runtime", "host"}));
    // An input of the wrong dtype names the file.
    const QString dir = test::tempDir() + "/wrong";
    QVERIFY(QDir().mkpath(dir));
    exec::HostTensor ints;
    ints.dtype = program::ScalarType::Int;
    ints.sizes = {2, 3};
    ints.bytes.assign(24, 0);
    test::writeAll(dir + "/0.npy", exec::encodeNpy(ints));
    test::writeAll(dir + "/1.npy", exec::encodeNpy(floats({3}, {1, 2, 3})));
    auto r = runCli({"run", program_, "--inputs", dir, "--runtime", "host"});
    test::expectOneLineCliError(r);
    QVERIFY(r.err.contains("0.npy"));
  }
};

QTEST_GUILESS_MAIN(CliRunTest)
#include "test_cli_run.moc"
