// core/synth: the program builder, the JSON spec (every error class with its
// JSON path), the scenario generators, the demo and the large program.
#include <QtTest>

#include <QDir>
#include <QFile>

#include <cstring>
#include <functional>
#include <set>
#include <nlohmann/json.hpp>

#include "pte/Reader.h"
#include "pte/Writer.h"
#include "support/TestSupport.h"
#include "synth/JsonSpec.h"
#include "synth/ProgramBuilder.h"
#include "synth/Scenarios.h"

using namespace ptescope;
using namespace ptescope::program;
using namespace ptescope::synth;

namespace {

std::vector<uint8_t> floatBytes(std::initializer_list<float> values) {
  std::vector<uint8_t> out(values.size() * 4);
  std::memcpy(out.data(), std::data(values), out.size());
  return out;
}

std::vector<uint8_t> bytesOf(std::string_view text) { return {text.begin(), text.end()}; }

// Writes through the verified writer and reads the file back.
pte::LoadedProgram writeAndRead(const Program& program, const QString& name) {
  const QString path = QDir(test::tempDir()).filePath(name);
  auto status = pte::writeProgramFile(program, path.toStdString());
  if (!status) {
    QTest::qFail(qPrintable(QString::fromStdString(status.error().message)), __FILE__, __LINE__);
    return {};
  }
  return test::loadOrFail(path);
}

// Same structure: both serialize to the same bytes.
bool sameStructure(const Program& a, const Program& b) {
  auto x = pte::serializeProgram(a);
  auto y = pte::serializeProgram(b);
  return x.ok() && y.ok() && x.value() == y.value();
}

std::string errorOf(std::string_view spec) {
  auto result = synthesizeFromSpec(spec);
  return result.ok() ? std::string("(no error)") : result.error().message;
}

const Method& methodNamed(const Program& p, std::string_view name) {
  static const Method kNone;
  const Method* m = p.findMethod(name);
  return m ? *m : kNone;
}

std::vector<const KernelCall*> kernelCalls(const Method& m) {
  std::vector<const KernelCall*> out;
  for (const auto& chain : items(m.chains))
    for (const auto& ins : items(chain.instructions))
      if (const auto* k = std::get_if<KernelCall>(&ins.data)) out.push_back(k);
  return out;
}

size_t countKind(const Method& m, InstructionKind kind) {
  size_t n = 0;
  for (const auto& chain : items(m.chains))
    for (const auto& ins : items(chain.instructions)) n += ins.kind() == kind;
  return n;
}

using ptescope::test::kIssue3SpecExample;

// A one-method spec with 2×2 float tensors `tensors`, inputs a, b and the
// given nodes and outputs, for the error cases.
std::string smallSpec(const std::string& nodes, const std::string& outputs = R"(["y"])",
                      const std::string& extraMethodFields = "") {
  return R"({"methods": [{"name": "forward", "inputs": ["a", "b"], "outputs": )" + outputs +
         R"(, "tensors": {"a": {"dtype": "float32", "sizes": [2, 2]}, "b": {"dtype": "float32", "sizes": [2, 2]},
                         "t": {"dtype": "float32", "sizes": [2, 2]}, "u": {"dtype": "float32", "sizes": [2, 2]},
                         "y": {"dtype": "float32", "sizes": [2, 2]}},
             "constants": {"w": {"dtype": "float32", "sizes": [2, 2], "fill": 1}},
             "nodes": )" +
         nodes + extraMethodFields + "}]}";
}

}  // namespace

class SynthTest : public QObject {
  Q_OBJECT

 private slots:
  // ---- ProgramBuilder ----

  void builderRoundTrip() {
    ProgramBuilder builder;
    auto& f = builder.addMethod("forward");
    const ValueId x = f.addTensor(ScalarType::Float, {2, 2});
    const ValueId w = f.addConstant(ScalarType::Float, {2, 2}, floatBytes({1, 2, 3, 4}));
    const ValueId v = f.addConstant(ScalarType::Float, {3}, floatBytes({5, 6, 7}));
    const ValueId h = f.addTensor(ScalarType::Float, {2, 2});
    const ValueId s = f.addTensor(ScalarType::Float, {2, 2}, ShapeDynamism::DynamicBound);
    const ValueId t = f.addTensor(ScalarType::Float, {2, 2});
    const ValueId y = f.addTensor(ScalarType::Float, {2, 2});
    const ValueId alpha = f.addInt(2);
    f.addKernelCall("aten::add.out", {x, w, alpha}, {h});
    f.addDelegateCall("CudaBackend", {textCompileSpec("target_device", "cuda:0"), {"raw", {0, 255}}},
                      bytesOf("so\nweights"), {h}, {s});
    f.addKernelCall("aten::relu.out", {s}, {t});
    f.addKernelCall("aten::add.out", {t, x, f.addDouble(0.5)}, {y});
    f.addKernelCall("custom::noop", {f.addBool(true), f.addNull(), f.addIntList({1, 2}), f.addDoubleList({0.25}),
                                     f.addBoolList({true, false}), f.addTensorList({x, t}), f.addString("hi")},
                    {f.addTensor(ScalarType::Long, {})});
    f.setInputs({x});
    f.setOutputs({y});

    auto& g = builder.addMethod("prefill");
    const ValueId gx = g.addTensor(ScalarType::Half, {1, 2, 3});
    const ValueId gw = g.addConstant(ScalarType::Long, {1}, std::vector<uint8_t>{9, 0, 0, 0, 0, 0, 0, 0});
    const ValueId gy = g.addTensor(ScalarType::Half, {1, 2, 3});
    const ValueId gz = g.addTensor(ScalarType::Half, {1, 2, 3});
    g.addDelegateCall("CudaBackend", {textCompileSpec("target_device", "cuda:0")}, bytesOf("so\nweights"), {gx, gw},
                      {gy});  // the same blob as forward's delegate: one segment
    g.addDelegateCall("OtherBackend", {}, {}, {gy}, {gz});  // an empty blob stays INLINE
    g.setInputs({gx});
    g.setOutputs({gz});

    auto built = builder.build();
    QVERIFY2(built.ok(), built.ok() ? "" : built.error().message.c_str());
    const Program& program = built.value();

    // Structure as the format wants it (pte-format.md §4, §7, §8).
    QCOMPARE(program.methods().size(), size_t(2));
    QCOMPARE(items(program.segments).size(), size_t(2));  // constants + one shared blob
    QVERIFY(program.constant_segment.has_value());
    QCOMPARE(program.constant_segment->segment_index, 0u);
    // 16 bytes at 0, 12 bytes at 16 (padded to 32), 8 bytes at 32.
    QCOMPARE(items(program.constant_segment->offsets), (std::vector<uint64_t>{0, 0, 16, 32}));
    const Method& fm = program.methods()[0];
    QCOMPARE(items(fm.values)[size_t(w)].tensor()->data_buffer_idx, 1u);
    QCOMPARE(items(fm.values)[size_t(v)].tensor()->data_buffer_idx, 2u);
    QCOMPARE(items(program.methods()[1].values)[size_t(gw)].tensor()->data_buffer_idx, 3u);
    QCOMPARE(items(fm.operators).size(), size_t(3));  // add, relu, noop: add deduplicated
    QCOMPARE(*items(fm.operators)[0].name, std::string("aten::add"));
    QCOMPARE(*items(fm.operators)[0].overload, std::string("out"));
    QCOMPARE(*items(fm.operators)[1].name, std::string("aten::relu"));
    QCOMPARE(*items(fm.operators)[2].overload, std::string());
    const auto calls = kernelCalls(fm);
    QCOMPARE(items(calls[0]->args), (std::vector<int32_t>{x, w, alpha, h, h}));
    QCOMPARE(calls[2]->op_index, 0);
    const auto* dcall = std::get_if<DelegateCall>(&items(items(fm.chains)[0].instructions)[1].data);
    QVERIFY(dcall);
    QCOMPARE(items(dcall->args), (std::vector<int32_t>{h, s}));
    QCOMPARE(items(items(fm.values)[size_t(h)].tensor()->dim_order), (std::vector<uint8_t>{0, 1}));
    QCOMPARE(items(fm.delegates)[0].processed->location, DelegateDataLocation::Segment);
    QCOMPARE(items(program.methods()[1].delegates)[0].processed->index, items(fm.delegates)[0].processed->index);
    QCOMPARE(items(program.methods()[1].delegates)[1].processed->location, DelegateDataLocation::Inline);
    for (const auto& method : program.methods())
      for (const auto& value : items(method.values))
        if (const auto* tensor = value.tensor(); tensor && !tensor->isConstant()) {
          QVERIFY(tensor->device().isCpu());
          if (tensor->numel() > 0) QVERIFY(tensor->isPlanned());
        }

    auto reread = writeAndRead(program, "builder.pte");
    QVERIFY(sameStructure(program, reread.program));
    // Constant bytes come back as given.
    const Program& back = reread.program;
    auto wData = tensorData(back, *items(back.methods()[0].values)[size_t(w)].tensor());
    QCOMPARE(wData.kind, TensorDataSource::Kind::ConstantSegment);
    QCOMPARE(std::vector<uint8_t>(wData.data.data(), wData.data.data() + wData.data.size()), floatBytes({1, 2, 3, 4}));
    auto vData = tensorData(back, *items(back.methods()[0].values)[size_t(v)].tensor());
    QCOMPARE(std::vector<uint8_t>(vData.data.data(), vData.data.data() + vData.data.size()), floatBytes({5, 6, 7}));
    auto gwData = tensorData(back, *items(back.methods()[1].values)[size_t(gw)].tensor());
    QCOMPARE(std::vector<uint8_t>(gwData.data.data(), gwData.data.data() + gwData.data.size()),
             (std::vector<uint8_t>{9, 0, 0, 0, 0, 0, 0, 0}));
    auto blob = delegateBlob(back, items(back.methods()[1].delegates)[0]);
    QVERIFY(blob.has_value());
    QCOMPARE(std::string(reinterpret_cast<const char*>(blob->data()), blob->size()), std::string("so\nweights"));
    const auto& specs = items(items(back.methods()[0].delegates)[0].compile_specs);
    QCOMPARE(specs.size(), size_t(2));
    QCOMPARE(specs[0].valueText(), std::string("cuda:0"));
    QCOMPARE(items(specs[1].value), (std::vector<uint8_t>{0, 255}));
  }

  void builderErrors() {
    {
      ProgramBuilder b;
      auto& m = b.addMethod("forward");
      m.addKernelCall("aten::relu.out", {7}, {m.addTensor(ScalarType::Float, {1})});
      auto r = b.build();
      QVERIFY(!r.ok());
      QVERIFY2(r.error().message.find("value 7") != std::string::npos, r.error().message.c_str());
    }
    {
      ProgramBuilder b;
      auto& m = b.addMethod("forward");
      m.addKernelCall("relu.out", {}, {m.addTensor(ScalarType::Float, {1})});
      auto r = b.build();
      QVERIFY(!r.ok());
      QVERIFY2(r.error().message.find("namespace") != std::string::npos, r.error().message.c_str());
    }
    {
      ProgramBuilder b;
      b.addMethod("forward").addConstant(ScalarType::Float, {2}, {1, 2, 3});
      auto r = b.build();
      QVERIFY(!r.ok());
      QVERIFY2(r.error().message.find("3 bytes") != std::string::npos, r.error().message.c_str());
    }
    {
      ProgramBuilder b;
      b.addMethod("forward");
      b.addMethod("forward");
      auto r = b.build();
      QVERIFY(!r.ok());
      QVERIFY2(r.error().message.find("twice") != std::string::npos, r.error().message.c_str());
    }
    // Views: of a constant, of another byte size, written by a kernel, and
    // one read where it reads as a delegate's output (its base unused after).
    auto viewError = [](const std::function<void(MethodBuilder&)>& make) {
      ProgramBuilder b;
      make(b.addMethod("forward"));
      auto r = b.build();
      return r.ok() ? std::string() : r.error().message;
    };
    std::string message = viewError([](MethodBuilder& m) {
      m.addView(m.addConstant(ScalarType::Float, {1}, floatBytes({1})), {1});
    });
    QVERIFY2(message.find("not a constant or a view") != std::string::npos, message.c_str());
    message = viewError([](MethodBuilder& m) { m.addView(m.addTensor(ScalarType::Float, {2, 2}), {3}); });
    QVERIFY2(message.find("a view has its base's byte size") != std::string::npos, message.c_str());
    message = viewError([](MethodBuilder& m) {
      const auto x = m.addTensor(ScalarType::Float, {2, 2});
      m.addKernelCall("aten::relu.out", {x}, {m.addView(x, {4})});
    });
    QVERIFY2(message.find("a view is not written") != std::string::npos, message.c_str());
    message = viewError([](MethodBuilder& m) {
      const auto x = m.addTensor(ScalarType::Float, {2, 2}), t = m.addTensor(ScalarType::Float, {2, 2});
      const auto o = m.addTensor(ScalarType::Float, {4});
      m.addKernelCall("aten::relu.out", {x}, {t});
      m.addDelegateCall("XnnpackBackend", {}, {'a'}, {m.addView(t, {4})}, {o});
      m.setInputs({x});
      m.setOutputs({o});
    });
    QVERIFY2(message.find("cannot be planned over its base") != std::string::npos, message.c_str());
  }

  void operatorNames() {
    auto add = parseOperatorName("aten::add.out");
    QVERIFY(add.ok());
    QCOMPARE(*add->name, std::string("aten::add"));
    QCOMPARE(*add->overload, std::string("out"));
    auto copy = parseOperatorName("et_copy::_h2d_copy.out");
    QVERIFY(copy.ok());
    QCOMPARE(copy->qualifiedName(), std::string("et_copy::_h2d_copy.out"));
    auto plain = parseOperatorName("custom::op");
    QVERIFY(plain.ok());
    QCOMPARE(*plain->overload, std::string());
    QVERIFY(!parseOperatorName("::add.out").ok());
    QVERIFY(!parseOperatorName("aten::.out").ok());
    QVERIFY(!parseOperatorName("aten::add.").ok());
    QVERIFY(!parseOperatorName("add").ok());
  }

  void elementEncoding() {
    auto f16 = encodeElements(ScalarType::Half, {1.0, -2.0, 65504.0});
    QVERIFY(f16.ok());
    QCOMPARE(f16.value(), (std::vector<uint8_t>{0x00, 0x3c, 0x00, 0xc0, 0xff, 0x7b}));  // IEEE binary16
    auto bf16 = encodeElements(ScalarType::BFloat16, {1.0, -0.5});
    QVERIFY(bf16.ok());
    QCOMPARE(bf16.value(), (std::vector<uint8_t>{0x80, 0x3f, 0x00, 0xbf}));
    auto i16 = encodeElements(ScalarType::Short, {-2});
    QVERIFY(i16.ok());
    QCOMPARE(i16.value(), (std::vector<uint8_t>{0xfe, 0xff}));
    QVERIFY(!encodeElements(ScalarType::Char, {200}).ok());
    QVERIFY(!encodeElements(ScalarType::Int, {1.5}).ok());
    QVERIFY(!encodeElements(ScalarType::QInt8, {1}).ok());
    auto b = encodeElements(ScalarType::Bool, {0, 3});
    QVERIFY(b.ok());
    QCOMPARE(b.value(), (std::vector<uint8_t>{0, 1}));
  }

  // ---- JSON spec ----

  void issueExampleBuilds() {
    auto result = synthesizeFromSpec(kIssue3SpecExample);
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    const Program& p = result->program;
    QCOMPARE(p.methods().size(), size_t(1));
    const Method& m = p.methods()[0];
    QCOMPARE(*m.name, std::string("forward"));
    QCOMPARE(items(m.inputs).size(), size_t(2));
    QCOMPARE(items(m.outputs).size(), size_t(1));
    QCOMPARE(items(m.delegates).size(), size_t(1));
    const auto& delegate = items(m.delegates)[0];
    QCOMPARE(*delegate.id, std::string("CudaBackend"));
    QVERIFY(delegate.findCompileSpec("target_device"));
    QCOMPARE(delegate.findCompileSpec("target_device")->valueText(), std::string("cuda:0"));
    QCOMPARE(items(m.operators).size(), size_t(1));
    QCOMPARE(items(m.operators)[0].qualifiedName(), std::string("aten::relu.out"));
    // relu's args: t, then y, then y again.
    const auto calls = kernelCalls(m);
    QCOMPARE(calls.size(), size_t(1));
    const auto& args = items(calls[0]->args);
    QCOMPARE(args.size(), size_t(3));
    QCOMPARE(args[1], items(m.outputs)[0]);
    QCOMPARE(args[2], items(m.outputs)[0]);
    // The delegate call's args: a, b, then t (which relu reads).
    const auto* dcall = std::get_if<DelegateCall>(&items(items(m.chains)[0].instructions)[0].data);
    QVERIFY(dcall);
    QCOMPARE(items(dcall->args), (std::vector<int32_t>{items(m.inputs)[0], items(m.inputs)[1], args[0]}));
    // As built: every tensor on CPU, one CPU buffer, no device list.
    for (const auto& value : items(m.values))
      if (const auto* t = value.tensor()) QVERIFY(t->device().isCpu());
    QCOMPARE(items(m.non_const_buffer_sizes).size(), size_t(2));
    QVERIFY(!m.non_const_buffer_device.has_value());
    const auto options = result->options.forMethod("forward");
    QCOMPARE(options, MethodPassOptions{});
    auto back = writeAndRead(p, "issue.pte");
    QVERIFY(sameStructure(p, back.program));
  }

  // "views": an elided static view, as upstream writes a reshape: no
  // instruction, planned over its base's storage. Through the device passes a
  // CPU reader of a view of a GPU delegate's output gets the D2H.
  void viewsFromASpec() {
    const std::string spec = R"({"methods": [{"name": "forward", "inputs": ["a"], "outputs": ["y"],
        "tensors": {"a": {"dtype": "float32", "sizes": [2, 2]}, "t": {"dtype": "float32", "sizes": [2, 2]},
                    "y": {"dtype": "float32", "sizes": [4]}},
        "views": {"flat": {"of": "t", "sizes": [4]}},
        "nodes": [{"delegate": "CudaBackend", "compile_specs": {"method_name": "forward", "target_device": "cuda:0"},
                   "inputs": ["a"], "outputs": ["t"]},
                  {"op": "aten::relu.out", "inputs": ["flat"], "outputs": ["y"]}]}]})";
    auto result = synthesizeFromSpec(spec);
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    const Method& m = result->program.methods()[0];
    QCOMPARE(kernelCalls(m).size(), size_t(1));  // the view is no instruction
    const int32_t flat = items(kernelCalls(m)[0]->args)[0];
    const int32_t t = items(std::get_if<DelegateCall>(&items(items(m.chains)[0].instructions)[0].data)->args).back();
    const Tensor& view = *items(m.values)[size_t(flat)].tensor();
    const Tensor& base = *items(m.values)[size_t(t)].tensor();
    QCOMPARE(items(view.sizes), (std::vector<int32_t>{4}));
    QVERIFY(view.isPlanned() && base.isPlanned());
    QCOMPARE(view.allocation_info->offset(), base.allocation_info->offset());
    QCOMPARE(view.allocation_info->memory_id, base.allocation_info->memory_id);
    auto passed = applyDevicePasses(result.value());
    QVERIFY2(passed.ok(), passed.ok() ? "" : passed.error().message.c_str());
    size_t d2h = 0;
    for (const auto* call : kernelCalls(passed->methods()[0]))
      d2h += items(passed->methods()[0].operators)[size_t(call->op_index)].name == std::string("et_copy::_d2h_copy");
    QCOMPARE(d2h, size_t(1));
    auto back = writeAndRead(passed.value(), "views.pte");
    QVERIFY(sameStructure(passed.value(), back.program));
  }

  void optionsPerMethod() {
    const std::string spec = R"({"methods": [
        {"name": "forward", "inputs": ["a"], "outputs": ["y"],
         "tensors": {"a": {"dtype": "float32", "sizes": [4]}, "y": {"dtype": "float32", "sizes": [4]}},
         "nodes": [{"op": "aten::relu.out", "inputs": ["a"], "outputs": ["y"]}]},
        {"name": "decode", "inputs": ["a"], "outputs": ["y"],
         "tensors": {"a": {"dtype": "float32", "sizes": [4]}, "y": {"dtype": "float32", "sizes": [4]}},
         "nodes": [{"op": "aten::relu.out", "inputs": ["a"], "outputs": ["y"]}]}],
       "options": {"skip_h2d_for_method_inputs": true,
                   "alloc_graph_input": {"decode": false},
                   "enable_non_cpu_memory_planning": {"forward": true, "decode": true}}})";
    auto result = synthesizeFromSpec(spec);
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    const auto forward = result->options.forMethod("forward");
    const auto decode = result->options.forMethod("decode");
    QVERIFY(forward.skip_h2d_for_method_inputs && decode.skip_h2d_for_method_inputs);
    QVERIFY(forward.alloc_graph_input);
    QVERIFY(!decode.alloc_graph_input);
    QVERIFY(!forward.skip_d2h_for_method_outputs);
    // alloc_graph_input is honoured by the as-built plan.
    const Method& fm = methodNamed(result->program, "forward");
    const Method& dm = methodNamed(result->program, "decode");
    QVERIFY(items(fm.values)[size_t(items(fm.inputs)[0])].tensor()->isPlanned());
    QVERIFY(!items(dm.values)[size_t(items(dm.inputs)[0])].tensor()->isPlanned());
    QVERIFY(items(dm.values)[size_t(items(dm.outputs)[0])].tensor()->isPlanned());
  }

  void literalsAndLists() {
    const std::string spec = smallSpec(
        R"([{"op": "custom::mix.out", "inputs": ["a", 3, 2.5, true, null, [1, 2], [0.5, 1], [true], ["a", "w"], []],
             "args": [-1], "outputs": ["y"]}])");
    auto result = synthesizeFromSpec(spec);
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    const Method& m = result->program.methods()[0];
    const auto& args = items(kernelCalls(m)[0]->args);
    QCOMPARE(args.size(), size_t(11 + 2));
    const std::vector<ValueKind> expected{ValueKind::Tensor,  ValueKind::Int,        ValueKind::Double,
                                          ValueKind::Bool,    ValueKind::Null,       ValueKind::IntList,
                                          ValueKind::DoubleList, ValueKind::BoolList, ValueKind::TensorList,
                                          ValueKind::IntList, ValueKind::Int,        ValueKind::Tensor,
                                          ValueKind::Tensor};
    for (size_t i = 0; i < expected.size(); ++i)
      QCOMPARE(items(m.values)[size_t(args[i])].kind(), expected[i]);
    QCOMPARE(std::get<IntValue>(items(m.values)[size_t(args[10])].data).value, int64_t(-1));
    QCOMPARE(std::get<DoubleValue>(items(m.values)[size_t(args[2])].data).value, 2.5);
  }

  void constantsData() {
    const std::string spec = R"({"methods": [{"name": "forward", "inputs": [], "outputs": ["c", "d"],
        "constants": {"c": {"dtype": "int32", "sizes": [3], "data": [1, -2, 3]},
                      "d": {"dtype": "bool", "sizes": [2], "fill": true}},
        "nodes": []}]})";
    auto result = synthesizeFromSpec(spec);
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    const Program& p = result->program;
    const Method& m = p.methods()[0];
    auto c = tensorData(p, *items(m.values)[size_t(items(m.outputs)[0])].tensor());
    QCOMPARE(std::vector<uint8_t>(c.data.data(), c.data.data() + c.data.size()),
             (std::vector<uint8_t>{1, 0, 0, 0, 0xfe, 0xff, 0xff, 0xff, 3, 0, 0, 0}));
    auto d = tensorData(p, *items(m.values)[size_t(items(m.outputs)[1])].tensor());
    QCOMPARE(std::vector<uint8_t>(d.data.data(), d.data.data() + d.data.size()), (std::vector<uint8_t>{1, 1}));
  }

  // "dim_order" gives a tensor its memory order (channels last here); a list
  // that is no permutation of the tensor's dimensions is an error naming it.
  void dimOrdersFromASpec() {
    const std::string spec = R"({"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["y"],
        "tensors": {"x": {"dtype": "float32", "sizes": [1, 3, 2, 2], "dim_order": [0, 2, 3, 1]},
                    "y": {"dtype": "float32", "sizes": [1, 3, 2, 2]}},
        "nodes": [{"op": "aten::relu.out", "inputs": ["x"], "outputs": ["y"]}]}]})";
    auto result = synthesizeFromSpec(spec);
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    const Method& m = result->program.methods()[0];
    const auto* x = items(m.values)[size_t(items(m.inputs)[0])].tensor();
    const auto* y = items(m.values)[size_t(items(m.outputs)[0])].tensor();
    QCOMPARE(items(x->dim_order), (std::vector<uint8_t>{0, 2, 3, 1}));
    QCOMPARE(items(y->dim_order), (std::vector<uint8_t>{0, 1, 2, 3}));
    std::string bad = spec;
    bad.replace(bad.find("[0, 2, 3, 1]"), 12, "[0, 2, 2, 1]");
    const std::string message = errorOf(bad);
    QVERIFY2(message.rfind("methods[0].tensors.x.dim_order[2]: expected each dimension 0..3 once", 0) == 0, message.c_str());
  }

  // {"optional_tensors": [null, "i"]} is a Tensor?[] (index.Tensor's
  // indices), null items None (-1); anything else in it is an error.
  void optionalTensorListsFromASpec() {
    const std::string spec = R"({"methods": [{"name": "forward", "inputs": ["x", "i"], "outputs": ["y"],
        "tensors": {"x": {"dtype": "float32", "sizes": [3, 4]}, "i": {"dtype": "int64", "sizes": [2]},
                    "y": {"dtype": "float32", "sizes": [3, 2]}},
        "nodes": [{"op": "aten::index.Tensor_out", "inputs": ["x", {"optional_tensors": [null, "i"]}], "outputs": ["y"]}]}]})";
    auto result = synthesizeFromSpec(spec);
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    const Method& m = result->program.methods()[0];
    const auto& args = items(kernelCalls(m)[0]->args);
    const auto& list = items(m.values)[size_t(args[1])];
    QCOMPARE(list.kind(), ValueKind::OptionalTensorList);
    QCOMPARE(items(std::get<OptionalTensorListValue>(list.data).items),
             (std::vector<int32_t>{-1, items(m.inputs)[1]}));
    std::string bad = spec;
    bad.replace(bad.find("[null, \"i\"]"), 11, "[null, 3]  ");
    const std::string message = errorOf(bad);
    QVERIFY2(message.rfind("methods[0].nodes[0].inputs[1].optional_tensors[1]: expected a tensor name or null", 0) == 0,
             message.c_str());
  }

  // "outputs": [["a", "b"]] makes one tensor-list out (split_copy's Tensor[]
  // out), laid out as upstream's emitter does: the list, then a new list of
  // the same members as the return.
  void tensorListOutsFromASpec() {
    const std::string spec = R"({"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["a", "b"],
        "tensors": {"x": {"dtype": "float32", "sizes": [4, 3]}, "a": {"dtype": "float32", "sizes": [2, 3]},
                    "b": {"dtype": "float32", "sizes": [2, 3]}},
        "nodes": [{"op": "aten::split_copy.Tensor_out", "inputs": ["x", 2, 0], "outputs": [["a", "b"]]}]}]})";
    auto result = synthesizeFromSpec(spec);
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    const Method& m = result->program.methods()[0];
    const auto& args = items(kernelCalls(m)[0]->args);
    QCOMPARE(args.size(), size_t(5));  // x, 2, 0, out list, return list
    for (size_t i : {size_t(3), size_t(4)}) {
      const auto& list = items(m.values)[size_t(args[i])];
      QCOMPARE(list.kind(), ValueKind::TensorList);
      QCOMPARE(items(std::get<TensorListValue>(list.data).items), items(m.outputs));
    }
  }

  void specErrors_data() {
    QTest::addColumn<QString>("spec");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("what");

    QTest::newRow("unknown tensor")
        << QString::fromStdString(smallSpec(R"([{"op": "aten::add.out", "inputs": ["a", "b"], "outputs": ["t"]},
                                               {"op": "aten::relu.out", "inputs": ["q"], "outputs": ["y"]}])"))
        << "methods[0].nodes[1].inputs[0]: " << "unknown tensor 'q'";
    QTest::newRow("unknown output tensor")
        << QString::fromStdString(smallSpec(R"([{"op": "aten::relu.out", "inputs": ["a"], "outputs": ["zz"]}])"))
        << "methods[0].nodes[0].outputs[0]: " << "unknown tensor 'zz'";
    QTest::newRow("duplicate output")
        << QString::fromStdString(smallSpec(R"([{"op": "aten::relu.out", "inputs": ["a"], "outputs": ["y"]},
                                               {"op": "aten::relu.out", "inputs": ["b"], "outputs": ["y"]}])"))
        << "methods[0].nodes[1].outputs[0]: " << "duplicate output";
    QTest::newRow("output repeated in one node")
        << QString::fromStdString(smallSpec(R"([{"op": "custom::two.out", "inputs": ["a"], "outputs": ["y", "y"]}])"))
        << "methods[0].nodes[0].outputs[1]: " << "duplicate output";
    QTest::newRow("cycle")
        << QString::fromStdString(smallSpec(R"([{"op": "aten::add.out", "inputs": ["a", "u"], "outputs": ["t"]},
                                               {"op": "aten::relu.out", "inputs": ["t"], "outputs": ["u"]},
                                               {"op": "aten::relu.out", "inputs": ["u"], "outputs": ["y"]}])"))
        << "methods[0].nodes[0].inputs[1]: " << "cycle";
    QTest::newRow("self cycle")
        << QString::fromStdString(smallSpec(R"([{"op": "aten::add.out", "inputs": ["a", "y"], "outputs": ["y"]}])"))
        << "methods[0].nodes[0].inputs[1]: " << "cycle";
    QTest::newRow("use before definition")
        << QString::fromStdString(smallSpec(R"([{"op": "aten::relu.out", "inputs": ["t"], "outputs": ["y"]},
                                               {"op": "aten::relu.out", "inputs": ["a"], "outputs": ["t"]}])"))
        << "methods[0].nodes[0].inputs[0]: " << "used before it is defined";
    QTest::newRow("read but never written")
        << QString::fromStdString(smallSpec(R"([{"op": "aten::add.out", "inputs": ["a", "u"], "outputs": ["y"]}])"))
        << "methods[0].nodes[0].inputs[1]: " << "never written";
    QTest::newRow("output never written")
        << QString::fromStdString(smallSpec(R"([{"op": "aten::relu.out", "inputs": ["a"], "outputs": ["t"]}])"))
        << "methods[0].outputs[0]: " << "never written";
    QTest::newRow("writes a method input")
        << QString::fromStdString(smallSpec(R"([{"op": "aten::relu.out", "inputs": ["b"], "outputs": ["a"]}])"))
        << "methods[0].nodes[0].outputs[0]: " << "method input";
    QTest::newRow("writes a constant")
        << QString::fromStdString(smallSpec(R"([{"op": "aten::relu.out", "inputs": ["b"], "outputs": ["w"]}])"))
        << "methods[0].nodes[0].outputs[0]: " << "constant";
    QTest::newRow("tensor list with unknown name")
        << QString::fromStdString(smallSpec(R"([{"op": "aten::cat.out", "inputs": [["a", "nope"], 0], "outputs": ["y"]}])"))
        << "methods[0].nodes[0].inputs[0][1]: " << "unknown tensor 'nope'";
    QTest::newRow("mixed list")
        << QString::fromStdString(smallSpec(R"([{"op": "aten::cat.out", "inputs": [["a", 1]], "outputs": ["y"]}])"))
        << "methods[0].nodes[0].inputs[0][1]: " << "a list holds only";
    QTest::newRow("bad dtype")
        << R"({"methods": [{"name": "f", "inputs": ["a"], "outputs": ["a"],
               "tensors": {"a": {"dtype": "float33", "sizes": [2]}}, "nodes": []}]})"
        << "methods[0].tensors.a.dtype: " << "unknown dtype 'float33'";
    QTest::newRow("negative size")
        << R"({"methods": [{"name": "f", "inputs": ["a"], "outputs": ["a"],
               "tensors": {"a": {"dtype": "float32", "sizes": [2, -1]}}, "nodes": []}]})"
        << "methods[0].tensors.a.sizes[1]: " << "size must be";
    QTest::newRow("fractional size")
        << R"({"methods": [{"name": "f", "inputs": ["a"], "outputs": ["a"],
               "tensors": {"a": {"dtype": "float32", "sizes": [2.5]}}, "nodes": []}]})"
        << "methods[0].tensors.a.sizes[0]: " << "size must be";
    QTest::newRow("sizes not a list")
        << R"({"methods": [{"name": "f", "inputs": ["a"], "outputs": ["a"],
               "tensors": {"a": {"dtype": "float32", "sizes": 4}}, "nodes": []}]})"
        << "methods[0].tensors.a.sizes: " << "expected the sizes";
    QTest::newRow("rank above 16")
        << R"({"methods": [{"name": "f", "inputs": ["a"], "outputs": ["a"],
               "tensors": {"a": {"dtype": "float32", "sizes": [1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1]}}, "nodes": []}]})"
        << "methods[0].tensors.a.sizes: " << "rank 17";
    QTest::newRow("bad dynamism")
        << R"({"methods": [{"name": "f", "inputs": ["a"], "outputs": ["a"],
               "tensors": {"a": {"dtype": "float32", "sizes": [2], "dynamism": "wobbly"}}, "nodes": []}]})"
        << "methods[0].tensors.a.dynamism: " << "unknown dynamism";
    QTest::newRow("missing outputs field")
        << QString::fromStdString(smallSpec(R"([{"op": "aten::relu.out", "inputs": ["a"]}])"))
        << "methods[0].nodes[0]: " << "missing field 'outputs'";
    QTest::newRow("missing op or delegate")
        << QString::fromStdString(smallSpec(R"([{"inputs": ["a"], "outputs": ["y"]}])"))
        << "methods[0].nodes[0]: " << "missing field 'op'";
    QTest::newRow("both op and delegate")
        << QString::fromStdString(smallSpec(R"([{"op": "aten::relu.out", "delegate": "X", "inputs": ["a"], "outputs": ["y"]}])"))
        << "methods[0].nodes[0]: " << "not both";
    QTest::newRow("missing method name")
        << R"({"methods": [{"inputs": [], "outputs": [], "nodes": []}]})" << "methods[0]: "
        << "missing field 'name'";
    QTest::newRow("missing methods") << R"({"options": {}})" << "(spec): " << "missing field 'methods'";
    QTest::newRow("unknown field")
        << QString::fromStdString(smallSpec(R"([{"op": "aten::relu.out", "inputz": ["a"], "inputs": ["a"], "outputs": ["y"]}])"))
        << "methods[0].nodes[0].inputz: " << "unknown field";
    QTest::newRow("op without namespace")
        << QString::fromStdString(smallSpec(R"([{"op": "relu.out", "inputs": ["a"], "outputs": ["y"]}])"))
        << "methods[0].nodes[0].op: " << "namespace";
    QTest::newRow("bad compile spec value")
        << QString::fromStdString(smallSpec(R"([{"delegate": "X", "compile_specs": {"n": 4}, "inputs": ["a"], "outputs": ["y"]}])"))
        << "methods[0].nodes[0].compile_specs.n: " << "compile spec value";
    QTest::newRow("bad blob byte")
        << QString::fromStdString(smallSpec(R"([{"delegate": "X", "blob": [1, 300], "inputs": ["a"], "outputs": ["y"]}])"))
        << "methods[0].nodes[0].blob[1]: " << "byte value";
    QTest::newRow("constant data length")
        << R"({"methods": [{"name": "f", "inputs": [], "outputs": ["c"],
               "constants": {"c": {"dtype": "float32", "sizes": [2, 2], "data": [1, 2, 3]}}, "nodes": []}]})"
        << "methods[0].constants.c.data: " << "3 elements given for a tensor of 4";
    QTest::newRow("constant with fill and data")
        << R"({"methods": [{"name": "f", "inputs": [], "outputs": ["c"],
               "constants": {"c": {"dtype": "float32", "sizes": [1], "data": [1], "fill": 1}}, "nodes": []}]})"
        << "methods[0].constants.c: " << "exactly one of 'fill' or 'data'";
    QTest::newRow("constant value out of range")
        << R"({"methods": [{"name": "f", "inputs": [], "outputs": ["c"],
               "constants": {"c": {"dtype": "int8", "sizes": [1], "fill": 300}}, "nodes": []}]})"
        << "methods[0].constants.c.fill: " << "value 300 cannot be stored as int8";
    QTest::newRow("name declared twice")
        << R"({"methods": [{"name": "f", "inputs": [], "outputs": [],
               "tensors": {"c": {"dtype": "float32", "sizes": [1]}},
               "constants": {"c": {"dtype": "float32", "sizes": [1], "fill": 0}}, "nodes": []}]})"
        << "methods[0].constants.c: " << "already declared";
    QTest::newRow("input is a constant")
        << R"({"methods": [{"name": "f", "inputs": ["c"], "outputs": [],
               "constants": {"c": {"dtype": "float32", "sizes": [1], "fill": 0}}, "nodes": []}]})"
        << "methods[0].inputs[0]: " << "is a constant";
    QTest::newRow("input listed twice")
        << R"({"methods": [{"name": "f", "inputs": ["a", "a"], "outputs": [],
               "tensors": {"a": {"dtype": "float32", "sizes": [1]}}, "nodes": []}]})"
        << "methods[0].inputs[1]: " << "listed twice";
    QTest::newRow("duplicate method")
        << R"({"methods": [{"name": "f", "inputs": [], "outputs": [], "nodes": []},
                           {"name": "f", "inputs": [], "outputs": [], "nodes": []}]})"
        << "methods[1].name: " << "already defined";
    QTest::newRow("no methods") << R"({"methods": []})" << "methods: " << "at least one method";
    QTest::newRow("option for unknown method")
        << R"({"methods": [{"name": "f", "inputs": [], "outputs": [], "nodes": []}],
               "options": {"alloc_graph_input": {"g": false}}})"
        << "options.alloc_graph_input.g: " << "no method 'g'";
    const std::string views = R"(, "views": {"v": {"of": "t", "sizes": [4]}})";
    QTest::newRow("view of a constant")
        << QString::fromStdString(smallSpec(R"([])", R"([])", R"(, "views": {"v": {"of": "w", "sizes": [4]}})"))
        << "methods[0].views.v.of: " << "'w' is a constant";
    QTest::newRow("view of another size")
        << QString::fromStdString(smallSpec(R"([])", R"([])", R"(, "views": {"v": {"of": "t", "sizes": [5]}})"))
        << "methods[0].views.v.sizes: " << "a view has its base's byte size";
    QTest::newRow("view written")
        << QString::fromStdString(smallSpec(R"([{"op": "aten::relu.out", "inputs": ["a"], "outputs": ["v"]}])", R"([])", views))
        << "methods[0].nodes[0].outputs[0]: " << "'v' is a view of 't' and cannot be written";
    QTest::newRow("view as method output")
        << QString::fromStdString(smallSpec(R"([{"op": "aten::relu.out", "inputs": ["a"], "outputs": ["t"]}])", R"(["v"])", views))
        << "methods[0].outputs[0]: " << "'v' is a view";
    QTest::newRow("view read before its base is written")
        << QString::fromStdString(smallSpec(R"([{"op": "aten::relu.out", "inputs": ["v"], "outputs": ["y"]},
                                               {"op": "aten::relu.out", "inputs": ["a"], "outputs": ["t"]}])", R"(["y"])", views))
        << "methods[0].nodes[0].inputs[0]: " << "tensor 't' (through its view 'v') is used before it is defined";
    QTest::newRow("unknown option")
        << R"({"methods": [{"name": "f", "inputs": [], "outputs": [], "nodes": []}], "options": {"skip_h2d": true}})"
        << "options.skip_h2d: " << "unknown field";
    QTest::newRow("option not a bool")
        << R"({"methods": [{"name": "f", "inputs": [], "outputs": [], "nodes": []}], "options": {"alloc_graph_input": 1}})"
        << "options.alloc_graph_input: " << "expected true/false";
    QTest::newRow("malformed JSON") << "{\"methods\": [\n  {\"name\": }\n]}" << "" << "malformed JSON";
    QTest::newRow("not an object") << "[1, 2]" << "(spec): " << "expected the spec";
  }

  void specErrors() {
    QFETCH(QString, spec);
    QFETCH(QString, path);
    QFETCH(QString, what);
    const std::string message = errorOf(spec.toStdString());
    // One line, starting with the JSON path, saying what is wrong.
    QVERIFY2(message.rfind(path.toStdString(), 0) == 0, message.c_str());
    QVERIFY2(message.find(what.toStdString()) != std::string::npos, message.c_str());
    QVERIFY2(message.find('\n') == std::string::npos, message.c_str());
  }

  void malformedJsonSaysWhere() {
    const std::string message = errorOf("{\"methods\": [\n  {\"name\": }\n]}");
    QVERIFY2(message.find("line 2") != std::string::npos, message.c_str());
  }

  void specFileErrorsNameTheFile() {
    const QString path = QDir(test::tempDir()).filePath("broken.json");
    const std::string spec = smallSpec(R"([{"op": "aten::relu.out", "inputs": ["q"], "outputs": ["y"]}])");
    test::writeAll(path, std::vector<uint8_t>(spec.begin(), spec.end()));
    auto result = synthesizeFromSpecFile(path.toStdString());
    QVERIFY(!result.ok());
    QCOMPARE(QString::fromStdString(result.error().message),
             path + ": methods[0].nodes[0].inputs[0]: unknown tensor 'q'");
    auto missing = synthesizeFromSpecFile("/nonexistent/spec.json");
    QVERIFY(!missing.ok());
    QVERIFY(missing.error().message.rfind("/nonexistent/spec.json: ", 0) == 0);
  }

  // ---- scenarios ----

  void scenariosBuildAndWrite() {
    const auto& all = scenarios();
    // Every graph shape of the table in spec §4.1.
    for (const char* name : {"h2d_d2h", "cpu_only_delegate", "no_device_planning", "redundant_same_device",
                             "cross_device", "multiple_same_device_consumers", "gpu_and_cpu_consumers",
                             "same_and_cross_device", "cuda_1", "add_then_sin", "skip_h2d", "skip_d2h", "skip_both",
                             "skip_both_unplanned_io", "skip_h2d_partial"})
      QVERIFY2(findScenario(name), name);
    std::set<std::string> names;
    for (const auto& scenario : all) {
      QVERIFY2(names.insert(scenario.name).second, scenario.name.c_str());
      QVERIFY(!scenario.description.empty());
      auto built = synthesizeScenario(scenario.name);
      QVERIFY2(built.ok(), built.ok() ? "" : built.error().message.c_str());
      const Method& m = built->program.methods()[0];
      // Pre-pass: no copies, every tensor on CPU, 2×2 float32 inputs.
      for (const auto& op : items(m.operators)) QVERIFY(op.name->rfind("et_copy::", 0) != 0);
      for (const auto& value : items(m.values))
        if (const auto* t = value.tensor()) QVERIFY(t->device().isCpu());
      for (int32_t in : items(m.inputs)) {
        const auto* t = items(m.values)[size_t(in)].tensor();
        QCOMPARE(t->scalar_type, ScalarType::Float);
        QCOMPARE(items(t->sizes), (std::vector<int32_t>{2, 2}));
      }
      for (const auto& delegate : items(m.delegates)) {
        QCOMPARE(*delegate.id, std::string(kScenarioBackendId));
        const auto* maxValue = delegate.findCompileSpec("max_value");
        QVERIFY(maxValue);
        QCOMPARE(items(maxValue->value), std::vector<uint8_t>{4});
      }
      auto back = writeAndRead(built->program, QString::fromStdString(scenario.name) + ".pte");
      QVERIFY(sameStructure(built->program, back.program));
    }
  }

  void scenarioShapes() {
    auto devicesOf = [](const Method& m) {
      std::vector<std::string> out;
      for (const auto& d : items(m.delegates)) {
        const auto* spec = d.findCompileSpec("target_device");
        out.push_back(spec ? spec->valueText() : "none");
      }
      return out;
    };
    auto method = [](std::string_view name) { return synthesizeScenario(name).value().program.methods()[0]; };
    QCOMPARE(devicesOf(method("h2d_d2h")), (std::vector<std::string>{"cuda:0"}));
    QCOMPARE(devicesOf(method("cpu_only_delegate")), (std::vector<std::string>{"none"}));
    QCOMPARE(devicesOf(method("redundant_same_device")), (std::vector<std::string>{"cuda:0", "cuda:0"}));
    QCOMPARE(devicesOf(method("cross_device")), (std::vector<std::string>{"cuda:0", "cuda:1"}));
    QCOMPARE(devicesOf(method("multiple_same_device_consumers")), (std::vector<std::string>(4, "cuda:0")));
    QCOMPARE(devicesOf(method("same_and_cross_device")), (std::vector<std::string>{"cuda:0", "cuda:0", "cuda:1"}));
    QCOMPARE(devicesOf(method("cuda_1")), (std::vector<std::string>{"cuda:1"}));
    const Method cpuAndGpu = method("gpu_and_cpu_consumers");
    QCOMPARE(items(cpuAndGpu.outputs).size(), size_t(2));
    QCOMPARE(countKind(cpuAndGpu, InstructionKind::KernelCall), size_t(1));
    QCOMPARE(items(cpuAndGpu.operators)[0].qualifiedName(), std::string("aten::relu.out"));
    const Method partial = method("skip_h2d_partial");
    QCOMPARE(items(partial.operators)[0].qualifiedName(), std::string("aten::sin.out"));
    QCOMPARE(items(method("redundant_same_device").inputs).size(), size_t(3));

    QVERIFY(!synthesizeScenario("no_device_planning")->options.forMethod("forward").enable_non_cpu_memory_planning);
    QVERIFY(synthesizeScenario("skip_h2d")->options.forMethod("forward").skip_h2d_for_method_inputs);
    QVERIFY(synthesizeScenario("skip_d2h")->options.forMethod("forward").skip_d2h_for_method_outputs);
    const auto unplanned = synthesizeScenario("skip_both_unplanned_io");
    const auto o = unplanned->options.forMethod("forward");
    QVERIFY(o.skip_h2d_for_method_inputs && o.skip_d2h_for_method_outputs && !o.alloc_graph_input &&
            !o.alloc_graph_output);
    for (int32_t v : items(unplanned->program.methods()[0].inputs))
      QVERIFY(!items(unplanned->program.methods()[0].values)[size_t(v)].tensor()->isPlanned());
    QCOMPARE(synthesizeScenario("h2d_d2h")->options.forMethod("forward"), MethodPassOptions{});

    auto unknown = synthesizeScenario("no_such_scenario");
    QVERIFY(!unknown.ok());
    QVERIFY(unknown.error().message.find("h2d_d2h") != std::string::npos);  // lists the known names
  }

  // ---- demo ----

  void demoProgram() {
    auto demo = synthesizeDemo();
    QVERIFY2(demo.ok(), demo.ok() ? "" : demo.error().message.c_str());
    const Program& p = demo->program;
    QCOMPARE(p.methods().size(), size_t(2));
    QVERIFY(p.findMethod("forward"));
    QVERIFY(p.findMethod("prefill"));
    bool anyConstant = false;
    for (const auto& m : p.methods()) {
      QCOMPARE(items(m.delegates).size(), size_t(2));
      for (const auto& d : items(m.delegates)) {
        QCOMPARE(*d.id, std::string("CudaBackend"));
        QVERIFY(d.findCompileSpec("target_device"));
        QCOMPARE(d.findCompileSpec("target_device")->valueText(), std::string("cuda:0"));
      }
      // CPU kernels between the two delegates.
      const auto& instructions = items(items(m.chains)[0].instructions);
      QVERIFY(instructions.size() >= 3);
      QCOMPARE(instructions.front().kind(), InstructionKind::DelegateCall);
      QCOMPARE(instructions.back().kind(), InstructionKind::DelegateCall);
      for (size_t i = 1; i + 1 < instructions.size(); ++i) QCOMPARE(instructions[i].kind(), InstructionKind::KernelCall);
      for (const auto& value : items(m.values))
        if (const auto* t = value.tensor()) anyConstant |= t->isConstant();
    }
    QVERIFY(anyConstant);
    auto back = writeAndRead(p, "demo.pte");
    QVERIFY(sameStructure(p, back.program));
  }

  // The compiled-in demo spec is resources/demo.json.
  void demoSpecIsTheResource() {
    QFile file(QStringLiteral(QT_TESTCASE_SOURCEDIR) + "/../resources/demo.json");
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QCOMPARE(QByteArray::fromStdString(std::string(demoSpecJson())), text);
  }

  // ---- large program ----

  void largeProgramInstructionCounts() {
    QCOMPARE(kLargeProgramInstructionsPerLayer, size_t(11));
    for (size_t layers : {size_t(1), size_t(7), size_t(500)}) {
      auto program = largeProgram(layers);
      QVERIFY2(program.ok(), program.ok() ? "" : program.error().message.c_str());
      const Method& m = program->methods()[0];
      QCOMPARE(countKind(m, InstructionKind::KernelCall) + countKind(m, InstructionKind::DelegateCall),
               layers * 11);
      QCOMPARE(countKind(m, InstructionKind::DelegateCall), layers * 3);
      QCOMPARE(items(m.delegates).size(), layers * 3);
      for (const auto& d : items(m.delegates))
        QCOMPARE(d.findCompileSpec("target_device")->valueText(), std::string("cuda:0"));
      // Alternating: no two delegate calls in a row.
      const auto& instructions = items(items(m.chains)[0].instructions);
      for (size_t i = 1; i < instructions.size(); ++i)
        QVERIFY(!(instructions[i].kind() == InstructionKind::DelegateCall &&
                  instructions[i - 1].kind() == InstructionKind::DelegateCall));
    }
    auto big = largeProgram(5000);
    QVERIFY(big.ok());
    QCOMPARE(items(items(big->methods()[0].chains)[0].instructions).size(), size_t(55000));
    auto back = writeAndRead(big.value(), "large5000.pte");
    QCOMPARE(items(items(back.program.methods()[0].chains)[0].instructions).size(), size_t(55000));
    QVERIFY(!largeProgram(0).ok());
    QVERIFY(!largeProgram(kLargeProgramMaxLayers + 1).ok());
  }
};

QTEST_GUILESS_MAIN(SynthTest)
#include "test_synth.moc"
