#include "graphmend/server/documents.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace graphmend::server {
namespace {

// The bytes of the UTF-8 sequence that `lead` starts (1 for a stray continuation byte).
uint32_t sequence_length(unsigned char lead) {
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

// Code units of one character: UTF-16 takes two for what UTF-8 writes in four bytes.
uint32_t units(uint32_t bytes, PositionEncoding encoding) {
  if (encoding == PositionEncoding::Utf8) return bytes;
  return bytes == 4 ? 2 : 1;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

LineMap::LineMap(std::string_view text) : text_(text), lines_(text) {}

uint32_t LineMap::line_end(uint32_t line) const {
  return lines_.line_start(line + 1) + static_cast<uint32_t>(lines_.line_text(text_, line + 1).size());
}

Position LineMap::position(uint32_t offset, PositionEncoding encoding) const {
  offset = std::min(offset, static_cast<uint32_t>(text_.size()));
  const uint32_t line = lines_.line_of(offset) - 1;  // LSP lines count from 0
  uint32_t character = 0;
  for (uint32_t at = lines_.line_start(line + 1); at < offset;) {
    const uint32_t bytes = sequence_length(static_cast<unsigned char>(text_[at]));
    if (at + bytes > offset) break;  // inside a character: its start
    character += units(bytes, encoding);
    at += bytes;
  }
  return {line, character};
}

uint32_t LineMap::offset(Position position, PositionEncoding encoding) const {
  if (position.line >= lines_.line_count()) return static_cast<uint32_t>(text_.size());
  const uint32_t end = line_end(position.line);
  uint32_t at = lines_.line_start(position.line + 1);
  for (uint32_t character = 0; at < end;) {
    const uint32_t bytes = sequence_length(static_cast<unsigned char>(text_[at]));
    character += units(bytes, encoding);
    if (character > position.character) break;
    at = std::min(at + bytes, end);
  }
  return at;
}

std::optional<std::filesystem::path> path_of_uri(std::string_view uri) {
  constexpr std::string_view kScheme = "file://";
  if (uri.size() < kScheme.size() || !std::equal(kScheme.begin(), kScheme.end(), uri.begin(), [](char a, char b) {
        return a == std::tolower(static_cast<unsigned char>(b));
      })) {
    return std::nullopt;
  }
  uri.remove_prefix(kScheme.size());
  const size_t slash = uri.find('/');  // after the authority: "" or "localhost"
  if (slash == std::string_view::npos) return std::nullopt;
  const std::string_view authority = uri.substr(0, slash);
  if (!authority.empty() && authority != "localhost") return std::nullopt;  // a file on another host
  uri.remove_prefix(slash);
  uri = uri.substr(0, uri.find_first_of("?#"));
  std::string path;
  for (size_t i = 0; i < uri.size(); ++i) {
    if (uri[i] != '%') {
      path += uri[i];
      continue;
    }
    const int high = i + 2 < uri.size() ? hex_value(uri[i + 1]) : -1;
    const int low = i + 2 < uri.size() ? hex_value(uri[i + 2]) : -1;
    if (high < 0 || low < 0) return std::nullopt;
    path += static_cast<char>(high * 16 + low);
    i += 2;
  }
  if (path.find('\0') != std::string::npos) return std::nullopt;
  return std::filesystem::path(path).lexically_normal();
}

std::string uri_of_path(const std::filesystem::path& path) {
  std::string uri = "file://";
  for (const char c : path.generic_string()) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || std::string_view("-._~/!$&'()*+,;=:@").find(c) != std::string_view::npos) {
      uri += c;
    } else {
      uri += fmt::format("%{:02X}", u);
    }
  }
  return uri;
}

Document* Documents::open(const std::string& uri, int64_t version, std::string text) {
  const std::optional<std::filesystem::path> path = path_of_uri(uri);
  if (!path || !path->is_absolute()) return nullptr;
  Document& doc = by_uri_[uri];
  doc = {uri, *path, version, std::move(text)};
  return &doc;
}

void Documents::close(const std::string& uri) { by_uri_.erase(uri); }

Document* Documents::find(const std::string& uri) {
  const auto it = by_uri_.find(uri);
  return it == by_uri_.end() ? nullptr : &it->second;
}

std::vector<Document*> Documents::all() {
  std::vector<Document*> out;
  for (auto& [uri, doc] : by_uri_) out.push_back(&doc);
  return out;
}

std::map<std::filesystem::path, std::string> Documents::unsaved_except(const Document& skip) const {
  std::map<std::filesystem::path, std::string> out;
  for (const auto& [uri, doc] : by_uri_) {
    if (&doc != &skip) out.emplace(doc.path, doc.text);
  }
  return out;
}

bool Documents::replace(Document& doc, const std::optional<std::pair<Position, Position>>& range,
                        std::string_view text, PositionEncoding encoding) {
  if (!range) {
    doc.text = text;
    return true;
  }
  const LineMap lines(doc.text);
  const uint32_t start = lines.offset(range->first, encoding);
  const uint32_t end = lines.offset(range->second, encoding);
  if (end < start) return false;
  doc.text.replace(start, end - start, text);
  return true;
}

}  // namespace graphmend::server
