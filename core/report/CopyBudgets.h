// CI gates on predicted copy cost (`predict --baseline`, issue 28): a
// program's copies priced on a link, against a baseline program's and
// against absolute budgets. A budget that is exceeded fails the job.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cost/CopyCost.h"

namespace ptescope::report {

struct CopyBudgets {
  std::optional<double> max_growth_percent;  // against the baseline's predicted copy time
  std::optional<uint64_t> max_copies;        // copies per call
  std::optional<uint64_t> max_copy_bytes;    // bytes copied per call
};

struct BudgetCheck {
  std::string name;     // "max-growth", "max-copies", "max-copy-bytes"
  double limit = 0;
  double value = 0;
  bool exceeded = false;
  std::string line;     // one line saying it ("predicted copy time grew 25.0% (limit 10%)")
};

struct BudgetReport {
  const cost::MethodPrediction* baseline = nullptr;  // may be null
  const cost::MethodPrediction* current = nullptr;
  std::optional<double> growth_percent;  // null without a baseline; +inf from 0 to more
  size_t copies_added = 0;               // paired by (direction, copy-free source, device)
  size_t copies_removed = 0;
  std::vector<BudgetCheck> checks;
  bool exceeded() const;
};

BudgetReport checkCopyBudgets(const cost::MethodPrediction& current, const cost::MethodPrediction* baseline,
                              const CopyBudgets& budgets);
std::string budgetText(const BudgetReport& report, const std::string& file, const std::string& baselineFile);
nlohmann::json budgetJson(const BudgetReport& report, const std::string& file, const std::string& baselineFile);

}  // namespace ptescope::report
