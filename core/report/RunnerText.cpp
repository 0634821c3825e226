#include "report/RunnerText.h"

#include <cmath>
#include <cstdio>

#include "program/Text.h"

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
    out += "  " + padded("instr", 6, true) + " " + padded("median us", 10, true) + " " + padded("min us", 10, true) + " " +
           padded("max us", 10, true) + "  what\n" + rows;
  }
  return out;
}

std::string measuredSavingText(const exec::TransferProfile& loaded, const exec::TransferProfile& edited) {
  auto change = [](double before, double after) {
    const double saved = before - after;
    return microsText(before) + " us -> " + microsText(after) + " us (" + (saved >= 0 ? "saves " : "adds ") +
           microsText(std::abs(saved)) + " us)";
  };
  auto marked = [](const exec::TransferProfile& p) {
    for (const auto& c : p.copies)
      if (!c.time_covers.empty()) return true;
    return false;
  };
  std::string out = "measured per run (" + edited.runtime + ", medians): copies " +
                    change(loaded.copy_seconds, edited.copy_seconds) + ", whole run " +
                    change(loaded.run_seconds.median, edited.run_seconds.median) + "\n";
  if (marked(loaded) || marked(edited))
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
