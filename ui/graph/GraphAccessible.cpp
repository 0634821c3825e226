#include "ui/graph/GraphAccessible.h"

#include <QAccessible>
#include <QAccessibleWidget>
#include <QGraphicsScene>
#include <QPointer>
#include <QScrollBar>
#include <QWindow>

#include <memory>
#include <vector>

#include "ui/graph/GraphCanvas.h"
#include "ui/graph/GraphItems.h"
#include "ui/graph/GraphLegend.h"

namespace ptescope::ui {

namespace {

// At most this many nodes are offered at once: the groups, then those in
// sight, in scene order.
constexpr int kMaxNodes = 400;

class CanvasAccessible;

// One thing drawn inside a widget (a region or node of the graph, an entry
// of the legend): words and role fixed when made, its place asked of it.
class ItemAccessible : public QAccessibleInterface {
 public:
  ItemAccessible(QWidget* owner, QAccessible::Role role, QString name, QString description, bool selected)
      : owner_(owner), role_(role), name_(std::move(name)), description_(std::move(description)), selected_(selected) {}

  bool isValid() const override { return !owner_.isNull(); }
  QObject* object() const override { return nullptr; }
  QWindow* window() const override { return owner_ ? owner_->window()->windowHandle() : nullptr; }
  QList<QPair<QAccessibleInterface*, QAccessible::Relation>> relations(QAccessible::Relation) const override {
    return {};
  }
  QAccessibleInterface* focusChild() const override { return nullptr; }
  QAccessibleInterface* childAt(int, int) const override { return nullptr; }
  QAccessibleInterface* parent() const override {
    return owner_ ? QAccessible::queryAccessibleInterface(owner_.data()) : nullptr;
  }
  QAccessibleInterface* child(int) const override { return nullptr; }
  int childCount() const override { return 0; }
  int indexOfChild(const QAccessibleInterface*) const override { return -1; }
  QString text(QAccessible::Text t) const override {
    if (t == QAccessible::Name) return name_;
    if (t == QAccessible::Description) return description_;
    return {};
  }
  void setText(QAccessible::Text, const QString&) override {}
  QRect rect() const override {
    if (!owner_) return {};
    const QRect local = localRect();
    return QRect(shownIn()->mapToGlobal(local.topLeft()), local.size());
  }
  QAccessible::Role role() const override { return role_; }
  QAccessible::State state() const override {
    QAccessible::State s;
    s.selectable = role_ == QAccessible::ListItem;
    s.selected = selected_;
    if (owner_) {
      s.invisible = !shownIn()->rect().intersects(localRect());
      s.offscreen = s.invisible;
    }
    return s;
  }

 protected:
  // The widget it is drawn in and its rectangle there.
  virtual QWidget* shownIn() const { return owner_; }
  virtual QRect localRect() const = 0;
  QPointer<QWidget> owner_;

 private:
  QAccessible::Role role_;
  QString name_, description_;
  bool selected_;
};

// A region or node of the graph at its scene rectangle.
class SceneItemAccessible : public ItemAccessible {
 public:
  SceneItemAccessible(GraphCanvas* canvas, QAccessible::Role role, QString name, QString description, QRectF scene,
                      bool selected)
      : ItemAccessible(canvas, role, std::move(name), std::move(description), selected), scene_(scene) {}

 protected:
  QWidget* shownIn() const override { return static_cast<GraphCanvas*>(owner_.data())->viewport(); }
  QRect localRect() const override { return static_cast<GraphCanvas*>(owner_.data())->mapFromScene(scene_).boundingRect(); }

 private:
  QRectF scene_;
};

// An entry of the legend, where the legend's rows put it: a row cut off by
// a legend too low shows as an entry outside it (issue 34 item 16).
class LegendEntryAccessible : public ItemAccessible {
 public:
  LegendEntryAccessible(GraphLegend* legend, size_t index)
      : ItemAccessible(legend, QAccessible::StaticText, legend->entries()[index].text, QObject::tr("legend entry"), false),
        index_(index) {}

 protected:
  QRect localRect() const override {
    const auto places = static_cast<GraphLegend*>(owner_.data())->entryRects();
    return index_ < places.size() ? places[index_].toAlignedRect() : QRect();
  }

 private:
  size_t index_;
};

// A widget whose accessible children are things drawn in it, made again by
// refresh() when what is drawn changes.
class DrawnChildrenAccessible : public QAccessibleWidget {
 public:
  using QAccessibleWidget::QAccessibleWidget;
  ~DrawnChildrenAccessible() override { dropChildren(); }

  int childCount() const override {
    refresh();
    return int(children_.size());
  }
  QAccessibleInterface* child(int index) const override {
    refresh();
    return index >= 0 && size_t(index) < children_.size() ? children_[size_t(index)] : nullptr;
  }
  int indexOfChild(const QAccessibleInterface* child) const override {
    for (size_t i = 0; i < children_.size(); ++i)
      if (children_[i] == child) return int(i);
    return -1;
  }
  QAccessibleInterface* childAt(int x, int y) const override {
    refresh();
    for (auto it = children_.rbegin(); it != children_.rend(); ++it)
      if ((*it)->rect().contains(x, y)) return *it;
    return nullptr;
  }

 protected:
  virtual void refresh() const = 0;
  void dropChildren() const {
    for (auto* child : children_) {
      // Registered when a client asked for it: deleting through the
      // registry also drops its id.
      const QAccessible::Id id = QAccessible::uniqueId(child);
      QAccessible::deleteAccessibleInterface(id);
    }
    children_.clear();
  }
  mutable std::vector<ItemAccessible*> children_;
};

class LegendAccessible : public DrawnChildrenAccessible {
 public:
  explicit LegendAccessible(GraphLegend* legend) : DrawnChildrenAccessible(legend, QAccessible::Grouping), legend_(legend) {}

 private:
  // Made again when the entries' words change.
  void refresh() const override {
    if (!legend_) return;
    QStringList texts;
    for (const auto& entry : legend_->entries()) texts << entry.text;
    if (made_ && texts == texts_) return;
    made_ = true;
    texts_ = texts;
    dropChildren();
    for (size_t i = 0; i < legend_->entries().size(); ++i) children_.push_back(new LegendEntryAccessible(legend_, i));
  }

  QPointer<GraphLegend> legend_;
  mutable QStringList texts_;
  mutable bool made_ = false;
};

class CanvasAccessible : public DrawnChildrenAccessible {
 public:
  explicit CanvasAccessible(GraphCanvas* canvas) : DrawnChildrenAccessible(canvas, QAccessible::Graphic), canvas_(canvas) {}

  // Where the graph is drawn: the viewport (the room beside it holds the
  // overview, and the scroll bars).
  QRect rect() const override {
    if (!canvas_) return {};
    const QWidget* viewport = canvas_->viewport();
    return QRect(viewport->mapToGlobal(QPoint(0, 0)), viewport->size());
  }
 private:
  // What is in sight, as a key: the children are made again when it changes.
  struct Key {
    QRectF visible;
    const QGraphicsScene* scene = nullptr;
    quint64 generation = 0;
    QString selection;
    bool operator==(const Key&) const = default;
  };

  Key currentKey() const {
    Key key;
    if (!canvas_ || !canvas_->scene()) return key;
    key.visible = canvas_->mapToScene(canvas_->viewport()->rect()).boundingRect();
    key.scene = canvas_->scene();
    // Cheap: asked on every childCount() and child(i) of a screen reader.
    key.generation = canvas_->sceneGeneration();
    key.selection = canvas_->accessibleDescription();
    return key;
  }

  void refresh() const override {
    const Key key = currentKey();
    if (made_ && key == key_) return;
    made_ = true;
    key_ = key;
    dropChildren();
    if (!canvas_ || !canvas_->scene()) return;
    std::vector<const GraphRegionItem*> regions;
    for (QGraphicsItem* item : canvas_->scene()->items(Qt::AscendingOrder))
      if (auto* r = qgraphicsitem_cast<GraphRegionItem*>(item)) regions.push_back(r);
    for (const auto* r : regions)
      children_.push_back(new SceneItemAccessible(canvas_, QAccessible::Grouping, r->title(),
                                             QObject::tr("device region: instructions and tensors placed on %1")
                                                 .arg(QString::fromStdString(r->device().str())),
                                             r->sceneBoundingRect(), false));
    // The groups (the program's outline) wherever they are, then the other
    // nodes in sight.
    std::vector<const GraphNodeItem*> shown;
    for (QGraphicsItem* item : canvas_->scene()->items(Qt::AscendingOrder))
      if (auto* n = qgraphicsitem_cast<GraphNodeItem*>(item); n && n->node().kind == layout::NodeKind::Group) shown.push_back(n);
    for (QGraphicsItem* item : canvas_->scene()->items(key.visible, Qt::IntersectsItemBoundingRect, Qt::AscendingOrder))
      if (auto* n = qgraphicsitem_cast<GraphNodeItem*>(item); n && n->node().kind != layout::NodeKind::Group) shown.push_back(n);
    int nodes = 0;
    for (const GraphNodeItem* n : shown) {
      if (++nodes > kMaxNodes) break;
      const auto& node = n->node();
      QString name = QString::fromStdString(node.title);
      if (!node.subtitle.empty()) name += " " + QString::fromStdString(node.subtitle);
      // The region the node is drawn in: the one whose area holds its centre.
      QString region;
      const QPointF centre = n->sceneBoundingRect().center();
      for (const auto* r : regions)
        if (r->sceneBoundingRect().contains(centre)) region = QString::fromStdString(r->device().str());
      QString description = region.isEmpty() ? QObject::tr("outside the device regions")
                                             : QObject::tr("in the %1 region").arg(region);
      if (node.instruction) description += QObject::tr(", instruction #%1").arg(*node.instruction);
      if (!node.inside_copies.empty()) {
        QStringList badges;
        for (const auto& mark : node.inside_copies) badges << QString::fromStdString(mark.badge);
        description += QObject::tr(", copies inside the delegate (no instruction): %1").arg(badges.join(QStringLiteral("; ")));
      }
      children_.push_back(new SceneItemAccessible(canvas_, QAccessible::ListItem, name, description, n->sceneBoundingRect(),
                                             n->emphasis() == Emphasis::Selected));
    }
    // The copies inside delegates marked on the edges in sight: named by
    // their badge, described by their whole line.
    for (QGraphicsItem* item : canvas_->scene()->items(key.visible, Qt::IntersectsItemBoundingRect, Qt::AscendingOrder)) {
      auto* e = qgraphicsitem_cast<GraphEdgeItem*>(item);
      if (e == nullptr || e->edge().inside_copies.empty()) continue;
      if (++nodes > kMaxNodes) break;
      for (const auto& mark : e->edge().inside_copies)
        children_.push_back(new SceneItemAccessible(canvas_, QAccessible::StaticText, QString::fromStdString(mark.badge),
                                                    QString::fromStdString(mark.text), e->insideMarkRect(),
                                                    e->emphasis() == Emphasis::Selected));
    }
  }

  QPointer<GraphCanvas> canvas_;
  mutable Key key_;
  mutable bool made_ = false;
};

QAccessibleInterface* graphFactory(const QString&, QObject* object) {
  if (auto* canvas = dynamic_cast<GraphCanvas*>(object)) return new CanvasAccessible(canvas);
  if (auto* legend = dynamic_cast<GraphLegend*>(object)) return new LegendAccessible(legend);
  return nullptr;
}

}  // namespace

void installGraphAccessibility() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  QAccessible::installFactory(graphFactory);
}

}  // namespace ptescope::ui
