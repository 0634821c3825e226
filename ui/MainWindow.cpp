#include "ui/MainWindow.h"

#include <QApplication>
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
#include "report/InfoReport.h"
#include "ui/Document.h"
#include "ui/ItemRoles.h"
#include "ui/ProgramTreeModel.h"
#include "ui/PropertiesPanel.h"
#include "ui/TransfersModel.h"
#include "ui/ValuesModel.h"

namespace ptescope::ui {
using namespace ptescope::program;

namespace {

constexpr int kMaxRecentFiles = 10;

bool dialogsAllowed() {
  return !qEnvironmentVariableIsSet("PTESCOPE_NO_DIALOGS") && QApplication::platformName() != "offscreen";
}

QTableView* makeTable(QAbstractItemModel* model, const QString& name) {
  auto* view = new QTableView;
  view->setObjectName(name);
  view->setModel(model);
  view->setSortingEnabled(true);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setSelectionMode(QAbstractItemView::SingleSelection);
  view->setAlternatingRowColors(true);
  view->verticalHeader()->setVisible(false);
  view->verticalHeader()->setDefaultSectionSize(20);
  view->horizontalHeader()->setStretchLastSection(true);
  view->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  return view;
}

QString bytesText(qint64 bytes) {
  if (bytes >= (1 << 20)) return QString("%1 MiB").arg(double(bytes) / double(1 << 20), 0, 'f', 1);
  if (bytes >= 1024) return QString("%1 KiB").arg(double(bytes) / 1024.0, 0, 'f', 1);
  return QString("%1 B").arg(bytes);
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

  buildPanels();
  buildMenus();

  statusBar()->addWidget(statusFile_, 1);
  statusBar()->addPermanentWidget(statusMethod_);
  statusBar()->addPermanentWidget(statusCounts_);
  statusBar()->addPermanentWidget(statusGpu_);
  statusGpu_->setObjectName("gpuStatus");

  connect(document_, &Document::programChanged, this, &MainWindow::refreshProgram);
  connect(document_, &Document::currentMethodChanged, this, &MainWindow::refreshMethod);
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

void MainWindow::buildPanels() {
  summary_ = new QPlainTextEdit;
  summary_->setObjectName("summary");
  summary_->setReadOnly(true);
  summary_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  setCentralWidget(summary_);

  tree_ = new QTreeView;
  tree_->setObjectName("programTree");
  tree_->setModel(treeModel_);
  tree_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  connect(tree_, &QTreeView::activated, this, [this](const QModelIndex& index) {
    const int method = index.data(ProgramTreeModel::MethodRole).toInt();
    if (method >= 0) document_->setCurrentMethod(method);
  });
  auto* treeDock = new QDockWidget(tr("Program"), this);
  treeDock->setObjectName("programDock");
  treeDock->setWidget(tree_);
  addDockWidget(Qt::LeftDockWidgetArea, treeDock);

  properties_ = new PropertiesPanel(document_);
  auto* propertiesDock = new QDockWidget(tr("Properties"), this);
  propertiesDock->setObjectName("propertiesDock");
  propertiesDock->setWidget(properties_);
  addDockWidget(Qt::RightDockWidgetArea, propertiesDock);

  // Values: filter by device and by text.
  auto* valuesPage = new QWidget;
  auto* valuesLayout = new QVBoxLayout(valuesPage);
  valuesLayout->setContentsMargins(0, 0, 0, 0);
  auto* filterBar = new QToolBar;
  deviceFilter_ = new QComboBox;
  deviceFilter_->setObjectName("deviceFilter");
  valuesFilter_ = new QLineEdit;
  valuesFilter_->setObjectName("valuesFilter");
  valuesFilter_->setPlaceholderText(tr("Filter values (dtype, sizes, role, ...)"));
  valuesFilter_->setClearButtonEnabled(true);
  filterBar->addWidget(new QLabel(tr(" Device: ")));
  filterBar->addWidget(deviceFilter_);
  filterBar->addSeparator();
  filterBar->addWidget(valuesFilter_);
  valuesView_ = makeTable(valuesProxy_, "valuesView");
  valuesView_->sortByColumn(ValuesModel::Index, Qt::AscendingOrder);
  valuesLayout->addWidget(filterBar);
  valuesLayout->addWidget(valuesView_);
  connect(deviceFilter_, &QComboBox::currentIndexChanged, this,
          [this] { valuesProxy_->setDevice(deviceFilter_->currentData().toString()); });
  connect(valuesFilter_, &QLineEdit::textChanged, valuesProxy_, &QSortFilterProxyModel::setFilterFixedString);
  connect(valuesView_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
    if (current.isValid()) properties_->showValue(current.data(ValueIndexRole).toInt());
  });

  auto* transfersPage = new QWidget;
  auto* transfersLayout = new QVBoxLayout(transfersPage);
  transfersLayout->setContentsMargins(0, 0, 0, 0);
  auto* transfersProxy = new QSortFilterProxyModel(this);
  transfersProxy->setSourceModel(transfersModel_);
  transfersProxy->setSortRole(SortRole);
  transfersView_ = makeTable(transfersProxy, "transfersView");
  transfersView_->sortByColumn(TransfersModel::Instruction, Qt::AscendingOrder);
  transferTotals_ = new QLabel;
  transferTotals_->setObjectName("transferTotals");
  transfersLayout->addWidget(transfersView_);
  transfersLayout->addWidget(transferTotals_);
  connect(transfersView_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            if (current.isValid()) properties_->showInstruction(size_t(current.data(InstructionRole).toULongLong()));
          });

  bottomTabs_ = new QTabWidget;
  bottomTabs_->setObjectName("bottomTabs");
  bottomTabs_->addTab(valuesPage, tr("Values"));
  bottomTabs_->addTab(transfersPage, tr("Transfers"));
  auto* bottomDock = new QDockWidget(tr("Details"), this);
  bottomDock->setObjectName("bottomDock");
  bottomDock->setWidget(bottomTabs_);
  addDockWidget(Qt::BottomDockWidgetArea, bottomDock);
  resizeDocks({bottomDock}, {260}, Qt::Vertical);
  resizeDocks({treeDock, propertiesDock}, {280, 300}, Qt::Horizontal);
}

void MainWindow::buildMenus() {
  auto* toolbar = addToolBar(tr("Main"));
  toolbar->setObjectName("mainToolbar");
  methodSelector_ = new QComboBox;
  methodSelector_->setObjectName("methodSelector");
  methodSelector_->setMinimumContentsLength(18);
  connect(methodSelector_, &QComboBox::activated, this, [this](int index) { document_->setCurrentMethod(index); });

  auto* fileMenu = menuBar()->addMenu(tr("&File"));
  auto* open = fileMenu->addAction(tr("&Open..."), QKeySequence::Open, this, &MainWindow::showOpenDialog);
  fileMenu->addAction(tr("Open &Demo Program"), this, [this] { openDemo(); });
  recentMenu_ = fileMenu->addMenu(tr("Open &Recent"));
  fileMenu->addAction(tr("&Reload"), QKeySequence::Refresh, this, [this] {
    QString error;
    if (document_->hasProgram() && !document_->reload(&error)) showLoadError(error);
  });
  fileMenu->addSeparator();
  fileMenu->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::quit);
  rebuildRecentMenu();

  toolbar->addAction(open);
  toolbar->addSeparator();
  toolbar->addWidget(new QLabel(tr(" Method: ")));
  toolbar->addWidget(methodSelector_);

  auto* viewMenu = menuBar()->addMenu(tr("&View"));
  for (auto* dock : findChildren<QDockWidget*>()) viewMenu->addAction(dock->toggleViewAction());
}

bool MainWindow::openFile(const QString& path) {
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

void MainWindow::showLoadError(const QString& message) {
  lastError_ = message;
  statusBar()->showMessage(message, 10000);
  if (dialogsAllowed()) QMessageBox::warning(this, tr("Cannot open program"), message);
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
  if (!urls.isEmpty() && urls.first().isLocalFile()) openFile(urls.first().toLocalFile());
}

void MainWindow::refreshProgram() {
  methodSelector_->clear();
  if (!document_->hasProgram()) {
    setWindowTitle("ptescope");
    summary_->setPlainText(tr("No program loaded.\n\nUse File > Open to inspect an ExecuTorch program (.pte), "
                              "or File > Open Demo Program."));
    refreshStatus();
    return;
  }
  for (const auto& m : document_->program().methods()) methodSelector_->addItem(QString::fromStdString(m.displayName()));
  setWindowTitle(document_->displayName() + " — ptescope");
  summary_->setPlainText(QString::fromStdString(report::infoText(document_->loaded())));
  tree_->expandToDepth(0);
  refreshMethod();
}

void MainWindow::refreshMethod() {
  const int index = document_->currentMethodIndex();
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
  transferTotals_->setText(tr("%1 transfers: host→device %2, device→host %3")
                               .arg(transfersModel_->rowCount())
                               .arg(bytesText(transfersModel_->totalBytes(true)))
                               .arg(bytesText(transfersModel_->totalBytes(false))));
  tree_->viewport()->update();
  refreshStatus();
}

void MainWindow::refreshStatus() {
  statusGpu_->setText(tr("GPU: checking"));
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
    statusCounts_->setText(tr("%1 instructions, %2 values, %3 delegate calls, %4 H2D / %5 D2H copies")
                               .arg(s.instructions)
                               .arg(s.values)
                               .arg(s.delegate_calls)
                               .arg(s.h2d_copies)
                               .arg(s.d2h_copies));
  }
}

void MainWindow::selectValue(int32_t value) {
  const int row = valuesModel_->rowOfValue(value);
  if (row < 0) return;
  const QModelIndex index = valuesProxy_->mapFromSource(valuesModel_->index(row, 0));
  if (index.isValid()) valuesView_->setCurrentIndex(index);
  properties_->showValue(value);
}

void MainWindow::selectInstruction(size_t instruction) { properties_->showInstruction(instruction); }

}  // namespace ptescope::ui
