#include "PredictCommand.h"

#include "CliCommon.h"

#include <filesystem>
#include <iostream>
#include <optional>

#include "cost/CopyCost.h"
#include "cost/LinkProbe.h"
#include "exec/MemoryBudget.h"
#include "pte/Reader.h"
#include "report/CopyBudgets.h"
#include "report/PredictionWriters.h"
#include "report/ProfileWriters.h"

namespace ptescope::cli {

Result<cost::LinkProfile> linkFromOption(const std::string& option) {
  if (option.empty()) {
    const auto& link = cost::defaultLinkProfile();
    if (link.curves.empty()) return makeError("this build has no built-in link profile");
    return link;
  }
  return cost::resolveLinkProfile(option);
}

std::string linkOptionHelp() {
  std::string names;
  for (const auto& p : cost::builtinLinkProfiles()) names += (names.empty() ? "" : ", ") + p.name;
  return "Link profile: a built-in name (" + names + "; default " + cost::defaultLinkProfile().name +
         ") or a file written by probe-link";
}

namespace {

class PredictCommandsImpl : public PredictCommands {
 public:
  explicit PredictCommandsImpl(CLI::App& app) {
    predict_ = app.add_subcommand(
        "predict", "Predict what each host-device copy costs on a link, without a GPU (typical figures, not guarantees)");
    predict_->add_option("FILE", file_, "Program (.pte)");
    predict_->add_option("--link", link_, linkOptionHelp());
    predict_->add_option("--method", method_, "Method (default: forward, else the first method)");
    predict_->add_flag("--pinned", pinned_, "Host arenas in pinned memory (default: pageable, as ExecuTorch's Module allocates them)");
    predict_->add_option("--compute-ms", computeMs_, "Compute time per iteration in ms: also print the share of a run spent copying")
        ->check(CLI::Range(0.0, 1e12));
    predict_->add_option("--measured", measured_,
                         "A profile of this method written by `profile --json`: lay its medians beside the prediction");
    predict_->add_option("--cuda-graph", cudaGraph_, kCudaGraphHelp);
    predict_->add_flag("--json", json_, "Print the prediction as JSON");
    predict_->add_option("--baseline", baseline_,
                         "CI gate: compare with this program's predicted copies (same method, same link); with the "
                         "budgets below, exit 1 when one is exceeded");
    predict_->add_option("--max-growth", maxGrowth_, "Budget: most growth of the predicted copy time per call against "
                                                     "--baseline, in percent (0: no growth at all)");
    predict_->add_option("--max-copies", maxCopies_, "Budget: most host-device copies per call");
    predict_->add_option("--max-copy-bytes", maxCopyBytes_, "Budget: most bytes copied per call (bytes, or 64K, 2M, 1G, ...)");
    predict_->add_flag("--list-links", listLinks_, "List the built-in link profiles and exit");

    probe_ = app.add_subcommand("probe-link", "Measure this machine's host-device link on a GPU and write a link profile");
    probe_->add_option("--device", device_, "CUDA device index")->check(CLI::Range(0, 127))->capture_default_str();
    probe_->add_option("-o,--output", output_, "Write the profile here (default: print it)");
    probe_->add_option("--max-bytes", maxBytes_, "Largest copy measured")->check(CLI::Range(1024.0, 1e12))->capture_default_str();
    probe_->add_option("--repeats", repeats_, "Timed batches per size (the median is kept)")->check(CLI::Range(1, 1000))->capture_default_str();
    probe_->add_flag("--emulated", emulated_,
                     "Measure host memcpy with the emulated runtime instead (no GPU needed; describes no link, for trying the tool)");
  }

  std::optional<int> runIfParsed() override {
    if (predict_->parsed()) return runPredict();
    if (probe_->parsed()) return runProbe();
    return std::nullopt;
  }

 private:
  int runPredict() {
    if (listLinks_) {
      for (const auto& p : cost::builtinLinkProfiles()) std::cout << p.name << "\t" << p.label() << "\n";
      return 0;
    }
    if (file_.empty()) return fail("predict: FILE is required (run with --help for usage)");
    auto link = linkFromOption(link_);
    if (!link) return fail(link.error().message);
    auto loaded = pte::readProgramFile(file_);
    if (!loaded) return fail(loaded.error().message);
    std::optional<exec::TransferProfile> measured;
    if (!measured_.empty()) {
      auto read = report::readProfileJson(measured_);
      if (!read) return fail(read.error().message);
      measured = std::move(read.value());
    }
    const auto memory = pinned_ ? exec::HostMemoryKind::Pinned : exec::HostMemoryKind::Pageable;
    auto settings = analysis::cudaGraphSetting(cudaGraph_, loaded->program);
    if (!settings) return fail(settings.error().message);
    settings_ = settings.value();
    auto prediction = cost::predictProgram(loaded->program, method_, link.value(), memory, settings_);
    if (!prediction) return fail(file_ + ": " + prediction.error().message);
    if (measured && measured->method != prediction->method)
      return fail(measured_ + ": a profile of method '" + measured->method + "', not of '" + prediction->method + "'");
    if (!baseline_.empty() || maxGrowth_ || maxCopies_ || !maxCopyBytes_.empty())
      return runBudgets(prediction.value(), link.value(), memory);
    report::PredictionContext context;
    context.program_name = std::filesystem::path(file_).filename().string();
    if (computeMs_) context.compute_seconds = *computeMs_ / 1e3;
    context.measured = measured ? &*measured : nullptr;
    context.measured_name = measured_;
    if (json_)
      std::cout << jsonForStdout(report::predictionJson(prediction.value(), link.value(), context)) << "\n";
    else
      std::cout << textForStdout(report::predictionText(prediction.value(), link.value(), context));
    return 0;
  }

  // predict --baseline / --max-*: the CI gate. Exit 1 when a budget is
  // exceeded, with one "budget exceeded:" line each.
  int runBudgets(const cost::MethodPrediction& current, const cost::LinkProfile& link, exec::HostMemoryKind memory) {
    report::CopyBudgets budgets;
    if (maxGrowth_) {
      if (baseline_.empty()) return fail("--max-growth needs --baseline OLD.pte to compare with");
      if (!(*maxGrowth_ >= 0)) return fail("--max-growth takes a percentage of 0 or more");
      budgets.max_growth_percent = *maxGrowth_;
    }
    if (maxCopies_) budgets.max_copies = *maxCopies_;
    if (!maxCopyBytes_.empty()) {
      auto bytes = exec::parseMemorySize(maxCopyBytes_);
      if (!bytes) return fail("--max-copy-bytes: '" + maxCopyBytes_ + "' is not a size (bytes, or 64K, 2M, 1G, ...)");
      budgets.max_copy_bytes = *bytes;
    }
    std::optional<cost::MethodPrediction> old;
    if (!baseline_.empty()) {
      auto loaded = pte::readProgramFile(baseline_);
      if (!loaded) return fail(loaded.error().message);
      auto predicted = cost::predictProgram(loaded->program, current.method, link, memory, settings_);
      if (!predicted) return fail(baseline_ + ": " + predicted.error().message);
      old = std::move(predicted.value());
    }
    const auto checked = report::checkCopyBudgets(current, old ? &*old : nullptr, budgets);
    const std::string name = std::filesystem::path(file_).filename().string();
    const std::string baseName = std::filesystem::path(baseline_).filename().string();
    if (json_) std::cout << jsonForStdout(report::budgetJson(checked, name, baseName)) << "\n";
    else std::cout << textForStdout(report::budgetText(checked, name, baseName));
    return checked.exceeded() ? 1 : 0;
  }

  int runProbe() {
    auto selection = exec::selectRuntime(emulated_ ? exec::RuntimePreference::Host : exec::RuntimePreference::Cuda);
    if (!selection)
      return fail("probe-link needs a CUDA GPU and none can be used: " + selection.error().message +
                  " (--emulated measures host memcpy instead)");
    cost::ProbeOptions options;
    options.device = program::Device{program::DeviceType::Cuda, int8_t(device_)};
    options.max_bytes = uint64_t(maxBytes_);
    options.repeats = repeats_;
    auto profile = cost::probeLink(*selection->runtime, options);
    if (!profile) return fail(profile.error().message);
    if (output_.empty()) {
      std::cout << jsonForStdout(cost::linkProfileJson(profile.value())) << "\n";
      return 0;
    }
    if (auto status = cost::writeLinkProfileFile(profile.value(), output_); !status) return fail(status.error().message);
    const auto* large = profile->curve(program::CopyDirection::HostToDevice, cost::LinkMemory::Pinned);
    const auto* largeDown = profile->curve(program::CopyDirection::DeviceToHost, cost::LinkMemory::Pinned);
    if (large && largeDown && !large->points.empty() && !largeDown->points.empty())
      say(profile->label() + ": pinned " + program::bytesText(int64_t(large->points.back().bytes)) + " h2d " +
          program::gbpsText(large->gbpsFor(large->points.back().bytes)) + " GB/s, d2h " +
          program::gbpsText(largeDown->gbpsFor(largeDown->points.back().bytes)) + " GB/s");
    say("wrote " + output_);
    return 0;
  }

  CLI::App* predict_ = nullptr;
  CLI::App* probe_ = nullptr;
  std::string file_, link_, method_, measured_, output_, baseline_, maxCopyBytes_, cudaGraph_;
  analysis::DelegateTransferOptions settings_;
  std::optional<double> maxGrowth_;
  std::optional<uint64_t> maxCopies_;
  std::optional<double> computeMs_;
  bool pinned_ = false, json_ = false, listLinks_ = false, emulated_ = false;
  int device_ = 0;
  double maxBytes_ = double(uint64_t(256) << 20);
  size_t repeats_ = 5;
};

}  // namespace

std::unique_ptr<PredictCommands> addPredictCommands(CLI::App& app) { return std::make_unique<PredictCommandsImpl>(app); }

}  // namespace ptescope::cli
