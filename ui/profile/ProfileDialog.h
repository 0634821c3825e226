// The choices of a profile run: method, runtime, iterations, warm-up, host
// memory kind, link peak, inputs (random from a seed, or a folder of files),
// and the app's memory budget (ui/common/MemoryBudgetSetting: shown from the
// setting, stored back on Profile; Run Once uses it too).
//
// Usage:
//
//   ProfileDialog dialog(document->program(), document->currentMethodIndex(), this);
//   if (lastRequest) {                                  // remember the previous choices,
//     ProfileRequest r = *lastRequest;                  // but for the method being looked at
//     r.method = document->currentMethodIndex();
//     dialog.setRequest(r);
//   }
//   if (dialog.exec() == QDialog::Accepted) session->start(snapshot, name, dialog.request(), &error);
//
// The runtime chooser also offers "ExecuTorch runner…", the user's own
// runner (runner/ExternalRunner.h): a path field (a name without '/' is
// looked up on PATH) with Choose..., checked off the UI thread when chosen
// (runner::checkRunner: one line when it is not a runner or lacks
// --etdump_path), remembered in QSettings (kRunnerSetting) once the check
// passes, and "Compare with as loaded". Warm-up, host memory and the link
// peak are the runner's business: disabled while it is chosen.
//
// The dialog only collects choices; ProfileSession runs them. Accepting
// checks that an input folder, when chosen, exists, and that the runner,
// when chosen, passed its check (Profile pressed while the check runs
// accepts when it passes). Under the runtime
// chooser one line says what the choice means on this machine (what
// Automatic picks, that the host runtime is an emulation, that CUDA has no
// device here), computed once per process with exec::selectRuntime.
//
// Object names, for tests and scripts: method, runtime, runtimeInfo,
// iterations, warmup, hostPageable, hostPinned, measurePeak, cudaGraph, inputsRandom,
// seed, inputsFolder, inputFolder, browseInputs, memoryBudget, profileError,
// runnerPath, chooseRunner, runnerStatus, compareWithLoaded, and the buttons
// startProfile and cancelProfile.
#pragma once

#include <QDialog>

#include <set>
#include <string>
#include <vector>

#include "program/Program.h"
#include "ui/document/BackgroundJob.h"
#include "ui/profile/ProfileSession.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QRadioButton;
class QShowEvent;
class QSpinBox;

namespace ptescope::ui {

class ProfileDialog : public QDialog {
  Q_OBJECT
 public:
  // Lists the methods of `program` and preselects `currentMethod` (when in range).
  explicit ProfileDialog(const program::Program& program, int currentMethod, QWidget* parent = nullptr);

  ProfileRequest request() const;
  // Shows earlier choices, the method included (the preselected one stays
  // when the request's index is out of range); numbers are clamped to the controls'
  // ranges (a seed above 2^31-1 cannot be shown and becomes that maximum).
  void setRequest(const ProfileRequest& request);

  // Empty when the choices can be run; else why not (shown in the dialog
  // when Profile is pressed).
  QString validationError() const;
  void accept() override;

  // What exec::selectRuntime(Auto) gives on this machine, as one line,
  // e.g. "Automatic: host emulation on this machine (no usable CUDA device: …)".
  static QString automaticRuntimeText();

  static constexpr int kMaxIterations = 100000;
  static constexpr int kMaxWarmup = 1000;
  // The QSettings key of the runner last chosen and checked.
  static constexpr const char* kRunnerSetting = "profile/runner";
  // The runtime chooser's data for "ExecuTorch runner…" (the others hold an exec::RuntimePreference).
  static constexpr int kRunnerChoice = -1;

  // Whether the runner field's check is going (off the UI thread).
  bool runnerCheckRunning() const { return runnerCheck_.running(); }

 signals:
  // A runner check ended (passed or not; see runnerStatus).
  void runnerChecked();

 protected:
  // Tall enough for its wrapped hints at the width it is shown at.
  void showEvent(QShowEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void updateRuntimeInfo();
  std::string chosenMethodName() const;
  void showCudaGraph();
  void updateInputControls();
  void browseInputFolder();
  bool runnerChosen() const;
  void chooseRunnerFile();
  void checkRunner();  // the path field's runner, off the UI thread
  void finishRunnerCheck(const QString& resolved, const QString& error);

  QComboBox* method_;
  QComboBox* runtime_;
  QLabel* runtimeInfo_;
  QSpinBox* iterations_;
  QSpinBox* warmup_;
  QRadioButton* pageable_;
  QRadioButton* pinned_;
  QCheckBox* measurePeak_;
  // CUDA graph replay in the chosen method; the other methods' setting is
  // kept from the request.
  QCheckBox* cudaGraph_;
  std::set<std::string> cudaGraphMethods_;
  std::vector<std::string> methodNames_;  // of the program, by index
  QRadioButton* randomInputs_;
  QSpinBox* seed_;
  QRadioButton* folderInputs_;
  QLineEdit* folder_;
  QPushButton* browse_;
  QLineEdit* memoryBudget_;
  QLabel* error_;
  QWidget* runnerBox_;
  QLineEdit* runnerPath_;
  QPushButton* chooseRunner_;
  QLabel* runnerStatus_;
  QCheckBox* compareWithLoaded_;
  QSpinBox* runnerTimeout_;  // seconds; the runner's process group is killed after it
  QString checkedRunnerText_;  // the field's text the last check was for
  QString runner_;             // its resolved path when the check passed
  QString runnerError_;        // why it failed
  bool acceptWhenChecked_ = false;
  BackgroundJob runnerCheck_;  // last member: waited for first
};

}  // namespace ptescope::ui
