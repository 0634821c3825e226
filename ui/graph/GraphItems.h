// The QGraphicsItems of the graph view: one per node, edge and device region
// of a layout::GraphLayout. They paint from the layout's plain structs and
// drop detail (labels, then text) as the view zooms out.
#pragma once

#include <QColor>
#include <QFont>
#include <QGraphicsItem>
#include <QPainterPath>
#include <QString>

#include <optional>

#include "layout/DeviceStyle.h"
#include "layout/GraphvizLayout.h"

namespace ptescope::ui {

// How an item stands relative to the current selection.
enum class Emphasis : uint8_t {
  Normal,    // nothing selected
  Selected,  // the selection itself
  Related,   // producer or consumer of the selection
  Dimmed,    // unrelated while something is selected
};

QColor toQColor(layout::Rgb rgb);
// The graph's font (nodes, legend, export header) at a pixel size.
QFont graphFont(int pixelSize, bool bold = false);
// Pixel sizes of the text in a node, at scale 1.
inline constexpr int kNodeTitlePixels = 10;
inline constexpr int kNodeSubtitlePixels = 8;

// A node's title as drawn in `width` (scene px): whole in the title font,
// else whole in a pixel or two smaller (a delegate named
// "VulkanBackendForAdrenoGPUs" was cut to "VulkanBacke…rAdrenoGPUs" in a box
// sized for it), else elided in the middle at the title font.
struct FittedText {
  QFont font;
  QString text;
};
FittedText fittedTitle(const QString& title, double width);

// Colours of the diff view's marks (layout::Change), shared with the legend.
QColor changeQColor(layout::Change change);
// The mark of a copy a delegate makes inside itself (no instruction), drawn
// on its boundary edge; shared with the legend.
QColor insideCopyQColor();
// Paints that mark's symbol (a dashed diamond) centred on `centre`.
void paintInsideCopySymbol(QPainter* painter, const QPointF& centre, double half);

// The profile overlay's scale: green (cheap) through yellow to red (costly),
// `t` in [0, 1].
QColor costColour(double t);

// A measured value drawn over a copy node or a crossing edge (the profile
// overlay): the colour replaces the placement colour, the text is shown
// beside the item.
struct ItemOverlay {
  QColor colour;
  QString text;
};

// What nodes and edges share: their index in the layout, and the marks the
// view puts on them (selection emphasis, Find, the profile overlay).
class GraphMarkedItem : public QGraphicsItem {
 public:
  explicit GraphMarkedItem(size_t index) : index_(index) {}

  size_t index() const { return index_; }
  void setEmphasis(Emphasis emphasis);
  Emphasis emphasis() const { return emphasis_; }
  bool isFindMatch() const { return findMatch_; }
  void setFindMatch(bool match, bool current);
  const std::optional<ItemOverlay>& overlay() const { return overlay_; }

 protected:
  size_t index_;
  Emphasis emphasis_ = Emphasis::Normal;
  bool findMatch_ = false;
  bool currentMatch_ = false;
  std::optional<ItemOverlay> overlay_;
};

class GraphNodeItem : public GraphMarkedItem {
 public:
  enum { Type = UserType + 101 };
  GraphNodeItem(const layout::GraphNode& node, const layout::NodeGeometry& geometry, size_t index);

  int type() const override { return Type; }
  QRectF boundingRect() const override;
  QPainterPath shape() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

  const layout::GraphNode& node() const { return node_; }
  void setOverlay(std::optional<ItemOverlay> overlay);
  // The node's box in scene coordinates (without halo or badges).
  QRectF boxSceneRect() const { return mapRectToScene(box_); }
  // Where the overlay's measurement pill may sit: under the node (the
  // default), or beside or above it where under it would cover a label.
  enum class BadgeSide { Below, Right, Left, Above };
  static constexpr BadgeSide kBadgeSides[] = {BadgeSide::Below, BadgeSide::Right, BadgeSide::Left, BadgeSide::Above};
  // The pill's rectangle on `side`, in scene coordinates; empty without an overlay.
  QRectF overlayBadgeSceneRect(BadgeSide side) const;
  void setBadgeSide(BadgeSide side);
  BadgeSide badgeSide() const { return badgeSide_; }

 private:
  QPainterPath outline() const;
  void paintChangeBadge(QPainter* painter) const;
  void paintOverlayText(QPainter* painter) const;
  void paintText(QPainter* painter, const QRectF& area) const;
  void paintGroupDevices(QPainter* painter, const QRectF& box) const;
  QRectF overlayBadgeRect(BadgeSide side) const;  // local coordinates

  const layout::GraphNode& node_;
  QRectF box_;  // local coordinates, centred on 0
  BadgeSide badgeSide_ = BadgeSide::Below;
  QColor fill_, stroke_;
};

class GraphEdgeItem : public GraphMarkedItem {
 public:
  enum { Type = UserType + 102 };
  GraphEdgeItem(const layout::GraphEdge& edge, const layout::EdgeGeometry& geometry, size_t index);

  const layout::GraphEdge& edge() const { return edge_; }
  const QPainterPath& path() const { return path_; }
  // Where the mark of the copies inside a delegate sits, in scene
  // coordinates (empty when the edge has none).
  QRectF insideMarkRect() const { return insideBadge_.isEmpty() ? QRectF() : mapRectToScene(insideRect_); }
  // The badge of those copies may sit on either side of the edge, near the
  // delegate or a little further along: candidate `k` of insideBadgeCandidates().
  int insideBadgeCandidates() const { return insideBadge_.isEmpty() ? 0 : 4; }
  QRectF insideBadgeSceneRect(int candidate) const;
  void setInsideBadgeCandidate(int candidate);
  // The edge's label (its tensor type) as drawn, in scene coordinates; empty
  // when it has none.
  QRectF labelSceneRect() const { return label_.isEmpty() ? QRectF() : mapRectToScene(labelRect_); }
  // Where else the label may stand when another stands where dot put it
  // (two edges into one delegate): candidate `k` of labelCandidates(), 0
  // being dot's place; beside the curve a third, half or two thirds along.
  int labelCandidates() const { return label_.isEmpty() ? 0 : 5; }
  QRectF labelCandidateSceneRect(int candidate) const { return mapRectToScene(labelRectAt(candidate)); }
  void setLabelCandidate(int candidate);
  // The overlay colours the edge; a text, when it has one, replaces the label.
  void setOverlay(std::optional<ItemOverlay> overlay);

  int type() const override { return Type; }
  QRectF boundingRect() const override;
  QPainterPath shape() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  const layout::GraphEdge& edge_;
  QPainterPath path_;
  QPolygonF arrow_;
  QRectF labelRectAt(int candidate) const;
  QPointF labelCentre_;
  QPointF labelHome_;  // where dot put it (candidate 0)
  QString label_;
  QRectF labelRect_;
  QRectF overlayRect_;
  // The copies inside a delegate at one end (GraphEdge::inside_copies): the
  // badge's text, where it sits and the point on the edge it marks.
  QString insideBadge_;
  QRectF insideRect_;
  QPointF insidePoint_;
  bool insideInputSide_ = false;
  QRectF insideRectAt(int candidate, QPointF* point) const;
  QRectF bounds_;
  QRectF baseBounds_;
  QColor colour_;
};

class GraphRegionItem : public QGraphicsItem {
 public:
  enum { Type = UserType + 103 };
  explicit GraphRegionItem(const layout::RegionGeometry& region);

  int type() const override { return Type; }
  QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;
  const program::Device& device() const { return device_; }
  const QString& title() const { return title_; }

 private:
  program::Device device_;
  QString title_;
  QRectF rect_;
};

}  // namespace ptescope::ui
