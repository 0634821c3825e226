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

void ElidedLabel::setMaximumLines(int lines) {
  maxLines_ = qMax(1, lines);
  setSizePolicy(QSizePolicy::Preferred, maxLines_ > 1 ? QSizePolicy::Minimum : QSizePolicy::Fixed);
  updateGeometry();
  update();
}

QStringList ElidedLabel::linesAt(int textWidth) const {
  const QFontMetrics metrics = fontMetrics();
  textWidth = qMax(0, textWidth);
  QStringList lines;
  QString rest = text();
  // Whole words per line while there are lines to spare; the last line
  // takes the rest, elided.
  while (lines.size() + 1 < maxLines_ && metrics.horizontalAdvance(rest) > textWidth) {
    int cut = -1;
    for (int at = rest.indexOf(' '); at > 0; at = rest.indexOf(' ', at + 1)) {
      if (metrics.horizontalAdvance(rest.left(at)) > textWidth) break;
      cut = at;
    }
    if (cut <= 0) break;  // one word longer than the line: elide it
    lines << rest.left(cut);
    rest = rest.mid(cut + 1);
  }
  lines << metrics.elidedText(rest, mode_, textWidth);
  return lines;
}

QString ElidedLabel::shownText() const { return linesAt(contentsRect().width() - 2 * margin()).join('\n'); }

bool ElidedLabel::isElided() const {
  QString shown = shownText();
  shown.replace('\n', ' ');
  return shown != text();
}

QSize ElidedLabel::minimumSizeHint() const {
  // Room for a few characters and the ellipsis; the height of one line.
  const QSize full = QLabel::minimumSizeHint();
  return {qMin(full.width(), fontMetrics().horizontalAdvance(QStringLiteral("MMMM…"))), full.height()};
}

// The hints do not depend on the label's current width (a hint that follows
// the width can make a layout oscillate): layouts ask heightForWidth for the
// lines a width needs.
QSize ElidedLabel::sizeHint() const { return QLabel::sizeHint(); }

int ElidedLabel::heightForWidth(int width) const {
  if (maxLines_ == 1) return QLabel::heightForWidth(width);
  const QMargins m = contentsMargins();
  const int lines = int(linesAt(width - m.left() - m.right() - 2 * margin()).size());
  return lines * fontMetrics().lineSpacing() + m.top() + m.bottom() + 2 * margin();
}

void ElidedLabel::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  // A style sheet's background and border (the graph's diff banner).
  QStyleOption option;
  option.initFrom(this);
  style()->drawPrimitive(QStyle::PE_Widget, &option, &painter, this);
  const QRect area = contentsRect().adjusted(margin(), margin(), -margin(), -margin());
  style()->drawItemText(&painter, area, int(alignment()) | (maxLines_ > 1 ? 0 : int(Qt::TextSingleLine)), palette(),
                        isEnabled(), shownText(), foregroundRole());
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
