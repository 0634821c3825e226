#include "layout/DeviceStyle.h"

#include <array>
#include <cstdio>

namespace ptescope::layout {

std::string Rgb::hex() const {
  char text[8];
  std::snprintf(text, sizeof text, "#%06x", unsigned(value & 0xffffff));
  return text;
}

Rgb Rgb::lighter(double amount) const {
  auto mix = [amount](int channel) { return uint32_t(channel + (255 - channel) * amount + 0.5); };
  return Rgb{(mix(red()) << 16) | (mix(green()) << 8) | mix(blue())};
}

namespace {

DeviceStyle styleFrom(uint32_t stroke) {
  Rgb base{stroke};
  return DeviceStyle{base, base.lighter(0.78), base.lighter(0.9)};
}

}  // namespace

DeviceStyle deviceStyle(const program::Device& device) {
  if (device.isCpu()) return styleFrom(0x3b6ea5);
  static constexpr std::array<uint32_t, 4> kCuda = {0x5e9c00, 0x9a5b8f, 0x8c6239, 0xc9a400};
  const size_t slot = size_t(uint8_t(device.index)) % kCuda.size();
  return styleFrom(kCuda[slot]);
}

DeviceStyle h2dCopyStyle() {
  DeviceStyle s = styleFrom(0xe8730c);
  s.fill = Rgb{0xffd8b0};
  return s;
}

DeviceStyle d2hCopyStyle() {
  DeviceStyle s = styleFrom(0xc8283c);
  s.fill = Rgb{0xf8c4cb};
  return s;
}

DeviceStyle mixedStyle() { return styleFrom(0x6b6b6b); }

Rgb implicitCrossingColour() { return Rgb{0xd01060}; }

Rgb insideCopyColour() { return Rgb{0x7b1fa2}; }

Rgb changeColour(Change change) {
  switch (change) {
    case Change::Added: return Rgb{0x2ea043};
    case Change::Removed: return Rgb{0xd32f2f};
    case Change::Moved: return Rgb{0xf57c00};
    case Change::None: break;
  }
  return Rgb{0x000000};
}

}  // namespace ptescope::layout
