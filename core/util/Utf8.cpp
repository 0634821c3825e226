#include "util/Utf8.h"

#include <cstdint>

namespace ptescope {
namespace {

// Length of the valid UTF-8 sequence at `i`, or 0 when the byte there does
// not start one.
size_t sequenceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  const uint8_t b0 = byte(i);
  if (b0 < 0x80) return 1;
  size_t length = 0;
  uint8_t low = 0x80, high = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    length = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    length = 3;
    if (b0 == 0xE0) low = 0xA0;   // no overlong forms
    if (b0 == 0xED) high = 0x9F;  // no surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    length = 4;
    if (b0 == 0xF0) low = 0x90;
    if (b0 == 0xF4) high = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (s.size() - i < length) return 0;
  const uint8_t b1 = byte(i + 1);
  if (b1 < low || b1 > high) return 0;
  for (size_t k = 2; k < length; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  return length;
}

}  // namespace

bool isValidUtf8(std::string_view text) {
  for (size_t i = 0; i < text.size();) {
    const size_t n = sequenceLength(text, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

namespace {

constexpr char kHex[] = "0123456789ABCDEF";

void appendByteEscape(std::string& out, uint8_t b) {
  out += "\\x";
  out += kHex[b >> 4];
  out += kHex[b & 0xF];
}

// The code point of the valid sequence of `n` bytes at `s`.
uint32_t codePoint(std::string_view s, size_t n) {
  const auto b = [&](size_t k) { return static_cast<uint32_t>(static_cast<uint8_t>(s[k])); };
  if (n == 1) return b(0);
  if (n == 2) return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
  if (n == 3) return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
  return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
}

std::string escaped(std::string_view text, bool oneLine) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const size_t n = sequenceLength(text, i);
    if (n == 0) {
      appendByteEscape(out, static_cast<uint8_t>(text[i]));
      ++i;
      continue;
    }
    if (oneLine) {
      const uint32_t c = codePoint(text.substr(i, n), n);
      if (c < 0x20 || c == 0x7F) {
        appendByteEscape(out, static_cast<uint8_t>(c));
        i += n;
        continue;
      }
      // The bidirectional formatting characters too: shown, a U+202E in a
      // method name reversed it and the text after it ("evil" read "live").
      const bool bidi = c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) ||
                        (c >= 0x2066 && c <= 0x2069);
      if ((c >= 0x80 && c <= 0x9F) || c == 0x2028 || c == 0x2029 || bidi) {
        out += "\\u";
        for (int shift = 12; shift >= 0; shift -= 4) out += kHex[(c >> shift) & 0xF];
        i += n;
        continue;
      }
    }
    out.append(text.substr(i, n));
    i += n;
  }
  return out;
}

}  // namespace

std::string printableUtf8(std::string_view text) { return escaped(text, false); }

std::string printableLine(std::string_view text) { return escaped(text, true); }

}  // namespace ptescope
