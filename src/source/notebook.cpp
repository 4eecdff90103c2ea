#include "graphmend/source/notebook.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

namespace graphmend::source {
namespace {

using nlohmann::json;

// Byte spans of values in JSON text that nlohmann has accepted: nlohmann 3.11 (Debian 12's)
// reports no positions (3.12's JSON_DIAGNOSTIC_POSITIONS would). Iterative: no recursion on deep
// nesting.
class JsonSpans {
 public:
  explicit JsonSpans(std::string_view text) : text_(text) {}

  [[nodiscard]] size_t skip_space(size_t at) const {
    while (at < text_.size() && (text_[at] == ' ' || text_[at] == '\t' || text_[at] == '\n' || text_[at] == '\r')) ++at;
    return at;
  }

  // The end of the value starting at `at`.
  [[nodiscard]] size_t value_end(size_t at) const {
    if (at >= text_.size()) return text_.size();
    if (text_[at] == '"') return string_end(at);
    if (text_[at] != '{' && text_[at] != '[') {
      while (at < text_.size() && std::string_view(",}] \t\r\n").find(text_[at]) == std::string_view::npos) ++at;
      return at;
    }
    size_t depth = 0;
    for (size_t i = at; i < text_.size(); ++i) {
      const char c = text_[i];
      if (c == '"') {
        i = string_end(i) - 1;
      } else if (c == '{' || c == '[') {
        ++depth;
      } else if ((c == '}' || c == ']') && --depth == 0) {
        return i + 1;
      }
    }
    return text_.size();
  }

  // The value of member `key` of the object at `at` (the last one, as nlohmann keeps it).
  [[nodiscard]] std::optional<TextRange> member(size_t at, std::string_view key) const {
    std::optional<TextRange> found;
    size_t i = skip_space(at + 1);
    while (i < text_.size() && text_[i] == '"') {
      const size_t key_end = string_end(i);
      const bool match = decoded(i, key_end) == key;
      const size_t value = skip_space(skip_space(key_end) + 1);  // past the ':'
      const size_t end = value_end(value);
      if (match) found = TextRange{static_cast<uint32_t>(value), static_cast<uint32_t>(end)};
      i = skip_space(end);
      if (i < text_.size() && text_[i] == ',') i = skip_space(i + 1);
    }
    return found;
  }

  // The elements of the array at `at`.
  [[nodiscard]] std::vector<TextRange> elements(size_t at) const {
    std::vector<TextRange> out;
    size_t i = skip_space(at + 1);
    while (i < text_.size() && text_[i] != ']') {
      const size_t end = value_end(i);
      out.push_back({static_cast<uint32_t>(i), static_cast<uint32_t>(end)});
      i = skip_space(end);
      if (i < text_.size() && text_[i] == ',') i = skip_space(i + 1);
    }
    return out;
  }

 private:
  [[nodiscard]] size_t string_end(size_t at) const {
    for (size_t i = at + 1; i < text_.size(); ++i) {
      if (text_[i] == '\\') {
        ++i;
      } else if (text_[i] == '"') {
        return i + 1;
      }
    }
    return text_.size();
  }

  [[nodiscard]] std::string decoded(size_t start, size_t end) const {
    const std::string_view token = text_.substr(start, end - start);
    if (token.find('\\') == std::string_view::npos) return std::string(token.substr(1, token.size() - 2));
    return json::parse(token).get<std::string>();
  }

  std::string_view text_;
};

bool is_name_byte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x80 || std::isalnum(u) || c == '_';
}

// Whether `s` is what IPython's help syntax (`obj?`) asks about: a dotted name, its parts possibly
// wildcards (`torch.*cuda*`) or subscripted by a literal (`x[0]`), as IPython's `_help_end_re`.
bool help_target(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s.front())) || s.front() == '.' || s.front() == '[') {
    return false;
  }
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '[') {
      const size_t close = s.find_first_of("[]", i + 1);
      if (close == std::string_view::npos || s[close] != ']' || close == i + 1) return false;
      i = close;
    } else if (!is_name_byte(s[i]) && s[i] != '.' && s[i] != '*') {
      return false;
    }
  }
  return true;
}

// Where the IPython part of `line`, the start of a logical line, starts (a magic `%`, a shell
// escape `!`, a help request `?`, also as the value of an assignment: `files = !ls`), or nullopt
// for a line of Python: the forms IPython's line transforms rewrite.
std::optional<size_t> ipython_start(std::string_view line) {
  const size_t first = line.find_first_not_of(" \t");
  if (first == std::string_view::npos) return std::nullopt;
  const char c = line[first];
  if (c == '%' || c == '!' || c == '?') return first;
  size_t i = first;
  while (i < line.size() && (is_name_byte(line[i]) || line[i] == '.' || line[i] == ',' || line[i] == ' ')) ++i;
  if (i > first && i + 1 < line.size() && line[i] == '=' && line[i + 1] != '=') {
    const size_t value = line.find_first_not_of(" \t", i + 1);
    if (value != std::string_view::npos && (line[value] == '%' || line[value] == '!')) return value;
  }
  // `obj?`, `obj.attr??`: a dotted name and one or two question marks.
  std::string_view body = line.substr(first);
  while (!body.empty() && (body.back() == ' ' || body.back() == '\t')) body.remove_suffix(1);
  if (!body.ends_with('?')) return std::nullopt;
  body.remove_suffix(body.ends_with("??") ? 2 : 1);
  return help_target(body) ? std::optional<size_t>(first) : std::nullopt;
}

// A neutral Python expression of exactly `length` bytes (an IPython line's stand-in).
std::string neutral_expression(size_t length) {
  std::string out = length >= 3 ? "..." : "0";
  out.resize(length, ' ');
  return out;
}

// Where a line of Python leaves the next one: inside a triple-quoted string, inside brackets, or
// continued by a backslash. IPython reads a magic only at the start of a logical line, so a line
// that starts in any of these is never one (`%s` on a line of a docstring is text).
struct LogicalLineState {
  std::string_view open_string;  // the delimiter of a triple-quoted string left open, or empty
  int depth = 0;                 // brackets left open
  bool continued = false;        // the line ended with a backslash

  [[nodiscard]] bool at_logical_line_start() const { return open_string.empty() && depth == 0 && !continued; }

  // Reads one line of Python (without its line break).
  void read(std::string_view line) {
    continued = false;
    size_t i = 0;
    while (i < line.size()) {
      if (!open_string.empty()) {
        const size_t close = find_unescaped(line, i, open_string);
        if (close == std::string_view::npos) return;  // the string goes on
        i = close + open_string.size();
        open_string = {};
        continue;
      }
      const char c = line[i];
      if (c == '#') return;
      if (c == '\\' && i + 1 == line.size()) {
        continued = true;
        return;
      }
      if (c == '"' || c == '\'') {
        const std::string_view triple = c == '"' ? "\"\"\"" : "\'\'\'";
        if (line.substr(i, 3) == triple) {
          open_string = triple;
          i += 3;
          continue;
        }
        const size_t close = find_unescaped(line, i + 1, line.substr(i, 1));
        i = close == std::string_view::npos ? line.size() : close + 1;
        continue;
      }
      if (c == '(' || c == '[' || c == '{') ++depth;
      if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
      ++i;
    }
  }

 private:
  static size_t find_unescaped(std::string_view line, size_t from, std::string_view quote) {
    for (size_t i = from; i < line.size(); ++i) {
      if (line[i] == '\\') {
        ++i;
      } else if (line.substr(i, quote.size()) == quote) {
        return i;
      }
    }
    return std::string_view::npos;
  }
};

// Whether `line` (a logical line's start) is one Jupyter's automagic runs as a magic: `pip install torch`.
bool automagic_line(std::string_view line) {
  for (std::string_view command : {"pip", "conda", "cd"}) {
    const std::string_view head = line.substr(0, command.size() + 2);
    if (head.starts_with(command) && head.size() == command.size() + 2 && head[command.size()] == ' ' &&
        (std::isalpha(static_cast<unsigned char>(head.back())) || head.back() == '-' || head.back() == '/' ||
         head.back() == '.' || head.back() == '~')) {
      return true;
    }
  }
  return false;
}

// The line of `source` starting at `pos`, without its line break.
std::string_view cell_line_at(std::string_view source, size_t pos) {
  std::string_view line = source.substr(pos, std::min(source.find('\n', pos), source.size()) - pos);
  if (line.ends_with('\r')) line.remove_suffix(1);
  return line;
}

// Why a code cell is not analysed, or nullopt when it is. A cell of IPython as a whole: a cell magic
// whose body is not Python (`%%bash`, `%%timeit`, whose body runs in a function of its own), left
// out silently (as ruff); `%%time`, `%%capture`, `%%prun` and `%%debug` run their body as the cell's
// code: only their first line is IPython. Left out with a note (`LeftOut::note`, "cell 3:2: ..."):
// a line Jupyter's automagic runs as a magic (`pip install torch`), and a cell indented as a whole,
// which IPython dedents but the module text cannot (its offsets are the cell's).
struct LeftOut {
  std::string note;  // empty for a cell magic
};
std::optional<LeftOut> left_out(std::string_view source, uint32_t number) {
  // IPython drops a cell's leading blank lines before it looks for a cell magic.
  size_t first = 0;
  uint32_t first_line = 1;
  while (first < source.size() && cell_line_at(source, first).find_first_not_of(" \t") == std::string_view::npos) {
    first = std::min(source.find('\n', first), source.size()) + 1;
    ++first_line;
  }
  const std::string_view head = cell_line_at(source, std::min(first, source.size()));
  const size_t indent = std::min(head.find_first_not_of(" \t"), head.size());
  if (head.substr(indent).starts_with("%%")) {
    const std::string_view magic = head.substr(indent + 2, head.find_first_of(" \t", indent) - indent - 2);
    if (magic != "time" && magic != "capture" && magic != "prun" && magic != "debug") return LeftOut{};
  }
  if (indent > 0 && !head.substr(indent).starts_with('#')) {
    return LeftOut{fmt::format("cell {}:{}: the cell is left out: it is indented as a whole (IPython dedents it); "
                               "dedent it to have it checked",
                               number, first_line)};
  }
  LogicalLineState python;
  uint32_t line_number = 1;
  for (size_t pos = 0; pos < source.size(); pos = std::min(source.find('\n', pos), source.size()) + 1, ++line_number) {
    const std::string_view line = cell_line_at(source, pos);
    if (!python.at_logical_line_start()) {
      python.read(line);
    } else if (automagic_line(line)) {
      return LeftOut{fmt::format("cell {}:{}: the cell is left out: `{}` is an IPython automagic command (as ruff "
                                 "reads it); write `%{}` to have the cell checked",
                                 number, line_number, line, line)};
    } else if (!ipython_start(line)) {
      python.read(line);
    }
  }
  return std::nullopt;
}

// Appends `source` (one code cell) to the notebook's joined text, masking its IPython lines.
void append_cell(Notebook& nb, std::string_view source) {
  LogicalLineState python;
  bool continued = false;  // the previous masked line ended with a backslash
  size_t pos = 0;
  while (pos < source.size()) {
    const size_t end = std::min(source.find('\n', pos), source.size());
    std::string_view line = source.substr(pos, end - pos);
    if (line.ends_with('\r')) line.remove_suffix(1);
    const size_t base = nb.joined.size();
    // IPython joins a backslash-continued line to its command: the whole line, from column 0, is
    // masked by blanks (a stand-in statement there could be indented unexpectedly).
    const bool continuation = continued && !line.empty();
    const std::optional<size_t> magic =
        continuation || !python.at_logical_line_start() ? std::nullopt : ipython_start(line);
    if (continuation || magic) {
      const size_t start = continuation ? 0 : *magic;
      nb.layout.masked.push_back({static_cast<uint32_t>(base + start), static_cast<uint32_t>(base + line.size())});
      nb.masked_lines.emplace_back(line.substr(start));
      nb.joined.append(line.substr(0, start));
      nb.joined.append(continuation ? std::string(line.size(), ' ') : neutral_expression(line.size() - start));
      nb.joined.append(source.substr(pos + line.size(), end - pos - line.size()));
      continued = line.ends_with('\\');
    } else {
      nb.joined.append(source.substr(pos, end - pos));
      continued = false;
      python.read(line);
    }
    if (end < source.size()) nb.joined.push_back('\n');
    pos = end + 1;
  }
}

std::string json_string(std::string_view s) {
  return json(std::string(s)).dump(-1, ' ', false, json::error_handler_t::replace);
}

// The lines of `s`, each with its line break.
std::vector<std::string_view> split_lines(std::string_view s) {
  std::vector<std::string_view> out;
  for (size_t pos = 0; pos < s.size();) {
    const size_t end = std::min(s.find('\n', pos), s.size() - 1) + 1;
    out.push_back(s.substr(pos, end - pos));
    pos = end;
  }
  return out;
}

// A cell's new "source" value, in the form and layout of the old one (`old`, its JSON text).
std::string source_value(std::string_view json_text, const NotebookCell& cell, std::string_view source) {
  if (!cell.source_is_list) return json_string(source);
  const std::vector<std::string_view> lines = split_lines(source);
  if (lines.empty()) return "[]";
  const std::string_view old = json_text.substr(cell.json_source.start, cell.json_source.length());
  const JsonSpans spans(old);
  const std::vector<TextRange> items = spans.elements(0);
  std::string open;
  std::string between;
  std::string close;
  if (items.empty()) {
    // Jupyter's own layout: one item a line, one space deeper than the key.
    const size_t line_start = json_text.rfind('\n', cell.json_source.start);
    const size_t from = line_start == std::string_view::npos ? 0 : line_start + 1;
    const std::string indent(json_text.substr(from, json_text.find_first_not_of(" \t", from) - from));
    open = "\n" + indent + " ";
    between = ",\n" + indent + " ";
    close = "\n" + indent;
  } else {
    open = std::string(old.substr(1, items.front().start - 1));
    close = std::string(old.substr(items.back().end, old.size() - 1 - items.back().end));
    between = items.size() > 1 ? std::string(old.substr(items[0].end, items[1].start - items[0].end)) : "," + open;
  }
  std::string out = "[" + open;
  for (size_t k = 0; k < lines.size(); ++k) {
    if (k > 0) out += between;
    out += json_string(lines[k]);
  }
  return out + close + "]";
}

std::optional<std::string> kernel_language(const json& doc) {
  const auto meta = doc.find("metadata");
  if (meta == doc.end() || !meta->is_object()) return std::nullopt;
  for (const auto& [object, key] : {std::pair{"kernelspec", "language"}, std::pair{"language_info", "name"}}) {
    const auto o = meta->find(object);
    if (o == meta->end() || !o->is_object()) continue;
    const auto v = o->find(key);
    if (v != o->end() && v->is_string()) return v->get<std::string>();
  }
  return std::nullopt;
}

// Validates the document's shape; fills `nb.cells` and the joined text.
std::optional<std::string> read_cells(const json& doc, Notebook& nb) {
  if (!doc.is_object()) return "not a notebook: the JSON is no object";
  const auto format = doc.find("nbformat");
  if (format == doc.end() || !format->is_number_integer()) return "not a notebook: no integer `nbformat` field";
  if (format->get<int64_t>() != 4) {
    return fmt::format("nbformat {} notebooks are not supported, only nbformat 4; convert it with `jupyter nbconvert "
                       "--to notebook --nbformat 4`",
                       format->get<int64_t>());
  }
  const auto cells = doc.find("cells");
  if (cells == doc.end() || !cells->is_array()) return "not a notebook: no `cells` list";
  if (std::optional<std::string> language = kernel_language(doc)) {
    std::string lower = *language;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (lower != "python") {
      nb.other_language = *language;
      return std::nullopt;
    }
  }
  const JsonSpans spans(nb.json);
  const size_t root = spans.skip_space(nb.json.starts_with("\xEF\xBB\xBF") ? 3 : 0);  // nlohmann skips a BOM
  const std::optional<TextRange> cells_span = spans.member(root, "cells");
  const std::vector<TextRange> cell_spans = cells_span ? spans.elements(cells_span->start) : std::vector<TextRange>{};
  if (cell_spans.size() != cells->size()) return "not a notebook: its cells could not be located";
  for (size_t k = 0; k < cells->size(); ++k) {
    const json& cell = (*cells)[k];
    const auto number = static_cast<uint32_t>(k + 1);
    if (!cell.is_object()) return fmt::format("not a notebook: cell {} is no object", number);
    const auto type = cell.find("cell_type");
    const auto source = cell.find("source");
    if (type == cell.end() || !type->is_string()) return fmt::format("not a notebook: cell {} has no `cell_type`", number);
    if (source == cell.end()) return fmt::format("not a notebook: cell {} has no `source`", number);
    std::string text;
    if (source->is_string()) {
      text = source->get<std::string>();
    } else if (source->is_array() &&
               std::all_of(source->begin(), source->end(), [](const json& line) { return line.is_string(); })) {
      for (const json& line : *source) text += line.get_ref<const std::string&>();
    } else {
      return fmt::format("not a notebook: the `source` of cell {} is not text", number);
    }
    if (*type != "code") continue;  // markdown, raw
    if (std::optional<LeftOut> out = left_out(text, number)) {
      if (!out->note.empty()) nb.left_out.push_back(std::move(out->note));
      continue;
    }
    const std::optional<TextRange> span = spans.member(cell_spans[k].start, "source");
    if (!span) return fmt::format("not a notebook: the `source` of cell {} could not be located", number);
    NotebookCell c{number, *span, source->is_array(), false, std::move(text)};
    append_cell(nb, c.source);
    if (!c.source.empty() && !nb.joined.ends_with('\n')) {
      nb.joined.push_back('\n');
      c.newline_added = true;
    }
    nb.layout.separators.push_back(static_cast<uint32_t>(nb.joined.size()));
    nb.joined.push_back('\n');
    nb.cells.push_back(std::move(c));
  }
  return std::nullopt;
}

// `text` with its masked lines restored, or nullopt when the layout does not fit it.
std::optional<std::string> restored(const Notebook& notebook, std::string_view text, const CellLayout& cells) {
  if (cells.masked.size() != notebook.masked_lines.size()) return std::nullopt;
  std::string out(text);
  for (size_t m = 0; m < cells.masked.size(); ++m) {
    const TextRange r = cells.masked[m];
    if (r.end > out.size() || r.length() != notebook.masked_lines[m].size()) return std::nullopt;
    out.replace(r.start, r.length(), notebook.masked_lines[m]);
  }
  return out;
}

uint32_t cell_start(const CellLayout& cells, size_t k) { return k == 0 ? 0 : cells.separators[k - 1] + 1; }

}  // namespace

bool is_notebook_path(std::string_view path) { return path.ends_with(".ipynb"); }

std::variant<Notebook, std::string> parse_notebook(std::string bytes) {
  Notebook nb;
  nb.json = std::move(bytes);
  json doc;
  try {
    doc = json::parse(nb.json);
  } catch (const json::parse_error& e) {
    std::string_view what = e.what();
    if (const size_t at = what.find("] "); at != std::string_view::npos) what.remove_prefix(at + 2);
    return fmt::format("not a valid notebook: its JSON does not parse ({})", what);
  }
  if (std::optional<std::string> error = read_cells(doc, nb)) return *error;
  return nb;
}

CellPlace locate(const Notebook& notebook, std::string_view text, const CellLayout& cells, uint32_t offset) {
  if (cells.separators.empty()) return {};
  const auto it = std::lower_bound(cells.separators.begin(), cells.separators.end(), offset);
  const size_t k = std::min<size_t>(static_cast<size_t>(it - cells.separators.begin()), cells.separators.size() - 1);
  const uint32_t start = std::min<uint32_t>(cell_start(cells, k), offset);
  offset = std::min<uint32_t>(offset, static_cast<uint32_t>(text.size()));
  const std::string_view before = text.substr(start, offset - start);
  const size_t line_start = before.rfind('\n');
  const std::string_view in_line = line_start == std::string_view::npos ? before : before.substr(line_start + 1);
  CellPlace place;
  place.cell = k < notebook.cells.size() ? notebook.cells[k].number : static_cast<uint32_t>(k + 1);
  place.line = 1 + static_cast<uint32_t>(std::count(before.begin(), before.end(), '\n'));
  place.column = 1 + static_cast<uint32_t>(std::count_if(in_line.begin(), in_line.end(), [](char c) {
                   return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
                 }));
  return place;
}

std::optional<std::vector<std::string>> cell_sources(const Notebook& notebook, std::string_view text,
                                                     const CellLayout& cells) {
  if (cells.separators.size() != notebook.cells.size() || cells.masked.size() != notebook.masked_lines.size()) {
    return std::nullopt;
  }
  const std::optional<std::string> restored_text = restored(notebook, text, cells);
  if (!restored_text) return std::nullopt;
  const std::string& restored = *restored_text;
  std::vector<std::string> out;
  for (size_t k = 0; k < cells.separators.size(); ++k) {
    const uint32_t start = cell_start(cells, k);
    const uint32_t end = cells.separators[k];
    if (end < start || end >= restored.size() || restored[end] != '\n') return std::nullopt;
    std::string source = restored.substr(start, end - start);
    if (notebook.cells[k].newline_added && source.ends_with('\n')) source.pop_back();
    out.push_back(std::move(source));
  }
  return out;
}

std::optional<std::string> notebook_bytes(const Notebook& notebook, std::string_view text, const CellLayout& cells) {
  const std::optional<std::vector<std::string>> sources = cell_sources(notebook, text, cells);
  if (!sources) return std::nullopt;
  std::string out;
  out.reserve(notebook.json.size());
  size_t copied = 0;
  for (size_t k = 0; k < notebook.cells.size(); ++k) {
    const NotebookCell& cell = notebook.cells[k];
    if ((*sources)[k] == cell.source) continue;
    out.append(notebook.json, copied, cell.json_source.start - copied);
    out += source_value(notebook.json, cell, (*sources)[k]);
    copied = cell.json_source.end;
  }
  out.append(notebook.json, copied);
  return out;
}

std::string shown_text(const Notebook& notebook, std::string_view text, const CellLayout& cells) {
  std::optional<std::string> out = restored(notebook, text, cells);
  return out ? std::move(*out) : std::string(text);
}

bool touches_protected(const CellLayout& cells, TextRange range) {
  for (const TextRange& m : cells.masked) {
    if (range.empty() ? (m.start <= range.start && range.start <= m.end)
                      : (range.start < m.end && m.start < range.end)) {
      return true;
    }
  }
  return std::any_of(cells.separators.begin(), cells.separators.end(),
                     [&](uint32_t s) { return range.start <= s && s < range.end; });
}

}  // namespace graphmend::source
