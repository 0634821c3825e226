// The program as a tree: methods (with their delegates, compile specs and
// operators), segments, named data, external data.
#pragma once

#include <QAbstractItemModel>

#include <memory>
#include <vector>

namespace ptescope::ui {

class Document;

class ProgramTreeModel : public QAbstractItemModel {
  Q_OBJECT
 public:
  enum class NodeKind { Group, Method, Delegate, CompileSpec, Operator, Segment, NamedData, ExternalData };
  enum Role { KindRole = Qt::UserRole + 20, MethodRole, ItemIndexRole };

  explicit ProgramTreeModel(Document* document, QObject* parent = nullptr);
  ~ProgramTreeModel() override;

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  // The index of method `m`'s node.
  QModelIndex methodIndex(int m) const;

  struct Node;

 private:
  void rebuild();
  Node* nodeOf(const QModelIndex& index) const;
  Document* document_;
  std::unique_ptr<Node> root_;
};

}  // namespace ptescope::ui
