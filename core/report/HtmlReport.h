// `ptescope-cli report` and the app's File > Export Report: one
// self-contained HTML file about a program, to share with people who do not
// have ptescope (a pull request, a CI artifact, a chat).
//
// What it holds: the program summary (methods, devices, delegates with
// their compile specs, copies per direction with bytes and predicted time
// per call on a link), and per method the graph as inline SVG (Graphviz's
// SVG of the app's first picture: the same model, style and layout,
// repeated layers and long runs collapsed; one <g class="node"> per drawn
// node), a Find box, pan and zoom, the copies table (sortable; a click on a
// row shows the copy's node), the lint findings with their fix and the
// memory plan per device. With a compared program: the copies added and
// removed against it and the predicted saving. With measurements (a profile
// or an ETDump trace): the measured median beside each prediction, the
// analyses of each measured method and, for a trace of several methods, the
// findings across them.
//
// Everything from the file is hostile text: every name goes through
// xmlEscape (HTML text and attributes), the graph's labels are escaped in
// Graphviz's input and Graphviz escapes them again in its SVG, the inline
// JSON has <, >, &, U+2028 and U+2029 escaped, and a Content-Security-Policy
// (default-src 'none') lets only the report's own script and style run, by
// their SHA-256.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/DelegateTransfers.h"
#include "cost/LinkProfile.h"
#include "exec/ProfileAnalysis.h"
#include "exec/Profiler.h"
#include "layout/GraphvizLayout.h"
#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::report {

struct HtmlReportInput {
  const program::Program* program = nullptr;  // the program reported on
  std::string program_name;                   // its file name, for the title
  const cost::LinkProfile* link = nullptr;    // copies are priced on it
  exec::HostMemoryKind host_memory = exec::HostMemoryKind::Pageable;
  std::string method;  // report only this method ("" = every method)
  // Settings of the run (which methods replay CUDA graphs): the copies
  // inside delegates they add are listed and priced with the others.
  analysis::DelegateTransferOptions run_settings;
  // --compare: the program this one is compared with (the "before").
  const program::Program* compare = nullptr;
  std::string compare_name;
  // Measured profiles, at most one per method (a profile JSON, an ETDump).
  std::vector<exec::TransferProfile> measured;
  std::string measured_name;
  // When the measurements are of the program before the edits reported on
  // ("before the edits", "before the program changed"; the app's words):
  // the measured column and section say so. Empty: of this program.
  std::string measured_before;
  // The methods measured_before applies to (those the edits changed); empty:
  // every method. A method the edits left alone was measured as it is.
  std::vector<std::string> measured_before_methods;
  // A trace of several methods (an ETDump): PRF004 across its methods
  // (etdump::roundTripsAcrossMethods, found on the program the trace ran),
  // shown in a section of their own; an empty list says none was found.
  // nullopt: no such trace, no section.
  std::optional<std::vector<exec::ProfileFinding>> measured_across_methods;
  // Lines shown under the title (the reader's warnings, edits applied).
  std::vector<std::string> notes;
  // Graphviz's time budget per method; a method that runs out gets no
  // picture but a line saying so.
  double layout_budget_seconds = 60;
};

struct HtmlReportFacts {
  std::vector<std::string> methods;        // reported, in program order
  std::vector<size_t> graph_nodes;         // <g class="node"> per method
  size_t copies = 0;                       // rows of the copies tables
  size_t bytes = 0;                        // of the HTML
};

Result<std::string> htmlReport(const HtmlReportInput& input, HtmlReportFacts* facts = nullptr);

// htmlReport written atomically to `path`.
Status writeHtmlReport(const std::string& path, const HtmlReportInput& input, HtmlReportFacts* facts = nullptr);

// For tests and other writers: JSON text safe inside <script> (no <, >, &,
// U+2028 or U+2029 left as such).
std::string scriptSafeJson(const std::string& jsonText);
// The Content-Security-Policy source of a script or style text:
// 'sha256-<base64>'.
std::string cspHashSource(const std::string& text);

}  // namespace ptescope::report
