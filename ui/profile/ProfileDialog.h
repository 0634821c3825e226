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
// The dialog only collects choices; ProfileSession runs them. Accepting
// checks that an input folder, when chosen, exists. Under the runtime
// chooser one line says what the choice means on this machine (what
// Automatic picks, that the host runtime is an emulation, that CUDA has no
// device here), computed once per process with exec::selectRuntime.
//
// Object names, for tests and scripts: method, runtime, runtimeInfo,
// iterations, warmup, hostPageable, hostPinned, measurePeak, cudaGraph, inputsRandom,
// seed, inputsFolder, inputFolder, browseInputs, memoryBudget, profileError, and the
// buttons startProfile and cancelProfile.
#pragma once

#include <QDialog>

#include <set>
#include <string>
#include <vector>

#include "program/Program.h"
#include "ui/profile/ProfileSession.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QRadioButton;
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

 private:
  void updateRuntimeInfo();
  std::string chosenMethodName() const;
  void showCudaGraph();
  void updateInputControls();
  void browseInputFolder();

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
};

}  // namespace ptescope::ui
