#include "ui/document/FileChangeWatcher.h"

#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QTimer>

#include <sys/stat.h>

namespace ptescope::ui {

FileChangeWatcher::FileChangeWatcher(QObject* parent)
    : QObject(parent), watcher_(new QFileSystemWatcher(this)), settle_(new QTimer(this)) {
  settle_->setSingleShot(true);
  settle_->setInterval(kSettleMs);
  connect(settle_, &QTimer::timeout, this, &FileChangeWatcher::settle);
  // Any event restarts the wait: a file being written is looked at once, whole.
  connect(watcher_, &QFileSystemWatcher::fileChanged, this, [this] { settle_->start(); });
  connect(watcher_, &QFileSystemWatcher::directoryChanged, this, [this] { settle_->start(); });
}

FileChangeWatcher::Stamp FileChangeWatcher::stampOf(const QString& path) {
  Stamp stamp;
  struct stat st {};
  if (path.isEmpty() || ::stat(QFile::encodeName(path).constData(), &st) != 0 || !S_ISREG(st.st_mode)) return stamp;
  stamp.exists = true;
  stamp.device = uint64_t(st.st_dev);
  stamp.inode = uint64_t(st.st_ino);
  stamp.size = uint64_t(st.st_size);
  stamp.mtimeNs = int64_t(st.st_mtim.tv_sec) * 1000000000 + int64_t(st.st_mtim.tv_nsec);
  return stamp;
}

void FileChangeWatcher::watch(const QString& path) {
  settle_->stop();
  if (!watcher_->files().isEmpty()) watcher_->removePaths(watcher_->files());
  if (!watcher_->directories().isEmpty()) watcher_->removePaths(watcher_->directories());
  path_ = path;
  known_ = reported_ = stampOf(path);
  rewatch();
}

// The file's watch is lost when it is replaced or removed (the watched inode
// goes): watch the name again whenever a file has it; the folder's watch
// sees a file appear under the name.
void FileChangeWatcher::rewatch() {
  if (path_.isEmpty()) return;
  const QString folder = QFileInfo(path_).absolutePath();
  if (!watcher_->directories().contains(folder)) watcher_->addPath(folder);
  if (QFileInfo::exists(path_) && !watcher_->files().contains(path_)) watcher_->addPath(path_);
}

void FileChangeWatcher::acknowledge() {
  settle_->stop();
  known_ = reported_ = stampOf(path_);
  rewatch();
}

bool FileChangeWatcher::differsFromKnown() const { return !path_.isEmpty() && !(stampOf(path_) == known_); }

void FileChangeWatcher::settle() {
  if (path_.isEmpty()) return;
  // A replaced file: the old watch went with its inode.
  if (watcher_->files().contains(path_)) watcher_->removePath(path_);
  rewatch();
  const Stamp now = stampOf(path_);
  if (now == reported_) return;
  reported_ = now;
  // Changed or gone and then back as the app knows it (moved away and back).
  if (now == known_) {
    emit restored(path_);
    return;
  }
  if (now.exists)
    emit changed(path_);
  else
    emit removed(path_);
}

}  // namespace ptescope::ui
