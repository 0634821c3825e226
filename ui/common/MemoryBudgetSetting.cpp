#include "ui/common/MemoryBudgetSetting.h"

#include <QCoreApplication>
#include <QSettings>

#include "exec/MemoryBudget.h"
#include "util/HostMemory.h"

namespace ptescope::ui {

namespace {
constexpr const char* kKey = "run/memoryBudget";
}

uint64_t memoryBudget() { return QSettings().value(kKey, 0).toULongLong(); }

void setMemoryBudget(uint64_t bytes) {
  QSettings settings;
  if (bytes == 0)
    settings.remove(kKey);
  else
    settings.setValue(kKey, qulonglong(bytes));
}

std::string memoryBudgetSettingName() {
  return QCoreApplication::translate("MemoryBudget", "the Memory budget field of Profile > Profile Transfers (F5), "
                                                     "which Run Once uses too")
      .toStdString();
}

QString defaultMemoryBudgetText() {
  const uint64_t available = hostAvailableMemoryBytes();
  if (available == 0) return QCoreApplication::translate("MemoryBudget", "what is available (unknown here)");
  return QCoreApplication::translate("MemoryBudget", "%1, half of the %2 available now")
      .arg(QString::fromStdString(exec::memoryText(exec::defaultHostMemoryBudget(available))),
           QString::fromStdString(exec::memoryText(available)));
}

bool parseMemoryBudget(const QString& text, uint64_t& bytes) {
  const QString trimmed = text.trimmed();
  bytes = 0;
  if (trimmed.isEmpty()) return true;
  auto parsed = exec::parseMemorySize(trimmed.toStdString());
  if (!parsed || *parsed == 0) return false;
  bytes = *parsed;
  return true;
}

QString memoryBudgetFieldText(uint64_t bytes) {
  // Exact, so that showing and reading back keeps the value.
  if (bytes == 0) return QString();
  if (bytes % (1ull << 30) == 0) return QString::number(bytes >> 30) + "G";
  if (bytes % (1ull << 20) == 0) return QString::number(bytes >> 20) + "M";
  return QString::number(bytes);
}

}  // namespace ptescope::ui
