// One copy identity (exec/CopyIdentity): keys, pairing of two profiles, and
// the canonical sources that make copies pair across edits.
#include <QtTest>

#include "analysis/Dataflow.h"
#include "exec/CopyIdentity.h"
#include "synth/Scenarios.h"

using namespace ptescope;
using namespace ptescope::exec;

namespace {

constexpr auto kH2D = program::CopyDirection::HostToDevice;
constexpr auto kD2H = program::CopyDirection::DeviceToHost;

CopyProfile copyOf(size_t instruction, program::CopyDirection direction, int32_t source, int32_t destination,
                   int32_t canonical = -1) {
  return CopyProfile{.instruction = instruction, .direction = direction, .source_value = source,
                     .destination_value = destination, .canonical_source = canonical,
                     .device = program::Device{program::DeviceType::Cuda, 0}};
}

}  // namespace

class TestCopyIdentity : public QObject {
  Q_OBJECT
 private slots:
  void oneSpellingOfDirections() {
    using program::CopyDirection;
    QCOMPARE(program::copyDirectionName(CopyDirection::HostToDevice), std::string("h2d"));
    QCOMPARE(program::copyDirectionName(CopyDirection::DeviceToHost), std::string("d2h"));
    QCOMPARE(program::copyDirectionName(CopyDirection::DeviceToDevice), std::string("d2d"));
    QCOMPARE(program::copyDirectionLongName(CopyDirection::DeviceToHost), std::string("device-to-host"));
    QCOMPARE(program::parseCopyDirection("h2d"), std::optional(CopyDirection::HostToDevice));
    QCOMPARE(program::parseCopyDirection("D2H"), std::optional(CopyDirection::DeviceToHost));  // files written before
    QCOMPARE(program::parseCopyDirection("d2d"), std::optional(CopyDirection::DeviceToDevice));
    QVERIFY(!program::parseCopyDirection("H2d"));
    QVERIFY(!program::parseCopyDirection("host"));
    QCOMPARE(program::kHostDeviceDirections.size(), size_t(2));
    QCOMPARE(program::kHostDeviceDirections[0], CopyDirection::HostToDevice);
    // Timeline tracks: one per copy direction, derived from it.
    using Track = TimelineSlice::Track;
    QCOMPARE(TimelineSlice::copyTrack(CopyDirection::DeviceToHost), Track::DeviceToHost);
    QCOMPARE(TimelineSlice::copyDirectionOf(Track::HostToDevice), std::optional(CopyDirection::HostToDevice));
    QVERIFY(!TimelineSlice::copyDirectionOf(Track::Kernels));
  }

  void keysCountOccurrencesInInstructionOrder() {
    // Two copies of %1 to cuda:0 (one per delegate that reads it), listed
    // out of instruction order, and one of %2.
    const std::vector<CopyEnds> ends{{7, kH2D, 1, 9, "cuda:0"}, {2, kH2D, 1, 8, "cuda:0"}, {4, kH2D, 2, 10, "cuda:0"}};
    const auto keys = copyKeys(ends, SourceNumbering::Raw);
    QCOMPARE(keys.size(), size_t(3));
    QVERIFY((keys[0] == CopyKey{kH2D, 1, "cuda:0", 1}));
    QVERIFY((keys[1] == CopyKey{kH2D, 1, "cuda:0", 0}));
    QVERIFY((keys[2] == CopyKey{kH2D, 2, "cuda:0", 0}));
  }

  void rawSourcesFollowCopyChains() {
    // cuda:0 → cpu → cuda:1: the second copy reads the first one's output
    // %6; both are keyed by %5, where the chain starts.
    const std::vector<CopyEnds> ends{{3, kD2H, 5, 6, "cuda:0"}, {4, kH2D, 6, 7, "cuda:1"}};
    const auto raw = copyKeys(ends, SourceNumbering::Raw);
    QCOMPARE(raw[0].source, 5);
    QCOMPARE(raw[1].source, 5);
    QCOMPARE(raw[1].device, std::string("cuda:1"));
    // Canonical sources are copy-free already: no chain to follow.
    const auto canonical = copyKeys(ends, SourceNumbering::Canonical);
    QCOMPARE(canonical[1].source, 6);
    // A cycle (a malformed program) ends instead of looping.
    const std::vector<CopyEnds> cycle{{0, kH2D, 1, 2, "cuda:0"}, {1, kD2H, 2, 1, "cuda:0"}};
    QCOMPARE(copyKeys(cycle, SourceNumbering::Raw).size(), size_t(2));
  }

  void pairsByWhatCopiesMove() {
    TransferProfile before, after;
    before.copies = {copyOf(1, kH2D, 0, 4), copyOf(2, kH2D, 1, 5), copyOf(6, kD2H, 3, 6)};
    // An edit renumbered every instruction and removed the copy of %1.
    after.copies = {copyOf(11, kH2D, 0, 4), copyOf(15, kD2H, 3, 6)};
    const auto pairs = pairCopies(after, before);
    QCOMPARE(pairs.size(), size_t(3));
    QCOMPARE(pairs[0].latest, &after.copies[0]);
    QCOMPARE(pairs[0].previous, &before.copies[0]);
    QCOMPARE(pairs[1].latest, &after.copies[1]);
    QCOMPARE(pairs[1].previous, &before.copies[2]);
    QVERIFY(pairs[2].latest == nullptr);
    QCOMPARE(pairs[2].previous, &before.copies[1]);
  }

  void canonicalSourcesWinWhenBothHaveThem() {
    // Raw sources differ (the file numbers copy outputs among the other
    // values), canonical ones agree: the copies pair.
    TransferProfile before, after;
    before.copies = {copyOf(1, kH2D, 3, 4, 0)};
    after.copies = {copyOf(1, kH2D, 7, 8, 0)};
    QVERIFY(hasCanonicalSources(before) && hasCanonicalSources(after));
    auto pairs = pairCopies(after, before);
    QCOMPARE(pairs.size(), size_t(1));
    QCOMPARE(pairs[0].previous, &before.copies[0]);
    // One copy without a canonical source: both fall back to raw sources,
    // which differ, so nothing pairs.
    after.copies[0].canonical_source = -1;
    QVERIFY(!hasCanonicalSources(after));
    pairs = pairCopies(after, before);
    QCOMPARE(pairs.size(), size_t(2));
    const auto byKey = copiesByKey(before, SourceNumbering::Canonical);
    QCOMPARE(byKey.size(), size_t(1));
    QCOMPARE(byKey.begin()->first.source, 0);
  }

  void identifyCopiesFillsTheCopyFreeNumbering() {
    // The pre-pass graph has no copies; after the passes each h2d copy reads
    // a method input, whose copy-free index is its pre-pass index.
    auto synthesized = synth::synthesizeScenario("h2d_d2h");
    QVERIFY(synthesized.ok());
    const auto prePassInputs = program::items(synthesized->program.methods()[0].inputs);
    auto passed = synth::applyDevicePasses(synthesized.value());
    QVERIFY2(passed.ok(), passed ? "" : passed.error().message.c_str());
    const auto& method = passed->methods()[0];
    const auto flow = analysis::Dataflow::build(method);
    TransferProfile profile;
    profile.method = method.displayName();
    for (const auto& ins : flow.instructions()) {
      if (!ins.is_h2d_copy && !ins.is_d2h_copy) continue;
      const auto& instruction = (*(*method.chains)[ins.chain].instructions)[ins.index_in_chain];
      const auto& call = std::get<program::KernelCall>(instruction.data);
      profile.copies.push_back(copyOf(ins.flat_index, ins.is_h2d_copy ? kH2D : kD2H, (*call.args)[0], (*call.args)[1]));
    }
    QCOMPARE(profile.copies.size(), size_t(3));
    identifyCopies(profile, passed.value());
    const auto inputs = program::items(method.inputs);
    QCOMPARE(inputs.size(), prePassInputs.size());
    size_t h2d = 0;
    for (const auto& c : profile.copies) {
      QVERIFY(c.canonical_source >= 0);
      if (c.direction != kH2D) continue;
      const auto at = std::find(inputs.begin(), inputs.end(), c.source_value);
      QVERIFY(at != inputs.end());
      QCOMPARE(c.canonical_source, prePassInputs[size_t(at - inputs.begin())]);
      ++h2d;
    }
    QCOMPARE(h2d, size_t(2));
    // A copy's output is the same data as its source.
    const auto canonical = CanonicalValues::of(method);
    QVERIFY(canonical.known());
    for (const auto& c : profile.copies) QCOMPARE(canonical.of(c.destination_value), canonical.of(c.source_value));
    QCOMPARE(canonical.of(-1), -1);
    QCOMPARE(canonical.of(100000), -1);
    QVERIFY(!CanonicalValues().known());
  }
};

QTEST_APPLESS_MAIN(TestCopyIdentity)
#include "test_copy_identity.moc"
