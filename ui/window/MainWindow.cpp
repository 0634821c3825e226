#include "ui/window/MainWindow.h"
#include "ui/panels/OutputsPanel.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QScrollArea>
#include <QUndoStack>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QTreeView>
#include <QVBoxLayout>

#include "analysis/Summary.h"
#include "exec/DeviceRuntime.h"
#include "report/InfoReport.h"
#include "ui/panels/ChangesPanel.h"
#include "ui/panels/DiagnosticsModel.h"
#include "ui/document/Document.h"
#include "ui/common/Format.h"
#include "ui/common/ItemRoles.h"
#include "ui/graph/GraphView.h"
#include "ui/panels/MemoryPlanView.h"
#include "ui/panels/PassOptionsPanel.h"
#include "ui/panels/ProgramTreeModel.h"
#include "ui/panels/PropertiesPanel.h"
#include "ui/document/Selection.h"
#include "ui/profile/TimelineView.h"
#include "ui/profile/TransfersModel.h"
#include "ui/panels/ValuesModel.h"

namespace ptescope::ui {
using namespace ptescope::program;

namespace {

constexpr int kMaxRecentFiles = 10;

bool dialogsAllowed() {
  return !qEnvironmentVariableIsSet("PTESCOPE_NO_DIALOGS") && QApplication::platformName() != "offscreen";
}

}  // namespace

MainWindow::MainWindow(Document* document, QWidget* parent)
    : QMainWindow(parent),
      document_(document),
      treeModel_(new ProgramTreeModel(document, this)),
      valuesModel_(new ValuesModel(document, this)),
      valuesProxy_(new DeviceFilterProxy(this)),
      transfersModel_(new TransfersModel(document, this)),
      statusFile_(new QLabel),
      statusMethod_(new QLabel),
      statusCounts_(new QLabel),
      statusGpu_(new QLabel),
      watcher_(new QFileSystemWatcher(this)) {
  setObjectName("mainWindow");
  setWindowIcon(QIcon(":/icons/ptescope.svg"));
  setAcceptDrops(true);
  resize(1400, 900);
  valuesProxy_->setSourceModel(valuesModel_);
  // Made after the item models, which follow the document themselves: they
  // have rebuilt by the time the selection tells the window.
  selection_ = new Selection(document_, this);

  buildPanels();
  buildMenus();

  statusBar()->addWidget(statusFile_, 1);
  // QStatusBar hides the file label under a temporary message only when the
  // label is visible at that moment; a message shown before the window is
  // (an import at start-up) left both drawn over each other. Hide it
  // explicitly for as long as a message shows.
  connect(statusBar(), &QStatusBar::messageChanged, statusFile_,
          [this](const QString& message) { statusFile_->setVisible(message.isEmpty()); });
  statusBar()->addPermanentWidget(statusMethod_);
  statusBar()->addPermanentWidget(statusCounts_);
  statusBar()->addPermanentWidget(statusGpu_);
  statusGpu_->setObjectName("gpuStatus");
  statusFile_->setObjectName("fileStatus");
  // Asked once: the answer does not change while the app runs.
  if (auto selection = exec::selectRuntime(exec::RuntimePreference::Auto); selection && !selection->runtime->isEmulated()) {
    statusGpu_->setText(tr("GPU: %1").arg(QString::fromStdString(selection->runtime->name())));
  } else {
    statusGpu_->setText(tr("GPU: none (profiling emulated on the host)"));
    if (selection) statusGpu_->setToolTip(QString::fromStdString(selection->notice));
  }

  connect(document_, &Document::editsChanged, this, &MainWindow::updateTitle);
  connect(document_, &Document::pipelineFinished, this, [this](bool ok) {
    if (!ok) statusBar()->showMessage(document_->pipelineError(), 10000);
  });
  connect(watcher_, &QFileSystemWatcher::fileChanged, this, [this](const QString& path) {
    // Editors and exporters often replace the file: wait until it is whole.
    QTimer::singleShot(300, this, [this, path] {
      if (path != document_->path() || !QFileInfo::exists(path)) return;
      QString error;
      if (!document_->reload(&error)) showLoadError(error);
      watch(path);
    });
  });
  refreshProgram();
}

void MainWindow::buildMenus() {
  auto* toolbar = addToolBar(tr("Main"));
  toolbar->setObjectName("mainToolbar");
  methodSelector_ = new QComboBox;
  methodSelector_->setObjectName("methodSelector");
  methodSelector_->setMinimumContentsLength(18);
  connect(methodSelector_, &QComboBox::activated, this, [this](int index) { selection_->selectMethod(index); });

  auto* fileMenu = menuBar()->addMenu(tr("&File"));
  auto* open = fileMenu->addAction(tr("&Open..."), QKeySequence::Open, this, &MainWindow::showOpenDialog);
  fileMenu->addAction(tr("Open &Demo Program"), this, [this] { openDemo(); });
  recentMenu_ = fileMenu->addMenu(tr("Open &Recent"));
  fileMenu->addAction(tr("&Import ETDump..."), this, &MainWindow::showImportEtdumpDialog)->setObjectName("importEtdumpAction");
  fileMenu->addAction(tr("&Reload"), QKeySequence::Refresh, this, [this] {
    QString error;
    if (document_->hasProgram() && !document_->reload(&error)) showLoadError(error);
  });
  fileMenu->addSeparator();
  fileMenu->addAction(tr("Save &As..."), QKeySequence::SaveAs, this, &MainWindow::showSaveDialog);
  fileMenu->addAction(tr("&Export Report..."), this, &MainWindow::showExportReportDialog);
  fileMenu->addAction(tr("Export Graph as S&VG..."), this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export graph"), QString(), tr("SVG (*.svg)"));
    QString error;
    if (!path.isEmpty() && !graph_->exportSvg(path, &error)) showLoadError(error);
  });
  fileMenu->addAction(tr("Export Graph as &PNG..."), this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export graph"), QString(), tr("PNG (*.png)"));
    QString error;
    if (!path.isEmpty() && !graph_->exportPng(path, &error)) showLoadError(error);
  });
  fileMenu->addSeparator();
  fileMenu->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);
  rebuildRecentMenu();

  auto* editMenu = menuBar()->addMenu(tr("&Edit"));
  auto* undo = document_->undoStack()->createUndoAction(this, tr("&Undo"));
  undo->setShortcut(QKeySequence::Undo);
  auto* redo = document_->undoStack()->createRedoAction(this, tr("&Redo"));
  redo->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence::Redo});
  editMenu->addAction(undo);
  editMenu->addAction(redo);

  toolbar->addAction(open);
  toolbar->addSeparator();
  toolbar->addWidget(new QLabel(tr(" Method: ")));
  toolbar->addWidget(methodSelector_);
  toolbar->addSeparator();
  toolbar->addAction(tr("Fit"), this, [this] { graph_->fitToWindow(); });
  toolbar->addSeparator();
  // Current / As loaded / Diff: a segmented switch in the tool bar and the
  // View menu.
  auto* viewMenu = menuBar()->addMenu(tr("&View"));
  graphModes_ = new QActionGroup(this);
  const struct {
    GraphMode mode;
    QString text, name, tip;
    Qt::Key key;
  } modes[] = {
      {GraphMode::Current, tr("Current"), "viewCurrent", tr("The program with your edits"), Qt::Key_1},
      {GraphMode::AsLoaded, tr("As loaded"), "viewAsLoaded", tr("The program as the file has it (read-only)"), Qt::Key_2},
      {GraphMode::Diff, tr("Diff"), "viewDiff", tr("Your edits' changes against the file, marked on the graph"), Qt::Key_3},
  };
  for (const auto& m : modes) {
    auto* action = new QAction(m.text, graphModes_);
    action->setObjectName(m.name);
    action->setCheckable(true);
    action->setChecked(m.mode == graphMode_);
    action->setToolTip(m.tip);
    action->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | m.key));
    connect(action, &QAction::triggered, this, [this, mode = m.mode] { setGraphMode(mode); });
    toolbar->addAction(action);
    viewMenu->addAction(action);
  }
  findField_ = new QLineEdit;
  findField_->setObjectName("findField");
  findField_->setPlaceholderText(tr("Find operator, %value ... (Ctrl+F)"));
  findField_->setClearButtonEnabled(true);
  findField_->setMaximumWidth(320);
  toolbar->addWidget(findField_);
  connect(findField_, &QLineEdit::returnPressed, this, [this] {
    if (graph_->findMatchCount() > 0 && graph_->findCurrentIndex() >= 0) graph_->findNext();
    else graph_->find(findField_->text());
  });
  connect(findField_, &QLineEdit::textChanged, this, [this](const QString& text) { graph_->find(text); });
  auto* findAction = new QAction(this);
  findAction->setShortcut(QKeySequence::Find);
  connect(findAction, &QAction::triggered, this, [this] {
    findField_->setFocus();
    findField_->selectAll();
  });
  addAction(findAction);

  auto* runMenu = menuBar()->addMenu(tr("&Run"));
  auto* runOnce = runMenu->addAction(tr("Run &Once"), QKeySequence(Qt::CTRL | Qt::Key_R), this, [this] {
    bottomTabs_->setCurrentWidget(outputs_);
    if (!outputs_->runOnce()) statusBar()->showMessage(outputs_->lastError(), 5000);
  });
  runOnce->setObjectName("runOnceAction");
  runOnce->setToolTip(tr("Execute the method once and show its outputs (Ctrl+R)"));

  buildProfiling(toolbar);
  viewMenu->addSeparator();
  for (auto* dock : findChildren<QDockWidget*>()) viewMenu->addAction(dock->toggleViewAction());
}

bool MainWindow::openFile(const QString& path) {
  if (!confirmDiscard()) return false;
  QString error;
  if (!document_->open(path, &error)) {
    showLoadError(error);
    return false;
  }
  addRecentFile(QFileInfo(path).absoluteFilePath());
  watch(path);
  return true;
}

bool MainWindow::openDemo() {
  if (!confirmDiscard()) return false;
  QString error;
  if (!document_->openDemo(&error)) {
    showLoadError(error);
    return false;
  }
  if (!watcher_->files().isEmpty()) watcher_->removePaths(watcher_->files());
  return true;
}

void MainWindow::watch(const QString& path) {
  if (!watcher_->files().isEmpty()) watcher_->removePaths(watcher_->files());
  if (!path.isEmpty()) watcher_->addPath(path);
}

void MainWindow::showOpenDialog() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Open ExecuTorch program"), QString(),
                                                    tr("ExecuTorch programs (*.pte);;All files (*)"));
  if (!path.isEmpty()) openFile(path);
}

void MainWindow::showLoadError(const QString& message) { showError(tr("Cannot open program"), message); }

void MainWindow::showError(const QString& title, const QString& message) {
  lastError_ = message;
  statusBar()->showMessage(message, 10000);
  if (dialogsAllowed()) QMessageBox::warning(this, title, message);
}

void MainWindow::addRecentFile(const QString& path) {
  QSettings settings;
  QStringList files = settings.value("recentFiles").toStringList();
  files.removeAll(path);
  files.prepend(path);
  while (files.size() > kMaxRecentFiles) files.removeLast();
  settings.setValue("recentFiles", files);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  recentMenu_->clear();
  const QStringList files = QSettings().value("recentFiles").toStringList();
  for (const QString& f : files) recentMenu_->addAction(f, this, [this, f] { openFile(f); });
  recentMenu_->setEnabled(!files.isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasUrls()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const auto urls = event->mimeData()->urls();
  if (urls.isEmpty() || !urls.first().isLocalFile()) return;
  const QString path = urls.first().toLocalFile();
  if (path.endsWith(".etdp", Qt::CaseInsensitive)) importEtdump(path);  // onto the program it was recorded on
  else openFile(path);
}

void MainWindow::refreshProgram() {
  // Profiles describe the file they were measured on: another file drops
  // them (a reload of the same file keeps them, to compare against).
  const QString identity = !document_->hasProgram() ? QString() : document_->isDemo() ? QStringLiteral("<demo>") : document_->path();
  if (identity != profiledPath_ && (profiler_->latest() || profiler_->isRunning())) {
    if (profiler_->isRunning()) statusBar()->showMessage(tr("Profile stopped: another program was opened"), 10000);
    discardingProfile_ = profiler_->isRunning();
    profiler_->clear();
    transfersModel_->clearProfiles();
    timeline_->clear();
  }
  methodSelector_->clear();
  if (!document_->hasProgram()) {
    setWindowTitle("ptescope");
    summary_->setPlainText(tr("No program loaded.\n\nUse File > Open to inspect an ExecuTorch program (.pte), "
                              "or File > Open Demo Program."));
    refreshStatus();
    return;
  }
  for (const auto& m : document_->program().methods()) methodSelector_->addItem(QString::fromStdString(m.displayName()));
  updateTitle();
  QString summary = QString::fromStdString(
      report::infoText(document_->program(), document_->loaded().file, document_->loaded().warnings));
  if (document_->isModified()) summary.prepend(tr("Edited (not saved): the summary shows the program with your edits.\n\n"));
  summary_->setPlainText(summary);
  tree_->expandToDepth(0);
  refreshMethod();
}

void MainWindow::refreshMethod() {
  const int index = document_->currentMethodIndex();
  // The first edit shows what it changed.
  if (document_->isModified() && !wasModified_ && graphMode_ == GraphMode::Current) setGraphModeChecked(GraphMode::Diff);
  wasModified_ = document_->isModified();
  showGraph();
  if (index >= 0 && methodSelector_->currentIndex() != index) methodSelector_->setCurrentIndex(index);
  // Device filter: every device the method's tensors use.
  const QString previous = deviceFilter_->currentData().toString();
  deviceFilter_->blockSignals(true);
  deviceFilter_->clear();
  deviceFilter_->addItem(tr("all devices"), QString());
  if (const Method* method = document_->currentMethod()) {
    auto summary = analysis::summarizeMethod(*method);
    for (const auto& [device, count] : summary.tensors_by_device)
      deviceFilter_->addItem(QString("%1 (%2)").arg(QString::fromStdString(device)).arg(count), QString::fromStdString(device));
  }
  const int keep = deviceFilter_->findData(previous);
  deviceFilter_->setCurrentIndex(keep >= 0 ? keep : 0);
  deviceFilter_->blockSignals(false);
  valuesProxy_->setDevice(deviceFilter_->currentData().toString());
  valuesView_->resizeColumnsToContents();
  transfersView_->resizeColumnsToContents();
  applyProfiles();
  tree_->viewport()->update();
  refreshStatus();
}

void MainWindow::showGraph() {
  const int index = document_->currentMethodIndex();
  if (!document_->hasProgram() || index < 0) {
    graph_->clear();
    return;
  }
  switch (graphMode_) {
    case GraphMode::Current: graph_->setMethod(document_->programSnapshot(), index); break;
    case GraphMode::AsLoaded: graph_->setMethod(document_->loadedSnapshot(), index); break;
    case GraphMode::Diff: graph_->setMethod(document_->programSnapshot(), index, document_->methodChanges(index)); break;
  }
  graph_->setDiffNote(graphMode_ == GraphMode::Diff ? predictedSavingNote() : QString());
  updateGraphMeasurements();
}

void MainWindow::showSelectableGraph() {
  // The panels number instructions and values as the program with the edits
  // does; the "as loaded" graph numbers them as the file does.
  if (graphMode_ == GraphMode::AsLoaded) setGraphMode(document_->isModified() ? GraphMode::Diff : GraphMode::Current);
}

void MainWindow::setGraphModeChecked(GraphMode mode) {
  graphMode_ = mode;
  const char* names[] = {"viewCurrent", "viewAsLoaded", "viewDiff"};
  for (auto* action : graphModes_->actions()) action->setChecked(action->objectName() == names[int(mode)]);
}

void MainWindow::setGraphMode(GraphMode mode) {
  if (mode == graphMode_) return;
  setGraphModeChecked(mode);
  if (mode == GraphMode::AsLoaded) properties_->showNothing();
  showGraph();
  refreshStatus();
}

void MainWindow::refreshStatus() {
  if (!document_->hasProgram()) {
    statusFile_->setText(tr("No program"));
    statusMethod_->clear();
    statusCounts_->clear();
    return;
  }
  statusFile_->setText(document_->isDemo() ? tr("Demo program (built in)") : document_->path());
  const Method* method = document_->currentMethod();
  statusMethod_->setText(method ? tr("method %1").arg(QString::fromStdString(method->displayName())) : QString());
  if (method != nullptr) {
    auto s = analysis::summarizeMethod(*method);
    statusCounts_->setText(tr("%1 instructions, %2 values, %3 delegate calls, %4 h2d / %5 d2h copies")
                               .arg(s.instructions)
                               .arg(s.values)
                               .arg(s.delegate_calls)
                               .arg(s.h2d_copies)
                               .arg(s.d2h_copies));
  }
}

bool MainWindow::showMethod(const QString& name) {
  for (int m = 0; m < document_->methodCount(); ++m)
    if (QString::fromStdString(document_->program().methods()[size_t(m)].displayName()) == name) {
      document_->setCurrentMethod(m);
      return true;
    }
  lastError_ = tr("no method named '%1' in %2").arg(name, document_->displayName());
  return false;
}

bool MainWindow::showPanel(const QString& name) {
  static const QStringList names{"values", "transfers", "timeline", "memory", "diagnostics", "changes", "summary", "outputs"};
  const int index = int(names.indexOf(name.toLower()));
  if (index < 0 || index >= bottomTabs_->count()) {
    lastError_ = tr("no panel named '%1' (one of: %2)").arg(name, names.join(", "));
    return false;
  }
  bottomTabs_->setCurrentIndex(index);
  return true;
}

void MainWindow::populateInstructionMenu(QMenu* menu, size_t instruction) {
  const analysis::Dataflow* dataflow = document_->currentDataflow();
  if (dataflow == nullptr || instruction >= dataflow->instructionCount()) return;
  const int delegate = dataflow->instructions()[instruction].delegate_index;
  if (delegate < 0) return;
  menu->addSection(tr("Target device of delegate %1").arg(delegate));
  addTargetDeviceActions(menu, document_->currentMethodIndex(), delegate);
  menu->addSeparator();
}

void MainWindow::addTargetDeviceActions(QMenu* menu, int method, int delegate) {
  const auto current = document_->delegateTarget(method, delegate);
  for (const QString& choice : PassOptionsPanel::deviceChoices()) {
    std::optional<Device> device;
    if (choice != "none") device = parseDeviceSpec(choice.toStdString()).value();
    auto* action = menu->addAction(choice, this, [this, method, delegate, device] {
      document_->setDelegateTarget(method, delegate, device);
    });
    action->setCheckable(true);
    action->setChecked(current == device);
  }
}

void MainWindow::updateTitle() {
  if (!document_->hasProgram()) {
    setWindowTitle("ptescope");
    return;
  }
  // Qt shows "*" for [*] when the window is modified.
  setWindowTitle(document_->displayName() + "[*] — ptescope");
  setWindowModified(document_->isModified());
}

bool MainWindow::confirmDiscard() {
  if (!document_->hasProgram() || !document_->isModified() || !dialogsAllowed()) return true;
  const auto answer = QMessageBox::question(this, tr("Discard edits?"),
                                            tr("The edits to %1 are not saved. Discard them?").arg(document_->displayName()),
                                            QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Cancel);
  return answer == QMessageBox::Discard;
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (confirmDiscard()) {
    event->accept();
  } else {
    event->ignore();
  }
}

bool MainWindow::saveTo(const QString& path) {
  QString error;
  bool overwrite = false;
  if (!document_->isDemo() && QFileInfo(path) == QFileInfo(document_->path())) {
    if (dialogsAllowed() &&
        QMessageBox::question(this, tr("Overwrite the loaded file?"),
                              tr("%1 is the file this program was loaded from. Overwrite it?").arg(path)) !=
            QMessageBox::Yes)
      return false;
    overwrite = dialogsAllowed();
  }
  if (!document_->saveAs(path, overwrite, &error)) {
    lastError_ = error;
    statusBar()->showMessage(error, 10000);
    if (dialogsAllowed()) QMessageBox::warning(this, tr("Cannot save"), error);
    return false;
  }
  statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
  return true;
}

void MainWindow::showSaveDialog() {
  if (!document_->hasProgram()) return;
  const QString path = QFileDialog::getSaveFileName(this, tr("Save program as"), QString(),
                                                    tr("ExecuTorch programs (*.pte)"));
  if (!path.isEmpty()) saveTo(path);
}

bool MainWindow::exportReportTo(const QString& path) {
  QString error;
  if (!document_->exportReport(path, &error)) {
    lastError_ = error;
    if (dialogsAllowed()) QMessageBox::warning(this, tr("Cannot export the report"), error);
    return false;
  }
  return true;
}

void MainWindow::showExportReportDialog() {
  if (!document_->hasProgram()) return;
  const QString path = QFileDialog::getSaveFileName(this, tr("Export pass report"), QString(), tr("JSON (*.json)"));
  if (!path.isEmpty()) exportReportTo(path);
}

}  // namespace ptescope::ui
