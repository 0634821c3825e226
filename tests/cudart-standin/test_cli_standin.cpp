// ptescope-cli with `--runtime cuda` against the cudart stand-in (CTest puts
// it first on LD_LIBRARY_PATH with 4 devices, leaks fatal): `profile` of the
// demo, the llm shape and the 4-GPU pipeline shape ends to end with the same
// copies as the host runtime and says stand-in; `run` writes the same
// outputs bit for bit; and each injected fault (no driver, no device, an
// allocation, a copy, an event, a device lost between iterations) ends in one
// clear error naming the call, its code and where, a non-zero exit, nothing
// leaked, and a profile that failed after some iterations reported partial.
#include <QtTest>

#include <nlohmann/json.hpp>
#include <set>

#include "support/TestSupport.h"

using ptescope::test::ProcessResult;
using ptescope::test::runCli;

namespace {

// An environment variable set for one scope (the CLI inherits it).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const QByteArray& value) : name_(name) { qputenv(name, value); }
  ~ScopedEnv() { qunsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
};

nlohmann::json readJson(const QString& path) {
  const auto bytes = ptescope::test::readAll(path);
  return nlohmann::json::parse(bytes.begin(), bytes.end(), nullptr, false);
}

// The lines ptescope-cli wrote on stderr (the stand-in's own diagnostics,
// "cudart stand-in: ...", are left out).
QStringList cliLines(const ProcessResult& r) {
  QStringList lines;
  for (const QString& line : QString::fromUtf8(r.err).split('\n', Qt::SkipEmptyParts))
    if (!line.startsWith("cudart stand-in:")) lines << line;
  return lines;
}

struct CopyKey {
  size_t instruction;
  std::string direction, device, host_memory;
  uint64_t bytes;
  size_t executions;
  bool operator==(const CopyKey&) const = default;
};

std::vector<CopyKey> copiesOf(const nlohmann::json& profile) {
  std::vector<CopyKey> keys;
  for (const auto& c : profile["copies"])
    keys.push_back({c["instruction"], c["direction"], c["device"], c["host_memory"], c["bytes"], c["executions_per_iteration"]});
  return keys;
}

}  // namespace

class CliStandinTest : public QObject {
  Q_OBJECT
  QString dir_;
  QStringList programs_;

  ProcessResult profile(const QString& program, const QString& runtime, const QString& json, QStringList extra = {}) {
    return runCli(QStringList{"profile", program, "--runtime", runtime, "--json", json} + extra, 300000);
  }

  // The run ended in exactly one ptescope-cli error line naming every part
  // of `expected`, non-zero, and the stand-in found nothing leaked.
  void expectOneError(const ProcessResult& r, int exitCode, const QStringList& expected) {
    const QStringList lines = cliLines(r);
    QVERIFY2(lines.size() == 1, r.err.constData());
    QVERIFY2(lines[0].startsWith("ptescope-cli: "), r.err.constData());
    for (const QString& part : expected) QVERIFY2(lines[0].contains(part), qPrintable(part + " not in: " + lines[0]));
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY2(!r.err.contains("leak at exit"), r.err.constData());
  }

 private slots:
  void initTestCase() {
    dir_ = ptescope::test::tempDir();
    struct {
      QString name;
      QStringList args;
    } const programs[] = {{"demo", {"--demo"}},
                          {"llm", {"--shape", "llm", "--layers", "2"}},
                          {"pipeline", {"--shape", "pipeline", "--layers", "4"}}};
    for (const auto& p : programs) {
      const QString path = dir_ + "/" + p.name + ".pte";
      auto r = runCli(QStringList{"synth"} + p.args + QStringList{"-o", path});
      QVERIFY2(r.exitCode == 0, r.err.constData());
      programs_ << path;
    }
  }

  void profilesMatchTheHostRuntime() {
    for (const QString& program : programs_) {
      for (const QString memory : {"--pageable", "--pinned"}) {
        const QString host = dir_ + "/host.json", cuda = dir_ + "/cuda.json";
        const QString csv = dir_ + "/cuda.csv", trace = dir_ + "/cuda.trace.json";
        const QStringList extra{memory, "--iterations", "2", "--warmup", "1", "--csv", csv, "--trace", trace};
        auto a = profile(program, "host", host, extra);
        auto b = profile(program, "cuda", cuda, extra);
        QVERIFY2(a.exitCode == 0, a.err.constData());
        QVERIFY2(b.exitCode == 0, b.err.constData());
        QVERIFY2(b.out.contains("STAND-IN") && b.out.contains("cudart stand-in (not a GPU)"), b.out.constData());
        QVERIFY2(!b.out.contains("measured on the GPU"), b.out.constData());
        QVERIFY2(b.err.isEmpty(), b.err.constData());
        // Every output of the run says where it came from.
        for (const QString& file : {csv, trace}) {
          const auto bytes = ptescope::test::readAll(file);
          QVERIFY2(QByteArray(reinterpret_cast<const char*>(bytes.data()), qsizetype(bytes.size())).contains("cudart stand-in (not a GPU)"),
                   qPrintable(file));
        }
        const auto x = readJson(host), y = readJson(cuda);
        QVERIFY(y["runtime"].get<std::string>().find("stand-in") != std::string::npos);
        QCOMPARE(y["emulated"].get<bool>(), false);
        QCOMPARE(y["partial"].get<bool>(), false);
        const auto copies = copiesOf(y);
        QVERIFY2(!copies.empty(), qPrintable(program));
        QVERIFY2(copies == copiesOf(x), qPrintable(program + " " + memory));
        for (const auto& c : copies) QCOMPARE(QString::fromStdString(c.host_memory), memory.mid(2));
        QCOMPARE(y["totals"]["h2d"]["bytes"], x["totals"]["h2d"]["bytes"]);
        QCOMPARE(y["totals"]["d2h"]["bytes"], x["totals"]["d2h"]["bytes"]);
        if (program.endsWith("pipeline.pte")) {
          std::set<std::string> devices;
          for (const auto& c : copies) devices.insert(c.device);
          QCOMPARE(devices.size(), size_t(4));
        }
      }
    }
  }

  // The CUDA-graph replay copies inside the demo's delegates, timed by the
  // CUDA runtime after the run: device-to-device copies (cudaMemcpyAsync
  // with cudaMemcpyDeviceToDevice, which the stand-in checks against the
  // pointers' sides), as many as on the host runtime.
  void copiesInsideDelegatesAreTimed() {
    const QString demo = programs_.front();
    const QString host = dir_ + "/graph-host.json", cuda = dir_ + "/graph-cuda.json";
    const QStringList extra{"--iterations", "2", "--warmup", "0", "--method", "prefill", "--cuda-graph", "prefill"};
    auto a = profile(demo, "host", host, extra);
    auto b = profile(demo, "cuda", cuda, extra);
    QVERIFY2(a.exitCode == 0, a.err.constData());
    QVERIFY2(b.exitCode == 0, b.err.constData());
    QVERIFY2(b.err.isEmpty(), b.err.constData());
    const auto x = readJson(host)["delegate_copies"], y = readJson(cuda)["delegate_copies"];
    QVERIFY(!y.empty());
    QCOMPARE(y.size(), x.size());
    for (const auto& c : y) QCOMPARE(c["direction"].get<std::string>(), std::string("d2d"));
  }

  // probe-link on the CUDA runtime measures a device-to-device curve too
  // (the copies inside delegates are priced on it): batched
  // cudaMemcpyAsync with cudaMemcpyDeviceToDevice between two device
  // buffers, which the stand-in checks against the pointers' sides; and a
  // prediction on that profile no longer says the d2d figure is assumed.
  void probeLinkMeasuresDeviceToDevice() {
    const QString out = dir_ + "/probe.json";
    auto r = runCli({"probe-link", "-o", out, "--max-bytes", "65536", "--repeats", "1"}, 300000);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto j = readJson(out);
    QCOMPARE(j["kind"].get<std::string>(), std::string("measured"));
    // 2 directions x 2 host memory kinds, then d2d: 5 curves of 1, 4, 16, 64 KiB.
    QCOMPARE(j["curves"].size(), size_t(5));
    const auto& d2d = j["curves"][4];
    QCOMPARE(d2d["direction"].get<std::string>(), std::string("d2d"));
    QCOMPARE(d2d["host_memory"].get<std::string>(), std::string("device"));
    QCOMPARE(d2d["points"].size(), size_t(4));
    for (const auto& point : d2d["points"]) QVERIFY(point["us"].get<double>() > 0);
    auto p = runCli({"predict", programs_.front(), "--cuda-graph", "forward", "--link", out});
    QVERIFY2(p.exitCode == 0, p.err.constData());
    QVERIFY2(p.out.contains("d2d inside delegates: 4 copies"), p.out.constData());
    QVERIFY2(!p.out.contains("assumed"), p.out.constData());
  }

  void runOutputsAreBitIdentical() {
    for (const QString& program : programs_) {
      const QString a = dir_ + "/out-host", b = dir_ + "/out-cuda";
      QDir(a).removeRecursively();
      QDir(b).removeRecursively();
      auto x = runCli({"run", program, "--runtime", "host", "--outputs", a});
      auto y = runCli({"run", program, "--runtime", "cuda", "--outputs", b});
      QVERIFY2(x.exitCode == 0 && y.exitCode == 0, y.err.constData());
      QVERIFY2(y.out.contains("cudart stand-in (not a GPU)"), y.out.constData());
      const QStringList files = QDir(a).entryList(QDir::Files);
      QVERIFY(!files.isEmpty());
      QCOMPARE(QDir(b).entryList(QDir::Files), files);
      for (const QString& f : files)
        QVERIFY2(ptescope::test::readAll(a + "/" + f) == ptescope::test::readAll(b + "/" + f), qPrintable(program + ": " + f));
    }
  }

  void noDriverAndNoDevice() {
    const QString demo = programs_[0];
    {
      ScopedEnv env("PTESCOPE_STANDIN_INIT_ERROR", "35");
      auto r = profile(demo, "cuda", dir_ + "/none.json");
      expectOneError(r, 2, {"cannot use the CUDA runtime", "cudaGetDeviceCount", "cudaErrorInsufficientDriver, code 35"});
      QVERIFY(r.out.isEmpty());
      // Without --runtime the host runtime takes over, with a note that says why.
      auto fallback = runCli({"run", demo});
      QCOMPARE(fallback.exitCode, 0);
      QVERIFY2(fallback.err.contains("code 35") && fallback.err.contains("using the host runtime"), fallback.err.constData());
    }
    ScopedEnv env("PTESCOPE_STANDIN_DEVICES", "0");
    expectOneError(profile(demo, "cuda", dir_ + "/none.json"), 2, {"cudaGetDeviceCount", "cudaErrorNoDevice, code 100"});
  }

  void allocationFails() {
    ScopedEnv env("PTESCOPE_STANDIN_FAIL_MALLOC", "1");
    auto r = profile(programs_[0], "cuda", dir_ + "/malloc.json");
    expectOneError(r, 2, {"demo.pte", "planned buffer", "cudaMalloc of", "on cuda:0", "cudaErrorMemoryAllocation, code 2"});
    QVERIFY(r.out.isEmpty());
    auto run = runCli({"run", programs_[0], "--runtime", "cuda"});
    expectOneError(run, 2, {"cudaMalloc", "code 2"});
  }

  void pinnedAllocationFails() {
    ScopedEnv env("PTESCOPE_STANDIN_FAIL_HOST_ALLOC", "1");
    auto r = profile(programs_[0], "cuda", dir_ + "/pinned.json", {"--pinned"});
    expectOneError(r, 2, {"planned buffer 1", "host (pinned)", "cudaHostAlloc of", "cudaErrorMemoryAllocation, code 2"});
  }

  // The memory budget reads a device's free memory from cudaMemGetInfo.
  void aSmallDeviceIsRefusedBeforeAnyAllocation() {
    ScopedEnv env("PTESCOPE_STANDIN_MEMORY", "1M");
    auto r = profile(programs_[0], "cuda", dir_ + "/small.json");
    expectOneError(r, 2, {"cuda:0 memory", "1.0 MiB available", "cudaMemGetInfo"});
    QVERIFY2(!r.err.contains("cudaMalloc"), r.err.constData());
  }

  // Faults during the measured iterations, at calls counted on a clean run:
  // its copies and event calls less those of the iterations are the link
  // probe's.
  void faultsDuringTheIterations() {
    const QString demo = programs_[0];
    const QStringList args{"--warmup", "0", "--iterations", "3"};
    const QString report = dir_ + "/report.json", clean = dir_ + "/clean.json";
    {
      ScopedEnv env("PTESCOPE_STANDIN_REPORT", report.toUtf8());
      auto r = profile(demo, "cuda", clean, args);
      QVERIFY2(r.exitCode == 0, r.err.constData());
    }
    const auto calls = readJson(report)["calls"];
    long perIteration = 0;
    const auto cleanProfile = readJson(clean);
    for (const auto& c : cleanProfile["copies"]) perIteration += c["executions_per_iteration"].get<long>();
    QCOMPARE(perIteration, 4L);
    const long probeCopies = calls["cudaMemcpyAsync"].get<long>() - 3 * perIteration;
    const long eventCalls =
        calls["cudaEventRecord"].get<long>() + calls["cudaEventSynchronize"].get<long>() + calls["cudaEventElapsedTime"].get<long>();
    const long probeEvents = eventCalls - 3 * perIteration * 4;  // record, record, synchronize, elapsed per copy
    QVERIFY(probeCopies > 0 && probeEvents > 0);

    {  // The second copy of measured iteration 2 fails: a partial profile.
      const QString json = dir_ + "/copy.json";
      ScopedEnv env("PTESCOPE_STANDIN_FAIL_MEMCPY", QByteArray::number(probeCopies + perIteration + 2));
      auto r = profile(demo, "cuda", json, args);
      expectOneError(r, 1, {"demo.pte", "measured iteration 2 of 3", "instruction 2", "cudaMemcpyAsync (device-to-host copy",
                            "cudaErrorIllegalAddress, code 700", "partial", "1 iteration that completed"});
      QVERIFY2(r.out.contains("PARTIAL: 1 of 3 completed"), r.out.constData());
      const auto j = readJson(json);
      QCOMPARE(j["partial"].get<bool>(), true);
      QCOMPARE(j["iterations"].get<int>(), 1);
      QVERIFY(j["failure"].get<std::string>().find("code 700") != std::string::npos);
    }
    {  // The first event call of measured iteration 1: nothing to keep.
      ScopedEnv env("PTESCOPE_STANDIN_FAIL_EVENT", QByteArray::number(probeEvents + 1));
      auto r = profile(demo, "cuda", dir_ + "/event.json", args);
      expectOneError(r, 2, {"measured iteration 1 of 3", "instruction 0", "cudaEventRecord (host-to-device copy",
                            "cudaErrorUnknown, code 999"});
      QVERIFY(r.out.isEmpty());
    }
    {  // The device is lost after iteration 2's last copy.
      ScopedEnv env("PTESCOPE_STANDIN_LOSE_DEVICE", QByteArray::number(probeCopies + 2 * perIteration));
      auto r = profile(demo, "cuda", dir_ + "/lost.json", args);
      expectOneError(r, 1, {"measured iteration 3 of 3", "instruction 0", "cudaErrorDevicesUnavailable, code 46",
                            "2 iterations that completed"});
      QVERIFY2(r.out.contains("PARTIAL: 2 of 3 completed"), r.out.constData());
      QCOMPARE(readJson(dir_ + "/lost.json")["iterations"].get<int>(), 2);
    }
    {  // A warm-up iteration fails: an error that says so.
      ScopedEnv env("PTESCOPE_STANDIN_FAIL_MEMCPY", QByteArray::number(probeCopies + 1));
      auto r = profile(demo, "cuda", dir_ + "/warmup.json", {"--warmup", "1", "--iterations", "3"});
      expectOneError(r, 2, {"warm-up iteration 1 of 1", "instruction 0", "cudaMemcpyAsync", "code 700"});
    }
    {  // `run`: the first copy fails.
      ScopedEnv env("PTESCOPE_STANDIN_FAIL_MEMCPY", "1");
      auto r = runCli({"run", demo, "--runtime", "cuda", "--outputs", dir_ + "/never"});
      expectOneError(r, 2, {"instruction 0", "cudaMemcpyAsync", "code 700"});
      QVERIFY(!QFileInfo::exists(dir_ + "/never"));
    }
  }
};

QTEST_GUILESS_MAIN(CliStandinTest)
#include "test_cli_standin.moc"
