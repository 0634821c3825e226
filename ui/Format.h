// Texts shared by the panels.
#pragma once

#include <QString>

namespace ptescope::ui {

// "512 B", "4.0 KiB", "1.5 MiB".
inline QString bytesText(qint64 bytes) {
  if (bytes >= (1 << 20)) return QString("%1 MiB").arg(double(bytes) / double(1 << 20), 0, 'f', 1);
  if (bytes >= 1024) return QString("%1 KiB").arg(double(bytes) / 1024.0, 0, 'f', 1);
  return QString("%1 B").arg(bytes);
}

}  // namespace ptescope::ui
