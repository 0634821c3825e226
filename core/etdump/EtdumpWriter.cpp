#include "etdump/EtdumpWriter.h"

#include <algorithm>

#include "analysis/Dataflow.h"
#include "etdump/EtdumpProfile.h"
#include "etdump_generated.h"

namespace ptescope::etdump {

namespace fb = ::etdump_flatbuffer;

namespace {

flatbuffers::Offset<fb::Tensor> tensorOf(flatbuffers::FlatBufferBuilder& b, const DebugTensor& t) {
  return fb::CreateTensor(b, executorch_flatbuffer::ScalarType(t.scalar_type), b.CreateVector(t.sizes),
                          b.CreateVector(t.strides), t.offset);
}

flatbuffers::Offset<fb::Value> valueOf(flatbuffers::FlatBufferBuilder& b, const DebugValue& v) {
  using K = DebugValue::Kind;
  flatbuffers::Offset<fb::Tensor> tensor;
  flatbuffers::Offset<fb::TensorList> list;
  flatbuffers::Offset<fb::Int> i;
  flatbuffers::Offset<fb::Float> f;
  flatbuffers::Offset<fb::Double> d;
  flatbuffers::Offset<fb::Bool> boolean;
  flatbuffers::Offset<fb::Bool> output;
  if (v.kind == K::Tensor && !v.tensors.empty()) tensor = tensorOf(b, v.tensors.front());
  if (v.kind == K::TensorList) {
    std::vector<flatbuffers::Offset<fb::Tensor>> items;
    for (const auto& t : v.tensors) items.push_back(tensorOf(b, t));
    list = fb::CreateTensorList(b, b.CreateVector(items));
  }
  if (v.kind == K::Int) i = fb::CreateInt(b, v.int_value);
  if (v.kind == K::Float) f = fb::CreateFloat(b, float(v.double_value));
  if (v.kind == K::Double) d = fb::CreateDouble(b, v.double_value);
  if (v.kind == K::Bool) boolean = fb::CreateBool(b, v.bool_value);
  if (v.output) output = fb::CreateBool(b, true);
  return fb::CreateValue(b, fb::ValueType(int8_t(v.kind)), tensor, list, i, f, d, boolean, output);
}

flatbuffers::Offset<flatbuffers::String> optionalString(flatbuffers::FlatBufferBuilder& b, const std::string& s) {
  return s.empty() ? flatbuffers::Offset<flatbuffers::String>() : b.CreateString(s);
}

}  // namespace

std::vector<uint8_t> serializeEtdump(const Etdump& dump, bool sizePrefixed) {
  flatbuffers::FlatBufferBuilder b(1024 + dump.profileEventCount() * 64);
  std::vector<flatbuffers::Offset<fb::RunData>> runs;
  for (const auto& block : dump.blocks) {
    std::vector<flatbuffers::Offset<fb::Event>> events;
    events.reserve(block.events.size());
    for (const auto& event : block.events) {
      if (const auto* p = std::get_if<ProfileEvent>(&event)) {
        auto metadata = p->delegate_debug_metadata.empty() ? flatbuffers::Offset<flatbuffers::Vector<uint8_t>>()
                                                           : b.CreateVector(p->delegate_debug_metadata);
        auto e = fb::CreateProfileEvent(b, optionalString(b, p->name), p->chain_index, p->instruction_id,
                                        p->delegate_debug_id_int, optionalString(b, p->delegate_debug_id_str), metadata,
                                        p->start_ticks, p->end_ticks);
        events.push_back(fb::CreateEvent(b, e));
      } else if (const auto* a = std::get_if<AllocationEvent>(&event)) {
        events.push_back(fb::CreateEvent(b, 0, fb::CreateAllocationEvent(b, a->allocator_id, a->allocation_size)));
      } else if (const auto* d = std::get_if<DebugEvent>(&event)) {
        auto value = d->value ? valueOf(b, *d->value) : flatbuffers::Offset<fb::Value>();
        auto e = fb::CreateDebugEvent(b, d->chain_index, d->instruction_id, value, d->delegate_debug_id_int,
                                      optionalString(b, d->delegate_debug_id_str), optionalString(b, d->name));
        events.push_back(fb::CreateEvent(b, 0, 0, e));
      }
    }
    std::vector<flatbuffers::Offset<fb::Allocator>> allocators;
    for (const auto& name : block.allocators) allocators.push_back(fb::CreateAllocator(b, b.CreateString(name)));
    runs.push_back(fb::CreateRunData(b, b.CreateString(block.name), block.bundled_input_index,
                                     allocators.empty() ? 0 : b.CreateVector(allocators), b.CreateVector(events)));
  }
  auto root = fb::CreateETDump(b, dump.version, b.CreateVector(runs));
  if (sizePrefixed)
    fb::FinishSizePrefixedETDumpBuffer(b, root);
  else
    fb::FinishETDumpBuffer(b, root);
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

Result<Etdump> synthesizeEtdump(const program::Program& program, const TraceSpec& spec) {
  const program::Method* method = spec.method.empty() ? (program.methods().empty() ? nullptr : &program.methods().front())
                                                      : program.findMethod(spec.method);
  if (method == nullptr) return makeError("no method '" + spec.method + "' to write a trace for");
  const auto flow = analysis::Dataflow::build(*method);
  const auto& ops = program::items(method->operators);
  auto ticksOf = [&](size_t iteration, size_t instruction) -> uint64_t {
    const uint64_t t = spec.ticks ? spec.ticks(iteration, instruction) : 100 + instruction;
    return std::max<uint64_t>(t, 4);
  };
  auto event = [](std::string name, int32_t chain, int32_t instruction, uint64_t start, uint64_t end) {
    ProfileEvent e;
    e.name = std::move(name);
    e.chain_index = chain;
    e.instruction_id = instruction;
    e.start_ticks = start;
    e.end_ticks = end;
    return e;
  };

  Etdump dump;
  uint64_t now = 1000;
  RunData load;
  load.name = "Default";
  load.events.emplace_back(event("Method::init", -1, 0, now + 10, now + 90));
  load.events.emplace_back(event("Program::load_method", -1, 0, now, now + 100));
  dump.blocks.push_back(std::move(load));
  now += 200;

  for (size_t iteration = 0; iteration < spec.iterations; ++iteration) {
    RunData run;
    run.name = "Execute";
    run.events.reserve(flow.instructionCount() * 2 + 1);
    const uint64_t runStart = now;
    now += 5;
    for (const auto& f : flow.instructions()) {
      const int32_t chain = int32_t(f.chain);
      const int32_t id = int32_t(f.index_in_chain);
      const uint64_t start = now + 1;
      const uint64_t end = start + ticksOf(iteration, f.flat_index);
      switch (f.kind) {
        case program::InstructionKind::KernelCall:
          if (f.op_index >= 0 && size_t(f.op_index) < ops.size())
            run.events.emplace_back(event(nativeCallName(ops[size_t(f.op_index)]), chain, id, start + 1, end - 1));
          run.events.emplace_back(event("OPERATOR_CALL", chain, id, start, end));
          break;
        case program::InstructionKind::DelegateCall:
          if (spec.delegate_events) {
            ProfileEvent byInt = event("", chain, id, start + 1, start + 2);
            byInt.delegate_debug_id_int = 0;
            byInt.delegate_debug_metadata = {'m', 'd'};
            run.events.emplace_back(byInt);
            ProfileEvent byStr = event("", chain, id, start + 2, end - 1);
            byStr.delegate_debug_id_str = "stub_op #1";
            run.events.emplace_back(byStr);
          }
          run.events.emplace_back(event("DELEGATE_CALL", chain, id, start, end));
          break;
        case program::InstructionKind::MoveCall: run.events.emplace_back(event("MOVE_CALL", chain, id, start, end)); break;
        case program::InstructionKind::JumpFalseCall: run.events.emplace_back(event("JF_CALL", chain, id, start, end)); break;
        case program::InstructionKind::FreeCall: run.events.emplace_back(event("FREE_CALL", chain, id, start, end)); break;
        case program::InstructionKind::None: break;
      }
      now = end;
    }
    now += 5;
    run.events.emplace_back(event("Method::execute", -1, 0, runStart, now));
    dump.blocks.push_back(std::move(run));
    now += 50;
  }
  return dump;
}

}  // namespace ptescope::etdump
