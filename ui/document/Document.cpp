#include "ui/document/Document.h"

#include "passes/ExplainEdits.h"

#include "report/PassReportChanges.h"

#include <QCoreApplication>
#include <QFile>
#include <QDir>
#include <QFileInfo>
#include <QUndoStack>

#include "pte/DataWriter.h"
#include "pte/Writer.h"
#include "ui/common/Format.h"
#include "util/MappedFile.h"
#include "report/PassReportChanges.h"
#include "report/Json.h"
#include "report/PassReportWriter.h"
#include "synth/JsonSpec.h"
#include "synth/Scenarios.h"

namespace ptescope::ui {
using namespace ptescope::program;

namespace {

// Above this many instructions the pipeline runs off the UI thread.
constexpr size_t kBackgroundPipelineInstructions = 5000;

size_t instructionCount(const Program& program) {
  size_t n = 0;
  for (const auto& m : program.methods())
    for (const auto& c : items(m.chains)) n += items(c.instructions).size();
  return n;
}

class EditCommand : public QUndoCommand {
 public:
  EditCommand(Document* document, passes::ProgramEdits before, passes::ProgramEdits after, const QString& text)
      : QUndoCommand(text), document_(document), before_(std::move(before)), after_(std::move(after)) {}
  void redo() override { document_->applyEdits(after_); }
  void undo() override { document_->applyEdits(before_); }

 private:
  Document* document_;
  passes::ProgramEdits before_, after_;
};

QString optionsText(const passes::DeviceOptions& before, const passes::DeviceOptions& after) {
  QStringList changes;
  auto add = [&](bool b, bool a, const char* name) {
    if (a != b) changes << QString("%1 %2").arg(a ? "enable" : "disable", name);
  };
  add(before.enable_non_cpu_memory_planning, after.enable_non_cpu_memory_planning, "device planning");
  add(before.skip_h2d_for_method_inputs, after.skip_h2d_for_method_inputs, "skip h2d for inputs");
  add(before.skip_d2h_for_method_outputs, after.skip_d2h_for_method_outputs, "skip d2h for outputs");
  add(before.alloc_graph_input, after.alloc_graph_input, "planned graph inputs");
  add(before.alloc_graph_output, after.alloc_graph_output, "planned graph outputs");
  return changes.join(", ");
}

}  // namespace

Document::Document(QObject* parent)
    : QObject(parent), undo_(new QUndoStack(this)) {}

Document::~Document() = default;

void Document::install(std::shared_ptr<const pte::LoadedProgram> loaded, const QString& path, bool demo,
                       bool keepHistory) {
  pipelineJob_.cancel();
  loaded_ = std::move(loaded);
  current_ = std::shared_ptr<const Program>(loaded_, &loaded_->program);
  path_ = path;
  demo_ = demo;
  fileOptions_.clear();
  fileOptions_ = passes::fileOptions(loaded_->program);
  edits_ = {};
  savedEdits_ = {};
  savedPath_.clear();
  report_.reset();
  pipelineError_.clear();
  if (!keepHistory) undo_->clear();
  resetDerived();
  currentMethod_ = loaded_->program.methods().empty() ? -1 : 0;
  // Open on "forward" when there is one: it is what users look at first.
  for (size_t m = 0; m < loaded_->program.methods().size(); ++m)
    if (loaded_->program.methods()[m].name.value_or("") == "forward") currentMethod_ = int(m);
  emit programChanged();
  emit editsChanged();
}

void Document::resetDerived() {
  dataflows_.assign(current_ ? current_->methods().size() : 0, std::nullopt);
  changes_.assign(dataflows_.size(), nullptr);
}

std::shared_ptr<const program::Program> Document::loadedSnapshot() const {
  if (!loaded_) return nullptr;
  // Shares ownership of the loaded program's holder.
  return std::shared_ptr<const program::Program>(loaded_, &loaded_->program);
}

std::shared_ptr<const layout::MethodChanges> Document::methodChanges(int method) const {
  if (!current_ || method < 0 || size_t(method) >= changes_.size()) return nullptr;
  auto& slot = changes_[size_t(method)];
  if (slot) return slot;
  auto changes = std::make_shared<layout::MethodChanges>();
  // The pipeline reports the methods in program order (names may repeat).
  if (report_ && size_t(method) < report_->methods.size()) {
    const auto& currentMethod = current_->methods()[size_t(method)];
    std::optional<analysis::Dataflow> built;
    const analysis::Dataflow* flow = method == currentMethod_ ? currentDataflow() : nullptr;
    if (flow == nullptr) flow = &built.emplace(analysis::Dataflow::build(currentMethod));
    *changes = report::methodChanges(report_->methods[size_t(method)], loaded_->program.methods()[size_t(method)],
                                     currentMethod, *flow);
  }
  slot = changes;
  return slot;
}

QStringList Document::unchangedReasons(int method) const {
  QStringList reasons;
  if (!loaded_ || method < 0 || method >= methodCount() || pipelineRunning() || !pipelineError_.isEmpty()) return reasons;
  const auto changes = methodChanges(method);
  if (!changes || !changes->empty()) return reasons;
  for (const auto& text : passes::explainUnchangedOptions(loaded_->program.methods()[size_t(method)], fileOptions(method),
                                                          methodOptions(method)))
    reasons << QString::fromStdString(text);
  return reasons;
}

bool Document::open(const QString& path, QString* error) { return load(path, false, error); }

bool Document::load(const QString& path, bool keepHistory, QString* error) {
  auto loaded = pte::readProgramFile(path.toStdString());
  if (!loaded) {
    const QString message = QString::fromStdString(loaded.error().message);
    if (error != nullptr) *error = message;
    emit loadFailed(message);
    return false;
  }
  install(std::make_shared<const pte::LoadedProgram>(std::move(loaded.value())), path, false, keepHistory);
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
  // Its data file (aoti_cuda_blob.ptd, the CUDA delegates' weights) stays in memory.
  pte::ReadOptions options;
  options.external_data = result->external_data;
  auto reread = pte::readProgramBytes(Bytes::fromVector(std::move(bytes.value())), "demo", options);
  if (!reread) return fail(reread.error().message);
  auto loaded = std::make_shared<pte::LoadedProgram>(std::move(reread.value()));
  loaded->file.path = "demo (built in)";
  install(std::move(loaded), QString(), true);
  return true;
}

bool Document::reload(QString* error) {
  const int method = currentMethod_;
  const passes::ProgramEdits edits = edits_;
  const passes::ProgramEdits savedEdits = savedEdits_;
  const QString savedPath = savedPath_;
  // The undo stack stays: its commands hold whole edit states (keyed by
  // method name and delegate index), so they apply to the new file as they
  // did to the old one, and nothing the user did is lost by a reload.
  const bool ok = (demo_ || path_.isEmpty()) ? openDemo(error) : load(path_, true, error);
  if (!ok) return false;
  savedEdits_ = savedEdits;
  savedPath_ = savedPath;
  if (method >= 0 && method < methodCount()) setCurrentMethod(method);
  if (!(edits == passes::ProgramEdits{})) applyEdits(edits);
  return true;
}

void Document::close() {
  pipelineJob_.cancel();
  loaded_.reset();
  current_.reset();
  path_.clear();
  demo_ = false;
  currentMethod_ = -1;
  dataflows_.clear();
  changes_.clear();
  fileOptions_.clear();
  edits_ = {};
  savedEdits_ = {};
  savedPath_.clear();
  report_.reset();
  undo_->clear();
  emit programChanged();
  emit editsChanged();
}

QString Document::displayName() const {
  if (!loaded_) return QString();
  // Shown in titles and messages: one line (a line break as \x0A).
  if (!savedPath_.isEmpty()) return printableText(QFileInfo(savedPath_).fileName());
  if (demo_) return tr("demo program");
  return printableText(QFileInfo(path_).fileName());
}

int Document::methodCount() const { return current_ ? int(current_->methods().size()) : 0; }

const Method* Document::currentMethod() const {
  if (!current_ || currentMethod_ < 0 || currentMethod_ >= methodCount()) return nullptr;
  return &current_->methods()[size_t(currentMethod_)];
}

void Document::setCurrentMethod(int index) {
  if (index == currentMethod_ || index < 0 || index >= methodCount()) return;
  currentMethod_ = index;
  emit currentMethodChanged(index);
}

const analysis::Dataflow* Document::currentDataflow() const {
  const Method* method = currentMethod();
  if (method == nullptr) return nullptr;
  auto& slot = dataflows_[size_t(currentMethod_)];
  if (!slot) slot = analysis::Dataflow::build(*method);
  return &*slot;
}

passes::DeviceOptions Document::fileOptions(int method) const {
  return method >= 0 && size_t(method) < fileOptions_.size() ? fileOptions_[size_t(method)] : passes::DeviceOptions{};
}

passes::DeviceOptions Document::methodOptions(int method) const {
  if (!loaded_ || method < 0 || method >= int(loaded_->program.methods().size())) return {};
  auto it = edits_.options.find(loaded_->program.methods()[size_t(method)].displayName());
  return it == edits_.options.end() ? fileOptions(method) : it->second;
}

std::optional<Device> Document::delegateTarget(int method, int delegate) const {
  if (!loaded_ || method < 0 || method >= int(loaded_->program.methods().size())) return std::nullopt;
  const Method& m = loaded_->program.methods()[size_t(method)];
  auto it = edits_.target_devices.find({m.displayName(), delegate});
  if (it != edits_.target_devices.end()) return it->second;
  const auto& delegates = items(m.delegates);
  if (delegate < 0 || size_t(delegate) >= delegates.size()) return std::nullopt;
  auto parsed = passes::delegateTargetDevice(delegates[size_t(delegate)]);
  return parsed ? parsed.value() : std::nullopt;
}

void Document::setMethodOptions(int method, const passes::DeviceOptions& options) {
  if (!loaded_ || method < 0 || method >= int(loaded_->program.methods().size())) return;
  const passes::DeviceOptions before = methodOptions(method);
  if (before == options) return;
  const std::string name = loaded_->program.methods()[size_t(method)].displayName();
  passes::ProgramEdits after = edits_;
  if (options == fileOptions(method)) {
    after.options.erase(name);
  } else {
    after.options[name] = options;
  }
  undo_->push(new EditCommand(this, edits_, after,
                              tr("%1 in '%2'").arg(optionsText(before, options), QString::fromStdString(name))));
}

void Document::setDelegateTarget(int method, int delegate, const std::optional<Device>& device) {
  if (!loaded_ || method < 0 || method >= int(loaded_->program.methods().size())) return;
  const Method& m = loaded_->program.methods()[size_t(method)];
  if (delegate < 0 || size_t(delegate) >= items(m.delegates).size()) return;
  if (delegateTarget(method, delegate) == device) return;
  passes::ProgramEdits after = edits_;
  if (!passes::setTargetDevice(after, loaded_->program, m.displayName(), int32_t(delegate), device)) return;
  const QString target = device ? QString::fromStdString(device->str()) : tr("none");
  undo_->push(new EditCommand(this, edits_, after,
                              tr("set delegate %1 of '%2' to %3").arg(QString::number(delegate), QString::fromStdString(m.displayName()), target)));
}

void Document::setAllDelegateTargets(int method, const std::optional<Device>& device) {
  if (!loaded_ || method < 0 || method >= int(loaded_->program.methods().size())) return;
  const Method& m = loaded_->program.methods()[size_t(method)];
  passes::ProgramEdits after = edits_;
  int changed = 0;
  for (size_t d = 0; d < items(m.delegates).size(); ++d) {
    auto original = passes::delegateTargetDevice((*m.delegates)[d]);
    if (!original || !original.value()) continue;  // host delegates stay host delegates
    if (!passes::setTargetDevice(after, loaded_->program, m.displayName(), int32_t(d), device)) continue;
    ++changed;
  }
  if (changed == 0 || after == edits_) return;
  const QString target = device ? QString::fromStdString(device->str()) : tr("none");
  undo_->push(new EditCommand(this, edits_, after,
                              tr("set %1 of '%2' to %3").arg(countText(qint64(changed), tr("delegate")), QString::fromStdString(m.displayName()), target)));
}

void Document::pushEdits(const passes::ProgramEdits& after, const QString& text) {
  if (!loaded_ || after == edits_) return;
  undo_->push(new EditCommand(this, edits_, after, text));
}

void Document::applyEdits(const passes::ProgramEdits& edits) {
  if (!loaded_) return;
  edits_ = edits;
  emit editsChanged();
  pipelineJob_.cancel();  // a run for older edits is superseded, never waited for
  if (edits_ == passes::ProgramEdits{}) {
    finishPipeline(PipelineOutcome{std::shared_ptr<const Program>(loaded_, &loaded_->program), std::nullopt, {}});
    return;
  }
  auto options = passes::pipelineOptionsFor(loaded_->program, edits_);
  if (!options) {
    finishPipeline(PipelineOutcome{nullptr, std::nullopt, QString::fromStdString(options.error().message)});
    return;
  }
  auto work = [loaded = loaded_, options = std::move(options.value())](const CancelFlag&) {
    PipelineOutcome outcome;
    auto result = passes::runPipeline(loaded->program, options);
    if (!result) {
      outcome.error = QString::fromStdString(result.error().message);
      return outcome;
    }
    outcome.report = std::move(result->report);
    outcome.program = std::make_shared<const Program>(std::move(result->program));
    return outcome;
  };
  if (instructionCount(loaded_->program) < kBackgroundPipelineInstructions) {
    finishPipeline(work(nullptr));
    return;
  }
  emit pipelineStarted();
  pipelineJob_.start<PipelineOutcome>(std::move(work), [this](PipelineOutcome outcome) { finishPipeline(std::move(outcome)); });
}

void Document::finishPipeline(PipelineOutcome outcome) {
  if (!outcome.error.isEmpty()) {
    pipelineError_ = outcome.error;
    emit pipelineFinished(false);
    return;
  }
  pipelineError_.clear();
  current_ = std::move(outcome.program);
  report_ = std::move(outcome.report);
  resetDerived();
  if (currentMethod_ >= methodCount()) currentMethod_ = methodCount() - 1;
  // One signal per edit: a view that follows both rebuilds once.
  emit programChanged();
  emit pipelineFinished(true);
}

void Document::waitForPipeline() {
  if (pipelineJob_.running()) pipelineJob_.waitForIdle();
}

bool Document::saveAs(const QString& path, bool allowOverwriteInput, QString* error) {
  // The edits' program, not the one before them while the passes still run
  // (a big program's run is off the UI thread).
  waitForPipeline();
  if (!current_) return false;
  // The shown program is the last one the passes accepted, not the edits as
  // set: writing it would drop the refused option without a word.
  if (!pipelineError_.isEmpty()) {
    if (error != nullptr) *error = tr("Cannot save: the passes refuse the options as set (%1)").arg(pipelineError_);
    return false;
  }
  pte::WriteOptions options;
  options.input_path = demo_ ? std::string() : path_.toStdString();
  options.allow_overwrite_input = allowOverwriteInput;
  auto status = pte::writeProgramFile(*current_, path.toStdString(), options);
  if (!status) {
    if (error != nullptr) *error = QString::fromStdString(status.error().message);
    return false;
  }
  // Its .ptd goes with it (the delegates' weights): a program saved into
  // another folder was missing them there.
  saveNotes_.clear();
  for (const auto& note : pte::carryDataFiles(*current_, path.toStdString()))
    saveNotes_ << QString::fromStdString(note);
  // The window now shows the saved file, as any editor does after Save As:
  // what it watches, compares with (the diff, the options "as in the file")
  // and reloads is that file, read back as written. The undo history ends
  // here: its edits were steps from the old file.
  auto written = pte::readProgramFile(path.toStdString());
  if (!written) {
    // Written but not readable back: keep comparing with the old file.
    savedEdits_ = edits_;
    savedPath_ = path;
    emit editsChanged();
    return true;
  }
  const int method = currentMethod_;
  install(std::make_shared<const pte::LoadedProgram>(std::move(written.value())), path, false);
  if (method >= 0 && method < methodCount()) setCurrentMethod(method);
  return true;
}

bool Document::exportReport(const QString& path, QString* error) const {
  if (!loaded_) return false;
  passes::PassReport report;
  if (report_) {
    report = *report_;
  } else {
    auto unchanged = passes::runEdits(loaded_->program, edits_);
    if (!unchanged) {
      if (error) *error = QString::fromStdString(unchanged.error().message);
      return false;
    }
    report = unchanged->report;
  }
  const std::string text = report::jsonText(report::passReportJson(report)) + "\n";
  auto written = writeFileAtomically(path.toStdString(), std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  if (!written) {
    if (error) *error = QString::fromStdString(written.error().message);
    return false;
  }
  return true;
}

QString programForFile(const QString& file, QString* error) {
  QFile in(file);
  // Bytes 4-7 of a flatbuffer are its identifier: FT01 for tensor data.
  const bool isData = in.open(QIODevice::ReadOnly) && in.read(8).mid(4) == "FT01";
  if (!isData) return file;  // a program, or a file the reader will explain
  const QFileInfo info(file);
  const QString program = info.dir().filePath(info.completeBaseName() + ".pte");
  if (QFileInfo::exists(program)) return program;
  *error = file + " holds external tensor data (.ptd), not a program, and there is no " +
           QFileInfo(program).fileName() + " beside it: open the program (.pte) that uses it";
  return {};
}

}  // namespace ptescope::ui
