// Report formats, from a run report built by hand: what each format must say and how it escapes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "graphmend/report/report.h"
#include "graphmend/rules/registry.h"

namespace graphmend::report {
namespace {

driver::RunReport sample(std::string text, std::string message = "`print` splits the graph") {
  driver::RunReport run;
  driver::FileReport f;
  f.display = "pkg/a, b.py";  // a comma and a space: both need escaping somewhere
  f.path = f.display;
  auto file = std::make_shared<source::SourceFile>();
  file->text = std::move(text);
  f.original = file;
  rules::Diagnostic d;
  d.rule = rules::info_of_code("GM201");
  d.message = std::move(message);
  const auto at = static_cast<uint32_t>(f.text().find("print"));
  d.range = {at, at + 5};
  f.diagnostics.push_back(d);
  run.files.push_back(std::move(f));
  return run;
}

std::string emitted(const driver::RunReport& run, Format format, bool statistics = false) {
  std::ostringstream out, err;
  EmitOptions o;
  o.format = format;
  o.statistics = statistics;
  emit(run, o, out, err);
  return out.str();
}

TEST(Formats, NamesRoundTripAndMachineFormatsAreMarked) {
  EXPECT_EQ(format_named("json-lines"), Format::JsonLines);
  EXPECT_EQ(format_named("sarif"), Format::Sarif);
  EXPECT_FALSE(format_named("xml").has_value());
  EXPECT_FALSE(is_machine_format(Format::Text));
  EXPECT_FALSE(is_machine_format(Format::Concise));
  EXPECT_TRUE(is_machine_format(Format::Junit));
}

TEST(Formats, GithubEscapesPropertiesAndMessage) {
  const std::string out = emitted(sample("x = 1\nprint(x)\n", "50% done\nnext"), Format::Github);
  EXPECT_EQ(out,
            "::error title=graphmend (GM201),file=pkg/a%2C b.py,line=2,col=1,endLine=2,endColumn=6::"
            "pkg/a, b.py:2:1: GM201 50%25 done%0Anext\n");
}

TEST(Formats, SarifHasRulesResultsAndEncodedUris) {
  const auto doc = nlohmann::json::parse(emitted(sample("print(1)\n"), Format::Sarif));
  EXPECT_EQ(doc["version"], "2.1.0");
  const auto& run = doc["runs"][0];
  const auto& result = run["results"][0];
  EXPECT_EQ(result["ruleId"], "GM201");
  EXPECT_EQ(run["tool"]["driver"]["rules"][result["ruleIndex"].get<size_t>()]["id"], "GM201");
  EXPECT_EQ(result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "pkg/a%2C%20b.py");
  EXPECT_EQ(result["locations"][0]["physicalLocation"]["region"]["startLine"], 1);
  EXPECT_TRUE(run["invocations"][0]["executionSuccessful"].get<bool>());
}

TEST(Formats, JunitEscapesXml) {
  const std::string out = emitted(sample("print(1)\n", "a <b> & \"c\"\x01"), Format::Junit);
  EXPECT_NE(out.find("message=\"a &lt;b&gt; &amp; &quot;c&quot;\\x01\""), std::string::npos) << out;
  EXPECT_NE(out.find("<testsuites name=\"graphmend\" tests=\"1\" failures=\"1\" errors=\"0\">"), std::string::npos);
}

TEST(Formats, GitlabFingerprintIgnoresLineNumbersButNotTheLine) {
  const auto a = nlohmann::json::parse(emitted(sample("print(1)\n"), Format::Gitlab));
  const auto moved = nlohmann::json::parse(emitted(sample("\n\nprint(1)\n"), Format::Gitlab));
  const auto other = nlohmann::json::parse(emitted(sample("print(2)\n"), Format::Gitlab));
  EXPECT_EQ(a[0]["fingerprint"], moved[0]["fingerprint"]);
  EXPECT_NE(a[0]["fingerprint"], other[0]["fingerprint"]);
  EXPECT_EQ(moved[0]["location"]["lines"]["begin"], 3);
}

TEST(Formats, JsonLinesIsOneObjectPerFindingAndStatisticsCountByCode) {
  driver::RunReport run = sample("print(1)\nprint(2)\n");
  rules::Diagnostic second = run.files[0].diagnostics[0];
  second.range = {9, 14};
  run.files[0].diagnostics.push_back(second);
  const std::string lines = emitted(run, Format::JsonLines);
  EXPECT_EQ(std::count(lines.begin(), lines.end(), '\n'), 2);
  EXPECT_EQ(nlohmann::json::parse(lines.substr(lines.find('\n') + 1))["location"]["row"], 2);
  EXPECT_EQ(emitted(run, Format::Text, true), "    2\tGM201\t[ ] print-in-graph\n");
}

TEST(Excerpt, ShortLinesAreKeptWhole) {
  uint32_t focus = 3;
  EXPECT_EQ(line_excerpt("abcdef", focus, 160), "abcdef");
  EXPECT_EQ(focus, 3u);
}

TEST(Excerpt, LongLinesAreCutAroundTheFocusAtCharacterBoundaries) {
  std::string line(1000, 'x');
  line.replace(500, 5, "print");
  line.replace(440, 2, "é");  // two bytes near the cut
  uint32_t focus = 500;
  const std::string cut = line_excerpt(line, focus, 160);
  EXPECT_LE(cut.size(), 160u + 2 * std::string("…").size() + 1);
  EXPECT_TRUE(cut.starts_with("…"));
  EXPECT_TRUE(cut.ends_with("…"));
  EXPECT_EQ(cut.substr(focus, 5), "print");
}

TEST(Excerpt, TextOutputOfAHugeLineIsBounded) {
  std::string text = "y = [" + std::string(450'000, '1') + "]; print(y)\n";
  const std::string out = emitted(sample(text), Format::Text);
  EXPECT_LT(out.size(), 2000u);
  EXPECT_NE(out.find("print"), std::string::npos);
}

}  // namespace
}  // namespace graphmend::report
