#include "ui/common/DistinctNames.h"

#include <algorithm>

namespace ptescope::ui {

namespace {

// Characters `x` and `y` share at their start (or end).
int shared(const QString& x, const QString& y, bool fromEnd) {
  const int n = int(std::min(x.size(), y.size()));
  int k = 0;
  while (k < n && (fromEnd ? x[x.size() - 1 - k] == y[y.size() - 1 - k] : x[k] == y[k])) ++k;
  return k;
}

// For each name of `sorted`, the most it shares with a neighbour: in sorted
// order the longest common prefix of any two names is between neighbours.
std::map<QString, int> sharedWithNeighbours(const std::vector<QString>& sorted, bool fromEnd) {
  std::map<QString, int> out;
  for (size_t i = 0; i < sorted.size(); ++i) {
    int most = 0;
    if (i > 0) most = std::max(most, shared(sorted[i], sorted[i - 1], fromEnd));
    if (i + 1 < sorted.size()) most = std::max(most, shared(sorted[i], sorted[i + 1], fromEnd));
    out[sorted[i]] = most;
  }
  return out;
}

}  // namespace

std::map<QString, std::pair<int, int>> distinguishingParts(std::vector<QString> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  const auto prefix = sharedWithNeighbours(names, false);
  std::vector<QString> byEnd = names;
  std::sort(byEnd.begin(), byEnd.end(), [](const QString& x, const QString& y) {
    return std::lexicographical_compare(x.rbegin(), x.rend(), y.rbegin(), y.rend());
  });
  const auto suffix = sharedWithNeighbours(byEnd, true);
  std::map<QString, std::pair<int, int>> parts;
  // The part spans the first character that differs from the name sharing
  // most of its start and the last one that differs from the name sharing
  // most of its end ("layer0_mlp_w" and "layer10_mlp_w" share both ends
  // but the digits).
  for (const auto& name : names) {
    const int length = int(name.size());
    if (length == 0) {
      parts[name] = {0, 0};
      continue;
    }
    const int fromStart = std::clamp(prefix.at(name), 0, length - 1);
    const int fromEnd = std::clamp(length - suffix.at(name) - 1, 0, length - 1);
    parts[name] = {std::min(fromStart, fromEnd), std::max(fromStart, fromEnd) + 1};
  }
  return parts;
}

QString elideAround(const QString& name, std::pair<int, int> part, const QFontMetrics& metrics, int width) {
  if (metrics.horizontalAdvance(name) <= width) return name;
  const int length = int(name.size());
  auto [first, last] = part;
  first = std::clamp(first, 0, length);
  last = std::clamp(last, first, length);
  const QString ellipsis = QStringLiteral("\u2026");
  const auto text = [&](int l, int r) {
    return (l > 0 ? ellipsis : QString()) + name.mid(l, r - l) + (r < length ? ellipsis : QString());
  };
  const auto fits = [&](int l, int r) { return metrics.horizontalAdvance(text(l, r)) <= width; };
  if (!fits(first, last)) return metrics.elidedText(text(first, last), Qt::ElideRight, width);
  // Grow on both sides while it fits: what comes before the part first.
  for (bool grew = true; grew;) {
    grew = false;
    if (first > 0 && fits(first - 1, last)) --first, grew = true;
    if (last < length && fits(first, last + 1)) ++last, grew = true;
  }
  return text(first, last);
}

}  // namespace ptescope::ui
