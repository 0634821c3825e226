// The desktop app's command line: its option definitions (the one list the
// parser, `--help` and the generated ptescope(1) page all read), and what it
// does before any window system is touched: --help, --version and the
// hidden --generate-man answer without a display, and with no display the
// app says in one line how to run it instead of aborting inside Qt.
#pragma once

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QList>
#include <QString>

#include <optional>

namespace ptescope::gui {

struct GuiOptions {
  QCommandLineOption screenshot;
  QCommandLineOption method;
  QCommandLineOption tab;
  QCommandLineOption profile;
  QCommandLineOption exportProfile;
  QCommandLineOption runner;
  QCommandLineOption runOnce;
  QCommandLineOption overlay;
  QCommandLineOption etdump;
  QCommandLineOption link;
  QCommandLineOption focus;
  QCommandLineOption zoom;
  // Add a new option above and to all(): ptescope(1) and --help follow.
  QCommandLineOption generateMan;  // hidden: for the build

  GuiOptions();
  // Every option in the order --help shows them.
  QList<QCommandLineOption> all() const;
};

// Sets up `parser` (description, help, version, every option, FILE).
// Returns the help and version options Qt made, for the man page.
struct BuiltInOptions {
  QCommandLineOption help;
  QCommandLineOption version;
};
BuiltInOptions addOptions(QCommandLineParser& parser, const GuiOptions& options);

// Runs before QApplication exists. Returns an exit status when the run is
// over (--help, --version, --generate-man, or no display to show a window
// on); otherwise nothing, after choosing the offscreen platform for a
// --screenshot run that has no display.
std::optional<int> handleBeforeWindowSystem(int& argc, char** argv, const GuiOptions& options);

// Guards QApplication's construction: a platform plugin that cannot start
// (a DISPLAY nobody answers, a missing plugin) ends the run with one line
// and exit status 2 instead of Qt's abort. Qt's messages meanwhile are
// held back and passed on once the guard ends.
class PlatformStartGuard {
 public:
  PlatformStartGuard();
  ~PlatformStartGuard();
  PlatformStartGuard(const PlatformStartGuard&) = delete;
  PlatformStartGuard& operator=(const PlatformStartGuard&) = delete;
};

}  // namespace ptescope::gui
