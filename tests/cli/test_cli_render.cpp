// `ptescope-cli render FILE -o OUT.svg|png|dot [--method NAME]`: headless
// pictures of a method's graph, and one clear line on bad input.
#include <QtTest>

#include <QXmlStreamReader>
#include <QtEndian>

#include "support/TestSupport.h"

using namespace ptescope;

namespace {

// A structural PNG check with Qt Core only (this suite does not link Qt
// Gui; tests/ui/test_graph_view loads a rendered PNG with QImage): the
// signature, an IHDR, and image data that inflates to exactly the size the
// header promises. Returns {width, height}, or {0, 0} when invalid.
QSize checkPng(const QByteArray& png) {
  if (!png.startsWith("\x89PNG\r\n\x1a\n")) return {};
  qsizetype at = 8;
  quint32 width = 0, height = 0;
  int channels = 0;
  QByteArray data;
  bool ended = false;
  while (at + 12 <= png.size()) {
    const quint32 length = qFromBigEndian<quint32>(png.constData() + at);
    const QByteArray type = png.mid(at + 4, 4);
    const QByteArray body = png.mid(at + 8, length);
    if (body.size() != qsizetype(length)) return {};
    if (type == "IHDR") {
      width = qFromBigEndian<quint32>(body.constData());
      height = qFromBigEndian<quint32>(body.constData() + 4);
      const int colourType = body.at(9);
      channels = colourType == 2 ? 3 : colourType == 6 ? 4 : colourType == 0 ? 1 : colourType == 4 ? 2 : 0;
      if (body.at(8) != 8 || channels == 0) return {};
    } else if (type == "IDAT") {
      data += body;
    } else if (type == "IEND") {
      ended = true;
      break;
    }
    at += 12 + length;
  }
  const quint32 expected = height * (1 + width * quint32(channels));
  QByteArray sized(4, 0);
  qToBigEndian<quint32>(expected, sized.data());
  if (!ended || width == 0 || qUncompress(sized + data).size() != qsizetype(expected)) return {};
  return QSize(int(width), int(height));
}

// Whether a DOT text has an edge from a removed copy's ghost titled
// `ghostTitle` to a node titled `readerTitle`.
bool hasGhostEdge(const QString& dot, const QString& ghostTitle, const QString& readerTitle) {
  QMap<QString, QString> idOf, titleOf;
  static const QRegularExpression node(QStringLiteral("^\\s*(n\\d+) \\[label=<(?:<FONT[^>]*>[^<]*</FONT>)?<B>([^<]*)</B>.*id=\"([^\"]+)\""),
                                       QRegularExpression::MultilineOption);
  for (auto it = node.globalMatch(dot); it.hasNext();) {
    const auto m = it.next();
    idOf[m.captured(1)] = m.captured(3);
    titleOf[m.captured(1)] = m.captured(2);
  }
  static const QRegularExpression edge(QStringLiteral("^\\s*(n\\d+) -> (n\\d+) "), QRegularExpression::MultilineOption);
  for (auto it = edge.globalMatch(dot); it.hasNext();) {
    const auto m = it.next();
    const QString from = m.captured(1), to = m.captured(2);
    if (idOf[from].startsWith("removed") && titleOf[from] == ghostTitle && titleOf[to] == readerTitle) return true;
  }
  return false;
}

}  // namespace

class CliRenderTest : public QObject {
  Q_OBJECT
 private:
  QString demo_;

 private slots:
  void initTestCase() {
    demo_ = test::tempDir() + "/demo.pte";
    auto r = test::runCli({"synth", "--demo", "-o", demo_});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    // As an exported program has them: with the device copies.
    auto p = test::runCli({"propagate", demo_, "-o", test::tempDir() + "/demo-p.pte"});
    QVERIFY2(p.exitCode == 0, p.err.constData());
    demo_ = test::tempDir() + "/demo-p.pte";
  }

  void svgIsXmlWithTheDevices() {
    const QString out = test::tempDir() + "/demo.svg";
    auto r = test::runCli({"render", demo_, "-o", out});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QFile file(out);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray svg = file.readAll();
    QXmlStreamReader xml(svg);
    bool sawSvgRoot = false;
    while (!xml.atEnd()) {
      xml.readNext();
      if (xml.isStartElement() && xml.name() == QLatin1String("svg")) sawSvgRoot = true;
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QVERIFY(sawSvgRoot);
    QVERIFY(svg.contains("cuda:0"));
    QVERIFY(svg.contains("h2d"));
    QVERIFY(svg.contains("d2h"));
    QVERIFY(svg.contains("CudaBackend"));
  }

  void pngLoads() {
    const QString out = test::tempDir() + "/demo.png";
    auto r = test::runCli({"render", demo_, "-o", out, "--method", "prefill"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QFile file(out);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QSize size = checkPng(file.readAll());
    QVERIFY2(size.width() > 200 && size.height() > 300, "not a valid PNG");
  }

  void dotIsGraphvizText() {
    const QString out = test::tempDir() + "/demo.dot";
    auto r = test::runCli({"render", demo_, "-o", out, "--method", "forward"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QFile file(out);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray dot = file.readAll();
    QVERIFY(dot.contains("digraph"));
    QVERIFY(dot.contains("cluster_d"));
    QVERIFY(dot.contains("method 'forward'"));
  }

  void bigProgramsRenderCollapsed() {
    const QString large = test::tempDir() + "/large.pte";
    auto s = test::runCli({"synth", "--large", "400", "-o", large});
    QVERIFY2(s.exitCode == 0, s.err.constData());
    const QString out = test::tempDir() + "/large.svg";
    auto r = test::runCli({"render", large, "-o", out});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.err.contains("collapsed"));
    QVERIFY(QFileInfo(out).size() > 1000);
  }

  void samplesRender() {
    PTESCOPE_REQUIRE_SAMPLES();
    const QString out = test::tempDir() + "/sample.svg";
    auto r = test::runCli({"render", test::samplePath("stories260k-qnn-multimethod.pte"), "-o", out, "--method", "prefill_forward"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    auto c = test::runCli({"render", test::samplePath("const-methods.pte"), "-o", out, "--method", "get_scalar"});
    QVERIFY2(c.exitCode == 0, c.err.constData());
  }

  void diffDrawsTheEditsChanges() {
    // The same edit as the GUI's diff test: pre-staged inputs remove the
    // input's copy; the input then lives on the delegate's device.
    const QString out = test::tempDir() + "/diff.dot";
    auto r = test::runCli({"render", demo_, "-o", out, "--method", "forward", "--diff", "--skip-h2d-inputs"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.err.contains("changes marked"));
    QFile file(out);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString dot = QString::fromUtf8(file.readAll());
    // One ghost: a dashed node in the removed colour, reached by dashed edges.
    const QRegularExpression ghost(R"re(n\d+ \[[^\]]*style="filled,dashed"[^\]]*id="removed0"|n\d+ \[[^\]]*id="removed0")re");
    QVERIFY2(ghost.match(dot).hasMatch(), qPrintable(dot.left(400)));
    QVERIFY(!dot.contains("removed1"));
    QVERIFY(dot.contains("#d32f2f"));
    QVERIFY(dot.contains(QString::fromUtf8("cpu:0 \u2192 cuda:0")));  // the moved input's edge label
    // The edited program without --diff: no marks; without edits nothing to mark.
    auto plain = test::runCli({"render", demo_, "-o", out, "--method", "forward", "--skip-h2d-inputs"});
    QVERIFY2(plain.exitCode == 0, plain.err.constData());
    QFile again(out);
    QVERIFY(again.open(QIODevice::ReadOnly));
    const QString edited = QString::fromUtf8(again.readAll());
    QVERIFY(!edited.contains("removed0") && !edited.contains("#d32f2f"));
    auto unchanged = test::runCli({"render", demo_, "-o", out, "--method", "forward", "--diff"});
    QVERIFY2(unchanged.exitCode == 0 && unchanged.err.contains(" 0 changes marked"), unchanged.err.constData());
  }

  void diffStartsFromTheFilesOptions() {
    // A file exported with pre-staged inputs: drawn as it is, nothing changed.
    const QString skipped = test::tempDir() + "/skipped.pte";
    auto p = test::runCli({"propagate", demo_, "-o", skipped, "--method", "forward", "--skip-h2d-inputs",
                           "--no-alloc-graph-input"});
    QVERIFY2(p.exitCode == 0, p.err.constData());
    const QString out = test::tempDir() + "/skipped-diff.dot";
    auto none = test::runCli({"render", skipped, "-o", out, "--method", "forward", "--diff"});
    QVERIFY2(none.exitCode == 0 && none.err.contains(" 0 changes marked"), none.err.constData());
    // A retarget alone keeps the file's skip: the input's copy stays gone,
    // only the delegate and what it touches change.
    auto retarget = test::runCli({"render", skipped, "-o", out, "--method", "forward", "--diff", "--set-device", "0=cuda:1"});
    QVERIFY2(retarget.exitCode == 0, retarget.err.constData());
    QFile file(out);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString dot = QString::fromUtf8(file.readAll());
    QVERIFY(!dot.contains("removed0"));
    QVERIFY(dot.contains(QString::fromUtf8("cuda:0 \u2192 cuda:1")));
  }

  void removedCopiesAreWiredToTheirReaders() {
    // t = a + b on cuda:0 feeds a second delegate and relu on the CPU (its
    // D2H); with every delegate off the GPU that D2H goes, and its ghost must
    // lead to the relu that read it.
    const QString program = test::tempDir() + "/consumers.pte";
    QCOMPARE(test::runCli({"synth", "--scenario", "gpu_and_cpu_consumers", "-o", program}).exitCode, 0);
    const QString out = test::tempDir() + "/consumers.dot";
    auto r = test::runCli({"render", program, "-o", out, "--diff", "--set-device", "0=none", "--set-device", "1=none"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QFile file(out);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString dot = QString::fromUtf8(file.readAll());
    const bool d2hGhostToRelu = hasGhostEdge(dot, "d2h", "relu");
    QVERIFY2(d2hGhostToRelu, qPrintable(dot.left(600)));
  }

  void badEditsWriteNothing() {
    const QString dir = test::tempDir();
    const QString out = dir + "/never.svg";
    auto device = test::runCli({"render", demo_, "-o", out, "--method", "forward", "--set-device", "0=tpu:0"});
    QVERIFY2(device.exitCode == 2 && device.err.contains("tpu"), device.err.constData());
    QVERIFY(!QFile::exists(out));
    auto huge = test::runCli({"render", demo_, "-o", out, "--method", "forward", "--set-device", "99999999999=cuda:0"});
    QVERIFY2(huge.exitCode == 2 && huge.err.contains("out of range") && huge.err.trimmed().count('\n') == 0,
             huge.err.constData());
    QVERIFY(!QFile::exists(out));
    // A program oddly named .svg is never drawn over itself.
    const QString odd = dir + "/program.svg";
    QFile::remove(odd);
    QVERIFY(QFile::copy(demo_, odd));
    const auto before = test::readAll(odd);
    auto over = test::runCli({"render", odd, "-o", odd});
    QVERIFY2(over.exitCode == 2 && over.err.contains("is the program"), over.err.constData());
    QCOMPARE(test::readAll(odd), before);
  }

  void badInputIsOneLineAndStatusTwo() {
    const QString dir = test::tempDir();
    auto format = test::runCli({"render", demo_, "-o", dir + "/x.jpeg"});
    test::expectOneLineCliError(format);
    QVERIFY(format.err.contains(".svg"));
    auto method = test::runCli({"render", demo_, "-o", dir + "/x.svg", "--method", "nope"});
    test::expectOneLineCliError(method);
    QVERIFY(method.err.contains("nope"));
    auto missing = test::runCli({"render", dir + "/missing.pte", "-o", dir + "/x.svg"});
    test::expectOneLineCliError(missing);
    auto unwritable = test::runCli({"render", demo_, "-o", dir + "/no/such/dir/x.svg"});
    test::expectOneLineCliError(unwritable);
    if (!test::samplesDir().isEmpty()) {
      auto corrupt = test::runCli({"render", test::samplePath("bad-corrupt.pte"), "-o", dir + "/x.svg"});
      test::expectOneLineCliError(corrupt);
    }
  }
};

QTEST_GUILESS_MAIN(CliRenderTest)
#include "test_cli_render.moc"
