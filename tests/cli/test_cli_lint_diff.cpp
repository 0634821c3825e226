// ptescope-cli lint and diff as a user runs them: text and JSON, exit codes
// (lint: 0 clean or warnings only, 1 with an error-level finding, 2 bad
// input), and one clear line for a file that does not load. Programs are the
// synth scenarios; expected numbers are the spec's (device-semantics.md
// §2.3, §2.6, §4.1).
#include <QtTest>

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QXmlStreamReader>

#include "support/TestSupport.h"

using ptescope::test::expectOneLineCliError;
using ptescope::test::runCli;
using ptescope::test::tempDir;

namespace {

QString path(const QString& name) { return QDir(tempDir()).filePath(name); }

// The scenario as upstream export writes it (device passes with its options).
QString scenarioFile(const QString& scenario) {
  const QString out = path(scenario + ".pte");
  if (QFile::exists(out)) return out;
  auto r = runCli({"synth", "--scenario", scenario, "-o", out});
  if (r.exitCode != 0) {
    QTest::qFail(qPrintable("synth --scenario " + scenario + ": " + r.err), __FILE__, __LINE__);
    return {};
  }
  return out;
}

// The first `bytes` bytes of a good program.
QString truncatedFile(size_t bytes) {
  auto data = ptescope::test::readAll(scenarioFile("h2d_d2h"));
  data.resize(std::min(bytes, data.size()));
  const QString out = path(QString("truncated-%1.pte").arg(bytes));
  ptescope::test::writeAll(out, data);
  return out;
}

QString textFile() {
  const QString out = path("notes.pte");
  const std::string text = "this is not a program\n";
  ptescope::test::writeAll(out, std::vector<uint8_t>(text.begin(), text.end()));
  return out;
}

QJsonObject jsonOf(const QByteArray& out) {
  QJsonParseError error;
  auto doc = QJsonDocument::fromJson(out, &error);
  if (error.error != QJsonParseError::NoError || !doc.isObject()) {
    QTest::qFail(qPrintable("not a JSON object: " + error.errorString()), __FILE__, __LINE__);
    return {};
  }
  return doc.object();
}

std::vector<int32_t> methodInputs(const QString& file) {
  auto loaded = ptescope::test::loadOrFail(file);
  if (loaded.program.methods().empty()) return {};
  return ptescope::program::items(loaded.program.methods().front().inputs);
}

// "%3": a value as the text reports name it.
QString pct(int32_t v) { return "%" + QString::number(v); }

QList<int> bufferSizes(const QJsonArray& buffers) {
  QList<int> sizes;
  for (const auto& b : buffers) sizes << b.toObject()["size"].toInt();
  return sizes;
}

}  // namespace

class CliLintDiffTest : public QObject {
  Q_OBJECT
 private slots:
  // A CudaBackend delegate whose weights are in no .ptd: the backend's init
  // fails, so lint has an error (it said "0 errors, 0 warnings" while info
  // warned that the named data was not found).
  void lintFindsMissingDelegateData() {
    const QString dir = path("missing-ptd");
    QDir(dir).removeRecursively();
    QVERIFY(QDir().mkpath(dir));
    const QString pte = dir + "/demo.pte";
    QCOMPARE(runCli({"synth", "--demo", "-o", pte}).exitCode, 0);
    auto whole = runCli({"lint", pte});
    QCOMPARE(whole.exitCode, 0);
    QVERIFY2(!whole.out.contains("PTS020"), whole.out.constData());
    QVERIFY(QFile::remove(dir + "/aoti_cuda_blob.ptd"));
    auto r = runCli({"lint", pte});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.out.contains("error PTS020 [delegate-data-missing] method 'forward'"), r.out.constData());
    QVERIFY2(r.out.contains("weights_blob"), r.out.constData());
    // Named with --ptd, the data is there again.
    QVERIFY(QDir().mkpath(dir + "/again"));
    QCOMPARE(runCli({"synth", "--demo", "-o", dir + "/again/demo.pte"}).exitCode, 0);
    auto given = runCli({"lint", pte, "--ptd", dir + "/again/aoti_cuda_blob.ptd"});
    QCOMPARE(given.exitCode, 0);
  }

  void lintHelpListsEveryRule() {
    auto r = runCli({"lint", "--help"});
    QCOMPARE(r.exitCode, 0);
    for (int i = 1; i <= 15; ++i) {
      const QByteArray id = QString("PTS%1").arg(i, 3, 10, QChar('0')).toLatin1();
      QVERIFY2(r.out.contains(id), id.constData());
    }
  }

  // Default options: nothing the runtime would trip over.
  void lintCleanExitsZero() {
    auto r = runCli({"lint", scenarioFile("h2d_d2h")});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out, QByteArray("0 errors, 0 warnings\n"));
    QVERIFY(r.err.isEmpty());
    auto json = runCli({"lint", scenarioFile("h2d_d2h"), "--json"});
    QCOMPARE(json.exitCode, 0);
    const auto o = jsonOf(json.out);
    QCOMPARE(o["errors"].toBool(true), false);
    QVERIFY(o["diagnostics"].isArray());
    QCOMPARE(o["diagnostics"].toArray().size(), 0);
  }

  // skip_d2h with the default alloc_graph_output: y is planned on cuda:0, a
  // warning (PTS002), and warnings alone do not fail the run.
  void lintWarningsOnlyExitZero() {
    const QString file = scenarioFile("skip_d2h");
    auto r = runCli({"lint", file});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.startsWith("warning PTS002 [planned-device-output] method 'forward', value %"), r.out.constData());
    QVERIFY(r.out.contains("    fix: "));
    QVERIFY(r.out.endsWith("0 errors, 1 warning\n"));  // issue 34 item 26: not "1 warnings"
    auto json = runCli({"lint", file, "--json"});
    QCOMPARE(json.exitCode, 0);
    const auto o = jsonOf(json.out);
    QCOMPARE(o["errors"].toBool(true), false);
    const auto findings = o["diagnostics"].toArray();
    QCOMPARE(findings.size(), 1);
    const auto d = findings[0].toObject();
    QCOMPARE(d["id"].toString(), QString("PTS002"));
    QCOMPARE(d["slug"].toString(), QString("planned-device-output"));
    QCOMPARE(d["severity"].toString(), QString("warning"));
    QCOMPARE(d["method"].toString(), QString("forward"));
    QVERIFY(d.contains("value"));
    QVERIFY(!d.contains("instruction"));
    QVERIFY(!d.contains("delegate"));
    QCOMPARE(d["location"].toString(), "method 'forward', value " + pct(d["value"].toInt()));
  }

  // skip_h2d with the default alloc_graph_input: both inputs planned on
  // cuda:0, set_input would refuse them (spec §2.6): two errors, exit 1.
  void lintErrorsExitOne() {
    const QString file = scenarioFile("skip_h2d");
    const auto inputs = methodInputs(file);
    QCOMPARE(inputs.size(), size_t(2));
    auto r = runCli({"lint", file});
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.err.isEmpty());
    for (int32_t v : inputs)
      QVERIFY2(r.out.contains(("error PTS001 [planned-device-input] method 'forward', value " + pct(v) +
                               ": method input " + pct(v) + " is memory-planned on cuda:0\n")
                                  .toUtf8()),
               r.out.constData());
    QVERIFY(r.out.endsWith("2 errors, 0 warnings\n"));
    auto json = runCli({"lint", file, "--json"});
    QCOMPARE(json.exitCode, 1);
    const auto o = jsonOf(json.out);
    QCOMPARE(o["errors"].toBool(false), true);
    const auto findings = o["diagnostics"].toArray();
    QCOMPARE(findings.size(), 2);
    QSet<int> values;
    for (const auto& f : findings) {
      QCOMPARE(f.toObject()["id"].toString(), QString("PTS001"));
      QCOMPARE(f.toObject()["severity"].toString(), QString("error"));
      values.insert(f.toObject()["value"].toInt(-1));
    }
    QCOMPARE(values, (QSet<int>{inputs[0], inputs[1]}));
    // The documented pairing lints clean.
    QCOMPARE(runCli({"lint", scenarioFile("skip_both_unplanned_io")}).exitCode, 0);
  }

  // lint --junit: one test case per rule and method, the error-level rule
  // failed with its findings, a clean rule passed; the file is well-formed
  // XML also when a method's name is markup (issue 28).
  void lintWritesJUnitXml() {
    const QString file = scenarioFile("skip_h2d");
    const QString xml = path("lint.xml");
    QFile::remove(xml);
    auto r = runCli({"lint", file, "--junit", xml});
    QCOMPARE(r.exitCode, 1);
    QFile in(xml);
    QVERIFY(in.open(QIODevice::ReadOnly));
    QXmlStreamReader reader(&in);
    int cases = 0, failures = 0, suites = 0;
    QString failedCase, failureText;
    QString currentCase;
    while (!reader.atEnd()) {
      reader.readNext();
      if (!reader.isStartElement()) continue;
      if (reader.name() == u"testsuite") ++suites;
      if (reader.name() == u"testcase") {
        ++cases;
        currentCase = reader.attributes().value("name").toString();
        QCOMPARE(reader.attributes().value("classname").toString(), QString("ptescope.lint.forward"));
      }
      if (reader.name() == u"failure") {
        ++failures;
        failedCase = currentCase;
        failureText = reader.readElementText();
      }
    }
    QVERIFY2(!reader.hasError(), qPrintable(reader.errorString()));
    const auto listed = runCli({"lint", "--help"}).out;
    const int rules = int(QString::fromUtf8(listed).count(QRegularExpression("\\n  PTS\\d{3} ")));
    QVERIFY(rules >= 15);
    QCOMPARE(suites, 1);
    QCOMPARE(cases, rules);
    QCOMPARE(failures, 1);
    QCOMPARE(failedCase, QString("PTS001 planned-device-input"));
    QCOMPARE(failureText.count("error method 'forward'"), 2);
    QVERIFY(failureText.contains("fix: "));

    // A method named like markup stays one well-formed attribute.
    const QString spec = path("junit-name.json");
    QFile s(spec);
    QVERIFY(s.open(QIODevice::WriteOnly));
    // (A QJsonObject, not a raw string literal: moc does not read those.)
    const QJsonObject tensor4{{"dtype", "float32"}, {"sizes", QJsonArray{4}}};
    const QJsonObject method{{"name", "f\"><x y=\"1\">&amp;"},
                             {"inputs", QJsonArray{"x"}},
                             {"outputs", QJsonArray{"y"}},
                             {"tensors", QJsonObject{{"x", tensor4}, {"y", tensor4}}},
                             {"nodes", QJsonArray{QJsonObject{{"op", "aten::relu.out"}, {"inputs", QJsonArray{"x"}},
                                                              {"outputs", QJsonArray{"y"}}}}}};
    s.write(QJsonDocument(QJsonObject{{"methods", QJsonArray{method}}}).toJson());
    s.close();
    const QString odd = path("junit-name.pte");
    QCOMPARE(runCli({"synth", spec, "-o", odd}).exitCode, 0);
    QCOMPARE(runCli({"lint", odd, "--junit", xml}).exitCode, 0);
    QFile again(xml);
    QVERIFY(again.open(QIODevice::ReadOnly));
    QXmlStreamReader second(&again);
    QString classname;
    while (!second.atEnd()) {
      second.readNext();
      if (second.isStartElement() && second.name() == u"testcase") classname = second.attributes().value("classname").toString();
    }
    QVERIFY2(!second.hasError(), qPrintable(second.errorString()));
    QCOMPARE(classname, QString("ptescope.lint.f\"><x y=\"1\">&amp;"));
    // An unwritable target is one clear error.
    auto bad = runCli({"lint", odd, "--junit", "/nonexistent-dir/x.xml"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY(bad.err.contains("/nonexistent-dir/x.xml"));
  }

  void lintBadInputExitsTwo() {
    for (const QString& file : {path("missing.pte"), truncatedFile(64), truncatedFile(0), textFile()}) {
      for (const QStringList& extra : {QStringList{}, QStringList{"--json"}}) {
        auto r = runCli(QStringList{"lint", file} + extra);
        expectOneLineCliError(r);
        QVERIFY2(r.err.contains(QFileInfo(file).fileName().toUtf8()), r.err.constData());
      }
    }
  }

  void diffIdentical() {
    const QString file = scenarioFile("h2d_d2h");
    auto r = runCli({"diff", file, file});
    QCOMPARE(r.exitCode, 0);
    // The structure first; then the predicted copy time, unchanged.
    QVERIFY2(r.out.startsWith("method 'forward': same\nno differences\n"), r.out.constData());
    QVERIFY2(r.out.contains("(no change)"), r.out.constData());
    auto json = runCli({"diff", file, file, "--json"});
    QCOMPARE(json.exitCode, 0);
    const auto o = jsonOf(json.out);
    QCOMPARE(o["same"].toBool(false), true);
    QCOMPARE(o["methods_only_in_a"].toArray().size(), 0);
    QCOMPARE(o["methods_only_in_b"].toArray().size(), 0);
    const auto methods = o["methods"].toArray();
    QCOMPARE(methods.size(), 1);
    const auto m = methods[0].toObject();
    QCOMPARE(m["same"].toBool(false), true);
    QCOMPARE(m["copies_only_in_a"].toArray().size(), 0);
    QCOMPARE(m["copies_only_in_b"].toArray().size(), 0);
    QCOMPARE(m["placement"].toArray().size(), 0);
    QCOMPARE(m["structure"].toArray().size(), 0);
    // Spec §2.3: [0, 32, 48] with the CUDA arena at buffer 2.
    QCOMPARE(bufferSizes(m["buffers_a"].toArray()), (QList<int>{32, 48}));
    QCOMPARE(bufferSizes(m["buffers_b"].toArray()), (QList<int>{32, 48}));
  }

  // a+b on cuda:0 against the same program propagated with
  // --skip-h2d-inputs: B has no H2D copies, a and b live on cuda:0, and the
  // CPU arena keeps only y (16 bytes) while the CUDA arena still holds three
  // 16-byte tensors alive at the delegate (a, b, Y).
  void diffAgainstSkipTwin() {
    const QString a = scenarioFile("h2d_d2h");
    const QString b = path("h2d_d2h-skip-h2d.pte");
    auto propagated = runCli({"propagate", a, "--skip-h2d-inputs", "-o", b});
    QVERIFY2(propagated.exitCode == 0, propagated.err.constData());
    const auto inputs = methodInputs(a);
    QCOMPARE(inputs.size(), size_t(2));

    auto r = runCli({"diff", a, b});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.err.isEmpty());
    QVERIFY2(r.out.startsWith("method 'forward': differs\n"), r.out.constData());
    for (int arg = 0; arg < 2; ++arg) {
      const int32_t v = inputs[size_t(arg)];
      QVERIFY2(r.out.contains(("  - h2d " + pct(v) + " cpu:0 -> cuda:0, 16 B, for delegate call 0 arg " +
                               QString::number(arg) + " (only in A)\n")
                                  .toUtf8()),
               r.out.constData());
      QVERIFY(r.out.contains(("  ~ " + pct(v) + " cpu:0 -> cuda:0\n").toUtf8()));
    }
    QVERIFY(!r.out.contains("(only in B)"));
    QVERIFY2(r.out.contains("  buffers [32 B cpu:0, 48 B cuda:0] -> [16 B cpu:0, 48 B cuda:0]\n"), r.out.constData());
    QVERIFY(!r.out.contains("no differences"));

    auto json = runCli({"diff", a, b, "--json"});
    QCOMPARE(json.exitCode, 0);
    const auto o = jsonOf(json.out);
    QCOMPARE(o["same"].toBool(true), false);
    const auto m = o["methods"].toArray()[0].toObject();
    QCOMPARE(m["name"].toString(), QString("forward"));
    QCOMPARE(m["same"].toBool(true), false);
    const auto onlyA = m["copies_only_in_a"].toArray();
    QCOMPARE(onlyA.size(), 2);
    QSet<int> sources;
    for (const auto& c : onlyA) {
      const auto copy = c.toObject();
      QCOMPARE(copy["direction"].toString(), QString("h2d"));
      QCOMPARE(copy["from"].toString(), QString("cpu:0"));
      QCOMPARE(copy["to"].toString(), QString("cuda:0"));
      QCOMPARE(copy["bytes"].toInt(), 16);
      sources.insert(copy["source"].toInt(-1));
    }
    QCOMPARE(sources, (QSet<int>{inputs[0], inputs[1]}));
    QCOMPARE(m["copies_only_in_b"].toArray().size(), 0);
    QSet<int> moved;
    for (const auto& p : m["placement"].toArray()) {
      QCOMPARE(p.toObject()["a"].toString(), QString("cpu:0"));
      QCOMPARE(p.toObject()["b"].toString(), QString("cuda:0"));
      moved.insert(p.toObject()["value"].toInt(-1));
    }
    QCOMPARE(moved, (QSet<int>{inputs[0], inputs[1]}));
    QCOMPARE(bufferSizes(m["buffers_a"].toArray()), (QList<int>{32, 48}));
    QCOMPARE(bufferSizes(m["buffers_b"].toArray()), (QList<int>{16, 48}));
    QCOMPARE(m["buffers_b"].toArray()[1].toObject()["device"].toString(), QString("cuda:0"));

    // Swapped: the same differences seen from the other side.
    auto swapped = jsonOf(runCli({"diff", b, a, "--json"}).out)["methods"].toArray()[0].toObject();
    QCOMPARE(swapped["copies_only_in_a"].toArray().size(), 0);
    QCOMPARE(swapped["copies_only_in_b"].toArray().size(), 2);
  }

  // Different methods: a one-method scenario against the two-method demo.
  void diffReportsMethodsOnOneSide() {
    const QString demo = path("demo.pte");
    QCOMPARE(runCli({"synth", "--demo", "-o", demo}).exitCode, 0);
    auto json = runCli({"diff", scenarioFile("h2d_d2h"), demo, "--json"});
    QCOMPARE(json.exitCode, 0);
    const auto o = jsonOf(json.out);
    QCOMPARE(o["same"].toBool(true), false);
    QCOMPARE(o["methods_only_in_b"].toArray(), (QJsonArray{"prefill"}));
    auto text = runCli({"diff", scenarioFile("h2d_d2h"), demo});
    QVERIFY2(text.out.startsWith("method 'prefill' only in B\n"), text.out.constData());
  }

  void diffBadInputExitsTwo() {
    const QString good = scenarioFile("h2d_d2h");
    for (const QString& bad : {path("missing.pte"), truncatedFile(64), textFile()}) {
      for (const QStringList& args : {QStringList{"diff", bad, good}, QStringList{"diff", good, bad},
                                      QStringList{"diff", good, bad, "--json"}}) {
        auto r = runCli(args);
        expectOneLineCliError(r);
        QVERIFY2(r.err.contains(QFileInfo(bad).fileName().toUtf8()), r.err.constData());
      }
    }
    auto usage = runCli({"diff", good});
    QCOMPARE(usage.exitCode, 2);
    QVERIFY(usage.out.isEmpty());
  }
};

QTEST_GUILESS_MAIN(CliLintDiffTest)
#include "test_cli_lint_diff.moc"
