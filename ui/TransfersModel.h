// Every host<->device copy of the current method: instruction, direction,
// source -> destination value, bytes, devices, dtype and shape.
#pragma once

#include <QAbstractTableModel>

#include <vector>

namespace ptescope::ui {

class Document;

class TransfersModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Instruction, Direction, Source, Destination, Bytes, From, To, TensorShape, ColumnCount };

  explicit TransfersModel(Document* document, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  struct Row {
    size_t instruction = 0;
    bool hostToDevice = true;
    int32_t source = -1;
    int32_t destination = -1;
    qint64 bytes = 0;
    QString from, to, tensor;
  };
  const std::vector<Row>& rows() const { return rows_; }
  // Total bytes per direction.
  qint64 totalBytes(bool hostToDevice) const;

 private:
  void rebuild();
  Document* document_;
  std::vector<Row> rows_;
};

}  // namespace ptescope::ui
