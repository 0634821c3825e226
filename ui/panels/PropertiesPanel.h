// Properties of the selection: a value (tensor facts, producer, consumers)
// or an instruction (operator or delegate, arguments).
#pragma once

#include <QTreeWidget>

#include <functional>
#include <optional>

#include "analysis/DelegateTransfers.h"
#include "layout/GraphModel.h"

namespace ptescope::program {
struct DelegatePayload;
}

namespace ptescope::ui {

class Document;

class PropertiesPanel : public QTreeWidget {
  Q_OBJECT
 public:
  explicit PropertiesPanel(Document* document, QWidget* parent = nullptr);

  void showValue(int32_t value);
  void showInstruction(size_t instruction);
  void showNothing();
  // A group of instructions selected in the graph: its name, its
  // instructions, where they run, the copies and delegate calls it holds.
  void showGroup(const layout::GraphNode& group);
  // The run's settings the file does not hold (CUDA graph replay per
  // method, LinkSelection): the copies they add inside delegates are listed
  // under the delegate. A change shows the instruction on show again.
  void setRunSettings(const analysis::DelegateTransferOptions& settings);
  // Names the groups an instruction sits in ("layer 7 in layers 0-9"; the
  // graph knows them): shown as the instruction's Group row.
  void setGroupNamer(std::function<QString(size_t)> namer) { groupNamer_ = std::move(namer); }

 private:
  QTreeWidgetItem* row(const QString& key, const QString& value, QTreeWidgetItem* parent = nullptr);
  void showTensorRTPayload(const program::DelegatePayload& payload, QTreeWidgetItem* parent);
  Document* document_;
  analysis::DelegateTransferOptions runSettings_;
  std::optional<size_t> shownInstruction_;
  std::function<QString(size_t)> groupNamer_;
};

}  // namespace ptescope::ui
