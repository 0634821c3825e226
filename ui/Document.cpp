#include "ui/Document.h"

namespace ptescope::ui {

Document::Document(QObject* parent) : QObject(parent) {}

bool Document::open(const QString& path, QString* error) {
  auto loaded = pte::readProgramFile(path.toStdString());
  if (!loaded) {
    const QString message = QString::fromStdString(loaded.error().message);
    if (error != nullptr) *error = message;
    emit loadFailed(message);
    return false;
  }
  loaded_ = std::move(loaded.value());
  path_ = path;
  emit programChanged();
  return true;
}

void Document::close() {
  loaded_.reset();
  path_.clear();
  emit programChanged();
}

}  // namespace ptescope::ui
