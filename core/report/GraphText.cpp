#include "report/GraphText.h"

#include <array>
#include <charconv>
#include <set>
#include <sstream>

#include "program/CopyDirection.h"
#include "program/Text.h"

namespace ptescope::report {
using namespace ptescope::program;
using nlohmann::json;

namespace {

bool inRange(int64_t index, size_t count) { return index >= 0 && static_cast<uint64_t>(index) < count; }

// Shortest text that reads back as the same double.
std::string doubleText(double value) {
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

template <class T, class Format>
std::string joinFormatted(const std::vector<T>& list, Format format) {
  std::string out = "[";
  for (size_t i = 0; i < list.size(); ++i) out += (i ? ", " : "") + format(list[i]);
  return out + "]";
}

std::string tensorText(const Tensor& tensor) { return tensorTypeText(tensor) + " " + tensor.device().str(); }

// Members of the list values among `shown`: printed inside their list, not
// again on their own.
std::set<int32_t> membersOfListsAmong(const Method& method, const std::vector<int32_t>& shown) {
  const auto& values = items(method.values);
  std::set<int32_t> members;
  for (int32_t v : shown) {
    if (!inRange(v, values.size())) continue;
    const auto& data = values[static_cast<size_t>(v)].data;
    if (const auto* list = std::get_if<TensorListValue>(&data)) members.insert(items(list->items).begin(), items(list->items).end());
    if (const auto* list = std::get_if<OptionalTensorListValue>(&data))
      members.insert(items(list->items).begin(), items(list->items).end());
    if (const auto* list = std::get_if<IntListValue>(&data))
      for (int64_t member : items(list->items))
        if (inRange(member, values.size())) members.insert(static_cast<int32_t>(member));
  }
  return members;
}

std::string valueListText(const Method& method, const std::vector<int32_t>& shown) {
  const auto folded = membersOfListsAmong(method, shown);
  std::string out = "[";
  bool first = true;
  for (int32_t v : shown) {
    if (folded.count(v)) continue;
    out += (first ? "" : ", ") + graphValueText(method, v);
    first = false;
  }
  return out + "]";
}

}  // namespace

std::string graphValueText(const Method& method, int32_t value) {
  const auto& values = items(method.values);
  const std::string id = "%" + std::to_string(value);
  if (!inRange(value, values.size())) return id + " <out of range>";
  const auto& data = values[static_cast<size_t>(value)].data;
  auto memberText = [&](int32_t member) {
    if (member < 0) return std::string("None");
    return graphValueText(method, member);
  };
  auto intMemberText = [&](int64_t member) {
    if (inRange(member, values.size()))
      if (const auto* i = std::get_if<IntValue>(&values[static_cast<size_t>(member)].data)) return std::to_string(i->value);
    return "%" + std::to_string(member);
  };

  if (const auto* tensor = std::get_if<Tensor>(&data)) return id + " " + tensorText(*tensor);
  if (const auto* i = std::get_if<IntValue>(&data)) return id + " Int=" + std::to_string(i->value);
  if (const auto* d = std::get_if<DoubleValue>(&data)) return id + " Double=" + doubleText(d->value);
  if (const auto* b = std::get_if<BoolValue>(&data)) return id + " Bool=" + (b->value ? "true" : "false");
  if (const auto* s = std::get_if<StringValue>(&data)) return id + " String=\"" + s->value.value_or("") + "\"";
  if (const auto* list = std::get_if<IntListValue>(&data)) return id + " IntList=" + joinFormatted(items(list->items), intMemberText);
  if (const auto* list = std::get_if<DoubleListValue>(&data))
    return id + " DoubleList=" + joinFormatted(items(list->items), doubleText);
  if (const auto* list = std::get_if<BoolListValue>(&data))
    return id + " BoolList=" + joinFormatted(items(list->items), [](uint8_t b) { return std::string(b ? "true" : "false"); });
  if (const auto* list = std::get_if<TensorListValue>(&data)) return id + " TensorList" + joinFormatted(items(list->items), memberText);
  if (const auto* list = std::get_if<OptionalTensorListValue>(&data))
    return id + " OptionalTensorList" + joinFormatted(items(list->items), memberText);
  return id + " " + valueKindName(values[static_cast<size_t>(value)].kind());  // Null, None
}

std::string methodGraphText(const Method& method, const analysis::Dataflow& flow) {
  const auto& chains = items(method.chains);
  const size_t width = std::to_string(flow.instructionCount() ? flow.instructionCount() - 1 : 0).size();
  std::ostringstream out;
  for (const auto& facts : flow.instructions()) {
    std::string index = std::to_string(facts.flat_index);
    out << "  " << std::string(width - index.size(), ' ') << index << "  " << facts.label << "  "
        << valueListText(method, facts.inputs) << " -> " << valueListText(method, facts.outputs);
    if (facts.kind == InstructionKind::JumpFalseCall) {
      const auto& instruction = items(chains[facts.chain].instructions)[facts.index_in_chain];
      const auto& jump = std::get<JumpFalseCall>(instruction.data);
      out << "  (if false: go to " << jump.destination_instruction << ")";
    }
    out << "\n";
  }
  return out.str();
}

std::string graphText(const Program& program) {
  std::ostringstream out;
  for (const auto& method : program.methods()) {
    const auto flow = analysis::Dataflow::build(method);
    out << "graph of method '" << method.displayName() << "' (" << flow.instructionCount()
        << (flow.instructionCount() == 1 ? " instruction)\n" : " instructions)\n");
    out << methodGraphText(method, flow);
  }
  return out.str();
}

json methodGraphJson(const analysis::Dataflow& flow) {
  json graph = json::array();
  for (const auto& facts : flow.instructions()) {
    json entry{{"index", facts.flat_index},
               {"chain", facts.chain},
               {"index_in_chain", facts.index_in_chain},
               {"kind", instructionKindName(facts.kind)},
               {"label", facts.label},
               {"inputs", facts.inputs},
               {"outputs", facts.outputs}};
    if (facts.is_h2d_copy) entry["copy"] = program::copyDirectionName(program::CopyDirection::HostToDevice);
    if (facts.is_d2h_copy) entry["copy"] = program::copyDirectionName(program::CopyDirection::DeviceToHost);
    graph.push_back(std::move(entry));
  }
  return graph;
}

json methodGraphJson(const Method& method) { return methodGraphJson(analysis::Dataflow::build(method)); }

}  // namespace ptescope::report
