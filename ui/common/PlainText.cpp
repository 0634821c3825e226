#include "ui/common/PlainText.h"

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

}  // namespace

void installPlainTextLabels(QApplication* app) {
  if (app == nullptr || app->property("ptescopePlainTextLabels").toBool()) return;
  app->setProperty("ptescopePlainTextLabels", true);
  app->installEventFilter(new PlainTextLabels(app));
}

}  // namespace ptescope::ui
