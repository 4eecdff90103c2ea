// Suppression comments are read from comment tokens only, match exact codes and prefixes, and
// know which of them suppressed something (GM903).
#include <gtest/gtest.h>

#include "graphmend/fix/apply.h"
#include "graphmend/rules/registry.h"
#include "graphmend/rules/selection.h"
#include "graphmend/rules/suppression.h"
#include "graphmend/rules/unused_noqa.h"
#include "graphmend/syntax/tree.h"

namespace graphmend::rules {
namespace {

struct Read {
  std::string text;
  syntax::Tree tree;
  Suppressions suppressions;
};

Read read(std::string text) {
  syntax::Parser parser;
  auto tree = parser.parse(text);
  Suppressions s = Suppressions::read(text, tree->root(), source::LineIndex(text));
  return {std::move(text), std::move(*tree), std::move(s)};
}

TEST(Suppression, ExactCodesAndPrefixesOnTheCommentsLine) {
  Read r = read("a = 1\nprint(a)  # noqa: GM201\nwarn(a)  # noqa: GM2\nb = 2\n");
  EXPECT_TRUE(r.suppressions.suppresses(2, "GM201"));
  EXPECT_FALSE(r.suppressions.suppresses(2, "GM202"));
  EXPECT_TRUE(r.suppressions.suppresses(3, "GM203"));
  EXPECT_FALSE(r.suppressions.suppresses(3, "GM101"));
  EXPECT_FALSE(r.suppressions.suppresses(4, "GM201"));
  EXPECT_FALSE(r.suppressions.suppresses(1, "GM201"));
}

TEST(Suppression, BlanketNoqaCoversEveryCode) {
  Read r = read("print(1)  # NOQA\n");
  EXPECT_TRUE(r.suppressions.suppresses(1, "GM201"));
  EXPECT_TRUE(r.suppressions.suppresses(1, "GM401"));
}

TEST(Suppression, TheWordNoqaInProseOrInAStringIsNoDirective) {
  Read r = read("x = '#noqa'  # TODO: fix without noqa\ny = \"# noqa: GM203\"\nz = 1  # noqa-ish\n");
  EXPECT_TRUE(r.suppressions.directives().empty());
  EXPECT_FALSE(r.suppressions.suppresses(1, "GM401"));
  EXPECT_FALSE(r.suppressions.suppresses(2, "GM203"));
}

TEST(Suppression, DirectiveAfterAnotherCommentAndBracketForm) {
  Read r = read("a = f()  # type: ignore  # noqa: GM401\nb = g()  # graphmend: ignore[GM402, GM403]\n");
  EXPECT_TRUE(r.suppressions.suppresses(1, "GM401"));
  EXPECT_TRUE(r.suppressions.suppresses(2, "GM403"));
  EXPECT_FALSE(r.suppressions.suppresses(2, "GM404"));
}

TEST(Suppression, DirectiveAfterAHashInAStringOnTheSameLine) {
  Read r = read("x = '#' + \"#\"; print(x)  # noqa: GM201\ny = '#'\nprint(y)  # noqa: GM202\n");
  EXPECT_TRUE(r.suppressions.suppresses(1, "GM201"));
  EXPECT_FALSE(r.suppressions.suppresses(2, "GM202"));
  EXPECT_TRUE(r.suppressions.suppresses(3, "GM202"));
}

TEST(Suppression, IgnoreFileComment) {
  EXPECT_TRUE(read("# graphmend: ignore-file\nimport torch\n").suppressions.file_ignored());
  EXPECT_FALSE(read("import torch  # graphmend: ignore-file-ish\n").suppressions.file_ignored());
  EXPECT_FALSE(read("s = '# graphmend: ignore-file'\n").suppressions.file_ignored());
}

TEST(Suppression, LinesCountCrlfAndLoneCr) {
  Read crlf = read("a = 1\r\nb = 2\r\nprint(b)  # noqa: GM201\r\n");
  EXPECT_TRUE(crlf.suppressions.suppresses(3, "GM201"));
  Read cr = read("a = 1\rb = 2\rprint(b)  # noqa: GM201\r");
  EXPECT_TRUE(cr.suppressions.suppresses(3, "GM201"));
}

TEST(Suppression, UnknownGraphmendCodes) {
  EXPECT_TRUE(is_unknown_graphmend_code("GM999"));
  EXPECT_TRUE(is_unknown_graphmend_code("GM7"));
  EXPECT_FALSE(is_unknown_graphmend_code("GM2"));
  EXPECT_FALSE(is_unknown_graphmend_code("GM201"));
  EXPECT_FALSE(is_unknown_graphmend_code("E501"));  // another tool's
}

std::string fixed(const std::string& text, const source::Fix& fix) {
  return fix::apply_fixes(text, std::vector<const source::Fix*>{&fix}).text;
}

TEST(UnusedNoqa, ReportsUnusedAndUnknownCodesAndRemovesThem) {
  Read r = read("a = 1  # noqa: GM201\nb = 2  # noqa: GM201, E501\nc = 3  # noqa: GM999\nd = 4  # noqa\n");
  Selection all;
  const auto found = unused_suppressions(r.suppressions, r.text, all);
  ASSERT_EQ(found.size(), 3u);  // the blanket noqa may serve another linter
  EXPECT_EQ(found[0].rule, &kUnusedNoqaInfo);
  EXPECT_NE(found[0].message.find("unused: GM201"), std::string::npos);
  EXPECT_NE(found[2].message.find("unknown: GM999"), std::string::npos);
  EXPECT_EQ(fixed(r.text, *found[0].fix).substr(0, 6), "a = 1\n");
  EXPECT_NE(fixed(r.text, *found[1].fix).find("b = 2  # noqa: E501\n"), std::string::npos);
}

TEST(UnusedNoqa, UsedCodesAndCodesOfRulesThatDidNotRunAreLeftAlone) {
  Read r = read("print(1)  # noqa: GM201\nx = 1  # noqa: GM101\n");
  ASSERT_TRUE(r.suppressions.suppresses(1, "GM201"));
  Selection only_gm2;
  only_gm2.select = {"GM2"};
  EXPECT_TRUE(unused_suppressions(r.suppressions, r.text, only_gm2).empty());
}

TEST(Selection, OptInRulesRunOnlyWhenNamed) {
  Selection defaults;
  EXPECT_TRUE(defaults.enabled("GM201"));
  EXPECT_FALSE(defaults.enabled("GM903"));
  Selection extended;
  extended.extend_select = {"GM903"};
  EXPECT_TRUE(extended.enabled("GM903"));
  EXPECT_TRUE(extended.enabled("GM101"));
  Selection all;
  all.select = {"ALL"};
  all.ignore = {"GM1"};
  EXPECT_TRUE(all.enabled("GM903"));
  EXPECT_FALSE(all.enabled("GM101"));
  Selection by_name;
  by_name.select = {"print-in-graph"};
  EXPECT_TRUE(by_name.enabled("GM201"));
  EXPECT_FALSE(by_name.enabled("GM202"));
}

TEST(Selection, ValidSelectors) {
  EXPECT_TRUE(valid_selector("GM2"));
  EXPECT_TRUE(valid_selector("GM903"));
  EXPECT_TRUE(valid_selector("ALL"));
  EXPECT_TRUE(valid_selector("unused-noqa"));
  EXPECT_FALSE(valid_selector("GM999"));
  EXPECT_FALSE(valid_selector("E501"));
}

}  // namespace
}  // namespace graphmend::rules
