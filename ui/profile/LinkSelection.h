// The link profile the app prices copies on (cost/LinkProfile.h): the
// built-in profiles, profiles loaded from files, and one measured on this
// GPU when there is one, with the host memory kind of the arenas. The
// Transfers panel, the Changes list and the diff banner all follow it.
//
// It also holds the run's setting that the file does not: the methods whose
// CudaBackend delegates replay CUDA graphs (the runtime option
// enable_cuda_graph_for_method, the CLI's --cuda-graph), which adds the
// replay's device-to-device copies inside those delegates to the graph,
// Properties, the Advisor, profiles and the report.
//
// LinkChooser is its widget: the link, the host memory kind, "Load...",
// when a CUDA device answers, "Measure this GPU" (probe-link off the UI
// thread), and the CUDA-graph toggle of the method shown.
#pragma once

#include <QObject>
#include <QString>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

#include "analysis/DelegateTransfers.h"
#include "cost/CopyCost.h"
#include "cost/LinkProfile.h"
#include "exec/DeviceRuntime.h"
#include "util/Result.h"

class QCheckBox;
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

  // CUDA graph replay per method (by name), as --cuda-graph sets it.
  const analysis::DelegateTransferOptions& runSettings() const { return runSettings_; }
  bool cudaGraph(const QString& method) const;
  void setCudaGraph(const QString& method, bool on);
  // Every method's replay off: a run setting of the file shown, which another
  // file does not inherit (a method of the same name there was priced with
  // the replay copies it never asked for).
  void clearCudaGraph();
  // The method the window shows: the one LinkChooser's toggle sets.
  const QString& shownMethod() const { return shownMethod_; }
  void setShownMethod(const QString& method);

  // "PCIe Gen4 x16, pageable".
  QString shortText() const;
  // "predicted −20.4 µs per run on PCIe Gen4 x16, pageable" from the copy
  // time before and after an edit.
  QString savingText(double beforeSeconds, double afterSeconds) const;

  // A method as loaded and as edited, priced on the chosen link with the
  // run's settings, copies inside delegates included (as propagate prices
  // them): what the diff banner and the Changes list say. nullopt when a
  // side has no such method or cannot be priced.
  struct EditPrediction {
    cost::MethodPrediction before, after;
    cost::DelegateCopyChanges inside;  // the copies inside delegates the edit adds and removes
  };
  std::optional<EditPrediction> predictEdit(const program::Program& loaded, const program::Program& edited,
                                            const std::string& method) const;
  // The same for two snapshots, remembered until the link, the host memory,
  // a run setting or either program changes: the diff banner, the Changes
  // list and the Advisor ask it for the same edit on each refresh (it priced
  // both programs, their delegates' copies included, three times).
  std::optional<EditPrediction> predictEdit(const std::shared_ptr<const program::Program>& loaded,
                                            const std::shared_ptr<const program::Program>& edited,
                                            const std::string& method) const;
  // "+3 copies inside delegates · −1 copy inside a delegate"; empty when none changed.
  static QString insideChangesText(const cost::DelegateCopyChanges& changes);

 signals:
  void changed();
  void shownMethodChanged();

 private:
  std::vector<Entry> entries_;
  int current_ = 0;
  struct RememberedEdit {
    std::weak_ptr<const program::Program> loaded, edited;  // expired: freed, never a lookalike
    std::string method;
    std::optional<EditPrediction> prediction;
  };
  mutable std::optional<RememberedEdit> remembered_;
  exec::HostMemoryKind hostMemory_ = exec::HostMemoryKind::Pageable;
  analysis::DelegateTransferOptions runSettings_;
  QString shownMethod_;
};

class LinkChooser : public QWidget {
  Q_OBJECT
 public:
  explicit LinkChooser(LinkSelection* selection, QWidget* parent = nullptr);

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void refill();
  void showCudaGraph();
  // Starts the link probe off the UI thread; pressed again while it runs
  // (the button then reads "Stop Measuring (12 of 40 sizes, 3 s)"), stops it.
  void measure();
  LinkSelection* selection_;
  QComboBox* links_;
  QComboBox* memory_;
  QPushButton* load_;
  QPushButton* measure_ = nullptr;
  QCheckBox* cudaGraph_;
  struct Measuring;
  std::shared_ptr<Measuring> measuring_;  // the probe under way, shared with it
  class ProgressTicker* measureTicker_ = nullptr;
};

}  // namespace ptescope::ui
