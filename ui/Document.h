// The loaded program and what is derived from it. Views observe it; nothing
// else in the GUI owns program data.
#pragma once

#include <QObject>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

#include "analysis/Dataflow.h"
#include "pte/Reader.h"

namespace ptescope::ui {

class Document : public QObject {
  Q_OBJECT
 public:
  explicit Document(QObject* parent = nullptr);

  // Loads a program file. On failure the current program stays, the message
  // (the same one the CLI prints) is returned and loadFailed is emitted.
  bool open(const QString& path, QString* error = nullptr);
  // The built-in demo: two CUDA delegates per method, copies, two methods.
  bool openDemo(QString* error = nullptr);
  // Re-reads the current file (e.g. after it changed on disk).
  bool reload(QString* error = nullptr);
  void close();

  bool hasProgram() const { return loaded_ != nullptr; }
  bool isDemo() const { return demo_; }
  const pte::LoadedProgram& loaded() const { return *loaded_; }
  const program::Program& program() const { return loaded_->program; }
  // Shared, immutable snapshot for work off the UI thread.
  std::shared_ptr<const pte::LoadedProgram> snapshot() const { return loaded_; }
  QString path() const { return path_; }
  QString displayName() const;

  int methodCount() const;
  int currentMethodIndex() const { return currentMethod_; }
  const program::Method* currentMethod() const;
  void setCurrentMethod(int index);
  // Def/use facts of the current method, computed once per method.
  const analysis::Dataflow* currentDataflow() const;

 signals:
  void programChanged();
  void currentMethodChanged(int index);
  void loadFailed(const QString& message);

 private:
  void install(std::shared_ptr<const pte::LoadedProgram> loaded, const QString& path, bool demo);

  std::shared_ptr<const pte::LoadedProgram> loaded_;
  QString path_;
  bool demo_ = false;
  int currentMethod_ = -1;
  mutable std::vector<std::optional<analysis::Dataflow>> dataflows_;
};

}  // namespace ptescope::ui
