// A sixth look at issue 34's classes, at what the fifth walkthrough left:
// Find keeps finding what it found once the user opens it, a removed copy's
// edges in the diff view say they are not in the program (they carried a
// value with its devices from before the edits, read as the value now), and
// the texts that still printed raw byte counts or micro-seconds.
#include <QtTest>

#include <QApplication>
#include <QFontMetrics>

#include <QDir>
#include <QFile>
#include <QLabel>
#include <QStatusBar>
#include <QTableWidget>
#include <QLineEdit>
#include <QTreeWidget>
#include <QTreeWidgetItemIterator>

#include "support/TestSupport.h"
#include "support/UiTestSupport.h"
#include "ui/common/DistinctNames.h"
#include "ui/common/ElidedLabel.h"
#include "ui/document/Document.h"
#include "ui/profile/TimelineView.h"
#include "ui/graph/GraphLegend.h"
#include "ui/graph/GraphView.h"
#include "ui/panels/MemoryPlanView.h"
#include "ui/panels/PropertiesPanel.h"
#include "ui/window/MainWindow.h"

using namespace ptescope;

namespace {

// The Properties row named `key` at the top level; empty when none.
QString propertiesRow(ui::MainWindow& window, const QString& key) {
  auto* tree = window.properties();
  for (int i = 0; i < tree->topLevelItemCount(); ++i)
    if (tree->topLevelItem(i)->text(0) == key) return tree->topLevelItem(i)->text(1);
  return {};
}


}  // namespace

class WalkthroughSixTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { qputenv("PTESCOPE_NO_DIALOGS", "1"); }

  // Find "layer 3" selects the group; opening it showed "Not found" in red
  // although the user was looking at what was found. The instructions of an
  // open group match its title, and Properties names their group.
  void anOpenedGroupIsStillFound() {
    const QString path = test::synthProgram("llm-find-open.pte", {"--shape", "llm", "--layers", "8"});
    QVERIFY(!path.isEmpty());
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(path));
    auto* field = w.window.findChild<QLineEdit*>("findField");
    auto* status = w.window.findChild<QLabel*>("findStatus");
    QVERIFY(field && status);
    ui::GraphView& view = *w.window.graph();
    // A closed layer (the first picture opens some).
    QString layer;
    for (const auto& n : view.currentLayout()->model.nodes)
      if (n.kind == layout::NodeKind::Group && QString::fromStdString(n.title).startsWith("layer ") && layer.isEmpty())
        layer = QString::fromStdString(n.title);
    QVERIFY(!layer.isEmpty());
    field->setText(layer);
    QVERIFY2(view.selectionText().startsWith(layer), qPrintable(view.selectionText()));
    const auto& model = view.currentLayout()->model;
    std::optional<size_t> node = view.selectedNode();
    QVERIFY(node && model.nodes[*node].kind == layout::NodeKind::Group);
    const size_t first = model.nodes[*node].order;
    QSignalSpy laidOut(&view, &ui::GraphView::layoutFinished);
    view.expandGroup(model.nodes[*node].group);
    QVERIFY(laidOut.wait(60000));
    QTRY_COMPARE(view.selectedInstruction(), std::optional<size_t>(first));
    QVERIFY2(status->text() != "Not found", qPrintable(status->text()));
    QVERIFY2(status->text().contains(" of "), qPrintable(status->text()));
    QCOMPARE(propertiesRow(w.window, "Group"), layer);
    QVERIFY2(view.selectionText().endsWith(" · in " + layer), qPrintable(view.selectionText()));
    // Stepping on stays inside the opened layer first (its instructions
    // match the query exactly), then the other layers' near misses.
    const auto& opened = view.currentLayout()->model;
    QVERIFY(view.findNext());
    const auto next = view.selectedInstruction();
    QVERIFY(next.has_value());
    QVERIFY(opened.nodeOfInstruction(*next).has_value());
    QCOMPARE(propertiesRow(w.window, "Group"), layer);
    // An instruction in no group has no Group row, and says no group.
    field->setText("#0");
    QCOMPARE(view.selectedInstruction(), std::optional<size_t>(0));
    QVERIFY(propertiesRow(w.window, "Group").isEmpty());
    QVERIFY2(!view.selectionText().contains(" · in "), qPrintable(view.selectionText()));
  }

  // After an edit that removes a copy, the diff view draws its ghost with
  // edges that carry the value it copied. Selecting such an edge said
  // "%3 ... on cpu:0" (the removed copy's destination, before the edits)
  // while %3 is on cuda:0 now, and selecting %3 picked that edge first.
  void aRemovedCopysEdgesSayTheyAreNotInTheProgram() {
    const QString demo = test::writeDemoProgram("ghost-edges.pte");
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(demo));
    QVERIFY(w.window.showMethod("prefill"));
    const int m = w.doc.currentMethodIndex();
    auto options = w.doc.methodOptions(m);
    options.skip_d2h_for_method_outputs = true;
    w.doc.setMethodOptions(m, options);
    w.doc.waitForPipeline();
    w.window.setGraphMode(ui::MainWindow::GraphMode::Diff);
    QVERIFY(test::waitForGraph(w.window.graph()));
    ui::GraphView& view = *w.window.graph();
    const auto& model = view.currentLayout()->model;
    int32_t copied = -1;
    for (const auto& e : model.edges)
      if (e.change == layout::Change::Removed && e.value >= 0) copied = e.value;
    QVERIFY(copied >= 0);
    const auto& method = w.doc.program().methods()[size_t(m)];
    const auto* tensor = program::items(method.values)[size_t(copied)].tensor();
    QVERIFY(tensor != nullptr);
    const QString device = QString::fromStdString(tensor->device().str());
    const int matches = view.find("%" + QString::number(copied));
    QVERIFY(matches >= 2);
    int ghosts = 0;
    for (int k = 0; k < matches; ++k) {
      if (k > 0) QVERIFY(view.findNext());
      const QString text = view.selectionText();
      const auto edge = view.selectedEdge();
      const bool ghost = edge && model.edges[*edge].change == layout::Change::Removed;
      if (k == 0) QVERIFY2(!ghost, qPrintable(text));
      if (ghost) {
        ++ghosts;
        QVERIFY2(text.startsWith("removed: ") && text.contains("not in the edited program"), qPrintable(text));
      } else if (edge) {
        QVERIFY2(text.endsWith(" on " + device) || text.contains(" on " + device + " "), qPrintable(text));
      }
    }
    QVERIFY(ghosts > 0);
    // Selecting the value (from a table, say) picks the program's own edge
    // or node, not the ghost's.
    view.selectValue(copied);
    const auto edge = view.selectedEdge();
    QVERIFY(!edge || model.edges[*edge].change != layout::Change::Removed);
  }

  // Save As into another folder took the program and left its .ptd (the
  // delegates' weights) behind, without a word: reopened there, the weights
  // were "not found". The .ptd goes with it now, and the status line says so;
  // a .ptd of that name with other data there is left alone, and named.
  void saveAsTakesTheProgramsDataAlong() {
    const QString from = test::tempDir() + "/save-as-from";
    const QString to = test::tempDir() + "/save-as-to";
    QDir(from).removeRecursively();
    QDir(to).removeRecursively();
    QVERIFY(QDir().mkpath(from) && QDir().mkpath(to));
    QVERIFY(test::runCli({"synth", "--demo", "-o", from + "/demo.pte"}).exitCode == 0);
    QVERIFY(QFile::exists(from + "/aoti_cuda_blob.ptd"));
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(from + "/demo.pte"));
    QVERIFY(w.window.saveTo(to + "/x.pte"));
    QVERIFY(QFile::exists(to + "/aoti_cuda_blob.ptd"));
    QVERIFY2(w.window.statusMessage().contains("copied aoti_cuda_blob.ptd beside x.pte"),
             qPrintable(w.window.statusMessage()));
    // Read back there: every delegate finds its weights.
    QVERIFY(w.doc.loaded().warnings.empty());
    auto lint = test::runCli({"lint", to + "/x.pte"});
    QCOMPARE(lint.exitCode, 0);

    // Another folder whose aoti_cuda_blob.ptd holds other data: kept, named.
    const QString other = test::tempDir() + "/save-as-other";
    QDir(other).removeRecursively();
    QVERIFY(QDir().mkpath(other));
    QVERIFY(test::runCli({"synth", "--large", "2", "-o", other + "/large.pte"}).exitCode == 0);
    QFile ptd(other + "/aoti_cuda_blob.ptd");
    QVERIFY(ptd.open(QIODevice::ReadOnly));
    const QByteArray before = ptd.readAll();
    ptd.close();
    QVERIFY(w.window.saveTo(other + "/y.pte"));
    QVERIFY(ptd.open(QIODevice::ReadOnly));
    QCOMPARE(ptd.readAll(), before);
    QVERIFY2(w.window.statusMessage().contains("holds other data"),
             qPrintable(w.window.statusMessage()));
  }

  // The status line after a profile ("Profiled forward · host emulation ...")
  // stayed for 12 s over the next file's name and counts.
  void anotherFilesStatusMessageLeaves() {
    test::ShownWindow w({1000, 700});
    QVERIFY(w.openDemo());
    QVERIFY(test::profileOnHost(w.window, w.doc.currentMethodIndex(), 2, 0));
    QTRY_VERIFY2(w.window.statusMessage().startsWith("Profiled"), qPrintable(w.window.statusMessage()));
    QVERIFY(w.open(test::synthProgram("status-next.pte", {"--shape", "pipeline", "--layers", "2"})));
    QVERIFY2(w.window.statusMessage().isEmpty(), qPrintable(w.window.statusMessage()));
  }

  // Profiling a CPU-only program said "host emulation" (Run Once said "host
  // CPU (the method uses no device memory)"): nothing was emulated.
  void aCpuOnlyProfileIsNotEmulated() {
    const QString path = test::cpuOnlyProgram("cpu-only-profile");
    QVERIFY(!path.isEmpty());
    test::ShownWindow w({1000, 700});
    QVERIFY(w.open(path));
    QVERIFY(test::profileOnHost(w.window, 0, 2, 0));
    QTRY_VERIFY2(w.window.statusMessage().startsWith("Profiled"), qPrintable(w.window.statusMessage()));
    QVERIFY2(!w.window.statusMessage().contains("emulat"), qPrintable(w.window.statusMessage()));
    QVERIFY2(w.window.statusMessage().contains("host CPU"), qPrintable(w.window.statusMessage()));
    auto cli = test::runCli({"profile", path, "--runtime", "host", "--iterations", "2"});
    QCOMPARE(cli.exitCode, 0);
    QVERIFY2(!cli.out.contains("EMULATED") && cli.out.contains("host CPU (the method uses no device memory)"),
             cli.out.constData());
  }

  // What the sixth walkthrough read as false or cut: the Timeline of a
  // profile taken before the edits, its legend listing copies a CPU method
  // never makes, the Summary's "0.02 µs", the diff banner cut before its
  // saving, the "as loaded" view whose panels are the edited program's, the
  // pass report written without a word, Escape keeping the Find field.
  void timelineSummaryAndBannersSayWhatTheyShow() {
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.openDemo());
    const int m = w.doc.currentMethodIndex();
    QVERIFY(test::profileOnHost(w.window, m, 2, 0));
    ui::TimelineView* timeline = w.window.timeline();
    QVERIFY(!timeline->infoText().contains("before the edits"));
    // The Summary's times in their unit.
    auto* summary = w.window.findChild<QTableWidget*>("transferSummary");
    QVERIFY(summary != nullptr && summary->rowCount() > 0);
    QCOMPARE(summary->horizontalHeaderItem(5)->text(), QString("Median"));
    const QString median = summary->item(0, 5)->text();
    QVERIFY2(median.endsWith(" ns") || median.endsWith(" µs") || median.endsWith(" ms"), qPrintable(median));

    auto options = w.doc.methodOptions(m);
    options.skip_d2h_for_method_outputs = true;
    w.doc.setMethodOptions(m, options);
    w.doc.waitForPipeline();
    // First (walkthrough 20: at the line's end it was cut at 1000 px).
    QTRY_VERIFY2(timeline->infoText().startsWith("Measured before the edits (the program then): iteration "),
                 qPrintable(timeline->infoText()));
    w.doc.setDelegateTarget(m, 0, program::Device{program::DeviceType::Cuda, 1});
    w.doc.waitForPipeline();
    w.window.setGraphMode(ui::MainWindow::GraphMode::Diff);
    QVERIFY(test::waitForGraph(w.window.graph()));
    auto* banner = w.window.findChild<ui::ElidedLabel*>("graphBanner");
    QVERIFY(banner != nullptr);
    QTRY_VERIFY(banner->isVisible());
    QVERIFY2(!banner->isElided(), qPrintable(banner->shownText() + " | " + banner->text()));
    // The "as loaded" view says the panels are the edited program's.
    w.window.setGraphMode(ui::MainWindow::GraphMode::AsLoaded);
    QVERIFY(test::waitForGraph(w.window.graph()));
    QTRY_VERIFY2(banner->text().contains("the panels and the status line show the program with your edits"),
                 qPrintable(banner->text()));
    w.window.setGraphMode(ui::MainWindow::GraphMode::Current);
    QVERIFY(test::waitForGraph(w.window.graph()));
    QVERIFY(!banner->text().contains("as loaded (read-only)"));

    // The pass report says where it went.
    const QString report = test::tempDir() + "/pass-report.json";
    QVERIFY(w.window.exportReportTo(report));
    QCOMPARE(w.window.statusMessage(), "Wrote the pass report to " + report);

    // Escape in Find hands the keys to the graph.
    auto* field = w.window.findChild<QLineEdit*>("findField");
    field->setFocus();
    field->setText("#2");
    QTest::keyClick(field, Qt::Key_Escape);
    QVERIFY(w.window.graph()->canvas()->hasFocus());
    QCOMPARE(field->text(), QString("#2"));
  }

  // A CPU method's timeline lists only what it draws.
  void aTimelineLegendListsWhatIsDrawn() {
    test::ShownWindow w({1000, 700});
    QVERIFY(w.open(test::cpuOnlyProgram("cpu-legend")));
    QVERIFY(test::profileOnHost(w.window, 0, 2, 0));
    QTRY_VERIFY(!w.window.timeline()->legendTexts().isEmpty());
    const QStringList legend = w.window.timeline()->legendTexts();
    QVERIFY2(!legend.join(",").contains("copy"), qPrintable(legend.join(", ")));
    QVERIFY2(legend.contains("CPU kernel"), qPrintable(legend.join(", ")));
  }

  // A delegate whose weights are missing: Properties' Problem row starts
  // with what fails (it was cut after "named data '1c59ef3…").
  void aMissingBlobSaysWhatFailsFirst() {
    const QString dir = test::tempDir() + "/problem-row";
    QDir(dir).removeRecursively();
    QVERIFY(QDir().mkpath(dir));
    QVERIFY(test::runCli({"synth", "--demo", "-o", dir + "/demo.pte"}).exitCode == 0);
    QVERIFY(QFile::remove(dir + "/aoti_cuda_blob.ptd"));
    test::ShownWindow w({1000, 700});
    QVERIFY(w.open(dir + "/demo.pte"));
    w.window.findChild<QLineEdit*>("findField")->setText("#1");
    QCOMPARE(w.window.graph()->selectedInstruction(), std::optional<size_t>(1));
    QTreeWidgetItem* problem = nullptr;
    QTreeWidget* tree = w.window.properties();
    for (QTreeWidgetItemIterator it(tree); *it; ++it)
      if ((*it)->text(0) == "Problem") problem = *it;
    QVERIFY(problem != nullptr);
    QVERIFY2(problem->text(1).startsWith("init fails: weights_blob not found"), qPrintable(problem->text(1)));
    QVERIFY2(problem->toolTip(1).contains("neither in the program nor in an attached .ptd"), qPrintable(problem->toolTip(1)));
  }

  // Named data keys that differ only in their middle read alike in the
  // Program tree at 1000 px ("forwa…_blob" eight times): each keeps the
  // part that tells it from the others.
  void namesThatDifferInTheirMiddleReadApart() {
    std::vector<QString> keys;
    for (int layer = 0; layer < 12; ++layer) {
      keys.push_back(QString("forward_layer%1_mlp_so_blob").arg(layer));
      keys.push_back(QString("forward_layer%1_mlp_weights_blob").arg(layer));
    }
    keys.push_back("forward_attention_so_blob");
    const auto parts = ui::distinguishingParts(keys);
    QCOMPARE(parts.size(), keys.size());
    const QFontMetrics metrics(QApplication::font());
    const int width = metrics.horizontalAdvance("forward_la…_blob");
    std::map<QString, QString> seen;
    for (const auto& key : keys) {
      const QString shown = ui::elideAround(key, parts.at(key), metrics, width);
      QVERIFY2(metrics.horizontalAdvance(shown) <= width, qPrintable(shown));
      const auto [at, added] = seen.emplace(shown, key);
      QVERIFY2(added, qPrintable(key + " and " + at->second + " both read " + shown));
    }
    // The layer number is what they differ by: it is in sight.
    QVERIFY2(seen.count(ui::elideAround("forward_layer7_mlp_so_blob", parts.at("forward_layer7_mlp_so_blob"), metrics, width)) &&
                 ui::elideAround("forward_layer7_mlp_so_blob", parts.at("forward_layer7_mlp_so_blob"), metrics, width).contains("7"),
             "layer 7's key does not show its 7");
    // A name that fits is whole.
    QCOMPARE(ui::elideAround("x", {0, 1}, metrics, width), QString("x"));
  }

  // The Memory plan is a Tab stop and the arrow keys step from tensor to
  // tensor (it could not be used without a mouse); Properties follows.
  void theMemoryPlanTakesTheKeyboard() {
    test::ShownWindow w({1000, 700});
    QVERIFY(w.openDemo());
    auto* plan = w.window.findChild<ui::MemoryPlanView*>("memoryPlan");
    QVERIFY(plan != nullptr);
    QVERIFY(plan->focusPolicy() & Qt::TabFocus);
    QVERIFY(plan->blocks().size() >= 2);
    QSignalSpy clicked(plan, &ui::MemoryPlanView::valueClicked);
    QTest::keyClick(plan, Qt::Key_Right);
    QCOMPARE(plan->selectedValue(), plan->blocks().front().value);
    QTest::keyClick(plan, Qt::Key_Right);
    QCOMPARE(plan->selectedValue(), plan->blocks()[1].value);
    QTest::keyClick(plan, Qt::Key_End);
    QCOMPARE(plan->selectedValue(), plan->blocks().back().value);
    QCOMPARE(clicked.count(), 3);
  }

  // A write into a folder that is not there names the path once (it said
  // "r.html: r.html: cannot create a file in ...") and says the folder is
  // missing.
  void aFailedWriteNamesThePathOnce() {
    const QString demo = test::writeDemoProgram("write-once.pte");
    const QString target = test::tempDir() + "/no-such-folder/r.html";
    auto r = test::runCli({"report", demo, "-o", target});
    QVERIFY(r.exitCode != 0);
    QCOMPARE(r.err.count(target.toUtf8()), 1);
    QVERIFY2(r.err.contains("the folder " + (test::tempDir() + "/no-such-folder").toUtf8() + " does not exist"), r.err.constData());
  }

  // Colours by copy time with no profile of the method shown (the latest
  // measured 'forward', 'prefill' is shown): the legend says so instead of
  // a placement picture under "Copy time".
  void copyTimeColoursWithoutAProfileSaySo() {
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.openDemo());
    QVERIFY(w.window.showMethod("forward"));
    QVERIFY(test::profileOnHost(w.window, w.doc.currentMethodIndex(), 2, 0));
    w.window.setOverlayMetric(ui::GraphView::OverlayMetric::Time);
    auto* legend = w.window.graph()->findChild<ui::GraphLegend*>();
    QVERIFY(legend != nullptr);
    QTRY_VERIFY(!legend->entries().empty() && legend->entries().front().kind == ui::LegendEntry::Scale);
    QVERIFY(w.window.showMethod("prefill"));
    QVERIFY(test::waitForGraph(w.window.graph()));
    QTRY_VERIFY(!legend->entries().empty() && legend->entries().front().kind == ui::LegendEntry::Note);
    QVERIFY2(legend->entries().front().text.startsWith("no copy times for this method"),
             qPrintable(legend->entries().front().text));
  }

  // A layout child that hangs (forked while a Pango thread held fontconfig's
  // lock: render hung under a loaded test run) is replaced by a layout in
  // the process after it has used no CPU for the stall limit.
  void aStuckLayoutChildIsReplaced() {
    const QString demo = test::writeDemoProgram("stuck-child.pte");
    const QString svg = test::tempDir() + "/stuck-child.svg";
    qputenv("PTESCOPE_TEST_STUCK_LAYOUT_CHILD", "1");
    qputenv("PTESCOPE_LAYOUT_STALL_SECONDS", "1");
    const auto r = test::runCli({"render", demo, "-o", svg});
    qunsetenv("PTESCOPE_TEST_STUCK_LAYOUT_CHILD");
    qunsetenv("PTESCOPE_LAYOUT_STALL_SECONDS");
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(file.readAll().count("class=\"node\"") > 0);
  }
};

QTEST_MAIN(WalkthroughSixTest)
#include "test_walkthrough_six.moc"
