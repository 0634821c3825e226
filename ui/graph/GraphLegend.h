// The graph's legend: which colour is which device, which shape which copy
// direction, the diff marks and the overlay's colour scale. Drawn over the
// view's top left corner (GraphLegend) and into the header of an exported
// picture (paintLegend).
#pragma once

#include <QRectF>
#include <QString>
#include <QWidget>

#include <vector>

#include "layout/GraphModel.h"
#include "program/Types.h"

class QPainter;

namespace ptescope::ui {

struct LegendEntry {
  enum Kind { Device, H2D, D2H, Implicit, InsideCopy, Group, Added, Removed, Moved, Scale, Note } kind;
  program::Device device;
  QString text;
};

// What `model` shows, in legend order; a non-empty `scaleText` (the
// overlay's range) comes first.
// `scaleText` names the overlay's colour scale; with `scaleIsNote` it says
// why there is none (drawn without a swatch).
// `scaleNote`: words of their own after the scale ("measured before the
// edits"), packed like the other entries instead of lengthening its row.
std::vector<LegendEntry> legendEntries(const layout::GraphModel& model, const QString& scaleText, bool scaleIsNote = false,
                                       const QString& scaleNote = {});

// Paints the entries in a row (horizontal) or a column; returns the size.
// With a null painter, only measures.
QSizeF paintLegend(QPainter* painter, const QPointF& origin, const std::vector<LegendEntry>& entries, bool horizontal);

// A strip above the graph (in the view's layout, so it never covers the
// graph) with the entries in rows as wide as the view.
class GraphLegend : public QWidget {
  Q_OBJECT
 public:
  explicit GraphLegend(QWidget* parent);
  void setEntries(std::vector<LegendEntry> entries);
  const std::vector<LegendEntry>& entries() const { return entries_; }
  // Where each entry is drawn, in the legend's coordinates.
  std::vector<QRectF> entryRects() const { return placeEntries(width()); }

  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent*) override;
  // As high as its rows need at its width, after every change of either: a
  // window made narrower kept two rows' height for three.
  void resizeEvent(QResizeEvent* event) override;
  void fitHeight();

 private:
  std::vector<QRectF> placeEntries(int width) const;
  std::vector<LegendEntry> entries_;
};

}  // namespace ptescope::ui
