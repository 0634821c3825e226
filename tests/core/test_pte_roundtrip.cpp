// read -> write -> read of every sample keeps the whole program: the JSON dump
// (every field of the flatbuffer) and every constant, delegate and named-data
// byte. The JSON dump itself is checked against flatc, an independent decoder.
#include <QtTest>

#include <QDir>

#include "pte/JsonDump.h"
#include "pte/Writer.h"
#include "support/TestSupport.h"

using namespace ptescope;
using namespace ptescope::program;

namespace {

QByteArray dumpOf(std::span<const uint8_t> bytes) {
  auto text = pte::dumpProgramJson(bytes);
  if (!text) return QByteArray("error: ") + QByteArray::fromStdString(text.error().message);
  return QByteArray::fromStdString(text.value());
}

// Every stored byte range a program references, keyed by where it is.
std::map<std::string, Bytes> storedBytes(const Program& p) {
  std::map<std::string, Bytes> out;
  for (size_t m = 0; m < p.methods().size(); ++m) {
    const auto& method = p.methods()[m];
    const auto& values = items(method.values);
    for (size_t v = 0; v < values.size(); ++v)
      if (const auto* t = values[v].tensor()) {
        auto src = tensorData(p, *t);
        if (src.kind != TensorDataSource::Kind::None)
          out["m" + std::to_string(m) + ".v" + std::to_string(v)] = src.data;
      }
    const auto& delegates = items(method.delegates);
    for (size_t d = 0; d < delegates.size(); ++d)
      out["m" + std::to_string(m) + ".d" + std::to_string(d)] = delegateBlob(p, delegates[d]).value_or(Bytes());
  }
  for (const auto& n : items(p.named_data))
    out["named." + n.key.value_or("")] = items(p.segments).at(n.segment_index).data;
  return out;
}

}  // namespace

class PteRoundTripTest : public QObject {
  Q_OBJECT
 private slots:
  void init() { PTESCOPE_REQUIRE_SAMPLES(); }

  void dumpEqualsFlatc_data() {
    QTest::addColumn<QString>("file");
    for (const QString& f : test::samplePrograms()) QTest::newRow(qPrintable(QFileInfo(f).fileName())) << f;
    QTest::newRow("external-constants.ptd") << test::samplePath("external-constants.ptd");
  }
  void dumpEqualsFlatc() {
    QFETCH(QString, file);
    const QString flatc = QStringLiteral(PTESCOPE_FLATC);
    if (flatc.isEmpty() || flatc.endsWith("NOTFOUND")) QSKIP("flatc is not installed");
    const bool isData = file.endsWith(".ptd");
    const QString outDir = test::tempDir() + "/flatc-" + QFileInfo(file).completeBaseName();
    QDir().mkpath(outDir);
    const QString schema = QStringLiteral(PTESCOPE_SCHEMA_DIR) + (isData ? "/flat_tensor.fbs" : "/program.fbs");
    auto run = test::runProcess(flatc, {"--json", "--strict-json", "--raw-binary", "-o", outDir, schema, "--", file});
    QCOMPARE(run.exitCode, 0);
    QFile expected(outDir + "/" + QFileInfo(file).completeBaseName() + ".json");
    QVERIFY(expected.open(QIODevice::ReadOnly));
    const auto bytes = test::readAll(file);
    auto ours = isData ? pte::dumpDataFileJson(bytes) : pte::dumpProgramJson(bytes);
    QVERIFY(ours.ok());
    QCOMPARE(test::withoutWhitespace(QByteArray::fromStdString(ours.value())), test::withoutWhitespace(expected.readAll()));
  }

  void unchangedRoundTrip_data() {
    QTest::addColumn<QString>("file");
    for (const QString& f : test::samplePrograms()) QTest::newRow(qPrintable(QFileInfo(f).fileName())) << f;
  }
  void unchangedRoundTrip() {
    QFETCH(QString, file);
    auto original = test::loadOrFail(file);
    const QString out = test::tempDir() + "/rt-" + QFileInfo(file).fileName();
    pte::WriteOptions options;
    options.input_path = file.toStdString();
    auto status = pte::writeProgramFile(original.program, out.toStdString(), options);
    QVERIFY2(status.ok(), status.ok() ? "" : status.error().message.c_str());

    const auto before = test::readAll(file);
    const auto after = test::readAll(out);
    QCOMPARE(dumpOf(after), dumpOf(before));

    pte::ReadOptions ro;
    if (!original.program.external_data.empty()) ro.ptd_paths = {original.program.external_data[0].path};
    auto reread = pte::readProgramFile(out.toStdString(), ro);
    QVERIFY(reread.ok());
    auto a = storedBytes(original.program);
    auto b = storedBytes(reread->program);
    QCOMPARE(a.size(), b.size());
    for (const auto& [key, bytes] : a) {
      QVERIFY2(b.count(key) == 1, key.c_str());
      QVERIFY2(b[key] == bytes, key.c_str());
    }
    // Segments are laid out at the default 128-byte alignment.
    if (reread->file.header) {
      QCOMPARE(reread->file.header->segment_base_offset % 128, uint64_t(0));
      QCOMPARE(reread->file.header->length, uint32_t(32));
      QCOMPARE(reread->file.file_size,
               reread->file.header->segment_base_offset + reread->file.header->segment_data_size);
    }
  }

  void identicalDelegateBlobsAreStoredOnce() {
    auto l = test::loadOrFail(test::samplePath("openvino-tiny.pte"));
    Program p = l.program;
    // Give the program a second segment with the same bytes as the delegate's
    // and point a copy of the delegate at it.
    auto& segs = ensure(p.segments);
    auto& method = p.methods()[0];
    const uint32_t original = (*method.delegates)[0].processed->index;
    segs.push_back(Segment{segs[original].data, 0});
    BackendDelegate twin = (*method.delegates)[0];
    twin.processed->index = static_cast<uint32_t>(segs.size() - 1);
    method.delegates->push_back(twin);
    auto bytes = pte::serializeProgram(p);
    QVERIFY(bytes.ok());
    auto back = pte::readProgramBytes(Bytes::fromVector(bytes.value()), "dedup");
    QVERIFY(back.ok());
    QCOMPARE(items(back->program.segments).size(), segs.size() - 1);
    const auto& dels = *back->program.methods()[0].delegates;
    QCOMPARE(dels[0].processed->index, dels[1].processed->index);
    QVERIFY(*delegateBlob(back->program, dels[1]) == segs[original].data);
  }

  void writerRefusesToOverwriteItsInput() {
    const QString copy = test::tempDir() + "/own-input.pte";
    QFile::remove(copy);
    QVERIFY(QFile::copy(test::samplePath("add-constant-segment.pte"), copy));
    QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner);
    auto loaded = test::loadOrFail(copy);
    const auto before = test::readAll(copy);
    pte::WriteOptions options;
    options.input_path = copy.toStdString();
    auto refused = pte::writeProgramFile(loaded.program, copy.toStdString(), options);
    QVERIFY(!refused.ok());
    QVERIFY(QString::fromStdString(refused.error().message).contains("refusing to overwrite"));
    QCOMPARE(test::readAll(copy), before);
    options.allow_overwrite_input = true;
    auto allowed = pte::writeProgramFile(loaded.program, copy.toStdString(), options);
    QVERIFY(allowed.ok());
    QVERIFY(pte::readProgramFile(copy.toStdString()).ok());
  }

  void failedWriteLeavesNothingBehind() {
    auto loaded = test::loadOrFail(test::samplePath("add.pte"));
    const QString dir = test::tempDir() + "/failed-write";
    QDir().mkpath(dir);
    const QString target = dir + "/out.pte";
    test::writeAll(target, {'o', 'l', 'd'});
    Program broken = loaded.program;
    std::get<KernelCall>((*broken.methods()[0].chains)[0].instructions->at(0).data).op_index = 42;
    auto status = pte::writeProgramFile(broken, target.toStdString());
    QVERIFY(!status.ok());
    QVERIFY(QString::fromStdString(status.error().message).contains("op_index 42"));
    QCOMPARE(test::readAll(target), (std::vector<uint8_t>{'o', 'l', 'd'}));
    QCOMPARE(QDir(dir).entryList(QDir::Files | QDir::Hidden).size(), 1);

    auto noFolder = pte::writeProgramFile(loaded.program, (dir + "/missing/out.pte").toStdString());
    QVERIFY(!noFolder.ok());
    QVERIFY(QString::fromStdString(noFolder.error().message).contains("missing/out.pte"));
  }
};

QTEST_GUILESS_MAIN(PteRoundTripTest)
#include "test_pte_roundtrip.moc"
