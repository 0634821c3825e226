#include "util/MappedFile.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <vector>
#include <csignal>
#include <cstdio>

namespace ptescope {
namespace {

struct Mapping {
  void* address = nullptr;
  size_t length = 0;
  ~Mapping() {
    if (address != nullptr && address != MAP_FAILED) munmap(address, length);
  }
};

std::string errnoText() { return std::strerror(errno); }

}  // namespace

Result<Bytes> mapFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return makeError(path + ": cannot open: " + errnoText());
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    std::string why = errnoText();
    ::close(fd);
    return makeError(path + ": cannot stat: " + why);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return makeError(path + ": not a regular file");
  }
  auto size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    // An empty file maps to an empty range; the reader reports it.
    return Bytes(std::make_shared<int>(0), nullptr, 0);
  }
  void* address = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  std::string why = errnoText();
  ::close(fd);
  if (address == MAP_FAILED) return makeError(path + ": cannot map: " + why);
  auto mapping = std::make_shared<Mapping>();
  mapping->address = address;
  mapping->length = size;
  return Bytes(mapping, static_cast<const uint8_t*>(address), size);
}

bool sameFile(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  if (::stat(a.c_str(), &sa) != 0 || ::stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

namespace {

bool gUseTmpfile = true;
void (*gHookBeforeReplace)(const std::string&) = nullptr;

constexpr const char* kTempMarker = ".ptescope-";

// 0666 less this process's umask, read without changing it (umask() would,
// for a moment, for every thread).
mode_t newFileMode() {
  mode_t mask = 022;
  if (FILE* f = std::fopen("/proc/self/status", "re")) {
    char line[256];
    while (std::fgets(line, sizeof line, f) != nullptr) {
      unsigned value = 0;
      if (std::sscanf(line, "Umask: %o", &value) == 1) {
        mask = static_cast<mode_t>(value) & 0777;
        break;
      }
    }
    std::fclose(f);
  }
  return 0666 & ~mask;
}

// ".NAME.ptescope-PID-N.tmp": the hidden name a temporary file has while it
// is being linked in (or, without O_TMPFILE, while it is written).
std::string temporaryName(const std::string& fileName) {
  std::random_device rd;
  return "." + fileName + kTempMarker + std::to_string(::getpid()) + "-" + std::to_string(rd()) + ".tmp";
}

// The process id in a temporary's name, or 0 when the name is not one of ours.
pid_t temporaryOwner(const std::string& name) {
  if (name.size() < 2 || name[0] != '.' || !name.ends_with(".tmp")) return 0;
  const size_t marker = name.rfind(kTempMarker);
  if (marker == std::string::npos || marker == 0) return 0;
  const size_t first = marker + std::strlen(kTempMarker);
  const size_t dash = name.find('-', first);
  if (dash == std::string::npos || dash == first) return 0;
  long long pid = 0;
  for (size_t i = first; i < dash; ++i) {
    if (name[i] < '0' || name[i] > '9' || pid > 1 << 22) return 0;
    pid = pid * 10 + (name[i] - '0');
  }
  for (size_t i = dash + 1; i + 4 < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return 0;
  if (dash + 1 >= name.size() - 4) return 0;
  return static_cast<pid_t>(pid);
}

// Removes the temporaries that writes by processes no longer running left in
// `folder` (killed between linking the temporary in and renaming it, or
// anywhere during a write without O_TMPFILE).
void sweepStaleTemporaries(const std::filesystem::path& folder) {
  std::error_code ec;
  for (std::filesystem::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    const pid_t owner = temporaryOwner(name);
    if (owner <= 0 || owner == ::getpid()) continue;
    if (::kill(owner, 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    ::unlink(it->path().c_str());
  }
}

void syncFolder(const std::filesystem::path& folder) {
  int dfd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return;
  ::fsync(dfd);
  ::close(dfd);
}

}  // namespace

void setAtomicWriteUsesTmpfile(bool enabled) { gUseTmpfile = enabled; }
void setAtomicWriteHookBeforeReplace(void (*hook)(const std::string&)) { gHookBeforeReplace = hook; }

Result<std::string> resolveWriteTarget(const std::string& path) {
  namespace fs = std::filesystem;
  std::string current = path;
  for (int depth = 0; depth < 40; ++depth) {
    struct stat st {};
    if (::lstat(current.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return current;
    std::vector<char> buffer(static_cast<size_t>(st.st_size > 0 ? st.st_size : 255) + 1);
    const ssize_t n = ::readlink(current.c_str(), buffer.data(), buffer.size());
    if (n < 0) return makeError(path + ": cannot read symbolic link " + current + ": " + errnoText());
    if (static_cast<size_t>(n) >= buffer.size())
      return makeError(path + ": symbolic link " + current + " changed while it was read");
    fs::path link(std::string(buffer.data(), static_cast<size_t>(n)));
    if (link.is_relative()) link = fs::path(current).parent_path() / link;
    current = link.string();
  }
  return makeError(path + ": too many levels of symbolic links");
}

namespace {

// Why no file can be made in `folder`, in the user's words, from the errno
// of the failed open: a folder that is missing or not a folder, one that
// takes no new file (/proc answers ENOENT, which read "No such file or
// directory" about a folder that exists), no permission, read-only.
std::string cannotCreateIn(const std::filesystem::path& folder, int error) {
  struct stat st {};
  const std::string where = folder.string();
  if (::stat(folder.c_str(), &st) != 0) return "the folder " + where + " does not exist";
  if (!S_ISDIR(st.st_mode)) return where + " is not a folder";
  std::string why;
  switch (error) {
    case ENOENT:
    case ENOTSUP:
#if EOPNOTSUPP != ENOTSUP
    case EOPNOTSUPP:
#endif
      why = "the folder does not take new files";
      break;
    case EACCES:
    case EPERM: why = "permission denied: the folder is not writable"; break;
    case EROFS: why = "the file system is read-only"; break;
    case ENOSPC: why = "no space left on the device"; break;
    case EDQUOT: why = "the disk quota is exhausted"; break;
    default: why = std::strerror(error);
  }
  return "cannot create a file in " + where + ": " + why;
}

}  // namespace

Status writeFileAtomically(const std::string& path, std::span<const uint8_t> data,
                           const FileVerifier* verify) {
  namespace fs = std::filesystem;
  auto resolved = resolveWriteTarget(path);
  if (!resolved) return resolved.error();
  const fs::path target(resolved.value());
  const fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  const std::string via = resolved.value() == path ? std::string() : " (the target of the link, " + resolved.value() + ")";
  sweepStaleTemporaries(folder);

  struct stat existing {};
  const bool exists = ::stat(target.c_str(), &existing) == 0;
  if (exists && S_ISDIR(existing.st_mode)) return makeError(path + ": is a folder" + via);
  if (exists && !S_ISREG(existing.st_mode)) return makeError(path + ": not a regular file" + via);
  const mode_t mode = exists ? (existing.st_mode & 07777) : newFileMode();

  // Unnamed first; a named temporary where the file system cannot do that.
  std::string named;
  int fd = -1;
  if (gUseTmpfile) {
    fd = ::open(folder.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOTSUP)
      return makeError(path + ": " + cannotCreateIn(folder, errno) + via);
  }
  if (fd < 0) {
    named = (folder / temporaryName(target.filename().string())).string();
    fd = ::open(named.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return makeError(path + ": " + cannotCreateIn(folder, errno) + via);
  }
  const std::string readable = named.empty() ? "/proc/self/fd/" + std::to_string(fd) : named;
  auto fail = [&](const std::string& what) -> Status {
    ::close(fd);
    if (!named.empty()) ::unlink(named.c_str());
    return makeError(path + ": " + what + via);
  };
  size_t written = 0;
  while (written < data.size()) {
    ssize_t n = ::write(fd, data.data() + written, data.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail("write failed: " + errnoText());
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) return fail("fsync failed: " + errnoText());
  if (verify != nullptr) {
    Status checked = verify->verify(readable);
    if (!checked) return fail("not written, the new file failed verification: " + checked.error().message);
  }
  // The target's owner and mode (chown first: it may clear set-id bits).
  if (exists && (existing.st_uid != ::geteuid() || existing.st_gid != ::getegid()))
    (void)::fchown(fd, existing.st_uid, existing.st_gid);  // allowed only to some; the mode still holds
  if (::fchmod(fd, mode) != 0) return fail("cannot set the file mode: " + errnoText());
  if (gHookBeforeReplace != nullptr) gHookBeforeReplace(readable);
  if (named.empty()) {
    // Give the unnamed file a hidden name for the one rename that replaces
    // the target (linkat cannot replace an existing name).
    for (int attempt = 0; attempt < 8 && named.empty(); ++attempt) {
      std::string candidate = (folder / temporaryName(target.filename().string())).string();
      if (::linkat(AT_FDCWD, readable.c_str(), AT_FDCWD, candidate.c_str(), AT_SYMLINK_FOLLOW) == 0 ||
          ::linkat(fd, "", AT_FDCWD, candidate.c_str(), AT_EMPTY_PATH) == 0)
        named = candidate;
      else if (errno != EEXIST)
        return fail("cannot link the new file into " + folder.string() + ": " + errnoText());
    }
    if (named.empty()) return fail("cannot link the new file into " + folder.string() + ": name collisions");
  }
  if (::rename(named.c_str(), target.c_str()) != 0) return fail("cannot rename temporary file into place: " + errnoText());
  named.clear();  // it is the target now
  if (::close(fd) != 0) return makeError(path + ": close failed: " + errnoText() + via);
  syncFolder(folder);
  return Ok{};
}

}  // namespace ptescope
