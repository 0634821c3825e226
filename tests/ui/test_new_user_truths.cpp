// Issue 34, items 1-13, in the window's own widgets (offscreen): what a new
// user meets must never be false. Every control is named by what it sets;
// after Save As the window is the saved file (watch, diff, options, status
// bar); Run Once shows why outputs were not computed and never keeps an
// earlier run's outputs after a failure; emulated copy times say so on the
// graph; Transfers says what was measured before an edit; the timeline
// colours each delegate call by its own device. The e2e scenarios
// (tests/e2e/scenarios/truths.py) check the same through AT-SPI.
#include <QtTest>

#include <QAccessible>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableWidget>
#include <QUndoStack>

#include <map>
#include <set>

#include "support/EtdumpTestSupport.h"
#include "support/TestSupport.h"
#include "support/UiTestSupport.h"
#include "ui/common/MemoryBudgetSetting.h"
#include "ui/document/Document.h"
#include "ui/document/FileChangeWatcher.h"
#include "ui/graph/GraphItems.h"
#include "ui/graph/GraphLegend.h"
#include "ui/panels/OutputsPanel.h"
#include "ui/panels/PassOptionsPanel.h"
#include "ui/profile/ProfileSession.h"
#include "ui/profile/TimelineView.h"
#include "ui/profile/TransfersModel.h"
#include "ui/window/MainWindow.h"

using namespace ptescope;

namespace {

QString accessibleName(QObject* object) {
  QAccessibleInterface* iface = QAccessible::queryAccessibleInterface(object);
  return iface ? iface->text(QAccessible::Name) : QString();
}

// A host-emulated profile of the window's current method, waited for.
bool profileOnHost(ui::MainWindow& window, int method) {
  ui::ProfileRequest request;
  request.method = method;
  request.runtime = exec::RuntimePreference::Host;
  request.iterations = 2;
  request.warmup = 0;
  request.measurePeak = false;
  QSignalSpy finished(window.profileSession(), &ui::ProfileSession::finished);
  if (!window.startProfile(request)) return false;
  return finished.wait(60000) || finished.count() == 1;
}

}  // namespace

class NewUserTruthsTest : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    qputenv("PTESCOPE_NO_DIALOGS", "1");
    QAccessible::setActive(true);
  }

  // Item 1: a combo box is named by what it sets, never by its value; the
  // demo's two delegates per method get two names; no label reads "&".
  void everyControlIsNamedByWhatItSets() {
    ui::Document document;
    ui::MainWindow window(&document);
    window.resize(1400, 900);
    window.show();
    QVERIFY(window.openDemo());
    QVERIFY(test::waitForGraph(window.graph()));
    const auto combos = window.findChildren<QComboBox*>();
    QVERIFY(combos.size() >= 4);
    std::set<QString> delegateNames;
    for (QComboBox* box : combos) {
      const QString name = accessibleName(box);
      const QString where = box->objectName() + ": " + name;
      QVERIFY2(!name.isEmpty(), qPrintable(where));
      // Before the fix Qt named each by its current text ("cuda:0").
      QVERIFY2(box->currentText().isEmpty() || name != box->currentText(), qPrintable(where));
      if (box->objectName().startsWith("delegateTarget")) {
        QVERIFY2(name.startsWith("Target device of delegate "), qPrintable(where));
        delegateNames.insert(name);
      }
      // The value stays readable as the value.
      QCOMPARE(QAccessible::queryAccessibleInterface(box)->text(QAccessible::Value), box->currentText());
    }
    // The demo's shown method has two CUDA delegates: two choosers, two names,
    // each naming its backend.
    QCOMPARE(delegateNames.size(), size_t(2));
    for (const QString& name : delegateNames) QVERIFY2(name.contains("CudaBackend"), qPrintable(name));
    // The method chooser says it chooses the method.
    QCOMPARE(accessibleName(window.methodSelector()), QString("Method"));
    // The window's Cancel buttons (profile, Run Once, the Advisor's search,
    // the graph layout) each say what they stop: a screen reader, or a click
    // found by name, never takes one for another (CI once cancelled the
    // Advisor's search instead of a profile).
    std::map<QString, QString> cancels;
    for (QPushButton* button : window.findChildren<QPushButton*>()) {
      if (button->text() != "Cancel" && button->objectName() != "advisorSearch") continue;
      const QString name = accessibleName(button);
      QVERIFY2(name != "Cancel" && name.startsWith("Cancel"), qPrintable(button->objectName() + ": " + name));
      QVERIFY2(cancels.emplace(name, button->objectName()).second,
               qPrintable(name + " names both " + cancels[name] + " and " + button->objectName()));
    }
    for (const char* stops : {"cancelProfile", "cancelRunOnce", "advisorSearch", "graphCancelLayout"})
      QVERIFY2(std::any_of(cancels.begin(), cancels.end(), [&](const auto& c) { return c.second == stops; }), stops);
    for (QLabel* label : window.findChildren<QLabel*>()) {
      const QString name = accessibleName(label);
      QVERIFY2(!name.contains(QRegularExpression("&(?!&)")) || name.contains("&&") || label->buddy() == nullptr,
               qPrintable(name));
    }
  }

  // Item 1: a form's mnemonic label reads without its '&' ("&Method:" shows
  // "Method:" with M underlined) and names its field.
  void mnemonicLabelsReadAsShown() {
    ui::Document document;
    ui::MainWindow window(&document);  // installs the accessibility factories
    QWidget form;
    auto* box = new QComboBox(&form);
    box->addItems({"forward", "decode"});
    auto* label = new QLabel("&Method:", &form);
    label->setBuddy(box);
    form.show();
    QCOMPARE(accessibleName(label), QString("Method:"));
    QCOMPARE(accessibleName(box), QString("Method"));
    auto* literal = new QLabel("Inputs & outputs", &form);  // no buddy: the '&' is shown
    QCOMPARE(accessibleName(literal), QString("Inputs & outputs"));
  }

  // Items 2 and 3: after Save As the window is the saved file: a change of
  // the original is not loaded, a change of the saved one is; the status
  // bar names it; the diff and the options compare with it.
  void saveAsMakesTheSavedFileTheDocument() {
    const QString original = test::writeDemoProgram("save-as-original.pte");
    QVERIFY(!original.isEmpty());
    const QString saved = test::tempDir() + "/save-as-saved.pte";
    QFile::remove(saved);
    ui::Document document;
    ui::MainWindow window(&document);
    QVERIFY(window.openFile(original));
    const int method = document.currentMethodIndex();
    auto options = document.methodOptions(method);
    options.alloc_graph_output = !options.alloc_graph_output;
    document.setMethodOptions(method, options);
    document.waitForPipeline();
    QVERIFY(document.isModified());
    QVERIFY(window.saveTo(saved));
    QCOMPARE(document.path(), saved);
    QVERIFY(!document.isModified());
    QVERIFY(!window.isWindowModified());
    // The file's options are the saved ones: what the edit set.
    QCOMPARE(document.fileOptions(method).alloc_graph_output, options.alloc_graph_output);
    const auto changes = document.methodChanges(method);
    QVERIFY(changes && changes->empty());
    QCOMPARE(document.currentMethodIndex(), method);
    QVERIFY2(window.findChild<QLabel*>("fileStatus")->text().contains("save-as-saved.pte"),
             qPrintable(window.findChild<QLabel*>("fileStatus")->text()));
    // The original changes on disk (another program: the CLI's add_then_sin).
    const auto loadedBefore = document.loadedSnapshot();
    QVERIFY(test::runCli({"synth", "--scenario", "add_then_sin", "-o", original}).exitCode == 0);
    QTest::qWait(4 * ui::FileChangeWatcher::kSettleMs);
    QCOMPARE(document.loadedSnapshot(), loadedBefore);
    QCOMPARE(document.path(), saved);
    // The saved file changes on disk: that one is reloaded.
    QVERIFY(test::runCli({"synth", "--scenario", "add_then_sin", "-o", saved}).exitCode == 0);
    QTRY_VERIFY_WITH_TIMEOUT(document.loadedSnapshot() != loadedBefore, 10000);
    QCOMPARE(document.path(), saved);
  }

  // Item 6: an exporter that writes the program in two parts (a first part,
  // then the whole a moment later) gives no error: the app waits for the
  // file to settle.
  void aFileWrittenInPartsReloadsWithoutAnError() {
    const QString path = test::writeDemoProgram("written-in-parts.pte");
    QVERIFY(!path.isEmpty());
    const QString other = test::tempDir() + "/written-in-parts-next.pte";
    QVERIFY(test::runCli({"synth", "--scenario", "add_then_sin", "-o", other}).exitCode == 0);
    const auto whole = test::readAll(other);
    QVERIFY(whole.size() > 64);
    ui::Document document;
    ui::MainWindow window(&document);
    QVERIFY(window.openFile(path));
    const auto before = document.loadedSnapshot();
    auto write = [&](size_t bytes) {
      QFile file(path);
      QVERIFY(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
      QCOMPARE(file.write(reinterpret_cast<const char*>(whole.data()), qint64(bytes)), qint64(bytes));
    };
    write(whole.size() / 2);  // the first part: not a program yet
    QTest::qWait(4 * ui::FileChangeWatcher::kSettleMs + 500);
    write(whole.size());  // the whole, a second later
    QTRY_VERIFY_WITH_TIMEOUT(document.loadedSnapshot() != before, 10000);
    QVERIFY2(window.lastError().isEmpty(), qPrintable(window.lastError()));
    QCOMPARE(document.loadedProgram().methods().size(), size_t(1));
  }

  // Item 5: the instructions Run Once could not execute are listed where
  // they can be read, lines high, under the outputs.
  void notExecutedListIsSeen() {
    ui::Document document;
    ui::MainWindow window(&document);
    window.resize(1000, 700);
    window.show();
    QVERIFY(window.openDemo());
    ui::OutputsPanel* panel = window.outputsPanel();
    for (int i = 0; i < window.bottomTabs()->count(); ++i)
      if (window.bottomTabs()->widget(i) == panel || window.bottomTabs()->widget(i)->isAncestorOf(panel))
        window.bottomTabs()->setCurrentIndex(i);
    QVERIFY(panel->isVisible());
    QSignalSpy finished(panel, &ui::OutputsPanel::finished);
    QVERIFY(panel->runOnce());
    QVERIFY(finished.wait(60000) || finished.count() == 1);
    // The demo's delegates cannot run here: they are listed.
    QVERIFY(!panel->lastResult()->not_executed.empty());
    auto* area = panel->findChild<QScrollArea*>("outputsNotExecutedArea");
    QVERIFY(area->isVisible());
    const int line = area->fontMetrics().lineSpacing();
    QVERIFY2(area->height() >= 2 * line, qPrintable(QString::number(area->height())));
    QVERIFY(area->viewport()->height() >= line);
    // Each line names its delegate's backend once ("#1 delegate CudaBackend:
    // ptescope cannot run this backend; ..."), not again in its reason, and
    // its instruction as everywhere else ("#1"; it read "1  delegate").
    const QStringList lines = area->findChild<QLabel*>("outputsNotExecuted")->text().split('\n').mid(1);
    QCOMPARE(lines.size(), int(panel->lastResult()->not_executed.size()));
    for (const QString& text : lines) {
      QVERIFY2(text.count("CudaBackend") == 1, qPrintable(text));
      QVERIFY2(QRegularExpression("^#\\d+ delegate ").match(text).hasMatch(), qPrintable(text));
    }
  }

  // Item 12: a run that fails leaves no outputs of an earlier run.
  void aFailedRunShowsNoEarlierOutputs() {
    ui::Document document;
    ui::MainWindow window(&document);
    QVERIFY(window.openDemo());
    ui::OutputsPanel* panel = window.outputsPanel();
    QSignalSpy finished(panel, &ui::OutputsPanel::finished);
    QVERIFY(panel->runOnce());
    QVERIFY(finished.wait(60000) || finished.count() == 1);
    QVERIFY(panel->table()->rowCount() > 0);
    ui::setMemoryBudget(1);  // one byte: the method is refused before it runs
    QSignalSpy failed(panel, &ui::OutputsPanel::failed);
    QVERIFY(panel->runOnce());
    QVERIFY(failed.wait(60000) || failed.count() == 1);
    ui::setMemoryBudget(0);
    QCOMPARE(panel->table()->rowCount(), 0);
    QVERIFY(!panel->lastResult().has_value());
    QVERIFY(panel->findChild<QScrollArea*>("outputsNotExecutedArea")->isHidden());
  }

  // Items 7 and 8: an emulated profile's copy times say "emulated" on the
  // graph and in its legend; after an edit that removes copies, Transfers
  // counts the program's copies and says the totals were measured before.
  void emulatedTimesAndEditedTotalsSaySo() {
    ui::Document document;
    ui::MainWindow window(&document);
    window.resize(1400, 900);
    window.show();
    QVERIFY(window.openDemo());
    const int method = document.currentMethodIndex();
    QVERIFY(profileOnHost(window, method));
    window.setOverlayMetric(ui::GraphView::OverlayMetric::Time);
    QVERIFY(test::waitForGraph(window.graph()));
    int badges = 0;
    for (auto* item : window.graph()->scene()->items())
      // Every number drawn says it is emulated (an edge's overlay only
      // colours it: its text is empty and its label is the tensor's type).
      if (auto* marked = dynamic_cast<ui::GraphMarkedItem*>(item); marked && marked->overlay() && !marked->overlay()->text.isEmpty()) {
        ++badges;
        QVERIFY2(marked->overlay()->text.endsWith(" emulated"), qPrintable(marked->overlay()->text));
      }
    QVERIFY(badges > 0);
    const auto* legend = window.graph()->findChild<ui::GraphLegend*>();
    QVERIFY(legend != nullptr);
    QVERIFY(!legend->entries().empty());
    QVERIFY2(legend->entries().front().text.startsWith("emulated copy time"), qPrintable(legend->entries().front().text));

    // The demo copies its inputs h2d; skipping that h2d removes copies.
    const QString before = window.transferTotals()->text();
    QVERIFY2(!before.contains("measured before"), qPrintable(before));
    auto options = document.methodOptions(method);
    options.enable_non_cpu_memory_planning = true;
    options.skip_h2d_for_method_inputs = true;
    document.setMethodOptions(method, options);
    document.waitForPipeline();
    QTRY_VERIFY(window.transferTotals()->text().contains("measured before the edits"));
    const QString after = window.transferTotals()->text();
    // The first part counts the program's copies now, with no times.
    const QString now = after.section(QStringLiteral("  ·  "), 0, 0);
    QVERIFY2(!now.contains("µs") && !now.contains(" ms"), qPrintable(after));
  }

  // Item 10: Find ranks a match that is the query exactly first ("layer 7"
  // is the group "layer 7", not "layer 6", which holds a "7" somewhere).
  void findRanksExactMatchesFirstAndShowsWhatMatched() {
    const QString path = test::tempDir() + "/find-llm8.pte";
    QVERIFY(test::runCli({"synth", "--shape", "llm", "--layers", "8", "-o", path}).exitCode == 0);
    ui::Document document;
    ui::MainWindow window(&document);
    window.resize(1400, 900);
    window.show();
    QVERIFY(window.openFile(path));
    auto* view = window.graph();
    QVERIFY(test::waitForGraph(view));
    const int matches = view->find("layer 7");
    const QString shown = view->selectionText();
    QVERIFY2(shown.startsWith("layer 7"), qPrintable(shown));
    // Others match too (a "7" inside another layer's text), after it.
    QStringList all{shown};
    for (int k = 1; k < matches; ++k) {
      QVERIFY(view->findNext());
      all << view->selectionText();
    }
    qInfo() << all;
  }

  // Item 13: each delegate call is drawn in its own device's colour and the
  // legend names each device. The demo method's delegates run on cuda:0;
  // retarget one to cuda:1 and profile again.
  void timelineColoursEachDelegateByItsDevice() {
    ui::Document document;
    ui::MainWindow window(&document);
    QVERIFY(window.openDemo());
    const int method = document.currentMethodIndex();
    document.setDelegateTarget(method, 1, program::Device{program::DeviceType::Cuda, 1});
    document.waitForPipeline();
    QVERIFY(document.pipelineError().isEmpty());
    QVERIFY(profileOnHost(window, method));
    QTRY_VERIFY(window.timeline()->profile() != nullptr);
    std::set<std::string> devices;
    for (const auto& bar : window.timeline()->bars())
      if (bar.delegate) devices.insert(bar.device.str());
    QCOMPARE(devices, (std::set<std::string>{"cuda:0", "cuda:1"}));
  }

  // Item 13, as the runtime traced it: upstream's trace of cross_device (a
  // delegate on cuda:0, then one on cuda:1; stub backends, so both ran and
  // are kernel bars) names both devices in the timeline's legend, which
  // screen readers read in the canvas's description.
  void etdumpTimelineLegendNamesEachDelegateDevice() {
    PTESCOPE_REQUIRE_ETDUMP_SAMPLES();
    const QString dir = test::etdumpSamplesDir();
    test::ShownWindow w;
    QVERIFY(w.open(dir + "/scenario_cross_device.pte"));
    QVERIFY2(w.window.importEtdump(dir + "/scenario_cross_device.etdp"), qPrintable(w.window.lastError()));
    ui::TimelineView* timeline = w.window.timeline();
    QTRY_VERIFY(timeline->profile() != nullptr);
    std::map<std::string, int> delegates;  // device -> kernel-lane delegate bars
    for (const auto& bar : timeline->bars())
      if (bar.delegate && bar.lane == ui::TimelineView::Lane::Kernels) ++delegates[bar.device.str()];
    QCOMPARE(delegates, (std::map<std::string, int>{{"cuda:0", 1}, {"cuda:1", 1}}));
    const QStringList legend = timeline->legendTexts();
    QCOMPARE(legend, (QStringList{"host → device copy", "device → host copy", "delegate call (cuda:0)", "delegate call (cuda:1)"}));
    QWidget* canvas = timeline->canvas()->parentWidget();  // the scroll area around the painted viewport
    QCOMPARE(canvas->accessibleName(), QString("Timeline"));
    QCOMPARE(canvas->accessibleDescription(), "Legend: " + legend.join(", "));
  }

  // A profile's Cancel stays where it is while the status text beside it
  // changes (CI once clicked where Cancel had been: the label grew from
  // "Profiling…, 0 s" to "running executor_runner on the program as shown"
  // and pushed it 180 px to the right at 1000 x 700).
  void profileCancelStaysPutWhileTheStatusChanges() {
    ui::Document document;
    ui::MainWindow window(&document);
    window.resize(1000, 700);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QVERIFY(window.openDemo());
    auto* cancel = window.findChild<QPushButton*>("cancelProfile");
    QVERIFY(cancel != nullptr);
    auto* session = window.profileSession();
    emit session->started();
    QTRY_VERIFY(cancel->isVisible());
    auto* text = window.findChild<QLabel*>("profileStatusText");
    QVERIFY(text != nullptr);
    auto where = [&] { return cancel->mapTo(&window, QPoint(0, 0)); };
    // The label says the phase when its ticker next reads it (twice a second).
    auto say = [&](const QString& phase, int done, int total) {
      emit session->progress(phase, done, total);
      return QTest::qWaitFor([&] { return text->text().startsWith(phase); }, 3000);
    };
    QVERIFY(say("run", 0, 0));
    QTest::qWait(20);
    const QPoint first = where();
    QVERIFY(say("running executor_runner on the program as shown, with a long name", 0, 0));
    QTest::qWait(20);
    QCOMPARE(where(), first);
    QVERIFY(say("measuring", 3, 20));
    QTest::qWait(20);
    QCOMPARE(where(), first);
  }
};

QTEST_MAIN(NewUserTruthsTest)
#include "test_new_user_truths.moc"
