// Editing in the app, offscreen: every option and target-device edit on the
// demo and on scenario programs gives the same program as `ptescope-cli
// propagate` with the same edits; undo returns to the exact previous state;
// a saved file re-opens with the same placement.
#include <QtTest>

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QTableView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUndoStack>

#include "analysis/Summary.h"
#include "passes/Pipeline.h"
#include "pte/JsonDump.h"
#include "pte/Writer.h"
#include "support/TestSupport.h"
#include "support/UiTestSupport.h"
#include "ui/panels/ChangesPanel.h"
#include "ui/panels/DiagnosticsModel.h"
#include "ui/document/Document.h"
#include "ui/window/MainWindow.h"
#include "ui/panels/MemoryPlanView.h"
#include "ui/panels/PassOptionsPanel.h"

using namespace ptescope;

namespace {

// The program's whole JSON dump: equal dumps mean equal programs.
QByteArray dumpOf(const program::Program& p) {
  auto bytes = pte::serializeProgram(p);
  if (!bytes) return "serialize error";
  auto text = pte::dumpProgramJson(bytes.value());
  return text ? QByteArray::fromStdString(text.value()) : QByteArray("dump error");
}

QByteArray fileDump(const QString& path) {
  auto text = pte::dumpProgramJson(test::readAll(path));
  return text ? QByteArray::fromStdString(text.value()) : QByteArray("dump error");
}

QString writeDemo() {
  const QString path = test::tempDir() + "/demo.pte";
  auto r = test::runCli({"synth", "--demo", "-o", path});
  return r.exitCode == 0 ? path : QString();
}


}  // namespace

class EditingTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { qputenv("PTESCOPE_NO_DIALOGS", "1"); }

  void optionEditsMatchTheCli_data() {
    QTest::addColumn<QString>("checkbox");
    QTest::addColumn<QStringList>("cliFlags");
    QTest::newRow("skip_h2d") << "skip_h2d_for_method_inputs" << QStringList{"--skip-h2d-inputs"};
    QTest::newRow("skip_d2h") << "skip_d2h_for_method_outputs" << QStringList{"--skip-d2h-outputs"};
    QTest::newRow("alloc_input") << "alloc_graph_input" << QStringList{"--no-alloc-graph-input"};
    QTest::newRow("alloc_output") << "alloc_graph_output" << QStringList{"--no-alloc-graph-output"};
    QTest::newRow("planning") << "enable_non_cpu_memory_planning" << QStringList{"--no-device-planning"};
  }
  void optionEditsMatchTheCli() {
    QFETCH(QString, checkbox);
    QFETCH(QStringList, cliFlags);
    const QString demo = writeDemo();
    QVERIFY(!demo.isEmpty());
    ui::Document doc;
    ui::MainWindow window(&doc);
    QVERIFY(window.openFile(demo));
    const QByteArray before = dumpOf(doc.program());
    auto* box = window.passOptions()->findChild<QCheckBox*>(checkbox);
    QVERIFY(box);
    box->click();  // as a user toggles it
    doc.waitForPipeline();
    QVERIFY2(doc.pipelineError().isEmpty(), qPrintable(doc.pipelineError()));
    QVERIFY(doc.isModified());
    QVERIFY(window.isWindowModified());
    QCOMPARE(doc.undoStack()->count(), 1);
    // The CLI with the same edit on the same method.
    const QString out = test::tempDir() + "/cli-" + checkbox + ".pte";
    auto r = test::runCli(QStringList{"propagate", demo, "-o", out, "--method", "forward"} + cliFlags);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(dumpOf(doc.program()), fileDump(out));
    // Undo returns to the exact previous state.
    doc.undoStack()->undo();
    doc.waitForPipeline();
    QCOMPARE(dumpOf(doc.program()), before);
    QVERIFY(!doc.isModified());
    doc.undoStack()->redo();
    doc.waitForPipeline();
    QCOMPARE(dumpOf(doc.program()), fileDump(out));
  }

  void editsOfAFileWithOtherOptionsMatchTheCli() {
    // forward exported with its inputs pre-staged on the GPU: skip_h2d on,
    // alloc_graph_input off. Both the app and the CLI start from that.
    const QString demo = writeDemo();
    const QString prestaged = test::tempDir() + "/prestaged.pte";
    auto p = test::runCli({"propagate", demo, "-o", prestaged, "--method", "forward", "--skip-h2d-inputs",
                           "--no-alloc-graph-input"});
    QVERIFY2(p.exitCode == 0, p.err.constData());
    ui::Document doc;
    ui::MainWindow window(&doc);
    QVERIFY(window.openFile(prestaged));
    const int forward = doc.currentMethodIndex();
    QVERIFY(doc.methodOptions(forward).skip_h2d_for_method_inputs);
    QVERIFY(!doc.methodOptions(forward).alloc_graph_input);
    // Opened unedited: the same program as the CLI with no flags.
    const QString same = test::tempDir() + "/prestaged-same.pte";
    QCOMPARE(test::runCli({"propagate", prestaged, "-o", same}).exitCode, 0);
    QCOMPARE(dumpOf(doc.program()), fileDump(same));
    // One edit in the app, the same flag on the CLI: the file's other options stay.
    auto* box = window.passOptions()->findChild<QCheckBox*>("skip_d2h_for_method_outputs");
    QVERIFY(box);
    box->click();
    doc.waitForPipeline();
    QVERIFY2(doc.pipelineError().isEmpty(), qPrintable(doc.pipelineError()));
    const QString out = test::tempDir() + "/prestaged-d2h.pte";
    auto r = test::runCli({"propagate", prestaged, "-o", out, "--method", "forward", "--skip-d2h-outputs"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(dumpOf(doc.program()), fileDump(out));
    // Turning the file's skip off in the app is --no-skip-h2d-inputs on the CLI.
    box = window.passOptions()->findChild<QCheckBox*>("skip_h2d_for_method_inputs");
    QVERIFY(box && box->isChecked());
    box->click();
    doc.waitForPipeline();
    const QString off = test::tempDir() + "/prestaged-off.pte";
    r = test::runCli({"propagate", prestaged, "-o", off, "--method", "forward", "--skip-d2h-outputs",
                      "--no-skip-h2d-inputs"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(dumpOf(doc.program()), fileDump(off));
  }

  void targetDeviceEditMatchesTheCli() {
    const QString demo = writeDemo();
    ui::Document doc;
    ui::MainWindow window(&doc);
    QVERIFY(window.openFile(demo));
    auto* chooser = window.passOptions()->findChild<QComboBox*>("delegateTarget1");
    QVERIFY(chooser);
    QCOMPARE(chooser->currentText(), QString("cuda:0"));
    doc.setDelegateTarget(doc.currentMethodIndex(), 1, program::Device{program::DeviceType::Cuda, 1});
    doc.waitForPipeline();
    const QString out = test::tempDir() + "/cli-device.pte";
    auto r = test::runCli({"propagate", demo, "-o", out, "--method", "forward", "--set-device", "1=cuda:1"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(dumpOf(doc.program()), fileDump(out));
    QVERIFY(doc.undoStack()->undoText().contains("cuda:1"));
    // The change list shows the moved copies and a new cuda:1 buffer.
    QVERIFY(window.changes()->count() > 2);
    bool cuda1Buffer = false;
    for (const auto& band : window.memoryPlan()->bands()) cuda1Buffer = cuda1Buffer || band.device == "cuda:1";
    QVERIFY(cuda1Buffer);
    QVERIFY(test::saveScreenshot(window, "edit-target-device"));
    // The graph's context menu on the first delegate call (instruction 1)
    // offers the same choices; picking one is an undoable edit.
    QMenu menu;
    window.populateInstructionMenu(&menu, 1);
    QAction* cuda2 = nullptr;
    for (QAction* a : menu.actions())
      if (a->text() == "cuda:2") cuda2 = a;
    QVERIFY(cuda2);
    cuda2->trigger();
    doc.waitForPipeline();
    QCOMPARE(doc.delegateTarget(doc.currentMethodIndex(), 0), (std::optional<program::Device>(program::Device{program::DeviceType::Cuda, 2})));
    doc.undoStack()->undo();
    doc.waitForPipeline();
    // Removing the target device turns the delegate into a host delegate.
    doc.setDelegateTarget(doc.currentMethodIndex(), 0, std::nullopt);
    doc.setDelegateTarget(doc.currentMethodIndex(), 1, std::nullopt);
    doc.waitForPipeline();
    auto s = analysis::summarizeMethod(*doc.currentMethod());
    QCOMPARE(s.h2d_copies + s.d2h_copies, size_t(0));
    QCOMPARE(doc.undoStack()->count(), 3);
    doc.undoStack()->setIndex(0);
    QVERIFY(!doc.isModified());
  }

  void manyDelegatesMoveTogether() {
    const QString path = test::tempDir() + "/large20.pte";
    QCOMPARE(test::runCli({"synth", "--large", "20", "-o", path}).exitCode, 0);  // 60 delegates
    ui::Document doc;
    ui::MainWindow window(&doc);
    QVERIFY(window.openFile(path));
    QVERIFY(!window.passOptions()->findChild<QComboBox*>("delegateTarget0"));
    auto* all = window.passOptions()->findChild<QComboBox*>("allDelegatesTarget");
    QVERIFY(all);
    doc.setAllDelegateTargets(doc.currentMethodIndex(), program::Device{program::DeviceType::Cuda, 1});
    doc.waitForPipeline();
    QCOMPARE(doc.undoStack()->count(), 1);
    auto s = analysis::summarizeMethod(*doc.currentMethod());
    QCOMPARE(s.tensors_by_device.count("cuda:0"), size_t(0));
    QVERIFY(s.tensors_by_device["cuda:1"] > 0);
    const QString out = test::tempDir() + "/large20-cuda1.pte";
    QStringList args{"propagate", path, "-o", out, "--method", "forward"};
    for (int d = 0; d < 60; ++d) args << "--set-device" << QString("%1=cuda:1").arg(d);
    QCOMPARE(test::runCli(args).exitCode, 0);
    QCOMPARE(dumpOf(doc.program()), fileDump(out));
  }

  void invalidCombinationExplainedAndFixed() {
    auto scenario = test::runCli({"synth", "--scenario", "h2d_d2h", "-o", test::tempDir() + "/h2d.pte"});
    QCOMPARE(scenario.exitCode, 0);
    ui::Document doc;
    ui::MainWindow window(&doc);
    QVERIFY(window.openFile(test::tempDir() + "/h2d.pte"));
    auto options = doc.methodOptions(0);
    options.enable_non_cpu_memory_planning = false;
    options.skip_h2d_for_method_inputs = true;
    doc.setMethodOptions(0, options);
    doc.waitForPipeline();
    auto* error = window.passOptions()->findChild<QLabel*>("optionsError");
    QVERIFY(error->text().contains("only meaningful when enable_non_cpu_memory_planning=True"));
    QCOMPARE(error->text(), doc.pipelineError());  // the pipeline's own words
    // Planning back on: skips with planned graph IO get the one-click fix.
    options.enable_non_cpu_memory_planning = true;
    doc.setMethodOptions(0, options);
    doc.waitForPipeline();
    QVERIFY(doc.pipelineError().isEmpty());
    // The runtime would refuse set_input: lint says so.
    QVERIFY(window.diagnostics()->errorCount() > 0);
    auto* fix = window.passOptions()->findChild<QPushButton*>("pairFix");
    QVERIFY(fix->isVisibleTo(window.passOptions()));
    fix->click();
    doc.waitForPipeline();
    QVERIFY(!doc.methodOptions(0).alloc_graph_input);
    QCOMPARE(window.diagnostics()->errorCount(), 0);
    for (int32_t v : *doc.currentMethod()->inputs) QVERIFY(!(*doc.currentMethod()->values)[size_t(v)].tensor()->isPlanned());
  }

  void savedFileReopensWithSamePlacement() {
    const QString demo = writeDemo();
    ui::Document doc;
    ui::MainWindow window(&doc);
    QVERIFY(window.openFile(demo));
    auto options = doc.methodOptions(doc.currentMethodIndex());
    options.skip_h2d_for_method_inputs = true;
    options.alloc_graph_input = false;
    doc.setMethodOptions(doc.currentMethodIndex(), options);
    doc.waitForPipeline();
    // The report exports as JSON with the change (against the file loaded).
    const QString report = test::tempDir() + "/report.json";
    QVERIFY(window.exportReportTo(report));
    const auto bytes = test::readAll(report);
    const auto json = QJsonDocument::fromJson(QByteArray(reinterpret_cast<const char*>(bytes.data()), qsizetype(bytes.size())));
    QVERIFY(json.object()["changed"].toBool());
    // Never over the loaded file without confirmation.
    QVERIFY(!window.saveTo(demo));
    QVERIFY(window.lastError().contains("refusing to overwrite"));
    const QString saved = test::tempDir() + "/saved.pte";
    const auto program = dumpOf(doc.program());
    QVERIFY(window.saveTo(saved));
    ui::Document reopened;
    QVERIFY(reopened.open(saved));
    QCOMPARE(dumpOf(reopened.program()), program);
    QCOMPARE(reopened.fileOptions(reopened.currentMethodIndex()), options);
    // The window is now the saved file: the same program, nothing edited.
    QCOMPARE(dumpOf(doc.program()), program);
    QVERIFY(!doc.isModified());
  }

  void memoryPlanShowsEveryPlannedTensor() {
    ui::Document doc;
    ui::MainWindow window(&doc);
    QVERIFY(window.openDemo());
    window.resize(1400, 900);
    for (int i = 0; i < window.bottomTabs()->count(); ++i)
      if (window.bottomTabs()->tabText(i) == "Memory plan") window.bottomTabs()->setCurrentIndex(i);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto* plan = window.memoryPlan();
    size_t planned = 0;
    for (const auto& v : *doc.currentMethod()->values)
      if (v.tensor() && v.tensor()->isPlanned()) ++planned;
    QCOMPARE(plan->blocks().size(), planned);
    QCOMPARE(plan->bands().size(), size_t(2));
    // A click on a block selects its tensor.
    QSignalSpy clicked(plan, &ui::MemoryPlanView::valueClicked);
    const auto& block = plan->blocks().front();
    bool found = false;
    for (int x = 0; x < plan->width() && !found; x += 3)
      for (int y = 0; y < plan->height() && !found; y += 3)
        if (plan->valueAt(QPoint(x, y)) == block.value) {
          QTest::mouseClick(plan, Qt::LeftButton, {}, QPoint(x, y));
          found = true;
        }
    QVERIFY(found);
    QCOMPARE(clicked.count(), 1);
    QVERIFY(test::saveScreenshot(window, "memory-plan"));
  }
};

QTEST_MAIN(EditingTest)
#include "test_editing.moc"
