#include "report/Json.h"

#include "util/Utf8.h"

namespace ptescope::report {
namespace {

nlohmann::json printable(const nlohmann::json& value, size_t& escaped) {
  if (value.is_string()) {
    const auto& s = value.get_ref<const std::string&>();
    if (isValidUtf8(s)) return value;
    ++escaped;
    return printableUtf8(s);
  }
  if (value.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : value) out.push_back(printable(item, escaped));
    return out;
  }
  if (value.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (auto it = value.begin(); it != value.end(); ++it) {
      std::string key = it.key();
      if (!isValidUtf8(key)) {
        ++escaped;
        key = printableUtf8(key);
      }
      out[key] = printable(it.value(), escaped);
    }
    return out;
  }
  return value;
}

}  // namespace

std::string jsonText(const nlohmann::json& value, int indent, size_t* escapedStrings) {
  size_t escaped = 0;
  std::string text;
  try {
    text = value.dump(indent);
  } catch (const nlohmann::json::exception&) {
    // Only a string that is not UTF-8 makes dump throw: escape, then print.
    // The replace handler is a last guard; printable() leaves nothing for it.
    text = printable(value, escaped).dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  if (escapedStrings != nullptr) *escapedStrings = escaped;
  return text;
}

std::string escapedStringsNote(size_t escapedStrings) {
  return std::to_string(escapedStrings) + (escapedStrings == 1 ? " string" : " strings") +
         " in the JSON output were not valid UTF-8 and are shown with \\xNN for each such byte";
}

}  // namespace ptescope::report
