// GraphView: the selection (a node or an edge), what it lights up, and
// selecting by instruction or value from outside.
#include "ui/graph/GraphView.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "ui/graph/GraphCanvas.h"
#include "ui/graph/GraphItems.h"
#include "ui/graph/GraphLayoutJob.h"

namespace ptescope::ui {

using layout::NodeKind;

// ---- selection ----

void GraphView::backgroundClicked() {
  if (!selectedNode_ && !selectedEdge_) return;
  clearSelection();
  emit selectionCleared();
}


void GraphView::selectNode(size_t node, bool emitSignals) {
  if (!layout_ || node >= nodeItems_.size()) return;
  selectedNode_ = node;
  selectedEdge_.reset();
  applyEmphasis();
  if (!emitSignals) return;
  const auto& n = layout_->model.nodes[node];
  if (n.instruction) emit instructionSelected(*n.instruction);
  else if (n.value >= 0) emit valueSelected(n.value);
  // A group is neither an instruction nor a value: the panels drop what
  // they showed (Properties kept the value a Find had passed on the way,
  // "layer 1" on the way to "layer 12", under the group "layer 12"), then
  // the group's own facts are shown.
  else {
    emit selectionCleared();
    if (n.kind == NodeKind::Group) emit groupSelected(node);
  }
}

bool GraphView::stepSelection(int dx, int dy) {
  if (!layout_ || nodeItems_.empty()) return false;
  std::optional<size_t> current = selectedNode_;
  if (!current && selectedEdge_) current = layout_->model.edges[*selectedEdge_].to;
  QPointF from;
  if (current) {
    from = nodeItems_[*current]->sceneBoundingRect().center();
  } else {
    // Nothing selected: the node nearest the top left of what is in sight.
    from = canvas_->mapToScene(canvas_->viewport()->rect()).boundingRect().topLeft();
    dx = dy = 0;
  }
  std::optional<size_t> best;
  double bestScore = 0;
  for (size_t n = 0; n < nodeItems_.size(); ++n) {
    if (current && n == *current) continue;
    const QPointF d = nodeItems_[n]->sceneBoundingRect().center() - from;
    double score = std::hypot(d.x(), d.y());
    if (dx || dy) {
      // Ahead in the arrow's direction; what lies off its line counts double.
      const double along = d.x() * dx + d.y() * dy;
      if (along <= 1) continue;
      score = along + 2 * std::abs(d.x() * dy - d.y() * dx);
    }
    if (!best || score < bestScore) {
      best = n;
      bestScore = score;
    }
  }
  if (!best) return false;
  selectNode(*best, true);
  initialViewHeld_ = false;
  canvas_->ensureVisible(nodeItems_[*best], 40, 40);
  return true;
}

void GraphView::selectEdge(size_t edge, bool emitSignals) {
  if (!layout_ || edge >= edgeItems_.size()) return;
  selectedEdge_ = edge;
  selectedNode_.reset();
  applyEmphasis();
  if (emitSignals) emit valueSelected(layout_->model.edges[edge].value);
}

void GraphView::clearSelection() {
  selectedNode_.reset();
  selectedEdge_.reset();
  // The match Find went to is no longer selected: Find says how many there
  // are, not "1 of 15" over an empty selection (F3 starts from the first).
  if (currentMatch_ >= 0 && currentMatch_ < int(matches_.size())) {
    const auto& current = matches_[size_t(currentMatch_)];
    if (current.kind == Match::Kind::Edge && current.index < edgeItems_.size())
      edgeItems_[current.index]->setFindMatch(true, false);
    else if (current.kind == Match::Kind::Node && current.index < nodeItems_.size())
      nodeItems_[current.index]->setFindMatch(true, false);
    currentMatch_ = -1;
    emit findMatchChanged(-1, int(matches_.size()));
  }
  applyEmphasis();
}

void GraphView::applyEmphasis() {
  if (!layout_) return;
  const auto& model = layout_->model;
  const bool any = selectedNode_ || selectedEdge_;
  std::vector<Emphasis> nodes(nodeItems_.size(), any ? Emphasis::Dimmed : Emphasis::Normal);
  std::vector<Emphasis> edges(edgeItems_.size(), any ? Emphasis::Dimmed : Emphasis::Normal);
  auto relate = [&nodes](size_t n) {
    if (nodes[n] != Emphasis::Selected) nodes[n] = Emphasis::Related;
  };
  // A stub stands for its producer: what reads through the stub reads from
  // the producer, and the producer's stubs are its readers' ends.
  auto producerOf = [&model](size_t n) { return model.nodes[n].stub_source.value_or(n); };
  if (selectedNode_) {
    // The node, what feeds it (producers) and what reads it (consumers).
    nodes[*selectedNode_] = Emphasis::Selected;
    const size_t self = *selectedNode_;
    const bool isStub = model.nodes[self].stub_source.has_value();
    for (size_t e = 0; e < model.edges.size(); ++e) {
      const auto& edge = model.edges[e];
      const bool fromSelf = edge.from == self || (!isStub && model.nodes[edge.from].stub_source == self);
      if (edge.to == self) {
        edges[e] = Emphasis::Related;
        relate(edge.from);
        relate(producerOf(edge.from));
      } else if (fromSelf) {
        edges[e] = Emphasis::Related;
        relate(edge.to);
        relate(edge.from);
      }
    }
    if (isStub) relate(*model.nodes[self].stub_source);
  } else if (selectedEdge_) {
    // The value: its producer and every consumer of it, through stubs too.
    const auto& chosen = model.edges[*selectedEdge_];
    const size_t producer = producerOf(chosen.from);
    relate(producer);
    for (size_t e = 0; e < model.edges.size(); ++e) {
      const auto& edge = model.edges[e];
      if (producerOf(edge.from) != producer) continue;
      const bool carries = edge.value == chosen.value ||
                           std::binary_search(model.nodes[edge.from].stub_values.begin(),
                                              model.nodes[edge.from].stub_values.end(), chosen.value);
      if (!carries) continue;
      edges[e] = Emphasis::Selected;
      relate(edge.to);
      relate(edge.from);
    }
  }
  for (size_t i = 0; i < nodeItems_.size(); ++i) nodeItems_[i]->setEmphasis(nodes[i]);
  for (size_t i = 0; i < edgeItems_.size(); ++i) edgeItems_[i]->setEmphasis(edges[i]);
  announceSelection();
}

QString GraphView::selectionText() const {
  if (!layout_) return {};
  const auto& model = layout_->model;
  if (selectedNode_ && *selectedNode_ < model.nodes.size()) {
    const auto& n = model.nodes[*selectedNode_];
    QString text = QString::fromStdString(n.title);
    if (!n.subtitle.empty()) text += " · " + QString::fromStdString(n.subtitle);
    if (n.instruction && n.subtitle.find('#' + std::to_string(*n.instruction)) == std::string::npos)
      text += " · #" + QString::number(*n.instruction);
    // The open group it sits in: Find matches its title.
    if (n.instruction)
      if (const QString group = groupPathText(*n.instruction); !group.isEmpty()) text += tr(" · in %1").arg(group);
    return text;
  }
  if (selectedEdge_ && *selectedEdge_ < model.edges.size()) {
    const auto& e = model.edges[*selectedEdge_];
    // A removed copy's edge is not in the program: it says what the copy
    // was, its devices those before the edits.
    if (e.change == layout::Change::Removed)
      return tr("%1 (not in the edited program: its devices are those before the edits)")
          .arg(QString::fromStdString(e.change_note));
    // The tensor's name too: Find matches it, so what Find selects shows it.
    const std::string name = valueName(e.value);
    QString text = "%" + QString::number(e.value) + (name.empty() ? QString() : " " + QString::fromStdString(name)) + " " +
                   QString::fromStdString(e.label) + " on " + QString::fromStdString(e.device.str());
    for (const auto& mark : e.inside_copies) text += " · " + QString::fromStdString(mark.badge);
    return text;
  }
  return {};
}

void GraphView::announceSelection() {
  // The canvas says what is selected (screen readers and tests read it from
  // the accessibility tree; setting it sends the change event).
  const QString text = selectionText();
  const QString description = text.isEmpty() ? tr("Nothing selected") : tr("Selected: %1").arg(text);
  if (canvas_->accessibleDescription() != description) canvas_->setAccessibleDescription(description);
}

void GraphView::centreOnNode(size_t node) {
  initialViewHeld_ = false;
  if (node < nodeItems_.size()) canvas_->centerOn(nodeItems_[node]);
}

void GraphView::centreOnEdge(size_t edge) {
  initialViewHeld_ = false;
  if (edge < edgeItems_.size()) canvas_->centerOn(edgeItems_[edge]->boundingRect().center());
}

bool GraphView::deferSelection(std::optional<size_t> instruction, std::optional<int32_t> value) {
  if (layout_ && !layoutPending()) return false;
  pendingInstruction_ = instruction;
  pendingValue_ = value;
  return true;
}

void GraphView::selectInstruction(size_t instruction) {
  if (deferSelection(instruction, std::nullopt)) return;
  // A picture of an earlier program (its successor's layout was cancelled)
  // numbers instructions differently: select nothing rather than the wrong node.
  if (!pictureIsCurrent()) return;
  auto node = layout_->model.nodeOfInstruction(instruction);
  if (!node) return;
  if (layout_->model.nodes[*node].kind == NodeKind::Group) {
    pendingInstruction_ = instruction;
    openGroupsFor(instruction);
    return;
  }
  selectNode(*node, false);
  centreOnNode(*node);
}

bool GraphView::trySelectValue(int32_t value, bool emitSignals) {
  const auto& model = layout_->model;
  // Its own node first (an input, output or constant), then an edge
  // carrying it.
  for (size_t n = 0; n < model.nodes.size(); ++n) {
    if (model.nodes[n].value == value && !layout::isInstructionKind(model.nodes[n].kind)) {
      selectNode(n, false);
      centreOnNode(n);
      if (emitSignals) emit valueSelected(value);
      return true;
    }
  }
  // An edge of the program first: the edges of a removed copy's ghost carry
  // the value with the devices it had before the edits.
  for (const bool removed : {false, true}) {
    for (size_t e = 0; e < model.edges.size(); ++e) {
      if (model.edges[e].value == value && (model.edges[e].change == layout::Change::Removed) == removed) {
        selectEdge(e, emitSignals);
        centreOnEdge(e);
        return true;
      }
    }
  }
  return false;
}

void GraphView::selectValue(int32_t value) {
  if (deferSelection(std::nullopt, value)) return;
  if (!pictureIsCurrent()) return;
  if (trySelectValue(value, false)) return;
  // Only inside a collapsed group (or folded into a node): open the groups
  // around its producer, or its first reader.
  if (!analyzed_ || value < 0 || size_t(value) >= analyzed_->graph.dataflow().values().size()) return;
  const auto& facts = analyzed_->graph.dataflow().value(value);
  std::optional<size_t> where = facts.producer;
  if (!where && !facts.consumers.empty()) where = facts.consumers.front();
  if (!where) return;
  auto node = layout_->model.nodeOfInstruction(*where);
  if (node && layout_->model.nodes[*node].kind == NodeKind::Group) {
    pendingValue_ = value;
    openGroupsFor(*where);
  } else if (node) {
    // A folded constant: show the node that reads it.
    selectNode(*node, false);
    centreOnNode(*node);
  }
}

std::optional<size_t> GraphView::selectedInstruction() const {
  if (!layout_ || !selectedNode_) return std::nullopt;
  return layout_->model.nodes[*selectedNode_].instruction;
}

std::optional<int32_t> GraphView::selectedValue() const {
  if (!layout_) return std::nullopt;
  if (selectedEdge_) return layout_->model.edges[*selectedEdge_].value;
  if (selectedNode_ && layout_->model.nodes[*selectedNode_].value >= 0 &&
      !layout::isInstructionKind(layout_->model.nodes[*selectedNode_].kind))
    return layout_->model.nodes[*selectedNode_].value;
  return std::nullopt;
}

void GraphView::selectPending() {
  const bool announce = std::exchange(pendingAnnounce_, false);
  if (pendingInstruction_) {
    const size_t instruction = *pendingInstruction_;
    pendingInstruction_.reset();
    selectInstruction(instruction);
    if (announce && pendingInstruction_) pendingAnnounce_ = true;  // another group to open first
    else if (announce && selectedInstruction() == instruction) emit instructionSelected(instruction);
  } else if (pendingValue_) {
    const int32_t value = *pendingValue_;
    pendingValue_.reset();
    if (trySelectValue(value, announce)) return;
    if (announce && selectedNode_) {
      // Folded into the node that reads it.
      if (auto i = selectedInstruction()) emit instructionSelected(*i);
    }
  }
}

}  // namespace ptescope::ui
