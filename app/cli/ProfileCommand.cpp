#include "ProfileCommand.h"

#include "CliCommon.h"
#include "EditFlags.h"
#include "Interrupt.h"
#include "PredictCommand.h"
#include "RunnerFlags.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>

#include "cost/CopyCost.h"
#include "cost/LinkProbe.h"
#include "exec/DeviceRuntime.h"
#include "exec/MemoryBudget.h"
#include "exec/Profiler.h"
#include "passes/Pipeline.h"
#include "pte/Reader.h"
#include "report/PredictionWriters.h"
#include "report/ProfileAnalysisWriters.h"
#include "report/ProfileWriters.h"
#include "report/RunnerText.h"
#include "report/WriterSupport.h"
#include "runner/ExternalRunner.h"
#include "runner/VerifyEdits.h"

namespace ptescope::cli {
namespace {

constexpr int kExitPartial = 1;        // a later iteration failed: the output is partial

// Progress on stderr, only on a terminal and only once a profile has run for
// a while so that short runs stay quiet. Scripts and CI (stderr a pipe or a
// file) get no progress lines: their stderr holds only notes and errors.
class ProgressPrinter {
 public:
  void operator()(const exec::ProfileProgress& progress) {
    const auto now = std::chrono::steady_clock::now();
    const bool last = progress.phase == exec::ProfileProgress::Phase::Done;
    const auto interval = std::chrono::milliseconds(500);
    if (!terminal_) return;
    if (now - start_ < std::chrono::seconds(1) || (!last && now - lastPrint_ < interval)) return;
    if (last && !printed_) return;
    lastPrint_ = now;
    printed_ = true;
    std::string line = "ptescope-cli: " + exec::phaseName(progress.phase);
    if (progress.total > 0 && !last)
      line += " " + std::to_string(progress.done) + "/" + std::to_string(progress.total);
    std::cerr << "\r" << line << "\033[K" << (last ? "\n" : "") << std::flush;
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point lastPrint_{};
  bool printed_ = false;
  bool terminal_ = ::isatty(STDERR_FILENO) == 1;
};

class ProfileCommandImpl : public ProfileCommand {
 public:
  explicit ProfileCommandImpl(CLI::App& app) {
    command_ = app.add_subcommand(
        "profile",
        "Run a method and time every host-device copy it makes (on a GPU when one is present, else emulated on the host)");
    command_->add_option("FILE", file_, "Program (.pte)")->required();
    command_->add_option("--method", method_, "Method to run (default: forward, else the first method)");
    command_->add_option("--iterations", iterations_, "Measured iterations")->check(CLI::Range(1, 1000000))->capture_default_str();
    command_->add_option("--warmup", warmup_, "Warm-up iterations before measuring")->check(CLI::Range(0, 1000000))->capture_default_str();
    auto* pageable = command_->add_flag("--pageable", pageable_,
                                        "CPU arenas in pageable memory, as ExecuTorch's Module allocates them (default)");
    auto* pinned = command_->add_flag("--pinned", pinned_, "CPU arenas in pinned (page-locked) memory");
    pageable->excludes(pinned);
    command_->add_option("--runtime", runtime_, "cuda or host (default: cuda when a device is present, else host)")
        ->check(CLI::IsMember({"cuda", "host"}));
    command_->add_option("--json", json_, "Write the profile as JSON");
    command_->add_option("--csv", csv_, "Write one CSV row per copy");
    command_->add_option("--summary-csv", summaryCsv_,
                         "Write the transfer statistics as CSV: one row per direction and per size class");
    command_->add_option("--trace", trace_, "Write a Chrome trace-event file (open in Perfetto or chrome://tracing)");
    command_->add_option("--compare", compare_,
                         "A profile written earlier with --json (of this program, or of it before an edit): print "
                         "each copy's median now and then, the deltas, new and removed copies, and totals");
    command_->add_option("--max-slowdown", maxSlowdown_,
                         "With --compare: exit 1 when the total copy time per iteration grew by more than PERCENT")
        ->check(CLI::Range(0.0, 1e9));
    command_->add_option("--save-link", saveLink_,
                         "On a GPU: also measure the link (as probe-link does) on the profiled device and write its "
                         "link profile here, for `predict --link FILE`");
    command_->add_option("--max-memory", maxMemory_, kMaxMemoryHelp);
    command_->add_option("--cuda-graph", cudaGraph_, kCudaGraphHelp);
    command_->add_option("--inputs", inputs_,
                         "Folder of input files, one per method input i: i.npy, input_i.npy, i.bin or i.raw "
                         "(default: random values, seed 0)");
    command_->add_option("--ptd", ptd_, "External data file(s) (.ptd) for EXTERNAL constants");
    runnerFlags_.addTo(command_, "run the program there instead of in ptescope and read the ETDump it writes");
    command_->add_flag("--compare-edits", compareEdits_,
                       "With --runner: run the program as loaded and as edited by propagate's edit flags (both written "
                       "to temporary files), print the measured saving next to the predicted one, and check that both "
                       "runs' outputs are equal");
    command_->add_option("--link", link_, "With --compare-edits, for the predicted saving: " + linkOptionHelp());
    edits_.addTo(command_);
  }

  std::optional<int> runIfParsed() override {
    if (!command_->parsed()) return std::nullopt;
    return run();
  }

 private:
  int run() {
    pte::ReadOptions readOptions;
    readOptions.ptd_paths = ptd_;
    auto loaded = pte::readProgramFile(file_, readOptions);
    if (!loaded) return fail(loaded.error().message);
    const program::Program& program = loaded->program;
    if (runnerFlags_.given()) return runWithRunner(program);
    if (compareEdits_ || edits_.any()) return fail("--compare-edits and the edit flags need --runner");

    exec::ProfileOptions options;
    options.method = method_;
    options.iterations = iterations_;
    options.warmup = warmup_;
    options.host_memory = pinned_ ? exec::HostMemoryKind::Pinned : exec::HostMemoryKind::Pageable;
    options.inputs.directory = inputs_;
    if (std::string error; !parseMaxMemory(maxMemory_, options.max_memory, error)) return fail(error);
    // Read the earlier profile first: a bad file should not cost a run.
    auto read = checkMethodAndReadPrevious(program);
    if (!read) return fail(read.error().message);
    std::optional<exec::TransferProfile> previous = std::move(read.value());
    auto settings = analysis::cudaGraphSetting(cudaGraph_, program);
    if (!settings) return fail(settings.error().message);
    options.run_settings = settings.value();

    const auto preference = runtime_.empty() ? exec::RuntimePreference::Auto : *exec::parseRuntimePreference(runtime_);
    auto selection = exec::selectRuntime(preference);
    if (!selection) return fail(selection.error().message);
    if (!selection->notice.empty()) note(selection->notice);
    exec::DeviceRuntime& runtime = *selection->runtime;
    if (!saveLink_.empty() && runtime.isEmulated())
      return fail("--save-link needs a GPU: " + runtime.name() + " only emulates one, its copies would describe host "
                  "memcpy, not a link");

    ProgressPrinter printer;
    options.on_progress = [&printer](const exec::ProfileProgress& p) { printer(p); };
    options.cancel_requested = [] { return interrupted(); };
    exec::TransferProfile profile;
    {
      InterruptGuard guard;
      auto result = exec::profileMethod(program, runtime, options);
      if (!result) return fail(file_ + ": " + result.error().message);
      profile = std::move(result.value());
    }
    profile.program_name = std::filesystem::path(file_).filename().string();
    exec::identifyCopies(profile, program);

    std::cout << textForStdout(report::profileText(profile) + report::profileAnalysesText(profile));
    if (previous) std::cout << textForStdout(report::profileComparisonText(profile, *previous, compare_));
    if (auto status = writeFiles(profile, previous ? &*previous : nullptr, program); !status) return fail(status.error().message);
    if (!saveLink_.empty() && !profile.cancelled && !profile.partial()) {
      cost::ProbeOptions probe;
      if (!profile.peak.device.isCpu()) probe.device = profile.peak.device;
      for (const auto& c : profile.copies) {
        probe.device = c.device;
        break;
      }
      auto link = cost::probeLink(runtime, probe);
      if (!link) return fail(link.error().message);
      if (auto status = cost::writeLinkProfileFile(link.value(), saveLink_); !status) return fail(status.error().message);
      say("wrote the link profile " + saveLink_);
    }
    if (profile.cancelled) {
      say("interrupted; the results above cover the " + program::countText(profile.iterations, "iteration") + " that completed");
      return kExitInterrupted;
    }
    if (profile.partial()) {
      say(file_ + ": " + profile.failure + "; the profile above is partial: it covers the " +
          program::countText(profile.iterations, "iteration") + " that completed");
      return kExitPartial;
    }
    if (previous && maxSlowdown_ && slowedDown(profile, *previous)) return 1;
    return 0;
  }

  // profile --runner: the same table and files from the runner's ETDump.
  int runWithRunner(const program::Program& program) {
    auto runnerFile = runnerFlags_.path();
    if (!runnerFile) return fail(runnerFile.error().message);
    for (const auto* name : {"--runtime", "--pinned", "--save-link", "--warmup", "--cuda-graph"})
      if (command_->count(name) > 0)
        return fail(std::string(name) + " does not apply with --runner: the runner decides how it runs the program");
    // Read the earlier profile first: a bad file should not cost a run.
    auto read = checkMethodAndReadPrevious(program);
    if (!read) return fail(read.error().message);
    std::optional<exec::TransferProfile> previous = std::move(read.value());
    auto target = runner::runnerProgramFile(program, file_);
    if (!target) return fail(target.error().message);

    runner::RunnerOptions options;
    options.runner = runnerFile.value();
    options.method = method_;
    options.iterations = iterations_;
    options.inputs.directory = inputs_;
    options.timeout_seconds = runnerFlags_.timeoutSeconds();
    if (std::string error; !parseMaxMemory(maxMemory_, options.max_memory, error)) return fail(error);
    options.cancel_requested = [] { return interrupted(); };
    if (compareEdits_ || edits_.any()) {
      if (!compareEdits_) return fail("the edit flags need --compare-edits with --runner");
      if (previous) return fail("--compare-edits compares with the program as loaded; --compare does not apply");
      return compareEdits(program, target.value(), options);
    }
    Result<runner::RunnerResult> result = makeError("not run");
    {
      InterruptGuard guard;
      result = runner::runWithRunner(target.value(), options);
    }
    if (!result) return runnerFailed(result.error());
    exec::TransferProfile& profile = result->profile;
    std::cout << textForStdout(report::profileText(profile) + report::instructionTimesText(profile) +
                               report::profileAnalysesText(profile));
    if (previous) std::cout << textForStdout(report::profileComparisonText(profile, *previous, compare_));
    if (!result->trace_warning.empty()) warn(runnerFile.value() + ": " + result->trace_warning);
    if (auto status = writeFiles(profile, previous ? &*previous : nullptr, program); !status) return fail(status.error().message);
    if (previous && maxSlowdown_ && slowedDown(profile, *previous)) return 1;
    return 0;
  }

  // --method names a method of `program`, --max-slowdown comes with
  // --compare, and the --compare file reads (nullopt without --compare).
  Result<std::optional<exec::TransferProfile>> checkMethodAndReadPrevious(const program::Program& program) const {
    if (!method_.empty() && program.findMethod(method_) == nullptr)
      return makeError(file_ + ": no method named '" + method_ + "'");
    if (maxSlowdown_ && compare_.empty()) return makeError("--max-slowdown needs --compare PROFILE.json");
    if (compare_.empty()) return std::optional<exec::TransferProfile>();
    auto read = report::readProfileJson(compare_);
    if (!read) return read.error();
    return std::optional<exec::TransferProfile>(std::move(read.value()));
  }

  // --json, --csv, --trace and --summary-csv of a profile of `program` (--json
  // with the comparison to `previous`).
  Status writeFiles(const exec::TransferProfile& profile, const exec::TransferProfile* previous,
                    const program::Program& program) const {
    if (!json_.empty())
      if (auto status = report::writeProfileJson(profile, json_, previous); !status) return status;
    if (!csv_.empty())
      if (auto status = report::writeProfileCsv(profile, csv_); !status) return status;
    if (!trace_.empty())
      if (auto status = report::writeProfileTrace(profile, trace_, program.findMethod(profile.method)); !status)
        return status;
    if (!summaryCsv_.empty())
      if (auto status = report::writeTextFile(summaryCsv_, report::transferSummaryCsvHeader() +
                                                              report::transferSummaryCsvRows(exec::summarizeTransfers(profile), profile.method));
          !status)
        return status;
    return Ok{};
  }

  // --max-slowdown: true (said on stderr) when the copy time grew by more than allowed.
  bool slowedDown(const exec::TransferProfile& profile, const exec::TransferProfile& previous) const {
    const double change = report::copyTimeChange(profile, previous) * 100;
    if (change <= *maxSlowdown_) return false;
    say("copy time grew by " + program::fixedText(change, 1) + "% against " + compare_ + " (limit " +
        program::shortText(*maxSlowdown_) + "%)");
    return true;
  }

  // profile --runner --compare-edits: as loaded and as edited, each through
  // the runner; copies paired by CopyIdentity, the measured saving beside
  // the predicted one, and the outputs of both compared.
  int compareEdits(const program::Program& program, const runner::RunnerProgram& loadedTarget,
                   const runner::RunnerOptions& options) {
    auto link = linkFromOption(link_);
    if (!link) return fail(link.error().message);
    auto pipeline = edits_.pipelineOptions(program, file_, method_);
    if (!pipeline) return fail(pipeline.error().message);
    if (!edits_.any()) return fail("--compare-edits needs an edit (propagate's flags: --skip-h2d-inputs, --set-device, ...)");
    auto edited = passes::runPipeline(program, pipeline.value());
    if (!edited) return fail(file_ + ": " + edited.error().message);
    const std::string method = options.method.empty() ? exec::defaultMethodName(program) : options.method;
    if (edited->program.findMethod(method) == nullptr) return fail(file_ + ": the edits leave no method '" + method + "'");

    const runner::RunnerProgram editedTarget{&edited->program, "", "", loadedTarget.name + " as edited"};
    Result<runner::EditRuns> runs = makeError("not run");
    {
      InterruptGuard guard;
      runs = runner::runAsLoadedAndEdited(loadedTarget, editedTarget, options);
    }
    if (!runs) return runnerFailed(runs.error());

    const auto memory = exec::HostMemoryKind::Pageable;
    auto before = cost::predictMethod(*program.findMethod(method), link.value(), memory);
    if (!before) return fail(file_ + ": method '" + method + "': " + before.error().message);
    auto after = cost::predictMethod(*edited->program.findMethod(method), link.value(), memory);
    if (!after) return fail(file_ + ": method '" + method + "' as edited: " + after.error().message);

    const auto& a = runs->as_loaded.profile;
    const auto& b = runs->as_edited.profile;
    std::cout << textForStdout(report::profileText(b) + report::instructionTimesText(b) + report::profileAnalysesText(b) +
                               report::profileComparisonText(b, a, loadedTarget.name + " as loaded") + "\n" +
                               report::measuredSavingText(a, b) +
                               report::predictionDeltaText("method '" + method + "'", before->copySeconds(),
                                                           after->copySeconds(), link.value(), memory) +
                               report::outputsAgreementText(runs->differences, runs->outputs_compared, "as loaded",
                                                            "as edited"));
    if (auto status = writeFiles(b, &a, edited->program); !status) return fail(status.error().message);
    return runs->differences.empty() ? 0 : 1;
  }

  CLI::App* command_ = nullptr;
  RunnerFlags runnerFlags_;
  EditFlags edits_;
  bool compareEdits_ = false;
  std::string link_;
  std::vector<std::string> ptd_;
  std::string file_, method_, runtime_, json_, csv_, summaryCsv_, trace_, inputs_, compare_, saveLink_, cudaGraph_;
  std::string maxMemory_;
  std::optional<double> maxSlowdown_;
  size_t iterations_ = 20;
  size_t warmup_ = 3;
  bool pageable_ = false, pinned_ = false;
};

}  // namespace

std::unique_ptr<ProfileCommand> addProfileCommand(CLI::App& app) { return std::make_unique<ProfileCommandImpl>(app); }

}  // namespace ptescope::cli
