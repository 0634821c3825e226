#include "ui/graph/GraphItems.h"
#include "ui/common/PlainText.h"
#include "ui/common/Format.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPathStroker>
#include <QStyleOptionGraphicsItem>
#include <QtMath>

#include "layout/DeviceStyle.h"

namespace ptescope::ui {

using layout::NodeKind;

namespace {

// Below these zoom levels, detail is dropped: edge labels first, then node
// text, then node decoration. Text smaller than about 4 px on screen is noise
// and costs most of the paint time of a big graph.
constexpr double kEdgeLabelDetail = 0.65;
constexpr double kNodeTextDetail = 0.38;
constexpr double kNodeDecorationDetail = 0.12;

const QColor kSelectionColour(0x0d, 0x47, 0xa1);
const QColor kRelatedColour(0xff, 0xb3, 0x00);
const QColor kFindColour(0xff, 0xee, 0x33);
const QColor kCurrentFindColour(0xff, 0x40, 0xc0);

QFont titleFont() { return graphFont(kNodeTitlePixels, true); }
QFont subtitleFont() { return graphFont(kNodeSubtitlePixels); }
QFont edgeLabelFont() { return graphFont(7); }
QFont regionTitleFont() { return graphFont(16, true); }
// The profile overlay's measurements, on nodes and edges alike.
QFont overlayFont() { return graphFont(9, true); }

// A measurement in a rounded pill of the overlay's colour.
void paintOverlayPill(QPainter* painter, const QRectF& pill, const ItemOverlay& overlay) {
  painter->setPen(Qt::NoPen);
  painter->setBrush(overlay.colour.darker(115));
  painter->drawRoundedRect(pill, pill.height() / 2, pill.height() / 2);
  painter->setFont(overlayFont());
  painter->setPen(Qt::white);
  painter->drawText(pill, Qt::AlignCenter, overlay.text);
}

double levelOfDetail(const QPainter* painter) {
  return QStyleOptionGraphicsItem::levelOfDetailFromTransform(painter->worldTransform());
}

QPointF toPoint(const layout::PointF& p) { return QPointF(p.x, p.y); }

}  // namespace

QColor toQColor(layout::Rgb rgb) { return QColor(rgb.red(), rgb.green(), rgb.blue()); }

QColor insideCopyQColor() { return toQColor(layout::insideCopyColour()); }

void paintInsideCopySymbol(QPainter* painter, const QPointF& centre, double half) {
  const QPolygonF diamond({centre + QPointF(0, -half), centre + QPointF(half, 0), centre + QPointF(0, half),
                           centre + QPointF(-half, 0)});
  painter->setPen(QPen(insideCopyQColor(), std::max(1.0, half / 4)));
  painter->setBrush(QColor(0xf3, 0xe5, 0xf5));
  painter->drawPolygon(diamond);
}

QFont graphFont(int pixelSize, bool bold) {
  QFont font(QStringLiteral("Sans"));
  font.setPixelSize(pixelSize);
  font.setBold(bold);
  return font;
}

// Green (cheap) through yellow to red (costly); `t` in [0, 1].
QColor costColour(double t) {
  t = std::clamp(t, 0.0, 1.0);
  const QColor stops[] = {QColor(0x1a, 0x98, 0x50), QColor(0xf2, 0xc2, 0x2e), QColor(0xd7, 0x30, 0x27)};
  const double x = t * 2;
  const int i = std::min(1, int(x));
  const double f = x - i;
  auto mix = [f](int a, int b) { return int(std::lround(a + (b - a) * f)); };
  return QColor(mix(stops[i].red(), stops[i + 1].red()), mix(stops[i].green(), stops[i + 1].green()),
                mix(stops[i].blue(), stops[i + 1].blue()));
}

QColor changeQColor(layout::Change change) { return toQColor(layout::changeColour(change)); }

// ---- nodes ----

GraphNodeItem::GraphNodeItem(const layout::GraphNode& node, const layout::NodeGeometry& geometry, size_t index)
    : GraphMarkedItem(index), node_(node) {
  setPos(geometry.center.x, geometry.center.y);
  box_ = QRectF(-geometry.width / 2, -geometry.height / 2, geometry.width, geometry.height);
  layout::DeviceStyle style = layout::deviceStyle(node.device);
  if (node.kind == NodeKind::CopyH2D) style = layout::h2dCopyStyle();
  if (node.kind == NodeKind::CopyD2H) style = layout::d2hCopyStyle();
  if (node.kind == NodeKind::Group && !node.has_device) style = layout::mixedStyle();
  fill_ = toQColor(style.fill);
  stroke_ = toQColor(style.stroke);
  setZValue(node.kind == NodeKind::Group ? 1 : 2);
  QString tip = QString::fromStdString(node.tooltip);
  if (!node.change_note.empty()) tip = QString::fromStdString(node.change_note) + "\n\n" + tip;
  setToolTip(plainToolTip(tip));
  setAcceptHoverEvents(false);
}

QRectF GraphNodeItem::boundingRect() const {
  // Room for the group's stacked cards, the selection halo, the change
  // badge and the overlay's text on its side of the node.
  const QRectF around = box_.adjusted(-12, -14, 14, 8);
  return overlay_ ? around.united(overlayBadgeRect(badgeSide_).adjusted(-2, -2, 2, 2)) : around;
}

QRectF GraphNodeItem::overlayBadgeRect(BadgeSide side) const {
  if (!overlay_) return {};
  const QFontMetricsF metrics(overlayFont());
  const QSizeF size(metrics.horizontalAdvance(overlay_->text) + 10, metrics.height() + 4);
  switch (side) {
    case BadgeSide::Below: return QRectF(QPointF(-size.width() / 2, box_.bottom() + 3), size);
    case BadgeSide::Above: return QRectF(QPointF(-size.width() / 2, box_.top() - 3 - size.height()), size);
    case BadgeSide::Right: return QRectF(QPointF(box_.right() + 4, -size.height() / 2), size);
    case BadgeSide::Left: return QRectF(QPointF(box_.left() - 4 - size.width(), -size.height() / 2), size);
  }
  return {};
}

QRectF GraphNodeItem::overlayBadgeSceneRect(BadgeSide side) const {
  return overlay_ ? mapRectToScene(overlayBadgeRect(side)) : QRectF();
}

void GraphNodeItem::setBadgeSide(BadgeSide side) {
  if (side == badgeSide_) return;
  prepareGeometryChange();
  badgeSide_ = side;
  update();
}

void GraphNodeItem::setOverlay(std::optional<ItemOverlay> overlay) {
  if (!overlay && !overlay_) return;  // the common case on big graphs: nothing to undo
  prepareGeometryChange();
  overlay_ = std::move(overlay);
  update();
}

QPainterPath GraphNodeItem::shape() const {
  QPainterPath p;
  p.addRect(box_);
  return p;
}

QPainterPath GraphNodeItem::outline() const {
  const QRectF& r = box_;
  QPainterPath path;
  const double l = r.left(), t = r.top(), rt = r.right(), b = r.bottom(), cy = r.center().y(), cx = r.center().x();
  switch (node_.kind) {
    case NodeKind::Kernel: path.addRoundedRect(r, 9, 9); break;
    case NodeKind::Delegate: path.addRoundedRect(r, 3, 3); break;
    case NodeKind::CopyH2D: {
      // An arrow pointing right, away from the host: body, head, notched tail.
      const double head = std::min(16.0, r.width() / 4);
      path.addPolygon(QPolygonF({{l, t}, {rt - head, t}, {rt, cy}, {rt - head, b}, {l, b}, {l + 7, cy}, {l, t}}));
      break;
    }
    case NodeKind::CopyD2H: {
      const double head = std::min(16.0, r.width() / 4);
      path.addPolygon(QPolygonF({{rt, t}, {l + head, t}, {l, cy}, {l + head, b}, {rt, b}, {rt - 7, cy}, {rt, t}}));
      break;
    }
    case NodeKind::Input:
      path.addPolygon(QPolygonF({{l, t}, {rt, t}, {rt, b - 9}, {cx, b}, {l, b - 9}, {l, t}}));
      break;
    case NodeKind::Output:
      path.addPolygon(QPolygonF({{l, t + 9}, {cx, t}, {rt, t + 9}, {rt, b}, {l, b}, {l, t + 9}}));
      break;
    case NodeKind::Constant:
      path.addPolygon(QPolygonF({{l, t}, {rt - 9, t}, {rt, t + 9}, {rt, b}, {l, b}, {l, t}}));
      break;
    default: path.addRoundedRect(r, 4, 4); break;
  }
  return path;
}

void GraphMarkedItem::setEmphasis(Emphasis emphasis) {
  if (emphasis == emphasis_) return;
  emphasis_ = emphasis;
  update();
}

void GraphMarkedItem::setFindMatch(bool match, bool current) {
  if (match == findMatch_ && current == currentMatch_) return;
  findMatch_ = match;
  currentMatch_ = current;
  update();
}

void GraphNodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  const double lod = levelOfDetail(painter);
  painter->save();
  if (emphasis_ == Emphasis::Dimmed) painter->setOpacity(0.28);
  const QPainterPath path = outline();

  if (findMatch_ || emphasis_ == Emphasis::Selected || emphasis_ == Emphasis::Related) {
    QColor halo = currentMatch_ ? kCurrentFindColour
                  : emphasis_ == Emphasis::Selected ? kSelectionColour
                  : emphasis_ == Emphasis::Related  ? kRelatedColour
                                                    : kFindColour;
    // Keep the halo visible when zoomed far out.
    const double width = std::max(7.0, 4.0 / std::max(lod, 0.01));
    painter->setPen(QPen(halo, width, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(path);
  }

  const QColor fill = overlay_ ? overlay_->colour.lighter(135) : fill_;
  const QColor stroke = overlay_ ? overlay_->colour.darker(125) : stroke_;
  if (node_.change != layout::Change::None) {
    // The diff view's mark: a wide outline in the change's colour.
    const double width = std::max(5.0, 3.0 / std::max(lod, 0.01));
    painter->setPen(QPen(changeQColor(node_.change), width, node_.change == layout::Change::Removed ? Qt::DashLine : Qt::SolidLine,
                         Qt::RoundCap, Qt::RoundJoin));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(path);
  }
  // A removed copy is not in the program any more: a faded ghost.
  if (node_.change == layout::Change::Removed) painter->setOpacity(painter->opacity() * 0.55);

  if (lod < kNodeDecorationDetail) {
    painter->setPen(Qt::NoPen);
    painter->setBrush(node_.kind == NodeKind::Group || node_.kind == NodeKind::CopyH2D || node_.kind == NodeKind::CopyD2H ? stroke : fill.darker(115));
    painter->drawRect(box_);
    painter->restore();
    return;
  }

  if (node_.kind == NodeKind::Group) {
    // Stacked cards say "there is more inside".
    painter->setPen(QPen(stroke_, 1));
    painter->setBrush(fill_.lighter(104));
    painter->drawRoundedRect(box_.translated(8, -8), 4, 4);
    painter->drawRoundedRect(box_.translated(4, -4), 4, 4);
  }

  const bool dashed = node_.kind == NodeKind::Control || node_.kind == NodeKind::Unbound || node_.kind == NodeKind::Stub;
  double penWidth = 1.3;
  if (node_.kind == NodeKind::Delegate || node_.kind == NodeKind::CopyH2D || node_.kind == NodeKind::CopyD2H) penWidth = 2.2;
  if (node_.kind == NodeKind::Input || node_.kind == NodeKind::Output) penWidth = 1.8;
  // At least about one screen pixel wide when zoomed out, so that the
  // device colour still shows.
  penWidth = std::max(penWidth, 1.1 / std::max(lod, 0.01));
  painter->setPen(QPen(stroke, penWidth, dashed ? Qt::DashLine : Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
  painter->setBrush(fill);
  painter->drawPath(path);

  QRectF textArea = box_.adjusted(6, 3, -6, -3);
  if (node_.kind == NodeKind::Delegate) {
    // A solid band in the target device's colour: the call hands the work
    // to that device.
    const QRectF band(box_.left(), box_.top(), 9, box_.height());
    painter->setPen(Qt::NoPen);
    painter->setBrush(stroke_);
    QPainterPath clip;
    clip.addRoundedRect(box_, 3, 3);
    painter->save();
    painter->setClipPath(clip);
    painter->drawRect(band);
    painter->restore();
    textArea.setLeft(band.right() + 4);
  } else if (node_.kind == NodeKind::CopyH2D) {
    textArea.adjust(6, 0, -std::min(16.0, box_.width() / 4) + 2, 0);
  } else if (node_.kind == NodeKind::CopyD2H) {
    textArea.adjust(std::min(16.0, box_.width() / 4) - 2, 0, -6, 0);
  } else if (node_.kind == NodeKind::Group) {
    paintGroupDevices(painter, box_);
    textArea.setBottom(box_.bottom() - 8);
  } else if (node_.kind == NodeKind::Input) {
    textArea.setBottom(box_.bottom() - 7);
  } else if (node_.kind == NodeKind::Output) {
    textArea.setTop(box_.top() + 7);
  }
  if (lod >= kNodeTextDetail) paintText(painter, textArea);
  if (node_.change != layout::Change::None) paintChangeBadge(painter);
  if (overlay_ && lod >= kNodeTextDetail) paintOverlayText(painter);
  painter->restore();
}

void GraphNodeItem::paintChangeBadge(QPainter* painter) const {
  // "+", "−" or "~" in a disc on the top-left corner.
  const QRectF disc(box_.left() - 9, box_.top() - 9, 16, 16);
  painter->setOpacity(1.0);
  painter->setPen(QPen(Qt::white, 1.5));
  painter->setBrush(changeQColor(node_.change));
  painter->drawEllipse(disc);
  QFont font = titleFont();
  font.setPixelSize(12);
  painter->setFont(font);
  painter->setPen(Qt::white);
  const QString sign = node_.change == layout::Change::Added     ? QStringLiteral("+")
                       : node_.change == layout::Change::Removed ? QStringLiteral("\u2212")
                                                                 : QStringLiteral("~");
  painter->drawText(disc.adjusted(0, -1, 0, 0), Qt::AlignCenter, sign);
}

void GraphNodeItem::paintOverlayText(QPainter* painter) const {
  // The measurement in a pill under the node (or on the side the view
  // chose, where under it would cover a label).
  paintOverlayPill(painter, overlayBadgeRect(badgeSide_), *overlay_);
}

void GraphNodeItem::paintGroupDevices(QPainter* painter, const QRectF& box) const {
  // Proportion of the group's instructions per device, copies in their own
  // colours at the end.
  const QRectF bar(box.left() + 5, box.bottom() - 8, box.width() - 10, 4);
  double total = double(node_.group_h2d + node_.group_d2h);
  for (const auto& dc : node_.devices) total += double(dc.instructions);
  if (total <= 0) return;
  double x = bar.left();
  painter->setPen(Qt::NoPen);
  auto segment = [&](double count, const QColor& colour) {
    const double width = bar.width() * count / total;
    painter->setBrush(colour);
    painter->drawRect(QRectF(x, bar.top(), width, bar.height()));
    x += width;
  };
  for (const auto& dc : node_.devices) segment(double(dc.instructions), toQColor(layout::deviceStyle(dc.device).stroke));
  segment(double(node_.group_h2d), toQColor(layout::h2dCopyStyle().stroke));
  segment(double(node_.group_d2h), toQColor(layout::d2hCopyStyle().stroke));
}

FittedText fittedTitle(const QString& title, double width) {
  // Node sizes are estimated from the average glyph of a narrower font
  // (layout::nodeSize); two pixels less (80%) make up for that, no more.
  for (int pixels = kNodeTitlePixels; pixels >= kNodeTitlePixels - 2; --pixels) {
    const QFont font = graphFont(pixels, true);
    if (QFontMetricsF(font).horizontalAdvance(title) <= width) return {font, title};
  }
  const QFont font = titleFont();
  return {font, QFontMetricsF(font).elidedText(title, Qt::ElideMiddle, width)};
}

void GraphNodeItem::paintText(QPainter* painter, const QRectF& area) const {
  const auto [title, titleText] = fittedTitle(QString::fromStdString(node_.title), area.width());
  const QFont subtitle = subtitleFont();
  const QFontMetricsF titleMetrics(title);
  const QFontMetricsF subtitleMetrics(subtitle);
  const QString subtitleText = subtitleMetrics.elidedText(QString::fromStdString(node_.subtitle), Qt::ElideRight, area.width());
  const double total = titleMetrics.height() + (subtitleText.isEmpty() ? 0 : subtitleMetrics.height());
  double y = area.center().y() - total / 2;
  painter->setPen(QColor(0x1a, 0x1a, 0x1a));
  painter->setFont(title);
  painter->drawText(QRectF(area.left(), y, area.width(), titleMetrics.height()), Qt::AlignCenter, titleText);
  y += titleMetrics.height();
  if (!subtitleText.isEmpty()) {
    painter->setFont(subtitle);
    // The delegate's target device is the point of the node: in its colour.
    painter->setPen(node_.kind == NodeKind::Delegate ? (overlay_ ? overlay_->colour : stroke_).darker(130) : QColor(0x44, 0x44, 0x44));
    painter->drawText(QRectF(area.left(), y, area.width(), subtitleMetrics.height()), Qt::AlignCenter, subtitleText);
  }
}

// ---- edges ----

GraphEdgeItem::GraphEdgeItem(const layout::GraphEdge& edge, const layout::EdgeGeometry& geometry, size_t index)
    : GraphMarkedItem(index), edge_(edge) {
  const auto& points = geometry.path;
  if (!points.empty()) {
    path_.moveTo(toPoint(points[0]));
    size_t i = 1;
    for (; i + 2 < points.size(); i += 3)
      path_.cubicTo(toPoint(points[i]), toPoint(points[i + 1]), toPoint(points[i + 2]));
    for (; i < points.size(); ++i) path_.lineTo(toPoint(points[i]));
  }
  // The arrowhead: from the path's end to dot's tip, or along the last
  // direction when dot gave none.
  QPointF end = path_.currentPosition();
  QPointF tip;
  if (geometry.arrow_tip) {
    tip = toPoint(*geometry.arrow_tip);
  } else {
    const double angle = path_.angleAtPercent(1.0);
    tip = end + QPointF(std::cos(qDegreesToRadians(angle)) * 7, -std::sin(qDegreesToRadians(angle)) * 7);
  }
  QPointF direction = tip - end;
  const double length = std::hypot(direction.x(), direction.y());
  if (length > 0.01) {
    direction /= length;
    const QPointF normal(-direction.y(), direction.x());
    const double half = edge.crosses_device ? 4.2 : 3.2;
    arrow_ = QPolygonF({tip, end + normal * half, end - normal * half});
  }
  const auto& style = layout::deviceStyle(edge.device);
  colour_ = edge.implicit_crossing ? toQColor(layout::implicitCrossingColour()) : toQColor(style.stroke);

  label_ = QString::fromStdString(edge.label);
  // A moved value says where it moved in its label: the point of the diff.
  if (edge.change == layout::Change::Moved && !edge.change_note.empty()) {
    const auto& note = edge.change_note;
    const auto space = note.find(' ');
    label_ += QStringLiteral(" \u00b7 ") + QString::fromStdString(space == std::string::npos ? note : note.substr(space + 1));
  }
  const QFontMetricsF metrics(edgeLabelFont());
  const QString label = label_;
  const QSizeF size(metrics.horizontalAdvance(label) + 4, metrics.height());
  if (geometry.label_position) {
    labelCentre_ = toPoint(*geometry.label_position);
  } else {
    // Beside the middle of the curve, where it is least likely to sit on
    // a node.
    labelCentre_ = path_.pointAtPercent(0.5) + QPointF(size.width() / 2 + 3, 0);
  }
  labelRect_ = QRectF(labelCentre_ - QPointF(size.width() / 2, size.height() / 2), size);
  labelHome_ = labelCentre_;
  bounds_ = path_.boundingRect().united(arrow_.boundingRect()).united(labelRect_).adjusted(-6, -6, 6, 6);
  for (int k = 1; k < labelCandidates(); ++k) bounds_ = bounds_.united(labelRectAt(k).adjusted(-6, -6, 6, 6));
  QStringList badges, insideLines;
  for (const auto& mark : edge.inside_copies) {
    badges << QString::fromStdString(mark.badge);
    insideLines << QString::fromStdString(mark.text);
  }
  if (!badges.isEmpty() && !path_.isEmpty()) {
    // Near the delegate's end of the edge, on the side away from the label.
    insideBadge_ = badges.join(QStringLiteral("\n"));
    insideInputSide_ = edge.inside_copies.front().input_side;
    insideRect_ = insideRectAt(0, &insidePoint_);
    for (int k = 0; k < insideBadgeCandidates(); ++k)
      bounds_ = bounds_.united(insideRectAt(k, nullptr).adjusted(-3, -3, 12, 3));
  }
  baseBounds_ = bounds_;
  setZValue(edge.crosses_device ? 1.5 : 0.5);
  setToolTip(plainToolTip(QString("%1 %2 on %3%4")
                 .arg(valueRef(edge.value), label, QString::fromStdString(edge.device.str()),
                      edge.implicit_crossing ? QStringLiteral("\nchanges device with no copy")
                      : edge.crosses_device   ? QStringLiteral("\ncrosses a device boundary")
                                              : QString()) +
             (edge.change_note.empty() ? QString() : "\n" + QString::fromStdString(edge.change_note)) +
             (insideLines.isEmpty() ? QString() : "\n" + insideLines.join(QStringLiteral("\n")))));
}

QRectF GraphEdgeItem::insideRectAt(int candidate, QPointF* point) const {
  // Near the delegate's end (0.8 or 0.2 of the way), else a little further
  // from it; left of the edge, else right of it.
  const double near = insideInputSide_ ? 0.8 : 0.2, further = insideInputSide_ ? 0.65 : 0.35;
  const QPointF at = path_.pointAtPercent(candidate % 2 == 0 ? near : further);
  if (point != nullptr) *point = at;
  const QFontMetricsF metrics(edgeLabelFont());
  const QStringList lines = insideBadge_.split('\n');
  double width = 0;
  for (const auto& line : lines) width = std::max(width, metrics.horizontalAdvance(line));
  const QSizeF badge(width + 8, metrics.height() * double(lines.size()) + 2);
  const bool right = candidate >= 2;
  return QRectF(at - QPointF(right ? -7 : badge.width() + 7, badge.height() / 2), badge);
}

QRectF GraphEdgeItem::labelRectAt(int candidate) const {
  const QSizeF size = labelRect_.size();
  QPointF centre = labelHome_;
  if (candidate > 0 && !path_.isEmpty()) {
    static constexpr double kAlong[] = {0.5, 0.33, 0.67, 0.5, 0.33};
    const double side = candidate >= 3 ? -1.0 : 1.0;  // right of the curve, then left
    centre = path_.pointAtPercent(kAlong[std::min(candidate, 4)]) + QPointF(side * (size.width() / 2 + 3), 0);
  }
  return QRectF(centre - QPointF(size.width() / 2, size.height() / 2), size);
}

void GraphEdgeItem::setLabelCandidate(int candidate) {
  if (candidate < 0 || candidate >= labelCandidates()) return;
  labelRect_ = labelRectAt(candidate);
  labelCentre_ = labelRect_.center();
  update();
}

QRectF GraphEdgeItem::insideBadgeSceneRect(int candidate) const {
  return candidate < insideBadgeCandidates() ? mapRectToScene(insideRectAt(candidate, nullptr)) : QRectF();
}

void GraphEdgeItem::setInsideBadgeCandidate(int candidate) {
  if (candidate < 0 || candidate >= insideBadgeCandidates()) return;
  insideRect_ = insideRectAt(candidate, &insidePoint_);
  update();
}

void GraphEdgeItem::setOverlay(std::optional<ItemOverlay> overlay) {
  if (!overlay && !overlay_) return;
  prepareGeometryChange();
  overlay_ = std::move(overlay);
  bounds_ = baseBounds_;
  if (overlay_ && !overlay_->text.isEmpty()) {
    // The measurement replaces the label and may be wider.
    const QFontMetricsF metrics(overlayFont());
    const QSizeF size(metrics.horizontalAdvance(overlay_->text) + 8, metrics.height() + 2);
    overlayRect_ = QRectF(labelCentre_ - QPointF(size.width() / 2, size.height() / 2), size);
    bounds_ = bounds_.united(overlayRect_.adjusted(-2, -2, 2, 2));
  }
  update();
}

QRectF GraphEdgeItem::boundingRect() const { return bounds_; }

QPainterPath GraphEdgeItem::shape() const {
  QPainterPathStroker stroker;
  stroker.setWidth(8);
  QPainterPath s = stroker.createStroke(path_);
  s.addPolygon(arrow_);
  return s;
}


void GraphEdgeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  const double lod = levelOfDetail(painter);
  painter->save();
  if (emphasis_ == Emphasis::Dimmed) painter->setOpacity(0.18);
  double width = edge_.crosses_device ? 2.6 : (edge_.merged_values > 1 ? 2.0 : 1.2);
  if (findMatch_ || emphasis_ == Emphasis::Selected || emphasis_ == Emphasis::Related) {
    const QColor halo = currentMatch_ ? kCurrentFindColour
                        : findMatch_  ? kFindColour
                        : emphasis_ == Emphasis::Selected ? kSelectionColour
                                                          : kRelatedColour;
    painter->setPen(QPen(halo, width + std::max(5.0, 3.0 / std::max(lod, 0.01)), Qt::SolidLine, Qt::RoundCap));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(path_);
    width += 0.8;
  }
  if (edge_.change == layout::Change::Moved) {
    // The diff view's mark under the edge.
    painter->setPen(QPen(changeQColor(edge_.change), width + std::max(4.0, 3.0 / std::max(lod, 0.01)), Qt::SolidLine, Qt::RoundCap));
    painter->setBrush(Qt::NoBrush);
    painter->drawPath(path_);
  }
  const QColor colour = overlay_                                   ? overlay_->colour
                        : edge_.change == layout::Change::Removed ? changeQColor(edge_.change)
                                                                   : colour_;
  if (overlay_) width += 1.6;
  width = std::max(width, (edge_.crosses_device ? 1.8 : 1.0) / std::max(lod, 0.01));
  const bool dashed = edge_.implicit_crossing || edge_.change == layout::Change::Removed;
  painter->setPen(QPen(colour, width, dashed ? Qt::DashLine : Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
  painter->setBrush(Qt::NoBrush);
  painter->drawPath(path_);
  painter->setPen(Qt::NoPen);
  painter->setBrush(colour);
  painter->drawPolygon(arrow_);
  if (overlay_ && !overlay_->text.isEmpty() && lod >= kNodeTextDetail) {
    paintOverlayPill(painter, overlayRect_, *overlay_);
  } else if (lod >= kEdgeLabelDetail && !label_.isEmpty()) {
    painter->setBrush(QColor(255, 255, 255, 200));
    painter->drawRoundedRect(labelRect_, 2, 2);
    painter->setFont(edgeLabelFont());
    painter->setPen(edge_.change == layout::Change::Moved ? changeQColor(edge_.change).darker(130)
                    : edge_.crosses_device               ? colour.darker(140)
                                                         : QColor(0x55, 0x55, 0x55));
    painter->drawText(labelRect_, Qt::AlignCenter, label_);
  }
  if (!insideBadge_.isEmpty()) {
    // The copies inside the delegate: a diamond on the edge, and at
    // readable zoom the badge ("inside delegate 0: h2d 64 B") beside it.
    const double half = std::max(4.0, 2.5 / std::max(lod, 0.01));
    paintInsideCopySymbol(painter, insidePoint_, half);
    if (lod >= kEdgeLabelDetail) {
      const QColor mark = insideCopyQColor();
      painter->setPen(QPen(mark, 1, Qt::DashLine));
      painter->setBrush(QColor(255, 255, 255, 235));
      painter->drawRoundedRect(insideRect_, 3, 3);
      painter->setFont(edgeLabelFont());
      painter->setPen(mark.darker(120));
      painter->drawText(insideRect_, Qt::AlignCenter, insideBadge_);
    }
  }
  painter->restore();
}

// ---- device regions ----

GraphRegionItem::GraphRegionItem(const layout::RegionGeometry& region)
    : device_(region.device), title_(QString::fromStdString(region.title)),
      rect_(region.rect.x, region.rect.y, region.rect.width, region.rect.height) {
  setZValue(-10);
  setToolTip(plainToolTip(QStringLiteral("%1: instructions and tensors placed on this device").arg(title_)));
}

QRectF GraphRegionItem::boundingRect() const {
  // Zoomed out, the title sits above the region (see paint()).
  return rect_.adjusted(-2, -std::max(rect_.width() / 2, 24.0) - 4, 2, 2);
}

void GraphRegionItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
  const auto style = layout::deviceStyle(device_);
  QColor fill = toQColor(style.stroke);
  fill.setAlpha(34);
  painter->setPen(QPen(toQColor(style.stroke.lighter(0.3)), 1.6));
  painter->setBrush(fill);
  painter->drawRoundedRect(rect_, 14, 14);
  const double lod = levelOfDetail(painter);
  QFont font = regionTitleFont();
  // Titles stay readable when zoomed out: they grow in the scene as the
  // view shrinks, up to the region's width.
  if (lod < 0.7) font.setPixelSize(int(std::max(16.0, std::min(11.2 / std::max(lod, 0.05), rect_.width() / 4))));
  painter->setFont(font);
  painter->setPen(toQColor(style.stroke));
  const QFontMetricsF metrics(font);
  // Inside the region's top margin at normal size; once grown it would
  // cover the first nodes, so it moves above the region.
  const bool grown = font.pixelSize() > 16;
  const QRectF titleRect = grown ? QRectF(rect_.left(), rect_.top() - metrics.height() - 2, rect_.width(), metrics.height())
                                 : QRectF(rect_.left() + 12, rect_.top() + 4, rect_.width() - 24, metrics.height());
  painter->drawText(titleRect, Qt::AlignLeft | Qt::AlignVCenter, title_);
}

}  // namespace ptescope::ui
