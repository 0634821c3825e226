// synth writes programs the real ExecuTorch runtime loads: every operator it
// emits is one the portable kernel library registers, laid out with the
// argument count the runtime's generated unboxing checks (schema arguments
// + 1 return slot), multi-output ops ending in ONE TensorList (upstream
// exir/emit/_emitter.py _emit_operator), and CUDA delegates carrying the AOTI
// payload layout (backends/aoti/aoti_backend.py). The .ptd writer and
// SHA-256 are checked against independent values.
#include <QtTest>

#include <QDir>
#include <QFile>

#include <filesystem>
#include <map>
#include <set>

#include "program/DelegatePayload.h"
#include "pte/DataWriter.h"
#include "pte/ExtendedHeader.h"
#include "pte/Reader.h"
#include "support/TestSupport.h"
#include "synth/JsonSpec.h"
#include "synth/ProgramBuilder.h"
#include "synth/Scenarios.h"
#include "synth/WriteProgram.h"
#include "util/Sha256.h"

using namespace ptescope;
using namespace ptescope::program;
using namespace ptescope::synth;

namespace {

// Every operator of upstream's kernels/portable/functions.yaml at commit
// cff6f4dd (read from that file by hand: an `op: X` entry is "aten::X", a
// `func:` entry is its own "ns::name.overload"). The runtime built from that
// source with the portable kernels registers exactly these.
const std::set<std::string>& portableOps() {
  static const std::set<std::string> ops{
    "aten::_adaptive_avg_pool2d.out", "aten::_cdist_forward.out", "aten::_conj_physical.out",
    "aten::_log_softmax.out", "aten::_native_batch_norm_legit.no_stats_out", "aten::_native_batch_norm_legit.out",
    "aten::_native_batch_norm_legit_no_training.out", "aten::_pdist_forward.out", "aten::_softmax.out",
    "aten::_to_copy.out", "aten::_upsample_bilinear2d_aa.out", "aten::abs.out", "aten::acos.out", "aten::acosh.out",
    "aten::add.Scalar_out", "aten::add.out", "aten::addmm.out", "aten::alias_copy.out", "aten::amax.out",
    "aten::amin.out", "aten::any.all_out", "aten::any.dims_out", "aten::any.out", "aten::arange.out",
    "aten::arange.start_out", "aten::argmax.out", "aten::argmin.out", "aten::as_strided_copy.out", "aten::asin.out",
    "aten::asinh.out", "aten::atan.out", "aten::atan2.out", "aten::atanh.out", "aten::avg_pool2d.out",
    "aten::bitwise_and.Scalar_out", "aten::bitwise_and.Tensor_out", "aten::bitwise_left_shift.Tensor_Scalar_out",
    "aten::bitwise_left_shift.Tensor_out", "aten::bitwise_not.out", "aten::bitwise_or.Scalar_out",
    "aten::bitwise_or.Tensor_out", "aten::bitwise_right_shift.Tensor_Scalar_out",
    "aten::bitwise_right_shift.Tensor_out", "aten::bitwise_xor.Scalar_out", "aten::bitwise_xor.Tensor_out",
    "aten::bmm.out", "aten::cat.out", "aten::ceil.out", "aten::clamp.Tensor_out", "aten::clamp.out",
    "aten::clone.out", "aten::constant_pad_nd.out", "aten::convolution.out", "aten::convolution_backward.out",
    "aten::copy.out", "aten::copy_", "aten::cos.out", "aten::cosh.out", "aten::cumsum.out", "aten::detach_copy.out",
    "aten::diagonal_copy.out", "aten::div.Scalar_mode_out", "aten::div.Scalar_out", "aten::div.out",
    "aten::div.out_mode", "aten::elu.out", "aten::embedding.out", "aten::empty.out", "aten::eq.Scalar_out",
    "aten::eq.Tensor_out", "aten::erf.out", "aten::exp.out", "aten::expand_copy.out", "aten::expm1.out",
    "aten::fill.Scalar_out", "aten::fill.Tensor_out", "aten::flip.out", "aten::floor.out", "aten::floor_divide.out",
    "aten::fmod.Scalar_out", "aten::fmod.Tensor_out", "aten::full.out", "aten::full_like.out", "aten::gather.out",
    "aten::ge.Scalar_out", "aten::ge.Tensor_out", "aten::gelu.out", "aten::glu.out", "aten::grid_sampler_2d.out",
    "aten::gt.Scalar_out", "aten::gt.Tensor_out", "aten::hardtanh.out", "aten::index.Tensor_out",
    "aten::index_put.out", "aten::index_put_", "aten::index_select.out", "aten::isinf.out", "aten::isnan.out",
    "aten::le.Scalar_out", "aten::le.Tensor_out", "aten::leaky_relu.out", "aten::lift_fresh_copy.out",
    "aten::log.out", "aten::log10.out", "aten::log1p.out", "aten::log2.out", "aten::logical_and.out",
    "aten::logical_not.out", "aten::logical_or.out", "aten::logical_xor.out", "aten::logit.out",
    "aten::lt.Scalar_out", "aten::lt.Tensor_out", "aten::masked_fill.Scalar_out", "aten::masked_scatter.out",
    "aten::masked_select.out", "aten::max.dim_max", "aten::max.unary_out", "aten::max_pool2d_with_indices.out",
    "aten::max_pool2d_with_indices_backward.grad_input", "aten::maximum.out", "aten::mean.dtype_out",
    "aten::mean.out", "aten::min.dim_min", "aten::min.unary_out", "aten::minimum.out", "aten::mm.out",
    "aten::mul.Scalar_out", "aten::mul.out", "aten::narrow_copy.out", "aten::native_dropout.out",
    "aten::native_group_norm.out", "aten::native_layer_norm.out", "aten::ne.Scalar_out", "aten::ne.Tensor_out",
    "aten::neg.out", "aten::nonzero.out", "aten::ones.out", "aten::permute_copy.out", "aten::pixel_shuffle.out",
    "aten::pixel_unshuffle.out", "aten::pow.Scalar_out", "aten::pow.Tensor_Scalar_out",
    "aten::pow.Tensor_Tensor_out", "aten::prod.int_out", "aten::prod.out", "aten::rand.out", "aten::randn.out",
    "aten::reciprocal.out", "aten::reflection_pad1d.out", "aten::reflection_pad2d.out",
    "aten::reflection_pad3d.out", "aten::relu.out", "aten::remainder.Scalar_out", "aten::remainder.Tensor_out",
    "aten::repeat.out", "aten::repeat_interleave.Tensor_out", "aten::replication_pad1d.out",
    "aten::replication_pad2d.out", "aten::replication_pad3d.out", "aten::roll.out", "aten::round.out",
    "aten::rsqrt.out", "aten::rsub.Scalar_out", "aten::scalar_tensor.out", "aten::scatter.src_out",
    "aten::scatter.value_out", "aten::scatter_add.out", "aten::select_copy.int_out", "aten::select_scatter.out",
    "aten::sigmoid.out", "aten::sign.out", "aten::sin.out", "aten::sinh.out", "aten::slice_copy.Tensor_out",
    "aten::slice_scatter.out", "aten::split_copy.Tensor_out", "aten::split_with_sizes_copy.out", "aten::sqrt.out",
    "aten::squeeze_copy.dim_out", "aten::squeeze_copy.dims_out", "aten::stack.out", "aten::sub.Scalar_out",
    "aten::sub.out", "aten::sum.IntList_out", "aten::t_copy.out", "aten::tan.out", "aten::tanh.out",
    "aten::topk.values", "aten::transpose_copy.int_out", "aten::tril.out", "aten::trunc.out",
    "aten::unbind_copy.int_out", "aten::unfold_copy.out", "aten::unsqueeze_copy.out",
    "aten::upsample_bilinear2d.vec_out", "aten::upsample_nearest2d.vec_out", "aten::var.correction_out",
    "aten::var.out", "aten::var_mean.correction_out", "aten::view_as_real_copy.out", "aten::view_copy.out",
    "aten::where.self_out", "aten::zeros.out", "dim_order_ops::_clone_dim_order.out",
    "dim_order_ops::_empty_dim_order.out", "dim_order_ops::_to_dim_order_copy.out", "et_copy::_d2h_copy.out",
    "et_copy::_h2d_copy.out",
  };
  return ops;
}

// Schema arguments (all of them, outs included) of the operators synth writes,
// from their ATen / et_copy schemas. The generated unboxing checks that a call
// has this many + 1 (the return slot) arguments ("Expected N args received M").
const std::map<std::string, size_t>& schemaArity() {
  static const std::map<std::string, size_t> arity{
      {"aten::add.out", 4},                // self, other, *, alpha, out
      {"aten::mul.out", 3},                // self, other, *, out
      {"aten::relu.out", 2},               // self, *, out
      {"aten::sin.out", 2},                // self, *, out
      {"aten::sigmoid.out", 2},            // self, *, out
      {"aten::_softmax.out", 4},           // self, dim, half_to_float, *, out
      {"aten::native_layer_norm.out", 8},  // input, normalized_shape, weight?, bias?, eps, *, out0, out1, out2
      {"et_copy::_h2d_copy.out", 2},       // self, *, out
      {"et_copy::_d2h_copy.out", 2},       // self, *, out
  };
  return arity;
}

std::string opName(const Method& m, const KernelCall& call) {
  const auto& op = items(m.operators)[size_t(call.op_index)];
  return op.qualifiedName();
}

// Every built-in program synth can write, before and after the device passes.
std::vector<std::pair<std::string, Program>> builtInPrograms() {
  std::vector<std::pair<std::string, Program>> out;
  auto both = [&](const std::string& name, const SynthesizedProgram& s) {
    out.emplace_back(name, s.program);
    auto passed = applyDevicePasses(s);
    if (!passed) QTest::qFail(passed.error().message.c_str(), __FILE__, __LINE__);
    else out.emplace_back(name + " (passes)", passed.value());
  };
  auto demo = synthesizeDemo();
  if (!demo) QTest::qFail(demo.error().message.c_str(), __FILE__, __LINE__);
  else both("demo", demo.value());
  for (const auto& s : scenarios()) {
    auto built = synthesizeScenario(s.name);
    if (!built) QTest::qFail(built.error().message.c_str(), __FILE__, __LINE__);
    else both(s.name, built.value());
  }
  auto large = largeProgram(3);
  if (!large) QTest::qFail(large.error().message.c_str(), __FILE__, __LINE__);
  else both("large 3", SynthesizedProgram{large.value(), {}});
  return out;
}

std::vector<uint8_t> bytesOf(std::string_view text) { return {text.begin(), text.end()}; }

}  // namespace

class SynthUpstreamTest : public QObject {
  Q_OBJECT

 private slots:
  void portableListIsTheYamlOne() {
    // functions.yaml at cff6f4dd has 209 entries; silu.out is not one of them.
    QCOMPARE(portableOps().size(), size_t(209));
    QVERIFY(portableOps().count("aten::native_layer_norm.out"));
    QVERIFY(portableOps().count("et_copy::_h2d_copy.out"));
    QVERIFY(!portableOps().count("aten::silu.out"));
  }

  void everyOpIsPortableWithTheRuntimesArgCount() {
    const auto programs = builtInPrograms();
    QVERIFY(programs.size() >= 30);
    size_t calls = 0;
    for (const auto& [name, program] : programs) {
      for (const auto& m : program.methods()) {
        for (const auto& instruction : items(items(m.chains)[0].instructions)) {
          const auto* call = std::get_if<KernelCall>(&instruction.data);
          if (!call) continue;
          ++calls;
          const std::string op = opName(m, *call);
          QVERIFY2(portableOps().count(op), (name + ": " + op + " is not a portable kernel").c_str());
          auto arity = schemaArity().find(op);
          QVERIFY2(arity != schemaArity().end(), (name + ": no schema noted for " + op).c_str());
          QVERIFY2(items(call->args).size() == arity->second + 1,
                   (name + ": " + op + " has " + std::to_string(items(call->args).size()) + " args").c_str());
        }
      }
    }
    QVERIFY(calls > 40);
  }

  void multiOutputOpEndsWithOneTensorList() {
    auto large = largeProgram(1);
    QVERIFY(large.ok());
    const Method& m = large->methods()[0];
    size_t layerNorms = 0;
    for (const auto& instruction : items(items(m.chains)[0].instructions)) {
      const auto* call = std::get_if<KernelCall>(&instruction.data);
      if (!call || opName(m, *call) != "aten::native_layer_norm.out") continue;
      ++layerNorms;
      const auto& args = items(call->args);
      QCOMPARE(args.size(), size_t(9));
      // input, normalized_shape, weight, bias, eps, out, mean, rstd, TensorList[out, mean, rstd]
      QCOMPARE(items(m.values)[size_t(args[1])].kind(), ValueKind::IntList);
      QCOMPARE(items(m.values)[size_t(args[4])].kind(), ValueKind::Double);
      for (size_t i : {0, 2, 3, 5, 6, 7}) QCOMPARE(items(m.values)[size_t(args[i])].kind(), ValueKind::Tensor);
      const auto* list = std::get_if<TensorListValue>(&items(m.values)[size_t(args[8])].data);
      QVERIFY(list);
      QCOMPARE(items(list->items), (std::vector<int32_t>{args[5], args[6], args[7]}));
    }
    QCOMPARE(layerNorms, size_t(2));
  }

  void tensorListOutGetsANewListAsReturn() {
    ProgramBuilder builder;
    auto& m = builder.addMethod("forward");
    const ValueId x = m.addTensor(ScalarType::Float, {4});
    const ValueId a = m.addTensor(ScalarType::Float, {2});
    const ValueId b = m.addTensor(ScalarType::Float, {2});
    const ValueId outs = m.addTensorList({a, b});
    m.addKernelCall("aten::split_copy.Tensor_out", {x, m.addInt(2), m.addInt(0)}, {outs});
    m.setInputs({x});
    m.setOutputs({a, b});
    auto program = builder.build();
    QVERIFY2(program.ok(), program.ok() ? "" : program.error().message.c_str());
    const Method& pm = program->methods()[0];
    const auto& args = items(std::get<KernelCall>(items(items(pm.chains)[0].instructions)[0].data).args);
    QCOMPARE(args.size(), size_t(5));  // self, split_size, dim, out, return
    QCOMPARE(args[3], outs);
    QVERIFY(args[4] != outs);
    const auto* ret = std::get_if<TensorListValue>(&items(pm.values)[size_t(args[4])].data);
    QVERIFY(ret);
    QCOMPARE(items(ret->items), (std::vector<int32_t>{a, b}));
  }

  void largeHasNoSilu() {
    auto large = largeProgram(2);
    QVERIFY(large.ok());
    const Method& m = large->methods()[0];
    std::multiset<std::string> ops;
    for (const auto& instruction : items(items(m.chains)[0].instructions))
      if (const auto* call = std::get_if<KernelCall>(&instruction.data)) ops.insert(opName(m, *call));
    QCOMPARE(ops.count("aten::silu.out"), size_t(0));
    QCOMPARE(ops.count("aten::sigmoid.out"), size_t(2));
    QCOMPARE(ops.count("aten::mul.out"), size_t(6));  // silu's mul, gate*up, layer scale
  }

  void sha256KnownVectors() {
    // FIPS 180-2 examples and the empty string.
    QCOMPARE(sha256Hex({}), std::string("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
    QCOMPARE(sha256Hex(bytesOf("abc")),
             std::string("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"));
    QCOMPARE(sha256Hex(bytesOf("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
             std::string("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"));
    // 1,000,000 x 'a' crosses many blocks.
    std::vector<uint8_t> million(1000000, 'a');
    QCOMPARE(sha256Hex(million), std::string("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"));
  }

  void demoDelegatesCarryTheAotiLayout() {
    auto demo = synthesizeDemo();
    QVERIFY(demo.ok());
    const Program& p = demo->program;
    const Method& forward = *p.findMethod("forward");
    const auto& delegate = items(forward.delegates)[0];
    QCOMPARE(delegate.id.value_or(""), std::string("CudaBackend"));
    const auto& specs = items(delegate.compile_specs);
    QCOMPARE(specs.size(), size_t(2));
    QCOMPARE(specs[0].key.value_or(""), std::string("method_name"));
    QCOMPARE(specs[0].valueText(), std::string("forward"));
    QCOMPARE(specs[1].key.value_or(""), std::string("target_device"));
    QCOMPARE(specs[1].valueText(), std::string("cuda:0"));
    // Python: hashlib.sha256(b"ptescope demo AOTI shared object: forward encoder").hexdigest()
    const std::string soKey = "2386920d07134fe47467edcc4832174aa0524b19e195fe9ab1f0ae26044cb8f1_so_blob";
    auto blob = delegateBlob(p, delegate);
    QVERIFY(blob);
    const std::string processed(reinterpret_cast<const char*>(blob->data()), blob->size());
    QVERIFY2(processed.starts_with(soKey + "\n"), processed.c_str());
    QVERIFY(processed.ends_with("_weights_blob"));
    // The so blob is program named data; the weights are in aoti_cuda_blob.ptd.
    auto payload = describeDelegatePayload(p, delegate);
    QVERIFY(payload.aoti);
    QVERIFY2(payload.problem.empty(), payload.problem.c_str());
    QCOMPARE(payload.named_data.size(), size_t(2));
    QCOMPARE(payload.named_data[0].key, soKey);
    QCOMPARE(payload.named_data[0].where, NamedDataLocation::Where::ProgramNamedData);
    QCOMPARE(payload.named_data[0].size, uint64_t(std::string("ptescope demo AOTI shared object: forward encoder").size()));
    QCOMPARE(payload.named_data[1].where, NamedDataLocation::Where::ExternalFile);
    QCOMPARE(payload.named_data[1].file, std::string("aoti_cuda_blob.ptd"));
    QCOMPARE(p.external_data.size(), size_t(1));
    QCOMPARE(p.external_data[0].entries.size(), size_t(4));  // one weights blob per delegate
    QCOMPARE(items(p.named_data).size(), size_t(4));         // one so blob per delegate
  }

  // A second program written into the same folder leaves the first one's
  // aoti_cuda_blob.ptd alone (it replaced it, and the first program's
  // weights were then "not found"): its data goes to <name>.ptd.
  void anotherProgramsDataFileIsLeftAlone() {
    const QString dir = QDir(test::tempDir()).filePath("two_programs");
    QDir(dir).removeRecursively();
    QDir().mkpath(dir);
    auto demo = applyDevicePasses(synthesizeDemo().value());
    QVERIFY(demo.ok());
    const std::string first = QDir(dir).filePath("demo.pte").toStdString();
    auto one = writeProgramAndData(demo.value(), first);
    QVERIFY(one.ok());
    QCOMPARE(std::filesystem::path(one->front()).filename().string(), std::string("aoti_cuda_blob.ptd"));
    // The same program again: the same data, so the same file.
    auto again = writeProgramAndData(demo.value(), first);
    QVERIFY(again.ok());
    QCOMPARE(again->front(), one->front());
    // Another program with other data.
    auto large = largeProgram(3);
    QVERIFY(large.ok());
    auto passedLarge = applyDevicePasses(SynthesizedProgram{large.value(), {}});
    QVERIFY(passedLarge.ok());
    QVERIFY(!passedLarge->external_data.empty());
    const std::string second = QDir(dir).filePath("large.pte").toStdString();
    auto two = writeProgramAndData(passedLarge.value(), second);
    QVERIFY2(two.ok(), two.ok() ? "" : two.error().message.c_str());
    QCOMPARE(std::filesystem::path(two->front()).filename().string(), std::string("large.ptd"));
    // Both load whole.
    for (const std::string& path : {first, second}) {
      auto loaded = test::loadOrFail(QString::fromStdString(path));
      QVERIFY2(loaded.warnings.empty(), loaded.warnings.empty() ? "" : loaded.warnings.front().c_str());
    }
  }

  void writtenDemoKeepsPayloadAcrossFiles() {
    auto demo = synthesizeDemo();
    QVERIFY(demo.ok());
    auto passed = applyDevicePasses(demo.value());
    QVERIFY(passed.ok());
    const QString dir = QDir(test::tempDir()).filePath("aoti_demo");
    QDir().mkpath(dir);
    const std::string path = QDir(dir).filePath("demo.pte").toStdString();
    auto written = writeProgramAndData(passed.value(), path);
    QVERIFY2(written.ok(), written.ok() ? "" : written.error().message.c_str());
    QCOMPARE(written->size(), size_t(2));
    QCOMPARE(std::filesystem::path(written->front()).filename().string(), std::string("aoti_cuda_blob.ptd"));
    // Read back: the reader finds aoti_cuda_blob.ptd beside the program.
    auto loaded = test::loadOrFail(QString::fromStdString(path));
    QVERIFY(loaded.warnings.empty());
    QCOMPARE(loaded.program.external_data.size(), size_t(1));
    for (const auto& m : loaded.program.methods())
      for (const auto& d : items(m.delegates)) {
        auto payload = describeDelegatePayload(loaded.program, d);
        QVERIFY2(payload.problem.empty(), payload.problem.c_str());
        QCOMPARE(payload.named_data[1].where, NamedDataLocation::Where::ExternalFile);
      }
    // Without the .ptd the reader warns that the weights are missing.
    std::filesystem::remove(written->front());
    auto alone = test::loadOrFail(QString::fromStdString(path));
    QVERIFY(!alone.warnings.empty());
    QVERIFY(alone.warnings.front().find("weights_blob") != std::string::npos);
  }

  void dataFileLayoutAndRoundTrip() {
    ExternalData data;
    data.path = "x.ptd";
    data.entries.push_back({"first", Bytes::copyOf(bytesOf("hello")), std::nullopt});
    data.entries.push_back(
        {"second", Bytes::copyOf(std::vector<uint8_t>(300, 7)), TensorLayout{ScalarType::Float, std::vector<int32_t>{75}, std::vector<uint8_t>{0}}});
    auto bytes = pte::serializeDataFile(data);
    QVERIFY(bytes.ok());
    const auto& b = bytes.value();
    QCOMPARE(std::string(b.begin() + 4, b.begin() + 8), std::string("FT01"));
    QCOMPARE(std::string(b.begin() + 8, b.begin() + 12), std::string("FH01"));
    QCOMPARE(pte::readLe32(b.data() + 12), uint32_t(40));  // header length
    QCOMPARE(pte::readLe64(b.data() + 16), uint64_t(48));  // flatbuffer offset: 40 padded to 16
    const uint64_t base = pte::readLe64(b.data() + 32);
    QCOMPARE(base % 128, uint64_t(0));
    QCOMPARE(pte::readLe64(b.data() + 40), uint64_t(128 + 300));  // second segment at 128
    QCOMPARE(std::string(b.begin() + long(base), b.begin() + long(base) + 5), std::string("hello"));
    QCOMPARE(int(b[size_t(base + 128)]), 7);
    QCOMPARE(b.size(), size_t(base + 128 + 300));
    auto back = pte::readDataBytes(Bytes::fromVector(b), "x.ptd");
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QCOMPARE(back->entries.size(), size_t(2));
    QVERIFY(back->find("first")->data == Bytes::copyOf(bytesOf("hello")));
    QCOMPARE(back->find("second")->layout->scalar_type, ScalarType::Float);
    QCOMPARE(items(back->find("second")->layout->sizes), std::vector<int32_t>{75});
    // Duplicate keys are refused.
    data.entries.push_back({"first", Bytes::copyOf(bytesOf("again")), std::nullopt});
    QVERIFY(!pte::serializeDataFile(data).ok());
  }

  void aotiSpecErrors() {
    auto spec = [](const std::string& node) {
      return R"({"methods": [{"name": "forward", "inputs": ["a"], "outputs": ["y"],
                 "tensors": {"a": {"dtype": "float32", "sizes": [2]}, "y": {"dtype": "float32", "sizes": [2]}},
                 "nodes": [)" + node + "]}]}";
    };
    auto ok = synthesizeFromSpec(spec(
        R"({"delegate": "CudaBackend", "aoti": {"so": "s", "weights": "w", "weights_in_program": true}, "inputs": ["a"], "outputs": ["y"]})"));
    QVERIFY2(ok.ok(), ok.ok() ? "" : ok.error().message.c_str());
    QVERIFY(ok->program.external_data.empty());
    QCOMPARE(items(ok->program.named_data).size(), size_t(2));
    auto both = synthesizeFromSpec(spec(
        R"({"delegate": "CudaBackend", "blob": "x", "aoti": {"so": "s", "weights": "w"}, "inputs": ["a"], "outputs": ["y"]})"));
    QVERIFY(!both.ok());
    QVERIFY2(both.error().message.starts_with("methods[0].nodes[0].aoti:"), both.error().message.c_str());
    auto wrongBackend = synthesizeFromSpec(spec(
        R"({"delegate": "XnnpackBackend", "aoti": {"so": "s", "weights": "w"}, "inputs": ["a"], "outputs": ["y"]})"));
    QVERIFY(!wrongBackend.ok());
    QVERIFY(wrongBackend.error().message.find("CudaBackend") != std::string::npos);
    auto noWeights = synthesizeFromSpec(spec(
        R"({"delegate": "CudaBackend", "aoti": {"so": "s"}, "inputs": ["a"], "outputs": ["y"]})"));
    QVERIFY(!noWeights.ok());
    QVERIFY(noWeights.error().message.find("weights") != std::string::npos);
  }

  void payloadProblems() {
    // A CudaBackend payload without a newline, and one naming absent keys.
    ProgramBuilder builder;
    auto& m = builder.addMethod("forward");
    const ValueId a = m.addTensor(ScalarType::Float, {2});
    const ValueId y = m.addTensor(ScalarType::Float, {2});
    m.addDelegateCall("CudaBackend", aotiCompileSpecs("forward"), bytesOf("no-newline"), {a}, {y});
    m.addDelegateCall("CudaBackend", aotiCompileSpecs("forward"), {}, {y}, {a});
    m.setInputs({a});
    m.setOutputs({y});
    auto program = builder.build();
    QVERIFY(program.ok());
    const auto& delegates = items(program->methods()[0].delegates);
    auto malformed = describeDelegatePayload(program.value(), delegates[0]);
    QVERIFY(malformed.problem.find("newline") != std::string::npos);
    auto legacy = describeDelegatePayload(program.value(), delegates[1]);
    QVERIFY(legacy.legacy_keys);
    QCOMPARE(legacy.named_data.size(), size_t(2));
    QCOMPARE(legacy.named_data[0].key, std::string("forward_so_blob"));
    QCOMPARE(legacy.named_data[1].key, std::string("forward_weights_blob"));
    QCOMPARE(legacy.named_data[0].where, NamedDataLocation::Where::Missing);
    QVERIFY(!legacy.problem.empty());
    // Same key with different bytes is a build error.
    ProgramBuilder clash;
    auto& c = clash.addMethod("forward");
    c.setInputs({});
    clash.addNamedData("k", bytesOf("one"));
    clash.addNamedData("k", bytesOf("two"));
    QVERIFY(!clash.build().ok());
  }
};

QTEST_GUILESS_MAIN(SynthUpstreamTest)
#include "test_synth_upstream.moc"
