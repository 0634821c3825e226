#include "ui/DeviceColors.h"

namespace ptescope::ui {

QColor deviceColor(const QString& device) {
  if (device.startsWith("cpu")) return QColor(0x5b, 0x7d, 0xb1);
  static const QColor cuda[] = {QColor(0x4c, 0xa2, 0x5a), QColor(0xe0, 0x8a, 0x2b), QColor(0x8e, 0x5c, 0xc2),
                                QColor(0xc2, 0x4e, 0x6b), QColor(0x2b, 0xa7, 0xa8), QColor(0xa8, 0x9a, 0x2b),
                                QColor(0x6b, 0x6b, 0x6b), QColor(0x9c, 0x5b, 0x3a)};
  const int colon = device.indexOf(':');
  const int index = colon >= 0 ? device.mid(colon + 1).toInt() : 0;
  return cuda[((index % 8) + 8) % 8];
}

}  // namespace ptescope::ui
