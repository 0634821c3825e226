#include "exec/CopyIdentity.h"

#include <algorithm>
#include <tuple>

#include "analysis/Dataflow.h"
#include "passes/DevicePasses.h"

namespace ptescope::exec {

CanonicalValues CanonicalValues::of(const program::Method& method) {
  CanonicalValues values;
  if (auto indices = passes::canonicalValueIndices(method)) values.indices_ = std::move(indices.value());
  return values;
}

int32_t CanonicalValues::of(int32_t value) const {
  return value >= 0 && size_t(value) < indices_.size() ? indices_[size_t(value)] : -1;
}

void identifyCopies(TransferProfile& profile, const program::Method& method) {
  const auto canonical = CanonicalValues::of(method);
  const auto flow = analysis::Dataflow::build(method);
  for (auto& c : profile.copies) {
    c.canonical_source = canonical.of(c.source_value);
    c.producer.reset();
    if (c.source_value < 0 || size_t(c.source_value) >= flow.values().size()) continue;
    for (size_t writer : flow.value(c.source_value).writers)
      if (writer < c.instruction) c.producer = writer;  // ascending: the last one before the copy
  }
}

void identifyCopies(TransferProfile& profile, const program::Program& program) {
  if (const auto* method = program.findMethod(profile.method)) identifyCopies(profile, *method);
}

std::vector<CopyKey> copyKeys(const std::vector<CopyEnds>& copies, SourceNumbering numbering) {
  std::vector<size_t> order(copies.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return copies[a].instruction < copies[b].instruction; });
  std::map<int32_t, int32_t> sourceOfCopyOutput;
  if (numbering == SourceNumbering::Raw)
    for (const auto& c : copies) sourceOfCopyOutput[c.destination] = c.source;
  std::map<std::tuple<program::CopyDirection, int32_t, std::string>, int> seen;
  std::vector<CopyKey> keys(copies.size());
  for (size_t i : order) {
    const auto& c = copies[i];
    int32_t source = c.source;
    // Bounded: a malformed program could make the chain a cycle.
    for (size_t step = 0; step < copies.size(); ++step) {
      auto it = sourceOfCopyOutput.find(source);
      if (it == sourceOfCopyOutput.end() || it->second == source) break;
      source = it->second;
    }
    keys[i] = CopyKey{c.direction, source, c.device, seen[{c.direction, source, c.device}]++};
  }
  return keys;
}

bool hasCanonicalSources(const TransferProfile& profile) {
  return std::all_of(profile.copies.begin(), profile.copies.end(), [](const auto& c) { return c.canonical_source >= 0; });
}

namespace {

std::vector<CopyKey> keysOfProfile(const TransferProfile& profile, SourceNumbering numbering) {
  std::vector<CopyEnds> ends;
  ends.reserve(profile.copies.size());
  for (const auto& c : profile.copies)
    ends.push_back(CopyEnds{c.instruction, c.direction,
                            numbering == SourceNumbering::Canonical ? c.canonical_source : c.source_value,
                            c.destination_value, c.device.str()});
  return copyKeys(ends, numbering);
}

}  // namespace

std::map<CopyKey, const CopyProfile*> copiesByKey(const TransferProfile& profile, SourceNumbering numbering) {
  const auto keys = keysOfProfile(profile, numbering);
  std::map<CopyKey, const CopyProfile*> byKey;
  for (size_t i = 0; i < keys.size(); ++i) byKey.emplace(keys[i], &profile.copies[i]);
  return byKey;
}

std::vector<CopyPair> pairCopies(const TransferProfile& latest, const TransferProfile& previous) {
  const auto numbering = hasCanonicalSources(latest) && hasCanonicalSources(previous) ? SourceNumbering::Canonical
                                                                                      : SourceNumbering::Raw;
  const auto latestKeys = keysOfProfile(latest, numbering);
  const auto previousKeys = keysOfProfile(previous, numbering);
  std::map<CopyKey, size_t> previousAt;
  for (size_t i = 0; i < previousKeys.size(); ++i) previousAt.emplace(previousKeys[i], i);
  std::vector<CopyPair> pairs;
  std::vector<bool> paired(previous.copies.size(), false);
  for (size_t i = 0; i < latest.copies.size(); ++i) {
    CopyPair pair{&latest.copies[i], nullptr};
    if (auto it = previousAt.find(latestKeys[i]); it != previousAt.end()) {
      pair.previous = &previous.copies[it->second];
      paired[it->second] = true;
    }
    pairs.push_back(pair);
  }
  for (size_t i = 0; i < previous.copies.size(); ++i)
    if (!paired[i]) pairs.push_back(CopyPair{nullptr, &previous.copies[i]});
  return pairs;
}

std::vector<InsideCopyKey> insideCopyKeys(const std::vector<const analysis::DelegateTransfer*>& transfers) {
  std::vector<InsideCopyKey> keys;
  std::map<InsideCopyKey, int> seen;
  for (const auto* t : transfers) {
    InsideCopyKey key{t->delegate, t->backend, int(t->kind), int(t->direction), 0};
    key.occurrence = seen[key]++;
    keys.push_back(std::move(key));
  }
  return keys;
}

std::map<InsideCopyKey, const DelegateCopyTiming*> insideCopiesByKey(const TransferProfile& profile) {
  std::vector<const analysis::DelegateTransfer*> transfers;
  for (const auto& c : profile.delegate_copies) transfers.push_back(&c.transfer);
  const auto keys = insideCopyKeys(transfers);
  std::map<InsideCopyKey, const DelegateCopyTiming*> out;
  for (size_t i = 0; i < keys.size(); ++i) out.emplace(keys[i], &profile.delegate_copies[i]);
  return out;
}

}  // namespace ptescope::exec
