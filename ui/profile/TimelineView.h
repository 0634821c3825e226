// One measured iteration of a profile, drawn as bars on lanes: host-to-device
// copies, kernels (CPU kernels and delegate calls), device-to-host copies,
// and the instructions ptescope could not run ("Not executed", only when
// there are some). Time runs left to right from the first instruction of the
// iteration, so the gaps between copies and the kernels that wait on them
// show where a step spends its time.
//
// Controls: the iteration selector (the profile keeps the timeline of its
// first few measured iterations), Ctrl+wheel / Ctrl+= / Ctrl+- or the +/−
// buttons to zoom around the pointer or the centre, Ctrl+0 or "Fit" to see
// the whole iteration, wheel / drag / scroll bar to pan. Hover a bar for its
// name, instruction, start, duration and, for copies, bytes and GB/s; click
// it to select the instruction.
//
// Usage from the main window:
//   auto* timeline = new TimelineView;
//   timeline->setProfile(session->latest());           // shared, immutable
//   connect(timeline, &TimelineView::instructionClicked, window, &MainWindow::selectInstruction);
//   graph selection → timeline->selectInstruction(i);  // highlights and scrolls to it
//
// The profile must describe the method the window shows: bars carry that
// method's instruction indices.
#pragma once

#include <QStringList>
#include <QWidget>

#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "exec/Profiler.h"

class QComboBox;
class QLabel;
class QToolButton;

namespace ptescope::ui {

class TimelineCanvas;
class TimeBreakdownBar;

class TimelineView : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineView(QWidget* parent = nullptr);
  ~TimelineView() override;

  // With the method the profile measured (`program`'s method `method`), each
  // delegate call is drawn in its own target device's colour and the legend
  // names every such device; without it, the device of the profile's copies.
  void setProfile(std::shared_ptr<const exec::TransferProfile> profile,
                  const program::Method* measured = nullptr);
  void clear();
  const std::shared_ptr<const exec::TransferProfile>& profile() const { return profile_; }

  // The iterations the profile's timeline kept (TimelineSlice::iteration,
  // 0-based), ascending; the view shows one of them.
  const std::vector<size_t>& iterations() const { return iterations_; }
  // Shows a kept iteration; anything else is ignored. -1 when nothing shows.
  void setIteration(int iteration);
  int iteration() const { return iteration_; }

  // The profile's tracks: one per copy direction, kernels, not executed.
  using Lane = exec::TimelineSlice::Track;
  static QString laneName(Lane lane);

  struct Bar {
    Lane lane = Lane::Kernels;
    size_t instruction = 0;
    QString name;
    double start = 0;    // seconds since the iteration's first instruction began
    double seconds = 0;  // copies: the measured transfer; others: host time
    quint64 bytes = 0;   // copies only
    bool delegate = false;
    program::Device device;  // delegate calls: the device it runs on
    QRectF rect;         // where it is drawn, in canvas() coordinates; may lie outside it
  };
  // The bars of the shown iteration in start order, with their current rects.
  const std::vector<Bar>& bars() const { return bars_; }
  // The lanes drawn, top to bottom, and where each is drawn.
  const std::vector<Lane>& lanes() const { return lanes_; }
  QRectF laneRect(Lane lane) const;
  // Index into bars() of the bar at a canvas position, or -1.
  int barAt(const QPointF& position) const;
  // The legend's entries as drawn under the lanes, left to right ("host →
  // device copy", ..., "delegate call (cuda:1)"); empty with no profile.
  // The canvas (accessible name "Timeline") has them in its accessible
  // description: "Legend: host → device copy, ...".
  QStringList legendTexts() const;
  // How far down the canvas's drawing reaches (the legend's bottom), in
  // canvas pixels; 0 with no profile.
  int contentHeight() const;
  // What the canvas says when it has no bar to draw (and why).
  QString emptyText() const;
  // Without a profile of the method shown: the method the latest one
  // measured, named in the empty canvas.
  void setOtherMethod(const QString& method);
  // The profile ran the program as it was before the edits (its copies and
  // the program's differ): the iteration's line says so.
  // "before the edits" / "before the program changed" (TransfersModel::
  // measuredBeforeWords); empty: the profile is of the program shown.
  void setMeasuredBefore(const QString& when);
  // The line over the lanes ("iteration 1: 8 instructions, ...").
  QString infoText() const;
  // The widget that paints the lanes and takes the mouse (for tests and grabs).
  QWidget* canvas() const;

  // 1 shows the whole iteration; 2 doubles every bar's width.
  double zoom() const { return zoom_; }
  void setZoom(double zoom);
  void zoomIn();
  void zoomOut();
  void zoomToFit();

  // Highlights the bars of an instruction and scrolls the first into view;
  // an instruction with no bar in this iteration clears the highlight.
  void selectInstruction(size_t instruction);
  std::optional<size_t> selectedInstruction() const { return selected_; }
  // Whether part of the instruction's first bar is in the visible part of
  // the time axis.
  bool instructionInView(size_t instruction) const;

  QSize sizeHint() const override { return {900, 250}; }

 signals:
  void instructionClicked(size_t instruction);

 private:
  friend class TimelineCanvas;
  void rebuildIterations();
  void rebuildBars();
  void layoutBars();
  void layoutBarsOnce();
  void updateControls();
  void zoomAround(double zoom, double anchorX);
  void scrollToBar(const Bar& bar);
  // Geometry of the time area, in canvas coordinates.
  double timeLeft() const;
  double timeWidth() const;
  double pixelsPerSecond() const;
  double xOf(double seconds) const;
  double secondsAt(double x) const;
  double maxZoom() const;
  QString barToolTip(const Bar& bar) const;
  void paintCanvas(QPainter& painter);
  void paintAxis(QPainter& painter);
  void paintLegend(QPainter& painter, double legendTop);
  // Between the axis and the legend: where the lanes are drawn (and scroll).
  QRectF laneArea() const;
  // Every lane's height with its gap, scrolled or not.
  double lanesHeight() const;
  // The legend's entries' places (left, top within the legend) in a canvas
  // `width` wide, wrapped into rows; `height` gets the legend's height.
  std::vector<QPointF> legendPlaces(double width, double* height) const;
  double legendHeight(double width) const;
  void scrollToLane(Lane lane);

  std::shared_ptr<const exec::TransferProfile> profile_;
  std::unordered_map<size_t, program::Device> delegateDevices_;  // flat instruction -> target device
  std::vector<size_t> iterations_;
  int iteration_ = -1;
  std::vector<Lane> lanes_;
  std::vector<Bar> bars_;
  double duration_ = 0;  // seconds shown at zoom 1
  double zoom_ = 1;
  std::optional<size_t> selected_;
  int hovered_ = -1;
  bool layingOut_ = false, relayout_ = false;  // layoutBars re-entered by a scroll bar's coming or going

  TimelineCanvas* canvas_ = nullptr;
  TimeBreakdownBar* breakdown_ = nullptr;  // one iteration: kernels, delegates, copies, gaps
  QComboBox* iterationBox_ = nullptr;
  QLabel* info_ = nullptr;
  QLabel* zoomLabel_ = nullptr;
  QToolButton* zoomInButton_ = nullptr;
  QToolButton* zoomOutButton_ = nullptr;
  QToolButton* fitButton_ = nullptr;
  QString otherMethod_;
  QString measuredBefore_;
};

}  // namespace ptescope::ui
