#include "analysis/DelegateTransfers.h"

#include <algorithm>
#include <cctype>

#include "analysis/Dataflow.h"
#include "program/DelegatePayload.h"
#include "program/TensorRTBlob.h"
#include "program/Text.h"

namespace ptescope::analysis {
using namespace ptescope::program;

namespace {

constexpr const char* kCudaBackendId = "CudaBackend";

class Deriver {
 public:
  Deriver(const Program& program, const Method& method, const DelegateTransferOptions& options)
      : program_(program), method_(method), values_(items(method.values)), options_(options) {}

  DelegateTransfers run() {
    const auto flow = Dataflow::build(method_);
    const bool cudaGraph = options_.cuda_graph_methods.count(method_.displayName()) > 0;
    const auto& delegates = items(method_.delegates);
    for (const auto& facts : flow.instructions()) {
      if (facts.kind != InstructionKind::DelegateCall || facts.delegate_index < 0 ||
          size_t(facts.delegate_index) >= delegates.size())
        continue;
      const auto& instruction = (*(*method_.chains)[facts.chain].instructions)[facts.index_in_chain];
      const auto* call = std::get_if<DelegateCall>(&instruction.data);
      if (call == nullptr) continue;
      const BackendDelegate& delegate = delegates[size_t(facts.delegate_index)];
      const std::string id = delegate.id.value_or("");
      args_ = &items(call->args);
      if (isTensorRTBackend(id))
        tensorRT(facts.flat_index, facts.delegate_index, delegate, items(call->args));
      else if (id == kCudaBackendId && delegate.findCompileSpec("target_device") == nullptr)
        cudaStaging(facts, delegate);
      else if (id == kCudaBackendId && cudaGraph)
        cudaGraphReplay(facts, delegate);
    }
    return std::move(out_);
  }

 private:
  const Tensor* tensorAt(int32_t v) const {
    return v >= 0 && size_t(v) < values_.size() ? values_[size_t(v)].tensor() : nullptr;
  }
  uint64_t bytesOf(const Tensor& t) const { return uint64_t(std::max<int64_t>(t.nbytes(), 0)); }

  Device targetDevice(const BackendDelegate& delegate) const {
    if (const CompileSpec* spec = delegate.findCompileSpec("target_device"))
      if (auto device = parseDeviceSpec(spec->valueText()); device && !device->isCpu()) return device.value();
    return Device{DeviceType::Cuda, 0};
  }

  void add(size_t k, int32_t d, const std::string& backend, int32_t v, DelegateTransferKind kind, CopyDirection direction,
           uint64_t bytes, Device device, std::string upstream) {
    DelegateTransfer t;
    t.instruction = k;
    t.delegate = d;
    t.backend = backend;
    t.value = v;
    if (args_ != nullptr)
      if (auto at = std::find(args_->begin(), args_->end(), v); at != args_->end()) t.argument = int32_t(at - args_->begin());
    t.kind = kind;
    t.direction = direction;
    t.bytes = bytes;
    t.device = device;
    t.upstream = std::move(upstream);
    out_.transfers.push_back(std::move(t));
  }

  void refuse(size_t k, int32_t d, int32_t v, std::string message) {
    out_.refusals.push_back(DelegateRefusal{k, d, v, std::move(message)});
  }

  // TensorRTBackend::execute: args are the input bindings in order, then
  // the output bindings (aliased ones too), TRB 555-575.
  void tensorRT(size_t k, int32_t d, const BackendDelegate& delegate, const std::vector<int32_t>& args) {
    const auto payload = describeDelegatePayload(program_, delegate);
    if (!payload.tensorrt) return;  // init fails (lint PTS017): nothing runs
    const TensorRTBlob& blob = *payload.tensorrt;
    const Device device{DeviceType::Cuda, int8_t(std::clamp<int64_t>(blob.device_id, -128, 127))};
    const auto inputs = blob.inputs();
    const auto outputs = blob.outputs();
    const std::string at = "delegate " + std::to_string(d) + " (TensorRTBackend) at instruction " + std::to_string(k);
    if (args.size() < inputs.size() + outputs.size()) {
      refuse(k, d, -1,
             at + " has " + std::to_string(args.size()) + " arguments, its engine binds " +
                 std::to_string(inputs.size() + outputs.size()) +
                 ": execute fails with InvalidArgument (TensorRTBackend.cpp 569-575)");
      return;
    }
    std::vector<bool> aliasTarget(inputs.size(), false);
    for (const auto& alias : blob.aliased_io)
      for (size_t i = 0; i < inputs.size(); ++i)
        if (inputs[i]->name == alias.input) aliasTarget[i] = true;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const int32_t v = args[i];
      const Tensor* t = tensorAt(v);
      if (t == nullptr || bytesOf(*t) == 0) continue;  // empty: a 1-byte placeholder, no copy (TRB 709-717)
      if (inDeviceMemory(method_, v)) continue;        // bound in place (TRB 718-719)
      if (aliasTarget[i]) {
        refuse(k, d, v,
               at + ": aliased input '" + inputs[i]->name + "' (%" + std::to_string(v) +
                   ") is host memory; the backend refuses it before any copy, its in-place update could not be "
                   "staged (InvalidArgument, TensorRTBackend.cpp 694-705)");
        continue;
      }
      add(k, d, std::string(kTensorRTBackendId), v, DelegateTransferKind::TensorRTStagedInput,
          CopyDirection::HostToDevice, bytesOf(*t), device, "TensorRTBackend.cpp 720-745");
    }
    for (size_t o = 0; o < outputs.size(); ++o) {
      const int32_t v = args[inputs.size() + o];
      const Tensor* t = tensorAt(v);
      if (t == nullptr || bytesOf(*t) == 0) continue;
      if (blob.aliasOfOutput(outputs[o]->name) != nullptr) {
        // Bound to the aliased input's device pointer, then reflected into
        // this output (the planner never places the two together).
        add(k, d, std::string(kTensorRTBackendId), v, DelegateTransferKind::TensorRTAliasReflect,
            CopyDirection::DeviceToDevice, bytesOf(*t), device, "TensorRTBackend.cpp 789-833, 921-936");
        continue;
      }
      if (inDeviceMemory(method_, v)) continue;
      add(k, d, std::string(kTensorRTBackendId), v, DelegateTransferKind::TensorRTStagedOutput,
          CopyDirection::DeviceToHost, bytesOf(*t), device, "TensorRTBackend.cpp 883-900, 957-973");
    }
  }

  // CudaBackend's replay path: each input d2d into the static buffers, each
  // output d2d back (cuda_backend.cpp 573-610). Inputs and outputs as the
  // argument split reads them (analysis/Dataflow).
  void cudaGraphReplay(const InstructionFacts& facts, const BackendDelegate& delegate) {
    const Device device = targetDevice(delegate);
    for (int32_t v : facts.inputs)
      if (const Tensor* t = tensorAt(v))
        add(facts.flat_index, facts.delegate_index, kCudaBackendId, v, DelegateTransferKind::CudaGraphInput,
            CopyDirection::DeviceToDevice, bytesOf(*t), device, "cuda_backend.cpp 573-590");
    for (int32_t v : facts.outputs)
      if (const Tensor* t = tensorAt(v))
        add(facts.flat_index, facts.delegate_index, kCudaBackendId, v, DelegateTransferKind::CudaGraphOutput,
            CopyDirection::DeviceToDevice, bytesOf(*t), device, "cuda_backend.cpp 600-610");
  }

  // CudaBackend without a target_device gets host memory: each input copied
  // in, each output copied back (see the header).
  void cudaStaging(const InstructionFacts& facts, const BackendDelegate& delegate) {
    const Device device = targetDevice(delegate);
    for (int32_t v : facts.inputs)
      if (const Tensor* t = tensorAt(v); t && bytesOf(*t) > 0 && !inDeviceMemory(method_, v))
        add(facts.flat_index, facts.delegate_index, kCudaBackendId, v, DelegateTransferKind::CudaStagedInput,
            CopyDirection::HostToDevice, bytesOf(*t), device, "cuda_backend.cpp execute: from_etensor");
    for (int32_t v : facts.outputs)
      if (const Tensor* t = tensorAt(v); t && bytesOf(*t) > 0 && !inDeviceMemory(method_, v))
        add(facts.flat_index, facts.delegate_index, kCudaBackendId, v, DelegateTransferKind::CudaStagedOutput,
            CopyDirection::DeviceToHost, bytesOf(*t), device, "cuda_backend.cpp execute: copy_slimtensor_to_etensor");
  }

  const Program& program_;
  const Method& method_;
  const std::vector<Value>& values_;
  const DelegateTransferOptions& options_;
  DelegateTransfers out_;
  const std::vector<int32_t>* args_ = nullptr;  // the DelegateCall being read
};

}  // namespace

std::string delegateTransferKindName(DelegateTransferKind kind) {
  switch (kind) {
    case DelegateTransferKind::TensorRTStagedInput:
    case DelegateTransferKind::TensorRTStagedOutput: return "tensorrt staging";
    case DelegateTransferKind::TensorRTAliasReflect: return "tensorrt alias reflect";
    case DelegateTransferKind::CudaGraphInput:
    case DelegateTransferKind::CudaGraphOutput: return "cuda graph replay";
    case DelegateTransferKind::CudaStagedInput:
    case DelegateTransferKind::CudaStagedOutput: return "cuda staging";
  }
  return "unknown";
}

bool isCudaGraphReplay(DelegateTransferKind kind) {
  return kind == DelegateTransferKind::CudaGraphInput || kind == DelegateTransferKind::CudaGraphOutput;
}

std::string DelegateTransfer::text() const {
  std::string what;
  switch (kind) {
    case DelegateTransferKind::TensorRTStagedInput: what = "input %" + std::to_string(value) + " is host memory, staged"; break;
    case DelegateTransferKind::TensorRTStagedOutput: what = "output %" + std::to_string(value) + " is host memory, staged"; break;
    case DelegateTransferKind::TensorRTAliasReflect: what = "aliased output %" + std::to_string(value) + " reflected"; break;
    case DelegateTransferKind::CudaGraphInput: what = "input %" + std::to_string(value) + " into the graph's static buffer,"; break;
    case DelegateTransferKind::CudaGraphOutput: what = "output %" + std::to_string(value) + " out of the graph's static buffer,"; break;
    case DelegateTransferKind::CudaStagedInput:
      what = "no target_device, input %" + std::to_string(value) + " is host memory, copied";
      break;
    case DelegateTransferKind::CudaStagedOutput:
      what = "no target_device, output %" + std::to_string(value) + " is host memory, copied";
      break;
  }
  return "inside delegate " + std::to_string(delegate) + " (" + backend + "): " + what + " " +
         copyDirectionLongName(direction) + " (" + upstream + ")";
}

std::string DelegateTransfer::shortText() const {
  return "inside delegate " + std::to_string(delegate) + ": " + copyDirectionName(direction) + " " +
         bytesText(int64_t(bytes)) + (isCudaGraphReplay(kind) ? " (CUDA graph replay)" : "");
}

bool DelegateTransfer::onInputSide() const {
  return kind == DelegateTransferKind::TensorRTStagedInput || kind == DelegateTransferKind::CudaGraphInput ||
         kind == DelegateTransferKind::CudaStagedInput;
}

size_t DelegateTransfers::count(CopyDirection direction) const {
  return size_t(std::count_if(transfers.begin(), transfers.end(), [&](const auto& t) { return t.direction == direction; }));
}

uint64_t DelegateTransfers::bytes(CopyDirection direction) const {
  uint64_t total = 0;
  for (const auto& t : transfers)
    if (t.direction == direction) total += t.bytes;
  return total;
}

uint64_t DelegateTransfers::bytes() const {
  uint64_t total = 0;
  for (const auto& t : transfers) total += t.bytes;
  return total;
}

bool inDeviceMemory(const Method& method, int32_t v) {
  const auto& values = items(method.values);
  if (v < 0 || size_t(v) >= values.size()) return false;
  const Tensor* t = values[size_t(v)].tensor();
  if (t == nullptr || !t->isPlanned()) return false;
  return !method.bufferDevice(int32_t(t->allocation_info->memory_id)).isCpu();
}

Result<DelegateTransferOptions> cudaGraphSetting(std::string_view csv, const Program& program) {
  DelegateTransferOptions options;
  auto trim = [](std::string_view t) {
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
    return t;
  };
  size_t pos = 0;
  while (pos <= csv.size()) {
    const size_t comma = csv.find(',', pos);
    const std::string_view token = trim(csv.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos));
    if (!token.empty()) {
      if (program.findMethod(token) == nullptr) {
        std::string names;
        for (const auto& m : program.methods()) names += (names.empty() ? "" : ", ") + m.displayName();
        return makeError("--cuda-graph: the program has no method '" + std::string(token) + "' (it has " + names + ")");
      }
      options.cuda_graph_methods.insert(std::string(token));
    }
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return options;
}

DelegateTransfers delegateTransfers(const Program& program, const Method& method, const DelegateTransferOptions& options) {
  return Deriver(program, method, options).run();
}

}  // namespace ptescope::analysis
