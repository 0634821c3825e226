#include "ui/window/ReloadBar.h"

#include <QAction>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QWidget>

#include "ui/common/ElidedLabel.h"

namespace ptescope::ui {

ReloadBar::ReloadBar(QWidget* parent)
    : QToolBar(tr("Reload bar"), parent),
      text_(new ElidedLabel),
      reload_(new QPushButton(tr("Reload"))),  // Ctrl+Shift+R (File > Reload); Alt+R opens Run
      dismiss_(new QPushButton(tr("&Keep This Version"))) {
  setObjectName("reloadBar");
  setMovable(false);
  setFloatable(false);
  // Not one of the bars a user switches on and off: it comes and goes with the file.
  toggleViewAction()->setVisible(false);
  setStyleSheet("QToolBar#reloadBar { background: #fff4ce; border-bottom: 1px solid #e0c060; }");
  text_->setObjectName("reloadBarText");
  // One line (elided, the whole text in its tooltip): the bar stays one row
  // high at any width.
  text_->setElideMode(Qt::ElideRight);
  text_->setAccessibleName(tr("File changed on disk"));
  reload_->setObjectName("reloadBarReload");
  reload_->setToolTip(tr("Read the file again (Ctrl+Shift+R); your edits are applied to it and stay undoable"));
  dismiss_->setObjectName("reloadBarDismiss");
  dismiss_->setToolTip(tr("Keep what is on screen; the bar comes back if the file changes again"));
  auto* box = new QWidget;
  auto* row = new QHBoxLayout(box);
  row->setContentsMargins(8, 2, 8, 2);
  row->addWidget(text_, 1);
  row->addWidget(reload_);
  row->addWidget(dismiss_);
  addWidget(box);
  connect(reload_, &QPushButton::clicked, this, [this] {
    hide();
    emit reloadRequested();
  });
  connect(dismiss_, &QPushButton::clicked, this, [this] {
    hide();
    emit dismissed();
  });
  hide();
}

void ReloadBar::showChanged(const QString& fileName, bool unsavedEdits) {
  showText(unsavedEdits ? tr("%1 changed on disk. Reload reads it and applies your unsaved edits again (undoable).")
                              .arg(fileName)
                        : tr("%1 changed on disk.").arg(fileName),
           true);
}

void ReloadBar::showRemoved(const QString& fileName) {
  showText(tr("%1 was deleted or moved on disk. The program stays open here; File > Save As keeps it.").arg(fileName),
           false);
}

void ReloadBar::showText(const QString& text, bool canReload) {
  text_->setText(text);
  text_->setAccessibleDescription(text);  // Qt 6.4: a label's name hides its text from AT-SPI
  reload_->setVisible(canReload);
  show();
}

QString ReloadBar::text() const { return isHidden() ? QString() : text_->text(); }

}  // namespace ptescope::ui
