#include "RenderCommand.h"

#include "CliCommon.h"

#include <fstream>
#include <iostream>

#include "layout/GraphModel.h"
#include "layout/GraphvizLayout.h"
#include "pte/Reader.h"

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
    render_->add_option("--method", method_, "Method to draw (default: the first)");
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
    const program::Method* method = &methods.front();
    if (!method_.empty()) {
      method = loaded->program.findMethod(method_);
      if (!method) return fail(file_ + ": no method named '" + method_ + "'");
    }

    const auto graph = layout::MethodGraph::analyze(*method);
    const auto view = full_ ? graph.fullExpansion() : graph.initialExpansion();
    const layout::GraphModel model = graph.build(view);

    std::string bytes;
    if (format == "dot") {
      bytes = layout::toDot(model);
    } else {
      auto rendered = layout::renderGraph(model, format);
      if (!rendered) return fail(file_ + ": " + rendered.error().message);
      bytes = std::move(rendered.value());
    }
    std::ofstream out(output_, std::ios::binary);
    if (!out || !out.write(bytes.data(), std::streamsize(bytes.size())) || !(out.flush()))
      return fail("render: cannot write '" + output_ + "'");
    std::cerr << "ptescope-cli: wrote " << output_ << " (method '" << model.method_name << "', " << model.nodes.size()
              << " nodes, " << model.edges.size() << " edges"
              << (model.has_groups ? ", repeated layers and long runs collapsed; --full draws everything" : "") << ")\n";
    return 0;
  }

  CLI::App* render_ = nullptr;
  std::string file_;
  std::string output_;
  std::string method_;
  std::vector<std::string> ptd_;
  bool full_ = false;
};

}  // namespace

std::unique_ptr<RenderCommand> addRenderCommand(CLI::App& app) { return std::make_unique<RenderCommandImpl>(app); }

}  // namespace ptescope::cli
