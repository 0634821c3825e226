// ptescope-cli etdump: the text, JSON, CSV and trace outputs parse and carry
// the numbers of the trace (a real one from ../shared/etdump-samples when
// present, decoded by hand, and one this test writes), and bad input ends
// with one error line.
#include <QtTest>

#include <QDir>
#include <QFile>
#include <QRegularExpression>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "etdump/EtdumpWriter.h"
#include "pte/Writer.h"
#include "support/EtdumpTestSupport.h"
#include "support/TestSupport.h"
#include "synth/JsonSpec.h"
#include "synth/Scenarios.h"

using namespace ptescope;
using ptescope::test::runCli;
using ptescope::test::tempDir;

namespace {

QString outPath(const QString& name) { return QDir(tempDir()).filePath(name); }

nlohmann::json readJson(const QString& path) {
  const auto bytes = test::readAll(path);
  return nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
}

QStringList readLines(const QString& path) {
  const auto bytes = test::readAll(path);
  return QString::fromUtf8(reinterpret_cast<const char*>(bytes.data()), qsizetype(bytes.size())).split('\n', Qt::SkipEmptyParts);
}

// The demo program and a trace of its forward written by this test: every
// instruction scope lasts 1000 + 10 × instruction + iteration ticks.
struct Written {
  QString pte, etdp;
};
const Written& written() {
  static const Written w = [] {
    Written out{outPath("demo.pte"), outPath("demo.etdp")};
    auto synthesized = synth::synthesizeDemo();
    auto program = synth::applyDevicePasses(synthesized.value());
    if (!program || !pte::writeProgramFile(program.value(), out.pte.toStdString()).ok()) qFatal("demo");
    etdump::TraceSpec spec;
    spec.method = "forward";
    spec.iterations = 3;
    spec.ticks = [](size_t iteration, size_t instruction) { return uint64_t(1000 + 10 * instruction + iteration); };
    auto dump = etdump::synthesizeEtdump(program.value(), spec);
    test::writeAll(out.etdp, etdump::serializeEtdump(dump.value()));
    return out;
  }();
  return w;
}

}  // namespace

class CliEtdumpTest : public QObject {
  Q_OBJECT

 private slots:
  // executor_runner loads only the method it runs, and its trace does not
  // name it: a trace of the demo's second method ("prefill": mul, softmax,
  // not forward's add, relu) is that method's, not the first one's.
  void oneLoadOfTheSecondMethodIsThatMethods() {
    const auto& w = written();
    auto loaded = test::loadOrFail(w.pte);
    etdump::TraceSpec spec;
    spec.method = "prefill";
    spec.iterations = 2;
    auto dump = etdump::synthesizeEtdump(loaded.program, spec);
    QVERIFY(dump);
    const QString etdp = outPath("prefill.etdp"), json = outPath("prefill.json");
    test::writeAll(etdp, etdump::serializeEtdump(dump.value()));
    const auto r = runCli({"etdump", w.pte, etdp, "--json", json});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.out.contains("method 'prefill': 2 iterations"), r.out.constData());
    QVERIFY(!r.out.contains("method 'forward'"));
    QVERIFY(r.out.contains("every event fits method 'prefill' only"));
    QCOMPARE(readJson(json)["methods"][0]["method"].get<std::string>(), std::string("prefill"));
  }

  void writtenTraceInEveryFormat() {
    const auto& w = written();
    const QString json = outPath("w.json"), csv = outPath("w.csv"), trace = outPath("w.trace.json");
    const auto r = runCli({"etdump", w.pte, w.etdp, "--json", json, "--csv", csv, "--trace", trace});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.err.isEmpty(), r.err.constData());
    QVERIFY(r.out.contains("method 'forward': 3 iterations"));

    const auto j = readJson(json);
    QVERIFY(!j.is_discarded());
    QCOMPARE(j["format"].get<std::string>(), std::string("ptescope-etdump"));
    QCOMPARE(j["source"].get<std::string>(), std::string("ETDump, host clock"));
    QCOMPARE(j["methods"].size(), size_t(1));
    const auto& m = j["methods"][0];
    QCOMPARE(m["method"].get<std::string>(), std::string("forward"));
    QCOMPARE(m["iterations"].get<int>(), 3);
    QCOMPARE(m["instructions"].size(), size_t(8));
    // Instruction 3 (aten::add.out, a CPU kernel): scopes of 1030, 1031, 1032 ticks.
    const auto& add = m["instructions"][3];
    QCOMPARE(add["category"].get<std::string>(), std::string("cpu_kernel"));
    QCOMPARE(add["min_us"].get<double>(), 1.030);
    QCOMPARE(add["median_us"].get<double>(), 1.031);
    QCOMPARE(add["max_us"].get<double>(), 1.032);
    // Copy 0 (H2D, 256 bytes): kernels of 998, 999, 1000 ticks.
    QCOMPARE(m["copies"].size(), size_t(4));
    const auto& copy = m["copies"][0];
    QCOMPARE(copy["bytes"].get<int>(), 256);
    QCOMPARE(copy["median_us"].get<double>(), 0.999);
    QCOMPARE(copy["gbps"].get<double>(), 256 / 999e-9 / 1e9);
    const double shares = m["shares"]["copies"].get<double>() + m["shares"]["delegates"].get<double>() +
                          m["shares"]["cpu_kernels"].get<double>();
    QVERIFY(shares > 0.5 && shares <= 1.0);

    const QStringList rows = readLines(csv);
    QCOMPARE(rows.size(), 1 + 8);
    QVERIFY(rows[0].startsWith("method,instruction,category,label"));
    const QStringList copyRow = rows[1].split(',');
    QCOMPARE(copyRow.value(2), QString("copy"));
    QCOMPARE(copyRow.value(9), QString("256"));
    QCOMPARE(copyRow.value(11).toDouble(), 0.999);

    const auto t = readJson(trace);
    QVERIFY(!t.is_discarded());
    std::set<std::string> lanes;
    size_t slices = 0;
    for (const auto& e : t["traceEvents"]) {
      if (e["name"] == "thread_name") lanes.insert(e["args"]["name"].get<std::string>());
      if (e["ph"] == "X") ++slices;
    }
    QCOMPARE(lanes, (std::set<std::string>{"h2d copies", "d2h copies", "CPU kernels", "delegates on cuda:0", "method"}));
    // Per iteration 8 scopes + 6 kernels + 1 Method::execute; the load adds 2.
    QCOMPARE(slices, size_t(3 * (8 + 6 + 1) + 2));
    // Flow arrows per execution of the demo's forward (0 h2d → 1 delegate →
    // 2 d2h → 3 add → 4 relu → 5 h2d → 6 delegate → 7 d2h, an output):
    // 0→1, 1→2→3, 4→5→6, 6→7; counters: a start and an end per copy kernel.
    std::map<uint64_t, size_t> flowPoints;
    std::map<std::string, size_t> counters;
    for (const auto& e : t["traceEvents"]) {
      if (e["ph"] == "s" || e["ph"] == "t" || e["ph"] == "f") ++flowPoints[e["id"].get<uint64_t>()];
      if (e["ph"] == "C") ++counters[e["name"].get<std::string>()];
    }
    QCOMPARE(flowPoints.size(), size_t(3 * 4));
    size_t three = 0;
    for (const auto& [id, n] : flowPoints) three += n == 3;
    QCOMPARE(three, size_t(3 * 2));
    QCOMPARE(counters["h2d bytes in flight"], size_t(3 * 2 * 2));
    QCOMPARE(counters["d2h bandwidth"], size_t(3 * 2 * 2));
  }

  // The analyses of a runtime trace: transfer statistics from the trace's
  // own timing rule, a host clock (no overlap), no host memory kind.
  // --summary-csv is for scripts: every number raw (counts and bytes as
  // integers, times in µs and GB/s as plain decimals, no exponent, no unit
  // in a cell, the unit in the header), with the full precision of the
  // double. The h2d row worked out by hand from the trace's ticks.
  void summaryCsvHoldsRawNumbers() {
    const auto& w = written();
    const QString json = outPath("raw.json"), csv = outPath("raw.csv");
    const auto r = runCli({"etdump", w.pte, w.etdp, "--json", json, "--summary-csv", csv});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QStringList lines = readLines(csv);
    QCOMPARE(lines.value(0), QString("method,direction,size_class,count,bytes,total_us,mean_us,median_us,min_us,max_us,stddev_us,gbps"));
    QVERIFY(lines.size() >= 2);
    const QRegularExpression integer("^[0-9]+$"), decimal("^[0-9]+(\\.[0-9]+)?$");
    for (const QString& line : lines.mid(1)) {
      const QStringList f = line.split(',');
      QCOMPARE(f.size(), 12);
      for (int c : {3, 4}) QVERIFY2(integer.match(f[c]).hasMatch(), qPrintable(line));
      for (int c = 5; c < 12; ++c) QVERIFY2(decimal.match(f[c]).hasMatch(), qPrintable(line));
    }
    // Every h2d copy kernel (native_call, one tick inside its scope at both
    // ends) lasts 1000 + 10 × instruction + iteration - 2 ns; instructions
    // and bytes are the program's (the JSON's copies list).
    std::vector<double> ns;
    uint64_t bytes = 0;
    const auto j = readJson(json);
    for (const auto& c : j["methods"][0]["copies"]) {
      if (c["direction"] != "h2d") continue;
      for (int iteration = 0; iteration < 3; ++iteration) {
        ns.push_back(1000 + 10 * c["instruction"].get<double>() + iteration - 2);
        bytes += c["bytes"].get<uint64_t>();
      }
    }
    QVERIFY(ns.size() >= 2);
    std::sort(ns.begin(), ns.end());
    double total = 0;
    for (double t : ns) total += t;
    const double n = double(ns.size()), mean = total / n;
    double squares = 0;
    for (double t : ns) squares += (t - mean) * (t - mean);
    const double median = ns.size() % 2 ? ns[ns.size() / 2] : (ns[ns.size() / 2 - 1] + ns[ns.size() / 2]) / 2;
    const QStringList h2d = lines[1].split(',');
    QCOMPARE(h2d.mid(0, 3), (QStringList{"forward", "h2d", "all"}));
    QCOMPARE(h2d[3].toULongLong(), qulonglong(ns.size()));
    QCOMPARE(h2d[4].toULongLong(), qulonglong(bytes));
    // Full precision: within 1e-12 of the hand-worked value (a cell rounded
    // to 2 decimals of µs, as the text prints it, is off by up to 5e-3).
    auto expectNear = [&](int column, double expected) {
      const double got = h2d[column].toDouble();
      QVERIFY2(std::fabs(got - expected) <= 1e-12 * std::max(1.0, std::fabs(expected)),
               qPrintable(h2d[column] + " vs " + QString::number(expected, 'g', 17)));
    };
    expectNear(5, total / 1000);
    expectNear(6, mean / 1000);
    expectNear(7, median / 1000);
    expectNear(8, ns.front() / 1000);
    expectNear(9, ns.back() / 1000);
    expectNear(10, std::sqrt(squares / (n - 1)) / 1000);
    expectNear(11, double(bytes) / total);  // bytes per ns = 10^9 bytes per second
  }

  void analysesOfATrace() {
    const auto& w = written();
    const QString json = outPath("a.json"), csv = outPath("a.csv");
    const auto r = runCli({"etdump", w.pte, w.etdp, "--json", json, "--summary-csv", csv});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.contains("analyses (source: runtime trace (ETDump, host clock))"));
    QVERIFY(r.out.contains("copy/compute overlap: cannot be seen (host clock only"));
    QVERIFY(r.out.contains("PRF001 [pageable-copy] not judged"));
    const auto j = readJson(json);
    const auto& m = j["methods"][0];
    // Each copy kernel (native_call, one tick inside its scope at both ends)
    // lasts 1000 + 10 × instruction + iteration - 2 ticks of 1 ns.
    size_t count = 0;
    uint64_t bytes = 0;
    double totalNs = 0;
    for (const auto& c : m["copies"]) {
      if (c["direction"] != "h2d") continue;
      const double i = c["instruction"].get<double>();
      for (int iteration = 0; iteration < 3; ++iteration) {
        ++count;
        bytes += c["bytes"].get<uint64_t>();
        totalNs += 1000 + 10 * i + iteration - 2;
      }
    }
    const auto& row = m["analyses"]["summary"]["rows"][0];
    QCOMPARE(row["direction"].get<std::string>(), std::string("h2d"));
    QCOMPARE(row["count"].get<size_t>(), count);
    QCOMPARE(row["bytes"].get<uint64_t>(), bytes);
    QVERIFY(std::fabs(row["total_us"].get<double>() - totalNs / 1000) < 1e-9);
    QCOMPARE(m["analyses"]["source"]["kind"].get<std::string>(), std::string("host_clock"));
    QVERIFY(m["analyses"]["breakdown"]["overlap_us"].is_null());
    const QStringList rows = readLines(csv);
    QVERIFY(rows.size() >= 2);
    QVERIFY(rows[0].startsWith("method,direction,size_class,"));
    QVERIFY(rows[1].startsWith("forward,h2d,all," + QString::number(count) + ","));
    // No link peak in a trace: PRF003 is not judged, unless --link gives one.
    auto notJudged = [](const nlohmann::json& method, const std::string& id) {
      for (const auto& line : method["analyses"]["not_judged"])
        if (line.get<std::string>().rfind(id, 0) == 0) return true;
      return false;
    };
    QVERIFY(notJudged(m, "PRF003"));
    QVERIFY(notJudged(m, "PRF001"));
    const auto linked = runCli({"etdump", w.pte, w.etdp, "--json", json, "--link", "pcie-gen4-x16"});
    QVERIFY2(linked.exitCode == 0, linked.err.constData());
    QVERIFY(!notJudged(readJson(json)["methods"][0], "PRF003"));
    QVERIFY(!linked.out.contains("PRF003 [below-peak] not judged"));
    test::expectOneLineCliError(runCli({"etdump", w.pte, w.etdp, "--link", "no-such-link"}));
  }

  // Walkthrough 20: a trace recorded with method-level profiling only has
  // the runs' times and no instruction's; its run was split as "kernels 0
  // (0.0%) ... gaps 100.0%" and "CPU kernels 0, runtime between
  // instructions <the whole run>", as if the kernel had not run. The app's
  // Timeline said it cannot be split; so does every text now.
  void aMethodLevelTraceIsNotSplit() {
    PTESCOPE_REQUIRE_ETDUMP_SAMPLES();
    const QString dir = test::etdumpSamplesDir();
    const auto r = runCli({"etdump", dir + "/add.pte", dir + "/add.profile-method-only.etdp"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QString out = QString::fromUtf8(r.out);
    QVERIFY2(out.contains("no instruction events"), qPrintable(out));  // the sample is what its name says
    QVERIFY2(out.contains("  per iteration: no instruction was timed, so the run cannot be split\n"), qPrintable(out));
    QVERIFY2(out.contains(": no instruction was timed, so it cannot be split\n"), qPrintable(out));
    QVERIFY2(!out.contains("gaps") && !out.contains("runtime between instructions"), qPrintable(out));
    const QString html = outPath("method-only.html");
    QCOMPARE(runCli({"report", dir + "/add.pte", "--etdump", dir + "/add.profile-method-only.etdp", "-o", html}).exitCode, 0);
    const auto bytes = test::readAll(html);
    const std::string text(bytes.begin(), bytes.end());
    QVERIFY2(text.find(": no instruction was timed, so it cannot be split.") != std::string::npos, "the report splits the run");
  }

  // A real trace, numbers decoded by hand (see test_etdump.cpp for the decode).
  void sampleTraceAsDecodedByHand() {
    PTESCOPE_REQUIRE_ETDUMP_SAMPLES();
    const QString dir = test::etdumpSamplesDir();
    const QString json = outPath("s.json"), csv = outPath("s.csv");
    const auto r = runCli({"etdump", dir + "/scenario_h2d_d2h.pte", dir + "/scenario_h2d_d2h.etdp", "--json", json, "--csv", csv});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto j = readJson(json);
    const auto& copies = j["methods"][0]["copies"];
    QCOMPARE(copies.size(), size_t(3));
    QCOMPARE(copies[0]["min_us"].get<double>(), 0.083);
    QCOMPARE(copies[0]["median_us"].get<double>(), 0.086);
    QCOMPARE(copies[0]["max_us"].get<double>(), 0.119);
    QCOMPARE(copies[2]["direction"].get<std::string>(), std::string("d2h"));
    QCOMPARE(copies[2]["median_us"].get<double>(), 0.081);
    QCOMPARE(j["methods"][0]["run"]["median_us"].get<double>(), 3.747);
    QCOMPARE(readLines(csv).size(), 1 + 4);

    // A multi-method trace lists both methods; --method moves every block onto one.
    const auto multi = runCli({"etdump", dir + "/multi-method.pte", dir + "/multi-method.etdp", "--json", json});
    QCOMPARE(multi.exitCode, 0);
    QCOMPARE(readJson(json)["methods"].size(), size_t(2));
    const auto one = runCli({"etdump", dir + "/multi-method.pte", dir + "/multi-method.etdp", "--method", "forward", "--json", json});
    QCOMPARE(one.exitCode, 0);
    const auto single = readJson(json);
    QCOMPARE(single["methods"].size(), size_t(1));
    QCOMPARE(single["methods"][0]["iterations"].get<int>(), 6);

    // The demo's trace has two methods with copies, one process each: their
    // flow arrows have ids of their own (viewers match a flow by its id).
    const QString trace = outPath("demo-sample.trace.json");
    const auto demo = runCli({"etdump", dir + "/demo.pte", dir + "/demo.etdp", "--trace", trace});
    QCOMPARE(demo.exitCode, 0);
    std::map<uint64_t, std::set<int>> pidsOfFlow;
    const auto demoTrace = readJson(trace);
    for (const auto& e : demoTrace["traceEvents"])
      if (e["ph"] == "s" || e["ph"] == "t" || e["ph"] == "f") pidsOfFlow[e["id"].get<uint64_t>()].insert(e["pid"].get<int>());
    std::set<int> pids;
    for (const auto& [id, in] : pidsOfFlow) {
      QCOMPARE(in.size(), size_t(1));
      pids.insert(*in.begin());
    }
    QCOMPARE(pids.size(), size_t(2));
  }

  void badInput() {
    const auto& w = written();
    const auto good = test::readAll(w.etdp);
    const QString truncated = outPath("truncated.etdp");
    test::writeAll(truncated, std::vector<uint8_t>(good.begin(), good.begin() + std::ptrdiff_t(good.size() / 2)));
    const QString wrongId = outPath("wrong-id.etdp");
    auto id = good;
    id[8] = 'Z';
    test::writeAll(wrongId, id);
    // A trace of another program: a scenario's trace against the demo.
    const QString otherPte = outPath("other.pte"), otherEtdp = outPath("other.etdp");
    {
      auto scenario = synth::synthesizeScenario("add_then_sin");
      auto program = synth::applyDevicePasses(scenario.value());
      QVERIFY(program);
      auto dump = etdump::synthesizeEtdump(program.value(), {});
      test::writeAll(otherEtdp, etdump::serializeEtdump(dump.value()));
    }
    const std::vector<std::pair<QStringList, QString>> cases = {
        {{"etdump", w.pte, truncated}, "truncated"},
        {{"etdump", w.pte, wrongId}, "no 'ED00' identifier"},
        {{"etdump", w.pte, otherEtdp}, "does not describe this program"},
        {{"etdump", w.pte, w.pte}, "not an ETDump"},
        {{"etdump", w.pte, outPath("absent.etdp")}, "absent.etdp"},
        {{"etdump", w.pte, w.etdp, "--method", "nope"}, "no method named 'nope'"},
        {{"etdump", w.pte, w.etdp, "--tick-ns", "0"}, "tick"},
    };
    for (const auto& [args, expected] : cases) {
      const auto r = runCli(args);
      test::expectOneLineCliError(r);
      QVERIFY2(QString::fromUtf8(r.err).contains(expected), qPrintable(args.join(' ') + ": " + QString::fromUtf8(r.err)));
    }
    // Nothing half-written: a failing run leaves no output file.
    const QString json = outPath("never.json");
    runCli({"etdump", w.pte, truncated, "--json", json});
    QVERIFY(!QFile::exists(json));
  }
};

QTEST_GUILESS_MAIN(CliEtdumpTest)
#include "test_cli_etdump.moc"
