// What the edits changed against the file as loaded: copies added and
// removed, values whose device changed, buffers resized, and the predicted
// copy time saved or added per run on the chosen link. A click, Enter or the
// arrow keys select the element.
#pragma once

#include <QListWidget>

namespace ptescope::ui {

class Document;
class LinkSelection;

class ChangesPanel : public QListWidget {
  Q_OBJECT
 public:
  enum Role { MethodRole = Qt::UserRole + 40, ValueRole, InstructionRole };
  explicit ChangesPanel(Document* document, QWidget* parent = nullptr);
  // Each method's header then says what the edit saves per run on the
  // chosen link, and each added or removed copy what it costs there.
  void setLinkSelection(LinkSelection* links);

 signals:
  void valueActivated(int32_t value);
  void instructionActivated(size_t instruction);

 private:
  void rebuild();
  void activate(QListWidgetItem* item);
  Document* document_;
  bool rebuilding_ = false;
  LinkSelection* links_ = nullptr;
};

}  // namespace ptescope::ui
