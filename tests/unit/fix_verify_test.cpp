#include <gtest/gtest.h>

#include "graphmend/fix/verify.h"
#include "graphmend/report/report.h"
#include "graphmend/source/text.h"

namespace graphmend {
namespace {

using source::Edit;
using source::Fix;

TEST(ApplyAndVerify, KeepsAFixThatParses) {
  syntax::Parser parser;
  const std::string text = "def f(x):\n    print(x)\n    return x\n";
  Fix fix{{Edit::replace({14, 22}, "log(x)")}};
  auto r = fix::apply_and_verify(text, {&fix}, parser);
  EXPECT_FALSE(r.reverted);
  EXPECT_EQ(r.applied.text, "def f(x):\n    log(x)\n    return x\n");
}

TEST(ApplyAndVerify, RevertsEveryEditWhenTheOutputDoesNotParse) {
  syntax::Parser parser;
  const std::string text = "def f(x):\n    y = x + 1\n    return y\n";
  Fix good{{Edit::replace({14, 15}, "z")}};
  Fix bad{{Edit::replace({31, 32}, "(")}};  // `return (` is a syntax error
  auto r = fix::apply_and_verify(text, {&good, &bad}, parser);
  EXPECT_TRUE(r.reverted);
  EXPECT_EQ(r.applied.text, text);
  EXPECT_TRUE(r.applied.applied.empty());
  EXPECT_EQ(r.applied.skipped.size(), 2u);
}

TEST(UnifiedDiff, HunksAndEmptyForEqualTexts) {
  EXPECT_EQ(report::unified_diff("a\nb\n", "a\nb\n", "m.py"), "");
  const std::string d = report::unified_diff("a\nb\nc\n", "a\nB\nc\n", "m.py");
  EXPECT_NE(d.find("--- a/m.py\n+++ b/m.py\n"), std::string::npos) << d;
  EXPECT_NE(d.find("@@ -1,3 +1,3 @@"), std::string::npos) << d;
  EXPECT_NE(d.find("-b\n+B\n"), std::string::npos) << d;
}

TEST(IndentBlock, FollowsTheFilesIndentationAndNewlines) {
  const std::string code = "if c:\n    x = 1\nelse:\n    x = 2";
  EXPECT_EQ(source::indent_block(code, "\t", "\t", source::NewlineStyle::CrLf),
            "if c:\r\n\t\tx = 1\r\n\telse:\r\n\t\tx = 2");
  EXPECT_EQ(source::indent_block(code, "  ", "  ", source::NewlineStyle::Lf),
            "if c:\n    x = 1\n  else:\n    x = 2");
  EXPECT_EQ(source::indent_block("a\n\nb", "    ", "    ", source::NewlineStyle::Lf), "a\n\n    b");
}

}  // namespace
}  // namespace graphmend
