#include "exec/InputFiles.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "util/MappedFile.h"

namespace ptescope::exec {
namespace {

using program::ScalarType;

// The .npy element types ptescope reads and writes: kind letter, size, and
// the dtype (little-endian; one-byte types carry '|').
struct NpyType {
  char kind;
  int size;
  ScalarType type;
};
constexpr NpyType kNpyTypes[] = {
    {'f', 2, ScalarType::Half},   {'f', 4, ScalarType::Float},   {'f', 8, ScalarType::Double},
    {'i', 1, ScalarType::Char},   {'i', 2, ScalarType::Short},   {'i', 4, ScalarType::Int},
    {'i', 8, ScalarType::Long},   {'u', 1, ScalarType::Byte},    {'u', 2, ScalarType::UInt16},
    {'u', 4, ScalarType::UInt32}, {'u', 8, ScalarType::UInt64},  {'b', 1, ScalarType::Bool},
};

std::optional<ScalarType> npyType(char kind, int size) {
  for (const auto& t : kNpyTypes)
    if (t.kind == kind && t.size == size) return t.type;
  return std::nullopt;
}

std::optional<std::string> npyDescr(ScalarType type) {
  for (const auto& t : kNpyTypes)
    if (t.type == type) return std::string(1, t.size == 1 ? '|' : '<') + t.kind + std::to_string(t.size);
  return std::nullopt;
}

// The quoted or bracketed text after `'key':` in the header dictionary.
std::optional<std::string> headerField(const std::string& header, const std::string& key) {
  const auto at = header.find("'" + key + "'");
  if (at == std::string::npos) return std::nullopt;
  auto colon = header.find(':', at);
  if (colon == std::string::npos) return std::nullopt;
  size_t begin = header.find_first_not_of(' ', colon + 1);
  if (begin == std::string::npos) return std::nullopt;
  const char open = header[begin];
  const char close = open == '\'' ? '\'' : open == '"' ? '"' : open == '(' ? ')' : '\0';
  if (close != '\0') {
    const auto end = header.find(close, begin + 1);
    if (end == std::string::npos) return std::nullopt;
    return header.substr(begin + 1, end - begin - 1);
  }
  const auto end = header.find_first_of(",}", begin);
  if (end == std::string::npos) return std::nullopt;
  return header.substr(begin, end - begin);
}

}  // namespace

Result<HostTensor> parseNpy(std::span<const uint8_t> bytes, const std::string& name) {
  auto fail = [&](const std::string& why) { return makeError(name + ": " + why); };
  static constexpr uint8_t kMagic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (bytes.size() < 10 || !std::equal(std::begin(kMagic), std::end(kMagic), bytes.begin()))
    return fail("not a .npy file (no \\x93NUMPY magic)");
  const uint8_t major = bytes[6];
  size_t headerLength = 0, headerStart = 0;
  if (major == 1) {
    headerLength = size_t(bytes[8]) | size_t(bytes[9]) << 8;
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return fail("truncated .npy header");
    headerLength = size_t(bytes[8]) | size_t(bytes[9]) << 8 | size_t(bytes[10]) << 16 | size_t(bytes[11]) << 24;
    headerStart = 12;
  } else {
    return fail(".npy format version " + std::to_string(major) + " is not supported (1-3 are)");
  }
  if (headerStart + headerLength > bytes.size()) return fail("truncated .npy header");
  const std::string header(reinterpret_cast<const char*>(bytes.data() + headerStart), headerLength);
  auto descr = headerField(header, "descr");
  auto fortran = headerField(header, "fortran_order");
  auto shape = headerField(header, "shape");
  if (!descr || !fortran || !shape) return fail("the .npy header lacks descr, fortran_order or shape");
  if (fortran->find("True") != std::string::npos) return fail("Fortran-ordered arrays are not supported; save with C order");
  if (descr->size() < 3) return fail("unsupported dtype '" + *descr + "'");
  const char order = (*descr)[0];
  const char kind = (*descr)[1];
  int size = 0;
  const char* sizeText = descr->data() + 2;
  if (std::from_chars(sizeText, descr->data() + descr->size(), size).ec != std::errc())
    return fail("unsupported dtype '" + *descr + "'");
  auto type = npyType(kind, size);
  if (!type) return fail("unsupported dtype '" + *descr + "'");
  if (order == '>' && size > 1) return fail("big-endian dtype '" + *descr + "' is not supported");

  HostTensor tensor;
  tensor.dtype = *type;
  std::string dims = *shape;
  size_t pos = 0;
  uint64_t numel = 1;
  while (pos < dims.size()) {
    const size_t next = dims.find(',', pos);
    std::string item = dims.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (!item.empty()) {
      int64_t dim = -1;
      const auto parsed = std::from_chars(item.data(), item.data() + item.size(), dim);
      if (parsed.ec != std::errc() || parsed.ptr != item.data() + item.size() || dim < 0)
        return fail("bad shape (" + dims + ")");
      tensor.sizes.push_back(dim);
      numel *= uint64_t(dim);
    }
    if (next == std::string::npos) break;
    pos = next + 1;
  }
  const size_t dataStart = headerStart + headerLength;
  const uint64_t expected = numel * uint64_t(size);
  if (bytes.size() - dataStart != expected)
    return fail("holds " + std::to_string(bytes.size() - dataStart) + " data bytes, its shape needs " + std::to_string(expected));
  tensor.bytes.assign(bytes.begin() + std::ptrdiff_t(dataStart), bytes.end());
  return tensor;
}

Result<HostTensor> readNpyFile(const std::string& path) {
  auto bytes = mapFile(path);
  if (!bytes) return bytes.error();
  return parseNpy(bytes->span(), path);
}

std::vector<uint8_t> encodeNpy(const HostTensor& tensor) {
  // Python tuple syntax: (), (n,), (a, b, ...).
  std::string shape = "(";
  for (size_t i = 0; i < tensor.sizes.size(); ++i) shape += (i ? ", " : "") + std::to_string(tensor.sizes[i]);
  shape += tensor.sizes.size() == 1 ? ",)" : ")";
  std::string header = "{'descr': '" + npyDescr(tensor.dtype).value_or("|u1") + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces so that the data starts 64-byte aligned, ending in '\n'.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  const uint8_t preamble[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, uint8_t(header.size() & 0xff), uint8_t(header.size() >> 8)};
  std::vector<uint8_t> out(sizeof(preamble) + header.size() + tensor.bytes.size());
  std::memcpy(out.data(), preamble, sizeof(preamble));
  std::memcpy(out.data() + sizeof(preamble), header.data(), header.size());
  if (!tensor.bytes.empty()) std::memcpy(out.data() + sizeof(preamble) + header.size(), tensor.bytes.data(), tensor.bytes.size());
  return out;
}

std::string findInputFile(const std::string& directory, size_t position) {
  const std::string i = std::to_string(position);
  for (const std::string& name : {i + ".npy", "input_" + i + ".npy", i + ".bin", "input_" + i + ".bin", i + ".raw",
                                  "input_" + i + ".raw"}) {
    std::error_code error;
    const auto path = std::filesystem::path(directory) / name;
    if (std::filesystem::is_regular_file(path, error)) return path.string();
  }
  return {};
}

}  // namespace ptescope::exec
