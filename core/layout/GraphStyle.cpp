#include "layout/GraphStyle.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "layout/DeviceStyle.h"

namespace ptescope::layout {

namespace {

size_t codePoints(const std::string& text) {
  size_t n = 0;
  for (unsigned char c : text)
    if ((c & 0xc0) != 0x80) ++n;
  return n;
}

std::string htmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

std::string inches(double points) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", points / 72.0);
  return text;
}

bool labelsInLayout(const GraphModel& model, const LayoutOptions& options) {
  return model.edges.size() <= options.edge_labels_up_to;
}

namespace {

// Graph-wide attributes and node and edge defaults; big graphs get cheaper
// dot settings.
void styleGraphAttributes(const GraphModel& model, const LayoutOptions& options, StyledGraph& s) {
  const bool economy = model.nodes.size() > options.economy_above;
  s.graph = {{"rankdir", "TB"},
             {"newrank", "true"},
             {"nodesep", "0.3"},
             {"ranksep", "0.4"},
             {"fontname", "Helvetica"},
             {"bgcolor", "white"},
             {"pad", "0.2"},
             {"label", "method '" + model.method_name + "'"},
             {"labelloc", "t"},
             {"fontsize", "14"}};
  if (economy) {
    s.graph.insert(s.graph.end(), {{"nslimit", "2"}, {"nslimit1", "2"}, {"mclimit", "0.2"}, {"remincross", "false"},
                                   {"searchsize", "10"}});
  }
  s.nodeDefaults = {{"fontname", "Helvetica"}, {"fixedsize", "true"}, {"style", "filled"}, {"penwidth", "1.2"}};
  s.edgeDefaults = {{"fontname", "Helvetica"}, {"fontsize", "8"}, {"fontcolor", "#555555"}, {"arrowsize", "0.6"}};
}

// The index of a device in model.devices, or -1.
int deviceSlot(const GraphModel& model, const program::Device& d) {
  for (size_t i = 0; i < model.devices.size(); ++i)
    if (model.devices[i] == d) return int(i);
  return -1;
}

// One cluster per device; the cluster index of each device slot (-1: none).
std::vector<int> styleDeviceClusters(const GraphModel& model, const LayoutOptions& options, StyledGraph& s) {
  std::vector<int> clusterOfDevice(model.devices.size(), -1);
  if (options.device_regions) {
    for (size_t i = 0; i < model.devices.size(); ++i) {
      const DeviceStyle ds = deviceStyle(model.devices[i]);
      StyledGraph::Cluster c;
      c.name = "cluster_d" + std::to_string(i);
      c.attributes = {{"label", model.devices[i].str()},
                      {"style", "rounded,filled"},
                      {"fillcolor", ds.region.hex()},
                      {"color", ds.stroke.lighter(0.35).hex()},
                      {"fontcolor", ds.stroke.hex()},
                      {"fontsize", "16"},
                      {"penwidth", "1.5"},
                      {"margin", "14"}};
      clusterOfDevice[i] = int(s.clusters.size());
      s.clusters.push_back(std::move(c));
    }
  }
  return clusterOfDevice;
}

// A node's shape, size, colours and HTML label (with the diff mark).
Attributes nodeAttributes(const GraphNode& node) {
  const NodeSize size = nodeSize(node);
  DeviceStyle style = deviceStyle(node.device);
  std::string shape = "box", extraStyle;
  switch (node.kind) {
    case NodeKind::Kernel: extraStyle = "rounded"; break;
    case NodeKind::Delegate: shape = "box"; extraStyle = "bold"; break;
    case NodeKind::CopyH2D: shape = "rarrow"; style = h2dCopyStyle(); break;
    case NodeKind::CopyD2H: shape = "larrow"; style = d2hCopyStyle(); break;
    case NodeKind::Control: shape = "box"; extraStyle = "dashed"; break;
    case NodeKind::Input: shape = "invhouse"; break;
    case NodeKind::Output: shape = "house"; break;
    case NodeKind::Constant: shape = "note"; break;
    case NodeKind::Unbound: shape = "box"; extraStyle = "dashed"; break;
    case NodeKind::Group:
      shape = "box3d";
      if (!node.has_device) style = mixedStyle();
      break;
    case NodeKind::Stub: shape = "box"; extraStyle = "rounded,dashed"; break;
  }
  // Diff views: "+", "−" or "~" before the title, in the change's colour.
  std::string mark;
  if (node.change != Change::None) {
    const char* sign = node.change == Change::Added ? "+ " : node.change == Change::Removed ? "\u2212 " : "~ ";
    mark = "<FONT COLOR=\"" + changeColour(node.change).hex() + "\">" + sign + "</FONT>";
  }
  std::string label = "<" + mark + "<B>" + htmlEscape(node.title) + "</B>";
  if (!node.subtitle.empty()) label += "<BR/><FONT POINT-SIZE=\"8\">" + htmlEscape(node.subtitle) + "</FONT>";
  label += ">";
  Attributes a = {{"label", label},
                  {"shape", shape},
                  {"width", inches(size.width)},
                  {"height", inches(size.height)},
                  {"fillcolor", style.fill.hex()},
                  {"color", style.stroke.hex()},
                  {"fontsize", "10"},
                  {"tooltip", node.change_note.empty() ? node.tooltip : node.change_note + "\n\n" + node.tooltip},
                  {"id", node.key}};
  if (node.change == Change::Removed) extraStyle += extraStyle.empty() ? "dashed" : ",dashed";
  if (!extraStyle.empty()) a.emplace_back("style", "filled," + extraStyle);
  if (node.change != Change::None) {
    // The change's colour replaces the border; the fill keeps the device.
    for (auto& [key, value] : a)
      if (key == "color") value = changeColour(node.change).hex();
    a.emplace_back("penwidth", "3.5");
  } else if (node.kind == NodeKind::Delegate || node.kind == NodeKind::CopyH2D || node.kind == NodeKind::CopyD2H) {
    a.emplace_back("penwidth", "2");
  }
  return a;
}

// Inputs (outputs) of one region in one row, in the method's order.
std::optional<StyledGraph::OrderChain> orderChain(const GraphModel& model, const LayoutOptions& options,
                                                 const std::vector<int>& clusterOfDevice, NodeKind kind) {
  StyledGraph::OrderChain chain;
  bool oneRegion = true;
  bool regionKnown = false;
  program::Device region{};
  for (size_t i = 0; i < model.nodes.size(); ++i) {
    const GraphNode& node = model.nodes[i];
    if (node.kind != kind) continue;
    chain.nodes.push_back(i);
    if (chain.nodes.size() == 1) {
      regionKnown = node.has_device;
      region = node.device;
    } else {
      oneRegion = oneRegion && node.has_device == regionKnown && (!regionKnown || node.device == region);
    }
  }
  // A chain across clusters would fight the clusters; long rows help nobody.
  if (chain.nodes.size() < 2 || chain.nodes.size() > 64 || !oneRegion) return std::nullopt;
  if (options.device_regions && regionKnown) {
    const int slot = deviceSlot(model, region);
    chain.cluster = slot >= 0 ? clusterOfDevice[size_t(slot)] : -1;
  }
  return chain;
}

// An edge's colour, label, tooltip, width and weight.
Attributes edgeAttributes(const GraphModel& model, const GraphEdge& edge, bool labels, bool anyStub) {
  const DeviceStyle style = deviceStyle(edge.device);
  Attributes a = {{"color", edge.change != Change::None ? changeColour(edge.change).hex()
                            : edge.implicit_crossing    ? implicitCrossingColour().hex()
                                                        : style.stroke.hex()}};
  if (labels) {
    // A moved value says where it moved ("%3 cpu:0 → cuda:0" → "cpu:0 → cuda:0").
    std::string label = edge.label;
    if (edge.change == Change::Moved && !edge.change_note.empty()) {
      const auto space = edge.change_note.find(' ');
      label += " · " + (space == std::string::npos ? edge.change_note : edge.change_note.substr(space + 1));
    }
    a.emplace_back("label", label);
  }
  std::string tooltip = edge.change_note;
  if (!edge.inside_copies.empty()) {
    // The copies the delegate at this end makes inside itself, as the app
    // draws them: a purple badge at the delegate's end of the edge (its
    // head for an input, its tail for an output), the whole lines in the
    // tooltip. Head and tail labels are placed after dot has laid out the
    // graph: they move no node.
    std::string badges;
    for (const auto& mark : edge.inside_copies) {
      badges += (badges.empty() ? "" : "\n") + std::string("\u25c6 ") + mark.badge;
      tooltip += (tooltip.empty() ? "" : "\n") + mark.text;
    }
    a.emplace_back(edge.inside_copies.front().input_side ? "headlabel" : "taillabel", badges);
    a.emplace_back("labelfontcolor", insideCopyColour().hex());
    a.emplace_back("labelfontsize", "8");
  }
  if (!tooltip.empty()) a.emplace_back("tooltip", tooltip);
  if (edge.crosses_device || edge.change != Change::None) a.emplace_back("penwidth", "2.4");
  if (edge.implicit_crossing || edge.change == Change::Removed) a.emplace_back("style", "dashed");
  if (edge.merged_values > 1) a.emplace_back("penwidth", "2");
  if (anyStub && model.nodes[edge.from].kind != NodeKind::Stub) a.emplace_back("weight", "10");
  return a;
}

}  // namespace

StyledGraph styleGraph(const GraphModel& model, const LayoutOptions& options) {
  StyledGraph s;
  styleGraphAttributes(model, options, s);
  const std::vector<int> clusterOfDevice = styleDeviceClusters(model, options, s);
  // The region each node is drawn in: its device's. A group of several
  // devices sits in the region of most of its instructions (node.device); a
  // stub in its reader's region, beside which it stands.
  std::vector<int> clusterOfNode(model.nodes.size(), -1);
  auto clusterOf = [&](const program::Device& device) {
    const int slot = deviceSlot(model, device);
    return slot >= 0 ? clusterOfDevice[size_t(slot)] : -1;
  };
  for (size_t i = 0; i < model.nodes.size(); ++i) {
    const GraphNode& node = model.nodes[i];
    if (node.has_device || (node.kind == NodeKind::Group && !node.devices.empty())) clusterOfNode[i] = clusterOf(node.device);
  }
  for (const GraphEdge& edge : model.edges)
    if (model.nodes[edge.from].kind == NodeKind::Stub && clusterOfNode[edge.from] < 0)
      clusterOfNode[edge.from] = clusterOfNode[edge.to];
  for (size_t i = 0; i < model.nodes.size(); ++i) {
    s.nodes.push_back(nodeAttributes(model.nodes[i]));
    if (options.device_regions && clusterOfNode[i] >= 0) s.clusters[size_t(clusterOfNode[i])].nodes.push_back(i);
  }
  for (NodeKind kind : {NodeKind::Input, NodeKind::Output})
    if (auto chain = orderChain(model, options, clusterOfDevice, kind)) s.chains.push_back(std::move(*chain));

  // Stubs pull their reader sideways as much as the chain of instructions
  // holds it, which staircases a long chain: the chain's edges weigh more.
  bool anyStub = false;
  for (const auto& node : model.nodes) anyStub = anyStub || node.kind == NodeKind::Stub;
  const bool labels = labelsInLayout(model, options);
  for (const GraphEdge& edge : model.edges) s.edges.push_back(edgeAttributes(model, edge, labels, anyStub));
  return s;
}

NodeSize nodeSize(const GraphNode& node) {
  // Average glyph advance of the GUI's and Graphviz's sans fonts: about
  // 0.6 em for the bold title (10 pt) and 0.55 em for the subtitle (8 pt).
  const double titleWidth = double(codePoints(node.title)) * 6.4;
  const double subtitleWidth = double(codePoints(node.subtitle)) * 4.6;
  double padding = 22;
  double height = 36;
  double minimum = 70;
  switch (node.kind) {
    case NodeKind::CopyH2D:
    case NodeKind::CopyD2H:
      padding = 44;  // room for the arrow head
      height = 38;
      break;
    case NodeKind::Delegate:
      height = 42;
      minimum = 96;
      break;
    case NodeKind::Input:
    case NodeKind::Output:
      padding = 30;
      height = 38;
      break;
    case NodeKind::Group:
      height = 48;
      padding = 30;
      minimum = 110;
      break;
    case NodeKind::Stub:
      height = 30;
      padding = 14;
      minimum = 54;
      break;
    default: break;
  }
  return NodeSize{std::clamp(std::max(titleWidth, subtitleWidth) + padding, minimum, 300.0), height};
}

}  // namespace ptescope::layout
