// A tenth look at issue 34's classes: what the nineteenth and twentieth
// walkthroughs (helpers who wrote none of the fixes, on programs of their
// own) found and the ninth round left open.
#include <QtTest>

#include <QLabel>
#include <QFile>
#include <QHeaderView>
#include <QCheckBox>
#include <QTabWidget>
#include <QProgressBar>
#include <QScrollArea>
#include <QScrollBar>
#include <QMap>
#include <QRegularExpression>
#include <QPushButton>
#include <QTabBar>
#include <QTableWidget>
#include <QTreeView>

#include <nlohmann/json.hpp>

#include "analysis/Diagnostics.h"
#include "etdump/EtdumpWriter.h"
#include "pte/Writer.h"
#include "support/RoundTripPrograms.h"
#include "support/TestSupport.h"
#include "support/UiTestSupport.h"
#include "ui/common/Format.h"
#include "ui/document/Document.h"
#include "ui/document/Selection.h"
#include "ui/graph/GraphView.h"
#include "ui/panels/AdvisorPanel.h"
#include "ui/profile/ProfileSession.h"
#include "ui/panels/MemoryPlanView.h"
#include "ui/panels/PropertiesPanel.h"
#include "ui/profile/LinkSelection.h"
#include "ui/profile/TimelineView.h"
#include "ui/profile/TransfersModel.h"
#include "exec/CopyIdentity.h"
#include "exec/Profiler.h"
#include "exec/DeviceRuntime.h"
#include "cost/LinkProfile.h"
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

// x -> relu -> TensorRTBackend on cuda:0 -> relu -> z with device planning
// off: the delegate stages its input and output itself (lint PTS019, info).
QString trtLegacyProgram() {
    const QString spec = test::tempDir() + "/trt-props.json";
    QFile file(spec);
    if (!file.open(QIODevice::WriteOnly)) return {};
    file.write(R"({"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["z"],
      "tensors": {"x": {"dtype": "float32", "sizes": [2, 8]}, "r": {"dtype": "float32", "sizes": [2, 8]},
                  "y": {"dtype": "float32", "sizes": [2, 8]}, "z": {"dtype": "float32", "sizes": [2, 8]}},
      "nodes": [{"op": "aten::relu.out", "inputs": ["x"], "outputs": ["r"]},
                {"delegate": "TensorRTBackend", "compile_specs": {"target_device": "cuda:0"},
                 "tensorrt": {"engine": "engine-bytes"}, "inputs": ["r"], "outputs": ["y"]},
                {"op": "aten::relu.out", "inputs": ["y"], "outputs": ["z"]}]}],
      "options": {"enable_non_cpu_memory_planning": false}})");
    file.close();
  return test::synthProgram("trt-props.pte", {spec});
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

  // Walkthrough 19, finding 13: at 1000x700 the Property column took the
  // width of its longest key (a TensorRT delegate's rows), and every value
  // was cut ("deleg…ckend", "Tensor…(TR02)"). The keys give way first, down
  // to 45% of the panel.
  void propertiesKeysGiveWayToValues() {
    const QString program = trtLegacyProgram();
    QVERIFY(!program.isEmpty());
    test::ShownWindow w({1000, 700});
    QVERIFY(w.open(program));
    ui::PropertiesPanel* properties = w.window.properties();
    w.window.selectInstruction(1);
    QTRY_VERIFY(properties->topLevelItemCount() > 3);
    properties->expandAll();
    QCoreApplication::processEvents();
    QCoreApplication::processEvents();
    const int room = properties->viewport()->width();
    const int keyColumn = properties->header()->sectionSize(0);
    // What the texts need (the keys with their indentation), measured here.
    int longestKey = 0, longestValue = 0;
    const QFontMetrics metrics = properties->fontMetrics();
    for (QTreeWidgetItemIterator it(properties); *it; ++it) {
      int depth = 1;
      for (auto* p = (*it)->parent(); p != nullptr; p = p->parent()) ++depth;
      longestKey = std::max(longestKey, metrics.horizontalAdvance((*it)->text(0)) + depth * properties->indentation());
      longestValue = std::max(longestValue, metrics.horizontalAdvance((*it)->text(1)));
    }
    QVERIFY2(longestKey + longestValue > room, "every row fits: the test shows nothing");
    // The keys give way down to 45%; the values have the rest.
    QVERIFY2(keyColumn <= std::max(room - longestValue, room * 9 / 20) + 12,
             qPrintable(QString("keys %1 px of %2 (longest key %3, longest value %4)").arg(keyColumn).arg(room).arg(longestKey).arg(longestValue)));
    // A key cut short shows whole in its tool tip.
    QTreeWidgetItemIterator it(properties);
    for (; *it; ++it) QCOMPARE((*it)->toolTip(0).isEmpty(), (*it)->text(0).isEmpty());
  }

  // Walkthrough 20, finding 8: a line break in a file's name split the
  // error message, the title and the status bar's file (the CLI prints it
  // as \x0A on one line).
  void aLineBreakInANameStaysOnOneLine() {
    const QString demo = test::synthProgram("nl-source.pte", {"--demo"});
    QVERIFY(!demo.isEmpty());
    const QString good = test::tempDir() + "/new\nline.pte";
    QFile::remove(good);
    QVERIFY(QFile::copy(demo, good));
    const QString broken = test::tempDir() + "/bro\nken.pte";
    {
      QFile in(demo), out(broken);
      QVERIFY(in.open(QIODevice::ReadOnly) && out.open(QIODevice::WriteOnly));
      out.write(in.read(100));
    }
    test::ShownWindow w({1600, 1000});
    QVERIFY(!w.window.openFile(broken));
    const QString error = w.window.lastError();
    QVERIFY2(!error.contains('\n') && error.contains("bro\\x0Aken.pte"), qPrintable(error));
    QVERIFY(w.open(good));
    QVERIFY2(!w.window.windowTitle().contains('\n') && w.window.windowTitle().contains("new\\x0Aline.pte"),
             qPrintable(w.window.windowTitle()));
    auto* file = w.window.findChild<QLabel*>("fileStatus");
    QVERIFY(file != nullptr);
    QVERIFY2(!file->text().contains('\n') && file->text().endsWith("new\\x0Aline.pte"), qPrintable(file->text()));
    QFile::remove(good);
    QFile::remove(broken);
  }

  // Walkthrough 20: "CUDA graph replay in forward", ticked on one file,
  // stayed on for the next file's method of the same name (the Advisor
  // then counted 1744 copies where the program has 872).
  void cudaGraphReplayIsTheShownFilesSetting() {
    const QString first = test::synthProgram("replay-a.pte", {"--demo"});
    const QString second = test::synthProgram("replay-b.pte", {"--scenario", "h2d_d2h"});
    QVERIFY(!first.isEmpty() && !second.isEmpty());
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(first));
    ui::LinkSelection* links = w.window.linkSelection();
    links->setCudaGraph("forward", true);
    QVERIFY(links->cudaGraph("forward"));
    auto* box = w.window.findChild<QCheckBox*>("cudaGraph");
    QVERIFY(box != nullptr);
    QTRY_VERIFY(box->isChecked());
    QVERIFY(w.open(second));
    QVERIFY2(!links->cudaGraph("forward"), "the replay setting of the last file's forward stayed on");
    QVERIFY(!box->isChecked());
  }

  // Walkthrough 20, finding 1: the diff's buffer notes paired buffers by
  // number. Moving delegate 0 from cuda:0 to cuda:1 empties cuda:0's
  // buffer and renumbers the rest, and the notes said cuda:1's and
  // cuda:2's buffers changed device and size and "buffer 4 (cuda:2)
  // dropped". Paired by device: only cuda:0's buffer is gone.
  void bufferNotesPairBuffersByDevice() {
    const QString spec = test::tempDir() + "/three-gpus.json";
    QFile file(spec);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["w"],
      "tensors": {"x": {"dtype": "float32", "sizes": [64, 64]}, "y": {"dtype": "float32", "sizes": [64, 64]},
                  "z": {"dtype": "float32", "sizes": [32, 64]}, "w": {"dtype": "float32", "sizes": [16, 64]}},
      "nodes": [{"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:0"}, "inputs": ["x"], "outputs": ["y"]},
                {"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:1"}, "inputs": ["y"], "outputs": ["z"]},
                {"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:2"}, "inputs": ["z"], "outputs": ["w"]}]}]})");
    file.close();
    const QString program = test::synthProgram("three-gpus.pte", {spec});
    QVERIFY(!program.isEmpty());
    // What the CLI's propagate plans: "buffers [16.0 KiB cpu:0, 32.0 KiB
    // cuda:0, ...] -> [...]", read into size per device before and after;
    // the notes the diff should give follow from them.
    const QString edited = test::tempDir() + "/three-gpus-edited.pte";
    auto run = test::runCli({"propagate", program, "-o", edited, "--set-device", "0=cuda:1"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QString out = QString::fromUtf8(run.out);
    const QRegularExpression line("buffers \\[([^\\]]*)\\] -> \\[([^\\]]*)\\]");
    const auto match = line.match(out);
    QVERIFY2(match.hasMatch(), qPrintable(out));
    auto perDevice = [](const QString& list) {
      QMap<QString, QString> sizes;  // one buffer per device here
      for (const QString& item : list.split(", ")) sizes[item.section(' ', 2)] = item.section(' ', 0, 1);
      return sizes;
    };
    const auto before = perDevice(match.captured(1)), after = perDevice(match.captured(2));
    QStringList expected;
    for (auto it = before.begin(); it != before.end(); ++it)
      if (!after.contains(it.key())) expected << QString("(%1) dropped (%2)").arg(it.key(), it.value());
      else if (after[it.key()] != it.value()) expected << QString("(%1): %2 → %3").arg(it.key(), it.value(), after[it.key()]);
    for (auto it = after.begin(); it != after.end(); ++it)
      if (!before.contains(it.key())) expected << QString("(%1) new: %2").arg(it.key(), it.value());
    QVERIFY2(expected.size() >= 2, qPrintable(match.captured(0)));

    ui::Document doc;
    QVERIFY(doc.open(program));
    const int m = doc.currentMethodIndex();
    doc.setDelegateTarget(m, 0, program::Device{program::DeviceType::Cuda, 1});
    doc.waitForPipeline();
    const auto changes = doc.methodChanges(m);
    QVERIFY(changes != nullptr);
    QStringList buffers;
    for (const auto& note : changes->notes)
      if (note.rfind("buffer ", 0) == 0) buffers << QString::fromStdString(note);
    QVERIFY2(buffers.size() == expected.size(), qPrintable(buffers.join(" | ") + " vs " + expected.join(" | ")));
    for (const QString& e : expected)
      QVERIFY2(std::any_of(buffers.begin(), buffers.end(), [&](const QString& b) { return b.contains(e); }),
               qPrintable(e + " not in " + buffers.join(" | ")));
  }

  // Walkthrough 20, finding 4: a runner's d2h copy whose time holds a
  // delegate's queued GPU work (CopyProfile::time_covers) read as a copy
  // of "0.00" GB/s with a measured/predicted ratio; the CLI marks it '*'
  // and gives no GB/s. So does the Transfers table and its totals now.
  void timesThatAreNotOnlyCopiesAreMarked() {
    const QString demo = test::synthProgram("marked-demo.pte", {"--demo"});
    ui::Document doc;
    QVERIFY(doc.open(demo));
    ui::TransfersModel model(&doc);
    auto link = std::make_shared<const cost::LinkProfile>(cost::builtinLinkProfiles().front());
    model.setLink(link, exec::HostMemoryKind::Pageable);
    auto selection = exec::selectRuntime(exec::RuntimePreference::Host);
    QVERIFY(selection.ok());
    exec::ProfileOptions options;
    options.iterations = 2;
    options.warmup = 0;
    auto profile = exec::profileMethod(doc.program(), *selection->runtime, options);
    QVERIFY(profile.ok());
    exec::identifyCopies(profile.value(), doc.program());
    // As the runner reports it: the host clock, the d2h copies after the
    // delegates waiting for their GPU work.
    profile->emulated = false;
    profile->runtime = "ExecuTorch runner executor_runner (host clock)";
    size_t marked = 0;
    for (auto& c : profile->copies)
      if (c.direction == program::CopyDirection::DeviceToHost) {
        c.time_covers = "the wait for delegate 1's queued GPU work";
        c.gbps = c.best_gbps = c.peak_share = 0;
        ++marked;
      }
    QVERIFY(marked > 0);
    model.setProfiles(std::make_shared<const exec::TransferProfile>(std::move(profile.value())), nullptr, "run 1");
    for (int r = 0; r < model.rowCount(); ++r) {
      const auto& row = model.rows()[size_t(r)];
      if (row.latest == nullptr) continue;
      const bool covers = !row.latest->time_covers.empty();
      const QString median = model.index(r, ui::TransfersModel::MedianTime).data().toString();
      QCOMPARE(median.endsWith('*'), covers);
      if (!covers) continue;
      QCOMPARE(model.index(r, ui::TransfersModel::Bandwidth).data().toString(), QString("—"));
      QCOMPARE(model.index(r, ui::TransfersModel::MeasuredOverPredicted).data().toString(), QString("—"));
      QVERIFY(model.index(r, ui::TransfersModel::MedianTime).data(Qt::ToolTipRole).toString().contains("queued GPU work"));
    }
    const QString totals = model.totalsText();
    QVERIFY2(totals.contains("d2h ") && totals.contains("* · no GB/s (times marked * are not only copies)"), qPrintable(totals));
    QVERIFY2(!totals.contains("0.00 GB/s"), qPrintable(totals));
  }

  // Walkthrough 20, finding 7: Save As dropped the profile without a word
  // (Transfers lost its measured columns, the Timeline asked to profile)
  // while Forget Profiles stayed enabled. The saved file is the program
  // shown: its profile stays, measured before the edits that were saved.
  void saveAsKeepsTheProfile() {
    const QString program = test::synthProgram("keep-profile.pte", {"--demo"});
    QVERIFY(!program.isEmpty());
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(program));
    const int m = w.doc.currentMethodIndex();
    QVERIFY(test::profileOnHost(w.window, m, 2, 0));
    QVERIFY(w.window.transfersModel()->hasMeasurements());
    auto options = w.doc.methodOptions(m);
    options.skip_d2h_for_method_outputs = !options.skip_d2h_for_method_outputs;
    w.doc.setMethodOptions(m, options);
    w.doc.waitForPipeline();
    const QString saved = test::tempDir() + "/keep-profile-saved.pte";
    QFile::remove(saved);
    QVERIFY(w.window.saveTo(saved));
    QCOMPARE(w.doc.path(), saved);
    QVERIFY2(w.window.transfersModel()->hasMeasurements(), "Save As dropped the profile");
    QVERIFY2(!w.window.transfersModel()->measuredBeforeWords().isEmpty(),
             "the kept profile does not say it was measured before the program changed");
    // Another file still drops it.
    QVERIFY(w.open(test::synthProgram("keep-profile-other.pte", {"--scenario", "h2d_d2h"})));
    QVERIFY(!w.window.transfersModel()->hasMeasurements());
  }

  // Walkthrough 20, finding 3: after an edit of one method, the exported
  // report headed every traced method's measurements "Measured (before
  // the edits)", also those of a method the edits left alone (the window
  // shows that one's as plain "Median").
  void reportSaysBeforeTheEditsOnlyForEditedMethods() {
    const auto program = test::twoMethodProgram("[1, 8]");
    const QString pte = test::tempDir() + "/edited-one.pte", etdp = test::tempDir() + "/edited-one.etdp";
    QVERIFY(pte::writeProgramFile(program, pte.toStdString()).ok());
    test::writeAll(etdp, etdump::serializeEtdump(test::twoMethodTrace(program)));
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(pte));
    QVERIFY(w.window.showMethod("encoder"));
    QVERIFY2(w.window.importEtdump(etdp), qPrintable(w.window.lastError()));
    const int m = w.doc.currentMethodIndex();
    auto options = w.doc.methodOptions(m);
    options.skip_h2d_for_method_inputs = !options.skip_h2d_for_method_inputs;
    options.skip_d2h_for_method_outputs = !options.skip_d2h_for_method_outputs;
    w.doc.setMethodOptions(m, options);
    w.doc.waitForPipeline();
    QVERIFY2(!w.window.transfersModel()->measuredBeforeWords().isEmpty(), "the edit changed no copy of encoder");
    const QString report = test::tempDir() + "/edited-one.html";
    QVERIFY2(w.window.exportHtmlReportTo(report), qPrintable(w.window.lastError()));
    QFile file(report);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString html = QString::fromUtf8(file.readAll());
    auto section = [&](const char* method) {
      // Sections are anchored m0, m1, ...; each is headed "Method <q>NAME</q>".
      for (int start = html.indexOf("<section class=\"method\""); start >= 0;
           start = html.indexOf("<section class=\"method\"", start + 1)) {
        // To the next method's section (a graph's SVG has sections of its own).
        const int next = html.indexOf("<section class=\"method\"", start + 1);
        const QString part = html.mid(start, next < 0 ? -1 : next - start);
        if (part.contains(QString("<h2>Method <q>%1</q></h2>").arg(method))) return part;
      }
      return QString();
    };
    const QString encoder = section("encoder"), decoder = section("decoder");
    QVERIFY(!encoder.isEmpty() && !decoder.isEmpty());
    QVERIFY2(encoder.contains("Measured before the edits: the counts"), "the edited method's measurements are not said to be before");
    QVERIFY2(decoder.contains("Measured transfers") && !decoder.contains("before the edits"),
             "the method the edits left alone is said to be measured before them");
  }

  // Walkthrough 20, finding 10: at 1000x700, after an emulated profile, the
  // Advisor's notes were cut mid-sentence with no scroll bar (the scale
  // that explains every '*' could not be read). The notes area lies inside
  // the panel's visible part, and a part of the notes out of its sight is
  // reached by its scroll bar.
  void advisorNotesCanBeReadToTheEnd() {
    test::ShownWindow w({1000, 700});
    QVERIFY(w.openDemo());
    QVERIFY(test::profileOnHost(w.window, w.doc.currentMethodIndex(), 3, 0));
    ui::AdvisorPanel* panel = w.window.advisor();
    w.window.showPanel("advisor");
    QSignalSpy done(panel, &ui::AdvisorPanel::searchFinished);
    if (panel->isSearching()) QVERIFY(done.wait(60000));
    QTRY_VERIFY_WITH_TIMEOUT(panel->table()->rowCount() > 0, 60000);
    auto* notes = panel->findChild<QLabel*>("advisorNotes");
    QVERIFY(notes != nullptr);
    QTRY_VERIFY(notes->text().contains("emulated"));
    QCoreApplication::processEvents();
    auto* area = qobject_cast<QScrollArea*>(notes->parentWidget()->parentWidget());
    QVERIFY(area != nullptr);
    // Where the panel is seen: its part inside the tab page holding it.
    const QRect seen = panel->visibleRegion().boundingRect();
    const QRect areaInPanel(area->mapTo(panel, QPoint(0, 0)), area->size());
    QVERIFY2(seen.contains(areaInPanel),
             qPrintable(QString("notes area %1,%2 %3x%4; the panel is seen in %5,%6 %7x%8")
                            .arg(areaInPanel.x()).arg(areaInPanel.y()).arg(areaInPanel.width()).arg(areaInPanel.height())
                            .arg(seen.x()).arg(seen.y()).arg(seen.width()).arg(seen.height())));
    const int needed = notes->heightForWidth(area->viewport()->width());
    QVERIFY2(notes->height() >= needed, qPrintable(QString("label %1 px for %2 px of text").arg(notes->height()).arg(needed)));
    if (needed > area->viewport()->height())
      QVERIFY2(area->verticalScrollBar()->isVisible() && area->verticalScrollBar()->maximum() > 0,
               "the notes are taller than their area and no scroll bar reaches the rest");
  }

  // Walkthrough 20, findings 12, 17 and 18: the Memory plan's "peak" was
  // the most bytes live while the report's "Highest byte used" is another
  // number; a 0-byte buffer was a blank band as high as the panel; Home
  // with nothing selected went to the last tensor, and Esc kept the
  // selection.
  void memoryPlanNamesItsNumbersAndKeys() {
    // x (16 B) and r (16 B) in the CPU buffer, never live together: 16 B
    // live at most, 32 B the highest byte if the planner puts them apart.
    const QString spec = test::tempDir() + "/plan-numbers.json";
    QFile file(spec);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["z"],
      "tensors": {"x": {"dtype": "float32", "sizes": [4]}, "r": {"dtype": "float32", "sizes": [4]},
                  "s": {"dtype": "float32", "sizes": [4]}, "z": {"dtype": "float32", "sizes": [4]}},
      "nodes": [{"op": "aten::relu.out", "inputs": ["x"], "outputs": ["r"]},
                {"op": "aten::relu.out", "inputs": ["r"], "outputs": ["s"]},
                {"op": "aten::relu.out", "inputs": ["s"], "outputs": ["z"]}]}]})");
    file.close();
    const QString program = test::synthProgram("plan-numbers.pte", {spec});
    QVERIFY(!program.isEmpty());
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(program));
    auto* plan = w.window.findChild<ui::MemoryPlanView*>("memoryPlan");
    QVERIFY(plan != nullptr && !plan->bands().empty() && !plan->blocks().empty());
    // The numbers, computed here from the blocks the plan draws.
    const auto& band = plan->bands().front();
    quint64 highest = 0;
    for (const auto& b : plan->blocks())
      if (b.buffer == band.buffer) highest = std::max<quint64>(highest, quint64(b.offset) + b.bytes);
    const QString said = plan->accessibleDescription();
    QVERIFY2(said.contains(QString(", at most %1 live, highest byte %2").arg(QString::fromStdString(program::bytesText(int64_t(band.peak))),
                                                                             QString::fromStdString(program::bytesText(int64_t(highest))))),
             qPrintable(said));
    QVERIFY2(!said.contains("peak"), qPrintable(said));
    // Home and End: the first and last tensor with nothing selected; Esc clears.
    plan->setFocus();
    w.window.selection()->clear();
    QTest::keyClick(plan, Qt::Key_Home);
    QCOMPARE(w.window.selection()->value(), std::optional<int32_t>(plan->blocks().front().value));
    QTest::keyClick(plan, Qt::Key_End);
    QCOMPARE(w.window.selection()->value(), std::optional<int32_t>(plan->blocks().back().value));
    QTest::keyClick(plan, Qt::Key_Escape);
    QVERIFY(!w.window.selection()->value().has_value());
    w.window.selection()->clear();
    QTest::keyClick(plan, Qt::Key_Home);
    QCOMPARE(w.window.selection()->value(), std::optional<int32_t>(plan->blocks().front().value));

    // Every tensor the caller's (no planned input, output or intermediate):
    // the buffer is 0 B and drawn as no band; the panel says so.
    const QString io = test::tempDir() + "/plan-empty.json";
    QFile ioFile(io);
    QVERIFY(ioFile.open(QIODevice::WriteOnly));
    ioFile.write(R"({"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["z"],
      "tensors": {"x": {"dtype": "float32", "sizes": [4]}, "z": {"dtype": "float32", "sizes": [4]}},
      "nodes": [{"op": "aten::relu.out", "inputs": ["x"], "outputs": ["z"]}]}],
      "options": {"alloc_graph_input": false, "alloc_graph_output": false}})");
    ioFile.close();
    const QString empty = test::synthProgram("plan-empty.pte", {io});
    QVERIFY(!empty.isEmpty());
    const auto run = test::runCli({"info", empty});
    QVERIFY2(QString::fromUtf8(run.out).contains("non_const_buffer_sizes [0, 0]"), run.out.constData());
    QVERIFY(w.open(empty));
    QVERIFY(plan->bands().empty());
    QVERIFY2(plan->emptyText().contains("empty (0 B"), qPrintable(plan->emptyText()));
  }

  // Walkthrough 21, finding 6: the status bar's profile progress bar had no
  // accessible name. Every progress bar of the window is named.
  void progressBarsAreNamed() {
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.openDemo());
    const auto bars = w.window.findChildren<QProgressBar*>();
    QVERIFY(bars.size() >= 2);
    for (auto* bar : bars) QVERIFY2(!bar->accessibleName().isEmpty(), qPrintable(bar->objectName()));
    auto* profile = w.window.findChild<QProgressBar*>("profileProgress");
    QVERIFY(profile != nullptr);
    QCOMPARE(profile->accessibleName(), QString("Profile progress"));
    // The empty Timeline names the menu item that fills it (it said "Run
    // Profile…", an item no menu has).
    QVERIFY2(w.window.timeline()->emptyText().startsWith("Profile > Profile Transfers… (F5)"),
             qPrintable(w.window.timeline()->emptyText()));
  }

  // Walkthrough 21: the Diagnostics tab read "(0 errors, 1 warning)" over
  // four rows; its three info findings were not counted.
  void diagnosticsTabCountsEveryRow() {
    const QString program = trtLegacyProgram();
    QVERIFY(!program.isEmpty());
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(program));
    auto* tabs = w.window.findChild<QTabWidget*>("bottomTabs");
    QVERIFY(tabs != nullptr);
    int at = -1;
    for (int i = 0; i < tabs->count(); ++i)
      if (tabs->tabText(i).startsWith("Diagnostics")) at = i;
    QVERIFY(at >= 0);
    const auto findings = analysis::lintProgram(w.doc.program());
    // Lint's own counts of the program shown, method by method as the tab
    // shows the current method's: compare with the method's findings only.
    const std::string method = w.doc.program().methods()[size_t(w.doc.currentMethodIndex())].displayName();
    int errors = 0, warnings = 0, infos = 0;
    for (const auto& d : findings)
      if (d.method == method)
        (d.severity == analysis::Severity::Error ? errors : d.severity == analysis::Severity::Warning ? warnings : infos) += 1;
    QVERIFY2(infos > 0, "the program has no info finding: the test shows nothing");
    const QString text = tabs->tabText(at);
    QVERIFY2(text.contains(QString(", %1 info finding%2)").arg(infos).arg(infos == 1 ? "" : "s")), qPrintable(text));
  }

};

QTEST_MAIN(WalkthroughTenTest)
#include "test_walkthrough_ten.moc"
