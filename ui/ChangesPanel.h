// What the edits changed against the file as loaded: copies added and
// removed, values whose device changed, buffers resized. A click selects the
// element.
#pragma once

#include <QListWidget>

namespace ptescope::ui {

class Document;

class ChangesPanel : public QListWidget {
  Q_OBJECT
 public:
  enum Role { MethodRole = Qt::UserRole + 40, ValueRole, InstructionRole };
  explicit ChangesPanel(Document* document, QWidget* parent = nullptr);

 signals:
  void valueActivated(int32_t value);
  void instructionActivated(size_t instruction);

 private:
  void rebuild();
  Document* document_;
};

}  // namespace ptescope::ui
