// A read-only byte range that keeps its storage alive. Large immutable data
// (constants, delegate blobs, named data) stays in the mapped input file and
// is referenced through Bytes; only bytes created in memory own a vector.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

namespace ptescope {

class Bytes {
 public:
  Bytes() = default;
  Bytes(std::shared_ptr<const void> owner, const uint8_t* data, size_t size)
      : owner_(std::move(owner)), data_(data), size_(size) {}

  static Bytes copyOf(std::span<const uint8_t> data) {
    auto storage = std::make_shared<std::vector<uint8_t>>(data.begin(), data.end());
    const uint8_t* p = storage->data();
    return Bytes(std::move(storage), p, data.size());
  }
  static Bytes fromVector(std::vector<uint8_t> data) {
    auto storage = std::make_shared<std::vector<uint8_t>>(std::move(data));
    const uint8_t* p = storage->data();
    size_t n = storage->size();
    return Bytes(std::move(storage), p, n);
  }

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  std::span<const uint8_t> span() const { return {data_, size_}; }
  // A sub-range sharing the same owner. The caller checks bounds.
  Bytes slice(size_t offset, size_t length) const { return Bytes(owner_, data_ + offset, length); }

  friend bool operator==(const Bytes& a, const Bytes& b) {
    return a.size_ == b.size_ && (a.size_ == 0 || std::memcmp(a.data_, b.data_, a.size_) == 0);
  }

 private:
  std::shared_ptr<const void> owner_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace ptescope
