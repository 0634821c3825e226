#include "ui/common/DeviceColors.h"

#include "layout/DeviceStyle.h"
#include "program/Types.h"

namespace ptescope::ui {

// The graph's palette (core/layout/DeviceStyle), so a device has one colour
// in every view and no device shares the copy colours.
QColor deviceColor(const QString& device) {
  auto parsed = program::parseDeviceSpec(device.toStdString());
  const auto style = layout::deviceStyle(parsed ? parsed.value() : program::Device{});
  return QColor(style.stroke.red(), style.stroke.green(), style.stroke.blue());
}

}  // namespace ptescope::ui
