#include "ui/profile/ProfileDialog.h"

#include <QResizeEvent>

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSettings>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <climits>
#include <utility>

#include "analysis/Summary.h"
#include "exec/DeviceRuntime.h"
#include "runner/ExternalRunner.h"
#include "ui/common/AccessibleNames.h"
#include "ui/common/MemoryBudgetSetting.h"
#include "util/Utf8.h"

namespace ptescope::ui {
namespace {

// What this machine offers, asked once: creating a CUDA context takes a
// moment and the answer does not change while the app runs.
struct RuntimeFacts {
  bool gpu = false;
  QString gpuName;   // DeviceRuntime::name() of the CUDA runtime
  QString whyNoGpu;  // why CUDA cannot be used here, without the "cannot use" prefix
  QString notice;    // RuntimeSelection::notice of Auto, in full
};

const RuntimeFacts& runtimeFacts() {
  static const RuntimeFacts facts = [] {
    RuntimeFacts f;
    auto automatic = exec::selectRuntime(exec::RuntimePreference::Auto);
    if (automatic && !automatic->runtime->isEmulated()) {
      f.gpu = true;
      f.gpuName = QString::fromStdString(automatic->runtime->name());
      return f;
    }
    if (automatic) f.notice = QString::fromStdString(automatic->notice);
    // Auto's notice explains the fallback at length; the Cuda choice's error
    // is the reason alone, which fits on the line under the chooser.
    auto cuda = exec::selectRuntime(exec::RuntimePreference::Cuda);
    QString why = cuda ? QString() : QString::fromStdString(cuda.error().message);
    const QString prefix = QStringLiteral("cannot use the CUDA runtime: ");
    if (why.startsWith(prefix)) why = why.mid(prefix.size());
    f.whyNoGpu = why.isEmpty() ? f.notice : why;
    return f;
  }();
  return facts;
}

QLabel* hintLabel(const QString& text) {
  auto* label = new QLabel(text);
  label->setWordWrap(true);
  label->setForegroundRole(QPalette::PlaceholderText);
  return label;
}

}  // namespace

QString ProfileDialog::automaticRuntimeText() {
  const RuntimeFacts& facts = runtimeFacts();
  if (facts.gpu) return tr("Automatic uses the GPU here: %1.").arg(facts.gpuName);
  return tr("Automatic uses host emulation here, no GPU: %1.").arg(facts.whyNoGpu);
}

ProfileDialog::ProfileDialog(const program::Program& program, int currentMethod, QWidget* parent)
    : QDialog(parent),
      method_(new QComboBox),
      runtime_(new QComboBox),
      runtimeInfo_(new QLabel),
      iterations_(new QSpinBox),
      warmup_(new QSpinBox),
      pageable_(new QRadioButton(tr("Pageable"))),
      pinned_(new QRadioButton(tr("Pinned (page-locked)"))),
      measurePeak_(new QCheckBox(tr("Measure the link peak first (one large copy each way)"))),
      cudaGraph_(new QCheckBox),
      randomInputs_(new QRadioButton(tr("Random values, seed"))),
      seed_(new QSpinBox),
      folderInputs_(new QRadioButton(tr("From folder"))),
      folder_(new QLineEdit),
      browse_(new QPushButton(tr("Browse..."))),
      memoryBudget_(new QLineEdit),
      error_(new QLabel),
      runnerBox_(new QWidget),
      runnerPath_(new QLineEdit),
      chooseRunner_(new QPushButton(tr("C&hoose..."))),
      runnerStatus_(new QLabel),
      compareWithLoaded_(new QCheckBox(tr("Compare with as &loaded (runs the program as loaded too)"))),
      runnerTimeout_(new QSpinBox) {
  setObjectName("profileDialog");
  setWindowTitle(tr("Profile transfers"));

  method_->setObjectName("method");
  const auto& methods = program.methods();
  for (size_t m = 0; m < methods.size(); ++m) {
    const auto summary = analysis::summarizeMethod(methods[m]);
    const size_t copies = summary.h2d_copies + summary.d2h_copies;
    method_->addItem(tr("%1  (copies: %2 h2d, %3 d2h)")
                         .arg(QString::fromStdString(methods[m].displayName()), QString::number(summary.h2d_copies),
                              QString::number(summary.d2h_copies)),
                     int(m));
    if (copies == 0) method_->setItemData(int(m), tr("This method makes no host-device copies"), Qt::ToolTipRole);
  }
  if (currentMethod >= 0 && currentMethod < method_->count()) method_->setCurrentIndex(currentMethod);

  runtime_->setObjectName("runtime");
  for (auto preference : {exec::RuntimePreference::Auto, exec::RuntimePreference::Cuda, exec::RuntimePreference::Host})
    runtime_->addItem(runtimePreferenceText(preference), int(preference));
  runtime_->addItem(tr("ExecuTorch runner\u2026"), kRunnerChoice);
  runtime_->setItemData(runtime_->count() - 1,
                        tr("Your own ExecuTorch runner (upstream's executor_runner built with the event tracer) runs "
                           "the program as shown; its ETDump fills the profile views"),
                        Qt::ToolTipRole);
  runtimeInfo_->setObjectName("runtimeInfo");
  runtimeInfo_->setWordWrap(true);
  runtimeInfo_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  connect(runtime_, &QComboBox::currentIndexChanged, this, &ProfileDialog::updateRuntimeInfo);

  iterations_->setObjectName("iterations");
  iterations_->setRange(1, kMaxIterations);
  iterations_->setValue(20);
  iterations_->setSuffix(tr(" runs"));
  warmup_->setObjectName("warmup");
  warmup_->setRange(0, kMaxWarmup);
  warmup_->setValue(3);
  warmup_->setSuffix(tr(" runs"));
  warmup_->setToolTip(tr("Runs before measuring: the first transfers pay for lazy set-up that later ones do not"));

  pageable_->setObjectName("hostPageable");
  pageable_->setToolTip(tr("CPU arenas in pageable memory, as ExecuTorch's Module allocates them; the driver stages "
                           "copies through a pinned bounce buffer"));
  pinned_->setObjectName("hostPinned");
  pinned_->setToolTip(tr("CPU arenas in page-locked memory: copies run by DMA at link speed"));
  auto* hostGroup = new QButtonGroup(this);
  hostGroup->addButton(pageable_);
  hostGroup->addButton(pinned_);
  pageable_->setChecked(true);
  auto* hostRow = new QHBoxLayout;
  hostRow->addWidget(pageable_);
  hostRow->addWidget(pinned_);
  hostRow->addStretch(1);

  measurePeak_->setObjectName("measurePeak");
  measurePeak_->setChecked(true);
  measurePeak_->setToolTip(tr("Each copy is then shown as a share of the best bandwidth the link reached"));

  cudaGraph_->setObjectName("cudaGraph");
  cudaGraph_->setToolTip(tr("CudaBackend's enable_cuda_graph_for_method for the chosen method, as --cuda-graph and the "
                            "toggle beside the link in the Transfers panel (one setting): each call copies every input "
                            "into the graph's static buffers and every output back (cuda_backend.cpp 573-610); the "
                            "profile times those copies inside the delegates"));
  for (const auto& m : program.methods()) methodNames_.push_back(m.displayName());
  // The toggle follows the chosen method.
  connect(method_, &QComboBox::currentIndexChanged, this, &ProfileDialog::showCudaGraph);
  connect(cudaGraph_, &QCheckBox::toggled, this, [this](bool on) {
    const std::string name = chosenMethodName();
    if (name.empty()) return;
    if (on)
      cudaGraphMethods_.insert(name);
    else
      cudaGraphMethods_.erase(name);
  });

  randomInputs_->setObjectName("inputsRandom");
  seed_->setObjectName("seed");
  seed_->setAccessibleName(tr("Random seed"));
  seed_->setRange(0, INT_MAX);
  folderInputs_->setObjectName("inputsFolder");
  folder_->setObjectName("inputFolder");
  folder_->setAccessibleName(tr("Input folder"));
  folder_->setPlaceholderText(tr("Folder with one file per method input"));
  folder_->setClearButtonEnabled(true);
  browse_->setObjectName("browseInputs");
  auto* inputsGroup = new QButtonGroup(this);
  inputsGroup->addButton(randomInputs_);
  inputsGroup->addButton(folderInputs_);
  randomInputs_->setChecked(true);
  connect(randomInputs_, &QRadioButton::toggled, this, &ProfileDialog::updateInputControls);
  connect(browse_, &QPushButton::clicked, this, &ProfileDialog::browseInputFolder);
  connect(folder_, &QLineEdit::textChanged, error_, &QLabel::clear);
  auto* randomRow = new QHBoxLayout;
  randomRow->addWidget(randomInputs_);
  randomRow->addWidget(seed_);
  randomRow->addStretch(1);
  auto* folderRow = new QHBoxLayout;
  folderRow->addWidget(folderInputs_);
  folderRow->addWidget(folder_, 1);
  folderRow->addWidget(browse_);
  auto* inputsBox = new QVBoxLayout;
  inputsBox->setSpacing(4);
  inputsBox->addLayout(randomRow);
  inputsBox->addLayout(folderRow);
  inputsBox->addWidget(hintLabel(tr("Input i is read from i.npy, input_i.npy, i.bin or i.raw (as with "
                                    "ptescope-cli profile --inputs); a .npy must have the input's dtype and shape.")));

  // The budget is the app's one setting (Run Once uses it too), shown here.
  memoryBudget_->setAccessibleName(tr("Memory budget"));
  memoryBudget_->setObjectName("memoryBudget");
  memoryBudget_->setPlaceholderText(tr("default: %1").arg(defaultMemoryBudgetText()));
  memoryBudget_->setClearButtonEnabled(true);
  memoryBudget_->setText(memoryBudgetFieldText(ui::memoryBudget()));
  memoryBudget_->setToolTip(tr("The most host memory a run may allocate (512M, 8G, ...); a method that declares more "
                               "is refused before anything is allocated. Empty: half of what is available."));
  connect(memoryBudget_, &QLineEdit::textChanged, error_, &QLabel::clear);
  auto* budgetBox = new QVBoxLayout;
  budgetBox->setSpacing(2);
  budgetBox->addWidget(memoryBudget_);
  budgetBox->addWidget(hintLabel(tr("Also used by Run Once. Empty: the default, half of the memory available, so "
                                    "a corrupt size cannot push the machine into swap.")));
  auto* budgetLabel = new QLabel(tr("Memory &budget:"));
  budgetLabel->setBuddy(memoryBudget_);

  // The runner: a path (or a name on PATH), checked when chosen, remembered once it passed.
  runnerPath_->setObjectName("runnerPath");
  runnerPath_->setAccessibleName(tr("ExecuTorch runner"));
  runnerPath_->setPlaceholderText(tr("executor_runner built with the event tracer (a path, or a name on PATH)"));
  runnerPath_->setClearButtonEnabled(true);
  runnerPath_->setText(QSettings().value(kRunnerSetting).toString());
  chooseRunner_->setObjectName("chooseRunner");
  runnerStatus_->setObjectName("runnerStatus");
  runnerStatus_->setAccessibleDescription(tr("Runner check"));  // the name stays the text (tests/e2e contract)
  runnerStatus_->setWordWrap(true);
  runnerStatus_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  compareWithLoaded_->setObjectName("compareWithLoaded");
  compareWithLoaded_->setToolTip(tr("The program as loaded runs first: the Transfers panel's compare columns then "
                                    "show what the edits change on the runner, next to the predicted saving, and "
                                    "both runs' outputs are compared"));
  connect(runnerPath_, &QLineEdit::editingFinished, this, &ProfileDialog::checkRunner);
  connect(runnerPath_, &QLineEdit::textChanged, this, [this] {
    error_->clear();
    acceptWhenChecked_ = false;
    if (runnerPath_->text().trimmed() != checkedRunnerText_) runnerStatus_->clear();
  });
  connect(chooseRunner_, &QPushButton::clicked, this, &ProfileDialog::chooseRunnerFile);
  auto* runnerRow = new QHBoxLayout;
  runnerRow->setContentsMargins(0, 0, 0, 0);
  runnerRow->addWidget(runnerPath_, 1);
  runnerRow->addWidget(chooseRunner_);
  // A runner that hangs (a deadlocked backend, a device that never answers)
  // is stopped after this; a long model needs more than the default.
  runnerTimeout_->setObjectName("runnerTimeout");
  runnerTimeout_->setAccessibleName(tr("Stop the runner after (seconds)"));
  runnerTimeout_->setRange(1, 7 * 24 * 3600);
  runnerTimeout_->setSuffix(tr(" s"));
  runnerTimeout_->setValue(int(ProfileRequest{}.runnerTimeoutSeconds));
  runnerTimeout_->setToolTip(tr("Each run of the runner (the program as loaded, then as shown) is stopped after this "
                                "long, its whole process group killed, and the profile fails saying so"));
  auto* timeoutLabel = new QLabel(tr("S&top the runner after"));
  timeoutLabel->setBuddy(runnerTimeout_);
  auto* timeoutRow = new QHBoxLayout;
  timeoutRow->setContentsMargins(0, 0, 0, 0);
  timeoutRow->addWidget(timeoutLabel);
  timeoutRow->addWidget(runnerTimeout_);
  timeoutRow->addStretch(1);
  auto* runnerLayout = new QVBoxLayout(runnerBox_);
  runnerLayout->setContentsMargins(0, 0, 0, 0);
  runnerLayout->setSpacing(2);
  runnerLayout->addLayout(runnerRow);
  runnerLayout->addWidget(runnerStatus_);
  runnerLayout->addWidget(compareWithLoaded_);
  runnerLayout->addLayout(timeoutRow);

  error_->setObjectName("profileError");
  error_->setWordWrap(true);
  error_->setStyleSheet("QLabel { color: #b00020; }");

  auto* form = new QFormLayout;
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
  form->addRow(tr("&Method:"), method_);
  // The explanation sits in the same field as the chooser: a word-wrapped
  // label on a row of its own gets a height for a narrower width than it has.
  auto* runtimeBox = new QVBoxLayout;
  runtimeBox->setSpacing(2);
  runtimeBox->addWidget(runtime_);
  runtimeBox->addWidget(runtimeInfo_);
  runtimeBox->addWidget(runnerBox_);
  auto* runtimeLabel = new QLabel(tr("&Runtime:"));
  runtimeLabel->setBuddy(runtime_);  // a layout as the field gets no buddy of its own
  form->addRow(runtimeLabel, runtimeBox);
  form->addRow(tr("&Iterations:"), iterations_);
  form->addRow(tr("&Warm-up:"), warmup_);
  form->addRow(tr("Host memory:"), hostRow);
  form->addRow(QString(), measurePeak_);
  // Named as the toggle beside the link is (one setting, "CUDA graph replay
  // in forward"), what it does in its tooltip: with that in its text it ran
  // past the dialog's right edge at 1000×700 (a dialog gets 2/3 of the screen).
  form->addRow(QString(), cudaGraph_);
  form->addRow(tr("Inputs:"), inputsBox);
  form->addRow(budgetLabel, budgetBox);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  buttons->setObjectName("buttons");
  QPushButton* ok = buttons->button(QDialogButtonBox::Ok);
  ok->setObjectName("startProfile");
  ok->setText(tr("&Profile"));
  buttons->button(QDialogButtonBox::Cancel)->setObjectName("cancelProfile");
  connect(buttons, &QDialogButtonBox::accepted, this, &ProfileDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &ProfileDialog::reject);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(hintLabel(tr("Runs the method repeatedly, warm-up runs first and then the measured iterations, and "
                                 "times every host-device copy it makes.")));
  layout->addLayout(form);
  layout->addWidget(error_);
  layout->addStretch(1);
  layout->addWidget(buttons);

  updateRuntimeInfo();
  updateInputControls();
  showCudaGraph();
  setMinimumWidth(560);
}

ProfileRequest ProfileDialog::request() const {
  ProfileRequest r;
  r.method = method_->currentData().toInt();
  if (runnerChosen()) {
    r.runner = runner_;
    r.compareWithLoaded = compareWithLoaded_->isChecked();
    r.runnerTimeoutSeconds = runnerTimeout_->value();
  } else {
    r.runtime = exec::RuntimePreference(runtime_->currentData().toInt());
  }
  r.iterations = size_t(iterations_->value());
  r.warmup = size_t(warmup_->value());
  r.hostMemory = pinned_->isChecked() ? exec::HostMemoryKind::Pinned : exec::HostMemoryKind::Pageable;
  r.measurePeak = measurePeak_->isChecked();
  r.cudaGraphMethods = cudaGraphMethods_;
  r.seed = uint64_t(seed_->value());
  if (folderInputs_->isChecked()) r.inputDirectory = folder_->text().trimmed();
  if (!parseMemoryBudget(memoryBudget_->text(), r.maxMemory)) r.maxMemory = 0;  // refused by accept()
  return r;
}

void ProfileDialog::setRequest(const ProfileRequest& request) {
  if (request.method >= 0 && request.method < method_->count()) method_->setCurrentIndex(request.method);
  compareWithLoaded_->setChecked(request.compareWithLoaded);
  runnerTimeout_->setValue(int(std::clamp<double>(request.runnerTimeoutSeconds, runnerTimeout_->minimum(),
                                                  runnerTimeout_->maximum())));
  if (!request.runner.isEmpty()) runnerPath_->setText(request.runner);
  runtime_->setCurrentIndex(
      std::max(0, runtime_->findData(request.runner.isEmpty() ? int(request.runtime) : kRunnerChoice)));
  iterations_->setValue(int(std::clamp<size_t>(request.iterations, 1, kMaxIterations)));
  warmup_->setValue(int(std::min<size_t>(request.warmup, kMaxWarmup)));
  (request.hostMemory == exec::HostMemoryKind::Pinned ? pinned_ : pageable_)->setChecked(true);
  measurePeak_->setChecked(request.measurePeak);
  cudaGraphMethods_ = request.cudaGraphMethods;
  showCudaGraph();
  seed_->setValue(int(std::min<uint64_t>(request.seed, uint64_t(INT_MAX))));
  // The folder is remembered even when random inputs are chosen, so that
  // switching back does not mean browsing again.
  if (!request.inputDirectory.isEmpty()) folder_->setText(request.inputDirectory);
  (request.inputDirectory.isEmpty() ? randomInputs_ : folderInputs_)->setChecked(true);
  memoryBudget_->setText(memoryBudgetFieldText(request.maxMemory));
  error_->clear();
  checkRunner();  // when the runner is chosen and its path not checked yet
}

std::string ProfileDialog::chosenMethodName() const {
  const int m = method_->currentData().toInt();
  return m >= 0 && size_t(m) < methodNames_.size() ? methodNames_[size_t(m)] : std::string();
}

void ProfileDialog::showEvent(QShowEvent* event) {
  QDialog::showEvent(event);
  // A dialog gets at most 2/3 of the screen's width, less than its size
  // hint at 1000 px: its wrapped hints then need more lines than the height
  // it was given has room for (the inputs' hint ran under Memory budget).
  layout()->activate();
  const int needed = layout()->totalHeightForWidth(width());
  if (needed > height()) resize(width(), needed);
}

void ProfileDialog::resizeEvent(QResizeEvent* event) {
  QDialog::resizeEvent(event);
  // Again at each width the window manager or the user gives it: placed at
  // 820 px after it was shown, the inputs' hint was cut to half its two
  // lines (walkthrough 23). Its height never goes below what its wrapped
  // texts need at this width.
  if (layout() == nullptr || !layout()->hasHeightForWidth()) return;
  const int needed = layout()->totalHeightForWidth(event->size().width());
  if (needed != minimumHeight()) setMinimumHeight(needed);
}

void ProfileDialog::showCudaGraph() {
  const QSignalBlocker block(cudaGraph_);  // shown, not toggled
  const QString method = QString::fromStdString(chosenMethodName());
  cudaGraph_->setText(method.isEmpty() ? tr("CUDA graph replay") : tr("CUDA graph replay in %1").arg(mnemonicSafe(method)));
  cudaGraph_->setChecked(cudaGraphMethods_.count(chosenMethodName()) > 0);
}

QString ProfileDialog::validationError() const {
  if (method_->count() == 0) return tr("The program has no method to profile.");
  if (runnerChosen()) {
    if (runnerPath_->text().trimmed().isEmpty())
      return tr("Name your ExecuTorch runner (upstream's executor_runner built with the event tracer), or choose "
                "another runtime.");
    if (runnerCheck_.running() || runnerPath_->text().trimmed() != checkedRunnerText_)
      return tr("The runner is being checked.");
    if (!runnerError_.isEmpty()) return runnerError_;
  }
  if (uint64_t bytes = 0; !parseMemoryBudget(memoryBudget_->text(), bytes))
    return tr("Memory budget: '%1' is not a size (512M, 8G, ...); leave it empty for the default.")
        .arg(memoryBudget_->text().trimmed());
  if (!folderInputs_->isChecked()) return QString();
  const QString folder = folder_->text().trimmed();
  if (folder.isEmpty()) return tr("Choose the folder of input files, or use random inputs.");
  if (!QFileInfo(folder).isDir()) return tr("%1 is not a folder.").arg(QDir::toNativeSeparators(folder));
  return QString();
}

void ProfileDialog::accept() {
  // Profile pressed before the runner's check ended: accept when it passes.
  if (runnerChosen() && !runnerPath_->text().trimmed().isEmpty() &&
      (runnerCheck_.running() || runnerPath_->text().trimmed() != checkedRunnerText_)) {
    acceptWhenChecked_ = true;
    error_->setText(tr("Checking the runner\u2026"));
    if (!runnerCheck_.running()) checkRunner();
    return;
  }
  const QString error = validationError();
  error_->setText(error);
  if (!error.isEmpty()) return;
  setMemoryBudget(request().maxMemory);
  QDialog::accept();
}

bool ProfileDialog::runnerChosen() const { return runtime_->currentData().toInt() == kRunnerChoice; }

void ProfileDialog::chooseRunnerFile() {
  const QString start = runnerPath_->text().trimmed();
  const QString file = QFileDialog::getOpenFileName(this, tr("ExecuTorch runner"), start.contains('/') ? start : QString());
  if (file.isEmpty()) return;
  runnerPath_->setText(file);
  checkRunner();
}

void ProfileDialog::checkRunner() {
  const QString text = runnerPath_->text().trimmed();
  if (!runnerChosen() || text.isEmpty()) return;
  if (text == checkedRunnerText_ && (runnerCheck_.running() || !runner_.isEmpty() || !runnerError_.isEmpty())) return;
  checkedRunnerText_ = text;
  runner_.clear();
  runnerError_.clear();
  // A name without '/' is found on PATH first (as a shell would), at once.
  auto resolved = runner::findOnPath(text.toStdString());
  if (!resolved) {
    finishRunnerCheck(QString(), QString::fromStdString(resolved.error().message));
    return;
  }
  runnerStatus_->setStyleSheet(QString());
  runnerStatus_->setText(tr("Checking %1\u2026").arg(QString::fromStdString(resolved.value())));
  const std::string path = resolved.value();
  runnerCheck_.start<QString>(
      [path](const CancelFlag& cancel) {
        // Cancelled when the dialog goes or another path is checked: the job slot then waits for nothing.
        auto status = runner::checkRunner(path, 10, [cancel] { return cancel->load(std::memory_order_relaxed); });
        return status ? QString() : QString::fromStdString(printableLine(status.error().message));
      },
      [this, path](QString error) { finishRunnerCheck(QString::fromStdString(path), error); });
}

void ProfileDialog::finishRunnerCheck(const QString& resolved, const QString& error) {
  runnerError_ = error;
  runner_ = error.isEmpty() ? resolved : QString();
  if (error.isEmpty()) {
    QSettings().setValue(kRunnerSetting, resolved);
    runnerStatus_->setStyleSheet(QString());
    runnerStatus_->setText(tr("%1: an ExecuTorch runner with the event tracer (--etdump_path)").arg(resolved));
  } else {
    runnerStatus_->setStyleSheet("QLabel { color: #b00020; }");
    runnerStatus_->setText(error);
  }
  emit runnerChecked();
  if (std::exchange(acceptWhenChecked_, false)) accept();
}

void ProfileDialog::updateRuntimeInfo() {
  const RuntimeFacts& facts = runtimeFacts();
  // The runner decides how it runs the program: warm-up, host memory and
  // the link peak are ptescope's runtime's choices only.
  const bool runner = runnerChosen();
  if (runnerBox_->isVisibleTo(this) != runner) {
    runnerBox_->setVisible(runner);
    // A dialog on screen does not grow by itself: the runner's rows would squeeze the others.
    if (isVisible()) {
      layout()->activate();
      resize(width(), std::max(height(), sizeHint().height()));
    }
  }
  for (QWidget* w : std::initializer_list<QWidget*>{warmup_, pageable_, pinned_, measurePeak_}) w->setEnabled(!runner);
  error_->clear();
  if (runner) {
    runtimeInfo_->setText(tr("Runs your ExecuTorch runner on the program as shown (edits included), written to a "
                             "private folder; its ETDump's host-clock times fill the profile views."));
    runtimeInfo_->setStyleSheet(QString());
    runtimeInfo_->setToolTip(QString());
    if (runnerPath_->text().trimmed().isEmpty()) runnerPath_->setFocus();
    checkRunner();
    return;
  }
  QString text;
  switch (exec::RuntimePreference(runtime_->currentData().toInt())) {
    case exec::RuntimePreference::Auto:
      text = automaticRuntimeText();
      break;
    case exec::RuntimePreference::Cuda:
      text = facts.gpu ? tr("Runs on %1.").arg(facts.gpuName)
                       : tr("No usable CUDA device here, the run will fail: %1.").arg(facts.whyNoGpu);
      break;
    case exec::RuntimePreference::Host:
      text = tr("Emulation: device memory lives in host memory and copies are timed memcpy, so the numbers describe "
                "this machine's memory, not a GPU link.");
      break;
  }
  // Emulated numbers must not pass for GPU numbers, and a run bound to fail
  // should not look like a detail: both stand out.
  const auto choice = exec::RuntimePreference(runtime_->currentData().toInt());
  QString color;
  if (choice == exec::RuntimePreference::Cuda && !facts.gpu) color = QStringLiteral("#b00020");
  else if (choice == exec::RuntimePreference::Host || !facts.gpu) color = QStringLiteral("#8a4b00");
  runtimeInfo_->setText(text);
  runtimeInfo_->setStyleSheet(color.isEmpty() ? QString() : QStringLiteral("QLabel { color: %1; }").arg(color));
  runtimeInfo_->setToolTip(runtimeFacts().notice);
}

void ProfileDialog::updateInputControls() {
  const bool fromFolder = folderInputs_->isChecked();
  seed_->setEnabled(!fromFolder);
  folder_->setEnabled(fromFolder);
  browse_->setEnabled(fromFolder);
  error_->clear();
}

void ProfileDialog::browseInputFolder() {
  const QString folder = QFileDialog::getExistingDirectory(this, tr("Folder of input files"), folder_->text());
  if (!folder.isEmpty()) folder_->setText(folder);
}

}  // namespace ptescope::ui
