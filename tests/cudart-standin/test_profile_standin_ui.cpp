// The app profiling on the CUDA runtime when the device is lost mid-profile
// (the cudart stand-in, offscreen; CTest sets the stand-in up with leaks
// fatal): the completed iterations are kept and shown as a partial profile,
// the failure is one error naming the iteration, the instruction and the
// CUDA error, the document stays open and unmodified, and the next CUDA
// profile on the lost device is a clear error that keeps the partial one,
// while a host profile still runs.
#include <QtTest>

#include <QSignalSpy>

#include "support/TestSupport.h"
#include "ui/document/Document.h"
#include "ui/profile/ProfileSession.h"
#include "ui/window/MainWindow.h"

using namespace ptescope;
using ui::MainWindow;

class ProfileStandinUiTest : public QObject {
  Q_OBJECT

  static ui::ProfileRequest request(int method, exec::RuntimePreference runtime) {
    ui::ProfileRequest r;
    r.method = method;
    r.runtime = runtime;
    r.iterations = 3;
    r.warmup = 0;
    r.measurePeak = false;  // no probe copies: the demo makes 4 copies an iteration
    return r;
  }

 private slots:
  void initTestCase() {
    qputenv("PTESCOPE_NO_DIALOGS", "1");
    // Read by the stand-in at its first call: the device is lost once the
    // 8th copy (the last of iteration 2) completed.
    qputenv("PTESCOPE_STANDIN_LOSE_DEVICE", "8");
  }

  void aDeviceLostMidProfileKeepsTheDocument() {
    ui::Document doc;
    MainWindow window(&doc);
    window.resize(1200, 800);
    window.show();
    QVERIFY(window.openDemo());
    const auto program = doc.programSnapshot();
    const int method = doc.currentMethodIndex();

    QSignalSpy finished(window.profileSession(), &ui::ProfileSession::finished);
    QVERIFY(window.startProfile(request(method, exec::RuntimePreference::Cuda)));
    QVERIFY(finished.wait(60000));
    const auto& run = *window.profileSession()->latest();
    QVERIFY2(run.profile->runtime.find("stand-in") != std::string::npos, run.profile->runtime.c_str());
    QVERIFY(run.profile->partial());
    QCOMPARE(run.profile->iterations, size_t(2));
    QCOMPARE(run.profile->copies.size(), size_t(4));
    QVERIFY2(run.label.contains("2 of 3 iterations (partial"), qPrintable(run.label));
    const QString error = window.lastError();
    QVERIFY2(error.contains("measured iteration 3 of 3") && error.contains("instruction 0") &&
                 error.contains("cudaErrorDevicesUnavailable, code 46") && error.contains("2 iterations that completed"),
             qPrintable(error));
    QVERIFY(!window.profileStatus()->isVisibleTo(&window));
    QVERIFY(doc.hasProgram() && doc.programSnapshot() == program && !doc.isModified());

    // The device stays lost: one clear error, the partial profile kept.
    QSignalSpy failed(window.profileSession(), &ui::ProfileSession::failed);
    QVERIFY(window.startProfile(request(method, exec::RuntimePreference::Cuda)));
    QVERIFY(failed.wait(60000));
    QVERIFY2(window.lastError().contains("cannot use the CUDA runtime") && window.lastError().contains("code 46"),
             qPrintable(window.lastError()));
    QVERIFY(window.profileSession()->latest() && window.profileSession()->latest()->profile->partial());
    QVERIFY(doc.hasProgram() && doc.programSnapshot() == program && !doc.isModified());

    // The host runtime still profiles the open document.
    QVERIFY(window.startProfile(request(method, exec::RuntimePreference::Host)));
    QVERIFY(finished.wait(60000));
    QVERIFY(window.profileSession()->latest()->profile->emulated);
    QVERIFY(!window.profileSession()->latest()->profile->partial());
  }
};

QTEST_MAIN(ProfileStandinUiTest)
#include "test_profile_standin_ui.moc"
