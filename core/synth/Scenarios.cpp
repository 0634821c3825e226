#include "synth/Scenarios.h"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>

#include "synth/ProgramBuilder.h"
#include "util/FindByName.h"

namespace ptescope::synth {

// Defined in the generated DemoSpec.cpp (the text of resources/demo.json).
extern const char* const kDemoSpecJson;

namespace {

using Json = nlohmann::ordered_json;

// Every scenario input and intermediate is 2×2 float32, as upstream's tests.
Json floatTensor() { return Json{{"dtype", "float32"}, {"sizes", {2, 2}}}; }

// A delegated add, as DeviceAwarePartitioner(device) makes it; without a
// device, as CpuOnlyPartitioner makes it. max_value is a single byte 4.
Json addDelegate(const std::string& lhs, const std::string& rhs, const std::string& out,
                 const std::optional<std::string>& device) {
  Json specs = Json::object();
  specs["max_value"] = Json::array({4});
  if (device) specs["target_device"] = *device;
  return Json{{"delegate", std::string(kScenarioBackendId)},
              {"compile_specs", specs},
              {"inputs", {lhs, rhs}},
              {"outputs", {out}},
              {"blob", "demo:aten.add.Tensor"}};
}

Json cpuOp(const std::string& op, const std::string& in, const std::string& out) {
  return Json{{"op", op}, {"inputs", {in}}, {"outputs", {out}}};
}

Json method(const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
            const std::vector<std::string>& tensors, Json nodes) {
  Json declared = Json::object();
  for (const auto& t : tensors) declared[t] = floatTensor();
  return Json{{"name", "forward"}, {"inputs", inputs}, {"outputs", outputs}, {"tensors", declared}, {"nodes", nodes}};
}

Json spec(Json forward, Json options = Json::object()) {
  Json s{{"methods", Json::array({std::move(forward)})}};
  if (!options.empty()) s["options"] = std::move(options);
  return s;
}

// a + b in one delegate.
Json addTwo(const std::optional<std::string>& device) {
  return method({"a", "b"}, {"y"}, {"a", "b", "y"}, Json::array({addDelegate("a", "b", "y", device)}));
}

// (a + b) + c, each add its own delegate (PerAddDeviceDelegatePartitioner).
Json addThree(const std::string& first, const std::string& second) {
  return method({"a", "b", "c"}, {"y"}, {"a", "b", "c", "t", "y"},
                Json::array({addDelegate("a", "b", "t", first), addDelegate("t", "c", "y", second)}));
}

std::vector<Scenario> makeScenarios() {
  const std::string cuda0 = "cuda:0";
  const std::string cuda1 = "cuda:1";
  std::vector<Scenario> list;
  auto add = [&](std::string name, std::string description, const Json& s) {
    list.push_back(Scenario{std::move(name), std::move(description), s.dump(2)});
  };

  add("h2d_d2h", "a+b delegated to cuda:0, default options (upstream tests 1, 2, 12, 17)", spec(addTwo(cuda0)));
  add("cpu_only_delegate", "a+b delegated without target_device (CpuOnlyPartitioner; tests 3, 11)",
      spec(addTwo(std::nullopt)));
  add("no_device_planning", "a+b on cuda:0 with enable_non_cpu_memory_planning off: legacy tags only (test 4)",
      spec(addTwo(cuda0), Json{{"enable_non_cpu_memory_planning", false}}));
  add("redundant_same_device", "(a+b)+c, one delegate per add on [cuda:0, cuda:0] (test 5)",
      spec(addThree(cuda0, cuda0)));
  add("cross_device", "(a+b)+c, one delegate per add on [cuda:0, cuda:1] (test 6)", spec(addThree(cuda0, cuda1)));
  add("multiple_same_device_consumers", "t=a+b; u=t+a; w=t+b; return u+w, four delegates on cuda:0 (test 7)",
      spec(method({"a", "b"}, {"y"}, {"a", "b", "t", "u", "w", "y"},
                  Json::array({addDelegate("a", "b", "t", cuda0), addDelegate("t", "a", "u", cuda0),
                               addDelegate("t", "b", "w", cuda0), addDelegate("u", "w", "y", cuda0)}))));
  add("gpu_and_cpu_consumers", "t=a+b (cuda:0); u=t+a (cuda:0); w=relu(t) on CPU; return u, w (test 8)",
      spec(method({"a", "b"}, {"u", "w"}, {"a", "b", "t", "u", "w"},
                  Json::array({addDelegate("a", "b", "t", cuda0), addDelegate("t", "a", "u", cuda0),
                               cpuOp("aten::relu.out", "t", "w")}))));
  add("same_and_cross_device", "t=a+b (cuda:0); u=t+a (cuda:0); w=t+b (cuda:1); return u, w (test 9)",
      spec(method({"a", "b"}, {"u", "w"}, {"a", "b", "t", "u", "w"},
                  Json::array({addDelegate("a", "b", "t", cuda0), addDelegate("t", "a", "u", cuda0),
                               addDelegate("t", "b", "w", cuda1)}))));
  add("cuda_1", "a+b delegated to cuda:1 (test 10)", spec(addTwo(cuda1)));
  add("add_then_sin", "sin(a+b): the add delegated to cuda:0, sin on CPU (test 18)",
      spec(method({"a", "b"}, {"d"}, {"a", "b", "c", "d"},
                  Json::array({addDelegate("a", "b", "c", cuda0), cpuOp("aten::sin.out", "c", "d")}))));
  add("skip_h2d", "a+b on cuda:0 with skip_h2d_for_method_inputs (test 19)",
      spec(addTwo(cuda0), Json{{"skip_h2d_for_method_inputs", true}}));
  add("skip_d2h", "a+b on cuda:0 with skip_d2h_for_method_outputs (test 20)",
      spec(addTwo(cuda0), Json{{"skip_d2h_for_method_outputs", true}}));
  add("skip_both", "a+b on cuda:0 with both skip options, graph IO planned (tests 21, 24)",
      spec(addTwo(cuda0), Json{{"skip_h2d_for_method_inputs", true}, {"skip_d2h_for_method_outputs", true}}));
  add("skip_both_unplanned_io",
      "a+b on cuda:0 with both skips and alloc_graph_input/output off: the documented working pairing (test 24)",
      spec(addTwo(cuda0), Json{{"skip_h2d_for_method_inputs", true},
                               {"skip_d2h_for_method_outputs", true},
                               {"alloc_graph_input", false},
                               {"alloc_graph_output", false}}));
  add("skip_h2d_partial", "sin(a) on CPU, then (sin(a))+b on cuda:0, with skip_h2d_for_method_inputs (test 22)",
      spec(method({"a", "b"}, {"y"}, {"a", "b", "c", "y"},
                  Json::array({cpuOp("aten::sin.out", "a", "c"), addDelegate("c", "b", "y", cuda0)})),
           Json{{"skip_h2d_for_method_inputs", true}}));
  return list;
}

}  // namespace

const std::vector<Scenario>& scenarios() {
  static const std::vector<Scenario> list = makeScenarios();
  return list;
}

const Scenario* findScenario(std::string_view name) {
  return findByName(scenarios(), name);
}

Result<SynthesizedProgram> synthesizeScenario(std::string_view name) {
  const Scenario* scenario = findScenario(name);
  if (!scenario) {
    std::string known;
    for (const auto& s : scenarios()) known += (known.empty() ? "" : ", ") + s.name;
    return makeError("unknown scenario '" + std::string(name) + "' (known: " + known + ")");
  }
  auto result = synthesizeFromSpec(scenario->spec_json);
  if (!result) return makeError("scenario '" + scenario->name + "': " + result.error().message);
  return result;
}

std::string_view demoSpecJson() { return kDemoSpecJson; }

Result<SynthesizedProgram> synthesizeDemo() {
  auto result = synthesizeFromSpec(demoSpecJson());
  if (!result) return makeError("the embedded demo spec: " + result.error().message);
  return result;
}

Result<program::Program> largeProgram(size_t layers) {
  using program::ScalarType;
  if (layers < 1 || layers > kLargeProgramMaxLayers)
    return makeError("the large program needs 1 to " + std::to_string(kLargeProgramMaxLayers) + " layers, not " +
                     std::to_string(layers) + " (larger ones would pass the flatbuffer verifier's table limit once the "
                     "device passes add their copies)");
  constexpr int32_t kSeq = 8;
  constexpr int32_t kHidden = 32;
  constexpr int32_t kMlp = 4 * kHidden;
  const std::vector<int32_t> hiddenShape{1, kSeq, kHidden};
  const std::vector<int32_t> statShape{1, kSeq, 1};
  const std::vector<int32_t> mlpShape{1, kSeq, kMlp};

  ProgramBuilder builder;
  MethodBuilder& m = builder.addMethod("forward");
  auto tensor = [&](const std::vector<int32_t>& shape) { return m.addTensor(ScalarType::Float, shape); };
  auto constant = [&](double value) {
    auto data = encodeElements(ScalarType::Float, std::vector<double>(kHidden, value));
    return m.addConstant(ScalarType::Float, {kHidden}, std::move(data.value()));
  };
  // Scalars every layer shares.
  const ValueId alpha = m.addInt(1);
  const ValueId eps = m.addDouble(1e-5);
  const ValueId normalizedShape = m.addIntList({kHidden});
  // One AOTI payload per delegate kind, laid out as upstream's AOTI backend
  // writes it: a stand-in shared object in the program's named data, a
  // stand-in weights blob in aoti_cuda_blob.ptd, keyed by their sha256; the
  // processed bytes name both keys. Sharing them keeps the files small; the
  // delegate entries stay one per call.
  std::map<std::string, std::vector<uint8_t>, std::less<>> payloads;
  auto payload = [&](std::string_view kind) -> const std::vector<uint8_t>& {
    auto found = payloads.find(kind);
    if (found != payloads.end()) return found->second;
    const std::string so = "ptescope synthetic AOTI shared object: forward " + std::string(kind);
    const std::string weights = "ptescope synthetic AOTI weights: forward " + std::string(kind);
    auto bytes = builder.addAotiPayload(std::vector<uint8_t>(so.begin(), so.end()),
                                        std::vector<uint8_t>(weights.begin(), weights.end()));
    return payloads.emplace(std::string(kind), std::move(bytes)).first->second;
  };
  auto delegate = [&](std::string_view kind, const std::vector<ValueId>& in, const std::vector<ValueId>& out) {
    m.addDelegateCall("CudaBackend", aotiCompileSpecs("forward", "cuda:0"), payload(kind), in, out);
  };

  const ValueId input = tensor(hiddenShape);
  ValueId h = input;
  for (size_t layer = 0; layer < layers; ++layer) {
    const ValueId ln1Weight = constant(1.0), ln1Bias = constant(0.0);
    const ValueId ln2Weight = constant(1.0), ln2Bias = constant(0.0);
    const ValueId layerScale = constant(0.5);

    const ValueId ln1 = tensor(hiddenShape), mean1 = tensor(statShape), rstd1 = tensor(statShape);
    m.addKernelCall("aten::native_layer_norm.out", {h, normalizedShape, ln1Weight, ln1Bias, eps}, {ln1, mean1, rstd1});
    const ValueId attn = tensor(hiddenShape);
    delegate("attention", {ln1}, {attn});
    const ValueId h1 = tensor(hiddenShape);
    m.addKernelCall("aten::add.out", {h, attn, alpha}, {h1});
    const ValueId ln2 = tensor(hiddenShape), mean2 = tensor(statShape), rstd2 = tensor(statShape);
    m.addKernelCall("aten::native_layer_norm.out", {h1, normalizedShape, ln2Weight, ln2Bias, eps}, {ln2, mean2, rstd2});
    const ValueId gate = tensor(mlpShape), up = tensor(mlpShape);
    delegate("mlp_gate_up", {ln2}, {gate, up});
    // silu(gate) as its decomposition gate * sigmoid(gate): the portable
    // kernel library has no silu.out.
    const ValueId sig = tensor(mlpShape);
    m.addKernelCall("aten::sigmoid.out", {gate}, {sig});
    const ValueId act = tensor(mlpShape);
    m.addKernelCall("aten::mul.out", {gate, sig}, {act});
    const ValueId gated = tensor(mlpShape);
    m.addKernelCall("aten::mul.out", {act, up}, {gated});
    const ValueId down = tensor(hiddenShape);
    delegate("mlp_down", {gated}, {down});
    const ValueId h2 = tensor(hiddenShape);
    m.addKernelCall("aten::add.out", {h1, down, alpha}, {h2});
    const ValueId next = tensor(hiddenShape);
    m.addKernelCall("aten::mul.out", {h2, layerScale}, {next});
    h = next;
  }
  m.setInputs({input});
  m.setOutputs({h});
  return builder.build();
}

}  // namespace ptescope::synth
