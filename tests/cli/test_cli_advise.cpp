// ptescope-cli advise as a user runs it (issue 25): the ranked candidates in
// text and JSON, --explain, --device-memory, --devices, and --apply, whose
// file must equal what `propagate` with the printed flags writes, byte for
// byte, and lint clean.
#include <QtTest>

#include <QDir>
#include <QProcess>

#include <cmath>

#include <nlohmann/json.hpp>

#include "pte/Writer.h"
#include "support/AdvisePrograms.h"
#include "support/RunnerScope.h"
#include "support/TestSupport.h"
#include "synth/JsonSpec.h"
#include "synth/Scenarios.h"

using ptescope::test::expectOneLineCliError;
using ptescope::test::runCli;
using ptescope::test::tempDir;
namespace testprograms = ptescope::testprograms;

namespace {

QString outPath(const QString& name) { return QDir(tempDir()).filePath(name); }

QString written(const QString& name, ptescope::Result<ptescope::program::Program> program) {
  if (!program) qFatal("%s: %s", qPrintable(name), program.error().message.c_str());
  const QString file = outPath(name);
  if (auto w = ptescope::pte::writeProgramFile(program.value(), file.toStdString()); !w)
    qFatal("%s: %s", qPrintable(name), w.error().message.c_str());
  return file;
}

const QString& singlePath() {
  static const QString path = written("single.pte", testprograms::singleGpuProgram());
  return path;
}
const QString& sharedPath() {
  static const QString path = written("shared.pte", testprograms::sharedPlaceholderProgram());
  return path;
}
const QString& chainPath() {
  static const QString path = written("chain.pte", testprograms::chainProgram({"cuda:0", "cuda:1", "cuda:0"}));
  return path;
}
const QString& fourPath() {
  static const QString path =
      written("four.pte", testprograms::chainProgram({"cuda:0", "cuda:1", "cuda:2", "cuda:3"}, 1 << 20));
  return path;
}

const QString kRunner = QStringLiteral(PTESCOPE_TEST_RUNNER);

// Two CUDA delegates on two devices, v -> d0 (cuda:0) -> z -> d1 (cuda:1) ->
// w, and y = relu(x) on the CPU, the method's one output. The hop from cuda:0
// to cuda:1 is a d2h and an h2d of z; moving either delegate to the other's
// device removes both (the runner can run that program), skip_h2d of v
// removes the h2d of v too (a caller the runner is not: refused). The
// stand-in runner runs no delegate, so the output, relu(x), is computed on
// the CPU from the same input in every run and must agree.
const QString& hopPath() {
  static const QString path = written("hop.pte", [] {
    auto synthesized = ptescope::synth::synthesizeFromSpec(R"({
      "methods": [{
        "name": "forward", "inputs": ["x", "v"], "outputs": ["y"],
        "tensors": {"x": {"dtype": "float32", "sizes": [64, 64]}, "v": {"dtype": "float32", "sizes": [64, 64]},
                    "z": {"dtype": "float32", "sizes": [64, 64]}, "w": {"dtype": "float32", "sizes": [64, 64]},
                    "y": {"dtype": "float32", "sizes": [64, 64]}},
        "nodes": [{"delegate": "CudaBackend", "compile_specs": {"method_name": "forward", "target_device": "cuda:0"},
                   "inputs": ["v"], "outputs": ["z"]},
                  {"delegate": "CudaBackend", "compile_specs": {"method_name": "forward", "target_device": "cuda:1"},
                   "inputs": ["z"], "outputs": ["w"]},
                  {"op": "aten::relu.out", "inputs": ["x"], "outputs": ["y"]}]
      }]
    })");
    return synthesized ? ptescope::synth::applyDevicePasses(synthesized.value())
                       : ptescope::Result<ptescope::program::Program>(synthesized.error());
  }());
  return path;
}

nlohmann::json parse(const QByteArray& text) { return nlohmann::json::parse(text.begin(), text.end(), nullptr, false); }

nlohmann::json adviceJson(const QStringList& args) {
  auto r = runCli(QStringList{"advise"} + args + QStringList{"--json"});
  if (r.exitCode != 0) qFatal("advise: %s", r.err.constData());
  return parse(r.out);
}

}  // namespace

class TestCliAdvise : public QObject {
  Q_OBJECT
 private slots:
  void singleGpuJsonShape() {
    const auto j = adviceJson({singlePath()});
    QVERIFY(!j.is_discarded());
    QCOMPARE(j["link"].get<std::string>(), std::string("pcie-gen4-x16"));
    const auto& m = j["methods"][0];
    QCOMPARE(m["name"].get<std::string>(), std::string("forward"));
    QCOMPARE(m["search"].get<std::string>(), std::string("exhaustive"));
    const auto& c = m["candidates"][0];
    QCOMPARE(c["rank"].get<int>(), 1);
    QCOMPARE(c["edits"]["skip_h2d_for_method_inputs"].get<bool>(), true);
    QCOMPARE(c["edits"]["skip_d2h_for_method_outputs"].get<bool>(), true);
    QCOMPARE(c["edits"]["alloc_graph_input"].get<bool>(), false);
    QVERIFY(c["edits"]["target_devices"].empty());
    QCOMPARE(c["copies_before"]["h2d"].get<int>(), 1);
    QCOMPARE(c["copies_before"]["d2h"].get<int>(), 1);
    QCOMPARE(c["copies_after"]["h2d"].get<int>(), 0);
    QCOMPARE(c["copies_after"]["d2h"].get<int>(), 0);
    QCOMPARE(c["bytes_per_call_after"].get<int>(), 0);
    QVERIFY(c["predicted_saving_us"].get<double>() > 0);
    QVERIFY(c["caller_contract"].size() >= 2);
    QVERIFY(m["rejected"].empty());
  }

  void textListsCandidatesInPropagatesWords() {
    auto r = runCli({"advise", singlePath()});
    QCOMPARE(r.exitCode, 0);
    const QString out = QString::fromUtf8(r.out);
    QVERIFY2(out.contains("  1. --skip-h2d-inputs --skip-d2h-outputs --no-alloc-graph-input\n"), qPrintable(out));
    QVERIFY(out.contains("h2d 1 -> 0, d2h 1 -> 0; 0 B per call after (was 32.0 KiB)"));
    QVERIFY(out.contains("caller: pass input 0 (%0) that already lives on cuda:0"));
    QVERIFY(out.contains("caller: output 0 (%1) stays on cuda:0; copy it yourself if the host needs it"));
    // The warning lint gives the edited program is named before it is applied.
    QVERIFY2(out.contains("caller: device outputs planned in device memory: you cannot set your own output buffer "
                          "(lint warns: PTS002"),
             qPrintable(out));
    QVERIFY(out.contains("exhaustive search: 20 combinations"));
  }

  // Walkthrough 20, finding 11: a method without inputs whose delegate
  // reads a constant: --skip-h2d-inputs tags the constant with the device
  // in place, and lint then warns PTS011 (the program as loaded has no
  // warning). The candidate named no duty for it.
  void aWarningAnEditBringsIsADuty() {
    const QString spec = outPath("noinput.json");
    const std::string text = R"({"methods": [{"name": "noinput", "inputs": [], "outputs": ["q"],
      "tensors": {"q": {"dtype": "float32", "sizes": [4]}},
      "constants": {"c": {"dtype": "float32", "sizes": [4], "fill": 1.0}},
      "nodes": [{"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:1"},
                 "inputs": ["c"], "outputs": ["q"]}]}]})";
    ptescope::test::writeAll(spec, std::vector<uint8_t>(text.begin(), text.end()));
    const QString program = outPath("noinput.pte");
    QCOMPARE(runCli({"synth", spec, "-o", program}).exitCode, 0);
    auto lint = runCli({"lint", program});
    QVERIFY2(!QString::fromUtf8(lint.out).contains("PTS011"), lint.out.constData());
    const QString edited = outPath("noinput-skip.pte");
    QCOMPARE(runCli({"propagate", program, "-o", edited, "--skip-h2d-inputs"}).exitCode, 0);
    auto after = runCli({"lint", edited});
    QVERIFY2(QString::fromUtf8(after.out).contains("PTS011"), after.out.constData());
    auto r = runCli({"advise", program});
    QCOMPARE(r.exitCode, 0);
    const QString out = QString::fromUtf8(r.out);
    // Each candidate with --skip-h2d-inputs names the warning among its duties.
    bool seen = false;
    const QStringList lines = out.split('\n');
    for (int i = 0; i < lines.size(); ++i) {
      if (!QRegularExpression("^  \\d+\\. .*--skip-h2d-inputs").match(lines[i]).hasMatch()) continue;
      bool named = false;
      for (int j = i + 1; j < lines.size() && !QRegularExpression("^  \\d+\\. ").match(lines[j]).hasMatch(); ++j)
        named = named || lines[j].contains("caller: lint warns: PTS011 constant-feeds-device-delegate");
      QVERIFY2(named, qPrintable(lines[i] + "\n" + out));
      seen = true;
    }
    QVERIFY2(seen, qPrintable(out));
  }

  void explainSaysWhySkipH2dIsRefused() {
    auto r = runCli({"advise", sharedPath(), "--explain", "--top", "0"});
    QCOMPARE(r.exitCode, 0);
    const QString out = QString::fromUtf8(r.out);
    QVERIFY2(out.contains("    --skip-h2d-inputs: upstream's pipeline raises: method 'forward': "
                          "skip_h2d_for_method_inputs=True requires placeholder '%0' to have exactly one user, but "
                          "it has 2 users."),
             qPrintable(out));
    // Never offered as a candidate.
    for (const auto& line : out.split('\n'))
      if (QRegularExpression("^  \\d+\\. ").match(line).hasMatch()) QVERIFY2(!line.contains("--skip-h2d-inputs"), qPrintable(line));
  }

  void deviceMemoryCapAndDevices() {
    const auto free = adviceJson({fourPath(), "--top", "1"});
    QCOMPARE(free["methods"][0]["candidates"][0]["device_memory"].size(), size_t(1));
    const auto capped = adviceJson({fourPath(), "--device-memory", "2.5M", "--top", "0"});
    const auto& candidates = capped["methods"][0]["candidates"];
    QVERIFY(!candidates.empty());
    for (const auto& c : candidates)
      for (const auto& d : c["device_memory"]) QVERIFY(d["bytes"].get<uint64_t>() <= 2621440);
    QCOMPARE(capped["methods"][0]["search"].get<std::string>(), std::string("local"));

    const auto two = adviceJson({singlePath(), "--devices", "2"});
    QCOMPARE(two["methods"][0]["devices"], nlohmann::json({"cuda:0", "cuda:1"}));
  }

  // Every candidate of the chain: --apply writes what propagate writes with
  // the printed flags, byte for byte; the file re-reads and lints clean.
  void applyEqualsPropagate() {
    for (const QString& input : {chainPath(), singlePath()}) {
      const auto j = adviceJson({input, "--top", "0"});
      const auto& candidates = j["methods"][0]["candidates"];
      QVERIFY(candidates.size() >= 2);
      for (const auto& c : candidates) {
        const QString rank = QString::number(c["rank"].get<int>());
        const QString applied = outPath("applied-" + rank + ".pte");
        const QString propagated = outPath("propagated-" + rank + ".pte");
        auto r = runCli({"advise", input, "--top", "0", "--apply", rank, "-o", applied});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("the same as: ptescope-cli propagate " + input.toUtf8() + " -o " + applied.toUtf8() +
                                " --method forward"),
                 r.out.constData());
        QStringList args{"propagate", input, "-o", propagated};
        for (const auto& flag : c["edits"]["flags"]) args << QString::fromStdString(flag.get<std::string>());
        auto p = runCli(args);
        QVERIFY2(p.exitCode == 0, p.err.constData());
        QCOMPARE(ptescope::test::readAll(applied), ptescope::test::readAll(propagated));
        auto lint = runCli({"lint", applied});
        QVERIFY2(lint.exitCode == 0, lint.out.constData());
        const auto after = adviceJson({applied});
        QCOMPARE(after["methods"][0]["copies_now"]["h2d"], c["copies_after"]["h2d"]);
        QCOMPARE(after["methods"][0]["copies_now"]["d2h"], c["copies_after"]["d2h"]);
      }
    }
  }

  // Two methods: the rank belongs to the one --method names; the others keep
  // their options, as with propagate --method.
  void applyNamesTheMethodOfTwo() {
    auto demo = ptescope::synth::synthesizeDemo();
    QVERIFY(demo.ok());
    const QString input = written("demo.pte", ptescope::synth::applyDevicePasses(demo.value()));
    const auto j = adviceJson({input});
    QCOMPARE(j["methods"].size(), size_t(2));
    auto ambiguous = runCli({"advise", input, "--apply", "1", "-o", outPath("demo-any.pte")});
    expectOneLineCliError(ambiguous);
    QVERIFY(ambiguous.err.contains("the program has 2 methods; name the one the rank belongs to with --method"));
    const QString method = QString::fromStdString(j["methods"][1]["name"].get<std::string>());
    const auto& best = j["methods"][1]["candidates"][0];
    const QString applied = outPath("demo-applied.pte"), propagated = outPath("demo-propagated.pte");
    auto r = runCli({"advise", input, "--method", method, "--apply", "1", "-o", applied});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QStringList args{"propagate", input, "-o", propagated};
    for (const auto& flag : best["edits"]["flags"]) args << QString::fromStdString(flag.get<std::string>());
    QVERIFY(args.contains("--method") && args.contains(method));
    QCOMPARE(runCli(args).exitCode, 0);
    QCOMPARE(ptescope::test::readAll(applied), ptescope::test::readAll(propagated));
    // The other method is as the file has it: advising it again gives the same.
    const auto after = adviceJson({applied, "--method", QString::fromStdString(j["methods"][0]["name"].get<std::string>())});
    QCOMPARE(after["methods"][0]["copies_now"], j["methods"][0]["copies_now"]);
  }

  // The text's listed flags are what one pastes into propagate: on a program
  // of two methods they name theirs, and pasted they write what --apply
  // writes (without --method the skip flags would edit both methods). A
  // one-method program's list stays short (textListsCandidatesInPropagatesWords).
  void listedFlagsOfTwoMethodsNameTheirMethod() {
    auto demo = ptescope::synth::synthesizeDemo();
    QVERIFY(demo.ok());
    const QString input = written("demo-listed.pte", ptescope::synth::applyDevicePasses(demo.value()));
    const auto j = adviceJson({input});
    QCOMPARE(j["methods"].size(), size_t(2));
    const QString method = QString::fromStdString(j["methods"][1]["name"].get<std::string>());
    auto r = runCli({"advise", input});
    QCOMPARE(r.exitCode, 0);
    const QString out = QString::fromUtf8(r.out);
    const qsizetype heading = out.indexOf("\nmethod '" + method + "'");
    QVERIFY2(heading >= 0, qPrintable(out));
    const qsizetype first = out.indexOf("\n  1. ", heading);
    QVERIFY2(first > heading, qPrintable(out));
    const QString listed = out.mid(first + 6, out.indexOf('\n', first + 1) - first - 6);
    QVERIFY2(listed.startsWith("--method " + method + " "), qPrintable(listed));
    const QString applied = outPath("demo-listed-applied.pte"), pasted = outPath("demo-listed-pasted.pte");
    QCOMPARE(runCli({"advise", input, "--method", method, "--apply", "1", "-o", applied}).exitCode, 0);
    const QStringList words = QProcess::splitCommand(listed);
    auto p = runCli(QStringList{"propagate", input, "-o", pasted} + words);
    QVERIFY2(p.exitCode == 0, p.err.constData());
    QCOMPARE(ptescope::test::readAll(pasted), ptescope::test::readAll(applied));
  }

  // A CPU-only program and a program already at its best say so.
  void nothingToAdvise() {
    ptescope::synth::ProgramBuilder builder;
    auto& m = builder.addMethod("forward");
    const auto a = m.addTensor(ptescope::program::ScalarType::Float, {4});
    const auto y = m.addTensor(ptescope::program::ScalarType::Float, {4});
    m.addKernelCall("aten::add.out", {a, a, m.addInt(1)}, {y});
    m.setInputs({a});
    m.setOutputs({y});
    const QString cpu = written("cpu.pte", builder.build());
    auto r = runCli({"advise", cpu});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("no delegate targets a device and nothing is copied: nothing to advise"), r.out.constData());
    // No copies, said in words (it read "0 copies (0 h2d, 0 d2h), 0 B, 0 per call": a time without unit).
    QVERIFY2(r.out.contains("method 'forward': now no copies per call\n"), r.out.constData());
    // JSON counts are integers and times have no float noise (40.0, 15.299999999999999).
    auto json = runCli({"advise", singlePath(), "--json"});
    QVERIFY2(json.out.contains("\"combinations\": 20,") || json.out.contains("\"combinations\":20,"), json.out.constData());
    QVERIFY2(!json.out.contains("99999999") && !json.out.contains("00000001"), json.out.constData());
    const QString best = outPath("single-best.pte");
    QCOMPARE(runCli({"advise", singlePath(), "--apply", "1", "-o", best}).exitCode, 0);
    auto again = runCli({"advise", best});
    QCOMPARE(again.exitCode, 0);
    QVERIFY2(again.out.contains("the file's options are already best"), again.out.constData());
    QCOMPARE(adviceJson({best})["methods"][0]["file_is_best"].get<bool>(), true);
  }

  void badInputIsOneLine() {
    const QString out = outPath("never.pte");
    auto bad = runCli({"advise", singlePath(), "--apply", "99", "-o", out});
    expectOneLineCliError(bad);
    QVERIFY2(bad.err.contains("--apply 99: method 'forward' has"), bad.err.constData());
    QVERIFY(!QFile::exists(out));
    auto noOut = runCli({"advise", singlePath(), "--apply", "1"});
    expectOneLineCliError(noOut);
    QVERIFY(noOut.err.contains("--apply needs -o"));
    auto method = runCli({"advise", singlePath(), "--method", "nope"});
    expectOneLineCliError(method);
    QVERIFY(method.err.contains("no method named 'nope'"));
    auto size = runCli({"advise", singlePath(), "--device-memory", "12Q"});
    expectOneLineCliError(size);
    QVERIFY(size.err.contains("--device-memory: '12Q' is not a size"));
    auto link = runCli({"advise", singlePath(), "--link", "no-such-link"});
    expectOneLineCliError(link);
    auto missing = runCli({"advise", outPath("missing.pte")});
    expectOneLineCliError(missing);
    auto notAProfile = runCli({"advise", singlePath(), "--profile", singlePath()});
    expectOneLineCliError(notAProfile);
    auto both = runCli({"advise", singlePath(), "--profile", singlePath(), "--etdump", singlePath()});
    expectOneLineCliError(both);
  }

  // advise --profile: the candidates re-ranked by the measured time of the
  // copies each removes. The profile's times are set by hand (h2d 100 µs,
  // d2h 1000 µs per iteration), so the measured savings are known: both
  // copies 1100, the d2h alone 1000, the h2d alone 100 — an order the
  // prediction need not share.
  void rankedByMeasuredCopyTime() {
    const QString measured = outPath("single-profile.json");
    auto run = runCli({"profile", singlePath(), "--runtime", "host", "--iterations", "2", "--warmup", "0", "--json", measured});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const auto bytes = ptescope::test::readAll(measured);
    auto profile = nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
    QCOMPARE(profile["copies"].size(), size_t(2));
    for (auto& c : profile["copies"]) {
      const double us = c["direction"] == "h2d" ? 100.0 : 1000.0;
      c["min_us"] = c["median_us"] = c["max_us"] = us;
      c["samples_us"] = nlohmann::json::array({us, us});
    }
    auto writeJson = [](const QString& path, const nlohmann::json& j) {
      const std::string text = j.dump();
      ptescope::test::writeAll(path, std::vector<uint8_t>(text.begin(), text.end()));
    };
    writeJson(measured, profile);
    const auto j = adviceJson({singlePath(), "--profile", measured, "--top", "0"});
    QCOMPARE(j["measured"].size(), size_t(1));
    const auto& m = j["measured"][0];
    QCOMPARE(m["method"].get<std::string>(), std::string("forward"));
    QCOMPARE(m["matched_copies"].get<int>(), 2);
    const auto& c = m["candidates"];
    QVERIFY(c.size() >= 3);
    QCOMPARE(c[0]["measured_saving_us"].get<double>(), 1100.0);
    QCOMPARE(c[0]["removed_measured"].get<int>(), 2);
    QVERIFY(c[0]["fully_measured"].get<bool>());
    QCOMPARE(c[1]["measured_saving_us"].get<double>(), 1000.0);
    QCOMPARE(c[1]["edits"]["skip_d2h_for_method_outputs"].get<bool>(), true);
    QCOMPARE(c[1]["edits"]["skip_h2d_for_method_inputs"].get<bool>(), false);
    QCOMPARE(c[2]["measured_saving_us"].get<double>(), 100.0);
    for (size_t i = 0; i + 1 < c.size(); ++i)
      QVERIFY(c[i]["measured_saving_us"].get<double>() >= c[i + 1]["measured_saving_us"].get<double>());
    // The predicted saving of each is the advice's own, side by side.
    for (const auto& row : c)
      for (const auto& p : j["methods"][0]["candidates"])
        if (p["rank"] == row["predicted_rank"]) QCOMPARE(row["predicted_saving_us"].get<double>(), p["predicted_saving_us"].get<double>());

    // A profile without the d2h copy: that copy is priced as predicted and
    // marked; its predicted time is what skipping the d2h alone predicts,
    // put on the profile's scale: times the measured / predicted time of the
    // copy the profile has (the h2d: 100 µs over what skipping it predicts).
    nlohmann::json partial = profile;
    nlohmann::json onlyH2d = nlohmann::json::array();
    for (const auto& copy : partial["copies"])
      if (copy["direction"] == "h2d") onlyH2d.push_back(copy);
    partial["copies"] = onlyH2d;
    writeJson(measured, partial);
    const auto k = adviceJson({singlePath(), "--profile", measured, "--top", "0"});
    double d2hPredicted = -1, h2dPredicted = -1;
    for (const auto& p : k["methods"][0]["candidates"]) {
      if (p["edits"]["skip_d2h_for_method_outputs"] == true && p["edits"]["skip_h2d_for_method_inputs"] == false)
        d2hPredicted = p["predicted_saving_us"].get<double>();
      if (p["edits"]["skip_h2d_for_method_inputs"] == true && p["edits"]["skip_d2h_for_method_outputs"] == false)
        h2dPredicted = p["predicted_saving_us"].get<double>();
    }
    QVERIFY(d2hPredicted > 0 && h2dPredicted > 0);
    const double scale = 100.0 / h2dPredicted;
    QVERIFY(std::fabs(k["measured"][0]["predicted_scale"].get<double>() - scale) < 1e-9 * scale);
    const auto& first = k["measured"][0]["candidates"][0];
    QVERIFY(!first["fully_measured"].get<bool>());
    QCOMPARE(first["removed_predicted"].get<int>(), 1);
    QVERIFY2(std::fabs(first["measured_saving_us"].get<double>() - (100.0 + d2hPredicted * scale)) < 1e-6,
             std::to_string(first["measured_saving_us"].get<double>()).c_str());
    auto text = runCli({"advise", singlePath(), "--profile", measured});
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("ranked by measured copy time"), text.out.constData());
    QVERIFY(text.out.contains("* part of the figure is predicted"));
    QVERIFY2(text.out.contains("(on the profile's scale: predicted times × "), text.out.constData());
  }

  // advise --verify K: the first K candidates the runner can run, each run
  // as loaded and as edited on the (stand-in) runner; the ones it cannot
  // run are listed with the caller duty. --top cuts what is printed of the
  // advice, not what is verified.
  void verifyRunsTheTopCandidatesOnTheRunner() {
    ptescope::test::RunnerScope scope;
    auto text = runCli({"advise", hopPath(), "--devices", "2", "--top", "1", "--verify", "2", "--runner", kRunner,
                        "--iterations", "3"});
    QVERIFY2(text.exitCode == 0, (text.err + text.out).constData());
    QVERIFY2(text.out.contains(("method 'forward' verified on the runner (ExecuTorch runner " + kRunner +
                                ", host clock): each candidate run as loaded, then as edited, 3 executions each")
                                   .toUtf8()),
             text.out.constData());
    QVERIFY(text.out.contains("  1. --skip-h2d-inputs"));  // the advice, cut at --top 1
    QVERIFY(!text.out.contains("  2. "));
    QVERIFY(text.out.contains("not run (executor_runner cannot be the caller the edits need):"));
    QVERIFY(text.out.contains(": pass input 1 (%1) that already lives on cuda:"));
    QVERIFY(text.out.contains("agree      --set-device forward:0=cuda:1"));
    QVERIFY(text.out.contains("agree      --set-device forward:1=cuda:0"));
    QCOMPARE(scope.leftBehind(), QStringList());

    auto r = runCli({"advise", hopPath(), "--devices", "2", "--verify", "2", "--runner", kRunner, "--iterations", "3", "--json"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto j = parse(r.out);
    QVERIFY(!j.is_discarded());
    QCOMPARE(j["verified"].size(), size_t(1));
    const auto& v = j["verified"][0];
    QCOMPARE(v["method"].get<std::string>(), std::string("forward"));
    QCOMPARE(v["executions_per_run"].get<int>(), 3);
    QCOMPARE(v["ranked_by_profile"].get<bool>(), false);
    QCOMPARE(v["verified"].get<int>(), 2);
    size_t run = 0, notRun = 0;
    for (const auto& c : v["candidates"]) {
      // Each is the advice's candidate of the same rank, its prediction beside the measurement.
      const auto& advised = j["methods"][0]["candidates"][c["rank"].get<size_t>() - 1];
      QCOMPARE(c["edits"]["flags"], advised["edits"]["flags"]);
      QCOMPARE(c["predicted_saving_us"].get<double>(), advised["predicted_saving_us"].get<double>());
      if (c.contains("not_run")) {
        ++notRun;
        QCOMPARE(advised["edits"]["skip_h2d_for_method_inputs"].get<bool>(), true);
        QVERIFY(!c.contains("measured_run_saving_us"));
        continue;
      }
      ++run;
      QCOMPARE(advised["edits"]["skip_h2d_for_method_inputs"].get<bool>(), false);
      // The saving is the two runs' medians apart.
      QVERIFY(std::fabs(c["measured_run_saving_us"].get<double>() -
                        (c["run_as_loaded_us"].get<double>() - c["run_as_edited_us"].get<double>())) < 1e-6);
      QVERIFY(c["run_as_loaded_us"].get<double>() > 0);
      QCOMPARE(c["outputs_compared"].get<int>(), 1);
      QCOMPARE(c["outputs_agree"].get<bool>(), true);
      QCOMPARE(c["output_differences"].size(), size_t(0));
    }
    QCOMPARE(run, size_t(2));
    QVERIFY(notRun >= 1);  // the skip_h2d candidates ranked above them
    QCOMPARE(scope.leftBehind(), QStringList());
  }

  // The runner from $PTESCOPE_RUNNER, and ranked by a profile: the
  // candidates are verified in the profile's order, its saving beside.
  void verifyWithRunnerFromEnvironmentAndProfile() {
    ptescope::test::RunnerScope scope;
    const QString measured = outPath("hop-runner-profile.json");
    auto p = runCli({"profile", hopPath(), "--runner", kRunner, "--iterations", "3", "--json", measured});
    QVERIFY2(p.exitCode == 0, p.err.constData());
    qputenv("PTESCOPE_RUNNER", kRunner.toUtf8());
    auto r = runCli({"advise", hopPath(), "--devices", "2", "--profile", measured, "--verify", "1", "--iterations", "2", "--json"});
    qunsetenv("PTESCOPE_RUNNER");
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto j = parse(r.out);
    const auto& v = j["verified"][0];
    QCOMPARE(v["ranked_by_profile"].get<bool>(), true);
    QCOMPARE(v["verified"].get<int>(), 1);
    for (const auto& c : v["candidates"]) {
      const auto& ranked = j["measured"][0]["candidates"][c["rank"].get<size_t>() - 1];
      QCOMPARE(c["edits"]["flags"], ranked["edits"]["flags"]);
      QCOMPARE(c["profile_saving_us"].get<double>(), ranked["measured_saving_us"].get<double>());
    }
    QCOMPARE(scope.leftBehind(), QStringList());
  }

  // A runner whose outputs differ on the program as edited (the stand-in's
  // wrong-output fault, only for program.pte: the edited program's name):
  // the difference is shown per candidate and the exit status is 1.
  void verifyShowsOutputsThatDiffer() {
    ptescope::test::RunnerScope scope("wrong-output");
    qputenv("PTESCOPE_TEST_RUNNER_FAULT_MODEL", "program.pte");
    auto r = runCli({"advise", hopPath(), "--devices", "2", "--verify", "1", "--runner", kRunner, "--iterations", "2"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.out.contains("differ 1/1"), r.out.constData());
    QVERIFY(r.out.contains(", outputs: as loaded and as edited differ in 1 of 1 output(s):"));
    // The stand-in adds 1 to element 1 of output 0 only: 1 of 64*64 elements.
    QVERIFY(r.out.contains("    output 0 differs in 1 of 4096 elements, first at element 1"));
    QCOMPARE(scope.leftBehind(), QStringList());
  }

  // Faults of the runner and misuse: one line, exit 2, nothing left behind.
  void verifyFaultsAreOneLine() {
    {
      ptescope::test::RunnerScope scope("crash");
      auto r = runCli({"advise", hopPath(), "--devices", "2", "--verify", "1", "--runner", kRunner});
      expectOneLineCliError(r);
      QVERIFY2(r.err.contains("hop.pte"), r.err.constData());
      QCOMPARE(scope.leftBehind(), QStringList());
    }
    {
      ptescope::test::RunnerScope scope("hang");
      auto r = runCli({"advise", hopPath(), "--devices", "2", "--verify", "1", "--runner", kRunner, "--timeout", "1"});
      expectOneLineCliError(r);
      QCOMPARE(scope.leftBehind(), QStringList());
    }
    {
      ptescope::test::RunnerScope scope("no-etdump");
      auto r = runCli({"advise", hopPath(), "--devices", "2", "--verify", "1", "--runner", kRunner});
      expectOneLineCliError(r);
      QVERIFY(r.err.contains("without writing an ETDump"));
      QCOMPARE(scope.leftBehind(), QStringList());
    }
    qunsetenv("PTESCOPE_RUNNER");
    auto noRunner = runCli({"advise", hopPath(), "--verify", "1"});
    expectOneLineCliError(noRunner);
    QVERIFY(noRunner.err.contains("PTESCOPE_RUNNER"));
    auto notExecutable = runCli({"advise", hopPath(), "--devices", "2", "--verify", "1", "--runner", hopPath()});
    expectOneLineCliError(notExecutable);
    auto runnerAlone = runCli({"advise", hopPath(), "--runner", kRunner});
    expectOneLineCliError(runnerAlone);
    QVERIFY(runnerAlone.err.contains("--runner is for --verify K"));
    auto withApply = runCli({"advise", hopPath(), "--verify", "1", "--runner", kRunner, "--apply", "1", "-o", outPath("x.pte")});
    expectOneLineCliError(withApply);
    auto zero = runCli({"advise", hopPath(), "--verify", "0", "--runner", kRunner});
    QCOMPARE(zero.exitCode, 2);
  }
};

QTEST_GUILESS_MAIN(TestCliAdvise)
#include "test_cli_advise.moc"
