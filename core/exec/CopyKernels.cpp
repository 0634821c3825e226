// et_copy::_h2d_copy.out and et_copy::_d2h_copy.out with the checks of
// ExecuTorch's portable kernels (spec/device-semantics.md §3.1), in the same
// order and with the same wording where the runtime has one, plus the dtype
// equality that only the ATen-mode kernel checks (pitfall P6: without it the
// byte count of `self` could overrun `out`).
#include <string>

#include "exec/Kernels.h"

namespace ptescope::exec {
namespace {

std::string deviceTypeCode(program::Device device) {
  return "device_type=" + std::to_string(int(device.type)) + " (" + device.str() + ")";
}

KernelResult runCopy(KernelContext& ctx, program::CopyDirection direction) {
  const bool toDevice = direction == program::CopyDirection::HostToDevice;
  const std::string op = toDevice ? "_h2d_copy" : "_d2h_copy";
  if (ctx.argCount() < 2)
    return makeError(op + ": expected the arguments (self, out), got " + std::to_string(ctx.argCount()));
  TensorRef* self = ctx.tensor(0);
  TensorRef* out = ctx.tensor(1);
  if (self == nullptr || out == nullptr) {
    const size_t bad = self == nullptr ? 0 : 1;
    return makeError(op + ": argument " + ctx.valueName(bad) + " is a " + program::valueKindName(ctx.kind(bad)) +
                     ", not a tensor");
  }
  const std::string selfName = ctx.valueName(0), outName = ctx.valueName(1);

  // 1-2. Which side is which, from the tensors' device tags as the runtime
  // reads them from their TensorImpl.
  if (toDevice) {
    if (!self->device.isCpu())
      return makeError(op + ": source tensor " + selfName + " must be on CPU, got " + deviceTypeCode(self->device));
    if (out->device.isCpu())
      return makeError(op + ": destination tensor " + outName + " must be on a device, got " + deviceTypeCode(out->device));
  } else {
    if (self->device.isCpu())
      return makeError(op + ": source tensor " + selfName + " must be on a device, got " + deviceTypeCode(self->device));
    if (!out->device.isCpu())
      return makeError(op + ": destination tensor " + outName + " must be on CPU, got " + deviceTypeCode(out->device));
  }
  if (self->dtype != out->dtype)
    return makeError(op + ": dtype of " + selfName + " (" + program::scalarTypeShortName(self->dtype) + ") differs from " +
                     outName + " (" + program::scalarTypeShortName(out->dtype) +
                     "); the portable kernel would copy the source's byte count into the destination");
  // 3. The destination takes the source's shape, within its planned capacity.
  if (auto status = resizeTensor(*out, self->sizes); !status)
    return makeError(op + ": cannot resize out to self sizes (" + status.error().message + ")");
  // 4. An allocator for the device type.
  const program::Device device = toDevice ? out->device : self->device;
  if (auto status = ctx.runtime().checkDevice(device); !status) return makeError(op + ": " + status.error().message);

  // The tags say device, but the memory must be there too: a tensor tagged
  // cuda but planned in a CPU arena (legacy mode, pitfall P13) would have a
  // device API write host memory.
  const TensorRef& deviceSide = toDevice ? *out : *self;
  const TensorRef& hostSide = toDevice ? *self : *out;
  if (!deviceSide.memory.onDevice())
    return makeError(op + ": " + "%" + std::to_string(deviceSide.value) + " is tagged " + deviceSide.device.str() +
                     " but its memory is " + deviceSide.memory.str() +
                     " (planned in a CPU buffer: legacy mode without device memory planning)");
  if (hostSide.memory.onDevice())
    return makeError(op + ": " + "%" + std::to_string(hostSide.value) + " is tagged " + hostSide.device.str() +
                     " but its memory is on " + hostSide.memory.str());
  // CudaAllocator rejects null pointers before it looks at the byte count
  // (pitfall P7), so an empty unbound tensor fails here as well.
  if (self->data == nullptr || out->data == nullptr)
    return makeError(std::string(toDevice ? "copy_host_to_device" : "copy_device_to_host") + " failed: " +
                     (self->data == nullptr ? selfName : outName) + " has no memory (unbound or freed)");

  // 5. The copy: the source's bytes, which fit the resized destination.
  const uint64_t bytes = self->nbytes();
  auto timing = ctx.runtime().copy(out->data, self->data, bytes, direction, device);
  if (!timing)
    return makeError(std::string(toDevice ? "copy_host_to_device" : "copy_device_to_host") + " failed: " +
                     timing.error().message);
  CopyEvent event;
  event.direction = direction;
  event.source_value = ctx.valueIndex(0);
  event.destination_value = ctx.valueIndex(1);
  event.device = device;
  event.host_memory = hostSide.memory.host_kind;
  event.bytes = bytes;
  event.seconds = timing->seconds;
  ctx.recordCopy(event);
  return KernelOutcome::done();
}

}  // namespace

void addCopyKernels(KernelRegistry& registry) {
  registry.add("et_copy::_h2d_copy.out", [](KernelContext& ctx) { return runCopy(ctx, program::CopyDirection::HostToDevice); });
  registry.add("et_copy::_d2h_copy.out", [](KernelContext& ctx) { return runCopy(ctx, program::CopyDirection::DeviceToHost); });
}

}  // namespace ptescope::exec
