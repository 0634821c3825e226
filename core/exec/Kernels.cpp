#include "exec/Kernels.h"

#include "program/Text.h"

#include <algorithm>
#include <climits>

namespace ptescope::exec {

int64_t TensorRef::numel() const {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

uint64_t TensorRef::nbytes() const {
  return uint64_t(numel()) * uint64_t(program::elementSize(dtype));
}

Status resizeTensor(TensorRef& tensor, std::span<const int64_t> sizes) {
  if (std::equal(sizes.begin(), sizes.end(), tensor.sizes.begin(), tensor.sizes.end())) return Ok{};
  const std::string what = "%" + std::to_string(tensor.value) + " " + program::tensorTypeText(tensor.dtype, tensor.sizes);
  if (tensor.dynamism == program::ShapeDynamism::Static)
    return makeError("cannot resize static tensor " + what + " to " + program::tensorTypeText(tensor.dtype, sizes));
  uint64_t numel = 1;
  for (int64_t s : sizes) {
    if (s < 0) return makeError("cannot resize " + what + " to a negative size");
    numel *= uint64_t(s);
  }
  const uint64_t bytes = numel * uint64_t(program::elementSize(tensor.dtype));
  if (bytes > tensor.capacity)
    return makeError("cannot resize " + what + " to " + program::tensorTypeText(tensor.dtype, sizes) + ": " + std::to_string(bytes) +
                     " bytes exceed its planned capacity of " + std::to_string(tensor.capacity) + " bytes");
  tensor.sizes.assign(sizes.begin(), sizes.end());
  return Ok{};
}

namespace {
std::string argText(const KernelContext& ctx, size_t arg) {
  return "argument " + std::to_string(arg) + " (" + ctx.valueName(arg) + ")";
}
}  // namespace

Result<int64_t> KernelContext::intArg(size_t arg) const {
  if (arg >= argCount()) return makeError("missing argument " + std::to_string(arg));
  if (const auto* v = std::get_if<program::IntValue>(&literal(arg))) return v->value;
  return makeError(argText(*this, arg) + " is a " + program::valueKindName(kind(arg)) + ", not an Int");
}

Result<double> KernelContext::scalarArg(size_t arg) const {
  if (arg >= argCount()) return makeError("missing argument " + std::to_string(arg));
  const auto& data = literal(arg);
  if (const auto* v = std::get_if<program::IntValue>(&data)) return double(v->value);
  if (const auto* v = std::get_if<program::DoubleValue>(&data)) return v->value;
  if (const auto* v = std::get_if<program::BoolValue>(&data)) return v->value ? 1.0 : 0.0;
  return makeError(argText(*this, arg) + " is a " + program::valueKindName(kind(arg)) + ", not a scalar");
}

Result<bool> KernelContext::boolArg(size_t arg) const {
  if (arg >= argCount()) return makeError("missing argument " + std::to_string(arg));
  if (const auto* v = std::get_if<program::BoolValue>(&literal(arg))) return v->value;
  return makeError(argText(*this, arg) + " is a " + program::valueKindName(kind(arg)) + ", not a Bool");
}

Result<std::vector<int64_t>> KernelContext::intListArg(size_t arg) const {
  if (arg >= argCount()) return makeError("missing argument " + std::to_string(arg));
  const auto* list = std::get_if<program::IntListValue>(&literal(arg));
  if (list == nullptr)
    return makeError(argText(*this, arg) + " is a " + program::valueKindName(kind(arg)) + ", not an IntList");
  std::vector<int64_t> result;
  for (int64_t item : program::items(list->items)) {
    const auto* data = item >= 0 && item <= INT32_MAX ? literalAt(int32_t(item)) : nullptr;
    const auto* v = data ? std::get_if<program::IntValue>(data) : nullptr;
    if (v == nullptr)
      return makeError(argText(*this, arg) + ": item " + std::to_string(item) + " is not the index of an Int value");
    result.push_back(v->value);
  }
  return result;
}

bool KernelContext::isNullArg(size_t arg) const {
  if (arg >= argCount()) return true;
  const auto k = kind(arg);
  return k == program::ValueKind::Null || k == program::ValueKind::None;
}

void KernelRegistry::add(std::string qualifiedName, Kernel kernel) { kernels_[std::move(qualifiedName)] = std::move(kernel); }

const Kernel* KernelRegistry::find(std::string_view qualifiedName) const {
  auto found = kernels_.find(qualifiedName);
  return found == kernels_.end() ? nullptr : &found->second;
}

std::vector<std::string> KernelRegistry::names() const {
  std::vector<std::string> result;
  for (const auto& [name, kernel] : kernels_) result.push_back(name);
  return result;
}

const KernelRegistry& KernelRegistry::builtin() {
  static const KernelRegistry registry = [] {
    KernelRegistry r;
    addCopyKernels(r);
    addPortableKernels(r);
    return r;
  }();
  return registry;
}

namespace {
thread_local const std::function<bool()>* tKernelCancelPoll = nullptr;
}

bool kernelCancelRequested() { return tKernelCancelPoll != nullptr && *tKernelCancelPoll && (*tKernelCancelPoll)(); }

KernelCancelScope::KernelCancelScope(const std::function<bool()>* poll) : previous_(tKernelCancelPoll) {
  tKernelCancelPoll = poll;
}

KernelCancelScope::~KernelCancelScope() { tKernelCancelPoll = previous_; }

}  // namespace ptescope::exec
