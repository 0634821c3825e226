// The main window's File > Export Report...: the one-file HTML report
// (report/HtmlReport.h, what `ptescope-cli report` writes) of the program
// as the window shows it, edits included (compared with the file as
// loaded), with the measurements the Transfers panel shows and copies
// priced on the link chosen there. File > Export Pass Report as JSON... keeps
// the pipeline's JSON report (exportReportTo).
#include <QApplication>
#include <QFileInfo>

#include "passes/ProgramDiff.h"
#include "report/HtmlReport.h"
#include "ui/document/Document.h"
#include "ui/profile/LinkSelection.h"
#include "ui/profile/ProfileSession.h"
#include "ui/profile/TransfersModel.h"
#include "ui/window/MainWindow.h"

namespace ptescope::ui {

bool MainWindow::exportHtmlReportTo(const QString& path) {
  const QString title = tr("Cannot export the report");
  if (!document_->hasProgram()) {
    showError(title, tr("Open a program first"));
    return false;
  }
  document_->waitForPipeline();  // the edits' program, not the one before them
  report::HtmlReportInput input;
  input.program = &document_->program();
  input.program_name = document_->displayName().toStdString();
  const auto link = links_->link();
  input.link = link.get();
  input.host_memory = links_->hostMemory();
  input.run_settings = links_->runSettings();  // CUDA graph replay, as report --cuda-graph
  // What the window shows goes into the report: the edits' before and
  // after (as `report --compare`), and the measurements shown in Transfers
  // (a profile run here or an imported ETDump, as `report --etdump`).
  const std::string loadedName = QFileInfo(document_->path()).fileName().toStdString();
  if (document_->isModified()) {
    input.notes.push_back("The program as ptescope shows it, with edits not saved to " + input.program_name + ".");
    input.compare = &document_->loadedProgram();
    input.compare_name = (loadedName.empty() ? input.program_name : loadedName) + " as loaded";
  }
  if (const auto& run = profiler_->latest(); run && run->profile) {
    // An imported trace: every method it ran, as `report --etdump`.
    if (run->traceMethods.empty()) input.measured.push_back(*run->profile);
    for (const auto& [method, traced] : run->traceMethods) input.measured.push_back(*traced.profile);
    input.measured_name = run->label.toStdString();
    // A profile of the program before the edits says so, as the window does.
    input.measured_before = transfersModel_->measuredBeforeWords().toStdString();
    // Of an edited program, only the methods the edits changed (a copy added
    // or removed, a value moved): the others were measured as they are.
    if (!input.measured_before.empty() && input.compare != nullptr)
      if (auto diff = passes::diffPrograms(*input.compare, *input.program)) {
        for (const auto& md : diff->methods)
          if (!md.copies_only_in_a.empty() || !md.copies_only_in_b.empty() || !md.placement.empty())
            input.measured_before_methods.push_back(md.name);
        // The method on screen is, whatever the diff says (Transfers said so).
        const std::string shown = document_->program().methods()[size_t(document_->currentMethodIndex())].displayName();
        if (std::find(input.measured_before_methods.begin(), input.measured_before_methods.end(), shown) ==
            input.measured_before_methods.end())
          input.measured_before_methods.push_back(shown);
      }
    input.measured_across_methods = run->acrossMethods;  // a trace of several methods: PRF004 across them
    input.notes.insert(input.notes.end(), run->traceNotes.begin(), run->traceNotes.end());  // an ETDump's assumptions
  }
  for (const auto& warning : document_->loaded().warnings) input.notes.push_back(warning);
  QApplication::setOverrideCursor(Qt::WaitCursor);
  const auto written = report::writeHtmlReport(path.toStdString(), input);
  QApplication::restoreOverrideCursor();
  if (!written) {
    // The writer's message names the file already (it read "r.html: r.html: ...").
    const QString message = QString::fromStdString(written.error().message);
    showError(title, message.contains(path) ? message : tr("%1: %2").arg(path, message));
    return false;
  }
  showStatus(tr("Wrote the report %1").arg(path), 5000);
  return true;
}

void MainWindow::showExportHtmlReportDialog() {
  if (!document_->hasProgram()) return;
  const QString proposed = QFileInfo(document_->displayName()).completeBaseName() + QStringLiteral(".report.html");
  const QString path = askSavePath(tr("Export report"), tr("HTML report (*.html)"), QStringLiteral("html"), proposed);
  if (!path.isEmpty()) exportHtmlReportTo(path);
}

}  // namespace ptescope::ui
