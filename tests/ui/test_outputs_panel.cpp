// The Outputs panel, offscreen: Run > Run Once executes the shown method off
// the UI thread and lists each output's type, statistics and first values;
// a program without a method says so; a new program clears stale outputs;
// a long run keeps saying how far it is and Cancel stops it inside a kernel.
#include <QtTest>

#include <QLabel>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTableWidget>

#include "exec/RunOnce.h"
#include "pte/Writer.h"
#include "support/BitExactPrograms.h"
#include "synth/JsonSpec.h"
#include "synth/WriteProgram.h"
#include "support/TestSupport.h"
#include "support/UiTestSupport.h"
#include "ui/document/Document.h"
#include "ui/common/ItemRoles.h"
#include "ui/window/MainWindow.h"
#include "ui/panels/OutputsPanel.h"
#include "ui/document/Selection.h"

using namespace ptescope;

namespace {

// One [4096, 4096] @ [4096, 4096] product: 2^36 multiply-adds, minutes on the
// CPU kernels, so a run of it is inside that one kernel for as long as a
// test looks.
constexpr const char* kLongProduct = R"({"methods": [{"name": "forward", "inputs": ["a", "b"], "outputs": ["y"],
  "tensors": {"a": {"dtype": "float32", "sizes": [4096, 4096]}, "b": {"dtype": "float32", "sizes": [4096, 4096]},
              "y": {"dtype": "float32", "sizes": [4096, 4096]}},
  "nodes": [{"op": "aten::mm.out", "inputs": ["a", "b"], "outputs": ["y"]}]}]})";

// S of "instruction 1 of 1, S s so far" in the header; -1 when it says something else.
int secondsSoFar(const QLabel* header) {
  const auto match = QRegularExpression("instruction 1 of 1, (\\d+) s so far").match(header->text());
  return match.hasMatch() ? match.captured(1).toInt() : -1;
}

}  // namespace

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

    // A scalar output: its kind under Type, its value under First values
    // (as the Values panel shows it; "Double 2.5" was all in Type).
    QVERIFY(window.showMethod("get_double"));
    QVERIFY(panel->runOnce());
    QVERIFY(finished.wait(60000));
    QCOMPARE(table->item(0, 2)->text(), QString("Double"));
    QCOMPARE(table->item(0, 6)->text(), QString("2.5"));
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

  // Issue 34 item 14: while one kernel runs for minutes the header's
  // "S s so far" counts on (a timer of the UI thread moves it, not the
  // kernel), and Cancel stops the run inside that kernel: the panel says it
  // was cancelled and shows no outputs. Had the product not looked at Cancel,
  // the run would go on for minutes and `failed` would not come.
  void aLongRunCountsOnAndCancelsInsideItsKernel() {
    auto synthesized = synth::synthesizeFromSpec(kLongProduct);
    QVERIFY2(synthesized.ok(), synthesized ? "" : synthesized.error().message.c_str());
    auto program = synth::applyDevicePasses(*synthesized);
    QVERIFY2(program.ok(), program ? "" : program.error().message.c_str());
    const QString file = test::tempDir() + "/long-product.pte";
    QVERIFY(synth::writeProgramAndData(*program, file.toStdString()).ok());
    ui::Document document;
    ui::MainWindow window(&document);
    QVERIFY(window.openFile(file));
    ui::OutputsPanel* panel = window.outputsPanel();
    QSignalSpy failed(panel, &ui::OutputsPanel::failed);
    QSignalSpy finished(panel, &ui::OutputsPanel::finished);
    QVERIFY(panel->runOnce());
    const auto* header = panel->findChild<QLabel*>("outputsHeader");
    int first = -1;
    QTRY_VERIFY_WITH_TIMEOUT((first = secondsSoFar(header)) >= 1, 60000);
    QTRY_VERIFY_WITH_TIMEOUT(secondsSoFar(header) > first, 10000);
    QVERIFY2(header->text().startsWith("Running 'forward'… instruction 1 of 1, "), qPrintable(header->text()));
    panel->findChild<QPushButton*>("cancelRunOnce")->click();
    QVERIFY(failed.wait(60000) || failed.count() == 1);
    QCOMPARE(failed.first().first().toString(), QString(exec::kRunCancelled));
    QCOMPARE(finished.count(), 0);
    QVERIFY2(header->text().startsWith("Run cancelled"), qPrintable(header->text()));
    QCOMPARE(panel->table()->rowCount(), 0);
    QVERIFY(!panel->isRunning());
  }
};

QTEST_MAIN(OutputsPanelTest)
#include "test_outputs_panel.moc"
