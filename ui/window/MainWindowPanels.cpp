// The main window's widgets, one builder per page or dock. Selections are
// wired in MainWindowSelection.cpp, not here.
#include "ui/window/MainWindow.h"

#include <algorithm>
#include <functional>
#include <map>
#include <vector>

#include <QComboBox>
#include <QApplication>
#include <QDockWidget>
#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSortFilterProxyModel>
#include <QStyle>
#include <QStyledItemDelegate>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QHBoxLayout>
#include <QTreeView>
#include <QVBoxLayout>

#include "ui/common/AccessibleNames.h"
#include "ui/common/ColumnFitter.h"
#include "ui/common/EmptyNote.h"
#include "ui/common/ElidedLabel.h"
#include "ui/common/Format.h"
#include "ui/panels/ChangesPanel.h"
#include "ui/panels/DiagnosticsModel.h"
#include "ui/document/Document.h"
#include "ui/graph/GraphView.h"
#include "ui/common/ItemRoles.h"
#include "ui/common/ScrollingNote.h"
#include "ui/common/ViewControls.h"
#include "ui/panels/MemoryPlanView.h"
#include "ui/panels/OutputsPanel.h"
#include "ui/panels/PassOptionsPanel.h"
#include "ui/panels/ProgramTreeModel.h"
#include "ui/panels/PropertiesPanel.h"
#include "ui/profile/TimelineView.h"
#include "ui/profile/TransferSummaryView.h"
#include "ui/profile/TransfersModel.h"
#include "ui/panels/ValuesModel.h"
#include "ui/common/DistinctNames.h"

namespace ptescope::ui {

namespace {

// The Program tree: names and details share the dock's width. The names
// took all the room they wanted and the details were cut at the dock's
// edge with no ellipsis (sizes read "54 E", segments "seg"); now the names
// give way, elided in their middle, until the details fit or the names are
// down to two thirds (a detail then keeps its beginning), and a name column
// the user sizes stays as sized.
class ProgramTreeView : public QTreeView {
 public:
  ProgramTreeView() {
    header()->setStretchLastSection(true);
    // The stretched Details column is never narrower than these (the
    // defaults, 100 px, pushed it past the edge of a narrow dock).
    header()->setMinimumSectionSize(40);
    header()->setDefaultSectionSize(40);
    setTextElideMode(Qt::ElideMiddle);
    // A detail that does not fit keeps its beginning (the size: "57 B in s…").
    setItemDelegateForColumn(1, new ElideDelegate(Qt::ElideRight, this));
    fitter_ = new ColumnFitter(this, 2.0 / 3.0, 40, [this](int width, int names, int room, bool gaveWay) {
      setTextElideMode(Qt::ElideMiddle);
      if (!gaveWay) {
        cores_.clear();
        return width;
      }
      return distinct(width, names, room);
    });
  }
  void setModel(QAbstractItemModel* model) override {
    QTreeView::setModel(model);
    if (header()->count() > 0) header()->setSectionResizeMode(0, QHeaderView::Interactive);
    fitter_->watchModel();
    // An edit, Undo or Redo rebuilds the tree: the branches the user opened
    // and the row they were on stay (every edit closed the method's
    // Delegates and put the focus on the method: walkthrough 23). Rows are
    // known by their names from the top.
    connect(model, &QAbstractItemModel::modelAboutToBeReset, this, [this] {
      opened_.clear();
      std::function<void(const QModelIndex&)> remember = [&](const QModelIndex& parent) {
        for (int r = 0; r < this->model()->rowCount(parent); ++r) {
          const QModelIndex index = this->model()->index(r, 0, parent);
          if (!isExpanded(index)) continue;
          opened_.push_back(pathOf(index));
          remember(index);
        }
      };
      remember(rootIndex());
      current_ = currentIndex().isValid() ? pathOf(currentIndex()) : QStringList();
    });
    connect(model, &QAbstractItemModel::modelReset, this, [this] {
      for (const QStringList& path : opened_)
        if (const QModelIndex index = indexOf(path); index.isValid()) expand(index);
      if (const QModelIndex index = indexOf(current_); index.isValid()) {
        setCurrentIndex(index);
        scrollTo(index);
      }
    });
  }

 private:
  QStringList pathOf(QModelIndex index) const {
    QStringList path;
    for (; index.isValid(); index = index.parent()) path.prepend(index.sibling(index.row(), 0).data().toString());
    return path;
  }
  QModelIndex indexOf(const QStringList& path) const {
    QModelIndex parent = rootIndex();
    for (const QString& name : path) {
      QModelIndex found;
      for (int r = 0; r < model()->rowCount(parent) && !found.isValid(); ++r)
        if (model()->index(r, 0, parent).data().toString() == name) found = model()->index(r, 0, parent);
      if (!found.isValid()) return {};
      parent = found;
    }
    return parent;
  }
  std::vector<QStringList> opened_;
  QStringList current_;

  // Names elided in their middle must not read alike: ten QNN methods
  // "get_kv_output_0_quant_attr" .. "_9_" all read "get_kv_ou…uant_attr".
  // Then the names take what they need to differ (up to `names`, their
  // whole width): which method is which matters more than its details,
  // which keep room for the start of a number and an ellipsis. Where that
  // is not enough (a 1000 px window), they keep their end, else their start.
  int distinct(int width, int names, int room) {
    // A row's name, its indentation and the font it is drawn in (the
    // current method is bold: measured in the regular font, two bold names
    // could read alike).
    struct Row {
      QString name;
      int indent = 0;
      QFontMetrics metrics;
    };
    std::vector<Row> shown;
    const int margin = 2 * (style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, this) + 1);
    std::function<void(const QModelIndex&, int)> collect = [&](const QModelIndex& parent, int depth) {
      for (int r = 0; r < model()->rowCount(parent); ++r) {
        const QModelIndex index = model()->index(r, 0, parent);
        const QVariant font = index.data(Qt::FontRole);
        shown.push_back(Row{index.data().toString(), indentation() * (depth + (rootIsDecorated() ? 1 : 0)) + margin,
                            font.isValid() ? QFontMetrics(font.value<QFont>().resolve(this->font())) : fontMetrics()});
        if (isExpanded(index)) collect(index, depth + 1);
      }
    };
    collect(rootIndex(), 0);
    // A few pixels to spare: the style's text rectangle is not measured here.
    const int spare = 8;
    const auto alike = [&](int w, Qt::TextElideMode mode) {
      std::map<QString, QString> seen;  // shown text -> name
      for (const auto& row : shown) {
        const auto [at, added] = seen.emplace(row.metrics.elidedText(row.name, mode, w - row.indent - spare), row.name);
        if (!added && at->second != row.name) return true;
      }
      return false;
    };
    cores_.clear();
    if (!alike(width, Qt::ElideMiddle)) return width;
    const int most = std::min(names, std::max(width, room - fontMetrics().horizontalAdvance(QStringLiteral("00 …")) - margin));
    for (Qt::TextElideMode mode : {Qt::ElideMiddle, Qt::ElideLeft, Qt::ElideRight})
      for (int w = width; w <= most; w += 4)
        if (!alike(w, mode)) {
          setTextElideMode(mode);
          return w;
        }
    // Names that read alike however they are cut (named data keys
    // "forward_layer0_mlp_so_blob" .. "forward_layer9_..." differ in their
    // middle): each keeps the part that tells it from its neighbours.
    std::vector<QString> all;
    for (const auto& row : shown) all.push_back(row.name);
    cores_ = distinguishingParts(std::move(all));
    return width;
  }

 public:
  // The name as drawn in `width` pixels (DistinctNames.h) where names need
  // it; empty: the view's own elision.
  QString shortened(const QString& name, int width) const {
    const auto it = cores_.find(name);
    return it == cores_.end() ? QString() : elideAround(name, it->second, fontMetrics(), width);
  }

 private:
  std::map<QString, std::pair<int, int>> cores_;
  ColumnFitter* fitter_ = nullptr;
};

// Draws the Program tree's names through ProgramTreeView::shortened.
class NameDelegate : public QStyledItemDelegate {
 public:
  explicit NameDelegate(ProgramTreeView* view) : QStyledItemDelegate(view), view_(view) {}

 protected:
  void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override {
    QStyledItemDelegate::initStyleOption(option, index);
    const int margin = 2 * (view_->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, view_) + 1);
    if (const QString shown = view_->shortened(option->text, option->rect.width() - margin); !shown.isEmpty())
      option->text = shown;
  }

 private:
  ProgramTreeView* view_;
};

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
  // Size columns from the first rows only: measuring 100k rows freezes the UI.
  view->horizontalHeader()->setResizeContentsPrecision(200);
  // Tab moves on to the next control, not from cell to cell (the arrows do
  // that): a keyboard user can always leave a table.
  view->setTabKeyNavigation(false);
  return view;
}

// A Details page that asks for more height than a small screen's dock
// has (the Memory plan's bands) scrolls inside it instead of growing the
// dock: at 1000 x 700 a program with five buffers took the graph down to
// 200 px. Follows
// the page's width; not a Tab stop itself.
QScrollArea* scrollingPage(QWidget* content, const QString& name) {
  auto* scroll = new QScrollArea;
  scroll->setObjectName(name);
  scroll->setWidget(content);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setFocusPolicy(Qt::NoFocus);
  scroll->setMinimumHeight(0);
  return scroll;
}

QDockWidget* makeDock(QMainWindow* window, const QString& title, const QString& name, QWidget* content) {
  auto* dock = new QDockWidget(title, window);
  dock->setObjectName(name);
  dock->setWidget(content);
  return dock;
}

}  // namespace

void MainWindow::buildPanels() {
  summary_ = new QPlainTextEdit;
  summary_->setObjectName("summary");
  summary_->setReadOnly(true);
  summary_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  buildGraph();
  QDockWidget* treeDock = buildProgramTree();
  QDockWidget* propertiesDock = buildProperties();
  QWidget* valuesPage = buildValuesPage();
  QWidget* transfersPage = buildTransfersPage();
  memoryPlan_ = new MemoryPlanView(document_);
  buildDiagnostics();
  buildChanges();
  buildBottomTabs(valuesPage, transfersPage);
  buildPassOptions(propertiesDock);
  // Side panels a fifth of the window each (280 / 300 px at 1400), so that
  // the graph keeps the middle on a small screen too.
  resizeDocks({treeDock, propertiesDock}, {std::min(280, width() / 5), std::min(300, width() / 5)}, Qt::Horizontal);
  sizeDocksToWindow();
  // A dock moved or tabbed with another: its tab bar is new or elsewhere.
  for (QDockWidget* dock : findChildren<QDockWidget*>(QString(), Qt::FindDirectChildrenOnly))
    connect(dock, &QDockWidget::dockLocationChanged, this, [this] { QTimer::singleShot(0, this, &MainWindow::orderDockTabBars); });
  connectSelection();
}

void MainWindow::orderDockTabBars() {
  // The tab bar of docks tabbed together (Properties / Pass options) is made
  // by the window's layout and joins the Tab chain at its end: Tab reached it
  // after the Details dock's table, far from the panels it switches. Each
  // such bar goes just before the first control of its docks.
  for (QTabBar* bar : findChildren<QTabBar*>(QString(), Qt::FindDirectChildrenOnly)) {
    if (bar->count() == 0) continue;
    std::vector<QDockWidget*> docks;
    for (QDockWidget* dock : findChildren<QDockWidget*>(QString(), Qt::FindDirectChildrenOnly))
      for (int i = 0; i < bar->count(); ++i)
        if (!dock->isFloating() && withoutMnemonic(bar->tabText(i)) == withoutMnemonic(dock->windowTitle())) docks.push_back(dock);
    if (docks.empty()) continue;
    // The first widget of these docks in the chain; the bar goes before it.
    QWidget* first = nullptr;
    for (QWidget* w = nextInFocusChain(); w != nullptr && w != this; w = w->nextInFocusChain()) {
      if (w == bar) continue;
      if (std::any_of(docks.begin(), docks.end(), [w](QDockWidget* d) { return d->isAncestorOf(w); })) {
        first = w;
        break;
      }
    }
    if (first == nullptr) continue;
    // setTabOrder() takes a Tab stop to put the bar after (it ignores a
    // widget that takes no focus): the last one before the docks' first.
    QWidget* before = first->previousInFocusChain();
    while (before != nullptr && before != first && before != bar && !(before->focusPolicy() & Qt::TabFocus))
      before = before->previousInFocusChain();
    if (before != nullptr && before != first && before != bar) setTabOrder(before, bar);
  }
}

void MainWindow::sizeDocksToWindow() {
  // The graph keeps the middle on a small screen: Details 27% of the height
  // below 800 px (at 1000 x 700 the canvas keeps 44% of the height under the
  // diff banner and the legend; it had 37%). From 800 px, 30% (300 px at
  // most): at the first size, 1400 x 900, 243 px left a profile's fourth
  // Timeline lane below the fold.
  if (auto* details = findChild<QDockWidget*>(QStringLiteral("bottomDock")))
    resizeDocks({details}, {height() < 800 ? height() * 27 / 100 : std::min(300, height() * 30 / 100)}, Qt::Vertical);
}

void MainWindow::buildGraph() {
  graph_ = new GraphView;
  graph_->setObjectName("graphView");
  graph_->setEmptyText(tr("No program open.\n\nOpen a program (.pte) with File > Open (Ctrl+O) or drop it here; "
                          "File > Open Demo Program shows what ptescope does."));
  setCentralWidget(graph_);
  // A delegate's target device is editable from its node in the graph too.
  graph_->setInstructionMenuProvider([this](QMenu* menu, size_t instruction) {
    if (graphNumbersAsPanels()) populateInstructionMenu(menu, instruction);
  });
}

QDockWidget* MainWindow::buildProgramTree() {
  auto* treeView = new ProgramTreeView;
  treeView->setItemDelegateForColumn(0, new NameDelegate(treeView));
  tree_ = treeView;
  tree_->setObjectName("programTree");
  tree_->setModel(treeModel_);
  // A delegate's target device is editable from the tree.
  tree_->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(tree_, &QTreeView::customContextMenuRequested, this, [this](const QPoint& position) {
    const QModelIndex index = tree_->indexAt(position);
    if (!index.isValid() ||
        index.data(ProgramTreeModel::KindRole).toInt() != int(ProgramTreeModel::NodeKind::Delegate))
      return;
    const int method = index.data(ProgramTreeModel::MethodRole).toInt();
    const int delegate = index.data(ProgramTreeModel::ItemIndexRole).toInt();
    QMenu menu(this);
    menu.addSection(tr("Target device of delegate %1").arg(delegate));
    addTargetDeviceActions(&menu, method, delegate);
    menu.exec(tree_->viewport()->mapToGlobal(position));
  });
  auto* dock = makeDock(this, tr("Program"), "programDock", tree_);
  addDockWidget(Qt::LeftDockWidgetArea, dock);
  return dock;
}

QDockWidget* MainWindow::buildProperties() {
  properties_ = new PropertiesPanel(document_);
  properties_->setGroupNamer([this](size_t instruction) { return graph_ ? graph_->groupPathText(instruction) : QString(); });
  auto* dock = makeDock(this, tr("Properties"), "propertiesDock", properties_);
  addDockWidget(Qt::RightDockWidgetArea, dock);
  return dock;
}

QWidget* MainWindow::buildValuesPage() {
  // Values: filter by device and by text.
  auto* page = new QWidget;
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(0, 0, 0, 0);
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
  layout->addWidget(filterBar);
  layout->addWidget(valuesView_);
  connect(deviceFilter_, &QComboBox::currentIndexChanged, this,
          [this] { valuesProxy_->setDevice(deviceFilter_->currentData().toString()); });
  connect(valuesFilter_, &QLineEdit::textChanged, valuesProxy_, &DeviceFilterProxy::setWords);
  // A filter that hides every value says so, with what it hides; the table
  // is never just empty while the method has values.
  attachEmptyNote(valuesView_, "valuesEmpty");
  auto sayWhyEmpty = [this] {
    const int all = valuesModel_->rowCount();
    QString why;
    if (!document_->hasProgram())
      why = tr("No program is open");
    else if (all == 0)
      why = tr("This method has no values");
    else {
      QStringList filters;
      if (!valuesProxy_->device().isEmpty()) filters << tr("on %1").arg(valuesProxy_->device());
      if (!valuesFilter_->text().trimmed().isEmpty()) filters << tr("matching '%1'").arg(valuesFilter_->text().trimmed());
      why = tr("No value %1 (of %2): clear the filter to see them all").arg(filters.join(tr(" and ")), countText(all, tr("value")));
    }
    setEmptyNote(valuesView_, valuesProxy_->rowCount() == 0, why);
  };
  followRows(valuesView_, sayWhyEmpty);
  // More words that still match nothing change no row: the note follows them.
  connect(valuesFilter_, &QLineEdit::textChanged, this, sayWhyEmpty);
  connect(deviceFilter_, &QComboBox::currentIndexChanged, this, sayWhyEmpty);
  return page;
}

QWidget* MainWindow::buildTransfersPage() {
  auto* page = new QWidget;
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(0, 0, 0, 0);
  auto* proxy = new QSortFilterProxyModel(this);
  proxy->setSourceModel(transfersModel_);
  proxy->setSortRole(SortRole);
  transfersView_ = makeTable(proxy, "transfersView");
  transfersView_->sortByColumn(TransfersModel::Instruction, Qt::AscendingOrder);
  // A share of a link's peak and a measured / predicted ratio that no row
  // has are hidden, not "—" on every row: an emulated profile (no GPU) has
  // neither, an imported ETDump or a profile that did not measure the peak
  // has no peak.
  auto hideEmptyColumns = [this] {
    const bool measured = transfersModel_->hasMeasurements();
    for (int column : {int(TransfersModel::PeakShare), int(TransfersModel::MeasuredOverPredicted)})
      transfersView_->setColumnHidden(column, measured && !transfersModel_->columnHasNumbers(column));
  };
  connect(proxy, &QAbstractItemModel::modelReset, this, hideEmptyColumns);
  connect(proxy, &QAbstractItemModel::columnsInserted, this, hideEmptyColumns);
  connect(proxy, &QAbstractItemModel::layoutChanged, this, hideEmptyColumns);
  // A method without a copy says so in the table (it was a bare header).
  attachEmptyNote(transfersView_, "transfersEmpty");
  auto sayWhyEmpty = [this, proxy] {
    setEmptyNote(transfersView_, proxy->rowCount() == 0,
                 document_->hasProgram()
                     ? tr("This method has no copies: no et_copy instruction, and no copy inside a delegate")
                     : tr("No program is open"));
  };
  followRows(transfersView_, sayWhyEmpty);
  transferTotals_ = new QLabel;
  transferTotals_->setObjectName("transferTotals");
  transferTotals_->setAccessibleName(tr("Transfer totals"));
  // Wraps: a long line must not set the window's minimum width. Three
  // lines at most, the rest scrolled to: a runner's comparison (six lines)
  // left the table two of its fourteen rows at 1600x1000.
  transferTotals_->setWordWrap(true);
  transferTotalsArea_ = new ScrollingNote(transferTotals_, 3);
  transferTotalsArea_->setObjectName("transferTotalsArea");
  buildLinks(layout);
  layout->addWidget(transfersView_, 1);
  layout->addWidget(transferTotalsArea_);
  transferSummary_ = new TransferSummaryView;
  layout->addWidget(transferSummary_);
  // Unfolded, the Summary shares the height with the table (it took its
  // whole size hint, and the totals between them were cut in half at
  // 1600x1000: walkthrough 23); the totals keep theirs.
  connect(transferSummary_, &TransferSummaryView::unfolded, this,
          [layout, this](bool open) { layout->setStretchFactor(transferSummary_, open ? 1 : 0); });
  return page;
}

void MainWindow::buildDiagnostics() {
  diagnosticsModel_ = new DiagnosticsModel(document_, this);
  auto* proxy = new QSortFilterProxyModel(this);
  proxy->setSourceModel(diagnosticsModel_);
  proxy->setSortRole(SortRole);
  diagnosticsView_ = makeTable(proxy, "diagnosticsView");
  // Severity and rule are as wide as their text; location, finding and fix
  // share the rest and wrap at their spaces, each row as high as its
  // longest text, so every text is whole (a fix cut to "export with
  // alloc…" said nothing). Every cell's whole text is also its tooltip.
  auto* header = diagnosticsView_->horizontalHeader();
  header->setStretchLastSection(false);
  header->setSectionResizeMode(DiagnosticsModel::Severity, QHeaderView::ResizeToContents);
  header->setSectionResizeMode(DiagnosticsModel::Id, QHeaderView::ResizeToContents);
  for (int column : {int(DiagnosticsModel::Location), int(DiagnosticsModel::Message), int(DiagnosticsModel::Hint)})
    header->setSectionResizeMode(column, QHeaderView::Stretch);
  diagnosticsView_->setWordWrap(true);
  diagnosticsView_->verticalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  diagnosticsView_->setTextElideMode(Qt::ElideMiddle);
  // An empty table says why it is empty, in its middle.
  attachEmptyNote(diagnosticsView_, "diagnosticsEmpty");
  auto sayWhyEmpty = [this] {
    setEmptyNote(diagnosticsView_, diagnosticsModel_->rowCount() == 0,
                 document_->hasProgram() ? tr("No findings: no lint rule fires on any method of this program")
                                         : tr("No program is open"));
  };
  connect(diagnosticsModel_, &DiagnosticsModel::countsChanged, this, sayWhyEmpty);
  sayWhyEmpty();
}

QWidget* MainWindow::buildMemoryPlanPage() {
  // The plan scrolls both ways: down through its buffers, sideways when
  // zoomed in on the instruction axis with the buttons above it (as the
  // Timeline's), Ctrl+wheel or Ctrl+= / Ctrl+- / Ctrl+0.
  QScrollArea* scroll = scrollingPage(memoryPlan_, "memoryPlanPage");
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  memoryPlan_->setScrollArea(scroll);
  const ZoomControls zoom = makeZoomControls(QStringLiteral("memoryPlan"), tr("Memory plan zoom"),
                                             tr("Show every instruction (Ctrl+0)"));
  auto* controls = new QHBoxLayout;
  controls->setContentsMargins(4, 0, 4, 0);
  // The selected tensor in words (in a big method it is a few pixels wide:
  // walkthrough 22), else how to step through them.
  const QString keys = tr("Arrow keys step from tensor to tensor; Home, End; Esc clears");
  auto* hint = new ElidedLabel(keys);
  hint->setObjectName("memoryPlanHint");
  hint->setElideMode(Qt::ElideRight);
  hint->setAccessibleName(tr("Memory plan selection"));
  hint->setAccessibleDescription(keys);
  controls->addWidget(hint, 1);
  connect(memoryPlan_, &MemoryPlanView::selectionDescribed, hint, [hint, keys](const QString& text) {
    hint->setText(text.isEmpty() ? keys : tr("Selected: %1").arg(text));
    hint->setForegroundRole(text.isEmpty() ? QPalette::PlaceholderText : QPalette::WindowText);
    hint->setAccessibleDescription(hint->text());
  });
  hint->setForegroundRole(QPalette::PlaceholderText);
  for (QWidget* w : std::initializer_list<QWidget*>{zoom.level, zoom.zoomOut, zoom.zoomIn, zoom.fit}) controls->addWidget(w);
  connect(zoom.zoomIn, &QToolButton::clicked, memoryPlan_, &MemoryPlanView::zoomIn);
  connect(zoom.zoomOut, &QToolButton::clicked, memoryPlan_, &MemoryPlanView::zoomOut);
  connect(zoom.fit, &QToolButton::clicked, memoryPlan_, &MemoryPlanView::zoomToFit);
  const auto showZoom = [this, zoom](double level) {
    const bool drawn = !memoryPlan_->bands().empty();
    zoom.level->setText(drawn ? QStringLiteral("%1%").arg(qRound(level * 100)) : QString());
    zoom.level->setAccessibleDescription(zoom.level->text());  // the name says what it is
    zoom.zoomIn->setEnabled(drawn && level < memoryPlan_->maxZoom());
    zoom.zoomOut->setEnabled(drawn && level > 1.0);
    zoom.fit->setEnabled(drawn && level > 1.0);
  };
  connect(memoryPlan_, &MemoryPlanView::zoomChanged, this, showZoom);
  showZoom(memoryPlan_->zoom());
  auto* page = new QWidget;
  page->setObjectName("memoryPlanTab");
  auto* layout = new QVBoxLayout(page);
  layout->setContentsMargins(0, 2, 0, 0);
  layout->setSpacing(2);
  layout->addLayout(controls);
  layout->addWidget(scroll, 1);
  return page;
}

void MainWindow::buildChanges() {
  changes_ = new ChangesPanel(document_);
  changes_->setLinkSelection(links_);
}

void MainWindow::buildBottomTabs(QWidget* valuesPage, QWidget* transfersPage) {
  bottomTabs_ = new QTabWidget;
  bottomTabs_->setObjectName("bottomTabs");
  bottomTabs_->addTab(valuesPage, tr("Values"));
  bottomTabs_->addTab(transfersPage, tr("Transfers"));
  timeline_ = new TimelineView;
  timeline_->setObjectName("timeline");
  // (The Timeline keeps its height: its legend is drawn under the lanes,
  // which a scrolling page hid below the fold.)
  bottomTabs_->addTab(timeline_, tr("Timeline"));
  bottomTabs_->addTab(buildMemoryPlanPage(), tr("Memory plan"));
  bottomTabs_->addTab(diagnosticsView_, tr("Diagnostics"));
  bottomTabs_->addTab(changes_, tr("Changes"));
  buildAdvisor();
  // What `ptescope-cli info` prints: named apart from the Transfers panel's
  // Summary of a profile, which shared its name.
  bottomTabs_->addTab(summary_, tr("Info"));
  bottomTabs_->setTabToolTip(bottomTabs_->indexOf(summary_), tr("The program's facts as ptescope-cli info prints them"));
  outputs_ = new OutputsPanel(document_);
  bottomTabs_->addTab(outputs_, tr("Outputs"));
  // A run that fails or is refused (the memory budget) says so in the Outputs
  // panel, brought forward (its header and, whole, in the empty table), and in
  // the status bar: no dialog to dismiss on top (one error was said three
  // times, walkthrough 21). A run the user cancelled is no error.
  connect(outputs_, &OutputsPanel::failed, this, [this](const QString& message) {
    if (message == QLatin1String(exec::kRunCancelled)) {
      showStatus(tr("Run Once cancelled"), 5000);
      return;
    }
    lastError_ = tr("%1: %2").arg(document_->displayName(), message);
    bottomTabs_->setCurrentWidget(outputs_);
    showStatus(tr("Run Once failed: %1 (the Outputs tab says why)").arg(document_->displayName()), 15000, lastError_);
  });
  // A run that succeeds replaces what the status bar said of an earlier one
  // (a failed run of another method stayed there 15 s, over the file's name).
  connect(outputs_, &OutputsPanel::finished, this, [this] {
    if (const auto& result = outputs_->lastResult())
      showStatus(result->run() == 0 && result->instructions > 0
                     ? tr("Method '%1' ran no instruction: its outputs were not computed (see Outputs)")
                           .arg(QString::fromStdString(result->method))
                     : tr("Ran method '%1' once: its outputs are in the Outputs tab").arg(QString::fromStdString(result->method)),
                 5000);
  });
  connect(diagnosticsModel_, &DiagnosticsModel::countsChanged, this, [this] {
    const int errors = diagnosticsModel_->errorCount(), warnings = diagnosticsModel_->warningCount(),
              infos = diagnosticsModel_->infoCount();
    // Every row counted: "(0 errors, 1 warning)" over four rows hid three info findings.
    QString text = tr("Diagnostics");
    if (errors + warnings > 0 || infos > 0) {
      QStringList counts{countText(errors, tr("error")), countText(warnings, tr("warning"))};
      if (infos > 0) counts << countText(infos, tr("info finding"));
      text += " (" + counts.join(", ") + ")";
    }
    bottomTabs_->setTabText(bottomTabs_->indexOf(diagnosticsView_), text);
  });
  auto* dock = makeDock(this, tr("Details"), "bottomDock", bottomTabs_);
  addDockWidget(Qt::BottomDockWidgetArea, dock);
}

void MainWindow::buildPassOptions(QDockWidget* besides) {
  passOptions_ = new PassOptionsPanel(document_);
  auto* scroll = new QScrollArea;
  scroll->setObjectName("passOptionsScroll");
  scroll->setWidget(passOptions_);
  scroll->setWidgetResizable(true);
  // Scrolls up and down only: the panel is as wide as its widest line needs
  // (the option names), its notes wrap.
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  // As wide as the panel's widest line, also after a refresh made it wider
  // (an edited option is bold, delegate rows come and go): it never runs
  // past the dock's right edge.
  auto fit = [this, scroll] {
    scroll->setMinimumWidth(passOptions_->minimumSizeHint().width() + scroll->verticalScrollBar()->sizeHint().width() + 4);
  };
  fit();
  // Tab goes through Pass options as one panel, top to bottom, after
  // Properties: the rows a refresh makes joined the window's chain at its
  // end, so Tab went from the tool bar to two delegate choosers, to the
  // graph, and later to the rest (issue 34 item 18). The scroll area is no
  // stop of its own (an unnamed one); its controls are.
  scroll->setFocusPolicy(Qt::NoFocus);
  // A control that gets the focus from outside the panel (Tab from the
  // Program tree) is scrolled into view: the scroll area does that only for
  // Tab between its own controls, and at 1000x700 the keyboard landed on a
  // check box scrolled out of sight (Space would toggle device planning
  // unseen).
  connect(qApp, &QApplication::focusChanged, scroll, [this, scroll](QWidget*, QWidget* now) {
    if (now != nullptr && passOptions_->isAncestorOf(now)) scroll->ensureWidgetVisible(now);
  });
  auto order = [this] {
    QWidget* previous = properties_;
    for (QWidget* w : passOptions_->findChildren<QWidget*>())
      if ((w->focusPolicy() & Qt::TabFocus) && !w->isWindow()) {
        setTabOrder(previous, w);
        previous = w;
      }
  };
  order();
  connect(passOptions_, &PassOptionsPanel::refreshed, scroll, [fit, order] {
    fit();
    order();
  });
  auto* dock = makeDock(this, tr("Pass options"), "passOptionsDock", scroll);
  addDockWidget(Qt::RightDockWidgetArea, dock);
  tabifyDockWidget(besides, dock);
  besides->raise();
  // A dock behind the other's tab is out of sight: its controls are no Tab
  // stops then (Tab went through six hidden Pass options controls).
  for (QDockWidget* tabbed : {besides, dock})
    connect(tabbed, &QDockWidget::visibilityChanged, tabbed, [tabbed](bool visible) { tabbed->widget()->setEnabled(visible); });
}

}  // namespace ptescope::ui
