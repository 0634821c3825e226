#include "ui/profile/TransferSummaryView.h"

#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QScrollArea>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include "exec/ProfileAnalysis.h"
#include "ui/common/Format.h"

namespace ptescope::ui {

namespace {

// A label that shows content keeps its text as its accessible name (Qt 6.4
// gives a QLabel no Text interface) and names its role in the description.
QLabel* wrappingLabel(const char* name, const QString& role) {
  auto* label = new QLabel;
  label->setObjectName(name);
  label->setAccessibleDescription(role);
  label->setTextFormat(Qt::PlainText);
  label->setWordWrap(true);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return label;
}

// In the unit that fits, as the Transfers table and the report say times
// ("20.0 ns", "33.3 µs"; "0.02 µs" lost the digits that mattered).
QString durationCell(double seconds) { return qText(program::durationText(seconds)); }

}  // namespace

TransferSummaryView::TransferSummaryView(QWidget* parent) : QWidget(parent) {
  setObjectName("transferSummaryView");
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  toggle_ = new QToolButton;
  toggle_->setObjectName("transferSummaryToggle");
  toggle_->setText(tr("Summary"));
  toggle_->setToolTip(tr("Transfer statistics per direction and size class, the time of an iteration, findings"));
  toggle_->setCheckable(true);
  toggle_->setChecked(false);
  toggle_->setAutoRaise(true);
  toggle_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  toggle_->setArrowType(Qt::RightArrow);
  layout->addWidget(toggle_);

  // The section scrolls on its own: unfolded in a short Details panel it
  // shares the height with the Transfers table instead of squeezing it.
  auto* scroll = new QScrollArea;
  scroll->setObjectName("transferSummaryArea");
  scroll->setAccessibleName(tr("Transfers summary"));
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  // Not a Tab stop of its own (it showed no focus): Tab goes to its table,
  // whose arrows scroll it.
  scroll->setFocusPolicy(Qt::NoFocus);
  // Three lines at least: unfolded in a short Details panel it takes its
  // room from the table, not from the totals above it (with five, the
  // totals were cut in half at 1600x1000: walkthrough 23).
  scroll->setMinimumHeight(fontMetrics().height() * 3);
  auto* content = new QWidget;
  scroll->setWidget(content);
  body_ = scroll;
  auto* bodyLayout = new QVBoxLayout(content);
  bodyLayout->setContentsMargins(6, 0, 6, 0);
  table_ = new QTableWidget(0, 11);
  table_->setObjectName("transferSummary");
  table_->setAccessibleName(tr("Transfer summary"));
  table_->setHorizontalHeaderLabels({tr("Direction / size"), tr("Count"), tr("Bytes"), tr("Total"), tr("Mean"),
                                     tr("Median"), tr("Min"), tr("Max"), tr("Stddev"), tr("GB/s"), tr("Share")});
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  caption_ = wrappingLabel("transferSummaryCaption", tr("Transfer summary caption"));
  breakdown_ = wrappingLabel("transferBreakdown", tr("Time breakdown"));
  findings_ = wrappingLabel("transferFindings", tr("Profile findings"));
  bodyLayout->addWidget(caption_);
  bodyLayout->addWidget(table_);
  bodyLayout->addWidget(breakdown_);
  bodyLayout->addWidget(findings_);
  body_->setVisible(false);
  layout->addWidget(body_);
  connect(toggle_, &QToolButton::toggled, this, [this](bool open) {
    toggle_->setArrowType(open ? Qt::DownArrow : Qt::RightArrow);
    body_->setVisible(open);
    emit unfolded(open);
  });
  setProfile(nullptr);
}

void TransferSummaryView::setProfile(std::shared_ptr<const exec::TransferProfile> profile,
                                     const std::vector<exec::ProfileFinding>* acrossMethods, const QString& otherMethod) {
  table_->setRowCount(0);
  caption_->clear();
  caption_->setVisible(profile != nullptr);
  // Without a profile the section's first line says so: an empty table of
  // statistics stood over it and hid it below the fold (walkthrough 23).
  table_->setVisible(profile != nullptr);
  if (!profile) {
    breakdown_->setText(otherMethod.isEmpty()
                            ? tr("No profile: run one (Profile) or import an ETDump.")
                            : tr("The latest profile measured method '%1', not this one: show '%1' to see it, or profile "
                                 "this method.")
                                  .arg(otherMethod));
    findings_->clear();
    return;
  }
  // The table counts every copy of every measured iteration (the totals
  // under Transfers are per iteration): said above it.
  caption_->setText(tr("Every copy of the %1 measured: counts and totals over all of them, per direction and size.")
                        .arg(countText(qint64(profile->iterations), tr("iteration"))));
  table_->horizontalHeaderItem(9)->setText(profile->emulated ? tr("memcpy GB/s") : tr("GB/s"));
  const auto summary = exec::summarizeTransfers(*profile);
  double total = 0;
  for (const auto& row : summary.rows)
    if (!row.size_class && !row.inside_delegates) total += row.stats.total_seconds;
  table_->setRowCount(int(summary.rows.size()));
  for (int r = 0; r < int(summary.rows.size()); ++r) {
    const auto& row = summary.rows[size_t(r)];
    const auto& t = row.stats;
    const QString label = row.inside_delegates ? qText(program::copyDirectionName(row.direction)) + tr(" (inside delegates)")
                          : row.size_class     ? QStringLiteral("   ") + qText(exec::sizeClassName(*row.size_class))
                                               : qText(program::copyDirectionName(row.direction)) + tr(" (all)");
    const QStringList cells = {label,
                               num(qint64(t.count)),
                               bytesText(qint64(t.bytes)),
                               durationCell(t.total_seconds),
                               durationCell(t.mean_seconds),
                               durationCell(t.median_seconds),
                               durationCell(t.min_seconds),
                               durationCell(t.max_seconds),
                               durationCell(t.stddev_seconds),
                               gbpsText(t.gbps),
                               // Timed apart from the run: no share of its copy time.
                               row.inside_delegates ? QStringLiteral("-")
                                                    : qText(program::percentText(total > 0 ? t.total_seconds / total : 0))};
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (c > 0) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      table_->setItem(r, c, item);
    }
  }
  table_->resizeColumnsToContents();
  // The rows fit without a scroll bar of their own: the page scrolls.
  int height = table_->horizontalHeader()->height() + 2 * table_->frameWidth();
  for (int r = 0; r < table_->rowCount(); ++r) height += table_->rowHeight(r);
  table_->setFixedHeight(height);

  const auto facts = exec::sourceFacts(*profile);
  const auto b = exec::breakDownTime(*profile);
  QString text = tr("Source: %1. ").arg(qText(facts.name));
  if (b.run_seconds > 0 && !b.instructions_timed)
    text += tr("Median iteration %1: no instruction was timed, so it cannot be split.").arg(durationText(b.run_seconds));
  else if (b.run_seconds > 0)
    text += tr("Median iteration %1: kernels %2, delegates %3, copies %4, copy overhead %5, gaps %6.")
                .arg(durationText(b.run_seconds), qText(program::percentText(b.share(b.kernel_seconds))),
                     b.delegates_timed        ? qText(program::percentText(b.share(b.delegate_seconds)))
                     : b.delegates_not_run > 0 ? tr("not run")
                                               : tr("none"),
                     qText(program::percentText(b.share(b.copy_seconds))),
                     qText(program::percentText(b.share(b.copy_overhead_seconds))),
                     qText(program::percentText(b.share(b.gap_seconds))));
  else
    text += tr("No run time recorded.");
  text += QStringLiteral(" ") + (b.overlap_visible && b.overlap_seconds
                                     ? tr("Copy/compute overlap: %1.").arg(durationText(*b.overlap_seconds))
                                     : tr("Copy/compute overlap cannot be seen: %1.").arg(qText(b.overlap_note)));
  breakdown_->setText(text);

  const auto check = exec::checkProfile(*profile);
  auto findingText = [](const exec::ProfileFinding& f) {
    return qText(f.id + " [" + f.slug + "] " + f.location() + ": " + f.message + "\n    evidence: " + f.evidence + "\n    fix: " + f.fix);
  };
  QStringList lines;
  for (const auto& f : check.findings) lines << findingText(f);
  if (lines.isEmpty()) lines << tr("No findings.");
  for (const auto& line : check.not_judged) lines << qText(line);
  if (acrossMethods != nullptr) {
    lines << tr("Across the methods of the trace (one run of the caller executing each):");
    for (const auto& f : *acrossMethods) lines << findingText(f);
    if (acrossMethods->empty()) lines << tr("No findings across methods.");
  }
  findings_->setText(lines.join('\n'));
}

TimeBreakdownBar::TimeBreakdownBar(QWidget* parent) : QWidget(parent) {
  setObjectName("timeBreakdown");
  setAccessibleName(tr("Time breakdown"));
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  setProfile(nullptr);
}

// The bar on one row, its words on the row below at the whole width (beside
// the bar they had half of it and were cut at 1000 px).
QSize TimeBreakdownBar::sizeHint() const { return {200, kBarHeight + fontMetrics().height() + 6}; }

void TimeBreakdownBar::setProfile(const exec::TransferProfile* profile) {
  parts_.clear();
  text_.clear();
  if (profile != nullptr) {
    const auto b = exec::breakDownTime(*profile);
    if (b.run_seconds > 0 && !b.instructions_timed) {
      // A trace with the runs' times and no instruction's: "gaps 100%" said
      // the run did nothing.
      text_ = tr("median iteration %1: no instruction was timed, so it cannot be split").arg(durationText(b.run_seconds));
    } else if (b.run_seconds > 0) {
      parts_ = {{tr("kernels"), b.share(b.kernel_seconds), QColor(0x4c, 0x8b, 0xd6)},
                {tr("delegates"), b.share(b.delegate_seconds), QColor(0x8e, 0x5c, 0xc4)},
                {tr("copies"), b.share(b.copy_seconds), QColor(0xe0, 0x8a, 0x2c)},
                {tr("copy overhead"), b.share(b.copy_overhead_seconds), QColor(0xf0, 0xc0, 0x80)},
                {tr("gaps"), b.share(b.gap_seconds), QColor(0xb0, 0xb0, 0xb0)}};
      QStringList words;
      for (const auto& p : parts_)
        words << (p.name == tr("delegates") && !b.delegates_timed ? QString::fromUtf8(b.untimedDelegatesText())
                                                                    : p.name + " " + qText(program::percentText(p.share)));
      text_ = tr("median iteration %1: %2").arg(durationText(b.run_seconds), words.join(QStringLiteral(" · ")));
      if (!b.overlap_visible) text_ += tr("; overlap cannot be seen");
    }
  }
  setAccessibleDescription(text_);
  setToolTip(text_);
  setVisible(!text_.isEmpty());
  update();
}

void TimeBreakdownBar::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  const QRect area = rect().adjusted(6, 2, -6, -2);
  const QRect bar(area.left(), area.top(), area.width(), kBarHeight);
  double x = bar.left();
  for (const auto& p : parts_) {
    const double w = p.share * bar.width();
    painter.fillRect(QRectF(x, bar.top(), w, bar.height()), p.color);
    x += w;
  }
  painter.setPen(palette().color(QPalette::Mid));
  painter.drawRect(bar.adjusted(0, 0, -1, -1));
  painter.setPen(palette().color(QPalette::WindowText));
  const QRect words(area.left(), bar.bottom() + 2, area.width(), area.bottom() - bar.bottom() - 2);
  painter.drawText(words, Qt::AlignVCenter | Qt::AlignLeft, fontMetrics().elidedText(text_, Qt::ElideRight, words.width()));
}

}  // namespace ptescope::ui
