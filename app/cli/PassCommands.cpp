#include "PassCommands.h"

#include "CliCommon.h"
#include "EditFlags.h"
#include "PredictCommand.h"

#include <filesystem>
#include <iostream>

#include "analysis/Diagnostics.h"
#include "cost/CopyCost.h"
#include "passes/Pipeline.h"
#include "passes/ProgramDiff.h"
#include "pte/Reader.h"
#include "pte/DataWriter.h"
#include "pte/Writer.h"
#include "report/JUnitWriter.h"
#include "report/PassReportWriter.h"
#include "report/PredictionWriters.h"
#include "report/WriterSupport.h"

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
    addPredictionOptions(propagate_);

    diff_ = app.add_subcommand("diff", "Compare two programs: placement, copies, buffers and structure");
    diff_->add_option("A", file_, "First program (.pte)")->required();
    diff_->add_option("B", other_, "Second program (.pte)")->required();
    diff_->add_flag("--json", json_, "Print the differences as JSON");
    addPredictionOptions(diff_);

    std::string rules = "Report problems the runtime would hit (exit 1 when an error is found). Rules:";
    for (const auto& r : analysis::diagnosticRules())
      rules += std::string("\n  ") + r.id + " " + r.slug + " (" + analysis::severityName(r.severity) + "): " + r.summary;
    lint_ = app.add_subcommand("lint", rules);
    lint_->add_option("FILE", file_, "Program (.pte)")->required();
    lint_->add_option("--ptd", ptd_, "External data file(s) (.ptd)");
    lint_->add_flag("--json", json_, "Print the findings as JSON");
    lint_->add_option("--junit", junit_,
                      "Also write the findings as JUnit XML to this file (one test case per rule and method; "
                      "error-level findings fail their case)");
  }

  std::optional<int> runIfParsed() override {
    if (propagate_->parsed()) return runPropagate();
    if (diff_->parsed()) return runDiff();
    if (lint_->parsed()) return runLint();
    return std::nullopt;
  }

 private:
  void addPredictionOptions(CLI::App* command) {
    command->add_option("--link", link_, "For the predicted copy time saved or added: " + linkOptionHelp());
    command->add_flag("--pinned", pinned_, "Predict with pinned host arenas (default: pageable)");
  }

  // One prediction line (text) or object (JSON) per method that copies in
  // either program: its predicted copy time in `a` and in `b`.
  Result<std::pair<std::string, nlohmann::json>> predictionDelta(const program::Program& a, const program::Program& b,
                                                                 const std::vector<std::string>& methods) {
    auto link = linkFromOption(link_);
    if (!link) return link.error();
    const auto memory = pinned_ ? exec::HostMemoryKind::Pinned : exec::HostMemoryKind::Pageable;
    std::string text;
    nlohmann::json json = nlohmann::json::array();
    for (const auto& name : methods) {
      const auto* before = a.findMethod(name);
      const auto* after = b.findMethod(name);
      if (before == nullptr || after == nullptr) continue;
      // Copies inside delegates (TensorRT staging) count too: an edit that
      // turns staging into et_copy instructions moves the same bytes.
      auto p = cost::predictMethod(a, *before, link.value(), memory);
      if (!p) return makeError("method '" + name + "': " + p.error().message);
      auto q = cost::predictMethod(b, *after, link.value(), memory);
      if (!q) return makeError("method '" + name + "': " + q.error().message);
      if (p->copyCount() == 0 && q->copyCount() == 0) continue;
      text += report::predictionDeltaText("method '" + name + "'", p->copySeconds(), q->copySeconds(), link.value(), memory);
      auto item = report::predictionDeltaJson(p->copySeconds(), q->copySeconds(), link.value(), memory);
      item["method"] = name;
      json.push_back(item);
    }
    return std::pair{text, json};
  }

  int runPropagate() {
    if (auto link = linkFromOption(link_); !link) return fail(link.error().message);
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
    std::vector<std::string> names;
    for (const auto& m : result->report.methods) names.push_back(m.name);
    auto predicted = predictionDelta(program, result->program, names);
    if (!predicted) return fail(file_ + ": " + predicted.error().message);
    std::string printed;
    if (json_) {
      auto j = report::passReportJson(result->report);
      j["predicted"] = predicted->second;
      printed = jsonForStdout(j) + "\n";
    } else {
      printed = textForStdout(report::passReportText(result->report) + predicted->first);
    }
    noteEscapedNames(loaded.value());
    pte::WriteOptions writeOptions;
    writeOptions.input_path = file_;
    writeOptions.allow_overwrite_input = force_;
    auto written = pte::writeProgramFile(result->program, output_, writeOptions);
    if (!written) return fail(written.error().message);
    std::cout << printed;
    if (!json_) say("wrote " + output_);
    for (const auto& note : pte::carryDataFiles(result->program, output_)) say(note);
    return 0;
  }

  int runDiff() {
    if (auto link = linkFromOption(link_); !link) return fail(link.error().message);
    auto a = pte::readProgramFile(file_);
    if (!a) return fail(a.error().message);
    auto b = pte::readProgramFile(other_);
    if (!b) return fail(b.error().message);
    noteEscapedNames(a.value());
    noteEscapedNames(b.value());
    auto diff = passes::diffPrograms(a->program, b->program);
    if (!diff) return fail(diff.error().message);
    std::vector<std::string> names;
    for (const auto& m : diff->methods) names.push_back(m.name);
    auto predicted = predictionDelta(a->program, b->program, names);
    if (!predicted) return fail(predicted.error().message);
    if (json_) {
      auto j = report::programDiffJson(diff.value());
      j["predicted"] = predicted->second;
      std::cout << jsonForStdout(j) << "\n";
    } else {
      std::cout << textForStdout(report::programDiffText(diff.value()) + predicted->first);
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
    if (!junit_.empty()) {
      const std::string name = std::filesystem::path(file_).filename().string();
      if (auto written = report::writeTextFile(junit_, report::diagnosticsJUnit(loaded->program, findings, name)); !written)
        return fail(written.error().message);
    }
    if (json_) {
      std::cout << jsonForStdout(report::diagnosticsJson(findings)) << "\n";
    } else {
      std::cout << textForStdout(report::diagnosticsText(findings));
    }
    return analysis::hasErrors(findings) ? 1 : 0;
  }

  CLI::App* propagate_ = nullptr;
  CLI::App* diff_ = nullptr;
  CLI::App* lint_ = nullptr;
  std::string file_, output_, method_, other_, junit_;
  std::vector<std::string> ptd_;
  EditFlags edits_;
  std::string link_;
  bool force_ = false, json_ = false, pinned_ = false;
};

}  // namespace

std::unique_ptr<PassCommands> addPassCommands(CLI::App& app) { return std::make_unique<PassCommandsImpl>(app); }

}  // namespace ptescope::cli
