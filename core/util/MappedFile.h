#pragma once

#include <string>

#include "util/Bytes.h"
#include "util/Result.h"

namespace ptescope {

// Maps a whole file read-only. The returned Bytes keeps the mapping alive for
// as long as any Bytes sliced from it exists.
Result<Bytes> mapFile(const std::string& path);

// Writes `data` to `path` through a temporary file in the same folder that is
// renamed into place; on any failure the temporary file is removed and `path`
// is untouched. `verify` (may be null) runs on the temporary file before the
// rename and can veto it.
class FileVerifier {
 public:
  virtual ~FileVerifier() = default;
  virtual Status verify(const std::string& temporaryPath) const = 0;
};
Status writeFileAtomically(const std::string& path, std::span<const uint8_t> data,
                           const FileVerifier* verify = nullptr);

// True when both paths name the same existing file (same device and inode).
bool sameFile(const std::string& a, const std::string& b);

}  // namespace ptescope
