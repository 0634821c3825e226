#include "synth/Shapes.h"

#include <algorithm>
#include <set>

#include "synth/ProgramBuilder.h"
#include "util/FindByName.h"

namespace ptescope::synth {

namespace {

using program::ScalarType;

// Small tensors keep the files small; the graph is what matters here.
constexpr int32_t kSeq = 4;        // tokens per call
constexpr int32_t kHidden = 64;    // model width
constexpr int32_t kHeads = 4;
constexpr int32_t kHeadDim = kHidden / kHeads;
constexpr int32_t kMaxSeq = 32;    // KV-cache length
constexpr int32_t kVocab = 64;
constexpr int32_t kExperts = 8;

// Every builder below shares these helpers: one method "forward", scalars
// created once and reused by every call (the values table stays small),
// one CudaBackend blob per delegate kind.
class ShapeBuilder {
 public:
  ShapeBuilder() : m_(builder_.addMethod("forward")) {
    one_ = m_.addInt(1);
    minusOne_ = m_.addInt(-1);
    no_ = m_.addBool(false);
    yes_ = m_.addBool(true);
    none_ = m_.addNull();
    two_ = m_.addDouble(2.0);
    eps_ = m_.addDouble(1e-5);
    lastDim_ = m_.addIntList({-1});
  }

  MethodBuilder& m() { return m_; }
  ProgramBuilder& builder() { return builder_; }

  ValueId tensor(std::vector<int32_t> sizes, ScalarType dtype = ScalarType::Float) {
    return m_.addTensor(dtype, std::move(sizes));
  }
  ValueId constant(std::vector<int32_t> sizes, double value) {
    int64_t count = 1;
    for (int32_t s : sizes) count *= s;
    auto data = encodeElements(ScalarType::Float, std::vector<double>(size_t(count), value));
    return m_.addConstant(ScalarType::Float, std::move(sizes), std::move(data.value()));
  }
  ValueId op(std::string_view name, const std::vector<ValueId>& args, std::vector<int32_t> outSizes,
             ScalarType dtype = ScalarType::Float) {
    const ValueId out = tensor(std::move(outSizes), dtype);
    m_.addKernelCall(name, args, {out});
    return out;
  }

  // x * rsqrt(mean(x^2, -1, keepdim) + eps) * weight: six portable kernels.
  ValueId rmsNorm(ValueId x, const std::vector<int32_t>& shape) {
    std::vector<int32_t> stat = shape;
    stat.back() = 1;
    const ValueId square = op("aten::pow.Tensor_Scalar_out", {x, two_}, shape);
    const ValueId mean = op("aten::mean.out", {square, lastDim_, yes_, none_}, stat);
    const ValueId shifted = op("aten::add.Scalar_out", {mean, eps_, one_}, stat);
    const ValueId scale = op("aten::rsqrt.out", {shifted}, stat);
    const ValueId normed = op("aten::mul.out", {x, scale}, shape);
    return op("aten::mul.out", {normed, constant({shape.back()}, 1.0)}, shape);
  }
  ValueId add(ValueId a, ValueId b, const std::vector<int32_t>& shape) {
    return op("aten::add.out", {a, b, one_}, shape);
  }

  // A CudaBackend call; the blob is "<so_key>\n<weights_key>" of its kind.
  std::vector<ValueId> delegate(std::string_view kind, const std::string& device, const std::vector<ValueId>& inputs,
                                const std::vector<std::vector<int32_t>>& outputShapes) {
    std::vector<ValueId> outputs;
    for (const auto& shape : outputShapes) outputs.push_back(tensor(shape));
    const std::string text = "forward_" + std::string(kind) + "_so_blob\nforward_" + std::string(kind) + "_weights_blob";
    kinds_.insert(std::string(kind));
    m_.addDelegateCall("CudaBackend",
                       {textCompileSpec("target_device", device), textCompileSpec("method_name", "forward")},
                       std::vector<uint8_t>(text.begin(), text.end()), inputs, outputs);
    return outputs;
  }

  ValueId one_, minusOne_, no_, yes_, none_, two_, eps_, lastDim_;
  const std::set<std::string>& delegateKinds() const { return kinds_; }

 private:
  std::set<std::string> kinds_;
  ProgramBuilder builder_;
  MethodBuilder& m_;
};

const std::vector<int32_t> kHiddenShape{1, kSeq, kHidden};

// The values every decoder layer reads: the rotary tables' and the causal
// mask's rows for the current positions (embedding.out picks rows by
// input_pos), and the embedded tokens.
struct DecoderInputs {
  ValueId tokens, inputPos, hidden, cos, sin, mask;
};

DecoderInputs decoderPrologue(ShapeBuilder& b) {
  DecoderInputs in;
  in.tokens = b.tensor({1, kSeq}, ScalarType::Long);
  in.inputPos = b.tensor({kSeq}, ScalarType::Long);
  auto rows = [&](ValueId table, ValueId indices, std::vector<int32_t> shape) {
    return b.op("aten::embedding.out", {table, indices, b.minusOne_, b.no_, b.no_}, std::move(shape));
  };
  in.hidden = rows(b.constant({kVocab, kHidden}, 0.01), in.tokens, kHiddenShape);
  in.cos = rows(b.constant({kMaxSeq, kHeadDim}, 1.0), in.inputPos, {kSeq, kHeadDim});
  in.sin = rows(b.constant({kMaxSeq, kHeadDim}, 0.0), in.inputPos, {kSeq, kHeadDim});
  in.mask = rows(b.constant({kMaxSeq, kMaxSeq}, 0.0), in.inputPos, {kSeq, kMaxSeq});
  b.m().setInputs({in.tokens, in.inputPos});
  return in;
}

// Final norm and the LM head on the GPU; the logits are the output.
void decoderEpilogue(ShapeBuilder& b, ValueId h) {
  const ValueId x = b.rmsNorm(h, kHiddenShape);
  const ValueId logits = b.delegate("lm_head", "cuda:0", {x}, {{1, kSeq, kVocab}}).front();
  b.m().setOutputs({logits});
}

struct CacheIndexFix {
  ValueId list;
  ValueId position;
};

Result<program::Program> finish(ShapeBuilder& b, const std::vector<CacheIndexFix>& optionalLists,
                                const std::vector<std::pair<ValueId, std::string>>& names) {
  auto built = b.builder().build();
  if (!built) return built;
  // CudaBackend resolves its blob's two keys in the named data at load: a
  // small stand-in payload per key, in a segment of its own.
  auto& segments = program::ensure(built->segments);
  auto& named = program::ensure(built->named_data);
  for (const auto& kind : b.delegateKinds()) {
    for (const char* part : {"_so_blob", "_weights_blob"}) {
      const std::string key = "forward_" + kind + part;
      const std::string text = "ptescope synthetic stand-in for " + key;
      named.push_back(program::NamedData{key, uint32_t(segments.size())});
      segments.push_back(program::Segment{Bytes::fromVector(std::vector<uint8_t>(text.begin(), text.end())), 0});
    }
  }
  auto& values = program::ensure(built->methods().front().values);
  // index_put's indices are Tensor?[]: upstream emits an OptionalTensorList.
  for (const auto& fix : optionalLists)
    values[size_t(fix.list)].data = program::OptionalTensorListValue{std::vector<int32_t>{fix.position}};
  // Mutable buffers keep their module path, as with emit_mutable_buffer_names.
  for (const auto& [value, name] : names) {
    auto* tensor = values[size_t(value)].tensor();
    if (!tensor->extra_tensor_info) tensor->extra_tensor_info.emplace();
    tensor->extra_tensor_info->fully_qualified_name = name;
  }
  return built;
}

Result<program::Program> llmProgram(size_t layers) {
  ShapeBuilder b;
  const DecoderInputs in = decoderPrologue(b);
  const std::vector<int32_t> cacheShape{kMaxSeq, kHeads, kHeadDim};
  const std::vector<int32_t> stepShape{kSeq, kHeads, kHeadDim};
  std::vector<CacheIndexFix> lists;
  std::vector<std::pair<ValueId, std::string>> names;
  ValueId h = in.hidden;
  for (size_t layer = 0; layer < layers; ++layer) {
    const std::string prefix = "layers." + std::to_string(layer) + ".attention.kv_cache.";
    const ValueId x = b.rmsNorm(h, kHiddenShape);
    auto qkv = b.delegate("qkv_rope", "cuda:0", {x, in.cos, in.sin}, {{1, kHeads, kSeq, kHeadDim}, stepShape, stepShape});
    // The caches: planned, no initial data, updated in place at input_pos.
    std::vector<ValueId> caches;
    for (size_t c = 0; c < 2; ++c) {
      const ValueId cache = b.tensor(cacheShape);
      const ValueId indices = b.m().addTensorList({in.inputPos});
      lists.push_back({indices, in.inputPos});
      names.emplace_back(cache, prefix + (c == 0 ? "k_cache" : "v_cache"));
      b.m().addKernelCall("aten::index_put.out", {cache, indices, qkv[1 + c], b.no_}, {cache});
      caches.push_back(cache);
    }
    const ValueId attn = b.delegate("attention", "cuda:0", {qkv[0], caches[0], caches[1], in.mask}, {kHiddenShape}).front();
    const ValueId h1 = b.add(h, attn, kHiddenShape);
    const ValueId x2 = b.rmsNorm(h1, kHiddenShape);
    const ValueId mlp = b.delegate("mlp", "cuda:0", {x2}, {kHiddenShape}).front();
    h = b.add(h1, mlp, kHiddenShape);
  }
  decoderEpilogue(b, h);
  return finish(b, lists, names);
}

Result<program::Program> moeProgram(size_t layers) {
  ShapeBuilder b;
  const DecoderInputs in = decoderPrologue(b);
  const ValueId flatShape = b.m().addIntList({kSeq, kHidden});
  const ValueId hiddenShape = b.m().addIntList({1, kSeq, kHidden});
  ValueId h = in.hidden;
  for (size_t layer = 0; layer < layers; ++layer) {
    const ValueId x = b.rmsNorm(h, kHiddenShape);
    const ValueId attn = b.delegate("attention", "cuda:0", {x, in.cos, in.sin, in.mask}, {kHiddenShape}).front();
    const ValueId h1 = b.add(h, attn, kHiddenShape);
    const ValueId x2 = b.rmsNorm(h1, kHiddenShape);
    // The router on the CPU: token-wise logits over the experts.
    const ValueId flat = b.op("aten::view_copy.out", {x2, flatShape}, {kSeq, kHidden});
    const ValueId logits = b.op("aten::mm.out", {flat, b.constant({kHidden, kExperts}, 0.01)}, {kSeq, kExperts});
    const ValueId probs = b.op("aten::_softmax.out", {logits, b.minusOne_, b.no_}, {kSeq, kExperts});
    ValueId sum = -1;
    for (int32_t e = 0; e < kExperts; ++e) {
      const ValueId y =
          b.delegate("expert_" + std::to_string(e), "cuda:0", {flat, probs}, {{kSeq, kHidden}}).front();
      sum = sum < 0 ? y : b.add(sum, y, {kSeq, kHidden});
    }
    const ValueId moe = b.op("aten::view_copy.out", {sum, hiddenShape}, kHiddenShape);
    h = b.add(h1, moe, kHiddenShape);
  }
  decoderEpilogue(b, h);
  return finish(b, {}, {});
}

Result<program::Program> pipelineProgram(size_t layers) {
  ShapeBuilder b;
  const DecoderInputs in = decoderPrologue(b);
  constexpr size_t kStages = 4;
  ValueId h = in.hidden;
  for (size_t layer = 0; layer < layers; ++layer) {
    const std::string device = "cuda:" + std::to_string(std::min(kStages - 1, layer * kStages / layers));
    const ValueId x = b.rmsNorm(h, kHiddenShape);
    const ValueId attn = b.delegate("attention", device, {x, in.cos, in.sin, in.mask}, {kHiddenShape}).front();
    const ValueId mlp = b.delegate("mlp", device, {attn}, {kHiddenShape}).front();
    h = b.add(h, mlp, kHiddenShape);
  }
  decoderEpilogue(b, h);
  return finish(b, {}, {});
}

Result<program::Program> fanoutProgram(size_t layers) {
  ShapeBuilder b;
  const std::vector<int32_t> shape{1, kHidden};
  const ValueId input = b.tensor(shape);
  ValueId h = input;
  for (size_t layer = 0; layer < layers; ++layer) {
    const ValueId t1 = b.add(h, input, shape);
    const ValueId t2 = b.op("aten::sigmoid.out", {t1}, shape);
    const ValueId t3 = b.op("aten::mul.out", {t2, input}, shape);
    h = b.op("aten::neg.out", {t3}, shape);
  }
  b.m().setInputs({input});
  b.m().setOutputs({h});
  return finish(b, {}, {});
}

std::vector<ProgramShape> makeShapes() {
  return {
      {"llm",
       "decoder layers: RMS norms on the CPU, q/k/v+rope, attention and MLP delegates on cuda:0, K/V caches "
       "written in place by index_put; mask, rope cos/sin and input_pos read by every layer",
       19, 30, 2200},
      {"moe", "per layer attention on cuda:0, a CPU router (view, mm, softmax) and 8 expert delegates side by side", 34,
       63, 1100},
      {"pipeline",
       "layers in four stages on cuda:0..cuda:3 (attention + MLP delegates), RMS norm and residual on the CPU: "
       "each stage boundary hops device to device through the CPU",
       9, 14, 5000},
      {"fanout", "CPU only: one method input read by every second instruction (add, sigmoid, mul, neg repeated)", 4, 4,
       20000},
  };
}

}  // namespace

const std::vector<ProgramShape>& programShapes() {
  static const std::vector<ProgramShape> shapes = makeShapes();
  return shapes;
}

const ProgramShape* findProgramShape(std::string_view name) {
  return findByName(programShapes(), name);
}

namespace {
Result<const ProgramShape*> knownShape(std::string_view name) {
  if (const auto* shape = findProgramShape(name)) return shape;
  std::string known;
  for (const auto& s : programShapes()) known += (known.empty() ? "" : ", ") + s.name;
  return makeError("unknown program shape '" + std::string(name) + "' (known: " + known + ")");
}
}  // namespace

Result<program::Program> shapeProgram(std::string_view name, size_t layers) {
  auto shape = knownShape(name);
  if (!shape) return shape.error();
  const ProgramShape& s = *shape.value();
  if (layers < 1 || layers > s.max_layers)
    return makeError("the " + s.name + " program needs 1 to " + std::to_string(s.max_layers) + " layers, not " +
                     std::to_string(layers) + " (larger ones would pass the flatbuffer verifier's table limit once the "
                     "device passes add their copies)");
  if (s.name == "llm") return llmProgram(layers);
  if (s.name == "moe") return moeProgram(layers);
  if (s.name == "pipeline") return pipelineProgram(layers);
  return fanoutProgram(layers);
}

Result<size_t> layersForInstructions(std::string_view name, size_t instructions) {
  auto shape = knownShape(name);
  if (!shape) return shape.error();
  const size_t perLayer = shape.value()->instructions_per_layer_with_copies;
  return std::clamp<size_t>((instructions + perLayer / 2) / perLayer, 1, shape.value()->max_layers);
}

}  // namespace ptescope::synth
