// Analyses over one TransferProfile, whatever made it (host emulation, CUDA,
// the cudart stand-in, an imported ETDump, the user's runner): the transfer
// statistics Nsight Systems prints (per direction and size class), the time
// of an iteration split into kernels, delegates, copies and gaps, and rules
// that read the measurements like lint reads a program (finding, evidence,
// fix). Each analysis says what its source cannot show instead of printing a
// number it does not have (sourceFacts).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "exec/Profiler.h"
#include "program/Program.h"

namespace ptescope::exec {

// ---- what a profile's source can show ----

enum class ProfileSourceKind {
  Emulated,   // HostRuntime: device memory in host memory, copies are memcpy
  StandIn,    // CudaRuntime against tests/cudart-standin: a link model's times
  Cuda,       // CudaRuntime on a GPU: copies timed with CUDA events
  HostClock,  // a trace of the ExecuTorch runtime (ETDump, the runner): host clock only
  Predicted,  // cost::asTransferProfile: no measurement at all
  HostCpu,    // ptescope's executor on a method that uses no device memory: the host CPU, no GPU involved
};

struct ProfileSourceFacts {
  ProfileSourceKind kind = ProfileSourceKind::Emulated;
  std::string name;  // "host emulation", "CUDA events", ...
  // The run chose the host memory kind of the copies (ptescope's own
  // executor); a runtime trace does not record it.
  bool host_memory_known = false;
  // At least one delegate call ran and was timed (a runtime trace); ptescope's
  // executor cannot run delegate backends.
  bool delegates_timed = false;
  // A link peak to judge copies against: the profile's measured one (not on
  // the emulated runtime, where it is a memcpy) or none.
  bool link_peak = false;
  // Copy/compute overlap needs copies and compute on one device clock. No
  // source has that today; overlap_note says why for this one.
  bool overlap_visible = false;
  std::string overlap_note;
};
ProfileSourceFacts sourceFacts(const TransferProfile& profile);
ProfileSourceKind sourceKind(const TransferProfile& profile);  // cheap: sourceFacts(p).kind

// What a copy's host side is, as every view spells it: "pinned" or
// "pageable" where the run chose it (ptescope's executor, a prediction's
// assumption), "unknown" where a runtime trace (an ETDump, the user's runner)
// does not record it, "none" for a device-to-device copy (no host side).
std::string copyHostMemoryText(const TransferProfile& profile, const CopyProfile& copy);

// ---- transfer statistics (Nsight's cuda_gpu_mem_time_sum / size_sum) ----

// Size classes of one copy execution; bounds are exclusive upper limits.
enum class SizeClass { Under4KiB, Under64KiB, Under1MiB, Under16MiB, Larger };
inline constexpr SizeClass kSizeClasses[] = {SizeClass::Under4KiB, SizeClass::Under64KiB, SizeClass::Under1MiB,
                                             SizeClass::Under16MiB, SizeClass::Larger};
SizeClass sizeClassOf(uint64_t bytes);
std::string sizeClassName(SizeClass sizeClass);  // "< 4 KiB", ..., ">= 16 MiB"
std::string sizeClassKey(SizeClass sizeClass);   // "lt_4KiB", ..., "ge_16MiB" (JSON, CSV)

// Over every measured execution of the copies in a group (all iterations).
struct TransferStats {
  size_t count = 0;       // copy executions
  uint64_t bytes = 0;     // bytes moved by them together
  double total_seconds = 0, mean_seconds = 0, median_seconds = 0, min_seconds = 0, max_seconds = 0;
  double stddev_seconds = 0;  // sample standard deviation (n - 1); 0 for one execution
  double gbps = 0;            // bytes / total_seconds, 10^9 bytes per second
};

struct TransferSummaryRow {
  program::CopyDirection direction = program::CopyDirection::HostToDevice;
  std::optional<SizeClass> size_class;  // nullopt: every size of the direction
  // The copies delegates make inside their execute() (TransferProfile::
  // delegate_copies: TensorRT staging, CUDA graph replay), timed apart from
  // the run: rows of their own, after the et_copy rows.
  bool inside_delegates = false;
  TransferStats stats;
};

struct TransferSummary {
  size_t iterations = 0;
  // Per direction present (h2d, d2h, d2d order): the direction's total row,
  // then one row per size class that has copies.
  std::vector<TransferSummaryRow> rows;
  // Copies without per-execution samples (a profile JSON of an older
  // version) counted once at their median.
  size_t copies_without_samples = 0;
};
TransferSummary summarizeTransfers(const TransferProfile& profile);

// ---- where an iteration's time goes ----

struct TimeBreakdown {
  double run_seconds = 0;        // median wall time of one iteration; 0: not recorded
  // Per iteration, sums of per-instruction medians × executions per iteration.
  double kernel_seconds = 0;     // CPU kernels and control flow
  double delegate_seconds = 0;   // delegate calls that ran
  double copy_seconds = 0;       // copy transfers (TransferProfile::copy_seconds)
  // The copy instructions' own time around their transfers (argument
  // checks, the call; an ETDump's OPERATOR_CALL minus its native_call).
  double copy_overhead_seconds = 0;
  double gap_seconds = 0;        // the rest of the run: the runtime between instructions
  size_t delegates_not_run = 0;  // delegate calls the source did not run (no time)
  // What stands for the delegates' share when they have no time: "delegates
  // not run" (the source ran none of the method's calls) or "no delegates".
  const char* untimedDelegatesText() const { return delegates_not_run > 0 ? "delegates not run" : "no delegates"; }
  bool delegates_timed = false;
  // Some instruction has a time (a trace of method-level events only has
  // none): without one the run cannot be split, and shares say nothing.
  bool instructions_timed = false;
  bool overlap_visible = false;
  std::optional<double> overlap_seconds;  // copy time that overlaps compute; only when visible
  std::string overlap_note;
  // `part` of the run (0 when no run time was recorded).
  double share(double part) const { return run_seconds > 0 ? part / run_seconds : 0.0; }
};
TimeBreakdown breakDownTime(const TransferProfile& profile);

// ---- rules over a profile ----

struct ProfileRule {
  const char* id;    // "PRF001"
  const char* slug;  // "pageable-copy"
  const char* summary;
};
const std::vector<ProfileRule>& profileRules();

struct ProfileFinding {
  std::string id, slug;
  std::string method;
  std::vector<size_t> instructions;  // the copies and instructions it is about
  std::string message;
  std::string evidence;  // the measured numbers it rests on
  std::string fix;
  // A finding across two methods (PRF004 across methods): the second one.
  std::string other_method;
  std::vector<size_t> other_instructions;
  // "method 'forward', instructions 3, 5" (and "; method 'decode', instruction 0")
  std::string location() const;
};

struct ProfileRuleOptions {
  // A link peak to judge copies by when the profile has none of its own
  // (e.g. a link profile's best rate); 0: none.
  double h2d_peak_gbps = 0, d2h_peak_gbps = 0;
  std::string peak_source;  // "link 'pcie4-x16'", for the evidence
  // PRF002: this many copies or more, each below small_copy_bytes, at one boundary.
  size_t small_copies = 4;
  uint64_t small_copy_bytes = 64 * 1024;
  // PRF003: copies of at least this size below this share of the peak.
  uint64_t bandwidth_bound_bytes = 1024 * 1024;
  double low_peak_share = 0.25;
  // PRF005: host-side gaps from this long (median over the timeline's iterations).
  double gap_seconds = 20e-6;
};

struct ProfileCheck {
  std::vector<ProfileFinding> findings;
  // Rules this source cannot judge, with why: "PRF001 not judged: ...".
  std::vector<std::string> not_judged;
};
ProfileCheck checkProfile(const TransferProfile& profile, const ProfileRuleOptions& options = {});

// PRF004 across methods, over the profiles of several methods of `program`
// measured in one run (an ETDump of the caller's loop, which executes each):
// method A copies one of its outputs to the host (d2h) and method B copies
// one of its inputs to a device (h2d), both of the same dtype and sizes, and
// no other copied input of B and output of A has that type (an unambiguous
// match). When the caller passes A's output to B, the value goes to the host
// and back between the two calls. A method with itself is a loop across
// iterations, not a round trip within one: not reported.
std::vector<ProfileFinding> checkRoundTripsAcrossMethods(const std::vector<TransferProfile>& profiles,
                                                         const program::Program& program);

}  // namespace ptescope::exec
