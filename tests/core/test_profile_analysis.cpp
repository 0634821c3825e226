// The analyses over a profile (exec/ProfileAnalysis.h) on profiles built by
// hand, so every expected number below is worked out in the comments from
// the samples given here, not taken from the code under test: the transfer
// statistics per direction and size class, the time breakdown, what each
// source cannot show, and each rule on a profile that triggers it and on one
// that does not.
#include <QtTest>

#include <QTemporaryDir>

#include <cmath>

#include <nlohmann/json.hpp>

#include "analysis/Dataflow.h"
#include "exec/CopyIdentity.h"
#include "exec/ProfileAnalysis.h"
#include "synth/JsonSpec.h"
#include "report/ProfileAnalysisWriters.h"
#include "report/ProfileWriters.h"
#include "support/RoundTripPrograms.h"

using namespace ptescope;
using namespace ptescope::exec;
using program::CopyDirection;
using program::InstructionKind;

namespace {

constexpr double us = 1e-6;
constexpr uint64_t MiB = 1024 * 1024;

bool near(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)}); }

program::Device cuda0() { return program::Device{program::DeviceType::Cuda, 0}; }

CopyProfile copy(size_t instruction, CopyDirection direction, uint64_t bytes, std::vector<double> samplesUs,
                 int32_t source = -1, int32_t destination = -1) {
  CopyProfile c;
  c.instruction = instruction;
  c.direction = direction;
  c.bytes = bytes;
  c.device = cuda0();
  c.source_value = source;
  c.destination_value = destination;
  c.executions_per_iteration = 1;
  for (double s : samplesUs) c.samples.push_back(s * us);
  c.seconds = TimingStats::of(c.samples);
  c.gbps = c.seconds.median > 0 ? double(bytes) / c.seconds.median / 1e9 : 0;
  c.best_gbps = c.seconds.min > 0 ? double(bytes) / c.seconds.min / 1e9 : 0;
  return c;
}

// A profile as CudaRuntime on a GPU makes one (not emulated, no "host
// clock", no "stand-in" in the runtime's name).
TransferProfile gpuProfile() {
  TransferProfile p;
  p.method = "forward";
  p.runtime = "cuda:0 (NVIDIA H100)";
  p.iterations = 3;
  p.requested_iterations = 3;
  return p;
}

// A profile as an ETDump import (or the runner) makes one.
TransferProfile traceProfile() {
  TransferProfile p = gpuProfile();
  p.runtime = "ETDump, host clock";
  return p;
}

InstructionProfile instruction(size_t index, InstructionKind kind, double medianUs, bool executed = true,
                               size_t perIteration = 1, bool isCopy = false) {
  InstructionProfile i;
  i.instruction = index;
  i.kind = kind;
  i.label = kind == InstructionKind::DelegateCall ? "delegate CudaBackend" : "aten::add.out";
  i.executed = executed;
  i.executions_per_iteration = perIteration;
  i.host_seconds = TimingStats{medianUs * us, medianUs * us, medianUs * us};
  i.is_copy = isCopy;
  return i;
}

TimelineSlice slice(size_t iteration, size_t instruction, TimelineSlice::Track track, double startUs, double lengthUs) {
  TimelineSlice s;
  s.iteration = iteration;
  s.instruction = instruction;
  s.track = track;
  s.start_seconds = startUs * us;
  s.seconds = lengthUs * us;
  return s;
}

bool hasFinding(const ProfileCheck& check, const std::string& id) {
  return std::any_of(check.findings.begin(), check.findings.end(), [&](const ProfileFinding& f) { return f.id == id; });
}
const ProfileFinding* findingOf(const ProfileCheck& check, const std::string& id) {
  for (const auto& f : check.findings)
    if (f.id == id) return &f;
  return nullptr;
}
bool notJudged(const ProfileCheck& check, const std::string& id) {
  return std::any_of(check.not_judged.begin(), check.not_judged.end(), [&](const std::string& l) { return l.rfind(id, 0) == 0; });
}

// A trace's profile of `method`: every et_copy of the method (found through
// its def/use, not through the code under test) at 3 µs h2d and 5 µs d2h.
TransferProfile tracedProfileOf(const program::Program& program, const std::string& method) {
  TransferProfile p = traceProfile();
  p.method = method;
  const auto flow = analysis::Dataflow::build(*program.findMethod(method));
  for (const auto& f : flow.instructions()) {
    if (!f.is_h2d_copy && !f.is_d2h_copy) continue;
    const auto direction = f.is_h2d_copy ? CopyDirection::HostToDevice : CopyDirection::DeviceToHost;
    p.copies.push_back(copy(f.flat_index, direction, 32, {f.is_h2d_copy ? 3.0 : 5.0}, f.inputs.front(), f.outputs.front()));
  }
  return p;
}

}  // namespace

class ProfileAnalysisTest : public QObject {
  Q_OBJECT
 private slots:
  void sizeClassBounds() {
    // Upper bounds are exclusive: exactly 4 KiB is already the next class.
    QCOMPARE(sizeClassOf(4095), SizeClass::Under4KiB);
    QCOMPARE(sizeClassOf(4096), SizeClass::Under64KiB);
    QCOMPARE(sizeClassOf(64 * 1024 - 1), SizeClass::Under64KiB);
    QCOMPARE(sizeClassOf(64 * 1024), SizeClass::Under1MiB);
    QCOMPARE(sizeClassOf(MiB), SizeClass::Under16MiB);
    QCOMPARE(sizeClassOf(16 * MiB - 1), SizeClass::Under16MiB);
    QCOMPARE(sizeClassOf(16 * MiB), SizeClass::Larger);
  }

  void summaryPerDirectionAndSizeClass() {
    TransferProfile p = gpuProfile();
    p.copies = {copy(1, CopyDirection::HostToDevice, 1024, {2, 4, 6}),
                copy(2, CopyDirection::HostToDevice, 2048, {10, 10, 10}),
                copy(3, CopyDirection::HostToDevice, 8 * MiB, {1000, 1100, 900}),
                copy(5, CopyDirection::DeviceToHost, 4096, {5, 5, 5}),
                copy(6, CopyDirection::DeviceToHost, 16 * MiB, {2000, 2000, 2000})};
    const TransferSummary s = summarizeTransfers(p);
    QCOMPARE(s.iterations, size_t(3));
    QCOMPARE(s.copies_without_samples, size_t(0));
    // h2d all, h2d < 4 KiB, h2d < 16 MiB, d2h all, d2h < 64 KiB, d2h >= 16 MiB.
    QCOMPARE(s.rows.size(), size_t(6));
    QCOMPARE(s.rows[0].direction, CopyDirection::HostToDevice);
    QVERIFY(!s.rows[0].size_class);
    QCOMPARE(*s.rows[1].size_class, SizeClass::Under4KiB);
    QCOMPARE(*s.rows[2].size_class, SizeClass::Under16MiB);
    QCOMPARE(s.rows[3].direction, CopyDirection::DeviceToHost);
    QCOMPARE(*s.rows[4].size_class, SizeClass::Under64KiB);
    QCOMPARE(*s.rows[5].size_class, SizeClass::Larger);

    // h2d, all sizes: 9 executions; 3×1024 + 3×2048 + 3×8 MiB = 25175040 B;
    // times 2+4+6 + 3×10 + 1000+1100+900 = 3042 µs; mean 3042/9 = 338 µs;
    // sorted 2,4,6,10,10,10,900,1000,1100: median 10, min 2, max 1100;
    // squared deviations from 338: 112896+111556+110224+3×107584+315844+
    // 438244+580644 = 1992160, over n-1 = 8.
    const auto& all = s.rows[0].stats;
    QCOMPARE(all.count, size_t(9));
    QCOMPARE(all.bytes, uint64_t(25175040));
    QVERIFY(near(all.total_seconds, 3042 * us));
    QVERIFY(near(all.mean_seconds, 338 * us));
    QVERIFY(near(all.median_seconds, 10 * us));
    QVERIFY(near(all.min_seconds, 2 * us));
    QVERIFY(near(all.max_seconds, 1100 * us));
    QVERIFY(near(all.stddev_seconds, std::sqrt(1992160.0 / 8) * us));
    QVERIFY(near(all.gbps, 25175040.0 / (3042 * us) / 1e9));

    // h2d < 4 KiB: 6 executions, 9216 B, 42 µs, mean 7, sorted 2,4,6,10,10,10
    // → median (6+10)/2 = 8; deviations² 25+9+1+9+9+9 = 62 over 5.
    const auto& small = s.rows[1].stats;
    QCOMPARE(small.count, size_t(6));
    QCOMPARE(small.bytes, uint64_t(9216));
    QVERIFY(near(small.total_seconds, 42 * us));
    QVERIFY(near(small.mean_seconds, 7 * us));
    QVERIFY(near(small.median_seconds, 8 * us));
    QVERIFY(near(small.stddev_seconds, std::sqrt(62.0 / 5) * us));

    // h2d < 16 MiB: 3 × 8 MiB in 3000 µs; deviations² 0+10000+10000 over 2.
    const auto& large = s.rows[2].stats;
    QCOMPARE(large.count, size_t(3));
    QVERIFY(near(large.stddev_seconds, 100 * us));
    QVERIFY(near(large.gbps, 3.0 * 8 * MiB / (3000 * us) / 1e9));

    // d2h >= 16 MiB: three equal samples, no spread.
    QCOMPARE(s.rows[5].stats.count, size_t(3));
    QVERIFY(near(s.rows[5].stats.stddev_seconds, 0));
    QVERIFY(near(s.rows[5].stats.gbps, 3.0 * 16 * MiB / (6000 * us) / 1e9));
    // d2h all: 3×4096 + 3×16 MiB.
    QCOMPARE(s.rows[3].stats.bytes, uint64_t(3 * 4096 + 3 * 16 * MiB));

    // The same numbers in JSON (µs) and CSV.
    const auto j = report::transferSummaryJson(s);
    QCOMPARE(j["rows"][1]["size_class"].get<std::string>(), std::string("lt_4KiB"));
    QVERIFY(near(j["rows"][0]["total_us"].get<double>(), 3042));
    QVERIFY(near(j["rows"][1]["median_us"].get<double>(), 8));
    const std::string csv = report::transferSummaryCsvHeader() + report::transferSummaryCsvRows(s, "forward");
    QVERIFY(csv.rfind("method,direction,size_class,count,bytes,total_us,", 0) == 0);
    // Row 1 (h2d, all sizes), field by field; µs as exact doubles, compared as numbers.
    std::vector<std::string> lines, fields;
    for (size_t at = 0, next; (next = csv.find('\n', at)) != std::string::npos; at = next + 1) lines.push_back(csv.substr(at, next - at));
    QCOMPARE(lines.size(), size_t(1 + 6));
    for (size_t at = 0, next = 0; next != std::string::npos; at = next + 1) {
      next = lines[1].find(',', at);
      fields.push_back(lines[1].substr(at, next == std::string::npos ? std::string::npos : next - at));
    }
    QCOMPARE(fields.size(), size_t(12));
    QCOMPARE(fields[0] + "," + fields[1] + "," + fields[2] + "," + fields[3] + "," + fields[4],
             std::string("forward,h2d,all,9,25175040"));
    const double expected[] = {3042, 338, 10, 2, 1100, std::sqrt(1992160.0 / 8)};
    for (size_t k = 0; k < 6; ++k) QVERIFY2(near(std::stod(fields[5 + k]), expected[k]), fields[5 + k].c_str());
    QVERIFY(near(std::stod(fields[11]), 25175040.0 / (3042 * us) / 1e9));
    QVERIFY(lines[6].rfind("forward,d2h,ge_16MiB,3,50331648,", 0) == 0);
  }

  // Copies inside delegates (timed apart from the run) get rows of their
  // own after the et_copy rows: 2 staging copies of 1 MiB h2d, 10 and 30 µs.
  void copiesInsideDelegatesHaveRowsOfTheirOwn() {
    TransferProfile p = gpuProfile();
    p.copies = {copy(1, CopyDirection::HostToDevice, 1024, {2, 4, 6})};
    DelegateCopyTiming d;
    d.transfer.direction = CopyDirection::HostToDevice;
    d.transfer.bytes = MiB;
    d.samples = {10 * us, 30 * us};
    p.delegate_copies = {d};
    const TransferSummary s = summarizeTransfers(p);
    QCOMPARE(s.rows.size(), size_t(3));  // h2d all, h2d < 4 KiB, h2d inside delegates
    QVERIFY(!s.rows[0].inside_delegates);
    QCOMPARE(s.rows[0].stats.count, size_t(3));  // the et_copy rows leave them out
    QVERIFY(s.rows[2].inside_delegates);
    QCOMPARE(s.rows[2].stats.count, size_t(2));
    QCOMPARE(s.rows[2].stats.bytes, uint64_t(2 * MiB));
    QVERIFY(near(s.rows[2].stats.mean_seconds, 20 * us));
    QVERIFY(near(s.rows[2].stats.stddev_seconds, std::sqrt(200.0) * us));  // (100 + 100) / 1
    QCOMPARE(report::transferSummaryJson(s)["rows"][2]["size_class"].get<std::string>(), std::string("inside_delegates"));
  }

  void copiesWithoutSamplesCountOnceAtTheirMedian() {
    TransferProfile p = gpuProfile();
    CopyProfile c = copy(1, CopyDirection::HostToDevice, 100, {});
    c.seconds = TimingStats{3 * us, 4 * us, 5 * us};
    p.copies = {c};
    const TransferSummary s = summarizeTransfers(p);
    QCOMPARE(s.copies_without_samples, size_t(1));
    QCOMPARE(s.rows[0].stats.count, size_t(1));
    QVERIFY(near(s.rows[0].stats.total_seconds, 4 * us));
  }

  void breakdownOfATraceWithDelegates() {
    TransferProfile p = traceProfile();
    p.run_seconds = TimingStats{900 * us, 1000 * us, 1100 * us};
    p.copy_seconds = 400 * us;
    // Kernels: 50 µs once + 10 µs twice = 70 µs; one delegate of 300 µs; the
    // copy instruction takes 420 µs around its 400 µs transfer: 20 µs overhead.
    p.instructions = {instruction(0, InstructionKind::KernelCall, 50), instruction(1, InstructionKind::KernelCall, 10, true, 2),
                      instruction(2, InstructionKind::DelegateCall, 300),
                      instruction(3, InstructionKind::KernelCall, 420, true, 1, true)};
    const TimeBreakdown b = breakDownTime(p);
    QVERIFY(near(b.kernel_seconds, 70 * us));
    QVERIFY(near(b.delegate_seconds, 300 * us));
    QVERIFY(near(b.copy_seconds, 400 * us));
    QVERIFY(near(b.copy_overhead_seconds, 20 * us));
    // gaps = 1000 - 70 - 300 - 400 - 20 = 210 µs.
    QVERIFY(near(b.gap_seconds, 210 * us));
    QVERIFY(near(b.share(b.gap_seconds), 0.21));
    QVERIFY(b.delegates_timed);
    QCOMPARE(b.delegates_not_run, size_t(0));
    // A host clock shows no overlap: no number, a reason.
    QVERIFY(!b.overlap_visible);
    QVERIFY(!b.overlap_seconds);
    QVERIFY(b.overlap_note.find("host clock") != std::string::npos);
    const std::string text = report::timeBreakdownText(b);
    QVERIFY2(text.find("copy overhead 20.0 \xC2\xB5s (2.0%) + gaps 210 \xC2\xB5s (21.0%)") != std::string::npos, text.c_str());
    QVERIFY(text.find("overlap: cannot be seen") != std::string::npos);
    const auto j = report::timeBreakdownJson(b);
    QVERIFY(j["overlap_us"].is_null());
    QVERIFY(near(j["shares"]["delegates"].get<double>(), 0.3));
  }

  void breakdownOfPtescopesOwnRunSaysDelegatesDidNotRun() {
    TransferProfile p = gpuProfile();
    p.run_seconds = TimingStats{100 * us, 100 * us, 100 * us};
    p.copy_seconds = 40 * us;
    p.instructions = {instruction(0, InstructionKind::KernelCall, 20), instruction(1, InstructionKind::DelegateCall, 1, false)};
    const TimeBreakdown b = breakDownTime(p);
    QVERIFY(!b.delegates_timed);
    QCOMPARE(b.delegates_not_run, size_t(1));
    QVERIFY(near(b.delegate_seconds, 0));
    QVERIFY(near(b.gap_seconds, 40 * us));  // 100 - 20 - 40
    QVERIFY(!b.overlap_seconds);
    const std::string text = report::timeBreakdownText(b);
    QVERIFY(text.find("delegates not run") != std::string::npos);
    QVERIFY(report::timeBreakdownJson(b)["delegates_us"].is_null());
    QVERIFY(text.find("overlap: 0") == std::string::npos);
  }

  void whatEachSourceCanShow() {
    TransferProfile emulated = gpuProfile();
    emulated.emulated = true;
    emulated.runtime = "host (emulated cuda:0)";
    const auto e = sourceFacts(emulated);
    QCOMPARE(e.kind, ProfileSourceKind::Emulated);
    QVERIFY(e.host_memory_known && !e.link_peak && !e.overlap_visible);

    TransferProfile gpu = gpuProfile();
    gpu.peak.measured = true;
    gpu.peak.h2d_gbps = 20;
    const auto g = sourceFacts(gpu);
    QCOMPARE(g.kind, ProfileSourceKind::Cuda);
    QVERIFY(g.host_memory_known && g.link_peak && !g.overlap_visible);

    TransferProfile standIn = gpu;
    standIn.runtime = "cudart stand-in (not a GPU)";
    QCOMPARE(sourceFacts(standIn).kind, ProfileSourceKind::StandIn);

    const auto t = sourceFacts(traceProfile());
    QCOMPARE(t.kind, ProfileSourceKind::HostClock);
    QVERIFY(!t.host_memory_known && !t.link_peak && !t.overlap_visible);

    TransferProfile predicted = gpuProfile();
    predicted.runtime = "predicted: PCIe 4.0 x16";
    QCOMPARE(sourceFacts(predicted).kind, ProfileSourceKind::Predicted);
    QVERIFY(!checkProfile(predicted).not_judged.empty());
  }

  // A copy's host memory as every view spells it: what the run chose, unless
  // a runtime trace (which does not record it) measured it, and "none" for a
  // device-to-device copy.
  void hostMemoryOfACopyPerSource() {
    CopyProfile h2d = copy(0, CopyDirection::HostToDevice, 1024, {1, 2, 3});
    h2d.host_memory = HostMemoryKind::Pinned;
    const CopyProfile d2d = copy(1, CopyDirection::DeviceToDevice, 1024, {1, 2, 3});
    TransferProfile emulated = gpuProfile();
    emulated.emulated = true;
    QCOMPARE(copyHostMemoryText(emulated, h2d), std::string("pinned"));
    QCOMPARE(copyHostMemoryText(gpuProfile(), h2d), std::string("pinned"));
    h2d.host_memory = HostMemoryKind::Pageable;
    QCOMPARE(copyHostMemoryText(gpuProfile(), h2d), std::string("pageable"));
    QCOMPARE(copyHostMemoryText(traceProfile(), h2d), std::string("unknown"));
    TransferProfile runner = gpuProfile();
    runner.runtime = "ExecuTorch runner /opt/et/executor_runner, host clock";
    QCOMPARE(copyHostMemoryText(runner, h2d), std::string("unknown"));
    for (const auto& p : {emulated, gpuProfile(), traceProfile()}) QCOMPARE(copyHostMemoryText(p, d2d), std::string("none"));
    // sourceKind is sourceFacts' kind.
    for (const auto& p : {emulated, gpuProfile(), traceProfile(), runner}) QCOMPARE(sourceKind(p), sourceFacts(p).kind);
  }

  // ---- the rules, each both ways ----

  void pageableCopy() {
    TransferProfile p = gpuProfile();
    p.copies = {copy(1, CopyDirection::HostToDevice, 4096, {5, 5, 5})};
    const auto fires = checkProfile(p);
    QVERIFY(hasFinding(fires, "PRF001"));
    QCOMPARE(findingOf(fires, "PRF001")->instructions, std::vector<size_t>{1});
    QVERIFY(!findingOf(fires, "PRF001")->fix.empty());
    // Pinned: nothing to say.
    p.copies[0].host_memory = HostMemoryKind::Pinned;
    QVERIFY(!hasFinding(checkProfile(p), "PRF001"));
    // A runtime trace does not know the host memory kind: not judged.
    TransferProfile t = traceProfile();
    t.copies = {copy(1, CopyDirection::HostToDevice, 4096, {5, 5, 5})};
    const auto trace = checkProfile(t);
    QVERIFY(!hasFinding(trace, "PRF001"));
    QVERIFY(notJudged(trace, "PRF001"));
  }

  void smallCopiesAtOneBoundary() {
    TransferProfile p = gpuProfile();
    for (size_t i = 1; i <= 4; ++i) {
      p.copies.push_back(copy(i, CopyDirection::HostToDevice, 1024, {8, 8, 8}));
      p.copies.back().host_memory = HostMemoryKind::Pinned;
    }
    const auto fires = checkProfile(p);
    const auto* f = findingOf(fires, "PRF002");
    QVERIFY(f != nullptr);
    QCOMPARE(f->instructions, (std::vector<size_t>{1, 2, 3, 4}));
    // 4 × 1 KiB in 4 × 8 µs.
    QVERIFY2(f->evidence.find("4.0 KiB in 32.0 µs") != std::string::npos, f->evidence.c_str());

    // Three copies are not many.
    TransferProfile three = p;
    three.copies.pop_back();
    QVERIFY(!hasFinding(checkProfile(three), "PRF002"));
    // An instruction between them splits the boundary.
    TransferProfile split = p;
    split.copies[2].instruction = 5;
    split.copies[3].instruction = 6;
    QVERIFY(!hasFinding(checkProfile(split), "PRF002"));
    // One copy of 64 KiB is not small.
    TransferProfile big = p;
    big.copies[3].bytes = 64 * 1024;
    QVERIFY(!hasFinding(checkProfile(big), "PRF002"));
  }

  void copyFarBelowThePeak() {
    TransferProfile p = gpuProfile();
    p.peak.measured = true;
    p.peak.h2d_gbps = 20;
    p.peak.d2h_gbps = 20;
    // 8 MiB in 4194.304 µs = 2.0 GB/s: 10% of 20 GB/s, below a quarter.
    p.copies = {copy(1, CopyDirection::HostToDevice, 8 * MiB, {4194.304, 4194.304, 4194.304})};
    p.copies[0].host_memory = HostMemoryKind::Pinned;
    const auto fires = checkProfile(p);
    const auto* f = findingOf(fires, "PRF003");
    QVERIFY(f != nullptr);
    QVERIFY2(f->message.find("10.0%") != std::string::npos, f->message.c_str());
    // 8 MiB in 838.8608 µs = 10 GB/s: half the peak, fine.
    TransferProfile fast = p;
    fast.copies = {copy(1, CopyDirection::HostToDevice, 8 * MiB, {838.8608, 838.8608, 838.8608})};
    QVERIFY(!hasFinding(checkProfile(fast), "PRF003"));
    // A copy without a rate (its time covers more than the copy): not judged by rate.
    TransferProfile noRate = p;
    noRate.copies[0].gbps = 0;
    QVERIFY(!hasFinding(checkProfile(noRate), "PRF003"));
    // A small copy is latency-bound: not this rule's business.
    TransferProfile small = p;
    small.copies = {copy(1, CopyDirection::HostToDevice, 4096, {100, 100, 100})};
    QVERIFY(!hasFinding(checkProfile(small), "PRF003"));
    // No peak at all: not judged; a link's peak given by the caller: judged.
    TransferProfile trace = traceProfile();
    trace.copies = p.copies;
    QVERIFY(notJudged(checkProfile(trace), "PRF003"));
    ProfileRuleOptions link;
    link.h2d_peak_gbps = 20;
    link.peak_source = "link 'test'";
    QVERIFY(hasFinding(checkProfile(trace, link), "PRF003"));
    // The emulated runtime's "peak" is memcpy: not judged.
    TransferProfile emulated = p;
    emulated.emulated = true;
    QVERIFY(notJudged(checkProfile(emulated), "PRF003"));
  }

  void roundTripWithinAnIteration() {
    TransferProfile p = gpuProfile();
    p.copies = {copy(2, CopyDirection::DeviceToHost, 256, {3, 3, 3}, 3, 4), copy(5, CopyDirection::HostToDevice, 256, {4, 4, 4}, 4, 5)};
    const auto fires = checkProfile(p);
    const auto* f = findingOf(fires, "PRF004");
    QVERIFY(f != nullptr);
    QCOMPARE(f->instructions, (std::vector<size_t>{2, 5}));
    QVERIFY(f->evidence.find("7.00 µs") != std::string::npos);
    // The h2d copy moves another value: no round trip.
    TransferProfile other = p;
    other.copies[1].source_value = 6;
    QVERIFY(!hasFinding(checkProfile(other), "PRF004"));
  }

  void roundTripAcrossMethods() {
    // encoder returns its float32[1,8] output through a d2h copy; decoder
    // takes a float32[1,8] input through an h2d copy: the caller that passes
    // one to the other makes a round trip. Evidence: 5 µs + 3 µs = 8 µs.
    const auto program = test::twoMethodProgram("[1, 8]");
    const std::vector<TransferProfile> profiles{tracedProfileOf(program, "encoder"), tracedProfileOf(program, "decoder")};
    QCOMPARE(profiles[0].copies.size(), size_t(2));  // h2d x, d2h h
    const auto findings = checkRoundTripsAcrossMethods(profiles, program);
    QCOMPARE(findings.size(), size_t(1));  // decoder's float32[1,4] output matches no input of encoder
    const ProfileFinding& f = findings.front();
    QCOMPARE(f.id, std::string("PRF004"));
    QCOMPARE(f.method, std::string("encoder"));
    QCOMPARE(f.other_method, std::string("decoder"));
    const auto& encoderD2h = profiles[0].copies[1];
    const auto& decoderH2d = profiles[1].copies[0];
    QCOMPARE(encoderD2h.direction, CopyDirection::DeviceToHost);
    QCOMPARE(decoderH2d.direction, CopyDirection::HostToDevice);
    QCOMPARE(f.instructions, (std::vector<size_t>{encoderD2h.instruction}));
    QCOMPARE(f.other_instructions, (std::vector<size_t>{decoderH2d.instruction}));
    QVERIFY2(f.message.find("output 0 of method 'encoder' (float32[1,8])") != std::string::npos, f.message.c_str());
    QVERIFY(f.evidence.find("= 8.00 µs") != std::string::npos);
    QVERIFY(f.location().find("; method 'decoder', instruction ") != std::string::npos);
    const auto j = report::findingsJson(findings);
    QCOMPARE(j[0]["other_method"].get<std::string>(), std::string("decoder"));

    // decoder takes float32[1,4]: nothing of encoder's comes back.
    const auto other = test::twoMethodProgram("[1, 4]");
    QVERIFY(checkRoundTripsAcrossMethods({tracedProfileOf(other, "encoder"), tracedProfileOf(other, "decoder")}, other).empty());
    // One method alone (its output fed back to itself is a loop, not a round trip within one iteration).
    QVERIFY(checkRoundTripsAcrossMethods({profiles[0]}, program).empty());
  }

  void gapBetweenADelegateAndItsCopy() {
    // Per iteration: the delegate (instruction 1) 0..100 µs, a CPU kernel
    // (2) 100..160 µs, the d2h copy (3) of the delegate's output from 165
    // µs: a 65 µs gap.
    TransferProfile p = traceProfile();
    p.instructions = {instruction(1, InstructionKind::DelegateCall, 100), instruction(2, InstructionKind::KernelCall, 60),
                      instruction(3, InstructionKind::KernelCall, 5, true, 1, true)};
    p.copies = {copy(3, CopyDirection::DeviceToHost, 256, {5, 5})};
    p.copies[0].producer = 1;
    for (size_t it = 0; it < 2; ++it) {
      const double base = 1000.0 * double(it);
      p.timeline.push_back(slice(it, 1, TimelineSlice::Track::Kernels, base, 100));
      p.timeline.push_back(slice(it, 2, TimelineSlice::Track::Kernels, base + 100, 60));
      p.timeline.push_back(slice(it, 3, TimelineSlice::Track::DeviceToHost, base + 165, 5));
    }
    const auto fires = checkProfile(p);
    const auto* f = findingOf(fires, "PRF005");
    QVERIFY(f != nullptr);
    QCOMPARE(f->instructions, (std::vector<size_t>{1, 3}));
    QVERIFY2(f->message.find("65.0 µs") != std::string::npos, f->message.c_str());
    QVERIFY(f->evidence.find("2 aten::add.out") != std::string::npos);
    // The copy right after the delegate (a 5 µs gap): nothing to say.
    TransferProfile tight = p;
    for (auto& s : tight.timeline)
      if (s.instruction == 3) s.start_seconds -= 60 * us;
    QVERIFY(!hasFinding(checkProfile(tight), "PRF005"));
    // The copy moves what the CPU kernel wrote, not the delegate's output:
    // it does not wait on the delegate, however long the gap.
    TransferProfile kernels = p;
    kernels.copies[0].producer = 2;
    QVERIFY(!hasFinding(checkProfile(kernels), "PRF005"));
    // No delegate ran (ptescope's own executor): not judged.
    TransferProfile own = p;
    own.runtime = "cuda:0 (NVIDIA H100)";
    own.instructions[0].executed = false;
    QVERIFY(notJudged(checkProfile(own), "PRF005"));
    // A profile not matched to its program: which copy reads what is unknown.
    TransferProfile unmatched = p;
    unmatched.copies[0].producer.reset();
    QVERIFY(notJudged(checkProfile(unmatched), "PRF005"));
  }

  // The copy that waits on a delegate is the one reading its output, not the
  // next copy in time: delegate A (1) 0..100 µs, a kernel (2) 100..150 µs,
  // delegate B (3) 150..160 µs, then at 162 µs the d2h (4) of A's output.
  // Adjacency would pair it with B (a 2 µs gap); def/use pairs it with A:
  // 162 - 100 = 62 µs.
  void gapPairsTheDelegateWhoseOutputTheCopyReads() {
    TransferProfile p = traceProfile();
    p.instructions = {instruction(1, InstructionKind::DelegateCall, 100), instruction(2, InstructionKind::KernelCall, 50),
                      instruction(3, InstructionKind::DelegateCall, 10),
                      instruction(4, InstructionKind::KernelCall, 5, true, 1, true)};
    p.copies = {copy(4, CopyDirection::DeviceToHost, 256, {5, 5})};
    p.copies[0].producer = 1;
    for (size_t it = 0; it < 2; ++it) {
      const double base = 1000.0 * double(it);
      p.timeline.push_back(slice(it, 1, TimelineSlice::Track::Kernels, base, 100));
      p.timeline.push_back(slice(it, 2, TimelineSlice::Track::Kernels, base + 100, 50));
      p.timeline.push_back(slice(it, 3, TimelineSlice::Track::Kernels, base + 150, 10));
      p.timeline.push_back(slice(it, 4, TimelineSlice::Track::DeviceToHost, base + 162, 5));
    }
    // Kept: findingOf points into the check (a temporary freed at the end
    // of its statement read as garbage under ASan).
    const auto check = checkProfile(p);
    const auto* f = findingOf(check, "PRF005");
    QVERIFY(f != nullptr);
    QCOMPARE(f->instructions, (std::vector<size_t>{1, 4}));
    QVERIFY2(f->message.find("62.0 µs") != std::string::npos, f->message.c_str());
    // The same copy reading B's output: 2 µs after B, below the 20 µs bar.
    TransferProfile b = p;
    b.copies[0].producer = 3;
    QVERIFY(!hasFinding(checkProfile(b), "PRF005"));
  }

  // identifyCopies finds each copy's producer through the method's def/use:
  // in encoder (h2d x, delegate, d2h h) the d2h reads the delegate's output,
  // the h2d reads a method input (no producer).
  void identifyCopiesFindsProducers() {
    const auto program = test::twoMethodProgram("[1, 8]");
    TransferProfile p = tracedProfileOf(program, "encoder");
    identifyCopies(p, program);
    const auto flow = analysis::Dataflow::build(*program.findMethod("encoder"));
    size_t delegate = 0;
    for (const auto& f : flow.instructions())
      if (f.kind == InstructionKind::DelegateCall) delegate = f.flat_index;
    QCOMPARE(p.copies[0].producer.has_value(), false);
    QVERIFY(p.copies[1].producer.has_value());
    QCOMPARE(*p.copies[1].producer, delegate);
    // The JSON keeps it.
    const auto j = report::profileJson(p);
    QCOMPARE(j["copies"][1]["producer"].get<size_t>(), delegate);
    QVERIFY(!j["copies"][0].contains("producer"));
    QTemporaryDir dir;
    const std::string path = dir.filePath("encoder.json").toStdString();
    QVERIFY(report::writeProfileJson(p, path).ok());
    auto read = report::readProfileJson(path);
    QVERIFY2(read.ok(), read ? "" : read.error().message.c_str());
    QCOMPARE(read->copies[1].producer, p.copies[1].producer);
    QCOMPARE(read->copies[0].producer.has_value(), false);
  }

  void findingsAsTextAndJson() {
    TransferProfile p = gpuProfile();
    p.copies = {copy(1, CopyDirection::HostToDevice, 4096, {5, 5, 5})};
    const auto check = checkProfile(p);
    const std::string text = report::profileCheckText(check);
    QVERIFY2(text.find("warning PRF001 [pageable-copy] method 'forward', instruction 1: ") != std::string::npos, text.c_str());
    QVERIFY(text.find("\n      evidence: ") != std::string::npos);
    QVERIFY(text.find("\n      fix: ") != std::string::npos);
    const auto j = report::profileCheckJson(check);
    QCOMPARE(j["findings"][0]["id"].get<std::string>(), std::string("PRF001"));
    QCOMPARE(j["findings"][0]["instructions"][0].get<size_t>(), size_t(1));
    // The profile JSON carries every analysis.
    const auto whole = report::profileJson(p);
    QVERIFY(whole.contains("analyses"));
    QCOMPARE(whole["analyses"]["source"]["kind"].get<std::string>(), std::string("cuda"));
    QCOMPARE(whole["analyses"]["summary"]["rows"][0]["count"].get<size_t>(), size_t(3));
    QVERIFY(whole["analyses"]["breakdown"]["overlap_us"].is_null());
  }
};

QTEST_GUILESS_MAIN(ProfileAnalysisTest)
#include "test_profile_analysis.moc"
