// ptescope-cli predict, probe-link, and the prediction lines of propagate and
// diff, as a user runs them. Expected times are computed here from the
// built-in profile files themselves (resources/links/*.json, read with
// nlohmann-json, interpolated by this file's own code), not by the code
// under test.
#include <QtTest>

#include <QDir>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "exec/DeviceRuntime.h"
#include "pte/Writer.h"
#include "support/TestSupport.h"
#include "synth/JsonSpec.h"
#include "synth/Scenarios.h"

using ptescope::test::runCli;
using ptescope::test::tempDir;
using ptescope::test::microsAfter;
using ptescope::test::sameToThreeDigits;

namespace {

QString outPath(const QString& name) { return QDir(tempDir()).filePath(name); }

QString writeProgram(const QString& name, bool passes) {
  const QString file = outPath(name);
  auto built = ptescope::synth::synthesizeDemo();
  if (!built) return {};
  auto program = passes ? ptescope::synth::applyDevicePasses(built.value())
                        : ptescope::Result<ptescope::program::Program>(built->program);
  if (!program || !ptescope::pte::writeProgramFile(program.value(), file.toStdString()).ok()) return {};
  return file;
}

QString demoPath() {
  static const QString path = writeProgram("demo.pte", true);
  return path;
}

// One 128 MiB float32 tensor each way (tests/gpu/large-copy.json).
QString largeCopyPath() {
  static const QString path = [] {
    const QString file = outPath("large.pte");
    auto built = ptescope::synth::synthesizeFromSpecFile(PTESCOPE_SOURCE_DIR "/tests/gpu/large-copy.json");
    if (!built) return QString();
    auto program = ptescope::synth::applyDevicePasses(built.value());
    if (!program || !ptescope::pte::writeProgramFile(program.value(), file.toStdString()).ok()) return QString();
    return file;
  }();
  return path;
}

nlohmann::json parse(const QByteArray& text) { return nlohmann::json::parse(text.begin(), text.end(), nullptr, false); }

// The built-in file's points for one curve, in (bytes, microseconds).
std::vector<std::pair<double, double>> pointsOf(const std::string& link, const std::string& direction,
                                                const std::string& memory) {
  std::ifstream in(std::string(PTESCOPE_SOURCE_DIR) + "/resources/links/" + link + ".json");
  const auto j = nlohmann::json::parse(in, nullptr, false);
  std::vector<std::pair<double, double>> points;
  if (j.is_discarded()) return points;
  for (const auto& c : j["curves"])
    if (c["direction"] == direction && c["host_memory"] == memory)
      for (const auto& p : c["points"]) points.emplace_back(p["bytes"].get<double>(), p["us"].get<double>());
  return points;
}

// The documented rule: first point's time below it, linear between points,
// the last segment continued above.
double expectedMicros(const std::vector<std::pair<double, double>>& pts, double bytes) {
  if (bytes == 0 || pts.empty()) return 0;
  if (bytes <= pts.front().first) return pts.front().second;
  size_t i = 1;
  while (i + 1 < pts.size() && pts[i].first < bytes) ++i;
  const auto& [x0, y0] = pts[i - 1];
  const auto& [x1, y1] = pts[i];
  return y0 + (y1 - y0) * (bytes - x0) / (x1 - x0);
}

bool close(double a, double b) { return std::abs(a - b) <= 1e-6 * std::max({std::abs(a), std::abs(b), 1e-3}); }

}  // namespace

class CliPredictTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QVERIFY(!demoPath().isEmpty());
    QVERIFY(!largeCopyPath().isEmpty());
    QVERIFY(!pointsOf("pcie-gen4-x16", "h2d", "pageable").empty());
  }

  // predict --baseline with budgets, the CI gate (issue 28): the demo has one
  // h2d copy more than its skip_h2d twin (256 B, so its predicted time is
  // that of the twin's same-sized h2d): growth = one h2d's time over the
  // twin's total; exit 1 and one "budget exceeded:" line per budget broken.
  void baselineBudgetsGateCi() {
    const QString dir = tempDir() + "/predict-budgets";
    QDir().mkpath(dir);
    const QString demo = dir + "/demo.pte", twin = dir + "/twin.pte";
    QCOMPARE(runCli({"synth", "--demo", "-o", demo}).exitCode, 0);
    QCOMPARE(runCli({"propagate", demo, "-o", twin, "--skip-h2d-inputs", "--no-alloc-graph-input"}).exitCode, 0);
    auto totals = [](const QString& file) {
      auto r = runCli({"predict", file, "--json"});
      return nlohmann::json::parse(r.out.toStdString());
    };
    const auto a = totals(twin), b = totals(demo);
    const double before = a["copy_us"].get<double>(), after = b["copy_us"].get<double>();
    QVERIFY(after > before && before > 0);
    const double growth = (after - before) / before * 100.0;

    auto over = runCli({"predict", demo, "--baseline", twin, "--max-growth", "10", "--max-copies", "3", "--max-copy-bytes", "100K"});
    QCOMPARE(over.exitCode, 1);
    QCOMPARE(over.out.count("budget exceeded:"), 2);
    QVERIFY(over.out.contains("within budget: 832 B copied per call"));
    auto json = runCli({"predict", demo, "--baseline", twin, "--max-growth", "10", "--json"});
    QCOMPARE(json.exitCode, 1);
    const auto j = nlohmann::json::parse(json.out.toStdString());
    QVERIFY(std::abs(j["growth_percent"].get<double>() - growth) < 1e-6);
    QCOMPARE(j["copies_added"].get<int>(), 1);
    QCOMPARE(j["copies_removed"].get<int>(), 0);
    QCOMPARE(j["current"]["copies"].get<int>(), 4);
    QCOMPARE(j["baseline"]["copies"].get<int>(), 3);
    QCOMPARE(j["exceeded"].get<bool>(), true);
    // Within every budget: exit 0; the other way round the time shrank.
    QCOMPARE(runCli({"predict", demo, "--baseline", twin, "--max-growth", "50", "--max-copies", "4"}).exitCode, 0);
    QCOMPARE(runCli({"predict", twin, "--baseline", demo, "--max-growth", "0"}).exitCode, 0);
    // A baseline without copies says so in words, and one copy is one copy.
    const QString none = dir + "/none.pte";
    QCOMPARE(runCli({"synth", "--scenario", "skip_both_unplanned_io", "-o", none}).exitCode, 0);
    auto fromNone = runCli({"predict", demo, "--baseline", none, "--max-copies", "9"});
    QVERIFY2(fromNone.out.contains(": no copies per call\n"), fromNone.out.constData());
    QVERIFY2(fromNone.out.contains(": 4 copies, 832 B, "), fromNone.out.constData());
    // Usage errors: one line, exit 2.
    auto noBase = runCli({"predict", demo, "--max-growth", "5"});
    QCOMPARE(noBase.exitCode, 2);
    QVERIFY(noBase.err.contains("--baseline"));
    QCOMPARE(runCli({"predict", demo, "--max-copy-bytes", "lots"}).exitCode, 2);
    QCOMPARE(runCli({"predict", demo, "--baseline", dir + "/missing.pte"}).exitCode, 2);
  }

  void textOnTheDefaultLink() {
    auto r = runCli({"predict", demoPath(), "--compute-ms", "2"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.contains("predicted copies of method 'forward' in demo.pte"));
    QVERIFY(r.out.contains("link: PCIe Gen4 x16 (built-in, typical figures), pageable host memory"));
    QVERIFY(r.out.contains("Typical figures, not guarantees"));
    // Four copies of at most 1 KiB: each costs the first point's time.
    const double h2d = pointsOf("pcie-gen4-x16", "h2d", "pageable").front().second;
    const double d2h = pointsOf("pcie-gen4-x16", "d2h", "pageable").front().second;
    // Sentences write durations with three digits and their unit.
    const auto h2dShown = microsAfter(r.out, "h2d: 2 copies, 512 B, ");
    const auto d2hShown = microsAfter(r.out, "d2h: 2 copies, 320 B, ");
    QVERIFY2(h2dShown && sameToThreeDigits(*h2dShown, 2 * h2d), r.out.constData());
    QVERIFY2(d2hShown && sameToThreeDigits(*d2hShown, 2 * d2h), r.out.constData());
    const double copies = 2 * h2d + 2 * d2h;
    const auto perIteration = microsAfter(r.out, "copies: ");
    QVERIFY2(perIteration && sameToThreeDigits(*perIteration, copies), r.out.constData());
    QVERIFY2(r.out.contains(" per iteration"), r.out.constData());
    const double share = copies / (2000 + copies) * 100;
    QVERIFY2(r.out.contains("with 2.000 ms of compute: copies are " + QByteArray::number(share, 'f', 1) + "% of a"),
             r.out.constData());
    QCOMPARE(r.out.count("\n       0  h2d"), 1);  // the first copy's row
  }

  void jsonMatchesTheFormula() {
    for (const std::string link : {"pcie-gen3-x16", "pcie-gen5-x16", "nvlink-c2c"}) {
      auto r = runCli({"predict", largeCopyPath(), "--link", QString::fromStdString(link), "--pinned", "--compute-ms",
                       "10", "--json"});
      QVERIFY2(r.exitCode == 0, r.err.constData());
      const auto j = parse(r.out);
      QVERIFY(!j.is_discarded());
      QCOMPARE(j["format"].get<std::string>(), std::string("ptescope-prediction"));
      QCOMPARE(j["link"]["name"].get<std::string>(), link);
      QCOMPARE(j["host_memory"].get<std::string>(), std::string("pinned"));
      QCOMPARE(j["copies"].size(), size_t(2));
      double total = 0;
      for (const auto& c : j["copies"]) {
        const double bytes = c["bytes"].get<double>();
        QCOMPARE(bytes, 128.0 * 1024 * 1024);
        // 128 MiB lies between the 64 MiB and 256 MiB points.
        const double expected = expectedMicros(pointsOf(link, c["direction"].get<std::string>(), "pinned"), bytes);
        QVERIFY2(close(c["predicted_us"].get<double>(), expected), c.dump().c_str());
        QVERIFY(close(c["predicted_gbps"].get<double>(), bytes / (expected * 1e-6) / 1e9));
        total += expected;
      }
      QVERIFY(close(j["copy_us"].get<double>(), total));
      QVERIFY(close(j["totals"]["h2d"]["predicted_us"].get<double>() + j["totals"]["d2h"]["predicted_us"].get<double>(), total));
      QVERIFY(close(j["copy_share"].get<double>(), total / (10000 + total)));
    }
  }

  void measuredBesidePredicted() {
    const QString profile = outPath("demo.profile.json");
    auto run = runCli({"profile", demoPath(), "--runtime", "host", "--iterations", "3", "--warmup", "1", "--json", profile});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    auto r = runCli({"predict", demoPath(), "--measured", profile, "--json"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto j = parse(r.out);
    const auto measuredBytes = ptescope::test::readAll(profile);
    const auto measured = nlohmann::json::parse(measuredBytes.begin(), measuredBytes.end());
    QCOMPARE(j["copies"].size(), measured["copies"].size());
    for (const auto& c : j["copies"]) {
      // The same copy in the profile: same direction and source.
      const nlohmann::json* m = nullptr;
      for (const auto& candidate : measured["copies"])
        if (candidate["direction"] == c["direction"] && candidate["source"] == c["source"]) m = &candidate;
      QVERIFY(m != nullptr);
      QVERIFY(close(c["measured_median_us"].get<double>(), (*m)["median_us"].get<double>()));
      QVERIFY(close(c["measured_over_predicted"].get<double>(),
                    (*m)["median_us"].get<double>() / c["predicted_us"].get<double>()));
    }
    QVERIFY(j["measured"]["emulated"].get<bool>());
    auto text = runCli({"predict", demoPath(), "--measured", profile});
    QVERIFY(text.out.contains("measured/predicted"));
    QVERIFY(text.out.contains("emulated: host memcpy, not a link"));
  }

  void emulatedProfilesSayWhatTheyMeasured() {
    auto r = runCli({"profile", demoPath(), "--runtime", "host", "--iterations", "2", "--warmup", "0"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(!r.out.contains("of peak"));
    QVERIFY(!r.out.contains("link peak"));
    QVERIFY(r.out.contains("memcpy GB/s"));
    QVERIFY(r.out.contains("host memcpy (emulated, not a GPU link"));
  }

  void propagateAndDiffPrintTheSaving() {
    const QString before = writeProgram("pre.pte", false);
    QVERIFY(!before.isEmpty());
    const QString after = outPath("post.pte");
    auto r = runCli({"propagate", before, "-o", after});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    // The pre-pass demo copies nothing; after the passes its forward makes
    // the four copies of at most 1 KiB priced above.
    const double h2d = pointsOf("pcie-gen4-x16", "h2d", "pageable").front().second;
    const double d2h = pointsOf("pcie-gen4-x16", "d2h", "pageable").front().second;
    const QByteArray forward = "predicted copy time per run of method 'forward' on PCIe Gen4 x16 (built-in, typical "
                               "figures), pageable host memory: 0 -> ";
    const auto copyTime = microsAfter(r.out, forward);
    QVERIFY2(copyTime && sameToThreeDigits(*copyTime, 2 * h2d + 2 * d2h), r.out.constData());
    const auto added = microsAfter(r.out.mid(r.out.indexOf(forward)), "(adds ");
    QVERIFY2(added && *added == *copyTime, r.out.constData());

    // Going back saves that much, on whichever link is named.
    auto d = runCli({"diff", after, before, "--link", "nvlink-c2c", "--pinned", "--json"});
    QVERIFY2(d.exitCode == 0, d.err.constData());
    const auto j = parse(d.out);
    QVERIFY(j.contains("predicted"));
    const nlohmann::json* fwd = nullptr;
    for (const auto& m : j["predicted"])
      if (m["method"] == "forward") fwd = &m;
    QVERIFY(fwd != nullptr);
    const double c2c = 2 * pointsOf("nvlink-c2c", "h2d", "pinned").front().second +
                       2 * pointsOf("nvlink-c2c", "d2h", "pinned").front().second;
    QCOMPARE((*fwd)["link"].get<std::string>(), std::string("nvlink-c2c"));
    QVERIFY(close((*fwd)["before_us"].get<double>(), c2c));
    QVERIFY(close((*fwd)["after_us"].get<double>(), 0));
    QVERIFY(close((*fwd)["delta_us"].get<double>(), -c2c));
    auto t = runCli({"diff", after, before, "--link", "nvlink-c2c", "--pinned"});
    const auto saved = microsAfter(t.out, "(saves ");
    QVERIFY2(saved && sameToThreeDigits(*saved, c2c), t.out.constData());
    QVERIFY2(t.out.contains(", -100.0%)"), t.out.constData());
  }

  void probeLink() {
    const QString out = outPath("probe.json");
    auto r = runCli({"probe-link", "-o", out, "--max-bytes", "65536", "--repeats", "2"});
    if (ptescope::exec::selectRuntime(ptescope::exec::RuntimePreference::Cuda).ok()) {
      QVERIFY2(r.exitCode == 0, r.err.constData());  // a GPU: it measures
    } else {
      ptescope::test::expectOneLineCliError(r);
      QVERIFY(r.err.contains("probe-link needs a CUDA GPU"));
      QVERIFY(!QFile::exists(out));
    }
    auto e = runCli({"probe-link", "--emulated", "-o", out, "--max-bytes", "65536", "--repeats", "2"});
    QVERIFY2(e.exitCode == 0, e.err.constData());
    const auto bytes = ptescope::test::readAll(out);
    const auto j = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
    QCOMPARE(j["kind"].get<std::string>(), std::string("emulated"));
    QCOMPARE(j["curves"].size(), size_t(5));  // h2d, d2h pinned and pageable; d2d
    QCOMPARE(j["curves"][4]["direction"].get<std::string>(), std::string("d2d"));
    // The written profile is usable as --link FILE.
    auto p = runCli({"predict", demoPath(), "--link", out});
    QVERIFY2(p.exitCode == 0, p.err.constData());
    QVERIFY(p.out.contains("emulated: host memcpy, not a GPU link"));
    // The CUDA-graph replay copies (d2d) are priced on its d2d curve, not
    // an assumed figure; a built-in profile has no d2d curve and says so.
    auto measured = runCli({"predict", demoPath(), "--link", out, "--cuda-graph", "forward", "--json"});
    QVERIFY2(measured.exitCode == 0, measured.err.constData());
    QCOMPARE(nlohmann::json::parse(measured.out.toStdString())["d2d_assumed"].get<bool>(), false);
    auto typical = runCli({"predict", demoPath(), "--link", "pcie-gen4-x16", "--cuda-graph", "forward"});
    QVERIFY2(typical.exitCode == 0, typical.err.constData());
    QVERIFY2(typical.out.contains("d2d: no device-to-device curve in this link profile: assumed 2.00 \xC2\xB5s + bytes at "
                                  "1000 GB/s; `ptescope-cli probe-link` measures one"),
             typical.out.constData());
    auto typicalJson = runCli({"predict", demoPath(), "--link", "pcie-gen4-x16", "--cuda-graph", "forward", "--json"});
    QCOMPARE(nlohmann::json::parse(typicalJson.out.toStdString())["d2d_assumed"].get<bool>(), true);
    // Without d2d copies there is nothing assumed to say.
    QVERIFY(!runCli({"predict", demoPath(), "--link", "pcie-gen4-x16"}).out.contains("assumed"));
  }

  void badInput() {
    ptescope::test::expectOneLineCliError(runCli({"predict", outPath("missing.pte")}));
    ptescope::test::expectOneLineCliError(runCli({"predict", demoPath(), "--link", "pcie-gen9"}));
    ptescope::test::expectOneLineCliError(runCli({"predict", demoPath(), "--method", "nope"}));
    ptescope::test::expectOneLineCliError(runCli({"predict"}));
    const QString bad = outPath("bad-link.json");
    ptescope::test::writeAll(bad, {'{', '}'});
    auto r = runCli({"predict", demoPath(), "--link", bad});
    ptescope::test::expectOneLineCliError(r);
    QVERIFY(r.err.contains("bad-link.json: not a link profile"));
    ptescope::test::expectOneLineCliError(runCli({"propagate", demoPath(), "-o", outPath("x.pte"), "--link", "nope"}));
    QVERIFY(!QFile::exists(outPath("x.pte")));  // checked before writing
    ptescope::test::expectOneLineCliError(
        runCli({"profile", demoPath(), "--runtime", "host", "--save-link", outPath("l.json")}));
  }
};

QTEST_GUILESS_MAIN(CliPredictTest)
#include "test_cli_predict.moc"
