// The cudart stand-in: a host-only libcudart.so.13 for tests (README:
// "The CUDA stand-in"). It is NOT a GPU. It implements exactly the CUDA
// runtime calls ptescope makes (core/exec/CudaRuntime.cpp), with the
// toolkit's own declarations, so that tests run the real CudaRuntime through
// LD_LIBRARY_PATH on machines without a GPU and catch what only a GPU would
// show today: a wrong copy kind, a pointer used on the wrong side, a missed
// synchronisation (pinned copies land only at a synchronisation point, as
// asynchronous copies do), an event read before it completed, leaked
// memory, streams or events.
//
// Devices: PTESCOPE_STANDIN_DEVICES (default 1) devices named
// "cudart stand-in (not a GPU) #i" of PTESCOPE_STANDIN_MEMORY bytes each
// (default 80G; K, M, G, T suffixes). Device memory is host memory, counted
// per device against that size.
// Time: a virtual clock per stream advances by the link's time for each copy:
// PTESCOPE_STANDIN_LINK names a link profile (ptescope-link JSON, as
// resources/links/*.json), else latency + bytes / bandwidth with
// PTESCOPE_STANDIN_GBPS (pinned, default 25) and PTESCOPE_STANDIN_LATENCY_US
// (default 2); pageable copies at 1/2.5 of that bandwidth, 3 us more latency.
// Faults (k counts from 1; :CODE sets the cudaError_t returned):
//   PTESCOPE_STANDIN_INIT_ERROR=CODE       every call fails with CODE (35: no driver)
//   PTESCOPE_STANDIN_FAIL_MALLOC=k[:CODE]   the k-th cudaMalloc (default 2, out of memory)
//   PTESCOPE_STANDIN_FAIL_HOST_ALLOC=k[:CODE] the k-th cudaHostAlloc (default 2)
//   PTESCOPE_STANDIN_FAIL_MEMCPY=k[:CODE]   the k-th copy (default 700, sticky)
//   PTESCOPE_STANDIN_FAIL_EVENT=k[:CODE]    the k-th event record/synchronize/elapsed call (default 999)
//   PTESCOPE_STANDIN_LOSE_DEVICE=k[:CODE]   once the k-th copy is timed or synchronised,
//                                          every later call fails (default 46)
// Sticky errors (700, 719, and a lost device) fail every later call, as a
// broken CUDA context does; frees still release the memory so that the leak
// check sees what ptescope freed.
// Report: PTESCOPE_STANDIN_REPORT=FILE writes at exit a JSON summary (calls,
// copies by direction and host memory, device allocations, leaks);
// PTESCOPE_STANDIN_LEAKS=fail makes the process exit 86 when anything was
// leaked. ptescope_standin_live_device_bytes() answers in-process tests.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

// ---- configuration ----------------------------------------------------------

uint64_t parseSize(const char* text, uint64_t fallback) {
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  uint64_t scale = 1;
  switch (std::toupper(static_cast<unsigned char>(*end))) {
    case 'K': scale = 1ull << 10; break;
    case 'M': scale = 1ull << 20; break;
    case 'G': scale = 1ull << 30; break;
    case 'T': scale = 1ull << 40; break;
    default: break;
  }
  return value > 0 ? uint64_t(value * double(scale)) : fallback;
}

struct Fault {
  long at = 0;  // 0: never
  cudaError_t code = cudaSuccess;
};

Fault parseFault(const char* name, cudaError_t fallback) {
  Fault fault;
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fault;
  char* end = nullptr;
  fault.at = std::strtol(text, &end, 10);
  fault.code = (*end == ':') ? cudaError_t(std::strtol(end + 1, nullptr, 10)) : fallback;
  return fault;
}

// One curve of a link: time of one copy by size (the link profile rule:
// linear between points, the first point's time below it, the last segment
// continued above).
struct Curve {
  std::vector<std::pair<double, double>> points;  // bytes, microseconds

  double micros(double bytes) const {
    if (bytes <= 0 || points.empty()) return 0;
    if (points.size() == 1) return points[0].second * std::max(1.0, bytes / points[0].first);
    if (bytes <= points.front().first) return points.front().second;
    size_t i = 1;
    while (i + 1 < points.size() && points[i].first < bytes) ++i;
    const auto& [x0, y0] = points[i - 1];
    const auto& [x1, y1] = points[i];
    if (y1 <= y0 && bytes > x1) return y1 * bytes / x1;  // flat last segment: last point's rate
    return y0 + (y1 - y0) * (bytes - x0) / (x1 - x0);
  }
  static Curve line(double latencyMicros, double gbps) {
    Curve c;
    for (double bytes : {1024.0, double(1ull << 30)}) c.points.push_back({bytes, latencyMicros + bytes / (gbps * 1e3)});
    return c;
  }
};

enum class Dir { H2D, D2H, D2D, H2H };
const char* dirName(Dir d) {
  switch (d) {
    case Dir::H2D: return "h2d";
    case Dir::D2H: return "d2h";
    case Dir::D2D: return "d2d";
    case Dir::H2H: return "h2h";
  }
  return "";
}

struct Config {
  int devices = 1;
  uint64_t memory = 80ull << 30;
  cudaError_t init_error = cudaSuccess;
  Fault fail_malloc, fail_host_alloc, fail_memcpy, fail_event, lose_device;
  std::map<std::string, Curve> curves;  // "h2d/pinned", "d2h/pageable", "d2d/device"
  std::string link_label;
  std::string report;
  bool leaks_fatal = false;

  double copyMicros(Dir d, bool pinned, size_t bytes) const {
    std::string key = std::string(dirName(d)) + (d == Dir::D2D ? "/device" : pinned ? "/pinned" : "/pageable");
    auto found = curves.find(key);
    if (found == curves.end() && d == Dir::D2D) return 1.0 + double(bytes) / 1e6;  // 1 TB/s
    if (found == curves.end()) found = curves.find(std::string("h2d") + (pinned ? "/pinned" : "/pageable"));
    return found == curves.end() ? 0.0 : found->second.micros(double(bytes));
  }
};

Config loadConfig() {
  Config c;
  if (const char* n = std::getenv("PTESCOPE_STANDIN_DEVICES")) c.devices = std::max(0, std::atoi(n));
  c.memory = parseSize(std::getenv("PTESCOPE_STANDIN_MEMORY"), c.memory);
  if (const char* e = std::getenv("PTESCOPE_STANDIN_INIT_ERROR")) c.init_error = cudaError_t(std::atoi(e));
  c.fail_malloc = parseFault("PTESCOPE_STANDIN_FAIL_MALLOC", cudaErrorMemoryAllocation);
  c.fail_host_alloc = parseFault("PTESCOPE_STANDIN_FAIL_HOST_ALLOC", cudaErrorMemoryAllocation);
  c.fail_memcpy = parseFault("PTESCOPE_STANDIN_FAIL_MEMCPY", cudaErrorIllegalAddress);
  c.fail_event = parseFault("PTESCOPE_STANDIN_FAIL_EVENT", cudaErrorUnknown);
  c.lose_device = parseFault("PTESCOPE_STANDIN_LOSE_DEVICE", cudaErrorDevicesUnavailable);
  if (const char* r = std::getenv("PTESCOPE_STANDIN_REPORT")) c.report = r;
  if (const char* l = std::getenv("PTESCOPE_STANDIN_LEAKS")) c.leaks_fatal = std::string(l) == "fail";
  const char* link = std::getenv("PTESCOPE_STANDIN_LINK");
  if (link != nullptr && *link != '\0') {
    std::ifstream in(link);
    nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded() || !j.contains("curves")) {
      std::fprintf(stderr, "cudart stand-in: PTESCOPE_STANDIN_LINK=%s is not a link profile\n", link);
      std::_Exit(87);
    }
    c.link_label = j.value("name", std::string(link));
    for (const auto& curve : j["curves"]) {
      Curve parsed;
      for (const auto& p : curve["points"]) parsed.points.push_back({p["bytes"].get<double>(), p["us"].get<double>()});
      c.curves[curve["direction"].get<std::string>() + "/" + curve["host_memory"].get<std::string>()] = parsed;
    }
  } else {
    const char* g = std::getenv("PTESCOPE_STANDIN_GBPS");
    const char* l = std::getenv("PTESCOPE_STANDIN_LATENCY_US");
    const double gbps = g ? std::atof(g) : 25.0, latency = l ? std::atof(l) : 2.0;
    for (const char* d : {"h2d", "d2h"}) {
      c.curves[std::string(d) + "/pinned"] = Curve::line(latency, gbps);
      c.curves[std::string(d) + "/pageable"] = Curve::line(latency + 3, gbps / 2.5);
    }
    c.link_label = std::to_string(gbps) + " GB/s";
  }
  return c;
}

// ---- state ------------------------------------------------------------------

struct Event;

// Work queued on a stream runs at a synchronisation point, in order.
struct Op {
  enum Kind { Copy, Set, Record } kind = Copy;
  void* dst = nullptr;
  const void* src = nullptr;
  size_t bytes = 0;
  int value = 0;
  double micros = 0;
  Event* event = nullptr;
};

struct Stream {
  int device = 0;
  double clock_us = 0;
  std::deque<Op> pending;
};

struct Event {
  int device = 0;
  bool timing = true;
  bool recorded = false;
  bool complete = true;
  Stream* stream = nullptr;
  double time_us = 0;
};

struct Allocation {
  size_t bytes = 0;
  int device = -1;  // -1: pinned host memory
};

struct CopyTotals {
  long count = 0;
  uint64_t bytes = 0;
};

struct State {
  Config config;
  std::mutex mutex;
  std::map<uintptr_t, Allocation> allocations;  // by start address
  std::vector<uint64_t> used;                   // per device
  std::vector<uint64_t> peak;
  std::vector<long> mallocs;
  std::set<Stream*> streams;
  std::set<Event*> events;
  std::map<int, Stream*> default_streams;
  std::map<std::string, long> calls;
  std::map<std::string, CopyTotals> copies;  // "h2d pinned cuda:0"
  long malloc_calls = 0, host_alloc_calls = 0, copy_calls = 0, event_calls = 0;
  cudaError_t sticky = cudaSuccess;
  bool lose_armed = false;  // the lose-device copy ran: lost at its completion
  uint64_t pinned_bytes = 0;

  State() : config(loadConfig()) {
    used.assign(size_t(config.devices), 0);
    peak.assign(size_t(config.devices), 0);
    mallocs.assign(size_t(config.devices), 0);
  }
};

State& state() {
  static State* s = new State();  // never destroyed: see the exit handler
  return *s;
}

thread_local int tCurrent = 0;
thread_local cudaError_t tLast = cudaSuccess;

bool isSticky(cudaError_t code) {
  return code == cudaErrorIllegalAddress || code == cudaErrorLaunchFailure || code == cudaErrorDevicesUnavailable;
}

// Every entry point starts here: counts the call, and answers the configured
// initialisation error or a sticky error first.
cudaError_t enter(State& s, const char* call) {
  ++s.calls[call];
  if (s.config.init_error != cudaSuccess) return s.config.init_error;
  return s.sticky;
}

cudaError_t done(cudaError_t code) {
  if (code != cudaSuccess) tLast = code;
  return code;
}

cudaError_t fail(State& s, cudaError_t code, const char* call, const std::string& why) {
  std::fprintf(stderr, "cudart stand-in: %s: %s\n", call, why.c_str());
  if (isSticky(code)) s.sticky = code;
  return done(code);
}

// The allocation that holds [p, p + bytes), or nullptr.
const Allocation* findAllocation(State& s, const void* p, size_t bytes, uintptr_t* start = nullptr) {
  const auto address = reinterpret_cast<uintptr_t>(p);
  auto it = s.allocations.upper_bound(address);
  if (it == s.allocations.begin()) return nullptr;
  --it;
  if (address + bytes > it->first + it->second.bytes || address < it->first) return nullptr;
  if (start) *start = it->first;
  return &it->second;
}

void run(State& s, Stream& stream, Op& op) {
  if (op.kind == Op::Copy) std::memcpy(op.dst, op.src, op.bytes);
  if (op.kind == Op::Set) std::memset(op.dst, op.value, op.bytes);
  stream.clock_us += op.micros;
  if (op.kind == Op::Record && s.events.count(op.event)) {
    op.event->time_us = stream.clock_us;
    op.event->complete = true;
  }
}

// Runs the stream's queued work up to and including `until` (all of it when null).
void drain(State& s, Stream& stream, const Event* until = nullptr) {
  while (!stream.pending.empty()) {
    Op op = stream.pending.front();
    stream.pending.pop_front();
    run(s, stream, op);
    if (until != nullptr && op.kind == Op::Record && op.event == until) return;
  }
}

void drainAll(State& s) {
  for (Stream* stream : s.streams) drain(s, *stream);
  for (auto& [device, stream] : s.default_streams) drain(s, *stream);
}

Stream* streamOf(State& s, cudaStream_t handle) {
  if (handle == nullptr) {
    auto& stream = s.default_streams[tCurrent];
    if (stream == nullptr) stream = new Stream{tCurrent, 0, {}};
    return stream;
  }
  auto* stream = reinterpret_cast<Stream*>(handle);
  return s.streams.count(stream) ? stream : nullptr;
}

std::string hex(const void* p) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", p);
  return text;
}

// Where a pointer of a copy lives, checked against the copy's kind.
cudaError_t classifyCopy(State& s, void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, const char* call,
                         Dir* dir, bool* pinned, int* device) {
  const Allocation* d = findAllocation(s, dst, bytes);
  const Allocation* r = findAllocation(s, src, bytes);
  const bool dstDevice = d && d->device >= 0, srcDevice = r && r->device >= 0;
  // A pointer that starts inside device memory but runs past its end.
  for (const void* p : {static_cast<const void*>(dst), src}) {
    const Allocation* start = findAllocation(s, p, 1);
    if (start && start->device >= 0 && !findAllocation(s, p, bytes))
      return fail(s, cudaErrorInvalidValue, call, std::to_string(bytes) + " bytes at " + hex(p) + " run past the end of its device allocation");
  }
  if (kind == cudaMemcpyDefault)
    kind = dstDevice ? (srcDevice ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                     : (srcDevice ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
  auto wrongSide = [&](const void* p, const char* role, bool wantDevice) {
    return fail(s, cudaErrorInvalidValue, call,
                std::string(role) + " " + hex(p) + " is " + (wantDevice ? "not device memory" : "device memory") +
                    " but the kind is " + std::to_string(int(kind)));
  };
  switch (kind) {
    case cudaMemcpyHostToDevice:
      if (!dstDevice) return wrongSide(dst, "destination", true);
      if (srcDevice) return wrongSide(src, "source", false);
      *dir = Dir::H2D, *pinned = r != nullptr, *device = d->device;
      break;
    case cudaMemcpyDeviceToHost:
      if (!srcDevice) return wrongSide(src, "source", true);
      if (dstDevice) return wrongSide(dst, "destination", false);
      *dir = Dir::D2H, *pinned = d != nullptr, *device = r->device;
      break;
    case cudaMemcpyDeviceToDevice:
      if (!dstDevice) return wrongSide(dst, "destination", true);
      if (!srcDevice) return wrongSide(src, "source", true);
      *dir = Dir::D2D, *pinned = true, *device = d->device;
      break;
    case cudaMemcpyHostToHost:
      if (dstDevice) return wrongSide(dst, "destination", false);
      if (srcDevice) return wrongSide(src, "source", false);
      *dir = Dir::H2H, *pinned = d && r, *device = tCurrent;
      break;
    default: return fail(s, cudaErrorInvalidMemcpyDirection, call, "kind " + std::to_string(int(kind)));
  }
  return cudaSuccess;
}

// Counts one call of a kind; the fault's k-th one fails.
cudaError_t injected(State& s, long& counter, const Fault& f, const char* call, const char* what) {
  ++counter;
  if (f.at > 0 && counter == f.at)
    return fail(s, f.code, call, std::string("injected fault on ") + what + " " + std::to_string(f.at));
  return cudaSuccess;
}

void afterCopy(State& s) {
  const Fault& lose = s.config.lose_device;
  if (lose.at > 0 && s.copy_calls == lose.at) s.lose_armed = true;
}

// The device is lost once the lose-device copy completed (its time was read
// or its stream synchronised): every later call fails.
void completed(State& s) {
  if (!std::exchange(s.lose_armed, false)) return;
  std::fprintf(stderr, "cudart stand-in: injected fault: the device is lost after copy %ld\n", s.config.lose_device.at);
  s.sticky = s.config.lose_device.code;
}

cudaError_t copy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind, cudaStream_t handle, bool async,
                 const char* call) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (auto e = enter(s, call)) return done(e);
  Stream* stream = streamOf(s, handle);
  if (stream == nullptr) return fail(s, cudaErrorInvalidResourceHandle, call, "unknown stream " + hex(handle));
  if (bytes == 0) return cudaSuccess;
  if (dst == nullptr || src == nullptr) return fail(s, cudaErrorInvalidValue, call, "null pointer");
  Dir dir = Dir::H2H;
  bool pinned = false;
  int device = 0;
  if (auto e = classifyCopy(s, dst, src, bytes, kind, call, &dir, &pinned, &device)) return e;
  if (auto e = injected(s, s.copy_calls, s.config.fail_memcpy, call, "copy")) return e;
  // The stand-in is stricter than CUDA here: device memory of another device
  // than the stream's shows a stream or a cudaSetDevice mixed up.
  if (dir != Dir::H2H && device != stream->device)
    return fail(s, cudaErrorInvalidValue, call,
                "device memory of cuda:" + std::to_string(device) + " copied on a stream of cuda:" + std::to_string(stream->device));
  auto& totals = s.copies[std::string(dirName(dir)) + " " + (dir == Dir::D2D ? "device" : pinned ? "pinned" : "pageable") +
                          " cuda:" + std::to_string(device)];
  ++totals.count;
  totals.bytes += bytes;
  Op op{Op::Copy, dst, src, bytes, 0, s.config.copyMicros(dir, pinned, bytes), nullptr};
  // Pageable copies and cudaMemcpy return once the bytes moved (CUDA stages
  // pageable memory through its own pinned buffer); pinned ones run later.
  if (!async || !pinned || dir == Dir::H2H) {
    drain(s, *stream);
    run(s, *stream, op);
  } else {
    stream->pending.push_back(op);
  }
  afterCopy(s);
  return cudaSuccess;
}

void writeReport(State& s) {
  std::FILE* out = std::fopen(s.config.report.c_str(), "w");
  if (out == nullptr) return;
  std::fprintf(out, "{\n  \"runtime\": \"cudart stand-in (not a GPU)\",\n  \"link\": \"%s\",\n  \"devices\": %d,\n",
               s.config.link_label.c_str(), s.config.devices);
  std::fprintf(out, "  \"calls\": {");
  const char* sep = "";
  for (const auto& [name, count] : s.calls) std::fprintf(out, "%s\"%s\": %ld", std::exchange(sep, ", "), name.c_str(), count);
  std::fprintf(out, "},\n  \"copies\": {");
  sep = "";
  for (const auto& [key, t] : s.copies)
    std::fprintf(out, "%s\"%s\": {\"count\": %ld, \"bytes\": %llu}", std::exchange(sep, ", "), key.c_str(), t.count,
                 (unsigned long long)t.bytes);
  std::fprintf(out, "},\n  \"device_memory\": {");
  sep = "";
  for (int d = 0; d < s.config.devices; ++d)
    std::fprintf(out, "%s\"cuda:%d\": {\"mallocs\": %ld, \"peak_bytes\": %llu, \"leaked_bytes\": %llu}", std::exchange(sep, ", "),
                 d, s.mallocs[size_t(d)], (unsigned long long)s.peak[size_t(d)], (unsigned long long)s.used[size_t(d)]);
  std::fprintf(out, "},\n  \"leaked\": {\"pinned_bytes\": %llu, \"streams\": %zu, \"events\": %zu}\n}\n",
               (unsigned long long)s.pinned_bytes, s.streams.size(), s.events.size());
  std::fclose(out);
}

// At exit: the report, and the leak check.
struct ExitCheck {
  ~ExitCheck() {
    State& s = state();
    std::lock_guard lock(s.mutex);
    if (!s.config.report.empty()) writeReport(s);
    uint64_t device = 0;
    for (uint64_t u : s.used) device += u;
    if (device == 0 && s.pinned_bytes == 0 && s.streams.empty() && s.events.empty()) return;
    std::fprintf(stderr, "cudart stand-in: leak at exit: %llu bytes of device memory, %llu bytes of pinned memory, %zu stream(s), %zu event(s) not freed\n",
                 (unsigned long long)device, (unsigned long long)s.pinned_bytes, s.streams.size(), s.events.size());
    if (!s.config.leaks_fatal) return;
    std::fflush(nullptr);  // what the program printed still arrives
    _exit(86);
  }
} gExitCheck;

}  // namespace

extern "C" {

// For in-process tests: device bytes allocated now on `device` (-1: pinned host bytes).
__attribute__((visibility("default"))) unsigned long long ptescope_standin_live_bytes(int device) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (device < 0) return s.pinned_bytes;
  return device < s.config.devices ? s.used[size_t(device)] : 0;
}

}  // extern "C"

// ---- the CUDA runtime API -----------------------------------------------------

const char* CUDARTAPI cudaGetErrorName(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInitializationError: return "cudaErrorInitializationError";
    case cudaErrorInsufficientDriver: return "cudaErrorInsufficientDriver";
    case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorDevicesUnavailable: return "cudaErrorDevicesUnavailable";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorNotReady: return "cudaErrorNotReady";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    case cudaErrorUnknown: return "cudaErrorUnknown";
    default: return "cudaErrorUnknown";
  }
}

// The runtime's own wording, with "(cudart stand-in)" so that no message
// read under the stand-in passes for a GPU's.
const char* CUDARTAPI cudaGetErrorString(cudaError_t error) {
  switch (error) {
    case cudaSuccess: return "no error (cudart stand-in)";
    case cudaErrorInvalidValue: return "invalid argument (cudart stand-in)";
    case cudaErrorMemoryAllocation: return "out of memory (cudart stand-in)";
    case cudaErrorInitializationError: return "initialization error (cudart stand-in)";
    case cudaErrorInsufficientDriver: return "CUDA driver version is insufficient for CUDA runtime version (cudart stand-in)";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy (cudart stand-in)";
    case cudaErrorDevicesUnavailable: return "CUDA-capable device(s) is/are busy or unavailable (cudart stand-in)";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected (cudart stand-in)";
    case cudaErrorInvalidDevice: return "invalid device ordinal (cudart stand-in)";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle (cudart stand-in)";
    case cudaErrorNotReady: return "device not ready (cudart stand-in)";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered (cudart stand-in)";
    case cudaErrorLaunchFailure: return "unspecified launch failure (cudart stand-in)";
    default: return "unknown error (cudart stand-in)";
  }
}

cudaError_t CUDARTAPI cudaGetLastError(void) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  ++s.calls["cudaGetLastError"];
  if (s.config.init_error != cudaSuccess) return s.config.init_error;
  if (s.sticky != cudaSuccess) return s.sticky;
  return std::exchange(tLast, cudaSuccess);
}

cudaError_t CUDARTAPI cudaGetDeviceCount(int* count) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (count == nullptr) return done(cudaErrorInvalidValue);
  *count = 0;
  if (auto e = enter(s, "cudaGetDeviceCount")) return done(e);
  if (s.config.devices == 0) return done(cudaErrorNoDevice);
  *count = s.config.devices;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (auto e = enter(s, "cudaGetDeviceProperties")) return done(e);
  if (prop == nullptr) return done(cudaErrorInvalidValue);
  if (device < 0 || device >= s.config.devices) return done(cudaErrorInvalidDevice);
  *prop = cudaDeviceProp{};
  std::snprintf(prop->name, sizeof prop->name, "cudart stand-in (not a GPU) #%d", device);
  prop->totalGlobalMem = s.config.memory;
  prop->major = 9;
  prop->warpSize = 32;
  prop->pciDeviceID = device;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaSetDevice(int device) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (auto e = enter(s, "cudaSetDevice")) return done(e);
  if (device < 0 || device >= s.config.devices) return done(cudaErrorInvalidDevice);
  tCurrent = device;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGetDevice(int* device) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (auto e = enter(s, "cudaGetDevice")) return done(e);
  if (device == nullptr) return done(cudaErrorInvalidValue);
  *device = tCurrent;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMemGetInfo(size_t* freeBytes, size_t* totalBytes) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (auto e = enter(s, "cudaMemGetInfo")) return done(e);
  if (freeBytes == nullptr || totalBytes == nullptr) return done(cudaErrorInvalidValue);
  *totalBytes = s.config.memory;
  *freeBytes = s.config.memory - s.used[size_t(tCurrent)];
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMalloc(void** devPtr, size_t size) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (auto e = enter(s, "cudaMalloc")) return done(e);
  if (devPtr == nullptr) return done(cudaErrorInvalidValue);
  *devPtr = nullptr;
  if (auto e = injected(s, s.malloc_calls, s.config.fail_malloc, "cudaMalloc", "allocation")) return e;
  const size_t d = size_t(tCurrent);
  if (size > s.config.memory - s.used[d]) return done(cudaErrorMemoryAllocation);
  // 256-byte aligned as cudaMalloc's; host memory, so the sanitizers see it.
  void* data = std::aligned_alloc(256, (std::max<size_t>(size, 1) + 255) / 256 * 256);
  if (data == nullptr) return done(cudaErrorMemoryAllocation);
  s.allocations[reinterpret_cast<uintptr_t>(data)] = Allocation{size, tCurrent};
  s.used[d] += size;
  s.peak[d] = std::max(s.peak[d], s.used[d]);
  ++s.mallocs[d];
  *devPtr = data;
  return cudaSuccess;
}

// Frees release the memory even under a sticky error (so that the leak check
// sees that ptescope freed it) but answer the error, as CUDA does; both
// synchronise the device first.
static cudaError_t release(void* p, bool device, const char* call) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  const cudaError_t pending = enter(s, call);
  if (p == nullptr) return done(pending);
  drainAll(s);
  auto it = s.allocations.find(reinterpret_cast<uintptr_t>(p));
  if (it == s.allocations.end() || (it->second.device >= 0) != device)
    return fail(s, cudaErrorInvalidValue, call,
                hex(p) + " is not the start of a " + (device ? "cudaMalloc" : "cudaHostAlloc") + " allocation");
  (device ? s.used[size_t(it->second.device)] : s.pinned_bytes) -= it->second.bytes;
  s.allocations.erase(it);
  std::free(p);
  return done(pending);
}

cudaError_t CUDARTAPI cudaFree(void* devPtr) { return release(devPtr, true, "cudaFree"); }

cudaError_t CUDARTAPI cudaHostAlloc(void** pHost, size_t size, unsigned int flags) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (auto e = enter(s, "cudaHostAlloc")) return done(e);
  if (pHost == nullptr || flags > 0xf) return done(cudaErrorInvalidValue);
  *pHost = nullptr;
  if (auto e = injected(s, s.host_alloc_calls, s.config.fail_host_alloc, "cudaHostAlloc", "pinned allocation")) return e;
  void* data = std::aligned_alloc(4096, (std::max<size_t>(size, 1) + 4095) / 4096 * 4096);
  if (data == nullptr) return done(cudaErrorMemoryAllocation);
  s.allocations[reinterpret_cast<uintptr_t>(data)] = Allocation{size, -1};
  s.pinned_bytes += size;
  *pHost = data;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaFreeHost(void* ptr) { return release(ptr, false, "cudaFreeHost"); }

cudaError_t CUDARTAPI cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream) {
  return copy(dst, src, count, kind, stream, true, "cudaMemcpyAsync");
}

cudaError_t CUDARTAPI cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  return copy(dst, src, count, kind, nullptr, false, "cudaMemcpy");
}

cudaError_t CUDARTAPI cudaMemsetAsync(void* devPtr, int value, size_t count, cudaStream_t handle) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (auto e = enter(s, "cudaMemsetAsync")) return done(e);
  Stream* stream = streamOf(s, handle);
  if (stream == nullptr) return fail(s, cudaErrorInvalidResourceHandle, "cudaMemsetAsync", "unknown stream " + hex(handle));
  if (count == 0) return cudaSuccess;
  const Allocation* a = findAllocation(s, devPtr, count);
  if (a == nullptr || a->device < 0)
    return fail(s, cudaErrorInvalidValue, "cudaMemsetAsync", std::to_string(count) + " bytes at " + hex(devPtr) + " are not device memory");
  stream->pending.push_back(Op{Op::Set, devPtr, nullptr, count, value, 1.0 + double(count) / 1e6, nullptr});
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaStreamCreateWithFlags(cudaStream_t* pStream, unsigned int flags) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (auto e = enter(s, "cudaStreamCreateWithFlags")) return done(e);
  if (pStream == nullptr || flags > cudaStreamNonBlocking) return done(cudaErrorInvalidValue);
  auto* stream = new Stream{tCurrent, 0, {}};
  s.streams.insert(stream);
  *pStream = reinterpret_cast<cudaStream_t>(stream);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaStreamSynchronize(cudaStream_t handle) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (auto e = enter(s, "cudaStreamSynchronize")) return done(e);
  Stream* stream = streamOf(s, handle);
  if (stream == nullptr) return fail(s, cudaErrorInvalidResourceHandle, "cudaStreamSynchronize", "unknown stream " + hex(handle));
  drain(s, *stream);
  completed(s);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaStreamDestroy(cudaStream_t handle) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  const cudaError_t pending = enter(s, "cudaStreamDestroy");
  auto* stream = reinterpret_cast<Stream*>(handle);
  if (handle == nullptr || !s.streams.count(stream))
    return fail(s, cudaErrorInvalidResourceHandle, "cudaStreamDestroy", "unknown stream " + hex(handle));
  drain(s, *stream);  // queued work still completes
  for (Event* e : s.events)
    if (e->stream == stream) e->stream = nullptr;
  s.streams.erase(stream);
  delete stream;
  return done(pending);
}

cudaError_t CUDARTAPI cudaEventCreate(cudaEvent_t* event) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (auto e = enter(s, "cudaEventCreate")) return done(e);
  if (event == nullptr) return done(cudaErrorInvalidValue);
  auto* created = new Event{};
  created->device = tCurrent;
  s.events.insert(created);
  *event = reinterpret_cast<cudaEvent_t>(created);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaEventDestroy(cudaEvent_t handle) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  const cudaError_t pending = enter(s, "cudaEventDestroy");
  auto* event = reinterpret_cast<Event*>(handle);
  if (handle == nullptr || !s.events.count(event))
    return fail(s, cudaErrorInvalidResourceHandle, "cudaEventDestroy", "unknown event " + hex(handle));
  s.events.erase(event);
  delete event;
  return done(pending);
}

cudaError_t CUDARTAPI cudaEventRecord(cudaEvent_t handle, cudaStream_t streamHandle) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (auto e = enter(s, "cudaEventRecord")) return done(e);
  auto* event = reinterpret_cast<Event*>(handle);
  if (!s.events.count(event)) return fail(s, cudaErrorInvalidResourceHandle, "cudaEventRecord", "unknown event " + hex(handle));
  Stream* stream = streamOf(s, streamHandle);
  if (stream == nullptr) return fail(s, cudaErrorInvalidResourceHandle, "cudaEventRecord", "unknown stream " + hex(streamHandle));
  if (stream->device != event->device)
    return fail(s, cudaErrorInvalidResourceHandle, "cudaEventRecord",
                "event of cuda:" + std::to_string(event->device) + " recorded on a stream of cuda:" + std::to_string(stream->device));
  if (auto e = injected(s, s.event_calls, s.config.fail_event, "cudaEventRecord", "event call")) return e;
  event->recorded = true;
  event->stream = stream;
  if (stream->pending.empty()) {
    event->complete = true;
    event->time_us = stream->clock_us;
  } else {
    event->complete = false;
    stream->pending.push_back(Op{Op::Record, nullptr, nullptr, 0, 0, 0, event});
  }
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaEventSynchronize(cudaEvent_t handle) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (auto e = enter(s, "cudaEventSynchronize")) return done(e);
  auto* event = reinterpret_cast<Event*>(handle);
  if (!s.events.count(event)) return fail(s, cudaErrorInvalidResourceHandle, "cudaEventSynchronize", "unknown event " + hex(handle));
  if (auto e = injected(s, s.event_calls, s.config.fail_event, "cudaEventSynchronize", "event call")) return e;
  if (!event->complete && event->stream != nullptr) drain(s, *event->stream, event);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  State& s = state();
  std::lock_guard lock(s.mutex);
  if (auto e = enter(s, "cudaEventElapsedTime")) return done(e);
  auto* a = reinterpret_cast<Event*>(start);
  auto* b = reinterpret_cast<Event*>(end);
  if (ms == nullptr) return done(cudaErrorInvalidValue);
  if (!s.events.count(a) || !s.events.count(b))
    return fail(s, cudaErrorInvalidResourceHandle, "cudaEventElapsedTime", "unknown event");
  if (auto e = injected(s, s.event_calls, s.config.fail_event, "cudaEventElapsedTime", "event call")) return e;
  if (!a->recorded || !b->recorded)
    return fail(s, cudaErrorInvalidResourceHandle, "cudaEventElapsedTime", "an event was never recorded");
  if (!a->complete || !b->complete)
    return fail(s, cudaErrorNotReady, "cudaEventElapsedTime", "an event has not completed (no synchronisation)");
  *ms = float((b->time_us - a->time_us) / 1000.0);
  completed(s);
  return cudaSuccess;
}
