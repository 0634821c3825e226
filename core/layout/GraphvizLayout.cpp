#include "layout/GraphvizLayout.h"

#include <gvc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <set>
#include <sstream>

#include "layout/DeviceStyle.h"

namespace ptescope::layout {

namespace {

// ---- one style description for the DOT text and the libgvc graph ----

using Attributes = std::vector<std::pair<std::string, std::string>>;

struct StyledGraph {
  Attributes graph;
  Attributes nodeDefaults;
  Attributes edgeDefaults;
  struct Cluster {
    std::string name;
    Attributes attributes;
    std::vector<size_t> nodes;
  };
  std::vector<Cluster> clusters;
  // Inputs (outputs) kept on one row in the method's order by a chain of
  // invisible flat edges; dot would otherwise mirror them at will.
  struct OrderChain {
    int cluster = -1;  // index into clusters, -1 for the root graph
    std::vector<size_t> nodes;
  };
  std::vector<OrderChain> chains;
  std::vector<Attributes> nodes;  // parallel to model.nodes
  std::vector<Attributes> edges;  // parallel to model.edges
};

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

std::string inches(double points) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", points / 72.0);
  return text;
}

bool labelsInLayout(const GraphModel& model, const LayoutOptions& options) {
  return model.edges.size() <= options.edge_labels_up_to;
}

StyledGraph styleGraph(const GraphModel& model, const LayoutOptions& options) {
  StyledGraph s;
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

  std::vector<int> clusterOfDevice(model.devices.size(), -1);
  auto deviceSlot = [&model](const program::Device& d) -> int {
    for (size_t i = 0; i < model.devices.size(); ++i)
      if (model.devices[i] == d) return int(i);
    return -1;
  };
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

  for (size_t i = 0; i < model.nodes.size(); ++i) {
    const GraphNode& node = model.nodes[i];
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
    s.nodes.push_back(std::move(a));
    if (options.device_regions && node.has_device) {
      const int slot = deviceSlot(node.device);
      if (slot >= 0 && clusterOfDevice[size_t(slot)] >= 0) s.clusters[size_t(clusterOfDevice[size_t(slot)])].nodes.push_back(i);
    }
  }

  for (NodeKind kind : {NodeKind::Input, NodeKind::Output}) {
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
    if (chain.nodes.size() < 2 || chain.nodes.size() > 64 || !oneRegion) continue;
    if (options.device_regions && regionKnown) {
      const int slot = deviceSlot(region);
      chain.cluster = slot >= 0 ? clusterOfDevice[size_t(slot)] : -1;
    }
    s.chains.push_back(std::move(chain));
  }

  const bool labels = labelsInLayout(model, options);
  for (const GraphEdge& edge : model.edges) {
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
    if (!edge.change_note.empty()) a.emplace_back("tooltip", edge.change_note);
    if (edge.crosses_device || edge.change != Change::None) a.emplace_back("penwidth", "2.4");
    if (edge.implicit_crossing || edge.change == Change::Removed) a.emplace_back("style", "dashed");
    if (edge.merged_values > 1) a.emplace_back("penwidth", "2");
    s.edges.push_back(std::move(a));
  }
  return s;
}

// ---- DOT text ----

std::string quoted(const std::string& value) {
  if (value.size() > 1 && value.front() == '<' && value.back() == '>') return value;  // HTML label
  std::string out = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

void writeAttributes(std::ostringstream& out, const Attributes& attributes) {
  out << "[";
  for (size_t i = 0; i < attributes.size(); ++i)
    out << (i ? ", " : "") << attributes[i].first << "=" << quoted(attributes[i].second);
  out << "]";
}

// ---- Graphviz access: one context, one caller at a time ----

std::mutex& graphvizMutex() {
  static std::mutex mutex;
  return mutex;
}

// Messages Graphviz reports while we hold the mutex.
std::string& graphvizMessages() {
  static std::string messages;
  return messages;
}

int collectGraphvizMessage(char* message) {
  graphvizMessages() += message;
  return 0;
}

// Created on first use, under the mutex; lives for the process.
GVC_t* graphvizContext() {
  static GVC_t* context = [] {
    agseterrf(collectGraphvizMessage);
    agseterr(AGERR);  // warnings (e.g. "node too small for label") are not errors here
    return gvContext();
  }();
  return context;
}

char* mutableText(const std::string& text) { return const_cast<char*>(text.c_str()); }

struct CGraph {
  Agraph_t* graph = nullptr;
  std::vector<Agnode_t*> nodes;
  std::vector<Agedge_t*> edges;
  std::vector<Agraph_t*> clusters;
  ~CGraph() {
    if (graph) agclose(graph);
  }
};

void setAll(void* object, const Attributes& attributes) {
  for (const auto& [key, value] : attributes) {
    const bool html = value.size() > 1 && value.front() == '<' && value.back() == '>';
    if (html && key == "label") {
      // An HTML label is set through agstrdup_html so dot parses it as markup.
      Agraph_t* root = agroot(object);
      char* markup = agstrdup_html(root, mutableText(value.substr(1, value.size() - 2)));
      agsafeset(object, mutableText(key), markup, mutableText(std::string()));
      agstrfree(root, markup);
    } else {
      agsafeset(object, mutableText(key), mutableText(value), mutableText(std::string()));
    }
  }
}

// Builds the cgraph graph; caller holds the mutex.
void buildCGraph(const GraphModel& model, const StyledGraph& style, CGraph& out) {
  out.graph = agopen(mutableText("ptescope"), Agdirected, nullptr);
  for (const auto& [key, value] : style.graph) agattr(out.graph, AGRAPH, mutableText(key), mutableText(""));
  setAll(out.graph, style.graph);
  for (const auto& [key, value] : style.nodeDefaults) agattr(out.graph, AGNODE, mutableText(key), mutableText(value));
  for (const auto& [key, value] : style.edgeDefaults) agattr(out.graph, AGEDGE, mutableText(key), mutableText(value));
  out.nodes.resize(model.nodes.size());
  for (size_t i = 0; i < model.nodes.size(); ++i) {
    const std::string name = "n" + std::to_string(i);
    out.nodes[i] = agnode(out.graph, mutableText(name), 1);
    setAll(out.nodes[i], style.nodes[i]);
  }
  std::vector<Agraph_t*> clusterGraphs(style.clusters.size(), nullptr);
  for (size_t c = 0; c < style.clusters.size(); ++c) {
    const auto& cluster = style.clusters[c];
    if (cluster.nodes.empty()) continue;
    Agraph_t* sub = agsubg(out.graph, mutableText(cluster.name), 1);
    setAll(sub, cluster.attributes);
    for (size_t n : cluster.nodes) agsubnode(sub, out.nodes[n], 1);
    out.clusters.push_back(sub);
    clusterGraphs[c] = sub;
  }
  for (size_t k = 0; k < style.chains.size(); ++k) {
    const auto& chain = style.chains[k];
    Agraph_t* parent = chain.cluster >= 0 && clusterGraphs[size_t(chain.cluster)] ? clusterGraphs[size_t(chain.cluster)] : out.graph;
    const std::string name = "order" + std::to_string(k);
    Agraph_t* row = agsubg(parent, mutableText(name), 1);
    agsafeset(row, mutableText("rank"), mutableText("same"), mutableText(""));
    for (size_t i = 0; i + 1 < chain.nodes.size(); ++i) {
      Agnode_t* a = agsubnode(row, out.nodes[chain.nodes[i]], 1);
      Agnode_t* b = agsubnode(row, out.nodes[chain.nodes[i + 1]], 1);
      const std::string edgeName = name + "_" + std::to_string(i);
      Agedge_t* e = agedge(row, a, b, mutableText(edgeName), 1);
      agsafeset(e, mutableText("style"), mutableText("invis"), mutableText(""));
    }
  }
  out.edges.resize(model.edges.size());
  for (size_t i = 0; i < model.edges.size(); ++i) {
    const std::string name = "e" + std::to_string(i);
    out.edges[i] = agedge(out.graph, out.nodes[model.edges[i].from], out.nodes[model.edges[i].to], mutableText(name), 1);
    setAll(out.edges[i], style.edges[i]);
  }
}

}  // namespace

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
    default: break;
  }
  return NodeSize{std::clamp(std::max(titleWidth, subtitleWidth) + padding, minimum, 300.0), height};
}

std::string toDot(const GraphModel& model, const LayoutOptions& options) {
  const StyledGraph style = styleGraph(model, options);
  std::ostringstream out;
  out << "// ptescope: method '" << model.method_name << "', " << model.nodes.size() << " nodes, " << model.edges.size()
      << " edges\n";
  out << "digraph ptescope {\n";
  for (const auto& [key, value] : style.graph) out << "  " << key << "=" << quoted(value) << ";\n";
  out << "  node ";
  writeAttributes(out, style.nodeDefaults);
  out << ";\n  edge ";
  writeAttributes(out, style.edgeDefaults);
  out << ";\n";
  std::vector<bool> inCluster(model.nodes.size(), false);
  auto writeChains = [&](int cluster, const char* indent) {
    for (size_t k = 0; k < style.chains.size(); ++k) {
      if (style.chains[k].cluster != cluster) continue;
      out << indent << "subgraph order" << k << " { rank=\"same\"; ";
      for (size_t i = 0; i < style.chains[k].nodes.size(); ++i) out << (i ? " -> " : "") << "n" << style.chains[k].nodes[i];
      out << " [style=\"invis\"]; }\n";
    }
  };
  for (size_t c = 0; c < style.clusters.size(); ++c) {
    const auto& cluster = style.clusters[c];
    if (cluster.nodes.empty()) continue;
    out << "  subgraph " << cluster.name << " {\n";
    for (const auto& [key, value] : cluster.attributes) out << "    " << key << "=" << quoted(value) << ";\n";
    for (size_t n : cluster.nodes) {
      out << "    n" << n << " ";
      writeAttributes(out, style.nodes[n]);
      out << ";\n";
      inCluster[n] = true;
    }
    writeChains(int(c), "    ");
    out << "  }\n";
  }
  writeChains(-1, "  ");
  for (size_t n = 0; n < model.nodes.size(); ++n) {
    if (inCluster[n]) continue;
    out << "  n" << n << " ";
    writeAttributes(out, style.nodes[n]);
    out << ";\n";
  }
  for (size_t e = 0; e < model.edges.size(); ++e) {
    out << "  n" << model.edges[e].from << " -> n" << model.edges[e].to << " ";
    writeAttributes(out, style.edges[e]);
    out << ";\n";
  }
  out << "}\n";
  return out.str();
}

namespace {

bool isCancelled(const std::atomic<bool>* cancel) { return cancel && cancel->load(std::memory_order_relaxed); }

// One dot run over the whole model; fills everything in `layout` except
// the model itself. `progress` gets fractions in [from, to].
Status placeWithDot(const GraphModel& model, const LayoutOptions& options, const std::atomic<bool>* cancel,
                    const ProgressCallback& progress, double from, double to, const std::string& what, GraphLayout& layout) {
  auto report = [&](double fraction, const std::string& phase) {
    if (progress) progress(from + (to - from) * fraction, phase);
  };
  const StyledGraph style = styleGraph(model, options);
  std::unique_lock<std::mutex> lock(graphvizMutex(), std::try_to_lock);
  if (!lock.owns_lock()) {
    report(0.0, "waiting for another layout to finish");
    lock.lock();
  }
  if (isCancelled(cancel)) return makeError(std::string(kLayoutCancelled));
  GVC_t* gvc = graphvizContext();
  graphvizMessages().clear();
  CGraph cg;
  buildCGraph(model, style, cg);
  report(0.1, what);
  const auto start = std::chrono::steady_clock::now();
  if (gvLayout(gvc, cg.graph, "dot") != 0) {
    return makeError("Graphviz could not lay out method '" + model.method_name + "': " +
                     (graphvizMessages().empty() ? std::string("unknown error") : graphvizMessages()));
  }
  layout.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (isCancelled(cancel)) {
    gvFreeLayout(gvc, cg.graph);
    return makeError(std::string(kLayoutCancelled));
  }

  layout.edge_labels_placed = labelsInLayout(model, options);
  const boxf bb = GD_bb(cg.graph);
  const double top = bb.UR.y;
  const double left = bb.LL.x;
  auto toScene = [top, left](pointf p) { return PointF{p.x - left, top - p.y}; };
  layout.bounds = RectF{0, 0, bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y};

  layout.nodes.resize(model.nodes.size());
  for (size_t i = 0; i < model.nodes.size(); ++i) {
    Agnode_t* n = cg.nodes[i];
    layout.nodes[i] = NodeGeometry{toScene(ND_coord(n)), ND_width(n) * 72.0, ND_height(n) * 72.0};
  }
  layout.edges.resize(model.edges.size());
  for (size_t i = 0; i < model.edges.size(); ++i) {
    Agedge_t* e = cg.edges[i];
    EdgeGeometry& geometry = layout.edges[i];
    if (const splines* spl = ED_spl(e); spl && spl->size > 0) {
      for (int b = 0; b < spl->size; ++b) {
        const bezier& bz = spl->list[b];
        // Consecutive pieces share their joining point.
        for (int p = (b == 0 ? 0 : 1); p < bz.size; ++p) geometry.path.push_back(toScene(bz.list[p]));
        if (b == spl->size - 1 && bz.eflag) geometry.arrow_tip = toScene(bz.ep);
      }
    }
    if (geometry.path.empty()) {
      // dot leaves an edge unrouted only in degenerate cases; a straight
      // line keeps the picture honest.
      const auto& a = layout.nodes[model.edges[i].from].center;
      const auto& b = layout.nodes[model.edges[i].to].center;
      geometry.path = {a, a, b, b};
    }
    if (const textlabel_t* label = ED_label(e); label && label->set) geometry.label_position = toScene(label->pos);
  }
  for (Agraph_t* sub : cg.clusters) {
    const std::string name = agnameof(sub);
    const size_t slot = std::stoul(name.substr(std::string("cluster_d").size()));
    const boxf cb = GD_bb(sub);
    const PointF topLeft = toScene(pointf{cb.LL.x, cb.UR.y});
    RegionGeometry region;
    region.device = model.devices[slot];
    region.title = region.device.str();
    region.rect = RectF{topLeft.x, topLeft.y, cb.UR.x - cb.LL.x, cb.UR.y - cb.LL.y};
    layout.regions.push_back(region);
  }
  gvFreeLayout(gvc, cg.graph);
  report(1.0, "positions read");
  return Ok{};
}

// The model restricted to some nodes, with the edges between them.
GraphModel subModel(const GraphModel& model, const std::vector<size_t>& nodes, std::vector<size_t>& edgeIndices) {
  GraphModel sub;
  sub.method_name = model.method_name;
  sub.instruction_count = model.instruction_count;
  std::vector<long> remap(model.nodes.size(), -1);
  std::set<program::Device> devices;
  for (size_t n : nodes) {
    remap[n] = long(sub.nodes.size());
    sub.nodes.push_back(model.nodes[n]);
    if (model.nodes[n].has_device) devices.insert(model.nodes[n].device);
  }
  for (size_t e = 0; e < model.edges.size(); ++e) {
    const auto& edge = model.edges[e];
    if (remap[edge.from] < 0 || remap[edge.to] < 0) continue;
    GraphEdge copy = edge;
    copy.from = size_t(remap[edge.from]);
    copy.to = size_t(remap[edge.to]);
    sub.edges.push_back(std::move(copy));
    edgeIndices.push_back(e);
  }
  sub.devices.assign(devices.begin(), devices.end());
  return sub;
}

// Big graphs: dot's crossing reduction and positioning grow much faster
// than the graph (8,500 nodes take about 40 s in one run, 850 nodes 0.2 s),
// so the graph is cut along program order into stripes of about
// stripe_nodes nodes, each laid out on its own and stacked top to bottom.
// The total is linear in the size, every stripe reports progress and the
// cancel flag is honoured between stripes. Edges between stripes are drawn
// as plain curves from the source's bottom to the target's top.
Status placeInStripes(const GraphModel& model, const LayoutOptions& options, const std::atomic<bool>* cancel,
                      const ProgressCallback& progress, GraphLayout& layout) {
  std::vector<size_t> byOrder(model.nodes.size());
  for (size_t i = 0; i < byOrder.size(); ++i) byOrder[i] = i;
  std::stable_sort(byOrder.begin(), byOrder.end(),
                   [&model](size_t a, size_t b) { return model.nodes[a].order < model.nodes[b].order; });
  std::vector<std::vector<size_t>> stripes(1);
  for (size_t k = 0; k < byOrder.size(); ++k) {
    auto& current = stripes.back();
    // Cut only where the order changes, so that a constant stays with the
    // instruction that reads it.
    if (current.size() >= options.stripe_nodes && model.nodes[byOrder[k]].order != model.nodes[current.back()].order)
      stripes.emplace_back();
    stripes.back().push_back(byOrder[k]);
  }

  layout.nodes.assign(model.nodes.size(), NodeGeometry{});
  layout.edges.assign(model.edges.size(), EdgeGeometry{});
  std::vector<bool> placedEdge(model.edges.size(), false);
  constexpr double kStripeGap = 36;
  double y = 0, width = 0;
  bool allLabels = true;
  for (size_t s = 0; s < stripes.size(); ++s) {
    if (isCancelled(cancel)) return makeError(std::string(kLayoutCancelled));
    std::vector<size_t> edgeIndices;
    GraphModel sub = subModel(model, stripes[s], edgeIndices);
    if (s > 0) sub.method_name += " (continued)";
    GraphLayout part;
    const double from = double(s) / double(stripes.size());
    const double to = double(s + 1) / double(stripes.size());
    auto status = placeWithDot(sub, options, cancel, progress, from, to,
                               "Graphviz dot: stripe " + std::to_string(s + 1) + " of " + std::to_string(stripes.size()) +
                                   " (" + std::to_string(model.nodes.size()) + " nodes in all)",
                               part);
    if (!status) return status;
    layout.seconds += part.seconds;
    allLabels = allLabels && part.edge_labels_placed;
    auto shift = [y](PointF p) { return PointF{p.x, p.y + y}; };
    for (size_t k = 0; k < stripes[s].size(); ++k) {
      NodeGeometry g = part.nodes[k];
      g.center = shift(g.center);
      layout.nodes[stripes[s][k]] = g;
    }
    for (size_t k = 0; k < edgeIndices.size(); ++k) {
      EdgeGeometry g = part.edges[k];
      for (auto& p : g.path) p = shift(p);
      if (g.arrow_tip) g.arrow_tip = shift(*g.arrow_tip);
      if (g.label_position) g.label_position = shift(*g.label_position);
      layout.edges[edgeIndices[k]] = std::move(g);
      placedEdge[edgeIndices[k]] = true;
    }
    for (auto region : part.regions) {
      region.rect.y += y;
      layout.regions.push_back(region);
    }
    width = std::max(width, part.bounds.width);
    y += part.bounds.height + kStripeGap;
  }
  layout.bounds = RectF{0, 0, width, std::max(0.0, y - kStripeGap)};
  layout.edge_labels_placed = allLabels;
  for (size_t e = 0; e < model.edges.size(); ++e) {
    if (placedEdge[e]) continue;
    const auto& a = layout.nodes[model.edges[e].from];
    const auto& b = layout.nodes[model.edges[e].to];
    const PointF start{a.center.x, a.center.y + a.height / 2};
    const PointF tip{b.center.x, b.center.y - b.height / 2};
    const PointF end{tip.x, tip.y - 6};
    const double bend = std::max(24.0, (end.y - start.y) / 3);
    layout.edges[e].path = {start, PointF{start.x, start.y + bend}, PointF{end.x, end.y - bend}, end};
    layout.edges[e].arrow_tip = tip;
  }
  return Ok{};
}

}  // namespace

Result<GraphLayout> layoutGraph(GraphModel model, const LayoutOptions& options, const std::atomic<bool>* cancel,
                                const ProgressCallback& progress) {
  if (isCancelled(cancel)) return makeError(std::string(kLayoutCancelled));
  GraphLayout layout;
  Status placed = model.nodes.size() > options.stripe_above
                      ? placeInStripes(model, options, cancel, progress, layout)
                      : placeWithDot(model, options, cancel, progress, 0.0, 1.0,
                                     "Graphviz dot: placing " + std::to_string(model.nodes.size()) + " nodes and routing " +
                                         std::to_string(model.edges.size()) + " edges",
                                     layout);
  if (!placed) return placed.error();
  layout.model = std::move(model);
  if (progress) progress(1.0, "done");
  return layout;
}

Result<std::string> renderGraph(const GraphModel& model, std::string_view format, const LayoutOptions& options) {
  const StyledGraph style = styleGraph(model, options);
  std::lock_guard<std::mutex> lock(graphvizMutex());
  GVC_t* gvc = graphvizContext();
  graphvizMessages().clear();
  CGraph cg;
  buildCGraph(model, style, cg);
  if (gvLayout(gvc, cg.graph, "dot") != 0)
    return makeError("Graphviz could not lay out method '" + model.method_name + "': " + graphvizMessages());
  char* data = nullptr;
  unsigned int length = 0;
  const std::string formatName(format);
  const int status = gvRenderData(gvc, cg.graph, formatName.c_str(), &data, &length);
  std::string bytes;
  if (status == 0 && data) bytes.assign(data, length);
  if (data) gvFreeRenderData(data);
  gvFreeLayout(gvc, cg.graph);
  if (status != 0 || bytes.empty())
    return makeError("Graphviz cannot write " + formatName + " here (is its " + formatName + " renderer plugin installed?)" +
                     (graphvizMessages().empty() ? std::string() : ": " + graphvizMessages()));
  return bytes;
}

}  // namespace ptescope::layout
