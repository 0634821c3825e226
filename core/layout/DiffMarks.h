// The diff view of a method's graph: what the edits changed against the
// program as loaded, marked on the graph of the edited program.
//
// - copies the edits added: their nodes are marked Added;
// - copies the edits removed: they are not in the edited program, so they
//   come back as "ghost" copy nodes (Removed) wired from the value they
//   copied to the instruction or output that used to read them;
// - values whose device changed: their edges and value nodes are marked
//   Moved with "cpu → cuda:0";
// - delegates whose target device changed: their nodes are marked Moved;
// - collapsed groups that hold any of these are marked Moved with a count.
//
// Qt-free and independent of core/passes: report/PassReportChanges.h fills a
// MethodChanges from the pipeline's report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "layout/GraphModel.h"

namespace ptescope::layout {

struct RemovedCopy {
  bool host_to_device = true;
  program::Device from;
  program::Device to;
  int64_t bytes = 0;
  int32_t source = -1;                 // the value it copied, in the shown method
  // The instructions that read its output, in the shown method; none: the
  // method's outputs that are `source` (a removed D2H of a returned value).
  std::vector<size_t> consumers;
  std::string note;                    // "removed: H2D %0 cpu → cuda:0, 256 B"
};

struct MovedValue {
  int32_t value = -1;  // in the shown method
  program::Device before;
  program::Device after;
};

struct MethodChanges {
  std::map<size_t, std::string> added_copies;  // instruction -> note
  std::vector<RemovedCopy> removed_copies;
  std::vector<MovedValue> moved_values;
  std::map<size_t, std::string> retargeted;    // delegate instruction -> note
  // Of those, the delegate calls whose target device the edits changed (the
  // others are copies kept that now move to or from another device).
  std::set<size_t> retargeted_delegates;
  // One line per other change that has no place on the graph (buffers
  // resized, added or dropped), for the view's banner.
  std::vector<std::string> notes;
  bool empty() const {
    return added_copies.empty() && removed_copies.empty() && moved_values.empty() && retargeted.empty() && notes.empty();
  }
};

// Marks `changes` on `model`, a view of `graph` (the edited method), and
// adds the ghost nodes of removed copies with their edges. Instructions and
// values inside collapsed groups mark their group; so do removed copies whose
// both ends are hidden in groups. At most 200 ghosts are drawn; the rest are
// counted in GraphModel::undrawn_removed_copies.
void markChanges(GraphModel& model, const MethodGraph& graph, const MethodChanges& changes);

}  // namespace ptescope::layout
