// The Outputs panel, offscreen: Run > Run Once executes the shown method off
// the UI thread and lists each output's type, statistics and first values;
// a program without a method says so; a new program clears stale outputs.
#include <QtTest>

#include <QLabel>
#include <QSignalSpy>
#include <QTableWidget>

#include "support/TestSupport.h"
#include "ui/Document.h"
#include "ui/MainWindow.h"
#include "ui/OutputsPanel.h"

using namespace ptescope;

class OutputsPanelTest : public QObject {
  Q_OBJECT
 private slots:
  void runOnceListsTheOutputs() {
    if (test::samplesDir().isEmpty()) QSKIP("samples folder absent");
    ui::Document document;
    ui::MainWindow window(&document);
    QVERIFY(window.openFile(test::samplePath("const-methods.pte")));
    // get_tensor returns the stored constant [1, 2, 3] (int64), as the real runtime does
    QVERIFY(window.showMethod("get_tensor"));
    ui::OutputsPanel* panel = window.outputsPanel();
    QSignalSpy finished(panel, &ui::OutputsPanel::finished);
    QVERIFY(panel->runOnce());
    QVERIFY(finished.wait(60000) || finished.count() == 1);
    QTableWidget* table = panel->table();
    QCOMPARE(table->rowCount(), 1);
    QCOMPARE(table->item(0, 2)->text(), QString("int64[3]"));
    QCOMPARE(table->item(0, 3)->text(), QString("1"));
    QCOMPARE(table->item(0, 4)->text(), QString("3"));
    QCOMPARE(table->item(0, 5)->text(), QString("2"));
    QCOMPARE(table->item(0, 6)->text(), QString("1, 2, 3"));
    QVERIFY(panel->findChild<QLabel*>("outputsHeader")->text().contains("0 not executed"));

    // Scalar outputs show their value in the Type column.
    QVERIFY(window.showMethod("get_double"));
    QVERIFY(panel->runOnce());
    QVERIFY(finished.wait(60000));
    QCOMPARE(table->item(0, 2)->text(), QString("Double 2.5"));
    QVERIFY(table->item(0, 3)->text().isEmpty());

    // Opening another program forgets the outputs.
    QVERIFY(window.openFile(test::samplePath("add.pte")));
    QCOMPARE(table->rowCount(), 0);
    QVERIFY(!panel->lastResult().has_value());
  }

  void notExecutedInstructionsAreListed() {
    if (test::samplesDir().isEmpty()) QSKIP("samples folder absent");
    ui::Document document;
    ui::MainWindow window(&document);
    QVERIFY(window.openFile(test::samplePath("quantized-xnnpack.pte")));
    ui::OutputsPanel* panel = window.outputsPanel();
    QSignalSpy finished(panel, &ui::OutputsPanel::finished);
    QVERIFY(panel->runOnce());
    QVERIFY(finished.wait(60000));
    auto* label = panel->findChild<QLabel*>("outputsNotExecuted");
    QVERIFY(!label->isHidden());
    QVERIFY2(label->text().contains("XnnpackBackend"), qPrintable(label->text()));
  }

  void nothingToRunIsAnError() {
    ui::Document document;
    ui::MainWindow window(&document);
    QVERIFY(!window.outputsPanel()->runOnce());
    QVERIFY(!window.outputsPanel()->lastError().isEmpty());
  }
};

QTEST_MAIN(OutputsPanelTest)
#include "test_outputs_panel.moc"
