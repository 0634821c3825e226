// Places a GraphModel with Graphviz `dot` (through libgvc): node positions,
// edge routes as cubic beziers, device-region rectangles. Also runs
// Graphviz's own SVG/PNG renderers in the same child processes (drawGraph);
// the DOT text and the render command's writer are report/GraphDot.h.
//
// Coordinates are points (1/72 inch), y pointing down, origin at the top
// left of the drawing, as a QGraphicsScene wants them.
//
// Graphviz keeps global state, is not re-entrant and cannot be interrupted,
// so every dot run happens in a forked child process (see
// GraphvizLayout.cpp): the caller's thread polls the child, the cancel flag
// and the time budget every 20 ms and kills the child when told to stop, so
// Cancel takes effect at once and several layouts (or two stripes of one)
// run side by side on separate cores. When the budget runs out the parts
// not laid out yet get quickLayout() positions: there is always a picture.
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
  // Some or all of it has quickLayout() positions (the time budget ran out);
  // `note` says so in a sentence.
  bool quick = false;
  std::string note;
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
  // Wall-clock budget for the whole layout in seconds (0: none). Stripes not
  // laid out when it runs out get quickLayout() positions.
  double time_budget_seconds = 0;
  // Dot processes run at once for the stripes of one layout.
  size_t parallel_layouts = 2;
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

// Lays out the model. Fails with a message when Graphviz reports an error,
// or with kLayoutCancelled when `cancel` became true. Safe to call from any
// thread.
Result<GraphLayout> layoutGraph(GraphModel model, const LayoutOptions& options = {},
                                const std::atomic<bool>* cancel = nullptr, const ProgressCallback& progress = {});

// Positions without Graphviz, linear in the graph: rows by longest path in
// program order, filled left to right. The fallback picture when a budget
// runs out.
GraphLayout quickLayout(const GraphModel& model);

// Draws the model with Graphviz's renderer for `format` ("svg", "png") in a
// layout child: laid out by dot, or (pinnedDot not empty) the positions in
// that pinned DOT text drawn as they are. report::renderGraph (the writer
// users call) decides which.
Result<std::string> drawGraph(const GraphModel& model, std::string_view format, std::string pinnedDot,
                              const LayoutOptions& options);

inline constexpr std::string_view kLayoutCancelled = "layout cancelled";

}  // namespace ptescope::layout
