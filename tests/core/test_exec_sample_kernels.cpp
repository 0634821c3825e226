// `profile` of every method of every shared sample executes every CPU
// kernel: what stays "not executed" is a delegate call (a backend ptescope
// cannot run) or, in keyword-spotting-cortex-m.pte only, an operator of the
// Cortex-M backend's CMSIS-NN kernel library (cortex_m::), which neither the
// portable library nor ptescope carries (the real portable+quantized runtime
// refuses that program with OperatorMissing).
#include <QtTest>

#include "exec/HostRuntime.h"
#include "exec/Profiler.h"
#include "support/TestSupport.h"
#include "synth/Scenarios.h"

using namespace ptescope;

class ExecSampleKernelsTest : public QObject {
  Q_OBJECT
 private slots:
  void everyCpuKernelOfEverySampleRuns() {
    const QStringList samples = test::samplePrograms();
    if (samples.isEmpty()) QSKIP("samples folder absent");
    size_t kernels = 0, cortexM = 0;
    for (const QString& path : samples) {
      auto loaded = test::loadOrFail(path);
      for (const auto& method : program::items(loaded.program.execution_plan)) {
        exec::HostRuntime runtime;
        exec::ProfileOptions options;
        options.method = method.displayName();
        options.warmup = 0;
        options.iterations = 1;
        options.measure_peak = false;
        auto profile = exec::profileMethod(loaded.program, runtime, options);
        const std::string where = path.toStdString() + " method " + options.method;
        QVERIFY2(profile.ok(), (where + ": " + (profile.ok() ? "" : profile.error().message)).c_str());
        for (const auto& step : profile->instructions) {
          if (step.kind == program::InstructionKind::KernelCall) ++kernels;
          if (step.executed || step.kind == program::InstructionKind::DelegateCall) continue;
          const bool cortex = step.label.rfind("cortex_m::", 0) == 0 && path.endsWith("keyword-spotting-cortex-m.pte");
          QVERIFY2(cortex, (where + ": instruction " + std::to_string(step.instruction) + " " + step.label +
                            " not executed: " + step.reason).c_str());
          ++cortexM;
        }
      }
    }
    QVERIFY(kernels > 20);  // the samples' kernel calls were really looked at
    QVERIFY(cortexM <= 16);
  }

  // What `synth` writes (the demo, every scenario, the large benchmark
  // model, each with its device passes applied) runs every kernel call.
  void everyKernelOfEverySynthesizedProgramRuns() {
    std::vector<std::pair<std::string, program::Program>> programs;
    auto demo = synth::synthesizeDemo();
    QVERIFY(demo.ok());
    auto demoPassed = synth::applyDevicePasses(*demo);
    QVERIFY(demoPassed.ok());
    programs.emplace_back("demo", std::move(demoPassed.value()));
    for (const auto& scenario : synth::scenarios()) {
      auto built = synth::synthesizeScenario(scenario.name);
      QVERIFY(built.ok());
      auto passed = synth::applyDevicePasses(*built);
      QVERIFY(passed.ok());
      programs.emplace_back(std::string(scenario.name), std::move(passed.value()));
    }
    auto large = synth::largeProgram(3);
    QVERIFY(large.ok());
    auto largePassed = synth::applyDevicePasses(synth::SynthesizedProgram{large.value(), {}});
    QVERIFY(largePassed.ok());
    programs.emplace_back("large", std::move(largePassed.value()));
    size_t kernels = 0;
    for (const auto& [name, program] : programs) {
      for (const auto& method : program.methods()) {
        exec::HostRuntime runtime;
        exec::ProfileOptions options;
        options.method = method.displayName();
        options.warmup = 0;
        options.iterations = 1;
        options.measure_peak = false;
        auto profile = exec::profileMethod(program, runtime, options);
        const std::string where = name + " method " + options.method;
        // Some scenarios are programs the real runtime refuses to run (a method
        // input planned on the device); the executor may refuse them too.
        if (!profile.ok() && name != "demo" && name != "large") continue;
        QVERIFY2(profile.ok(), (where + ": " + (profile.ok() ? "" : profile.error().message)).c_str());
        for (const auto& step : profile->instructions) {
          if (step.kind != program::InstructionKind::KernelCall) continue;
          ++kernels;
          QVERIFY2(step.executed, (where + ": " + step.label + " not executed: " + step.reason).c_str());
        }
      }
    }
    QVERIFY(kernels > 50);
  }
};

QTEST_APPLESS_MAIN(ExecSampleKernelsTest)
#include "test_exec_sample_kernels.moc"
