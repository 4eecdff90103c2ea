#include "graphmend/rewrite/compiled_code.h"

#include <gtest/gtest.h>

#include <string>

#include "graphmend/rewrite/python_layout.h"
#include "test_support.h"

namespace graphmend::rewrite {
namespace {

using testing::find_node;
using testing::parse_module;

// Compiled code as the tests write it: '|' for kIndentStep, '~' for kRawNewline.
std::string visible(std::string code) {
  for (char& c : code) {
    if (c == kIndentStep) c = '|';
    if (c == kRawNewline) c = '~';
  }
  return code;
}

TEST(CompiledCode, EachLineIsIndentedByItsLevel) {
  CompiledCode code;
  code.line("a = 1");
  code.level = 2;
  code.line("b = 2");
  code.level = 0;
  code.line("c = 3");
  EXPECT_EQ(visible(code.text), "a = 1\n||b = 2\nc = 3");
}

TEST(WithRawNewlines, EveryLineBreakStyleBecomesOneRawNewline) {
  EXPECT_EQ(visible(with_raw_newlines("a\r\nb\nc\rd")), "a~b~c~d");
}

TEST(Copied, KeepsANodesOwnLineBreaksAsTheyAre) {
  auto p = parse_module("y = f(a,\n      b)\n");
  EXPECT_EQ(visible(copied(*p.module, find_node(*p.module, "call"))), "f(a,~      b)");
}

TEST(Reindented, LaterLinesKeepTheirIndentationRelativeToTheFirst) {
  auto p = parse_module(
      "def f():\n"
      "    y = g(a,\n"
      "          b)\n");
  const ir::Node call = find_node(*p.module, "call");
  EXPECT_EQ(visible(reindented(*p.module, call, 0)), "g(a,\n      b)");
  EXPECT_EQ(visible(reindented(*p.module, call, 2)), "g(a,\n||      b)");
}

TEST(Reindented, LinesInsideAMultiLineStringStayByteForByte) {
  auto p = parse_module(
      "def f():\n"
      "    y = g(\"\"\"x\n"
      "  y\"\"\", b)\n");
  EXPECT_EQ(visible(reindented(*p.module, find_node(*p.module, "call"), 1)), "g(\"\"\"x~  y\"\"\", b)");
}

TEST(RenderCode, LinesAfterTheFirstStartAtTheBranchIndentationPlusTheirSteps) {
  EXPECT_EQ(render_code("a = 1\nb = 2\n\x03" "c = 3", "\n", "    ", "  "), "a = 1\n    b = 2\n      c = 3");
}

TEST(RenderCode, CopiedLineBreaksAreWrittenInTheFilesStyle) {
  EXPECT_EQ(render_code("x = f(a,\x04      b)", "\r\n", "    ", "    "), "x = f(a,\r\n      b)");
}

TEST(RenderCode, ALongGeneratedLineIsWrappedAtTheLineLength) {
  const std::string code = "y = compute(alpha, beta)";
  EXPECT_EQ(render_code(code, "\n", "    ", "    "), code);
  const GeneratedLineLength narrow(20);
  EXPECT_EQ(render_code(code, "\n", "    ", "    "), "y = compute(\n        alpha, beta\n    )");
}

TEST(MultilineStringsIn, FindsOnlyStringsThatSpanLines) {
  auto p = parse_module("f('a', \"\"\"b\nc\"\"\", 'd')\n");
  const std::vector<source::TextRange> strings = multiline_strings_in(*p.module, p.module->root());
  ASSERT_EQ(strings.size(), 1u);
  EXPECT_EQ(p.module->text().substr(strings[0].start, strings[0].end - strings[0].start), "\"\"\"b\nc\"\"\"");
  EXPECT_TRUE(inside_any(strings, strings[0].start + 1));
  EXPECT_FALSE(inside_any(strings, strings[0].start));  // the ends are not inside
  EXPECT_FALSE(inside_any(strings, strings[0].end));
}

}  // namespace
}  // namespace graphmend::rewrite
