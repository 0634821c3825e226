// The one style description of a graph model that Graphviz gets: graph,
// node and edge attributes (shapes, sizes, labels, colours per node kind and
// device), one cluster per device and the invisible chains that keep inputs
// and outputs in order. The layout builds dot's input from it (sizes,
// labels and clusters decide the positions); the DOT writers in
// core/report (report/GraphDot.h) write the same description as text, so
// the file a user renders and the picture ptescope lays out agree.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "layout/GraphModel.h"
#include "layout/GraphvizLayout.h"

namespace ptescope::layout {

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

StyledGraph styleGraph(const GraphModel& model, const LayoutOptions& options);
// Whether dot places the edge labels (small graphs) or the viewer does.
bool labelsInLayout(const GraphModel& model, const LayoutOptions& options);
// Points as Graphviz's inches ("1.250").
std::string inches(double points);

}  // namespace ptescope::layout
