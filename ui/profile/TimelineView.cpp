#include "ui/profile/TimelineView.h"

#include "ui/profile/TransferSummaryView.h"

#include <QAbstractScrollArea>
#include <QApplication>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <unordered_map>

#include "etdump/EtdumpProfile.h"
#include "exec/ProfileAnalysis.h"
#include "layout/DeviceStyle.h"
#include "passes/DevicePasses.h"
#include "ui/common/ElidedLabel.h"
#include "ui/common/Format.h"
#include "ui/common/ViewControls.h"

namespace ptescope::ui {

namespace {

// Canvas geometry, in pixels. Lane labels stay pinned on the left and the
// time axis on top while the bars scroll under them.
struct CanvasGeometry {
  double label_width = 156;  // "Not executed" in bold and a five-digit count
  double pad_left = 10, pad_right = 16;
  double axis_height = 26;
  double legend_row = 19, legend_pad = 7;  // a row of the legend; under and over its rows
  // Lanes grow into the panel's height up to max_lane_height and shrink to
  // lane_height (four fit the Details dock of a 1600x1000 window); below
  // that they scroll under the pinned axis and legend (a 1000x700 window's
  // dock has room for about two). Bars fill the lane but bar_inset.
  double lane_height = 20;
  double max_lane_height = 48, lane_gap = 4, bar_inset = 3;
  // A copy of a few bytes lasts a nanosecond: still wide enough to see, and
  // hit over a few more pixels than it covers.
  double min_bar_width = 2, min_hit_width = 7;
  double min_tick_spacing = 90;  // tick labels need about this much room
};
constexpr CanvasGeometry kCanvas;
// Zooming in further than this span shows nothing the clocks can resolve.
constexpr double kFinestSpanSeconds = 1e-8;
// Scroll bar values are ints: keep the content well inside their range.
constexpr double kMaxContentWidth = 5e8;
constexpr double kZoomStep = 1.5;

QColor colourOf(layout::Rgb rgb) { return QColor(rgb.red(), rgb.green(), rgb.blue()); }

struct BarStyle {
  QColor stroke, fill;
  bool hatched = false;
};

BarStyle styleOf(TimelineView::Lane lane, bool delegate, const program::Device& delegateDevice) {
  switch (lane) {
    case TimelineView::Lane::HostToDevice: {
      const auto s = layout::h2dCopyStyle();
      return {colourOf(s.stroke), colourOf(s.stroke.lighter(0.4))};
    }
    case TimelineView::Lane::DeviceToHost: {
      const auto s = layout::d2hCopyStyle();
      return {colourOf(s.stroke), colourOf(s.stroke.lighter(0.45))};
    }
    case TimelineView::Lane::NotExecuted: {
      const auto s = layout::mixedStyle();
      return {colourOf(s.stroke), colourOf(s.stroke.lighter(0.75)), true};
    }
    case TimelineView::Lane::Kernels: break;
  }
  const auto s = layout::deviceStyle(delegate ? delegateDevice : program::Device{});
  return {colourOf(s.stroke), colourOf(s.stroke.lighter(0.5))};
}

bool isCopyLane(TimelineView::Lane lane) { return exec::TimelineSlice::copyDirectionOf(lane).has_value(); }

// The device delegate calls run on: the device side of the method's copies
// (what the profile measured), else the link peak's device.
program::Device delegateDeviceOf(const exec::TransferProfile* profile) {
  if (profile == nullptr) return {};
  if (!profile->copies.empty()) return profile->copies.front().device;
  return profile->peak.device;
}

// 1, 2 or 5 times a power of ten: ticks a reader can add up in their head.
double niceStep(double minimum) {
  if (!(minimum > 0) || !std::isfinite(minimum)) return 1;
  const double base = std::pow(10.0, std::floor(std::log10(minimum)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * base >= minimum * (1 - 1e-9)) return m * base;
  return 10 * base;
}

struct TickFormat {
  double scale = 1;  // seconds -> unit
  QString unit;
  int decimals = 0;
};

// The unit of the largest time on screen, so that zoomed-in ticks read
// "3.44 µs, 3.46 µs" rather than "3440 ns", and as many decimals as the step
// needs.
TickFormat tickFormat(double step, double largest) {
  TickFormat f{1e9, QStringLiteral("ns"), 0};
  if (largest >= 1) f = {1, QStringLiteral("s"), 0};
  else if (largest >= 1e-3) f = {1e3, QStringLiteral("ms"), 0};
  else if (largest >= 1e-6) f = {1e6, QString::fromUtf8("µs"), 0};
  f.decimals = std::clamp(int(std::ceil(-std::log10(step * f.scale) - 1e-9)), 0, 9);
  return f;
}

}  // namespace

// The scrolling surface: a viewport painted by the view, with a horizontal
// scroll bar whose range the view sets from the zoom.
class TimelineCanvas : public QAbstractScrollArea {
 public:
  explicit TimelineCanvas(TimelineView* view) : QAbstractScrollArea(view), view_(view) {
    setObjectName("timelineCanvas");
    viewport()->setObjectName("timelineViewport");
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setFocusPolicy(Qt::StrongFocus);
    viewport()->setMouseTracking(true);
    horizontalScrollBar()->setSingleStep(24);
    verticalScrollBar()->setSingleStep(12);
  }

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter painter(viewport());
    view_->paintCanvas(painter);
  }
  void resizeEvent(QResizeEvent* event) override {
    QAbstractScrollArea::resizeEvent(event);
    view_->layoutBars();
  }
  // A scroll bar that comes or goes resizes the viewport, not the area:
  // the lanes and the scroll ranges follow it too (the vertical range
  // stayed as computed while the horizontal bar was up, 9 px of scrolling
  // over four lanes that fit).
  bool viewportEvent(QEvent* event) override {
    if (event->type() == QEvent::Resize) view_->layoutBars();
    return QAbstractScrollArea::viewportEvent(event);
  }
  void scrollContentsBy(int, int) override {
    view_->layoutBars();
    viewport()->update();
  }
  void wheelEvent(QWheelEvent* event) override {
    if (view_->bars_.empty()) return QAbstractScrollArea::wheelEvent(event);
    const QPoint angle = event->angleDelta();
    if (event->modifiers() & Qt::ControlModifier) {
      // One notch (120) is about ×1.19, so four notches double the zoom.
      view_->zoomAround(view_->zoom_ * std::pow(2.0, angle.y() / 480.0), event->position().x());
    } else if (verticalScrollBar()->maximum() > 0 && event->position().x() < view_->timeLeft() - kCanvas.pad_left) {
      // Over the lane labels, when the lanes do not all fit: the wheel
      // scrolls them.
      verticalScrollBar()->setValue(verticalScrollBar()->value() - angle.y() / 4);
    } else {
      // Elsewhere the wheel pans in time, like a trace viewer.
      const QPoint pixels = event->pixelDelta();
      const int delta = !pixels.isNull() ? (pixels.x() != 0 ? pixels.x() : pixels.y())
                                         : (angle.x() != 0 ? angle.x() : angle.y());
      horizontalScrollBar()->setValue(horizontalScrollBar()->value() - delta);
    }
    event->accept();
  }
  void mousePressEvent(QMouseEvent* event) override {
    if (event->button() != Qt::LeftButton) return QAbstractScrollArea::mousePressEvent(event);
    pressPosition_ = event->position();
    pressScroll_ = horizontalScrollBar()->value();
    panning_ = false;
    event->accept();
  }
  void mouseMoveEvent(QMouseEvent* event) override {
    if (event->buttons() & Qt::LeftButton) {
      const QPointF moved = event->position() - pressPosition_;
      if (!panning_ && moved.manhattanLength() >= QApplication::startDragDistance()) {
        panning_ = true;
        viewport()->setCursor(Qt::ClosedHandCursor);
        QToolTip::hideText();
      }
      if (panning_) horizontalScrollBar()->setValue(pressScroll_ - int(std::lround(moved.x())));
      return;
    }
    const int bar = view_->barAt(event->position());
    if (bar != view_->hovered_) {
      view_->hovered_ = bar;
      viewport()->update();
    }
    if (bar >= 0)
      QToolTip::showText(event->globalPosition().toPoint(), view_->barToolTip(view_->bars_[size_t(bar)]), viewport());
    else
      QToolTip::hideText();
  }
  void mouseReleaseEvent(QMouseEvent* event) override {
    if (event->button() != Qt::LeftButton) return QAbstractScrollArea::mouseReleaseEvent(event);
    if (panning_) {
      panning_ = false;
      viewport()->unsetCursor();
      return;
    }
    const int bar = view_->barAt(event->position());
    if (bar < 0) return;
    const size_t instruction = view_->bars_[size_t(bar)].instruction;
    view_->selected_ = instruction;
    viewport()->update();
    emit view_->instructionClicked(instruction);
  }
  void leaveEvent(QEvent* event) override {
    QAbstractScrollArea::leaveEvent(event);
    if (view_->hovered_ >= 0) {
      view_->hovered_ = -1;
      viewport()->update();
    }
  }

 private:
  TimelineView* view_;
  QPointF pressPosition_;
  int pressScroll_ = 0;
  bool panning_ = false;
};

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
  setObjectName("timeline");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);

  auto* controls = new QHBoxLayout;
  controls->setContentsMargins(6, 2, 6, 0);
  auto* iterationLabel = new QLabel(tr("Iteration:"));
  iterationBox_ = fittedComboBox("timelineIteration");
  iterationBox_->setAccessibleName(tr("Timeline iteration"));
  iterationLabel->setBuddy(iterationBox_);
  // The iteration's line grows with what it has to say ("... measured
  // before the edits (the program then)"): elided at the panel's width, it
  // never widens the window (at 1000x700 it pushed the window to 1169 px
  // and the right docks off the screen).
  auto* info = new ElidedLabel;
  info->setElideMode(Qt::ElideRight);
  info_ = info;
  info_->setObjectName("timelineInfo");
  const ZoomControls zoom = makeZoomControls(QStringLiteral("timeline"), tr("Timeline zoom"),
                                             tr("Show the whole iteration (Ctrl+0)"));
  zoomOutButton_ = zoom.zoomOut;
  zoomInButton_ = zoom.zoomIn;
  fitButton_ = zoom.fit;
  zoomLabel_ = zoom.level;
  controls->addWidget(iterationLabel);
  controls->addWidget(iterationBox_);
  controls->addSpacing(12);
  controls->addWidget(info_, 1);
  controls->addWidget(zoomLabel_);
  controls->addWidget(zoomOutButton_);
  controls->addWidget(zoomInButton_);
  controls->addWidget(fitButton_);
  layout->addLayout(controls);
  breakdown_ = new TimeBreakdownBar;
  layout->addWidget(breakdown_);

  canvas_ = new TimelineCanvas(this);
  canvas_->setAccessibleName(tr("Timeline"));
  layout->addWidget(canvas_, 1);

  connect(iterationBox_, &QComboBox::activated, this,
          [this](int index) { setIteration(iterationBox_->itemData(index).toInt()); });
  connect(zoomInButton_, &QToolButton::clicked, this, &TimelineView::zoomIn);
  connect(zoomOutButton_, &QToolButton::clicked, this, &TimelineView::zoomOut);
  connect(fitButton_, &QToolButton::clicked, this, &TimelineView::zoomToFit);
  addZoomShortcuts(this, [this] { zoomIn(); }, [this] { zoomOut(); }, [this] { zoomToFit(); });

  rebuildIterations();
}

TimelineView::~TimelineView() = default;

QWidget* TimelineView::canvas() const { return canvas_->viewport(); }

QString TimelineView::laneName(Lane lane) {
  switch (lane) {
    case Lane::HostToDevice:
    case Lane::DeviceToHost: return QString::fromStdString(program::copyDirectionName(*exec::TimelineSlice::copyDirectionOf(lane)));
    case Lane::Kernels: return tr("Kernels");
    case Lane::NotExecuted: return tr("Not executed");
  }
  return {};
}

void TimelineView::setProfile(std::shared_ptr<const exec::TransferProfile> profile, const program::Method* measured) {
  profile_ = std::move(profile);
  breakdown_->setProfile(profile_.get());
  delegateDevices_.clear();
  if (profile_ && measured != nullptr) {
    const auto& delegates = program::items(measured->delegates);
    size_t flat = 0;
    for (const auto& chain : program::items(measured->chains))
      for (const auto& instruction : program::items(chain.instructions)) {
        if (const auto* call = std::get_if<program::DelegateCall>(&instruction.data);
            call && call->delegate_index >= 0 && size_t(call->delegate_index) < delegates.size())
          if (auto device = passes::delegateTargetDevice(delegates[size_t(call->delegate_index)]); device && device.value())
            delegateDevices_[flat] = *device.value();
        ++flat;
      }
  }
  zoom_ = 1;
  hovered_ = -1;
  rebuildIterations();
}

void TimelineView::clear() { setProfile(nullptr); }

void TimelineView::rebuildIterations() {
  iterations_.clear();
  lanes_.clear();
  bool notExecuted = false;
  if (profile_) {
    std::set<size_t> kept;
    for (const auto& slice : profile_->timeline) {
      kept.insert(slice.iteration);
      notExecuted = notExecuted || slice.track == exec::TimelineSlice::Track::NotExecuted;
    }
    iterations_.assign(kept.begin(), kept.end());
  }
  if (!iterations_.empty()) {
    // The lanes come from every kept iteration, so they do not jump around
    // while the user steps through them.
    lanes_ = {Lane::HostToDevice, Lane::Kernels, Lane::DeviceToHost};
    if (notExecuted) lanes_.push_back(Lane::NotExecuted);
  }
  iterationBox_->blockSignals(true);
  iterationBox_->clear();
  for (size_t it : iterations_) iterationBox_->addItem(QString::number(it + 1), int(it));
  iterationBox_->blockSignals(false);
  // Without a profile it says so (it kept the previous file's "first 3 of
  // 3 measured iterations": walkthrough 23).
  iterationBox_->setToolTip(profile_ ? tr("The profile keeps the timeline of its first %1 of %2 measured iterations")
                                           .arg(iterations_.size())
                                           .arg(profile_->iterations)
                                     : tr("No profile: Profile > Profile Transfers… (F5) measures one"));
  // Room for the axis, one lane, a row of legend and the scroll bar; more
  // lanes than fit scroll under the pinned axis and legend. Asking for
  // every lane made the Details dock (whose pages' minimum it is) taller
  // after a profile and left the graph a third less at 1000x700; with no
  // profile nothing is asked for (issue 34 item 16).
  const int frame = 2 * canvas_->frameWidth();
  canvas_->setMinimumHeight(!profile_ ? 0
                                      : int(kCanvas.axis_height + kCanvas.lane_height + kCanvas.lane_gap + kCanvas.legend_row +
                                            kCanvas.legend_pad) +
                                            frame + canvas_->horizontalScrollBar()->sizeHint().height());
  iteration_ = iterations_.empty() ? -1 : int(iterations_.front());
  rebuildBars();
}

void TimelineView::setIteration(int iteration) {
  if (iteration < 0) return;
  if (std::find(iterations_.begin(), iterations_.end(), size_t(iteration)) == iterations_.end()) return;
  iteration_ = iteration;
  hovered_ = -1;
  rebuildBars();
}

void TimelineView::rebuildBars() {
  bars_.clear();
  duration_ = 0;
  if (profile_ && iteration_ >= 0) {
    std::unordered_map<size_t, const exec::InstructionProfile*> instructions;
    for (const auto& ins : profile_->instructions) instructions.emplace(ins.instruction, &ins);
    // Times run from the first instruction of this iteration: slices are on
    // one clock from the start of the first measured run.
    double first = 0, last = 0;
    bool any = false;
    for (const auto& s : profile_->timeline) {
      if (s.iteration != size_t(iteration_)) continue;
      first = any ? std::min(first, s.start_seconds) : s.start_seconds;
      last = any ? std::max(last, s.start_seconds + s.seconds) : s.start_seconds + s.seconds;
      any = true;
    }
    for (const auto& s : profile_->timeline) {
      if (s.iteration != size_t(iteration_)) continue;
      Bar bar;
      bar.lane = s.track;
      bar.instruction = s.instruction;
      bar.name = QString::fromStdString(s.name);
      bar.start = s.start_seconds - first;
      bar.seconds = s.seconds;
      bar.bytes = s.bytes;
      auto it = instructions.find(s.instruction);
      bar.delegate = it != instructions.end() && it->second->kind == program::InstructionKind::DelegateCall;
      if (bar.delegate) {
        auto device = delegateDevices_.find(s.instruction);
        bar.device = device != delegateDevices_.end() ? device->second : delegateDeviceOf(profile_.get());
      }
      bars_.push_back(std::move(bar));
    }
    std::stable_sort(bars_.begin(), bars_.end(), [](const Bar& a, const Bar& b) { return a.start < b.start; });
    // A little room after the last bar so it does not touch the edge.
    duration_ = any && last > first ? (last - first) * 1.02 : 1e-6;
  }
  iterationBox_->blockSignals(true);
  iterationBox_->setCurrentIndex(iterationBox_->findData(iteration_));
  iterationBox_->blockSignals(false);
  zoom_ = std::clamp(zoom_, 1.0, maxZoom());
  layoutBars();
  updateControls();
  // What the painted legend says, for screen readers.
  const QStringList legend = legendTexts();
  canvas_->setAccessibleDescription(bars_.empty()   ? emptyText()
                                    : legend.isEmpty() ? tr("No profile")
                                                       : tr("Legend: %1").arg(legend.join(", ")));
  canvas_->viewport()->update();
}

void TimelineView::updateControls() {
  const bool shown = !bars_.empty();
  for (QWidget* w : std::initializer_list<QWidget*>{iterationBox_, zoomInButton_, zoomOutButton_, fitButton_})
    w->setEnabled(shown);
  zoomOutButton_->setEnabled(shown && zoom_ > 1);
  zoomInButton_->setEnabled(shown && zoom_ < maxZoom());
  zoomLabel_->setText(shown ? QString("%1%").arg(std::lround(zoom_ * 100)) : QString());
  zoomLabel_->setAccessibleDescription(zoomLabel_->text());
  if (!shown) {
    info_->clear();
    return;
  }
  size_t copies = 0;
  for (const auto& b : bars_) copies += isCopyLane(b.lane) ? 1 : 0;
  // This line is the iteration drawn; the breakdown bar below is the
  // median iteration: each says which it is.
  QString text = tr("iteration %1: %2, %3, %4 from first start to last end")
                     .arg(iteration_ + 1)
                     .arg(countText(qint64(bars_.size()), tr("instruction")), countText(qint64(copies), tr("copy"), tr("copies")),
                          durationText(duration_ / 1.02));
  if (profile_->emulated) text += " · " + tr("emulated on the host");
  if (profile_->runtime == etdump::kEtdumpSource) text += " · " + QString::fromUtf8(etdump::kEtdumpSource);
  // The lanes are the program the profile ran: before the edits, said so
  // first (at the end it was cut at 1000 px, and the counts read as the
  // current program's).
  if (!measuredBefore_.isEmpty()) text = tr("Measured %1 (the program then): %2").arg(measuredBefore_, text);
  info_->setText(text);
}

double TimelineView::timeLeft() const { return kCanvas.label_width + kCanvas.pad_left; }

double TimelineView::timeWidth() const {
  return std::max(50.0, double(canvas_->viewport()->width()) - timeLeft() - kCanvas.pad_right);
}

double TimelineView::pixelsPerSecond() const { return duration_ > 0 ? timeWidth() / duration_ * zoom_ : 0.0; }

double TimelineView::xOf(double seconds) const {
  return timeLeft() + seconds * pixelsPerSecond() - double(canvas_->horizontalScrollBar()->value());
}

double TimelineView::secondsAt(double x) const {
  const double pps = pixelsPerSecond();
  return pps > 0 ? (x - timeLeft() + double(canvas_->horizontalScrollBar()->value())) / pps : 0.0;
}

double TimelineView::maxZoom() const {
  if (!(duration_ > 0)) return 1;
  return std::max(1.0, std::min(duration_ / kFinestSpanSeconds, kMaxContentWidth / timeWidth()));
}

QRectF TimelineView::laneRect(Lane lane) const {
  const auto it = std::find(lanes_.begin(), lanes_.end(), lane);
  if (it == lanes_.end()) return {};
  const double index = double(it - lanes_.begin());
  const QRectF area = laneArea();
  const double height = std::clamp(area.height() / double(lanes_.size()) - kCanvas.lane_gap, kCanvas.lane_height, kCanvas.max_lane_height);
  return QRectF(0, area.top() + index * (height + kCanvas.lane_gap) + kCanvas.lane_gap / 2 - double(canvas_->verticalScrollBar()->value()),
                double(canvas_->viewport()->width()), height);
}

QRectF TimelineView::laneArea() const {
  const QRectF all = canvas_->viewport()->rect();
  const double bottom = std::max(kCanvas.axis_height, all.height() - legendHeight(all.width()));
  return QRectF(0, kCanvas.axis_height, all.width(), bottom - kCanvas.axis_height);
}

double TimelineView::lanesHeight() const {
  const QRectF area = laneArea();
  const double n = double(lanes_.size());
  const double height = std::clamp(area.height() / n - kCanvas.lane_gap, kCanvas.lane_height, kCanvas.max_lane_height);
  return n * (height + kCanvas.lane_gap);
}

std::vector<QPointF> TimelineView::legendPlaces(double width, double* height) const {
  // Left to right, a new row where an entry would run past the right edge.
  std::vector<QPointF> places;
  const QFontMetrics metrics(font());
  double x = 8, y = 0;
  if (profile_ && !lanes_.empty())
    for (const auto& text : legendTexts()) {
      const double w = 21 + metrics.horizontalAdvance(text);
      if (x > 8 && x + w > width - 8) {
        x = 8;
        y += kCanvas.legend_row;
      }
      places.emplace_back(x, y);
      x += w + 18;
    }
  if (height != nullptr) *height = places.empty() ? 0 : y + kCanvas.legend_row + kCanvas.legend_pad;
  return places;
}

double TimelineView::legendHeight(double width) const {
  double height = 0;
  legendPlaces(width, &height);
  return std::max(height, kCanvas.legend_row + kCanvas.legend_pad);
}

void TimelineView::layoutBars() {
  // Setting a range can show or hide a scroll bar, which resizes the
  // viewport and asks again from inside: lay out once more after, not within.
  if (layingOut_) {
    relayout_ = true;
    return;
  }
  layingOut_ = true;
  for (int pass = 0; pass < 3; ++pass) {
    relayout_ = false;
    layoutBarsOnce();
    if (!relayout_) break;
  }
  layingOut_ = false;
}

void TimelineView::layoutBarsOnce() {
  // The lanes that do not fit scroll under the axis and the legend.
  QScrollBar* vertical = canvas_->verticalScrollBar();
  const double area = laneArea().height();
  vertical->setPageStep(std::max(1, int(area)));
  vertical->setRange(0, lanes_.empty() || bars_.empty() ? 0 : std::max(0, int(std::ceil(lanesHeight() - area))));
  QScrollBar* scroll = canvas_->horizontalScrollBar();
  const double content = duration_ * pixelsPerSecond();
  scroll->setPageStep(int(timeWidth()));
  scroll->setRange(0, std::max(0, int(std::ceil(content - timeWidth()))));
  const double pps = pixelsPerSecond();
  for (auto& bar : bars_) {
    const QRectF lane = laneRect(bar.lane);
    bar.rect = QRectF(xOf(bar.start), lane.top() + kCanvas.bar_inset, std::max(bar.seconds * pps, kCanvas.min_bar_width),
                      lane.height() - 2 * kCanvas.bar_inset);
  }
}

int TimelineView::barAt(const QPointF& position) const {
  // Bars hidden under the pinned lane labels, axis or legend cannot be hit.
  if (position.x() < timeLeft() - kCanvas.pad_left) return -1;
  if (!laneArea().contains(position)) return -1;
  // Where minimum-width bars overlap, the narrowest wins so it stays reachable.
  int best = -1;
  for (size_t i = 0; i < bars_.size(); ++i) {
    QRectF hit = bars_[i].rect;
    const double widen = std::max(0.0, kCanvas.min_hit_width - hit.width()) / 2;
    hit.adjust(-widen, 0, widen, 0);
    if (!hit.contains(position)) continue;
    if (best < 0 || bars_[i].rect.width() < bars_[size_t(best)].rect.width()) best = int(i);
  }
  return best;
}

void TimelineView::zoomAround(double zoom, double anchorX) {
  if (bars_.empty()) return;
  const double clamped = std::clamp(zoom, 1.0, maxZoom());
  const double anchor = std::clamp(anchorX, timeLeft(), timeLeft() + timeWidth());
  const double seconds = secondsAt(anchor);
  zoom_ = clamped;
  layoutBars();  // the new scroll range
  canvas_->horizontalScrollBar()->setValue(int(std::lround(seconds * pixelsPerSecond() - (anchor - timeLeft()))));
  layoutBars();
  updateControls();
  canvas_->viewport()->update();
}

void TimelineView::setZoom(double zoom) {
  // The keys and buttons zoom about the selected bar when it is in view (it
  // went out of sight about the middle: walkthrough 23); else the middle.
  double anchor = timeLeft() + timeWidth() / 2;
  const auto selected = selected_ ? std::find_if(bars_.begin(), bars_.end(),
                                                 [&](const Bar& b) { return b.instruction == *selected_; })
                                  : bars_.end();
  if (selected != bars_.end() && selected->rect.center().x() >= timeLeft() &&
      selected->rect.center().x() <= timeLeft() + timeWidth())
    anchor = selected->rect.center().x();
  const bool keep = selected != bars_.end() && anchor != timeLeft() + timeWidth() / 2;
  zoomAround(zoom, anchor);
  // (Rounding moves a bar at the very edge by a pixel a step: kept whole.)
  if (keep) {
    const auto again = std::find_if(bars_.begin(), bars_.end(), [&](const Bar& b) { return b.instruction == *selected_; });
    if (again != bars_.end() && (again->rect.left() < timeLeft() || again->rect.right() > timeLeft() + timeWidth()))
      scrollToBar(*again);
  }
}
void TimelineView::zoomIn() { setZoom(zoom_ * kZoomStep); }
void TimelineView::zoomOut() { setZoom(zoom_ / kZoomStep); }
void TimelineView::zoomToFit() { setZoom(1); }

void TimelineView::selectInstruction(size_t instruction) {
  const auto it = std::find_if(bars_.begin(), bars_.end(), [&](const Bar& b) { return b.instruction == instruction; });
  if (it == bars_.end()) {
    selected_.reset();
  } else {
    selected_ = instruction;
    scrollToLane(it->lane);
    scrollToBar(*it);
  }
  canvas_->viewport()->update();
}

bool TimelineView::instructionInView(size_t instruction) const {
  const auto it = std::find_if(bars_.begin(), bars_.end(), [&](const Bar& b) { return b.instruction == instruction; });
  return it != bars_.end() && it->rect.right() >= timeLeft() && it->rect.left() <= timeLeft() + timeWidth();
}

void TimelineView::scrollToBar(const Bar& bar) {
  const double left = timeLeft(), right = timeLeft() + timeWidth();
  if (bar.rect.left() >= left && bar.rect.right() <= right) return;
  // Centre it; a bar wider than the view starts at the left edge.
  const double pps = pixelsPerSecond();
  const double width = bar.rect.width();
  const double target = width >= timeWidth() ? bar.start * pps : bar.start * pps + width / 2 - timeWidth() / 2;
  canvas_->horizontalScrollBar()->setValue(int(std::lround(target)));
  layoutBars();
}

void TimelineView::scrollToLane(Lane lane) {
  const QRectF area = laneArea(), rect = laneRect(lane);
  QScrollBar* vertical = canvas_->verticalScrollBar();
  if (rect.isEmpty() || (rect.top() >= area.top() && rect.bottom() <= area.bottom())) return;
  vertical->setValue(vertical->value() + int(std::lround(rect.top() < area.top() ? rect.top() - area.top() - kCanvas.lane_gap / 2
                                                                                 : rect.bottom() - area.bottom() + kCanvas.lane_gap / 2)));
  layoutBars();
}

QString TimelineView::barToolTip(const Bar& bar) const {
  QStringList lines;
  lines << QString("<b>%1</b>").arg(bar.name.toHtmlEscaped());
  lines << tr("instruction %1 · %2").arg(bar.instruction).arg(laneName(bar.lane));
  lines << tr("starts at %1 · takes %2").arg(durationText(bar.start), durationText(bar.seconds));
  if (isCopyLane(bar.lane)) {
    const double gbps = bar.seconds > 0 ? double(bar.bytes) / bar.seconds / 1e9 : 0.0;
    lines << tr("%1 at %2 GB/s").arg(bytesText(qint64(bar.bytes)), gbpsText(gbps));
    for (const auto& copy : profile_->copies)
      if (copy.instruction == bar.instruction) {
        lines << tr("median %1 over %2, host memory: %3")
                     .arg(durationText(copy.seconds.median), countText(qint64(profile_->iterations), tr("iteration")),
                          QString::fromStdString(exec::copyHostMemoryText(*profile_, copy)));
        break;
      }
    if (profile_->emulated) lines << tr("emulated: a host memcpy, not a GPU link");
  } else {
    for (const auto& ins : profile_->instructions)
      if (ins.instruction == bar.instruction) {
        if (!ins.executed)
          lines << tr("not executed: %1").arg(QString::fromStdString(ins.reason).toHtmlEscaped());
        else
          lines << tr("median %1 over %2 (host clock)")
                       .arg(durationText(ins.host_seconds.median), countText(qint64(profile_->iterations), tr("iteration")));
        break;
      }
  }
  return lines.join("<br>");
}

void TimelineView::setMeasuredBefore(const QString& when) {
  if (when == measuredBefore_) return;
  measuredBefore_ = when;
  updateControls();
}

QString TimelineView::infoText() const { return info_->text(); }

void TimelineView::setOtherMethod(const QString& method) {
  if (method == otherMethod_) return;
  otherMethod_ = method;
  if (!profile_) canvas_->setAccessibleDescription(emptyText());
  canvas_->viewport()->update();
}

QString TimelineView::emptyText() const {
  if (!profile_ && !otherMethod_.isEmpty())
    return tr("The latest profile measured method '%1', not this one: show '%1', or profile this method.").arg(otherMethod_);
  if (!profile_) return tr("Profile > Profile Transfers… (F5) shows the copies and kernels of one iteration here");
  // A trace recorded at the method level has the runs' times and no
  // instruction's: it was not "cancelled".
  if (profile_->runtime == etdump::kEtdumpSource && profile_->iterations > 0 && profile_->instructions.empty())
    return tr("This trace times whole runs of the method and no instruction in them (recorded without instruction "
              "events): there is nothing to draw on the lanes.");
  if (profile_->runtime == etdump::kEtdumpSource)
    return tr("This trace has no instruction events of this method: there is nothing to draw on the lanes.");
  return tr("This profile kept no timeline: it was cancelled before the first measured iteration ended.");
}

void TimelineView::paintCanvas(QPainter& p) {
  QWidget* viewport = canvas_->viewport();
  const QRectF all = viewport->rect();
  p.fillRect(all, palette().base());
  if (bars_.empty()) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(all.adjusted(12, 12, -12, -12), Qt::AlignCenter | Qt::TextWordWrap, emptyText());
    return;
  }
  p.setRenderHint(QPainter::Antialiasing);
  const QColor text = palette().color(QPalette::Text);
  const QColor grid = palette().color(QPalette::Mid);
  // Lanes as alternating bands under the bars, between the axis and the
  // legend (where they do not all fit they scroll under both).
  const QRectF lanesArea = laneArea();
  p.save();
  p.setClipRect(lanesArea);
  for (size_t i = 0; i < lanes_.size(); ++i) {
    const QRectF lane = laneRect(lanes_[i]);
    p.fillRect(lane, i % 2 ? palette().base() : palette().alternateBase());
  }
  p.restore();
  const double left = timeLeft() - kCanvas.pad_left;
  const QRectF timeArea(left, lanesArea.top(), all.width() - left, lanesArea.height());
  p.save();
  p.setClipRect(timeArea);
  // Tick lines across the lanes.
  const double pps = pixelsPerSecond();
  const double step = niceStep(kCanvas.min_tick_spacing / pps);
  const double lanesTop = laneRect(lanes_.front()).top();
  const double lanesBottom = laneRect(lanes_.back()).bottom();
  QColor gridLine = grid;
  gridLine.setAlpha(90);
  p.setPen(QPen(gridLine, 1));
  const double firstTick = std::ceil(std::max(0.0, secondsAt(timeLeft())) / step);
  for (double k = firstTick;; ++k) {
    const double x = xOf(k * step);
    if (x > all.width() || k * step > duration_) break;
    p.drawLine(QPointF(x, lanesTop), QPointF(x, lanesBottom));
  }
  const QColor highlight = palette().color(QPalette::Highlight);
  const QFontMetrics metrics(font());
  // Right edge of the last bar drawn on each lane: a big method at full
  // view puts thousands of minimum-width bars on one pixel column, and
  // drawing each of them costs time without changing a pixel.
  std::array<double, 4> drawnTo;
  drawnTo.fill(-1e300);
  for (size_t i = 0; i < bars_.size(); ++i) {
    const Bar& bar = bars_[i];
    if (bar.rect.right() < left || bar.rect.left() > all.width()) continue;
    const BarStyle style = styleOf(bar.lane, bar.delegate, bar.device);
    const bool selected = selected_ && *selected_ == bar.instruction;
    const bool hovered = int(i) == hovered_;
    double& reach = drawnTo[size_t(bar.lane)];
    if (!selected && !hovered && bar.rect.width() <= kCanvas.min_bar_width && bar.rect.right() <= reach + 1) continue;
    reach = std::max(reach, bar.rect.right());
    p.setPen(Qt::NoPen);
    p.setBrush(style.fill);
    p.drawRect(bar.rect);
    if (style.hatched) {
      p.setBrush(QBrush(style.stroke, Qt::BDiagPattern));
      p.drawRect(bar.rect);
    }
    p.setBrush(Qt::NoBrush);
    p.setPen(selected ? QPen(highlight, 2.5) : QPen(hovered ? text : style.stroke, hovered ? 1.5 : 1));
    p.drawRect(selected ? bar.rect.adjusted(-1, -1, 1, 1) : bar.rect);
    // Names inside the bars that have room; the tooltip has them all.
    const QRectF inside = bar.rect.intersected(timeArea).adjusted(4, 0, -3, 0);
    if (inside.width() > 30 && inside.height() >= metrics.height() - 4) {
      p.setPen(text);
      const QString name = metrics.elidedText(bar.name, Qt::ElideRight, int(inside.width()));
      p.drawText(inside, Qt::AlignVCenter | Qt::AlignLeft, name);
    }
  }
  p.restore();

  // Lane labels, pinned; the legend strip below shares their background.
  const double legendTop = std::min(lanesBottom + kCanvas.lane_gap / 2, lanesArea.bottom());
  p.fillRect(QRectF(0, 0, left, all.height()), palette().window());
  p.fillRect(QRectF(0, legendTop, all.width(), all.height()), palette().window());
  p.setPen(grid);
  p.drawLine(QPointF(left, 0), QPointF(left, std::min(lanesBottom, lanesArea.bottom())));
  QFont bold = font();
  bold.setBold(true);
  p.save();
  p.setClipRect(QRectF(0, lanesArea.top(), left, lanesArea.height()));
  for (Lane lane : lanes_) {
    const QRectF r = laneRect(lane);
    const auto count = std::count_if(bars_.begin(), bars_.end(), [&](const Bar& b) { return b.lane == lane; });
    p.setPen(text);
    p.setFont(bold);
    const QRectF label(8, r.top(), left - 12, r.height());
    p.drawText(label, Qt::AlignLeft | Qt::AlignVCenter, laneName(lane));
    p.setFont(font());
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(label, Qt::AlignRight | Qt::AlignVCenter, QString::number(count));
  }
  p.restore();
  paintAxis(p);
  paintLegend(p, legendTop);
}

void TimelineView::paintAxis(QPainter& p) {
  const QRectF all = canvas_->viewport()->rect();
  const double left = timeLeft() - kCanvas.pad_left;
  const double pps = pixelsPerSecond();
  const double step = niceStep(kCanvas.min_tick_spacing / pps);
  const TickFormat format = tickFormat(step, std::min(duration_, secondsAt(all.width())));
  const QColor text = palette().color(QPalette::Text);
  const QFontMetrics metrics(font());
  p.fillRect(QRectF(0, 0, all.width(), kCanvas.axis_height), palette().window());
  p.setPen(palette().color(QPalette::Mid));
  p.drawLine(QPointF(left, kCanvas.axis_height - 1), QPointF(all.width(), kCanvas.axis_height - 1));
  p.save();
  p.setClipRect(QRectF(left, 0, all.width() - left, kCanvas.axis_height));
  const double firstTick = std::ceil(std::max(0.0, secondsAt(timeLeft() - 40)) / step);
  for (double k = firstTick;; ++k) {
    const double seconds = k * step;
    const double x = xOf(seconds);
    if (x > all.width() + 40 || seconds > duration_) break;
    p.setPen(palette().color(QPalette::Mid));
    p.drawLine(QPointF(x, kCanvas.axis_height - 6), QPointF(x, kCanvas.axis_height - 1));
    p.setPen(text);
    const QString number = QString::number(seconds * format.scale, 'f', format.decimals);
    const QString label = k == 0 ? QStringLiteral("0") : number + " " + format.unit;
    // Labels centre on their tick, except 0, which starts at it; a label the
    // edges would cut is left out (a cut "3.5" reads as another number).
    const double width = metrics.horizontalAdvance(label) + 4;
    const QRectF box(k == 0 ? x - 2 : x - width / 2, 2, width, kCanvas.axis_height - 8);
    if (box.left() < left || box.right() > all.width()) continue;
    p.drawText(box, Qt::AlignCenter, label);
  }
  p.restore();
  p.setPen(palette().color(QPalette::PlaceholderText));
  p.drawText(QRectF(8, 2, left - 12, kCanvas.axis_height - 8), Qt::AlignLeft | Qt::AlignVCenter,
             tr("iteration %1").arg(iteration_ + 1));
}

namespace {

struct LegendEntry {
  BarStyle style;
  QString text;
};

// The legend's entries, left to right: the copies, the CPU kernels, each
// device's delegate calls (in the order they first run) and the
// instructions not executed.
std::vector<LegendEntry> legendEntries(const exec::TransferProfile& profile, const std::vector<TimelineView::Bar>& bars) {
  using Lane = TimelineView::Lane;
  const program::Device delegateDevice = delegateDeviceOf(&profile);
  std::vector<LegendEntry> entries;
  bool cpuKernels = false, notExecuted = false;
  std::vector<program::Device> delegateDevices;  // in order of first appearance
  for (const auto& s : profile.timeline) {
    if (s.track == exec::TimelineSlice::Track::NotExecuted) notExecuted = true;
  }
  bool h2d = false, d2h = false;
  for (const auto& b : bars) {
    h2d = h2d || b.lane == Lane::HostToDevice;
    d2h = d2h || b.lane == Lane::DeviceToHost;
    if (b.lane != Lane::Kernels) continue;
    if (!b.delegate)
      cpuKernels = true;
    else if (std::find(delegateDevices.begin(), delegateDevices.end(), b.device) == delegateDevices.end())
      delegateDevices.push_back(b.device);
  }
  // What is drawn only (a CPU method's legend listed both copies).
  if (h2d) entries.push_back({styleOf(Lane::HostToDevice, false, delegateDevice), TimelineView::tr("host → device copy")});
  if (d2h) entries.push_back({styleOf(Lane::DeviceToHost, false, delegateDevice), TimelineView::tr("device → host copy")});
  if (cpuKernels || delegateDevices.empty())
    entries.push_back({styleOf(Lane::Kernels, false, delegateDevice), TimelineView::tr("CPU kernel")});
  for (const auto& device : delegateDevices)
    entries.push_back({styleOf(Lane::Kernels, true, device),
                       TimelineView::tr("delegate call (%1)").arg(QString::fromStdString(device.str()))});
  if (notExecuted) entries.push_back({styleOf(Lane::NotExecuted, false, delegateDevice), TimelineView::tr("not executed")});
  return entries;
}

}  // namespace

QStringList TimelineView::legendTexts() const {
  QStringList texts;
  if (profile_ && !lanes_.empty())
    for (const auto& e : legendEntries(*profile_, bars_)) texts << e.text;
  return texts;
}

int TimelineView::contentHeight() const {
  if (!profile_ || lanes_.empty()) return 0;
  const double width = canvas_->viewport()->width();
  const double legendTop = std::min(laneRect(lanes_.back()).bottom() + kCanvas.lane_gap / 2, laneArea().bottom());
  return int(std::ceil(legendTop + legendHeight(width) - kCanvas.legend_pad / 2));
}

void TimelineView::paintLegend(QPainter& p, double legendTop) {
  const QRectF all = canvas_->viewport()->rect();
  const double top = legendTop + 4;
  const auto entries = legendEntries(*profile_, bars_);
  const auto places = legendPlaces(all.width(), nullptr);
  const QFontMetrics metrics(font());
  double x = 8, y = top;
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i];
    if (i < places.size()) {
      x = places[i].x();
      y = top + places[i].y();
    }
    const QRectF swatch(x, y + 4, 16, 11);
    p.setPen(e.style.stroke);
    p.setBrush(e.style.fill);
    p.drawRect(swatch);
    if (e.style.hatched) {
      p.setBrush(QBrush(e.style.stroke, Qt::BDiagPattern));
      p.drawRect(swatch);
    }
    p.setPen(palette().color(QPalette::Text));
    const double width = metrics.horizontalAdvance(e.text);
    p.drawText(QRectF(x + 21, y, width + 2, kCanvas.legend_row), Qt::AlignLeft | Qt::AlignVCenter, e.text);
    x += 21 + width + 18;
  }
  const QString hint = tr("hover for details · click to select · Ctrl+wheel to zoom · drag to pan");
  const double hintWidth = metrics.horizontalAdvance(hint);
  if (x + hintWidth + 8 < all.width()) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(QRectF(all.width() - hintWidth - 8, y, hintWidth + 2, kCanvas.legend_row), Qt::AlignRight | Qt::AlignVCenter, hint);
  }
}

}  // namespace ptescope::ui
