// The bar across the top of the window that says the open file changed on
// disk (or is gone) and offers Reload, without a modal dialog: the user can
// go on working and answer when ready. It says whether there are unsaved
// edits and what Reload does with them (applied again to the new file, the
// undo history kept); Keep This Version dismisses it until the next change.
//
// Object names, for tests and tests/e2e: reloadBar, reloadBarText (its
// accessible description is the text), reloadBarReload, reloadBarDismiss.
#pragma once

#include <QToolBar>

class QPushButton;

namespace ptescope::ui {

class ElidedLabel;

class ReloadBar : public QToolBar {
  Q_OBJECT
 public:
  explicit ReloadBar(QWidget* parent = nullptr);

  // Shows the bar for a file that changed; `unsavedEdits`: the document has
  // edits not written anywhere.
  void showChanged(const QString& fileName, bool unsavedEdits);
  // Shows the bar for a file that is gone (no Reload then).
  void showRemoved(const QString& fileName);
  QString text() const;

 signals:
  void reloadRequested();
  void dismissed();

 private:
  void showText(const QString& text, bool canReload);

  ElidedLabel* text_;
  QPushButton* reload_;
  QPushButton* dismiss_;
};

}  // namespace ptescope::ui
