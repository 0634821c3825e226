#include "passes/MemoryPlanner.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <string>

#include "analysis/Dataflow.h"

namespace ptescope::passes {
using namespace ptescope::program;

namespace {

// For every time point, the largest value of the intervals raised over it.
// The greedy placement asks "which allocations of this shared object are
// alive during [first, last], and where does the highest of them end?";
// a scan over the allocations makes that quadratic on the 50k-instruction
// programs, so each shared object keeps this sparse segment tree instead.
class IntervalMaxMap {
 public:
  explicit IntervalMaxMap(size_t span) : span_(std::max<size_t>(span, 1)) { nodes_.emplace_back(); }

  // Every point of [first, last] becomes at least `value`.
  void raise(size_t first, size_t last, uint64_t value) { raise(0, 0, span_ - 1, first, last, value); }
  // The largest value over [first, last]; 0 when nothing was raised there.
  uint64_t max(size_t first, size_t last) const { return max(0, 0, span_ - 1, first, last); }

 private:
  struct Node {
    uint64_t max = 0;    // largest value at any point of the node's range
    uint64_t whole = 0;  // value raised over the node's whole range
    int32_t left = -1;
    int32_t right = -1;
  };

  int32_t child(int32_t node, bool right) {
    int32_t& slot = right ? nodes_[static_cast<size_t>(node)].right : nodes_[static_cast<size_t>(node)].left;
    if (slot < 0) {
      slot = static_cast<int32_t>(nodes_.size());
      nodes_.emplace_back();  // invalidates references into nodes_, hence the index
    }
    return right ? nodes_[static_cast<size_t>(node)].right : nodes_[static_cast<size_t>(node)].left;
  }

  void raise(int32_t node, size_t lo, size_t hi, size_t first, size_t last, uint64_t value) {
    if (last < lo || first > hi) return;
    Node& n = nodes_[static_cast<size_t>(node)];
    n.max = std::max(n.max, value);
    if (first <= lo && hi <= last) {
      n.whole = std::max(n.whole, value);
      return;
    }
    const size_t mid = lo + (hi - lo) / 2;
    raise(child(node, false), lo, mid, first, last, value);
    raise(child(node, true), mid + 1, hi, first, last, value);
  }

  uint64_t max(int32_t node, size_t lo, size_t hi, size_t first, size_t last) const {
    if (node < 0 || last < lo || first > hi) return 0;
    const Node& n = nodes_[static_cast<size_t>(node)];
    if (first <= lo && hi <= last) return n.max;
    const size_t mid = lo + (hi - lo) / 2;
    return std::max({n.whole, max(n.left, lo, mid, first, last), max(n.right, mid + 1, hi, first, last)});
  }

  size_t span_;
  std::vector<Node> nodes_;
};

struct PlanSpec {
  int32_t value = 0;
  size_t first = 0;  // lifetime, inclusive
  size_t last = 0;
  uint64_t allocated = 0;  // nbytes rounded up to the alignment
};

// A region of the arena that tensors with disjoint lifetimes share, as
// upstream's SharedObject.
struct SharedObject {
  uint64_t size = 0;
  uint64_t offset = 0;  // within the arena, set once all specs are placed
  IntervalMaxMap liveEnds;  // per time point: 1 + end offset of the live allocations
  std::vector<std::pair<int32_t, uint64_t>> allocations;  // value, offset within the object
};

// Upstream's greedy algorithm for one arena. Returns the arena size and
// writes each spec's offset into `offsets`.
uint64_t planArenaGreedy(std::vector<PlanSpec> specs, size_t timeSpan, uint64_t extraPadding,
                         std::map<int32_t, uint64_t>& offsets) {
  // Largest first. Upstream inserts with bisect.insort (stable, ascending)
  // and reverses, so equal sizes end up in reverse insertion order.
  std::stable_sort(specs.begin(), specs.end(),
                   [](const PlanSpec& a, const PlanSpec& b) { return a.allocated < b.allocated; });
  std::reverse(specs.begin(), specs.end());

  std::vector<SharedObject> objects;
  for (const PlanSpec& spec : specs) {
    SharedObject* picked = nullptr;
    uint64_t offsetInObject = 0;
    // First choice: an object none of whose allocations is alive meanwhile.
    for (auto& object : objects) {
      if (object.liveEnds.max(spec.first, spec.last) == 0) {
        picked = &object;
        break;
      }
    }
    // Second: above the highest allocation alive meanwhile, if it still fits.
    if (!picked) {
      for (auto& object : objects) {
        const uint64_t highest = object.liveEnds.max(spec.first, spec.last);
        const uint64_t maxOffset = highest == 0 ? 0 : highest - 1;
        if (maxOffset > 0 && maxOffset + spec.allocated <= object.size) {
          picked = &object;
          offsetInObject = maxOffset;
          break;
        }
      }
    }
    if (!picked) {
      objects.push_back(SharedObject{spec.allocated, 0, IntervalMaxMap(timeSpan), {}});
      picked = &objects.back();
    }
    picked->allocations.emplace_back(spec.value, offsetInObject);
    picked->liveEnds.raise(spec.first, spec.last, offsetInObject + spec.allocated + 1);
  }

  uint64_t total = 0;
  for (auto& object : objects) {
    object.offset = total;
    total += object.size;
    for (const auto& [value, offset] : object.allocations) offsets[value] = object.offset + offset;
  }
  return total + extraPadding;
}

bool isMutableBuffer(const Tensor& tensor) { return tensor.data_buffer_idx > 0 && tensor.allocation_info; }

constexpr Device kCpu0{DeviceType::Cpu, 0};

}  // namespace

bool hasXnnpackDelegate(const Method& method) {
  for (const auto& delegate : items(method.delegates)) {
    std::string id = delegate.id.value_or("");
    std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (id.find("xnnpack") != std::string::npos) return true;
  }
  return false;
}

namespace {

// Insertion order as upstream's FX graph would list the specs: buffers
// (placeholders before user inputs), user inputs, then values in the order
// instructions first touch them, then outputs nobody touched.
std::vector<int32_t> specInsertionOrder(const Method& method, const analysis::Dataflow& dataflow) {
  const auto& values = items(method.values);
  std::vector<int32_t> order;
  std::vector<bool> seen(values.size(), false);
  auto visit = [&](int32_t v) {
    if (v < 0 || static_cast<size_t>(v) >= values.size() || seen[static_cast<size_t>(v)]) return;
    seen[static_cast<size_t>(v)] = true;
    order.push_back(v);
  };
  for (size_t v = 0; v < values.size(); ++v)
    if (const auto* t = values[v].tensor(); t && isMutableBuffer(*t)) visit(static_cast<int32_t>(v));
  for (int32_t v : items(method.inputs)) visit(v);
  for (const auto& instruction : dataflow.instructions()) {
    for (int32_t v : instruction.inputs) visit(v);
    for (int32_t v : instruction.outputs) visit(v);
  }
  for (int32_t v : items(method.outputs)) visit(v);
  return order;
}

// What is to be planned, per device, before any placement.
struct PlanningSpecs {
  std::map<Device, std::vector<PlanSpec>> by_device;
  size_t time_span = 0;
  std::vector<bool> planned;                         // by value
  std::vector<std::pair<int32_t, int32_t>> aliases;  // (alias, base) to share the base's allocation
};

Result<PlanningSpecs> collectSpecs(const Method& method, const analysis::Dataflow& dataflow,
                                   const PlanningOptions& options, const std::string& where) {
  const auto& values = items(method.values);
  std::vector<bool> isInput(values.size(), false), isOutput(values.size(), false);
  for (int32_t v : items(method.inputs))
    if (v >= 0 && static_cast<size_t>(v) < values.size()) isInput[static_cast<size_t>(v)] = true;
  for (int32_t v : items(method.outputs))
    if (v >= 0 && static_cast<size_t>(v) < values.size()) isOutput[static_cast<size_t>(v)] = true;

  const size_t instructionCount = dataflow.instructionCount();
  PlanningSpecs specs;
  specs.time_span = instructionCount + 1;
  specs.planned.assign(values.size(), false);
  for (int32_t v : specInsertionOrder(method, dataflow)) {
    const auto* tensor = values[static_cast<size_t>(v)].tensor();
    if (!tensor || tensor->isConstant()) continue;
    const auto& facts = dataflow.value(v);
    // A static view that upstream elided into a second tensor over its base's
    // storage is not planned on its own: it gets the base's place.
    if (facts.storage_alias_of) {
      specs.aliases.emplace_back(v, *facts.storage_alias_of);
      continue;
    }
    const bool mutableBuffer = facts.is_mutable_state || isMutableBuffer(*tensor);
    auto what = [&] { return where + ": value " + std::to_string(v); };
    if (tensor->shape_dynamism == ShapeDynamism::DynamicUnbound) {
      if (mutableBuffer)
        return makeError(what() + " is a DYNAMIC_UNBOUND tensor with initial data; it cannot be memory-planned, "
                                "and without a plan its data would be read as a constant");
      continue;
    }
    if (!mutableBuffer) {
      if (!options.alloc_graph_input && isInput[static_cast<size_t>(v)]) continue;
      if (!options.alloc_graph_output && isOutput[static_cast<size_t>(v)]) continue;
    }
    std::pair<size_t, size_t> lifetime;
    if (mutableBuffer) {
      lifetime = {0, instructionCount};  // never freed, as upstream's mutable-buffer placeholders
    } else {
      if (!facts.lifetime) continue;  // nothing touches it: nothing to plan
      lifetime = *facts.lifetime;
    }
    const int64_t nbytes = tensor->nbytes();
    if (nbytes < 0)
      return makeError(what() + ": the tensor's byte size is unknown (a negative size, an invalid dtype or an "
                              "overflow), so it cannot be memory-planned");
    const uint64_t align = options.alignment;
    const uint64_t allocated = (static_cast<uint64_t>(nbytes) + align - 1) / align * align;
    const Device device = options.enable_non_cpu_memory_planning ? tensor->device() : kCpu0;
    specs.by_device[device].push_back(PlanSpec{v, lifetime.first, lifetime.second, allocated});
    specs.time_span = std::max(specs.time_span, lifetime.second + 1);
    specs.planned[static_cast<size_t>(v)] = true;
  }
  return specs;
}

// One arena per device, CPU:0 first, then the other devices by (type,
// index); buffer 0 is reserved for constants.
struct Arenas {
  std::vector<int64_t> sizes{0};
  std::vector<Device> devices{kCpu0};
  std::map<int32_t, std::pair<uint32_t, uint64_t>> allocation;  // value -> (memory_id, offset)
};

Arenas placeArenas(PlanningSpecs& specs, const Method& method, size_t instructionCount, MemoryPlanResult& result) {
  std::vector<Device> deviceOrder;
  if (specs.by_device.count(kCpu0)) deviceOrder.push_back(kCpu0);
  for (const auto& [device, list] : specs.by_device)
    if (device != kCpu0) deviceOrder.push_back(device);

  result.extra_padding = hasXnnpackDelegate(method) ? 64 : 0;
  Arenas arenas;
  for (const Device& device : deviceOrder) {
    std::map<int32_t, uint64_t> offsets;
    const uint64_t size = planArenaGreedy(specs.by_device[device], specs.time_span, result.extra_padding, offsets);
    // Each device yields exactly one arena; its local mem_id 1 becomes the
    // next global one.
    const auto memoryId = static_cast<uint32_t>(arenas.sizes.size());
    arenas.sizes.push_back(static_cast<int64_t>(size));
    arenas.devices.push_back(device);
    for (const auto& [value, offset] : offsets) arenas.allocation[value] = {memoryId, offset};
    result.buffers.push_back(PlannedBuffer{memoryId, device, size, offsets.size()});
  }
  // Nothing planned: upstream's planner still writes [0, 0]. A constant
  // method (no instructions; upstream emits it without planning) keeps the
  // [0] it was written with.
  const bool constantMethodForm = instructionCount == 0 && items(method.non_const_buffer_sizes).size() == 1;
  if (arenas.sizes.size() < 2 && !constantMethodForm) {
    arenas.sizes.push_back(0);
    arenas.devices.push_back(kCpu0);
    result.buffers.push_back(PlannedBuffer{1, kCpu0, 0, 0});
  }
  // Views share their base's place; an unplanned base leaves its views unplanned too.
  for (const auto& [alias, base] : specs.aliases) {
    auto found = arenas.allocation.find(base);
    if (found == arenas.allocation.end()) continue;
    arenas.allocation[alias] = found->second;
    specs.planned[static_cast<size_t>(alias)] = true;
  }
  return arenas;
}

// Writes allocation_info, non_const_buffer_sizes and the sparse
// non_const_buffer_device list (every buffer that is not CPU:0, and none at
// all unless some buffer has a non-CPU device type).
void writePlan(Method& method, const PlanningSpecs& specs, const Arenas& arenas, MemoryPlanResult& result) {
  auto& values = ensure(method.values);
  for (size_t v = 0; v < values.size(); ++v) {
    auto* tensor = values[v].tensor();
    if (!tensor || tensor->isConstant()) continue;
    if (specs.planned[v]) {
      const auto& [memoryId, offset] = arenas.allocation.at(static_cast<int32_t>(v));
      AllocationInfo info;
      info.memory_id = memoryId;
      info.setOffset(offset);
      tensor->allocation_info = info;
      result.planned_values.push_back(static_cast<int32_t>(v));
    } else {
      tensor->allocation_info.reset();
      result.unplanned_values.push_back(static_cast<int32_t>(v));
    }
  }
  method.non_const_buffer_sizes = arenas.sizes;
  result.non_const_buffer_sizes = arenas.sizes;

  const bool anyNonCpuType =
      std::any_of(arenas.devices.begin(), arenas.devices.end(), [](const Device& d) { return !d.isCpu(); });
  if (anyNonCpuType) {
    std::vector<NonConstBufferDevice> list;
    for (size_t i = 0; i < arenas.devices.size(); ++i)
      if (arenas.devices[i] != kCpu0)
        list.push_back(NonConstBufferDevice{static_cast<int32_t>(i), arenas.devices[i].type, arenas.devices[i].index});
    method.non_const_buffer_device = std::move(list);
  } else {
    method.non_const_buffer_device.reset();
  }
}

}  // namespace

Result<MemoryPlanResult> planMemory(Method& method, const PlanningOptions& options) {
  const std::string where = "method '" + method.displayName() + "'";
  if (options.alignment == 0 || (options.alignment & (options.alignment - 1)) != 0)
    return makeError(where + ": memory planning alignment " + std::to_string(options.alignment) +
                     " is not a power of two");
  ensure(method.values);
  const auto dataflow = analysis::Dataflow::build(method);
  auto specs = collectSpecs(method, dataflow, options, where);
  if (!specs) return specs.error();  // all checks are done before anything is written
  MemoryPlanResult result;
  const Arenas arenas = placeArenas(specs.value(), method, dataflow.instructionCount(), result);
  writePlan(method, specs.value(), arenas, result);
  return result;
}

}  // namespace ptescope::passes
