// DOT text and pictures of a method's graph: the styled DOT that `dot`
// lays out itself, the pinned DOT of a graph laid out already (every
// position in it, layout=nop2), and SVG/PNG drawn by Graphviz's renderers.
// The style is layout/GraphStyle.h's, the layout and the Graphviz processes
// are core/layout's; this module writes.
#pragma once

#include <string>
#include <string_view>

#include "layout/GraphModel.h"
#include "layout/GraphvizLayout.h"
#include "util/Result.h"

namespace ptescope::report {

// The styled DOT text of the graph: shapes and colours per node kind and
// device, one cluster per device, edge labels. Readable by `dot` as is.
std::string toDot(const layout::GraphModel& model, const layout::LayoutOptions& options = {});

// DOT text of a laid-out graph with every position and edge route in it
// and layout=nop2, so that any `dot` draws it at once as it is (what
// `render -o F.dot` writes for graphs too big for one dot run).
std::string toPinnedDot(const layout::GraphLayout& layout, const layout::LayoutOptions& options = {});

// Renders with Graphviz's renderer for `format` ("svg", "png"). Graphs of
// more than stripe_above nodes are laid out in stripes first and drawn with
// their positions pinned. Fails when the time budget runs out. Needs no
// display.
Result<std::string> renderGraph(const layout::GraphModel& model, std::string_view format,
                                const layout::LayoutOptions& options = {});

}  // namespace ptescope::report
