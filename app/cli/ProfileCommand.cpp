#include "ProfileCommand.h"

#include "CliCommon.h"

#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <iostream>

#include "cost/LinkProbe.h"
#include "exec/DeviceRuntime.h"
#include "exec/MemoryBudget.h"
#include "exec/Profiler.h"
#include "pte/Reader.h"
#include "report/ProfileAnalysisWriters.h"
#include "report/ProfileWriters.h"
#include "report/WriterSupport.h"

namespace ptescope::cli {
namespace {

constexpr int kExitInterrupted = 130;  // 128 + SIGINT, as shells report it
constexpr int kExitPartial = 1;        // a later iteration failed: the output is partial

// Ctrl+C asks the profile to stop after the current instruction; a second
// Ctrl+C (the default handler is back by then) ends the process.
volatile std::sig_atomic_t gInterrupted = 0;
extern "C" void onInterrupt(int) {
  gInterrupted = 1;
  std::signal(SIGINT, SIG_DFL);
}

class InterruptGuard {
 public:
  InterruptGuard() {
    gInterrupted = 0;
    previous_ = std::signal(SIGINT, onInterrupt);
  }
  ~InterruptGuard() { std::signal(SIGINT, previous_ == SIG_ERR ? SIG_DFL : previous_); }
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

 private:
  void (*previous_)(int) = SIG_DFL;
};

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
  }

  std::optional<int> runIfParsed() override {
    if (!command_->parsed()) return std::nullopt;
    return run();
  }

 private:
  int run() {
    auto loaded = pte::readProgramFile(file_);
    if (!loaded) return fail(loaded.error().message);
    const program::Program& program = loaded->program;

    exec::ProfileOptions options;
    options.method = method_;
    options.iterations = iterations_;
    options.warmup = warmup_;
    options.host_memory = pinned_ ? exec::HostMemoryKind::Pinned : exec::HostMemoryKind::Pageable;
    options.inputs.directory = inputs_;
    if (std::string error; !parseMaxMemory(maxMemory_, options.max_memory, error)) return fail(error);
    if (!method_.empty() && program.findMethod(method_) == nullptr) return fail(file_ + ": no method named '" + method_ + "'");
    if (maxSlowdown_ && compare_.empty()) return fail("--max-slowdown needs --compare PROFILE.json");
    auto settings = analysis::cudaGraphSetting(cudaGraph_, program);
    if (!settings) return fail(settings.error().message);
    options.run_settings = settings.value();
    // Read the earlier profile first: a bad file should not cost a run.
    std::optional<exec::TransferProfile> previous;
    if (!compare_.empty()) {
      auto read = report::readProfileJson(compare_);
      if (!read) return fail(read.error().message);
      previous = std::move(read.value());
    }

    const auto preference = runtime_.empty() ? exec::RuntimePreference::Auto : *exec::parseRuntimePreference(runtime_);
    auto selection = exec::selectRuntime(preference);
    if (!selection) return fail(selection.error().message);
    if (!selection->notice.empty()) std::cerr << "ptescope-cli: note: " << selection->notice << "\n";
    exec::DeviceRuntime& runtime = *selection->runtime;
    if (!saveLink_.empty() && runtime.isEmulated())
      return fail("--save-link needs a GPU: " + runtime.name() + " only emulates one, its copies would describe host "
                  "memcpy, not a link");

    ProgressPrinter printer;
    options.on_progress = [&printer](const exec::ProfileProgress& p) { printer(p); };
    options.cancel_requested = [] { return gInterrupted != 0; };
    exec::TransferProfile profile;
    {
      InterruptGuard guard;
      auto result = exec::profileMethod(program, runtime, options);
      if (!result) return fail(file_ + ": " + result.error().message);
      profile = std::move(result.value());
    }
    profile.program_name = std::filesystem::path(file_).filename().string();
    exec::identifyCopies(profile, program);

    std::cout << report::profileText(profile) << report::profileAnalysesText(profile);
    if (previous) std::cout << report::profileComparisonText(profile, *previous, compare_);
    if (!json_.empty())
      if (auto status = report::writeProfileJson(profile, json_, previous ? &*previous : nullptr); !status) return fail(status.error().message);
    if (!csv_.empty())
      if (auto status = report::writeProfileCsv(profile, csv_); !status) return fail(status.error().message);
    if (!trace_.empty())
      if (auto status = report::writeProfileTrace(profile, trace_, program.findMethod(profile.method)); !status) return fail(status.error().message);
    if (!summaryCsv_.empty())
      if (auto status = report::writeTextFile(summaryCsv_, report::transferSummaryCsvHeader() +
                                                              report::transferSummaryCsvRows(exec::summarizeTransfers(profile), profile.method));
          !status)
        return fail(status.error().message);
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
      std::cerr << "ptescope-cli: wrote the link profile " << saveLink_ << "\n";
    }
    if (profile.cancelled) {
      std::cerr << "ptescope-cli: interrupted; the results above cover the " << profile.iterations
                << " iteration(s) that completed\n";
      return kExitInterrupted;
    }
    if (profile.partial()) {
      std::cerr << "ptescope-cli: " << file_ << ": " << profile.failure << "; the profile above is partial: it covers the "
                << profile.iterations << " iteration(s) that completed\n";
      return kExitPartial;
    }
    if (previous && maxSlowdown_) {
      const double change = report::copyTimeChange(profile, *previous) * 100;
      if (change > *maxSlowdown_) {
        std::cerr << "ptescope-cli: copy time grew by " << change << "% against " << compare_ << " (limit "
                  << *maxSlowdown_ << "%)\n";
        return 1;
      }
    }
    return 0;
  }

  CLI::App* command_ = nullptr;
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
