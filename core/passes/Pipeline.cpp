#include "passes/Pipeline.h"


#include "analysis/Summary.h"

namespace ptescope::passes {
using namespace ptescope::program;

bool PassReport::changed() const {
  for (const auto& m : methods)
    if (m.changed()) return true;
  return false;
}

std::vector<BufferInfo> buffersOf(const Method& method) {
  std::vector<BufferInfo> out;
  const auto& sizes = items(method.non_const_buffer_sizes);
  for (size_t i = 1; i < sizes.size(); ++i)
    out.push_back(BufferInfo{int32_t(i), sizes[i], method.bufferDevice(int32_t(i))});
  return out;
}

namespace {

// What a method's placement says about the planning mode it was exported
// with; inferDeviceOptions and planningInferenceNote read the same evidence.
struct PlanningEvidence {
  bool device_tags = false;      // some tensor is on a device
  bool planned_device = false;   // ... and some device tensor is planned
  bool device_buffers = false;   // non_const_buffer_device lists a buffer
  bool copies = false;           // et_copy instructions
  // Planning on shows as copies or device buffers; legacy mode as device
  // tensors planned in CPU buffers. Neither: the file cannot tell.
  bool undecided() const { return device_tags && !device_buffers && !copies && !planned_device; }
  bool planningOn() const { return !device_tags || device_buffers || copies || !planned_device; }
};

PlanningEvidence planningEvidence(const Method& method) {
  PlanningEvidence e;
  for (const auto& v : items(method.values))
    if (const Tensor* t = v.tensor(); t && !t->device().isCpu()) {
      e.device_tags = true;
      e.planned_device = e.planned_device || t->isPlanned();
    }
  e.device_buffers = !items(method.non_const_buffer_device).empty();
  const auto summary = analysis::summarizeMethod(method);
  e.copies = summary.h2d_copies + summary.d2h_copies > 0;
  return e;
}

}  // namespace

DeviceOptions inferDeviceOptions(const Method& method) {
  DeviceOptions options;
  const auto& values = items(method.values);
  auto tensorAt = [&](int32_t v) -> const Tensor* {
    return v >= 0 && size_t(v) < values.size() ? values[size_t(v)].tensor() : nullptr;
  };
  // Legacy mode (off) only on its evidence; an undecided file takes
  // upstream's current default (on).
  options.enable_non_cpu_memory_planning = planningEvidence(method).planningOn();
  size_t inputTensors = 0, plannedInputs = 0, outputTensors = 0, plannedOutputs = 0;
  for (int32_t i : items(method.inputs))
    if (const Tensor* t = tensorAt(i)) {
      ++inputTensors;
      plannedInputs += t->isPlanned() ? 1 : 0;
      if (!t->device().isCpu() && options.enable_non_cpu_memory_planning) options.skip_h2d_for_method_inputs = true;
    }
  for (int32_t o : items(method.outputs))
    if (const Tensor* t = tensorAt(o)) {
      ++outputTensors;
      plannedOutputs += t->isPlanned() ? 1 : 0;
      if (!t->device().isCpu() && options.enable_non_cpu_memory_planning) options.skip_d2h_for_method_outputs = true;
    }
  if (inputTensors > 0 && plannedInputs == 0) options.alloc_graph_input = false;
  if (outputTensors > 0 && plannedOutputs == 0) options.alloc_graph_output = false;
  return options;
}

std::string planningInferenceNote(const Method& method) {
  if (!planningEvidence(method).undecided()) return {};
  return "enable_non_cpu_memory_planning inferred on: the file has device-tagged tensors but no copies, no device "
         "buffers and no planned device tensor, which it would have either way; upstream's default (on) is taken "
         "(--no-device-planning for legacy mode)";
}

namespace {

// The delegates' compile specs are byte for byte those of `original`.
bool sameDelegates(const Method& edited, const Method& original) {
  const auto& a = items(edited.delegates);
  const auto& b = items(original.delegates);
  if (a.size() != b.size()) return false;
  for (size_t d = 0; d < a.size(); ++d) {
    const auto& sa = items(a[d].compile_specs);
    const auto& sb = items(b[d].compile_specs);
    if (sa.size() != sb.size()) return false;
    for (size_t s = 0; s < sa.size(); ++s)
      if (sa[s].key != sb[s].key || items(sa[s].value) != items(sb[s].value)) return false;
  }
  return true;
}

}  // namespace

Result<PipelineResult> runPipeline(const Program& input, const PipelineOptions& options) {
  PipelineResult result;
  result.program = input;
  Program& program = result.program;
  for (const auto& [where, device] : options.target_devices) {
    Method* method = program.findMethod(where.first);
    if (method == nullptr) return makeError("no method named '" + where.first + "'");
    auto& delegates = ensure(method->delegates);
    if (delegates.empty()) return makeError("method '" + where.first + "' has no delegates");
    if (where.second < 0 || size_t(where.second) >= delegates.size())
      return makeError("method '" + where.first + "' has no delegate " + std::to_string(where.second) + " (it has " +
                       std::to_string(delegates.size()) + ")");
    setDelegateTargetDevice(delegates[size_t(where.second)], device);
  }

  for (size_t m = 0; m < program.methods().size(); ++m) {
    Method& method = program.methods()[m];
    const Method& original = input.methods()[m];
    MethodReport report;
    report.name = method.displayName();
    report.options = options.forMethod(report.name);
    report.buffers_before = buffersOf(original);
    report.inference_note = planningInferenceNote(original);
    if (auto valid = validateDeviceOptions(report.options); !valid)
      return makeError("method '" + report.name + "': " + valid.error().message);

    auto stripped = stripDeviceCopies(method);
    if (!stripped) return stripped.error();
    report.copies_before = stripped->removed;
    // Device of every stripped value as loaded (copy outputs are gone; their
    // sources keep their own tags).
    std::vector<bool> isCopyOutput(stripped->canonical.size(), false);
    for (const auto& r : stripped->removed) isCopyOutput[size_t(r.value)] = true;
    std::vector<Device> loadedDevice(items(method.values).size());
    for (size_t v = 0; v < stripped->canonical.size(); ++v)
      if (const Tensor* t = (*original.values)[v].tensor(); t && !isCopyOutput[v])
        loadedDevice[size_t(stripped->canonical[v])] = t->device();

    auto propagated = propagateDevice(method, report.options);
    if (!propagated) return propagated.error();
    report.copies_after = propagated->added;
    report.device_delegates = propagated->device_delegates;
    report.elided_h2d = propagated->elided_h2d;
    report.warnings = propagated->notes;

    report.copies_added = copiesNotIn(report.copies_after, report.copies_before);
    report.copies_removed = copiesNotIn(report.copies_before, report.copies_after);
    for (size_t v = 0; v < loadedDevice.size() && v < method.values->size(); ++v) {
      const Tensor* t = (*method.values)[v].tensor();
      if (t != nullptr && t->device() != loadedDevice[v])
        report.retagged.push_back(RetaggedValue{int32_t(v), loadedDevice[v], t->device()});
    }
    // Nothing to do: the same copies, every tensor on the same device, the
    // delegates' specs as loaded, and the options the file was exported with.
    // The method stays exactly as the file has it, memory plan included
    // (planning it again would move offsets for no reason).
    if (report.copies_added.empty() && report.copies_removed.empty() && report.retagged.empty() &&
        report.copies_after.size() == report.copies_before.size() && report.options == inferDeviceOptions(original) &&
        sameDelegates(method, original)) {
      method = original;
      report.buffers_after = report.buffers_before;
      report.plan_kept = true;
      result.report.methods.push_back(std::move(report));
      continue;
    }

    PlanningOptions planning;
    planning.enable_non_cpu_memory_planning = report.options.enable_non_cpu_memory_planning;
    planning.alloc_graph_input = report.options.alloc_graph_input;
    planning.alloc_graph_output = report.options.alloc_graph_output;
    auto planned = planMemory(method, planning);
    if (!planned) return makeError("method '" + report.name + "': " + planned.error().message);
    report.buffers_after = buffersOf(method);
    result.report.methods.push_back(std::move(report));
  }
  return result;
}

}  // namespace ptescope::passes
