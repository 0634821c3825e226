// The views of a measured profile, fed with real profiles of the demo made
// on the host runtime: the transfers table with its measured and comparison
// columns (copies matched across an edit that removes some), and the
// timeline of one iteration (lanes, order, clicks, selection, zoom).
// Expected numbers always come from the profiles, never from literals. Set
// PTESCOPE_SCREENSHOT_DIR to keep the grabs.
#include <QtTest>

#include <QAbstractItemModelTester>
#include <QAbstractScrollArea>
#include <QScrollBar>
#include <QHeaderView>
#include <QImage>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QToolTip>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <set>

#include "analysis/Summary.h"
#include "exec/DeviceRuntime.h"
#include "exec/Profiler.h"
#include "passes/Pipeline.h"
#include "support/TestSupport.h"
#include "ui/document/Document.h"
#include "ui/common/Format.h"
#include "ui/common/ItemRoles.h"
#include "ui/profile/TimelineView.h"
#include "ui/profile/TransfersModel.h"

using namespace ptescope;
using ui::TimelineView;
using ui::TransfersModel;

namespace {

void saveGrab(QWidget& widget, const QString& name) {
  const QString dir = qEnvironmentVariable("PTESCOPE_SCREENSHOT_DIR");
  if (dir.isEmpty()) return;
  QDir().mkpath(dir);
  QVERIFY(widget.grab().save(dir + "/" + name + ".png"));
}

std::shared_ptr<const exec::TransferProfile> profileOf(const program::Program& program, const std::string& method) {
  auto selection = exec::selectRuntime(exec::RuntimePreference::Host);
  if (!selection) return nullptr;
  exec::ProfileOptions options;
  options.method = method;
  options.warmup = 1;
  options.iterations = 5;
  options.measure_peak = true;
  options.peak_probe_bytes = 8 << 20;  // enough for a peak, quick on a shared machine
  auto profile = exec::profileMethod(program, *selection->runtime, options);
  if (!profile) {
    qWarning("profile failed: %s", profile.error().message.c_str());
    return nullptr;
  }
  return std::make_shared<const exec::TransferProfile>(std::move(profile.value()));
}

int methodIndex(const ui::Document& doc, const std::string& name) {
  for (int m = 0; m < doc.methodCount(); ++m)
    if (doc.program().methods()[size_t(m)].displayName() == name) return m;
  return -1;
}

const exec::CopyProfile* copyAt(const exec::TransferProfile& profile, size_t instruction) {
  for (const auto& c : profile.copies)
    if (c.instruction == instruction) return &c;
  return nullptr;
}

// The demo's copies each move a different value, so (direction, source) is
// enough to pair them up here: the test's own matching, simpler than the
// model's.
const exec::CopyProfile* copyMoving(const exec::TransferProfile& profile, program::CopyDirection direction,
                                   int32_t source) {
  for (const auto& c : profile.copies)
    if (c.direction == direction && c.source_value == source) return &c;
  return nullptr;
}

program::CopyDirection directionOf(const TransfersModel::Row& row) { return row.direction; }

TimelineView::Lane laneOf(exec::TimelineSlice::Track track) {
  switch (track) {
    case exec::TimelineSlice::Track::HostToDevice: return TimelineView::Lane::HostToDevice;
    case exec::TimelineSlice::Track::DeviceToHost: return TimelineView::Lane::DeviceToHost;
    case exec::TimelineSlice::Track::NotExecuted: return TimelineView::Lane::NotExecuted;
    case exec::TimelineSlice::Track::Kernels: return TimelineView::Lane::Kernels;
  }
  return TimelineView::Lane::Kernels;
}

double sortNumber(const QAbstractItemModel& model, int row, int column) {
  return model.index(row, column).data(ui::SortRole).toDouble();
}

}  // namespace

class ProfileViewsTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(doc_.openDemo());
    forward_ = methodIndex(doc_, "forward");
    QVERIFY(forward_ >= 0);
    doc_.setCurrentMethod(forward_);
    // The demo as it opens: every copy the device passes insert.
    full_ = profileOf(doc_.program(), "forward");
    QVERIFY(full_);
    QVERIFY(full_->copies.size() >= 2);
    QVERIFY(full_->iterations == 5);
    // The same program with the method's inputs and outputs left on the
    // device: the copies of the input and of the output disappear.
    options_.skip_h2d_for_method_inputs = true;
    options_.skip_d2h_for_method_outputs = true;
    options_.alloc_graph_input = false;
    options_.alloc_graph_output = false;
    passes::PipelineOptions pipeline;
    pipeline.per_method["forward"] = options_;
    auto skipped = passes::runPipeline(doc_.loadedProgram(), pipeline);
    QVERIFY2(skipped.ok(), skipped ? "" : skipped.error().message.c_str());
    skipped_ = std::make_shared<program::Program>(std::move(skipped.value().program));
    reduced_ = profileOf(*skipped_, "forward");
    QVERIFY(reduced_);
    QVERIFY2(reduced_->copies.size() < full_->copies.size(), "the skip options removed no copy");
  }

  void tableShowsTheEngineNumbers() {
    doc_.setCurrentMethod(forward_);
    TransfersModel model(&doc_);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.columnCount(), int(TransfersModel::kPlainColumns));
    QVERIFY(!model.hasMeasurements());
    model.setProfiles(full_, nullptr, "run 1");
    QVERIFY(model.hasMeasurements());
    QVERIFY(!model.hasComparison());
    QCOMPARE(model.columnCount(), int(TransfersModel::kMeasuredColumns));

    // One row per copy instruction of the program, each with its measurement.
    const auto summary = analysis::summarizeMethod(*doc_.currentMethod());
    QCOMPARE(size_t(model.rowCount()), summary.h2d_copies + summary.d2h_copies);
    QCOMPARE(size_t(model.rowCount()), full_->copies.size());
    for (int r = 0; r < model.rowCount(); ++r) {
      const auto instruction = model.instructionOfRow(r);
      QVERIFY(instruction);
      QCOMPARE(model.rowOfInstruction(*instruction), r);
      const exec::CopyProfile* copy = copyAt(*full_, *instruction);
      QVERIFY2(copy, qPrintable(QString("no profiled copy at instruction %1").arg(*instruction)));
      QCOMPARE(model.rows()[size_t(r)].latest, copy);
      QCOMPARE(model.index(r, TransfersModel::Direction).data().toString(),
               QString::fromStdString(program::copyDirectionName(copy->direction)));
      QCOMPARE(sortNumber(model, r, TransfersModel::Bytes), double(copy->bytes));
      QCOMPARE(sortNumber(model, r, TransfersModel::MedianTime), copy->seconds.median);
      QCOMPARE(sortNumber(model, r, TransfersModel::MinTime), copy->seconds.min);
      QCOMPARE(sortNumber(model, r, TransfersModel::MaxTime), copy->seconds.max);
      QCOMPARE(sortNumber(model, r, TransfersModel::Bandwidth), copy->gbps);
      QCOMPARE(model.index(r, TransfersModel::MedianTime).data().toString(), ui::durationText(copy->seconds.median));
      QCOMPARE(model.index(r, TransfersModel::Bandwidth).data().toString(), ui::gbpsText(copy->gbps));
      QCOMPARE(model.index(r, TransfersModel::HostMemory).data().toString(),
               QString::fromStdString(exec::hostMemoryKindName(copy->host_memory)));
      // An emulated profile timed host memcpy: no share of a "link peak".
      if (full_->peak.measured && !full_->emulated) QCOMPARE(sortNumber(model, r, TransfersModel::PeakShare), copy->peak_share);
      if (full_->emulated) QCOMPARE(model.index(r, TransfersModel::PeakShare).data().toString(), QStringLiteral("—"));
      // Tooltips say what the numbers are.
      const QString tip = model.index(r, TransfersModel::MedianTime).data(Qt::ToolTipRole).toString();
      QVERIFY2(tip.contains(QString("over %1 iterations").arg(full_->iterations)), qPrintable(tip));
      QVERIFY(tip.contains("run 1"));
      QVERIFY(!model.index(r, TransfersModel::HostMemory).data(Qt::ToolTipRole).toString().isEmpty());
    }
    // Instructions that are not copies have no row.
    const auto* dataflow = doc_.currentDataflow();
    for (const auto& ins : dataflow->instructions())
      if (!ins.is_h2d_copy && !ins.is_d2h_copy) QCOMPARE(model.rowOfInstruction(ins.flat_index), -1);

    // Totals per direction are the profile's.
    for (auto direction : program::kHostDeviceDirections) {
      const auto& totals = full_->totals(direction);
      const auto s = model.summary(direction);
      QCOMPARE(s.copies, totals.copies);
      QCOMPARE(quint64(s.bytes), totals.bytes);
      QCOMPARE(s.seconds, totals.seconds);
      QCOMPARE(s.gbps, totals.gbps);
      QVERIFY(!s.hasPrevious);
      const QString prefix = QString("%1 %2 copies · %3 · %4")
                                 .arg(direction == program::CopyDirection::HostToDevice ? "h2d" : "d2h")
                                 .arg(totals.copies)
                                 .arg(ui::bytesText(qint64(totals.bytes)), ui::durationText(totals.seconds));
      QVERIFY2(model.totalsText().contains(prefix), qPrintable(model.totalsText() + " / " + prefix));
    }
    QVERIFY(model.totalsText().contains("emulated"));

    // Sorting by median through the proxy the window uses lists the
    // expensive copies first, by the profile's own medians.
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(ui::SortRole);
    proxy.sort(TransfersModel::MedianTime, Qt::DescendingOrder);
    double previous = std::numeric_limits<double>::max();
    double slowest = 0;
    for (const auto& c : full_->copies) slowest = std::max(slowest, c.seconds.median);
    for (int r = 0; r < proxy.rowCount(); ++r) {
      const auto instruction = model.instructionOfRow(proxy.mapToSource(proxy.index(r, 0)).row());
      QVERIFY(instruction);
      const double median = copyAt(*full_, *instruction)->seconds.median;
      if (r == 0) QCOMPARE(median, slowest);
      QVERIFY(median <= previous);
      previous = median;
    }

    // The profile is of "forward": another method shows no measured columns,
    // coming back shows them again.
    const int other = methodIndex(doc_, "prefill");
    QVERIFY(other >= 0);
    doc_.setCurrentMethod(other);
    QCOMPARE(model.columnCount(), int(TransfersModel::kPlainColumns));
    QVERIFY(!model.totalsText().contains("GB/s"));
    doc_.setCurrentMethod(forward_);
    QCOMPARE(model.columnCount(), int(TransfersModel::kMeasuredColumns));
    model.clearProfiles();
    QCOMPARE(model.columnCount(), int(TransfersModel::kPlainColumns));

    QTableView table;
    table.setModel(&proxy);
    table.setSortingEnabled(true);
    model.setProfiles(full_, nullptr, "run 1");
    table.sortByColumn(TransfersModel::MedianTime, Qt::DescendingOrder);
    table.resize(1300, 200);
    table.resizeColumnsToContents();
    saveGrab(table, "transfers-measured");
  }

  void compareShowsRemovedCopiesAndDeltas() {
    // The user profiles the demo, turns the skip options on and profiles
    // again: the document now shows the reduced program.
    ui::Document doc;
    QVERIFY(doc.openDemo());
    doc.setCurrentMethod(methodIndex(doc, "forward"));
    TransfersModel model(&doc);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    doc.setMethodOptions(doc.currentMethodIndex(), options_);
    doc.waitForPipeline();
    QVERIFY2(doc.pipelineError().isEmpty(), qPrintable(doc.pipelineError()));
    const auto summary = analysis::summarizeMethod(*doc.currentMethod());
    QCOMPARE(summary.h2d_copies + summary.d2h_copies, reduced_->copies.size());

    model.setProfiles(reduced_, full_, "after skip", "before");
    QVERIFY(model.hasComparison());
    QCOMPARE(model.columnCount(), int(TransfersModel::ColumnCount));
    // Every copy of the full profile either still exists (same direction and
    // source in the reduced profile) or shows as removed.
    size_t stillThere = 0;
    for (const auto& c : full_->copies) stillThere += copyMoving(*reduced_, c.direction, c.source_value) ? 1 : 0;
    const size_t removedExpected = full_->copies.size() - stillThere;
    QVERIFY(removedExpected > 0);
    QCOMPARE(size_t(model.rowCount()), reduced_->copies.size() + removedExpected);

    size_t removedRows = 0;
    for (int r = 0; r < model.rowCount(); ++r) {
      const auto& row = model.rows()[size_t(r)];
      const exec::CopyProfile* before = copyMoving(*full_, directionOf(row), row.source);
      QVERIFY2(before, "every row of this comparison was measured before");
      QCOMPARE(sortNumber(model, r, TransfersModel::PreviousMedian), before->seconds.median);
      QCOMPARE(sortNumber(model, r, TransfersModel::PreviousBandwidth), before->gbps);
      if (row.removed) {
        ++removedRows;
        QVERIFY(!copyMoving(*reduced_, directionOf(row), row.source));
        QCOMPARE(model.index(r, TransfersModel::Instruction).data().toString(), QString("removed"));
        QVERIFY(!model.instructionOfRow(r));
        QCOMPARE(model.index(r, TransfersModel::Instruction).data(ui::InstructionRole).toLongLong(), -1LL);
        QVERIFY(model.index(r, TransfersModel::Direction).data(Qt::ForegroundRole).isValid());
        QVERIFY(model.index(r, TransfersModel::Direction).data(Qt::ToolTipRole).toString().contains("Removed"));
        // Nothing measured now; Δ is minus what it cost.
        QCOMPARE(model.index(r, TransfersModel::MedianTime).data().toString(), QString("—"));
        QCOMPARE(sortNumber(model, r, TransfersModel::DeltaTime), -before->seconds.median);
        QCOMPARE(sortNumber(model, r, TransfersModel::DeltaPercent), -1.0);
      } else {
        const auto instruction = model.instructionOfRow(r);
        QVERIFY(instruction);
        const exec::CopyProfile* after = copyAt(*reduced_, *instruction);
        QVERIFY(after);
        QCOMPARE(after->source_value, row.source);
        QCOMPARE(sortNumber(model, r, TransfersModel::MedianTime), after->seconds.median);
        const double delta = after->seconds.median - before->seconds.median;
        QCOMPARE(sortNumber(model, r, TransfersModel::DeltaTime), delta);
        QCOMPARE(sortNumber(model, r, TransfersModel::DeltaPercent), delta / before->seconds.median);
        QCOMPARE(model.index(r, TransfersModel::DeltaTime).data().toString(), ui::signedDurationText(delta));
        QVERIFY(!model.index(r, TransfersModel::Direction).data(Qt::ForegroundRole).isValid());
      }
    }
    QCOMPARE(removedRows, removedExpected);

    // Totals compare the direction totals of both profiles.
    for (auto direction : program::kHostDeviceDirections) {
      const auto s = model.summary(direction);
      QVERIFY(s.hasPrevious);
      QCOMPARE(s.copies, reduced_->totals(direction).copies);
      QCOMPARE(s.seconds, reduced_->totals(direction).seconds);
      QCOMPARE(s.previousSeconds, full_->totals(direction).seconds);
    }
    const auto h2d = model.summary(program::CopyDirection::HostToDevice);
    const QString h2dDelta = ui::signedDurationText(h2d.seconds - h2d.previousSeconds) + " vs previous";
    QVERIFY2(model.totalsText().contains(h2dDelta), qPrintable(model.totalsText()));

    // Δ sorts as a number: ascending puts the largest saving first.
    QSortFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setSortRole(ui::SortRole);
    proxy.sort(TransfersModel::DeltaTime, Qt::AscendingOrder);
    for (int r = 1; r < proxy.rowCount(); ++r)
      QVERIFY(sortNumber(proxy, r - 1, TransfersModel::DeltaTime) <= sortNumber(proxy, r, TransfersModel::DeltaTime));

    QTableView table;
    table.setModel(&proxy);
    table.resize(1500, 200);
    table.resizeColumnsToContents();
    saveGrab(table, "transfers-compare");
  }

  void timelineDrawsOneIteration() {
    TimelineView view;
    view.resize(1100, 260);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.bars().empty());
    QCOMPARE(view.iteration(), -1);
    saveGrab(view, "timeline-empty");

    view.setProfile(full_);
    std::set<size_t> kept;
    for (const auto& s : full_->timeline) kept.insert(s.iteration);
    QCOMPARE(std::set<size_t>(view.iterations().begin(), view.iterations().end()), kept);
    QVERIFY(kept.size() >= 2);
    const int chosen = int(*std::next(kept.begin()));
    view.setIteration(chosen);
    QCOMPARE(view.iteration(), chosen);
    view.setIteration(int(full_->iterations) + 10);  // not kept: ignored
    QCOMPARE(view.iteration(), chosen);

    // One bar per slice of the iteration, on the lane of its track.
    std::vector<const exec::TimelineSlice*> slices;
    std::map<TimelineView::Lane, size_t> perLane;
    for (const auto& s : full_->timeline)
      if (s.iteration == size_t(chosen)) {
        slices.push_back(&s);
        ++perLane[laneOf(s.track)];
      }
    QCOMPARE(view.bars().size(), slices.size());
    std::map<TimelineView::Lane, size_t> drawn;
    for (const auto& bar : view.bars()) ++drawn[bar.lane];
    QCOMPARE(drawn, perLane);
    // Not executed gets a lane only because the demo's CUDA delegates cannot
    // run on the host.
    const bool notExecuted = perLane.count(TimelineView::Lane::NotExecuted) > 0;
    const auto& lanes = view.lanes();
    QCOMPARE(int(std::count(lanes.begin(), lanes.end(), TimelineView::Lane::NotExecuted)), notExecuted ? 1 : 0);
    std::stable_sort(slices.begin(), slices.end(),
                     [](auto* a, auto* b) { return a->start_seconds < b->start_seconds; });
    const double origin = slices.front()->start_seconds;
    double lastLeft = -1e9;
    std::vector<bool> used(view.bars().size(), false);
    for (const auto* s : slices) {
      // The bar of this slice (an instruction appears once per iteration here).
      auto it = std::find_if(view.bars().begin(), view.bars().end(),
                             [&](const auto& b) { return b.instruction == s->instruction; });
      QVERIFY(it != view.bars().end());
      const size_t index = size_t(it - view.bars().begin());
      QVERIFY(!used[index]);
      used[index] = true;
      QCOMPARE(it->lane, laneOf(s->track));
      QCOMPARE(it->seconds, s->seconds);
      QCOMPARE(it->bytes, s->bytes);
      QVERIFY(qAbs(it->start - (s->start_seconds - origin)) < 1e-12);
      const QRectF lane = view.laneRect(it->lane);
      QVERIFY(lane.top() <= it->rect.top() && it->rect.bottom() <= lane.bottom());
      // x follows start time.
      QVERIFY2(it->rect.left() >= lastLeft - 1e-9, qPrintable(QString::fromStdString(s->name)));
      lastLeft = it->rect.left();
    }
    saveGrab(view, "timeline");

    // A click on a bar's centre selects its instruction.
    QSignalSpy clicked(&view, &TimelineView::instructionClicked);
    const auto widest = std::max_element(view.bars().begin(), view.bars().end(),
                                         [](const auto& a, const auto& b) { return a.rect.width() < b.rect.width(); });
    const size_t widestInstruction = widest->instruction;
    QTest::mouseClick(view.canvas(), Qt::LeftButton, {}, widest->rect.center().toPoint());
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.at(0).at(0).value<size_t>(), widestInstruction);
    QCOMPARE(view.selectedInstruction(), std::optional<size_t>(widestInstruction));
    // A click on an empty stretch of a lane selects nothing new.
    const QPoint empty(view.canvas()->width() - 3, int(view.laneRect(view.lanes().front()).center().y()));
    QTest::mouseClick(view.canvas(), Qt::LeftButton, {}, empty);
    QCOMPARE(clicked.count(), 1);

    // Hovering a copy's bar explains it.
    const auto hoveredCopy = std::find_if(view.bars().begin(), view.bars().end(),
                                          [](const auto& b) { return b.lane == TimelineView::Lane::DeviceToHost; });
    QVERIFY(hoveredCopy != view.bars().end());
    QTest::mouseMove(view.canvas(), hoveredCopy->rect.center().toPoint());
    QTRY_VERIFY(QToolTip::isVisible());
    const QString tip = QToolTip::text();
    QVERIFY2(tip.contains(QString("instruction %1").arg(hoveredCopy->instruction)), qPrintable(tip));
    QVERIFY(QToolTip::text().contains("GB/s"));
    QVERIFY(QToolTip::text().contains(ui::bytesText(qint64(hoveredCopy->bytes))));

    // selectInstruction highlights: the pixels around a copy's bar change.
    const auto copyBar = std::find_if(view.bars().begin(), view.bars().end(),
                                      [](const auto& b) { return b.lane == TimelineView::Lane::HostToDevice; });
    QVERIFY(copyBar != view.bars().end());
    const size_t copyInstruction = copyBar->instruction;
    view.selectInstruction(size_t(1) << 40);  // no such bar: nothing selected
    QVERIFY(!view.selectedInstruction());
    const QRect around = copyBar->rect.adjusted(-3, -3, 3, 3).toAlignedRect();
    const QImage before = view.canvas()->grab().toImage().copy(around);
    view.selectInstruction(copyInstruction);
    QCOMPARE(view.selectedInstruction(), std::optional<size_t>(copyInstruction));
    const QImage after = view.canvas()->grab().toImage().copy(around);
    QVERIFY(before != after);

    // Zoom scales every bar's width; a bar out of view scrolls in when selected.
    std::vector<double> widths;
    for (const auto& b : view.bars()) widths.push_back(b.rect.width());
    QCOMPARE(view.zoom(), 1.0);
    view.setZoom(4);
    QCOMPARE(view.zoom(), 4.0);
    size_t compared = 0;
    for (size_t i = 0; i < widths.size(); ++i) {
      if (widths[i] <= 3) continue;  // drawn at the minimum width
      QVERIFY(qAbs(view.bars()[i].rect.width() - 4 * widths[i]) < 1e-6 * widths[i] + 1e-9);
      ++compared;
    }
    QVERIFY(compared > 0);
    view.setZoom(40);
    // Zoomed in, the scroll bar pans over the whole iteration.
    auto* scrollArea = view.findChild<QAbstractScrollArea*>("timelineCanvas");
    QVERIFY(scrollArea);
    QVERIFY(scrollArea->horizontalScrollBar()->maximum() > 0);
    QTRY_VERIFY(scrollArea->horizontalScrollBar()->isVisible());  // shown by a queued call
    const QRectF visible = view.canvas()->rect();
    const auto hidden = std::find_if(view.bars().begin(), view.bars().end(),
                                     [&](const auto& b) { return b.rect.left() > visible.right(); });
    QVERIFY2(hidden != view.bars().end(), "at zoom 40 some bar should lie right of the view");
    const size_t hiddenInstruction = hidden->instruction;
    view.selectInstruction(hiddenInstruction);
    const auto shown = std::find_if(view.bars().begin(), view.bars().end(),
                                    [&](const auto& b) { return b.instruction == hiddenInstruction; });
    QVERIFY(shown->rect.intersects(visible));
    QVERIFY(shown->rect.left() >= 0 && shown->rect.left() < visible.right());
    saveGrab(view, "timeline-zoomed");
    // Its centre is now clickable.
    QTest::mouseClick(view.canvas(), Qt::LeftButton, {}, shown->rect.intersected(visible).center().toPoint());
    QCOMPARE(clicked.count(), 2);
    QCOMPARE(clicked.at(1).at(0).value<size_t>(), hiddenInstruction);

    // Buttons, shortcuts' slots and Ctrl+wheel.
    view.zoomToFit();
    QCOMPARE(view.zoom(), 1.0);
    view.zoomOut();
    QCOMPARE(view.zoom(), 1.0);  // the whole iteration is the widest view
    view.zoomIn();
    QVERIFY(view.zoom() > 1.0);
    const double zoomed = view.zoom();
    const QPointF at = view.canvas()->rect().center();
    QWheelEvent wheel(at, view.canvas()->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::ControlModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(view.canvas(), &wheel);
    QVERIFY(view.zoom() > zoomed);

    view.clear();
    QVERIFY(view.bars().empty());
    QCOMPARE(view.iteration(), -1);
  }

  void timelineOfTheReducedProgram() {
    // Fewer copies, fewer copy bars: the lanes follow the profile.
    TimelineView view;
    view.resize(1100, 260);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setProfile(reduced_);
    size_t copies = 0;
    for (const auto& s : reduced_->timeline)
      if (s.iteration == size_t(view.iteration()) && (s.track == exec::TimelineSlice::Track::HostToDevice ||
                                                      s.track == exec::TimelineSlice::Track::DeviceToHost))
        ++copies;
    const auto drawn = std::count_if(view.bars().begin(), view.bars().end(), [](const auto& b) {
      return b.lane == TimelineView::Lane::HostToDevice || b.lane == TimelineView::Lane::DeviceToHost;
    });
    QCOMPARE(size_t(drawn), copies);
    saveGrab(view, "timeline-reduced");
  }

 private:
  ui::Document doc_;
  int forward_ = -1;
  passes::DeviceOptions options_;
  std::shared_ptr<program::Program> skipped_;
  std::shared_ptr<const exec::TransferProfile> full_, reduced_;
};

QTEST_MAIN(ProfileViewsTest)
#include "test_profile_views.moc"
