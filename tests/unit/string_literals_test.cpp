#include "graphmend/rewrite/string_literals.h"

#include <gtest/gtest.h>

#include <string>

#include "graphmend/rewrite/python_layout.h"

namespace graphmend::rewrite {
namespace {

TEST(SplitLongLiterals, CodeWithinTheLineLengthIsUnchanged) {
  const std::string code = "print(\n    \"one two three four five six seven\",\n)";
  EXPECT_EQ(split_long_literals(code), code);
}

TEST(SplitLongLiterals, ALongLiteralInsideBracketsIsCutAtSpacesIntoAdjacentLiterals) {
  const GeneratedLineLength narrow(30);
  EXPECT_EQ(split_long_literals("print(\n    \"one two three four five six seven\",\n)"),
            "print(\n    \"one two three four five \"\n    \"six seven\",\n)");
}

TEST(SplitLongLiterals, EscapedQuotesStayInsideTheirPiece) {
  const GeneratedLineLength narrow(30);
  EXPECT_EQ(split_long_literals("f(\n    \"say \\\"hi there\\\" to everyone in the room\",\n)"),
            "f(\n    \"say \\\"hi there\\\" to \"\n    \"everyone in the room\",\n)");
}

TEST(SplitLongLiterals, EachPieceKeepsTheLiteralsPrefixAndQuote) {
  const GeneratedLineLength narrow(24);
  EXPECT_EQ(split_long_literals("f(\n    r'\\d+ aaaa bbbb cccc dddd'\n)"), "f(\n    r'\\d+ aaaa bbbb '\n    r'cccc dddd'\n)");
  EXPECT_EQ(split_long_literals("f(\n    b'aaaa bbbb cccc dddd eeee'\n)"), "f(\n    b'aaaa bbbb cccc '\n    b'dddd eeee'\n)");
}

TEST(SplitLongLiterals, AnFStringPieceWithoutAFieldBecomesAPlainLiteral) {
  const GeneratedLineLength narrow(30);
  EXPECT_EQ(split_long_literals("g(\n    f\"{{braces}} and words {x} end\"\n)"),
            "g(\n    \"{braces} and words \"\n    f\"{x} end\"\n)");
}

TEST(SplitLongLiterals, LiteralsItCannotCutStayWhole) {
  const GeneratedLineLength narrow(20);
  for (const std::string code : {
           "f(\n    \"\\N{BULLET} aaaa bbbb cccc dddd\",\n)",   // a named escape
           "f(\n    \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\",\n)",     // no space to cut at
           "f(\n    \"aaaa bbbb cccc dddd eeee\" + x,\n)",       // more than a literal on the line
           "x = \"aaaa bbbb cccc dddd eeee ffff\"",             // not inside brackets
           "f(\n    \"aaaa bbbb cccc dddd eeee\",\n    \"\"\"doc\"\"\",\n)",  // a triple-quoted string
       }) {
    EXPECT_EQ(split_long_literals(code), code) << code;
  }
}

TEST(JoinedStringRuns, AdjacentLiteralsOverLinesBecomeOne) {
  EXPECT_EQ(joined_string_runs("f(\n    \"abc \"\n    \"def\"\n)"), "f(\n    \"abc def\"\n)");
}

TEST(JoinedStringRuns, APlainPartJoiningAnFStringHasItsBracesDoubled) {
  EXPECT_EQ(joined_string_runs("f(f\"{x} \" \"{y}\")"), "f(f\"{x} {{y}}\")");
}

TEST(JoinedStringRuns, NothingToJoinGivesNothing) {
  EXPECT_EQ(joined_string_runs("print(\"a\", \"b\")"), std::nullopt);
  EXPECT_EQ(joined_string_runs("print(\"a\" 'b')"), std::nullopt);  // different quotes
}

TEST(JoinedStringRuns, CodeWithALiteralItDoesNotJoinIsLeftAlone) {
  EXPECT_EQ(joined_string_runs("f(r\"a\" \"b\")"), std::nullopt);   // raw
  EXPECT_EQ(joined_string_runs("f(b\"a\" b\"b\")"), std::nullopt);  // bytes
  EXPECT_EQ(joined_string_runs("f(f\"{x}\" \"\\N{BULLET}\")"), std::nullopt);  // a named escape's braces
}

}  // namespace
}  // namespace graphmend::rewrite
