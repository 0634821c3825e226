#include "synth/JsonSpec.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <vector>

#include "program/DelegatePayload.h"
#include "program/TensorRTBlob.h"
#include "program/Text.h"
#include "synth/ProgramBuilder.h"
#include "util/HostMemory.h"

namespace ptescope::synth {
using namespace ptescope::program;

namespace {

// Keeps the spec's key order, so values are numbered as the spec lists them.
using Json = nlohmann::ordered_json;

// Thrown inside this file only, to unwind out of the nested parsing with one
// message; synthesizeFromSpec turns it into an Error.
struct SpecError {
  std::string message;
};

[[noreturn]] void fail(const std::string& path, const std::string& message) { throw SpecError{path + ": " + message}; }

bool isIdentifier(std::string_view key) {
  if (key.empty() || std::isdigit(static_cast<unsigned char>(key.front()))) return false;
  for (char c : key)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

std::string member(const std::string& path, std::string_view key) {
  if (isIdentifier(key)) return path.empty() ? std::string(key) : path + "." + std::string(key);
  return path + "[" + Json(std::string(key)).dump() + "]";
}

std::string element(const std::string& path, size_t index) { return path + "[" + std::to_string(index) + "]"; }

std::string inQuotes(std::string_view name) { return "'" + std::string(name) + "'"; }

std::string typeName(const Json& value) {
  if (value.is_number_integer()) return "an integer";
  if (value.is_number()) return "a number";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_null()) return "null";
  if (value.is_array()) return "an array";
  return "an object";
}

void requireObject(const Json& value, const std::string& path, const std::string& what) {
  if (!value.is_object()) fail(path, "expected " + what + " (a JSON object), found " + typeName(value));
}

void requireArray(const Json& value, const std::string& path, const std::string& what) {
  if (!value.is_array()) fail(path, "expected " + what + " (a JSON array), found " + typeName(value));
}

std::string requireString(const Json& value, const std::string& path, const std::string& what) {
  if (!value.is_string()) fail(path, "expected " + what + " (a string), found " + typeName(value));
  return value.get<std::string>();
}

const Json& requireField(const Json& object, const std::string& path, const char* key) {
  auto found = object.find(key);
  if (found == object.end()) fail(path, std::string("missing field '") + key + "'");
  return *found;
}

// Rejects fields this format does not know, except notes ("comment",
// "description", anything starting with "_").
void checkFields(const Json& object, const std::string& path, std::initializer_list<const char*> known) {
  for (const auto& [key, value] : object.items()) {
    if (key == "comment" || key == "description" || (!key.empty() && key.front() == '_')) continue;
    bool ok = false;
    std::string list;
    for (const char* k : known) {
      ok = ok || key == k;
      list += (list.empty() ? "" : ", ") + std::string(k);
    }
    if (!ok) fail(member(path, key), "unknown field (expected one of: " + list + ")");
  }
}

std::vector<uint8_t> parseBytes(const Json& value, const std::string& path, const std::string& what) {
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    return {text.begin(), text.end()};
  }
  if (value.is_array()) {
    std::vector<uint8_t> bytes;
    for (size_t i = 0; i < value.size(); ++i) {
      const Json& b = value[i];
      if (!b.is_number_integer() || b.get<int64_t>() < 0 || b.get<int64_t>() > 255)
        fail(element(path, i), "expected a byte value 0..255, found " + b.dump());
      bytes.push_back(static_cast<uint8_t>(b.get<int64_t>()));
    }
    return bytes;
  }
  fail(path, "expected " + what + " as a string or an array of byte values, found " + typeName(value));
}

// The constant data a spec may ask for, charged constant by constant before
// each one is allocated.
class ConstantBudget {
 public:
  explicit ConstantBudget(const SpecLimits& limits) {
    if (limits.max_constant_bytes != 0) {
      limit_ = limits.max_constant_bytes;
      limitText_ = "the limit of " + bytesText(int64_t(limit_)) + " (--max-constants)";
      return;
    }
    const uint64_t available = hostAvailableMemoryBytes();
    if (available == 0) {
      limit_ = kUnknownMemoryLimit;
      limitText_ = "the default limit of " + bytesText(int64_t(limit_)) +
                   " (the available memory is unknown; --max-constants SIZE sets another)";
      return;
    }
    limit_ = available / 4;
    limitText_ = "a quarter of the " + bytesText(int64_t(available)) +
                 " of memory available (MemAvailable in /proc/meminfo), which building and writing the program "
                 "needs about three times over; --max-constants SIZE sets another limit";
  }

  void charge(const Tensor& constant, const std::string& path) {
    const auto bytes = static_cast<uint64_t>(constant.nbytes());
    if (bytes <= limit_ && used_ <= limit_ - bytes) {
      used_ += bytes;
      return;
    }
    fail(path, tensorTypeText(constant) + " is " + bytesText(int64_t(bytes)) + " of constant data, " +
                   (used_ == 0 ? std::string() : "which with the " + bytesText(int64_t(used_)) + " before it is ") +
                   "more than " + limitText_);
  }

 private:
  static constexpr uint64_t kUnknownMemoryLimit = uint64_t(1) << 30;
  uint64_t limit_ = 0;
  uint64_t used_ = 0;
  std::string limitText_;
};

// A tensor or constant declared in "tensors" / "constants".
struct Declaration {
  std::string name;
  std::string path;
  ScalarType dtype = ScalarType::Float;
  std::vector<int32_t> sizes;
  ShapeDynamism dynamism = ShapeDynamism::Static;
  bool is_constant = false;
  std::vector<uint8_t> data;
  std::string view_of;  // a view (section "views"): its base's name
  std::vector<uint8_t> dim_order;  // "dim_order": empty is contiguous
};

ScalarType parseDtype(const Json& value, const std::string& path) {
  const std::string text = requireString(value, path, "a dtype");
  auto dtype = parseScalarType(text);
  if (!dtype)
    fail(path, "unknown dtype " + inQuotes(text) +
                   " (use one of float32, float16, bfloat16, float64, int64, int32, int16, int8, uint8, bool, ...)");
  return *dtype;
}

std::vector<int32_t> parseSizes(const Json& value, const std::string& path) {
  requireArray(value, path, "the sizes");
  if (value.size() > 16) fail(path, "rank " + std::to_string(value.size()) + " is above the runtime's limit of 16");
  std::vector<int32_t> sizes;
  for (size_t i = 0; i < value.size(); ++i) {
    const Json& s = value[i];
    if (!s.is_number_integer() || s.get<int64_t>() < 0 || s.get<int64_t>() > INT32_MAX)
      fail(element(path, i), "a size must be an integer from 0 to 2147483647, found " + s.dump());
    sizes.push_back(static_cast<int32_t>(s.get<int64_t>()));
  }
  return sizes;
}

Declaration parseDeclaration(const std::string& name, const Json& value, const std::string& path, bool constant,
                             ConstantBudget& budget) {
  requireObject(value, path, constant ? "a constant" : "a tensor");
  if (constant)
    checkFields(value, path, {"dtype", "sizes", "fill", "data"});
  else
    checkFields(value, path, {"dtype", "sizes", "dynamism", "dim_order"});
  Declaration d;
  d.name = name;
  d.path = path;
  d.is_constant = constant;
  d.dtype = parseDtype(requireField(value, path, "dtype"), member(path, "dtype"));
  d.sizes = parseSizes(requireField(value, path, "sizes"), member(path, "sizes"));
  Tensor probe;
  probe.scalar_type = d.dtype;
  probe.sizes = d.sizes;
  const int64_t nbytes = probe.nbytes();
  if (nbytes < 0) fail(member(path, "sizes"), "the tensor's byte size overflows");
  if (!constant) {
    if (auto dyn = value.find("dynamism"); dyn != value.end()) {
      const std::string text = requireString(*dyn, member(path, "dynamism"), "a dynamism");
      if (text == "static") d.dynamism = ShapeDynamism::Static;
      else if (text == "dynamic_bound") d.dynamism = ShapeDynamism::DynamicBound;
      else if (text == "dynamic_unbound") d.dynamism = ShapeDynamism::DynamicUnbound;
      else fail(member(path, "dynamism"), "unknown dynamism " + inQuotes(text) + " (use static, dynamic_bound or dynamic_unbound)");
    }
    if (auto order = value.find("dim_order"); order != value.end()) {
      // The memory order of the dimensions, outermost first ([0, 2, 3, 1]: channels last): a permutation of 0..rank-1.
      const std::string at = member(path, "dim_order");
      if (!order->is_array() || order->size() != d.sizes.size())
        fail(at, "expected a list of " + std::to_string(d.sizes.size()) + " dimensions (the tensor's rank)");
      std::vector<bool> seen(d.sizes.size(), false);
      for (size_t i = 0; i < order->size(); ++i) {
        const Json& item = (*order)[i];
        if (!item.is_number_integer() || item.get<int64_t>() < 0 || item.get<int64_t>() >= int64_t(d.sizes.size()) ||
            seen[size_t(item.get<int64_t>())])
          fail(element(at, i), "expected each dimension 0.." + std::to_string(int64_t(d.sizes.size()) - 1) + " once");
        seen[size_t(item.get<int64_t>())] = true;
        d.dim_order.push_back(uint8_t(item.get<int64_t>()));
      }
    }
    return d;
  }
  const bool hasFill = value.contains("fill");
  const bool hasData = value.contains("data");
  if (hasFill == hasData) fail(path, "a constant needs exactly one of 'fill' or 'data'");
  budget.charge(probe, path);
  const auto numel = static_cast<size_t>(probe.numel());
  auto number = [](const Json& v, const std::string& at) {
    if (v.is_boolean()) return v.get<bool>() ? 1.0 : 0.0;
    if (!v.is_number()) fail(at, "expected a number or a boolean, found " + typeName(v));
    return v.get<double>();
  };
  if (hasFill) {
    // One element encoded, then repeated: no array of doubles as long as the tensor.
    auto one = encodeElements(d.dtype, {number(value["fill"], member(path, "fill"))});
    if (!one) fail(member(path, "fill"), one.error().message);
    d.data.reserve(one->size() * numel);
    for (size_t i = 0; i < numel; ++i) d.data.insert(d.data.end(), one->begin(), one->end());
    return d;
  }
  const Json& data = value["data"];
  const std::string at = member(path, "data");
  requireArray(data, at, "the constant's elements");
  if (data.size() != numel)
    fail(at, std::to_string(data.size()) + " elements given for a tensor of " + std::to_string(numel) + " elements");
  std::vector<double> elements;
  for (size_t i = 0; i < data.size(); ++i) elements.push_back(number(data[i], element(at, i)));
  auto bytes = encodeElements(d.dtype, elements);
  if (!bytes) fail(at, bytes.error().message);
  d.data = std::move(bytes.value());
  return d;
}

bool& optionRef(MethodPassOptions& options, const std::string& key) {
  if (key == "enable_non_cpu_memory_planning") return options.enable_non_cpu_memory_planning;
  if (key == "skip_h2d_for_method_inputs") return options.skip_h2d_for_method_inputs;
  if (key == "skip_d2h_for_method_outputs") return options.skip_d2h_for_method_outputs;
  if (key == "alloc_graph_input") return options.alloc_graph_input;
  return options.alloc_graph_output;
}

SpecOptions parseOptions(const Json* value, const std::vector<std::string>& methodNames) {
  SpecOptions options;
  for (const auto& name : methodNames) options.per_method[name] = MethodPassOptions{};
  if (!value) return options;
  const std::string path = "options";
  requireObject(*value, path, "the pass options");
  checkFields(*value, path,
              {"enable_non_cpu_memory_planning", "skip_h2d_for_method_inputs", "skip_d2h_for_method_outputs",
               "alloc_graph_input", "alloc_graph_output"});
  for (const auto& [key, setting] : value->items()) {
    if (key == "comment" || key == "description" || (!key.empty() && key.front() == '_')) continue;
    const std::string at = member(path, key);
    if (setting.is_boolean()) {
      for (auto& [name, perMethod] : options.per_method) optionRef(perMethod, key) = setting.get<bool>();
    } else if (setting.is_object()) {
      for (const auto& [method, flag] : setting.items()) {
        auto found = options.per_method.find(method);
        if (found == options.per_method.end()) fail(member(at, method), "the spec has no method " + inQuotes(method));
        if (!flag.is_boolean()) fail(member(at, method), "expected true or false, found " + typeName(flag));
        optionRef(found->second, key) = flag.get<bool>();
      }
    } else {
      fail(at, "expected true/false or an object keyed by method name, found " + typeName(setting));
    }
  }
  return options;
}

// One method of the spec, checked and then built.
class MethodSpec {
 public:
  MethodSpec(const Json& json, std::string path, ConstantBudget& budget)
      : json_(json), path_(std::move(path)), budget_(&budget) {}

  std::string parseName() {
    requireObject(json_, path_, "a method");
    checkFields(json_, path_, {"name", "inputs", "outputs", "tensors", "constants", "views", "nodes"});
    name_ = requireString(requireField(json_, path_, "name"), member(path_, "name"), "the method name");
    if (name_.empty()) fail(member(path_, "name"), "the method name is empty");
    return name_;
  }

  void build(MethodBuilder& builder, ProgramBuilder& program) {
    parseDeclarations();
    parseInputs();
    collectWriters();
    checkReads();
    parseOutputs();
    emit(builder, program);
  }

 private:
  struct NodeSpec {
    std::string path;
    bool is_delegate = false;
    std::string target;  // op name or backend id
    std::vector<CompileSpecEntry> compile_specs;
    std::vector<uint8_t> blob;
    bool aoti = false;  // an AOTI payload: so + weights named data, keys as the blob
    std::vector<uint8_t> aoti_so, aoti_weights;
    bool aoti_weights_in_program = false;
    bool tensorrt = false;  // a TensorRT blob: header, metadata, engine (program/TensorRTBlob.h)
    program::TensorRTBlob tensorrt_blob;
    std::vector<uint8_t> tensorrt_engine;
    std::vector<std::pair<const Json*, std::string>> arguments;  // inputs then args, with their paths
    std::vector<std::string> outputs;
    // "outputs": [["a", "b"]]: one tensor-list out (split_copy's Tensor[] out) of these tensors.
    bool outputs_as_list = false;
    std::vector<size_t> reads_from;  // nodes whose outputs this node reads
  };

  void parseDeclarations() {
    for (const char* section : {"tensors", "constants"}) {
      auto found = json_.find(section);
      if (found == json_.end()) continue;
      const std::string at = member(path_, section);
      const bool constant = std::string(section) == "constants";
      requireObject(*found, at, constant ? "the constants by name" : "the tensors by name");
      for (const auto& [name, value] : found->items()) {
        const std::string declPath = member(at, name);
        if (name.empty()) fail(declPath, "a tensor name is empty");
        if (auto previous = index_.find(name); previous != index_.end())
          fail(declPath, inQuotes(name) + " is already declared at " + declarations_[previous->second].path);
        index_[name] = declarations_.size();
        declarations_.push_back(parseDeclaration(name, value, declPath, constant, *budget_));
      }
    }
    parseViews();
  }

  // "views": {"v": {"of": "t", "sizes": [4]}}: an elided static view of a
  // tensor (ProgramBuilder::addView), with its base's dtype and byte size.
  void parseViews() {
    auto found = json_.find("views");
    if (found == json_.end()) return;
    const std::string at = member(path_, "views");
    requireObject(*found, at, "the views by name");
    for (const auto& [name, value] : found->items()) {
      const std::string p = member(at, name);
      if (name.empty()) fail(p, "a view name is empty");
      if (auto previous = index_.find(name); previous != index_.end())
        fail(p, inQuotes(name) + " is already declared at " + declarations_[previous->second].path);
      requireObject(value, p, "a view");
      checkFields(value, p, {"of", "sizes"});
      const std::string basePath = member(p, "of");
      const Declaration& base = lookup(requireField(value, p, "of"), basePath);
      if (base.is_constant || !base.view_of.empty())
        fail(basePath, inQuotes(base.name) + " is a " + (base.is_constant ? "constant" : "view") +
                           "; a view's base is a tensor of 'tensors'");
      if (base.dynamism != ShapeDynamism::Static)
        fail(basePath, inQuotes(base.name) + " is not static (upstream elides only static views)");
      Declaration d;
      d.name = name;
      d.path = p;
      d.dtype = base.dtype;
      d.view_of = base.name;
      d.sizes = parseSizes(requireField(value, p, "sizes"), member(p, "sizes"));
      Tensor view, of;
      view.scalar_type = of.scalar_type = base.dtype;
      view.sizes = d.sizes;
      of.sizes = base.sizes;
      if (view.nbytes() != of.nbytes())
        fail(member(p, "sizes"), tensorTypeText(view) + " is " + std::to_string(view.nbytes()) + " bytes, its base " +
                                     inQuotes(base.name) + " " + tensorTypeText(of) + " is " +
                                     std::to_string(of.nbytes()) + " (a view has its base's byte size)");
      index_[name] = declarations_.size();
      declarations_.push_back(std::move(d));
    }
  }

  // The tensor whose storage a name reads: a view's base, else itself.
  const std::string& storageOf(const std::string& name) const {
    const Declaration& d = declarations_[index_.at(name)];
    return d.view_of.empty() ? d.name : d.view_of;
  }

  const Declaration& lookup(const Json& nameJson, const std::string& path) {
    const std::string name = requireString(nameJson, path, "a tensor name");
    auto found = index_.find(name);
    if (found == index_.end()) fail(path, "unknown tensor " + inQuotes(name));
    return declarations_[found->second];
  }

  // Calls visit(declaration, path) for each tensor name in the array `field`
  // of the method.
  template <class Visit>
  void forEachListedTensor(const char* field, const char* what, Visit visit) {
    const std::string at = member(path_, field);
    const Json& list = requireField(json_, path_, field);
    requireArray(list, at, what);
    for (size_t i = 0; i < list.size(); ++i) {
      const std::string p = element(at, i);
      visit(lookup(list[i], p), p);
    }
  }

  void parseInputs() {
    forEachListedTensor("inputs", "the method inputs", [&](const Declaration& d, const std::string& p) {
      if (d.is_constant) fail(p, inQuotes(d.name) + " is a constant; method inputs come from 'tensors'");
      if (!d.view_of.empty()) fail(p, inQuotes(d.name) + " is a view; method inputs come from 'tensors'");
      if (!inputNames_.insert(d.name).second) fail(p, inQuotes(d.name) + " is listed twice");
      inputs_.push_back(d.name);
    });
  }

  void collectWriters() {
    const std::string at = member(path_, "nodes");
    const Json& nodes = requireField(json_, path_, "nodes");
    requireArray(nodes, at, "the nodes");
    for (size_t j = 0; j < nodes.size(); ++j) {
      const Json& node = nodes[j];
      NodeSpec spec;
      spec.path = element(at, j);
      requireObject(node, spec.path, "a node");
      const bool hasOp = node.contains("op");
      spec.is_delegate = node.contains("delegate");
      if (hasOp && spec.is_delegate) fail(spec.path, "a node has either 'op' or 'delegate', not both");
      if (!hasOp && !spec.is_delegate) fail(spec.path, "missing field 'op' (a kernel call) or 'delegate' (a delegate call)");
      if (spec.is_delegate) {
        checkFields(node, spec.path, {"delegate", "compile_specs", "blob", "aoti", "tensorrt", "inputs", "args", "outputs"});
        spec.target = requireString(node["delegate"], member(spec.path, "delegate"), "a backend id");
        if (spec.target.empty()) fail(member(spec.path, "delegate"), "the backend id is empty");
        if (auto specs = node.find("compile_specs"); specs != node.end()) {
          const std::string sp = member(spec.path, "compile_specs");
          requireObject(*specs, sp, "the compile specs by key");
          for (const auto& [key, value] : specs->items())
            spec.compile_specs.push_back({key, parseBytes(value, member(sp, key), "a compile spec value")});
        }
        if (auto blob = node.find("blob"); blob != node.end())
          spec.blob = parseBytes(*blob, member(spec.path, "blob"), "the processed blob");
        if (auto aoti = node.find("aoti"); aoti != node.end()) {
          const std::string ap = member(spec.path, "aoti");
          if (node.contains("blob")) fail(ap, "a delegate has either 'blob' or 'aoti' (which makes the blob), not both");
          if (!program::isAotiBackend(spec.target))
            fail(ap, "an AOTI payload is for CudaBackend or MetalBackend, not " + inQuotes(spec.target));
          requireObject(*aoti, ap, "the AOTI payload");
          checkFields(*aoti, ap, {"so", "weights", "weights_in_program"});
          spec.aoti = true;
          spec.aoti_so = parseBytes(requireField(*aoti, ap, "so"), member(ap, "so"), "the shared object bytes");
          spec.aoti_weights = parseBytes(requireField(*aoti, ap, "weights"), member(ap, "weights"), "the weights bytes");
          if (auto inProgram = aoti->find("weights_in_program"); inProgram != aoti->end()) {
            if (!inProgram->is_boolean()) fail(member(ap, "weights_in_program"), "expected true or false");
            spec.aoti_weights_in_program = inProgram->get<bool>();
          }
        }
        if (auto trt = node.find("tensorrt"); trt != node.end()) {
          const std::string tp = member(spec.path, "tensorrt");
          if (node.contains("blob") || node.contains("aoti"))
            fail(tp, "a delegate has one of 'blob', 'aoti' and 'tensorrt' (which makes the blob)");
          if (!program::isTensorRTBackend(spec.target))
            fail(tp, "a TensorRT blob is for TensorRTBackend, not " + inQuotes(spec.target));
          requireObject(*trt, tp, "the TensorRT blob's fields");
          checkFields(*trt, tp,
                      {"engine", "device_id", "hardware_compatible", "aliased_io", "serialized_metadata", "target_platform"});
          spec.tensorrt = true;
          spec.tensorrt_engine = parseBytes(requireField(*trt, tp, "engine"), member(tp, "engine"), "the engine bytes");
          if (auto id = trt->find("device_id"); id != trt->end()) {
            if (!id->is_number_integer()) fail(member(tp, "device_id"), "expected an integer");
            spec.tensorrt_blob.device_id = id->get<int64_t>();
          }
          if (auto hw = trt->find("hardware_compatible"); hw != trt->end()) {
            if (!hw->is_boolean()) fail(member(tp, "hardware_compatible"), "expected true or false");
            spec.tensorrt_blob.hardware_compatible = hw->get<bool>();
          }
          for (const char* key : {"serialized_metadata", "target_platform"})
            if (auto text = trt->find(key); text != trt->end())
              (std::string(key) == "target_platform" ? spec.tensorrt_blob.target_platform
                                                     : spec.tensorrt_blob.serialized_metadata) =
                  requireString(*text, member(tp, key), "a string");
          if (auto aliased = trt->find("aliased_io"); aliased != trt->end()) {
            const std::string ap = member(tp, "aliased_io");
            requireArray(*aliased, ap, "the aliased outputs");
            for (size_t i = 0; i < aliased->size(); ++i) {
              const std::string p = element(ap, i);
              requireObject((*aliased)[i], p, "an alias");
              checkFields((*aliased)[i], p, {"output", "input", "kind"});
              program::TensorRTAlias alias;
              alias.output = requireString(requireField((*aliased)[i], p, "output"), member(p, "output"), "a node output");
              alias.input = requireString(requireField((*aliased)[i], p, "input"), member(p, "input"), "a node input");
              alias.kind = "kv_cache_update";
              if (auto kind = (*aliased)[i].find("kind"); kind != (*aliased)[i].end())
                alias.kind = requireString(*kind, member(p, "kind"), "kv_cache_update or user");
              if (alias.kind != "kv_cache_update" && alias.kind != "user")
                fail(member(p, "kind"), "unknown alias kind " + inQuotes(alias.kind) + " (use kv_cache_update or user)");
              spec.tensorrt_blob.aliased_io.push_back(std::move(alias));
            }
          }
        }
      } else {
        checkFields(node, spec.path, {"op", "inputs", "args", "outputs"});
        spec.target = requireString(node["op"], member(spec.path, "op"), "an operator name");
        if (auto op = parseOperatorName(spec.target); !op) fail(member(spec.path, "op"), op.error().message);
      }
      for (const char* list : {"inputs", "args"}) {
        const std::string lp = member(spec.path, list);
        auto found = node.find(list);
        if (found == node.end()) {
          if (std::string(list) == "inputs") fail(spec.path, "missing field 'inputs'");
          continue;
        }
        requireArray(*found, lp, std::string("the node's ") + list);
        for (size_t i = 0; i < found->size(); ++i) spec.arguments.emplace_back(&(*found)[i], element(lp, i));
      }
      std::string op = member(spec.path, "outputs");
      const Json* outputList = &requireField(node, spec.path, "outputs");
      requireArray(*outputList, op, "the node's outputs");
      if (!spec.is_delegate && outputList->size() == 1 && (*outputList)[0].is_array()) {
        spec.outputs_as_list = true;
        op = element(op, 0);
        outputList = &(*outputList)[0];
      }
      const Json& outputs = *outputList;
      if (outputs.empty()) fail(op, "a node needs at least one output");
      for (size_t i = 0; i < outputs.size(); ++i) {
        const std::string p = element(op, i);
        const Declaration& d = lookup(outputs[i], p);
        if (d.is_constant) fail(p, inQuotes(d.name) + " is a constant and cannot be written");
        if (!d.view_of.empty())
          fail(p, inQuotes(d.name) + " is a view of " + inQuotes(d.view_of) +
                      " and cannot be written (it reads its base's storage)");
        if (inputNames_.count(d.name)) fail(p, inQuotes(d.name) + " is a method input and cannot be written");
        if (auto previous = writer_.find(d.name); previous != writer_.end())
          fail(p, "duplicate output: tensor " + inQuotes(d.name) + " is already written by " +
                      writerPath_[d.name] + " (a value can be written only once)");
        writer_[d.name] = j;
        writerPath_[d.name] = p;
        spec.outputs.push_back(d.name);
      }
      if (spec.tensorrt) nameTensorRTBindings(spec);
      nodes_.push_back(std::move(spec));
    }
  }

  // A TensorRT delegate's bindings are named after the node's tensors: its
  // tensor inputs (in order), then its outputs, as Torch-TensorRT lists them
  // (name and is_input only); an alias names one of each.
  void nameTensorRTBindings(NodeSpec& spec) {
    auto& blob = spec.tensorrt_blob;
    for (const auto& [arg, p] : spec.arguments)
      if (arg->is_string()) blob.bindings.push_back({arg->get<std::string>(), "", {}, true});
    for (const auto& name : spec.outputs) blob.bindings.push_back({name, "", {}, false});
    const std::string ap = member(member(spec.path, "tensorrt"), "aliased_io");
    for (size_t i = 0; i < blob.aliased_io.size(); ++i) {
      const auto& alias = blob.aliased_io[i];
      auto named = [&](const std::string& name, bool input) {
        for (const auto& b : blob.bindings)
          if (b.name == name && b.is_input == input) return true;
        return false;
      };
      if (!named(alias.output, false))
        fail(member(element(ap, i), "output"), inQuotes(alias.output) + " is not an output of this node");
      if (!named(alias.input, true))
        fail(member(element(ap, i), "input"), inQuotes(alias.input) + " is not a tensor input of this node");
    }
    spec.blob = program::serializeTensorRTBlob(blob, spec.tensorrt_engine);
  }

  // Tensor names among a node's arguments (a list literal of names counts).
  void forEachName(const NodeSpec& node, const std::function<void(const Json&, const std::string&)>& visit) const {
    for (const auto& [arg, p] : node.arguments) {
      if (arg->is_string()) {
        visit(*arg, p);
      } else if (arg->is_array()) {
        for (size_t i = 0; i < arg->size(); ++i)
          if ((*arg)[i].is_string()) visit((*arg)[i], element(p, i));
      } else if (arg->is_object() && arg->contains("optional_tensors") && (*arg)["optional_tensors"].is_array()) {
        const Json& items = (*arg)["optional_tensors"];
        for (size_t i = 0; i < items.size(); ++i)
          if (items[i].is_string()) visit(items[i], element(member(p, "optional_tensors"), i));
      }
    }
  }

  // Whether node `from` reads, directly or through other nodes, what node
  // `to` writes.
  bool dependsOn(size_t from, size_t to) const {
    std::vector<bool> seen(nodes_.size(), false);
    std::vector<size_t> stack{from};
    while (!stack.empty()) {
      const size_t n = stack.back();
      stack.pop_back();
      if (n == to) return true;
      if (seen[n]) continue;
      seen[n] = true;
      for (size_t m : nodes_[n].reads_from) stack.push_back(m);
    }
    return false;
  }

  void checkReads() {
    // Every edge first, so that a read of a later node's output can tell a
    // cycle from a mere ordering mistake.
    for (auto& node : nodes_)
      forEachName(node, [&](const Json& name, const std::string&) {
        if (!index_.count(name.get<std::string>())) return;  // unknown: reported below
        if (auto w = writer_.find(storageOf(name.get<std::string>())); w != writer_.end())
          node.reads_from.push_back(w->second);
      });
    for (size_t j = 0; j < nodes_.size(); ++j) {
      forEachName(nodes_[j], [&](const Json& nameJson, const std::string& p) {
        const Declaration& read = lookup(nameJson, p);
        const Declaration& d = declarations_[index_.at(storageOf(read.name))];
        const std::string through = read.view_of.empty() ? "" : " (through its view " + inQuotes(read.name) + ")";
        if (d.is_constant || inputNames_.count(d.name)) return;
        auto w = writer_.find(d.name);
        if (w == writer_.end())
          fail(p, "tensor " + inQuotes(d.name) + through +
                      " is read but never written (it is not a method input, a constant or any node's output)");
        if (w->second == j)
          fail(p, "cycle: this node reads " + inQuotes(d.name) + through + ", which it writes itself");
        if (w->second > j) {
          if (dependsOn(w->second, j))
            fail(p, "cycle: tensor " + inQuotes(d.name) + through + " is written by " + nodes_[w->second].path +
                        ", which depends on this node's outputs");
          fail(p, "tensor " + inQuotes(d.name) + through + " is used before it is defined (it is written by the later " +
                      nodes_[w->second].path + "); list nodes in execution order");
        }
      });
      for (const auto& [arg, p] : nodes_[j].arguments) checkLiteral(*arg, p);
    }
  }

  static void checkLiteral(const Json& arg, const std::string& path) {
    if (arg.is_object()) {
      // {"optional_tensors": ["i", null]}: a Tensor?[] (index.Tensor's indices), null for None.
      if (arg.size() == 1 && arg.contains("optional_tensors") && arg["optional_tensors"].is_array()) {
        const Json& items = arg["optional_tensors"];
        for (size_t i = 0; i < items.size(); ++i)
          if (!items[i].is_string() && !items[i].is_null())
            fail(element(member(path, "optional_tensors"), i), "expected a tensor name or null");
        return;
      }
      // {"string": "trunc"}: a String argument (div's rounding_mode, gelu's approximate).
      if (arg.size() != 1 || !arg.contains("string") || !arg["string"].is_string())
        fail(path, "expected a tensor name or a literal (number, boolean, null, list, {\"string\": text} or "
                   "{\"optional_tensors\": [names or null]}), found an object");
      return;
    }
    if (!arg.is_array() || arg.empty()) return;
    auto kind = [](const Json& v) { return v.is_string() ? 0 : v.is_boolean() ? 1 : v.is_number() ? 2 : 3; };
    const int first = kind(arg[0]);
    for (size_t i = 0; i < arg.size(); ++i)
      if (kind(arg[i]) != first || first == 3)
        fail(element(path, i), "a list holds only tensor names, only numbers or only booleans");
  }

  void parseOutputs() {
    forEachListedTensor("outputs", "the method outputs", [&](const Declaration& d, const std::string& p) {
      if (!d.view_of.empty())
        fail(p, inQuotes(d.name) + " is a view; a method output is not (upstream keeps an output's reshape as a "
                                   "view_copy node)");
      if (!d.is_constant && !inputNames_.count(d.name) && !writer_.count(d.name))
        fail(p, "tensor " + inQuotes(d.name) + " is never written (it is not a method input, a constant or any node's output)");
      outputs_.push_back(d.name);
    });
  }

  ValueId valueOf(MethodBuilder& builder, const std::string& name) {
    if (auto found = ids_.find(name); found != ids_.end()) return found->second;
    const Declaration& d = declarations_[index_.at(name)];
    const ValueId id = !d.view_of.empty() ? builder.addView(valueOf(builder, d.view_of), d.sizes)
                       : d.is_constant    ? builder.addConstant(d.dtype, d.sizes, d.data)
                                          : builder.addTensor(d.dtype, d.sizes, d.dynamism);
    if (!d.dim_order.empty()) builder.setDimOrder(id, d.dim_order);
    ids_[name] = id;
    return id;
  }

  ValueId literal(MethodBuilder& builder, const Json& arg) {
    // A view is made where it is first read, as upstream's emitter makes its
    // spec at the view node; every other name is defined by now.
    if (arg.is_string()) return valueOf(builder, arg.get<std::string>());
    if (arg.is_object() && arg.contains("optional_tensors")) {
      std::vector<ValueId> tensors;
      for (const auto& item : arg["optional_tensors"])
        tensors.push_back(item.is_null() ? ValueId(-1) : valueOf(builder, item.get<std::string>()));
      return builder.addOptionalTensorList(std::move(tensors));
    }
    if (arg.is_object()) return builder.addString(arg["string"].get<std::string>());
    if (arg.is_boolean()) return builder.addBool(arg.get<bool>());
    if (arg.is_number_integer()) return builder.addInt(arg.get<int64_t>());
    if (arg.is_number()) return builder.addDouble(arg.get<double>());
    if (arg.is_null()) return builder.addNull();
    // A list: checkLiteral made sure its items are of one kind.
    if (arg.empty() || arg[0].is_number_integer()) {
      bool allIntegers = true;
      for (const auto& item : arg) allIntegers = allIntegers && item.is_number_integer();
      if (allIntegers) return builder.addIntList(arg.get<std::vector<int64_t>>());
    }
    if (arg[0].is_number()) return builder.addDoubleList(arg.get<std::vector<double>>());
    if (arg[0].is_boolean()) return builder.addBoolList(arg.get<std::vector<bool>>());
    std::vector<ValueId> tensors;
    for (const auto& item : arg) tensors.push_back(valueOf(builder, item.get<std::string>()));
    return builder.addTensorList(std::move(tensors));
  }

  void emit(MethodBuilder& builder, ProgramBuilder& program) {
    // Values in the order upstream's emitter numbers them: inputs, constants,
    // then per node its outputs followed by its literal arguments.
    std::vector<ValueId> inputIds;
    for (const auto& name : inputs_) inputIds.push_back(valueOf(builder, name));
    for (const auto& d : declarations_)
      if (d.is_constant) valueOf(builder, d.name);
    for (const auto& node : nodes_) {
      std::vector<ValueId> outputs;
      for (const auto& name : node.outputs) outputs.push_back(valueOf(builder, name));
      if (node.outputs_as_list) outputs = {builder.addTensorList(std::move(outputs))};
      std::vector<ValueId> arguments;
      for (const auto& [arg, p] : node.arguments) arguments.push_back(literal(builder, *arg));
      if (node.is_delegate && node.aoti)
        builder.addDelegateCall(node.target, node.compile_specs,
                                program.addAotiPayload(node.aoti_so, node.aoti_weights,
                                                       node.target == "MetalBackend" ? "metal" : "cuda",
                                                       !node.aoti_weights_in_program),
                                arguments, outputs);
      else if (node.is_delegate)
        builder.addDelegateCall(node.target, node.compile_specs, node.blob, arguments, outputs);
      else
        builder.addKernelCall(node.target, arguments, outputs);
    }
    for (const auto& d : declarations_) valueOf(builder, d.name);  // declared but unused: still a value
    std::vector<ValueId> outputIds;
    for (const auto& name : outputs_) outputIds.push_back(ids_.at(name));
    builder.setInputs(std::move(inputIds));
    builder.setOutputs(std::move(outputIds));
  }

  const Json& json_;
  std::string path_;
  ConstantBudget* budget_;
  std::string name_;
  std::vector<Declaration> declarations_;
  std::map<std::string, size_t> index_;
  std::vector<std::string> inputs_;
  std::set<std::string> inputNames_;
  std::vector<NodeSpec> nodes_;
  std::map<std::string, size_t> writer_;  // tensor -> node that writes it
  std::map<std::string, std::string> writerPath_;
  std::vector<std::string> outputs_;
  std::map<std::string, ValueId> ids_;
};

Result<SynthesizedProgram> synthesize(const Json& spec, const SpecLimits& limits) {
  requireObject(spec, "(spec)", "the spec");
  checkFields(spec, "(spec)", {"methods", "options"});
  const Json& methods = requireField(spec, "(spec)", "methods");
  requireArray(methods, "methods", "the methods");
  if (methods.empty()) fail("methods", "a program needs at least one method");

  ConstantBudget budget(limits);
  std::vector<MethodSpec> methodSpecs;
  std::vector<std::string> names;
  for (size_t i = 0; i < methods.size(); ++i) {
    methodSpecs.emplace_back(methods[i], element("methods", i), budget);
    const std::string name = methodSpecs.back().parseName();
    for (size_t k = 0; k < names.size(); ++k)
      if (names[k] == name)
        fail(member(element("methods", i), "name"), "method " + inQuotes(name) + " is already defined by methods[" +
                                                        std::to_string(k) + "]");
    names.push_back(name);
  }
  auto optionsJson = spec.find("options");
  SynthesizedProgram result;
  result.options = parseOptions(optionsJson == spec.end() ? nullptr : &*optionsJson, names);

  ProgramBuilder builder;
  BuildOptions build;
  for (size_t i = 0; i < methodSpecs.size(); ++i) {
    methodSpecs[i].build(builder.addMethod(names[i]), builder);
    // As built, before the device passes: one CPU arena.
    const auto& o = result.options.per_method[names[i]];
    passes::PlanningOptions planning;
    planning.enable_non_cpu_memory_planning = false;
    planning.alloc_graph_input = o.alloc_graph_input;
    planning.alloc_graph_output = o.alloc_graph_output;
    build.planning_per_method[names[i]] = planning;
  }
  auto program = builder.build(build);
  if (!program) return program.error();
  result.program = std::move(program.value());
  return result;
}

}  // namespace

MethodPassOptions SpecOptions::forMethod(const std::string& method) const {
  auto found = per_method.find(method);
  return found == per_method.end() ? MethodPassOptions{} : found->second;
}

Result<SynthesizedProgram> synthesizeFromSpec(std::string_view jsonText, const SpecLimits& limits) {
  Json spec;
  try {
    spec = Json::parse(jsonText.begin(), jsonText.end());
  } catch (const Json::exception& e) {
    // A parse_error, or an out_of_range for a number too large for a double
    // (found by tests/fuzz/fuzz_json_spec). nlohmann's text reads
    // "[json.exception.parse_error.101] parse error at line 3, column 5:
    // ..."; keep what follows the bracketed id.
    std::string what = e.what();
    if (auto close = what.find("] "); close != std::string::npos) what = what.substr(close + 2);
    return makeError("malformed JSON: " + what);
  }
  try {
    return synthesize(spec, limits);
  } catch (const SpecError& e) {
    return makeError(e.message);
  } catch (const Json::exception& e) {  // a type mismatch the checks above missed
    return makeError(std::string("invalid spec: ") + e.what());
  }
}

Result<SynthesizedProgram> synthesizeFromSpecFile(const std::string& path, const SpecLimits& limits) {
  // SPEC names a file. JSON text given in its place is not echoed back
  // whole (it made the one-line message as long as the spec).
  const size_t start = path.find_first_not_of(" \t\r\n");
  if (start != std::string::npos && (path[start] == '{' || path[start] == '['))
    return makeError("SPEC is the name of a JSON file, and this argument is JSON text (" + std::to_string(path.size()) +
                     " characters starting '" + path.substr(start, 16) + "...'): write it to a file and give its name");
  std::ifstream in(path, std::ios::binary);
  if (!in) return makeError(path + ": cannot open the spec: " + std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return makeError(path + ": cannot read the spec");
  auto result = synthesizeFromSpec(text.str(), limits);
  if (!result) return makeError(path + ": " + result.error().message);
  return result;
}

passes::PipelineOptions SpecOptions::pipelineOptions() const {
  passes::PipelineOptions options;
  options.per_method = per_method;
  return options;
}

Result<program::Program> applyDevicePasses(const SynthesizedProgram& synthesized) {
  auto result = passes::runPipeline(synthesized.program, synthesized.options.pipelineOptions());
  if (!result) return result.error();
  return std::move(result->program);
}

}  // namespace ptescope::synth
