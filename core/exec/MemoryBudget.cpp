#include "exec/MemoryBudget.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "util/HostMemory.h"

namespace ptescope::exec {

uint64_t saturatingAdd(uint64_t a, uint64_t b) {
  return a > std::numeric_limits<uint64_t>::max() - b ? std::numeric_limits<uint64_t>::max() : a + b;
}

std::string memoryText(uint64_t bytes) {
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return std::to_string(bytes) + " B";
  double value = double(bytes);
  int unit = -1;
  while (value >= 1024 && unit < 5) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, kUnits[unit]);
  return text;
}

uint64_t MemoryDemand::total() const {
  return saturatingAdd(saturatingAdd(saturatingAdd(planned, unplanned), saturatingAdd(constants, inputs)), alongside);
}

Result<std::vector<MemoryDemand>> methodMemoryDemand(const program::Method& method, const DeviceRuntime& runtime,
                                                     HostMemoryKind hostMemory,
                                                     const std::vector<ExtraAllocation>& alongside) {
  std::map<std::string, MemoryDemand> pools;
  const MemoryPlace host = MemoryPlace::host(hostMemory);
  auto pool = [&](const MemoryPlace& place) -> MemoryDemand& {
    const std::string name = runtime.memoryPool(place);
    auto& d = pools[name];
    d.pool = name;
    return d;
  };
  auto placeOf = [&](program::Device device) { return device.isCpu() ? host : MemoryPlace::onDevice(device); };
  const std::string methodText = "method '" + method.displayName() + "'";

  const auto& sizes = program::items(method.non_const_buffer_sizes);
  for (size_t i = 1; i < sizes.size(); ++i) {
    if (sizes[i] < 0)
      return makeError(methodText + ": planned buffer " + std::to_string(i) + " has a negative size " + std::to_string(sizes[i]));
    auto& d = pool(placeOf(method.bufferDevice(int32_t(i))));
    d.planned = saturatingAdd(d.planned, uint64_t(sizes[i]));
  }
  std::vector<bool> isInput(program::items(method.values).size(), false);
  for (int32_t input : program::items(method.inputs))
    if (input >= 0 && size_t(input) < isInput.size()) isInput[size_t(input)] = true;
  const auto& values = program::items(method.values);
  for (size_t v = 0; v < values.size(); ++v) {
    const program::Tensor* t = values[v].tensor();
    if (t == nullptr) continue;
    const int64_t nbytes = t->nbytes();
    if (nbytes < 0)
      return makeError(methodText + ", value " + std::to_string(v) + ": its size is unknown (negative size, overflow or "
                       "invalid scalar type " + std::to_string(int(t->scalar_type)) + ")");
    const uint64_t bytes = uint64_t(nbytes);
    if (isInput[v]) {
      auto& d = pool(host);
      d.inputs = saturatingAdd(d.inputs, bytes);
    }
    if (t->isPlanned()) continue;  // inside a planned buffer
    if (t->isConstant()) {
      if (t->device().isCpu()) continue;  // stays in the mapped file
      auto& d = pool(placeOf(t->device()));
      d.constants = saturatingAdd(d.constants, bytes);
      continue;
    }
    auto& d = pool(placeOf(t->device()));
    d.unplanned = saturatingAdd(d.unplanned, bytes);
  }
  for (const auto& extra : alongside) {
    auto& d = pool(extra.place);
    d.alongside = saturatingAdd(d.alongside, extra.bytes);
    d.alongside_what = d.alongside_what.empty() || d.alongside_what == extra.what ? extra.what : "other buffers";
  }
  std::vector<MemoryDemand> out;
  if (auto it = pools.find("host"); it != pools.end()) out.push_back(it->second);
  for (const auto& [name, d] : pools)
    if (name != "host") out.push_back(d);
  return out;
}

uint64_t defaultHostMemoryBudget(uint64_t available) { return available / 2; }

uint64_t defaultHostMemoryBudget() { return defaultHostMemoryBudget(hostAvailableMemoryBytes()); }

Status checkMemoryDemand(const std::vector<MemoryDemand>& demand, const DeviceRuntime& runtime, uint64_t maxBytes,
                         const std::string& what, const std::string& setting) {
  for (const auto& d : demand) {
    const uint64_t total = d.total();
    const uint64_t available = runtime.availableMemory(d.pool);
    const uint64_t budget = maxBytes == 0 && d.pool == "host" ? defaultHostMemoryBudget(available) : 0;
    const bool overBudget = budget != 0 && total > budget;
    const bool overLimit = maxBytes != 0 && total > maxBytes;
    const bool overAvailable = available != 0 && total > available;
    if (!overLimit && !overAvailable && !overBudget) continue;
    std::string parts;
    auto part = [&](const std::string& name, uint64_t bytes) {
      if (bytes == 0) return;
      parts += (parts.empty() ? "" : ", ") + name + " " + memoryText(bytes);
    };
    part("planned buffers", d.planned);
    part("unplanned tensors", d.unplanned);
    part("device constants", d.constants);
    part("inputs", d.inputs);
    part(d.alongside_what.empty() ? "other buffers" : d.alongside_what, d.alongside);
    const std::string needs = total == std::numeric_limits<uint64_t>::max() ? "more than 16 EiB" : memoryText(total) + " (" + std::to_string(total) + " bytes)";
    std::string limit;
    if (overBudget)
      limit = "the default budget of " + memoryText(budget) + " (half of the " + memoryText(available) +
              " available: " + runtime.availableMemorySource(d.pool) + "); raise it with " + setting;
    else if (overLimit && (!overAvailable || maxBytes <= available))
      limit = "the limit of " + memoryText(maxBytes) + " (" + setting + ")";
    else
      limit = "the " + memoryText(available) + " available there (" + runtime.availableMemorySource(d.pool) + ")";
    return makeError(what + ": not run: it would allocate " + needs + " of " + runtime.memoryPoolDescription(d.pool) +
                     " (" + parts + "), more than " + limit);
  }
  return Ok{};
}

std::optional<uint64_t> parseMemorySize(const std::string& text) {
  if (text.empty()) return std::nullopt;
  size_t end = 0;
  double number = 0;
  try {
    number = std::stod(text, &end);
  } catch (...) {
    return std::nullopt;
  }
  if (!std::isfinite(number) || number < 0 || text[0] == '-' || text[0] == '+') return std::nullopt;
  std::string unit = text.substr(end);
  if (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  for (auto& c : unit) c = char(std::toupper(static_cast<unsigned char>(c)));
  if (unit.size() > 1 && unit.back() == 'B') unit.pop_back();
  if (unit.size() == 2 && unit.back() == 'I') unit.pop_back();
  double scale = 1;
  if (unit.empty()) scale = 1;
  else if (unit == "K") scale = 1024.0;
  else if (unit == "M") scale = 1024.0 * 1024;
  else if (unit == "G") scale = 1024.0 * 1024 * 1024;
  else if (unit == "T") scale = 1024.0 * 1024 * 1024 * 1024;
  else if (unit != "B") return std::nullopt;
  const double bytes = std::floor(number * scale);
  if (bytes >= 18446744073709551615.0) return std::nullopt;
  return uint64_t(bytes);
}

}  // namespace ptescope::exec
