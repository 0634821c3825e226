#include "ui/panels/MemoryPlanView.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QTimer>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <optional>
#include <map>

#include "ui/common/DeviceColors.h"
#include "ui/document/Document.h"
#include "ui/common/Format.h"
#include "ui/common/ViewControls.h"

namespace ptescope::ui {
using namespace ptescope::program;

namespace {

constexpr int kMarginLeft = 170;  // the titles' least width (titleWidth_)
constexpr int kMarginRight = 12;
constexpr int kMarginTop = 8;
constexpr int kBandGap = 10;
constexpr int kAxisHeight = 18;
constexpr int kBandMinHeight = 40;   // the title and the sizes, two lines
constexpr int kBandMaxHeight = 240;  // how tall a band grows for its smallest tensor's label
constexpr double kZoomStep = 1.5;
constexpr double kMaxColumnPixels = 80;  // the most zoom: one instruction this wide

}  // namespace

MemoryPlanView::MemoryPlanView(Document* document, QWidget* parent) : QWidget(parent), document_(document) {
  setObjectName("memoryPlan");
  setAccessibleName(tr("Memory plan"));
  setMouseTracking(true);
  // A Tab stop: the arrow keys step from tensor to tensor as clicks do
  // (the plan could not be used without a mouse).
  setFocusPolicy(Qt::StrongFocus);
  setMinimumHeight(120);
  connect(document_, &Document::programChanged, this, &MemoryPlanView::rebuild);
  connect(document_, &Document::currentMethodChanged, this, &MemoryPlanView::rebuild);
  addZoomShortcuts(this, [this] { zoomIn(); }, [this] { zoomOut(); }, [this] { zoomToFit(); });
  rebuild();
}

void MemoryPlanView::setScrollArea(QScrollArea* area) {
  scrollArea_ = area;
  // The titles are drawn at the visible left edge: redrawn as it moves.
  connect(area->horizontalScrollBar(), &QScrollBar::valueChanged, this, qOverload<>(&QWidget::update));
  area->viewport()->installEventFilter(this);
  fitSize();
}

bool MemoryPlanView::eventFilter(QObject* watched, QEvent* event) {
  if (scrollArea_ != nullptr && watched == scrollArea_->viewport() && event->type() == QEvent::Resize) {
    // How far it zooms depends on the width: the buttons follow.
    zoom_ = std::clamp(zoom_, 1.0, maxZoom());
    fitTitles();
    fitSize();
    emit zoomChanged(zoom_);
  }
  return QWidget::eventFilter(watched, event);
}

int MemoryPlanView::fitWidth() const { return scrollArea_ != nullptr ? scrollArea_->viewport()->width() : width(); }

double MemoryPlanView::titleLeft() const {
  return scrollArea_ != nullptr ? double(scrollArea_->horizontalScrollBar()->value()) : 0.0;
}

double MemoryPlanView::maxZoom() const {
  const double fitColumns = double(std::max(fitWidth() - titleWidth_ - kMarginRight, 1));
  const double column = fitColumns / double(instructions_ + 1);
  return std::max(1.0, kMaxColumnPixels / std::max(column, 1e-9));
}

void MemoryPlanView::setZoom(double zoom) {
  zoom = std::clamp(zoom, 1.0, maxZoom());
  if (zoom == zoom_) return;
  // The selected tensor, else the instruction in the middle of the view,
  // stays in the middle.
  double middle = 0.5;
  if (scrollArea_ != nullptr && width() > titleWidth_ + kMarginRight) {
    double centre = titleLeft() + titleWidth_ / 2.0 + scrollArea_->viewport()->width() / 2.0;
    for (const auto& b : blocks_)
      if (b.value == selected_) centre = blockRect(b).center().x();
    middle = std::clamp((centre - titleWidth_) / double(width() - titleWidth_ - kMarginRight), 0.0, 1.0);
  }
  zoom_ = zoom;
  fitSize();
  if (scrollArea_ != nullptr)
    QTimer::singleShot(0, this, [this, middle] {
      const double x = titleWidth_ + middle * double(width() - titleWidth_ - kMarginRight);
      scrollArea_->horizontalScrollBar()->setValue(int(x - titleWidth_ / 2.0 - scrollArea_->viewport()->width() / 2.0));
    });
  emit zoomChanged(zoom_);
}

void MemoryPlanView::zoomIn() { setZoom(zoom_ * kZoomStep); }
void MemoryPlanView::zoomOut() { setZoom(zoom_ / kZoomStep); }
void MemoryPlanView::zoomToFit() { setZoom(1.0); }

void MemoryPlanView::fitSize() {
  double bands = 0;
  for (double h : bandHeights_) bands += h;
  setMinimumHeight(int(kMarginTop + bands + kBandGap * std::max<int>(0, int(bandHeights_.size()) - 1) + kAxisHeight + 4));
  const int columns = std::max(fitWidth() - titleWidth_ - kMarginRight, 1);
  setMinimumWidth(zoom_ > 1.0 ? titleWidth_ + kMarginRight + int(zoom_ * columns) : 0);
}

void MemoryPlanView::scrollToValue(int32_t value) {
  if (scrollArea_ == nullptr) return;
  for (const auto& b : blocks_)
    if (b.value == value) {
      const QRectF r = blockRect(b);
      // Clear of the titles at the left edge.
      scrollArea_->ensureVisible(int(r.center().x()), int(r.center().y()), int(r.width() / 2) + titleWidth_ + 8,
                                 int(r.height() / 2) + 24);
      return;
    }
}

void MemoryPlanView::rebuild() {
  blocks_.clear();
  bands_.clear();
  const size_t previousInstructions = instructions_;
  instructions_ = 0;
  hovered_ = -1;
  if (selected_ >= 0) emit selectionDescribed(QString());
  selected_ = -1;
  const Method* method = document_->currentMethod();
  const analysis::Dataflow* dataflow = document_->currentDataflow();
  if (method != nullptr && dataflow != nullptr) {
    instructions_ = dataflow->instructionCount();
    const auto& sizes = items(method->non_const_buffer_sizes);
    for (size_t b = 1; b < sizes.size(); ++b)
      bands_.push_back(Band{int(b), QString::fromStdString(method->bufferDevice(int32_t(b)).str()), quint64(sizes[b]), 0});
    const auto& values = items(method->values);
    for (size_t v = 0; v < values.size(); ++v) {
      const Tensor* t = values[v].tensor();
      if (t == nullptr || !t->allocation_info || t->nbytes() < 0) continue;
      const auto& lifetime = dataflow->values()[v].lifetime;
      Block block;
      block.value = int32_t(v);
      block.buffer = int(t->allocation_info->memory_id);
      block.start = lifetime ? lifetime->first : 0;
      block.end = lifetime ? lifetime->second : instructions_;
      block.offset = t->allocation_info->offset();
      block.bytes = quint64(t->nbytes());
      block.device = QString::fromStdString(t->device().str());
      block.label = QString("%1 %2 %3, %4 at +%5, live %6–%7")
                        .arg(valueRef(v), ui::tensorTypeText(*t), block.device, bytesText(qint64(block.bytes)),
                             num(qint64(block.offset)), num(qint64(block.start)), num(qint64(block.end)));
      blocks_.push_back(block);
    }
    // Peak: most bytes alive at one instruction position, per buffer.
    for (auto& band : bands_) {
      std::map<size_t, qint64> delta;
      for (const auto& b : blocks_)
        if (b.buffer == band.buffer) {
          delta[b.start] += qint64(b.bytes);
          delta[b.end + 1] -= qint64(b.bytes);
        }
      qint64 live = 0;
      for (const auto& [at, d] : delta) {
        live += d;
        band.peak = std::max<quint64>(band.peak, quint64(std::max<qint64>(live, 0)));
      }
      for (const auto& b : blocks_)
        if (b.buffer == band.buffer) band.highest = std::max<quint64>(band.highest, quint64(b.offset) + b.bytes);
    }
    // An empty buffer (0 B, nothing planned in it: every tensor is the
    // caller's) is no band: it was drawn as a blank band the height of the
    // panel. The empty text says so when no other is left.
    emptyBuffers_ = 0;
    for (auto it = bands_.begin(); it != bands_.end();) {
      const int buffer = it->buffer;
      const bool used = std::any_of(blocks_.begin(), blocks_.end(), [buffer](const Block& b) { return b.buffer == buffer; });
      if (it->size == 0 && !used) {
        ++emptyBuffers_;
        it = bands_.erase(it);
      } else {
        ++it;
      }
    }
  }
  // Each band as tall as lets its smallest tensor carry its "%N" label
  // (16 B tensors in a 64 B buffer were unlabelled slivers), within limits.
  labelHeights_.clear();
  const double labelHeight = fontMetrics().height() * 0.85;  // the tensors' labels' smaller font
  for (const auto& band : bands_) {
    double smallest = 1.0;
    for (const auto& b : blocks_)
      if (b.buffer == band.buffer && band.size > 0 && b.bytes > 0)
        smallest = std::min(smallest, double(b.bytes) / double(band.size));
    labelHeights_.push_back(std::clamp(labelHeight / smallest, double(kBandMinHeight), double(kBandMaxHeight)));
  }
  if (instructions_ != previousInstructions) zoom_ = 1.0;  // another method: the whole of it
  fitTitles();
  fitSize();
  emit zoomChanged(zoom_);
  // What the bands say, for screen readers (the plan is only painted).
  QStringList said;
  for (const auto& band : bands_) said << bandTitle(band) + ": " + bandSizes(band);
  setAccessibleDescription(!said.isEmpty() ? said.join("; ") : emptyText());
  update();
}

QString MemoryPlanView::bandTitle(const Band& band) { return tr("buffer %1 · %2").arg(band.buffer).arg(band.device); }

QString MemoryPlanView::bandSizes(const Band& band) {
  // Named as what they measure: the most bytes live at one instruction, and
  // the highest byte any tensor uses (the report's "Highest byte used"); a
  // bare "peak" read as the report's other number.
  return bandSizeLines(band).join(", ");
}

QStringList MemoryPlanView::bandSizeLines(const Band& band) {
  return {bytesText(qint64(band.size)), tr("at most %1 live").arg(bytesText(qint64(band.peak))),
          tr("highest byte %1").arg(bytesText(qint64(band.highest)))};
}

QStringList MemoryPlanView::captionLines(const Band& band, const QFontMetrics& metrics) const {
  QStringList lines;
  for (const QString& piece : bandSizeLines(band)) {
    const QString joined = lines.isEmpty() ? QString() : lines.back() + ", " + piece;
    if (!lines.isEmpty() && metrics.horizontalAdvance(joined) <= titleWidth_ - 8) lines.back() = joined;
    else lines << piece;
  }
  return lines;
}

void MemoryPlanView::fitTitles() {
  // As wide as the widest title or size figure needs, within a quarter of
  // the width (and at least the 170 px it had).
  const QFontMetrics metrics(font());
  QFont bold = font();
  bold.setBold(true);
  const QFontMetrics boldMetrics(bold);
  int widest = 0;
  for (const auto& band : bands_) {
    widest = std::max(widest, boldMetrics.horizontalAdvance(bandTitle(band)));
    widest = std::max(widest, metrics.horizontalAdvance(bandSizeLines(band).mid(0, 2).join(", ")));
  }
  // (The scroll area's width, not its viewport's: a scroll bar that comes
  // and goes must not change the titles and so the heights.)
  const int room = scrollArea_ != nullptr ? scrollArea_->width() : width();
  titleWidth_ = std::clamp(widest + 12, kMarginLeft, std::max(kMarginLeft, room / 4));
  // Each band at least as tall as its title and size lines.
  bandHeights_ = labelHeights_;
  for (size_t i = 0; i < bands_.size() && i < bandHeights_.size(); ++i)
    bandHeights_[i] = std::max(bandHeights_[i], 18.0 + 16.0 * double(captionLines(bands_[i], metrics).size()) + 4.0);
}

QString MemoryPlanView::emptyText() const {
  if (!document_->hasProgram()) return tr("No program");
  if (emptyBuffers_ > 0)
    return tr("Nothing is memory-planned in this method: its %1 empty (0 B; every tensor is the caller's or a constant)")
        .arg(emptyBuffers_ == 1 ? tr("buffer is") : tr("%1 buffers are").arg(emptyBuffers_));
  return tr("Nothing is memory-planned in this method");
}

QRectF MemoryPlanView::bandRect(size_t band) const {
  // Each band its least height, and an equal share of what the panel has
  // beyond them.
  const int count = std::max<int>(1, int(bands_.size()));
  double least = 0;
  for (double h : bandHeights_) least += h;
  const double spare = std::max(0.0, double(height() - kMarginTop - kAxisHeight - kBandGap * (count - 1)) - least) / count;
  double top = kMarginTop;
  for (size_t i = 0; i < band && i < bandHeights_.size(); ++i) top += bandHeights_[i] + spare + kBandGap;
  const double h = (band < bandHeights_.size() ? bandHeights_[band] : double(kBandMinHeight)) + spare;
  return QRectF(titleWidth_, top, double(width() - titleWidth_ - kMarginRight), h);
}

QRectF MemoryPlanView::blockRect(const Block& block) const {
  for (size_t i = 0; i < bands_.size(); ++i) {
    if (bands_[i].buffer != block.buffer) continue;
    const QRectF band = bandRect(i);
    const double span = double(std::max<size_t>(instructions_ + 1, 1));
    const double size = double(std::max<quint64>(bands_[i].size, 1));
    const double x0 = band.left() + band.width() * double(block.start) / span;
    const double x1 = band.left() + band.width() * double(block.end + 1) / span;
    const double y0 = band.top() + band.height() * double(block.offset) / size;
    const double y1 = band.top() + band.height() * double(block.offset + block.bytes) / size;
    return QRectF(QPointF(x0, y0), QPointF(std::max(x1, x0 + 2), std::max(y1, y0 + 2)));
  }
  return {};
}

int32_t MemoryPlanView::valueAt(const QPoint& position) const {
  if (position.x() < titleLeft() + titleWidth_) return -1;  // the titles cover what is scrolled under them
  // Smallest block first, so small tensors stay reachable over large ones.
  int32_t best = -1;
  double bestArea = 0;
  for (const auto& b : blocks_) {
    const QRectF r = blockRect(b);
    if (!r.contains(position)) continue;
    const double area = r.width() * r.height();
    if (best < 0 || area < bestArea) {
      best = b.value;
      bestArea = area;
    }
  }
  return best;
}

void MemoryPlanView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  p.fillRect(rect(), palette().base());
  if (bands_.empty()) {
    p.setPen(palette().color(QPalette::Text));
    p.drawText(rect(), Qt::AlignCenter, emptyText());
    return;
  }
  const QFont base = font();
  const QFontMetrics metrics(base);
  // The tensors' names a little smaller than the titles: "%12" fits the
  // band of one instruction at 1000 px.
  QFont small = base;
  if (base.pointSizeF() > 0) small.setPointSizeF(base.pointSizeF() * 0.85);
  else small.setPixelSize(std::max(8, base.pixelSize() * 85 / 100));
  const QFontMetrics smallMetrics(small);
  for (size_t i = 0; i < bands_.size(); ++i) {
    const QRectF r = bandRect(i);
    const QColor color = deviceColor(bands_[i].device);
    p.setPen(QPen(color.darker(130), 1));
    p.setBrush(QColor(color.red(), color.green(), color.blue(), 25));
    p.drawRect(r);
  }
  for (const auto& b : blocks_) {
    const QRectF r = blockRect(b);
    const QColor color = deviceColor(b.device);
    const bool marked = b.value == hovered_ || b.value == selected_;
    p.setPen(QPen(marked ? palette().color(QPalette::Highlight) : color.darker(150), b.value == selected_ ? 3 : marked ? 2 : 1));
    p.setBrush(QColor(color.red(), color.green(), color.blue(), 170));
    p.drawRect(r);
    // Labelled wherever the name fits.
    const QString label = "%" + QString::number(b.value);
    if (r.width() >= smallMetrics.horizontalAdvance(label) + 3 && r.height() >= smallMetrics.height() - 2) {
      p.setPen(Qt::white);
      p.setFont(small);
      p.drawText(r, Qt::AlignCenter, label);
      p.setFont(base);
    }
  }
  // A selected tensor too small to see (a 4 px dot in a big method) gets a
  // ring around it, 14 px at least.
  for (const auto& b : blocks_) {
    if (b.value != selected_) continue;
    const QRectF r = blockRect(b);
    if (r.width() >= 14 && r.height() >= 14) break;
    const QPointF centre = r.center();
    const double w = std::max(r.width() + 6, 14.0), h = std::max(r.height() + 6, 14.0);
    p.setPen(QPen(palette().color(QPalette::Highlight), 2));
    p.setBrush(Qt::NoBrush);
    p.drawEllipse(QRectF(centre.x() - w / 2, centre.y() - h / 2, w, h));
    break;
  }
  // The titles, at the visible left edge, over what is scrolled under them.
  const double left = titleLeft();
  p.fillRect(QRectF(left, 0, titleWidth_, height()), palette().base());
  for (size_t i = 0; i < bands_.size(); ++i) {
    const QRectF r = bandRect(i);
    p.setPen(palette().color(QPalette::Text));
    QFont bold = base;
    bold.setBold(true);
    p.setFont(bold);
    p.drawText(QRectF(left + 4, r.top(), titleWidth_ - 8, 18), Qt::AlignLeft | Qt::AlignVCenter, bandTitle(bands_[i]));
    p.setFont(base);
    // The sizes in as many lines as the titles' width takes (the band is
    // that tall), as many on a line as fit; cut at the end only where the
    // band is shorter (whole in the tool tip): "48.0 KiB, at most 48.0 Ki…".
    const QStringList lines = captionLines(bands_[i], metrics);
    const int room = std::max(1, int((r.height() - 18) / 16));
    for (int line = 0; line < room && line < lines.size(); ++line) {
      const QString text = line + 1 == room ? QStringList(lines.mid(line)).join(", ") : lines[line];
      p.drawText(QRectF(left + 4, r.top() + 18 + line * 16, titleWidth_ - 8, 16), Qt::AlignLeft | Qt::AlignVCenter,
                 metrics.elidedText(text, Qt::ElideRight, titleWidth_ - 8));
    }
  }
  paintAxis(p, bandRect(bands_.size() - 1));
}

size_t MemoryPlanView::axisStep(size_t instructions, double columnPixels, double labelPixels) {
  const size_t span = instructions + 1;
  if (columnPixels <= 0) return span;
  for (size_t scale = 1; scale <= span * 10; scale *= 10)
    for (size_t m : {size_t(1), size_t(2), size_t(5)})
      if (double(m * scale) * columnPixels >= labelPixels) return m * scale;
  return span;
}

QRectF MemoryPlanView::bufferRect(int buffer) const {
  for (size_t i = 0; i < bands_.size(); ++i)
    if (bands_[i].buffer == buffer) return bandRect(i);
  return {};
}

QRectF MemoryPlanView::valueRect(int32_t value) const {
  for (const auto& b : blocks_)
    if (b.value == value) return blockRect(b);
  return {};
}

void MemoryPlanView::paintAxis(QPainter& p, const QRectF& last) const {
  // Every instruction numbered when there is room, else every 2nd, 5th,
  // 10th, 20th... (evenly: a step of (n+1)/10 left out 5 and 11 of 12),
  // each number under the middle of its instruction's column.
  const double y = last.bottom() + 2;
  const double left = titleLeft();
  p.setPen(palette().color(QPalette::Text));
  const QFontMetrics metrics(font());
  const size_t span = instructions_ + 1;
  const double column = last.width() / double(span);
  const double room = metrics.horizontalAdvance(QString::number(instructions_)) + 12;
  const size_t step = axisStep(instructions_, column, room);
  for (size_t at = 0; at < span; at += step) {
    const double x = last.left() + column * (double(at) + 0.5);
    if (x < left + titleWidth_) continue;  // under the titles
    p.drawLine(QPointF(x, y), QPointF(x, y + 4));
    p.drawText(QRectF(x - room / 2, y + 3, room, kAxisHeight - 4), Qt::AlignHCenter | Qt::AlignTop, QString::number(at));
  }
  p.drawText(QRectF(left + 4, y, titleWidth_ - 8, kAxisHeight), Qt::AlignLeft | Qt::AlignVCenter, tr("instruction →"));
}

void MemoryPlanView::selectValue(int32_t value) {
  if (value == selected_) return;
  selected_ = value;
  update();
  QString said;
  for (const auto& b : blocks_)
    if (b.value == value) said = b.label;
  emit selectionDescribed(said);
  // In sight, as a table's selected row is (a tensor of a buffer below the
  // fold stayed a sliver at its edge: walkthrough 21).
  if (value >= 0) scrollToValue(value);
}

void MemoryPlanView::wheelEvent(QWheelEvent* event) {
  if (!(event->modifiers() & Qt::ControlModifier)) {
    QWidget::wheelEvent(event);  // the scroll area scrolls
    return;
  }
  const int delta = event->angleDelta().y();
  if (delta > 0) zoomIn();
  else if (delta < 0) zoomOut();
  event->accept();
}

void MemoryPlanView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  update();
}

void MemoryPlanView::mouseMoveEvent(QMouseEvent* event) {
  const QPointF at = event->position();
  if (at.x() < titleLeft() + titleWidth_) {
    if (hovered_ >= 0) {
      hovered_ = -1;
      update();
    }
    // Over a buffer's title: its sizes whole.
    for (size_t i = 0; i < bands_.size(); ++i) {
      const QRectF r = bandRect(i);
      if (at.y() >= r.top() && at.y() <= r.bottom()) {
        QToolTip::showText(event->globalPosition().toPoint(), bandTitle(bands_[i]) + ": " + bandSizes(bands_[i]), this);
        return;
      }
    }
  }
  const int32_t v = valueAt(event->position().toPoint());
  if (v != hovered_) {
    hovered_ = v;
    update();
  }
  for (const auto& b : blocks_)
    if (b.value == v) {
      QToolTip::showText(event->globalPosition().toPoint(), b.label, this);
      return;
    }
  QToolTip::hideText();
}

void MemoryPlanView::mousePressEvent(QMouseEvent* event) {
  const int32_t v = valueAt(event->position().toPoint());
  if (v >= 0) emit valueClicked(v);
}

void MemoryPlanView::keyPressEvent(QKeyEvent* event) {
  int step = 0;
  std::optional<int> to;  // Home and End: the first and last tensor, whatever is selected
  switch (event->key()) {
    case Qt::Key_Right:
    case Qt::Key_Down: step = 1; break;
    case Qt::Key_Left:
    case Qt::Key_Up: step = -1; break;
    case Qt::Key_Home: to = 0; break;
    case Qt::Key_End: to = int(blocks_.size()) - 1; break;
    // Esc clears the selection, as in the graph.
    case Qt::Key_Escape:
      if (selected_ >= 0 && event->modifiers() == Qt::NoModifier) {
        selectValue(-1);
        emit selectionCleared();
        event->accept();
        return;
      }
      break;
    default: break;
  }
  if ((step == 0 && !to) || blocks_.empty() || event->modifiers() != Qt::NoModifier) {
    QWidget::keyPressEvent(event);
    return;
  }
  int at = -1;
  for (size_t i = 0; i < blocks_.size(); ++i)
    if (blocks_[i].value == selected_) at = int(i);
  // With nothing selected an arrow starts at the first (Right) or last (Left) tensor.
  const int next = to ? *to
                   : at < 0 ? (step > 0 ? 0 : int(blocks_.size()) - 1)
                            : std::clamp(at + step, 0, int(blocks_.size()) - 1);
  selectValue(blocks_[size_t(next)].value);
  emit valueClicked(blocks_[size_t(next)].value);
  event->accept();
}

}  // namespace ptescope::ui
