#include "ReportCommand.h"

#include "CliCommon.h"
#include "PredictCommand.h"

#include <filesystem>
#include <iostream>

#include "etdump/Etdump.h"
#include "etdump/EtdumpProfile.h"
#include "pte/Reader.h"
#include "report/EtdumpReport.h"
#include "report/HtmlReport.h"
#include "report/ProfileWriters.h"
#include "util/MappedFile.h"

namespace ptescope::cli {
namespace {

// "model.pte" -> "model.report.html", in the current directory.
std::string defaultOutput(const std::string& file) {
  return std::filesystem::path(file).stem().string() + ".report.html";
}

class ReportCommandImpl : public ReportCommand {
 public:
  explicit ReportCommandImpl(CLI::App& app) {
    report_ = app.add_subcommand(
        "report", "Write one self-contained HTML report to share: summary, each method's graph, copies with predicted "
                  "times, lint findings, memory plan; opens from disk in any browser, fetches nothing");
    report_->add_option("FILE", file_, "Program (.pte)")->required();
    report_->add_option("-o,--output", output_,
                        "The HTML file to write (default: FILE's name with .report.html instead of .pte, in the "
                        "current directory: model.pte -> ./model.report.html)");
    report_->add_option("--link", link_, "Copies are priced on it. " + linkOptionHelp());
    report_->add_option("--cuda-graph", cudaGraph_, kCudaGraphHelp);
    report_->add_flag("--pinned", pinned_, "Predict with pinned host arenas (default: pageable)");
    report_->add_option("--method", method_, "Report this method only (default: every method)");
    report_->add_option("--compare", compare_,
                        "Compare with this program, the one before the change: the copies FILE adds and removes "
                        "against it and the predicted saving per call");
    report_->add_option("--profile", profile_, "A profile written by `profile --json`: measured medians beside the predictions");
    report_->add_option("--etdump", etdump_, "An ETDump trace of FILE (.etdp): measured medians beside the predictions");
    report_->add_option("--ptd", ptd_, "External data file(s) (.ptd)");
  }

  std::optional<int> runIfParsed() override {
    if (!report_->parsed()) return std::nullopt;
    return run();
  }

 private:
  int run() {
    const std::string output = output_.empty() ? defaultOutput(file_) : output_;
    auto link = linkFromOption(link_);
    if (!link) return fail(link.error().message);
    pte::ReadOptions readOptions;
    readOptions.ptd_paths = ptd_;
    auto loaded = pte::readProgramFile(file_, readOptions);
    if (!loaded) return fail(loaded.error().message);
    if (!method_.empty() && loaded->program.findMethod(method_) == nullptr)
      return fail(file_ + ": no method named '" + method_ + "'");

    report::HtmlReportInput input;
    input.program = &loaded->program;
    input.program_name = std::filesystem::path(file_).filename().string();
    input.link = &link.value();
    input.host_memory = pinned_ ? exec::HostMemoryKind::Pinned : exec::HostMemoryKind::Pageable;
    input.method = method_;
    input.notes = loaded->warnings;
    auto settings = analysis::cudaGraphSetting(cudaGraph_, loaded->program);
    if (!settings) return fail(settings.error().message);
    input.run_settings = settings.value();

    std::optional<pte::LoadedProgram> other;
    if (!compare_.empty()) {
      auto read = pte::readProgramFile(compare_);
      if (!read) return fail(read.error().message);
      other = std::move(read.value());
      input.compare = &other->program;
      input.compare_name = std::filesystem::path(compare_).filename().string();
    }
    if (!profile_.empty()) {
      auto read = report::readProfileJson(profile_);
      if (!read) return fail(read.error().message);
      input.measured.push_back(std::move(read.value()));
      input.measured_name = profile_;
    }
    if (!etdump_.empty()) {
      auto dump = etdump::readEtdumpFile(etdump_);
      if (!dump) return fail(dump.error().message);
      auto analysis = etdump::analyzeEtdump(dump.value(), loaded->program);
      if (!analysis) return fail(etdump_ + ": " + analysis.error().message);
      for (const auto& m : analysis->methods) {
        if (!profile_.empty() && m.method == input.measured.front().method)
          return fail("report: --profile and --etdump both measure method '" + m.method + "': give one");
        input.measured.push_back(etdump::toTransferProfile(m, loaded->program, input.program_name));
      }
      for (const auto& line : report::etdumpAssumptions(analysis.value())) input.notes.push_back(etdump_ + ": " + line);
      if (analysis->methods.size() > 1)
        input.measured_across_methods = etdump::roundTripsAcrossMethods(analysis.value(), loaded->program, input.program_name);
      input.measured_name = input.measured_name.empty() ? etdump_ : input.measured_name + ", " + etdump_;
    }

    if (output == file_ || sameFile(output, file_) || (!compare_.empty() && sameFile(output, compare_)))
      return fail("report: the output '" + output + "' is one of the programs read");
    report::HtmlReportFacts facts;
    if (auto written = report::writeHtmlReport(output, input, &facts); !written)
      return fail("report: " + written.error().message);
    noteEscapedNames(loaded.value());
    size_t nodes = 0;
    for (size_t n : facts.graph_nodes) nodes += n;
    say("wrote " + output + " (" + program::countText(facts.methods.size(), "method") + ", " +
        program::countText(nodes, "graph node") + ", " + program::countText(facts.copies, "copy", "copies") + ", " +
        program::bytesText(int64_t(facts.bytes)) + ")");
    return 0;
  }

  CLI::App* report_ = nullptr;
  std::string file_, output_, link_, method_, compare_, profile_, etdump_, cudaGraph_;
  std::vector<std::string> ptd_;
  bool pinned_ = false;
};

}  // namespace

std::unique_ptr<ReportCommand> addReportCommand(CLI::App& app) { return std::make_unique<ReportCommandImpl>(app); }

}  // namespace ptescope::cli
