// The direction of a copy between host and device memory: the et_copy
// instructions the passes insert (h2d, d2h), the copies a runtime makes and
// times, the curves of a link profile (which also price d2d). One enum and
// one spelling for every layer: "h2d", "d2h", "d2d" in JSON keys and values,
// the CLI's tables, the app's panels and the command-line flags
// (--skip-h2d-inputs).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace ptescope::program {

enum class CopyDirection { HostToDevice, DeviceToHost, DeviceToDevice };

// The two directions of the copies a program makes (et_copy has no d2d), in
// the order every report lists them.
inline constexpr std::array<CopyDirection, 2> kHostDeviceDirections{CopyDirection::HostToDevice,
                                                                    CopyDirection::DeviceToHost};

// "h2d", "d2h", "d2d".
std::string copyDirectionName(CopyDirection direction);
// "host-to-device", "device-to-host", "device-to-device".
std::string copyDirectionLongName(CopyDirection direction);
// The name above; also accepts "H2D"/"D2H"/"D2D" (files written before
// ptescope had one spelling).
std::optional<CopyDirection> parseCopyDirection(std::string_view text);

}  // namespace ptescope::program
