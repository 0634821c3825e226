// `info` on a .ptd data file (FT01): what it holds, entry by entry (key,
// size, place in the file and its alignment, the tensor layout when the
// entry has one), as text and JSON.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "program/Program.h"

namespace ptescope::report {

// `fileBase` / `fileSize`: the mapped file the entries' bytes point into
// (for their offsets); entries outside it show no offset.
nlohmann::json dataInfoJson(const program::ExternalData& data, const uint8_t* fileBase, size_t fileSize);
std::string dataInfoText(const program::ExternalData& data, const uint8_t* fileBase, size_t fileSize);

}  // namespace ptescope::report
