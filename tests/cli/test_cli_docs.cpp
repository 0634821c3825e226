// The generated ptescope-cli(1) page and bash completion against what the
// program itself accepts: every subcommand `--help` lists, and every option
// each subcommand's `--help` shows, is in both; man renders the page
// without a warning; the completion completes in a real bash.
#include <QtTest>

#include <QProcess>
#include <QRegularExpression>
#include <QSet>

#include "support/TestSupport.h"

using ptescope::test::runCli;
using ptescope::test::runProcess;

namespace {

// The subcommand names of a CLI11 help text: the lines under "Subcommands:".
QStringList subcommandsInHelp(const QByteArray& help) {
  QStringList names;
  bool inList = false;
  for (const auto& line : QString::fromUtf8(help).split('\n')) {
    if (line.startsWith("Subcommands:")) {
      inList = true;
      continue;
    }
    if (!inList) continue;
    static const QRegularExpression entry("^  ([a-z][a-z0-9-]*)\\s");
    const auto m = entry.match(line);
    if (m.hasMatch()) names << m.captured(1);
  }
  return names;
}

// Every "--long" and "-s" option named at the start of a help line.
QSet<QString> optionsInHelp(const QByteArray& help) {
  QSet<QString> names;
  static const QRegularExpression entry("^  (-[^ ].*?)(\\s{2,}|$)");
  static const QRegularExpression name("(--?[A-Za-z0-9][A-Za-z0-9-]*)");
  for (const auto& line : QString::fromUtf8(help).split('\n')) {
    const auto m = entry.match(line);
    if (!m.hasMatch()) continue;
    for (const auto& n : name.globalMatch(m.captured(1))) names << n.captured(1);
  }
  return names;
}

QString roff(QString text) { return text.replace("-", "\\-"); }

QStringList complete(const QString& script, const QStringList& words) {
  QString command = "source \"$1\"; COMP_WORDS=(";
  for (const auto& w : words) command += "'" + w + "' ";
  command += QString("); COMP_CWORD=%1; _ptescope_cli; printf '%s\\n' \"${COMPREPLY[@]}\"").arg(words.size() - 1);
  auto r = runProcess("bash", {"-c", command, "bash", script});
  QStringList lines = QString::fromUtf8(r.out).split('\n', Qt::SkipEmptyParts);
  lines.sort();
  return lines;
}

}  // namespace

class CliDocsTest : public QObject {
  Q_OBJECT

  QString man_;
  QString manPath_;
  QString completionPath_;
  QStringList subcommands_;

 private slots:
  void initTestCase() {
    auto help = runCli({"--help"});
    QCOMPARE(help.exitCode, 0);
    subcommands_ = subcommandsInHelp(help.out);
    // The ones this project has had from the start, so an empty parse of
    // the help text cannot pass.
    for (const char* known : {"info", "dump", "export", "synth", "propagate", "diff", "lint"})
      QVERIFY2(subcommands_.contains(known), qPrintable(subcommands_.join(',')));

    auto man = runCli({"--generate-man"});
    QCOMPARE(man.exitCode, 0);
    QVERIFY(man.err.isEmpty());
    man_ = QString::fromUtf8(man.out);
    manPath_ = ptescope::test::tempDir() + "/ptescope-cli.1";
    ptescope::test::writeAll(manPath_, std::vector<uint8_t>(man.out.begin(), man.out.end()));

    auto completion = runCli({"--generate-completion", "bash"});
    QCOMPARE(completion.exitCode, 0);
    completionPath_ = ptescope::test::tempDir() + "/ptescope-cli.bash";
    ptescope::test::writeAll(completionPath_, std::vector<uint8_t>(completion.out.begin(), completion.out.end()));
  }

  void manPageHasEverySubcommandAndOption() {
    QVERIFY(man_.startsWith(".\\\""));
    QVERIFY(man_.contains(".TH \"PTESCOPE\\-CLI\" \"1\" \"\" \"ptescope " PTESCOPE_VERSION "\""));
    QVERIFY(man_.contains(".SH NAME\nptescope\\-cli \\- "));
    for (const auto& sub : subcommands_) {
      const int at = man_.indexOf(".SS \"ptescope\\-cli " + roff(sub) + "\"\n");
      QVERIFY2(at >= 0, qPrintable(sub));
      const int next = man_.indexOf(".SS ", at + 4);
      const QString section = man_.mid(at, next < 0 ? -1 : next - at);
      auto help = runCli({sub, "--help"});
      QCOMPARE(help.exitCode, 0);
      const auto options = optionsInHelp(help.out);
      QVERIFY2(options.contains("--help"), qPrintable(sub));
      for (const auto& option : options)
        QVERIFY2(section.contains("\\fB" + roff(option) + "\\fR"), qPrintable(sub + " " + option));
    }
    QVERIFY(man_.contains(".SH \"EXIT STATUS\""));
    QVERIFY(man_.contains(".BR ptescope (1)"));
  }

  void manRendersWithoutWarnings() {
    QProcess man;
    auto env = QProcessEnvironment::systemEnvironment();
    env.insert("MANWIDTH", "80");
    env.insert("LC_ALL", "C.UTF-8");
    man.setProcessEnvironment(env);
    man.start("man", {"--warnings", "-l", manPath_});
    QVERIFY2(man.waitForStarted(), "man (man-db, see scripts/setup-deps.sh) is needed");
    QVERIFY(man.waitForFinished(60000));
    QCOMPARE(man.exitCode(), 0);
    const QByteArray warnings = man.readAllStandardError();
    QVERIFY2(warnings.isEmpty(), warnings.constData());
    const QString text = QString::fromUtf8(man.readAllStandardOutput());
    QVERIFY(text.contains("ptescope-cli info [OPTIONS] FILE"));
    QVERIFY(text.contains("EXIT STATUS"));
  }

  void completionCompletesSubcommandsOptionsAndChoices() {
    QStringList expected = subcommands_;
    expected.sort();
    QCOMPARE(complete(completionPath_, {"ptescope-cli", ""}), expected);
    QCOMPARE(complete(completionPath_, {"ptescope-cli", "--v"}), QStringList({"--version"}));
    QCOMPARE(complete(completionPath_, {"ptescope-cli", "info", "--"}),
             QStringList({"--graph", "--help", "--json", "--ptd"}));
    QCOMPARE(complete(completionPath_, {"ptescope-cli", "export", "x.pte", "--o"}), QStringList({"--output"}));
    QCOMPARE(complete(completionPath_, {"ptescope-cli", "profile", "--runtime", ""}), QStringList({"cuda", "host"}));
    // Each subcommand's options, as its --help shows them.
    for (const auto& sub : subcommands_) {
      auto help = runCli({sub, "--help"});
      QStringList options = optionsInHelp(help.out).values();
      options.sort();
      QStringList got = complete(completionPath_, {"ptescope-cli", sub, "-"});
      QCOMPARE(got, options);
    }
  }

  void generatorsAreHiddenAndCheckTheirArgument() {
    QVERIFY(!runCli({"--help"}).out.contains("generate"));
    ptescope::test::expectOneLineCliError(runCli({"--generate-completion", "fish"}));
    ptescope::test::expectOneLineCliError(runCli({"--generate-completion"}));
  }
};

QTEST_GUILESS_MAIN(CliDocsTest)
#include "test_cli_docs.moc"
