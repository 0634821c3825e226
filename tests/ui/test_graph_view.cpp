// ui::GraphView offscreen: layout in the background, device colours on
// screen, selection by mouse, Find, export, big programs (groups opened on
// demand) and cancellation. Set PTESCOPE_SCREENSHOT_DIR to keep the grabs.
#include <QtTest>

#include <QGraphicsView>
#include <QImage>
#include <QSignalSpy>
#include <QXmlStreamReader>

#include <set>

#include "layout/DeviceStyle.h"
#include "passes/Pipeline.h"
#include "support/TestSupport.h"
#include "support/UiTestSupport.h"
#include "synth/JsonSpec.h"
#include "synth/Scenarios.h"
#include "ui/graph/GraphItems.h"
#include "ui/graph/GraphView.h"

using namespace ptescope;
using ui::GraphView;

namespace {

std::shared_ptr<const program::Program> demoAfterPasses() {
  auto demo = synth::synthesizeDemo();
  if (!demo) qFatal("demo: %s", demo.error().message.c_str());
  auto passed = synth::applyDevicePasses(demo.value());
  if (!passed) qFatal("passes: %s", passed.error().message.c_str());
  return std::make_shared<const program::Program>(std::move(passed.value()));
}

std::shared_ptr<const program::Program> largeAfterPasses(size_t layers) {
  auto built = synth::largeProgram(layers);
  if (!built) qFatal("large: %s", built.error().message.c_str());
  auto passed = passes::runPipeline(built.value(), passes::PipelineOptions{});
  if (!passed) qFatal("pipeline: %s", passed.error().message.c_str());
  return std::make_shared<const program::Program>(std::move(passed->program));
}

int methodIndex(const program::Program& program, const std::string& name) {
  for (size_t i = 0; i < program.methods().size(); ++i)
    if (program.methods()[i].displayName() == name) return int(i);
  return -1;
}

// Shows a method and waits for its picture.
bool showMethod(GraphView& view, std::shared_ptr<const program::Program> program, int index) {
  QSignalSpy finished(&view, &GraphView::layoutFinished);
  view.setMethod(std::move(program), index);
  return finished.wait(60000) && view.currentLayout();
}

// Shows the view at `size`, then method 0 of `program`, and waits for it.
bool showShown(GraphView& view, std::shared_ptr<const program::Program> program, QSize size) {
  view.resize(size);
  view.show();
  return showMethod(view, std::move(program), 0);
}

bool waitForLayout(GraphView& view) {
  QSignalSpy finished(&view, &GraphView::layoutFinished);
  return finished.wait(60000);
}

// Pixels within `tolerance` of the colour.
int pixelsNear(const QImage& image, QColor colour, int tolerance = 24) {
  int count = 0;
  for (int y = 0; y < image.height(); ++y) {
    const QRgb* line = reinterpret_cast<const QRgb*>(image.constScanLine(y));
    for (int x = 0; x < image.width(); ++x) {
      const QRgb p = line[x];
      if (std::abs(qRed(p) - colour.red()) + std::abs(qGreen(p) - colour.green()) + std::abs(qBlue(p) - colour.blue()) <= tolerance)
        ++count;
    }
  }
  return count;
}

QString screenshotPath(const QString& name) {
  const QString dir = qEnvironmentVariable("PTESCOPE_SCREENSHOT_DIR");
  return (dir.isEmpty() ? test::tempDir() : dir) + "/" + name;
}

std::optional<size_t> nodeOfInstruction(const GraphView& view, size_t instruction) {
  const auto& model = view.currentLayout()->model;
  auto node = model.nodeOfInstruction(instruction);
  if (node && model.nodes[*node].instruction == instruction) return node;
  return std::nullopt;
}

QPoint viewportPointOfNode(const GraphView& view, size_t node) {
  const auto& g = view.currentLayout()->nodes[node];
  view.canvas()->centerOn(g.center.x, g.center.y);
  return view.canvas()->mapFromScene(QPointF(g.center.x, g.center.y));
}

ui::GraphNodeItem* nodeItem(const GraphView& view, size_t node) { return test::graphNodeItem(view, node); }

}  // namespace

class GraphViewTest : public QObject {
  Q_OBJECT
 private slots:
  void showsTheDemoInDeviceColours() {
    auto program = demoAfterPasses();
    GraphView view;
    view.resize(1000, 900);
    view.show();
    QVERIFY(showMethod(view, program, methodIndex(*program, "forward")));
    QVERIFY(!view.layoutPending());
    const auto* placed = view.currentLayout();
    QCOMPARE(placed->regions.size(), size_t(2));
    int nodes = 0, edges = 0, regions = 0;
    for (auto* item : view.scene()->items()) {
      nodes += item->type() == ui::GraphNodeItem::Type;
      edges += item->type() == ui::GraphEdgeItem::Type;
      regions += item->type() == ui::GraphRegionItem::Type;
    }
    QCOMPARE(size_t(nodes), placed->model.nodes.size());
    QCOMPARE(size_t(edges), placed->model.edges.size());
    QCOMPARE(regions, 2);

    const QImage grab = view.grab().toImage().convertToFormat(QImage::Format_RGB32);
    QVERIFY(grab.save(screenshotPath("graph-demo-forward.png")));
    // Borders and arrows in each device's colour and each transfer's.
    const auto cpu = ui::toQColor(layout::deviceStyle(program::Device{}).stroke);
    const auto cuda = ui::toQColor(layout::deviceStyle(program::Device{program::DeviceType::Cuda, 0}).stroke);
    const auto h2d = ui::toQColor(layout::h2dCopyStyle().stroke);
    const auto d2h = ui::toQColor(layout::d2hCopyStyle().stroke);
    QVERIFY2(pixelsNear(grab, cpu) > 50, "cpu:0 colour missing");
    QVERIFY2(pixelsNear(grab, cuda) > 50, "cuda:0 colour missing");
    QVERIFY2(pixelsNear(grab, h2d) > 50, "h2d colour missing");
    QVERIFY2(pixelsNear(grab, d2h) > 50, "d2h colour missing");
    QVERIFY(view.findChild<QWidget*>("graphLegend")->isVisible());
    // The overview appears once part of the graph is out of sight.
    auto* overview = view.findChild<QWidget*>("graphOverview");
    view.fitToWindow();
    QVERIFY(!overview->isVisible());
    view.zoomIn();
    view.zoomIn();
    view.zoomIn();
    QVERIFY(overview->isVisible());
  }

  void clickSelectsAndHighlightsProducerAndConsumers() {
    auto program = demoAfterPasses();
    GraphView view;
    view.resize(1000, 900);
    view.show();
    QVERIFY(showMethod(view, program, methodIndex(*program, "forward")));
    QSignalSpy instructions(&view, &GraphView::instructionSelected);
    QSignalSpy values(&view, &GraphView::valueSelected);

    // Instruction 3 is aten::add (reads the D2H copy's output and a constant).
    auto add = nodeOfInstruction(view, 3);
    QVERIFY(add);
    QTest::mouseClick(view.canvas()->viewport(), Qt::LeftButton, {}, viewportPointOfNode(view, *add));
    QCOMPARE(instructions.count(), 1);
    QCOMPARE(instructions.at(0).at(0).value<size_t>(), size_t(3));
    QCOMPARE(view.selectedInstruction(), std::optional<size_t>(3));
    QCOMPARE(nodeItem(view, *add)->emphasis(), ui::Emphasis::Selected);
    QCOMPARE(nodeItem(view, *nodeOfInstruction(view, 2))->emphasis(), ui::Emphasis::Related);  // producer: D2H
    QCOMPARE(nodeItem(view, *nodeOfInstruction(view, 4))->emphasis(), ui::Emphasis::Related);  // consumer: relu
    QCOMPARE(nodeItem(view, *nodeOfInstruction(view, 0))->emphasis(), ui::Emphasis::Dimmed);

    // An edge: the value, its producer and its consumers.
    const auto& model = view.currentLayout()->model;
    ui::GraphEdgeItem* edge = nullptr;
    for (auto* item : view.scene()->items())
      if (auto* e = qgraphicsitem_cast<ui::GraphEdgeItem*>(item); e && model.nodes[e->edge().from].instruction == size_t(4)) edge = e;
    QVERIFY(edge);
    const QPointF middle = edge->path().pointAtPercent(0.5);
    view.canvas()->centerOn(middle);
    QTest::mouseClick(view.canvas()->viewport(), Qt::LeftButton, {}, view.canvas()->mapFromScene(middle));
    QCOMPARE(values.count(), 1);
    QCOMPARE(values.at(0).at(0).value<int32_t>(), edge->edge().value);
    QCOMPARE(edge->emphasis(), ui::Emphasis::Selected);
    QCOMPARE(nodeItem(view, *nodeOfInstruction(view, 4))->emphasis(), ui::Emphasis::Related);

    // Programmatic selection does not echo back.
    view.selectInstruction(6);
    QCOMPARE(view.selectedInstruction(), std::optional<size_t>(6));
    view.selectValue(0);
    QCOMPARE(view.selectedValue(), std::optional<int32_t>(0));
    QCOMPARE(instructions.count(), 1);
    QCOMPARE(values.count(), 1);
    view.clearSelection();
    QCOMPARE(nodeItem(view, *add)->emphasis(), ui::Emphasis::Normal);
  }

  void findOperatorsValuesAndBackends() {
    auto program = demoAfterPasses();
    GraphView view;
    view.resize(900, 700);
    view.show();
    QVERIFY(showMethod(view, program, methodIndex(*program, "forward")));
    QSignalSpy instructions(&view, &GraphView::instructionSelected);
    QCOMPARE(view.find("relu"), 1);
    QCOMPARE(view.selectedInstruction(), std::optional<size_t>(4));
    QCOMPARE(instructions.count(), 1);
    QCOMPARE(view.find("aten::ADD"), 1);  // case-insensitive, full operator name
    QCOMPARE(view.selectedInstruction(), std::optional<size_t>(3));
    QCOMPARE(view.find("CudaBackend"), 2);
    QCOMPARE(view.findCurrentIndex(), 0);
    QCOMPARE(view.selectedInstruction(), std::optional<size_t>(1));
    QVERIFY(view.findNext());
    QCOMPARE(view.selectedInstruction(), std::optional<size_t>(6));
    QVERIFY(view.findNext());
    QCOMPARE(view.findCurrentIndex(), 0);  // wraps
    QVERIFY(view.findPrevious());
    QCOMPARE(view.findCurrentIndex(), 1);
    QCOMPARE(view.find("h2d"), 2);
    // "%1" is value 1 exactly (the constant), not %10.
    const int constantMatches = view.find("%1");
    QVERIFY(constantMatches >= 1);
    QCOMPARE(view.selectedValue(), std::optional<int32_t>(1));
    QVERIFY(view.find("%10") >= 1);  // the output
    QCOMPARE(view.find("no such thing"), 0);
    QVERIFY(!view.findNext());
  }

  void exportsSvgAndPng() {
    auto program = demoAfterPasses();
    GraphView view;
    view.resize(800, 600);
    QString error;
    QVERIFY(!view.exportSvg(test::tempDir() + "/none.svg", &error));
    QVERIFY(!error.isEmpty());
    QVERIFY(showMethod(view, program, methodIndex(*program, "prefill")));
    const QString svgPath = screenshotPath("graph-demo-prefill.svg");
    QVERIFY2(view.exportSvg(svgPath, &error), qPrintable(error));
    QFile svg(svgPath);
    QVERIFY(svg.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&svg);
    while (!xml.atEnd()) xml.readNext();
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    const QString pngPath = screenshotPath("graph-demo-prefill-export.png");
    QVERIFY2(view.exportPng(pngPath, &error), qPrintable(error));
    QImage png(pngPath);
    QVERIFY(!png.isNull());
    const auto& bounds = view.currentLayout()->bounds;
    QVERIFY(png.width() >= int(bounds.width * 1.9));
    const QImage rgb = png.convertToFormat(QImage::Format_RGB32);
    QVERIFY(pixelsNear(rgb, ui::toQColor(layout::h2dCopyStyle().stroke)) > 50);
    QVERIFY(pixelsNear(rgb, ui::toQColor(layout::deviceStyle(program::Device{program::DeviceType::Cuda, 0}).stroke)) > 50);
    QVERIFY(!view.exportPng(test::tempDir() + "/no/such/dir/x.png", &error));
  }

  void cliRenderedPngLoads() {
    // The headless renderer and the view share core/layout; its PNG is an
    // image Qt reads.
    const QString demo = test::tempDir() + "/demo.pte";
    QCOMPARE(test::runCli({"synth", "--demo", "-o", demo}).exitCode, 0);
    const QString png = test::tempDir() + "/cli-demo.png";
    const auto r = test::runCli({"render", demo, "-o", png});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(pixelsNear(image.convertToFormat(QImage::Format_RGB32),
                       ui::toQColor(layout::deviceStyle(program::Device{program::DeviceType::Cuda, 0}).stroke)) > 50);
  }

  void zoomAndFit() {
    auto program = demoAfterPasses();
    GraphView view;
    view.resize(800, 600);
    view.show();
    QVERIFY(showMethod(view, program, 0));
    const double before = view.zoomLevel();
    view.zoomIn();
    QVERIFY(view.zoomLevel() > before);
    // The keyboard does the same (Ctrl+= in, Ctrl+- out).
    view.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&view));
    view.canvas()->setFocus();
    const double beforeKey = view.zoomLevel();
    QTest::keyClick(view.canvas(), Qt::Key_Equal, Qt::ControlModifier);
    QVERIFY(view.zoomLevel() > beforeKey);
    QTest::keyClick(view.canvas(), Qt::Key_Minus, Qt::ControlModifier);
    QVERIFY(std::abs(view.zoomLevel() - beforeKey) < 1e-9);
    view.zoomOut();
    view.zoomOut();
    QVERIFY(view.zoomLevel() < before);
    view.fitToWindow();
    // Fit shows the whole graph (the scene has room for the overview besides).
    const QRectF visible = view.canvas()->mapToScene(view.canvas()->viewport()->rect()).boundingRect();
    const auto& b = view.currentLayout()->bounds;
    QVERIFY(visible.adjusted(-2, -2, 2, 2).contains(QRectF(b.x, b.y, b.width, b.height)));
    // An edited program, same method: the view stays where it was.
    view.zoomIn();
    const double kept = view.zoomLevel();
    QVERIFY(showMethod(view, demoAfterPasses(), 0));
    QCOMPARE(view.zoomLevel(), kept);
    QVERIFY(showMethod(view, program, 1));  // another method: its own initial view
    QVERIFY(view.zoomLevel() != kept);
  }

  void bigProgramOpensGroupsOnDemand() {
    auto program = largeAfterPasses(300);
    GraphView view;
    QVERIFY(showShown(view, program, QSize(1200, 900)));
    const auto* first = view.currentLayout();
    QVERIFY(first->model.has_groups);
    QVERIFY(first->model.nodes.size() <= 200);
    QVERIFY(view.grab().save(screenshotPath("graph-large-first.png")));
    for (size_t n = 0; n < first->model.nodes.size(); ++n) {
      if (first->model.nodes[n].kind != layout::NodeKind::Group) continue;
      view.canvas()->centerOn(first->nodes[n].center.x, first->nodes[n].center.y);
      break;
    }
    QVERIFY(view.grab().save(screenshotPath("graph-large-groups.png")));
    view.canvas()->resetTransform();
    view.canvas()->scale(0.2, 0.2);
    QVERIFY(view.grab().save(screenshotPath("graph-large-zoomed-out.png")));

    // Selecting an instruction hidden in a group opens it.
    const size_t last = first->model.instruction_count - 1;
    QVERIFY(!nodeOfInstruction(view, last));
    view.selectInstruction(last);
    QVERIFY(view.layoutPending());
    QVERIFY(waitForLayout(view));
    QCOMPARE(view.selectedInstruction(), std::optional<size_t>(last));

    // Double-click on a group opens it.
    const auto& model = view.currentLayout()->model;
    std::optional<size_t> group;
    for (size_t n = 0; n < model.nodes.size() && !group; ++n)
      if (model.nodes[n].kind == layout::NodeKind::Group) group = n;
    QVERIFY(group);
    const size_t before = model.nodes.size();
    const std::string key = model.nodes[*group].key;
    QTest::mouseDClick(view.canvas()->viewport(), Qt::LeftButton, {}, viewportPointOfNode(view, *group));
    QVERIFY(waitForLayout(view));
    QVERIFY(view.currentLayout()->model.nodes.size() > before);
    QVERIFY(!view.currentLayout()->model.findNode(key));

    // Find reaches into collapsed groups: every layer has a sigmoid (its silu).
    QVERIFY(view.find("sigmoid") > 1);
  }

  void expandAllLaysOutEverythingInStripes() {
    auto program = largeAfterPasses(100);  // 1,800 instructions: above the stripe threshold
    GraphView view;
    view.resize(1000, 800);
    view.show();
    QVERIFY(showMethod(view, program, 0));
    view.expandAll();
    QVERIFY(waitForLayout(view));
    const auto* all = view.currentLayout();
    QVERIFY(!all->model.has_groups);
    QCOMPARE(all->model.nodes.size(), size_t(1802));  // 100 layers x 18 instructions + input + output
    QVERIFY(all->regions.size() > 2);  // each stripe has its own device regions
    // Where the first stripe ends and the second begins.
    const auto& second = all->regions[2];
    view.canvas()->resetTransform();
    view.canvas()->scale(0.6, 0.6);
    view.canvas()->centerOn(second.rect.x + second.rect.width / 2, second.rect.y);
    QVERIFY(view.grab().save(screenshotPath("graph-large-stripes.png")));
    QCOMPARE(view.find("#1699"), 1);
    QCOMPARE(view.selectedInstruction(), std::optional<size_t>(1699));
  }

  void bigPictureGoesIntoTheSceneOverSeveralTurns() {
    auto program = largeAfterPasses(300);
    GraphView view;
    QVERIFY(showShown(view, program, QSize(900, 700)));
    // A slice of no time adds the fewest items a turn can (one clock reading,
    // 64 items), whatever the machine's speed: a 0.5 ms slice let a fast,
    // idle machine fill the 12,000 items in two turns.
    view.setSceneSlice(0.0);
    // What the scene holds at each turn of the event loop until the full
    // layout is announced.
    std::vector<qsizetype> seen;
    bool finished = false;
    connect(&view, &GraphView::layoutFinished, this, [&] { finished = true; });
    QTimer turns;
    turns.setInterval(0);
    connect(&turns, &QTimer::timeout, this, [&] { seen.push_back(view.scene()->items().size()); });
    const qsizetype before = view.scene()->items().size();  // the picture of the initial view
    view.expandAll();  // 5,100 nodes and their edges
    turns.start();
    QElapsedTimer clock;
    clock.start();
    while (!finished && clock.elapsed() < 60000) QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
    turns.stop();
    QVERIFY(finished);
    QVERIFY(!view.layoutPending());
    const auto* shown = view.currentLayout();
    QVERIFY(shown && shown->nodes.size() > 5000);
    const qsizetype all = qsizetype(shown->nodes.size() + shown->edges.size() + shown->regions.size());
    QCOMPARE(view.scene()->items().size(), all);
    // Some turns saw part of the new picture: neither empty nor whole.
    std::set<qsizetype> partial;
    for (qsizetype n : seen)
      if (n > 0 && n < all && n != before) partial.insert(n);
    QVERIFY2(partial.size() >= 2, qPrintable(QString("%1 partial turns of %2").arg(partial.size()).arg(seen.size())));
    QVERIFY(view.find("native_layer_norm") > 0);  // the whole picture is usable
  }

  void cancelKeepsThePreviousPicture() {
    auto program = largeAfterPasses(300);
    GraphView view;
    QVERIFY(showShown(view, program, QSize(900, 700)));
    const auto* shown = view.currentLayout();
    QSignalSpy cancelled(&view, &GraphView::layoutCancelled);
    view.expandAll();  // 5,100 nodes: several stripes
    QVERIFY(view.layoutPending());
    view.cancelLayout();
    QVERIFY(cancelled.wait(60000));
    QVERIFY(!view.layoutPending());
    QCOMPARE(view.currentLayout(), shown);
    QVERIFY(view.find("native_layer_norm") > 0);  // still usable
  }

  void cancelledNewProgramKeepsTheOldPictureInert() {
    // The picture of one program stays when the layout of the next one (an
    // edit) is cancelled; selections in the new numbering must neither crash
    // nor light up a wrong node, and the next program still shows.
    auto program = largeAfterPasses(300);
    GraphView view;
    QVERIFY(showShown(view, program, QSize(900, 700)));
    QVERIFY(view.pictureIsCurrent());
    const auto* shown = view.currentLayout();
    auto edited = std::make_shared<const program::Program>(*program);  // another snapshot
    QSignalSpy cancelled(&view, &GraphView::layoutCancelled);
    view.setMethod(edited, 0);
    view.cancelLayout();
    QVERIFY(cancelled.wait(60000));
    QCOMPARE(view.currentLayout(), shown);
    QVERIFY(!view.pictureIsCurrent());
    const size_t last = shown->model.instruction_count - 1;  // inside a collapsed group
    view.selectInstruction(last);
    view.selectValue(0);
    view.expandGroup(0);
    view.expandAll();  // lays out the current program again
    QVERIFY(waitForLayout(view));
    QVERIFY(view.pictureIsCurrent());
    view.selectInstruction(last);
    QVERIFY(waitForLayout(view));
    QCOMPARE(view.selectedInstruction(), std::optional<size_t>(last));
    // Clearing while a layout runs: the picture does not come back.
    view.setMethod(program, 0);
    view.clear();
    QTest::qWait(200);
    QApplication::processEvents();
    QVERIFY(!view.currentLayout());
  }

  void emptyMethodShowsAMessage() {
    auto program = std::make_shared<program::Program>();
    program->methods().emplace_back().name = "nothing";
    GraphView view;
    QVERIFY(showMethod(view, program, 0));
    QVERIFY(view.currentLayout()->model.nodes.empty());
    bool message = false;
    for (auto* item : view.scene()->items()) message = message || item->type() == QGraphicsSimpleTextItem::Type;
    QVERIFY(message);
    QCOMPARE(view.find("x"), 0);
    view.setMethod(program, 5);  // out of range: nothing shown, no crash
    QVERIFY(!view.currentLayout());
  }

  void overlayColoursCopiesByMeasurement() {
    auto program = demoAfterPasses();
    GraphView view;
    view.resize(1000, 900);
    view.show();
    QVERIFY(showMethod(view, program, methodIndex(*program, "forward")));
    const auto& model = view.currentLayout()->model;
    // Made-up measurements, one per copy, the later the slower.
    std::vector<GraphView::CopyMeasurement> measured;
    for (const auto& node : model.nodes)
      if ((node.kind == layout::NodeKind::CopyH2D || node.kind == layout::NodeKind::CopyD2H) && node.instruction)
        measured.push_back({*node.instruction, 1e-5 * double(measured.size() + 1), 0, 1000000});
    QVERIFY(measured.size() >= 2);
    view.setMeasurements(measured);
    QVERIFY(view.hasMeasurements());
    // Placement colours until a metric is chosen.
    for (const auto& m : measured) QVERIFY(!nodeItem(view, *nodeOfInstruction(view, m.instruction))->overlay());

    view.setOverlayMetric(GraphView::OverlayMetric::Time);
    std::vector<QColor> colours;
    for (const auto& m : measured) {
      auto* item = nodeItem(view, *nodeOfInstruction(view, m.instruction));
      QVERIFY(item->overlay());
      // 10 µs, 20 µs, ...: the label is the measurement.
      QVERIFY2(item->overlay()->text.contains(QString::number(std::lround(m.seconds * 1e6))), qPrintable(item->overlay()->text));
      colours.push_back(item->overlay()->colour);
    }
    // Cheapest green, costliest red.
    QVERIFY(colours.front().green() > colours.front().red());
    QVERIFY(colours.back().red() > colours.back().green());
    // The edges leaving each copy carry its colour.
    size_t coloured = 0;
    for (auto* item : view.scene()->items())
      if (auto* e = qgraphicsitem_cast<ui::GraphEdgeItem*>(item); e && e->overlay()) {
        const auto& from = model.nodes[e->edge().from];
        QVERIFY(from.kind == layout::NodeKind::CopyH2D || from.kind == layout::NodeKind::CopyD2H);
        ++coloured;
      }
    QVERIFY(coloured >= measured.size());

    // Bandwidth: the same bytes in more time is the costly end, so the
    // colours stay in the same order.
    for (auto& m : measured) m.gbps = double(m.bytes) / m.seconds / 1e9;
    view.setMeasurements(measured);
    view.setOverlayMetric(GraphView::OverlayMetric::Bandwidth);
    auto* slowest = nodeItem(view, *nodeOfInstruction(view, measured.back().instruction));
    QVERIFY(slowest->overlay()->text.contains("GB/s"));
    QVERIFY(slowest->overlay()->colour.red() > slowest->overlay()->colour.green());
    const QImage shot = view.grab().toImage();
    shot.save(screenshotPath("graph-overlay.png"));

    view.setOverlayMetric(GraphView::OverlayMetric::Placement);
    QVERIFY(!slowest->overlay());
  }

  void samplesShowAndReadWell() {
    PTESCOPE_REQUIRE_SAMPLES();
    const auto stories = test::loadOrFail(test::samplePath("stories260k-qnn-multimethod.pte"));
    auto program = std::make_shared<const program::Program>(stories.program);
    GraphView view;
    view.resize(1400, 900);
    view.show();
    QVERIFY(showMethod(view, program, methodIndex(*program, "prefill_forward")));
    QVERIFY(view.grab().save(screenshotPath("graph-stories260k-prefill.png")));
    QCOMPARE(view.find("QnnBackend"), 1);
    QVERIFY(showMethod(view, program, methodIndex(*program, "get_vocab_size")));
    QCOMPARE(view.currentLayout()->model.nodes.size(), size_t(2));  // the constant and the output
    QVERIFY(view.grab().save(screenshotPath("graph-stories260k-constant.png")));

    const auto consts = test::loadOrFail(test::samplePath("const-methods.pte"));
    auto constProgram = std::make_shared<const program::Program>(consts.program);
    for (int m = 0; m < int(constProgram->methods().size()); ++m) QVERIFY(showMethod(view, constProgram, m));
  }
};

QTEST_MAIN(GraphViewTest)
#include "test_graph_view.moc"
