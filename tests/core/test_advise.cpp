// The placement advisor (core/advise, issue 25) on the programs of the
// issue's "Done when": what it offers, what it refuses and why, the device
// memory cap, the search on the big shapes, and that every candidate applies
// through the one edit model to a program that lints clean.
#include <QtTest>

#include <cmath>

#include "advise/Advise.h"
#include "analysis/Diagnostics.h"
#include "cost/CopyCost.h"
#include "passes/Pipeline.h"
#include "support/AdvisePrograms.h"
#include "program/Text.h"
#include "synth/Shapes.h"

using namespace ptescope;

namespace {

program::Program orFail(Result<program::Program> p, const char* what) {
  if (!p) qFatal("%s: %s", what, p.error().message.c_str());
  return std::move(p.value());
}

advise::MethodAdvice adviseOne(const program::Program& program, advise::AdviseOptions options = {}) {
  auto advice = advise::advise(program, options);
  if (!advice) qFatal("advise: %s", advice.error().message.c_str());
  if (advice->methods.size() != 1) qFatal("advise: %zu methods", advice->methods.size());
  return advice->methods.front();
}

bool contains(const std::vector<std::string>& lines, const std::string& part) {
  return std::any_of(lines.begin(), lines.end(), [&](const std::string& l) { return l.find(part) != std::string::npos; });
}

// The candidate applied through the one edit model, as propagate applies it.
program::Program applied(const program::Program& program, const advise::CandidateEdits& edits) {
  auto e = advise::programEdits(program, edits);
  if (!e) qFatal("edits: %s", e.error().message.c_str());
  auto options = passes::pipelineOptionsFor(program, e.value());
  if (!options) qFatal("options: %s", options.error().message.c_str());
  auto result = passes::runPipeline(program, options.value());
  if (!result) qFatal("pipeline: %s", result.error().message.c_str());
  return std::move(result->program);
}

size_t copiesIn(const program::Program& program) {
  auto p = cost::predictProgram(program, "forward", cost::defaultLinkProfile(), exec::HostMemoryKind::Pageable);
  if (!p) qFatal("predict: %s", p.error().message.c_str());
  return p->copies.size();
}

program::Program shape(const char* name, size_t instructions) {
  auto layers = synth::layersForInstructions(name, instructions);
  if (!layers) qFatal("%s", layers.error().message.c_str());
  auto built = orFail(synth::shapeProgram(name, layers.value()), name);
  return orFail(synth::applyDevicePasses(synth::SynthesizedProgram{built, {}}), name);
}

}  // namespace

class TestAdvise : public QObject {
  Q_OBJECT
 private slots:
  // Inputs and outputs touch only the delegate: the best candidate skips
  // both copies (and unplans the input, which skip_h2d needs: RT001), with
  // both caller contracts.
  void singleGpuBestIsBothSkips() {
    const auto program = orFail(testprograms::singleGpuProgram(), "single");
    const auto m = adviseOne(program);
    QCOMPARE(m.copies_now.h2d, size_t(1));
    QCOMPARE(m.copies_now.d2h, size_t(1));
    QCOMPARE(m.search, advise::SearchKind::Exhaustive);
    QVERIFY(!m.candidates.empty());
    const auto& best = m.candidates.front();
    QCOMPARE(best.rank, size_t(1));
    QVERIFY(best.edits.options.skip_h2d_for_method_inputs);
    QVERIFY(best.edits.options.skip_d2h_for_method_outputs);
    QVERIFY(best.edits.options.enable_non_cpu_memory_planning);
    QVERIFY(!best.edits.options.alloc_graph_input);
    QCOMPARE(best.copies_after.total(), size_t(0));
    QCOMPARE(best.copies_after.bytes, uint64_t(0));
    QVERIFY(best.predicted_saving_us > 0);
    QCOMPARE(best.predicted_saving_us, program::toMicros(m.copies_now.seconds));
    QVERIFY2(contains(best.caller_contract, "pass input 0 (%0) that already lives on cuda:0"),
             best.caller_contract.front().c_str());
    QVERIFY(contains(best.caller_contract, "stays on cuda:0; copy it yourself if the host needs it"));
    // Ranked by saving, never listing one that saves nothing.
    for (size_t i = 1; i < m.candidates.size(); ++i) {
      QVERIFY(m.candidates[i].predicted_saving_us <= m.candidates[i - 1].predicted_saving_us);
      QVERIFY(m.candidates[i].predicted_saving_us > 0);
      QCOMPARE(m.candidates[i].rank, i + 1);
    }
    // Legacy mode hides the copies (the backend gets host memory): never a
    // saving, even where --explain tries it.
    advise::AdviseOptions explain;
    explain.explain = true;
    explain.top = 0;
    const auto explained = adviseOne(program, explain);
    for (const auto& c : explained.candidates) QVERIFY(c.edits.options.enable_non_cpu_memory_planning);
    QCOMPARE(explained.candidates.front().edits, best.edits);
    const auto legacy = std::find_if(explained.rejected.begin(), explained.rejected.end(),
                                     [](const advise::Rejection& r) { return r.edits_text == "--no-device-planning"; });
    QVERIFY(legacy != explained.rejected.end());
    QVERIFY(legacy->reason.find("not a saving") != std::string::npos);
    QCOMPARE(copiesIn(applied(program, best.edits)), size_t(0));
    // Device memory: the input unplanned on cuda:0 (the caller's) and the
    // output planned there, 64x64 float32 each.
    QCOMPARE(best.device_memory.size(), size_t(1));
    QCOMPARE(best.device_memory[0].device.str(), std::string("cuda:0"));
    QCOMPARE(best.device_memory[0].bytes, uint64_t(2 * 64 * 64 * 4));
  }

  // Issue 34 item 9: asking for the rejected edits changes nothing else:
  // the same runs, the same count of valid edits, the same candidates (a
  // local search is where the obvious edits add states it did not visit).
  void explainChangesOnlyTheRejectedList() {
    for (const auto& devices : std::vector<std::vector<std::string>>{
             {"cuda:0", "cuda:1", "cuda:2", "cuda:3"}, {"cuda:1", "cuda:0", "cuda:1", "cuda:0"}}) {
      const auto program = orFail(testprograms::chainProgram(devices), "chain");
      advise::AdviseOptions options;
      options.mode = advise::SearchMode::Local;
      const auto plain = adviseOne(program, options);
      options.explain = true;
      const auto explained = adviseOne(program, options);
      QCOMPARE(explained.pipeline_runs, plain.pipeline_runs);
      QCOMPARE(explained.valid_with_saving, plain.valid_with_saving);
      QCOMPARE(explained.candidates.size(), plain.candidates.size());
      for (size_t i = 0; i < plain.candidates.size(); ++i) QCOMPARE(explained.candidates[i].edits, plain.candidates[i].edits);
      QVERIFY(plain.rejected.empty());
    }
  }

  // The placeholder is read by the delegate and a CPU op: skip_h2d is never
  // offered, and --explain gives upstream's reason.
  void sharedPlaceholderNeverSkipsH2d() {
    const auto program = orFail(testprograms::sharedPlaceholderProgram(), "shared");
    advise::AdviseOptions options;
    options.explain = true;
    options.top = 0;
    const auto m = adviseOne(program, options);
    for (const auto& c : m.candidates) QVERIFY(!c.edits.options.skip_h2d_for_method_inputs);
    const auto it = std::find_if(m.rejected.begin(), m.rejected.end(),
                                 [](const advise::Rejection& r) { return r.edits_text == "--skip-h2d-inputs"; });
    QVERIFY(it != m.rejected.end());
    QVERIFY2(it->reason.find("upstream's pipeline raises") != std::string::npos, it->reason.c_str());
    QVERIFY2(it->reason.find("'%0' to have exactly one user, but it has 2 users") != std::string::npos, it->reason.c_str());
    // Without --explain nothing is listed as rejected.
    QVERIFY(adviseOne(program).rejected.empty());
  }

  // cuda:0 -> cuda:1 -> cuda:0: moving the middle delegate to cuda:0 removes
  // the two hops through the host (four copies), offered with its memory.
  void chainMovesTheMiddleDelegate() {
    const auto program = orFail(testprograms::chainProgram({"cuda:0", "cuda:1", "cuda:0"}), "chain");
    advise::AdviseOptions options;
    options.top = 0;
    const auto m = adviseOne(program, options);
    QCOMPARE(m.copies_now.total(), size_t(6));
    QCOMPARE(m.devices.size(), size_t(2));
    QCOMPARE(m.device_delegates, size_t(3));
    const auto move = std::find_if(m.candidates.begin(), m.candidates.end(), [](const advise::Candidate& c) {
      return c.edits.changes.empty() && c.edits.moves.size() == 1 && c.edits.moves[0].delegate == 1;
    });
    QVERIFY(move != m.candidates.end());
    QCOMPARE(move->edits.moves[0].to.str(), std::string("cuda:0"));
    QCOMPARE(move->edits.moves[0].from.str(), std::string("cuda:1"));
    QCOMPARE(move->copies_after.total(), size_t(2));
    QVERIFY(contains(move->caller_contract, "delegate 1 computes on cuda:0; its memory: 8.0 KiB"));
    QCOMPARE(move->device_memory.size(), size_t(1));
    QCOMPARE(move->device_memory[0].device.str(), std::string("cuda:0"));
    QCOMPARE(advise::editsText(move->edits), std::string("--set-device forward:1=cuda:0"));
    // The best also removes the hops (and the method's own copies).
    const auto& best = m.candidates.front();
    QCOMPARE(best.copies_after.total(), size_t(0));
    QVERIFY(!best.edits.moves.empty());
    const auto moved = applied(program, move->edits);
    QCOMPARE(copiesIn(moved), size_t(2));
    // Its memory is the planned device buffers of the result (no weights here).
    int64_t planned = 0;
    for (const auto& b : passes::buffersOf(moved.methods()[0]))
      if (!b.device.isCpu()) planned += b.size;
    QVERIFY(planned > 0);
    QCOMPARE(move->device_memory[0].bytes, uint64_t(planned));
    // Removing a target_device is never a candidate.
    for (const auto& c : m.candidates)
      for (const auto& mv : c.edits.moves) QVERIFY(!mv.to.isCpu());
  }

  // Four GPUs, 1 MiB of weights per delegate: unlimited, one GPU holds all;
  // with a 2.5 MiB cap no candidate puts more than two delegates on one.
  void deviceMemoryCapRulesOutOneGpu() {
    const auto program = orFail(testprograms::chainProgram({"cuda:0", "cuda:1", "cuda:2", "cuda:3"}, 1 << 20), "four");
    advise::AdviseOptions options;
    options.top = 0;
    const auto free = adviseOne(program, options);
    QCOMPARE(free.copies_now.total(), size_t(8));
    QCOMPARE(free.candidates.front().device_memory.size(), size_t(1));
    QVERIFY(free.candidates.front().device_memory[0].bytes >= uint64_t(4) << 20);
    QCOMPARE(free.candidates.front().copies_after.total(), size_t(0));

    const uint64_t cap = (uint64_t(5) << 20) / 2;
    options.device_memory = cap;
    options.explain = true;
    const auto capped = adviseOne(program, options);
    QVERIFY(!capped.candidates.empty());
    for (const auto& c : capped.candidates)
      for (const auto& d : c.device_memory) QVERIFY2(d.bytes <= cap, d.device.str().c_str());
    const auto& best = capped.candidates.front();
    QVERIFY(best.device_memory.size() >= 2);
    QCOMPARE(best.copies_after.total(), size_t(2));  // one hop left between the two pairs
    QVERIFY(best.predicted_saving_us < free.candidates.front().predicted_saving_us);
  }

  // The space beyond the budget: a local search from the file's options,
  // said so; where the space is small, it finds the same best as the
  // exhaustive search.
  void localSearchMatchesExhaustiveWhereSmall() {
    for (const auto& devices : std::vector<std::vector<std::string>>{
             {"cuda:0", "cuda:1", "cuda:0"}, {"cuda:0", "cuda:1", "cuda:2", "cuda:3"}, {"cuda:1", "cuda:0", "cuda:1", "cuda:0"}}) {
      const auto program = orFail(testprograms::chainProgram(devices), "chain");
      advise::AdviseOptions options;
      options.mode = advise::SearchMode::Exhaustive;
      options.max_runs = 100000;
      const auto full = adviseOne(program, options);
      options.mode = advise::SearchMode::Local;
      const auto local = adviseOne(program, options);
      QCOMPARE(full.search, advise::SearchKind::Exhaustive);
      QCOMPARE(local.search, advise::SearchKind::Local);
      QVERIFY(local.pipeline_runs < full.pipeline_runs);
      QVERIFY(local.search_note.find("local search from the file's options") != std::string::npos);
      QCOMPARE(local.candidates.front().predicted_saving_us, full.candidates.front().predicted_saving_us);
      QCOMPARE(local.candidates.front().edits.count(), full.candidates.front().edits.count());
    }
    // Auto picks local beyond max_runs and says so.
    const auto program = orFail(testprograms::chainProgram({"cuda:0", "cuda:1", "cuda:0"}), "chain");
    advise::AdviseOptions options;
    options.max_runs = 50;
    const auto m = adviseOne(program, options);
    QCOMPARE(m.search, advise::SearchKind::Local);
    QVERIFY(m.pipeline_runs <= 50);
    QVERIFY(m.search_note.find("would exceed the budget of 50 runs") != std::string::npos);
  }

  // The 10k llm and moe shapes: a result within the budget, the same as the
  // exhaustive search (their one device makes the space small).
  void bigShapesWithinBudget() {
    for (const char* name : {"llm", "moe"}) {
      const auto program = shape(name, 10000);
      const auto m = adviseOne(program);
      QVERIFY(!m.budget_reached);
      QVERIFY(m.pipeline_runs <= 2000);
      QVERIFY(!m.candidates.empty());
      QVERIFY(m.candidates.front().edits.options.skip_d2h_for_method_outputs);
      advise::AdviseOptions options;
      options.mode = advise::SearchMode::Local;
      const auto local = adviseOne(program, options);
      QCOMPARE(local.candidates.front().edits, m.candidates.front().edits);
    }
    // The four-stage pipeline shape: more combinations than any budget, so a
    // local search, which still ends on its own.
    const auto program = shape("pipeline", 2000);
    const auto m = adviseOne(program);
    QCOMPARE(m.search, advise::SearchKind::Local);
    QVERIFY(!m.budget_reached);
    QCOMPARE(m.devices.size(), size_t(4));
    // Sixty layers (5,242,880 combinations): a count past a million is
    // written by its size, "5.2 × 10^6", not as seven digits to count.
    // The mantissa and exponent are checked against the count the search had.
    const auto sixty = adviseOne(shape("pipeline", 60));
    QVERIFY2(sixty.space >= 1e6 && sixty.space < 1e15, qPrintable(QString::number(sixty.space)));
    const int exponent = int(std::floor(std::log10(sixty.space)));
    const QString size = QString("all %1 \u00d7 10^%2 combinations").arg(sixty.space / std::pow(10.0, exponent), 0, 'f', 1).arg(exponent);
    QVERIFY2(QString::fromStdString(sixty.search_note).contains(size), sixty.search_note.c_str());
    QVERIFY(!QString::fromStdString(sixty.search_note).contains(QString::number(uint64_t(sixty.space))));
  }

  // Every listed candidate applies through the one edit model to a program
  // with the predicted copies and no lint error, and its flags are
  // propagate's.
  void everyCandidateAppliesAndLintsClean() {
    std::vector<program::Program> programs{orFail(testprograms::singleGpuProgram(), "single"),
                                           orFail(testprograms::sharedPlaceholderProgram(), "shared"),
                                           orFail(testprograms::chainProgram({"cuda:0", "cuda:1", "cuda:0"}), "chain")};
    size_t checked = 0;
    for (const auto& program : programs) {
      advise::AdviseOptions options;
      options.top = 0;
      for (const auto& c : adviseOne(program, options).candidates) {
        const auto result = applied(program, c.edits);
        QVERIFY2(!analysis::hasErrors(analysis::lintProgram(result)), advise::editsText(c.edits).c_str());
        QCOMPARE(copiesIn(result), c.copies_after.total());
        const auto flags = advise::propagateFlags(c.edits);
        QCOMPARE(flags[0], std::string("--method"));
        QCOMPARE(flags[1], std::string("forward"));
        ++checked;
      }
    }
    QVERIFY(checked > 10);
  }

  void flagsAndCommandLine() {
    advise::CandidateEdits e;
    e.method = "my method";
    e.options.skip_h2d_for_method_inputs = true;
    e.changes.skip_h2d_for_method_inputs = true;
    e.changes.alloc_graph_input = false;
    e.moves.push_back(advise::DeviceMove{2, program::Device{program::DeviceType::Cuda, 0},
                                         program::Device{program::DeviceType::Cuda, 1}});
    QCOMPARE(e.count(), size_t(3));
    // Quoted as propagate takes them (walkthrough 20: unquoted, the app's
    // Edits split at the method name's space when pasted).
    QCOMPARE(advise::editsText(e),
             std::string("--skip-h2d-inputs --no-alloc-graph-input --set-device 'my method:2=cuda:1'"));
    QCOMPARE(advise::propagateCommand("in.pte", "out dir/o.pte", e),
             std::string("ptescope-cli propagate in.pte -o 'out dir/o.pte' --method 'my method' --skip-h2d-inputs "
                         "--no-alloc-graph-input --set-device 'my method:2=cuda:1'"));
    QCOMPARE(advise::editsText(advise::CandidateEdits{}), std::string("(the file's options)"));
  }

  void errorsAndCancel() {
    const auto program = orFail(testprograms::singleGpuProgram(), "single");
    advise::AdviseOptions options;
    options.method = "nope";
    auto unknown = advise::advise(program, options);
    QVERIFY(!unknown);
    QCOMPARE(unknown.error().message, std::string("no method named 'nope'"));
    std::atomic<bool> cancel{true};
    advise::AdviseOptions cancelled;
    cancelled.cancel = &cancel;
    auto stopped = advise::advise(program, cancelled);
    QVERIFY(!stopped);
    QCOMPARE(stopped.error().message, std::string("cancelled"));
  }

  // A program whose options are already best: no candidate, said so.
  void alreadyBestListsNothing() {
    const auto single = orFail(testprograms::singleGpuProgram(), "single");
    const auto m = adviseOne(single);
    const auto best = applied(single, m.candidates.front().edits);
    const auto again = adviseOne(best);
    QCOMPARE(again.copies_now.total(), size_t(0));
    QVERIFY(again.file_is_best());
  }
};

QTEST_GUILESS_MAIN(TestAdvise)
#include "test_advise.moc"
