// The main window's ETDump import: File > Import ETDump... and a .etdp
// dropped onto the window. The trace is read against the program as loaded
// (the file the runtime ran), turned into a profile (etdump::toTransferProfile)
// and added to the profile history, so the Transfers panel's measured and
// compare columns, the Timeline panel and the graph overlay show it exactly
// as they show a ptescope profile, also after edits. A trace of several
// methods also brings PRF004 across them (etdump::roundTripsAcrossMethods,
// as `etdump` prints them) to the Summary section and the exported report.
#include <QFileDialog>
#include <QFileInfo>
#include <QStatusBar>

#include "etdump/EtdumpProfile.h"
#include "report/EtdumpReport.h"
#include "ui/common/Format.h"
#include "ui/document/Document.h"
#include "ui/window/MainWindow.h"

namespace ptescope::ui {

bool MainWindow::importEtdump(const QString& path, const QStringList& methods) {
  const QString title = tr("Cannot import the ETDump");
  if (!document_->hasProgram()) {
    showError(title, tr("%1: open the program it was recorded on first").arg(path));
    return false;
  }
  if (profiler_->isRunning()) {
    showError(title, tr("%1: a profile is running; import it when the run has ended").arg(path));
    return false;
  }
  auto dump = etdump::readEtdumpFile(path.toStdString());
  if (!dump) {
    showError(title, QString::fromStdString(dump.error().message));
    return false;
  }
  etdump::AnalysisOptions options;
  for (const QString& m : methods) options.methods.push_back(m.toStdString());
  const auto loaded = document_->loadedSnapshot();
  auto analysis = etdump::analyzeEtdump(dump.value(), *loaded, options);
  if (!analysis) {
    showError(title, tr("%1 on %2: %3").arg(path, document_->displayName(), QString::fromStdString(analysis.error().message)));
    return false;
  }

  // The method on screen when the trace ran it, else the first it ran.
  const etdump::MethodStats* shown = &analysis->methods.front();
  for (const auto& m : analysis->methods)
    if (m.method_index == document_->currentMethodIndex()) shown = &m;

  const QString fileName = QFileInfo(path).fileName();
  ProfileRun run;
  // Every method the trace ran keeps its measurements: choosing another in
  // the Method box shows its own (they were dropped, and the exported
  // report left them out while `report --etdump` had them).
  QStringList others;
  for (const auto& m : analysis->methods) {
    ProfileRun::TraceMethod traced;
    traced.profile = std::make_shared<const exec::TransferProfile>(
        etdump::toTransferProfile(m, *loaded, document_->displayName().toStdString()));
    traced.label = tr("%1 · %2 · %3 · %4")
                       .arg(fileName, QString::fromStdString(m.method), QString::fromUtf8(etdump::kEtdumpSource),
                            countText(qint64(m.iterations), tr("iteration")));
    run.traceMethods[m.method_index] = traced;
    if (&m != shown) others << QString::fromStdString(m.method);
  }
  run.profile = run.traceMethods[shown->method_index].profile;
  run.label = run.traceMethods[shown->method_index].label;
  run.program = loaded;
  run.method = shown->method_index;
  if (analysis->methods.size() > 1)
    run.acrossMethods = etdump::roundTripsAcrossMethods(analysis.value(), *loaded, document_->displayName().toStdString());
  for (const auto& line : report::etdumpAssumptions(analysis.value()))
    run.traceNotes.push_back(fileName.toStdString() + ": " + line);
  run.when = QDateTime::currentDateTime();
  if (!profiler_->addRun(run)) {
    showError(title, tr("%1: the profile history is busy").arg(path));
    return false;
  }
  profiledPath_ = document_->isDemo() ? QStringLiteral("<demo>") : document_->path();
  QString message = tr("Imported %1").arg(run.label);
  if (!others.isEmpty())
    message += tr(" (also %1: choose it in Method)").arg(others.size() == 1 ? QStringLiteral("'%1'").arg(others.front())
                                                                            : tr("%1 more methods").arg(others.size()));
  if (const auto warning = analysis->warning(); !warning.empty()) message += " \u2014 " + QString::fromStdString(warning);
  showMethodStatus(run.method, message, 15000);
  return true;
}

void MainWindow::showImportEtdumpDialog() {
  const QString path = QFileDialog::getOpenFileName(this, tr("Import ETDump"), QString(),
                                                    tr("ETDump traces (*.etdp);;All files (*)"));
  if (!path.isEmpty()) importEtdump(path);
}

}  // namespace ptescope::ui
