// Places a GraphModel with Graphviz `dot` (through libgvc): node positions,
// edge routes as cubic beziers, device-region rectangles. Also writes the
// styled DOT text and renders SVG/PNG with Graphviz's own renderers, which
// is what the headless `ptescope-cli render` uses.
//
// Coordinates are points (1/72 inch), y pointing down, origin at the top
// left of the drawing, as a QGraphicsScene wants them.
//
// Graphviz keeps global state and is not re-entrant: every call into it in
// this process goes through one mutex (see GraphvizLayout.cpp), so layouts
// from several threads queue instead of crashing. A cancel flag is checked
// before and after the (uninterruptible) dot run; a cancelled layout returns
// an error and its result is dropped.
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "layout/GraphModel.h"
#include "util/Result.h"

namespace ptescope::layout {

struct PointF {
  double x = 0;
  double y = 0;
};

struct RectF {
  double x = 0;
  double y = 0;
  double width = 0;
  double height = 0;
};

struct NodeGeometry {
  PointF center;
  double width = 0;
  double height = 0;
};

struct EdgeGeometry {
  // Cubic bezier: the start point, then (control, control, end) triples.
  std::vector<PointF> path;
  // Where the arrowhead's tip is, when dot drew one after the path's end.
  std::optional<PointF> arrow_tip;
  // Centre of the edge label when dot placed it (small graphs); otherwise
  // the viewer puts the label along the path.
  std::optional<PointF> label_position;
};

struct RegionGeometry {
  program::Device device;
  std::string title;  // "cpu:0", "cuda:0"
  RectF rect;
};

struct GraphLayout {
  GraphModel model;
  RectF bounds;
  std::vector<NodeGeometry> nodes;  // parallel to model.nodes
  std::vector<EdgeGeometry> edges;  // parallel to model.edges
  std::vector<RegionGeometry> regions;
  bool edge_labels_placed = false;  // dot reserved room for the edge labels
  double seconds = 0;               // wall time spent in Graphviz
};

struct LayoutOptions {
  // Group nodes of each device into one cluster (a translucent region).
  bool device_regions = true;
  // Let dot place edge labels (room between ranks) up to this many edges;
  // above it labels double the work and the viewer places them instead.
  size_t edge_labels_up_to = 400;
  // Above this many nodes, cheaper dot settings (fewer crossing-reduction
  // and network-simplex iterations) keep big layouts from running for
  // minutes at the price of more crossings.
  size_t economy_above = 1200;
  // Above this many nodes the graph is laid out in stripes of about
  // stripe_nodes nodes along program order, stacked (see
  // GraphvizLayout.cpp): linear time, progress per stripe, cancellable
  // between stripes.
  size_t stripe_above = 1500;
  size_t stripe_nodes = 500;
};

// Size of a node's box in points, from its kind and text. The GUI draws the
// same box.
struct NodeSize {
  double width = 0;
  double height = 0;
};
NodeSize nodeSize(const GraphNode& node);

// Phase text and a fraction in [0, 1]. Graphviz gives no progress of its
// own, so during the dot run the fraction stands still; the phase says so.
using ProgressCallback = std::function<void(double fraction, const std::string& phase)>;

// The styled DOT text of the graph: shapes and colours per node kind and
// device, one cluster per device, edge labels. Readable by `dot` as is.
std::string toDot(const GraphModel& model, const LayoutOptions& options = {});

// Lays out the model. Fails with a message when Graphviz reports an error,
// or with kLayoutCancelled when `cancel` became true. Safe to call from any
// thread.
Result<GraphLayout> layoutGraph(GraphModel model, const LayoutOptions& options = {},
                                const std::atomic<bool>* cancel = nullptr, const ProgressCallback& progress = {});

// Lays out and renders with Graphviz's renderer for `format` ("svg",
// "png"), in one dot run (no stripes, so a graph of thousands of nodes takes
// a while). Needs no display.
Result<std::string> renderGraph(const GraphModel& model, std::string_view format, const LayoutOptions& options = {});

inline constexpr std::string_view kLayoutCancelled = "layout cancelled";

}  // namespace ptescope::layout
