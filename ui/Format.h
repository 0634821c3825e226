// Texts shared by the panels.
#pragma once

#include <QString>

#include <QStringList>

#include <cmath>

#include "program/Program.h"

namespace ptescope::ui {

// A tensor's sizes: "[1, 64]" (tables), or "[1,64]" with separator ",".
inline QString sizesText(const program::Tensor& t, const QString& separator = QStringLiteral(", ")) {
  QStringList parts;
  for (int32_t s : program::items(t.sizes)) parts << QString::number(s);
  return "[" + parts.join(separator) + "]";
}

// "float32[1,64]": dtype and shape in one word.
inline QString tensorTypeText(const program::Tensor& t) {
  return QString::fromStdString(program::scalarTypeShortName(t.scalar_type)) + sizesText(t, QStringLiteral(","));
}

// "512 B", "4.0 KiB", "1.5 MiB".
inline QString bytesText(qint64 bytes) {
  if (bytes >= (1 << 20)) return QString("%1 MiB").arg(double(bytes) / double(1 << 20), 0, 'f', 1);
  if (bytes >= 1024) return QString("%1 KiB").arg(double(bytes) / 1024.0, 0, 'f', 1);
  return QString("%1 B").arg(bytes);
}

// "850 ns", "12.3 µs", "1.25 ms", "2.10 s": three significant digits in the
// unit that keeps the number between 1 and 1000, so a column of times reads
// at a glance without counting zeros.
inline QString durationText(double seconds) {
  const double magnitude = std::abs(seconds);
  double value = seconds;
  const char* unit = "s";
  if (magnitude == 0) return QStringLiteral("0 s");
  if (magnitude < 1e-6) {
    value = seconds * 1e9;
    unit = "ns";
  } else if (magnitude < 1e-3) {
    value = seconds * 1e6;
    unit = "µs";
  } else if (magnitude < 1) {
    value = seconds * 1e3;
    unit = "ms";
  }
  const double shown = std::abs(value);
  const int decimals = shown >= 100 ? 0 : shown >= 10 ? 1 : 2;
  return QString("%1 %2").arg(value, 0, 'f', decimals).arg(QString::fromUtf8(unit));
}

// A difference with its sign spelled out: "+1.20 µs", "−0.05 ms" (a real
// minus sign, which lines up with the plus in proportional fonts).
inline QString signedDurationText(double seconds) {
  if (seconds == 0) return durationText(0);
  const QString magnitude = durationText(std::abs(seconds));
  return (seconds > 0 ? QStringLiteral("+") : QString(QChar(0x2212))) + magnitude;
}

// "+12.5%", "−100%".
inline QString signedPercentText(double percent) {
  const double magnitude = std::abs(percent);
  const QString number = QString::number(magnitude, 'f', magnitude >= 10 ? 0 : 1);
  if (percent == 0) return number + "%";
  return (percent > 0 ? QStringLiteral("+") : QString(QChar(0x2212))) + number + "%";
}

// Bandwidth in 10^9 bytes per second, the unit every profile report uses.
inline QString gbpsText(double gbps) { return QString::number(gbps, 'f', gbps >= 100 ? 0 : gbps >= 10 ? 1 : 2); }

}  // namespace ptescope::ui
