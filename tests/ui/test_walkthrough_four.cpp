// A fourth walkthrough of issue 34's classes, by someone who did not write
// the fixes, on programs they were not made with (an llm of 40 layers found
// with Find, an imported ETDump, a program whose method has '&' in its name,
// the profile dialog at 1000×700): what a panel shows is what is selected,
// a column no row fills is hidden, and a check box's text is read whole.
#include <QtTest>

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QGraphicsView>
#include <QLabel>
#include <QRegularExpression>
#include <QTableView>
#include <QTreeView>
#include <QTreeWidget>

#include "etdump/EtdumpWriter.h"
#include "pte/Writer.h"
#include "support/TestSupport.h"
#include "support/UiTestSupport.h"
#include "synth/JsonSpec.h"
#include "synth/Scenarios.h"
#include "ui/common/AccessibleNames.h"
#include "ui/document/Document.h"
#include "ui/graph/GraphView.h"
#include "ui/panels/PropertiesPanel.h"
#include "ui/profile/ProfileDialog.h"
#include "ui/profile/TransfersModel.h"
#include "ui/window/MainWindow.h"

using namespace ptescope;
using layout::NodeKind;

namespace {

// The centre of `node` in the canvas's viewport, after bringing it in sight.
QPoint viewportPointOfNode(const ui::GraphView& view, size_t node) {
  const auto& g = view.currentLayout()->nodes[node];
  view.canvas()->centerOn(g.center.x, g.center.y);
  return view.canvas()->mapFromScene(QPointF(g.center.x, g.center.y));
}

// The first node of `kind` in the picture (a value node when `valued`).
std::optional<size_t> firstNode(const ui::GraphView& view, NodeKind kind, bool valued = false) {
  const auto& nodes = view.currentLayout()->model.nodes;
  for (size_t n = 0; n < nodes.size(); ++n)
    if (nodes[n].kind == kind && (!valued || nodes[n].value >= 0)) return n;
  return std::nullopt;
}

QString writeSpec(const QString& name, const QString& json) {
  const QString path = test::tempDir() + "/" + name + ".json";
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly) || file.write(json.toUtf8()) < 0) return QString();
  file.close();
  return path;
}

}  // namespace

class WalkthroughFourTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { qputenv("PTESCOPE_NO_DIALOGS", "1"); }

  // A group (a collapsed layer) is neither an instruction nor a value:
  // selecting it leaves Properties with the method, not with what was
  // selected before. Find "layer 12" passed "layer 1" on the way, which
  // selected the tensor layers.1...k_cache; the group "layer 12" then showed
  // that tensor's properties.
  void aGroupLeavesNoOtherSelectionInProperties() {
    const QString path = test::synthProgram("llm-groups.pte", {"--shape", "llm", "--layers", "8"});
    QVERIFY(!path.isEmpty());
    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(path));
    const ui::GraphView& view = *w.window.graph();
    const auto input = firstNode(view, NodeKind::Input, true);
    const auto group = firstNode(view, NodeKind::Group);
    QVERIFY2(input && group, "the llm opens with a method input and a layer group in its picture");
    auto* viewport = view.canvas()->viewport();
    const QTreeWidget* properties = w.window.properties();

    QTest::mouseClick(viewport, Qt::LeftButton, {}, viewportPointOfNode(view, *input));
    const int32_t value = view.currentLayout()->model.nodes[*input].value;
    QCOMPARE(properties->topLevelItem(0)->text(1), QString("%%1").arg(value));

    QTest::mouseClick(viewport, Qt::LeftButton, {}, viewportPointOfNode(view, *group));
    QVERIFY(!view.selectedInstruction() && !view.selectedValue());
    // The method's overview, as with nothing selected (its first row names the method).
    QCOMPARE(properties->topLevelItem(0)->text(0), QString("Method"));
    QCOMPARE(properties->topLevelItem(0)->text(1), QString::fromStdString(w.doc.currentMethod()->displayName()));
    // Then the group's own facts: its name and its instructions, the range
    // its node's tool tip gives ("layer 0: instructions 3–40").
    const auto& node = view.currentLayout()->model.nodes[*group];
    const auto range = QRegularExpression(QString::fromUtf8("instructions (\\d+)\u2013(\\d+)"))
                           .match(QString::fromStdString(node.tooltip));
    QVERIFY2(range.hasMatch(), node.tooltip.c_str());
    const int first = range.captured(1).toInt(), last = range.captured(2).toInt();
    QCOMPARE(properties->topLevelItem(1)->text(0), QString("Group"));
    QCOMPARE(properties->topLevelItem(1)->text(1), QString::fromStdString(node.title));
    QCOMPARE(properties->topLevelItem(2)->text(0), QString("Instructions"));
    QCOMPARE(properties->topLevelItem(2)->text(1),
             QString::fromUtf8("#%1\u2013#%2 (%3)").arg(first).arg(last).arg(last - first + 1));
    // The copies and the others add up to the count.
    int counted = 0;
    for (int i = 3; i < properties->topLevelItemCount(); ++i) {
      const QString key = properties->topLevelItem(i)->text(0), text = properties->topLevelItem(i)->text(1);
      if (key == "Copies" && text != "none")
        for (const auto& m : QRegularExpression("(\\d+) (h2d|d2h)").globalMatch(text)) counted += m.captured(1).toInt();
      if (key == "The others run")
        for (const auto& m : QRegularExpression("(\\d+) on ").globalMatch(text)) counted += m.captured(1).toInt();
    }
    QCOMPARE(counted, last - first + 1);
  }

  // An imported ETDump has no link peak: "% of peak" would be "—" on every
  // row, so it is hidden as for an emulated profile; its measured over
  // predicted ratio has numbers and stays.
  void anEtdumpHidesTheShareOfPeakNoRowHas() {
    const QString pte = test::tempDir() + "/demo-etdump.pte";
    const QString etdp = test::tempDir() + "/demo-etdump.etdp";
    auto program = synth::applyDevicePasses(synth::synthesizeDemo().value());
    QVERIFY(program);
    QVERIFY(pte::writeProgramFile(program.value(), pte.toStdString()).ok());
    etdump::TraceSpec spec;
    spec.method = "forward";
    test::writeAll(etdp, etdump::serializeEtdump(etdump::synthesizeEtdump(program.value(), spec).value()));

    test::ShownWindow w({1600, 1000});
    QVERIFY(w.open(pte));
    QVERIFY(w.window.showMethod("forward"));
    QVERIFY(w.window.importEtdump(etdp));
    QTableView* view = w.window.transfersView();
    QVERIFY(view->model()->rowCount() > 0);
    for (int row = 0; row < view->model()->rowCount(); ++row)
      QCOMPARE(view->model()->index(row, ui::TransfersModel::PeakShare).data().toString(), QStringLiteral("—"));
    QVERIFY(view->isColumnHidden(ui::TransfersModel::PeakShare));
    QVERIFY(!view->isColumnHidden(ui::TransfersModel::MeasuredOverPredicted));
    QVERIFY(!view->isColumnHidden(ui::TransfersModel::MedianTime));
  }

  // The profile dialog's CUDA graph replay reads as the toggle beside the
  // link does ("CUDA graph replay in METHOD", the method's '&' shown as
  // such) and is read whole in a dialog 2/3 of a 1000 px screen wide: its
  // one long line ran past the dialog's right edge ("...device-to-de").
  void theProfileDialogShowsItsCudaGraphToggleWhole() {
    const QString spec = writeSpec("k-and-v", R"({"methods": [{"name": "k&v", "inputs": ["a"], "outputs": ["b"],
        "tensors": {"a": {"dtype": "float32", "sizes": [4]}, "b": {"dtype": "float32", "sizes": [4]}},
        "nodes": [{"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:0"}, "blob": "p",
                   "inputs": ["a"], "outputs": ["b"]}]}]})");
    const QString path = test::synthProgram("k-and-v.pte", {spec});
    QVERIFY(!path.isEmpty());
    test::ShownWindow w({1000, 700});
    QVERIFY(w.open(path));
    // Beside the link, the same words.
    auto* link = w.window.findChild<QCheckBox*>("cudaGraph");
    QVERIFY(link);
    QCOMPARE(ui::withoutMnemonic(link->text()), QString("CUDA graph replay in k&v"));

    ui::ProfileDialog dialog(w.doc.program(), 0, &w.window);
    auto* toggle = dialog.findChild<QCheckBox*>("cudaGraph");
    QVERIFY(toggle);
    QCOMPARE(ui::withoutMnemonic(toggle->text()), QString("CUDA graph replay in k&v"));
    // Shown at its narrowest (560 px: a dialog gets 2/3 of the screen, 533 px
    // of the offscreen 800), every wrapped hint has the lines it needs (the
    // inputs' hint ran under Memory budget).
    dialog.show();
    QCoreApplication::processEvents();
    for (const QLabel* label : dialog.findChildren<QLabel*>()) {
      if (!label->isVisible() || !label->wordWrap() || label->text().isEmpty()) continue;
      QVERIFY2(label->height() >= label->heightForWidth(label->width()),
               qPrintable(QString("'%1' needs %2 px at %3 px wide, has %4")
                              .arg(label->text().left(40)).arg(label->heightForWidth(label->width()))
                              .arg(label->width()).arg(label->height())));
    }
    dialog.resize(1000 * 2 / 3, dialog.height());
    QCoreApplication::processEvents();
    QVERIFY2(dialog.width() <= 1000 * 2 / 3, qPrintable(QString("the dialog is %1 px wide").arg(dialog.width())));
    const int right = toggle->mapTo(&dialog, QPoint(0, 0)).x() + toggle->sizeHint().width();
    QVERIFY2(toggle->width() >= toggle->sizeHint().width() && right <= dialog.width(),
             qPrintable(QString("'%1' needs %2 px, has %3, ends at %4 of %5")
                            .arg(toggle->text()).arg(toggle->sizeHint().width()).arg(toggle->width())
                            .arg(right).arg(dialog.width())));
  }

  // Ten methods whose names differ only in their middle (a QNN llm's
  // "get_kv_output_0_quant_attr" .. "_9_") read apart in the Program tree
  // at both sizes: elided in the middle at the width the names got, the
  // nine that are not the current method (shown bold) were drawn alike,
  // "get_kv_ou…uant_attr". Compared as drawn: the rows' pixels.
  void namesThatDifferInTheirMiddleReadApart_data() {
    QTest::addColumn<QSize>("size");
    QTest::newRow("1000x700") << QSize(1000, 700);
    QTest::newRow("1600x1000") << QSize(1600, 1000);
  }
  void namesThatDifferInTheirMiddleReadApart() {
    QFETCH(QSize, size);
    QStringList methods;
    for (int k = 0; k < 10; ++k)
      methods << QString(R"({"name": "get_kv_output_%1_quant_attr", "inputs": ["a"], "outputs": ["b"],
          "tensors": {"a": {"dtype": "float32", "sizes": [4]}, "b": {"dtype": "float32", "sizes": [4]}},
          "nodes": [{"op": "aten::relu.out", "inputs": ["a"], "outputs": ["b"]}]})").arg(k);
    const QString spec = writeSpec("quant-attr", QString(R"({"methods": [%1]})").arg(methods.join(", ")));
    const QString path = test::synthProgram("quant-attr.pte", {spec});
    QVERIFY(!path.isEmpty());
    test::ShownWindow w(size);
    QVERIFY(w.open(path));
    auto* tree = w.window.findChild<QTreeView*>("programTree");
    QVERIFY(tree != nullptr);
    QCoreApplication::processEvents();
    const QModelIndex methodsRow = tree->model()->index(0, 0);
    QCOMPARE(methodsRow.data().toString(), QString("Methods"));
    QVERIFY(tree->isExpanded(methodsRow));
    QCOMPARE(tree->model()->rowCount(methodsRow), 10);
    const QImage shown = tree->viewport()->grab().toImage();
    std::vector<std::pair<QString, QImage>> cells;
    for (int r = 1; r < 10; ++r) {  // row 0 is the current method, drawn bold
      const QModelIndex index = tree->model()->index(r, 0, methodsRow);
      const QRect cell = tree->visualRect(index);
      QVERIFY2(!cell.isEmpty() && shown.rect().contains(cell), qPrintable(index.data().toString()));
      const qreal ratio = shown.devicePixelRatio();
      cells.emplace_back(index.data().toString(),
                         shown.copy(QRect((cell.topLeft() * ratio), cell.size() * ratio)));
    }
    for (size_t i = 0; i < cells.size(); ++i)
      for (size_t j = i + 1; j < cells.size(); ++j)
        QVERIFY2(cells[i].second != cells[j].second,
                 qPrintable(QString("'%1' and '%2' are drawn alike at %3 px for names")
                                .arg(cells[i].first, cells[j].first).arg(tree->header()->sectionSize(0))));
  }

  // The Values table's fourth column holds a tensor's sizes and a scalar's
  // value: its header says both (a pipeline's Int 1, Double 1e-05 and Bool
  // false read as shapes under "Sizes").
  void theValuesHeaderNamesScalarValues() {
    const QString path = test::synthProgram("pipeline-values.pte", {"--shape", "pipeline", "--layers", "4"});
    QVERIFY(!path.isEmpty());
    test::ShownWindow w({1000, 700});
    QVERIFY(w.open(path));
    auto* model = w.window.findChild<QTableView*>("valuesView")->model();
    QVERIFY(model);
    int column = -1;
    for (int c = 0; c < model->columnCount(); ++c)
      if (model->headerData(c, Qt::Horizontal).toString() == "Sizes / value") column = c;
    QVERIFY2(column >= 0, "no column 'Sizes / value'");
    QVERIFY(model->headerData(column, Qt::Horizontal, Qt::ToolTipRole).toString().contains("Int"));
    // The pipeline's Int literals show their value under that header.
    QStringList kinds;
    for (int r = 0; r < model->rowCount(); ++r)
      if (model->index(r, 1).data().toString() == "Int" && !model->index(r, column).data().toString().isEmpty())
        kinds << model->index(r, column).data().toString();
    QVERIFY2(!kinds.isEmpty(), "no Int row shows its value");
  }
};

QTEST_MAIN(WalkthroughFourTest)
#include "test_walkthrough_four.moc"
