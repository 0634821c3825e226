#include "report/DataInfo.h"

#include <optional>
#include <sstream>

#include "program/Text.h"
#include "program/Types.h"

namespace ptescope::report {

namespace {

struct EntryFacts {
  std::optional<uint64_t> offset;
  uint64_t alignment = 0;  // the largest power of two (up to 4096) dividing the offset
};

EntryFacts factsOf(const program::ExternalData::Entry& entry, const uint8_t* base, size_t size) {
  EntryFacts facts;
  const uint8_t* p = entry.data.data();
  if (base == nullptr || p < base || p > base + size) return facts;
  facts.offset = uint64_t(p - base);
  facts.alignment = 4096;
  while (facts.alignment > 1 && *facts.offset % facts.alignment != 0) facts.alignment /= 2;
  return facts;
}

std::string layoutText(const program::TensorLayout& layout) {
  std::string text = program::scalarTypeShortName(layout.scalar_type) + "[";
  const auto& sizes = program::items(layout.sizes);
  for (size_t i = 0; i < sizes.size(); ++i) text += (i ? "," : "") + std::to_string(sizes[i]);
  text += "]";
  const auto& order = program::items(layout.dim_order);
  bool contiguous = true;
  for (size_t i = 0; i < order.size(); ++i) contiguous = contiguous && order[i] == i;
  if (!contiguous) {
    text += " dim_order (";
    for (size_t i = 0; i < order.size(); ++i) text += (i ? "," : "") + std::to_string(order[i]);
    text += ")";
  }
  return text;
}

}  // namespace

nlohmann::json dataInfoJson(const program::ExternalData& data, const uint8_t* fileBase, size_t fileSize) {
  nlohmann::json out;
  out["kind"] = "data";
  out["file"] = data.path;
  out["file_bytes"] = fileSize;
  uint64_t total = 0;
  auto entries = nlohmann::json::array();
  for (const auto& e : data.entries) {
    const auto facts = factsOf(e, fileBase, fileSize);
    nlohmann::json j;
    j["key"] = e.key;
    j["bytes"] = e.data.size();
    j["offset"] = facts.offset ? nlohmann::json(*facts.offset) : nlohmann::json(nullptr);
    j["alignment"] = facts.offset ? nlohmann::json(facts.alignment) : nlohmann::json(nullptr);
    if (e.layout) {
      j["dtype"] = program::scalarTypeShortName(e.layout->scalar_type);
      j["sizes"] = program::items(e.layout->sizes);
      j["dim_order"] = program::items(e.layout->dim_order);
    }
    total += e.data.size();
    entries.push_back(std::move(j));
  }
  out["entries"] = std::move(entries);
  out["entry_count"] = data.entries.size();
  out["data_bytes"] = total;
  return out;
}

std::string dataInfoText(const program::ExternalData& data, const uint8_t* fileBase, size_t fileSize) {
  std::ostringstream out;
  uint64_t total = 0;
  for (const auto& e : data.entries) total += e.data.size();
  out << "File: " << data.path << " (ExecuTorch data file, FT01, " << program::bytesText(int64_t(fileSize)) << ")\n";
  out << "Entries: " << data.entries.size() << ", " << program::bytesText(int64_t(total)) << " of data\n";
  for (const auto& e : data.entries) {
    const auto facts = factsOf(e, fileBase, fileSize);
    out << "  " << e.key << ": " << program::bytesText(int64_t(e.data.size()));
    if (facts.offset) out << " at +" << *facts.offset << " (aligned to " << facts.alignment << ")";
    if (e.layout) out << ", " << layoutText(*e.layout);
    out << "\n";
  }
  return out.str();
}

}  // namespace ptescope::report
