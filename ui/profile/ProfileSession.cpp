#include "ui/profile/ProfileSession.h"

#include <algorithm>
#include "ui/common/Format.h"
#include "ui/common/MemoryBudgetSetting.h"

#include <QFileInfo>
#include <QStringList>

#include <chrono>
#include <climits>
#include <exception>

#include "report/ProfileWriters.h"
#include "report/RunnerText.h"
#include "runner/ExternalRunner.h"
#include "util/Utf8.h"

namespace ptescope::ui {

struct ProfileSession::Outcome {
  std::shared_ptr<const exec::TransferProfile> profile;  // null when the run failed
  QString error;
  QString notice;        // a few words, for the status bar
  QString noticeDetail;  // the whole of it (the driver's error), for its tool tip
  bool cancelled = false;  // a runner's run stopped by cancel(): nothing measured
  // A runner's compareWithLoaded: the as-loaded run (the previous profile)
  // and whether the outputs agree.
  std::shared_ptr<const exec::TransferProfile> asLoaded;
  QString outputsAgreement;
  bool outputsDiffer = false;
};

namespace {

const QString kJsonFilter = QStringLiteral("Profile JSON (*.json)");
const QString kCsvFilter = QStringLiteral("CSV, one row per copy (*.csv)");
const QString kTraceFilter = QStringLiteral("Chrome trace for Perfetto (*.trace.json)");

int clampToInt(size_t n) { return n > size_t(INT_MAX) ? INT_MAX : int(n); }

QString iterationsText(size_t n) { return n == 1 ? QObject::tr("1 iteration") : QObject::tr("%1 iterations").arg(n); }

// `runnerProgram`: for a runner's run, which program it ran ("as shown",
// "as loaded"); the runner (by its file name) stands for the runtime, and
// the host memory kind, which the runner chooses, is left out.
QString labelFor(const exec::TransferProfile& profile, const QString& runnerProgram = {}) {
  QStringList parts;
  parts << QString::fromStdString(profile.method);
  if (!runnerProgram.isEmpty()) {
    parts << runnerProgram << runnerLabel(profile.runtime);
  } else {
    parts << (profile.emulated ? QObject::tr("host emulation") : QString::fromStdString(profile.runtime));
    parts << QString::fromStdString(exec::hostMemoryKindName(profile.host_memory));
  }
  const bool replays = std::any_of(profile.delegate_copies.begin(), profile.delegate_copies.end(),
                                   [](const auto& c) { return analysis::isCudaGraphReplay(c.transfer.kind); });
  if (replays) parts << QObject::tr("CUDA graph replay");
  if (profile.cancelled)
    parts << QObject::tr("%1 of %2 iterations (cancelled)").arg(profile.iterations).arg(profile.requested_iterations);
  else if (profile.partial())
    parts << QObject::tr("%1 of %2 iterations (partial: a later one failed)")
                 .arg(profile.iterations)
                 .arg(profile.requested_iterations);
  else
    parts << iterationsText(profile.iterations);
  return parts.join(QStringLiteral(" · "));
}

// Calls the engine's progress callback through to the UI thread, but not for
// every step: a small method runs thousands of iterations a second, and a
// queued signal per iteration would flood the event loop for nothing.
class ProgressThrottle {
 public:
  bool shouldSend(const exec::ProfileProgress& p) {
    const auto now = std::chrono::steady_clock::now();
    const bool newPhase = !sent_ || p.phase != phase_;
    const bool lastStep = p.done >= p.total;
    if (!newPhase && !lastStep && now - last_ < std::chrono::milliseconds(ProfileSession::kProgressIntervalMs))
      return false;
    sent_ = true;
    phase_ = p.phase;
    last_ = now;
    return true;
  }

 private:
  bool sent_ = false;
  exec::ProfileProgress::Phase phase_ = exec::ProfileProgress::Phase::Preparing;
  std::chrono::steady_clock::time_point last_{};
};

}  // namespace

QString runtimePreferenceText(exec::RuntimePreference preference) {
  switch (preference) {
    case exec::RuntimePreference::Auto: return QObject::tr("Automatic");
    case exec::RuntimePreference::Cuda: return QObject::tr("CUDA GPU");
    case exec::RuntimePreference::Host: return QObject::tr("Host emulation");
  }
  return QString();
}

QString runnerLabel(const std::string& runtime) {
  const std::string runner = runner::runnerOfSource(runtime);
  if (runner.empty()) return QString();
  return QObject::tr("ExecuTorch runner %1").arg(QFileInfo(QString::fromStdString(runner)).fileName());
}

ProfileSession::ProfileSession(QObject* parent) : QObject(parent) {}

ProfileSession::~ProfileSession() {
  // The worker posts progress to this object: the job slot waits for it
  // before the object goes (its destructor runs first). Signals are not
  // wanted any more.
  blockSignals(true);
}

bool ProfileSession::start(std::shared_ptr<const program::Program> program, const QString& programName,
                           const ProfileRequest& request, QString* error,
                           std::shared_ptr<const program::Program> asLoaded) {
  auto refuse = [&](const QString& message) {
    if (error != nullptr) *error = message;
    return false;
  };
  if (isRunning()) return refuse(tr("A profile is already running; cancel it or wait until it ends."));
  if (!program) return refuse(tr("There is no program to profile."));
  const int methodCount = int(program->methods().size());
  if (request.method < 0 || request.method >= methodCount)
    return refuse(tr("Cannot profile method %1: the program has %2.").arg(num(request.method), countText(methodCount, tr("method"))));
  if (request.iterations == 0) return refuse(tr("The number of measured iterations must be at least 1."));

  if (!request.runner.isEmpty() && request.compareWithLoaded &&
      (!asLoaded || asLoaded->findMethod(program->methods()[size_t(request.method)].displayName()) == nullptr))
    return refuse(tr("Cannot compare with the program as loaded: it has no method '%1'.")
                      .arg(QString::fromStdString(program->methods()[size_t(request.method)].displayName())));

  const std::string methodName = program->methods()[size_t(request.method)].displayName();
  const QString what = tr("Profiling '%1' of %2").arg(QString::fromStdString(methodName), programName);

  Work work;
  runProgress_.reset();  // a runner reports no instructions; an emulation sets its own below
  if (!request.runner.isEmpty()) {
    work = runnerWork(program, request.compareWithLoaded ? asLoaded : nullptr, methodName, programName, request);
  } else {
  exec::ProfileOptions options;
  options.method = methodName;
  options.iterations = request.iterations;
  options.warmup = request.warmup;
  options.host_memory = request.hostMemory;
  options.measure_peak = request.measurePeak;
  options.inputs.seed = request.seed;
  options.inputs.directory = request.inputDirectory.toStdString();
  options.max_memory = request.maxMemory;
  options.budget_setting = memoryBudgetSettingName();
  options.run_settings.cuda_graph_methods = request.cudaGraphMethods;

  runProgress_ = std::make_shared<exec::RunProgress>();
  work = [this, program, options, what, preference = request.runtime, runProgress = runProgress_,
       name = programName.toStdString()](const CancelFlag& cancel) mutable -> std::shared_ptr<Outcome> {
    auto outcome = std::make_shared<Outcome>();
    try {
      auto selection = exec::selectRuntime(preference);
      if (!selection) {
        outcome->error = tr("Choosing the runtime: %1").arg(QString::fromStdString(selection.error().message));
        return outcome;
      }
      outcome->notice = QString::fromStdString(selection->short_notice);
      outcome->noticeDetail = QString::fromStdString(selection->notice);
      ProgressThrottle throttle;
      options.cancel_requested = [cancel] { return cancel->load(std::memory_order_relaxed); };
      options.run_progress = runProgress.get();
      options.on_progress = [this, &throttle](const exec::ProfileProgress& p) {
        if (!throttle.shouldSend(p)) return;
        const QString phase = QString::fromStdString(exec::phaseName(p.phase));
        const int done = clampToInt(p.done), total = clampToInt(p.total);
        QMetaObject::invokeMethod(this, [this, phase, done, total] { onProgress(phase, done, total); },
                                  Qt::QueuedConnection);
      };
      auto result = exec::profileMethod(*program, *selection->runtime, options);
      if (!result) {
        outcome->error = tr("%1 on %2: %3")
                             .arg(what, QString::fromStdString(selection->runtime->name()),
                                  QString::fromStdString(result.error().message));
        return outcome;
      }
      result->program_name = name;
      exec::identifyCopies(result.value(), *program);  // pairs copies across edits
      outcome->profile = std::make_shared<const exec::TransferProfile>(std::move(result.value()));
    } catch (const std::bad_alloc&) {
      // Samples of millions of iterations, or arenas bigger than memory.
      outcome->error = tr("%1: out of host memory").arg(what);
    } catch (const std::exception& e) {
      outcome->error = tr("%1: %2").arg(what, QString::fromUtf8(e.what()));
    }
    return outcome;
  };
  }

  pending_ = ProfileRun{};
  pending_.program = program;
  pending_.method = request.method;
  pending_.request = request;
  pending_.when = QDateTime::currentDateTime();
  asLoadedProgram_ = !request.runner.isEmpty() && request.compareWithLoaded ? asLoaded : nullptr;
  discard_ = false;
  job_.start<std::shared_ptr<Outcome>>(std::move(work), [this](std::shared_ptr<Outcome> outcome) { finishRun(*outcome); });
  emit started();
  return true;
}

ProfileSession::Work ProfileSession::runnerWork(std::shared_ptr<const program::Program> program,
                                               std::shared_ptr<const program::Program> asLoaded,
                                               const std::string& method, const QString& programName,
                                               const ProfileRequest& request) {
  runner::RunnerOptions options;
  options.runner = request.runner.toStdString();
  options.method = method;
  options.iterations = request.iterations;
  options.inputs.seed = request.seed;
  options.inputs.directory = request.inputDirectory.toStdString();
  options.max_memory = request.maxMemory;
  options.budget_setting = memoryBudgetSettingName();
  options.timeout_seconds = request.runnerTimeoutSeconds;
  const QString runnerName = QFileInfo(request.runner).fileName();
  return [this, program, asLoaded, options, runnerName, name = programName.toStdString()](const CancelFlag& cancel) mutable {
    auto outcome = std::make_shared<Outcome>();
    options.cancel_requested = [cancel] { return cancel->load(std::memory_order_relaxed); };
    // The runner says nothing while it runs: the phase is all there is to show.
    auto phase = [this](const QString& text) {
      QMetaObject::invokeMethod(this, [this, text] { onProgress(text, 0, 0); }, Qt::QueuedConnection);
    };
    // One line whatever the runner logged (its messages may quote its log).
    auto failedWith = [&outcome](const Error& error) {
      if (error.message == runner::kRunnerCancelled) outcome->cancelled = true;
      else outcome->error = QString::fromStdString(printableLine(error.message));
      return outcome;
    };
    try {
      std::optional<runner::RunnerResult> loaded;
      if (asLoaded) {
        phase(tr("running %1 on the program as loaded").arg(runnerName));
        auto run = runner::runWithRunner({asLoaded.get(), "", "", name + " as loaded"}, options);
        if (!run) return failedWith(run.error());
        loaded = std::move(run.value());
      }
      phase(tr("running %1 on the program as shown").arg(runnerName));
      auto shown = runner::runWithRunner({program.get(), "", "", name}, options);
      if (!shown) return failedWith(shown.error());
      QStringList notes;
      if (!shown->trace_warning.empty()) notes << QString::fromStdString(printableLine(shown->trace_warning));
      if (loaded) {
        size_t compared = 0;
        for (const auto& o : loaded->outputs) compared += o ? 1 : 0;
        const auto differences = runner::compareOutputs(*program->findMethod(shown->profile.method), loaded->outputs,
                                                        shown->outputs);
        outcome->outputsAgreement =
            QString::fromStdString(report::outputsAgreementText(differences, compared, "as loaded", "as shown"))
                .trimmed()
                .replace(QStringLiteral("\n  "), QStringLiteral("; "));
        outcome->outputsDiffer = !differences.empty();
        outcome->asLoaded = std::make_shared<const exec::TransferProfile>(std::move(loaded->profile));
      }
      outcome->notice = notes.join(QStringLiteral("; "));
      outcome->profile = std::make_shared<const exec::TransferProfile>(std::move(shown->profile));
    } catch (const std::bad_alloc&) {
      outcome->error = tr("%1 on %2: out of host memory").arg(runnerName, QString::fromStdString(name));
    } catch (const std::exception& e) {
      outcome->error = tr("%1 on %2: %3").arg(runnerName, QString::fromStdString(name), QString::fromUtf8(e.what()));
    }
    return outcome;
  };
}

void ProfileSession::cancel() { job_.stop(); }

void ProfileSession::waitForFinished() {
  if (isRunning()) job_.waitForIdle();
}

void ProfileSession::finishRun(const Outcome& done) {
  const Outcome* outcome = &done;
  ProfileRun run = std::move(pending_);
  pending_ = ProfileRun{};
  const auto asLoaded = std::move(asLoadedProgram_);
  asLoadedProgram_.reset();

  if (discard_) {
    discard_ = false;
    emit cancelled();
    return;
  }
  if (outcome->cancelled) {
    emit cancelled();
    return;
  }
  if (!outcome->profile) {
    emit failed(outcome->error);
    return;
  }
  const exec::TransferProfile& profile = *outcome->profile;
  if (profile.cancelled && profile.iterations == 0) {
    emit cancelled();
    return;
  }
  run.profile = outcome->profile;
  run.label = labelFor(profile, run.request.runner.isEmpty() ? QString() : tr("as shown"));
  run.runtimeNotice = outcome->notice;
  run.runtimeNoticeDetail = outcome->noticeDetail.isEmpty() ? outcome->notice : outcome->noticeDetail;
  run.outputsAgreement = outcome->outputsAgreement;
  run.outputsDiffer = outcome->outputsDiffer;
  if (outcome->asLoaded) {
    // Both runs arrive together: the program as loaded is what the edits are compared with.
    ProfileRun loaded = run;
    loaded.profile = outcome->asLoaded;
    loaded.program = asLoaded;
    loaded.label = labelFor(*outcome->asLoaded, tr("as loaded"));
    loaded.outputsAgreement.clear();
    loaded.outputsDiffer = false;
    previous_ = std::move(loaded);
  } else {
    previous_ = std::move(latest_);
  }
  latest_ = std::move(run);
  emit historyChanged();
  emit finished();
}

void ProfileSession::onProgress(const QString& phase, int done, int total) {
  // Progress is queued before its run's outcome, so none of it arrives
  // after that run ended and before the next one started: only progress
  // queued before a discarded outcome is stale.
  if (!isRunning()) return;
  emit progress(phase, done, total);
}

bool ProfileSession::addRun(ProfileRun run) {
  if (isRunning() || !run.profile || !run.program) return false;
  if (run.label.isEmpty()) run.label = labelFor(*run.profile);
  previous_ = std::move(latest_);
  latest_ = std::move(run);
  emit historyChanged();
  emit finished();
  return true;
}

bool ProfileSession::showTraceMethod(int method) {
  if (isRunning() || !latest_ || latest_->method == method) return false;
  const auto it = latest_->traceMethods.find(method);
  if (it == latest_->traceMethods.end() || !it->second.profile) return false;
  latest_->profile = it->second.profile;
  latest_->label = it->second.label;
  latest_->method = method;
  emit historyChanged();
  return true;
}

void ProfileSession::clear() {
  if (isRunning()) {
    discard_ = true;
    cancel();
  }
  if (!latest_ && !previous_) return;
  latest_.reset();
  previous_.reset();
  emit historyChanged();
}

bool ProfileSession::exportProfile(const QString& path, Format format, QString* error) const {
  if (!latest_ || !latest_->profile) {
    if (error != nullptr) *error = tr("There is no profile to export; run one first.");
    return false;
  }
  const exec::TransferProfile& profile = *latest_->profile;
  const std::string target = path.toStdString();
  Status status = Ok{};
  switch (format) {
    case Format::Json: status = report::writeProfileJson(profile, target); break;
    case Format::Csv: status = report::writeProfileCsv(profile, target); break;
    case Format::Trace: {
      // The snapshot it measured: its def/use facts draw the trace's flow arrows.
      const program::Method* method = latest_->program ? latest_->program->findMethod(profile.method) : nullptr;
      status = report::writeProfileTrace(profile, target, method);
      break;
    }
  }
  if (!status) {
    if (error != nullptr) *error = QString::fromStdString(status.error().message);
    return false;
  }
  return true;
}

QString ProfileSession::exportFileFilters() { return QStringList{kJsonFilter, kCsvFilter, kTraceFilter}.join(";;"); }

std::optional<ProfileSession::Format> ProfileSession::formatForPath(const QString& path,
                                                                   const QString& selectedFilter) {
  const QString name = path.toLower();
  if (name.endsWith(".trace.json")) return Format::Trace;
  if (name.endsWith(".json")) return selectedFilter == kTraceFilter ? Format::Trace : Format::Json;
  if (name.endsWith(".csv")) return Format::Csv;
  if (selectedFilter == kJsonFilter) return Format::Json;
  if (selectedFilter == kCsvFilter) return Format::Csv;
  if (selectedFilter == kTraceFilter) return Format::Trace;
  return std::nullopt;
}

QString ProfileSession::formatName(Format format) {
  switch (format) {
    case Format::Json: return QStringLiteral("JSON");
    case Format::Csv: return QStringLiteral("CSV");
    case Format::Trace: return tr("trace");
  }
  return QString();
}

}  // namespace ptescope::ui
