#include "pte/DataWriter.h"

#include <filesystem>
#include <set>

#include "flat_tensor_generated.h"
#include "pte/ExtendedHeader.h"
#include "pte/Reader.h"
#include "util/MappedFile.h"

namespace ptescope::pte {
namespace ft = flat_tensor_flatbuffer;
using namespace ptescope::program;

namespace {

constexpr uint64_t kHeaderLength = 40;
constexpr uint64_t kFlatbufferAlignment = 16;

class DataReadBack : public FileVerifier {
 public:
  explicit DataReadBack(const ExternalData& original) : original_(original) {}
  Status verify(const std::string& temporaryPath) const override {
    auto loaded = readDataFile(temporaryPath);
    if (!loaded) return loaded.error();
    if (loaded->entries.size() != original_.entries.size())
      return makeError("re-read data file has " + std::to_string(loaded->entries.size()) + " entries instead of " +
                       std::to_string(original_.entries.size()));
    for (const auto& entry : original_.entries) {
      const auto* back = loaded->find(entry.key);
      if (!back || !(back->data == entry.data))
        return makeError("re-read data file lost or changed the entry '" + entry.key + "'");
    }
    return Ok{};
  }

 private:
  const ExternalData& original_;
};

}  // namespace

Result<std::vector<uint8_t>> serializeDataFile(const ExternalData& data, uint64_t segmentAlignment) {
  if (segmentAlignment == 0 || (segmentAlignment & (segmentAlignment - 1)) != 0)
    return makeError("segment alignment " + std::to_string(segmentAlignment) + " is not a power of two");
  std::set<std::string> keys;
  for (const auto& entry : data.entries) {
    if (entry.key.empty()) return makeError("a data file entry has an empty key");
    if (!keys.insert(entry.key).second) return makeError("the data file key '" + entry.key + "' appears twice");
  }
  // One segment per entry, in order.
  std::vector<std::pair<uint64_t, uint64_t>> layout;
  uint64_t end = 0;
  for (const auto& entry : data.entries) {
    const uint64_t offset = alignUp(end, segmentAlignment);
    layout.emplace_back(offset, entry.data.size());
    end = offset + entry.data.size();
  }
  flatbuffers::FlatBufferBuilder b(1024);
  std::vector<flatbuffers::Offset<ft::NamedData>> named;
  for (size_t i = 0; i < data.entries.size(); ++i) {
    const auto& entry = data.entries[i];
    flatbuffers::Offset<ft::TensorLayout> tensorLayout = 0;
    if (entry.layout) {
      auto sizes = b.CreateVector(items(entry.layout->sizes));
      auto dimOrder = b.CreateVector(items(entry.layout->dim_order));
      tensorLayout = ft::CreateTensorLayout(
          b, static_cast<executorch_flatbuffer::ScalarType>(entry.layout->scalar_type), sizes, dimOrder);
    }
    named.push_back(ft::CreateNamedData(b, b.CreateString(entry.key), static_cast<uint32_t>(i), tensorLayout));
  }
  std::vector<flatbuffers::Offset<ft::DataSegment>> segments;
  for (const auto& [offset, size] : layout) segments.push_back(ft::CreateDataSegment(b, offset, size));
  auto segmentsVector = b.CreateVector(segments);
  auto namedVector = b.CreateVector(named);
  b.Finish(ft::CreateFlatTensor(b, 0, segmentsVector, namedVector), ft::FlatTensorIdentifier());
  const uint8_t* fb = b.GetBufferPointer();
  const uint64_t fbSize = b.GetSize();

  const uint64_t headerSize = alignUp(kHeaderLength, kFlatbufferAlignment);
  const uint64_t segmentBase = alignUp(fbSize + headerSize, segmentAlignment);
  std::vector<uint8_t> out;
  out.reserve(static_cast<size_t>(segmentBase + end));
  appendLe32(out, readLe32(fb) + static_cast<uint32_t>(headerSize));  // the root offset moves past the header
  out.insert(out.end(), fb + 4, fb + 8);                               // "FT01"
  const size_t headerStart = out.size();
  out.insert(out.end(), {'F', 'H', '0', '1'});
  appendLe32(out, static_cast<uint32_t>(kHeaderLength));
  appendLe64(out, headerSize);  // flatbuffer_offset
  appendLe64(out, fbSize);      // flatbuffer_size
  appendLe64(out, segmentBase); // segment_base_offset
  appendLe64(out, end);         // segment_data_size
  out.resize(headerStart + static_cast<size_t>(headerSize), 0);
  out.insert(out.end(), fb + 8, fb + fbSize);
  out.resize(static_cast<size_t>(segmentBase), 0);
  for (size_t i = 0; i < data.entries.size(); ++i) {
    out.resize(static_cast<size_t>(segmentBase + layout[i].first), 0);
    const auto& bytes = data.entries[i].data;
    out.insert(out.end(), bytes.data(), bytes.data() + bytes.size());
  }
  return out;
}

Status writeDataFile(const ExternalData& data, const std::string& path) {
  auto bytes = serializeDataFile(data);
  if (!bytes) return makeError(path + ": " + bytes.error().message);
  DataReadBack verifier(data);
  return writeFileAtomically(path, bytes.value(), &verifier);
}

std::vector<std::string> carryDataFiles(const Program& program, const std::string& programPath) {
  namespace fs = std::filesystem;
  std::vector<std::string> notes;
  std::error_code ec;
  const fs::path folder = fs::absolute(fs::path(programPath), ec).parent_path();
  const std::string programName = fs::path(programPath).filename().string();
  for (const auto& data : program.external_data) {
    if (data.path.empty()) continue;
    const fs::path source = fs::absolute(fs::path(data.path), ec);
    // Under a name the reader looks for beside the written program (its
    // own <name>.ptd, _default_external_constant.ptd, aoti_cuda_blob.ptd):
    // a lint.ptd copied for lint_saved.pte as lint.ptd, or left beside it in
    // the same folder, was never found again (PTS020 on every delegate).
    const std::string sourceName = source.filename().string();
    const bool found = sourceName == "_default_external_constant.ptd" || sourceName == "aoti_cuda_blob.ptd" ||
                       sourceName == fs::path(programName).replace_extension(".ptd").string();
    const fs::path target = folder / (found ? sourceName : fs::path(programName).replace_extension(".ptd").string());
    if (fs::equivalent(source, target, ec)) continue;  // beside it already
    const std::string name = target.filename().string();
    const std::string as = name == sourceName ? std::string() : " as " + name;
    if (fs::exists(target, ec)) {
      auto here = mapFile(target.string());
      auto there = mapFile(source.string());
      if (here && there && here.value() == there.value()) continue;
      notes.push_back(name + " beside " + programName + " holds other data: the program's data is in " +
                      source.string() + " (pass it with --ptd)");
      continue;
    }
    // The file it was read from, or (gone, or never on disk: a program
    // made in memory) the data as the program holds it.
    auto bytes = mapFile(source.string());
    const Status status =
        bytes ? writeFileAtomically(target.string(), bytes->span()) : writeDataFile(data, target.string());
    if (!status) {
      notes.push_back("the program's data file " + name + " could not be copied beside " + programName + ": " +
                      status.error().message);
      continue;
    }
    notes.push_back(bytes ? "copied " + sourceName + " beside " + programName + as + " (the program's data, from " +
                                source.parent_path().string() + ")"
                          : "wrote the program's data beside it as " + name);
  }
  return notes;
}

}  // namespace ptescope::pte
