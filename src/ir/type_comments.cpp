#include "graphmend/ir/type_comments.h"

#include <optional>

#include "graphmend/syntax/kinds.h"

namespace graphmend::ir {
namespace {

using source::TextRange;
using syntax::Node;

bool is_space(char c) { return c == ' ' || c == '\t'; }

TextRange trimmed(std::string_view text, TextRange r) {
  while (r.start < r.end && is_space(text[r.start])) ++r.start;
  while (r.end > r.start && is_space(text[r.end - 1])) --r.end;
  return r;
}

// The range after `# type:` in a comment, trimmed; nullopt when the comment is not a type comment.
// `# type: ignore` (mypy's suppression) is not a type.
std::optional<TextRange> type_of_comment(Node comment, std::string_view text) {
  TextRange r{comment.start() + 1, comment.end()};  // after '#'
  r = trimmed(text, r);
  constexpr std::string_view kPrefix = "type:";
  if (text.substr(r.start, r.length()).substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  r = trimmed(text, {r.start + static_cast<uint32_t>(kPrefix.size()), r.end});
  // A trailing comment after the type (`# type: int  # the size`) is not part of it.
  for (uint32_t i = r.start; i < r.end; ++i) {
    if (text[i] == '#') r = trimmed(text, {r.start, i});
  }
  const std::string_view type = text.substr(r.start, r.length());
  if (type.empty() || type.starts_with("ignore")) return std::nullopt;
  return r;
}

// The top-level, comma-separated items of `inside` (brackets nest), each trimmed.
std::vector<TextRange> split_top_level(std::string_view text, TextRange inside) {
  std::vector<TextRange> items;
  int depth = 0;
  uint32_t item_start = inside.start;
  for (uint32_t i = inside.start; i < inside.end; ++i) {
    const char c = text[i];
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      items.push_back(trimmed(text, {item_start, i}));
      item_start = i + 1;
    }
  }
  const TextRange last = trimmed(text, {item_start, inside.end});
  if (!last.empty() || !items.empty()) items.push_back(last);  // `(a, b,)` leaves an empty last
  if (!items.empty() && items.back().empty()) items.pop_back();
  return items;
}

// The argument types of a signature comment `(A, B) -> R`; nullopt when it is not one, or when
// it is `(...) -> R` (the return type alone).
std::optional<std::vector<TextRange>> signature_arguments(std::string_view text, TextRange type) {
  if (type.empty() || text[type.start] != '(') return std::nullopt;
  int depth = 0;
  uint32_t close = type.end;
  for (uint32_t i = type.start; i < type.end; ++i) {
    if (text[i] == '(' || text[i] == '[') ++depth;
    if (text[i] == ')' || text[i] == ']') --depth;
    if (depth == 0) {
      close = i;
      break;
    }
  }
  if (close == type.end) return std::nullopt;
  const TextRange after = trimmed(text, {close + 1, type.end});
  if (text.substr(after.start, after.length()).substr(0, 2) != "->") return std::nullopt;
  const TextRange inside = trimmed(text, {type.start + 1, close});
  if (text.substr(inside.start, inside.length()) == "...") return std::nullopt;
  std::vector<TextRange> items = split_top_level(text, inside);
  for (TextRange& item : items) {
    while (item.start < item.end && text[item.start] == '*') ++item.start;  // *args, **kwargs
  }
  return items;
}

// The signature comment: the first type comment between the header's `:` and the first statement.
std::optional<TextRange> signature_comment(Node def, std::string_view text) {
  const Node body = def.field(field::body);
  const Node params = def.field(field::parameters);
  std::vector<Node> candidates;
  for (Node c : def.named_children()) {
    if (c.is(kind::comment) && c.start() >= params.end()) candidates.push_back(c);
  }
  for (Node c : body.named_children()) {
    if (!c.is(kind::comment)) break;
    candidates.push_back(c);
  }
  for (Node c : candidates) {
    if (auto type = type_of_comment(c, text)) return type;
  }
  return std::nullopt;
}

bool same_line(std::string_view text, uint32_t from, uint32_t to) {
  return text.substr(from, to - from).find('\n') == std::string_view::npos;
}

}  // namespace

std::vector<TextRange> parameter_type_comments(Node def, std::string_view text, const std::vector<Node>& parameters,
                                               bool is_method) {
  std::vector<TextRange> types(parameters.size());
  if (parameters.empty()) return types;
  if (auto signature = signature_comment(def, text)) {
    if (auto arguments = signature_arguments(text, *signature)) {
      const size_t skipped = arguments->size() == parameters.size()                    ? 0
                             : is_method && arguments->size() + 1 == parameters.size() ? 1
                                                                                        : parameters.size();
      for (size_t i = skipped; i < parameters.size(); ++i) types[i] = (*arguments)[i - skipped];
    }
  }
  // Per-argument comments: on the line a parameter ends, after it (and its comma).
  const Node params = def.field(field::parameters);
  size_t next = 0;
  for (Node c : params.named_children()) {
    if (!c.is(kind::comment)) continue;
    while (next < parameters.size() && parameters[next].end() <= c.start()) ++next;
    if (next == 0) continue;
    const Node owner = parameters[next - 1];
    if (!same_line(text, owner.end(), c.start())) continue;
    if (auto type = type_of_comment(c, text)) types[next - 1] = *type;
  }
  return types;
}

}  // namespace graphmend::ir
