// The main window and its item models, offscreen: the demo opens with its
// copies, every shared sample opens, models pass QAbstractItemModelTester,
// filters and selection work, bad files leave the document alone.
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QImage>
#include <QLabel>
#include <QStatusBar>
#include <QTableView>
#include <QTreeView>

#include "support/TestSupport.h"
#include "ui/document/Document.h"
#include "ui/graph/GraphView.h"
#include "ui/common/ItemRoles.h"
#include "ui/window/MainWindow.h"
#include "ui/panels/ProgramTreeModel.h"
#include "ui/panels/PropertiesPanel.h"
#include "ui/profile/TransfersModel.h"
#include "ui/panels/ValuesModel.h"

using namespace ptescope;

class MainWindowTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { qputenv("PTESCOPE_NO_DIALOGS", "1"); }

  void demoOpensWithCopiesAndTwoMethods() {
    ui::Document doc;
    ui::MainWindow window(&doc);
    QVERIFY(window.openDemo());
    QVERIFY(doc.isDemo());
    QCOMPARE(doc.methodCount(), 2);
    QCOMPARE(window.methodSelector()->count(), 2);
    // The demo after the device passes: each method has two CUDA delegates,
    // so copies in both directions.
    auto* transfers = window.transfersView()->model();
    QVERIFY(transfers->rowCount() >= 3);
    bool h2d = false, d2h = false;
    for (int r = 0; r < transfers->rowCount(); ++r) {
      const QString dir = transfers->index(r, ui::TransfersModel::Direction).data().toString();
      h2d = h2d || dir == "h2d";
      d2h = d2h || dir == "d2h";
    }
    QVERIFY(h2d && d2h);
    const QString totals = window.findChild<QLabel*>("transferTotals")->text();
    QVERIFY2(totals.contains("h2d") && totals.contains("d2h") && totals.contains("copies"), qPrintable(totals));
    QVERIFY(window.windowTitle().contains("demo"));
    // The graph of the current method sits in the centre; the status bar
    // says whether a GPU is there (none on CI machines).
    QVERIFY(window.graph() != nullptr);
    QCOMPARE(window.centralWidget(), static_cast<QWidget*>(window.graph()));
    QVERIFY(window.findChild<QLabel*>("gpuStatus")->text().startsWith("GPU: "));
  }

  void statusMessageNeverCoversTheFileLabel() {
    // A message shown before the window is (an ETDump import at start-up)
    // used to be drawn over the file label once the window showed, and a
    // long one under the permanent labels (issue 24, item 17).
    ui::Document doc;
    ui::MainWindow window(&doc);
    auto* file = window.statusBar()->findChild<QLabel*>("fileStatus");
    auto* message = window.statusBar()->findChild<QLabel*>("statusMessage");
    QVERIFY(file != nullptr && message != nullptr && window.openDemo());
    window.showStatus("imported");
    window.resize(1000, 700);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(!file->isVisible());
    QVERIFY(message->isVisible());
    window.showStatus(QString());
    QVERIFY(file->isVisible());
    QVERIFY(!message->isVisible());
    QCOMPARE(file->text(), QString("Demo program (built in)"));
    // Qt's own messages (status tips) take the same label.
    const QString longMessage = QString("a very long message ").repeated(30);
    window.statusBar()->showMessage(longMessage);
    QVERIFY(!file->isVisible());
    QCOMPARE(window.statusMessage(), longMessage);
    QVERIFY(window.statusBar()->currentMessage().isEmpty());
    QCoreApplication::processEvents();
    for (const char* name : {"methodStatus", "countsStatus", "gpuStatus"}) {
      auto* label = window.statusBar()->findChild<QLabel*>(name);
      QVERIFY2(!label->isVisible() || !label->geometry().intersects(message->geometry()), name);
    }
    QVERIFY2(window.width() <= 1000, qPrintable(QString::number(window.width())));
    // A timed message goes away by itself.
    window.showStatus("saved", 50);
    QVERIFY(!file->isVisible());
    QTRY_VERIFY(file->isVisible());
  }

  void modelsPassTheTester() {
    ui::Document doc;
    ui::ProgramTreeModel tree(&doc);
    ui::ValuesModel values(&doc);
    ui::TransfersModel transfers(&doc);
    QAbstractItemModelTester t1(&tree, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(&values, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t3(&transfers, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(doc.openDemo());
    doc.setCurrentMethod(1);
    doc.setCurrentMethod(0);
    QCOMPARE(tree.rowCount(), 4);  // Methods, Segments, Named data (so blobs), External data (aoti_cuda_blob.ptd)
    QCOMPARE(tree.rowCount(tree.index(0, 0)), 2);
    QCOMPARE(values.rowCount(), int(program::items(doc.currentMethod()->values).size()));
    if (!test::samplesDir().isEmpty()) {
      QVERIFY(doc.open(test::samplePath("stories260k-qnn-multimethod.pte")));
      QCOMPARE(tree.rowCount(tree.index(0, 0)), 29);
      QVERIFY(doc.open(test::samplePath("quantized-xnnpack.pte")));
      QCOMPARE(tree.rowCount(), 3);  // Methods, Segments, Named data
    }
    doc.close();
    QCOMPARE(values.rowCount(), 0);
  }

  void deviceFilterAndSelection() {
    ui::Document doc;
    ui::MainWindow window(&doc);
    QVERIFY(window.openDemo());
    auto* filter = window.findChild<QComboBox*>("deviceFilter");
    QVERIFY(filter);
    const int cuda = filter->findData("cuda:0");
    QVERIFY(cuda > 0);
    filter->setCurrentIndex(cuda);
    auto* view = window.valuesView();
    QVERIFY(view->model()->rowCount() > 0);
    for (int r = 0; r < view->model()->rowCount(); ++r)
      QCOMPARE(view->model()->index(r, 0).data(ui::DeviceRole).toString(), QString("cuda:0"));
    filter->setCurrentIndex(0);
    QCOMPARE(view->model()->rowCount(), int(program::items(doc.currentMethod()->values).size()));
    // Selecting a value shows it in the properties panel.
    window.selectValue(0);
    auto* props = window.properties();
    QVERIFY(props->topLevelItemCount() > 3);
    QCOMPARE(props->topLevelItem(0)->text(1), QString("%0"));
    window.selectInstruction(0);
    QCOMPARE(props->topLevelItem(0)->text(1), QString("0"));
    // Sorting by bytes puts the largest value first.
    view->sortByColumn(ui::ValuesModel::Bytes, Qt::DescendingOrder);
    const qint64 first = view->model()->index(0, ui::ValuesModel::Bytes).data(ui::SortRole).toLongLong();
    for (int r = 1; r < view->model()->rowCount(); ++r)
      QVERIFY(view->model()->index(r, ui::ValuesModel::Bytes).data(ui::SortRole).toLongLong() <= first);
  }

  void everySampleOpensAndBadFilesKeepTheDocument() {
    PTESCOPE_REQUIRE_SAMPLES();
    ui::Document doc;
    ui::MainWindow window(&doc);
    for (const QString& f : test::samplePrograms()) QVERIFY2(window.openFile(f), qPrintable(f));
    QVERIFY(window.openFile(test::samplePath("stories260k-qnn-multimethod.pte")));
    QCOMPARE(window.methodSelector()->count(), 29);
    QVERIFY(!window.openFile(test::samplePath("bad-corrupt.pte")));
    QVERIFY(window.lastError().contains("bad-corrupt.pte"));
    QVERIFY(window.lastError().contains("not an ExecuTorch program"));
    QVERIFY(doc.hasProgram());
    QCOMPARE(window.methodSelector()->count(), 29);
    QVERIFY(window.windowTitle().contains("stories260k"));
  }

  void panelsAndMethodsByName() {
    ui::Document doc;
    ui::MainWindow window(&doc);
    QVERIFY(window.openDemo());
    QVERIFY(window.showMethod("prefill"));
    QCOMPARE(doc.currentMethodIndex(), 1);
    QCOMPARE(window.methodSelector()->currentText(), QString("prefill"));
    QVERIFY(window.showPanel("memory"));
    QCOMPARE(window.bottomTabs()->tabText(window.bottomTabs()->currentIndex()), QString("Memory plan"));
    QVERIFY(window.bottomTabs()->currentWidget()->findChild<QWidget*>("memoryPlan") != nullptr);
    QVERIFY(!window.showPanel("nothing"));
    QVERIFY(window.lastError().contains("no panel named"));
  }

  void reloadsWhenTheFileChanges() {
    PTESCOPE_REQUIRE_SAMPLES();
    const QString path = test::tempDir() + "/watched.pte";
    QFile::remove(path);
    QVERIFY(QFile::copy(test::samplePath("add.pte"), path));
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
    ui::Document doc;
    ui::MainWindow window(&doc);
    QVERIFY(window.openFile(path));
    QCOMPARE(doc.methodCount(), 1);
    QSignalSpy changed(&doc, &ui::Document::programChanged);
    // Replace it with a two-method program.
    QFile::remove(path);
    QVERIFY(QFile::copy(test::samplePath("multi-method.pte"), path));
    QTRY_VERIFY_WITH_TIMEOUT(doc.methodCount() == 2, 5000);
    QVERIFY(changed.count() >= 1);
  }

  void screenshotCommand() {
    const QString png = test::tempDir() + "/window.png";
    auto demo = test::runProcess(QStringLiteral(PTESCOPE_GUI), {"--screenshot", png});
    QCOMPARE(demo.exitCode, 0);
    QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() >= 800 && image.height() >= 500);
    auto panel = test::runProcess(QStringLiteral(PTESCOPE_GUI), {"--screenshot", png, "--method", "prefill", "--tab", "memory"});
    QCOMPARE(panel.exitCode, 0);
    auto noMethod = test::runProcess(QStringLiteral(PTESCOPE_GUI), {"--screenshot", png, "--method", "nope"});
    QCOMPARE(noMethod.exitCode, 2);
    QVERIFY(noMethod.err.contains("no method named 'nope'"));
    // --profile: the app's profile of the demo, written through the GUI's export.
    const QString json = test::tempDir() + "/app-profile.json";
    auto profiled = test::runProcess(QStringLiteral(PTESCOPE_GUI),
                                     {"--screenshot", png, "--profile", "--tab", "timeline", "--export-profile", json});
    QVERIFY2(profiled.exitCode == 0, profiled.err.constData());
    QFile file(json);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const auto exported = QJsonDocument::fromJson(file.readAll()).object();
    QCOMPARE(exported.value("format").toString(), QString("ptescope-profile"));
    QCOMPARE(exported.value("copies").toArray().size(), 4);  // the demo's forward: 2 H2D, 2 D2H
    auto badName = test::runProcess(QStringLiteral(PTESCOPE_GUI),
                                    {"--screenshot", png, "--profile", "--export-profile", test::tempDir() + "/p.txt"});
    QCOMPARE(badName.exitCode, 2);
    QVERIFY(badName.err.contains(".trace.json"));
    PTESCOPE_REQUIRE_SAMPLES();
    auto bad = test::runProcess(QStringLiteral(PTESCOPE_GUI), {"--screenshot", png, test::samplePath("bad-corrupt.pte")});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY(bad.err.contains("bad-corrupt.pte"));
  }
};

QTEST_MAIN(MainWindowTest)
#include "test_main_window.moc"
