#include "analysis/Diagnostics.h"

#include <map>
#include <set>

#include "analysis/Dataflow.h"
#include "analysis/DelegateTransfers.h"
#include "analysis/Summary.h"
#include "program/DelegatePayload.h"
#include "program/Text.h"

namespace ptescope::analysis {
using namespace ptescope::program;

namespace {

const std::vector<DiagnosticRule> kRules = {
    {"PTS001", "planned-device-input", Severity::Error,
     "a method input is memory-planned on a device: Method::set_input refuses to copy into device memory"},
    {"PTS002", "planned-device-output", Severity::Warning,
     "a method output is memory-planned on a device: callers receive device memory and cannot set their own buffer"},
    {"PTS003", "tensor-buffer-device-mismatch", Severity::Error,
     "a planned tensor's device differs from the device of the buffer it is planned in"},
    {"PTS004", "copy-wrong-devices", Severity::Error,
     "an et_copy op whose source or destination is on the wrong side (the kernel fails with InvalidArgument)"},
    {"PTS005", "copy-dtype-mismatch", Severity::Error,
     "an et_copy op between tensors of different dtypes (the kernel copies source bytes and can overrun)"},
    {"PTS006", "copy-size-mismatch", Severity::Error,
     "an et_copy op whose destination cannot hold the source (static shape differs or bound too small)"},
    {"PTS007", "target-device-cpu", Severity::Warning,
     "a delegate's target_device is cpu: copies are inserted around it and fail at run time"},
    {"PTS008", "bad-target-device", Severity::Error,
     "a target_device compile spec that upstream's pass cannot parse (unknown type, bad index, not UTF-8)"},
    {"PTS009", "unusual-device-index", Severity::Warning,
     "a negative or out-of-range device index (ATen-mode runtimes reject negative indices)"},
    {"PTS010", "unknown-device-type", Severity::Error,
     "a device type the runtime does not know (only CPU=0 and CUDA=1 exist)"},
    {"PTS011", "constant-feeds-device-delegate", Severity::Warning,
     "a stored constant is an input of a device delegate: upstream would serialize its copy as a CUDA-tagged constant"},
    {"PTS012", "device-mutable-buffer", Severity::Error,
     "a device-planned tensor with initial data: the runtime fills it with a host memcpy into device memory"},
    {"PTS013", "round-trip-not-elided", Severity::Warning,
     "a device-to-host copy whose result is copied straight back to the same device"},
    {"PTS014", "host-tensor-into-device-delegate", Severity::Error,
     "a device delegate reads a host tensor directly (the CUDA backend requires device memory for every argument)"},
    {"PTS015", "device-tensor-into-host-kernel", Severity::Error,
     "a CPU kernel reads or writes a device tensor directly (no copy in between)"},
    {"PTS016", "tensorrt-device-mismatch", Severity::Warning,
     "a TensorRT blob's device_id differs from the delegate's target_device: the engine runs on device_id, the "
     "copies and planned buffers are on target_device"},
    {"PTS017", "tensorrt-blob-unreadable", Severity::Error,
     "a TensorRTBackend delegate whose processed blob does not parse (the backend's init fails with InvalidProgram)"},
    {"PTS018", "delegate-refuses-argument", Severity::Error,
     "a delegate's execute refuses one of its arguments before any copy (a TensorRT aliased KV-cache input in host "
     "memory, too few arguments for the engine's bindings)"},
    {"PTS019", "copy-inside-delegate", Severity::Info,
     "a delegate copies a boundary tensor itself (TensorRT staging of host memory, its aliased-output reflect): "
     "bytes per call that no instruction shows"},
    {"PTS020", "delegate-data-missing", Severity::Error,
     "an AOTI delegate (CudaBackend) whose named data (its .so or weights blob) is neither in the program nor in an "
     "attached .ptd: the backend's init fails"},
    {"PTS021", "external-data-missing", Severity::Error,
     "a constant tensor stored outside the program (EXTERNAL) whose data is in no attached .ptd: loading the method "
     "fails"},
};

class Linter {
 public:
  Linter(const Program& program, const Method& method)
      : program_(program), method_(method), values_(items(method.values)), dataflow_(Dataflow::build(method)) {}

  // The command a fix suggests, as the CLI takes it: a program of several
  // methods names this one (`--set-device 0=cuda:0` alone was refused:
  // "the program has 4 methods; name one").
  std::string setDeviceCommand(int32_t delegate, const std::string& device) const {
    const std::string method =
        program_.methods().size() > 1 ? "--method " + program::shellWord(method_.displayName()) + " " : std::string();
    return "ptescope-cli propagate " + method + "--set-device " + std::to_string(delegate) + "=" + device;
  }
  // "ptescope-cli propagate [--method NAME] FLAG": an option flag alone would
  // edit every method of a program of several.
  std::string optionCommand(const std::string& flag) const {
    const std::string method =
        program_.methods().size() > 1 ? "--method " + program::shellWord(method_.displayName()) + " " : std::string();
    return "ptescope-cli propagate " + method + flag;
  }

  std::vector<Diagnostic> run() {
    findBoundaries();
    checkValues();
    checkBuffers();
    checkDelegates();
    checkExternalData();
    checkInstructions();
    return std::move(out_);
  }

 private:
  const DiagnosticRule& rule(const char* id) {
    for (const auto& r : kRules)
      if (std::string(r.id) == id) return r;
    return kRules.front();
  }

  Diagnostic& add(const char* id, std::string message, std::string hint) {
    const auto& r = rule(id);
    Diagnostic d;
    d.id = r.id;
    d.slug = r.slug;
    d.severity = r.severity;
    d.method = method_.displayName();
    d.message = std::move(message);
    d.hint = std::move(hint);
    out_.push_back(std::move(d));
    return out_.back();
  }

  const Tensor* tensorAt(int32_t v) const {
    return v >= 0 && size_t(v) < values_.size() ? values_[size_t(v)].tensor() : nullptr;
  }

  static std::string name(int32_t v) { return "%" + std::to_string(v); }

  void checkDevice(Device device, const std::string& what, std::optional<int32_t> value) {
    const int type = static_cast<int>(device.type);
    if (type != 0 && type != 1) {
      add("PTS010", what + " has device type " + std::to_string(type), "only CPU (0) and CUDA (1) exist; re-export the program")
          .value = value;
    } else if (device.index < 0 || device.index > 15) {
      add("PTS009", what + " is on " + device.str(),
          device.index < 0 ? "portable runtimes read -1 as the current device, ATen-mode runtimes reject it; use an explicit index"
                           : "check the index against the GPUs of the target machine")
          .value = value;
    }
  }

  void checkValues() {
    for (size_t v = 0; v < values_.size(); ++v) {
      const Tensor* t = values_[v].tensor();
      if (t == nullptr) continue;
      const Device device = t->device();
      if (!device.isCpu() || device.index != 0) checkDevice(device, "tensor " + name(int32_t(v)), int32_t(v));
      if (t->isPlanned()) {
        const Device buffer = method_.bufferDevice(int32_t(t->allocation_info->memory_id));
        if (buffer != device && !stagedHostBoundary(int32_t(v)))
          add("PTS003",
              "tensor " + name(int32_t(v)) + " is tagged " + device.str() + " but planned in buffer " +
                  std::to_string(t->allocation_info->memory_id) + " on " + buffer.str(),
              device.isCpu() ? "re-plan the method (ptescope-cli propagate)"
                             : "this is upstream's legacy mode (enable_non_cpu_memory_planning=False): the tensor is "
                               "host memory, which CudaBackend refuses (backends/cuda/runtime/cuda_backend.cpp "
                               "521-560; TensorRTBackend stages it instead); re-export with device planning on "
                               "(ptescope-cli propagate without --no-device-planning)")
              .value = int32_t(v);
        if (!device.isCpu() && (t->data_buffer_idx > 0 || t->isExternal()))
          add("PTS012", "tensor " + name(int32_t(v)) + " is planned on " + device.str() + " and has initial data",
              "keep mutable state inside the delegate or on the host")
              .value = int32_t(v);
      }
      const auto& facts = dataflow_.values()[v];
      if (!device.isCpu() && t->isPlanned() && facts.is_method_input)
        add("PTS001", "method input " + name(int32_t(v)) + " is memory-planned on " + device.str(),
            "export with alloc_graph_input=False so the caller's device memory is used (" +
                optionCommand("--no-alloc-graph-input") + ")")
            .value = int32_t(v);
      if (!device.isCpu() && t->isPlanned() && facts.is_method_output)
        add("PTS002", "method output " + name(int32_t(v)) + " is memory-planned on " + device.str(),
            "export with alloc_graph_output=False and bind an output buffer (" +
                optionCommand("--no-alloc-graph-output") + ")")
            .value = int32_t(v);
    }
  }

  void checkBuffers() {
    for (const auto& entry : items(method_.non_const_buffer_device))
      checkDevice(Device{entry.device_type, entry.device_index}, "planned buffer " + std::to_string(entry.buffer_idx),
                  std::nullopt);
  }

  void checkDelegates() {
    const auto& delegates = items(method_.delegates);
    for (size_t d = 0; d < delegates.size(); ++d) {
      const CompileSpec* spec = delegates[d].findCompileSpec("target_device");
      // Described once: both checks read the same payload (the named data
      // lookups of an AOTI blob are not free).
      const auto payload = describeDelegatePayload(program_, delegates[d]);
      checkTensorRTBlob(int32_t(d), spec, payload);
      checkAotiData(int32_t(d), payload);
      if (spec == nullptr) continue;
      auto device = parseDeviceSpec(spec->valueText());
      if (!device) {
        add("PTS008", "delegate " + std::to_string(d) + " ('" + delegates[d].id.value_or("") + "'): " + device.error().message,
            "use a target_device such as cuda:0")
            .delegate = int32_t(d);
        continue;
      }
      targets_[int32_t(d)] = device.value();
      if (device->isCpu())
        add("PTS007", "delegate " + std::to_string(d) + " ('" + delegates[d].id.value_or("") + "') has target_device '" +
                          spec->valueText() + "'",
            "remove the target_device compile spec for a CPU delegate (" + setDeviceCommand(int32_t(d), "none") + ")")
            .delegate = int32_t(d);
      else if (device->index < 0 || device->index > 15)
        add("PTS009", "delegate " + std::to_string(d) + " targets " + device->str(), "use an explicit index in 0..15")
            .delegate = int32_t(d);
    }
  }

  // TensorRTBackend: the blob parses (TensorRTBackend.cpp init, 243-246) and
  // its device_id, where the engine runs (cudaSetDevice, 260-266 and
  // 587-598), agrees with target_device, where the passes put its data.
  // Constants stored in a .ptd (EXTERNAL): the method cannot load without
  // their data (Run Once said "external tensor 'a' is in no loaded .ptd"
  // while Diagnostics said "No findings").
  void checkExternalData() {
    for (size_t v = 0; v < values_.size(); ++v) {
      const Tensor* t = values_[v].tensor();
      if (t == nullptr || !t->isExternal()) continue;
      const TensorDataSource source = tensorData(program_, *t);
      if (source.kind != TensorDataSource::Kind::Missing) continue;
      add("PTS021", "constant " + name(int32_t(v)) + ": " + source.detail,
          "keep the .ptd the export wrote beside the program, or name it with --ptd FILE")
          .value = int32_t(v);
    }
  }

  // AOTI delegates (CudaBackend): init loads the .so and the weights by the
  // keys their processed bytes hold from the program's named data or a .ptd.
  // A delegate whose processed bytes are empty takes the keys from its
  // method_name ("<method_name>_so_blob", upstream's resolve_blob_keys) and
  // fails init just the same when they are missing (info said so while
  // lint said "0 errors").
  void checkAotiData(int32_t d, const DelegatePayload& payload) {
    const BackendDelegate& delegate = items(method_.delegates)[size_t(d)];
    const bool missing = std::any_of(payload.named_data.begin(), payload.named_data.end(),
                                     [](const auto& n) { return n.where == NamedDataLocation::Where::Missing; });
    if (!payload.aoti || !missing || payload.problem.empty()) return;
    add("PTS020", "delegate " + std::to_string(d) + " ('" + delegate.id.value_or("") + "'): " + payload.problem,
        payload.legacy_keys
            ? std::string("keep the .ptd that holds the method's blobs beside the program, or name it with --ptd FILE")
            : std::string("keep the .ptd the export wrote (aoti_cuda_blob.ptd) beside the program, or name it with --ptd FILE"))
        .delegate = d;
  }

  void checkTensorRTBlob(int32_t d, const CompileSpec* targetSpec, const DelegatePayload& payload) {
    const BackendDelegate& delegate = items(method_.delegates)[size_t(d)];
    if (!isTensorRTBackend(delegate.id.value_or(""))) return;
    const std::string what = "delegate " + std::to_string(d) + " ('" + delegate.id.value_or("") + "')";
    if (!payload.tensorrt) {
      add("PTS017", what + ": " + payload.problem, "re-export the delegate with Torch-TensorRT's ExecuTorch backend")
          .delegate = d;
      return;
    }
    if (targetSpec == nullptr) return;
    auto target = parseDeviceSpec(targetSpec->valueText());
    if (!target || target->isCpu()) return;
    if (target->index != payload.tensorrt->device_id)
      add("PTS016",
          what + ": the engine runs on cuda:" + std::to_string(payload.tensorrt->device_id) +
              " (blob device_id) but target_device is " + target->str(),
          "the backend selects the GPU from the blob (TensorRTBackend.cpp 260-266); set target_device to cuda:" +
              std::to_string(payload.tensorrt->device_id) + " (" + setDeviceCommand(d, "cuda:" + std::to_string(payload.tensorrt->device_id)) + ")")
          .delegate = d;
  }

  void checkInstructions() {
    const auto& ops = items(method_.operators);
    std::map<int32_t, size_t> d2hByOutput;  // host value -> instruction
    std::map<int32_t, int32_t> d2hSource;
    const auto& facts = dataflow_.instructions();
    size_t flat = 0;
    for (const auto& chain : items(method_.chains)) {
      for (const auto& ins : items(chain.instructions)) {
        const size_t k = flat++;
        if (const auto* call = std::get_if<KernelCall>(&ins.data)) {
          if (call->op_index < 0 || size_t(call->op_index) >= ops.size()) continue;
          const Operator& op = ops[size_t(call->op_index)];
          const auto& args = items(call->args);
          if (isH2dCopy(op) || isD2hCopy(op)) {
            checkCopy(k, op, args, isH2dCopy(op), d2hByOutput, d2hSource);
            continue;
          }
          // A CPU kernel that reads or writes a tensor placed on a device.
          auto flagDeviceTensors = [&](const std::vector<int32_t>& values, const char* verb, const char* hint) {
            for (int32_t v : values)
              if (const Tensor* t = tensorAt(v); t && !t->device().isCpu() && !stagedHostBoundary(v))
                add("PTS015", "instruction " + std::to_string(k) + " (" + op.qualifiedName() + ") " + verb + " " +
                                  name(v) + " on " + t->device().str(),
                    hint)
                    .instruction = k;
          };
          flagDeviceTensors(facts[k].inputs, "reads", "insert a device-to-host copy (ptescope-cli propagate)");
          flagDeviceTensors(facts[k].outputs, "writes", "re-run the device passes (ptescope-cli propagate)");
        } else if (const auto* delegateCall = std::get_if<DelegateCall>(&ins.data)) {
          auto target = targets_.find(delegateCall->delegate_index);
          if (target == targets_.end() || target->second.isCpu()) continue;
          for (int32_t v : facts[k].inputs) {
            const Tensor* t = tensorAt(v);
            if (t == nullptr) continue;
            if (t->isConstant()) {
              auto& d = add("PTS011", "constant " + name(v) + " is an input of device delegate " +
                                          std::to_string(delegateCall->delegate_index) + " at instruction " + std::to_string(k),
                            "keep weights inside the delegate (lift them into the lowered module)");
              d.instruction = k;
              d.value = v;
            } else if (t->device().isCpu() && !stagers_.count(delegateCall->delegate_index)) {
              auto& d = add("PTS014", "device delegate " + std::to_string(delegateCall->delegate_index) + " (" +
                                          target->second.str() + ") at instruction " + std::to_string(k) +
                                          " reads host tensor " + name(v),
                            "insert a host-to-device copy (ptescope-cli propagate)");
              d.instruction = k;
              d.value = v;
            }
          }
        }
      }
    }
  }

  // The device delegates' arguments, by kind of backend: TensorRTBackend
  // stages host memory itself (TensorRTBackend.cpp 720-745, 883-900), the
  // others (CudaBackend) refuse it. Then the copies inside delegates and
  // their refusals (analysis/DelegateTransfers) as PTS019 / PTS018.
  void findBoundaries() {
    const auto& delegates = items(method_.delegates);
    for (size_t d = 0; d < delegates.size(); ++d)
      if (isTensorRTBackend(delegates[d].id.value_or(""))) stagers_.insert(int32_t(d));
    for (const auto& facts : dataflow_.instructions()) {
      if (facts.kind != InstructionKind::DelegateCall || facts.delegate_index < 0 ||
          size_t(facts.delegate_index) >= delegates.size() ||
          delegates[size_t(facts.delegate_index)].findCompileSpec("target_device") == nullptr)
        continue;
      auto& into = stagers_.count(facts.delegate_index) ? stagedArgs_ : strictArgs_;
      for (const auto* list : {&facts.inputs, &facts.outputs}) into.insert(list->begin(), list->end());
    }
    const auto inside = delegateTransfers(program_, method_);
    for (const auto& r : inside.refusals) {
      auto& d = add("PTS018", r.message, "keep the aliased input in device memory: export with device planning on");
      d.instruction = r.instruction;
      d.delegate = r.delegate;
      if (r.value >= 0) d.value = r.value;
    }
    for (const auto& t : inside.transfers) {
      auto& d = add("PTS019", t.text() + ", " + program::bytesText(int64_t(t.bytes)) + " per call",
                    t.kind == DelegateTransferKind::TensorRTAliasReflect
                        ? "the backend reflects every aliased output; nothing in the file avoids it"
                    : t.kind == DelegateTransferKind::CudaStagedInput || t.kind == DelegateTransferKind::CudaStagedOutput
                        ? "give the delegate a target_device (" + setDeviceCommand(int32_t(t.delegate), "cuda:0") +
                              ") so the copies are instructions at its boundary the skip options can remove "
                              "(a device-aware CudaBackend refuses host memory)"
                        : "plan the boundary in device memory (device planning on, et_copy at the boundary) so the "
                          "copy is an instruction the skip options can remove");
      d.instruction = t.instruction;
      d.delegate = t.delegate;
      d.value = t.value;
    }
  }

  // A host-memory tensor tagged with a device that only TensorRT delegates
  // use: the backend stages it, so the tag is not an error there.
  bool stagedHostBoundary(int32_t v) const {
    return stagedArgs_.count(v) && !strictArgs_.count(v) && !inDeviceMemory(method_, v);
  }

  void checkCopy(size_t k, const Operator& op, const std::vector<int32_t>& args, bool h2d,
                 std::map<int32_t, size_t>& d2hByOutput, std::map<int32_t, int32_t>& d2hSource) {
    if (args.size() < 2) return;
    const Tensor* self = tensorAt(args[0]);
    const Tensor* out = tensorAt(args[1]);
    if (self == nullptr || out == nullptr) return;
    const std::string at = "instruction " + std::to_string(k) + " (" + op.qualifiedName() + ")";
    auto located = [&](Diagnostic& d) { d.instruction = k; };
    if (h2d && !self->device().isCpu())
      located(add("PTS004", at + ": source " + name(args[0]) + " is on " + self->device().str() + ", not the host",
                  "the source of a host-to-device copy must be a CPU tensor"));
    if (h2d && out->device().isCpu())
      located(add("PTS004", at + ": destination " + name(args[1]) + " is on the host",
                  "the destination of a host-to-device copy must be a device tensor"));
    if (!h2d && self->device().isCpu())
      located(add("PTS004", at + ": source " + name(args[0]) + " is on the host",
                  "the source of a device-to-host copy must be a device tensor"));
    if (!h2d && !out->device().isCpu())
      located(add("PTS004", at + ": destination " + name(args[1]) + " is on " + out->device().str(),
                  "the destination of a device-to-host copy must be a CPU tensor"));
    if (self->scalar_type != out->scalar_type)
      located(add("PTS005", at + ": " + scalarTypeShortName(self->scalar_type) + " source into " +
                                scalarTypeShortName(out->scalar_type) + " destination",
                  "copy ops do not convert; give both tensors the same dtype"));
    const int64_t need = self->nbytes(), have = out->nbytes();
    const bool staticMismatch = out->shape_dynamism == ShapeDynamism::Static && items(self->sizes) != items(out->sizes) &&
                                self->shape_dynamism == ShapeDynamism::Static;
    if (staticMismatch || (need >= 0 && have >= 0 && need > have))
      located(add("PTS006", at + ": source has " + std::to_string(need) + " bytes, destination holds " +
                                std::to_string(have),
                  "the destination must have the source's shape (or a dynamic bound that covers it)"));
    if (!h2d) {
      d2hByOutput[args[1]] = k;
      d2hSource[args[1]] = args[0];
    } else if (auto it = d2hSource.find(args[0]); it != d2hSource.end()) {
      const Tensor* origin = tensorAt(it->second);
      if (origin != nullptr && origin->device() == out->device())
        located(add("PTS013", at + " copies " + name(args[0]) + " back to " + out->device().str() +
                                  ", where it came from (instruction " + std::to_string(d2hByOutput[args[0]]) + ")",
                    "read " + name(it->second) + " directly (ptescope-cli propagate elides such round trips)"));
    }
  }

  const Program& program_;
  const Method& method_;
  const std::vector<Value>& values_;
  Dataflow dataflow_;
  std::map<int32_t, Device> targets_;
  std::set<int32_t> stagers_;                 // TensorRTBackend delegates
  std::set<int32_t> stagedArgs_, strictArgs_;  // arguments of staging / refusing device delegates
  std::vector<Diagnostic> out_;
};

}  // namespace

std::string severityName(Severity severity) {
  switch (severity) {
    case Severity::Info: return "info";
    case Severity::Warning: return "warning";
    case Severity::Error: return "error";
  }
  return "unknown";
}

std::string Diagnostic::location() const {
  std::string s = "method '" + method + "'";
  if (instruction) s += ", instruction " + std::to_string(*instruction);
  if (delegate) s += ", delegate " + std::to_string(*delegate);
  if (value) s += ", value %" + std::to_string(*value);
  return s;
}

const std::vector<DiagnosticRule>& diagnosticRules() { return kRules; }

std::vector<Diagnostic> lintMethod(const Program& program, const Method& method) { return Linter(program, method).run(); }

std::vector<Diagnostic> lintProgram(const Program& program) {
  std::vector<Diagnostic> all;
  for (const auto& m : program.methods()) {
    auto found = lintMethod(program, m);
    all.insert(all.end(), std::make_move_iterator(found.begin()), std::make_move_iterator(found.end()));
  }
  return all;
}

bool hasErrors(const std::vector<Diagnostic>& diagnostics) {
  for (const auto& d : diagnostics)
    if (d.severity == Severity::Error) return true;
  return false;
}

}  // namespace ptescope::analysis
