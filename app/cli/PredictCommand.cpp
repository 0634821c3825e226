#include "PredictCommand.h"

#include "CliCommon.h"

#include <filesystem>
#include <iostream>

#include "cost/CopyCost.h"
#include "cost/LinkProbe.h"
#include "pte/Reader.h"
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
    predict_->add_flag("--json", json_, "Print the prediction as JSON");
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
    auto prediction = cost::predictProgram(loaded->program, method_, link.value(), memory);
    if (!prediction) return fail(file_ + ": " + prediction.error().message);
    if (measured && measured->method != prediction->method)
      return fail(measured_ + ": a profile of method '" + measured->method + "', not of '" + prediction->method + "'");
    report::PredictionContext context;
    context.program_name = std::filesystem::path(file_).filename().string();
    if (computeMs_) context.compute_seconds = *computeMs_ / 1e3;
    context.measured = measured ? &*measured : nullptr;
    context.measured_name = measured_;
    if (json_)
      std::cout << jsonForStdout(report::predictionJson(prediction.value(), link.value(), context)) << "\n";
    else
      std::cout << report::predictionText(prediction.value(), link.value(), context);
    return 0;
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
      std::cerr << "ptescope-cli: " << profile->label() << ": pinned " << large->points.back().bytes << " bytes h2d "
                << large->gbpsFor(large->points.back().bytes) << " GB/s, d2h "
                << largeDown->gbpsFor(largeDown->points.back().bytes) << " GB/s\n";
    std::cerr << "ptescope-cli: wrote " << output_ << "\n";
    return 0;
  }

  CLI::App* predict_ = nullptr;
  CLI::App* probe_ = nullptr;
  std::string file_, link_, method_, measured_, output_;
  std::optional<double> computeMs_;
  bool pinned_ = false, json_ = false, listLinks_ = false, emulated_ = false;
  int device_ = 0;
  double maxBytes_ = double(uint64_t(256) << 20);
  size_t repeats_ = 5;
};

}  // namespace

std::unique_ptr<PredictCommands> addPredictCommands(CLI::App& app) { return std::make_unique<PredictCommandsImpl>(app); }

}  // namespace ptescope::cli
