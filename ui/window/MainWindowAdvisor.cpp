// The Advisor tab of the Details panel, and its preview of a candidate in
// the graph: while a candidate is previewed the graph shows the file with
// that candidate applied, marked as the diff view marks an edit, and its
// clicks select nothing in the panels (their numbering is the document's).
#include "ui/window/MainWindow.h"

#include <QTabWidget>

#include "ui/document/Document.h"
#include "ui/graph/GraphView.h"
#include "ui/panels/AdvisorPanel.h"

namespace ptescope::ui {

void MainWindow::buildAdvisor() {
  advisor_ = new AdvisorPanel(document_, links_);
  bottomTabs_->addTab(advisor_, tr("Advisor"));
  bottomTabs_->setTabToolTip(bottomTabs_->indexOf(advisor_),
                             tr("The edits that save the most copy time on the chosen link; ranked by the measured "
                                "profile when one of the method is open"));
  connect(advisor_, &AdvisorPanel::previewReady, this,
          [this](std::shared_ptr<const program::Program> program, int method,
                 std::shared_ptr<const layout::MethodChanges> changes, const QString& note) {
            if (method != document_->currentMethodIndex()) return;
            advisorPreview_ = true;
            graph_->setMethod(std::move(program), method, std::move(changes));
            graph_->setDiffNote(note);
            updateGraphMeasurements();  // none: the overlay's numbers are the document's
          });
  connect(advisor_, &AdvisorPanel::previewEnded, this, [this] {
    if (advisorPreview_) showGraph();
  });
}

bool MainWindow::graphNumbersAsPanels() const { return graphMode_ != GraphMode::AsLoaded && !advisorPreview_; }

}  // namespace ptescope::ui
