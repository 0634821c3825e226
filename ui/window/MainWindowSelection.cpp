// Every view publishes what the user picks to the window's Selection and
// follows what it says; no view is wired to another. See ui/document/Selection.h for
// why publishing cannot loop.
#include "ui/window/MainWindow.h"

#include <QComboBox>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTableWidget>
#include <QTreeView>

#include "ui/panels/ChangesPanel.h"
#include "ui/panels/DiagnosticsModel.h"
#include "ui/document/Document.h"
#include "ui/graph/GraphView.h"
#include "ui/common/ItemRoles.h"
#include "ui/panels/MemoryPlanView.h"
#include "ui/panels/OutputsPanel.h"
#include "ui/panels/ProgramTreeModel.h"
#include "ui/panels/PropertiesPanel.h"
#include "ui/document/Selection.h"
#include "ui/profile/TimelineView.h"
#include "ui/profile/TransfersModel.h"
#include "ui/panels/ValuesModel.h"

namespace ptescope::ui {

namespace {

// Makes `row` of `model` (a source row under the view's proxy) the view's
// current row; nothing when it is filtered out or there is none.
// The row of the selection in a table, in sight; none when the selection has
// no row there (an arrow key moved the graph off a copy: its row stayed lit).
void showRow(QTableView* view, QAbstractItemModel* model, int row) {
  if (row < 0) {
    view->setCurrentIndex(QModelIndex());
    view->clearSelection();
    return;
  }
  auto* proxy = qobject_cast<QSortFilterProxyModel*>(view->model());
  const QModelIndex index = proxy->mapFromSource(model->index(row, 0));
  if (!index.isValid()) return;
  view->setCurrentIndex(index);
  view->scrollTo(index);
}

}  // namespace

void MainWindow::connectSelection() {
  publishFromViews();
  followSelection();
}

void MainWindow::publishFromViews() {
  // The "as loaded" view numbers instructions and values as the file does,
  // an Advisor preview as the candidate does, the panels as the edited
  // program does: only the other views select.
  connect(graph_, &GraphView::instructionSelected, this, [this](size_t i) {
    if (graphNumbersAsPanels()) selection_->selectInstruction(i, graph_);
  });
  connect(graph_, &GraphView::valueSelected, this, [this](int32_t v) {
    if (graphNumbersAsPanels()) selection_->selectValue(v, graph_);
  });
  connect(graph_, &GraphView::selectionCleared, this, [this] { selection_->clear(graph_); });
  connect(graph_, &GraphView::groupSelected, this, [this](size_t node) {
    const auto* shown = graph_->currentLayout();
    if (shown != nullptr && node < shown->model.nodes.size()) properties_->showGroup(shown->model.nodes[node]);
  });
  connect(tree_, &QTreeView::activated, this, [this](const QModelIndex& index) {
    const int method = index.data(ProgramTreeModel::MethodRole).toInt();
    if (method >= 0) selection_->selectMethod(method);
  });
  connect(valuesView_->selectionModel(), &QItemSelectionModel::currentRowChanged, this, [this](const QModelIndex& current) {
    if (current.isValid()) selection_->selectValue(current.data(ValueIndexRole).toInt(), valuesView_);
  });
  connect(transfersView_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            // Removed rows (measured before, gone from the program) have none.
            if (!current.isValid() || current.data(InstructionRole).toLongLong() < 0) return;
            selection_->selectInstruction(size_t(current.data(InstructionRole).toULongLong()), transfersView_);
          });
  connect(memoryPlan_, &MemoryPlanView::valueClicked, this, [this](int32_t v) { selection_->selectValue(v, memoryPlan_); });
  connect(memoryPlan_, &MemoryPlanView::selectionCleared, this, [this] { selection_->clear(); });
  QTableWidget* outputRows = outputs_->table();
  connect(outputRows->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this, outputRows](const QModelIndex& current) {
            const int32_t value = current.isValid() ? outputs_->valueOfRow(current.row()) : -1;
            if (value >= 0) selection_->selectValue(value, outputRows);
          });
  connect(diagnosticsView_, &QTableView::activated, this, [this](const QModelIndex& index) {
    const QString method = index.data(DiagnosticsModel::MethodNameRole).toString();
    for (int m = 0; m < document_->methodCount(); ++m)
      if (QString::fromStdString(document_->program().methods()[size_t(m)].displayName()) == method)
        selection_->selectMethod(m);
    qlonglong instruction = index.data(InstructionRole).toLongLong();
    const int value = index.data(ValueIndexRole).toInt();
    // A finding about a delegate (PTS016, PTS007) selects its first call:
    // it selected nothing.
    if (const int delegate = index.data(DiagnosticsModel::DelegateRole).toInt();
        instruction < 0 && value < 0 && delegate >= 0 && document_->currentMethod() != nullptr) {
      size_t flat = 0;
      for (const auto& chain : program::items(document_->currentMethod()->chains))
        for (const auto& step : program::items(chain.instructions)) {
          const auto* call = std::get_if<program::DelegateCall>(&step.data);
          if (instruction < 0 && call != nullptr && call->delegate_index == delegate) instruction = qlonglong(flat);
          ++flat;
        }
    }
    if (instruction >= 0) selection_->selectInstruction(size_t(instruction), diagnosticsView_);
    else if (value >= 0) selection_->selectValue(value, diagnosticsView_);
  });
  // A change is found on the diff view's graph.
  connect(changes_, &ChangesPanel::valueActivated, this, [this](int32_t v) {
    setGraphMode(GraphMode::Diff);
    selection_->selectValue(v, changes_);
  });
  connect(changes_, &ChangesPanel::instructionActivated, this, [this](size_t i) {
    setGraphMode(GraphMode::Diff);
    selection_->selectInstruction(i, changes_);
  });
  // The timeline publishes where its profile is wired (MainWindowProfile.cpp).
}

void MainWindow::followSelection() {
  connect(selection_, &Selection::methodChanged, this, [this](int, bool newProgram) { showMethodChange(newProgram); });
  connect(selection_, &Selection::instructionSelected, this, [this](size_t i, const QObject* source) {
    properties_->showInstruction(i);
    memoryPlan_->selectValue(-1);
    showOutputRow(-1);
    if (source != graph_) {
      showSelectableGraph();
      graph_->selectInstruction(i);
    }
    if (source != timeline_)
      if (auto profiled = profiledOfCurrent(i)) timeline_->selectInstruction(*profiled);
    // The copy's row in Transfers.
    if (source != transfersView_) showRow(transfersView_, transfersModel_, transfersModel_->rowOfInstruction(i));
  });
  connect(selection_, &Selection::valueSelected, this, [this](int32_t v, const QObject* source) {
    properties_->showValue(v);
    memoryPlan_->selectValue(v);
    if (source != valuesView_) showRow(valuesView_, valuesModel_, valuesModel_->rowOfValue(v));
    if (source != outputs_->table()) showOutputRow(outputs_->rowOfValue(v));
    if (source != graph_) {
      showSelectableGraph();
      graph_->selectValue(v);
    }
  });
  connect(selection_, &Selection::cleared, this, [this](const QObject* source) {
    // Nothing selected: Properties shows the method again, not the last pick.
    properties_->showNothing();
    memoryPlan_->selectValue(-1);
    showOutputRow(-1);
    if (source != transfersView_) showRow(transfersView_, transfersModel_, -1);
    if (source != valuesView_) showRow(valuesView_, valuesModel_, -1);
    if (source != graph_) graph_->clearSelection();
  });
}

// The Outputs row of the selected value, or none (the value is not an output
// of the method the rows are for).
void MainWindow::showOutputRow(int row) {
  QTableWidget* table = outputs_->table();
  if (row < 0) {
    table->setCurrentIndex(QModelIndex());
    table->clearSelection();
    return;
  }
  table->setCurrentCell(row, 0);
  table->scrollToItem(table->item(row, 0));
}

void MainWindow::showMethodChange(bool newProgram) {
  properties_->showNothing();
  if (newProgram) refreshProgram();
  else refreshMethod();
  // The Program tree's highlight follows a method chosen elsewhere (the
  // Method box, Find): it stayed on the method chosen before.
  if (const QModelIndex row = treeModel_->methodIndex(document_->currentMethodIndex());
      row.isValid() && tree_->currentIndex().data(ProgramTreeModel::MethodRole).toInt() != document_->currentMethodIndex()) {
    const QSignalBlocker quiet(tree_->selectionModel());
    tree_->selectionModel()->setCurrentIndex(row, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    tree_->viewport()->update();
  }
}

void MainWindow::selectValue(int32_t value) {
  if (valuesModel_->rowOfValue(value) < 0) return;  // no such value in the method
  selection_->selectValue(value);
}

void MainWindow::selectInstruction(size_t instruction) { selection_->selectInstruction(instruction); }

}  // namespace ptescope::ui
