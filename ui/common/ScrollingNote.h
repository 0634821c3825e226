// A wrapped text under a table (the Advisor's notes, the Transfers totals):
// as high as its lines up to a few, the rest reached with its scroll bar, so
// it never takes the table's rows and never cuts its end out of reach.
#pragma once

#include <QScrollArea>

class QLabel;

namespace ptescope::ui {

class ScrollingNote : public QScrollArea {
 public:
  // `maxLines`: the most lines shown at once.
  ScrollingNote(QLabel* label, int maxLines, QWidget* parent = nullptr);
  QLabel* label() const { return label_; }
  // Fits the heights to the label's text; call after setText (a viewport
  // resize fits them too).
  void fit();
  // One line of text when it has any, as the label alone asked: the note
  // gives up its other lines before the table does. Not the scroll area's
  // own minimum (its scroll bar's): a page's minimum is the Details dock's,
  // and 4 px more cost the graph its 42% of a 1000x700 window.
  QSize minimumSizeHint() const override;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  QLabel* label_;
  int maxLines_;
};

}  // namespace ptescope::ui
