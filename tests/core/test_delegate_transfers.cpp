// Transfers inside delegates (core/analysis/DelegateTransfers): every
// combination issue 35 lists, each checked for count, bytes and direction
// against a hand count written here with the upstream lines it follows.
// TRB = pytorch/TensorRT d7f20628 cpp/src/torch_tensorrt/executorch/
// TensorRTBackend.cpp; CB = ExecuTorch cff6f4dd backends/cuda/runtime/
// cuda_backend.cpp. Tensors: x, t [2, 8] float32 = 64 bytes; k, k2 [4, 8]
// float32 = 128 bytes; y [2, 4] float32 = 32 bytes.
#include <QtTest>

#include <algorithm>

#include "advise/Advise.h"
#include "analysis/DelegateTransfers.h"
#include "analysis/Diagnostics.h"
#include "analysis/Summary.h"
#include "cost/CopyCost.h"
#include "cost/LinkProfile.h"
#include "layout/DelegateCopyMarks.h"
#include "synth/JsonSpec.h"

using namespace ptescope;
using namespace ptescope::program;
using analysis::DelegateTransferKind;

// moc does not read these raw strings' unbalanced braces; it needs none of it.
#ifndef Q_MOC_RUN
namespace {

constexpr auto H2D = CopyDirection::HostToDevice;
constexpr auto D2H = CopyDirection::DeviceToHost;
constexpr auto D2D = CopyDirection::DeviceToDevice;

const char* const kTensors = R"("tensors": {"x": {"dtype": "float32", "sizes": [2, 8]}, "t": {"dtype": "float32", "sizes": [2, 8]},
    "k": {"dtype": "float32", "sizes": [4, 8]}, "k2": {"dtype": "float32", "sizes": [4, 8]},
    "y": {"dtype": "float32", "sizes": [2, 4]}, "r": {"dtype": "float32", "sizes": [2, 8]},
    "z": {"dtype": "float32", "sizes": [2, 4]}})";

std::string trtNode(const std::string& in, const std::string& out, const std::string& target = "cuda:0",
                    const std::string& extra = "") {
  const std::string device = target.substr(target.find(':') + 1);
  return R"({"delegate": "TensorRTBackend", "compile_specs": {"target_device": ")" + target +
         R"("}, "tensorrt": {"engine": "engine", "device_id": )" + device + extra + R"(}, "inputs": )" + in +
         R"(, "outputs": )" + out + "}";
}

// One method "forward" with these nodes, inputs, outputs and options.
std::string spec(const std::string& inputs, const std::string& outputs, const std::string& nodes,
                 const std::string& options = "{}") {
  return R"({"methods": [{"name": "forward", "inputs": )" + inputs + R"(, "outputs": )" + outputs + ", " + kTensors +
         R"(, "nodes": [)" + nodes + R"(]}], "options": )" + options + "}";
}

Program passed(const std::string& json) {
  auto built = synth::synthesizeFromSpec(json);
  if (!built) qFatal("spec: %s", built.error().message.c_str());
  auto out = synth::applyDevicePasses(built.value());
  if (!out) qFatal("passes: %s", out.error().message.c_str());
  return std::move(out.value());
}

// (kind, direction, bytes) of each transfer, in order.
std::vector<std::tuple<DelegateTransferKind, CopyDirection, uint64_t>> shape(const analysis::DelegateTransfers& d) {
  std::vector<std::tuple<DelegateTransferKind, CopyDirection, uint64_t>> out;
  for (const auto& t : d.transfers) out.emplace_back(t.kind, t.direction, t.bytes);
  return out;
}

analysis::DelegateTransfers of(const Program& program, const std::set<std::string>& cudaGraph = {},
                               const std::string& method = "forward") {
  analysis::DelegateTransferOptions options;
  options.cuda_graph_methods = cudaGraph;
  return analysis::delegateTransfers(program, *program.findMethod(method), options);
}

const std::string kLegacy = R"({"enable_non_cpu_memory_planning": false})";

}  // namespace
#endif

class TestDelegateTransfers : public QObject {
  Q_OBJECT
 private slots:
  void tensorRTAloneWithDevicePlanning();
  void tensorRTAloneLegacy();
  void stagingOnInputsOnly();
  void stagingOnOutputsOnly();
  void aliasedKvOutputs();
  void aliasedKvInputInHostMemoryIsRefused();
  void tensorRTOnCuda1();
  void tensorRTBesideCuda();
  void cudaGraphOnOneOfTwoMethods();
  void legacyModePerBackend();
  void aliasedHostInputIsALintError();
  void cudaGraphSetting();
  void graphMarksOnTheBoundary();
  void advisorFollowsEachBackend();
  void cudaWithoutTargetDeviceCopiesInside();
  void replayCopiesKeepTheirNamesAcrossRenumbering();
};

#ifndef Q_MOC_RUN
// Device planning on (the default): the passes copy x in and y out with
// et_copy, the delegate's boundary is planned in the cuda arena, so the
// backend binds it in place (TRB 718-719, 881-882): nothing staged.
void TestDelegateTransfers::tensorRTAloneWithDevicePlanning() {
  const auto p = passed(spec(R"(["x"])", R"(["y"])", trtNode(R"(["x"])", R"(["y"])")));
  const auto d = of(p);
  QVERIFY(d.transfers.empty());
  QVERIFY(d.refusals.empty());
}

// Legacy mode (enable_non_cpu_memory_planning=False): no et_copy; x and y
// are planned in the CPU arena, so x (64 B) is staged h2d before the
// engine (TRB 720-745) and y (32 B) d2h after it (TRB 883-900, 957-973).
void TestDelegateTransfers::tensorRTAloneLegacy() {
  const auto p = passed(spec(R"(["x"])", R"(["y"])", trtNode(R"(["x"])", R"(["y"])"), kLegacy));
  const auto d = of(p);
  using T = std::tuple<DelegateTransferKind, CopyDirection, uint64_t>;
  QCOMPARE(shape(d), (std::vector<T>{{DelegateTransferKind::TensorRTStagedInput, H2D, 64},
                                     {DelegateTransferKind::TensorRTStagedOutput, D2H, 32}}));
  QCOMPARE(d.count(H2D), size_t(1));
  QCOMPARE(d.count(D2H), size_t(1));
  QCOMPARE(d.bytes(), uint64_t(96));
  const auto& in = d.transfers[0];
  QCOMPARE(in.instruction, size_t(0));  // the only instruction: no et_copy in legacy mode
  QCOMPARE(in.delegate, 0);
  QCOMPARE(in.value, items(p.methods()[0].inputs)[0]);
  QCOMPARE(in.device, (Device{DeviceType::Cuda, 0}));
  QCOMPARE(in.upstream, std::string("TensorRTBackend.cpp 720-745"));
  QCOMPARE(d.transfers[1].value, items(p.methods()[0].outputs)[0]);
  QCOMPARE(in.text(), "inside delegate 0 (TensorRTBackend): input %" + std::to_string(in.value) +
                          " is host memory, staged host-to-device (TensorRTBackend.cpp 720-745)");
}

// Staging on inputs only: skip_h2d with alloc_graph_input=False leaves x
// an unplanned method input, the caller's host buffer: staged h2d, 64 B
// (TRB 720-745); y still gets its et_copy d2h out of the cuda arena.
void TestDelegateTransfers::stagingOnInputsOnly() {
  const auto p = passed(spec(R"(["x"])", R"(["y"])", trtNode(R"(["x"])", R"(["y"])"),
                             R"({"skip_h2d_for_method_inputs": true, "alloc_graph_input": false})"));
  const auto d = of(p);
  using T = std::tuple<DelegateTransferKind, CopyDirection, uint64_t>;
  QCOMPARE(shape(d), (std::vector<T>{{DelegateTransferKind::TensorRTStagedInput, H2D, 64}}));
}

// Staging on outputs only: skip_d2h with alloc_graph_output=False leaves y
// an unplanned method output in host memory: bound to scratch, d2h after
// the engine, 32 B (TRB 883-900, 957-973); x arrives by et_copy h2d.
void TestDelegateTransfers::stagingOnOutputsOnly() {
  const auto p = passed(spec(R"(["x"])", R"(["y"])", trtNode(R"(["x"])", R"(["y"])"),
                             R"({"skip_d2h_for_method_outputs": true, "alloc_graph_output": false})"));
  const auto d = of(p);
  using T = std::tuple<DelegateTransferKind, CopyDirection, uint64_t>;
  QCOMPARE(shape(d), (std::vector<T>{{DelegateTransferKind::TensorRTStagedOutput, D2H, 32}}));
}

// Aliased KV output: inputs (x, k), outputs (y, k2), k2 aliases k. With
// device planning every boundary is in the cuda arena: nothing staged, but
// k2 is bound to k's pointer and reflected into the delegate's output slot
// d2d, 128 B (TRB 789-833, 921-936).
void TestDelegateTransfers::aliasedKvOutputs() {
  const auto p = passed(spec(R"(["x", "k"])", R"(["y", "k2"])",
                             trtNode(R"(["x", "k"])", R"(["y", "k2"])", "cuda:0",
                                     R"(, "aliased_io": [{"output": "k2", "input": "k"}])")));
  const auto d = of(p);
  using T = std::tuple<DelegateTransferKind, CopyDirection, uint64_t>;
  QCOMPARE(shape(d), (std::vector<T>{{DelegateTransferKind::TensorRTAliasReflect, D2D, 128}}));
  QVERIFY(d.refusals.empty());
}

// The same in legacy mode: k is host memory, which the backend refuses
// before any copy (TRB 694-705): a refusal; x staged h2d 64 B, y d2h 32 B,
// k2 still a d2d reflect of 128 B.
void TestDelegateTransfers::aliasedKvInputInHostMemoryIsRefused() {
  const auto p = passed(spec(R"(["x", "k"])", R"(["y", "k2"])",
                             trtNode(R"(["x", "k"])", R"(["y", "k2"])", "cuda:0",
                                     R"(, "aliased_io": [{"output": "k2", "input": "k"}])"),
                             kLegacy));
  const auto d = of(p);
  QCOMPARE(d.refusals.size(), size_t(1));
  QCOMPARE(d.refusals[0].value, items(p.methods()[0].inputs)[1]);
  QVERIFY(d.refusals[0].message.find("TensorRTBackend.cpp 694-705") != std::string::npos);
  using T = std::tuple<DelegateTransferKind, CopyDirection, uint64_t>;
  QCOMPARE(shape(d), (std::vector<T>{{DelegateTransferKind::TensorRTStagedInput, H2D, 64},
                                     {DelegateTransferKind::TensorRTStagedOutput, D2H, 32},
                                     {DelegateTransferKind::TensorRTAliasReflect, D2D, 128}}));
}

// TensorRT on cuda:1: the staged copies are on the engine's device, the
// blob's device_id (TRB 260-266, 587-598).
void TestDelegateTransfers::tensorRTOnCuda1() {
  const auto p = passed(spec(R"(["x"])", R"(["y"])", trtNode(R"(["x"])", R"(["y"])", "cuda:1"), kLegacy));
  const auto d = of(p);
  QCOMPARE(d.transfers.size(), size_t(2));
  for (const auto& t : d.transfers) QCOMPARE(t.device, (Device{DeviceType::Cuda, 1}));
}

// TensorRT and CUDA in one method, x -> CudaBackend -> t -> TensorRT -> y.
// With device planning: t stays on cuda:0 between them (the passes elide
// the round trip), every boundary is device memory: nothing staged. In
// legacy mode the TensorRT delegate stages t (64 B h2d) and y (32 B d2h);
// the CUDA delegate stages nothing (CB 521-560 refuses instead).
void TestDelegateTransfers::tensorRTBesideCuda() {
  const std::string cuda = R"({"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:0"},
      "inputs": ["x"], "outputs": ["t"]}, )";
  const auto nodes = cuda + trtNode(R"(["t"])", R"(["y"])");
  QVERIFY(of(passed(spec(R"(["x"])", R"(["y"])", nodes))).transfers.empty());
  const auto legacy = passed(spec(R"(["x"])", R"(["y"])", nodes, kLegacy));
  const auto d = of(legacy);
  using T = std::tuple<DelegateTransferKind, CopyDirection, uint64_t>;
  QCOMPARE(shape(d), (std::vector<T>{{DelegateTransferKind::TensorRTStagedInput, H2D, 64},
                                     {DelegateTransferKind::TensorRTStagedOutput, D2H, 32}}));
  for (const auto& t : d.transfers) QCOMPARE(t.delegate, 1);
  // CUDA graphs on: the CudaBackend delegate adds x in and t out, d2d.
  const auto replay = of(legacy, {"forward"});
  QCOMPARE(replay.count(D2D), size_t(2));
}

// CUDA graph replay on one of two methods: "prefill" replays, "forward"
// does not. Each replay copies every input d2d into the static buffers
// (CB 573-590) and every output back (CB 600-610): x and k in (64 and
// 128 B), y out (32 B).
void TestDelegateTransfers::cudaGraphOnOneOfTwoMethods() {
  auto method = [](const std::string& name) {
    return R"({"name": ")" + name + R"(", "inputs": ["x", "k"], "outputs": ["y"], )" + kTensors +
           R"(, "nodes": [{"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:0"},
               "inputs": ["x", "k"], "outputs": ["y"]}]})";
  };
  const auto p = passed(R"({"methods": [)" + method("forward") + ", " + method("prefill") + "]}");
  QVERIFY(of(p, {"prefill"}, "forward").transfers.empty());
  const auto d = of(p, {"prefill"}, "prefill");
  using T = std::tuple<DelegateTransferKind, CopyDirection, uint64_t>;
  QCOMPARE(shape(d), (std::vector<T>{{DelegateTransferKind::CudaGraphInput, D2D, 64},
                                     {DelegateTransferKind::CudaGraphInput, D2D, 128},
                                     {DelegateTransferKind::CudaGraphOutput, D2D, 32}}));
  QCOMPARE(d.bytes(D2D), uint64_t(224));
  QCOMPARE(d.transfers[0].upstream, std::string("cuda_backend.cpp 573-590"));
  // Without the setting nothing replays.
  QVERIFY(of(p, {}, "prefill").transfers.empty());
}

// Legacy mode per backend (lint): x -> relu (CPU) -> r -> delegate -> y ->
// relu (CPU) -> z. Upstream's legacy pass tags r and y with the delegate's
// device in place while the planner puts them in the CPU arena.
// TensorRTBackend stages them (TRB 720-745, 883-900) and the CPU kernels
// read and write host memory: no PTS003 / PTS015 error, two PTS019 notes.
// CudaBackend refuses host memory (CB 521-560): PTS003 stays an error and
// says so.
void TestDelegateTransfers::legacyModePerBackend() {
  auto program = [&](const std::string& delegate) {
    return passed(spec(R"(["x"])", R"(["z"])",
                       R"({"op": "aten::relu.out", "inputs": ["x"], "outputs": ["r"]}, )" + delegate +
                           R"(, {"op": "aten::relu.out", "inputs": ["y"], "outputs": ["z"]})",
                       kLegacy));
  };
  auto ids = [](const std::vector<analysis::Diagnostic>& all, analysis::Severity severity) {
    std::vector<std::string> out;
    for (const auto& d : all)
      if (d.severity == severity) out.push_back(d.id);
    return out;
  };
  const auto trt = analysis::lintProgram(program(trtNode(R"(["r"])", R"(["y"])")));
  QCOMPARE(ids(trt, analysis::Severity::Error), std::vector<std::string>{});
  QCOMPARE(ids(trt, analysis::Severity::Info), (std::vector<std::string>{"PTS019", "PTS019"}));
  const auto cuda = analysis::lintProgram(program(
      R"({"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:0"}, "inputs": ["r"], "outputs": ["y"]})"));
  const auto errors = ids(cuda, analysis::Severity::Error);
  QVERIFY(std::find(errors.begin(), errors.end(), "PTS003") != errors.end());
  for (const auto& d : cuda)
    if (d.id == "PTS003") QVERIFY(d.hint.find("cuda_backend.cpp 521-560") != std::string::npos);
}

// An aliased KV input in host memory (legacy mode) is refused before any
// copy: PTS018, an error, citing TRB 694-705.
void TestDelegateTransfers::aliasedHostInputIsALintError() {
  const auto p = passed(spec(R"(["x", "k"])", R"(["y", "k2"])",
                             trtNode(R"(["x", "k"])", R"(["y", "k2"])", "cuda:0",
                                     R"(, "aliased_io": [{"output": "k2", "input": "k"}])"),
                             kLegacy));
  const auto all = analysis::lintProgram(p);
  auto it = std::find_if(all.begin(), all.end(), [](const auto& d) { return d.id == "PTS018"; });
  QVERIFY(it != all.end());
  QCOMPARE(it->severity, analysis::Severity::Error);
  QVERIFY(it->message.find("TensorRTBackend.cpp 694-705") != std::string::npos);
  QCOMPARE(it->value, std::optional<int32_t>(items(p.methods()[0].inputs)[1]));
}

// --cuda-graph's list, read as upstream's method_in_csv reads it.
void TestDelegateTransfers::cudaGraphSetting() {
  auto method = [](const std::string& name) {
    return R"({"name": ")" + name + R"(", "inputs": ["x"], "outputs": ["y"], )" + kTensors +
           R"(, "nodes": [{"op": "aten::relu.out", "inputs": ["x"], "outputs": ["y"]}]})";
  };
  const auto p = passed(R"({"methods": [)" + method("forward") + ", " + method("prefill") + "]}");
  auto both = analysis::cudaGraphSetting(" prefill , ,forward", p);
  QVERIFY(both.ok());
  QCOMPARE(both->cuda_graph_methods, (std::set<std::string>{"forward", "prefill"}));
  QVERIFY(analysis::cudaGraphSetting("", p)->cuda_graph_methods.empty());
  auto bad = analysis::cudaGraphSetting("forward,decode", p);
  QVERIFY(!bad.ok());
  QCOMPARE(bad.error().message, std::string("--cuda-graph: the program has no method 'decode' (it has forward, prefill)"));
}

// The graph marks each copy on the delegate's boundary edge, never as a
// node. Legacy mode, x -> relu -> t -> TensorRT -> y -> relu -> z, y also
// returned: t (64 B) staged h2d on the edge into the delegate; y (32 B)
// staged d2h once (TRB 883-900), on one of the delegate's two edges out
// (to relu and to the output), though two read it.
void TestDelegateTransfers::graphMarksOnTheBoundary() {
  const auto p = passed(spec(R"(["x"])", R"(["z", "y"])",
                             R"({"op": "aten::relu.out", "inputs": ["x"], "outputs": ["t"]}, )" +
                                 trtNode(R"(["t"])", R"(["y"])") +
                                 R"(, {"op": "aten::relu.out", "inputs": ["y"], "outputs": ["z"]})",
                             kLegacy));
  const auto& method = p.methods()[0];
  const auto graph = layout::MethodGraph::analyze(method);
  auto model = graph.build(graph.fullExpansion());
  const size_t nodesBefore = model.nodes.size();
  layout::markDelegateCopies(model, of(p));
  QCOMPARE(model.nodes.size(), nodesBefore);  // no node of their own
  const auto delegateNode = model.nodeOfInstruction(1);
  QVERIFY(delegateNode);
  const auto& node = model.nodes[*delegateNode];
  QCOMPARE(node.kind, layout::NodeKind::Delegate);
  QCOMPARE(node.inside_copies.size(), size_t(2));
  std::vector<std::string> marked;
  for (const auto& e : model.edges) {
    for (const auto& mark : e.inside_copies) {
      marked.push_back(mark.badge);
      if (mark.direction == H2D) {
        QCOMPARE(e.to, *delegateNode);
        const auto& call = std::get<DelegateCall>((*items(method.chains)[0].instructions)[1].data);
        QCOMPARE(e.value, items(call.args)[0]);  // t
      } else {
        QCOMPARE(e.from, *delegateNode);
      }
    }
  }
  std::sort(marked.begin(), marked.end());
  QCOMPARE(marked, (std::vector<std::string>{"inside delegate 0: d2h 32 B", "inside delegate 0: h2d 64 B"}));
  QVERIFY(node.tooltip.find("staged host-to-device (TensorRTBackend.cpp 720-745), 64 B") != std::string::npos);
}

// Legacy mode per backend in the advisor. x -> relu -> r -> delegate -> y
// -> relu -> z with device planning on (the file's options); --explain
// tries the obvious edits, --no-device-planning among them. CudaBackend
// refuses the host memory legacy mode gives it (CB 521-560): rejected, and
// the reason cites the line. TensorRTBackend stages it (TRB 720-745,
// 883-900): a valid edit, the same two copies inside the delegate (no
// saving, so it is not listed), never rejected. The same search runs for
// both, so the TensorRT edit was tried too.
void TestDelegateTransfers::advisorFollowsEachBackend() {
  auto program = [&](const std::string& delegate) {
    return passed(spec(R"(["x"])", R"(["z"])",
                       R"({"op": "aten::relu.out", "inputs": ["x"], "outputs": ["r"]}, )" + delegate +
                           R"(, {"op": "aten::relu.out", "inputs": ["y"], "outputs": ["z"]})"));
  };
  auto legacyRejection = [](const Program& p) -> std::optional<std::string> {
    advise::AdviseOptions options;
    options.explain = true;
    options.top = 0;
    auto advice = advise::advise(p, options);
    if (!advice) qFatal("advise: %s", advice.error().message.c_str());
    for (const auto& r : advice->methods.front().rejected)
      if (r.edits_text == "--no-device-planning") return r.reason;
    return std::nullopt;
  };
  const auto cuda = legacyRejection(program(
      R"({"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:0"}, "inputs": ["r"], "outputs": ["y"]})"));
  QVERIFY(cuda.has_value());
  QVERIFY2(cuda->find("cuda_backend.cpp 521-560") != std::string::npos, cuda->c_str());
  const auto trt = legacyRejection(program(trtNode(R"(["r"])", R"(["y"])")));
  QVERIFY2(!trt.has_value(), trt ? trt->c_str() : "");
}
#endif

QTEST_APPLESS_MAIN(TestDelegateTransfers)
#include "test_delegate_transfers.moc"

// A CudaBackend delegate without a target_device (the Pass options' "none"):
// the passes insert no copies and its tensors are host memory, which
// CudaBackend copies in and back inside execute (from_etensor,
// copy_slimtensor_to_etensor). Removing the target_device was shown as a
// saving of the copies around the delegate (banner, propagate); now those
// copies are counted inside it and the prediction does not drop.
void TestDelegateTransfers::cudaWithoutTargetDeviceCopiesInside() {
  const std::string untargeted = R"({"delegate": "CudaBackend", "compile_specs": {"method_name": "forward"},
      "inputs": ["x", "k"], "outputs": ["y"]})";
  const auto p = passed(spec(R"(["x", "k"])", R"(["y"])", untargeted));
  QCOMPARE(analysis::summarizeMethod(*p.findMethod("forward")).h2d_copies, size_t(0));
  const auto d = of(p);
  using T = std::tuple<DelegateTransferKind, CopyDirection, uint64_t>;
  QCOMPARE(shape(d), (std::vector<T>{{DelegateTransferKind::CudaStagedInput, H2D, 64},
                                     {DelegateTransferKind::CudaStagedInput, H2D, 128},
                                     {DelegateTransferKind::CudaStagedOutput, D2H, 32}}));
  QCOMPARE(d.transfers[0].backend, std::string("CudaBackend"));
  // The same delegate with cuda:0: the copies are et_copy instructions and
  // nothing moves inside; the predicted time is no lower without the spec.
  const std::string targeted = R"({"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:0"},
      "inputs": ["x", "k"], "outputs": ["y"]})";
  const auto q = passed(spec(R"(["x", "k"])", R"(["y"])", targeted));
  QVERIFY(of(q).transfers.empty());
  const auto link = cost::builtinLinkProfiles().front();
  const auto pageable = exec::HostMemoryKind::Pageable;
  const auto priceWithout = cost::predictMethod(p, *p.findMethod("forward"), link, pageable);
  const auto priceWith = cost::predictMethod(q, *q.findMethod("forward"), link, pageable);
  QVERIFY(priceWithout && priceWith);
  const double without = priceWithout->copySeconds(), with = priceWith->copySeconds();
  QVERIFY2(without >= with, qPrintable(QString("no target_device %1 s, cuda:0 %2 s").arg(without).arg(with)));
  // Lint says where the copies went and how to make them instructions.
  bool noted = false;
  for (const auto& diag : analysis::lintProgram(p))
    if (diag.id == "PTS019" && diag.message.find("no target_device") != std::string::npos) noted = true;
  QVERIFY(noted);
  // What the edit from cuda:0 to none changes inside the delegate: its
  // three staging copies are added, none removed; back again, the reverse;
  // a program against itself changes nothing.
  const auto added = cost::diffDelegateCopies(*priceWith, *priceWithout);
  QCOMPARE(added.added.size(), size_t(3));
  QVERIFY(added.removed.empty());
  QCOMPARE(added.added[2].transfer.kind, DelegateTransferKind::CudaStagedOutput);
  QVERIFY(added.added[2].seconds > 0);
  const auto removed = cost::diffDelegateCopies(*priceWithout, *priceWith);
  QCOMPARE(removed.removed.size(), size_t(3));
  QVERIFY(removed.added.empty());
  QVERIFY(cost::diffDelegateCopies(*priceWithout, *priceWithout).empty());
  // Two like copies on one side and one on the other: one is new.
  auto twice = *priceWithout;
  twice.delegate_copies.push_back(twice.delegate_copies.front());
  const auto one = cost::diffDelegateCopies(*priceWithout, twice);
  QCOMPARE(one.added.size(), size_t(1));
  QVERIFY(one.removed.empty());
}

// Walkthrough 20, finding 19: with CUDA graph replay on, an edit that takes
// an h2d copy away (skip_h2d_for_method_inputs) renumbers the values after
// it, and the replay copies of the delegates were paired by value number:
// delegate 1's, untouched, read as removed and added again. Paired by the
// call's argument, the same replay copies are the same before and after.
void TestDelegateTransfers::replayCopiesKeepTheirNamesAcrossRenumbering() {
  const std::string nodes =
      R"({"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:0"}, "inputs": ["x"], "outputs": ["t"]},
         {"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:1"}, "inputs": ["t"], "outputs": ["y"]})";
  const auto loaded = passed(spec(R"(["x"])", R"(["y"])", nodes));
  const auto edited = passed(spec(R"(["x"])", R"(["y"])", nodes, R"({"skip_h2d_for_method_inputs": true})"));
  QVERIFY(analysis::summarizeMethod(*loaded.findMethod("forward")).h2d_copies >
          analysis::summarizeMethod(*edited.findMethod("forward")).h2d_copies);
  const auto before = of(loaded, {"forward"}), after = of(edited, {"forward"});
  QCOMPARE(before.transfers.size(), after.transfers.size());
  // The edit renumbered delegate 1's values: the test shows the pairing.
  bool renumbered = false;
  for (size_t i = 0; i < before.transfers.size(); ++i)
    if (before.transfers[i].delegate == 1) renumbered = renumbered || before.transfers[i].value != after.transfers[i].value;
  QVERIFY(renumbered);
  const auto link = cost::builtinLinkProfiles().front();
  const auto pageable = exec::HostMemoryKind::Pageable;
  analysis::DelegateTransferOptions replay;
  replay.cuda_graph_methods = {"forward"};
  const auto p = cost::predictMethod(loaded, *loaded.findMethod("forward"), link, pageable, replay);
  const auto q = cost::predictMethod(edited, *edited.findMethod("forward"), link, pageable, replay);
  QVERIFY(p && q);
  const auto changes = cost::diffDelegateCopies(*p, *q);
  QVERIFY2(changes.empty(), qPrintable(QString("%1 added, %2 removed").arg(changes.added.size()).arg(changes.removed.size())));
}
