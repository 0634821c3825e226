// Golden files: the text and JSON that `info`, `propagate` and `diff` print
// for every synth scenario (`ptescope-cli synth --list-scenarios`), compared
// byte for byte with tests/golden/<scenario>/. For each scenario:
//   built.pte     synth --scenario S --no-passes (the pre-pass graph)
//   exported.pte  synth --scenario S             (as upstream export writes it)
//   info.txt / info.json            info exported.pte [--json]
//   propagate.txt / propagate.json  propagate built.pte <the scenario's options as flags>
//   diff.txt / diff.json            diff built.pte exported.pte [--json]
// The folder where the files are written is removed from the output, so the
// goldens name files as "exported.pte".
//
// A deliberate change of output is recorded by rewriting the files:
//   PTESCOPE_UPDATE_GOLDEN=1 ctest --test-dir build -R test_cli_golden
// then reviewed in the diff like any other change.
#include <QtTest>

#include <QDir>
#include <QFile>

#include "passes/DevicePasses.h"
#include "support/TestSupport.h"
#include "synth/Scenarios.h"

using ptescope::test::runCli;

namespace {

constexpr const char* kGoldenDir = PTESCOPE_GOLDEN_DIR;
const char* const kOutputs[] = {"info.txt", "info.json", "propagate.txt", "propagate.json", "diff.txt", "diff.json"};

bool updating() { return qEnvironmentVariableIntValue("PTESCOPE_UPDATE_GOLDEN") == 1; }

// Every scenario the CLI lists, in its order.
QStringList listedScenarios() {
  auto r = runCli({"synth", "--list-scenarios"});
  QStringList names;
  if (r.exitCode != 0) return names;
  for (const auto& line : QString::fromUtf8(r.out).split('\n', Qt::SkipEmptyParts)) names << line.section('\t', 0, 0);
  return names;
}

// The scenario's pass options as propagate flags (only those that differ
// from upstream's defaults).
QStringList optionFlags(const QString& scenario) {
  auto s = ptescope::synth::synthesizeScenario(scenario.toStdString());
  if (!s) return {"--unknown-scenario"};
  const auto o = s->options.forMethod("forward");
  const ptescope::passes::DeviceOptions defaults;
  QStringList flags;
  if (o.skip_h2d_for_method_inputs != defaults.skip_h2d_for_method_inputs) flags << "--skip-h2d-inputs";
  if (o.skip_d2h_for_method_outputs != defaults.skip_d2h_for_method_outputs) flags << "--skip-d2h-outputs";
  if (o.enable_non_cpu_memory_planning != defaults.enable_non_cpu_memory_planning) flags << "--no-device-planning";
  if (o.alloc_graph_input != defaults.alloc_graph_input) flags << "--no-alloc-graph-input";
  if (o.alloc_graph_output != defaults.alloc_graph_output) flags << "--no-alloc-graph-output";
  return flags;
}

// The first line where two texts differ, for the failure message.
QString firstDifference(const QByteArray& expected, const QByteArray& actual) {
  const auto e = expected.split('\n'), a = actual.split('\n');
  for (qsizetype i = 0; i < std::max(e.size(), a.size()); ++i) {
    const QByteArray le = i < e.size() ? e[i] : "<end of file>", la = i < a.size() ? a[i] : "<end of output>";
    if (le != la) return QString("line %1:\n  golden: %2\n  now:    %3").arg(i + 1).arg(QString(le), QString(la));
  }
  return "same lines";
}

}  // namespace

class CliGoldenTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(QDir(kGoldenDir).exists() || updating());
    if (updating()) qInfo("PTESCOPE_UPDATE_GOLDEN=1: rewriting %s", kGoldenDir);
  }

  // One folder per listed scenario, no stale ones left behind.
  void foldersMatchScenarios() {
    const QStringList scenarios = listedScenarios();
    QVERIFY(scenarios.size() >= 15);
    QDir golden(kGoldenDir);
    if (updating()) {
      for (const auto& stale : golden.entryList(QDir::Dirs | QDir::NoDotAndDotDot))
        if (!scenarios.contains(stale)) QVERIFY(QDir(golden.filePath(stale)).removeRecursively());
    }
    QStringList folders = golden.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    QStringList sorted = scenarios;
    sorted.sort();
    if (!updating()) QCOMPARE(folders, sorted);
  }

  void scenario_data() {
    QTest::addColumn<QString>("scenario");
    for (const auto& name : listedScenarios()) QTest::newRow(qPrintable(name)) << name;
  }

  void scenario() {
    QFETCH(QString, scenario);
    const QString work = QDir(ptescope::test::tempDir()).filePath(scenario);
    QVERIFY(QDir().mkpath(work));
    const QString built = work + "/built.pte", exported = work + "/exported.pte", propagated = work + "/propagated.pte";
    for (const auto& [path, extra] : {std::pair{built, QStringList{"--no-passes"}}, std::pair{exported, QStringList{}}}) {
      auto r = runCli(QStringList{"synth", "--scenario", scenario, "-o", path} + extra);
      QVERIFY2(r.exitCode == 0, r.err.constData());
    }
    const QStringList flags = optionFlags(scenario);
    const QStringList propagate = QStringList{"propagate", built, "-o", propagated} + flags;
    const std::vector<std::pair<const char*, QStringList>> commands = {
        {"info.txt", {"info", exported}},
        {"info.json", {"info", exported, "--json"}},
        {"propagate.txt", propagate},
        {"propagate.json", propagate + QStringList{"--json"}},
        {"diff.txt", {"diff", built, exported}},
        {"diff.json", {"diff", built, exported, "--json"}},
    };
    QCOMPARE(commands.size(), std::size(kOutputs));

    const QDir golden(QDir(kGoldenDir).filePath(scenario));
    if (updating()) QVERIFY(QDir().mkpath(golden.path()));
    for (const auto& [file, args] : commands) {
      auto r = runCli(args);
      QVERIFY2(r.exitCode == 0, qPrintable(args.join(' ') + ": " + r.err));
      QByteArray out = r.out;
      out.replace((work + "/").toUtf8(), "");
      QVERIFY2(!out.contains(ptescope::test::tempDir().toUtf8()), "a temporary path is left in the output");
      const QString path = golden.filePath(file);
      if (updating()) {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        QCOMPARE(f.write(out), out.size());
        continue;
      }
      QFile f(path);
      QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(path + " is missing (PTESCOPE_UPDATE_GOLDEN=1 writes it)"));
      const QByteArray expected = f.readAll();
      QVERIFY2(out == expected, qPrintable(QString("%1/%2 differs (`%3`), %4\nIf the change is intended, run "
                                                   "PTESCOPE_UPDATE_GOLDEN=1 ctest --test-dir build -R test_cli_golden "
                                                   "and review the diff.")
                                               .arg(scenario, file, args.join(' ').replace(work + "/", ""),
                                                    firstDifference(expected, out))));
    }
    // The flags say what the scenario's options say: propagating the
    // pre-pass graph with them gives what synth wrote.
    auto same = runCli({"diff", exported, propagated});
    QCOMPARE(same.exitCode, 0);
    // No structural difference, and so no change in predicted copy time.
    QVERIFY2(same.out.contains("no differences\n"), same.out.constData());
    QVERIFY2(!same.out.contains(" saves ") && !same.out.contains(" adds "), same.out.constData());
  }
};

QTEST_GUILESS_MAIN(CliGoldenTest)
#include "test_cli_golden.moc"
