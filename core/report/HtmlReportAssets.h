// The HTML report's own style sheet and script (report/HtmlReport.h), kept
// apart from the writer. Both are constant texts: the report's
// Content-Security-Policy allows exactly these two by their SHA-256, so
// nothing from the program is ever put into them.
#pragma once

#include <string>

namespace ptescope::report {

const std::string& htmlReportStyle();
// Pan and zoom (wheel, drag, + / − / Fit), Find per graph (Enter: next
// match; "#find=TEXT" in the address finds TEXT in the first graph), the
// sortable tables, a click on a copy row shows its node ("#copy=N" in the
// address: the copy at instruction N, as if clicked). When ready it sets
// on <body>: data-report="ready", data-nodes (every g.node), data-copy-rows,
// data-find-matches (after a #find), data-revealed (the node id after a
// #copy), data-csp-violations, data-ready-ms.
const std::string& htmlReportScript();

}  // namespace ptescope::report
