// What `profile --runner` and `run --runner` print beside the profile table
// (runner/ExternalRunner.h): each delegate's and kernel's time as the
// runner's ETDump measured it, and whether two runs' outputs agree; and
// what `advise --verify` prints (runner/VerifyEdits.h).
#pragma once

#include <string>
#include <vector>

#include "exec/Profiler.h"
#include "runner/ExternalRunner.h"
#include "runner/VerifyEdits.h"

#include <nlohmann/json.hpp>

namespace ptescope::report {

// Every instruction that is not a copy, with its median / min / max host
// time per execution; delegates first, then kernels, each in instruction order.
std::string instructionTimesText(const exec::TransferProfile& profile);

// "measured per run (...): copies A us -> B us (saves C us), whole run ..."
// for a program as loaded (`loaded`) and as edited (`edited`).
std::string measuredSavingText(const exec::TransferProfile& loaded, const exec::TransferProfile& edited);

// "outputs: agree bit for bit (N compared)" or one line per differing
// output ("output 1 differs in ..., max abs error ..., max rel error ...");
// `first` and `second` name the runs ("ptescope", "the runner").
std::string outputsAgreementText(const std::vector<runner::OutputDifference>& differences, size_t compared,
                                 const std::string& first, const std::string& second);

// advise --verify: per candidate the predicted saving (and the profile's,
// when one ranked them), the measured saving of the whole run and of its
// copies, and whether the outputs agree; candidates not run, with why.
std::string verifiedText(const runner::VerifiedMethod& verified, bool nameMethod = false);
nlohmann::json verifiedJson(const runner::VerifiedMethod& verified);

}  // namespace ptescope::report
