// The model's small functions (kind names, lookups) and the byte and
// value-type text; layer detection is LayerDetection.cpp, model building
// ModelBuilder.cpp.
#include "layout/GraphModel.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "layout/MethodFacts.h"

#include "program/CopyDirection.h"
#include "program/Text.h"

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

using facts::lowerKindName;
using facts::valueAt;

std::string valueTypeText(const Method& method, int32_t value) {
  const auto* v = valueAt(method, value);
  if (!v) return "?";
  const auto* t = v->tensor();
  return t ? program::tensorTypeText(*t) : lowerKindName(v->kind());
}

}  // namespace ptescope::layout
