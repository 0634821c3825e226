#pragma once

#include <string>
#include <string_view>

#include "util/Bytes.h"
#include "util/Result.h"

namespace ptescope {

// Maps a whole file read-only. The returned Bytes keeps the mapping alive for
// as long as any Bytes sliced from it exists.
Result<Bytes> mapFile(const std::string& path);

// Writes `data` to `path` the way careful editors save:
// - the bytes go to an unnamed temporary file (O_TMPFILE) in the target's
//   folder, flushed to disk, then linked in under a hidden name and renamed
//   over the target in one step, so a crash at any moment leaves either the
//   old file or the new one, and no temporary name (where the file system has
//   no O_TMPFILE, a named temporary `.NAME.ptescope-PID-N.tmp` is used, and
//   every later write to that folder removes those whose process is gone);
// - a symbolic link is written through: its target gets the new bytes, the
//   link stays;
// - an existing target keeps its permission bits (and its owner and group
//   where this process may set them); a new file gets 0666 less the umask.
// On any failure `path` is untouched and nothing is left behind. `verify`
// (may be null) runs on the complete temporary file (a path that can be
// opened for reading) before it is linked in, and can veto it.
class FileVerifier {
 public:
  virtual ~FileVerifier() = default;
  virtual Status verify(const std::string& temporaryPath) const = 0;
};
Status writeFileAtomically(const std::string& path, std::span<const uint8_t> data,
                           const FileVerifier* verify = nullptr);
inline Status writeFileAtomically(const std::string& path, std::string_view text,
                                  const FileVerifier* verify = nullptr) {
  return writeFileAtomically(path, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()), verify);
}

// The file a write to `path` changes: `path` itself, or the final target of
// the symbolic link(s) it names (relative links resolved from their folder).
// Errors for a link loop.
Result<std::string> resolveWriteTarget(const std::string& path);

// Test hooks: whether writes use O_TMPFILE (default true; false forces the
// named-temporary fallback), and a callback that runs once the temporary
// file is complete, before it replaces the target (a test kills the process
// there to leave a stale temporary).
void setAtomicWriteUsesTmpfile(bool enabled);
void setAtomicWriteHookBeforeReplace(void (*hook)(const std::string& temporaryPath));

// True when both paths name the same existing file (same device and inode).
bool sameFile(const std::string& a, const std::string& b);

}  // namespace ptescope
