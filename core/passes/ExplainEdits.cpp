#include "passes/ExplainEdits.h"

#include "analysis/Dataflow.h"

namespace ptescope::passes {

namespace {

struct CopyCounts {
  size_t h2d_of_inputs = 0;    // h2d copies whose source is a method input
  size_t d2h_to_outputs = 0;   // d2h copies whose result the method returns
  size_t device_delegates = 0; // delegate calls with a target device
};

CopyCounts countCopies(const program::Method& method) {
  CopyCounts counts;
  const auto flow = analysis::Dataflow::build(method);
  for (const auto& facts : flow.instructions()) {
    if (facts.is_h2d_copy) {
      for (int32_t v : facts.inputs)
        if (v >= 0 && size_t(v) < flow.values().size() && flow.value(v).is_method_input) ++counts.h2d_of_inputs;
    } else if (facts.is_d2h_copy) {
      for (int32_t v : facts.outputs)
        if (v >= 0 && size_t(v) < flow.values().size() && flow.value(v).is_method_output) ++counts.d2h_to_outputs;
    }
  }
  for (const auto& d : program::items(method.delegates)) {
    auto target = delegateTargetDevice(d);
    if (target.ok() && target.value() && !target.value()->isCpu()) ++counts.device_delegates;
  }
  return counts;
}

}  // namespace

std::vector<std::string> explainUnchangedOptions(const program::Method& method, const DeviceOptions& before,
                                                 const DeviceOptions& after) {
  std::vector<std::string> reasons;
  if (before == after) return reasons;
  const CopyCounts counts = countCopies(method);
  const std::string noDelegate = "no delegate of this method has a target_device, so the device passes insert no copies";
  if (before.skip_h2d_for_method_inputs != after.skip_h2d_for_method_inputs) {
    if (counts.device_delegates == 0)
      reasons.push_back("skip_h2d_for_method_inputs changes nothing: " + noDelegate + ".");
    else if (counts.h2d_of_inputs == 0)
      reasons.push_back(
          "skip_h2d_for_method_inputs changes nothing: no method input is copied to a device. Each input is read on "
          "the CPU first (or feeds no device delegate), so upstream inserts no h2d copy of an input to skip.");
  }
  if (before.skip_d2h_for_method_outputs != after.skip_d2h_for_method_outputs) {
    if (counts.device_delegates == 0)
      reasons.push_back("skip_d2h_for_method_outputs changes nothing: " + noDelegate + ".");
    else if (counts.d2h_to_outputs == 0)
      reasons.push_back(
          "skip_d2h_for_method_outputs changes nothing: no method output comes from a device delegate. Each output "
          "is made on the CPU, so upstream inserts no d2h copy of an output to skip.");
  }
  if (before.alloc_graph_input != after.alloc_graph_input)
    reasons.push_back(
        "alloc_graph_input changes nothing: the method's inputs take no planned memory that this option moves "
        "(no tensor input, or none placed in a planned buffer).");
  if (before.alloc_graph_output != after.alloc_graph_output)
    reasons.push_back(
        "alloc_graph_output changes nothing: the method's outputs take no planned memory that this option moves "
        "(no tensor output, or each is also read inside the method).");
  if (before.enable_non_cpu_memory_planning != after.enable_non_cpu_memory_planning && counts.device_delegates == 0)
    reasons.push_back("enable_non_cpu_memory_planning changes nothing: " + noDelegate + ".");
  return reasons;
}

}  // namespace ptescope::passes
