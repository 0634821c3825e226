// The app's runner profile (issue 33 item 3), offscreen, against the
// executor_runner stand-in (tests/runner-standin: upstream's flags, files and
// exit codes around ptescope's own executor; not ExecuTorch): the Profile
// dialog offers the runner, checks it when chosen and remembers it; a run
// profiles the program as shown (edits included) and fills the profile views
// labelled with the runner; "Compare with as loaded" fills the compare
// columns with the measured and the predicted saving; Cancel and every fault
// end in one line, with the document unchanged and nothing left in TMPDIR.
#include <QtTest>

#include <QAbstractButton>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>

#include <map>

#include <nlohmann/json.hpp>

#include "passes/ProgramEdits.h"
#include "pte/Writer.h"
#include "support/RunnerScope.h"
#include "support/TestSupport.h"
#include "support/UiTestSupport.h"
#include "synth/JsonSpec.h"
#include "synth/Scenarios.h"
#include "ui/document/Document.h"
#include "ui/profile/ProfileDialog.h"
#include "ui/profile/ProfileSession.h"
#include "ui/profile/TimelineView.h"
#include "ui/profile/TransfersModel.h"
#include "ui/common/ItemRoles.h"
#include "ui/window/MainWindow.h"

using namespace ptescope;

namespace {

const QString kRunner = QStringLiteral(PTESCOPE_TEST_RUNNER);
constexpr int kWaitMs = 60000;

QString writeProgram(const QString& name, const Result<synth::SynthesizedProgram>& synthesized) {
  const QString file = QDir(test::tempDir()).filePath(name);
  if (!synthesized) return QString();
  auto program = synth::applyDevicePasses(synthesized.value());
  if (!program || !pte::writeProgramFile(program.value(), file.toStdString()).ok()) return QString();
  return file;
}

// tests/runner-standin/delegate.json: a CUDA delegate reads x, y = relu(x)
// on the CPU; setting the delegate's device to none removes the one h2d copy
// of x (float32[2,3], 24 B).
QString delegateProgram() {
  static const QString path = writeProgram("delegate.pte", synth::synthesizeFromSpec(test::runnerDelegateSpec()));
  return path;
}

QString demoProgram() {
  static const QString path = writeProgram("demo.pte", synth::synthesizeDemo());
  return path;
}

using Scope = test::RunnerScope;

ui::TransfersModel* transfersOf(ui::MainWindow& window) {
  return qobject_cast<ui::TransfersModel*>(
      qobject_cast<QSortFilterProxyModel*>(window.transfersView()->model())->sourceModel());
}

ui::ProfileRequest runnerRequest(int iterations = 3) {
  ui::ProfileRequest r;
  r.runner = kRunner;
  r.iterations = size_t(iterations);
  return r;
}

// Processes whose command line names `folder` (a runner started there).
int processesIn(const QString& folder) {
  int n = 0;
  for (const QString& pid : QDir("/proc").entryList(QDir::Dirs)) {
    QFile cmdline("/proc/" + pid + "/cmdline");
    if (pid.toInt() > 0 && cmdline.open(QIODevice::ReadOnly) && cmdline.readAll().contains(folder.toUtf8())) ++n;
  }
  return n;
}

}  // namespace

class RunnerProfileTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("ptescope-tests-runner");
    QCoreApplication::setApplicationName("test_runner_profile");
    QSettings().clear();
    QVERIFY(!delegateProgram().isEmpty());
    QVERIFY(!demoProgram().isEmpty());
    QVERIFY2(QFileInfo(kRunner).isExecutable(), qPrintable(kRunner));
  }
  void cleanupTestCase() { QSettings().clear(); }

  // The dialog offers the runner; choosing one checks it off the UI thread:
  // not a runner, no event tracer and a name on no PATH folder are one line
  // each and are not remembered; the stand-in passes and is remembered, and
  // the next dialog starts from it. Warm-up, host memory and the link peak
  // are the runner's business while it is chosen.
  void dialogChecksAndRemembersTheRunner() {
    Scope scope;
    ui::Document doc;
    QVERIFY(doc.open(demoProgram()));
    {
      ui::ProfileDialog dialog(doc.program(), 0);
      auto* runtime = dialog.findChild<QComboBox*>("runtime");
      auto* path = dialog.findChild<QLineEdit*>("runnerPath");
      auto* status = dialog.findChild<QLabel*>("runnerStatus");
      auto* compare = dialog.findChild<QCheckBox*>("compareWithLoaded");
      QVERIFY(runtime && path && status && compare);
      QVERIFY(path->text().isEmpty());  // nothing remembered yet
      const int item = runtime->findData(ui::ProfileDialog::kRunnerChoice);
      QVERIFY(item >= 0);
      QCOMPARE(runtime->itemText(item), QString("ExecuTorch runner\u2026"));
      QVERIFY(dialog.findChild<QSpinBox*>("warmup")->isEnabled());
      runtime->setCurrentIndex(item);
      QVERIFY(!dialog.findChild<QSpinBox*>("warmup")->isEnabled());
      QVERIFY(!dialog.findChild<QCheckBox*>("measurePeak")->isEnabled());
      QVERIFY(!dialog.validationError().isEmpty());  // no runner named yet

      auto check = [&](const QString& text) {
        QSignalSpy checked(&dialog, &ui::ProfileDialog::runnerChecked);
        path->setText(text);
        emit path->editingFinished();
        QVERIFY(checked.count() > 0 || checked.wait(kWaitMs));
      };
      check("/bin/true");  // prints nothing for --help
      QVERIFY2(status->text().startsWith("/bin/true: not an ExecuTorch runner"), qPrintable(status->text()));
      QCOMPARE(dialog.validationError(), status->text());
      QVERIFY(!QSettings().contains(ui::ProfileDialog::kRunnerSetting));

      qputenv("PTESCOPE_TEST_RUNNER_FAULT", "no-event-tracer");
      check(kRunner);
      qunsetenv("PTESCOPE_TEST_RUNNER_FAULT");
      QVERIFY2(status->text().contains("built without the event tracer (it does not know --etdump_path)"),
               qPrintable(status->text()));
      QVERIFY(!status->text().contains('\n'));
      QVERIFY(!QSettings().contains(ui::ProfileDialog::kRunnerSetting));

      check("no_such_runner_anywhere");
      QVERIFY2(status->text().contains("no_such_runner_anywhere: no such runner on PATH"), qPrintable(status->text()));

      check(kRunner);
      QVERIFY2(dialog.validationError().isEmpty(), qPrintable(dialog.validationError()));
      QVERIFY(status->text().contains("with the event tracer"));
      QCOMPARE(QSettings().value(ui::ProfileDialog::kRunnerSetting).toString(), kRunner);
      compare->setChecked(true);
      // The time limit is the user's (a long model needs more than the
      // default 600 s); it is visible only while the runner is chosen.
      auto* timeout = dialog.findChild<QSpinBox*>("runnerTimeout");
      QVERIFY(timeout != nullptr);
      QCOMPARE(timeout->value(), 600);
      timeout->setValue(3600);
      const auto request = dialog.request();
      QCOMPARE(request.runner, kRunner);
      QVERIFY(request.compareWithLoaded);
      QCOMPARE(request.runnerTimeoutSeconds, 3600.0);
      // Each mnemonic (Alt+letter) of the dialog's labels, check boxes and
      // buttons leads to one control ("Compare &with" once shared W with
      // "&Warm-up").
      std::map<QChar, QString> mnemonics;
      auto note = [&](const QString& text) {
        const qsizetype at = text.indexOf(QRegularExpression("&(?!&)"));
        if (at < 0 || at + 1 >= text.size()) return;
        const QChar key = text[at + 1].toLower();
        QVERIFY2(mnemonics.emplace(key, text).second, qPrintable(text + " and " + mnemonics[key] + " share Alt+" + key));
      };
      for (auto* label : dialog.findChildren<QLabel*>()) note(label->text());
      for (auto* button : dialog.findChildren<QAbstractButton*>()) note(button->text());
      QVERIFY(mnemonics.count('t') == 1 && mnemonics.count('l') == 1);
      // Another runtime: the runner's controls go.
      runtime->setCurrentIndex(0);
      QVERIFY(timeout->isHidden() || !timeout->isVisibleTo(&dialog));
    }
    {
      // Remembered: the next dialog names it; Profile pressed before the
      // check ends accepts once it passes.
      ui::ProfileDialog dialog(doc.program(), 0);
      QCOMPARE(dialog.findChild<QLineEdit*>("runnerPath")->text(), kRunner);
      ui::ProfileRequest previous = runnerRequest();
      dialog.setRequest(previous);
      QSignalSpy accepted(&dialog, &QDialog::accepted);
      dialog.accept();
      QVERIFY(accepted.count() > 0 || accepted.wait(kWaitMs));
      QCOMPARE(dialog.request().runner, kRunner);
      QCOMPARE(dialog.findChild<QComboBox*>("runtime")->currentData().toInt(), ui::ProfileDialog::kRunnerChoice);
    }
    QCOMPARE(scope.leftBehind(), QStringList());
  }

  // The program as shown runs, edits included: the delegate moved to the CPU
  // leaves no copy, where the file as loaded has one h2d. The result fills
  // the Transfers panel, the timeline and the label, named by the runner.
  void profilesTheProgramAsShown() {
    Scope scope;
    test::ShownWindow shown;
    QVERIFY(shown.open(delegateProgram()));
    QVERIFY(shown.window.startProfile(runnerRequest()));
    {
      QSignalSpy finished(shown.window.profileSession(), &ui::ProfileSession::finished);
      QVERIFY(finished.wait(kWaitMs));
    }
    auto run = *shown.window.profileSession()->latest();
    QVERIFY2(run.label.contains("forward \u00b7 as shown \u00b7 ExecuTorch runner executor_runner \u00b7 3 iterations"),
             qPrintable(run.label));
    QCOMPARE(QString::fromStdString(run.profile->runtime), "ExecuTorch runner " + kRunner + ", host clock");
    QCOMPARE(run.profile->copies.size(), size_t(1));  // h2d of x, 24 B
    QCOMPARE(run.profile->copies[0].bytes, uint64_t(24));
    QCOMPARE(run.profile->iterations, size_t(3));
    auto* transfers = transfersOf(shown.window);
    QVERIFY(transfers->hasMeasurements());
    QVERIFY(!transfers->hasComparison());
    // The runner's trace does not record whether its host buffers were
    // pinned: the Host memory cell says so (it read "pageable").
    QCOMPARE(transfers->rowCount(), 1);
    QCOMPARE(transfers->index(0, ui::TransfersModel::HostMemory).data().toString(), QString("unknown"));
    QVERIFY2(transfers->index(0, ui::TransfersModel::HostMemory).data(Qt::ToolTipRole).toString().contains("Not recorded"),
             qPrintable(transfers->index(0, ui::TransfersModel::HostMemory).data(Qt::ToolTipRole).toString()));
    QVERIFY2(shown.window.transferTotals()->text().contains("measured by ExecuTorch runner executor_runner (host clock)"),
             qPrintable(shown.window.transferTotals()->text()));

    passes::ProgramEdits edits;
    edits.target_devices[{"forward", 0}] = std::nullopt;  // --set-device 0=none
    shown.doc.pushEdits(edits, "delegate on the CPU");
    shown.doc.waitForPipeline();
    QVERIFY(shown.doc.isModified());
    QVERIFY(shown.window.startProfile(runnerRequest()));
    {
      QSignalSpy finished(shown.window.profileSession(), &ui::ProfileSession::finished);
      QVERIFY(finished.wait(kWaitMs));
    }
    QCOMPARE(shown.window.profileSession()->latest()->profile->copies.size(), size_t(0));
    QVERIFY(shown.doc.isModified());
    QCOMPARE(scope.leftBehind(), QStringList());
  }

  // "Compare with as loaded": both run, the as-loaded one becomes the
  // previous profile; the compare columns show the copy the edit removed,
  // the totals the measured saving beside the predicted one on the chosen
  // link, and that both runs' outputs agree.
  void compareWithAsLoaded() {
    Scope scope;
    test::ShownWindow shown;
    QVERIFY(shown.open(delegateProgram()));
    passes::ProgramEdits edits;
    edits.target_devices[{"forward", 0}] = std::nullopt;
    shown.doc.pushEdits(edits, "delegate on the CPU");
    shown.doc.waitForPipeline();
    auto request = runnerRequest();
    request.compareWithLoaded = true;
    QSignalSpy finished(shown.window.profileSession(), &ui::ProfileSession::finished);
    QSignalSpy progress(shown.window.profileSession(), &ui::ProfileSession::progress);
    QVERIFY(shown.window.startProfile(request));
    QVERIFY(finished.wait(kWaitMs));
    QTest::qWait(50);
    QCOMPARE(finished.count(), 1);
    QVERIFY(progress.count() >= 1);  // "running executor_runner on the program as loaded", then as shown
    const auto& session = *shown.window.profileSession();
    QVERIFY(session.previous()->label.contains("as loaded"));
    QVERIFY(session.latest()->label.contains("as shown"));
    QCOMPARE(session.previous()->profile->copies.size(), size_t(1));
    QCOMPARE(session.latest()->profile->copies.size(), size_t(0));
    auto* transfers = transfersOf(shown.window);
    QVERIFY(transfers->hasComparison());
    QCOMPARE(transfers->columnCount(), int(ui::TransfersModel::ColumnCount));
    // The first row is the removed h2d: its previous median is the as-loaded
    // run's, its delta minus that. The others are the copies the delegate,
    // a CudaBackend without a target_device now, makes inside itself (its
    // host input in and its output back: not a saving, they moved).
    int removedRow = -1;
    for (int r = 0; r < transfers->rowCount(); ++r) {
      const auto& row = transfers->rows()[size_t(r)];
      if (row.removed) {
        QCOMPARE(removedRow, -1);
        removedRow = r;
      } else {
        QVERIFY(row.inside.has_value());
        QCOMPARE(row.inside->backend, std::string("CudaBackend"));
      }
    }
    QVERIFY(removedRow >= 0);
    const double before = session.previous()->profile->copies[0].seconds.median;
    QCOMPARE(transfers->index(removedRow, ui::TransfersModel::PreviousMedian).data(ui::SortRole).toDouble(), before);
    const QString totals = shown.window.transferTotals()->text();
    QVERIFY2(totals.contains("measured per run (ExecuTorch runner " + kRunner + ", host clock, medians): copies"),
             qPrintable(totals));
    QVERIFY2(totals.contains("predicted copy time per run of method 'forward' on"), qPrintable(totals));
    QVERIFY2(totals.contains("outputs: as loaded and as shown agree bit for bit (1 output(s))"), qPrintable(totals));
    QVERIFY(shown.doc.isModified());
    QCOMPARE(scope.leftBehind(), QStringList());
  }

  // Cancel while the runner hangs: its process group is killed, the run
  // ends in cancelled() with nothing kept, and its folder is gone.
  void cancelKillsTheRunner() {
    Scope scope("hang");
    test::ShownWindow shown;
    QVERIFY(shown.open(demoProgram()));
    QSignalSpy cancelled(shown.window.profileSession(), &ui::ProfileSession::cancelled);
    QVERIFY(shown.window.startProfile(runnerRequest()));
    // Wait until the runner runs in its private folder.
    for (int i = 0; i < 1000 && processesIn(scope.path()) == 0; ++i) QTest::qWait(20);
    QVERIFY(processesIn(scope.path()) > 0);
    QVERIFY(shown.window.profileStatus()->isVisible());
    shown.window.profileStatus()->findChild<QPushButton*>("cancelProfile")->click();
    QVERIFY(cancelled.count() > 0 || cancelled.wait(kWaitMs));
    QVERIFY(!shown.window.profileSession()->latest());
    QCOMPARE(processesIn(scope.path()), 0);
    QCOMPARE(scope.leftBehind(), QStringList());
    QVERIFY(!shown.doc.isModified());
  }

  // The app's scripted run profiles on the runner too: `ptescope --profile
  // --runner PATH` (offscreen with --screenshot) exports the runner's
  // profile; a runner that is none, or --runner without --profile, is one
  // line and exit 2 before anything runs.
  void scriptedProfileOnTheRunner() {
    Scope scope;
    const QString png = test::tempDir() + "/runner-shot.png", json = test::tempDir() + "/runner-profile.json";
    auto profiled = test::runProcess(QStringLiteral(PTESCOPE_GUI), {"--screenshot", png, "--profile", "--runner", kRunner,
                                                                    "--export-profile", json, demoProgram()});
    QVERIFY2(profiled.exitCode == 0, profiled.err.constData());
    QFile file(json);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const auto exported = nlohmann::json::parse(file.readAll().toStdString(), nullptr, false);
    QVERIFY(!exported.is_discarded());
    QCOMPARE(exported["runtime"].get<std::string>(), ("ExecuTorch runner " + kRunner + ", host clock").toStdString());
    QCOMPARE(exported["copies"].size(), size_t(4));  // the demo's forward: 2 h2d, 2 d2h
    for (const auto& c : exported["copies"]) QCOMPARE(c["host_memory"].get<std::string>(), std::string("unknown"));

    auto none = test::runProcess(QStringLiteral(PTESCOPE_GUI),
                                 {"--screenshot", png, "--profile", "--runner", "/bin/true", demoProgram()});
    QCOMPARE(none.exitCode, 2);
    QVERIFY2(none.err.contains("profile failed: /bin/true: not an ExecuTorch runner"), none.err.constData());
    auto alone = test::runProcess(QStringLiteral(PTESCOPE_GUI), {"--screenshot", png, "--runner", kRunner, demoProgram()});
    QCOMPARE(alone.exitCode, 2);
    QVERIFY2(alone.err.contains("--runner names the runner --profile uses"), alone.err.constData());
    // Qt's own runtime folder (TMPDIR/runtime-USER when XDG_RUNTIME_DIR is
    // unset) is the app's, not the runner's.
    QCOMPARE(scope.leftBehind().filter(QRegularExpression("^(?!runtime-)")), QStringList());
  }

  // Every fault is one line naming the runner and the program; the document
  // stays open and unmodified, no profile is kept, nothing is left behind.
  void faultsAreOneLine_data() {
    QTest::addColumn<QString>("fault");
    QTest::addColumn<QString>("expected");
    QTest::newRow("crash") << "crash" << "the runner crashed (signal 11, SIGSEGV)";
    QTest::newRow("hang") << "hang" << "did not finish within 1 s; it was stopped";
    QTest::newRow("no etdump") << "no-etdump" << "the runner exited without writing an ETDump";
    QTest::newRow("truncated etdump") << "truncated-etdump" << "the runner's ETDump cannot be read";
    QTest::newRow("no cuda") << "no-cuda" << "the runner lacks the CUDA backend";
    QTest::newRow("refuse") << "refuse" << "the runner refused the program";
    QTest::newRow("no event tracer") << "no-event-tracer" << "built without the event tracer";
  }
  void faultsAreOneLine() {
    QFETCH(QString, fault);
    QFETCH(QString, expected);
    Scope scope(qPrintable(fault));
    test::ShownWindow shown;
    QVERIFY(shown.open(demoProgram()));
    auto request = runnerRequest(2);
    request.runnerTimeoutSeconds = 1;
    QSignalSpy failed(shown.window.profileSession(), &ui::ProfileSession::failed);
    QVERIFY(shown.window.startProfile(request));
    QVERIFY(failed.wait(kWaitMs));
    const QString message = failed.front().front().toString();
    QVERIFY2(message.startsWith(kRunner + " on demo.pte: "), qPrintable(message));
    QVERIFY2(message.contains(expected), qPrintable(message));
    QVERIFY(!message.contains('\n'));
    QCOMPARE(shown.window.lastError(), message);
    QVERIFY(shown.doc.hasProgram());
    QCOMPARE(shown.doc.path(), demoProgram());
    QVERIFY(!shown.doc.isModified());
    QVERIFY(!shown.window.profileSession()->latest());
    QVERIFY(!shown.window.profileStatus()->isVisible());
    QCOMPARE(scope.leftBehind(), QStringList());
  }

  // A program shown with its inputs left on the device (skip_h2d) is refused
  // before the runner starts (the stand-in would crash), with the advisor's
  // caller duty, as the CLI does.
  void deviceIoIsRefusedBeforeRunning() {
    Scope scope("crash");
    test::ShownWindow shown;
    QVERIFY(shown.open(demoProgram()));
    auto options = shown.doc.methodOptions(shown.doc.currentMethodIndex());
    options.skip_h2d_for_method_inputs = true;
    options.alloc_graph_input = false;
    shown.doc.setMethodOptions(shown.doc.currentMethodIndex(), options);
    shown.doc.waitForPipeline();
    QVERIFY(shown.doc.isModified());
    QSignalSpy failed(shown.window.profileSession(), &ui::ProfileSession::failed);
    QVERIFY(shown.window.startProfile(runnerRequest()));
    QVERIFY(failed.wait(kWaitMs));
    const QString message = failed.front().front().toString();
    QVERIFY2(message.contains("not run: method 'forward' was exported for a caller that keeps its IO on the device (pass "
                              "input 0"),
             qPrintable(message));
    QVERIFY(message.contains("that already lives on cuda:0"));
    QVERIFY(!message.contains("crashed"));
    QCOMPARE(scope.leftBehind(), QStringList());
  }
};

QTEST_MAIN(RunnerProfileTest)
#include "test_runner_profile.moc"
