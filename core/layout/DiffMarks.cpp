#include "layout/DiffMarks.h"

#include <algorithm>
#include <unordered_map>

#include "program/CopyDirection.h"
#include "program/Text.h"

namespace ptescope::layout {
namespace {

// Ghosts beyond this many would swamp the picture (and the layout).
constexpr size_t kMaxGhosts = 200;

// Collapsed groups collect the changes inside them; the note counts them.
class GroupCounter {
 public:
  explicit GroupCounter(GraphModel& model) : model_(model) {}
  void add(size_t node) { ++counts_[node]; }
  void apply() {
    for (const auto& [node, count] : counts_) {
      auto& n = model_.nodes[node];
      if (n.change == Change::None) n.change = Change::Moved;
      n.change_note = std::to_string(count) + (count == 1 ? " change inside" : " changes inside");
    }
  }

 private:
  GraphModel& model_;
  std::map<size_t, size_t> counts_;
};

void markNode(GraphModel& model, GroupCounter& groups, size_t node, Change change, const std::string& note) {
  auto& n = model.nodes[node];
  if (n.kind == NodeKind::Group) {
    groups.add(node);
    return;
  }
  n.change = change;
  if (!n.change_note.empty()) n.change_note += "; ";
  n.change_note += note;
}

// Where values are on screen, looked up once per view: a method with
// thousands of removed copies must not scan the nodes for each.
class NodeIndex {
 public:
  explicit NodeIndex(const GraphModel& model) : model_(model) {
    for (size_t i = 0; i < model.nodes.size(); ++i) {
      byKey_.emplace(model.nodes[i].key, i);
      if (model.nodes[i].kind == NodeKind::Output) outputs_[model.nodes[i].value].push_back(i);
    }
  }

  std::optional<size_t> byKey(const std::string& key) const {
    auto it = byKey_.find(key);
    return it == byKey_.end() ? std::nullopt : std::optional<size_t>(it->second);
  }

  // The node a value comes from in this view: its input, constant or
  // unbound node, or the node of the instruction that writes it.
  std::optional<size_t> producer(const MethodGraph& graph, int32_t value) const {
    const auto& flow = graph.dataflow();
    if (value < 0 || size_t(value) >= flow.values().size()) return std::nullopt;
    const auto& facts = flow.value(value);
    const std::string v = std::to_string(value);
    if (facts.is_method_input)
      if (auto node = byKey("in" + v)) return node;
    if (facts.producer) return model_.nodeOfInstruction(*facts.producer);
    if (auto node = byKey("c" + v)) return node;
    if (auto node = byKey("u" + v)) return node;
    // A folded constant: its first reader carries it.
    if (!facts.consumers.empty()) return model_.nodeOfInstruction(facts.consumers.front());
    return std::nullopt;
  }

  std::vector<size_t> outputs(int32_t value) const {
    auto it = outputs_.find(value);
    return it == outputs_.end() ? std::vector<size_t>{} : it->second;
  }

 private:
  const GraphModel& model_;
  std::unordered_map<std::string, size_t> byKey_;
  std::unordered_map<int32_t, std::vector<size_t>> outputs_;
};

GraphEdge ghostEdge(size_t from, size_t to, int32_t value, const program::Device& device, const std::string& label,
                    const std::string& note) {
  GraphEdge edge;
  edge.from = from;
  edge.to = to;
  edge.value = value;
  edge.device = device;
  edge.label = label;
  edge.change = Change::Removed;
  edge.change_note = note;
  return edge;
}

}  // namespace

void markChanges(GraphModel& model, const MethodGraph& graph, const MethodChanges& changes) {
  GroupCounter groups(model);

  for (const auto& [instruction, note] : changes.added_copies)
    if (auto node = model.nodeOfInstruction(instruction)) markNode(model, groups, *node, Change::Added, note);
  for (const auto& [instruction, note] : changes.retargeted)
    if (auto node = model.nodeOfInstruction(instruction)) markNode(model, groups, *node, Change::Moved, note);

  std::unordered_map<int32_t, const MovedValue*> moved;
  for (const auto& m : changes.moved_values) moved[m.value] = &m;
  auto movedNote = [](const MovedValue& m) { return "%" + std::to_string(m.value) + " " + m.before.str() + " → " + m.after.str(); };
  for (auto& edge : model.edges) {
    auto it = moved.find(edge.value);
    if (it == moved.end()) continue;
    edge.change = Change::Moved;
    edge.change_note = movedNote(*it->second);
  }
  for (size_t i = 0; i < model.nodes.size(); ++i) {
    auto& node = model.nodes[i];
    if (node.kind != NodeKind::Input && node.kind != NodeKind::Output && node.kind != NodeKind::Constant &&
        node.kind != NodeKind::Unbound)
      continue;
    if (auto it = moved.find(node.value); it != moved.end()) markNode(model, groups, i, Change::Moved, movedNote(*it->second));
  }

  // Ghosts of removed copies, between what they copied and what read them.
  const auto& method = graph.method();
  const NodeIndex index(model);  // of the nodes before the ghosts
  size_t ghosts = 0, undrawn = 0;
  for (size_t r = 0; r < changes.removed_copies.size(); ++r) {
    const auto& copy = changes.removed_copies[r];
    GraphNode ghost;
    ghost.kind = copy.host_to_device ? NodeKind::CopyH2D : NodeKind::CopyD2H;
    ghost.key = "removed" + std::to_string(r);
    const auto direction = copy.host_to_device ? program::CopyDirection::HostToDevice : program::CopyDirection::DeviceToHost;
    ghost.title = program::copyDirectionName(direction);
    ghost.subtitle = "removed · " + program::bytesText(copy.bytes);
    ghost.device = copy.from;
    ghost.copy_source = copy.from;
    ghost.copy_destination = copy.to;
    ghost.copy_bytes = copy.bytes;
    ghost.change = Change::Removed;
    ghost.change_note = copy.note;
    ghost.tooltip = "not in the edited program: shown where it was";
    ghost.search_terms = {"removed", program::copyDirectionName(direction)};
    auto from = index.producer(graph, copy.source);
    std::vector<size_t> to;
    for (size_t consumer : copy.consumers)
      if (auto node = model.nodeOfInstruction(consumer); node && std::find(to.begin(), to.end(), *node) == to.end())
        to.push_back(*node);
    if (copy.consumers.empty()) to = index.outputs(copy.source);
    // A folded constant's node is its reader: no edge from the reader into
    // the ghost that feeds it.
    if (from && std::find(to.begin(), to.end(), *from) != to.end()) from.reset();
    if (!from && to.empty()) continue;  // nothing of its surroundings is on screen
    // A copy that went from a collapsed group to itself (or to nothing on
    // screen) counts in the group: drawing it would only add a node per copy
    // next to a box that hides both ends.
    const auto isGroup = [&model](size_t node) { return model.nodes[node].kind == NodeKind::Group; };
    bool onlyGroups = !from || isGroup(*from);
    for (size_t node : to) onlyGroups = onlyGroups && isGroup(node);
    if (onlyGroups) {
      if (from) groups.add(*from);
      for (size_t node : to)
        if (!from || node != *from) groups.add(node);
      continue;
    }
    if (ghosts == kMaxGhosts) {
      ++undrawn;
      continue;
    }
    ++ghosts;
    if (from && isGroup(*from)) groups.add(*from);
    ghost.order = from ? model.nodes[*from].order : model.nodes[to.front()].order;
    if (std::find(model.devices.begin(), model.devices.end(), ghost.device) == model.devices.end()) {
      model.devices.push_back(ghost.device);
      std::sort(model.devices.begin(), model.devices.end());
    }
    const size_t ghostNode = model.nodes.size();
    model.nodes.push_back(std::move(ghost));
    const std::string label = copy.source >= 0 ? valueTypeText(method, copy.source) : std::string();
    if (from) model.edges.push_back(ghostEdge(*from, ghostNode, copy.source, copy.from, label, copy.note));
    for (size_t node : to) model.edges.push_back(ghostEdge(ghostNode, node, copy.source, copy.to, std::string(), copy.note));
  }
  groups.apply();
  model.undrawn_removed_copies = undrawn;
}

}  // namespace ptescope::layout
