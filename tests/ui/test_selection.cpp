// ui::Selection: one methodChanged per open, switch and edit (so the item
// models rebuild once per edit), a publish made while the selection is being
// told is ignored (no loops), and the main window's views follow it and
// publish to it exactly once per pick.
#include <QtTest>

#include <QTableView>
#include <QTreeWidget>
#include <QUndoStack>

#include "support/TestSupport.h"
#include "support/UiTestSupport.h"
#include "ui/document/Document.h"
#include "ui/graph/GraphView.h"
#include "ui/common/ItemRoles.h"
#include "ui/window/MainWindow.h"
#include "ui/panels/MemoryPlanView.h"
#include "ui/panels/PropertiesPanel.h"
#include "ui/document/Selection.h"
#include "ui/profile/TransfersModel.h"
#include "ui/panels/ValuesModel.h"

using namespace ptescope;
using ui::Selection;

namespace {

// The current row's data under `role` in a table, or -1.
qlonglong currentOf(QTableView* view, int role) {
  const QModelIndex index = view->currentIndex();
  return index.isValid() ? index.data(role).toLongLong() : -1;
}

// A copy instruction of the current method, as the Transfers panel lists it.
size_t someCopy(ui::MainWindow& window, int row = 0) {
  return size_t(window.transfersView()->model()->index(row, 0).data(ui::InstructionRole).toULongLong());
}

// The main window on the demo, shown, with its graph laid out.
struct DemoWindow {
  ui::Document doc;
  ui::MainWindow window{&doc};
  bool open() {
    window.resize(1400, 900);
    window.show();
    return window.openDemo() && test::waitForGraph(window.graph());
  }
};

}  // namespace

class SelectionTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    qputenv("PTESCOPE_NO_DIALOGS", "1");
    qRegisterMetaType<const QObject*>();
    qRegisterMetaType<size_t>();
  }

  void oneMethodChangePerOpenSwitchAndEdit() {
    ui::Document doc;
    Selection selection(&doc);
    ui::ValuesModel values(&doc);
    ui::TransfersModel transfers(&doc);
    QSignalSpy method(&selection, &Selection::methodChanged);
    QSignalSpy valueResets(&values, &QAbstractItemModel::modelReset);
    QSignalSpy transferResets(&transfers, &QAbstractItemModel::modelReset);

    QVERIFY(doc.openDemo());
    QCOMPARE(method.count(), 1);
    QCOMPARE(method[0][0].toInt(), doc.currentMethodIndex());
    QCOMPARE(method[0][1].toBool(), true);
    QCOMPARE(valueResets.count(), 1);
    QCOMPARE(transferResets.count(), 1);

    // A switch: once, not a new program, and the selection starts empty.
    QVERIFY(selection.selectValue(0));
    const int other = doc.currentMethodIndex() == 0 ? 1 : 0;
    selection.selectMethod(other);
    QCOMPARE(method.count(), 2);
    QCOMPARE(method[1][0].toInt(), other);
    QCOMPARE(method[1][1].toBool(), false);
    QVERIFY(!selection.value());
    QCOMPARE(selection.method(), other);
    QCOMPARE(valueResets.count(), 2);
    selection.selectMethod(other);  // already shown: nothing
    QCOMPARE(method.count(), 2);

    // An edit and its undo: one refresh each, of every model.
    auto options = doc.methodOptions(other);
    options.skip_h2d_for_method_inputs = !options.skip_h2d_for_method_inputs;
    doc.setMethodOptions(other, options);
    doc.waitForPipeline();
    QVERIFY2(doc.pipelineError().isEmpty(), qPrintable(doc.pipelineError()));
    QCOMPARE(method.count(), 3);
    QCOMPARE(method[2][1].toBool(), true);
    QCOMPARE(valueResets.count(), 3);
    QCOMPARE(transferResets.count(), 3);
    doc.undoStack()->undo();
    doc.waitForPipeline();
    QCOMPARE(method.count(), 4);
    QCOMPARE(valueResets.count(), 4);
    QCOMPARE(transferResets.count(), 4);
  }

  void publishingDoesNotLoop() {
    ui::Document doc;
    Selection selection(&doc);
    QVERIFY(doc.openDemo());
    QSignalSpy values(&selection, &Selection::valueSelected);
    QSignalSpy instructions(&selection, &Selection::instructionSelected);
    // A follower that publishes back, as a table does when following sets
    // its current row and the row change reports a pick.
    bool refusedInside = false;
    connect(&selection, &Selection::valueSelected, this, [&](int32_t v, const QObject*) {
      refusedInside = !selection.selectValue(v + 1, this) && !selection.selectInstruction(0, this) && selection.publishing();
    });
    QVERIFY(selection.selectValue(2));
    QVERIFY(refusedInside);
    QCOMPARE(values.count(), 1);
    QCOMPARE(instructions.count(), 0);
    QCOMPARE(selection.value(), std::optional<int32_t>(2));
    QVERIFY(!selection.publishing());
    // Once told, publishing works again; the source travels with the signal.
    QVERIFY(selection.selectInstruction(3, &doc));
    QCOMPARE(instructions.count(), 1);
    QCOMPARE(instructions[0][0].value<size_t>(), size_t(3));
    QCOMPARE(instructions[0][1].value<const QObject*>(), static_cast<const QObject*>(&doc));
    QCOMPARE(selection.instruction(), std::optional<size_t>(3));
    QVERIFY(!selection.value());
    QVERIFY(selection.clear());
    QVERIFY(!selection.instruction() && !selection.value());
  }

  void viewsFollowTheSelection() {
    DemoWindow shown;
    QVERIFY(shown.open());
    ui::Document& doc = shown.doc;
    ui::MainWindow& window = shown.window;
    Selection* selection = window.selection();
    QSignalSpy values(selection, &Selection::valueSelected);
    QSignalSpy instructions(selection, &Selection::instructionSelected);

    QVERIFY(selection->selectValue(1));
    QCOMPARE(values.count(), 1);
    QCOMPARE(instructions.count(), 0);
    QCOMPARE(currentOf(window.valuesView(), ui::ValueIndexRole), 1);
    QCOMPARE(window.properties()->topLevelItem(0)->text(1), QString("%1"));
    QCOMPARE(window.graph()->selectedValue(), std::optional<int32_t>(1));
    QCOMPARE(window.memoryPlan()->selectedValue(), 1);

    const size_t copy = someCopy(window, 1);
    QVERIFY(selection->selectInstruction(copy));
    QCOMPARE(instructions.count(), 1);
    QCOMPARE(values.count(), 1);
    QCOMPARE(size_t(currentOf(window.transfersView(), ui::InstructionRole)), copy);
    QCOMPARE(window.properties()->topLevelItem(0)->text(1), QString::number(copy));
    QCOMPARE(window.graph()->selectedInstruction(), std::optional<size_t>(copy));
    QCOMPARE(window.memoryPlan()->selectedValue(), -1);

    // Another method: every view starts without a selection.
    const QString other = QString::fromStdString(doc.program().methods()[doc.currentMethodIndex() == 0 ? 1 : 0].displayName());
    QVERIFY(window.showMethod(other));
    QVERIFY(!selection->instruction() && !selection->value());
    QCOMPARE(window.properties()->topLevelItem(0)->text(0), QString("Method"));
    QCOMPARE(window.properties()->topLevelItem(0)->text(1), other);
    QCOMPARE(window.memoryPlan()->selectedValue(), -1);
  }

  void viewsPublishOncePerPick() {
    DemoWindow shown;
    QVERIFY(shown.open());
    ui::MainWindow& window = shown.window;
    Selection* selection = window.selection();
    QSignalSpy values(selection, &Selection::valueSelected);
    QSignalSpy instructions(selection, &Selection::instructionSelected);

    // The values table: a new current row publishes once, from the table;
    // the graph and the properties follow.
    auto* valuesModel = window.valuesView()->model();
    QModelIndex row;
    for (int r = 0; r < valuesModel->rowCount() && !row.isValid(); ++r)
      if (valuesModel->index(r, 0).data(ui::ValueIndexRole).toInt() == 2) row = valuesModel->index(r, 0);
    QVERIFY(row.isValid());
    window.valuesView()->setCurrentIndex(row);
    QCOMPARE(values.count(), 1);
    QCOMPARE(values[0][1].value<const QObject*>(), static_cast<const QObject*>(window.valuesView()));
    QCOMPARE(selection->value(), std::optional<int32_t>(2));
    QCOMPARE(window.graph()->selectedValue(), std::optional<int32_t>(2));
    QCOMPARE(window.properties()->topLevelItem(0)->text(1), QString("%2"));

    // The graph: Find selects as a click does; the Transfers row follows,
    // and setting it does not publish again.
    const size_t copy = someCopy(window);
    QVERIFY(window.graph()->find(QString("#%1").arg(copy)) >= 1);
    QCOMPARE(instructions.count(), 1);
    QCOMPARE(instructions[0][1].value<const QObject*>(), static_cast<const QObject*>(window.graph()));
    QCOMPARE(selection->instruction(), std::optional<size_t>(copy));
    QCOMPARE(size_t(currentOf(window.transfersView(), ui::InstructionRole)), copy);
    QCOMPARE(values.count(), 1);

    // The memory plan: a click on a block publishes its value once.
    emit window.memoryPlan()->valueClicked(3);
    QCOMPARE(values.count(), 2);
    QCOMPARE(currentOf(window.valuesView(), ui::ValueIndexRole), 3);
    QCOMPARE(window.graph()->selectedValue(), std::optional<int32_t>(3));
    QCOMPARE(window.memoryPlan()->selectedValue(), 3);
    QCOMPARE(instructions.count(), 1);

    // The graph's background click clears the selection.
    emit window.graph()->selectionCleared();
    QVERIFY(!selection->value() && !selection->instruction());
    QCOMPARE(window.memoryPlan()->selectedValue(), -1);
  }
};

QTEST_MAIN(SelectionTest)
#include "test_selection.moc"
