// The app's CUDA-graph setting (issue 35 item 3): the toggle beside the link
// in the Transfers panel (LinkChooser, "CUDA graph replay in forward") and in
// the profile dialog set one per-method setting, LinkSelection::runSettings,
// which feeds what `--cuda-graph` feeds on the command line: the graph's
// marks of the copies inside delegates, Properties, the Advisor's and the
// report's options and Profile's emulation.
//
// Hand count: the demo's method `forward` (resources/demo.json) has two
// CudaBackend delegates, #1 x [1,64] float32 (256 B) -> hidden (256 B) and
// #6 activated (256 B) -> logits [1,16] float32 (64 B). With CUDA graphs
// on, each replay copies its input device-to-device into the graph's static
// buffer (cuda_backend.cpp 573-590) and its output back (600-610): four d2d
// copies, 256 + 256 + 256 + 64 = 832 B. `prefill` stays off: no copies.
#include <QtTest>

#include <QCheckBox>
#include <QComboBox>
#include <QRegularExpression>
#include <QTreeWidget>

#include <algorithm>
#include <functional>

#include "support/UiTestSupport.h"
#include "ui/panels/PropertiesPanel.h"
#include "ui/profile/LinkSelection.h"
#include "ui/profile/ProfileDialog.h"
#include "ui/profile/ProfileSession.h"

using namespace ptescope;

namespace {

// The graph's marks of copies inside delegates (edges), as badges.
std::vector<std::string> edgeMarks(const ui::GraphView& view) {
  std::vector<std::string> out;
  for (const auto& e : view.currentLayout()->model.edges)
    for (const auto& mark : e.inside_copies) out.push_back(mark.badge);
  std::sort(out.begin(), out.end());
  return out;
}

// Every row text of the Properties tree, "key: value".
QStringList propertyRows(const QTreeWidget& tree) {
  QStringList out;
  std::function<void(const QTreeWidgetItem*)> walk = [&](const QTreeWidgetItem* item) {
    out << item->text(0) + ": " + item->text(1);
    for (int i = 0; i < item->childCount(); ++i) walk(item->child(i));
  };
  for (int i = 0; i < tree.topLevelItemCount(); ++i) walk(tree.topLevelItem(i));
  return out;
}

}  // namespace

class CudaGraphSettingTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { qputenv("PTESCOPE_NO_DIALOGS", "1"); }

  void toggleFeedsTheGraphPropertiesAndProfile() {
    test::ShownWindow shown;
    QVERIFY(shown.openDemo());
    auto& window = shown.window;
    QVERIFY(window.showMethod("forward"));
    QVERIFY(test::waitForGraph(window.graph()));
    ui::LinkSelection* links = window.linkSelection();
    QCOMPARE(links->shownMethod(), QString("forward"));
    auto* toggle = window.findChild<QCheckBox*>("cudaGraph");
    QVERIFY(toggle);
    QCOMPARE(toggle->text(), QString("CUDA graph replay in forward"));
    QVERIFY(!toggle->isChecked());
    QVERIFY(edgeMarks(*window.graph()).empty());  // off: CudaBackend copies nothing inside

    toggle->click();
    QVERIFY(links->cudaGraph("forward"));
    QVERIFY(!links->cudaGraph("prefill"));
    QCOMPARE(links->runSettings().cuda_graph_methods, (std::set<std::string>{"forward"}));
    QVERIFY(test::waitForGraph(window.graph()));
    QCOMPARE(edgeMarks(*window.graph()),
             (std::vector<std::string>{"inside delegate 0: d2d 256 B (CUDA graph replay)",
                                       "inside delegate 0: d2d 256 B (CUDA graph replay)",
                                       "inside delegate 1: d2d 256 B (CUDA graph replay)",
                                       "inside delegate 1: d2d 64 B (CUDA graph replay)"}));
    QVERIFY(test::saveScreenshot(window, "cuda-graph-toggle"));

    // Properties of delegate call #1 lists its two replay copies and says
    // the setting makes them.
    window.selectInstruction(1);
    const QStringList rows = propertyRows(*window.properties());
    QVERIFY2(rows.contains("Copies inside delegate: no instruction: the backend copies (CUDA graph replay is on for "
                           "forward in the Transfers panel's settings, as --cuda-graph)"),
             qPrintable(rows.join('\n')));
    QCOMPARE(rows.filter(QRegularExpression("^d2d: inside delegate 0 \\(CudaBackend\\): .*256 B$")).size(), 2);

    // The other method has its own toggle, off.
    QVERIFY(window.showMethod("prefill"));
    QCOMPARE(toggle->text(), QString("CUDA graph replay in prefill"));
    QVERIFY(!toggle->isChecked());
    QVERIFY(test::waitForGraph(window.graph()));
    QVERIFY(edgeMarks(*window.graph()).empty());
    QVERIFY(window.showMethod("forward"));
    QVERIFY(toggle->isChecked());

    // Profile (host emulation) times the replay copies whatever the
    // request says: the setting is the one beside the link.
    QVERIFY(test::profileOnHost(window, shown.doc.currentMethodIndex(), 3, 0));
    const auto& run = *window.profileSession()->latest();
    QCOMPARE(run.profile->delegate_copies.size(), size_t(4));
    uint64_t bytes = 0;
    for (const auto& c : run.profile->delegate_copies) {
      QCOMPARE(c.transfer.direction, program::CopyDirection::DeviceToDevice);
      bytes += c.transfer.bytes;
    }
    QCOMPARE(bytes, uint64_t(832));
    QVERIFY2(run.label.contains("CUDA graph replay"), qPrintable(run.label));

    // Off again: the marks go.
    toggle->click();
    QVERIFY(!links->cudaGraph("forward"));
    QVERIFY(test::waitForGraph(window.graph()));
    QVERIFY(edgeMarks(*window.graph()).empty());
  }

  // The profile dialog shows the setting of the chosen method and gives it
  // back per method; the other methods' setting stays as given.
  void profileDialogTogglePerMethod() {
    test::ShownWindow shown;
    QVERIFY(shown.openDemo());
    const auto& program = shown.doc.program();
    ui::ProfileDialog dialog(program, 0, nullptr);
    auto* toggle = dialog.findChild<QCheckBox*>("cudaGraph");
    QVERIFY(toggle);
    ui::ProfileRequest request = dialog.request();
    QVERIFY(request.cudaGraphMethods.empty());
    const std::string first = program.methods()[0].displayName(), second = program.methods()[1].displayName();
    request.cudaGraphMethods = {second};
    dialog.setRequest(request);
    QVERIFY(!toggle->isChecked());  // method 0 is off
    auto* method = dialog.findChild<QComboBox*>("method");
    method->setCurrentIndex(1);
    QVERIFY(toggle->isChecked());  // method 1 is on
    toggle->click();               // off for method 1
    method->setCurrentIndex(0);
    toggle->click();               // on for method 0
    QCOMPARE(dialog.request().cudaGraphMethods, (std::set<std::string>{first}));
  }
};

QTEST_MAIN(CudaGraphSettingTest)
#include "test_cuda_graph_setting.moc"
