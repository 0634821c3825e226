// The device pipeline against the upstream scenarios of
// spec/device-semantics.md §4.1, §2.3 and §4.4. Expected numbers are the
// spec's; programs come from core/synth (pre-pass graphs).
#include <QtTest>

#include <algorithm>
#include <set>

#include "analysis/Summary.h"
#include "passes/Pipeline.h"
#include "passes/ProgramDiff.h"
#include "pte/Reader.h"
#include "pte/Writer.h"
#include "support/TestSupport.h"
#include "synth/ProgramBuilder.h"
#include "synth/Scenarios.h"
#include "synth/Shapes.h"

using namespace ptescope;
using namespace ptescope::program;
using passes::DeviceOptions;

namespace {

struct Outcome {
  Program program;
  passes::PassReport report;
  QString error;
};

Program scenarioProgram(const char* name, DeviceOptions* options = nullptr) {
  auto s = synth::synthesizeScenario(name);
  if (!s) {
    QTest::qFail(qPrintable(QString("scenario %1: %2").arg(name, QString::fromStdString(s.error().message))), __FILE__, __LINE__);
    return {};
  }
  if (options) *options = s->options.forMethod("forward");
  return s->program;
}

Outcome run(const Program& program, const DeviceOptions& options) {
  passes::PipelineOptions po;
  po.defaults = options;
  auto r = passes::runPipeline(program, po);
  if (!r) return Outcome{{}, {}, QString::fromStdString(r.error().message)};
  return Outcome{r->program, r->report, {}};
}

Outcome runScenario(const char* name) {
  DeviceOptions options;
  Program p = scenarioProgram(name, &options);
  return run(p, options);
}

struct Counts {
  size_t h2d = 0, d2h = 0, delegates = 0;
};
Counts countsOf(const Method& m) {
  auto s = analysis::summarizeMethod(m);
  return Counts{s.h2d_copies, s.d2h_copies, s.delegate_calls};
}

const Tensor& tensor(const Method& m, int32_t v) { return *(*m.values)[size_t(v)].tensor(); }

// Copy instructions as (op, self, out) triples.
struct Copy {
  bool h2d;
  int32_t self, out;
  size_t position;
};
std::vector<Copy> copiesOf(const Method& m) {
  std::vector<Copy> out;
  size_t k = 0;
  for (const auto& ins : items((*m.chains)[0].instructions)) {
    if (const auto* call = std::get_if<KernelCall>(&ins.data)) {
      const auto& op = (*m.operators)[size_t(call->op_index)];
      if (analysis::isH2dCopy(op) || analysis::isD2hCopy(op))
        out.push_back(Copy{analysis::isH2dCopy(op), (*call->args)[0], (*call->args)[1], k});
    }
    ++k;
  }
  return out;
}

bool isCopyOutput(const std::vector<Copy>& copies, int32_t v, bool h2d) {
  for (const auto& c : copies)
    if (c.out == v && c.h2d == h2d) return true;
  return false;
}

// Every planned tensor sits in a buffer of its own device (the invariant the
// CUDA export test checks), and a CPU tensor's buffer is absent from the map.
void checkBufferDevices(const Method& m) {
  for (const auto& v : items(m.values)) {
    const Tensor* t = v.tensor();
    if (!t || !t->isPlanned()) continue;
    const int32_t id = int32_t(t->allocation_info->memory_id);
    int matches = 0;
    for (const auto& e : items(m.non_const_buffer_device)) matches += e.buffer_idx == id ? 1 : 0;
    if (t->device().isCpu()) {
      QCOMPARE(matches, 0);
    } else {
      QCOMPARE(matches, 1);
      QCOMPARE(m.bufferDevice(id), t->device());
    }
  }
}

}  // namespace

class DevicePassesTest : public QObject {
  Q_OBJECT
 private slots:
  void canonicalIndicesAreTheSameAcrossEdits() {
    // Upstream numbering: a0 b1 a'2 b'3 y'4 y5. Stripped: a0 b1 y'2, and y
    // (the D2H output) maps to its source.
    const auto loaded = test::upstreamOrderedAddProgram();
    const auto& method = loaded.methods()[0];
    auto canonical = passes::canonicalValueIndices(method);
    QVERIFY2(canonical.ok(), canonical ? "" : canonical.error().message.c_str());
    QCOMPARE(canonical.value(), (std::vector<int32_t>{0, 1, 0, 1, 2, 2}));
    // stripDeviceCopies gives the same numbering.
    auto copy = method;
    auto stripped = passes::stripDeviceCopies(copy);
    QVERIFY(stripped.ok());
    QCOMPARE(stripped->canonical, canonical.value());
    // After an edit the D2H reads another raw index, the same canonical one.
    passes::PipelineOptions skips;
    skips.defaults = passes::inferDeviceOptions(method);
    skips.defaults.skip_h2d_for_method_inputs = true;
    auto edited = passes::runPipeline(loaded, skips);
    QVERIFY2(edited.ok(), edited ? "" : edited.error().message.c_str());
    const auto& after = edited->program.methods()[0];
    auto canonicalAfter = passes::canonicalValueIndices(after);
    QVERIFY(canonicalAfter.ok());
    auto d2hSource = [](const program::Method& m) {
      for (const auto& chain : program::items(m.chains))
        for (const auto& ins : program::items(chain.instructions))
          if (const auto* k = std::get_if<program::KernelCall>(&ins.data);
              k && program::items(m.operators)[size_t(k->op_index)].name == "et_copy::_d2h_copy")
            return program::items(k->args)[0];
      return int32_t(-1);
    };
    QCOMPARE(d2hSource(method), int32_t(4));
    QVERIFY(d2hSource(after) != d2hSource(method));  // the raw index moved
    QCOMPARE(canonicalAfter.value()[size_t(d2hSource(after))], canonical.value()[size_t(d2hSource(method))]);
  }

  // §2.3 canonical example and tests 1, 2, 12, 17.
  void canonicalAddOnCuda0() {
    auto out = runScenario("h2d_d2h");
    QVERIFY2(out.error.isEmpty(), qPrintable(out.error));
    const Method& m = out.program.methods()[0];
    auto c = countsOf(m);
    QCOMPARE(c.h2d, size_t(2));
    QCOMPARE(c.d2h, size_t(1));
    QCOMPARE(c.delegates, size_t(1));
    auto s = analysis::summarizeMethod(m);
    QCOMPARE(s.tensors_by_device["cuda:0"], size_t(3));
    QCOMPARE(s.tensors_by_device["cpu:0"], size_t(3));
    QCOMPARE(items(m.non_const_buffer_sizes), (std::vector<int64_t>{0, 32, 48}));
    QCOMPARE(items(m.non_const_buffer_device).size(), size_t(1));
    QCOMPARE((*m.non_const_buffer_device)[0].buffer_idx, 2);
    QCOMPARE((*m.non_const_buffer_device)[0].device_type, DeviceType::Cuda);
    QCOMPARE((*m.non_const_buffer_device)[0].device_index, int8_t(0));
    // Order: both H2D before the delegate, D2H after it; args [self, out, out].
    const auto& instrs = *(*m.chains)[0].instructions;
    QCOMPARE(instrs.size(), size_t(4));
    QCOMPARE(instrs[2].kind(), InstructionKind::DelegateCall);
    auto copies = copiesOf(m);
    QVERIFY(copies[0].h2d && copies[1].h2d && !copies[2].h2d);
    for (const auto& copy : copies) {
      const auto& args = *std::get<KernelCall>(instrs[copy.position].data).args;
      QCOMPARE(args, (std::vector<int32_t>{copy.self, copy.out, copy.out}));
    }
    // Operator entries are et_copy::..., overload "out".
    for (const auto& op : *m.operators)
      if (analysis::isH2dCopy(op) || analysis::isD2hCopy(op)) QCOMPARE(*op.overload, std::string("out"));
    // H2D outputs and the delegate output are CUDA:0, D2H output CPU, and
    // only the device tensors carry ExtraTensorInfo.
    for (const auto& copy : copies) {
      QCOMPARE(tensor(m, copy.out).device(), (copy.h2d ? Device{DeviceType::Cuda, 0} : Device{}));
      QCOMPARE(tensor(m, copy.out).extra_tensor_info.has_value(), copy.h2d);
    }
    const auto& delegateArgs = *std::get<DelegateCall>(instrs[2].data).args;
    for (int32_t a : delegateArgs) QCOMPARE(tensor(m, a).device(), (Device{DeviceType::Cuda, 0}));
    // Method I/O stay on the host.
    for (int32_t v : *m.inputs) QVERIFY(tensor(m, v).device().isCpu());
    for (int32_t v : *m.outputs) QVERIFY(tensor(m, v).device().isCpu());
    checkBufferDevices(m);
  }

  void cpuOnlyDelegateGetsNothing() {  // tests 3, 11
    auto out = runScenario("cpu_only_delegate");
    QVERIFY(out.error.isEmpty());
    const Method& m = out.program.methods()[0];
    auto c = countsOf(m);
    QCOMPARE(c.h2d + c.d2h, size_t(0));
    for (const auto& v : *m.values)
      if (const Tensor* t = v.tensor()) QVERIFY(t->device().isCpu() && !t->extra_tensor_info);
    QVERIFY(!m.non_const_buffer_device.has_value());
  }

  void legacyModeTagsWithoutCopies() {  // test 4 and §4.4 flag-off planning
    DeviceOptions options;
    Program p = scenarioProgram("h2d_d2h");
    options.enable_non_cpu_memory_planning = false;
    auto out = run(p, options);
    QVERIFY(out.error.isEmpty());
    const Method& m = out.program.methods()[0];
    auto c = countsOf(m);
    QCOMPARE(c.h2d + c.d2h, size_t(0));
    for (const auto& v : *m.values) QCOMPARE(v.tensor()->device(), (Device{DeviceType::Cuda, 0}));
    QCOMPARE(items(m.non_const_buffer_sizes).size(), size_t(2));
    QVERIFY(!m.non_const_buffer_device.has_value());
  }

  void redundantSameDeviceCopiesElided() {  // test 5
    auto out = runScenario("redundant_same_device");
    const Method& m = out.program.methods()[0];
    auto c = countsOf(m);
    QCOMPARE(c.delegates, size_t(2));
    QCOMPARE(c.h2d, size_t(3));
    QCOMPARE(c.d2h, size_t(1));
    QCOMPARE(out.report.methods[0].elided_h2d, size_t(1));
    checkBufferDevices(m);
  }

  void crossDeviceCopiesPreserved() {  // test 6, §4.4 cuda:0 + cuda:1
    auto out = runScenario("cross_device");
    const Method& m = out.program.methods()[0];
    auto c = countsOf(m);
    QCOMPARE(c.delegates, size_t(2));
    QCOMPARE(c.h2d, size_t(4));
    QCOMPARE(c.d2h, size_t(2));
    QCOMPARE(items(m.non_const_buffer_sizes).size(), size_t(4));
    const auto& devices = *m.non_const_buffer_device;
    QCOMPARE(devices.size(), size_t(2));
    QCOMPARE(devices[0].device_index, int8_t(0));
    QCOMPARE(devices[1].device_index, int8_t(1));
    QCOMPARE(devices[0].buffer_idx, 2);
    QCOMPARE(devices[1].buffer_idx, 3);
    checkBufferDevices(m);
  }

  void outputFeedingSameDeviceDelegates() {  // test 7
    auto out = runScenario("multiple_same_device_consumers");
    const Method& m = out.program.methods()[0];
    auto c = countsOf(m);
    QCOMPARE(c.delegates, size_t(4));
    QCOMPARE(c.h2d, size_t(4));
    QCOMPARE(c.d2h, size_t(1));
    auto copies = copiesOf(m);
    for (const auto& copy : copies)
      if (copy.h2d) QVERIFY2(!isCopyOutput(copies, copy.self, false), "an h2d reads a d2h output");
  }

  void outputFeedingGpuAndCpuConsumers() {  // test 8
    auto out = runScenario("gpu_and_cpu_consumers");
    const Method& m = out.program.methods()[0];
    QCOMPARE(countsOf(m).delegates, size_t(2));
    auto copies = copiesOf(m);
    for (const auto& copy : copies)
      if (copy.h2d) QVERIFY(!isCopyOutput(copies, copy.self, false));
    // Some delegate reads another delegate's output directly ...
    std::set<int32_t> delegateOutputs;
    bool direct = false;
    const auto& ops = *m.operators;
    for (const auto& ins : *(*m.chains)[0].instructions)
      if (const auto* d = std::get_if<DelegateCall>(&ins.data)) {
        for (int32_t a : *d->args) direct = direct || delegateOutputs.count(a) > 0;
        delegateOutputs.insert(d->args->back());
      }
    QVERIFY(direct);
    // ... and the D2H that feeds relu is kept.
    bool reluReadsD2h = false;
    for (const auto& ins : *(*m.chains)[0].instructions)
      if (const auto* k = std::get_if<KernelCall>(&ins.data); k && ops[size_t(k->op_index)].name == std::string("aten::relu"))
        reluReadsD2h = isCopyOutput(copies, (*k->args)[0], false);
    QVERIFY(reluReadsD2h);
  }

  void sameAndCrossDevice() {  // test 9
    auto out = runScenario("same_and_cross_device");
    const Method& m = out.program.methods()[0];
    QCOMPARE(countsOf(m).delegates, size_t(3));
    auto copies = copiesOf(m);
    int h2dOfD2h = 0;
    for (const auto& copy : copies)
      if (copy.h2d && isCopyOutput(copies, copy.self, false)) {
        ++h2dOfD2h;
        QCOMPARE(tensor(m, copy.out).device(), (Device{DeviceType::Cuda, 1}));
      }
    QCOMPARE(h2dOfD2h, 1);
  }

  void cuda1() {  // test 10
    auto out = runScenario("cuda_1");
    const Method& m = out.program.methods()[0];
    const auto& instrs = *(*m.chains)[0].instructions;
    for (const auto& ins : instrs)
      if (const auto* d = std::get_if<DelegateCall>(&ins.data))
        for (int32_t a : *d->args) QCOMPARE(tensor(m, a).device(), (Device{DeviceType::Cuda, 1}));
    QCOMPARE((*m.non_const_buffer_device)[0].device_index, int8_t(1));
  }

  void skipH2d() {  // test 19
    auto out = runScenario("skip_h2d");
    QVERIFY2(out.error.isEmpty(), qPrintable(out.error));
    const Method& m = out.program.methods()[0];
    auto c = countsOf(m);
    QCOMPARE(c.h2d, size_t(0));
    QCOMPARE(c.d2h, size_t(1));
    for (int32_t v : *m.inputs) {
      QCOMPARE(tensor(m, v).device(), (Device{DeviceType::Cuda, 0}));
      QVERIFY(tensor(m, v).isPlanned());  // default planning puts them in the device arena
    }
    checkBufferDevices(m);
  }

  void skipD2h() {  // test 20
    auto out = runScenario("skip_d2h");
    const Method& m = out.program.methods()[0];
    auto c = countsOf(m);
    QCOMPARE(c.h2d, size_t(2));
    QCOMPARE(c.d2h, size_t(0));
    for (int32_t v : *m.outputs) QCOMPARE(tensor(m, v).device(), (Device{DeviceType::Cuda, 0}));
    checkBufferDevices(m);
  }

  void skipBoth() {  // tests 21, 24
    auto out = runScenario("skip_both");
    const Method& m = out.program.methods()[0];
    auto c = countsOf(m);
    QCOMPARE(c.h2d + c.d2h, size_t(0));
    for (int32_t v : *m.inputs) QVERIFY(tensor(m, v).isPlanned());
    // CUDA only: one buffer, CUDA at mem_id 1 (§2.5 step 7).
    QCOMPARE(items(m.non_const_buffer_sizes).size(), size_t(2));
    QCOMPARE((*m.non_const_buffer_device)[0].buffer_idx, 1);
    checkBufferDevices(m);

    auto unplanned = runScenario("skip_both_unplanned_io");
    const Method& u = unplanned.program.methods()[0];
    for (int32_t v : *u.inputs) QVERIFY(!tensor(u, v).isPlanned());
    for (int32_t v : *u.outputs) QVERIFY(!tensor(u, v).isPlanned());
  }

  void skipH2dPartial() {  // test 22
    auto out = runScenario("skip_h2d_partial");
    QVERIFY2(out.error.isEmpty(), qPrintable(out.error));
    const Method& m = out.program.methods()[0];
    auto c = countsOf(m);
    QCOMPARE(c.h2d, size_t(1));
    QCOMPARE(c.d2h, size_t(1));
    int cudaInputs = 0;
    for (int32_t v : *m.inputs) cudaInputs += tensor(m, v).device().isCpu() ? 0 : 1;
    QCOMPARE(cudaInputs, 1);
    checkBufferDevices(m);
  }

  void errorCases() {
    DeviceOptions options;
    Program p = scenarioProgram("h2d_d2h");
    // Skips without device planning (checked even without a device delegate).
    options.enable_non_cpu_memory_planning = false;
    options.skip_h2d_for_method_inputs = true;
    auto noPlanning = run(scenarioProgram("cpu_only_delegate"), options);
    QVERIFY(noPlanning.error.contains("only meaningful when enable_non_cpu_memory_planning=True"));
    // Unknown device type, bad index.
    for (const auto& [spec, expected] : std::vector<std::pair<std::string, QString>>{
             {"tpu:0", "Unknown device type 'tpu'. Valid types: CPU, CUDA"},
             {"gpu", "Unknown device type 'gpu'"},
             {"cuda:x", "is not a device index"},
             {"cuda:", "is not a device index"},
             {"cuda:0:1", "is not a device index"}}) {
      Program bad = p;
      passes::setDelegateTargetDevice((*bad.methods()[0].delegates)[0], std::nullopt);
      (*bad.methods()[0].delegates)[0].compile_specs->push_back(
          CompileSpec{"target_device", std::vector<uint8_t>(spec.begin(), spec.end())});
      auto r = run(bad, DeviceOptions{});
      QVERIFY2(r.error.contains(expected), qPrintable(QString::fromStdString(spec) + ": " + r.error));
      QVERIFY(r.error.contains("method 'forward'"));
    }
    // Multi-user placeholder with skip_h2d: a feeds two delegates.
    DeviceOptions skip;
    skip.skip_h2d_for_method_inputs = true;
    auto multi = run(scenarioProgram("multiple_same_device_consumers"), skip);
    QVERIFY2(multi.error.contains("to have exactly one user, but it has 2 users"), qPrintable(multi.error));
  }

  void deviceParsingRules() {  // tests 13-15 and the int() rules of §1.4
    QCOMPARE(parseDeviceSpec("cuda:0").value(), (Device{DeviceType::Cuda, 0}));
    QCOMPARE(parseDeviceSpec("cuda:1").value(), (Device{DeviceType::Cuda, 1}));
    QCOMPARE(parseDeviceSpec("cpu").value(), (Device{DeviceType::Cpu, 0}));
    QCOMPARE(parseDeviceSpec("CUDA:0").value(), (Device{DeviceType::Cuda, 0}));
    QCOMPARE(parseDeviceSpec("Cuda:2").value(), (Device{DeviceType::Cuda, 2}));
    QCOMPARE(parseDeviceSpec(" cuda: 1 ").value(), (Device{DeviceType::Cuda, 1}));
    QCOMPARE(parseDeviceSpec("cuda:+1").value(), (Device{DeviceType::Cuda, 1}));
    QCOMPARE(parseDeviceSpec("cuda:1_0").value(), (Device{DeviceType::Cuda, 10}));
    QCOMPARE(parseDeviceSpec("cuda:-1").value(), (Device{DeviceType::Cuda, -1}));
    QVERIFY(!parseDeviceSpec("tpu:0").ok());
    QVERIFY(!parseDeviceSpec("cuda:1__0").ok());
    QVERIFY(!parseDeviceSpec("cuda:300").ok());
    // Test 16: the first target_device spec wins; none means no device.
    BackendDelegate d;
    d.compile_specs = std::vector<CompileSpec>{{"max_value", std::vector<uint8_t>{4}}};
    QVERIFY(!passes::delegateTargetDevice(d).value().has_value());
    d.compile_specs->push_back({"target_device", std::vector<uint8_t>{'c', 'u', 'd', 'a', ':', '0'}});
    d.compile_specs->push_back({"target_device", std::vector<uint8_t>{'c', 'p', 'u'}});
    QCOMPARE(*passes::delegateTargetDevice(d).value(), (Device{DeviceType::Cuda, 0}));
  }

  void idempotentOnItsOwnOutput_data() {
    QTest::addColumn<QString>("scenario");
    for (const auto& s : synth::scenarios()) QTest::newRow(s.name.c_str()) << QString::fromStdString(s.name);
  }
  void idempotentOnItsOwnOutput() {
    QFETCH(QString, scenario);
    DeviceOptions options;
    Program p = scenarioProgram(qPrintable(scenario), &options);
    auto first = run(p, options);
    if (!first.error.isEmpty()) QSKIP("scenario is an error case");
    // Write and read back, then run again with the same options.
    auto bytes = pte::serializeProgram(first.program);
    QVERIFY(bytes.ok());
    auto reread = pte::readProgramBytes(Bytes::fromVector(bytes.value()), "first.pte");
    QVERIFY2(reread.ok(), reread.ok() ? "" : reread.error().message.c_str());
    auto second = run(reread->program, options);
    QVERIFY(second.error.isEmpty());
    QVERIFY2(!second.report.changed(), "strip + propagate with the same options changed the program");
    const Method& a = first.program.methods()[0];
    const Method& b = second.program.methods()[0];
    QCOMPARE(items(b.non_const_buffer_sizes), items(a.non_const_buffer_sizes));
    auto diff = passes::diffPrograms(first.program, second.program);
    QVERIFY(diff.ok());
    QVERIFY(diff->same());
  }

  // Every program shape the synth command builds (several layers, so that
  // planning reuses places) is a fixed point of the passes once written:
  // running them again with the options the file shows adds, removes and
  // moves nothing. A moe program was not: its plan put an expert's output
  // where the previous expert's had been (dead on the device once copied to
  // the host); with the copies stripped the previous output lived on, so the
  // later one read as a view of it, was taken for a delegate input, and
  // every edit of a moe program was charged four copies it did not cause.
  void everyShapeIsAFixedPoint_data() {
    QTest::addColumn<QString>("shape");
    for (const auto& s : synth::programShapes()) QTest::newRow(s.name.c_str()) << QString::fromStdString(s.name);
  }
  void everyShapeIsAFixedPoint() {
    QFETCH(QString, shape);
    auto built = synth::shapeProgram(shape.toStdString(), 3);
    QVERIFY2(built.ok(), built.ok() ? "" : built.error().message.c_str());
    auto first = run(built.value(), DeviceOptions{});
    QVERIFY2(first.error.isEmpty(), qPrintable(first.error));
    auto bytes = pte::serializeProgram(first.program);
    QVERIFY(bytes.ok());
    auto reread = pte::readProgramBytes(Bytes::fromVector(bytes.value()), "shape.pte");
    QVERIFY(reread.ok());
    passes::PipelineOptions po;
    for (const auto& m : reread->program.methods()) po.per_method[m.displayName()] = passes::inferDeviceOptions(m);
    auto again = passes::runPipeline(reread->program, po);
    QVERIFY2(again.ok(), again.ok() ? "" : again.error().message.c_str());
    for (const auto& m : again->report.methods) {
      QString what;
      for (const auto& c : m.copies_added) what += " +" + QString::fromStdString(c.key());
      for (const auto& c : m.copies_removed) what += " -" + QString::fromStdString(c.key());
      for (const auto& r : m.retagged) what += QString(" ~%%1").arg(r.value);
      QVERIFY2(what.isEmpty(), qPrintable(shape + ", method " + QString::fromStdString(m.name) + ":" + what));
      QVERIFY(m.plan_kept);
    }
  }

  void everyWrittenProgramVerifies_data() { idempotentOnItsOwnOutput_data(); }
  void everyWrittenProgramVerifies() {
    QFETCH(QString, scenario);
    DeviceOptions options;
    Program p = scenarioProgram(qPrintable(scenario), &options);
    auto out = run(p, options);
    if (!out.error.isEmpty()) QSKIP("scenario is an error case");
    const QString path = test::tempDir() + "/" + scenario + ".pte";
    auto written = pte::writeProgramFile(out.program, path.toStdString());
    QVERIFY2(written.ok(), written.ok() ? "" : written.error().message.c_str());
    QVERIFY(pte::readProgramFile(path.toStdString()).ok());
  }

  void samplesSurviveThePipeline() {
    PTESCOPE_REQUIRE_SAMPLES();
    for (const QString& file : test::samplePrograms()) {
      auto loaded = test::loadOrFail(file);
      passes::PipelineOptions po;
      for (const auto& m : loaded.program.methods()) po.per_method[m.displayName()] = passes::inferDeviceOptions(m);
      auto r = passes::runPipeline(loaded.program, po);
      QVERIFY2(r.ok(), qPrintable(file + ": " + (r.ok() ? QString() : QString::fromStdString(r.error().message))));
      for (const auto& m : r->report.methods) {
        QVERIFY2(m.copies_added.empty() && m.copies_removed.empty() && m.retagged.empty(), qPrintable(file));
      }
      const QString out = test::tempDir() + "/pipeline-" + QFileInfo(file).fileName();
      auto written = pte::writeProgramFile(r->program, out.toStdString());
      QVERIFY2(written.ok(), qPrintable(file + ": " + (written.ok() ? QString() : QString::fromStdString(written.error().message))));
    }
  }

  void targetDeviceEdits() {
    Program p = scenarioProgram("h2d_d2h");
    passes::PipelineOptions po;
    po.target_devices[{"forward", 0}] = Device{DeviceType::Cuda, 1};
    auto moved = passes::runPipeline(p, po);
    QVERIFY(moved.ok());
    QCOMPARE((*moved->program.methods()[0].non_const_buffer_device)[0].device_index, int8_t(1));
    po.target_devices[{"forward", 0}] = std::nullopt;
    auto cpu = passes::runPipeline(p, po);
    QVERIFY(cpu.ok());
    QCOMPARE(countsOf(cpu->program.methods()[0]).h2d, size_t(0));
    QVERIFY(!(*cpu->program.methods()[0].delegates)[0].findCompileSpec("target_device"));
    po.target_devices[{"forward", 3}] = std::nullopt;
    auto bad = passes::runPipeline(p, po);
    QVERIFY(!bad.ok());
    QVERIFY(QString::fromStdString(bad.error().message).contains("no delegate 3"));
  }

  // A CPU kernel reading a device delegate's output through an optional
  // tensor list (aten::index's Optional[Tensor][] indices) reads the host
  // copy, as upstream's replace_all_uses_with rewires a use inside any list.
  void anOptionalTensorListReaderReadsTheHostCopy() {
    synth::ProgramBuilder builder;
    auto& mb = builder.addMethod("forward");
    const auto x = mb.addTensor(ScalarType::Float, {4});
    const auto idx = mb.addTensor(ScalarType::Long, {2});
    const auto y = mb.addTensor(ScalarType::Float, {2});
    mb.addDelegateCall("CudaBackend", synth::aotiCompileSpecs("forward"), {'a'}, {x}, {idx});
    const auto indices = mb.addTensorList({idx});
    mb.addKernelCall("aten::index.Tensor_out", {x, indices}, {y});
    mb.setInputs({x});
    mb.setOutputs({y});
    auto built = builder.build();
    QVERIFY2(built.ok(), built.ok() ? "" : built.error().message.c_str());
    Program p = std::move(built.value());
    auto& values = *p.methods()[0].values;
    values[size_t(indices)].data = OptionalTensorListValue{std::vector<int32_t>{idx}};

    const auto out = run(p, DeviceOptions{});
    QVERIFY2(out.error.isEmpty(), qPrintable(out.error));
    const Method& m = out.program.methods()[0];
    const auto copies = copiesOf(m);
    const auto d2h = std::find_if(copies.begin(), copies.end(), [&](const Copy& c) { return !c.h2d && c.self == idx; });
    QVERIFY2(d2h != copies.end(), "no D2H of the delegate's output");
    const auto* list = std::get_if<OptionalTensorListValue>(&(*m.values)[size_t(indices)].data);
    QVERIFY(list != nullptr);
    QCOMPARE(items(list->items), (std::vector<int32_t>{d2h->out}));
    QVERIFY(tensor(m, d2h->out).device().isCpu());
  }

  // Issue 13, found by fuzz_pipeline: a TensorList that no instruction reads
  // names a device delegate's output y. The D2H of y is made (the next
  // delegate's H2D reads it), the list redirected to the host copy, then the
  // round trip is elided and the D2H goes, and the list was left naming the
  // removed copy ("refers to value -1" once written). The list is not a user:
  // it names y again, and the copies are those of the same graph without it.
  void anUnreadListNamesTheDeviceValueWhenItsCopyIsElided() {
    auto build = [](bool withList) {
      synth::ProgramBuilder builder;
      auto& m = builder.addMethod("forward");
      const auto x = m.addTensor(ScalarType::Float, {2, 2});
      const auto y = m.addTensor(ScalarType::Float, {2, 2});
      const auto z = m.addTensor(ScalarType::Float, {2, 2});
      m.addDelegateCall("CudaBackend", synth::aotiCompileSpecs("forward"), {'a'}, {x}, {y});
      m.addDelegateCall("CudaBackend", synth::aotiCompileSpecs("forward"), {'b'}, {y}, {z});
      if (withList) m.addTensorList({y});
      m.setInputs({x});
      m.setOutputs({z});
      auto built = builder.build();
      if (!built) QTest::qFail(built.error().message.c_str(), __FILE__, __LINE__);
      return built ? std::move(built.value()) : Program{};
    };
    const auto plain = run(build(false), DeviceOptions{});
    const auto listed = run(build(true), DeviceOptions{});
    QVERIFY2(plain.error.isEmpty() && listed.error.isEmpty(), qPrintable(plain.error + listed.error));
    const Method& m = listed.program.methods()[0];
    QCOMPARE(countsOf(m).h2d, countsOf(plain.program.methods()[0]).h2d);
    QCOMPARE(countsOf(m).d2h, countsOf(plain.program.methods()[0]).d2h);
    QCOMPARE(countsOf(m).d2h, size_t(1));  // z's, for the method output
    // The list is value 3 (after x, y, z); y keeps index 1, on the device.
    const auto* list = std::get_if<TensorListValue>(&(*m.values)[3].data);
    QVERIFY(list != nullptr);
    QCOMPARE(items(list->items), (std::vector<int32_t>{1}));
    QCOMPARE(tensor(m, 1).device(), (Device{DeviceType::Cuda, 0}));
    auto bytes = pte::serializeProgram(listed.program);
    QVERIFY2(bytes.ok(), bytes.ok() ? "" : bytes.error().message.c_str());
    auto back = pte::readProgramBytes(Bytes::fromVector(bytes.value()), "listed.pte");
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
  }

  // Elided static views (spec §1.1: ReplaceViewCopyWithViewPass runs after the
  // device pass, and the emitter writes a static view as a second tensor over
  // its base's storage, with no instruction). Upstream's view_copy node is a
  // user of the value it views, so a CPU reader of a view of a device
  // delegate's output needs the D2H, and the view then sits over the host copy.
  void aCpuReaderOfAViewOfADelegateOutputReadsTheHostCopy() {
    Program p = viewOfDelegateOutput(/*readDirectly=*/false);
    const auto out = run(p, DeviceOptions{});
    QVERIFY2(out.error.isEmpty(), qPrintable(out.error));
    checkViewSitsOverTheHostCopy(out.program);
  }

  // The same after a round trip through the pipeline's own output: a program
  // whose view already sits over a D2H's host copy (as upstream writes it) is
  // stripped and propagated again. Stripping the copy must not leave the view
  // over storage nothing defines any more, and re-propagation must make the
  // same copy again.
  void aViewOfAHostCopySurvivesStrippingTheCopy() {
    // Upstream's form, made by hand: y -> D2H -> h, the CPU kernel reads a
    // view of h (a tensor at h's place that no instruction writes).
    const auto first = run(viewOfDelegateOutput(/*readDirectly=*/true), DeviceOptions{});
    QVERIFY2(first.error.isEmpty(), qPrintable(first.error));
    Program p = first.program;
    Method& m = p.methods()[0];
    const auto copies = copiesOf(m);
    QCOMPARE(copies.size(), size_t(2));  // x's H2D, y's D2H
    const auto d2h = std::find_if(copies.begin(), copies.end(), [](const Copy& c) { return !c.h2d; });
    QVERIFY(d2h != copies.end());
    Tensor view = tensor(m, d2h->out);
    view.sizes = std::vector<int32_t>{2, 2};
    view.dim_order = std::vector<uint8_t>{0, 1};
    m.values->push_back(Value{view});
    const auto v = int32_t(m.values->size() - 1);
    for (auto& ins : *(*m.chains)[0].instructions)
      if (auto* call = std::get_if<KernelCall>(&ins.data); call && isAbs(m, *call)) (*call->args)[0] = v;
    const auto again = run(p, DeviceOptions{});
    QVERIFY2(again.error.isEmpty(), qPrintable(again.error));
    QVERIFY2(again.report.methods[0].copies_added.empty() && again.report.methods[0].copies_removed.empty(),
             "re-propagation changed the copies");
    checkViewSitsOverTheHostCopy(again.program);
  }

  // Upstream counts the view_copy node among a placeholder's users, so with
  // skip_h2d a method input read by a device delegate and viewed elsewhere has
  // two users: the in-place tag would put the view's CPU reader on the device.
  void skipH2dCountsAViewOfThePlaceholderAsAUser() {
    synth::ProgramBuilder builder;
    auto& mb = builder.addMethod("forward");
    const auto x = mb.addTensor(ScalarType::Float, {4});
    const auto y = mb.addTensor(ScalarType::Float, {4});
    const auto v = mb.addTensor(ScalarType::Float, {2, 2});
    const auto z = mb.addTensor(ScalarType::Float, {2, 2});
    mb.addDelegateCall("CudaBackend", synth::aotiCompileSpecs("forward"), {'a'}, {x}, {y});
    mb.addKernelCall("aten::abs.out", {v}, {z});
    mb.setInputs({x});
    mb.setOutputs({y, z});
    Program p = built(builder);
    makeView(p, v, x);
    DeviceOptions skip;
    skip.skip_h2d_for_method_inputs = true;
    const auto out = run(p, skip);
    QVERIFY2(out.error.contains("to have exactly one user, but it has 2 users"), qPrintable(out.error));
    // Without skip_h2d the placeholder gets an H2D and the view stays on the CPU.
    QVERIFY2(run(p, DeviceOptions{}).error.isEmpty(), "the same program without skip_h2d fails");
  }

  // Legacy mode (no device planning): a view spec takes its device from its
  // base (spec §1.8), so a view of a delegate output is tagged with it.
  void legacyModeTagsAViewWithItsBasesDevice() {
    Program p = viewOfDelegateOutput(/*readDirectly=*/false);
    DeviceOptions legacy;
    legacy.enable_non_cpu_memory_planning = false;
    const auto out = run(p, legacy);
    QVERIFY2(out.error.isEmpty(), qPrintable(out.error));
    const Method& m = out.program.methods()[0];
    QCOMPARE(countsOf(m).d2h, size_t(0));
    const Device cuda{DeviceType::Cuda, 0};
    QCOMPARE(tensor(m, 1).device(), cuda);  // y
    QCOMPARE(tensor(m, 2).device(), cuda);  // its view
    QCOMPARE(tensor(m, 3).device(), (Device{}));  // the CPU kernel's output
  }

 private:
  static Program built(synth::ProgramBuilder& builder) {
    auto program = builder.build();
    if (!program) QTest::qFail(program.error().message.c_str(), __FILE__, __LINE__);
    return program ? std::move(program.value()) : Program{};
  }

  // `view` becomes an elided static view of `base`: it takes the base's place
  // (build() planned it on its own).
  static void makeView(Program& p, int32_t view, int32_t base) {
    auto& values = *p.methods()[0].values;
    values[size_t(view)].tensor()->allocation_info = values[size_t(base)].tensor()->allocation_info;
  }

  static bool isAbs(const Method& m, const KernelCall& call) {
    return call.op_index >= 0 && size_t(call.op_index) < m.operators->size() &&
           (*m.operators)[size_t(call.op_index)].name == std::string("aten::abs");
  }

  // x -> cuda delegate -> y (float[4]); a CPU kernel reads y directly or a
  // view v of it (float[2, 2]); values x=0, y=1, v=2, z=3.
  static Program viewOfDelegateOutput(bool readDirectly) {
    synth::ProgramBuilder builder;
    auto& mb = builder.addMethod("forward");
    const auto x = mb.addTensor(ScalarType::Float, {4});
    const auto y = mb.addTensor(ScalarType::Float, {4});
    const auto v = mb.addTensor(ScalarType::Float, {2, 2});
    const auto z = mb.addTensor(ScalarType::Float, {2, 2});
    mb.addDelegateCall("CudaBackend", synth::aotiCompileSpecs("forward"), {'a'}, {x}, {y});
    mb.addKernelCall("aten::abs.out", {readDirectly ? y : v}, {z});
    mb.setInputs({x});
    mb.setOutputs({z});
    Program p = built(builder);
    if (!readDirectly) makeView(p, v, y);
    return p;
  }

  // The abs kernel's input is a tensor no instruction writes, at the place of
  // the D2H's output, in a CPU buffer; the written program reads back.
  static void checkViewSitsOverTheHostCopy(const Program& p) {
    const Method& m = p.methods()[0];
    const auto copies = copiesOf(m);
    const auto d2h = std::find_if(copies.begin(), copies.end(), [](const Copy& c) { return !c.h2d; });
    QVERIFY2(d2h != copies.end(), "no D2H of the delegate output the view's reader needs");
    QCOMPARE(countsOf(m).d2h, size_t(1));
    int32_t read = -1;
    for (const auto& ins : items((*m.chains)[0].instructions))
      if (const auto* call = std::get_if<KernelCall>(&ins.data); call && isAbs(m, *call)) read = (*call->args)[0];
    QVERIFY(read >= 0 && read != d2h->out);
    const Tensor& view = tensor(m, read);
    const Tensor& host = tensor(m, d2h->out);
    QVERIFY(view.isPlanned() && host.isPlanned());
    QCOMPARE(view.allocation_info->memory_id, host.allocation_info->memory_id);
    QCOMPARE(view.allocation_info->offset(), host.allocation_info->offset());
    QVERIFY(view.device().isCpu());
    QVERIFY(m.bufferDevice(int32_t(view.allocation_info->memory_id)).isCpu());
    checkBufferDevices(m);
    auto bytes = pte::serializeProgram(p);
    QVERIFY2(bytes.ok(), bytes.ok() ? "" : bytes.error().message.c_str());
    auto back = pte::readProgramBytes(Bytes::fromVector(bytes.value()), "view.pte");
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
  }
};

QTEST_GUILESS_MAIN(DevicePassesTest)
#include "test_device_passes.moc"
