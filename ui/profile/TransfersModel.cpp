#include "ui/profile/TransfersModel.h"
#include "ui/common/PlainText.h"

#include <QColor>
#include <QFont>
#include <QGuiApplication>
#include <QPalette>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "program/Program.h"
#include "ui/document/Document.h"
#include "cost/CopyCost.h"
#include "layout/DeviceStyle.h"
#include "cost/LinkProfile.h"
#include "exec/CopyIdentity.h"
#include "exec/ProfileAnalysis.h"
#include "passes/DevicePasses.h"
#include "ui/common/Format.h"
#include "ui/common/ItemRoles.h"

namespace ptescope::ui {
using namespace ptescope::program;

namespace {

// Unmeasured cells sort below every number, so a descending sort by time
// lists the expensive copies first and the "—" rows last.
constexpr double kNoNumber = std::numeric_limits<double>::lowest();

using exec::CopyKey;
using exec::SourceNumbering;

bool isMeasuredColumn(int column) {
  return column >= TransfersModel::MedianTime && column < TransfersModel::ColumnCount;
}

QString iterationsText(const exec::TransferProfile& profile) {
  return profile.iterations == 1 ? QObject::tr("1 iteration") : QObject::tr("%1 iterations").arg(profile.iterations);
}

// "1.25×", "12×", "0.0048×": two significant digits below 1.
QString ratioText(double ratio) {
  if (ratio >= 10) return QString::number(ratio, 'f', 0) + "×";
  if (ratio >= 1) return QString::number(ratio, 'f', 2) + "×";
  return QString::number(ratio, 'g', 2) + "×";
}

// "inside delegate 0 (TensorRTBackend)"; "et_copy" for an instruction.
QString whereText(const TransfersModel::Row& row) {
  if (!row.inside) return QStringLiteral("et_copy");
  return QObject::tr("inside delegate %1 (%2)").arg(row.inside->delegate).arg(QString::fromStdString(row.inside->backend));
}

// A copy inside a delegate as the CopyProfile the table's measured columns
// read: the profile timed it once per measured iteration after the run, in
// the host memory of the run's kind (DelegateCopyTiming); it has no share of
// a link peak.
exec::CopyProfile copyProfileOfInside(const exec::DelegateCopyTiming& timed, const exec::TransferProfile& profile) {
  const auto& t = timed.transfer;
  exec::CopyProfile out;
  out.instruction = t.instruction;
  out.direction = t.direction;
  out.source_value = t.onInputSide() ? t.value : -1;
  out.destination_value = t.onInputSide() ? -1 : t.value;
  out.device = t.device;
  out.host_memory = profile.host_memory;
  out.bytes = t.bytes;
  out.executions_per_iteration = 1;
  out.samples = timed.samples;
  out.seconds = timed.seconds;
  out.gbps = timed.seconds.median > 0 ? double(t.bytes) / timed.seconds.median / 1e9 : 0.0;
  out.best_gbps = timed.seconds.min > 0 ? double(t.bytes) / timed.seconds.min / 1e9 : 0.0;
  return out;
}

// The row of a copy inside a delegate of the current method.
TransfersModel::Row insideRow(const analysis::DelegateTransfer& t, const std::vector<Value>& values) {
  TransfersModel::Row row;
  row.instruction = t.instruction;
  row.direction = t.direction;
  row.source = t.onInputSide() ? t.value : -1;
  row.destination = t.onInputSide() ? -1 : t.value;
  row.bytes = qint64(t.bytes);
  const QString device = QString::fromStdString(t.device.str());
  const QString host = QString::fromStdString(Device{}.str());
  row.from = t.direction == program::CopyDirection::HostToDevice ? host : device;
  row.to = t.direction == program::CopyDirection::DeviceToHost ? host : device;
  const Tensor* tensor = t.value >= 0 && size_t(t.value) < values.size() ? values[size_t(t.value)].tensor() : nullptr;
  if (tensor != nullptr) row.tensor = ui::tensorTypeText(*tensor);
  row.inside = t;
  return row;
}

QString percentText(double fraction) {
  const double percent = fraction * 100;
  return QString::number(percent, 'f', percent >= 10 ? 0 : 1) + "%";
}

}  // namespace

TransfersModel::TransfersModel(Document* document, QObject* parent) : QAbstractTableModel(parent), document_(document) {
  connect(document_, &Document::currentMethodChanged, this, &TransfersModel::rebuild);
  connect(document_, &Document::programChanged, this, &TransfersModel::rebuild);
  rebuild();
}

void TransfersModel::setProfiles(std::shared_ptr<const exec::TransferProfile> latest,
                                 std::shared_ptr<const exec::TransferProfile> previous, QString latestLabel,
                                 QString previousLabel) {
  // The window hands the same profiles over on every refresh; the rows were
  // already matched to them when the document changed.
  if (latest == latest_ && previous == previous_ && latestLabel == latestLabel_ && previousLabel == previousLabel_) return;
  latest_ = std::move(latest);
  previous_ = std::move(previous);
  latestLabel_ = std::move(latestLabel);
  previousLabel_ = std::move(previousLabel);
  rebuild();
}

void TransfersModel::clearProfiles() { setProfiles(nullptr, nullptr); }

void TransfersModel::setLink(std::shared_ptr<const cost::LinkProfile> link, exec::HostMemoryKind hostMemory) {
  if (link == link_ && hostMemory == linkMemory_) return;
  link_ = std::move(link);
  linkMemory_ = hostMemory;
  if (rows_.empty()) return;
  predict();
  emit dataChanged(index(0, 0), index(int(rows_.size()) - 1, columnCount() - 1));
  emit headerDataChanged(Qt::Horizontal, 0, columnCount() - 1);
}

void TransfersModel::setRunSettings(const analysis::DelegateTransferOptions& settings) {
  if (settings.cuda_graph_methods == runSettings_.cuda_graph_methods) return;
  runSettings_ = settings;
  rebuild();
}

void TransfersModel::predict() {
  for (auto& r : rows_) {
    r.predicted = -1;
    if (!link_) continue;
    // As `predict` prices them: d2d on the link's device curve or the
    // assumed typical device copy.
    auto seconds = cost::transferSeconds(*link_, r.direction, linkMemory_, uint64_t(std::max<qint64>(r.bytes, 0)));
    if (seconds) r.predicted = seconds.value();
  }
}

void TransfersModel::rebuild() {
  // Columns come and go with the profiles: a reset, not a row change.
  beginResetModel();
  rows_.clear();
  rowOfInstruction_.clear();
  const Method* method = document_->currentMethod();
  const analysis::Dataflow* dataflow = document_->currentDataflow();
  if (method != nullptr && dataflow != nullptr) {
    const auto& values = items(method->values);
    for (const auto& ins : dataflow->instructions()) {
      if (!ins.is_h2d_copy && !ins.is_d2h_copy) continue;
      const auto& instruction = (*(*method->chains)[ins.chain].instructions)[ins.index_in_chain];
      const auto* call = std::get_if<KernelCall>(&instruction.data);
      if (call == nullptr || items(call->args).size() < 2) continue;
      Row row;
      row.instruction = ins.flat_index;
      row.direction = ins.is_h2d_copy ? program::CopyDirection::HostToDevice : program::CopyDirection::DeviceToHost;
      row.source = (*call->args)[0];
      row.destination = (*call->args)[1];
      const Tensor* src = size_t(row.source) < values.size() ? values[size_t(row.source)].tensor() : nullptr;
      const Tensor* dst = size_t(row.destination) < values.size() ? values[size_t(row.destination)].tensor() : nullptr;
      if (src != nullptr) {
        row.bytes = src->nbytes();
        row.from = QString::fromStdString(src->device().str());
        row.tensor = ui::tensorTypeText(*src);
      }
      if (dst != nullptr) row.to = QString::fromStdString(dst->device().str());
      rows_.push_back(std::move(row));
    }
    for (const auto& t : analysis::delegateTransfers(document_->program(), *method, runSettings_).transfers)
      rows_.push_back(insideRow(t, values));
  }
  matchProfiles();
  predict();
  for (size_t r = 0; r < rows_.size(); ++r)
    if (!rows_[r].removed) rowOfInstruction_.emplace(rows_[r].instruction, int(r));
  endResetModel();
}

void TransfersModel::matchProfiles() {
  const Method* method = document_->currentMethod();
  const std::string name = method != nullptr ? method->displayName() : std::string();
  latestApplies_ = method != nullptr && latest_ && latest_->method == name;
  previousApplies_ = method != nullptr && previous_ && previous_->method == name;
  insideLatest_.clear();
  insidePrevious_.clear();
  if (!latestApplies_ && !previousApplies_) return;
  std::vector<size_t> copyRows, insideRows;
  for (size_t r = 0; r < rows_.size(); ++r) (rows_[r].inside ? insideRows : copyRows).push_back(r);

  // Files exported upstream number copy outputs among the other values, so
  // an edit shifts the raw indices: key by the copy-free numbering when the
  // profiles carry it (they do when ProfileSession made them).
  const auto canonicalValues = exec::CanonicalValues::of(*method);
  const auto numbering = canonicalValues.known() && (!latestApplies_ || exec::hasCanonicalSources(*latest_)) &&
                                 (!previousApplies_ || exec::hasCanonicalSources(*previous_))
                             ? SourceNumbering::Canonical
                             : SourceNumbering::Raw;
  std::vector<exec::CopyEnds> ends;
  for (size_t row : copyRows) {
    const Row& r = rows_[row];
    ends.push_back(exec::CopyEnds{r.instruction,
                                  r.direction,
                                  numbering == SourceNumbering::Canonical ? canonicalValues.of(r.source) : r.source,
                                  r.destination, (r.direction == program::CopyDirection::HostToDevice ? r.to : r.from).toStdString()});
  }
  const auto keys = exec::copyKeys(ends, numbering);
  const auto latest = latestApplies_ ? exec::copiesByKey(*latest_, numbering) : std::map<CopyKey, const exec::CopyProfile*>{};
  const auto previous =
      previousApplies_ ? exec::copiesByKey(*previous_, numbering) : std::map<CopyKey, const exec::CopyProfile*>{};
  for (size_t k = 0; k < keys.size(); ++k) {
    if (auto it = latest.find(keys[k]); it != latest.end()) rows_[copyRows[k]].latest = it->second;
    if (auto it = previous.find(keys[k]); it != previous.end()) rows_[copyRows[k]].previous = it->second;
  }

  // Copies an edit moved to another device (a delegate retargeted): the
  // same value, direction and occurrence to or from another device. Paired
  // with what was measured then, the row saying on which device, as Changes
  // calls them retargeted (they were a "removed" row beside an unmeasured
  // new one: walkthrough 20).
  const std::map<CopyKey, size_t> current = [&] {
    std::map<CopyKey, size_t> m;
    for (size_t r = 0; r < keys.size(); ++r) m.emplace(keys[r], r);
    return m;
  }();
  std::set<CopyKey> moved;  // profile keys paired with a copy now elsewhere
  auto pairMoved = [&](const std::map<CopyKey, const exec::CopyProfile*>& copies, bool isLatest) {
    for (size_t k = 0; k < keys.size(); ++k) {
      Row& row = rows_[copyRows[k]];
      if ((isLatest ? row.latest : row.previous) != nullptr) continue;
      for (const auto& [key, copy] : copies) {
        if (current.count(key) || moved.count(key) || key.direction != keys[k].direction ||
            key.source != keys[k].source || key.occurrence != keys[k].occurrence || key.device == keys[k].device)
          continue;
        (isLatest ? row.latest : row.previous) = copy;
        row.measuredDevice = QString::fromStdString(copy->device.str());
        moved.insert(key);
        break;
      }
    }
  };
  pairMoved(latest, true);
  pairMoved(previous, false);

  // Copies a profile measured that the current program no longer makes; the
  // latest profile normally has none (it ran this program) unless the user
  // edited after profiling.
  std::map<CopyKey, Row> removed;
  auto addRemoved = [&](const std::map<CopyKey, const exec::CopyProfile*>& copies, bool isLatest) {
    for (const auto& [key, copy] : copies) {
      if (current.count(key) || moved.count(key)) continue;
      Row& row = removed[key];
      row.removed = true;
      row.instruction = copy->instruction;
      row.direction = copy->direction;
      row.source = copy->source_value;
      row.destination = copy->destination_value;
      row.bytes = qint64(copy->bytes);
      const QString device = QString::fromStdString(copy->device.str());
      const QString host = QString::fromStdString(Device{}.str());
      row.from = row.direction == program::CopyDirection::HostToDevice ? host : device;
      row.to = row.direction == program::CopyDirection::HostToDevice ? device : host;
      (isLatest ? row.latest : row.previous) = copy;
    }
  };
  addRemoved(previous, false);
  addRemoved(latest, true);  // its instruction wins: it is the newer numbering
  std::vector<Row> extra;
  for (auto& [key, row] : removed) extra.push_back(std::move(row));
  std::stable_sort(extra.begin(), extra.end(),
                   [](const Row& a, const Row& b) { return a.instruction < b.instruction; });
  for (auto& row : extra) rows_.push_back(std::move(row));
  matchInside(insideRows);
}

void TransfersModel::matchInside(const std::vector<size_t>& insideRows) {
  // The CopyProfile view of each profile's copies inside delegates, and the
  // pointer into it of one of them.
  auto view = [](const exec::TransferProfile& p, std::vector<exec::CopyProfile>& into) {
    into.reserve(p.delegate_copies.size());
    for (const auto& c : p.delegate_copies) into.push_back(copyProfileOfInside(c, p));
    return exec::insideCopiesByKey(p);
  };
  std::map<exec::InsideCopyKey, const exec::DelegateCopyTiming*> latest, previous;
  if (latestApplies_) latest = view(*latest_, insideLatest_);
  if (previousApplies_) previous = view(*previous_, insidePrevious_);
  auto viewOf = [this](bool isLatest, const exec::DelegateCopyTiming* timed) {
    const auto& profile = isLatest ? *latest_ : *previous_;
    return &(isLatest ? insideLatest_ : insidePrevious_)[size_t(timed - profile.delegate_copies.data())];
  };
  std::vector<const analysis::DelegateTransfer*> transfers;
  for (size_t r : insideRows) transfers.push_back(&*rows_[r].inside);
  const auto keys = exec::insideCopyKeys(transfers);
  for (size_t k = 0; k < keys.size(); ++k) {
    if (auto it = latest.find(keys[k]); it != latest.end()) rows_[insideRows[k]].latest = viewOf(true, it->second);
    if (auto it = previous.find(keys[k]); it != previous.end()) rows_[insideRows[k]].previous = viewOf(false, it->second);
  }
  // Copies inside delegates a profile timed that the current program (or
  // the run settings now) no longer makes: device planning turned the
  // staging into et_copy instructions, CUDA graphs were turned off.
  const std::set<exec::InsideCopyKey> current(keys.begin(), keys.end());
  std::map<exec::InsideCopyKey, Row> removed;
  auto addRemoved = [&](const std::map<exec::InsideCopyKey, const exec::DelegateCopyTiming*>& copies, bool isLatest) {
    for (const auto& [key, timed] : copies) {
      if (current.count(key)) continue;
      Row& row = removed[key];
      if (!row.inside || isLatest) {  // the latest's numbering wins
        const auto* before = row.previous;
        row = insideRow(timed->transfer, {});
        row.previous = before;
        row.removed = true;
      }
      (isLatest ? row.latest : row.previous) = viewOf(isLatest, timed);
    }
  };
  addRemoved(previous, false);
  addRemoved(latest, true);
  std::vector<Row> extra;
  for (auto& [key, row] : removed) extra.push_back(std::move(row));
  std::stable_sort(extra.begin(), extra.end(),
                   [](const Row& a, const Row& b) { return a.instruction < b.instruction; });
  for (auto& row : extra) rows_.push_back(std::move(row));
}

qint64 TransfersModel::totalBytes(program::CopyDirection direction, bool inside) const {
  qint64 total = 0;
  for (const auto& r : rows_)
    if (!r.removed && r.direction == direction && r.inside.has_value() == inside) total += std::max<qint64>(r.bytes, 0);
  return total;
}

int TransfersModel::rowOfInstruction(size_t instruction) const {
  auto it = rowOfInstruction_.find(instruction);
  return it == rowOfInstruction_.end() ? -1 : it->second;
}

std::optional<size_t> TransfersModel::instructionOfRow(int row) const {
  if (row < 0 || size_t(row) >= rows_.size() || rows_[size_t(row)].removed) return std::nullopt;
  return rows_[size_t(row)].instruction;
}

TransfersModel::DirectionSummary TransfersModel::summary(program::CopyDirection direction) const {
  DirectionSummary s;
  if (link_) {
    s.predictedSeconds = 0;
    for (const auto& r : rows_)
      if (!r.removed && !r.inside && r.direction == direction && r.predicted > 0) s.predictedSeconds += r.predicted;
  }
  if (latestApplies_) {
    const auto& totals = latest_->totals(direction);
    s.copies = totals.copies;
    s.bytes = qint64(totals.bytes);
    s.seconds = totals.seconds;
    s.gbps = totals.gbps;
    s.marked = std::any_of(latest_->copies.begin(), latest_->copies.end(), [direction](const exec::CopyProfile& c) {
      return c.direction == direction && !c.time_covers.empty();
    });
    if (previousApplies_) {
      s.hasPrevious = true;
      s.previousSeconds = previous_->totals(direction).seconds;
    }
    return s;
  }
  s.copies = size_t(std::count_if(rows_.begin(), rows_.end(),
                                  [&](const Row& r) { return !r.removed && !r.inside && r.direction == direction; }));
  s.bytes = totalBytes(direction);
  return s;
}

TransfersModel::DirectionSummary TransfersModel::insideSummary(program::CopyDirection direction) const {
  DirectionSummary s;
  if (link_) {
    s.predictedSeconds = 0;
    for (const auto& r : rows_)
      if (!r.removed && r.inside && r.direction == direction && r.predicted > 0) s.predictedSeconds += r.predicted;
  }
  // The profile's own count (ProfileWriters' totals.inside_delegates): every
  // copy it timed, each at its median.
  if (latestApplies_ && !latest_->delegate_copies.empty()) {
    for (const auto& c : latest_->delegate_copies)
      if (c.transfer.direction == direction) {
        s.copies += 1;
        s.bytes += qint64(c.transfer.bytes);
        s.seconds += c.seconds.median;
      }
    s.gbps = s.seconds > 0 ? double(s.bytes) / s.seconds / 1e9 : 0.0;
    if (previousApplies_) {
      s.hasPrevious = true;
      for (const auto& c : previous_->delegate_copies)
        if (c.transfer.direction == direction) s.previousSeconds += c.seconds.median;
    }
    return s;
  }
  s.copies = size_t(std::count_if(rows_.begin(), rows_.end(),
                                  [&](const Row& r) { return !r.removed && r.inside && r.direction == direction; }));
  s.bytes = totalBytes(direction, true);
  return s;
}

QString TransfersModel::measuredBeforeWords() const {
  if (!latestApplies_ || !latestMeasuredAnotherProgram()) return {};
  // A profile of edits since undone is no "before": it said "measured
  // before the program changed" over the file's own program (walkthrough 23).
  if (latestOfEdits_) return document_->isModified() ? tr("with other edits") : tr("with edits since undone");
  return document_->isModified() ? tr("before the edits") : tr("before the program changed");
}

bool TransfersModel::latestMeasuredAnotherProgram() const {
  if (!latestApplies_) return false;
  // A copy the profile measured that the program no longer makes, or one it
  // makes now that the profile never saw: the profile ran the program as it
  // was before the edits. A copy inside a delegate that a profile timed
  // none of (a runner's, an ETDump's) says nothing about that.
  const bool timedInside = !latest_->delegate_copies.empty();
  return std::any_of(rows_.begin(), rows_.end(), [timedInside](const Row& r) {
    if (r.inside && !timedInside) return false;
    return r.removed ? r.latest != nullptr : r.latest == nullptr;
  });
}

QString TransfersModel::totalsText() const {
  const auto countText = [](size_t copies) { return copies == 1 ? tr("1 copy") : tr("%1 copies").arg(copies); };
  const auto insideName = [](program::CopyDirection direction) {
    return tr("%1 inside delegates").arg(QString::fromStdString(program::copyDirectionName(direction)));
  };
  constexpr std::array<program::CopyDirection, 3> allDirections{
      program::CopyDirection::HostToDevice, program::CopyDirection::DeviceToHost, program::CopyDirection::DeviceToDevice};
  // Edited since the profile: its totals are of the copies it ran, which
  // are not these; the program's own copies first, then what was measured
  // before the edits, said so.
  QString before;
  if (latestMeasuredAnotherProgram()) {
    QStringList parts, measured;
    for (auto direction : program::kHostDeviceDirections) {
      const QString name = QString::fromStdString(program::copyDirectionName(direction));
      const size_t copies = size_t(std::count_if(rows_.begin(), rows_.end(), [&](const Row& r) {
        return !r.removed && !r.inside && r.direction == direction;
      }));
      parts << QString("%1 %2 · %3").arg(name, countText(copies), bytesText(totalBytes(direction)));
      const auto& totals = latest_->totals(direction);
      measured << QString("%1 %2 · %3 · %4")
                      .arg(name, countText(totals.copies), bytesText(qint64(totals.bytes)), copyTimeText(qint64(totals.copies), totals.seconds));
    }
    for (auto direction : allDirections) {
      const size_t copies = size_t(std::count_if(rows_.begin(), rows_.end(), [&](const Row& r) {
        return !r.removed && r.inside && r.direction == direction;
      }));
      if (copies > 0) parts << QString("%1 %2 · %3").arg(insideName(direction), countText(copies), bytesText(totalBytes(direction, true)));
      if (latest_->delegate_copies.empty()) continue;  // it timed none
      const DirectionSummary timed = insideSummary(direction);  // the profile's
      if (timed.copies > 0)
        measured << QString("%1 %2 · %3 · %4")
                        .arg(insideName(direction), countText(timed.copies), bytesText(timed.bytes), durationText(timed.seconds));
    }
    before = parts.join("  |  ") + "  ·  " +
             tr("measured %1 (the program then): %2")
                 .arg(measuredBeforeWords(), measured.join(", "));
  }
  const auto withTimes = [this](QString text, const DirectionSummary& s) {
    text += " · " + durationText(s.seconds) + (s.marked ? QStringLiteral("*") : QString());
    if (s.hasPrevious) text += " " + tr("(%1 vs previous)").arg(signedDurationText(s.seconds - s.previousSeconds));
    // A time marked '*' is not only copying: no bandwidth follows from it.
    return text + " · " + (s.marked ? tr("no GB/s (times marked * are not only copies)") : tr("%1 GB/s").arg(gbpsText(s.gbps)));
  };
  QStringList parts;
  double insidePredicted = 0;
  bool anyInside = false;
  for (auto direction : program::kHostDeviceDirections) {
    if (!before.isEmpty()) continue;  // said above
    const DirectionSummary s = summary(direction);
    const QString text = QString("%1 %2 · %3")
                             .arg(QString::fromStdString(program::copyDirectionName(direction)), countText(s.copies),
                                  bytesText(s.bytes));
    // No copy: no time or bandwidth ("h2d 0 copies · 0 B · 0 · 0.00 GB/s").
    parts << (latestApplies_ && s.copies > 0 ? withTimes(text, s) : text);
  }
  // The copies inside delegates, as the profile's totals count them: a line
  // per direction of their own, timed when the profile timed them.
  for (auto direction : allDirections) {
    const DirectionSummary s = insideSummary(direction);
    if (s.copies == 0) continue;
    anyInside = true;
    insidePredicted += std::max(s.predictedSeconds, 0.0);
    if (!before.isEmpty()) continue;
    const QString text = QString("%1 %2 · %3").arg(insideName(direction), countText(s.copies), bytesText(s.bytes));
    parts << (latestApplies_ && !latest_->delegate_copies.empty() ? withTimes(text, s) : text);
  }
  QString text = before.isEmpty() ? parts.join("  |  ") : before;
  if (latestApplies_) {
    text += "  ·  " + tr("median of %1").arg(iterationsText(*latest_));
    if (!measuredBy_.isEmpty()) text += ", " + tr("measured by %1").arg(measuredBy_);
    // What is emulated is the copies' device memory: a program without a
    // copy measured its kernels on the host as anywhere.
    if (latest_->emulated && !latest_->copies.empty()) text += ", " + tr("emulated on the host (memcpy)");
    if (latest_->cancelled) text += ", " + tr("cancelled");
  }
  if (link_) {
    // A direction without copies has no time to predict ("none", not "0").
    const auto predictedTime = [](const DirectionSummary& s) { return ui::copyTimeText(qint64(s.copies), s.predictedSeconds); };
    text += "  ·  " + tr("predicted on %1 (%2): h2d %3, d2h %4")
                          .arg(QString::fromStdString(link_->title.empty() ? link_->name : link_->title),
                               QString::fromStdString(exec::hostMemoryKindName(linkMemory_)),
                               predictedTime(summary(program::CopyDirection::HostToDevice)),
                               predictedTime(summary(program::CopyDirection::DeviceToHost)));
    if (anyInside) text += ", " + tr("inside delegates %1").arg(durationText(insidePredicted));
  }
  return text;
}

bool TransfersModel::columnHasNumbers(int column) const {
  return std::any_of(rows_.begin(), rows_.end(), [&](const Row& r) {
    const QVariant v = sortValue(r, column);
    return v.isValid() && v.toDouble() != kNoNumber;
  });
}

int TransfersModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(rows_.size()); }

int TransfersModel::columnCount(const QModelIndex& parent) const {
  if (parent.isValid()) return 0;
  if (hasComparison()) return ColumnCount;
  return latestApplies_ ? kMeasuredColumns : kPlainColumns;
}

namespace {

// "*" after a time that is not only the copy's (CopyProfile::time_covers).
QString marked(const exec::CopyProfile* copy) { return copy && !copy->time_covers.empty() ? QStringLiteral("*") : QString(); }

}  // namespace

QVariant TransfersModel::displayValue(const Row& r, int column) const {
  const QString none = QStringLiteral("—");
  const exec::CopyProfile* l = r.latest;
  const exec::CopyProfile* p = r.previous;
  switch (column) {
    case Instruction: return r.removed ? QVariant(tr("removed")) : QVariant(qulonglong(r.instruction));
    case Direction: return QString::fromStdString(program::copyDirectionName(r.direction));
    case Where: return whereText(r);
    // A copy inside a delegate reads or writes the delegate's own buffer on
    // one side (scratch, the CUDA graph's static buffers, the aliased input).
    // A removed copy's values are numbered as in the program it was measured
    // on: "%3 before" (beside the live rows' %3, another tensor of this one).
    case Source:
      return r.source < 0 ? tr("in delegate") : r.removed ? tr("%%1 before").arg(r.source) : "%" + QString::number(r.source);
    case Destination:
      return r.destination < 0 ? tr("in delegate")
             : r.removed       ? tr("%%1 before").arg(r.destination)
                               : "%" + QString::number(r.destination);
    case Bytes: return bytesText(r.bytes);
    // A copy an edit moved, measured on its device then: "cuda:3 (measured
    // cuda:1)".
    case From:
      return !r.measuredDevice.isEmpty() && r.direction == program::CopyDirection::DeviceToHost
                 ? tr("%1 (measured %2)").arg(r.from, r.measuredDevice)
                 : r.from;
    case To:
      return !r.measuredDevice.isEmpty() && r.direction == program::CopyDirection::HostToDevice
                 ? tr("%1 (measured %2)").arg(r.to, r.measuredDevice)
                 : r.to;
    case TensorShape: return r.tensor;
    case PredictedTime: return r.predicted >= 0 ? durationText(r.predicted) : none;
    // Emulated: a host memcpy over a link's prediction is no ratio a user can
    // act on; the cell stays empty and its tooltip says why.
    // A time that is not the copy's own (CopyProfile::time_covers: a
    // blocking copy that waited for a delegate's queued GPU work) is marked
    // '*', as the CLI marks it, and gives no bandwidth or ratio.
    case MeasuredOverPredicted:
      return l && r.predicted > 0 && !latest_->emulated && l->time_covers.empty()
                 ? ratioText(l->seconds.median / r.predicted)
                 : none;
    case MedianTime: return l ? durationText(l->seconds.median) + marked(l) : none;
    case MinTime: return l ? durationText(l->seconds.min) + marked(l) : none;
    case MaxTime: return l ? durationText(l->seconds.max) + marked(l) : none;
    case Bandwidth: return l && l->time_covers.empty() ? gbpsText(l->gbps) : none;
    // Emulated: a share of a larger memcpy says nothing about a link.
    case PeakShare: return l && l->peak_share > 0 && !latest_->emulated ? percentText(l->peak_share) : none;
    case HostMemory: return l ? QString::fromStdString(exec::copyHostMemoryText(*latest_, *l)) : none;
    case PreviousMedian: return p ? durationText(p->seconds.median) + marked(p) : none;
    case PreviousBandwidth: return p && p->time_covers.empty() ? gbpsText(p->gbps) : none;
    case DeltaTime:
    case DeltaPercent: {
      // A removed copy costs nothing now: its Δ is minus what it cost.
      if (p == nullptr || (l == nullptr && !r.removed)) return none;
      const double delta = (l ? l->seconds.median : 0.0) - p->seconds.median;
      if (column == DeltaTime) return signedDurationText(delta);
      return p->seconds.median > 0 ? signedPercentText(100 * delta / p->seconds.median) : none;
    }
    default: return {};
  }
}

QVariant TransfersModel::sortValue(const Row& r, int column) const {
  const exec::CopyProfile* l = r.latest;
  const exec::CopyProfile* p = r.previous;
  switch (column) {
    // Removed rows after the program's copies, in their old order.
    case Instruction: return qulonglong(r.instruction) + (r.removed ? (qulonglong(1) << 62) : 0);
    case Source: return r.source;
    case Destination: return r.destination;
    case Bytes: return r.bytes;
    case PredictedTime: return r.predicted >= 0 ? r.predicted : kNoNumber;
    case MeasuredOverPredicted:
      return l && r.predicted > 0 && !latest_->emulated && l->time_covers.empty() ? l->seconds.median / r.predicted
                                                                                  : kNoNumber;
    case MedianTime: return l ? l->seconds.median : kNoNumber;
    case MinTime: return l ? l->seconds.min : kNoNumber;
    case MaxTime: return l ? l->seconds.max : kNoNumber;
    case Bandwidth: return l && l->time_covers.empty() ? l->gbps : kNoNumber;
    case PeakShare: return l && l->peak_share > 0 && !latest_->emulated ? l->peak_share : kNoNumber;
    case PreviousMedian: return p ? p->seconds.median : kNoNumber;
    case PreviousBandwidth: return p && p->time_covers.empty() ? p->gbps : kNoNumber;
    case DeltaTime:
    case DeltaPercent: {
      if (p == nullptr || (l == nullptr && !r.removed)) return kNoNumber;
      const double delta = (l ? l->seconds.median : 0.0) - p->seconds.median;
      if (column == DeltaTime) return delta;
      return p->seconds.median > 0 ? delta / p->seconds.median : kNoNumber;
    }
    default: return displayValue(r, column);
  }
}

QString TransfersModel::toolTip(const Row& r, int column) const {
  QString tip;
  if (r.removed)
    tip = tr("Removed: measured as instruction %1 in the %2 profile, but the current program no longer makes this "
             "copy (a skip option or another edit removed it).")
              .arg(r.instruction)
              .arg(r.latest ? tr("latest") : tr("previous"));
  if (r.inside) {
    // What the copy is and where upstream makes it, on every cell.
    const QString line = QString::fromStdString(r.inside->text()) + " · " +
                         QString::fromStdString(analysis::delegateTransferKindName(r.inside->kind)) + ", " +
                         tr("no instruction: the backend copies inside its execute()");
    tip = r.removed ? tr("Removed: the %1 profile timed this copy inside delegate %2, but the current program (or the "
                         "CUDA graph setting) no longer makes it.")
                          .arg(r.latest ? tr("latest") : tr("previous"))
                          .arg(r.inside->delegate) +
                          "\n" + line
                    : line;
  }
  if (!r.measuredDevice.isEmpty())
    tip = tr("Moved: measured when this copy went %1 %2, before an edit moved it to %3; its times are that "
             "device's.")
              .arg(r.direction == program::CopyDirection::HostToDevice ? tr("to") : tr("from"), r.measuredDevice,
                   r.direction == program::CopyDirection::HostToDevice ? r.to : r.from);
  auto join = [&](const QString& more) { return tip.isEmpty() ? more : tip + "\n" + more; };
  auto runName = [](const QString& label, const char* fallback) { return label.isEmpty() ? tr(fallback) : label; };
  const exec::CopyProfile* l = r.latest;
  const exec::CopyProfile* p = r.previous;
  if (column == PredictedTime) {
    if (!link_) return join(tr("No link profile chosen."));
    if (r.predicted < 0)
      return join(tr("%1 has no curve for this direction with %2 host memory.")
                      .arg(QString::fromStdString(link_->label()), QString::fromStdString(exec::hostMemoryKindName(linkMemory_))));
    QString text = tr("%1 on %2, %3 host memory: %4 (%5 GB/s)")
                       .arg(bytesText(r.bytes), QString::fromStdString(link_->label()),
                            QString::fromStdString(exec::hostMemoryKindName(linkMemory_)), durationText(r.predicted),
                            gbpsText(r.predicted > 0 ? double(r.bytes) / r.predicted / 1e9 : 0.0));
    if (!link_->note.empty()) text += "\n" + QString::fromStdString(link_->note);
    return join(text);
  }
  switch (column) {
    case MedianTime:
    case MinTime:
    case MaxTime:
    case Bandwidth:
    case PeakShare:
    case HostMemory:
    case MeasuredOverPredicted:
      if (l == nullptr)
        return join(r.inside ? tr("Not measured: the latest profile timed no such copy inside the delegate (a runner's or "
                                  "an ETDump's profile times none; CUDA graph replay counts only when the profile ran "
                                  "with it).")
                             : tr("Not measured: the latest profile has no copy of this value to this device."));
      break;
    case PreviousMedian:
    case PreviousBandwidth:
    case DeltaTime:
    case DeltaPercent:
      if (p == nullptr) return join(tr("Not in the previous profile: this copy is new since then."));
      if (l == nullptr && !r.removed) return join(tr("Not measured in the latest profile."));
      break;
    default: return tip;
  }
  switch (column) {
    case MedianTime:
    case MinTime:
    case MaxTime: {
      QString text = tr("min %1 / median %2 / max %3 over %4 of %5")
                         .arg(durationText(l->seconds.min), durationText(l->seconds.median),
                              durationText(l->seconds.max), iterationsText(*latest_),
                              runName(latestLabel_, "the latest profile"));
      if (l->executions_per_iteration > 1)
        text += "\n" + tr("%1 executions per iteration, each timed on its own").arg(l->executions_per_iteration);
      if (r.inside)
        text += "\n" + tr("ptescope does not run the backend: timed after the run, once per measured iteration, "
                          "where the backend would copy.");
      if (latest_->emulated) text += "\n" + tr("Emulated: host memcpy timed with the host clock, not a GPU link.");
      if (!l->time_covers.empty())
        text += "\n" + tr("* Not the copy's own time: %1. No bandwidth follows from it.").arg(QString::fromStdString(l->time_covers));
      return join(text);
    }
    case Bandwidth:
      return join(tr("%1 in %2 (median) = %3 GB/s; best (min time) %4 GB/s. GB = 10^9 bytes.")
                      .arg(bytesText(qint64(l->bytes)), durationText(l->seconds.median), gbpsText(l->gbps),
                           gbpsText(l->best_gbps)));
    case MeasuredOverPredicted: {
      if (r.predicted <= 0) return join(tr("No prediction for this copy."));
      if (latest_->emulated)
        return join(tr("Not compared: the measurement is a host memcpy (emulated, no GPU), which says nothing about "
                       "the link the prediction is for. Profile on a GPU to compare."));
      QString text = tr("Measured median %1 / predicted %2 on %3")
                         .arg(durationText(l->seconds.median), durationText(r.predicted),
                              QString::fromStdString(link_ ? link_->label() : std::string()));
      if (latest_->emulated)
        text += "\n" + tr("The measurement is host memcpy (emulated): the ratio compares this machine's memory, not a link.");
      return join(text);
    }
    case PeakShare: {
      if (latest_->emulated)
        return join(tr("Emulated: the copies were host memcpy, so there is no link peak to compare with; the Predicted "
                       "column says what they cost on the chosen link."));
      const bool h2d = l->direction == program::CopyDirection::HostToDevice;
      const auto& peak = latest_->peak;
      if (!peak.measured || l->peak_share <= 0)
        return join(tr("No link peak to compare with%1")
                        .arg(peak.note.empty() ? QString(".") : ": " + QString::fromStdString(peak.note)));
      return join(tr("%1 GB/s of the measured %2 peak of %3 GB/s (best of %4 pinned copies of %5 to %6)")
                      .arg(gbpsText(l->gbps), h2d ? tr("host-to-device") : tr("device-to-host"),
                           gbpsText(h2d ? peak.h2d_gbps : peak.d2h_gbps))
                      .arg(peak.repeats)
                      .arg(bytesText(qint64(peak.bytes)), QString::fromStdString(peak.device.str())));
    }
    case HostMemory: {
      const std::string kind = exec::copyHostMemoryText(*latest_, *l);
      if (kind == "none") return join(tr("Device to device: no host memory takes part in this copy."));
      if (kind == "unknown")
        return join(tr("Not recorded: %1 does not say whether the host memory was pinned or pageable.")
                        .arg(runName(latestLabel_, "the runtime's trace")));
      return join(l->host_memory == exec::HostMemoryKind::Pinned
                      ? tr("Pinned (page-locked) host memory: the GPU copies it directly by DMA.")
                      : tr("Pageable host memory: the driver stages each copy through a pinned buffer, which is "
                           "slower; profile with pinned memory to compare."));
    }
    case PreviousMedian:
      return join(tr("min %1 / median %2 / max %3 over %4 of %5")
                      .arg(durationText(p->seconds.min), durationText(p->seconds.median), durationText(p->seconds.max),
                           iterationsText(*previous_), runName(previousLabel_, "the previous profile")));
    case PreviousBandwidth:
      return join(tr("%1 GB/s in %2").arg(gbpsText(p->gbps), runName(previousLabel_, "the previous profile")));
    case DeltaTime:
    case DeltaPercent:
      return join(tr("Median %1 − median %2: %3 − %4")
                      .arg(runName(latestLabel_, "latest"), runName(previousLabel_, "previous"),
                           l ? durationText(l->seconds.median) : tr("0 (removed)"), durationText(p->seconds.median)));
    default: return tip;
  }
}

QVariant TransfersModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() < 0 || size_t(index.row()) >= rows_.size()) return {};
  if (index.column() < 0 || index.column() >= columnCount()) return {};
  const Row& r = rows_[size_t(index.row())];
  const int column = index.column();
  switch (role) {
    case InstructionRole: return r.removed ? QVariant(qlonglong(-1)) : QVariant(qulonglong(r.instruction));
    case ValueIndexRole: return r.removed ? -1 : r.inside ? r.inside->value : r.destination;
    case DeviceRole: return r.direction == program::CopyDirection::HostToDevice ? r.to : r.from;
    case Qt::TextAlignmentRole:
      if (column == Instruction || column == Bytes || column == PredictedTime ||
          (isMeasuredColumn(column) && column != HostMemory))
        return int(Qt::AlignRight | Qt::AlignVCenter);
      return {};
    case Qt::ForegroundRole:
      if (r.removed) return QGuiApplication::palette().color(QPalette::Disabled, QPalette::Text);
      // The graph's colour of the marks of copies inside delegates.
      if (r.inside && column == Where) {
        const auto mark = layout::insideCopyColour();
        return QColor(mark.red(), mark.green(), mark.blue());
      }
      return {};
    case Qt::FontRole:
      if (r.removed) {
        QFont italic;
        italic.setItalic(true);
        return italic;
      }
      return {};
    case Qt::ToolTipRole: {
      const QString tip = toolTip(r, column);
      return tip.isEmpty() ? QVariant() : QVariant(plainToolTip(tip));
    }
    case SortRole: return sortValue(r, column);
    case Qt::DisplayRole: return displayValue(r, column);
    default: return {};
  }
}

QVariant TransfersModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount) return {};
  static const char* names[] = {"Instruction", "Direction",   "Where",      "Source",     "Destination", "Bytes",      "From",
                                "To",          "Tensor",      "Predicted",  "Median",      "Min",        "Max",
                                "GB/s",        "% of peak",   "Host memory", "Measured / predicted",
                                "Prev. median", "Δ time",     "Δ %",        "Prev. GB/s"};
  static_assert(sizeof(names) / sizeof(names[0]) == ColumnCount);
  const bool emulated = latestApplies_ && latest_->emulated;
  if (role == Qt::DisplayRole && section == Bandwidth && emulated) return tr("memcpy GB/s");
  // Each row's times are of the program before the edits: the totals said
  // so, the columns read as this program's.
  if (role == Qt::DisplayRole && section == MedianTime && latestApplies_ && latestMeasuredAnotherProgram())
    return latestOfEdits_ ? tr("Median (other edits)")
           : document_->isModified() ? tr("Median (before edits)")
                                     : tr("Median (before changes)");
  if (role == Qt::DisplayRole) return tr(names[section]);
  if (role != Qt::ToolTipRole) return {};
  const QString latest = latestLabel_.isEmpty() ? tr("the latest profile") : latestLabel_;
  const QString previous = previousLabel_.isEmpty() ? tr("the previous profile") : previousLabel_;
  switch (section) {
    case MedianTime: return tr("Median time of one execution of the copy in %1").arg(latest);
    case MinTime: return tr("Fastest execution in %1").arg(latest);
    case MaxTime: return tr("Slowest execution in %1").arg(latest);
    case PredictedTime:
      return link_ ? tr("Predicted time of one execution on %1, %2 host memory (typical figures, not guarantees, for "
                        "built-in links)")
                         .arg(QString::fromStdString(link_->label()), QString::fromStdString(exec::hostMemoryKindName(linkMemory_)))
                   : tr("No link profile chosen");
    case MeasuredOverPredicted: return tr("Median in %1 divided by the predicted time: above 1 is slower than predicted").arg(latest);
    case Bandwidth:
      return emulated ? tr("Bytes / median time of host memcpy (emulated), in 10^9 bytes per second: not a link")
                      : tr("Bytes / median time, in 10^9 bytes per second");
    case PeakShare: return tr("Bandwidth as a share of the link peak measured with a large pinned copy");
    case Instruction: return tr("The copy instruction; for a copy inside a delegate, the delegate's call");
    case Where:
      return tr("et_copy: an instruction of the method. inside delegate N: a copy the backend makes inside its "
                "execute() (TensorRT staging of host memory, an aliased output, CUDA graph replay), no instruction");
    case HostMemory: return tr("Kind of host memory the copy reads or writes: pinned or pageable");
    case PreviousMedian: return tr("Median time in %1").arg(previous);
    case DeltaTime: return tr("Median in %1 minus median in %2").arg(latest, previous);
    case DeltaPercent: return tr("Δ time as a share of the median in %1").arg(previous);
    case PreviousBandwidth: return tr("Bandwidth in %1").arg(previous);
    default: return {};
  }
}

}  // namespace ptescope::ui
