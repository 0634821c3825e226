// ptescope-cli synth --shape and render on big shapes: the shapes are listed,
// sized by layers or instructions, load, and render (default and --full,
// SVG and DOT) finishes; a big DOT carries pinned positions.
#include <QtTest>

#include <QDir>
#include <QFile>

#include "support/TestSupport.h"

using ptescope::test::runCli;
using ptescope::test::tempDir;

namespace {
QString outPath(const QString& name) { return QDir(tempDir()).filePath(name); }
}  // namespace

class CliShapesTest : public QObject {
  Q_OBJECT
 private slots:
  void listsAndBuildsShapes() {
    auto list = runCli({"synth", "--list-shapes"});
    QCOMPARE(list.exitCode, 0);
    for (const char* name : {"llm", "moe", "pipeline", "fanout"}) QVERIFY(list.out.contains(QByteArray(name) + "\t"));
    const QString out = outPath("llm.pte");
    auto built = runCli({"synth", "--shape", "llm", "--layers", "3", "-o", out});
    QVERIFY2(built.exitCode == 0, built.err.constData());
    auto info = runCli({"info", out});
    QVERIFY2(info.out.contains("instructions 103"), info.out.constData());  // 30 per layer + 13 around them
    auto sized = runCli({"synth", "--shape", "fanout", "--instructions", "400", "-o", outPath("fan.pte")});
    QCOMPARE(sized.exitCode, 0);
    QVERIFY(runCli({"info", outPath("fan.pte")}).out.contains("instructions 400"));
  }

  void badShapeArgumentsAreOneLine() {
    const std::vector<std::pair<QStringList, QByteArray>> cases{
        {{"synth", "--shape", "rnn", "--layers", "2", "-o", outPath("x.pte")}, "unknown program shape 'rnn'"},
        {{"synth", "--shape", "llm", "-o", outPath("x.pte")}, "--layers"},
        {{"synth", "--shape", "llm", "--layers", "99999", "-o", outPath("x.pte")}, "1 to 2200 layers"},
        {{"synth", "--demo", "--layers", "3", "-o", outPath("x.pte")}, "--shape"}};
    for (const auto& [args, words] : cases) {
      auto r = runCli(args);
      ptescope::test::expectOneLineCliError(r);
      QVERIFY2(r.err.contains(words), r.err.constData());
    }
  }

  void renderFinishesOnFanOut() {
    const QString program = outPath("fanout.pte");
    QCOMPARE(runCli({"synth", "--shape", "fanout", "--layers", "500", "-o", program}).exitCode, 0);
    // Default view, SVG: stubs keep dot fast (without them this took minutes).
    auto svg = runCli({"render", program, "-o", outPath("f.svg")}, 120000);
    QVERIFY2(svg.exitCode == 0, svg.err.constData());
    // Every instruction, DOT for the user's dot: positions pinned.
    auto dot = runCli({"render", program, "-o", outPath("f.dot"), "--full"}, 120000);
    QVERIFY2(dot.exitCode == 0, dot.err.constData());
    QFile file(outPath("f.dot"));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QVERIFY(text.contains("layout=\"nop2\""));
    QVERIFY(text.contains("pos=\""));
    QVERIFY(dot.err.contains("positions pinned"));
  }
};

QTEST_GUILESS_MAIN(CliShapesTest)
#include "test_cli_shapes.moc"
