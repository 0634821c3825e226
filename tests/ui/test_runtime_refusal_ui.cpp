// The GUI's profile fails with the runtime's refusal (reason, runtime check,
// lint rule) for a program whose method input is planned on a device.
#include <QtTest>

#include <QElapsedTimer>
#include <QSignalSpy>

#include <memory>

#include "exec/DeviceRuntime.h"
#include "support/TestSupport.h"
#include "synth/JsonSpec.h"
#include "synth/Scenarios.h"
#include "ui/profile/ProfileSession.h"

using namespace ptescope;

namespace {

std::shared_ptr<const program::Program> scenario(const std::string& name) {
  auto built = synth::synthesizeScenario(name);
  if (!built) return nullptr;
  auto passed = synth::applyDevicePasses(built.value());
  if (!passed) return nullptr;
  return std::make_shared<const program::Program>(std::move(passed.value()));
}

}  // namespace

class RuntimeRefusalUiTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { qputenv("PTESCOPE_NO_DIALOGS", "1"); }

  void profileFailsWithTheRuntimesReason() {
    for (const char* name : {"skip_h2d", "skip_both_unplanned_io"}) {
      ui::ProfileSession session;
      QSignalSpy finished(&session, &ui::ProfileSession::finished);
      QSignalSpy failed(&session, &ui::ProfileSession::failed);
      ui::ProfileRequest request;
      request.method = 0;
      request.runtime = exec::RuntimePreference::Host;
      request.iterations = 1;
      request.warmup = 0;
      request.measurePeak = false;
      auto program = scenario(name);
      QVERIFY(program);
      QString error;
      QVERIFY2(session.start(program, name, request, &error), qPrintable(error));
      QElapsedTimer timer;
      timer.start();
      while (finished.count() + failed.count() == 0 && timer.elapsed() < 60000) QTest::qWait(10);
      if (std::string(name) == "skip_h2d") {
        QCOMPARE(failed.count(), 1);
        const QString message = failed.first().first().toString();
        QVERIFY2(message.contains("Planned-buffer copy needs host memory on both sides"), qPrintable(message));
        QVERIFY(message.contains("Method::set_input fails with NotSupported"));
        QVERIFY(message.contains("RT001") && message.contains("PTS001"));
      } else {
        QCOMPARE(finished.count(), 1);
      }
    }
  }
};

QTEST_MAIN(RuntimeRefusalUiTest)
#include "test_runtime_refusal_ui.moc"
