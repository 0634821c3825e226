#include "AdviseCommand.h"

#include "CliCommon.h"
#include "PredictCommand.h"
#include "RunnerFlags.h"

#include <filesystem>
#include <iostream>

#include "advise/Advise.h"
#include "advise/MeasuredAdvice.h"
#include "etdump/EtdumpProfile.h"
#include "exec/MemoryBudget.h"
#include "passes/Pipeline.h"
#include "pte/Reader.h"
#include "pte/DataWriter.h"
#include "pte/Writer.h"
#include "program/Text.h"
#include "report/AdviceWriters.h"
#include "report/ProfileWriters.h"
#include "report/RunnerText.h"
#include "runner/VerifyEdits.h"

namespace ptescope::cli {
namespace {

class AdviseCommandImpl : public AdviseCommand {
 public:
  explicit AdviseCommandImpl(CLI::App& app) {
    advise_ = app.add_subcommand(
        "advise",
        "Search the pass options and delegate devices for the edits that cut the predicted copy time the most, "
        "valid for the runtime (pipeline accepts, no lint error, no runtime refusal, device memory fits)");
    advise_->add_option("FILE", file_, "Program (.pte)")->required();
    advise_->add_option("--link", link_, "Price copies on this link: " + linkOptionHelp());
    advise_->add_flag("--pinned", pinned_, "Predict with pinned host arenas (default: pageable)");
    advise_->add_option("--method", method_, "Advise this method only (default: every method)");
    advise_->add_option("--devices", devices_, "Also offer cuda:0..N-1 as target devices (default: only the devices "
                                                "the program's delegates already use)")
        ->check(CLI::Range(0, 128));
    advise_->add_option("--device-memory", deviceMemory_,
                        "Most device memory per device a candidate may plan (planned buffers, device tensors and "
                        "constants, delegate weights; bytes, or 512M, 80G, ...); default: unlimited");
    advise_->add_option("--top", top_, "Candidates listed per method (0: all)")->check(CLI::Range(0, 1000000))
        ->capture_default_str();
    advise_->add_flag("--explain", explain_, "Also list the obvious edits that were rejected, and why");
    advise_->add_option("--cuda-graph", cudaGraph_, kCudaGraphHelp);
    advise_->add_flag("--json", json_, "Print the advice as JSON");
    advise_->add_option("--apply", apply_,
                        "Write the program with candidate RANK applied (with -o; what propagate with the same flags "
                        "writes) and print the equivalent propagate command line");
    advise_->add_option("-o,--output", output_, "Output program (.pte) for --apply");
    auto* profile = advise_->add_option(
        "--profile", profile_,
        "A profile of this program as loaded (profile --json, or saved by the app): also rank the candidates by the "
        "measured time of the copies each removes, beside the predicted saving");
    auto* etdump = advise_->add_option("--etdump", etdump_,
                                       "An ETDump the runtime wrote running this program: rank as with --profile "
                                       "(every traced method; its default method attribution)");
    profile->excludes(etdump);
    advise_->add_option("--verify", verify_,
                        "Run the top K candidates on your runner (--runner), each as loaded and as edited, and print "
                        "the measured end-to-end saving of each beside the predicted one, with the outputs compared")
        ->check(CLI::Range(1, 1000));
    runnerFlags_.addTo(advise_, "with --verify, the runner the candidates run on");
    advise_->add_option("--iterations", iterations_, "With --verify: executions per runner run")
        ->check(CLI::Range(1, 1000000))->capture_default_str();
    advise_->add_option("--inputs", inputs_,
                        "With --verify: folder of input files, one per method input i: i.npy, input_i.npy, i.bin or "
                        "i.raw (default: random values, seed 0)");
    advise_->add_option("--max-runs", maxRuns_, "Search budget: most pipeline runs per method")
        ->check(CLI::Range(1, 100000000))->capture_default_str();
    advise_->add_option("--max-seconds", maxSeconds_, "Search budget: most seconds per method")
        ->check(CLI::Range(0.001, 1e6))->capture_default_str();
  }

  std::optional<int> runIfParsed() override {
    if (!advise_->parsed()) return std::nullopt;
    return run();
  }

 private:
  int run() {
    if (apply_ && output_.empty()) return fail("--apply needs -o OUT.pte (where to write the program)");
    if (!apply_ && !output_.empty()) return fail("-o is only for --apply RANK");
    if (apply_ && *apply_ < 1) return fail("--apply takes a rank of 1 or more");
    if (verify_ && apply_) return fail("--verify and --apply are separate runs: verify first, then apply the rank you chose");
    for (const auto* name : {"--runner", "--timeout", "--iterations", "--inputs"})
      if (!verify_ && advise_->count(name) > 0) return fail(std::string(name) + " is for --verify K");
    advise::AdviseOptions options;
    auto link = linkFromOption(link_);
    if (!link) return fail(link.error().message);
    options.link = link.value();
    options.host_memory = pinned_ ? exec::HostMemoryKind::Pinned : exec::HostMemoryKind::Pageable;
    options.method = method_;
    options.devices = devices_;
    if (!deviceMemory_.empty()) {
      auto bytes = exec::parseMemorySize(deviceMemory_);
      if (!bytes || *bytes == 0)
        return fail("--device-memory: '" + deviceMemory_ + "' is not a size (bytes, or 512M, 80G, ...)");
      options.device_memory = *bytes;
    }
    // --verify walks past candidates the runner cannot run: search them all,
    // print the --top cut.
    options.top = verify_ ? 0 : top_;
    options.explain = explain_;
    options.max_runs = maxRuns_;
    options.max_seconds = maxSeconds_;

    auto loaded = pte::readProgramFile(file_);
    if (!loaded) return fail(loaded.error().message);
    noteEscapedNames(loaded.value());
    const program::Program& program = loaded->program;
    if (apply_ && method_.empty() && program.methods().size() != 1)
      return fail("--apply: the program has " + std::to_string(program.methods().size()) +
                  " methods; name the one the rank belongs to with --method");

    auto settings = analysis::cudaGraphSetting(cudaGraph_, program);
    if (!settings) return fail(settings.error().message);
    options.run_settings = settings.value();
    if (apply_ && (!profile_.empty() || !etdump_.empty()))
      return fail("--apply takes the predicted rank: run it without --profile / --etdump");
    // Read the measurements first: a bad file should not cost a search.
    std::vector<exec::TransferProfile> measured;
    if (auto read = readMeasurements(program); !read) return fail(read.error().message);
    else measured = std::move(read.value());

    std::string runnerFile;
    if (verify_) {
      auto path = runnerFlags_.path();
      if (!path) return fail(path.error().message);
      runnerFile = path.value();
    }

    auto advice = advise::advise(program, options);
    if (!advice) return fail(file_ + ": " + advice.error().message);
    if (apply_) return runApply(program, advice.value());
    const std::string measuredName = std::filesystem::path(profile_.empty() ? etdump_ : profile_).filename().string();
    std::vector<advise::MeasuredMethodAdvice> ranked;
    for (const auto& profile : measured) {
      if (!method_.empty() && profile.method != method_) continue;
      auto r = advise::rankByMeasurement(program, advice.value(), profile, options);
      if (!r) return fail(file_ + ": " + (profile_.empty() ? etdump_ : profile_) + ": " + r.error().message);
      ranked.push_back(std::move(r.value()));
    }
    std::vector<runner::VerifiedMethod> verified;
    if (verify_) {
      auto v = verifyCandidates(program, advice.value(), ranked, runnerFile);
      if (!v) return runnerFailed(v.error());
      verified = std::move(v.value());
    }
    // What is printed: the --top cut of each list.
    advise::Advice shown = advice.value();
    for (auto& m : shown.methods) cutToTop(m.candidates);
    for (auto& r : ranked) cutToTop(r.candidates);
    if (json_) {
      nlohmann::json j = report::adviceJson(shown);
      if (!measured.empty()) {
        j["measured"] = nlohmann::json::array();
        for (const auto& r : ranked) j["measured"].push_back(report::measuredAdviceJson(r, measuredName));
      }
      if (verify_) {
        j["verified"] = nlohmann::json::array();
        for (const auto& v : verified) j["verified"].push_back(report::verifiedJson(v));
      }
      std::cout << jsonForStdout(j) << "\n";
    } else {
      const bool nameMethod = shown.program_methods > 1;
      std::cout << textForStdout(report::adviceText(shown));
      for (const auto& r : ranked) std::cout << textForStdout(report::measuredAdviceText(r, measuredName, nameMethod));
      for (const auto& v : verified) std::cout << textForStdout(report::verifiedText(v, nameMethod));
    }
    // As profile --compare-edits: outputs that differ are a finding, exit 1.
    for (const auto& v : verified)
      for (const auto& c : v.candidates)
        if (!c.differences.empty()) return 1;
    return 0;
  }

  template <typename T>
  void cutToTop(std::vector<T>& candidates) const {
    if (top_ > 0 && candidates.size() > top_) candidates.resize(top_);
  }

  // --verify K: each method's first K candidates the runner can run (in the
  // measured order where a profile ranked the method), as loaded vs as edited.
  Result<std::vector<runner::VerifiedMethod>> verifyCandidates(const program::Program& program,
                                                               const advise::Advice& advice,
                                                               const std::vector<advise::MeasuredMethodAdvice>& ranked,
                                                               const std::string& runnerFile) {
    auto target = runner::runnerProgramFile(program, file_);
    if (!target) return target.error();
    runner::RunnerOptions options;
    options.runner = runnerFile;
    options.iterations = iterations_;
    options.inputs.directory = inputs_;
    options.timeout_seconds = runnerFlags_.timeoutSeconds();
    options.cancel_requested = [] { return interrupted(); };
    InterruptGuard guard;
    std::vector<runner::VerifiedMethod> out;
    for (const auto& method : advice.methods) {
      const advise::MeasuredMethodAdvice* measured = nullptr;
      for (const auto& r : ranked)
        if (r.method == method.name) measured = &r;
      auto v = runner::verifyCandidates(program, target.value(), method, measured, *verify_, options);
      if (!v) return v.error();
      out.push_back(std::move(v.value()));
    }
    return out;
  }

  // The profiles of --profile (one method) or --etdump (every traced method).
  Result<std::vector<exec::TransferProfile>> readMeasurements(const program::Program& program) {
    std::vector<exec::TransferProfile> out;
    if (!profile_.empty()) {
      auto read = report::readProfileJson(profile_);
      if (!read) return read.error();
      if (program.findMethod(read->method) == nullptr)
        return makeError(profile_ + ": a profile of method '" + read->method + "', which " + file_ + " does not have");
      if (!method_.empty() && read->method != method_)
        return makeError(profile_ + ": a profile of method '" + read->method + "', not of --method " + method_);
      out.push_back(std::move(read.value()));
    }
    if (!etdump_.empty()) {
      auto dump = etdump::readEtdumpFile(etdump_);
      if (!dump) return dump.error();
      auto analysis = etdump::analyzeEtdump(dump.value(), program);
      if (!analysis) return makeError(etdump_ + ": " + analysis.error().message);
      for (auto& p : etdump::toTransferProfiles(analysis.value(), program, file_)) out.push_back(std::move(p));
    }
    return out;
  }

  // Applies the candidate through the one edit model, exactly as propagate
  // applies its flags: edits -> pipeline options -> runPipeline -> writer.
  int runApply(const program::Program& program, const advise::Advice& advice) {
    if (advice.methods.empty()) return fail(file_ + ": the program has no method to apply a candidate to");
    const advise::MethodAdvice& method = advice.methods.front();
    if (*apply_ > method.candidates.size())
      return fail("--apply " + std::to_string(*apply_) + ": method '" + method.name + "' has " +
                  (method.candidates.empty() ? std::string("no candidate (the file's options are already best)")
                                             : std::to_string(method.candidates.size()) + " listed candidate" +
                                                   (method.candidates.size() == 1 ? "" : "s") +
                                                   (method.distinct_with_saving > method.candidates.size()
                                                        ? " of " + std::to_string(method.distinct_with_saving) +
                                                              " (--top 0 lists them all)"
                                                        : std::string())));
    const advise::Candidate& candidate = method.candidates[*apply_ - 1];
    auto edits = advise::programEdits(program, candidate.edits);
    if (!edits) return fail(file_ + ": " + edits.error().message);
    auto result = passes::runEdits(program, edits.value());
    if (!result) return fail(file_ + ": " + result.error().message);
    pte::WriteOptions writeOptions;
    writeOptions.input_path = file_;
    auto written = pte::writeProgramFile(result->program, output_, writeOptions);
    if (!written) return fail(written.error().message);
    for (const auto& note : pte::carryDataFiles(result->program, output_)) say(note);
    const std::string command = advise::propagateCommand(file_, output_, candidate.edits);
    if (json_) {
      nlohmann::json j{{"method", method.name},
                       {"rank", candidate.rank},
                       {"edits", report::candidateEditsJson(candidate.edits)},
                       {"predicted_saving_us", candidate.predicted_saving_us},
                       {"output", output_},
                       {"propagate_command", command}};
      std::cout << jsonForStdout(j) << "\n";
    } else {
      std::cout << textForStdout("applied candidate " + std::to_string(candidate.rank) + " of method '" + method.name +
                                 "': " + advise::editsText(candidate.edits)) << "\n"
                << "predicted saving: " << program::durationText(candidate.predicted_saving_us / 1e6) << " per call\n"
                << "the same as: " << command << "\n";
      say("wrote " + output_);
    }
    return 0;
  }

  CLI::App* advise_ = nullptr;
  RunnerFlags runnerFlags_;
  std::optional<size_t> verify_;
  size_t iterations_ = 20;
  std::string inputs_;
  std::string file_, link_, method_, deviceMemory_, output_, cudaGraph_, profile_, etdump_;
  int devices_ = 0;
  size_t top_ = 5;
  std::optional<size_t> apply_;
  size_t maxRuns_ = 2000;
  double maxSeconds_ = 5.0;
  bool pinned_ = false, explain_ = false, json_ = false;
};

}  // namespace

std::unique_ptr<AdviseCommand> addAdviseCommand(CLI::App& app) { return std::make_unique<AdviseCommandImpl>(app); }

}  // namespace ptescope::cli
