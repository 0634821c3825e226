#include "ui/common/ColumnFitter.h"

#include <algorithm>

#include <QEvent>
#include <QHeaderView>
#include <QTreeView>

namespace ptescope::ui {

ColumnFitter::ColumnFitter(QTreeView* view, double share, int least, Adjust adjust)
    : QObject(view), view_(view), share_(share), least_(least), adjust_(std::move(adjust)) {
  view->installEventFilter(this);
  connect(view->header(), &QHeaderView::sectionResized, this, [this](int section) {
    if (section == 0 && !fitting_) userSized_ = true;
  });
  // After the view's own work: expandAll emits expanded from inside the
  // tree's layout, and measuring the column there (sizeHintForColumn) freed
  // the row list that layout was walking (a crash, one run in ten).
  connect(view, &QTreeView::expanded, this, &ColumnFitter::fitSoon);
  connect(view, &QTreeView::collapsed, this, &ColumnFitter::fitSoon);
  watchModel();
}

void ColumnFitter::watchModel() {
  QAbstractItemModel* model = view_->model();
  if (model == nullptr) return;
  // Connected once per model (a view given the same model again).
  connect(model, &QAbstractItemModel::modelReset, this, &ColumnFitter::fitSoon, Qt::UniqueConnection);
  connect(model, &QAbstractItemModel::rowsInserted, this, &ColumnFitter::fitSoon, Qt::UniqueConnection);
  fitSoon();
}

void ColumnFitter::fitSoon() {
  if (pending_) return;
  pending_ = true;
  QMetaObject::invokeMethod(
      this,
      [this] {
        pending_ = false;
        fit();
      },
      Qt::QueuedConnection);
}

void ColumnFitter::fit() {
  QHeaderView* header = view_->header();
  if (userSized_ || view_->model() == nullptr || header->count() < 2) return;
  const int room = view_->viewport()->width();
  // The headers' own words count too (an empty tree read "Prograr").
  // (QTreeView's own is protected; the same virtual through its base.)
  const QAbstractItemView* items = view_;
  const int first = std::max(items->sizeHintForColumn(0), header->sectionSizeHint(0));
  const int second = std::max(items->sizeHintForColumn(1), header->sectionSizeHint(1));
  int width = first;
  const bool gaveWay = first + second > room;
  if (gaveWay) width = std::min(first, std::max(room - second, int(room * share_)));
  if (adjust_) width = adjust_(width, first, room, gaveWay);
  fitting_ = true;
  header->resizeSection(0, std::max(width, least_));
  fitting_ = false;
}

bool ColumnFitter::eventFilter(QObject* watched, QEvent* event) {
  if (watched == view_ && event->type() == QEvent::Resize) fit();
  return QObject::eventFilter(watched, event);
}

}  // namespace ptescope::ui
