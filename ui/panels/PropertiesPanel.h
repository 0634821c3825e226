// Properties of the selection: a value (tensor facts, producer, consumers)
// or an instruction (operator or delegate, arguments).
#pragma once

#include <QTreeWidget>

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

 private:
  QTreeWidgetItem* row(const QString& key, const QString& value, QTreeWidgetItem* parent = nullptr);
  void showTensorRTPayload(const program::DelegatePayload& payload, QTreeWidgetItem* parent);
  Document* document_;
};

}  // namespace ptescope::ui
