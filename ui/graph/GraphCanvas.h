// The graph's QGraphicsView: zoom on the wheel (Shift+wheel scrolls), pan by
// dragging, and clicks, double-clicks and context menus reported as the node
// or edge under the pointer. It knows nothing of what the nodes mean: the
// GraphView sets the callbacks.
#pragma once

#include <QGraphicsView>

#include <functional>
#include <optional>

namespace ptescope::ui {

class GraphCanvas : public QGraphicsView {
 public:
  // Low enough that Fit shows a whole 6,000-instruction method opened whole.
  static constexpr double kMinZoom = 0.0005;
  static constexpr double kMaxZoom = 6.0;

  explicit GraphCanvas(QGraphicsScene* scene, QWidget* parent);

  // Scrolled, zoomed or resized.
  std::function<void()> viewChanged;
  // The viewport changed size (a legend, a banner or a dock came or went).
  std::function<void()> resized;
  // The user moved the view: wheel, a press on the canvas, keys, scroll bars.
  std::function<void()> userMoved;
  // An arrow key (dx, dy in -1..1): true when it moved the selection to
  // another node; false lets the arrow scroll the view.
  std::function<bool(int dx, int dy)> arrowKey;
  // A click (not a drag) on a node, on an edge, or on neither.
  std::function<void(size_t node)> nodeClicked;
  std::function<void(size_t edge)> edgeClicked;
  std::function<void()> backgroundClicked;
  std::function<void(size_t node)> nodeDoubleClicked;
  // Enter or Return: what a double click on the selected node does (open a
  // group, follow a stub); false when nothing is selected.
  std::function<bool()> activateKey;
  // The selected node and where it is in the viewport: the Menu key and
  // Shift+F10 open its menu there.
  std::function<std::optional<std::pair<QPoint, size_t>>()> selectedNodeAt;
  std::function<void(const QPoint& viewPos, std::optional<size_t> node)> contextMenu;

  // Multiplies the scale, kept within [kMinZoom, kMaxZoom].
  void zoomBy(double factor);
  // Room beside the viewport (for the overview, so that it never covers the
  // graph).
  void setReservedMargins(const QMargins& margins) {
    if (viewportMargins() != margins) setViewportMargins(margins);
  }
  QMargins reservedMargins() const { return viewportMargins(); }
  // Counts the pictures put into the scene (a new layout, or the scene made
  // whole): what reads the items keeps what it made until this changes.
  quint64 sceneGeneration() const { return sceneGeneration_; }
  void sceneChanged() { ++sceneGeneration_; }

 protected:
  void wheelEvent(QWheelEvent* event) override;
  void scrollContentsBy(int dx, int dy) override;
  void resizeEvent(QResizeEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;

 private:
  struct Hit {
    std::optional<size_t> node;
    std::optional<size_t> edge;
  };
  Hit hitAt(const QPoint& viewPos) const;
  void changed() {
    if (viewChanged) viewChanged();
  }
  void moved() {
    if (userMoved) userMoved();
  }

  QPoint pressPos_;
  bool inDoubleClick_ = false;  // until the double click's release
  quint64 sceneGeneration_ = 0;
};

}  // namespace ptescope::ui
