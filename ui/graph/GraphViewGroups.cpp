// GraphView: the groups of big methods (open, close, open all) and the
// context menu that offers them.
#include "ui/graph/GraphView.h"

#include <QGraphicsView>
#include <QMenu>

#include "ui/graph/GraphCanvas.h"
#include "ui/graph/GraphLayoutJob.h"

namespace ptescope::ui {

using layout::NodeKind;

// ---- groups ----

void GraphView::expandGroup(int group) {
  if (!pictureIsCurrent()) return;
  if (!analyzed_ || group < 0 || size_t(group) >= analyzed_->graph.groups().groups.size()) return;
  auto expanded = shownExpanded_;
  // Opening a group inside a closed one opens the outer ones too.
  for (int g = group; g >= 0; g = analyzed_->graph.groups().groups[size_t(g)].parent) expanded.insert(g);
  if (expanded == shownExpanded_) return;
  startLayout(expanded, group);
}

void GraphView::collapseGroup(int group) {
  if (!pictureIsCurrent()) return;
  if (!analyzed_ || !shownExpanded_.count(group)) return;
  const auto& groups = analyzed_->graph.groups().groups;
  auto expanded = shownExpanded_;
  // Closing a group closes everything inside it, so that reopening it shows
  // its first level again.
  for (auto it = expanded.begin(); it != expanded.end();) {
    bool inside = false;
    for (int g = *it; g >= 0; g = groups[size_t(g)].parent)
      if (g == group) inside = true;
    it = inside ? expanded.erase(it) : std::next(it);
  }
  startLayout(expanded, group);
}

void GraphView::expandAll() {
  if (!pictureIsCurrent()) {
    // The picture is of an earlier program (its layout was cancelled): lay
    // out the current one first; its groups are not known yet.
    if (program_) startLayout(std::nullopt, std::nullopt);
    return;
  }
  startLayout(analyzed_->graph.fullExpansion(), std::nullopt);
}

void GraphView::collapseAll() {
  if (!pictureIsCurrent() || shownExpanded_.empty()) return;
  startLayout(std::set<int>{}, std::nullopt);
}

bool GraphView::hasGroups() const { return analyzed_ && !analyzed_->graph.groups().groups.empty(); }

void GraphView::openGroupsFor(size_t instruction) {
  if (!pictureIsCurrent()) return;
  auto expanded = shownExpanded_;
  for (int g : analyzed_->graph.groupPathOf(instruction)) expanded.insert(g);
  startLayout(expanded, std::nullopt);
}


void GraphView::nodeDoubleClicked(size_t node) {
  if (!layout_) return;
  const auto& n = layout_->model.nodes[node];
  if (n.kind == NodeKind::Group) expandGroup(n.group);
  if (n.stub_source) {
    // A stub: go to where its values are made.
    selectNode(*n.stub_source, true);
    centreOnNode(*n.stub_source);
  }
}

void GraphView::showContextMenu(const QPoint& viewPos, std::optional<size_t> node) {
  if (!layout_) return;
  QMenu menu(this);
  if (node && analyzed_) {
    const auto& n = layout_->model.nodes[*node];
    if (n.kind == NodeKind::Group) {
      menu.addAction(tr("Open %1").arg(QString::fromStdString(n.title)), this, [this, g = n.group] { expandGroup(g); });
    }
    const auto& groups = analyzed_->graph.groups().groups;
    int parent = n.kind == NodeKind::Group ? groups[size_t(n.group)].parent : -1;
    if (n.instruction) {
      const auto path = analyzed_->graph.groupPathOf(*n.instruction);
      if (!path.empty()) parent = path.back();
    }
    if (n.instruction && instructionMenu_) instructionMenu_(&menu, *n.instruction);
    if (parent >= 0 && shownExpanded_.count(parent)) {
      menu.addAction(tr("Close %1").arg(QString::fromStdString(groups[size_t(parent)].title)), this,
                     [this, parent] { collapseGroup(parent); });
    }
  }
  if (analyzed_ && !analyzed_->graph.groups().groups.empty())
    menu.addAction(tr("Open all groups"), this, &GraphView::expandAll);
  menu.addAction(tr("Fit to window"), this, &GraphView::fitToWindow);
  menu.exec(canvas_->viewport()->mapToGlobal(viewPos));
}

}  // namespace ptescope::ui
