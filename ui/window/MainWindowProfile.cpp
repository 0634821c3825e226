// The main window's profiling: the Profile menu and tool bar entries, the
// run's progress and Cancel in the status bar, and what a result feeds (the
// Transfers panel's measured columns, the Timeline panel, the graph
// overlay). See ProfileSession for the run itself.
#include <QAction>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QProgressBar>
#include <QPushButton>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>

#include "analysis/Dataflow.h"
#include "cost/CopyCost.h"
#include "etdump/EtdumpProfile.h"
#include "report/PredictionWriters.h"
#include "report/RunnerText.h"
#include "ui/common/Format.h"
#include "ui/document/Document.h"
#include "ui/window/MainWindow.h"
#include "ui/common/ScrollingNote.h"
#include "ui/common/ElidedLabel.h"
#include "ui/panels/AdvisorPanel.h"
#include "ui/profile/LinkSelection.h"
#include "ui/common/ProgressTicker.h"
#include "ui/profile/ProfileDialog.h"
#include "ui/document/Selection.h"
#include "ui/profile/TimelineView.h"
#include "ui/profile/TransferSummaryView.h"
#include "ui/profile/TransfersModel.h"

namespace ptescope::ui {

const std::vector<size_t>& MainWindow::NonCopyCache::of(const std::shared_ptr<const program::Program>& program,
                                                         int method, const program::Method& m) {
  for (const auto& e : entries)
    if (e.key == program.get() && e.method == method && !e.alive.expired()) return e.instructions;
  if (entries.size() >= 4) entries.erase(entries.begin());
  entries.push_back(Entry{program.get(), program, method, analysis::nonCopyInstructions(analysis::Dataflow::build(m))});
  return entries.back().instructions;
}

void MainWindow::buildProfiling(QToolBar* toolbar) {
  profiler_ = new ProfileSession(this);

  auto* menu = menuBar()->addMenu(tr("&Profile"));
  auto* profile = menu->addAction(tr("&Profile Transfers..."), this, &MainWindow::showProfileDialog);
  profile->setObjectName("profileAction");
  profile->setShortcut(QKeySequence(Qt::Key_F5));
  profile->setToolTip(tr("Run the method and time every host-device copy (F5)"));
  // The tool bar's button says "Profile" (its tooltip the rest): the menu's
  // longer text pushed the overlay chooser under the » menu at 1000 px.
  profile->setIconText(tr("Profile"));
  exportProfileAction_ = menu->addAction(tr("&Export Profile..."), this, &MainWindow::showExportProfileDialog);
  exportProfileAction_->setObjectName("exportProfileAction");
  exportProfileAction_->setEnabled(false);
  auto* forget = menu->addAction(tr("&Forget Profiles"), this, [this] {
    profiler_->clear();
    applyProfiles();
  });
  forget->setObjectName("forgetProfilesAction");
  // Enabled only when there is something to forget.
  connect(menu, &QMenu::aboutToShow, this, [this, forget] { forget->setEnabled(profiler_->latest().has_value()); });

  toolbar->addSeparator();
  toolbar->addAction(profile);
  overlayMetric_ = new QComboBox;
  overlayMetric_->setObjectName("overlayMetric");
  overlayMetric_->addItem(tr("Placement colours"), int(GraphView::OverlayMetric::Placement));
  overlayMetric_->addItem(tr("Copy time"), int(GraphView::OverlayMetric::Time));
  overlayMetric_->addItem(tr("Copy bandwidth"), int(GraphView::OverlayMetric::Bandwidth));
  overlayMetric_->addItem(tr("Predicted copy time"), kPredictedOverlay);
  overlayMetric_->setToolTip(tr("Colour the copies of the graph by what the latest profile measured, or by their "
                                "predicted time on the link chosen in Transfers"));
  toolbar->addWidget(overlayMetric_);
  connect(overlayMetric_, &QComboBox::currentIndexChanged, this, [this] {
    const int data = overlayMetric_->currentData().toInt();
    updateGraphMeasurements();
    graph_->setOverlayMetric(data == kPredictedOverlay ? GraphView::OverlayMetric::Time : GraphView::OverlayMetric(data));
  });

  // Progress and Cancel in the status bar: the window stays usable.
  profileStatus_ = new QWidget;
  profileStatus_->setObjectName("profileStatus");
  auto* row = new QHBoxLayout(profileStatus_);
  row->setContentsMargins(0, 0, 0, 0);
  profileLabel_ = new ElidedLabel;
  profileLabel_->setObjectName("profileStatusText");
  profileLabel_->setElideMode(Qt::ElideRight);
  // One width whatever the label says: its text changes twice a second, and
  // a label sized by its text moved Cancel under the user's pointer (the
  // status bar shares its width among the labels beside it). The whole text
  // is the label's tool tip when it is cut.
  profileLabel_->setFixedWidth(profileLabel_->fontMetrics().horizontalAdvance(QString(34, QLatin1Char('n'))));
  profileBar_ = new QProgressBar;
  profileBar_->setObjectName("profileProgress");
  // Named by what it measures (it was a nameless progress bar).
  profileBar_->setAccessibleName(tr("Profile progress"));
  profileBar_->setFixedWidth(140);
  profileBar_->setTextVisible(false);
  profileCancel_ = new QPushButton(tr("Cancel"));
  profileCancel_->setObjectName("cancelProfile");
  // Named by what it stops (the Advisor's search and Run Once have a Cancel too).
  profileCancel_->setAccessibleName(tr("Cancel the profile"));
  row->addWidget(profileLabel_);
  row->addWidget(profileBar_);
  row->addWidget(profileCancel_);
  statusBar()->addPermanentWidget(profileStatus_);
  profileStatus_->hide();
  connect(profileCancel_, &QPushButton::clicked, this, [this] {
    profiler_->cancel();
    profileLabel_->setText(tr("Cancelling\u2026"));
  });

  // The label moves twice a second, also while one iteration takes minutes:
  // the phase, the instruction under way and the seconds so far.
  auto phase = std::make_shared<QString>();
  auto* ticker = new ProgressTicker(profileStatus_, [this, phase](qint64 seconds) {
    if (profiler_->isCancelling()) return;
    const QString where = instructionProgressText(profiler_->runProgress());
    profileLabel_->setText(tr("%1%2, %3 s so far").arg(*phase, where.isEmpty() ? QString() : tr(", ") + where, num(seconds)));
  });
  connect(profiler_, &ProfileSession::started, this, [this, profile, phase, ticker] {
    profile->setEnabled(false);
    profileBar_->setRange(0, 0);
    *phase = profileMethodName_.isEmpty() ? tr("Profiling\u2026") : tr("%1: profiling\u2026").arg(profileMethodName_);
    ticker->start();
    profileStatus_->show();
    fitStatusCounts();
  });
  connect(profiler_, &ProfileSession::progress, this, [this, phase](const QString& name, int done, int total) {
    if (profiler_->isCancelling()) return;
    // Named by the method it measures: the window may show another one.
    const QString method = profileMethodName_.isEmpty() ? QString() : profileMethodName_ + tr(": ");
    *phase = method + (total > 0 ? tr("%1 %2/%3").arg(name).arg(done).arg(total) : name);
    profileBar_->setRange(0, std::max(total, 0));
    profileBar_->setValue(done);
  });
  auto ended = [this, profile, ticker] {
    ticker->stop();
    profile->setEnabled(true);
    profileStatus_->hide();
    fitStatusCounts();
  };
  connect(profiler_, &ProfileSession::finished, this, [this, ended] {
    ended();
    const auto& run = *profiler_->latest();
    // The status bar has a few words on why there was no GPU; the driver's
    // whole error is the message's tool tip (it ran past 1600 px).
    QString message = tr("Profiled %1").arg(run.label);
    QString detail = message;
    if (!run.runtimeNotice.isEmpty()) {
      message += " \u2014 " + run.runtimeNotice;
      detail += " \u2014 " + run.runtimeNoticeDetail;
    }
    if (!run.outputsAgreement.isEmpty()) {
      message += " \u2014 " + run.outputsAgreement;
      detail += " \u2014 " + run.outputsAgreement;
    }
    // Show what was measured: its method, the expensive copies first;
    // unless the user picked another method while it ran (the window went
    // back to the measured one by itself, walkthrough 21): that stays, and
    // the status line says where the profile is.
    const bool userMoved = document_->currentMethodIndex() != profileShownMethod_ &&
                           document_->currentMethodIndex() != run.method;
    if (!userMoved && run.method >= 0 && run.method < document_->methodCount() &&
        run.method != document_->currentMethodIndex())
      document_->setCurrentMethod(run.method);
    if (userMoved) {
      message += tr(" \u2014 pick %1 in Method to see it").arg(profileMethodName_);
      showStatus(message, 15000, detail);
    } else {
      showMethodStatus(run.method, message, 15000, detail);
    }
    if (!userMoved && !run.profile->copies.empty() &&
        overlayMetric_->currentData().toInt() == int(GraphView::OverlayMetric::Placement))
      overlayMetric_->setCurrentIndex(overlayMetric_->findData(int(GraphView::OverlayMetric::Time)));
    applyProfiles();
    // The costliest copies first, also when the measured method is picked
    // later (it stayed in instruction order: walkthrough 22).
    transfersView_->sortByColumn(TransfersModel::MedianTime, Qt::DescendingOrder);
    if (!userMoved) {
      bottomTabs_->setCurrentWidget(transfersView_->parentWidget());
      transfersView_->scrollToTop();  // in sight
    }
    // A run whose later iteration failed (a device lost) is kept and shown,
    // and the failure is said as an error: what failed, where.
    // An edit of placement must not change results: a difference is an error.
    if (run.outputsDiffer)
      showError(tr("Outputs differ"), tr("%1: %2").arg(document_->displayName(), run.outputsAgreement));
    if (run.profile->partial())
      showError(tr("Profile incomplete"),
                tr("%1. The profile shown covers the %2 that completed.")
                    .arg(QString::fromStdString(run.profile->failure),
                         countText(qint64(run.profile->iterations), tr("iteration"))));
  });
  connect(profiler_, &ProfileSession::cancelled, this, [this, ended] {
    ended();
    // A run dropped because another program was opened says so already.
    if (!std::exchange(discardingProfile_, false))
      showStatus(tr("Profile cancelled before any measured iteration; nothing was kept"), 10000);
  });
  connect(profiler_, &ProfileSession::failed, this, [this, ended](const QString& message) {
    ended();
    showError(tr("Profile failed"), message);
  });
  connect(profiler_, &ProfileSession::historyChanged, this, [this] {
    exportProfileAction_->setEnabled(profiler_->latest().has_value());
    // The Advisor ranks by the latest measured profile of the document (a run, an imported ETDump).
    if (advisor_ != nullptr) advisor_->setMeasuredProfile(profiler_->latest() ? profiler_->latest()->profile : nullptr);
  });

  // Timeline clicks select in every view (the timeline, the publisher, keeps its own pick).
  connect(timeline_, &TimelineView::instructionClicked, this, [this](size_t profiled) {
    if (auto current = currentOfProfiled(profiled)) selection_->selectInstruction(*current, timeline_);
  });
}

bool MainWindow::startProfile(const ProfileRequest& request) {
  if (!document_->hasProgram()) {
    lastError_ = tr("No program to profile");
    return false;
  }
  QString error;
  // CUDA graph replay: the one setting beside the link, whoever asks.
  ProfileRequest run = request;
  run.cudaGraphMethods = links_->runSettings().cuda_graph_methods;
  run.edited = document_->isModified();
  // A runner's "Compare with as loaded" runs the program as loaded too.
  const bool asLoadedToo = !request.runner.isEmpty() && request.compareWithLoaded;
  // Known before the run starts: its progress names the method.
  profileShownMethod_ = document_->currentMethodIndex();
  profileMethodName_ = run.method >= 0 && run.method < document_->methodCount()
                           ? printableText(QString::fromStdString(document_->program().methods()[size_t(run.method)].displayName()))
                           : QString();
  if (!profiler_->start(document_->programSnapshot(), document_->displayName(), run, &error,
                        asLoadedToo ? document_->loadedSnapshot() : nullptr)) {
    showError(tr("Cannot profile"), error);
    return false;
  }
  lastRequest_ = run;
  profiledPath_ = document_->isDemo() ? QStringLiteral("<demo>") : document_->path();
  return true;
}

void MainWindow::showProfileDialog() {
  if (!document_->hasProgram() || profiler_->isRunning()) return;
  ProfileDialog dialog(document_->program(), document_->currentMethodIndex(), this);
  // The previous choices, for the method on screen; CUDA graph replay is
  // the one setting beside the link (LinkSelection), shown and set here too.
  ProfileRequest previous = lastRequest_ ? *lastRequest_ : dialog.request();
  previous.method = document_->currentMethodIndex();
  previous.cudaGraphMethods = links_->runSettings().cuda_graph_methods;
  dialog.setRequest(previous);
  if (dialog.exec() != QDialog::Accepted) return;
  const ProfileRequest request = dialog.request();
  for (const auto& m : document_->program().methods()) {
    const QString name = QString::fromStdString(m.displayName());
    links_->setCudaGraph(name, request.cudaGraphMethods.count(m.displayName()) > 0);
  }
  startProfile(request);
}

bool MainWindow::exportProfileTo(const QString& path, ProfileSession::Format format) {
  QString error;
  if (!profiler_->exportProfile(path, format, &error)) {
    showError(tr("Cannot export the profile"), error);
    return false;
  }
  showStatus(tr("Exported the profile as %1 to %2").arg(ProfileSession::formatName(format), path), 5000);
  return true;
}

void MainWindow::showExportProfileDialog() {
  if (!profiler_->latest()) return;
  QString filter;
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Export profile"), QString(), ProfileSession::exportFileFilters(), &filter);
  if (path.isEmpty()) return;
  const auto format = ProfileSession::formatForPath(path, filter);
  if (!format) {
    showError(tr("Cannot export the profile"), tr("%1: name the file .json, .trace.json or .csv").arg(path));
    return;
  }
  exportProfileTo(path, *format);
}

void MainWindow::setOverlayMetric(GraphView::OverlayMetric metric) {
  overlayMetric_->setCurrentIndex(overlayMetric_->findData(int(metric)));
}

std::optional<size_t> MainWindow::currentOfProfiled(size_t instruction) const {
  auto it = profiledToCurrent_.find(instruction);
  return it == profiledToCurrent_.end() ? std::nullopt : std::optional<size_t>(it->second);
}

std::optional<size_t> MainWindow::profiledOfCurrent(size_t instruction) const {
  auto it = currentToProfiled_.find(instruction);
  return it == currentToProfiled_.end() ? std::nullopt : std::optional<size_t>(it->second);
}

void MainWindow::applyProfiles() {
  const auto& latest = profiler_->latest();
  const auto& previous = profiler_->previous();
  transfersModel_->setLatestOfEdits(latest && latest->request.edited);
  transfersModel_->setProfiles(latest ? latest->profile : nullptr, previous ? previous->profile : nullptr,
                               latest ? latest->label : QString(), previous ? previous->label : QString());
  updateTransferTotals();
  transfersView_->resizeColumnsToContents();
  // The Summary and the Timeline speak of the method on screen only: the
  // latest profile of another method (a trace of several, imported on
  // 'forward', then 'double' shown) is named, not shown under this one.
  const bool ofShownMethod = latest && latest->method == document_->currentMethodIndex();
  QString otherMethod;
  if (latest && !ofShownMethod && latest->method >= 0 && size_t(latest->method) < latest->program->methods().size())
    otherMethod = QString::fromStdString(latest->program->methods()[size_t(latest->method)].displayName());
  transferSummary_->setProfile(ofShownMethod ? latest->profile : nullptr,
                               ofShownMethod && latest->acrossMethods ? &*latest->acrossMethods : nullptr, otherMethod);
  timeline_->setOtherMethod(otherMethod);

  // Which instruction of the program on screen each profiled one is.
  profiledToCurrent_.clear();
  currentToProfiled_.clear();
  const program::Method* shown = document_->currentMethod();
  const int shownIndex = document_->currentMethodIndex();
  const program::Method* measured = latest && shown && latest->method == shownIndex &&
                                            size_t(latest->method) < latest->program->methods().size()
                                        ? &latest->program->methods()[size_t(latest->method)]
                                        : nullptr;
  if (measured != nullptr) {
    for (const auto& row : transfersModel_->rows())
      if (!row.removed && !row.inside && row.latest != nullptr) profiledToCurrent_[row.latest->instruction] = row.instruction;
    const auto& before = nonCopyCache_.of(latest->program, shownIndex, *measured);
    // The document keeps the shown method's def/use facts already.
    const auto now = analysis::nonCopyInstructions(*document_->currentDataflow());
    if (before.size() == now.size())
      for (size_t k = 0; k < before.size(); ++k) profiledToCurrent_[before[k]] = now[k];
    for (const auto& [p, c] : profiledToCurrent_) currentToProfiled_[c] = p;
    timeline_->setProfile(latest->profile, measured);
    timeline_->setMeasuredBefore(transfersModel_->measuredBeforeWords());
  } else {
    timeline_->clear();
  }
  updateGraphMeasurements();
}

void MainWindow::updateTransferTotals() {
  const auto& latest = profiler_->latest();
  // Who measured it goes with its medians, before the predictions (it read
  // "predicted on PCIe ...: h2d 25.5 µs, ..., measured by the runtime").
  QString measuredBy;
  if (latest) {
    const QString runner = runnerLabel(latest->profile->runtime);
    if (latest->profile->runtime == etdump::kEtdumpSource) measuredBy = tr("the runtime (%1)").arg(etdump::kEtdumpSource);
    else if (!runner.isEmpty()) measuredBy = tr("%1 (host clock)").arg(runner);
  }
  transfersModel_->setMeasuredBy(measuredBy);
  QString text = transfersModel_->totalsText();
  if (transfersModel_->hasMeasurements() && latest) {
    const exec::TransferProfile& measured = *latest->profile;
    const QString runner = runnerLabel(measured.runtime);
    // A runner's "Compare with as loaded": the saving it measured, the one
    // predicted on the chosen link for the same two programs, the outputs.
    const auto& previous = profiler_->previous();
    if (!runner.isEmpty() && latest->request.compareWithLoaded && transfersModel_->hasComparison() && previous) {
      QStringList lines;
      lines << QString::fromStdString(report::measuredSavingText(*previous->profile, measured)).trimmed();
      const program::Method* before = previous->program->findMethod(measured.method);
      const program::Method* after = latest->program->findMethod(measured.method);
      if (const auto& link = transfersModel_->link(); link && before != nullptr && after != nullptr) {
        auto a = cost::predictMethod(*before, *link, transfersModel_->linkHostMemory());
        auto b = cost::predictMethod(*after, *link, transfersModel_->linkHostMemory());
        if (a && b)
          lines << QString::fromStdString(report::predictionDeltaText("method '" + measured.method + "'", a->copySeconds(),
                                                                      b->copySeconds(), *link,
                                                                      transfersModel_->linkHostMemory()))
                       .trimmed();
      }
      if (!latest->outputsAgreement.isEmpty()) lines << latest->outputsAgreement;
      text += "\n" + lines.join('\n');
    }
  }
  transferTotals_->setText(text);
  transferTotalsArea_->fit();
}

void MainWindow::updateGraphMeasurements() {
  // The overlay shows on the program the measurements were matched to: the
  // current one (Current and Diff views), not the file as loaded.
  std::vector<GraphView::CopyMeasurement> measured;
  auto source = GraphView::MeasurementSource::Measured;
  if (graphNumbersAsPanels() && overlayMetric_ && overlayMetric_->currentData().toInt() == kPredictedOverlay) {
    source = GraphView::MeasurementSource::Predicted;
    for (const auto& row : transfersModel_->rows())
      // The overlay labels copy nodes; a copy inside a delegate has none.
      if (!row.removed && !row.inside && row.predicted > 0)
        measured.push_back({row.instruction, row.predicted, double(row.bytes) / row.predicted / 1e9, uint64_t(row.bytes)});
  } else if (graphNumbersAsPanels() && transfersModel_->hasMeasurements()) {
    // A host memcpy timed in place of a link must never read as a link's time.
    if (transfersModel_->latestProfile()->emulated) source = GraphView::MeasurementSource::Emulated;
    for (const auto& row : transfersModel_->rows())
      if (!row.removed && !row.inside && row.latest != nullptr)
        measured.push_back({row.instruction, row.latest->seconds.median, row.latest->gbps, row.latest->bytes,
                            !row.latest->time_covers.empty()});
  }
  graph_->setMeasurements(std::move(measured), source,
                          transfersModel_->hasMeasurements() ? transfersModel_->measuredBeforeWords() : QString());
}

}  // namespace ptescope::ui
