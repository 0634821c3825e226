// A seventh look at issue 34's classes: what the sixth walkthrough left
// (a status line about another method) and what the seventh found.
#include <QtTest>

#include "support/TestSupport.h"
#include "support/UiTestSupport.h"
#include "ui/document/Document.h"
#include "ui/window/MainWindow.h"

using namespace ptescope;

class WalkthroughSevenTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { qputenv("PTESCOPE_NO_DIALOGS", "1"); }

  // "Profiled forward · host emulation ..." stayed on the status line after
  // the user switched to prefill, over a graph with no profile; back on
  // forward a new profile says so again.
  void aProfilesMessageLeavesWithItsMethod() {
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.openDemo());
    QVERIFY(w.window.showMethod("forward"));
    QVERIFY(test::profileOnHost(w.window, w.doc.currentMethodIndex(), 2, 0));
    QTRY_VERIFY2(w.window.statusMessage().startsWith("Profiled forward"), qPrintable(w.window.statusMessage()));
    QVERIFY(w.window.showMethod("prefill"));
    QVERIFY2(w.window.statusMessage().isEmpty(), qPrintable(w.window.statusMessage()));
    // A message about no method (a file written) stays when the method changes.
    w.window.showStatus("Wrote the report /tmp/x.html", 5000);
    QVERIFY(w.window.showMethod("forward"));
    QCOMPARE(w.window.statusMessage(), QString("Wrote the report /tmp/x.html"));
  }
};

QTEST_MAIN(WalkthroughSevenTest)
#include "test_walkthrough_seven.moc"
