#include "ui/graph/GraphLegend.h"

#include <algorithm>
#include <cmath>

#include <QPainter>
#include <QResizeEvent>

#include <algorithm>

#include "layout/DeviceStyle.h"
#include "ui/graph/GraphItems.h"

namespace ptescope::ui {

using layout::NodeKind;

std::vector<LegendEntry> legendEntries(const layout::GraphModel& model, const QString& scaleText, bool scaleIsNote,
                                       const QString& scaleNote) {
  std::vector<LegendEntry> entries;
  if (!scaleText.isEmpty()) entries.push_back({scaleIsNote ? LegendEntry::Note : LegendEntry::Scale, {}, scaleText});
  if (!scaleText.isEmpty() && !scaleNote.isEmpty()) entries.push_back({LegendEntry::Note, {}, scaleNote});
  for (const auto& d : model.devices) entries.push_back({LegendEntry::Device, d, QString::fromStdString(d.str())});
  bool h2d = false, d2h = false, implicit = false, inside = false;
  for (const auto& n : model.nodes) {
    h2d = h2d || n.kind == NodeKind::CopyH2D || n.group_h2d > 0;
    d2h = d2h || n.kind == NodeKind::CopyD2H || n.group_d2h > 0;
  }
  for (const auto& e : model.edges) implicit = implicit || e.implicit_crossing;
  bool replay = false;
  for (const auto& n : model.nodes)
    for (const auto& mark : n.inside_copies) {
      inside = true;
      replay = replay || mark.cuda_graph;
    }
  if (h2d) entries.push_back({LegendEntry::H2D, {}, QStringLiteral("host \u2192 device copy")});
  if (d2h) entries.push_back({LegendEntry::D2H, {}, QStringLiteral("device \u2192 host copy")});
  if (implicit) entries.push_back({LegendEntry::Implicit, {}, QStringLiteral("device change without copy")});
  if (inside)
    entries.push_back({LegendEntry::InsideCopy, {},
                       replay ? QStringLiteral("copy inside a delegate (no instruction; CUDA graph replay is on)")
                              : QStringLiteral("copy inside a delegate (no instruction)")});
  if (model.has_groups) entries.push_back({LegendEntry::Group, {}, QStringLiteral("group (double-click)")});
  bool added = false, removed = false, moved = false;
  for (const auto& n : model.nodes) {
    added = added || n.change == layout::Change::Added;
    removed = removed || n.change == layout::Change::Removed;
    moved = moved || n.change == layout::Change::Moved;
  }
  for (const auto& e : model.edges) moved = moved || e.change == layout::Change::Moved;
  if (added) entries.push_back({LegendEntry::Added, {}, QStringLiteral("added copy")});
  if (removed) entries.push_back({LegendEntry::Removed, {}, QStringLiteral("removed copy")});
  if (moved) entries.push_back({LegendEntry::Moved, {}, QStringLiteral("device changed")});
  return entries;
}

QSizeF paintLegend(QPainter* painter, const QPointF& origin, const std::vector<LegendEntry>& entries, bool horizontal) {
  const QFont font = graphFont(11);
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
        case LegendEntry::InsideCopy:
          painter->setPen(QPen(QColor(0x88, 0x88, 0x88), 1.2));
          painter->drawLine(QPointF(box.left(), box.center().y()), QPointF(box.right(), box.center().y()));
          paintInsideCopySymbol(painter, box.center(), box.height() / 2 + 1);
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
        case LegendEntry::Note: break;  // words only
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


namespace {
constexpr double kMarginX = 8, kMarginY = 3;
}

GraphLegend::GraphLegend(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("graphLegend"));
  setAccessibleName(tr("Legend"));
  // A strip above the graph that wraps onto more rows when narrow: it never
  // covers a node and never sets the window's minimum width.
  QSizePolicy policy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  policy.setHeightForWidth(true);
  setSizePolicy(policy);
}

std::vector<QRectF> GraphLegend::placeEntries(int width) const {
  // Row by row, in order, each row taking every entry still to place that
  // fits beside the others (a short entry moves up into a row's gap): at
  // 1000 px the diff view's eight entries took three rows of the canvas.
  const size_t n = entries_.size();
  std::vector<QSizeF> sizes;
  sizes.reserve(n);
  // An entry wider than the strip is cut to it (its text elided when
  // painted, whole in the accessible description).
  const double room = std::max(40.0, width - 2 * kMarginX);
  for (const auto& entry : entries_) {
    QSizeF size = paintLegend(nullptr, QPointF(0, 0), {entry}, true);
    size.setWidth(std::min(size.width(), room));
    sizes.push_back(size);
  }
  std::vector<QRectF> places(n);
  std::vector<bool> placed(n, false);
  size_t left = n;
  double y = kMarginY;
  while (left > 0) {
    double x = kMarginX, rowHeight = 0;
    for (size_t i = 0; i < n; ++i) {
      if (placed[i]) continue;
      if (x > kMarginX && x + sizes[i].width() > width - kMarginX) continue;
      places[i] = QRectF(QPointF(x, y), sizes[i]);
      placed[i] = true;
      --left;
      x += sizes[i].width();
      rowHeight = std::max(rowHeight, sizes[i].height());
    }
    y += rowHeight;
  }
  return places;
}

int GraphLegend::heightForWidth(int width) const {
  if (entries_.empty()) return 0;
  double bottom = 0;
  for (const QRectF& r : placeEntries(width)) bottom = std::max(bottom, r.bottom());
  return int(std::ceil(bottom + kMarginY));
}

QSize GraphLegend::sizeHint() const {
  const int width = parentWidget() ? parentWidget()->width() : 600;
  return {width, heightForWidth(width)};
}

void GraphLegend::setEntries(std::vector<LegendEntry> entries) {
  entries_ = std::move(entries);
  QStringList texts;
  for (const auto& e : entries_) texts << e.text;
  setAccessibleDescription(texts.join(", "));
  setVisible(!entries_.empty());
  fitHeight();
  updateGeometry();
  update();
}

void GraphLegend::fitHeight() {
  const int w = width() > 0 ? width() : (parentWidget() ? parentWidget()->width() : 0);
  if (w <= 0 || entries_.empty()) return;
  const int h = heightForWidth(w);
  if (h != minimumHeight() || h != maximumHeight()) setFixedHeight(h);
}

void GraphLegend::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (event->size().width() != event->oldSize().width()) fitHeight();
}

void GraphLegend::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.setRenderHint(QPainter::Antialiasing);
  painter.fillRect(rect(), QColor(0xfa, 0xfa, 0xfa));
  painter.setPen(QColor(0, 0, 0, 40));
  painter.drawLine(rect().bottomLeft(), rect().bottomRight());
  const auto places = placeEntries(width());
  for (size_t i = 0; i < entries_.size(); ++i) {
    LegendEntry entry = entries_[i];
    // Cut to its place: the text elided in its middle (the swatch, 22 px,
    // its gap and the row's end, 19 px, kept).
    if (paintLegend(nullptr, QPointF(0, 0), {entry}, true).width() > places[i].width() + 0.5)
      entry.text = QFontMetricsF(graphFont(11)).elidedText(entry.text, Qt::ElideMiddle, places[i].width() - 22 - 5 - 14);
    paintLegend(&painter, places[i].topLeft(), {entry}, true);
  }
}

}  // namespace ptescope::ui
