#include "report/GraphDot.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "layout/DeviceStyle.h"
#include "layout/GraphStyle.h"

namespace ptescope::report {

using namespace layout;

namespace {

// A DOT value: an HTML label (GraphStyle's node labels, whose text parts it
// escaped) as it is; anything else quoted. Only `label` may be markup, as in
// GraphvizLayout: a tooltip or any other value read from a file that happens
// to look like "<...>" must not reach dot unquoted.
std::string quoted(const std::string& value, std::string_view key = {}) {
  if (key == "label" && value.size() > 1 && value.front() == '<' && value.back() == '>') return value;
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
    out << (i ? ", " : "") << attributes[i].first << "=" << quoted(attributes[i].second, attributes[i].first);
  out << "]";
}

// The graph-wide attributes and the node and edge defaults.
void writeDefaults(std::ostringstream& out, const StyledGraph& style) {
  for (const auto& [key, value] : style.graph) out << "  " << key << "=" << quoted(value, key) << ";\n";
  out << "  node ";
  writeAttributes(out, style.nodeDefaults);
  out << ";\n  edge ";
  writeAttributes(out, style.edgeDefaults);
  out << ";\n";
}

// Graphviz coordinates (points, y up) of a scene point in `layout`.
std::string pointText(const GraphLayout& layout, PointF p) {
  char text[64];
  std::snprintf(text, sizeof text, "%.2f,%.2f", p.x, layout.bounds.height - p.y);
  return text;
}

// The laid-out graph as DOT that Graphviz draws without laying it out
// again (layout=nop2: the positions and edge routes given): device
// regions become filled boxes drawn first, under the nodes.
std::string pinnedDotText(const GraphLayout& layout, const LayoutOptions& options) {
  const GraphModel& model = layout.model;
  LayoutOptions flat = options;
  flat.device_regions = false;
  StyledGraph style = styleGraph(model, flat);
  std::ostringstream out;
  out << "// ptescope: method '" << model.method_name << "', " << model.nodes.size() << " nodes, " << model.edges.size()
      << " edges, laid out by ptescope in stripes.\n"
      << "// layout=nop2 makes dot draw it as is, in seconds; without that line dot would lay out\n"
      << "// all " << model.nodes.size() << " nodes at once, which takes very long.\n";
  out << "digraph ptescope {\n  layout=\"nop2\";\n  bb=\"0,0," << layout.bounds.width << "," << layout.bounds.height
      << "\";\n";
  writeDefaults(out, style);
  for (size_t r = 0; r < layout.regions.size(); ++r) {
    const auto& region = layout.regions[r];
    const DeviceStyle ds = deviceStyle(region.device);
    Attributes a = {{"shape", "box"},
                    {"style", "rounded,filled"},
                    {"fillcolor", ds.region.hex()},
                    {"color", ds.stroke.lighter(0.35).hex()},
                    {"fontcolor", ds.stroke.hex()},
                    {"fontsize", "16"},
                    {"label", region.title},
                    {"labelloc", "t"},
                    {"width", inches(region.rect.width)},
                    {"height", inches(region.rect.height)},
                    {"pos", pointText(layout, PointF{region.rect.x + region.rect.width / 2,
                                                     region.rect.y + region.rect.height / 2})}};
    out << "  region" << r << " ";
    writeAttributes(out, a);
    out << ";\n";
  }
  for (size_t n = 0; n < model.nodes.size(); ++n) {
    Attributes a = style.nodes[n];
    a.emplace_back("pos", pointText(layout, layout.nodes[n].center));
    out << "  n" << n << " ";
    writeAttributes(out, a);
    out << ";\n";
  }
  for (size_t e = 0; e < model.edges.size(); ++e) {
    Attributes a = style.edges[e];
    const auto& g = layout.edges[e];
    std::string pos;
    if (g.arrow_tip) pos = "e," + pointText(layout, *g.arrow_tip);
    for (const auto& p : g.path) pos += (pos.empty() ? "" : " ") + pointText(layout, p);
    a.emplace_back("pos", pos);
    if (g.label_position) a.emplace_back("lp", pointText(layout, *g.label_position));
    else a.erase(std::remove_if(a.begin(), a.end(), [](const auto& kv) { return kv.first == "label"; }), a.end());
    out << "  n" << model.edges[e].from << " -> n" << model.edges[e].to << " ";
    writeAttributes(out, a);
    out << ";\n";
  }
  out << "}\n";
  return out.str();
}

}  // namespace

std::string toDot(const GraphModel& model, const LayoutOptions& options) {
  const StyledGraph style = styleGraph(model, options);
  std::ostringstream out;
  out << "// ptescope: method '" << model.method_name << "', " << model.nodes.size() << " nodes, " << model.edges.size()
      << " edges\n";
  out << "digraph ptescope {\n";
  writeDefaults(out, style);
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
    for (const auto& [key, value] : cluster.attributes) out << "    " << key << "=" << quoted(value, key) << ";\n";
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

std::string toPinnedDot(const GraphLayout& layout, const LayoutOptions& options) { return pinnedDotText(layout, options); }

Result<std::string> renderGraph(const GraphModel& model, std::string_view format, const LayoutOptions& options) {
  if (model.nodes.size() <= options.stripe_above) return drawGraph(model, format, {}, options);
  // Laid out in stripes first; Graphviz then only draws.
  auto placed = layoutGraph(model, options);
  if (!placed) return placed.error();
  return drawGraph(model, format, pinnedDotText(placed.value(), options), options);
}

}  // namespace ptescope::report
