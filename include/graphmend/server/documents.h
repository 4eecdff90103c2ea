// The documents an editor has open, as it holds them, and LSP's coordinates over them: positions
// are (line, character) with the character counted in UTF-16 code units unless the client agreed
// to UTF-8 bytes; graphmend's own coordinates stay byte offsets (source/text.h).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graphmend/source/text.h"

namespace graphmend::server {

enum class PositionEncoding { Utf8, Utf16 };

struct Position {
  uint32_t line = 0;
  uint32_t character = 0;
  friend auto operator<=>(const Position&, const Position&) = default;
};

// LSP positions (0-based lines, columns in UTF-8 or UTF-16 units) over source::LineIndex, whose
// lines end at "\n", "\r\n" or "\r" as LSP counts them. It keeps a view of the text, which must
// outlive it.
class LineMap {
 public:
  explicit LineMap(std::string_view text);

  [[nodiscard]] Position position(uint32_t offset, PositionEncoding encoding) const;
  // The byte offset of `position`; a character past the end of its line means the line's end,
  // a line past the last the end of the text (as the protocol asks), and a position inside a
  // UTF-8 sequence or surrogate pair the start of that character.
  [[nodiscard]] uint32_t offset(Position position, PositionEncoding encoding) const;

 private:
  [[nodiscard]] uint32_t line_end(uint32_t line) const;  // before its line break

  std::string_view text_;
  source::LineIndex lines_;
};

// A `file:` URI's path (percent-decoded); nullopt for another scheme or a malformed URI.
std::optional<std::filesystem::path> path_of_uri(std::string_view uri);
// The `file:` URI of an absolute path, percent-encoding what RFC 3986 does not allow in a path.
std::string uri_of_path(const std::filesystem::path& path);

struct Document {
  std::string uri;
  std::filesystem::path path;  // absolute, lexically normal
  int64_t version = 0;
  std::string text;
};

// The open documents, by URI.
class Documents {
 public:
  // Opens (or replaces) a document; null for a URI that is not a file's.
  Document* open(const std::string& uri, int64_t version, std::string text);
  void close(const std::string& uri);
  [[nodiscard]] Document* find(const std::string& uri);
  [[nodiscard]] std::vector<Document*> all();
  // Every open document's text by path except `skip`'s: what the analysis reads in place of disk.
  [[nodiscard]] std::map<std::filesystem::path, std::string> unsaved_except(const Document& skip) const;

  // One change of `textDocument/didChange`: the text between two positions replaced, or (no
  // range) the whole text. False when the range does not lie in the text (the change is not made).
  static bool replace(Document& doc, const std::optional<std::pair<Position, Position>>& range,
                      std::string_view text, PositionEncoding encoding);

 private:
  std::map<std::string, Document> by_uri_;
};

}  // namespace graphmend::server
