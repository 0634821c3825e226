// ptescope-cli profile as a user runs it: the demo profiles with exit 0 and
// an "emulated" label on the host runtime, its output files parse, and bad
// input exits 2 with one line on stderr.
#include <QtTest>

#include <QDir>
#include <QProcess>

#include <cmath>
#include <csignal>

#include <nlohmann/json.hpp>

#include "exec/DeviceRuntime.h"
#include "pte/Writer.h"
#include "support/TestSupport.h"
#include "synth/JsonSpec.h"
#include "synth/Scenarios.h"

using ptescope::test::runCli;
using ptescope::test::tempDir;

namespace {

QString demoPath() {
  static const QString path = [] {
    const QString file = QDir(tempDir()).filePath("demo.pte");
    auto synthesized = ptescope::synth::synthesizeDemo();
    auto program = synthesized ? ptescope::synth::applyDevicePasses(synthesized.value())
                               : ptescope::Result<ptescope::program::Program>(synthesized.error());
    if (!program || !ptescope::pte::writeProgramFile(program.value(), file.toStdString()).ok()) return QString();
    return file;
  }();
  return path;
}

QString outPath(const QString& name) { return QDir(tempDir()).filePath(name); }

nlohmann::json readJson(const QString& path) {
  const auto bytes = ptescope::test::readAll(path);
  return nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
}

bool cudaPresent() { return ptescope::exec::selectRuntime(ptescope::exec::RuntimePreference::Cuda).ok(); }

}  // namespace

class CliProfileTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { QVERIFY(!demoPath().isEmpty()); }

  void demoOnTheHostRuntime() {
    const QString json = outPath("demo.json"), csv = outPath("demo.csv"), trace = outPath("demo.trace.json");
    auto r = runCli({"profile", demoPath(), "--runtime", "host", "--iterations", "3", "--warmup", "1", "--json", json,
                     "--csv", csv, "--trace", trace});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.contains("EMULATED"));
    QVERIFY(r.out.contains("profile of method 'forward' in demo.pte"));
    QVERIFY(r.out.contains("h2d: 2 copies, 512 B"));
    QVERIFY(r.out.contains("d2h: 2 copies, 320 B"));
    QVERIFY(r.out.contains("not executed: 2 instructions"));
    QVERIFY(r.out.contains("host memory: pageable"));
    const auto profile = readJson(json);
    QVERIFY(!profile.is_discarded());
    QCOMPARE(profile["emulated"].get<bool>(), true);
    QCOMPARE(profile["copies"].size(), size_t(4));
    QCOMPARE(profile["iterations"].get<int>(), 3);
    QCOMPARE(ptescope::test::readAll(csv).size() > 0, true);
    const auto traceJson = readJson(trace);
    QVERIFY(!traceJson.is_discarded());
    QVERIFY(traceJson["traceEvents"].size() > 8);
  }

  void autoRuntimeSaysWhyItEmulates() {
    auto r = runCli({"profile", demoPath(), "--iterations", "2", "--warmup", "0", "--method", "prefill", "--pinned"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.contains("method 'prefill'"));
    QVERIFY(r.out.contains("host memory: pinned"));
    if (cudaPresent()) {
      QVERIFY(!r.out.contains("EMULATED"));
    } else {
      QVERIFY(r.out.contains("EMULATED"));
      QVERIFY2(r.err.startsWith("ptescope-cli: note: "), r.err.constData());
      QCOMPARE(r.err.count('\n'), 1);
    }
  }

  void cpuSampleWithoutCopies() {
    PTESCOPE_REQUIRE_SAMPLES();
    auto r = runCli({"profile", ptescope::test::samplePath("add.pte"), "--runtime", "host", "--iterations", "2"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.contains("no host-device copies ran"));
    QVERIFY(!r.out.contains("not executed"));
  }

  // Counts take their noun in the right number: the h2d_d2h scenario
  // copies a and b to the device and y back, one d2h copy ("1 copies").
  void oneCopyIsACopy() {
    const QString program = QDir(ptescope::test::tempDir()).filePath("h2d_d2h.pte");
    QCOMPARE(runCli({"synth", "--scenario", "h2d_d2h", "-o", program}).exitCode, 0);
    auto r = runCli({"profile", program, "--runtime", "host", "--iterations", "2"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.out.contains("\n  h2d: 2 copies, 32 B, median ") && r.out.contains("\n  d2h: 1 copy, 16 B, median "),
             r.out.constData());
    QVERIFY2(!r.out.contains("1 copies"), r.out.constData());
  }

  // Walkthrough 19, finding 14: a method without copies has no copy time,
  // "none" (a bare "0" in some places, "none" in others); and a method
  // that uses no device memory ran on the host CPU, which the profile said
  // was "measured on the GPU" with its analyses from a "CUDA run".
  void aMethodWithoutCopiesSaysNoneAndNoGpu() {
    const QString program = QDir(ptescope::test::tempDir()).filePath("cpu_only_delegate.pte");
    QCOMPARE(runCli({"synth", "--scenario", "cpu_only_delegate", "-o", program}).exitCode, 0);
    auto r = runCli({"profile", program, "--runtime", "host", "--iterations", "2"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.out.contains("\n  h2d: 0 copies, 0 B, median none,") && r.out.contains(", copies none = "), r.out.constData());
    QVERIFY2(!r.out.contains("GPU]") && !r.out.contains("CUDA run"), r.out.constData());
    QVERIFY2(r.out.contains("[no GPU involved]") && r.out.contains("(source: host CPU run)"), r.out.constData());
    auto p = runCli({"predict", program});
    QVERIFY2(p.exitCode == 0, p.err.constData());
    QVERIFY2(p.out.contains("\n  h2d: 0 copies, 0 B, none\n") && p.out.contains("\n  copies: none\n"), p.out.constData());
    const QString html = QDir(ptescope::test::tempDir()).filePath("cpu_only_delegate.html");
    QCOMPARE(runCli({"report", program, "-o", html}).exitCode, 0);
    const auto bytes = ptescope::test::readAll(html);
    const std::string text(bytes.begin(), bytes.end());
    const std::string row = "<tr><td>forward</td><td>host-to-device</td><td class=\"num\" data-v=\"0\">0</td>"
                            "<td class=\"num\" data-v=\"0\">0 B</td><td class=\"num\" data-v=\"0\">none</td></tr>";
    QVERIFY2(text.find(row) != std::string::npos, "the report's Copies per call row of forward's h2d is not '0, 0 B, none'");
  }

  void badInputIsOneLine_data() {
    QTest::addColumn<QStringList>("args");
    const QString garbage = outPath("garbage.pte");
    ptescope::test::writeAll(garbage, std::vector<uint8_t>(80, 0x42));
    QTest::newRow("missing file") << QStringList{"profile", outPath("absent.pte")};
    QTest::newRow("not a program") << QStringList{"profile", garbage};
    QTest::newRow("no such method") << QStringList{"profile", demoPath(), "--method", "backward"};
    QTest::newRow("zero iterations") << QStringList{"profile", demoPath(), "--iterations", "0"};
    QTest::newRow("negative warm-up") << QStringList{"profile", demoPath(), "--warmup", "-1"};
    QTest::newRow("pinned and pageable") << QStringList{"profile", demoPath(), "--pinned", "--pageable"};
    QTest::newRow("unknown runtime") << QStringList{"profile", demoPath(), "--runtime", "gpu"};
    QTest::newRow("inputs folder missing") << QStringList{"profile", demoPath(), "--runtime", "host", "--inputs", outPath("none")};
    QTest::newRow("unwritable output") << QStringList{"profile", demoPath(), "--runtime", "host", "--iterations", "1",
                                                      "--json", outPath("no/such/folder/p.json")};
  }
  void badInputIsOneLine() {
    QFETCH(QStringList, args);
    auto r = runCli(args);
    if (args.contains("--json")) {
      // The table was printed before the write failed; the error is still one line.
      QCOMPARE(r.exitCode, 2);
      QCOMPARE(r.err.count('\n'), 1);
      return;
    }
    ptescope::test::expectOneLineCliError(r);
  }

  void interruptStopsWithWhatWasMeasured() {
    QProcess process;
    process.start(PTESCOPE_CLI, {"profile", demoPath(), "--runtime", "host", "--iterations", "1000000", "--warmup", "0"});
    QVERIFY(process.waitForStarted());
    QTest::qWait(1500);
    QCOMPARE(process.state(), QProcess::Running);
    ::kill(pid_t(process.processId()), SIGINT);
    QVERIFY(process.waitForFinished(30000));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 130);
    const QByteArray out = process.readAllStandardOutput();
    QVERIFY2(out.contains("cancelled: "), out.constData());
    QVERIFY(out.contains("h2d: 2 copies"));
    QVERIFY(process.readAllStandardError().contains("interrupted"));
  }

  // Issue 34 item 14: Ctrl+C reaches a run inside one long kernel. The one
  // iteration is a [4096, 4096] @ [4096, 4096] product (2^36 multiply-adds,
  // minutes on the CPU kernels); interrupted a few seconds in, the process
  // ends long before the product could, with nothing measured.
  void interruptStopsInsideALongKernel() {
    const QString spec = outPath("long-product.json");
    ptescope::test::writeAll(spec, [] {
      const std::string text = R"({"methods": [{"name": "forward", "inputs": ["a", "b"], "outputs": ["y"],
        "tensors": {"a": {"dtype": "float32", "sizes": [4096, 4096]}, "b": {"dtype": "float32", "sizes": [4096, 4096]},
                    "y": {"dtype": "float32", "sizes": [4096, 4096]}},
        "nodes": [{"op": "aten::mm.out", "inputs": ["a", "b"], "outputs": ["y"]}]}]})";
      return std::vector<uint8_t>(text.begin(), text.end());
    }());
    const QString program = outPath("long-product.pte");
    auto synthesized = runCli({"synth", spec, "-o", program});
    QVERIFY2(synthesized.exitCode == 0, synthesized.err.constData());
    QProcess process;
    process.start(PTESCOPE_CLI, {"profile", program, "--runtime", "host", "--iterations", "1", "--warmup", "0"});
    QVERIFY(process.waitForStarted());
    QTest::qWait(3000);
    QCOMPARE(process.state(), QProcess::Running);
    ::kill(pid_t(process.processId()), SIGINT);
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    const QByteArray err = process.readAllStandardError();
    QVERIFY2(process.exitCode() == 130 || err.contains("cancelled"), err.constData());
  }

  void compareWithAnEarlierProfile() {
    // Before: the demo; after: its forward with pre-staged inputs.
    const QString before = outPath("before.json");
    auto first = runCli({"profile", demoPath(), "--runtime", "host", "--iterations", "3", "--warmup", "1", "--json", before});
    QVERIFY2(first.exitCode == 0, first.err.constData());
    const QString skipped = outPath("demo-skip.pte");
    auto edit = runCli({"propagate", demoPath(), "-o", skipped, "--method", "forward", "--skip-h2d-inputs",
                        "--no-alloc-graph-input"});
    QVERIFY2(edit.exitCode == 0, edit.err.constData());
    const QString after = outPath("after.json");
    auto second = runCli({"profile", skipped, "--runtime", "host", "--iterations", "3", "--warmup", "1", "--compare",
                          before, "--json", after});
    QVERIFY2(second.exitCode == 0, second.err.constData());
    QVERIFY(second.out.contains("compared with " + before.toUtf8()));
    const auto earlier = readJson(before);
    const auto now = readJson(after);
    QCOMPARE(now["copies"].size() + 1, earlier["copies"].size());
    // The comparison in the JSON: the input's H2D is the one removed, with
    // the median the earlier profile measured.
    const auto& rows = now["comparison"]["copies"];
    QCOMPARE(rows.size(), earlier["copies"].size());
    size_t removed = 0;
    for (const auto& row : rows) {
      if (row["status"] != "removed") continue;
      ++removed;
      for (const auto& copy : earlier["copies"])
        if (copy["instruction"] == row["previous_instruction"]) {
          QCOMPARE(copy["direction"].get<std::string>(), std::string("h2d"));
          QCOMPARE(row["previous_median_us"].get<double>(), copy["median_us"].get<double>());
        }
    }
    QCOMPARE(removed, size_t(1));
    QCOMPARE(second.out.count("removed"), 2);  // the row and the summary line
  }

  void maxSlowdownFailsTheRun() {
    const QString base = outPath("base.json");
    auto first = runCli({"profile", demoPath(), "--runtime", "host", "--iterations", "2", "--warmup", "0", "--json", base});
    QVERIFY2(first.exitCode == 0, first.err.constData());
    // An earlier run that copied almost instantly: any real run is slower.
    auto fast = readJson(base);
    for (const char* d : {"h2d", "d2h"}) fast["totals"][d]["median_us"] = 1e-9;
    const std::string fastText = fast.dump();
    const QString fastPath = outPath("fast.json");
    ptescope::test::writeAll(fastPath, std::vector<uint8_t>(fastText.begin(), fastText.end()));
    auto slower = runCli({"profile", demoPath(), "--runtime", "host", "--iterations", "2", "--warmup", "0", "--compare",
                          fastPath, "--max-slowdown", "10"});
    QCOMPARE(slower.exitCode, 1);
    QVERIFY2(slower.err.contains("copy time grew by"), slower.err.constData());
    // And one that took an hour per copy: now is far faster.
    for (const char* d : {"h2d", "d2h"}) fast["totals"][d]["median_us"] = 3.6e9;
    const std::string slowText = fast.dump();
    ptescope::test::writeAll(fastPath, std::vector<uint8_t>(slowText.begin(), slowText.end()));
    auto faster = runCli({"profile", demoPath(), "--runtime", "host", "--iterations", "2", "--warmup", "0", "--compare",
                          fastPath, "--max-slowdown", "10"});
    QVERIFY2(faster.exitCode == 0, faster.err.constData());
    // Usage and file errors: one line, exit 2, and no run.
    ptescope::test::expectOneLineCliError(runCli({"profile", demoPath(), "--runtime", "host", "--max-slowdown", "5"}));
    ptescope::test::expectOneLineCliError(runCli({"profile", demoPath(), "--runtime", "host", "--compare", outPath("nope.json")}));
    ptescope::test::expectOneLineCliError(runCli({"profile", demoPath(), "--runtime", "host", "--compare", demoPath()}));
  }

  // The analyses (exec/ProfileAnalysis) of a host run: the transfer
  // statistics agree with the copies' own samples in the same JSON, the CSV
  // with the JSON, the host clock shows no overlap, pageable memory is found.
  void analysesOfAHostRun() {
    const QString json = outPath("analyses.json"), csv = outPath("analyses.csv");
    auto r = runCli({"profile", demoPath(), "--runtime", "host", "--iterations", "3", "--warmup", "1", "--json", json,
                     "--summary-csv", csv});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.contains("analyses (source: host emulation)"));
    QVERIFY(r.out.contains("transfer statistics over 3 measured iterations"));
    QVERIFY(r.out.contains("copy/compute overlap: cannot be seen (host clock only"));
    QVERIFY(r.out.contains("warning PRF001 [pageable-copy] method 'forward'"));
    QVERIFY(r.out.contains("PRF003 [below-peak] not judged: the emulated runtime's peak is a host memcpy"));
    const auto j = readJson(json);
    const auto& rows = j["analyses"]["summary"]["rows"];
    QCOMPARE(rows[0]["direction"].get<std::string>(), std::string("h2d"));
    QCOMPARE(rows[0]["size_class"].get<std::string>(), std::string("all"));
    // Every h2d execution: the copies' samples_us, summed by hand here.
    size_t count = 0;
    uint64_t bytes = 0;
    double total = 0;
    for (const auto& c : j["copies"]) {
      if (c["direction"] != "h2d") continue;
      for (const auto& s : c["samples_us"]) {
        ++count;
        bytes += c["bytes"].get<uint64_t>();
        total += s.get<double>();
      }
    }
    QCOMPARE(count, size_t(3 * 2));   // 2 h2d copies (the demo's totals), 3 iterations
    QCOMPARE(bytes, uint64_t(3 * 512));
    QCOMPARE(rows[0]["count"].get<size_t>(), count);
    QCOMPARE(rows[0]["bytes"].get<uint64_t>(), bytes);
    QVERIFY(std::fabs(rows[0]["total_us"].get<double>() - total) <= 1e-9 * std::max(1.0, total));
    // The CSV holds the same rows.
    const auto text = ptescope::test::readAll(csv);
    const QStringList lines = QString::fromUtf8(reinterpret_cast<const char*>(text.data()), qsizetype(text.size())).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1 + int(rows.size()));
    QVERIFY(lines[0].startsWith("method,direction,size_class,count,bytes,total_us"));
    QVERIFY(lines[1].startsWith("forward,h2d,all," + QString::number(count) + "," + QString::number(bytes) + ","));
    // Each cell is the JSON row's number itself (raw, every digit): the CSV
    // columns after size_class are the JSON keys in order.
    const std::vector<std::string> keys{"count", "bytes", "total_us", "mean_us", "median_us",
                                        "min_us", "max_us", "stddev_us", "gbps"};
    for (size_t r = 0; r < rows.size(); ++r) {
      const QStringList cells = lines[int(r) + 1].split(',');
      QCOMPARE(cells.size(), 3 + int(keys.size()));
      for (size_t k = 0; k < keys.size(); ++k) {
        bool ok = false;
        const double cell = cells[3 + int(k)].toDouble(&ok);
        QVERIFY2(ok && !cells[3 + int(k)].contains('e'), qPrintable(lines[int(r) + 1]));
        QVERIFY2(cell == rows[r][keys[k]].get<double>(), qPrintable(cells[3 + int(k)] + " in " + lines[int(r) + 1]));
      }
    }
    // The overlap is not a number on this source.
    QVERIFY(j["analyses"]["breakdown"]["overlap_us"].is_null());
    QCOMPARE(j["analyses"]["findings"][0]["id"].get<std::string>(), std::string("PRF001"));

    // Pinned arenas: no pageable finding.
    auto pinned = runCli({"profile", demoPath(), "--runtime", "host", "--iterations", "2", "--warmup", "0", "--pinned"});
    QVERIFY2(pinned.exitCode == 0, pinned.err.constData());
    QVERIFY(!pinned.out.contains("PRF001 [pageable-copy] method"));
  }

  void cudaRequestedWithoutDevice() {
    if (cudaPresent()) QSKIP("a CUDA device is present; this checks the error without one");
    auto r = runCli({"profile", demoPath(), "--runtime", "cuda"});
    ptescope::test::expectOneLineCliError(r);
    QVERIFY(r.err.contains("cannot use the CUDA runtime"));
  }
};

QTEST_GUILESS_MAIN(CliProfileTest)
#include "test_cli_profile.moc"
