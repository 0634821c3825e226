// ptescope-cli profile --runner as a user runs it, against the
// executor_runner stand-in (tests/runner-standin: upstream's flags, files
// and exit codes around ptescope's own executor; not ExecuTorch): the demo
// profiles through the runner's ETDump, and every way a runner fails is one
// line on stderr with exit 2. No run leaves a file in the temporary folder.
#include <QtTest>

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>

#include <csignal>

#include <nlohmann/json.hpp>

#include "pte/Writer.h"
#include "support/RunnerScope.h"
#include "support/TestSupport.h"
#include "synth/JsonSpec.h"
#include "synth/Scenarios.h"

using ptescope::test::runCli;
using ptescope::test::tempDir;

namespace {

const QString kRunner = QStringLiteral(PTESCOPE_TEST_RUNNER);

QString demoPath() {
  static const QString path = [] {
    const QString file = QDir(tempDir()).filePath("demo.pte");
    auto synthesized = ptescope::synth::synthesizeDemo();
    auto program = synthesized ? ptescope::synth::applyDevicePasses(synthesized.value())
                               : ptescope::Result<ptescope::program::Program>(synthesized.error());
    if (!program || !ptescope::pte::writeProgramFile(program.value(), file.toStdString()).ok()) return QString();
    return file;
  }();
  return path;
}

QString outPath(const QString& name) { return QDir(tempDir()).filePath(name); }

QString writeSpec(const QString& name, const char* spec) {
  const QString file = QDir(tempDir()).filePath(name);
  auto synthesized = ptescope::synth::synthesizeFromSpec(spec);
  auto program = synthesized ? ptescope::synth::applyDevicePasses(synthesized.value())
                             : ptescope::Result<ptescope::program::Program>(synthesized.error());
  if (!program || !ptescope::pte::writeProgramFile(program.value(), file.toStdString()).ok()) return QString();
  return file;
}

// A CUDA delegate reads x; the output is relu(x) on the CPU.
QString delegateProgramPath() {
  static const QString path = writeSpec("delegate.pte", ptescope::test::runnerDelegateSpec().c_str());
  return path;
}

// y = relu(x + c) on the CPU: a program ptescope runs whole.
QString cpuProgramPath() {
  static const QString path = writeSpec("cpu.pte", R"({
    "methods": [{
      "name": "forward", "inputs": ["x"], "outputs": ["y"],
      "tensors": {"x": {"dtype": "float32", "sizes": [2, 3]}, "s": {"dtype": "float32", "sizes": [2, 3]},
                  "y": {"dtype": "float32", "sizes": [2, 3]}},
      "constants": {"c": {"dtype": "float32", "sizes": [2, 3], "fill": -0.25}},
      "nodes": [{"op": "aten::add.out", "inputs": ["x", "c"], "args": [1], "outputs": ["s"]},
                {"op": "aten::relu.out", "inputs": ["s"], "outputs": ["y"]}]
    }]
  })");
  return path;
}

nlohmann::json readJson(const QString& path) {
  const auto bytes = ptescope::test::readAll(path);
  return nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
}

using Scope = ptescope::test::RunnerScope;

}  // namespace

class CliRunnerTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(!demoPath().isEmpty());
    QVERIFY2(QFileInfo(kRunner).isExecutable(), qPrintable(kRunner));
  }

  // The stand-in's own conventions, as upstream's runner has them.
  void standInBehavesAsExecutorRunner() {
    auto help = ptescope::test::runProcess(kRunner, {"--help"});
    QCOMPARE(help.exitCode, 1);  // gflags' --help exits 1
    QVERIFY(help.out.contains("-etdump_path"));
    auto unknown = ptescope::test::runProcess(kRunner, {"--no_such_flag=1"});
    QCOMPARE(unknown.exitCode, 1);
    QVERIFY(unknown.err.contains("ERROR: unknown command line flag 'no_such_flag'"));
    // Input 0 of forward is float32[1,64]: 256 bytes; 255 aborts.
    const QString input = outPath("short-input.bin");
    ptescope::test::writeAll(input, std::vector<uint8_t>(255, 0));
    QProcess p;
    p.setWorkingDirectory(tempDir());
    p.start(kRunner, {"--model_path", demoPath(), "--method_name", "forward", "--inputs", input});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitStatus(), QProcess::CrashExit);  // SIGABRT: a shell's 134
    QVERIFY(p.readAllStandardError().contains("input size (255) and tensor size (256) mismatch!"));
  }

  void demoThroughTheRunner() {
    Scope scope;
    const QString json = outPath("runner.json"), csv = outPath("runner.csv"), trace = outPath("runner.trace.json");
    auto r = runCli({"profile", demoPath(), "--runner", kRunner, "--iterations", "3", "--json", json, "--csv", csv,
                     "--trace", trace});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.contains("profile of method 'forward' in demo.pte"));
    QVERIFY(r.out.contains(("runtime: ExecuTorch runner " + kRunner + ", host clock").toUtf8()));
    QVERIFY2(r.out.contains("host memory: not recorded by the trace; 0 warm-up"), r.out.constData());
    // The demo's forward after the passes: h2d x (0), delegate (1), d2h (2),
    // add (3), relu (4), h2d (5), delegate (6), d2h (7); x and activated are
    // float32[1,64] = 256 B each, hidden and logits 256 B and 64 B.
    QVERIFY(r.out.contains("h2d: 2 copies, 512 B"));
    QVERIFY(r.out.contains("d2h: 2 copies, 320 B"));
    // Each d2h is the first blocking copy after a CUDA delegate: its time
    // holds the delegate's queued work (spec P12), so it is marked and gets no GB/s.
    QVERIFY2(r.out.contains("* instruction 2: waits for delegate instruction 1"), r.out.constData());
    QVERIFY(r.out.contains("* instruction 7: waits for delegate instruction 6"));
    QVERIFY(!r.out.contains("* instruction 0:"));
    QVERIFY(!r.out.contains("* instruction 5:"));
    QVERIFY(r.out.contains("no GB/s"));
    QVERIFY(r.out.contains("delegates (ExecuTorch runner"));
    QVERIFY(r.out.contains("delegate CudaBackend"));
    QVERIFY(r.out.contains("aten::add.out"));
    QVERIFY(!r.out.contains("not executed"));
    const auto profile = readJson(json);
    QVERIFY(!profile.is_discarded());
    QCOMPARE(profile["runtime"].get<std::string>(), ("ExecuTorch runner " + kRunner + ", host clock").toStdString());
    QCOMPARE(profile["emulated"].get<bool>(), false);
    QCOMPARE(profile["iterations"].get<int>(), 3);
    QCOMPARE(profile["copies"].size(), size_t(4));
    for (const auto& c : profile["copies"]) {
      const bool d2h = c["direction"] == "d2h";
      QCOMPARE(c.contains("time_covers"), d2h);
      if (d2h) QCOMPARE(c["gbps"].get<double>(), 0.0);
      // The runner's trace does not record whether its host buffers were
      // pinned: the copy says so instead of "pageable".
      QCOMPARE(c["host_memory"].get<std::string>(), std::string("unknown"));
    }
    QVERIFY(!readJson(trace).is_discarded());
    // The CSV says the same per copy: its column time_covers, quoted (the
    // text has commas), on the d2h rows 2 and 7 only; the last column,
    // inside_delegate, is empty on these instruction copies.
    const auto csvBytes = ptescope::test::readAll(csv);
    const QList<QByteArray> rows =
        QByteArray(reinterpret_cast<const char*>(csvBytes.data()), qsizetype(csvBytes.size())).trimmed().split('\n');
    QCOMPARE(rows.size(), 5);
    QVERIFY2(rows[0].endsWith(",runtime,time_covers,inside_delegate"), rows[0].constData());
    for (const QByteArray& row : rows.mid(1)) {
      const bool d2h = row.split(',')[1] == "d2h";
      QCOMPARE(row.split(',')[5], QByteArray("unknown"));  // host_memory
      QVERIFY2(row.endsWith(","), row.constData());
      QCOMPARE(row.endsWith(",,"), !d2h);
      if (d2h) QVERIFY2(row.contains(",\"waits for delegate instruction "), row.constData());
    }
    QCOMPARE(scope.leftBehind(), QStringList());
  }

  // Relative paths (the program, its .ptd found beside it, the runner) work
  // although the runner runs in its own folder.
  void relativePaths() {
    Scope scope;
    QProcess cli;
    cli.setWorkingDirectory(QFileInfo(demoPath()).absolutePath());
    const QString runner = QDir(cli.workingDirectory()).relativeFilePath(kRunner);
    cli.start(QStringLiteral(PTESCOPE_CLI), {"profile", "demo.pte", "--runner", runner, "--iterations", "2"});
    QVERIFY(cli.waitForFinished(60000));
    QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
    QVERIFY(cli.readAllStandardOutput().contains("h2d: 2 copies, 512 B"));
    QCOMPARE(scope.leftBehind(), QStringList());
  }

  void secondMethodIsNamedAndTheEnvironmentNamesTheRunner() {
    Scope scope;
    qputenv("PTESCOPE_RUNNER", kRunner.toUtf8());
    auto r = runCli({"profile", demoPath(), "--runner", "--method", "prefill", "--iterations", "2"});
    qunsetenv("PTESCOPE_RUNNER");
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.contains("profile of method 'prefill'"));
    // prefill's input is float32[1,8,64] = 2048 B, its output the same.
    QVERIFY(r.out.contains("h2d: 2 copies, 4.0 KiB") || r.out.contains("h2d: 2 copies, 4096 B"));
    QCOMPARE(scope.leftBehind(), QStringList());
  }

  // --runner NAME without a '/' is looked up on PATH as a shell does: the
  // first folder holding an executable NAME wins (a plain file earlier on
  // PATH is passed over); a NAME on no PATH folder is one line.
  void aNameIsLookedUpOnPath() {
    QTemporaryDir first, second;  // outside the Scope's TMPDIR, which must stay empty
    Scope scope;
    ptescope::test::writeAll(first.filePath("my_runner"), {'#', '!'});  // not executable: skipped
    QVERIFY(QFile::link(kRunner, second.filePath("my_runner")));
    const QByteArray oldPath = qgetenv("PATH");
    qputenv("PATH", (first.path() + ":" + second.path() + ":" + oldPath).toUtf8());
    auto found = runCli({"profile", demoPath(), "--runner", "my_runner", "--iterations", "2"});
    auto missing = runCli({"profile", demoPath(), "--runner", "no_such_runner_anywhere"});
    qputenv("PTESCOPE_RUNNER", "my_runner");
    auto fromEnvironment = runCli({"profile", demoPath(), "--runner", "--iterations", "2"});
    qunsetenv("PTESCOPE_RUNNER");
    qputenv("PATH", oldPath);
    QVERIFY2(found.exitCode == 0, found.err.constData());
    QVERIFY2(found.out.contains(("runtime: ExecuTorch runner " + second.filePath("my_runner") + ", host clock").toUtf8()),
             found.out.constData());
    QVERIFY2(fromEnvironment.exitCode == 0, fromEnvironment.err.constData());
    QVERIFY(fromEnvironment.out.contains(("ExecuTorch runner " + second.filePath("my_runner")).toUtf8()));
    ptescope::test::expectOneLineCliError(missing);
    QVERIFY2(missing.err.contains("no_such_runner_anywhere: no such runner on PATH"), missing.err.constData());
    QCOMPARE(scope.leftBehind(), QStringList());
  }

  void faultsAreOneLine_data() {
    QTest::addColumn<QString>("fault");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("expected");
    QTest::newRow("crash") << "crash" << QStringList() << "the runner crashed (signal 11, SIGSEGV)";
    QTest::newRow("hang") << "hang" << QStringList{"--timeout", "1"} << "did not finish within 1 s; it was stopped";
    QTest::newRow("no etdump") << "no-etdump" << QStringList() << "the runner exited without writing an ETDump";
    QTest::newRow("truncated etdump") << "truncated-etdump" << QStringList() << "the runner's ETDump cannot be read";
    QTest::newRow("no event tracer") << "no-event-tracer" << QStringList()
                                     << "built without the event tracer (it does not know --etdump_path)";
    QTest::newRow("no cuda") << "no-cuda" << QStringList()
                             << "the runner lacks the CUDA backend ('No device allocator registered for device type 1'";
    QTest::newRow("refuse") << "refuse" << QStringList() << "the runner refused the program (Program identifier";
    QTest::newRow("inputs") << "drop-input" << QStringList() << "the runner rejected the inputs: Wrong number of inputs";
  }
  void faultsAreOneLine() {
    QFETCH(QString, fault);
    QFETCH(QStringList, extra);
    QFETCH(QString, expected);
    Scope scope(qPrintable(fault));
    auto r = runCli(QStringList{"profile", demoPath(), "--runner", kRunner, "--iterations", "2"} + extra);
    ptescope::test::expectOneLineCliError(r);
    QVERIFY2(r.err.startsWith(("ptescope-cli: " + kRunner + " on demo.pte: ").toUtf8()), r.err.constData());
    QVERIFY2(r.err.contains(expected.toUtf8()), r.err.constData());
    if (fault == "no-cuda") QVERIFY(r.err.contains("-DEXECUTORCH_BUILD_CUDA=ON"));
    QCOMPARE(scope.leftBehind(), QStringList());
  }

  void notARunner() {
    Scope scope;
    auto missing = runCli({"profile", demoPath(), "--runner", outPath("no-such-runner")});
    ptescope::test::expectOneLineCliError(missing);
    QVERIFY(missing.err.contains("no-such-runner: no such runner"));
    const QString plain = outPath("not-executable");
    ptescope::test::writeAll(plain, {'#', '!'});
    auto notExecutable = runCli({"profile", demoPath(), "--runner", plain});
    ptescope::test::expectOneLineCliError(notExecutable);
    QVERIFY(notExecutable.err.contains("not-executable: is not executable"));
    auto folder = runCli({"profile", demoPath(), "--runner", tempDir()});
    ptescope::test::expectOneLineCliError(folder);
    QVERIFY(folder.err.contains("is a folder"));
    auto noPath = runCli({"profile", demoPath(), "--runner"});
    ptescope::test::expectOneLineCliError(noPath);
    QVERIFY(noPath.err.contains("PTESCOPE_RUNNER"));
    auto runtime = runCli({"profile", demoPath(), "--runner", kRunner, "--runtime", "host"});
    ptescope::test::expectOneLineCliError(runtime);
    QCOMPARE(scope.leftBehind(), QStringList());
  }

  // run --runner on a program ptescope runs whole: both runs' outputs are
  // kept and agree bit for bit; a runner that computes something else is
  // named with the output and the element.
  void runAgreesOrNamesTheDifference() {
    const QString cpu = cpuProgramPath();
    QVERIFY(!cpu.isEmpty());
    Scope scope;
    const QString outputs = outPath("run-outputs");
    auto r = runCli({"run", cpu, "--runner", kRunner, "--outputs", outputs, "--seed", "3"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.out.contains("outputs: ptescope and the runner agree bit for bit (1 output(s))"), r.out.constData());
    QVERIFY(QFile::exists(outputs + "/0.npy"));
    QCOMPARE(ptescope::test::readAll(outputs + "/runner-0.bin").size(), size_t(24));  // float32[2,3], raw
    {
      qputenv("PTESCOPE_TEST_RUNNER_FAULT", "wrong-output");
      auto w = runCli({"run", cpu, "--runner", kRunner, "--seed", "3"});
      qunsetenv("PTESCOPE_TEST_RUNNER_FAULT");
      QCOMPARE(w.exitCode, 1);
      QVERIFY2(w.out.contains("outputs: ptescope and the runner differ in 1 of 1 output(s):"), w.out.constData());
      // The stand-in added 1 to element 1 only: abs error 1.
      QVERIFY(w.out.contains("output 0 differs in 1 of 6 elements, first at element 1"));
      QVERIFY(w.out.contains("max abs error 1,"));
    }
    // The demo's delegates are not ptescope's to run: nothing to compare.
    auto demo = runCli({"run", demoPath(), "--runner", kRunner});
    QVERIFY2(demo.exitCode == 0, demo.err.constData());
    QVERIFY(demo.out.contains("outputs: not compared: ptescope did not run 2 instruction(s)"));
    QCOMPARE(scope.leftBehind(), QStringList());
  }

  // As loaded vs as edited (the delegate off the GPU: the h2d copy of x
  // goes), each through the runner: measured beside predicted, the outputs
  // compared, no temporary program left. (The stand-in runs no delegate, so
  // the program's output, relu(x), is computed on the CPU from the input.)
  void compareEdits() {
    const QString program = delegateProgramPath();
    QVERIFY(!program.isEmpty());
    Scope scope;
    const QString json = outPath("edits.json");
    auto r = runCli({"profile", program, "--runner", kRunner, "--iterations", "3", "--compare-edits", "--set-device",
                     "0=none", "--json", json});
    QVERIFY2(r.exitCode == 0, (r.err + r.out).constData());
    QVERIFY(r.out.contains("profile of method 'forward' in delegate.pte as edited"));
    QVERIFY2(r.out.contains("no host-device copies ran"), r.out.constData());
    // As loaded: one h2d of x, float32[2,3] = 24 B; removed by the edit.
    QVERIFY(r.out.contains("h2d: 0 copies (was 1), 0 B (was 24 B)"));
    QVERIFY(r.out.contains("removed"));
    QVERIFY(r.out.contains("measured per run (ExecuTorch runner"));
    QVERIFY(r.out.contains("predicted copy time per run of method 'forward'"));
    QVERIFY(r.out.contains("outputs: as loaded and as edited agree bit for bit (1 output(s))"));
    const auto j = readJson(json);
    QVERIFY(!j.is_discarded());
    QCOMPARE(j["copies"].size(), size_t(0));
    QCOMPARE(scope.leftBehind(), QStringList());

    auto refused = runCli({"profile", demoPath(), "--runner", kRunner, "--compare-edits", "--skip-d2h-outputs"});
    ptescope::test::expectOneLineCliError(refused);
    QVERIFY2(refused.err.contains("on demo.pte as edited: not run: method 'forward'"), refused.err.constData());
    auto noEdit = runCli({"profile", demoPath(), "--runner", kRunner, "--compare-edits"});
    ptescope::test::expectOneLineCliError(noEdit);
    auto noRunner = runCli({"profile", demoPath(), "--compare-edits", "--skip-d2h-outputs"});
    ptescope::test::expectOneLineCliError(noRunner);
    QCOMPARE(scope.leftBehind(), QStringList());
  }

  // A program whose inputs stay on the device (skip_h2d_for_method_inputs)
  // is refused before the runner starts, with the advisor's caller duty.
  void callerContractRefused() {
    const QString skipped = outPath("skip-h2d.pte");
    auto p = runCli({"propagate", demoPath(), "-o", skipped, "--skip-h2d-inputs"});
    QVERIFY2(p.exitCode == 0, p.err.constData());
    Scope scope("crash");  // the runner must not even start
    auto r = runCli({"profile", skipped, "--runner", kRunner});
    ptescope::test::expectOneLineCliError(r);
    QVERIFY2(r.err.contains("not run: method 'forward' was exported for a caller that keeps its IO on the device (pass "
                            "input 0"),
             r.err.constData());
    QVERIFY(r.err.contains("that already lives on cuda:0"));
    QCOMPARE(scope.leftBehind(), QStringList());
  }

  // Ctrl+C while the runner runs: the runner's process group is ended, the
  // CLI says so and exits 130, and nothing is left behind.
  void interruptEndsTheRunner() {
    Scope scope("hang");
    QProcess cli;
    cli.start(QStringLiteral(PTESCOPE_CLI), {"profile", demoPath(), "--runner", kRunner});
    QVERIFY(cli.waitForStarted());
    // Wait until the runner's folder exists (the runner is starting).
    QDir tmp(qEnvironmentVariable("TMPDIR"));
    for (int i = 0; i < 500 && tmp.entryList(QDir::Dirs | QDir::NoDotAndDotDot).isEmpty(); ++i) QTest::qWait(20);
    QTest::qWait(300);
    ::kill(pid_t(cli.processId()), SIGINT);
    QVERIFY(cli.waitForFinished(20000));
    QCOMPARE(cli.exitCode(), 130);
    QVERIFY(cli.readAllStandardError().contains("interrupted; the runner was stopped"));
    QCOMPARE(scope.leftBehind(), QStringList());
  }
};

QTEST_GUILESS_MAIN(CliRunnerTest)
#include "test_cli_runner.moc"
