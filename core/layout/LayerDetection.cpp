// Layer detection and grouping: MethodGraph::analyze finds the repeated
// block of a method's instruction sequence (transformer layers and the like)
// and builds the group tree the graph view folds and unfolds.
#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "layout/GraphModel.h"
#include "layout/MethodFacts.h"

namespace ptescope::layout {

using namespace facts;

namespace {

struct Period {
  size_t length = 0;
  size_t start = 0;
  size_t layers = 0;
};

// The repeated block of the instruction sequence (see the header). Candidate
// lengths come from the distances between repeats of the same signature;
// each candidate is checked in one pass for its longest periodic stretch.
Period detectPeriod(const std::vector<uint32_t>& symbols, size_t maxPeriod) {
  const size_t n = symbols.size();
  if (n < 8) return {};
  std::unordered_map<uint32_t, size_t> lastSeen;
  std::unordered_map<uint32_t, std::vector<size_t>> positions;
  std::unordered_map<size_t, size_t> gapCount;
  for (size_t i = 0; i < n; ++i) {
    auto it = lastSeen.find(symbols[i]);
    if (it != lastSeen.end()) {
      const size_t gap = i - it->second;
      if (gap <= maxPeriod) ++gapCount[gap];
    }
    lastSeen[symbols[i]] = i;
    positions[symbols[i]].push_back(i);
  }
  std::vector<std::pair<size_t, size_t>> byCount(gapCount.begin(), gapCount.end());
  std::sort(byCount.begin(), byCount.end(), [](auto a, auto b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
  std::set<size_t> candidates;
  for (size_t i = 0; i < byCount.size() && i < 12; ++i) candidates.insert(byCount[i].first);
  // When every step of a layer occurs twice or more in it, no single gap is
  // the layer; the k-th repeat of a rare signature is.
  std::vector<std::pair<size_t, uint32_t>> rarity;
  for (const auto& [symbol, where] : positions)
    if (where.size() >= 4) rarity.emplace_back(where.size(), symbol);
  std::sort(rarity.begin(), rarity.end());
  for (size_t r = 0; r < rarity.size() && r < 4; ++r) {
    const auto& where = positions[rarity[r].second];
    for (size_t step = 1; step <= 4 && step < where.size(); ++step) {
      const size_t gap = where[step] - where[0];
      if (gap <= maxPeriod) candidates.insert(gap);
    }
  }

  Period best;
  size_t bestCoverage = 0;
  std::vector<std::pair<Period, size_t>> evaluated;
  for (size_t p : candidates) {
    if (p < 2 || p * 3 > n) continue;
    size_t runStart = 0, bestRunStart = 0, bestRun = 0;
    size_t run = 0;
    for (size_t i = 0; i + p < n; ++i) {
      if (symbols[i] == symbols[i + p]) {
        if (run == 0) runStart = i;
        ++run;
        if (run > bestRun) {
          bestRun = run;
          bestRunStart = runStart;
        }
      } else {
        run = 0;
      }
    }
    const size_t layers = (bestRun + p) / p;
    if (layers < 3) continue;
    const size_t coverage = layers * p;
    evaluated.push_back({Period{p, bestRunStart, layers}, coverage});
    bestCoverage = std::max(bestCoverage, coverage);
  }
  if (bestCoverage * 10 < n * 3) return {};
  // Twice the layer is periodic too: take the shortest that covers as much.
  for (const auto& [period, coverage] : evaluated) {
    if (coverage * 100 >= bestCoverage * 95 && (best.length == 0 || period.length < best.length)) best = period;
  }
  return best;
}

std::string rangeTitle(const char* what, size_t first, size_t lastInclusive) {
  return std::string(what) + " " + std::to_string(first) + "\u2013" + std::to_string(lastInclusive);
}

}  // namespace

// ---- MethodGraph: analysis and groups ----

namespace {

class GroupBuilder {
 public:
  GroupBuilder(GroupTree& tree, const GroupingOptions& options) : tree_(tree), options_(options) {}

  using Item = InstructionGroup::Item;

  size_t firstInstruction(const Item& item) const { return item.is_group ? tree_.groups[item.index].first : item.index; }
  size_t endInstruction(const Item& item) const { return item.is_group ? tree_.groups[item.index].last : item.index + 1; }

  // Cuts a list of items into chunks of 10, 20, 50, 100... items so that no
  // more than max_items remain, recursively. `layerItems` says the items are
  // layer groups (for titles).
  std::vector<Item> chunk(std::vector<Item> items, bool layerItems, size_t firstLayer) {
    if (items.size() <= options_.max_items) return items;
    size_t size = 10;
    for (size_t decade = 10; (items.size() + size - 1) / size > options_.max_items;) {
      if (size == decade) size = decade * 2;
      else if (size == decade * 2) size = decade * 5;
      else { decade *= 10; size = decade; }
    }
    std::vector<Item> chunks;
    for (size_t begin = 0; begin < items.size(); begin += size) {
      const size_t end = std::min(items.size(), begin + size);
      std::vector<Item> members(items.begin() + long(begin), items.begin() + long(end));
      InstructionGroup group;
      group.first = firstInstruction(members.front());
      group.last = endInstruction(members.back());
      group.title = layerItems ? rangeTitle("layers", firstLayer + begin, firstLayer + end - 1)
                               : rangeTitle("instructions", group.first, group.last - 1);
      const size_t id = tree_.groups.size();
      tree_.groups.push_back(std::move(group));
      auto inner = chunk(std::move(members), layerItems, firstLayer + begin);
      for (const auto& item : inner)
        if (item.is_group) tree_.groups[item.index].parent = int(id);
      tree_.groups[id].items = std::move(inner);
      chunks.push_back(Item{true, id});
    }
    return chunks;
  }

  std::vector<Item> instructions(size_t first, size_t last) {
    std::vector<Item> items;
    for (size_t i = first; i < last; ++i) items.push_back(Item{false, i});
    return items;
  }

 private:
  GroupTree& tree_;
  const GroupingOptions& options_;
};

}  // namespace

MethodGraph MethodGraph::analyze(const Method& method, const GroupingOptions& options, const std::atomic<bool>* cancel) {
  MethodGraph graph;
  graph.method_ = &method;
  graph.flow_ = Dataflow::build(method);
  auto cancelled = [cancel] { return cancel && cancel->load(std::memory_order_relaxed); };
  if (cancelled()) {
    graph.cancelled_ = true;
    return graph;
  }
  const auto& instructions = graph.flow_.instructions();
  const size_t n = instructions.size();
  GroupTree& tree = graph.tree_;
  GroupBuilder builder(tree, options);
  using Item = InstructionGroup::Item;

  if (n < std::min(options.group_above, options.layers_above)) {
    tree.top = builder.instructions(0, n);
  } else {
    std::unordered_map<std::string, uint32_t> ids;
    std::vector<uint32_t> symbols(n);
    for (size_t i = 0; i < n; ++i)
      symbols[i] = ids.emplace(instructionSignature(method, instructions[i]), uint32_t(ids.size())).first->second;
    if (cancelled()) {
      graph.cancelled_ = true;
      return graph;
    }
    const Period period = detectPeriod(symbols, options.max_period);
    if (period.length > 0 && period.layers >= 2) {
      tree.period = period.length;
      tree.layers = period.layers;
      tree.layer_start = period.start;
      const size_t layersEnd = period.start + period.layers * period.length;
      std::vector<Item> layerItems;
      for (size_t layer = 0; layer < period.layers; ++layer) {
        InstructionGroup group;
        group.first = period.start + layer * period.length;
        group.last = group.first + period.length;
        group.title = "layer " + std::to_string(layer);
        const size_t id = tree.groups.size();
        tree.groups.push_back(std::move(group));
        auto inner = builder.chunk(builder.instructions(tree.groups[id].first, tree.groups[id].last), false, 0);
        for (const auto& item : inner)
          if (item.is_group) tree.groups[item.index].parent = int(id);
        tree.groups[id].items = std::move(inner);
        layerItems.push_back(Item{true, id});
      }
      auto prologue = builder.chunk(builder.instructions(0, period.start), false, 0);
      auto layers = builder.chunk(std::move(layerItems), true, 0);
      auto epilogue = builder.chunk(builder.instructions(layersEnd, n), false, 0);
      tree.top = std::move(prologue);
      tree.top.insert(tree.top.end(), layers.begin(), layers.end());
      tree.top.insert(tree.top.end(), epilogue.begin(), epilogue.end());
    } else if (n >= options.group_above) {
      tree.top = builder.chunk(builder.instructions(0, n), false, 0);
    } else {
      tree.top = builder.instructions(0, n);
    }
  }

  // Innermost group per instruction: groups are created outer-last for
  // chunks but inner-first for layers, so take the smallest range.
  graph.innermost_group_.assign(n, -1);
  for (size_t g = 0; g < tree.groups.size(); ++g) {
    for (const auto& item : tree.groups[g].items) {
      if (!item.is_group) graph.innermost_group_[item.index] = int(g);
    }
  }
  return graph;
}

std::vector<int> MethodGraph::groupPathOf(size_t instruction) const {
  std::vector<int> path;
  if (instruction >= innermost_group_.size()) return path;
  for (int g = innermost_group_[instruction]; g >= 0; g = tree_.groups[size_t(g)].parent) path.push_back(g);
  std::reverse(path.begin(), path.end());
  return path;
}

std::set<int> MethodGraph::fullExpansion() const {
  std::set<int> all;
  for (size_t g = 0; g < tree_.groups.size(); ++g) all.insert(int(g));
  return all;
}

size_t MethodGraph::visibleNodeEstimate(const std::set<int>& expanded) const {
  size_t count = program::items(method_->inputs).size() + program::items(method_->outputs).size();
  std::function<void(const std::vector<InstructionGroup::Item>&)> walk = [&](const auto& items) {
    for (const auto& item : items) {
      if (item.is_group && expanded.count(int(item.index))) walk(tree_.groups[item.index].items);
      else ++count;
    }
  };
  walk(tree_.top);
  return count;
}

std::set<int> MethodGraph::initialExpansion(size_t nodeBudget) const {
  std::set<int> expanded;
  size_t visible = visibleNodeEstimate(expanded);
  // The first collapsed group in program order.
  std::function<std::optional<size_t>(const std::vector<InstructionGroup::Item>&)> firstClosed =
      [&](const auto& items) -> std::optional<size_t> {
    for (const auto& item : items) {
      if (!item.is_group) continue;
      if (!expanded.count(int(item.index))) return item.index;
      if (auto inner = firstClosed(tree_.groups[item.index].items)) return inner;
    }
    return std::nullopt;
  };
  while (auto next = firstClosed(tree_.top)) {
    const size_t cost = tree_.groups[*next].items.size() - 1;
    if (visible + cost > nodeBudget) break;
    expanded.insert(int(*next));
    visible += cost;
  }
  return expanded;
}

}  // namespace ptescope::layout
