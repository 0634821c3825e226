// Model building: MethodGraph::build turns the analysed method and the set of
// expanded groups into the GraphModel of nodes and edges that the layout
// places (values, instructions, collapsed groups, copies and their labels).
#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "layout/GraphModel.h"
#include "layout/MethodFacts.h"
#include "program/CopyDirection.h"
#include "program/Text.h"

namespace ptescope::layout {

using namespace facts;

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
      const size_t out = addNode(valueNode(NodeKind::Output, "out" + std::to_string(pos), v, "output %" + std::to_string(v)));
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

  // A node that stands for value `v`: its kind, key and title, then the
  // value's type, device, names and size.
  GraphNode valueNode(NodeKind kind, std::string key, int32_t v, std::string title) {
    GraphNode node;
    node.kind = kind;
    node.key = std::move(key);
    node.value = v;
    node.title = std::move(title);
    describeValueNode(node, v);
    return node;
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
    return inputs_[v] = addNode(valueNode(NodeKind::Input, "in" + std::to_string(v), v, "input %" + std::to_string(v)));
  }

  size_t constantNode(int32_t v) {
    if (auto it = constants_.find(v); it != constants_.end()) return it->second;
    return constants_[v] = addNode(valueNode(NodeKind::Constant, "c" + std::to_string(v), v,
                                             (flow_.value(v).is_mutable_state ? "state %" : "const %") + std::to_string(v)));
  }

  size_t unboundNode(int32_t v) {
    if (auto it = constants_.find(v); it != constants_.end()) return it->second;
    GraphNode node = valueNode(NodeKind::Unbound, "u" + std::to_string(v), v, "%" + std::to_string(v) + " unwritten");
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
        node.title = program::copyDirectionName(h2d ? program::CopyDirection::HostToDevice : program::CopyDirection::DeviceToHost) +
                     " " + program::bytesText(node.copy_bytes);
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
