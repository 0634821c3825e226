// The files the package installs for the desktop: the shared-mime-info
// types recognise a program written by ptescope-cli, the real sample
// programs and .ptd data by content and by name (through the same
// update-mime-database a system runs, read back by QMimeDatabase), and the
// desktop entry, AppStream metadata and icons agree with those types.
#include <QtTest>

#include <QMimeDatabase>
#include <QProcess>
#include <QRegularExpression>

#include "support/TestSupport.h"

using ptescope::test::runCli;

namespace {

const QString kProgram = "application/x-executorch-program";
const QString kData = "application/x-executorch-data";

QString packagingFile(const QString& name) { return QStringLiteral(PTESCOPE_SCHEMA_DIR "/../../packaging/") + name; }

QByteArray fileText(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QByteArray header(const char identifier[4]) {
  QByteArray bytes(64, '\0');
  bytes[0] = 0x20;
  bytes.replace(4, 4, QByteArray(identifier, 4));
  return bytes;
}

}  // namespace

class PackageFilesTest : public QObject {
  Q_OBJECT

  QString dataHome_;

 private slots:
  void initTestCase() {
    // A data folder of our own, first in the search path, as the package's
    // files would be under /usr/share.
    dataHome_ = ptescope::test::tempDir() + "/share";
    QVERIFY(QDir().mkpath(dataHome_ + "/mime/packages"));
    QVERIFY(QFile::copy(packagingFile("ptescope-mime.xml"), dataHome_ + "/mime/packages/ptescope.xml"));
    qputenv("XDG_DATA_HOME", dataHome_.toUtf8());
    QProcess update;
    update.start("update-mime-database", {dataHome_ + "/mime"});
    QVERIFY2(update.waitForStarted(), "update-mime-database (shared-mime-info, see scripts/setup-deps.sh) is needed");
    QVERIFY(update.waitForFinished(60000));
    QCOMPARE(update.exitCode(), 0);
    const QByteArray complaints = update.readAllStandardError();
    QVERIFY2(complaints.isEmpty(), complaints.constData());
    QVERIFY(QFile::exists(dataHome_ + "/mime/mime.cache"));
  }

  void programsAreRecognisedByContent() {
    const QString path = ptescope::test::tempDir() + "/demo.bin";  // no telling extension
    auto r = runCli({"synth", "--demo", "-o", path});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QMimeDatabase db;
    QCOMPARE(db.mimeTypeForFile(path, QMimeDatabase::MatchContent).name(), kProgram);
    QCOMPARE(db.mimeTypeForData(header("ET12")).name(), kProgram);
    QCOMPARE(db.mimeTypeForData(header("ET07")).name(), kProgram);  // another schema version
    QVERIFY(db.mimeTypeForData(header("ETab")).name() != kProgram);
    QVERIFY(db.mimeTypeForData(header("XT12")).name() != kProgram);
  }

  void realSamplesAreRecognised() {
    const QStringList samples = ptescope::test::samplePrograms();
    if (samples.isEmpty()) QSKIP("the pte-samples folder is absent");
    QMimeDatabase db;
    int checked = 0;
    for (const auto& path : samples) {
      if (QFileInfo(path).fileName().startsWith("bad-")) continue;  // not a program at all
      const QByteArray bytes = fileText(path);
      QCOMPARE(db.mimeTypeForData(bytes).name(), kProgram);
      ++checked;
    }
    QVERIFY(checked >= 10);
    const QString ptd = ptescope::test::samplePath("external-constants.ptd");
    QCOMPARE(db.mimeTypeForData(fileText(ptd)).name(), kData);
  }

  void dataFilesAreRecognisedByContent() {
    QMimeDatabase db;
    QCOMPARE(db.mimeTypeForData(header("FT01")).name(), kData);
    QVERIFY(db.mimeTypeForData(header("FT02")).name() != kData);
  }

  void namesAreRecognisedByExtension() {
    QMimeDatabase db;
    QCOMPARE(db.mimeTypeForFile("model.pte", QMimeDatabase::MatchExtension).name(), kProgram);
    QCOMPARE(db.mimeTypeForFile("weights.ptd", QMimeDatabase::MatchExtension).name(), kData);
    QVERIFY(db.mimeTypeForName(kProgram).isValid());
    QCOMPARE(db.mimeTypeForName(kProgram).iconName(), QString("application-x-executorch-program"));
  }

  void desktopEntryAppStreamAndIconsNameBothTypes() {
    const QByteArray desktop = fileText(packagingFile("ptescope.desktop"));
    static const QRegularExpression mimeLine("^MimeType=(.*)$", QRegularExpression::MultilineOption);
    const auto m = mimeLine.match(QString::fromUtf8(desktop));
    QVERIFY(m.hasMatch());
    QStringList declared = m.captured(1).split(';', Qt::SkipEmptyParts);
    declared.sort();
    QCOMPARE(declared, QStringList({kData, kProgram}));

    const QByteArray metainfo = fileText(packagingFile("io.github.ptescope.metainfo.xml"));
    for (const auto& type : {kProgram, kData}) {
      QVERIFY(metainfo.contains("<mediatype>" + type.toUtf8() + "</mediatype>"));
      const QString icon = QString(type).replace('/', '-');
      QVERIFY2(QFile::exists(packagingFile("icons/" + icon + ".svg")), qPrintable(icon));
    }
    // Every version has its release entry.
    QVERIFY(metainfo.contains("<release version=\"" PTESCOPE_VERSION "\""));
    // No address that leads nowhere: the project has no public home yet, so
    // the metadata names no homepage and no screenshot URL (issue 28).
    QVERIFY(!metainfo.contains("<url"));
    QVERIFY(!metainfo.contains("<image>"));
    QVERIFY(!metainfo.contains("github.com/ptescope"));
  }
};

QTEST_GUILESS_MAIN(PackageFilesTest)
#include "test_package_files.moc"
