// Predicted copy costs in the app, offscreen, against ptescope-cli's numbers
// for the same program and link: the Transfers panel's Predicted column and
// totals, a change of link or host memory, the diff banner and the Changes
// list after an edit, the measured / predicted column beside an (emulated)
// profile, and the "Predicted copy time" graph overlay.
#include <QtTest>

#include <QComboBox>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>

#include <nlohmann/json.hpp>

#include "exec/DeviceRuntime.h"
#include "exec/Profiler.h"
#include "report/ProfileWriters.h"
#include "support/TestSupport.h"
#include "support/UiTestSupport.h"
#include "ui/panels/ChangesPanel.h"
#include "ui/document/Document.h"
#include "ui/common/Format.h"
#include "ui/graph/GraphView.h"
#include "ui/common/ItemRoles.h"
#include "ui/profile/LinkSelection.h"
#include "ui/window/MainWindow.h"
#include "ui/profile/TransfersModel.h"

using namespace ptescope;
using ui::MainWindow;
using ui::TransfersModel;

namespace {

nlohmann::json cliJson(const QStringList& args) {
  auto r = test::runCli(args);
  if (r.exitCode != 0) qWarning("%s", r.err.constData());
  return nlohmann::json::parse(r.out.begin(), r.out.end(), nullptr, false);
}

// instruction -> predicted seconds, from `predict --json`.
std::map<size_t, double> cliPredictions(const nlohmann::json& j) {
  std::map<size_t, double> out;
  for (const auto& c : j["copies"]) out[c["instruction"].get<size_t>()] = c["predicted_us"].get<double>() * 1e-6;
  return out;
}

void expectColumnMatches(const TransfersModel& model, const nlohmann::json& cli) {
  const auto expected = cliPredictions(cli);
  QCOMPARE(size_t(model.rowCount()), expected.size());
  for (int r = 0; r < model.rowCount(); ++r) {
    const auto instruction = model.rows()[size_t(r)].instruction;
    QVERIFY(expected.count(instruction));
    const double seconds = expected.at(instruction);
    QVERIFY(qAbs(model.index(r, TransfersModel::PredictedTime).data(ui::SortRole).toDouble() - seconds) < 1e-12);
    QCOMPARE(model.index(r, TransfersModel::PredictedTime).data().toString(), ui::durationText(seconds));
  }
  const double h2d = cli["totals"]["h2d"]["predicted_us"].get<double>() * 1e-6;
  const double d2h = cli["totals"]["d2h"]["predicted_us"].get<double>() * 1e-6;
  const QString totals = model.totalsText();
  QVERIFY2(totals.contains(QString("h2d %1, d2h %2").arg(ui::durationText(h2d), ui::durationText(d2h))), qPrintable(totals));
  QVERIFY(totals.contains(QString::fromStdString(cli["link"]["title"].get<std::string>())));
  QVERIFY(totals.contains(QString::fromStdString(cli["host_memory"].get<std::string>())));
}

}  // namespace

class LinkPredictionsTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { qputenv("PTESCOPE_NO_DIALOGS", "1"); }

  void transfersPanelMatchesTheCli() {
    const QString demo = test::writeDemoProgram("predict-demo.pte");
    QVERIFY(!demo.isEmpty());
    ui::Document doc;
    MainWindow window(&doc);
    QVERIFY(test::showProgram(window, demo, "forward"));
    QVERIFY(window.showPanel("transfers"));
    auto* model = qobject_cast<TransfersModel*>(
        qobject_cast<QSortFilterProxyModel*>(window.transfersView()->model())->sourceModel());
    QVERIFY(model != nullptr);
    QCOMPARE(model->columnCount(), int(TransfersModel::kPlainColumns));
    QCOMPARE(model->headerData(TransfersModel::PredictedTime, Qt::Horizontal).toString(), QString("Predicted"));

    // The default link, pageable host memory: `predict` with no options.
    expectColumnMatches(*model, cliJson({"predict", demo, "--json"}));
    auto* totals = window.findChild<QLabel*>("transferTotals");
    QVERIFY(totals && totals->text() == model->totalsText());

    // Another link and pinned memory, through the chooser's selection.
    QVERIFY(window.linkSelection()->selectByName("nvlink-c2c"));
    window.linkSelection()->setHostMemory(exec::HostMemoryKind::Pinned);
    expectColumnMatches(*model, cliJson({"predict", demo, "--json", "--link", "nvlink-c2c", "--pinned"}));
    QCOMPARE(totals->text(), model->totalsText());
    auto* chooser = window.findChild<QComboBox*>("linkProfile");
    QVERIFY(chooser != nullptr);
    QCOMPARE(chooser->currentText(), QString("NVLink-C2C (Grace Hopper)"));
    QCOMPARE(window.findChild<QComboBox*>("linkHostMemory")->currentData().toInt(), int(exec::HostMemoryKind::Pinned));

    // A profile file (written by probe-link) loads and is chosen.
    const QString file = test::tempDir() + "/probed.json";
    {
      auto r = test::runCli({"probe-link", "--emulated", "-o", file, "--max-bytes", "16384", "--repeats", "1"});
      QVERIFY2(r.exitCode == 0, r.err.constData());
    }
    QVERIFY(window.linkSelection()->loadFile(file).ok());
    QVERIFY(chooser->currentText().contains("probed.json"));
    expectColumnMatches(*model, cliJson({"predict", demo, "--json", "--link", file, "--pinned"}));
    QVERIFY(!window.linkSelection()->loadFile(test::tempDir() + "/missing.json").ok());

    QVERIFY(window.linkSelection()->selectByName("pcie-gen4-x16"));
    window.linkSelection()->setHostMemory(exec::HostMemoryKind::Pageable);
    window.transfersView()->resizeColumnsToContents();
    QVERIFY(test::saveScreenshot(window, "transfers-predicted"));
  }

  void diffBannerAndChangesSayWhatTheEditSaves() {
    const QString demo = test::writeDemoProgram("predict-demo.pte");
    ui::Document doc;
    MainWindow window(&doc);
    QVERIFY(test::showProgram(window, demo, "forward"));
    QVERIFY(window.linkSelection()->selectByName("pcie-gen3-x16"));
    const int m = doc.currentMethodIndex();
    auto options = doc.methodOptions(m);
    options.skip_h2d_for_method_inputs = true;
    doc.setMethodOptions(m, options);
    doc.waitForPipeline();
    QVERIFY2(doc.pipelineError().isEmpty(), qPrintable(doc.pipelineError()));
    QCOMPARE(window.graphMode(), MainWindow::GraphMode::Diff);
    QVERIFY(test::waitForGraph(window.graph()));

    // The same edit through the CLI, on the same link.
    const auto cli = cliJson({"propagate", demo, "-o", test::tempDir() + "/skip.pte", "--method", "forward",
                              "--skip-h2d-inputs", "--link", "pcie-gen3-x16", "--json"});
    QVERIFY(!cli.is_discarded());
    const nlohmann::json* forward = nullptr;
    for (const auto& p : cli["predicted"])
      if (p["method"] == "forward") forward = &p;
    QVERIFY(forward != nullptr);
    const double before = (*forward)["before_us"].get<double>() * 1e-6;
    const double after = (*forward)["after_us"].get<double>() * 1e-6;
    QVERIFY(after < before);  // one H2D copy fewer
    const QString banner = window.graph()->diffSummary();
    QVERIFY2(banner.contains(ui::signedDurationText(after - before) + " per run"), qPrintable(banner));
    QVERIFY2(banner.contains(ui::durationText(before) + " → " + ui::durationText(after)), qPrintable(banner));
    QVERIFY2(banner.contains("PCIe Gen3 x16, pageable"), qPrintable(banner));

    // The Changes list: the method's header says the same; the removed copy its cost.
    auto* changes = window.changes();
    bool header = false, removedCost = false;
    const double removed = before - after;
    for (int i = 0; i < changes->count(); ++i) {
      const QString text = changes->item(i)->text();
      if (text.startsWith("method 'forward'")) header = text.contains(ui::signedDurationText(after - before) + " per run");
      if (text.startsWith("  − h2d")) removedCost = text.contains("~" + ui::durationText(removed));
    }
    QVERIFY(header);
    QVERIFY(removedCost);

    // A change of link re-prices the banner.
    QVERIFY(window.linkSelection()->selectByName("nvlink-c2c"));
    QVERIFY2(window.graph()->diffSummary().contains("NVLink-C2C (Grace Hopper), pageable"),
             qPrintable(window.graph()->diffSummary()));
    QVERIFY(!window.graph()->diffSummary().contains(ui::signedDurationText(after - before) + " per run"));
    QVERIFY(test::saveScreenshot(window, "diff-predicted"));
  }

  void measuredBesidePredictedAndOverlay() {
    const QString demo = test::writeDemoProgram("predict-demo.pte");
    ui::Document doc;
    MainWindow window(&doc);
    window.show();
    QVERIFY(window.openFile(demo));
    QVERIFY(window.showMethod("forward"));
    QVERIFY(test::waitForGraph(window.graph()));
    TransfersModel model(&doc);
    const auto* link = window.linkSelection()->link().get();
    model.setLink(window.linkSelection()->link(), exec::HostMemoryKind::Pageable);
    auto selection = exec::selectRuntime(exec::RuntimePreference::Host);
    QVERIFY(selection.ok());
    exec::ProfileOptions options;
    options.iterations = 3;
    options.warmup = 1;
    options.peak_probe_bytes = 1 << 20;
    auto profile = exec::profileMethod(doc.program(), *selection->runtime, options);
    QVERIFY(profile.ok());
    exec::identifyCopies(profile.value(), doc.program());
    auto shared = std::make_shared<const exec::TransferProfile>(std::move(profile.value()));
    model.setProfiles(shared, nullptr, "run 1");
    QCOMPARE(model.columnCount(), int(TransfersModel::kMeasuredColumns));
    QCOMPARE(model.headerData(TransfersModel::Bandwidth, Qt::Horizontal).toString(), QString("memcpy GB/s"));
    for (int r = 0; r < model.rowCount(); ++r) {
      const auto& row = model.rows()[size_t(r)];
      QVERIFY(row.latest != nullptr);
      const auto direction = row.direction;
      const double predicted = link->secondsFor(direction, exec::HostMemoryKind::Pageable, uint64_t(row.bytes)).value();
      // Predicted on the link; but an emulated measurement (host memcpy) is
      // not divided by it (issue 24, item 16): the ratio cell stays empty.
      QCOMPARE(model.index(r, TransfersModel::PredictedTime).data(ui::SortRole).toDouble(), predicted);
      QCOMPARE(model.index(r, TransfersModel::MeasuredOverPredicted).data().toString(), QStringLiteral("—"));
      QCOMPARE(model.index(r, TransfersModel::PeakShare).data().toString(), QStringLiteral("—"));  // emulated
      QVERIFY(model.index(r, TransfersModel::MeasuredOverPredicted).data(Qt::ToolTipRole).toString().contains("memcpy"));
    }

    // The overlay colours copies by predicted time without any profile.
    auto* overlay = window.findChild<QComboBox*>("overlayMetric");
    QVERIFY(overlay && overlay->isEnabled());
    const int predictedItem = overlay->findText("Predicted copy time");
    QVERIFY(predictedItem >= 0);
    overlay->setCurrentIndex(predictedItem);
    QCOMPARE(window.graph()->overlayMetric(), ui::GraphView::OverlayMetric::Time);
    QVERIFY(window.graph()->hasMeasurements());
  }
};

QTEST_MAIN(LinkPredictionsTest)
#include "test_link_predictions.moc"
