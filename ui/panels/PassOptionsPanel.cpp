#include "ui/panels/PassOptionsPanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>

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

PassOptionsPanel::PassOptionsPanel(Document* document, QWidget* parent) : QWidget(parent), document_(document) {
  setObjectName("passOptions");
  auto* layout = new QVBoxLayout(this);
  title_ = new QLabel;
  layout->addWidget(title_);

  auto* options = new QGroupBox(tr("Device pass options"));
  auto* optionsLayout = new QVBoxLayout(options);
  auto make = [&](const char* name, const QString& text, const QString& tip) {
    auto* box = new QCheckBox(text);
    box->setObjectName(name);
    box->setToolTip(tip);
    optionsLayout->addWidget(box);
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
  pairFix_ = new QPushButton(tr("Pair the skips with unplanned graph IO"));
  pairFix_->setObjectName("pairFix");
  pairFix_->setToolTip(tr("The runtime refuses set_input into a planned device buffer: with skip options, graph inputs "
                          "and outputs must be bound by the caller (alloc_graph_input/output off)."));
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
  layout->addWidget(delegates);
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
  refreshing_ = true;
  const int m = document_->currentMethodIndex();
  const bool has = document_->hasProgram() && m >= 0;
  setEnabled(has);
  if (!has) {
    title_->setText(tr("No method"));
    refreshing_ = false;
    return;
  }
  const Method& method = document_->loadedProgram().methods()[size_t(m)];
  title_->setText(tr("<b>%1</b>").arg(QString::fromStdString(method.displayName()).toHtmlEscaped()));
  const auto o = document_->methodOptions(m);
  const auto file = document_->fileOptions(m);
  const passes::DeviceOptions defaults;
  auto set = [&](QCheckBox* box, bool value, bool fileValue, bool defaultValue) {
    box->setChecked(value);
    box->setText(box->objectName() + tr("   (file: %1, default: %2)").arg(onOff(fileValue), onOff(defaultValue)));
    QFont f = box->font();
    f.setBold(value != fileValue);
    box->setFont(f);
  };
  set(planning_, o.enable_non_cpu_memory_planning, file.enable_non_cpu_memory_planning, defaults.enable_non_cpu_memory_planning);
  set(skipH2d_, o.skip_h2d_for_method_inputs, file.skip_h2d_for_method_inputs, defaults.skip_h2d_for_method_inputs);
  set(skipD2h_, o.skip_d2h_for_method_outputs, file.skip_d2h_for_method_outputs, defaults.skip_d2h_for_method_outputs);
  set(allocInput_, o.alloc_graph_input, file.alloc_graph_input, defaults.alloc_graph_input);
  set(allocOutput_, o.alloc_graph_output, file.alloc_graph_output, defaults.alloc_graph_output);

  QString problem = document_->pipelineError();
  if (problem.isEmpty()) {
    if (auto valid = passes::validateDeviceOptions(o); !valid) problem = QString::fromStdString(valid.error().message);
  }
  error_->setText(problem);
  error_->setVisible(!problem.isEmpty());
  const bool needsPairing = (o.skip_h2d_for_method_inputs && o.alloc_graph_input) ||
                            (o.skip_d2h_for_method_outputs && o.alloc_graph_output);
  pairFix_->setVisible(needsPairing && o.enable_non_cpu_memory_planning);

  // Delegate choosers, rebuilt for the method.
  while (delegatesLayout_->rowCount() > 0) delegatesLayout_->removeRow(0);
  delegateChoosers_.clear();
  const auto& delegates = items(method.delegates);
  // One chooser per delegate while that stays readable (and cheap); beyond,
  // one chooser moves every device delegate at once.
  if (delegates.size() > kMaxDelegateChoosers) {
    auto* all = new QComboBox;
    all->setObjectName("allDelegatesTarget");
    all->addItem(tr("(choose)"));
    all->addItems(deviceChoices());
    connect(all, &QComboBox::activated, this, [this, m, all] {
      const QString choice = all->currentText();
      if (all->currentIndex() == 0) return;
      std::optional<Device> device;
      if (choice != "none") device = parseDeviceSpec(choice.toStdString()).value();
      QMetaObject::invokeMethod(this, [this, m, device] { document_->setAllDelegateTargets(m, device); },
                                Qt::QueuedConnection);
    });
    delegatesLayout_->addRow(tr("All %1 delegates").arg(delegates.size()), all);
    delegatesLayout_->addRow(new QLabel(tr("Single delegates: use the program tree's context menu.")));
    delegatesBox_->setVisible(true);
    refreshing_ = false;
    return;
  }
  for (size_t d = 0; d < delegates.size(); ++d) {
    auto* chooser = new QComboBox;
    chooser->setObjectName(QString("delegateTarget%1").arg(d));
    chooser->addItems(deviceChoices());
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
    delegatesLayout_->addRow(QString("%1 %2").arg(d).arg(QString::fromStdString(delegates[d].id.value_or("?"))), chooser);
    delegateChoosers_.push_back(chooser);
  }
  delegatesBox_->setVisible(!delegates.empty());
  refreshing_ = false;
}

}  // namespace ptescope::ui
