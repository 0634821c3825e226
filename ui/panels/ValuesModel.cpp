#include "ui/panels/ValuesModel.h"
#include "ui/common/PlainText.h"
#include "ui/common/FindWords.h"

#include "ui/common/Format.h"

#include "program/Program.h"
#include "ui/document/Document.h"
#include "ui/common/ItemRoles.h"

namespace ptescope::ui {
using namespace ptescope::program;

namespace {

QString scalarText(const Value& v) {
  return std::visit(
      [](const auto& x) -> QString {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, IntValue>) return QString::number(x.value);
        else if constexpr (std::is_same_v<T, DoubleValue>) return QString::number(x.value);
        else if constexpr (std::is_same_v<T, BoolValue>) return x.value ? "true" : "false";
        else if constexpr (std::is_same_v<T, StringValue>) return QString::fromStdString(x.value.value_or(""));
        else if constexpr (std::is_same_v<T, IntListValue> || std::is_same_v<T, TensorListValue> ||
                           std::is_same_v<T, OptionalTensorListValue>)
          return countText(qint64(items(x.items).size()), QStringLiteral("item"));
        else return QString();
      },
      v.data);
}

}  // namespace

ValuesModel::ValuesModel(Document* document, QObject* parent) : QAbstractTableModel(parent), document_(document) {
  connect(document_, &Document::currentMethodChanged, this, &ValuesModel::rebuild);
  connect(document_, &Document::programChanged, this, &ValuesModel::rebuild);
  rebuild();
}

void ValuesModel::rebuild() {
  beginResetModel();
  rows_.clear();
  const Method* method = document_->currentMethod();
  const analysis::Dataflow* dataflow = document_->currentDataflow();
  if (method != nullptr && dataflow != nullptr) {
    const auto& values = items(method->values);
    rows_.reserve(values.size());
    for (size_t v = 0; v < values.size(); ++v) {
      const Value& value = values[v];
      const auto& facts = dataflow->values()[v];
      Row row;
      row.value = int32_t(v);
      row.kind = QString::fromStdString(valueKindName(value.kind()));
      if (const Tensor* t = value.tensor()) {
        row.dtype = QString::fromStdString(scalarTypeShortName(t->scalar_type));
        row.sizes = ui::sizesText(*t);
        row.bytes = t->nbytes();
        row.device = QString::fromStdString(t->device().str());
        if (t->extra_tensor_info && t->extra_tensor_info->fully_qualified_name)
          row.name = QString::fromStdString(*t->extra_tensor_info->fully_qualified_name);
        if (t->allocation_info) {
          row.buffer = int(t->allocation_info->memory_id);
          row.offset = qint64(t->allocation_info->offset());
        }
      } else {
        row.sizes = scalarText(value);
      }
      QStringList roles;
      if (facts.is_method_input) roles << tr("input");
      if (facts.is_method_output) roles << tr("output");
      if (value.tensor() && value.tensor()->isConstant()) roles << tr("constant");
      if (roles.isEmpty() && facts.origin == analysis::ValueOrigin::Instruction) roles << tr("intermediate");
      if (roles.isEmpty() && facts.origin == analysis::ValueOrigin::Constant) roles << tr("literal");
      row.role = roles.join(", ");
      if (facts.producer) row.producer = qint64(*facts.producer);
      if (facts.lifetime) {
        row.lifetimeStart = qint64(facts.lifetime->first);
        row.lifetime = QString("%1–%2").arg(facts.lifetime->first).arg(facts.lifetime->second);
      }
      QStringList consumers;
      for (size_t c : facts.consumers) consumers << QString::number(c);
      row.consumers = consumers.join(", ");
      rows_.push_back(std::move(row));
    }
  }
  endResetModel();
}

int ValuesModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }
int ValuesModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ValuesModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() < 0 || size_t(index.row()) >= rows_.size()) return {};
  const Row& r = rows_[size_t(index.row())];
  if (role == ValueIndexRole) return r.value;
  if (role == DeviceRole) return r.device;
  if (role == InstructionRole) return r.producer;
  if (role == NameRole) return r.name;
  if (role == Qt::TextAlignmentRole) {
    switch (index.column()) {
      case Index: case Bytes: case Buffer: case Offset: case Producer: return int(Qt::AlignRight | Qt::AlignVCenter);
      default: return {};
    }
  }
  if (role == Qt::ToolTipRole && index.column() == Offset && r.offset >= 0)
    return tr("At byte %1 of buffer %2").arg(num(r.offset), num(qint64(r.buffer)));
  if (role == Qt::ToolTipRole) {
    const QVariant shown = data(index, Qt::DisplayRole);
    return shown.typeId() == QMetaType::QString ? QVariant(plainToolTip(shown.toString())) : shown;
  }
  if (role != Qt::DisplayRole && role != SortRole) return {};
  const bool sort = role == SortRole;
  switch (index.column()) {
    case Index: return sort ? QVariant(r.value) : QVariant("%" + QString::number(r.value));
    case Kind: return r.kind;
    case DType: return r.dtype;
    case Sizes: return r.sizes;
    case Bytes: return r.bytes < 0 ? (sort ? QVariant(qint64(-1)) : QVariant()) : sort ? QVariant(r.bytes) : QVariant(bytesText(r.bytes));
    case Device: return r.device;
    case Buffer: return r.buffer > 0 ? QVariant(r.buffer) : (sort ? QVariant(0) : QVariant());
    // In the units the Bytes column uses (it showed a raw 16384 beside
    // "8.0 KiB"); the exact byte is the tool tip.
    case Offset:
      return r.offset >= 0 ? (sort ? QVariant(r.offset) : QVariant(bytesText(r.offset))) : (sort ? QVariant(qint64(-1)) : QVariant());
    case Lifetime: return sort ? QVariant(r.lifetimeStart) : QVariant(r.lifetime);
    case Role: return r.role;
    case Producer: return r.producer >= 0 ? QVariant(r.producer) : (sort ? QVariant(qint64(-1)) : QVariant());
    case Consumers: return r.consumers;
    default: return {};
  }
}

QVariant ValuesModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  // A scalar's value sits where a tensor's sizes do: the header says both
  // ("Sizes" over an Int's 128 or a Double's 1e-05 read as a shape).
  if (role == Qt::ToolTipRole && section == Sizes)
    return tr("A tensor's sizes; an Int's, Double's, Bool's or String's value; a list's number of items");
  if (role != Qt::DisplayRole) return {};
  static const char* names[] = {"Value", "Kind", "DType", "Sizes / value", "Bytes", "Device", "Buffer", "Offset",
                                "Lifetime", "Role", "Producer", "Consumers"};
  return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}

int ValuesModel::rowOfValue(int32_t value) const {
  return value >= 0 && size_t(value) < rows_.size() && rows_[size_t(value)].value == value ? int(value) : -1;
}

DeviceFilterProxy::DeviceFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(SortRole);
}

void DeviceFilterProxy::setWords(const QString& text) {
  words_ = findWords(text.toStdString());
  invalidateFilter();
}

void DeviceFilterProxy::setDevice(const QString& device) {
  device_ = device;
  invalidateFilter();
}

bool DeviceFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
  if (!device_.isEmpty()) {
    const QString rowDevice = sourceModel()->index(sourceRow, 0, sourceParent).data(DeviceRole).toString();
    if (rowDevice != device_) return false;
  }
  if (words_.empty()) return true;
  std::vector<std::string> texts;
  const int columns = sourceModel()->columnCount(sourceParent);
  texts.reserve(size_t(columns) + 1);
  for (int c = 0; c < columns; ++c)
    texts.push_back(sourceModel()->index(sourceRow, c, sourceParent).data().toString().toStdString());
  texts.push_back(sourceModel()->index(sourceRow, 0, sourceParent).data(NameRole).toString().toStdString());
  std::vector<const std::string*> refs;
  for (const auto& text : texts) refs.push_back(&text);
  return containsAllWords(words_, refs);
}

}  // namespace ptescope::ui
