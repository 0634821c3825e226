// ptescope-cli info / dump / export as a user runs them: exit codes, one-line
// errors, JSON fields. Expected numbers come from the spec's sample table.
#include <QtTest>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "support/TestSupport.h"

using ptescope::test::runCli;
using ptescope::test::samplePath;

namespace {

QJsonObject infoJson(const QString& file) {
  auto r = runCli({"info", file, "--json"});
  if (r.exitCode != 0) return {};
  return QJsonDocument::fromJson(r.out).object();
}

QJsonObject methodNamed(const QJsonObject& info, const QString& name) {
  for (const auto& m : info["methods"].toArray())
    if (m.toObject()["name"].toString() == name) return m.toObject();
  return {};
}

}  // namespace

class CliBasicTest : public QObject {
  Q_OBJECT
 private slots:
  void helpOnEverySubcommand() {
    for (const char* sub : {"info", "dump", "export"}) {
      auto r = runCli({sub, "--help"});
      QCOMPARE(r.exitCode, 0);
      QVERIFY(r.out.contains("FILE"));
    }
    auto top = runCli({"--help"});
    QCOMPARE(top.exitCode, 0);
    for (const char* sub : {"info", "dump", "export"}) QVERIFY(top.out.contains(sub));
  }

  void usageErrorsExitTwo() {
    auto none = runCli({});
    QCOMPARE(none.exitCode, 2);
    auto unknown = runCli({"frobnicate"});
    QCOMPARE(unknown.exitCode, 2);
    auto noOutput = runCli({"export", "x.pte"});
    QCOMPARE(noOutput.exitCode, 2);
    QVERIFY(noOutput.err.contains("--output"));
  }

  void badInputIsOneClearLine() {
    auto missing = runCli({"info", "/nonexistent/model.pte"});
    QCOMPARE(missing.exitCode, 2);
    QCOMPARE(missing.err.count('\n'), 1);
    QVERIFY(missing.err.contains("/nonexistent/model.pte"));
    QVERIFY(missing.out.isEmpty());

    PTESCOPE_REQUIRE_SAMPLES();
    for (const char* sub : {"info", "dump"}) {
      auto corrupt = runCli({sub, samplePath("bad-corrupt.pte")});
      QCOMPARE(corrupt.exitCode, 2);
      QCOMPARE(corrupt.err.count('\n'), 1);
      QVERIFY(corrupt.err.startsWith("ptescope-cli: "));
      QVERIFY(corrupt.err.contains("bad-corrupt.pte"));
    }
    const QString out = ptescope::test::tempDir() + "/never.pte";
    auto exported = runCli({"export", samplePath("bad-corrupt.pte"), "-o", out});
    QCOMPARE(exported.exitCode, 2);
    QVERIFY(!QFile::exists(out));
  }

  void infoJsonFields() {
    PTESCOPE_REQUIRE_SAMPLES();
    auto add = infoJson(samplePath("add.pte"));
    QVERIFY(!add.isEmpty());
    QCOMPARE(add["segments"].toArray().size(), 1);
    auto forward = methodNamed(add, "forward");
    QCOMPARE(forward["values"].toInt(), 4);
    QCOMPARE(forward["instructions"].toInt(), 1);
    QCOMPARE(forward["kernel_calls"].toInt(), 1);
    QCOMPARE(forward["delegate_calls"].toInt(), 0);
    QCOMPARE(forward["h2d_copies"].toInt(), 0);
    QCOMPARE(forward["d2h_copies"].toInt(), 0);
    QCOMPARE(forward["tensors_by_device"].toObject()["cpu:0"].toInt(), 3);
    QCOMPARE(forward["inputs"].toArray(), (QJsonArray{0, 1}));
    QCOMPARE(forward["outputs"].toArray(), (QJsonArray{2}));
    QCOMPARE(forward["non_const_buffer_sizes"].toArray(), (QJsonArray{0, 48}));
    QCOMPARE(forward["non_const_buffer_device"].toArray().size(), 0);

    auto kws = methodNamed(infoJson(samplePath("keyword-spotting-cortex-m.pte")), "forward");
    QCOMPARE(kws["values"].toInt(), 289);
    QCOMPARE(kws["kernel_calls"].toInt(), 16);
    QCOMPARE(kws["tensors_by_device"].toObject()["cpu:0"].toInt(), 111);

    auto qnn = infoJson(samplePath("stories260k-qnn-multimethod.pte"));
    QCOMPARE(qnn["methods"].toArray().size(), 29);
    QCOMPARE(qnn["segments"].toArray().size(), 2);
    auto kv = methodNamed(qnn, "kv_forward");
    QCOMPARE(kv["delegate_calls"].toInt(), 1);
    QCOMPARE(kv["inputs"].toArray().size(), 13);
    QCOMPARE(kv["outputs"].toArray().size(), 11);
    QCOMPARE(kv["delegates"].toArray()[0].toObject()["id"].toString(), QString("QnnBackend"));
  }

  void infoText() {
    PTESCOPE_REQUIRE_SAMPLES();
    auto r = runCli({"info", samplePath("ethos-u-inline-delegate.pte")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("EthosUBackend"));
    QVERIFY(r.out.contains("target = ethos-u"));
    QVERIFY(r.out.contains("inline"));
  }

  void externalDataOption() {
    PTESCOPE_REQUIRE_SAMPLES();
    const QString dir = ptescope::test::tempDir() + "/cli-ptd";
    QDir().mkpath(dir);
    QFile::remove(dir + "/m.pte");
    QVERIFY(QFile::copy(samplePath("external-constants.pte"), dir + "/m.pte"));
    auto without = runCli({"info", dir + "/m.pte"});
    QCOMPARE(without.exitCode, 0);
    QVERIFY(without.err.contains("warning"));
    auto with = runCli({"info", dir + "/m.pte", "--json", "--ptd", samplePath("external-constants.ptd")});
    QCOMPARE(with.exitCode, 0);
    auto info = QJsonDocument::fromJson(with.out).object();
    QCOMPARE(info["external_data"].toArray().size(), 1);
    QCOMPARE(info["warnings"].toArray().size(), 0);
  }

  // info on a .ptd describes the data file (issue 26, item 6): every entry of
  // `dump --json`'s named_data, with its segment's size, its offset past the
  // segment base and an alignment that divides it.
  void infoOnADataFile() {
    const QString dir = ptescope::test::tempDir() + "/cli-info-ptd";
    QDir().mkpath(dir);
    QCOMPARE(runCli({"synth", "--demo", "-o", dir + "/demo.pte"}).exitCode, 0);
    const QString ptd = dir + "/aoti_cuda_blob.ptd";
    QVERIFY(QFile::exists(ptd));
    auto dump = runCli({"dump", ptd, "--json"});
    QCOMPARE(dump.exitCode, 0);
    const auto flat = QJsonDocument::fromJson(dump.out).object();
    const auto named = flat["named_data"].toArray();
    const auto segments = flat["segments"].toArray();
    QVERIFY(!named.isEmpty());
    auto info = runCli({"info", ptd, "--json"});
    QCOMPARE(info.exitCode, 0);
    const auto o = QJsonDocument::fromJson(info.out).object();
    QCOMPARE(o["kind"].toString(), QString("data"));
    const auto entries = o["entries"].toArray();
    QCOMPARE(entries.size(), named.size());
    QFile file(ptd);
    const qint64 fileSize = file.size();
    for (int i = 0; i < entries.size(); ++i) {
      const auto e = entries[i].toObject();
      const auto n = named[i].toObject();
      QCOMPARE(e["key"].toString(), n["key"].toString());
      const auto segment = segments[n["segment_index"].toInt()].toObject();
      QCOMPARE(e["bytes"].toVariant().toLongLong(), segment["size"].toVariant().toLongLong());
      const qint64 offset = e["offset"].toVariant().toLongLong();
      const qint64 alignment = e["alignment"].toVariant().toLongLong();
      QVERIFY(offset > 0 && offset + e["bytes"].toVariant().toLongLong() <= fileSize);
      QVERIFY(alignment >= 1 && offset % alignment == 0);
    }
    auto text = runCli({"info", ptd});
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("ExecuTorch data file, FT01"), text.out.constData());
    QVERIFY(text.out.contains(("Entries: " + QString::number(named.size())).toUtf8()));
    // A truncated data file is one clear error naming it.
    QFile::copy(ptd, dir + "/cut.ptd");
    QFile cut(dir + "/cut.ptd");
    QVERIFY(cut.resize(40));
    auto bad = runCli({"info", dir + "/cut.ptd"});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY(bad.err.contains("cut.ptd"));
    QCOMPARE(bad.err.count('\n'), 1);
  }

  void dumpAndExportRoundTrip() {
    PTESCOPE_REQUIRE_SAMPLES();
    const QString in = samplePath("quantized-xnnpack.pte");
    const QString out = ptescope::test::tempDir() + "/exported.pte";
    auto exported = runCli({"export", in, "-o", out});
    QCOMPARE(exported.exitCode, 0);
    auto a = runCli({"dump", in, "--json"});
    auto b = runCli({"dump", out, "--json"});
    QCOMPARE(a.exitCode, 0);
    QCOMPARE(b.exitCode, 0);
    QVERIFY(QJsonDocument::fromJson(a.out).isObject());
    QCOMPARE(b.out, a.out);
    // Refuses to overwrite its input without --force.
    auto self = runCli({"export", out, "-o", out});
    QCOMPARE(self.exitCode, 2);
    QVERIFY(self.err.contains("--force"));
    auto forced = runCli({"export", out, "-o", out, "--force"});
    QCOMPARE(forced.exitCode, 0);
  }
};

QTEST_GUILESS_MAIN(CliBasicTest)
#include "test_cli_basic.moc"
