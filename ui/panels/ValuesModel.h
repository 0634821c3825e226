// Every value of the current method as a table: kind, dtype, sizes, bytes,
// device, planned buffer and offset, lifetime, role, producer, consumers.
#pragma once

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>

#include <string>
#include <vector>

namespace ptescope::ui {

class Document;

class ValuesModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Index, Kind, DType, Sizes, Bytes, Device, Buffer, Offset, Lifetime, Role, Producer, Consumers, ColumnCount };

  explicit ValuesModel(Document* document, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  // Row of a value index, or -1.
  int rowOfValue(int32_t value) const;

 private:
  void rebuild();
  struct Row {
    int32_t value;
    QString kind, dtype, sizes, device, role, lifetime, consumers;
    QString name;  // the tensor's fully qualified name, when the program gives one
    qint64 bytes = -1;
    int buffer = 0;
    qint64 offset = -1;
    qint64 producer = -1;
    qint64 lifetimeStart = -1;
  };
  Document* document_;
  std::vector<Row> rows_;
};

// Filters rows by device ("" = all) and by words, each in some column or the
// value's name (NameRole): Find's rule (FindWords), so what Find matches on a
// value, Values finds too.
class DeviceFilterProxy : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit DeviceFilterProxy(QObject* parent = nullptr);
  void setDevice(const QString& device);
  QString device() const { return device_; }
  void setWords(const QString& text);

 protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

 private:
  QString device_;
  std::vector<std::string> words_;
};

}  // namespace ptescope::ui
