// `ptescope-cli --generate-man` and `--generate-completion bash`: the manual
// page and the completion script written from the CLI11 definitions the
// program parses with, so every subcommand (whoever adds it) is in both.
// Hidden: they are for the build, not for users.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>

#include "report/CommandDocs.h"

namespace ptescope::cli {

// The whole command tree as `name` with its subcommands, options and
// positional arguments (hidden ones left out).
report::CommandDoc describeCommand(const CLI::App& app, const std::string& name);

// When argv[1] asks for a generated document, prints it on stdout and
// returns the exit status; otherwise returns nothing. Call it after every
// subcommand is added.
std::optional<int> runDocGenerator(const CLI::App& app, int argc, char** argv);

}  // namespace ptescope::cli
