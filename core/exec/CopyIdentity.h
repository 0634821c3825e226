// What makes a host-device copy the same copy in two versions of one method
// (the file as loaded and after an edit, a measurement and a prediction, two
// profiles): not its instruction number, which every edit changes, but what
// it moves. One copy identity for the whole tool: the profile comparison
// (pairCopies), the transfers table's matching of profiles to the program on
// screen (copyKeys, copiesByKey), and CopyProfile::canonical_source
// (identifyCopies, CanonicalValues) that makes the matching survive edits.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "exec/Profiler.h"
#include "program/Program.h"

namespace ptescope::exec {

// A method's values in the copy-free numbering (passes::canonicalValueIndices),
// which is the same in every edit of one file: copy outputs are the values
// the passes renumber, the others keep their place.
class CanonicalValues {
 public:
  CanonicalValues() = default;  // knows nothing: every value is -1
  static CanonicalValues of(const program::Method& method);
  bool known() const { return !indices_.empty(); }
  // `value` in the copy-free numbering; -1 when unknown or out of range.
  int32_t of(int32_t value) const;

 private:
  std::vector<int32_t> indices_;
};

// A CopyProfile with the identity of `copy` (anything with instruction,
// direction, source_value, destination_value, device and bytes: a predicted
// copy, an ETDump copy instruction); timings and the rest left to the caller.
template <class Copy>
CopyProfile copyProfileOf(const Copy& copy) {
  CopyProfile out;
  out.instruction = copy.instruction;
  out.direction = copy.direction;
  out.source_value = copy.source_value;
  out.destination_value = copy.destination_value;
  out.device = copy.device;
  out.bytes = copy.bytes;
  return out;
}

// Fills every CopyProfile::canonical_source and producer of `profile` from
// `method` (the method it ran); leaves -1 where the numbering is unknown.
void identifyCopies(TransferProfile& profile, const program::Method& method);
// The same with the profile's method looked up by name in `program`.
void identifyCopies(TransferProfile& profile, const program::Program& program);

// The identity of a copy: direction, the value it starts from, the device
// side, and the occurrence among the copies with those three (one copy of a
// value to a device per delegate that reads it), in instruction order.
struct CopyKey {
  program::CopyDirection direction = program::CopyDirection::HostToDevice;
  int32_t source = -1;
  std::string device;
  int occurrence = 0;
  friend auto operator<=>(const CopyKey&, const CopyKey&) = default;
};

// What a copy is read from: its instruction, direction, values and device.
struct CopyEnds {
  size_t instruction = 0;
  program::CopyDirection direction = program::CopyDirection::HostToDevice;
  int32_t source = -1;
  int32_t destination = -1;
  std::string device;
};

// How the sources of CopyEnds are numbered. Raw: the method's own indices,
// where a copy that reads another copy's output (cuda:0 → cpu → cuda:1) is
// keyed by the value the chain starts from. Canonical: already copy-free.
enum class SourceNumbering { Raw, Canonical };

// The keys of `copies` (any order; occurrences count in instruction order),
// one per copy, at the same positions.
std::vector<CopyKey> copyKeys(const std::vector<CopyEnds>& copies, SourceNumbering numbering);

// True when every copy of `profile` carries its canonical source.
bool hasCanonicalSources(const TransferProfile& profile);

// The copies of `profile` by key; sources are canonical_source when
// `numbering` is Canonical, source_value otherwise.
std::map<CopyKey, const CopyProfile*> copiesByKey(const TransferProfile& profile, SourceNumbering numbering);

// Two profiles of one method, copy by copy, by key (canonical sources when
// every copy of both has one). A copy only in `latest` is new, one only in
// `previous` was removed (a skip option, a target device set to none).
// Pairs come in the order of `latest`'s copies, then the removed ones.
struct CopyPair {
  const CopyProfile* latest = nullptr;
  const CopyProfile* previous = nullptr;
};
std::vector<CopyPair> pairCopies(const TransferProfile& latest, const TransferProfile& previous);

// The identity of a copy inside a delegate (DelegateCopyTiming: TensorRT
// staging, CUDA graph replay), which has no instruction of its own: the
// delegate (index and backend), the kind, the direction, and the
// occurrence among the copies with those four, in the list's order. The
// profile comparison (`--compare`) and the transfers table pair them by it.
struct InsideCopyKey {
  int32_t delegate = -1;
  std::string backend;
  int kind = 0;
  int direction = 0;
  int occurrence = 0;
  friend auto operator<=>(const InsideCopyKey&, const InsideCopyKey&) = default;
};
// One key per transfer, at the same positions.
std::vector<InsideCopyKey> insideCopyKeys(const std::vector<const analysis::DelegateTransfer*>& transfers);
// The copies inside delegates of `profile` by key.
std::map<InsideCopyKey, const DelegateCopyTiming*> insideCopiesByKey(const TransferProfile& profile);

}  // namespace ptescope::exec
