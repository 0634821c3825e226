#include "ui/Document.h"

#include <QFileInfo>

#include "pte/Writer.h"
#include "synth/JsonSpec.h"
#include "synth/Scenarios.h"

namespace ptescope::ui {

Document::Document(QObject* parent) : QObject(parent) {}

void Document::install(std::shared_ptr<const pte::LoadedProgram> loaded, const QString& path, bool demo) {
  loaded_ = std::move(loaded);
  path_ = path;
  demo_ = demo;
  dataflows_.assign(loaded_->program.methods().size(), std::nullopt);
  currentMethod_ = loaded_->program.methods().empty() ? -1 : 0;
  // Open on "forward" when there is one: it is what users look at first.
  for (size_t m = 0; m < loaded_->program.methods().size(); ++m)
    if (loaded_->program.methods()[m].name.value_or("") == "forward") currentMethod_ = int(m);
  emit programChanged();
  emit currentMethodChanged(currentMethod_);
}

bool Document::open(const QString& path, QString* error) {
  auto loaded = pte::readProgramFile(path.toStdString());
  if (!loaded) {
    const QString message = QString::fromStdString(loaded.error().message);
    if (error != nullptr) *error = message;
    emit loadFailed(message);
    return false;
  }
  install(std::make_shared<const pte::LoadedProgram>(std::move(loaded.value())), path, false);
  return true;
}

bool Document::openDemo(QString* error) {
  auto fail = [&](const std::string& message) {
    const QString text = "cannot build the demo program: " + QString::fromStdString(message);
    if (error != nullptr) *error = text;
    emit loadFailed(text);
    return false;
  };
  auto demo = synth::synthesizeDemo();
  if (!demo) return fail(demo.error().message);
  auto result = synth::applyDevicePasses(demo.value());
  if (!result) return fail(result.error().message);
  // Through the writer and the reader, so the demo is exactly what the file
  // `ptescope-cli synth --demo` writes would be (segment offsets, header).
  auto bytes = pte::serializeProgram(result.value());
  if (!bytes) return fail(bytes.error().message);
  auto reread = pte::readProgramBytes(Bytes::fromVector(std::move(bytes.value())), "demo");
  if (!reread) return fail(reread.error().message);
  auto loaded = std::make_shared<pte::LoadedProgram>(std::move(reread.value()));
  loaded->file.path = "demo (built in)";
  install(std::move(loaded), QString(), true);
  return true;
}

bool Document::reload(QString* error) {
  if (demo_ || path_.isEmpty()) return openDemo(error);
  const int method = currentMethod_;
  if (!open(path_, error)) return false;
  if (method >= 0 && method < methodCount()) setCurrentMethod(method);
  return true;
}

void Document::close() {
  loaded_.reset();
  path_.clear();
  demo_ = false;
  currentMethod_ = -1;
  dataflows_.clear();
  emit programChanged();
  emit currentMethodChanged(-1);
}

QString Document::displayName() const {
  if (!loaded_) return QString();
  if (demo_) return tr("demo program");
  return QFileInfo(path_).fileName();
}

int Document::methodCount() const { return loaded_ ? int(loaded_->program.methods().size()) : 0; }

const program::Method* Document::currentMethod() const {
  if (!loaded_ || currentMethod_ < 0 || currentMethod_ >= methodCount()) return nullptr;
  return &loaded_->program.methods()[size_t(currentMethod_)];
}

void Document::setCurrentMethod(int index) {
  if (index == currentMethod_ || index < 0 || index >= methodCount()) return;
  currentMethod_ = index;
  emit currentMethodChanged(index);
}

const analysis::Dataflow* Document::currentDataflow() const {
  const program::Method* method = currentMethod();
  if (method == nullptr) return nullptr;
  auto& slot = dataflows_[size_t(currentMethod_)];
  if (!slot) slot = analysis::Dataflow::build(*method);
  return &*slot;
}

}  // namespace ptescope::ui
