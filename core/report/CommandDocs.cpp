#include "report/CommandDocs.h"

#include <cctype>
#include <sstream>

namespace ptescope::report {
namespace {

std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

std::string trimmed(const std::string& s) {
  size_t begin = 0;
  while (begin < s.size() && std::isspace(static_cast<unsigned char>(s[begin]))) ++begin;
  size_t end = s.size();
  while (end > begin && std::isspace(static_cast<unsigned char>(s[end - 1]))) --end;
  return s.substr(begin, end - begin);
}

// An argument of a roff request, in double quotes.
std::string quotedArg(const std::string& s) {
  std::string out = "\"";
  for (char c : roffEscape(s)) {
    if (c == '"')
      out += "\\(dq";
    else
      out += c;
  }
  return out + "\"";
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string bold(const std::string& s) { return "\\fB" + roffEscape(s) + "\\fR"; }
std::string italic(const std::string& s) { return "\\fI" + roffEscape(s) + "\\fR"; }

// Text lines: each source line stays a line (".br" between), blank lines
// start a new paragraph when `paragraphs` is set and are dropped otherwise.
void writeText(std::ostringstream& out, const std::string& text, bool paragraphs) {
  bool lineOpen = false;
  for (const auto& raw : splitLines(text)) {
    const std::string line = trimmed(raw);
    if (line.empty()) {
      if (paragraphs && lineOpen) out << ".PP\n";
      lineOpen = false;
      continue;
    }
    if (lineOpen) out << ".br\n";
    out << roffEscape(line) << "\n";
    lineOpen = true;
  }
}

std::string positionalSynopsis(const OptionDoc& p) {
  std::string s = italic(p.value_name) + (p.repeatable ? "..." : "");
  return p.required ? s : "[" + s + "]";
}

std::string synopsis(const std::string& path, const CommandDoc& command) {
  std::string s = bold(path);
  if (!command.options.empty()) s += " [" + italic("OPTIONS") + "]";
  for (const auto& p : command.positionals) s += " " + positionalSynopsis(p);
  if (!command.subcommands.empty()) s += " " + italic("COMMAND") + " [" + italic("ARGS") + "]";
  return s;
}

std::string optionTerm(const OptionDoc& option) {
  if (option.names.empty()) return italic(option.value_name);
  std::string term;
  for (const auto& name : option.names) term += (term.empty() ? "" : ", ") + bold(name);
  if (!option.value_name.empty()) term += " " + italic(option.value_name);
  return term;
}

std::string optionText(const OptionDoc& option) {
  std::string text = option.description;
  if (!option.choices.empty()) {
    text += "\nOne of:";
    for (size_t i = 0; i < option.choices.size(); ++i) text += (i ? ", " : " ") + option.choices[i];
    text += ".";
  }
  if (option.required && !option.names.empty()) text += "\nRequired.";
  return text;
}

void writeEntries(std::ostringstream& out, const CommandDoc& command) {
  for (const auto* list : {&command.positionals, &command.options}) {
    for (const auto& option : *list) {
      out << ".TP\n" << optionTerm(option) << "\n";
      writeText(out, optionText(option), false);
    }
  }
}

void writeCommands(std::ostringstream& out, const std::string& parentPath, const CommandDoc& command) {
  for (const auto& sub : command.subcommands) {
    const std::string path = parentPath + " " + sub.name;
    out << ".SS " << quotedArg(path) << "\n" << synopsis(path, sub) << "\n.PP\n";
    writeText(out, sub.summary, true);
    if (!sub.description.empty()) {
      out << ".PP\n";
      writeText(out, sub.description, true);
    }
    writeEntries(out, sub);
    writeCommands(out, path, sub);
  }
}

// ---- bash ----

std::string shellQuoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

struct CommandAt {
  std::string path;
  const CommandDoc* command;
};

void collect(const std::string& path, const CommandDoc& command, std::vector<CommandAt>& out) {
  out.push_back({path, &command});
  for (const auto& sub : command.subcommands) collect(path + " " + sub.name, sub, out);
}

// `'a'|'b'|'c'` for a case pattern.
std::string alternatives(const std::vector<std::string>& patterns) {
  std::string out;
  for (const auto& p : patterns) out += (out.empty() ? "" : "|") + shellQuoted(p);
  return out;
}

std::string functionName(const std::string& program) {
  std::string name = "_";
  for (char c : program) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

}  // namespace

std::string roffEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
  return out;
}

std::string manPage(const CommandDoc& command, const ManPageInfo& info) {
  std::ostringstream out;
  out << ".\\\" Generated from the program's option definitions; do not edit.\n";
  out << ".TH " << quotedArg(upper(command.name)) << " " << quotedArg(info.section) << " \"\" " << quotedArg(info.source)
      << " " << quotedArg(info.manual) << "\n";
  out << ".SH NAME\n" << roffEscape(command.name) << " \\- " << roffEscape(command.summary) << "\n";
  out << ".SH SYNOPSIS\n" << synopsis(command.name, command) << "\n";
  if (!command.description.empty()) {
    out << ".SH DESCRIPTION\n";
    writeText(out, command.description, true);
  }
  if (!command.options.empty() || !command.positionals.empty()) {
    out << ".SH OPTIONS\n";
    writeEntries(out, command);
  }
  if (!command.subcommands.empty()) {
    out << ".SH COMMANDS\n";
    writeCommands(out, command.name, command);
  }
  for (const auto& [title, text] : info.extra_sections) {
    out << ".SH " << quotedArg(upper(title)) << "\n";
    writeText(out, text, true);
  }
  if (!info.see_also.empty()) {
    out << ".SH SEE ALSO\n";
    for (size_t i = 0; i < info.see_also.size(); ++i) {
      const auto& ref = info.see_also[i];
      const auto paren = ref.find('(');
      const std::string sep = i + 1 < info.see_also.size() ? "," : "";
      if (paren == std::string::npos)
        out << roffEscape(ref) << sep << "\n";
      else
        out << ".BR " << roffEscape(ref.substr(0, paren)) << " " << ref.substr(paren) << sep << "\n";
    }
  }
  return out.str();
}

std::string bashCompletion(const CommandDoc& command) {
  std::vector<CommandAt> all;
  collect(command.name, command, all);

  std::vector<std::string> subcommandSteps;  // "path sub"
  std::vector<std::string> valueOptions;     // "path --opt": the next word is its value
  std::vector<std::string> pathValues;
  std::vector<std::string> freeValues;
  std::vector<std::pair<std::string, std::string>> choiceValues;  // pattern, words
  for (const auto& [path, c] : all) {
    for (const auto& sub : c->subcommands) subcommandSteps.push_back(path + " " + sub.name);
    for (const auto& option : c->options) {
      if (option.value_name.empty()) continue;
      for (const auto& name : option.names) {
        const std::string key = path + " " + name;
        valueOptions.push_back(key);
        if (!option.choices.empty())
          choiceValues.emplace_back(key, joined(option.choices));
        else if (option.takes_path)
          pathValues.push_back(key);
        else
          freeValues.push_back(key);
      }
    }
  }

  const std::string fn = functionName(command.name);
  std::ostringstream out;
  out << "# bash completion for " << command.name << "\n"
      << "# Generated from the program's option definitions; do not edit.\n\n"
      << fn << "()\n{\n"
      << "    local cur=${COMP_WORDS[COMP_CWORD]} prev= cmd=" << shellQuoted(command.name)
      << " i w skip=0 opts= subs= files=0\n"
      << "    (( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}\n"
      << "    for (( i = 1; i < COMP_CWORD; i++ )); do\n"
      << "        w=${COMP_WORDS[i]}\n"
      << "        if (( skip )); then skip=0; continue; fi\n"
      << "        case \"$cmd $w\" in\n";
  if (!subcommandSteps.empty()) out << "            " << alternatives(subcommandSteps) << ") cmd=\"$cmd $w\" ;;\n";
  if (!valueOptions.empty()) out << "            " << alternatives(valueOptions) << ") skip=1 ;;\n";
  out << "        esac\n"
      << "    done\n"
      << "    case \"$cmd $prev\" in\n";
  for (const auto& [key, words] : choiceValues)
    out << "        " << shellQuoted(key) << ")\n"
        << "            mapfile -t COMPREPLY < <(compgen -W " << shellQuoted(words) << " -- \"$cur\"); return 0 ;;\n";
  if (!pathValues.empty())
    out << "        " << alternatives(pathValues) << ")\n"
        << "            compopt -o filenames 2>/dev/null\n"
        << "            mapfile -t COMPREPLY < <(compgen -f -- \"$cur\"); return 0 ;;\n";
  if (!freeValues.empty()) out << "        " << alternatives(freeValues) << ")\n            COMPREPLY=(); return 0 ;;\n";
  out << "    esac\n"
      << "    case \"$cmd\" in\n";
  for (const auto& [path, c] : all) {
    std::vector<std::string> opts, subs;
    for (const auto& option : c->options)
      for (const auto& name : option.names) opts.push_back(name);
    for (const auto& sub : c->subcommands) subs.push_back(sub.name);
    out << "        " << shellQuoted(path) << ") opts=" << shellQuoted(joined(opts)) << " subs=" << shellQuoted(joined(subs))
        << " files=" << (c->positionals.empty() ? 0 : 1) << " ;;\n";
  }
  out << "    esac\n"
      << "    if [[ $cur == -* || ( -z $subs && $files == 0 ) ]]; then\n"
      << "        mapfile -t COMPREPLY < <(compgen -W \"$opts\" -- \"$cur\")\n"
      << "    else\n"
      << "        (( files )) && compopt -o filenames 2>/dev/null\n"
      << "        mapfile -t COMPREPLY < <(compgen -W \"$subs\" -- \"$cur\"; (( files )) && compgen -f -- \"$cur\")\n"
      << "    fi\n"
      << "    return 0\n"
      << "}\n"
      << "complete -F " << fn << " " << command.name << "\n";
  return out.str();
}

}  // namespace ptescope::report
