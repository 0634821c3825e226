#include "ui/panels/ProgramTreeModel.h"
#include "ui/common/PlainText.h"
#include "ui/common/Format.h"

#include <QFont>

#include "program/DelegatePayload.h"
#include "report/InfoReport.h"
#include "ui/document/Document.h"

namespace ptescope::ui {
using namespace ptescope::program;

struct ProgramTreeModel::Node {
  QString label;
  QString detail;
  QString more;  // said in the tooltip after the detail (a segment's offset)
  NodeKind kind = NodeKind::Group;
  int method = -1;
  int item = -1;
  Node* parent = nullptr;
  std::vector<std::unique_ptr<Node>> children;

  Node* add(QString l, QString d, NodeKind k, int m = -1, int i = -1) {
    auto child = std::make_unique<Node>();
    child->label = std::move(l);
    child->detail = std::move(d);
    child->kind = k;
    child->method = m;
    child->item = i;
    child->parent = this;
    children.push_back(std::move(child));
    return children.back().get();
  }
  int row() const {
    if (parent == nullptr) return 0;
    for (size_t i = 0; i < parent->children.size(); ++i)
      if (parent->children[i].get() == this) return int(i);
    return 0;
  }
};

ProgramTreeModel::ProgramTreeModel(Document* document, QObject* parent)
    : QAbstractItemModel(parent), document_(document), root_(std::make_unique<Node>()) {
  connect(document_, &Document::programChanged, this, &ProgramTreeModel::rebuild);
  rebuild();
}

ProgramTreeModel::~ProgramTreeModel() = default;

void ProgramTreeModel::rebuild() {
  beginResetModel();
  root_ = std::make_unique<Node>();
  if (document_->hasProgram()) {
    const Program& program = document_->program();
    Node* methods = root_->add(tr("Methods"), QString::number(program.methods().size()), NodeKind::Group);
    for (size_t m = 0; m < program.methods().size(); ++m) {
      const Method& method = program.methods()[m];
      size_t instructions = 0;
      for (const auto& c : items(method.chains)) instructions += items(c.instructions).size();
      Node* mn = methods->add(QString::fromStdString(method.displayName()),
                              tr("%1, %2").arg(countText(qint64(items(method.values).size()), tr("value")), countText(qint64(instructions), tr("instruction"))),
                              NodeKind::Method, int(m));
      const auto& delegates = items(method.delegates);
      if (!delegates.empty()) {
        Node* dn = mn->add(tr("Delegates"), QString::number(delegates.size()), NodeKind::Group, int(m));
        for (size_t d = 0; d < delegates.size(); ++d) {
          const CompileSpec* target = delegates[d].findCompileSpec("target_device");
          Node* del = dn->add(QString("%1: %2").arg(num(qint64(d)), QString::fromStdString(delegates[d].id.value_or("?"))),
                              target ? QString::fromStdString(target->valueText()) : tr("host"), NodeKind::Delegate,
                              int(m), int(d));
          for (const auto& spec : items(delegates[d].compile_specs))
            del->add(QString::fromStdString(spec.key.value_or("")),
                     QString::fromStdString(report::compileSpecValueText(items(spec.value))), NodeKind::CompileSpec,
                     int(m), int(d));
          // An AOTI payload names its data: the so blob and the weights blob.
          const auto payload = describeDelegatePayload(program, delegates[d]);
          for (const auto& n : payload.named_data) {
            QString where = QString::fromStdString(describeWhere(n));
            if (n.where != NamedDataLocation::Where::Missing) where += QStringLiteral(", ") + bytesText(qint64(n.size));
            del->add(QString::fromStdString(n.role), QString::fromStdString(n.key) + " — " + where,
                     NodeKind::NamedData, int(m), -1);
          }
          if (!payload.problem.empty())
            del->add(tr("payload problem"), QString::fromStdString(payload.problem), NodeKind::NamedData, int(m), -1);
        }
      }
      const auto& operators = items(method.operators);
      if (!operators.empty()) {
        Node* on = mn->add(tr("Operators"), QString::number(operators.size()), NodeKind::Group, int(m));
        for (size_t o = 0; o < operators.size(); ++o)
          on->add(QString::fromStdString(operators[o].qualifiedName()), QString(), NodeKind::Operator, int(m), int(o));
      }
    }
    const auto& segments = items(program.segments);
    Node* sn = root_->add(tr("Segments"), QString::number(segments.size()), NodeKind::Group);
    // The size in the column (its offset there pushed it out of a narrow
    // dock), the offset in the tooltip.
    for (size_t s = 0; s < segments.size(); ++s)
      sn->add(tr("segment %1").arg(s), bytesText(qint64(segments[s].data.size())), NodeKind::Segment, -1, int(s))->more =
          tr("at +%1").arg(num(qint64(segments[s].offset)));
    const auto& named = items(program.named_data);
    if (!named.empty()) {
      Node* nn = root_->add(tr("Named data"), QString::number(named.size()), NodeKind::Group);
      for (size_t n = 0; n < named.size(); ++n) {
        // The size first: what a narrow dock keeps of it.
        QString detail = tr("segment %1").arg(named[n].segment_index);
        if (named[n].segment_index < segments.size())
          detail = tr("%1 in segment %2").arg(bytesText(qint64(segments[named[n].segment_index].data.size())), num(qint64(named[n].segment_index)));
        nn->add(QString::fromStdString(named[n].key.value_or("")), detail, NodeKind::NamedData, -1, int(n));
      }
    }
    for (const auto& ext : program.external_data)
      root_->add(tr("External data"), tr("%1 (%2)").arg(QString::fromStdString(ext.path), countText(qint64(ext.entries.size()), tr("entry"), tr("entries"))),
                 NodeKind::ExternalData);
  }
  endResetModel();
}

ProgramTreeModel::Node* ProgramTreeModel::nodeOf(const QModelIndex& index) const {
  return index.isValid() ? static_cast<Node*>(index.internalPointer()) : root_.get();
}

QModelIndex ProgramTreeModel::index(int row, int column, const QModelIndex& parent) const {
  if (column < 0 || column >= 2 || row < 0) return {};
  Node* p = nodeOf(parent);
  if (p == nullptr || size_t(row) >= p->children.size()) return {};
  return createIndex(row, column, p->children[size_t(row)].get());
}

QModelIndex ProgramTreeModel::parent(const QModelIndex& child) const {
  if (!child.isValid()) return {};
  Node* n = nodeOf(child);
  Node* p = n->parent;
  if (p == nullptr || p == root_.get()) return {};
  return createIndex(p->row(), 0, p);
}

int ProgramTreeModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() && parent.column() != 0) return 0;
  Node* p = nodeOf(parent);
  return p ? int(p->children.size()) : 0;
}

int ProgramTreeModel::columnCount(const QModelIndex&) const { return 2; }

QVariant ProgramTreeModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  const Node* n = nodeOf(index);
  switch (role) {
    case Qt::DisplayRole: return index.column() == 0 ? n->label : n->detail;
    case Qt::ToolTipRole: {
      QString text = n->detail.isEmpty() ? n->label : n->label + ": " + n->detail;
      if (!n->more.isEmpty()) text += " " + n->more;
      return plainToolTip(text);
    }
    case KindRole: return int(n->kind);
    case MethodRole: return n->method;
    case ItemIndexRole: return n->item;
    case Qt::FontRole:
      if (n->kind == NodeKind::Method && n->method == document_->currentMethodIndex()) {
        QFont f;
        f.setBold(true);
        return f;
      }
      return {};
    default: return {};
  }
}

QVariant ProgramTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  return section == 0 ? tr("Program") : tr("Details");
}

QModelIndex ProgramTreeModel::methodIndex(int m) const {
  if (root_->children.empty()) return {};
  Node* methods = root_->children.front().get();
  if (m < 0 || size_t(m) >= methods->children.size()) return {};
  return createIndex(m, 0, methods->children[size_t(m)].get());
}

}  // namespace ptescope::ui
