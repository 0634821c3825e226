#include "ui/profile/LinkSelection.h"
#include "ui/common/AccessibleNames.h"
#include "ui/common/PlainText.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QStyle>
#include <QtConcurrent>

#include <atomic>

#include "cost/LinkProbe.h"
#include "ui/common/Format.h"
#include "ui/common/ProgressTicker.h"
#include "ui/common/ViewControls.h"

namespace ptescope::ui {

struct LinkChooser::Measuring {
  std::atomic<size_t> done{0}, total{0};
  std::atomic<bool> cancel{false};
};

LinkSelection::LinkSelection(QObject* parent) : QObject(parent) {
  // What was priced on the link before is priced again on the new one.
  connect(this, &LinkSelection::changed, this, [this] { remembered_.reset(); });
  for (const auto& p : cost::builtinLinkProfiles())
    entries_.push_back(Entry{QString::fromStdString(p.title), std::make_shared<const cost::LinkProfile>(p)});
  if (entries_.empty()) {
    cost::LinkProfile none;
    none.name = "none";
    none.title = tr("no link profile").toStdString();
    entries_.push_back(Entry{tr("no link profile"), std::make_shared<const cost::LinkProfile>(none)});
  }
  selectByName(QString::fromStdString(cost::defaultLinkProfile().name));
}

void LinkSelection::setCurrentIndex(int index) {
  if (index < 0 || size_t(index) >= entries_.size() || index == current_) return;
  current_ = index;
  emit changed();
}

bool LinkSelection::selectByName(const QString& name) {
  for (size_t i = 0; i < entries_.size(); ++i)
    if (QString::fromStdString(entries_[i].profile->name) == name) {
      setCurrentIndex(int(i));
      return true;
    }
  return false;
}

void LinkSelection::setHostMemory(exec::HostMemoryKind kind) {
  if (kind == hostMemory_) return;
  hostMemory_ = kind;
  emit changed();
}

void LinkSelection::addProfile(cost::LinkProfile profile, const QString& label) {
  auto shared = std::make_shared<const cost::LinkProfile>(std::move(profile));
  for (size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i].profile->name == shared->name && entries_[i].profile->kind != "typical") {
      entries_[i] = Entry{label, shared};
      current_ = int(i);
      emit changed();
      return;
    }
  entries_.push_back(Entry{label, shared});
  current_ = int(entries_.size()) - 1;
  emit changed();
}

Status LinkSelection::loadFile(const QString& path) {
  auto profile = cost::readLinkProfileFile(path.toStdString());
  if (!profile) return profile.error();
  const QString label = tr("%1 (file %2)").arg(QString::fromStdString(profile->title.empty() ? profile->name : profile->title),
                                               QFileInfo(path).fileName());
  addProfile(std::move(profile.value()), label);
  return Ok{};
}

bool LinkSelection::cudaGraph(const QString& method) const {
  return runSettings_.cuda_graph_methods.count(method.toStdString()) > 0;
}

void LinkSelection::setCudaGraph(const QString& method, bool on) {
  if (method.isEmpty() || cudaGraph(method) == on) return;
  if (on)
    runSettings_.cuda_graph_methods.insert(method.toStdString());
  else
    runSettings_.cuda_graph_methods.erase(method.toStdString());
  emit changed();
}

void LinkSelection::clearCudaGraph() {
  if (runSettings_.cuda_graph_methods.empty()) return;
  runSettings_.cuda_graph_methods.clear();
  emit changed();
}

void LinkSelection::setShownMethod(const QString& method) {
  if (method == shownMethod_) return;
  shownMethod_ = method;
  emit shownMethodChanged();
}

QString LinkSelection::shortText() const {
  const auto& p = *link();
  return QString::fromStdString(p.title.empty() ? p.name : p.title) + ", " +
         QString::fromStdString(exec::hostMemoryKindName(hostMemory_));
}

QString LinkSelection::savingText(double before, double after) const {
  const double delta = after - before;
  const QString change = delta == 0 ? tr("no change in copy time") : signedDurationText(delta);
  // No copy time is "none", not a bare "0" ("(10.8 µs → 0)").
  const auto timeText = [](double seconds) { return seconds == 0 ? tr("none") : durationText(seconds); };
  return tr("predicted %1 per run (%2 → %3) on %4").arg(change, timeText(before), timeText(after), shortText());
}

std::optional<LinkSelection::EditPrediction> LinkSelection::predictEdit(const program::Program& loaded,
                                                                       const program::Program& edited,
                                                                       const std::string& method) const {
  const auto* a = loaded.findMethod(method);
  const auto* b = edited.findMethod(method);
  if (a == nullptr || b == nullptr || !link()) return std::nullopt;
  auto before = cost::predictMethod(loaded, *a, *link(), hostMemory_, runSettings_);
  auto after = cost::predictMethod(edited, *b, *link(), hostMemory_, runSettings_);
  if (!before || !after) return std::nullopt;
  EditPrediction p{std::move(before.value()), std::move(after.value()), {}};
  p.inside = cost::diffDelegateCopies(p.before, p.after);
  return p;
}

std::optional<LinkSelection::EditPrediction> LinkSelection::predictEdit(
    const std::shared_ptr<const program::Program>& loaded, const std::shared_ptr<const program::Program>& edited,
    const std::string& method) const {
  if (!loaded || !edited) return std::nullopt;
  const auto same = [](const std::weak_ptr<const program::Program>& kept, const std::shared_ptr<const program::Program>& now) {
    return !kept.expired() && !kept.owner_before(now) && !now.owner_before(kept) && kept.lock().get() == now.get();
  };
  if (remembered_ && remembered_->method == method && same(remembered_->loaded, loaded) && same(remembered_->edited, edited))
    return remembered_->prediction;
  remembered_ = RememberedEdit{loaded, edited, method, predictEdit(*loaded, *edited, method)};
  return remembered_->prediction;
}

QString LinkSelection::insideChangesText(const cost::DelegateCopyChanges& changes) {
  QStringList parts;
  const auto words = [](size_t n) {
    return n == 1 ? tr("1 copy inside a delegate") : tr("%1 copies inside delegates").arg(n);
  };
  if (!changes.added.empty()) parts << "+" + words(changes.added.size());
  if (!changes.removed.empty()) parts << QString(QChar(0x2212)) + words(changes.removed.size());
  return parts.join(QStringLiteral(" \u00b7 "));
}

LinkChooser::LinkChooser(LinkSelection* selection, QWidget* parent) : QWidget(parent), selection_(selection) {
  setObjectName("linkChooser");
  auto* row = new QHBoxLayout(this);
  row->setContentsMargins(4, 2, 4, 2);
  row->addWidget(new QLabel(tr("Predict on:")));
  links_ = fittedComboBox("linkProfile");
  links_->setAccessibleName(tr("Link profile"));
  row->addWidget(links_);
  memory_ = fittedComboBox("linkHostMemory");
  memory_->setAccessibleName(tr("Host memory"));
  memory_->addItem(tr("pageable host memory"), int(exec::HostMemoryKind::Pageable));
  memory_->addItem(tr("pinned host memory"), int(exec::HostMemoryKind::Pinned));
  memory_->setToolTip(tr("Where the CPU arenas live: ExecuTorch's Module allocates pageable memory"));
  row->addWidget(memory_);
  load_ = new QPushButton(tr("Load…"));
  load_->setObjectName("loadLinkProfile");
  load_->setToolTip(tr("Load a link profile written by `ptescope-cli probe-link` or `profile --save-link`"));
  row->addWidget(load_);
  if (exec::selectRuntime(exec::RuntimePreference::Cuda).ok()) {
    measure_ = new QPushButton(tr("Measure this GPU"));
    measure_->setObjectName("measureLink");
    measure_->setToolTip(tr("Measure this machine's link (as probe-link does) and predict on it"));
    row->addWidget(measure_);
    connect(measure_, &QPushButton::clicked, this, &LinkChooser::measure);
    measureTicker_ = new ProgressTicker(this, [this](qint64 seconds) {
      if (!measuring_ || measuring_->cancel.load()) return;
      measure_->setText(tr("Stop Measuring (%1 of %2 sizes, %3 s)")
                            .arg(num(qint64(measuring_->done.load())), num(qint64(measuring_->total.load())), num(seconds)));
    });
  }
  cudaGraph_ = new QCheckBox;
  cudaGraph_->setObjectName("cudaGraph");
  cudaGraph_->setToolTip(
      tr("CudaBackend's enable_cuda_graph_for_method for this method, as `--cuda-graph` on the command line: each call "
         "copies every input of its CudaBackend delegates device-to-device into the graph's static buffers and every "
         "output back (cuda_backend.cpp 573-610). The graph, Properties, the Advisor, Profile and the report count "
         "these copies inside the delegates."));
  row->addWidget(cudaGraph_);
  row->addStretch(1);
  refill();
  showCudaGraph();
  connect(selection_, &LinkSelection::changed, this, &LinkChooser::refill);
  connect(selection_, &LinkSelection::changed, this, &LinkChooser::showCudaGraph);
  connect(selection_, &LinkSelection::shownMethodChanged, this, &LinkChooser::showCudaGraph);
  connect(cudaGraph_, &QCheckBox::toggled, this,
          [this](bool on) { selection_->setCudaGraph(selection_->shownMethod(), on); });
  connect(links_, &QComboBox::activated, this, [this](int index) { selection_->setCurrentIndex(index); });
  connect(memory_, &QComboBox::activated, this, [this] {
    selection_->setHostMemory(exec::HostMemoryKind(memory_->currentData().toInt()));
  });
  connect(load_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Load Link Profile"), QString(), tr("Link profiles (*.json)"));
    if (path.isEmpty()) return;
    if (auto status = selection_->loadFile(path); !status)
      QMessageBox::warning(this, tr("Link profile not loaded"), QString::fromStdString(status.error().message));
  });
}

void LinkChooser::refill() {
  QSignalBlocker blockLinks(links_), blockMemory(memory_);
  links_->clear();
  for (const auto& e : selection_->entries()) {
    links_->addItem(e.label);
    const auto& p = *e.profile;
    QString tip = QString::fromStdString(p.label());
    if (!p.description.empty()) tip += "\n" + QString::fromStdString(p.description);
    if (!p.note.empty()) tip += "\n" + QString::fromStdString(p.note);
    links_->setItemData(links_->count() - 1, plainToolTip(tip), Qt::ToolTipRole);
  }
  links_->setCurrentIndex(selection_->currentIndex());
  memory_->setCurrentIndex(memory_->findData(int(selection_->hostMemory())));
}

void LinkChooser::showCudaGraph() {
  const QString method = selection_->shownMethod();
  QSignalBlocker block(cudaGraph_);
  // A '&' in the method's name is shown, not taken for a mnemonic.
  // A long method name is cut in its middle (the whole name was 550 px at
  // 1000x700 and squeezed the host memory box to "pageable host r"); the
  // accessible name keeps it whole.
  // With room to spare (a wide panel) the name takes it: what the row's
  // other controls and the check box's own words leave, 220 px at least.
  int others = 0;
  if (auto* row = layout()) {
    for (int i = 0; i < row->count(); ++i)
      if (QWidget* w = row->itemAt(i)->widget(); w != nullptr && w != cudaGraph_ && !w->isHidden())
        others += w->sizeHint().width() + row->spacing();
    const QMargins margins = row->contentsMargins();
    others += margins.left() + margins.right();
  }
  const int words = cudaGraph_->fontMetrics().horizontalAdvance(tr("CUDA graph replay in %1").arg(QString())) +
                    cudaGraph_->style()->pixelMetric(QStyle::PM_IndicatorWidth) +
                    cudaGraph_->style()->pixelMetric(QStyle::PM_CheckBoxLabelSpacing) + 16;
  const QString shown = cudaGraph_->fontMetrics().elidedText(method, Qt::ElideMiddle, std::max(220, width() - others - words));
  cudaGraph_->setText(method.isEmpty() ? tr("CUDA graph replay")
                                       : tr("CUDA graph replay in %1").arg(mnemonicSafe(shown)));
  cudaGraph_->setAccessibleName(method.isEmpty() ? tr("CUDA graph replay") : tr("CUDA graph replay in %1").arg(method));
  cudaGraph_->setEnabled(!method.isEmpty());
  cudaGraph_->setChecked(selection_->cudaGraph(method));
}

void LinkChooser::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  showCudaGraph();
}

void LinkChooser::measure() {
  if (measuring_) {
    // The probe looks before each batch of copies: it stops within one.
    measuring_->cancel = true;
    measure_->setEnabled(false);
    measure_->setText(tr("Stopping…"));
    return;
  }
  auto state = std::make_shared<Measuring>();
  measuring_ = state;
  measureTicker_->start();
  auto* watcher = new QFutureWatcher<Result<cost::LinkProfile>>(this);
  connect(watcher, &QFutureWatcher<Result<cost::LinkProfile>>::finished, this, [this, watcher] {
    auto result = watcher->result();
    watcher->deleteLater();
    measureTicker_->stop();
    measuring_.reset();
    measure_->setEnabled(true);
    measure_->setText(tr("Measure this GPU"));
    if (!result) {
      if (result.error().message != cost::kProbeCancelled)
        QMessageBox::warning(this, tr("Link not measured"), QString::fromStdString(result.error().message));
      return;
    }
    selection_->addProfile(std::move(result.value()), tr("measured on this GPU"));
  });
  watcher->setFuture(QtConcurrent::run([state]() -> Result<cost::LinkProfile> {
    auto selection = exec::selectRuntime(exec::RuntimePreference::Cuda);
    if (!selection) return selection.error();
    cost::ProbeOptions options;
    options.on_progress = [state](size_t done, size_t total) {
      state->done = done;
      state->total = total;
    };
    options.cancel_requested = [state] { return state->cancel.load(); };
    return cost::probeLink(*selection->runtime, options);
  }));
}

}  // namespace ptescope::ui
