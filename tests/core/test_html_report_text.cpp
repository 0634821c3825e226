// The HTML report's two text helpers against fixed expectations: inline JSON
// that no name can break out of, and the CSP hash sources (the SHA-256 of
// "" and "abc" in base64 are FIPS 180-4's test vectors).
#include <QtTest>

#include <nlohmann/json.hpp>

#include "report/HtmlReport.h"
#include "report/Json.h"

using namespace ptescope;

class HtmlReportTextTest : public QObject {
  Q_OBJECT
 private slots:
  void inlineJsonCannotEndTheScript() {
    const std::string name = "</script><script>alert(1)</script>&amp;\xE2\x80\xA8\xE2\x80\xA9<!--";
    const std::string text = report::scriptSafeJson(report::jsonText(nlohmann::json{{"name", name}}, -1));
    QVERIFY(text.find('<') == std::string::npos);
    QVERIFY(text.find('>') == std::string::npos);
    QVERIFY(text.find('&') == std::string::npos);
    QVERIFY(text.find("\xE2\x80\xA8") == std::string::npos);
    QVERIFY(text.find("\xE2\x80\xA9") == std::string::npos);
    QVERIFY(text.find("\\u003c/script\\u003e") != std::string::npos);
    QVERIFY(text.find("\\u2028\\u2029") != std::string::npos);
    // Still the same JSON: it parses back to the name.
    QCOMPARE(nlohmann::json::parse(text)["name"].get<std::string>(), name);
  }

  void cspHashesAreSha256InBase64() {
    QCOMPARE(report::cspHashSource(""), std::string("'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"));
    QCOMPARE(report::cspHashSource("abc"), std::string("'sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0='"));
  }
};

QTEST_GUILESS_MAIN(HtmlReportTextTest)
#include "test_html_report_text.moc"
