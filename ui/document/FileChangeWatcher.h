// Notices when the open file changes on disk (a script re-exports it while
// the app shows it), also when the file is replaced by a rename (an atomic
// save: the watched inode is gone and a new one has the name) or removed and
// written again later. Events are gathered for a moment, so a file being
// written is reported once, whole; a change is reported only when the
// file's identity (device, inode, size, modification time) differs from the
// one the app knows, so the app's own save over the file can be
// acknowledged and is not reported.
//
//   watcher->watch(path);                       // after opening: the known state
//   connect(watcher, &FileChangeWatcher::changed, ...);  // offer Reload
//   connect(watcher, &FileChangeWatcher::removed, ...);  // say it is gone
//   connect(watcher, &FileChangeWatcher::restored, ...); // back as it was
//   watcher->acknowledge();                     // after reloading or saving over it
#pragma once

#include <QObject>
#include <QString>

#include <cstdint>

class QFileSystemWatcher;
class QTimer;

namespace ptescope::ui {

class FileChangeWatcher : public QObject {
  Q_OBJECT
 public:
  explicit FileChangeWatcher(QObject* parent = nullptr);

  // Watches `path` (its file and its folder); empty stops watching. The
  // file as it is now is the known state.
  void watch(const QString& path);
  QString path() const { return path_; }
  // The file as it is now becomes the known state (after a reload, or a
  // save over it); a pending report for it is dropped.
  void acknowledge();
  // The file differs from the known state (changed or gone) right now.
  bool differsFromKnown() const;
  // How long events are gathered before the file is looked at (ms).
  static constexpr int kSettleMs = 300;

 signals:
  // The file has other contents than the known state (once per new state).
  void changed(const QString& path);
  // The file is gone (deleted or moved away); changed() follows if a file
  // with the name appears again.
  void removed(const QString& path);
  // After changed() or removed(): the file is again as the app knows it (it
  // was moved away and back, or changed and changed back).
  void restored(const QString& path);

 private:
  struct Stamp {
    bool exists = false;
    uint64_t device = 0, inode = 0, size = 0;
    int64_t mtimeNs = 0;
    bool operator==(const Stamp&) const = default;
  };
  static Stamp stampOf(const QString& path);
  void settle();
  void rewatch();

  QFileSystemWatcher* watcher_;
  QTimer* settle_;
  QString path_;
  Stamp known_;     // what the app shows
  Stamp reported_;  // the last state reported (not reported twice)
};

}  // namespace ptescope::ui
