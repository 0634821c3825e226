// `synth` writes the AOTI data file beside the program, and `info` (text and
// JSON) shows each CUDA delegate's payload: which named data, where, how large.
#include <QtTest>

#include <QDir>
#include <QFile>

#include <nlohmann/json.hpp>

#include "support/TestSupport.h"

using namespace ptescope;

class CliDelegatePayloadTest : public QObject {
  Q_OBJECT

 private slots:
  void demoPayloadInInfo() {
    const QString dir = QDir(test::tempDir()).filePath("payload");
    QDir().mkpath(dir);
    const QString pte = QDir(dir).filePath("demo.pte");
    auto synth = test::runCli({"synth", "--demo", "-o", pte});
    QCOMPARE(synth.exitCode, 0);
    QVERIFY(QFile::exists(QDir(dir).filePath("aoti_cuda_blob.ptd")));
    QVERIFY(synth.err.contains("aoti_cuda_blob.ptd"));

    auto info = test::runCli({"info", "--json", pte});
    QCOMPARE(info.exitCode, 0);
    auto j = nlohmann::json::parse(info.out.toStdString());
    const auto& delegate = j["methods"][0]["delegates"][0];
    QCOMPARE(delegate["id"].get<std::string>(), std::string("CudaBackend"));
    const auto& named = delegate["payload"]["named_data"];
    QCOMPARE(named.size(), size_t(2));
    QCOMPARE(named[0]["role"].get<std::string>(), std::string("so_blob"));
    QCOMPARE(named[0]["where"].get<std::string>(), std::string("program_named_data"));
    // len("ptescope demo AOTI shared object: forward encoder")
    QCOMPARE(named[0]["bytes"].get<int>(), 49);
    QCOMPARE(named[1]["role"].get<std::string>(), std::string("weights_blob"));
    QCOMPARE(named[1]["where"].get<std::string>(), std::string("external_file"));
    QVERIFY(named[1]["file"].get<std::string>().ends_with("aoti_cuda_blob.ptd"));
    QCOMPARE(named[1]["bytes"].get<int>(), 43);  // len("ptescope demo AOTI weights: forward encoder")
    QVERIFY(!delegate["payload"].contains("problem"));

    auto text = test::runCli({"info", pte});
    QCOMPARE(text.exitCode, 0);
    QVERIFY(text.out.contains("payload: AOTI named data"));
    QVERIFY(text.out.contains("program named data (segment"));
    QVERIFY(text.out.contains("aoti_cuda_blob.ptd, 43 B"));
  }

  // Another program's aoti_cuda_blob.ptd left in the folder holds none of
  // this one's data: not attached, said once; the demo beside it still
  // takes it.
  void anotherProgramsDataFileIsNotAttached() {
    const QString dir = QDir(test::tempDir()).filePath("payload_other");
    QDir().mkpath(dir);
    QCOMPARE(test::runCli({"synth", "--demo", "-o", QDir(dir).filePath("demo.pte")}).exitCode, 0);
    const QString spec = QDir(dir).filePath("other.json");
    QFile file(spec);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["y"],
        "tensors": {"x": {"dtype": "float32", "sizes": [4]}, "y": {"dtype": "float32", "sizes": [4]}},
        "nodes": [{"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:0", "method_name": "enc"},
                   "inputs": ["x"], "outputs": ["y"]}]}]})");
    file.close();
    const QString other = QDir(dir).filePath("other.pte");
    QCOMPARE(test::runCli({"synth", spec, "-o", other}).exitCode, 0);
    auto info = test::runCli({"info", other});
    QCOMPARE(info.exitCode, 0);
    // Said once, as a warning; no other line names the file (its data was
    // listed as the program's).
    const QByteArray all = info.out + info.err;
    for (const QByteArray& line : all.split('\n'))
      QVERIFY2(!line.contains("aoti_cuda_blob.ptd") || line.contains("not attached"), line.constData());
    QVERIFY2(all.contains("warning: external data not attached: ") &&
                 all.contains("aoti_cuda_blob.ptd beside the program holds none of the data it lacks"),
             all.constData());
    auto demo = test::runCli({"info", QDir(dir).filePath("demo.pte")});
    QVERIFY2(demo.out.contains("aoti_cuda_blob.ptd, 43 B") && !demo.err.contains("not attached"), demo.err.constData());
  }

  // Walkthrough 21, finding 1: a program whose data file is named after it
  // (lint.ptd, beside another program's aoti_cuda_blob.ptd), written under
  // a new name, lost its data: in the same folder nothing was copied, in
  // another the copy kept the name lint.ptd, which the new program does not
  // look for ("copied lint.ptd beside lint_x.pte (the program's data)"),
  // and lint gave PTS020 on every delegate. The copy takes the new name.
  void aDataFileNamedAfterItsProgramFollowsANewName() {
    const QString dir = QDir(test::tempDir()).filePath("payload_rename");
    QDir().mkpath(dir + "/elsewhere");
    QCOMPARE(test::runCli({"synth", "--demo", "-o", QDir(dir).filePath("demo.pte")}).exitCode, 0);
    const QString spec = QDir(dir).filePath("lint.json");
    QFile file(spec);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"methods": [{"name": "forward", "inputs": ["x"], "outputs": ["y"],
        "tensors": {"x": {"dtype": "float32", "sizes": [4]}, "y": {"dtype": "float32", "sizes": [4]}},
        "nodes": [{"delegate": "CudaBackend", "compile_specs": {"target_device": "cuda:0", "method_name": "enc"},
                   "aoti": {"so": "lint-so", "weights": "lint-weights"}, "inputs": ["x"], "outputs": ["y"]}]}]})");
    file.close();
    const QString program = QDir(dir).filePath("lint.pte");
    auto made = test::runCli({"synth", spec, "-o", program});
    QCOMPARE(made.exitCode, 0);
    QVERIFY2(QFile::exists(QDir(dir).filePath("lint.ptd")), made.err.constData());  // the precondition
    QVERIFY2(test::runCli({"lint", program}).out.contains("0 errors"), "the program as made lacks its data");
    for (const QString& out : {QDir(dir).filePath("lint_fix.pte"), QDir(dir).filePath("elsewhere/lint_x.pte")}) {
      auto run = test::runCli({"propagate", program, "-o", out, "--skip-h2d-inputs"});
      QVERIFY2(run.exitCode == 0, run.err.constData());
      const QString ptd = QFileInfo(out).completeBaseName() + ".ptd";
      QVERIFY2(QString::fromUtf8(run.err).contains("copied lint.ptd beside " + QFileInfo(out).fileName() + " as " + ptd),
               run.err.constData());
      QVERIFY(QFile::exists(QFileInfo(out).dir().filePath(ptd)));
      auto lint = test::runCli({"lint", out});
      QVERIFY2(!lint.out.contains("PTS020"), lint.out.constData());
    }
  }

  void missingWeightsAreShown() {
    const QString dir = QDir(test::tempDir()).filePath("payload_missing");
    QDir().mkpath(dir);
    const QString pte = QDir(dir).filePath("demo.pte");
    QCOMPARE(test::runCli({"synth", "--demo", "-o", pte}).exitCode, 0);
    QVERIFY(QFile::remove(QDir(dir).filePath("aoti_cuda_blob.ptd")));
    auto info = test::runCli({"info", "--json", pte});
    QCOMPARE(info.exitCode, 0);
    auto j = nlohmann::json::parse(info.out.toStdString());
    const auto& payload = j["methods"][0]["delegates"][0]["payload"];
    QCOMPARE(payload["named_data"][1]["where"].get<std::string>(), std::string("missing"));
    QVERIFY(payload["problem"].get<std::string>().find("weights_blob") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(CliDelegatePayloadTest)
#include "test_cli_delegate_payload.moc"
