// ui::DiagnosticsModel under QAbstractItemModelTester (and behind a sort
// proxy, as the panel shows it) while the document opens programs, is
// edited and closed: the rows are lint's findings, errors first, with the
// roles the panel and the graph navigate by.
#include <QtTest>

#include <QAbstractItemModelTester>
#include <QDir>
#include <QIcon>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QUndoStack>

#include "support/TestSupport.h"
#include "ui/panels/DiagnosticsModel.h"
#include "ui/document/Document.h"
#include "ui/common/ItemRoles.h"

using namespace ptescope;
using ui::DiagnosticsModel;

namespace {

QString scenarioFile(const QString& scenario) {
  const QString out = QDir(test::tempDir()).filePath(scenario + ".pte");
  if (!QFile::exists(out)) {
    auto r = test::runCli({"synth", "--scenario", scenario, "-o", out});
    if (r.exitCode != 0) QTest::qFail(qPrintable(r.err), __FILE__, __LINE__);
  }
  return out;
}

// a + b in a delegate targeting cuda:16, as built (no copies): the delegate
// reads a and b on the host.
QString hostInputsOnCuda16() {
  const QString spec = QDir(test::tempDir()).filePath("cuda16.json");
  const std::string text = R"({"methods": [{"name": "forward", "inputs": ["a", "b"], "outputs": ["y"],
    "tensors": {"a": {"dtype": "float32", "sizes": [2, 2]}, "b": {"dtype": "float32", "sizes": [2, 2]},
                "y": {"dtype": "float32", "sizes": [2, 2]}},
    "nodes": [{"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:16"},
               "inputs": ["a", "b"], "outputs": ["y"]}]}]})";
  test::writeAll(spec, std::vector<uint8_t>(text.begin(), text.end()));
  const QString out = QDir(test::tempDir()).filePath("cuda16.pte");
  auto r = test::runCli({"synth", spec, "--no-passes", "-o", out});
  if (r.exitCode != 0) QTest::qFail(qPrintable(r.err), __FILE__, __LINE__);
  return out;
}

QString cell(const QAbstractItemModel& m, int row, int column, int role = Qt::DisplayRole) {
  return m.data(m.index(row, column), role).toString();
}

}  // namespace

class DiagnosticsModelTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { qputenv("PTESCOPE_NO_DIALOGS", "1"); }

  void emptyDocument() {
    ui::Document doc;
    DiagnosticsModel model(&doc);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.columnCount(), 5);
    QCOMPARE(model.errorCount(), 0);
    QCOMPARE(model.warningCount(), 0);
    QStringList headers;
    for (int c = 0; c < model.columnCount(); ++c) headers << model.headerData(c, Qt::Horizontal).toString();
    QCOMPARE(headers, (QStringList{"Severity", "Rule", "Location", "Finding", "Fix"}));
    QVERIFY(!model.headerData(0, Qt::Vertical).isValid());
    QVERIFY(!model.data(model.index(0, 0)).isValid());
  }

  // skip_both with planned graph IO (spec §2.6): both inputs are errors
  // (PTS001), the output a warning (PTS002). An edit to the documented
  // pairing clears them; opening and closing other programs resets the rows.
  void followsTheDocument() {
    ui::Document doc;
    DiagnosticsModel model(&doc);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSortFilterProxyModel sorted;
    sorted.setSourceModel(&model);
    sorted.setSortRole(ui::SortRole);
    sorted.sort(DiagnosticsModel::Severity, Qt::AscendingOrder);
    QAbstractItemModelTester proxyTester(&sorted, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy counts(&model, &DiagnosticsModel::countsChanged);

    const QString file = scenarioFile("skip_both");
    QString error;
    QVERIFY2(doc.open(file, &error), qPrintable(error));
    doc.waitForPipeline();
    QVERIFY(counts.count() >= 1);
    QCOMPARE(model.rowCount(), 3);
    QCOMPARE(model.errorCount(), 2);
    QCOMPARE(model.warningCount(), 1);

    const auto inputs = program::items(doc.loadedProgram().methods().front().inputs);
    const auto outputs = program::items(doc.loadedProgram().methods().front().outputs);
    QCOMPARE(inputs.size(), size_t(2));
    QCOMPARE(outputs.size(), size_t(1));
    // Errors first, in lint's order; the warning last.
    QSet<int> errorValues;
    for (int row = 0; row < 2; ++row) {
      QCOMPARE(cell(model, row, DiagnosticsModel::Severity), QString("error"));
      QCOMPARE(cell(model, row, DiagnosticsModel::Id), QString("PTS001 planned-device-input"));
      const int value = model.data(model.index(row, 0), ui::ValueIndexRole).toInt();
      errorValues.insert(value);
      QCOMPARE(cell(model, row, DiagnosticsModel::Location), "method 'forward', value %" + QString::number(value));
      QVERIFY(cell(model, row, DiagnosticsModel::Message).contains("is memory-planned on cuda:0"));
      QVERIFY(cell(model, row, DiagnosticsModel::Hint).contains("alloc_graph_input=False"));
    }
    QCOMPARE(errorValues, (QSet<int>{inputs[0], inputs[1]}));
    QCOMPARE(cell(model, 2, DiagnosticsModel::Severity), QString("warning"));
    QCOMPARE(cell(model, 2, DiagnosticsModel::Id), QString("PTS002 planned-device-output"));
    QCOMPARE(model.data(model.index(2, 3), ui::ValueIndexRole).toInt(), outputs[0]);
    // Roles the panel navigates by: the method, the value, no instruction.
    for (int row = 0; row < 3; ++row) {
      QCOMPARE(model.data(model.index(row, 1), DiagnosticsModel::MethodNameRole).toString(), QString("forward"));
      QCOMPARE(model.data(model.index(row, 1), ui::InstructionRole).toLongLong(), -1);
      QVERIFY(!model.data(model.index(row, DiagnosticsModel::Severity), Qt::DecorationRole).value<QIcon>().isNull());
      QVERIFY(!model.data(model.index(row, DiagnosticsModel::Id), Qt::DecorationRole).isValid());
      QCOMPARE(cell(model, row, DiagnosticsModel::Message, Qt::ToolTipRole),
               cell(model, row, DiagnosticsModel::Message));
    }
    // The severity sorts errors above warnings (descending by rank) whatever
    // the source order.
    QVERIFY(model.data(model.index(0, 0), ui::SortRole).toInt() > model.data(model.index(2, 0), ui::SortRole).toInt());
    QCOMPARE(cell(sorted, 0, DiagnosticsModel::Severity), QString("warning"));

    // The working pairing: graph IO unplanned, nothing left to report.
    auto options = doc.methodOptions(0);
    options.alloc_graph_input = false;
    options.alloc_graph_output = false;
    const int before = counts.count();
    doc.setMethodOptions(0, options);
    doc.waitForPipeline();
    QVERIFY2(doc.pipelineError().isEmpty(), qPrintable(doc.pipelineError()));
    QVERIFY(counts.count() > before);
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(sorted.rowCount(), 0);
    QCOMPARE(model.errorCount(), 0);
    QCOMPARE(model.warningCount(), 0);
    // Undo brings the findings back.
    doc.undoStack()->undo();
    doc.waitForPipeline();
    QCOMPARE(model.rowCount(), 3);

    // Lint reports the warning (a delegate setting) before the errors (the
    // delegate call reading host tensors; its CudaBackend payload is empty,
    // so init looks for "so_blob", which no file holds); the model puts the
    // errors first.
    QVERIFY2(doc.open(hostInputsOnCuda16(), &error), qPrintable(error));
    doc.waitForPipeline();
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(sorted.rowCount(), 4);
    QCOMPARE(model.errorCount(), 3);
    QCOMPARE(model.warningCount(), 1);
    QCOMPARE(cell(model, 0, DiagnosticsModel::Id), QString("PTS020 delegate-data-missing"));
    for (int row = 1; row < 3; ++row) {
      QCOMPARE(cell(model, row, DiagnosticsModel::Id), QString("PTS014 host-tensor-into-device-delegate"));
      QCOMPARE(model.data(model.index(row, 0), ui::InstructionRole).toLongLong(), 0);
    }
    QCOMPARE(cell(model, 3, DiagnosticsModel::Id), QString("PTS009 unusual-device-index"));
    QCOMPARE(cell(model, 3, DiagnosticsModel::Location), QString("method 'forward', delegate 0"));
    QCOMPARE(model.data(model.index(3, 0), ui::ValueIndexRole).toInt(), -1);
    QCOMPARE(model.data(model.index(3, 0), ui::InstructionRole).toLongLong(), -1);

    doc.close();
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(model.errorCount(), 0);
    QVERIFY(!doc.open(QDir(test::tempDir()).filePath("missing.pte"), &error));
    QCOMPARE(model.rowCount(), 0);
  }
};

QTEST_MAIN(DiagnosticsModelTest)
#include "test_diagnostics_model.moc"
