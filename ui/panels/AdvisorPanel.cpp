#include "ui/panels/AdvisorPanel.h"
#include "ui/common/EmptyNote.h"

#include "ui/common/ScrollingNote.h"

#include <QSignalBlocker>
#include "report/RunText.h"
#include "ui/common/ElidedLabel.h"
#include "ui/common/Format.h"
#include "ui/common/PlainText.h"
#include "ui/common/ProgressTicker.h"

#include <QCheckBox>
#include <QEvent>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

#include "analysis/Dataflow.h"
#include "cost/CopyCost.h"
#include "passes/Pipeline.h"
#include "report/PassReportChanges.h"
#include "ui/document/Document.h"
#include "ui/profile/LinkSelection.h"

namespace ptescope::ui {

namespace {

struct Search {
  Result<advise::Advice> advice = makeError("not searched");
  std::optional<Result<advise::MeasuredMethodAdvice>> measured;  // with a profile of the method
};
using SearchOutcome = std::shared_ptr<Search>;

struct Preview {
  std::shared_ptr<const program::Program> program;
  std::shared_ptr<const layout::MethodChanges> changes;
  QString error;
};

// "2 h2d, 1 d2h" (d2d only when there is one); "none" for no copy.
QString copiesText(const advise::CopyCounts& c) {
  QStringList parts;
  if (c.h2d) parts << QObject::tr("%1 h2d").arg(c.h2d);
  if (c.d2h) parts << QObject::tr("%1 d2h").arg(c.d2h);
  if (c.d2d) parts << QObject::tr("%1 d2d").arg(c.d2d);
  return parts.isEmpty() ? QObject::tr("none") : parts.join(", ");
}

QString memoryText(const std::vector<advise::DeviceMemory>& memory) {
  QStringList parts;
  for (const auto& m : memory)
    if (!m.device.isCpu()) parts << qText(m.device.str()) + ": " + bytesText(qint64(m.bytes));
  return parts.join(", ");
}

enum Column {
  RankColumn,
  EditsColumn,
  CopiesColumn,
  BytesColumn,
  SavingColumn,
  MeasuredColumn,
  MemoryColumn,
  ContractColumn,
  ColumnCount
};

// What a measured saving rests on, for its cell's tooltip.
QString measuredBasis(const advise::MeasuredCandidate& m) {
  QStringList parts;
  parts << QObject::tr("%1 removed copies at their measured time").arg(m.removed_measured);
  if (m.removed_predicted > 0) parts << QObject::tr("%1 removed copies the profile does not cover, at their predicted time").arg(m.removed_predicted);
  if (m.added > 0) parts << QObject::tr("%1 added copies at their predicted time").arg(m.added);
  if (m.inside_delegates_saving_us != 0)
    parts << QObject::tr("the copies inside delegates at their predicted change (%1)").arg(durationText(m.inside_delegates_saving_us * 1e-6));
  return parts.join("; ");
}

}  // namespace

AdvisorPanel::AdvisorPanel(Document* document, LinkSelection* links, QWidget* parent)
    : QWidget(parent), document_(document), links_(links) {
  setObjectName("advisorPanel");
  header_ = new ElidedLabel(tr("Open a program to see which edits save the most copy time."));
  header_->setObjectName("advisorHeader");
  header_->setAccessibleName(tr("Advisor status"));
  header_->setElideMode(Qt::ElideRight);
  // Two lines at most: its end says what the edits made ("With your edits:
  // 67 copies, ...") and was cut at 1000 px.
  header_->setMaximumLines(2);
  showRejected_ = new QCheckBox(tr("Show &rejected edits"));
  showRejected_->setObjectName("advisorShowRejected");
  showRejected_->setToolTip(tr("List the obvious edits the runtime or upstream's passes would refuse, and why"));
  applyButton_ = new QPushButton(tr("&Apply"));
  applyButton_->setObjectName("advisorApply");
  applyButton_->setToolTip(tr("Apply the selected candidate to the method as one edit (Edit > Undo takes it back)"));
  applyButton_->setEnabled(false);
  searchButton_ = new QPushButton(tr("Cancel"));
  searchButton_->setObjectName("advisorSearch");
  searchButton_->setAccessibleName(tr("Cancel the search for edits"));
  searchButton_->hide();
  searchTicker_ = new ProgressTicker(this, [this](qint64 seconds) {
    if (!isSearching()) {
      searchTicker_->stop();
      return;
    }
    showMessage(tr("%1 %2 s so far; Cancel stops it").arg(searchText_, num(seconds)));
  });
  auto* top = new QHBoxLayout;
  top->addWidget(header_, 1);
  top->addWidget(searchButton_);
  top->addWidget(showRejected_);
  top->addWidget(applyButton_);

  table_ = new QTableWidget(0, ColumnCount);
  table_->setObjectName("advisorTable");
  table_->setAccessibleName(tr("Advisor"));
  table_->setHorizontalHeaderLabels({tr("#"), tr("Edits"), tr("Copies after"), tr("Bytes after"), tr("Saves per call"),
                                     tr("Measured saving"), tr("Device memory"), tr("Asks of the caller")});
  table_->setColumnHidden(MeasuredColumn, true);
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setTabKeyNavigation(false);
  table_->horizontalHeader()->setStretchLastSection(true);
  // The Edits cells wrap (at spaces: between the flags), so that two
  // candidates that differ only in their last flag never look the same; the
  // other cells are short.
  table_->setWordWrap(true);
  table_->setTextElideMode(Qt::ElideMiddle);
  attachEmptyNote(table_, "advisorEmpty");

  notes_ = new QLabel;
  notes_->setObjectName("advisorNotes");
  notes_->setAccessibleName(tr("Advisor notes"));
  notes_->setWordWrap(true);
  notes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // At most three lines (it scrolls): the candidates' table keeps the room.
  notesArea_ = new ScrollingNote(notes_, 3);

  auto* layout = new QVBoxLayout(this);
  // Slim margins: at 1000 x 700 the Details dock is under a third of the
  // height and each row of candidates counts (three whole ones in sight).
  layout->setContentsMargins(4, 4, 4, 2);
  layout->setSpacing(4);
  layout->addLayout(top);
  layout->addWidget(table_, 1);
  layout->addWidget(notesArea_);
  // Tab as the eye reads the panel once a row is chosen: the search, the
  // filter, the candidates, then Apply for the chosen one (it came before
  // the table, reached only with Shift+Tab).
  setTabOrder(searchButton_, showRejected_);
  setTabOrder(showRejected_, table_);
  setTabOrder(table_, applyButton_);

  connect(searchButton_, &QPushButton::clicked, this, [this] {
    if (!isSearching()) {
      refresh();
      return;
    }
    searchJob_.cancel();  // advise() sees it before its next pipeline run
    searchTicker_->stop();
    stale_ = true;
    showMessage(tr("Search cancelled."));
    setEmptyNote(table_, table_->rowCount() == 0, tr("Search cancelled: Search Again lists the edits that save copy time"));
    searchButton_->setText(tr("Search Again"));
    searchButton_->setAccessibleName(tr("Search again for edits"));
  });
  connect(applyButton_, &QPushButton::clicked, this, [this] {
    const auto rows = table_->selectionModel()->selectedRows();
    if (!rows.isEmpty()) applyRow(rows.front().row());
  });
  connect(table_, &QTableWidget::itemSelectionChanged, this, &AdvisorPanel::selectionChanged);
  connect(table_, &QTableWidget::cellActivated, this, [this](int row, int) { applyRow(row); });
  connect(showRejected_, &QCheckBox::toggled, this, [this] {
    // The rejected list is only filled when asked for: search again.
    markStale();
  });
  // Another method or program, or another link: the answer is stale. An edit
  // changes which row is applied, and cancels a search under way (it starts
  // again for the program now edited).
  connect(document_, &Document::programChanged, this, [this] {
    // Another method, or another file as loaded (Save As, a reload): the
    // advice compared with the file before; an edit only moves "applied".
    const void* loaded = document_->hasProgram() ? &document_->loaded() : nullptr;
    if (isSearching() || !advice_ || loaded != adviceLoaded_ ||
        adviceMethod_ != (document_->currentMethod() ? qText(document_->currentMethod()->displayName()) : QString()))
      markStale();
    else
      updateApplied();
  });
  connect(document_, &Document::currentMethodChanged, this, [this] { markStale(); });
  connect(document_, &Document::editsChanged, this, [this] {
    endPreview();
    if (isSearching()) markStale();
    // An edit made elsewhere (Undo of an applied candidate, Pass options):
    // no row stays selected, so no preview comes back over it (after Undo
    // the graph went on drawing the candidate, its banner's "preview" cut).
    if (!applying_) {
      const QSignalBlocker quiet(table_->selectionModel());
      table_->clearSelection();
      applyButton_->setEnabled(false);
      updateNotes();
    }
    updateApplied();
  });
  if (links_ != nullptr) connect(links_, &LinkSelection::changed, this, [this] { markStale(); });
}

AdvisorPanel::~AdvisorPanel() = default;

bool AdvisorPanel::isSearching() const { return searchJob_.running(); }

void AdvisorPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (stale_) refresh();
}

void AdvisorPanel::markStale() {
  const bool wasSearching = isSearching();
  stale_ = true;
  searchJob_.cancel();
  endPreview();
  if (isVisible() || wasSearching) {
    refresh();
  } else if (!document_->hasProgram()) {
    advice_.reset();
    table_->setRowCount(0);
  sayWhyEmpty();
    sayWhyEmpty();
  }
}

bool AdvisorPanel::refresh() {
  endPreview();
  const program::Method* method = document_->hasProgram() ? document_->currentMethod() : nullptr;
  if (method == nullptr) {
    searchJob_.cancel();
    searchButton_->hide();
    advice_.reset();
    table_->setRowCount(0);
  sayWhyEmpty();
    sayWhyEmpty();
    applyButton_->setEnabled(false);
    showMessage(tr("Open a program to see which edits save the most copy time."));
    return false;
  }
  stale_ = false;
  advise::AdviseOptions options;
  options.method = method->displayName();
  if (links_ != nullptr) {
    options.link = *links_->link();
    options.host_memory = links_->hostMemory();
    options.run_settings = links_->runSettings();  // CUDA graph replay, as advise --cuda-graph
  }
  options.top = 20;
  options.explain = showRejected_->isChecked();
  const QString name = qText(options.method);
  const QString linkText = links_ != nullptr ? links_->shortText() : QString();
  searchText_ = tr("Searching the edits of '%1' on %2…").arg(name, linkText);
  header_->setText(searchText_);
  table_->setRowCount(0);
  setEmptyNote(table_, true, tr("Searching for edits that save copy time\u2026"));
  applyButton_->setEnabled(false);
  notesArea_->hide();
  // The advice is of the program as loaded: every candidate is a whole edit
  // of the method against the file, as `ptescope-cli advise` gives it.
  const auto loaded = document_->loadedSnapshot();
  // A measured profile of this method ranks the candidates too.
  auto profile = profile_ != nullptr && profile_->method == options.method ? profile_ : nullptr;
  searchJob_.start<SearchOutcome>(
      [loaded, options, profile](const CancelFlag& cancel) mutable -> SearchOutcome {
        options.cancel = cancel.get();
        auto search = std::make_shared<Search>();
        search->advice = advise::advise(*loaded, options);
        if (search->advice.ok() && profile != nullptr && !search->advice.value().methods.empty())
          search->measured = advise::rankByMeasurement(*loaded, search->advice.value(), *profile, options);
        return search;
      },
      [this, name](SearchOutcome outcome) {
        searchTicker_->stop();
        searchButton_->hide();
        measured_.reset();
        if (!outcome->advice.ok()) {
          advice_.reset();
          error_ = qText(outcome->advice.error().message);
          showMessage(tr("The advisor cannot search '%1': %2").arg(name, error_));
          setEmptyNote(table_, true, tr("The advisor cannot search '%1': %2").arg(name, error_));
        } else if (outcome->advice.value().methods.empty()) {
          advice_.reset();
          error_ = tr("no method '%1'").arg(name);
          showMessage(error_);
          setEmptyNote(table_, true, error_);
        } else {
          error_.clear();
          advice_ = outcome->advice.value().methods.front();
          adviceMethod_ = name;
          adviceLoaded_ = document_->hasProgram() ? &document_->loaded() : nullptr;
          // A profile that cannot rank them (its copies' link curves are
          // missing, ...) leaves the predicted ranking: said in the notes.
          if (outcome->measured && outcome->measured->ok()) measured_ = outcome->measured->value();
          measuredError_ = outcome->measured && !outcome->measured->ok() ? qText(outcome->measured->error().message) : QString();
          showAdvice();
        }
        emit searchFinished();
      });
  searchButton_->setText(tr("Cancel"));
  searchButton_->setAccessibleName(tr("Cancel the search for edits"));
  searchButton_->show();
  searchTicker_->start();
  return true;
}

void AdvisorPanel::showMessage(const QString& text) {
  header_->setText(text);
  header_->setToolTip(plainToolTip(text));
}

void AdvisorPanel::showHeader() {
  const auto& a = *advice_;
  const QString name = qText(a.name);
  const QString linkText = links_ != nullptr ? links_->shortText() : QString();
  if (a.file_is_best() && a.device_delegates == 0 && a.copies_now.total() == 0) {
    // As the CLI says it: nothing was weighed, there is nothing to weigh.
    showMessage(tr("'%1': no delegate targets a device and nothing is copied: nothing to advise.").arg(name) +
                editedText());
  } else if (a.file_is_best()) {
    showMessage(tr("'%1': no valid edit saves copy time on %2; the file's options are already the best (%3, %4 per call).")
                    .arg(name, linkText, countText(qint64(a.copies_now.total()), tr("copy"), tr("copies")),
                         durationText(a.copies_now.seconds))
                + editedText());
  } else {
    // Counted as listed: valid_with_saving also counts the edits that only
    // add edits to a listed one without saving more ("best 1 of the 4" over
    // one row, the other 3 nowhere to see).
    // Short enough to be whole in the line beside the buttons at 1000 px.
    // With a measured profile the ranking's basis is said in a few words
    // (its source and iterations are in the notes): " Ranked by the
    // measured profile (...)." made the line end "...that save ti…".
    const size_t listed = a.candidates.size(), distinct = std::max(a.distinct_with_saving, listed);
    QString counts;
    if (listed < distinct)
      counts = (measured_ ? tr("best %1 of %2 valid edits by measured time.")
                          : tr("best %1 of the %2 valid edits that save time."))
                   .arg(num(qint64(listed)), num(qint64(distinct)));
    else
      counts = measured_ ? tr("%1 by measured time.").arg(countText(qint64(listed), tr("valid edit")))
                         : (listed == 1 ? tr("1 valid edit saves time.")
                                        : tr("%1 valid edits save time.").arg(num(qint64(listed))));
    showMessage(tr("'%1' as loaded: %2, %3 per call on %4; %5")
                    .arg(name, countText(qint64(a.copies_now.total()), tr("copy"), tr("copies")),
                         durationText(a.copies_now.seconds), linkText, counts)
                + editedText());
  }
}

void AdvisorPanel::showAdvice() {
  const auto& a = *advice_;
  showHeader();
  // Rows in the measured order when a profile ranked them, else the predicted one.
  order_.clear();
  rankOfRow_.clear();
  std::vector<const advise::MeasuredCandidate*> measuredOfRow;
  if (measured_) {
    for (const auto& m : measured_->candidates)
      for (size_t i = 0; i < a.candidates.size(); ++i)
        if (a.candidates[i].rank == m.predicted_rank) {
          order_.push_back(i);
          measuredOfRow.push_back(&m);
        }
  } else {
    for (size_t i = 0; i < a.candidates.size(); ++i) order_.push_back(i);
  }
  // Shown when a row has a measured saving: a profile that ranks none of
  // these rows left an empty column (walkthrough 23).
  table_->setColumnHidden(MeasuredColumn, !measured_ || measured_->candidates.empty());
  table_->horizontalHeaderItem(SavingColumn)->setText(measured_ ? tr("Predicted saving") : tr("Saves per call"));
  // An emulated profile's times are host memcpy: the column says so, as the
  // graph's badges and Transfers do (its note scrolled out of sight).
  table_->horizontalHeaderItem(MeasuredColumn)
      ->setText(measured_ && measured_->emulated ? tr("Measured saving (emulated)") : tr("Measured saving"));
  table_->setRowCount(int(order_.size()));
  // The program as a command line names it (the file's own name).
  const std::string commandInput = document_->isDemo() || document_->path().isEmpty()
                                       ? std::string("program.pte")
                                       : QFileInfo(document_->path()).fileName().toStdString();
  for (size_t row = 0; row < order_.size(); ++row) {
    const auto& c = a.candidates[order_[row]];
    const advise::MeasuredCandidate* m = measured_ ? measuredOfRow[row] : nullptr;
    const QString contract = qText([&] {
      std::string all;
      for (const auto& line : c.caller_contract) all += (all.empty() ? "" : "; ") + line;
      return all;
    }());
    rankOfRow_.push_back(m != nullptr ? m->rank : c.rank);
    const QStringList cells{num(qint64(rankOfRow_.back())),
                            // As propagate takes them, quoted; the tool tip
                            // is the whole command, naming the method.
                            qText(advise::editsText(c.edits)),
                            copiesText(c.copies_before) + QStringLiteral(" → ") + copiesText(c.copies_after),
                            bytesText(qint64(c.copies_after.bytes)),
                            durationText(c.predicted_saving_us * 1e-6),
                            m != nullptr ? durationText(m->measured_saving_us * 1e-6) + (m->fully_measured() ? "" : "*") : QString(),
                            memoryText(c.device_memory),
                            contract};
    for (int column = 0; column < ColumnCount; ++column) {
      auto* item = new QTableWidgetItem(cells[column]);
      item->setToolTip(plainToolTip(cells[column]));
      if (column == MeasuredColumn && m != nullptr)
        item->setToolTip(plainToolTip(
            (m->fully_measured() ? tr("Measured: %1") : tr("* Partly predicted: %1")).arg(measuredBasis(*m))));
      if (column == EditsColumn)
        item->setToolTip(plainToolTip(tr("%1\n\nThe same edits from the command line:\n%2")
                                          .arg(cells[column],
                                               qText(advise::propagateCommand(commandInput, "edited.pte", c.edits)))));
      if (column == RankColumn && m != nullptr)
        item->setToolTip(plainToolTip(tr("Rank %1 by the measured profile, %2 by the prediction").arg(m->rank).arg(c.rank)));
      // Every cell from its row's top: a row taller than the table's view
      // (the caller's duties wrapped in a narrow column) showed its short
      // cells centred below the fold and looked blank at 1000x700.
      if (column == RankColumn || column == BytesColumn || column == SavingColumn || column == MeasuredColumn)
        item->setTextAlignment(Qt::AlignRight | Qt::AlignTop);
      else
        item->setTextAlignment(Qt::AlignLeft | Qt::AlignTop);
      table_->setItem(int(row), column, item);
    }
  }
  // Asked for, the rejected edits follow in grey, each with why (they were
  // only in the notes under an empty table, walkthrough 21); they are no
  // candidates: selecting one previews nothing and Apply stays off.
  if (showRejected_->isChecked()) {
    const int first = table_->rowCount();
    table_->setRowCount(first + int(a.rejected.size()));
    const QColor grey = palette().color(QPalette::PlaceholderText);
    for (size_t i = 0; i < a.rejected.size(); ++i) {
      const auto& r = a.rejected[i];
      const QStringList cells{tr("rejected"), qText(r.edits_text), QString(), QString(), QString(), QString(), QString(),
                              qText(r.reason)};
      for (int column = 0; column < ColumnCount; ++column) {
        auto* item = new QTableWidgetItem(cells[column]);
        item->setForeground(grey);
        item->setToolTip(plainToolTip(tr("Rejected: %1\n\n%2").arg(cells[EditsColumn], cells[ContractColumn])));
        item->setTextAlignment(Qt::AlignLeft | Qt::AlignTop);
        table_->setItem(first + int(i), column, item);
      }
    }
  }
  table_->horizontalHeaderItem(ContractColumn)
      ->setText(showRejected_->isChecked() && !a.rejected.empty() ? tr("Asks of the caller / why rejected")
                                                                  : tr("Asks of the caller"));
  sayWhyEmpty();
  table_->resizeColumnsToContents();
  // Edits: as wide as they need, up to three fifths of the table (then they
  // wrap; at 1000 px a candidate of three flags and a --set-device is one
  // line, so more than two candidates are in sight, and the savings still
  // are, issue 34 item 17); Device memory at most 200 px (it wraps), so that
  // the caller's duties, the last column, are not squeezed into a tall row.
  const int editsRoom = std::max(260, table_->viewport()->width() * 3 / 5);
  table_->setColumnWidth(EditsColumn, std::min(table_->columnWidth(EditsColumn), editsRoom));
  table_->setColumnWidth(MemoryColumn, std::min(table_->columnWidth(MemoryColumn), 200));
  table_->resizeRowsToContents();

  updateApplied();
}

void AdvisorPanel::updateNotes() {
  QStringList notes;
  if (advice_) {
    const auto& a = *advice_;
    // The selected candidate's duties whole (its table cell is cut to the
    // column), then how the search went and, when asked, what was rejected.
    const auto rows = table_->selectionModel()->selectedRows();
    if (const auto* selected = rows.isEmpty() ? nullptr : candidateAt(rows.front().row())) {
      const auto& c = *selected;
      notes << tr("Candidate %1 asks of the caller:").arg(num(qint64(rankShown(rows.front().row()))));
      for (const auto& line : c.caller_contract) notes << QStringLiteral("  • ") + qText(line);
      if (c.caller_contract.empty()) notes << tr("  • nothing");
    } else if (!rows.isEmpty() && rows.front().row() >= int(order_.size()) &&
               size_t(rows.front().row()) - order_.size() < a.rejected.size()) {
      // A rejected edit's reason whole (its cell is cut to the row's height
      // in a small panel: walkthrough 22).
      const auto& r = a.rejected[size_t(rows.front().row()) - order_.size()];
      notes << tr("Rejected %1:").arg(qText(r.edits_text)) << QStringLiteral("  • ") + qText(r.reason);
    }
    if (!a.search_note.empty()) notes << qText(a.search_note);
    if (measured_) {
      if (measured_->emulated)
        notes << tr("The profile is emulated: its copy times are host memcpy, not a link's; profile on the GPU or import "
                    "an ETDump to rank by real copies.");
      notes << tr("Ranked by the measured time of the copies each candidate removes, from the profile %1 over %2 "
                  "(%3 of the profile's %4 copies found in the program); * marks a saving with a predicted part: copies "
                  "the profile does not cover, copies the edits add, copies inside delegates%5.")
                   .arg(qText(measured_->profile_source),
                        countText(qint64(measured_->iterations), QStringLiteral("iteration")))
                   .arg(measured_->matched_copies)
                   .arg(measured_->profile_copies)
                   .arg(measured_->predicted_scale != 1.0
                            ? tr(", on the profile's scale (predicted times × %1, the median measured / predicted time "
                                 "of the copies it matched)")
                                  .arg(QString::number(measured_->predicted_scale, 'g', 3))
                            : QString());
    } else if (!measuredError_.isEmpty()) {
      notes << tr("The profile cannot rank the candidates (%1): ranked by the prediction.").arg(measuredError_);
    }
    if (showRejected_->isChecked())
      notes << (a.rejected.empty() ? tr("No obvious edit was rejected.")
                                   : tr("Rejected (in grey at the end of the table, with why): %1.")
                                         .arg(countText(qint64(a.rejected.size()), tr("edit"))));
  }
  notes_->setText(notes.join("\n"));
  notesArea_->setVisible(!notes.isEmpty());
  // As high as its lines, three at most (it scrolls): one line of notes
  // leaves the rest to the candidates (at 1000 x 700 three lines' room
  // under one line cost the table its third row, issue 34 item 17).
  notesArea_->fit();
}

QString AdvisorPanel::editedText() const {
  // The candidates and their savings are against the file as loaded; when
  // the method is edited, say where the edits stand on the same link.
  const auto* report = document_->report();
  if (!advice_ || report == nullptr || links_ == nullptr) return {};
  for (const auto& m : report->methods) {
    if (m.name != advice_->name || !m.changed()) continue;
    // Priced as the candidates are, copies inside delegates included; none
    // said in words ("0 copies, 0 per call" gave a time without a unit).
    const auto p = links_->predictEdit(document_->loadedSnapshot(), document_->programSnapshot(), m.name);
    if (!p) return {};
    const auto& after = p->after;
    if (after.copyCount() == 0) return tr(" With your edits: no copies.");
    const QString inside = after.inside_delegates.copies == 0
                               ? QString()
                               : tr(" (%1 inside delegates)").arg(after.inside_delegates.copies);
    return tr(" With your edits: %1%2, %3 per call.")
        .arg(countText(qint64(after.copyCount()), tr("copy"), tr("copies")), inside, durationText(after.copySeconds()));
  }
  return {};
}

std::optional<passes::ProgramEdits> AdvisorPanel::mergedEdits(const advise::Candidate& candidate, QString* error) const {
  auto edits = advise::programEdits(document_->loadedProgram(), candidate.edits);
  if (!edits) {
    if (error != nullptr) *error = qText(edits.error().message);
    return std::nullopt;
  }
  passes::ProgramEdits merged = document_->edits();
  const std::string& method = candidate.edits.method;
  merged.options.erase(method);
  for (auto it = merged.target_devices.begin(); it != merged.target_devices.end();)
    it = it->first.first == method ? merged.target_devices.erase(it) : std::next(it);
  for (const auto& [name, options] : edits->options)
    if (name == method) merged.options[name] = options;
  for (const auto& [key, device] : edits->target_devices)
    if (key.first == method) merged.target_devices[key] = device;
  return merged;
}

// The number the user reads in the row's # column: the banner, the notes,
// Undo and errors name a candidate by it (they named the predicted rank
// while the table showed the measured one).
void AdvisorPanel::sayWhyEmpty() {
  // An empty table says why, in its middle (the header line says it too).
  QString why;
  if (isSearching()) why = tr("Searching for edits that save copy time\u2026");
  else if (!document_->hasProgram()) why = tr("No program is open");
  else if (stale_ || !advice_) why = tr("Search (the button above) lists the edits that save copy time");
  else why = tr("No valid edit saves copy time in this method");
  setEmptyNote(table_, table_->rowCount() == 0, why);
}

size_t AdvisorPanel::rankShown(int row) const {
  return row >= 0 && size_t(row) < rankOfRow_.size() ? rankOfRow_[size_t(row)] : 0;
}

const advise::Candidate* AdvisorPanel::candidateAt(int row) const {
  if (!advice_ || row < 0 || size_t(row) >= order_.size() || order_[size_t(row)] >= advice_->candidates.size()) return nullptr;
  return &advice_->candidates[order_[size_t(row)]];
}

void AdvisorPanel::setMeasuredProfile(std::shared_ptr<const exec::TransferProfile> profile) {
  if (profile == profile_) return;
  profile_ = std::move(profile);
  markStale();
}

int AdvisorPanel::appliedRow() const {
  if (!advice_ || !document_->hasProgram()) return -1;
  for (int row = 0; row < int(order_.size()); ++row) {
    auto merged = mergedEdits(*candidateAt(row), nullptr);
    if (merged && *merged == document_->edits()) return row;
  }
  return -1;
}

void AdvisorPanel::updateApplied() {
  if (advice_ && !isSearching()) showHeader();
  const int applied = appliedRow();
  for (int row = 0; row < table_->rowCount(); ++row) {
    auto* rank = table_->item(row, RankColumn);
    if (rank == nullptr) continue;
    const QString text = rank->text().section(' ', 0, 0);
    rank->setText(row == applied ? tr("%1 (applied)").arg(text) : text);
  }
  if (table_->rowCount() > 0) table_->resizeColumnToContents(RankColumn);
  selectionChanged();
}

bool AdvisorPanel::applyRow(int row) {
  const advise::Candidate* chosen = stale_ ? nullptr : candidateAt(row);
  if (chosen == nullptr) return false;
  const auto& candidate = *chosen;
  auto merged = mergedEdits(candidate, &error_);
  if (!merged) {
    showMessage(tr("Cannot apply candidate %1: %2").arg(num(qint64(rankShown(row))), error_));
    return false;
  }
  endPreview();
  applying_ = true;
  document_->pushEdits(*merged, tr("apply advisor candidate %1 to '%2' (%3)")
                                    .arg(num(qint64(rankShown(row))), qText(candidate.edits.method),
                                         qText(advise::editsText(candidate.edits))));
  applying_ = false;
  return true;
}

void AdvisorPanel::selectionChanged() {
  const auto rows = table_->selectionModel()->selectedRows();
  const int row = rows.isEmpty() ? -1 : rows.front().row();
  const bool valid = !stale_ && candidateAt(row) != nullptr;
  const bool applied = valid && row == appliedRow();
  applyButton_->setEnabled(valid && !applied);
  updateNotes();
  if (!valid || applied) {
    endPreview();
    return;
  }
  const auto& candidate = *candidateAt(row);
  QString error;
  auto merged = mergedEdits(candidate, &error);
  if (!merged) return;
  const int method = document_->currentMethodIndex();
  const auto loaded = document_->loadedSnapshot();
  const QString note = tr("preview of advisor candidate %1 (not applied: Apply keeps it), saves %2 per call")
                           .arg(num(qint64(rankShown(row))), durationText(candidate.predicted_saving_us * 1e-6));
  previewJob_.start<std::shared_ptr<Preview>>(
      [loaded, edits = *merged, method](const CancelFlag&) {
        auto preview = std::make_shared<Preview>();
        auto result = passes::runEdits(*loaded, edits);
        if (!result) {
          preview->error = qText(result.error().message);
          return preview;
        }
        auto program = std::make_shared<const program::Program>(std::move(result->program));
        auto changes = std::make_shared<layout::MethodChanges>();
        if (method >= 0 && size_t(method) < result->report.methods.size() && size_t(method) < program->methods().size()) {
          const auto& shown = program->methods()[size_t(method)];
          const auto flow = analysis::Dataflow::build(shown);
          *changes = report::methodChanges(result->report.methods[size_t(method)], loaded->methods()[size_t(method)], shown, flow);
        }
        preview->program = std::move(program);
        preview->changes = std::move(changes);
        return preview;
      },
      [this, method, note](std::shared_ptr<Preview> preview) {
        if (!preview->program) {
          showMessage(tr("Cannot preview: %1").arg(preview->error));
          return;
        }
        previewing_ = true;
        emit previewReady(preview->program, method, preview->changes, note);
      });
}

void AdvisorPanel::endPreview() {
  previewJob_.cancel();
  if (!previewing_) return;
  previewing_ = false;
  emit previewEnded();
}

void AdvisorPanel::waitForIdle() {
  searchJob_.waitForIdle();
  previewJob_.waitForIdle();
}

}  // namespace ptescope::ui
