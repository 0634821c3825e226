// MainWindow: the link profile copies are priced on. The chooser sits above
// the Transfers table; a change re-prices the Predicted column and totals,
// the Changes list, the diff banner and the "Predicted copy time" overlay.
#include "ui/window/MainWindow.h"

#include <QComboBox>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

#include "cost/CopyCost.h"
#include "ui/document/Document.h"
#include "ui/graph/GraphView.h"
#include "ui/panels/PropertiesPanel.h"
#include "ui/profile/LinkSelection.h"
#include "ui/profile/TransfersModel.h"

namespace ptescope::ui {

void MainWindow::buildLinks(QVBoxLayout* transfersLayout) {
  links_ = new LinkSelection(this);
  transfersLayout->addWidget(new LinkChooser(links_));
  transfersModel_->setLink(links_->link(), links_->hostMemory());
  connect(links_, &LinkSelection::changed, this, &MainWindow::applyLink);
}

void MainWindow::applyLink() {
  transfersModel_->setLink(links_->link(), links_->hostMemory());
  // CUDA graph replay (the toggle beside the link): the copies it adds
  // inside CudaBackend delegates, on the graph, in Properties and as rows
  // of Transfers.
  transfersModel_->setRunSettings(links_->runSettings());
  graph_->setRunSettings(links_->runSettings());
  properties_->setRunSettings(links_->runSettings());
  updateTransferTotals();
  transfersView_->resizeColumnsToContents();
  graph_->setDiffNote(diffNote());
  updateGraphMeasurements();
}

QString MainWindow::diffNote() const {
  if (graphMode_ != GraphMode::Diff) return {};
  // An edit that changed nothing says why; then what the edits save.
  QStringList notes = document_->unchangedReasons(document_->currentMethodIndex());
  if (const QString saving = predictedSavingNote(); !saving.isEmpty()) notes << saving;
  return notes.join(' ');
}

QString MainWindow::predictedSavingNote() const {
  const auto* report = document_->report();
  const auto* method = document_->currentMethod();
  if (report == nullptr || method == nullptr || links_ == nullptr) return {};
  for (const auto& m : report->methods) {
    if (m.name != method->displayName()) continue;
    // As propagate prices it: the copies inside delegates count too (a
    // delegate whose target_device is removed copies the same tensors
    // itself; the banner read that as a saving of every copy around it),
    // and the words count them beside the et_copy changes.
    const auto p = links_->predictEdit(document_->loadedSnapshot(), document_->programSnapshot(), m.name);
    if (!p || (p->before.copyCount() == 0 && p->after.copyCount() == 0)) return {};
    const QString inside = LinkSelection::insideChangesText(p->inside);
    const QString saving = links_->savingText(p->before.copySeconds(), p->after.copySeconds());
    return inside.isEmpty() ? saving : inside + QStringLiteral(" \u00b7 ") + saving;
  }
  return {};
}

}  // namespace ptescope::ui
