// Per-output bit-exactness (issue 36 part 4): the verdicts compiled into core
// agree with the differential harness's record (tests/oracle/record.tsv), and
// an output is proven only when every instruction behind it is.
//
// The expected verdicts below were read by hand off record.tsv's rows:
// aten::relu.out float32 "edges" is `same`; aten::sin.out int32->float32 is
// `same` on its one class; aten::linear.out float32 "with bias" is
// `oracle-refused` (the portable library has no linear.out); relu has no
// bool row (the harness runs it for the real dtypes only); my_ops::scale.out
// is in no row at all.
#include <QtTest>

#include <QFile>

#include <map>
#include <set>

#include "exec/BitExact.h"
#include "exec/HostRuntime.h"
#include "exec/Kernels.h"
#include "exec/RunOnce.h"
#include "report/RunText.h"
#include "support/BitExactPrograms.h"
#include "support/TestSupport.h"
#include "synth/ProgramBuilder.h"

using namespace ptescope;
using program::ScalarType;

class BitExactTest : public QObject {
  Q_OBJECT
 private slots:
  // Every (kernel, dtypes) pair of the record: proven exactly when all its
  // cases are `same` or `both-refused`, and the compiled-in record has as
  // many cases as the file. A record written again without rebuilding, or a
  // table kept apart from the record, fails here.
  void verdictsAgreeWithTheRecord() {
    QFile file(QStringLiteral(PTESCOPE_SOURCE_DIR "/tests/oracle/record.tsv"));
    QVERIFY(file.open(QIODevice::ReadOnly | QIODevice::Text));
    std::map<std::pair<std::string, std::string>, bool> agrees;
    size_t rows = 0;
    while (!file.atEnd()) {
      const QString line = QString::fromUtf8(file.readLine()).chopped(1);
      if (line.isEmpty() || line.startsWith('#')) continue;
      const QStringList fields = line.split('\t');
      QVERIFY2(fields.size() >= 4, qPrintable(line));
      const auto key = std::make_pair(fields[0].toStdString(), fields[1].toStdString());
      const bool ok = fields[3] == "same" || fields[3] == "both-refused";
      auto [it, added] = agrees.emplace(key, ok);
      if (!added) it->second = it->second && ok;
      ++rows;
    }
    QVERIFY(rows > 1000);
    QCOMPARE(exec::recordedCaseCount(), rows);
    size_t proven = 0;
    for (const auto& [key, ok] : agrees) {
      const auto verdict = exec::recordedVerdict(key.first, key.second);
      QVERIFY2(verdict.proven == ok, qPrintable(QString::fromStdString(key.first + " " + key.second + ": " + verdict.why)));
      QCOMPARE(verdict.why.empty(), ok);
      proven += ok ? 1 : 0;
    }
    QVERIFY(proven > 0 && proven < agrees.size());
  }

  // Every kernel ptescope implements is in the record, but those the harness
  // cannot run, each for the reason tests/oracle/README.md gives.
  void everyKernelIsRecordedOrExplained() {
    QFile file(QStringLiteral(PTESCOPE_SOURCE_DIR "/tests/oracle/record.tsv"));
    QVERIFY(file.open(QIODevice::ReadOnly | QIODevice::Text));
    std::set<std::string> recorded;
    while (!file.atEnd()) {
      const QString line = QString::fromUtf8(file.readLine());
      if (!line.startsWith('#')) recorded.insert(line.section('\t', 0, 0).toStdString());
    }
    const std::set<std::string> unrecorded = {
        // In place: the harness's programs write outs.
        "aten::index_put_",
        // Contents undefined: nothing to compare.
        "aten::empty.out", "dim_order_ops::_empty_dim_order.out",
        // Not in the portable library (the runtime has no such kernel).
        "aten::_unsafe_view.out", "aten::sum.out", "aten::copy_",
        // Scalar results (Int, Double), which executor_runner does not write.
        "aten::_local_scalar_dense", "aten::sym_numel", "aten::sym_size.int",
        // Copies and views, exact by construction (exec/BitExact.cpp).
        "et_copy::_h2d_copy.out", "et_copy::_d2h_copy.out", "executorch_prim::et_view.default",
        "executorch_prim::et_copy_index.tensor",
        // A sample's custom op with no upstream kernel.
        "etnp::lstm.out"};
    QStringList missing;
    for (const auto& name : exec::KernelRegistry::builtin().names()) {
      const bool prim = name.starts_with("executorch_prim::") && !unrecorded.contains(name);  // scalar ops on Int/Double
      const bool cortexM = name.starts_with("cortex_m::");  // the oracle is built without the Cortex-M backend
      if (!recorded.contains(name) && !unrecorded.contains(name) && !prim && !cortexM) missing << QString::fromStdString(name);
    }
    QVERIFY2(missing.isEmpty(), qPrintable("in no row of record.tsv: " + missing.join(", ")));
    for (const auto& name : unrecorded) QVERIFY2(!recorded.contains(name), name.c_str());
  }

  void verdictsNameWhy() {
    QVERIFY(exec::recordedVerdict("aten::relu.out", "float32").proven);
    QVERIFY(exec::recordedVerdict("aten::sin.out", "int32->float32").proven);
    QCOMPARE(exec::recordedVerdict("aten::linear.out", "float32").why,
             std::string("the runtime refuses it (with bias), ptescope computes it"));
    QCOMPARE(exec::recordedVerdict("aten::relu.out", "bool").why, std::string("not checked against the runtime for these dtypes"));
    QCOMPARE(exec::recordedVerdict("my_ops::scale.out", "float32").why, std::string("not checked against the runtime"));
    // Copies and views move bytes only.
    QVERIFY(exec::recordedVerdict("et_copy::_h2d_copy.out", "float16").proven);
  }

  // The signature: distinct read dtypes, "->", distinct written dtypes; one
  // name when they are one and the same.
  void signatures() {
    synth::MethodBuilder m("forward");
    auto c = m.addTensor(ScalarType::Bool, {4});
    auto a = m.addTensor(ScalarType::Half, {4});
    auto b = m.addTensor(ScalarType::Half, {4});
    auto i = m.addTensor(ScalarType::Int, {4});
    auto f = m.addTensor(ScalarType::Float, {4});
    const auto& method = m.method();
    QCOMPARE(exec::dtypeSignature(method, {a, b}, {b}), std::string("float16"));
    QCOMPARE(exec::dtypeSignature(method, {c, a, b}, {a}), std::string("bool,float16->float16"));
    QCOMPARE(exec::dtypeSignature(method, {i}, {f}), std::string("int32->float32"));
    QCOMPARE(exec::dtypeSignature(method, {f, m.addInt(3)}, {f, i}), std::string("float32->float32,int32"));
    // A channels-last tensor is its own token: the record's channels-last cases
    // prove convolution for it, relu has none (ptescope leaves it not executed).
    auto cl = m.addTensor(ScalarType::Float, {1, 3, 2, 2});
    m.setDimOrder(cl, {0, 2, 3, 1});
    QCOMPARE(exec::dtypeSignature(method, {cl, f}, {cl}), std::string("float32/channels_last,float32->float32/channels_last"));
    QVERIFY(exec::recordedVerdict("aten::convolution.out", "float32/channels_last,float32->float32/channels_last").proven);
    QCOMPARE(exec::recordedVerdict("aten::relu.out", "float32/channels_last").why,
             std::string("not checked against the runtime for these dtypes"));
  }

  // A method whose outputs stand on proven kernels, a kernel the runtime
  // refuses, one never checked, a delegate and nothing at all.
  void outputsFollowTheirProducers() {
    synth::ProgramBuilder builder;
    auto& m = builder.addMethod("forward");
    auto x = m.addTensor(ScalarType::Float, {2, 3});
    auto xi = m.addTensor(ScalarType::Int, {4});
    auto w = m.addTensor(ScalarType::Float, {4, 3});
    auto bias = m.addTensor(ScalarType::Float, {4});
    auto r = m.addTensor(ScalarType::Float, {2, 3});
    auto r2 = m.addTensor(ScalarType::Float, {2, 3});
    auto lin = m.addTensor(ScalarType::Float, {2, 4});
    auto linRelu = m.addTensor(ScalarType::Float, {2, 4});
    auto scaled = m.addTensor(ScalarType::Float, {2, 3});
    auto scaledRelu = m.addTensor(ScalarType::Float, {2, 3});
    auto sinOut = m.addTensor(ScalarType::Float, {4});
    auto delegated = m.addTensor(ScalarType::Float, {2, 3});
    m.addKernelCall("aten::relu.out", {x}, {r});                      // 0: proven
    m.addKernelCall("aten::relu.out", {r}, {r2});                     // 1: proven
    m.addKernelCall("aten::linear.out", {x, w, bias}, {lin});         // 2: the runtime refuses it
    m.addKernelCall("aten::relu.out", {lin}, {linRelu});              // 3: proven, behind 2
    m.addKernelCall("my_ops::scale.out", {x}, {scaled});              // 4: never checked
    m.addKernelCall("aten::relu.out", {scaled}, {scaledRelu});        // 5
    m.addKernelCall("aten::sin.out", {xi}, {sinOut});                 // 6: int32->float32, proven
    m.addDelegateCall("XnnpackBackend", {}, {1, 2, 3}, {r2}, {delegated});  // 7
    m.setInputs({x, xi, w, bias});
    m.setOutputs({r2, linRelu, scaledRelu, sinOut, delegated, x});
    auto program = builder.build();
    QVERIFY2(program.ok(), program.ok() ? "" : program.error().message.c_str());
    const auto& method = program->methods().front();

    const auto outputs = exec::outputExactness(method);
    QCOMPARE(outputs.size(), size_t(6));
    QVERIFY(outputs[0].proven());
    QCOMPARE(exec::exactnessText(outputs[0]), std::string("bit-exact with the runtime"));
    QCOMPARE(exec::exactnessText(outputs[1]),
             std::string("not proven: aten::linear.out (float32) the runtime refuses it (with bias), ptescope computes it"));
    QCOMPARE(outputs[1].unproven.size(), size_t(1));
    QCOMPARE(outputs[1].unproven[0].instruction, size_t(2));
    QCOMPARE(exec::exactnessText(outputs[2]), std::string("not proven: my_ops::scale.out (float32) not checked against the runtime"));
    QVERIFY(outputs[3].proven());
    // The delegate and nothing before it (relu, relu: proven).
    QCOMPARE(outputs[4].unproven.size(), size_t(1));
    QCOMPARE(outputs[4].unproven[0].why, std::string("not run by ptescope"));
    QVERIFY(outputs[5].proven());  // a method input: no kernel computed it

    // An instruction the run did not execute is named as such.
    const auto skipped = exec::outputExactness(method, {1});
    QCOMPARE(exec::exactnessText(skipped[0]), std::string("not proven: aten::relu.out (float32) not executed by ptescope"));
    QCOMPARE(exec::exactnessText(skipped[4]),
             std::string("not proven: aten::relu.out (float32) not executed by ptescope, and 1 more instruction"));
  }

  // run's text and JSON carry the verdict per output.
  void runTextAndJson() {
    auto program = test::reluAndLinearProgram();
    QVERIFY(program.ok());
    exec::HostRuntime runtime;
    auto result = exec::runMethodOnce(program.value(), runtime, {});
    QVERIFY2(result.ok(), result.ok() ? "" : result.error().message.c_str());
    const std::string text = report::runText(result.value(), "p.pte");
    QVERIFY2(text.find("       bit-exact with the runtime\n") != std::string::npos, text.c_str());
    QVERIFY2(text.find("       not proven: aten::linear.out (float32) the runtime refuses it") != std::string::npos, text.c_str());
    const auto json = report::runJson(result.value(), "p.pte");
    QCOMPARE(json["outputs"].size(), size_t(2));
    QCOMPARE(json["outputs"][0]["bit_exact"].get<bool>(), true);
    QCOMPARE(json["outputs"][1]["bit_exact"].get<bool>(), false);
    QCOMPARE(json["outputs"][1]["not_proven"][0]["kernel"].get<std::string>(), std::string("aten::linear.out"));
    QCOMPARE(json["outputs"][1]["not_proven"][0]["dtypes"].get<std::string>(), std::string("float32"));
    QCOMPARE(json["outputs"][1]["dtype"].get<std::string>(), std::string("float32"));
  }
};

QTEST_APPLESS_MAIN(BitExactTest)
#include "test_bit_exact.moc"
