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

namespace ptescope::ui {

namespace {

// At most this many nodes are offered at once: the groups, then those in
// sight, in scene order.
constexpr int kMaxNodes = 400;

class CanvasAccessible;

// One region or node: words, role and scene rectangle, fixed when made.
class ItemAccessible : public QAccessibleInterface {
 public:
  ItemAccessible(GraphCanvas* canvas, QAccessible::Role role, QString name, QString description, QRectF scene,
                 bool selected)
      : canvas_(canvas), role_(role), name_(std::move(name)), description_(std::move(description)), scene_(scene),
        selected_(selected) {}

  bool isValid() const override { return !canvas_.isNull(); }
  QObject* object() const override { return nullptr; }
  QWindow* window() const override { return canvas_ ? canvas_->window()->windowHandle() : nullptr; }
  QList<QPair<QAccessibleInterface*, QAccessible::Relation>> relations(QAccessible::Relation) const override {
    return {};
  }
  QAccessibleInterface* focusChild() const override { return nullptr; }
  QAccessibleInterface* childAt(int, int) const override { return nullptr; }
  QAccessibleInterface* parent() const override {
    return canvas_ ? QAccessible::queryAccessibleInterface(canvas_.data()) : nullptr;
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
    if (!canvas_) return {};
    const QRect inView = canvas_->mapFromScene(scene_).boundingRect();
    return QRect(canvas_->viewport()->mapToGlobal(inView.topLeft()), inView.size());
  }
  QAccessible::Role role() const override { return role_; }
  QAccessible::State state() const override {
    QAccessible::State s;
    s.selectable = role_ != QAccessible::Grouping;
    s.selected = selected_;
    if (canvas_) {
      const QRect inView = canvas_->mapFromScene(scene_).boundingRect();
      s.invisible = !canvas_->viewport()->rect().intersects(inView);
      s.offscreen = s.invisible;
    }
    return s;
  }

 private:
  QPointer<GraphCanvas> canvas_;
  QAccessible::Role role_;
  QString name_, description_;
  QRectF scene_;
  bool selected_;
};

class CanvasAccessible : public QAccessibleWidget {
 public:
  explicit CanvasAccessible(GraphCanvas* canvas) : QAccessibleWidget(canvas, QAccessible::Graphic), canvas_(canvas) {}
  ~CanvasAccessible() override { dropChildren(); }

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
  // Where the graph is drawn: the viewport (the room beside it holds the
  // overview, and the scroll bars).
  QRect rect() const override {
    if (!canvas_) return {};
    const QWidget* viewport = canvas_->viewport();
    return QRect(viewport->mapToGlobal(QPoint(0, 0)), viewport->size());
  }
  QAccessibleInterface* childAt(int x, int y) const override {
    refresh();
    for (auto it = children_.rbegin(); it != children_.rend(); ++it)
      if ((*it)->rect().contains(x, y)) return *it;
    return nullptr;
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

  void dropChildren() const {
    for (auto* child : children_) {
      // Registered when a client asked for it: deleting through the
      // registry also drops its id.
      const QAccessible::Id id = QAccessible::uniqueId(child);
      QAccessible::deleteAccessibleInterface(id);
    }
    children_.clear();
  }

  void refresh() const {
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
      children_.push_back(new ItemAccessible(canvas_, QAccessible::Grouping, r->title(),
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
      children_.push_back(new ItemAccessible(canvas_, QAccessible::ListItem, name, description, n->sceneBoundingRect(),
                                             n->emphasis() == Emphasis::Selected));
    }
  }

  QPointer<GraphCanvas> canvas_;
  mutable std::vector<ItemAccessible*> children_;
  mutable Key key_;
  mutable bool made_ = false;
};

QAccessibleInterface* graphFactory(const QString&, QObject* object) {
  if (auto* canvas = dynamic_cast<GraphCanvas*>(object)) return new CanvasAccessible(canvas);
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
