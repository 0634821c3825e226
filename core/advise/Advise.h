// The placement advisor (issue 25): for each method, the edits ptescope can
// already apply — the five pass options and each device delegate's
// target_device among the devices the program uses (plus cuda:0..N-1 when
// the caller names N devices) — searched for the ones that cut the predicted
// copy time per call the most on a link, and valid for the runtime.
//
// Every candidate is one passes::ProgramEdits run through the one pipeline
// (passes::runPipeline), so what is advised is what `propagate` writes.
// A candidate is valid when the pipeline accepts it (upstream's errors), the
// result has no error-level lint finding (PTS…), no runtime refusal (RT…:
// exec/RuntimeChecks), and its device memory per device fits
// AdviseOptions::device_memory. It is scored by cost::predictRecords on the
// link: predicted copy time per call before minus after. Removing a
// target_device is never enumerated (the backend then moves its data inside
// the delegate: not a saving).
//
// Search: exhaustive when (option combinations) × (devices ^ device
// delegates) fits the budget; otherwise a local search from the file's own
// options and devices (option changes, all delegates on one device, moving
// the delegates of one device, or one delegate, next to a neighbour), and
// MethodAdvice says which was used. Either way the alloc_graph_* options,
// which change no copy, are tried per skip combination only until one
// variant is valid; legacy mode (device planning off) hands the delegates
// host memory and is never offered while a delegate that refuses it
// (CudaBackend) is searched; TensorRT delegates stage it, and the copies
// inside delegates (analysis/DelegateTransfers) count as copies.
//
// Ranking: predicted saving per call, descending; then fewer edits first;
// then the edits' text (deterministic). Candidates that save nothing are not
// listed, nor one that only adds edits to a listed candidate without saving
// more. Thread-safe: advise() touches no shared state; `cancel` may be set
// from another thread.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/DelegateTransfers.h"
#include "cost/LinkProfile.h"
#include "exec/DeviceRuntime.h"
#include "passes/ProgramEdits.h"
#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::advise {

enum class SearchMode {
  Auto,        // exhaustive when the space fits the budget, else local
  Exhaustive,  // every combination (stops at the budget, then says so)
  Local,       // local search from the file's options even when small
};

struct AdviseOptions {
  std::string method;  // "" = every method; an unknown name is an error
  // The link copies are priced on; empty name = cost::defaultLinkProfile().
  cost::LinkProfile link;
  exec::HostMemoryKind host_memory = exec::HostMemoryKind::Pageable;
  // Also offer cuda:0..devices-1 as target devices (0: only the devices the
  // program already uses).
  int devices = 0;
  // Device memory per device (planned buffers, unplanned device tensors,
  // device constants and the weights of the delegates computing there);
  // nullopt: unlimited.
  std::optional<uint64_t> device_memory;
  size_t top = 5;        // candidates listed per method; 0 = every one
  bool explain = false;  // fill MethodAdvice::rejected
  SearchMode mode = SearchMode::Auto;
  size_t max_runs = 2000;     // pipeline runs per method
  double max_seconds = 5.0;   // wall-clock per method
  // Settings of the run the file does not hold (which methods replay CUDA
  // graphs): the copies inside delegates they add are counted as copies.
  analysis::DelegateTransferOptions run_settings;
  // Set (from any thread) to stop: advise() then returns an error "cancelled".
  const std::atomic<bool>* cancel = nullptr;
};

// One delegate's new target device (only delegates whose device changes).
struct DeviceMove {
  int32_t delegate = -1;  // index in the method's delegates
  program::Device from;
  program::Device to;
  friend bool operator==(const DeviceMove&, const DeviceMove&) = default;
};

// What a candidate changes in one method, against the file.
struct CandidateEdits {
  std::string method;
  passes::DeviceOptions options;   // the method's whole options after the edit
  passes::OptionChanges changes;   // only the options that differ from the file's
  std::vector<DeviceMove> moves;   // by delegate index
  // Number of edits: changed options + moved delegates.
  size_t count() const;
  friend bool operator==(const CandidateEdits&, const CandidateEdits&) = default;
};

// Every copy of a call: et_copy instructions and the copies inside
// delegates (TensorRT staging, CUDA graph replay), which are also counted
// on their own.
struct CopyCounts {
  size_t h2d = 0, d2h = 0, d2d = 0;
  uint64_t bytes = 0;      // per call, every direction
  double seconds = 0;      // predicted per call on the link
  size_t inside_delegates = 0;         // of the copies above, those inside delegates
  uint64_t inside_delegate_bytes = 0;
  size_t total() const { return h2d + d2h + d2d; }
};

struct DeviceMemory {
  program::Device device;
  uint64_t bytes = 0;
};

struct Candidate {
  size_t rank = 0;  // 1-based within its method
  CandidateEdits edits;
  CopyCounts copies_before;  // the method as loaded
  CopyCounts copies_after;
  double predicted_saving_us = 0;  // copies_before.seconds - copies_after.seconds, in µs
  std::vector<DeviceMemory> device_memory;  // planned per device after the edit, device order
  std::vector<std::string> caller_contract; // what the caller must do, plain words
};

struct Rejection {
  CandidateEdits edits;
  std::string edits_text;  // editsText(edits)
  std::string reason;      // why, in words (the pipeline's error, the lint finding, the refusal, the memory)
};

enum class SearchKind { Exhaustive, Local };

struct MethodAdvice {
  std::string name;
  std::vector<program::Device> devices;  // target devices considered
  size_t device_delegates = 0;           // delegates whose device was searched
  CopyCounts copies_now;                 // the method as loaded
  std::vector<Candidate> candidates;     // ranked, at most AdviseOptions::top
  size_t valid_with_saving = 0;          // before the top cut and domination pruning
  // Of those, the ones a full list shows: not the same edits as a better
  // candidate plus more for no more saving (before the top cut).
  size_t distinct_with_saving = 0;
  std::vector<Rejection> rejected;       // with explain: the obvious edits that are invalid
  SearchKind search = SearchKind::Exhaustive;
  double space = 0;            // combinations in the whole space (may be huge)
  size_t pipeline_runs = 0;
  double seconds = 0;
  bool budget_reached = false; // the search stopped at max_runs / max_seconds
  // One sentence: which search, how many runs, whether the budget stopped it.
  std::string search_note;
  // No valid candidate saves copy time: the file's options are already best.
  bool file_is_best() const { return candidates.empty(); }
};

struct Advice {
  std::string link_name;
  std::string link_label;
  exec::HostMemoryKind host_memory = exec::HostMemoryKind::Pageable;
  std::vector<MethodAdvice> methods;  // program order
  size_t pipeline_runs = 0;
  double seconds = 0;
  size_t program_methods = 0;  // the program's methods, advised or not
};

// Advises every method (or options.method). Errors: unknown method, a link
// without a curve the copies need, cancelled ("cancelled").
Result<Advice> advise(const program::Program& program, const AdviseOptions& options);

// The edits of a candidate in the one edit model, built as `propagate` builds
// them from its flags (editsFromChanges + setTargetDevice), so applying them
// writes what `propagate` with propagateFlags() writes.
// What the caller of `method` must do when its inputs (skipH2dInputs) or
// outputs (skipD2hOutputs) stay on a device: one line per device, as the
// advisor lists a candidate's caller contract ("pass input 0 (%0) that
// already lives on cuda:0"); empty when no such input or output is on one.
std::vector<std::string> deviceIoDuties(const program::Method& method, bool skipH2dInputs, bool skipD2hOutputs);

Result<passes::ProgramEdits> programEdits(const program::Program& program, const CandidateEdits& edits);

// propagate's flags for the edits: {"--method", "forward", "--skip-h2d-inputs",
// "--set-device", "forward:1=cuda:0", ...}; unquoted.
std::vector<std::string> propagateFlags(const CandidateEdits& edits);
// The whole command line, shell-quoted where needed:
// "ptescope-cli propagate IN.pte -o OUT.pte --method forward --skip-h2d-inputs".
std::string propagateCommand(const std::string& input, const std::string& output, const CandidateEdits& edits);

// The edits in propagate's words, one line: "--skip-h2d-inputs
// --no-alloc-graph-input --set-device forward:1=cuda:0"; "(the file's
// options)" when empty; shell-quoted where needed ('enc ödé:0=cuda:1'), so
// they paste into propagate as they read. With nameMethod (a list of a
// program with several methods, read away from the method's heading) they
// start with "--method NAME", so pasted into propagate they edit that
// method only (its skip flags alone would edit every method).
std::string editsText(const CandidateEdits& edits, bool nameMethod = false);

}  // namespace ptescope::advise
