// The language server's two lower layers: LSP positions over a document's bytes, file URIs, the
// edits of didChange (server/documents), and Content-Length framing (server/jsonrpc). The server
// itself is tested end to end with a real client (tests/cli/test_server.py).
#include <gtest/gtest.h>

#include <sstream>
#include <variant>

#include "graphmend/server/documents.h"
#include "graphmend/server/jsonrpc.h"

namespace graphmend::server {
namespace {

constexpr PositionEncoding kUtf8 = PositionEncoding::Utf8;
constexpr PositionEncoding kUtf16 = PositionEncoding::Utf16;

// "é" is 2 bytes and 1 UTF-16 unit; "😀" 4 bytes and 2 units (a surrogate pair).
constexpr std::string_view kText = "a = \"é😀\"; print(a)\r\nb\rc\n";

TEST(LineMap, CountsUtf16UnitsOrUtf8Bytes) {
  const LineMap lines(kText);
  const auto print_at = static_cast<uint32_t>(kText.find("print"));
  EXPECT_EQ(lines.position(print_at, kUtf16), (Position{0, 11}));
  EXPECT_EQ(lines.position(print_at, kUtf8), (Position{0, 14}));
  EXPECT_EQ(lines.offset({0, 11}, kUtf16), print_at);
  EXPECT_EQ(lines.offset({0, 14}, kUtf8), print_at);
}

TEST(LineMap, EndsLinesAtLfCrLfAndCr) {
  const LineMap lines(kText);
  const auto b = static_cast<uint32_t>(kText.find('b'));
  const auto c = static_cast<uint32_t>(kText.find('c'));
  EXPECT_EQ(lines.position(b, kUtf16), (Position{1, 0}));
  EXPECT_EQ(lines.position(c, kUtf16), (Position{2, 0}));
  EXPECT_EQ(lines.offset({1, 0}, kUtf16), b);
  EXPECT_EQ(lines.offset({3, 0}, kUtf16), kText.size());
}

TEST(LineMap, ClampsPositionsAsTheProtocolAsks) {
  const LineMap lines(kText);
  // Past the end of a line: the line's end, before its CRLF.
  EXPECT_EQ(lines.offset({0, 500}, kUtf16), kText.find("\r\n"));
  // Past the last line: the end of the text.
  EXPECT_EQ(lines.offset({9, 0}, kUtf16), kText.size());
  // Inside the surrogate pair: the emoji's start.
  const auto emoji = static_cast<uint32_t>(kText.find("😀"));
  EXPECT_EQ(lines.offset({0, 6}, kUtf16), emoji);
  EXPECT_EQ(lines.offset({0, 7}, kUtf16), emoji);
  // A byte offset inside a UTF-8 sequence: the position of its character.
  EXPECT_EQ(lines.position(emoji + 2, kUtf16), (Position{0, 6}));
}

TEST(FileUri, DecodesAndEncodesPaths) {
  EXPECT_EQ(path_of_uri("file:///home/me/a%20b/m%C3%A9.py"), std::filesystem::path("/home/me/a b/mé.py"));
  EXPECT_EQ(path_of_uri("file://localhost/x/../y.py"), std::filesystem::path("/y.py"));
  EXPECT_FALSE(path_of_uri("untitled:Untitled-1").has_value());
  EXPECT_FALSE(path_of_uri("file://server/share/m.py").has_value());
  EXPECT_FALSE(path_of_uri("file:///bad%zz").has_value());
  EXPECT_EQ(uri_of_path("/home/me/a b/mé.py"), "file:///home/me/a%20b/m%C3%A9.py");
  EXPECT_EQ(path_of_uri(uri_of_path("/tmp/#%?.py")), std::filesystem::path("/tmp/#%?.py"));
}

TEST(Documents, AppliesIncrementalChangesInTheNegotiatedUnits) {
  Documents documents;
  Document* doc = documents.open("file:///m.py", 1, std::string(kText));
  ASSERT_NE(doc, nullptr);
  ASSERT_TRUE(Documents::replace(*doc, std::pair{Position{0, 11}, Position{0, 11}}, "x = 1; ", kUtf16));
  EXPECT_EQ(doc->text.substr(0, doc->text.find('\n') + 1), "a = \"é😀\"; x = 1; print(a)\r\n");
  ASSERT_TRUE(Documents::replace(*doc, std::nullopt, "whole", kUtf8));
  EXPECT_EQ(doc->text, "whole");
  EXPECT_FALSE(Documents::replace(*doc, std::pair{Position{0, 3}, Position{0, 1}}, "", kUtf8));
  EXPECT_EQ(documents.open("untitled:1", 1, ""), nullptr);
}

Incoming read(std::string_view bytes) {
  std::istringstream in{std::string(bytes)};
  return FrameReader(in).next();
}

TEST(Framing, ReadsAFrameWhateverTheHeadersCase) {
  const Incoming item = read(
      "content-length: 39\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"
      R"({"jsonrpc":"2.0","id":"a","method":"m"})");
  const auto* m = std::get_if<Message>(&item);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->method, "m");
  EXPECT_EQ(m->id, json("a"));
  EXPECT_TRUE(m->params.is_null());
}

TEST(Framing, TellsWhatIsWrongWithABadFrame) {
  const auto code = [](std::string_view bytes) {
    const Incoming item = read(bytes);
    const auto* bad = std::get_if<BadMessage>(&item);
    return bad ? static_cast<int>(bad->code) : 0;
  };
  EXPECT_EQ(code("Content-Length: 3\r\n\r\n{x}"), static_cast<int>(ErrorCode::ParseError));
  EXPECT_EQ(code("Content-Length: x\r\n\r\n{}"), static_cast<int>(ErrorCode::ParseError));
  EXPECT_EQ(code("\r\n{}"), static_cast<int>(ErrorCode::ParseError));  // no Content-Length
  EXPECT_EQ(code("Content-Length: 3\r\n\r\n[1]"), static_cast<int>(ErrorCode::InvalidRequest));
  EXPECT_EQ(code("Content-Length: 12\r\n\r\n{\"method\":1}"), static_cast<int>(ErrorCode::InvalidRequest));
  EXPECT_EQ(code("Content-Length: 26\r\n\r\n{\"id\":[1],\"method\":\"x\"}   "),
            static_cast<int>(ErrorCode::InvalidRequest));
}

TEST(Framing, RefusesAFrameOverTheLimitUnread) {
  const Incoming item = read("Content-Length: 1073741825\r\n\r\n{}");
  const auto* bad = std::get_if<BadMessage>(&item);
  ASSERT_NE(bad, nullptr);
  EXPECT_EQ(bad->reason, "a message of 1073741825 bytes is over the limit of 1073741824");
}

TEST(Framing, ResumesAtTheNextLengthHeaderAfterABadHeaderBlock) {
  // The bad frame's body, "{}", is not followed by a line break: the next header starts mid-line.
  std::istringstream in{std::string("Content-Length: abc\r\n\r\n{}content-length: 14\r\n\r\n{\"method\":\"m\"}")};
  FrameReader reader(in);
  const Incoming bad = reader.next();
  ASSERT_TRUE(std::holds_alternative<BadMessage>(bad));
  EXPECT_EQ(std::get<BadMessage>(bad).reason, "invalid Content-Length header");
  const Incoming next = reader.next();
  const auto* m = std::get_if<Message>(&next);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->method, "m");
  EXPECT_TRUE(std::holds_alternative<EndOfInput>(reader.next()));
}

TEST(Framing, ReadsTheNextFrameAfterALengthTooSmall) {
  // The first length cuts its body short; the rest of it runs into the next frame's header line.
  std::istringstream in{std::string("Content-Length: 5\r\n\r\n{\"method\":\"a\"}Content-Length: 14\r\n\r\n{\"method\":\"m\"}")};
  FrameReader reader(in);
  const Incoming bad = reader.next();
  ASSERT_TRUE(std::holds_alternative<BadMessage>(bad));
  EXPECT_EQ(std::get<BadMessage>(bad).reason, "the message is not valid JSON");
  const Incoming next = reader.next();
  const auto* m = std::get_if<Message>(&next);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->method, "m");
  EXPECT_TRUE(std::holds_alternative<EndOfInput>(reader.next()));
}

TEST(Framing, EndsAtEndOfInputAlsoMidFrame) {
  EXPECT_TRUE(std::holds_alternative<EndOfInput>(read("")));
  EXPECT_TRUE(std::holds_alternative<EndOfInput>(read("Content-Length: 10\r\n\r\n{}")));
}

TEST(Framing, WritesWhatItReads) {
  std::ostringstream out;
  write_frame(out, {{"jsonrpc", "2.0"}, {"id", 3}, {"method", "x/é"}});
  const Incoming item = read(out.str());
  const auto* m = std::get_if<Message>(&item);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->method, "x/é");
}

}  // namespace
}  // namespace graphmend::server
