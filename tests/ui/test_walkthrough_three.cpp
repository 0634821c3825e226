// A third walkthrough of issue 34's classes on programs its fixes were not
// made with (a QNN-like call reading 24 inputs, a mixture-of-experts program
// with 31 segments): the first picture shows where the program starts, and
// the status bar and the Program tree show their texts whole at 1000×700.
#include <QtTest>

#include <QFile>
#include <QGraphicsView>
#include <QHeaderView>
#include <QTreeView>

#include "support/TestSupport.h"
#include "support/UiTestSupport.h"
#include "ui/common/ElidedLabel.h"
#include "ui/document/Document.h"
#include "ui/graph/GraphItems.h"
#include "ui/graph/GraphView.h"
#include "ui/window/MainWindow.h"

using namespace ptescope;

namespace {

// One call of a CPU backend (no target_device) that reads `inputs` method
// inputs, as a QNN or XNNPACK program's single delegate call does.
QString wideCall(const QString& name, int inputs) {
  QStringList names, tensors;
  for (int i = 0; i < inputs; ++i) {
    names << QString("\"i%1\"").arg(i);
    tensors << QString(R"("i%1": {"dtype": "float32", "sizes": [4]})").arg(i);
  }
  tensors << R"("y": {"dtype": "float32", "sizes": [4]})";
  const QString spec = QString(R"({"methods": [{"name": "forward", "inputs": [%1], "outputs": ["y"],
                                   "tensors": {%2},
                                   "nodes": [{"delegate": "QnnBackend", "blob": "q", "inputs": [%1], "outputs": ["y"]}]}]})")
                           .arg(names.join(", "), tensors.join(", "));
  const QString specPath = test::tempDir() + "/" + name + ".json";
  QFile file(specPath);
  if (!file.open(QIODevice::WriteOnly) || file.write(spec.toUtf8()) < 0) return QString();
  file.close();
  return test::synthProgram(name + ".pte", {specPath});
}

// The part of the canvas's viewport the node of `instruction` covers, in
// viewport pixels; empty when it is not drawn in sight.
QRect shownPart(const ui::GraphView& view, size_t instruction) {
  const auto node = view.currentLayout()->model.nodeOfInstruction(instruction);
  if (!node) return {};
  const auto* item = test::graphNodeItem(view, *node);
  if (item == nullptr) return {};
  const QRect onViewport = view.canvas()->mapFromScene(item->sceneBoundingRect()).boundingRect();
  return onViewport.intersected(view.canvas()->viewport()->rect());
}

// The two window sizes of the walkthrough, as a `size` column.
void addWindowSizes() {
  QTest::addColumn<QSize>("size");
  QTest::newRow("1000x700") << QSize(1000, 700);
  QTest::newRow("1600x1000") << QSize(1600, 1000);
}

}  // namespace

class WalkthroughThreeTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { qputenv("PTESCOPE_NO_DIALOGS", "1"); }

  // The first picture of a program too wide to show legibly starts at its
  // first instruction. It started at the topmost node: 24 method inputs in
  // a row, at 150%, and the one delegate call out of sight.
  void theFirstPictureShowsTheFirstInstruction_data() { addWindowSizes(); }
  void theFirstPictureShowsTheFirstInstruction() {
    QFETCH(QSize, size);
    const QString path = wideCall("wide-call", 24);
    QVERIFY(!path.isEmpty());
    test::ShownWindow w(size);
    QVERIFY(w.open(path));
    QCoreApplication::processEvents();
    const ui::GraphView& view = *w.window.graph();
    // Too wide to fit at a legible scale: the case the rule is for.
    const QRectF bounds = view.scene()->itemsBoundingRect();
    QVERIFY2(bounds.width() * view.zoomLevel() > view.canvas()->viewport()->width(),
             qPrintable(QString("the graph (%1 px wide at %2) fits; the program does not test the rule")
                            .arg(bounds.width()).arg(view.zoomLevel())));
    const QRect part = shownPart(view, 0);
    const auto node = view.currentLayout()->model.nodeOfInstruction(0);
    QVERIFY(node.has_value());
    const QRect whole = view.canvas()->mapFromScene(test::graphNodeItem(view, *node)->sceneBoundingRect()).boundingRect();
    QVERIFY2(part == whole, qPrintable(QString("instruction #0 is drawn at (%1,%2 %3x%4), the viewport is %5x%6")
                                           .arg(whole.x()).arg(whole.y()).arg(whole.width()).arg(whole.height())
                                           .arg(view.canvas()->viewport()->width()).arg(view.canvas()->viewport()->height())));
  }

  // The status bar's counts and GPU line are read whole at 1000 px; the
  // method's name kept half of the bar while they were cut ("0 …",
  // "GPU: none (profiling…").
  void theStatusBarShowsItsCountsWhole() {
    const QString path = test::synthProgram("moe-status.pte", {"--shape", "moe", "--layers", "3"});
    QVERIFY(!path.isEmpty());
    test::ShownWindow w({1000, 700});
    QVERIFY(w.open(path));
    QCoreApplication::processEvents();
    for (const char* name : {"countsStatus", "gpuStatus", "methodStatus"}) {
      auto* label = w.window.findChild<ui::ElidedLabel*>(name);
      QVERIFY2(label != nullptr, name);
      QVERIFY2(!label->text().isEmpty(), name);
      QVERIFY2(!label->isElided(), qPrintable(QString("%1 reads '%2' of '%3'").arg(name, label->shownText(), label->text())));
    }
  }

  // The empty window's Program tree shows its headers whole (the name
  // column was fitted to no rows and read "Prograr").
  void theEmptyProgramTreeShowsItsHeaders() {
    test::ShownWindow w({1000, 700});
    QCoreApplication::processEvents();
    auto* tree = w.window.findChild<QTreeView*>("programTree");
    QVERIFY(tree != nullptr);
    const QHeaderView* header = tree->header();
    for (int section = 0; section < 2; ++section) {
      const QString title = tree->model()->headerData(section, Qt::Horizontal).toString();
      QVERIFY(!title.isEmpty());
      const int needed = header->fontMetrics().horizontalAdvance(title) + 8;
      QVERIFY2(header->sectionSize(section) >= needed,
               qPrintable(QString("'%1' needs %2 px, has %3").arg(title).arg(needed).arg(header->sectionSize(section))));
    }
  }

  // A status message is read whole at 1000 px while it shows (the counts
  // give it their room, and come back with the file's name after it).
  void aStatusMessageIsReadWhole() {
    const QString path = test::synthProgram("moe-message.pte", {"--shape", "moe", "--layers", "3"});
    QVERIFY(!path.isEmpty());
    test::ShownWindow w({1000, 700});
    QVERIFY(w.open(path));
    const QString message = "Profiled forward · host emulation · pageable host memory · 20 iterations";
    w.window.showStatus(message);
    QCoreApplication::processEvents();
    auto* label = w.window.findChild<ui::ElidedLabel*>("statusMessage");
    QVERIFY(label != nullptr);
    QCOMPARE(label->text(), message);
    QVERIFY2(!label->isElided(), qPrintable(QString("the message reads '%1'").arg(label->shownText())));
    w.window.showStatus(QString());
    QCoreApplication::processEvents();
    auto* counts = w.window.findChild<ui::ElidedLabel*>("countsStatus");
    QVERIFY(counts->isVisible() && !counts->isElided());
  }

  // The Program tree's Details column (segment sizes and offsets, the
  // segment of each named data) ends inside the tree at both sizes (it was
  // cut at the dock's edge, "54 E", "seg", with no ellipsis: the names took
  // all the room); the names keep two thirds and a detail that does not
  // fit is elided; the segments' sizes are read whole.
  void theProgramTreeShowsItsDetailsWhole_data() { addWindowSizes(); }
  void theProgramTreeShowsItsDetailsWhole() {
    QFETCH(QSize, size);
    const QString path = test::synthProgram("moe-tree.pte", {"--shape", "moe", "--layers", "3"});
    QVERIFY(!path.isEmpty());
    test::ShownWindow w(size);
    QVERIFY(w.open(path));
    auto* tree = w.window.findChild<QTreeView*>("programTree");
    QVERIFY(tree != nullptr);
    tree->expandAll();
    QCoreApplication::processEvents();
    const QHeaderView* header = tree->header();
    // The column ends inside the viewport: nothing to scroll to.
    QVERIFY2(header->sectionViewportPosition(1) + header->sectionSize(1) <= tree->viewport()->width(),
             qPrintable(QString("Details ends at %1 px, the tree shows %2")
                            .arg(header->sectionViewportPosition(1) + header->sectionSize(1))
                            .arg(tree->viewport()->width())));
    // The names keep two thirds of the tree, or their own width.
    QVERIFY2(header->sectionSize(0) >= std::min(tree->viewport()->width() * 2 / 3 - 1, 150),
             qPrintable(QString("the names have %1 of %2 px").arg(header->sectionSize(0)).arg(tree->viewport()->width())));
    // The segments' details (their sizes; the offset is in the tooltip) fit
    // it (a cell's text has a few pixels of margin on each side).
    const auto* model = tree->model();
    int checked = 0;
    for (int row = 0; row < model->rowCount(); ++row) {
      const QModelIndex group = model->index(row, 0);
      if (group.data().toString() != "Segments") continue;
      for (int r = 0; r < model->rowCount(group); ++r, ++checked) {
        const QString text = model->index(r, 1, group).data().toString();
        const int width = tree->fontMetrics().horizontalAdvance(text) + 8;
        QVERIFY2(model->index(r, 0, group).data(Qt::ToolTipRole).toString().contains(" at +"),
                 qPrintable(model->index(r, 0, group).data(Qt::ToolTipRole).toString()));
        QVERIFY2(width <= header->sectionSize(1),
                 qPrintable(QString("'%1' needs %2 px, Details is %3").arg(text).arg(width).arg(header->sectionSize(1))));
      }
    }
    QVERIFY2(checked > 30, qPrintable(QString("%1 rows checked").arg(checked)));
  }
};

QTEST_MAIN(WalkthroughThreeTest)
#include "test_walkthrough_three.moc"
