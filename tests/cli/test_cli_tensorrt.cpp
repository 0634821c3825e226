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

// Legacy mode (device planning off): x -> TensorRTBackend on cuda:0 -> y,
// both 2×8 float32 (64 B) in host memory. Returns the .pte in `dir`.
QString writeLegacy(const QString& dir) {
  QDir().mkpath(dir);
  const QString spec = QDir(dir).filePath("legacy.json");
  const std::string text = R"({"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["y"],
    "tensors": {"x": {"dtype": "float32", "sizes": [2, 8]}, "y": {"dtype": "float32", "sizes": [2, 8]}},
    "nodes": [{"delegate": "TensorRTBackend", "compile_specs": {"target_device": "cuda:0"},
               "tensorrt": {"engine": "e"}, "inputs": ["x"], "outputs": ["y"]}]}],
    "options": {"enable_non_cpu_memory_planning": false}})";
  test::writeAll(spec, std::vector<uint8_t>(text.begin(), text.end()));
  const QString pte = QDir(dir).filePath("legacy.pte");
  const auto synth = test::runCli({"synth", spec, "-o", pte});
  if (synth.exitCode != 0) qWarning("synth: %s", qPrintable(synth.err));
  return pte;
}

QString readText(const QString& path) {
  const auto bytes = test::readAll(path);
  return QString::fromUtf8(reinterpret_cast<const char*>(bytes.data()), qsizetype(bytes.size()));
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

  // Legacy mode (device planning off): x and y (2×8 float32, 64 B each)
  // are staged inside the delegate, x host-to-device, y device-to-host
  // (TensorRTBackend.cpp 720-745, 883-900): 128 B per call that info,
  // predict, advise and lint count as their own kind.
  void copiesInsideDelegatesEverywhere() {
    const QString dir = QDir(test::tempDir()).filePath("tensorrt_inside");
    const QString pte = writeLegacy(dir);

    auto info = test::runCli({"info", pte});
    QVERIFY2(info.out.contains("copies inside delegates (no instruction): 1 host-to-device, 1 device-to-host, 0 "
                               "device-to-device, 128 B per call"),
             qPrintable(info.out));
    QVERIFY(info.out.contains("inside delegate 0 (TensorRTBackend): input %0 is host memory, staged host-to-device "
                              "(TensorRTBackend.cpp 720-745), 64 B"));

    auto predict = test::runCli({"predict", "--json", pte});
    QCOMPARE(predict.exitCode, 0);
    const auto p = nlohmann::json::parse(predict.out.toStdString());
    QCOMPARE(p["totals"]["h2d"]["copies"].get<int>(), 0);  // no et_copy in legacy mode
    QCOMPARE(p["totals"]["inside_delegates"]["h2d"]["copies"].get<int>(), 1);
    QCOMPARE(p["totals"]["inside_delegates"]["h2d"]["bytes"].get<int>(), 64);
    QCOMPARE(p["totals"]["inside_delegates"]["d2h"]["copies"].get<int>(), 1);
    QCOMPARE(p["delegate_copies"]["transfers"][1]["upstream"].get<std::string>(),
             std::string("TensorRTBackend.cpp 883-900, 957-973"));
    QVERIFY(p["copy_us"].get<double>() > 0);  // the staged copies are copy time
    auto predictText = test::runCli({"predict", pte});
    QVERIFY2(predictText.out.contains("h2d inside delegates: 1 copy, 64 B"), qPrintable(predictText.out));

    auto advise = test::runCli({"advise", "--json", pte});
    QCOMPARE(advise.exitCode, 0);
    QVERIFY2(advise.out.contains("\"inside_delegates\""), qPrintable(advise.out));

    auto lint = test::runCli({"lint", pte});
    QVERIFY(lint.out.contains("PTS019"));
    QVERIFY(!lint.out.contains("PTS003"));

    // propagate with device planning on turns the staging into et_copy
    // instructions of the same bytes on the same link: the predicted copy
    // time does not change.
    auto planned = test::runCli({"propagate", pte, "-o", QDir(dir).filePath("planned.pte"), "--device-planning"});
    QVERIFY2(planned.exitCode == 0, qPrintable(planned.err));
    QVERIFY2(planned.out.contains("\xC2\xB5s (no change)"), qPrintable(planned.out));
    QVERIFY(!planned.out.contains(": 0 ->"));

    // report: the blob under the delegate, the copies in a table of their own.
    const QString html = QDir(dir).filePath("legacy.html");
    auto report = test::runCli({"report", pte, "-o", html});
    QVERIFY2(report.exitCode == 0, qPrintable(report.err));
    const QString page = readText(html);
    QVERIFY(page.contains("2 copies inside delegates per call (no instruction), 128 B"));
    QVERIFY(page.contains("delegate 0: TensorRT engine 1 B (TR01), device_id 0, 1 inputs, 1 outputs, 0 aliased"));
    QVERIFY(page.contains("inside delegate 0 (TensorRTBackend)"));

    // profile times each copy inside the delegate after the run, once per
    // measured iteration, on the run's runtime (host: emulated). The method
    // input goes through a CPU kernel first: set_input refuses a planned
    // input that legacy mode tagged cuda:0 (RT001), as above lint PTS001.
    const QString spec2 = QDir(dir).filePath("legacy2.json");
    const std::string text2 = test::kTensorRTStagingSpec;
    test::writeAll(spec2, std::vector<uint8_t>(text2.begin(), text2.end()));
    const QString pte2 = QDir(dir).filePath("legacy2.pte");
    QCOMPARE(test::runCli({"synth", spec2, "-o", pte2}).exitCode, 0);
    QCOMPARE(test::runCli({"lint", pte2}).exitCode, 0);  // runs: no error-level finding
    const QString json = QDir(dir).filePath("profile.json");
    auto profile = test::runCli({"profile", "--runtime", "host", "--iterations", "3", "--warmup", "0", "--json", json, pte2});
    QVERIFY2(profile.exitCode == 0, qPrintable(profile.err));
    QVERIFY2(profile.out.contains("copies inside delegates (no instruction"), qPrintable(profile.out));
    const auto written = nlohmann::json::parse(test::readAll(json));
    const auto& inside = written["delegate_copies"];
    QCOMPARE(inside.size(), size_t(2));
    QCOMPARE(inside[0]["direction"].get<std::string>(), std::string("h2d"));
    QCOMPARE(inside[0]["bytes"].get<int>(), 64);
    QCOMPARE(inside[1]["direction"].get<std::string>(), std::string("d2h"));
    QVERIFY(inside[0].contains("median_us"));
  }

  // render draws the copies inside delegates as the app's graph does
  // (layout::markDelegateCopies): the legacy program stages x host-to-device
  // (TensorRTBackend.cpp 720-745) and y device-to-host (883-900), 64 B each,
  // so its SVG carries both badges in the marks' purple; with device
  // planning on, et_copy instructions move the same bytes and nothing is
  // staged: no mark.
  void renderMarksCopiesInsideDelegates() {
    const QString dir = QDir(test::tempDir()).filePath("tensorrt_render");
    const QString pte = writeLegacy(dir);
    const QString svg = QDir(dir).filePath("legacy.svg");
    auto render = test::runCli({"render", pte, "-o", svg});
    QVERIFY2(render.exitCode == 0, qPrintable(render.err));
    QVERIFY2(render.err.contains("2 copies inside delegates marked"), qPrintable(render.err));
    const QString picture = readText(svg);
    QVERIFY2(picture.contains("inside delegate 0: h2d 64 B"), qPrintable(picture.left(4000)));
    QVERIFY(picture.contains("inside delegate 0: d2h 64 B"));
    QVERIFY(picture.contains("fill=\"#7b1fa2\""));  // the badge's text colour
    // The whole line with the upstream lines, in the edge's tooltip (SVG
    // writes '-' as &#45;).
    QVERIFY(picture.contains("staged host&#45;to&#45;device (TensorRTBackend.cpp 720&#45;745), 64 B"));
    // The DOT: the input's badge at the edge's head (the delegate's end),
    // the output's at its tail.
    const QString dot = QDir(dir).filePath("legacy.dot");
    QCOMPARE(test::runCli({"render", pte, "-o", dot}).exitCode, 0);
    const QString dotText = readText(dot);
    QVERIFY2(dotText.contains(QString::fromUtf8("headlabel=\"\u25c6 inside delegate 0: h2d 64 B\"")), qPrintable(dotText));
    QVERIFY(dotText.contains(QString::fromUtf8("taillabel=\"\u25c6 inside delegate 0: d2h 64 B\"")));

    // No staging, no mark.
    const QString planned = QDir(dir).filePath("planned.pte");
    QCOMPARE(test::runCli({"propagate", pte, "-o", planned, "--device-planning"}).exitCode, 0);
    const QString plannedSvg = QDir(dir).filePath("planned.svg");
    auto plain = test::runCli({"render", planned, "-o", plannedSvg});
    QVERIFY2(plain.exitCode == 0, qPrintable(plain.err));
    QVERIFY(!plain.err.contains("inside delegates"));
    const QString plainPicture = readText(plannedSvg);
    QVERIFY(plainPicture.contains("h2d"));  // the et_copy node that replaced the staging
    QVERIFY(!plainPicture.contains("inside delegate"));
    QVERIFY(!plainPicture.contains("#7b1fa2"));

    // CUDA graph replay is a setting of the run: render --cuda-graph marks
    // its device-to-device copies (cuda_backend.cpp 573-610).
    const QString demo = QDir(dir).filePath("demo.pte");
    QCOMPARE(test::runCli({"synth", "--demo", "-o", demo}).exitCode, 0);
    const QString off = QDir(dir).filePath("off.svg"), on = QDir(dir).filePath("on.svg");
    QCOMPARE(test::runCli({"render", demo, "--method", "prefill", "-o", off}).exitCode, 0);
    auto replay = test::runCli({"render", demo, "--method", "prefill", "--cuda-graph", "prefill", "-o", on});
    QVERIFY2(replay.exitCode == 0, qPrintable(replay.err));
    QVERIFY(!readText(off).contains("inside delegate"));
    QVERIFY2(readText(on).contains("d2d"), qPrintable(replay.err));
    QVERIFY(readText(on).contains("(CUDA graph replay)"));
    auto bad = test::runCli({"render", demo, "--cuda-graph", "decode", "-o", on});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("--cuda-graph: the program has no method 'decode'"), qPrintable(bad.err));
  }

  void cudaGraphOption() {
    const QString dir = QDir(test::tempDir()).filePath("tensorrt_graph");
    QDir().mkpath(dir);
    const QString pte = QDir(dir).filePath("demo.pte");
    QCOMPARE(test::runCli({"synth", "--demo", "-o", pte}).exitCode, 0);
    auto off = test::runCli({"predict", "--json", "--method", "prefill", pte});
    auto on = test::runCli({"predict", "--json", "--method", "prefill", "--cuda-graph", "prefill", pte});
    QCOMPARE(on.exitCode, 0);
    const auto a = nlohmann::json::parse(off.out.toStdString());
    const auto b = nlohmann::json::parse(on.out.toStdString());
    QCOMPARE(a["totals"]["inside_delegates"]["d2d"]["copies"].get<int>(), 0);
    QVERIFY(b["totals"]["inside_delegates"]["d2d"]["copies"].get<int>() > 0);
    QVERIFY(b["copy_us"].get<double>() > a["copy_us"].get<double>());
    // profile: the replay copies are timed too (d2d on the emulated device).
    const QString json = QDir(dir).filePath("graph.json");
    auto profile = test::runCli({"profile", "--runtime", "host", "--iterations", "1", "--warmup", "0", "--method", "prefill",
                                 "--cuda-graph", "prefill", "--json", json, pte});
    QVERIFY2(profile.exitCode == 0, qPrintable(profile.err));
    const auto timed = nlohmann::json::parse(test::readAll(json))["delegate_copies"];
    QVERIFY(!timed.empty());
    for (const auto& c : timed) QCOMPARE(c["direction"].get<std::string>(), std::string("d2d"));
    QCOMPARE(test::runCli({"report", "--cuda-graph", "decode", pte, "-o", QDir(dir).filePath("r.html")}).exitCode, 2);
    // A method the program does not have: one line, exit 2.
    auto bad = test::runCli({"predict", "--cuda-graph", "decode", pte});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.contains("--cuda-graph: the program has no method 'decode' (it has forward, prefill)"), qPrintable(bad.err));
  }
};

QTEST_GUILESS_MAIN(CliTensorRTTest)
#include "test_cli_tensorrt.moc"
