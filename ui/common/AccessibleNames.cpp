#include "ui/common/AccessibleNames.h"

#include <QAbstractItemView>
#include <QAccessible>
#include <QAccessibleWidget>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>

namespace ptescope::ui {

QString mnemonicSafe(QString text) { return text.replace(u'&', QStringLiteral("&&")); }

QString withoutMnemonic(const QString& text) {
  QString out;
  out.reserve(text.size());
  for (qsizetype i = 0; i < text.size(); ++i) {
    if (text[i] == u'&') {
      if (i + 1 < text.size() && text[i + 1] == u'&') out += u'&', ++i;
      continue;
    }
    out += text[i];
  }
  return out;
}

QString controlName(const QWidget* control) {
  if (control == nullptr) return {};
  if (!control->accessibleName().isEmpty()) return control->accessibleName();
  // A label that names it is one whose buddy it is (a form's row label).
  for (const QLabel* label : control->window()->findChildren<QLabel*>())
    if (label->buddy() == control) {
      QString name = withoutMnemonic(label->text()).trimmed();
      if (name.endsWith(u':')) name.chop(1);
      return name;
    }
  return {};
}

namespace {

// QAccessibleComboBox (Qt's, private) less the Linux rule that its name is
// its current text: the name says what it sets, the value what it is set to.
// Its current text is also its text (read-only), as a screen reader reads
// a combo box's value and tests read it through AT-SPI's Text interface.
class NamedComboBox : public QAccessibleWidget, public QAccessibleTextInterface {
 public:
  explicit NamedComboBox(QComboBox* box) : QAccessibleWidget(box, QAccessible::ComboBox) {}

  void* interface_cast(QAccessible::InterfaceType t) override {
    if (t == QAccessible::TextInterface) return static_cast<QAccessibleTextInterface*>(this);
    return QAccessibleWidget::interface_cast(t);
  }
  // QAccessibleTextInterface: the value, read-only, no selection or caret.
  void selection(int, int* start, int* end) const override { *start = *end = 0; }
  int selectionCount() const override { return 0; }
  void addSelection(int, int) override {}
  void removeSelection(int) override {}
  void setSelection(int, int, int) override {}
  int cursorPosition() const override { return 0; }
  void setCursorPosition(int) override {}
  QString text(int start, int end) const override { return value().mid(start, end - start); }
  int characterCount() const override { return int(value().size()); }
  QRect characterRect(int) const override { return {}; }
  int offsetAtPoint(const QPoint&) const override { return -1; }
  void scrollToSubstring(int, int) override {}
  QString attributes(int, int* start, int* end) const override {
    *start = 0;
    *end = characterCount();
    return {};
  }

  QString text(QAccessible::Text t) const override {
    switch (t) {
      case QAccessible::Name: {
        const QString name = controlName(box());
        return name.isEmpty() ? box()->currentText() : name;
      }
      case QAccessible::Value:
        return value();
      default:
        return QAccessibleWidget::text(t);
    }
  }
  int childCount() const override { return box()->isEditable() && box()->lineEdit() ? 2 : 1; }
  QAccessibleInterface* child(int index) const override {
    if (index == 0) return QAccessible::queryAccessibleInterface(box()->view());
    if (index == 1 && box()->isEditable() && box()->lineEdit())
      return QAccessible::queryAccessibleInterface(box()->lineEdit());
    return nullptr;
  }
  int indexOfChild(const QAccessibleInterface* child) const override {
    if (child == nullptr) return -1;
    if (child->object() == box()->view()) return 0;
    if (box()->isEditable() && child->object() == box()->lineEdit()) return 1;
    return -1;
  }
  QAccessibleInterface* childAt(int, int) const override { return nullptr; }
  QStringList actionNames() const override {
    return QStringList{showMenuAction(), pressAction()} + QAccessibleWidget::actionNames();
  }
  void doAction(const QString& action) override {
    if (action == showMenuAction() || action == pressAction()) {
      if (box()->view()->isVisible())
        box()->hidePopup();
      else
        box()->showPopup();
      return;
    }
    QAccessibleWidget::doAction(action);
  }

 private:
  QComboBox* box() const { return static_cast<QComboBox*>(widget()); }
  QString value() const {
    return box()->isEditable() && box()->lineEdit() ? box()->lineEdit()->text() : box()->currentText();
  }
};

QAccessibleInterface* comboFactory(const QString&, QObject* object) {
  auto* box = qobject_cast<QComboBox*>(object);
  return box ? new NamedComboBox(box) : nullptr;
}

}  // namespace

void installAccessibleNames() {
  static bool installed = false;
  if (installed) return;
  installed = true;
  QAccessible::installFactory(comboFactory);
}

}  // namespace ptescope::ui
