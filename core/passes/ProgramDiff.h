// Differences between two programs that matter to a device engineer:
// placement of every value, host/device copies, planned buffers, and the
// structure underneath (values, instructions, operators, delegates).
// Copies are matched after stripping both programs, so the same copy has the
// same identity in both even though value numbers differ.
#pragma once

#include <string>
#include <vector>

#include "passes/Pipeline.h"
#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::passes {

struct MethodDiff {
  std::string name;
  std::vector<CopyRecord> copies_only_in_a;
  std::vector<CopyRecord> copies_only_in_b;
  std::vector<RetaggedValue> placement;  // before = A, after = B (stripped numbering)
  std::vector<BufferInfo> buffers_a;
  std::vector<BufferInfo> buffers_b;
  std::vector<std::string> structure;     // readable structural differences
  bool same() const {
    return copies_only_in_a.empty() && copies_only_in_b.empty() && placement.empty() && buffers_a == buffers_b &&
           structure.empty();
  }
};

struct ProgramDiff {
  std::vector<std::string> methods_only_in_a;
  std::vector<std::string> methods_only_in_b;
  std::vector<MethodDiff> methods;  // methods present in both, in A's order
  bool same() const;
};

Result<ProgramDiff> diffPrograms(const program::Program& a, const program::Program& b);

}  // namespace ptescope::passes
