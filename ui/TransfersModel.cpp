#include "ui/TransfersModel.h"

#include "program/Program.h"
#include "ui/Document.h"
#include "ui/ItemRoles.h"

namespace ptescope::ui {
using namespace ptescope::program;

TransfersModel::TransfersModel(Document* document, QObject* parent) : QAbstractTableModel(parent), document_(document) {
  connect(document_, &Document::currentMethodChanged, this, &TransfersModel::rebuild);
  connect(document_, &Document::programChanged, this, &TransfersModel::rebuild);
  rebuild();
}

void TransfersModel::rebuild() {
  beginResetModel();
  rows_.clear();
  const Method* method = document_->currentMethod();
  const analysis::Dataflow* dataflow = document_->currentDataflow();
  if (method != nullptr && dataflow != nullptr) {
    const auto& values = items(method->values);
    for (const auto& ins : dataflow->instructions()) {
      if (!ins.is_h2d_copy && !ins.is_d2h_copy) continue;
      const auto& instruction = (*(*method->chains)[ins.chain].instructions)[ins.index_in_chain];
      const auto* call = std::get_if<KernelCall>(&instruction.data);
      if (call == nullptr || items(call->args).size() < 2) continue;
      Row row;
      row.instruction = ins.flat_index;
      row.hostToDevice = ins.is_h2d_copy;
      row.source = (*call->args)[0];
      row.destination = (*call->args)[1];
      const Tensor* src = size_t(row.source) < values.size() ? values[size_t(row.source)].tensor() : nullptr;
      const Tensor* dst = size_t(row.destination) < values.size() ? values[size_t(row.destination)].tensor() : nullptr;
      if (src != nullptr) {
        row.bytes = src->nbytes();
        row.from = QString::fromStdString(src->device().str());
        QStringList sizes;
        for (int32_t s : items(src->sizes)) sizes << QString::number(s);
        row.tensor = QString::fromStdString(scalarTypeShortName(src->scalar_type)) + "[" + sizes.join(",") + "]";
      }
      if (dst != nullptr) row.to = QString::fromStdString(dst->device().str());
      rows_.push_back(std::move(row));
    }
  }
  endResetModel();
}

qint64 TransfersModel::totalBytes(bool hostToDevice) const {
  qint64 total = 0;
  for (const auto& r : rows_)
    if (r.hostToDevice == hostToDevice) total += std::max<qint64>(r.bytes, 0);
  return total;
}

int TransfersModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }
int TransfersModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant TransfersModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() < 0 || size_t(index.row()) >= rows_.size()) return {};
  const Row& r = rows_[size_t(index.row())];
  if (role == InstructionRole) return qulonglong(r.instruction);
  if (role == ValueIndexRole) return r.destination;
  if (role == DeviceRole) return r.hostToDevice ? r.to : r.from;
  if (role == Qt::TextAlignmentRole && (index.column() == Instruction || index.column() == Bytes))
    return int(Qt::AlignRight | Qt::AlignVCenter);
  if (role != Qt::DisplayRole && role != SortRole) return {};
  const bool sort = role == SortRole;
  switch (index.column()) {
    case Instruction: return qulonglong(r.instruction);
    case Direction: return r.hostToDevice ? tr("H2D") : tr("D2H");
    case Source: return sort ? QVariant(r.source) : QVariant("%" + QString::number(r.source));
    case Destination: return sort ? QVariant(r.destination) : QVariant("%" + QString::number(r.destination));
    case Bytes: return r.bytes;
    case From: return r.from;
    case To: return r.to;
    case TensorShape: return r.tensor;
    default: return {};
  }
}

QVariant TransfersModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* names[] = {"Instruction", "Direction", "Source", "Destination", "Bytes", "From", "To", "Tensor"};
  return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

}  // namespace ptescope::ui
