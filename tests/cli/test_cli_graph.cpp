// `ptescope-cli info FILE --graph`: one line per instruction with its inputs
// and outputs. Expected lines come from the samples' contents: add.pte is
// aten::add.out over float32[1] CPU tensors 0 and 1 with alpha Int 1 (value 3)
// into value 2; the Ethos-U sample's delegate reads int8 values 2 and 8 and
// writes 14.
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include "support/TestSupport.h"

using ptescope::test::runCli;
using ptescope::test::samplePath;

namespace {

// The lines of `text` that match `pattern`.
QStringList matchingLines(const QByteArray& text, const QString& pattern) {
  const QRegularExpression re(pattern);
  QStringList found;
  for (const QString& line : QString::fromUtf8(text).split('\n'))
    if (re.match(line).hasMatch()) found << line;
  return found;
}

}  // namespace

class CliGraphTest : public QObject {
  Q_OBJECT
 private slots:
  void addLine() {
    PTESCOPE_REQUIRE_SAMPLES();
    const auto r = runCli({"info", samplePath("add.pte"), "--graph"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.isEmpty(), r.err.constData());
    QVERIFY(r.out.contains("method 'forward'"));  // the usual summary is still there
    const QString expected = QStringLiteral(
        R"(^\s+0\s+aten::add\.out\s+\[%0 float32\[1\] cpu:0, %1 float32\[1\] cpu:0, %3 Int=1\] -> \[%2 float32\[1\] cpu:0\]$)");
    const QStringList lines = matchingLines(r.out, expected);
    QVERIFY2(lines.size() == 1, r.out.constData());
    QCOMPARE(matchingLines(r.out, QStringLiteral("aten::add\\.out  \\[")).size(), 1);  // one instruction
  }

  void withoutGraphNoInstructionLines() {
    PTESCOPE_REQUIRE_SAMPLES();
    const auto r = runCli({"info", samplePath("add.pte")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(!r.out.contains("->"));
  }

  void delegateLine() {
    PTESCOPE_REQUIRE_SAMPLES();
    const auto r = runCli({"info", samplePath("ethos-u-inline-delegate.pte"), "--graph"});
    QCOMPARE(r.exitCode, 0);
    const QString expected = QStringLiteral(
        R"(^\s+2\s+delegate EthosUBackend\s+\[%2 int8\[1,1,1,1\] cpu:0, %8 int8\[1,1,1,1\] cpu:0\] -> \[%14 int8\[1,1,1,1\] cpu:0\]$)");
    QVERIFY2(matchingLines(r.out, expected).size() == 1, r.out.constData());
  }

  void jsonGraph() {
    PTESCOPE_REQUIRE_SAMPLES();
    const auto r = runCli({"info", samplePath("add.pte"), "--graph", "--json"});
    QCOMPARE(r.exitCode, 0);
    const auto info = QJsonDocument::fromJson(r.out).object();
    const auto graph = info["methods"].toArray().at(0).toObject()["graph"].toArray();
    QCOMPARE(graph.size(), 1);
    const auto add = graph.at(0).toObject();
    QCOMPARE(add["label"].toString(), QStringLiteral("aten::add.out"));
    QCOMPARE(add["kind"].toString(), QStringLiteral("KernelCall"));
    QCOMPARE(add["inputs"].toArray(), (QJsonArray{0, 1, 3}));
    QCOMPARE(add["outputs"].toArray(), (QJsonArray{2}));
  }

  void badFileStillExitsTwo() {
    const auto r = runCli({"info", "/nonexistent/model.pte", "--graph"});
    QCOMPARE(r.exitCode, 2);
    QCOMPARE(r.err.count('\n'), 1);
  }
};

QTEST_GUILESS_MAIN(CliGraphTest)
#include "test_cli_graph.moc"
