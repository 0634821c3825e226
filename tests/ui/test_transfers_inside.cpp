// The Transfers table lists the copies delegates make inside themselves
// (issue 35): TensorRT staging of host memory and CudaBackend's CUDA graph
// replay are rows of their own, marked "inside delegate N (Backend)", with
// bytes, direction, devices, the predicted time on the link and, once a
// profile timed them, its figures; the totals count them apart as the
// profile's totals do; a row selects the delegate's instruction.
//
// Hand counts:
// - test::kTensorRTStagingSpec (tests/e2e/scenarios/tensorrt.py's program): x [2,8] float32
//   -> relu (#0) -> r -> TensorRTBackend (#1, cuda:0) -> y -> relu (#2) -> z,
//   device planning off. Every tensor is host memory, so the delegate stages
//   r host-to-device (TensorRTBackend.cpp 720-745) and y device-to-host
//   (883-900): 2 copies of 2*8*4 = 64 B, no et_copy at all. With device
//   planning on, the passes insert et_copy instructions at the boundary
//   instead and the delegate stages nothing.
// - The demo's `forward` (resources/demo.json) with CUDA graphs on: two
//   CudaBackend delegates, x [1,64] (256 B) in / hidden (256 B) out and
//   activated (256 B) in / logits [1,16] (64 B) out, each copied
//   device-to-device per replay (cuda_backend.cpp 573-610): 4 d2d copies,
//   832 B.
#include <QtTest>

#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>

#include "cost/CopyCost.h"
#include "cost/LinkProfile.h"
#include "exec/DeviceRuntime.h"
#include "exec/Profiler.h"
#include "support/UiTestSupport.h"
#include "ui/common/Format.h"
#include "ui/common/ItemRoles.h"
#include "ui/document/Document.h"
#include "ui/profile/TransfersModel.h"

using namespace ptescope;
using ui::TransfersModel;

namespace {

QString writeLegacy() {
  const QString spec = test::tempDir() + "/transfers_inside.json";
  const std::string text = test::kTensorRTStagingSpec;
  test::writeAll(spec, std::vector<uint8_t>(text.begin(), text.end()));
  return test::synthProgram("transfers_inside.pte", {spec});
}

QString cell(const QAbstractItemModel& model, int row, int column) { return model.index(row, column).data().toString(); }

// The row of `model` moving `direction`, or -1.
int rowMoving(const TransfersModel& model, program::CopyDirection direction) {
  for (size_t r = 0; r < model.rows().size(); ++r)
    if (model.rows()[r].direction == direction && !model.rows()[r].removed) return int(r);
  return -1;
}

std::shared_ptr<const exec::TransferProfile> profileOf(const program::Program& program,
                                                       const analysis::DelegateTransferOptions& settings = {}) {
  auto selection = exec::selectRuntime(exec::RuntimePreference::Host);
  if (!selection) return nullptr;
  exec::ProfileOptions options;
  options.method = "forward";
  options.warmup = 0;
  options.iterations = 3;
  options.measure_peak = false;
  options.run_settings = settings;
  auto profile = exec::profileMethod(program, *selection->runtime, options);
  if (!profile) {
    qWarning("profile failed: %s", profile.error().message.c_str());
    return nullptr;
  }
  return std::make_shared<const exec::TransferProfile>(std::move(profile.value()));
}

}  // namespace

class TransfersInsideTest : public QObject {
  Q_OBJECT
 private slots:
  void stagedCopiesAreRowsBeforeAnyProfile() {
    const QString path = writeLegacy();
    QVERIFY(!path.isEmpty());
    ui::Document doc;
    QVERIFY(doc.open(path));
    TransfersModel model(&doc);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.rowCount(), 2);  // the two staged copies; legacy mode has no et_copy
    const int h2d = rowMoving(model, program::CopyDirection::HostToDevice);
    const int d2h = rowMoving(model, program::CopyDirection::DeviceToHost);
    QVERIFY(h2d >= 0 && d2h >= 0);
    for (int r : {h2d, d2h}) {
      QVERIFY(model.rows()[size_t(r)].inside.has_value());
      QCOMPARE(cell(model, r, TransfersModel::Where), QString("inside delegate 0 (TensorRTBackend)"));
      QCOMPARE(cell(model, r, TransfersModel::Instruction), QString("1"));  // the delegate call
      QCOMPARE(cell(model, r, TransfersModel::Bytes), ui::bytesText(64));
      QCOMPARE(model.index(r, TransfersModel::Bytes).data(ui::SortRole).toLongLong(), 64);
      QCOMPARE(cell(model, r, TransfersModel::TensorShape).contains("[2, 8]") ||
                   cell(model, r, TransfersModel::TensorShape).contains("[2,8]"),
               true);
      const QString tip = model.index(r, TransfersModel::Where).data(Qt::ToolTipRole).toString();
      QVERIFY2(tip.contains("inside delegate 0 (TensorRTBackend): ") && tip.contains("is host memory, staged"), qPrintable(tip));
      QVERIFY(tip.contains("no instruction"));
      // Selecting the row selects the delegate's call.
      QCOMPARE(model.index(r, 0).data(ui::InstructionRole).toULongLong(), qulonglong(1));
      QCOMPARE(model.instructionOfRow(r), std::optional<size_t>(1));
    }
    QCOMPARE(cell(model, h2d, TransfersModel::Direction), QString("h2d"));
    QCOMPARE(cell(model, d2h, TransfersModel::Direction), QString("d2h"));
    QVERIFY(model.index(h2d, TransfersModel::Where).data(Qt::ToolTipRole).toString().contains("TensorRTBackend.cpp 720-745"));
    QVERIFY(model.index(d2h, TransfersModel::Where).data(Qt::ToolTipRole).toString().contains("TensorRTBackend.cpp 883-900"));
    // Host to the engine's device and back; the delegate's own buffer on
    // the engine's side.
    QCOMPARE(cell(model, h2d, TransfersModel::From), QString::fromStdString(program::Device{}.str()));
    QCOMPARE(cell(model, h2d, TransfersModel::To), QString("cuda:0"));
    QCOMPARE(cell(model, d2h, TransfersModel::From), QString("cuda:0"));
    QCOMPARE(cell(model, h2d, TransfersModel::Destination), QString("in delegate"));
    QVERIFY(cell(model, h2d, TransfersModel::Source).startsWith("%"));
    QCOMPARE(cell(model, d2h, TransfersModel::Source), QString("in delegate"));
    QCOMPARE(model.rowOfInstruction(1), std::min(h2d, d2h));  // the delegate selected: its first copy
    QCOMPARE(model.rowOfInstruction(0), -1);                  // a relu

    // Totals: no et_copy, the staging on a line per direction of its own.
    QCOMPARE(model.summary(program::CopyDirection::HostToDevice).copies, size_t(0));
    QCOMPARE(model.insideSummary(program::CopyDirection::HostToDevice).copies, size_t(1));
    QCOMPARE(model.insideSummary(program::CopyDirection::HostToDevice).bytes, qint64(64));
    QCOMPARE(model.insideSummary(program::CopyDirection::DeviceToHost).bytes, qint64(64));
    QCOMPARE(model.insideSummary(program::CopyDirection::DeviceToDevice).copies, size_t(0));
    QString totals = model.totalsText();
    QVERIFY2(totals.contains("h2d 0 copies · 0 B") && totals.contains("h2d inside delegates 1 copy · 64 B") &&
                 totals.contains("d2h inside delegates 1 copy · 64 B") && !totals.contains("d2d inside"),
             qPrintable(totals));

    // Priced on the link as the et_copy rows are: 64 B on its curve.
    const auto link = std::make_shared<const cost::LinkProfile>(cost::defaultLinkProfile());
    model.setLink(link, exec::HostMemoryKind::Pageable);
    const double h2dSeconds = link->secondsFor(program::CopyDirection::HostToDevice, exec::HostMemoryKind::Pageable, 64).value();
    const double d2hSeconds = link->secondsFor(program::CopyDirection::DeviceToHost, exec::HostMemoryKind::Pageable, 64).value();
    QCOMPARE(model.index(h2d, TransfersModel::PredictedTime).data(ui::SortRole).toDouble(), h2dSeconds);
    QCOMPARE(cell(model, d2h, TransfersModel::PredictedTime), ui::durationText(d2hSeconds));
    totals = model.totalsText();
    QVERIFY2(totals.contains("inside delegates " + ui::durationText(h2dSeconds + d2hSeconds)), qPrintable(totals));

    // Sortable like the other rows: by bytes, by where, by predicted time.
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(ui::SortRole);
    proxy.sort(TransfersModel::PredictedTime, Qt::DescendingOrder);
    QCOMPARE(proxy.mapToSource(proxy.index(0, 0)).row(), h2dSeconds >= d2hSeconds ? h2d : d2h);
    proxy.sort(TransfersModel::Where, Qt::AscendingOrder);
    QCOMPARE(proxy.rowCount(), 2);

    // Device planning on: et_copy instructions at the boundary instead, and
    // no staging.
    auto options = doc.methodOptions(0);
    options.enable_non_cpu_memory_planning = true;
    doc.setMethodOptions(0, options);
    doc.waitForPipeline();
    QVERIFY2(doc.pipelineError().isEmpty(), qPrintable(doc.pipelineError()));
    QCOMPARE(model.rowCount(), 2);
    for (const auto& row : model.rows()) QVERIFY(!row.inside);
    QCOMPARE(cell(model, 0, TransfersModel::Where), QString("et_copy"));
    QVERIFY2(!model.totalsText().contains("inside delegates"), qPrintable(model.totalsText()));
  }

  void profiledStagingHasItsFigures() {
    const QString path = writeLegacy();
    QVERIFY(!path.isEmpty());
    ui::Document doc;
    QVERIFY(doc.open(path));
    TransfersModel model(&doc);
    const auto profile = profileOf(doc.program());
    QVERIFY(profile);
    QCOMPARE(profile->delegate_copies.size(), size_t(2));
    model.setProfiles(profile, nullptr, "run 1");
    QVERIFY(model.hasMeasurements());
    QCOMPARE(model.rowCount(), 2);  // no removed rows: the profile ran this program
    QVERIFY(!model.latestMeasuredAnotherProgram());
    for (const auto& timed : profile->delegate_copies) {
      const int r = rowMoving(model, timed.transfer.direction);
      QVERIFY(r >= 0);
      QVERIFY(model.rows()[size_t(r)].latest != nullptr);
      QCOMPARE(model.index(r, TransfersModel::MedianTime).data(ui::SortRole).toDouble(), timed.seconds.median);
      QCOMPARE(model.index(r, TransfersModel::MinTime).data(ui::SortRole).toDouble(), timed.seconds.min);
      QCOMPARE(model.index(r, TransfersModel::MaxTime).data(ui::SortRole).toDouble(), timed.seconds.max);
      // 64 B in the median time, in 10^9 bytes per second.
      QCOMPARE(model.index(r, TransfersModel::Bandwidth).data(ui::SortRole).toDouble(), 64.0 / timed.seconds.median / 1e9);
      QCOMPARE(cell(model, r, TransfersModel::HostMemory), QString("pageable"));
      const QString tip = model.index(r, TransfersModel::MedianTime).data(Qt::ToolTipRole).toString();
      QVERIFY2(tip.contains("timed after the run") && tip.contains("over 3 iterations"), qPrintable(tip));
      // Totals: the profile's count of copies inside delegates, each at its
      // median (ProfileWriters' totals.inside_delegates).
      const auto s = model.insideSummary(timed.transfer.direction);
      QCOMPARE(s.copies, size_t(1));
      QCOMPARE(s.seconds, timed.seconds.median);
      const QString line = QString("%1 inside delegates 1 copy · 64 B · %2")
                               .arg(QString::fromStdString(program::copyDirectionName(timed.transfer.direction)),
                                    ui::durationText(timed.seconds.median));
      QVERIFY2(model.totalsText().contains(line), qPrintable(model.totalsText() + " / " + line));
    }
    // Slowest first through the window's proxy.
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(ui::SortRole);
    proxy.sort(TransfersModel::MedianTime, Qt::DescendingOrder);
    QVERIFY(proxy.index(0, TransfersModel::MedianTime).data(ui::SortRole).toDouble() >=
            proxy.index(1, TransfersModel::MedianTime).data(ui::SortRole).toDouble());

    // An edit that turns the staging into et_copy instructions: the timed
    // staging stays as greyed "removed" rows, the totals say the profile ran
    // the program before the edits.
    auto options = doc.methodOptions(0);
    options.enable_non_cpu_memory_planning = true;
    doc.setMethodOptions(0, options);
    doc.waitForPipeline();
    QCOMPARE(model.rowCount(), 4);
    int removedInside = 0;
    for (const auto& row : model.rows()) removedInside += row.removed && row.inside && row.latest != nullptr;
    QCOMPARE(removedInside, 2);
    QVERIFY(model.latestMeasuredAnotherProgram());
    const QString totals = model.totalsText();
    QVERIFY2(totals.contains("measured before the edits") && totals.contains("h2d inside delegates 1 copy · 64 B · "),
             qPrintable(totals));
  }

  void cudaGraphReplayRowsFollowTheSetting() {
    ui::Document doc;
    QVERIFY(doc.openDemo());
    for (int m = 0; m < doc.methodCount(); ++m)
      if (doc.program().methods()[size_t(m)].displayName() == "forward") doc.setCurrentMethod(m);
    TransfersModel model(&doc);
    const int copies = model.rowCount();
    for (const auto& row : model.rows()) QVERIFY(!row.inside);  // CUDA graphs off: nothing inside
    analysis::DelegateTransferOptions settings;
    settings.cuda_graph_methods = {"forward"};
    model.setRunSettings(settings);
    QCOMPARE(model.rowCount(), copies + 4);
    qint64 bytes = 0;
    for (const auto& row : model.rows())
      if (row.inside) {
        QCOMPARE(row.direction, program::CopyDirection::DeviceToDevice);
        QCOMPARE(row.inside->backend, std::string("CudaBackend"));
        bytes += row.bytes;
      }
    QCOMPARE(bytes, qint64(832));
    QCOMPARE(model.insideSummary(program::CopyDirection::DeviceToDevice).copies, size_t(4));
    QVERIFY2(model.totalsText().contains("d2d inside delegates 4 copies · 832 B"), qPrintable(model.totalsText()));
    // d2d is priced as predict prices it (the link's device curve, or the
    // typical device copy when it has none); no host memory.
    const auto link = std::make_shared<const cost::LinkProfile>(cost::defaultLinkProfile());
    model.setLink(link, exec::HostMemoryKind::Pageable);
    for (size_t r = 0; r < model.rows().size(); ++r)
      if (model.rows()[r].inside) {
        const auto expected = cost::transferSeconds(*link, program::CopyDirection::DeviceToDevice,
                                                    exec::HostMemoryKind::Pageable, uint64_t(model.rows()[r].bytes));
        QCOMPARE(model.rows()[r].predicted, expected.value());
        QVERIFY(model.rows()[r].predicted > 0);
      }
    settings.cuda_graph_methods.clear();
    model.setRunSettings(settings);
    QCOMPARE(model.rowCount(), copies);
  }
};

QTEST_MAIN(TransfersInsideTest)
#include "test_transfers_inside.moc"
