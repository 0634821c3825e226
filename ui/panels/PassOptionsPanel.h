// The pass options of the current method and the target devices of its
// delegates, editable. Every change is one undoable edit on the document;
// invalid combinations are explained in place with the pipeline's words.
#pragma once

#include <QWidget>

#include <map>
#include <vector>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QPushButton;

namespace ptescope::ui {

class Document;

class PassOptionsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit PassOptionsPanel(Document* document, QWidget* parent = nullptr);

  // Items of the target device choosers: "none", "cpu", "cuda:0" .. "cuda:7".
  static QStringList deviceChoices();
  // What choosing it does, in a sentence (tooltips, the note under the
  // choosers, the menus of the graph and the tree).
  static QString deviceChoiceMeaning(const QString& choice);
  // Gives each item of a chooser its meaning as tooltip and marks "cpu".
  static void describeChoices(QComboBox* chooser);

 signals:
  // The panel shows another method, options or delegates: its minimum
  // width may have changed (the dock follows it).
  void refreshed();

 private:
  void refresh();
  void refreshContents();
  void commitOptions();

  Document* document_;
  QLabel* title_;
  QCheckBox* planning_;
  QCheckBox* skipH2d_;
  QCheckBox* skipD2h_;
  QCheckBox* allocInput_;
  QCheckBox* allocOutput_;
  QLabel* error_;
  QLabel* choiceNote_;
  std::map<QCheckBox*, QLabel*> origins_;  // "file: off · default: on" under each option
  QPushButton* pairFix_;
  QWidget* delegatesBox_;
  QFormLayout* delegatesLayout_;
  std::vector<QComboBox*> delegateChoosers_;
  bool refreshing_ = false;
};

}  // namespace ptescope::ui
