// A tenth look at issue 34's classes: what the nineteenth and twentieth
// walkthroughs (helpers who wrote none of the fixes, on programs of their
// own) found and the ninth round left open.
#include <QtTest>

#include <QLabel>
#include <QMap>

#include <nlohmann/json.hpp>

#include "support/TestSupport.h"
#include "support/UiTestSupport.h"
#include "ui/graph/GraphView.h"
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
};

QTEST_MAIN(WalkthroughTenTest)
#include "test_walkthrough_ten.moc"
