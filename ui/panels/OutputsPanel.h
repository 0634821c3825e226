// The Outputs panel: Run Once executes the shown method a single time off
// the UI thread (random inputs from seed 0, on a GPU when one is present,
// else emulated on the host) and lists what it computed: per output its
// dtype and shape, min/max/mean and first values, and the instructions that
// were not executed with their reasons. The run is limited by the app's
// memory budget (ui/common/MemoryBudgetSetting: a method declaring more is
// refused before anything is allocated, naming the setting); while it runs
// the header says, twice a second, which instruction it is at and for how
// long it has run, and Cancel (cancelRunOnce) stops it at once, while inputs
// are filled, between instructions or inside a long kernel. A row is one of the window's
// selection's views: picking it selects its value, and selecting an output
// value elsewhere picks its row (MainWindowSelection.cpp).
#pragma once

#include <QWidget>

#include <memory>
#include <optional>

#include "exec/RunOnce.h"
#include "ui/document/BackgroundJob.h"

class QScrollArea;
class QLabel;
class QPushButton;
class QTableWidget;

namespace ptescope::ui {

class Document;

class OutputsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit OutputsPanel(Document* document, QWidget* parent = nullptr);
  ~OutputsPanel() override;

  // Starts a run of the current method; false (with lastError) when there is
  // nothing to run or a run is under way.
  bool runOnce();
  bool isRunning() const;
  // Stops the run under way; failed(kRunCancelled) follows.
  void cancel();
  const std::optional<exec::RunOnceResult>& lastResult() const { return result_; }
  QString lastError() const { return error_; }
  QTableWidget* table() const { return table_; }
  // The value an output row shows, and the row showing a value; -1 when there
  // is none or the outputs are those of another method than the one shown
  // (their value numbers are that method's).
  int32_t valueOfRow(int row) const;
  int rowOfValue(int32_t value) const;

 signals:
  void finished();
  void failed(const QString& message);

 protected:
  void resizeEvent(QResizeEvent* event) override;
  void showEvent(QShowEvent* event) override;

 private:
  // Shares the table's width: the first values take what the verdict leaves.
  void fitColumns();
  void show(const exec::RunOnceResult& result);
  void showError(const QString& message);
  void clearOutputs();
  // The note in the table's middle while it has no rows.
  void sayWhyEmpty(const QString& why);
  bool showsCurrentMethod() const;
  void showProgress(qint64 seconds);

  Document* document_;
  class ElidedLabel* header_;
  QPushButton* runButton_;
  QPushButton* cancelButton_;
  QTableWidget* table_;
  QLabel* notExecuted_;
  QScrollArea* notExecutedArea_;
  std::optional<exec::RunOnceResult> result_;
  QString error_;
  class ProgressTicker* ticker_;
  QString runningText_;
  std::shared_ptr<exec::RunProgress> progress_;  // the run under way's
  BackgroundJob runJob_;  // last member: destroyed (and waited for) first
};

}  // namespace ptescope::ui
