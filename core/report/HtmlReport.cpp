#include "report/HtmlReport.h"

#include "program/DelegatePayload.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "analysis/Diagnostics.h"
#include "analysis/Summary.h"
#include "cost/CopyCost.h"
#include "exec/CopyIdentity.h"
#include "exec/ProfileAnalysis.h"
#include "layout/GraphModel.h"
#include "passes/ProgramDiff.h"
#include "program/CopyDirection.h"
#include "program/Text.h"
#include "report/GraphDot.h"
#include "report/HtmlReportAssets.h"
#include "report/InfoReport.h"
#include "report/JUnitWriter.h"
#include "report/Json.h"
#include "report/WriterSupport.h"
#include "util/Sha256.h"
#include "util/Utf8.h"

namespace ptescope::report {

namespace {

using program::CopyDirection;
using program::bytesText;
using program::durationText;

// Text from the file, escaped for HTML text and attribute values alike.
std::string h(const std::string& text) { return xmlEscape(text); }

std::string base64(const std::array<uint8_t, 32>& bytes) {
  static const char* const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const uint32_t b0 = bytes[i], b1 = i + 1 < bytes.size() ? bytes[i + 1] : 0, b2 = i + 2 < bytes.size() ? bytes[i + 2] : 0;
    const uint32_t n = (b0 << 16) | (b1 << 8) | b2;
    out += alphabet[(n >> 18) & 63];
    out += alphabet[(n >> 12) & 63];
    out += i + 1 < bytes.size() ? alphabet[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? alphabet[n & 63] : '=';
  }
  return out;
}

// ---- the graph: Graphviz's SVG, made safe to embed ----

// Every string of the model in the one printable form (a Program that did
// not come through the reader may hold bytes that are not UTF-8, which
// Graphviz would refuse or pass through).
void printableModel(layout::GraphModel& model) {
  model.method_name = printableUtf8(model.method_name);
  for (auto& n : model.nodes) {
    for (std::string* s : {&n.title, &n.subtitle, &n.tooltip, &n.change_note}) *s = printableUtf8(*s);
    for (auto& term : n.search_terms) term = printableUtf8(term);
  }
  for (auto& e : model.edges) {
    e.label = printableUtf8(e.label);
    e.change_note = printableUtf8(e.change_note);
  }
}

// The elements Graphviz's SVG renderer writes for our graphs. Anything else
// in its output means a name got through unescaped: the report refuses.
bool allowedSvgElement(std::string_view name) {
  static const std::set<std::string_view> allowed = {"svg", "g", "title", "polygon", "polyline", "path", "ellipse",
                                                     "text", "a", "defs", "linearGradient", "radialGradient", "stop"};
  return allowed.count(name) > 0;
}

// The SVG without its XML prolog and comments, ids prefixed with `prefix`
// (several graphs share one document), sized by the page; or an error when
// it holds markup it should not.
Result<std::string> embeddableSvg(const std::string& svg, const std::string& prefix, size_t* nodes) {
  const size_t start = svg.find("<svg");
  if (start == std::string::npos) return makeError("Graphviz wrote no SVG");
  std::string out;
  out.reserve(svg.size());
  *nodes = 0;
  size_t i = start;
  while (i < svg.size()) {
    const size_t lt = svg.find('<', i);
    if (lt == std::string::npos) {
      out.append(svg, i, std::string::npos);
      break;
    }
    out.append(svg, i, lt - i);
    if (svg.compare(lt, 4, "<!--") == 0) {
      const size_t end = svg.find("-->", lt + 4);
      if (end == std::string::npos) return makeError("Graphviz's SVG has an unterminated comment");
      i = end + 3;
      continue;
    }
    const size_t gt = svg.find('>', lt);
    if (gt == std::string::npos) return makeError("Graphviz's SVG has an unterminated tag");
    std::string tag = svg.substr(lt, gt - lt + 1);
    size_t nameStart = 1 + (tag.size() > 1 && tag[1] == '/');
    size_t nameEnd = nameStart;
    while (nameEnd < tag.size() && (std::isalnum(static_cast<unsigned char>(tag[nameEnd])) || tag[nameEnd] == ':')) ++nameEnd;
    const std::string name = tag.substr(nameStart, nameEnd - nameStart);
    if (!allowedSvgElement(name)) return makeError("Graphviz's SVG holds an unexpected <" + printableUtf8(name) + "> element");
    // Attribute values are quoted and Graphviz escapes quotes in them, so
    // an attribute can only start after a space outside quotes: check the
    // names of all of them.
    bool quoted = false;
    for (size_t k = nameEnd; k < tag.size(); ++k) {
      if (tag[k] == '"') quoted = !quoted;
      if (quoted || tag[k] != ' ') continue;
      size_t a = k + 1;
      while (a < tag.size() && tag[a] == ' ') ++a;
      size_t b = a;
      while (b < tag.size() && tag[b] != '=' && tag[b] != ' ' && tag[b] != '>' && tag[b] != '/') ++b;
      const std::string attribute = tag.substr(a, b - a);
      if (attribute.size() >= 2 && (attribute[0] == 'o' || attribute[0] == 'O') && (attribute[1] == 'n' || attribute[1] == 'N'))
        return makeError("Graphviz's SVG holds an event attribute");
      if (attribute == "href" || attribute == "xlink:href" || attribute == "style")
        return makeError("Graphviz's SVG holds a link or style attribute");
    }
    if (quoted) return makeError("Graphviz's SVG has an unterminated attribute");
    if (name == "svg" && tag[1] != '/') {
      // Sized by the page; the viewBox stays (pan and zoom change it).
      const size_t vb = tag.find("viewBox=\"");
      const size_t vbEnd = vb == std::string::npos ? vb : tag.find('"', vb + 9);
      std::string viewBox = vb == std::string::npos ? std::string() : tag.substr(vb, vbEnd - vb + 1);
      tag = "<svg class=\"graph-svg\" " + viewBox +
            " xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">";
    }
    for (size_t at = tag.find(" id=\""); at != std::string::npos; at = tag.find(" id=\"", at + 5))
      tag.insert(at + 5, prefix);
    if (name == "g" && tag.find("class=\"node\"") != std::string::npos) ++*nodes;
    out += tag;
    i = gt + 1;
  }
  return out;
}

// ---- per method: what the sections show ----

struct MethodFacts {
  const program::Method* method = nullptr;
  size_t index = 0;
  std::string anchor;  // "m0"
  analysis::MethodSummary summary;
  std::optional<cost::MethodPrediction> prediction;
  std::string prediction_error;
  std::string svg;  // embeddable, or empty with graph_note
  std::string graph_note;
  size_t graph_nodes = 0;
  layout::GraphModel model;
  const exec::TransferProfile* measured = nullptr;
  std::map<size_t, const exec::CopyProfile*> measured_of;  // instruction -> measured copy
  size_t measured_only = 0;                                // measured copies the program lacks
};

std::string deviceList(const std::map<std::string, size_t>& byDevice) {
  std::string out;
  for (const auto& [device, n] : byDevice) out += (out.empty() ? "" : ", ") + device;
  return out.empty() ? "none" : out;
}

void drawMethod(MethodFacts& m, const HtmlReportInput& input) {
  const auto graph = layout::MethodGraph::analyze(*m.method);
  m.model = graph.build(graph.initialExpansion());  // the app's first picture
  printableModel(m.model);
  if (m.model.nodes.empty()) {
    m.graph_note = "The method has nothing to draw.";
    return;
  }
  layout::LayoutOptions options;
  options.time_budget_seconds = input.layout_budget_seconds;
  auto svg = renderGraph(m.model, "svg", options);
  if (!svg) {
    m.graph_note = "No picture: " + svg.error().message;
    return;
  }
  auto embedded = embeddableSvg(svg.value(), m.anchor + "-", &m.graph_nodes);
  if (!embedded) {
    m.graph_note = "No picture: " + embedded.error().message;
    m.graph_nodes = 0;
    return;
  }
  m.svg = std::move(embedded.value());
}

void measureMethod(MethodFacts& m, const HtmlReportInput& input) {
  for (const auto& profile : input.measured)
    if (profile.method == m.method->displayName()) m.measured = &profile;
  if (!m.measured || !m.prediction) return;
  const auto predicted = cost::asTransferProfile(*m.prediction);
  for (const auto& pair : exec::pairCopies(predicted, *m.measured)) {
    if (pair.latest && pair.previous) m.measured_of[pair.latest->instruction] = pair.previous;
    else if (pair.previous) ++m.measured_only;
  }
}

// ---- HTML pieces ----

class Html {
 public:
  Html& raw(std::string_view text) {
    out_ += text;
    return *this;
  }
  Html& text(const std::string& text) {
    out_ += h(text);
    return *this;
  }
  // <tag attrs>escaped text</tag>
  Html& element(std::string_view tag, const std::string& text, std::string_view attributes = {}) {
    out_ += "<";
    out_ += tag;
    if (!attributes.empty()) {
      out_ += " ";
      out_ += attributes;
    }
    out_ += ">" + h(text) + "</";
    out_ += tag;
    out_ += ">";
    return *this;
  }
  // A header row of a sortable table: "n:" marks a numeric column.
  Html& headerRow(const std::vector<std::string>& columns) {
    out_ += "<thead><tr>";
    for (const auto& c : columns) {
      const bool numeric = c.rfind("n:", 0) == 0;
      out_ += numeric ? "<th class=\"num\" data-type=\"num\">" : "<th>";
      out_ += h(numeric ? c.substr(2) : c) + "</th>";
    }
    out_ += "</tr></thead>\n";
    return *this;
  }
  // A numeric cell: its text, and the number it sorts by.
  Html& number(const std::string& text, double value) {
    char sortKey[48];
    std::snprintf(sortKey, sizeof sortKey, "%.17g", value);
    out_ += std::string("<td class=\"num\" data-v=\"") + sortKey + "\">" + h(text) + "</td>";
    return *this;
  }
  Html& cell(const std::string& text) { return element("td", text); }
  std::string& str() { return out_; }

 private:
  std::string out_;
};

std::string micros(double seconds) { return program::microsText(seconds) + " µs"; }

void writeSummary(Html& html, const HtmlReportInput& input, const std::vector<MethodFacts>& methods) {
  html.raw("<section id=\"summary\"><h2>Summary</h2>\n<table class=\"facts\">");
  std::map<std::string, size_t> devices;
  size_t instructions = 0, delegates = 0;
  for (const auto& m : methods) {
    for (const auto& [d, n] : m.summary.tensors_by_device) devices[d] += n;
    instructions += m.summary.instructions;
    delegates += m.summary.delegate_calls;
  }
  html.raw("<tr><th>Methods</th><td>");
  for (size_t i = 0; i < methods.size(); ++i)
    html.raw(i ? ", " : "").element("a", methods[i].method->displayName(), "href=\"#" + methods[i].anchor + "\"");
  html.raw("</td></tr><tr><th>Instructions</th>").cell(std::to_string(instructions) + " (" +
                                                        program::countText(uint64_t(delegates), "delegate call") + ")");
  html.raw("</tr><tr><th>Devices</th>").cell(deviceList(devices));
  html.raw("</tr><tr><th>Link</th>").cell(input.link->label() + ", " + exec::hostMemoryKindName(input.host_memory) +
                                           " host memory");
  html.raw("</tr></table>\n");

  html.raw("<h3>Copies per call</h3>\n<table class=\"sortable\">");
  html.headerRow({"Method", "Direction", "n:Copies", "n:Bytes", "n:Predicted time"});
  html.raw("<tbody>\n");
  for (const auto& m : methods) {
    for (CopyDirection d : program::kHostDeviceDirections) {
      html.raw("<tr>").cell(m.method->displayName()).cell(program::copyDirectionLongName(d));
      if (!m.prediction) {
        const size_t n = d == CopyDirection::HostToDevice ? m.summary.h2d_copies : m.summary.d2h_copies;
        html.number(std::to_string(n), double(n)).cell("?").cell(m.prediction_error).raw("</tr>\n");
        continue;
      }
      const auto& t = m.prediction->totals(d);
      html.number(std::to_string(t.copies), double(t.copies))
          .number(bytesText(int64_t(t.bytes)), double(t.bytes))
          .number(program::copyTimeText(t.copies, t.seconds), t.seconds)
          .raw("</tr>\n");
    }
    if (m.prediction && m.prediction->inside_delegates.copies > 0) {
      const auto& t = m.prediction->inside_delegates;
      html.raw("<tr>").cell(m.method->displayName()).cell("inside delegates (no instruction)");
      html.number(std::to_string(t.copies), double(t.copies))
          .number(bytesText(int64_t(t.bytes)), double(t.bytes))
          .number(program::copyTimeText(t.copies, t.seconds), t.seconds)
          .raw("</tr>\n");
    }
  }
  html.raw("</tbody></table>\n");

  // Delegates with the same id and compile specs share a row (a 50k-instruction
  // program has thousands of them, mostly alike).
  html.raw("<h3>Delegates</h3>\n");
  bool any = false;
  for (const auto& m : methods) {
    const auto& list = program::items(m.method->delegates);
    if (list.empty()) continue;
    if (!any)
      html.raw("<div class=\"table-wrap\"><table><thead><tr><th>Method</th><th>Delegate</th><th class=\"num\">Count</th>"
               "<th>Indices</th><th>Compile specs</th></tr></thead><tbody>\n");
    any = true;
    using Specs = std::vector<std::pair<std::string, std::string>>;
    std::map<std::pair<std::string, Specs>, std::vector<size_t>> alike;
    std::vector<std::pair<std::string, Specs>> order;
    for (size_t d = 0; d < list.size(); ++d) {
      Specs specs;
      for (const auto& spec : program::items(list[d].compile_specs))
        specs.emplace_back(spec.key.value_or(""), compileSpecValueText(program::items(spec.value)));
      std::pair<std::string, Specs> key{list[d].id.value_or("<no id>"), std::move(specs)};
      auto& indices = alike[key];
      if (indices.empty()) order.push_back(key);
      indices.push_back(d);
    }
    for (const auto& key : order) {
      const auto& indices = alike[key];
      std::string shown;
      for (size_t i = 0; i < indices.size() && i < 8; ++i) shown += (i ? ", " : "") + std::to_string(indices[i]);
      if (indices.size() > 8) shown += ", …";
      html.raw("<tr>").cell(m.method->displayName()).cell(key.first).number(std::to_string(indices.size()), double(indices.size()));
      html.cell(shown).raw("<td>");
      for (const auto& [specKey, value] : key.second)
        html.raw("<div>").element("code", specKey).raw(" = ").element("code", value).raw("</div>");
      // A TensorRT delegate's blob (program/TensorRTBlob.h), per delegate.
      for (size_t i = 0; i < indices.size() && i < 8 && program::isTensorRTBackend(key.first); ++i) {
        const auto payload = program::describeDelegatePayload(*input.program, list[indices[i]]);
        std::string text = "delegate " + std::to_string(indices[i]) + ": ";
        if (!payload.tensorrt) {
          text += "unreadable blob: " + payload.problem;
        } else {
          const auto& blob = *payload.tensorrt;
          text += "TensorRT engine " + bytesText(int64_t(blob.engine_size)) + " (" + blob.magic + "), device_id " +
                  std::to_string(blob.device_id) + ", " + std::to_string(blob.inputs().size()) + " inputs, " +
                  std::to_string(blob.outputs().size()) + " outputs, " + std::to_string(blob.aliased_io.size()) +
                  " aliased";
        }
        html.element("div", text);
      }
      html.raw("</td></tr>\n");
    }
  }
  html.raw(any ? "</tbody></table></div>\n" : "<p>None.</p>\n");
  html.raw("</section>\n");
}

constexpr size_t kOpenCopiesUpTo = 1000;

// The copies a delegate makes inside its execute(): no instruction, their
// own table (README "Copies inside delegates").
void writeDelegateCopies(Html& html, const cost::MethodPrediction& p) {
  if (p.delegate_copies.empty() && p.delegate_refusals.empty()) return;
  html.element("p",
               program::countText(p.inside_delegates.copies, "copy", "copies") + " inside delegates per call (no instruction), " +
                   bytesText(int64_t(p.inside_delegates.bytes)) + ", predicted " +
                   durationText(p.inside_delegates.seconds) + ", included in the copy time",
               "class=\"note\"");
  html.raw("<div class=\"table-wrap\"><table class=\"sortable delegate-copies\">");
  html.headerRow({"n:Instruction", "Delegate", "Direction", "n:Value", "Device", "n:Bytes", "n:Predicted", "Why (upstream)"});
  html.raw("<tbody>\n");
  for (const auto& c : p.delegate_copies) {
    const auto& t = c.transfer;
    html.raw("<tr>")
        .number("#" + std::to_string(t.instruction), double(t.instruction))
        .cell("inside delegate " + std::to_string(t.delegate) + " (" + t.backend + ")")
        .cell(program::copyDirectionName(t.direction))
        .number("%" + std::to_string(t.value), double(t.value))
        .cell(t.device.str())
        .number(bytesText(int64_t(t.bytes)), double(t.bytes))
        .number(durationText(c.seconds), c.seconds)
        .cell(analysis::delegateTransferKindName(t.kind) + " (" + t.upstream + ")");
    html.raw("</tr>\n");
  }
  html.raw("</tbody></table></div>\n");
  for (const auto& r : p.delegate_refusals) html.element("p", "Refused: " + r.message, "class=\"note\"");
}

void writeCopies(Html& html, const MethodFacts& m, size_t* rows, const std::string& measuredBefore) {
  html.raw("<h3>Copies</h3>\n");
  if (!m.prediction) {
    html.element("p", "No prediction: " + m.prediction_error, "class=\"note\"");
    return;
  }
  writeDelegateCopies(html, *m.prediction);
  if (m.prediction->copies.empty()) {
    html.raw(m.prediction->delegate_copies.empty() ? "<p>No host-device copies.</p>\n" : "<p>No et_copy instructions.</p>\n");
    return;
  }
  if (m.measured)
    html.element("p", "Measured: " + m.measured->runtime + " (" + program::countText(m.measured->iterations, "iteration") +
                          "), medians beside the predictions" +
                          (m.measured_only ? "; " + program::countText(m.measured_only, "measured copy is", "measured copies are") +
                                                 " not in this program"
                                           : ""),
                  "class=\"note\"");
  // A long table starts folded: laying out 20,000 rows takes a browser
  // seconds, which the report should not cost before anyone asks for them.
  // The line counts, sums and prices the same copies: the instructions
  // listed under it ("1 copy per call, 256 B, predicted 15.3 µs" priced two
  // copies inside a delegate too, its row said 5.10 µs: walkthrough 23);
  // with copies inside delegates, the method's whole is said after it.
  const size_t n = m.prediction->copies.size();
  const auto& p = *m.prediction;
  const auto bytes = p.host_to_device.bytes + p.device_to_host.bytes;
  std::string line = program::countText(uint64_t(n), "copy instruction", "copy instructions") + " per call, " +
                     bytesText(int64_t(bytes)) + ", predicted " +
                     durationText(p.host_to_device.seconds + p.device_to_host.seconds);
  if (p.inside_delegates.copies > 0)
    line += "; with the " + program::countText(p.inside_delegates.copies, "copy", "copies") + " inside delegates, " +
            program::countText(p.copyCount(), "copy", "copies") + ", " + bytesText(int64_t(p.copyBytes())) +
            ", predicted " + durationText(p.copySeconds());
  html.raw(n <= kOpenCopiesUpTo ? "<details class=\"copies\" open><summary>" : "<details class=\"copies\"><summary>")
      .text(line + (n <= kOpenCopiesUpTo ? "" : " (click to list them)"))
      .raw("</summary>\n");
  html.raw("<div class=\"table-wrap\"><table class=\"sortable copies\" data-method=\"" + m.anchor + "\">");
  std::vector<std::string> columns = {"n:Instruction", "Direction", "n:Source", "Device", "n:Bytes", "n:Predicted"};
  if (m.measured) columns.push_back(measuredBefore.empty() ? "n:Measured" : "n:Measured (" + measuredBefore + ")");
  columns.push_back("Shown in");
  html.headerRow(columns);
  html.raw("<tbody>\n");
  for (const auto& c : m.prediction->copies) {
    const auto node = m.model.nodeOfInstruction(c.instruction);
    const std::string nodeId = node ? m.anchor + "-" + m.model.nodes[*node].key : std::string();
    html.raw("<tr class=\"copy\"" + (nodeId.empty() ? std::string() : " data-node=\"" + h(nodeId) + "\"") + ">");
    html.number("#" + std::to_string(c.instruction), double(c.instruction))
        .cell(program::copyDirectionName(c.direction))
        .number("%" + std::to_string(c.source_value), double(c.source_value))
        .cell(c.device.str())
        .number(bytesText(int64_t(c.bytes)), double(c.bytes))
        .number(durationText(c.seconds), c.seconds);
    if (m.measured) {
      auto found = m.measured_of.find(c.instruction);
      if (found == m.measured_of.end()) html.number("not measured", -1);
      else html.number(durationText(found->second->seconds.median), found->second->seconds.median);
    }
    html.cell(node ? m.model.nodes[*node].title : std::string("(not drawn)"));
    html.raw("</tr>\n");
    ++*rows;
  }
  html.raw("</tbody></table></div></details>\n");
}

// Profile rules' findings as a table (one row each), or `none` when there are none.
void writeProfileFindings(Html& html, const std::vector<exec::ProfileFinding>& findings, const std::string& none) {
  if (findings.empty()) {
    html.element("p", none);
    return;
  }
  html.raw("<table class=\"sortable profile-findings\">");
  html.headerRow({"Rule", "Where", "Finding", "Evidence", "Fix"});
  html.raw("<tbody>\n");
  for (const auto& f : findings)
    html.raw("<tr>").cell(f.id + " " + f.slug).cell(f.location()).cell(f.message).cell(f.evidence).cell(f.fix).raw("</tr>\n");
  html.raw("</tbody></table>\n");
}

// The analyses of the measured profile (exec/ProfileAnalysis): transfer
// statistics per direction and size class, the time breakdown with what
// the source cannot show, and the profile rules' findings.
void writeMeasuredAnalyses(Html& html, const MethodFacts& m, const std::string& measuredBefore) {
  if (!m.measured) return;
  const exec::TransferProfile& p = *m.measured;
  const auto facts = exec::sourceFacts(p);
  html.raw("<h3>Measured transfers</h3>\n");
  // A profile of the program before the edits: its counts and findings are
  // of that program (the app says so; the report read as the edited one's).
  if (!measuredBefore.empty())
    html.element("p", "Measured " + measuredBefore + ": the counts, times and findings below are of the program then, "
                 "not of the program reported on.", "class=\"note measured-before\"");
  html.element("p", "Source: " + facts.name + ", " + std::to_string(p.iterations) + " iterations; every copy execution.",
               "class=\"note\"");
  const auto summary = exec::summarizeTransfers(p);
  if (!summary.rows.empty()) {
    html.raw("<div class=\"table-wrap\"><table class=\"sortable transfer-summary\">");
    html.headerRow({"Direction / size", "n:Count", "n:Bytes", "n:Total", "n:Mean", "n:Median", "n:Min", "n:Max", "n:Stddev", "n:GB/s"});
    html.raw("<tbody>\n");
    for (const auto& row : summary.rows) {
      const auto& t = row.stats;
      html.raw("<tr>")
          .cell(program::copyDirectionName(row.direction) + " " +
                (row.inside_delegates ? std::string("inside delegates")
                 : row.size_class     ? exec::sizeClassName(*row.size_class)
                                      : std::string("all")))
          .number(std::to_string(t.count), double(t.count))
          .number(bytesText(int64_t(t.bytes)), double(t.bytes))
          .number(durationText(t.total_seconds), t.total_seconds)
          .number(durationText(t.mean_seconds), t.mean_seconds)
          .number(durationText(t.median_seconds), t.median_seconds)
          .number(durationText(t.min_seconds), t.min_seconds)
          .number(durationText(t.max_seconds), t.max_seconds)
          .number(durationText(t.stddev_seconds), t.stddev_seconds)
          .number(program::gbpsText(t.gbps), t.gbps)
          .raw("</tr>\n");
    }
    html.raw("</tbody></table></div>\n");
  }
  const auto b = exec::breakDownTime(p);
  std::string line;
  if (b.run_seconds > 0 && !b.instructions_timed)
    line = "Per iteration " + durationText(b.run_seconds) + ": no instruction was timed, so it cannot be split. ";
  else if (b.run_seconds > 0)
    line = "Per iteration " + durationText(b.run_seconds) + ": kernels " + program::percentText(b.share(b.kernel_seconds)) +
           ", delegates " + (b.delegates_timed ? program::percentText(b.share(b.delegate_seconds)) : std::string("not run")) +
           ", copies " + program::percentText(b.share(b.copy_seconds)) + ", copy overhead " +
           program::percentText(b.share(b.copy_overhead_seconds)) + ", gaps " + program::percentText(b.share(b.gap_seconds)) + ". ";
  line += b.overlap_visible && b.overlap_seconds ? "Copy/compute overlap: " + durationText(*b.overlap_seconds) + "."
                                                 : "Copy/compute overlap cannot be seen: " + b.overlap_note + ".";
  html.element("p", line, "class=\"breakdown\"");
  const auto check = exec::checkProfile(p);
  writeProfileFindings(html, check.findings, "No profile findings.");
  for (const auto& line2 : check.not_judged) html.element("p", line2, "class=\"note\"");
}

// PRF004 across the methods of one trace, those that touch a reported method.
void writeFindingsAcrossMethods(Html& html, const HtmlReportInput& input) {
  if (!input.measured_across_methods) return;
  std::vector<exec::ProfileFinding> shown;
  for (const auto& f : *input.measured_across_methods)
    if (input.method.empty() || f.method == input.method || f.other_method == input.method) shown.push_back(f);
  html.raw("<section id=\"across-methods\"><h2>Measured findings across methods</h2>\n");
  html.element("p", "One trace of the caller running each method: a value one method returns through the host and "
                    "another takes back to a device goes to the host and back between the two calls.",
               "class=\"note\"");
  writeProfileFindings(html, shown, "No findings across methods.");
  html.raw("</section>\n");
}

void writeFindings(Html& html, const MethodFacts& m, const std::vector<analysis::Diagnostic>& findings) {
  html.raw("<h3>Lint findings</h3>\n");
  std::vector<const analysis::Diagnostic*> mine;
  for (const auto& f : findings)
    if (f.method == m.method->displayName()) mine.push_back(&f);
  if (mine.empty()) {
    html.raw("<p>No findings.</p>\n");
    return;
  }
  html.raw("<table class=\"sortable findings\">");
  html.headerRow({"Rule", "Severity", "Where", "Finding", "Fix"});
  html.raw("<tbody>\n");
  for (const auto* f : mine) {
    html.raw("<tr class=\"sev-" + analysis::severityName(f->severity) + "\">")
        .cell(f->id + " " + f->slug)
        .cell(analysis::severityName(f->severity))
        .cell(f->location())
        .cell(f->message)
        .cell(f->hint)
        .raw("</tr>\n");
  }
  html.raw("</tbody></table>\n");
}

void writeMemoryPlan(Html& html, const MethodFacts& m) {
  html.raw("<h3>Memory plan</h3>\n");
  const auto& sizes = program::items(m.method->non_const_buffer_sizes);
  struct Buffer {
    size_t tensors = 0;
    uint64_t tensor_bytes = 0;
    uint64_t high = 0;
  };
  std::map<uint32_t, Buffer> used;
  for (const auto& v : program::items(m.method->values)) {
    const auto* t = v.tensor();
    if (!t || !t->isPlanned()) continue;
    auto& b = used[t->allocation_info->memory_id];
    ++b.tensors;
    const int64_t n = std::max<int64_t>(t->nbytes(), 0);
    b.tensor_bytes += uint64_t(n);
    b.high = std::max<uint64_t>(b.high, t->allocation_info->offset() + uint64_t(n));
  }
  if (sizes.size() <= 1 && used.empty()) {
    html.raw("<p>No planned buffers.</p>\n");
    return;
  }
  std::map<program::Device, int64_t> perDevice;
  html.raw("<table class=\"sortable\">");
  html.headerRow({"n:Buffer", "Device", "n:Size", "n:Planned tensors", "n:Highest byte used"});
  html.raw("<tbody>\n");
  for (size_t i = 1; i < sizes.size(); ++i) {
    const auto device = m.method->bufferDevice(int32_t(i));
    perDevice[device] += sizes[i];
    const Buffer b = used.count(uint32_t(i)) ? used[uint32_t(i)] : Buffer{};
    html.raw("<tr>")
        .number(std::to_string(i), double(i))
        .cell(device.str())
        .number(bytesText(sizes[i]), double(sizes[i]))
        .number(std::to_string(b.tensors), double(b.tensors))
        .number(bytesText(int64_t(b.high)), double(b.high))
        .raw("</tr>\n");
  }
  html.raw("</tbody></table>\n<p>Per device: ");
  bool first = true;
  for (const auto& [device, total] : perDevice) {
    html.raw(first ? "" : ", ").text(device.str() + " " + bytesText(total));
    first = false;
  }
  html.raw("</p>\n");
}

void writeGraph(Html& html, const MethodFacts& m) {
  html.raw("<h3>Graph</h3>\n");
  if (m.svg.empty()) {
    html.element("p", m.graph_note, "class=\"note\"");
    return;
  }
  std::string caption = std::to_string(m.model.nodes.size()) + " nodes, " + std::to_string(m.model.edges.size()) +
                        " edges, as the app first shows it";
  if (m.model.has_groups) caption += "; repeated layers and long runs are collapsed into groups";
  html.element("p", caption, "class=\"note\"");
  html.raw("<div class=\"tools\"><input type=\"search\" class=\"find\" placeholder=\"Find (operator, %value, #instruction)\" "
           "aria-label=\"Find in the graph of method ")
      .text(m.method->displayName())
      .raw("\"><span class=\"find-status\" role=\"status\"></span>"
           "<button type=\"button\" data-zoom=\"in\" title=\"Zoom in\">+</button>"
           "<button type=\"button\" data-zoom=\"out\" title=\"Zoom out\">&#8722;</button>"
           "<button type=\"button\" data-zoom=\"fit\" title=\"Fit\">Fit</button></div>\n");
  html.raw("<div class=\"graph\" data-nodes=\"" + std::to_string(m.graph_nodes) + "\">").raw(m.svg).raw("</div>\n");
}

void writeCompare(Html& html, const HtmlReportInput& input, const std::vector<MethodFacts>& methods) {
  html.raw("<section id=\"compare\"><h2>Compared with ").text(input.compare_name).raw("</h2>\n");
  auto diff = passes::diffPrograms(*input.compare, *input.program);
  if (!diff) {
    html.element("p", "Cannot compare: " + diff.error().message, "class=\"note\"");
    html.raw("</section>\n");
    return;
  }
  for (const auto& name : diff->methods_only_in_a) html.element("p", "Method '" + name + "' is only in " + input.compare_name);
  for (const auto& name : diff->methods_only_in_b) html.element("p", "Method '" + name + "' is new in this program");
  html.raw("<table class=\"sortable\">");
  html.headerRow({"Method", "n:Copies added", "n:Copies removed", "n:Predicted before", "n:Predicted now", "n:Saving per call"});
  html.raw("<tbody>\n");
  std::vector<std::pair<std::string, const passes::CopyRecord*>> changed;
  for (const auto& md : diff->methods) {
    const bool shown = std::any_of(methods.begin(), methods.end(),
                                   [&](const MethodFacts& m) { return m.method->displayName() == md.name; });
    if (!shown) continue;
    html.raw("<tr>").cell(md.name);
    html.number(std::to_string(md.copies_only_in_b.size()), double(md.copies_only_in_b.size()));
    html.number(std::to_string(md.copies_only_in_a.size()), double(md.copies_only_in_a.size()));
    const auto* before = input.compare->findMethod(md.name);
    const auto* after = input.program->findMethod(md.name);
    auto p = before ? cost::predictMethod(*input.compare, *before, *input.link, input.host_memory, input.run_settings)
                    : makeError("no method");
    auto q = after ? cost::predictMethod(*input.program, *after, *input.link, input.host_memory, input.run_settings)
                   : makeError("no method");
    if (p && q) {
      // A method without copies has no copy time: "none", not a bare "0".
      const auto timeText = [](const cost::MethodPrediction& m) { return program::copyTimeText(m.copyCount(), m.copySeconds()); };
      const double saving = p->copySeconds() - q->copySeconds();
      html.number(timeText(*p), p->copySeconds())
          .number(timeText(*q), q->copySeconds())
          .number(saving == 0 ? std::string("no change")
                  : saving > 0 ? "saves " + durationText(saving)
                               : "adds " + durationText(-saving),
                  saving);
    } else {
      html.cell("?").cell("?").cell(p ? q.error().message : p.error().message);
    }
    html.raw("</tr>\n");
    for (const auto& c : md.copies_only_in_b) changed.emplace_back("added", &c);
    for (const auto& c : md.copies_only_in_a) changed.emplace_back("removed", &c);
  }
  html.raw("</tbody></table>\n");
  if (changed.empty()) {
    html.raw("<p>No copy was added or removed.</p>\n");
  } else {
    html.raw("<table class=\"sortable\">");
    html.headerRow({"Change", "Direction", "n:Source", "From", "To", "n:Bytes", "Copy"});
    html.raw("<tbody>\n");
    for (const auto& [what, c] : changed)
      html.raw("<tr class=\"" + what + "\">")
          .cell(what)
          .cell(program::copyDirectionName(c->direction))
          .number("%" + std::to_string(c->source), double(c->source))
          .cell(c->from.str())
          .cell(c->to.str())
          .number(bytesText(c->bytes), double(c->bytes))
          .cell(c->key())
          .raw("</tr>\n");
    html.raw("</tbody></table>\n");
  }
  html.raw("</section>\n");
}

}  // namespace

std::string scriptSafeJson(const std::string& jsonText) {
  std::string out;
  out.reserve(jsonText.size());
  for (size_t i = 0; i < jsonText.size(); ++i) {
    const char c = jsonText[i];
    if (c == '<') out += "\\u003c";
    else if (c == '>') out += "\\u003e";
    else if (c == '&') out += "\\u0026";
    else if (c == '\xE2' && i + 2 < jsonText.size() && jsonText[i + 1] == '\x80' &&
             (jsonText[i + 2] == '\xA8' || jsonText[i + 2] == '\xA9')) {
      out += jsonText[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else out += c;
  }
  return out;
}

std::string cspHashSource(const std::string& text) {
  return "'sha256-" + base64(sha256(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()))) + "'";
}

Result<std::string> htmlReport(const HtmlReportInput& input, HtmlReportFacts* facts) {
  if (input.program == nullptr || input.link == nullptr) return makeError("report: no program or no link");
  const auto& all = input.program->methods();
  if (!input.method.empty() && input.program->findMethod(input.method) == nullptr)
    return makeError("no method named '" + input.method + "'");
  std::vector<MethodFacts> methods;
  for (size_t i = 0; i < all.size(); ++i) {
    if (!input.method.empty() && all[i].displayName() != input.method) continue;
    MethodFacts m;
    m.method = &all[i];
    m.index = i;
    m.anchor = "m" + std::to_string(i);
    m.summary = analysis::summarizeMethod(all[i]);
    auto prediction = cost::predictMethod(*input.program, all[i], *input.link, input.host_memory, input.run_settings);
    if (prediction) m.prediction = std::move(prediction.value());
    else m.prediction_error = prediction.error().message;
    methods.push_back(std::move(m));
  }
  for (auto& m : methods) {
    drawMethod(m, input);
    measureMethod(m, input);
  }
  for (const auto& profile : input.measured)
    if (input.program->findMethod(profile.method) == nullptr)
      return makeError(input.measured_name + ": a measurement of method '" + profile.method + "', which the program lacks");
  const auto findings = analysis::lintProgram(*input.program);

  const std::string title = "ptescope report: " + input.program_name;
  Html body;
  body.raw("<header><h1>").text(title).raw("</h1>\n");
  for (const auto& note : input.notes) body.element("p", note, "class=\"note\"");
  body.raw("<nav><a href=\"#summary\">Summary</a>");
  if (input.compare) body.raw(" · <a href=\"#compare\">Compared</a>");
  if (input.measured_across_methods) body.raw(" · <a href=\"#across-methods\">Across methods</a>");
  for (const auto& m : methods) body.raw(" · ").element("a", "method " + m.method->displayName(), "href=\"#" + m.anchor + "\"");
  body.raw("</nav></header>\n<main>\n");
  writeSummary(body, input, methods);
  if (input.compare) writeCompare(body, input, methods);
  writeFindingsAcrossMethods(body, input);
  size_t copyRows = 0;
  nlohmann::json data = {{"program", input.program_name}, {"methods", nlohmann::json::array()}};
  for (const auto& m : methods) {
    body.raw("<section class=\"method\" id=\"" + m.anchor + "\"><h2>Method ").element("q", m.method->displayName()).raw("</h2>\n");
    writeGraph(body, m);
    const size_t before = copyRows;
    const auto& only = input.measured_before_methods;
    const std::string measuredBefore =
        only.empty() || std::find(only.begin(), only.end(), m.method->displayName()) != only.end() ? input.measured_before
                                                                                                   : std::string();
    writeCopies(body, m, &copyRows, measuredBefore);
    writeMeasuredAnalyses(body, m, measuredBefore);
    writeFindings(body, m, findings);
    writeMemoryPlan(body, m);
    body.raw("</section>\n");
    data["methods"].push_back({{"name", m.method->displayName()},
                               {"anchor", m.anchor},
                               {"nodes", m.graph_nodes},
                               {"copies", copyRows - before}});
  }
  body.raw("</main>\n<footer>Written by ptescope " PTESCOPE_VERSION ". Predicted times are typical figures for the link, "
           "not guarantees.</footer>\n");

  const std::string& script = htmlReportScript();
  const std::string& style = htmlReportStyle();
  std::string html;
  html.reserve(body.str().size() + script.size() + style.size() + 4096);
  html += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n";
  html += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src " + cspHashSource(script) +
          "; style-src " + cspHashSource(style) + "; base-uri 'none'; form-action 'none'\">\n";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" + h(title) + "</title>\n";
  html += "<style>" + style + "</style>\n</head>\n<body data-report=\"loading\">\n";
  html += body.str();
  html += "<script type=\"application/json\" id=\"report-data\">" + scriptSafeJson(jsonText(data, -1)) + "</script>\n";
  html += "<script>" + script + "</script>\n</body></html>\n";
  if (facts) {
    facts->methods.clear();
    facts->graph_nodes.clear();
    for (const auto& m : methods) {
      facts->methods.push_back(m.method->displayName());
      facts->graph_nodes.push_back(m.graph_nodes);
    }
    facts->copies = copyRows;
    facts->bytes = html.size();
  }
  return html;
}

Status writeHtmlReport(const std::string& path, const HtmlReportInput& input, HtmlReportFacts* facts) {
  auto html = htmlReport(input, facts);
  if (!html) return html.error();
  return writeTextFile(path, html.value());
}

}  // namespace ptescope::report
