#include "report/RunnerText.h"

#include <cmath>
#include <cstdio>

#include "program/Text.h"
#include "report/AdviceWriters.h"

namespace ptescope::report {

using namespace program::text;

std::string instructionTimesText(const exec::TransferProfile& profile) {
  std::string out;
  for (bool delegates : {true, false}) {
    std::string rows;
    for (const auto& i : profile.instructions) {
      if (i.is_copy || !i.executed) continue;
      if ((i.kind == program::InstructionKind::DelegateCall) != delegates) continue;
      if (!delegates && i.kind != program::InstructionKind::KernelCall) continue;
      rows += "  " + padded(std::to_string(i.instruction), 6, true) + " " + padded(microsText(i.host_seconds.median), 10, true) +
              " " + padded(microsText(i.host_seconds.min), 10, true) + " " + padded(microsText(i.host_seconds.max), 10, true) +
              "  " + i.label + "\n";
    }
    if (rows.empty()) continue;
    out += std::string("\n") + (delegates ? "delegates" : "kernels") + " (" + profile.runtime + ", per execution):\n";
    out += "  " + padded("instr", 6, true) + " " + padded("median µs", 10, true) + " " + padded("min µs", 10, true) + " " +
           padded("max µs", 10, true) + "  what\n" + rows;
  }
  return out;
}

std::string measuredSavingText(const exec::TransferProfile& loaded, const exec::TransferProfile& edited) {
  auto change = [](double before, double after) {
    const double saved = before - after;
    return durationText(before) + " -> " + durationText(after) + " (" + (saved >= 0 ? "saves " : "adds ") +
           durationText(std::abs(saved)) + ")";
  };
  std::string out = "measured per run (" + edited.runtime + ", medians): copies " +
                    change(loaded.copy_seconds, edited.copy_seconds) + ", whole run " +
                    change(loaded.run_seconds.median, edited.run_seconds.median) + "\n";
  if (runner::hasHostClockMarks(loaded) || runner::hasHostClockMarks(edited))
    out += "  copy times marked * hold a delegate's queued GPU work; the whole run's change is the saving to trust\n";
  return out;
}

std::string outputsAgreementText(const std::vector<runner::OutputDifference>& differences, size_t compared,
                                 const std::string& first, const std::string& second) {
  if (differences.empty())
    return "outputs: " + first + " and " + second + " agree bit for bit (" + std::to_string(compared) + " output(s))\n";
  std::string out = "outputs: " + first + " and " + second + " differ in " + std::to_string(differences.size()) + " of " +
                    std::to_string(compared) + " output(s):\n";
  for (const auto& d : differences) {
    out += "  output " + std::to_string(d.position) + " " + d.what;
    if (d.differing > 0) {
      char errors[96];
      std::snprintf(errors, sizeof errors, "; max abs error %.6g, max rel error %.6g", d.max_abs_error, d.max_rel_error);
      out += errors;
    }
    out += "\n";
  }
  return out;
}

}  // namespace ptescope::report

namespace ptescope::report {

namespace {

std::string agreementCell(const runner::VerifiedCandidate& c) {
  if (c.differences.empty()) return "agree";
  return "differ " + std::to_string(c.differences.size()) + "/" + std::to_string(c.outputs_compared);
}

}  // namespace

std::string verifiedText(const runner::VerifiedMethod& v, bool nameMethod) {
  std::string out = "\nmethod '" + v.method + "' verified on the runner (" + v.runner_source + "): each candidate run as " +
                    "loaded, then as edited, " + program::countText(v.iterations, "execution") + " each; medians per run\n";
  if (v.candidates.empty()) return out + "  no candidate to verify\n";
  std::string header = std::string("  savings per run: predicted (the advisor's") +
                       (v.ranked_by_profile ? "), profile (the profile's copy times" : "") +
                       "), measured (the whole run's median) and copies (the copies' own times); - is slower\n";
  header += "  " + padded("rank", 4, true) + " " + padded("predicted", 10, true) + " ";
  if (v.ranked_by_profile) header += padded("profile", 10, true) + " ";
  header += padded("measured", 10, true) + " " + padded("copies", 11, true) + "  " + padded("run as loaded -> edited", 25) +
            padded("outputs", 11) + "edits\n";
  std::string rows, notRun, differences;
  bool marked = false;
  for (const auto& c : v.candidates) {
    if (!c.not_run.empty()) {
      notRun += "  " + padded(std::to_string(c.rank), 4, true) + "  " + advise::editsText(c.edits, nameMethod) + ": " + c.not_run + "\n";
      continue;
    }
    marked = marked || c.copy_times_marked;
    rows += "  " + padded(std::to_string(c.rank), 4, true) + " " + padded(durationText(c.predicted_saving_us / 1e6), 10, true) + " ";
    if (v.ranked_by_profile) rows += padded(c.profile_saving_us ? durationText(*c.profile_saving_us / 1e6) : "-", 10, true) + " ";
    rows += padded(signedDurationText(c.run_saving_us / 1e6), 10, true) + " " +
            padded(signedDurationText(c.copy_saving_us / 1e6) + (c.copy_times_marked ? "*" : " "), 11, true) + "  " +
            padded(durationText(c.loaded_run_us / 1e6) + " -> " + durationText(c.edited_run_us / 1e6), 25) +
            padded(agreementCell(c), 11) + advise::editsText(c.edits, nameMethod) + "\n";
    if (!c.differences.empty()) {
      std::string block = outputsAgreementText(c.differences, c.outputs_compared, "as loaded", "as edited");
      for (size_t at = block.find("\n  "); at != std::string::npos; at = block.find("\n  ", at + 3)) block.insert(at + 1, "  ");
      differences += "  candidate " + std::to_string(c.rank) + ", " + block;
    }
  }
  if (!rows.empty()) out += header + rows;
  if (!notRun.empty()) out += "  not run (executor_runner cannot be the caller the edits need):\n" + notRun;
  if (marked) out += "  * copy times that hold a delegate's queued GPU work; the whole run's saving is the one to trust\n";
  out += differences;
  if (v.verified() == 0) out += "  no candidate could run on the runner\n";
  return out;
}

nlohmann::json verifiedJson(const runner::VerifiedMethod& v) {
  nlohmann::json candidates = nlohmann::json::array();
  for (const auto& c : v.candidates) {
    nlohmann::json j{{"rank", c.rank}, {"edits", candidateEditsJson(c.edits)}, {"predicted_saving_us", program::tidyMicros(c.predicted_saving_us)}};
    if (c.profile_saving_us) j["profile_saving_us"] = program::tidyMicros(*c.profile_saving_us);
    if (!c.not_run.empty()) {
      j["not_run"] = c.not_run;
      candidates.push_back(std::move(j));
      continue;
    }
    nlohmann::json differences = nlohmann::json::array();
    for (const auto& d : c.differences)
      differences.push_back({{"output", d.position},
                             {"what", d.what},
                             {"differing_elements", d.differing},
                             {"max_abs_error", d.max_abs_error},
                             {"max_rel_error", d.max_rel_error}});
    j["measured_run_saving_us"] = program::tidyMicros(c.run_saving_us);
    j["measured_copy_saving_us"] = program::tidyMicros(c.copy_saving_us);
    j["run_as_loaded_us"] = c.loaded_run_us;
    j["run_as_edited_us"] = c.edited_run_us;
    j["copy_times_hold_delegate_work"] = c.copy_times_marked;
    j["outputs_compared"] = c.outputs_compared;
    j["outputs_agree"] = c.differences.empty();
    j["output_differences"] = differences;
    candidates.push_back(std::move(j));
  }
  return {{"method", v.method},
          {"runner", v.runner_source},
          {"executions_per_run", v.iterations},
          {"ranked_by_profile", v.ranked_by_profile},
          {"verified", v.verified()},
          {"candidates", candidates}};
}

}  // namespace ptescope::report
