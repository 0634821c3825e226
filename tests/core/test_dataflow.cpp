// Dataflow facts (core/analysis/Dataflow): reads and writes per instruction,
// value origins, producers, consumers, lifetimes, and the DelegateCall
// input/output split. Expected values come from the samples' contents (their
// argument lists as `ptescope-cli dump` shows them, MANIFEST.tsv) and from the
// emitter conventions in spec/device-semantics.md §2 and pte-format.md §8;
// hand-built methods cover the instruction kinds no sample has.
#include <QtTest>

#include <QFileInfo>

#include <algorithm>
#include <set>

#include "analysis/Dataflow.h"
#include "support/TestSupport.h"

using namespace ptescope;
using namespace ptescope::program;
using analysis::Dataflow;
using analysis::ValueOrigin;
using Ids = std::vector<int32_t>;
using Lifetime = std::pair<size_t, size_t>;

namespace {

using ptescope::test::floatTensor;
Tensor plannedTensor(uint32_t offset) {
  Tensor t = floatTensor({2, 2});
  t.allocation_info = AllocationInfo{1, offset, 0};
  return t;
}
Tensor constantTensor() {
  Tensor t = floatTensor({2, 2});
  t.data_buffer_idx = 1;
  return t;
}

// A method assembled in a test: values, one chain, operators, delegates.
struct MethodBuilder {
  Method method;
  MethodBuilder() {
    method.name = "forward";
    method.values.emplace();
    method.chains = std::vector<Chain>{Chain{}};
    method.chains->front().instructions.emplace();
    method.operators.emplace();
    method.delegates.emplace();
    method.inputs.emplace();
    method.outputs.emplace();
  }
  int32_t value(ValueData data) {
    method.values->push_back(Value{std::move(data)});
    return static_cast<int32_t>(method.values->size() - 1);
  }
  int32_t tensor() { return value(plannedTensor(static_cast<uint32_t>(16 * method.values->size()))); }
  int32_t input() {
    int32_t v = tensor();
    method.inputs->push_back(v);
    return v;
  }
  int32_t op(const std::string& name, const std::string& overload = "out") {
    method.operators->push_back(Operator{name, overload});
    return static_cast<int32_t>(method.operators->size() - 1);
  }
  void kernel(int32_t opIndex, Ids args) { add(KernelCall{opIndex, std::move(args)}); }
  void kernel(const std::string& name, Ids args) { kernel(op(name), std::move(args)); }
  void delegate(const std::string& id, Ids args) {
    method.delegates->push_back(BackendDelegate{id, std::nullopt, std::nullopt});
    add(DelegateCall{static_cast<int32_t>(method.delegates->size() - 1), std::move(args)});
  }
  void add(InstructionData instruction) {
    method.chains->back().instructions->push_back(Instruction{std::move(instruction)});
  }
};

std::set<int32_t> asSet(const Ids& ids) { return {ids.begin(), ids.end()}; }

// The DelegateCalls of a method with their positions in instruction order.
std::vector<std::pair<size_t, DelegateCall>> delegateCalls(const Method& method) {
  std::vector<std::pair<size_t, DelegateCall>> calls;
  size_t position = 0;
  for (const auto& chain : items(method.chains))
    for (const auto& instruction : items(chain.instructions)) {
      if (const auto* call = std::get_if<DelegateCall>(&instruction.data)) calls.emplace_back(position, *call);
      ++position;
    }
  return calls;
}

// All raw args of every instruction at a flat position after `after`,
// whatever their role: what a later instruction mentions.
std::set<int32_t> mentionedAfter(const Method& method, size_t after) {
  std::set<int32_t> mentioned;
  size_t position = 0;
  for (const auto& chain : items(method.chains))
    for (const auto& instruction : items(chain.instructions)) {
      if (position++ <= after) continue;
      if (const auto* k = std::get_if<KernelCall>(&instruction.data)) mentioned.insert(items(k->args).begin(), items(k->args).end());
      if (const auto* d = std::get_if<DelegateCall>(&instruction.data)) mentioned.insert(items(d->args).begin(), items(d->args).end());
    }
  return mentioned;
}

}  // namespace

class DataflowTest : public QObject {
  Q_OBJECT
 private slots:
  // --- real samples ------------------------------------------------------

  // add.pte: one aten::add.out with args [0, 1, 3, 2, 2]: a, b, alpha (Int 1), out, out.
  void addSample() {
    PTESCOPE_REQUIRE_SAMPLES();
    const auto loaded = test::loadOrFail(test::samplePath("add.pte"));
    const Method& method = loaded.program.methods().at(0);
    const auto flow = Dataflow::build(method);
    QCOMPARE(flow.instructionCount(), size_t{1});
    const auto& add = flow.instructions()[0];
    QCOMPARE(add.kind, InstructionKind::KernelCall);
    QCOMPARE(add.label, std::string("aten::add.out"));
    QCOMPARE(add.op_index, 0);
    QCOMPARE(add.inputs, (Ids{0, 1, 3}));
    QCOMPARE(add.outputs, (Ids{2}));
    QVERIFY(!add.is_h2d_copy && !add.is_d2h_copy);

    QCOMPARE(flow.value(0).origin, ValueOrigin::MethodInput);
    QCOMPARE(flow.value(1).origin, ValueOrigin::MethodInput);
    QCOMPARE(flow.value(3).origin, ValueOrigin::Constant);  // alpha, a literal
    QCOMPARE(flow.value(2).origin, ValueOrigin::Instruction);
    QCOMPARE(flow.value(2).producer, std::optional<size_t>(0));
    QVERIFY(flow.value(2).consumers.empty());
    QVERIFY(flow.value(2).is_method_output);
    QVERIFY(!flow.value(2).is_method_input);
    QCOMPARE(flow.value(0).consumers, (std::vector<size_t>{0}));
    QCOMPARE(flow.value(0).lifetime, std::optional<Lifetime>(Lifetime{0, 0}));
    QCOMPARE(flow.value(2).lifetime, std::optional<Lifetime>(Lifetime{0, 1}));  // output: to the end
  }

  // keyword-spotting-cortex-m.pte: 16 kernels in a straight line from input 83
  // to output 283.
  void keywordSpottingSample() {
    PTESCOPE_REQUIRE_SAMPLES();
    const auto loaded = test::loadOrFail(test::samplePath("keyword-spotting-cortex-m.pte"));
    const Method& method = loaded.program.methods().at(0);
    const auto flow = Dataflow::build(method);
    QCOMPARE(flow.instructionCount(), size_t{16});
    QCOMPARE(flow.instructions().front().label, std::string("cortex_m::quantize_per_tensor.out"));
    QCOMPARE(flow.instructions().back().label, std::string("cortex_m::dequantize_per_tensor.out"));
    QCOMPARE(flow.value(83).origin, ValueOrigin::MethodInput);
    QCOMPARE(flow.value(83).consumers, (std::vector<size_t>{0}));
    QCOMPARE(flow.value(283).producer, std::optional<size_t>(15));
    QVERIFY(flow.value(283).is_method_output);

    for (size_t v = 0; v < flow.values().size(); ++v) {
      const auto& facts = flow.values()[v];
      if (facts.producer) {
        for (size_t consumer : facts.consumers)
          QVERIFY2(*facts.producer < consumer, qPrintable(QString("value %1 read before it is written").arg(v)));
        QVERIFY(facts.lifetime && facts.lifetime->first == *facts.producer);
      }
      if (facts.origin == ValueOrigin::Constant && method.values->at(v).tensor())
        QVERIFY(method.values->at(v).tensor()->isConstant());
    }
    // Every instruction writes the value the next one reads first (a chain).
    for (size_t i = 0; i + 1 < flow.instructionCount(); ++i) {
      const int32_t next = flow.instructions()[i + 1].inputs.front();
      if (i + 1 == 14) continue;  // reads 271, the view of 257 (below)
      QCOMPARE(flow.value(next).producer, std::optional<size_t>(i));
    }
    // [..., 90, 91, 91]: 91 is the returned out; 90, a zero-size tensor that
    // nothing defined before, is a scratch out written by the same kernel.
    QCOMPARE(flow.instructions()[1].outputs, (Ids{90, 91}));
    QCOMPARE(flow.value(90).producer, std::optional<size_t>(1));
    QVERIFY(flow.value(90).consumers.empty());
    QCOMPARE(flow.value(90).lifetime, std::optional<Lifetime>(Lifetime{1, 1}));
    // 271 (int8[1,64]) is 257 (int8[1,64,1,1]) reshaped by an elided view: same
    // buffer and offset (8256), no instruction writes it, instruction 14 reads it.
    QCOMPARE(flow.instructions()[13].outputs.back(), 257);
    QCOMPARE(flow.instructions()[14].outputs, (Ids{272}));
    QVERIFY(std::count(flow.instructions()[14].inputs.begin(), flow.instructions()[14].inputs.end(), 271) == 1);
    QCOMPARE(flow.value(271).origin, ValueOrigin::Undefined);
    QCOMPARE(flow.value(271).storage_alias_of, std::optional<int32_t>(257));
    QCOMPARE(flow.value(257).lifetime, std::optional<Lifetime>(Lifetime{13, 14}));
    // The Null (bias) and scalars of quantized_linear are literals.
    QCOMPARE(flow.value(273).origin, ValueOrigin::Constant);
  }

  // lstm-custom-op.pte: etnp::lstm.out args [4, 5, 6, 0, 1, 2, 3, 7, 8, 9, 10]
  // where 10 = TensorList[7, 8, 9] is the returned tuple and 7, 8, 9 the outs
  // (also the method outputs); 0..3 are constants, 4..6 the method inputs.
  void lstmTensorList() {
    PTESCOPE_REQUIRE_SAMPLES();
    const auto loaded = test::loadOrFail(test::samplePath("lstm-custom-op.pte"));
    const Method& method = loaded.program.methods().at(0);
    QCOMPARE(method.values->at(10).kind(), ValueKind::TensorList);
    const auto flow = Dataflow::build(method);
    QCOMPARE(flow.instructionCount(), size_t{1});
    const auto& lstm = flow.instructions()[0];
    QCOMPARE(lstm.label, std::string("etnp::lstm.out"));
    QCOMPARE(asSet(lstm.inputs), (std::set<int32_t>{0, 1, 2, 3, 4, 5, 6}));
    QCOMPARE(asSet(lstm.outputs), (std::set<int32_t>{7, 8, 9, 10}));
    for (int32_t v : {7, 8, 9}) {
      QCOMPARE(flow.value(v).origin, ValueOrigin::Instruction);
      QCOMPARE(flow.value(v).producer, std::optional<size_t>(0));
      QVERIFY(flow.value(v).is_method_output);
      QCOMPARE(flow.value(v).lifetime, std::optional<Lifetime>(Lifetime{0, 1}));
    }
    for (int32_t v : {0, 1, 2, 3}) QCOMPARE(flow.value(v).origin, ValueOrigin::Constant);
    QCOMPARE(flow.value(10).producer, std::optional<size_t>(0));
  }

  // multi-method.pte: methods "forward" and "double", each
  // _to_dim_order_copy.out [0, 3, 4, 2, 2] then add.out [1, 2, 6, 5, 5];
  // input 1, output 5, value 0 a stored scalar constant.
  void multiMethodSample() {
    PTESCOPE_REQUIRE_SAMPLES();
    const auto loaded = test::loadOrFail(test::samplePath("multi-method.pte"));
    QCOMPARE(loaded.program.methods().size(), size_t{2});
    for (const auto& method : loaded.program.methods()) {
      const auto flow = Dataflow::build(method);
      QCOMPARE(flow.instructionCount(), size_t{2});
      QCOMPARE(flow.instructions()[0].label, std::string("dim_order_ops::_to_dim_order_copy.out"));
      QCOMPARE(flow.instructions()[0].outputs, (Ids{2}));
      QCOMPARE(flow.instructions()[1].inputs, (Ids{1, 2, 6}));
      QCOMPARE(flow.instructions()[1].outputs, (Ids{5}));
      QCOMPARE(flow.value(0).origin, ValueOrigin::Constant);
      QCOMPARE(flow.value(1).origin, ValueOrigin::MethodInput);
      QCOMPARE(flow.value(1).lifetime, std::optional<Lifetime>(Lifetime{0, 1}));
      QCOMPARE(flow.value(2).lifetime, std::optional<Lifetime>(Lifetime{0, 1}));
      QCOMPARE(flow.value(5).lifetime, std::optional<Lifetime>(Lifetime{1, 2}));
      QCOMPARE(flow.value(2).consumers, (std::vector<size_t>{1}));
    }
  }

  // Every DelegateCall in every sample: the split inputs are exactly the args
  // defined before the call, the outputs exactly the args that a later
  // instruction mentions or the method returns.
  void delegateSplitOnEverySample() {
    PTESCOPE_REQUIRE_SAMPLES();
    std::set<QString> checked;
    for (const QString& path : test::samplePrograms()) {
      const auto loaded = test::loadOrFail(path);
      for (const auto& method : loaded.program.methods()) {
        const auto flow = Dataflow::build(method);
        const auto& values = items(method.values);
        for (const auto& [position, call] : delegateCalls(method)) {
          const QString where = QFileInfo(path).fileName() + ":" + QString::fromStdString(method.displayName());
          checked.insert(where);
          std::vector<bool> definedBefore(values.size(), false);
          for (int32_t v : items(method.inputs)) definedBefore[static_cast<size_t>(v)] = true;
          for (size_t v = 0; v < values.size(); ++v) {
            const Tensor* tensor = values[v].tensor();
            if (!tensor || tensor->isConstant()) definedBefore[v] = true;  // literals and stored constants
          }
          for (size_t i = 0; i < position; ++i)
            for (int32_t v : flow.instructions()[i].outputs) definedBefore[static_cast<size_t>(v)] = true;
          const std::set<int32_t> usedLater = mentionedAfter(method, position);
          const std::set<int32_t> returned(items(method.outputs).begin(), items(method.outputs).end());

          const auto split = analysis::splitDelegateArgs(method, items(call.args), definedBefore);
          QCOMPARE(split.inputs.size() + split.outputs.size(), items(call.args).size());
          QVERIFY2(!split.outputs.empty(), qPrintable(where + ": a delegate with no outputs"));
          for (int32_t v : split.inputs)
            QVERIFY2(definedBefore[static_cast<size_t>(v)], qPrintable(where + QString(": input %1 undefined").arg(v)));
          for (int32_t v : split.outputs) {
            QVERIFY2(!definedBefore[static_cast<size_t>(v)], qPrintable(where + QString(": output %1 defined").arg(v)));
            QVERIFY2(usedLater.count(v) || returned.count(v), qPrintable(where + QString(": output %1 unused").arg(v)));
          }
          // The dataflow's facts for the call are the same split.
          const auto& facts = flow.instructions()[position];
          QCOMPARE(facts.kind, InstructionKind::DelegateCall);
          QCOMPARE(facts.outputs, split.outputs);
          QCOMPARE(asSet(facts.inputs), asSet(split.inputs));
        }
      }
    }
    // The delegates of MANIFEST.tsv: QNN (two methods with a delegate),
    // XNNPACK (three files, one with unplanned graph IO), OpenVINO, Ethos-U.
    const std::set<QString> expected{
        "stories260k-qnn-multimethod.pte:kv_forward", "stories260k-qnn-multimethod.pte:prefill_forward",
        "dynamic-shapes.pte:forward", "quantized-xnnpack.pte:forward", "add-unplanned-io.pte:forward",
        "openvino-tiny.pte:forward", "ethos-u-inline-delegate.pte:forward"};
    QCOMPARE(checked, expected);
  }

  // kv_forward: 13 method inputs, 11 outputs, one QnnBackend call over all 24.
  void qnnDelegateSplitsThirteenEleven() {
    PTESCOPE_REQUIRE_SAMPLES();
    const auto loaded = test::loadOrFail(test::samplePath("stories260k-qnn-multimethod.pte"));
    const Method* method = loaded.program.findMethod("kv_forward");
    QVERIFY(method);
    QCOMPARE(items(method->inputs).size(), size_t{13});
    QCOMPARE(items(method->outputs).size(), size_t{11});
    const auto flow = Dataflow::build(*method);
    QCOMPARE(flow.instructionCount(), size_t{1});
    const auto& call = flow.instructions()[0];
    QCOMPARE(call.label, std::string("delegate QnnBackend"));
    QCOMPARE(call.delegate_index, 0);
    QCOMPARE(call.inputs.size(), size_t{13});
    QCOMPARE(call.outputs.size(), size_t{11});
    QCOMPARE(asSet(call.inputs), asSet(items(method->inputs)));
    QCOMPARE(asSet(call.outputs), asSet(items(method->outputs)));
    for (int32_t v : items(method->outputs)) QCOMPARE(flow.value(v).lifetime, std::optional<Lifetime>(Lifetime{0, 1}));
  }

  // dynamic-shapes.pte: XNNPACK call [1, 0, 2]: input 1, the scalar constant
  // 0 (a delegate input with a lower id than the method input), output 2.
  void xnnpackSplitKeepsConstantInput() {
    PTESCOPE_REQUIRE_SAMPLES();
    const auto loaded = test::loadOrFail(test::samplePath("dynamic-shapes.pte"));
    const auto flow = Dataflow::build(loaded.program.methods().at(0));
    QCOMPARE(flow.instructions()[0].inputs, (Ids{1, 0}));
    QCOMPARE(flow.instructions()[0].outputs, (Ids{2}));
    QCOMPARE(flow.value(0).origin, ValueOrigin::Constant);
  }

  // Constant methods (no instructions, outputs straight at literals).
  void constantMethodsHaveNoInstructions() {
    PTESCOPE_REQUIRE_SAMPLES();
    const auto loaded = test::loadOrFail(test::samplePath("const-methods.pte"));
    size_t constantMethods = 0;
    for (const auto& method : loaded.program.methods()) {
      const auto flow = Dataflow::build(method);
      if (flow.instructionCount() != 0) continue;
      ++constantMethods;
      for (int32_t v : items(method.outputs)) {
        QCOMPARE(flow.value(v).origin, ValueOrigin::Constant);
        QCOMPARE(flow.value(v).lifetime, std::optional<Lifetime>(Lifetime{0, 0}));
      }
    }
    QVERIFY(constantMethods > 0);
  }

  // Robustness on every sample: every index in range, producers before
  // consumers for instruction-made values, method outputs live to the end.
  void everySampleIsConsistent() {
    PTESCOPE_REQUIRE_SAMPLES();
    for (const QString& path : test::samplePrograms()) {
      const auto loaded = test::loadOrFail(path);
      for (const auto& method : loaded.program.methods()) {
        const auto flow = Dataflow::build(method);
        QCOMPARE(flow.values().size(), items(method.values).size());
        for (const auto& facts : flow.instructions()) {
          QVERIFY(!facts.label.empty());
          for (int32_t v : facts.outputs) QCOMPARE(flow.value(v).writers.empty(), false);
        }
        for (int32_t v : items(method.outputs)) {
          QVERIFY(flow.value(v).is_method_output);
          QCOMPARE(flow.value(v).lifetime->second, flow.instructionCount());
        }
        for (const auto& facts : flow.values())
          if (facts.origin == ValueOrigin::Instruction)
            for (size_t consumer : facts.consumers) QVERIFY(*facts.producer < consumer);
      }
    }
  }

  // --- hand-built methods -------------------------------------------------

  // spec/device-semantics.md §2.3: h2d [a, A', A'], h2d [b, B', B'],
  // DelegateCall [A', B', Y], d2h [Y, y, y]; inputs [a, b], outputs [y].
  void canonicalCudaAdd() {
    MethodBuilder b;
    const int32_t a = b.input(), bIn = b.input();
    const int32_t aDev = b.tensor(), bDev = b.tensor(), yDev = b.tensor(), y = b.tensor();
    b.method.outputs->push_back(y);
    const int32_t h2d = b.op("et_copy::_h2d_copy");
    const int32_t d2h = b.op("et_copy::_d2h_copy");
    b.kernel(h2d, {a, aDev, aDev});
    b.kernel(h2d, {bIn, bDev, bDev});
    b.delegate("CudaBackend", {aDev, bDev, yDev});
    b.kernel(d2h, {yDev, y, y});
    const auto flow = Dataflow::build(b.method);

    QCOMPARE(flow.instructionCount(), size_t{4});
    QCOMPARE(flow.instructions()[0].label, std::string("et_copy::_h2d_copy.out"));
    QVERIFY(flow.instructions()[0].is_h2d_copy && !flow.instructions()[0].is_d2h_copy);
    QVERIFY(flow.instructions()[1].is_h2d_copy);
    QVERIFY(!flow.instructions()[2].is_h2d_copy && !flow.instructions()[2].is_d2h_copy);
    QVERIFY(flow.instructions()[3].is_d2h_copy);
    QCOMPARE(flow.instructions()[0].inputs, (Ids{a}));
    QCOMPARE(flow.instructions()[0].outputs, (Ids{aDev}));
    QCOMPARE(flow.instructions()[2].label, std::string("delegate CudaBackend"));
    QCOMPARE(flow.instructions()[2].inputs, (Ids{aDev, bDev}));
    QCOMPARE(flow.instructions()[2].outputs, (Ids{yDev}));
    QCOMPARE(flow.instructions()[3].inputs, (Ids{yDev}));
    QCOMPARE(flow.instructions()[3].outputs, (Ids{y}));
    QCOMPARE(flow.value(aDev).lifetime, std::optional<Lifetime>(Lifetime{0, 2}));
    QCOMPARE(flow.value(bDev).lifetime, std::optional<Lifetime>(Lifetime{1, 2}));
    QCOMPARE(flow.value(yDev).lifetime, std::optional<Lifetime>(Lifetime{2, 3}));
    QCOMPARE(flow.value(y).lifetime, std::optional<Lifetime>(Lifetime{3, 4}));
    QCOMPARE(flow.value(a).lifetime, std::optional<Lifetime>(Lifetime{0, 0}));
    QCOMPARE(flow.value(bIn).lifetime, std::optional<Lifetime>(Lifetime{0, 1}));
  }

  void moveCall() {
    MethodBuilder b;
    const int32_t from = b.input(), to = b.tensor();
    b.method.outputs->push_back(to);
    b.add(MoveCall{from, to});
    const auto flow = Dataflow::build(b.method);
    const auto& move = flow.instructions()[0];
    QCOMPARE(move.kind, InstructionKind::MoveCall);
    QCOMPARE(move.label, std::string("move"));
    QCOMPARE(move.inputs, (Ids{from}));
    QCOMPARE(move.outputs, (Ids{to}));
    QCOMPARE(flow.value(to).origin, ValueOrigin::Instruction);
    QCOMPARE(flow.value(to).producer, std::optional<size_t>(0));
  }

  // relu writes t (0), jump_false reads cond (1), t is read (2), free(t) (3).
  void jumpFalseAndFree() {
    MethodBuilder b;
    const int32_t x = b.input();
    const int32_t cond = b.value(BoolValue{true});
    const int32_t t = b.tensor(), y = b.tensor();
    b.method.outputs->push_back(y);
    b.kernel("aten::relu", {x, t, t});
    b.add(JumpFalseCall{cond, 3});
    b.kernel("aten::relu", {t, y, y});
    b.add(FreeCall{t});
    const auto flow = Dataflow::build(b.method);
    QCOMPARE(flow.instructions()[1].label, std::string("jump_false"));
    QCOMPARE(flow.instructions()[1].inputs, (Ids{cond}));
    QVERIFY(flow.instructions()[1].outputs.empty());
    QCOMPARE(flow.value(cond).origin, ValueOrigin::Constant);
    QCOMPARE(flow.instructions()[3].label, std::string("free"));
    QCOMPARE(flow.instructions()[3].inputs, (Ids{t}));
    QVERIFY(flow.instructions()[3].outputs.empty());
    QCOMPARE(flow.value(t).consumers, (std::vector<size_t>{2, 3}));
    QCOMPARE(flow.value(t).lifetime, std::optional<Lifetime>(Lifetime{0, 3}));  // the free ends it
    QCOMPARE(flow.value(y).lifetime, std::optional<Lifetime>(Lifetime{2, 4}));
  }

  // [x, o1, o2, o1, o2] (two outs, two returns) and [x, o1, o2, o3] with no
  // return: both write every out and read only x.
  void multiOutputKernels() {
    MethodBuilder b;
    const int32_t x = b.input();
    const int32_t o1 = b.tensor(), o2 = b.tensor();
    const int32_t p1 = b.tensor(), p2 = b.tensor(), p3 = b.tensor();
    const int32_t dim = b.value(IntValue{1});
    b.kernel("aten::max", {x, dim, o1, o2, o1, o2});
    b.kernel("custom::three_way", {x, p1, p2, p3});
    const auto flow = Dataflow::build(b.method);
    QCOMPARE(flow.instructions()[0].inputs, (Ids{x, dim}));
    QCOMPARE(flow.instructions()[0].outputs, (Ids{o1, o2}));
    QCOMPARE(flow.instructions()[1].inputs, (Ids{x}));
    QCOMPARE(flow.instructions()[1].outputs, (Ids{p1, p2, p3}));
    for (int32_t v : {o1, o2, p1, p2, p3}) QCOMPARE(flow.value(v).origin, ValueOrigin::Instruction);
    QCOMPARE(flow.value(p3).lifetime, std::optional<Lifetime>(Lifetime{1, 1}));  // written, never read
  }

  // The out is repeated as the return, even when it is also an input (an
  // in-place add) or when the op returns its mutated first argument
  // (index_put_: [self, indices, values, accumulate, self]).
  void repeatedOutArgs() {
    MethodBuilder b;
    const int32_t a = b.input(), other = b.input();
    const int32_t alpha = b.value(IntValue{1});
    const int32_t out = b.tensor();
    const int32_t indices = b.value(OptionalTensorListValue{Ids{other}});
    const int32_t accumulate = b.value(BoolValue{false});
    b.kernel("aten::add", {a, other, alpha, out, out});
    b.kernel("aten::add", {a, other, alpha, a, a});
    b.kernel(b.op("aten::index_put_", "default"), {out, indices, other, accumulate, out});
    // An out-variant writing into a mutable buffer, defined before the call:
    // the out arg is a write, not a read.
    Tensor cacheTensor = plannedTensor(1024);
    cacheTensor.data_buffer_idx = 1;
    const int32_t cache = b.value(cacheTensor);
    b.kernel("aten::index_put", {other, indices, a, accumulate, cache, cache});
    const auto flow = Dataflow::build(b.method);
    QCOMPARE(flow.instructions()[3].inputs, (Ids{other, indices, a, accumulate}));
    QCOMPARE(flow.instructions()[3].outputs, (Ids{cache}));
    QVERIFY(flow.value(cache).consumers.empty());
    QCOMPARE(flow.instructions()[0].inputs, (Ids{a, other, alpha}));
    QCOMPARE(flow.instructions()[0].outputs, (Ids{out}));
    QCOMPARE(flow.instructions()[1].inputs, (Ids{a, other, alpha}));
    QCOMPARE(flow.instructions()[1].outputs, (Ids{a}));
    QCOMPARE(flow.instructions()[2].inputs, (Ids{out, indices, other, accumulate}));
    QCOMPARE(flow.instructions()[2].outputs, (Ids{out}));
    QCOMPARE(flow.value(a).origin, ValueOrigin::MethodInput);  // written later, still an input
    QCOMPARE(flow.value(a).writers, (std::vector<size_t>{1}));
    QCOMPARE(flow.value(out).writers, (std::vector<size_t>{0, 2}));
    QCOMPARE(flow.value(out).producer, std::optional<size_t>(0));
  }

  // aten::index.Tensor_out(self, Tensor?[] indices, *, out): None entries are
  // -1 (no value) or a Null value; the list and its members are read.
  void optionalTensorListWithNone() {
    MethodBuilder b;
    const int32_t self = b.input(), index = b.input();
    const int32_t null = b.value(NullValue{});
    const int32_t list = b.value(OptionalTensorListValue{Ids{-1, index, null}});
    const int32_t out = b.tensor();
    b.method.outputs->push_back(out);
    b.kernel("aten::index", {self, list, out, out});
    const auto flow = Dataflow::build(b.method);
    QCOMPARE(flow.instructions()[0].inputs, (Ids{self, list, index, null}));
    QCOMPARE(flow.instructions()[0].outputs, (Ids{out}));
    QCOMPARE(flow.value(list).origin, ValueOrigin::Constant);
    QCOMPARE(flow.value(index).consumers, (std::vector<size_t>{0}));
    QCOMPARE(flow.value(null).origin, ValueOrigin::Constant);
  }

  // split_copy.Tensor_out(self, split_size, dim, *, Tensor(a!)[] out) -> ():
  // the out list writes its members; cat reads a list of them back.
  void tensorListOutAndIn() {
    MethodBuilder b;
    const int32_t self = b.input();
    const int32_t splitSize = b.value(IntValue{1}), dim = b.value(IntValue{0});
    const int32_t part0 = b.tensor(), part1 = b.tensor();
    const int32_t parts = b.value(TensorListValue{Ids{part0, part1}});
    const int32_t partsAgain = b.value(TensorListValue{Ids{part1, part0}});
    const int32_t joined = b.tensor();
    b.method.outputs->push_back(joined);
    b.kernel("aten::split_copy", {self, splitSize, dim, parts});
    b.kernel("aten::cat", {partsAgain, dim, joined, joined});
    const auto flow = Dataflow::build(b.method);
    QCOMPARE(flow.instructions()[0].inputs, (Ids{self, splitSize, dim}));
    QCOMPARE(flow.instructions()[0].outputs, (Ids{parts, part0, part1}));
    QCOMPARE(flow.instructions()[1].inputs, (Ids{partsAgain, part1, part0, dim}));
    QCOMPARE(flow.instructions()[1].outputs, (Ids{joined}));
    QCOMPARE(flow.value(part0).producer, std::optional<size_t>(0));
    QCOMPARE(flow.value(part0).consumers, (std::vector<size_t>{1}));
    QCOMPARE(flow.value(parts).origin, ValueOrigin::Instruction);
    QCOMPARE(flow.value(partsAgain).origin, ValueOrigin::Constant);
  }

  // A tuple return stored as one list ([..., o1, o2, TensorList[o1, o2]], as
  // etnp::lstm.out in lstm-custom-op.pte) into outs that are already defined
  // (two mutable buffers): the list marks them as written.
  void tupleReturnIntoDefinedOuts() {
    MethodBuilder b;
    const int32_t x = b.input();
    Tensor state = plannedTensor(1024);
    state.data_buffer_idx = 1;
    const int32_t h = b.value(state), c = b.value(state);
    const int32_t returned = b.value(TensorListValue{Ids{h, c}});
    b.kernel("custom::step", {x, h, c, returned});
    const auto flow = Dataflow::build(b.method);
    QCOMPARE(flow.instructions()[0].inputs, (Ids{x}));
    QCOMPARE(flow.instructions()[0].outputs, (Ids{h, c, returned}));
    QCOMPARE(flow.value(h).writers, (std::vector<size_t>{0}));
    QCOMPARE(flow.value(h).origin, ValueOrigin::Constant);  // stored state, not made by the kernel
  }

  // executorch_prim scalar ops and sym_size return their result as the last
  // arg, which is an Int value, not a literal.
  void scalarPrimitiveResults() {
    MethodBuilder b;
    const int32_t x = b.input();
    const int32_t dim = b.value(IntValue{0}), size = b.value(IntValue{0});
    const int32_t two = b.value(IntValue{2}), doubled = b.value(IntValue{0});
    const int32_t shape = b.value(IntListValue{std::vector<int64_t>{doubled}});
    const int32_t viewed = b.tensor();
    b.method.outputs->push_back(viewed);
    b.kernel(b.op("aten::sym_size", "int"), {x, dim, size});
    b.kernel(b.op("executorch_prim::mul", "Scalar"), {size, two, doubled});
    b.kernel(b.op("executorch_prim::et_view", "default"), {x, shape, viewed});
    const auto flow = Dataflow::build(b.method);
    QCOMPARE(flow.instructions()[0].outputs, (Ids{size}));
    QCOMPARE(flow.instructions()[1].inputs, (Ids{size, two}));
    QCOMPARE(flow.instructions()[1].outputs, (Ids{doubled}));
    QCOMPARE(flow.instructions()[2].inputs, (Ids{x, shape, doubled}));
    QCOMPARE(flow.instructions()[2].outputs, (Ids{viewed}));
    QCOMPARE(flow.value(doubled).origin, ValueOrigin::Instruction);
    QCOMPARE(flow.value(doubled).producer, std::optional<size_t>(1));
    QCOMPARE(flow.value(two).origin, ValueOrigin::Constant);
  }

  // executorch_prim::et_copy_index.tensor(copy_to, copy_from, index) -> ()
  // writes row `index` of copy_to: it reads and writes its first arg.
  void copyIndexWritesItsFirstArg() {
    MethodBuilder b;
    const int32_t stacked = b.input(), row = b.input();
    const int32_t index = b.value(IntValue{0});
    b.method.outputs->push_back(stacked);
    b.kernel(b.op("executorch_prim::et_copy_index", "tensor"), {stacked, row, index});
    const auto flow = Dataflow::build(b.method);
    QCOMPARE(flow.instructions()[0].inputs, (Ids{stacked, row, index}));
    QCOMPARE(flow.instructions()[0].outputs, (Ids{stacked}));
    QCOMPARE(flow.value(stacked).writers, (std::vector<size_t>{0}));
  }

  // Method inputs from 0, outputs to instructionCount(), mutable buffers the
  // whole method, a value both input and output [0, count], unused values
  // none; a stored constant from its first to its last read.
  void lifetimes() {
    MethodBuilder b;
    const int32_t in = b.input();
    const int32_t passthrough = b.input();
    b.method.outputs->push_back(passthrough);
    const int32_t weight = b.value(constantTensor());
    Tensor cache = plannedTensor(512);
    cache.data_buffer_idx = 1;  // initial state in mutable_data_segments
    const int32_t state = b.value(cache);
    const int32_t t1 = b.tensor(), t2 = b.tensor(), out = b.tensor();
    const int32_t unused = b.tensor();
    b.method.outputs->push_back(out);
    b.kernel("aten::mul", {in, weight, t1, t1});              // 0
    b.kernel("aten::mul", {t1, weight, t2, t2});              // 1
    b.kernel("aten::add", {t2, state, out, out});             // 2
    b.kernel("aten::copy", {state, out, state, state});       // 3: write-back
    const auto flow = Dataflow::build(b.method);
    QCOMPARE(flow.instructionCount(), size_t{4});
    QCOMPARE(flow.value(in).lifetime, std::optional<Lifetime>(Lifetime{0, 0}));
    QCOMPARE(flow.value(passthrough).lifetime, std::optional<Lifetime>(Lifetime{0, 4}));
    QCOMPARE(flow.value(weight).lifetime, std::optional<Lifetime>(Lifetime{0, 1}));
    QCOMPARE(flow.value(weight).origin, ValueOrigin::Constant);
    QCOMPARE(flow.value(t1).lifetime, std::optional<Lifetime>(Lifetime{0, 1}));
    QCOMPARE(flow.value(t2).lifetime, std::optional<Lifetime>(Lifetime{1, 2}));
    QCOMPARE(flow.value(out).lifetime, std::optional<Lifetime>(Lifetime{2, 4}));
    QVERIFY(flow.value(state).is_mutable_state);
    QCOMPARE(flow.value(state).origin, ValueOrigin::Constant);
    QCOMPARE(flow.value(state).writers, (std::vector<size_t>{3}));
    QCOMPARE(flow.value(state).lifetime, std::optional<Lifetime>(Lifetime{0, 4}));
    QCOMPARE(flow.value(unused).origin, ValueOrigin::Unused);
    QVERIFY(!flow.value(unused).lifetime);
    QVERIFY(!flow.value(unused).producer);
  }

  // The delegate split rule on hand-made arg lists: a scalar input after a
  // tensor input, a constant, an output of an earlier delegate, and a
  // non-tensor arg at the end (always input, so no outputs follow it).
  void delegateSplitRule() {
    MethodBuilder b;
    const int32_t x = b.input();
    const int32_t weight = b.value(constantTensor());
    const int32_t y1 = b.tensor(), y2 = b.tensor();
    const int32_t scale = b.value(DoubleValue{0.5});  // a higher id than y1, y2, yet an input
    const int32_t z = b.tensor();
    b.method.outputs->push_back(z);
    b.delegate("CudaBackend", {x, scale, weight, y1, y2});
    b.delegate("CudaBackend", {y2, y1, z});
    const auto flow = Dataflow::build(b.method);
    QCOMPARE(flow.instructions()[0].inputs, (Ids{x, scale, weight}));
    QCOMPARE(flow.instructions()[0].outputs, (Ids{y1, y2}));
    QCOMPARE(flow.instructions()[1].inputs, (Ids{y2, y1}));
    QCOMPARE(flow.instructions()[1].outputs, (Ids{z}));
    QCOMPARE(flow.value(y1).lifetime, std::optional<Lifetime>(Lifetime{0, 1}));
    QCOMPARE(flow.value(z).lifetime, std::optional<Lifetime>(Lifetime{1, 2}));

    // Direct calls: what is defined decides, not the ids.
    std::vector<bool> defined(b.method.values->size(), false);
    defined[static_cast<size_t>(x)] = defined[static_cast<size_t>(scale)] = true;
    auto split = analysis::splitDelegateArgs(b.method, {x, y1, y2}, defined);
    QCOMPARE(split.inputs, (Ids{x}));
    QCOMPARE(split.outputs, (Ids{y1, y2}));
    defined[static_cast<size_t>(y1)] = true;
    split = analysis::splitDelegateArgs(b.method, {x, y1, y2}, defined);
    QCOMPARE(split.inputs, (Ids{x, y1}));
    QCOMPARE(split.outputs, (Ids{y2}));
    split = analysis::splitDelegateArgs(b.method, {y2, scale}, defined);
    QCOMPARE(split.inputs, (Ids{y2, scale}));
    QVERIFY(split.outputs.empty());
    split = analysis::splitDelegateArgs(b.method, {x, 999}, defined);  // out of range: input
    QCOMPARE(split.inputs, (Ids{x, 999}));
    // A non-tensor is an input even where the caller's vector says undefined,
    // and it ends the run of outputs.
    std::vector<bool> onlyX(b.method.values->size(), false);
    onlyX[static_cast<size_t>(x)] = true;
    split = analysis::splitDelegateArgs(b.method, {x, scale, y1}, onlyX);
    QCOMPARE(split.inputs, (Ids{x, scale}));
    QCOMPARE(split.outputs, (Ids{y1}));
    split = analysis::splitDelegateArgs(b.method, {x, y1, scale}, onlyX);
    QCOMPARE(split.inputs, (Ids{x, y1, scale}));
    QVERIFY(split.outputs.empty());
  }

  // Upstream elides a static view (reshape) into a second tensor at its
  // base's place that no instruction writes. Read as the last input before a
  // kernel's outs, or a delegate's, it is an input, not an unreturned scratch
  // out or a delegate output: otherwise planning gives it a place of its own
  // and the reader reads storage nothing wrote.
  void elidedViewsAreInputsNotOuts() {
    MethodBuilder b;
    const int32_t x = b.input();
    const int32_t y = b.tensor();
    Tensor reshaped = plannedTensor(b.method.values->back().tensor()->allocation_info->offset());
    reshaped.sizes = std::vector<int32_t>{4};
    reshaped.dim_order = std::vector<uint8_t>{0};
    const int32_t v = b.value(reshaped);                   // float[4] over y's float[2, 2]
    const int32_t same = b.value(plannedTensor(16 * 1));  // y's place and shape; y is read later
    const int32_t z = b.tensor(), o = b.tensor(), last = b.tensor();
    b.method.outputs->push_back(last);
    b.kernel("aten::relu", {x, y, y});
    b.kernel("aten::relu", {v, z, z});                 // a view with another shape
    b.delegate("XnnpackBackend", {same, o});           // a view of a value still read later
    b.kernel("aten::add", {y, o, z, last, last});
    const auto flow = Dataflow::build(b.method);
    QCOMPARE(flow.instructions()[1].inputs, (Ids{v}));
    QCOMPARE(flow.instructions()[1].outputs, (Ids{z}));
    QCOMPARE(flow.instructions()[2].inputs, (Ids{same}));
    QCOMPARE(flow.instructions()[2].outputs, (Ids{o}));
    for (int32_t view : {v, same}) {
      QCOMPARE(flow.value(view).origin, ValueOrigin::Undefined);
      QCOMPARE(flow.value(view).storage_alias_of, std::optional<int32_t>(y));
    }
    // In a list read before the outs (aten::index's indices): the list is read.
    MethodBuilder l;
    const int32_t self = l.input();
    const int32_t idx = l.tensor();
    const int32_t idxView = l.value(plannedTensor(16 * 1));  // idx's place; idx is read later
    const int32_t indices = l.value(OptionalTensorListValue{std::vector<int32_t>{idxView}});
    const int32_t picked = l.tensor(), sum = l.tensor();
    l.method.outputs->push_back(sum);
    l.kernel("aten::relu", {self, idx, idx});
    l.kernel("aten::index", {self, indices, picked, picked});
    l.kernel("aten::add", {picked, idx, sum, sum});
    const auto listed = Dataflow::build(l.method);
    QCOMPARE(asSet(listed.instructions()[1].inputs), (std::set<int32_t>{self, indices, idxView}));
    QCOMPARE(listed.instructions()[1].outputs, (Ids{picked}));
    QCOMPARE(listed.value(idxView).storage_alias_of, std::optional<int32_t>(idx));

    // A place reused after its value died, by an out of the same size and
    // shape, stays an out: a kernel's scratch out and a delegate's output.
    MethodBuilder r;
    const int32_t in = r.input();
    const int32_t t = r.tensor();
    const int32_t scratch = r.value(plannedTensor(16 * 1));
    const int32_t u = r.tensor(), w = r.tensor();
    const int32_t out = r.value(plannedTensor(16 * 1));
    r.method.outputs->push_back(out);
    r.kernel("aten::relu", {in, t, t});
    r.kernel("aten::relu", {t, u, u});
    r.kernel("cortex_m::quantized_depthwise_conv2d", {u, scratch, w, w});
    r.delegate("XnnpackBackend", {w, out});
    const auto reused = Dataflow::build(r.method);
    QCOMPARE(asSet(reused.instructions()[2].outputs), (std::set<int32_t>{scratch, w}));
    QCOMPARE(reused.instructions()[3].inputs, (Ids{w}));
    QCOMPARE(reused.instructions()[3].outputs, (Ids{out}));
    QCOMPARE(reused.value(out).storage_alias_of, std::optional<int32_t>{});
  }

  // Instructions are numbered over all chains, chain 0 first.
  void flatOrderOverChains() {
    MethodBuilder b;
    const int32_t x = b.input(), t = b.tensor(), y = b.tensor();
    b.method.outputs->push_back(y);
    b.kernel("aten::relu", {x, t, t});
    b.method.chains->push_back(Chain{});
    b.method.chains->back().instructions.emplace();
    b.kernel("aten::relu", {t, y, y});
    const auto flow = Dataflow::build(b.method);
    QCOMPARE(flow.instructionCount(), size_t{2});
    QCOMPARE(flow.instructions()[1].flat_index, size_t{1});
    QCOMPARE(flow.instructions()[1].chain, uint32_t{1});
    QCOMPARE(flow.instructions()[1].index_in_chain, uint32_t{0});
    QCOMPARE(flow.flatIndex(1, 0), std::optional<size_t>(1));
    QCOMPARE(flow.flatIndex(0, 0), std::optional<size_t>(0));
    QVERIFY(!flow.flatIndex(0, 1));
    QVERIFY(!flow.flatIndex(2, 0));
    QCOMPARE(flow.value(t).consumers, (std::vector<size_t>{1}));
  }

  // Bad indices are skipped, never followed: no crash on a broken method.
  void outOfRangeIndicesAreIgnored() {
    MethodBuilder b;
    const int32_t x = b.input(), y = b.tensor();
    b.method.outputs->push_back(y);
    b.method.outputs->push_back(77);
    b.kernel(5, {x, 99, y, y});  // op_index 5 does not exist
    b.add(MoveCall{-3, 42});
    b.add(FreeCall{1000});
    b.add(DelegateCall{7, Ids{x, -1}});
    const auto flow = Dataflow::build(b.method);
    QCOMPARE(flow.instructionCount(), size_t{4});
    QCOMPARE(flow.instructions()[0].inputs, (Ids{x}));
    QCOMPARE(flow.instructions()[0].outputs, (Ids{y}));
    QVERIFY(flow.instructions()[0].label.find("out of range") != std::string::npos);
    QVERIFY(flow.instructions()[1].inputs.empty() && flow.instructions()[1].outputs.empty());
    QVERIFY(flow.instructions()[3].label.find("out of range") != std::string::npos);
    QCOMPARE(flow.values().size(), size_t{2});
  }
};

QTEST_GUILESS_MAIN(DataflowTest)
#include "test_dataflow.moc"
