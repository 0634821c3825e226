#include "ui/graph/GraphOverview.h"

#include <QGraphicsView>
#include <QMouseEvent>
#include <QPainter>

#include <algorithm>
#include <map>

#include "layout/DeviceStyle.h"
#include "ui/graph/GraphItems.h"

namespace ptescope::ui {

using layout::NodeKind;

GraphOverview::GraphOverview(QWidget* parent, QGraphicsView* view) : QWidget(parent), view_(view) {
  setObjectName(QStringLiteral("graphOverview"));
  setCursor(Qt::PointingHandCursor);
  setToolTip(QStringLiteral("Overview: click or drag to move the view"));
}

void GraphOverview::setLayout(const layout::GraphLayout* graph) {
  graph_ = graph;
  if (!graph_ || graph_->bounds.width <= 0 || graph_->bounds.height <= 0) {
    hide();
    return;
  }
  fitSize();
  viewChanged();
}

void GraphOverview::setMaxBox(const QSize& box) {
  if (box == maxBox_) return;
  maxBox_ = box;
  if (graph_ && graph_->bounds.width > 0 && graph_->bounds.height > 0) fitSize();
}

void GraphOverview::fitSize() {
  // Keep the graph's aspect within the box.
  const double w = graph_->bounds.width, h = graph_->bounds.height;
  const double scale = std::min(std::max(28, maxBox_.width() - 8) / w, std::max(28, maxBox_.height() - 8) / h);
  const QSize size(std::max(36, int(w * scale) + 8), std::max(36, int(h * scale) + 8));
  if (size == this->size()) return;
  resize(size);
  cache_ = QPixmap();
  update();
}

void GraphOverview::viewChanged() {
  // Only useful when part of the graph is out of sight.
  if (graph_) {
    const QRectF visible = view_->mapToScene(view_->viewport()->rect()).boundingRect();
    const QRectF all(graph_->bounds.x, graph_->bounds.y, graph_->bounds.width, graph_->bounds.height);
    setVisible(!visible.contains(all));
  }
  update();
}

void GraphOverview::paintEvent(QPaintEvent*) {
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

void GraphOverview::mousePressEvent(QMouseEvent* event) { moveViewTo(event->position()); }

void GraphOverview::mouseMoveEvent(QMouseEvent* event) {
  if (event->buttons() & Qt::LeftButton) moveViewTo(event->position());
}

QTransform GraphOverview::toOverview() const {
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

void GraphOverview::moveViewTo(const QPointF& at) {
  if (!graph_) return;
  bool invertible = false;
  const QPointF scenePoint = toOverview().inverted(&invertible).map(at);
  if (invertible) view_->centerOn(scenePoint);
}

void GraphOverview::redrawCache() {
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
  // Nodes are a few pixels here: one batch of plain rectangles per colour
  // (12,000 antialiased rectangles one by one held the UI thread for tens
  // of milliseconds when a full layout arrived).
  painter.setRenderHint(QPainter::Antialiasing, false);
  std::map<QRgb, QVector<QRectF>> byColour;
  for (size_t i = 0; i < graph_->nodes.size(); ++i) {
    const auto& node = graph_->model.nodes[i];
    const auto& g = graph_->nodes[i];
    layout::Rgb colour = layout::deviceStyle(node.device).stroke;
    if (node.kind == NodeKind::CopyH2D) colour = layout::h2dCopyStyle().stroke;
    if (node.kind == NodeKind::CopyD2H) colour = layout::d2hCopyStyle().stroke;
    if (node.kind == NodeKind::Group && !node.has_device) colour = layout::mixedStyle().stroke;
    byColour[toQColor(colour).rgba()].push_back(QRectF(g.center.x - g.width / 2, g.center.y - g.height / 2, g.width, g.height));
  }
  for (const auto& [colour, rects] : byColour) {
    painter.setBrush(QColor::fromRgba(colour));
    painter.drawRects(rects);
  }
}

}  // namespace ptescope::ui
