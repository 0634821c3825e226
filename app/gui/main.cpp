// ptescope: the desktop app. Argument parsing and wiring only.
#include <QApplication>
#include <QBuffer>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QMessageBox>
#include <QTimer>

#include "ui/graph/GraphView.h"

#include <cstdio>
#include <optional>

#include "GuiCommandLine.h"

#include "runner/ExternalRunner.h"
#include "ui/document/Document.h"
#include "ui/profile/LinkSelection.h"
#include "ui/window/MainWindow.h"
#include "ui/panels/OutputsPanel.h"
#include "util/MappedFile.h"
#include "util/Utf8.h"

namespace {

// One line on stderr, "ptescope: <text>": a text may quote a name from the
// file (a method name with a newline), printed through printableLine.
void say(const QString& text) { std::fprintf(stderr, "ptescope: %s\n", ptescope::printableLine(text.toStdString()).c_str()); }

}  // namespace

int main(int argc, char** argv) {
  QApplication::setApplicationName("ptescope");
  QApplication::setOrganizationName("ptescope");
  QApplication::setApplicationVersion(PTESCOPE_VERSION);
  // The option definitions live in GuiCommandLine (ptescope(1) is written from them).
  const ptescope::gui::GuiOptions options;
  if (auto status = ptescope::gui::handleBeforeWindowSystem(argc, argv, options)) return *status;
  std::optional<ptescope::gui::PlatformStartGuard> guard(std::in_place);
  QApplication app(argc, argv);
  guard.reset();

  QCommandLineParser parser;
  ptescope::gui::addOptions(parser, options);
  const QCommandLineOption& screenshot = options.screenshot;
  const QCommandLineOption& method = options.method;
  const QCommandLineOption& tab = options.tab;
  const QCommandLineOption& profile = options.profile;
  const QCommandLineOption& exportProfile = options.exportProfile;
  const QCommandLineOption& overlay = options.overlay;
  const QCommandLineOption& etdump = options.etdump;
  const QCommandLineOption& link = options.link;
  const QCommandLineOption& runOnce = options.runOnce;
  const QCommandLineOption& focus = options.focus;
  const QCommandLineOption& zoom = options.zoom;
  parser.process(app);
  // A screenshot run is not interactive: no message box may wait for a
  // click (errors go to the status bar and to stderr).
  if (parser.isSet(screenshot)) qputenv("PTESCOPE_NO_DIALOGS", "1");

  ptescope::ui::Document document;
  ptescope::ui::MainWindow window(&document);
  const QStringList files = parser.positionalArguments();
  // With no file the demo opens, so a new user sees the point at once.
  QString fileError;
  const QString file = files.isEmpty() ? QString() : ptescope::ui::programForFile(files.first(), &fileError);
  if (!fileError.isEmpty()) {
    say(fileError);
    if (parser.isSet(screenshot)) return 2;
  }
  const bool opened = files.isEmpty() ? window.openDemo() : !file.isEmpty() && window.openFile(file);
  if (opened && parser.isSet(method) && !window.showMethod(parser.value(method))) {
    say(window.lastError());
    if (parser.isSet(screenshot)) return 2;
  }
  for (const QString& trace : parser.values(etdump)) {
    if (opened && window.importEtdump(trace)) continue;
    say(window.lastError());
    if (parser.isSet(screenshot)) return 2;
  }
  if (parser.isSet(tab) && !window.showPanel(parser.value(tab))) {
    say(window.lastError());
    if (parser.isSet(screenshot)) return 2;
  }
  if (parser.isSet(link) && !window.linkSelection()->selectByName(parser.value(link))) {
    if (auto status = window.linkSelection()->loadFile(parser.value(link)); !status) {
      say(QString::fromStdString("--link: " + status.error().message));
      return 2;
    }
  }
  if (parser.isSet(options.runner) && !parser.isSet(profile)) {
    say(QStringLiteral("--runner names the runner --profile uses: add --profile"));
    return 2;
  }
  if (parser.isSet(overlay)) {
    const QString mode = parser.value(overlay).toLower();
    using Metric = ptescope::ui::GraphView::OverlayMetric;
    if (mode != "placement" && mode != "time" && mode != "bandwidth") {
      say(QStringLiteral("--overlay takes placement, time or bandwidth, not '%1'").arg(mode));
      return 2;
    }
    const Metric metric = mode == "time" ? Metric::Time : mode == "bandwidth" ? Metric::Bandwidth : Metric::Placement;
    // Applied once there are measurements (the profile ends by choosing
    // copy time when nothing else was asked for).
    QObject::connect(window.profileSession(), &ptescope::ui::ProfileSession::finished, &window,
                     [&window, metric] { window.setOverlayMetric(metric); });
  }
  window.show();
  if (!fileError.isEmpty() && !parser.isSet(screenshot))
    QTimer::singleShot(0, &window, [&window, fileError] { QMessageBox::warning(&window, "Cannot open program", fileError); });
  // A profile that fails in the background (no GPU, out of memory, bad
  // inputs) makes a scripted run fail too.
  QString profileError;
  QObject::connect(window.profileSession(), &ptescope::ui::ProfileSession::failed, &window,
                   [&profileError](const QString& message) { profileError = message; });
  if (opened && parser.isSet(profile)) {
    ptescope::ui::ProfileRequest request;
    request.method = document.currentMethodIndex();
    // The runner is checked as the dialog checks it (its --help lists
    // --model_path and --etdump_path) before anything runs.
    QString runnerError;
    if (parser.isSet(options.runner)) {
      auto path = ptescope::runner::runnerPath(parser.value(options.runner).toStdString());
      ptescope::Status usable = path ? ptescope::runner::checkRunner(path.value()) : ptescope::Status(path.error());
      if (usable) request.runner = QString::fromStdString(path.value());
      else runnerError = QString::fromStdString(usable.error().message);
    }
    if (!runnerError.isEmpty()) {
      say(QStringLiteral("profile failed: ") + runnerError);
      if (parser.isSet(screenshot)) return 2;
    } else if (!window.startProfile(request)) {
      say(window.lastError());
      if (parser.isSet(screenshot)) return 2;
    }
  }

  if (opened && parser.isSet(runOnce)) {
    window.showPanel("outputs");
    if (!window.outputsPanel()->runOnce()) {
      say(window.outputsPanel()->lastError());
      if (parser.isSet(screenshot)) return 2;
    }
  }

  if (parser.isSet(screenshot)) {
    if (!opened) {
      say(window.lastError());
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
      const bool busy = window.graph()->layoutPending() || window.profileSession()->isRunning() ||
                        window.outputsPanel()->isRunning();
      if (busy && waited.elapsed() < 60000) return;
      poll.stop();
      if (!profileError.isEmpty()) {
        say(QStringLiteral("profile failed: ") + profileError);
        status = 2;
      }
      if (parser.isSet(exportProfile) && profileError.isEmpty()) {
        const QString path = parser.value(exportProfile);
        const auto format = ptescope::ui::ProfileSession::formatForPath(path);
        if (!window.profileSession()->latest()) {
          say(QStringLiteral("no profile to export: ") +
              (window.lastError().isEmpty() ? QStringLiteral("the profile did not finish") : window.lastError()));
          status = 2;
        } else if (!format) {
          say(path + QStringLiteral(": name the profile .json, .trace.json or .csv"));
          status = 2;
        } else if (!window.exportProfileTo(path, *format)) {
          say(window.lastError());
          status = 2;
        }
      }
      // The tab asked for, over the one a finished profile chose.
      if (parser.isSet(tab)) window.showPanel(parser.value(tab));
      bool zoomOk = true;
      const double scale = parser.isSet(zoom) ? parser.value(zoom).toDouble(&zoomOk) : 1.0;
      if (!zoomOk || !(scale > 0)) {
        say(QStringLiteral("--zoom takes a positive number, not '%1'").arg(parser.value(zoom)));
        app.exit(2);
        return;
      }
      if (parser.isSet(focus)) {
        window.graph()->setZoomLevel(scale);
        if (window.graph()->find(parser.value(focus)) == 0) {
          say(QStringLiteral("--focus: nothing in the graph matches '%1'").arg(parser.value(focus)));
          status = 2;
        }
      } else if (parser.isSet(zoom)) {
        window.graph()->setZoomLevel(scale);
      } else {
        window.graph()->fitToWindow();
      }
      QApplication::processEvents();
      QByteArray png;
      QBuffer pngBuffer(&png);
      pngBuffer.open(QIODevice::WriteOnly);
      if (!window.grab().save(&pngBuffer, "PNG") ||
          !ptescope::writeFileAtomically(out.toStdString(), std::string_view(png.constData(), size_t(png.size())))) {
        say(QStringLiteral("cannot write screenshot ") + out);
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
