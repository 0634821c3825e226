// `run` with a String among a method's outputs (issue 26, item 6): the text
// prints its value (quoted, escaped, on one line) and --outputs writes it as
// <i>.txt beside the .npy files.
#include <QtTest>

#include <QDir>
#include <QFile>

#include "exec/HostRuntime.h"
#include "exec/RunOnce.h"
#include "report/RunText.h"
#include "support/TestSupport.h"
#include "synth/ProgramBuilder.h"
#include "synth/Scenarios.h"

using namespace ptescope;

class RunStringOutputTest : public QObject {
  Q_OBJECT
 private slots:
  void stringOutputsPrintAndWrite() {
    const std::string text = "tokenizer \"v2\"\nline two\\";
    synth::ProgramBuilder builder;
    auto& m = builder.addMethod("forward");
    auto x = m.addTensor(program::ScalarType::Float, {4});
    auto y = m.addTensor(program::ScalarType::Float, {4});
    auto s = m.addString(text);
    m.addKernelCall("aten::relu.out", {x}, {y});
    m.setInputs({x});
    m.setOutputs({y, s});
    auto program = builder.build();
    QVERIFY2(program.ok(), program.ok() ? "" : program.error().message.c_str());

    exec::HostRuntime runtime;
    auto result = exec::runMethodOnce(program.value(), runtime, {});
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    QCOMPARE(result->outputs.size(), size_t(2));
    QCOMPARE(report::outputDescription(result->outputs[1]), std::string("String \"tokenizer \\\"v2\\\"\\nline two\\\\\""));
    const std::string summary = report::runText(result.value(), "p.pte");
    QVERIFY(summary.find("String \"tokenizer") != std::string::npos);

    const QString dir = test::tempDir() + "/run-string-outputs";
    QDir(dir).removeRecursively();
    auto written = exec::writeOutputsAsNpy(result.value(), dir.toStdString());
    QVERIFY(written.ok());
    QCOMPARE(written->size(), size_t(2));
    QVERIFY(QFile::exists(dir + "/0.npy"));
    QFile txt(dir + "/1.txt");
    QVERIFY(txt.open(QIODevice::ReadOnly));
    QCOMPARE(txt.readAll().toStdString(), text);
  }

  // Emulation stands in for device memory only: a method that uses none
  // ran on the host as anywhere, and Run Once must not say "device memory
  // emulated" about it (issue 34: the Outputs header said so on a CPU-only
  // program). The demo, with device-planned buffers, still says it.
  void emulatedOnlyWhereDeviceMemoryIs() {
    synth::ProgramBuilder builder;
    auto& m = builder.addMethod("forward");
    auto x = m.addTensor(program::ScalarType::Float, {4});
    auto y = m.addTensor(program::ScalarType::Float, {4});
    m.addKernelCall("aten::relu.out", {x}, {y});
    m.setInputs({x});
    m.setOutputs({y});
    auto cpuOnly = builder.build();
    QVERIFY(cpuOnly.ok());
    exec::HostRuntime runtime;
    auto cpuRun = exec::runMethodOnce(cpuOnly.value(), runtime, {});
    QVERIFY2(cpuRun.ok(), cpuRun.ok() ? "" : cpuRun.error().message.c_str());
    QVERIFY(!cpuRun->emulated);
    QCOMPARE(cpuRun->runtime, std::string("host CPU (the method uses no device memory)"));
    const std::string cpuText = report::runText(cpuRun.value(), "cpu.pte");
    QVERIFY2(cpuText.find("emulated") == std::string::npos, cpuText.c_str());

    auto demo = synth::synthesizeDemo();
    QVERIFY(demo.ok());
    auto planned = synth::applyDevicePasses(demo.value());
    QVERIFY(planned.ok());
    auto demoRun = exec::runMethodOnce(planned.value(), runtime, {});
    QVERIFY2(demoRun.ok(), demoRun.ok() ? "" : demoRun.error().message.c_str());
    QVERIFY(demoRun->emulated);
    QCOMPARE(demoRun->runtime, std::string("host (emulated)"));
    const std::string demoText = report::runText(demoRun.value(), "demo.pte");
    QVERIFY2(demoText.find("device memory is emulated in host memory") != std::string::npos, demoText.c_str());
  }
};

QTEST_APPLESS_MAIN(RunStringOutputTest)
#include "test_run_string_output.moc"
