// The one place where ptescope turns JSON into text. Every JSON writer (the
// CLI's --json output, profile files, pass reports, the GUI's exports) calls
// report::jsonText instead of nlohmann::json::dump, which throws on a string
// that is not valid UTF-8 (type_error.316). Names read from a program are
// already printable (util/Utf8.h); anything else (a path, text from a file)
// that is not valid UTF-8 is escaped here the same way, \xNN per bad byte.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace ptescope::report {

// `value` as JSON text (indented by `indent` spaces, one line when
// negative). Never throws. When `escapedStrings` is given it receives how
// many strings (or object keys) had to be escaped.
std::string jsonText(const nlohmann::json& value, int indent = 2, size_t* escapedStrings = nullptr);

// The one line a command prints (once) on stderr when jsonText escaped
// anything.
std::string escapedStringsNote(size_t escapedStrings);

}  // namespace ptescope::report
