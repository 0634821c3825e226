// The colours that tell devices and transfers apart. One palette for the
// Graphviz renderings (CLI) and the Qt view (GUI), so that a picture exported
// from either reads the same way.
#pragma once

#include <cstdint>
#include <string>

#include "layout/GraphModel.h"
#include "program/Types.h"

namespace ptescope::layout {

// 0xRRGGBB.
struct Rgb {
  uint32_t value = 0;
  int red() const { return int((value >> 16) & 0xff); }
  int green() const { return int((value >> 8) & 0xff); }
  int blue() const { return int(value & 0xff); }
  // "#rrggbb", as DOT and SVG write colours.
  std::string hex() const;
  // This colour mixed with white; `amount` 0 keeps it, 1 is white. Used for
  // node fills and region backgrounds that must stay readable under text.
  Rgb lighter(double amount) const;
};

struct DeviceStyle {
  Rgb stroke;  // node borders, edges carrying the device's tensors
  Rgb fill;    // node fill
  Rgb region;  // background of the device region (drawn translucent in the GUI)
};

// CPU is blue; cuda:0 is green, cuda:1 mauve, cuda:2 brown, cuda:3 yellow,
// cuda:4 teal, cuda:5 navy, cuda:6 lime, cuda:7 cyan; higher indices get
// hues spread around the wheel. None of them is orange or red: those belong
// to the transfers below, which must never be mistaken for a device.
DeviceStyle deviceStyle(const program::Device& device);

// Host-to-device copies are orange, device-to-host copies red.
DeviceStyle h2dCopyStyle();
DeviceStyle d2hCopyStyle();
// Group nodes that span several devices.
DeviceStyle mixedStyle();
// An edge whose tensor changes device without a copy (a program before the
// device passes, or a broken one): drawn in this colour, dashed.
Rgb implicitCrossingColour();
// The marks of the copies a delegate makes inside itself (DelegateCopyMarks):
// purple, a colour no device and no copy node has.
Rgb insideCopyColour();

// Diff views: added green, removed red (drawn dashed), moved or retargeted
// orange; black for no change.
Rgb changeColour(Change change);

}  // namespace ptescope::layout
