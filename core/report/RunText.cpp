#include "report/RunText.h"

#include "program/Text.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "exec/Kernels.h"
#include "exec/kernels/KernelSupport.h"

namespace ptescope::report {

std::string formatNumber(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.7g", value);
  return buffer;
}

std::string outputTypeText(const exec::RunOutput& output) {
  if (output.tensor) return program::tensorTypeText(output.tensor->dtype, output.tensor->sizes);
  return program::valueKindName(static_cast<program::ValueKind>(output.literal.index()));
}

std::string literalText(const exec::RunOutput& output) {
  if (output.tensor) return "";
  if (const auto* v = std::get_if<program::IntValue>(&output.literal)) return std::to_string(v->value);
  if (const auto* v = std::get_if<program::DoubleValue>(&output.literal)) return formatNumber(v->value);
  if (const auto* v = std::get_if<program::BoolValue>(&output.literal)) return v->value ? "true" : "false";
  if (const auto* v = std::get_if<program::StringValue>(&output.literal)) {
    // Quoted, with quotes, backslashes and line breaks escaped: one line.
    std::string text = "\"";
    for (char c : v->value.value_or("")) {
      if (c == '"' || c == '\\') text += '\\';
      if (c == '\n') text += "\\n";
      else if (c == '\r') text += "\\r";
      else if (c == '\t') text += "\\t";
      else text += c;
    }
    return text + "\"";
  }
  return "";
}

std::string outputDescription(const exec::RunOutput& output) {
  const std::string value = literalText(output);
  return value.empty() ? outputTypeText(output) : outputTypeText(output) + " " + value;
}

std::string statsText(const exec::RunOutput& output) {
  if (!output.tensor) return "";
  if (!output.readable) return "(dtype not decoded)";
  const auto& s = output.stats;
  if (s.count == 0) return "(empty)";
  std::string text;
  if (s.count > s.nan_count)
    text = "min " + formatNumber(s.min) + "  max " + formatNumber(s.max) + "  mean " + formatNumber(s.mean);
  if (s.nan_count) text += std::string(text.empty() ? "" : "  ") + "NaN " + std::to_string(s.nan_count);
  return text;
}

std::string firstValuesText(const exec::RunOutput& output, size_t count) {
  if (!output.tensor) return "";
  std::string text;
  for (size_t i = 0; i < output.first_values.size() && i < count; ++i)
    text += (i ? ", " : "") + formatNumber(output.first_values[i]);
  const int64_t numel = exec::kernels::numelOf(output.tensor->sizes);
  if (numel > int64_t(std::min(count, output.first_values.size()))) text += ", …";
  return text;
}

std::string runText(const exec::RunOnceResult& result, const std::string& programName) {
  std::string text = programName + " · method '" + result.method + "' · " + result.runtime +
                     (result.emulated ? " — no GPU used: device memory is emulated in host memory" : "") + "\n";
  text += program::countText(result.run(), "instruction") + " run, " + std::to_string(result.not_executed.size()) +
          " not executed\n";
  text += "outputs:\n";
  for (const auto& out : result.outputs) {
    text += "  " + std::to_string(out.position) + "  %" + std::to_string(out.value) + "  " + outputDescription(out);
    if (auto stats = statsText(out); !stats.empty()) text += "  " + stats;
    text += "\n";
    if (auto first = firstValuesText(out); !first.empty()) text += "       [" + first + "]\n";
    text += "       " + exec::exactnessText(out.exactness) + "\n";
  }
  if (!result.not_executed.empty()) {
    text += "not executed (their outputs keep earlier contents):\n";
    for (const auto& step : result.not_executed)
      text += "  " + std::to_string(step.instruction) + "  " + step.label + ": " + step.reason + "\n";
  }
  return text;
}

nlohmann::json runJson(const exec::RunOnceResult& result, const std::string& programName) {
  nlohmann::json json{{"program", programName},
                      {"method", result.method},
                      {"runtime", result.runtime},
                      {"emulated", result.emulated},
                      {"instructions", result.instructions}, {"instructions_run", result.run()}};
  auto& notExecuted = json["not_executed"] = nlohmann::json::array();
  for (const auto& step : result.not_executed)
    notExecuted.push_back({{"instruction", step.instruction}, {"label", step.label}, {"reason", step.reason}});
  auto& outputs = json["outputs"] = nlohmann::json::array();
  for (const auto& out : result.outputs) {
    nlohmann::json o{{"position", out.position}, {"value", out.value}, {"type", outputDescription(out)}};
    if (out.tensor) {
      o["dtype"] = program::scalarTypeShortName(out.tensor->dtype);
      o["sizes"] = out.tensor->sizes;
      o["count"] = out.stats.count;
      o["nan_count"] = out.stats.nan_count;
      if (out.readable && out.stats.count > out.stats.nan_count) {
        o["min"] = out.stats.min;
        o["max"] = out.stats.max;
        o["mean"] = out.stats.mean;
      }
      o["first_values"] = out.first_values;
    }
    o["bit_exact"] = out.exactness.proven();
    o["bit_exact_text"] = exec::exactnessText(out.exactness);
    auto& unproven = o["not_proven"] = nlohmann::json::array();
    for (const auto& u : out.exactness.unproven)
      unproven.push_back({{"instruction", u.instruction}, {"kernel", u.kernel}, {"dtypes", u.dtypes}, {"why", u.why}});
    outputs.push_back(std::move(o));
  }
  return json;
}

}  // namespace ptescope::report
