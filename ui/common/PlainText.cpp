#include "ui/common/PlainText.h"

#include "ui/common/AccessibleNames.h"

#include <QAccessible>
#include <QAccessibleWidget>
#include <QApplication>
#include <QEvent>
#include <QAction>
#include <QDialog>
#include <QPushButton>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>
#include <QTextDocument>

namespace ptescope::ui {

QString plainToolTip(const QString& text) {
  if (!Qt::mightBeRichText(text)) return text;
  return QStringLiteral("<p style='white-space:pre-wrap'>") + text.toHtmlEscaped() + QStringLiteral("</p>");
}

namespace {

class PlainTextLabels : public QObject {
 public:
  using QObject::QObject;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override {
    // Polish comes once, before a widget is first shown: labels made by Qt
    // itself (message boxes, dialogs) are covered as well as ours. Tooltips
    // (QTipLabel) go through plainToolTip instead: some are rich on purpose.
    if (event->type() == QEvent::Polish) {
      if (auto* label = qobject_cast<QLabel*>(watched);
          label && label->textFormat() == Qt::AutoText && !label->property("richText").toBool() &&
          !label->inherits("QTipLabel"))
        label->setTextFormat(Qt::PlainText);
      // Enter presses a focused push button outside dialogs too, as Space
      // does (the Advisor's Apply took only Space: walkthrough 23). In a
      // dialog Enter stays the default button's.
      if (auto* button = qobject_cast<QPushButton*>(watched);
          button && !button->autoDefault() && qobject_cast<QDialog*>(button->window()) == nullptr)
        button->setAutoDefault(true);
    }
    if (event->type() == QEvent::Polish || event->type() == QEvent::Show) {
      // A line edit's clear button (Qt's, shown while there is text) is a
      // push button with no name: named by the field it clears ("Clear
      // Find"), as every control is named by what it does.
      if (auto* button = qobject_cast<QToolButton*>(watched);
          button && (button->accessibleName().isEmpty() || button->property("ptescopeClearName").toBool()) &&
          button->defaultAction() != nullptr &&
          button->defaultAction()->objectName() == QLatin1String("_q_qlineeditclearaction"))
        if (auto* field = qobject_cast<QLineEdit*>(button->parentWidget())) {
          // A spin box's or an editable combo box's field is named by its box.
          QString name = controlName(field);
          if (name.isEmpty() && field->parentWidget() != nullptr &&
              (field->parentWidget()->inherits("QAbstractSpinBox") || field->parentWidget()->inherits("QComboBox")))
            name = controlName(field->parentWidget());
          // Named again when shown: polished early, a field's label may not
          // have been made yet.
          button->setProperty("ptescopeClearName", true);
          button->setAccessibleName(name.isEmpty() ? QApplication::translate("ptescope", "Clear the field")
                                                   : QApplication::translate("ptescope", "Clear %1").arg(name));
        }
    }
    return QObject::eventFilter(watched, event);
  }
};

// A label for screen readers. Qt 6.4 gives a QLabel no text interface: its
// accessible name is all a reader gets, so a label named for its role ("Find
// status", "Zoom") would hide what it shows. Here the name stays the role and
// the description is the text shown now (read live, never stale); a label
// without a name of its own is named by its text, as before.
class LabelAccessible : public QAccessibleWidget {
 public:
  explicit LabelAccessible(QLabel* label) : QAccessibleWidget(label, QAccessible::StaticText) {}
  QString text(QAccessible::Text t) const override {
    const auto* label = static_cast<const QLabel*>(widget());
    if (t == QAccessible::Name) return label->accessibleName().isEmpty() ? shown(label) : label->accessibleName();
    if (t == QAccessible::Description && !label->accessibleName().isEmpty()) return shown(label);
    return QAccessibleWidget::text(t);
  }
  // A form's row label names its field (Orca reads "Method: combo box").
  QList<std::pair<QAccessibleInterface*, QAccessible::Relation>> relations(
      QAccessible::Relation match) const override {
    auto found = QAccessibleWidget::relations(match);
    const auto* label = static_cast<const QLabel*>(widget());
    if ((match & QAccessible::Labelled) && label->buddy() != nullptr)
      if (auto* buddy = QAccessible::queryAccessibleInterface(label->buddy()))
        found.append({buddy, QAccessible::Labelled});
    return found;
  }

 private:
  // A mnemonic label shows "&Method:" as "Method:" with M underlined; it reads so.
  static QString shown(const QLabel* label) {
    return label->buddy() == nullptr ? label->text() : withoutMnemonic(label->text());
  }
};

QAccessibleInterface* labelFactory(const QString&, QObject* object) {
  auto* label = qobject_cast<QLabel*>(object);
  if (label == nullptr || label->inherits("QTipLabel")) return nullptr;
  return new LabelAccessible(label);
}

}  // namespace

void installPlainTextLabels(QApplication* app) {
  if (app == nullptr || app->property("ptescopePlainTextLabels").toBool()) return;
  app->setProperty("ptescopePlainTextLabels", true);
  app->installEventFilter(new PlainTextLabels(app));
  QAccessible::installFactory(labelFactory);
  installAccessibleNames();
}

}  // namespace ptescope::ui
