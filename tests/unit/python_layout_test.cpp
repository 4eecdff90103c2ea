#include "graphmend/rewrite/python_layout.h"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace graphmend::rewrite {
namespace {

using Lines = std::vector<std::string>;
using Pieces = std::vector<std::string_view>;

std::string wrapped(std::string_view line, bool inside_brackets = false) {
  return wrapped_line(line, "", "    ", "\n", inside_brackets);
}

TEST(GeneratedLineLength, DefaultsToTheFormattersEightyEight) { EXPECT_EQ(generated_line_length(), 88u); }

TEST(GeneratedLineLength, AGuardSetsTheLengthForItsLifetimeAndRestoresThePrevious) {
  {
    const GeneratedLineLength outer(100);
    EXPECT_EQ(generated_line_length(), 100u);
    {
      const GeneratedLineLength inner(40);
      EXPECT_EQ(generated_line_length(), 40u);
    }
    EXPECT_EQ(generated_line_length(), 100u);
  }
  EXPECT_EQ(generated_line_length(), 88u);
}

// Columns as ruff counts them (its unicode-width): what a line is measured by against the length.
TEST(DisplayWidth, CountsColumnsNotBytes) {
  EXPECT_EQ(display_width("x = f(a, b)"), 11u);
  EXPECT_EQ(display_width("\xe2\x80\x94"), 1u);                    // "—": three bytes, one column
  EXPECT_EQ(display_width("\xe4\xb8\xad\xe6\x96\x87"), 4u);        // "中文": wide, two columns each
  EXPECT_EQ(display_width("e\xcc\x81"), 1u);                       // "e" and a combining acute accent
  EXPECT_EQ(display_width("a\xe2\x80\x8b" "b"), 2u);                // a zero-width space between
  EXPECT_EQ(display_width("\xf0\x9f\x98\x80"), 2u);                // an emoji
  EXPECT_EQ(display_width("\xff\xfe" "ab"), 4u);                     // not UTF-8: a byte a column
  EXPECT_EQ(display_width("\xf0\x9f\xab\xa8"), 2u);                // an emoji newer than some glibc's tables
  EXPECT_EQ(display_width("\t\xe2\x80\x94"), display_width("\t-"));  // a tab: one column either way
}

TEST(DisplayWidth, AWrappedLineFitsByColumns) {
  const GeneratedLineLength length(20);
  // 20 columns in 36 bytes: it stays on its line.
  const std::string fits = "x = f(\"\xe2\x80\x94\xe2\x80\x94\xe2\x80\x94\xe2\x80\x94\xe2\x80\x94\xe2\x80\x94\xe2\x80\x94\xe2\x80\x94\", a)";
  ASSERT_EQ(display_width(fits), 20u);
  EXPECT_EQ(wrapped(fits), fits);
}

TEST(GeneratedLineLength, IsTheSettingOfTheThreadThatSetsIt) {
  const GeneratedLineLength here(40);
  size_t elsewhere = 0;
  std::thread([&] { elsewhere = generated_line_length(); }).join();
  EXPECT_EQ(elsewhere, 88u);
  EXPECT_EQ(generated_line_length(), 40u);
}

TEST(TopLevelSplit, SplitsOnlyOutsideBracketsAndStrings) {
  EXPECT_EQ(top_level_split(R"("a, b", (c, d), [e, f], g)", ","), (Pieces{R"("a, b")", " (c, d)", " [e, f]", " g"}));
  EXPECT_EQ(top_level_split(R"('it\'s, ok', x)", ","), (Pieces{R"('it\'s, ok')", " x"}));
  EXPECT_EQ(top_level_split("a and (b and c) and d", " and "), (Pieces{"a", "(b and c)", "d"}));
  EXPECT_EQ(top_level_split("no separator", ","), (Pieces{"no separator"}));
}

TEST(TopLevelSplit, GivesNothingForAnOpenBracketOrStringOrATripleQuotedString) {
  EXPECT_TRUE(top_level_split("f(a, b", ",").empty());
  EXPECT_TRUE(top_level_split("'a, b", ",").empty());
  EXPECT_TRUE(top_level_split(R"("""a""", b)", ",").empty());
}

TEST(WrappedLine, ALineThatFitsIsOnlyIndented) {
  EXPECT_EQ(wrapped_line("y = f(a, b)", "    ", "    ", "\n"), "    y = f(a, b)");
}

TEST(WrappedLine, TheLineLengthSettingDecidesWhatFits) {
  const std::string_view line = "result = compute(alpha, beta, gamma)";  // 36 columns
  EXPECT_EQ(wrapped(line), line);
  const GeneratedLineLength narrow(30);
  EXPECT_NE(wrapped(line), line);
}

TEST(WrappedLine, ALongCallPutsItsArgumentsOnALineOfTheirOwn) {
  const GeneratedLineLength narrow(30);
  EXPECT_EQ(wrapped("result = compute(alpha, beta, gamma)"), "result = compute(\n    alpha, beta, gamma\n)");
}

TEST(WrappedLine, ArgumentsTooLongForOneLineGoOnePerLineWithATrailingComma) {
  const GeneratedLineLength narrow(20);
  EXPECT_EQ(wrapped("result = compute(alpha, beta, gamma)"), "result = compute(\n    alpha,\n    beta,\n    gamma,\n)");
}

TEST(WrappedLine, NestedCallsSplitFromTheOutsideIn) {
  {
    const GeneratedLineLength length(24);
    EXPECT_EQ(wrapped("y = outer(inner(aaaa, bbbb), cccc)"), "y = outer(\n    inner(aaaa, bbbb),\n    cccc,\n)");
  }
  const GeneratedLineLength length(20);
  EXPECT_EQ(wrapped("y = outer(inner(aaaa, bbbb), cccc)"),
            "y = outer(\n    inner(\n        aaaa, bbbb\n    ),\n    cccc,\n)");
}

TEST(WrappedLine, AStringHoldingCommasStaysWhole) {
  const GeneratedLineLength narrow(16);
  EXPECT_EQ(wrapped(R"(y = f("a, b, c, d", e))"), "y = f(\n    \"a, b, c, d\",\n    e,\n)");
}

TEST(WrappedLine, InsideBracketsAnOperandBreaksBeforeOrThenBeforeAnd) {
  const std::string_view operand = "aaaa and bbbb or cccc and dddd";
  {
    const GeneratedLineLength length(20);
    EXPECT_EQ(wrapped_line(operand, "    ", "    ", "\n", true), "    aaaa and bbbb\n    or cccc and dddd");
  }
  const GeneratedLineLength length(16);
  EXPECT_EQ(wrapped_line(operand, "    ", "    ", "\n", true), "    aaaa\n    and bbbb\n    or cccc\n    and dddd");
  // Outside brackets a line break between operands would end the statement.
  EXPECT_EQ(wrapped_line(operand, "    ", "    ", "\n"), std::string("    ") + std::string(operand));
}

TEST(WrappedLine, AnIfConditionGoesInParenthesesOneOperandALine) {
  const GeneratedLineLength narrow(20);
  EXPECT_EQ(wrapped("if aaaa and bbbb and cccc:"), "if (\n    aaaa\n    and bbbb\n    and cccc\n):");
}

TEST(WrappedLine, AnAssignedValueThatFitsOnALineOfItsOwnIsParenthesized) {
  const GeneratedLineLength narrow(20);
  EXPECT_EQ(wrapped("name = aaaa.bbbb.cccc"), "name = (\n    aaaa.bbbb.cccc\n)");
}

TEST(WrappedLine, UsesTheFilesLineBreakAndIndentationStep) {
  const GeneratedLineLength narrow(30);
  EXPECT_EQ(wrapped_line("result = compute(alpha, beta, gamma)", "", "\t", "\r\n"),
            "result = compute(\r\n\talpha, beta, gamma\r\n)");
}

TEST(LayOut, ACallSplitsItsArgumentsAtTheLineLength) {
  const LayoutExpr where = LayoutExpr::call(
      "torch.where", {LayoutExpr::atom("cond"), LayoutExpr::atom("a"), LayoutExpr::atom("b")});
  EXPECT_EQ(lay_out("", "y = ", where, "", "    "), (Lines{"y = torch.where(cond, a, b)"}));
  const GeneratedLineLength narrow(20);
  EXPECT_EQ(lay_out("", "y = ", where, "", "    "), (Lines{"y = torch.where(", "    cond, a, b", ")"}));
}

TEST(LayOut, AHeaderTooLongPutsItsConditionInParenthesesOneOperandALine) {
  const LayoutExpr chain =
      LayoutExpr::chain("and", {LayoutExpr::atom("aaaa"), LayoutExpr::atom("bbbb"), LayoutExpr::atom("cccc")});
  EXPECT_EQ(lay_out_header("", "if ", chain, ":", "    "), (Lines{"if aaaa and bbbb and cccc:"}));
  const GeneratedLineLength narrow(20);
  EXPECT_EQ(lay_out_header("", "if ", chain, ":", "    "),
            (Lines{"if (", "    aaaa", "    and bbbb", "    and cccc", "):"}));
}

}  // namespace
}  // namespace graphmend::rewrite
