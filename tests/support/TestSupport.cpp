#include "support/TestSupport.h"

#include "synth/ProgramBuilder.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cctype>
#include <cmath>
#include <memory>

namespace ptescope::test {

QString samplesDir() {
  QDir dir(QStringLiteral(PTESCOPE_SAMPLES_DIR));
  return dir.exists() ? dir.absolutePath() : QString();
}

QStringList samplePrograms() {
  const QString dir = samplesDir();
  if (dir.isEmpty()) return {};
  QStringList out;
  for (const QString& name : QDir(dir).entryList({"*.pte"}, QDir::Files, QDir::Name))
    if (name != "bad-corrupt.pte") out << QDir(dir).filePath(name);
  return out;
}

QString samplePath(const QString& name) { return QDir(samplesDir()).filePath(name); }

pte::LoadedProgram loadOrFail(const QString& path) {
  auto loaded = pte::readProgramFile(path.toStdString());
  if (!loaded) {
    QTest::qFail(qPrintable("cannot load " + path + ": " + QString::fromStdString(loaded.error().message)),
                 __FILE__, __LINE__);
    return {};
  }
  return std::move(loaded.value());
}

ProcessResult runProcess(const QString& program, const QStringList& args, int timeoutMs) {
  QProcess process;
  process.start(program, args);
  ProcessResult result;
  if (!process.waitForStarted(timeoutMs)) {
    result.err = "could not start " + program.toUtf8();
    return result;
  }
  process.closeWriteChannel();
  if (!process.waitForFinished(timeoutMs)) {
    process.kill();
    process.waitForFinished();
    result.err = "timed out";
    return result;
  }
  result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
  result.out = process.readAllStandardOutput();
  result.err = process.readAllStandardError();
  return result;
}

ProcessResult runCli(const QStringList& args, int timeoutMs) {
  return runProcess(QStringLiteral(PTESCOPE_CLI), args, timeoutMs);
}

void expectOneLineCliError(const ProcessResult& r) {
  QCOMPARE(r.exitCode, 2);
  QVERIFY2(r.err.startsWith("ptescope-cli: "), r.err.constData());
  QCOMPARE(r.err.count('\n'), 1);
  QVERIFY(r.err.endsWith('\n'));
  QVERIFY2(r.out.isEmpty(), r.out.constData());
}

QString tempDir() {
  static std::unique_ptr<QTemporaryDir> dir;
  if (!dir) dir = std::make_unique<QTemporaryDir>();
  return dir->path();
}

std::vector<uint8_t> readAll(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  const QByteArray data = f.readAll();
  return std::vector<uint8_t>(data.begin(), data.end());
}

void writeAll(const QString& path, const std::vector<uint8_t>& data) {
  QFile f(path);
  if (f.open(QIODevice::WriteOnly | QIODevice::Truncate))
    f.write(reinterpret_cast<const char*>(data.data()), static_cast<qint64>(data.size()));
}

QByteArray withoutWhitespace(const QByteArray& text) {
  QByteArray out;
  out.reserve(text.size());
  for (char c : text)
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') out.append(c);
  return out;
}

std::optional<double> microsAfter(const QByteArray& text, const QByteArray& prefix) {
  const qsizetype at = text.indexOf(prefix);
  if (at < 0) return std::nullopt;
  qsizetype i = at + prefix.size();
  qsizetype end = i;
  while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
  if (end == i) return std::nullopt;
  bool ok = false;
  const double number = text.mid(i, end - i).toDouble(&ok);
  if (!ok) return std::nullopt;
  if (number == 0 && !text.mid(end).startsWith(" ")) return 0.0;
  const QByteArray rest = text.mid(end);
  if (rest.startsWith(" ns")) return number / 1000;
  if (rest.startsWith(" \xC2\xB5s")) return number;
  if (rest.startsWith(" ms")) return number * 1000;
  if (rest.startsWith(" s")) return number * 1e6;
  return number == 0 ? std::optional<double>(0.0) : std::nullopt;
}

bool sameToThreeDigits(double shownMicros, double wantMicros) {
  if (wantMicros == 0) return shownMicros == 0;
  // Three significant digits: half a unit of the third digit of WANT.
  const double magnitude = std::pow(10.0, std::floor(std::log10(std::abs(wantMicros))) - 2);
  return std::abs(shownMicros - wantMicros) <= 0.5 * magnitude * (1 + 1e-9) + 1e-9;
}

program::Tensor floatTensor(std::vector<int32_t> sizes) {
  program::Tensor t;
  t.scalar_type = program::ScalarType::Float;
  t.dim_order = std::vector<uint8_t>(sizes.size());
  for (size_t i = 0; i < sizes.size(); ++i) (*t.dim_order)[i] = static_cast<uint8_t>(i);
  t.sizes = std::move(sizes);
  return t;
}

const char* const kTensorRTStagingSpec = R"({"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["z"],
  "tensors": {"x": {"dtype": "float32", "sizes": [2, 8]}, "r": {"dtype": "float32", "sizes": [2, 8]},
              "y": {"dtype": "float32", "sizes": [2, 8]}, "z": {"dtype": "float32", "sizes": [2, 8]}},
  "nodes": [{"op": "aten::relu.out", "inputs": ["x"], "outputs": ["r"]},
            {"delegate": "TensorRTBackend", "compile_specs": {"target_device": "cuda:0"},
             "tensorrt": {"engine": "e"}, "inputs": ["r"], "outputs": ["y"]},
            {"op": "aten::relu.out", "inputs": ["y"], "outputs": ["z"]}]}],
  "options": {"enable_non_cpu_memory_planning": false}})";

const char* const kIssue3SpecExample = R"({
    "methods": [{
      "name": "forward",
      "inputs": ["a", "b"],
      "outputs": ["y"],
      "tensors": {"a": {"dtype": "float32", "sizes": [2, 2]},
                  "b": {"dtype": "float32", "sizes": [2, 2]},
                  "t": {"dtype": "float32", "sizes": [2, 2]},
                  "y": {"dtype": "float32", "sizes": [2, 2]}},
      "constants": {"w": {"dtype": "float32", "sizes": [2, 2], "fill": 0.5}},
      "nodes": [
        {"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:0"},
         "inputs": ["a", "b"], "outputs": ["t"]},
        {"op": "aten::relu.out", "inputs": ["t"], "outputs": ["y"]}
      ]
    }],
    "options": {"enable_non_cpu_memory_planning": true,
                "skip_h2d_for_method_inputs": false,
                "skip_d2h_for_method_outputs": false,
                "alloc_graph_input": true, "alloc_graph_output": true}
  })";

program::Program upstreamOrderedAddProgram() {
  synth::ProgramBuilder builder;
  auto& m = builder.addMethod("forward");
  const auto f32 = program::ScalarType::Float;
  const auto a = m.addTensor(f32, {2, 2}), b = m.addTensor(f32, {2, 2});
  const auto aDevice = m.addTensor(f32, {2, 2}), bDevice = m.addTensor(f32, {2, 2});
  const auto yDevice = m.addTensor(f32, {2, 2}), y = m.addTensor(f32, {2, 2});
  const program::Device cuda{program::DeviceType::Cuda, 0};
  for (auto v : {aDevice, bDevice, yDevice}) m.setDevice(v, cuda);
  m.addKernelCall("et_copy::_h2d_copy.out", {a}, {aDevice});
  m.addKernelCall("et_copy::_h2d_copy.out", {b}, {bDevice});
  m.addDelegateCall("CudaBackend", {synth::textCompileSpec("target_device", "cuda:0")}, {1, 2, 3}, {aDevice, bDevice},
                    {yDevice});
  m.addKernelCall("et_copy::_d2h_copy.out", {yDevice}, {y});
  m.setInputs({a, b});
  m.setOutputs({y});
  synth::BuildOptions options;
  options.planning.enable_non_cpu_memory_planning = true;
  auto built = builder.build(options);
  if (!built) qFatal("upstreamOrderedAddProgram: %s", built.error().message.c_str());
  return std::move(built.value());
}

}  // namespace ptescope::test
