#include "exec/ProfileAnalysis.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "exec/CopyIdentity.h"
#include "exec/Executor.h"
#include "program/Text.h"

namespace ptescope::exec {

using namespace program::text;
using program::CopyDirection;

namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * 1024;

double gigabytesPerSecond(uint64_t bytes, double seconds) { return seconds > 0 ? double(bytes) / seconds / 1e9 : 0.0; }

bool contains(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

// The directions of `profile`'s copies in enum order.
std::vector<CopyDirection> directionsOf(const TransferProfile& profile) {
  std::vector<CopyDirection> out;
  for (auto direction : {CopyDirection::HostToDevice, CopyDirection::DeviceToHost, CopyDirection::DeviceToDevice})
    if (std::any_of(profile.copies.begin(), profile.copies.end(), [&](const CopyProfile& c) { return c.direction == direction; }))
      out.push_back(direction);
  return out;
}

// One execution of a copy: its bytes and time.
struct Execution {
  uint64_t bytes = 0;
  double seconds = 0;
};

TransferStats statsOf(const std::vector<Execution>& executions) {
  TransferStats s;
  if (executions.empty()) return s;
  std::vector<double> times;
  for (const auto& e : executions) {
    times.push_back(e.seconds);
    s.bytes += e.bytes;
    s.total_seconds += e.seconds;
  }
  s.count = executions.size();
  const TimingStats order = TimingStats::of(times);
  s.min_seconds = order.min;
  s.median_seconds = order.median;
  s.max_seconds = order.max;
  s.mean_seconds = s.total_seconds / double(s.count);
  if (s.count > 1) {
    double squares = 0;
    for (double t : times) squares += (t - s.mean_seconds) * (t - s.mean_seconds);
    s.stddev_seconds = std::sqrt(squares / double(s.count - 1));
  }
  s.gbps = gigabytesPerSecond(s.bytes, s.total_seconds);
  return s;
}

std::string instructionList(const std::vector<size_t>& instructions) {
  std::string out;
  for (size_t i : instructions) out += (out.empty() ? "" : ", ") + std::to_string(i);
  return out;
}

std::string copyName(const CopyProfile& c) {
  return "instruction " + std::to_string(c.instruction) + " (" + program::copyDirectionName(c.direction) + " %" +
         std::to_string(c.source_value) + " \u2192 %" + std::to_string(c.destination_value) + ", " + bytesText(int64_t(c.bytes)) + ")";
}

const ProfileRule& rule(const char* id) {
  for (const auto& r : profileRules())
    if (std::string(r.id) == id) return r;
  return profileRules().front();
}

ProfileFinding finding(const TransferProfile& profile, const char* id) {
  ProfileFinding f;
  f.id = id;
  f.slug = rule(id).slug;
  f.method = profile.method;
  return f;
}

std::string notJudged(const char* id, const std::string& why) {
  return std::string(id) + " [" + rule(id).slug + "] not judged: " + why;
}

// ---- the rules ----

void checkPageable(const TransferProfile& profile, const ProfileSourceFacts& facts, ProfileCheck& out) {
  if (!facts.host_memory_known) {
    out.not_judged.push_back(notJudged("PRF001", "the " + facts.name + " does not record whether host memory was pinned"));
    return;
  }
  std::vector<size_t> instructions;
  uint64_t bytes = 0;
  double seconds = 0;
  for (const auto& c : profile.copies) {
    if (c.direction == CopyDirection::DeviceToDevice || c.host_memory != HostMemoryKind::Pageable) continue;
    instructions.push_back(c.instruction);
    bytes += c.bytes * std::max<size_t>(c.executions_per_iteration, 1);
    seconds += c.seconds.median * double(std::max<size_t>(c.executions_per_iteration, 1));
  }
  if (instructions.empty()) return;
  ProfileFinding f = finding(profile, "PRF001");
  f.instructions = instructions;
  f.message = std::to_string(instructions.size()) + " host-device cop" + (instructions.size() == 1 ? "y reads or writes" : "ies read or write") +
              " pageable host memory: an asynchronous copy from or to pageable memory is staged through a pinned "
              "buffer by the driver and the host waits until it is done, so it cannot overlap anything";
  f.evidence = bytesText(int64_t(bytes)) + " per iteration in " + durationText(seconds) + " (sum of medians)" +
               (facts.kind == ProfileSourceKind::Emulated ? ", timed on the emulated runtime (memcpy)" : "");
  f.fix = "allocate the CPU planned arenas the copies use in pinned memory (cudaMallocHost / cudaHostAlloc) in the "
          "runner; `ptescope-cli profile --pinned` measures the same copies from pinned memory";
  out.findings.push_back(std::move(f));
}

void checkSmallCopies(const TransferProfile& profile, const ProfileRuleOptions& options, ProfileCheck& out) {
  // A boundary: copies of one direction and device at consecutive
  // instructions (nothing runs between them), e.g. a delegate's inputs.
  std::vector<const CopyProfile*> copies;
  for (const auto& c : profile.copies) copies.push_back(&c);
  std::sort(copies.begin(), copies.end(), [](auto* a, auto* b) { return a->instruction < b->instruction; });
  for (size_t begin = 0; begin < copies.size();) {
    size_t end = begin + 1;
    while (end < copies.size() && copies[end]->instruction == copies[end - 1]->instruction + 1 &&
           copies[end]->direction == copies[begin]->direction && copies[end]->device == copies[begin]->device)
      ++end;
    const bool allSmall = std::all_of(copies.begin() + long(begin), copies.begin() + long(end),
                                      [&](auto* c) { return c->bytes < options.small_copy_bytes; });
    if (end - begin >= options.small_copies && allSmall) {
      ProfileFinding f = finding(profile, "PRF002");
      uint64_t bytes = 0;
      double seconds = 0;
      for (size_t k = begin; k < end; ++k) {
        f.instructions.push_back(copies[k]->instruction);
        bytes += copies[k]->bytes;
        seconds += copies[k]->seconds.median;
      }
      const auto& first = *copies[begin];
      f.message = std::to_string(end - begin) + " small " + program::copyDirectionName(first.direction) + " copies " +
                  (first.direction == CopyDirection::HostToDevice ? "to " : "from ") + first.device.str() +
                  " back to back: each is below " + bytesText(int64_t(options.small_copy_bytes)) +
                  ", where a copy's fixed cost, not the link, sets its time";
      f.evidence = bytesText(int64_t(bytes)) + " in " + durationText(seconds) + " (sum of medians), " +
                   gbpsText(gigabytesPerSecond(bytes, seconds)) + " GB/s together; the largest is " +
                   bytesText(int64_t(std::max_element(copies.begin() + long(begin), copies.begin() + long(end),
                                                      [](auto* a, auto* b) { return a->bytes < b->bytes; })[0]->bytes));
      f.fix = "batch them into one buffer and one copy, or keep the values on the device (`ptescope-cli advise` "
              "lists the valid edits that remove copies)";
      out.findings.push_back(std::move(f));
    }
    begin = end;
  }
}

void checkBelowPeak(const TransferProfile& profile, const ProfileSourceFacts& facts, const ProfileRuleOptions& options,
                    ProfileCheck& out) {
  double h2d = options.h2d_peak_gbps, d2h = options.d2h_peak_gbps;
  std::string source = options.peak_source;
  if (facts.link_peak) {
    h2d = profile.peak.h2d_gbps;
    d2h = profile.peak.d2h_gbps;
    source = "the link peak measured with the profile (pinned, " + bytesText(int64_t(profile.peak.bytes)) + ")";
  }
  if (h2d <= 0 && d2h <= 0) {
    out.not_judged.push_back(notJudged(
        "PRF003", facts.kind == ProfileSourceKind::Emulated ? "the emulated runtime's peak is a host memcpy, not a link"
                                                            : "the " + facts.name + " has no link peak (`etdump --link` gives one)"));
    return;
  }
  for (const auto& c : profile.copies) {
    if (c.direction == CopyDirection::DeviceToDevice || c.bytes < options.bandwidth_bound_bytes || !c.time_covers.empty())
      continue;
    const double peak = c.direction == CopyDirection::HostToDevice ? h2d : d2h;
    // No rate (a time that is not the copy's own): nothing to compare.
    if (peak <= 0 || c.gbps <= 0 || c.gbps >= options.low_peak_share * peak) continue;
    ProfileFinding f = finding(profile, "PRF003");
    f.instructions = {c.instruction};
    f.message = "the copy at " + copyName(c) + " reaches " + percentText(c.gbps / peak) + " of the link's peak, though it is large enough to be limited by the link";
    f.evidence = gbpsText(c.gbps) + " GB/s median (best " + gbpsText(c.best_gbps) + ") against " + gbpsText(peak) + " GB/s " +
                 program::copyDirectionName(c.direction) + " from " + source + "; host memory " + hostMemoryKindName(c.host_memory);
    f.fix = c.host_memory == HostMemoryKind::Pageable
                ? "pin the host memory of the copy (pageable copies are staged through a bounce buffer); then check "
                  "that nothing else shares the link while it runs"
                : "check that nothing else shares the link while it runs (other copies, another process) and that "
                  "the device sits on the link the peak was measured on";
    out.findings.push_back(std::move(f));
  }
}

void checkRoundTrips(const TransferProfile& profile, ProfileCheck& out) {
  for (const auto& down : profile.copies) {
    if (down.direction != CopyDirection::DeviceToHost) continue;
    for (const auto& up : profile.copies) {
      if (up.direction != CopyDirection::HostToDevice || up.instruction <= down.instruction ||
          up.source_value != down.destination_value)
        continue;
      ProfileFinding f = finding(profile, "PRF004");
      f.instructions = {down.instruction, up.instruction};
      f.message = "value %" + std::to_string(down.source_value) + " goes to the host and back within one iteration: " +
                  copyName(down) + " then " + copyName(up) + (down.device == up.device ? ", to the device it came from" : ", on to " + up.device.str());
      f.evidence = durationText(down.seconds.median) + " + " + durationText(up.seconds.median) + " = " +
                   durationText(down.seconds.median + up.seconds.median) + " per iteration (medians)";
      f.fix = down.device == up.device
                  ? "keep the value on " + up.device.str() + ": have its consumer read the device copy (the pipeline elides "
                    "the pair when no host instruction needs it; `ptescope-cli advise` lists the valid edits)"
                  : "copy it device to device, or put the producing and the consuming delegate on one device "
                    "(`ptescope-cli advise` lists the valid edits)";
      out.findings.push_back(std::move(f));
    }
  }
}

void checkDelegateGaps(const TransferProfile& profile, const ProfileSourceFacts& facts, const ProfileRuleOptions& options,
                       ProfileCheck& out) {
  if (!facts.delegates_timed) {
    const bool anyDelegate = std::any_of(profile.instructions.begin(), profile.instructions.end(), [](const InstructionProfile& i) {
      return i.kind == program::InstructionKind::DelegateCall;
    });
    // Said as it is: a method without a delegate call, or one whose calls
    // this source did not run (ptescope's executor; a trace or a runner runs them).
    out.not_judged.push_back(notJudged(
        "PRF005", !anyDelegate ? std::string("the method has no delegate call to wait on")
                  : facts.kind == ProfileSourceKind::HostClock
                      ? std::string("no delegate call has a time in this trace")
                      : std::string("no delegate call ran in this profile (ptescope cannot run delegate backends; an "
                                    "ETDump or the runner can)")));
    return;
  }
  // The copy that waits on a delegate is the one that reads its output
  // (def/use), not merely the next copy in time.
  const bool producersKnown =
      hasCanonicalSources(profile) ||
      std::any_of(profile.copies.begin(), profile.copies.end(), [](const CopyProfile& c) { return c.producer.has_value(); });
  if (!producersKnown) {
    out.not_judged.push_back(notJudged("PRF005", "the profile does not say which instruction wrote each copy's source "
                                                 "(it was not matched to its program)"));
    return;
  }
  std::map<size_t, const InstructionProfile*> instructionOf;
  for (const auto& i : profile.instructions) instructionOf[i.instruction] = &i;
  auto isDelegate = [&](size_t instruction) {
    auto it = instructionOf.find(instruction);
    return it != instructionOf.end() && it->second->kind == program::InstructionKind::DelegateCall && it->second->executed;
  };
  std::map<size_t, size_t> delegateOfCopy;  // copy instruction -> the delegate whose output it reads
  for (const auto& c : profile.copies)
    if (c.producer && isDelegate(*c.producer)) delegateOfCopy[c.instruction] = *c.producer;
  // Per (delegate, copy of its output): the gaps of each timeline iteration,
  // from the end of the delegate's last call before the copy to the copy's start.
  std::map<std::pair<size_t, size_t>, std::vector<double>> gaps;
  std::map<size_t, std::vector<const TimelineSlice*>> byIteration;
  for (const auto& s : profile.timeline) byIteration[s.iteration].push_back(&s);
  for (auto& [iteration, slices] : byIteration) {
    std::stable_sort(slices.begin(), slices.end(), [](auto* a, auto* b) { return a->start_seconds < b->start_seconds; });
    std::map<size_t, const TimelineSlice*> lastCall;  // delegate instruction -> its latest slice so far
    for (const TimelineSlice* s : slices) {
      if (isDelegate(s->instruction)) {
        lastCall[s->instruction] = s;
        continue;
      }
      if (!TimelineSlice::copyDirectionOf(s->track)) continue;
      const auto reads = delegateOfCopy.find(s->instruction);
      if (reads == delegateOfCopy.end()) continue;
      const auto call = lastCall.find(reads->second);
      if (call == lastCall.end()) continue;
      gaps[{reads->second, s->instruction}].push_back(s->start_seconds - (call->second->start_seconds + call->second->seconds));
    }
  }
  for (const auto& [pair, samples] : gaps) {
    const double gap = TimingStats::of(samples).median;
    if (gap < options.gap_seconds) continue;
    const auto [delegate, copy] = pair;
    ProfileFinding f = finding(profile, "PRF005");
    std::vector<std::string> between;
    for (const auto& i : profile.instructions)
      if (i.instruction > delegate && i.instruction < copy)
        between.push_back(std::to_string(i.instruction) + " " + i.label + " " + durationText(i.host_seconds.median));
    f.instructions = {delegate, copy};
    f.message = "the copy at instruction " + std::to_string(copy) + " reads the output of the delegate at instruction " +
                std::to_string(delegate) + " and starts " + durationText(gap) + " after it ends: the host is busy between them";
    std::string list;
    for (const auto& b : between) list += (list.empty() ? "" : ", ") + b;
    f.evidence = "median gap over " + program::countText(samples.size(), "iteration") + " of the timeline; between them: " +
                 (list.empty() ? std::string("no instruction (the runtime itself)") : list);
    f.fix = "move the host work between them after the copy, or into the delegate, so that the copy starts when the "
            "delegate ends";
    out.findings.push_back(std::move(f));
  }
}

}  // namespace

ProfileSourceKind sourceKind(const TransferProfile& p) {
  if (p.runtime.rfind("predicted", 0) == 0) return ProfileSourceKind::Predicted;
  if (p.emulated) return ProfileSourceKind::Emulated;
  // A method without device memory ran on the host CPU, on whichever
  // runtime was asked for: nothing was measured on a GPU.
  if (p.runtime == kHostCpuRuntimeName) return ProfileSourceKind::HostCpu;
  if (contains(p.runtime, "host clock")) return ProfileSourceKind::HostClock;
  // tests/cudart-standin names its devices "cudart stand-in (not a GPU)".
  return contains(p.runtime, "stand-in") ? ProfileSourceKind::StandIn : ProfileSourceKind::Cuda;
}

std::string copyHostMemoryText(const TransferProfile& p, const CopyProfile& c) {
  if (c.direction == CopyDirection::DeviceToDevice) return "none";
  if (sourceKind(p) == ProfileSourceKind::HostClock) return "unknown";
  return hostMemoryKindName(c.host_memory);
}

ProfileSourceFacts sourceFacts(const TransferProfile& p) {
  ProfileSourceFacts f;
  f.delegates_timed = std::any_of(p.instructions.begin(), p.instructions.end(), [](const InstructionProfile& i) {
    return i.kind == program::InstructionKind::DelegateCall && i.executed;
  });
  f.kind = sourceKind(p);
  if (f.kind == ProfileSourceKind::Predicted) {
    f.name = "prediction";
    f.overlap_note = "a prediction has no timeline";
  } else if (f.kind == ProfileSourceKind::Emulated) {
    f.name = "host emulation";
    f.host_memory_known = true;
    f.overlap_note = "host clock only: the emulated copies are memcpy calls on the thread that runs the kernels";
  } else if (f.kind == ProfileSourceKind::HostCpu) {
    f.name = "host CPU run";
    f.overlap_note = "the method makes no host-device copy and uses no GPU: there is nothing to overlap";
  } else if (f.kind == ProfileSourceKind::HostClock) {
    f.name = "runtime trace (" + p.runtime + ")";
    f.overlap_note = "host clock only: the trace times each instruction on the host, not the copies and kernels on the device";
  } else {
    f.name = f.kind == ProfileSourceKind::StandIn ? "cudart stand-in" : "CUDA run";
    f.host_memory_known = true;
    f.link_peak = p.peak.measured && p.peak.h2d_gbps > 0;
    f.overlap_note = "ptescope's executor waits for each copy (CUDA events time it alone) and runs no delegate, so "
                     "nothing overlaps in this run; what the real runtime overlaps cannot be seen here";
  }
  return f;
}

SizeClass sizeClassOf(uint64_t bytes) {
  if (bytes < 4 * kKiB) return SizeClass::Under4KiB;
  if (bytes < 64 * kKiB) return SizeClass::Under64KiB;
  if (bytes < kMiB) return SizeClass::Under1MiB;
  if (bytes < 16 * kMiB) return SizeClass::Under16MiB;
  return SizeClass::Larger;
}

std::string sizeClassName(SizeClass c) {
  switch (c) {
    case SizeClass::Under4KiB: return "< 4 KiB";
    case SizeClass::Under64KiB: return "< 64 KiB";
    case SizeClass::Under1MiB: return "< 1 MiB";
    case SizeClass::Under16MiB: return "< 16 MiB";
    case SizeClass::Larger: return ">= 16 MiB";
  }
  return "";
}

std::string sizeClassKey(SizeClass c) {
  switch (c) {
    case SizeClass::Under4KiB: return "lt_4KiB";
    case SizeClass::Under64KiB: return "lt_64KiB";
    case SizeClass::Under1MiB: return "lt_1MiB";
    case SizeClass::Under16MiB: return "lt_16MiB";
    case SizeClass::Larger: return "ge_16MiB";
  }
  return "";
}

TransferSummary summarizeTransfers(const TransferProfile& profile) {
  TransferSummary summary;
  summary.iterations = profile.iterations;
  for (const auto& c : profile.copies) summary.copies_without_samples += c.samples.empty();
  for (auto direction : directionsOf(profile)) {
    std::vector<Execution> all;
    std::map<SizeClass, std::vector<Execution>> byClass;
    for (const auto& c : profile.copies) {
      // A time that is not the copy's (CopyProfile::time_covers) says nothing about a transfer.
      if (c.direction != direction || !c.time_covers.empty()) continue;
      const std::vector<double> once{c.seconds.median};
      for (double s : c.samples.empty() ? once : c.samples) {
        all.push_back({c.bytes, s});
        byClass[sizeClassOf(c.bytes)].push_back({c.bytes, s});
      }
    }
    summary.rows.push_back({direction, std::nullopt, false, statsOf(all)});
    for (auto sizeClass : kSizeClasses)
      if (auto it = byClass.find(sizeClass); it != byClass.end())
        summary.rows.push_back({direction, sizeClass, false, statsOf(it->second)});
  }
  for (auto direction : {CopyDirection::HostToDevice, CopyDirection::DeviceToHost, CopyDirection::DeviceToDevice}) {
    std::vector<Execution> inside;
    for (const auto& d : profile.delegate_copies)
      if (d.transfer.direction == direction)
        for (double s : d.samples) inside.push_back({d.transfer.bytes, s});
    if (!inside.empty()) summary.rows.push_back({direction, std::nullopt, true, statsOf(inside)});
  }
  return summary;
}

TimeBreakdown breakDownTime(const TransferProfile& p) {
  TimeBreakdown b;
  const ProfileSourceFacts facts = sourceFacts(p);
  b.run_seconds = p.run_seconds.median;
  b.instructions_timed = !p.instructions.empty();
  double copyInstructions = 0;
  for (const auto& i : p.instructions) {
    const double perIteration = i.host_seconds.median * double(std::max<size_t>(i.executions_per_iteration, 1));
    if (i.is_copy) {
      copyInstructions += perIteration;
      continue;
    }
    if (i.kind == program::InstructionKind::DelegateCall) {
      if (i.executed)
        b.delegate_seconds += perIteration;
      else
        ++b.delegates_not_run;
    } else if (i.executed) {
      b.kernel_seconds += perIteration;
    }
  }
  b.copy_seconds = p.copy_seconds;
  b.copy_overhead_seconds = std::max(0.0, copyInstructions - b.copy_seconds);
  b.gap_seconds =
      std::max(0.0, b.run_seconds - b.kernel_seconds - b.delegate_seconds - b.copy_seconds - b.copy_overhead_seconds);
  b.delegates_timed = facts.delegates_timed;
  b.overlap_visible = facts.overlap_visible;
  b.overlap_note = facts.overlap_note;
  return b;
}

const std::vector<ProfileRule>& profileRules() {
  static const std::vector<ProfileRule> rules = {
      {"PRF001", "pageable-copy", "a host-device copy reads or writes pageable host memory, so it cannot be asynchronous"},
      {"PRF002", "small-copies", "many small copies at one boundary, each bound by a copy's fixed cost"},
      {"PRF003", "below-peak", "a large copy far below the link's measured or profiled peak"},
      {"PRF004", "round-trip", "a value copied to the host and back to a device within one iteration, within or across methods"},
      {"PRF005", "delegate-copy-gap", "host-side time between a delegate and the copy that waits on it"},
  };
  return rules;
}

std::string ProfileFinding::location() const {
  auto place = [](const std::string& m, const std::vector<size_t>& at) {
    std::string out = "method '" + m + "'";
    if (!at.empty()) out += std::string(at.size() == 1 ? ", instruction " : ", instructions ") + instructionList(at);
    return out;
  };
  return place(method, instructions) + (other_method.empty() ? "" : "; " + place(other_method, other_instructions));
}

std::vector<ProfileFinding> checkRoundTripsAcrossMethods(const std::vector<TransferProfile>& profiles,
                                                         const program::Program& program) {
  // A method's copies of its own outputs to the host / of its inputs to a device.
  struct End {
    const TransferProfile* profile;
    const CopyProfile* copy;
    size_t position;  // in the method's outputs / inputs
    const program::Tensor* tensor;
  };
  auto ends = [&program](const TransferProfile& p, CopyDirection direction) {
    std::vector<End> out;
    const program::Method* m = program.findMethod(p.method);
    if (m == nullptr || p.cancelled) return out;
    const auto& values = program::items(m->values);
    const auto& list = program::items(direction == CopyDirection::DeviceToHost ? m->outputs : m->inputs);
    for (const auto& c : p.copies) {
      if (c.direction != direction) continue;
      const int32_t v = direction == CopyDirection::DeviceToHost ? c.destination_value : c.source_value;
      const auto at = std::find(list.begin(), list.end(), v);
      const auto* tensor = v >= 0 && size_t(v) < values.size() ? values[size_t(v)].tensor() : nullptr;
      if (at != list.end() && tensor != nullptr) out.push_back({&p, &c, size_t(at - list.begin()), tensor});
    }
    return out;
  };
  auto sameType = [](const program::Tensor& a, const program::Tensor& b) {
    return a.scalar_type == b.scalar_type && program::items(a.sizes) == program::items(b.sizes);
  };
  std::vector<ProfileFinding> out;
  for (const auto& a : profiles) {
    const auto outputs = ends(a, CopyDirection::DeviceToHost);
    for (const auto& b : profiles) {
      if (&a == &b || a.method == b.method) continue;
      const auto inputs = ends(b, CopyDirection::HostToDevice);
      for (const End& down : outputs) {
        const End* up = nullptr;
        size_t matches = 0;
        for (const End& in : inputs)
          if (sameType(*down.tensor, *in.tensor)) {
            up = &in;
            ++matches;
          }
        size_t rivals = 0;  // other copied outputs of A of that type
        for (const End& o : outputs) rivals += sameType(*o.tensor, *down.tensor) ? 1 : 0;
        if (matches != 1 || rivals != 1) continue;
        const CopyProfile& d = *down.copy;
        const CopyProfile& u = *up->copy;
        ProfileFinding f = finding(a, "PRF004");
        f.instructions = {d.instruction};
        f.other_method = b.method;
        f.other_instructions = {u.instruction};
        f.message = "output " + std::to_string(down.position) + " of method '" + a.method + "' (" +
                    program::tensorTypeText(*down.tensor) + ") is copied to the host at " + copyName(d) + ", and input " +
                    std::to_string(up->position) + " of method '" + b.method + "', its only input of that type, is copied to " +
                    u.device.str() + " at " + copyName(u) + ": when the caller passes the one to the other, the value " +
                    "goes to the host and back between the two calls";
        const double there = d.seconds.median * double(std::max<size_t>(d.executions_per_iteration, 1));
        const double back = u.seconds.median * double(std::max<size_t>(u.executions_per_iteration, 1));
        f.evidence = durationText(there) + " in '" + a.method + "' + " + durationText(back) + " in '" + b.method + "' = " +
                     durationText(there + back) + " per call of each (medians, " + a.runtime + ")";
        f.fix = "keep the value on the device between the calls: export '" + a.method +
                "' with skip_d2h_for_method_outputs and '" + b.method +
                "' with skip_h2d_for_method_inputs, and pass the device tensor on (`ptescope-cli advise` lists the valid "
                "edits and the caller duties they bring)";
        out.push_back(std::move(f));
      }
    }
  }
  return out;
}

ProfileCheck checkProfile(const TransferProfile& profile, const ProfileRuleOptions& options) {
  ProfileCheck out;
  const ProfileSourceFacts facts = sourceFacts(profile);
  if (facts.kind == ProfileSourceKind::Predicted) {
    out.not_judged.push_back("every rule: a prediction is not a measurement");
    return out;
  }
  checkPageable(profile, facts, out);
  checkSmallCopies(profile, options, out);
  checkBelowPeak(profile, facts, options, out);
  checkRoundTrips(profile, out);
  checkDelegateGaps(profile, facts, options, out);
  return out;
}

}  // namespace ptescope::exec
