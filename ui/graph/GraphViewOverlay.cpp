// GraphView: what is drawn over the graph: the diff view's banner and the
// profile overlay (copies coloured by time or bandwidth, and the legend).
#include "ui/graph/GraphView.h"

#include <QLabel>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>
#include <unordered_map>
#include <vector>

#include "analysis/Summary.h"
#include "layout/DeviceStyle.h"
#include "program/Text.h"
#include "ui/common/Format.h"
#include "ui/graph/GraphItems.h"
#include "ui/graph/GraphLegend.h"

namespace ptescope::ui {

using layout::NodeKind;

// ---- diff view ----

QString GraphView::diffSummary() const {
  if (!changes_) return {};
  const auto& c = *changes_;
  if (c.empty())
    return tr("Diff against the file as loaded: no changes in this method.") +
           (diffNote_.isEmpty() ? QString() : " " + diffNote_);
  QStringList parts;
  auto count = [](size_t n, const QString& one, const QString& many) { return QString::number(n) + " " + (n == 1 ? one : many); };
  if (!c.added_copies.empty()) parts << "+" + count(c.added_copies.size(), tr("copy added"), tr("copies added"));
  if (!c.removed_copies.empty()) parts << "\u2212" + count(c.removed_copies.size(), tr("copy removed"), tr("copies removed"));
  if (!c.moved_values.empty()) parts << count(c.moved_values.size(), tr("value changed device"), tr("values changed device"));
  if (!c.retargeted_delegates.empty())
    parts << count(c.retargeted_delegates.size(), tr("delegate retargeted"), tr("delegates retargeted"));
  if (c.retargeted.size() > c.retargeted_delegates.size())
    parts << count(c.retargeted.size() - c.retargeted_delegates.size(), tr("copy now to or from another device"),
                   tr("copies now to or from another device"));
  for (const auto& note : c.notes) parts << QString::fromStdString(note);
  if (!diffNote_.isEmpty()) parts << diffNote_;
  if (layout_ && layout_->model.undrawn_removed_copies > 0)
    parts << tr("%1 removed copies not drawn (open groups or see Changes)").arg(layout_->model.undrawn_removed_copies);
  return tr("Diff against the file as loaded: %1").arg(parts.join(QStringLiteral(" \u00b7 ")));
}

void GraphView::setDiffNote(const QString& note) {
  if (note == diffNote_) return;
  diffNote_ = note;
  updateBanner();
}

void GraphView::setViewNote(const QString& note) {
  if (note == viewNote_) return;
  viewNote_ = note;
  updateBanner();
}

void GraphView::updateBanner() {
  QString text = diffSummary();
  if (!viewNote_.isEmpty()) text = text.isEmpty() ? viewNote_ : text + QStringLiteral(" \u00b7 ") + viewNote_;
  if (layout_ && !layout_->note.empty())
    text += (text.isEmpty() ? QString() : QStringLiteral(" \u00b7 ")) + QString::fromStdString(layout_->note);
  banner_->setVisible(!text.isEmpty() && layout_ != nullptr);
  banner_->setText(text);
  placeOverlays();
}

// ---- profile overlay ----

void GraphView::setMeasurements(std::vector<CopyMeasurement> copies, MeasurementSource source, const QString& before) {
  measurements_ = std::move(copies);
  measurementSource_ = source;
  measuredBefore_ = source != MeasurementSource::Predicted ? before : QString();
  applyOverlay();
}

namespace {

// " emulated" after a number that is not a GPU link's; "" for a measured one.
QString sourceSuffix(GraphView::MeasurementSource source) {
  switch (source) {
    case GraphView::MeasurementSource::Emulated: return QObject::tr(" emulated");
    case GraphView::MeasurementSource::Predicted: return QObject::tr(" predicted");
    case GraphView::MeasurementSource::Measured: break;
  }
  return {};
}

}  // namespace

void GraphView::setOverlayMetric(OverlayMetric metric) {
  overlayMetric_ = metric;
  applyOverlay();
}


bool GraphView::overlayWithoutMeasurements() const {
  return overlayMetric_ != OverlayMetric::Placement && measurements_.empty() && layout_ && layout_->model.instruction_count > 0;
}

// A method without host-device copies and without delegates (which may
// copy inside themselves): a profile has nothing to time in it, and the
// legend says so rather than asking for one.
bool GraphView::methodMakesNoCopies() const {
  if (!program_ || methodIndex_ < 0 || size_t(methodIndex_) >= program_->methods().size()) return false;
  const auto s = analysis::summarizeMethod(program_->methods()[size_t(methodIndex_)]);
  return s.h2d_copies + s.d2h_copies == 0 && s.delegate_calls == 0;
}

QString GraphView::overlayLegendText() const {
  // Colours by copy time asked for, none to show (another method's profile,
  // or none yet): said, not a placement picture under "Copy time".
  if (overlayWithoutMeasurements() && methodMakesNoCopies())
    return tr("no copies in this method: nothing to time (placement colours)");
  if (overlayWithoutMeasurements())
    return overlayMetric_ == OverlayMetric::Time ? tr("no copy times for this method: profile it (placement colours meanwhile)")
                                                 : tr("no bandwidths for this method: profile it (placement colours meanwhile)");
  if (overlayMetric_ == OverlayMetric::Placement || measurements_.empty() || (overlayMin_ == 0 && overlayMax_ == 0)) return {};
  QString what;
  switch (measurementSource_) {
    case MeasurementSource::Emulated:
      what = overlayMetric_ == OverlayMetric::Time ? tr("emulated copy time (host memcpy, not a GPU link)")
                                                   : tr("emulated bandwidth (host memcpy, not a GPU link)");
      break;
    case MeasurementSource::Predicted:
      what = overlayMetric_ == OverlayMetric::Time ? tr("predicted copy time") : tr("predicted bandwidth");
      break;
    case MeasurementSource::Measured:
      what = overlayMetric_ == OverlayMetric::Time ? tr("measured copy time") : tr("measured bandwidth");
      break;
  }
  if (overlayMetric_ == OverlayMetric::Time)
    return tr("%1 %2 \u2192 %3").arg(what, durationText(overlayMin_), durationText(overlayMax_));
  return tr("%1 %2 \u2192 %3").arg(what, gbpsText(overlayMax_) + " GB/s", gbpsText(overlayMin_) + " GB/s");
}

QString GraphView::overlayLegendNote() const {
  // A profile of the program before the edits, matched onto this one: its
  // badges read as this program's times otherwise.
  QStringList notes;
  if (!measuredBefore_.isEmpty() && !overlayLegendText().isEmpty() && !overlayWithoutMeasurements())
    notes << tr("times measured %1").arg(measuredBefore_);
  // What a '*' on a badge means.
  if (overlayMetric_ == OverlayMetric::Time &&
      std::any_of(measurements_.begin(), measurements_.end(), [](const CopyMeasurement& m) { return m.marked; }))
    notes << tr("* not only the copy: it waited for a delegate's queued GPU work");
  return notes.join(QStringLiteral("; "));
}

void GraphView::applyOverlay() {
  if (!layout_) return;
  const auto& model = layout_->model;
  for (auto* item : nodeItems_) item->setOverlay(std::nullopt);
  for (auto* item : edgeItems_) item->setOverlay(std::nullopt);
  overlayMin_ = overlayMax_ = 0;
  // The measurements number the instructions of program_; the picture on
  // screen may still be of the previous program until its layout is done.
  const bool pictureOfProgram = pictureIsCurrent();
  if (pictureOfProgram && overlayMetric_ != OverlayMetric::Placement && !measurements_.empty()) {
    // Per visible node: the copies it shows (a group sums the ones inside).
    struct Sum {
      double seconds = 0;
      uint64_t bytes = 0;
      bool marked = false;
    };
    const bool time = overlayMetric_ == OverlayMetric::Time;
    std::map<size_t, Sum> perNode;
    for (const auto& m : measurements_) {
      // A time that is not only copying gives no bandwidth.
      if (m.marked && !time) continue;
      auto node = model.nodeOfInstruction(m.instruction);
      if (!node) continue;
      auto& sum = perNode[*node];
      sum.seconds += m.seconds;
      sum.bytes += m.bytes;
      sum.marked = sum.marked || m.marked;
    }
    auto metricOf = [time](const Sum& s) {
      return time ? s.seconds : (s.seconds > 0 ? double(s.bytes) / s.seconds / 1e9 : 0.0);
    };
    bool first = true;
    for (const auto& [node, sum] : perNode) {
      const double v = metricOf(sum);
      overlayMin_ = first ? v : std::min(overlayMin_, v);
      overlayMax_ = first ? v : std::max(overlayMax_, v);
      first = false;
    }
    // Times spread over orders of magnitude: a log scale when they do.
    const bool logScale = overlayMin_ > 0 && overlayMax_ / overlayMin_ > 20;
    auto position = [&](double v) {
      if (overlayMax_ <= overlayMin_) return 0.5;
      const double t = logScale ? std::log(v / overlayMin_) / std::log(overlayMax_ / overlayMin_)
                                : (v - overlayMin_) / (overlayMax_ - overlayMin_);
      return time ? t : 1.0 - t;  // low bandwidth is the costly end
    };
    for (const auto& [node, sum] : perNode) {
      const double v = metricOf(sum);
      nodeItems_[node]->setOverlay(ItemOverlay{costColour(position(v)),
                                               (time ? durationText(v) : gbpsText(v) + QStringLiteral(" GB/s")) +
                                                   (sum.marked ? QStringLiteral("*") : QString()) +
                                                   sourceSuffix(measurementSource_)});
    }
    // The edges that leave a copy carry the copied tensor across devices:
    // they take its colour and keep their own label (the copy's node says
    // its bytes and time; "256 B · 20.0 ns emulated" again on the edge,
    // wider than the label dot made room for, covered the labels beside it).
    for (size_t e = 0; e < model.edges.size(); ++e) {
      const size_t from = model.edges[e].from;
      if (!perNode.count(from) || model.nodes[from].kind == NodeKind::Group) continue;
      edgeItems_[e]->setOverlay(ItemOverlay{nodeItems_[from]->overlay()->colour, QString()});
    }
  }
  separateEdgeLabels();
  separateLabels();
  legend_->setEntries(legendEntries(model, overlayLegendText(), overlayWithoutMeasurements(), overlayLegendNote()));
  if (!legendShown_) legend_->hide();
  placeOverlays();
}

namespace {

// Rectangles bucketed in a coarse grid of the scene, for "what does this
// rectangle cover" on graphs of thousands of labels.
class RectGrid {
 public:
  void add(const QRectF& r) {
    if (r.isEmpty()) return;
    const size_t index = rects_.size();
    rects_.push_back(r);
    forCells(r, [&](qint64 key) { cells_[key].push_back(index); });
  }
  // The area of `r` that the rectangles cover (overlaps counted once per
  // rectangle), not counting `except`.
  double covered(const QRectF& r, const QRectF& except = QRectF()) const {
    double area = 0;
    std::vector<size_t> seen;
    forCells(r, [&](qint64 key) {
      auto it = cells_.find(key);
      if (it == cells_.end()) return;
      for (size_t index : it->second) {
        if (std::find(seen.begin(), seen.end(), index) != seen.end()) continue;
        seen.push_back(index);
        if (rects_[index] == except) continue;
        const QRectF both = rects_[index].intersected(r);
        if (!both.isEmpty()) area += both.width() * both.height();
      }
    });
    return area;
  }

 private:
  static constexpr double kCell = 200;
  template <class F>
  static void forCells(const QRectF& r, F f) {
    const qint64 x0 = qint64(std::floor(r.left() / kCell)), x1 = qint64(std::floor(r.right() / kCell));
    const qint64 y0 = qint64(std::floor(r.top() / kCell)), y1 = qint64(std::floor(r.bottom() / kCell));
    for (qint64 x = x0; x <= x1; ++x)
      for (qint64 y = y0; y <= y1; ++y) f((x << 32) ^ (y & 0xffffffff));
  }
  std::vector<QRectF> rects_;
  std::unordered_map<qint64, std::vector<size_t>> cells_;
};

// Of `count` places (rectOf(k)), the first that covers nothing `taken` holds
// (but `except`), else the one that covers least.
template <class RectOf>
int leastCovered(const RectGrid& taken, int count, RectOf rectOf, const QRectF& except = QRectF()) {
  int best = 0;
  double least = -1;
  for (int k = 0; k < count; ++k) {
    const double area = taken.covered(rectOf(k), except);
    if (least < 0 || area < least) {
      least = area;
      best = k;
    }
    if (area <= 0) break;
  }
  return best;
}

}  // namespace

void GraphView::separateEdgeLabels() {
  // An edge label that stands on another (two edges into one delegate read
  // "flofloat16[1,128]": walkthrough 23), or a quarter of it on a node or a
  // region's title, takes the first of its other places that covers none of
  // them. Dot's places are kept wherever they are clear.
  RectGrid nodes, labels;
  for (const auto* item : nodeItems_) nodes.add(item->boxSceneRect());
  // The regions' titles ("cuda:7") are not to be covered either.
  if (layout_)
    for (const auto& region : layout_->regions)
      nodes.add(QRectF(region.rect.x, region.rect.y, std::min(region.rect.width, 160.0), 36));
  for (auto* item : edgeItems_) {
    if (item->labelCandidates() == 0) continue;
    const QRectF home = item->labelCandidateSceneRect(0);
    const bool onLabel = labels.covered(home, QRectF()) > 0;
    const bool onNode = nodes.covered(home, QRectF()) > 0.25 * home.width() * home.height();
    int best = 0;
    if (onLabel || onNode) {
      // The first place clear of labels and nodes; else, on a label, the one
      // that covers labels least; on a node only, dot's.
      best = -1;
      for (int k = 0; k < item->labelCandidates() && best < 0; ++k) {
        const QRectF r = item->labelCandidateSceneRect(k);
        if (labels.covered(r, QRectF()) <= 0 && nodes.covered(r, QRectF()) <= 0) best = k;
      }
      if (best < 0)
        best = onLabel ? leastCovered(labels, item->labelCandidates(), [item](int k) { return item->labelCandidateSceneRect(k); })
                       : 0;
    }
    item->setLabelCandidate(best);
    labels.add(item->labelSceneRect());
  }
}

void GraphView::separateLabels() {
  // What the badges must not cover: the nodes' boxes and the edges' labels
  // (dot placed both without overlaps). Each badge then takes the first of
  // its places that covers none of them nor a badge placed before it, else
  // the one that covers least.
  const bool anyPill = std::any_of(nodeItems_.begin(), nodeItems_.end(), [](const auto* n) { return n->overlay().has_value(); }) ||
                       std::any_of(edgeItems_.begin(), edgeItems_.end(), [](const auto* e) { return e->insideBadgeCandidates() > 0; });
  if (!anyPill) return;  // most pictures: nothing to place
  RectGrid taken;
  for (const auto* item : nodeItems_) taken.add(item->boxSceneRect());
  for (const auto* item : edgeItems_) taken.add(item->labelSceneRect());
  constexpr int kSides = int(std::size(GraphNodeItem::kBadgeSides));
  for (auto* item : nodeItems_) {
    if (!item->overlay()) continue;
    const auto side = GraphNodeItem::kBadgeSides[leastCovered(
        taken, kSides, [item](int k) { return item->overlayBadgeSceneRect(GraphNodeItem::kBadgeSides[k]); },
        item->boxSceneRect())];
    item->setBadgeSide(side);
    taken.add(item->overlayBadgeSceneRect(side));
  }
  for (auto* item : edgeItems_) {
    if (item->insideBadgeCandidates() == 0) continue;
    const int place = leastCovered(taken, item->insideBadgeCandidates(), [item](int k) { return item->insideBadgeSceneRect(k); });
    item->setInsideBadgeCandidate(place);
    taken.add(item->insideBadgeSceneRect(place));
  }
}

}  // namespace ptescope::ui
