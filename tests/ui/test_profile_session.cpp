// Profiling from the app, offscreen: ProfileSession runs the CLI's engine on
// a worker thread over a document's program snapshot and keeps the latest
// two results; every copy of the method is measured with its tensor's bytes,
// the exports carry the profile's own numbers, cancel stops long runs
// cleanly, and every way a run can go wrong ends in one failed() message.
// ProfileDialog turns its widgets into a ProfileRequest and back.
#include <QtTest>

#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QSpinBox>

#include <nlohmann/json.hpp>

#include "exec/DeviceRuntime.h"
#include "exec/InputFiles.h"
#include "exec/Profiler.h"
#include "report/ProfileWriters.h"
#include "support/TestSupport.h"
#include "synth/ProgramBuilder.h"
#include "support/UiTestSupport.h"
#include "synth/JsonSpec.h"
#include "synth/Scenarios.h"
#include "ui/document/Document.h"
#include "ui/profile/ProfileDialog.h"
#include "ui/profile/ProfileSession.h"

using namespace ptescope;
using ui::ProfileRequest;
using ui::ProfileSession;

namespace {

constexpr int kRunTimeoutMs = 120000;

// Bytes per element, written out here rather than taken from the program
// library so that the test does not check the profiler against itself.
int64_t bytesPerElement(program::ScalarType type) {
  switch (type) {
    case program::ScalarType::Float: return 4;
    case program::ScalarType::Double: return 8;
    case program::ScalarType::Half: return 2;
    case program::ScalarType::BFloat16: return 2;
    case program::ScalarType::Long: return 8;
    case program::ScalarType::Int: return 4;
    case program::ScalarType::Short: return 2;
    case program::ScalarType::Char: return 1;
    case program::ScalarType::Byte: return 1;
    case program::ScalarType::Bool: return 1;
    default: return -1;
  }
}

int64_t tensorBytes(const program::Tensor& tensor) {
  int64_t n = bytesPerElement(tensor.scalar_type);
  for (int32_t size : program::items(tensor.sizes)) n *= size;
  return n;
}

// Every et_copy kernel call of a method, found by its operator's name.
struct ExpectedCopy {
  size_t instruction = 0;  // flat index over the chains
  bool h2d = false;
  int64_t bytes = 0;       // of the copy's source tensor
};
std::vector<ExpectedCopy> expectedCopies(const program::Method& method) {
  std::vector<ExpectedCopy> copies;
  const auto& operators = program::items(method.operators);
  const auto& values = program::items(method.values);
  size_t flat = 0;
  for (const auto& chain : program::items(method.chains)) {
    for (const auto& instruction : program::items(chain.instructions)) {
      if (const auto* call = std::get_if<program::KernelCall>(&instruction.data)) {
        const std::string name = operators[size_t(call->op_index)].name.value_or("");
        if (name == "et_copy::_h2d_copy" || name == "et_copy::_d2h_copy") {
          const int32_t source = program::items(call->args).at(0);
          copies.push_back({flat, name == "et_copy::_h2d_copy", tensorBytes(*values[size_t(source)].tensor())});
        }
      }
      ++flat;
    }
  }
  return copies;
}

std::shared_ptr<const program::Program> demoSnapshot(ui::Document& doc) {
  QString error;
  if (!doc.openDemo(&error)) QTest::qFail(qPrintable(error), __FILE__, __LINE__);
  return doc.programSnapshot();
}

// The large synthetic program after the device passes: 200 layers, 3,400
// instructions, 1,400 copies. A million iterations of it take far longer
// than any timeout here, so a run that ends in time was really cancelled.
std::shared_ptr<const program::Program> largeSnapshot() {
  auto built = synth::largeProgram(200);
  if (!built) {
    QTest::qFail(built.error().message.c_str(), __FILE__, __LINE__);
    return nullptr;
  }
  auto passed = synth::applyDevicePasses(synth::SynthesizedProgram{std::move(built.value()), {}});
  if (!passed) {
    QTest::qFail(passed.error().message.c_str(), __FILE__, __LINE__);
    return nullptr;
  }
  return std::make_shared<const program::Program>(std::move(passed.value()));
}

bool sawPhase(const QSignalSpy& progress, exec::ProfileProgress::Phase phase) {
  const QString name = QString::fromStdString(exec::phaseName(phase));
  for (const auto& args : progress)
    if (args.at(0).toString() == name) return true;
  return false;
}

int methodIndex(const program::Program& program, const std::string& name) {
  for (size_t m = 0; m < program.methods().size(); ++m)
    if (program.methods()[m].displayName() == name) return int(m);
  return -1;
}

ProfileRequest hostRequest(int method, size_t iterations) {
  ProfileRequest request;
  request.method = method;
  request.runtime = exec::RuntimePreference::Host;
  request.iterations = iterations;
  request.warmup = 1;
  request.measurePeak = false;  // a 64 MiB probe each run adds nothing these checks need
  return request;
}

// Signals of one run, and which of the outcomes arrived.
struct Spies {
  explicit Spies(ProfileSession& s)
      : progress(&s, &ProfileSession::progress),
        finished(&s, &ProfileSession::finished),
        failed(&s, &ProfileSession::failed),
        cancelled(&s, &ProfileSession::cancelled) {}
  int outcomes() const { return int(finished.count() + failed.count() + cancelled.count()); }
  // Waits for the outcome while the event loop delivers progress.
  bool waitForOutcome(int timeoutMs = kRunTimeoutMs) {
    QElapsedTimer timer;
    timer.start();
    while (outcomes() == 0 && timer.elapsed() < timeoutMs) QTest::qWait(10);
    return outcomes() > 0;
  }
  QString failure() const { return failed.isEmpty() ? QString() : failed.first().first().toString(); }
  QSignalSpy progress, finished, failed, cancelled;
};

// Runs a request to its end; the profile, or a test failure.
std::shared_ptr<const exec::TransferProfile> runToEnd(ProfileSession& session,
                                                      std::shared_ptr<const program::Program> program,
                                                      const ProfileRequest& request) {
  Spies spies(session);
  QString error;
  if (!session.start(program, "demo program", request, &error)) {
    QTest::qFail(qPrintable("start refused: " + error), __FILE__, __LINE__);
    return nullptr;
  }
  if (!spies.waitForOutcome()) {
    QTest::qFail("no outcome in time", __FILE__, __LINE__);
    return nullptr;
  }
  if (spies.finished.count() != 1) {
    QTest::qFail(qPrintable("the run did not finish: " + spies.failure()), __FILE__, __LINE__);
    return nullptr;
  }
  return session.latest()->profile;
}

QStringList readLines(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return {};
  QStringList lines = QString::fromUtf8(file.readAll()).split('\n');
  if (!lines.isEmpty() && lines.last().isEmpty()) lines.removeLast();
  return lines;
}

nlohmann::json readJson(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return nullptr;
  return nlohmann::json::parse(file.readAll().toStdString(), nullptr, false);
}

bool gpuPresent() { return static_cast<bool>(exec::selectRuntime(exec::RuntimePreference::Cuda)); }


}  // namespace

class ProfileSessionTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { qputenv("PTESCOPE_NO_DIALOGS", "1"); }

  void profilesEveryCopyOfTheMethod_data() {
    QTest::addColumn<QString>("method");
    QTest::newRow("forward") << "forward";
    QTest::newRow("prefill") << "prefill";
  }
  void profilesEveryCopyOfTheMethod() {
    QFETCH(QString, method);
    ui::Document doc;
    auto program = demoSnapshot(doc);
    QVERIFY(program);
    const int index = methodIndex(*program, method.toStdString());
    QVERIFY(index >= 0);
    const auto expected = expectedCopies(program->methods()[size_t(index)]);
    QVERIFY2(expected.size() >= 2, "the demo's methods have copies both ways");

    ProfileSession session;
    Spies spies(session);
    ProfileRequest request = hostRequest(index, 7);
    request.measurePeak = true;
    QString error;
    QVERIFY2(session.start(program, "demo program", request, &error), qPrintable(error));
    QVERIFY(session.isRunning());
    QVERIFY(spies.waitForOutcome());
    QVERIFY2(spies.finished.count() == 1, qPrintable(spies.failure()));
    QVERIFY(!session.isRunning());

    QVERIFY(session.latest());
    QVERIFY(!session.previous());
    const ui::ProfileRun& run = *session.latest();
    QCOMPARE(run.program, program);  // the snapshot, not a copy
    QCOMPARE(run.method, index);
    QVERIFY(run.when.isValid());
    QVERIFY(!run.label.isEmpty());
    QVERIFY2(run.label.contains(method) && run.label.contains("7"), qPrintable(run.label));
    const exec::TransferProfile& profile = *run.profile;
    QCOMPARE(profile.method, method.toStdString());
    QCOMPARE(profile.program_name, std::string("demo program"));
    QVERIFY(profile.emulated);
    QVERIFY(!profile.cancelled);
    QCOMPARE(profile.iterations, size_t(7));
    QCOMPARE(profile.warmup_iterations, size_t(1));
    QVERIFY(profile.peak.measured);

    QCOMPARE(profile.copies.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      const exec::CopyProfile& copy = profile.copies[i];
      QCOMPARE(copy.instruction, expected[i].instruction);
      QCOMPARE(copy.direction == program::CopyDirection::HostToDevice, expected[i].h2d);
      QCOMPARE(int64_t(copy.bytes), expected[i].bytes);
      QVERIFY(copy.bytes > 0);
      QCOMPARE(copy.executions_per_iteration, size_t(1));
      QCOMPARE(copy.samples.size(), size_t(7));
      QVERIFY(copy.seconds.min <= copy.seconds.median && copy.seconds.median <= copy.seconds.max);
      QCOMPARE(copy.host_memory, exec::HostMemoryKind::Pageable);
    }

    // Progress arrived on this thread, phase by phase, ending with the last
    // measured iteration.
    QVERIFY(spies.progress.count() > 0);
    const QString measuring = QString::fromStdString(exec::phaseName(exec::ProfileProgress::Phase::Measure));
    bool sawLastMeasure = false;
    for (const auto& args : spies.progress) {
      QVERIFY(args.at(1).toInt() <= args.at(2).toInt());
      if (args.at(0).toString() == measuring && args.at(1).toInt() == 7 && args.at(2).toInt() == 7)
        sawLastMeasure = true;
    }
    QVERIFY(sawLastMeasure);
    QCOMPARE(spies.failed.count(), 0);
    QCOMPARE(spies.cancelled.count(), 0);
  }

  void latestMovesToPrevious() {
    ui::Document doc;
    auto program = demoSnapshot(doc);
    ProfileSession session;
    QSignalSpy history(&session, &ProfileSession::historyChanged);
    auto first = runToEnd(session, program, hostRequest(0, 2));
    QVERIFY(first);
    ProfileRequest pinned = hostRequest(1, 3);
    pinned.hostMemory = exec::HostMemoryKind::Pinned;
    auto second = runToEnd(session, program, pinned);
    QVERIFY(second);
    QCOMPARE(session.latest()->profile, second);
    QCOMPARE(session.previous()->profile, first);
    QCOMPARE(session.latest()->method, 1);
    QCOMPARE(session.previous()->method, 0);
    QCOMPARE(session.latest()->request, pinned);
    QCOMPARE(second->host_memory, exec::HostMemoryKind::Pinned);
    for (const auto& copy : second->copies) QCOMPARE(copy.host_memory, exec::HostMemoryKind::Pinned);
    auto third = runToEnd(session, program, hostRequest(0, 1));
    QVERIFY(third);
    QCOMPARE(session.latest()->profile, third);
    QCOMPARE(session.previous()->profile, second);  // the first is gone
    QCOMPARE(history.count(), 3);

    session.clear();
    QVERIFY(!session.latest());
    QVERIFY(!session.previous());
    QCOMPARE(history.count(), 4);
    QString error;
    QVERIFY(!session.exportProfile(test::tempDir() + "/nothing.json", ProfileSession::Format::Json, &error));
    QVERIFY(!error.isEmpty());
  }

  void editingTheDocumentDoesNotDisturbARun() {
    // The run keeps its snapshot; the document's next program is another object.
    ui::Document doc;
    auto program = demoSnapshot(doc);
    ProfileSession session;
    Spies spies(session);
    QVERIFY(session.start(program, "demo program", hostRequest(0, 200)));
    doc.setDelegateTarget(0, 0, std::nullopt);  // no copies around the first delegate any more
    doc.waitForPipeline();
    QVERIFY(doc.programSnapshot() != program);
    QVERIFY(spies.waitForOutcome());
    QCOMPARE(spies.finished.count(), 1);
    QCOMPARE(session.latest()->program, program);
    QCOMPARE(session.latest()->profile->copies.size(), expectedCopies(program->methods()[0]).size());
  }

  void exportsCarryTheProfilesNumbers() {
    ui::Document doc;
    auto program = demoSnapshot(doc);
    ProfileSession session;
    auto profile = runToEnd(session, program, hostRequest(0, 5));
    QVERIFY(profile);
    const size_t copies = profile->copies.size();
    QVERIFY(copies > 0);
    const QString dir = test::tempDir();
    QString error;

    // JSON: the same copies, bytes and times (µs).
    QVERIFY2(session.exportProfile(dir + "/p.json", ProfileSession::Format::Json, &error), qPrintable(error));
    const auto json = readJson(dir + "/p.json");
    QVERIFY(json.is_object());
    QCOMPARE(json["method"].get<std::string>(), profile->method);
    QCOMPARE(json["program"].get<std::string>(), std::string("demo program"));
    QCOMPARE(json["iterations"].get<size_t>(), size_t(5));
    QCOMPARE(json["emulated"].get<bool>(), true);
    QCOMPARE(json["copies"].size(), copies);
    for (size_t i = 0; i < copies; ++i) {
      const auto& c = json["copies"][i];
      QCOMPARE(c["instruction"].get<size_t>(), profile->copies[i].instruction);
      QCOMPARE(c["bytes"].get<uint64_t>(), profile->copies[i].bytes);
      QCOMPARE(c["samples_us"].size(), size_t(5));
      QVERIFY(qAbs(c["median_us"].get<double>() - profile->copies[i].seconds.median * 1e6) < 1e-6);
    }

    // CSV: a header and one row per copy; the bytes column by its name.
    QVERIFY2(session.exportProfile(dir + "/p.csv", ProfileSession::Format::Csv, &error), qPrintable(error));
    const QStringList lines = readLines(dir + "/p.csv");
    QCOMPARE(size_t(lines.size()), copies + 1);
    const QStringList header = lines.first().split(',');
    const int bytesColumn = int(header.indexOf("bytes")), instructionColumn = int(header.indexOf("instruction"));
    QVERIFY(bytesColumn >= 0 && instructionColumn >= 0);
    for (size_t i = 0; i < copies; ++i) {
      const QStringList row = lines[qsizetype(i + 1)].split(',');
      QCOMPARE(row.size(), header.size());
      QCOMPARE(row[bytesColumn].toULongLong(), qulonglong(profile->copies[i].bytes));
      QCOMPARE(row[instructionColumn].toULongLong(), qulonglong(profile->copies[i].instruction));
    }

    // Trace: one complete event per copy and timeline iteration on the copy tracks.
    QVERIFY2(session.exportProfile(dir + "/p.trace.json", ProfileSession::Format::Trace, &error), qPrintable(error));
    const auto trace = readJson(dir + "/p.trace.json");
    QVERIFY(trace.is_object() && trace["traceEvents"].is_array());
    const int h2dTrack = report::traceThreadId(exec::TimelineSlice::Track::HostToDevice);
    const int d2hTrack = report::traceThreadId(exec::TimelineSlice::Track::DeviceToHost);
    size_t copyEvents = 0;
    uint64_t tracedBytes = 0;
    for (const auto& event : trace["traceEvents"]) {
      if (event["ph"] != "X") continue;
      const int tid = event["tid"].get<int>();
      if (tid != h2dTrack && tid != d2hTrack) continue;
      ++copyEvents;
      tracedBytes += event["args"]["bytes"].get<uint64_t>();
    }
    uint64_t bytesPerIteration = 0;
    for (const auto& copy : profile->copies) bytesPerIteration += copy.bytes;
    const size_t tracedIterations = std::min<size_t>(5, exec::ProfileOptions{}.timeline_iterations);
    QCOMPARE(copyEvents, copies * tracedIterations);
    QCOMPARE(tracedBytes, bytesPerIteration * tracedIterations);

    // A target that cannot be written: one message naming it, nothing left behind.
    const QString bad = dir + "/no-such-folder/p.json";
    QVERIFY(!session.exportProfile(bad, ProfileSession::Format::Json, &error));
    QVERIFY2(error.contains("no-such-folder"), qPrintable(error));
    QVERIFY(!QFile::exists(bad));
  }

  void formatFollowsTheFileName() {
    using F = ProfileSession::Format;
    const QStringList filters = ProfileSession::exportFileFilters().split(";;");
    QCOMPARE(filters.size(), 3);
    QCOMPARE(ProfileSession::formatForPath("/x/run.json"), std::optional<F>(F::Json));
    QCOMPARE(ProfileSession::formatForPath("/x/RUN.JSON"), std::optional<F>(F::Json));
    QCOMPARE(ProfileSession::formatForPath("/x/run.trace.json"), std::optional<F>(F::Trace));
    QCOMPARE(ProfileSession::formatForPath("/x/run.csv"), std::optional<F>(F::Csv));
    QCOMPARE(ProfileSession::formatForPath("/x/run.txt"), std::optional<F>());
    QCOMPARE(ProfileSession::formatForPath("/x/run"), std::optional<F>());
    // The trace filter chosen in the dialog: a plain .json name is a trace.
    const QString traceFilter = filters[2];
    QVERIFY(traceFilter.contains("trace"));
    QCOMPARE(ProfileSession::formatForPath("/x/run.json", traceFilter), std::optional<F>(F::Trace));
    QCOMPARE(ProfileSession::formatForPath("/x/run.csv", traceFilter), std::optional<F>(F::Csv));
    QCOMPARE(ProfileSession::formatForPath("/x/run", filters[1]), std::optional<F>(F::Csv));
    QCOMPARE(ProfileSession::formatForPath("/x/run.json", filters[0]), std::optional<F>(F::Json));
  }

  void cancelStopsALongRunAndKeepsThePreviousOne() {
    auto program = largeSnapshot();
    QVERIFY(program);
    const size_t copies = expectedCopies(program->methods()[0]).size();
    QCOMPARE(copies, 200 * synth::kLargeProgramCopiesPerLayer);
    ProfileSession session;
    auto earlier = runToEnd(session, program, hostRequest(0, 2));
    QVERIFY(earlier);
    QCOMPARE(earlier->copies.size(), copies);

    Spies spies(session);
    QVERIFY(session.start(program, "large program", hostRequest(0, 1000000)));
    // Cancel once the measured iterations have begun.
    QTRY_VERIFY_WITH_TIMEOUT(sawPhase(spies.progress, exec::ProfileProgress::Phase::Measure) || spies.outcomes() > 0,
                             kRunTimeoutMs);
    QCOMPARE(spies.outcomes(), 0);  // a million iterations are not done yet
    QElapsedTimer timer;
    timer.start();
    session.cancel();
    QVERIFY(session.isCancelling());
    QVERIFY(spies.waitForOutcome(30000));
    QVERIFY2(timer.elapsed() < 30000, "cancel took too long");
    QVERIFY(!session.isRunning());
    QCOMPARE(spies.failed.count(), 0);
    if (spies.finished.count() == 1) {
      // At least one measured iteration: the partial profile is the latest.
      const auto& partial = *session.latest()->profile;
      QVERIFY(partial.cancelled);
      QVERIFY(partial.iterations >= 1 && partial.iterations < 1000000);
      QCOMPARE(partial.requested_iterations, size_t(1000000));
      QCOMPARE(partial.copies.size(), copies);
      for (const auto& copy : partial.copies) QCOMPARE(copy.samples.size(), partial.iterations);
      QCOMPARE(session.previous()->profile, earlier);
      QCOMPARE(earlier->iterations, size_t(2));  // untouched
    } else {
      QCOMPARE(spies.cancelled.count(), 1);
      QCOMPARE(session.latest()->profile, earlier);
    }
    // Progress queued before the outcome is not delivered after it.
    const int progressAtEnd = int(spies.progress.count());
    QTest::qWait(100);
    QCOMPARE(int(spies.progress.count()), progressAtEnd);

    // Cancelled before any measured iteration: cancelled(), history untouched.
    const auto latestBefore = session.latest()->profile;
    const auto previousBefore = session.previous() ? session.previous()->profile : nullptr;
    Spies early(session);
    ProfileRequest longWarmup = hostRequest(0, 10);
    longWarmup.warmup = 1000;
    QVERIFY(session.start(program, "large program", longWarmup));
    session.cancel();
    QVERIFY(early.waitForOutcome(30000));
    QCOMPARE(early.cancelled.count(), 1);
    QCOMPARE(early.finished.count(), 0);
    QCOMPARE(session.latest()->profile, latestBefore);
    QCOMPARE(session.previous() ? session.previous()->profile : nullptr, previousBefore);

    // The session can run again afterwards.
    QVERIFY(runToEnd(session, program, hostRequest(0, 1)));
  }

  void destroyingTheSessionStopsItsRun() {
    auto program = largeSnapshot();
    QVERIFY(program);
    QElapsedTimer timer;
    {
      ProfileSession session;
      QSignalSpy progress(&session, &ProfileSession::progress);
      QVERIFY(session.start(program, "large program", hostRequest(0, 1000000)));
      QTRY_VERIFY_WITH_TIMEOUT(sawPhase(progress, exec::ProfileProgress::Phase::Measure), kRunTimeoutMs);
      timer.start();
    }  // the destructor cancels and waits
    QVERIFY(timer.elapsed() < 30000);
  }

  void clearDuringARunDiscardsItsResult() {
    auto program = largeSnapshot();
    QVERIFY(program);
    ProfileSession session;
    QVERIFY(runToEnd(session, program, hostRequest(0, 1)));
    Spies spies(session);
    QVERIFY(session.start(program, "large program", hostRequest(0, 1000000)));
    QTRY_VERIFY_WITH_TIMEOUT(sawPhase(spies.progress, exec::ProfileProgress::Phase::Measure), kRunTimeoutMs);
    session.clear();  // another file was opened
    QVERIFY(!session.latest());
    QVERIFY(session.isCancelling());
    QVERIFY(spies.waitForOutcome(30000));
    QCOMPARE(spies.cancelled.count(), 1);
    QVERIFY(!session.latest());
    QVERIFY(!session.previous());
  }

  void cudaWithoutAGpuFails() {
    ui::Document doc;
    auto program = demoSnapshot(doc);
    ProfileSession session;
    Spies spies(session);
    ProfileRequest request = hostRequest(0, 2);
    request.runtime = exec::RuntimePreference::Cuda;
    QVERIFY(session.start(program, "demo program", request));
    QVERIFY(spies.waitForOutcome());
    if (gpuPresent()) {
      QVERIFY2(spies.finished.count() == 1, qPrintable(spies.failure()));
      QVERIFY(!session.latest()->profile->emulated);
      QSKIP("a CUDA device is present: the no-GPU message cannot be checked here");
    }
    QCOMPARE(spies.failed.count(), 1);
    const QString message = spies.failure();
    QVERIFY2(message.contains("CUDA"), qPrintable(message));
    QVERIFY(!session.latest());
  }

  // Issue 13: a corrupt size asks for more memory than there is; the run is
  // refused before anything is allocated, with the CLI's message.
  void aRunThatCannotFitIsRefusedWithOneMessage() {
    synth::ProgramBuilder builder;
    auto& m = builder.addMethod("forward");
    const auto x = m.addTensor(program::ScalarType::Float, {2147483647, 64});  // 512 GiB
    m.setInputs({x});
    m.setOutputs({x});
    synth::BuildOptions options;
    options.planning.alloc_graph_input = false;
    options.planning.alloc_graph_output = false;
    auto built = builder.build(options);
    QVERIFY2(built.ok(), built.ok() ? "" : built.error().message.c_str());
    auto program = std::make_shared<const program::Program>(std::move(built.value()));
    ProfileSession session;
    Spies spies(session);
    QVERIFY(session.start(program, "huge", hostRequest(0, 1)));
    QVERIFY(spies.waitForOutcome());
    QCOMPARE(spies.failed.count(), 1);
    const QString message = spies.failure();
    QVERIFY2(message.contains("not run") && message.contains("512.0 GiB"), qPrintable(message));
    QVERIFY(!message.contains('\n'));
    QVERIFY(!session.latest());
  }

  void badRequestsAreRefused() {
    ui::Document doc;
    auto program = demoSnapshot(doc);
    ProfileSession session;
    Spies spies(session);
    QSignalSpy started(&session, &ProfileSession::started);
    QString error;
    QVERIFY(!session.start(program, "demo program", hostRequest(-1, 1), &error));
    QVERIFY(!error.isEmpty());
    error.clear();
    QVERIFY(!session.start(program, "demo program", hostRequest(int(program->methods().size()), 1), &error));
    QVERIFY(!error.isEmpty());
    error.clear();
    QVERIFY(!session.start(nullptr, "nothing", hostRequest(0, 1), &error));
    QVERIFY(!error.isEmpty());
    error.clear();
    QVERIFY(!session.start(program, "demo program", hostRequest(0, 0), &error));
    QVERIFY(!error.isEmpty());
    QVERIFY(!session.isRunning());
    QCOMPARE(started.count(), 0);

    // A second start while one runs is refused; the first goes on.
    auto large = largeSnapshot();
    QVERIFY(session.start(large, "large program", hostRequest(0, 1000000)));
    error.clear();
    QVERIFY(!session.start(program, "demo program", hostRequest(1, 1), &error));
    QVERIFY(!error.isEmpty());
    QVERIFY(session.isRunning());
    QCOMPARE(started.count(), 1);
    session.cancel();
    session.waitForFinished();  // delivers the outcome at once
    QVERIFY(!session.isRunning());
    QCOMPARE(spies.outcomes(), 1);
    QCOMPARE(spies.failed.count(), 0);
  }

  void inputFilesAreChecked() {
    ui::Document doc;
    auto program = demoSnapshot(doc);
    const int forward = methodIndex(*program, "forward");
    const auto& method = program->methods()[size_t(forward)];
    QCOMPARE(program::items(method.inputs).size(), size_t(1));
    const auto& input = *program::items(method.values)[size_t(program::items(method.inputs)[0])].tensor();
    std::vector<int64_t> sizes(program::items(input.sizes).begin(), program::items(input.sizes).end());
    auto fileOf = [&](std::vector<int64_t> shape) {
      exec::HostTensor tensor;
      tensor.dtype = input.scalar_type;
      tensor.sizes = shape;
      int64_t n = bytesPerElement(input.scalar_type);
      for (int64_t s : shape) n *= s;
      tensor.bytes.assign(size_t(n), 0);
      return exec::encodeNpy(tensor);
    };

    // One more row than the input has: failed(), naming the file.
    const QString wrong = test::tempDir() + "/wrong-shape";
    QVERIFY(QDir().mkpath(wrong));
    std::vector<int64_t> bigger = sizes;
    bigger[0] += 1;
    test::writeAll(wrong + "/0.npy", fileOf(bigger));
    ProfileSession session;
    Spies spies(session);
    ProfileRequest request = hostRequest(forward, 2);
    request.inputDirectory = wrong;
    QVERIFY(session.start(program, "demo program", request));
    QVERIFY(spies.waitForOutcome());
    QCOMPARE(spies.failed.count(), 1);
    QVERIFY2(spies.failure().contains(wrong + "/0.npy"), qPrintable(spies.failure()));
    QVERIFY(!session.latest());

    // The right shape runs.
    const QString right = test::tempDir() + "/right-shape";
    QVERIFY(QDir().mkpath(right));
    test::writeAll(right + "/0.npy", fileOf(sizes));
    request.inputDirectory = right;
    QVERIFY(runToEnd(session, program, request));
    QCOMPARE(session.latest()->request.inputDirectory, right);
  }

  void dialogRequestFollowsTheWidgets() {
    ui::Document doc;
    auto program = demoSnapshot(doc);
    const int prefill = methodIndex(*program, "prefill");
    ui::ProfileDialog dialog(*program, prefill);
    auto* method = dialog.findChild<QComboBox*>("method");
    auto* runtime = dialog.findChild<QComboBox*>("runtime");
    auto* runtimeInfo = dialog.findChild<QLabel*>("runtimeInfo");
    auto* iterations = dialog.findChild<QSpinBox*>("iterations");
    auto* warmup = dialog.findChild<QSpinBox*>("warmup");
    auto* pageable = dialog.findChild<QRadioButton*>("hostPageable");
    auto* pinned = dialog.findChild<QRadioButton*>("hostPinned");
    auto* peak = dialog.findChild<QCheckBox*>("measurePeak");
    auto* random = dialog.findChild<QRadioButton*>("inputsRandom");
    auto* seed = dialog.findChild<QSpinBox*>("seed");
    auto* fromFolder = dialog.findChild<QRadioButton*>("inputsFolder");
    auto* folder = dialog.findChild<QLineEdit*>("inputFolder");
    auto* browse = dialog.findChild<QPushButton*>("browseInputs");
    auto* profileButton = dialog.findChild<QPushButton*>("startProfile");
    auto* errorLabel = dialog.findChild<QLabel*>("profileError");
    const std::initializer_list<QObject*> controls{method, runtime, runtimeInfo, iterations, warmup,
                                                   pageable, pinned, peak, random, seed, fromFolder,
                                                   folder, browse, profileButton, errorLabel};
    for (QObject* control : controls)
      QVERIFY(control);

    // Defaults: the current method, Automatic, 20 runs after 3, pageable, random.
    QCOMPARE(method->count(), int(program->methods().size()));
    ProfileRequest defaults;
    defaults.method = prefill;
    QCOMPARE(dialog.request(), defaults);
    QVERIFY(method->currentText().contains("prefill"));
    QCOMPARE(runtime->count(), 4);  // Automatic, CUDA GPU, Host emulation, ExecuTorch runner… (test_runner_profile)
    QVERIFY(!folder->isEnabled() && seed->isEnabled());

    // What Automatic uses here, said plainly.
    QVERIFY(!runtimeInfo->text().isEmpty());
    if (!gpuPresent())
      QVERIFY2(runtimeInfo->text().contains("emulation", Qt::CaseInsensitive), qPrintable(runtimeInfo->text()));
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QVERIFY(test::saveScreenshot(dialog, "profile-dialog"));

    // Every widget reaches the request.
    method->setCurrentIndex(methodIndex(*program, "forward"));
    runtime->setCurrentIndex(runtime->findText("Host emulation"));
    QVERIFY(runtimeInfo->text().contains("emulat", Qt::CaseInsensitive));
    iterations->setValue(77);
    warmup->setValue(0);
    pinned->click();
    peak->click();
    seed->setValue(1234);
    ProfileRequest r = dialog.request();
    QCOMPARE(r.method, methodIndex(*program, "forward"));
    QCOMPARE(r.runtime, exec::RuntimePreference::Host);
    QCOMPARE(r.iterations, size_t(77));
    QCOMPARE(r.warmup, size_t(0));
    QCOMPARE(r.hostMemory, exec::HostMemoryKind::Pinned);
    QVERIFY(!r.measurePeak);
    QCOMPARE(r.seed, uint64_t(1234));
    QVERIFY(r.inputDirectory.isEmpty());
    runtime->setCurrentIndex(runtime->findText("CUDA GPU"));
    QCOMPARE(dialog.request().runtime, exec::RuntimePreference::Cuda);
    iterations->setValue(1000000);  // past the range: clamped
    QCOMPARE(dialog.request().iterations, size_t(ui::ProfileDialog::kMaxIterations));

    // Inputs from a folder: it must exist before the dialog accepts.
    fromFolder->click();
    QVERIFY(folder->isEnabled() && browse->isEnabled() && !seed->isEnabled());
    const QString missing = test::tempDir() + "/not-there";
    folder->setText(missing);
    QCOMPARE(dialog.request().inputDirectory, missing);
    profileButton->click();
    QVERIFY(dialog.isVisible());
    QVERIFY(dialog.result() != QDialog::Accepted);
    QVERIFY2(errorLabel->text().contains("not-there"), qPrintable(errorLabel->text()));
    QVERIFY(test::saveScreenshot(dialog, "profile-dialog-folder-error"));
    folder->setText(test::tempDir());
    QVERIFY(dialog.validationError().isEmpty());
    profileButton->click();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QCOMPARE(dialog.request().inputDirectory, test::tempDir());
    random->click();
    QVERIFY(dialog.request().inputDirectory.isEmpty());

    // setRequest shows earlier choices, and request() gives them back.
    ProfileRequest earlier;
    earlier.method = prefill;
    earlier.runtime = exec::RuntimePreference::Host;
    earlier.iterations = 321;
    earlier.warmup = 9;
    earlier.hostMemory = exec::HostMemoryKind::Pinned;
    earlier.seed = 42;
    earlier.inputDirectory = test::tempDir();
    earlier.measurePeak = false;
    dialog.setRequest(earlier);
    QCOMPARE(dialog.request(), earlier);
    QVERIFY(fromFolder->isChecked());
    earlier.inputDirectory.clear();
    earlier.hostMemory = exec::HostMemoryKind::Pageable;
    dialog.setRequest(earlier);
    QCOMPARE(dialog.request(), earlier);
    QVERIFY(random->isChecked() && pageable->isChecked());
  }
};

QTEST_MAIN(ProfileSessionTest)
#include "test_profile_session.moc"
