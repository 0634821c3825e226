// cortex_m:: operators (upstream backends/cortex_m/ops/operators.yaml at the
// spec's commit): the int8 kernels a Cortex-M export runs through CMSIS-NN,
// with the arithmetic of CmsisNnMath.h and the argument checks of upstream's
// op_*.cpp. Argument layouts are the schemas' (outs last, then the out
// again, as upstream's emitter writes them); the generated unboxing counts
// them, and a different count is refused as the runtime refuses it.
//
// Tensors are read as upstream's kernels read them: raw memory, activations
// NHWC (a 4-D tensor must be channels_last, or ambiguous: one channel or a
// 1x1 image), conv weights OHWI. Where upstream's kernel or CMSIS-NN fails
// (ET_CHECK / context.fail / a CMSIS-NN argument error) the run stops with
// that reason. Where the device would compute from memory nobody wrote
// (an empty pooling window, a transposed convolution whose row scatter
// leaves output rows unwritten) the instruction is reported as not
// executed instead of inventing numbers.
//
// Differences from the device that are on purpose: quantized_linear's
// kernel_sum (a precomputed sum the Helium build reads instead of summing
// the weights itself) is ignored, which gives the same numbers; scratch
// buffers are not used (the portable arithmetic needs none) except that
// CMSIS-NN's refusal of an absent one is reproduced.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>

#include "exec/kernels/CmsisNnMath.h"
#include "exec/kernels/KernelSupport.h"

namespace ptescope::exec::kernels {
namespace {

using cmsis::Activation;

// ---- helpers ----------------------------------------------------------------

const int8_t* bytesOf(const Operand& t) { return reinterpret_cast<const int8_t*>(t.tensor->data); }
int8_t* writable(const Operand& t) { return reinterpret_cast<int8_t*>(t.tensor->data); }

std::vector<int32_t> int32Values(const Operand& t) {
  std::vector<int32_t> v(size_t(t.numel()));
  if (!v.empty()) std::memcpy(v.data(), t.tensor->data, v.size() * sizeof(int32_t));
  return v;
}

bool channelsLast(const Operand& t) {
  if (t.rank() != 4) return false;
  if (t.size(1) == 1 || (t.size(2) == 1 && t.size(3) == 1)) return true;
  return !t.tensor->default_dim_order && t.tensor->dim_order == std::vector<int64_t>{0, 2, 3, 1};
}

std::string dtypeName(ScalarType type) { return program::scalarTypeShortName(type); }

// "(0, 1, 2, 3) (contiguous)" / "(0, 2, 3, 1)".
std::string dimOrderText(const Operand& t) {
  std::vector<int64_t> order = t.tensor->dim_order;
  const bool identity = t.tensor->default_dim_order || order.empty();
  if (identity) {
    order.clear();
    for (size_t d = 0; d < t.rank(); ++d) order.push_back(int64_t(d));
  }
  std::string text = "(";
  for (size_t i = 0; i < order.size(); ++i) text += (i ? ", " : "") + std::to_string(order[i]);
  text += ")";
  bool contiguous = true;
  for (size_t i = 0; i < order.size(); ++i) contiguous = contiguous && order[i] == int64_t(i);
  return contiguous ? text + " (contiguous)" : text;
}

bool inInt32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

// The generated unboxing: schema arguments + the return slot.
std::optional<KernelResult> checkArgCount(KernelContext& ctx, const char* op, size_t schemaArgs) {
  if (ctx.argCount() != schemaArgs + 1)
    return KernelResult(makeError(std::string(op) + ": Expected " + std::to_string(schemaArgs + 1) + " args received " +
                                  std::to_string(ctx.argCount())));
  return std::nullopt;
}

// ---- older schemas -------------------------------------------------------------
//
// Exports made with an earlier cortex_m:: operator version carry fewer
// arguments (upstream backends/cortex_m/ops/operators.yaml, git history):
// the scratch buffers CMSIS-NN needs were planned ahead of time from
// b581615fa8 (2026-05-26, "Cortex-M backend: Add AoT scratch-buffer
// planning", #19636) and 23b6ba0483 (2026-06-09, "plan avg_pool2d scratch
// buffer AoT", #19825); before, the kernel allocated its scratch from the
// runtime's temp allocator, with the same arithmetic. avg_pool2d gained
// ceil_mode at 2cce41f9bf (2026-07-23, "Support avg_pool2d ceil_mode
// lowering", #21039); before it was always floor. quantized_add gained
// activation_min/max at 6fccd5ae12; before, it clamped to int8's range. Such
// programs run with the missing arguments at those values.

// One schema of an operator: the argument count an export writes (schema
// arguments + the return slot) and, for an older one, what it lacks and the
// upstream change that added it.
struct SchemaVersion {
  size_t args;
  const char* lacks = nullptr;
  const char* change = nullptr;
};

constexpr const char* kScratchPlanning = "b581615fa8 (2026-05-26, \"Cortex-M backend: Add AoT scratch-buffer planning\", #19636)";
constexpr const char* kAvgPoolScratch = "23b6ba0483 (2026-06-09, \"Cortex-M backend: plan avg_pool2d scratch buffer AoT\", #19825)";
constexpr const char* kAddActivation = "6fccd5ae12 (2026-03-27, \"Cortex-M: Fuse relu activation into quantized_add\", #18462)";
constexpr const char* kAvgPoolCeil = "2cce41f9bf (2026-07-23, \"Cortex-M: Support avg_pool2d ceil_mode lowering\", #21039)";

// Which of `versions` (the current schema first) the call's argument count
// matches; otherwise an error that lists every version with its count.
Result<size_t> matchSchema(KernelContext& ctx, const char* op, std::initializer_list<SchemaVersion> versions) {
  size_t index = 0;
  for (const auto& v : versions) {
    if (ctx.argCount() == v.args) return index;
    ++index;
  }
  std::string message = std::string(op) + ": " + std::to_string(ctx.argCount()) +
                        " arguments match no version of its schema: upstream cff6f4dd's takes " +
                        std::to_string(versions.begin()->args) + " (the schema's arguments and the return slot)";
  for (auto v = versions.begin() + 1; v != versions.end(); ++v)
    message += std::string("; the version before ") + v->change + " takes " + std::to_string(v->args) + " (without " + v->lacks + ")";
  return makeError(message);
}

// Checks every tensor is int8; names the first that is not.
std::optional<KernelResult> requireInt8(Args& a, const char* op, std::initializer_list<std::pair<const Operand*, size_t>> list) {
  for (const auto& [t, arg] : list)
    if (t->dtype() != ScalarType::Char)
      return a.fail(std::string(op) + ": " + a.name(arg) + " must be int8, got " + dtypeName(t->dtype()));
  return std::nullopt;
}

// Multiplier in int32 and shift in [-31, 31] (validate_single_quant_params).
std::optional<KernelResult> checkQuantParams(Args& a, const char* op, const char* what, int64_t multiplier, int64_t shift) {
  if (!inInt32(multiplier))
    return a.fail(std::string(op) + ": " + what + " multiplier " + std::to_string(multiplier) + " is outside int32");
  if (shift < -31 || shift > 31)
    return a.fail(std::string(op) + ": " + what + " shift " + std::to_string(shift) + " is outside [-31, 31]");
  return std::nullopt;
}

// Per-channel requantization tensors (int32, one entry per output channel,
// multipliers in (INT32_MIN, INT32_MAX], shifts in [-31, 30]).
struct PerChannel {
  std::vector<int32_t> multipliers, shifts;
};
std::optional<KernelResult> readPerChannel(Args& a, const char* op, const Operand& m, size_t mArg, const Operand& s,
                                           size_t sArg, int64_t channels, PerChannel& out) {
  if (m.dtype() != ScalarType::Int || s.dtype() != ScalarType::Int)
    return a.fail(std::string(op) + ": requantize multipliers " + a.name(mArg) + " and shifts " + a.name(sArg) +
                  " must be int32, got " + dtypeName(m.dtype()) + " and " + dtypeName(s.dtype()));
  if (m.rank() < 1 || s.rank() < 1 || m.size(0) != channels || s.size(0) != channels || m.numel() != channels ||
      s.numel() != channels)
    return a.fail(std::string(op) + ": requantize multipliers " + shapeText(m.sizes()) + " and shifts " +
                  shapeText(s.sizes()) + " must hold one entry per output channel (" + std::to_string(channels) + ")");
  out.multipliers = int32Values(m);
  out.shifts = int32Values(s);
  for (int64_t c = 0; c < channels; ++c) {
    if (out.multipliers[size_t(c)] == INT32_MIN)
      return a.fail(std::string(op) + ": requantize multiplier [" + std::to_string(c) + "] is INT32_MIN, outside CMSIS-NN's range");
    if (out.shifts[size_t(c)] < -31 || out.shifts[size_t(c)] > 30)
      return a.fail(std::string(op) + ": requantize shift [" + std::to_string(c) + "] = " +
                    std::to_string(out.shifts[size_t(c)]) + " is outside [-31, 30]");
  }
  return std::nullopt;
}

std::optional<KernelResult> checkActivation(Args& a, const char* op, int64_t lo, int64_t hi) {
  if (!inInt32(lo) || !inInt32(hi)) return a.fail(std::string(op) + ": activation limits must fit int32");
  if (lo > hi)
    return a.fail(std::string(op) + ": activation_min " + std::to_string(lo) + " is greater than activation_max " +
                  std::to_string(hi));
  return std::nullopt;
}

std::optional<KernelResult> checkPairs(Args& a, const char* op, std::initializer_list<std::pair<const std::vector<int64_t>*, const char*>> lists) {
  for (const auto& [list, name] : lists) {
    if (list->size() != 2) return a.fail(std::string(op) + ": " + name + " must have 2 entries, got " + std::to_string(list->size()));
    for (int64_t v : *list)
      if (!inInt32(v)) return a.fail(std::string(op) + ": " + name + " entry " + std::to_string(v) + " is outside int32");
  }
  return std::nullopt;
}

std::optional<KernelResult> checkBias(Args& a, const char* op, const std::optional<Operand>& bias, size_t arg, int64_t channels) {
  if (!bias) return std::nullopt;
  if (bias->dtype() != ScalarType::Int) return a.fail(std::string(op) + ": bias " + a.name(arg) + " must be int32, got " + dtypeName(bias->dtype()));
  if (bias->numel() < channels)
    return a.fail(std::string(op) + ": bias " + a.name(arg) + " has " + std::to_string(bias->numel()) + " entries for " +
                  std::to_string(channels) + " output channels");
  return std::nullopt;
}

#define CM_TRY(expr)                  \
  if (auto failure_ = (expr)) return *failure_

// The index of the schema version the call matches (see matchSchema), or return its error.
#define CM_SCHEMA(var, ...)                                  \
  const auto var##_ = matchSchema(ctx, op, {__VA_ARGS__});   \
  if (!var##_) return KernelResult(var##_.error());          \
  const size_t var = *var##_

// ---- quantize / dequantize ---------------------------------------------------

std::optional<KernelResult> checkQuantRange(Args& a, const char* op, ScalarType dtype, int64_t qmin, int64_t qmax) {
  const int64_t lower = dtype == ScalarType::Char ? INT8_MIN : INT16_MIN;
  const int64_t upper = dtype == ScalarType::Char ? INT8_MAX : INT16_MAX;
  if (qmin < lower) return a.fail(std::string(op) + ": quant_min " + std::to_string(qmin) + " is below " + std::to_string(lower));
  if (qmax > upper) return a.fail(std::string(op) + ": quant_max " + std::to_string(qmax) + " is above " + std::to_string(upper));
  return std::nullopt;
}

// The float -> int32 conversion of the device (saturating; NaN gives 0).
int32_t toInt32Saturating(float v) {
  if (std::isnan(v)) return 0;
  if (v >= 2147483648.0f) return INT32_MAX;
  if (v < -2147483648.0f) return INT32_MIN;
  return int32_t(v);
}

// quantize_per_tensor.out(input, scale, zero_point, quant_min, quant_max, dtype, *, out)
KernelResult quantizePerTensor(KernelContext& ctx) {
  constexpr const char* op = "cortex_m::quantize_per_tensor";
  CM_TRY(checkArgCount(ctx, op, 7));
  Args a(ctx);
  auto input = a.inAnyLayout(0);
  const double scale = a.scalar(1);
  const int64_t zeroPoint = a.integer(2), qmin = a.integer(3), qmax = a.integer(4), dtypeCode = a.integer(5);
  auto out = a.outAnyLayout(6);
  if (a.failed()) return a.outcome();
  if (auto status = resize(out, input.sizes()); !status) return status.error();
  if (input.dtype() != ScalarType::Float) return a.fail(std::string(op) + ": input " + a.name(0) + " must be float32, got " + dtypeName(input.dtype()));
  const auto dtype = ScalarType(int8_t(dtypeCode));
  if (dtype != ScalarType::Char && dtype != ScalarType::Short)
    return a.fail(std::string(op) + ": dtype " + std::to_string(dtypeCode) + " is not int8 or int16");
  if (out.dtype() != dtype) return a.fail(std::string(op) + ": out " + a.name(6) + " is " + dtypeName(out.dtype()) + ", not the requested " + dtypeName(dtype));
  CM_TRY(checkQuantRange(a, op, dtype, qmin, qmax));
  const float inverse = 1.0f / float(scale);
  const int32_t zp = int32_t(zeroPoint), lo = int32_t(qmin), hi = int32_t(qmax);
  const auto* src = reinterpret_cast<const uint8_t*>(input.tensor->data);
  KernelCancelPoll cancelled;
  for (int64_t i = 0; i < input.numel() && !cancelled(); ++i) {
    float value;
    std::memcpy(&value, src + i * 4, 4);
    const int32_t rounded = toInt32Saturating(std::nearbyint(inverse * value));
    int32_t q = int32_t(uint32_t(zp) + uint32_t(rounded));
    q = std::min(std::max(q, lo), hi);
    if (dtype == ScalarType::Char) {
      writable(out)[i] = int8_t(q);
    } else {
      const int16_t s = int16_t(q);
      std::memcpy(out.tensor->data + i * 2, &s, 2);
    }
  }
  return KernelOutcome::done();
}

// dequantize_per_tensor.out(input, scale, zero_point, quant_min, quant_max, dtype, *, out)
KernelResult dequantizePerTensor(KernelContext& ctx) {
  constexpr const char* op = "cortex_m::dequantize_per_tensor";
  CM_TRY(checkArgCount(ctx, op, 7));
  Args a(ctx);
  auto input = a.inAnyLayout(0);
  const double scale = a.scalar(1);
  const int64_t zeroPoint = a.integer(2), qmin = a.integer(3), qmax = a.integer(4), dtypeCode = a.integer(5);
  auto out = a.outAnyLayout(6);
  if (a.failed()) return a.outcome();
  if (auto status = resize(out, input.sizes()); !status) return status.error();
  const auto dtype = ScalarType(int8_t(dtypeCode));
  if (dtype != ScalarType::Char && dtype != ScalarType::Short)
    return a.fail(std::string(op) + ": dtype " + std::to_string(dtypeCode) + " is not int8 or int16");
  if (input.dtype() != dtype) return a.fail(std::string(op) + ": input " + a.name(0) + " is " + dtypeName(input.dtype()) + ", not the declared " + dtypeName(dtype));
  if (zeroPoint < qmin || zeroPoint > qmax)
    return a.fail(std::string(op) + ": zero_point " + std::to_string(zeroPoint) + " is outside [quant_min, quant_max] = [" +
                  std::to_string(qmin) + ", " + std::to_string(qmax) + "]");
  if (out.dtype() != ScalarType::Float) return a.fail(std::string(op) + ": out " + a.name(6) + " must be float32, got " + dtypeName(out.dtype()));
  CM_TRY(checkQuantRange(a, op, dtype, qmin, qmax));
  const float s = float(scale);
  const int32_t zp = int32_t(zeroPoint);
  KernelCancelPoll cancelled;
  for (int64_t i = 0; i < input.numel() && !cancelled(); ++i) {
    int32_t q;
    if (dtype == ScalarType::Char) {
      q = bytesOf(input)[i];
    } else {
      int16_t v;
      std::memcpy(&v, input.tensor->data + i * 2, 2);
      q = v;
    }
    const float value = float(q - zp) * s;
    std::memcpy(out.tensor->data + i * 4, &value, 4);
  }
  return KernelOutcome::done();
}

// ---- elementwise -------------------------------------------------------------

// Same sizes, or the channel broadcast of a 4-D [N, C, H, W] tensor with a
// [.., C, ..] one holding only C elements (added per pixel of the NHWC data).
struct ElementwisePlan {
  bool channelBroadcast = false;
  bool swap = false;       // the second operand is the large one
  int64_t perLoop = 0;     // elements per CMSIS-NN call
};

std::optional<KernelResult> planElementwise(Args& a, const char* op, const Operand& x, size_t xArg, const Operand& y, size_t yArg,
                                            const Operand& out, size_t outArg, ElementwisePlan& plan) {
  CM_TRY(requireInt8(a, op, {{&x, xArg}, {&y, yArg}, {&out, outArg}}));
  plan.channelBroadcast = x.rank() == 4 && y.rank() == 4 && x.size(1) == y.size(1) &&
                          (x.numel() == x.size(1) || y.numel() == y.size(1));
  if (!plan.channelBroadcast) {
    if (x.sizes() != y.sizes() || out.sizes() != x.sizes())
      return a.fail(std::string(op) + ": inputs " + shapeText(x.sizes()) + " and " + shapeText(y.sizes()) + " and out " +
                    shapeText(out.sizes()) + " must have the same sizes (or broadcast over channels)");
    plan.perLoop = out.numel();
    return std::nullopt;
  }
  plan.swap = x.numel() < y.numel();
  plan.perLoop = x.size(1);
  const Operand& big = plan.swap ? y : x;
  if (out.numel() > big.numel())
    return a.fail(std::string(op) + ": out " + shapeText(out.sizes()) + " is larger than the broadcast input " + shapeText(big.sizes()));
  if (plan.perLoop > 0 && out.numel() % plan.perLoop != 0)
    return a.fail(std::string(op) + ": out " + shapeText(out.sizes()) + " is not a whole number of channel vectors");
  return std::nullopt;
}

// quantized_add.out(self, self_zero_point, self_multiplier, self_shift, other, other_zero_point,
//   other_multiplier, other_shift, output_zero_point, output_multiplier, output_shift,
//   activation_min, activation_max, *, out)
KernelResult quantizedAdd(KernelContext& ctx) {
  constexpr const char* op = "cortex_m::quantized_add";
  // The version before the fused activation clamps to int8's range (out at 11).
  CM_SCHEMA(version, {15}, {13, "activation_min and activation_max", kAddActivation});
  const size_t outArg = version == 0 ? 13 : 11;
  Args a(ctx);
  auto x = a.inAnyLayout(0);
  int64_t xz = a.integer(1), xm = a.integer(2), xs = a.integer(3);
  auto y = a.inAnyLayout(4);
  int64_t yz = a.integer(5), ym = a.integer(6), ys = a.integer(7);
  const int64_t oz = a.integer(8), om = a.integer(9), os = a.integer(10);
  const int64_t lo = version == 0 ? a.integer(11) : INT8_MIN, hi = version == 0 ? a.integer(12) : INT8_MAX;
  auto out = a.outAnyLayout(outArg);
  if (a.failed()) return a.outcome();
  ElementwisePlan plan;
  CM_TRY(planElementwise(a, op, x, 0, y, 4, out, outArg, plan));
  CM_TRY(checkQuantParams(a, op, "input 1", xm, xs));
  CM_TRY(checkQuantParams(a, op, "input 2", ym, ys));
  CM_TRY(checkQuantParams(a, op, "output", om, os));
  const int8_t* px = bytesOf(x);
  const int8_t* py = bytesOf(y);
  if (plan.swap) {
    std::swap(px, py);
    std::swap(xz, yz);
    std::swap(xm, ym);
    std::swap(xs, ys);
  }
  const Activation act{int32_t(lo), int32_t(hi)};
  for (int64_t at = 0; at < out.numel(); at += std::max<int64_t>(plan.perLoop, 1))
    cmsis::add(plan.perLoop, px + at, -int32_t(xz), int32_t(xm), int32_t(xs), py, -int32_t(yz), int32_t(ym), int32_t(ys), 20,
               int32_t(oz), int32_t(om), int32_t(os), act, writable(out) + at);
  return KernelOutcome::done();
}

// quantized_mul.out(self, self_zero_point, other, other_zero_point, output_zero_point,
//   output_multiplier, output_shift, *, out)
KernelResult quantizedMul(KernelContext& ctx) {
  constexpr const char* op = "cortex_m::quantized_mul";
  CM_TRY(checkArgCount(ctx, op, 8));
  Args a(ctx);
  auto x = a.inAnyLayout(0);
  int64_t xz = a.integer(1);
  auto y = a.inAnyLayout(2);
  int64_t yz = a.integer(3);
  const int64_t oz = a.integer(4), om = a.integer(5), os = a.integer(6);
  auto out = a.outAnyLayout(7);
  if (a.failed()) return a.outcome();
  ElementwisePlan plan;
  CM_TRY(planElementwise(a, op, x, 0, y, 2, out, 7, plan));
  CM_TRY(checkQuantParams(a, op, "output", om, os));
  const int8_t* px = bytesOf(x);
  const int8_t* py = bytesOf(y);
  if (plan.swap) {
    std::swap(px, py);
    std::swap(xz, yz);
  }
  for (int64_t at = 0; at < out.numel(); at += std::max<int64_t>(plan.perLoop, 1))
    cmsis::multiply(plan.perLoop, px + at, -int32_t(xz), py, -int32_t(yz), int32_t(oz), int32_t(om), int32_t(os), {-128, 127},
                    writable(out) + at);
  return KernelOutcome::done();
}

// quantized_div.out(self, self_zero_point, other, other_zero_point, output_zero_point, output_scale, *, out):
// float arithmetic, q = clamp(round((a - za) / (b - zb) * scale) + zo); 0 / 0 gives the zero point.
KernelResult quantizedDiv(KernelContext& ctx) {
  constexpr const char* op = "cortex_m::quantized_div";
  CM_TRY(checkArgCount(ctx, op, 7));
  Args a(ctx);
  auto x = a.inAnyLayout(0);
  const int64_t xz = a.integer(1);
  auto y = a.inAnyLayout(2);
  const int64_t yz = a.integer(3), oz = a.integer(4);
  const double scale = a.scalar(5);
  auto out = a.outAnyLayout(6);
  if (a.failed()) return a.outcome();
  const ScalarType dtype = out.dtype();
  if (dtype != ScalarType::Char && dtype != ScalarType::Short)
    return a.fail(std::string(op) + ": out " + a.name(6) + " must be int8 or int16, got " + dtypeName(dtype));
  if (x.dtype() != dtype || y.dtype() != dtype)
    return a.fail(std::string(op) + ": inputs must have out's dtype " + dtypeName(dtype));
  if (x.sizes() != y.sizes() || out.sizes() != x.sizes())
    return a.fail(std::string(op) + ": inputs " + shapeText(x.sizes()) + " and " + shapeText(y.sizes()) + " and out " +
                  shapeText(out.sizes()) + " must have the same sizes");
  const bool wide = dtype == ScalarType::Short;
  const float lo = wide ? -32768.0f : -128.0f, hi = wide ? 32767.0f : 127.0f;
  const float effective = float(scale);
  auto load = [&](const Operand& t, int64_t i) -> int32_t {
    if (!wide) return bytesOf(t)[i];
    int16_t v;
    std::memcpy(&v, t.tensor->data + i * 2, 2);
    return v;
  };
  for (int64_t i = 0; i < out.numel(); ++i) {
    const int32_t num = load(x, i) - int32_t(xz), den = load(y, i) - int32_t(yz);
    const float quotient = den != 0 ? float(num) / float(den) : 0.0f;
    const float scaled = std::round(quotient * effective) + float(int32_t(oz));
    const float clamped = std::max(lo, std::min(hi, scaled));
    if (wide) {
      const int16_t v = int16_t(clamped);
      std::memcpy(out.tensor->data + i * 2, &v, 2);
    } else {
      writable(out)[i] = int8_t(clamped);
    }
  }
  return KernelOutcome::done();
}

// quantized_activation.out(input, lut, *, out): out = lut[input + 128].
KernelResult quantizedActivation(KernelContext& ctx) {
  constexpr const char* op = "cortex_m::quantized_activation";
  CM_TRY(checkArgCount(ctx, op, 3));
  Args a(ctx);
  auto input = a.inAnyLayout(0), lut = a.inAnyLayout(1);
  auto out = a.outAnyLayout(2);
  if (a.failed()) return a.outcome();
  CM_TRY(requireInt8(a, op, {{&input, 0}, {&lut, 1}, {&out, 2}}));
  if (lut.numel() != 256) return a.fail(std::string(op) + ": lut " + a.name(1) + " must hold 256 entries, has " + std::to_string(lut.numel()));
  if (input.numel() != out.numel())
    return a.fail(std::string(op) + ": out " + shapeText(out.sizes()) + " must hold as many elements as input " + shapeText(input.sizes()));
  const int8_t* table = bytesOf(lut);
  for (int64_t i = 0; i < input.numel(); ++i) writable(out)[i] = table[uint8_t(int32_t(bytesOf(input)[i]) + 128)];
  return KernelOutcome::done();
}

// minimum.out / maximum.out(self, other, *, out): int8 with broadcasting over up to 4 dims.
KernelResult extremum(KernelContext& ctx, bool takeMax) {
  const char* op = takeMax ? "cortex_m::maximum" : "cortex_m::minimum";
  CM_TRY(checkArgCount(ctx, op, 3));
  Args a(ctx);
  auto x = a.in(0), y = a.in(1);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  CM_TRY(requireInt8(a, op, {{&x, 0}, {&y, 1}, {&out, 2}}));
  auto shape = broadcastShapes({x.sizes(), y.sizes()});
  if (!shape) return a.fail(std::string(op) + ": " + shape.error().message);
  if (shape->size() > 4) return a.unsupported(std::string(op) + ": CMSIS-NN reads only the last 4 of " + std::to_string(shape->size()) + " dims");
  if (auto status = resize(out, *shape); !status) return status.error();
  const auto sx = broadcastStrides(x.sizes(), *shape), sy = broadcastStrides(y.sizes(), *shape);
  const int8_t* px = bytesOf(x);
  const int8_t* py = bytesOf(y);
  int8_t* po = writable(out);
  forEachIndex<2>(*shape, {sx, sy}, [&](int64_t i, const std::array<int64_t, 2>& at) {
    po[i] = takeMax ? std::max(px[at[0]], py[at[1]]) : std::min(px[at[0]], py[at[1]]);
  });
  return KernelOutcome::done();
}

// ---- matrix products ---------------------------------------------------------

// quantized_linear.out(input, weights, bias?, kernel_sum?, input_offset, filter_offset, output_offset,
//   requantize_multipliers[], requantize_shifts[], activation_max, activation_min, *, out)
KernelResult quantizedLinear(KernelContext& ctx) {
  constexpr const char* op = "cortex_m::quantized_linear";
  // The first schema (d87306352b, 2025-09-18: 15 arguments + out + the return slot) took
  // per-tensor Scalar quantization parameters and weight zero-point/multiplier/shift
  // tensors; 9843222446 replaced it with this one. Its arithmetic is not the current
  // kernel's, so such a program is refused, saying so.
  if (ctx.argCount() == 17)
    return KernelResult(makeError(std::string(op) +
                                  ": 17 arguments: the first quantized_linear schema (input, input_zero_point, input_multiplier, "
                                  "input_shift, weights, weight_zero_point, weight_multiplier, weight_shift, bias?, "
                                  "bias_multiplier, bias_shift, scratch_buffer, output_zero_point, in_features, out_features, "
                                  "out), replaced at upstream 9843222446 (2025-11-06, \"Cortex_m backend: Simplify add + linear "
                                  "fusion passes\", #15526) by the current one of 13 (requantize multipliers/shifts lists, "
                                  "offsets, activation bounds); ptescope runs only the current one: re-export the program"));
  CM_SCHEMA(version, {13});
  (void)version;
  Args a(ctx);
  auto input = a.inAnyLayout(0), weights = a.in(1);
  auto bias = a.optIn(2), kernelSum = a.optIn(3);
  const int64_t inOff = a.integer(4), filterOff = a.integer(5), outOff = a.integer(6);
  const auto multipliers = a.ints(7), shifts = a.ints(8);
  const int64_t hi = a.integer(9), lo = a.integer(10);
  auto out = a.outAnyLayout(11);
  if (a.failed()) return a.outcome();
  CM_TRY(requireInt8(a, op, {{&input, 0}, {&weights, 1}, {&out, 11}}));
  if (input.rank() < 1 || out.rank() < 1) return a.fail(std::string(op) + ": input and out need at least one dimension");
  if (multipliers.empty() || shifts.empty()) return a.fail(std::string(op) + ": requantize multipliers and shifts must not be empty");
  const int64_t inFeatures = input.size(input.rank() - 1), outFeatures = out.size(out.rank() - 1);
  const int64_t batches = inFeatures > 0 ? input.numel() / inFeatures : 0;
  if (weights.numel() != inFeatures * outFeatures)
    return a.fail(std::string(op) + ": weights " + shapeText(weights.sizes()) + " do not hold [" + std::to_string(outFeatures) +
                  ", " + std::to_string(inFeatures) + "] for input " + shapeText(input.sizes()) + " and out " + shapeText(out.sizes()));
  if (out.numel() != batches * outFeatures)
    return a.fail(std::string(op) + ": out " + shapeText(out.sizes()) + " does not hold " + std::to_string(batches) + " rows of " +
                  std::to_string(outFeatures));
  CM_TRY(checkBias(a, op, bias, 2, outFeatures));
  if (kernelSum && kernelSum->dtype() != ScalarType::Int)
    return a.fail(std::string(op) + ": kernel_sum " + a.name(3) + " must be int32, got " + dtypeName(kernelSum->dtype()));
  CM_TRY(checkQuantParams(a, op, "output", multipliers[0], shifts[0]));
  if (!inInt32(inOff) || !inInt32(filterOff) || !inInt32(outOff)) return a.fail(std::string(op) + ": offsets must fit int32");
  CM_TRY(checkActivation(a, op, lo, hi));
  std::vector<int32_t> biasValues;
  if (bias) biasValues = int32Values(*bias);
  cmsis::fullyConnected(int32_t(batches), int32_t(inFeatures), int32_t(outFeatures), int32_t(inOff), int32_t(filterOff),
                        int32_t(outOff), int32_t(multipliers[0]), int32_t(shifts[0]), {int32_t(lo), int32_t(hi)}, bytesOf(input),
                        bytesOf(weights), bias ? biasValues.data() : nullptr, writable(out), kernelCancelRequested);
  return KernelOutcome::done();
}

// quantized_batch_matmul.out(lhs, lhs_zero_point, rhs_transposed, rhs_zero_point, output_zero_point,
//   output_multiplier, output_shift, scratch, *, out): the zero points are the offsets CMSIS-NN adds.
KernelResult quantizedBatchMatmul(KernelContext& ctx) {
  constexpr const char* op = "cortex_m::quantized_batch_matmul";
  // The version before AoT scratch planning has no scratch (out at 7).
  CM_SCHEMA(version, {10}, {9, "scratch", kScratchPlanning});
  const size_t outArg = version == 0 ? 8 : 7;
  Args a(ctx);
  auto lhs = a.in(0);
  const int64_t lhsOff = a.integer(1);
  auto rhs = a.in(2);
  const int64_t rhsOff = a.integer(3), outOff = a.integer(4), mult = a.integer(5), shift = a.integer(6);
  if (version == 0) (void)a.inAnyLayout(7);  // scratch: the portable arithmetic needs none
  auto out = a.out(outArg);
  if (a.failed()) return a.outcome();
  CM_TRY(requireInt8(a, op, {{&lhs, 0}, {&rhs, 2}, {&out, outArg}}));
  if (lhs.rank() != 3 || rhs.rank() != 3 || out.rank() != 3) return a.fail(std::string(op) + ": all tensors must be 3-D");
  if (lhs.size(0) != rhs.size(0)) return a.fail(std::string(op) + ": batch dims must match");
  if (lhs.size(2) != rhs.size(2)) return a.fail(std::string(op) + ": inner dims must match");
  if (out.size(0) != lhs.size(0) || out.size(1) != lhs.size(1) || out.size(2) != rhs.size(1))
    return a.fail(std::string(op) + ": out " + shapeText(out.sizes()) + " does not match lhs " + shapeText(lhs.sizes()) +
                  " times rhs_transposed " + shapeText(rhs.sizes()));
  CM_TRY(checkQuantParams(a, op, "output", mult, shift));
  cmsis::batchMatmul(int32_t(lhs.size(0)), int32_t(lhs.size(1)), int32_t(lhs.size(2)), int32_t(rhs.size(1)), int32_t(lhsOff),
                     int32_t(rhsOff), int32_t(outOff), int32_t(mult), int32_t(shift), {-128, 127}, bytesOf(lhs), bytesOf(rhs),
                     writable(out), kernelCancelRequested);
  return KernelOutcome::done();
}

// softmax.out(input, dim, input_zero_point, output_zero_point, input_multiplier, input_shift, diff_min, *, out)
KernelResult softmax(KernelContext& ctx) {
  constexpr const char* op = "cortex_m::softmax";
  CM_TRY(checkArgCount(ctx, op, 8));
  Args a(ctx);
  auto input = a.inAnyLayout(0);
  const int64_t dim = a.integer(1), inZp = a.integer(2), outZp = a.integer(3), mult = a.integer(4), shift = a.integer(5),
                diffMin = a.integer(6);
  auto out = a.outAnyLayout(7);
  if (a.failed()) return a.outcome();
  (void)inZp;
  CM_TRY(requireInt8(a, op, {{&input, 0}, {&out, 7}}));
  const int64_t rank = int64_t(input.rank());
  if (rank == 0 || (dim >= 0 ? dim : dim + rank) != rank - 1)
    return a.fail(std::string(op) + ": dim " + std::to_string(dim) + " must be the last dimension of a " + std::to_string(rank) + "-D input");
  CM_TRY(checkQuantParams(a, op, "input", mult, shift));
  const int64_t rowSize = input.size(size_t(rank - 1));
  const int64_t rows = rowSize > 0 ? input.numel() / rowSize : 0;
  if (rowSize <= 0 || rows <= 0 || rowSize > INT32_MAX || rows > INT32_MAX)
    return a.fail(std::string(op) + ": input " + shapeText(input.sizes()) + " has no rows to normalize");
  if (outZp != -128) return a.fail(std::string(op) + ": output_zero_point must be -128 (CMSIS-NN's), got " + std::to_string(outZp));
  if (out.numel() != input.numel()) return a.fail(std::string(op) + ": out " + shapeText(out.sizes()) + " must match input " + shapeText(input.sizes()));
  if (!inInt32(diffMin)) return a.fail(std::string(op) + ": diff_min must fit int32");
  if (shift < 0 || shift > 30)
    return a.unsupported(std::string(op) + ": input_shift " + std::to_string(shift) + " makes CMSIS-NN shift by a negative or full-width count");
  if (!cmsis::softmax(int32_t(rows), int32_t(rowSize), int32_t(mult), int32_t(shift), int32_t(diffMin), bytesOf(input), writable(out)))
    return a.unsupported(std::string(op) + ": a row's exponent sum overflows CMSIS-NN's shift range");
  return KernelOutcome::done();
}

// ---- data movement -------------------------------------------------------------

// transpose.out(input, perm[], *, out): CMSIS-NN's arm_transpose_s8 on 1..4 dims.
KernelResult transpose(KernelContext& ctx) {
  constexpr const char* op = "cortex_m::transpose";
  CM_TRY(checkArgCount(ctx, op, 3));
  Args a(ctx);
  auto input = a.in(0);
  const auto perm = a.ints(1);
  auto out = a.out(2);
  if (a.failed()) return a.outcome();
  CM_TRY(requireInt8(a, op, {{&input, 0}, {&out, 2}}));
  const size_t rank = input.rank();
  if (rank == 0 || rank > 4) return a.fail(std::string(op) + ": rank must be 1..4, got " + std::to_string(rank));
  if (perm.size() != rank) return a.fail(std::string(op) + ": perm has " + std::to_string(perm.size()) + " entries for rank " + std::to_string(rank));
  std::vector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= int64_t(rank) || seen[size_t(p)])
      return a.fail(std::string(op) + ": perm " + shapeText(perm) + " is not a permutation of " + std::to_string(rank) + " dims");
    seen[size_t(p)] = true;
  }
  // CMSIS-NN swaps the two dims of any rank-2 input, whatever perm says.
  if (rank == 2 && perm[0] == 0)
    return a.unsupported(std::string(op) + ": CMSIS-NN transposes a 2-D input even for the identity perm");
  Sizes permuted(rank);
  for (size_t i = 0; i < rank; ++i) permuted[i] = input.size(size_t(perm[i]));
  if (out.sizes() != permuted)
    return a.fail(std::string(op) + ": out " + shapeText(out.sizes()) + " is not input " + shapeText(input.sizes()) + " permuted by " + shapeText(perm));
  const Sizes inStrides = contiguousStrides(input.sizes());
  Sizes strides(rank);
  for (size_t i = 0; i < rank; ++i) strides[i] = inStrides[size_t(perm[i])];
  const int8_t* src = bytesOf(input);
  int8_t* dst = writable(out);
  forEachIndex<1>(permuted, {strides}, [&](int64_t i, const std::array<int64_t, 1>& at) { dst[i] = src[at[0]]; });
  return KernelOutcome::done();
}

// pad.out(input, pre_pad[], post_pad[], pad_value, *, out): padding of the
// (up to) 4 dims in memory order (N, H, W, C for a channels_last input,
// leading 1s for lower ranks).
KernelResult pad(KernelContext& ctx) {
  constexpr const char* op = "cortex_m::pad";
  CM_TRY(checkArgCount(ctx, op, 5));
  Args a(ctx);
  auto input = a.inAnyLayout(0);
  const auto before = a.ints(1), after = a.ints(2);
  const int64_t value = a.integer(3);
  auto out = a.outAnyLayout(4);
  if (a.failed()) return a.outcome();
  CM_TRY(requireInt8(a, op, {{&input, 0}, {&out, 4}}));
  const size_t rank = input.rank();
  if (rank == 0 || rank > 4) return a.fail(std::string(op) + ": rank must be 1..4, got " + std::to_string(rank));
  if (before.size() < 4 || after.size() < 4)
    return a.fail(std::string(op) + ": pre_pad and post_pad need 4 entries, got " + std::to_string(before.size()) + " and " + std::to_string(after.size()));
  const bool nhwc = channelsLast(input);
  if (!nhwc && rank > 1 && !input.tensor->default_dim_order)
    return a.unsupported(std::string(op) + ": input " + a.name(0) + " has a dim order other than contiguous or channels_last");
  static constexpr size_t kNhwc[4] = {0, 2, 3, 1};
  int32_t dims[4] = {1, 1, 1, 1}, pre[4], post[4];
  const size_t offset = 4 - rank;
  for (size_t i = 0; i < rank; ++i) dims[offset + i] = int32_t(input.size(nhwc ? kNhwc[offset + i] : i));
  int64_t total = 1;
  for (int d = 0; d < 4; ++d) {
    if (before[size_t(d)] < 0 || after[size_t(d)] < 0 || before[size_t(d)] > INT32_MAX || after[size_t(d)] > INT32_MAX)
      return a.fail(std::string(op) + ": pads must be non-negative, got " + shapeText(before) + " and " + shapeText(after));
    pre[d] = int32_t(before[size_t(d)]);
    post[d] = int32_t(after[size_t(d)]);
    total *= int64_t(pre[d]) + dims[d] + post[d];
  }
  if (out.numel() != total)
    return a.fail(std::string(op) + ": out " + shapeText(out.sizes()) + " does not hold the " + std::to_string(total) + " padded elements");
  cmsis::pad(dims, pre, post, int8_t(value), bytesOf(input), writable(out));
  return KernelOutcome::done();
}

// ---- convolutions --------------------------------------------------------------

struct ConvArgs {
  Operand input, weight, out, multipliers, shifts;
  std::optional<Operand> scratch;  // absent in the schemas before AoT scratch planning
  std::optional<Operand> bias;
  std::vector<int64_t> stride, padding, dilation;
  int64_t inputOffset = 0, outputOffset = 0, actMin = 0, actMax = 0;
};

std::optional<KernelResult> checkConvCommon(Args& a, const char* op, const ConvArgs& c, size_t outArg, size_t multArg, PerChannel& pc) {
  if (c.input.rank() != 4 || c.weight.rank() != 4 || c.out.rank() != 4)
    return a.fail(std::string(op) + ": input, weight and out must be 4-D");
  if (c.input.size(0) != c.out.size(0))
    return a.fail(std::string(op) + ": input " + shapeText(c.input.sizes()) + " and out " + shapeText(c.out.sizes()) +
                  " must have the same batch");
  if (!channelsLast(c.input)) return a.fail(std::string(op) + ": input " + a.name(0) + " must be channels_last");
  if (!channelsLast(c.out)) return a.fail(std::string(op) + ": out " + a.name(outArg) + " must be channels_last");
  CM_TRY(requireInt8(a, op, {{&c.input, 0}, {&c.weight, 1}, {&c.out, outArg}}));
  CM_TRY(checkBias(a, op, c.bias, 2, c.out.size(1)));
  CM_TRY(readPerChannel(a, op, c.multipliers, multArg, c.shifts, multArg + 1, c.out.size(1), pc));
  CM_TRY(checkActivation(a, op, c.actMin, c.actMax));
  if (!inInt32(c.inputOffset) || !inInt32(c.outputOffset)) return a.fail(std::string(op) + ": offsets must fit int32");
  for (size_t d = 0; d < 4; ++d) {
    if (c.input.size(d) > INT32_MAX || c.out.size(d) > INT32_MAX || c.weight.size(d) > INT32_MAX)
      return a.fail(std::string(op) + ": sizes must fit int32");
    if (c.input.size(d) == 0 || c.out.size(d) == 0 || c.weight.size(d) == 0)
      return a.fail(std::string(op) + ": empty tensors: input " + shapeText(c.input.sizes()) + ", weight " +
                    shapeText(c.weight.sizes()) + ", out " + shapeText(c.out.sizes()));
  }
  return std::nullopt;
}

cmsis::ConvShape convShape(const ConvArgs& c) {
  cmsis::ConvShape s;
  s.batch = int32_t(c.input.size(0));
  s.in_c = int32_t(c.input.size(1));
  s.in_h = int32_t(c.input.size(2));
  s.in_w = int32_t(c.input.size(3));
  s.out_c = int32_t(c.out.size(1));
  s.out_h = int32_t(c.out.size(2));
  s.out_w = int32_t(c.out.size(3));
  s.stride_h = int32_t(c.stride[0]);
  s.stride_w = int32_t(c.stride[1]);
  s.pad_h = int32_t(c.padding[0]);
  s.pad_w = int32_t(c.padding[1]);
  if (c.dilation.size() == 2) {
    s.dilation_h = int32_t(c.dilation[0]);
    s.dilation_w = int32_t(c.dilation[1]);
  }
  return s;
}

cmsis::Requantization requantization(const ConvArgs& c, const PerChannel& pc) {
  cmsis::Requantization q;
  q.input_offset = int32_t(c.inputOffset);
  q.output_offset = int32_t(c.outputOffset);
  q.activation = {int32_t(c.actMin), int32_t(c.actMax)};
  q.multipliers = pc.multipliers.data();
  q.shifts = pc.shifts.data();
  q.stop_requested = kernelCancelRequested;
  return q;
}

std::optional<KernelResult> checkGeometry(Args& a, const char* op, const cmsis::ConvShape& s) {
  if (s.stride_h <= 0 || s.stride_w <= 0) return a.fail(std::string(op) + ": stride must be positive");
  if (s.pad_h < 0 || s.pad_w < 0) return a.fail(std::string(op) + ": padding must be non-negative");
  if (s.dilation_h <= 0 || s.dilation_w <= 0) return a.fail(std::string(op) + ": dilation must be positive");
  return std::nullopt;
}

// The argument list the three convolutions share: input, weight, bias?, stride[], padding[];
// dilation[] at `dilation`; from `tail` on input_offset, output_offset, the requantize
// multipliers and shifts, activation_min, activation_max and (withScratch) the scratch
// buffer; out at `out`.
ConvArgs readConvArgs(Args& a, size_t dilation, size_t tail, size_t out, bool withScratch) {
  ConvArgs c;
  c.input = a.inAnyLayout(0);
  c.weight = a.in(1);
  c.bias = a.optIn(2);
  c.stride = a.ints(3);
  c.padding = a.ints(4);
  c.dilation = a.ints(dilation);
  c.inputOffset = a.integer(tail);
  c.outputOffset = a.integer(tail + 1);
  c.multipliers = a.in(tail + 2);
  c.shifts = a.in(tail + 3);
  c.actMin = a.integer(tail + 4);
  c.actMax = a.integer(tail + 5);
  if (withScratch) c.scratch = a.inAnyLayout(tail + 6);
  c.out = a.outAnyLayout(out);
  return c;
}

// quantized_conv2d.out(input, weight, bias?, stride[], padding[], dilation[], input_offset,
//   output_offset, requantize_multipliers, requantize_shifts, activation_min, activation_max,
//   scratch, *, out); weight [out_c, kh, kw, in_c / groups].
KernelResult quantizedConv2d(KernelContext& ctx) {
  constexpr const char* op = "cortex_m::quantized_conv2d";
  CM_SCHEMA(version, {15}, {14, "scratch", kScratchPlanning});
  const size_t outArg = version == 0 ? 13 : 12;
  Args a(ctx);
  const ConvArgs c = readConvArgs(a, 5, 6, outArg, version == 0);
  if (a.failed()) return a.outcome();
  CM_TRY(checkPairs(a, op, {{&c.stride, "stride"}, {&c.padding, "padding"}, {&c.dilation, "dilation"}}));
  PerChannel pc;
  CM_TRY(checkConvCommon(a, op, c, outArg, 8, pc));
  cmsis::ConvShape s = convShape(c);
  CM_TRY(checkGeometry(a, op, s));
  s.kernel_h = int32_t(c.weight.size(1));
  s.kernel_w = int32_t(c.weight.size(2));
  s.kernel_c = int32_t(c.weight.size(3));
  if (c.weight.size(0) != s.out_c)
    return a.fail(std::string(op) + ": weight " + shapeText(c.weight.sizes()) + " has " + std::to_string(c.weight.size(0)) +
                  " filters for " + std::to_string(s.out_c) + " output channels");
  if (s.kernel_c <= 0 || s.in_c % s.kernel_c != 0 || s.out_c % (s.in_c / s.kernel_c) != 0)
    return a.fail(std::string(op) + ": CMSIS-NN refuses the grouping: " + std::to_string(s.in_c) + " input channels, " +
                  std::to_string(s.kernel_c) + " per filter, " + std::to_string(s.out_c) + " outputs");
  const bool grouped = s.in_c != s.kernel_c;
  if (grouped && !c.bias)
    return a.fail(std::string(op) + ": a grouped convolution needs a bias (CMSIS-NN reads one per group)");
  // arm_convolve_wrapper_s8 picks a 1x1 kernel (no buffer), a 1xN kernel or the general one (both need the scratch buffer).
  const bool oneByOne = s.pad_h == 0 && s.pad_w == 0 && s.kernel_h == 1 && s.kernel_w == 1 && s.dilation_h == 1 &&
                        s.dilation_w == 1 && !grouped;
  const bool oneByN = s.in_h == 1 && s.dilation_w == 1 && s.kernel_h == 1 && (s.stride_w * s.in_c) % 4 == 0 && !grouped;
  if (!oneByOne && c.scratch && c.scratch->tensor->nbytes() == 0)
    return a.fail(std::string(op) + ": CMSIS-NN's " + (oneByN ? "1xN" : "general") + " convolution needs a scratch buffer; " +
                  a.name(12) + " has 0 bytes");
  std::vector<int32_t> biasValues;
  if (c.bias) biasValues = int32Values(*c.bias);
  cmsis::convolve(s, requantization(c, pc), bytesOf(c.input), bytesOf(c.weight), c.bias ? biasValues.data() : nullptr,
                  writable(c.out));
  return KernelOutcome::done();
}

// quantized_depthwise_conv2d.out(input, weight, bias?, stride[], padding[], dilation[], depth_multiplier,
//   input_offset, output_offset, requantize_multipliers, requantize_shifts, activation_min,
//   activation_max, scratch, *, out); weight [1, kh, kw, in_c * depth_multiplier].
KernelResult quantizedDepthwiseConv2d(KernelContext& ctx) {
  constexpr const char* op = "cortex_m::quantized_depthwise_conv2d";
  CM_SCHEMA(version, {16}, {15, "scratch", kScratchPlanning});
  const size_t outArg = version == 0 ? 14 : 13;
  Args a(ctx);
  const ConvArgs c = readConvArgs(a, 5, 7, outArg, version == 0);
  const int64_t multiplier = a.integer(6);
  if (a.failed()) return a.outcome();
  CM_TRY(checkPairs(a, op, {{&c.stride, "stride"}, {&c.padding, "padding"}, {&c.dilation, "dilation"}}));
  if (c.input.rank() == 4 && c.input.size(0) != 1)
    return a.fail(std::string(op) + ": batch must be 1, got " + std::to_string(c.input.size(0)));
  if (c.weight.rank() == 4 && c.weight.size(0) != 1)
    return a.fail(std::string(op) + ": weight " + shapeText(c.weight.sizes()) + " must be [1, kh, kw, channels]");
  PerChannel pc;
  CM_TRY(checkConvCommon(a, op, c, outArg, 9, pc));
  cmsis::ConvShape s = convShape(c);
  CM_TRY(checkGeometry(a, op, s));
  if (c.weight.size(3) != s.out_c)
    return a.fail(std::string(op) + ": weight " + shapeText(c.weight.sizes()) + " does not hold " + std::to_string(s.out_c) + " output channels");
  // The range check first: in_c * multiplier of an arbitrary int64 overflows.
  if (multiplier <= 0 || multiplier > s.out_c || int64_t(s.in_c) * multiplier != s.out_c)
    return a.fail(std::string(op) + ": output channels " + std::to_string(s.out_c) + " must be input channels " +
                  std::to_string(s.in_c) + " times depth_multiplier " + std::to_string(multiplier));
  s.kernel_h = int32_t(c.weight.size(1));
  s.kernel_w = int32_t(c.weight.size(2));
  std::vector<int32_t> biasValues;
  if (c.bias) biasValues = int32Values(*c.bias);
  cmsis::depthwiseConvolve(s, int32_t(multiplier), requantization(c, pc), bytesOf(c.input), bytesOf(c.weight),
                           c.bias ? biasValues.data() : nullptr, writable(c.out));
  return KernelOutcome::done();
}

// quantized_transpose_conv2d.out(input, weight, bias?, stride[], padding[], output_padding[], dilation[],
//   input_offset, output_offset, requantize_multipliers, requantize_shifts, activation_min,
//   activation_max, scratch, output_scratch, *, out); weight [out_c, kh, kw, in_c]. CMSIS-NN
// ignores output_padding and dilation (upstream's quantizer only lowers 0 and 1).
KernelResult quantizedTransposeConv2d(KernelContext& ctx) {
  constexpr const char* op = "cortex_m::quantized_transpose_conv2d";
  CM_SCHEMA(version, {17}, {15, "scratch and output_scratch", kScratchPlanning});
  const size_t outArg = version == 0 ? 15 : 13;
  Args a(ctx);
  const ConvArgs c = readConvArgs(a, 6, 7, outArg, version == 0);
  const auto outputPadding = a.ints(5);
  std::optional<Operand> reverseScratch;
  if (version == 0) reverseScratch = a.inAnyLayout(14);
  if (a.failed()) return a.outcome();
  CM_TRY(checkPairs(a, op, {{&c.stride, "stride"}, {&c.padding, "padding"}, {&outputPadding, "output_padding"}, {&c.dilation, "dilation"}}));
  PerChannel pc;
  CM_TRY(checkConvCommon(a, op, c, outArg, 9, pc));
  cmsis::ConvShape s = convShape(c);
  s.dilation_h = s.dilation_w = 1;
  CM_TRY(checkGeometry(a, op, s));
  if (c.weight.size(0) != s.out_c)
    return a.fail(std::string(op) + ": weight " + shapeText(c.weight.sizes()) + " has " + std::to_string(c.weight.size(0)) +
                  " filters for " + std::to_string(s.out_c) + " output channels");
  if (c.weight.size(3) != s.in_c)
    return a.fail(std::string(op) + ": weight " + shapeText(c.weight.sizes()) + " does not read " + std::to_string(s.in_c) + " input channels");
  s.kernel_h = int32_t(c.weight.size(1));
  s.kernel_w = int32_t(c.weight.size(2));
  if (c.scratch && c.scratch->tensor->nbytes() == 0)
    return a.fail(std::string(op) + ": CMSIS-NN's transposed convolution needs a scratch buffer; " + a.name(13) + " has 0 bytes");
  const bool reverse = s.stride_h <= 2 && s.stride_w <= 2 && s.in_c > 16;
  if (reverse && reverseScratch && reverseScratch->tensor->nbytes() == 0)
    return a.fail(std::string(op) + ": CMSIS-NN's reverse-convolution path needs output_scratch; " + a.name(14) + " has 0 bytes");
  std::vector<int32_t> biasValues;
  if (c.bias) biasValues = int32Values(*c.bias);
  if (!cmsis::transposeConvolve(s, requantization(c, pc), bytesOf(c.input), bytesOf(c.weight), c.bias ? biasValues.data() : nullptr,
                                writable(c.out)))
    return a.unsupported(std::string(op) + ": CMSIS-NN's row scatter would not write exactly the " + std::to_string(s.out_h) +
                         " output rows of " + shapeText(c.out.sizes()) + " (padding " + shapeText(c.padding) + ", stride " +
                         shapeText(c.stride) + ")");
  return KernelOutcome::done();
}

// ---- pooling ---------------------------------------------------------------------

std::optional<KernelResult> checkPool(Args& a, const char* op, const Operand& input, const Operand& out, size_t outArg,
                                      const std::vector<int64_t>& kernel, const std::vector<int64_t>& stride,
                                      const std::vector<int64_t>& padding, cmsis::PoolShape& s) {
  if (input.rank() != 4 || out.rank() != 4) return a.fail(std::string(op) + ": tensors must be 4-D");
  CM_TRY(requireInt8(a, op, {{&input, 0}, {&out, outArg}}));
  if (input.size(0) != out.size(0) || input.size(1) != out.size(1))
    return a.fail(std::string(op) + ": batch and channel dimensions must match between input " + shapeText(input.sizes()) +
                  " and out " + shapeText(out.sizes()));
  for (const auto& [t, arg] : {std::pair{&input, size_t(0)}, std::pair{&out, outArg}})
    if (!channelsLast(*t))
      return a.fail(std::string(op) + ": tensors must use channels_last dimension order; " + a.name(arg) + " " +
                    shapeText(t->sizes()) + " has dim order " + dimOrderText(*t) +
                    ". Upstream's runtime refuses it too (prepare_cmsis_pool2d_config, since max_pool2d was added at a00bad2e3a and "
                    "avg_pool2d's check at 0112adaa0c, 2026-03-11; avg_pool2d kernels before that read the bytes as NHWC "
                    "whatever the dim order); re-export so the pooling tensors are channels_last");
  CM_TRY(checkPairs(a, op, {{&kernel, "kernel_size"}, {&stride, "stride"}, {&padding, "padding"}}));
  for (size_t d = 0; d < 4; ++d)
    if (input.size(d) > INT32_MAX || out.size(d) > INT32_MAX) return a.fail(std::string(op) + ": sizes must fit int32");
  s.batch = int32_t(input.size(0));
  s.channels = int32_t(input.size(1));
  s.in_h = int32_t(input.size(2));
  s.in_w = int32_t(input.size(3));
  s.out_h = int32_t(out.size(2));
  s.out_w = int32_t(out.size(3));
  s.kernel_h = int32_t(kernel[0]);
  s.kernel_w = int32_t(kernel[1]);
  s.stride_h = int32_t(stride[0]);
  s.stride_w = int32_t(stride[1]);
  s.pad_h = int32_t(padding[0]);
  s.pad_w = int32_t(padding[1]);
  if (s.kernel_h <= 0 || s.kernel_w <= 0 || s.stride_h <= 0 || s.stride_w <= 0 || s.pad_h < 0 || s.pad_w < 0)
    return a.fail(std::string(op) + ": kernel_size and stride must be positive, padding non-negative");
  return std::nullopt;
}

// The output size upstream expects (floor, or ceil without a window that starts in the padding only).
int32_t pooledSize(int32_t input, int32_t kernel, int32_t stride, int32_t padding, bool ceil) {
  const int32_t numerator = input + 2 * padding - kernel;
  int32_t size = numerator / stride + 1;
  if (ceil && numerator % stride != 0) ++size;
  if (ceil && (size - 1) * stride >= input + padding) --size;
  return size;
}

// quantized_avg_pool2d.out(input, kernel_size[], stride[], padding[], ceil_mode, zero_point,
//   multiplier, shift, scratch, *, out): the rounded mean of the raw int8 values inside the input
// (the zero point, multiplier and shift are not used: averaging commutes with the affine map).
KernelResult quantizedAvgPool2d(KernelContext& ctx) {
  constexpr const char* op = "cortex_m::quantized_avg_pool2d";
  // Older versions: without ceil_mode (always floor), and before that without scratch too.
  CM_SCHEMA(version, {11}, {10, "ceil_mode", kAvgPoolCeil}, {9, "ceil_mode and scratch", kAvgPoolScratch});
  const size_t first = version == 0 ? 5 : 4;  // zero_point, multiplier, shift
  const size_t outArg = version == 2 ? 7 : first + 4;
  Args a(ctx);
  auto input = a.inAnyLayout(0);
  const auto kernel = a.ints(1), stride = a.ints(2), padding = a.ints(3);
  const bool ceil = version == 0 ? a.flag(4) : false;
  for (size_t arg = first; arg < first + 3; ++arg) (void)a.integer(arg);
  if (version != 2) (void)a.inAnyLayout(first + 3);  // scratch: the portable arithmetic needs none
  auto out = a.outAnyLayout(outArg);
  if (a.failed()) return a.outcome();
  cmsis::PoolShape s;
  CM_TRY(checkPool(a, op, input, out, outArg, kernel, stride, padding, s));
  const int32_t h = pooledSize(s.in_h, s.kernel_h, s.stride_h, s.pad_h, ceil);
  const int32_t w = pooledSize(s.in_w, s.kernel_w, s.stride_w, s.pad_w, ceil);
  if (h != s.out_h || w != s.out_w)
    return a.fail(std::string(op) + ": output shape mismatch - actual: (" + std::to_string(s.out_h) + ", " + std::to_string(s.out_w) +
                  ") expected: (" + std::to_string(h) + ", " + std::to_string(w) + ")");
  if (!cmsis::averagePool(s, {-128, 127}, bytesOf(input), writable(out)))
    return a.fail(std::string(op) + ": a pooling window holds no input element (CMSIS-NN refuses the division by zero)");
  return KernelOutcome::done();
}

// quantized_max_pool2d.out(input, kernel_size[], stride[], padding[], dilation[], ceil_mode,
//   input_zero_point, output_zero_point, activation_min, activation_max, *, out)
KernelResult quantizedMaxPool2d(KernelContext& ctx) {
  constexpr const char* op = "cortex_m::quantized_max_pool2d";
  CM_TRY(checkArgCount(ctx, op, 11));
  Args a(ctx);
  auto input = a.inAnyLayout(0);
  const auto kernel = a.ints(1), stride = a.ints(2), padding = a.ints(3), dilation = a.ints(4);
  const bool ceil = a.flag(5);
  const int64_t inZp = a.integer(6), outZp = a.integer(7), lo = a.integer(8), hi = a.integer(9);
  auto out = a.outAnyLayout(10);
  if (a.failed()) return a.outcome();
  cmsis::PoolShape s;
  CM_TRY(checkPool(a, op, input, out, 10, kernel, stride, padding, s));
  CM_TRY(checkPairs(a, op, {{&dilation, "dilation"}}));
  if (ceil) return a.fail(std::string(op) + ": ceil_mode=True is not supported");
  CM_TRY(checkActivation(a, op, lo, hi));
  if (dilation[0] != 1 || dilation[1] != 1) return a.fail(std::string(op) + ": dilation other than 1 is unsupported");
  if (inZp < INT8_MIN || inZp > INT8_MAX || outZp < INT8_MIN || outZp > INT8_MAX)
    return a.fail(std::string(op) + ": zero points must fit int8");
  if (inZp != outZp) return a.fail(std::string(op) + ": input and output zero points must match");
  if (!cmsis::maxPool(s, {int32_t(lo), int32_t(hi)}, bytesOf(input), writable(out)))
    return a.unsupported(std::string(op) + ": a pooling window holds no input element; CMSIS-NN leaves that output unwritten");
  return KernelOutcome::done();
}

}  // namespace

void addCortexMKernels(KernelRegistry& r) {
  r.add("cortex_m::quantize_per_tensor.out", quantizePerTensor);
  r.add("cortex_m::dequantize_per_tensor.out", dequantizePerTensor);
  r.add("cortex_m::quantized_add.out", quantizedAdd);
  r.add("cortex_m::quantized_mul.out", quantizedMul);
  r.add("cortex_m::quantized_div.out", quantizedDiv);
  r.add("cortex_m::quantized_activation.out", quantizedActivation);
  r.add("cortex_m::minimum.out", [](KernelContext& c) { return extremum(c, false); });
  r.add("cortex_m::maximum.out", [](KernelContext& c) { return extremum(c, true); });
  r.add("cortex_m::quantized_linear.out", quantizedLinear);
  r.add("cortex_m::softmax.out", softmax);
  r.add("cortex_m::transpose.out", transpose);
  r.add("cortex_m::pad.out", pad);
  r.add("cortex_m::quantized_conv2d.out", quantizedConv2d);
  r.add("cortex_m::quantized_depthwise_conv2d.out", quantizedDepthwiseConv2d);
  r.add("cortex_m::quantized_transpose_conv2d.out", quantizedTransposeConv2d);
  r.add("cortex_m::quantized_avg_pool2d.out", quantizedAvgPool2d);
  r.add("cortex_m::quantized_max_pool2d.out", quantizedMaxPool2d);
  r.add("cortex_m::quantized_batch_matmul.out", quantizedBatchMatmul);
}

}  // namespace ptescope::exec::kernels
