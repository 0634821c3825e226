#include "program/Text.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <vector>

namespace ptescope::program {
inline namespace text {
namespace {

std::string printed(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string printed(const char* format, int decimals, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, decimals, value);
  return text;
}

constexpr const char* kMinus = "\u2212";

}  // namespace

std::string bytesText(int64_t bytes) {
  if (bytes < 0) return "? B";
  constexpr double kKiB = 1024.0, kMiB = kKiB * 1024, kGiB = kMiB * 1024;
  const double b = double(bytes);
  if (b >= kGiB) return printed("%.1f GiB", b / kGiB);
  if (b >= kMiB) return printed("%.1f MiB", b / kMiB);
  if (b >= kKiB) return printed("%.1f KiB", b / kKiB);
  return std::to_string(bytes) + " B";
}

std::string exactBytesText(int64_t bytes) {
  const std::string rounded = bytesText(bytes);
  return bytes < 1024 ? rounded : rounded + " (" + std::to_string(bytes) + " bytes)";
}

std::string sizesText(std::span<const int64_t> sizes, std::string_view separator) {
  std::string text = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) text += separator;
    text += std::to_string(sizes[i]);
  }
  return text + "]";
}

std::string sizesText(const Tensor& tensor, std::string_view separator) {
  const auto& sizes = items(tensor.sizes);
  const std::vector<int64_t> wide(sizes.begin(), sizes.end());
  return sizesText(wide, separator);
}

std::string tensorTypeText(ScalarType dtype, std::span<const int64_t> sizes) {
  return scalarTypeShortName(dtype) + sizesText(sizes, ",");
}

std::string tensorTypeText(const Tensor& tensor) { return scalarTypeShortName(tensor.scalar_type) + sizesText(tensor, ","); }

std::string shellWord(const std::string& word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("-_./:=,%+@").find(c) != std::string_view::npos;
  });
  if (plain) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string countText(uint64_t count, std::string_view singular, std::string_view plural) {
  std::string text = std::to_string(count) + " ";
  if (count == 1) return text.append(singular);
  if (plural.empty()) return text.append(singular).append("s");
  return text.append(plural);
}

std::string copyTimeText(uint64_t copies, double seconds) { return copies == 0 ? "none" : durationText(seconds); }

std::string durationText(double seconds) {
  const double magnitude = std::abs(seconds);
  if (magnitude == 0) return "0";
  double value = seconds;
  const char* unit = "s";
  if (magnitude < 1e-6) {
    value = seconds * 1e9;
    unit = "ns";
  } else if (magnitude < 1e-3) {
    value = seconds * 1e6;
    unit = "\u00b5s";
  } else if (magnitude < 1) {
    value = seconds * 1e3;
    unit = "ms";
  }
  const double shown = std::abs(value);
  return fixedText(value, shown >= 100 ? 0 : shown >= 10 ? 1 : 2) + " " + unit;
}

std::string signedDurationText(double seconds) {
  if (seconds == 0) return durationText(0);
  return (seconds > 0 ? "+" : kMinus) + durationText(std::abs(seconds));
}

std::string signedPercentText(double percent) {
  const double magnitude = std::abs(percent);
  const std::string number = fixedText(magnitude, magnitude >= 10 ? 0 : 1);
  if (percent == 0) return number + "%";
  return (percent > 0 ? "+" : kMinus) + number + "%";
}

std::string gbpsText(double gbps) { return fixedText(gbps, gbps >= 100 ? 0 : gbps >= 10 ? 1 : 2); }

std::string fixedText(double value, int decimals) { return printed("%.*f", decimals, value); }

std::string signedFixedText(double value, int decimals) { return printed("%+.*f", decimals, value); }

double tidyMicros(double micros) {
  if (!std::isfinite(micros) || std::abs(micros) >= 1e9) return micros;
  return std::round(micros * 1e6) / 1e6;
}

std::string microsText(double seconds) { return fixedText(toMicros(seconds), 2); }

std::string percentText(double share) { return fixedText(share * 100, 1) + "%"; }

std::string exactText(double value) {
  // The shortest decimal that reads back as the same double, never with an
  // exponent (a CSV column of times in µs stays plain decimals).
  if (!std::isfinite(value)) return printed("%g", value);
  char text[400];  // a double in fixed notation has at most 309 integer digits
  const auto written = std::to_chars(text, text + sizeof text, value, std::chars_format::fixed);
  return written.ec == std::errc() ? std::string(text, written.ptr) : printed("%.17g", value);
}

std::string shortText(double value) { return printed("%g", value); }

std::string padded(std::string text, size_t width, bool right) {
  // Columns are characters, not bytes: "µs" and "−" are one column each.
  size_t columns = 0;
  for (unsigned char c : text) columns += (c & 0xC0) != 0x80 ? 1 : 0;
  if (columns >= width) return text;
  const std::string fill(width - columns, ' ');
  return right ? fill + text : text + fill;
}

}  // namespace text
}  // namespace ptescope::program
