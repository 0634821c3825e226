#include "report/WriterSupport.h"

#include <cstdint>
#include <span>

#include "program/Text.h"
#include "report/Json.h"
#include "util/MappedFile.h"

namespace ptescope::report {

nlohmann::json timingJson(const exec::TimingStats& stats) {
  using program::toMicros;
  return {{"min_us", toMicros(stats.min)}, {"median_us", toMicros(stats.median)}, {"max_us", toMicros(stats.max)}};
}

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::string jsonFileText(const nlohmann::json& value, int indent) { return jsonText(value, indent) + "\n"; }

Status writeTextFile(const std::string& path, const std::string& text) {
  auto status = writeFileAtomically(path, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  // Its messages name the path already ("x.html: cannot create a file in ...").
  if (!status) return status.error();
  return Ok{};
}

}  // namespace ptescope::report
