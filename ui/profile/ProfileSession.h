// Profiling from the GUI: runs exec::profileMethod (the engine `ptescope-cli
// profile` uses) on a worker thread and keeps the last two results.
//
// Usage from a window:
//
//   session->start(document->programSnapshot(), document->displayName(), dialog.request(), &error);
//   connect(session, &ProfileSession::progress, bar, ...);   // phase text, done / total
//   connect(session, &ProfileSession::finished, view, [=] { show(*session->latest()); });
//   connect(session, &ProfileSession::failed, ...);           // one message for the status bar / a box
//   cancelButton → session->cancel();                         // then finished() or cancelled()
//   session->exportProfile(path, *ProfileSession::formatForPath(path, filter), &error);
//   document opened another file → session->clear();
//
// The program is an immutable snapshot shared with the worker, so the
// document can be edited (and its current program replaced) while a run is
// going; each result keeps the snapshot it measured, so instruction indices
// in the profile always refer to that program, not to whatever the document
// shows by the time the run ends.
//
// Outcome of a run, exactly one of these signals:
//   finished()  a new result is latest(); the one before moved to previous().
//               A cancelled run that completed at least one measured iteration
//               also ends here, with TransferProfile::cancelled set.
//   cancelled() cancelled before any measured iteration completed, or the
//               run was dropped by clear(); latest() and previous() are
//               untouched by the run.
//   failed(msg) the runtime could not be used (CUDA requested without a GPU),
//               memory could not be allocated, a kernel or an input file
//               failed; the engine's message, prefixed with what was being
//               done. History untouched.
// Destroying the session cancels a run and waits for it, without signals.
#pragma once

#include <QDateTime>
#include <QObject>
#include <QString>

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <optional>

#include "exec/DeviceRuntime.h"
#include "exec/ProfileAnalysis.h"
#include "exec/Profiler.h"
#include "program/Program.h"
#include "ui/document/BackgroundJob.h"

namespace ptescope::ui {

// What the user asked for (ProfileDialog edits one of these).
struct ProfileRequest {
  int method = 0;  // index into Program::methods()
  exec::RuntimePreference runtime = exec::RuntimePreference::Auto;
  size_t iterations = 20;
  size_t warmup = 3;
  exec::HostMemoryKind hostMemory = exec::HostMemoryKind::Pageable;
  uint64_t seed = 0;       // random inputs are drawn from it (repeatable)
  QString inputDirectory;  // empty: random inputs from `seed`; else one file per input, as --inputs
  bool measurePeak = true; // measure the link peak so copies show their share of it
  uint64_t maxMemory = 0;  // the memory budget (ui/common/MemoryBudgetSetting); 0: the default, half of what is available
  // Methods whose CudaBackend delegates replay CUDA graphs (LinkSelection's
  // setting, --cuda-graph): the replay's copies inside them are timed.
  std::set<std::string> cudaGraphMethods;
  // The user's own ExecuTorch runner (runner/ExternalRunner.h). Empty: run
  // on ptescope's runtime (`runtime`). Else the runner's path: the program
  // as shown (edits included) is written to a private folder and run there;
  // `runtime`, `warmup`, `hostMemory` and `measurePeak` are the runner's
  // business and do not apply.
  QString runner;
  // With a runner: run the program as loaded first, kept as the previous
  // profile, so that the compare columns show what the edits change on it.
  bool compareWithLoaded = false;
  double runnerTimeoutSeconds = 600;  // the runner is stopped (its process group killed) after this
  // The program profiled held edits not in the file (MainWindow sets it):
  // once they are undone or changed, its times are of those edits, not of
  // "the program before the edits".
  bool edited = false;
  friend bool operator==(const ProfileRequest&, const ProfileRequest&) = default;
};

// One completed profile and what it was measured on.
struct ProfileRun {
  std::shared_ptr<const exec::TransferProfile> profile;
  std::shared_ptr<const program::Program> program;  // the snapshot profiled
  int method = -1;                                    // index into program->methods()
  ProfileRequest request;                             // as given to start()
  // Short human text for tabs and combo boxes, e.g.
  // "forward · host emulation · pageable · 20 iterations", or
  // "forward · as shown · ExecuTorch runner executor_runner · 20 iterations".
  QString label;
  // A runner's run with compareWithLoaded: whether the two runs' outputs
  // agree ("outputs as loaded and as shown agree bit for bit (1 output)", or
  // which output differs and by how much); empty otherwise.
  QString outputsAgreement;
  bool outputsDiffer = false;
  // Why Auto did not use a GPU (RuntimeSelection::short_notice and notice); empty otherwise.
  QString runtimeNotice;        // a few words ("no usable CUDA device: ...")
  QString runtimeNoticeDetail;  // the whole notice (the driver's error)
  // An imported ETDump of several methods: PRF004 across them
  // (etdump::roundTripsAcrossMethods, maybe none), which one method's
  // profile cannot show; the Summary section and the exported report list
  // them. nullopt: not a trace of several methods.
  std::optional<std::vector<exec::ProfileFinding>> acrossMethods;
  // An imported ETDump: what the trace does not say and was assumed
  // (report::etdumpAssumptions: the tick, the methods' blocks, misfits),
  // each "trace.etdp: ...", for the exported report's notes.
  std::vector<std::string> traceNotes;
  // An imported ETDump: every method the trace ran, by method index, with
  // the label it shows under. Switching the window to another of them shows
  // its measurements (ProfileSession::showTraceMethod); the exported report
  // holds them all, as `report --etdump` does. Empty otherwise.
  struct TraceMethod {
    std::shared_ptr<const exec::TransferProfile> profile;
    QString label;
  };
  std::map<int, TraceMethod> traceMethods;
  QDateTime when;  // when the run started
};

class ProfileSession : public QObject {
  Q_OBJECT
 public:
  enum class Format { Json, Csv, Trace };

  explicit ProfileSession(QObject* parent = nullptr);
  // Cancels a run that is going and waits for it: no worker outlives the session.
  ~ProfileSession() override;

  // Starts profiling method `request.method` of `program` off the UI thread.
  // `programName` goes into the reports (TransferProfile::program_name) and
  // the messages. Returns false with a message, and starts nothing, when a
  // run is already going, there is no program, the method index is out of
  // range or the iteration count is 0.
  //
  // With request.runner: the runner runs `program` (written to a private
  // folder); with request.compareWithLoaded it runs `asLoaded` first (needed
  // then), and finished() comes once, with the as-loaded run as previous()
  // and the as-shown run as latest(). A failure of either run is failed()
  // with the runner's one line; cancel() kills the runner's process group and
  // ends in cancelled(). No file is left behind on any path.
  bool start(std::shared_ptr<const program::Program> program, const QString& programName,
             const ProfileRequest& request, QString* error = nullptr,
             std::shared_ptr<const program::Program> asLoaded = nullptr);
  // Asks the run to stop (at once: inside a long kernel too); returns at once.
  // The outcome arrives as finished() (partial profile) or cancelled().
  void cancel();
  bool isRunning() const { return job_.running(); }
  bool isCancelling() const { return job_.stopping(); }
  // Where the iteration under way is (instructionProgressText); null before
  // the first run.
  const exec::RunProgress* runProgress() const { return runProgress_.get(); }
  // Blocks until the run (if any) has ended and its outcome has been
  // delivered (signals emitted, history updated). For tests and shutdown.
  void waitForFinished();

  // The newest result and the one before it; nullopt when there is none.
  const std::optional<ProfileRun>& latest() const { return latest_; }
  const std::optional<ProfileRun>& previous() const { return previous_; }
  // Adds a result made elsewhere (an imported ETDump) as if a run had just
  // finished: it becomes latest(), the one before moves to previous(), then
  // historyChanged() and finished(). False, and nothing changes, while a run
  // is going or when `run` has no profile or program.
  bool addRun(ProfileRun run);
  // The latest run is an imported trace that also ran METHOD: it shows that
  // method's measurements from now on (profile, method and label; the
  // history does not move). False, and nothing changes, otherwise.
  bool showTraceMethod(int method);
  // Drops both results (another file was opened). A run that is going is
  // cancelled and its outcome discarded.
  void clear();

  // Writes the latest profile with the same writers as the CLI (atomic
  // write; on failure the target is untouched). False with a message when
  // there is no result or the write fails.
  bool exportProfile(const QString& path, Format format, QString* error = nullptr) const;

  // File-dialog filters for the three formats, ";;"-separated, JSON first.
  static QString exportFileFilters();
  // The format for a file name: *.trace.json → Trace, *.json → Json (Trace
  // when `selectedFilter` is the trace entry of exportFileFilters(), i.e.
  // the user chose it), *.csv → Csv. A name with none of these suffixes
  // takes the format of `selectedFilter`; nullopt when that is empty too.
  static std::optional<Format> formatForPath(const QString& path, const QString& selectedFilter = {});
  static QString formatName(Format format);  // "JSON", "CSV", "trace"

 signals:
  void started();
  // Phase text as the CLI prints it ("preparing", "warm-up", "measuring",
  // exec::phaseName), steps done and total in that phase. Throttled: the
  // first and last step of each phase always arrive, others at most every
  // kProgressIntervalMs.
  void progress(const QString& phase, int done, int total);
  void finished();
  void failed(const QString& message);
  void cancelled();
  // latest() / previous() changed (a run finished, or clear()).
  void historyChanged();

 public:
  static constexpr int kProgressIntervalMs = 50;

 private:
  struct Outcome;
  using Work = std::function<std::shared_ptr<Outcome>(const CancelFlag&)>;
  Work runnerWork(std::shared_ptr<const program::Program> program, std::shared_ptr<const program::Program> asLoaded,
                  const std::string& method, const QString& programName, const ProfileRequest& request);
  void finishRun(const Outcome& outcome);
  void onProgress(const QString& phase, int done, int total);

  bool discard_ = false;  // clear() during a run: its outcome is not kept
  ProfileRun pending_;    // what start() knew about the run going on
  std::shared_ptr<const program::Program> asLoadedProgram_;  // a runner's compareWithLoaded: the as-loaded snapshot
  std::optional<ProfileRun> latest_;
  std::optional<ProfileRun> previous_;
  std::shared_ptr<exec::RunProgress> runProgress_;  // shared with the run
  // The run off the UI thread. Last member: destroyed (and waited for)
  // before the rest.
  BackgroundJob job_;
};

// Short text for the runtime preference: "Automatic", "CUDA GPU", "Host emulation".
QString runtimePreferenceText(exec::RuntimePreference preference);
// For a profile measured by the user's runner (TransferProfile::runtime
// "ExecuTorch runner PATH, host clock"): "ExecuTorch runner NAME", NAME the
// runner's file name; empty for any other profile.
QString runnerLabel(const std::string& runtime);

}  // namespace ptescope::ui
