// lint findings as JUnit XML, the test report CI systems display: one test
// suite per method, one test case per rule in it. A rule with error-level
// findings in the method fails (one <failure> listing them, with the fix);
// warnings and notes leave the case passed and are listed in its
// <system-out>. Every name from the program is escaped for XML.
#pragma once

#include <string>
#include <vector>

#include "analysis/Diagnostics.h"
#include "program/Program.h"

namespace ptescope::report {

// `file` names the program in the suites' names ("model.pte").
std::string diagnosticsJUnit(const program::Program& program, const std::vector<analysis::Diagnostic>& findings,
                             const std::string& file);

// Text for an XML attribute or element: &, <, >, " and ' as entities, and
// characters XML 1.0 cannot hold (C0 controls but tab, newline and return,
// invalid UTF-8) as "\xNN".
std::string xmlEscape(const std::string& text);

}  // namespace ptescope::report
