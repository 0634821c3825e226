// Bad input gets one clear error, never a crash or hang: truncations, wrong
// identifiers, broken extended headers, segments past the end, out-of-range
// indices, random corruption, and the corrupt real sample.
#include <QtTest>

#include <random>

#include "pte/JsonDump.h"
#include "pte/Reader.h"
#include "pte/Writer.h"
#include "support/TestSupport.h"

using namespace ptescope;
using namespace ptescope::program;

namespace {

using ptescope::test::floatTensor;

// out = x + w (w a 16-byte constant in segment 0), built by hand so these
// tests need no sample files.
Program tinyProgram() {
  Program p;
  Method m;
  m.name = "forward";
  auto& values = ensure(m.values);
  Tensor w = floatTensor({2, 2});
  w.data_buffer_idx = 1;
  Tensor x = floatTensor({2, 2});
  x.allocation_info = AllocationInfo{1, 0, 0};
  Tensor out = floatTensor({2, 2});
  out.allocation_info = AllocationInfo{1, 16, 0};
  values.push_back(Value{w});                 // 0
  values.push_back(Value{x});                 // 1
  values.push_back(Value{IntValue{1}});       // 2 alpha
  values.push_back(Value{out});               // 3
  values.push_back(Value{TensorListValue{std::vector<int32_t>{0, 1}}});  // 4
  values.push_back(Value{IntListValue{std::vector<int64_t>{2}}});        // 5
  m.inputs = std::vector<int32_t>{1};
  m.outputs = std::vector<int32_t>{3};
  Chain chain;
  chain.inputs = std::vector<int32_t>{1};
  chain.outputs = std::vector<int32_t>{3};
  chain.instructions = std::vector<Instruction>{Instruction{KernelCall{0, std::vector<int32_t>{1, 0, 2, 3, 3}}}};
  m.chains = std::vector<Chain>{chain};
  m.operators = std::vector<Operator>{Operator{"aten::add", "out"}};
  m.delegates = std::vector<BackendDelegate>{};
  m.non_const_buffer_sizes = std::vector<int64_t>{0, 32};
  p.execution_plan = std::vector<Method>{m};
  std::vector<uint8_t> constant(16, 0x3f);
  p.segments = std::vector<Segment>{Segment{Bytes::fromVector(constant), 0}};
  p.constant_segment = SubsegmentOffsets{0, std::vector<uint64_t>{0, 0}};
  return p;
}

std::vector<uint8_t> serialize(const Program& p) {
  auto bytes = pte::serializeProgram(p);
  return bytes.ok() ? bytes.value() : std::vector<uint8_t>{};
}

Result<pte::LoadedProgram> readBytes(const std::vector<uint8_t>& bytes) {
  return pte::readProgramBytes(Bytes::copyOf(bytes), "input.pte");
}

QString errorOf(const Result<pte::LoadedProgram>& r) {
  return r.ok() ? QString() : QString::fromStdString(r.error().message);
}

Method& method0(Program& p) { return p.methods()[0]; }

}  // namespace

class PteBadInputTest : public QObject {
  Q_OBJECT
 private slots:
  void tinyProgramIsValid() {
    auto bytes = serialize(tinyProgram());
    QVERIFY(bytes.size() > 64);
    auto r = readBytes(bytes);
    QVERIFY2(r.ok(), qPrintable(errorOf(r)));
    QVERIFY(r->file.header.has_value());  // 16 bytes of segment data
  }

  void everyTruncationIsRefused() {
    const auto bytes = serialize(tinyProgram());
    for (size_t n = 0; n < bytes.size(); ++n) {
      std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
      auto r = readBytes(cut);
      QVERIFY2(!r.ok(), qPrintable(QString("prefix of %1 bytes was accepted").arg(n)));
      QVERIFY(errorOf(r).startsWith("input.pte: "));
    }
  }

  void everyTruncationOfSamplesIsRefused() {
    PTESCOPE_REQUIRE_SAMPLES();
    for (const char* name : {"add.pte", "add-constant-segment.pte", "linear-legacy-constant-buffer.pte",
                             "ethos-u-inline-delegate.pte", "keyword-spotting-cortex-m.pte"}) {
      const auto bytes = test::readAll(test::samplePath(name));
      // Every length for small files; a stride (plus every length near the
      // header and the end) for the larger one.
      const size_t stride = bytes.size() > 8192 ? 37 : 1;
      for (size_t n = 0; n < bytes.size(); n += (n < 128 || n + 256 > bytes.size()) ? 1 : stride) {
        std::vector<uint8_t> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
        auto r = readBytes(cut);
        QVERIFY2(!r.ok(), qPrintable(QString("%1: prefix of %2 bytes was accepted").arg(name).arg(n)));
      }
    }
  }

  void wrongIdentifier() {
    auto bytes = serialize(tinyProgram());
    bytes[4] = 'E'; bytes[5] = 'T'; bytes[6] = '1'; bytes[7] = '3';
    QVERIFY(errorOf(readBytes(bytes)).contains("incompatible program version 'ET13'"));
    bytes[4] = 'P'; bytes[5] = 'K';
    QVERIFY(errorOf(readBytes(bytes)).contains("not an ExecuTorch program"));
    // A data file or a trace picked as a program says what it is and what
    // to open instead (FT01 at byte 4 is a .ptd; ED00 at byte 4 or 8 an ETDump).
    bytes[4] = 'F'; bytes[5] = 'T'; bytes[6] = '0'; bytes[7] = '1';
    QVERIFY2(errorOf(readBytes(bytes)).contains("an ExecuTorch data file (.ptd, 'FT01'), not a program: open the .pte"),
             qPrintable(errorOf(readBytes(bytes))));
    for (size_t at : {size_t(4), size_t(8)}) {
      auto trace = serialize(tinyProgram());
      trace[4] = 'x';
      trace[at] = 'E'; trace[at + 1] = 'D'; trace[at + 2] = '0'; trace[at + 3] = '0';
      QVERIFY2(errorOf(readBytes(trace)).contains("an ETDump (the runtime's trace, 'ED00'), not a program"),
               qPrintable(errorOf(readBytes(trace))));
    }
    QVERIFY(errorOf(readBytes(std::vector<uint8_t>(10, 0))).contains("too small"));
  }

  void badExtendedHeader() {
    const auto good = serialize(tinyProgram());
    auto setLe = [](std::vector<uint8_t>& b, size_t at, uint64_t v, int n) {
      for (int i = 0; i < n; ++i) b[at + size_t(i)] = static_cast<uint8_t>(v >> (8 * i));
    };
    auto shortLength = good;
    setLe(shortLength, 12, 20, 4);
    QVERIFY(errorOf(readBytes(shortLength)).contains("length 20"));
    auto hugeProgram = good;
    setLe(hugeProgram, 16, good.size() + 1, 8);
    QVERIFY(errorOf(readBytes(hugeProgram)).contains("program_size"));
    auto baseOutside = good;
    setLe(baseOutside, 24, good.size() + 128, 8);
    QVERIFY(errorOf(readBytes(baseOutside)).contains("segment_base_offset"));
    auto dataOutside = good;
    setLe(dataOutside, 32, 4096, 8);
    QVERIFY(errorOf(readBytes(dataOutside)).contains("truncated"));
    // Legacy 24-byte header: segment data size unknown, the segment itself
    // is checked against the end of the file.
    auto legacyCut = good;
    setLe(legacyCut, 12, 24, 4);
    setLe(legacyCut, 32, 0, 8);
    legacyCut.resize(legacyCut.size() - 2);
    QVERIFY(errorOf(readBytes(legacyCut)).contains("segment 0"));
    QVERIFY(errorOf(readBytes(legacyCut)).contains("past the end"));
  }

  void segmentWithoutHeaderIsRefused() {
    auto bytes = serialize(tinyProgram());
    // Turn the magic into something else: no header, yet segment 0 has data.
    bytes[8] = 'x';
    auto r = readBytes(bytes);
    QVERIFY(!r.ok());
  }

  void outOfRangeIndices() {
    struct Case {
      const char* name;
      std::function<void(Program&)> edit;
      const char* expected;
    };
    const std::vector<Case> cases = {
        {"op_index", [](Program& p) { std::get<KernelCall>((*method0(p).chains)[0].instructions->at(0).data).op_index = 7; }, "op_index 7 is out of range"},
        {"argument", [](Program& p) { std::get<KernelCall>((*method0(p).chains)[0].instructions->at(0).data).args->at(1) = 99; }, "refers to value 99"},
        {"delegate_index", [](Program& p) { (*method0(p).chains)[0].instructions->push_back(Instruction{DelegateCall{3, std::vector<int32_t>{1}}}); }, "delegate_index 3 is out of range"},
        {"input", [](Program& p) { method0(p).inputs = std::vector<int32_t>{-1}; }, "input 0 refers to value -1"},
        {"output", [](Program& p) { method0(p).outputs = std::vector<int32_t>{6}; }, "output 0 refers to value 6"},
        {"tensorlist", [](Program& p) { std::get<TensorListValue>((*method0(p).values)[4].data).items = std::vector<int32_t>{0, 2}; }, "not a Tensor"},
        {"intlist", [](Program& p) { std::get<IntListValue>((*method0(p).values)[5].data).items = std::vector<int64_t>{300}; }, "refers to value 300"},
        {"memory_id", [](Program& p) { (*method0(p).values)[1].tensor()->allocation_info->memory_id = 4; }, "memory_id 4 is out of range"},
        {"planned past end", [](Program& p) { (*method0(p).values)[3].tensor()->allocation_info->memory_offset_low = 24; }, "run past planned buffer 1"},
        {"constant index", [](Program& p) { (*method0(p).values)[0].tensor()->data_buffer_idx = 5; }, "constant index 5 out of range"},
        {"move", [](Program& p) { (*method0(p).chains)[0].instructions->push_back(Instruction{MoveCall{1, 40}}); }, "move_to refers to value 40"},
        {"jump", [](Program& p) { (*method0(p).chains)[0].instructions->push_back(Instruction{JumpFalseCall{2, 9}}); }, "destination_instruction 9"},
        {"free", [](Program& p) { (*method0(p).chains)[0].instructions->push_back(Instruction{FreeCall{-3}}); }, "value_index refers to value -3"},
        {"inline delegate", [](Program& p) { method0(p).delegates->push_back(BackendDelegate{"X", DelegateDataReference{DelegateDataLocation::Inline, 0}, std::nullopt}); }, "inline data index 0 is out of range"},
        {"segment delegate", [](Program& p) { method0(p).delegates->push_back(BackendDelegate{"X", DelegateDataReference{DelegateDataLocation::Segment, 8}, std::nullopt}); }, "segment index 8 is out of range"},
        {"named data", [](Program& p) { p.named_data = std::vector<NamedData>{NamedData{"k", 3}}; }, "named_data[0] ('k') segment_index 3"},
        {"scalar type", [](Program& p) { (*method0(p).values)[1].tensor()->scalar_type = static_cast<ScalarType>(77); }, "invalid scalar type 77"},
        {"no chains", [](Program& p) { method0(p).chains = std::vector<Chain>{}; }, "has no chains"},
    };
    for (const auto& c : cases) {
      Program p = tinyProgram();
      c.edit(p);
      const QString error = errorOf(readBytes(serialize(p)));
      QVERIFY2(error.contains(c.expected), qPrintable(QString(c.name) + ": got '" + error + "'"));
      QVERIFY2(error.contains("method 0 ('forward')") || QString(c.name) == "named data",
               qPrintable(QString(c.name) + ": error does not name the method: " + error));
    }
  }

  void randomCorruptionNeverCrashes() {
    std::vector<std::vector<uint8_t>> inputs{serialize(tinyProgram())};
    if (!test::samplesDir().isEmpty())
      for (const char* name : {"add.pte", "keyword-spotting-cortex-m.pte", "lstm-custom-op.pte", "quantized-xnnpack.pte",
                               "ethos-u-inline-delegate.pte", "const-methods.pte"})
        inputs.push_back(test::readAll(test::samplePath(name)));
    std::mt19937 rng(1234);
    int accepted = 0, refused = 0;
    for (const auto& input : inputs) {
      for (int iteration = 0; iteration < 1500; ++iteration) {
        auto bytes = input;
        const int flips = 1 + int(rng() % 8);
        for (int f = 0; f < flips; ++f) bytes[rng() % bytes.size()] = static_cast<uint8_t>(rng());
        auto r = readBytes(bytes);
        if (r.ok()) {
          ++accepted;
          // Whatever is accepted must also print and write back.
          auto dumped = pte::dumpProgramJson(bytes);
          QVERIFY2(dumped.ok(), dumped.ok() ? "" : dumped.error().message.c_str());
          QVERIFY(pte::serializeProgram(r->program).ok());
        } else {
          ++refused;
          QVERIFY(!errorOf(r).isEmpty());
        }
      }
    }
    QVERIFY(refused > 0);
    QVERIFY(accepted + refused == int(inputs.size()) * 1500);
  }

  void corruptSampleAndMissingFiles() {
    if (!test::samplesDir().isEmpty()) {
      auto r = pte::readProgramFile(test::samplePath("bad-corrupt.pte").toStdString());
      QVERIFY(!r.ok());
      QVERIFY(QString::fromStdString(r.error().message).contains("bad-corrupt.pte"));
    }
    auto missing = pte::readProgramFile("/nonexistent/x.pte");
    QVERIFY(!missing.ok());
    QVERIFY(QString::fromStdString(missing.error().message).contains("cannot open"));
    auto folder = pte::readProgramFile(test::tempDir().toStdString());
    QVERIFY(!folder.ok());
    QVERIFY(QString::fromStdString(folder.error().message).contains("not a regular file"));
    const QString empty = test::tempDir() + "/empty.pte";
    test::writeAll(empty, {});
    auto emptyResult = pte::readProgramFile(empty.toStdString());
    QVERIFY(!emptyResult.ok());
    QVERIFY(QString::fromStdString(emptyResult.error().message).contains("0 bytes"));
  }

  void badDataFiles() {
    QVERIFY(!pte::readDataBytes(Bytes::copyOf(std::vector<uint8_t>(100, 0)), "x.ptd").ok());
    if (test::samplesDir().isEmpty()) return;
    const auto good = test::readAll(test::samplePath("external-constants.ptd"));
    for (size_t n = 0; n < good.size(); ++n) {
      std::vector<uint8_t> cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(n));
      QVERIFY2(!pte::readDataBytes(Bytes::copyOf(cut), "x.ptd").ok(), qPrintable(QString::number(n)));
    }
    // A broken .ptd next to the program is a warning, not a failure.
    const QString dir = test::tempDir() + "/badptd";
    QDir().mkpath(dir);
    QFile::remove(dir + "/external-constants.pte");
    QVERIFY(QFile::copy(test::samplePath("external-constants.pte"), dir + "/external-constants.pte"));
    test::writeAll(dir + "/external-constants.ptd", std::vector<uint8_t>(good.begin(), good.begin() + 100));
    auto loaded = pte::readProgramFile((dir + "/external-constants.pte").toStdString());
    QVERIFY(loaded.ok());
    QVERIFY(!loaded->warnings.empty());
    QVERIFY(QString::fromStdString(loaded->warnings[0]).contains("external data not loaded"));
    // A data file the caller names (--ptd) that does not load is an error
    // naming it: a program given as the data file was read with a warning.
    pte::ReadOptions named;
    named.ptd_paths = {(dir + "/external-constants.pte").toStdString()};
    auto refused = pte::readProgramFile((dir + "/external-constants.pte").toStdString(), named);
    QVERIFY(!refused.ok());
    QVERIFY2(QString::fromStdString(refused.error().message).contains("external-constants.pte: not an ExecuTorch data file"),
             refused.error().message.c_str());
  }
};

QTEST_GUILESS_MAIN(PteBadInputTest)
#include "test_pte_bad_input.moc"
