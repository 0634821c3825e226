// ptescope: the desktop app. Argument parsing and wiring only.
#include <QApplication>
#include <QBuffer>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QTimer>

#include "ui/GraphView.h"

#include <cstdio>

#include "ui/Document.h"
#include "ui/MainWindow.h"
#include "util/MappedFile.h"

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
  QCommandLineOption tab("tab", "Show the bottom panel NAME (values, transfers, timeline, memory, diagnostics, changes).",
                         "NAME");
  parser.addOption(tab);
  QCommandLineOption profile("profile",
                             "Profile the method at start (on the GPU when one is present, else emulated on the host).");
  parser.addOption(profile);
  QCommandLineOption exportProfile("export-profile",
                                   "With --profile and --screenshot: write the profile to FILE (.json, .trace.json or .csv).",
                                   "FILE");
  parser.addOption(exportProfile);
  QCommandLineOption overlay("overlay", "Colour the graph's copies by MODE: placement, time or bandwidth.", "MODE");
  parser.addOption(overlay);
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
  if (parser.isSet(overlay)) {
    const QString mode = parser.value(overlay).toLower();
    using Metric = ptescope::ui::GraphView::OverlayMetric;
    if (mode != "placement" && mode != "time" && mode != "bandwidth") {
      std::fprintf(stderr, "ptescope: --overlay takes placement, time or bandwidth, not '%s'\n", qPrintable(mode));
      return 2;
    }
    const Metric metric = mode == "time" ? Metric::Time : mode == "bandwidth" ? Metric::Bandwidth : Metric::Placement;
    // Applied once there are measurements (the profile ends by choosing
    // copy time when nothing else was asked for).
    QObject::connect(window.profileSession(), &ptescope::ui::ProfileSession::finished, &window,
                     [&window, metric] { window.setOverlayMetric(metric); });
  }
  window.show();
  // A profile that fails in the background (no GPU, out of memory, bad
  // inputs) makes a scripted run fail too.
  QString profileError;
  QObject::connect(window.profileSession(), &ptescope::ui::ProfileSession::failed, &window,
                   [&profileError](const QString& message) { profileError = message; });
  if (opened && parser.isSet(profile)) {
    ptescope::ui::ProfileRequest request;
    request.method = document.currentMethodIndex();
    if (!window.startProfile(request)) {
      std::fprintf(stderr, "ptescope: %s\n", qPrintable(window.lastError()));
      if (parser.isSet(screenshot)) return 2;
    }
  }

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
      const bool busy = window.graph()->layoutPending() || window.profileSession()->isRunning();
      if (busy && waited.elapsed() < 60000) return;
      poll.stop();
      if (!profileError.isEmpty()) {
        std::fprintf(stderr, "ptescope: profile failed: %s\n", qPrintable(profileError));
        status = 2;
      }
      if (parser.isSet(exportProfile) && profileError.isEmpty()) {
        const QString path = parser.value(exportProfile);
        const auto format = ptescope::ui::ProfileSession::formatForPath(path);
        if (!window.profileSession()->latest()) {
          std::fprintf(stderr, "ptescope: no profile to export: %s\n",
                       qPrintable(window.lastError().isEmpty() ? QStringLiteral("the profile did not finish") : window.lastError()));
          status = 2;
        } else if (!format) {
          std::fprintf(stderr, "ptescope: %s: name the profile .json, .trace.json or .csv\n", qPrintable(path));
          status = 2;
        } else if (!window.exportProfileTo(path, *format)) {
          std::fprintf(stderr, "ptescope: %s\n", qPrintable(window.lastError()));
          status = 2;
        }
      }
      // The tab asked for, over the one a finished profile chose.
      if (parser.isSet(tab)) window.showPanel(parser.value(tab));
      window.graph()->fitToWindow();
      QApplication::processEvents();
      QByteArray png;
      QBuffer pngBuffer(&png);
      pngBuffer.open(QIODevice::WriteOnly);
      if (!window.grab().save(&pngBuffer, "PNG") ||
          !ptescope::writeFileAtomically(out.toStdString(), std::string_view(png.constData(), size_t(png.size())))) {
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
