// The one way the GUI sends work off the UI thread: a job slot where the
// newest request supersedes older ones. Starting a job never blocks: an
// older job still running is told to stop (its cancel flag is raised) and
// its result is dropped when it arrives. The result of the newest job is
// handed to its `done` callback on the UI thread, unless it was cancelled or
// the slot was destroyed first. stop() is the gentler cancel, for work that
// has something to show when cut short (a partial profile, the quick layout
// of a graph): the flag is raised and what the work returns is delivered.
//
// Users: Document (the pipeline), GraphView (layouts), ProfileSession
// (profiles), OutputsPanel (Run Once).
//
// Work runs on Qt's global thread pool and must not touch widgets; it gets a
// CancelFlag it may poll to stop early.
#pragma once

#include <QCoreApplication>
#include <QFuture>
#include <QFutureSynchronizer>
#include <QMetaObject>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>
#include <functional>
#include <memory>

namespace ptescope::ui {

using CancelFlag = std::shared_ptr<std::atomic<bool>>;

class BackgroundJob {
 public:
  BackgroundJob() : state_(std::make_shared<State>()) {}
  ~BackgroundJob() {
    state_->alive = false;
    cancel();
    // Work only reads what it was given, so nothing needs it once the slot
    // is gone; waiting here keeps the thread pool quiet at shutdown.
    finished_.waitForFinished();
  }
  BackgroundJob(const BackgroundJob&) = delete;
  BackgroundJob& operator=(const BackgroundJob&) = delete;

  // Starts `work(cancel)` off the UI thread; when it returns and no newer job
  // was started (and cancel() was not called), `done(result)` runs on the UI
  // thread.
  template <class Result>
  void start(std::function<Result(const CancelFlag&)> work, std::function<void(Result)> done) {
    cancel();
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    current_ = cancelled;
    const quint64 generation = state_->generation;
    state_->running = true;
    std::weak_ptr<State> weak = state_;
    QFuture<void> future = QtConcurrent::run([work = std::move(work), done = std::move(done), cancelled, generation, weak] {
      auto result = std::make_shared<Result>(work(cancelled));
      // Delivered on the UI thread (the application object lives there), where
      // the slot's state is only ever changed: no race on `alive`.
      QMetaObject::invokeMethod(
          QCoreApplication::instance(),
          [done, result, generation, weak] {
            auto state = weak.lock();
            if (!state || !state->alive || state->generation != generation) return;
            state->running = false;
            done(std::move(*result));
          },
          Qt::QueuedConnection);
    });
    finished_.addFuture(future);
    pruneFinished();
  }

  // Stops the current job: its result will not be delivered.
  void cancel() {
    if (current_) *current_ = true;
    current_.reset();
    ++state_->generation;  // whatever is on its way is dropped
    state_->running = false;
  }

  // Asks the current job to stop early; what it returns is still delivered.
  void stop() {
    if (current_) *current_ = true;
  }
  // stop() was asked of the job still running.
  bool stopping() const { return state_->running && current_ && current_->load(); }

  // Whether a job was started and neither delivered nor cancelled.
  bool running() const { return state_->running; }

  // For tests and shutdown only: blocks until every started job has returned
  // and the newest one's result was delivered.
  void waitForIdle() {
    finished_.waitForFinished();
    QCoreApplication::processEvents();
  }

 private:
  struct State {
    bool alive = true;
    bool running = false;
    quint64 generation = 0;
  };
  void pruneFinished() {
    // Keep the synchronizer from growing without bound over a long session.
    const auto futures = finished_.futures();
    if (futures.size() < 16) return;
    QFutureSynchronizer<void> kept;
    for (const auto& f : futures)
      if (!f.isFinished()) kept.addFuture(f);
    finished_.clearFutures();
    for (const auto& f : kept.futures()) finished_.addFuture(f);
    kept.clearFutures();
  }

  std::shared_ptr<State> state_;
  CancelFlag current_;
  QFutureSynchronizer<void> finished_;
};

}  // namespace ptescope::ui
