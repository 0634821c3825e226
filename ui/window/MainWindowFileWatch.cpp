// The main window and the open file on disk: a change (a script re-exports
// the file) is noticed by FileChangeWatcher. With nothing unsaved the
// program is reloaded at once (edits and undo history are kept by
// Document::reload) and the status bar says so; with unsaved edits the
// ReloadBar asks, without a modal dialog, and nothing changes until the
// user chooses Reload. A file that is gone is said so; the program stays;
// when the same file is back (moved away and back) the bar goes.
// An exporter may write a program in parts (a first part, then the whole):
// a changed file that cannot be read is tried again for a few seconds, and
// only a file that stays unreadable is an error.
#include <QFileInfo>
#include <QTimer>

#include "ui/document/Document.h"
#include "ui/document/FileChangeWatcher.h"
#include "ui/graph/GraphView.h"
#include "ui/window/MainWindow.h"
#include "ui/window/ReloadBar.h"

namespace ptescope::ui {

namespace {
// How long a changed file may stay unreadable before that is an error.
constexpr int kReloadRetryMs = 500;
constexpr int kReloadRetries = 8;
}  // namespace

void MainWindow::buildFileWatch() {
  fileWatch_ = new FileChangeWatcher(this);
  reloadBar_ = new ReloadBar(this);
  addToolBarBreak();
  addToolBar(Qt::TopToolBarArea, reloadBar_);
  reloadRetry_ = new QTimer(this);
  reloadRetry_->setSingleShot(true);
  reloadRetry_->setInterval(kReloadRetryMs);
  connect(reloadRetry_, &QTimer::timeout, this, &MainWindow::reloadChangedFile);
  connect(fileWatch_, &FileChangeWatcher::changed, this, [this](const QString& path) {
    if (path != document_->path()) return;
    if (!document_->hasUnsavedEdits()) {
      reloadAttempts_ = 0;
      reloadChangedFile();
      return;
    }
    reloadBar_->showChanged(QFileInfo(path).fileName(), true);
    showStatus(reloadBar_->text(), 10000);
  });
  connect(fileWatch_, &FileChangeWatcher::removed, this, [this](const QString& path) {
    if (path != document_->path()) return;
    reloadBar_->showRemoved(QFileInfo(path).fileName());
  });
  connect(fileWatch_, &FileChangeWatcher::restored, this, [this](const QString& path) {
    if (path != document_->path() || reloadBar_->isHidden()) return;
    reloadBar_->hide();
    showStatus(tr("%1 is back on disk as it was").arg(QFileInfo(path).fileName()), 10000);
  });
  connect(reloadBar_, &ReloadBar::reloadRequested, this, [this] { reloadFromDisk(); });
  connect(reloadBar_, &ReloadBar::dismissed, this, [this] { fileWatch_->acknowledge(); });
}

void MainWindow::reloadChangedFile() {
  reloadRetry_->stop();
  if (!document_->hasProgram() || document_->hasUnsavedEdits()) return;
  const QString name = QFileInfo(document_->path()).fileName();
  QString error;
  // The file under this name is another program: its picture starts from
  // its initial view, as reloadFromDisk's does.
  graph_->startFromInitialView();
  if (document_->reload(&error)) {
    reloadBar_->hide();
    fileWatch_->acknowledge();
    showStatus(tr("Reloaded %1: it changed on disk").arg(name), 10000);
    return;
  }
  graph_->startFromInitialView(false);
  if (++reloadAttempts_ <= kReloadRetries) {
    showStatus(tr("%1 changed on disk and cannot be read yet; waiting for it to be written whole").arg(name), 10000);
    reloadRetry_->start();
    return;
  }
  showLoadError(error);
}

bool MainWindow::reloadFromDisk() {
  if (!document_->hasProgram()) return false;
  // A reload that fails changes nothing: the bar saying the file is gone or
  // changed stays (it went, and the window looked like a file open as
  // usual: walkthrough 23).
  const bool barShown = !reloadBar_->isHidden();
  reloadBar_->hide();
  QString error;
  // Another file under the same name: its picture starts from its initial
  // view, as an opened file's does (the old zoom fits the old graph).
  graph_->startFromInitialView();
  if (!document_->reload(&error)) {
    graph_->startFromInitialView(false);
    if (barShown) reloadBar_->show();
    showLoadError(error);
    return false;
  }
  fileWatch_->acknowledge();
  showStatus(document_->hasUnsavedEdits()
                 ? tr("Reloaded %1; your edits are applied to it (Undo still works)").arg(document_->displayName())
                 : tr("Reloaded %1").arg(document_->displayName()),
             10000);
  return true;
}

void MainWindow::watch(const QString& path) {
  reloadBar_->hide();
  fileWatch_->watch(path);
}

}  // namespace ptescope::ui
