// runner/ExternalRunner: output comparison and the honest-time marks by
// hand, and runWithRunner against the executor_runner stand-in
// (tests/runner-standin, not ExecuTorch) on a program it must write first.
#include <QtTest>

#include <QDir>
#include <QTemporaryDir>

#include <cstring>

#include "exec/HostRuntime.h"
#include "exec/RunOnce.h"
#include "runner/ExternalRunner.h"
#include "support/TestSupport.h"
#include "synth/JsonSpec.h"
#include "synth/Scenarios.h"

using namespace ptescope;

namespace {

std::vector<uint8_t> floats(std::initializer_list<float> values) {
  std::vector<uint8_t> out(values.size() * 4);
  size_t i = 0;
  for (float v : values) std::memcpy(out.data() + 4 * i++, &v, 4);
  return out;
}

// y = relu(x + c) on the CPU: a program ptescope runs whole.
const char* const kCpuSpec = R"({
  "methods": [{
    "name": "forward", "inputs": ["x"], "outputs": ["y"],
    "tensors": {"x": {"dtype": "float32", "sizes": [2, 3]}, "s": {"dtype": "float32", "sizes": [2, 3]},
                "y": {"dtype": "float32", "sizes": [2, 3]}},
    "constants": {"c": {"dtype": "float32", "sizes": [2, 3], "fill": -0.25}},
    "nodes": [{"op": "aten::add.out", "inputs": ["x", "c"], "args": [1], "outputs": ["s"]},
              {"op": "aten::relu.out", "inputs": ["s"], "outputs": ["y"]}]
  }]
})";

}  // namespace

class RunnerTest : public QObject {
  Q_OBJECT
 private slots:
  void compareOutputsByHand() {
    auto synthesized = synth::synthesizeFromSpec(kCpuSpec);
    QVERIFY2(synthesized, synthesized ? "" : synthesized.error().message.c_str());
    auto program = synth::applyDevicePasses(synthesized.value());
    QVERIFY(program);
    const program::Method& m = *program->findMethod("forward");
    const runner::RawOutputs a = {floats({1, 2, 3, 4, 5, 6})};
    QVERIFY(runner::compareOutputs(m, a, a).empty());
    // One element differs: 2 vs 2.5 → abs 0.5, rel 0.5 / 2.5 = 0.2.
    const runner::RawOutputs b = {floats({1, 2.5f, 3, 4, 5, 6})};
    auto d = runner::compareOutputs(m, a, b);
    QCOMPARE(d.size(), size_t(1));
    QCOMPARE(d[0].position, size_t(0));
    QCOMPARE(d[0].differing, size_t(1));
    QCOMPARE(d[0].max_abs_error, 0.5);
    QVERIFY(std::abs(d[0].max_rel_error - 0.2) < 1e-12);
    QVERIFY2(QString::fromStdString(d[0].what).startsWith("differs in 1 of 6 elements, first at element 1 (2 vs 2.5)"),
             d[0].what.c_str());
    const runner::RawOutputs none = {std::nullopt};
    d = runner::compareOutputs(m, a, none);
    QCOMPARE(d.size(), size_t(1));
    QCOMPARE(d[0].what, std::string("written by the first run only"));
    const runner::RawOutputs shorter = {floats({1, 2})};
    d = runner::compareOutputs(m, a, shorter);
    QCOMPARE(d.size(), size_t(1));
    QCOMPARE(d[0].what, std::string("has 24 bytes in the first run, 8 in the second"));
  }

  // The demo's forward after the passes: h2d (0), delegate on cuda:0 (1),
  // d2h (2), add (3), relu (4), h2d (5), delegate (6), d2h (7). The first
  // copy after each delegate waits for its queued work: 2 and 7, not 0 or 5.
  void marksTheCopyAfterEachDelegate() {
    auto demo = synth::synthesizeDemo();
    QVERIFY(demo);
    auto program = synth::applyDevicePasses(demo.value());
    QVERIFY(program);
    exec::TransferProfile profile;
    profile.method = "forward";
    for (size_t i : {0, 2, 5, 7}) {
      exec::CopyProfile c;
      c.instruction = i;
      c.direction = i == 0 || i == 5 ? program::CopyDirection::HostToDevice : program::CopyDirection::DeviceToHost;
      c.gbps = c.best_gbps = 1.0;
      profile.copies.push_back(c);
    }
    runner::markHostClockCopies(profile, program.value());
    QVERIFY(profile.copies[0].time_covers.empty());
    QVERIFY(profile.copies[2].time_covers.empty());
    QVERIFY(QString::fromStdString(profile.copies[1].time_covers).startsWith("waits for delegate instruction 1"));
    QVERIFY(QString::fromStdString(profile.copies[3].time_covers).startsWith("waits for delegate instruction 6"));
    QCOMPARE(profile.copies[1].gbps, 0.0);
    QCOMPARE(profile.copies[0].gbps, 1.0);
  }

  // A program as edited (no file): written into the private folder, run,
  // and its outputs are the ones ptescope's own run computes from the same
  // inputs, bit for bit; nothing stays in TMPDIR.
  void editedProgramRunsAndAgrees() {
    QTemporaryDir tmp;
    qputenv("TMPDIR", tmp.path().toUtf8());
    auto synthesized = synth::synthesizeFromSpec(kCpuSpec);
    QVERIFY(synthesized);
    auto program = synth::applyDevicePasses(synthesized.value());
    QVERIFY(program);
    runner::RunnerOptions options;
    options.runner = PTESCOPE_TEST_RUNNER;
    options.iterations = 2;
    options.inputs.seed = 7;
    std::string log;
    options.runner_log = &log;
    auto run = runner::runWithRunner({&program.value(), "", "", "edited"}, options);
    qunsetenv("TMPDIR");
    QVERIFY2(run, run ? "" : run.error().message.c_str());
    QCOMPARE(run->profile.iterations, size_t(2));
    QCOMPARE(QString::fromStdString(run->profile.runtime),
             QString("ExecuTorch runner %1, host clock").arg(QStringLiteral(PTESCOPE_TEST_RUNNER)));
    QCOMPARE(run->profile.program_name, std::string("edited"));
    QVERIFY(log.find("Model executed successfully 2 time(s)") != std::string::npos);
    QCOMPARE(run->outputs.size(), size_t(1));
    QVERIFY(run->outputs[0].has_value());
    QCOMPARE(run->outputs[0]->size(), size_t(24));  // float32[2,3]

    exec::HostRuntime host;
    exec::RunOnceOptions own;
    own.inputs.seed = 7;
    auto ours = exec::runMethodOnce(program.value(), host, own);
    QVERIFY(ours);
    runner::RawOutputs mine = {ours->outputs[0].tensor->bytes};
    QVERIFY(runner::compareOutputs(*program->findMethod("forward"), mine, run->outputs).empty());
    QCOMPARE(QDir(tmp.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden), QStringList());
  }

  // checkRunner asks the runner's --help before any run: the stand-in (its
  // help lists upstream's flags) passes; built without the event tracer it
  // lacks -etdump_path; a program that is no runner, one that hangs, a
  // folder and a missing file are each one line naming the path. Its
  // private folder goes away.
  void checkRunnerAsksTheHelp() {
    QTemporaryDir tmp;
    qputenv("TMPDIR", tmp.path().toUtf8());
    const std::string standin = PTESCOPE_TEST_RUNNER;
    auto ok = runner::checkRunner(standin);
    QVERIFY2(ok, ok ? "" : ok.error().message.c_str());
    qputenv("PTESCOPE_TEST_RUNNER_FAULT", "no-event-tracer");
    auto noTracer = runner::checkRunner(standin);
    qunsetenv("PTESCOPE_TEST_RUNNER_FAULT");
    QVERIFY(!noTracer);
    QCOMPARE(QString::fromStdString(noTracer.error().message),
             QString::fromStdString(standin) + ": the runner was built without the event tracer (it does not know "
             "--etdump_path); upstream builds it with -DEXECUTORCH_BUILD_DEVTOOLS=ON -DEXECUTORCH_ENABLE_EVENT_TRACER=ON");
    // /bin/true prints nothing for --help.
    auto notRunner = runner::checkRunner("/bin/true");
    QVERIFY(!notRunner);
    QVERIFY2(notRunner.error().message.starts_with("/bin/true: not an ExecuTorch runner"), notRunner.error().message.c_str());
    const QString hanging = QDir(tmp.path()).filePath("hangs.sh");
    {
      QFile f(hanging);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write("#!/bin/sh\nexec sleep 600\n");
    }
    QVERIFY(QFile::setPermissions(hanging, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    auto hangs = runner::checkRunner(hanging.toStdString(), 1);  // the message is the timeout's: it was stopped
    QVERIFY(!hangs);
    QVERIFY2(hangs.error().message.ends_with("did not answer --help within 1 s; not an ExecuTorch runner?"),
             hangs.error().message.c_str());
    // A cancel (the app's dialog closing) stops the hanging check at once, whatever its timeout.
    auto cancelled = runner::checkRunner(hanging.toStdString(), 600, [] { return true; });
    QVERIFY(!cancelled);
    QCOMPARE(cancelled.error().message, std::string(runner::kRunnerCancelled));
    QVERIFY(runner::checkRunner(tmp.path().toStdString()).error().message.ends_with("is a folder, not an ExecuTorch runner"));
    QVERIFY(runner::checkRunner(tmp.path().toStdString() + "/none").error().message.find("no such runner") != std::string::npos);
    QFile::remove(hanging);
    qunsetenv("TMPDIR");
    QCOMPARE(QDir(tmp.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden), QStringList());
  }
};

QTEST_GUILESS_MAIN(RunnerTest)
#include "test_runner.moc"
