// The overview in the graph's bottom right corner: the whole graph in small
// with the visible part framed; a click or a drag moves the view there.
// Drawn from the layout's rectangles (not by rendering the scene) so that it
// stays cheap for graphs of tens of thousands of nodes.
#pragma once

#include <QPixmap>
#include <QWidget>

#include "layout/GraphvizLayout.h"

class QGraphicsView;

namespace ptescope::ui {

class GraphOverview : public QWidget {
 public:
  GraphOverview(QWidget* parent, QGraphicsView* view);

  // The picture to show in small (null: hides); it must outlive the next call.
  void setLayout(const layout::GraphLayout* graph);
  // The view scrolled or zoomed.
  void viewChanged();
  // The largest box the overview may take (it keeps the graph's aspect
  // inside it); the view sets it from its own size so that a small window
  // keeps most of its room for the graph itself. Default 190 x 170.
  void setMaxBox(const QSize& box);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;

 private:
  QTransform toOverview() const;
  void moveViewTo(const QPointF& at);
  void redrawCache();

  QGraphicsView* view_;
  const layout::GraphLayout* graph_ = nullptr;
  QSize maxBox_{190, 170};
  void fitSize();
  QPixmap cache_;
};

}  // namespace ptescope::ui
