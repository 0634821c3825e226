#include "cost/LinkProfile.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <span>
#include <utility>

#include "util/MappedFile.h"

namespace ptescope::cost {

// Generated from resources/links/*.json by core/CMakeLists.txt.
extern const char* const kBuiltinLinkTexts[];
extern const char* const kBuiltinLinkFiles[];
extern const int kBuiltinLinkCount;

namespace {

constexpr int kLinkFormatVersion = 1;

double lineAt(const CurvePoint& a, const CurvePoint& b, uint64_t bytes) {
  const double slope = (b.seconds - a.seconds) / (double(b.bytes) - double(a.bytes));
  return a.seconds + slope * (double(bytes) - double(a.bytes));
}

}  // namespace

namespace {
constexpr std::pair<LinkMemory, const char*> kMemoryNames[] = {
    {LinkMemory::Pinned, "pinned"}, {LinkMemory::Pageable, "pageable"}, {LinkMemory::Device, "device"}};
}  // namespace

std::string linkMemoryName(LinkMemory memory) {
  for (const auto& [kind, name] : kMemoryNames)
    if (kind == memory) return name;
  return "";
}

std::optional<LinkMemory> parseLinkMemory(std::string_view text) {
  for (const auto& [kind, name] : kMemoryNames)
    if (text == name) return kind;
  return std::nullopt;
}

LinkMemory linkMemoryOf(exec::HostMemoryKind kind) {
  return kind == exec::HostMemoryKind::Pinned ? LinkMemory::Pinned : LinkMemory::Pageable;
}

double LinkCurve::secondsFor(uint64_t bytes) const {
  if (bytes == 0 || points.empty()) return 0;
  const CurvePoint& first = points.front();
  const CurvePoint& last = points.back();
  if (bytes <= first.bytes) return first.seconds;
  if (bytes >= last.bytes) {
    if (points.size() >= 2) {
      const CurvePoint& before = points[points.size() - 2];
      if (last.seconds > before.seconds) return lineAt(before, last, bytes);
    }
    return last.seconds * double(bytes) / double(last.bytes);
  }
  const auto upper = std::upper_bound(points.begin(), points.end(), bytes,
                                      [](uint64_t b, const CurvePoint& p) { return b < p.bytes; });
  return lineAt(*(upper - 1), *upper, bytes);
}

double LinkCurve::gbpsFor(uint64_t bytes) const {
  const double seconds = secondsFor(bytes);
  return seconds > 0 ? double(bytes) / seconds / 1e9 : 0.0;
}

const LinkCurve* LinkProfile::curve(program::CopyDirection direction, LinkMemory memory) const {
  for (const auto& c : curves)
    if (c.direction == direction && c.memory == memory) return &c;
  return nullptr;
}

Result<double> LinkProfile::secondsFor(program::CopyDirection direction, exec::HostMemoryKind memory,
                                       uint64_t bytes) const {
  const LinkCurve* c = curve(direction, linkMemoryOf(memory));
  if (c == nullptr)
    return makeError("link profile '" + name + "' has no " + program::copyDirectionName(direction) + " curve for " +
                     linkMemoryName(linkMemoryOf(memory)) + " host memory");
  return c->secondsFor(bytes);
}

std::string LinkProfile::label() const {
  const std::string shown = title.empty() ? name : title;
  if (kind == "typical") return shown + " (built-in, typical figures)";
  if (kind == "emulated") return shown + " (emulated: host memcpy, not a GPU link)";
  if (kind == "measured") return shown + (measured_on.empty() ? " (measured)" : " (measured on " + measured_on + ")");
  return shown;
}

Result<LinkProfile> parseLinkProfile(std::string_view text, const std::string& where) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return makeError(where + ": not valid JSON");
  if (!j.is_object()) return makeError(where + ": a link profile is a JSON object");
  if (j.value("format", std::string()) != "ptescope-link")
    return makeError(where + ": not a link profile (\"format\" is not \"ptescope-link\")");
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<int>() != kLinkFormatVersion)
    return makeError(where + ": unsupported link profile version (this build reads version " +
                     std::to_string(kLinkFormatVersion) + ")");
  LinkProfile profile;
  auto text_of = [&](const char* key, std::string& out) -> Status {
    if (!j.contains(key)) return Ok{};
    if (!j[key].is_string()) return makeError(where + ": \"" + key + "\" must be a string");
    out = j[key].get<std::string>();
    return Ok{};
  };
  for (auto [key, out] : {std::pair{"name", &profile.name}, {"title", &profile.title}, {"kind", &profile.kind},
                          {"description", &profile.description}, {"note", &profile.note}, {"rule", &profile.rule},
                          {"measured_on", &profile.measured_on}})
    if (auto status = text_of(key, *out); !status) return status.error();
  if (profile.name.empty()) return makeError(where + ": the profile has no \"name\"");
  if (j.contains("sources")) {
    if (!j["sources"].is_array()) return makeError(where + ": \"sources\" must be a list of strings");
    for (const auto& s : j["sources"]) {
      if (!s.is_string()) return makeError(where + ": \"sources\" must be a list of strings");
      profile.sources.push_back(s.get<std::string>());
    }
  }
  if (!j.contains("curves") || !j["curves"].is_array() || j["curves"].empty())
    return makeError(where + ": the profile has no \"curves\"");
  for (size_t i = 0; i < j["curves"].size(); ++i) {
    const auto& c = j["curves"][i];
    const std::string at = where + ": curve " + std::to_string(i);
    if (!c.is_object()) return makeError(at + " is not an object");
    LinkCurve curve;
    const auto direction = c.contains("direction") && c["direction"].is_string()
                               ? program::parseCopyDirection(c["direction"].get<std::string>())
                               : std::nullopt;
    if (!direction) return makeError(at + ": \"direction\" must be \"h2d\", \"d2h\" or \"d2d\"");
    const auto memory = c.contains("host_memory") && c["host_memory"].is_string()
                            ? parseLinkMemory(c["host_memory"].get<std::string>())
                            : std::nullopt;
    if (!memory) return makeError(at + ": \"host_memory\" must be \"pinned\", \"pageable\" or \"device\"");
    if ((*direction == program::CopyDirection::DeviceToDevice) != (*memory == LinkMemory::Device))
      return makeError(at + ": a d2d curve has host_memory \"device\", and only a d2d curve has it");
    curve.direction = *direction;
    curve.memory = *memory;
    const std::string label = program::copyDirectionName(curve.direction) + " " + linkMemoryName(curve.memory);
    if (profile.curve(curve.direction, curve.memory) != nullptr)
      return makeError(at + ": a second " + label + " curve");
    if (!c.contains("points") || !c["points"].is_array() || c["points"].empty())
      return makeError(at + " (" + label + ") has no \"points\"");
    for (size_t k = 0; k < c["points"].size(); ++k) {
      const auto& p = c["points"][k];
      const std::string pointAt = at + " (" + label + ") point " + std::to_string(k);
      if (!p.is_object() || !p.contains("bytes") || !p["bytes"].is_number_unsigned() || !p.contains("us") ||
          !p["us"].is_number())
        return makeError(pointAt + ": needs \"bytes\" (a whole number) and \"us\" (microseconds)");
      CurvePoint point{p["bytes"].get<uint64_t>(), p["us"].get<double>() / 1e6};
      if (point.bytes == 0) return makeError(pointAt + ": \"bytes\" must be positive");
      if (!(point.seconds > 0) || !std::isfinite(point.seconds))
        return makeError(pointAt + ": \"us\" must be a positive number");
      if (!curve.points.empty() && point.bytes <= curve.points.back().bytes)
        return makeError(pointAt + ": points must be in ascending order of bytes, each size once");
      curve.points.push_back(point);
    }
    profile.curves.push_back(std::move(curve));
  }
  return profile;
}

Result<LinkProfile> readLinkProfileFile(const std::string& path) {
  auto bytes = mapFile(path);
  if (!bytes) return makeError(path + ": " + bytes.error().message);
  const auto span = bytes->span();
  return parseLinkProfile(std::string_view(reinterpret_cast<const char*>(span.data()), span.size()), path);
}

nlohmann::json linkProfileJson(const LinkProfile& p) {
  nlohmann::json j;
  j["format"] = "ptescope-link";
  j["version"] = kLinkFormatVersion;
  j["name"] = p.name;
  j["title"] = p.title;
  j["kind"] = p.kind;
  if (!p.description.empty()) j["description"] = p.description;
  j["note"] = p.note;
  if (!p.rule.empty()) j["rule"] = p.rule;
  if (!p.measured_on.empty()) j["measured_on"] = p.measured_on;
  j["sources"] = p.sources;
  nlohmann::json curves = nlohmann::json::array();
  for (const auto& c : p.curves) {
    nlohmann::json points = nlohmann::json::array();
    for (const auto& point : c.points) points.push_back({{"bytes", point.bytes}, {"us", point.seconds * 1e6}});
    curves.push_back({{"direction", program::copyDirectionName(c.direction)},
                      {"host_memory", linkMemoryName(c.memory)},
                      {"points", points}});
  }
  j["curves"] = curves;
  return j;
}

Status writeLinkProfileFile(const LinkProfile& profile, const std::string& path) {
  const std::string text = linkProfileJson(profile).dump(2) + "\n";
  auto status = writeFileAtomically(path, std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  if (!status) return makeError(path + ": " + status.error().message);
  return Ok{};
}

const std::vector<LinkProfile>& builtinLinkProfiles() {
  static const std::vector<LinkProfile> profiles = [] {
    std::vector<LinkProfile> out;
    for (int i = 0; i < kBuiltinLinkCount; ++i) {
      // The texts are part of the build and tested; a broken one is a bug
      // that test_link_profile reports, here it is left out.
      auto parsed = parseLinkProfile(kBuiltinLinkTexts[i], std::string("built-in ") + kBuiltinLinkFiles[i]);
      if (parsed) out.push_back(std::move(parsed.value()));
    }
    // Slowest link first: by the large pinned H2D copy.
    auto largeCopy = [](const LinkProfile& p) {
      const LinkCurve* c = p.curve(program::CopyDirection::HostToDevice, LinkMemory::Pinned);
      return c ? c->secondsFor(uint64_t(256) << 20) : 0.0;
    };
    std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) { return largeCopy(a) > largeCopy(b); });
    return out;
  }();
  return profiles;
}

const LinkProfile* findBuiltinLinkProfile(std::string_view name) {
  for (const auto& p : builtinLinkProfiles())
    if (p.name == name) return &p;
  return nullptr;
}

const LinkProfile& defaultLinkProfile() {
  static const LinkProfile fallback = [] {
    LinkProfile p;
    p.name = "none";
    p.title = "no built-in profile";
    return p;
  }();
  const LinkProfile* p = findBuiltinLinkProfile("pcie-gen4-x16");
  return p ? *p : fallback;
}

Result<LinkProfile> resolveLinkProfile(const std::string& nameOrPath) {
  if (const auto* builtin = findBuiltinLinkProfile(nameOrPath)) return *builtin;
  std::error_code error;
  if (!std::filesystem::exists(nameOrPath, error)) {
    std::string names;
    for (const auto& p : builtinLinkProfiles()) names += (names.empty() ? "" : ", ") + p.name;
    return makeError("'" + nameOrPath + "' is neither a built-in link profile (" + names +
                     ") nor a profile file written by probe-link");
  }
  return readLinkProfileFile(nameOrPath);
}

}  // namespace ptescope::cost
