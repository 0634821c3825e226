#include "report/JUnitWriter.h"

#include <cstdio>

#include "program/Text.h"

namespace ptescope::report {

namespace {

// The length of the valid UTF-8 sequence at text[i], or 0.
size_t utf8Length(const std::string& text, size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
  if (n == 0 || i + n > text.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return 0;
  return n;
}

std::string hexByte(unsigned char c) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "\\x%02X", c);
  return buffer;
}

std::string caseName(const analysis::DiagnosticRule& rule) { return std::string(rule.id) + " " + rule.slug; }

}  // namespace

std::string xmlEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const size_t n = utf8Length(text, i);
    if (n == 0) {
      out += hexByte(c);
      ++i;
      continue;
    }
    if (n == 1) {
      switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&apos;"; break;
        default:
          if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') out += hexByte(c);
          else out += char(c);
      }
    } else {
      // U+FFFE and U+FFFF are not XML characters either.
      const std::string seq = text.substr(i, n);
      if (seq == "\xEF\xBF\xBE" || seq == "\xEF\xBF\xBF") {
        for (char b : seq) out += hexByte(static_cast<unsigned char>(b));
      } else {
        out += seq;
      }
    }
    i += n;
  }
  return out;
}

std::string diagnosticsJUnit(const program::Program& program, const std::vector<analysis::Diagnostic>& findings,
                             const std::string& file) {
  const auto& rules = analysis::diagnosticRules();
  // Methods in program order; findings of a method no longer named (none
  // today) would go to a suite of their own.
  std::vector<std::string> methods;
  for (const auto& m : program.methods()) methods.push_back(m.displayName());
  for (const auto& d : findings) {
    bool known = false;
    for (const auto& m : methods) known = known || m == d.method;
    if (!known) methods.push_back(d.method);
  }
  size_t totalFailures = 0;
  std::string suites;
  for (const auto& method : methods) {
    size_t failures = 0;
    std::string cases;
    for (const auto& rule : rules) {
      std::string errors, others;
      size_t errorCount = 0;
      for (const auto& d : findings) {
        if (d.method != method || d.id != rule.id) continue;
        std::string line = analysis::severityName(d.severity) + " " + d.location() + ": " + d.message;
        if (!d.hint.empty()) line += "\n  fix: " + d.hint;
        if (d.severity == analysis::Severity::Error) {
          errors += line + "\n";
          ++errorCount;
        } else {
          others += line + "\n";
        }
      }
      cases += "    <testcase classname=\"" + xmlEscape("ptescope.lint." + method) + "\" name=\"" +
               xmlEscape(caseName(rule)) + "\"";
      if (errorCount == 0 && others.empty()) {
        cases += "/>\n";
        continue;
      }
      cases += ">\n";
      if (errorCount > 0) {
        ++failures;
        cases += "      <failure type=\"" + xmlEscape(rule.id) + "\" message=\"" +
                 xmlEscape(program::countText(errorCount, "error") + ": " + rule.summary) + "\">" + xmlEscape(errors) +
                 "</failure>\n";
      }
      if (!others.empty()) cases += "      <system-out>" + xmlEscape(others) + "</system-out>\n";
      cases += "    </testcase>\n";
    }
    totalFailures += failures;
    suites += "  <testsuite name=\"" + xmlEscape(file + " " + method) + "\" tests=\"" + std::to_string(rules.size()) +
              "\" failures=\"" + std::to_string(failures) + "\" errors=\"0\" skipped=\"0\">\n" + cases + "  </testsuite>\n";
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"" + xmlEscape("ptescope lint " + file) +
         "\" tests=\"" + std::to_string(rules.size() * methods.size()) + "\" failures=\"" + std::to_string(totalFailures) +
         "\" errors=\"0\">\n" + suites + "</testsuites>\n";
}

}  // namespace ptescope::report
