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

TEST(Indentation, TabsAndSpaces) {
  const std::string text = "def f():\n\tif x:\n\t    y = 1\n";
  EXPECT_EQ(indentation_at(text, static_cast<uint32_t>(text.find("y ="))), "\t    ");
}

}  // namespace
}  // namespace graphmend::source
