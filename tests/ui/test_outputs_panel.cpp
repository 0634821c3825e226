// The Outputs panel, offscreen: Run > Run Once executes the shown method off
// the UI thread and lists each output's type, statistics and first values;
// a program without a method says so; a new program clears stale outputs.
#include <QtTest>

#include <QLabel>
#include <QSignalSpy>
#include <QTableWidget>

#include "pte/Writer.h"
#include "support/BitExactPrograms.h"
#include "support/TestSupport.h"
#include "support/UiTestSupport.h"
#include "ui/document/Document.h"
#include "ui/common/ItemRoles.h"
#include "ui/window/MainWindow.h"
#include "ui/panels/OutputsPanel.h"
#include "ui/document/Selection.h"

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

  // The Bit-exact column: relu of float32 is proven by the differential
  // record (tests/oracle/record.tsv: aten::relu.out float32 `same`),
  // linear.out is one the runtime refuses (`oracle-refused`), so the second
  // output, and only it, is not proven; the tooltip names the instruction.
  void bitExactColumnSaysWhichOutputs() {
    auto program = test::reluAndLinearProgram();
    QVERIFY(program.ok());
    const QString path = test::tempDir() + "/bit-exact-outputs.pte";
    QVERIFY(pte::writeProgramFile(program.value(), path.toStdString()).ok());

    ui::Document document;
    ui::MainWindow window(&document);
    QVERIFY(window.openFile(path));
    ui::OutputsPanel* panel = window.outputsPanel();
    QSignalSpy finished(panel, &ui::OutputsPanel::finished);
    QVERIFY(panel->runOnce());
    QVERIFY(finished.wait(60000) || finished.count() == 1);
    QTableWidget* table = panel->table();
    QCOMPARE(table->columnCount(), 8);
    QCOMPARE(table->horizontalHeaderItem(7)->text(), QString("Bit-exact"));
    QCOMPARE(table->rowCount(), 2);
    QCOMPARE(table->item(0, 7)->text(), QString("bit-exact with the runtime"));
    QCOMPARE(table->item(1, 7)->text(),
             QString("not proven: aten::linear.out (float32) the runtime refuses it (with bias), ptescope computes it"));
    QVERIFY2(table->item(1, 7)->toolTip().contains("#1 aten::linear.out (float32)"), qPrintable(table->item(1, 7)->toolTip()));
    // The first values keep their column whatever the verdict's length.
    QCOMPARE(table->item(0, 6)->text().isEmpty(), false);
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

  // A row is a view of the selection: picking it selects its value (the
  // Values panel shows the same row), selecting an output value elsewhere
  // picks its row, and a value that is no output leaves no row picked.
  void rowsFollowAndPublishTheSelection() {
    ui::Document document;
    ui::MainWindow window(&document);
    QVERIFY(window.openDemo());
    ui::OutputsPanel* panel = window.outputsPanel();
    QSignalSpy finished(panel, &ui::OutputsPanel::finished);
    QVERIFY(panel->runOnce());
    QVERIFY(finished.wait(60000) || finished.count() == 1);
    QTableWidget* table = panel->table();
    QVERIFY(table->rowCount() >= 1);
    const auto& outputs = program::items(document.currentMethod()->outputs);
    QCOMPARE(size_t(table->rowCount()), outputs.size());
    const int last = table->rowCount() - 1;
    QCOMPARE(panel->valueOfRow(last), outputs.back());

    table->setCurrentCell(last, 2);
    QCOMPARE(window.selection()->value(), std::optional<int32_t>(outputs.back()));
    const QModelIndex valuesRow = window.valuesView()->currentIndex();
    QVERIFY(valuesRow.isValid());
    QCOMPARE(valuesRow.data(ui::ValueIndexRole).toInt(), outputs.back());

    window.selectValue(outputs.front());
    QCOMPARE(table->currentRow(), 0);
    window.resize(1400, 900);
    QVERIFY(window.showPanel("Outputs"));
    QVERIFY(test::waitForGraph(window.graph()));
    QVERIFY(test::saveScreenshot(window, "outputs-selection"));
    // An input is no output: no row stays picked.
    const int32_t input = program::items(document.currentMethod()->inputs).front();
    window.selectValue(input);
    QCOMPARE(window.selection()->value(), std::optional<int32_t>(input));
    QCOMPARE(table->currentRow(), -1);
    QVERIFY(table->selectedItems().isEmpty());
    QCOMPARE(panel->rowOfValue(input), -1);
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
