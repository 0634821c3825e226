// ptescope-cli: the headless twin of the desktop app. Argument parsing and
// wiring only; the work is done in ptescope_core.
#include <filesystem>
#include <CLI/CLI.hpp>

#include "CliCommon.h"
#include "CliDocs.h"

#include <cstdio>
#include <optional>
#include <iostream>
#include <cstdlib>
#include <string>
#include <vector>

#include "AdviseCommand.h"
#include "EtdumpCommand.h"
#include "PassCommands.h"
#include "PredictCommand.h"
#include "ProfileCommand.h"
#include "RunCommand.h"
#include "RenderCommand.h"
#include "ReportCommand.h"
#include "exec/MemoryBudget.h"
#include "pte/JsonDump.h"
#include "pte/Reader.h"
#include "pte/DataWriter.h"
#include "pte/Writer.h"
#include "report/DataInfo.h"
#include "report/GraphText.h"
#include "report/InfoReport.h"
#include "synth/JsonSpec.h"
#include "synth/Scenarios.h"
#include "synth/WriteProgram.h"
#include "synth/Shapes.h"
#include "util/MappedFile.h"

namespace {

using ptescope::cli::fail;
using ptescope::cli::kExitBadInput;

ptescope::Result<ptescope::pte::LoadedProgram> load(const std::string& path, const std::vector<std::string>& ptd) {
  ptescope::pte::ReadOptions options;
  options.ptd_paths = ptd;
  return ptescope::pte::readProgramFile(path, options);
}

// info on a .ptd (FT01 at byte 4): the data file's entries.
std::optional<int> runDataInfo(const std::string& path, bool json) {
  auto bytes = ptescope::mapFile(path);
  if (!bytes) return std::nullopt;  // the program reader says what is wrong
  const auto span = bytes->span();
  if (span.size() < 8 || std::string(reinterpret_cast<const char*>(span.data()) + 4, 4) != "FT01") return std::nullopt;
  auto data = ptescope::pte::readDataBytes(bytes.value(), path);
  if (!data) return fail(data.error().message);
  if (json) std::cout << ptescope::cli::jsonForStdout(ptescope::report::dataInfoJson(data.value(), span.data(), span.size())) << "\n";
  else std::cout << ptescope::cli::textForStdout(ptescope::report::dataInfoText(data.value(), span.data(), span.size()));
  return 0;
}

int runInfo(const std::string& path, const std::vector<std::string>& ptd, bool json, bool graph) {
  if (auto status = runDataInfo(path, json)) return *status;
  auto loaded = load(path, ptd);
  if (!loaded) return fail(loaded.error().message);
  if (json) {
    auto info = ptescope::report::infoJson(loaded.value());
    if (graph) {
      const auto& methods = loaded->program.methods();
      for (size_t m = 0; m < methods.size(); ++m)
        info["methods"][m]["graph"] = ptescope::report::methodGraphJson(methods[m]);
    }
    std::cout << ptescope::cli::jsonForStdout(info) << "\n";
    ptescope::cli::noteEscapedNames(loaded.value());
  } else {
    std::cout << ptescope::cli::textForStdout(ptescope::report::infoText(loaded.value()));
    if (graph) std::cout << "\n" << ptescope::cli::textForStdout(ptescope::report::graphText(loaded->program));
    for (const auto& w : loaded->warnings) ptescope::cli::warn(w);
  }
  return 0;
}

int runDump(const std::string& path) {
  auto bytes = ptescope::mapFile(path);
  if (!bytes) return fail(bytes.error().message);
  const auto span = bytes->span();
  const bool isData = span.size() >= 8 && std::string(reinterpret_cast<const char*>(span.data()) + 4, 4) == "FT01";
  auto text = isData ? ptescope::pte::dumpDataFileJson(span) : ptescope::pte::dumpProgramJson(span);
  if (!text) return fail(path + ": " + text.error().message);
  std::cout << text.value();
  return 0;
}

int runExport(const std::string& path, const std::vector<std::string>& ptd, const std::string& out, bool force) {
  auto loaded = load(path, ptd);
  if (!loaded) return fail(loaded.error().message);
  ptescope::pte::WriteOptions options;
  options.input_path = path;
  options.allow_overwrite_input = force;
  ptescope::cli::noteEscapedNames(loaded.value());
  auto status = ptescope::pte::writeProgramFile(loaded->program, out, options);
  if (!status) return fail(status.error().message);
  ptescope::cli::say("wrote " + out);
  for (const auto& note : ptescope::pte::carryDataFiles(loaded->program, out)) ptescope::cli::say(note);
  return 0;
}

// ---- synth: build a program from a JSON spec or a built-in generator ----

struct SynthArgs {
  std::string spec;
  std::string scenario;
  bool demo = false;
  bool large = false;  // --large given
  long long large_layers = 0;
  bool list_scenarios = false;
  std::string shape;  // --shape NAME, sized by --layers or --instructions
  long long shape_layers = 0;
  long long shape_instructions = 0;
  bool list_shapes = false;
  bool no_passes = false;
  std::string max_constants;  // --max-constants SIZE for a SPEC
  std::string output;
};

int runSynth(const SynthArgs& args) {
  namespace synth = ptescope::synth;
  if (args.list_scenarios) {
    for (const auto& s : synth::scenarios()) std::cout << s.name << "\t" << s.description << "\n";
    return 0;
  }
  if (args.list_shapes) {
    for (const auto& s : synth::programShapes())
      std::cout << s.name << "\t" << s.instructions_per_layer_with_copies << " instructions per layer after the passes ("
                << s.instructions_per_layer << " before), up to " << s.max_layers << " layers\t" << s.description << "\n";
    return 0;
  }
  const int sources = int(!args.spec.empty()) + int(!args.scenario.empty()) + int(args.demo) + int(args.large) +
                      int(!args.shape.empty());
  if (sources != 1)
    return fail("synth: give exactly one of SPEC.json, --scenario NAME, --demo, --large N or --shape NAME");
  if (args.shape.empty() && (args.shape_layers || args.shape_instructions))
    return fail("synth: --layers and --instructions size a --shape program");
  if (args.output.empty()) return fail("synth: --output (-o) is required");
  ptescope::synth::SpecLimits limits;
  if (!args.max_constants.empty()) {
    if (args.spec.empty()) return fail("synth: --max-constants limits a SPEC's constants");
    auto size = ptescope::exec::parseMemorySize(args.max_constants);
    if (!size || *size == 0)
      return fail("synth: --max-constants: '" + args.max_constants + "' is not a size (bytes, or 512M, 2G, ...)");
    limits.max_constant_bytes = *size;
  }
  ptescope::Result<ptescope::program::Program> program = ptescope::makeError("no program");
  if (!args.shape.empty()) {
    if (args.shape_layers && args.shape_instructions) return fail("synth: give --layers or --instructions, not both");
    // An unknown shape is said first (it asked for --layers of "banana").
    if (auto probe = synth::shapeProgram(args.shape, 1); !probe) return fail("synth: " + probe.error().message);
    if (args.shape_layers < 0 || args.shape_instructions < 0)
      return fail("synth: --layers and --instructions must be positive");
    size_t layers = args.shape_layers > 0 ? static_cast<size_t>(args.shape_layers) : 0;
    if (args.shape_instructions > 0) {
      auto sized = synth::layersForInstructions(args.shape, static_cast<size_t>(args.shape_instructions));
      if (!sized) return fail("synth: " + sized.error().message);
      layers = sized.value();
    }
    if (layers == 0) return fail("synth: --shape needs a positive --layers N or --instructions N");
    program = synth::shapeProgram(args.shape, layers);
    if (program && !args.no_passes) program = synth::applyDevicePasses(synth::SynthesizedProgram{program.value(), {}});
  } else if (args.large) {
    if (args.large_layers < 1) return fail("synth: --large needs a positive number of layers");
    program = synth::largeProgram(static_cast<size_t>(args.large_layers));
    if (program && !args.no_passes) program = synth::applyDevicePasses(synth::SynthesizedProgram{program.value(), {}});
  } else {
    auto built = !args.spec.empty()       ? synth::synthesizeFromSpecFile(args.spec, limits)
                 : !args.scenario.empty() ? synth::synthesizeScenario(args.scenario)
                                          : synth::synthesizeDemo();
    if (!built) return fail(built.error().message);
    program = args.no_passes ? ptescope::Result<ptescope::program::Program>(std::move(built->program))
                             : synth::applyDevicePasses(built.value());
  }
  if (!program) return fail(program.error().message);
  auto written = synth::writeProgramAndData(program.value(), args.output);
  if (!written) return fail(written.error().message);
  for (const auto& path : written.value()) {
    std::string why;
    for (const auto& data : program->external_data)
      if (path.ends_with(".ptd") && std::filesystem::path(path).filename() != std::filesystem::path(data.path).filename())
        why = " (" + std::filesystem::path(data.path).filename().string() +
              " beside it holds another program's data and is left as it was)";
    ptescope::cli::say("wrote " + path + why);
  }
  return 0;
}

}  // namespace

int runCli(int argc, char** argv) {
  CLI::App app{"ptescope-cli: inspect, edit and profile ExecuTorch programs (.pte) that run partly on a GPU"};
  app.set_version_flag("--version", std::string("ptescope ") + PTESCOPE_VERSION);
  app.require_subcommand(1);

  std::string file;
  std::string output;
  std::vector<std::string> ptd;
  bool json = false;
  bool force = false;
  bool graph = false;

  auto* info = app.add_subcommand("info", "Summarize a program: methods, values, instructions, delegates, devices, buffers; "
                                          "or a data file (.ptd): its entries, sizes, offsets and alignment");
  info->add_option("FILE", file, "Program (.pte) or data file (.ptd)")->required();
  info->add_flag("--json", json, "Print one JSON object instead of text");
  info->add_option("--ptd", ptd, "External data file(s) (.ptd) for EXTERNAL constants");
  info->add_flag("--graph", graph, "Also list every instruction with its input and output values (dtype, sizes, device)");

  auto* dump = app.add_subcommand("dump", "Print the whole program (or .ptd) as JSON, exactly as flatc --json would");
  dump->add_option("FILE", file, "Program (.pte) or data file (.ptd)")->required();
  dump->add_flag("--json", json, "JSON output (the only format; accepted for clarity)");

  auto* exportCmd = app.add_subcommand("export", "Read a program and write it back through the verified writer");
  exportCmd->add_option("FILE", file, "Program (.pte)")->required();
  exportCmd->add_option("-o,--output", output, "Output program (.pte)")->required();
  exportCmd->add_option("--ptd", ptd, "External data file(s) (.ptd)");
  exportCmd->add_flag("--force", force, "Allow writing over the input file");

  SynthArgs synthArgs;
  auto* synthCmd = app.add_subcommand("synth", "Build a program from a JSON spec, a test scenario, the demo or a large benchmark model");
  synthCmd->add_option("SPEC", synthArgs.spec, "a JSON file that specifies the program (format: README, core/synth/JsonSpec.h)")
      ->type_name("FILE");
  synthCmd->add_option("-o,--output", synthArgs.output, "Output program (.pte)");
  synthCmd->add_option("--scenario", synthArgs.scenario, "A device-pass test scenario by name (see --list-scenarios)");
  synthCmd->add_flag("--demo", synthArgs.demo, "The embedded demo program (resources/demo.json)");
  auto* largeOption = synthCmd->add_option("--large", synthArgs.large_layers,
                       "A transformer-like program of N layers, 10 instructions each (N=500: 5k, N=5000: 50k)");
  synthCmd->add_flag("--list-scenarios", synthArgs.list_scenarios, "Print the scenario names and what they are");
  synthCmd->add_option("--shape", synthArgs.shape,
                       "A big program of a realistic shape: llm, moe, pipeline or fanout (see --list-shapes)");
  synthCmd->add_option("--layers", synthArgs.shape_layers, "Layers of the --shape program");
  synthCmd->add_option("--instructions", synthArgs.shape_instructions,
                       "Size the --shape program to about N instructions after the device passes");
  synthCmd->add_flag("--list-shapes", synthArgs.list_shapes, "Print the program shapes, their sizes and what they are");
  synthCmd->add_option("--max-constants", synthArgs.max_constants,
                       "Largest total of constant data a SPEC may ask for (bytes, or 512M, 2G, ...); default: a quarter "
                       "of the available memory");
  synthCmd->add_flag("--no-passes", synthArgs.no_passes,
                     "Write the program as built (every tensor on CPU, planned for CPU) instead of running the "
                     "device passes with the spec's options");

  auto passCommands = ptescope::cli::addPassCommands(app);
  auto profileCommand = ptescope::cli::addProfileCommand(app);
  auto renderCommand = ptescope::cli::addRenderCommand(app);
  auto reportCommand = ptescope::cli::addReportCommand(app);
  auto etdumpCommand = ptescope::cli::addEtdumpCommand(app);
  auto predictCommands = ptescope::cli::addPredictCommands(app);
  auto adviseCommand = ptescope::cli::addAdviseCommand(app);

  auto runCommand = ptescope::cli::addRunCommand(app);

  // Hidden, for the build: the man page and completion from the definitions above.
  if (auto status = ptescope::cli::runDocGenerator(app, argc, argv)) return *status;

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // A number option given a word: CLI11's range check reads it as out of
    // range ("--iterations: Value abc not in range 1 to 1000000").
    std::string what = e.what();
    if (const auto at = what.find(": Value "), to = what.find(" not in range "); at != std::string::npos && to != std::string::npos) {
      const std::string value = what.substr(at + 8, to - at - 8);
      char* end = nullptr;
      std::strtod(value.c_str(), &end);
      if (value.empty() || end == value.c_str() || *end != '\0')
        what = what.substr(0, at) + ": '" + value + "' is not a number (expected one in the range " + what.substr(to + 14) + ")";
    }
    return fail(what + " (run with --help for usage)");
  }

  if (auto status = passCommands->runIfParsed()) return *status;
  if (auto status = profileCommand->runIfParsed()) return *status;
  if (auto status = renderCommand->runIfParsed()) return *status;
  if (auto status = reportCommand->runIfParsed()) return *status;
  if (auto status = etdumpCommand->runIfParsed()) return *status;
  if (auto status = predictCommands->runIfParsed()) return *status;
  if (auto status = adviseCommand->runIfParsed()) return *status;
  if (auto status = runCommand->runIfParsed()) return *status;
  if (info->parsed()) return runInfo(file, ptd, json, graph);
  if (dump->parsed()) return runDump(file);
  if (synthCmd->parsed()) {
    synthArgs.large = largeOption->count() > 0;
    return runSynth(synthArgs);
  }
  if (exportCmd->parsed()) return runExport(file, ptd, output, force);
  return fail("no subcommand given (run with --help)");
}

// Nothing may leave main as an exception (std::terminate would abort with a
// core dump): whatever escapes a command is one line and exit status 2.
int main(int argc, char** argv) {
  try {
    return runCli(argc, argv);
  } catch (const std::bad_alloc&) {
    return fail("out of memory");
  } catch (const std::exception& e) {
    return fail(std::string("internal error: ") + e.what());
  } catch (...) {
    return fail("internal error: unknown exception");
  }
}
