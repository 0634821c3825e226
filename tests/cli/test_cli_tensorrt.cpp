// TensorRT programs on the command line: `synth` writes a TensorRTBackend
// delegate from a spec, `info` (text and JSON) shows its blob, `lint` flags
// a blob device that disagrees with target_device.
#include <QtTest>

#include <QDir>
#include <QFile>

#include <nlohmann/json.hpp>

#include "support/TestSupport.h"

using namespace ptescope;

namespace {

// x [2, 8] float32 -> TensorRTBackend (engine "engine-bytes", device_id 1,
// hardware_compatible) -> y, on target_device `target`.
QString writeSpec(const QString& dir, const QString& target) {
  const QString path = QDir(dir).filePath("trt_" + QString(target).replace(':', '_') + ".json");
  const std::string spec = R"({"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["y"],
    "tensors": {"x": {"dtype": "float32", "sizes": [2, 8]}, "y": {"dtype": "float32", "sizes": [2, 8]}},
    "nodes": [{"delegate": "TensorRTBackend", "compile_specs": {"target_device": ")" +
                           target.toStdString() + R"("},
               "tensorrt": {"engine": "engine-bytes", "device_id": 1, "hardware_compatible": true},
               "inputs": ["x"], "outputs": ["y"]}]}]})";
  test::writeAll(path, std::vector<uint8_t>(spec.begin(), spec.end()));
  return path;
}

}  // namespace

class CliTensorRTTest : public QObject {
  Q_OBJECT

 private slots:
  void infoShowsTheBlob() {
    const QString dir = QDir(test::tempDir()).filePath("tensorrt_info");
    QDir().mkpath(dir);
    const QString pte = QDir(dir).filePath("trt.pte");
    auto synth = test::runCli({"synth", writeSpec(dir, "cuda:1"), "-o", pte});
    QVERIFY2(synth.exitCode == 0, qPrintable(synth.err));

    auto info = test::runCli({"info", "--json", pte});
    QCOMPARE(info.exitCode, 0);
    const auto j = nlohmann::json::parse(info.out.toStdString());
    const auto& payload = j["methods"][0]["delegates"][0]["payload"];
    QCOMPARE(payload["format"].get<std::string>(), std::string("tensorrt"));
    QCOMPARE(payload["magic"].get<std::string>(), std::string("TR01"));
    // serialize_engine: metadata at 32, 223 bytes of JSON (see
    // tests/core/test_tensorrt.cpp), engine at the next multiple of 16.
    QCOMPARE(payload["metadata_offset"].get<int>(), 32);
    QCOMPARE(payload["metadata_bytes"].get<int>(), 223);
    QCOMPARE(payload["engine_offset"].get<int>(), 256);
    QCOMPARE(payload["engine_bytes"].get<int>(), 12);  // len("engine-bytes")
    QCOMPARE(payload["device_id"].get<int>(), 1);
    QCOMPARE(payload["hardware_compatible"].get<bool>(), true);
    QCOMPARE(payload["inputs"][0]["name"].get<std::string>(), std::string("x"));
    QCOMPARE(payload["outputs"][0]["name"].get<std::string>(), std::string("y"));
    QVERIFY(payload["aliased_io"].empty());

    auto text = test::runCli({"info", pte});
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("payload: TensorRT engine 12 bytes at offset 256 (TR01, metadata 223 bytes), device_id 1, "
                               "hardware_compatible yes"),
             qPrintable(text.out));
    QVERIFY(text.out.contains("inputs: x"));
    QVERIFY(text.out.contains("outputs: y"));

    // target_device cuda:1 = device_id 1: no finding about the blob.
    auto lint = test::runCli({"lint", "--json", pte});
    QVERIFY(!lint.out.contains("PTS016"));
  }

  void lintFlagsTheDeviceMismatch() {
    const QString dir = QDir(test::tempDir()).filePath("tensorrt_lint");
    QDir().mkpath(dir);
    const QString pte = QDir(dir).filePath("trt.pte");
    QCOMPARE(test::runCli({"synth", writeSpec(dir, "cuda:0"), "-o", pte}).exitCode, 0);
    auto lint = test::runCli({"lint", pte});
    QVERIFY2(lint.out.contains("PTS016"), qPrintable(lint.out));
    QVERIFY(lint.out.contains("the engine runs on cuda:1 (blob device_id) but target_device is cuda:0"));
  }
};

QTEST_GUILESS_MAIN(CliTensorRTTest)
#include "test_cli_tensorrt.moc"
