#include "ui/common/ScrollingNote.h"

#include <algorithm>

#include <QEvent>
#include <QLabel>

namespace ptescope::ui {

ScrollingNote::ScrollingNote(QLabel* label, int maxLines, QWidget* parent)
    : QScrollArea(parent), label_(label), maxLines_(std::max(1, maxLines)) {
  label_->setWordWrap(true);
  setWidget(label_);
  setWidgetResizable(true);
  setFrameShape(QFrame::NoFrame);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  // Never part of the panel's minimum height: it gives up room first.
  setMinimumHeight(0);
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
  setFocusPolicy(Qt::NoFocus);
  viewport()->installEventFilter(this);
  fit();
}

void ScrollingNote::fit() {
  const int spacing = label_->fontMetrics().lineSpacing();
  const int width = viewport()->width() - 2;
  if (label_->text().isEmpty()) {  // no room for nothing
    label_->setMinimumHeight(0);
    setMaximumHeight(0);
    return;
  }
  // Before the first layout the width is unknown: one line.
  const int needed = width > 0 ? label_->heightForWidth(width) : spacing;
  // The label as high as its wrapped lines: the area scrolls to its end
  // (squeezed to the area, its last lines were cut with no scroll bar).
  label_->setMinimumHeight(std::max(needed, 0));
  const int lines = std::clamp((needed + spacing - 1) / spacing, 1, maxLines_);
  setMaximumHeight(spacing * lines + 8);
}

QSize ScrollingNote::minimumSizeHint() const {
  return {0, label_->text().isEmpty() ? 0 : label_->fontMetrics().lineSpacing()};
}

bool ScrollingNote::eventFilter(QObject* watched, QEvent* event) {
  if (watched == viewport() && event->type() == QEvent::Resize) fit();
  return QScrollArea::eventFilter(watched, event);
}

}  // namespace ptescope::ui
