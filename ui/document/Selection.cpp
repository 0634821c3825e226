#include "ui/document/Selection.h"

#include <utility>

#include "ui/document/Document.h"

namespace ptescope::ui {

Selection::Selection(Document* document, QObject* parent) : QObject(parent), document_(document) {
  method_ = document_->currentMethodIndex();
  connect(document_, &Document::programChanged, this, [this] { followDocument(true); });
  connect(document_, &Document::currentMethodChanged, this, [this] { followDocument(false); });
}

void Selection::followDocument(bool newProgram) {
  const int method = document_->currentMethodIndex();
  // A switch to the method already announced (the document says both after
  // some changes) is not news.
  if (!newProgram && method == method_) return;
  method_ = method;
  instruction_.reset();
  value_.reset();
  // Told even while publishing: a view that switched the method (a
  // diagnostic of another method) needs the views rebuilt before it selects.
  const bool wasPublishing = std::exchange(publishing_, true);
  emit methodChanged(method_, newProgram);
  publishing_ = wasPublishing;
}

template <class Tell>
bool Selection::publish(Tell tell) {
  if (publishing_) return false;
  publishing_ = true;
  tell();
  publishing_ = false;
  return true;
}

bool Selection::selectInstruction(size_t instruction, const QObject* source) {
  return publish([&] {
    instruction_ = instruction;
    value_.reset();
    emit instructionSelected(instruction, source);
  });
}

bool Selection::selectValue(int32_t value, const QObject* source) {
  return publish([&] {
    value_ = value;
    instruction_.reset();
    emit valueSelected(value, source);
  });
}

bool Selection::clear(const QObject* source) {
  return publish([&] {
    instruction_.reset();
    value_.reset();
    emit cleared(source);
  });
}

void Selection::selectMethod(int method) { document_->setCurrentMethod(method); }

}  // namespace ptescope::ui
