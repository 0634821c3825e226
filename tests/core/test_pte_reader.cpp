// Reading every real sample: the facts checked here come from
// ../shared/spec/pte-format.md §15 and ../shared/pte-samples/MANIFEST.tsv,
// not from ptescope's own output.
#include <QtTest>

#include <set>

#include "analysis/Summary.h"
#include "support/TestSupport.h"

using namespace ptescope;
using namespace ptescope::program;
using ptescope::test::loadOrFail;
using ptescope::test::samplePath;

namespace {

std::map<std::string, size_t> kindsOf(const Method& m) { return analysis::summarizeMethod(m).values_by_kind; }

std::vector<std::pair<uint64_t, uint64_t>> segmentList(const Program& p) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const auto& s : items(p.segments)) out.emplace_back(s.offset, s.data.size());
  return out;
}

}  // namespace

class PteReaderTest : public QObject {
  Q_OBJECT
 private slots:
  void init() { PTESCOPE_REQUIRE_SAMPLES(); }

  void everySampleLoads() {
    const QStringList files = test::samplePrograms();
    QVERIFY(files.size() >= 15);
    for (const QString& f : files) {
      auto loaded = pte::readProgramFile(f.toStdString());
      QVERIFY2(loaded.ok(), qPrintable(f + ": " + (loaded.ok() ? QString() : QString::fromStdString(loaded.error().message))));
      QVERIFY(!loaded->program.methods().empty());
    }
  }

  void smallestProgramWithoutHeader() {
    auto l = loadOrFail(samplePath("add.pte"));
    QCOMPARE(l.file.file_size, uint64_t(728));
    QVERIFY(!l.file.header.has_value());
    const auto& p = l.program;
    QCOMPARE(p.methods().size(), size_t(1));
    const Method& m = p.methods()[0];
    QCOMPARE(*m.name, std::string("forward"));
    QCOMPARE(items(m.inputs), (std::vector<int32_t>{0, 1}));
    QCOMPARE(items(m.outputs), (std::vector<int32_t>{2}));
    QCOMPARE(items(m.values).size(), size_t(4));
    QCOMPARE(kindsOf(m)["Tensor"], size_t(3));
    QCOMPARE(kindsOf(m)["Int"], size_t(1));
    QCOMPARE(items(m.operators).size(), size_t(1));
    QCOMPARE(items(m.operators)[0].qualifiedName(), std::string("aten::add.out"));
    QCOMPARE(items(m.non_const_buffer_sizes), (std::vector<int64_t>{0, 48}));
    // The empty constant placeholder is listed although there is no header.
    QCOMPARE(segmentList(p), (std::vector<std::pair<uint64_t, uint64_t>>{{0, 0}}));
    QVERIFY(p.constant_segment.has_value());
    QCOMPARE(items(p.constant_segment->offsets), (std::vector<uint64_t>{0}));
    for (const auto& v : items(m.values))
      if (const auto* t = v.tensor()) {
        QCOMPARE(t->scalar_type, ScalarType::Float);
        QVERIFY(t->isPlanned());
        QCOMPARE(t->allocation_info->memory_id, uint32_t(1));
      }
  }

  void legacyConstantBuffer() {
    auto l = loadOrFail(samplePath("linear-legacy-constant-buffer.pte"));
    const auto& p = l.program;
    QVERIFY(!l.file.header.has_value());
    const Method& m = p.methods()[0];
    QCOMPARE(items(m.inputs), (std::vector<int32_t>{2}));
    QCOMPARE(items(m.outputs), (std::vector<int32_t>{4}));
    QCOMPARE(kindsOf(m)["Tensor"], size_t(5));
    QCOMPARE(items(m.chains)[0].instructions->size(), size_t(2));
    QCOMPARE(items(p.constant_buffer).size(), size_t(3));
    QCOMPARE((*p.constant_buffer)[0].storage.value_or(Bytes()).size(), size_t(0));
    QCOMPARE((*p.constant_buffer)[1].storage->size(), size_t(16));
    QCOMPARE((*p.constant_buffer)[2].storage->size(), size_t(16));
    QVERIFY(p.constant_segment.has_value());
    QVERIFY(items(p.constant_segment->offsets).empty());
    QVERIFY(!p.segments.has_value() || p.segments->empty());
    QCOMPARE(items(m.non_const_buffer_sizes), (std::vector<int64_t>{0, 32}));
    // Both constants resolve to their bytes in the legacy buffer.
    int constants = 0;
    for (const auto& v : items(m.values))
      if (const auto* t = v.tensor(); t && t->isConstant()) {
        auto src = tensorData(p, *t);
        QCOMPARE(src.kind, TensorDataSource::Kind::LegacyConstantBuffer);
        QCOMPARE(int64_t(src.data.size()), t->nbytes());
        ++constants;
      }
    QCOMPARE(constants, 2);
  }

  void constantSegmentWithHeader() {
    auto l = loadOrFail(samplePath("add-constant-segment.pte"));
    QVERIFY(l.file.header.has_value());
    QCOMPARE(l.file.header->length, uint32_t(32));
    QCOMPARE(l.file.header->program_size, uint64_t(1040));
    QCOMPARE(l.file.header->segment_base_offset, uint64_t(1152));
    QCOMPARE(l.file.header->segment_data_size, uint64_t(4));
    const auto& p = l.program;
    QCOMPARE(segmentList(p), (std::vector<std::pair<uint64_t, uint64_t>>{{0, 4}}));
    QCOMPARE(items(p.constant_segment->offsets), (std::vector<uint64_t>{0, 0}));
    const Method& m = p.methods()[0];
    QCOMPARE(items(m.inputs), (std::vector<int32_t>{1}));
    QCOMPARE(items(m.outputs), (std::vector<int32_t>{2}));
    // The constant's 4 bytes are the last 4 bytes of the file, referenced in place.
    const auto raw = test::readAll(samplePath("add-constant-segment.pte"));
    int found = 0;
    for (const auto& v : items(m.values))
      if (const auto* t = v.tensor(); t && t->isConstant()) {
        auto src = tensorData(p, *t);
        QCOMPARE(src.kind, TensorDataSource::Kind::ConstantSegment);
        QCOMPARE(src.data.size(), size_t(4));
        QVERIFY(std::equal(src.data.span().begin(), src.data.span().end(), raw.end() - 4));
        ++found;
      }
    QCOMPARE(found, 1);
  }

  void keywordSpotting() {
    auto l = loadOrFail(samplePath("keyword-spotting-cortex-m.pte"));
    QCOMPARE(l.file.header->program_size, uint64_t(14904));
    QCOMPARE(l.file.header->segment_base_offset, uint64_t(14976));
    QCOMPARE(l.file.header->segment_data_size, uint64_t(39216));
    const Method& m = l.program.methods()[0];
    QCOMPARE(items(m.values).size(), size_t(289));
    auto kinds = kindsOf(m);
    QCOMPARE(kinds["Tensor"], size_t(111));
    QCOMPARE(kinds["Int"], size_t(136));
    QCOMPARE(kinds["IntList"], size_t(36));
    QCOMPARE(kinds["Bool"], size_t(3));
    QCOMPARE(kinds["Double"], size_t(2));
    QCOMPARE(kinds["Null"], size_t(1));
    auto s = analysis::summarizeMethod(m);
    QCOMPARE(s.kernel_calls, size_t(16));
    QCOMPARE(s.constant_tensors, size_t(83));
    QCOMPARE(s.planned_tensors, size_t(28));
    QCOMPARE(items(m.inputs), (std::vector<int32_t>{83}));
    QCOMPARE(items(m.outputs), (std::vector<int32_t>{283}));
    QCOMPARE(items(l.program.constant_segment->offsets).size(), size_t(64));
    // Every constant resolves inside the constant segment.
    for (const auto& v : items(m.values))
      if (const auto* t = v.tensor(); t && t->isConstant())
        QCOMPARE(tensorData(l.program, *t).kind, TensorDataSource::Kind::ConstantSegment);
  }

  void qnnMultiMethodSharedSegment() {
    auto l = loadOrFail(samplePath("stories260k-qnn-multimethod.pte"));
    const auto& p = l.program;
    QCOMPARE(p.methods().size(), size_t(29));
    QCOMPARE(l.file.header->program_size, uint64_t(18688));
    QCOMPARE(l.file.header->segment_base_offset, uint64_t(18688));
    QCOMPARE(l.file.header->segment_data_size, uint64_t(1331456));
    QCOMPARE(segmentList(p), (std::vector<std::pair<uint64_t, uint64_t>>{{0, 0}, {0, 1331456}}));
    for (const char* name : {"kv_forward", "prefill_forward"}) {
      const Method* m = p.findMethod(name);
      QVERIFY(m != nullptr);
      QCOMPARE(items(m->inputs).size(), size_t(13));
      QCOMPARE(items(m->outputs).size(), size_t(11));
      QCOMPARE(kindsOf(*m)["Tensor"], size_t(24));
      QCOMPARE(items(m->delegates).size(), size_t(1));
      const auto& d = (*m->delegates)[0];
      QCOMPARE(*d.id, std::string("QnnBackend"));
      QCOMPARE(d.processed->location, DelegateDataLocation::Segment);
      QCOMPARE(d.processed->index, uint32_t(1));
      const CompileSpec* spec = d.findCompileSpec("qnn_compile_spec");
      QVERIFY(spec != nullptr);
      QCOMPARE(items(spec->value).size(), size_t(200));
      QCOMPARE(delegateBlob(p, d)->size(), size_t(1331456));
      QCOMPARE(items(m->non_const_buffer_sizes), (std::vector<int64_t>{0, 0}));
    }
    QVERIFY(p.findMethod("get_max_seq_len") != nullptr);
  }

  void inlineDelegateWithCompileSpecs() {
    auto l = loadOrFail(samplePath("ethos-u-inline-delegate.pte"));
    const auto& p = l.program;
    const auto& delegates = items(p.methods()[0].delegates);
    QCOMPARE(delegates.size(), size_t(1));
    QCOMPARE(*delegates[0].id, std::string("EthosUBackend"));
    QCOMPARE(delegates[0].processed->location, DelegateDataLocation::Inline);
    for (const char* key : {"tosa_spec", "compile_flags", "output_format", "target"})
      QVERIFY2(delegates[0].findCompileSpec(key) != nullptr, key);
    auto blob = delegateBlob(p, delegates[0]);
    QVERIFY(blob.has_value() && blob->size() > 0);
    // INLINE data is force-aligned to 16 inside the flatbuffer.
    const auto raw = test::readAll(samplePath("ethos-u-inline-delegate.pte"));
    QVERIFY(blob->size() < raw.size());
  }

  void otherBackends() {
    auto ov = loadOrFail(samplePath("openvino-tiny.pte"));
    const auto& d = items(ov.program.methods()[0].delegates);
    QCOMPARE(d.size(), size_t(1));
    QCOMPARE(*d[0].id, std::string("OpenvinoBackend"));
    QCOMPARE(d[0].processed->location, DelegateDataLocation::Segment);
    QCOMPARE(d[0].findCompileSpec("device")->valueText(), std::string("CPU"));

    auto q = loadOrFail(samplePath("quantized-xnnpack.pte"));
    QCOMPARE(items(q.program.named_data).size(), size_t(2));
    for (const auto& n : *q.program.named_data) {
      QVERIFY(n.segment_index < items(q.program.segments).size());
      QVERIFY((*q.program.segments)[n.segment_index].data.size() > 0);
    }
  }

  void dynamicShapesAndDtypes() {
    auto dyn = loadOrFail(samplePath("dynamic-shapes.pte"));
    int bound = 0;
    for (const auto& m : dyn.program.methods())
      for (const auto& v : items(m.values))
        if (const auto* t = v.tensor(); t && t->shape_dynamism == ShapeDynamism::DynamicBound) ++bound;
    QVERIFY(bound > 0);

    auto dt = loadOrFail(samplePath("dtypes.pte"));
    std::set<ScalarType> types;
    for (const auto& v : items(dt.program.methods()[0].values))
      if (const auto* t = v.tensor()) types.insert(t->scalar_type);
    QVERIFY(types.count(ScalarType::Float) == 1);
    QVERIFY(types.count(ScalarType::Long) == 1);
  }

  void methodsAndCustomOps() {
    auto cm = loadOrFail(samplePath("const-methods.pte"));
    for (const char* name : {"forward", "get_scalar", "get_double", "get_bool", "get_tensor"})
      QVERIFY2(cm.program.findMethod(name) != nullptr, name);
    QCOMPARE(cm.program.methods().size(), size_t(5));

    auto mm = loadOrFail(samplePath("multi-method.pte"));
    QCOMPARE(mm.program.methods().size(), size_t(2));
    QVERIFY(mm.program.findMethod("double") && mm.program.findMethod("forward"));

    auto lstm = loadOrFail(samplePath("lstm-custom-op.pte"));
    auto s = analysis::summarizeMethod(lstm.program.methods()[0]);
    QVERIFY(std::find(s.operators.begin(), s.operators.end(), "etnp::lstm.out") != s.operators.end());
    QVERIFY(s.values_by_kind["TensorList"] >= 1);
  }

  void unplannedGraphIo() {
    auto l = loadOrFail(samplePath("add-unplanned-io.pte"));
    const Method& m = l.program.methods()[0];
    for (int32_t i : items(m.inputs)) QVERIFY(!(*m.values)[size_t(i)].tensor()->isPlanned());
    // Despite the sample's name only the inputs are unplanned (flatc shows
    // allocation_info on the output): alloc_graph_input=False alone.
    for (int32_t o : items(m.outputs)) QVERIFY((*m.values)[size_t(o)].tensor()->isPlanned());
  }

  void externalConstantsFromPtdBeside() {
    auto l = loadOrFail(samplePath("external-constants.pte"));
    QCOMPARE(l.program.external_data.size(), size_t(1));
    QVERIFY(l.warnings.empty());
    QSet<QString> keys;
    int external = 0;
    for (const auto& v : items(l.program.methods()[0].values))
      if (const auto* t = v.tensor(); t && t->isExternal()) {
        ++external;
        keys.insert(QString::fromStdString(*t->extra_tensor_info->fully_qualified_name));
        auto src = tensorData(l.program, *t);
        QCOMPARE(src.kind, TensorDataSource::Kind::External);
        QCOMPARE(int64_t(src.data.size()), t->nbytes());
      }
    QCOMPARE(external, 2);
    QCOMPARE(keys, (QSet<QString>{"a", "b"}));
  }

  void missingPtdIsAWarning() {
    // Copy the program alone into an empty folder: no .ptd beside it.
    const QString dir = test::tempDir() + "/noptd";
    QDir().mkpath(dir);
    const QString copy = dir + "/external-constants.pte";
    QFile::remove(copy);
    QVERIFY(QFile::copy(samplePath("external-constants.pte"), copy));
    auto loaded = pte::readProgramFile(copy.toStdString());
    QVERIFY(loaded.ok());
    // Both external tensors lack data: one warning with the count (issue 34,
    // item 25: repeated per-tensor warnings are folded into one line).
    QCOMPARE(loaded->warnings.size(), size_t(1));
    QVERIFY(QString::fromStdString(loaded->warnings[0]).contains("2 external tensors"));
    QVERIFY(QString::fromStdString(loaded->warnings[0]).contains("--ptd"));

    // Given explicitly, it resolves.
    pte::ReadOptions options;
    options.ptd_paths = {samplePath("external-constants.ptd").toStdString()};
    auto withData = pte::readProgramFile(copy.toStdString(), options);
    QVERIFY(withData.ok());
    QVERIFY(withData->warnings.empty());
  }

  void dataFileDirectly() {
    auto data = pte::readDataFile(samplePath("external-constants.ptd").toStdString());
    QVERIFY(data.ok());
    QCOMPARE(data->entries.size(), size_t(2));
    for (const auto& e : data->entries) {
      QVERIFY(e.layout.has_value());
      QCOMPARE(e.layout->scalar_type, ScalarType::Float);
    }
  }
};

QTEST_GUILESS_MAIN(PteReaderTest)
#include "test_pte_reader.moc"
