// The shared ETDump samples (../shared/etdump-samples) for the test suites:
// where they are and what their MANIFEST.tsv says of each trace.
#pragma once

#include <QDir>
#include <QFile>
#include <QString>
#include <QStringList>
#include <QTextStream>

#include <vector>

namespace ptescope::test {

// The folder, or an empty string when it is absent.
inline QString etdumpSamplesDir() {
  QDir dir(QStringLiteral(PTESCOPE_ETDUMP_SAMPLES_DIR));
  return dir.exists("MANIFEST.tsv") ? dir.absolutePath() : QString();
}

// One MANIFEST.tsv row.
struct EtdumpSample {
  QString etdp, pte;
  QStringList methods;  // in block order
  int iterations = 0;
  qint64 bytes = 0;
  int blocks = 0;
  int profileEvents = 0, debugEvents = 0, allocationEvents = 0;
  QString debugBuffer;  // empty when none
  qint64 debugBufferUsed = 0;
  QString path(const QString& name) const { return QDir(etdumpSamplesDir()).filePath(name); }
};

inline std::vector<EtdumpSample> etdumpSamples() {
  std::vector<EtdumpSample> out;
  QFile file(QDir(etdumpSamplesDir()).filePath("MANIFEST.tsv"));
  if (!file.open(QIODevice::ReadOnly)) return out;
  QTextStream in(&file);
  const QStringList header = in.readLine().split('\t');
  while (!in.atEnd()) {
    const QStringList f = in.readLine().split('\t');
    if (f.size() != header.size()) continue;
    auto at = [&](const char* name) { return f.value(int(header.indexOf(QString::fromLatin1(name)))); };
    EtdumpSample s;
    s.etdp = at("etdp_file");
    s.pte = at("pte_file");
    s.methods = at("methods").split(',');
    s.iterations = at("iterations").toInt();
    s.bytes = at("bytes").toLongLong();
    s.blocks = at("run_data_entries").toInt();
    s.profileEvents = at("profile_events").toInt();
    s.debugEvents = at("debug_events").toInt();
    s.allocationEvents = at("allocation_events").toInt();
    if (at("debug_buffer_file") != "-") s.debugBuffer = at("debug_buffer_file");
    s.debugBufferUsed = at("debug_buffer_used_bytes").toLongLong();
    out.push_back(s);
  }
  return out;
}

}  // namespace ptescope::test

#define PTESCOPE_REQUIRE_ETDUMP_SAMPLES()                                                 \
  do {                                                                                    \
    if (::ptescope::test::etdumpSamplesDir().isEmpty())                                   \
      QSKIP("../shared/etdump-samples is absent; ETDump sample checks skipped");          \
  } while (0)
