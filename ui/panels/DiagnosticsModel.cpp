#include "ui/panels/DiagnosticsModel.h"
#include "ui/common/PlainText.h"

#include <QApplication>
#include <QStyle>

#include "ui/document/Document.h"
#include "ui/common/ItemRoles.h"

namespace ptescope::ui {

DiagnosticsModel::DiagnosticsModel(Document* document, QObject* parent)
    : QAbstractTableModel(parent), document_(document) {
  connect(document_, &Document::programChanged, this, &DiagnosticsModel::rebuild);
  rebuild();
}

void DiagnosticsModel::rebuild() {
  beginResetModel();
  diagnostics_.clear();
  if (document_->hasProgram()) diagnostics_ = analysis::lintProgram(document_->program());
  std::stable_sort(diagnostics_.begin(), diagnostics_.end(),
                   [](const auto& a, const auto& b) { return int(a.severity) > int(b.severity); });
  endResetModel();
  emit countsChanged();
}

int DiagnosticsModel::errorCount() const {
  return int(std::count_if(diagnostics_.begin(), diagnostics_.end(),
                           [](const auto& d) { return d.severity == analysis::Severity::Error; }));
}

int DiagnosticsModel::warningCount() const {
  return int(std::count_if(diagnostics_.begin(), diagnostics_.end(),
                           [](const auto& d) { return d.severity == analysis::Severity::Warning; }));
}

int DiagnosticsModel::infoCount() const {
  return int(std::count_if(diagnostics_.begin(), diagnostics_.end(),
                           [](const auto& d) { return d.severity == analysis::Severity::Info; }));
}

int DiagnosticsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(diagnostics_.size()); }
int DiagnosticsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant DiagnosticsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || size_t(index.row()) >= diagnostics_.size()) return {};
  const auto& d = diagnostics_[size_t(index.row())];
  if (role == ValueIndexRole) return d.value ? *d.value : -1;
  if (role == InstructionRole) return d.instruction ? qlonglong(*d.instruction) : qlonglong(-1);
  if (role == MethodNameRole) return QString::fromStdString(d.method);
  if (role == DelegateRole) return d.delegate ? int(*d.delegate) : -1;
  if (role == Qt::DecorationRole && index.column() == Severity) {
    const auto icon = d.severity == analysis::Severity::Error     ? QStyle::SP_MessageBoxCritical
                      : d.severity == analysis::Severity::Warning ? QStyle::SP_MessageBoxWarning
                                                                  : QStyle::SP_MessageBoxInformation;
    return QApplication::style()->standardIcon(icon);
  }
  if (role == SortRole && index.column() == Severity) return int(d.severity);
  if (role == Qt::ToolTipRole) {
    const QVariant shown = data(index, Qt::DisplayRole);
    return shown.typeId() == QMetaType::QString ? QVariant(plainToolTip(shown.toString())) : shown;
  }
  if (role != Qt::DisplayRole && role != SortRole) return {};
  switch (index.column()) {
    case Severity: return QString::fromStdString(analysis::severityName(d.severity));
    case Id: return QString::fromStdString(d.id + " " + d.slug);
    case Location: return QString::fromStdString(d.location());
    case Message: return QString::fromStdString(d.message);
    case Hint: return QString::fromStdString(d.hint);
    default: return {};
  }
}

QVariant DiagnosticsModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"Severity", "Rule", "Location", "Finding", "Fix"};
  return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace ptescope::ui
