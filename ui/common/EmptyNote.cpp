#include "ui/common/EmptyNote.h"

#include <QAbstractItemView>
#include <QLabel>
#include <QVBoxLayout>

namespace ptescope::ui {

namespace {
constexpr const char* kNoteProperty = "ptescopeEmptyNote";
}

QLabel* attachEmptyNote(QAbstractItemView* view, const QString& objectName) {
  auto* note = new QLabel(view->viewport());
  note->setObjectName(objectName);
  note->setAlignment(Qt::AlignCenter);
  note->setWordWrap(true);
  // Notes quote names from the file (a run's error): never read as markup.
  note->setTextFormat(Qt::PlainText);
  note->setForegroundRole(QPalette::PlaceholderText);
  note->hide();
  auto* centre = new QVBoxLayout(view->viewport());
  centre->addWidget(note, 0, Qt::AlignCenter);
  view->setProperty(kNoteProperty, QVariant::fromValue(static_cast<QObject*>(note)));
  return note;
}

void setEmptyNote(QAbstractItemView* view, bool empty, const QString& text) {
  auto* note = qobject_cast<QLabel*>(view->property(kNoteProperty).value<QObject*>());
  if (note == nullptr) return;
  note->setText(text);
  note->setVisible(empty);
  view->setAccessibleDescription(empty ? text : QString());
}

void followRows(QAbstractItemView* view, const std::function<void()>& sayWhy) {
  QAbstractItemModel* model = view->model();
  QObject::connect(model, &QAbstractItemModel::modelReset, view, sayWhy);
  QObject::connect(model, &QAbstractItemModel::layoutChanged, view, sayWhy);
  QObject::connect(model, &QAbstractItemModel::rowsInserted, view, sayWhy);
  QObject::connect(model, &QAbstractItemModel::rowsRemoved, view, sayWhy);
  sayWhy();
}

}  // namespace ptescope::ui
