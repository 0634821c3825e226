#include "advise/Advise.h"

#include "program/TensorRTBlob.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "analysis/Dataflow.h"
#include "analysis/Diagnostics.h"
#include "cost/CopyCost.h"
#include "exec/MemoryBudget.h"
#include "exec/RuntimeChecks.h"
#include "passes/Pipeline.h"
#include "program/DelegatePayload.h"
#include "program/Text.h"

namespace ptescope::advise {
namespace {

using passes::DeviceOptions;
using program::Device;

constexpr double kEpsilonSeconds = 1e-12;

// The option fields in one order: name, propagate's flag when on / off.
struct OptionField {
  bool DeviceOptions::*field;
  std::optional<bool> passes::OptionChanges::*change;
  const char* on;
  const char* off;
};
const OptionField kFields[] = {
    {&DeviceOptions::skip_h2d_for_method_inputs, &passes::OptionChanges::skip_h2d_for_method_inputs,
     "--skip-h2d-inputs", "--no-skip-h2d-inputs"},
    {&DeviceOptions::skip_d2h_for_method_outputs, &passes::OptionChanges::skip_d2h_for_method_outputs,
     "--skip-d2h-outputs", "--no-skip-d2h-outputs"},
    {&DeviceOptions::enable_non_cpu_memory_planning, &passes::OptionChanges::enable_non_cpu_memory_planning,
     "--device-planning", "--no-device-planning"},
    {&DeviceOptions::alloc_graph_input, &passes::OptionChanges::alloc_graph_input, "--alloc-graph-input",
     "--no-alloc-graph-input"},
    {&DeviceOptions::alloc_graph_output, &passes::OptionChanges::alloc_graph_output, "--alloc-graph-output",
     "--no-alloc-graph-output"},
};

DeviceOptions optionsFromBits(unsigned bits) {
  DeviceOptions o;
  for (size_t i = 0; i < std::size(kFields); ++i) o.*kFields[i].field = (bits >> i) & 1U;
  return o;
}

passes::OptionChanges changesBetween(const DeviceOptions& file, const DeviceOptions& options) {
  passes::OptionChanges c;
  for (const auto& f : kFields)
    if (file.*f.field != options.*f.field) c.*f.change = options.*f.field;
  return c;
}

size_t changeCount(const passes::OptionChanges& c) {
  size_t n = 0;
  for (const auto& f : kFields) n += (c.*f.change).has_value() ? 1 : 0;
  return n;
}

std::string quoted(const std::string& word) { return program::shellWord(word); }

std::string joinList(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i == 0 ? "" : ", ") + items[i];
  return out;
}
}  // namespace

std::vector<std::string> deviceIoDuties(const program::Method& method, bool skipH2dInputs, bool skipD2hOutputs) {
  std::vector<std::string> out;
  bool planned = false;  // an output on a device is memory-planned there
  auto ioOnDevice = [&](const std::vector<int32_t>& io) {
    std::map<Device, std::vector<std::string>> byDevice;
    for (size_t p = 0; p < io.size(); ++p) {
      const int32_t v = io[p];
      if (v < 0 || size_t(v) >= program::items(method.values).size()) continue;
      if (const auto* t = (*method.values)[size_t(v)].tensor(); t && !t->device().isCpu()) {
        byDevice[t->device()].push_back(std::to_string(p) + " (%" + std::to_string(v) + ")");
        planned = planned || t->isPlanned();
      }
    }
    return byDevice;
  };
  if (skipH2dInputs)
    for (const auto& [device, list] : ioOnDevice(program::items(method.inputs)))
      out.push_back(list.size() == 1 ? "pass input " + list[0] + " that already lives on " + device.str()
                                     : "pass inputs " + joinList(list) + " that already live on " + device.str());
  if (skipD2hOutputs) {
    planned = false;
    for (const auto& [device, list] : ioOnDevice(program::items(method.outputs)))
      out.push_back(list.size() == 1
                        ? "output " + list[0] + " stays on " + device.str() + "; copy it yourself if the host needs it"
                        : "outputs " + joinList(list) + " stay on " + device.str() +
                              "; copy them yourself if the host needs them");
    // What lint then warns about (PTS002), said before the edit is applied:
    // Diagnostics gained a warning the Advisor had not named.
    if (planned)
      out.push_back("device outputs planned in device memory: you cannot set your own output buffer (lint warns: "
                    "PTS002; --no-alloc-graph-output leaves them to you)");
  }
  return out;
}

namespace {


using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// One point of the space: the method's options and the device of each
// searched delegate (an index into the devices considered).
struct State {
  unsigned bits = 0;
  std::vector<uint8_t> device;
  std::string key() const {
    std::string k(1, char('a' + bits));
    for (uint8_t d : device) k += char('0' + d);
    return k;
  }
};

struct Evaluation {
  State state;
  CandidateEdits edits;
  bool copies_known = false;    // the pipeline ran: `after` holds its copies
  bool pipeline_error = false;  // the pipeline (or its options) refused
  bool valid = false;
  std::string reason;
  CopyCounts after;
  std::vector<DeviceMemory> memory;
  std::vector<std::string> contract;
};

class MethodSearch {
 public:
  MethodSearch(const program::Program& program, const program::Method& method, const AdviseOptions& options,
               const std::vector<Device>& devices, const exec::DeviceRuntime& runtime)
      : program_(program), method_(method), options_(options), devices_(devices), runtime_(runtime) {
    name_ = method.displayName();
    file_ = passes::inferDeviceOptions(method);
    const auto& delegates = program::items(method.delegates);
    for (size_t d = 0; d < delegates.size(); ++d) {
      auto device = passes::delegateTargetDevice(delegates[d]);
      weights_.push_back(weightBytes(delegates[d]));
      if (!device || !device.value() || device.value()->isCpu()) continue;
      searched_.push_back(int32_t(d));
      fileDevice_.push_back(deviceIndex(*device.value()));
    }
    computeAdjacency();
    argBytes_.assign(delegates.size(), 0);
    for (const auto& chain : program::items(method.chains))
      for (const auto& instruction : program::items(chain.instructions))
        if (const auto* call = std::get_if<program::DelegateCall>(&instruction.data)) {
          if (call->delegate_index < 0 || size_t(call->delegate_index) >= delegates.size()) continue;
          std::set<int32_t> seen;
          for (int32_t arg : program::items(call->args)) {
            if (arg < 0 || size_t(arg) >= program::items(method.values).size() || !seen.insert(arg).second) continue;
            if (const auto* t = (*method.values)[size_t(arg)].tensor(); t && t->nbytes() > 0)
              argBytes_[size_t(call->delegate_index)] += uint64_t(t->nbytes());
          }
        }
  }

  Result<MethodAdvice> run() {
    start_ = Clock::now();
    MethodAdvice advice;
    advice.name = name_;
    advice.devices = devices_;
    advice.device_delegates = searched_.size();

    if (auto refused = kernelRefusal(); !refused.empty()) refusedAll_ = refused;

    State file{bitsOf(file_), fileDevice_};
    const Evaluation* fileEval = evaluate(file);
    if (fileEval == nullptr) return makeError("cancelled");
    if (!before_) return fileEval->copies_known || fileEval->reason.empty() ? beforeError_
                                                                            : makeError(fileEval->reason);
    advice.copies_now = *before_;

    size_t optionCombos = 0;
    for (unsigned bits = 0; bits < 32; ++bits) optionCombos += passes::validateDeviceOptions(optionsFromBits(bits)) ? 1 : 0;
    advice.space = double(optionCombos) * std::pow(double(std::max<size_t>(devices_.size(), 1)), double(searched_.size()));

    bool exhaustive = options_.mode == SearchMode::Exhaustive;
    if (options_.mode == SearchMode::Auto) {
      // About two runs per option group (see evaluateGroup) and device assignment.
      const double perRun = runs_ > 0 ? secondsSince(start_) / double(runs_) : 0.0;
      const double runs = 2.0 * 4.0 * std::pow(double(std::max<size_t>(devices_.size(), 1)), double(searched_.size()));
      exhaustive = runs <= double(options_.max_runs) && runs * perRun <= options_.max_seconds;
    }
    bool finished = exhaustive ? searchExhaustive() : searchLocal();
    if (cancelled()) return makeError("cancelled");
    // The obvious edits are tried whether or not their refusals are asked
    // for (explain): what is searched, and so the count of valid edits, the
    // candidates and the runs, never depends on what is shown.
    if (!budgetReached()) evaluateObvious();
    if (cancelled()) return makeError("cancelled");

    advice.search = exhaustive ? SearchKind::Exhaustive : SearchKind::Local;
    advice.pipeline_runs = runs_;
    advice.seconds = secondsSince(start_);
    advice.budget_reached = !finished;
    rank(advice);
    if (options_.explain) explain(advice);
    advice.search_note = searchNote(advice);
    return advice;
  }

 private:
  static uint64_t weightBytesOf(const program::DelegatePayload& payload) {
    uint64_t total = 0;
    for (const auto& n : payload.named_data)
      if (n.role == "weights_blob") total += n.size;
    return total;
  }
  uint64_t weightBytes(const program::BackendDelegate& delegate) const {
    return weightBytesOf(program::describeDelegatePayload(program_, delegate));
  }

  uint8_t deviceIndex(const Device& device) const {
    auto it = std::find(devices_.begin(), devices_.end(), device);
    return uint8_t(it - devices_.begin());
  }

  // Which searched delegates are next to each other: one reads what the
  // other writes (copies between them seen through). Only moving a delegate
  // to its neighbour's device can remove a copy.
  void computeAdjacency() {
    adjacent_.assign(searched_.size(), {});
    auto canonical = passes::canonicalValueIndices(method_);
    if (!canonical) return;
    auto canon = [&](int32_t v) { return v >= 0 && size_t(v) < canonical->size() ? (*canonical)[size_t(v)] : v; };
    std::map<int32_t, size_t> slot;  // delegate index -> position in searched_
    for (size_t i = 0; i < searched_.size(); ++i) slot[searched_[i]] = i;
    const auto flow = analysis::Dataflow::build(method_);
    std::map<int32_t, size_t> writer;  // canonical value -> searched delegate writing it
    for (const auto& facts : flow.instructions())
      if (auto it = slot.find(facts.delegate_index); it != slot.end())
        for (int32_t v : facts.outputs) writer[canon(v)] = it->second;
    for (const auto& facts : flow.instructions()) {
      auto it = slot.find(facts.delegate_index);
      if (it == slot.end()) continue;
      for (int32_t v : facts.inputs)
        if (auto w = writer.find(canon(v)); w != writer.end() && w->second != it->second) {
          adjacent_[it->second].insert(w->second);
          adjacent_[w->second].insert(it->second);
        }
    }
  }
  bool nextToDevice(const State& s, size_t i, size_t device) const {
    return std::any_of(adjacent_[i].begin(), adjacent_[i].end(), [&](size_t j) { return s.device[j] == device; });
  }

  static unsigned bitsOf(const DeviceOptions& o) {
    unsigned bits = 0;
    // The field read first: GCC 12 with -fsanitize=shift,bounds miscompiled
    // the one-expression form (every bit 0: the advisor searched the wrong
    // options in a PTESCOPE_SANITIZE build).
    for (size_t i = 0; i < std::size(kFields); ++i) {
      const bool set = o.*kFields[i].field;
      bits |= (set ? 1U : 0U) << i;
    }
    return bits;
  }

  bool cancelled() const { return options_.cancel != nullptr && options_.cancel->load(); }
  bool budgetReached() const {
    return runs_ >= options_.max_runs || secondsSince(start_) >= options_.max_seconds || cancelled();
  }

  CandidateEdits editsOf(const State& s) const {
    CandidateEdits e;
    e.method = name_;
    e.options = optionsFromBits(s.bits);
    e.changes = changesBetween(file_, e.options);
    for (size_t i = 0; i < searched_.size(); ++i)
      if (s.device[i] != fileDevice_[i]) e.moves.push_back(DeviceMove{searched_[i], devices_[fileDevice_[i]], devices_[s.device[i]]});
    return e;
  }

  // The runtime refuses a kernel call with the wrong number of arguments
  // (RT004); the passes never change kernel calls, so this holds for every
  // candidate alike.
  std::string kernelRefusal() const {
    const auto& operators = program::items(method_.operators);
    size_t flat = 0;
    for (const auto& chain : program::items(method_.chains))
      for (const auto& instruction : program::items(chain.instructions)) {
        ++flat;
        const auto* call = std::get_if<program::KernelCall>(&instruction.data);
        if (call == nullptr || call->op_index < 0 || size_t(call->op_index) >= operators.size()) continue;
        const std::string op = operators[size_t(call->op_index)].qualifiedName();
        const size_t args = program::items(call->args).size();
        if (auto expected = exec::portableSchemaArgCount(op); expected && args != *expected + 1)
          return exec::refusal(exec::runtimeCheck("RT004"),
                               "method '" + name_ + "' instruction " + std::to_string(flat - 1) + " (" + op + ")",
                               "Expected " + std::to_string(*expected + 1) + " args received " + std::to_string(args));
      }
    return {};
  }

  // The copies of `method` (of `program`): the pass report's et_copy
  // records plus the copies inside its delegates.
  Result<CopyCounts> counts(const std::vector<passes::CopyRecord>& copies, const program::Program& program,
                            const program::Method& method) const {
    auto c = counts(copies);
    if (!c) return c;
    const auto inside = analysis::delegateTransfers(program, method, options_.run_settings);
    for (const auto& t : inside.transfers) {
      auto seconds = cost::transferSeconds(options_.link, t.direction, options_.host_memory, t.bytes);
      if (!seconds) return seconds.error();
      switch (t.direction) {
        case program::CopyDirection::HostToDevice: ++c->h2d; break;
        case program::CopyDirection::DeviceToHost: ++c->d2h; break;
        default: ++c->d2d; break;
      }
      c->bytes += t.bytes;
      c->seconds += seconds.value();
      ++c->inside_delegates;
      c->inside_delegate_bytes += t.bytes;
    }
    return c;
  }

  Result<CopyCounts> counts(const std::vector<passes::CopyRecord>& copies) const {
    CopyCounts c;
    for (const auto& r : copies) {
      switch (r.direction) {
        case program::CopyDirection::HostToDevice: ++c.h2d; break;
        case program::CopyDirection::DeviceToHost: ++c.d2h; break;
        default: ++c.d2d; break;
      }
      c.bytes += uint64_t(std::max<int64_t>(r.bytes, 0));
    }
    auto seconds = cost::predictRecords(copies, options_.link, options_.host_memory);
    if (!seconds) return seconds.error();
    c.seconds = seconds.value();
    return c;
  }

  // The ids of the warnings lint gives the method as loaded (once).
  const std::set<std::string>& loadedWarnings() {
    if (!loadedWarnings_) {
      loadedWarnings_.emplace();
      for (const auto& d : analysis::lintMethod(program_, method_))
        if (d.severity == analysis::Severity::Warning) loadedWarnings_->insert(d.id);
    }
    return *loadedWarnings_;
  }
  std::optional<std::set<std::string>> loadedWarnings_;

  // The lint finding as a reason: a runtime refusal when a check names the
  // rule as its predictor.
  static std::string lintReason(const analysis::Diagnostic& d) {
    for (const auto& check : exec::runtimeChecks())
      if (check.lint_rule == d.id)
        return "the runtime refuses: " + std::string(check.refusal) + " (runtime check " + std::string(check.id) + " " +
               std::string(check.name) + "; lint " + d.id + "): " + d.message + (d.hint.empty() ? "" : "; " + d.hint);
    return "lint " + d.id + " " + d.slug + " (error): " + d.message + (d.hint.empty() ? "" : "; " + d.hint);
  }

  Result<std::vector<DeviceMemory>> deviceMemory(const program::Method& result, const State& s) const {
    auto demand = exec::methodMemoryDemand(result, runtime_, options_.host_memory);
    if (!demand) return demand.error();
    std::map<Device, uint64_t> perDevice;
    for (const auto& d : demand.value()) {
      if (d.pool == "host") continue;
      auto device = program::parseDeviceSpec(d.pool);
      if (!device) continue;
      perDevice[device.value()] = exec::saturatingAdd(
          perDevice[device.value()], exec::saturatingAdd(d.planned, exec::saturatingAdd(d.unplanned, d.constants)));
    }
    for (size_t i = 0; i < searched_.size(); ++i) {
      auto& bytes = perDevice[devices_[s.device[i]]];
      bytes = exec::saturatingAdd(bytes, weights_[size_t(searched_[i])]);
    }
    std::vector<DeviceMemory> out;
    for (const auto& [device, bytes] : perDevice) out.push_back(DeviceMemory{device, bytes});
    return out;
  }

  std::vector<std::string> contract(const program::Method& result, const CandidateEdits& e) const {
    std::vector<std::string> out = deviceIoDuties(result, e.options.skip_h2d_for_method_inputs,
                                                  e.options.skip_d2h_for_method_outputs);
    if (e.changes.alloc_graph_input == false)
      out.push_back("inputs are not memory-planned: the method works in the caller's input buffers (keep them alive "
                    "while it runs)");
    if (e.changes.alloc_graph_output == false)
      out.push_back("outputs are not memory-planned: give each output a buffer (Method::set_output_data_ptr) before "
                    "execute");
    for (const auto& m : e.moves) {
      const uint64_t weights = weights_[size_t(m.delegate)], args = argBytes_[size_t(m.delegate)];
      std::string text = "delegate " + std::to_string(m.delegate) + " computes on " + m.to.str() +
                         "; its memory: " + program::bytesText(int64_t(weights + args));
      if (weights > 0)
        text += " (weights " + program::bytesText(int64_t(weights)) + ", arguments " + program::bytesText(int64_t(args)) + ")";
      out.push_back(text);
    }
    return out;
  }

  // Evaluates a state once (memoized); nullptr only when cancelled.
  const Evaluation* evaluate(const State& s) {
    const std::string key = s.key();
    if (auto it = seen_.find(key); it != seen_.end()) return &it->second;
    if (cancelled()) return nullptr;
    Evaluation e;
    e.state = s;
    e.edits = editsOf(s);
    auto finish = [&]() -> const Evaluation* { return &seen_.emplace(key, std::move(e)).first->second; };
    if (auto valid = passes::validateDeviceOptions(e.edits.options); !valid) {
      e.reason = "upstream raises: " + valid.error().message;
      return finish();
    }
    // Legacy mode inserts no copies, but the device delegates then get
    // host-backed IO: CudaBackend rejects it (spec/device-semantics.md P13,
    // cuda_backend.cpp 521-560), the copies are not saved, only hidden.
    // TensorRTBackend stages it (TensorRTBackend.cpp 720-745, 883-900): a
    // valid candidate whose staged copies are counted like et_copy ones.
    if (!e.edits.options.enable_non_cpu_memory_planning && !refusingDelegates().empty() && e.edits.count() > 0) {
      e.reason = "legacy mode (device planning off) inserts no copies, but delegate " + refusingDelegates() +
                 " then gets host memory, which CudaBackend refuses (backends/cuda/runtime/cuda_backend.cpp "
                 "521-560): not a saving";
      return finish();
    }
    auto edits = programEdits(program_, e.edits);
    if (!edits) {
      e.reason = edits.error().message;
      return finish();
    }
    auto pipelineOptions = passes::pipelineOptionsFor(program_, edits.value());
    if (!pipelineOptions) {
      e.reason = "upstream raises: " + pipelineOptions.error().message;
      return finish();
    }
    ++runs_;
    auto result = passes::runPipeline(program_, pipelineOptions.value());
    if (!result) {
      e.pipeline_error = true;
      e.reason = "upstream's pipeline raises: " + result.error().message;
      return finish();
    }
    const passes::MethodReport* report = nullptr;
    for (const auto& r : result->report.methods)
      if (r.name == name_) report = &r;
    const program::Method* method = result->program.findMethod(name_);
    if (report == nullptr || method == nullptr) {
      e.reason = "the pipeline reported nothing for method '" + name_ + "'";
      return finish();
    }
    if (!before_) {
      auto before = counts(report->copies_before, program_, method_);
      if (!before) {
        beforeError_ = makeError("method '" + name_ + "': " + before.error().message);
        return finish();
      }
      before_ = before.value();
    }
    auto after = counts(report->copies_after, result->program, *method);
    if (!after) {
      e.reason = after.error().message;
      return finish();
    }
    e.after = after.value();
    e.copies_known = true;
    if (!refusedAll_.empty()) {
      e.reason = refusedAll_;
      return finish();
    }
    // Missing data (PTS020, PTS021) is the files', not the edit's: every
    // candidate has it as the program as loaded does.
    std::vector<std::string> brought;  // warnings the edit brings, for the caller's duties
    for (const auto& d : analysis::lintMethod(result->program, *method)) {
      if (d.severity == analysis::Severity::Error && d.id != "PTS020" && d.id != "PTS021") {
        e.reason = lintReason(d);
        return finish();
      }
      // A warning the method as loaded has not (PTS011: --skip-h2d-inputs
      // of a method whose "input" is a constant tags it in place); PTS002
      // is said by the outputs' duty already.
      if (d.severity == analysis::Severity::Warning && d.id != "PTS002" && !loadedWarnings().count(d.id))
        brought.push_back("lint warns: " + d.id + " " + d.slug + ": " + d.message);
    }
    auto memory = deviceMemory(*method, s);
    if (!memory) {
      e.reason = memory.error().message;
      return finish();
    }
    e.memory = std::move(memory.value());
    if (options_.device_memory)
      for (const auto& m : e.memory)
        if (m.bytes > *options_.device_memory) {
          e.reason = m.device.str() + " would need " + program::bytesText(int64_t(m.bytes)) +
                     " of device memory, more than the " + program::bytesText(int64_t(*options_.device_memory)) +
                     " allowed (--device-memory)";
          return finish();
        }
    e.valid = true;
    if (before_->seconds - e.after.seconds > kEpsilonSeconds) {
      e.contract = contract(*method, e.edits);
      e.contract.insert(e.contract.end(), brought.begin(), brought.end());
    }
    return finish();
  }

  // The searched delegates that refuse host memory (all but TensorRT's),
  // as "1, 3"; empty when every one stages.
  std::string refusingDelegates() const {
    std::string out;
    for (int32_t d : searched_)
      if (!program::isTensorRTBackend((*method_.delegates)[size_t(d)].id.value_or("")))
        out += (out.empty() ? "" : ", ") + std::to_string(d);
    return out;
  }

  double saving(const Evaluation& e) const { return before_ ? before_->seconds - e.after.seconds : 0.0; }

  // Better: valid, then more saving, then fewer edits.
  bool better(const Evaluation& a, const Evaluation& b) const {
    if (a.valid != b.valid) return a.valid;
    if (!a.valid) return false;
    const double sa = saving(a), sb = saving(b);
    if (std::abs(sa - sb) > kEpsilonSeconds) return sa > sb;
    return a.edits.count() < b.edits.count();
  }

  // The options are searched in groups: the two skips (which decide the
  // copies) with device planning on; legacy mode is never a saving. The
  // alloc_graph_* options reach only the memory planner, so every variant
  // of a group has the same copies: the group's answer is its first valid
  // variant, fewest changes against the file first. A group stops early when
  // its copies save nothing, or when two variants fail with the same
  // pipeline error (raised before planning, where the alloc options are not
  // read).
  static constexpr unsigned kPlanningBit = 1U << 2;
  std::vector<unsigned> groupBits(unsigned skips) const {
    const unsigned fileBits = bitsOf(file_);
    std::vector<unsigned> out;
    for (unsigned alloc = 0; alloc < 4; ++alloc) out.push_back(skips | kPlanningBit | (alloc << 3));
    std::stable_sort(out.begin(), out.end(), [&](unsigned a, unsigned b) {
      return std::popcount((a ^ fileBits) & 0x18U) < std::popcount((b ^ fileBits) & 0x18U);
    });
    return out;
  }

  // The best evaluation of a group; nullptr when cancelled or out of budget
  // before anything was evaluated.
  const Evaluation* evaluateGroup(unsigned skips, const std::vector<uint8_t>& device) {
    const Evaluation* best = nullptr;
    std::string lastError;
    for (unsigned bits : groupBits(skips)) {
      if (budgetReached()) break;
      const Evaluation* e = evaluate(State{bits, device});
      if (e == nullptr) return nullptr;
      if (best == nullptr || better(*e, *best)) best = e;
      if (e->valid) break;
      if (e->copies_known && saving(*e) <= kEpsilonSeconds) break;
      if (e->pipeline_error) {
        if (e->reason == lastError) break;
        lastError = e->reason;
      }
    }
    return best;
  }

  // Every combination; false when the budget stopped it.
  bool searchExhaustive() {
    const size_t k = std::max<size_t>(devices_.size(), 1);
    std::vector<uint8_t> odometer(searched_.size(), 0);
    while (true) {
      for (unsigned skips = 0; skips < 4; ++skips) {
        if (budgetReached()) return false;
        evaluateGroup(skips, odometer);
      }
      size_t i = 0;
      for (; i < odometer.size(); ++i) {
        if (++odometer[i] < k) break;
        odometer[i] = 0;
      }
      if (i == odometer.size()) return !budgetReached();
    }
  }

  // Hill climbing from the file's state: the option groups, all delegates
  // on one device, and whole-device moves next to a neighbour (best of them);
  // then single delegate moves next to a neighbour (first that improves).
  bool searchLocal() {
    const Evaluation* now = evaluate(State{bitsOf(file_), fileDevice_});
    if (now == nullptr) return false;
    while (true) {
      const State current = now->state;
      const Evaluation* best = now;
      auto consider = [&](const State& s) -> bool {
        if (budgetReached()) return false;
        const Evaluation* e = evaluateGroup(s.bits & 3U, s.device);
        if (e == nullptr) return false;
        if (better(*e, *best)) best = e;
        return true;
      };
      for (unsigned skips = 0; skips < 4; ++skips)
        if (!consider(State{skips, current.device})) return false;
      for (size_t to = 0; to < devices_.size(); ++to) {
        State all = current;
        std::fill(all.device.begin(), all.device.end(), uint8_t(to));
        if (!consider(all)) return false;
        for (size_t from = 0; from < devices_.size(); ++from) {
          if (from == to) continue;
          bool touches = false;  // some delegate on `from` next to one on `to`
          for (size_t i = 0; i < searched_.size() && !touches; ++i)
            touches = current.device[i] == from && nextToDevice(current, i, to);
          if (!touches) continue;
          State group = current;
          for (auto& d : group.device)
            if (d == from) d = uint8_t(to);
          if (!consider(group)) return false;
        }
      }
      if (best == now) {
        for (size_t i = 0; i < searched_.size() && best == now; ++i)
          for (size_t to = 0; to < devices_.size() && best == now; ++to) {
            if (to == current.device[i] || !nextToDevice(current, i, to)) continue;
            State single = current;
            single.device[i] = uint8_t(to);
            if (!consider(single)) return false;
          }
      }
      if (best == now) return true;
      now = best;
    }
  }

  // The obvious edits (--explain lists the refused ones): each option alone,
  // the pairs, and each delegate moved alone.
  void evaluateObvious() {
    State file{bitsOf(file_), fileDevice_};
    for (unsigned bits = 0; bits < 32; ++bits) {
      if (std::popcount(bits ^ file.bits) > 2) continue;
      if (budgetReached() || evaluate(State{bits, file.device}) == nullptr) return;
    }
    for (size_t i = 0; i < searched_.size(); ++i)
      for (size_t to = 0; to < devices_.size(); ++to) {
        if (to == file.device[i]) continue;
        State single = file;
        single.device[i] = uint8_t(to);
        if (budgetReached() || evaluate(single) == nullptr) return;
      }
  }

  static bool subsetOf(const CandidateEdits& a, const CandidateEdits& b) {
    for (const auto& f : kFields)
      if ((a.changes.*f.change).has_value() && a.changes.*f.change != b.changes.*f.change) return false;
    for (const auto& m : a.moves)
      if (std::find(b.moves.begin(), b.moves.end(), m) == b.moves.end()) return false;
    return true;
  }

  void rank(MethodAdvice& advice) const {
    std::vector<const Evaluation*> valid;
    for (const auto& [key, e] : seen_)
      if (e.valid && saving(e) > kEpsilonSeconds) valid.push_back(&e);
    advice.valid_with_saving = valid.size();
    std::sort(valid.begin(), valid.end(), [&](const Evaluation* a, const Evaluation* b) {
      const double sa = saving(*a), sb = saving(*b);
      if (std::abs(sa - sb) > kEpsilonSeconds) return sa > sb;
      if (a->edits.count() != b->edits.count()) return a->edits.count() < b->edits.count();
      return editsText(a->edits) < editsText(b->edits);
    });
    std::vector<const Evaluation*> kept;
    for (const Evaluation* e : valid) {
      // Dropped: the same edits as a listed candidate plus more, for no more saving.
      const bool dominated = std::any_of(kept.begin(), kept.end(), [&](const Evaluation* k) {
        return subsetOf(k->edits, e->edits) && saving(*k) >= saving(*e) - kEpsilonSeconds;
      });
      if (dominated) continue;
      kept.push_back(e);
      ++advice.distinct_with_saving;
      if (options_.top != 0 && advice.candidates.size() >= options_.top) continue;
      Candidate c;
      c.rank = advice.candidates.size() + 1;
      c.edits = e->edits;
      c.copies_before = *before_;
      c.copies_after = e->after;
      c.predicted_saving_us = program::toMicros(saving(*e));
      c.device_memory = e->memory;
      c.caller_contract = e->contract;
      advice.candidates.push_back(std::move(c));
    }
  }

  void explain(MethodAdvice& advice) const {
    std::vector<const Evaluation*> rejected;
    for (const auto& [key, e] : seen_)
      // Legacy mode is said once, alone; its combinations add nothing.
      if (!e.valid && e.edits.count() > 0 && e.edits.count() <= 2 &&
          (e.edits.options.enable_non_cpu_memory_planning || e.edits.count() == 1))
        rejected.push_back(&e);
    std::sort(rejected.begin(), rejected.end(), [](const Evaluation* a, const Evaluation* b) {
      if (a->edits.count() != b->edits.count()) return a->edits.count() < b->edits.count();
      return editsText(a->edits) < editsText(b->edits);
    });
    constexpr size_t kMaxRejections = 24;
    for (const Evaluation* e : rejected) {
      if (advice.rejected.size() >= kMaxRejections) break;
      // The same refusal for the same edit plus another says nothing new.
      const bool repeated = std::any_of(advice.rejected.begin(), advice.rejected.end(), [&](const Rejection& r) {
        return r.reason == e->reason && subsetOf(r.edits, e->edits);
      });
      if (!repeated) advice.rejected.push_back(Rejection{e->edits, editsText(e->edits), e->reason});
    }
  }

  std::string searchNote(const MethodAdvice& advice) const {
    const std::string runs = std::to_string(advice.pipeline_runs) + " pipeline run" + (advice.pipeline_runs == 1 ? "" : "s");
    // A count past a million is read by its size ("3.4 × 10^11"), not
    // as twelve digits to count ("343597383680").
    std::string space = "more than 10^15";
    if (std::isfinite(advice.space) && advice.space < 1e6) {
      space = std::to_string(uint64_t(advice.space));
    } else if (std::isfinite(advice.space) && advice.space < 1e15) {
      int exponent = int(std::floor(std::log10(advice.space)));
      double scaled = advice.space / std::pow(10.0, exponent);
      if (scaled >= 9.95) scaled /= 10, ++exponent;  // "1.0 × 10^7", not "10.0 × 10^6"
      char mantissa[16];
      std::snprintf(mantissa, sizeof mantissa, "%.1f", scaled);
      space = std::string(mantissa) + " \u00d7 10^" + std::to_string(exponent);
    }
    std::string note;
    if (advice.search == SearchKind::Exhaustive)
      note = "exhaustive search: " + space + " combinations, " + runs;
    else
      note = "local search from the file's options (searching all " + space + " combinations would exceed the budget of " +
             std::to_string(options_.max_runs) + " runs or " + program::shortText(options_.max_seconds) + " s): " + runs;
    if (advice.budget_reached) note += "; stopped at the budget, a better edit may exist";
    return note;
  }

  const program::Program& program_;
  const program::Method& method_;
  const AdviseOptions& options_;
  const std::vector<Device>& devices_;
  const exec::DeviceRuntime& runtime_;
  std::string name_;
  DeviceOptions file_;
  std::vector<int32_t> searched_;     // delegate indices whose device is searched
  std::vector<uint8_t> fileDevice_;   // their devices in the file (index into devices_)
  std::vector<uint64_t> weights_;     // by delegate index
  std::vector<uint64_t> argBytes_;    // by delegate index
  std::vector<std::set<size_t>> adjacent_;  // by position in searched_
  std::string refusedAll_;
  std::optional<CopyCounts> before_;
  Error beforeError_{"no pipeline run"};
  std::map<std::string, Evaluation> seen_;
  size_t runs_ = 0;
  Clock::time_point start_;
};

// A runtime that only names memory pools, one per device (the base class's
// rule), so that exec::methodMemoryDemand adds up each device apart. It
// allocates nothing: the advisor runs nothing.
class PoolsOnly final : public exec::DeviceRuntime {
 public:
  std::string name() const override { return "memory pools (advise)"; }
  bool isEmulated() const override { return true; }
  Status checkDevice(program::Device) const override { return Ok{}; }
  Result<void*> allocateDevice(size_t, program::Device) override { return refuse(); }
  void freeDevice(void*, program::Device) override {}
  Result<void*> allocateHost(size_t, exec::HostMemoryKind) override { return refuse(); }
  void freeHost(void*, exec::HostMemoryKind) override {}
  Result<exec::CopyTiming> copy(void*, const void*, size_t, program::CopyDirection, program::Device) override {
    return makeError("the advisor copies nothing");
  }
  Status fill(void*, const exec::MemoryPlace&, uint8_t, size_t) override { return makeError("the advisor fills nothing"); }

 private:
  static Result<void*> refuse() { return makeError("the advisor allocates nothing"); }
};

// The target devices to consider: every non-CPU device a delegate of the
// program targets, and cuda:0..n-1.
std::vector<Device> devicesOf(const program::Program& program, int n) {
  std::set<Device> devices;
  for (const auto& m : program.methods())
    for (const auto& d : program::items(m.delegates))
      if (auto device = passes::delegateTargetDevice(d); device && device.value() && !device.value()->isCpu())
        devices.insert(*device.value());
  for (int i = 0; i < n && i < 128; ++i) devices.insert(Device{program::DeviceType::Cuda, int8_t(i)});
  return {devices.begin(), devices.end()};
}

// The program with only `method`: the pipeline works per method, so the
// search runs on this and spends nothing on the others.
program::Program onlyMethod(const program::Program& program, const program::Method& method) {
  program::Program copy;
  copy.version = program.version;
  copy.constant_buffer = program.constant_buffer;
  copy.backend_delegate_data = program.backend_delegate_data;
  copy.segments = program.segments;
  copy.constant_segment = program.constant_segment;
  copy.mutable_data_segments = program.mutable_data_segments;
  copy.named_data = program.named_data;
  copy.external_data = program.external_data;
  copy.raw_strings = program.raw_strings;
  copy.execution_plan = std::vector<program::Method>{method};
  return copy;
}

}  // namespace

size_t CandidateEdits::count() const { return changeCount(changes) + moves.size(); }

Result<passes::ProgramEdits> programEdits(const program::Program& program, const CandidateEdits& edits) {
  auto out = passes::editsFromChanges(program, passes::OptionBase::File, edits.changes, edits.method);
  if (!out) return out.error();
  for (const auto& m : edits.moves)
    if (auto set = passes::setTargetDevice(out.value(), program, edits.method, m.delegate, m.to); !set)
      return set.error();
  return out;
}

std::vector<std::string> propagateFlags(const CandidateEdits& edits) {
  std::vector<std::string> flags{"--method", edits.method};
  for (const auto& f : kFields)
    if (auto value = edits.changes.*f.change) flags.push_back(*value ? f.on : f.off);
  for (const auto& m : edits.moves) {
    flags.push_back("--set-device");
    flags.push_back(edits.method + ":" + std::to_string(m.delegate) + "=" + m.to.str());
  }
  return flags;
}

std::string propagateCommand(const std::string& input, const std::string& output, const CandidateEdits& edits) {
  std::string out = "ptescope-cli propagate " + quoted(input) + " -o " + quoted(output);
  for (const auto& flag : propagateFlags(edits)) out += " " + quoted(flag);
  return out;
}

std::string editsText(const CandidateEdits& edits, bool nameMethod) {
  std::string out;
  const auto flags = propagateFlags(edits);
  for (size_t i = 2; i < flags.size(); ++i) out += (out.empty() ? "" : " ") + quoted(flags[i]);
  if (out.empty()) return "(the file's options)";
  return nameMethod ? "--method " + quoted(edits.method) + " " + out : out;
}

Result<Advice> advise(const program::Program& program, const AdviseOptions& options) {
  if (!options.method.empty() && program.findMethod(options.method) == nullptr)
    return makeError("no method named '" + options.method + "'");
  if (options.devices < 0 || options.devices > 128) return makeError("--devices takes 0..128");
  AdviseOptions resolved = options;
  if (resolved.link.curves.empty()) resolved.link = cost::defaultLinkProfile();
  if (resolved.link.curves.empty()) return makeError("this build has no built-in link profile");
  const PoolsOnly runtime;

  Advice advice;
  advice.link_name = resolved.link.name;
  advice.link_label = resolved.link.label();
  advice.host_memory = resolved.host_memory;
  advice.program_methods = program.methods().size();
  const auto start = Clock::now();
  const std::vector<Device> devices = devicesOf(program, resolved.devices);
  for (const auto& method : program.methods()) {
    if (!resolved.method.empty() && method.displayName() != resolved.method) continue;
    const program::Program single = onlyMethod(program, method);
    MethodSearch search(single, single.methods()[0], resolved, devices, runtime);
    auto result = search.run();
    if (!result) return result.error();
    advice.pipeline_runs += result->pipeline_runs;
    advice.methods.push_back(std::move(result.value()));
  }
  advice.seconds = secondsSince(start);
  return advice;
}

}  // namespace ptescope::advise
