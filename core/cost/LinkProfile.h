// What a copy costs on a given host-device link, without a GPU: a link
// profile holds, per direction (H2D, D2H, D2D where it applies) and host
// memory kind (pinned, pageable), the time of one copy as a function of its
// size, as measured points from about 1 KiB to 256 MiB.
//
// Interpolation rule (LinkCurve::secondsFor), chosen so that a link that
// behaves as latency + bytes / bandwidth is reproduced exactly:
//   - 0 bytes cost 0 (no transfer is issued);
//   - between two points, time is linear in bytes (each segment is its own
//     latency + bytes / bandwidth line), so small copies stay latency-bound
//     and large ones bandwidth-bound as the points say;
//   - below the first point, the first point's time (copies that small are
//     latency-bound: the first point is the fixed cost);
//   - above the last point, the last segment's line continued (the
//     bandwidth of the largest copies); a curve whose last segment does not
//     grow (noisy measurements) continues at the last point's average
//     bandwidth instead, and a one-point curve scales that point's time.
//
// Built-in profiles (resources/links/*.json, compiled in) carry typical
// public figures with their sources and say that they are not guarantees;
// `ptescope-cli probe-link` measures a profile on a real GPU (cost/LinkProbe.h).
//
// The file format ("format": "ptescope-link", "version": 1):
//   { "name", "title", "kind": "typical" | "measured" | "emulated",
//     "description", "note", "rule", "sources": [..], "measured_on": "...",
//     "curves": [ { "direction": "h2d" | "d2h" | "d2d",
//                   "host_memory": "pinned" | "pageable" | "device",
//                   "points": [ { "bytes": N, "us": T }, ... ],
//                   "model": { "latency_us", "gbps" } (optional, informative: what
//                   typical points were computed from; the points are what counts) } ] }
// Points are sorted by bytes (strictly ascending) with positive times.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "exec/DeviceRuntime.h"
#include "util/Result.h"

namespace ptescope::cost {


// The memory a curve's copies touch on the host side; Device for D2D.
enum class LinkMemory { Pinned, Pageable, Device };
std::string linkMemoryName(LinkMemory memory);  // "pinned", "pageable", "device"
std::optional<LinkMemory> parseLinkMemory(std::string_view text);
LinkMemory linkMemoryOf(exec::HostMemoryKind kind);

struct CurvePoint {
  uint64_t bytes = 0;
  double seconds = 0;
};

struct LinkCurve {
  program::CopyDirection direction = program::CopyDirection::HostToDevice;
  LinkMemory memory = LinkMemory::Pinned;
  std::vector<CurvePoint> points;  // ascending bytes, at least one

  // The predicted time of one copy of `bytes` (the rule above).
  double secondsFor(uint64_t bytes) const;
  // bytes / secondsFor(bytes) in 10^9 bytes per second; 0 for 0 bytes.
  double gbpsFor(uint64_t bytes) const;
};

struct LinkProfile {
  std::string name;         // "pcie-gen4-x16"; what --link takes
  std::string title;        // "PCIe Gen4 x16"
  std::string kind;         // "typical", "measured" or "emulated"
  std::string description;
  std::string note;         // typical figures, not guarantees / what was measured
  std::string rule;         // how the points were obtained
  std::string measured_on;  // measured profiles: the runtime and device
  std::vector<std::string> sources;
  std::vector<LinkCurve> curves;

  const LinkCurve* curve(program::CopyDirection direction, LinkMemory memory) const;
  // The time of one copy; an error names the profile and the missing curve.
  Result<double> secondsFor(program::CopyDirection direction, exec::HostMemoryKind memory, uint64_t bytes) const;
  // "PCIe Gen4 x16 (built-in, typical figures)" / "measured on cuda:0 NVIDIA H200".
  std::string label() const;
};

// Parses a profile; `where` (a file name, "built-in profile x") starts every
// error message.
Result<LinkProfile> parseLinkProfile(std::string_view text, const std::string& where);
Result<LinkProfile> readLinkProfileFile(const std::string& path);
nlohmann::json linkProfileJson(const LinkProfile& profile);
// Writes the profile atomically; errors name the path.
Status writeLinkProfileFile(const LinkProfile& profile, const std::string& path);

// The built-in profiles, slowest link first.
const std::vector<LinkProfile>& builtinLinkProfiles();
const LinkProfile* findBuiltinLinkProfile(std::string_view name);
// The profile used when none is named: PCIe Gen4 x16.
const LinkProfile& defaultLinkProfile();
// A built-in name, else a profile file.
Result<LinkProfile> resolveLinkProfile(const std::string& nameOrPath);

}  // namespace ptescope::cost
