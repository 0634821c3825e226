// The Advisor panel: the edits that cut the current method's predicted copy
// time the most on the link chosen in the link chooser (core/advise), ranked,
// each with what it asks of the calling code.
//
// The search runs off the UI thread (BackgroundJob) whenever the panel is
// shown and its answer is stale (another method, another link, an edit); a
// new edit cancels a search under way and starts it again. Selecting a row
// previews the candidate as the diff view shows an edit (previewReady: the
// program with the candidate applied and its changes against the file);
// Apply makes it one undoable edit of the document.
//
// With a measured profile of the method (setMeasuredProfile: a run of the
// document, an imported ETDump) the rows are ranked by the measured time of
// the copies each candidate removes (advise/MeasuredAdvice.h), the measured
// saving beside the predicted one; a figure with a predicted part (copies
// the profile does not cover) is marked '*'.
#pragma once

#include <QWidget>

#include <memory>
#include <optional>

#include "advise/Advise.h"
#include "advise/MeasuredAdvice.h"
#include "exec/Profiler.h"
#include "layout/DiffMarks.h"
#include "ui/document/BackgroundJob.h"

class QCheckBox;
class QLabel;
class QPushButton;
class QScrollArea;
class QTableWidget;

namespace ptescope::program {
class Program;
}

namespace ptescope::ui {

class Document;
class ElidedLabel;
class LinkSelection;

class AdvisorPanel : public QWidget {
  Q_OBJECT
 public:
  AdvisorPanel(Document* document, LinkSelection* links, QWidget* parent = nullptr);
  ~AdvisorPanel() override;

  // Starts a search for the current method now (even when hidden); false when
  // there is no program.
  bool refresh();
  bool isSearching() const;
  // The last answer for the method it was asked for (nullopt before one).
  const std::optional<advise::MethodAdvice>& advice() const { return advice_; }
  // The ranking by the measured profile, when one of the method is set.
  const std::optional<advise::MeasuredMethodAdvice>& measured() const { return measured_; }
  // A measured profile of the document (nullptr: none); the ranking uses it
  // when it is of the method on screen. Searches again.
  void setMeasuredProfile(std::shared_ptr<const exec::TransferProfile> profile);
  QString lastError() const { return error_; }
  QTableWidget* table() const { return table_; }
  // Applies candidate `row` (0-based) as one undoable edit; false when there
  // is no such row or the advice is stale.
  bool applyRow(int row);
  // A candidate is drawn in the graph as a preview (not applied).
  bool isPreviewing() const { return previewing_ || previewJob_.running(); }
  // The row whose candidate the document's edits already are, or -1.
  int appliedRow() const;
  // Blocks until the search (and any preview) under way has been delivered
  // (tests).
  void waitForIdle();

 signals:
  void searchFinished();
  // The graph should show `program` (the file with the candidate applied),
  // method `method`, marked with `changes`; `note` is the banner's last part.
  void previewReady(std::shared_ptr<const program::Program> program, int method,
                    std::shared_ptr<const layout::MethodChanges> changes, const QString& note);
  // Show the document's own program again.
  void previewEnded();

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  void markStale();
  void showAdvice();
  void showMessage(const QString& text);
  void updateApplied();
  void updateNotes();
  void showHeader();
  // " With your edits: 2 copies, 10.2 µs per call." when the method is edited.
  QString editedText() const;
  void selectionChanged();
  void endPreview();
  // The document's edits with the method's options and target devices
  // replaced by the candidate's.
  std::optional<passes::ProgramEdits> mergedEdits(const advise::Candidate& candidate, QString* error) const;
  // The candidate shown in `row` (rows follow the measured ranking when there is one); nullptr when none.
  const advise::Candidate* candidateAt(int row) const;
  size_t rankShown(int row) const;
  void sayWhyEmpty();

  Document* document_;
  LinkSelection* links_;
  ElidedLabel* header_;
  // While a search runs: Cancel (it stops between pipeline runs), then
  // "Search Again"; hidden otherwise.
  QPushButton* searchButton_;
  class ProgressTicker* searchTicker_;  // "N s so far" in the header while searching
  QString searchText_;
  QPushButton* applyButton_;
  QCheckBox* showRejected_;
  QTableWidget* table_;
  QLabel* notes_;
  class ScrollingNote* notesArea_;
  std::optional<advise::MethodAdvice> advice_;
  std::shared_ptr<const exec::TransferProfile> profile_;
  std::optional<advise::MeasuredMethodAdvice> measured_;
  std::vector<size_t> order_;  // row -> index into advice_->candidates
  std::vector<size_t> rankOfRow_;  // row -> the rank its # column shows (measured when a profile ranked them)
  QString adviceMethod_;  // the method name advice_ is for
  // The file as loaded that advice_ compares with (its identity only): a
  // Save As or a reload makes another one, and the advice stale.
  const void* adviceLoaded_ = nullptr;
  QString error_;
  QString measuredError_;  // why the profile could not rank the candidates
  bool stale_ = true;
  bool previewing_ = false;
  bool applying_ = false;  // Apply's own edit is being pushed
  BackgroundJob previewJob_;
  BackgroundJob searchJob_;  // last members: destroyed (and waited for) first
};

}  // namespace ptescope::ui
