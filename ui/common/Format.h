// Texts shared by the panels: core/program/Text.h's one spelling of each
// quantity, as QString.
#pragma once

#include <QString>

#include "program/Program.h"
#include "program/Text.h"
#include "util/Utf8.h"

namespace ptescope::ui {

inline QString qText(const std::string& text) { return QString::fromStdString(text); }

// "%12": how every panel names value 12. Build texts that hold it (or any
// name read from a file, which may hold "%1" too) with ONE multi-argument
// QString::arg call, or by concatenation: a chained .arg() would substitute
// into the %N of an earlier argument.
inline QString valueRef(qint64 value) { return QStringLiteral("%") + QString::number(value); }
inline QString num(qint64 n) { return QString::number(n); }

// A tensor's sizes: "[1, 64]" (tables), or "[1,64]" with separator ",".
inline QString sizesText(const program::Tensor& t, const QString& separator = QStringLiteral(", ")) {
  return qText(program::sizesText(t, separator.toStdString()));
}

// "float32[1,64]": dtype and shape in one word.
inline QString tensorTypeText(const program::Tensor& t) { return qText(program::tensorTypeText(t)); }

// "512 B", "4.0 KiB", "1.5 MiB", "3.0 GiB".
inline QString bytesText(qint64 bytes) { return qText(program::bytesText(bytes)); }

// "1 copy", "3 copies": a count and its noun, plural unless the count is 1.
inline QString countText(qint64 count, const QString& singular, const QString& plural = QString()) {
  return qText(program::countText(uint64_t(count < 0 ? 0 : count), singular.toStdString(), plural.toStdString()));
}

// "850 ns", "12.3 µs", "1.25 ms", "2.10 s".
// printableLine() for the GUI: one line, control characters as \xNN.
inline QString printableText(const QString& text) {
  return QString::fromStdString(ptescope::printableLine(text.toStdString()));
}
inline QString durationText(double seconds) { return qText(program::durationText(seconds)); }
inline QString copyTimeText(qint64 copies, double seconds) {
  return qText(program::copyTimeText(uint64_t(copies < 0 ? 0 : copies), seconds));
}

// "+1.20 µs", "−0.05 ms" (a real minus sign).
inline QString signedDurationText(double seconds) { return qText(program::signedDurationText(seconds)); }

// "+12.5%", "−100%".
inline QString signedPercentText(double percent) { return qText(program::signedPercentText(percent)); }

// Bandwidth in 10^9 bytes per second, the unit every profile report uses.
inline QString gbpsText(double gbps) { return qText(program::gbpsText(gbps)); }

}  // namespace ptescope::ui
