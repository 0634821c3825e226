// ui::BackgroundJob, the one job slot of the GUI (Document's pipeline,
// GraphView's layouts, ProfileSession's runs): the newest request
// supersedes older ones, cancel() drops a result, stop() raises the flag
// and still delivers, start() never waits for the work, and a destroyed
// slot delivers nothing.
#include <QtTest>

#include <QSemaphore>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "ui/document/BackgroundJob.h"

using ptescope::ui::BackgroundJob;
using ptescope::ui::CancelFlag;

namespace {

// Work that waits until `gate` opens or its cancel flag rises, then says
// which it saw; `flag` (when given) receives the job's cancel flag.
std::function<QString(const CancelFlag&)> gated(QSemaphore* gate, const QString& name, CancelFlag* flag = nullptr) {
  return [gate, name, flag](const CancelFlag& cancel) {
    if (flag) *flag = cancel;
    while (!gate->tryAcquire(1, 5))
      if (cancel->load()) return name + " stopped";
    return name + " done";
  };
}

// Spins the event loop until `done` or 10 s passed.
template <class Done>
bool waitUntil(Done done) {
  QElapsedTimer clock;
  clock.start();
  while (!done() && clock.elapsed() < 10000) QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
  return done();
}

}  // namespace

class BackgroundJobTest : public QObject {
  Q_OBJECT
 private slots:
  void newestRequestSupersedes() {
    BackgroundJob job;
    QSemaphore gateA, gateB;
    QStringList delivered;
    CancelFlag flagA;
    job.start<QString>(gated(&gateA, "A", &flagA), [&](QString r) { delivered << r; });
    // start() returned while A is still waiting for its gate: it never blocks.
    QVERIFY(job.running());
    job.start<QString>(gated(&gateB, "B"), [&](QString r) { delivered << r; });
    QVERIFY(waitUntil([&] { return flagA != nullptr; }));
    QVERIFY(flagA->load());  // A was told to stop
    gateB.release();
    QVERIFY(waitUntil([&] { return !delivered.isEmpty(); }));
    job.waitForIdle();
    QCOMPARE(delivered, QStringList{"B done"});
    QVERIFY(!job.running());
  }

  void cancelDropsTheResult() {
    BackgroundJob job;
    QSemaphore gate;
    int delivered = 0;
    job.start<QString>(gated(&gate, "A"), [&](QString) { ++delivered; });
    job.cancel();
    QVERIFY(!job.running());
    job.waitForIdle();  // the work saw its flag and returned
    QCOMPARE(delivered, 0);
  }

  void stopDeliversWhatTheWorkReturns() {
    BackgroundJob job;
    QSemaphore gate;
    QStringList delivered;
    job.start<QString>(gated(&gate, "A"), [&](QString r) { delivered << r; });
    QVERIFY(!job.stopping());
    job.stop();
    QVERIFY(job.running());
    QVERIFY(job.stopping());
    QVERIFY(waitUntil([&] { return !delivered.isEmpty(); }));
    QCOMPARE(delivered, QStringList{"A stopped"});
    QVERIFY(!job.running());
    QVERIFY(!job.stopping());
  }

  void aDestroyedSlotDeliversNothing() {
    QSemaphore gate;
    auto delivered = std::make_shared<std::atomic<int>>(0);
    {
      BackgroundJob job;
      job.start<QString>(
          [&gate](const CancelFlag&) {
            gate.acquire();
            return QString("late");
          },
          [delivered](QString) { ++*delivered; });
      gate.release();
      // The result is queued for the UI thread when the slot goes.
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    QCoreApplication::processEvents();
    QCOMPARE(delivered->load(), 0);
  }
};

QTEST_MAIN(BackgroundJobTest)
#include "test_background_job.moc"
