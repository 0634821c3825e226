// Issue 27, part 2 in the app: the memory budget of Profile and Run Once is
// the CLI's default (half of the available memory, the same core function),
// a ~1 KiB program declaring a 22 GiB input is refused before anything is
// allocated with the figure and where to raise it, the budget is one setting
// shown and edited in the profile dialog, and Run Once can be cancelled.
#include <QtTest>

#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableWidget>

#include "exec/RunOnce.h"
#include "support/BudgetPrograms.h"
#include "support/TestSupport.h"
#include "ui/common/MemoryBudgetSetting.h"
#include "ui/document/Document.h"
#include "ui/panels/OutputsPanel.h"
#include "ui/profile/ProfileDialog.h"
#include "ui/profile/ProfileSession.h"
#include "ui/window/MainWindow.h"

using namespace ptescope;

namespace {

QString hugeProgramPath() {
  static const QString path = [] {
    const QString file = test::tempDir() + "/huge-input-ui.pte";
    return test::writeHugeInputProgram(file, test::overBudgetInputBytes()) ? file : QString();
  }();
  return path;
}

// The app's words for where the budget is set (the CLI says --max-memory SIZE).
const QString kSetting = QStringLiteral("the Memory budget field of Profile > Profile Transfers (F5)");

}  // namespace

class MemoryBudgetUiTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    qputenv("PTESCOPE_NO_DIALOGS", "1");
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("ptescope-tests-budget");
    QSettings().clear();
    QVERIFY(!hugeProgramPath().isEmpty());
  }

  void cleanup() { ui::setMemoryBudget(0); }

  void runOnceRefusesAHugeInputAtTheDefaultBudget() {
    ui::Document document;
    ui::MainWindow window(&document);
    QVERIFY(window.openFile(hugeProgramPath()));
    ui::OutputsPanel* panel = window.outputsPanel();
    QSignalSpy failed(panel, &ui::OutputsPanel::failed);
    QVERIFY(panel->runOnce());
    QVERIFY(failed.wait(30000) || failed.count() == 1);
    const QString message = failed.first().first().toString();
    QVERIFY2(message.contains("method 'forward': not run: it would allocate"), qPrintable(message));
    QVERIFY2(message.contains("more than the default budget of ") && message.contains("(half of the "), qPrintable(message));
    QVERIFY2(message.contains("raise it with " + kSetting), qPrintable(message));
    QVERIFY(!message.contains("--max-memory"));
    QCOMPARE(panel->table()->rowCount(), 0);
    QVERIFY(!panel->findChild<QPushButton*>("cancelRunOnce")->isVisibleTo(panel));
    QVERIFY(panel->findChild<QPushButton*>("runOnceButton")->isEnabled());
    // Said once, whole, in the Outputs panel's empty table; the window's
    // error names the file, and the status bar says where to read it (the
    // whole message its tool tip): the same sentence stood three times.
    QCOMPARE(window.lastError(), "huge-input-ui.pte: " + message);
    QCOMPARE(panel->findChild<QLabel*>("outputsEmpty")->text(), "Run failed: " + message);
    QVERIFY(!panel->findChild<QLabel*>("outputsHeader")->text().contains(message));
    const auto* statusLabel = window.findChild<QLabel*>("statusMessage");
    QCOMPARE(statusLabel->text(), QString("Run Once failed: huge-input-ui.pte (the Outputs tab says why)"));
    QVERIFY2(statusLabel->toolTip().contains(message), qPrintable(statusLabel->toolTip()));
  }

  void profileRefusesItWithTheSameMessage() {
    ui::Document document;
    QVERIFY(document.open(hugeProgramPath()));
    ui::ProfileSession session;
    QSignalSpy failed(&session, &ui::ProfileSession::failed);
    ui::ProfileRequest request;
    request.runtime = exec::RuntimePreference::Host;
    QString error;
    QVERIFY2(session.start(document.programSnapshot(), "huge-input-ui.pte", request, &error), qPrintable(error));
    QVERIFY(failed.wait(30000) || failed.count() == 1);
    const QString message = failed.first().first().toString();
    QVERIFY2(message.contains("not run") && message.contains("the default budget of "), qPrintable(message));
    QVERIFY2(message.contains("raise it with " + kSetting), qPrintable(message));
  }

  void theBudgetIsOneSettingShownAndEditedInTheProfileDialog() {
    ui::Document document;
    ui::MainWindow window(&document);
    QVERIFY(window.openFile(hugeProgramPath()));
    ui::setMemoryBudget(1ull << 30);
    {
      ui::ProfileDialog dialog(document.program(), 0);
      auto* field = dialog.findChild<QLineEdit*>("memoryBudget");
      QVERIFY(field != nullptr);
      QCOMPARE(field->text(), QString("1G"));
      QVERIFY(field->placeholderText().contains("half of the"));
      QCOMPARE(dialog.request().maxMemory, uint64_t(1ull << 30));
      field->setText("lots");
      QVERIFY(dialog.validationError().contains("Memory budget: 'lots' is not a size"));
      dialog.accept();
      QCOMPARE(ui::memoryBudget(), uint64_t(1ull << 30));  // refused: the setting is unchanged
      field->setText("512M");
      QVERIFY(dialog.validationError().isEmpty());
      dialog.accept();
      QCOMPARE(ui::memoryBudget(), uint64_t(512ull << 20));
    }
    // Run Once uses the setting: the refusal names it as the limit.
    ui::OutputsPanel* panel = window.outputsPanel();
    QSignalSpy failed(panel, &ui::OutputsPanel::failed);
    QVERIFY(panel->runOnce());
    QVERIFY(failed.wait(30000) || failed.count() == 1);
    const QString message = failed.first().first().toString();
    QVERIFY2(message.contains("more than the limit of 512.0 MiB (" + kSetting), qPrintable(message));
    // An empty field is the default again.
    ui::ProfileDialog dialog(document.program(), 0);
    dialog.findChild<QLineEdit*>("memoryBudget")->clear();
    dialog.accept();
    QCOMPARE(ui::memoryBudget(), uint64_t(0));
    QCOMPARE(ui::memoryBudgetFieldText(3ull << 30), QString("3G"));
    QCOMPARE(ui::memoryBudgetFieldText(1536ull << 20), QString("1536M"));
  }

  // A run that fills a 512 MiB input takes a while: Cancel, pressed right
  // after it started, stops it while the input is filled.
  void runOnceCanBeCancelled() {
    const QString file = test::tempDir() + "/big-input.pte";
    QVERIFY(test::writeHugeInputProgram(file, 512ull << 20));
    ui::Document document;
    ui::MainWindow window(&document);
    QVERIFY(window.openFile(file));
    ui::OutputsPanel* panel = window.outputsPanel();
    QSignalSpy failed(panel, &ui::OutputsPanel::failed);
    QSignalSpy finished(panel, &ui::OutputsPanel::finished);
    QVERIFY(panel->runOnce());
    auto* cancel = panel->findChild<QPushButton*>("cancelRunOnce");
    QVERIFY(cancel->isVisibleTo(panel));
    cancel->click();
    QVERIFY(failed.wait(60000) || failed.count() == 1);
    QCOMPARE(failed.first().first().toString(), QString(exec::kRunCancelled));
    QCOMPARE(finished.count(), 0);
    // A cancel is no error: the window says it was cancelled, nothing more.
    QVERIFY(window.lastError().isEmpty());
    QCOMPARE(window.findChild<QLabel*>("statusMessage")->text(), QString("Run Once cancelled"));
    // Issue 34 item 28: the panel's header does not call the user's cancel a failure.
    const QString header = panel->findChild<QLabel*>("outputsHeader")->text();
    QVERIFY2(header.startsWith("Run cancelled") && !header.contains("failed"), qPrintable(header));
    QVERIFY(!cancel->isVisibleTo(panel));
    QVERIFY(!panel->isRunning());
  }
};

QTEST_MAIN(MemoryBudgetUiTest)
#include "test_memory_budget_ui.moc"
