// Importing an ETDump into the main window (offscreen): the Transfers panel,
// the timeline and the graph overlay show the numbers `ptescope-cli etdump`
// prints, labelled with their source; a second trace or a ptescope profile
// compares with it, also after an edit; a dropped .etdp imports; bad input
// is one message and changes nothing.
#include <QtTest>

#include <QGraphicsScene>
#include <QLabel>
#include <QMimeData>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QUndoStack>

#include <nlohmann/json.hpp>

#include "etdump/EtdumpWriter.h"
#include "pte/Writer.h"
#include "support/EtdumpTestSupport.h"
#include "support/RoundTripPrograms.h"
#include "support/TestSupport.h"
#include "support/UiTestSupport.h"
#include "synth/JsonSpec.h"
#include "synth/Scenarios.h"
#include "ui/document/Document.h"
#include "ui/common/Format.h"
#include "ui/graph/GraphItems.h"
#include "ui/common/ItemRoles.h"
#include "ui/window/MainWindow.h"
#include "ui/profile/TimelineView.h"
#include "ui/profile/TransfersModel.h"

using namespace ptescope;
using ui::MainWindow;

namespace {

QString outPath(const QString& name) { return QDir(test::tempDir()).filePath(name); }

ui::TransfersModel* transfersOf(MainWindow& window) {
  return qobject_cast<ui::TransfersModel*>(qobject_cast<QSortFilterProxyModel*>(window.transfersView()->model())->sourceModel());
}

const ui::GraphNodeItem* nodeItemOf(const ui::GraphView& view, size_t instruction) {
  const auto& model = view.currentLayout()->model;
  auto node = model.nodeOfInstruction(instruction);
  return node ? test::graphNodeItem(view, *node) : nullptr;
}

// The demo as a file and two traces of its forward (scopes of 1000 + 10 ×
// instruction ticks; the second trace twice as slow).
struct Files {
  QString pte, fast, slow, other;
};
const Files& files() {
  static const Files f = [] {
    Files out{outPath("demo.pte"), outPath("fast.etdp"), outPath("slow.etdp"), outPath("other.etdp")};
    auto program = synth::applyDevicePasses(synth::synthesizeDemo().value());
    if (!program || !pte::writeProgramFile(program.value(), out.pte.toStdString()).ok()) qFatal("demo");
    for (int factor : {1, 2}) {
      etdump::TraceSpec spec;
      spec.method = "forward";
      spec.ticks = [factor](size_t iteration, size_t instruction) {
        return uint64_t(factor * (1000 + 10 * instruction) + iteration);
      };
      test::writeAll(factor == 1 ? out.fast : out.slow,
                     etdump::serializeEtdump(etdump::synthesizeEtdump(program.value(), spec).value()));
    }
    auto other = synth::applyDevicePasses(synth::synthesizeScenario("add_then_sin").value());
    test::writeAll(out.other, etdump::serializeEtdump(etdump::synthesizeEtdump(other.value(), {}).value()));
    return out;
  }();
  return f;
}

// What the CLI says of a trace: its JSON.
nlohmann::json cliJson(const QString& pte, const QString& etdp) {
  const QString json = outPath("cli.json");
  const auto r = test::runCli({"etdump", pte, etdp, "--json", json});
  if (r.exitCode != 0) return {};
  const auto bytes = test::readAll(json);
  return nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
}

// Panel, overlay and timeline against the CLI's numbers for the method shown.
void expectCliNumbers(MainWindow& window, const nlohmann::json& cli) {
  QVERIFY(cli.is_object());
  const auto& copies = cli["methods"][0]["copies"];
  QVERIFY(copies.size() > 0);
  auto* transfers = transfersOf(window);
  QVERIFY(transfers->hasMeasurements());
  QVERIFY(test::waitForGraph(window.graph()));
  for (const auto& c : copies) {
    const size_t instruction = c["instruction"].get<size_t>();
    const int row = transfers->rowOfInstruction(instruction);
    QVERIFY(row >= 0);
    const double median = transfers->index(row, ui::TransfersModel::MedianTime).data(ui::SortRole).toDouble();
    QVERIFY2(qFuzzyCompare(median * 1e6, c["median_us"].get<double>()), qPrintable(QString::number(median)));
    QVERIFY(qFuzzyCompare(transfers->index(row, ui::TransfersModel::Bandwidth).data(ui::SortRole).toDouble(),
                          c["gbps"].get<double>()));
    const auto* item = nodeItemOf(*window.graph(), instruction);
    QVERIFY(item && item->overlay());
    QCOMPARE(item->overlay()->text, ui::durationText(c["median_us"].get<double>() * 1e-6));
  }
  // The timeline shows one iteration: a bar per instruction, copies with the kernel's time.
  auto* timeline = window.timeline();
  QVERIFY(timeline->profile() != nullptr);
  QCOMPARE(timeline->bars().size(), cli["methods"][0]["instructions"].size());
  size_t copyBars = 0;
  for (const auto& bar : timeline->bars())
    if (bar.lane == ui::TimelineView::Lane::HostToDevice || bar.lane == ui::TimelineView::Lane::DeviceToHost) ++copyBars;
  QCOMPARE(copyBars, copies.size());
  QVERIFY(window.transferTotals()->text().contains("ETDump, host clock"));
}

}  // namespace

class EtdumpImportTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { qputenv("PTESCOPE_NO_DIALOGS", "1"); }

  void importShowsTheCliNumbers() {
    const auto& f = files();
    ui::Document doc;
    MainWindow window(&doc);
    window.resize(1400, 900);
    window.show();
    QVERIFY(window.openFile(f.pte));
    QVERIFY(window.showMethod("forward"));
    QVERIFY2(window.importEtdump(f.fast), qPrintable(window.lastError()));
    const auto& run = *window.profileSession()->latest();
    QCOMPARE(run.profile->runtime, std::string("ETDump, host clock"));
    QVERIFY(run.label.contains("fast.etdp"));
    expectCliNumbers(window, cliJson(f.pte, f.fast));
  }

  void realSampleShowsTheCliNumbers() {
    PTESCOPE_REQUIRE_ETDUMP_SAMPLES();
    const QString dir = test::etdumpSamplesDir();
    ui::Document doc;
    MainWindow window(&doc);
    window.resize(1400, 900);
    window.show();
    QVERIFY(window.openFile(dir + "/demo.pte"));
    QVERIFY2(window.importEtdump(dir + "/demo.etdp"), qPrintable(window.lastError()));
    expectCliNumbers(window, cliJson(dir + "/demo.pte", dir + "/demo.etdp"));
    window.showPanel("timeline");
    QVERIFY(test::saveScreenshot(window, "etdump-timeline"));
  }

  void secondTraceComparesAlsoAfterAnEdit() {
    const auto& f = files();
    ui::Document doc;
    MainWindow window(&doc);
    window.show();
    QVERIFY(window.openFile(f.pte));
    QVERIFY(window.showMethod("forward"));
    QVERIFY(window.importEtdump(f.fast));
    QVERIFY(window.importEtdump(f.slow));
    auto* transfers = transfersOf(window);
    QVERIFY(transfers->hasComparison());
    const auto fast = window.profileSession()->previous()->profile;
    const auto slow = window.profileSession()->latest()->profile;
    for (const auto& copy : slow->copies) {
      const int row = transfers->rowOfInstruction(copy.instruction);
      QVERIFY(row >= 0);
      const double previous = transfers->index(row, ui::TransfersModel::PreviousMedian).data(ui::SortRole).toDouble();
      const auto before = std::find_if(fast->copies.begin(), fast->copies.end(),
                                        [&](const auto& c) { return c.instruction == copy.instruction; });
      QVERIFY(before != fast->copies.end());
      QCOMPARE(previous, before->seconds.median);
      QVERIFY(copy.seconds.median > previous);
    }

    // An edit removes the input's copy: the traces of the file still pair with
    // the copies that remain, and the removed one shows as removed.
    const int m = doc.currentMethodIndex();
    auto options = doc.methodOptions(m);
    options.skip_h2d_for_method_inputs = true;
    options.alloc_graph_input = false;
    doc.setMethodOptions(m, options);
    doc.waitForPipeline();
    QVERIFY2(doc.pipelineError().isEmpty(), qPrintable(doc.pipelineError()));
    QVERIFY(transfers->hasComparison());
    size_t measured = 0;
    for (const auto& row : transfers->rows()) measured += !row.removed && row.latest != nullptr;
    QCOMPARE(measured + 1, slow->copies.size());

    // A ptescope profile after it compares with the trace.
    ui::ProfileRequest request;
    request.method = m;
    request.runtime = exec::RuntimePreference::Host;
    request.iterations = 3;
    request.warmup = 0;
    request.measurePeak = false;
    QSignalSpy finished(window.profileSession(), &ui::ProfileSession::finished);
    QVERIFY(window.startProfile(request));
    QVERIFY(finished.wait(60000));
    QVERIFY(window.profileSession()->previous()->profile == slow);
    QVERIFY(transfers->hasComparison());
  }

  // A trace of two methods whose caller sends encoder's output to the host
  // and back to decoder: the Summary section and the exported report show
  // PRF004 across the methods as `etdump` prints it; with a decoder that
  // takes another type, both say there is none.
  void findingsAcrossMethodsOfATrace() {
    for (const char* decoderInput : {"[1, 8]", "[1, 4]"}) {
      const bool roundTrip = QByteArray(decoderInput) == "[1, 8]";
      const QString name = roundTrip ? "round-trip" : "no-round-trip";
      const auto program = test::twoMethodProgram(decoderInput);
      const QString pte = outPath(name + ".pte"), etdp = outPath(name + ".etdp");
      QVERIFY(pte::writeProgramFile(program, pte.toStdString()).ok());
      test::writeAll(etdp, etdump::serializeEtdump(test::twoMethodTrace(program)));
      const auto cli = cliJson(pte, etdp);
      QVERIFY(cli.is_object());
      QCOMPARE(cli["across_methods"].size(), size_t(roundTrip ? 1 : 0));

      ui::Document doc;
      MainWindow window(&doc);
      window.resize(1400, 900);
      window.show();
      QVERIFY(window.openFile(pte));
      QVERIFY(window.showMethod("decoder"));
      QVERIFY2(window.importEtdump(etdp), qPrintable(window.lastError()));
      const auto& run = *window.profileSession()->latest();
      QCOMPARE(run.profile->method, std::string("decoder"));
      QVERIFY(run.acrossMethods.has_value());
      auto* findings = window.findChild<QLabel*>("transferFindings");
      QVERIFY(findings != nullptr);
      const QString text = findings->text();
      QVERIFY2(text.contains("Across the methods of the trace"), qPrintable(text));
      const QString report = outPath(name + ".html");
      QVERIFY2(window.exportHtmlReportTo(report), qPrintable(window.lastError()));
      const auto html = test::readAll(report);
      const QString reportText = QString::fromUtf8(reinterpret_cast<const char*>(html.data()), qsizetype(html.size()));
      QVERIFY(reportText.contains("<section id=\"across-methods\">"));
      // What the trace does not say, as `report --etdump` notes it (1 ns ticks by default).
      QVERIFY2(reportText.contains("<p class=\"note\">" + name + ".etdp: ticks: 1 tick = 1 ns (the file does not say; "
                                   "the POSIX runtime ticks in ns)</p>"),
               qPrintable(reportText.left(3000)));
      if (!roundTrip) {
        QVERIFY2(text.contains("No findings across methods."), qPrintable(text));
        QVERIFY(!text.contains("PRF004"));
        QVERIFY(reportText.contains("<p>No findings across methods.</p>"));
        continue;
      }
      // encoder's d2h copy (instruction 2) of its output, decoder's h2d copy
      // (instruction 0) of its input; the kernels last their scope (100 +
      // instruction ticks of 1 ns) less 2 ticks: 100 ns + 98 ns.
      const auto& f = cli["across_methods"][0];
      QCOMPARE(f["method"].get<std::string>(), std::string("encoder"));
      QCOMPARE(f["instructions"][0].get<int>(), 2);
      QCOMPARE(f["other_method"].get<std::string>(), std::string("decoder"));
      QCOMPARE(f["other_instructions"][0].get<int>(), 0);
      QVERIFY2(text.contains("PRF004 [round-trip] method 'encoder', instruction 2; method 'decoder', instruction 0: " +
                             QString::fromStdString(f["message"].get<std::string>())),
               qPrintable(text));
      QVERIFY(text.contains("evidence: " + QString::fromStdString(f["evidence"].get<std::string>())));
      QVERIFY(text.contains("= 198 ns per call of each"));
      QVERIFY(reportText.contains("<tr><td>PRF004 round-trip</td><td>method &apos;encoder&apos;, instruction 2; method "
                                  "&apos;decoder&apos;, instruction 0</td>"));
      // A profile ptescope runs itself has one method: the lines go.
      QVERIFY(test::profileOnHost(window, doc.currentMethodIndex(), 2, 0));
      QVERIFY(!window.profileSession()->latest()->acrossMethods.has_value());
      QVERIFY(!findings->text().contains("Across the methods"));
    }
  }

  void droppedTraceImports() {
    const auto& f = files();
    ui::Document doc;
    MainWindow window(&doc);
    window.show();
    QVERIFY(window.openFile(f.pte));
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(f.fast)});
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    // Straight to the window's event handler: QApplication::notify only lets
    // drops through during a real drag.
    static_cast<QObject&>(window).event(&drop);
    QVERIFY2(window.profileSession()->latest().has_value(), qPrintable(window.lastError()));
    QCOMPARE(window.profileSession()->latest()->profile->runtime, std::string("ETDump, host clock"));
    QCOMPARE(doc.path(), f.pte);  // the program stays
  }

  void badInputKeepsDocumentAndProfiles() {
    const auto& f = files();
    const auto good = test::readAll(f.fast);
    const QString truncated = outPath("truncated.etdp"), wrongId = outPath("wrong.etdp");
    test::writeAll(truncated, std::vector<uint8_t>(good.begin(), good.begin() + std::ptrdiff_t(good.size() / 3)));
    auto id = good;
    id[9] = '?';
    test::writeAll(wrongId, id);

    ui::Document doc;
    MainWindow window(&doc);
    window.show();
    QVERIFY(window.openFile(f.pte));
    QVERIFY(window.importEtdump(f.fast));
    const auto kept = window.profileSession()->latest()->profile;
    const std::vector<std::pair<QString, QString>> cases = {
        {truncated, "truncated"}, {wrongId, "no 'ED00' identifier"}, {f.other, "does not describe this program"}};
    for (const auto& [path, expected] : cases) {
      QVERIFY(!window.importEtdump(path));
      QVERIFY2(window.lastError().contains(expected), qPrintable(window.lastError()));
      QVERIFY(!window.lastError().contains('\n'));
      QVERIFY(doc.hasProgram());
      QCOMPARE(doc.path(), f.pte);
      QVERIFY(window.profileSession()->latest()->profile == kept);
      QVERIFY(!window.profileSession()->previous().has_value());
    }
    // No program: nothing to import onto.
    ui::Document empty;
    MainWindow bare(&empty);
    QVERIFY(!bare.importEtdump(f.fast));
    QVERIFY(bare.lastError().contains("open the program"));
  }
};

QTEST_MAIN(EtdumpImportTest)
#include "test_etdump_import.moc"
