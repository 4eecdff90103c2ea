#include <gtest/gtest.h>

#include <cstring>

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

TEST(ApplyAndVerify, RevertsAnOutputThatOnlyCPythonRejects) {
  // A fix that leaves an indented line where no block opens: tree-sitter parses it without an
  // error node, CPython's tokenizer rejects it (IndentationError). It must be reverted.
  syntax::Parser parser;
  const std::string text = "def f(x):\n    y = x + 1\n    return y\n";
  Fix unindent_def{{Edit::replace({0, 10}, "")}};  // drops `def f(x):\n`, leaving the body indented
  auto r = fix::apply_and_verify(text, {&unindent_def}, parser);
  EXPECT_TRUE(r.reverted);
  EXPECT_EQ(r.applied.text, text);
}

TEST(ApplyAndVerify, ABlockMaintenanceThatWouldCutAHelperBodyIsReverted) {
  // Found by the fuzzer (tests/fuzz/regressions/block_end_inside_helper.py): the end marker of a
  // generated block sits inside a helper's body, whose further lines follow it. Removing the
  // block (no site uses it) would leave those lines dangling.
  syntax::Parser parser;
  const std::string text =
      "import sys\n\n"
      "# graphmend: begin generated code (`graphmend fix` maintains it; do not edit)\n"
      "_graphmend = __import__(\"_graphmend_runtime\", globals(), level=1).bind(globals())\n\n\n"
      "def _graphmend_print_f_0(a0):\n"
      "    print(a0)\n\n\n"
      "# graphmend: end generated code\n"
      "    print(sys.argv)\n";
  auto r = fix::apply_and_verify(text, {}, parser);
  EXPECT_EQ(r.applied.text, text);
}

TEST(ApplyAndVerify, ADamagedBlockIsLeftAsItIsAndAHelperForItIsReverted) {
  // Found by the fuzzer (tests/fuzz/regressions/mangled_block_markers.py): with two begin markers
  // and one end marker, each run cut a different stretch of text as "the block". A block whose
  // markers do not pair up is never maintained, and a fix that needs it does not go in.
  syntax::Parser parser;
  const std::string block_begin = "# graphmend: begin generated code (`graphmend fix` maintains it; do not edit)\n";
  const std::string text = "import sys\n\n" + block_begin + "_graphmend = 1\n\n\ndef user_code():\n    return 1\n\n\n" +
                           block_begin + "_graphmend = 2\n# graphmend: end generated code\n\nprint(sys.argv)\n";
  EXPECT_EQ(fix::apply_and_verify(text, {}, parser).applied.text, text);

  Fix needs_block{{Edit::replace({0, 10}, "import os")}};
  needs_block.helpers = {{"_graphmend_print_f_0", "def _graphmend_print_f_0(a0):\n    print(a0)\n"}};
  auto r = fix::apply_and_verify(text, {&needs_block}, parser);
  EXPECT_TRUE(r.reverted);
  EXPECT_EQ(r.applied.text, text);
}

TEST(ApplyAndVerify, ParsingOnceGivesWhatParsingTwiceGives) {
  // Given the input's tree, the block edits are predicted and the output parsed once; the answer
  // must be the two-parse answer in every case, the prediction's misses included.
  const std::string begin = "# graphmend: begin generated code (`graphmend fix` maintains it; do not edit)\n";
  const std::string end = "# graphmend: end generated code\n";
  const std::string binding = "_graphmend = __import__(\"_graphmend_runtime\", globals(), level=1).bind(globals())\n";
  const std::string plain = "import torch\n\n\ndef f(x):\n    print(x)\n    return x\n";
  const std::string patched = "import torch\n\n" + begin + binding + "\n\ndef _graphmend_print_0(a0):\n    print(a0)\n\n\n" +
                              end + "\n\ndef f(x):\n    _graphmend.defer(_graphmend_print_0, x)\n    return x\n";
  const source::Helper helper{"_graphmend_print_0", "def _graphmend_print_0(a0):\n    print(a0)\n"};
  const auto at = [](const std::string& text, std::string_view what) {
    const auto start = static_cast<uint32_t>(text.find(what));
    return source::TextRange{start, start + static_cast<uint32_t>(what.size())};
  };
  Fix defer{{Edit::replace(at(plain, "print(x)"), "_graphmend.defer(_graphmend_print_0, x)")}};
  defer.helpers = {helper};
  // A name in a string of the replacement: the prediction keeps a helper the code does not use.
  Fix named_in_string{{Edit::replace(at(patched, "_graphmend.defer(_graphmend_print_0, x)"), "print('_graphmend_print_0')")}};
  Fix site_gone{{Edit::replace(at(patched, "_graphmend.defer(_graphmend_print_0, x)"), "pass")}};
  Fix broken{{Edit::replace(at(plain, "return x"), "return (")}};
  Fix runtime_attr{{Edit::replace(at(plain, "print(x)"), "_graphmend.call(print)(x)")}};
  const std::vector<std::pair<std::string, std::vector<const Fix*>>> cases = {
      {plain, {&defer}},       {plain, {}},          {patched, {}},         {patched, {&named_in_string}},
      {patched, {&site_gone}}, {plain, {&broken}},   {plain, {&runtime_attr}},
      {plain, {&defer, &broken}}};
  for (const auto& [text, fixes] : cases) {
    syntax::Parser parser;
    const auto twice = fix::apply_and_verify(text, fixes, parser, fix::RuntimeLink::package(1));
    const std::optional<syntax::Tree> tree = parser.parse(text);
    const auto once = fix::apply_and_verify(text, fixes, parser, fix::RuntimeLink::package(1), tree->root());
    EXPECT_EQ(once.applied.text, twice.applied.text) << text;
    EXPECT_EQ(once.reverted, twice.reverted) << text;
    EXPECT_EQ(once.applied.applied, twice.applied.applied) << text;
    EXPECT_EQ(once.tree.has_value(), twice.tree.has_value()) << text;
    if (!once.tree || !twice.tree) continue;
    // The one parse reads only the statements the edits touch; its tree is the whole parse's.
    const auto& edited = once.tree->root().tree_data()->nodes;
    const auto& whole = twice.tree->root().tree_data()->nodes;
    ASSERT_EQ(edited.size(), whole.size()) << text;
    for (size_t i = 0; i < edited.size(); ++i) {
      EXPECT_EQ(std::memcmp(&edited[i], &whole[i], sizeof edited[i]), 0) << "node " << i << " of\n" << text;
    }
  }
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
