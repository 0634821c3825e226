// A tenth look at issue 34's classes: what the nineteenth and twentieth
// walkthroughs (helpers who wrote none of the fixes, on programs of their
// own) found and the ninth round left open.
#include <QtTest>

#include <QLabel>
#include <QMap>
#include <QPushButton>
#include <QTabBar>
#include <QTableWidget>
#include <QTreeView>

#include <nlohmann/json.hpp>

#include "support/TestSupport.h"
#include "support/UiTestSupport.h"
#include "ui/graph/GraphView.h"
#include "ui/panels/AdvisorPanel.h"
#include "ui/window/MainWindow.h"

using namespace ptescope;

namespace {

// How many kernel calls of each operator the program's first method has,
// read from `ptescope-cli dump` (the file as flatc would print it), not
// from the graph under test.
QMap<QString, int> operatorCounts(const QString& program) {
  QMap<QString, int> counts;
  const auto run = test::runCli({"dump", program});
  if (run.exitCode != 0) return counts;
  const auto json = nlohmann::json::parse(run.out.begin(), run.out.end());
  const auto& plan = json["execution_plan"][0];
  for (const auto& chain : plan["chains"])
    for (const auto& instruction : chain["instructions"]) {
      if (instruction["instr_args_type"] != "KernelCall") continue;
      // flatc leaves out a field that holds its default (op_index 0).
      const size_t op = instruction["instr_args"].value("op_index", 0);
      counts[QString::fromStdString(plan["operators"][op]["name"].get<std::string>())] += 1;
    }
  return counts;
}

}  // namespace

class WalkthroughTenTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { qputenv("PTESCOPE_NO_DIALOGS", "1"); }

  // Walkthrough 19, finding 3: on a program whose layers are closed groups,
  // Find "mul" said "1 of 64" for 202 multiplications: each closed group is
  // one match for all it hides. The status names the places and the
  // instructions ("1 of 64 places · 202 instructions").
  void findCountsTheInstructionsClosedGroupsHide() {
    const QString program = test::synthProgram("find-llm.pte", {"--shape", "llm", "--instructions", "1500"});
    QVERIFY(!program.isEmpty());
    const auto counts = operatorCounts(program);
    QVERIFY2(counts.value("aten::mul") > 100, "the program has too few multiplications to need groups");
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(program));
    ui::GraphView* graph = w.window.graph();
    QVERIFY(graph->hasGroups());
    auto* status = w.window.findChild<QLabel*>("findStatus");
    QVERIFY(status != nullptr);
    for (const char* op : {"mul", "rsqrt"}) {
      const int instructions = counts.value(QString("aten::") + op);
      const int places = graph->find(op);
      QVERIFY2(places > 0 && places < instructions, qPrintable(QString("%1: %2 places").arg(op).arg(places)));
      const QString expected = QString("1 of %1 places · %2 instructions").arg(places).arg(instructions);
      QCOMPARE(status->text(), expected);
      QVERIFY2(status->toolTip().contains("Open All Groups"), qPrintable(status->toolTip()));
    }
    // Every group open: each match is an instruction, and the status says so.
    graph->expandAll();
    QVERIFY(test::waitForGraph(graph));
    const int all = graph->find("rsqrt");
    QCOMPARE(all, counts.value("aten::rsqrt"));
    QCOMPARE(status->text(), QString("1 of %1").arg(all));
    QVERIFY(status->toolTip().isEmpty());
  }

  // Walkthrough 19, finding 12: Tab reached the Properties / Pass options tab
  // bar after the Details dock's table, far from the panels it switches,
  // and the Advisor's Apply only with Shift+Tab from the candidates.
  void tabVisitsPanelsInTheOrderTheyShow() {
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.openDemo());
    w.window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w.window));
    auto* tree = w.window.findChild<QTreeView*>("programTree");
    QVERIFY(tree != nullptr);
    tree->setFocus(Qt::TabFocusReason);
    QTRY_COMPARE(QApplication::focusWidget(), tree);
    QTest::keyClick(tree, Qt::Key_Tab);
    auto* bar = qobject_cast<QTabBar*>(QApplication::focusWidget());
    QVERIFY2(bar != nullptr, QApplication::focusWidget() ? QApplication::focusWidget()->metaObject()->className() : "nothing");
    QStringList tabs;
    for (int i = 0; i < bar->count(); ++i) tabs << bar->tabText(i).remove('&');
    QVERIFY2(tabs.contains("Properties") && tabs.contains("Pass options"), qPrintable(tabs.join(", ")));
    QTest::keyClick(bar, Qt::Key_Tab);
    QCOMPARE(QApplication::focusWidget()->objectName(), QString("properties"));

    // The Advisor: from the chosen candidate, Tab goes to Apply.
    ui::AdvisorPanel* panel = w.window.advisor();
    w.window.showPanel("advisor");
    if (panel->isSearching() || !panel->refresh()) {
      QSignalSpy done(panel, &ui::AdvisorPanel::searchFinished);
      if (panel->isSearching()) QVERIFY(done.wait(60000));
    }
    QTableWidget* table = panel->table();
    QTRY_VERIFY_WITH_TIMEOUT(table->rowCount() > 0, 60000);
    table->setFocus(Qt::MouseFocusReason);
    table->selectRow(0);
    auto* apply = panel->findChildren<QPushButton*>().value(0);
    for (auto* button : panel->findChildren<QPushButton*>())
      if (button->text().remove('&') == "Apply") apply = button;
    QTRY_VERIFY(apply->isEnabled());
    QTRY_COMPARE(QApplication::focusWidget(), table);
    QTest::keyClick(table, Qt::Key_Tab);
    QCOMPARE(QApplication::focusWidget(), apply);
  }
};

QTEST_MAIN(WalkthroughTenTest)
#include "test_walkthrough_ten.moc"
