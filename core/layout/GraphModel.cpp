#include "layout/GraphModel.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <functional>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "program/CopyDirection.h"
#include "program/Text.h"

namespace ptescope::layout {

using analysis::Dataflow;
using analysis::InstructionFacts;
using analysis::ValueOrigin;
using program::Device;
using program::InstructionKind;
using program::Method;
using program::Tensor;
using program::ValueKind;

std::string nodeKindName(NodeKind kind) {
  switch (kind) {
    case NodeKind::Kernel: return "kernel";
    case NodeKind::Delegate: return "delegate";
    case NodeKind::CopyH2D: return "h2d_copy";
    case NodeKind::CopyD2H: return "d2h_copy";
    case NodeKind::Control: return "control";
    case NodeKind::Input: return "input";
    case NodeKind::Output: return "output";
    case NodeKind::Constant: return "constant";
    case NodeKind::Unbound: return "unbound";
    case NodeKind::Group: return "group";
    case NodeKind::Stub: return "stub";
  }
  return "node";
}

bool isInstructionKind(NodeKind kind) {
  return kind == NodeKind::Kernel || kind == NodeKind::Delegate || kind == NodeKind::CopyH2D ||
         kind == NodeKind::CopyD2H || kind == NodeKind::Control;
}

std::optional<size_t> GraphModel::findNode(std::string_view key) const {
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].key == key) return i;
  return std::nullopt;
}

std::optional<size_t> GraphModel::nodeOfInstruction(size_t instruction) const {
  if (instruction >= node_of_instruction.size()) return std::nullopt;
  return node_of_instruction[instruction];
}

namespace {

const program::Value* valueAt(const Method& method, int32_t index) {
  const auto& values = program::items(method.values);
  if (index < 0 || size_t(index) >= values.size()) return nullptr;
  return &values[size_t(index)];
}

const Tensor* tensorAt(const Method& method, int32_t index) {
  const auto* v = valueAt(method, index);
  return v ? v->tensor() : nullptr;
}

std::string lowerKindName(ValueKind kind) {
  switch (kind) {
    case ValueKind::Int: return "int";
    case ValueKind::Bool: return "bool";
    case ValueKind::Double: return "double";
    case ValueKind::String: return "string";
    case ValueKind::IntList: return "int list";
    case ValueKind::DoubleList: return "double list";
    case ValueKind::BoolList: return "bool list";
    case ValueKind::TensorList: return "tensor list";
    case ValueKind::OptionalTensorList: return "optional tensor list";
    case ValueKind::Null: return "null";
    case ValueKind::None: return "none";
    case ValueKind::Tensor: return "tensor";
  }
  return "value";
}

// The literal a method returns without computing it ("Int = 5").
std::string literalText(const Method& method, int32_t index) {
  const auto* v = valueAt(method, index);
  if (!v) return "?";
  char text[64];
  switch (v->kind()) {
    case ValueKind::Int:
      std::snprintf(text, sizeof text, "%" PRId64, std::get<program::IntValue>(v->data).value);
      return text;
    case ValueKind::Bool: return std::get<program::BoolValue>(v->data).value ? "true" : "false";
    case ValueKind::Double:
      std::snprintf(text, sizeof text, "%g", std::get<program::DoubleValue>(v->data).value);
      return text;
    case ValueKind::String: {
      const auto& s = std::get<program::StringValue>(v->data).value;
      std::string body = s ? *s : std::string();
      if (body.size() > 24) body = body.substr(0, 21) + "...";
      return "\"" + body + "\"";
    }
    default: return lowerKindName(v->kind());
  }
}

std::string tensorName(const Method& method, int32_t index) {
  const auto* t = tensorAt(method, index);
  if (!t || !t->extra_tensor_info || !t->extra_tensor_info->fully_qualified_name) return {};
  return *t->extra_tensor_info->fully_qualified_name;
}

Device valueDevice(const Method& method, int32_t index) {
  const auto* t = tensorAt(method, index);
  return t ? t->device() : Device{};
}

// "aten::native_layer_norm.out" -> "native_layer_norm".
std::string shortOperatorName(const std::string& qualified) {
  std::string name = qualified;
  if (auto colon = name.rfind("::"); colon != std::string::npos) name = name.substr(colon + 2);
  if (auto dot = name.find('.'); dot != std::string::npos) name = name.substr(0, dot);
  return name.empty() ? qualified : name;
}

std::string operatorName(const Method& method, int32_t opIndex) {
  const auto& ops = program::items(method.operators);
  if (opIndex < 0 || size_t(opIndex) >= ops.size()) return "<operator " + std::to_string(opIndex) + ">";
  return ops[size_t(opIndex)].qualifiedName();
}

const program::BackendDelegate* delegateAt(const Method& method, int32_t index) {
  const auto& delegates = program::items(method.delegates);
  if (index < 0 || size_t(index) >= delegates.size()) return nullptr;
  return &delegates[size_t(index)];
}

std::optional<Device> delegateTarget(const Method& method, int32_t index) {
  const auto* d = delegateAt(method, index);
  if (!d) return std::nullopt;
  const auto* spec = d->findCompileSpec("target_device");
  if (!spec) return std::nullopt;
  auto parsed = program::parseDeviceSpec(spec->valueText());
  if (!parsed) return std::nullopt;
  return parsed.value();
}

// Where an instruction runs, for its region and colour. A kernel runs where
// its outputs live; a delegate on its target device; a copy is listed under
// its source device (it reads there; the runtime runs it on the host).
Device instructionDevice(const Method& method, const InstructionFacts& ins) {
  if (ins.kind == InstructionKind::DelegateCall) {
    if (auto target = delegateTarget(method, ins.delegate_index)) return *target;
  }
  if (ins.is_h2d_copy || ins.is_d2h_copy) {
    for (int32_t v : ins.inputs)
      if (tensorAt(method, v)) return valueDevice(method, v);
  }
  if (ins.kind == InstructionKind::KernelCall || ins.kind == InstructionKind::DelegateCall) {
    for (int32_t v : ins.outputs)
      if (tensorAt(method, v)) return valueDevice(method, v);
    for (int32_t v : ins.inputs)
      if (tensorAt(method, v)) return valueDevice(method, v);
  }
  return Device{};
}

NodeKind instructionNodeKind(const InstructionFacts& ins) {
  if (ins.is_h2d_copy) return NodeKind::CopyH2D;
  if (ins.is_d2h_copy) return NodeKind::CopyD2H;
  if (ins.kind == InstructionKind::KernelCall) return NodeKind::Kernel;
  if (ins.kind == InstructionKind::DelegateCall) return NodeKind::Delegate;
  return NodeKind::Control;
}

// What makes two instructions "the same step" for layer detection.
std::string instructionSignature(const Method& method, const InstructionFacts& ins) {
  std::string sig = std::to_string(int(ins.kind)) + "|" + ins.label + "|" + instructionDevice(method, ins).str();
  if (ins.kind == InstructionKind::DelegateCall) {
    if (const auto* d = delegateAt(method, ins.delegate_index)) sig += "|" + d->id.value_or("");
  }
  return sig;
}

struct Period {
  size_t length = 0;
  size_t start = 0;
  size_t layers = 0;
};

// The repeated block of the instruction sequence (see the header). Candidate
// lengths come from the distances between repeats of the same signature;
// each candidate is checked in one pass for its longest periodic stretch.
Period detectPeriod(const std::vector<uint32_t>& symbols, size_t maxPeriod) {
  const size_t n = symbols.size();
  if (n < 8) return {};
  std::unordered_map<uint32_t, size_t> lastSeen;
  std::unordered_map<uint32_t, std::vector<size_t>> positions;
  std::unordered_map<size_t, size_t> gapCount;
  for (size_t i = 0; i < n; ++i) {
    auto it = lastSeen.find(symbols[i]);
    if (it != lastSeen.end()) {
      const size_t gap = i - it->second;
      if (gap <= maxPeriod) ++gapCount[gap];
    }
    lastSeen[symbols[i]] = i;
    positions[symbols[i]].push_back(i);
  }
  std::vector<std::pair<size_t, size_t>> byCount(gapCount.begin(), gapCount.end());
  std::sort(byCount.begin(), byCount.end(), [](auto a, auto b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
  std::set<size_t> candidates;
  for (size_t i = 0; i < byCount.size() && i < 12; ++i) candidates.insert(byCount[i].first);
  // When every step of a layer occurs twice or more in it, no single gap is
  // the layer; the k-th repeat of a rare signature is.
  std::vector<std::pair<size_t, uint32_t>> rarity;
  for (const auto& [symbol, where] : positions)
    if (where.size() >= 4) rarity.emplace_back(where.size(), symbol);
  std::sort(rarity.begin(), rarity.end());
  for (size_t r = 0; r < rarity.size() && r < 4; ++r) {
    const auto& where = positions[rarity[r].second];
    for (size_t step = 1; step <= 4 && step < where.size(); ++step) {
      const size_t gap = where[step] - where[0];
      if (gap <= maxPeriod) candidates.insert(gap);
    }
  }

  Period best;
  size_t bestCoverage = 0;
  std::vector<std::pair<Period, size_t>> evaluated;
  for (size_t p : candidates) {
    if (p < 2 || p * 3 > n) continue;
    size_t runStart = 0, bestRunStart = 0, bestRun = 0;
    size_t run = 0;
    for (size_t i = 0; i + p < n; ++i) {
      if (symbols[i] == symbols[i + p]) {
        if (run == 0) runStart = i;
        ++run;
        if (run > bestRun) {
          bestRun = run;
          bestRunStart = runStart;
        }
      } else {
        run = 0;
      }
    }
    const size_t layers = (bestRun + p) / p;
    if (layers < 3) continue;
    const size_t coverage = layers * p;
    evaluated.push_back({Period{p, bestRunStart, layers}, coverage});
    bestCoverage = std::max(bestCoverage, coverage);
  }
  if (bestCoverage * 10 < n * 3) return {};
  // Twice the layer is periodic too: take the shortest that covers as much.
  for (const auto& [period, coverage] : evaluated) {
    if (coverage * 100 >= bestCoverage * 95 && (best.length == 0 || period.length < best.length)) best = period;
  }
  return best;
}

std::string rangeTitle(const char* what, size_t first, size_t lastInclusive) {
  return std::string(what) + " " + std::to_string(first) + "\u2013" + std::to_string(lastInclusive);
}

}  // namespace

std::string valueTypeText(const Method& method, int32_t value) {
  const auto* v = valueAt(method, value);
  if (!v) return "?";
  const auto* t = v->tensor();
  return t ? program::tensorTypeText(*t) : lowerKindName(v->kind());
}

// ---- MethodGraph: analysis and groups ----

namespace {

class GroupBuilder {
 public:
  GroupBuilder(GroupTree& tree, const GroupingOptions& options) : tree_(tree), options_(options) {}

  using Item = InstructionGroup::Item;

  size_t firstInstruction(const Item& item) const { return item.is_group ? tree_.groups[item.index].first : item.index; }
  size_t endInstruction(const Item& item) const { return item.is_group ? tree_.groups[item.index].last : item.index + 1; }

  // Cuts a list of items into chunks of 10, 20, 50, 100... items so that no
  // more than max_items remain, recursively. `layerItems` says the items are
  // layer groups (for titles).
  std::vector<Item> chunk(std::vector<Item> items, bool layerItems, size_t firstLayer) {
    if (items.size() <= options_.max_items) return items;
    size_t size = 10;
    for (size_t decade = 10; (items.size() + size - 1) / size > options_.max_items;) {
      if (size == decade) size = decade * 2;
      else if (size == decade * 2) size = decade * 5;
      else { decade *= 10; size = decade; }
    }
    std::vector<Item> chunks;
    for (size_t begin = 0; begin < items.size(); begin += size) {
      const size_t end = std::min(items.size(), begin + size);
      std::vector<Item> members(items.begin() + long(begin), items.begin() + long(end));
      InstructionGroup group;
      group.first = firstInstruction(members.front());
      group.last = endInstruction(members.back());
      group.title = layerItems ? rangeTitle("layers", firstLayer + begin, firstLayer + end - 1)
                               : rangeTitle("instructions", group.first, group.last - 1);
      const size_t id = tree_.groups.size();
      tree_.groups.push_back(std::move(group));
      auto inner = chunk(std::move(members), layerItems, firstLayer + begin);
      for (const auto& item : inner)
        if (item.is_group) tree_.groups[item.index].parent = int(id);
      tree_.groups[id].items = std::move(inner);
      chunks.push_back(Item{true, id});
    }
    return chunks;
  }

  std::vector<Item> instructions(size_t first, size_t last) {
    std::vector<Item> items;
    for (size_t i = first; i < last; ++i) items.push_back(Item{false, i});
    return items;
  }

 private:
  GroupTree& tree_;
  const GroupingOptions& options_;
};

}  // namespace

MethodGraph MethodGraph::analyze(const Method& method, const GroupingOptions& options, const std::atomic<bool>* cancel) {
  MethodGraph graph;
  graph.method_ = &method;
  graph.flow_ = Dataflow::build(method);
  auto cancelled = [cancel] { return cancel && cancel->load(std::memory_order_relaxed); };
  if (cancelled()) {
    graph.cancelled_ = true;
    return graph;
  }
  const auto& instructions = graph.flow_.instructions();
  const size_t n = instructions.size();
  GroupTree& tree = graph.tree_;
  GroupBuilder builder(tree, options);
  using Item = InstructionGroup::Item;

  if (n < options.group_above) {
    tree.top = builder.instructions(0, n);
  } else {
    std::unordered_map<std::string, uint32_t> ids;
    std::vector<uint32_t> symbols(n);
    for (size_t i = 0; i < n; ++i)
      symbols[i] = ids.emplace(instructionSignature(method, instructions[i]), uint32_t(ids.size())).first->second;
    if (cancelled()) {
      graph.cancelled_ = true;
      return graph;
    }
    const Period period = detectPeriod(symbols, options.max_period);
    if (period.length > 0) {
      tree.period = period.length;
      tree.layers = period.layers;
      tree.layer_start = period.start;
      const size_t layersEnd = period.start + period.layers * period.length;
      std::vector<Item> layerItems;
      for (size_t layer = 0; layer < period.layers; ++layer) {
        InstructionGroup group;
        group.first = period.start + layer * period.length;
        group.last = group.first + period.length;
        group.title = "layer " + std::to_string(layer);
        const size_t id = tree.groups.size();
        tree.groups.push_back(std::move(group));
        auto inner = builder.chunk(builder.instructions(tree.groups[id].first, tree.groups[id].last), false, 0);
        for (const auto& item : inner)
          if (item.is_group) tree.groups[item.index].parent = int(id);
        tree.groups[id].items = std::move(inner);
        layerItems.push_back(Item{true, id});
      }
      auto prologue = builder.chunk(builder.instructions(0, period.start), false, 0);
      auto layers = builder.chunk(std::move(layerItems), true, 0);
      auto epilogue = builder.chunk(builder.instructions(layersEnd, n), false, 0);
      tree.top = std::move(prologue);
      tree.top.insert(tree.top.end(), layers.begin(), layers.end());
      tree.top.insert(tree.top.end(), epilogue.begin(), epilogue.end());
    } else {
      tree.top = builder.chunk(builder.instructions(0, n), false, 0);
    }
  }

  // Innermost group per instruction: groups are created outer-last for
  // chunks but inner-first for layers, so take the smallest range.
  graph.innermost_group_.assign(n, -1);
  for (size_t g = 0; g < tree.groups.size(); ++g) {
    for (const auto& item : tree.groups[g].items) {
      if (!item.is_group) graph.innermost_group_[item.index] = int(g);
    }
  }
  return graph;
}

std::vector<int> MethodGraph::groupPathOf(size_t instruction) const {
  std::vector<int> path;
  if (instruction >= innermost_group_.size()) return path;
  for (int g = innermost_group_[instruction]; g >= 0; g = tree_.groups[size_t(g)].parent) path.push_back(g);
  std::reverse(path.begin(), path.end());
  return path;
}

std::set<int> MethodGraph::fullExpansion() const {
  std::set<int> all;
  for (size_t g = 0; g < tree_.groups.size(); ++g) all.insert(int(g));
  return all;
}

size_t MethodGraph::visibleNodeEstimate(const std::set<int>& expanded) const {
  size_t count = program::items(method_->inputs).size() + program::items(method_->outputs).size();
  std::function<void(const std::vector<InstructionGroup::Item>&)> walk = [&](const auto& items) {
    for (const auto& item : items) {
      if (item.is_group && expanded.count(int(item.index))) walk(tree_.groups[item.index].items);
      else ++count;
    }
  };
  walk(tree_.top);
  return count;
}

std::set<int> MethodGraph::initialExpansion(size_t nodeBudget) const {
  std::set<int> expanded;
  size_t visible = visibleNodeEstimate(expanded);
  // The first collapsed group in program order.
  std::function<std::optional<size_t>(const std::vector<InstructionGroup::Item>&)> firstClosed =
      [&](const auto& items) -> std::optional<size_t> {
    for (const auto& item : items) {
      if (!item.is_group) continue;
      if (!expanded.count(int(item.index))) return item.index;
      if (auto inner = firstClosed(tree_.groups[item.index].items)) return inner;
    }
    return std::nullopt;
  };
  while (auto next = firstClosed(tree_.top)) {
    const size_t cost = tree_.groups[*next].items.size() - 1;
    if (visible + cost > nodeBudget) break;
    expanded.insert(int(*next));
    visible += cost;
  }
  return expanded;
}

// ---- build ----

namespace {

struct EdgeKey {
  size_t from, to;
  int32_t value;
  bool operator==(const EdgeKey&) const = default;
};
struct EdgeKeyHash {
  size_t operator()(const EdgeKey& k) const {
    return std::hash<size_t>()(k.from * 1000003u ^ k.to) ^ (std::hash<int32_t>()(k.value) << 1);
  }
};

class ModelBuilder {
 public:
  ModelBuilder(const MethodGraph& graph, const std::set<int>& expanded, const ModelOptions& options)
      : graph_(graph), method_(graph.method()), flow_(graph.dataflow()), expanded_(expanded), options_(options) {}

  bool build(GraphModel& model, const std::atomic<bool>* cancel) {
    model_ = &model;
    model.method_name = method_.displayName();
    model.instruction_count = flow_.instructionCount();
    model.node_of_instruction.assign(flow_.instructionCount(), 0);
    auto cancelled = [cancel] { return cancel && cancel->load(std::memory_order_relaxed); };

    size_t tensorConstants = 0;
    const auto& values = program::items(method_.values);
    for (size_t v = 0; v < values.size(); ++v) {
      const auto& facts = flow_.values()[v];
      if (values[v].tensor() && facts.origin == ValueOrigin::Constant && !facts.consumers.empty()) ++tensorConstants;
    }
    fold_ = tensorConstants > options_.fold_constants_above;
    model.constants_folded = fold_;

    for (int32_t v : program::items(method_.inputs)) inputNode(v);
    addItems(graph_.groups().top);
    if (cancelled()) return false;

    for (size_t c = 0; c < flow_.instructionCount(); ++c) {
      if ((c & 0xfff) == 0 && cancelled()) return false;
      const size_t target = model.node_of_instruction[c];
      for (int32_t v : flow_.instructions()[c].inputs) {
        auto source = sourceOf(v, c, target, 0);
        if (source && *source != target) addEdge(*source, target, v);
      }
    }
    const auto& outputs = program::items(method_.outputs);
    for (size_t pos = 0; pos < outputs.size(); ++pos) {
      const int32_t v = outputs[pos];
      GraphNode node;
      node.kind = NodeKind::Output;
      node.key = "out" + std::to_string(pos);
      node.value = v;
      node.title = "output %" + std::to_string(v);
      describeValueNode(node, v);
      const size_t out = addNode(std::move(node));
      auto source = sourceOf(v, flow_.instructionCount(), out, 0);
      if (!source) source = literalNode(v);
      addEdge(*source, out, v);
    }
    assignOrder();
    if (options_.stubs) stubDistantReaders();
    finishEdges();
    describeFoldedConstants();
    collectDevices();
    return true;
  }

 private:
  size_t addNode(GraphNode node) {
    model_->nodes.push_back(std::move(node));
    return model_->nodes.size() - 1;
  }

  void addItems(const std::vector<InstructionGroup::Item>& items) {
    for (const auto& item : items) {
      if (item.is_group && expanded_.count(int(item.index))) {
        addItems(graph_.groups().groups[item.index].items);
      } else if (item.is_group) {
        groupNode(item.index);
      } else {
        model_->node_of_instruction[item.index] = instructionNode(item.index);
      }
    }
  }

  void describeValueNode(GraphNode& node, int32_t v) {
    const std::string type = valueTypeText(method_, v);
    const std::string name = tensorName(method_, v);
    node.device = valueDevice(method_, v);
    node.subtitle = type;
    node.search_terms = {"%" + std::to_string(v)};
    if (!name.empty()) node.search_terms.push_back(name);
    node.tooltip = node.title + "\n" + type + "\ndevice " + node.device.str();
    if (!name.empty()) node.tooltip += "\nname " + name;
    if (const auto* t = tensorAt(method_, v)) node.tooltip += "\n" + program::bytesText(t->nbytes());
  }

  size_t inputNode(int32_t v) {
    if (auto it = inputs_.find(v); it != inputs_.end()) return it->second;
    GraphNode node;
    node.kind = NodeKind::Input;
    node.key = "in" + std::to_string(v);
    node.value = v;
    node.title = "input %" + std::to_string(v);
    describeValueNode(node, v);
    return inputs_[v] = addNode(std::move(node));
  }

  size_t constantNode(int32_t v) {
    if (auto it = constants_.find(v); it != constants_.end()) return it->second;
    GraphNode node;
    node.kind = NodeKind::Constant;
    node.key = "c" + std::to_string(v);
    node.value = v;
    node.title = (flow_.value(v).is_mutable_state ? "state %" : "const %") + std::to_string(v);
    describeValueNode(node, v);
    return constants_[v] = addNode(std::move(node));
  }

  size_t unboundNode(int32_t v) {
    if (auto it = constants_.find(v); it != constants_.end()) return it->second;
    GraphNode node;
    node.kind = NodeKind::Unbound;
    node.key = "u" + std::to_string(v);
    node.value = v;
    node.title = "%" + std::to_string(v) + " unwritten";
    describeValueNode(node, v);
    node.tooltip += "\nread but written by no instruction and not a method input";
    return constants_[v] = addNode(std::move(node));
  }

  // A value the method returns that nothing computes: a literal or a
  // constant that is never read.
  size_t literalNode(int32_t v) {
    if (tensorAt(method_, v)) return constantNode(v);
    if (auto it = constants_.find(v); it != constants_.end()) return it->second;
    GraphNode node;
    node.kind = NodeKind::Constant;
    node.key = "c" + std::to_string(v);
    node.value = v;
    node.title = "%" + std::to_string(v) + " = " + literalText(method_, v);
    node.subtitle = valueTypeText(method_, v);
    node.search_terms = {"%" + std::to_string(v)};
    node.tooltip = node.title + "\n" + node.subtitle + " literal";
    return constants_[v] = addNode(std::move(node));
  }

  size_t instructionNode(size_t i) {
    const auto& ins = flow_.instructions()[i];
    GraphNode node;
    node.kind = instructionNodeKind(ins);
    node.key = "i" + std::to_string(i);
    node.instruction = i;
    node.device = instructionDevice(method_, ins);
    const std::string index = "#" + std::to_string(i);
    node.search_terms = {index};
    switch (node.kind) {
      case NodeKind::Kernel: {
        const std::string op = operatorName(method_, ins.op_index);
        node.title = shortOperatorName(op);
        node.subtitle = index + " \u00b7 " + node.device.str();
        node.search_terms.push_back(op);
        node.tooltip = op + "\ninstruction " + std::to_string(i) + " on " + node.device.str();
        break;
      }
      case NodeKind::Delegate: {
        const auto* d = delegateAt(method_, ins.delegate_index);
        const std::string backend = d && d->id ? *d->id : std::string("<delegate>");
        const auto target = delegateTarget(method_, ins.delegate_index);
        node.title = backend;
        node.subtitle = index + (target ? " \u2192 " + target->str() : std::string(" \u00b7 ") + node.device.str());
        node.search_terms.push_back(backend);
        node.search_terms.push_back("delegate");
        node.tooltip = "delegate " + std::to_string(ins.delegate_index) + ": " + backend + "\ninstruction " +
                       std::to_string(i) + "\ntarget device " + (target ? target->str() : std::string("none (runs as the host sees it)"));
        if (d) {
          for (const auto& spec : program::items(d->compile_specs)) {
            std::string text = spec.valueText();
            bool printable = std::all_of(text.begin(), text.end(), [](char ch) { return ch >= 32 && ch < 127; });
            if (!printable || text.size() > 40) text = std::to_string(spec.value ? spec.value->size() : 0) + " bytes";
            node.tooltip += "\n" + spec.key.value_or("?") + " = " + text;
          }
        }
        break;
      }
      case NodeKind::CopyH2D:
      case NodeKind::CopyD2H: {
        const bool h2d = node.kind == NodeKind::CopyH2D;
        int32_t from = -1, to = -1;
        for (int32_t v : ins.inputs)
          if (tensorAt(method_, v)) { from = v; break; }
        for (int32_t v : ins.outputs)
          if (tensorAt(method_, v)) { to = v; break; }
        node.copy_source = from >= 0 ? valueDevice(method_, from) : Device{};
        node.copy_destination = to >= 0 ? valueDevice(method_, to) : Device{};
        const Tensor* moved = to >= 0 ? tensorAt(method_, to) : (from >= 0 ? tensorAt(method_, from) : nullptr);
        node.copy_bytes = moved ? moved->nbytes() : -1;
        node.title = program::copyDirectionName(h2d ? program::CopyDirection::HostToDevice : program::CopyDirection::DeviceToHost) + " " + program::bytesText(node.copy_bytes);
        node.subtitle = index + " " + node.copy_source.str() + " \u2192 " + node.copy_destination.str();
        const std::string op = operatorName(method_, ins.op_index);
        node.search_terms.push_back(op);
        node.search_terms.push_back(h2d ? "h2d" : "d2h");
        node.tooltip = std::string(h2d ? "host-to-device copy " : "device-to-host copy ") + op + "\ninstruction " +
                       std::to_string(i) + "\n%" + std::to_string(from) + " " + node.copy_source.str() + " \u2192 %" +
                       std::to_string(to) + " " + node.copy_destination.str() + "\n" + program::bytesText(node.copy_bytes) +
                       " (" + std::to_string(node.copy_bytes) + " bytes)";
        break;
      }
      default:
        node.title = ins.label;
        node.subtitle = index;
        node.search_terms.push_back(ins.label);
        node.tooltip = ins.label + "\ninstruction " + std::to_string(i);
        break;
    }
    return addNode(std::move(node));
  }

  size_t groupNode(size_t g) {
    const auto& group = graph_.groups().groups[g];
    GraphNode node;
    node.kind = NodeKind::Group;
    node.key = "g" + std::to_string(g);
    node.group = int(g);
    node.title = group.title;
    std::map<Device, size_t> byDevice;
    for (size_t i = group.first; i < group.last; ++i) {
      const auto& ins = flow_.instructions()[i];
      if (ins.is_h2d_copy) ++node.group_h2d;
      else if (ins.is_d2h_copy) ++node.group_d2h;
      else {
        if (ins.kind == InstructionKind::DelegateCall) ++node.group_delegates;
        ++byDevice[instructionDevice(method_, ins)];
      }
    }
    node.group_instructions = group.last - group.first;
    for (const auto& [device, count] : byDevice) node.devices.push_back(DeviceCount{device, count});
    node.has_device = node.devices.size() <= 1;
    node.device = node.devices.empty() ? Device{} : node.devices.front().device;
    if (!node.has_device) {
      // Most instructions decide the colour accents; the region stays none.
      auto most = std::max_element(node.devices.begin(), node.devices.end(),
                                   [](const DeviceCount& a, const DeviceCount& b) { return a.instructions < b.instructions; });
      node.device = most->device;
    }
    node.subtitle = std::to_string(node.group_instructions) + " instr";
    if (node.group_h2d + node.group_d2h > 0)
      node.subtitle += " \u00b7 " + std::to_string(node.group_h2d) + " h2d \u00b7 " + std::to_string(node.group_d2h) + " d2h";
    node.tooltip = group.title + ": instructions " + std::to_string(group.first) + "\u2013" + std::to_string(group.last - 1) +
                   "\n" + std::to_string(node.group_delegates) + " delegate calls, " + std::to_string(node.group_h2d) +
                   " h2d and " + std::to_string(node.group_d2h) + " d2h copies";
    for (const auto& dc : node.devices) node.tooltip += "\n" + dc.device.str() + ": " + std::to_string(dc.instructions) + " instructions";
    node.tooltip += "\ndouble-click to open";
    node.search_terms = {group.title};
    const size_t index = addNode(std::move(node));
    for (size_t i = group.first; i < group.last; ++i) model_->node_of_instruction[i] = index;
    return index;
  }

  // The node that provides value `v` to a reader at instruction position
  // `at` (flow_.instructionCount() for the method's outputs).
  std::optional<size_t> sourceOf(int32_t v, size_t at, size_t reader, int depth) {
    const auto* value = valueAt(method_, v);
    if (!value || depth > 8) return std::nullopt;
    const auto& facts = flow_.value(v);
    const auto& writers = facts.writers;
    auto it = std::lower_bound(writers.begin(), writers.end(), at);
    if (it != writers.begin()) return model_->node_of_instruction[*std::prev(it)];
    if (facts.is_method_input) return inputNode(v);
    if (facts.storage_alias_of) return sourceOf(*facts.storage_alias_of, at, reader, depth + 1);
    if (!value->tensor()) return std::nullopt;  // literals and lists are arguments, not data
    if (facts.origin == ValueOrigin::Constant) {
      if (fold_ && at < flow_.instructionCount()) {
        auto& folded = model_->nodes[reader].folded_constants;
        if (std::find(folded.begin(), folded.end(), v) == folded.end()) folded.push_back(v);
        return std::nullopt;
      }
      return constantNode(v);
    }
    if (facts.origin == ValueOrigin::Undefined) return unboundNode(v);
    return std::nullopt;
  }

  void addEdge(size_t from, size_t to, int32_t v) {
    if (!edgeKeys_.insert(EdgeKey{from, to, v}).second) return;
    rawEdges_.push_back(EdgeKey{from, to, v});
  }

  // The device side of a node's end of an edge: the node's region, or none
  // for nodes without one (mixed groups).
  std::optional<Device> regionOf(size_t node) const {
    const auto& n = model_->nodes[node];
    if (!n.has_device) return std::nullopt;
    return n.device;
  }

  void finishEdges() {
    // Several values between the same two nodes (a collapsed group's
    // boundary, a delegate's many outputs into one consumer) read better as
    // one edge.
    std::map<std::pair<size_t, size_t>, std::vector<int32_t>> byPair;
    std::vector<std::pair<size_t, size_t>> order;
    for (const auto& e : rawEdges_) {
      auto& list = byPair[{e.from, e.to}];
      if (list.empty()) order.emplace_back(e.from, e.to);
      list.push_back(e.value);
    }
    for (const auto& pair : order) {
      const auto& list = byPair[pair];
      if (list.size() > options_.merge_edges_above) {
        model_->edges.push_back(makeEdge(pair.first, pair.second, list));
      } else {
        for (int32_t v : list) model_->edges.push_back(makeEdge(pair.first, pair.second, {v}));
      }
    }
  }

  GraphEdge makeEdge(size_t from, size_t to, const std::vector<int32_t>& values) {
    GraphEdge edge;
    edge.from = from;
    edge.to = to;
    edge.value = values.front();
    edge.merged_values = values.size();
    edge.device = valueDevice(method_, edge.value);
    edge.label = values.size() > 1 ? std::to_string(values.size()) + " values" : valueTypeText(method_, edge.value);
    const auto a = regionOf(from), b = regionOf(to);
    bool crosses = false;
    for (int32_t v : values) {
      const Device d = valueDevice(method_, v);
      if (a && b) crosses = crosses || *a != *b;
      else if (a) crosses = crosses || *a != d;
      else if (b) crosses = crosses || *b != d;
    }
    edge.crosses_device = crosses;
    const auto isCopy = [this](size_t n) {
      return model_->nodes[n].kind == NodeKind::CopyH2D || model_->nodes[n].kind == NodeKind::CopyD2H;
    };
    // Groups may hold copies inside; only plain endpoints can prove a
    // transfer is missing.
    const auto plain = [this, &isCopy](size_t n) { return !isCopy(n) && model_->nodes[n].kind != NodeKind::Group; };
    edge.implicit_crossing = crosses && plain(from) && plain(to);
    return edge;
  }

  void assignOrder() {
    const size_t end = flow_.instructionCount();
    for (auto& node : model_->nodes) {
      if (node.instruction) node.order = *node.instruction;
      else if (node.kind == NodeKind::Group) node.order = graph_.groups().groups[size_t(node.group)].first;
      else if (node.kind == NodeKind::Output) node.order = end;
      else if (node.kind == NodeKind::Input) node.order = 0;
      else node.order = end;  // constants: lowered to their first reader below
    }
    for (const auto& edge : rawEdges_) {
      auto& from = model_->nodes[edge.from];
      if (from.kind == NodeKind::Constant || from.kind == NodeKind::Unbound)
        from.order = std::min(from.order, model_->nodes[edge.to].order);
    }
  }

  // Replaces the long edges by stubs next to their readers (see
  // ModelOptions). Distances count visible nodes in program order.
  void stubDistantReaders() {
    auto& nodes = model_->nodes;
    std::vector<size_t> byOrder(nodes.size());
    for (size_t i = 0; i < byOrder.size(); ++i) byOrder[i] = i;
    std::stable_sort(byOrder.begin(), byOrder.end(), [&nodes](size_t a, size_t b) { return nodes[a].order < nodes[b].order; });
    std::vector<size_t> rank(nodes.size());
    for (size_t r = 0; r < byOrder.size(); ++r) rank[byOrder[r]] = r;
    auto distance = [&rank](size_t a, size_t b) { return rank[a] > rank[b] ? rank[a] - rank[b] : rank[b] - rank[a]; };

    // The readers of each (producer, value), nearest first.
    std::map<std::pair<size_t, int32_t>, std::vector<size_t>> readers;  // -> indices into rawEdges_
    for (size_t e = 0; e < rawEdges_.size(); ++e) readers[{rawEdges_[e].from, rawEdges_[e].value}].push_back(e);
    std::map<std::pair<size_t, size_t>, size_t> stubOf;  // (producer, reader) -> stub node
    for (auto& [key, list] : readers) {
      std::stable_sort(list.begin(), list.end(), [&](size_t a, size_t b) {
        return distance(rawEdges_[a].from, rawEdges_[a].to) < distance(rawEdges_[b].from, rawEdges_[b].to);
      });
      for (size_t k = 0; k < list.size(); ++k) {
        EdgeKey& edge = rawEdges_[list[k]];
        const size_t d = distance(edge.from, edge.to);
        if (d <= options_.stub_near || (k == 0 && d <= options_.stub_far)) continue;
        auto [it, added] = stubOf.emplace(std::make_pair(edge.from, edge.to), 0);
        if (added) it->second = stubNode(edge.from, edge.to);
        nodes[it->second].stub_values.push_back(edge.value);
        edge.from = it->second;
      }
    }
    for (const auto& [pair, stub] : stubOf) describeStub(stub);
  }

  size_t stubNode(size_t source, size_t reader) {
    GraphNode node;
    node.kind = NodeKind::Stub;
    node.key = "s" + model_->nodes[source].key + ">" + model_->nodes[reader].key;
    node.stub_source = source;
    node.has_device = false;  // it stands by its reader, in no region
    node.order = model_->nodes[reader].order;
    return addNode(std::move(node));
  }

  void describeStub(size_t index) {
    GraphNode& node = model_->nodes[index];
    std::sort(node.stub_values.begin(), node.stub_values.end());
    node.stub_values.erase(std::unique(node.stub_values.begin(), node.stub_values.end()), node.stub_values.end());
    const GraphNode& source = model_->nodes[*node.stub_source];
    node.device = valueDevice(method_, node.stub_values.front());
    node.value = node.stub_values.front();
    std::string values;
    for (size_t i = 0; i < node.stub_values.size() && i < 3; ++i)
      values += (i ? " " : "") + ("%" + std::to_string(node.stub_values[i]));
    if (node.stub_values.size() > 3) values += " +" + std::to_string(node.stub_values.size() - 3);
    node.title = values;
    const std::string where =
        source.instruction ? "#" + std::to_string(*source.instruction) + " " + source.title : source.title;
    node.subtitle = "\u2190 " + where;
    node.search_terms.push_back("stub");
    node.tooltip = "made by " + where + (source.subtitle.empty() ? "" : " (" + source.subtitle + ")") + ", drawn here instead of a long edge:";
    for (int32_t v : node.stub_values) {
      node.tooltip += "\n%" + std::to_string(v) + " " + valueTypeText(method_, v);
      node.search_terms.push_back("%" + std::to_string(v));
      if (auto name = tensorName(method_, v); !name.empty()) {
        node.tooltip += " " + name;
        node.search_terms.push_back(name);
      }
    }
    node.tooltip += "\nclick to highlight the producer, double-click to go to it";
  }

  void describeFoldedConstants() {
    for (auto& node : model_->nodes) {
      if (node.folded_constants.empty()) continue;
      std::sort(node.folded_constants.begin(), node.folded_constants.end());
      node.subtitle += " \u00b7 +" + std::to_string(node.folded_constants.size()) + " const";
      node.tooltip += "\nconstants read:";
      for (int32_t v : node.folded_constants) {
        node.tooltip += " %" + std::to_string(v);
        node.search_terms.push_back("%" + std::to_string(v));
        if (auto name = tensorName(method_, v); !name.empty()) node.search_terms.push_back(name);
      }
    }
  }

  void collectDevices() {
    std::set<Device> devices;
    for (const auto& n : model_->nodes) {
      if (n.has_device) devices.insert(n.device);
      if (n.kind == NodeKind::Group) {
        model_->has_groups = true;
        for (const auto& dc : n.devices) devices.insert(dc.device);
      }
    }
    model_->devices.assign(devices.begin(), devices.end());  // Device orders CPU first
  }

  const MethodGraph& graph_;
  const Method& method_;
  const Dataflow& flow_;
  const std::set<int>& expanded_;
  const ModelOptions& options_;
  GraphModel* model_ = nullptr;
  bool fold_ = false;
  std::map<int32_t, size_t> inputs_;
  std::map<int32_t, size_t> constants_;
  std::unordered_set<EdgeKey, EdgeKeyHash> edgeKeys_;
  std::vector<EdgeKey> rawEdges_;
};

}  // namespace

GraphModel MethodGraph::build(const std::set<int>& expanded, const ModelOptions& options, const std::atomic<bool>* cancel) const {
  GraphModel model;
  if (cancelled_) return model;
  ModelBuilder builder(*this, expanded, options);
  if (!builder.build(model, cancel)) return GraphModel{};
  return model;
}

}  // namespace ptescope::layout
