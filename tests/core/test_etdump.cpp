// ETDump reading and mapping: every shared sample trace (../shared/etdump-
// samples, skipped when absent) against its MANIFEST row and its program, one
// trace against numbers decoded by hand, traces this test writes itself
// (delegate events, debug values, allocators, both container forms), and bad
// input of every kind the issue names.
#include <QtTest>

#include <algorithm>

#include "analysis/Dataflow.h"
#include "etdump/Etdump.h"
#include "etdump/EtdumpProfile.h"
#include "etdump/EtdumpWriter.h"
#include "exec/ProfileAnalysis.h"
#include "program/Text.h"
#include "pte/Reader.h"
#include "support/EtdumpTestSupport.h"
#include "support/TestSupport.h"
#include "synth/JsonSpec.h"
#include "synth/Scenarios.h"

using namespace ptescope;

namespace {

program::Program demoProgram() {
  auto synthesized = synth::synthesizeDemo();
  if (!synthesized) qFatal("demo: %s", synthesized.error().message.c_str());
  auto program = synth::applyDevicePasses(synthesized.value());
  if (!program) qFatal("demo passes: %s", program.error().message.c_str());
  return program.value();
}

etdump::Etdump parsed(const std::vector<uint8_t>& bytes) {
  auto dump = etdump::parseEtdump(bytes, "test.etdp");
  if (!dump) qFatal("parse: %s", dump.error().message.c_str());
  return dump.value();
}

const etdump::InstructionStats* statsOf(const etdump::MethodStats& m, size_t instruction) {
  for (const auto& i : m.instructions)
    if (i.instruction == instruction) return &i;
  return nullptr;
}

}  // namespace

class EtdumpTest : public QObject {
  Q_OBJECT

 private slots:
  // Every shared trace: counts as in MANIFEST.tsv, blocks attributed to the
  // methods in the MANIFEST's block order, every instruction event mapped to
  // an instruction of its method with the label the program gives it.
  void samplesMatchManifestAndProgram() {
    PTESCOPE_REQUIRE_ETDUMP_SAMPLES();
    const auto samples = test::etdumpSamples();
    QVERIFY(samples.size() >= 30);
    for (const auto& s : samples) {
      const QString where = s.etdp;
      auto dump = etdump::readEtdumpFile(s.path(s.etdp).toStdString());
      QVERIFY2(dump, qPrintable(where + ": " + QString::fromStdString(dump ? std::string() : dump.error().message)));
      QVERIFY2(dump->size_prefixed, qPrintable(where));
      QCOMPARE(int(dump->blocks.size()), s.blocks);
      QCOMPARE(int(dump->profileEventCount()), s.profileEvents);
      QCOMPARE(int(dump->debugEventCount()), s.debugEvents);
      QCOMPARE(int(dump->allocationEventCount()), s.allocationEvents);

      auto loaded = pte::readProgramFile(s.path(s.pte).toStdString());
      QVERIFY2(loaded, qPrintable(where));
      auto analysis = etdump::analyzeEtdump(dump.value(), loaded->program);
      QVERIFY2(analysis, qPrintable(where + ": " + QString::fromStdString(analysis ? std::string() : analysis.error().message)));
      QVERIFY2(analysis->warning().empty(), qPrintable(where + ": " + QString::fromStdString(analysis->warning())));

      // Methods in block order, as the MANIFEST lists them.
      QStringList loads;
      for (const auto& b : analysis->blocks)
        if (b.name == "Default") loads << QString::fromStdString(b.method_name);
      QCOMPARE(loads, s.methods);
      for (const auto& b : analysis->blocks) QVERIFY2(b.method >= 0, qPrintable(where));

      // Instruction events counted straight from the file.
      size_t instructionEvents = 0;
      for (const auto& block : dump->blocks)
        for (const auto& e : block.events)
          if (const auto* p = std::get_if<etdump::ProfileEvent>(&e); p && !p->isFrameworkEvent()) ++instructionEvents;
      QCOMPARE(analysis->misfits.matched, instructionEvents);

      for (const auto& m : analysis->methods) {
        QCOMPARE(int(m.iterations), s.iterations);
        const auto* method = loaded->program.findMethod(m.method);
        QVERIFY(method != nullptr);
        const auto flow = analysis::Dataflow::build(*method);
        for (const auto& i : m.instructions) {
          QVERIFY2(i.instruction < flow.instructionCount(), qPrintable(where));
          QCOMPARE(i.label, flow.instructions()[i.instruction].label);
          QCOMPARE(i.executions_per_iteration, size_t(1));
          QCOMPARE(int(i.samples.size()), s.iterations);
          QVERIFY(i.seconds.min <= i.seconds.median && i.seconds.median <= i.seconds.max);
        }
        // Traced with instruction profiling: every instruction of the method has events.
        if (!s.etdp.contains("profile-method-only")) QCOMPARE(m.instructions.size(), flow.instructionCount());
      }
    }
  }

  // scenario_h2d_d2h.etdp decoded by hand with
  //   flatc --json --strict-json --raw-binary --size-prefixed core/schema/etdump.fbs -- scenario_h2d_d2h.etdp
  // (ticks; 1 tick = 1 ns). Instruction 0 (_h2d_copy of %0, float32[2,2] = 16 bytes):
  // native_call__h2d_copy.out lasted 119, 86, 83 ticks in the three Execute blocks
  // (250679-250560, 255346-255260, 259081-258998), its OPERATOR_CALL 760, 424, 397.
  // Instruction 1: native 79, 78, 82. Instruction 3 (_d2h_copy): native 127, 79, 81.
  // Instruction 2 (DELEGATE_CALL): 295, 189, 154. Method::execute: 3747, 2743, 4238.
  void perCopyNumbersMatchAHandDecode() {
    PTESCOPE_REQUIRE_ETDUMP_SAMPLES();
    const QString dir = test::etdumpSamplesDir();
    auto loaded = pte::readProgramFile((dir + "/scenario_h2d_d2h.pte").toStdString());
    QVERIFY(loaded);
    auto dump = etdump::readEtdumpFile((dir + "/scenario_h2d_d2h.etdp").toStdString());
    QVERIFY(dump);
    auto analysis = etdump::analyzeEtdump(dump.value(), loaded->program);
    QVERIFY(analysis);
    QCOMPARE(analysis->methods.size(), size_t(1));
    const auto& m = analysis->methods.front();
    QCOMPARE(m.method, std::string("forward"));
    QCOMPARE(m.run_seconds.median, 3747e-9);
    QCOMPARE(m.run_seconds.min, 2743e-9);
    QCOMPARE(m.run_seconds.max, 4238e-9);

    const auto* h2d = statsOf(m, 0);
    QVERIFY(h2d && h2d->is_copy);
    QCOMPARE(h2d->direction, program::CopyDirection::HostToDevice);
    QCOMPARE(h2d->bytes, uint64_t(16));
    QCOMPARE(h2d->copy_seconds.min, 83e-9);
    QCOMPARE(h2d->copy_seconds.median, 86e-9);
    QCOMPARE(h2d->copy_seconds.max, 119e-9);
    QCOMPARE(h2d->seconds.median, 424e-9);
    QCOMPARE(h2d->gbps, 16 / 86e-9 / 1e9);
    QCOMPARE(h2d->device.str(), std::string("cuda:0"));
    const auto* second = statsOf(m, 1);
    QVERIFY(second && second->is_copy);
    QCOMPARE(second->copy_seconds.median, 79e-9);
    const auto* d2h = statsOf(m, 3);
    QVERIFY(d2h && d2h->is_copy);
    QCOMPARE(d2h->direction, program::CopyDirection::DeviceToHost);
    QCOMPARE(d2h->copy_seconds.min, 79e-9);
    QCOMPARE(d2h->copy_seconds.median, 81e-9);
    QCOMPARE(d2h->copy_seconds.max, 127e-9);
    const auto* delegate = statsOf(m, 2);
    QVERIFY(delegate && delegate->category == etdump::Category::Delegate);
    QCOMPARE(delegate->seconds.median, 189e-9);

    // The same numbers in the profile every view reads.
    const auto profile = etdump::toTransferProfile(m, loaded->program, "scenario_h2d_d2h.pte");
    QCOMPARE(profile.runtime, std::string(etdump::kEtdumpSource));
    QVERIFY(!profile.emulated);
    QCOMPARE(profile.copies.size(), size_t(3));
    QCOMPARE(profile.copies[0].seconds.median, 86e-9);
    QCOMPARE(profile.copies[2].instruction, size_t(3));
    QCOMPARE(profile.host_to_device.bytes, uint64_t(32));
    QCOMPARE(profile.device_to_host.bytes, uint64_t(16));
    QVERIFY(profile.copies[0].canonical_source >= 0);
    QCOMPARE(profile.timeline.size(), size_t(4 * 3));

    // A tick of 2.5 ns scales every time.
    etdump::AnalysisOptions slow;
    slow.scale.ns_per_tick = 2.5;
    auto scaled = etdump::analyzeEtdump(dump.value(), loaded->program, slow);
    QVERIFY(scaled);
    QCOMPARE(statsOf(scaled->methods.front(), 0)->copy_seconds.median, 86 * 2.5e-9);
  }

  // The debug traces' tensors lie inside the debug buffer the runner wrote.
  void debugValuesPointIntoTheDebugBuffer() {
    PTESCOPE_REQUIRE_ETDUMP_SAMPLES();
    size_t tensors = 0;
    for (const auto& s : test::etdumpSamples()) {
      if (s.debugBuffer.isEmpty()) continue;
      auto dump = etdump::readEtdumpFile(s.path(s.etdp).toStdString());
      QVERIFY(dump);
      const auto buffer = test::readAll(s.path(s.debugBuffer));
      QCOMPARE(qint64(buffer.size()), s.debugBufferUsed);
      size_t outputs = 0;
      for (const auto& block : dump->blocks)
        for (const auto& e : block.events) {
          const auto* d = std::get_if<etdump::DebugEvent>(&e);
          if (!d) continue;
          QVERIFY2(d->value.has_value(), qPrintable(s.etdp));
          if (d->isProgramOutput()) ++outputs;
          for (const auto& t : d->value->tensors) {
            auto bytes = etdump::tensorBytes(t, buffer);
            QVERIFY2(bytes, qPrintable(s.etdp + ": " + QString::fromStdString(bytes ? std::string() : bytes.error().message)));
            QCOMPARE(uint64_t(bytes->size()), t.offset == -1 ? uint64_t(0) : *t.nbytes());
            ++tensors;
          }
        }
      QVERIFY2(outputs > 0, qPrintable(s.etdp + ": no program output logged"));
    }
    QVERIFY(tensors > 50);
  }

  // A trace this test writes: both container forms read back the same, delegate
  // events nest under their DELEGATE_CALL, durations are the ones asked for.
  void writtenTraceReadsBack() {
    const program::Program program = demoProgram();
    etdump::TraceSpec spec;
    spec.method = "forward";
    spec.iterations = 5;
    spec.delegate_events = true;
    spec.ticks = [](size_t iteration, size_t instruction) { return uint64_t(100 * (instruction + 1) + iteration); };
    auto dump = etdump::synthesizeEtdump(program, spec);
    QVERIFY(dump);
    // An allocator and its allocation events in the load block, as ETDumpGen writes them.
    dump->blocks.front().allocators = {"method_allocator"};
    dump->blocks.front().events.insert(dump->blocks.front().events.begin(), etdump::AllocationEvent{1, 4096});
    etdump::DebugEvent out;
    out.chain_index = UINT64_MAX;
    out.instruction_id = 0;
    out.value = etdump::DebugValue{};
    out.value->kind = etdump::DebugValue::Kind::Tensor;
    // forward's output 0 as the program has it (float32[1, 16]): a trace
    // logging another shape is another program's.
    out.value->tensors.push_back(etdump::DebugTensor{6, {1, 16}, {16, 1}, 64});
    out.value->output = true;
    dump->blocks.back().events.emplace_back(out);

    for (bool prefixed : {true, false}) {
      const auto bytes = etdump::serializeEtdump(dump.value(), prefixed);
      const auto back = parsed(bytes);
      QCOMPARE(back.size_prefixed, prefixed);
      QCOMPARE(back.blocks.size(), size_t(6));
      QCOMPARE(back.profileEventCount(), dump->profileEventCount());
      QCOMPARE(back.allocationEventCount(), size_t(1));
      QCOMPARE(back.blocks.front().allocators, std::vector<std::string>{"method_allocator"});
      QCOMPARE(std::get<etdump::AllocationEvent>(back.blocks.front().events.front()).allocation_size, uint64_t(4096));
      const auto& debug = std::get<etdump::DebugEvent>(back.blocks.back().events.back());
      QVERIFY(debug.isProgramOutput());
      QVERIFY(debug.value && debug.value->output);
      QCOMPARE(debug.value->tensors.front().sizes, (std::vector<int64_t>{1, 16}));
      QCOMPARE(*debug.value->tensors.front().nbytes(), uint64_t(64));
      std::vector<uint8_t> small(128, 0);  // offset 64 + 1 x 16 floats
      QVERIFY(etdump::tensorBytes(debug.value->tensors.front(), small));
      QVERIFY(!etdump::tensorBytes(debug.value->tensors.front(), std::vector<uint8_t>(127, 0)));

      auto analysis = etdump::analyzeEtdump(back, program);
      QVERIFY2(analysis, analysis ? "" : analysis.error().message.c_str());
      QVERIFY(analysis->warning().empty());
      const auto* m = analysis->find("forward");
      QVERIFY(m != nullptr);
      QCOMPARE(m->iterations, size_t(5));
      QCOMPARE(m->allocation_events, size_t(1));
      // Instruction 1 of the demo is its first delegate call.
      const auto* delegate = statsOf(*m, 1);
      QVERIFY(delegate && delegate->kind == program::InstructionKind::DelegateCall);
      QCOMPARE(delegate->seconds.median, (200 + 2) * 1e-9);  // iterations 0..4 → median iteration 2
      QCOMPARE(delegate->delegate_events.size(), size_t(2));
      QCOMPARE(delegate->delegate_events[0].id_int, 0);
      QCOMPARE(delegate->delegate_events[1].name, std::string("stub_op #1"));
      QCOMPARE(delegate->delegate_events[1].executions_per_iteration, size_t(1));
      // Copy 0: the kernel lasts 2 ticks less than the scope.
      const auto* copy = statsOf(*m, 0);
      QVERIFY(copy && copy->is_copy);
      QCOMPARE(copy->copy_seconds.median, (100 + 2 - 2) * 1e-9);
      QCOMPARE(copy->bytes, uint64_t(256));
    }
  }

  // The etdump report's "per iteration" line and its time breakdown gave two
  // shares of the same delegates (2.7% and 2.8%): one took the median of the
  // per-iteration sums, the other summed the per-instruction medians. Both
  // sum the medians now; here they differ by far (110 ns against 200 ns).
  void aMethodsTotalsAreTheBreakdownsTotals() {
    const program::Program program = demoProgram();
    etdump::TraceSpec spec;
    spec.method = "forward";
    spec.iterations = 3;
    spec.ticks = [](size_t iteration, size_t instruction) -> uint64_t {
      if (instruction == 1) return iteration == 0 ? 10 : 100;  // the demo's delegate calls
      if (instruction == 6) return iteration == 2 ? 10 : 100;
      return 50;
    };
    auto dump = etdump::synthesizeEtdump(program, spec);
    QVERIFY(dump);
    auto analysis = etdump::analyzeEtdump(parsed(etdump::serializeEtdump(dump.value(), true)), program);
    QVERIFY2(analysis, analysis ? "" : analysis.error().message.c_str());
    const auto* m = analysis->find("forward");
    QVERIFY(m != nullptr);
    QVERIFY(statsOf(*m, 1) && statsOf(*m, 1)->kind == program::InstructionKind::DelegateCall);
    QVERIFY(statsOf(*m, 6) && statsOf(*m, 6)->kind == program::InstructionKind::DelegateCall);
    QCOMPARE(m->delegate_seconds, 200e-9);
    const auto breakdown = exec::breakDownTime(etdump::toTransferProfile(*m, program, "demo.pte"));
    QCOMPARE(m->delegate_seconds, breakdown.delegate_seconds);
    QCOMPARE(m->kernel_seconds + m->other_seconds, breakdown.kernel_seconds);
    QCOMPARE(m->copy_seconds, breakdown.copy_seconds + breakdown.copy_overhead_seconds);
  }

  // Issue 34 item 4: a trace that leaves a kernel or delegate call without
  // any event in every run (a shorter program's trace fits this one's first
  // instructions) is another program's; upstream's Method::execute_instruction
  // opens an OPERATOR_CALL / DELEGATE_CALL scope around every call it runs.
  // A debug trace logs every program output at the end of each run: a
  // lookalike program (the same instructions, other tensor sizes) fitted
  // event for event and its 1 MiB copies read 12 TB/s. The logged outputs
  // must be the program's (dtype, rank and, for a static shape, sizes).
  void aTraceOfOtherTensorSizesIsAnotherProgram() {
    const program::Program program = demoProgram();
    const auto* forward = program.findMethod("forward");
    QVERIFY(forward != nullptr);
    const auto& values = program::items(forward->values);
    const auto* out = values[size_t(program::items(forward->outputs).front())].tensor();
    QVERIFY(out != nullptr && out->shape_dynamism == program::ShapeDynamism::Static);
    const auto& sizes = program::items(out->sizes);
    auto traceLogging = [&](std::vector<int64_t> logged) {
      etdump::TraceSpec spec;
      spec.method = "forward";
      auto dump = etdump::synthesizeEtdump(program, spec);
      etdump::DebugEvent e;
      e.chain_index = UINT64_MAX;
      e.value = etdump::DebugValue{};
      e.value->kind = etdump::DebugValue::Kind::Tensor;
      e.value->tensors.push_back(etdump::DebugTensor{int8_t(out->scalar_type), std::move(logged), {}, 0});
      e.value->output = true;
      dump->blocks.back().events.emplace_back(e);
      return dump.value();
    };
    const std::vector<int64_t> same(sizes.begin(), sizes.end());
    QVERIFY(etdump::analyzeEtdump(traceLogging(same), program));
    std::vector<int64_t> bigger = same;
    bigger.front() *= 256;
    auto refused = etdump::analyzeEtdump(traceLogging(bigger), program);
    QVERIFY(!refused);
    const QString message = QString::fromStdString(refused.error().message);
    QVERIFY2(message.startsWith("the ETDump does not describe this program: output 0 of method 'forward'"), qPrintable(message));
    QVERIFY2(message.contains(QString::fromStdString(program::tensorTypeText(out->scalar_type, bigger)) + " in the trace but " +
                              QString::fromStdString(program::tensorTypeText(*out)) + " in the program"),
             qPrintable(message));
    // Another rank is another program too.
    std::vector<int64_t> flat{1};
    for (auto s : same) flat.front() *= s;
    if (same.size() != 1) QVERIFY(!etdump::analyzeEtdump(traceLogging(flat), program));
  }

  // A trace without debug events records no tensor size: the lookalike of
  // bigger tensors is accepted, but its copies read faster than any
  // host-device link (12 TB/s), and the analysis warns. The same trace read
  // with a plausible tick does not.
  void copiesFasterThanAnyLinkAreWarned() {
    const program::Program program = demoProgram();
    etdump::TraceSpec spec;
    spec.method = "forward";
    auto dump = etdump::synthesizeEtdump(program, spec);
    QVERIFY(dump);
    auto plain = etdump::analyzeEtdump(dump.value(), program);
    QVERIFY(plain);
    QVERIFY2(plain->implausible.empty(), plain->implausible.c_str());
    QVERIFY(plain->warning().find("faster than any") == std::string::npos);
    etdump::AnalysisOptions tiny;
    tiny.scale.ns_per_tick = 1e-6;  // 256 B in a femtosecond or so
    auto fast = etdump::analyzeEtdump(dump.value(), program, tiny);
    QVERIFY(fast);
    QVERIFY(!fast->implausible.empty());
    const QString warning = QString::fromStdString(fast->warning());
    QVERIFY2(warning.startsWith("copies faster than any host-device link (first: #"), qPrintable(warning));
    QVERIFY2(warning.contains(" GB/s in method 'forward'"), qPrintable(warning));
    QVERIFY(!warning.contains('\n'));
  }

  void aTraceCoveringAPrefixIsAnotherProgram() {
    const program::Program program = demoProgram();
    etdump::TraceSpec spec;
    spec.method = "forward";
    auto dump = etdump::synthesizeEtdump(program, spec);
    QVERIFY(dump);
    QVERIFY(etdump::analyzeEtdump(dump.value(), program));  // whole: accepted
    // The forward method's calls, counted from the program: the last one and
    // the number of kernel and delegate calls.
    const auto* forward = program.findMethod("forward");
    QVERIFY(forward != nullptr);
    const auto flow = analysis::Dataflow::build(*forward);
    size_t calls = 0, last = 0;
    for (const auto& f : flow.instructions())
      if (f.kind == program::InstructionKind::KernelCall || f.kind == program::InstructionKind::DelegateCall) {
        ++calls;
        last = f.flat_index;
      }
    QVERIFY(calls >= 2);
    // Every event of the last call gone, in every run: the trace of a program
    // one call shorter.
    const auto& where = flow.instructions()[last];
    for (auto& block : dump->blocks)
      block.events.erase(std::remove_if(block.events.begin(), block.events.end(),
                                        [&](const etdump::Event& e) {
                                          const auto* p = std::get_if<etdump::ProfileEvent>(&e);
                                          return p && p->chain_index == int32_t(where.chain) &&
                                                 p->instruction_id == int32_t(where.index_in_chain);
                                        }),
                         block.events.end());
    auto refused = etdump::analyzeEtdump(dump.value(), program);
    QVERIFY(!refused);
    const QString message = QString::fromStdString(refused.error().message);
    QVERIFY2(message.startsWith("the ETDump does not describe this program: 1 of the " + QString::number(calls) +
                                " kernel and delegate calls of method 'forward' have no event in any of its 3 run(s)"),
             qPrintable(message));
    QVERIFY2(message.endsWith("first: #" + QString::number(last) + " " + QString::fromStdString(where.label)),
             qPrintable(message));
    QVERIFY(!message.contains('\n'));

    // Traced at the method level only (no instruction events): nothing to say.
    for (auto& block : dump->blocks)
      block.events.erase(std::remove_if(block.events.begin(), block.events.end(),
                                        [](const etdump::Event& e) {
                                          const auto* p = std::get_if<etdump::ProfileEvent>(&e);
                                          return p && !p->isFrameworkEvent();
                                        }),
                         block.events.end());
    QVERIFY(etdump::analyzeEtdump(dump.value(), program));
  }

  // Events that do not fit: a few give one warning with counts; a trace of
  // another program is refused.
  void misfitsWarnOrRefuse() {
    const program::Program program = demoProgram();
    etdump::TraceSpec spec;
    spec.method = "forward";
    auto dump = etdump::synthesizeEtdump(program, spec);
    QVERIFY(dump);
    // An operator event on a delegate call: a misfit, warned.
    etdump::ProfileEvent stray;
    stray.name = "OPERATOR_CALL";
    stray.instruction_id = 1;  // the demo's first delegate call
    stray.start_ticks = 5000;
    stray.end_ticks = 5010;
    auto withStray = dump.value();
    withStray.blocks[1].events.insert(withStray.blocks[1].events.begin(), etdump::Event(stray));
    auto analysis = etdump::analyzeEtdump(withStray, program);
    QVERIFY2(analysis, analysis ? "" : analysis.error().message.c_str());
    QCOMPARE(analysis->misfits.kind_mismatch, size_t(1));
    const QString warning = QString::fromStdString(analysis->warning());
    QVERIFY2(warning.contains("1 on an instruction of another kind"), qPrintable(warning));
    QVERIFY(!warning.contains('\n'));
    // An instruction id past the method's end: the runtime never writes one
    // for this program, so the trace is another (longer) program's, refused
    // (the trace of the 8-instruction demo fitted an edited 7-instruction one
    // but for its last events).
    stray.instruction_id = 9999;
    auto past = dump.value();
    past.blocks[1].events.insert(past.blocks[1].events.begin(), etdump::Event(stray));
    auto longer = etdump::analyzeEtdump(past, program);
    QVERIFY(!longer);
    QVERIFY2(QString::fromStdString(longer.error().message).contains("does not describe this program"),
             longer.error().message.c_str());

    // The demo's trace against another program.
    auto other = synth::synthesizeScenario("add_then_sin");
    QVERIFY(other);
    auto otherProgram = synth::applyDevicePasses(other.value());
    QVERIFY(otherProgram);
    auto refused = etdump::analyzeEtdump(dump.value(), otherProgram.value());
    QVERIFY(!refused);
    QVERIFY2(QString::fromStdString(refused.error().message).contains("does not describe this program"),
             refused.error().message.c_str());

    // Method options: unknown names and a load list of the wrong length.
    etdump::AnalysisOptions unknown;
    unknown.methods = {"nope"};
    QVERIFY(!etdump::analyzeEtdump(dump.value(), program, unknown));
    etdump::AnalysisOptions twoLoads;
    twoLoads.methods = {"forward", "prefill"};
    auto wrongCount = etdump::analyzeEtdump(dump.value(), program, twoLoads);
    QVERIFY(!wrongCount);
    QVERIFY(QString::fromStdString(wrongCount.error().message).contains("names 2 loads"));
    // One name puts every block on that method.
    etdump::AnalysisOptions forward;
    forward.methods = {"forward"};
    auto given = etdump::analyzeEtdump(dump.value(), program, forward);
    QVERIFY(given);
    QCOMPARE(given->methods.size(), size_t(1));
    etdump::AnalysisOptions badTicks;
    badTicks.scale.ns_per_tick = 0;
    QVERIFY(!etdump::analyzeEtdump(dump.value(), program, badTicks));
  }

  // Truncated, corrupt, wrong identifier, a program instead of a trace: one
  // message naming the file, never a crash.
  void badInputIsOneClearError() {
    const program::Program program = demoProgram();
    auto dump = etdump::synthesizeEtdump(program, etdump::TraceSpec{"forward", 2, {}, true});
    QVERIFY(dump);
    const auto good = etdump::serializeEtdump(dump.value());
    QVERIFY(etdump::parseEtdump(good, "x.etdp"));

    for (size_t cut = 0; cut < good.size(); cut += std::max<size_t>(1, good.size() / 97)) {
      std::vector<uint8_t> truncated(good.begin(), good.begin() + std::ptrdiff_t(cut));
      auto r = etdump::parseEtdump(truncated, "cut.etdp");
      QVERIFY2(!r, qPrintable(QString("accepted a trace cut at %1 bytes").arg(cut)));
      QVERIFY(r.error().message.rfind("cut.etdp: ", 0) == 0);
    }
    auto wrongId = good;
    wrongId[8] = 'X';
    auto r = etdump::parseEtdump(wrongId, "id.etdp");
    QVERIFY(!r);
    QVERIFY2(QString::fromStdString(r.error().message).contains("no 'ED00' identifier"), r.error().message.c_str());
    // Corrupt offsets: the verifier must refuse (or the reader must still be safe).
    for (size_t at : {size_t(4), size_t(12), good.size() / 2, good.size() - 8}) {
      auto corrupt = good;
      corrupt[at] ^= 0xff;
      corrupt[at + 1] ^= 0x7f;
      auto c = etdump::parseEtdump(corrupt, "corrupt.etdp");
      if (!c) QVERIFY(c.error().message.rfind("corrupt.etdp: ", 0) == 0);
    }
    // A size prefix larger than the file.
    auto longPrefix = good;
    longPrefix[0] = 0xff;
    longPrefix[1] = 0xff;
    auto p = etdump::parseEtdump(longPrefix, "prefix.etdp");
    QVERIFY(!p);
    QVERIFY(QString::fromStdString(p.error().message).contains("truncated"));

    const QString dir = test::tempDir();
    auto missing = etdump::readEtdumpFile((dir + "/missing.etdp").toStdString());
    QVERIFY(!missing);
    QVERIFY(QString::fromStdString(missing.error().message).contains("missing.etdp"));
  }
};

QTEST_GUILESS_MAIN(EtdumpTest)
#include "test_etdump.moc"
