// Reading a Python file once: bytes, UTF-8 check, BOM, newline style.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include <variant>

#include "graphmend/source/notebook.h"
#include "graphmend/source/text.h"

namespace graphmend::source {

// What a file on disk was when it was read: a write re-checks it right before replacing the file.
struct DiskStamp {
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  size_t hash = 0;  // of the bytes read
};

// True while the file at `path` still holds what `stamp` was taken of: same size and mtime, then
// the same bytes (read only when the first two agree).
bool matches_disk(const std::filesystem::path& path, const DiskStamp& stamp);

struct SourceFile {
  std::filesystem::path path;   // as given or discovered
  std::string display_path;     // what reports print
  std::optional<DiskStamp> disk;  // set when read from disk
  std::string text;             // file bytes after the BOM; all TextRanges index this
  bool has_bom = false;
  // Every line ends with a lone CR (old Mac OS), which CPython reads as a newline and tree-sitter
  // does not: `text` holds them as LF, one byte for one, and encode_for_write turns them back.
  bool cr_only = false;
  // In a file that also has other line breaks, the offsets of the lone CRs, which `text` holds as
  // LF (one byte for one) so that tree-sitter sees the lines CPython sees; encode_for_write puts
  // back those it is given (see driver: carried through the fixes' edits).
  std::vector<uint32_t> lone_crs;
  NewlineStyle newline = NewlineStyle::Lf;
  // A Jupyter notebook: `text` is its code cells joined (source/notebook.h); null for a .py file.
  std::shared_ptr<const Notebook> notebook;
};

enum class ReadErrorKind {
  NotFound,
  PermissionDenied,
  NotRegularFile,
  SymlinkLoop,
  Binary,
  NotUtf8,
  UnsupportedEncoding,
  TooLarge,
  InvalidNotebook,
  OverBudget,  // its analysis went over --max-file-time or --max-file-memory
  Io,
};

struct ReadError {
  ReadErrorKind kind;
  std::string message;  // one clear sentence, without the path
};

struct ReadOptions {
  uint64_t max_bytes = 16ull * 1024 * 1024;
};

using ReadResult = std::variant<SourceFile, ReadError>;

ReadResult read_source(const std::filesystem::path& path, const std::string& display_path,
                       const ReadOptions& options = {});

// The bytes of a regular file of at most `max_bytes`; nullopt where it cannot be read so (then
// read_source says why).
std::optional<std::string> read_bytes(const std::filesystem::path& path, uint64_t max_bytes);

// True when `file`'s text is the bytes it was decoded from: no BOM taken off, no CR read as a line
// feed, not a notebook's cells. Then the same bytes decode to the same text again.
bool text_is_bytes(const SourceFile& file);

// Decodes already-loaded bytes (used by read_source and by tests).
ReadResult decode_source(std::string bytes, const std::filesystem::path& path,
                         const std::string& display_path, const ReadOptions& options = {});

// Returns the byte offset of the first invalid UTF-8 sequence, if any.
std::optional<size_t> find_invalid_utf8(std::string_view bytes);

// The bytes to write back for `text`: the BOM is restored when the original had one.
std::string encode_for_write(const SourceFile& file, std::string_view text,
                             const std::vector<uint32_t>& lone_crs = {});

}  // namespace graphmend::source
