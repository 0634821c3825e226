#include "passes/ProgramEdits.h"

namespace ptescope::passes {
using namespace ptescope::program;

bool OptionChanges::empty() const { return *this == OptionChanges{}; }

DeviceOptions OptionChanges::appliedTo(DeviceOptions options) const {
  auto apply = [](bool& field, const std::optional<bool>& change) {
    if (change) field = *change;
  };
  apply(options.enable_non_cpu_memory_planning, enable_non_cpu_memory_planning);
  apply(options.skip_h2d_for_method_inputs, skip_h2d_for_method_inputs);
  apply(options.skip_d2h_for_method_outputs, skip_d2h_for_method_outputs);
  apply(options.alloc_graph_input, alloc_graph_input);
  apply(options.alloc_graph_output, alloc_graph_output);
  return options;
}

std::vector<DeviceOptions> fileOptions(const Program& program) {
  std::vector<DeviceOptions> out;
  out.reserve(program.methods().size());
  for (const auto& m : program.methods()) out.push_back(inferDeviceOptions(m));
  return out;
}

namespace {

Status checkDelegate(const Program& loaded, const std::string& method, int32_t delegate) {
  const Method* m = loaded.findMethod(method);
  if (m == nullptr) return makeError("no method named '" + method + "'");
  const size_t count = items(m->delegates).size();
  if (count == 0) return makeError("method '" + method + "' has no delegates");
  if (delegate < 0 || size_t(delegate) >= count)
    return makeError("method '" + method + "' has no delegate " + std::to_string(delegate) + " (it has " +
                     std::to_string(count) + ")");
  return Ok{};
}

}  // namespace

Result<PipelineOptions> pipelineOptionsFor(const Program& loaded, const ProgramEdits& edits) {
  PipelineOptions pipeline;
  const auto& methods = loaded.methods();
  for (const auto& m : methods) pipeline.per_method[m.displayName()] = inferDeviceOptions(m);
  for (const auto& [name, options] : edits.options) {
    if (loaded.findMethod(name) == nullptr) return makeError("no method named '" + name + "'");
    if (auto valid = validateDeviceOptions(options); !valid)
      return makeError("method '" + name + "': " + valid.error().message);
    pipeline.per_method[name] = options;
  }
  for (const auto& [where, device] : edits.target_devices)
    if (auto valid = checkDelegate(loaded, where.first, where.second); !valid) return valid.error();
  pipeline.target_devices = edits.target_devices;
  return pipeline;
}

Result<PipelineResult> runEdits(const Program& loaded, const ProgramEdits& edits) {
  auto options = pipelineOptionsFor(loaded, edits);
  if (!options) return options.error();
  return runPipeline(loaded, options.value());
}

Result<ProgramEdits> editsFromChanges(const Program& loaded, OptionBase base, const OptionChanges& changes,
                                      const std::string& method) {
  if (!method.empty() && loaded.findMethod(method) == nullptr) return makeError("no method named '" + method + "'");
  ProgramEdits edits;
  for (const auto& m : loaded.methods()) {
    const std::string name = m.displayName();
    if (!method.empty() && name != method) continue;
    const DeviceOptions file = inferDeviceOptions(m);
    const DeviceOptions start = base == OptionBase::File ? file : DeviceOptions{};
    const DeviceOptions options = changes.appliedTo(start);
    if (!(options == file)) edits.options[name] = options;
  }
  return edits;
}

Status setTargetDevice(ProgramEdits& edits, const Program& loaded, const std::string& method, int32_t delegate,
                       const std::optional<Device>& device) {
  if (auto valid = checkDelegate(loaded, method, delegate); !valid) return valid;
  const Method& m = *loaded.findMethod(method);
  const auto key = std::make_pair(method, delegate);
  auto original = delegateTargetDevice((*m.delegates)[size_t(delegate)]);
  if (original && original.value() == device) {
    edits.target_devices.erase(key);
  } else {
    edits.target_devices[key] = device;
  }
  return Ok{};
}

}  // namespace ptescope::passes
