// The profile of the demo on the host runtime and its three machine formats:
// JSON, CSV and the Chrome trace parse, and they carry the same numbers.
// Also progress, cancellation and the notes a profile adds.
#include <QtTest>

#include <QFile>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <sstream>

#include "exec/HostRuntime.h"
#include "exec/Profiler.h"
#include "report/ProfileWriters.h"
#include "support/TestSupport.h"
#include "synth/JsonSpec.h"
#include "synth/Scenarios.h"

using namespace ptescope;
using namespace ptescope::exec;
using nlohmann::json;

namespace {

constexpr size_t kIterations = 4;
constexpr size_t kTimelineIterations = 2;

program::Program demo() {
  auto synthesized = synth::synthesizeDemo();
  if (!synthesized) return {};
  auto program = synth::applyDevicePasses(synthesized.value());
  return program ? std::move(program.value()) : program::Program{};
}

ProfileOptions quickOptions() {
  ProfileOptions options;
  options.iterations = kIterations;
  options.warmup = 1;
  options.peak_probe_bytes = 1 << 20;
  options.peak_probe_repeats = 2;
  options.timeline_iterations = kTimelineIterations;
  return options;
}

TransferProfile profileDemo(const ProfileOptions& options = quickOptions()) {
  HostRuntime runtime;
  auto profile = profileMethod(demo(), runtime, options);
  if (!profile) {
    QTest::qFail(profile.error().message.c_str(), __FILE__, __LINE__);
    return {};
  }
  profile->program_name = "demo.pte";
  return std::move(profile.value());
}

std::vector<std::string> split(const std::string& line, char separator) {
  std::vector<std::string> fields;
  std::stringstream stream(line);
  std::string field;
  while (std::getline(stream, field, separator)) fields.push_back(field);
  return fields;
}

bool close(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)}); }

}  // namespace

class ProfileWritersTest : public QObject {
  Q_OBJECT
 private slots:
  void profileOfTheDemo() {
    const auto profile = profileDemo();
    QVERIFY(profile.emulated);
    QCOMPARE(profile.iterations, kIterations);
    QVERIFY(!profile.cancelled);
    QCOMPARE(profile.copies.size(), size_t(4));
    QCOMPARE(profile.host_to_device.copies, size_t(2));
    QCOMPARE(profile.host_to_device.bytes, uint64_t(512));
    QCOMPARE(profile.device_to_host.copies, size_t(2));
    QCOMPARE(profile.device_to_host.bytes, uint64_t(256 + 64));
    QCOMPARE(profile.notExecutedCount(), size_t(2));
    QVERIFY(profile.peak.measured);
    QCOMPARE(profile.instructions.size(), size_t(8));
    for (const auto& copy : profile.copies) {
      QCOMPARE(copy.samples.size(), kIterations);
      QCOMPARE(copy.executions_per_iteration, size_t(1));
      QVERIFY(copy.seconds.min <= copy.seconds.median && copy.seconds.median <= copy.seconds.max);
      QCOMPARE(copy.device, (program::Device{program::DeviceType::Cuda, 0}));
      QCOMPARE(copy.host_memory, HostMemoryKind::Pageable);
    }
    QVERIFY(profile.copy_share >= 0 && profile.copy_share <= 1);
    const std::string text = report::profileText(profile);
    QVERIFY(text.find("EMULATED") != std::string::npos);
    QVERIFY(text.find("not executed: 2 instructions") != std::string::npos);
    QVERIFY(text.find("h2d: 2 copies, 512 B") != std::string::npos);
  }

  void jsonCsvAndTraceAgree() {
    const auto profile = profileDemo();
    const json j = json::parse(report::profileJson(profile).dump());
    QCOMPARE(j["format"].get<std::string>(), std::string("ptescope-profile"));
    QCOMPARE(j["emulated"].get<bool>(), true);
    QCOMPARE(j["iterations"].get<size_t>(), kIterations);
    QCOMPARE(j["copies"].size(), size_t(4));
    QCOMPARE(j["not_executed"].size(), size_t(2));
    QCOMPARE(j["totals"]["h2d"]["bytes"].get<uint64_t>(), uint64_t(512));
    const double peakH2d = j["link_peak"]["h2d_gbps"].get<double>();
    const double peakD2h = j["link_peak"]["d2h_gbps"].get<double>();
    for (const auto& c : j["copies"]) {
      const double median = c["median_us"].get<double>();
      QVERIFY(close(c["gbps"].get<double>(), c["bytes"].get<double>() / median / 1e3));
      const double peak = c["direction"] == "h2d" ? peakH2d : peakD2h;
      QVERIFY(close(c["peak_share"].get<double>(), c["gbps"].get<double>() / peak));
      QCOMPARE(c["samples_us"].size(), kIterations);
    }

    // CSV: one row per copy, the same values as the JSON.
    const auto lines = split(report::profileCsv(profile), '\n');
    QCOMPARE(lines.size(), size_t(1 + 4));
    const auto header = split(lines[0], ',');
    QCOMPARE(header.size(), size_t(18));
    QCOMPARE(header[16], std::string("time_covers"));
    QCOMPARE(header.back(), std::string("inside_delegate"));
    for (size_t row = 0; row < 4; ++row) {
      auto fields = split(lines[row + 1], ',');
      if (lines[row + 1].ends_with(',')) fields.emplace_back();  // the empty inside_delegate (an et_copy)
      QCOMPARE(fields.size(), header.size());
      const json& c = j["copies"][row];
      std::map<std::string, std::string> cell;
      for (size_t i = 0; i < header.size(); ++i) cell[header[i]] = fields[i];
      QCOMPARE(std::stoull(cell["instruction"]), c["instruction"].get<uint64_t>());
      QCOMPARE(cell["direction"], c["direction"].get<std::string>());
      QCOMPARE(std::stoi(cell["source"]), c["source"].get<int>());
      QCOMPARE(std::stoi(cell["destination"]), c["destination"].get<int>());
      QCOMPARE(cell["device"], c["device"].get<std::string>());
      QCOMPARE(cell["host_memory"], c["host_memory"].get<std::string>());
      QCOMPARE(std::stoull(cell["bytes"]), c["bytes"].get<uint64_t>());
      for (const char* key : {"min_us", "median_us", "max_us", "gbps", "best_gbps", "peak_share"})
        QVERIFY2(close(std::stod(cell[key]), c[key].get<double>()), key);
      QCOMPARE(cell["emulated"], std::string("true"));
      QCOMPARE(cell["time_covers"], std::string());  // the emulation's times are the copies'
      QCOMPARE(cell["inside_delegate"], std::string());  // an et_copy instruction
    }

    // Trace: named tracks, copies and kernels as slices whose bytes and
    // durations are the profile's samples.
    const json trace = json::parse(report::profileTraceJson(profile).dump());
    std::map<int, std::string> threadNames;
    std::map<int, std::vector<json>> slices;
    for (const auto& e : trace["traceEvents"]) {
      if (e["ph"] == "M" && e["name"] == "thread_name") threadNames[e["tid"].get<int>()] = e["args"]["name"];
      if (e["ph"] == "X") slices[e["tid"].get<int>()].push_back(e);
    }
    const int h2d = report::traceThreadId(TimelineSlice::Track::HostToDevice);
    const int d2h = report::traceThreadId(TimelineSlice::Track::DeviceToHost);
    const int kernels = report::traceThreadId(TimelineSlice::Track::Kernels);
    const int skipped = report::traceThreadId(TimelineSlice::Track::NotExecuted);
    QCOMPARE(threadNames.size(), size_t(4));
    QCOMPARE(threadNames[h2d], std::string("h2d copies"));
    QCOMPARE(threadNames[d2h], std::string("d2h copies"));
    QCOMPARE(slices[h2d].size(), 2 * kTimelineIterations);
    QCOMPARE(slices[d2h].size(), 2 * kTimelineIterations);
    QCOMPARE(slices[kernels].size(), 2 * kTimelineIterations);  // add, relu
    QCOMPARE(slices[skipped].size(), 2 * kTimelineIterations);  // two delegates
    std::map<uint64_t, const json*> copyByInstruction;
    for (const auto& c : j["copies"]) copyByInstruction[c["instruction"].get<uint64_t>()] = &c;
    for (int tid : {h2d, d2h}) {
      for (const auto& s : slices[tid]) {
        QCOMPARE(s["cat"].get<std::string>(), std::string("copy"));
        const json& c = *copyByInstruction.at(s["args"]["instruction"].get<uint64_t>());
        QCOMPARE(c["direction"].get<std::string>(), std::string(tid == h2d ? "h2d" : "d2h"));
        QCOMPARE(s["args"]["bytes"].get<uint64_t>(), c["bytes"].get<uint64_t>());
        const size_t iteration = s["args"]["iteration"].get<size_t>();
        QVERIFY(close(s["dur"].get<double>(), c["samples_us"][iteration].get<double>()));
      }
    }
    // Slices on one track follow each other without overlapping.
    for (auto& [tid, list] : slices) {
      for (size_t i = 1; i < list.size(); ++i)
        QVERIFY(list[i]["ts"].get<double>() >= list[i - 1]["ts"].get<double>() + list[i - 1]["dur"].get<double>() - 1e-6);
    }
    QCOMPARE(trace["otherData"]["emulated"].get<bool>(), true);
  }

  // Flow arrows and counter tracks, checked against the trace-event
  // format's fields: a flow is "s", then "t"s, then "f", one id, each point
  // with "bp": "e" inside an "X" slice of its thread; a counter is "C" with
  // numeric args. The demo's forward is, per iteration: 0 h2d x → 1 delegate
  // → 2 d2h hidden → 3 add → 4 relu → 5 h2d activated → 6 delegate → 7 d2h
  // logits (a method output: no reader). So its arrows are 0→1, 1→2→3,
  // 4→5→6 and 6→7: two of 2 points and two of 3, per timeline iteration.
  void traceFlowsAndCounters() {
    const auto profile = profileDemo();
    const program::Program program = demo();
    const json trace = json::parse(report::profileTraceJson(profile, program.findMethod("forward")).dump());
    std::map<int, std::vector<std::pair<double, double>>> slices;  // tid → [start, end]
    std::map<uint64_t, std::vector<json>> flows;
    std::map<std::string, std::vector<double>> counters;
    for (const auto& e : trace["traceEvents"]) {
      const std::string ph = e["ph"];
      if (ph == "X") slices[e["tid"].get<int>()].push_back({e["ts"].get<double>(), e["ts"].get<double>() + e["dur"].get<double>()});
      if (ph == "s" || ph == "t" || ph == "f") flows[e["id"].get<uint64_t>()].push_back(e);
      if (ph == "C") {
        QVERIFY(e.contains("ts") && e.contains("pid") && e["args"].is_object());
        for (const auto& [series, value] : e["args"].items()) QVERIFY2(value.is_number(), series.c_str());
        counters[e["name"].get<std::string>()].push_back(e["args"].begin()->get<double>());
      }
    }
    QCOMPARE(flows.size(), 4 * kTimelineIterations);
    std::map<size_t, size_t> byLength;
    for (const auto& [id, points] : flows) {
      ++byLength[points.size()];
      for (size_t i = 0; i < points.size(); ++i) {
        const auto& e = points[i];
        QCOMPARE(e["ph"].get<std::string>(), std::string(i == 0 ? "s" : i + 1 == points.size() ? "f" : "t"));
        QCOMPARE(e["bp"].get<std::string>(), std::string("e"));
        QVERIFY(e.contains("name") && e.contains("cat") && e.contains("pid"));
        if (i > 0) QVERIFY(e["ts"].get<double>() > points[i - 1]["ts"].get<double>());
        const double ts = e["ts"].get<double>();
        const auto& list = slices[e["tid"].get<int>()];
        QVERIFY(std::any_of(list.begin(), list.end(), [&](const auto& r) { return r.first <= ts && ts <= r.second; }));
      }
    }
    QCOMPARE(byLength[2], 2 * kTimelineIterations);
    QCOMPARE(byLength[3], 2 * kTimelineIterations);
    // One copy at a time, 256 B each way at most (x, activated; hidden), and
    // back to nothing after every copy.
    for (const char* name : {"h2d bytes in flight", "d2h bytes in flight"}) {
      const auto& values = counters[name];
      QCOMPARE(values.size(), 2 * 2 * kTimelineIterations);  // a start and an end per copy
      QCOMPARE(*std::max_element(values.begin(), values.end()), 256.0);
      QCOMPARE(values.back(), 0.0);
    }
    QVERIFY(!counters["h2d bandwidth"].empty());
    // Without the method: counters, no arrows.
    const json plain = report::profileTraceJson(profile);
    for (const auto& e : plain["traceEvents"]) QVERIFY(e["ph"] != "s" && e["ph"] != "f");
  }

  // The copies inside delegates in every output, labelled as inside.
  // Hand count: with CUDA graphs on for forward, the demo's two CudaBackend
  // delegates (#1: x 256 B in, hidden 256 B out; #6: activated 256 B in,
  // logits 64 B out) copy each input and output d2d on every replay
  // (cuda_backend.cpp 573-590, 600-610): 4 copies, 832 B.
  void copiesInsideDelegatesInEveryOutput() {
    ProfileOptions options = quickOptions();
    options.method = "forward";
    options.run_settings.cuda_graph_methods = {"forward"};
    const auto profile = profileDemo(options);
    QCOMPARE(profile.delegate_copies.size(), size_t(4));

    const std::string text = report::profileText(profile);
    QVERIFY2(text.find("d2d inside delegates: 4 copies, 832 B, median ") != std::string::npos, text.c_str());
    QVERIFY(text.find("(no instruction; timed after the run, not part of its time)") != std::string::npos);

    const json j = json::parse(report::profileJson(profile).dump());
    QCOMPARE(j["totals"]["inside_delegates"]["d2d"]["copies"].get<size_t>(), size_t(4));
    QCOMPARE(j["totals"]["inside_delegates"]["d2d"]["bytes"].get<uint64_t>(), uint64_t(832));
    QCOMPARE(j["totals"]["inside_delegates"]["h2d"]["copies"].get<size_t>(), size_t(0));

    // CSV: the 4 et_copy rows, then the 4 inside rows, each saying so.
    const auto lines = split(report::profileCsv(profile), '\n');
    QCOMPARE(lines.size(), size_t(1 + 4 + 4));
    uint64_t insideBytes = 0;
    for (size_t row = 5; row < lines.size(); ++row) {
      const auto fields = split(lines[row], ',');
      QCOMPARE(fields.size(), size_t(18));
      QCOMPARE(fields[1], std::string("d2d"));
      QCOMPARE(fields[5], std::string("device"));
      QVERIFY2(fields[17].rfind("inside delegate ", 0) == 0 && fields[17].find("CudaBackend cuda graph replay") != std::string::npos,
               lines[row].c_str());
      insideBytes += std::stoull(fields[6]);
    }
    QCOMPARE(insideBytes, uint64_t(832));
    for (size_t row = 1; row < 5; ++row) QVERIFY(lines[row].ends_with(",,"));  // et_copy rows: no time_covers, not inside

    // Trace: a track of their own, one slice per copy and measured iteration.
    const json trace = json::parse(report::profileTraceJson(profile).dump());
    size_t slices = 0;
    bool named = false;
    for (const auto& e : trace["traceEvents"]) {
      if (e["ph"] == "M" && e["args"].contains("name") &&
          e["args"]["name"] == "copies inside delegates (no instruction; timed after the run)")
        named = true;
      if (e["ph"] == "X" && e["cat"] == "copy_inside_delegate") {
        ++slices;
        QVERIFY(e["name"].get<std::string>().rfind("inside delegate ", 0) == 0);
      }
    }
    QVERIFY(named);
    QCOMPARE(slices, size_t(4) * kIterations);

    // JSON reads back with them, and --compare pairs them: against a
    // profile without CUDA graphs they are new, and the copy time change
    // counts them.
    const QString dir = test::tempDir();
    const std::string path = (dir + "/inside.json").toStdString();
    QVERIFY(report::writeProfileJson(profile, path).ok());
    auto back = report::readProfileJson(path);
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QCOMPARE(back->delegate_copies.size(), size_t(4));
    for (size_t i = 0; i < 4; ++i) {
      QCOMPARE(back->delegate_copies[i].transfer.kind, profile.delegate_copies[i].transfer.kind);
      QCOMPARE(back->delegate_copies[i].transfer.bytes, profile.delegate_copies[i].transfer.bytes);
    }
    const auto plain = profileDemo();
    const std::string compared = report::profileComparisonText(back.value(), plain, "plain.json");
    QVERIFY2(compared.find("inside delegates: 4 copies (was 0), 832 B (was 0 B)") != std::string::npos, compared.c_str());
    QVERIFY(compared.find("copy time per iteration (with the copies inside delegates)") != std::string::npos);
    const json cj = report::profileComparisonJson(back.value(), plain);
    QCOMPARE(cj["totals"]["inside_delegates"]["copies"].get<size_t>(), size_t(4));
    QCOMPARE(cj["totals"]["inside_delegates"]["previous_copies"].get<size_t>(), size_t(0));
    QCOMPARE(cj["delegate_copies"].size(), size_t(4));
    for (const auto& c : cj["delegate_copies"]) QCOMPARE(c["status"].get<std::string>(), std::string("new"));
    // The change against the same profile without them is their share:
    // (et_copy + inside) / et_copy - 1 = inside / et_copy.
    auto stripped = back.value();
    stripped.delegate_copies.clear();
    double inside = 0;
    for (const auto& c : back->delegate_copies) inside += c.seconds.median;
    const double etCopy = stripped.host_to_device.seconds + stripped.device_to_host.seconds;
    QVERIFY(etCopy > 0);
    QVERIFY(close(report::copyTimeChange(back.value(), stripped), inside / etCopy));
  }

  void writersWriteFiles() {
    const auto profile = profileDemo();
    const QString dir = test::tempDir();
    const std::string jsonPath = (dir + "/p.json").toStdString(), csvPath = (dir + "/p.csv").toStdString(),
                      tracePath = (dir + "/t.json").toStdString();
    QVERIFY(report::writeProfileJson(profile, jsonPath).ok());
    QVERIFY(report::writeProfileCsv(profile, csvPath).ok());
    QVERIFY(report::writeProfileTrace(profile, tracePath).ok());
    const auto jsonBytes = test::readAll(QString::fromStdString(jsonPath));
    QCOMPARE(json::parse(jsonBytes.begin(), jsonBytes.end()), report::profileJson(profile));
    const auto csvBytes = test::readAll(QString::fromStdString(csvPath));
    QCOMPARE(std::string(csvBytes.begin(), csvBytes.end()), report::profileCsv(profile));
    const auto traceBytes = test::readAll(QString::fromStdString(tracePath));
    QVERIFY(json::accept(traceBytes.begin(), traceBytes.end()));
    auto bad = report::writeProfileJson(profile, (dir + "/missing/folder/p.json").toStdString());
    QVERIFY(!bad.ok());
    QVERIFY(bad.error().message.find("missing/folder/p.json") != std::string::npos);
  }

  void jsonReadsBackAndCompares() {
    const auto profile = profileDemo();
    const QString dir = test::tempDir();
    const std::string path = (dir + "/back.json").toStdString();
    QVERIFY(report::writeProfileJson(profile, path).ok());
    auto back = report::readProfileJson(path);
    QVERIFY2(back.ok(), back ? "" : back.error().message.c_str());
    QCOMPARE(back->method, profile.method);
    QCOMPARE(back->emulated, profile.emulated);
    QCOMPARE(back->iterations, profile.iterations);
    QCOMPARE(back->copies.size(), profile.copies.size());
    for (size_t i = 0; i < profile.copies.size(); ++i) {
      const auto& a = profile.copies[i];
      const auto& b = back->copies[i];
      QCOMPARE(b.instruction, a.instruction);
      QCOMPARE(b.direction, a.direction);
      QCOMPARE(b.source_value, a.source_value);
      QCOMPARE(b.device, a.device);
      QCOMPARE(b.bytes, a.bytes);
      QVERIFY(close(b.seconds.median, a.seconds.median));
      QVERIFY(close(b.gbps, a.gbps));
    }
    QVERIFY(close(back->host_to_device.seconds, profile.host_to_device.seconds));
    QCOMPARE(back->device_to_host.copies, profile.device_to_host.copies);
    // The samples, the link peak and the instructions come back too: the
    // analyses of the file are the analyses of the run.
    for (size_t i = 0; i < profile.copies.size(); ++i) {
      QCOMPARE(back->copies[i].samples.size(), profile.copies[i].samples.size());
      QCOMPARE(back->copies[i].executions_per_iteration, profile.copies[i].executions_per_iteration);
    }
    QCOMPARE(back->peak.measured, profile.peak.measured);
    QVERIFY(close(back->peak.h2d_gbps, profile.peak.h2d_gbps));
    QCOMPARE(back->instructions.size(), profile.instructions.size());
    for (size_t i = 0; i < profile.instructions.size(); ++i) {
      QCOMPARE(back->instructions[i].kind, profile.instructions[i].kind);
      QCOMPARE(back->instructions[i].executed, profile.instructions[i].executed);
      QCOMPARE(back->instructions[i].is_copy, profile.instructions[i].is_copy);
      QVERIFY(close(back->instructions[i].host_seconds.median, profile.instructions[i].host_seconds.median));
    }

    // Against itself: every copy pairs with its own record, no change.
    const auto same = exec::pairCopies(profile, back.value());
    QCOMPARE(same.size(), profile.copies.size());
    for (const auto& pair : same) {
      QVERIFY(pair.latest && pair.previous);
      QCOMPARE(pair.previous->instruction, pair.latest->instruction);
    }
    QVERIFY(std::fabs(report::copyTimeChange(profile, back.value())) < 1e-9);
    // Without its first copy (as a skip option would remove it), and with
    // every instruction renumbered: the others still pair, one is removed.
    auto edited = profile;
    edited.copies.erase(edited.copies.begin());
    for (auto& c : edited.copies) c.instruction += 100;
    const auto pairs = exec::pairCopies(edited, profile);
    QCOMPARE(pairs.size(), profile.copies.size());
    size_t removed = 0;
    for (const auto& pair : pairs) {
      if (!pair.latest) {
        ++removed;
        QCOMPARE(pair.previous, &profile.copies.front());
      } else {
        QVERIFY(pair.previous);
        QCOMPARE(pair.latest->instruction, pair.previous->instruction + 100);
      }
    }
    QCOMPARE(removed, size_t(1));
    const std::string text = report::profileComparisonText(edited, profile, "before.json");
    QVERIFY(text.find("removed") != std::string::npos);
    QVERIFY(text.find("compared with before.json") != std::string::npos);
    const auto j = report::profileComparisonJson(edited, profile);
    QCOMPARE(j["copies"].size(), pairs.size());

    // Bad files: each names the file and what is wrong.
    test::writeAll(dir + "/not.json", {'{', 'x'});
    auto notJson = report::readProfileJson((dir + "/not.json").toStdString());
    QVERIFY(!notJson && notJson.error().message.find("not JSON") != std::string::npos);
    auto other = report::profileJson(profile);
    other["format"] = "something-else";
    const std::string otherText = other.dump();
    test::writeAll(dir + "/other.json", std::vector<uint8_t>(otherText.begin(), otherText.end()));
    auto wrongFormat = report::readProfileJson((dir + "/other.json").toStdString());
    QVERIFY(!wrongFormat && wrongFormat.error().message.find("not a ptescope profile") != std::string::npos);
    auto missing = report::profileJson(profile);
    missing["copies"][1].erase("bytes");
    const std::string missingText = missing.dump();
    test::writeAll(dir + "/missing.json", std::vector<uint8_t>(missingText.begin(), missingText.end()));
    auto noBytes = report::readProfileJson((dir + "/missing.json").toStdString());
    QVERIFY2(!noBytes && noBytes.error().message.find("copies[1]: no \"bytes\"") != std::string::npos,
             noBytes ? "read" : noBytes.error().message.c_str());
    // Version 1 (directions spelled "H2D" / "D2H") still reads; a later
    // version than this ptescope knows does not, and says which it reads.
    auto old = report::profileJson(profile);
    QCOMPARE(old["version"].get<int>(), 2);
    QCOMPARE(old["copies"][0]["direction"].get<std::string>(), std::string("h2d"));
    old["version"] = 1;
    for (auto& c : old["copies"]) c["direction"] = c["direction"].get<std::string>() == "h2d" ? "H2D" : "D2H";
    const std::string oldText = old.dump();
    test::writeAll(dir + "/v1.json", std::vector<uint8_t>(oldText.begin(), oldText.end()));
    auto v1 = report::readProfileJson((dir + "/v1.json").toStdString());
    QVERIFY2(v1.ok(), v1 ? "" : v1.error().message.c_str());
    QCOMPARE(v1->copies.size(), profile.copies.size());
    for (size_t i = 0; i < profile.copies.size(); ++i) QCOMPARE(v1->copies[i].direction, profile.copies[i].direction);
    old["version"] = 3;
    const std::string newerText = old.dump();
    test::writeAll(dir + "/v3.json", std::vector<uint8_t>(newerText.begin(), newerText.end()));
    auto v3 = report::readProfileJson((dir + "/v3.json").toStdString());
    QVERIFY2(!v3 && v3.error().message.find("version 3, this ptescope reads versions 1 to 2") != std::string::npos,
             v3 ? "read" : v3.error().message.c_str());

    auto absent = report::readProfileJson((dir + "/absent.json").toStdString());
    QVERIFY(!absent && absent.error().message.find("absent.json") != std::string::npos);
  }

  // A profile whose later iteration failed says so in text and JSON, and
  // reads back partial with its failure (older files have none).
  void partialProfileIsMarkedAndReadsBack() {
    auto profile = profileDemo();
    profile.failure = "measured iteration 3 of 4: cudaEventRecord failed (code 46)";
    profile.iterations = 2;
    const std::string text = report::profileText(profile);
    QVERIFY2(text.find("(PARTIAL: 2 of 4 completed)") != std::string::npos, text.c_str());
    QVERIFY(text.find("failed: measured iteration 3 of 4") != std::string::npos);
    const std::string path = (test::tempDir() + "/partial.json").toStdString();
    QVERIFY(report::writeProfileJson(profile, path).ok());
    const auto json = report::profileJson(profile);
    QCOMPARE(json["partial"].get<bool>(), true);
    auto back = report::readProfileJson(path);
    QVERIFY2(back.ok(), back ? "" : back.error().message.c_str());
    QVERIFY(back->partial());
    QCOMPARE(back->failure, profile.failure);
    QVERIFY(!report::profileJson(profileDemo())["partial"].get<bool>());
  }

  void progressAndCancellation() {
    ProfileOptions options = quickOptions();
    options.iterations = 1000;
    std::vector<ProfileProgress> seen;
    size_t measured = 0;
    options.on_progress = [&](const ProfileProgress& p) {
      seen.push_back(p);
      if (p.phase == ProfileProgress::Phase::Measure) measured = p.done;
    };
    options.cancel_requested = [&] { return measured >= 3; };
    const auto profile = profileDemo(options);
    QVERIFY(profile.cancelled);
    QCOMPARE(profile.iterations, size_t(3));
    QCOMPARE(profile.requested_iterations, size_t(1000));
    QCOMPARE(profile.copies.size(), size_t(4));
    QCOMPARE(profile.copies[0].samples.size(), size_t(3));
    std::set<ProfileProgress::Phase> phases;
    for (const auto& p : seen) phases.insert(p.phase);
    QVERIFY(phases.count(ProfileProgress::Phase::Preparing));
    QVERIFY(phases.count(ProfileProgress::Phase::PeakProbe));
    QVERIFY(phases.count(ProfileProgress::Phase::WarmUp));
    QVERIFY(phases.count(ProfileProgress::Phase::Measure));
    QCOMPARE(seen.back().phase, ProfileProgress::Phase::Done);
    QVERIFY(report::profileText(profile).find("cancelled: 3 of 1000 completed") != std::string::npos);
    QVERIFY(json::accept(report::profileJson(profile).dump()));

    // Cancelled before any measured iteration: an empty but valid profile.
    options.cancel_requested = [] { return true; };
    const auto empty = profileDemo(options);
    QVERIFY(empty.cancelled);
    QCOMPARE(empty.iterations, size_t(0));
    QVERIFY(empty.copies.empty());
    QVERIFY(json::accept(report::profileJson(empty).dump()));
  }

  void notesAndErrors() {
    HostRuntime runtime;
    // A program before the device passes makes no copies; the profile says why.
    auto prePass = synth::synthesizeDemo();
    QVERIFY(prePass.ok());
    auto profile = profileMethod(prePass->program, runtime, quickOptions());
    QVERIFY(profile.ok());
    QVERIFY(profile->copies.empty());
    QVERIFY(!profile->peak.measured);
    bool noted = false;
    for (const auto& note : profile->notes) noted |= note.find("has not been through the device passes") != std::string::npos;
    QVERIFY(noted);

    ProfileOptions options = quickOptions();
    options.iterations = 0;
    QVERIFY(!profileMethod(demo(), runtime, options).ok());
    options = quickOptions();
    options.method = "prefill";
    auto prefill = profileMethod(demo(), runtime, options);
    QVERIFY(prefill.ok());
    QCOMPARE(prefill->method, std::string("prefill"));
    QCOMPARE(prefill->host_to_device.bytes, uint64_t(2 * 2048));
    options.method = "absent";
    auto absent = profileMethod(demo(), runtime, options);
    QVERIFY(!absent.ok());
    QVERIFY(absent.error().message.find("no method named 'absent'") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(ProfileWritersTest)
#include "test_profile_writers.moc"
