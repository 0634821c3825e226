// Manual pages and shell completion written from a program's own option
// definitions. The entry points (app/) describe their parsers as a
// CommandDoc, so `man ptescope-cli` and the completion script can never drift
// from what the programs accept.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace ptescope::report {

struct OptionDoc {
  // "-o", "--output"; empty for a positional argument.
  std::vector<std::string> names;
  // What the value is called ("FILE", "N"); empty for a flag. For a
  // positional argument this is its name.
  std::string value_name;
  std::string description;
  // The only values it takes, when fixed (offered by completion).
  std::vector<std::string> choices;
  bool required = false;
  // Takes several values (positional: "FILE...").
  bool repeatable = false;
  // The value is a path (completion offers files).
  bool takes_path = true;
};

struct CommandDoc {
  std::string name;
  // One line, without the program name ("inspect, edit and ...").
  std::string summary;
  // Longer text; lines are kept as lines.
  std::string description;
  std::vector<OptionDoc> positionals;
  std::vector<OptionDoc> options;
  std::vector<CommandDoc> subcommands;
};

struct ManPageInfo {
  std::string section = "1";
  std::string source;  // "ptescope 0.1.0"
  std::string manual = "User Commands";
  // Sections after the options and commands: title, then text whose blank
  // lines separate paragraphs.
  std::vector<std::pair<std::string, std::string>> extra_sections;
  std::vector<std::string> see_also;  // "ptescope(1)"
};

// A man(7) page: NAME, SYNOPSIS, DESCRIPTION, OPTIONS, COMMANDS (one
// subsection per subcommand, nested ones by their full path), the extra
// sections, SEE ALSO. Every text is escaped for roff.
std::string manPage(const CommandDoc& command, const ManPageInfo& info);

// A bash completion script defining _<name> (non-word characters as '_') and
// registering it for `command.name`: subcommands, their options, fixed
// choices and file names for values.
std::string bashCompletion(const CommandDoc& command);

// Text escaped for a roff text line: backslashes, minus signs, and a leading
// '.' or '\'' that roff would read as a request.
std::string roffEscape(const std::string& text);

}  // namespace ptescope::report
