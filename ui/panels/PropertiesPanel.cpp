#include "ui/panels/PropertiesPanel.h"
#include "ui/common/ColumnFitter.h"
#include "ui/common/PlainText.h"

#include "ui/common/Format.h"

#include <QColor>
#include <QHeaderView>
#include <QStyledItemDelegate>

#include <algorithm>

#include "analysis/DelegateTransfers.h"
#include "program/DelegatePayload.h"
#include "program/Text.h"
#include "report/InfoReport.h"
#include "ui/document/Document.h"

namespace ptescope::ui {
using namespace ptescope::program;

namespace {

QString valueLabel(const Method& method, int32_t v) {
  const auto& values = items(method.values);
  if (v < 0 || size_t(v) >= values.size()) return valueRef(v);
  const Value& value = values[size_t(v)];
  if (const Tensor* t = value.tensor()) {
    return QString("%1 %2 %3").arg(valueRef(v), ui::tensorTypeText(*t), QString::fromStdString(t->device().str()));
  }
  return QString("%1 %2").arg(valueRef(v), QString::fromStdString(valueKindName(value.kind())));
}

}  // namespace

PropertiesPanel::PropertiesPanel(Document* document, QWidget* parent) : QTreeWidget(parent), document_(document) {
  setObjectName("properties");
  setHeaderLabels({tr("Property"), tr("Value")});
  // The Property column as wide as its longest key, unless the values then
  // do not fit: the keys give way down to 45% of the width (as contents
  // asked, ResizeToContents, a long key of a TensorRT engine's rows left a
  // delegate's values 100 px at 1000 px). A column the user sized stays.
  header()->setSectionResizeMode(0, QHeaderView::Interactive);
  header()->setStretchLastSection(true);
  new ColumnFitter(this, 0.45);
  setRootIsDecorated(true);
  setAlternatingRowColors(true);
  // Cut in the middle where the column is narrow: a long method name keeps
  // its end, where it differs from its twins ("..._v2_draft"); the tool tip
  // has it whole.
  setTextElideMode(Qt::ElideMiddle);
  // A key cut at its end: its start names it ("target_dev…" reads;
  // "targ…vice" did not).
  setItemDelegateForColumn(0, new ElideDelegate(Qt::ElideRight, this));
  showNothing();
}

QTreeWidgetItem* PropertiesPanel::row(const QString& key, const QString& value, QTreeWidgetItem* parent) {
  auto* item = parent ? new QTreeWidgetItem(parent, {key, value}) : new QTreeWidgetItem(this, {key, value});
  item->setToolTip(0, plainToolTip(key));
  item->setToolTip(1, plainToolTip(value));
  return item;
}

void PropertiesPanel::setRunSettings(const analysis::DelegateTransferOptions& settings) {
  if (settings.cuda_graph_methods == runSettings_.cuda_graph_methods) return;
  runSettings_ = settings;
  if (shownInstruction_) showInstruction(*shownInstruction_);
}

void PropertiesPanel::showNothing() {
  clear();
  shownInstruction_.reset();
  if (!document_->hasProgram()) return;
  const Method* method = document_->currentMethod();
  if (method == nullptr) return;
  row(tr("Method"), QString::fromStdString(method->displayName()));
  row(tr("Values"), QString::number(items(method->values).size()));
  row(tr("Delegates"), QString::number(items(method->delegates).size()));
  // One row per buffer under the count: on one line "1: 16.0 KiB cpu:0;
  // 2: 24.0 …" was cut in a dock of any width.
  const auto& sizes = items(method->non_const_buffer_sizes);
  const size_t planned = sizes.empty() ? 0 : sizes.size() - 1;
  auto* buffers = row(tr("Planned buffers"), num(qint64(planned)));
  for (size_t i = 1; i < sizes.size(); ++i) {
    const QString device = QString::fromStdString(method->bufferDevice(int32_t(i)).str());
    // A buffer of no bytes (a method wholly inside a delegate plans
    // nothing) says so: "0 B on cpu:0" read like a size not yet known.
    auto* item = row(tr("Buffer %1").arg(num(qint64(i))),
                     sizes[i] == 0 ? tr("empty, on %1").arg(device) : tr("%1 on %2").arg(bytesText(sizes[i]), device), buffers);
    if (sizes[i] == 0) item->setToolTip(1, tr("0 B: no tensor of this method is planned in buffer %1").arg(num(qint64(i))));
  }
  buffers->setExpanded(true);
}

void PropertiesPanel::showGroup(const layout::GraphNode& group) {
  clear();
  shownInstruction_.reset();
  const Method* method = document_->currentMethod();
  if (method != nullptr) row(tr("Method"), QString::fromStdString(method->displayName()));
  row(tr("Group"), QString::fromStdString(group.title));
  const size_t count = group.group_instructions;
  // Short enough for a narrow dock ("#256 to #318 (63 instructi…" was cut);
  // the copies and the rest add up to the count.
  row(tr("Instructions"), count == 0 ? tr("none")
                                     : QStringLiteral("#%1\u2013#%2 (%3)")
                                           .arg(num(qint64(group.order)), num(qint64(group.order + count - 1)), num(qint64(count))));
  row(tr("Copies"), group.group_h2d + group.group_d2h == 0
                        ? tr("none")
                        : tr("%1 h2d · %2 d2h").arg(num(qint64(group.group_h2d)), num(qint64(group.group_d2h))));
  QStringList devices;
  for (const auto& dc : group.devices)
    devices << tr("%1 on %2").arg(num(qint64(dc.instructions)), QString::fromStdString(dc.device.str()));
  if (!devices.isEmpty()) row(tr("The others run"), devices.join(QStringLiteral(" · ")));
  row(tr("Delegate calls"), num(qint64(group.group_delegates)));
  if (!group.inside_copies.empty())
    row(tr("Copies inside delegates"), num(qint64(group.inside_copies.size())));
}

void PropertiesPanel::showValue(int32_t v) {
  clear();
  shownInstruction_.reset();
  const Method* method = document_->currentMethod();
  const analysis::Dataflow* dataflow = document_->currentDataflow();
  if (method == nullptr || dataflow == nullptr || v < 0 || size_t(v) >= items(method->values).size()) return;
  const Value& value = (*method->values)[size_t(v)];
  const auto& facts = dataflow->values()[size_t(v)];
  row(tr("Value"), valueRef(v));
  row(tr("Kind"), QString::fromStdString(valueKindName(value.kind())));
  if (const Tensor* t = value.tensor()) {
    if (t->extra_tensor_info && t->extra_tensor_info->fully_qualified_name)
      row(tr("Name"), QString::fromStdString(*t->extra_tensor_info->fully_qualified_name));
    row(tr("DType"), QString::fromStdString(scalarTypeShortName(t->scalar_type)));
    row(tr("Sizes"), ui::sizesText(*t));
    row(tr("Bytes"), bytesText(t->nbytes()));
    row(tr("Device"), QString::fromStdString(t->device().str()));
    row(tr("Dynamism"), QString::fromStdString(shapeDynamismName(t->shape_dynamism)));
    if (t->allocation_info)
      row(tr("Planned"), tr("buffer %1 (%2) at offset %3")
                             .arg(num(t->allocation_info->memory_id),
                                  QString::fromStdString(method->bufferDevice(int32_t(t->allocation_info->memory_id)).str()),
                                  num(qint64(t->allocation_info->offset()))));
    else if (t->isConstant())
      row(tr("Storage"), t->isExternal() ? tr("external constant '%1'").arg(QString::fromStdString(
                                                t->extra_tensor_info->fully_qualified_name.value_or("")))
                                          : tr("constant %1").arg(t->data_buffer_idx));
    else
      row(tr("Storage"), tr("supplied at run time"));
  }
  QStringList roles;
  if (facts.is_method_input) roles << tr("method input");
  if (facts.is_method_output) roles << tr("method output");
  if (!roles.isEmpty()) row(tr("Role"), roles.join(", "));
  if (facts.lifetime) row(tr("Lifetime"), QString("%1 – %2").arg(facts.lifetime->first).arg(facts.lifetime->second));
  if (facts.producer) {
    const auto& p = dataflow->instructions()[*facts.producer];
    row(tr("Producer"), QString("#%1 %2").arg(num(qint64(*facts.producer)), QString::fromStdString(p.label)));
  }
  if (!facts.consumers.empty()) {
    auto* consumers = row(tr("Consumers"), QString::number(facts.consumers.size()));
    for (size_t c : facts.consumers)
      row(QString::number(c), QString::fromStdString(dataflow->instructions()[c].label), consumers);
    consumers->setExpanded(true);
  }
}

// A TensorRT delegate's blob: engine, device, bindings and aliases.
void PropertiesPanel::showTensorRTPayload(const DelegatePayload& payload, QTreeWidgetItem* parent) {
  if (!payload.tensorrt) {
    row(tr("Payload"), tr("TensorRT blob, unreadable: %1").arg(QString::fromStdString(payload.problem)), parent);
    return;
  }
  const TensorRTBlob& blob = *payload.tensorrt;
  auto* p = row(tr("Payload"), tr("TensorRT engine (%1)").arg(QString::fromStdString(blob.magic)), parent);
  row(tr("Engine"), tr("%1 at offset %2").arg(bytesText(qint64(blob.engine_size)), num(qint64(blob.engine_offset))), p);
  row(tr("Device id"), QString::number(blob.device_id), p);
  row(tr("Hardware compatible"), blob.hardware_compatible ? tr("yes") : tr("no"), p);
  for (const auto& [label, list] : {std::pair{tr("Inputs"), blob.inputs()}, std::pair{tr("Outputs"), blob.outputs()}}) {
    QStringList names;
    for (const auto* b : list) names << QString::fromStdString(b->name);
    row(label, names.join(", "), p);
  }
  for (const auto& a : blob.aliased_io)
    row(tr("Aliased"), tr("%1 updates %2 (%3)")
                           .arg(QString::fromStdString(a.output), QString::fromStdString(a.input),
                                QString::fromStdString(a.kind)),
        p);
  p->setExpanded(true);
}

void PropertiesPanel::showInstruction(size_t k) {
  clear();
  shownInstruction_ = k;
  const Method* method = document_->currentMethod();
  const analysis::Dataflow* dataflow = document_->currentDataflow();
  if (method == nullptr || dataflow == nullptr || k >= dataflow->instructionCount()) return;
  const auto& facts = dataflow->instructions()[k];
  row(tr("Instruction"), QString::number(k));
  row(tr("Kind"), QString::fromStdString(instructionKindName(facts.kind)));
  row(tr("Operation"), QString::fromStdString(facts.label));
  if (groupNamer_)
    if (const QString group = groupNamer_(k); !group.isEmpty()) row(tr("Group"), group);
  if (facts.delegate_index >= 0 && size_t(facts.delegate_index) < items(method->delegates).size()) {
    const auto& d = (*method->delegates)[size_t(facts.delegate_index)];
    auto* del = row(tr("Delegate"), QString("%1 (%2)").arg(num(facts.delegate_index), QString::fromStdString(d.id.value_or(""))));
    for (const auto& spec : items(d.compile_specs))
      row(QString::fromStdString(spec.key.value_or("")),
          QString::fromStdString(report::compileSpecValueText(items(spec.value))), del);
    if (auto blob = delegateBlob(document_->program(), d)) row(tr("Blob"), bytesText(qint64(blob->size())), del);
    const auto payload = describeDelegatePayload(document_->program(), d);
    if (payload.aoti) {
      auto* p = row(tr("Payload"), payload.legacy_keys ? tr("AOTI named data (keys from method_name)")
                                                       : tr("AOTI named data (keys in the blob)"), del);
      for (const auto& n : payload.named_data) {
        QString where = QString::fromStdString(describeWhere(n));
        if (n.where != NamedDataLocation::Where::Missing) where += QStringLiteral(", ") + bytesText(qint64(n.size));
        auto* entry = row(QString::fromStdString(n.role), where, p);
        row(tr("Key"), QString::fromStdString(n.key), entry);
      }
      if (!payload.problem.empty()) {
        // What fails, marked as such, its consequence first (it was cut
        // after "named data '1c59ef3…" at 1000 px); the whole message is
        // the tool tip.
        QStringList missing;
        for (const auto& n : payload.named_data)
          if (n.where == NamedDataLocation::Where::Missing) missing << QString::fromStdString(n.role);
        const QString shown = missing.isEmpty()
                                  ? QString::fromStdString(payload.problem)
                                  : tr("init fails: %1 not found (no .ptd holds it; lint PTS020)").arg(missing.join(", "));
        auto* problem = row(tr("Problem"), shown, p);
        problem->setToolTip(1, plainToolTip(QString::fromStdString(payload.problem)));
        for (int column : {0, 1}) problem->setForeground(column, QColor(0xb0, 0x00, 0x20));
      }
      p->setExpanded(true);
    }
    if (isTensorRTBackend(d.id.value_or(""))) showTensorRTPayload(payload, del);
    del->setExpanded(true);
    // What the backend copies inside its execute() (README "Copies inside
    // delegates"): never an instruction, listed with its own mark. TensorRT
    // delegates stage host memory; CudaBackend ones copy only when CUDA
    // graph replay is on for the method (the setting beside the link).
    const bool replays = runSettings_.cuda_graph_methods.count(method->displayName()) > 0;
    const bool copiesInside = isTensorRTBackend(d.id.value_or("")) || replays;
    const auto inside = copiesInside ? analysis::delegateTransfers(document_->program(), *method, runSettings_)
                                     : analysis::DelegateTransfers{};
    QTreeWidgetItem* copies = nullptr;
    for (const auto& t : inside.transfers) {
      if (t.instruction != k) continue;
      const bool replay = analysis::isCudaGraphReplay(t.kind);
      if (copies == nullptr)
        copies = row(tr("Copies inside delegate"),
                     replay ? tr("no instruction: the backend copies (CUDA graph replay is on for %1 in the "
                                 "Transfers panel's settings, as --cuda-graph)")
                                  .arg(QString::fromStdString(method->displayName()))
                            : tr("no instruction: the backend copies"));
      row(QString::fromStdString(program::copyDirectionName(t.direction)),
          QString::fromStdString(t.text() + ", " + program::bytesText(int64_t(t.bytes))), copies);
    }
    for (const auto& r : inside.refusals)
      if (r.instruction == k) row(tr("Refused"), QString::fromStdString(r.message));
    if (copies != nullptr) copies->setExpanded(true);
  }
  auto* inputs = row(tr("Inputs"), QString::number(facts.inputs.size()));
  for (int32_t v : facts.inputs) row(QString(), valueLabel(*method, v), inputs);
  inputs->setExpanded(true);
  auto* outputs = row(tr("Outputs"), QString::number(facts.outputs.size()));
  for (int32_t v : facts.outputs) row(QString(), valueLabel(*method, v), outputs);
  outputs->setExpanded(true);
}

}  // namespace ptescope::ui
