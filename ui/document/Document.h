// The loaded program, the user's edits and what is derived from them. Views
// observe it; nothing else in the GUI owns program data.
//
// Edits (pass options per method, a delegate's target device) never touch
// the program as loaded: the current program is always
// runPipeline(loaded, edits), recomputed on every edit (off the UI thread
// for big programs), so undo is exact and the diff against the file is the
// pipeline's own report.
#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>
#include <vector>

#include "analysis/Dataflow.h"
#include "layout/DiffMarks.h"
#include "passes/Pipeline.h"
#include "passes/ProgramEdits.h"
#include "pte/Reader.h"
#include "ui/document/BackgroundJob.h"

class QUndoStack;

namespace ptescope::ui {

class Document : public QObject {
  Q_OBJECT
 public:
  explicit Document(QObject* parent = nullptr);
  ~Document() override;

  // Loads a program file. On failure the current program stays, the message
  // (the same one the CLI prints) is returned and loadFailed is emitted.
  bool open(const QString& path, QString* error = nullptr);
  // The built-in demo: two CUDA delegates per method, copies, two methods.
  bool openDemo(QString* error = nullptr);
  // Re-reads the current file (e.g. after it changed on disk); the edits are
  // applied to what was read (a pipeline error says when one no longer
  // applies) and the undo history is kept. On failure nothing changes.
  bool reload(QString* error = nullptr);
  void close();

  bool hasProgram() const { return loaded_ != nullptr; }
  bool isDemo() const { return demo_; }
  const pte::LoadedProgram& loaded() const { return *loaded_; }
  // The program as loaded from the file.
  const program::Program& loadedProgram() const { return loaded_->program; }
  // The program the views show: the loaded one with the edits applied.
  const program::Program& program() const { return *current_; }
  std::shared_ptr<const program::Program> programSnapshot() const { return current_; }
  // The program as loaded, shared (for the graph's "as loaded" view).
  std::shared_ptr<const program::Program> loadedSnapshot() const;
  // What the edits changed in method `method` against the file as loaded,
  // as the graph's diff view marks it; empty changes when unedited, null
  // for a bad index.
  std::shared_ptr<const layout::MethodChanges> methodChanges(int method) const;
  // Why the edits of `method`'s options changed nothing in it (one sentence
  // per option edited), when they did change nothing; else empty.
  QStringList unchangedReasons(int method) const;
  QString path() const { return path_; }
  // The file name the title shows: the file saved last, else the file loaded.
  QString displayName() const;

  int methodCount() const;
  int currentMethodIndex() const { return currentMethod_; }
  const program::Method* currentMethod() const;
  void setCurrentMethod(int index);
  // Def/use facts of the current method of the current program.
  const analysis::Dataflow* currentDataflow() const;

  // --- editing ---
  QUndoStack* undoStack() const { return undo_; }
  const passes::ProgramEdits& edits() const { return edits_; }
  // Options read off the file for each method (what "unchanged" means).
  passes::DeviceOptions fileOptions(int method) const;
  passes::DeviceOptions methodOptions(int method) const;
  std::optional<program::Device> delegateTarget(int method, int delegate) const;
  // Push an undoable edit (text is the Edit menu's).
  void setMethodOptions(int method, const passes::DeviceOptions& options);
  void setDelegateTarget(int method, int delegate, const std::optional<program::Device>& device);
  // Every delegate of the method that has a target device gets `device`
  // (one edit); delegates without a target device are left alone.
  void setAllDelegateTargets(int method, const std::optional<program::Device>& device);
  // Replaces the whole edit state with `after` as one undoable edit named
  // `text` (the Advisor's Apply: options and target devices at once);
  // nothing happens when it equals the current edits.
  void pushEdits(const passes::ProgramEdits& after, const QString& text);
  // Applies an edit state directly (used by the undo commands).
  void applyEdits(const passes::ProgramEdits& edits);
  // The current program differs from the file as loaded.
  bool isModified() const { return !(edits_ == passes::ProgramEdits{}); }
  // Edits not yet written anywhere: differs from the file as loaded, or
  // from what was last saved with Save As (the title's "*", the close prompt).
  bool hasUnsavedEdits() const { return !(edits_ == savedEdits_); }
  // Where Save As last wrote the current program (empty before that).
  QString savedPath() const { return savedPath_; }
  // What the last saveAs did with the program's .ptd files (copied beside
  // the saved program, or why not); empty when they were beside it already.
  QStringList saveNotes() const { return saveNotes_; }
  // The last pipeline report (against the program as loaded), when edited.
  const passes::PassReport* report() const { return report_ ? &*report_ : nullptr; }
  // The pipeline's error for the current edits (the program then stays as it
  // was before the failing edit); empty when it succeeded.
  QString pipelineError() const { return pipelineError_; }
  bool pipelineRunning() const { return pipelineJob_.running(); }
  // Blocks until a pipeline run in the background has been installed.
  void waitForPipeline();

  // Writes the current program; refuses the loaded file unless allowed.
  bool saveAs(const QString& path, bool allowOverwriteInput, QString* error);
  bool exportReport(const QString& path, QString* error) const;

 signals:
  // The current program was replaced (open, reload, close, an edit's
  // pipeline result); the current method may be another index too. Views
  // of the current method follow both: each change says only one of them,
  // so they rebuild once (ui::Selection relays both as one methodChanged).
  void programChanged();
  // Another method of the same program is current (setCurrentMethod).
  void currentMethodChanged(int index);
  void loadFailed(const QString& message);
  void editsChanged();
  void pipelineStarted();
  void pipelineFinished(bool ok);

 private:
  struct PipelineOutcome {
    std::shared_ptr<const program::Program> program;
    std::optional<passes::PassReport> report;
    QString error;
  };
  bool load(const QString& path, bool keepHistory, QString* error);
  void install(std::shared_ptr<const pte::LoadedProgram> loaded, const QString& path, bool demo, bool keepHistory = false);
  void finishPipeline(PipelineOutcome outcome);
  void resetDerived();

  std::shared_ptr<const pte::LoadedProgram> loaded_;
  std::shared_ptr<const program::Program> current_;
  QString path_;
  bool demo_ = false;
  int currentMethod_ = -1;
  mutable std::vector<std::optional<analysis::Dataflow>> dataflows_;
  mutable std::vector<std::shared_ptr<const layout::MethodChanges>> changes_;
  std::vector<passes::DeviceOptions> fileOptions_;
  passes::ProgramEdits edits_;
  passes::ProgramEdits savedEdits_;
  QStringList saveNotes_;
  QString savedPath_;
  std::optional<passes::PassReport> report_;
  QString pipelineError_;
  QUndoStack* undo_;
  BackgroundJob pipelineJob_;
};

// The program to open for FILE. A file manager or File > Open hands over
// .ptd files too, but they hold only tensor data: the program beside one
// with the same base name is opened instead. Empty, with `error` set, when
// there is none.
QString programForFile(const QString& file, QString* error);

}  // namespace ptescope::ui
