#include "exec/BitExact.h"

#include <algorithm>
#include <map>
#include <set>

#include "analysis/Dataflow.h"
#include "program/Text.h"
#include "program/Types.h"

namespace ptescope::exec {

// tests/oracle/record.tsv as it was at build time (core/CMakeLists.txt
// compiles it in through exec/OracleRecord.cpp.in).
extern const char* const kOracleRecordText;

namespace {

// Instructions that only move bytes or read a size: exact by construction,
// whatever the dtypes.
bool copiesOnly(std::string_view kernel) {
  static const std::set<std::string, std::less<>> names = {
      "et_copy::_h2d_copy.out", "et_copy::_d2h_copy.out", "executorch_prim::et_view.default",
      "executorch_prim::et_copy_index.tensor", "aten::sym_size.int", "aten::sym_numel"};
  return names.contains(kernel);
}

struct Record {
  // kernel → dtype signature → outcome → input classes with that outcome
  std::map<std::string, std::map<std::string, std::map<std::string, std::vector<std::string>>>, std::less<>> cases;
  size_t rows = 0;
};

std::vector<std::string_view> splitTabs(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  while (true) {
    const size_t tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab == std::string_view::npos ? std::string_view::npos : tab - start));
    if (tab == std::string_view::npos) return fields;
    start = tab + 1;
  }
}

const Record& record() {
  static const Record parsed = [] {
    Record r;
    std::string_view text = kOracleRecordText;
    while (!text.empty()) {
      const size_t end = text.find('\n');
      std::string_view line = text.substr(0, end);
      text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
      if (line.empty() || line.front() == '#') continue;
      const auto fields = splitTabs(line);
      if (fields.size() < 4) continue;
      r.cases[std::string(fields[0])][std::string(fields[1])][std::string(fields[3])].emplace_back(fields[2]);
      ++r.rows;
    }
    return r;
  }();
  return parsed;
}

std::string joined(const std::vector<std::string>& items) {
  std::string text;
  for (const auto& item : items) text += (text.empty() ? "" : ", ") + item;
  return text;
}

std::string outcomeWhy(const std::string& outcome, const std::vector<std::string>& classes) {
  const std::string where = joined(classes);
  if (outcome == "differs") return "differs from the runtime on " + where;
  if (outcome == "oracle-refused") return "the runtime refuses it (" + where + "), ptescope computes it";
  if (outcome == "ptescope-refused") return "ptescope refuses it (" + where + "), the runtime computes it";
  return "not checked against the runtime (" + where + ": " + outcome + ")";
}

std::string tensorToken(const program::Tensor& tensor) {
  std::string token = program::scalarTypeShortName(tensor.scalar_type);
  if (!tensor.dim_order || tensor.dim_order->empty()) return token;
  const auto& order = *tensor.dim_order;
  bool contiguous = true;
  for (size_t i = 0; i < order.size(); ++i) contiguous = contiguous && order[i] == i;
  if (contiguous) return token;
  if (order == std::vector<uint8_t>{0, 2, 3, 1}) return token + "/channels_last";
  token += "/dim_order=";
  for (size_t i = 0; i < order.size(); ++i) token += (i ? "." : "") + std::to_string(order[i]);
  return token;
}

void addDistinct(std::vector<std::string>& tokens, std::string token) {
  if (std::find(tokens.begin(), tokens.end(), token) == tokens.end()) tokens.push_back(std::move(token));
}

std::vector<std::string> tokensOf(const program::Method& method, const std::vector<int32_t>& values) {
  const auto& all = program::items(method.values);
  std::vector<std::string> tokens;
  for (int32_t v : values) {
    if (v < 0 || size_t(v) >= all.size()) continue;
    if (const auto* tensor = all[size_t(v)].tensor()) addDistinct(tokens, tensorToken(*tensor));
  }
  return tokens;
}

std::string commaList(const std::vector<std::string>& tokens) {
  std::string text;
  for (const auto& t : tokens) text += (text.empty() ? "" : ",") + t;
  return text;
}

}  // namespace

size_t recordedCaseCount() { return record().rows; }

KernelVerdict recordedVerdict(std::string_view kernel, std::string_view dtypes) {
  if (copiesOnly(kernel)) return {true, ""};
  const auto& cases = record().cases;
  const auto found = cases.find(kernel);
  if (found == cases.end()) return {false, "not checked against the runtime"};
  const auto signature = found->second.find(std::string(dtypes));
  if (signature == found->second.end()) return {false, "not checked against the runtime for these dtypes"};
  std::string why;
  for (const auto& [outcome, classes] : signature->second) {
    if (outcome == "same" || outcome == "both-refused") continue;
    why += (why.empty() ? "" : "; ") + outcomeWhy(outcome, classes);
  }
  return {why.empty(), why};
}

std::string dtypeSignature(const program::Method& method, const std::vector<int32_t>& reads, const std::vector<int32_t>& writes) {
  const auto ins = tokensOf(method, reads);
  const auto outs = tokensOf(method, writes);
  if (ins == outs && ins.size() == 1) return ins.front();
  return commaList(ins) + "->" + commaList(outs);
}

std::vector<OutputExactness> outputExactness(const program::Method& method, const std::vector<size_t>& notExecuted) {
  const auto flow = analysis::Dataflow::build(method);
  const auto& instructions = flow.instructions();
  const std::set<size_t> skipped(notExecuted.begin(), notExecuted.end());

  // Each instruction's verdict, computed once.
  std::vector<std::optional<UnprovenInstruction>> verdicts(instructions.size());
  std::vector<bool> judged(instructions.size(), false);
  const auto judge = [&](size_t i) -> const std::optional<UnprovenInstruction>& {
    if (judged[i]) return verdicts[i];
    judged[i] = true;
    const auto& facts = instructions[i];
    UnprovenInstruction u;
    u.instruction = i;
    u.kernel = facts.label;
    if (facts.kind == program::InstructionKind::KernelCall) {
      u.dtypes = dtypeSignature(method, facts.inputs, facts.outputs);
      if (skipped.contains(i)) {
        u.why = "not executed by ptescope";
      } else {
        auto verdict = recordedVerdict(facts.label, u.dtypes);
        if (verdict.proven) return verdicts[i];
        u.why = std::move(verdict.why);
      }
    } else if (facts.kind == program::InstructionKind::DelegateCall) {
      u.why = "not run by ptescope";
    } else {
      return verdicts[i];  // move, jump, free: no arithmetic
    }
    verdicts[i] = std::move(u);
    return verdicts[i];
  };

  std::vector<OutputExactness> result;
  for (int32_t output : program::items(method.outputs)) {
    OutputExactness exactness;
    std::set<int32_t> seenValues;
    std::set<size_t> seenInstructions;
    std::vector<int32_t> pending{output};
    while (!pending.empty()) {
      const int32_t v = pending.back();
      pending.pop_back();
      if (v < 0 || size_t(v) >= flow.values().size() || !seenValues.insert(v).second) continue;
      const auto& facts = flow.value(v);
      if (facts.storage_alias_of) pending.push_back(*facts.storage_alias_of);
      for (size_t writer : facts.writers) {
        if (!seenInstructions.insert(writer).second) continue;
        if (const auto& u = judge(writer)) exactness.unproven.push_back(*u);
        for (int32_t input : instructions[writer].inputs) pending.push_back(input);
      }
    }
    std::sort(exactness.unproven.begin(), exactness.unproven.end(),
              [](const auto& a, const auto& b) { return a.instruction < b.instruction; });
    result.push_back(std::move(exactness));
  }
  return result;
}

std::string exactnessText(const OutputExactness& exactness) {
  if (exactness.proven()) return "bit-exact with the runtime";
  const auto& first = exactness.unproven.front();
  std::string text = "not proven: " + first.kernel + (first.dtypes.empty() ? "" : " (" + first.dtypes + ")") + " " + first.why;
  if (exactness.unproven.size() > 1)
    text += ", and " + program::countText(exactness.unproven.size() - 1, "more instruction");
  return text;
}

}  // namespace ptescope::exec
