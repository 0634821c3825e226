// report::manPage and report::bashCompletion on a small hand-made command
// tree: roff escaping, the page's sections, and the completion script run
// in a real bash with the words a user would have typed.
#include <QtTest>

#include <QProcess>
#include <QTemporaryDir>

#include <string>

#include "report/CommandDocs.h"

using namespace ptescope::report;

namespace {

OptionDoc flag(std::vector<std::string> names, std::string text) {
  OptionDoc o;
  o.names = std::move(names);
  o.description = std::move(text);
  return o;
}

OptionDoc valued(std::vector<std::string> names, std::string value, std::string text) {
  OptionDoc o = flag(std::move(names), std::move(text));
  o.value_name = std::move(value);
  return o;
}

// tool [--verbose] {build FILE [-o FILE] [--mode fast|slow] [--jobs N] | remote {add NAME}}
CommandDoc sampleTool() {
  CommandDoc tool;
  tool.name = "my-tool";
  tool.summary = "do things";
  tool.description = ".starts with a dot\nsecond line\n\nnew paragraph with a back\\slash";
  tool.options = {flag({"-v", "--verbose"}, "Say more")};

  CommandDoc build;
  build.name = "build";
  build.summary = "Build a FILE";
  OptionDoc file;
  file.value_name = "FILE";
  file.description = "Input";
  file.required = true;
  build.positionals = {file};
  OptionDoc output = valued({"-o", "--output"}, "FILE", "Where to write");
  output.required = true;
  OptionDoc mode = valued({"--mode"}, "MODE", "How fast");
  mode.choices = {"fast", "slow"};
  OptionDoc jobs = valued({"--jobs"}, "N", "Parallel jobs");
  jobs.takes_path = false;
  build.options = {output, mode, jobs};

  CommandDoc remote;
  remote.name = "remote";
  remote.summary = "Manage remotes";
  CommandDoc add;
  add.name = "add";
  add.summary = "Add one";
  OptionDoc name;
  name.value_name = "NAME";
  name.description = "Its name";
  name.required = true;
  name.repeatable = true;
  add.positionals = {name};
  remote.subcommands = {add};

  tool.subcommands = {build, remote};
  return tool;
}

// Sources the script in bash, completes `words` (the last one is the word
// under the cursor) in `dir`, and returns COMPREPLY, one per line.
QStringList complete(const std::string& script, const QStringList& words, const QString& dir) {
  QString command = "source \"$1\"; COMP_WORDS=(";
  for (const auto& w : words) command += "'" + w + "' ";
  command += QString("); COMP_CWORD=%1; _my_tool; printf '%s\\n' \"${COMPREPLY[@]}\"").arg(words.size() - 1);
  const QString path = dir + "/completion.bash";
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return {"cannot write " + path};
  f.write(script.data(), qint64(script.size()));
  f.close();
  QProcess bash;
  bash.setWorkingDirectory(dir);
  bash.start("bash", {"-c", command, "bash", path});
  if (!bash.waitForFinished(30000)) return {"bash did not finish"};
  QStringList lines = QString::fromUtf8(bash.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
  lines.sort();
  return lines;
}

}  // namespace

class CommandDocsTest : public QObject {
  Q_OBJECT
 private slots:
  void roffEscapesMinusBackslashAndRequests() {
    QCOMPARE(roffEscape("--out-file"), std::string("\\-\\-out\\-file"));
    QCOMPARE(roffEscape("a\\b"), std::string("a\\eb"));
    QCOMPARE(roffEscape(".TH x"), std::string("\\&.TH x"));
    QCOMPARE(roffEscape("'quote"), std::string("\\&'quote"));
    QCOMPARE(roffEscape("plain text."), std::string("plain text."));
  }

  void manPageHasEveryCommandOptionAndSection() {
    ManPageInfo info;
    info.source = "my-tool 1.2";
    info.extra_sections = {{"Exit status", "0 on success."}};
    info.see_also = {"other(1)", "more(5)"};
    const std::string page = manPage(sampleTool(), info);
    const QString p = QString::fromStdString(page);
    QVERIFY2(p.contains(".TH \"MY\\-TOOL\" \"1\" \"\" \"my\\-tool 1.2\" \"User Commands\"\n"), page.c_str());
    QVERIFY(p.contains(".SH NAME\nmy\\-tool \\- do things\n"));
    QVERIFY(p.contains(".SH SYNOPSIS\n\\fBmy\\-tool\\fR [\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]\n"));
    // A leading dot must not become a roff request; lines stay lines.
    QVERIFY(p.contains(".SH DESCRIPTION\n\\&.starts with a dot\n.br\nsecond line\n.PP\nnew paragraph with a back\\eslash\n"));
    QVERIFY(p.contains(".TP\n\\fB\\-v\\fR, \\fB\\-\\-verbose\\fR\nSay more\n"));
    QVERIFY(p.contains(".SS \"my\\-tool build\"\n\\fBmy\\-tool build\\fR [\\fIOPTIONS\\fR] \\fIFILE\\fR\n"));
    QVERIFY(p.contains(".TP\n\\fB\\-o\\fR, \\fB\\-\\-output\\fR \\fIFILE\\fR\nWhere to write\n.br\nRequired.\n"));
    QVERIFY(p.contains(".TP\n\\fB\\-\\-mode\\fR \\fIMODE\\fR\nHow fast\n.br\nOne of: fast, slow.\n"));
    // Nested subcommands by their full path; a repeatable positional.
    QVERIFY(p.contains(".SS \"my\\-tool remote add\"\n\\fBmy\\-tool remote add\\fR \\fINAME\\fR...\n"));
    QVERIFY(p.contains(".SH \"EXIT STATUS\"\n0 on success.\n"));
    QVERIFY(p.contains(".SH SEE ALSO\n.BR other (1),\n.BR more (5)\n"));
    QVERIFY(p.indexOf(".SS \"my\\-tool build\"") < p.indexOf(".SS \"my\\-tool remote\""));
    QVERIFY(p.indexOf(".SS \"my\\-tool remote\"") < p.indexOf(".SS \"my\\-tool remote add\""));
  }

  void completionOffersSubcommandsOptionsChoicesAndFiles() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile touch(dir.path() + "/model.pte");
    QVERIFY(touch.open(QIODevice::WriteOnly));
    touch.close();
    const std::string script = bashCompletion(sampleTool());
    QVERIFY(script.find("complete -F _my_tool my-tool\n") != std::string::npos);

    QCOMPARE(complete(script, {"my-tool", ""}, dir.path()), QStringList({"build", "remote"}));
    QCOMPARE(complete(script, {"my-tool", "-"}, dir.path()), QStringList({"--verbose", "-v"}));
    QCOMPARE(complete(script, {"my-tool", "--verbose", "b"}, dir.path()), QStringList({"build"}));
    QCOMPARE(complete(script, {"my-tool", "build", "--"}, dir.path()), QStringList({"--jobs", "--mode", "--output"}));
    QCOMPARE(complete(script, {"my-tool", "build", "--mode", ""}, dir.path()), QStringList({"fast", "slow"}));
    QCOMPARE(complete(script, {"my-tool", "build", "--mode", "s"}, dir.path()), QStringList({"slow"}));
    // A value that is not a path gets nothing; a positional gets files.
    QCOMPARE(complete(script, {"my-tool", "build", "--jobs", ""}, dir.path()), QStringList());
    QCOMPARE(complete(script, {"my-tool", "build", "mo"}, dir.path()), QStringList({"model.pte"}));
    QCOMPARE(complete(script, {"my-tool", "build", "-o", "mo"}, dir.path()), QStringList({"model.pte"}));
    // The value of an option is not read as a subcommand.
    QCOMPARE(complete(script, {"my-tool", "build", "-o", "remote", "--"}, dir.path()),
             QStringList({"--jobs", "--mode", "--output"}));
    QCOMPARE(complete(script, {"my-tool", "remote", "a"}, dir.path()), QStringList({"add"}));
  }
};

QTEST_GUILESS_MAIN(CommandDocsTest)
#include "test_command_docs.moc"
