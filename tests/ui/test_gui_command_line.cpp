// The desktop app started as a user or a script would, with no display:
// --help and --version answer, a plain start says in one line how to run
// it (exit 2) instead of aborting in Qt, a --screenshot run works headless,
// a .ptd opens the program beside it, and ptescope(1) lists every option
// --help shows.
#include <QtTest>

#include <QDir>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>

#include "support/TestSupport.h"

using ptescope::test::ProcessResult;

namespace {

// Runs the app with no display: DISPLAY, WAYLAND_DISPLAY and
// QT_QPA_PLATFORM removed, `extra` added.
ProcessResult runHeadless(const QStringList& args, const QMap<QString, QString>& extra = {}) {
  QProcess process;
  auto env = QProcessEnvironment::systemEnvironment();
  for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}) env.remove(name);
  for (auto it = extra.begin(); it != extra.end(); ++it) env.insert(it.key(), it.value());
  env.insert("PTESCOPE_NO_DIALOGS", "1");
  process.setProcessEnvironment(env);
  process.start(QStringLiteral(PTESCOPE_GUI), args);
  ProcessResult r;
  if (!process.waitForStarted(30000) || !process.waitForFinished(120000)) {
    process.kill();
    process.waitForFinished();
    r.err = "did not finish";
    return r;
  }
  r.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -2;
  r.out = process.readAllStandardOutput();
  r.err = process.readAllStandardError();
  return r;
}

// Qt's own chatter on stderr (XDG_RUNTIME_DIR, plugin notes) is not ours.
QList<QByteArray> ptescopeLines(const QByteArray& err) {
  QList<QByteArray> lines;
  for (const auto& line : err.split('\n'))
    if (line.startsWith("ptescope:")) lines << line;
  return lines;
}

}  // namespace

class GuiCommandLineTest : public QObject {
  Q_OBJECT
 private slots:
  void helpAndVersionNeedNoDisplay() {
    auto help = runHeadless({"--help"});
    QCOMPARE(help.exitCode, 0);
    QVERIFY2(help.out.contains("--screenshot <FILE>"), help.out.constData());
    QVERIFY(help.out.contains("--overlay <MODE>"));
    QVERIFY(!help.out.contains("generate-man"));  // hidden, for the build
    auto version = runHeadless({"--version"});
    QCOMPARE(version.exitCode, 0);
    QCOMPARE(version.out.trimmed(), QByteArray("ptescope " PTESCOPE_VERSION));
  }

  void noDisplaySaysHowToRunIt() {
    auto r = runHeadless({});
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY2(r.err.startsWith("ptescope: no display"), r.err.constData());
    QVERIFY(r.err.contains("QT_QPA_PLATFORM=offscreen"));
    QVERIFY(r.out.isEmpty());
  }

  void aDisplayNobodyAnswersIsOneLineToo() {
    // No X server listens on display 417 (nor could it without this socket).
    QVERIFY(!QFile::exists("/tmp/.X11-unix/X417"));
    auto r = runHeadless({}, {{"DISPLAY", ":417"}});
    QCOMPARE(r.exitCode, 2);
    const auto lines = ptescopeLines(r.err);
    QCOMPARE(lines.size(), 1);
    QVERIFY2(lines.first().startsWith("ptescope: cannot start the window system ("), r.err.constData());
    QVERIFY(lines.first().contains(":417"));
    QVERIFY(lines.first().contains("QT_QPA_PLATFORM=offscreen"));
    // Qt's abort text is not passed on.
    QVERIFY2(!r.err.contains("This application failed to start"), r.err.constData());
  }

  void screenshotWorksWithNoDisplay() {
    const QString out = ptescope::test::tempDir() + "/headless.png";
    auto r = runHeadless({"--screenshot", out});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QImage image(out);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() > 400 && image.height() > 300);
  }

  void aDataFileOpensTheProgramBesideIt() {
    const QString ptd = ptescope::test::samplePath("external-constants.ptd");
    if (!QFile::exists(ptd)) QSKIP("the pte-samples folder is absent");
    const QString out = ptescope::test::tempDir() + "/from-ptd.png";
    auto r = runHeadless({"--screenshot", out, ptd});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(!QImage(out).isNull());
  }

  void aLoneDataFileSaysWhatToOpen() {
    const QString ptd = ptescope::test::tempDir() + "/weights.ptd";
    ptescope::test::writeAll(ptd, {0, 0, 0, 0, 'F', 'T', '0', '1', 0, 0, 0, 0});
    auto r = runHeadless({"--screenshot", ptescope::test::tempDir() + "/none.png", ptd});
    QCOMPARE(r.exitCode, 2);
    const auto lines = ptescopeLines(r.err);
    QCOMPARE(lines.size(), 1);
    QVERIFY2(lines.first().contains("weights.ptd holds external tensor data"), r.err.constData());
    QVERIFY(lines.first().contains("no weights.pte beside it"));
  }

  void manPageListsEveryOptionOfHelp() {
    auto help = runHeadless({"--help"});
    auto man = runHeadless({"--generate-man"});
    QCOMPARE(man.exitCode, 0);
    const QString page = QString::fromUtf8(man.out);
    QVERIFY(page.contains(".TH \"PTESCOPE\" \"1\""));
    QVERIFY(page.contains(".SH SYNOPSIS\n\\fBptescope\\fR [\\fIOPTIONS\\fR] [\\fIFILE\\fR]\n"));
    static const QRegularExpression option("^\\s+(?:-\\w, )?--([a-z][a-z-]*)", QRegularExpression::MultilineOption);
    int count = 0;
    for (const auto& m : option.globalMatch(QString::fromUtf8(help.out))) {
      QString name = m.captured(1);
      if (name == "help-all") continue;  // Qt's own options, pointed to in the page
      QVERIFY2(page.contains("\\fB\\-\\-" + name.replace("-", "\\-") + "\\fR"), qPrintable(m.captured(0)));
      ++count;
    }
    QVERIFY(count >= 8);  // help, version and the six of the app
  }
};

QTEST_MAIN(GuiCommandLineTest)
#include "test_gui_command_line.moc"
