// The Transfers panel's Summary section and the timeline's breakdown bar
// (ui/profile/TransferSummaryView) on a profile built by hand: the rows,
// counts and times a user reads, the breakdown's shares, and that a host
// clock's overlap is said to be invisible rather than shown as 0 %.
#include <QtTest>

#include <QLabel>
#include <QTableWidget>

#include "exec/Profiler.h"
#include "ui/profile/TransferSummaryView.h"

using namespace ptescope;
using program::CopyDirection;

namespace {

constexpr double us = 1e-6;

exec::CopyProfile copy(size_t instruction, CopyDirection direction, uint64_t bytes, std::vector<double> samplesUs) {
  exec::CopyProfile c;
  c.instruction = instruction;
  c.direction = direction;
  c.bytes = bytes;
  c.device = program::Device{program::DeviceType::Cuda, 0};
  c.executions_per_iteration = 1;
  for (double s : samplesUs) c.samples.push_back(s * us);
  c.seconds = exec::TimingStats::of(c.samples);
  return c;
}

// A trace of the runtime: 2 iterations, one h2d copy of 1 KiB and one d2h
// copy of 2 MiB; a 100 µs run: 20 µs kernel, 30 µs delegate, the copies'
// transfers 10 µs (copy_seconds), their instructions 14 µs (4 µs overhead).
std::shared_ptr<exec::TransferProfile> traceProfile() {
  auto p = std::make_shared<exec::TransferProfile>();
  p->method = "forward";
  p->runtime = "ETDump, host clock";
  p->iterations = 2;
  p->copies = {copy(0, CopyDirection::HostToDevice, 1024, {2, 4}), copy(3, CopyDirection::DeviceToHost, 2 << 20, {6, 8})};
  p->run_seconds = exec::TimingStats{100 * us, 100 * us, 100 * us};
  p->copy_seconds = 10 * us;
  auto instruction = [](size_t index, program::InstructionKind kind, double medianUs, bool isCopy) {
    exec::InstructionProfile i;
    i.instruction = index;
    i.kind = kind;
    i.executions_per_iteration = 1;
    i.host_seconds = exec::TimingStats{medianUs * us, medianUs * us, medianUs * us};
    i.is_copy = isCopy;
    return i;
  };
  p->instructions = {instruction(0, program::InstructionKind::KernelCall, 6, true),
                     instruction(1, program::InstructionKind::DelegateCall, 30, false),
                     instruction(2, program::InstructionKind::KernelCall, 20, false),
                     instruction(3, program::InstructionKind::KernelCall, 8, true)};
  return p;
}

}  // namespace

class TransferSummaryViewTest : public QObject {
  Q_OBJECT
 private slots:
  void summaryTable() {
    ui::TransferSummaryView view;
    view.setProfile(traceProfile());
    auto* table = view.table();
    // h2d (all), h2d < 4 KiB, d2h (all), d2h < 16 MiB.
    QCOMPARE(table->rowCount(), 4);
    QCOMPARE(table->item(0, 0)->text(), QString("h2d (all)"));
    QCOMPARE(table->item(1, 0)->text().trimmed(), QString("< 4 KiB"));
    QCOMPARE(table->item(3, 0)->text().trimmed(), QString("< 16 MiB"));
    // h2d: 2 executions of 1 KiB in 2 + 4 = 6 µs, mean 3, stddev sqrt(2).
    QCOMPARE(table->item(0, 1)->text(), QString("2"));
    QCOMPARE(table->item(0, 2)->text(), QString("2.0 KiB"));
    QCOMPARE(table->item(0, 3)->text(), QString("6.00 µs"));
    QCOMPARE(table->item(0, 4)->text(), QString("3.00 µs"));
    QCOMPARE(table->item(0, 8)->text(), QString("1.41 µs"));
    // Share of all copy time: 6 of 6 + 14 µs = 30.0%.
    QCOMPARE(table->item(0, 10)->text(), QString("30.0%"));
    // Breakdown: kernels 20, delegates 30, copies 10, overhead 14 - 10 = 4,
    // gaps 100 - 64 = 36 (of 100 µs); overlap: not a number.
    const QString text = view.breakdown()->text();
    QVERIFY2(text.contains("kernels 20.0%, delegates 30.0%, copies 10.0%, copy overhead 4.0%, gaps 36.0%"), qPrintable(text));
    QVERIFY(text.contains("overlap cannot be seen"));
    QVERIFY(!text.contains("overlap: 0"));
    // The trace has no host memory kind and no peak: those rules say so.
    QVERIFY(view.findings()->text().contains("PRF001 [pageable-copy] not judged"));
    view.setProfile(nullptr);
    QCOMPARE(view.table()->rowCount(), 0);
  }

  void breakdownBar() {
    ui::TimeBreakdownBar bar;
    const auto profile = traceProfile();
    bar.setProfile(profile.get());
    QVERIFY2(bar.text().contains("kernels 20.0% · delegates 30.0% · copies 10.0% · copy overhead 4.0% · gaps 36.0%"),
             qPrintable(bar.text()));
    QVERIFY(bar.text().contains("overlap cannot be seen"));
    QCOMPARE(bar.accessibleDescription(), bar.text());
    // ptescope's own run: the delegate did not run, and the bar says so.
    auto own = *profile;
    own.runtime = "cuda:0 (NVIDIA H100)";
    own.instructions[1].executed = false;
    bar.setProfile(&own);
    QVERIFY(bar.text().contains("delegates not run"));
    bar.setProfile(nullptr);
    QVERIFY(bar.text().isEmpty());
  }
};

QTEST_MAIN(TransferSummaryViewTest)
#include "test_transfer_summary_view.moc"
