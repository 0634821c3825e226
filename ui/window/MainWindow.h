// The main window, in the habits of desktop inspectors: program tree on the
// left, the method in the centre, properties on the right, tabbed panels
// below (values, transfers, summary), a method selector in the tool bar and
// a status bar with file, method, counts and GPU availability.
#pragma once

#include <QMainWindow>

#include <map>
#include <optional>

#include "ui/graph/GraphView.h"
#include "ui/profile/ProfileSession.h"

class QVBoxLayout;
class QComboBox;
class QLabel;
class QLineEdit;
class QMenu;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTableView;
class QTimer;
class QTabWidget;
class QTreeView;

namespace ptescope::ui {

class ChangesPanel;
class ElidedLabel;
class LinkSelection;
class GraphView;
class DiagnosticsModel;
class Document;
class DeviceFilterProxy;
class MemoryPlanView;
class PassOptionsPanel;
class ProgramTreeModel;
class PropertiesPanel;
class Selection;
class TimelineView;
class TransfersModel;
class TransferSummaryView;
class ValuesModel;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(Document* document, QWidget* parent = nullptr);

  // Opens a file; on failure shows one message (a dialog unless running
  // offscreen) and keeps the current document.
  bool openFile(const QString& path);
  bool openDemo();
  // Shows a method by name / a bottom panel by name ("values", "transfers",
  // "memory", "diagnostics", "changes"); false (lastError set) when unknown.
  bool showMethod(const QString& name);
  bool showPanel(const QString& name);

  // A temporary message in the status bar, in the file label's place (for
  // `milliseconds`, 0: until the next); an empty message restores the file.
  // `detail`, when given, is the message's tool tip instead of the message.
  void showStatus(const QString& message, int milliseconds = 0, const QString& detail = {});
  // A message about one method (a profile, an imported trace, a run): it
  // leaves the status line when another method is shown.
  void showMethodStatus(int method, const QString& message, int milliseconds = 0, const QString& detail = {});
  // An error the user must see whole: lastError, the status bar ("title:
  // message") and, when dialogs are allowed, a warning box.
  void reportError(const QString& title, const QString& message);
  // The temporary message shown now, or empty.
  QString statusMessage() const;

  // What the graph shows: the program with the edits, the file as loaded,
  // or the edited program with its changes against the file marked.
  enum class GraphMode { Current, AsLoaded, Diff };
  void setGraphMode(GraphMode mode);
  GraphMode graphMode() const { return graphMode_; }

  // ---- profiling (MainWindowProfile.cpp) ----
  // Profile > Profile... runs the dialog's choices through the session off
  // the UI thread (progress and Cancel in the status bar). The latest and
  // previous results feed the Transfers panel (measured and comparison
  // columns), the Timeline panel and the graph overlay.
  ProfileSession* profileSession() const { return profiler_; }
  TimelineView* timeline() const { return timeline_; }
  // Starts a run without the dialog; false (lastError set, message shown)
  // when the session refuses it.
  bool startProfile(const ProfileRequest& request);
  // Writes the latest profile; false (lastError set) when there is none or
  // the write fails.
  bool exportProfileTo(const QString& path, ProfileSession::Format format);
  void setOverlayMetric(GraphView::OverlayMetric metric);
  QLabel* transferTotals() const { return transferTotals_; }
  QWidget* profileStatus() const { return profileStatus_; }
  // The instruction of the program on screen that a profiled instruction of
  // the latest profile corresponds to (edits renumber instructions), and back.
  std::optional<size_t> currentOfProfiled(size_t instruction) const;
  std::optional<size_t> profiledOfCurrent(size_t instruction) const;
  // ---- ETDump import (MainWindowEtdump.cpp) ----
  // Reads an ETDump recorded on the program as loaded and adds it to the
  // profile history like a finished run. False (lastError set, message
  // shown, document and profiles untouched) on bad input.
  bool importEtdump(const QString& path, const QStringList& methods = {});

  // For tests and --screenshot.
  QTabWidget* bottomTabs() const { return bottomTabs_; }
  class OutputsPanel* outputsPanel() const { return outputs_; }
  class ReloadBar* reloadBar() const { return reloadBar_; }
  QTableView* valuesView() const { return valuesView_; }
  QTableView* transfersView() const { return transfersView_; }
  LinkSelection* linkSelection() const { return links_; }
  PropertiesPanel* properties() const { return properties_; }
  QComboBox* methodSelector() const { return methodSelector_; }
  QString lastError() const { return lastError_; }

  PassOptionsPanel* passOptions() const { return passOptions_; }
  GraphView* graph() const { return graph_; }
  MemoryPlanView* memoryPlan() const { return memoryPlan_; }
  ChangesPanel* changes() const { return changes_; }
  class AdvisorPanel* advisor() const { return advisor_; }
  TransfersModel* transfersModel() const { return transfersModel_; }
  QTableView* diagnosticsView() const { return diagnosticsView_; }
  DiagnosticsModel* diagnostics() const { return diagnosticsModel_; }
  // What every view shows selected (MainWindowSelection.cpp wires them).
  Selection* selection() const { return selection_; }

  // File > Save As / Export Report / Export Pass Report as JSON without
  // dialogs (the dialogs call these). The HTML report: MainWindowReport.cpp.
  // `overwriteConfirmed`: the user already agreed to replace the file (the
  // save dialog asked), so a save onto the loaded file asks nothing more.
  bool saveTo(const QString& path, bool overwriteConfirmed = false);
  bool exportHtmlReportTo(const QString& path);
  bool exportReportTo(const QString& path);

  // The graph's context menu entries for an instruction (target devices of a
  // delegate call).
  void populateInstructionMenu(QMenu* menu, size_t instruction);

  // Selects a value or instruction everywhere (tables, properties).
  void selectValue(int32_t value);
  void selectInstruction(size_t instruction);

 protected:
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  void closeEvent(QCloseEvent* event) override;
  void showEvent(QShowEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  // What the graph's banner says of the view: a refusal, the file as loaded.
  QString viewNote() const;
  void fitStatusCounts();
  void fitLongNamesToWidth();
  // From this width the status bar keeps its counts beside a message.
  static constexpr int kWideWindow = 1400;

 private:
  void buildMenus();
  void buildPanels();
  void sizeDocksToWindow();
  // The steps of buildPanels (MainWindowPanels.cpp): widgets only, no
  // selection wiring.
  void buildGraph();
  class QDockWidget* buildProgramTree();
  class QDockWidget* buildProperties();
  QWidget* buildValuesPage();
  QWidget* buildTransfersPage();
  void buildDiagnostics();
  QWidget* buildMemoryPlanPage();
  void buildChanges();
  // The Advisor tab and its preview of a candidate in the graph
  // (MainWindowAdvisor.cpp).
  void buildAdvisor();
  // The graph shows the document's program (Current, Diff), numbered as the
  // panels number it: not the file as loaded, not an Advisor preview.
  bool graphNumbersAsPanels() const;
  void buildBottomTabs(QWidget* valuesPage, QWidget* transfersPage);
  void buildPassOptions(class QDockWidget* besides);
  // Puts the tab bar of tabbed docks in the Tab chain before their controls.
  void orderDockTabBars();
  // Views publish to selection_ and follow it (MainWindowSelection.cpp).
  void connectSelection();
  void publishFromViews();
  void followSelection();
  void showMethodChange(bool newProgram);
  void refreshProgram();
  void refreshMethod();
  void showGraph();
  void setGraphModeChecked(GraphMode mode);
  // Leaves the "as loaded" view before a panel selects in the graph.
  void showSelectableGraph();
  void showOutputRow(int row);
  void refreshStatus();
  void showOpenDialog();
  void showLoadError(const QString& message);
  void showError(const QString& title, const QString& message);
  void buildProfiling(class QToolBar* toolbar);
  void showProfileDialog();
  void showExportProfileDialog();
  void showImportEtdumpDialog();
  void applyProfiles();
  // The Transfers panel's totals line, with what measured the profile and,
  // after a runner's "Compare with as loaded", the measured and predicted savings.
  void updateTransferTotals();
  void updateGraphMeasurements();
  // The link the copies are priced on (MainWindowLinks.cpp).
  void buildLinks(QVBoxLayout* transfersLayout);
  void applyLink();
  QString predictedSavingNote() const;
  // The diff banner's note: why an edit changed nothing, the predicted saving.
  QString diffNote() const;
  void addRecentFile(const QString& path);
  void rebuildRecentMenu();
  void removeRecentFile(const QString& path);
  // The open file on disk (MainWindowFileWatch.cpp): watch it (empty: none),
  // notice changes, offer Reload.
  void buildFileWatch();
  void watch(const QString& path);
  // File > Reload and the reload bar's Reload: false (and the error shown)
  // when the file cannot be read; the program then stays.
  bool reloadFromDisk();
  // The open file changed on disk with nothing unsaved: reload it; a file
  // that cannot be read yet (written in parts) is tried again until it has
  // settled, and only then is it an error.
  void reloadChangedFile();
  void updateTitle();
  // Per-document view state back to a new document's: Find, overlay, zoom.
  void resetDocumentView();
  QString pipelineErrorShown_;  // the pipeline's error the status line shows, if any
  // Gives every control an accessible name.
  void nameControls();
  // "none", "cpu", "cuda:0".. as checkable actions that edit the delegate.
  void addTargetDeviceActions(QMenu* menu, int method, int delegate);
  // Save As: warns first about error-level findings; false when cancelled or failed.
  bool showSaveDialog();
  bool confirmSaveWithErrors();
  // A save dialog that adds `suffix` to a name typed without one and asks
  // once before replacing a file (the loaded program's file named as such);
  // No goes back to the dialog.
  bool isLoadedFile(const QString& path) const;
  bool confirmOverwrite(const QString& path);
  QString askSavePath(const QString& title, const QString& filter, const QString& suffix,
                      const QString& proposedName = QString());
  void showExportReportDialog();
  void showExportHtmlReportDialog();
  // False when the user cancels discarding unsaved edits.
  bool confirmDiscard();

  Document* document_;
  Selection* selection_ = nullptr;
  GraphMode graphMode_ = GraphMode::Current;
  bool wasModified_ = false;
  class QActionGroup* graphModes_ = nullptr;
  ProgramTreeModel* treeModel_;
  ValuesModel* valuesModel_;
  DeviceFilterProxy* valuesProxy_;
  TransfersModel* transfersModel_;
  LinkSelection* links_ = nullptr;
  QTreeView* tree_ = nullptr;
  QTableView* valuesView_ = nullptr;
  QTableView* transfersView_ = nullptr;
  QLabel* transferTotals_ = nullptr;
  class ScrollingNote* transferTotalsArea_ = nullptr;  // holds transferTotals_
  TransferSummaryView* transferSummary_ = nullptr;
  QLabel* findStatus_ = nullptr;
  QComboBox* deviceFilter_ = nullptr;
  QLineEdit* valuesFilter_ = nullptr;
  QPlainTextEdit* summary_ = nullptr;
  QTabWidget* bottomTabs_ = nullptr;
  PropertiesPanel* properties_ = nullptr;
  QComboBox* methodSelector_ = nullptr;
  QMenu* recentMenu_ = nullptr;
  PassOptionsPanel* passOptions_ = nullptr;
  GraphView* graph_ = nullptr;
  QLineEdit* findField_ = nullptr;
  bool findEntered_ = false;
  bool docksSized_ = false;  // the docks got their first sizes from the window shown  // Enter pressed since the Find text last changed
  MemoryPlanView* memoryPlan_ = nullptr;
  ChangesPanel* changes_ = nullptr;
  class AdvisorPanel* advisor_ = nullptr;
  bool advisorPreview_ = false;  // the graph shows an Advisor candidate
  DiagnosticsModel* diagnosticsModel_ = nullptr;
  QTableView* diagnosticsView_ = nullptr;
  ElidedLabel* statusFile_;
  ElidedLabel* statusMessage_;
  ElidedLabel* statusMethod_;
  ElidedLabel* statusCounts_;
  ElidedLabel* statusGpu_;
  QTimer* statusMessageTimer_ = nullptr;
  int statusAboutMethod_ = -1;  // the method the status message is about; -1: none
  class FileChangeWatcher* fileWatch_ = nullptr;
  class ReloadBar* reloadBar_ = nullptr;
  class QTimer* reloadRetry_ = nullptr;
  int reloadAttempts_ = 0;
  QString lastError_;

  ProfileSession* profiler_ = nullptr;
  class OutputsPanel* outputs_ = nullptr;  // Run > Run Once
  TimelineView* timeline_ = nullptr;
  QComboBox* overlayMetric_ = nullptr;
  // overlayMetric_'s item for the predicted copy time (not a GraphView metric).
  static constexpr int kPredictedOverlay = 100;
  QWidget* profileStatus_ = nullptr;
  ElidedLabel* profileLabel_ = nullptr;
  QProgressBar* profileBar_ = nullptr;
  QPushButton* profileCancel_ = nullptr;
  QAction* exportProfileAction_ = nullptr;
  std::optional<ProfileRequest> lastRequest_;
  QString profiledPath_;  // the file the kept profiles were measured on
  // The method shown when the profile under way started, and the name of the
  // one it measures: a user who picks another method meanwhile stays there.
  int profileShownMethod_ = -1;
  QString profileMethodName_;
  // While Save As writes: the file the window showed (its profiles follow).
  bool savingAs_ = false;
  QString savingFrom_;
  bool discardingProfile_ = false;  // a run is being dropped because another program was opened
  std::map<size_t, size_t> profiledToCurrent_, currentToProfiled_;
  // The non-copy instructions of a method of a profiled program snapshot
  // (the edits never reorder them), kept for the last few profiles, which
  // every refresh asks again.
  struct NonCopyCache {
    const std::vector<size_t>& of(const std::shared_ptr<const program::Program>& program, int method,
                                  const program::Method& m);
    struct Entry {
      const program::Program* key = nullptr;
      std::weak_ptr<const program::Program> alive;
      int method = -1;
      std::vector<size_t> instructions;
    };
    std::vector<Entry> entries;
  };
  NonCopyCache nonCopyCache_;
};

}  // namespace ptescope::ui
