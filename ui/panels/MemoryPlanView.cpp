#include "ui/panels/MemoryPlanView.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <optional>
#include <map>

#include "ui/common/DeviceColors.h"
#include "ui/document/Document.h"
#include "ui/common/Format.h"

namespace ptescope::ui {
using namespace ptescope::program;

namespace {

constexpr int kMarginLeft = 170;
constexpr int kMarginRight = 12;
constexpr int kMarginTop = 8;
constexpr int kBandGap = 10;
constexpr int kAxisHeight = 18;

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
  rebuild();
}

void MemoryPlanView::rebuild() {
  blocks_.clear();
  bands_.clear();
  instructions_ = 0;
  hovered_ = -1;
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
  setMinimumHeight(int(kMarginTop + bands_.size() * (40 + kBandGap) + kAxisHeight));
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
  return tr("%1, at most %2 live, highest byte %3")
      .arg(bytesText(qint64(band.size)), bytesText(qint64(band.peak)), bytesText(qint64(band.highest)));
}

QString MemoryPlanView::emptyText() const {
  if (!document_->hasProgram()) return tr("No program");
  if (emptyBuffers_ > 0)
    return tr("Nothing is memory-planned in this method: its %1 empty (0 B; every tensor is the caller's or a constant)")
        .arg(emptyBuffers_ == 1 ? tr("buffer is") : tr("%1 buffers are").arg(emptyBuffers_));
  return tr("Nothing is memory-planned in this method");
}

QRectF MemoryPlanView::bandRect(size_t band) const {
  const int count = std::max<int>(1, int(bands_.size()));
  const double available = double(height() - kMarginTop - kAxisHeight - kBandGap * (count - 1));
  const double h = std::max(24.0, available / count);
  return QRectF(kMarginLeft, kMarginTop + double(band) * (h + kBandGap), double(width() - kMarginLeft - kMarginRight), h);
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
  for (size_t i = 0; i < bands_.size(); ++i) {
    const auto& band = bands_[i];
    const QRectF r = bandRect(i);
    const QColor color = deviceColor(band.device);
    p.setPen(QPen(color.darker(130), 1));
    p.setBrush(QColor(color.red(), color.green(), color.blue(), 25));
    p.drawRect(r);
    p.setPen(palette().color(QPalette::Text));
    QFont bold = base;
    bold.setBold(true);
    p.setFont(bold);
    p.drawText(QRectF(4, r.top(), kMarginLeft - 8, 18), Qt::AlignLeft | Qt::AlignVCenter,
               bandTitle(band));
    p.setFont(base);
    p.drawText(QRectF(4, r.top() + 18, kMarginLeft - 8, 18), Qt::AlignLeft | Qt::AlignVCenter,
               bandSizes(band));
  }
  for (const auto& b : blocks_) {
    const QRectF r = blockRect(b);
    const QColor color = deviceColor(b.device);
    const bool marked = b.value == hovered_ || b.value == selected_;
    p.setPen(QPen(marked ? palette().color(QPalette::Highlight) : color.darker(150), b.value == selected_ ? 3 : marked ? 2 : 1));
    p.setBrush(QColor(color.red(), color.green(), color.blue(), 170));
    p.drawRect(r);
    if (r.width() > 34 && r.height() > 12) {
      p.setPen(Qt::white);
      p.drawText(r, Qt::AlignCenter, "%" + QString::number(b.value));
    }
  }
  // Instruction axis.
  const QRectF last = bandRect(bands_.size() - 1);
  const double y = last.bottom() + 2;
  p.setPen(palette().color(QPalette::Text));
  const size_t steps = std::min<size_t>(instructions_ + 1, 10);
  for (size_t s = 0; s <= steps; ++s) {
    const size_t at = steps == 0 ? 0 : (instructions_ + 1) * s / steps;
    const double x = last.left() + last.width() * double(at) / double(std::max<size_t>(instructions_ + 1, 1));
    p.drawLine(QPointF(x, y), QPointF(x, y + 4));
    p.drawText(QRectF(x - 30, y + 3, 60, kAxisHeight - 4), Qt::AlignHCenter | Qt::AlignTop, QString::number(at));
  }
  p.drawText(QRectF(4, y, kMarginLeft - 8, kAxisHeight), Qt::AlignLeft | Qt::AlignVCenter, tr("instruction →"));
}

void MemoryPlanView::selectValue(int32_t value) {
  if (value == selected_) return;
  selected_ = value;
  update();
}

void MemoryPlanView::mouseMoveEvent(QMouseEvent* event) {
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
