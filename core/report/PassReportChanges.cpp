#include "report/PassReportChanges.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <unordered_map>

#include "passes/DevicePasses.h"
#include "program/Text.h"

namespace ptescope::report {

using program::CopyDirection;

std::string copyChangeText(const passes::CopyRecord& copy) {
  return program::copyDirectionName(copy.direction) + " %" +
         std::to_string(copy.source) + " " + copy.from.str() + " → " + copy.to.str() + ", " +
         program::bytesText(copy.bytes);
}

namespace {

std::string targetText(const program::Method& method, size_t delegate) {
  const auto& delegates = items(method.delegates);
  if (delegate >= delegates.size()) return "none";
  auto target = passes::delegateTargetDevice(delegates[delegate]);
  if (!target) return "invalid";
  return target.value() ? target.value()->str() : std::string("none");
}

std::string bufferText(const passes::BufferInfo& b) {
  return "buffer " + std::to_string(b.buffer_idx) + " (" + b.device.str() + ")";
}

}  // namespace

layout::MethodChanges methodChanges(const passes::MethodReport& report, const program::Method& loaded,
                                    const program::Method& current, const analysis::Dataflow& flow) {
  layout::MethodChanges changes;
  for (const auto& copy : report.copies_added) changes.added_copies[copy.instruction] = "added: " + copyChangeText(copy);

  // Delegate calls of the edited method in order: the report names an H2D's
  // reader by that ordinal.
  std::vector<size_t> delegateCalls;
  for (const auto& facts : flow.instructions())
    if (facts.kind == program::InstructionKind::DelegateCall) delegateCalls.push_back(facts.flat_index);

  // A removed D2H's readers, found in the program as loaded and carried over
  // by position among the instructions that are not copies (the passes add
  // and remove only copies, so that order is the same in every edit).
  std::optional<analysis::Dataflow> loadedFlow;
  std::vector<size_t> nonCopyInLoaded, nonCopyInCurrent;
  auto d2hReaders = [&](const passes::CopyRecord& copy) {
    if (!loadedFlow) {
      loadedFlow = analysis::Dataflow::build(loaded);
      nonCopyInLoaded = analysis::nonCopyInstructions(*loadedFlow);
      nonCopyInCurrent = analysis::nonCopyInstructions(flow);
    }
    std::vector<size_t> readers;
    if (copy.value < 0 || size_t(copy.value) >= loadedFlow->values().size()) return readers;
    for (size_t reader : loadedFlow->value(copy.value).consumers) {
      const auto at = std::lower_bound(nonCopyInLoaded.begin(), nonCopyInLoaded.end(), reader);
      if (at == nonCopyInLoaded.end() || *at != reader) continue;  // a copy reads it
      const auto ordinal = size_t(at - nonCopyInLoaded.begin());
      if (ordinal < nonCopyInCurrent.size()) readers.push_back(nonCopyInCurrent[ordinal]);
    }
    return readers;
  };

  for (const auto& copy : report.copies_removed) {
    layout::RemovedCopy ghost;
    ghost.host_to_device = copy.direction == program::CopyDirection::HostToDevice;
    ghost.from = copy.from;
    ghost.to = copy.to;
    ghost.bytes = copy.bytes;
    ghost.source = copy.source;
    if (ghost.host_to_device && copy.consumer_delegate >= 0 && size_t(copy.consumer_delegate) < delegateCalls.size())
      ghost.consumers.push_back(delegateCalls[size_t(copy.consumer_delegate)]);
    if (!ghost.host_to_device) ghost.consumers = d2hReaders(copy);
    ghost.note = "removed: " + copyChangeText(copy);
    changes.removed_copies.push_back(std::move(ghost));
  }
  for (const auto& r : report.retagged) changes.moved_values.push_back({r.value, r.before, r.after});
  // A copy kept by the edits may now go to another device (its delegate
  // was retargeted): same key, other devices.
  std::unordered_map<std::string, const passes::CopyRecord*> beforeByKey;
  for (const auto& before : report.copies_before) beforeByKey.emplace(before.key(), &before);
  for (const auto& after : report.copies_after) {
    auto it = beforeByKey.find(after.key());
    if (it == beforeByKey.end()) continue;
    const auto& before = *it->second;
    if (before.from == after.from && before.to == after.to) continue;
    changes.retargeted[after.instruction] = "copy now " + after.from.str() + " → " + after.to.str() + " (was " +
                                            before.from.str() + " → " + before.to.str() + ")";
  }

  for (const auto& facts : flow.instructions()) {
    if (facts.kind != program::InstructionKind::DelegateCall || facts.delegate_index < 0) continue;
    const auto before = targetText(loaded, size_t(facts.delegate_index));
    const auto after = targetText(current, size_t(facts.delegate_index));
    if (before != after) {
      changes.retargeted[facts.flat_index] = "target " + before + " → " + after;
      changes.retargeted_delegates.insert(facts.flat_index);
    }
  }

  // Buffers are paired by device (a device's first buffer with its first,
  // and so on), not by number: an edit that empties one device's buffer
  // renumbers the others, and paired by number they read as moved to other
  // devices and resized ("buffer 5 (cuda:3) dropped" while cuda:3 kept its).
  std::vector<program::Device> devices;
  auto onDevice = [](const std::vector<passes::BufferInfo>& buffers, const program::Device& device) {
    std::vector<const passes::BufferInfo*> out;
    for (const auto& b : buffers)
      if (b.device == device) out.push_back(&b);
    return out;
  };
  for (const auto* list : {&report.buffers_before, &report.buffers_after})
    for (const auto& b : *list)
      if (std::find(devices.begin(), devices.end(), b.device) == devices.end()) devices.push_back(b.device);
  for (const auto& device : devices) {
    const auto before = onDevice(report.buffers_before, device), after = onDevice(report.buffers_after, device);
    for (size_t i = 0; i < std::max(before.size(), after.size()); ++i) {
      if (i >= before.size()) {
        changes.notes.push_back(bufferText(*after[i]) + " new: " + program::bytesText(after[i]->size));
      } else if (i >= after.size()) {
        changes.notes.push_back(bufferText(*before[i]) + " dropped (" + program::bytesText(before[i]->size) + ")");
      } else if (before[i]->size != after[i]->size) {
        changes.notes.push_back(bufferText(*after[i]) + ": " + program::bytesText(before[i]->size) + " → " +
                                program::bytesText(after[i]->size));
      }
    }
  }
  return changes;
}

}  // namespace ptescope::report
