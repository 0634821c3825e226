// The one spelling of bytes, tensor types, durations and rates
// (core/program/Text), checked against literal strings.
#include <QtTest>

#include <cstdlib>

#include "program/Text.h"

using namespace ptescope;
using namespace ptescope::program;

class TestText : public QObject {
  Q_OBJECT
 private slots:
  void bytes() {
    QCOMPARE(bytesText(0), std::string("0 B"));
    QCOMPARE(bytesText(512), std::string("512 B"));
    QCOMPARE(bytesText(1023), std::string("1023 B"));
    QCOMPARE(bytesText(1024), std::string("1.0 KiB"));
    QCOMPARE(bytesText(4096), std::string("4.0 KiB"));
    QCOMPARE(bytesText(1536 * 1024), std::string("1.5 MiB"));
    QCOMPARE(bytesText(int64_t(3) << 30), std::string("3.0 GiB"));  // not "3072.0 MiB"
    QCOMPARE(bytesText(int64_t(5) << 40), std::string("5120.0 GiB"));
    QCOMPARE(bytesText(-1), std::string("? B"));
  }

  void tensorTypes() {
    Tensor t;
    t.scalar_type = ScalarType::Float;
    t.sizes = std::vector<int32_t>{1, 64};
    QCOMPARE(sizesText(t), std::string("[1, 64]"));
    QCOMPARE(sizesText(t, ","), std::string("[1,64]"));
    QCOMPARE(tensorTypeText(t), std::string("float32[1,64]"));
    const std::vector<int64_t> sizes{2, 3, 4};
    QCOMPARE(tensorTypeText(ScalarType::Long, sizes), std::string("int64[2,3,4]"));
    Tensor scalar;
    scalar.scalar_type = ScalarType::Bool;
    QCOMPARE(tensorTypeText(scalar), std::string("bool[]"));
  }

  void counts() {
    QCOMPARE(countText(1, "iteration"), std::string("1 iteration"));
    QCOMPARE(countText(0, "iteration"), std::string("0 iterations"));
    QCOMPARE(countText(3, "copy", "copies"), std::string("3 copies"));
    QCOMPARE(countText(1, "copy", "copies"), std::string("1 copy"));
  }

  void durations() {
    // Zero has no unit to choose: "0", as the timeline's axis starts (a
    // "0 s" among µs cells read like a whole second).
    QCOMPARE(durationText(0), std::string("0"));
    QCOMPARE(durationText(850e-9), std::string("850 ns"));
    QCOMPARE(durationText(12.3e-6), std::string("12.3 \u00b5s"));
    QCOMPARE(durationText(1.25e-3), std::string("1.25 ms"));
    QCOMPARE(durationText(2.1), std::string("2.10 s"));
    QCOMPARE(durationText(-4e-6), std::string("-4.00 \u00b5s"));
    QCOMPARE(signedDurationText(1.2e-6), std::string("+1.20 \u00b5s"));
    QCOMPARE(signedDurationText(-0.05e-3), std::string("\u221250.0 \u00b5s"));
    QCOMPARE(signedDurationText(0), std::string("0"));
  }

  void microsForJson() {
    // 10.2 + 5.1 as two sums leave it: written as the number it is.
    const double noisy = 15.299999999999999;
    QVERIFY(noisy != 15.3);
    QCOMPARE(tidyMicros(noisy), 15.3);
    QCOMPARE(tidyMicros(0.0000004), 0.0);  // below a picosecond
    QCOMPARE(tidyMicros(-2.5), -2.5);
    QVERIFY(std::isnan(tidyMicros(std::nan(""))));
  }

  void percentsAndRates() {
    QCOMPARE(signedPercentText(12.6), std::string("+13%"));
    QCOMPARE(signedPercentText(2.26), std::string("+2.3%"));
    QCOMPARE(signedPercentText(-100), std::string("\u2212100%"));
    QCOMPARE(signedPercentText(0), std::string("0.0%"));
    QCOMPARE(gbpsText(0.54), std::string("0.54"));
    QCOMPARE(gbpsText(25.26), std::string("25.3"));
    QCOMPARE(gbpsText(350.4), std::string("350"));
  }
  void tableCells() {
    QCOMPARE(toMicros(1.5e-6), 1.5);
    QCOMPARE(fixedText(12.345, 2), std::string("12.35"));
    QCOMPARE(fixedText(2.0, 0), std::string("2"));
    QCOMPARE(signedFixedText(0.5, 2), std::string("+0.50"));
    QCOMPARE(signedFixedText(-0.5, 1), std::string("-0.5"));
    QCOMPARE(microsText(12.3456e-6), std::string("12.35"));
    QCOMPARE(microsText(0), std::string("0.00"));
    QCOMPARE(percentText(0.125), std::string("12.5%"));
    QCOMPARE(percentText(1), std::string("100.0%"));
    // CSV numbers: the shortest decimal that reads back as the same double,
    // never with an exponent (0.1 + 0.2 is famously 0.30000000000000004 and
    // 1/3 needs 16 digits to come back; 5e-7 µs is 0.5 ps).
    QCOMPARE(exactText(0.1), std::string("0.1"));
    QCOMPARE(exactText(0.1 + 0.2), std::string("0.30000000000000004"));
    QCOMPARE(exactText(1.0 / 3), std::string("0.3333333333333333"));
    QCOMPARE(exactText(5e-7), std::string("0.0000005"));
    QCOMPARE(exactText(3.0), std::string("3"));
    QCOMPARE(exactText(-2.5), std::string("-2.5"));
    QCOMPARE(exactText(1e21), std::string("1000000000000000000000"));
    for (double v : {0.1 + 0.2, 1.0 / 3, 5e-7, 123456.789e-3, 6.02214076e23, 3.4694469519536142e-18})
      QCOMPARE(std::strtod(exactText(v).c_str(), nullptr), v);
    QCOMPARE(shortText(1), std::string("1"));
    QCOMPARE(shortText(0.5), std::string("0.5"));
    QCOMPARE(padded("ab", 4), std::string("ab  "));
    QCOMPARE(padded("ab", 4, true), std::string("  ab"));
    QCOMPARE(padded("abcdef", 4), std::string("abcdef"));
    // "1 µs" is 4 characters in 5 bytes, "−1" 2 characters in 4 bytes: columns are characters.
    QCOMPARE(padded("1 \u00b5s", 6, true), std::string("  1 \u00b5s"));
    QCOMPARE(padded("\u22121", 3), std::string("\u22121 "));
  }
};

QTEST_APPLESS_MAIN(TestText)
#include "test_text.moc"
