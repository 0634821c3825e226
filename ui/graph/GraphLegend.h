// The graph's legend: which colour is which device, which shape which copy
// direction, the diff marks and the overlay's colour scale. Drawn over the
// view's top left corner (GraphLegend) and into the header of an exported
// picture (paintLegend).
#pragma once

#include <QString>
#include <QWidget>

#include <vector>

#include "layout/GraphModel.h"
#include "program/Types.h"

class QPainter;

namespace ptescope::ui {

struct LegendEntry {
  enum Kind { Device, H2D, D2H, Implicit, Group, Added, Removed, Moved, Scale } kind;
  program::Device device;
  QString text;
};

// What `model` shows, in legend order; a non-empty `scaleText` (the
// overlay's range) comes first.
std::vector<LegendEntry> legendEntries(const layout::GraphModel& model, const QString& scaleText);

// Paints the entries in a row (horizontal) or a column; returns the size.
// With a null painter, only measures.
QSizeF paintLegend(QPainter* painter, const QPointF& origin, const std::vector<LegendEntry>& entries, bool horizontal);

class GraphLegend : public QWidget {
 public:
  explicit GraphLegend(QWidget* parent);
  void setEntries(std::vector<LegendEntry> entries);

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  std::vector<LegendEntry> entries_;
};

}  // namespace ptescope::ui
