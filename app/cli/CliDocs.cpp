#include "CliDocs.h"

#include "CliCommon.h"

#include <algorithm>
#include <cctype>
#include <iostream>
#include <string>

namespace ptescope::cli {
namespace {

std::string lowered(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// CLI11 writes a value's type and its validators as "TEXT:{a,b}" or
// "INT:INT in [1 - 10]": the part before ':' names the value, a "{...}"
// part lists its only choices.
void describeValue(const CLI::Option& option, report::OptionDoc& doc) {
  const std::string full = option.get_type_name();
  const auto colon = full.find(':');
  doc.value_name = option.get_option_text().empty() ? full.substr(0, colon) : option.get_option_text();
  if (doc.value_name.empty()) doc.value_name = "VALUE";
  if (colon != std::string::npos) {
    const auto open = full.find('{', colon);
    const auto close = open == std::string::npos ? open : full.find('}', open);
    if (close != std::string::npos) {
      std::string item;
      for (char c : full.substr(open + 1, close - open - 1)) {
        if (c == ',') {
          doc.choices.push_back(item);
          item.clear();
        } else {
          item += c;
        }
      }
      if (!item.empty()) doc.choices.push_back(item);
    }
  }
  // Strings are paths when their description says so; numbers never are.
  const std::string text = lowered(option.get_description());
  const bool isText = full.rfind("TEXT", 0) == 0 || full.rfind("FILE", 0) == 0;
  doc.takes_path = doc.choices.empty() && isText &&
                   (text.find("file") != std::string::npos || text.find("program") != std::string::npos ||
                    text.find("output") != std::string::npos || text.find("folder") != std::string::npos ||
                    text.find("path") != std::string::npos || text.find("(.p") != std::string::npos ||
                    text.find("write") != std::string::npos);
  if (doc.takes_path && doc.value_name == "TEXT") doc.value_name = text.find("folder") != std::string::npos ? "DIR" : "FILE";
}

void addOptions(const CLI::App& app, report::CommandDoc& doc) {
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_group().empty()) continue;  // hidden
    report::OptionDoc o;
    o.description = option->get_description();
    if (!option->get_default_str().empty()) o.description += " (default: " + option->get_default_str() + ")";
    o.required = option->get_required();
    o.repeatable = option->get_items_expected_max() > 1;
    if (!option->nonpositional()) {
      o.value_name = option->get_name(true);
      doc.positionals.push_back(std::move(o));
      continue;
    }
    for (const auto& s : option->get_snames()) o.names.push_back("-" + s);
    for (const auto& l : option->get_lnames()) o.names.push_back("--" + l);
    if (option->get_items_expected_max() > 0) describeValue(*option, o);
    doc.options.push_back(std::move(o));
  }
  // Option groups are nameless subcommands: their options belong here.
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* a) { return a->get_name().empty(); }))
    addOptions(*sub, doc);
}

report::CommandDoc describe(const CLI::App& app, const std::string& name) {
  report::CommandDoc doc;
  doc.name = name;
  std::string text = app.get_description();
  if (text.rfind(name + ": ", 0) == 0) text = text.substr(name.size() + 2);
  const auto newline = text.find('\n');
  doc.summary = text.substr(0, newline);
  if (newline != std::string::npos) doc.description = text.substr(newline + 1);
  addOptions(app, doc);
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* a) { return !a->get_name().empty(); })) {
    if (sub->get_group().empty()) continue;  // hidden
    doc.subcommands.push_back(describe(*sub, sub->get_name()));
  }
  return doc;
}

report::ManPageInfo manInfo() {
  report::ManPageInfo info;
  info.source = std::string("ptescope ") + PTESCOPE_VERSION;
  info.extra_sections.push_back(
      {"Exit status",
       "0 when the command did what was asked.\n\n"
       "1 when a command that checks a program found an error in it (its description says so).\n\n"
       "2 on bad input or usage: unreadable, truncated or corrupt files, unknown names or devices, "
       "missing arguments. The reason is one line on standard error starting with \"ptescope-cli:\"; "
       "no output file is left half-written and the input is never changed."});
  info.see_also = {"ptescope(1)"};
  return info;
}

}  // namespace

report::CommandDoc describeCommand(const CLI::App& app, const std::string& name) { return describe(app, name); }

std::optional<int> runDocGenerator(const CLI::App& app, int argc, char** argv) {
  if (argc < 2) return std::nullopt;
  const std::string what = argv[1];
  if (what == "--generate-man") {
    std::cout << report::manPage(describe(app, "ptescope-cli"), manInfo());
    return 0;
  }
  if (what == "--generate-completion") {
    if (argc != 3 || std::string(argv[2]) != "bash") return fail("--generate-completion takes one shell: bash");
    std::cout << report::bashCompletion(describe(app, "ptescope-cli"));
    return 0;
  }
  return std::nullopt;
}

}  // namespace ptescope::cli
