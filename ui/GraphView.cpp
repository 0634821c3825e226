#include "ui/GraphView.h"

#include <QApplication>
#include <QBuffer>
#include <QContextMenuEvent>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsView>
#include <QHBoxLayout>
#include <QImage>
#include <QImageWriter>
#include <QLabel>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollBar>
#include <QShortcut>
#include <QSvgGenerator>
#include <QTimer>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>
#include <utility>

#include "layout/DeviceStyle.h"
#include "util/MappedFile.h"
#include "ui/Format.h"
#include "ui/GraphItems.h"

namespace ptescope::ui {

using layout::NodeKind;

namespace {

constexpr double kMinZoom = 0.01;
constexpr double kMaxZoom = 6.0;
constexpr double kSceneMargin = 40;
// PNG exports stay under these, whatever the scale asked for.
constexpr double kMaxImageSide = 16000;
constexpr double kMaxImagePixels = 160e6;
// Height of the exported picture's header (method name and legend).
constexpr double kExportHeader = 36;

// ---- the legend: device colours and transfer shapes ----

struct LegendEntry {
  enum Kind { Device, H2D, D2H, Implicit, Group, Added, Removed, Moved, Scale } kind;
  program::Device device;
  QString text;
};

std::vector<LegendEntry> legendEntries(const layout::GraphModel& model, const QString& scaleText) {
  std::vector<LegendEntry> entries;
  if (!scaleText.isEmpty()) entries.push_back({LegendEntry::Scale, {}, scaleText});
  for (const auto& d : model.devices) entries.push_back({LegendEntry::Device, d, QString::fromStdString(d.str())});
  bool h2d = false, d2h = false, implicit = false;
  for (const auto& n : model.nodes) {
    h2d = h2d || n.kind == NodeKind::CopyH2D || n.group_h2d > 0;
    d2h = d2h || n.kind == NodeKind::CopyD2H || n.group_d2h > 0;
  }
  for (const auto& e : model.edges) implicit = implicit || e.implicit_crossing;
  if (h2d) entries.push_back({LegendEntry::H2D, {}, QStringLiteral("host \u2192 device copy")});
  if (d2h) entries.push_back({LegendEntry::D2H, {}, QStringLiteral("device \u2192 host copy")});
  if (implicit) entries.push_back({LegendEntry::Implicit, {}, QStringLiteral("device change without copy")});
  if (model.has_groups) entries.push_back({LegendEntry::Group, {}, QStringLiteral("group (double-click)")});
  bool added = false, removed = false, moved = false;
  for (const auto& n : model.nodes) {
    added = added || n.change == layout::Change::Added;
    removed = removed || n.change == layout::Change::Removed;
    moved = moved || n.change == layout::Change::Moved;
  }
  for (const auto& e : model.edges) moved = moved || e.change == layout::Change::Moved;
  if (added) entries.push_back({LegendEntry::Added, {}, QStringLiteral("copy added by the edits")});
  if (removed) entries.push_back({LegendEntry::Removed, {}, QStringLiteral("copy removed by the edits")});
  if (moved) entries.push_back({LegendEntry::Moved, {}, QStringLiteral("device or target changed")});
  return entries;
}

QFont legendFont() {
  QFont font(QStringLiteral("Sans"));
  font.setPixelSize(11);
  return font;
}

// Paints the entries in a row (horizontal) or a column; returns the size.
QSizeF paintLegend(QPainter* painter, const QPointF& origin, const std::vector<LegendEntry>& entries, bool horizontal) {
  const QFont font = legendFont();
  const QFontMetricsF metrics(font);
  const double row = 18, swatch = 22;
  double x = origin.x(), y = origin.y(), width = 0;
  for (const auto& entry : entries) {
    const QRectF box(x, y + 3, swatch, row - 6);
    if (painter) {
      painter->save();
      switch (entry.kind) {
        case LegendEntry::Device: {
          const auto style = layout::deviceStyle(entry.device);
          painter->setPen(QPen(toQColor(style.stroke), 1.5));
          painter->setBrush(toQColor(style.fill));
          painter->drawRoundedRect(box, 3, 3);
          break;
        }
        case LegendEntry::H2D:
        case LegendEntry::D2H: {
          const bool right = entry.kind == LegendEntry::H2D;
          const auto style = right ? layout::h2dCopyStyle() : layout::d2hCopyStyle();
          const double l = box.left(), r = box.right(), t = box.top(), b = box.bottom(), c = box.center().y();
          QPolygonF arrow = right ? QPolygonF({{l, t}, {r - 6, t}, {r, c}, {r - 6, b}, {l, b}, {l + 3, c}})
                                  : QPolygonF({{r, t}, {l + 6, t}, {l, c}, {l + 6, b}, {r, b}, {r - 3, c}});
          painter->setPen(QPen(toQColor(style.stroke), 1.5));
          painter->setBrush(toQColor(style.fill));
          painter->drawPolygon(arrow);
          break;
        }
        case LegendEntry::Implicit:
          painter->setPen(QPen(toQColor(layout::implicitCrossingColour()), 2.2, Qt::DashLine));
          painter->drawLine(QPointF(box.left(), box.center().y()), QPointF(box.right(), box.center().y()));
          break;
        case LegendEntry::Added:
        case LegendEntry::Removed:
        case LegendEntry::Moved: {
          const auto change = entry.kind == LegendEntry::Added     ? layout::Change::Added
                              : entry.kind == LegendEntry::Removed ? layout::Change::Removed
                                                                   : layout::Change::Moved;
          painter->setPen(QPen(changeQColor(change), 3, change == layout::Change::Removed ? Qt::DashLine : Qt::SolidLine));
          painter->setBrush(Qt::white);
          painter->drawRoundedRect(box.adjusted(1.5, 1.5, -1.5, -1.5), 3, 3);
          break;
        }
        case LegendEntry::Scale: {
          QLinearGradient gradient(box.topLeft(), box.topRight());
          for (double t : {0.0, 0.5, 1.0}) gradient.setColorAt(t, costColour(t));
          painter->setPen(Qt::NoPen);
          painter->setBrush(gradient);
          painter->drawRoundedRect(box, 2, 2);
          break;
        }
        case LegendEntry::Group: {
          const auto style = layout::mixedStyle();
          painter->setPen(QPen(toQColor(style.stroke), 1));
          painter->setBrush(toQColor(style.fill));
          painter->drawRect(box.adjusted(4, -2, 0, -4));
          painter->drawRect(box.adjusted(0, 2, -4, 0));
          break;
        }
      }
      painter->setFont(font);
      painter->setPen(QColor(0x22, 0x22, 0x22));
      painter->drawText(QRectF(x + swatch + 5, y, metrics.horizontalAdvance(entry.text) + 2, row), Qt::AlignVCenter, entry.text);
      painter->restore();
    }
    const double itemWidth = swatch + 5 + metrics.horizontalAdvance(entry.text) + 14;
    if (horizontal) {
      x += itemWidth;
      width = x - origin.x();
    } else {
      y += row;
      width = std::max(width, itemWidth);
    }
  }
  return horizontal ? QSizeF(width, row) : QSizeF(width, y - origin.y());
}

}  // namespace

class GraphLegend : public QWidget {
 public:
  explicit GraphLegend(QWidget* parent) : QWidget(parent) {
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setObjectName(QStringLiteral("graphLegend"));
  }
  void setEntries(std::vector<LegendEntry> entries) {
    entries_ = std::move(entries);
    const QSizeF size = paintLegend(nullptr, QPointF(8, 6), entries_, false);
    resize(int(size.width()) + 12, int(size.height()) + 12);
    setVisible(!entries_.empty());
    update();
  }

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter painter(this);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(QColor(0, 0, 0, 40));
    painter.setBrush(QColor(255, 255, 255, 225));
    painter.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 6, 6);
    paintLegend(&painter, QPointF(8, 6), entries_, false);
  }

 private:
  std::vector<LegendEntry> entries_;
};

// The overview: the whole graph in small, the visible part framed. Drawn
// from the layout's rectangles (not by rendering the scene) so that it
// stays cheap for graphs of tens of thousands of nodes.
class GraphOverview : public QWidget {
 public:
  GraphOverview(QWidget* parent, QGraphicsView* view) : QWidget(parent), view_(view) {
    setObjectName(QStringLiteral("graphOverview"));
    setCursor(Qt::PointingHandCursor);
    setToolTip(QStringLiteral("Overview: click or drag to move the view"));
  }

  void setLayout(const layout::GraphLayout* graph) {
    graph_ = graph;
    if (!graph_ || graph_->bounds.width <= 0 || graph_->bounds.height <= 0) {
      hide();
      return;
    }
    // Keep the graph's aspect within a box of at most 190 x 170 pixels.
    const double w = graph_->bounds.width, h = graph_->bounds.height;
    const double scale = std::min(190.0 / w, 170.0 / h);
    resize(std::max(36, int(w * scale) + 8), std::max(36, int(h * scale) + 8));
    cache_ = QPixmap();
    viewChanged();
  }

  void viewChanged() {
    // Only useful when part of the graph is out of sight.
    if (graph_) {
      const QRectF visible = view_->mapToScene(view_->viewport()->rect()).boundingRect();
      const QRectF all(graph_->bounds.x, graph_->bounds.y, graph_->bounds.width, graph_->bounds.height);
      setVisible(!visible.contains(all));
    }
    update();
  }

 protected:
  void paintEvent(QPaintEvent*) override {
    if (!graph_) return;
    QPainter painter(this);
    if (cache_.size() != size()) redrawCache();
    painter.drawPixmap(0, 0, cache_);
    // The visible part of the scene.
    const QRectF visible = view_->mapToScene(view_->viewport()->rect()).boundingRect();
    QRectF frame = toOverview().mapRect(visible).intersected(QRectF(rect()).adjusted(1, 1, -1, -1));
    if (frame.width() < 3) frame.setWidth(3);
    if (frame.height() < 3) frame.setHeight(3);
    painter.setPen(QPen(QColor(0x0d, 0x47, 0xa1), 1.5));
    painter.setBrush(QColor(0x0d, 0x47, 0xa1, 30));
    painter.drawRect(frame);
  }
  void mousePressEvent(QMouseEvent* event) override { moveViewTo(event->position()); }
  void mouseMoveEvent(QMouseEvent* event) override {
    if (event->buttons() & Qt::LeftButton) moveViewTo(event->position());
  }

 private:
  QTransform toOverview() const {
    const double sx = (width() - 8) / graph_->bounds.width;
    const double sy = (height() - 8) / graph_->bounds.height;
    const double s = std::min(sx, sy);
    QTransform t;
    // Centred, so that a tall chain sits in the middle of its strip.
    t.translate(4 + (width() - 8 - graph_->bounds.width * s) / 2, 4 + (height() - 8 - graph_->bounds.height * s) / 2);
    t.scale(s, s);
    t.translate(-graph_->bounds.x, -graph_->bounds.y);
    return t;
  }
  void moveViewTo(const QPointF& at) {
    if (!graph_) return;
    bool invertible = false;
    const QPointF scenePoint = toOverview().inverted(&invertible).map(at);
    if (invertible) view_->centerOn(scenePoint);
  }
  void redrawCache() {
    cache_ = QPixmap(size());
    cache_.fill(Qt::transparent);
    QPainter painter(&cache_);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(QColor(0, 0, 0, 60));
    painter.setBrush(QColor(255, 255, 255, 235));
    painter.drawRoundedRect(QRectF(rect()).adjusted(0.5, 0.5, -0.5, -0.5), 4, 4);
    painter.setTransform(toOverview());
    painter.setPen(Qt::NoPen);
    for (const auto& region : graph_->regions) {
      QColor c = toQColor(layout::deviceStyle(region.device).stroke);
      c.setAlpha(45);
      painter.setBrush(c);
      painter.drawRect(QRectF(region.rect.x, region.rect.y, region.rect.width, region.rect.height));
    }
    for (size_t i = 0; i < graph_->nodes.size(); ++i) {
      const auto& node = graph_->model.nodes[i];
      const auto& g = graph_->nodes[i];
      layout::Rgb colour = layout::deviceStyle(node.device).stroke;
      if (node.kind == NodeKind::CopyH2D) colour = layout::h2dCopyStyle().stroke;
      if (node.kind == NodeKind::CopyD2H) colour = layout::d2hCopyStyle().stroke;
      if (node.kind == NodeKind::Group && !node.has_device) colour = layout::mixedStyle().stroke;
      painter.setBrush(toQColor(colour));
      painter.drawRect(QRectF(g.center.x - g.width / 2, g.center.y - g.height / 2, g.width, g.height));
    }
  }

  QGraphicsView* view_;
  const layout::GraphLayout* graph_ = nullptr;
  QPixmap cache_;
};

// The QGraphicsView: zoom on the wheel, pan by dragging, click to select.
class GraphCanvas : public QGraphicsView {
 public:
  GraphCanvas(QGraphicsScene* scene, GraphView* owner) : QGraphicsView(scene, owner), owner_(owner) {
    setObjectName(QStringLiteral("graphCanvas"));
    setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setResizeAnchor(QGraphicsView::AnchorViewCenter);
    setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
    setOptimizationFlags(QGraphicsView::DontSavePainterState);
    setBackgroundBrush(QColor(0xfb, 0xfb, 0xfb));
    setFrameShape(QFrame::NoFrame);
  }

  std::function<void()> viewChanged;

  void zoomBy(double factor) {
    const double current = transform().m11();
    const double target = std::clamp(current * factor, kMinZoom, kMaxZoom);
    if (target == current) return;
    scale(target / current, target / current);
    if (viewChanged) viewChanged();
  }

 protected:
  void wheelEvent(QWheelEvent* event) override {
    // Wheel zooms (as in every graph viewer); Shift+wheel scrolls.
    if (event->modifiers() & Qt::ShiftModifier) {
      QGraphicsView::wheelEvent(event);
      return;
    }
    const double steps = event->angleDelta().y() / 120.0;
    if (steps != 0) zoomBy(std::pow(1.2, steps));
    event->accept();
  }
  void scrollContentsBy(int dx, int dy) override {
    QGraphicsView::scrollContentsBy(dx, dy);
    if (viewChanged) viewChanged();
  }
  void resizeEvent(QResizeEvent* event) override {
    QGraphicsView::resizeEvent(event);
    if (viewChanged) viewChanged();
  }
  void mousePressEvent(QMouseEvent* event) override {
    pressPos_ = event->position().toPoint();
    QGraphicsView::mousePressEvent(event);
  }
  void mouseReleaseEvent(QMouseEvent* event) override {
    QGraphicsView::mouseReleaseEvent(event);
    if (event->button() != Qt::LeftButton) return;
    if ((event->position().toPoint() - pressPos_).manhattanLength() > 4) return;  // a drag, not a click
    const auto hit = hitAt(event->position().toPoint());
    if (hit.node) owner_->nodeClicked(*hit.node);
    else if (hit.edge) owner_->edgeClicked(*hit.edge);
    else owner_->backgroundClicked();
  }
  void mouseDoubleClickEvent(QMouseEvent* event) override {
    const auto hit = hitAt(event->position().toPoint());
    if (hit.node) owner_->nodeDoubleClicked(*hit.node);
    event->accept();
  }
  void contextMenuEvent(QContextMenuEvent* event) override {
    owner_->showContextMenu(event->pos(), hitAt(event->pos()).node);
  }

 private:
  struct Hit {
    std::optional<size_t> node;
    std::optional<size_t> edge;
  };
  Hit hitAt(const QPoint& viewPos) const {
    // Nodes win over the edges that end on them; regions are background.
    Hit hit;
    const QRectF around = mapToScene(QRect(viewPos - QPoint(3, 3), QSize(7, 7))).boundingRect();
    for (QGraphicsItem* item : scene()->items(around, Qt::IntersectsItemShape, Qt::DescendingOrder)) {
      if (auto* node = qgraphicsitem_cast<GraphNodeItem*>(item)) {
        hit.node = node->index();
        return hit;
      }
      if (auto* edge = qgraphicsitem_cast<GraphEdgeItem*>(item); edge && !hit.edge) hit.edge = edge->index();
    }
    return hit;
  }

  GraphView* owner_;
  QPoint pressPos_;
};

// ---- the view ----

struct GraphView::AnalyzedMethod {
  std::shared_ptr<const program::Program> program;  // keeps the method alive
  int method = -1;
  layout::MethodGraph graph;
};

struct GraphView::SceneItems {
  std::vector<GraphRegionItem*> regions;
  std::vector<GraphEdgeItem*> edges;
  std::vector<GraphNodeItem*> nodes;
  bool adopted = false;  // a scene owns them now
  ~SceneItems() {
    if (adopted) return;
    for (auto* i : regions) delete i;
    for (auto* i : edges) delete i;
    for (auto* i : nodes) delete i;
  }
  // Items for every region, edge and node of `graph`; false when cancelled.
  bool make(const layout::GraphLayout& graph, const std::atomic<bool>* cancel) {
    for (const auto& region : graph.regions) regions.push_back(new GraphRegionItem(region));
    edges.reserve(graph.edges.size());
    for (size_t i = 0; i < graph.edges.size(); ++i) {
      if ((i & 0x3ff) == 0 && cancel && cancel->load()) return false;
      edges.push_back(new GraphEdgeItem(graph.model.edges[i], graph.edges[i], i));
    }
    nodes.reserve(graph.nodes.size());
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
      if ((i & 0x3ff) == 0 && cancel && cancel->load()) return false;
      nodes.push_back(new GraphNodeItem(graph.model.nodes[i], graph.nodes[i], i));
    }
    return true;
  }
};

struct GraphView::JobResult {
  quint64 generation = 0;
  std::shared_ptr<const AnalyzedMethod> analyzed;
  std::shared_ptr<const layout::GraphLayout> layout;
  std::set<int> expanded;
  QString error;
  bool cancelled = false;
  // The model of a cancelled layout when nothing was on screen.
  std::shared_ptr<const layout::GraphModel> fallback;
  // The scene items of `layout`, made on the worker (they are plain
  // QGraphicsItems, not in a scene yet), so that the UI thread only adds
  // them: making 30,000 items takes a fifth of a second.
  std::shared_ptr<SceneItems> items;
};

GraphView::GraphView(QWidget* parent) : QWidget(parent), scene_(new QGraphicsScene(this)) {
  setObjectName(QStringLiteral("graphView"));
  scene_->setItemIndexMethod(QGraphicsScene::BspTreeIndex);
  canvas_ = new GraphCanvas(scene_, this);
  auto* box = new QVBoxLayout(this);
  box->setContentsMargins(0, 0, 0, 0);
  box->addWidget(canvas_);

  legend_ = new GraphLegend(this);
  legend_->hide();
  overview_ = new GraphOverview(this, canvas_);
  overview_->hide();
  canvas_->viewChanged = [this] { overview_->viewChanged(); };

  progressPanel_ = new QWidget(this);
  progressPanel_->setObjectName(QStringLiteral("graphProgress"));
  progressPanel_->setAutoFillBackground(true);
  auto* row = new QHBoxLayout(progressPanel_);
  row->setContentsMargins(10, 6, 10, 6);
  progressLabel_ = new QLabel(progressPanel_);
  progressBar_ = new QProgressBar(progressPanel_);
  progressBar_->setRange(0, 1000);
  progressBar_->setTextVisible(false);
  progressBar_->setFixedWidth(160);
  cancelButton_ = new QPushButton(tr("Cancel"), progressPanel_);
  cancelButton_->setObjectName(QStringLiteral("graphCancelLayout"));
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
  // covers a node.
  banner_ = new QLabel(this);
  banner_->setObjectName(QStringLiteral("graphBanner"));
  banner_->setWordWrap(true);
  banner_->setTextFormat(Qt::PlainText);
  banner_->setStyleSheet(QStringLiteral("QLabel { background: #fff8e1; border-bottom: 1px solid #f5a623; padding: 4px 10px; }"));
  banner_->hide();
  box->insertWidget(0, banner_);

  auto shortcut = [this](const QKeySequence& keys, auto slot) {
    auto* s = new QShortcut(keys, this);
    s->setContext(Qt::WidgetWithChildrenShortcut);
    connect(s, &QShortcut::activated, this, slot);
  };
  shortcut(QKeySequence(Qt::CTRL | Qt::Key_Equal), &GraphView::zoomIn);
  shortcut(QKeySequence(Qt::CTRL | Qt::Key_Plus), &GraphView::zoomIn);
  shortcut(QKeySequence(Qt::CTRL | Qt::Key_Minus), &GraphView::zoomOut);
  shortcut(QKeySequence(Qt::CTRL | Qt::Key_0), &GraphView::fitToWindow);
  shortcut(QKeySequence(Qt::Key_Escape), [this] { backgroundClicked(); });
  shortcut(QKeySequence(Qt::Key_F3), [this] { findNext(); });
  shortcut(QKeySequence(Qt::SHIFT | Qt::Key_F3), [this] { findPrevious(); });
}

GraphView::~GraphView() {
  // The job holds only shared state, but wait so that no Graphviz run
  // outlives the application's thread pool teardown.
  if (cancel_) cancel_->store(true);
  if (watcher_) watcher_->waitForFinished();
  scene_->clear();
}

QGraphicsView* GraphView::canvas() const { return canvas_; }

bool GraphView::pictureIsCurrent() const {
  return layout_ && analyzed_ && program_ && analyzed_->program == program_ && analyzed_->method == methodIndex_;
}

// The latest job's result has not been handled yet (a watcher may report
// its future finished before its finished() signal has been delivered).
bool GraphView::layoutPending() const { return handledGeneration_ != generation_; }

void GraphView::setMethod(std::shared_ptr<const program::Program> program, int methodIndex,
                          std::shared_ptr<const layout::MethodChanges> changes) {
  // The same request again (the window refreshes on both "program changed"
  // and "method changed" after an edit): the layout running or on screen
  // already answers it.
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

  firstLayoutOfMethod_ = !sameMethod;
  pendingInstruction_.reset();
  pendingValue_.reset();
  if (!program_ || methodIndex < 0 || size_t(methodIndex) >= program_->methods().size()) {
    clear();
    return;
  }
  startLayout(std::nullopt, std::nullopt);
}

void GraphView::clear() {
  cancelLayout();
  // A job that already passed its last cancel check must not bring the
  // cleared picture back.
  handledGeneration_ = ++generation_;
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
  layout_.reset();
  legend_->hide();
  overview_->setLayout(nullptr);
  messageLabel_->hide();
}

void GraphView::cancelLayout() {
  if (cancel_) cancel_->store(true);
}

void GraphView::startLayout(std::optional<std::set<int>> expanded, std::optional<int> focusGroup) {
  if (cancel_) cancel_->store(true);
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  const quint64 generation = ++generation_;
  focusGroup_ = focusGroup;

  auto cancel = cancel_;
  auto program = program_;
  auto analyzed = pictureIsCurrent() ? analyzed_ : nullptr;
  auto changes = changes_;
  const int methodIndex = methodIndex_;
  const double budget = layoutBudgetSeconds_;
  const bool wantFallback = layout_ == nullptr;
  QPointer<GraphView> self(this);
  auto progress = [self, generation](double fraction, const std::string& phase) {
    QMetaObject::invokeMethod(
        self.data(),
        [self, generation, fraction, phase = QString::fromStdString(phase)] {
          if (self && self->generation_ == generation) self->showProgress(fraction, phase);
        },
        Qt::QueuedConnection);
  };

  auto job = [=]() -> JobResult {
    JobResult result;
    result.generation = generation;
    result.analyzed = analyzed;
    if (!result.analyzed) {
      const auto& method = program->methods()[size_t(methodIndex)];
      progress(0.0, "analysing method '" + method.displayName() + "'");
      auto fresh = std::shared_ptr<AnalyzedMethod>(new AnalyzedMethod{program, methodIndex, {}});
      fresh->graph = layout::MethodGraph::analyze(fresh->program->methods()[size_t(methodIndex)], {}, cancel.get());
      result.analyzed = fresh;
    }
    if (cancel->load()) {
      result.cancelled = true;
      return result;
    }
    result.expanded = expanded ? *expanded : result.analyzed->graph.initialExpansion();
    auto model = result.analyzed->graph.build(result.expanded, {}, cancel.get());
    if (changes) layout::markChanges(model, result.analyzed->graph, *changes);
    if (cancel->load()) {
      result.cancelled = true;
      return result;
    }
    layout::LayoutOptions options;
    options.time_budget_seconds = budget;
    // Kept for a cancelled first picture: something to show, at once.
    auto fallbackModel = wantFallback ? std::make_shared<layout::GraphModel>(model) : nullptr;
    auto placed = layout::layoutGraph(std::move(model), options, cancel.get(), progress);
    if (!placed) {
      result.cancelled = cancel->load();
      result.error = QString::fromStdString(placed.error().message);
      if (result.cancelled) result.fallback = fallbackModel;
      return result;
    }
    result.layout = std::make_shared<const layout::GraphLayout>(std::move(placed.value()));
    result.items = std::make_shared<SceneItems>();
    if (!result.items->make(*result.layout, cancel.get())) {
      result.items.reset();
      result.layout.reset();
      result.cancelled = true;
    }
    return result;
  };

  auto* watcher = new QFutureWatcher<JobResult>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
    const JobResult result = watcher->result();
    watcher->deleteLater();
    finishLayout(result);
  });
  watcher_ = watcher;
  watcher->setFuture(QtConcurrent::run(job));
  progressBar_->setValue(0);
  progressLabel_->setText(tr("Laying out the graph\u2026"));
  progressDelay_->start();
}

void GraphView::showProgress(double fraction, const QString& phase) {
  progressBar_->setValue(int(fraction * 1000));
  progressLabel_->setText(phase);
}

void GraphView::finishLayout(const JobResult& result) {
  if (result.generation != generation_) return;  // a newer layout replaced this one
  handledGeneration_ = result.generation;
  progressDelay_->stop();
  progressPanel_->hide();
  if (result.cancelled) {
    pendingInstruction_.reset();
    pendingValue_.reset();
    if (!layout_ && result.fallback) {
      // Nothing on screen yet: the quick row layout rather than a blank canvas.
      auto quick = layout::quickLayout(*result.fallback);
      quick.note = "Layout cancelled: a quick row layout is shown (open or close a group to lay it out again)";
      analyzed_ = result.analyzed;
      shownExpanded_ = result.expanded;
      layout_ = std::make_shared<const layout::GraphLayout>(std::move(quick));
      rebuildScene();
      showInitialView();
      firstLayoutOfMethod_ = false;
    }
    emit layoutCancelled();
    return;
  }
  if (!result.layout) {
    messageLabel_->setText(tr("The graph could not be laid out:\n%1").arg(result.error));
    messageLabel_->show();
    placeOverlays();
    emit layoutFailed(result.error);
    return;
  }
  messageLabel_->hide();
  // Keep the selection across a re-layout of the same method by node key.
  std::string selectedKey;
  std::optional<int32_t> selectedEdgeValue;
  if (layout_ && analyzed_ == result.analyzed) {
    if (selectedNode_) selectedKey = layout_->model.nodes[*selectedNode_].key;
    if (selectedEdge_) selectedEdgeValue = layout_->model.edges[*selectedEdge_].value;
  }
  analyzed_ = result.analyzed;
  shownExpanded_ = result.expanded;
  // The items on screen point into the previous layout: it must outlive
  // them, until rebuildScene() has removed them.
  const auto previous = std::exchange(layout_, result.layout);
  rebuildScene(result.items.get());

  if (firstLayoutOfMethod_) {
    firstLayoutOfMethod_ = false;
    showInitialView();
  } else if (focusGroup_) {
    // Show where the opened (or closed) group's instructions now are.
    const auto& group = analyzed_->graph.groups().groups[size_t(*focusGroup_)];
    if (auto node = layout_->model.nodeOfInstruction(group.first)) centreOnNode(*node);
  }
  if (!selectedKey.empty()) {
    if (auto node = layout_->model.findNode(selectedKey)) selectNode(*node, false);
  } else if (selectedEdgeValue) {
    trySelectValue(*selectedEdgeValue, false);
  }
  if (pendingInstruction_) {
    const size_t instruction = *pendingInstruction_;
    pendingInstruction_.reset();
    selectInstruction(instruction);
  } else if (pendingValue_) {
    const int32_t value = *pendingValue_;
    pendingValue_.reset();
    trySelectValue(value, false);
  }
  if (!findText_.isEmpty()) {
    computeMatches();
    currentMatch_ = -1;
  }
  emit layoutFinished();
}

void GraphView::rebuildScene(SceneItems* made) {
  nodeItems_.clear();
  edgeItems_.clear();
  selectedNode_.reset();
  selectedEdge_.reset();
  scene_->clear();
  const auto& graph = *layout_;
  SceneItems local;
  if (!made) {
    local.make(graph, nullptr);
    made = &local;
  }
  made->adopted = true;
  for (auto* item : made->regions) scene_->addItem(item);
  for (auto* item : made->edges) scene_->addItem(item);
  for (auto* item : made->nodes) scene_->addItem(item);
  edgeItems_ = made->edges;
  nodeItems_ = made->nodes;
  if (graph.model.nodes.empty()) {
    auto* text = scene_->addSimpleText(
        tr("Method '%1' is empty: no instructions, inputs or outputs.").arg(QString::fromStdString(graph.model.method_name)));
    text->setBrush(QColor(0x66, 0x66, 0x66));
  }
  const QRectF bounds = graph.model.nodes.empty()
                            ? scene_->itemsBoundingRect()
                            : QRectF(graph.bounds.x, graph.bounds.y, graph.bounds.width, graph.bounds.height);
  scene_->setSceneRect(bounds.adjusted(-kSceneMargin, -kSceneMargin, kSceneMargin, kSceneMargin));
  overview_->setLayout(layout_.get());
  applyOverlay();  // also sets the legend
  updateBanner();
  placeOverlays();
}

// ---- diff view ----

QString GraphView::diffSummary() const {
  if (!changes_) return {};
  const auto& c = *changes_;
  if (c.empty())
    return tr("Diff against the file as loaded: no changes in this method.") +
           (diffNote_.isEmpty() ? QString() : " " + diffNote_);
  QStringList parts;
  auto count = [](size_t n, const QString& one, const QString& many) { return QString::number(n) + " " + (n == 1 ? one : many); };
  if (!c.added_copies.empty()) parts << "+" + count(c.added_copies.size(), tr("copy added"), tr("copies added"));
  if (!c.removed_copies.empty()) parts << "\u2212" + count(c.removed_copies.size(), tr("copy removed"), tr("copies removed"));
  if (!c.moved_values.empty()) parts << count(c.moved_values.size(), tr("value changed device"), tr("values changed device"));
  if (!c.retargeted.empty()) parts << count(c.retargeted.size(), tr("delegate retargeted"), tr("delegates retargeted"));
  for (const auto& note : c.notes) parts << QString::fromStdString(note);
  if (!diffNote_.isEmpty()) parts << diffNote_;
  if (layout_ && layout_->model.undrawn_removed_copies > 0)
    parts << tr("%1 removed copies not drawn (open groups or see Changes)").arg(layout_->model.undrawn_removed_copies);
  return tr("Diff against the file as loaded: %1").arg(parts.join(QStringLiteral(" \u00b7 ")));
}

void GraphView::setDiffNote(const QString& note) {
  if (note == diffNote_) return;
  diffNote_ = note;
  updateBanner();
}

void GraphView::updateBanner() {
  QString text = diffSummary();
  if (layout_ && !layout_->note.empty())
    text += (text.isEmpty() ? QString() : QStringLiteral("\n")) + QString::fromStdString(layout_->note);
  banner_->setVisible(!text.isEmpty() && layout_ != nullptr);
  banner_->setText(text);
  placeOverlays();
}

// ---- profile overlay ----

void GraphView::setMeasurements(std::vector<CopyMeasurement> copies) {
  measurements_ = std::move(copies);
  applyOverlay();
}

void GraphView::setOverlayMetric(OverlayMetric metric) {
  overlayMetric_ = metric;
  applyOverlay();
}


QString GraphView::overlayLegendText() const {
  if (overlayMetric_ == OverlayMetric::Placement || measurements_.empty() || (overlayMin_ == 0 && overlayMax_ == 0)) return {};
  if (overlayMetric_ == OverlayMetric::Time)
    return tr("copy time %1 \u2192 %2").arg(durationText(overlayMin_), durationText(overlayMax_));
  return tr("bandwidth %1 \u2192 %2").arg(gbpsText(overlayMax_) + " GB/s", gbpsText(overlayMin_) + " GB/s");
}

void GraphView::applyOverlay() {
  if (!layout_) return;
  const auto& model = layout_->model;
  for (auto* item : nodeItems_) item->setOverlay(std::nullopt);
  for (auto* item : edgeItems_) item->setOverlay(std::nullopt);
  overlayMin_ = overlayMax_ = 0;
  // The measurements number the instructions of program_; the picture on
  // screen may still be of the previous program until its layout is done.
  const bool pictureOfProgram = pictureIsCurrent();
  if (pictureOfProgram && overlayMetric_ != OverlayMetric::Placement && !measurements_.empty()) {
    // Per visible node: the copies it shows (a group sums the ones inside).
    struct Sum {
      double seconds = 0;
      uint64_t bytes = 0;
    };
    std::map<size_t, Sum> perNode;
    for (const auto& m : measurements_) {
      auto node = model.nodeOfInstruction(m.instruction);
      if (!node) continue;
      auto& sum = perNode[*node];
      sum.seconds += m.seconds;
      sum.bytes += m.bytes;
    }
    const bool time = overlayMetric_ == OverlayMetric::Time;
    auto metricOf = [time](const Sum& s) {
      return time ? s.seconds : (s.seconds > 0 ? double(s.bytes) / s.seconds / 1e9 : 0.0);
    };
    bool first = true;
    for (const auto& [node, sum] : perNode) {
      const double v = metricOf(sum);
      overlayMin_ = first ? v : std::min(overlayMin_, v);
      overlayMax_ = first ? v : std::max(overlayMax_, v);
      first = false;
    }
    // Times spread over orders of magnitude: a log scale when they do.
    const bool logScale = overlayMin_ > 0 && overlayMax_ / overlayMin_ > 20;
    auto position = [&](double v) {
      if (overlayMax_ <= overlayMin_) return 0.5;
      const double t = logScale ? std::log(v / overlayMin_) / std::log(overlayMax_ / overlayMin_)
                                : (v - overlayMin_) / (overlayMax_ - overlayMin_);
      return time ? t : 1.0 - t;  // low bandwidth is the costly end
    };
    for (const auto& [node, sum] : perNode) {
      const double v = metricOf(sum);
      nodeItems_[node]->setOverlay(ItemOverlay{costColour(position(v)),
                                               time ? durationText(v) : gbpsText(v) + QStringLiteral(" GB/s")});
    }
    // The edges that leave a copy carry the copied tensor across devices:
    // one pass over the edges.
    for (size_t e = 0; e < model.edges.size(); ++e) {
      const size_t from = model.edges[e].from;
      auto it = perNode.find(from);
      if (it == perNode.end() || model.nodes[from].kind == NodeKind::Group) continue;
      const auto& overlay = *nodeItems_[from]->overlay();
      edgeItems_[e]->setOverlay(ItemOverlay{overlay.colour, QString::fromStdString(program::bytesText(int64_t(it->second.bytes))) +
                                                                QStringLiteral(" \u00b7 ") + overlay.text});
    }
  }
  legend_->setEntries(legendEntries(model, overlayLegendText()));
  placeOverlays();
}

void GraphView::showInitialView() {
  // Small graphs: all of it. Tall ones (a chain of layers): readable width,
  // starting at the top, since a whole 10,000-point chain fitted in a window
  // shows nothing.
  const QRectF rect = scene_->sceneRect();
  const QSizeF viewport = canvas_->viewport()->size();
  if (rect.isEmpty() || viewport.isEmpty()) return;
  const double fitAll = std::min(viewport.width() / rect.width(), viewport.height() / rect.height());
  canvas_->resetTransform();
  if (fitAll >= 0.45) {
    const double s = std::min(fitAll, 1.25);
    canvas_->scale(s, s);
    canvas_->centerOn(rect.center());
  } else {
    const double s = std::clamp(viewport.width() / rect.width(), 0.45, 1.0);
    canvas_->scale(s, s);
    canvas_->centerOn(QPointF(rect.center().x(), rect.top() + viewport.height() / (2 * s)));
  }
  overview_->viewChanged();
}

void GraphView::placeOverlays() {
  const QRect area = canvas_->geometry();
  legend_->move(area.left() + 8, area.top() + 8);
  legend_->raise();
  overview_->move(area.right() - overview_->width() - 8 - canvas_->verticalScrollBar()->width() * int(canvas_->verticalScrollBar()->isVisible()),
                  area.bottom() - overview_->height() - 8 -
                      canvas_->horizontalScrollBar()->height() * int(canvas_->horizontalScrollBar()->isVisible()));
  overview_->raise();
  progressPanel_->setGeometry(area.left(), area.top(), area.width(), progressPanel_->sizeHint().height());
  progressPanel_->raise();
  messageLabel_->setGeometry(area.adjusted(40, 40, -40, -40));
  messageLabel_->raise();

}

void GraphView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  placeOverlays();
}

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

void GraphView::openGroupsFor(size_t instruction) {
  if (!pictureIsCurrent()) return;
  auto expanded = shownExpanded_;
  for (int g : analyzed_->graph.groupPathOf(instruction)) expanded.insert(g);
  startLayout(expanded, std::nullopt);
}

// ---- selection ----

void GraphView::nodeClicked(size_t node) { selectNode(node, true); }

void GraphView::edgeClicked(size_t edge) { selectEdge(edge, true); }

void GraphView::backgroundClicked() {
  if (!selectedNode_ && !selectedEdge_) return;
  clearSelection();
  emit selectionCleared();
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

void GraphView::selectNode(size_t node, bool emitSignals) {
  if (!layout_ || node >= nodeItems_.size()) return;
  selectedNode_ = node;
  selectedEdge_.reset();
  applyEmphasis();
  if (!emitSignals) return;
  const auto& n = layout_->model.nodes[node];
  if (n.instruction) emit instructionSelected(*n.instruction);
  else if (n.value >= 0) emit valueSelected(n.value);
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
}

void GraphView::centreOnNode(size_t node) {
  if (node < nodeItems_.size()) canvas_->centerOn(nodeItems_[node]);
}

void GraphView::centreOnEdge(size_t edge) {
  if (edge < edgeItems_.size()) canvas_->centerOn(edgeItems_[edge]->boundingRect().center());
}

void GraphView::selectInstruction(size_t instruction) {
  if (!layout_ || layoutPending()) {
    pendingInstruction_ = instruction;
    pendingValue_.reset();
    return;
  }
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
  for (size_t e = 0; e < model.edges.size(); ++e) {
    if (model.edges[e].value == value) {
      selectEdge(e, emitSignals);
      centreOnEdge(e);
      return true;
    }
  }
  return false;
}

void GraphView::selectValue(int32_t value) {
  if (!layout_ || layoutPending()) {
    pendingValue_ = value;
    pendingInstruction_.reset();
    return;
  }
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

// ---- view ----

void GraphView::fitToWindow() {
  if (scene_->sceneRect().isEmpty()) return;
  canvas_->fitInView(scene_->sceneRect(), Qt::KeepAspectRatio);
  const double s = canvas_->transform().m11();
  if (s > kMaxZoom) canvas_->zoomBy(kMaxZoom / s);
  if (s < kMinZoom) canvas_->zoomBy(kMinZoom / s);
  overview_->viewChanged();
}

void GraphView::zoomIn() { canvas_->zoomBy(1.25); }

void GraphView::zoomOut() { canvas_->zoomBy(0.8); }

double GraphView::zoomLevel() const { return canvas_->transform().m11(); }

void GraphView::setZoomLevel(double scale) {
  if (!(scale > 0)) return;
  const QPointF centre = canvas_->mapToScene(canvas_->viewport()->rect().center());
  canvas_->resetTransform();
  canvas_->scale(scale, scale);
  canvas_->centerOn(centre);
  overview_->viewChanged();
}

// ---- export ----

namespace {

QFont exportTitleFont() {
  QFont font(QStringLiteral("Sans"));
  font.setPixelSize(14);
  font.setBold(true);
  return font;
}

}  // namespace

QSizeF GraphView::exportSize() const {
  const QRectF source = scene_->sceneRect();
  const QString title = tr("method '%1'").arg(QString::fromStdString(layout_->model.method_name));
  const double header = 12 + QFontMetricsF(exportTitleFont()).horizontalAdvance(title) + 24 +
                        paintLegend(nullptr, QPointF(), legendEntries(layout_->model, overlayLegendText()), true).width() + 12;
  return QSizeF(std::max(source.width(), header), source.height() + kExportHeader);
}

void GraphView::paintExport(QPainter& painter, const QSizeF& size) {
  const QRectF source = scene_->sceneRect();
  painter.fillRect(QRectF(QPointF(0, 0), size), Qt::white);
  const QFont font = exportTitleFont();
  painter.setFont(font);
  painter.setPen(QColor(0x22, 0x22, 0x22));
  const QString title = tr("method '%1'").arg(QString::fromStdString(layout_->model.method_name));
  const double titleWidth = QFontMetricsF(font).horizontalAdvance(title) + 24;
  painter.drawText(QRectF(12, 0, titleWidth, kExportHeader), Qt::AlignVCenter, title);
  paintLegend(&painter, QPointF(12 + titleWidth, (kExportHeader - 18) / 2), legendEntries(layout_->model, overlayLegendText()), true);
  // Exports show everything in full detail, whatever the zoom on screen:
  // the painter's scale decides the level of detail, and it is >= 1 here.
  const QRectF target((size.width() - source.width()) / 2, kExportHeader, source.width(), source.height());
  scene_->render(&painter, target, source);
}

namespace {

bool saveBytes(const QString& path, const QByteArray& bytes, QString* error) {
  if (bytes.isEmpty()) {
    if (error) *error = QObject::tr("Cannot write %1").arg(path);
    return false;
  }
  auto written = writeFileAtomically(path.toStdString(), std::string_view(bytes.constData(), size_t(bytes.size())));
  if (!written) {
    if (error) *error = QString::fromStdString(written.error().message);
    return false;
  }
  return true;
}

}  // namespace

bool GraphView::exportSvg(const QString& path, QString* error) {
  if (!layout_) {
    if (error) *error = tr("There is no graph to export");
    return false;
  }
  const QSizeF size = exportSize();
  // Drawn into memory, then saved like every other file (atomically, mode
  // kept, symlinks written through).
  QBuffer svgBytes;
  svgBytes.open(QIODevice::WriteOnly);
  QSvgGenerator svg;
  svg.setOutputDevice(&svgBytes);
  svg.setSize(QSize(int(std::ceil(size.width())), int(std::ceil(size.height()))));
  svg.setViewBox(QRectF(QPointF(0, 0), size));
  svg.setTitle(QString::fromStdString("ptescope: method '" + layout_->model.method_name + "'"));
  svg.setDescription(tr("Graph of an ExecuTorch method with device placement and transfers, made by ptescope"));
  QPainter painter;
  if (!painter.begin(&svg)) {
    if (error) *error = tr("Cannot write %1").arg(path);
    return false;
  }
  painter.setRenderHint(QPainter::Antialiasing);
  paintExport(painter, size);
  painter.end();
  return saveBytes(path, svgBytes.data(), error);
}

bool GraphView::exportPng(const QString& path, QString* error, double scale) {
  if (!layout_) {
    if (error) *error = tr("There is no graph to export");
    return false;
  }
  const QSizeF size = exportSize();
  const double width = size.width(), height = size.height();
  scale = std::min({scale, kMaxImageSide / width, kMaxImageSide / height, std::sqrt(kMaxImagePixels / (width * height))});
  QImage image(QSize(std::max(1, int(width * scale)), std::max(1, int(height * scale))), QImage::Format_ARGB32_Premultiplied);
  if (image.isNull()) {
    if (error) *error = tr("Not enough memory for a %1 x %2 image").arg(int(width * scale)).arg(int(height * scale));
    return false;
  }
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing | QPainter::SmoothPixmapTransform);
    painter.scale(scale, scale);
    paintExport(painter, size);
  }
  QBuffer pngBytes;
  pngBytes.open(QIODevice::WriteOnly);
  QImageWriter writer(&pngBytes, "png");
  if (!writer.write(image)) {
    if (error) *error = tr("Cannot write %1: %2").arg(path, writer.errorString());
    return false;
  }
  return saveBytes(path, pngBytes.data(), error);
}

}  // namespace ptescope::ui
