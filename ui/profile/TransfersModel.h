// Every host<->device copy of the current method: instruction, direction,
// where it is made, source -> destination value, bytes, devices, dtype and
// shape, its predicted time on the chosen link profile (setLink,
// cost/LinkProfile.h); and, once a profile of this method is set, what each
// copy measured and the ratio measured / predicted (same copy, same link).
//
// The copies are the et_copy instructions and the copies delegates make
// inside themselves (analysis::DelegateTransfers: TensorRT staging and
// aliased-output reflects, CudaBackend's CUDA graph replay under the run
// settings, setRunSettings). A copy inside a delegate is a row of its own
// whose Where reads "inside delegate 0 (TensorRTBackend)" and whose
// instruction is the delegate call's (selecting it selects the delegate); its
// measured figures are the profile's DelegateCopyTiming (timed after the
// run), paired by exec::InsideCopyKey; the totals count it apart, as the
// profile's totals do ("h2d inside delegates 1 copy · 64 B").
//
// Usage:
//   TransfersModel model(&document);
//   model.setLink(link, exec::HostMemoryKind::Pageable);     // the Predicted column
//   model.setProfiles(latest, previous, "run 2", "run 1");  // from a ProfileSession
//   proxy->setSortRole(SortRole);   // measured columns sort as numbers
//   label->setText(model.totalsText());
//
// Rows are the copies of the document's current method. A profile (and the
// comparison with a previous one) adds columns only while it was made on a
// method of the same name: switching to another method hides them, switching
// back shows them again. Copies are matched to a profile's copies by what
// they move, not by instruction index, because every edit renumbers the
// instructions: (direction, source value, device side, occurrence among the
// copies with the same three). A copy the previous profile measured that the
// current program no longer makes (a skip option removed it) stays visible as
// a greyed "removed" row with its old numbers and Δ = −previous.
//
// The model keeps its profiles when the document loads another file (a
// reload of a re-exported file is a reason to compare): whoever owns the
// profiles clears them when they stop describing the document.
#pragma once

#include <QAbstractTableModel>

#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "cost/LinkProfile.h"
#include "exec/Profiler.h"

namespace ptescope::ui {

class Document;

class TransfersModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    Instruction, Direction, Where, Source, Destination, Bytes, From, To, TensorShape,
    // On the chosen link profile (setLink), always shown.
    PredictedTime,
    // With a profile of this method.
    MedianTime, MinTime, MaxTime, Bandwidth, PeakShare, HostMemory, MeasuredOverPredicted,
    // With a previous profile too.
    PreviousMedian, DeltaTime, DeltaPercent, PreviousBandwidth,
    ColumnCount
  };
  static constexpr int kPlainColumns = MedianTime;
  static constexpr int kMeasuredColumns = PreviousMedian;

  explicit TransfersModel(Document* document, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  // kPlainColumns, kMeasuredColumns or ColumnCount, as the profiles allow.
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  // `previous` may be null (no comparison). Labels name the runs in tooltips
  // and in totalsText ("run 3, 20 iterations").
  void setProfiles(std::shared_ptr<const exec::TransferProfile> latest,
                   std::shared_ptr<const exec::TransferProfile> previous, QString latestLabel = {},
                   QString previousLabel = {});
  void clearProfiles();
  // The link the Predicted column prices copies on, with the host memory
  // kind of the arenas (ExecuTorch's Module: pageable). Null: no predictions.
  void setLink(std::shared_ptr<const cost::LinkProfile> link, exec::HostMemoryKind hostMemory);
  const std::shared_ptr<const cost::LinkProfile>& link() const { return link_; }
  // Settings of the run the file does not hold (CUDA graph replay per
  // method): which copies inside delegates the rows list.
  void setRunSettings(const analysis::DelegateTransferOptions& settings);
  exec::HostMemoryKind linkHostMemory() const { return linkMemory_; }
  const std::shared_ptr<const exec::TransferProfile>& latestProfile() const { return latest_; }
  const std::shared_ptr<const exec::TransferProfile>& previousProfile() const { return previous_; }
  // Whether the measured / comparison columns are shown for the current method.
  bool hasMeasurements() const { return latestApplies_; }
  bool hasComparison() const { return latestApplies_ && previousApplies_; }
  // Whether some row has a number in `column` (else it is "—" on every row).
  bool columnHasNumbers(int column) const;

  struct Row {
    size_t instruction = 0;  // in the current program; for removed rows, in the profile that had it
    program::CopyDirection direction = program::CopyDirection::HostToDevice;
    int32_t source = -1;
    int32_t destination = -1;
    qint64 bytes = 0;
    QString from, to, tensor;
    bool removed = false;  // measured before, not in the current program
    // A copy an edit moved to another device, paired with its measurement
    // on the device it went to then (that device; empty otherwise).
    QString measuredDevice;
    // A copy the delegate called at `instruction` makes inside itself (no
    // instruction of its own); source and destination are then the boundary
    // value on its side of the delegate, -1 on the delegate's.
    std::optional<analysis::DelegateTransfer> inside;
    // The matching copies of the profiles, or null. They point into the
    // profiles this model holds (for copies inside delegates, into the
    // model's CopyProfile view of the profiles' DelegateCopyTiming), so they
    // live as long as the rows do.
    const exec::CopyProfile* latest = nullptr;
    const exec::CopyProfile* previous = nullptr;
    double predicted = -1;  // seconds on the link; -1 without one
  };
  const std::vector<Row>& rows() const { return rows_; }
  // Total bytes per direction of the current program's et_copy instructions
  // (`inside` false) or of its copies inside delegates (`inside` true).
  qint64 totalBytes(program::CopyDirection direction, bool inside = false) const;

  // The row of a copy instruction of the current method (for a delegate
  // call, its first copy inside), or -1.
  int rowOfInstruction(size_t instruction) const;
  // The instruction of a row; nullopt for removed rows and bad rows.
  std::optional<size_t> instructionOfRow(int row) const;

  struct DirectionSummary {
    size_t copies = 0;
    qint64 bytes = 0;            // per iteration
    double seconds = 0;          // median over iterations of the time spent copying
    double previousSeconds = 0;
    bool hasPrevious = false;
    double gbps = 0;
    double predictedSeconds = -1;  // the current program's copies on the link; -1 without one
    // A time in `seconds` is not only copying (CopyProfile::time_covers):
    // marked '*', and no GB/s follows.
    bool marked = false;
  };
  // From the latest profile's totals when it applies, else copies and bytes
  // of the current program with no times.
  DirectionSummary summary(program::CopyDirection direction) const;
  // The copies inside delegates of one direction (d2d too), as the profile's
  // totals count them: copies, bytes and the sum of their medians from the
  // latest profile when it timed them, else the program's with no times.
  DirectionSummary insideSummary(program::CopyDirection direction) const;
  // "h2d 2 copies · 1.5 MiB · 0.21 ms (−0.05 ms vs previous) · 7.1 GB/s | d2h …".
  // With a link, "  ·  predicted on PCIe Gen4 x16 (pageable): h2d 10.2 µs, d2h 10.2 µs" ends it.
  // After an edit the program's own copies come first and the profile's
  // totals follow as "measured before the edits (the program then): ...".
  QString totalsText() const;
  // Who measured the latest profile when it is not ptescope ("the runtime
  // (ETDump, host clock)", "executor_runner (host clock)"): said with its
  // medians in totalsText, not after the predictions.
  void setMeasuredBy(const QString& who) { measuredBy_ = who; }
  // The latest profile applies to the method but ran another program (the
  // one before the edits): its copies and the program's differ.
  bool latestMeasuredAnotherProgram() const;
  // When the latest profile's program was: "before the edits" while the
  // document has unsaved edits and the profile ran the file's program, "with
  // other edits" / "with edits since undone" when it ran edits that are no
  // longer these, else "before the program changed" (a reload from disk);
  // empty when it is this one.
  QString measuredBeforeWords() const;
  // Whether the latest profile ran a program with unsaved edits
  // (ProfileRequest::edited); set before setProfiles.
  void setLatestOfEdits(bool edited) { latestOfEdits_ = edited; }

 private:
  bool latestOfEdits_ = false;
  void rebuild();
  void matchProfiles();
  void predict();
  void matchInside(const std::vector<size_t>& insideRows);
  QVariant displayValue(const Row& row, int column) const;
  QVariant sortValue(const Row& row, int column) const;
  QString toolTip(const Row& row, int column) const;

  Document* document_;
  std::vector<Row> rows_;
  std::unordered_map<size_t, int> rowOfInstruction_;
  std::shared_ptr<const exec::TransferProfile> latest_, previous_;
  QString latestLabel_, previousLabel_;
  std::shared_ptr<const cost::LinkProfile> link_;
  exec::HostMemoryKind linkMemory_ = exec::HostMemoryKind::Pageable;
  analysis::DelegateTransferOptions runSettings_;
  // The profiles' copies inside delegates as CopyProfiles (what the rows'
  // latest / previous point to), in the profiles' order.
  std::vector<exec::CopyProfile> insideLatest_, insidePrevious_;
  bool latestApplies_ = false;
  bool previousApplies_ = false;
  QString measuredBy_;
};

}  // namespace ptescope::ui
