#include "PassCommands.h"

#include "CliCommon.h"
#include "EditFlags.h"

#include <iostream>

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
    edits_.addTo(propagate_);
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

    auto pipeline = edits_.pipelineOptions(program, file_, method_);
    if (!pipeline) return fail(pipeline.error().message);
    auto result = passes::runPipeline(program, pipeline.value());
    if (!result) return fail(file_ + ": " + result.error().message);
    // Everything printed is made before -o is written, so nothing can fail
    // after the output exists.
    const std::string printed = json_ ? jsonForStdout(report::passReportJson(result->report)) + "\n"
                                      : report::passReportText(result->report);
    noteEscapedNames(loaded.value());
    pte::WriteOptions writeOptions;
    writeOptions.input_path = file_;
    writeOptions.allow_overwrite_input = force_;
    auto written = pte::writeProgramFile(result->program, output_, writeOptions);
    if (!written) return fail(written.error().message);
    std::cout << printed;
    if (!json_) std::cerr << "ptescope-cli: wrote " << output_ << "\n";
    return 0;
  }

  int runDiff() {
    auto a = pte::readProgramFile(file_);
    if (!a) return fail(a.error().message);
    auto b = pte::readProgramFile(other_);
    if (!b) return fail(b.error().message);
    noteEscapedNames(a.value());
    noteEscapedNames(b.value());
    auto diff = passes::diffPrograms(a->program, b->program);
    if (!diff) return fail(diff.error().message);
    if (json_) {
      std::cout << jsonForStdout(report::programDiffJson(diff.value())) << "\n";
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
    noteEscapedNames(loaded.value());
    const auto findings = analysis::lintProgram(loaded->program);
    if (json_) {
      std::cout << jsonForStdout(report::diagnosticsJson(findings)) << "\n";
    } else {
      std::cout << report::diagnosticsText(findings);
    }
    return analysis::hasErrors(findings) ? 1 : 0;
  }

  CLI::App* propagate_ = nullptr;
  CLI::App* diff_ = nullptr;
  CLI::App* lint_ = nullptr;
  std::string file_, output_, method_, other_;
  std::vector<std::string> ptd_;
  EditFlags edits_;
  bool force_ = false, json_ = false;
};

}  // namespace

std::unique_ptr<PassCommands> addPassCommands(CLI::App& app) { return std::make_unique<PassCommandsImpl>(app); }

}  // namespace ptescope::cli
