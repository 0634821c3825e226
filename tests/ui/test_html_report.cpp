// File > Export Report: the HTML report of the program as the window shows
// it. Its graph has exactly the nodes the app's graph view drew for the
// method (collapsed groups included), its copies table the copies of the
// edited program (not the file's), and a write that cannot happen is an
// error the window reports.
#include <QtTest>

#include <QMenuBar>
#include <QRegularExpression>
#include <QSignalSpy>

#include "analysis/Summary.h"
#include "support/UiTestSupport.h"
#include "ui/document/Document.h"
#include "ui/graph/GraphItems.h"
#include "ui/profile/ProfileSession.h"
#include "ui/window/MainWindow.h"

using namespace ptescope;

namespace {

QString readText(const QString& path) {
  const auto bytes = test::readAll(path);
  return QString::fromUtf8(reinterpret_cast<const char*>(bytes.data()), qsizetype(bytes.size()));
}

QString methodSection(const QString& html, int method) {
  const QString open = QString("<section class=\"method\" id=\"m%1\">").arg(method);
  const qsizetype a = html.indexOf(open);
  if (a < 0) return {};
  return html.mid(a, html.indexOf("</section>", a) - a);
}

size_t copiesIn(const program::Method& method) {
  const auto s = analysis::summarizeMethod(method);
  return s.h2d_copies + s.d2h_copies;
}

int drawnNodes(ui::GraphView* view) {
  int n = 0;
  for (auto* item : view->scene()->items())
    if (qgraphicsitem_cast<ui::GraphNodeItem*>(item)) ++n;
  return n;
}

}  // namespace

class HtmlReportUiTest : public QObject {
  Q_OBJECT
 private slots:
  // A big method: the first picture collapses layers into groups.
  void exportsTheGraphTheAppDraws() {
    const QString program = test::tempDir() + "/llm.pte";
    QCOMPARE(test::runCli({"synth", "--shape", "llm", "--instructions", "600", "-o", program}).exitCode, 0);
    ui::Document doc;
    ui::MainWindow window(&doc);
    QVERIFY(test::showProgram(window, program, "forward"));
    QVERIFY(test::waitForGraph(window.graph()));
    QVERIFY(window.graph()->hasGroups());
    const int drawn = drawnNodes(window.graph());
    QVERIFY(drawn > 0);
    const QString out = test::tempDir() + "/llm.html";
    QVERIFY2(window.exportHtmlReportTo(out), qPrintable(window.lastError()));
    const QString section = methodSection(readText(out), 0);
    QCOMPARE(int(section.count(QRegularExpression("<g id=\"m0-[^\"]*\" class=\"node\">"))), drawn);
    QCOMPARE(size_t(section.count("<tr class=\"copy\"")), copiesIn(doc.program().methods()[0]));
  }

  // The program as edited in the window, not the file.
  void exportsTheEditedProgram() {
    const QString program = test::writeDemoProgram("demo.pte");
    QVERIFY(!program.isEmpty());
    ui::Document doc;
    ui::MainWindow window(&doc);
    QVERIFY(test::showProgram(window, program, "forward"));
    const size_t fileCopies = copiesIn(doc.loaded().program.methods()[0]);
    auto options = doc.methodOptions(0);
    options.skip_h2d_for_method_inputs = true;  // the input's copy goes
    doc.setMethodOptions(0, options);
    doc.waitForPipeline();
    QVERIFY(doc.pipelineError().isEmpty());
    const size_t editedCopies = copiesIn(doc.program().methods()[0]);
    QCOMPARE(editedCopies, fileCopies - 1);
    QVERIFY(test::waitForGraph(window.graph()));
    // The window shows the edit as a diff: the removed copy is a ghost node,
    // which the report (the edited program, no diff) does not draw.
    int drawn = drawnNodes(window.graph());
    QVERIFY(window.graph()->isDiffView());
    for (const auto& node : window.graph()->currentLayout()->model.nodes)
      if (node.change == layout::Change::Removed) --drawn;
    QCOMPARE(drawn, 10);  // the demo's forward: 11 nodes, less the copy

    const QString out = test::tempDir() + "/edited.html";
    QVERIFY2(window.exportHtmlReportTo(out), qPrintable(window.lastError()));
    const QString html = readText(out);
    QVERIFY(html.startsWith("<!DOCTYPE html>"));
    QVERIFY(html.contains("with edits not saved to demo.pte"));
    const QString section = methodSection(html, 0);
    QCOMPARE(int(section.count(QRegularExpression("<g id=\"m0-[^\"]*\" class=\"node\">"))), drawn);
    QCOMPARE(size_t(section.count("<tr class=\"copy\"")), editedCopies);
    // Issue 34 item 22: the before and after the window shows, as
    // `report --compare`: the file as loaded is the "before".
    QVERIFY(html.contains("<section id=\"compare\"><h2>Compared with demo.pte as loaded</h2>"));
  }

  // Issue 34 item 22: a profile the Transfers panel shows is in the report,
  // as `report --etdump` / `--profile` put it there.
  void exportsTheMeasurementsShown() {
    const QString program = test::writeDemoProgram("measured.pte");
    QVERIFY(!program.isEmpty());
    ui::Document doc;
    ui::MainWindow window(&doc);
    QVERIFY(test::showProgram(window, program, "forward"));
    const QString before = test::tempDir() + "/unmeasured.html";
    QVERIFY2(window.exportHtmlReportTo(before), qPrintable(window.lastError()));
    QVERIFY(!readText(before).contains("Measured: "));
    ui::ProfileRequest request;
    request.method = doc.currentMethodIndex();
    request.runtime = exec::RuntimePreference::Host;
    request.iterations = 3;
    request.warmup = 1;
    QSignalSpy finished(window.profileSession(), &ui::ProfileSession::finished);
    QVERIFY(window.startProfile(request));
    QVERIFY(finished.wait(60000));
    const QString out = test::tempDir() + "/measured.html";
    QVERIFY2(window.exportHtmlReportTo(out), qPrintable(window.lastError()));
    const QString section = methodSection(readText(out), 0);
    QVERIFY2(section.contains("Measured: "), qPrintable(section.left(2000)));
    QVERIFY(!section.contains("not measured"));
  }

  void theMenuItemIsThereAndFailuresAreReported() {
    ui::Document doc;
    ui::MainWindow window(&doc);
    QVERIFY(window.openDemo());
    QStringList items;
    for (auto* menu : window.menuBar()->findChildren<QMenu*>())
      for (auto* action : menu->actions()) items << action->text();
    QVERIFY2(items.contains("&Export Report..."), qPrintable(items.join(", ")));
    QVERIFY(items.contains("Export Pass Report as &JSON..."));
    const QString nowhere = test::tempDir() + "/no-such-folder/report.html";
    QVERIFY(!window.exportHtmlReportTo(nowhere));
    QVERIFY2(window.lastError().contains(nowhere), qPrintable(window.lastError()));
    QVERIFY(!QFile::exists(nowhere));
  }
};

QTEST_MAIN(HtmlReportUiTest)
#include "test_html_report.moc"
