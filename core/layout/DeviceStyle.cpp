#include "layout/DeviceStyle.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>

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

namespace {

uint32_t hsv(double hue, double s, double v) {
  const double c = v * s, h = std::fmod(hue, 360.0) / 60.0;
  const double x = c * (1 - std::fabs(std::fmod(h, 2.0) - 1));
  double r = 0, g = 0, b = 0;
  if (h < 1) r = c, g = x;
  else if (h < 2) r = x, g = c;
  else if (h < 3) g = c, b = x;
  else if (h < 4) g = x, b = c;
  else if (h < 5) r = x, b = c;
  else r = c, b = x;
  const double m = v - c;
  auto channel = [m](double value) { return uint32_t((value + m) * 255 + 0.5); };
  return (channel(r) << 16) | (channel(g) << 8) | channel(b);
}

int distance(uint32_t a, uint32_t b) {
  const Rgb x{a}, y{b};
  return std::abs(x.red() - y.red()) + std::abs(x.green() - y.green()) + std::abs(x.blue() - y.blue());
}

constexpr uint32_t kCpu = 0x3b6ea5;
// As many as the device choosers offer (cuda:0-7), each its own colour
// (cuda:4 had cuda:0's green).
constexpr std::array<uint32_t, 8> kCuda = {0x5e9c00, 0x9a5b8f, 0x8c6239, 0xc9a400, 0x00897b, 0x1a237e, 0x7cb342, 0x00acc1};

// Colours for every cuda index a file can name (0-255): the palette, then,
// for each next index, the first of a spread of hues (the golden ratio's
// multiples over 50-330°, the copies' orange and red left out, light and
// dark by turns) far enough from every colour already taken, the CPU's and
// the copies' included; the farthest one where none is far enough.
const std::array<uint32_t, 256>& cudaColours() {
  static const std::array<uint32_t, 256> colours = [] {
    std::array<uint32_t, 256> out{};
    std::vector<uint32_t> taken{kCpu, 0xe8730c, 0xc8283c, 0x6b6b6b, 0x7b1fa2, 0xd01060};
    for (size_t i = 0; i < kCuda.size(); ++i) taken.push_back(out[i] = kCuda[i]);
    size_t k = 0;
    for (size_t i = kCuda.size(); i < out.size(); ++i) {
      uint32_t best = 0;
      int bestDistance = -1;
      for (int tries = 0; tries < 64; ++tries, ++k) {
        const double hue = 50 + std::fmod(double(k) * 0.6180339887, 1.0) * 280;
        const uint32_t candidate = hsv(hue, k % 3 == 0 ? 0.5 : 0.75, k % 2 ? 0.5 : 0.8);
        int nearest = 1 << 20;
        for (uint32_t t : taken) nearest = std::min(nearest, distance(candidate, t));
        if (nearest > bestDistance) best = candidate, bestDistance = nearest;
        if (nearest >= 60) break;
      }
      ++k;
      taken.push_back(out[i] = best);
    }
    return out;
  }();
  return colours;
}

}  // namespace

DeviceStyle deviceStyle(const program::Device& device) {
  if (device.isCpu()) return styleFrom(kCpu);
  return styleFrom(cudaColours()[uint8_t(device.index)]);
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
