// ptescope-cli: the headless twin of the desktop app. Argument parsing and
// wiring only; the work is done in ptescope_core.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "pte/JsonDump.h"
#include "pte/Reader.h"
#include "pte/Writer.h"
#include "report/InfoReport.h"
#include "util/MappedFile.h"

namespace {

constexpr int kExitBadInput = 2;

int fail(const std::string& message) {
  std::cerr << "ptescope-cli: " << message << "\n";
  return kExitBadInput;
}

ptescope::Result<ptescope::pte::LoadedProgram> load(const std::string& path, const std::vector<std::string>& ptd) {
  ptescope::pte::ReadOptions options;
  options.ptd_paths = ptd;
  return ptescope::pte::readProgramFile(path, options);
}

int runInfo(const std::string& path, const std::vector<std::string>& ptd, bool json) {
  auto loaded = load(path, ptd);
  if (!loaded) return fail(loaded.error().message);
  if (json) {
    std::cout << ptescope::report::infoJson(loaded.value()).dump(2) << "\n";
  } else {
    std::cout << ptescope::report::infoText(loaded.value());
    for (const auto& w : loaded->warnings) std::cerr << "ptescope-cli: warning: " << w << "\n";
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
  auto status = ptescope::pte::writeProgramFile(loaded->program, out, options);
  if (!status) return fail(status.error().message);
  std::cerr << "ptescope-cli: wrote " << out << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ptescope-cli: inspect, edit and profile ExecuTorch programs (.pte) that run partly on a GPU"};
  app.set_version_flag("--version", std::string("ptescope ") + PTESCOPE_VERSION);
  app.require_subcommand(1);

  std::string file;
  std::string output;
  std::vector<std::string> ptd;
  bool json = false;
  bool force = false;

  auto* info = app.add_subcommand("info", "Summarize a program: methods, values, instructions, delegates, devices, buffers");
  info->add_option("FILE", file, "Program (.pte)")->required();
  info->add_flag("--json", json, "Print one JSON object instead of text");
  info->add_option("--ptd", ptd, "External data file(s) (.ptd) for EXTERNAL constants");

  auto* dump = app.add_subcommand("dump", "Print the whole program (or .ptd) as JSON, exactly as flatc --json would");
  dump->add_option("FILE", file, "Program (.pte) or data file (.ptd)")->required();
  dump->add_flag("--json", json, "JSON output (the only format; accepted for clarity)");

  auto* exportCmd = app.add_subcommand("export", "Read a program and write it back through the verified writer");
  exportCmd->add_option("FILE", file, "Program (.pte)")->required();
  exportCmd->add_option("-o,--output", output, "Output program (.pte)")->required();
  exportCmd->add_option("--ptd", ptd, "External data file(s) (.ptd)");
  exportCmd->add_flag("--force", force, "Allow writing over the input file");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return fail(std::string(e.what()) + " (run with --help for usage)");
  }

  if (info->parsed()) return runInfo(file, ptd, json);
  if (dump->parsed()) return runDump(file);
  if (exportCmd->parsed()) return runExport(file, ptd, output, force);
  return fail("no subcommand given (run with --help)");
}
