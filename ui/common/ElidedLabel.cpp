#include "ui/common/ElidedLabel.h"

#include <QEvent>
#include <QHelpEvent>
#include <QPainter>
#include <QStyle>
#include <QStyleOption>
#include <QToolTip>

#include "ui/common/PlainText.h"

namespace ptescope::ui {

ElidedLabel::ElidedLabel(QWidget* parent) : ElidedLabel(QString(), parent) {}

ElidedLabel::ElidedLabel(const QString& text, QWidget* parent) : QLabel(text, parent) {
  setTextFormat(Qt::PlainText);
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

void ElidedLabel::setElideMode(Qt::TextElideMode mode) {
  mode_ = mode;
  update();
}

QString ElidedLabel::shownText() const {
  return fontMetrics().elidedText(text(), mode_, qMax(0, contentsRect().width() - 2 * margin()));
}

QSize ElidedLabel::minimumSizeHint() const {
  // Room for a few characters and the ellipsis; the height of one line.
  const QSize full = QLabel::minimumSizeHint();
  return {qMin(full.width(), fontMetrics().horizontalAdvance(QStringLiteral("MMMM…"))), full.height()};
}

void ElidedLabel::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  // A style sheet's background and border (the graph's diff banner).
  QStyleOption option;
  option.initFrom(this);
  style()->drawPrimitive(QStyle::PE_Widget, &option, &painter, this);
  const QRect area = contentsRect().adjusted(margin(), margin(), -margin(), -margin());
  style()->drawItemText(&painter, area, int(alignment()) | Qt::TextSingleLine, palette(), isEnabled(), shownText(),
                        foregroundRole());
}

bool ElidedLabel::event(QEvent* event) {
  // The whole text as the tooltip while it is cut (and the label's own
  // tooltip otherwise).
  if (event->type() == QEvent::ToolTip && toolTip().isEmpty() && isElided()) {
    QToolTip::showText(static_cast<QHelpEvent*>(event)->globalPos(), plainToolTip(text()), this);
    return true;
  }
  return QLabel::event(event);
}

}  // namespace ptescope::ui
