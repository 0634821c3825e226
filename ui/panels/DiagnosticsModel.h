// The lint findings of the current program (every method), updated on every
// edit: severity, id, location, message, fix hint.
#pragma once

#include <QAbstractTableModel>

#include <vector>

#include "analysis/Diagnostics.h"

namespace ptescope::ui {

class Document;

class DiagnosticsModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Severity, Id, Location, Message, Hint, ColumnCount };
  enum Role { MethodNameRole = Qt::UserRole + 30, DelegateRole = Qt::UserRole + 31 /* int: delegate index, or -1 */ };

  explicit DiagnosticsModel(Document* document, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  const std::vector<analysis::Diagnostic>& diagnostics() const { return diagnostics_; }
  int errorCount() const;
  int warningCount() const;
  int infoCount() const;

 signals:
  void countsChanged();

 private:
  void rebuild();
  Document* document_;
  std::vector<analysis::Diagnostic> diagnostics_;
};

}  // namespace ptescope::ui
