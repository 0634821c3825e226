// What a GraphView layout does off the UI thread: analyse the method (once
// per program and method), build the model of the groups that are open, mark
// the diff, lay it out with Graphviz and make the scene items, so that the
// UI thread only adds them to the scene (GraphView runs it on a
// BackgroundJob and adds the items a slice at a time).
#pragma once

#include <QString>

#include <atomic>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "analysis/DelegateTransfers.h"
#include "layout/DiffMarks.h"
#include "layout/GraphModel.h"
#include "layout/GraphvizLayout.h"
#include "program/Program.h"

class QGraphicsScene;
class QGraphicsItem;

namespace ptescope::ui {

class GraphEdgeItem;
class GraphNodeItem;
class GraphRegionItem;

struct AnalyzedMethod {
  std::shared_ptr<const program::Program> program;  // keeps the method alive
  int method = -1;
  layout::MethodGraph graph;
};

// The scene items of a layout: plain QGraphicsItems, made on the worker.
// Added to a scene in order (regions, edges, nodes), a slice at a time;
// those not added yet are deleted with this.
class SceneItems {
 public:
  SceneItems() = default;
  SceneItems(const SceneItems&) = delete;
  SceneItems& operator=(const SceneItems&) = delete;
  ~SceneItems();

  // Items for every region, edge and node of `graph`; false when cancelled.
  bool make(const layout::GraphLayout& graph, const std::atomic<bool>* cancel);
  // Adds the next items to `scene` until `sliceMs` milliseconds have passed
  // (at least one item); true when all of them are in.
  bool addTo(QGraphicsScene* scene, double sliceMs);
  bool allAdded() const { return added_ == count(); }

  const std::vector<GraphEdgeItem*>& edges() const { return edges_; }
  const std::vector<GraphNodeItem*>& nodes() const { return nodes_; }

 private:
  size_t count() const { return regions_.size() + edges_.size() + nodes_.size(); }
  QGraphicsItem* item(size_t i) const;

  std::vector<GraphRegionItem*> regions_;
  std::vector<GraphEdgeItem*> edges_;
  std::vector<GraphNodeItem*> nodes_;
  size_t added_ = 0;  // the first added_ items (in order) belong to a scene
};

struct LayoutRequest {
  std::shared_ptr<const program::Program> program;
  int method = -1;
  // The analysis of the picture on screen, reused when it is of this
  // program and method; null: analyse again.
  std::shared_ptr<const AnalyzedMethod> analyzed;
  std::shared_ptr<const layout::MethodChanges> changes;  // a diff view's marks
  std::optional<std::set<int>> expanded;                 // none: the initial view
  // The run's settings for the copies inside delegates (CUDA graph
  // replay), marked on the delegates' boundary edges.
  analysis::DelegateTransferOptions delegateCopies;
  double budgetSeconds = 20;
  // Keep the model, so that a cancelled first picture can show a quick
  // layout at once.
  bool wantFallback = false;
};

struct LayoutResult {
  std::shared_ptr<const AnalyzedMethod> analyzed;
  std::shared_ptr<const layout::GraphLayout> layout;
  std::set<int> expanded;
  QString error;
  bool cancelled = false;
  // The model of a cancelled layout when nothing was on screen.
  std::shared_ptr<const layout::GraphModel> fallback;
  // The scene items of `layout` (making 30,000 items takes a fifth of a
  // second, too long for the UI thread).
  std::shared_ptr<SceneItems> items;
};

// Runs on a worker; `progress` is called from there.
LayoutResult runLayout(const LayoutRequest& request, const std::atomic<bool>& cancel,
                       const layout::ProgressCallback& progress);

}  // namespace ptescope::ui
