// The one edit model (core/passes/ProgramEdits): file options + edits →
// pipeline options, the same for the CLI and the app.
#include <QtTest>

#include "passes/ProgramEdits.h"
#include "synth/JsonSpec.h"
#include "synth/Scenarios.h"

using namespace ptescope;
using passes::DeviceOptions;
using passes::OptionBase;
using passes::OptionChanges;
using passes::ProgramEdits;

namespace {

// A scenario as exported (device passes applied with its own options).
program::Program exported(const char* scenario) {
  auto s = synth::synthesizeScenario(scenario);
  if (!s) qFatal("scenario %s: %s", scenario, s.error().message.c_str());
  auto p = synth::applyDevicePasses(s.value());
  if (!p) qFatal("scenario %s: %s", scenario, p.error().message.c_str());
  return std::move(p.value());
}

// The demo with its inputs pre-staged on the GPU: "forward" exported with
// skip_h2d_for_method_inputs and alloc_graph_input off, which the file's
// placement shows unambiguously (it has copies and device buffers).
program::Program prestagedDemo() {
  auto demo = synth::synthesizeDemo();
  if (!demo) qFatal("demo: %s", demo.error().message.c_str());
  auto program = synth::applyDevicePasses(demo.value());
  if (!program) qFatal("demo: %s", program.error().message.c_str());
  passes::PipelineOptions options;
  for (const auto& m : program->methods()) options.per_method[m.displayName()] = passes::inferDeviceOptions(m);
  options.per_method["forward"].skip_h2d_for_method_inputs = true;
  options.per_method["forward"].alloc_graph_input = false;
  auto result = passes::runPipeline(program.value(), options);
  if (!result) qFatal("demo: %s", result.error().message.c_str());
  return std::move(result->program);
}

}  // namespace

class TestProgramEdits : public QObject {
  Q_OBJECT
 private slots:
  void changesApplyOnlyWhatTheyName() {
    DeviceOptions base;
    base.alloc_graph_input = false;
    OptionChanges none;
    QVERIFY(none.empty());
    QCOMPARE(none.appliedTo(base), base);
    OptionChanges skip;
    skip.skip_h2d_for_method_inputs = true;
    QVERIFY(!skip.empty());
    const DeviceOptions after = skip.appliedTo(base);
    QVERIFY(after.skip_h2d_for_method_inputs);
    QVERIFY(!after.alloc_graph_input);  // untouched
    OptionChanges off;
    off.skip_h2d_for_method_inputs = false;  // a change can also turn an option off
    QVERIFY(!off.appliedTo(after).skip_h2d_for_method_inputs);
  }

  void noEditsMeansTheFileOptions() {
    const auto program = prestagedDemo();
    auto options = passes::pipelineOptionsFor(program, ProgramEdits{});
    QVERIFY2(options, options ? "" : options.error().message.c_str());
    const auto& forward = options->forMethod("forward");
    QVERIFY(forward.skip_h2d_for_method_inputs);
    QVERIFY(!forward.skip_d2h_for_method_outputs);
    QVERIFY(!forward.alloc_graph_input);
    QVERIFY(forward.alloc_graph_output);
    QCOMPARE(options->forMethod("prefill"), DeviceOptions{});  // the other method: upstream's defaults, as exported
    // Running the pipeline with them changes nothing.
    auto result = passes::runPipeline(program, options.value());
    QVERIFY(result);
    QVERIFY(!result->report.changed());
  }

  void baseFileOrDefaults() {
    const auto program = prestagedDemo();
    const std::string name = "forward";
    OptionChanges changes;  // nothing named
    auto fromFile = passes::editsFromChanges(program, OptionBase::File, changes);
    QVERIFY(fromFile);
    QVERIFY(fromFile->empty());  // equal to the file: no edit recorded
    auto fromDefaults = passes::editsFromChanges(program, OptionBase::UpstreamDefaults, changes);
    QVERIFY(fromDefaults);
    QCOMPARE(fromDefaults->options.size(), size_t(1));  // prefill already has the defaults
    QCOMPARE(fromDefaults->options.at(name), DeviceOptions{});
    changes.skip_h2d_for_method_inputs = false;
    auto off = passes::editsFromChanges(program, OptionBase::File, changes);
    QVERIFY(off);
    QVERIFY(!off->options.at(name).skip_h2d_for_method_inputs);
    QVERIFY(!off->options.at(name).alloc_graph_input);  // still the file's
    QVERIFY(!off->options.count("prefill"));
    auto onlyPrefill = passes::editsFromChanges(program, OptionBase::UpstreamDefaults, OptionChanges{}, "prefill");
    QVERIFY(onlyPrefill && onlyPrefill->empty());  // forward is not named, prefill already has the defaults
    QVERIFY(!passes::editsFromChanges(program, OptionBase::File, changes, "no_such_method"));
  }

  void invalidOptionsAreOneErrorNamingTheMethod() {
    const auto program = exported("h2d_d2h");
    ProgramEdits edits;
    DeviceOptions bad;
    bad.enable_non_cpu_memory_planning = false;
    bad.skip_h2d_for_method_inputs = true;
    const std::string name = program.methods()[0].displayName();
    edits.options[name] = bad;
    auto options = passes::pipelineOptionsFor(program, edits);
    QVERIFY(!options);
    QVERIFY(QString::fromStdString(options.error().message).startsWith(QString("method '%1': ").arg(name.c_str())));
    edits = {};
    edits.options["nope"] = DeviceOptions{};
    QVERIFY(!passes::pipelineOptionsFor(program, edits));
  }

  void targetDevices() {
    const auto program = exported("h2d_d2h");
    const std::string name = program.methods()[0].displayName();
    ProgramEdits edits;
    // Setting the delegate to the device it already has records nothing.
    QVERIFY(passes::setTargetDevice(edits, program, name, 0, program::Device{program::DeviceType::Cuda, 0}));
    QVERIFY(edits.empty());
    QVERIFY(passes::setTargetDevice(edits, program, name, 0, program::Device{program::DeviceType::Cuda, 1}));
    QCOMPARE(edits.target_devices.size(), size_t(1));
    auto bad = passes::setTargetDevice(edits, program, name, 7, std::nullopt);
    QVERIFY(!bad);
    QVERIFY(bad.error().message.find("has no delegate 7 (it has 1)") != std::string::npos);
    QVERIFY(!passes::setTargetDevice(edits, program, "nope", 0, std::nullopt));
    // An index the edits hold that the program lacks is refused by pipelineOptionsFor too.
    edits.target_devices[{name, 3}] = std::nullopt;
    QVERIFY(!passes::pipelineOptionsFor(program, edits));
  }
};

QTEST_APPLESS_MAIN(TestProgramEdits)
#include "test_program_edits.moc"
