// The link profile the app prices copies on (cost/LinkProfile.h): the
// built-in profiles, profiles loaded from files, and one measured on this
// GPU when there is one, with the host memory kind of the arenas. The
// Transfers panel, the Changes list and the diff banner all follow it.
//
// LinkChooser is its widget: the link, the host memory kind, "Load..." and,
// when a CUDA device answers, "Measure this GPU" (probe-link off the UI
// thread).
#pragma once

#include <QObject>
#include <QString>
#include <QWidget>

#include <memory>
#include <vector>

#include "cost/LinkProfile.h"
#include "exec/DeviceRuntime.h"
#include "util/Result.h"

class QComboBox;
class QPushButton;

namespace ptescope::ui {

class LinkSelection : public QObject {
  Q_OBJECT
 public:
  // The built-in profiles, the default one chosen, pageable host memory.
  explicit LinkSelection(QObject* parent = nullptr);

  struct Entry {
    QString label;
    std::shared_ptr<const cost::LinkProfile> profile;
  };
  const std::vector<Entry>& entries() const { return entries_; }
  int currentIndex() const { return current_; }
  void setCurrentIndex(int index);
  // Chooses an entry by profile name; false when none has it.
  bool selectByName(const QString& name);
  const std::shared_ptr<const cost::LinkProfile>& link() const { return entries_[size_t(current_)].profile; }
  exec::HostMemoryKind hostMemory() const { return hostMemory_; }
  void setHostMemory(exec::HostMemoryKind kind);

  // Adds (or replaces, by name) a profile and chooses it.
  void addProfile(cost::LinkProfile profile, const QString& label);
  // Reads a profile file and chooses it; the error names the file.
  Status loadFile(const QString& path);

  // "PCIe Gen4 x16, pageable".
  QString shortText() const;
  // "predicted −20.4 µs per run on PCIe Gen4 x16, pageable" from the copy
  // time before and after an edit.
  QString savingText(double beforeSeconds, double afterSeconds) const;

 signals:
  void changed();

 private:
  std::vector<Entry> entries_;
  int current_ = 0;
  exec::HostMemoryKind hostMemory_ = exec::HostMemoryKind::Pageable;
};

class LinkChooser : public QWidget {
  Q_OBJECT
 public:
  explicit LinkChooser(LinkSelection* selection, QWidget* parent = nullptr);

 private:
  void refill();
  void measure();
  LinkSelection* selection_;
  QComboBox* links_;
  QComboBox* memory_;
  QPushButton* load_;
  QPushButton* measure_ = nullptr;
};

}  // namespace ptescope::ui
