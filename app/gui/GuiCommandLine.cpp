#include "GuiCommandLine.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QDir>
#include <QStringList>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "report/CommandDocs.h"

namespace ptescope::gui {
namespace {

const char* const kDescription = "Inspect, edit and profile ExecuTorch programs that run partly on a GPU";
const char* const kHowToRun =
    "ptescope: no display to open a window on (DISPLAY/WAYLAND_DISPLAY unset); run it in a desktop session,"
    " or headless as QT_QPA_PLATFORM=offscreen ptescope --screenshot OUT.png [FILE]";

QCommandLineOption hidden(QCommandLineOption option) {
  option.setFlags(QCommandLineOption::HiddenFromHelp);
  return option;
}

report::OptionDoc optionDoc(const QCommandLineOption& option) {
  report::OptionDoc doc;
  for (const auto& name : option.names()) doc.names.push_back((name.size() == 1 ? "-" : "--") + name.toStdString());
  doc.value_name = option.valueName().toStdString();
  doc.description = option.description().toStdString();
  const QString text = option.description().toLower();
  doc.takes_path = text.contains("file") || text.contains("path");
  return doc;
}

report::CommandDoc commandDoc(const GuiOptions& options, const BuiltInOptions& builtIn) {
  report::CommandDoc doc;
  doc.name = "ptescope";
  doc.summary = "inspect, edit and profile ExecuTorch programs that run partly on a GPU";
  doc.description =
      "ptescope is a desktop app for ExecuTorch programs (.pte). It shows a program's graph with every "
      "tensor and instruction placed on the CPU or a device, re-runs ExecuTorch's device passes with other "
      "options, writes the edited program, and profiles every host/device copy on a GPU (emulated on the "
      "host without one).\n\n"
      "With no FILE the embedded demo program opens. With --screenshot the app saves a grab of its window "
      "once the graph is laid out (and the profile, if asked for, has finished) and exits; it needs no "
      "display then.";
  report::OptionDoc file;
  file.value_name = "FILE";
  file.description = "Program (.pte) to open";
  doc.positionals.push_back(file);
  doc.options.push_back(optionDoc(builtIn.help));
  doc.options.push_back(optionDoc(builtIn.version));
  for (const auto& option : options.all()) doc.options.push_back(optionDoc(option));
  return doc;
}

report::ManPageInfo manInfo() {
  report::ManPageInfo info;
  info.source = std::string("ptescope ") + PTESCOPE_VERSION;
  info.extra_sections = {
      {"Environment",
       "QT_QPA_PLATFORM: the Qt platform; offscreen runs without a display (for --screenshot).\n\n"
       "DISPLAY, WAYLAND_DISPLAY: the display to open the window on. With neither set and no --screenshot, "
       "ptescope says how to run it and exits with status 2.\n\n"
       "PTESCOPE_NO_DIALOGS: when set, errors go to the status bar instead of message boxes.\n\n"
       "Qt's own options (-platform, -style, ...) are listed by --help-all."},
      {"Exit status",
       "0 when the window was closed or the screenshot written. 2 when a --screenshot run failed (the "
       "program, method, panel or profile asked for, or the file to write), or when there is no display; "
       "the reason is one line on standard error starting with \"ptescope:\"."},
  };
  info.see_also = {"ptescope-cli(1)"};
  return info;
}

bool envSet(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0';
}

// The platform asked for on the command line (-platform NAME), else in
// QT_QPA_PLATFORM; empty when Qt chooses.
std::string requestedPlatform(int argc, char** argv) {
  for (int i = 1; i + 1 < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-platform" || arg == "--platform") return argv[i + 1];
  }
  const char* env = std::getenv("QT_QPA_PLATFORM");
  return env ? env : "";
}

bool hasDisplay(int argc, char** argv, const std::string& platform) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "-display" || std::string(argv[i]) == "--display") return true;
  // The first platform of a "a;b" list is the one tried first.
  const std::string first = platform.substr(0, platform.find(';'));
  if (first.rfind("xcb", 0) == 0) return envSet("DISPLAY");
  if (first.rfind("wayland", 0) == 0) return envSet("WAYLAND_DISPLAY");
  if (!first.empty()) return true;  // offscreen, minimal, eglfs, vnc, ...: no display server needed
  return envSet("DISPLAY") || envSet("WAYLAND_DISPLAY");
}

// ---- the platform start guard ----
QtMessageHandler previousHandler = nullptr;
struct HeldMessage {
  QtMsgType type;
  std::string category, file, function;
  int line;
  QString text;
};
std::vector<HeldMessage>* heldMessages = nullptr;

void guardHandler(QtMsgType type, const QMessageLogContext& context, const QString& text) {
  if (type == QtFatalMsg) {
    // Qt's reason is the warning just before ("could not connect to display :5").
    QString reason;
    for (const auto& m : *heldMessages)
      if (m.type != QtDebugMsg && m.type != QtInfoMsg) reason = m.text;
    if (reason.isEmpty()) reason = text.section('\n', 0, 0);
    std::fprintf(stderr,
                 "ptescope: cannot start the window system (%s); run it in a desktop session, or headless as "
                 "QT_QPA_PLATFORM=offscreen ptescope --screenshot OUT.png [FILE]\n",
                 qPrintable(reason.simplified()));
    std::fflush(stderr);
    std::_Exit(2);
  }
  heldMessages->push_back({type, context.category ? context.category : "", context.file ? context.file : "",
                           context.function ? context.function : "", context.line, text});
}

}  // namespace

GuiOptions::GuiOptions()
    : screenshot("screenshot", "Save a grab of the window to FILE (PNG) and exit.", "FILE"),
      method("method", "Show method NAME.", "NAME"),
      tab("tab", "Show the bottom panel NAME (values, transfers, timeline, memory, diagnostics, changes, advisor, info, outputs).", "NAME"),
      profile("profile", "Profile the method at start (on the GPU when one is present, else emulated on the host)."),
      exportProfile("export-profile",
                    "With --profile and --screenshot: write the profile to FILE (.json, .trace.json or .csv).", "FILE"),
      runner("runner",
             "With --profile: profile on your own ExecuTorch runner PATH (upstream's executor_runner built with the "
             "event tracer; a name is looked up on PATH), as the Profile dialog's 'ExecuTorch runner...' does.",
             "PATH"),
      runOnce("run-once", "Run the method once at start and show its outputs (the Outputs panel)."),
      overlay("overlay", "Colour the graph's copies by MODE: placement, time or bandwidth.", "MODE"),
      etdump("etdump", "Import the ETDump FILE (.etdp) recorded on the program; twice to compare two.", "FILE"),
      link("link", "Predict copy times on LINK: a built-in link profile name or a file written by ptescope-cli probe-link.",
           "LINK"),
      focus("focus",
            "With --screenshot: find TEXT (as the graph's Find does: \"%12\", \"#40\", \"index_put\") and grab the part "
            "of the graph around the first match instead of the whole graph.",
            "TEXT"),
      zoom("zoom", "With --screenshot: the graph's scale (1 = one point per pixel; default: fit, or 1 with --focus).",
           "SCALE"),
      generateMan(hidden(QCommandLineOption("generate-man", "Print the ptescope(1) manual page (roff) and exit."))) {}

QList<QCommandLineOption> GuiOptions::all() const {
  return {screenshot, method, tab, profile, exportProfile, runner, runOnce, overlay, etdump, link, focus, zoom};
}

BuiltInOptions addOptions(QCommandLineParser& parser, const GuiOptions& options) {
  parser.setApplicationDescription(kDescription);
  BuiltInOptions builtIn{parser.addHelpOption(), parser.addVersionOption()};
  parser.addOptions(options.all());
  parser.addOption(options.generateMan);
  parser.addPositionalArgument("FILE", "Program (.pte) to open");
  return builtIn;
}

std::optional<int> handleBeforeWindowSystem(int& argc, char** argv, const GuiOptions& options) {
  QStringList arguments;
  for (int i = 0; i < argc; ++i) arguments << QString::fromLocal8Bit(argv[i]);
  QCommandLineParser parser;
  const BuiltInOptions builtIn = addOptions(parser, options);
  // Qt's own options (-platform, -style) are unknown here: only the answers
  // that need no window are looked at, the full parse comes later.
  parser.parse(arguments);
  if (parser.isSet(builtIn.help) || parser.isSet(builtIn.version)) {
    QCoreApplication core(argc, argv);  // the help text names the program from it
    if (parser.isSet(builtIn.help)) parser.showHelp(0);
    parser.showVersion();
  }
  if (parser.isSet(options.generateMan)) {
    std::cout << report::manPage(commandDoc(options, builtIn), manInfo());
    return 0;
  }
  const std::string platform = requestedPlatform(argc, argv);
  if (hasDisplay(argc, argv, platform)) return std::nullopt;
  if (parser.isSet(options.screenshot) && platform.empty()) {
    // A grab needs no screen: the offscreen platform draws the same window.
    qputenv("QT_QPA_PLATFORM", "offscreen");
    return std::nullopt;
  }
  std::fprintf(stderr, "%s\n", kHowToRun);
  return 2;
}

PlatformStartGuard::PlatformStartGuard() {
  heldMessages = new std::vector<HeldMessage>;
  previousHandler = qInstallMessageHandler(guardHandler);
}

PlatformStartGuard::~PlatformStartGuard() {
  qInstallMessageHandler(previousHandler);
  for (const auto& m : *heldMessages) {
    const QMessageLogContext context(m.file.c_str(), m.line, m.function.c_str(), m.category.c_str());
    qt_message_output(m.type, context, m.text);
  }
  delete heldMessages;
  heldMessages = nullptr;
}

}  // namespace ptescope::gui
