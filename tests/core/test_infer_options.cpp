// The options read off a file when it cannot tell (issue 26, item 5): a
// method exported with both skips and unplanned graph IO has no copies and
// no device buffers, as legacy mode (device planning off) would have; but
// legacy mode plans its device-tagged tensors in CPU buffers, and here none
// is planned. ptescope takes upstream's current default (planning on), so
// the skips the file has are accepted again by propagate.
#include <QtTest>

#include "passes/Pipeline.h"
#include "pte/Reader.h"
#include "support/TestSupport.h"

using namespace ptescope;

class InferOptionsTest : public QObject {
  Q_OBJECT
 private slots:
  void bothSkipsWithUnplannedIoInferPlanningOn() {
    const QString file = test::tempDir() + "/skip_both_unplanned_io.pte";
    QCOMPARE(test::runCli({"synth", "--scenario", "skip_both_unplanned_io", "-o", file}).exitCode, 0);
    auto loaded = pte::readProgramFile(file.toStdString());
    QVERIFY(loaded.ok());
    const auto options = passes::inferDeviceOptions(loaded->program.methods().front());
    QVERIFY(options.enable_non_cpu_memory_planning);
    QVERIFY(options.skip_h2d_for_method_inputs);
    QVERIFY(options.skip_d2h_for_method_outputs);
    QVERIFY(!options.alloc_graph_input);
    QVERIFY(!options.alloc_graph_output);
    // Asking for the skips the file has is no error (it was upstream's
    // "only meaningful when enable_non_cpu_memory_planning=True").
    const QString out = test::tempDir() + "/skip_both_again.pte";
    auto r = test::runCli({"propagate", file, "-o", out, "--skip-h2d-inputs", "--skip-d2h-outputs"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    // ... and propagate says the option was guessed, and why.
    QVERIFY(!passes::planningInferenceNote(loaded->program.methods().front()).empty());
    QVERIFY2(r.out.contains("note: enable_non_cpu_memory_planning inferred on"), r.out.constData());
    auto json = test::runCli({"propagate", file, "-o", out, "--json"});
    QCOMPARE(json.exitCode, 0);
    QVERIFY(json.out.contains("\"options_note\""));
    // info says the same before anything is edited (text and JSON).
    auto info = test::runCli({"info", file});
    QCOMPARE(info.exitCode, 0);
    QVERIFY2(info.out.contains("note: enable_non_cpu_memory_planning inferred on"), info.out.constData());
    auto infoJson = test::runCli({"info", file, "--json"});
    QCOMPARE(infoJson.exitCode, 0);
    const auto parsed = nlohmann::json::parse(infoJson.out.toStdString());
    QVERIFY(parsed["methods"][0].contains("options_note"));
  }

  void legacyModeStaysLegacy() {
    const QString file = test::tempDir() + "/no_device_planning.pte";
    QCOMPARE(test::runCli({"synth", "--scenario", "no_device_planning", "-o", file}).exitCode, 0);
    auto loaded = pte::readProgramFile(file.toStdString());
    QVERIFY(loaded.ok());
    QVERIFY(!passes::inferDeviceOptions(loaded->program.methods().front()).enable_non_cpu_memory_planning);
    QVERIFY(passes::planningInferenceNote(loaded->program.methods().front()).empty());  // legacy is not a guess
    QVERIFY(!test::runCli({"info", file}).out.contains("inferred"));
    QVERIFY(!nlohmann::json::parse(test::runCli({"info", file, "--json"}).out.toStdString())["methods"][0].contains("options_note"));
    // A skip on a legacy-mode file is upstream's error, and the CLI names the
    // flag that turns planning on.
    auto r = test::runCli({"propagate", file, "-o", test::tempDir() + "/legacy-skip.pte", "--skip-h2d-inputs"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("only meaningful when enable_non_cpu_memory_planning"), r.err.constData());
    QVERIFY2(r.err.contains("add --device-planning"), r.err.constData());
    QCOMPARE(r.err.count('\n'), 1);
  }
};

QTEST_MAIN(InferOptionsTest)
#include "test_infer_options.moc"
