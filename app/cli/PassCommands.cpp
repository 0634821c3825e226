#include "PassCommands.h"

#include "CliCommon.h"

#include <iostream>
#include <regex>

#include "analysis/Diagnostics.h"
#include "passes/Pipeline.h"
#include "passes/ProgramDiff.h"
#include "pte/Reader.h"
#include "pte/Writer.h"
#include "report/PassReportWriter.h"

namespace ptescope::cli {
namespace {


class PassCommandsImpl : public PassCommands {
 public:
  explicit PassCommandsImpl(CLI::App& app) {
    propagate_ = app.add_subcommand(
        "propagate", "Run the device passes (strip copies, propagate devices, plan memory) and write a new program");
    propagate_->add_option("FILE", file_, "Program (.pte)")->required();
    propagate_->add_option("-o,--output", output_, "Output program (.pte)")->required();
    propagate_->add_option("--method", method_, "Apply the options and --set-device to this method only (others keep the options read off the file)");
    propagate_->add_flag("--skip-h2d-inputs", options_.skip_h2d_for_method_inputs, "skip_h2d_for_method_inputs: method inputs feeding a device delegate are tagged with its device, no copy");
    propagate_->add_flag("--skip-d2h-outputs", options_.skip_d2h_for_method_outputs, "skip_d2h_for_method_outputs: delegate outputs returned by the method stay on the device");
    propagate_->add_flag("--no-device-planning", noDevicePlanning_, "enable_non_cpu_memory_planning=False: legacy tags, no copies, one CPU arena");
    propagate_->add_flag("--no-alloc-graph-input", noAllocInput_, "alloc_graph_input=False: method inputs are not memory-planned");
    propagate_->add_flag("--no-alloc-graph-output", noAllocOutput_, "alloc_graph_output=False: method outputs are not memory-planned");
    propagate_->add_option("--set-device", setDevices_, "[METHOD:]DELEGATE_INDEX=cuda:N|cpu|none: set or remove a delegate's target_device")->take_all();
    propagate_->add_option("--ptd", ptd_, "External data file(s) (.ptd)");
    propagate_->add_flag("--force", force_, "Allow writing over the input file");
    propagate_->add_flag("--json", json_, "Print the report as JSON");

    diff_ = app.add_subcommand("diff", "Compare two programs: placement, copies, buffers and structure");
    diff_->add_option("A", file_, "First program (.pte)")->required();
    diff_->add_option("B", other_, "Second program (.pte)")->required();
    diff_->add_flag("--json", json_, "Print the differences as JSON");

    std::string rules = "Report problems the runtime would hit (exit 1 when an error is found). Rules:";
    for (const auto& r : analysis::diagnosticRules())
      rules += std::string("\n  ") + r.id + " " + r.slug + " (" + analysis::severityName(r.severity) + "): " + r.summary;
    lint_ = app.add_subcommand("lint", rules);
    lint_->add_option("FILE", file_, "Program (.pte)")->required();
    lint_->add_option("--ptd", ptd_, "External data file(s) (.ptd)");
    lint_->add_flag("--json", json_, "Print the findings as JSON");
  }

  std::optional<int> runIfParsed() override {
    if (propagate_->parsed()) return runPropagate();
    if (diff_->parsed()) return runDiff();
    if (lint_->parsed()) return runLint();
    return std::nullopt;
  }

 private:
  int runPropagate() {
    pte::ReadOptions readOptions;
    readOptions.ptd_paths = ptd_;
    auto loaded = pte::readProgramFile(file_, readOptions);
    if (!loaded) return fail(loaded.error().message);
    const program::Program& program = loaded->program;

    options_.enable_non_cpu_memory_planning = !noDevicePlanning_;
    options_.alloc_graph_input = !noAllocInput_;
    options_.alloc_graph_output = !noAllocOutput_;
    passes::PipelineOptions pipeline;
    if (method_.empty()) {
      pipeline.defaults = options_;
    } else {
      if (program.findMethod(method_) == nullptr) return fail(file_ + ": no method named '" + method_ + "'");
      for (const auto& m : program.methods()) pipeline.per_method[m.displayName()] = passes::inferDeviceOptions(m);
      pipeline.per_method[method_] = options_;
    }
    static const std::regex kSetDevice(R"(^(?:(.+):)?(-?\d+)=(.+)$)");
    for (const auto& text : setDevices_) {
      std::smatch match;
      if (!std::regex_match(text, match, kSetDevice))
        return fail("--set-device '" + text + "': expected [METHOD:]DELEGATE_INDEX=cuda:N|cpu|none");
      std::string methodName = match[1].matched ? match[1].str() : method_;
      if (methodName.empty()) {
        if (program.methods().size() != 1)
          return fail("--set-device '" + text + "': the program has " + std::to_string(program.methods().size()) +
                      " methods; name one with --method or METHOD:INDEX=DEVICE");
        methodName = program.methods()[0].displayName();
      }
      std::optional<program::Device> device;
      if (match[3].str() != "none") {
        auto parsed = program::parseDeviceSpec(match[3].str());
        if (!parsed) return fail("--set-device '" + text + "': " + parsed.error().message);
        device = parsed.value();
      }
      pipeline.target_devices[{methodName, std::stoi(match[2].str())}] = device;
    }

    auto result = passes::runPipeline(program, pipeline);
    if (!result) return fail(file_ + ": " + result.error().message);
    pte::WriteOptions writeOptions;
    writeOptions.input_path = file_;
    writeOptions.allow_overwrite_input = force_;
    auto written = pte::writeProgramFile(result->program, output_, writeOptions);
    if (!written) return fail(written.error().message);
    if (json_) {
      std::cout << report::passReportJson(result->report).dump(2) << "\n";
    } else {
      std::cout << report::passReportText(result->report);
      std::cerr << "ptescope-cli: wrote " << output_ << "\n";
    }
    return 0;
  }

  int runDiff() {
    auto a = pte::readProgramFile(file_);
    if (!a) return fail(a.error().message);
    auto b = pte::readProgramFile(other_);
    if (!b) return fail(b.error().message);
    auto diff = passes::diffPrograms(a->program, b->program);
    if (!diff) return fail(diff.error().message);
    if (json_) {
      std::cout << report::programDiffJson(diff.value()).dump(2) << "\n";
    } else {
      std::cout << report::programDiffText(diff.value());
    }
    return 0;
  }

  int runLint() {
    pte::ReadOptions readOptions;
    readOptions.ptd_paths = ptd_;
    auto loaded = pte::readProgramFile(file_, readOptions);
    if (!loaded) return fail(loaded.error().message);
    const auto findings = analysis::lintProgram(loaded->program);
    if (json_) {
      std::cout << report::diagnosticsJson(findings).dump(2) << "\n";
    } else {
      std::cout << report::diagnosticsText(findings);
    }
    return analysis::hasErrors(findings) ? 1 : 0;
  }

  CLI::App* propagate_ = nullptr;
  CLI::App* diff_ = nullptr;
  CLI::App* lint_ = nullptr;
  std::string file_, output_, method_, other_;
  std::vector<std::string> setDevices_, ptd_;
  passes::DeviceOptions options_;
  bool noDevicePlanning_ = false, noAllocInput_ = false, noAllocOutput_ = false, force_ = false, json_ = false;
};

}  // namespace

std::unique_ptr<PassCommands> addPassCommands(CLI::App& app) { return std::make_unique<PassCommandsImpl>(app); }

}  // namespace ptescope::cli
