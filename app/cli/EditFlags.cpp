#include "EditFlags.h"

#include <charconv>
#include <regex>

namespace ptescope::cli {

void EditFlags::addTo(CLI::App* command) {
  command->add_flag("--skip-h2d-inputs", skipH2d_,
                    "skip_h2d_for_method_inputs: method inputs feeding a device delegate are tagged with its device, no copy");
  command->add_flag("--skip-d2h-outputs", skipD2h_,
                    "skip_d2h_for_method_outputs: delegate outputs returned by the method stay on the device");
  command->add_flag("--no-device-planning", noDevicePlanning_,
                    "enable_non_cpu_memory_planning=False: legacy tags, no copies, one CPU arena");
  command->add_flag("--no-alloc-graph-input", noAllocInput_, "alloc_graph_input=False: method inputs are not memory-planned");
  command->add_flag("--no-alloc-graph-output", noAllocOutput_,
                    "alloc_graph_output=False: method outputs are not memory-planned");
  command
      ->add_option("--set-device", setDevices_,
                   "[METHOD:]DELEGATE_INDEX=cuda:N|cpu|none: set or remove a delegate's target_device")
      ->take_all();
}

bool EditFlags::any() const {
  return skipH2d_ || skipD2h_ || noDevicePlanning_ || noAllocInput_ || noAllocOutput_ || !setDevices_.empty();
}

Result<passes::PipelineOptions> EditFlags::pipelineOptions(const program::Program& program, const std::string& file,
                                                           const std::string& method, Base base) const {
  // The options of one method: upstream's defaults or the file's, changed
  // by the flags given.
  auto optionsFor = [&](const program::Method& m) {
    passes::DeviceOptions options = base == Base::FromFile ? passes::inferDeviceOptions(m) : passes::DeviceOptions{};
    options.skip_h2d_for_method_inputs = options.skip_h2d_for_method_inputs || skipH2d_;
    options.skip_d2h_for_method_outputs = options.skip_d2h_for_method_outputs || skipD2h_;
    options.enable_non_cpu_memory_planning = options.enable_non_cpu_memory_planning && !noDevicePlanning_;
    options.alloc_graph_input = options.alloc_graph_input && !noAllocInput_;
    options.alloc_graph_output = options.alloc_graph_output && !noAllocOutput_;
    return options;
  };
  passes::PipelineOptions pipeline;
  if (!method.empty() && program.findMethod(method) == nullptr)
    return makeError(file + ": no method named '" + method + "'");
  if (method.empty() && base == Base::Defaults) {
    pipeline.defaults = optionsFor(program::Method{});
  } else {
    for (const auto& m : program.methods())
      pipeline.per_method[m.displayName()] =
          method.empty() || m.displayName() == method ? optionsFor(m) : passes::inferDeviceOptions(m);
  }
  static const std::regex kSetDevice(R"(^(?:(.+):)?(-?\d+)=(.+)$)");
  for (const auto& text : setDevices_) {
    std::smatch match;
    if (!std::regex_match(text, match, kSetDevice))
      return makeError("--set-device '" + text + "': expected [METHOD:]DELEGATE_INDEX=cuda:N|cpu|none");
    std::string methodName = match[1].matched ? match[1].str() : method;
    if (methodName.empty()) {
      if (program.methods().size() != 1)
        return makeError("--set-device '" + text + "': the program has " + std::to_string(program.methods().size()) +
                         " methods; name one with --method or METHOD:INDEX=DEVICE");
      methodName = program.methods()[0].displayName();
    }
    std::optional<program::Device> device;
    if (match[3].str() != "none") {
      auto parsed = program::parseDeviceSpec(match[3].str());
      if (!parsed) return makeError("--set-device '" + text + "': " + parsed.error().message);
      device = parsed.value();
    }
    int32_t index = 0;
    const std::string digits = match[2].str();
    const auto parsed = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    if (parsed.ec != std::errc() || parsed.ptr != digits.data() + digits.size())
      return makeError("--set-device '" + text + "': delegate index " + digits + " is out of range");
    pipeline.target_devices[{methodName, index}] = device;
  }
  return pipeline;
}

}  // namespace ptescope::cli
