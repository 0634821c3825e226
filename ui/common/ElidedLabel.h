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
  // What is drawn at the current width.
  QString shownText() const;
  bool isElided() const { return shownText() != text(); }

  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;

 private:
  Qt::TextElideMode mode_ = Qt::ElideMiddle;
};

}  // namespace ptescope::ui
