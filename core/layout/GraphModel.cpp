// The model's small functions (kind names, lookups) and the byte and
// value-type text; layer detection is LayerDetection.cpp, model building
// ModelBuilder.cpp.
#include "layout/GraphModel.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "layout/MethodFacts.h"

namespace ptescope::layout {

std::string nodeKindName(NodeKind kind) {
  switch (kind) {
    case NodeKind::Kernel: return "kernel";
    case NodeKind::Delegate: return "delegate";
    case NodeKind::CopyH2D: return "h2d_copy";
    case NodeKind::CopyD2H: return "d2h_copy";
    case NodeKind::Control: return "control";
    case NodeKind::Input: return "input";
    case NodeKind::Output: return "output";
    case NodeKind::Constant: return "constant";
    case NodeKind::Unbound: return "unbound";
    case NodeKind::Group: return "group";
    case NodeKind::Stub: return "stub";
  }
  return "node";
}

bool isInstructionKind(NodeKind kind) {
  return kind == NodeKind::Kernel || kind == NodeKind::Delegate || kind == NodeKind::CopyH2D ||
         kind == NodeKind::CopyD2H || kind == NodeKind::Control;
}

std::optional<size_t> GraphModel::findNode(std::string_view key) const {
  for (size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].key == key) return i;
  return std::nullopt;
}

std::optional<size_t> GraphModel::nodeOfInstruction(size_t instruction) const {
  if (instruction >= node_of_instruction.size()) return std::nullopt;
  return node_of_instruction[instruction];
}

std::string byteSizeText(int64_t bytes) {
  if (bytes < 0) return "? B";
  char text[32];
  if (bytes < 1024) {
    std::snprintf(text, sizeof text, "%" PRId64 " B", bytes);
  } else if (bytes < 1024 * 1024) {
    std::snprintf(text, sizeof text, "%.1f KiB", double(bytes) / 1024.0);
  } else if (bytes < int64_t(1024) * 1024 * 1024) {
    std::snprintf(text, sizeof text, "%.1f MiB", double(bytes) / (1024.0 * 1024.0));
  } else {
    std::snprintf(text, sizeof text, "%.2f GiB", double(bytes) / (1024.0 * 1024.0 * 1024.0));
  }
  return text;
}

using facts::lowerKindName;
using facts::valueAt;

std::string valueTypeText(const Method& method, int32_t value) {
  const auto* v = valueAt(method, value);
  if (!v) return "?";
  const auto* t = v->tensor();
  if (!t) return lowerKindName(v->kind());
  std::string text = program::scalarTypeShortName(t->scalar_type) + "[";
  const auto& sizes = program::items(t->sizes);
  for (size_t i = 0; i < sizes.size(); ++i) text += (i ? "," : "") + std::to_string(sizes[i]);
  return text + "]";
}

}  // namespace ptescope::layout
