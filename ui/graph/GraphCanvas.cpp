#include "ui/graph/GraphCanvas.h"

#include <QContextMenuEvent>
#include <QGraphicsScene>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QScrollBar>

#include <utility>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

#include "ui/graph/GraphItems.h"

namespace ptescope::ui {

GraphCanvas::GraphCanvas(QGraphicsScene* scene, QWidget* parent) : QGraphicsView(scene, parent) {
  setObjectName(QStringLiteral("graphCanvas"));
  setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
  setDragMode(QGraphicsView::ScrollHandDrag);
  setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
  setResizeAnchor(QGraphicsView::AnchorViewCenter);
  setViewportUpdateMode(QGraphicsView::SmartViewportUpdate);
  setOptimizationFlags(QGraphicsView::DontSavePainterState);
  setBackgroundBrush(QColor(0xfb, 0xfb, 0xfb));
  setFrameShape(QFrame::NoFrame);
  for (QScrollBar* bar : {horizontalScrollBar(), verticalScrollBar()})
    connect(bar, &QAbstractSlider::actionTriggered, this, [this] { moved(); });
}

void GraphCanvas::zoomBy(double factor) {
  const double current = transform().m11();
  const double target = std::clamp(current * factor, kMinZoom, kMaxZoom);
  if (target == current) return;
  scale(target / current, target / current);
  changed();
}

void GraphCanvas::wheelEvent(QWheelEvent* event) {
  moved();
  // Wheel zooms (as in every graph viewer); Shift+wheel scrolls.
  if (event->modifiers() & Qt::ShiftModifier) {
    QGraphicsView::wheelEvent(event);
    return;
  }
  const double steps = event->angleDelta().y() / 120.0;
  if (steps != 0) zoomBy(std::pow(1.2, steps));
  event->accept();
}

void GraphCanvas::scrollContentsBy(int dx, int dy) {
  QGraphicsView::scrollContentsBy(dx, dy);
  changed();
}

void GraphCanvas::resizeEvent(QResizeEvent* event) {
  QGraphicsView::resizeEvent(event);
  if (resized) resized();
  changed();
}

void GraphCanvas::keyPressEvent(QKeyEvent* event) {
  moved();
  if (arrowKey && event->modifiers() == Qt::NoModifier) {
    int dx = 0, dy = 0;
    switch (event->key()) {
      case Qt::Key_Left: dx = -1; break;
      case Qt::Key_Right: dx = 1; break;
      case Qt::Key_Up: dy = -1; break;
      case Qt::Key_Down: dy = 1; break;
      default: break;
    }
    if ((dx || dy) && arrowKey(dx, dy)) {
      event->accept();
      return;
    }
  }
  if (event->key() == Qt::Key_F10 && event->modifiers() == Qt::ShiftModifier) {
    // Shift+F10 as the Menu key.
    QContextMenuEvent menu(QContextMenuEvent::Keyboard, viewport()->rect().center(),
                           viewport()->mapToGlobal(viewport()->rect().center()));
    contextMenuEvent(&menu);
    event->accept();
    return;
  }
  if ((event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) && event->modifiers() == Qt::NoModifier &&
      activateKey && activateKey()) {
    event->accept();
    return;
  }
  QGraphicsView::keyPressEvent(event);
}

void GraphCanvas::mousePressEvent(QMouseEvent* event) {
  moved();
  pressPos_ = event->position().toPoint();
  inDoubleClick_ = false;  // a double click whose release never came
  QGraphicsView::mousePressEvent(event);
}

void GraphCanvas::mouseReleaseEvent(QMouseEvent* event) {
  QGraphicsView::mouseReleaseEvent(event);
  if (event->button() != Qt::LeftButton) return;
  // The release that ends a double click is not a click: the double click
  // may have moved the view (following a stub), and what is under the
  // pointer now was never clicked.
  if (std::exchange(inDoubleClick_, false)) return;
  if ((event->position().toPoint() - pressPos_).manhattanLength() > 4) return;  // a drag, not a click
  const auto hit = hitAt(event->position().toPoint());
  if (hit.node) {
    if (nodeClicked) nodeClicked(*hit.node);
  } else if (hit.edge) {
    if (edgeClicked) edgeClicked(*hit.edge);
  } else if (backgroundClicked) {
    backgroundClicked();
  }
}

void GraphCanvas::mouseDoubleClickEvent(QMouseEvent* event) {
  const auto hit = hitAt(event->position().toPoint());
  inDoubleClick_ = event->button() == Qt::LeftButton;
  if (hit.node && nodeDoubleClicked) nodeDoubleClicked(*hit.node);
  event->accept();
}

void GraphCanvas::contextMenuEvent(QContextMenuEvent* event) {
  if (!contextMenu) return;
  // The Menu key: the selected node's menu, beside it (it opened the
  // canvas's menu at its corner).
  if (event->reason() == QContextMenuEvent::Keyboard && selectedNodeAt) {
    if (const auto at = selectedNodeAt()) {
      contextMenu(at->first, at->second);
      return;
    }
  }
  contextMenu(event->pos(), hitAt(event->pos()).node);
}

GraphCanvas::Hit GraphCanvas::hitAt(const QPoint& viewPos) const {
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

}  // namespace ptescope::ui
