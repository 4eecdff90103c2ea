#include "graphmend/driver/style.h"

// toml++ header-only and without exceptions, as in config.cpp (the two may share a unity batch).
#define TOML_HEADER_ONLY 1
#define TOML_EXCEPTIONS 0
#include <fmt/format.h>

#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>

#include <toml++/toml.h>

namespace graphmend::driver {

namespace fs = std::filesystem;

namespace {

// A positive integer setting; anything else keeps the default (ruff would reject the file).
std::optional<int64_t> integer_at(const toml::table& table, std::string_view path) {
  if (std::optional<int64_t> v = table.at_path(path).value<int64_t>(); v && *v >= 0 && *v <= 100000) return v;
  return std::nullopt;
}

void read_ruff(const toml::table& ruff, FormatterStyle& style) {
  if (auto n = integer_at(ruff, "line-length"); n && *n > 0) style.line_length = static_cast<size_t>(*n);
  for (std::string_view key : {"lint.isort.lines-after-imports", "isort.lines-after-imports"}) {
    if (std::optional<int64_t> v = ruff.at_path(key).value<int64_t>(); v && *v >= -1 && *v <= 10) {
      style.lines_after_imports = static_cast<int>(*v);
      break;
    }
  }
}

// black's and isort's tables in a pyproject.toml: true when either is there.
bool read_black_isort(const toml::table& tool, FormatterStyle& style) {
  bool found = false;
  if (const toml::table* black = tool["black"].as_table()) {
    found = true;
    if (auto n = integer_at(*black, "line-length"); n && *n > 0) style.line_length = static_cast<size_t>(*n);
  }
  if (const toml::table* isort = tool["isort"].as_table()) {
    found = true;
    if (!tool.contains("black")) {
      if (auto n = integer_at(*isort, "line_length"); n && *n > 0) style.line_length = static_cast<size_t>(*n);
    }
    if (std::optional<int64_t> v = (*isort)["lines_after_imports"].value<int64_t>(); v && *v >= -1 && *v <= 10) {
      style.lines_after_imports = static_cast<int>(*v);
    }
  }
  return found;
}

std::optional<toml::table> parse_toml(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return std::nullopt;
  toml::parse_result parsed = toml::parse_file(file.string());
  if (!parsed) return std::nullopt;
  return std::move(parsed).table();
}

// `[section]` / `key = value` files (setup.cfg, .isort.cfg): the value of `key` in `section`.
std::optional<int64_t> ini_integer(const std::string& text, std::string_view section, std::string_view key) {
  std::istringstream in(text);
  std::string line, current;
  while (std::getline(in, line)) {
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#' || line[first] == ';') continue;
    std::string_view l = std::string_view(line).substr(first);
    while (!l.empty() && (l.back() == '\r' || l.back() == ' ' || l.back() == '\t')) l.remove_suffix(1);
    if (l.starts_with('[') && l.ends_with(']')) {
      current = std::string(l.substr(1, l.size() - 2));
      continue;
    }
    if (current != section || first > 0) continue;
    const size_t sep = l.find_first_of("=:");
    if (sep == std::string_view::npos) continue;
    std::string_view name = l.substr(0, sep);
    while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.remove_suffix(1);
    std::string normal(name);
    for (char& c : normal) c = c == '-' ? '_' : c;
    if (normal != key) continue;
    std::string_view value = l.substr(sep + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    int64_t n = 0;
    bool negative = value.starts_with('-');
    if (negative) value.remove_prefix(1);
    if (value.empty() || value.size() > 6 || value.find_first_not_of("0123456789") != std::string_view::npos) {
      return std::nullopt;
    }
    for (char c : value) n = n * 10 + (c - '0');
    return negative ? -n : n;
  }
  return std::nullopt;
}

std::optional<std::string> read_text(const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The settings a folder's own files give, if it has any of the files named in the header.
std::optional<FormatterStyle> own_style(const fs::path& folder) {
  FormatterStyle style;
  for (const char* name : {".ruff.toml", "ruff.toml"}) {
    if (std::optional<toml::table> t = parse_toml(folder / name)) {
      read_ruff(*t, style);
      style.source = folder / name;
      return style;
    }
  }
  std::optional<toml::table> pyproject = parse_toml(folder / "pyproject.toml");
  if (pyproject) {
    if (const toml::table* ruff = pyproject->at_path("tool.ruff").as_table()) {
      read_ruff(*ruff, style);
      style.source = folder / "pyproject.toml";
      return style;
    }
  }
  if (pyproject) {
    if (const toml::table* tool = (*pyproject)["tool"].as_table(); tool && read_black_isort(*tool, style)) {
      style.source = folder / "pyproject.toml";
      return style;
    }
  }
  for (auto [name, isort_section] : {std::pair{"setup.cfg", "isort"}, std::pair{".isort.cfg", "settings"}}) {
    std::optional<std::string> text = read_text(folder / name);
    if (!text) continue;
    std::optional<int64_t> length = ini_integer(*text, isort_section, "line_length");
    if (!length && std::string_view(name) == "setup.cfg") length = ini_integer(*text, "flake8", "max_line_length");
    std::optional<int64_t> after = ini_integer(*text, isort_section, "lines_after_imports");
    if (!length && !after) continue;
    if (length && *length > 0) style.line_length = static_cast<size_t>(*length);
    if (after && *after >= -1 && *after <= 10) style.lines_after_imports = static_cast<int>(*after);
    style.source = folder / name;
    return style;
  }
  return std::nullopt;
}

}  // namespace

std::string FormatterStyle::key() const {
  return fmt::format("line-length {} lines-after-imports {}", line_length, lines_after_imports);
}

FormatterStyle StyleFinder::for_file(const fs::path& file) {
  std::error_code ec;
  fs::path folder = fs::absolute(file, ec).lexically_normal().parent_path();
  std::lock_guard lock(mutex_);
  return for_folder(folder);
}

FormatterStyle StyleFinder::for_folder(const fs::path& folder) {
  if (auto it = by_folder_.find(folder); it != by_folder_.end()) return it->second;
  FormatterStyle style;
  if (std::optional<FormatterStyle> own = own_style(folder)) {
    style = *own;
  } else if (folder.has_parent_path() && folder.parent_path() != folder) {
    style = for_folder(folder.parent_path());
  }
  by_folder_.emplace(folder, style);
  return style;
}

}  // namespace graphmend::driver
