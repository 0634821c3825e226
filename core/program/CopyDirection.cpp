#include "program/CopyDirection.h"

namespace ptescope::program {
namespace {

struct DirectionNames {
  CopyDirection direction;
  const char* name;
  const char* legacy_name;  // how files written before one spelling say it
  const char* long_name;
};

constexpr DirectionNames kNames[] = {
    {CopyDirection::HostToDevice, "h2d", "H2D", "host-to-device"},
    {CopyDirection::DeviceToHost, "d2h", "D2H", "device-to-host"},
    {CopyDirection::DeviceToDevice, "d2d", "D2D", "device-to-device"},
};

const DirectionNames& namesOf(CopyDirection direction) {
  for (const auto& names : kNames)
    if (names.direction == direction) return names;
  return kNames[0];
}

}  // namespace

std::string copyDirectionName(CopyDirection direction) { return namesOf(direction).name; }

std::string copyDirectionLongName(CopyDirection direction) { return namesOf(direction).long_name; }

std::optional<CopyDirection> parseCopyDirection(std::string_view text) {
  for (const auto& names : kNames)
    if (text == names.name || text == names.legacy_name) return names.direction;
  return std::nullopt;
}

}  // namespace ptescope::program
