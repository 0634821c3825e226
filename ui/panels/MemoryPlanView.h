// The memory plan of the current method: one band per planned buffer, and in
// it every planned tensor as a rectangle of (lifetime in instruction order)
// × (offset, size), coloured by device, with buffer totals and peak use.
// Hover shows the tensor; a click selects it; the selected tensor is scrolled
// into view. Ctrl+wheel, Ctrl+= / Ctrl+- / Ctrl+0 zoom the instruction axis
// (a method of 2,000 tensors was slivers). Its accessible description is
// what the bands say ("buffer 1 · cpu:0: 16.0 KiB, peak 16.0 KiB; ..."), the
// plan being only painted.
#pragma once

#include <QWidget>

class QScrollArea;
class QFontMetrics;

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

  // The scroll area the plan is shown in: a selected tensor is scrolled into
  // view in it, zoom widens the plan in it, and the buffers' titles stay at
  // its left edge while it scrolls sideways.
  void setScrollArea(QScrollArea* area);
  // 1 fits every instruction in the width; up to a column of 80 px each.
  double zoom() const { return zoom_; }
  double maxZoom() const;
  void setZoom(double zoom);
  void zoomIn();
  void zoomOut();
  void zoomToFit();

  // Where the value's tensor is drawn, in the plan's coordinates; empty when
  // it is not planned.
  QRectF valueRect(int32_t value) const;
  // Every how many instructions the axis is numbered: 1, 2, 5, 10, 20...,
  // the least that leaves `labelPixels` per number at `columnPixels` per
  // instruction (more than `instructions` when there is no room).
  static size_t axisStep(size_t instructions, double columnPixels, double labelPixels);

  // Where a buffer's band is drawn (1-based buffer), empty when not drawn;
  // its size figures as drawn, packed into lines of the titles' width.
  QRectF bufferRect(int buffer) const;
  QStringList captionLines(const Band& band, const QFontMetrics& metrics) const;
  int titleWidth() const { return titleWidth_; }

  // Marks the value's block (the selection's value); -1 marks none.
  void selectValue(int32_t value);
  int32_t selectedValue() const { return selected_; }

 signals:
  // A click on a value's block.
  void valueClicked(int32_t value);
  // Esc with a tensor selected.
  void selectionCleared();
  void zoomChanged(double zoom);
  // The selected tensor in words ("%20 float32[1, 4, 1] cpu:0, 16 B at +0,
  // live 3–5"); empty when none is selected.
  void selectionDescribed(const QString& text);

 private:
  void paintEvent(QPaintEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void rebuild();
  // The width the plan takes at its zoom, and its height (each buffer at
  // least as tall as lets its smallest tensor carry a label, up to a limit).
  void fitSize();
  void scrollToValue(int32_t value);
  int fitWidth() const;
  // Where the titles are drawn: the left edge of the visible part.
  double titleLeft() const;
  void paintAxis(QPainter& p, const QRectF& last) const;
  static QString bandTitle(const Band& band);
  static QString bandSizes(const Band& band);
  static QStringList bandSizeLines(const Band& band);
  void fitTitles();
  QRectF blockRect(const Block& block) const;
  QRectF bandRect(size_t band) const;

  Document* document_;
  std::vector<Block> blocks_;
  std::vector<Band> bands_;
  std::vector<double> labelHeights_;  // each band's height for its smallest tensor's label
  std::vector<double> bandHeights_;   // each band's least height, in pixels (its captions too)
  int titleWidth_ = 170;              // the buffers' titles' column (fitTitles)
  QScrollArea* scrollArea_ = nullptr;
  double zoom_ = 1.0;
  int emptyBuffers_ = 0;  // 0-byte buffers nothing is planned in (not drawn)
  size_t instructions_ = 0;
  int32_t hovered_ = -1;
  int32_t selected_ = -1;
};

}  // namespace ptescope::ui
