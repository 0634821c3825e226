// SHA-256 (FIPS 180-4), for content-hash keys such as the AOTI backend's
// "<sha256>_so_blob" named-data keys.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>

namespace ptescope {

std::array<uint8_t, 32> sha256(std::span<const uint8_t> data);
// Lowercase hex of sha256(data), 64 characters (Python's hexdigest()).
std::string sha256Hex(std::span<const uint8_t> data);

}  // namespace ptescope
