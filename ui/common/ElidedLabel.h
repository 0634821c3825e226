// A one-line label that never sets a window's minimum width: it asks for its
// whole text's width but accepts less, drawing the text elided ("…") and
// offering the whole of it as a tooltip. text() (and so what a screen reader
// reads) is always the whole text, shown as plain text.
#pragma once

#include <QLabel>

namespace ptescope::ui {

class ElidedLabel : public QLabel {
  Q_OBJECT
 public:
  explicit ElidedLabel(QWidget* parent = nullptr);
  explicit ElidedLabel(const QString& text, QWidget* parent = nullptr);

  void setElideMode(Qt::TextElideMode mode);
  // Up to `lines` lines, wrapped at spaces, the last one elided (1: one
  // line, the default). The label is as high as the lines the text needs at
  // its width, up to that many.
  void setMaximumLines(int lines);
  // What is drawn at the current width (lines joined by '\n').
  QString shownText() const;
  bool isElided() const;

  QSize minimumSizeHint() const override;
  QSize sizeHint() const override;
  bool hasHeightForWidth() const override { return maxLines_ > 1; }
  int heightForWidth(int width) const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;

 private:
  QStringList linesAt(int textWidth) const;
  Qt::TextElideMode mode_ = Qt::ElideMiddle;
  int maxLines_ = 1;
};

}  // namespace ptescope::ui
