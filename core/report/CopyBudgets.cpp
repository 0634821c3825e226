#include "report/CopyBudgets.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <tuple>

#include "program/Text.h"

namespace ptescope::report {

namespace {

using Key = std::tuple<int, int32_t, std::string>;

std::map<Key, size_t> copyKeys(const cost::MethodPrediction& p) {
  std::map<Key, size_t> keys;
  for (const auto& c : p.copies) ++keys[{int(c.direction), c.canonical_source, c.device.str()}];
  return keys;
}

std::string percentText(double percent) {
  if (std::isinf(percent)) return "from none";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%+.1f%%", percent);
  return buffer;
}

nlohmann::json totalsJson(const cost::MethodPrediction& p) {
  return {{"copies", p.copyCount()},
          {"bytes", p.copyBytes()},
          {"predicted_us", p.copySeconds() * 1e6},
          {"h2d", {{"copies", p.host_to_device.copies}, {"bytes", p.host_to_device.bytes}, {"predicted_us", p.host_to_device.seconds * 1e6}}},
          {"d2h", {{"copies", p.device_to_host.copies}, {"bytes", p.device_to_host.bytes}, {"predicted_us", p.device_to_host.seconds * 1e6}}},
          {"inside_delegates", {{"copies", p.inside_delegates.copies}, {"bytes", p.inside_delegates.bytes},
                                {"predicted_us", p.inside_delegates.seconds * 1e6}}}};
}

std::string totalsText(const cost::MethodPrediction& p) {
  if (p.copyCount() == 0) return "no copies per call";
  return program::countText(p.copyCount(), "copy", "copies") +
         (p.inside_delegates.copies ? " (" + std::to_string(p.inside_delegates.copies) + " inside delegates)" : "") + ", " +
         program::bytesText(int64_t(p.copyBytes())) + ", " +
         program::durationText(p.copySeconds()) + " per call";
}

}  // namespace

bool BudgetReport::exceeded() const {
  for (const auto& c : checks)
    if (c.exceeded) return true;
  return false;
}

BudgetReport checkCopyBudgets(const cost::MethodPrediction& current, const cost::MethodPrediction* baseline,
                              const CopyBudgets& budgets) {
  BudgetReport report;
  report.current = &current;
  report.baseline = baseline;
  if (baseline != nullptr) {
    const double before = baseline->copySeconds(), after = current.copySeconds();
    report.growth_percent = before > 0 ? (after - before) / before * 100.0
                            : after > 0 ? std::numeric_limits<double>::infinity()
                                        : 0.0;
    auto a = copyKeys(*baseline), b = copyKeys(current);
    for (const auto& [key, n] : b) report.copies_added += n > a[key] ? n - a[key] : 0;
    for (const auto& [key, n] : a) report.copies_removed += n > b[key] ? n - b[key] : 0;
  }
  if (budgets.max_growth_percent && report.growth_percent) {
    BudgetCheck c{"max-growth", *budgets.max_growth_percent, *report.growth_percent,
                  *report.growth_percent > *budgets.max_growth_percent, ""};
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g%%", c.limit);
    c.line = "predicted copy time per call changed " + percentText(c.value) + " against the baseline (" +
             program::durationText(baseline->copySeconds()) + " -> " + program::durationText(current.copySeconds()) +
             "; limit " + limit + ")";
    report.checks.push_back(std::move(c));
  }
  if (budgets.max_copies) {
    BudgetCheck c{"max-copies", double(*budgets.max_copies), double(current.copyCount()),
                  current.copyCount() > *budgets.max_copies, ""};
    c.line = std::to_string(current.copyCount()) + " copies per call (limit " + std::to_string(*budgets.max_copies) + ")";
    report.checks.push_back(std::move(c));
  }
  if (budgets.max_copy_bytes) {
    const uint64_t bytes = current.copyBytes();
    BudgetCheck c{"max-copy-bytes", double(*budgets.max_copy_bytes), double(bytes), bytes > *budgets.max_copy_bytes, ""};
    c.line = program::bytesText(int64_t(bytes)) + " copied per call (limit " + program::bytesText(int64_t(*budgets.max_copy_bytes)) + ")";
    report.checks.push_back(std::move(c));
  }
  return report;
}

std::string budgetText(const BudgetReport& report, const std::string& file, const std::string& baselineFile) {
  std::string text = "method '" + report.current->method + "' on " + report.current->link_label + "\n";
  if (report.baseline) {
    text += "  baseline " + baselineFile + ": " + totalsText(*report.baseline) + "\n";
  }
  text += "  current  " + file + ": " + totalsText(*report.current) + "\n";
  if (report.baseline)
    text += "  copies added " + std::to_string(report.copies_added) + ", removed " + std::to_string(report.copies_removed) +
            ", predicted copy time " + percentText(*report.growth_percent) + "\n";
  for (const auto& c : report.checks) text += std::string(c.exceeded ? "budget exceeded: " : "within budget: ") + c.line + "\n";
  return text;
}

nlohmann::json budgetJson(const BudgetReport& report, const std::string& file, const std::string& baselineFile) {
  nlohmann::json j;
  j["method"] = report.current->method;
  j["link"] = report.current->link_name;
  j["current"] = totalsJson(*report.current);
  j["current"]["file"] = file;
  if (report.baseline) {
    j["baseline"] = totalsJson(*report.baseline);
    j["baseline"]["file"] = baselineFile;
    j["growth_percent"] = std::isinf(*report.growth_percent) ? nlohmann::json(nullptr) : nlohmann::json(*report.growth_percent);
    j["copies_added"] = report.copies_added;
    j["copies_removed"] = report.copies_removed;
  }
  auto checks = nlohmann::json::array();
  for (const auto& c : report.checks)
    checks.push_back({{"budget", c.name}, {"limit", c.limit}, {"value", std::isinf(c.value) ? nlohmann::json(nullptr) : nlohmann::json(c.value)},
                      {"exceeded", c.exceeded}, {"message", c.line}});
  j["budgets"] = std::move(checks);
  j["exceeded"] = report.exceeded();
  return j;
}

}  // namespace ptescope::report
