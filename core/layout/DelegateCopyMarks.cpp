#include "layout/DelegateCopyMarks.h"

#include "program/Text.h"

namespace ptescope::layout {

void markDelegateCopies(GraphModel& model, const analysis::DelegateTransfers& transfers) {
  if (transfers.transfers.empty()) return;
  // The edges at each node, in model order.
  std::vector<std::vector<size_t>> edgesAt(model.nodes.size());
  for (size_t e = 0; e < model.edges.size(); ++e) {
    if (model.edges[e].from < edgesAt.size()) edgesAt[model.edges[e].from].push_back(e);
    if (model.edges[e].to < edgesAt.size() && model.edges[e].to != model.edges[e].from) edgesAt[model.edges[e].to].push_back(e);
  }
  for (const auto& t : transfers.transfers) {
    const auto node = model.nodeOfInstruction(t.instruction);
    if (!node || *node >= model.nodes.size()) continue;
    InsideCopyMark mark;
    mark.delegate = t.delegate;
    mark.direction = t.direction;
    mark.bytes = t.bytes;
    mark.input_side = t.onInputSide();
    mark.cuda_graph = analysis::isCudaGraphReplay(t.kind);
    mark.badge = t.shortText();  // "inside delegate 0: h2d 64 B"
    mark.text = t.text() + ", " + program::bytesText(int64_t(t.bytes));
    model.nodes[*node].tooltip += "\n" + mark.text;
    model.nodes[*node].inside_copies.push_back(mark);
    // On the boundary edge only where the delegate has a node of its own: a
    // collapsed group's edges carry what crosses the group, not the call.
    if (model.nodes[*node].kind != NodeKind::Delegate) continue;
    for (size_t e : edgesAt[*node]) {
      auto& edge = model.edges[e];
      const bool boundary = mark.input_side ? edge.to == *node : edge.from == *node;
      if (boundary && edge.value == t.value) {
        edge.inside_copies.push_back(mark);
        break;  // one copy: one mark, however many readers the output has
      }
    }
  }
}

}  // namespace ptescope::layout
