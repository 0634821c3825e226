// Issue 13 as a user meets it on the command line: names that are not UTF-8
// (info, propagate, diff, lint in text and JSON), a runaway tensor size in
// `profile`, and saving over private files and through symlinks. Issue 34
// item 25: names with control characters stay on one line in every message,
// and a problem repeated per item (named data not found) is one line with a
// count.
#include <QtTest>

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "pte/Writer.h"
#include "support/BudgetPrograms.h"
#include "support/TestSupport.h"
#include "synth/ProgramBuilder.h"

using namespace ptescope;
using ptescope::test::runCli;
using ptescope::test::tempDir;

namespace {

QString outPath(const QString& name) { return QDir(tempDir()).filePath(name); }

// The add program with a method name, an operator and a delegate id that are
// not UTF-8, written byte for byte as a mutated file would have them.
QString badNamesPath() {
  static const QString path = [] {
    program::Program p = test::upstreamOrderedAddProgram();
    auto& m = p.methods().front();
    m.name = std::string("fo\xFFo");
    (*m.operators)[0].name = std::string("et_copy::\xC3(h2d");
    (*m.delegates)[0].id = std::string("Cuda\xE2\x82");
    auto bytes = pte::serializeProgram(p);
    if (!bytes) return QString();
    const QString file = outPath("bad-names.pte");
    test::writeAll(file, bytes.value());
    return file;
  }();
  return path;
}

// An unplanned input of float32[2147483647, 2]: 16 GiB from one changed byte.
QString hugeTensorPath() {
  static const QString path = [] {
    synth::ProgramBuilder builder;
    auto& m = builder.addMethod("forward");
    const auto x = m.addTensor(program::ScalarType::Float, {2147483647, 2});
    m.setInputs({x});
    m.setOutputs({x});
    synth::BuildOptions options;
    options.planning.alloc_graph_input = false;
    options.planning.alloc_graph_output = false;
    auto built = builder.build(options);
    if (!built) return QString();
    const QString file = outPath("huge-tensor.pte");
    if (!pte::writeProgramFile(built.value(), file.toStdString()).ok()) return QString();
    return file;
  }();
  return path;
}

nlohmann::json parseJson(const QByteArray& text) { return nlohmann::json::parse(text.begin(), text.end(), nullptr, false); }

bool hasUtf8Note(const QByteArray& err) { return err.contains("not valid UTF-8") && err.count('\n') >= 1; }

mode_t modeOf(const QString& path) {
  struct stat st {};
  return ::stat(path.toLocal8Bit().constData(), &st) == 0 ? (st.st_mode & 07777) : 0;
}

// A method named "for<newline>ward<U+0001>" with `delegates` CUDA delegates
// whose AOTI weights live in a .ptd that is then removed: each delegate
// misses one named data entry (its weights), so `delegates` entries are
// missing in all.
QString controlNamePath(int delegates) {
  const QString dir = outPath(QString("control-name-%1").arg(delegates));
  QDir(dir).removeRecursively();
  QDir().mkpath(dir);
  using nlohmann::json;
  json tensors = json::object();
  tensors["x"] = json{{"dtype", "float32"}, {"sizes", json::array({4})}};
  json nodes = json::array();
  std::string previous = "x";
  for (int d = 0; d < delegates; ++d) {
    const std::string out = "y" + std::to_string(d);
    tensors[out] = json{{"dtype", "float32"}, {"sizes", json::array({4})}};
    json node = json::object();
    node["delegate"] = "CudaBackend";
    node["compile_specs"] = json{{"method_name", "part" + std::to_string(d)}, {"target_device", "cuda:0"}};
    node["aoti"] = json{{"so", "so " + std::to_string(d)}, {"weights", "weights " + std::to_string(d)}};
    node["inputs"] = json::array({previous});
    node["outputs"] = json::array({out});
    nodes.push_back(node);
    previous = out;
  }
  json method = json::object();
  method["name"] = std::string("for\nward") + char(0x01);
  method["inputs"] = json::array({"x"});
  method["outputs"] = json::array({previous});
  method["tensors"] = tensors;
  method["nodes"] = nodes;
  json spec = json::object();
  spec["methods"] = json::array({method});
  const QString specPath = QDir(dir).filePath("spec.json");
  QFile specFile(specPath);
  if (!specFile.open(QIODevice::WriteOnly) || specFile.write(QByteArray::fromStdString(spec.dump())) < 0) return QString();
  specFile.close();
  const QString pte = QDir(dir).filePath("control.pte");
  if (runCli({"synth", specPath, "-o", pte}).exitCode != 0) return QString();
  for (const QString& ptd : QDir(dir).entryList({"*.ptd"}, QDir::Files)) QFile::remove(QDir(dir).filePath(ptd));
  return pte;
}

}  // namespace

class CliHardeningTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(!badNamesPath().isEmpty());
    QVERIFY(!hugeTensorPath().isEmpty());
  }

  // A word where a number goes is "not a number", not "not in range"; an
  // unknown --shape is named before any --layers is asked for.
  void wrongValuesSayWhatIsWrong() {
    const QString demo = QDir(tempDir()).filePath("values-demo.pte");
    QCOMPARE(runCli({"synth", "--demo", "-o", demo}).exitCode, 0);
    auto word = runCli({"profile", demo, "--iterations", "abc"});
    test::expectOneLineCliError(word);
    QVERIFY2(word.err.contains("--iterations: 'abc' is not a number (expected one in the range 1 to 1000000)"), word.err.constData());
    auto zero = runCli({"profile", demo, "--iterations", "0"});
    test::expectOneLineCliError(zero);
    QVERIFY2(zero.err.contains("not in range 1 to 1000000"), zero.err.constData());
    auto shape = runCli({"synth", "--shape", "banana", "-o", QDir(tempDir()).filePath("banana.pte")});
    test::expectOneLineCliError(shape);
    QVERIFY2(shape.err.contains("unknown program shape 'banana'") && !shape.err.contains("--layers"), shape.err.constData());
    QVERIFY(!QFileInfo::exists(QDir(tempDir()).filePath("banana.pte")));
  }

  void infoShowsTheSameEscapedNameInTextAndJson() {
    auto text = runCli({"info", badNamesPath()});
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("fo\\xFFo"), text.out.constData());
    auto json = runCli({"info", "--json", "--graph", badNamesPath()});
    QCOMPARE(json.exitCode, 0);
    const auto j = parseJson(json.out);
    QVERIFY2(!j.is_discarded(), json.out.left(400).constData());
    QCOMPARE(j["methods"][0]["name"].get<std::string>(), std::string("fo\\xFFo"));
    QVERIFY(json.out.contains("Cuda\\\\xE2\\\\x82"));
    QVERIFY2(hasUtf8Note(json.err), json.err.constData());
  }

  void propagateJsonWritesValidJsonAndAReadableOutput() {
    const QString out = outPath("bad-names-propagated.pte");
    auto r = runCli({"propagate", badNamesPath(), "-o", out, "--json"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(!parseJson(r.out).is_discarded(), r.out.left(400).constData());
    auto back = runCli({"info", "--json", out});
    QCOMPARE(back.exitCode, 0);
    QCOMPARE(parseJson(back.out)["methods"][0]["name"].get<std::string>(), std::string("fo\\xFFo"));
  }

  void diffAndLintJsonHandleTheNames() {
    auto diff = runCli({"diff", "--json", badNamesPath(), badNamesPath()});
    QCOMPARE(diff.exitCode, 0);
    QVERIFY2(!parseJson(diff.out).is_discarded(), diff.out.left(400).constData());
    auto lint = runCli({"lint", "--json", badNamesPath()});
    QVERIFY(lint.exitCode == 0 || lint.exitCode == 1);
    QVERIFY2(!parseJson(lint.out).is_discarded(), lint.out.left(400).constData());
  }

  void missingNamedDataIsOneLineWithACount() {
    const QString pte = controlNamePath(6);
    QVERIFY(!pte.isEmpty());
    auto r = runCli({"info", pte});
    QCOMPARE(r.exitCode, 0);
    // Six missing weights entries: one warning line, not six (the other
    // line says the method's name holds control characters, shown escaped).
    QCOMPARE(r.err.count('\n'), 2);
    QVERIFY2(r.err.contains("ptescope-cli: warning: 6 named data entries of AOTI delegates not found"), r.err.constData());
    QVERIFY2(r.err.contains("ptescope-cli: warning: 1 string (names, ids, keys) in the program are not valid UTF-8 or hold "
                            "control characters"),
             r.err.constData());
    // The method's name from the file, with its newline and U+0001 escaped.
    QVERIFY2(r.err.contains("method 'for\\x0Award\\x01'"), r.err.constData());

    auto one = runCli({"info", controlNamePath(1)});
    QCOMPARE(one.exitCode, 0);
    QCOMPARE(one.err.count('\n'), 2);
    QVERIFY2(one.err.contains("ptescope-cli: warning: named data not found: method 'for\\x0Award\\x01'"),
             one.err.constData());
  }

  // A line break in a name from the file starts no line in a text report
  // (info, predict, lint printed "method 'for" and "ward'" on two lines): the
  // model holds names escaped; a write gives the file's bytes back.
  void aLineBreakInANameStaysOnItsLine() {
    const QString pte = controlNamePath(2);
    QVERIFY(!pte.isEmpty());
    for (const QStringList& args : {QStringList{"info", pte}, QStringList{"predict", pte}, QStringList{"lint", pte},
                                    QStringList{"advise", pte}}) {
      auto r = runCli(args);
      QVERIFY2(r.exitCode == 0 || r.exitCode == 1, qPrintable(args.join(' ') + ": " + r.err));
      const QByteArray all = r.out + r.err;
      if (args.front() != "lint")  // (lint names nothing without findings)
        QVERIFY2(all.contains("for\\x0Award\\x01"), qPrintable(args.join(' ') + ":\n" + all.left(600)));
      for (const QByteArray& line : all.split('\n'))
        QVERIFY2(!line.startsWith("ward"), qPrintable(args.join(' ') + ":\n" + all.left(600)));
    }
    // Written back with its bytes: the rewritten file's method is the same name.
    const QString out = outPath("control-name-rewritten.pte");
    auto rewrite = runCli({"propagate", pte, "-o", out});
    QCOMPARE(rewrite.exitCode, 0);
    auto back = runCli({"info", "--json", out});
    QCOMPARE(back.exitCode, 0);
    QCOMPARE(parseJson(back.out)["methods"][0]["name"].get<std::string>(), std::string("for\\x0Award\\x01"));
    QFile file(out);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(file.readAll().contains(QByteArray("for\nward\x01")));
  }

  void everyMessageNamingTheMethodIsOneLine() {
    const QString pte = controlNamePath(2);
    QVERIFY(!pte.isEmpty());
    // render's "wrote" line names the method.
    auto render = runCli({"render", pte, "-o", outPath("control.dot")});
    QCOMPARE(render.exitCode, 0);
    for (const QByteArray& line : render.err.split('\n'))
      QVERIFY2(line.isEmpty() || line.startsWith("ptescope-cli: "), render.err.constData());
    QVERIFY2(render.err.contains("method 'for\\x0Award\\x01'"), render.err.constData());
    // An error that quotes a name given back from the file stays one line.
    auto bad = runCli({"propagate", "--set-device", "5=cuda:1", "-o", outPath("control-out.pte"), pte});
    test::expectOneLineCliError(bad);
    QVERIFY2(bad.err.contains("for\\x0Award\\x01"), bad.err.constData());
  }

  // Text reports on stdout print a name from the file with its control
  // characters escaped too (the terminal got U+0001 and an escape sequence
  // raw); the report's own lines stay lines.
  void textReportsPrintNoControlCharacters() {
    const QString pte = controlNamePath(2);
    QVERIFY(!pte.isEmpty());
    const QString edited = outPath("control-edited.pte");
    QCOMPARE(runCli({"propagate", pte, "-o", edited}).exitCode, 0);
    const QList<QStringList> commands = {{"info", pte},         {"info", "--graph", pte}, {"lint", pte},
                                         {"diff", pte, edited}, {"predict", pte},         {"advise", pte},
                                         {"profile", pte, "--iterations", "1"},           {"run", pte}};
    for (const QStringList& args : commands) {
      const auto r = runCli(args);
      QVERIFY2(r.exitCode == 0 || r.exitCode == 1, qPrintable(args.join(' ') + ": " + r.err));
      for (const char c : r.out)
        QVERIFY2(c == '\n' || (static_cast<unsigned char>(c) >= 0x20 && c != 0x7F),
                 qPrintable(args.join(' ') + QString(": prints the control character 0x%1").arg(int(c), 2, 16, QChar('0'))));
    }
    // The method's name, its U+0001 escaped (its newline still starts a line of the text).
    QVERIFY(runCli({"info", pte}).out.contains("ward\\x01'"));
  }

  void exportKeepsTheOriginalBytes() {
    const QString out = outPath("bad-names-exported.pte");
    auto r = runCli({"export", badNamesPath(), "-o", out});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(test::readAll(out) == test::readAll(badNamesPath()));
  }

  void profileRefusesARunawayTensorInOneLine() {
    auto r = runCli({"profile", "--runtime", "host", "--max-memory", "1G", hugeTensorPath()}, 30000);
    test::expectOneLineCliError(r);
    QVERIFY2(r.err.contains("16.0 GiB") && r.err.contains("limit of 1.0 GiB"), r.err.constData());
    // Without a limit the default budget (half of the memory available) is
    // the limit: a 16 GiB input and its host copy (32 GiB) do not fit on a
    // machine with less than 64 GiB available.
    auto byAvailable = runCli({"profile", "--runtime", "host", hugeTensorPath()}, 30000);
    if (byAvailable.exitCode == 2) QVERIFY2(byAvailable.err.contains("not run"), byAvailable.err.constData());
    auto badLimit = runCli({"profile", "--runtime", "host", "--max-memory", "lots", hugeTensorPath()});
    test::expectOneLineCliError(badLimit);
  }

  // Issue 27: a ~1 KiB program whose corrupt size declares a 22 GiB input
  // is refused by profile and run at the default budget (half of the
  // available memory), before anything is allocated ("not run" comes from
  // the check that precedes the first allocation), saying the figure and
  // how to raise it.
  void profileAndRunRefuseAHugeInputAtTheDefaultBudget() {
    const QString file = outPath("huge-input-22g.pte");
    QVERIFY(test::writeHugeInputProgram(file, test::overBudgetInputBytes()));
    QVERIFY(QFileInfo(file).size() < 2048);
    for (const char* command : {"profile", "run"}) {
      auto r = runCli({command, "--runtime", "host", file}, 30000);
      test::expectOneLineCliError(r);
      QVERIFY2(r.err.contains("method 'forward': not run: it would allocate"), r.err.constData());
      QVERIFY2(r.err.contains("more than the default budget of ") && r.err.contains("(half of the ") &&
                   r.err.contains("MemAvailable"),
               r.err.constData());
      QVERIFY2(r.err.contains("raise it with --max-memory SIZE"), r.err.constData());
    }
    // An explicit limit is named as such, in run as in profile.
    auto limited = runCli({"run", "--runtime", "host", "--max-memory", "1G", file}, 30000);
    test::expectOneLineCliError(limited);
    QVERIFY2(limited.err.contains("the limit of 1.0 GiB (--max-memory SIZE)"), limited.err.constData());
    auto badLimit = runCli({"run", "--runtime", "host", "--max-memory", "lots", file});
    test::expectOneLineCliError(badLimit);
    QVERIFY2(badLimit.err.contains("--max-memory: 'lots' is not a size"), badLimit.err.constData());
  }

  void outputKeepsItsModeAndSymlinksAreWrittenThrough() {
    auto exported = [](const QString& out) { return runCli({"export", badNamesPath(), "-o", out}); };
    const QString privateFile = outPath("private.pte");
    test::writeAll(privateFile, {0});
    QVERIFY(::chmod(privateFile.toLocal8Bit().constData(), 0600) == 0);
    QCOMPARE(exported(privateFile).exitCode, 0);
    QCOMPARE(modeOf(privateFile), mode_t(0600));

    QDir().mkpath(outPath("real"));
    const QString target = outPath("real/target.pte"), link = outPath("link.pte");
    test::writeAll(target, {0});
    QVERIFY(::symlink(target.toLocal8Bit().constData(), link.toLocal8Bit().constData()) == 0);
    QCOMPARE(exported(link).exitCode, 0);
    QVERIFY(QFileInfo(link).isSymLink());
    QVERIFY(test::readAll(target) == test::readAll(badNamesPath()));
    QCOMPARE(QDir(outPath("real")).entryList(QDir::Files | QDir::Hidden | QDir::System), QStringList{"target.pte"});
  }
};

QTEST_GUILESS_MAIN(CliHardeningTest)
#include "test_cli_hardening.moc"
