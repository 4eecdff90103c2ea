#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <variant>

#include "graphmend/source/generated.h"
#include "graphmend/source/source_file.h"
#include "graphmend/source/text.h"
#include "graphmend/syntax/tree.h"

namespace graphmend::source {
namespace {

// The server takes a file's earlier parse when its bytes are the earlier text: sound only where
// decoding left the bytes as they were, so that the same bytes decode to the same text.
TEST(Decode, TextIsTheBytesUnlessABomOrACrWasTakenOrItIsANotebook) {
  const auto decoded = [](std::string bytes, const char* name = "m.py") {
    return std::get<source::SourceFile>(source::decode_source(std::move(bytes), name, name));
  };
  EXPECT_TRUE(source::text_is_bytes(decoded("x = 1\n")));
  EXPECT_TRUE(source::text_is_bytes(decoded("x = 1\r\ny = 2\r\n")));  // CRLF kept as it is
  EXPECT_TRUE(source::text_is_bytes(decoded("# -*- coding: latin-1 -*-\nx = 1\n")));  // ASCII read as itself
  EXPECT_FALSE(source::text_is_bytes(decoded("\xEF\xBB\xBFx = 1\n")));
  EXPECT_FALSE(source::text_is_bytes(decoded("x = 1\ry = 2\r")));
  EXPECT_FALSE(source::text_is_bytes(decoded("x = 1\ny = 2\rz = 3\n")));
  EXPECT_FALSE(source::text_is_bytes(decoded(R"({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})",
                                             "n.ipynb")));
  for (const char* text : {"x = 1\n", "x = 1\r\ny = 2\r\n", "# -*- coding: latin-1 -*-\nx = 1\n"}) {
    EXPECT_EQ(decoded(text).text, text);
  }
}

TEST(ReadBytes, ARegularFileWithinTheLimit) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "graphmend_read_bytes_test.py";
  { std::ofstream(path, std::ios::binary) << "x = 1\r\n"; }
  EXPECT_EQ(source::read_bytes(path, 100), std::optional<std::string>("x = 1\r\n"));
  EXPECT_EQ(source::read_bytes(path, 6), std::nullopt);  // over the limit
  EXPECT_EQ(source::read_bytes(path.parent_path(), 1 << 20), std::nullopt);  // a folder
  std::filesystem::remove(path);
  EXPECT_EQ(source::read_bytes(path, 100), std::nullopt);
}

TEST(LineIndex, LinesColumnsAndCodePoints) {
  const std::string text = "a = 1\r\nbé = 2\rc\n";
  LineIndex idx(text);
  EXPECT_EQ(idx.line_count(), 4u);
  EXPECT_EQ(idx.location(text, 0), (LineColumn{1, 1}));
  EXPECT_EQ(idx.location(text, 7), (LineColumn{2, 1}));
  EXPECT_EQ(idx.location(text, 10), (LineColumn{2, 3}));  // after the 2-byte 'é'
  EXPECT_EQ(idx.line_text(text, 1), "a = 1");
  EXPECT_EQ(idx.line_text(text, 3), "c");
}

TEST(LineIndex, OnlyLineFeeds) {
  const std::string text = "a\n\nbc\nd";
  LineIndex idx(text);
  EXPECT_EQ(idx.line_count(), 4u);
  EXPECT_EQ(idx.line_of(2), 2u);
  EXPECT_EQ(idx.line_of(3), 3u);
  EXPECT_EQ(idx.line_text(text, 4), "d");
  EXPECT_EQ(detect_newline(text), NewlineStyle::Lf);
  EXPECT_EQ(detect_newline("a\rb\rc\n"), NewlineStyle::Cr);
  EXPECT_EQ(detect_newline(""), NewlineStyle::Lf);
}

TEST(Decode, BomNewlineStyleAndUtf8) {
  auto r = decode_source("\xEF\xBB\xBFx = 1\r\ny = 2\r\n", "f.py", "f.py");
  ASSERT_TRUE(std::holds_alternative<SourceFile>(r));
  const auto& f = std::get<SourceFile>(r);
  EXPECT_TRUE(f.has_bom);
  EXPECT_EQ(f.text, "x = 1\r\ny = 2\r\n");
  EXPECT_EQ(f.newline, NewlineStyle::CrLf);
  EXPECT_EQ(encode_for_write(f, f.text), "\xEF\xBB\xBFx = 1\r\ny = 2\r\n");
}

TEST(Decode, InvalidUtf8Forms) {
  EXPECT_EQ(find_invalid_utf8("ok \xC3\xA9"), std::nullopt);
  EXPECT_EQ(find_invalid_utf8("\xC0\x80"), 0u);          // overlong NUL
  EXPECT_EQ(find_invalid_utf8("ab\xED\xA0\x80"), 2u);    // surrogate
  EXPECT_EQ(find_invalid_utf8("abc\xE2\x82"), 3u);       // truncated
  EXPECT_EQ(find_invalid_utf8("\xF4\x90\x80\x80"), 0u);  // > U+10FFFF
  // Past runs of ASCII read eight bytes at a time, and characters across those words.
  EXPECT_EQ(find_invalid_utf8("0123456789abcdef\xFFxyz"), 16u);
  EXPECT_EQ(find_invalid_utf8("0123456\xC3\xA9" "789abcdefghij\x80"), 22u);
  EXPECT_EQ(find_invalid_utf8("0123456\xE2\x82\xAC" "9abcdefghijklmnop"), std::nullopt);
}

TEST(Decode, AsciiFileWithLatin1DeclarationIsAccepted) {
  auto r = decode_source("# -*- coding: latin-1 -*-\nx = 1\n", "f.py", "f.py");
  EXPECT_TRUE(std::holds_alternative<SourceFile>(r));
}

// The declaration PEP 263 reads, when the file is not pure ASCII (else the error names it).
std::string declared_by(const std::string& text) {
  auto r = decode_source(text + "name = 'caf\xe9'\n", "f.py", "f.py");
  const auto* err = std::get_if<ReadError>(&r);
  if (!err || err->kind != ReadErrorKind::UnsupportedEncoding) return "";
  const size_t open = err->message.find('\'');
  return err->message.substr(open + 1, err->message.find('\'', open + 1) - open - 1);
}

TEST(Decode, CodingDeclarationForms) {
  EXPECT_EQ(declared_by("# -*- coding: Latin-1 -*-\n"), "latin-1");
  EXPECT_EQ(declared_by("#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\n"), "cp1252");
  EXPECT_EQ(declared_by("\t# coding=iso8859_15\n"), "iso8859_15");
  EXPECT_EQ(declared_by("# the coding is: latin-1\n"), "") << "`coding` must be followed by : or =";
  EXPECT_EQ(declared_by("# coding: \n"), "") << "an empty name declares nothing";
  EXPECT_EQ(declared_by("x = 1  # coding: latin-1\n"), "") << "only a comment line declares";
  EXPECT_EQ(declared_by("import os\n# coding: latin-1\n"), "") << "the second line only after a comment";
  EXPECT_EQ(declared_by("#\n#\n# coding: latin-1\n"), "") << "only the first two lines";
}

TEST(Decode, VeryLongFirstCommentLineIsFine) {
  // std::regex overflowed the stack here (a 50,000-character first line).
  const std::string text = "#" + std::string(200000, 'c') + " coding\nx = 1\n";
  auto r = decode_source(text, "f.py", "f.py");
  EXPECT_TRUE(std::holds_alternative<SourceFile>(r));
}

TEST(Indentation, TabsAndSpaces) {
  const std::string text = "def f():\n\tif x:\n\t    y = 1\n";
  EXPECT_EQ(indentation_at(text, static_cast<uint32_t>(text.find("y ="))), "\t    ");
}

// The generated block's marker lines: graphmend maintains a block only when they pair up exactly.
constexpr std::string_view kBegin = "# graphmend: begin generated code (`graphmend fix` maintains it; do not edit)\n";
constexpr std::string_view kEnd = "# graphmend: end generated code\n";

std::string joined(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out += p;
  return out;
}

TEST(GeneratedMarkers, OneBeginThenOneEndIsTheBlock) {
  const std::string text = joined({"import torch\n\n", kBegin, "_graphmend = 1\n", kEnd, "\nx = 1\n"});
  const GeneratedMarkers m = scan_generated_markers(text);
  ASSERT_TRUE(m.block);
  EXPECT_FALSE(m.damage);
  EXPECT_FALSE(m.block->legacy);
  EXPECT_EQ(m.block->range.start, text.find("# graphmend: begin"));
  EXPECT_EQ(m.block->range.end, text.find(kEnd) + kEnd.size() - 1);  // its newline excluded

  const std::string crlf = "import torch\r\n# graphmend: begin generated code (`graphmend fix` maintains it; do "
                           "not edit)\r\n_graphmend = 1\r\n# graphmend: end generated code\r\n";
  EXPECT_TRUE(scan_generated_markers(crlf).block);
}

TEST(GeneratedMarkers, NoMarkerLinesIsNoBlockAndNoDamage) {
  // A marker's words elsewhere than at the start of a line are no marker.
  const std::string text = "def f():\n    # graphmend: end generated code\n    s = '# graphmend: begin generated'\n";
  const GeneratedMarkers m = scan_generated_markers(text);
  EXPECT_FALSE(m.block);
  EXPECT_FALSE(m.damage);
}

TEST(GeneratedMarkers, AlteredRepeatedOrUnpairedMarkersAreDamageAndNoBlock) {
  struct Case {
    std::string text;
    std::string_view damage;
    std::string_view at;  // the line the damage points to
  };
  const std::string block = joined({kBegin, "_graphmend = 1\n", kEnd});
  const std::vector<Case> cases = {
      {joined({kBegin, "x = 1\n", "# graphmend: end generated codeX\n"}), "a marker line was altered",
       "# graphmend: end generated codeX"},
      {joined({"# graphmend: begin generated code\n", "x = 1\n", kEnd}), "a marker line was altered",
       "# graphmend: begin generated code\n"},
      {block + "x = 1\n" + block, "it has 2 begin and 2 end markers, where one of each belongs", kBegin},
      {joined({"x = 1\n", kBegin, "y = 2\n"}), "it has 1 begin and 0 end markers, where one of each belongs", kBegin},
      {joined({"x = 1\n", kEnd}), "it has 0 begin and 1 end markers, where one of each belongs", kEnd},
      {joined({kEnd, "x = 1\n", kBegin}), "its end marker comes before its begin marker", kEnd},
      {joined({kLegacyGeneratedBegin, "\nx = 1\n", kEnd}), "it mixes graphmend 0.1's markers with the current ones",
       kLegacyGeneratedBegin},
  };
  for (const Case& c : cases) {
    const GeneratedMarkers m = scan_generated_markers(c.text);
    EXPECT_FALSE(m.block) << c.text;
    ASSERT_TRUE(m.damage) << c.text;
    EXPECT_EQ(*m.damage, c.damage) << c.text;
    EXPECT_EQ(m.damage_at, c.text.find(c.at)) << c.text;
    EXPECT_FALSE(find_generated_block(c.text)) << c.text;
  }
}

// With no marker line, the block is the runtime's binding line alone, at any package level; the
// same line inside a marked block is that block's own.
TEST(GeneratedMarkers, TheBindingLineAloneIsTheBlock) {
  const std::string binding = "_graphmend = __import__(\"_graphmend_runtime\", globals(), level=12).bind(globals())";
  const std::string text = "import torch\n\n" + binding + "\r\n\nx = 1\n";
  const GeneratedMarkers m = scan_generated_markers(text);
  ASSERT_TRUE(m.block);
  EXPECT_FALSE(m.damage);
  EXPECT_EQ(m.binding_line(), text.find(binding));
  EXPECT_EQ(m.block->range, (TextRange{static_cast<uint32_t>(text.find(binding)),
                                       static_cast<uint32_t>(text.find(binding) + binding.size())}));

  const std::string marked = joined({"import torch\n", kBegin, binding, "\n", kEnd});
  const GeneratedMarkers in_block = scan_generated_markers(marked);
  ASSERT_TRUE(in_block.block);
  EXPECT_FALSE(in_block.binding_line());
  EXPECT_EQ(in_block.block->range.start, marked.find(kBegin));

  // Not at the start of a line: no binding line.
  EXPECT_FALSE(scan_generated_markers("x = 1; " + binding + "\n").block);
}

TEST(GeneratedMarkers, ARepeatedAlteredOrStrayBindingLineIsDamage) {
  const std::string binding = "_graphmend = __import__(\"_graphmend_runtime\", globals(), level=1).bind(globals())\n";
  struct Case {
    std::string text;
    std::string_view damage;
  };
  const std::vector<Case> cases = {
      {"x = 1\n" + binding + binding, "the runtime binding line appears 2 times, where one belongs"},
      {"x = 1\n_graphmend = __import__(\"_graphmend_runtime\", globals(), level=one).bind(globals())\n",
       "the runtime binding line was altered"},
      {"x = 1\n_graphmend = __import__(\"_graphmend_runtime\", globals(), level=1).bind(globals())  # mine\n",
       "the runtime binding line was altered"},
      {joined({"x = 1\n", kBegin, binding, kEnd, "\n", binding}), "a runtime binding line lies outside its block"},
  };
  for (const Case& c : cases) {
    const GeneratedMarkers m = scan_generated_markers(c.text);
    EXPECT_FALSE(m.block) << c.text;
    ASSERT_TRUE(m.damage) << c.text;
    EXPECT_EQ(*m.damage, c.damage) << c.text;
    EXPECT_EQ(c.text.substr(m.damage_at, 10), "_graphmend") << c.text;
  }
}

TEST(GeneratedMarkers, Graphmend01BlockIsFoundAsLegacy) {
  const std::string text = joined({"import torch\n", kLegacyGeneratedBegin, "\nx = 1\n", kLegacyGeneratedEnd, "\n"});
  const GeneratedMarkers m = scan_generated_markers(text);
  ASSERT_TRUE(m.block);
  EXPECT_TRUE(m.block->legacy);
  EXPECT_FALSE(m.damage);
}

// The top-level statements of `text`, as the fix stage passes them.
std::vector<TextRange> statements_of(const std::string& text) {
  static syntax::Parser parser;
  const std::optional<syntax::Tree> tree = parser.parse(text);
  return syntax::top_level_statements(tree->root());
}

TEST(GeneratedHelpers, AHelperIsReadBackWholeWhateverItsStringsHoldAtColumnZero) {
  const std::string helper_a = "def _graphmend_print_0(a0):\n    print(f\"\"\"value:\n{a0}\n\"\"\", end=\"\")\n";
  const std::string helper_b = "@_graphmend.deferred\ndef _graphmend_log_1(a0):\n    logger.info(a0)\n";
  const std::string text = joined({"import torch\n\n", kGeneratedBegin, "\n_graphmend = 1\n\n\n", helper_a, "\n\n",
                                   helper_b, "\n\n", kGeneratedEnd, "\n\n\ndef _graphmend_user():\n    pass\n"});
  const GeneratedMarkers m = scan_generated_markers(text);
  ASSERT_TRUE(m.block);
  const std::vector<Helper> helpers = generated_helpers(text, *m.block, statements_of(text));
  ASSERT_EQ(helpers.size(), 2u);  // the function after the end marker is not the block's
  EXPECT_EQ(helpers[0].name, "_graphmend_print_0");
  EXPECT_EQ(helpers[0].code, helper_a);
  EXPECT_EQ(helpers[1].name, "_graphmend_log_1");
  EXPECT_EQ(helpers[1].code, helper_b);
}

TEST(GeneratedHelpers, Graphmend01BlocksYieldOnlyTheirSiteFunctions) {
  const std::string text = joined({kLegacyGeneratedBegin, "\ndef _graphmend_runtime_part():\n    pass\n\n",
                                   "@_graphmend_site\ndef _graphmend_print_f_0(a0):\n    print(a0)\n",
                                   kLegacyGeneratedEnd, "\n"});
  const GeneratedMarkers m = scan_generated_markers(text);
  ASSERT_TRUE(m.block);
  const std::vector<Helper> helpers = generated_helpers(text, *m.block, statements_of(text));
  ASSERT_EQ(helpers.size(), 1u);
  EXPECT_EQ(helpers[0].name, "_graphmend_print_f_0");
  EXPECT_EQ(helpers[0].code, "def _graphmend_print_f_0(a0):\n    print(a0)\n");
}

}  // namespace
}  // namespace graphmend::source
