// The loaded program and what is derived from it. Views observe it.
#pragma once

#include <QObject>
#include <QString>
#include <optional>

#include "pte/Reader.h"

namespace ptescope::ui {

class Document : public QObject {
  Q_OBJECT
 public:
  explicit Document(QObject* parent = nullptr);

  // Loads a program; on failure the previous program stays and the error is
  // returned (and emitted).
  bool open(const QString& path, QString* error = nullptr);
  void close();

  bool hasProgram() const { return loaded_.has_value(); }
  const pte::LoadedProgram& loaded() const { return *loaded_; }
  const program::Program& program() const { return loaded_->program; }
  QString path() const { return path_; }

 signals:
  void programChanged();
  void loadFailed(const QString& message);

 private:
  std::optional<pte::LoadedProgram> loaded_;
  QString path_;
};

}  // namespace ptescope::ui
