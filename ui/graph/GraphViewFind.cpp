// GraphView: Find (operators, backends, copies, #instructions, %values,
// tensor names, what collapsed groups hide).
#include "ui/graph/GraphView.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <QRegularExpression>

#include "ui/common/FindWords.h"
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

namespace {

// A Find query: "#12" (an instruction), "%12" (a value), and words that must
// all be in what is matched (FindWords: the Values filter's rule too).
struct FindQuery {
  std::optional<size_t> instruction;
  std::optional<int32_t> value;
  std::vector<std::string> words;  // lower case
  bool empty() const { return !instruction && !value && words.empty(); }
};

FindQuery parseQuery(const QString& text) {
  FindQuery query;
  for (const QString& token : text.split(QRegularExpression(QStringLiteral("\\s+")), Qt::SkipEmptyParts)) {
    bool ok = false;
    if (token.size() > 1 && token.startsWith('#')) {
      const qulonglong n = token.mid(1).toULongLong(&ok);
      if (ok && !query.instruction) {
        query.instruction = size_t(n);
        continue;
      }
    } else if (token.size() > 1 && token.startsWith('%')) {
      const int n = token.mid(1).toInt(&ok);
      if (ok && n >= 0 && !query.value) {
        query.value = n;
        continue;
      }
    }
    for (auto& word : findWords(token.toStdString())) query.words.push_back(std::move(word));
  }
  return query;
}

}  // namespace

std::vector<int> GraphView::enclosingGroups(const layout::GraphNode& node) const {
  if (!analyzed_) return {};
  if (node.instruction) return analyzed_->graph.groupPathOf(*node.instruction);
  std::vector<int> path;
  const auto& groups = analyzed_->graph.groups().groups;
  if (node.kind == NodeKind::Group && node.group >= 0 && size_t(node.group) < groups.size())
    for (int g = groups[size_t(node.group)].parent; g >= 0 && size_t(g) < groups.size(); g = groups[size_t(g)].parent)
      path.push_back(g);
  return path;
}

QString GraphView::groupPathText(size_t instruction) const {
  if (!analyzed_) return {};
  QStringList titles;
  const auto& groups = analyzed_->graph.groups().groups;
  const auto path = analyzed_->graph.groupPathOf(instruction);
  for (auto g = path.rbegin(); g != path.rend(); ++g)
    if (size_t(*g) < groups.size()) titles << QString::fromStdString(groups[size_t(*g)].title);
  return titles.join(tr(" in "));
}

void GraphView::computeMatches() {
  matches_.clear();
  findInstructions_ = -1;
  for (auto* item : nodeItems_) item->setFindMatch(false, false);
  for (auto* item : edgeItems_) item->setFindMatch(false, false);
  if (!layout_ || !analyzed_) return;
  const FindQuery query = parseQuery(findText_);
  if (query.empty()) return;
  const auto& model = layout_->model;
  const auto& instructions = analyzed_->graph.dataflow().instructions();
  const auto& valueFacts = analyzed_->graph.dataflow().values();

  struct Found {
    size_t order;  // program order
    Match match;
    int rank = 1;  // matchRank: exact matches first
  };
  std::vector<Found> found;
  if (query.instruction) {
    // One instruction, wherever it is: on screen, or inside a closed group.
    const size_t i = *query.instruction;
    if (i >= instructions.size()) return;
    if (query.value) {
      const auto& f = instructions[i];
      const bool uses = std::find(f.inputs.begin(), f.inputs.end(), *query.value) != f.inputs.end() ||
                        std::find(f.outputs.begin(), f.outputs.end(), *query.value) != f.outputs.end();
      if (!uses) return;
    }
    std::vector<const std::string*> texts{&instructions[i].label};
    const auto node = model.nodeOfInstruction(i);
    const bool shown = node && model.nodes[*node].kind != NodeKind::Group;
    if (shown) {
      texts.push_back(&model.nodes[*node].title);
      for (const auto& term : model.nodes[*node].search_terms) texts.push_back(&term);
    }
    if (!containsAllWords(query.words, texts)) return;
    if (shown) found.push_back({model.nodes[*node].order, Match{Match::Kind::Node, *node}});
    else found.push_back({0, Match{Match::Kind::Instruction, i}});
  } else if (query.value) {
    const int32_t v = *query.value;
    if (size_t(v) >= valueFacts.size()) return;
    const std::string name = valueName(v);
    for (size_t n = 0; n < model.nodes.size(); ++n) {
      const auto& node = model.nodes[n];
      const bool hit = (node.value == v && !layout::isInstructionKind(node.kind)) ||
                       std::find(node.folded_constants.begin(), node.folded_constants.end(), v) != node.folded_constants.end();
      std::vector<const std::string*> texts{&node.title, &name};
      if (hit && containsAllWords(query.words, texts)) found.push_back({node.order, Match{Match::Kind::Node, n}});
    }
    for (size_t e = 0; e < model.edges.size(); ++e) {
      const auto& edge = model.edges[e];
      std::vector<const std::string*> texts{&name};
      // A removed copy's edges come after the program's own.
      if (edge.value == v && containsAllWords(query.words, texts))
        found.push_back({model.nodes[edge.to].order, Match{Match::Kind::Edge, e}, edge.change == layout::Change::Removed ? 3 : 1});
    }
    // Only inside a closed group: go there.
    if (found.empty() && query.words.empty() && valueFacts[size_t(v)].origin != analysis::ValueOrigin::Unused)
      found.push_back({0, Match{Match::Kind::Value, size_t(v)}});
  } else {
    const auto& groups = analyzed_->graph.groups().groups;
    int shownInstructions = 0, hiddenInstructions = 0;
    for (size_t n = 0; n < model.nodes.size(); ++n) {
      const auto& node = model.nodes[n];
      std::vector<const std::string*> texts{&node.title};
      for (const auto& term : node.search_terms) texts.push_back(&term);
      bool hit = containsAllWords(query.words, texts);
      int rank = hit ? matchRank(query.words, texts) : 2;
      // An open group the node sits in whose title has every word: an
      // opened "layer 7" is found in its instructions (their selection and
      // Properties name the group). The title alone, not mixed with the
      // node's own words ("layer" from "layer 2" and a "7" elsewhere).
      if (!hit)
        for (const int g : enclosingGroups(node)) {
          const std::string* title = &groups[size_t(g)].title;
          if (containsAllWords(query.words, {title})) {
            hit = true;
            rank = std::min(rank, matchRank(query.words, {title}));
          }
        }
      if (node.kind == NodeKind::Group) {
        // What the group hides: operator and backend names of its
        // instructions. Each one found is counted: the group is one match
        // for all of them, and the Find status says how many it holds.
        const auto& group = analyzed_->graph.groups().groups[size_t(node.group)];
        int inside = 0;
        for (size_t i = group.first; i < group.last && i < instructions.size(); ++i)
          if (containsAllWords(query.words, {&instructions[i].label})) ++inside;
        hit = hit || inside > 0;
        hiddenInstructions += inside;
      } else if (hit && node.instruction) {
        ++shownInstructions;
      }
      if (hit) found.push_back({node.order, Match{Match::Kind::Node, n}, rank});
    }
    if (hiddenInstructions > 0) findInstructions_ = shownInstructions + hiddenInstructions;
    for (size_t e = 0; e < model.edges.size(); ++e) {
      const auto& edge = model.edges[e];
      // The tensor's name: selecting the edge shows it (selectionText).
      const std::string name = valueName(edge.value);
      if (!name.empty() && containsAllWords(query.words, {&name}))
        found.push_back({model.nodes[edge.to].order, Match{Match::Kind::Edge, e}, matchRank(query.words, {&name})});
    }
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const Found& a, const Found& b) { return a.rank != b.rank ? a.rank < b.rank : a.order < b.order; });
  for (const auto& [order, match, rank] : found) {
    matches_.push_back(match);
    if (match.kind == Match::Kind::Edge) edgeItems_[match.index]->setFindMatch(true, false);
    else if (match.kind == Match::Kind::Node) nodeItems_[match.index]->setFindMatch(true, false);
  }
}

int GraphView::find(const QString& text) {
  findText_ = text;
  currentMatch_ = -1;
  computeMatches();
  if (!matches_.empty()) {
    goToMatch(0);
  } else {
    // Nothing found: the selection of an earlier search does not stay as
    // if it were the answer.
    if (!parseQuery(text).empty() && (selectedNode_ || selectedEdge_)) backgroundClicked();
    emit findMatchChanged(-1, 0);
  }
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
    if (old.kind == Match::Kind::Edge) edgeItems_[old.index]->setFindMatch(true, false);
    else if (old.kind == Match::Kind::Node) nodeItems_[old.index]->setFindMatch(true, false);
  }
  currentMatch_ = index;
  const Match match = matches_[size_t(index)];
  switch (match.kind) {
    case Match::Kind::Edge:
      edgeItems_[match.index]->setFindMatch(true, true);
      selectEdge(match.index, true);
      centreOnEdge(match.index);
      break;
    case Match::Kind::Node:
      nodeItems_[match.index]->setFindMatch(true, true);
      selectNode(match.index, true);
      centreOnNode(match.index);
      break;
    case Match::Kind::Instruction:
      // Inside a closed group: open it; the selection is announced when the
      // new picture is whole. The matches are computed again then.
      pendingAnnounce_ = true;
      selectInstruction(match.index);
      if (!pendingInstruction_) pendingAnnounce_ = false;
      break;
    case Match::Kind::Value:
      pendingAnnounce_ = true;
      selectValue(int32_t(match.index));
      if (!pendingValue_) pendingAnnounce_ = false;
      break;
  }
  emit findMatchChanged(index, int(matches_.size()));
}

}  // namespace ptescope::ui
