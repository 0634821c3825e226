// The graph of one method as the picture shows it: nodes for instructions,
// transfers, method inputs/outputs and constants, edges per value, each with
// its device. Qt-free; GraphvizLayout places it, the CLI and the GUI draw it.
//
// Big programs (the strategy)
// ---------------------------
// Graphviz `dot` is superlinear in the number of nodes: a few hundred nodes
// take well under a second, tens of thousands take minutes. Real LLM
// programs have tens of thousands of instructions, so the picture never
// lays out everything at once unless asked to:
//
// 1. MethodGraph::analyze() builds a tree of contiguous instruction ranges
//    (GroupTree) once per method. It looks for the period of the method's
//    instruction sequence (operator, delegate backend and device of every
//    instruction): a transformer repeats one layer N times, so the period is
//    one layer. The repeated stretch becomes "layer i" groups, whatever
//    comes before and after stays as instructions. When there is no
//    repetition the instructions are cut into fixed-size chunks. Any list of
//    more than GroupingOptions::max_items items is cut again into chunks of
//    10, 100, 1000... items ("layers 0-99"), recursively, so that no group
//    shows more than max_items children when it is opened.
// 2. The view is a set of expanded groups. build() draws a collapsed group
//    as one node (with its instruction count, devices and copies) and routes
//    every value that enters or leaves it to that node; values inside it are
//    not drawn. Constants fold into their consumer once there are many.
// 3. initialExpansion(budget) opens groups in program order (the outer
//    chunk, then its first sub-chunk, then its first layer...) while the
//    number of visible nodes stays under the budget. The first picture of a
//    50,000-instruction program thus shows the overall structure plus the
//    first layers in full detail, and lays out in a fraction of a second.
// 4. Opening a group (double-click in the GUI) adds it to the set and lays
//    out the new, still small, view from scratch. fullExpansion() opens
//    everything (benchmarks, `render --full`).
// 5. Values read far from where they are made (an attention mask, rotary
//    tables or input_pos read by every layer, one input read by every
//    second instruction) are not drawn as long edges: long edges are what
//    makes dot's crossing reduction and routing run for minutes. A reader
//    further than ModelOptions::stub_near visible nodes from the producer
//    (or the first reader beyond stub_far) gets a small Stub node next to
//    it that names the value and its producer (GraphNode::stub_source); the
//    GUI highlights the producer when a stub is selected and jumps to it on
//    double-click. Every edge dot sees is thus short.
// Small methods (under GroupingOptions::layers_above instructions) have no
// groups at all and are always shown whole; those under group_above have
// layer groups only, when a repeated block is found.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/Dataflow.h"
#include "program/CopyDirection.h"
#include "program/Program.h"

namespace ptescope::layout {

enum class NodeKind : uint8_t {
  Kernel,     // a KernelCall other than a copy
  Delegate,   // a DelegateCall
  CopyH2D,    // et_copy::_h2d_copy
  CopyD2H,    // et_copy::_d2h_copy
  Control,    // move / jump_false / free
  Input,      // a method input
  Output,     // a method output
  Constant,   // a stored constant tensor, mutable state, or a literal the method returns
  Unbound,    // a tensor read but written by nothing and not an input
  Group,      // a collapsed range of instructions
  Stub,       // stands next to a reader for values made far away (stub_source)
};
std::string nodeKindName(NodeKind kind);
bool isInstructionKind(NodeKind kind);

// How a node or an edge differs from the program as loaded, in a diff view
// (see layout/DiffMarks.h); None outside diff views.
enum class Change : uint8_t {
  None,
  Added,    // a copy the edits added
  Removed,  // a copy the edits removed (a "ghost" node that is not in the program)
  Moved,    // a value whose device changed, a delegate whose target changed,
            // a group holding changes
};

// A copy a delegate makes inside its own execute() (analysis/
// DelegateTransfers): no instruction and never a node of its own; drawn as a
// mark on the delegate's boundary edge (layout/DelegateCopyMarks.h).
struct InsideCopyMark {
  int32_t delegate = -1;  // index in the method's delegates
  program::CopyDirection direction = program::CopyDirection::HostToDevice;
  uint64_t bytes = 0;
  bool input_side = true;  // before the engine runs (an input), or after it (an output)
  bool cuda_graph = false; // CUDA graph replay: the run's setting added it
  std::string badge;       // "inside delegate 0: h2d 64 B"
  std::string text;        // the transfer's whole line, with the upstream lines and the bytes
};

struct DeviceCount {
  program::Device device;
  size_t instructions = 0;
};

struct GraphNode {
  NodeKind kind = NodeKind::Kernel;
  // Stable across views of the same method: "i12" (instruction), "g3"
  // (group), "in0" / "out10" / "c4" / "u7" (value nodes, by value index;
  // an output node is per position in the outputs list: "out<pos>").
  std::string key;
  std::string title;     // what the node says first: "add", "CudaBackend", "h2d 4.0 KiB", "layer 3"
  std::string subtitle;  // second line: "#3 aten::add.out", "→ cuda:0", "256 B", ...
  std::string tooltip;   // everything else, several lines
  // Where the node runs (instructions), lives (values), or most of its
  // instructions run (groups). A copy's device is its source.
  program::Device device;
  // False for group nodes whose instructions run on more than one device:
  // they belong to no device region.
  bool has_device = true;
  std::optional<size_t> instruction;  // instruction nodes
  int32_t value = -1;                 // value nodes
  int group = -1;                     // group nodes: index into GroupTree::groups
  // Copies: the transfer.
  program::Device copy_source;
  program::Device copy_destination;
  int64_t copy_bytes = -1;
  // Constants folded into this node (inputs of an instruction or a group
  // when the method has many constants), value indices ascending.
  std::vector<int32_t> folded_constants;
  // Group nodes: instructions per device, and what the group holds.
  std::vector<DeviceCount> devices;
  size_t group_instructions = 0, group_h2d = 0, group_d2h = 0, group_delegates = 0;
  // Words that Find matches: operator name, backend, value indices, tensor names.
  std::vector<std::string> search_terms;
  // Position in program order: the instruction (a group's first one); 0 for
  // inputs, the instruction count for outputs, the first reader for
  // constants. Striped layouts cut the graph along it.
  size_t order = 0;
  // Stub nodes: the node that makes the values (index into the model's
  // nodes) and the values, ascending; the stub's one edge goes to the reader.
  std::optional<size_t> stub_source;
  std::vector<int32_t> stub_values;
  // Diff views only: what changed and a line saying how.
  Change change = Change::None;
  std::string change_note;
  // Delegate nodes (and collapsed groups holding them): the copies the
  // backend makes inside, in the analysis's order.
  std::vector<InsideCopyMark> inside_copies;
};

struct GraphEdge {
  size_t from = 0;  // node index
  size_t to = 0;    // node index
  // The value carried; when several values between the same two nodes were
  // merged into one edge, the first of them and `merged_values` > 1.
  int32_t value = -1;
  size_t merged_values = 1;
  std::string label;  // "float32[1,64]", "int", "3 tensors"
  program::Device device;
  // The edge goes from one device region into another: the tensor moves.
  // After the device passes every such edge touches a copy node (copies sit
  // in their source's region, so the copy's output crosses).
  bool crosses_device = false;
  // A crossing with no copy at either end: the program moves a tensor
  // between devices without a transfer (before the passes, or broken).
  bool implicit_crossing = false;
  // Diff views only.
  Change change = Change::None;
  std::string change_note;
  // The copies a delegate at either end makes of this value inside itself
  // (the edge into the delegate for inputs, its first edge out for outputs).
  std::vector<InsideCopyMark> inside_copies;
};

struct GraphModel {
  std::string method_name;
  size_t instruction_count = 0;  // of the method, visible or not
  std::vector<GraphNode> nodes;
  std::vector<GraphEdge> edges;
  // Devices with at least one node in their region, CPU first then by type
  // and index.
  std::vector<program::Device> devices;
  bool has_groups = false;      // at least one collapsed group is visible
  // Diff views: removed copies beyond the number of ghosts drawn.
  size_t undrawn_removed_copies = 0;
  bool constants_folded = false;

  std::optional<size_t> findNode(std::string_view key) const;
  // The node showing this instruction: its own, or the collapsed group
  // holding it.
  std::optional<size_t> nodeOfInstruction(size_t instruction) const;

  // Filled by build(): instruction -> visible node index.
  std::vector<size_t> node_of_instruction;
};

struct GroupingOptions {
  // Methods with fewer instructions are not cut into chunks of instructions.
  size_t group_above = 300;
  // Methods with at least this many instructions get layer groups whenever a
  // repeated block (two layers or more) is found: an 8-layer model of 250
  // instructions does not fit a window legibly either.
  size_t layers_above = 48;
  // The most children a group (or the top level) shows when opened.
  size_t max_items = 40;
  // Longest repeated block that is recognized as a layer.
  size_t max_period = 4000;
};

struct InstructionGroup {
  size_t first = 0;  // instruction range [first, last)
  size_t last = 0;
  int parent = -1;
  std::string title;  // "layer 3", "layers 0-99", "instructions 200-299"
  // What opening the group shows, in program order: child groups and the
  // instructions that are not in any child group.
  struct Item {
    bool is_group = false;
    size_t index = 0;  // group index or instruction index
  };
  std::vector<Item> items;
};

struct GroupTree {
  std::vector<InstructionGroup> groups;
  std::vector<InstructionGroup::Item> top;  // what the method shows at the top level
  size_t period = 0;                        // instructions per detected layer; 0 when none
  size_t layers = 0;                        // detected layers
  size_t layer_start = 0;                   // first instruction of layer 0
};

struct ModelOptions {
  // Above this many tensor constants in the method, constants fold into
  // their consumer instead of getting a node each.
  size_t fold_constants_above = 24;
  // More values than this between the same two nodes merge into one edge.
  size_t merge_edges_above = 3;
  // Stubs instead of long edges (see "Big programs" above): readers up to
  // stub_near visible nodes (in program order) away from the producer get
  // an edge, and so does the first reader up to stub_far away; the others
  // get a stub.
  bool stubs = true;
  size_t stub_near = 12;
  size_t stub_far = 60;
};

class MethodGraph {
 public:
  // Analyzes `method`, which must outlive the MethodGraph. `cancel` is
  // polled; when it becomes true the result is empty and cancelled() true.
  static MethodGraph analyze(const program::Method& method, const GroupingOptions& options = {},
                             const std::atomic<bool>* cancel = nullptr);

  const program::Method& method() const { return *method_; }
  const analysis::Dataflow& dataflow() const { return flow_; }
  const GroupTree& groups() const { return tree_; }
  bool cancelled() const { return cancelled_; }

  // Groups to open for a first picture of about `nodeBudget` nodes.
  std::set<int> initialExpansion(size_t nodeBudget = 160) const;
  // Every group.
  std::set<int> fullExpansion() const;
  // Groups holding the instruction, outermost first.
  std::vector<int> groupPathOf(size_t instruction) const;
  // The nodes a view would have, without building it.
  size_t visibleNodeEstimate(const std::set<int>& expanded) const;

  // The graph for a view. Groups not in `expanded` (and groups inside
  // them) are drawn collapsed. Returns an empty model when cancelled.
  GraphModel build(const std::set<int>& expanded, const ModelOptions& options = {},
                   const std::atomic<bool>* cancel = nullptr) const;

 private:
  const program::Method* method_ = nullptr;
  analysis::Dataflow flow_;
  GroupTree tree_;
  std::vector<int> innermost_group_;  // per instruction, -1 when none
  bool cancelled_ = false;
};

// "float32[1,64]" for a tensor, "int" / "bool" / "int list" for others.
std::string valueTypeText(const program::Method& method, int32_t value);

}  // namespace ptescope::layout
