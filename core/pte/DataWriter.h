// Writing .ptd data files (FlatTensor "FT01" with its "FH01" header), the
// inverse of readDataFile: how upstream's flat_tensor serializer lays them
// out (extension/flat_tensor/serialize/serialize.py): the flatbuffer with the
// 40-byte header inserted after its first 8 bytes (padded to 16), then one
// segment per entry, each at the segment alignment.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "program/Program.h"
#include "util/Result.h"

namespace ptescope::pte {

Result<std::vector<uint8_t>> serializeDataFile(const program::ExternalData& data, uint64_t segmentAlignment = 128);

// Serializes, writes beside `path` atomically, re-reads it with readDataFile
// and checks every key and its bytes before renaming into place.
Status writeDataFile(const program::ExternalData& data, const std::string& path);

// After `program` is written to `programPath`: each .ptd it was read with
// that the reader would not find beside it is copied there (where the
// reader, the app and a runner's user look for it) under a name the reader
// looks for (its own name when that is aoti_cuda_blob.ptd,
// _default_external_constant.ptd or <program>.ptd, else <program>.ptd),
// unless that folder has a file of that name with other data (then the note
// says where the data is). One line per data file copied or not:
// "copied lint.ptd beside x.pte as x.ptd (the program's data, from ...)".
std::vector<std::string> carryDataFiles(const program::Program& program, const std::string& programPath);

}  // namespace ptescope::pte
