// The window opens a program and shows its structure; `ptescope --screenshot`
// writes a real grab of it.
#include <QtTest>

#include <QImage>
#include <QPlainTextEdit>
#include <QTreeWidget>

#include "support/TestSupport.h"
#include "ui/Document.h"
#include "ui/MainWindow.h"

using namespace ptescope;

class MainWindowTest : public QObject {
  Q_OBJECT
 private slots:
  void emptyWindowInvitesToOpen() {
    ui::Document doc;
    ui::MainWindow window(&doc);
    auto* summary = window.findChild<QPlainTextEdit*>("summary");
    QVERIFY(summary);
    QVERIFY(summary->toPlainText().contains("File > Open"));
  }

  void opensAProgramAndKeepsItOnBadInput() {
    PTESCOPE_REQUIRE_SAMPLES();
    ui::Document doc;
    ui::MainWindow window(&doc);
    QVERIFY(window.openFile(test::samplePath("stories260k-qnn-multimethod.pte")));
    auto* tree = window.findChild<QTreeWidget*>("programTree");
    QVERIFY(tree);
    auto methods = tree->findItems("Methods", Qt::MatchExactly);
    QCOMPARE(methods.size(), 1);
    QCOMPARE(methods[0]->childCount(), 29);
    QVERIFY(window.windowTitle().contains("stories260k"));
    // A corrupt file leaves the loaded program in place.
    QVERIFY(!window.openFile(test::samplePath("bad-corrupt.pte")));
    QVERIFY(doc.hasProgram());
    QCOMPARE(tree->findItems("Methods", Qt::MatchExactly)[0]->childCount(), 29);
  }

  void screenshotCommand() {
    PTESCOPE_REQUIRE_SAMPLES();
    const QString png = test::tempDir() + "/window.png";
    auto r = test::runProcess(QStringLiteral(PTESCOPE_GUI), {"--screenshot", png, test::samplePath("keyword-spotting-cortex-m.pte")});
    QCOMPARE(r.exitCode, 0);
    QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() >= 800 && image.height() >= 500);
    auto bad = test::runProcess(QStringLiteral(PTESCOPE_GUI), {"--screenshot", png, test::samplePath("bad-corrupt.pte")});
    QCOMPARE(bad.exitCode, 2);
  }
};

QTEST_MAIN(MainWindowTest)
#include "test_main_window.moc"
