#include "cost/CopyCost.h"

#include "exec/CopyIdentity.h"

#include "analysis/Dataflow.h"
#include "program/Text.h"

namespace ptescope::cost {

using program::CopyDirection;

double copyShare(double copySeconds, double computeSeconds) {
  const double run = copySeconds + computeSeconds;
  return run > 0 ? copySeconds / run : 0.0;
}

Result<MethodPrediction> predictMethod(const program::Method& method, const LinkProfile& link,
                                       exec::HostMemoryKind hostMemory) {
  MethodPrediction prediction;
  prediction.method = method.displayName();
  prediction.link_name = link.name;
  prediction.link_label = link.label();
  prediction.host_memory = hostMemory;
  const auto flow = analysis::Dataflow::build(method);
  const auto& values = program::items(method.values);
  const auto canonical = exec::CanonicalValues::of(method);
  for (const auto& facts : flow.instructions()) {
    if (!facts.is_h2d_copy && !facts.is_d2h_copy) continue;
    const auto& instruction = (*(*method.chains)[facts.chain].instructions)[facts.index_in_chain];
    const auto* call = std::get_if<program::KernelCall>(&instruction.data);
    const std::string where = "method '" + prediction.method + "' instruction " + std::to_string(facts.flat_index);
    if (call == nullptr || program::items(call->args).size() < 2)
      return makeError(where + ": an et_copy call needs a source and a destination argument");
    CopyPrediction copy;
    copy.instruction = facts.flat_index;
    copy.direction = facts.is_h2d_copy ? program::CopyDirection::HostToDevice : program::CopyDirection::DeviceToHost;
    copy.source_value = (*call->args)[0];
    copy.destination_value = (*call->args)[1];
    auto tensorAt = [&](int32_t v) -> const program::Tensor* {
      return v >= 0 && size_t(v) < values.size() ? values[size_t(v)].tensor() : nullptr;
    };
    const program::Tensor* source = tensorAt(copy.source_value);
    const program::Tensor* destination = tensorAt(copy.destination_value);
    if (source == nullptr) return makeError(where + ": the copy's source %" + std::to_string(copy.source_value) + " is not a tensor");
    copy.bytes = uint64_t(std::max<int64_t>(source->nbytes(), 0));
    const program::Tensor* deviceSide = copy.direction == program::CopyDirection::HostToDevice ? destination : source;
    if (deviceSide != nullptr) copy.device = deviceSide->device();
    copy.canonical_source = canonical.of(copy.source_value);
    auto seconds = link.secondsFor(copy.direction, hostMemory, copy.bytes);
    if (!seconds) return seconds.error();
    copy.seconds = seconds.value();
    PredictionTotals& totals =
        copy.direction == program::CopyDirection::HostToDevice ? prediction.host_to_device : prediction.device_to_host;
    totals.copies += 1;
    totals.bytes += copy.bytes;
    totals.seconds += copy.seconds;
    prediction.copies.push_back(copy);
  }
  return prediction;
}

Result<double> transferSeconds(const LinkProfile& link, CopyDirection direction, exec::HostMemoryKind hostMemory,
                               uint64_t bytes) {
  if (direction != CopyDirection::DeviceToDevice) return link.secondsFor(direction, hostMemory, bytes);
  if (const LinkCurve* curve = link.curve(direction, LinkMemory::Device)) return curve->secondsFor(bytes);
  return kTypicalDeviceCopy.latency_seconds + double(bytes) / (kTypicalDeviceCopy.gbps * 1e9);
}

std::string assumedDeviceCopyNote(const LinkProfile& link) {
  if (link.curve(CopyDirection::DeviceToDevice, LinkMemory::Device) != nullptr) return {};
  return "d2d: no device-to-device curve in this link profile: assumed " +
         program::durationText(kTypicalDeviceCopy.latency_seconds) + " + bytes at " +
         program::fixedText(kTypicalDeviceCopy.gbps, 0) + " GB/s; `ptescope-cli probe-link` measures one";
}

PredictionTotals MethodPrediction::insideDelegates(CopyDirection direction) const {
  PredictionTotals totals;
  for (const auto& c : delegate_copies)
    if (c.transfer.direction == direction) {
      totals.copies += 1;
      totals.bytes += c.transfer.bytes;
      totals.seconds += c.seconds;
    }
  return totals;
}

Result<MethodPrediction> predictMethod(const program::Program& program, const program::Method& method,
                                       const LinkProfile& link, exec::HostMemoryKind hostMemory,
                                       const analysis::DelegateTransferOptions& settings) {
  auto prediction = predictMethod(method, link, hostMemory);
  if (!prediction) return prediction;
  auto inside = analysis::delegateTransfers(program, method, settings);
  for (auto& t : inside.transfers) {
    auto seconds = transferSeconds(link, t.direction, hostMemory, t.bytes);
    if (!seconds) return seconds.error();
    prediction->inside_delegates.copies += 1;
    prediction->inside_delegates.bytes += t.bytes;
    prediction->inside_delegates.seconds += seconds.value();
    prediction->delegate_copies.push_back(DelegateCopyPrediction{std::move(t), seconds.value()});
  }
  prediction->delegate_refusals = std::move(inside.refusals);
  return prediction;
}

DelegateCopyChanges diffDelegateCopies(const MethodPrediction& before, const MethodPrediction& after) {
  // By the delegate's argument, not the value's number: an edit that takes
  // a copy away renumbers the values after it, and a replay copy of a
  // delegate it did not touch read as removed and added again.
  const auto same = [](const analysis::DelegateTransfer& a, const analysis::DelegateTransfer& b) {
    const bool sameArgument = a.argument >= 0 && b.argument >= 0 ? a.argument == b.argument : a.value == b.value;
    return a.delegate == b.delegate && a.kind == b.kind && a.direction == b.direction && sameArgument &&
           a.bytes == b.bytes;
  };
  // Each copy of one side matches at most one of the other.
  const auto unmatched = [&](const std::vector<DelegateCopyPrediction>& from, const std::vector<DelegateCopyPrediction>& in) {
    std::vector<bool> used(in.size(), false);
    std::vector<DelegateCopyPrediction> out;
    for (const auto& c : from) {
      size_t k = 0;
      while (k < in.size() && (used[k] || !same(c.transfer, in[k].transfer))) ++k;
      if (k < in.size())
        used[k] = true;
      else
        out.push_back(c);
    }
    return out;
  };
  return {unmatched(after.delegate_copies, before.delegate_copies), unmatched(before.delegate_copies, after.delegate_copies)};
}

Result<MethodPrediction> predictProgram(const program::Program& program, const std::string& methodName,
                                        const LinkProfile& link, exec::HostMemoryKind hostMemory,
                                        const analysis::DelegateTransferOptions& settings) {
  const std::string name = methodName.empty() ? exec::defaultMethodName(program) : methodName;
  if (name.empty()) return makeError("the program has no method");
  const auto* method = program.findMethod(name);
  if (method == nullptr) return makeError("no method named '" + name + "'");
  return predictMethod(program, *method, link, hostMemory, settings);
}

Result<double> predictRecords(const std::vector<passes::CopyRecord>& copies, const LinkProfile& link,
                              exec::HostMemoryKind hostMemory) {
  double total = 0;
  for (const auto& c : copies) {
    const auto direction =
        c.direction;
    auto seconds = link.secondsFor(direction, hostMemory, uint64_t(std::max<int64_t>(c.bytes, 0)));
    if (!seconds) return seconds.error();
    total += seconds.value();
  }
  return total;
}

exec::TransferProfile asTransferProfile(const MethodPrediction& prediction) {
  exec::TransferProfile profile;
  profile.method = prediction.method;
  profile.runtime = "predicted: " + prediction.link_label;
  profile.host_memory = prediction.host_memory;
  profile.iterations = 1;
  profile.requested_iterations = 1;
  for (const auto& c : prediction.copies) {
    exec::CopyProfile copy = exec::copyProfileOf(c);
    copy.canonical_source = c.canonical_source;
    copy.host_memory = prediction.host_memory;
    copy.executions_per_iteration = 1;
    copy.samples = {c.seconds};
    copy.seconds = exec::TimingStats{c.seconds, c.seconds, c.seconds};
    copy.gbps = c.seconds > 0 ? double(c.bytes) / c.seconds / 1e9 : 0.0;
    copy.best_gbps = copy.gbps;
    profile.copies.push_back(copy);
  }
  for (auto direction : program::kHostDeviceDirections) {
    const auto& from = prediction.totals(direction);
    auto& to = direction == program::CopyDirection::HostToDevice ? profile.host_to_device : profile.device_to_host;
    to.copies = from.copies;
    to.bytes = from.bytes;
    to.seconds = from.seconds;
    to.gbps = from.seconds > 0 ? double(from.bytes) / from.seconds / 1e9 : 0.0;
  }
  profile.copy_seconds = prediction.host_to_device.seconds + prediction.device_to_host.seconds;  // the et_copy instructions a profile times
  return profile;
}

}  // namespace ptescope::cost
