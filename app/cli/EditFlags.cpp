#include "EditFlags.h"

#include <charconv>
#include <regex>

namespace ptescope::cli {

std::optional<bool> EditFlags::TriState::value() const {
  // The two spellings exclude each other (CLI11 refuses both at once).
  if (on->count() > 0) return true;
  if (off->count() > 0) return false;
  return std::nullopt;
}

void EditFlags::addTriState(CLI::App* command, TriState& flag, const std::string& on, const std::string& off,
                            const std::string& field, bool onMeansTrue) {
  const std::string t = onMeansTrue ? "True" : "False", f = onMeansTrue ? "False" : "True";
  flag.on = command->add_flag(on)->description(field + "=" + t + " (default: as the file has it)");
  flag.off = command->add_flag(off)->description(field + "=" + f);
  flag.on->excludes(flag.off);
}

void EditFlags::addTo(CLI::App* command) {
  addTriState(command, skipH2d_, "--skip-h2d-inputs", "--no-skip-h2d-inputs", "skip_h2d_for_method_inputs", true);
  addTriState(command, skipD2h_, "--skip-d2h-outputs", "--no-skip-d2h-outputs", "skip_d2h_for_method_outputs", true);
  addTriState(command, devicePlanning_, "--device-planning", "--no-device-planning", "enable_non_cpu_memory_planning",
              true);
  addTriState(command, allocInput_, "--alloc-graph-input", "--no-alloc-graph-input", "alloc_graph_input", true);
  addTriState(command, allocOutput_, "--alloc-graph-output", "--no-alloc-graph-output", "alloc_graph_output", true);
  command->add_flag("--defaults", defaults_,
                    "start every edited method from upstream's defaults instead of the options read off the file");
  command
      ->add_option("--set-device", setDevices_,
                   "[METHOD:]DELEGATE_INDEX=cuda:N|cpu|none: set or remove a delegate's target_device")
      ->take_all();
}

passes::OptionChanges EditFlags::changes() const {
  passes::OptionChanges c;
  c.enable_non_cpu_memory_planning = devicePlanning_.value();
  c.skip_h2d_for_method_inputs = skipH2d_.value();
  c.skip_d2h_for_method_outputs = skipD2h_.value();
  c.alloc_graph_input = allocInput_.value();
  c.alloc_graph_output = allocOutput_.value();
  return c;
}

bool EditFlags::any() const { return !changes().empty() || defaults_ || !setDevices_.empty(); }

Result<passes::ProgramEdits> EditFlags::edits(const program::Program& program, const std::string& file,
                                              const std::string& method) const {
  const auto base = defaults_ ? passes::OptionBase::UpstreamDefaults : passes::OptionBase::File;
  auto edits = passes::editsFromChanges(program, base, changes(), method);
  if (!edits) return makeError(file + ": " + edits.error().message);

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
    if (auto set = passes::setTargetDevice(edits.value(), program, methodName, index, device); !set)
      return makeError("--set-device '" + text + "': " + set.error().message);
  }
  return edits;
}

Result<passes::PipelineOptions> EditFlags::pipelineOptions(const program::Program& program, const std::string& file,
                                                           const std::string& method) const {
  auto e = edits(program, file, method);
  if (!e) return e.error();
  auto options = passes::pipelineOptionsFor(program, e.value());
  if (!options) {
    std::string message = file + ": " + options.error().message;
    // Upstream's words name its Python option; say which flag of ours sets it.
    if (message.find("only meaningful when enable_non_cpu_memory_planning") != std::string::npos)
      message += " (ptescope-cli: add --device-planning, or drop the skip flags)";
    return makeError(message);
  }
  return options;
}

}  // namespace ptescope::cli
