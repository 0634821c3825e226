// The edit flags of `propagate` and `render`: every command starts from the
// options read off the file, flags are tri-state, `--defaults` asks for
// upstream's defaults explicitly.
#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "support/TestSupport.h"

using namespace ptescope;

namespace {

QJsonObject infoOf(const QString& path) {
  auto r = test::runCli({"info", path, "--json"});
  if (r.exitCode != 0) qWarning("info %s: %s", qPrintable(path), r.err.constData());
  return QJsonDocument::fromJson(r.out).object();
}

// What a method's placement and plan look like to a user.
QJsonObject planOf(const QString& path) {
  const QJsonObject m = infoOf(path)["methods"].toArray().at(0).toObject();
  QJsonObject plan;
  for (const char* key : {"non_const_buffer_sizes", "non_const_buffer_device", "tensors_by_device", "h2d_copies",
                          "d2h_copies", "instructions"})
    plan[key] = m[key];
  return plan;
}

QString scenario(const QString& name) {
  const QString path = test::tempDir() + "/" + name + ".pte";
  auto r = test::runCli({"synth", "--scenario", name, "-o", path});
  if (r.exitCode != 0) qWarning("synth %s: %s", qPrintable(name), r.err.constData());
  return path;
}

// The demo with forward's inputs pre-staged on the GPU (skip_h2d, unplanned inputs).
QString prestagedDemo() {
  const QString demo = test::tempDir() + "/demo.pte", out = test::tempDir() + "/prestaged.pte";
  if (!QFile::exists(out)) {
    test::runCli({"synth", "--demo", "-o", demo});
    auto r = test::runCli({"propagate", demo, "-o", out, "--method", "forward", "--skip-h2d-inputs", "--no-alloc-graph-input"});
    if (r.exitCode != 0) qWarning("propagate: %s", r.err.constData());
  }
  return out;
}

}  // namespace

class TestCliEditFlags : public QObject {
  Q_OBJECT
 private slots:
  void noFlagsMeansNoChange() {
    // Exported with both skips and unplanned graph IO: not upstream's defaults.
    const QString in = scenario("skip_both_unplanned_io");
    const QString out = test::tempDir() + "/same.pte";
    auto r = test::runCli({"propagate", in, "-o", out, "--json"});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(planOf(out), planOf(in));
    const QJsonObject report = QJsonDocument::fromJson(r.out).object();
    for (const auto m : report["methods"].toArray()) {
      QVERIFY(m.toObject()["copies_added"].toArray().isEmpty());
      QVERIFY(m.toObject()["copies_removed"].toArray().isEmpty());
    }
  }

  void defaultsAreExplicit() {
    const QString in = scenario("skip_both_unplanned_io");
    const QString out = test::tempDir() + "/defaults.pte";
    QCOMPARE(test::runCli({"propagate", in, "-o", out, "--defaults"}).exitCode, 0);
    const QJsonObject plan = planOf(out);
    // Upstream's defaults: an H2D per delegate input, a D2H per output, everything planned on the host side.
    QCOMPARE(plan["h2d_copies"].toInt(), 2);
    QCOMPARE(plan["d2h_copies"].toInt(), 1);
    QCOMPARE(plan, planOf(scenario("h2d_d2h")));
  }

  void aFlagCanTurnAnOptionOff() {
    const QString in = prestagedDemo();
    const QString out = test::tempDir() + "/noskip.pte";
    QCOMPARE(test::runCli({"propagate", in, "-o", out, "--method", "forward", "--no-skip-h2d-inputs"}).exitCode, 0);
    // The inputs get their copies back; alloc_graph_input stays off as the file has it.
    const int before = planOf(in)["h2d_copies"].toInt(), after = planOf(out)["h2d_copies"].toInt();
    QVERIFY2(after > before, qPrintable(QString("%1 -> %2").arg(before).arg(after)));
    const QString plain = test::tempDir() + "/demo.pte", full = test::tempDir() + "/full.pte";
    QCOMPARE(test::runCli({"propagate", in, "-o", full, "--method", "forward", "--no-skip-h2d-inputs",
                           "--alloc-graph-input"}).exitCode, 0);
    QCOMPARE(planOf(full), planOf(plain));  // both turned back: the demo as synthesized
  }

  void bothSpellingsAreOneError() {
    const QString in = scenario("h2d_d2h");
    auto r = test::runCli({"propagate", in, "-o", test::tempDir() + "/x.pte", "--skip-h2d-inputs", "--no-skip-h2d-inputs"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(!QFile::exists(test::tempDir() + "/x.pte"));
  }

  void renderTakesTheSameFlags() {
    const QString in = prestagedDemo();
    const QString dot = test::tempDir() + "/render.dot";
    auto same = test::runCli({"render", in, "-o", dot, "--method", "forward", "--diff"});
    QVERIFY2(same.exitCode == 0 && same.err.contains(" 0 changes marked"), same.err.constData());
    auto off = test::runCli({"render", in, "-o", dot, "--method", "forward", "--diff", "--no-skip-h2d-inputs"});
    QVERIFY2(off.exitCode == 0 && !off.err.contains(" 0 changes marked"), off.err.constData());
  }
};

QTEST_APPLESS_MAIN(TestCliEditFlags)
#include "test_cli_edit_flags.moc"
