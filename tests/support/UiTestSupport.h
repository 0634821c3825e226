// Helpers shared by the GUI suites (tests/ui): screenshots and waiting for
// the graph. Header-only, so that the core and CLI suites need no Qt Widgets.
#pragma once

#include <QFile>

#include <QGraphicsScene>
#include <QSignalSpy>
#include <QString>
#include <QWidget>

#include "support/TestSupport.h"
#include "ui/document/Document.h"
#include "ui/graph/GraphItems.h"
#include "ui/graph/GraphView.h"
#include "ui/profile/ProfileSession.h"
#include "ui/window/MainWindow.h"

namespace ptescope::test {

// Saves a grab of `widget` as <PTESCOPE_SCREENSHOT_DIR>/<name>.png when that
// variable is set (to look at the GUI a test drove); true when nothing was
// asked or the file was written.
inline bool saveScreenshot(QWidget& widget, const QString& name) {
  const QString dir = qEnvironmentVariable("PTESCOPE_SCREENSHOT_DIR");
  return dir.isEmpty() || widget.grab().save(dir + "/" + name + ".png");
}

// Waits (up to a minute) until the graph shows the picture of what it was
// last given; false when no picture came.
inline bool waitForGraph(ui::GraphView* view) {
  if (view->layoutPending()) {
    QSignalSpy finished(view, &ui::GraphView::layoutFinished);
    if (!finished.wait(60000)) return false;
  }
  return view->currentLayout() != nullptr && !view->layoutPending();
}

// The item that draws node `node` of the view's layout, or null.
inline ui::GraphNodeItem* graphNodeItem(const ui::GraphView& view, size_t node) {
  for (auto* item : view.scene()->items())
    if (auto* n = qgraphicsitem_cast<ui::GraphNodeItem*>(item); n && n->index() == node) return n;
  return nullptr;
}

// The demo program (`ptescope-cli synth --demo`) written as <tempDir>/<fileName>;
// empty when the CLI failed.
inline QString writeDemoProgram(const QString& fileName) {
  const QString path = tempDir() + "/" + fileName;
  return runCli({"synth", "--demo", "-o", path}).exitCode == 0 ? path : QString();
}

// `ptescope-cli synth ARGS -o <tempDir>/<fileName>`; empty when the CLI failed.
inline QString synthProgram(const QString& fileName, const QStringList& args) {
  const QString path = tempDir() + "/" + fileName;
  QStringList all{"synth"};
  all << args << "-o" << path;
  return runCli(all).exitCode == 0 ? path : QString();
}

// relu(x) on the CPU: a program without device memory or copies, written as
// <tempDir>/<name>.pte; empty when synth failed.
inline QString cpuOnlyProgram(const QString& name = QStringLiteral("cpu-only")) {
  const QString spec = tempDir() + "/" + name + ".json";
  QFile file(spec);
  if (!file.open(QIODevice::WriteOnly)) return QString();
  file.write(R"({"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["y"],
      "tensors": {"x": {"dtype": "float32", "sizes": [2, 3]}, "y": {"dtype": "float32", "sizes": [2, 3]}},
      "nodes": [{"op": "aten::relu.out", "inputs": ["x"], "outputs": ["y"]}]}]})");
  file.close();
  return synthProgram(name + ".pte", {spec});
}

// A main window on its own document, shown at `size` (the small screen by
// default); open() waits for the graph's picture.
struct ShownWindow {
  ui::Document doc;
  ui::MainWindow window{&doc};
  explicit ShownWindow(QSize size = {1000, 700}) {
    window.resize(size);
    window.show();
  }
  bool openDemo() { return window.openDemo() && waitForGraph(window.graph()); }
  bool open(const QString& path) { return window.openFile(path) && waitForGraph(window.graph()); }
};

// Shows `window` at 1400×900 with `path` open on `method`; false when the
// file or the method did not open.
inline bool showProgram(ui::MainWindow& window, const QString& path, const char* method) {
  window.resize(1400, 900);
  window.show();
  return window.openFile(path) && window.showMethod(method);
}

// Profiles `method` of the window's program on the host runtime
// (`iterations` measured after `warmup`) and waits for it; false when it
// did not start or end within a minute.
inline bool profileOnHost(ui::MainWindow& window, int method, size_t iterations = 3, size_t warmup = 1) {
  ui::ProfileRequest request;
  request.method = method;
  request.runtime = exec::RuntimePreference::Host;
  request.iterations = iterations;
  request.warmup = warmup;
  QSignalSpy finished(window.profileSession(), &ui::ProfileSession::finished);
  return window.startProfile(request) && finished.wait(60000);
}

}  // namespace ptescope::test
