#include "passes/DevicePasses.h"

#include <algorithm>
#include <map>
#include <set>

#include "analysis/Dataflow.h"
#include "analysis/Summary.h"
#include "passes/ProgramEdit.h"

namespace ptescope::passes {
using namespace ptescope::program;
using analysis::Dataflow;

namespace {

constexpr const char* kCopyOverload = "out";

bool validUtf8(const std::vector<uint8_t>& bytes) {
  size_t i = 0;
  while (i < bytes.size()) {
    const uint8_t c = bytes[i];
    size_t extra = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xe ? 2 : (c >> 3) == 0x1e ? 3 : 99;
    if (extra == 99 || i + extra >= bytes.size() + (extra == 0 ? 1 : 0)) return false;
    for (size_t k = 1; k <= extra; ++k)
      if (i + k >= bytes.size() || (bytes[i + k] >> 6) != 0x2) return false;
    i += extra + 1;
  }
  return true;
}

std::string methodLabel(const Method& method) { return "method '" + method.displayName() + "'"; }

// Flat view of a method's instructions with their positions.
struct FlatInstructions {
  std::vector<Instruction*> instructions;
  std::vector<InstructionPosition> positions;
  explicit FlatInstructions(Method& method) {
    if (!method.chains) return;
    for (uint32_t c = 0; c < method.chains->size(); ++c) {
      auto& chain = (*method.chains)[c];
      if (!chain.instructions) continue;
      for (uint32_t i = 0; i < chain.instructions->size(); ++i) {
        instructions.push_back(&(*chain.instructions)[i]);
        positions.push_back(InstructionPosition{c, i});
      }
    }
  }
};

// The copy ops of a method, described in its own value numbering.
struct CopyInstruction {
  size_t flat = 0;
  program::CopyDirection direction = program::CopyDirection::HostToDevice;
  int32_t self = -1;
  int32_t out = -1;
};

Result<std::vector<CopyInstruction>> findCopies(Method& method) {
  std::vector<CopyInstruction> copies;
  const auto& ops = items(method.operators);
  const size_t valueCount = items(method.values).size();
  FlatInstructions flat(method);
  for (size_t k = 0; k < flat.instructions.size(); ++k) {
    const auto* call = std::get_if<KernelCall>(&flat.instructions[k]->data);
    if (call == nullptr || call->op_index < 0 || size_t(call->op_index) >= ops.size()) continue;
    const Operator& op = ops[size_t(call->op_index)];
    const bool h2d = analysis::isH2dCopy(op), d2h = analysis::isD2hCopy(op);
    if (!h2d && !d2h) continue;
    const auto& args = items(call->args);
    bool wellFormed = args.size() >= 2;
    for (size_t a = 0; wellFormed && a < args.size(); ++a) {
      wellFormed = args[a] >= 0 && size_t(args[a]) < valueCount && (*method.values)[size_t(args[a])].tensor();
      if (a >= 2) wellFormed = wellFormed && args[a] == args[1];
    }
    if (!wellFormed || args[0] == args[1])
      return makeError(methodLabel(method) + ": instruction " + std::to_string(k) + " (" + op.qualifiedName() +
                       ") does not have the arguments [self, out, out] of a copy op; it cannot be stripped");
    copies.push_back(CopyInstruction{k, h2d ? program::CopyDirection::HostToDevice : program::CopyDirection::DeviceToHost, args[0], args[1]});
  }
  return copies;
}

// Describes the copies of a method: sources resolved through chains of
// copies, H2D consumers found among the delegate calls. Value indices are the
// method's own.
std::vector<CopyRecord> describeCopies(Method& method, const std::vector<CopyInstruction>& copies) {
  const auto& values = items(method.values);
  std::vector<int32_t> sourceOf(values.size(), -1);
  for (const auto& c : copies) sourceOf[size_t(c.out)] = c.self;
  auto resolve = [&](int32_t v) {
    for (size_t guard = 0; guard <= copies.size() && sourceOf[size_t(v)] != -1; ++guard) v = sourceOf[size_t(v)];
    return v;
  };
  std::map<int32_t, std::pair<int32_t, int32_t>> consumerOf;  // value -> (delegate ordinal, arg)
  FlatInstructions flat(method);
  int32_t ordinal = 0;
  for (auto* ins : flat.instructions) {
    const auto* call = std::get_if<DelegateCall>(&ins->data);
    if (call == nullptr) continue;
    const auto& args = items(call->args);
    for (size_t a = 0; a < args.size(); ++a)
      if (!consumerOf.count(args[a])) consumerOf[args[a]] = {ordinal, int32_t(a)};
    ++ordinal;
  }
  std::vector<CopyRecord> records;
  for (const auto& c : copies) {
    CopyRecord r;
    r.direction = c.direction;
    r.source = resolve(c.self);
    r.value = c.out;
    r.instruction = c.flat;
    r.from = values[size_t(c.self)].tensor()->device();
    r.to = values[size_t(c.out)].tensor()->device();
    r.bytes = values[size_t(c.self)].tensor()->nbytes();
    if (c.direction == program::CopyDirection::HostToDevice) {
      if (auto it = consumerOf.find(c.out); it != consumerOf.end()) {
        r.consumer_delegate = it->second.first;
        r.consumer_arg = it->second.second;
      }
    }
    records.push_back(r);
  }
  return records;
}

Tensor cloneForCopy(const Tensor& source, Device device) {
  Tensor t;
  t.scalar_type = source.scalar_type;
  t.sizes = source.sizes;
  t.dim_order = source.dim_order;
  t.shape_dynamism = source.shape_dynamism;
  t.requires_grad = source.requires_grad;
  // A fresh value: not a constant, not planned yet, device only.
  t.setDevice(device);
  return t;
}

bool isCopyOnlyExtraInfo(const ExtraTensorInfo& e) {
  return e.mutable_data_segments_idx == 0 && !e.fully_qualified_name && e.location == TensorDataLocation::Segment;
}

}  // namespace

std::string CopyRecord::key() const {
  if (direction == program::CopyDirection::DeviceToHost) return "d2h %" + std::to_string(source);
  return "h2d %" + std::to_string(source) + " -> delegate " + std::to_string(consumer_delegate) + " arg " +
         std::to_string(consumer_arg);
}

std::vector<CopyRecord> copiesNotIn(const std::vector<CopyRecord>& a, const std::vector<CopyRecord>& b) {
  std::multiset<std::string> keys;
  for (const auto& r : b) keys.insert(r.key());
  std::vector<CopyRecord> out;
  for (const auto& r : a) {
    if (auto it = keys.find(r.key()); it != keys.end()) {
      keys.erase(it);
    } else {
      out.push_back(r);
    }
  }
  return out;
}

Status validateDeviceOptions(const DeviceOptions& options) {
  if ((options.skip_h2d_for_method_inputs || options.skip_d2h_for_method_outputs) &&
      !options.enable_non_cpu_memory_planning)
    return makeError(
        "skip_h2d_for_method_inputs and skip_d2h_for_method_outputs are only meaningful when "
        "enable_non_cpu_memory_planning=True, since they control host/device copy insertion which only happens "
        "during device-aware memory planning. Set enable_non_cpu_memory_planning=True, or leave the skip options "
        "disabled.");
  return Ok{};
}

Result<std::optional<Device>> delegateTargetDevice(const BackendDelegate& delegate) {
  const CompileSpec* spec = delegate.findCompileSpec(kTargetDeviceKey);
  if (spec == nullptr) return std::optional<Device>{};
  const auto& bytes = items(spec->value);
  if (!validUtf8(bytes)) return makeError("target_device value is not UTF-8 text");
  auto device = parseDeviceSpec(std::string(bytes.begin(), bytes.end()));
  if (!device) return device.error();
  return std::optional<Device>(device.value());
}

void setDelegateTargetDevice(BackendDelegate& delegate, const std::optional<Device>& device) {
  auto& specs = ensure(delegate.compile_specs);
  if (!device) {
    std::erase_if(specs, [](const CompileSpec& s) { return s.key && *s.key == kTargetDeviceKey; });
    return;
  }
  const std::string text = device->str();
  CompileSpec* first = nullptr;
  for (auto& s : specs)
    if (s.key && *s.key == kTargetDeviceKey) {
      first = &s;
      break;
    }
  if (first == nullptr) {
    specs.push_back(CompileSpec{std::string(kTargetDeviceKey), std::vector<uint8_t>{}});
    first = &specs.back();
  }
  first->value = std::vector<uint8_t>(text.begin(), text.end());
}

Result<std::vector<int32_t>> canonicalValueIndices(const Method& method) {
  // findCopies only reads; it walks the chains through mutable pointers.
  auto copies = findCopies(const_cast<Method&>(method));
  if (!copies) return copies.error();
  const size_t valueCount = items(method.values).size();
  std::vector<int32_t> sourceOf(valueCount, -1);
  for (const auto& c : copies.value()) sourceOf[size_t(c.out)] = c.self;
  // Kept values in order, as compactValues numbers them.
  std::vector<int32_t> mapping(valueCount, -1);
  int32_t next = 0;
  for (size_t v = 0; v < valueCount; ++v)
    if (sourceOf[v] == -1) mapping[v] = next++;
  std::vector<int32_t> canonical(valueCount, -1);
  for (size_t v = 0; v < valueCount; ++v) {
    int32_t r = int32_t(v);
    for (size_t guard = 0; guard <= copies->size() && sourceOf[size_t(r)] != -1; ++guard) r = sourceOf[size_t(r)];
    canonical[v] = mapping[size_t(r)];
  }
  return canonical;
}

namespace {

// The memory plan of a method whose copies were just stripped no longer
// fits its lifetimes: a copy's source now lives on to its last reader on
// the host, while the plan had already put a later value at its place (an
// expert's output on the device, dead once copied to the host, takes the
// place of the previous expert's). Elided views are found by place (a value
// nothing writes, at the place of a live one), so such a later value read as
// a view of the earlier one, was taken for a delegate's input, and got a
// copy it never had. Planning runs again after the passes; until then each
// tensor gets a place of its own, and the views the method had before the
// strip (a view of a copy's output becomes one of the copy's source) take
// their base's, so only true views share storage.
void giveEachTensorItsOwnPlace(Method& method, const std::vector<int32_t>& baseOf) {
  auto& values = ensure(method.values);
  std::map<uint32_t, uint64_t> end;  // memory_id -> first free byte
  auto root = [&](int32_t v) {
    for (size_t guard = 0; guard <= values.size() && baseOf[size_t(v)] != v; ++guard) v = baseOf[size_t(v)];
    return v;
  };
  for (size_t v = 0; v < values.size(); ++v) {
    Tensor* t = values[v].tensor();
    if (t == nullptr || !t->isPlanned() || root(int32_t(v)) != int32_t(v)) continue;
    uint64_t& at = end[t->allocation_info->memory_id];
    t->allocation_info->setOffset(at);
    at += (uint64_t(std::max<int64_t>(t->nbytes(), 1)) + 15) / 16 * 16;
  }
  for (size_t v = 0; v < values.size(); ++v) {
    Tensor* t = values[v].tensor();
    const int32_t base = root(int32_t(v));
    if (t == nullptr || !t->isPlanned() || base == int32_t(v)) continue;
    const Tensor* b = values[size_t(base)].tensor();
    if (b != nullptr && b->isPlanned()) {
      t->allocation_info = b->allocation_info;
    } else {
      uint64_t& at = end[t->allocation_info->memory_id];
      t->allocation_info->setOffset(at);
      at += (uint64_t(std::max<int64_t>(t->nbytes(), 1)) + 15) / 16 * 16;
    }
  }
  auto& sizes = ensure(method.non_const_buffer_sizes);
  for (const auto& [id, bytes] : end) {
    if (id >= sizes.size()) sizes.resize(size_t(id) + 1, 0);
    sizes[id] = std::max<int64_t>(sizes[id], int64_t(bytes));
  }
}

}  // namespace

Result<StripResult> stripDeviceCopies(Method& method) {
  auto copies = findCopies(method);
  if (!copies) return copies.error();
  StripResult result;
  std::vector<CopyRecord> records = describeCopies(method, copies.value());
  const size_t valueCount = items(method.values).size();
  std::vector<int32_t> sourceOf(valueCount, -1);
  std::vector<size_t> remove;
  for (const auto& c : copies.value()) {
    sourceOf[size_t(c.out)] = c.self;
    remove.push_back(c.flat);
  }
  auto resolve = [&](int32_t v) {
    for (size_t guard = 0; guard <= remove.size() && v >= 0 && size_t(v) < valueCount && sourceOf[size_t(v)] != -1; ++guard)
      v = sourceOf[size_t(v)];
    return v;
  };
  // The views as the method has them, before its lifetimes change.
  std::vector<std::optional<int32_t>> viewOf(valueCount);
  if (!remove.empty()) {
    const Dataflow flow = Dataflow::build(method);
    for (size_t v = 0; v < valueCount; ++v) viewOf[v] = flow.values()[v].storage_alias_of;
  }
  removeInstructions(method, remove);
  forEachValueReference(method, [&](int32_t& ref) { ref = resolve(ref); });
  std::vector<bool> keep(valueCount, true);
  for (size_t v = 0; v < valueCount; ++v) keep[v] = sourceOf[v] == -1;
  const auto mapping = compactValues(method, keep);
  result.canonical.resize(valueCount);
  for (size_t v = 0; v < valueCount; ++v) result.canonical[v] = mapping[size_t(resolve(int32_t(v)))];
  for (auto& r : records) r.source = result.canonical[size_t(r.source)];
  if (!remove.empty()) {
    std::vector<int32_t> baseOf(items(method.values).size());
    for (size_t v = 0; v < baseOf.size(); ++v) baseOf[v] = int32_t(v);
    for (size_t v = 0; v < valueCount; ++v)
      if (viewOf[v] && sourceOf[v] == -1 && *viewOf[v] >= 0 && size_t(*viewOf[v]) < valueCount)
        baseOf[size_t(result.canonical[v])] = result.canonical[size_t(*viewOf[v])];
    giveEachTensorItsOwnPlace(method, baseOf);
  }
  result.removed = std::move(records);

  for (auto& value : ensure(method.values)) {
    Tensor* t = value.tensor();
    if (t == nullptr || !t->extra_tensor_info) continue;
    if (t->device() == Device{}) continue;
    t->setDevice(Device{});
    if (isCopyOnlyExtraInfo(*t->extra_tensor_info)) t->extra_tensor_info.reset();
  }
  method.non_const_buffer_device.reset();
  dropUnusedOperators(method);
  return result;
}

namespace {

// PropagateDevicePass on one method, in the upstream pass's phases. Inserts
// are collected first and materialized at the end so the work stays linear.
class DevicePropagation {
 public:
  DevicePropagation(Method& method, const DeviceOptions& options)
      : method(method),
        options(options),
        planning(options.enable_non_cpu_memory_planning),
        dataflow(Dataflow::build(method)),
        flat(method),
        n(flat.instructions.size()),
        originalValueCount(items(method.values).size()),
        retagged(originalValueCount, false),
        before(n),
        after(n),
        isDeviceDelegate(n, false),
        delegateDevice(n),
        viewsOf(originalValueCount) {
    for (size_t v = 0; v < originalValueCount; ++v)
      if (const auto& base = dataflow.values()[v].storage_alias_of) viewsOf[size_t(*base)].push_back(int32_t(v));
  }

  Result<PropagateResult> run() {
    if (auto tagged = tagDelegates(); !tagged) return tagged.error();
    if (!planning) tagViewsLikeTheirBase();
    if (planning) insertDeviceToHostCopies();
    if (planning && result.device_delegates > 0) elideRoundTrips();
    materialize();
    return describeResult();
  }

 private:
  struct PendingCopy {
    program::CopyDirection direction;
    int32_t source;
    int32_t out;
    bool removed = false;
    size_t consumer = 0;      // H2D: flat index of the delegate reading `out`
    size_t argPosition = 0;   // H2D: position in that delegate's args
  };
  struct D2hUsers {
    size_t copy = 0;
    size_t direct = 0;  // CPU instructions (lists they read included) and outputs reading it
    std::vector<size_t> h2d;  // H2D copies reading it
    // List items (tensor and optional tensor lists) redirected to the host
    // copy. A list no instruction reads is not a user: when the copy goes, its
    // items point back at the device value (a list left naming the removed
    // copy would name no value).
    std::vector<int32_t*> list_items;
  };

  Tensor* tensorAt(int32_t v) {
    if (v < 0 || size_t(v) >= method.values->size()) return nullptr;
    return (*method.values)[size_t(v)].tensor();
  }
  size_t viewCount(int32_t v) const { return v >= 0 && size_t(v) < viewsOf.size() ? viewsOf[size_t(v)].size() : 0; }
  void retag(int32_t v, Device device) {
    if (Tensor* t = tensorAt(v)) {
      t->setDevice(device);
      if (size_t(v) < retagged.size()) retagged[size_t(v)] = true;
    }
  }

  // How many of a delegate call's args are inputs: the outputs are the
  // trailing args Dataflow found it writes (splitDelegateArgs, with elided
  // views of defined values counted as inputs).
  size_t delegateInputCount(size_t k, const std::vector<int32_t>& args) const {
    const auto& outputs = dataflow.instructions()[k].outputs;
    size_t count = args.size();
    while (count > 0 && std::find(outputs.begin(), outputs.end(), args[count - 1]) != outputs.end()) --count;
    return count;
  }

  // Phase 1: each device delegate in order gets an H2D before every tensor
  // input (or, with skip_h2d, its placeholder inputs tagged in place; in
  // legacy mode every input tagged), and its outputs tagged with its device.
  Status tagDelegates() {
    int32_t ordinal = -1;
    const auto& delegates = items(method.delegates);
    for (size_t k = 0; k < n; ++k) {
      auto* call = std::get_if<DelegateCall>(&flat.instructions[k]->data);
      if (call != nullptr) ++ordinal;
      if (call != nullptr && call->delegate_index >= 0 && size_t(call->delegate_index) < delegates.size()) {
        const BackendDelegate& delegate = delegates[size_t(call->delegate_index)];
        auto target = delegateTargetDevice(delegate);
        if (!target)
          return makeError(methodLabel(method) + ": delegate " + std::to_string(call->delegate_index) + " ('" +
                           delegate.id.value_or("") + "') at instruction " + std::to_string(k) + ": " +
                           target.error().message);
        if (target.value()) {
          const Device device = *target.value();
          ++result.device_delegates;
          isDeviceDelegate[k] = true;
          delegateDevice[k] = device;
          auto& args = ensure(call->args);
          const size_t inputCount = delegateInputCount(k, args);
          for (size_t p = 0; p < inputCount; ++p) {
            const int32_t v = args[p];
            const Tensor* source = tensorAt(v);
            if (source == nullptr) continue;  // non-tensor and list args get no copy
            if (!planning) {
              retag(v, device);
              continue;
            }
            const auto& facts = dataflow.value(v);
            const bool placeholder = facts.is_method_input || source->isConstant();
            if (options.skip_h2d_for_method_inputs && placeholder) {
              const size_t users = facts.consumers.size() + (facts.is_method_output ? 1 : 0) + viewCount(v);
              if (users != 1)
                return makeError(methodLabel(method) + ": skip_h2d_for_method_inputs=True requires placeholder '%" +
                                 std::to_string(v) + "' to have exactly one user, but it has " + std::to_string(users) +
                                 " users. The placeholder is shared by multiple consumers, so its TensorSpec cannot "
                                 "be safely mutated in-place to the delegate's device. Either disable "
                                 "skip_h2d_for_method_inputs, or ensure the placeholder is used exclusively by this "
                                 "delegate.");
              retag(v, device);
              if (source->isConstant())
                result.notes.push_back(methodLabel(method) + ": constant %" + std::to_string(v) +
                                       " is tagged " + device.str() + " in place (skip_h2d); its data stays in the program");
              continue;
            }
            if (source->isConstant())
              result.notes.push_back(methodLabel(method) + ": constant %" + std::to_string(v) + " feeds device delegate " +
                                     std::to_string(ordinal) + "; its copy is planned as a device tensor");
            const int32_t out = appendValue(method, Value{cloneForCopy(*source, device)});
            copies.push_back(PendingCopy{program::CopyDirection::HostToDevice, v, out, false, k, p});
            before[k].push_back(copies.size() - 1);
            args[p] = out;
          }
          std::vector<int32_t> outputs;
          for (size_t p = inputCount; p < args.size(); ++p) {
            if (tensorAt(args[p]) == nullptr) continue;
            retag(args[p], device);
            outputs.push_back(args[p]);
          }
          deviceOutputs.emplace_back(k, std::move(outputs));
        }
      }
    }
    return Ok{};
  }

  // Without device planning no copy is made; a view spec takes its device
  // from its base (spec §1.8), so the views of a tagged value are tagged too.
  void tagViewsLikeTheirBase() {
    for (size_t base = 0; base < originalValueCount; ++base)
      if (retagged[base])
        for (int32_t view : viewsOf[base]) retag(view, tensorAt(int32_t(base))->device());
  }

  // Phase 2: a D2H after every device delegate output that has a reader
  // other than the method's output list (or any reader without skip_d2h),
  // and every other reader redirected to the host copy.
  void insertDeviceToHostCopies() {
    // H2D copies by source value, for the outputs' readers.
    std::map<int32_t, std::vector<size_t>> h2dBySource;
    for (size_t c = 0; c < copies.size(); ++c) h2dBySource[copies[c].source].push_back(c);
    auto& outputsList = ensure(method.outputs);
    // TensorList items naming each value, so redirecting a reader is not a
    // scan over every value. Room for every D2H output is reserved first so
    // the pointers stay valid while values are appended.
    size_t outputCount = 0;
    for (const auto& entry : deviceOutputs) outputCount += entry.second.size();
    method.values->reserve(method.values->size() + outputCount);
    // Optional tensor lists too: upstream's replace_all_uses_with rewires a
    // use inside any list argument (aten::index's Optional[Tensor][] indices).
    std::map<int32_t, std::vector<int32_t*>> listItemsByMember;
    auto indexItems = [&](Opt<std::vector<int32_t>>& items) {
      if (items)
        for (auto& item : *items) listItemsByMember[item].push_back(&item);
    };
    for (auto& value : *method.values) {
      if (auto* list = std::get_if<TensorListValue>(&value.data)) indexItems(list->items);
      if (auto* optional = std::get_if<OptionalTensorListValue>(&value.data)) indexItems(optional->items);
    }
    for (const auto& [k, outputs] : deviceOutputs) {
      for (int32_t y : outputs) {
        const auto& facts = dataflow.value(y);
        std::vector<size_t> directReaders;
        for (size_t c : facts.consumers)
          if (!isDeviceDelegate[c]) directReaders.push_back(c);
        const auto& h2dReaders = h2dBySource[y];
        const size_t viewUsers = viewCount(y);
        const bool instructionUsers = !directReaders.empty() || !h2dReaders.empty() || viewUsers > 0;
        if (!instructionUsers && !facts.is_method_output) continue;  // dead output: upstream's DCE drops its copy
        if (options.skip_d2h_for_method_outputs && !instructionUsers) continue;  // stays on the device
        const Tensor* source = tensorAt(y);
        Tensor hostTensor = cloneForCopy(*source, Device{});
        // y's views follow its data to the host copy: at y's place (nothing
        // else is defined there before their reads), the copy is the latest
        // value written when they are read, so planning puts them over it.
        if (viewUsers > 0) hostTensor.allocation_info = source->allocation_info;
        const int32_t host = appendValue(method, Value{std::move(hostTensor)});
        copies.push_back(PendingCopy{program::CopyDirection::DeviceToHost, y, host});
        const size_t copyIndex = copies.size() - 1;
        after[k].push_back(copyIndex);
        D2hUsers users;
        users.copy = copyIndex;
        users.direct = viewUsers;  // each view is a CPU reader (upstream's view_copy node)
        // Redirect every other reader to the host copy.
        for (size_t c : directReaders) {
          std::visit(
              [&](auto& ins) {
                using T = std::decay_t<decltype(ins)>;
                if constexpr (std::is_same_v<T, KernelCall> || std::is_same_v<T, DelegateCall>) {
                  for (auto& a : ensure(ins.args))
                    if (a == y) a = host;
                } else if constexpr (std::is_same_v<T, MoveCall>) {
                  if (ins.move_from == y) ins.move_from = host;
                } else if constexpr (std::is_same_v<T, JumpFalseCall>) {
                  if (ins.cond_value_index == y) ins.cond_value_index = host;
                } else if constexpr (std::is_same_v<T, FreeCall>) {
                  if (ins.value_index == y) ins.value_index = host;
                }
              },
              flat.instructions[c]->data);
          ++users.direct;
        }
        if (auto refs = listItemsByMember.find(y); refs != listItemsByMember.end())
          for (int32_t* item : refs->second) {
            *item = host;
            users.list_items.push_back(item);
          }
        for (size_t h : h2dReaders) {
          copies[h].source = host;
          users.h2d.push_back(h);
        }
        for (auto& o : outputsList)
          if (o == y) {
            o = host;
            ++users.direct;
          }
        if (method.chains)
          for (auto& chain : *method.chains)
            if (chain.outputs)
              for (auto& o : *chain.outputs)
                if (o == y) o = host;
        d2hs.push_back(std::move(users));
      }
    }
  }

  // Phase 3: H2D of a D2H that goes back to the device the data came from is
  // a round trip: the delegate reads the device value directly. D2H copies
  // left without readers go away.
  void elideRoundTrips() {
    std::map<int32_t, size_t> d2hByHostValue;
    for (size_t i = 0; i < d2hs.size(); ++i) d2hByHostValue[copies[d2hs[i].copy].out] = i;
    bool erased = false;
    for (auto& h2d : copies) {
      if (h2d.direction != program::CopyDirection::HostToDevice) continue;
      auto it = d2hByHostValue.find(h2d.source);
      if (it == d2hByHostValue.end()) continue;
      const int32_t deviceValue = copies[d2hs[it->second].copy].source;
      if (tensorAt(deviceValue)->device() != tensorAt(h2d.out)->device()) continue;
      auto* call = std::get_if<DelegateCall>(&flat.instructions[h2d.consumer]->data);
      (*call->args)[h2d.argPosition] = deviceValue;
      h2d.removed = true;
      ++result.elided_h2d;
      erased = true;
    }
    if (erased) {
      for (auto& users : d2hs) {
        const bool anyH2d = std::any_of(users.h2d.begin(), users.h2d.end(), [&](size_t h) { return !copies[h].removed; });
        if (users.direct > 0 || anyH2d) continue;
        copies[users.copy].removed = true;
        for (int32_t* item : users.list_items) *item = copies[users.copy].source;
      }
    }
  }

  // The copies into the chains (jump targets and stack traces follow), the
  // values of removed copies out.
  void materialize() {
    const int32_t h2dOp = std::any_of(copies.begin(), copies.end(), [](const PendingCopy& c) {
      return !c.removed && c.direction == program::CopyDirection::HostToDevice;
    }) ? ensureOperator(method, analysis::kH2dCopyOperator, kCopyOverload) : -1;
    const int32_t d2hOp = std::any_of(copies.begin(), copies.end(), [](const PendingCopy& c) {
      return !c.removed && c.direction == program::CopyDirection::DeviceToHost;
    }) ? ensureOperator(method, analysis::kD2hCopyOperator, kCopyOverload) : -1;
    auto copyInstruction = [&](const PendingCopy& c) {
      const int32_t op = c.direction == program::CopyDirection::HostToDevice ? h2dOp : d2hOp;
      return Instruction{KernelCall{op, std::vector<int32_t>{c.source, c.out, c.out}}};
    };
    if (!copies.empty() && method.chains) {
      size_t base = 0;
      for (auto& chain : *method.chains) {
        auto& instrs = ensure(chain.instructions);
        const size_t count = instrs.size();
        const bool hasTrace = chain.stacktrace && chain.stacktrace->size() == count;
        std::vector<Instruction> rebuilt;
        std::vector<FrameList> frames;
        std::vector<int32_t> newStart(count + 1, 0);
        for (size_t i = 0; i < count; ++i) {
          newStart[i] = int32_t(rebuilt.size());
          for (size_t c : before[base + i])
            if (!copies[c].removed) {
              rebuilt.push_back(copyInstruction(copies[c]));
              if (hasTrace) frames.push_back(FrameList{});
            }
          rebuilt.push_back(std::move(instrs[i]));
          if (hasTrace) frames.push_back(std::move((*chain.stacktrace)[i]));
          for (size_t c : after[base + i])
            if (!copies[c].removed) {
              rebuilt.push_back(copyInstruction(copies[c]));
              if (hasTrace) frames.push_back(FrameList{});
            }
        }
        newStart[count] = int32_t(rebuilt.size());
        for (auto& ins : rebuilt)
          if (auto* jump = std::get_if<JumpFalseCall>(&ins.data))
            jump->destination_instruction = newStart[size_t(std::clamp<int32_t>(jump->destination_instruction, 0, int32_t(count)))];
        instrs = std::move(rebuilt);
        if (hasTrace) chain.stacktrace = std::move(frames);
        base += count;
      }
    }
    std::vector<bool> keep(method.values->size(), true);
    for (const auto& c : copies)
      if (c.removed) keep[size_t(c.out)] = false;
    compactValues(method, keep);
  }

  Result<PropagateResult> describeResult() {
    for (size_t v = 0; v < method.values->size(); ++v)
      if (const Tensor* t = (*method.values)[v].tensor(); t && !t->device().isCpu()) result.retagged.push_back(int32_t(v));
    auto found = findCopies(method);
    if (!found) return found.error();
    result.added = describeCopies(method, found.value());
    return std::move(result);
  }

  Method& method;
  const DeviceOptions& options;
  const bool planning;
  const Dataflow dataflow;
  FlatInstructions flat;
  const size_t n;
  const size_t originalValueCount;
  PropagateResult result;
  std::vector<bool> retagged;
  std::vector<PendingCopy> copies;
  std::vector<std::vector<size_t>> before, after;  // indices into `copies`
  std::vector<bool> isDeviceDelegate;
  std::vector<std::pair<size_t, std::vector<int32_t>>> deviceOutputs;  // (flat, outputs)
  std::vector<Device> delegateDevice;
  std::vector<D2hUsers> d2hs;
  // Elided static views of each value (Dataflow's storage_alias_of): upstream's
  // view_copy node, made before the views were elided, is a user of its base.
  std::vector<std::vector<int32_t>> viewsOf;
};

}  // namespace

Result<PropagateResult> propagateDevice(Method& method, const DeviceOptions& options) {
  if (auto valid = validateDeviceOptions(options); !valid) return valid.error();
  auto existing = findCopies(method);
  if (!existing) return existing.error();
  if (!existing->empty())
    return makeError(methodLabel(method) + " already has host/device copies; strip them before propagating");
  return DevicePropagation(method, options).run();
}

}  // namespace ptescope::passes
