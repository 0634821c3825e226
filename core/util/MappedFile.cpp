#include "util/MappedFile.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

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

Status writeFileAtomically(const std::string& path, std::span<const uint8_t> data,
                           const FileVerifier* verify) {
  namespace fs = std::filesystem;
  fs::path target(path);
  fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::random_device rd;
  std::string temp = (folder / ("." + target.filename().string() + ".ptescope-" +
                                std::to_string(rd()) + ".tmp"))
                         .string();
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return makeError(path + ": cannot create temporary file in " + folder.string() + ": " + errnoText());
  auto fail = [&](const std::string& what) -> Status {
    ::close(fd);
    ::unlink(temp.c_str());
    return makeError(path + ": " + what);
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
  if (::close(fd) != 0) {
    ::unlink(temp.c_str());
    return makeError(path + ": close failed: " + errnoText());
  }
  if (verify != nullptr) {
    Status checked = verify->verify(temp);
    if (!checked) {
      ::unlink(temp.c_str());
      return makeError(path + ": not written, the new file failed verification: " + checked.error().message);
    }
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    std::string why = errnoText();
    ::unlink(temp.c_str());
    return makeError(path + ": cannot rename temporary file into place: " + why);
  }
  return Ok{};
}

}  // namespace ptescope
