// `ptescope-cli info`: a readable summary and its JSON form.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "analysis/DelegateTransfers.h"
#include "pte/Reader.h"

namespace ptescope::report {

nlohmann::json infoJson(const pte::LoadedProgram& loaded);
std::string infoText(const pte::LoadedProgram& loaded);
// The same for a program that differs from the file it came from (after
// edits): file facts from `file`, everything else from `program`.
std::string infoText(const program::Program& program, const pte::FileInfo& file, const std::vector<std::string>& warnings);

// Transfers inside delegates as JSON: {"h2d": n, "d2h": n, "d2d": n,
// "bytes": b, "transfers": [...], "refusals": [...]}, shared by info and
// predict; and as text lines (a summary line, then one per transfer).
nlohmann::json delegateTransfersJson(const analysis::DelegateTransfers& transfers);
std::string delegateTransfersText(const analysis::DelegateTransfers& transfers, const std::string& indent);

// Printable form of compile spec bytes: the text when it is printable UTF-8
// (as target_device values are), otherwise "<N bytes>".
std::string compileSpecValueText(const std::vector<uint8_t>& value);

}  // namespace ptescope::report
