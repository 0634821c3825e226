// `profile` refuses a program the runtime refuses, with the runtime's reason
// and the lint rule that predicts it, as one line (exit 2).
#include <QtTest>

#include <QDir>

#include "support/TestSupport.h"

using namespace ptescope;

class CliRuntimeChecksTest : public QObject {
  Q_OBJECT

  QString synth(const QString& scenario) {
    const QString path = QDir(test::tempDir()).filePath(scenario + ".pte");
    auto r = test::runCli({"synth", "--scenario", scenario, "-o", path});
    if (r.exitCode != 0) QTest::qFail(r.err.constData(), __FILE__, __LINE__);
    return path;
  }

 private slots:
  void profileRefusesPlannedDeviceInput() {
    const QString path = synth("skip_h2d");
    auto r = test::runCli({"profile", path, "--runtime", "host", "--iterations", "1", "--warmup", "0"});
    test::expectOneLineCliError(r);
    const QString err = QString::fromUtf8(r.err);
    QVERIFY2(err.contains("the runtime refuses: Method::set_input fails with NotSupported"), qPrintable(err));
    QVERIFY(err.contains("Planned-buffer copy needs host memory on both sides: dst device 1, src device 0"));
    QVERIFY(err.contains("RT001") && err.contains("PTS001"));
    // lint predicts it
    auto lint = test::runCli({"lint", path});
    QCOMPARE(lint.exitCode, 1);
    QVERIFY(lint.out.contains("PTS001"));
  }

  void profileRunsTheTwin() {
    const QString path = synth("skip_both_unplanned_io");
    auto r = test::runCli({"profile", path, "--runtime", "host", "--iterations", "1", "--warmup", "0"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(!r.err.contains("the runtime refuses"));
  }
};

QTEST_GUILESS_MAIN(CliRuntimeChecksTest)
#include "test_cli_runtime_checks.moc"
