// Link profiles and copy predictions (core/cost): the interpolation rule
// against hand-computed times, the file format's checks, the built-in
// profiles (monotone, ordered as the links are, with their sources and the
// "not guarantees" note), a method's predicted copies against the formula,
// and the probe on the host runtime.
#include <QtTest>

#include <cmath>

#include "cost/CopyCost.h"
#include "cost/LinkProbe.h"
#include "cost/LinkProfile.h"
#include "exec/HostRuntime.h"
#include "report/ProfileWriters.h"
#include "support/TestSupport.h"
#include "synth/Scenarios.h"

using namespace ptescope;
using program::CopyDirection;
using cost::LinkMemory;

namespace {

constexpr uint64_t KiB = 1024, MiB = 1024 * 1024;

bool close(double a, double b, double relative = 1e-9) { return std::abs(a - b) <= relative * std::max(std::abs(a), std::abs(b)); }

std::string profileText(const std::string& points, const std::string& direction = "h2d",
                        const std::string& memory = "pinned") {
  return R"({"format": "ptescope-link", "version": 1, "name": "t", "curves": [{"direction": ")" + direction +
         R"(", "host_memory": ")" + memory + R"(", "points": [)" + points + "]}]}";
}

cost::LinkCurve curveOf(const std::string& points) {
  auto parsed = cost::parseLinkProfile(profileText(points), "test");
  if (!parsed) qFatal("%s", parsed.error().message.c_str());
  return parsed->curves.front();
}

std::vector<uint64_t> sizeGrid() {
  std::vector<uint64_t> sizes{1, 100, 512};
  for (uint64_t s = KiB; s <= 1024 * MiB; s *= 2) {
    sizes.push_back(s);
    sizes.push_back(s + s / 2);
  }
  return sizes;
}

program::Program demoProgram() {
  auto built = synth::synthesizeDemo();
  if (!built) qFatal("%s", built.error().message.c_str());
  auto program = synth::applyDevicePasses(built.value());
  if (!program) qFatal("%s", program.error().message.c_str());
  return program.value();
}

}  // namespace

class LinkProfileTest : public QObject {
  Q_OBJECT
 private slots:
  void interpolationBetweenPoints() {
    // 10 us at 1 KiB, 12 us at 2 KiB, 100 us at 1 MiB.
    const auto c = curveOf(R"({"bytes": 1024, "us": 10}, {"bytes": 2048, "us": 12}, {"bytes": 1048576, "us": 100})");
    QCOMPARE(c.secondsFor(0), 0.0);                      // no transfer
    QVERIFY(close(c.secondsFor(1), 10e-6));              // below the first point: its time
    QVERIFY(close(c.secondsFor(512), 10e-6));
    QVERIFY(close(c.secondsFor(1024), 10e-6));           // on a point
    QVERIFY(close(c.secondsFor(1536), 11e-6));           // half way from 10 to 12
    QVERIFY(close(c.secondsFor(2048), 12e-6));
    QVERIFY(close(c.secondsFor(525312), 56e-6));         // half way from 2 KiB to 1 MiB: (12 + 100) / 2
    QVERIFY(close(c.secondsFor(1048576), 100e-6));
    // Above the last point: the last segment's slope, 88 us per 1046528 bytes.
    QVERIFY(close(c.secondsFor(2 * MiB), (100 + 88.0 * 1048576 / 1046528) * 1e-6));
    QVERIFY(close(c.gbpsFor(1048576), 1048576 / 100e-6 / 1e9));
  }

  void extrapolationOfOddCurves() {
    // A last segment that does not grow continues at the last point's average bandwidth.
    const auto flat = curveOf(R"({"bytes": 1024, "us": 10}, {"bytes": 2048, "us": 9})");
    QVERIFY(close(flat.secondsFor(4096), 18e-6));
    QVERIFY(close(flat.secondsFor(1536), 9.5e-6));
    // One point: its time below it, scaled by bytes above it.
    const auto one = curveOf(R"({"bytes": 1024, "us": 5})");
    QVERIFY(close(one.secondsFor(100), 5e-6));
    QVERIFY(close(one.secondsFor(4096), 20e-6));
  }

  void badFilesSayWhatIsWrong() {
    struct Case {
      std::string text;
      const char* expected;
    };
    const std::vector<Case> cases = {
        {"{not json", "not valid JSON"},
        {R"({"format": "ptescope-profile", "version": 1})", "not a link profile"},
        {R"({"format": "ptescope-link", "version": 7, "name": "x"})", "unsupported link profile version"},
        {R"({"format": "ptescope-link", "version": 1, "curves": []})", "no \"name\""},
        {R"({"format": "ptescope-link", "version": 1, "name": "x"})", "no \"curves\""},
        {profileText(R"({"bytes": 2048, "us": 1}, {"bytes": 1024, "us": 2})"), "ascending order"},
        {profileText(R"({"bytes": 0, "us": 1})"), "\"bytes\" must be positive"},
        {profileText(R"({"bytes": 1024, "us": -1})"), "\"us\" must be a positive number"},
        {profileText(R"({"bytes": 1024})"), "needs \"bytes\""},
        {profileText(R"({"bytes": 1024, "us": 1})", "H2X"), "\"direction\" must be"},
        {profileText(R"({"bytes": 1024, "us": 1})", "d2d", "pinned"), "a d2d curve has host_memory \"device\""},
        {profileText(R"({"bytes": 1024, "us": 1})", "h2d", "device"), "a d2d curve has host_memory \"device\""},
    };
    for (const auto& c : cases) {
      auto parsed = cost::parseLinkProfile(c.text, "bad.json");
      QVERIFY2(!parsed.ok(), c.expected);
      QVERIFY2(parsed.error().message.rfind("bad.json: ", 0) == 0, parsed.error().message.c_str());
      QVERIFY2(parsed.error().message.find(c.expected) != std::string::npos, parsed.error().message.c_str());
    }
    auto missing = cost::resolveLinkProfile("pcie-gen9-x64");
    QVERIFY(!missing.ok());
    QVERIFY(missing.error().message.find("pcie-gen4-x16") != std::string::npos);  // names the built-ins
  }

  void jsonRoundTrip() {
    const auto& link = cost::defaultLinkProfile();
    const QString path = QDir(test::tempDir()).filePath("link.json");
    QVERIFY(cost::writeLinkProfileFile(link, path.toStdString()).ok());
    auto back = cost::readLinkProfileFile(path.toStdString());
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().message.c_str());
    QCOMPARE(back->name, link.name);
    QCOMPARE(back->curves.size(), link.curves.size());
    for (size_t i = 0; i < link.curves.size(); ++i) {
      QCOMPARE(back->curves[i].points.size(), link.curves[i].points.size());
      for (size_t k = 0; k < link.curves[i].points.size(); ++k) {
        QCOMPARE(back->curves[i].points[k].bytes, link.curves[i].points[k].bytes);
        QVERIFY(close(back->curves[i].points[k].seconds, link.curves[i].points[k].seconds));
      }
    }
  }

  void builtinProfilesAreDocumentedAndComplete() {
    const auto& all = cost::builtinLinkProfiles();
    QCOMPARE(all.size(), size_t(4));  // a broken built-in text would be left out
    const std::vector<std::string> expected{"pcie-gen3-x16", "pcie-gen4-x16", "pcie-gen5-x16", "nvlink-c2c"};
    for (size_t i = 0; i < expected.size(); ++i) QCOMPARE(all[i].name, expected[i]);  // slowest first
    QCOMPARE(cost::defaultLinkProfile().name, std::string("pcie-gen4-x16"));
    for (const auto& p : all) {
      QCOMPARE(p.kind, std::string("typical"));
      QVERIFY2(p.note.find("not guarantees") != std::string::npos, p.name.c_str());
      QVERIFY2(p.sources.size() >= 2, p.name.c_str());
      for (const auto& s : p.sources) QVERIFY2(s.find("http") != std::string::npos || s.find("typical figure used here") != std::string::npos, s.c_str());
      for (auto d : program::kHostDeviceDirections)
        for (auto m : {LinkMemory::Pinned, LinkMemory::Pageable}) {
          const auto* c = p.curve(d, m);
          QVERIFY2(c != nullptr, p.name.c_str());
          QCOMPARE(c->points.front().bytes, 1 * KiB);
          QCOMPARE(c->points.back().bytes, 256 * MiB);
        }
    }
  }

  void builtinProfilesAreMonotone() {
    for (const auto& p : cost::builtinLinkProfiles())
      for (const auto& c : p.curves) {
        double lastTime = 0, lastGbps = 0;
        for (uint64_t s : sizeGrid()) {
          const double t = c.secondsFor(s), g = c.gbpsFor(s);
          QVERIFY2(t >= lastTime, (p.name + " time falls at " + std::to_string(s)).c_str());
          QVERIFY2(g >= lastGbps * (1 - 1e-9), (p.name + " bandwidth falls at " + std::to_string(s)).c_str());
          lastTime = t;
          lastGbps = g;
        }
      }
  }

  void builtinProfilesAreOrderedAsTheLinks() {
    const auto& all = cost::builtinLinkProfiles();  // gen3, gen4, gen5, c2c
    for (auto d : program::kHostDeviceDirections)
      for (auto m : {LinkMemory::Pinned, LinkMemory::Pageable})
        for (uint64_t s : sizeGrid())
          for (size_t i = 1; i < all.size(); ++i) {
            const double slower = all[i - 1].curve(d, m)->secondsFor(s), faster = all[i].curve(d, m)->secondsFor(s);
            QVERIFY2(faster <= slower, (all[i].name + " slower than " + all[i - 1].name).c_str());
            if (s >= 64 * MiB) QVERIFY(faster < slower);
          }
    // Pageable costs more than pinned; large pinned copies reach the
    // public figures; small copies cost a few microseconds.
    struct Figure {
      const char* name;
      double h2dLow, h2dHigh;
    };
    for (const Figure& f : {Figure{"pcie-gen3-x16", 11, 14}, Figure{"pcie-gen4-x16", 24, 27},
                            Figure{"pcie-gen5-x16", 50, 60}, Figure{"nvlink-c2c", 300, 400}}) {
      const auto* p = cost::findBuiltinLinkProfile(f.name);
      QVERIFY(p != nullptr);
      const double h2d = p->curve(program::CopyDirection::HostToDevice, LinkMemory::Pinned)->gbpsFor(256 * MiB);
      QVERIFY2(h2d >= f.h2dLow && h2d <= f.h2dHigh, f.name);
      for (auto d : program::kHostDeviceDirections) {
        const auto* pinned = p->curve(d, LinkMemory::Pinned);
        const auto* pageable = p->curve(d, LinkMemory::Pageable);
        const double ratio = pinned->gbpsFor(256 * MiB) / pageable->gbpsFor(256 * MiB);
        QVERIFY2(ratio > 2.3 && ratio < 2.7, f.name);  // "about 2.5x slower"
        for (uint64_t s : sizeGrid()) QVERIFY(pageable->secondsFor(s) > pinned->secondsFor(s));
        const double small = pinned->secondsFor(1 * KiB);
        QVERIFY2(small >= 1e-6 && small <= 10e-6, f.name);
        // Latency-bound below ~100 KiB, bandwidth-bound above.
        QVERIFY(pinned->gbpsFor(4 * KiB) < 0.5 * pinned->gbpsFor(256 * MiB));
        QVERIFY(pinned->gbpsFor(64 * MiB) > 0.95 * pinned->gbpsFor(256 * MiB));
      }
    }
  }

  void predictsTheDemoByTheFormula() {
    const auto program = demoProgram();
    const auto* link = cost::findBuiltinLinkProfile("pcie-gen3-x16");
    QVERIFY(link != nullptr);
    auto p = cost::predictProgram(program, "", *link, exec::HostMemoryKind::Pinned);
    QVERIFY2(p.ok(), p.ok() ? "" : p.error().message.c_str());
    QCOMPARE(p->method, std::string("forward"));
    QCOMPARE(p->copies.size(), size_t(4));
    // Every demo copy is at most 1 KiB: the first point, 3 us + 1024 B at
    // 12 GB/s (H2D) or 13 GB/s (D2H), rounded to 0.01 us.
    for (const auto& c : p->copies) {
      QVERIFY(c.bytes <= 1024);
      QVERIFY(c.canonical_source >= 0);
      const double expected = c.direction == program::CopyDirection::HostToDevice ? 3.09e-6 : 3.08e-6;
      QVERIFY2(close(c.seconds, expected), std::to_string(c.seconds).c_str());
    }
    QVERIFY(close(p->host_to_device.seconds, 2 * 3.09e-6));
    QVERIFY(close(p->device_to_host.seconds, 2 * 3.08e-6));
    QCOMPARE(p->host_to_device.bytes, uint64_t(512));
    QVERIFY(close(cost::copyShare(p->copySeconds(), 1e-3), p->copySeconds() / (1e-3 + p->copySeconds())));
    QCOMPARE(cost::copyShare(0, 0), 0.0);
    // The prediction pairs with a profile copy for copy.
    const auto shaped = cost::asTransferProfile(p.value());
    const auto pairs = exec::pairCopies(shaped, shaped);
    QCOMPARE(pairs.size(), size_t(4));
    for (const auto& pair : pairs) QVERIFY(pair.latest == pair.previous);
    QVERIFY(!cost::predictProgram(program, "nope", *link, exec::HostMemoryKind::Pinned).ok());
  }

  void probeOnTheHostRuntimeIsLabelledEmulated() {
    exec::HostRuntime runtime;
    cost::ProbeOptions options;
    options.max_bytes = 64 * KiB;
    options.repeats = 2;
    size_t progress = 0;
    options.on_progress = [&](size_t done, size_t total) {
      QCOMPARE(total, size_t(5 * 4));  // 1, 4, 16, 64 KiB × (2 directions × 2 memory kinds + d2d)
      progress = done;
    };
    auto p = cost::probeLink(runtime, options);
    QVERIFY2(p.ok(), p.ok() ? "" : p.error().message.c_str());
    QCOMPARE(progress, size_t(20));
    QCOMPARE(p->kind, std::string("emulated"));
    QVERIFY(p->label().find("emulated") != std::string::npos);
    QCOMPARE(p->curves.size(), size_t(5));
    // The last one: device to device (the copies inside delegates).
    QVERIFY(p->curve(program::CopyDirection::DeviceToDevice, cost::LinkMemory::Device) == &p->curves.back());
    for (const auto& c : p->curves) {
      QCOMPARE(c.points.size(), size_t(4));
      QCOMPARE(c.points.back().bytes, 64 * KiB);
      for (const auto& point : c.points) QVERIFY(point.seconds > 0);
    }
    // What the probe writes reads back.
    auto back = cost::parseLinkProfile(cost::linkProfileJson(p.value()).dump(), "probe");
    QVERIFY(back.ok());
    QCOMPARE(cost::defaultProbeSizes(256 * MiB).size(), size_t(10));
    QCOMPARE(cost::defaultProbeSizes(256 * MiB).back(), 256 * MiB);
    cost::ProbeOptions onCpu;
    onCpu.device = program::Device{};
    QVERIFY(!cost::probeLink(runtime, onCpu).ok());
  }

  // Issue 34 item 14: Cancel stops the probe before its next batch. The
  // probe asks before each of its (repeats + 1) batches per size: with
  // repeats 2 the third size's first batch is the 7th question; yes from
  // then on stops it there, after 2 of its 16 sizes.
  void probeStopsWhenCancelled() {
    exec::HostRuntime runtime;
    cost::ProbeOptions options;
    options.max_bytes = 64 * KiB;
    options.repeats = 2;
    size_t progress = 0, asked = 0;
    options.on_progress = [&](size_t done, size_t) { progress = done; };
    options.cancel_requested = [&] { return ++asked >= 7; };
    auto p = cost::probeLink(runtime, options);
    QVERIFY(!p.ok());
    QCOMPARE(p.error().message, std::string(cost::kProbeCancelled));
    QCOMPARE(asked, size_t(7));
    QCOMPARE(progress, size_t(2));
  }
};

QTEST_GUILESS_MAIN(LinkProfileTest)
#include "test_link_profile.moc"
