// The one way a long operation's progress keeps moving on screen: a timer of
// the UI thread that, while started, calls tick(seconds since start) at once
// and then twice a second, whatever the work off the UI thread is doing (a
// single kernel of minutes included), so "12 s so far" never freezes. The
// work only publishes where it is (atomics the tick reads); it never has to
// call back for the text to move. Used by Run Once (OutputsPanel),
// profiling (MainWindowProfile), the advisor's search and the link probe.
#pragma once

#include <QElapsedTimer>
#include <QObject>

#include <QString>

#include <functional>

class QTimer;

namespace ptescope::exec {
struct RunProgress;
}

namespace ptescope::ui {

// "instruction 37 of 216" for a run under way; empty before its first
// instruction or without one.
QString instructionProgressText(const exec::RunProgress* progress);

class ProgressTicker : public QObject {
  Q_OBJECT
 public:
  ProgressTicker(QObject* parent, std::function<void(qint64 seconds)> tick);

  void start();
  void stop();
  bool isActive() const;
  qint64 seconds() const;

 private:
  QTimer* timer_;
  QElapsedTimer clock_;
  std::function<void(qint64)> tick_;
};

}  // namespace ptescope::ui
