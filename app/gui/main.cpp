// ptescope: the desktop app. Argument parsing and wiring only.
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QTimer>

#include "ui/GraphView.h"

#include <cstdio>

#include "ui/Document.h"
#include "ui/MainWindow.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("ptescope");
  QApplication::setOrganizationName("ptescope");
  QApplication::setApplicationVersion(PTESCOPE_VERSION);

  QCommandLineParser parser;
  parser.setApplicationDescription("Inspect, edit and profile ExecuTorch programs that run partly on a GPU");
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption screenshot("screenshot", "Save a grab of the window to FILE (PNG) and exit.", "FILE");
  parser.addOption(screenshot);
  QCommandLineOption method("method", "Show method NAME.", "NAME");
  parser.addOption(method);
  QCommandLineOption tab("tab", "Show the bottom panel NAME (values, transfers, memory, diagnostics, changes).", "NAME");
  parser.addOption(tab);
  parser.addPositionalArgument("FILE", "Program (.pte) to open");
  parser.process(app);

  ptescope::ui::Document document;
  ptescope::ui::MainWindow window(&document);
  const QStringList files = parser.positionalArguments();
  // With no file the demo opens, so a new user sees the point at once.
  const bool opened = files.isEmpty() ? window.openDemo() : window.openFile(files.first());
  if (opened && parser.isSet(method) && !window.showMethod(parser.value(method))) {
    std::fprintf(stderr, "ptescope: %s\n", qPrintable(window.lastError()));
    if (parser.isSet(screenshot)) return 2;
  }
  if (parser.isSet(tab) && !window.showPanel(parser.value(tab))) {
    std::fprintf(stderr, "ptescope: %s\n", qPrintable(window.lastError()));
    if (parser.isSet(screenshot)) return 2;
  }
  window.show();

  if (parser.isSet(screenshot)) {
    if (!opened) {
      std::fprintf(stderr, "ptescope: %s\n", qPrintable(window.lastError()));
      return 2;
    }
    const QString out = parser.value(screenshot);
    int status = 0;
    // Grab once the graph layout (off the UI thread) is done, or after 60 s.
    QElapsedTimer waited;
    waited.start();
    QTimer poll;
    poll.setInterval(100);
    QObject::connect(&poll, &QTimer::timeout, [&] {
      if (window.graph()->layoutPending() && waited.elapsed() < 60000) return;
      poll.stop();
      window.graph()->fitToWindow();
      QApplication::processEvents();
      if (!window.grab().save(out, "PNG")) {
        std::fprintf(stderr, "ptescope: cannot write screenshot %s\n", qPrintable(out));
        status = 2;
      }
      app.exit(status);
    });
    QTimer::singleShot(200, [&] { poll.start(); });
    app.exec();
    return status;
  }
  return app.exec();
}
