// Device-aware memory planning (passes/MemoryPlanner) against the rules of
// spec/device-semantics.md §2.3, §2.5-2.6 and the upstream suite
// TestDeviceAwareMemoryPlanning (§4.4). Expected numbers are worked out from
// those rules by hand in the comments, never taken from the planner.
#include <QtTest>

#include <set>

#include "analysis/Dataflow.h"
#include "passes/MemoryPlanner.h"
#include "pte/Reader.h"
#include "pte/Writer.h"
#include "support/TestSupport.h"
#include "synth/ProgramBuilder.h"

using namespace ptescope;
using namespace ptescope::program;
using passes::PlanningOptions;
using synth::MethodBuilder;
using synth::ProgramBuilder;
using synth::ValueId;

namespace {

constexpr Device kCuda0{DeviceType::Cuda, 0};
constexpr Device kCuda1{DeviceType::Cuda, 1};

// Builds without planning so that each test runs the planner itself.
Program buildUnplanned(const ProgramBuilder& builder) {
  synth::BuildOptions options;
  options.plan_memory = false;
  auto program = builder.build(options);
  if (!program) {
    QTest::qFail(qPrintable(QString::fromStdString(program.error().message)), __FILE__, __LINE__);
    return {};
  }
  return std::move(program.value());
}

const Tensor& tensorAt(const Method& method, ValueId v) { return *items(method.values).at(static_cast<size_t>(v)).tensor(); }
uint32_t memoryId(const Method& method, ValueId v) {
  const auto& t = tensorAt(method, v);
  return t.allocation_info ? t.allocation_info->memory_id : 0;
}
uint64_t offsetOf(const Method& method, ValueId v) {
  const auto& t = tensorAt(method, v);
  return t.allocation_info ? t.allocation_info->offset() : UINT64_MAX;
}

ValueId float2x2(MethodBuilder& m) { return m.addTensor(ScalarType::Float, {2, 2}); }

// a + b -> y as one CPU kernel, every tensor tagged `device`.
struct AddGraph {
  ProgramBuilder builder;
  ValueId a = 0, b = 0, y = 0;
  explicit AddGraph(Device device) {
    auto& m = builder.addMethod("forward");
    a = float2x2(m);
    b = float2x2(m);
    y = float2x2(m);
    m.addKernelCall("aten::add.out", {a, b}, {y});
    m.setInputs({a, b});
    m.setOutputs({y});
    for (ValueId v : {a, b, y}) m.setDevice(v, device);
  }
};

}  // namespace

class MemoryPlannerTest : public QObject {
  Q_OBJECT

 private slots:
  // Flag on, CPU only: [0, X] and no device list. a, b and y are all alive
  // at instruction 0, three 16-byte tensors: X = 48.
  void cpuOnlyHasNoDeviceList() {
    AddGraph g(Device{});
    Program p = buildUnplanned(g.builder);
    auto& method = p.methods()[0];
    auto result = passes::planMemory(method);
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    QCOMPARE(items(method.non_const_buffer_sizes), (std::vector<int64_t>{0, 48}));
    QVERIFY(!method.non_const_buffer_device.has_value());
    for (ValueId v : {g.a, g.b, g.y}) QCOMPARE(memoryId(method, v), 1u);
    QCOMPARE(result->buffers.size(), size_t(1));
    QCOMPARE(result->buffers[0].device, Device{});
  }

  // CUDA only: two buffers [0, X], the CUDA arena is mem_id 1, map [{1, CUDA, 0}].
  void cudaOnlyIsBufferOne() {
    AddGraph g(kCuda0);
    Program p = buildUnplanned(g.builder);
    auto& method = p.methods()[0];
    QVERIFY(passes::planMemory(method).ok());
    QCOMPARE(items(method.non_const_buffer_sizes), (std::vector<int64_t>{0, 48}));
    QVERIFY(method.non_const_buffer_device.has_value());
    QCOMPARE(method.non_const_buffer_device->size(), size_t(1));
    const auto& entry = method.non_const_buffer_device->front();
    QCOMPARE(entry.buffer_idx, 1);
    QCOMPARE(entry.device_type, DeviceType::Cuda);
    QCOMPARE(int(entry.device_index), 0);
    for (ValueId v : {g.a, g.b, g.y}) QCOMPARE(memoryId(method, v), 1u);
  }

  // Mixed: 3 buffers, CPU mem_id 1 and CUDA mem_id 2; a lone CUDA tensor is
  // at offset 0 of an arena at least its size.
  void mixedCpuAndCuda() {
    AddGraph g(Device{});
    g.builder.findMethod("forward")->setDevice(g.y, kCuda0);
    Program p = buildUnplanned(g.builder);
    auto& method = p.methods()[0];
    QVERIFY(passes::planMemory(method).ok());
    const auto& sizes = items(method.non_const_buffer_sizes);
    QCOMPARE(sizes.size(), size_t(3));
    QCOMPARE(sizes[0], int64_t(0));
    QCOMPARE(sizes[1], int64_t(32));  // a and b alive together
    QVERIFY(sizes[2] >= 16);
    QCOMPARE(memoryId(method, g.a), 1u);
    QCOMPARE(memoryId(method, g.b), 1u);
    QCOMPARE(memoryId(method, g.y), 2u);
    QCOMPARE(offsetOf(method, g.y), uint64_t(0));
    QCOMPARE(method.bufferDevice(1), Device{});
    QCOMPARE(method.bufferDevice(2), kCuda0);
    QCOMPARE(items(method.non_const_buffer_device).size(), size_t(1));
  }

  // cuda:0 plus cuda:1 (plus the CPU inputs): 4 buffers, one arena per
  // (type, index), CPU first, then by index.
  void twoCudaDevicesGetTwoArenas() {
    ProgramBuilder builder;
    auto& m = builder.addMethod("forward");
    ValueId a = float2x2(m), t = float2x2(m), u = float2x2(m), y = float2x2(m);
    m.addKernelCall("test::f.out", {a}, {t});
    m.addKernelCall("test::f.out", {t}, {u});
    m.addKernelCall("test::f.out", {u}, {y});
    m.setInputs({a});
    m.setOutputs({y});
    m.setDevice(t, kCuda1);  // the cuda:1 tensor is seen first, the order still is cuda:0, cuda:1
    m.setDevice(u, kCuda0);
    Program p = buildUnplanned(builder);
    auto& method = p.methods()[0];
    QVERIFY(passes::planMemory(method).ok());
    // CPU: a [0,0] and y [2,3] never overlap, so they share 16 bytes.
    QCOMPARE(items(method.non_const_buffer_sizes), (std::vector<int64_t>{0, 16, 16, 16}));
    QCOMPARE(memoryId(method, a), 1u);
    QCOMPARE(memoryId(method, y), 1u);
    QCOMPARE(memoryId(method, u), 2u);
    QCOMPARE(memoryId(method, t), 3u);
    const auto& map = items(method.non_const_buffer_device);
    QCOMPARE(map.size(), size_t(2));
    QCOMPARE(map[0].buffer_idx, 2);
    QCOMPARE(int(map[0].device_index), 0);
    QCOMPARE(map[1].buffer_idx, 3);
    QCOMPARE(int(map[1].device_index), 1);
    QVERIFY(map[0].device_type == DeviceType::Cuda && map[1].device_type == DeviceType::Cuda);
  }

  void deviceIndexIsPreserved() {
    AddGraph g(Device{DeviceType::Cuda, 3});
    Program p = buildUnplanned(g.builder);
    auto& method = p.methods()[0];
    QVERIFY(passes::planMemory(method).ok());
    QCOMPARE(items(method.non_const_buffer_device).size(), size_t(1));
    QCOMPARE(int(method.non_const_buffer_device->front().device_index), 3);
    QCOMPARE(method.bufferDevice(1), (Device{DeviceType::Cuda, 3}));
  }

  // Flag off and every tensor CUDA: one CPU bucket, [0, X], no map.
  void flagOffPlansEverythingOnCpu() {
    AddGraph g(kCuda0);
    Program p = buildUnplanned(g.builder);
    auto& method = p.methods()[0];
    PlanningOptions options;
    options.enable_non_cpu_memory_planning = false;
    QVERIFY(passes::planMemory(method, options).ok());
    QCOMPARE(items(method.non_const_buffer_sizes), (std::vector<int64_t>{0, 48}));
    QVERIFY(!method.non_const_buffer_device.has_value());
    QCOMPARE(tensorAt(method, g.a).device(), kCuda0);  // tags are kept, only planning ignores them
  }

  // The canonical program of §2.3: h2d(a)->A', h2d(b)->B', delegate(A', B')->Y,
  // d2h(Y)->y; A', B', Y on cuda:0. Expected [0, 32, 48], CUDA at buffer 2,
  // y reusing the slot of a or b.
  void canonicalAddOnCuda() {
    ProgramBuilder builder;
    auto& m = builder.addMethod("forward");
    ValueId a = float2x2(m), b = float2x2(m);
    ValueId aDev = float2x2(m), bDev = float2x2(m), yDev = float2x2(m), y = float2x2(m);
    m.addKernelCall("et_copy::_h2d_copy.out", {a}, {aDev});
    m.addKernelCall("et_copy::_h2d_copy.out", {b}, {bDev});
    m.addDelegateCall("CudaBackend", {synth::textCompileSpec("target_device", "cuda:0")}, {'s', 'o'}, {aDev, bDev},
                      {yDev});
    m.addKernelCall("et_copy::_d2h_copy.out", {yDev}, {y});
    m.setInputs({a, b});
    m.setOutputs({y});
    for (ValueId v : {aDev, bDev, yDev}) m.setDevice(v, kCuda0);
    Program p = buildUnplanned(builder);
    auto& method = p.methods()[0];
    auto result = passes::planMemory(method);
    QVERIFY(result.ok());
    QCOMPARE(items(method.non_const_buffer_sizes), (std::vector<int64_t>{0, 32, 48}));
    const auto& map = items(method.non_const_buffer_device);
    QCOMPARE(map.size(), size_t(1));
    QCOMPARE(map[0].buffer_idx, 2);
    QCOMPARE(map[0].device_type, DeviceType::Cuda);
    QCOMPARE(int(map[0].device_index), 0);
    for (ValueId v : {a, b, y}) QCOMPARE(memoryId(method, v), 1u);
    for (ValueId v : {aDev, bDev, yDev}) QCOMPARE(memoryId(method, v), 2u);
    QVERIFY(offsetOf(method, y) == offsetOf(method, a) || offsetOf(method, y) == offsetOf(method, b));
    QVERIFY(offsetOf(method, a) != offsetOf(method, b));
    std::set<uint64_t> deviceOffsets{offsetOf(method, aDev), offsetOf(method, bDev), offsetOf(method, yDev)};
    QCOMPARE(deviceOffsets, (std::set<uint64_t>{0, 16, 32}));
    // The invariant the CUDA export test checks: each planned tensor's
    // device equals its buffer's device.
    for (const auto& value : items(method.values))
      if (const auto* t = value.tensor(); t && t->allocation_info)
        QCOMPARE(method.bufferDevice(static_cast<int32_t>(t->allocation_info->memory_id)), t->device());
    QCOMPARE(result->planned_values.size(), size_t(6));
  }

  // Allocations are rounded up to 16 bytes: 5 float32 (20 bytes) take 32.
  void sizesAreAligned() {
    ProgramBuilder builder;
    auto& m = builder.addMethod("forward");
    ValueId x = m.addTensor(ScalarType::Float, {5}), y = m.addTensor(ScalarType::Float, {5});
    ValueId z = m.addTensor(ScalarType::Char, {1});
    m.addKernelCall("test::f.out", {x}, {y, z});
    m.setInputs({x});
    m.setOutputs({y, z});
    Program p = buildUnplanned(builder);
    auto& method = p.methods()[0];
    QVERIFY(passes::planMemory(method).ok());
    QCOMPARE(items(method.non_const_buffer_sizes), (std::vector<int64_t>{0, 32 + 32 + 16}));
    for (ValueId v : {x, y, z}) QCOMPARE(offsetOf(method, v) % 16, uint64_t(0));

    Program q = buildUnplanned(builder);
    PlanningOptions wide;
    wide.alignment = 64;
    QVERIFY(passes::planMemory(q.methods()[0], wide).ok());
    QCOMPARE(items(q.methods()[0].non_const_buffer_sizes), (std::vector<int64_t>{0, 3 * 64}));

    PlanningOptions odd;
    odd.alignment = 24;
    auto bad = passes::planMemory(q.methods()[0], odd);
    QVERIFY(!bad.ok());
    QVERIFY(bad.error().message.find("power of two") != std::string::npos);
  }

  void graphInputsAndOutputsCanStayUnplanned() {
    for (int flags = 0; flags < 4; ++flags) {
      const bool allocInput = flags & 1, allocOutput = flags & 2;
      AddGraph g(Device{});
      Program p = buildUnplanned(g.builder);
      auto& method = p.methods()[0];
      // A stale plan must not survive on a tensor that is now unplanned.
      for (auto& value : *method.values) value.tensor()->allocation_info = AllocationInfo{1, 0, 0};
      PlanningOptions options;
      options.alloc_graph_input = allocInput;
      options.alloc_graph_output = allocOutput;
      QVERIFY(passes::planMemory(method, options).ok());
      QCOMPARE(tensorAt(method, g.a).isPlanned(), allocInput);
      QCOMPARE(tensorAt(method, g.b).isPlanned(), allocInput);
      QCOMPARE(tensorAt(method, g.y).isPlanned(), allocOutput);
      const int64_t expected = 16 * ((allocInput ? 2 : 0) + (allocOutput ? 1 : 0));
      QCOMPARE(items(method.non_const_buffer_sizes), (std::vector<int64_t>{0, expected}));
    }
  }

  // x -> t1 -> t2 -> t3 through three kernels: x [0,0], t1 [0,1], t2 [1,2],
  // t3 [2,3]. x and t2 never live together, nor t1 and t3: two slots.
  void disjointLifetimesShareSpace() {
    ProgramBuilder builder;
    auto& m = builder.addMethod("forward");
    ValueId x = float2x2(m), t1 = float2x2(m), t2 = float2x2(m), t3 = float2x2(m);
    m.addKernelCall("aten::relu.out", {x}, {t1});
    m.addKernelCall("aten::relu.out", {t1}, {t2});
    m.addKernelCall("aten::relu.out", {t2}, {t3});
    m.setInputs({x});
    m.setOutputs({t3});
    Program p = buildUnplanned(builder);
    auto& method = p.methods()[0];
    QVERIFY(passes::planMemory(method).ok());
    QCOMPARE(items(method.non_const_buffer_sizes), (std::vector<int64_t>{0, 32}));
    QCOMPARE(offsetOf(method, x), offsetOf(method, t2));
    QCOMPARE(offsetOf(method, t1), offsetOf(method, t3));
    QVERIFY(offsetOf(method, x) != offsetOf(method, t1));
  }

  // The greedy's second choice: a tensor goes above the allocations alive
  // with it inside a larger shared object. B (64 bytes) [0,0], M (32) [1,2],
  // S (16) [2,3], O (16) [3,4]. Largest first, equal sizes in reverse
  // insertion order: B, M, O, S. B opens object 0; M and O join it at 0 (no
  // overlap with what is there); S overlaps M and O, and the highest end of
  // those is 32, 32 + 16 <= 64, so S goes at 32. Arena 64.
  void greedyPlacesAboveOverlappingAllocations() {
    ProgramBuilder builder;
    auto& m = builder.addMethod("forward");
    ValueId big = m.addTensor(ScalarType::Float, {16});
    ValueId medium = m.addTensor(ScalarType::Float, {8});
    ValueId small = m.addTensor(ScalarType::Float, {4});
    ValueId out = m.addTensor(ScalarType::Float, {4});
    m.addKernelCall("test::make.out", {}, {big});
    m.addKernelCall("test::make.out", {}, {medium});
    m.addKernelCall("test::f.out", {medium}, {small});
    m.addKernelCall("test::f.out", {small}, {out});
    m.setOutputs({out});
    Program p = buildUnplanned(builder);
    auto& method = p.methods()[0];
    QVERIFY(passes::planMemory(method).ok());
    QCOMPARE(items(method.non_const_buffer_sizes), (std::vector<int64_t>{0, 64}));
    QCOMPARE(offsetOf(method, big), uint64_t(0));
    QCOMPARE(offsetOf(method, medium), uint64_t(0));
    QCOMPARE(offsetOf(method, out), uint64_t(0));
    QCOMPARE(offsetOf(method, small), uint64_t(32));
  }

  // Constants, DYNAMIC_UNBOUND tensors and tensors nothing touches are not
  // planned; with nothing planned the sizes are [0, 0].
  void unplannedKinds() {
    ProgramBuilder builder;
    auto& m = builder.addMethod("forward");
    ValueId weight = m.addConstant(ScalarType::Float, {4}, std::vector<uint8_t>(16, 0));
    ValueId unbound = m.addTensor(ScalarType::Float, {4}, ShapeDynamism::DynamicUnbound);
    ValueId bound = m.addTensor(ScalarType::Float, {4}, ShapeDynamism::DynamicBound);
    ValueId untouched = m.addTensor(ScalarType::Float, {4});
    m.addKernelCall("test::f.out", {weight}, {unbound});
    m.addKernelCall("test::f.out", {unbound}, {bound});
    m.setOutputs({bound});
    Program p = buildUnplanned(builder);
    auto& method = p.methods()[0];
    auto result = passes::planMemory(method);
    QVERIFY(result.ok());
    QVERIFY(!tensorAt(method, weight).isPlanned());
    QVERIFY(tensorAt(method, weight).isConstant());
    QVERIFY(!tensorAt(method, unbound).isPlanned());
    QVERIFY(!tensorAt(method, untouched).isPlanned());
    QVERIFY(tensorAt(method, bound).isPlanned());
    QCOMPARE(items(method.non_const_buffer_sizes), (std::vector<int64_t>{0, 16}));

    PlanningOptions noOutputs;
    noOutputs.alloc_graph_output = false;
    QVERIFY(passes::planMemory(method, noOutputs).ok());
    QCOMPARE(items(method.non_const_buffer_sizes), (std::vector<int64_t>{0, 0}));
    QVERIFY(!method.non_const_buffer_device.has_value());
  }

  // With an XNNPACK delegate every arena, CUDA ones included, gets 64 more bytes.
  void xnnpackPadsEveryArena() {
    ProgramBuilder builder;
    auto& m = builder.addMethod("forward");
    ValueId x = float2x2(m), t = float2x2(m), y = float2x2(m);
    m.addDelegateCall("XnnpackBackend", {}, {'x'}, {x}, {t});
    m.addKernelCall("test::f.out", {t}, {y});
    m.setInputs({x});
    m.setOutputs({y});
    m.setDevice(y, kCuda0);
    Program p = buildUnplanned(builder);
    auto& method = p.methods()[0];
    auto result = passes::planMemory(method);
    QVERIFY(result.ok());
    // CPU: x [0,0] and t [0,1] overlap: 32 + 64. CUDA: y alone: 16 + 64.
    QCOMPARE(items(method.non_const_buffer_sizes), (std::vector<int64_t>{0, 96, 80}));
    QCOMPARE(result->extra_padding, uint64_t(64));
  }

  // Re-planning every method of every real sample with the alloc_graph_*
  // flags it was exported with gives back its buffer sizes (spec P15 only
  // promises the simple cases; today all samples match, keep it so).
  void reproducesSampleBufferSizes() {
    PTESCOPE_REQUIRE_SAMPLES();
    for (const QString& path : test::samplePrograms()) {
      auto loaded = test::loadOrFail(path);
      for (auto& method : loaded.program.methods()) {
        const auto expected = items(method.non_const_buffer_sizes);
        bool anyInputPlanned = false, anyOutputPlanned = false;
        for (int32_t v : items(method.inputs))
          if (const auto* t = items(method.values).at(size_t(v)).tensor()) anyInputPlanned |= t->isPlanned();
        for (int32_t v : items(method.outputs))
          if (const auto* t = items(method.values).at(size_t(v)).tensor()) anyOutputPlanned |= t->isPlanned();
        PlanningOptions options;
        options.alloc_graph_input = anyInputPlanned;
        options.alloc_graph_output = anyOutputPlanned;
        auto result = passes::planMemory(method, options);
        QVERIFY2(result.ok(), qPrintable(path));
        if (items(method.non_const_buffer_sizes) != expected)
          QFAIL(qPrintable(path + ": method " + QString::fromStdString(method.displayName()) +
                           ": buffer sizes differ after re-planning"));
        // Every planned tensor still fits its buffer.
        for (const auto& value : items(method.values))
          if (const auto* t = value.tensor(); t && t->allocation_info)
            QVERIFY(t->allocation_info->offset() + uint64_t(t->nbytes()) <=
                    uint64_t(expected.at(t->allocation_info->memory_id)));
      }
    }
  }

  // A constant method (no instructions, [0]) keeps [0]; any other method
  // with nothing to plan gets upstream's [0, 0].
  void constantMethodKeepsItsForm() {
    ProgramBuilder builder;
    auto& m = builder.addMethod("get_answer");
    m.setOutputs({m.addInt(42)});
    Program p = buildUnplanned(builder);
    QCOMPARE(items(p.methods()[0].non_const_buffer_sizes), (std::vector<int64_t>{0}));
    QVERIFY(passes::planMemory(p.methods()[0]).ok());
    QCOMPARE(items(p.methods()[0].non_const_buffer_sizes), (std::vector<int64_t>{0}));
  }

  // Issue 13, found by fuzz_pipeline: a mutated program read a
  // float32[1, 8, 128] that nothing writes, placed at the address of a
  // float32[1, 8, 1]. Taken for an elided view of that value, it got the
  // value's 32-byte place when re-planned and its 4096 bytes ran past the
  // buffer. A tensor larger than the value at its address is not a view of
  // it: it is planned on its own. One of the same size still is the view.
  void aLargerTensorAtAValuesAddressIsNotItsView() {
    for (const bool larger : {false, true}) {
      ProgramBuilder builder;
      auto& m = builder.addMethod("forward");
      const ValueId a = float2x2(m), small = float2x2(m);
      const ValueId view = larger ? m.addTensor(ScalarType::Float, {32, 32}) : m.addTensor(ScalarType::Float, {4});
      const ValueId y = larger ? m.addTensor(ScalarType::Float, {32, 32}) : m.addTensor(ScalarType::Float, {4});
      m.addKernelCall("test::f.out", {a}, {small});
      // Nothing writes `view`; `a`, defined, after it makes it a read.
      m.addKernelCall("test::g.out", {view, a}, {y});
      m.setInputs({a});
      m.setOutputs({y});
      auto built = builder.build();
      QVERIFY2(built.ok(), built.ok() ? "" : built.error().message.c_str());
      Program p = std::move(built.value());
      auto& method = p.methods()[0];
      (*method.values)[size_t(view)].tensor()->allocation_info = tensorAt(method, small).allocation_info;

      const auto alias = analysis::Dataflow::build(method).value(view).storage_alias_of;
      QCOMPARE(alias, larger ? std::optional<int32_t>() : std::optional<int32_t>(small));
      QVERIFY(passes::planMemory(method).ok());
      const auto& sizes = items(method.non_const_buffer_sizes);
      for (ValueId v : {a, small, view, y}) {
        const Tensor& t = tensorAt(method, v);
        QVERIFY(t.allocation_info.has_value());
        QVERIFY2(offsetOf(method, v) + uint64_t(t.nbytes()) <= uint64_t(sizes.at(memoryId(method, v))),
                 qPrintable(QString("value %1 runs past its buffer").arg(v)));
      }
      if (!larger) QCOMPARE(offsetOf(method, view), offsetOf(method, small));
      auto bytes = pte::serializeProgram(p);
      QVERIFY2(bytes.ok(), bytes.ok() ? "" : bytes.error().message.c_str());
      auto back = pte::readProgramBytes(Bytes::fromVector(bytes.value()), "replanned.pte");
      QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    }
  }
};

QTEST_GUILESS_MAIN(MemoryPlannerTest)
#include "test_memory_planner.moc"
