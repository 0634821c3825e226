// ptescope-cli report: the one-file HTML report. Its graphs have the nodes
// of the app's first picture (what `render` draws), its copies tables one
// row per copy (`info --json`), --compare the copies `diff` finds, the
// measurements beside predictions; the Content-Security-Policy hashes are
// those of the report's own script and style (checked with Qt's SHA-256, not
// core's); and a program whose names carry markup, script and bytes that
// are not UTF-8 gives a document in which every tag is the report's own.
#include <QtTest>

#include <QCryptographicHash>
#include <QDir>
#include <QRegularExpression>

#include <nlohmann/json.hpp>

#include <set>

#include "etdump/EtdumpWriter.h"
#include "pte/Writer.h"
#include "support/RoundTripPrograms.h"
#include "support/TestSupport.h"
#include "synth/JsonSpec.h"
#include "synth/Scenarios.h"

using namespace ptescope;
using ptescope::test::runCli;
using ptescope::test::tempDir;

namespace {

QString outPath(const QString& name) { return QDir(tempDir()).filePath(name); }

QString readText(const QString& path) {
  const auto bytes = test::readAll(path);
  return QString::fromUtf8(reinterpret_cast<const char*>(bytes.data()), qsizetype(bytes.size()));
}

nlohmann::json parseJson(const QByteArray& text) { return nlohmann::json::parse(text.begin(), text.end(), nullptr, false); }

const QString& demoPath() {
  static const QString path = [] {
    const QString out = outPath("demo.pte");
    if (runCli({"synth", "--demo", "-o", out}).exitCode != 0) qFatal("synth --demo");
    return out;
  }();
  return path;
}

// Payloads for every place a name lands.
const std::string kMethodName = "fwd</script><script>alert(1)</script>\xFF";
const std::string kOperatorName = "et_copy::<img src=x onerror=alert(2)>";
const std::string kDelegateId = "Cuda\"'><svg onload=alert(3)>\xE2\x82";
const std::string kSpecKey = "<b onmouseover=alert(4)>";
const std::string kSpecValue = "</style><script>alert(5)</script>\xFF\xFE";

QString hostilePath() {
  static const QString path = [] {
    program::Program p = test::upstreamOrderedAddProgram();
    auto& m = p.methods().front();
    m.name = kMethodName;
    (*m.operators)[0].name = kOperatorName;
    auto& delegate = (*m.delegates)[0];
    delegate.id = kDelegateId;
    program::CompileSpec spec;
    spec.key = kSpecKey;
    spec.value = std::vector<uint8_t>(kSpecValue.begin(), kSpecValue.end());
    delegate.compile_specs->push_back(spec);
    auto bytes = pte::serializeProgram(p);
    if (!bytes) return QString();
    const QString file = outPath("hostile.pte");
    test::writeAll(file, bytes.value());
    return file;
  }();
  return path;
}

// Every tag of an HTML document outside <script>/<style> text, by name,
// and the names of their attributes.
struct Tag {
  QString name;
  bool closing = false;
  QStringList attributes;
};
QList<Tag> tagsOf(const QString& html, QString* error) {
  QList<Tag> tags;
  static const QRegularExpression attribute(R"re(\s([^\s=/>"']+)(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?)re");
  qsizetype i = 0;
  while ((i = html.indexOf('<', i)) >= 0) {
    if (html.mid(i, 4) == "<!--") {
      i = html.indexOf("-->", i);
      if (i < 0) break;
      continue;
    }
    const qsizetype end = html.indexOf('>', i);
    if (end < 0) {
      *error = "unterminated tag at " + QString::number(i);
      return tags;
    }
    // Quotes may hold '>': extend to the '>' outside quotes.
    qsizetype close = i + 1;
    QChar quote;
    for (; close < html.size(); ++close) {
      const QChar c = html[close];
      if (!quote.isNull()) {
        if (c == quote) quote = QChar();
      } else if (c == '"' || c == '\'') {
        quote = c;
      } else if (c == '>') {
        break;
      }
    }
    const QString text = html.mid(i, close - i + 1);
    static const QRegularExpression nameRe(R"(^</?([A-Za-z!][A-Za-z0-9:-]*))");
    const auto name = nameRe.match(text);
    if (!name.hasMatch()) {
      *error = "a '<' that starts no tag: " + html.mid(i, 40);
      return tags;
    }
    Tag tag{name.captured(1).toLower(), text.startsWith("</"), {}};
    if (!text.startsWith("</")) {
      auto it = attribute.globalMatch(text.mid(name.capturedLength()));
      while (it.hasNext()) tag.attributes << it.next().captured(1).toLower();
    }
    tags << tag;
    i = close + 1;
    if (!text.startsWith("</") && (tag.name == "script" || tag.name == "style")) {
      i = html.indexOf("</" + tag.name, i, Qt::CaseInsensitive);
      if (i < 0) break;
    }
  }
  return tags;
}

QString between(const QString& text, const QString& open, const QString& close) {
  const qsizetype a = text.indexOf(open);
  if (a < 0) return {};
  const qsizetype b = text.indexOf(close, a + open.size());
  return b < 0 ? QString() : text.mid(a + open.size(), b - a - open.size());
}

QString cspHash(const QString& text) {
  return "'sha256-" + QCryptographicHash::hash(text.toUtf8(), QCryptographicHash::Sha256).toBase64() + "'";
}

// The nodes of method section `anchor` ("m0").
int graphNodes(const QString& html, const QString& anchor) {
  const QString section = between(html, "<section class=\"method\" id=\"" + anchor + "\">", "</section>");
  return int(section.count(QRegularExpression("<g id=\"" + anchor + "-[^\"]*\" class=\"node\">")));
}

int copyRows(const QString& html, const QString& anchor) {
  const QString section = between(html, "<section class=\"method\" id=\"" + anchor + "\">", "</section>");
  return int(section.count("<tr class=\"copy\""));
}

// The nodes `render` draws for a method: the app's first picture.
int renderedNodes(const QString& program, const QString& method) {
  const QString svg = outPath("render-" + method + ".svg");
  auto r = runCli({"render", program, "--method", method, "-o", svg});
  if (r.exitCode != 0) return -1;
  const auto said = QRegularExpression(R"(, (\d+) nodes,)").match(QString::fromUtf8(r.err));
  const int nodes = int(readText(svg).count("class=\"node\""));
  return said.hasMatch() && said.captured(1).toInt() == nodes ? nodes : -2;
}

}  // namespace

class CliReportTest : public QObject {
  Q_OBJECT
 private slots:
  void reportHasTheAppsGraphsAndEveryCopy() {
    const QString out = outPath("demo.html");
    auto r = runCli({"report", demoPath(), "-o", out});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.err.contains("wrote " + out.toUtf8()), r.err.constData());
    const QString html = readText(out);
    auto info = runCli({"info", "--json", demoPath()});
    const auto j = parseJson(info.out);
    QVERIFY(j["methods"].size() == 2);
    for (size_t m = 0; m < j["methods"].size(); ++m) {
      const QString anchor = "m" + QString::number(m);
      const QString name = QString::fromStdString(j["methods"][m]["name"].get<std::string>());
      const int expected = renderedNodes(demoPath(), name);
      QVERIFY(expected > 0);
      QCOMPARE(graphNodes(html, anchor), expected);
      QCOMPARE(copyRows(html, anchor),
               int(j["methods"][m]["h2d_copies"].get<int>() + j["methods"][m]["d2h_copies"].get<int>()));
    }
    // Self-contained: nothing is fetched.
    QVERIFY(!html.contains("src=\""));
    QVERIFY(!html.contains("http-equiv=\"refresh\""));
    QVERIFY(!html.contains("<link"));
    QVERIFY(html.contains("PCIe Gen4 x16"));
    QVERIFY(html.contains("Lint findings"));
    QVERIFY(html.contains("Memory plan"));
  }

  void policyAllowsExactlyTheReportsOwnScriptAndStyle() {
    const QString html = readText(outPath("demo.html"));
    QVERIFY(!html.isEmpty());
    const QString policy = between(html, "<meta http-equiv=\"Content-Security-Policy\" content=\"", "\">");
    QVERIFY2(policy.startsWith("default-src 'none'; "), qPrintable(policy));
    QVERIFY(!policy.contains("unsafe"));
    QVERIFY(!policy.contains("http"));
    const QString script = between(html, "<script>", "</script>");
    const QString style = between(html, "<style>", "</style>");
    QVERIFY(!script.isEmpty() && !style.isEmpty());
    QVERIFY2(policy.contains("script-src " + cspHash(script) + ";"), qPrintable(policy));
    QVERIFY2(policy.contains("style-src " + cspHash(style) + ";"), qPrintable(policy));
    QCOMPARE(html.count("<script>"), 1);  // and one application/json block, never run
    QCOMPARE(html.count("<script type=\"application/json\""), 1);
  }

  void hostileNamesStayText() {
    QVERIFY(!hostilePath().isEmpty());
    const QString out = outPath("hostile.html");
    auto r = runCli({"report", hostilePath(), "-o", out});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QString html = readText(out);
    QVERIFY(html.size() > 1000);
    QString error;
    const auto tags = tagsOf(html, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    static const std::set<QString> allowed = {
        "!doctype", "html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "p", "nav", "a",
        "main", "section", "table", "thead", "tbody", "tr", "th", "td", "div", "code", "q", "input", "span",
        "button", "footer", "details", "summary", "script", "svg", "g", "polygon", "polyline", "path", "ellipse", "text"};
    int scripts = 0;
    for (const auto& tag : tags) {
      QVERIFY2(allowed.count(tag.name), qPrintable("unexpected tag <" + tag.name + ">"));
      for (const auto& a : tag.attributes) {
        QVERIFY2(!a.startsWith("on"), qPrintable("event attribute " + a + " on <" + tag.name + ">"));
        QVERIFY2((a != "src" && a != "href") || tag.name == "a", qPrintable(a));
      }
      if (tag.name == "a")
        for (const auto& a : tag.attributes) QVERIFY(a != "xlink:href");
      if (tag.name == "script" && !tag.closing) ++scripts;
    }
    QCOMPARE(scripts, 2);  // the data block and the report's script
    // The names are there, as text.
    QVERIFY(html.contains("et_copy::&lt;img src=x onerror=alert(2)&gt;"));
    QVERIFY(html.contains("Cuda&quot;&apos;&gt;&lt;svg onload=alert(3)&gt;\\xE2\\x82"));
    QVERIFY(html.contains("&lt;b onmouseover=alert(4)&gt;"));
    QVERIFY2(html.contains("fwd&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;\\xFF"), qPrintable(html.left(3000)));
    QVERIFY(!html.contains("alert(5)</script>"));
    // The data block parses, holds the printable name and nothing that
    // ends a script.
    const QString data = between(html, "<script type=\"application/json\" id=\"report-data\">", "</script>");
    QVERIFY(!data.contains('<') && !data.contains('>') && !data.contains('&'));
    const auto j = parseJson(data.toUtf8());
    QVERIFY(!j.is_discarded());
    QCOMPARE(j["methods"][0]["name"].get<std::string>(), std::string("fwd</script><script>alert(1)</script>\\xFF"));
    QVERIFY(graphNodes(html, "m0") > 0);
  }

  void compareShowsTheCopiesDiffFinds() {
    const QString before = outPath("cmp-before.pte");
    const QString after = outPath("cmp-after.pte");
    QCOMPARE(runCli({"synth", "--scenario", "h2d_d2h", "-o", before}).exitCode, 0);
    auto p = runCli({"propagate", before, "--skip-h2d-inputs", "-o", after});
    QVERIFY2(p.exitCode == 0, p.err.constData());
    auto diff = runCli({"diff", "--json", before, after});
    const auto d = parseJson(diff.out);
    QVERIFY(!d.is_discarded());
    size_t removed = 0, added = 0;
    for (const auto& m : d["methods"]) {
      removed += m["copies_only_in_a"].size();
      added += m["copies_only_in_b"].size();
    }
    QVERIFY(removed > 0);
    const QString out = outPath("cmp.html");
    auto r = runCli({"report", after, "--compare", before, "-o", out});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QString section = between(readText(out), "<section id=\"compare\">", "</section>");
    QVERIFY(section.contains("cmp-before.pte"));
    QCOMPARE(size_t(section.count("<tr class=\"removed\">")), removed);
    QCOMPARE(size_t(section.count("<tr class=\"added\">")), added);
    QVERIFY2(section.contains(">saves "), qPrintable(section));
  }

  // A method without copies, before and after: its copy times are "none" and
  // its saving "no change" (the cells read a bare "0", a time without unit).
  void compareOfMethodsWithoutCopiesSaysNone() {
    const QString file = outPath("cmp-none.pte");
    QCOMPARE(runCli({"synth", "--scenario", "skip_both_unplanned_io", "-o", file}).exitCode, 0);
    const QString out = outPath("cmp-none.html");
    auto r = runCli({"report", file, "--compare", file, "-o", out});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QString section = between(readText(out), "<section id=\"compare\">", "</section>");
    QVERIFY2(section.contains(">none</td><td class=\"num\" data-v=\"0\">none</td><td class=\"num\" data-v=\"0\">no change</td>"),
             qPrintable(section));
  }

  // Walkthrough 23, F1: the line over a method's copy instructions counts,
  // sums and prices the same copies (it said "1 copy per call, 256 B,
  // predicted 15.3 µs" with two copies inside a delegate in the time, its
  // one row 5.10 µs); the method's whole with the copies inside delegates
  // is said after it.
  void theCopiesLinePricesTheCopiesItCounts() {
    const QString edited = outPath("inside-line.pte");
    auto p = runCli({"propagate", demoPath(), "-o", edited, "--method", "forward", "--set-device", "1=none", "--skip-h2d-inputs"});
    QVERIFY2(p.exitCode == 0, p.err.constData());
    const QString out = outPath("inside-line.html");
    auto r = runCli({"report", edited, "--method", "forward", "-o", out});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QString html = readText(out);
    const QString summary = between(html, "<details class=\"copies\" open><summary>", "</summary>");
    QVERIFY2(summary.startsWith("1 copy instruction per call, "), qPrintable(summary));
    // The one row's predicted time is the line's.
    const QString table = between(html, "<table class=\"sortable copies\"", "</table>");
    const QRegularExpression cell("<td class=\"num\" data-v=\"[^\"]*\">([0-9.]+ [µnm]?s)</td>");
    QStringList times;
    for (auto it = cell.globalMatch(table); it.hasNext();) times << it.next().captured(1);
    QVERIFY2(!times.isEmpty(), qPrintable(table.left(2000)));
    QVERIFY2(summary.contains(", predicted " + times.front() + ";"), qPrintable(summary + " / " + times.join(", ")));
    QVERIFY2(summary.contains("; with the 2 copies inside delegates, 3 copies, "), qPrintable(summary));
  }

  void measurementsSitBesideThePredictions() {
    const QString profile = outPath("profile.json");
    auto p = runCli({"profile", demoPath(), "--runtime", "host", "--iterations", "2", "--warmup", "0", "--json", profile});
    QVERIFY2(p.exitCode == 0, p.err.constData());
    const QString out = outPath("measured.html");
    auto r = runCli({"report", demoPath(), "--profile", profile, "-o", out});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QString forward = between(readText(out), "<section class=\"method\" id=\"m0\">", "</section>");
    QVERIFY(forward.contains("<th class=\"num\" data-type=\"num\">Measured</th>"));
    QVERIFY(!forward.contains("not measured"));
    // The ETDump of forward: every copy measured, at the trace's times.
    auto synthesized = synth::synthesizeDemo();
    auto program = synth::applyDevicePasses(synthesized.value());
    QVERIFY(program.ok());
    etdump::TraceSpec spec;
    spec.method = "forward";
    spec.iterations = 3;
    spec.ticks = [](size_t, size_t instruction) { return uint64_t(1000 + 1000 * instruction); };
    auto dump = etdump::synthesizeEtdump(program.value(), spec);
    QVERIFY(dump.ok());
    const QString etdp = outPath("demo.etdp");
    test::writeAll(etdp, etdump::serializeEtdump(dump.value()));
    const QString traced = outPath("traced.html");
    r = runCli({"report", demoPath(), "--etdump", etdp, "-o", traced});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QString section = between(readText(traced), "<section class=\"method\" id=\"m0\">", "</section>");
    const QString copies = between(section, "<table class=\"sortable copies\"", "</table>");
    // The measured cell (the 7th) of the copies at instructions 0 and 2:
    // about 1000 and 3000 ticks of 1 ns.
    for (const auto& [instruction, seconds] : {std::pair{0, 1e-6}, std::pair{2, 3e-6}}) {
      const QRegularExpression row("<tr class=\"copy\" data-node=\"m0-i" + QString::number(instruction) +
                                   "\">(?:<td[^>]*>[^<]*</td>){6}<td class=\"num\" data-v=\"([^\"]+)\">");
      const auto match = row.match(copies);
      QVERIFY2(match.hasMatch(), qPrintable(copies));
      QVERIFY2(std::abs(match.captured(1).toDouble() - seconds) < 0.05 * seconds, qPrintable(match.captured(0)));
    }  // instruction 0: 1000 ticks of 1 ns
    // The analyses of the trace: 2 h2d copies × 3 iterations = 6 executions,
    // a host clock (no overlap), no host memory kind to judge.
    QVERIFY(section.contains("<h3>Measured transfers</h3>"));
    const QString summary = between(section, "<table class=\"sortable transfer-summary\">", "</table>");
    QVERIFY2(summary.contains("<td>h2d all</td><td class=\"num\" data-v=\"6\">6</td>"), qPrintable(summary));
    QVERIFY(section.contains("Copy/compute overlap cannot be seen: host clock only"));
    QVERIFY(section.contains("PRF001 [pageable-copy] not judged"));
    // What the trace does not say and was assumed, as `etdump` prints it:
    // the tick (1 ns by default) and which blocks belong to which method.
    const QString notes = between(readText(traced), "<header>", "</header>");
    QVERIFY2(notes.contains("demo.etdp: ticks: 1 tick = 1 ns (the file does not say; the POSIX runtime ticks in ns)</p>"),
             qPrintable(notes));
    QVERIFY(notes.contains("demo.etdp: methods: "));
    const auto text = runCli({"etdump", demoPath(), etdp});
    QVERIFY(text.out.contains("  ticks: 1 tick = 1 ns (the file does not say; the POSIX runtime ticks in ns; --tick-ns overrides)\n"));
    const QString rule = between(QString::fromUtf8(text.out), "  methods: ", " (--method overrides)");
    QVERIFY(!rule.isEmpty());
    QVERIFY2(notes.contains("methods: " + rule.toHtmlEscaped().replace("'", "&apos;")), qPrintable(rule));
    // The emulated profile's pageable copies are a finding.
    QVERIFY(forward.contains("<td>PRF001 pageable-copy</td>"));
  }

  // A trace of two methods (tests/support/RoundTripPrograms.h): the report
  // lists PRF004 across them as `etdump` does, in a section of its own.
  void findingsAcrossMethodsOfATrace() {
    auto write = [](const char* decoderInput, const QString& name) {
      const auto program = test::twoMethodProgram(decoderInput);
      const QString pte = outPath(name + ".pte"), etdp = outPath(name + ".etdp");
      if (!pte::writeProgramFile(program, pte.toStdString()).ok()) qFatal("write %s", qPrintable(pte));
      test::writeAll(etdp, etdump::serializeEtdump(test::twoMethodTrace(program)));
      return std::pair{pte, etdp};
    };
    const auto [pte, etdp] = write("[1, 8]", "round-trip");
    const QString out = outPath("round-trip.html");
    auto r = runCli({"report", pte, "--etdump", etdp, "-o", out});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QString html = readText(out);
    QVERIFY(html.contains("<a href=\"#across-methods\">Across methods</a>"));
    const QString section = between(html, "<section id=\"across-methods\"><h2>Measured findings across methods</h2>", "</section>");
    QVERIFY2(section.contains("<table class=\"sortable profile-findings\">"), qPrintable(html.left(3000)));
    QCOMPARE(int(section.count("<tr><td>PRF004 round-trip</td>")), 1);
    // Each method is h2d copy (instruction 0), delegate (1), d2h copy (2):
    // encoder's d2h copy of its output h, decoder's h2d copy of its input e.
    // The copy kernel lasts its scope (100 + instruction ticks of 1 ns) less
    // 2 ticks: 100 ns at encoder's instruction 2, 98 ns at decoder's 0.
    QVERIFY2(section.contains("<td>method &apos;encoder&apos;, instruction 2; method &apos;decoder&apos;, instruction 0</td>"),
             qPrintable(section));
    QVERIFY2(section.contains("= 198 ns per call of each"), qPrintable(section));
    // The same findings as `etdump --json` lists under across_methods.
    const QString json = outPath("round-trip.json");
    QCOMPARE(runCli({"etdump", pte, etdp, "--json", json}).exitCode, 0);
    const auto bytes = test::readAll(json);
    const auto cli = nlohmann::json::parse(bytes.begin(), bytes.end());
    QCOMPARE(cli["across_methods"].size(), size_t(1));
    const auto escaped = [](const nlohmann::json& text) {
      return QString::fromStdString(text.get<std::string>()).toHtmlEscaped().replace("'", "&apos;");
    };
    QVERIFY(section.contains(escaped(cli["across_methods"][0]["message"])));
    QVERIFY(section.contains(escaped(cli["across_methods"][0]["evidence"])));
    // --method decoder keeps the finding (it is about decoder too).
    const QString decoder = outPath("round-trip-decoder.html");
    QCOMPARE(runCli({"report", pte, "--etdump", etdp, "--method", "decoder", "-o", decoder}).exitCode, 0);
    QVERIFY(readText(decoder).contains("<tr><td>PRF004 round-trip</td>"));

    // decoder takes float32[1,4]: nothing of encoder's comes back.
    const auto [otherPte, otherEtdp] = write("[1, 4]", "no-round-trip");
    const QString none = outPath("no-round-trip.html");
    r = runCli({"report", otherPte, "--etdump", otherEtdp, "-o", none});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QString noneSection = between(readText(none), "<section id=\"across-methods\">", "</section>");
    QVERIFY2(noneSection.contains("<p>No findings across methods.</p>"), qPrintable(noneSection));
    QVERIFY(!noneSection.contains("PRF004"));
    // A trace of one method has no such section.
    etdump::TraceSpec encoderOnly;
    encoderOnly.method = "encoder";
    const QString oneEtdp = outPath("encoder-only.etdp"), one = outPath("encoder-only.html");
    test::writeAll(oneEtdp, etdump::serializeEtdump(etdump::synthesizeEtdump(test::twoMethodProgram("[1, 8]"), encoderOnly).value()));
    QCOMPARE(runCli({"report", pte, "--etdump", oneEtdp, "-o", one}).exitCode, 0);
    QVERIFY(readText(one).contains("<h3>Measured transfers</h3>"));
    QVERIFY(!readText(one).contains("id=\"across-methods\""));
  }

  void methodLimitsTheReport() {
    const QString out = outPath("prefill.html");
    auto r = runCli({"report", demoPath(), "--method", "prefill", "-o", out});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QString html = readText(out);
    QVERIFY(graphNodes(html, "m1") > 0);
    QVERIFY(!html.contains("<section class=\"method\" id=\"m0\">"));
  }

  void defaultNameAndBadInput() {
    QDir dir(outPath("cwd"));
    QVERIFY(dir.mkpath("."));
    QProcess process;
    process.setWorkingDirectory(dir.path());
    process.start(QStringLiteral(PTESCOPE_CLI), {"report", demoPath()});
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitCode(), 0);
    QVERIFY(dir.exists("demo.report.html"));
    test::expectOneLineCliError(runCli({"report", demoPath(), "-o", demoPath()}));
    test::expectOneLineCliError(runCli({"report", demoPath(), "--method", "nope", "-o", outPath("x.html")}));
    test::expectOneLineCliError(runCli({"report", demoPath(), "--profile", demoPath(), "-o", outPath("x.html")}));
    test::expectOneLineCliError(runCli({"report", outPath("missing.pte")}));
    QVERIFY(!QFile::exists(outPath("x.html")));
  }
};

QTEST_GUILESS_MAIN(CliReportTest)
#include "test_cli_report.moc"
