#include "ui/graph/GraphLayoutJob.h"

#include <QElapsedTimer>
#include <QGraphicsScene>

#include "layout/DelegateCopyMarks.h"
#include "ui/graph/GraphItems.h"

namespace ptescope::ui {

SceneItems::~SceneItems() {
  for (size_t i = added_; i < count(); ++i) delete item(i);
}

QGraphicsItem* SceneItems::item(size_t i) const {
  if (i < regions_.size()) return regions_[i];
  i -= regions_.size();
  if (i < edges_.size()) return edges_[i];
  return nodes_[i - edges_.size()];
}

bool SceneItems::make(const layout::GraphLayout& graph, const std::atomic<bool>* cancel) {
  for (const auto& region : graph.regions) regions_.push_back(new GraphRegionItem(region));
  edges_.reserve(graph.edges.size());
  for (size_t i = 0; i < graph.edges.size(); ++i) {
    if ((i & 0x3ff) == 0 && cancel && cancel->load()) return false;
    edges_.push_back(new GraphEdgeItem(graph.model.edges[i], graph.edges[i], i));
  }
  nodes_.reserve(graph.nodes.size());
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    if ((i & 0x3ff) == 0 && cancel && cancel->load()) return false;
    nodes_.push_back(new GraphNodeItem(graph.model.nodes[i], graph.nodes[i], i));
  }
  return true;
}

bool SceneItems::addTo(QGraphicsScene* scene, double sliceMs) {
  QElapsedTimer clock;
  clock.start();
  // The clock is read every 64 items: reading it costs more than adding one.
  while (added_ < count()) {
    scene->addItem(item(added_++));
    if ((added_ & 63) == 0 && double(clock.nsecsElapsed()) / 1e6 >= sliceMs) break;
  }
  return allAdded();
}

LayoutResult runLayout(const LayoutRequest& request, const std::atomic<bool>& cancel,
                       const layout::ProgressCallback& progress) {
  LayoutResult result;
  result.analyzed = request.analyzed;
  if (!result.analyzed) {
    const auto& method = request.program->methods()[size_t(request.method)];
    progress(0.0, "analysing method '" + method.displayName() + "'");
    auto fresh = std::make_shared<AnalyzedMethod>(AnalyzedMethod{request.program, request.method, {}});
    fresh->graph = layout::MethodGraph::analyze(method, {}, &cancel);
    result.analyzed = fresh;
  }
  if (cancel.load()) {
    result.cancelled = true;
    return result;
  }
  result.expanded = request.expanded ? *request.expanded : result.analyzed->graph.initialExpansion();
  auto model = result.analyzed->graph.build(result.expanded, {}, &cancel);
  if (request.changes) layout::markChanges(model, result.analyzed->graph, *request.changes);
  const auto& method = request.program->methods()[size_t(request.method)];
  layout::markDelegateCopies(model, analysis::delegateTransfers(*request.program, method, request.delegateCopies));
  if (cancel.load()) {
    result.cancelled = true;
    return result;
  }
  layout::LayoutOptions options;
  options.time_budget_seconds = request.budgetSeconds;
  auto fallbackModel = request.wantFallback ? std::make_shared<layout::GraphModel>(model) : nullptr;
  auto placed = layout::layoutGraph(std::move(model), options, &cancel, progress);
  if (!placed) {
    result.cancelled = cancel.load();
    result.error = QString::fromStdString(placed.error().message);
    if (result.cancelled) result.fallback = fallbackModel;
    return result;
  }
  result.layout = std::make_shared<const layout::GraphLayout>(std::move(placed.value()));
  result.items = std::make_shared<SceneItems>();
  if (!result.items->make(*result.layout, &cancel)) {
    result.items.reset();
    result.layout.reset();
    result.cancelled = true;
  }
  return result;
}

}  // namespace ptescope::ui
