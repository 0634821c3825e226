// An ETDump read against the program it was recorded on: every event tied to
// a method and an instruction, and the result as per-instruction and
// per-copy statistics over the iterations, in the shapes ptescope's own
// profiles use (exec::TransferProfile) so that every view of a profile shows
// an ETDump too.
//
// Method attribution. An ETDump does not name methods: the runtime opens a
// "Default" block in every Program::load_method and an "Execute" block in
// every Method::execute. The rule, unless told otherwise:
//   - the k-th "Default" block is the load of the program's k-th method
//     (program order, the order example runners load them in);
//   - an "Execute" block belongs to the most recently loaded method (an
//     "Execute" before any load goes to the default method: "forward" when
//     present, else the first);
//   - blocks of any other name, and loads beyond the program's methods, are
//     not attributed.
// AnalysisOptions::methods overrides it: one name puts every block on that
// method; several name the method of each "Default" block in order (what the
// app loaded), "Execute" blocks again following the latest load.
//
// Mapping to instructions: an event's (chain_index, instruction_id) is the
// instruction's position in that chain of its method (flattened in
// instruction order). OPERATOR_CALL must sit on a KernelCall, DELEGATE_CALL
// on a DelegateCall, JF/MOVE/FREE_CALL on theirs; native_call_<op> must name
// the instruction's operator without its namespace (native_call_add.out for
// aten::add.out); events with a delegate debug id (or any other named event
// on a DelegateCall) are delegate-internal and are listed under their
// DELEGATE_CALL. Whatever does not fit is counted, never fatal, and reported
// as one warning line; an ETDump where a quarter or more of the instruction
// events misfit (or none fits) is taken for the trace of another program and
// refused. So is one whose runs leave a kernel or delegate call of the method
// without any event although they were traced per instruction and nothing
// jumps: upstream's Method::execute_instruction traces every call it runs, so
// a shorter program's trace that fits this one's first instructions is not
// this program's.
//
// Times. An instruction's time is its OPERATOR_CALL / DELEGATE_CALL (the
// runtime's scope around the instruction). A copy's transfer time is its
// native_call__h2d_copy.out / _d2h_copy.out (the kernel alone), or the
// OPERATOR_CALL when the kernel event is missing; its bytes are the source
// tensor's size in the program. The shares split the median Method::execute
// into copies, delegates and CPU kernels by instruction time; the rest is the
// runtime's own work between instructions. All of it is on the host clock.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "etdump/Etdump.h"
#include "exec/ProfileAnalysis.h"
#include "exec/Profiler.h"
#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::etdump {

// What TransferProfile::runtime says for profiles made from an ETDump.
inline constexpr const char* kEtdumpSource = "ETDump, host clock";

// "native_call_add.out" for aten::add.out: the scope the codegen wrapper of
// a kernel opens, named without the operator's namespace.
std::string nativeCallName(const program::Operator& op);

enum class Category { Copy, Delegate, CpuKernel, Other };
std::string categoryName(Category category);  // "copy", "delegate", "cpu_kernel", "other"

struct DelegateEventStats {
  std::string name;  // the string id, "delegate id N", or the event's name
  int32_t id_int = -1;
  std::string id_str;
  std::vector<double> samples;  // seconds
  exec::TimingStats seconds;
  size_t executions_per_iteration = 0;
};

struct InstructionStats {
  size_t instruction = 0;  // flat index in the method
  program::InstructionKind kind = program::InstructionKind::None;
  std::string label;       // "aten::add.out", "delegate CudaBackend", ...
  Category category = Category::Other;
  std::vector<double> samples;  // seconds per execution, in block order
  exec::TimingStats seconds;
  size_t executions_per_iteration = 0;
  // Copies only.
  bool is_copy = false;
  program::CopyDirection direction = program::CopyDirection::HostToDevice;
  int32_t source_value = -1;
  int32_t destination_value = -1;
  program::Device device;
  uint64_t bytes = 0;
  std::vector<double> copy_samples;  // the kernel's time per execution
  exec::TimingStats copy_seconds;
  double gbps = 0;       // bytes / median copy time
  double best_gbps = 0;  // bytes / min copy time
  std::vector<DelegateEventStats> delegate_events;  // DelegateCall only
};

// One slice of the Chrome trace: an event on a device lane.
struct TraceSlice {
  std::string lane;        // "h2d copies", "d2h copies", "CPU kernels", "delegates on cuda:0", "method"
  size_t iteration = 0;    // index among the method's Execute blocks; loads: 0
  size_t block = 0;        // index into Etdump::blocks
  int64_t instruction = -1;  // flat index; -1 for framework events
  std::string name;
  double start_seconds = 0;  // since the first event of the file
  double seconds = 0;
  uint64_t bytes = 0;        // copy kernels
  bool load = false;         // from a "Default" (load_method) block
  bool nested = false;       // inside another slice of the same lane (native_call, delegate events)
};

struct MethodStats {
  std::string method;
  int method_index = -1;
  size_t loads = 0;       // Default blocks
  size_t iterations = 0;  // Execute blocks
  exec::TimingStats run_seconds;   // Method::execute
  exec::TimingStats load_seconds;  // Program::load_method
  // Per iteration: the sum of each instruction's median time times its
  // executions per iteration (as exec::breakDownTime sums them).
  double copy_seconds = 0, delegate_seconds = 0, kernel_seconds = 0, other_seconds = 0;
  double copy_transfer_seconds = 0;  // median per-iteration sum of copy kernel times
  // Of the median run time (0 when no Method::execute was recorded).
  double copy_share = 0, delegate_share = 0, kernel_share = 0;
  size_t debug_events = 0, allocation_events = 0;
  std::vector<InstructionStats> instructions;  // instruction order, only those with events
  std::vector<TraceSlice> trace;               // start order per block
  // Execute-block starts (seconds since the first event), for timelines.
  std::vector<double> iteration_starts;
};

struct BlockAttribution {
  size_t block = 0;
  std::string name;         // as in the file
  int method = -1;          // index into Program::methods(); -1 not attributed
  std::string method_name;
};

// Events that did not fit the program, by reason.
struct Misfits {
  size_t matched = 0;              // instruction events that fit
  size_t out_of_range = 0;         // no such chain / instruction
  size_t kind_mismatch = 0;        // OPERATOR_CALL on a non-kernel instruction, ...
  size_t name_mismatch = 0;        // native_call_X on an instruction whose operator is not X
  size_t unknown = 0;              // named events ptescope does not know, outside delegates
  size_t unattributed_blocks = 0;
  size_t unattributed_events = 0;
  std::string example;             // the first misfit, for the message
  size_t total() const { return out_of_range + kind_mismatch + name_mismatch; }
};

struct AnalysisOptions {
  std::vector<std::string> methods;  // see the attribution rule above
  TickScale scale;
};

// No host-device link moves data faster (NVLink-C2C is 900 GB/s): a copy
// measured faster is of smaller tensors than the program's, or mistimed.
inline constexpr double kFastestHostLinkGbps = 2000;

struct EtdumpAnalysis {
  std::string attribution_rule;  // one line, what was applied
  TickScale scale;
  std::vector<BlockAttribution> blocks;
  std::vector<MethodStats> methods;  // methods with blocks, program order
  Misfits misfits;
  size_t profile_events = 0, debug_events = 0, allocation_events = 0;
  // The first host-device copy measured faster than kFastestHostLinkGbps
  // ("#0 h2d of 1.0 MiB at 12193 GB/s in method 'forward'"); empty: none.
  std::string implausible;

  const MethodStats* find(const std::string& method) const;
  // One line with the counts of what did not fit; empty when everything did.
  std::string warning() const;
};

// Errors: a method named in the options that the program lacks, a per-load
// list that does not match the loads, a bad tick scale, no block attributed,
// or the trace of another program.
Result<EtdumpAnalysis> analyzeEtdump(const Etdump& dump, const program::Program& program,
                                     const AnalysisOptions& options = {});

// A method's statistics as a profile: copies, instructions (all executed),
// totals, run time, copy share and the timeline of the first
// `timelineIterations` iterations. runtime = kEtdumpSource, emulated = false.
// Copies get canonical_source from `program` so they pair across edits.
exec::TransferProfile toTransferProfile(const MethodStats& method, const program::Program& program,
                                        const std::string& programName, size_t timelineIterations = 3);

// Every method of the trace as a profile (toTransferProfile of each, in the
// analysis' method order).
std::vector<exec::TransferProfile> toTransferProfiles(const EtdumpAnalysis& analysis, const program::Program& program,
                                                      const std::string& programName);

// PRF004 across the methods of one trace (exec::checkRoundTripsAcrossMethods
// over toTransferProfiles): what `etdump`, `report --etdump`, the app's
// Import ETDump and its Export Report all show. Empty for a trace of one
// method.
std::vector<exec::ProfileFinding> roundTripsAcrossMethods(const EtdumpAnalysis& analysis, const program::Program& program,
                                                          const std::string& programName);

}  // namespace ptescope::etdump
