// The two columns of a key/value tree (the Program tree, Properties) sharing
// the view's width: the first as wide as its widest entry (or its header's
// word) unless the second then does not fit; then the first gives way, down
// to a share of the width. A first column the user sizes stays as sized.
// It fits once per turn of the event loop however many signals ask (rows
// inserted, a model reset, a branch opened or closed), and again on resize.
#pragma once

#include <functional>

#include <QObject>
#include <QStyledItemDelegate>

class QTreeView;

namespace ptescope::ui {

class ColumnFitter : public QObject {
 public:
  // Called with the first column's width as fitted, its widest entry and the
  // view's width, and whether it gave way: returns the width to use (the
  // Program tree widens it until no two names read alike).
  using Adjust = std::function<int(int width, int wanted, int room, bool gaveWay)>;

  // `share`: the least part of the width the first column keeps when it
  // gives way (0.45: keys; 2/3: names). `least`: never narrower than this.
  ColumnFitter(QTreeView* view, double share, int least = 40, Adjust adjust = {});
  // Follows the view's model's resets and insertions (call after setModel).
  void watchModel();
  void fitSoon();
  void fit();

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  QTreeView* view_;
  double share_;
  int least_;
  Adjust adjust_;
  bool fitting_ = false;
  bool pending_ = false;
  bool userSized_ = false;
};

// Draws a column's texts cut with its own elide mode (a key or a detail
// keeps its beginning while the view elides its other column elsewhere).
class ElideDelegate : public QStyledItemDelegate {
 public:
  ElideDelegate(Qt::TextElideMode mode, QObject* parent) : QStyledItemDelegate(parent), mode_(mode) {}

 protected:
  void initStyleOption(QStyleOptionViewItem* option, const QModelIndex& index) const override {
    QStyledItemDelegate::initStyleOption(option, index);
    option->textElideMode = mode_;
  }

 private:
  Qt::TextElideMode mode_;
};

}  // namespace ptescope::ui
