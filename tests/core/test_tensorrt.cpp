// The TensorRT delegate blob (core/program/TensorRTBlob): the decoder against
// the vectors of upstream's own tests (pytorch/TensorRT at d7f20628,
// tests/cpp/executorch/test_executorch_blob_header.cpp, ported case by case),
// truncated and corrupt blobs (one error, never a crash), and the writer
// against the bytes serialization.py writes for the vectors of
// tests/py/dynamo/executorch/test_serialization.py, derived here by hand from
// its struct format "<4sIIIQ8s" and json.dumps(separators=(",", ":")).
#include <QtTest>

#include <cstring>

#include "analysis/Diagnostics.h"
#include "program/DelegatePayload.h"
#include "program/TensorRTBlob.h"
#include "synth/JsonSpec.h"

using namespace ptescope;
using namespace ptescope::program;

namespace {

// struct.pack("<I") / ("<Q"): little-endian.
void le32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(uint8_t((v >> (8 * i)) & 0xff));
}
void le64(std::vector<uint8_t>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(uint8_t((v >> (8 * i)) & 0xff));
}

// The upstream C++ test's make_blob: header at 0, metadata at 32, engine at
// the next multiple of 16, engine bytes zero, reserved bytes zero.
std::vector<uint8_t> makeBlob(const std::string& metadata, size_t engineSize = 4, const char* magic = "TR01") {
  const uint32_t metadataOffset = 32;
  const uint32_t engineOffset = uint32_t((metadataOffset + metadata.size() + 15) / 16 * 16);
  std::vector<uint8_t> blob(magic, magic + 4);
  le32(blob, metadataOffset);
  le32(blob, uint32_t(metadata.size()));
  le32(blob, engineOffset);
  le64(blob, engineSize);
  blob.resize(32, 0);
  blob.insert(blob.end(), metadata.begin(), metadata.end());
  blob.resize(engineOffset + engineSize, 0);
  return blob;
}

// serialize_engine as the Python writes it: header, JSON, zero padding to
// 16, engine; reserved = b"\x01" + b"\x00" * 7.
std::vector<uint8_t> pythonBlob(const char* magic, const std::string& json, const std::string& engine) {
  const uint32_t engineOffset = uint32_t((32 + json.size() + 15) & ~size_t(15));
  std::vector<uint8_t> out(magic, magic + 4);
  le32(out, 32);
  le32(out, uint32_t(json.size()));
  le32(out, engineOffset);
  le64(out, engine.size());
  out.push_back(0x01);
  for (int i = 0; i < 7; ++i) out.push_back(0x00);
  out.insert(out.end(), json.begin(), json.end());
  while (out.size() < engineOffset) out.push_back(0);
  out.insert(out.end(), engine.begin(), engine.end());
  return out;
}

std::span<const uint8_t> span(const std::vector<uint8_t>& v) { return {v.data(), v.size()}; }

// x [2, 8] float32 -> TensorRTBackend -> y, optionally after a CudaBackend
// delegate in the same method (x -> CudaBackend -> t -> TensorRTBackend -> y).
std::string trtSpec(const std::string& target, const std::string& trtFields, bool withCuda) {
  const std::string cuda =
      withCuda ? R"({"delegate": "CudaBackend", "compile_specs": {"method_name": "forward", "target_device": "cuda:0"},
                     "aoti": {"so": "so", "weights": "w", "weights_in_program": true}, "inputs": ["x"], "outputs": ["t"]},)"
               : "";
  return std::string(R"({"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["y"],
    "tensors": {"x": {"dtype": "float32", "sizes": [2, 8]}, "t": {"dtype": "float32", "sizes": [2, 8]},
                "y": {"dtype": "float32", "sizes": [2, 8]}},
    "nodes": [)") +
         cuda + R"({"delegate": "TensorRTBackend", "compile_specs": {"target_device": ")" + target + R"("},
       "tensorrt": )" + trtFields + R"(, "inputs": [")" + (withCuda ? "t" : "x") + R"("], "outputs": ["y"]}]}]})";
}

program::Program synthesized(const std::string& spec) {
  auto built = synth::synthesizeFromSpec(spec);
  if (!built) qFatal("%s", built.error().message.c_str());
  auto passed = synth::applyDevicePasses(built.value());
  if (!passed) qFatal("%s", passed.error().message.c_str());
  return std::move(passed.value());
}

std::vector<std::string> lintIds(const program::Program& program) {
  std::vector<std::string> ids;
  for (const auto& d : analysis::lintProgram(program)) ids.push_back(d.id);
  return ids;
}

}  // namespace

class TestTensorRT : public QObject {
  Q_OBJECT
 private slots:
  // ParsesValidHeaderAndMetadata
  void parsesValidHeaderAndMetadata() {
    const std::string metadata =
        R"({"io_bindings":[{"name":"input_0","is_input":true},{"name":"output_0","is_input":false}],"hardware_compatible":true,"device_id":2})";
    const auto blob = makeBlob(metadata);
    auto parsed = parseTensorRTBlob(span(blob));
    QVERIFY2(parsed.ok(), parsed.ok() ? "" : parsed.error().message.c_str());
    QCOMPARE(parsed->metadata_offset, 32u);
    QCOMPARE(size_t(parsed->metadata_size), metadata.size());
    QCOMPARE(parsed->engine_offset % 16, 0u);
    QCOMPARE(parsed->engine_size, uint64_t(4));
    QCOMPARE(parsed->inputs().size(), size_t(1));
    QCOMPARE(parsed->inputs()[0]->name, std::string("input_0"));
    QCOMPARE(parsed->outputs().size(), size_t(1));
    QCOMPARE(parsed->outputs()[0]->name, std::string("output_0"));
    QVERIFY(parsed->hardware_compatible);
    QCOMPARE(parsed->device_id, int64_t(2));
    QCOMPARE(parsed->magic, std::string("TR01"));
  }

  // RejectsInvalidMagic, RejectsUnknownFutureMagic
  void rejectsMagics() {
    auto blob = makeBlob(R"({"io_bindings":[]})");
    blob[0] = 'X';
    auto bad = parseTensorRTBlob(span(blob));
    QVERIFY(!bad.ok());
    QCOMPARE(bad.error().message, std::string("TensorRT blob: magic 'XR01' is neither TR01 nor TR02"));
    const auto future = makeBlob(R"({"io_bindings":[{"name":"x","is_input":true}]})", 4, "TR03");
    QVERIFY(!parseTensorRTBlob(span(future)).ok());
  }

  // RejectsUnalignedEngineOffset: "{}" at 32, engine right after it at 34.
  void rejectsUnalignedEngineOffset() {
    std::vector<uint8_t> blob{'T', 'R', '0', '1'};
    le32(blob, 32);
    le32(blob, 2);
    le32(blob, 34);
    le64(blob, 4);
    blob.resize(32, 0);
    blob.push_back('{');
    blob.push_back('}');
    blob.resize(38, 0);
    auto parsed = parseTensorRTBlob(span(blob));
    QVERIFY(!parsed.ok());
    QCOMPARE(parsed.error().message, std::string("TensorRT blob: engine offset 34 is not 16-byte aligned"));
  }

  // RejectsEnginePastEndOfBlob: engine size set to the whole blob's size.
  void rejectsEnginePastEnd() {
    auto blob = makeBlob(R"({"io_bindings":[]})");
    QCOMPARE(blob.size(), size_t(68));  // 32 + 18 bytes of JSON -> engine at 64, + 4
    std::vector<uint8_t> size;
    le64(size, blob.size());
    std::memcpy(blob.data() + 16, size.data(), 8);
    auto parsed = parseTensorRTBlob(span(blob));
    QVERIFY(!parsed.ok());
    QCOMPARE(parsed.error().message,
             std::string("TensorRT blob: engine (offset 64, 68 bytes) extends past the blob's 68 bytes"));
    // A size that would wrap a 64-bit sum is refused the same way.
    std::vector<uint8_t> huge;
    le64(huge, ~uint64_t(0));
    std::memcpy(blob.data() + 16, huge.data(), 8);
    QVERIFY(!parseTensorRTBlob(span(blob)).ok());
  }

  // RejectsMissingIoBindingsMetadata
  void rejectsMissingIoBindings() {
    const auto blob = makeBlob(R"({"hardware_compatible":false})");
    auto parsed = parseTensorRTBlob(span(blob));
    QVERIFY(!parsed.ok());
    QVERIFY(parsed.error().message.find("no io_bindings") != std::string::npos);
  }

  // ParsesAliasedIo, DefaultsMissingAliasedIo, ParsesEmptyAliasedIo,
  // ParsesAliasedIoMagic, InputNamedAliasedIoWithNoAliasesStillParses
  void parsesAliasedIo() {
    const std::string metadata = R"({"io_bindings":[{"name":"in_k","is_input":true},{"name":"out_k","is_input":false},)"
                                 R"({"name":"in_u","is_input":true},{"name":"out_u","is_input":false}],)"
                                 R"("aliased_io":[{"output":"out_k","input":"in_k","kind":"kv_cache_update"},)"
                                 R"({"output":"out_u","input":"in_u","kind":"user"}],)"
                                 R"("hardware_compatible":false,"device_id":0})";
    auto parsed = parseTensorRTBlob(span(makeBlob(metadata)));
    QVERIFY(parsed.ok());
    QCOMPARE(parsed->aliased_io.size(), size_t(2));
    QCOMPARE(parsed->aliased_io[0].output, std::string("out_k"));
    QCOMPARE(parsed->aliased_io[0].input, std::string("in_k"));
    QCOMPARE(parsed->aliased_io[0].kind, std::string("kv_cache_update"));
    QCOMPARE(parsed->aliased_io[1].output, std::string("out_u"));
    QCOMPARE(parsed->aliased_io[1].kind, std::string("user"));
    QCOMPARE(parsed->aliasOfOutput("out_u")->input, std::string("in_u"));
    QVERIFY(parsed->aliasOfOutput("in_k") == nullptr);

    auto old = parseTensorRTBlob(span(makeBlob(R"({"io_bindings":[{"name":"input_0","is_input":true},)"
                                              R"({"name":"output_0","is_input":false}],"hardware_compatible":false,"device_id":0})")));
    QVERIFY(old.ok());
    QVERIFY(old->aliased_io.empty());
    auto empty = parseTensorRTBlob(span(makeBlob(R"({"io_bindings":[{"name":"input_0","is_input":true}],"aliased_io":[]})")));
    QVERIFY(empty.ok());
    QVERIFY(empty->aliased_io.empty());
    // TR02 with an alias whose kind is absent: the C++ parser's default.
    auto tr02 = parseTensorRTBlob(span(makeBlob(R"({"io_bindings":[{"name":"in_k","is_input":true},{"name":"out_k","is_input":false}],)"
                                               R"("aliased_io":[{"output":"out_k","input":"in_k"}]})",
                                               4, "TR02")));
    QVERIFY(tr02.ok());
    QCOMPARE(tr02->magic, std::string("TR02"));
    QCOMPARE(tr02->aliased_io[0].kind, std::string("kv_cache_update"));
    auto named = parseTensorRTBlob(span(makeBlob(R"({"io_bindings":[{"name":"aliased_io","is_input":true},)"
                                                R"({"name":"out_0","is_input":false}],"hardware_compatible":false,"device_id":0})")));
    QVERIFY(named.ok());
    QVERIFY(named->aliased_io.empty());
    QCOMPARE(named->inputs()[0]->name, std::string("aliased_io"));
  }

  // Every prefix of a valid blob shorter than its engine's end, and every
  // single corrupted header byte, is one "TensorRT blob: ..." error or a
  // parse; nothing crashes (this runs under the sanitizers in CI).
  void truncatedAndCorrupt() {
    const auto blob = makeBlob(R"({"io_bindings":[{"name":"x","is_input":true}],"device_id":0})", 40);
    QVERIFY(parseTensorRTBlob(span(blob)).ok());
    for (size_t n = 0; n < blob.size(); ++n) {
      auto parsed = parseTensorRTBlob(std::span<const uint8_t>(blob.data(), n));
      QVERIFY2(!parsed.ok(), qPrintable(QString("prefix %1 parsed").arg(n)));
      QVERIFY(parsed.error().message.starts_with("TensorRT blob: "));
      QVERIFY(parsed.error().message.find('\n') == std::string::npos);
    }
    QCOMPARE(parseTensorRTBlob(std::span<const uint8_t>(blob.data(), 31)).error().message,
             std::string("TensorRT blob: 31 bytes, shorter than the 32-byte header"));
    for (size_t i = 0; i < 80; ++i)
      for (uint8_t x : {uint8_t(0xff), uint8_t(0x80), uint8_t(0x01)}) {
        auto copy = blob;
        copy[i] ^= x;
        auto parsed = parseTensorRTBlob(span(copy));
        if (!parsed.ok()) QVERIFY(parsed.error().message.starts_with("TensorRT blob: "));
      }
    auto notJson = parseTensorRTBlob(span(makeBlob(R"({"io_bindings":[)")));
    QCOMPARE(notJson.error().message, std::string("TensorRT blob: the metadata is not a JSON object"));
  }

  // test_serialize_engine_writes_tr01_blob: x in, y out, device_id=1,
  // hardware_compatible=True, engine b"engine-bytes". to_json writes every
  // binding field (dtype "" and shape [] by default) and every scalar in
  // its fixed order; 223 bytes of JSON -> engine at 256.
  void writerMatchesTr01Vector() {
    TensorRTBlob fields;
    fields.bindings = {{"x", "", {}, true}, {"y", "", {}, false}};
    fields.device_id = 1;
    fields.hardware_compatible = true;
    const std::string engine = "engine-bytes";
    const std::string json =
        R"({"io_bindings":[{"name":"x","dtype":"","shape":[],"is_input":true},{"name":"y","dtype":"","shape":[],"is_input":false}],)"
        R"("aliased_io":[],"hardware_compatible":true,"device_id":1,"serialized_metadata":"","target_platform":""})";
    QCOMPARE(json.size(), size_t(223));
    const auto expected = pythonBlob("TR01", json, engine);
    QCOMPARE(expected.size(), size_t(256 + 12));
    const auto written =
        serializeTensorRTBlob(fields, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(engine.data()), engine.size()));
    QCOMPARE(written, expected);
    // And it reads back as the Python test checks.
    auto back = parseTensorRTBlob(span(written));
    QVERIFY(back.ok());
    QCOMPARE(back->device_id, int64_t(1));
    QVERIFY(back->hardware_compatible);
    QCOMPARE(back->engine_offset, 256u);
    QCOMPARE(std::string(written.begin() + back->engine_offset, written.end()), engine);
  }

  // test_serialize_engine_round_trips_aliased_io: aliased -> TR02
  // (test_aliased_io_blob_uses_the_bumped_magic); 447 bytes of JSON ->
  // engine at 480.
  void writerMatchesAliasedVector() {
    TensorRTBlob fields;
    fields.bindings = {{"in_k", "", {}, true}, {"out_k", "", {}, false}, {"in_u", "", {}, true}, {"out_u", "", {}, false}};
    fields.aliased_io = {{"out_k", "in_k", "kv_cache_update"}, {"out_u", "in_u", "user"}};
    const std::string engine = "eng";
    const std::string json =
        R"({"io_bindings":[{"name":"in_k","dtype":"","shape":[],"is_input":true},{"name":"out_k","dtype":"","shape":[],"is_input":false},)"
        R"({"name":"in_u","dtype":"","shape":[],"is_input":true},{"name":"out_u","dtype":"","shape":[],"is_input":false}],)"
        R"("aliased_io":[{"output":"out_k","input":"in_k","kind":"kv_cache_update"},{"output":"out_u","input":"in_u","kind":"user"}],)"
        R"("hardware_compatible":false,"device_id":0,"serialized_metadata":"","target_platform":""})";
    QCOMPARE(json.size(), size_t(447));
    const auto written =
        serializeTensorRTBlob(fields, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(engine.data()), engine.size()));
    QCOMPARE(written, pythonBlob("TR02", json, engine));
    QCOMPARE(written.size(), size_t(480 + 3));
  }

  // json.dumps's default ensure_ascii: non-ASCII as \uXXXX (lower-case hex,
  // surrogate pairs above U+FFFF), DEL too; shape integers as written.
  void writerEscapesAsPython() {
    TensorRTBlob fields;
    fields.bindings = {{"\xc3\xa9\x7f\xf0\x9f\x98\x80", "float32", {1, 64}, true}};
    const auto written = serializeTensorRTBlob(fields, {});
    const std::string json =
        R"({"io_bindings":[{"name":"\u00e9\u007f\ud83d\ude00","dtype":"float32","shape":[1,64],"is_input":true}],)"
        R"("aliased_io":[],"hardware_compatible":false,"device_id":0,"serialized_metadata":"","target_platform":""})";
    QCOMPARE(std::string(written.begin() + 32, written.begin() + 32 + json.size()), json);
  }

  // synth writes the blob serialize_engine writes: the Python test's TR01
  // vector (x in, y out, device_id 1, hardware_compatible, "engine-bytes"),
  // the binding names being the node's tensors; on cuda:1 that agrees with
  // the blob, so no PTS016.
  void synthWritesUpstreamBytes() {
    const auto program = synthesized(trtSpec(
        "cuda:1", R"({"engine": "engine-bytes", "device_id": 1, "hardware_compatible": true})", false));
    const auto& method = program.methods()[0];
    QCOMPARE(items(method.delegates).size(), size_t(1));
    const auto& delegate = items(method.delegates)[0];
    QCOMPARE(delegate.id.value_or(""), std::string("TensorRTBackend"));
    auto blob = delegateBlob(program, delegate);
    QVERIFY(blob.has_value());
    const std::string json =
        R"({"io_bindings":[{"name":"x","dtype":"","shape":[],"is_input":true},{"name":"y","dtype":"","shape":[],"is_input":false}],)"
        R"("aliased_io":[],"hardware_compatible":true,"device_id":1,"serialized_metadata":"","target_platform":""})";
    const auto expected = pythonBlob("TR01", json, "engine-bytes");
    QCOMPARE(std::vector<uint8_t>(blob->data(), blob->data() + blob->size()), expected);
    const auto payload = describeDelegatePayload(program, delegate);
    QVERIFY(payload.tensorrt.has_value());
    QVERIFY(payload.problem.empty());
    // The device passes treat it as a device delegate of cuda:1: h2d in, d2h out.
    bool h2dOnCuda1 = false;
    for (const auto& v : items(method.values))
      if (const auto* t = v.tensor(); t && t->device() == Device{DeviceType::Cuda, 1}) h2dOnCuda1 = true;
    QVERIFY(h2dOnCuda1);
    for (const auto& id : lintIds(program)) QVERIFY2(id != "PTS016" && id != "PTS017", id.c_str());
  }

  // Beside a CudaBackend delegate in one method: both payloads decode, the
  // aliased blob carries TR02.
  void synthBesideCudaBackend() {
    auto spec = trtSpec("cuda:0", R"({"engine": [1, 2, 3]})", true);
    const auto program = synthesized(spec);
    const auto& delegates = items(program.methods()[0].delegates);
    QCOMPARE(delegates.size(), size_t(2));
    QCOMPARE(delegates[0].id.value_or(""), std::string("CudaBackend"));
    QVERIFY(describeDelegatePayload(program, delegates[0]).aoti);
    QVERIFY(describeDelegatePayload(program, delegates[0]).problem.empty());
    const auto trt = describeDelegatePayload(program, delegates[1]);
    QVERIFY(trt.tensorrt.has_value());
    QCOMPARE(trt.tensorrt->engine_size, uint64_t(3));
    QCOMPARE(trt.tensorrt->inputs()[0]->name, std::string("t"));
  }

  // lint: PTS016 when the blob's device_id disagrees with target_device,
  // PTS017 when the blob does not parse.
  void lintDeviceMismatchAndUnreadable() {
    const auto mismatch = synthesized(trtSpec("cuda:1", R"({"engine": "e", "device_id": 0})", false));
    const auto found = analysis::lintProgram(mismatch);
    auto it = std::find_if(found.begin(), found.end(), [](const auto& d) { return d.id == "PTS016"; });
    QVERIFY(it != found.end());
    QCOMPARE(it->severity, analysis::Severity::Warning);
    QCOMPARE(it->delegate, std::optional<int32_t>(0));
    QVERIFY(it->message.find("runs on cuda:0 (blob device_id) but target_device is cuda:1") != std::string::npos);

    auto spec = trtSpec("cuda:0", "null", false);
    spec.replace(spec.find(R"("tensorrt": null)"), std::string(R"("tensorrt": null)").size(), R"("blob": "not a TensorRT blob")");
    const auto broken = synthesized(spec);
    const auto ids = lintIds(broken);
    QVERIFY(std::find(ids.begin(), ids.end(), "PTS017") != ids.end());
    // len("not a TensorRT blob") = 19
    const auto payload = describeDelegatePayload(broken, items(broken.methods()[0].delegates)[0]);
    QCOMPARE(payload.problem,
             std::string("TensorRT blob: 19 bytes, shorter than the 32-byte header (the backend's init fails with "
                         "InvalidProgram)"));
  }

  // Spec mistakes are one message with the JSON path.
  void synthSpecErrors() {
    auto wrongBackend = synth::synthesizeFromSpec(
        R"({"methods": [{"name": "m", "inputs": ["x"], "outputs": ["y"], "tensors": {"x": {"dtype": "float32", "sizes": [1]},
            "y": {"dtype": "float32", "sizes": [1]}}, "nodes": [{"delegate": "CudaBackend", "tensorrt": {"engine": "e"},
            "inputs": ["x"], "outputs": ["y"]}]}]})");
    QVERIFY(!wrongBackend);
    QCOMPARE(wrongBackend.error().message,
             std::string("methods[0].nodes[0].tensorrt: a TensorRT blob is for TensorRTBackend, not 'CudaBackend'"));
    auto badAlias = synth::synthesizeFromSpec(trtSpec(
        "cuda:0", R"({"engine": "e", "aliased_io": [{"output": "y", "input": "q"}]})", false));
    QVERIFY(!badAlias);
    QCOMPARE(badAlias.error().message,
             std::string("methods[0].nodes[0].tensorrt.aliased_io[0].input: 'q' is not a tensor input of this node"));
  }
};

QTEST_APPLESS_MAIN(TestTensorRT)
#include "test_tensorrt.moc"
