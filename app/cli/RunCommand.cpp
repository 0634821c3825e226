#include "RunCommand.h"

#include "CliCommon.h"
#include "RunnerFlags.h"

#include <filesystem>
#include <iostream>

#include "exec/DeviceRuntime.h"
#include "exec/RunOnce.h"
#include "pte/Reader.h"
#include "report/RunText.h"
#include "report/RunnerText.h"
#include "runner/ExternalRunner.h"
#include "util/MappedFile.h"

namespace ptescope::cli {
namespace {

class RunCommandImpl : public RunCommand {
 public:
  explicit RunCommandImpl(CLI::App& app) {
    command_ = app.add_subcommand(
        "run", "Execute a method once (on a GPU when one is present, else emulated on the host) and write its outputs as .npy");
    command_->add_option("FILE", file_, "Program (.pte)")->required();
    command_->add_option("--method", method_, "Method to run (default: forward, else the first method)");
    command_->add_option("--inputs", inputs_,
                         "Folder of input files, one per method input i: i.npy, input_i.npy, i.bin or i.raw "
                         "(default: random values from --seed)");
    command_->add_option("--outputs", outputs_, "Folder to write output i as <i>.npy (created when missing)");
    command_->add_option("--seed", seed_, "Seed of the random inputs")->capture_default_str();
    command_->add_option("--ptd", ptd_, "External data file(s) (.ptd) for EXTERNAL constants");
    command_->add_option("--runtime", runtime_, "cuda or host (default: cuda when a device is present, else host)")
        ->check(CLI::IsMember({"cuda", "host"}));
    command_->add_option("--max-memory", maxMemory_, kMaxMemoryHelp);
    command_->add_flag("--json", json_,
                       "Print one JSON object instead of text (outputs with their statistics, first values and "
                       "whether each is bit-exact with the runtime)");
    runnerFlags_.addTo(command_, "also run the method there once on the same inputs, keep its outputs as runner-<i>.bin beside ptescope's and compare the two bit for bit when ptescope ran the whole program");
  }

  std::optional<int> runIfParsed() override {
    if (!command_->parsed()) return std::nullopt;
    return run();
  }

 private:
  int run() {
    if (json_ && runnerFlags_.given()) return fail("run: --json does not go with --runner (its comparison is text); give one of them");
    pte::ReadOptions readOptions;
    readOptions.ptd_paths = ptd_;
    auto loaded = pte::readProgramFile(file_, readOptions);
    if (!loaded) return fail(loaded.error().message);
    const program::Program& program = loaded->program;
    if (!method_.empty() && program.findMethod(method_) == nullptr) return fail(file_ + ": no method named '" + method_ + "'");
    if (!outputs_.empty() && std::filesystem::exists(outputs_) && !std::filesystem::is_directory(outputs_))
      return fail(outputs_ + ": exists and is not a folder (--outputs needs a folder)");

    exec::RunOnceOptions options;
    if (std::string error; !parseMaxMemory(maxMemory_, options.max_memory, error)) return fail(error);

    const auto preference = runtime_.empty() ? exec::RuntimePreference::Auto : *exec::parseRuntimePreference(runtime_);
    auto selection = exec::selectRuntime(preference);
    if (!selection) return fail(selection.error().message);
    if (!selection->notice.empty()) note(selection->notice);

    options.method = method_;
    options.inputs.directory = inputs_;
    options.inputs.seed = seed_;
    auto result = exec::runMethodOnce(program, *selection->runtime, options);
    if (!result) return fail(file_ + ": " + result.error().message);

    // The runner runs before anything is printed or written: its failure is
    // the command's one error line.
    std::optional<runner::RunnerResult> theirs;
    if (runnerFlags_.given()) {
      auto path = runnerFlags_.path();
      if (!path) return fail(path.error().message);
      auto target = runner::runnerProgramFile(program, file_);
      if (!target) return fail(target.error().message);
      runner::RunnerOptions runnerOptions;
      runnerOptions.runner = path.value();
      runnerOptions.method = result->method;
      runnerOptions.iterations = 1;
      runnerOptions.inputs = options.inputs;
      runnerOptions.max_memory = options.max_memory;
      runnerOptions.timeout_seconds = runnerFlags_.timeoutSeconds();
      auto ran = runner::runWithRunner(target.value(), runnerOptions);
      if (!ran) return fail(ran.error().message);
      theirs = std::move(ran.value());
    }

    const std::string programName = std::filesystem::path(file_).filename().string();
    if (json_) {
      // One object on stdout, the files written in it.
      auto json = report::runJson(*result, programName);
      if (!outputs_.empty()) {
        auto written = exec::writeOutputsAsNpy(*result, outputs_);
        if (!written) return fail(written.error().message);
        json["written"] = written.value();
      }
      std::cout << jsonForStdout(json) << "\n";
      return 0;
    }
    std::cout << textForStdout(report::runText(*result, programName));
    if (!outputs_.empty()) {
      auto written = exec::writeOutputsAsNpy(*result, outputs_);
      if (!written) return fail(written.error().message);
      std::cout << "wrote " << program::countText(written->size(), "output file") << " to " << outputs_ << "\n";
    }
    if (!theirs) return 0;
    if (!outputs_.empty()) {
      size_t count = 0;
      for (size_t i = 0; i < theirs->outputs.size(); ++i) {
        if (!theirs->outputs[i]) continue;
        const auto path = (std::filesystem::path(outputs_) / ("runner-" + std::to_string(i) + ".bin")).string();
        if (auto s = writeFileAtomically(path, *theirs->outputs[i]); !s) return fail(s.error().message);
        ++count;
      }
      std::cout << "wrote the runner's " << program::countText(count, "output file") << " (raw, as it wrote them) to " << outputs_ << "\n";
    }
    if (!result->not_executed.empty()) {
      std::cout << "outputs: not compared: ptescope did not run " << result->not_executed.size()
                << " instruction(s) of the program (its delegates), so its outputs are not the program's\n";
      return 0;
    }
    runner::RawOutputs ours;
    size_t compared = 0;
    for (const auto& o : result->outputs) {
      ours.push_back(o.tensor ? std::optional(o.tensor->bytes) : std::nullopt);
      compared += o.tensor ? 1 : 0;
    }
    const auto differences = runner::compareOutputs(*program.findMethod(result->method), ours, theirs->outputs);
    std::cout << textForStdout(report::outputsAgreementText(differences, compared, "ptescope", "the runner"));
    return differences.empty() ? 0 : 1;
  }

  CLI::App* command_ = nullptr;
  RunnerFlags runnerFlags_;
  std::string file_, method_, inputs_, outputs_, runtime_, maxMemory_;
  std::vector<std::string> ptd_;
  uint64_t seed_ = 0;
  bool json_ = false;
};

}  // namespace

std::unique_ptr<RunCommand> addRunCommand(CLI::App& app) { return std::make_unique<RunCommandImpl>(app); }

}  // namespace ptescope::cli
