#include "ui/panels/ChangesPanel.h"

#include "cost/CopyCost.h"
#include "ui/common/DeviceColors.h"
#include "ui/document/Document.h"
#include "ui/common/Format.h"
#include "ui/profile/LinkSelection.h"

#include <QScopeGuard>

namespace ptescope::ui {
using namespace ptescope::passes;

namespace {

QString copyText(const CopyRecord& c) {
  QString s = QString("%1 %2 %3 → %4, %5")
                  .arg(QString::fromStdString(program::copyDirectionName(c.direction)), valueRef(c.source),
                       QString::fromStdString(c.from.str()), QString::fromStdString(c.to.str()), bytesText(c.bytes));
  if (c.direction == program::CopyDirection::HostToDevice && c.consumer_delegate >= 0)
    s += QString(" for delegate call %1").arg(c.consumer_delegate);
  return s;
}

// The planned buffers in the units the rest uses ("[48 B cpu:0, 48 B
// cuda:0]"; it read "[0, 48 cpu:0, 48 cuda:0]" with buffer 0's placeholder).
QString buffersText(const std::vector<BufferInfo>& buffers) {
  QStringList parts;
  for (const auto& b : buffers) parts << QString("%1 %2").arg(bytesText(qint64(b.size)), QString::fromStdString(b.device.str()));
  return "[" + parts.join(", ") + "]";
}

}  // namespace

ChangesPanel::ChangesPanel(Document* document, QWidget* parent) : QListWidget(parent), document_(document) {
  setObjectName("changes");
  connect(document_, &Document::programChanged, this, &ChangesPanel::rebuild);
  connect(document_, &Document::pipelineFinished, this, [this](bool ok) {
    if (!ok) rebuild();  // a success rebuilt with programChanged
  });
  // A click, Enter, or the arrow keys moving the current line show the change
  // on the graph (only a click did; the Values table's rows follow the
  // keyboard too). A list rebuilt under the user moves nothing.
  connect(this, &QListWidget::itemClicked, this, &ChangesPanel::activate);
  connect(this, &QListWidget::itemActivated, this, &ChangesPanel::activate);
  connect(this, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* item) {
    if (item != nullptr && !rebuilding_ && hasFocus()) activate(item);
  });
  rebuild();
}

void ChangesPanel::setLinkSelection(LinkSelection* links) {
  links_ = links;
  connect(links_, &LinkSelection::changed, this, &ChangesPanel::rebuild);
  rebuild();
}

void ChangesPanel::activate(QListWidgetItem* item) {
  if (item == nullptr || !item->data(MethodRole).isValid()) return;
  const int method = item->data(MethodRole).toInt();
  if (method >= 0) document_->setCurrentMethod(method);
  const qlonglong instruction = item->data(InstructionRole).toLongLong();
  const int value = item->data(ValueRole).toInt();
  if (instruction >= 0) emit instructionActivated(size_t(instruction));
  else if (value >= 0) emit valueActivated(value);
}

void ChangesPanel::rebuild() {
  rebuilding_ = true;
  const auto done = qScopeGuard([this] { rebuilding_ = false; });
  clear();
  // Options the passes refuse stay set (their pair may follow: planning on,
  // then the output option), but the program shown is the last one accepted:
  // said first, or "No changes" read as if the option had no effect.
  if (const QString refused = document_->pipelineError(); !refused.isEmpty()) {
    auto* item = new QListWidgetItem(tr("The options as set are refused, so they change nothing yet: %1. Shown is the "
                                        "last program the passes accepted; Undo (Ctrl+Z) takes the option back")
                                         .arg(refused),
                                     this);
    item->setForeground(QColor(0xb0, 0x00, 0x20));
    item->setToolTip(refused);
  }
  const PassReport* report = document_->report();
  if (report == nullptr || !report->changed()) {
    addItem(document_->hasProgram() ? tr("No changes against the file as loaded") : QString());
    // Edited, yet nothing changed: say why, method by method.
    for (int m = 0; m < document_->methodCount(); ++m)
      for (const QString& reason : document_->unchangedReasons(m)) {
        const auto& name = document_->program().methods()[size_t(m)].displayName();
        auto* item = new QListWidgetItem(QString("  %1: %2").arg(QString::fromStdString(name), reason), this);
        item->setForeground(palette().color(QPalette::PlaceholderText));
      }
    return;
  }
  for (size_t m = 0; m < report->methods.size(); ++m) {
    const auto& method = report->methods[m];
    if (!method.changed()) continue;
    QString title = tr("method '%1'").arg(QString::fromStdString(method.name));
    // Predicted on the chosen link: the copies before and after the edit,
    // those inside delegates included, as the diff banner and propagate
    // price them (with et_copy copies only, a delegate's target_device
    // taken away read as a saving here and a cost in the banner).
    auto predicted = [&](const std::vector<CopyRecord>& copies) {
      auto seconds = links_ ? cost::predictRecords(copies, *links_->link(), links_->hostMemory())
                            : Result<double>(makeError("no link"));
      return seconds ? seconds.value() : -1.0;
    };
    const auto edit = links_ ? links_->predictEdit(document_->loadedSnapshot(), document_->programSnapshot(), method.name)
                             : std::nullopt;
    if (edit && (edit->before.copyCount() > 0 || edit->after.copyCount() > 0))
      title += " \u2014 " + links_->savingText(edit->before.copySeconds(), edit->after.copySeconds());
    auto* header = new QListWidgetItem(title, this);
    QFont f = header->font();
    f.setBold(true);
    header->setFont(f);
    header->setData(MethodRole, int(m));
    header->setData(ValueRole, -1);
    header->setData(InstructionRole, qlonglong(-1));
    auto add = [&](const QString& text, const QColor& color, int value, qlonglong instruction) {
      auto* item = new QListWidgetItem(text, this);
      item->setForeground(color);
      item->setData(MethodRole, int(m));
      item->setData(ValueRole, value);
      item->setData(InstructionRole, instruction);
    };
    auto cost = [&](const CopyRecord& c) {
      const double seconds = predicted({c});
      return seconds >= 0 ? " \u00b7 ~" + durationText(seconds) : QString();
    };
    for (const auto& c : method.copies_added)
      add("  + " + copyText(c) + cost(c), QColor(0x2e, 0x7d, 0x32), c.value, qlonglong(c.instruction));
    for (const auto& c : method.copies_removed) add("  − " + copyText(c) + cost(c), QColor(0xb0, 0x00, 0x20), c.source, -1);
    for (const auto& r : method.retagged)
      add(QString("  ~ %1 %2 → %3").arg(valueRef(r.value), QString::fromStdString(r.before.str()), QString::fromStdString(r.after.str())),
          deviceColor(QString::fromStdString(r.after.str())).darker(120), r.value, -1);
    // Delegates retargeted and the copies kept that now go to or from
    // another device: the diff banner counts them, the list names each, to be
    // stepped through and selected (walkthrough 22).
    if (const auto marks = document_->methodChanges(int(m)))
      for (const auto& [instruction, note] : marks->retargeted)
        add(QString("  ~ #%1 %2 %3")
                .arg(num(qint64(instruction)),
                     marks->retargeted_delegates.count(instruction) ? tr("delegate call:") : tr("copy:"),
                     QString::fromStdString(note)),
            palette().color(QPalette::Text), -1, qlonglong(instruction));
    // The copies the backends make inside delegates that the edit adds or
    // removes (a CudaBackend delegate without target_device copies its host
    // tensors itself); a click shows the delegate call.
    if (edit) {
      const auto insideText = [](const cost::DelegateCopyPrediction& c) {
        const auto& t = c.transfer;
        return QString("inside delegate %1 (%2): %3 %4 %5, %6 \u00b7 ~%7")
            .arg(num(t.delegate), QString::fromStdString(t.backend),
                 QString::fromStdString(analysis::delegateTransferKindName(t.kind)),
                 QString::fromStdString(program::copyDirectionName(t.direction)), valueRef(t.value), bytesText(qint64(t.bytes)),
                 durationText(c.seconds));
      };
      for (const auto& c : edit->inside.added)
        add("  + " + insideText(c), QColor(0x2e, 0x7d, 0x32), c.transfer.value, qlonglong(c.transfer.instruction));
      for (const auto& c : edit->inside.removed) add("  \u2212 " + insideText(c), QColor(0xb0, 0x00, 0x20), c.transfer.value, -1);
    }
    if (method.buffers_before != method.buffers_after)
      add(tr("  buffers %1 → %2").arg(buffersText(method.buffers_before), buffersText(method.buffers_after)),
          palette().color(QPalette::Text), -1, -1);
  }
}

}  // namespace ptescope::ui
