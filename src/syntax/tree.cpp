#include "graphmend/syntax/tree.h"

#include <tree_sitter/api.h>

#include "graphmend/syntax/parse_arena.h"
#include "visible_walk.h"

#include <algorithm>
#include <exception>
#include <new>
#include <stdexcept>

extern "C" const TSLanguage* tree_sitter_python();

namespace graphmend::syntax {
namespace {

using detail::kNoNode;
using detail::NodeData;
using detail::TreeData;

// Copies the visible nodes of `tree` into an array in pre-order (one walk over tree-sitter's
// subtrees: visible_walk.h).
class Flattener {
 public:
  explicit Flattener(std::vector<NodeData>& nodes) : nodes_(nodes) {}

  void copy(const TSTree* tree) {
    const GmVisibleVisitor visitor{this, &Flattener::enter, &Flattener::leave};
    if (!gm_walk_visible(tree, &visitor)) throw std::bad_alloc();
    if (failure_) std::rethrow_exception(failure_);
  }

 private:
  // The walk is C: an exception (an allocation over the file's budget) is kept, not thrown
  // through it, and the rest of the walk is ignored.
  static void enter(void* self, const GmVisibleNode* node) noexcept {
    auto& f = *static_cast<Flattener*>(self);
    if (f.failure_) return;
    try {
      f.add(*node);
    } catch (...) {
      f.failure_ = std::current_exception();
    }
  }
  static void leave(void* self) noexcept {
    auto& f = *static_cast<Flattener*>(self);
    if (f.failure_) return;
    f.nodes_[f.open_.back()].subtree_end = static_cast<uint32_t>(f.nodes_.size());
    f.open_.pop_back();
  }

  void add(const GmVisibleNode& n) {
    if (n.field > UINT8_MAX) throw std::runtime_error("tree-sitter-python has more fields than graphmend stores");
    NodeData d;
    d.start = n.start;
    d.end = n.end;
    d.symbol = n.symbol;
    d.field = static_cast<uint8_t>(n.field);
    d.flags = static_cast<uint8_t>((n.named ? detail::kNamed : 0) | (n.error ? detail::kError : 0) |
                                   (n.missing ? detail::kMissing : 0) | (n.has_error ? detail::kHasError : 0));
    const auto index = static_cast<uint32_t>(nodes_.size());
    if (!open_.empty()) {
      d.parent = open_.back();
      NodeData& parent = nodes_[open_.back()];
      if (parent.child_count != detail::kManyChildren) ++parent.child_count;
      if ((d.flags & detail::kNamed) != 0 && parent.named_child_count != detail::kManyChildren) {
        ++parent.named_child_count;
      }
    }
    nodes_.push_back(d);
    open_.push_back(index);  // until leave(): every node is entered and left
  }

  std::vector<NodeData>& nodes_;
  std::vector<uint32_t> open_;  // the nodes entered and not yet left
  std::exception_ptr failure_;
};

std::unique_ptr<TreeData> flatten(const TSTree* tree) {
  auto data = std::make_unique<TreeData>();
  data->nodes.reserve(ts_node_descendant_count(ts_tree_root_node(tree)));
  Flattener(data->nodes).copy(tree);
  return data;
}

// Calls f(index) for each child of `parent` in order until f returns false.
template <typename F>
void for_each_child(const TreeData& tree, uint32_t parent, F&& f) {
  const NodeData& p = tree.nodes[parent];
  for (uint32_t c = parent + 1; c < p.subtree_end; c = tree.nodes[c].subtree_end) {
    if (!f(c)) return;
  }
}

// The parser and tree of one parse. They live in the parse's arena (parse_arena.h) and go with it,
// never deleted one by one; without an arena (under a sanitizer) they are deleted here.
struct ParseObjects {
  TSParser* parser = nullptr;
  TSTree* tree = nullptr;
  ParseObjects() = default;
  ParseObjects(const ParseObjects&) = delete;
  ParseObjects& operator=(const ParseObjects&) = delete;
  ~ParseObjects() {
    if constexpr (!kParseArena) {
      if (tree != nullptr) ts_tree_delete(tree);
      if (parser != nullptr) ts_parser_delete(parser);
    }
  }
};

}  // namespace

uint32_t Node::count_children(bool named_only) const {
  uint32_t count = 0;
  for_each_child(*tree_, index_, [&](uint32_t c) {
    if (!named_only || (tree_->nodes[c].flags & detail::kNamed) != 0) ++count;
    return true;
  });
  return count;
}

std::string_view Node::type() const {
  return is_null() ? std::string_view() : ts_language_symbol_name(python_language(), data().symbol);
}

Node Node::field(const Field& field) const {
  if (is_null()) return Node();
  const uint8_t id = field.id();
  Node found;
  for_each_child(*tree_, index_, [&](uint32_t c) {
    if (tree_->nodes[c].field != id) return true;
    found = Node(tree_, c);
    return false;
  });
  return found;
}

Node Node::child(uint32_t i) const {
  if (i >= child_count()) return Node();
  Node found;
  for_each_child(*tree_, index_, [&](uint32_t c) {
    if (i-- != 0) return true;
    found = Node(tree_, c);
    return false;
  });
  return found;
}

Node Node::named_child(uint32_t i) const {
  if (i >= named_child_count()) return Node();
  Node found;
  for_each_child(*tree_, index_, [&](uint32_t c) {
    if ((tree_->nodes[c].flags & detail::kNamed) == 0 || i-- != 0) return true;
    found = Node(tree_, c);
    return false;
  });
  return found;
}

std::vector<Node> Node::children() const {
  std::vector<Node> out;
  if (is_null()) return out;
  out.reserve(child_count());
  for_each_child(*tree_, index_, [&](uint32_t c) {
    out.emplace_back(tree_, c);
    return true;
  });
  return out;
}

std::vector<Node> Node::named_children() const {
  std::vector<Node> out;
  if (is_null()) return out;
  out.reserve(named_child_count());
  for_each_child(*tree_, index_, [&](uint32_t c) {
    if ((tree_->nodes[c].flags & detail::kNamed) != 0) out.emplace_back(tree_, c);
    return true;
  });
  return out;
}

std::vector<Node> Node::children_by_field(const Field& field) const {
  std::vector<Node> out;
  if (is_null()) return out;
  const uint8_t id = field.id();
  for_each_child(*tree_, index_, [&](uint32_t c) {
    if (tree_->nodes[c].field == id) out.emplace_back(tree_, c);
    return true;
  });
  return out;
}

Node Node::next_named_sibling() const {
  if (is_null() || data().parent == kNoNode) return Node();
  const uint32_t stop = tree_->nodes[data().parent].subtree_end;
  for (uint32_t c = data().subtree_end; c < stop; c = tree_->nodes[c].subtree_end) {
    if ((tree_->nodes[c].flags & detail::kNamed) != 0) return Node(tree_, c);
  }
  return Node();
}

// O(depth), not O(siblings): the node before this one in pre-order ends the previous sibling's
// subtree, and that sibling is its ancestor (or itself) whose parent is ours.
Node Node::prev_named_sibling() const {
  if (is_null() || data().parent == kNoNode) return Node();
  const uint32_t parent = data().parent;
  for (uint32_t at = index_; at > parent + 1;) {
    uint32_t sibling = at - 1;
    while (tree_->nodes[sibling].parent != parent) sibling = tree_->nodes[sibling].parent;
    if ((tree_->nodes[sibling].flags & detail::kNamed) != 0) return Node(tree_, sibling);
    at = sibling;
  }
  return Node();
}

// As tree-sitter's: descend into the first child that reaches `end` and past `start` (to it, when
// the child is empty) and begins at or before `start`; answer the last named node passed.
Node Node::named_descendant_for_range(uint32_t start, uint32_t end) const {
  if (is_null()) return Node();
  uint32_t node = index_;
  Node last_named = *this;
  for (bool descended = true; descended;) {
    descended = false;
    for_each_child(*tree_, node, [&](uint32_t c) {
      const NodeData& d = tree_->nodes[c];
      if (d.end < end) return true;
      // It must pass `start`, or reach it when the node itself is empty.
      if (d.start == d.end ? d.end < start : d.end <= start) return true;
      if (start < d.start) return false;
      node = c;
      if ((d.flags & detail::kNamed) != 0) last_named = Node(tree_, c);
      descended = true;
      return false;
    });
  }
  return last_named;
}

uint32_t nesting_depth(Node root, uint32_t stop_above) {
  if (root.is_null()) return 0;
  const std::vector<NodeData>& nodes = root.tree_data()->nodes;
  // The subtree ends of the nodes open at i: its depth is their count.
  std::vector<uint32_t> open;
  uint32_t deepest = 0;
  for (uint32_t i = root.index(); i < nodes[root.index()].subtree_end; ++i) {
    while (!open.empty() && open.back() <= i) open.pop_back();
    open.push_back(nodes[i].subtree_end);
    deepest = std::max(deepest, static_cast<uint32_t>(open.size()));
    if (deepest > stop_above) break;
  }
  return deepest;
}


const TSLanguage* python_language() { return tree_sitter_python(); }

Parser::Parser() {
  const ArenaScope arena;
  ParseObjects made;
  made.parser = ts_parser_new();
  if (!ts_parser_set_language(made.parser, python_language())) {
    throw std::runtime_error("tree-sitter-python grammar ABI is incompatible with the runtime");
  }
}

void use_allocator(void* (*malloc_fn)(size_t), void* (*calloc_fn)(size_t, size_t),
                   void* (*realloc_fn)(void*, size_t), void (*free_fn)(void*)) {
  arena::set_upstream({malloc_fn, calloc_fn, realloc_fn, free_fn});
  arena::install();
}

namespace {

// tree-sitter's parse of `text`, copied flat; null when tree-sitter gives up.
std::unique_ptr<TreeData> parse_flat(std::string_view text) {
  const ArenaScope arena;  // declared first: it ends last
  ParseObjects made;
  made.parser = ts_parser_new();
  if (!ts_parser_set_language(made.parser, python_language())) return nullptr;  // Parser() checked it
  made.tree = ts_parser_parse_string(made.parser, nullptr, text.data(), static_cast<uint32_t>(text.size()));
  if (made.tree == nullptr) return nullptr;
  return flatten(made.tree);
}

// Appends the top-level child `from` of `source`, with its subtree, to `out` (whose node 0 is the
// root), its bytes moved by `shift`.
void append_top_level(const TreeData& source, uint32_t from, int64_t shift, std::vector<NodeData>& out) {
  const uint32_t stop = source.nodes[from].subtree_end;
  const auto moved = static_cast<int64_t>(out.size()) - from;
  for (uint32_t i = from; i < stop; ++i) {
    NodeData d = source.nodes[i];
    d.start = static_cast<uint32_t>(d.start + shift);
    d.end = static_cast<uint32_t>(d.end + shift);
    d.parent = i == from ? 0 : static_cast<uint32_t>(d.parent + moved);
    d.subtree_end = static_cast<uint32_t>(d.subtree_end + moved);
    out.push_back(d);
  }
}

// Whether a fresh parse may start at the top-level statement `d`: it starts a line that does not
// continue the one before (a backslash), so the tokenizer's state there is a fresh parse's.
bool starts_fresh_line(const NodeData& d, std::string_view text) {
  const uint32_t at = d.start;
  if (at == 0) return true;
  if (at > text.size() || text[at - 1] != '\n') return false;
  size_t before = at - 1;  // the newline
  if (before > 0 && text[before - 1] == '\r') --before;
  return before == 0 || text[before - 1] != '\\';
}

// A module's top-level children, cut into segments where a fresh parse may begin: before the
// first child, and before every statement (not a comment, not a `;`) that starts a fresh line.
// Segment s holds the children [first_child[s], first_child[s + 1]) and the bytes
// [bound[s], bound[s + 1]): the first begins at 0, the last ends at the end of the text.
struct Segments {
  std::vector<uint32_t> children;  // node indices
  std::vector<size_t> first_child;
  std::vector<uint32_t> bound;

  Segments(const TreeData& tree, std::string_view text) {
    for_each_child(tree, 0, [&](uint32_t c) {
      children.push_back(c);
      return true;
    });
    first_child.push_back(0);
    bound.push_back(0);
    for (size_t k = 1; k < children.size(); ++k) {
      const NodeData& d = tree.nodes[children[k]];
      if ((d.flags & detail::kNamed) == 0 || Node(&tree, children[k]).is(kind::comment) ||
          !starts_fresh_line(d, text)) {
        continue;
      }
      first_child.push_back(k);
      bound.push_back(d.start);
    }
    first_child.push_back(children.size());
    bound.push_back(static_cast<uint32_t>(text.size()));
  }
  [[nodiscard]] size_t size() const { return bound.size() - 1; }

  // Which segments an edit meets, ends included: an insertion at a boundary dirties both sides,
  // so no edit touches the boundary between a dirty segment and a clean one.
  [[nodiscard]] std::vector<uint8_t> dirty(std::span<const source::Edit> edits) const {
    std::vector<uint8_t> out(size(), 0);
    for (const source::Edit& e : edits) {
      // The first segment whose end reaches the edit, through the last whose start it reaches.
      auto s = static_cast<size_t>(std::lower_bound(bound.begin() + 1, bound.end(), e.range.start) - bound.begin()) - 1;
      for (; s < size() && bound[s] <= e.range.end; ++s) out[s] = 1;
    }
    return out;
  }
};

}  // namespace

std::optional<Tree> Parser::parse(std::string_view text) {
  last_parsed_bytes_ = text.size();
  std::unique_ptr<TreeData> data = parse_flat(text);
  if (!data) return std::nullopt;
  return Tree(std::move(data));
}

std::optional<Tree> Parser::parse_edited(std::string_view text, Node old_root, std::string_view old_text,
                                         std::span<const source::Edit> edits) {
  if (old_root.is_null() || old_root.index() != 0 || edits.empty() || old_root.has_error()) return parse(text);
  if (std::any_of(edits.begin(), edits.end(), [&](const source::Edit& e) { return e.range.end > old_text.size(); })) {
    return parse(text);
  }
  const TreeData& old = *old_root.tree_data();
  const Segments segments(old, old_text);
  if (segments.children.empty()) return parse(text);
  const std::vector<uint8_t> dirty = segments.dirty(edits);
  // Where an old byte that no edit touches lies in `text`; asked in increasing order.
  size_t next_edit = 0;
  int64_t shift = 0;
  const auto moved = [&](uint32_t at) {
    for (; next_edit < edits.size() && edits[next_edit].range.end <= at; ++next_edit) {
      shift += static_cast<int64_t>(edits[next_edit].replacement.size()) -
               static_cast<int64_t>(edits[next_edit].range.length());
    }
    return static_cast<uint32_t>(at + shift);
  };
  size_t parsed = 0;
  auto data = std::make_unique<TreeData>();
  std::vector<NodeData>& nodes = data->nodes;
  nodes.reserve(old.nodes.size() + old.nodes.size() / 8);
  nodes.push_back(old.nodes[0]);  // the root: its end and child counts are set below
  for (size_t s = 0; s < segments.size();) {
    if (!dirty[s]) {
      const uint32_t at = moved(segments.bound[s]);
      const int64_t by = static_cast<int64_t>(at) - segments.bound[s];
      for (size_t k = segments.first_child[s]; k < segments.first_child[s + 1]; ++k) {
        append_top_level(old, segments.children[k], by, nodes);
      }
      if (s + 1 == segments.size()) nodes[0].end = static_cast<uint32_t>(old.nodes[0].end + by);
      ++s;
      continue;
    }
    size_t run_end = s;
    while (run_end < segments.size() && dirty[run_end]) ++run_end;
    const bool to_the_end = run_end == segments.size();
    // The run's text, then the next segment's as what tree-sitter looks ahead at; the text's
    // start stays where it is, whatever is inserted there.
    const uint32_t from = s == 0 ? 0u : moved(segments.bound[s]);
    const uint32_t limit = to_the_end ? static_cast<uint32_t>(text.size()) : moved(segments.bound[run_end]);
    const uint32_t until = to_the_end ? limit : moved(segments.bound[run_end + 1]);
    if (from > limit || limit > until || until > text.size()) return parse(text);
    parsed += until - from;
    const std::unique_ptr<TreeData> chunk = parse_flat(text.substr(from, until - from));
    if (!chunk || chunk->nodes.empty() ||
        (chunk->nodes[0].flags & (detail::kHasError | detail::kError | detail::kMissing)) != 0) {
      return parse(text);
    }
    // The run's statements must end where the next segment's first statement starts, as its own.
    const uint16_t next_symbol = to_the_end ? 0 : old.nodes[segments.children[segments.first_child[run_end]]].symbol;
    bool aligned = to_the_end;
    bool straddles = false;
    for_each_child(*chunk, 0, [&](uint32_t c) {
      const NodeData& d = chunk->nodes[c];
      if (!to_the_end && d.start + from >= limit) {
        aligned = d.start + from == limit && d.symbol == next_symbol;
        return false;
      }
      straddles = d.end + from > limit;
      if (straddles) return false;
      append_top_level(*chunk, c, from, nodes);
      return true;
    });
    if (!aligned || straddles) return parse(text);
    if (s == 0) nodes[0].start = chunk->nodes[0].start;
    if (to_the_end) nodes[0].end = chunk->nodes[0].end + from;
    s = run_end;
  }
  NodeData& root = nodes[0];
  root.subtree_end = static_cast<uint32_t>(nodes.size());
  root.child_count = 0;
  root.named_child_count = 0;
  for_each_child(*data, 0, [&](uint32_t c) {
    if (root.child_count != detail::kManyChildren) ++root.child_count;
    if ((nodes[c].flags & detail::kNamed) != 0 && root.named_child_count != detail::kManyChildren) {
      ++root.named_child_count;
    }
    return true;
  });
  last_parsed_bytes_ = parsed;
  return Tree(std::move(data));
}

std::vector<source::TextRange> top_level_statements(Node root) {
  std::vector<source::TextRange> out;
  for (Node n : root.named_children()) {
    if (!n.is(kind::comment)) out.push_back(n.range());
  }
  return out;
}

Node first_error(Node root) {
  // Document order over all nodes (MISSING nodes are anonymous), entering only subtrees that hold
  // an error.
  if (root.is_null()) return Node();
  const std::vector<NodeData>& nodes = root.tree_data()->nodes;
  for (uint32_t i = root.index(); i < nodes[root.index()].subtree_end;) {
    const NodeData& d = nodes[i];
    if ((d.flags & (detail::kMissing | detail::kError)) != 0) return Node(root.tree_data(), i);
    i = i == root.index() || (d.flags & detail::kHasError) != 0 ? i + 1 : d.subtree_end;
  }
  return Node();
}

}  // namespace graphmend::syntax
