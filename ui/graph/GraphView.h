// The graph of one method: nodes for kernels, delegates, H2D/D2H copies,
// inputs, outputs and constants, coloured by device, inside translucent
// device regions, with the crossings between them drawn bold. Positions and
// edge routes come from core/layout (Graphviz dot), computed off the UI
// thread; the previous picture stays usable until the new one is ready.
//
// Controls: wheel or Ctrl+= / Ctrl+- to zoom, Ctrl+0 to fit, drag to pan,
// click a node or an edge to select it (its producer and consumers light
// up, everything else fades), Escape to clear, double-click a group to open
// it, right-click for open/close group. A legend (top left) names the
// device colours; the overview (bottom right) shows where the view is and
// moves it on click or drag.
//
// Big methods open as repeated layers and long runs collapsed into groups
// (see core/layout/GraphModel.h); selectInstruction() and selectValue()
// open the groups needed to show what they select.
//
// Usage from the main window:
//   auto* graph = new GraphView;
//   graph->setMethod(document->programSnapshot(), methodIndex);
//   connect(graph, &GraphView::instructionSelected, properties, ...);
//   connect(graph, &GraphView::valueSelected, properties, ...);
#pragma once

#include <QString>
#include <QWidget>

#include <functional>

#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "analysis/DelegateTransfers.h"
#include "layout/DiffMarks.h"
#include "layout/GraphModel.h"
#include "layout/GraphvizLayout.h"
#include "program/Program.h"
#include "ui/document/BackgroundJob.h"

class QGraphicsScene;
class QMenu;
class QGraphicsView;
class QLabel;
class QProgressBar;
class QPushButton;
class QTimer;

namespace ptescope::ui {

struct AnalyzedMethod;
class GraphCanvas;
class GraphEdgeItem;
class GraphLegend;
class GraphNodeItem;
class GraphOverview;
struct LayoutResult;
class SceneItems;

class GraphView : public QWidget {
  Q_OBJECT
 public:
  explicit GraphView(QWidget* parent = nullptr);
  ~GraphView() override;

  // ---- what is shown ----

  // Shows method `methodIndex` of `program` (the view keeps the program
  // alive while it needs it). Starts a layout in the background; the
  // current picture stays until the new one is ready. Calling it again
  // while a layout runs cancels that layout. Calling it with an edited
  // program and the same method keeps the zoom and scroll position (the
  // selection and opened groups start afresh: instruction numbers may have
  // moved).
  //
  // With `changes` the view is a diff view: the graph of `program` with the
  // changes against the file as loaded marked on it (copies added, ghosts of
  // removed copies, moved values, retargeted delegates; see
  // layout/DiffMarks.h) and a banner that sums them up.
  // The same arguments again do nothing while their layout runs or shows.
  void setMethod(std::shared_ptr<const program::Program> program, int methodIndex,
                 std::shared_ptr<const layout::MethodChanges> changes = nullptr);
  // The run's settings the file does not hold (CUDA graph replay per
  // method): the copies inside delegates they add are marked on the
  // delegates' boundary edges. A change lays the picture out again in place.
  void setRunSettings(const analysis::DelegateTransferOptions& settings);
  const analysis::DelegateTransferOptions& runSettings() const { return runSettings_; }
  // Shows nothing.
  void clear();
  int methodIndex() const { return methodIndex_; }
  // A layout is running (the progress bar and its Cancel button show).
  bool layoutPending() const;
  // The picture on screen is of the program and method last given (false
  // while its layout runs, or after that layout was cancelled or failed and
  // an earlier picture stayed).
  bool pictureIsCurrent() const;
  // Cancels the running layout, if any; the current picture stays (the
  // Graphviz process is killed at once). With no picture yet, a quick row
  // layout of what was being laid out is shown instead.
  void cancelLayout();
  // Seconds a layout may spend in Graphviz (default 20); the parts not laid
  // out by then are drawn in a quick row layout and a banner says so.
  void setLayoutBudget(double seconds) { layoutBudgetSeconds_ = seconds; }
  // Milliseconds one event-loop turn may spend adding a new picture's items
  // to the scene (default 12): a big picture goes in over several turns, and
  // layoutFinished() comes when all of it is in.
  void setSceneSlice(double milliseconds) { sceneSliceMs_ = milliseconds; }
  // The picture on screen, or null. Valid until the next layoutFinished().
  const layout::GraphLayout* currentLayout() const { return layout_.get(); }

  bool isDiffView() const { return changes_ != nullptr; }
  // The banner's text in a diff view (empty otherwise).
  QString diffSummary() const;
  // A last part of the diff banner (the predicted copy time the edit saves
  // on the chosen link); empty for none.
  void setDiffNote(const QString& note);
  // A line for the banner in any view (the "as loaded" view says that the
  // panels show the program with the edits); empty for none.
  void setViewNote(const QString& note);

  // ---- profile overlay ----
  // Measured copies of the program on screen (instruction indices of that
  // program). With a metric other than Placement, copy nodes (and groups
  // holding copies) and the edges leaving them are coloured from green
  // (cheap) to red (costly) by median copy time or by bandwidth (low GB/s
  // is costly) and labelled with the number; the legend shows the scale.
  struct CopyMeasurement {
    size_t instruction = 0;
    double seconds = 0;  // median per execution
    double gbps = 0;
    uint64_t bytes = 0;
    // The time is not only the copy's (a blocking copy that waited for a
    // delegate's queued GPU work): its badge is marked '*' and it gives no
    // bandwidth.
    bool marked = false;
  };
  enum class OverlayMetric { Placement, Time, Bandwidth };
  // Where the numbers come from; every badge and the legend say so unless
  // they were measured on a GPU (or read from an ETDump): "12 µs emulated"
  // (host memcpy, no GPU link), "12 µs predicted" (a link profile's model).
  enum class MeasurementSource { Measured, Emulated, Predicted };
  // `before`: when the measured program was ("before the edits"), said
  // in the legend; empty: the program shown.
  void setMeasurements(std::vector<CopyMeasurement> copies, MeasurementSource source = MeasurementSource::Measured,
                       const QString& before = {});
  void setOverlayMetric(OverlayMetric metric);
  OverlayMetric overlayMetric() const { return overlayMetric_; }
  bool hasMeasurements() const { return !measurements_.empty(); }

  // ---- groups of big methods ----

  // Opens (closes) a collapsed group, by its index in the method's
  // layout::GroupTree, and lays the view out again.
  void expandGroup(int group);
  void collapseGroup(int group);
  // Opens every group: the whole method, laid out in stripes (slow for tens
  // of thousands of instructions; cancellable).
  void expandAll();
  // The legend strip and the overview can be hidden (View menu).
  void setLegendShown(bool shown);
  void setOverviewShown(bool shown);
  // Closes every group (the program's outline).
  void collapseAll();
  bool hasGroups() const;
  // The groups holding an instruction, innermost first: "layer 7 in layers
  // 0-9"; empty when none (Properties shows it: Find matches their titles).
  QString groupPathText(size_t instruction) const;

  // ---- selection ----
  // Selecting programmatically does not emit the *Selected signals (the
  // caller knows); selecting by mouse or through Find does.

  // Selects and centres the instruction's node, opening the groups that
  // hold it (then the selection happens when that layout is done).
  void selectInstruction(size_t instruction);
  // Selects the value's node (input, output, constant) or the edges that
  // carry it, opening groups when it is only inside one.
  void selectValue(int32_t value);
  void clearSelection();
  std::optional<size_t> selectedInstruction() const;
  std::optional<int32_t> selectedValue() const;
  // The selected node or edge of currentLayout()'s model, if any.
  std::optional<size_t> selectedNode() const { return selectedNode_; }
  std::optional<size_t> selectedEdge() const { return selectedEdge_; }
  // What is selected, in words ("add · #3 aten::add.out"); empty when
  // nothing is. The canvas's accessible description says it ("Selected: …").
  QString selectionText() const;

  // ---- find ----

  // Finds nodes and edges matching `text`: operator names ("add",
  // "aten::mm"), backends ("CudaBackend"), "h2d"/"d2h", tensor names and
  // group titles as case-insensitive substrings; "#12" is instruction 12 and
  // "%12" value 12, exactly, also where a closed group hides them (going
  // there opens the group); words combine ("embedding #2": instruction 2 if
  // it is an embedding). Groups whose hidden instructions match the words
  // count as matches. Matches whose text is the query exactly come first,
  // then those where each word is a whole word, then the rest, each in
  // program order. Goes to the first match (selecting it, as a click
  // does) and returns the number of matches; 0 clears the highlighting and
  // the selection.
  int find(const QString& text);
  // Goes to the next (previous) match, wrapping; false when there is none.
  bool findNext();
  bool findPrevious();
  int findMatchCount() const { return int(matches_.size()); }
  int findCurrentIndex() const { return currentMatch_; }
  // Where closed groups hold matching instructions (each group is one
  // match), how many instructions match in all, shown or hidden; -1 when no
  // matched group hides any (the matches are then the instructions).
  int findInstructionCount() const { return findInstructions_; }

  // ---- view ----

  // The next program set (another file under the same name: a reload from
  // disk) starts from its initial view, as an opened file does, instead of
  // keeping the zoom and scroll position as an edit does.
  void startFromInitialView(bool fresh = true) { freshView_ = fresh; }
  // What the canvas says while no program is shown ("Open a program
  // (Ctrl+O)…"): the empty window is never blank.
  void setEmptyText(const QString& text);
  void fitToWindow();
  void zoomIn();
  void zoomOut();
  // Current scale: 1 means one scene point per pixel.
  double zoomLevel() const;
  // Sets the scale, keeping the point in the middle of the view there.
  void setZoomLevel(double scale);

  // ---- export ----
  // The whole graph with a header (method name and legend). False, with a
  // message in `error`, when there is no picture or the file cannot be
  // written. PNG scale 2 gives 144 dpi; very large graphs are scaled down so
  // the image stays under 16,000 pixels a side.
  bool exportSvg(const QString& path, QString* error = nullptr);
  bool exportPng(const QString& path, QString* error = nullptr, double scale = 2.0);

  // For embedding and tests.
  QGraphicsView* canvas() const;
  QGraphicsScene* scene() const { return scene_; }

  // Lets the owner add actions to the context menu of an instruction's node
  // (the main window adds the target-device choices for delegate calls).
  void setInstructionMenuProvider(std::function<void(QMenu*, size_t instruction)> provider) {
    instructionMenu_ = std::move(provider);
  }

 signals:
  // The user (or Find) selected an instruction's node / a value's node or
  // edge; or cleared the selection.
  void instructionSelected(size_t instruction);
  void valueSelected(int32_t value);
  void selectionCleared();
  // A group's node was selected (after selectionCleared: a group is neither
  // an instruction nor a value); `node` indexes currentLayout()'s nodes.
  void groupSelected(size_t node);
  // A new picture is on screen.
  void layoutFinished();
  // A layout failed (the message says why) or was cancelled; the previous
  // picture stays.
  void layoutFailed(const QString& message);
  void layoutCancelled();
  // The scale changed (zoom, fit, initial view); `scale` 1 is 100%.
  void zoomChanged(double scale);
  // Find moved to match `index` of `count`.
  void findMatchChanged(int index, int count);

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  struct Match {
    enum class Kind { Node, Edge, Instruction, Value };
    Kind kind = Kind::Node;
    // Node or edge index of the layout; for Instruction and Value (what a
    // closed group hides): the instruction or value index.
    size_t index = 0;
    bool edge() const { return kind == Kind::Edge; }
  };

  // ---- layout (GraphView.cpp) ----
  void startLayout(std::optional<std::set<int>> expanded, std::optional<int> focusGroup);
  void finishLayout(const LayoutResult& result);
  void showProgress(double fraction, const QString& phase);
  // Makes the items made on the worker (or, without them, new ones) the
  // picture of layout_; fillScene() then puts them into the scene a slice
  // per event-loop turn and emits `announce` when all are in.
  enum class Announce { Finished, Cancelled };
  void rebuildScene(std::shared_ptr<SceneItems> made, Announce announce);
  void fillScene();
  // A new layout or clear() while the scene fills: the rest goes in at once
  // (the picture stays whole), nothing is announced.
  void flushScene();
  void sceneComplete();
  void showInitialView();
  // The scale at which the graph's text is as large as the UI's.
  double legibleZoom() const;
  void placeOverlays();
  void reserveOverviewRoom();
  void applyOverlay();
  // Moves the overlay's pills and the inside-delegate badges off the nodes'
  // boxes, the edges' labels and each other where another place is free.
  void separateEdgeLabels();
  void separateLabels();
  QString overlayLegendText() const;
  bool methodMakesNoCopies() const;
  QString overlayLegendNote() const;
  // Colours by copy time or bandwidth asked for and no measurement to show.
  bool overlayWithoutMeasurements() const;
  void updateBanner();

  // ---- groups and the context menu (GraphViewGroups.cpp) ----
  void nodeDoubleClicked(size_t node);
  void showContextMenu(const QPoint& viewPos, std::optional<size_t> node);
  void openGroupsFor(size_t instruction);
  std::function<void(QMenu*, size_t)> instructionMenu_;

  // ---- selection (GraphViewSelection.cpp) ----
  void backgroundClicked();
  void selectNode(size_t node, bool emitSignals);
  // The arrow keys: selects the nearest node in that direction (dx, dy in
  // -1..1) from the selected one, or the first node in sight; false when
  // there is none.
  bool stepSelection(int dx, int dy);
  void selectEdge(size_t edge, bool emitSignals);
  void applyEmphasis();
  void announceSelection();
  void centreOnNode(size_t node);
  void centreOnEdge(size_t edge);
  bool trySelectValue(int32_t value, bool emitSignals);
  // While a layout is pending (or there is no picture yet), keeps what to
  // select when its picture is whole and returns true.
  bool deferSelection(std::optional<size_t> instruction, std::optional<int32_t> value);
  // Runs the selection kept by deferSelection().
  void selectPending();
  // ---- find (GraphViewFind.cpp) ----
  void computeMatches();
  void goToMatch(int index);
  std::string valueName(int32_t value) const;
  // The groups a node sits in (open ones, since the node is shown), innermost first.
  std::vector<int> enclosingGroups(const layout::GraphNode& node) const;
  // ---- export (GraphViewExport.cpp) ----
  // The size of the exported picture; none (and `error` set) without one.
  std::optional<QSizeF> exportSize(QString* error) const;
  void paintExport(class QPainter& painter, const QSizeF& size);

  QGraphicsScene* scene_;
  GraphCanvas* canvas_;
  GraphLegend* legend_;
  GraphOverview* overview_;
  QWidget* progressPanel_;
  QProgressBar* progressBar_;
  QLabel* progressLabel_;
  QPushButton* cancelButton_;
  QTimer* progressDelay_;
  QLabel* messageLabel_;
  QLabel* banner_;
  QString diffNote_;
  QString viewNote_;

  std::shared_ptr<const program::Program> program_;
  int methodIndex_ = -1;
  std::shared_ptr<const layout::MethodChanges> changes_;
  std::vector<CopyMeasurement> measurements_;
  MeasurementSource measurementSource_ = MeasurementSource::Measured;
  QString measuredBefore_;  // when the measured program was; empty: this one
  OverlayMetric overlayMetric_ = OverlayMetric::Placement;
  double overlayMin_ = 0, overlayMax_ = 0;
  std::shared_ptr<const AnalyzedMethod> analyzed_;  // of the method on screen or being laid out
  std::shared_ptr<const layout::GraphLayout> layout_;
  std::set<int> shownExpanded_;
  analysis::DelegateTransferOptions runSettings_;
  bool firstLayoutOfMethod_ = true;
  bool freshView_ = false;
  bool initialViewHeld_ = false;  // the first picture, not moved by the user since
  QString emptyText_;
  void showEmptyText();  // startFromInitialView(): the next setMethod is a first layout
  QRectF graphBounds_;
  bool legendShown_ = true;
  bool reservingRoom_ = false;
  bool overviewShown_ = true;
  double lastAnnouncedZoom_ = -1;  // the graph's own extent (the scene has room for the overview besides)

  std::optional<int> focusGroup_;
  double layoutBudgetSeconds_ = 20;

  std::vector<GraphNodeItem*> nodeItems_;
  std::vector<GraphEdgeItem*> edgeItems_;
  std::optional<size_t> selectedNode_;
  std::optional<size_t> selectedEdge_;
  std::optional<size_t> pendingInstruction_;
  std::optional<int32_t> pendingValue_;
  // The pending selection came from Find: announce it as a click would.
  bool pendingAnnounce_ = false;

  QString findText_;
  std::vector<Match> matches_;
  int currentMatch_ = -1;
  int findInstructions_ = -1;

  // The items of the picture not in the scene yet, and what to say when
  // they are.
  std::shared_ptr<SceneItems> filling_;
  Announce announce_ = Announce::Finished;
  double sceneSliceMs_ = 12;
  QTimer* fillTimer_;
  // The layout off the UI thread. Last member: destroyed (cancelled and
  // waited for) first.
  BackgroundJob layoutJob_;
};

}  // namespace ptescope::ui
