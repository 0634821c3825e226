#include "ui/graph/GraphView.h"

#include <QFontInfo>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QHBoxLayout>
#include <QLabel>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QShortcut>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

#include "ui/common/ElidedLabel.h"
#include "ui/graph/GraphAccessible.h"
#include "ui/graph/GraphCanvas.h"
#include "ui/graph/GraphItems.h"
#include "ui/graph/GraphLayoutJob.h"
#include "ui/graph/GraphLegend.h"
#include "ui/graph/GraphOverview.h"

namespace ptescope::ui {

using layout::NodeKind;

namespace {

constexpr double kSceneMargin = 40;
// Below this scale nothing in a node is legible at any UI font.
constexpr double kLegibleZoomFloor = 0.5;

}  // namespace

GraphView::GraphView(QWidget* parent) : QWidget(parent), scene_(new QGraphicsScene(this)) {
  setObjectName(QStringLiteral("graphView"));
  scene_->setItemIndexMethod(QGraphicsScene::BspTreeIndex);
  installGraphAccessibility();
  canvas_ = new GraphCanvas(scene_, this);
  canvas_->setAccessibleName(tr("Graph"));
  canvas_->setAccessibleDescription(tr("Nothing selected"));
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(0, 0, 0, 0);
  box->addWidget(canvas_);

  legend_ = new GraphLegend(this);
  legend_->hide();
  box->insertWidget(0, legend_);
  overview_ = new GraphOverview(this, canvas_);
  overview_->hide();
  overview_->setAccessibleName(tr("Overview"));
  canvas_->viewChanged = [this] {
    if (overviewShown_) overview_->viewChanged();
    else overview_->hide();
    reserveOverviewRoom();
    const double scale = canvas_->transform().m11();
    if (std::abs(scale - lastAnnouncedZoom_) > 1e-9) {
      lastAnnouncedZoom_ = scale;
      emit zoomChanged(scale);
    }
  };
  // Until the user moves the view, the first picture follows the
  // viewport's size: a legend, banner or dock that comes after the layout
  // does not leave the picture cut (an 8-instruction program at 150% with
  // its delegate out of sight).
  canvas_->resized = [this] {
    if (initialViewHeld_ && layout_) showInitialView();
  };
  canvas_->userMoved = [this] { initialViewHeld_ = false; };
  canvas_->arrowKey = [this](int dx, int dy) { return stepSelection(dx, dy); };
  canvas_->nodeClicked = [this](size_t node) { selectNode(node, true); };
  canvas_->edgeClicked = [this](size_t edge) { selectEdge(edge, true); };
  canvas_->backgroundClicked = [this] { backgroundClicked(); };
  canvas_->nodeDoubleClicked = [this](size_t node) { nodeDoubleClicked(node); };
  canvas_->selectedNodeAt = [this]() -> std::optional<std::pair<QPoint, size_t>> {
    if (!selectedNode_ || *selectedNode_ >= nodeItems_.size()) return std::nullopt;
    const QRectF node = nodeItems_[*selectedNode_]->sceneBoundingRect();
    return std::pair{canvas_->mapFromScene(QPointF(node.center().x(), node.bottom())), *selectedNode_};
  };
  canvas_->activateKey = [this] {
    if (!selectedNode_) return false;
    nodeDoubleClicked(*selectedNode_);
    return true;
  };
  canvas_->contextMenu = [this](const QPoint& at, std::optional<size_t> node) { showContextMenu(at, node); };
  fillTimer_ = new QTimer(this);
  fillTimer_->setSingleShot(true);
  fillTimer_->setInterval(0);
  connect(fillTimer_, &QTimer::timeout, this, &GraphView::fillScene);

  progressPanel_ = new QWidget(this);
  progressPanel_->setObjectName(QStringLiteral("graphProgress"));
  progressPanel_->setAutoFillBackground(true);
  auto* row = new QHBoxLayout(progressPanel_);
  row->setContentsMargins(10, 6, 10, 6);
  progressLabel_ = new QLabel(progressPanel_);
  progressBar_ = new QProgressBar(progressPanel_);
  progressBar_->setAccessibleName(tr("Layout progress"));
  progressBar_->setRange(0, 1000);
  progressBar_->setTextVisible(false);
  progressBar_->setFixedWidth(160);
  cancelButton_ = new QPushButton(tr("Cancel"), progressPanel_);
  cancelButton_->setObjectName(QStringLiteral("graphCancelLayout"));
  // Named by what it stops: the window can show several Cancel buttons at once.
  cancelButton_->setAccessibleName(tr("Cancel the graph layout"));
  row->addWidget(progressLabel_, 1);
  row->addWidget(progressBar_);
  row->addWidget(cancelButton_);
  progressPanel_->hide();
  connect(cancelButton_, &QPushButton::clicked, this, &GraphView::cancelLayout);
  // Quick layouts finish before the panel would flash up.
  progressDelay_ = new QTimer(this);
  progressDelay_->setSingleShot(true);
  progressDelay_->setInterval(250);
  connect(progressDelay_, &QTimer::timeout, this, [this] {
    if (layoutPending()) {
      progressPanel_->show();
      progressPanel_->raise();
    }
  });

  messageLabel_ = new QLabel(this);
  messageLabel_->setObjectName(QStringLiteral("graphMessage"));
  messageLabel_->setAlignment(Qt::AlignCenter);
  messageLabel_->setWordWrap(true);
  messageLabel_->setAttribute(Qt::WA_TransparentForMouseEvents);
  messageLabel_->hide();

  // The diff view's summary: a strip above the graph, so that it never
  // covers a node. One line, elided with the whole text as its tooltip (and
  // what a screen reader reads): wrapped onto three lines it left a small
  // window's graph a keyhole.
  auto* banner = new ElidedLabel(this);
  banner->setElideMode(Qt::ElideRight);
  // Two lines at most: the summary ends with the predicted saving, which one
  // line cut at 1600 px too.
  banner->setMaximumLines(2);
  banner_ = banner;
  banner_->setObjectName(QStringLiteral("graphBanner"));
  banner_->setStyleSheet(QStringLiteral("QLabel { background: #fff8e1; border-bottom: 1px solid #f5a623; padding: 4px 10px; }"));
  banner_->hide();
  box->insertWidget(0, banner_);

  const std::pair<QKeySequence, std::function<void()>> keys[] = {
      {QKeySequence(Qt::CTRL | Qt::Key_Equal), [this] { zoomIn(); }},
      {QKeySequence(Qt::CTRL | Qt::Key_Plus), [this] { zoomIn(); }},
      {QKeySequence(Qt::CTRL | Qt::Key_Minus), [this] { zoomOut(); }},
      {QKeySequence(Qt::CTRL | Qt::Key_0), [this] { fitToWindow(); }},
      {QKeySequence(Qt::Key_Escape), [this] { backgroundClicked(); }},
      {QKeySequence(Qt::Key_F3), [this] { findNext(); }},
      {QKeySequence(Qt::SHIFT | Qt::Key_F3), [this] { findPrevious(); }},
  };
  for (const auto& [sequence, action] : keys) {
    auto* shortcut = new QShortcut(sequence, this);
    shortcut->setContext(Qt::WidgetWithChildrenShortcut);
    connect(shortcut, &QShortcut::activated, this, action);
  }
}

GraphView::~GraphView() {
  // layoutJob_ (destroyed first) cancels the job and waits for it, so that
  // no Graphviz run outlives the application's thread pool teardown.
  // The canvas reports nothing more: the scene, deleted with this widget's
  // children, detaches from the canvas, whose scroll bars then move and
  // called back into the overview, which read the layout this object's
  // members had already destroyed (found by valgrind in a UI test).
  canvas_->viewChanged = nullptr;
  canvas_->resized = nullptr;
  canvas_->userMoved = nullptr;
  canvas_->setScene(nullptr);
  scene_->clear();
}

QGraphicsView* GraphView::canvas() const { return canvas_; }

bool GraphView::pictureIsCurrent() const {
  return layout_ && analyzed_ && program_ && analyzed_->program == program_ && analyzed_->method == methodIndex_;
}

// The latest job's result has not been handled yet (a watcher may report
// its future finished before its finished() signal has been delivered).
// A job runs, or the picture it made is still going into the scene.
bool GraphView::layoutPending() const { return layoutJob_.running() || filling_ != nullptr; }

void GraphView::setMethod(std::shared_ptr<const program::Program> program, int methodIndex,
                          std::shared_ptr<const layout::MethodChanges> changes) {
  // The same request again (the window shows the graph again on every
  // refresh): the layout running or on screen already answers it.
  if (program && program == program_ && methodIndex == methodIndex_ && changes == changes_ &&
      (layoutPending() || pictureIsCurrent()))
    return;
  // The same method of an edited program (new options, another target
  // device) keeps the zoom and scroll position, so that the picture changes
  // in place; another method starts from its initial view.
  const bool sameMethod = program_ && program && layout_ && methodIndex == methodIndex_ && methodIndex >= 0 &&
                          size_t(methodIndex) < program->methods().size() &&
                          program->methods()[size_t(methodIndex)].displayName() == layout_->model.method_name;
  if (program != program_) measurements_.clear();  // they are of another program
  program_ = std::move(program);
  methodIndex_ = methodIndex;
  changes_ = std::move(changes);
  // analyzed_ stays: it is the picture's until a new one is installed.

  firstLayoutOfMethod_ = !sameMethod || std::exchange(freshView_, false);
  pendingInstruction_.reset();
  pendingAnnounce_ = false;
  pendingValue_.reset();
  if (!program_ || methodIndex < 0 || size_t(methodIndex) >= program_->methods().size()) {
    clear();
    return;
  }
  startLayout(std::nullopt, std::nullopt);
}

void GraphView::setRunSettings(const analysis::DelegateTransferOptions& settings) {
  if (settings.cuda_graph_methods == runSettings_.cuda_graph_methods) return;
  runSettings_ = settings;
  if (!program_ || methodIndex_ < 0) return;
  // In place: the groups open stay open (none yet: the initial view).
  startLayout(layout_ ? std::optional<std::set<int>>(shownExpanded_) : std::nullopt, std::nullopt);
}

void GraphView::clear() {
  // Dropped, also a result already on its way: it must not bring the
  // cleared picture back.
  layoutJob_.cancel();
  fillTimer_->stop();
  filling_.reset();
  program_.reset();
  changes_.reset();
  measurements_.clear();
  banner_->hide();
  analyzed_.reset();
  methodIndex_ = -1;
  selectedNode_.reset();
  selectedEdge_.reset();
  matches_.clear();
  currentMatch_ = -1;
  nodeItems_.clear();
  edgeItems_.clear();
  scene_->clear();
  canvas_->sceneChanged();
  layout_.reset();
  graphBounds_ = QRectF();
  initialViewHeld_ = false;
  legend_->hide();
  overview_->setLayout(nullptr);
  announceSelection();  // "Nothing selected": not the previous picture's pick
  showEmptyText();
}

void GraphView::setEmptyText(const QString& text) {
  emptyText_ = text;
  if (!program_) showEmptyText();
}

void GraphView::showEmptyText() {
  messageLabel_->setText(emptyText_);
  messageLabel_->setAccessibleName(emptyText_);
  messageLabel_->setVisible(!emptyText_.isEmpty());
  placeOverlays();
}

// The job stops early and its result (cancelled, perhaps with a model for
// the quick layout) still comes.
void GraphView::cancelLayout() { layoutJob_.stop(); }

void GraphView::startLayout(std::optional<std::set<int>> expanded, std::optional<int> focusGroup) {
  flushScene();
  if (!layout_) messageLabel_->hide();  // the empty window's hint
  focusGroup_ = focusGroup;
  LayoutRequest request;
  request.program = program_;
  request.method = methodIndex_;
  request.analyzed = pictureIsCurrent() ? analyzed_ : nullptr;
  request.changes = changes_;
  request.delegateCopies = runSettings_;
  request.expanded = std::move(expanded);
  request.budgetSeconds = layoutBudgetSeconds_;
  request.wantFallback = layout_ == nullptr;
  QPointer<GraphView> self(this);
  std::function<LayoutResult(const CancelFlag&)> work = [request, self](const CancelFlag& cancel) {
    // Progress of a job that was superseded or stopped is not shown.
    auto progress = [self, cancel](double fraction, const std::string& phase) {
      QMetaObject::invokeMethod(
          self.data(),
          [self, cancel, fraction, phase = QString::fromStdString(phase)] {
            if (self && !cancel->load()) self->showProgress(fraction, phase);
          },
          Qt::QueuedConnection);
    };
    return runLayout(request, *cancel, progress);
  };
  layoutJob_.start<LayoutResult>(std::move(work), [this](LayoutResult result) { finishLayout(result); });
  progressBar_->setValue(0);
  progressLabel_->setText(tr("Laying out the graph\u2026"));
  progressDelay_->start();
}

void GraphView::showProgress(double fraction, const QString& phase) {
  progressBar_->setValue(int(fraction * 1000));
  progressLabel_->setText(phase);
}

void GraphView::finishLayout(const LayoutResult& result) {
  progressDelay_->stop();
  progressPanel_->hide();
  if (result.cancelled) {
    pendingInstruction_.reset();
    pendingAnnounce_ = false;
    pendingValue_.reset();
    if (!layout_ && result.fallback) {
      // Nothing on screen yet: the quick row layout rather than a blank canvas.
      auto quick = layout::quickLayout(*result.fallback);
      quick.note = "Layout cancelled: a quick row layout is shown (open or close a group to lay it out again)";
      analyzed_ = result.analyzed;
      shownExpanded_ = result.expanded;
      layout_ = std::make_shared<const layout::GraphLayout>(std::move(quick));
      rebuildScene(nullptr, Announce::Cancelled);
      showInitialView();
      firstLayoutOfMethod_ = false;
      fillScene();  // announces the cancel when the scene is whole
      return;
    }
    emit layoutCancelled();
    return;
  }
  if (!result.layout) {
    messageLabel_->setText(tr("The graph could not be laid out:\n%1").arg(result.error));
    messageLabel_->setAccessibleName(messageLabel_->text());
    messageLabel_->show();
    placeOverlays();
    emit layoutFailed(result.error);
    return;
  }
  messageLabel_->hide();
  // Keep the selection across a re-layout of the same method by node key.
  std::string selectedKey;
  std::optional<int> selectedGroup;  // a selected group that may be opened now
  std::optional<int32_t> selectedEdgeValue;
  if (layout_ && analyzed_ == result.analyzed) {
    if (selectedNode_) {
      const auto& node = layout_->model.nodes[*selectedNode_];
      selectedKey = node.key;
      if (node.kind == NodeKind::Group) selectedGroup = node.group;
    }
    if (selectedEdge_) selectedEdgeValue = layout_->model.edges[*selectedEdge_].value;
  }
  analyzed_ = result.analyzed;
  shownExpanded_ = result.expanded;
  // The items on screen point into the previous layout: it must outlive
  // them, until rebuildScene() has removed them.
  const auto previous = std::exchange(layout_, result.layout);
  rebuildScene(result.items, Announce::Finished);

  const bool keepsView = !firstLayoutOfMethod_ && !focusGroup_;
  if (firstLayoutOfMethod_) {
    firstLayoutOfMethod_ = false;
    showInitialView();
  } else if (focusGroup_) {
    // Show where the opened (or closed) group's instructions now are.
    const auto& group = analyzed_->graph.groups().groups[size_t(*focusGroup_)];
    if (auto node = layout_->model.nodeOfInstruction(group.first)) centreOnNode(*node);
  }
  if (!selectedKey.empty()) {
    auto node = layout_->model.findNode(selectedKey);
    // An opened group (Open All Groups): its first instruction stands for it.
    if (!node && selectedGroup && size_t(*selectedGroup) < analyzed_->graph.groups().groups.size())
      node = layout_->model.nodeOfInstruction(analyzed_->graph.groups().groups[size_t(*selectedGroup)].first);
    if (node) {
      // A selected group that opened hands the selection to its first
      // instruction: said to the panels (Properties kept the group's facts).
      const bool handedOn = selectedGroup && layout_->model.nodes[*node].kind != NodeKind::Group;
      selectNode(*node, handedOn);
      // The nodes moved (groups opened or closed): the selection stays in sight.
      if (keepsView && *node < nodeItems_.size() &&
          !canvas_->mapToScene(canvas_->viewport()->rect()).boundingRect().contains(nodeItems_[*node]->sceneBoundingRect()))
        centreOnNode(*node);
    }
  } else if (selectedEdgeValue) {
    trySelectValue(*selectedEdgeValue, false);
  }
  if (!findText_.isEmpty()) {
    const size_t matchesBefore = matches_.size();
    computeMatches();
    currentMatch_ = -1;
    for (size_t m = 0; m < matches_.size(); ++m)
      if (matches_[m].kind == Match::Kind::Node && selectedNode_ == matches_[m].index) currentMatch_ = int(m);
      else if (matches_[m].kind == Match::Kind::Edge && selectedEdge_ == matches_[m].index) currentMatch_ = int(m);
    // The Find status speaks of this picture when it finds something else
    // now (another program reloaded): "Not found", or the new count. (A
    // group Find opened finds the same: its status stays.)
    if (matches_.empty() || matches_.size() != matchesBefore) emit findMatchChanged(currentMatch_, int(matches_.size()));
  }
  // The selection asked for meanwhile, and layoutFinished, come when the
  // scene is whole (sceneComplete).
  fillScene();
}

void GraphView::rebuildScene(std::shared_ptr<SceneItems> made, Announce announce) {
  nodeItems_.clear();
  edgeItems_.clear();
  selectedNode_.reset();
  selectedEdge_.reset();
  scene_->clear();
  const auto& graph = *layout_;
  if (!made) {
    made = std::make_shared<SceneItems>();
    made->make(graph, nullptr);
  }
  edgeItems_ = made->edges();
  nodeItems_ = made->nodes();
  // Everything that marks items (overlay, emphasis, find) works on them
  // before they are in the scene; the scene's size is known from the layout.
  QRectF bounds(graph.bounds.x, graph.bounds.y, graph.bounds.width, graph.bounds.height);
  if (graph.model.nodes.empty()) {
    auto* text = scene_->addSimpleText(
        tr("Method '%1' is empty: no instructions, inputs or outputs.").arg(QString::fromStdString(graph.model.method_name)));
    text->setBrush(QColor(0x66, 0x66, 0x66));
    bounds = scene_->itemsBoundingRect();
  }
  scene_->setSceneRect(bounds.adjusted(-kSceneMargin, -kSceneMargin, kSceneMargin, kSceneMargin));
  graphBounds_ = bounds.adjusted(-kSceneMargin / 2, -kSceneMargin / 2, kSceneMargin / 2, kSceneMargin / 2);
  overview_->setLayout(layout_.get());
  if (!overviewShown_) overview_->hide();
  reserveOverviewRoom();
  applyOverlay();  // also sets the legend
  updateBanner();
  placeOverlays();
  filling_ = std::move(made);
  announce_ = announce;
  canvas_->sceneChanged();
}

void GraphView::fillScene() {
  if (!filling_) return;
  if (!filling_->addTo(scene_, sceneSliceMs_)) {
    fillTimer_->start();  // the rest in the next turns of the event loop
    return;
  }
  filling_.reset();
  sceneComplete();
}

void GraphView::flushScene() {
  if (!filling_) return;
  fillTimer_->stop();
  filling_->addTo(scene_, 1e12);
  filling_.reset();
}

void GraphView::sceneComplete() {
  canvas_->sceneChanged();
  if (announce_ == Announce::Cancelled) {
    emit layoutCancelled();
    return;
  }
  selectPending();
  // What the canvas says is selected is of this picture: another method's
  // pick (cleared with its items) was still announced when nothing here
  // took its place.
  announceSelection();
  emit layoutFinished();
}

double GraphView::legibleZoom() const {
  // The scale at which a node's sub-labels (the smallest text that names
  // something: operator, tensor type) are as large as the UI's own text.
  const double uiPixels = QFontInfo(font()).pixelSize();
  return std::clamp(uiPixels / double(kNodeSubtitlePixels), kLegibleZoomFloor, GraphCanvas::kMaxZoom);
}

void GraphView::showInitialView() {
  // The first picture is legible: the whole graph when it fits at a scale
  // where its text is as large as the UI's, else that scale, starting where
  // the program starts (its first instruction) and its first device region,
  // with the overview for the rest.
  // The canvas at its size in this layout (a legend set just now).
  if (layout()) layout()->activate();
  const QRectF rect = graphBounds_.isEmpty() ? scene_->sceneRect() : graphBounds_;
  const QSizeF viewport = canvas_->viewport()->size();
  if (rect.isEmpty() || viewport.isEmpty()) return;
  initialViewHeld_ = true;
  const double fitAll = std::min(viewport.width() / rect.width(), viewport.height() / rect.height());
  const double legible = legibleZoom();
  canvas_->resetTransform();
  if (fitAll >= legible) {
    const double s = std::min(fitAll, std::max(legible, 1.5));
    canvas_->scale(s, s);
    canvas_->centerOn(rect.center());
  } else {
    // Where the program starts: its first instruction (or the group that
    // holds it), with what it reads above it. The topmost node was a method
    // input: a program whose first call reads 24 inputs showed a row of
    // inputs and no instruction at all.
    const GraphNodeItem* start = nullptr;
    for (const auto* item : nodeItems_)
      if ((item->node().kind == layout::NodeKind::Group || item->node().instruction) &&
          (start == nullptr || item->node().order < start->node().order))
        start = item;
    QRectF first = start != nullptr ? start->sceneBoundingRect() : QRectF();
    if (start == nullptr)  // no instruction: the topmost node (leftmost among equals)
      for (const auto* item : nodeItems_) {
        const QRectF r = item->sceneBoundingRect();
        if (first.isNull() || r.top() < first.top() - 1 || (std::abs(r.top() - first.top()) <= 1 && r.left() < first.left()))
          first = r;
      }
    // From the graph's top left corner (the method's start, its region's
    // title), moved no more than it takes to show what the picture is for:
    // centring on the instruction cut the region's title and the input above
    // it (a 2-instruction chain at 1000×700). The corner of what is drawn
    // (nodes and device regions), not of the layout's padded bounds: that
    // padding alone was a fifth of a small canvas.
    QRectF drawn;
    for (const auto* item : nodeItems_) drawn = drawn.isNull() ? item->sceneBoundingRect() : drawn.united(item->sceneBoundingRect());
    for (const auto& region : layout_->regions)
      drawn = drawn.united(QRectF(region.rect.x, region.rect.y, region.rect.width, region.rect.height));
    const QPointF corner = drawn.isNull() ? rect.topLeft() : drawn.topLeft() - QPointF(16, 16);
    // ptescope is about what runs on a device: the first device region's
    // title and its first delegate call (with the marks of the copies on its
    // edges) are in the first picture with the first instruction when they
    // fit together at the legible scale, else its title with the first
    // instruction. When even those do not, a small program
    // (at most four views high and wide) shows its first device step with as
    // much of the start above it as the view holds (item 21: no delegate in
    // sight); a bigger one shows its start, the overview the rest (moving as
    // far as the device step took showed the middle of an llm, walkthrough
    // 23; putting the region's corner at the top left hid #0, walkthrough 21).
    const layout::RegionGeometry* device = nullptr;
    for (const auto& region : layout_->regions)
      if (!region.device.isCpu() &&
          (!device || region.rect.y < device->rect.y - 1 ||
           (std::abs(region.rect.y - device->rect.y) <= 1 && region.rect.x < device->rect.x)))
        device = &region;
    QRectF gpu, title, across;
    if (device) {
      const QRectF area(device->rect.x, device->rect.y, device->rect.width, device->rect.height);
      title = QRectF(area.x(), area.y(), std::min(area.width(), 120.0), std::min(area.height(), 48.0));
      gpu = title;
      const GraphNodeItem* call = nullptr;
      for (const auto* item : nodeItems_)
        if (item->node().kind == layout::NodeKind::Delegate && area.contains(item->sceneBoundingRect().center()) &&
            (call == nullptr || item->node().order < call->node().order))
          call = item;
      if (call != nullptr) {
        gpu = gpu.united(call->sceneBoundingRect());
        for (const auto* edge : edgeItems_)
          if ((edge->edge().from == call->index() || edge->edge().to == call->index()) && !edge->insideMarkRect().isEmpty())
            gpu = gpu.united(edge->insideMarkRect());
      }
      // And the region's right edge, when there is room: nothing of it then
      // lies under the overview.
      across = gpu.united(QRectF(area.x(), area.y(), area.width(), title.height()));
    }
    // The overview (shown whenever part of the graph is out of sight, unless
    // the user hid it) covers the view's bottom right: what the picture is
    // for keeps clear of its column.
    const double overviewPixels = overviewShown_ ? overview_->width() + 8 : 0.0;
    const auto fits = [&](const QRectF& r) {
      return (r.width() + 32) * legible + overviewPixels <= viewport.width() && (r.height() + 32) * legible <= viewport.height();
    };
    const bool small = !drawn.isNull() && drawn.width() * legible <= 4 * viewport.width() &&
                       drawn.height() * legible <= 4 * viewport.height();
    const auto with = [&first](const QRectF& r) { return first.isNull() ? r : r.isNull() ? first : r.united(first); };
    const double scale = legible;
    QRectF target;
    if (!across.isNull() && fits(with(across))) target = with(across);  // the start and the first device step
    else if (!gpu.isNull() && fits(with(gpu))) target = with(gpu);
    else if (!title.isNull() && fits(with(title))) target = with(title);  // the start and where the device part begins
    else if (small && !title.isNull() && fits(title)) target = fits(gpu) ? gpu : title;
    else if (!first.isNull() && fits(first)) target = first;
    canvas_->scale(scale, scale);
    const QPointF half(viewport.width() / (2 * scale), viewport.height() / (2 * scale));
    QPointF centre = corner + half;
    if (!target.isNull()) {
      // Only as far as it takes to bring it in whole (its right and bottom
      // edges), clear of the overview's column.
      centre.setX(std::max(centre.x(), target.right() + 16 + overviewPixels / scale - half.x()));
      centre.setY(std::max(centre.y(), target.bottom() + 16 - half.y()));
    } else if (!first.isNull()) {
      centre = first.center();  // an instruction larger than the view: its middle
    }
    // Not past the drawing's left and top edges.
    centre.setX(std::max(centre.x(), corner.x() + half.x()));
    centre.setY(std::max(centre.y(), corner.y() + half.y()));
    canvas_->centerOn(centre);
  }
  canvas_->viewChanged();
}

void GraphView::reserveOverviewRoom() {
  // The overview floats over the canvas's bottom right corner (framed, and
  // View > Show Overview hides it). It used to take a column or a strip
  // beside the viewport: a full-height grey band (15-25% of the width) that
  // looked like a repaint bug and took the room it helps to use.
  if (reservingRoom_) return;
  reservingRoom_ = true;
  canvas_->setReservedMargins(QMargins());
  placeOverlays();
  reservingRoom_ = false;
}

void GraphView::placeOverlays() {
  const QRect area = canvas_->geometry();
  const QRect viewport = canvas_->viewport()->geometry().translated(area.topLeft());
  // The bottom right corner, unless a measurement pill shows there (at
  // 1000 x 700 the overview covered "13.1 ms emulated" down to "13.1 ms
  // emulate"): then the first other corner where none does.
  std::vector<QRect> pills;
  for (const auto* item : nodeItems_)
    if (item->overlay())
      pills.push_back(canvas_->mapFromScene(item->overlayBadgeSceneRect(item->badgeSide())).boundingRect().translated(viewport.topLeft()));
  const int w = overview_->width(), h = overview_->height();
  const QPoint corners[] = {{viewport.right() - w - 6, viewport.bottom() - h - 6},
                            {viewport.left() + 6, viewport.bottom() - h - 6},
                            {viewport.right() - w - 6, viewport.top() + 6},
                            {viewport.left() + 6, viewport.top() + 6}};
  QPoint place = corners[0];
  for (const QPoint& corner : corners) {
    const QRect box(corner, QSize(w, h));
    if (std::none_of(pills.begin(), pills.end(), [&](const QRect& p) { return p.intersects(box); })) {
      place = corner;
      break;
    }
  }
  overview_->move(place);
  overview_->raise();
  progressPanel_->setGeometry(area.left(), area.top(), area.width(), progressPanel_->sizeHint().height());
  progressPanel_->raise();
  messageLabel_->setGeometry(area.adjusted(40, 40, -40, -40));
  messageLabel_->raise();

}

void GraphView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  // At most a quarter of the graph area's width and height (and 190 x 170):
  // in a small window the overview must not take the room it helps to use.
  const QSize area = canvas_->size();
  overview_->setMaxBox(QSize(std::clamp(area.width() / 4, 44, 190), std::clamp(area.height() / 4, 44, 170)));
  reserveOverviewRoom();
}


// ---- view ----

void GraphView::setLegendShown(bool shown) {
  legendShown_ = shown;
  legend_->setVisible(shown && !legend_->entries().empty());
}

void GraphView::setOverviewShown(bool shown) {
  overviewShown_ = shown;
  if (shown) overview_->viewChanged();
  else overview_->hide();
  reserveOverviewRoom();
}

void GraphView::fitToWindow() {
  if (scene_->sceneRect().isEmpty()) return;
  initialViewHeld_ = false;
  // Fit shows the whole graph, however small that makes it (a 6,000
  // instruction method opened whole needs far less than 1%).
  canvas_->fitInView(graphBounds_.isEmpty() ? scene_->sceneRect() : graphBounds_, Qt::KeepAspectRatio);
  const double s = canvas_->transform().m11();
  if (s > GraphCanvas::kMaxZoom) canvas_->zoomBy(GraphCanvas::kMaxZoom / s);
  if (s < GraphCanvas::kMinZoom) canvas_->zoomBy(GraphCanvas::kMinZoom / s);
  canvas_->viewChanged();
}

void GraphView::zoomIn() {
  initialViewHeld_ = false;
  canvas_->zoomBy(1.25);
}

void GraphView::zoomOut() {
  initialViewHeld_ = false;
  canvas_->zoomBy(0.8);
}

double GraphView::zoomLevel() const { return canvas_->transform().m11(); }

void GraphView::setZoomLevel(double scale) {
  if (!(scale > 0)) return;
  initialViewHeld_ = false;
  const QPointF centre = canvas_->mapToScene(canvas_->viewport()->rect().center());
  canvas_->resetTransform();
  canvas_->scale(scale, scale);
  canvas_->centerOn(centre);
  canvas_->viewChanged();
}


}  // namespace ptescope::ui
