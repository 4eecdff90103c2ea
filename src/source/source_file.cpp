#include "graphmend/source/source_file.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <sys/stat.h>

namespace graphmend::source {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

// The encoding a PEP 263 declaration names on `line`: `^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)`,
// matched by a linear scan (std::regex recurses per character and overflows the stack on a long
// comment line).
std::optional<std::string> coding_of(std::string_view line) {
  const size_t first = line.find_first_not_of(" \t\f");
  if (first == std::string_view::npos || line[first] != '#') return std::nullopt;
  const auto is_name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
  };
  for (size_t at = line.find("coding", first); at != std::string_view::npos; at = line.find("coding", at + 1)) {
    size_t i = at + 6;
    if (i >= line.size() || (line[i] != ':' && line[i] != '=')) continue;
    ++i;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    const size_t start = i;
    while (i < line.size() && is_name_char(line[i])) ++i;
    if (i > start) return std::string(line.substr(start, i - start));
  }
  return std::nullopt;
}

// PEP 263: a coding declaration on one of the first two lines.
std::optional<std::string> declared_encoding(std::string_view text) {
  size_t pos = 0;
  for (int line = 0; line < 2 && pos <= text.size(); ++line) {
    size_t end = text.find_first_of("\r\n", pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view l = text.substr(pos, end - pos);
    if (std::optional<std::string> enc = coding_of(l)) {
      for (auto& c : *enc) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      return enc;
    }
    // Only a comment or blank first line allows a declaration on the second.
    if (l.find_first_not_of(" \t\f") != std::string::npos &&
        l[l.find_first_not_of(" \t\f")] != '#') {
      break;
    }
    pos = end;
    if (pos < text.size() && text[pos] == '\r') ++pos;
    if (pos < text.size() && text[pos] == '\n') ++pos;
  }
  return std::nullopt;
}

// CPython's tokenizer spells a declared name the way it compares it (get_normal_name): the first
// 12 characters lowercased with '_' as '-'; "utf-8" and "utf-8-..." are UTF-8; "latin-1",
// "iso-8859-1", "iso-latin-1" and their "...-..." forms are "iso-8859-1"; any other name as it is.
std::string cpython_normal_name(const std::string& declared) {
  std::string head;
  for (char c : declared.substr(0, 12)) head += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (head == "utf-8" || head.starts_with("utf-8-")) return "utf-8";
  for (std::string_view latin : {"latin-1", "iso-8859-1", "iso-latin-1"}) {
    if (head == latin || head.starts_with(std::string(latin) + "-")) return "iso-8859-1";
  }
  return declared;
}

// The name as codecs.lookup normalises it: lowercase, each run of characters other than ASCII
// letters, digits and '.' as one '_', none at either end.
std::string codec_lookup_name(std::string_view name) {
  std::string out;
  bool gap = false;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x80 && (std::isalnum(u) || c == '.')) {
      if (gap && !out.empty()) out += '_';
      out += static_cast<char>(std::tolower(u));
      gap = false;
    } else {
      gap = true;
    }
  }
  return out;
}

// A codec that decodes every ASCII byte to itself (scripts/python_codecs.py): an ASCII file that
// declares it is, to CPython, the text graphmend reads.
bool is_ascii_transparent_codec(std::string_view name) {
  static const std::set<std::string_view> names = {
#define GM_ASCII_CODEC(name) name,
#include "python_codecs.inc"
#undef GM_ASCII_CODEC
  };
  return names.contains(codec_lookup_name(name));
}

bool is_ascii(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

// A notebook's text is its code cells joined; its bytes are kept for writing it back.
ReadResult decode_notebook(SourceFile file, std::string bytes, const std::string& display_path) {
  file.display_path = display_path;
  std::variant<Notebook, std::string> parsed = parse_notebook(std::move(bytes));
  if (auto* error = std::get_if<std::string>(&parsed)) {
    return ReadError{ReadErrorKind::InvalidNotebook, fmt::format("{}; skipped", *error)};
  }
  auto notebook = std::make_shared<Notebook>(std::move(std::get<Notebook>(parsed)));
  if (notebook->joined.find('\0') != std::string::npos) {
    return ReadError{ReadErrorKind::Binary, "a code cell holds a NUL character, which CPython rejects; skipped"};
  }
  if (notebook->joined.size() > UINT32_MAX / 2) {
    return ReadError{ReadErrorKind::TooLarge, "the notebook's code is too large to index; skipped"};
  }
  file.text = notebook->joined;
  file.newline = detect_newline(file.text);  // the cells' own line breaks, for the code a fix adds
  file.notebook = std::move(notebook);
  return file;
}

}  // namespace

std::optional<size_t> find_invalid_utf8(std::string_view bytes) {
  const auto* s = reinterpret_cast<const unsigned char*>(bytes.data());
  const size_t n = bytes.size();
  size_t i = 0;
  while (i < n) {
    // Eight ASCII bytes at a time: most source is ASCII.
    if (i + sizeof(uint64_t) <= n) {
      uint64_t word = 0;
      std::memcpy(&word, s + i, sizeof word);
      if ((word & 0x8080808080808080ull) == 0) {
        i += sizeof word;
        continue;
      }
    }
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    uint32_t cp = 0;
    if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1Fu;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0Fu;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07u;
    } else {
      return i;
    }
    if (i + len > n) return i;
    for (size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (s[i + k] & 0x3Fu);
    }
    // Reject overlong forms, surrogates and out-of-range code points.
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return i;
    }
    i += len;
  }
  return std::nullopt;
}

ReadResult decode_source(std::string bytes, const std::filesystem::path& path,
                         const std::string& display_path, const ReadOptions& options) {
  if (bytes.size() > options.max_bytes) {
    return ReadError{ReadErrorKind::TooLarge,
                     fmt::format("file is {} bytes, over the {}-byte limit (--max-file-size); skipped",
                                 bytes.size(), options.max_bytes)};
  }
  // CPython rejects a NUL anywhere in a source file; the rewrites use NUL as a marker.
  if (std::memchr(bytes.data(), '\0', bytes.size()) != nullptr) {
    return ReadError{ReadErrorKind::Binary, "file looks binary (contains NUL bytes); skipped"};
  }
  SourceFile file;
  file.path = path;
  if (is_notebook_path(path.string())) return decode_notebook(std::move(file), std::move(bytes), display_path);
  file.display_path = display_path;
  if (std::string_view(bytes).starts_with(kBom)) {
    file.has_bom = true;
    bytes.erase(0, kBom.size());
  }
  if (auto declared = declared_encoding(bytes)) {
    const std::string normal = cpython_normal_name(*declared);
    if (normal != "utf-8") {
      // CPython's rules: a BOM says UTF-8, and any other declaration with it is an error.
      if (file.has_bom) {
        return ReadError{ReadErrorKind::UnsupportedEncoding,
                         fmt::format("the file starts with a UTF-8 BOM but declares encoding '{}', which CPython "
                                     "rejects; skipped",
                                     *declared)};
      }
      if (!is_ascii_transparent_codec(normal)) {
        return ReadError{ReadErrorKind::UnsupportedEncoding,
                         fmt::format("declared encoding '{}' is unknown to CPython or does not read ASCII as "
                                     "itself (CPython rejects the file or reads other text); skipped",
                                     *declared)};
      }
      if (!is_ascii(bytes)) {
        return ReadError{ReadErrorKind::UnsupportedEncoding,
                         fmt::format("declared encoding '{}' is not supported (only UTF-8); skipped", *declared)};
      }
    }
  }
  if (auto bad = find_invalid_utf8(bytes)) {
    const size_t offset = *bad + (file.has_bom ? kBom.size() : 0);
    return ReadError{ReadErrorKind::NotUtf8,
                     fmt::format("not valid UTF-8 (byte 0x{:02x} at offset {}); skipped",
                                 static_cast<unsigned char>(bytes[*bad]), offset)};
  }
  if (bytes.size() > UINT32_MAX / 2) {
    return ReadError{ReadErrorKind::TooLarge, "file is too large to index; skipped"};
  }
  file.newline = detect_newline(bytes);
  if (file.newline == NewlineStyle::Cr && bytes.find('\n') == std::string::npos) {
    file.cr_only = true;
    file.newline = NewlineStyle::Lf;
    std::replace(bytes.begin(), bytes.end(), '\r', '\n');
  } else {
    for (size_t at = bytes.find('\r'); at != std::string::npos; at = bytes.find('\r', at + 1)) {
      if (at + 1 < bytes.size() && bytes[at + 1] == '\n') continue;
      file.lone_crs.push_back(static_cast<uint32_t>(at));
      bytes[at] = '\n';
    }
  }
  file.text = std::move(bytes);
  return file;
}

namespace {

int64_t mtime_ns(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
}

DiskStamp stamp_of(std::string_view bytes, int64_t mtime) {
  return DiskStamp{bytes.size(), mtime, std::hash<std::string_view>{}(bytes)};
}

}  // namespace

namespace {

// A regular file's bytes, up to `max_bytes`, with the stat they were read after; or why not.
std::variant<std::string, ReadError> file_bytes(const std::filesystem::path& path, uint64_t max_bytes,
                                                struct stat& st) {
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    if (err == ELOOP) return ReadError{ReadErrorKind::SymlinkLoop, "symbolic link loop"};
    if (err == EACCES) return ReadError{ReadErrorKind::PermissionDenied, "permission denied"};
    if (err == ENOENT || err == ENOTDIR) {
      return ReadError{ReadErrorKind::NotFound, "no such file or directory"};
    }
    return ReadError{ReadErrorKind::Io, std::strerror(err)};
  }
  if (!S_ISREG(st.st_mode)) return ReadError{ReadErrorKind::NotRegularFile, "not a regular file"};
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    return ReadError{ReadErrorKind::TooLarge,
                     fmt::format("file is {} bytes, over the {}-byte limit (--max-file-size); skipped",
                                 st.st_size, max_bytes)};
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int err = errno;
    if (err == EACCES) return ReadError{ReadErrorKind::PermissionDenied, "permission denied"};
    return ReadError{ReadErrorKind::Io, fmt::format("cannot open: {}", std::strerror(err))};
  }
  std::string bytes;
  bytes.resize(static_cast<size_t>(st.st_size));
  in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (in.bad()) return ReadError{ReadErrorKind::Io, "read failed"};
  bytes.resize(static_cast<size_t>(in.gcount()));
  return bytes;
}

}  // namespace

ReadResult read_source(const std::filesystem::path& path, const std::string& display_path,
                       const ReadOptions& options) {
  struct stat st {};
  std::variant<std::string, ReadError> read = file_bytes(path, options.max_bytes, st);
  if (auto* error = std::get_if<ReadError>(&read)) return std::move(*error);
  std::string& bytes = std::get<std::string>(read);
  const DiskStamp stamp = stamp_of(bytes, mtime_ns(st));
  ReadResult result = decode_source(std::move(bytes), path, display_path, options);
  if (auto* file = std::get_if<SourceFile>(&result)) file->disk = stamp;
  return result;
}

std::optional<std::string> read_bytes(const std::filesystem::path& path, uint64_t max_bytes) {
  struct stat st {};
  std::variant<std::string, ReadError> read = file_bytes(path, max_bytes, st);
  if (auto* bytes = std::get_if<std::string>(&read)) return std::move(*bytes);
  return std::nullopt;
}

bool text_is_bytes(const SourceFile& file) {
  return !file.has_bom && !file.cr_only && file.lone_crs.empty() && !file.notebook;
}

bool matches_disk(const std::filesystem::path& path, const DiskStamp& stamp) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  if (static_cast<uint64_t>(st.st_size) != stamp.size || mtime_ns(st) != stamp.mtime_ns) return false;
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return !in.bad() && stamp_of(bytes, stamp.mtime_ns).hash == stamp.hash;
}

std::string encode_for_write(const SourceFile& file, std::string_view text, const std::vector<uint32_t>& lone_crs) {
  std::string out;
  out.reserve(text.size() + 3);
  if (file.has_bom) out.append(kBom);
  const size_t base = out.size();
  out.append(text);
  if (file.cr_only) std::replace(out.begin(), out.end(), '\n', '\r');
  for (uint32_t at : lone_crs) {
    if (at < text.size() && text[at] == '\n') out[base + at] = '\r';
  }
  return out;
}

}  // namespace graphmend::source
