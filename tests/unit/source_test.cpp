#include <gtest/gtest.h>

#include "graphmend/source/source_file.h"
#include "graphmend/source/text.h"

namespace graphmend::source {
namespace {

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

}  // namespace
}  // namespace graphmend::source
