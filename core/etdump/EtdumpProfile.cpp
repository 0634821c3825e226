#include "etdump/EtdumpProfile.h"

#include "exec/CopyIdentity.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "analysis/Dataflow.h"
#include "passes/DevicePasses.h"
#include "program/Text.h"

namespace ptescope::etdump {

namespace {

constexpr const char* kDefaultBlock = "Default";
constexpr const char* kExecuteBlock = "Execute";
constexpr const char* kNativeCallPrefix = "native_call_";

double gigabytesPerSecond(uint64_t bytes, double seconds) { return seconds > 0 ? double(bytes) / seconds / 1e9 : 0.0; }

double median(std::vector<double> samples) { return exec::TimingStats::of(std::move(samples)).median; }

// What one method's program knows of its instructions, built once.
struct MethodFacts {
  const program::Method* method = nullptr;
  analysis::Dataflow flow;
  std::vector<std::string> nativeNames;  // per flat instruction ("" when not a KernelCall)
  std::vector<Category> categories;
  std::vector<std::string> delegateLanes;

  explicit MethodFacts(const program::Method& m) : method(&m), flow(analysis::Dataflow::build(m)) {
    const auto& ops = program::items(m.operators);
    const auto& delegates = program::items(m.delegates);
    for (const auto& f : flow.instructions()) {
      std::string native;
      Category category = Category::Other;
      std::string lane;
      if (f.kind == program::InstructionKind::KernelCall) {
        category = f.is_h2d_copy || f.is_d2h_copy ? Category::Copy : Category::CpuKernel;
        if (f.op_index >= 0 && size_t(f.op_index) < ops.size()) native = nativeCallName(ops[size_t(f.op_index)]);
      } else if (f.kind == program::InstructionKind::DelegateCall) {
        category = Category::Delegate;
        lane = "delegates on cpu";
        if (f.delegate_index >= 0 && size_t(f.delegate_index) < delegates.size()) {
          auto device = passes::delegateTargetDevice(delegates[size_t(f.delegate_index)]);
          if (device && device.value()) lane = "delegates on " + device.value()->str();
        }
      }
      nativeNames.push_back(std::move(native));
      categories.push_back(category);
      delegateLanes.push_back(std::move(lane));
    }
  }
};

std::string laneOf(const MethodFacts& facts, size_t flat) {
  const auto& f = facts.flow.instructions()[flat];
  if (f.is_h2d_copy) return program::copyDirectionName(program::CopyDirection::HostToDevice) + " copies";
  if (f.is_d2h_copy) return program::copyDirectionName(program::CopyDirection::DeviceToHost) + " copies";
  if (f.kind == program::InstructionKind::DelegateCall) return facts.delegateLanes[flat];
  return "CPU kernels";
}

// The instruction's stats being collected, with per-iteration sums.
struct Collector {
  InstructionStats stats;
  bool seen = false;
  std::map<std::pair<int32_t, std::string>, size_t> delegateIndex;
};

struct MethodCollector {
  MethodStats stats;
  std::vector<Collector> byInstruction;  // by flat index
  std::vector<double> runSamples, loadSamples;
  std::vector<double> transferSums;
};

bool fitsKind(const std::string& name, program::InstructionKind kind) {
  using K = program::InstructionKind;
  if (name == "OPERATOR_CALL") return kind == K::KernelCall;
  if (name == "DELEGATE_CALL") return kind == K::DelegateCall;
  if (name == "JF_CALL") return kind == K::JumpFalseCall;
  if (name == "MOVE_CALL") return kind == K::MoveCall;
  if (name == "FREE_CALL") return kind == K::FreeCall;
  return false;
}

bool isInstructionScope(const std::string& name) {
  return name == "OPERATOR_CALL" || name == "DELEGATE_CALL" || name == "JF_CALL" || name == "MOVE_CALL" ||
         name == "FREE_CALL";
}

// Why the program output logged `index`-th in a block cannot be output
// `index` of `method`: another dtype, rank or size (a dynamic dimension may
// be smaller than its bound, an unbound one anything); empty when it fits
// or cannot be compared (not a tensor on either side).
std::string programOutputMismatch(const program::Method& method, size_t index, const DebugEvent& logged, size_t block) {
  const auto& outputs = program::items(method.outputs);
  if (!logged.value || logged.value->kind != DebugValue::Kind::Tensor || logged.value->tensors.size() != 1) return {};
  const std::string where = "output " + std::to_string(index) + " of method '" + method.displayName() + "' (block " +
                            std::to_string(block) + ")";
  if (index >= outputs.size())
    return where + " is logged, but the method has " + std::to_string(outputs.size()) + " output(s)";
  const int32_t v = outputs[index];
  const auto& values = program::items(method.values);
  const program::Tensor* t = v >= 0 && size_t(v) < values.size() ? values[size_t(v)].tensor() : nullptr;
  if (t == nullptr) return {};
  const DebugTensor& d = logged.value->tensors.front();
  const auto& sizes = program::items(t->sizes);
  bool fits = int(d.scalar_type) == int(t->scalar_type) && d.sizes.size() == sizes.size();
  for (size_t k = 0; fits && k < sizes.size(); ++k) {
    switch (t->shape_dynamism) {
      case program::ShapeDynamism::Static: fits = d.sizes[k] == sizes[k]; break;
      case program::ShapeDynamism::DynamicBound: fits = d.sizes[k] >= 0 && d.sizes[k] <= sizes[k]; break;
      case program::ShapeDynamism::DynamicUnbound: fits = d.sizes[k] >= 0; break;
    }
  }
  if (fits) return {};
  const std::vector<int64_t> programSizes(sizes.begin(), sizes.end());
  return where + " is " + program::tensorTypeText(program::ScalarType(d.scalar_type), d.sizes) + " in the trace but " +
         program::tensorTypeText(t->scalar_type, programSizes) + " in the program";
}

std::string eventText(const ProfileEvent& e, size_t block) {
  return "'" + e.displayName() + "' (chain " + std::to_string(e.chain_index) + ", instruction " +
         std::to_string(e.instruction_id) + ") in block " + std::to_string(block);
}

}  // namespace

std::string nativeCallName(const program::Operator& op) {
  std::string name = op.name ? *op.name : std::string();
  if (auto colon = name.rfind("::"); colon != std::string::npos) name = name.substr(colon + 2);
  if (op.overload && !op.overload->empty()) name += "." + *op.overload;
  return kNativeCallPrefix + name;
}

std::string categoryName(Category category) {
  switch (category) {
    case Category::Copy: return "copy";
    case Category::Delegate: return "delegate";
    case Category::CpuKernel: return "cpu_kernel";
    case Category::Other: return "other";
  }
  return "other";
}

const MethodStats* EtdumpAnalysis::find(const std::string& method) const {
  for (const auto& m : methods)
    if (m.method == method) return &m;
  return nullptr;
}

std::string EtdumpAnalysis::warning() const {
  const Misfits& m = misfits;
  const std::string fast = implausible.empty() ? std::string()
                                               : "copies faster than any host-device link (first: " + implausible +
                                                     "): is this the trace of a program with smaller tensors, or is the tick length wrong?";
  if (m.total() == 0 && m.unknown == 0 && m.unattributed_blocks == 0) return fast;
  std::vector<std::string> parts;
  if (m.out_of_range) parts.push_back(std::to_string(m.out_of_range) + " with an out-of-range instruction id");
  if (m.kind_mismatch) parts.push_back(std::to_string(m.kind_mismatch) + " on an instruction of another kind");
  if (m.name_mismatch) parts.push_back(std::to_string(m.name_mismatch) + " naming another operator");
  if (m.unknown) parts.push_back(std::to_string(m.unknown) + " of an unknown kind");
  if (m.unattributed_blocks)
    parts.push_back(std::to_string(m.unattributed_events) + " in " + program::countText(m.unattributed_blocks, "block") +
                    " attributed to no method");
  std::string text = "events that do not fit the program were left out: ";
  for (size_t i = 0; i < parts.size(); ++i) text += (i ? ", " : "") + parts[i];
  text += " (" + std::to_string(m.matched) + " fit)";
  if (!m.example.empty()) text += "; first: " + m.example;
  return fast.empty() ? text : text + "; " + fast;
}

Result<EtdumpAnalysis> analyzeEtdump(const Etdump& dump, const program::Program& program, const AnalysisOptions& options) {
  if (!options.scale.valid()) return makeError("the tick length must be a positive number of nanoseconds");
  const auto& methods = program.methods();
  if (methods.empty()) return makeError("the program has no method");
  std::vector<int> named;
  for (const auto& name : options.methods) {
    const auto* m = program.findMethod(name);
    if (m == nullptr) return makeError("no method named '" + name + "' in the program");
    named.push_back(int(m - methods.data()));
  }

  EtdumpAnalysis analysis;
  analysis.scale = options.scale;
  analysis.profile_events = dump.profileEventCount();
  analysis.debug_events = dump.debugEventCount();
  analysis.allocation_events = dump.allocationEventCount();

  // 1. Blocks to methods.
  size_t loads = 0;
  for (const auto& b : dump.blocks) loads += b.name == kDefaultBlock ? 1 : 0;
  // One load in a program of several methods: what executor_runner writes
  // for --method_name, and the trace does not say which. The method is the
  // one every event fits, not the first by position.
  if (named.empty() && loads == 1 && methods.size() > 1) {
    std::vector<std::pair<std::string, EtdumpAnalysis>> fitting;
    for (const auto& m : methods) {
      AnalysisOptions one = options;
      one.methods = {m.displayName()};
      auto attempt = analyzeEtdump(dump, program, one);
      if (attempt && attempt->misfits.total() == 0 && attempt->misfits.matched > 0)
        fitting.emplace_back(m.displayName(), std::move(attempt.value()));
    }
    if (!fitting.empty()) {
      EtdumpAnalysis chosen = std::move(fitting.front().second);
      std::string names;
      for (const auto& [name, unused] : fitting) names += (names.empty() ? "'" : ", '") + name + "'";
      chosen.attribution_rule =
          fitting.size() == 1
              ? "one load_method in the trace, which does not name its method; every event fits method " + names +
                    " only, so every block belongs to it"
              : "one load_method in the trace, which does not name its method; every event fits methods " + names +
                    ": taken as '" + fitting.front().first + "' (name the method to choose another)";
      return chosen;
    }
  }
  const int fallback = [&] {
    const auto* forward = program.findMethod("forward");
    return forward ? int(forward - methods.data()) : 0;
  }();
  if (named.size() == 1) {
    analysis.attribution_rule = "every block belongs to method '" + options.methods.front() + "' (as given)";
  } else if (named.size() > 1) {
    if (named.size() != loads)
      return makeError("the method list names " + std::to_string(named.size()) + " loads but the trace has " +
                       program::countText(loads, "\"Default\" (load_method) block"));
    analysis.attribution_rule = "\"Default\" blocks are the loads of the given methods in order; each \"Execute\" block belongs to the latest load";
  } else {
    analysis.attribution_rule =
        "the k-th \"Default\" block is the load of the program's k-th method; each \"Execute\" block belongs to the latest load";
  }
  {
    int current = named.size() == 1 ? named.front() : -1;
    size_t load = 0;
    for (size_t i = 0; i < dump.blocks.size(); ++i) {
      const auto& b = dump.blocks[i];
      BlockAttribution a;
      a.block = i;
      a.name = b.name;
      if (named.size() == 1) {
        a.method = named.front();
      } else if (b.name == kDefaultBlock) {
        const size_t k = load++;
        current = named.empty() ? (k < methods.size() ? int(k) : -1) : named[k];
        a.method = current;
      } else if (b.name == kExecuteBlock) {
        a.method = current >= 0 ? current : (load == 0 ? fallback : -1);
      }
      if (a.method >= 0) a.method_name = methods[size_t(a.method)].displayName();
      analysis.blocks.push_back(a);
    }
  }

  // 2. Events to instructions.
  uint64_t origin = UINT64_MAX;
  for (const auto& b : dump.blocks)
    for (const auto& e : b.events)
      if (const auto* p = std::get_if<ProfileEvent>(&e)) origin = std::min(origin, p->start_ticks);
  if (origin == UINT64_MAX) origin = 0;
  const TickScale scale = options.scale;
  auto since = [&](uint64_t ticks) { return scale.seconds(ticks >= origin ? ticks - origin : 0); };

  std::map<int, std::unique_ptr<MethodFacts>> factsOf;
  std::map<int, MethodCollector> collectors;
  Misfits& misfits = analysis.misfits;
  auto misfit = [&](size_t& counter, const ProfileEvent& e, size_t block, const std::string& why) {
    ++counter;
    if (misfits.example.empty()) misfits.example = eventText(e, block) + " " + why;
  };

  // The first program output whose logged tensor is not the program's
  // (another dtype, rank or size): the trace of a program with other shapes.
  std::string outputMismatch;
  for (size_t bi = 0; bi < dump.blocks.size(); ++bi) {
    const RunData& block = dump.blocks[bi];
    const int m = analysis.blocks[bi].method;
    if (m < 0) {
      ++misfits.unattributed_blocks;
      misfits.unattributed_events += block.events.size();
      continue;
    }
    auto& factsPtr = factsOf[m];
    if (!factsPtr) factsPtr = std::make_unique<MethodFacts>(methods[size_t(m)]);
    const MethodFacts& facts = *factsPtr;
    MethodCollector& mc = collectors[m];
    if (mc.byInstruction.empty()) mc.byInstruction.resize(facts.flow.instructionCount());
    if (mc.stats.trace.empty()) mc.stats.trace.reserve(analysis.profile_events);
    mc.stats.method = methods[size_t(m)].displayName();
    mc.stats.method_index = m;
    const bool execute = block.name != kDefaultBlock;
    const size_t iteration = mc.stats.iterations;
    if (execute) {
      ++mc.stats.iterations;
    } else {
      ++mc.stats.loads;
    }
    double transferSum = 0;
    double blockStart = -1;
    const size_t traceBegin = mc.stats.trace.size();
    const uint32_t chainCount = uint32_t(program::items(facts.method->chains).size());

    size_t outputLogged = 0;  // program outputs logged in this block, in output order
    for (const Event& event : block.events) {
      if (const auto* debug = std::get_if<DebugEvent>(&event)) {
        ++mc.stats.debug_events;
        if (debug->isProgramOutput() && outputMismatch.empty())
          outputMismatch = programOutputMismatch(*facts.method, outputLogged, *debug, bi);
        if (debug->isProgramOutput()) ++outputLogged;
        continue;
      }
      if (std::holds_alternative<AllocationEvent>(event)) {
        ++mc.stats.allocation_events;
        continue;
      }
      const ProfileEvent& e = std::get<ProfileEvent>(event);
      const double seconds = scale.seconds(e.durationTicks());
      TraceSlice slice;
      slice.iteration = execute ? iteration : 0;
      slice.block = bi;
      slice.load = !execute;
      slice.name = e.displayName();
      slice.start_seconds = since(e.start_ticks);
      slice.seconds = seconds;

      if (e.isFrameworkEvent()) {
        slice.lane = "method";
        if (e.name == "Method::execute") {
          mc.runSamples.push_back(seconds);
          blockStart = blockStart < 0 ? slice.start_seconds : std::min(blockStart, slice.start_seconds);
        } else if (e.name == "Program::load_method") {
          mc.loadSamples.push_back(seconds);
        } else {
          slice.nested = e.name == "Method::init";
        }
        mc.stats.trace.push_back(std::move(slice));
        continue;
      }

      std::optional<size_t> flat;
      if (e.chain_index >= 0 && uint32_t(e.chain_index) < chainCount && e.instruction_id >= 0)
        flat = facts.flow.flatIndex(uint32_t(e.chain_index), uint32_t(e.instruction_id));
      if (!flat) {
        misfit(misfits.out_of_range, e, bi, "is not an instruction of method '" + mc.stats.method + "'");
        continue;
      }
      const auto& f = facts.flow.instructions()[*flat];
      Collector& c = mc.byInstruction[*flat];
      if (!c.seen) {
        c.seen = true;
        c.stats.instruction = *flat;
        c.stats.kind = f.kind;
        c.stats.label = f.label;
        c.stats.category = facts.categories[*flat];
        c.stats.is_copy = f.is_h2d_copy || f.is_d2h_copy;
        if (c.stats.is_copy) {
          c.stats.direction = f.is_h2d_copy ? program::CopyDirection::HostToDevice : program::CopyDirection::DeviceToHost;
          const auto& instr = program::items(program::items(facts.method->chains)[f.chain].instructions)[f.index_in_chain];
          if (const auto* call = std::get_if<program::KernelCall>(&instr.data); call && call->args && call->args->size() >= 2) {
            c.stats.source_value = call->args->front();
            c.stats.destination_value = call->args->back();
          }
          const auto& values = program::items(facts.method->values);
          auto tensorAt = [&](int32_t v) -> const program::Tensor* {
            return v >= 0 && size_t(v) < values.size() ? values[size_t(v)].tensor() : nullptr;
          };
          if (const auto* src = tensorAt(c.stats.source_value)) c.stats.bytes = uint64_t(std::max<int64_t>(src->nbytes(), 0));
          const auto* deviceSide = tensorAt(f.is_h2d_copy ? c.stats.destination_value : c.stats.source_value);
          if (deviceSide) c.stats.device = deviceSide->device();
        }
      }
      slice.instruction = int64_t(*flat);
      slice.lane = laneOf(facts, *flat);

      if (e.isDelegateEvent() || (f.kind == program::InstructionKind::DelegateCall && !isInstructionScope(e.name))) {
        if (f.kind != program::InstructionKind::DelegateCall) {
          misfit(misfits.kind_mismatch, e, bi, "is a delegate event on " + f.label);
          continue;
        }
        const auto key = std::make_pair(e.delegate_debug_id_int, e.delegate_debug_id_str.empty() ? e.name : e.delegate_debug_id_str);
        auto [it, inserted] = c.delegateIndex.emplace(key, c.stats.delegate_events.size());
        if (inserted) {
          DelegateEventStats d;
          d.name = e.displayName();
          d.id_int = e.delegate_debug_id_int;
          d.id_str = e.delegate_debug_id_str;
          c.stats.delegate_events.push_back(std::move(d));
        }
        c.stats.delegate_events[it->second].samples.push_back(seconds);
        ++misfits.matched;
        slice.nested = true;
        mc.stats.trace.push_back(std::move(slice));
        continue;
      }
      if (isInstructionScope(e.name)) {
        if (!fitsKind(e.name, f.kind)) {
          misfit(misfits.kind_mismatch, e, bi, "sits on " + f.label);
          continue;
        }
        ++misfits.matched;
        c.stats.samples.push_back(seconds);
        mc.stats.trace.push_back(std::move(slice));
        continue;
      }
      if (e.name.rfind(kNativeCallPrefix, 0) == 0) {
        if (f.kind != program::InstructionKind::KernelCall || e.name != facts.nativeNames[*flat]) {
          misfit(misfits.name_mismatch, e, bi, "sits on " + f.label);
          continue;
        }
        ++misfits.matched;
        if (c.stats.is_copy) {
          c.stats.copy_samples.push_back(seconds);
          transferSum += seconds;
          slice.bytes = c.stats.bytes;
        }
        slice.nested = true;
        mc.stats.trace.push_back(std::move(slice));
        continue;
      }
      if (e.name == "Method::step") continue;
      misfit(misfits.unknown, e, bi, "is of an unknown kind");
    }
    // Events are stored in the order they ended; the trace wants starts.
    // (Sorting keys, then moving each slice once: slices are large.)
    {
      auto& trace = mc.stats.trace;
      std::vector<std::pair<double, size_t>> keys;
      keys.reserve(trace.size() - traceBegin);
      for (size_t k = traceBegin; k < trace.size(); ++k) keys.emplace_back(trace[k].start_seconds, k);
      std::stable_sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      std::vector<TraceSlice> sorted;
      sorted.reserve(keys.size());
      for (const auto& key : keys) sorted.push_back(std::move(trace[key.second]));
      std::move(sorted.begin(), sorted.end(), trace.begin() + std::ptrdiff_t(traceBegin));
    }
    if (execute) {
      mc.transferSums.push_back(transferSum);
      mc.stats.iteration_starts.push_back(blockStart >= 0 ? blockStart
                                          : mc.stats.trace.size() > traceBegin ? mc.stats.trace[traceBegin].start_seconds
                                                                               : 0.0);
    }
  }

  // 3. Does the trace describe this program at all? A trace of this very
  // file fits entirely; a quarter or more misfitting is another program.
  // An instruction id past the method's last instruction is never the
  // runtime's for this program: the trace ran a longer one (the program
  // before the edits that removed a copy, say), whatever else fits.
  const size_t instructionEvents = misfits.matched + misfits.total();
  if (instructionEvents > 0 &&
      (misfits.matched == 0 || misfits.total() * 4 >= instructionEvents || misfits.out_of_range > 0)) {
    std::string what = std::to_string(misfits.total()) + " of " + std::to_string(instructionEvents) +
                       " instruction events do not fit it";
    return makeError("the ETDump does not describe this program" +
                     std::string(options.methods.empty() ? "" : " (or not these methods)") + ": " + what + "; first: " +
                     misfits.example);
  }
  if (collectors.empty()) return makeError("no block of the ETDump could be attributed to a method of the program");
  // A debug trace logs each program output at the end of every run (upstream
  // Method::execute, event_tracer_log_evalue_output): a lookalike program
  // with other tensor sizes fits event for event but not there.
  if (!outputMismatch.empty())
    return makeError("the ETDump does not describe this program" +
                     std::string(options.methods.empty() ? "" : " (or not these methods)") + ": " + outputMismatch);
  // A trace that covers only part of a method is another program's (a
  // shorter one's events fit this one's first instructions): upstream's
  // Method::execute_instruction opens an OPERATOR_CALL / DELEGATE_CALL scope
  // around every kernel and delegate call it runs, so when a method's runs
  // were traced at that level and nothing jumps (a jump may skip
  // instructions), each of them has an event in every run.
  for (const auto& [index, mc] : collectors) {
    if (mc.stats.iterations == 0) continue;
    const MethodFacts& facts = *factsOf.at(index);
    bool jumps = false, traced = false;
    for (size_t i = 0; i < mc.byInstruction.size(); ++i) {
      jumps = jumps || facts.flow.instructions()[i].kind == program::InstructionKind::JumpFalseCall;
      traced = traced || !mc.byInstruction[i].stats.samples.empty();
    }
    if (jumps || !traced) continue;
    size_t calls = 0, missing = 0;
    std::string first;
    for (size_t i = 0; i < mc.byInstruction.size(); ++i) {
      const auto& f = facts.flow.instructions()[i];
      if (f.kind != program::InstructionKind::KernelCall && f.kind != program::InstructionKind::DelegateCall) continue;
      ++calls;
      if (!mc.byInstruction[i].stats.samples.empty()) continue;
      if (missing++ == 0) first = "#" + std::to_string(i) + " " + f.label;
    }
    if (missing > 0)
      return makeError("the ETDump does not describe this program" +
                       std::string(options.methods.empty() ? "" : " (or not these methods)") + ": " +
                       std::to_string(missing) + " of the " + std::to_string(calls) + " kernel and delegate calls of method '" +
                       mc.stats.method + "' have no event in any of its " + std::to_string(mc.stats.iterations) +
                       " run(s), though the runtime traces every call it makes; first: " + first);
  }

  // 4. Statistics.
  for (auto& [index, mc] : collectors) {
    MethodStats& s = mc.stats;
    const size_t n = std::max<size_t>(s.iterations, 1);
    for (Collector& c : mc.byInstruction) {
      if (!c.seen) continue;
      InstructionStats& i = c.stats;
      i.seconds = exec::TimingStats::of(i.samples);
      i.executions_per_iteration = i.samples.size() / n;
      if (i.is_copy) {
        if (i.copy_samples.empty()) i.copy_samples = i.samples;
        i.copy_seconds = exec::TimingStats::of(i.copy_samples);
        i.gbps = gigabytesPerSecond(i.bytes, i.copy_seconds.median);
        i.best_gbps = gigabytesPerSecond(i.bytes, i.copy_seconds.min);
        // Faster than any host-device link (PCIe Gen5 x16 about 64 GB/s,
        // NVLink-C2C 900 GB/s): the trace of a program with smaller tensors
        // (a trace without debug events records no size), or a wrong tick.
        if (i.direction != program::CopyDirection::DeviceToDevice && i.gbps > kFastestHostLinkGbps &&
            analysis.implausible.empty())
          analysis.implausible = "#" + std::to_string(i.instruction) + " " + program::copyDirectionName(i.direction) + " of " +
                                 program::bytesText(int64_t(i.bytes)) + " at " + std::to_string(int64_t(std::llround(i.gbps))) +
                                 " GB/s in method '" + s.method + "'";
      }
      for (auto& d : i.delegate_events) {
        d.seconds = exec::TimingStats::of(d.samples);
        d.executions_per_iteration = d.samples.size() / n;
      }
      s.instructions.push_back(std::move(i));
    }
    s.run_seconds = exec::TimingStats::of(mc.runSamples);
    s.load_seconds = exec::TimingStats::of(mc.loadSamples);
    // Per iteration: each instruction's median times its executions per
    // iteration, summed, as the time breakdown of every profile sums them
    // (the report printed the median of per-iteration sums beside it:
    // delegates "2.7%" in one line and "2.8%" in the next).
    s.copy_seconds = s.delegate_seconds = s.kernel_seconds = s.other_seconds = 0;
    for (const auto& i : s.instructions) {
      const double perIteration = i.seconds.median * double(std::max<size_t>(i.executions_per_iteration, 1));
      switch (i.category) {
        case Category::Copy: s.copy_seconds += perIteration; break;
        case Category::Delegate: s.delegate_seconds += perIteration; break;
        case Category::CpuKernel: s.kernel_seconds += perIteration; break;
        case Category::Other: s.other_seconds += perIteration; break;
      }
    }
    // Copies with no kernel event count their OPERATOR_CALL as the transfer.
    {
      std::vector<double> sums(mc.transferSums.size(), 0.0);
      for (const auto& i : s.instructions)
        if (i.is_copy)
          for (size_t k = 0; k < i.copy_samples.size(); ++k)
            if (i.executions_per_iteration > 0) sums[std::min(k / i.executions_per_iteration, sums.size() - 1)] += i.copy_samples[k];
      s.copy_transfer_seconds = sums.empty() ? 0 : median(sums);
    }
    const double run = s.run_seconds.median;
    if (run > 0) {
      s.copy_share = s.copy_seconds / run;
      s.delegate_share = s.delegate_seconds / run;
      s.kernel_share = s.kernel_seconds / run;
    }
    analysis.methods.push_back(std::move(s));
  }
  return analysis;
}

exec::TransferProfile toTransferProfile(const MethodStats& method, const program::Program& program,
                                        const std::string& programName, size_t timelineIterations) {
  exec::TransferProfile p;
  p.program_name = programName;
  p.method = method.method;
  p.runtime = kEtdumpSource;
  p.emulated = false;
  p.requested_iterations = method.iterations;
  p.iterations = method.iterations;
  p.peak.note = "an ETDump holds no link peak";

  const auto* shown = program.findMethod(method.method);

  std::vector<double> h2dSums(method.iterations, 0.0), d2hSums(method.iterations, 0.0);
  for (const auto& i : method.instructions) {
    exec::InstructionProfile ip;
    ip.instruction = i.instruction;
    ip.kind = i.kind;
    ip.label = i.label;
    ip.executed = true;
    ip.executions_per_iteration = i.executions_per_iteration;
    ip.host_seconds = i.seconds;
    ip.is_copy = i.is_copy;
    p.instructions.push_back(ip);
    if (!i.is_copy) continue;
    exec::CopyProfile c = exec::copyProfileOf(i);
    c.host_memory = exec::HostMemoryKind::Pageable;
    c.executions_per_iteration = i.executions_per_iteration;
    c.samples = i.copy_samples;
    c.seconds = i.copy_seconds;
    c.gbps = i.gbps;
    c.best_gbps = i.best_gbps;
    auto& totals = c.direction == program::CopyDirection::HostToDevice ? p.host_to_device : p.device_to_host;
    totals.copies += 1;
    totals.bytes += c.bytes * c.executions_per_iteration;
    auto& sums = c.direction == program::CopyDirection::HostToDevice ? h2dSums : d2hSums;
    if (c.executions_per_iteration > 0 && !sums.empty())
      for (size_t k = 0; k < c.samples.size(); ++k) sums[std::min(k / c.executions_per_iteration, sums.size() - 1)] += c.samples[k];
    p.copies.push_back(std::move(c));
  }
  p.host_to_device.seconds = median(h2dSums);
  p.device_to_host.seconds = median(d2hSums);
  for (auto* t : {&p.host_to_device, &p.device_to_host}) t->gbps = gigabytesPerSecond(t->bytes, t->seconds);
  p.run_seconds = method.run_seconds;
  p.copy_seconds = method.copy_transfer_seconds;
  p.copy_share = p.run_seconds.median > 0 ? std::min(p.copy_seconds / p.run_seconds.median, 1.0) : 0.0;

  // The timeline: one slice per instruction scope; a copy shows its kernel.
  std::unordered_map<size_t, const InstructionStats*> statsOf;
  for (const auto& i : method.instructions) statsOf[i.instruction] = &i;
  const double origin = method.iteration_starts.empty() ? 0.0 : method.iteration_starts.front();
  for (const auto& s : method.trace) {
    if (s.lane == "method" || s.load || s.instruction < 0 || s.iteration >= timelineIterations) continue;
    const auto it = statsOf.find(size_t(s.instruction));
    if (it == statsOf.end()) continue;
    const InstructionStats& i = *it->second;
    const bool kernelOfCopy = i.is_copy && s.nested;
    const bool scope = !s.nested;
    if (!(scope && !i.is_copy) && !kernelOfCopy && !(scope && i.is_copy && i.copy_samples == i.samples)) continue;
    exec::TimelineSlice t;
    t.iteration = s.iteration;
    t.instruction = i.instruction;
    t.name = i.label;
    t.start_seconds = s.start_seconds - origin;
    t.seconds = s.seconds;
    if (i.is_copy) {
      t.track = exec::TimelineSlice::copyTrack(i.direction);
      t.bytes = i.bytes;
    } else {
      t.track = exec::TimelineSlice::Track::Kernels;
    }
    p.timeline.push_back(std::move(t));
  }
  p.notes.push_back(std::string("measured by the ExecuTorch runtime (") + kEtdumpSource +
                    "): copy times are the et_copy kernels' native_call events, instruction times their "
                    "OPERATOR_CALL / DELEGATE_CALL");
  if (shown != nullptr) exec::identifyCopies(p, *shown);
  return p;
}

std::vector<exec::TransferProfile> toTransferProfiles(const EtdumpAnalysis& analysis, const program::Program& program,
                                                      const std::string& programName) {
  std::vector<exec::TransferProfile> out;
  out.reserve(analysis.methods.size());
  for (const auto& m : analysis.methods) out.push_back(toTransferProfile(m, program, programName));
  return out;
}

std::vector<exec::ProfileFinding> roundTripsAcrossMethods(const EtdumpAnalysis& analysis, const program::Program& program,
                                                          const std::string& programName) {
  if (analysis.methods.size() < 2) return {};
  return exec::checkRoundTripsAcrossMethods(toTransferProfiles(analysis, program, programName), program);
}

}  // namespace ptescope::etdump
