// ptescope-cli synth as a user runs it: the spec example of issue 3 works as
// written, spec errors exit 2 with one line naming the JSON path, and the
// generators (--scenario, --demo, --large) write programs that load.
#include <QtTest>

#include <QDir>
#include <QFileInfo>

#include "support/TestSupport.h"

using ptescope::test::runCli;
using ptescope::test::tempDir;

namespace {

using ptescope::test::kIssue3SpecExample;

QString writeText(const QString& name, const QByteArray& text) {
  const QString path = QDir(tempDir()).filePath(name);
  ptescope::test::writeAll(path, std::vector<uint8_t>(text.begin(), text.end()));
  return path;
}

QString outPath(const QString& name) { return QDir(tempDir()).filePath(name); }

}  // namespace

class CliSynthTest : public QObject {
  Q_OBJECT
 private slots:
  void issueExampleWorksAsWritten() {
    const QString spec = writeText("issue.json", kIssue3SpecExample);
    const QString out = outPath("issue.pte");
    auto r = runCli({"synth", spec, "-o", out});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    auto loaded = ptescope::test::loadOrFail(out);
    QCOMPARE(loaded.program.methods().size(), size_t(1));
    auto info = runCli({"info", out});
    QCOMPARE(info.exitCode, 0);
    QVERIFY(info.out.contains("CudaBackend"));
    QVERIFY(info.out.contains("aten::relu.out"));
    // One delegate's blob: counted in the singular ("1 blobs" before).
    QVERIFY2(info.out.contains("inline delegate data: 1 blob\n"), info.out.constData());
    // The device passes ran with the spec's options (upstream defaults):
    // a and b copied to cuda:0, t copied back for relu; buffers for CPU and
    // cuda:0 as in the spec's canonical example.
    QVERIFY2(info.out.contains("copies: 2 host-to-device, 1 device-to-host"), info.out.constData());
    QVERIFY(info.out.contains("buffer devices: 2=cuda:0"));
    // --no-passes keeps the program as built: everything on CPU.
    auto asBuilt = runCli({"synth", spec, "-o", out, "--no-passes"});
    QCOMPARE(asBuilt.exitCode, 0);
    auto plain = runCli({"info", out});
    QVERIFY(plain.out.contains("copies: 0 host-to-device, 0 device-to-host"));
    QVERIFY(!plain.out.contains("cuda:0 "));
  }

  void badSpecExitsTwoWithThePath() {
    QByteArray text(kIssue3SpecExample);
    text.replace(R"("inputs": ["t"])", R"("inputs": ["q"])");
    const QString spec = writeText("bad.json", text);
    const QString out = outPath("bad.pte");
    auto r = runCli({"synth", spec, "-o", out});
    ptescope::test::expectOneLineCliError(r);
    QVERIFY2(r.err.contains("methods[0].nodes[1].inputs[0]"), r.err.constData());
    QVERIFY2(r.err.contains("unknown tensor 'q'"), r.err.constData());
    QVERIFY(!QFile::exists(out));

    auto malformed = runCli({"synth", writeText("malformed.json", "{\"methods\": ["), "-o", out});
    ptescope::test::expectOneLineCliError(malformed);
    QVERIFY(malformed.err.contains("malformed JSON"));

    auto missing = runCli({"synth", outPath("does-not-exist.json"), "-o", out});
    ptescope::test::expectOneLineCliError(missing);

    // JSON text where the file's name goes: said so, without echoing the
    // whole spec back ("cannot open the spec: File name too long" did).
    auto inline_ = runCli({"synth", QString::fromUtf8(kIssue3SpecExample), "-o", out});
    ptescope::test::expectOneLineCliError(inline_);
    QVERIFY2(inline_.err.contains("SPEC is the name of a JSON file, and this argument is JSON text"), inline_.err.constData());
    QVERIFY2(inline_.err.size() < 300, inline_.err.constData());
    QVERIFY(!QFile::exists(out));
    auto help = runCli({"synth", "--help"});
    QVERIFY2(help.out.contains("SPEC FILE"), help.out.constData());
  }

  void generators() {
    auto list = runCli({"synth", "--list-scenarios"});
    QCOMPARE(list.exitCode, 0);
    for (const char* name : {"h2d_d2h", "cross_device", "redundant_same_device", "skip_h2d_partial"})
      QVERIFY2(list.out.contains(name), name);

    for (const char* name : {"h2d_d2h", "same_and_cross_device"}) {
      const QString out = outPath(QString(name) + ".pte");
      auto r = runCli({"synth", "--scenario", name, "-o", out});
      QVERIFY2(r.exitCode == 0, r.err.constData());
      QVERIFY(ptescope::test::loadOrFail(out).program.methods().size() == 1);
    }

    const QString demo = outPath("demo.pte");
    auto d = runCli({"synth", "--demo", "-o", demo, "--no-passes"});
    QVERIFY2(d.exitCode == 0, d.err.constData());
    QCOMPARE(ptescope::test::loadOrFail(demo).program.methods().size(), size_t(2));

    const QString large = outPath("large.pte");
    auto l = runCli({"synth", "--large", "3", "-o", large, "--no-passes"});
    QVERIFY2(l.exitCode == 0, l.err.constData());
    auto info = runCli({"info", large});
    QVERIFY(info.out.contains("instructions 33"));  // 11 per layer
    // With the device passes (the default): per layer one H2D per delegate
    // input (3) and one D2H per delegate output (4), nothing to elide.
    auto withPasses = runCli({"synth", "--large", "3", "-o", large});
    QVERIFY2(withPasses.exitCode == 0, withPasses.err.constData());
    auto passed = runCli({"info", large});
    QVERIFY(passed.out.contains("instructions 54"));
    QVERIFY(passed.out.contains("copies: 9 host-to-device, 12 device-to-host"));
  }

  // Issue 13 (found by fuzz_json_spec): a constant beyond --max-constants is
  // refused in one line naming it, before anything is built or written.
  void constantsBeyondTheLimitAreRefused() {
    const QString spec = writeText("big-constant.json", R"({"methods": [{"name": "forward", "inputs": [],
        "outputs": ["w"], "constants": {"w": {"dtype": "float32", "sizes": [512, 1024], "fill": 0.5}},
        "nodes": []}]})");
    const QString out = outPath("big-constant.pte");
    auto refused = runCli({"synth", spec, "--max-constants", "1M", "-o", out});
    ptescope::test::expectOneLineCliError(refused);
    QVERIFY2(refused.err.contains("methods[0].constants.w") && refused.err.contains("--max-constants"),
             refused.err.constData());
    QVERIFY(!QFile::exists(out));
    auto built = runCli({"synth", spec, "--max-constants", "4M", "-o", out});
    QVERIFY2(built.exitCode == 0, built.err.constData());
    QVERIFY(QFileInfo(out).size() > (2 << 20));
    ptescope::test::expectOneLineCliError(runCli({"synth", spec, "--max-constants", "lots", "-o", out}));
    ptescope::test::expectOneLineCliError(runCli({"synth", "--demo", "--max-constants", "4M", "-o", out}));
  }

  void usageErrors() {
    const QString out = outPath("x.pte");
    ptescope::test::expectOneLineCliError(runCli({"synth", "--scenario", "no_such_scenario", "-o", out}));
    ptescope::test::expectOneLineCliError(runCli({"synth", "--demo"}));                       // no output
    ptescope::test::expectOneLineCliError(runCli({"synth", "-o", out}));                      // no source
    ptescope::test::expectOneLineCliError(runCli({"synth", "--demo", "--large", "2", "-o", out}));  // two sources
    ptescope::test::expectOneLineCliError(runCli({"synth", "--large", "0", "-o", out}));
    auto help = runCli({"synth", "--help"});
    QCOMPARE(help.exitCode, 0);
    QVERIFY(help.out.contains("--no-passes"));
    QVERIFY(help.out.contains("--scenario"));
  }
};

QTEST_GUILESS_MAIN(CliSynthTest)
#include "test_cli_synth.moc"
