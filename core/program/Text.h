// The texts every writer and panel shows for program quantities: bytes,
// tensor types, durations, bandwidths, percentages and table cells. One
// spelling each, so the CLI's tables, the graph's labels and the app's panels
// agree; ui/common/Format.h wraps these for QString.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "program/Program.h"

namespace ptescope::program {
// Inline: program::bytesText everywhere, and `using namespace program::text`
// brings in just these.
inline namespace text {

// "512 B", "4.0 KiB", "1.5 MiB", "3.0 GiB" (binary units, one decimal);
// "? B" for a negative (unknown) size.
std::string bytesText(int64_t bytes);
// A size for reading and for checking against a file or a plan: "49 B",
// "21.8 KiB (22304 bytes)".
std::string exactBytesText(int64_t bytes);

// A tensor's sizes: "[1, 64]", or "[1,64]" with separator ",".
std::string sizesText(std::span<const int64_t> sizes, std::string_view separator = ", ");
std::string sizesText(const Tensor& tensor, std::string_view separator = ", ");

// "float32[1,64]": dtype and shape in one word.
std::string tensorTypeText(ScalarType dtype, std::span<const int64_t> sizes);
std::string tensorTypeText(const Tensor& tensor);

// "1 iteration", "3 iterations", "0 copies": a count and its noun, plural
// unless the count is 1 (plural defaults to singular + "s").
std::string countText(uint64_t count, std::string_view singular, std::string_view plural = {});
// WORD as one word of a POSIX shell command line: as is when it is plain
// (letters, digits, "-_./:=,%+@"), else in single quotes.
std::string shellWord(const std::string& word);

// "850 ns", "12.3 µs", "1.25 ms", "2.10 s": three significant digits in the
// unit that keeps the number between 1 and 1000; "0" for zero (no unit to
// choose, as the timeline's axis starts).
std::string durationText(double seconds);
// The time of COPIES copies: "none" when there is no copy to time (a
// method without copies), else durationText(seconds). Every report, table
// and total spells a copy-less time so, and a measured 0 stays "0".
std::string copyTimeText(uint64_t copies, double seconds);
// "+1.20 µs", "−0.05 ms" (a real minus sign, U+2212).
std::string signedDurationText(double seconds);
// "+12.5%", "−100%", "0%": one decimal below 10, none from 10 on.
std::string signedPercentText(double percent);
// Bandwidth in 10^9 bytes per second: "0.54", "25.3", "350".
std::string gbpsText(double gbps);

// ---- the cells of the CLI's fixed-width tables ----

// Seconds as microseconds, the unit of every "us" column and JSON "_us" key.
constexpr double toMicros(double seconds) { return seconds * 1e6; }
// Microseconds for JSON, rounded to the picosecond: a saving that is the
// difference of two sums is written 15.3, not 15.299999999999999.
double tidyMicros(double micros);
// `value` with `decimals` decimals: "12.35"; signed: "+12.35", "-0.50".
std::string fixedText(double value, int decimals);
std::string signedFixedText(double value, int decimals);
// Seconds as microseconds with two decimals: "12.35".
std::string microsText(double seconds);
// A share (0..1) as a percentage with one decimal: "12.5%".
std::string percentText(double share);
// For CSV: the shortest plain decimal that reads back as the same double
// ("0.1", "0.30000000000000004", "0.0000005", "3"; no exponent).
std::string exactText(double value);
// The shortest of fixed and exponent form ("%g"): "1", "0.5", "1e-05".
std::string shortText(double value);
// `text` padded with spaces to `width` characters (UTF-8 code points), on the left when `right`.
std::string padded(std::string text, size_t width, bool right = false);

}  // namespace text
}  // namespace ptescope::program
