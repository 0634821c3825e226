#include "ui/panels/OutputsPanel.h"
#include "ui/common/ElidedLabel.h"
#include "ui/common/EmptyNote.h"
#include "ui/common/Format.h"

#include <QResizeEvent>
#include <QShowEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

#include "exec/DeviceRuntime.h"
#include "report/RunText.h"
#include "ui/common/MemoryBudgetSetting.h"
#include "ui/common/ProgressTicker.h"
#include "ui/document/Document.h"

namespace ptescope::ui {

namespace {
using RunOutcome = std::shared_ptr<Result<exec::RunOnceResult>>;
}

OutputsPanel::OutputsPanel(Document* document, QWidget* parent) : QWidget(parent), document_(document) {
  setObjectName("outputsPanel");
  // One line, elided (the whole text in its tooltip): a long summary after a
  // run must not make the Details panel taller.
  header_ = new ElidedLabel(tr("Run the method once to see what it computes (random inputs, seed 0)."));
  header_->setObjectName("outputsHeader");
  header_->setElideMode(Qt::ElideRight);
  // Up to three lines: a refusal's limit and its remedy were cut at 1000 px
  // ("... (planne…").
  header_->setMaximumLines(3);
  runButton_ = new QPushButton(tr("Run Once"));
  runButton_->setObjectName("runOnceButton");
  runButton_->setToolTip(tr("Execute the shown method once and list its outputs (Ctrl+R)"));
  connect(runButton_, &QPushButton::clicked, this, [this] { runOnce(); });
  cancelButton_ = new QPushButton(tr("Cancel"));
  cancelButton_->setObjectName("cancelRunOnce");
  cancelButton_->setAccessibleName(tr("Cancel Run Once"));
  cancelButton_->setToolTip(tr("Stop the run at once: while its inputs are filled, between instructions or inside a long kernel"));
  cancelButton_->hide();
  connect(cancelButton_, &QPushButton::clicked, this, &OutputsPanel::cancel);
  // While a run is under way the header says, twice a second, which
  // instruction it is at and for how long it has run, however long one
  // kernel takes.
  ticker_ = new ProgressTicker(this, [this](qint64 seconds) { showProgress(seconds); });
  auto* top = new QHBoxLayout;
  top->addWidget(header_, 1);
  top->addWidget(runButton_);
  top->addWidget(cancelButton_);

  table_ = new QTableWidget(0, 8);
  table_->setObjectName("outputsTable");
  table_->setHorizontalHeaderLabels(
      {tr("#"), tr("Value"), tr("Type"), tr("Min"), tr("Max"), tr("Mean"), tr("First values"), tr("Bit-exact")});
  table_->horizontalHeaderItem(7)->setToolTip(
      tr("Whether every kernel that produced the output is one ptescope computes bit for bit as the ExecuTorch runtime "
         "does, for these dtypes (checked against the runtime by tests/oracle)"));
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setAlternatingRowColors(true);
  table_->setWordWrap(false);
  // The empty table says why, whole: a failed run's error was otherwise in
  // the header's three lines and a dialog on top.
  attachEmptyNote(table_, "outputsEmpty");

  notExecuted_ = new QLabel;
  notExecuted_->setObjectName("outputsNotExecuted");
  notExecuted_->setWordWrap(true);
  notExecuted_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // In a scroll area a few lines high: a long list must not make the Details
  // panel (and so the window's bottom dock) taller than it was.
  notExecutedArea_ = new QScrollArea;
  notExecutedArea_->setObjectName("outputsNotExecutedArea");
  notExecutedArea_->setWidget(notExecuted_);
  notExecutedArea_->setWidgetResizable(true);
  notExecutedArea_->setFrameShape(QFrame::NoFrame);
  // A fixed height (show() sets it: the list's lines, at most five): shown,
  // it takes its room from the table, whose minimum is small.
  notExecutedArea_->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
  notExecutedArea_->hide();

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(table_, 1);
  layout->addWidget(notExecutedArea_);


  // A new program makes the old outputs stale; so does another method (its
  // outputs were listed under the method shown next, %2, %3, %8 beside one
  // that has %0 and %1).
  const auto stale = [this] {
    if (isRunning()) return;
    clearOutputs();
    header_->setText(tr("Run the method once to see what it computes (random inputs, seed 0)."));
    sayWhyEmpty(tr("Run Once (Ctrl+R) runs the shown method and lists its outputs here"));
  };
  connect(document_, &Document::programChanged, this, stale);
  connect(document_, &Document::currentMethodChanged, this, stale);
  stale();
}

OutputsPanel::~OutputsPanel() = default;

bool OutputsPanel::isRunning() const { return runJob_.running(); }

bool OutputsPanel::runOnce() {
  const auto program = document_->programSnapshot();
  const program::Method* method = document_->currentMethod();
  if (!program || method == nullptr) {
    error_ = tr("no program is open");
    return false;
  }
  if (isRunning()) {
    error_ = tr("a run is under way");
    return false;
  }
  const std::string methodName = method->displayName();
  runningText_ = tr("Running '%1'…").arg(QString::fromStdString(methodName));
  header_->setText(runningText_);
  runButton_->setEnabled(false);
  cancelButton_->show();
  exec::RunOnceOptions options;
  options.method = methodName;
  options.max_memory = memoryBudget();
  options.budget_setting = memoryBudgetSettingName();
  // Shared with the work: it may outlive this panel's interest in it.
  auto progress = std::make_shared<exec::RunProgress>();
  progress_ = progress;
  runJob_.start<RunOutcome>(
      [program, options, progress](const CancelFlag& cancel) mutable -> RunOutcome {
        auto selection = exec::selectRuntime(exec::RuntimePreference::Auto);
        if (!selection) return std::make_shared<Result<exec::RunOnceResult>>(selection.error());
        // Polled while inputs are filled, between instructions and inside
        // long kernels.
        options.cancel_requested = [cancel] { return cancel->load(std::memory_order_relaxed); };
        options.progress = progress.get();
        return std::make_shared<Result<exec::RunOnceResult>>(exec::runMethodOnce(*program, *selection->runtime, options));
      },
      [this](RunOutcome outcome) {
        ticker_->stop();
        progress_.reset();
        runButton_->setEnabled(true);
        cancelButton_->hide();
        if (!outcome->ok()) {
          showError(QString::fromStdString(outcome->error().message));
          return;
        }
        show(outcome->value());
      });
  ticker_->start();
  return true;
}

void OutputsPanel::cancel() {
  if (!isRunning()) return;
  header_->setText(tr("Cancelling…"));
  runJob_.stop();
}

void OutputsPanel::showProgress(qint64 seconds) {
  if (!isRunning() || !progress_ || runJob_.stopping()) return;
  // Before the first instruction the inputs are being filled.
  QString where = instructionProgressText(progress_.get());
  if (where.isEmpty()) where = tr("filling the inputs");
  header_->setText(tr("%1 %2, %3 s so far; Cancel stops it").arg(runningText_, where, num(seconds)));
}

bool OutputsPanel::showsCurrentMethod() const {
  const program::Method* method = document_->currentMethod();
  return result_ && method != nullptr && method->displayName() == result_->method;
}

int32_t OutputsPanel::valueOfRow(int row) const {
  if (!showsCurrentMethod() || row < 0 || size_t(row) >= result_->outputs.size()) return -1;
  return result_->outputs[size_t(row)].value;
}

int OutputsPanel::rowOfValue(int32_t value) const {
  if (!showsCurrentMethod()) return -1;
  for (size_t row = 0; row < result_->outputs.size(); ++row)
    if (result_->outputs[row].value == value) return int(row);
  return -1;
}

void OutputsPanel::clearOutputs() {
  result_.reset();
  table_->setRowCount(0);
  notExecuted_->clear();
  notExecutedArea_->hide();
}

void OutputsPanel::sayWhyEmpty(const QString& why) { setEmptyNote(table_, table_->rowCount() == 0, why); }

void OutputsPanel::showError(const QString& message) {
  // What an earlier run computed is not this run's: a failed run shows none.
  clearOutputs();
  error_ = message;
  // The user's own Cancel is no failure.
  // Said once, whole, in the empty table; the header only that it failed
  // (the same sentence stood in the header, the table and the status bar:
  // walkthrough 22).
  const bool cancelled = message == QLatin1String(exec::kRunCancelled);
  header_->setText(cancelled ? tr("Run cancelled: no outputs") : tr("Run failed: no outputs (why below)"));
  sayWhyEmpty(cancelled ? header_->text() : tr("Run failed: %1").arg(message));
  emit failed(message);
}

namespace {
// The verdict, then every instruction behind the output that is not proven.
QString exactnessToolTip(const exec::OutputExactness& exactness) {
  if (exactness.proven())
    return OutputsPanel::tr("Every kernel behind this output is one ptescope computes bit for bit as the runtime does");
  QStringList lines;
  for (const auto& u : exactness.unproven)
    lines << OutputsPanel::tr("#%1 %2%3: %4")
                 .arg(num(qint64(u.instruction)), QString::fromStdString(u.kernel),
                      u.dtypes.empty() ? QString() : QStringLiteral(" (%1)").arg(QString::fromStdString(u.dtypes)),
                      QString::fromStdString(u.why));
  return OutputsPanel::tr("Not proven bit-exact with the runtime:\n%1").arg(lines.join('\n'));
}
}  // namespace

void OutputsPanel::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  fitColumns();
}

void OutputsPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  fitColumns();
}

void OutputsPanel::fitColumns() {
  if (table_->rowCount() == 0) return;
  table_->resizeColumnsToContents();
  // The verdict is the last column and takes the room left (stretched from
  // its header's width); a long one is elided on one line (its tooltip has
  // it whole), so the first columns keep their room and nothing scrolls.
  // The first values take what the verdict's whole text leaves (at least 40
  // digits' room): they were cut at 40 digits beside a verdict column wider
  // than its text.
  const int digit = table_->fontMetrics().horizontalAdvance(QLatin1Char('0'));
  int others = 0;
  for (int column = 0; column < 6; ++column) others += table_->columnWidth(column);
  const int verdict = table_->columnWidth(7);  // its text's width, as resizeColumnsToContents made it
  const int room = table_->viewport()->width() - others - verdict;
  table_->setColumnWidth(6, std::min(table_->columnWidth(6), std::max(digit * 40, room)));
  table_->setColumnWidth(7, table_->horizontalHeader()->sectionSizeHint(7));
}

void OutputsPanel::show(const exec::RunOnceResult& result) {
  result_ = result;
  // Where it ran, said once ("host (emulated) (no GPU: device memory
  // emulated ...)" said it twice).
  if (result.run() == 0 && result.instructions > 0) {
    // Every step a delegate ptescope does not run: nothing was computed, and
    // "ran once" with outputs of zeros read as a result.
    header_->setText(tr("Method '%1' ran no instruction on %2: all %3 are delegates ptescope does not run (listed "
                        "below); its outputs were not computed")
                         .arg(QString::fromStdString(result.method),
                              result.emulated ? tr("the host") : QString::fromStdString(result.runtime),
                              num(qint64(result.instructions))));
  } else {
    header_->setText(tr("Method '%1' ran once on %2: %3 run, %4 not executed, %5")
                         .arg(QString::fromStdString(result.method),
                              result.emulated ? tr("the host, no GPU (device memory emulated in host memory)")
                                              : QString::fromStdString(result.runtime),
                              countText(qint64(result.run()), tr("instruction")),
                              num(qint64(result.not_executed.size())), countText(qint64(result.outputs.size()), tr("output"))));
  }
  table_->setRowCount(int(result.outputs.size()));
  sayWhyEmpty(tr("Method '%1' has no outputs").arg(QString::fromStdString(result.method)));
  for (size_t row = 0; row < result.outputs.size(); ++row) {
    const auto& out = result.outputs[row];
    // A scalar's type in Type and its value under First values, as the
    // Values panel shows it ("Bool true" was all in Type).
    QStringList cells{QString::number(out.position), valueRef(out.value),
                      QString::fromStdString(report::outputTypeText(out))};
    if (out.tensor && out.readable && out.stats.count > out.stats.nan_count) {
      cells << QString::fromStdString(report::formatNumber(out.stats.min)) << QString::fromStdString(report::formatNumber(out.stats.max))
            << QString::fromStdString(report::formatNumber(out.stats.mean));
    } else {
      cells << QString() << QString() << QString();
    }
    cells << QString::fromStdString(out.tensor ? report::firstValuesText(out) : report::literalText(out));
    cells << QString::fromStdString(exec::exactnessText(out.exactness));
    for (int column = 0; column < cells.size(); ++column) {
      auto* item = new QTableWidgetItem(cells[column]);
      if (column >= 3 && column <= 5) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (column == 6 && out.stats.nan_count) item->setToolTip(countText(qint64(out.stats.nan_count), tr("NaN value")));
      if (column == 7) item->setToolTip(exactnessToolTip(out.exactness));
      table_->setItem(int(row), column, item);
    }
  }
  fitColumns();
  if (result.not_executed.empty()) {
    notExecutedArea_->hide();
  } else {
    QStringList lines;
    for (const auto& step : result.not_executed)
      lines << tr("#%1 %2: %3").arg(num(qint64(step.instruction)), QString::fromStdString(step.label), QString::fromStdString(step.reason));
    notExecuted_->setText(tr("Not executed (their outputs keep earlier contents):\n%1").arg(lines.join("\n")));
    const int shownLines = int(std::min<size_t>(lines.size() + 1, 5));
    notExecutedArea_->setFixedHeight(notExecuted_->fontMetrics().lineSpacing() * shownLines + 8);
    notExecutedArea_->show();
  }
  emit finished();
}

}  // namespace ptescope::ui
