// The app shows a CUDA delegate's AOTI payload: the properties of a delegate
// instruction and the program tree list its named data, where it lives and
// how large it is.
#include <QtTest>

#include <QTreeWidget>

#include "support/TestSupport.h"
#include "ui/document/Document.h"
#include "ui/window/MainWindow.h"
#include "ui/panels/ProgramTreeModel.h"
#include "ui/panels/PropertiesPanel.h"

using namespace ptescope;

namespace {

QTreeWidgetItem* childRow(QTreeWidgetItem* parent, const QString& key) {
  for (int i = 0; i < parent->childCount(); ++i)
    if (parent->child(i)->text(0) == key) return parent->child(i);
  return nullptr;
}

QTreeWidgetItem* findTop(QTreeWidget* tree, const QString& key) {
  for (int i = 0; i < tree->topLevelItemCount(); ++i)
    if (tree->topLevelItem(i)->text(0) == key) return tree->topLevelItem(i);
  return nullptr;
}

}  // namespace

class DelegatePayloadUiTest : public QObject {
  Q_OBJECT

 private slots:
  void propertiesShowThePayload() {
    ui::Document doc;
    ui::MainWindow window(&doc);
    QVERIFY(window.openDemo());
    // The demo's forward method starts with an H2D copy, then its first delegate.
    const auto& instructions = program::items(program::items(doc.currentMethod()->chains)[0].instructions);
    size_t delegate = instructions.size();
    for (size_t k = 0; k < instructions.size(); ++k)
      if (instructions[k].kind() == program::InstructionKind::DelegateCall) {
        delegate = k;
        break;
      }
    QVERIFY(delegate < instructions.size());
    window.selectInstruction(delegate);
    auto* props = window.properties();
    auto* del = findTop(props, "Delegate");
    QVERIFY(del);
    QVERIFY(del->text(1).contains("CudaBackend"));
    auto* payload = childRow(del, "Payload");
    QVERIFY(payload);
    auto* so = childRow(payload, "so_blob");
    auto* weights = childRow(payload, "weights_blob");
    QVERIFY(so && weights);
    // len("ptescope demo AOTI shared object: forward encoder") == 49
    QVERIFY2(so->text(1).startsWith("program named data (segment") && so->text(1).endsWith(", 49 B"),
             qPrintable(so->text(1)));
    QCOMPARE(weights->text(1), QString("aoti_cuda_blob.ptd, 43 B"));
    QVERIFY(childRow(so, "Key")->text(1).endsWith("_so_blob"));
    QVERIFY(!childRow(payload, "Problem"));
  }

  void treeListsThePayload() {
    ui::Document doc;
    ui::ProgramTreeModel tree(&doc);
    QVERIFY(doc.openDemo());
    const QModelIndex methods = tree.index(0, 0);
    const QModelIndex forward = tree.index(0, 0, methods);
    QModelIndex delegates;
    for (int r = 0; r < tree.rowCount(forward); ++r)
      if (tree.index(r, 0, forward).data().toString() == "Delegates") delegates = tree.index(r, 0, forward);
    QVERIFY(delegates.isValid());
    const QModelIndex first = tree.index(0, 0, delegates);
    QStringList rows;
    for (int r = 0; r < tree.rowCount(first); ++r)
      rows << tree.index(r, 0, first).data().toString() + "=" + tree.index(r, 1, first).data().toString();
    // method_name, target_device, then the two named data entries.
    QCOMPARE(rows.size(), 4);
    QVERIFY2(rows[2].startsWith("so_blob=") && rows[2].contains("_so_blob — program named data"), qPrintable(rows[2]));
    QVERIFY2(rows[3].startsWith("weights_blob=") && rows[3].endsWith("aoti_cuda_blob.ptd, 43 B"), qPrintable(rows[3]));
  }
};

QTEST_MAIN(DelegatePayloadUiTest)
#include "test_delegate_payload_ui.moc"
