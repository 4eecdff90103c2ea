#include "graphmend/syntax/tree.h"

#include <algorithm>

#include <tree_sitter/api.h>

#include <cstring>
#include <functional>
#include <stdexcept>

extern "C" const TSLanguage* tree_sitter_python();

namespace graphmend::syntax {
namespace {

static_assert(sizeof(RawNode) == sizeof(TSNode));

TSNode ts(const Node& n) {
  TSNode out;
  std::memcpy(&out, &n.raw(), sizeof(TSNode));
  return out;
}

Node wrap(TSNode n) {
  if (ts_node_is_null(n)) return Node();
  RawNode raw;
  std::memcpy(&raw, &n, sizeof(TSNode));
  return Node(raw);
}

}  // namespace

uint16_t Node::symbol() const { return ts_node_symbol(ts(*this)); }

std::string_view Node::type() const { return is_null() ? std::string_view() : ts_node_type(ts(*this)); }
bool Node::is_named() const { return ts_node_is_named(ts(*this)); }
bool Node::is_error() const { return !is_null() && ts_node_is_error(ts(*this)); }
bool Node::is_missing() const { return !is_null() && ts_node_is_missing(ts(*this)); }
bool Node::has_error() const { return !is_null() && ts_node_has_error(ts(*this)); }
uint32_t Node::start() const { return ts_node_start_byte(ts(*this)); }
uint32_t Node::end() const { return ts_node_end_byte(ts(*this)); }
Node Node::parent() const { return is_null() ? Node() : wrap(ts_node_parent(ts(*this))); }

Node Node::field(std::string_view name) const {
  if (is_null()) return Node();
  return wrap(ts_node_child_by_field_name(ts(*this), name.data(), static_cast<uint32_t>(name.size())));
}

uint32_t Node::child_count() const { return is_null() ? 0 : ts_node_child_count(ts(*this)); }
uint32_t Node::named_child_count() const { return is_null() ? 0 : ts_node_named_child_count(ts(*this)); }
Node Node::child(uint32_t i) const { return wrap(ts_node_child(ts(*this), i)); }
Node Node::named_child(uint32_t i) const { return wrap(ts_node_named_child(ts(*this), i)); }
Node Node::next_named_sibling() const { return wrap(ts_node_next_named_sibling(ts(*this))); }
Node Node::prev_named_sibling() const { return wrap(ts_node_prev_named_sibling(ts(*this))); }
Node Node::named_descendant_for_range(uint32_t start, uint32_t end) const {
  if (is_null()) return Node();
  return wrap(ts_node_named_descendant_for_byte_range(ts(*this), start, end));
}

// Children are read with a cursor: ts_node_child(i) walks from the first sibling each time.
std::vector<Node> Node::children() const {
  std::vector<Node> out;
  if (is_null()) return out;
  TSTreeCursor cursor = ts_tree_cursor_new(ts(*this));
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      out.push_back(wrap(ts_tree_cursor_current_node(&cursor)));
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}

std::vector<Node> Node::named_children() const {
  std::vector<Node> out;
  if (is_null()) return out;
  TSTreeCursor cursor = ts_tree_cursor_new(ts(*this));
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      TSNode n = ts_tree_cursor_current_node(&cursor);
      if (ts_node_is_named(n)) out.push_back(wrap(n));
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}

uint32_t nesting_depth(Node root, uint32_t stop_above) {
  if (root.is_null()) return 0;
  TSTreeCursor cursor = ts_tree_cursor_new(ts(root));
  uint32_t depth = 1;
  uint32_t deepest = 1;
  for (;;) {
    if (ts_tree_cursor_goto_first_child(&cursor)) {
      deepest = std::max(deepest, ++depth);
      if (deepest > stop_above) break;
      continue;
    }
    bool moved = false;
    while (!moved) {
      if (ts_tree_cursor_goto_next_sibling(&cursor)) {
        moved = true;
      } else if (ts_tree_cursor_goto_parent(&cursor)) {
        --depth;
      } else {
        ts_tree_cursor_delete(&cursor);
        return deepest;
      }
    }
  }
  ts_tree_cursor_delete(&cursor);
  return deepest;
}

void walk_named(Node root, const std::function<bool(Node)>& visit) {
  if (root.is_null()) return;
  TSTreeCursor cursor = ts_tree_cursor_new(ts(root));
  // Pre-order over named nodes; an unnamed node's named descendants are still visited. A leaf
  // (most nodes: names, literals, punctuation) is not asked for a first child it does not have.
  bool descend = visit(root) && ts_node_child_count(ts(root)) != 0;
  const auto step_into = [&](TSNode n) {
    return (ts_node_is_named(n) ? visit(wrap(n)) : true) && ts_node_child_count(n) != 0;
  };
  for (;;) {
    if (descend && ts_tree_cursor_goto_first_child(&cursor)) {
      descend = step_into(ts_tree_cursor_current_node(&cursor));
      continue;
    }
    bool moved = false;
    while (!moved) {
      if (ts_tree_cursor_goto_next_sibling(&cursor)) {
        moved = true;
      } else if (!ts_tree_cursor_goto_parent(&cursor)) {
        ts_tree_cursor_delete(&cursor);
        return;
      }
    }
    descend = step_into(ts_tree_cursor_current_node(&cursor));
  }
}

std::vector<Node> Node::children_by_field(std::string_view name) const {
  std::vector<Node> out;
  if (is_null()) return out;
  const TSFieldId id = ts_language_field_id_for_name(python_language(), name.data(),
                                                      static_cast<uint32_t>(name.size()));
  if (id == 0) return out;
  TSTreeCursor cursor = ts_tree_cursor_new(ts(*this));
  if (ts_tree_cursor_goto_first_child(&cursor)) {
    do {
      if (ts_tree_cursor_current_field_id(&cursor) == id) {
        out.push_back(wrap(ts_tree_cursor_current_node(&cursor)));
      }
    } while (ts_tree_cursor_goto_next_sibling(&cursor));
  }
  ts_tree_cursor_delete(&cursor);
  return out;
}

void TreeDeleter::operator()(TSTree* t) const { ts_tree_delete(t); }
void ParserDeleter::operator()(TSParser* p) const { ts_parser_delete(p); }

Node Tree::root() const { return wrap(ts_tree_root_node(tree_.get())); }

const TSLanguage* python_language() { return tree_sitter_python(); }

Parser::Parser() : parser_(ts_parser_new()) {
  if (!ts_parser_set_language(parser_.get(), python_language())) {
    throw std::runtime_error("tree-sitter-python grammar ABI is incompatible with the runtime");
  }
}

void use_allocator(void* (*malloc_fn)(size_t), void* (*calloc_fn)(size_t, size_t),
                   void* (*realloc_fn)(void*, size_t), void (*free_fn)(void*)) {
  ts_set_allocator(malloc_fn, calloc_fn, realloc_fn, free_fn);
}

std::optional<Tree> Parser::parse(std::string_view text) {
  TSTree* tree = ts_parser_parse_string(parser_.get(), nullptr, text.data(),
                                        static_cast<uint32_t>(text.size()));
  if (tree == nullptr) return std::nullopt;
  return Tree(tree);
}

Node first_error(Node root) {
  // Document-order search over all children: MISSING nodes are unnamed, so a named walk misses them.
  std::vector<Node> stack{root};
  while (!stack.empty()) {
    Node n = stack.back();
    stack.pop_back();
    if (n.is_missing() || n.is_error()) return n;
    std::vector<Node> kids = n.children();
    for (auto it = kids.rbegin(); it != kids.rend(); ++it) {
      if (it->has_error() || it->is_missing()) stack.push_back(*it);
    }
  }
  return Node();
}

}  // namespace graphmend::syntax
