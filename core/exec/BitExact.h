// Which outputs ptescope computes bit for bit as ExecuTorch's runtime does.
//
// The differential harness (tests/oracle/differential.py) runs each kernel
// for each dtype signature on edge inputs through the real runtime and through
// ptescope; its record (tests/oracle/record.tsv) is compiled in here, so the
// verdicts cannot drift from what the harness found. A kernel is proven for a
// signature when every recorded case of it agrees (same bytes, or both
// refused); it is not proven when one case differs or only one side ran, or
// when the record has no case of it at all.
//
// An output is bit-exact when every instruction it depends on (walked back
// through the method's dataflow: writers of the value, their inputs' writers,
// ...) is a proven kernel or a plain copy (et_copy, et_view, move).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "program/Program.h"

namespace ptescope::exec {

// What the record says of one kernel and dtype signature.
struct KernelVerdict {
  bool proven = false;
  // Why not, e.g. "differs from the runtime (edges/tanh)", "not checked
  // against the runtime"; empty when proven.
  std::string why;
};
KernelVerdict recordedVerdict(std::string_view kernel, std::string_view dtypes);
// How many cases the compiled-in record holds (its data rows).
size_t recordedCaseCount();

// An instruction's dtype signature as the record spells it: the distinct
// dtypes of the tensors it reads, in argument order, "->", the distinct
// dtypes of those it writes; one name when both are the same single dtype
// ("float32", "int32->float32", "bool,float16->float16"). A tensor in a dim
// order other than the contiguous one is "float32/channels_last" (4-D
// 0,2,3,1) or "float32/dim_order=0.2.1".
std::string dtypeSignature(const program::Method& method, const std::vector<int32_t>& reads,
                           const std::vector<int32_t>& writes);

struct UnprovenInstruction {
  size_t instruction = 0;  // flat index
  std::string kernel;      // "aten::gelu.out", "delegate XnnpackBackend"
  std::string dtypes;      // its signature (empty for a delegate or a non-kernel)
  std::string why;
};

struct OutputExactness {
  // The instructions the output depends on that are not proven, in
  // instruction order; empty: bit-exact with the runtime.
  std::vector<UnprovenInstruction> unproven;
  bool proven() const { return unproven.empty(); }
};

// Per output of `method` (in the method's output order). `notExecuted`:
// flat indices of instructions the run did not execute (their outputs are
// not the program's); may be empty.
std::vector<OutputExactness> outputExactness(const program::Method& method, const std::vector<size_t>& notExecuted = {});

// "bit-exact with the runtime", or "not proven: aten::gelu.out (float16)
// differs from the runtime (edges/tanh)" and ", and 2 more instructions"
// when more than one is not proven.
std::string exactnessText(const OutputExactness& exactness);

}  // namespace ptescope::exec
