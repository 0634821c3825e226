// `ptescope-cli info`: a readable summary and its JSON form.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "pte/Reader.h"

namespace ptescope::report {

nlohmann::json infoJson(const pte::LoadedProgram& loaded);
std::string infoText(const pte::LoadedProgram& loaded);

// Printable form of compile spec bytes: the text when it is printable UTF-8
// (as target_device values are), otherwise "<N bytes>".
std::string compileSpecValueText(const std::vector<uint8_t>& value);

}  // namespace ptescope::report
