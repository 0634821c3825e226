// The app's memory budget for runs (Profile Transfers and Run Once): one
// setting, kept across sessions. 0 (the default) means exec's default
// budget, half of the host memory available (exec::defaultHostMemoryBudget,
// the same function the CLI uses); a refusal over it names the setting as
// the way to raise it, as the CLI names --max-memory.
//
//   exec::RunOnceOptions options;
//   options.max_memory = memoryBudget();
//   options.budget_setting = memoryBudgetSettingName();
#pragma once

#include <QString>

#include <cstdint>
#include <string>

namespace ptescope::ui {

// Bytes, 0 for the default budget (QSettings "run/memoryBudget").
uint64_t memoryBudget();
void setMemoryBudget(uint64_t bytes);
// Where it is set, as the refusal's "raise it with ..." says it.
std::string memoryBudgetSettingName();
// "9.8 GiB, half of the 19.6 GiB available now" (the default's figure).
QString defaultMemoryBudgetText();
// "8G", "512M", "1.5GiB", bytes → bytes; empty text → 0 (the default);
// false for anything else.
bool parseMemoryBudget(const QString& text, uint64_t& bytes);
// The setting as the field shows it ("8G", "512M", bytes), empty for the default.
QString memoryBudgetFieldText(uint64_t bytes);

}  // namespace ptescope::ui
