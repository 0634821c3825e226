#include "ui/common/PlainText.h"

#include <QAccessible>
#include <QAccessibleWidget>
#include <QApplication>
#include <QEvent>
#include <QLabel>
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
    if (t == QAccessible::Name) return label->accessibleName().isEmpty() ? label->text() : label->accessibleName();
    if (t == QAccessible::Description && !label->accessibleName().isEmpty()) return label->text();
    return QAccessibleWidget::text(t);
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
}

}  // namespace ptescope::ui
