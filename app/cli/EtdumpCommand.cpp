#include "EtdumpCommand.h"

#include "CliCommon.h"
#include "PredictCommand.h"

#include <filesystem>
#include <iostream>
#include <sstream>

#include "etdump/EtdumpProfile.h"
#include "pte/Reader.h"
#include "report/EtdumpReport.h"
#include "report/ProfileAnalysisWriters.h"
#include "report/WriterSupport.h"

namespace ptescope::cli {
namespace {

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

class EtdumpCommandImpl : public EtdumpCommand {
 public:
  explicit EtdumpCommandImpl(CLI::App& app) {
    command_ = app.add_subcommand(
        "etdump", "Read an ETDump (.etdp) that the ExecuTorch runtime wrote while running the program: time per "
                  "instruction, per copy (bytes, GB/s) and per method, on the runtime's host clock");
    command_->add_option("FILE", file_, "Program (.pte) the trace was recorded on")->required();
    command_->add_option("ETDUMP", etdump_, "ETDump (.etdp) written by the runtime's event tracer")->required();
    command_->add_option("--method", method_,
                         "Method of every block (M), or of each load_method block in order (M1,M2,...); default: the "
                         "k-th load is the program's k-th method and executions follow the latest load");
    command_->add_option("--tick-ns", tickNs_, "Nanoseconds per tick of the runtime's clock (the file does not say)")
        ->capture_default_str();
    command_->add_option("--link", link_,
                         "Judge the copies against this link's peak (the profile rules; an ETDump has no peak of its "
                         "own): " + linkOptionHelp());
    command_->add_option("--json", json_, "Write the result as JSON");
    command_->add_option("--csv", csv_, "Write one CSV row per instruction");
    command_->add_option("--summary-csv", summaryCsv_,
                         "Write the transfer statistics as CSV: per method, one row per direction and per size class");
    command_->add_option("--trace", trace_, "Write a Chrome trace-event file (open in Perfetto or chrome://tracing)");
  }

  std::optional<int> runIfParsed() override {
    if (!command_->parsed()) return std::nullopt;
    return run();
  }

 private:
  int run() {
    auto loaded = pte::readProgramFile(file_);
    if (!loaded) return fail(loaded.error().message);
    auto dump = etdump::readEtdumpFile(etdump_);
    if (!dump) return fail(dump.error().message);
    etdump::AnalysisOptions options;
    options.methods = splitList(method_);
    // A --method the program lacks is the program's, not the trace's.
    for (const auto& name : options.methods)
      if (loaded->program.findMethod(name) == nullptr)
        return fail(file_ + ": no method named '" + name + "' (--method)");
    options.scale.ns_per_tick = tickNs_;
    auto analysis = etdump::analyzeEtdump(dump.value(), loaded->program, options);
    if (!analysis) return fail(etdump_ + ": " + analysis.error().message);

    report::EtdumpSource source{std::filesystem::path(file_).filename().string(),
                                std::filesystem::path(etdump_).filename().string()};
    exec::ProfileRuleOptions rules;
    if (!link_.empty()) {
      auto link = linkFromOption(link_);
      if (!link) return fail(link.error().message);
      rules = report::ruleOptionsForLink(link.value());
    }
    std::cout << textForStdout(report::etdumpText(analysis.value(), loaded->program, source, rules));
    if (auto warning = analysis->warning(); !warning.empty())
      warn(etdump_ + ": " + warning);
    if (!json_.empty())
      if (auto s = report::writeEtdumpJson(analysis.value(), loaded->program, source, json_, rules); !s) return fail(s.error().message);
    if (!csv_.empty())
      if (auto s = report::writeEtdumpCsv(analysis.value(), csv_); !s) return fail(s.error().message);
    if (!trace_.empty())
      if (auto s = report::writeEtdumpTrace(analysis.value(), source, trace_, &loaded->program); !s) return fail(s.error().message);
    if (!summaryCsv_.empty()) {
      std::string text = report::transferSummaryCsvHeader();
      for (const auto& m : analysis->methods)
        text += report::transferSummaryCsvRows(
            exec::summarizeTransfers(etdump::toTransferProfile(m, loaded->program, source.program_name)), m.method);
      if (auto s = report::writeTextFile(summaryCsv_, text); !s) return fail(s.error().message);
    }
    return 0;
  }

  CLI::App* command_ = nullptr;
  std::string file_, etdump_, method_, link_, json_, csv_, summaryCsv_, trace_;
  double tickNs_ = 1.0;
};

}  // namespace

std::unique_ptr<EtdumpCommand> addEtdumpCommand(CLI::App& app) { return std::make_unique<EtdumpCommandImpl>(app); }

}  // namespace ptescope::cli
