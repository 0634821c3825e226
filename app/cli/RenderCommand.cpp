#include "RenderCommand.h"

#include "CliCommon.h"
#include "EditFlags.h"

#include <iostream>

#include "analysis/Dataflow.h"
#include "analysis/DelegateTransfers.h"
#include "layout/DelegateCopyMarks.h"
#include "layout/DiffMarks.h"
#include "layout/GraphModel.h"
#include "layout/GraphvizLayout.h"
#include "pte/Reader.h"
#include "report/GraphDot.h"
#include "report/PassReportChanges.h"
#include "util/MappedFile.h"

namespace ptescope::cli {
namespace {


std::string lowerExtension(const std::string& path) {
  const auto dot = path.rfind('.');
  const auto slash = path.find_last_of("/\\");
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
  std::string ext = path.substr(dot + 1);
  for (char& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

class RenderCommandImpl : public RenderCommand {
 public:
  explicit RenderCommandImpl(CLI::App& app) {
    render_ = app.add_subcommand(
        "render", "Draw a method's graph (devices, copies, regions) as SVG, PNG or DOT, with no display needed");
    render_->add_option("FILE", file_, "Program (.pte)")->required();
    render_->add_option("-o,--output", output_, "Output file; its extension picks the format: .svg, .png or .dot")->required();
    render_->add_option("--method", method_,
                        "Method to draw (default: the first); edit flags then apply to it only, as with propagate");
    edits_.addTo(render_);
    render_->add_flag("--diff", diff_,
                      "Draw the edit's changes against the file: added copies, removed copies as ghosts, values and "
                      "delegates that changed device (the GUI's Diff view)");
    render_->add_option("--cuda-graph", cudaGraph_, kCudaGraphHelp);
    render_->add_option("--ptd", ptd_, "External data file(s) (.ptd)");
    render_->add_flag("--full", full_,
                      "Draw every instruction. By default a method with many instructions shows repeated layers "
                      "and long runs as collapsed groups, as the GUI first does");
  }

  std::optional<int> runIfParsed() override {
    if (!render_->parsed()) return std::nullopt;
    return run();
  }

 private:
  int run() {
    const std::string format = lowerExtension(output_);
    if (format != "svg" && format != "png" && format != "dot")
      return fail("render: cannot tell the format of '" + output_ + "': use a .svg, .png or .dot file name");
    pte::ReadOptions readOptions;
    readOptions.ptd_paths = ptd_;
    auto loaded = pte::readProgramFile(file_, readOptions);
    if (!loaded) return fail(loaded.error().message);
    const auto& methods = loaded->program.methods();
    if (methods.empty()) return fail(file_ + ": the program has no methods to draw");
    size_t methodIndex = 0;
    if (!method_.empty()) {
      const auto* found = loaded->program.findMethod(method_);
      if (!found) return fail(file_ + ": no method named '" + method_ + "'");
      methodIndex = size_t(found - methods.data());
    }

    // With edits (or --diff): the program the edits give, as propagate writes it.
    std::optional<passes::PipelineResult> edited;
    if (edits_.any() || diff_) {
      auto options = edits_.pipelineOptions(loaded->program, file_, method_);
      if (!options) return fail(options.error().message);
      auto result = passes::runPipeline(loaded->program, options.value());
      if (!result) return fail(file_ + ": " + result.error().message);
      edited = std::move(result.value());
    }
    const program::Program& drawn = edited ? edited->program : loaded->program;
    const program::Method& method = drawn.methods()[methodIndex];
    auto settings = analysis::cudaGraphSetting(cudaGraph_, drawn);
    if (!settings) return fail(settings.error().message);

    const auto graph = layout::MethodGraph::analyze(method);
    const auto view = full_ ? graph.fullExpansion() : graph.initialExpansion();
    layout::GraphModel model = graph.build(view);
    size_t changes = 0;
    if (diff_) {
      const auto marks = report::methodChanges(edited->report.methods[methodIndex], methods[methodIndex], method,
                                               graph.dataflow());
      layout::markChanges(model, graph, marks);
      changes = marks.added_copies.size() + marks.removed_copies.size() + marks.moved_values.size() +
                marks.retargeted.size() + marks.notes.size();
    }
    // The copies delegates make inside themselves, marked as the app's graph
    // marks them (GraphLayoutJob).
    const auto inside = analysis::delegateTransfers(drawn, method, settings.value());
    layout::markDelegateCopies(model, inside);

    layout::LayoutOptions layoutOptions;
    layoutOptions.time_budget_seconds = budget_;
    std::string bytes;
    std::string note;
    if (format == "dot" && model.nodes.size() > layoutOptions.stripe_above) {
      // One dot run over this many nodes would take very long: the DOT
      // carries ptescope's striped layout, pinned (layout=nop2).
      auto placed = layout::layoutGraph(model, layoutOptions);
      if (!placed) return fail(file_ + ": " + placed.error().message);
      bytes = report::toPinnedDot(placed.value(), layoutOptions);
      note = placed->note.empty() ? ", positions pinned (layout=nop2)" : ", " + placed->note;
    } else if (format == "dot") {
      bytes = report::toDot(model);
    } else {
      auto rendered = report::renderGraph(model, format, layoutOptions);
      if (!rendered) return fail(file_ + ": " + rendered.error().message);
      bytes = std::move(rendered.value());
    }
    // Never a half-written picture, never over the program.
    if (output_ == file_ || sameFile(output_, file_)) return fail("render: the output '" + output_ + "' is the program being drawn");
    auto written = writeFileAtomically(
        output_, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
    if (!written) return fail("render: " + written.error().message);
    say("wrote " + output_ + " (method '" + model.method_name + "', " + program::countText(model.nodes.size(), "node") +
        ", " + program::countText(model.edges.size(), "edge") +
        (model.has_groups ? ", repeated layers and long runs collapsed; --full draws everything" : "") +
        (diff_ ? ", " + program::countText(changes, "change") + " marked" : std::string()) +
        (inside.transfers.empty() ? std::string()
                                  : ", " + program::countText(inside.transfers.size(), "copy inside delegates", "copies inside delegates") +
                                        " marked") +
        note + ")");
    return 0;
  }

  CLI::App* render_ = nullptr;
  std::string file_;
  std::string output_;
  std::string method_;
  std::vector<std::string> ptd_;
  std::string cudaGraph_;
  EditFlags edits_;
  bool full_ = false;
  bool diff_ = false;
  double budget_ = 60;
};

}  // namespace

std::unique_ptr<RenderCommand> addRenderCommand(CLI::App& app) { return std::make_unique<RenderCommandImpl>(app); }

}  // namespace ptescope::cli
