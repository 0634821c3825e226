// Regression tests of issue 13 (hardening), each reproducer built by code:
// names that are not UTF-8, reader/writer agreement on tiny programs,
// misaligned 8-byte vectors, the executor's memory budget, and the atomic
// writer (no temporary left by a crash, mode and owner kept, symlinks
// written through).
#include <QtTest>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "exec/Executor.h"
#include "exec/HostRuntime.h"
#include "exec/MemoryBudget.h"
#include "program_generated.h"
#include "pte/JsonDump.h"
#include "pte/Reader.h"
#include "pte/Writer.h"
#include "report/InfoReport.h"
#include "report/Json.h"
#include "synth/JsonSpec.h"
#include "synth/ProgramBuilder.h"
#include "support/BudgetPrograms.h"
#include "support/TestSupport.h"
#include "util/MappedFile.h"
#include "util/Utf8.h"

using namespace ptescope;
using namespace ptescope::program;

namespace {

std::vector<uint8_t> serializeOrFail(const Program& p) {
  auto bytes = pte::serializeProgram(p);
  if (!bytes) qFatal("serialize: %s", bytes.error().message.c_str());
  return bytes.value();
}

Result<pte::LoadedProgram> readBytes(const std::vector<uint8_t>& bytes) {
  pte::ReadOptions options;
  options.find_ptd_beside = false;
  return pte::readProgramBytes(Bytes::copyOf(bytes), "test.pte", options);
}

// The add program with a method name, an operator name and a delegate id
// that are not UTF-8 (a lone 0xFF; a 0xC3 lead byte followed by '('; a
// truncated three-byte sequence).
Program programWithBadNames() {
  Program p = test::upstreamOrderedAddProgram();
  Method& m = p.methods().front();
  m.name = std::string("fo\xFFo");
  (*m.operators)[0].name = std::string("et_copy::\xC3(h2d");
  (*m.delegates)[0].id = std::string("Cuda\xE2\x82");
  return p;
}

std::vector<std::string> folderEntries(const QString& folder) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(folder.toStdString())) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

mode_t modeOf(const QString& path) {
  struct stat st {};
  if (::stat(path.toLocal8Bit().constData(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

const uint8_t kNew[] = {'n', 'e', 'w'};

void exitBeforeReplace(const std::string&) { ::_exit(9); }

}  // namespace

class HardeningTest : public QObject {
  Q_OBJECT

 private slots:
  // ---- 1. strings that are not UTF-8 ----
  void printableUtf8EscapesOnlyInvalidBytes() {
    QCOMPARE(printableUtf8("plain"), std::string("plain"));
    QCOMPARE(printableUtf8("caf\xC3\xA9"), std::string("caf\xC3\xA9"));  // valid two-byte sequence kept
    QCOMPARE(printableUtf8("a\xFF" "b"), std::string("a\\xFFb"));
    QCOMPARE(printableUtf8("\xC3("), std::string("\\xC3("));
    QCOMPARE(printableUtf8("\xE2\x82"), std::string("\\xE2\\x82"));
    QCOMPARE(printableUtf8("\xED\xA0\x80"), std::string("\\xED\\xA0\\x80"));  // a surrogate
    QCOMPARE(printableUtf8("\xC0\xAF"), std::string("\\xC0\\xAF"));          // overlong '/'
    QVERIFY(isValidUtf8("caf\xC3\xA9 \xF0\x9F\x98\x80"));
    QVERIFY(!isValidUtf8("\xF4\x90\x80\x80"));  // above U+10FFFF
  }

  // Walkthrough 23: a name with a right-to-left override read reversed
  // ("evil" as "live") in the app, the CLI and the report; the bidirectional
  // formatting characters are escaped on a printable line as the other
  // invisible ones are, and a name that holds one still writes back exactly.
  void bidiControlsAreEscapedOnALine() {
    QCOMPARE(printableLine("a \xE2\x80\xAE" "evil"), std::string("a \\u202Eevil"));
    QCOMPARE(printableLine("\xE2\x81\xA6x\xE2\x81\xA9"), std::string("\\u2066x\\u2069"));
    QCOMPARE(printableLine("\xE2\x80\x8F\xD8\x9C"), std::string("\\u200F\\u061C"));
    QCOMPARE(printableLine("\xD7\xA9\xD7\x9C\xD7\x95\xD7\x9D"), std::string("\xD7\xA9\xD7\x9C\xD7\x95\xD7\x9D"));  // Hebrew letters stay
    QCOMPARE(printableUtf8("a\xE2\x80\xAE" "b"), std::string("a\xE2\x80\xAE" "b"));  // not one-line: kept
  }

  void jsonTextNeverThrowsAndEscapes() {
    nlohmann::json j = {{"name", std::string("x\xFFy")}, {std::string("k\xFE"), 1}, {"ok", "fine"}};
    size_t escaped = 0;
    std::string text;
    try {
      text = report::jsonText(j, 2, &escaped);
    } catch (...) {
      QFAIL("jsonText threw");
    }
    QCOMPARE(escaped, size_t(2));
    auto parsed = nlohmann::json::parse(text);  // valid JSON, valid UTF-8
    QCOMPARE(parsed["name"].get<std::string>(), std::string("x\\xFFy"));
    QCOMPARE(parsed["k\\xFE"].get<int>(), 1);
    QCOMPARE(parsed["ok"].get<std::string>(), std::string("fine"));
  }

  void badNamesReadPrintableAndWriteBackExactly() {
    const auto original = serializeOrFail(programWithBadNames());
    auto loaded = readBytes(original);
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().message.c_str());
    const Method& m = loaded->program.methods().front();
    QCOMPARE(m.displayName(), std::string("fo\\xFFo"));
    QCOMPARE(*(*m.operators)[0].name, std::string("et_copy::\\xC3(h2d"));
    QCOMPARE(*(*m.delegates)[0].id, std::string("Cuda\\xE2\\x82"));
    QCOMPARE(loaded->escaped_strings, size_t(3));
    QVERIFY(!loaded->warnings.empty());
    // info's JSON is produced and names the method as the text does.
    std::string json;
    try {
      json = report::jsonText(report::infoJson(loaded.value()));
    } catch (...) {
      QFAIL("info JSON threw");
    }
    QVERIFY(json.find("fo\\\\xFFo") != std::string::npos);
    QVERIFY(report::infoText(loaded.value()).find("fo\\xFFo") != std::string::npos);
    // Written back unchanged: the very same bytes.
    QVERIFY(serializeOrFail(loaded->program) == original);
  }

  // ---- 3. reader and writer agree ----
  void programWithoutMethodsOrSegmentsWritesReadably() {
    Program empty;
    empty.execution_plan = std::vector<Method>{};  // present, empty
    const auto bytes = serializeOrFail(empty);
    QVERIFY(bytes.size() >= pte::kMinimumProgramFileSize);
    auto loaded = readBytes(bytes);
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().message.c_str());
    QCOMPARE(loaded->program.methods().size(), size_t(0));
    QVERIFY(serializeOrFail(loaded->program) == bytes);
    // And through the verified file writer.
    const QString path = test::tempDir() + "/empty.pte";
    auto written = pte::writeProgramFile(empty, path.toStdString());
    QVERIFY2(written.ok(), written.ok() ? "" : written.error().message.c_str());
  }

  // ---- 4. misaligned 8-byte vectors ----
  void misalignedEightByteVectorsReadWithoutUndefinedBehaviour() {
    Program p;
    Method m;
    m.name = "forward";
    // IntList items name Int values; an Int of 0 stores no 8-byte field
    // (flatbuffers omits defaults), so only the vectors move out of line.
    m.values = std::vector<Value>{Value{IntListValue{std::vector<int64_t>{2, 3, 2}}},
                                  Value{DoubleListValue{std::vector<double>{0.5, -2.25}}}, Value{IntValue{0}},
                                  Value{IntValue{0}}};
    m.non_const_buffer_sizes = std::vector<int64_t>{0, 4096};
    m.inputs = std::vector<int32_t>{};
    m.outputs = std::vector<int32_t>{};
    Chain chain;
    chain.inputs = std::vector<int32_t>{};
    chain.outputs = std::vector<int32_t>{};
    chain.instructions = std::vector<Instruction>{};
    m.chains = std::vector<Chain>{chain};
    m.operators = std::vector<Operator>{};
    m.delegates = std::vector<BackendDelegate>{};
    p.execution_plan = std::vector<Method>{m};
    p.segments = std::vector<Segment>{Segment{Bytes::fromVector({}), 0}};
    p.constant_segment = SubsegmentOffsets{0, std::vector<uint64_t>{0, 0, 0}};
    auto bytes = serializeOrFail(p);
    {
      auto aligned = readBytes(bytes);
      QVERIFY2(aligned.ok(), aligned.ok() ? "" : aligned.error().message.c_str());
    }
    // Four bytes inserted after the file identifier move every vector by 4
    // (offsets are relative; only the root offset needs the 4 added): the
    // verifier still accepts it, the 8-byte elements are now misaligned.
    std::vector<uint8_t> shifted(bytes.begin(), bytes.begin() + 8);
    shifted.insert(shifted.end(), 4, 0);
    shifted.insert(shifted.end(), bytes.begin() + 8, bytes.end());
    uint32_t root = 0;
    std::memcpy(&root, shifted.data(), 4);
    root += 4;
    std::memcpy(shifted.data(), &root, 4);
    const auto* fbProgram = executorch_flatbuffer::GetProgram(shifted.data());
    const auto* offsets = fbProgram->constant_segment()->offsets();
    QVERIFY(reinterpret_cast<uintptr_t>(offsets->Data()) % 8 != 0);
    QVERIFY(reinterpret_cast<uintptr_t>(fbProgram->execution_plan()->Get(0)->non_const_buffer_sizes()->Data()) % 8 != 0);
    auto loaded = readBytes(shifted);  // under UBSan: no misaligned load
    QVERIFY2(loaded.ok(), loaded.ok() ? "" : loaded.error().message.c_str());
    const Method& read = loaded->program.methods().front();
    QCOMPARE(*std::get<IntListValue>((*read.values)[0].data).items, (std::vector<int64_t>{2, 3, 2}));
    QCOMPARE(*std::get<DoubleListValue>((*read.values)[1].data).items, (std::vector<double>{0.5, -2.25}));
    QCOMPARE(*read.non_const_buffer_sizes, (std::vector<int64_t>{0, 4096}));
    QCOMPARE(*loaded->program.constant_segment->offsets, (std::vector<uint64_t>{0, 0, 0}));    // `dump` prints what flatc would, which cannot be done without reading
    // through misaligned pointers: it says so instead.
    auto dumped = pte::dumpProgramJson(shifted);
    QVERIFY(!dumped.ok());
    QVERIFY2(dumped.error().message.find("not 8-byte aligned") != std::string::npos, dumped.error().message.c_str());
    QVERIFY(pte::dumpProgramJson(bytes).ok());
  }

  // Found by fuzz_reader: a value with data but no type field made the
  // flatbuffers text printer behind `dump` assert (abort).
  void dumpOfAValueWithoutItsTypeIsAnError() {
    namespace fb = executorch_flatbuffer;
    flatbuffers::FlatBufferBuilder b;
    auto integer = fb::CreateInt(b, 5);
    fb::EValueBuilder value(b);
    value.add_val(integer.Union());  // no add_val_type
    auto v = value.Finish();
    auto values = b.CreateVector(std::vector<flatbuffers::Offset<fb::EValue>>{v});
    auto plan = fb::CreateExecutionPlan(b, b.CreateString("forward"), 0, values);
    auto plans = b.CreateVector(std::vector<flatbuffers::Offset<fb::ExecutionPlan>>{plan});
    b.Finish(fb::CreateProgram(b, 0, plans), fb::ProgramIdentifier());
    std::vector<uint8_t> bytes(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
    bytes.resize(std::max<size_t>(bytes.size(), 64), 0);
    auto dumped = pte::dumpProgramJson(bytes);  // before the fix: an assertion abort
    QVERIFY(!dumped.ok());
    QVERIFY2(dumped.error().message.find("has data but no type") != std::string::npos, dumped.error().message.c_str());
  }

  // ---- 2. the memory budget ----
  void memorySizesParse() {
    QCOMPARE(exec::parseMemorySize("1024"), std::optional<uint64_t>(1024));
    QCOMPARE(exec::parseMemorySize("512M"), std::optional<uint64_t>(512ull << 20));
    QCOMPARE(exec::parseMemorySize("2GiB"), std::optional<uint64_t>(2ull << 30));
    QCOMPARE(exec::parseMemorySize("1.5k"), std::optional<uint64_t>(1536));
    QVERIFY(!exec::parseMemorySize("lots"));
    QVERIFY(!exec::parseMemorySize("-1G"));
    QCOMPARE(exec::saturatingAdd(UINT64_MAX - 1, 5), UINT64_MAX);
  }

  void unplannedTensorOverTheLimitIsRefusedBeforeAllocating() {
    // One changed byte: an unplanned input of float32[2147483647, 2] (16 GiB).
    synth::ProgramBuilder builder;
    auto& m = builder.addMethod("forward");
    const auto x = m.addTensor(ScalarType::Float, {2147483647, 2});
    m.setInputs({x});
    m.setOutputs({x});
    synth::BuildOptions buildOptions;
    buildOptions.planning.alloc_graph_input = false;
    buildOptions.planning.alloc_graph_output = false;
    auto built = builder.build(buildOptions);
    QVERIFY2(built.ok(), built.ok() ? "" : built.error().message.c_str());
    exec::HostRuntime runtime;
    exec::ExecutorOptions options;
    options.max_memory = 1ull << 30;
    auto executor = exec::Executor::create(built.value(), "forward", runtime, options);
    QVERIFY(!executor.ok());
    const std::string& message = executor.error().message;
    QVERIFY2(message.find("method 'forward'") != std::string::npos, message.c_str());
    QVERIFY2(message.find("16.0 GiB") != std::string::npos, message.c_str());
    QVERIFY2(message.find("limit of 1.0 GiB") != std::string::npos, message.c_str());
    QVERIFY(message.find('\n') == std::string::npos);
    QVERIFY(runtime.liveAllocations().empty());
  }

  // Issue 27: the default budget is half of what is available, the same
  // function for the CLI and the app, and the refusal says the figure and
  // how to raise it.
  void defaultBudgetIsHalfOfTheAvailableMemory() {
    QCOMPARE(exec::defaultHostMemoryBudget(20ull << 30), uint64_t(10ull << 30));
    QCOMPARE(exec::defaultHostMemoryBudget(0), uint64_t(0));  // unknown: no default budget
    const uint64_t available = ptescope::hostAvailableMemoryBytes();
    if (available == 0) QSKIP("MemAvailable is unknown here");
    exec::HostRuntime runtime;
    // 4/5 of what is available: under the old limit (all of it), over the
    // default budget (half of it).
    exec::MemoryDemand demand;
    demand.pool = "host";
    demand.inputs = available / 5 * 2;
    demand.unplanned = available / 5 * 2;
    auto refused = exec::checkMemoryDemand({demand}, runtime, 0, "method 'forward'");
    QVERIFY(!refused.ok());
    const std::string& message = refused.error().message;
    QVERIFY2(message.find("not run") != std::string::npos, message.c_str());
    QVERIFY2(message.find("the default budget of ") != std::string::npos, message.c_str());
    QVERIFY2(message.find("(half of the ") != std::string::npos, message.c_str());
    QVERIFY2(message.find("MemAvailable") != std::string::npos, message.c_str());
    QVERIFY2(message.find("raise it with --max-memory SIZE") != std::string::npos, message.c_str());
    QVERIFY(message.find('\n') == std::string::npos);
    // The app names its own setting.
    auto inApp = exec::checkMemoryDemand({demand}, runtime, 0, "method 'forward'", "the memory budget of Run > Memory Budget");
    QVERIFY(!inApp.ok());
    QVERIFY2(inApp.error().message.find("raise it with the memory budget of Run > Memory Budget") != std::string::npos,
             inApp.error().message.c_str());
    // An explicit limit above the default lets it through (up to what is available).
    QVERIFY(exec::checkMemoryDemand({demand}, runtime, available, "method 'forward'").ok());
    // Well under the budget passes by default.
    demand.inputs = demand.unplanned = available / 8;
    QVERIFY(exec::checkMemoryDemand({demand}, runtime, 0, "method 'forward'").ok());
  }

  // Issue 34 item 28: what the caller allocates alongside the run is named
  // as the caller names it (the profiler's link probe), not "other buffers".
  void aRefusalNamesWhatIsAllocatedAlongside() {
    const program::Program p = test::upstreamOrderedAddProgram();
    exec::HostRuntime runtime;
    const exec::ExtraAllocation probe{exec::MemoryPlace::host(exec::HostMemoryKind::Pageable), 1ull << 30,
                                      "link peak probe"};
    auto demand = exec::methodMemoryDemand(p.methods().front(), runtime, exec::HostMemoryKind::Pageable, {probe});
    QVERIFY(demand.ok());
    auto refused = exec::checkMemoryDemand(demand.value(), runtime, 1ull << 20, "method 'forward'");
    QVERIFY(!refused.ok());
    const std::string& message = refused.error().message;
    // 1 << 30 bytes is 1.0 GiB in core/program/Text's spelling.
    QVERIFY2(message.find("link peak probe 1.0 GiB") != std::string::npos, message.c_str());
    QVERIFY2(message.find("other buffers") == std::string::npos, message.c_str());
  }

  void aKilobyteProgramDeclaringAHugeInputIsRefusedBeforeAllocating() {
    const uint64_t bytes = test::overBudgetInputBytes();
    auto built = test::hugeInputProgram(bytes);
    QVERIFY2(built.ok(), built.ok() ? "" : built.error().message.c_str());
    auto serialized = pte::serializeProgram(built.value());
    QVERIFY(serialized.ok());
    QVERIFY2(serialized->size() < 2048, QByteArray::number(qulonglong(serialized->size())).constData());
    exec::HostRuntime runtime;
    auto executor = exec::Executor::create(built.value(), "forward", runtime);  // the default options
    QVERIFY(!executor.ok());
    const std::string& message = executor.error().message;
    QVERIFY2(message.find("method 'forward': not run") != std::string::npos, message.c_str());
    QVERIFY2(message.find("default budget") != std::string::npos, message.c_str());
    QVERIFY2(message.find("--max-memory SIZE") != std::string::npos, message.c_str());
    QVERIFY(runtime.liveAllocations().empty());
  }

  void tensorsThatTogetherExceedAvailableMemoryAreRefused() {
    const uint64_t available = ptescope::hostAvailableMemoryBytes();
    if (available == 0) QSKIP("MemAvailable is unknown here");
    // Two tensors of 3/4 of what is available: each alone would fit.
    const uint64_t each = available / 4 * 3;
    const int64_t rows = int64_t(each / 4 / 1024);
    QVERIFY(rows > 0 && rows < INT32_MAX);
    synth::ProgramBuilder builder;
    auto& m = builder.addMethod("forward");
    const auto a = m.addTensor(ScalarType::Float, {int32_t(rows), 1024});
    const auto b = m.addTensor(ScalarType::Float, {int32_t(rows), 1024});
    m.setInputs({a, b});
    m.setOutputs({a});
    synth::BuildOptions buildOptions;
    buildOptions.planning.alloc_graph_input = false;
    buildOptions.planning.alloc_graph_output = false;
    auto built = builder.build(buildOptions);
    QVERIFY2(built.ok(), built.ok() ? "" : built.error().message.c_str());
    exec::HostRuntime runtime;
    auto executor = exec::Executor::create(built.value(), "forward", runtime);
    QVERIFY(!executor.ok());
    QVERIFY2(executor.error().message.find("available") != std::string::npos, executor.error().message.c_str());
    QVERIFY(runtime.liveAllocations().empty());
  }

  // Found by fuzz_json_spec: a number too large for a double made the
  // parser throw out_of_range.406 through synthesizeFromSpec (an abort).
  void specWithAnOverflowingNumberIsAnError() {
    Result<synth::SynthesizedProgram> built = makeError("not run");
    try {
      built = synth::synthesizeFromSpec("{\"methods\": 1e444444}");
    } catch (...) {
      QFAIL("synthesizeFromSpec threw");
    }
    QVERIFY(!built.ok());
    QVERIFY2(built.error().message.find("malformed JSON") != std::string::npos, built.error().message.c_str());
  }

  // Found by fuzz_json_spec: a demo spec mutated to ask for a constant of
  // float32[1, 699999994] made `synth` build and write a 2.8 GB program with
  // 11 GB resident. The constants are charged one by one before any is
  // allocated, and the spec refused past the limit with one error naming the
  // constant: the caller's limit (--max-constants), or by default a quarter
  // of the available memory.
  void specConstantsBeyondTheBudgetAreRefused() {
    auto spec = [](const std::string& constants) {
      std::string names;
      for (const char* name : {"w", "v"})
        if (constants.find(std::string("\"") + name + "\"") != std::string::npos)
          names += std::string(names.empty() ? "" : ", ") + "\"" + name + "\"";
      return R"({"methods": [{"name": "forward", "inputs": [], "outputs": [)" + names +
             R"(], "constants": {)" + constants + R"(}, "nodes": []}]})";
    };
    const std::string twoMiB = R"("w": {"dtype": "float32", "sizes": [512, 1024], "fill": 0.125})";
    auto limited = [](uint64_t bytes) {
      synth::SpecLimits limits;
      limits.max_constant_bytes = bytes;
      return limits;
    };

    auto refused = synth::synthesizeFromSpec(spec(twoMiB), limited(1u << 20));
    QVERIFY(!refused.ok());
    const std::string& message = refused.error().message;
    for (const char* part : {"methods[0].constants.w", "float32[512,1024]", "2.0 MiB", "1.0 MiB", "--max-constants"})
      QVERIFY2(message.find(part) != std::string::npos, message.c_str());
    QVERIFY2(message.find('\n') == std::string::npos, message.c_str());

    auto built = synth::synthesizeFromSpec(spec(twoMiB), limited(4u << 20));
    QVERIFY2(built.ok(), built.ok() ? "" : built.error().message.c_str());
    const program::Method& m = built->program.methods()[0];
    const auto w = program::tensorData(built->program, *items(m.values)[size_t(items(m.outputs)[0])].tensor());
    QCOMPARE(w.data.size(), size_t(2u << 20));
    const float fill = 0.125f;
    for (size_t i : {size_t(0), w.data.size() / 2, w.data.size() - 4})
      QVERIFY(std::memcmp(w.data.data() + i, &fill, 4) == 0);

    // The total counts: two constants of 768 KiB under a 1 MiB limit.
    auto second = synth::synthesizeFromSpec(
        spec(R"("w": {"dtype": "int8", "sizes": [786432], "fill": 1}, "v": {"dtype": "int8", "sizes": [786432], "fill": 2})"),
        limited(1u << 20));
    QVERIFY(!second.ok());
    QVERIFY2(second.error().message.find("methods[0].constants.v") != std::string::npos, second.error().message.c_str());
    QVERIFY2(second.error().message.find("768.0 KiB before it") != std::string::npos, second.error().message.c_str());

    // No limit given: a constant of 1 TiB is beyond a quarter of any memory
    // this runs on, and is refused at once rather than allocated.
    auto huge = synth::synthesizeFromSpec(spec(R"("w": {"dtype": "float32", "sizes": [65536, 65536, 64], "fill": 1})"));
    QVERIFY(!huge.ok());
    QVERIFY2(huge.error().message.find("float32[65536,65536,64] is ") != std::string::npos, huge.error().message.c_str());
    QVERIFY2(huge.error().message.find("available") != std::string::npos, huge.error().message.c_str());
  }

  // ---- 5. saving ----
  void overwriteKeepsModeAndLeavesNothingBeside() {
    const QString folder = test::tempDir() + "/mode";
    QDir().mkpath(folder);
    const QString path = folder + "/private.pte";
    test::writeAll(path, {1, 2, 3});
    QVERIFY(::chmod(path.toLocal8Bit().constData(), 0600) == 0);
    QVERIFY(writeFileAtomically(path.toStdString(), std::span<const uint8_t>(kNew)).ok());
    QCOMPARE(modeOf(path), mode_t(0600));
    QCOMPARE(test::readAll(path), (std::vector<uint8_t>{'n', 'e', 'w'}));
    QCOMPARE(folderEntries(folder), (std::vector<std::string>{"private.pte"}));
  }

  void newFileGetsTheUmaskMode() {
    const QString folder = test::tempDir() + "/umask";
    QDir().mkpath(folder);
    const mode_t old = ::umask(027);
    auto status = writeFileAtomically((folder + "/new.pte").toStdString(), std::span<const uint8_t>(kNew));
    ::umask(old);
    QVERIFY(status.ok());
    QCOMPARE(modeOf(folder + "/new.pte"), mode_t(0640));
  }

  // Where no file can be made, the error says why in the user's words: a
  // folder that is missing or is a file, or one that takes no new file
  // (/proc: it said "cannot create temporary file in /proc: No such file or
  // directory" of a folder that is there).
  void writeFailuresSayWhy() {
    const QString folder = test::tempDir() + "/why";
    QDir().mkpath(folder);
    auto missing = writeFileAtomically((folder + "/gone/new.pte").toStdString(), std::span<const uint8_t>(kNew));
    QVERIFY(!missing.ok());
    QCOMPARE(QString::fromStdString(missing.error().message),
             folder + "/gone/new.pte: the folder " + folder + "/gone does not exist");
    test::writeAll(folder + "/file", {1});
    auto file = writeFileAtomically((folder + "/file/new.pte").toStdString(), std::span<const uint8_t>(kNew));
    QVERIFY(!file.ok());
    QCOMPARE(QString::fromStdString(file.error().message), folder + "/file/new.pte: " + folder + "/file is not a folder");
    if (QFileInfo("/proc/self").exists()) {
      auto proc = writeFileAtomically("/proc/ptescope-new.pte", std::span<const uint8_t>(kNew));
      QVERIFY(!proc.ok());
      QCOMPARE(QString::fromStdString(proc.error().message),
               QString("/proc/ptescope-new.pte: cannot create a file in /proc: the folder does not take new files"));
    }
    QCOMPARE(folderEntries(folder), (std::vector<std::string>{"file"}));
  }

  void symlinkIsWrittenThrough() {
    const QString folder = test::tempDir() + "/link";
    QDir().mkpath(folder + "/real");
    test::writeAll(folder + "/real/target.pte", {1});
    QVERIFY(::symlink("real/target.pte", (folder + "/link.pte").toLocal8Bit().constData()) == 0);
    QVERIFY(writeFileAtomically((folder + "/link.pte").toStdString(), std::span<const uint8_t>(kNew)).ok());
    QVERIFY(QFileInfo(folder + "/link.pte").isSymLink());
    QCOMPARE(test::readAll(folder + "/real/target.pte"), (std::vector<uint8_t>{'n', 'e', 'w'}));
    QCOMPARE(folderEntries(folder + "/real"), (std::vector<std::string>{"target.pte"}));
  }

  void crashWhileWritingLeavesNoVisibleTemporary() {
    const QString folder = test::tempDir() + "/crash";
    QDir().mkpath(folder);
    const QString path = folder + "/out.pte";
    test::writeAll(path, {1, 2, 3});
    const pid_t child = ::fork();
    if (child == 0) {
      setAtomicWriteHookBeforeReplace(exitBeforeReplace);
      (void)writeFileAtomically(path.toStdString(), std::span<const uint8_t>(kNew));
      ::_exit(0);
    }
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY(WIFEXITED(status) && WEXITSTATUS(status) == 9);  // died inside the write
    QCOMPARE(test::readAll(path), (std::vector<uint8_t>{1, 2, 3}));
    QCOMPARE(folderEntries(folder), (std::vector<std::string>{"out.pte"}));
  }

  void staleNamedTemporariesOfDeadProcessesAreSwept() {
    const QString folder = test::tempDir() + "/sweep";
    QDir().mkpath(folder);
    const QString path = folder + "/out.pte";
    test::writeAll(path, {1, 2, 3});
    const pid_t child = ::fork();
    if (child == 0) {
      setAtomicWriteUsesTmpfile(false);  // a file system without O_TMPFILE
      setAtomicWriteHookBeforeReplace(exitBeforeReplace);
      (void)writeFileAtomically(path.toStdString(), std::span<const uint8_t>(kNew));
      ::_exit(0);
    }
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY(WIFEXITED(status) && WEXITSTATUS(status) == 9);
    QCOMPARE(folderEntries(folder).size(), size_t(2));  // the dead writer's temporary
    // A later write (of any file in the folder) removes it.
    QVERIFY(writeFileAtomically((folder + "/other.pte").toStdString(), std::span<const uint8_t>(kNew)).ok());
    QCOMPARE(folderEntries(folder), (std::vector<std::string>{"other.pte", "out.pte"}));
    QCOMPARE(test::readAll(path), (std::vector<uint8_t>{1, 2, 3}));
  }

  void failedVerificationLeavesTargetAndFolderAlone() {
    struct Veto : FileVerifier {
      Status verify(const std::string& temporaryPath) const override {
        // The temporary is complete and readable when verified.
        auto bytes = mapFile(temporaryPath);
        if (!bytes || bytes->size() != 3) return makeError("temporary file not readable");
        return makeError("vetoed");
      }
    } veto;
    const QString folder = test::tempDir() + "/veto";
    QDir().mkpath(folder);
    const QString path = folder + "/out.pte";
    test::writeAll(path, {1});
    auto status = writeFileAtomically(path.toStdString(), std::span<const uint8_t>(kNew), &veto);
    QVERIFY(!status.ok());
    QVERIFY2(status.error().message.find("vetoed") != std::string::npos, status.error().message.c_str());
    QCOMPARE(test::readAll(path), (std::vector<uint8_t>{1}));
    QCOMPARE(folderEntries(folder), (std::vector<std::string>{"out.pte"}));
  }
};

QTEST_GUILESS_MAIN(HardeningTest)
#include "test_hardening.moc"
