// The memory plan of the current method: one band per planned buffer, and in
// it every planned tensor as a rectangle of (lifetime in instruction order)
// × (offset, size), coloured by device, with buffer totals and peak use.
// Hover shows the tensor; a click selects it. Its accessible description is
// what the bands say ("buffer 1 · cpu:0: 16.0 KiB, peak 16.0 KiB; ..."), the
// plan being only painted.
#pragma once

#include <QWidget>

#include <vector>

namespace ptescope::ui {

class Document;

class MemoryPlanView : public QWidget {
  Q_OBJECT
 public:
  explicit MemoryPlanView(Document* document, QWidget* parent = nullptr);

  struct Block {
    int32_t value = -1;
    int buffer = 0;  // 1-based
    size_t start = 0, end = 0;  // lifetime, inclusive
    quint64 offset = 0, bytes = 0;
    QString device, label;
  };
  struct Band {
    int buffer = 0;
    QString device;
    quint64 size = 0;
    quint64 peak = 0;     // most bytes live at once
    quint64 highest = 0;  // the highest byte used (the report's "Highest byte used")
  };
  const std::vector<Block>& blocks() const { return blocks_; }
  const std::vector<Band>& bands() const { return bands_; }
  QString emptyText() const;
  // The tensor drawn at a widget position, or -1.
  int32_t valueAt(const QPoint& position) const;

  QSize sizeHint() const override { return {900, 260}; }

  // Marks the value's block (the selection's value); -1 marks none.
  void selectValue(int32_t value);
  int32_t selectedValue() const { return selected_; }

 signals:
  // A click on a value's block.
  void valueClicked(int32_t value);
  // Esc with a tensor selected.
  void selectionCleared();

 private:
  void paintEvent(QPaintEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void rebuild();
  static QString bandTitle(const Band& band);
  static QString bandSizes(const Band& band);
  QRectF blockRect(const Block& block) const;
  QRectF bandRect(size_t band) const;

  Document* document_;
  std::vector<Block> blocks_;
  std::vector<Band> bands_;
  int emptyBuffers_ = 0;  // 0-byte buffers nothing is planned in (not drawn)
  size_t instructions_ = 0;
  int32_t hovered_ = -1;
  int32_t selected_ = -1;
};

}  // namespace ptescope::ui
