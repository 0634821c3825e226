// GraphView: Find (operators, backends, copies, #instructions, %values,
// tensor names, what collapsed groups hide).
#include "ui/graph/GraphView.h"

#include <algorithm>
#include <cctype>

#include "ui/graph/GraphItems.h"
#include "ui/graph/GraphLayoutJob.h"

namespace ptescope::ui {

using layout::NodeKind;

// ---- find ----

std::string GraphView::valueName(int32_t value) const {
  if (!analyzed_) return {};
  const auto& values = program::items(analyzed_->graph.method().values);
  if (value < 0 || size_t(value) >= values.size()) return {};
  const auto* t = values[size_t(value)].tensor();
  if (!t || !t->extra_tensor_info || !t->extra_tensor_info->fully_qualified_name) return {};
  return *t->extra_tensor_info->fully_qualified_name;
}

void GraphView::computeMatches() {
  matches_.clear();
  for (auto* item : nodeItems_) item->setFindMatch(false, false);
  for (auto* item : edgeItems_) item->setFindMatch(false, false);
  if (!layout_ || findText_.trimmed().isEmpty()) return;
  const QString query = findText_.trimmed();
  const std::string needle = query.toLower().toStdString();
  auto contains = [&needle](const std::string& text) {
    std::string lower = text;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return lower.find(needle) != std::string::npos;
  };
  const auto& model = layout_->model;

  // "%12": that value exactly, not %120.
  bool isValueQuery = false;
  int32_t queriedValue = -1;
  if (query.startsWith('%')) {
    bool ok = false;
    queriedValue = query.mid(1).toInt(&ok);
    isValueQuery = ok;
  }

  std::vector<std::pair<size_t, Match>> found;  // (program order, match)
  for (size_t n = 0; n < model.nodes.size(); ++n) {
    const auto& node = model.nodes[n];
    bool hit = false;
    if (isValueQuery) {
      hit = (node.value == queriedValue && !layout::isInstructionKind(node.kind)) ||
            std::find(node.folded_constants.begin(), node.folded_constants.end(), queriedValue) != node.folded_constants.end();
    } else {
      hit = contains(node.title);
      for (const auto& term : node.search_terms) hit = hit || contains(term);
      if (!hit && node.kind == NodeKind::Group && analyzed_) {
        // What the group hides: operator and backend names of its instructions.
        const auto& group = analyzed_->graph.groups().groups[size_t(node.group)];
        const auto& instructions = analyzed_->graph.dataflow().instructions();
        for (size_t i = group.first; i < group.last && !hit; ++i) hit = contains(instructions[i].label);
      }
    }
    if (hit) found.push_back({node.order, Match{false, n}});
  }
  for (size_t e = 0; e < model.edges.size(); ++e) {
    const auto& edge = model.edges[e];
    const bool hit = isValueQuery ? edge.value == queriedValue : (!needle.empty() && contains(valueName(edge.value)));
    if (hit) found.push_back({model.nodes[edge.to].order, Match{true, e}});
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [order, match] : found) {
    matches_.push_back(match);
    if (match.edge) edgeItems_[match.index]->setFindMatch(true, false);
    else nodeItems_[match.index]->setFindMatch(true, false);
  }
}

int GraphView::find(const QString& text) {
  findText_ = text;
  currentMatch_ = -1;
  computeMatches();
  if (!matches_.empty()) goToMatch(0);
  else emit findMatchChanged(-1, 0);
  return int(matches_.size());
}

bool GraphView::findNext() {
  if (matches_.empty()) return false;
  goToMatch((currentMatch_ + 1) % int(matches_.size()));
  return true;
}

bool GraphView::findPrevious() {
  if (matches_.empty()) return false;
  goToMatch((currentMatch_ - 1 + int(matches_.size())) % int(matches_.size()));
  return true;
}

void GraphView::goToMatch(int index) {
  if (currentMatch_ >= 0 && currentMatch_ < int(matches_.size())) {
    const Match& old = matches_[size_t(currentMatch_)];
    if (old.edge) edgeItems_[old.index]->setFindMatch(true, false);
    else nodeItems_[old.index]->setFindMatch(true, false);
  }
  currentMatch_ = index;
  const Match& match = matches_[size_t(index)];
  if (match.edge) {
    edgeItems_[match.index]->setFindMatch(true, true);
    selectEdge(match.index, true);
    centreOnEdge(match.index);
  } else {
    nodeItems_[match.index]->setFindMatch(true, true);
    selectNode(match.index, true);
    centreOnNode(match.index);
  }
  emit findMatchChanged(index, int(matches_.size()));
}

}  // namespace ptescope::ui
