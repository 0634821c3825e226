#include "ui/panels/PassOptionsPanel.h"

#include "ui/common/ElidedLabel.h"
#include "ui/common/Format.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QColor>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

#include "passes/Pipeline.h"
#include "ui/document/Document.h"

namespace ptescope::ui {
using namespace ptescope::program;

namespace {

constexpr size_t kMaxDelegateChoosers = 48;

QString onOff(bool v) { return v ? QObject::tr("on") : QObject::tr("off"); }

}  // namespace

QStringList PassOptionsPanel::deviceChoices() {
  QStringList choices{"none", "cpu"};
  for (int i = 0; i < 8; ++i) choices << QString("cuda:%1").arg(i);
  return choices;
}

QString PassOptionsPanel::deviceChoiceMeaning(const QString& choice) {
  if (choice == "none")
    return tr("none: no target_device spec. The passes insert no copies; the backend moves its own data "
              "inside the delegate (not a saving: CudaBackend and TensorRTBackend copy each host tensor there, "
              "counted as copies inside delegates; a device-aware CudaBackend refuses host memory).");
  if (choice == "cpu" || choice == "cpu:0")
    return tr("cpu: not valid for a device backend. ExecuTorch knows no CPU target: the passes would insert "
              "h2d/d2h copies between host tensors that fail at run time (lint PTS007, PTS004).");
  return tr("%1: the delegate computes on %1; h2d copies feed it and d2h copies bring back what the host reads.")
      .arg(choice);
}

void PassOptionsPanel::describeChoices(QComboBox* chooser) {
  for (int i = 0; i < chooser->count(); ++i) {
    const QString meaning = deviceChoiceMeaning(chooser->itemText(i));
    chooser->setItemData(i, meaning, Qt::ToolTipRole);
    chooser->setItemData(i, meaning, Qt::AccessibleDescriptionRole);
    if (chooser->itemText(i) == "cpu") {
      // Offered (a file may have it), but marked: it is not an ordinary choice.
      chooser->setItemText(i, "cpu");
      chooser->setItemData(i, QColor(0xb0, 0x00, 0x20), Qt::ForegroundRole);
    }
  }
}

PassOptionsPanel::PassOptionsPanel(Document* document, QWidget* parent) : QWidget(parent), document_(document) {
  setObjectName("passOptions");
  auto* layout = new QVBoxLayout(this);
  // The method's name, cut in its middle where the dock is narrower (a long
  // name set the dock's minimum: showing it once widened the right docks
  // for good; the middle cut keeps the start and the end, where twins such
  // as "..._v2_draft" and "..._v2_final" differ). Two lines where the name
  // has spaces to wrap at.
  auto* title = new ElidedLabel;
  title->setMaximumLines(2);
  title_ = title;
  title_->setTextFormat(Qt::PlainText);
  title_->setObjectName("passOptionsMethod");
  QFont titleFont = title_->font();
  titleFont.setBold(true);
  title_->setFont(titleFont);
  layout->addWidget(title_);

  auto* options = new QGroupBox(tr("Device pass options"));
  auto* optionsLayout = new QVBoxLayout(options);
  // Each option: its checkbox (the option's name), and under it, in small
  // type, what the file has and upstream's default. Two short lines keep the
  // panel narrow: nothing is cut and it never scrolls sideways.
  auto make = [&](const char* name, const QString& text, const QString& tip) {
    auto* box = new QCheckBox(text);
    box->setObjectName(name);
    box->setToolTip(tip);
    box->setAccessibleDescription(tip);
    optionsLayout->addWidget(box);
    auto* origin = new QLabel;
    origin->setObjectName(QString(name) + "_origin");
    origin->setWordWrap(true);
    origin->setIndent(box->style()->pixelMetric(QStyle::PM_IndicatorWidth) + 6);
    QFont small = origin->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    origin->setFont(small);
    origin->setForegroundRole(QPalette::PlaceholderText);
    optionsLayout->addWidget(origin);
    origins_[box] = origin;
    connect(box, &QCheckBox::toggled, this, [this] {
      if (!refreshing_) commitOptions();
    });
    return box;
  };
  planning_ = make("enable_non_cpu_memory_planning", "enable_non_cpu_memory_planning",
                   tr("Insert host/device copies and give each device its own memory arena. Off: tensors are only "
                      "tagged (upstream's legacy mode)."));
  skipH2d_ = make("skip_h2d_for_method_inputs", "skip_h2d_for_method_inputs",
                  tr("Method inputs feeding a device delegate are expected on the device: no host-to-device copy."));
  skipD2h_ = make("skip_d2h_for_method_outputs", "skip_d2h_for_method_outputs",
                  tr("Delegate outputs returned by the method stay on the device: no device-to-host copy."));
  allocInput_ = make("alloc_graph_input", "alloc_graph_input",
                     tr("Plan memory for method inputs. Off: the caller binds its own buffers (needed with skip_h2d)."));
  allocOutput_ = make("alloc_graph_output", "alloc_graph_output",
                      tr("Plan memory for method outputs. Off: the caller binds its own buffers (needed with skip_d2h)."));
  error_ = new QLabel;
  error_->setObjectName("optionsError");
  error_->setWordWrap(true);
  error_->setStyleSheet("QLabel { color: #b00020; }");
  optionsLayout->addWidget(error_);
  pairFix_ = new QPushButton(tr("Pair the skips"));
  pairFix_->setObjectName("pairFix");
  pairFix_->setToolTip(tr("Turn alloc_graph_input/output off with the skips. The runtime refuses set_input into a "
                          "planned device buffer: with skip options, graph inputs and outputs must be bound by the caller."));
  pairFix_->setAccessibleDescription(pairFix_->toolTip());
  optionsLayout->addWidget(pairFix_);
  connect(pairFix_, &QPushButton::clicked, this, [this] {
    const int m = document_->currentMethodIndex();
    auto o = document_->methodOptions(m);
    if (o.skip_h2d_for_method_inputs) o.alloc_graph_input = false;
    if (o.skip_d2h_for_method_outputs) o.alloc_graph_output = false;
    document_->setMethodOptions(m, o);
  });
  layout->addWidget(options);

  auto* delegates = new QGroupBox(tr("Delegate target devices"));
  delegatesBox_ = delegates;
  delegatesLayout_ = new QFormLayout(delegates);
  delegatesLayout_->setRowWrapPolicy(QFormLayout::WrapLongRows);
  layout->addWidget(delegates);
  // What the chosen target devices mean (and a warning for "cpu").
  choiceNote_ = new QLabel;
  choiceNote_->setObjectName("targetDeviceNote");
  choiceNote_->setWordWrap(true);
  layout->addWidget(choiceNote_);
  layout->addStretch(1);

  connect(document_, &Document::editsChanged, this, &PassOptionsPanel::refresh);
  connect(document_, &Document::currentMethodChanged, this, &PassOptionsPanel::refresh);
  connect(document_, &Document::pipelineFinished, this, &PassOptionsPanel::refresh);
  refresh();
}

void PassOptionsPanel::commitOptions() {
  passes::DeviceOptions o;
  o.enable_non_cpu_memory_planning = planning_->isChecked();
  o.skip_h2d_for_method_inputs = skipH2d_->isChecked();
  o.skip_d2h_for_method_outputs = skipD2h_->isChecked();
  o.alloc_graph_input = allocInput_->isChecked();
  o.alloc_graph_output = allocOutput_->isChecked();
  document_->setMethodOptions(document_->currentMethodIndex(), o);
}

void PassOptionsPanel::refresh() {
  refreshContents();
  emit refreshed();
}

void PassOptionsPanel::refreshContents() {
  refreshing_ = true;
  const int m = document_->currentMethodIndex();
  const bool has = document_->hasProgram() && m >= 0;
  setEnabled(has);
  if (!has) {
    title_->setText(tr("No method"));
    choiceNote_->hide();
    refreshing_ = false;
    return;
  }
  const Method& method = document_->loadedProgram().methods()[size_t(m)];
  title_->setText(QString::fromStdString(method.displayName()));
  const auto o = document_->methodOptions(m);
  const auto file = document_->fileOptions(m);
  const passes::DeviceOptions defaults;
  auto set = [&](QCheckBox* box, bool value, bool fileValue, bool defaultValue) {
    box->setChecked(value);
    QFont f = box->font();
    f.setBold(value != fileValue);
    box->setFont(f);
    const QString origin = tr("file: %1 · default: %2").arg(onOff(fileValue), onOff(defaultValue)) +
                           (value != fileValue ? tr(" · edited") : QString());
    origins_[box]->setText(origin);
    box->setAccessibleName(box->objectName());
    box->setAccessibleDescription(origin + ". " + box->toolTip());
  };
  set(planning_, o.enable_non_cpu_memory_planning, file.enable_non_cpu_memory_planning, defaults.enable_non_cpu_memory_planning);
  set(skipH2d_, o.skip_h2d_for_method_inputs, file.skip_h2d_for_method_inputs, defaults.skip_h2d_for_method_inputs);
  set(skipD2h_, o.skip_d2h_for_method_outputs, file.skip_d2h_for_method_outputs, defaults.skip_d2h_for_method_outputs);
  set(allocInput_, o.alloc_graph_input, file.alloc_graph_input, defaults.alloc_graph_input);
  set(allocOutput_, o.alloc_graph_output, file.alloc_graph_output, defaults.alloc_graph_output);

  // A guess the file could not settle is said where the option is shown.
  const std::string guessed = passes::planningInferenceNote(method);
  origins_[planning_]->setText(origins_[planning_]->text() +
                               (guessed.empty() ? QString() : "\n" + QString::fromStdString(guessed)));
  QString problem = document_->pipelineError();
  if (problem.isEmpty()) {
    if (auto valid = passes::validateDeviceOptions(o); !valid) problem = QString::fromStdString(valid.error().message);
  }
  error_->setText(problem);
  error_->setVisible(!problem.isEmpty());
  const bool needsPairing = (o.skip_h2d_for_method_inputs && o.alloc_graph_input) ||
                            (o.skip_d2h_for_method_outputs && o.alloc_graph_output);
  // Offered where pairing is what is missing: not under the pass's own
  // refusal (an input read by two delegates), which pairing leaves as it was.
  pairFix_->setVisible(needsPairing && o.enable_non_cpu_memory_planning && document_->pipelineError().isEmpty());

  QStringList notes;  // the choices shown, for choiceNote_
  choiceNote_->hide();
  // Delegate choosers, rebuilt for the method.
  while (delegatesLayout_->rowCount() > 0) delegatesLayout_->removeRow(0);
  delegateChoosers_.clear();
  const auto& delegates = items(method.delegates);
  // One chooser per delegate while that stays readable (and cheap); beyond,
  // one chooser moves every device delegate at once.
  if (delegates.size() > kMaxDelegateChoosers) {
    auto* all = new QComboBox;
    all->setObjectName("allDelegatesTarget");
    all->setAccessibleName(tr("Target device of all %1 delegates").arg(num(qint64(delegates.size()))));
    all->addItem(tr("(choose)"));
    all->addItems(deviceChoices());
    describeChoices(all);
    connect(all, &QComboBox::activated, this, [this, m, all] {
      const QString choice = all->currentText();
      if (all->currentIndex() == 0) return;
      std::optional<Device> device;
      if (choice != "none") device = parseDeviceSpec(choice.toStdString()).value();
      QMetaObject::invokeMethod(this, [this, m, device] { document_->setAllDelegateTargets(m, device); },
                                Qt::QueuedConnection);
    });
    delegatesLayout_->addRow(tr("All %1 delegates").arg(delegates.size()), all);
    auto* single = new QLabel(tr("Single delegates: use the program tree's context menu."));
    single->setWordWrap(true);  // never wider than the dock
    delegatesLayout_->addRow(single);
    delegatesBox_->setVisible(true);
    refreshing_ = false;
    return;
  }
  for (size_t d = 0; d < delegates.size(); ++d) {
    auto* chooser = new QComboBox;
    chooser->setObjectName(QString("delegateTarget%1").arg(d));
    chooser->addItems(deviceChoices());
    describeChoices(chooser);
    // Named by what it sets (a screen reader reads the name, then the value).
    chooser->setAccessibleName(tr("Target device of delegate %1 (%2)")
                                   .arg(num(qint64(d)), QString::fromStdString(delegates[d].id.value_or("?"))));
    const auto target = document_->delegateTarget(m, int(d));
    const QString text = target ? QString::fromStdString(target->str()) : "none";
    int index = chooser->findText(text == "cpu:0" ? "cpu" : text);
    if (index < 0) {
      chooser->addItem(text);
      index = chooser->count() - 1;
    }
    chooser->setCurrentIndex(index);
    connect(chooser, &QComboBox::activated, this, [this, m, d, chooser] {
      const QString choice = chooser->currentText();
      std::optional<Device> device;
      if (choice != "none") {
        auto parsed = parseDeviceSpec(choice.toStdString());
        if (!parsed) return;
        device = parsed.value();
      }
      // Queued: the edit rebuilds these choosers, including the sender.
      QMetaObject::invokeMethod(this, [this, m, d, device] { document_->setDelegateTarget(m, int(d), device); },
                                Qt::QueuedConnection);
    });
    delegatesLayout_->addRow(QString("%1 %2").arg(num(qint64(d)), QString::fromStdString(delegates[d].id.value_or("?"))), chooser);
    delegateChoosers_.push_back(chooser);
    const QString shown = chooser->currentText();
    if (!notes.contains(shown)) notes << shown;
  }
  delegatesBox_->setVisible(!delegates.empty());
  // The meaning of each choice in use, the invalid one first and in red.
  QStringList lines;
  const bool cpu = notes.contains("cpu") || notes.contains("cpu:0");
  if (cpu) lines << deviceChoiceMeaning("cpu");
  for (const QString& n : notes)
    if (n != "cpu" && n != "cpu:0") lines << deviceChoiceMeaning(n);
  choiceNote_->setText(lines.join("\n"));
  choiceNote_->setStyleSheet(cpu ? QStringLiteral("QLabel { color: #b00020; }") : QString());
  choiceNote_->setVisible(!lines.isEmpty());
  refreshing_ = false;
}

}  // namespace ptescope::ui
