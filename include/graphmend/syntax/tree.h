// RAII owners over the tree-sitter C API and a borrowed Node view.
//
// Lifetimes: `Parser` and `Tree` are move-only owners. `Node` is a trivially-copyable view that is
// valid while the `Tree` it came from lives; it never owns anything.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "graphmend/source/text.h"
#include "graphmend/syntax/kinds.h"

struct TSParser;
struct TSTree;
struct TSLanguage;

namespace graphmend::syntax {

// Mirrors TSNode so this header does not expose the C API.
struct RawNode {
  uint32_t context[4];
  const void* id;
  const TSTree* tree;
};

class Node {
 public:
  Node() : raw_{{0, 0, 0, 0}, nullptr, nullptr} {}
  explicit Node(RawNode raw) : raw_(raw) {}

  [[nodiscard]] bool is_null() const { return raw_.id == nullptr; }
  explicit operator bool() const { return !is_null(); }

  [[nodiscard]] std::string_view type() const;  // for messages; test kinds with is()
  [[nodiscard]] bool is(const Kind& kind) const { return !is_null() && kind.matches(symbol()); }
  [[nodiscard]] uint16_t symbol() const;
  [[nodiscard]] bool is_named() const;
  [[nodiscard]] bool is_error() const;    // ERROR node
  [[nodiscard]] bool is_missing() const;  // MISSING node inserted by recovery
  [[nodiscard]] bool has_error() const;   // anywhere below

  [[nodiscard]] uint32_t start() const;
  [[nodiscard]] uint32_t end() const;
  [[nodiscard]] source::TextRange range() const { return {start(), end()}; }
  [[nodiscard]] std::string_view text(std::string_view source) const {
    return source.substr(start(), end() - start());
  }

  [[nodiscard]] Node parent() const;
  [[nodiscard]] Node field(std::string_view name) const;
  [[nodiscard]] uint32_t child_count() const;
  [[nodiscard]] uint32_t named_child_count() const;
  [[nodiscard]] Node child(uint32_t i) const;
  [[nodiscard]] Node named_child(uint32_t i) const;
  [[nodiscard]] std::vector<Node> children() const;
  [[nodiscard]] std::vector<Node> named_children() const;
  // Children carrying field `name` (e.g. several `alternative` clauses of an if).
  [[nodiscard]] std::vector<Node> children_by_field(std::string_view name) const;
  [[nodiscard]] Node next_named_sibling() const;
  [[nodiscard]] Node prev_named_sibling() const;
  // The smallest named node below this one that spans [start, end).
  [[nodiscard]] Node named_descendant_for_range(uint32_t start, uint32_t end) const;

  // Identity: same node of the same tree.
  [[nodiscard]] const void* id() const { return raw_.id; }
  friend bool operator==(const Node& a, const Node& b) { return a.raw_.id == b.raw_.id; }

  [[nodiscard]] const RawNode& raw() const { return raw_; }

 private:
  RawNode raw_;
};

struct TreeDeleter {
  void operator()(TSTree* t) const;
};
struct ParserDeleter {
  void operator()(TSParser* p) const;
};

class Tree {
 public:
  explicit Tree(TSTree* tree) : tree_(tree) {}
  [[nodiscard]] Node root() const;
  [[nodiscard]] bool has_error() const { return root().has_error(); }

 private:
  std::unique_ptr<TSTree, TreeDeleter> tree_;
};

// A Python parser. Not thread-safe; use one per thread.
class Parser {
 public:
  Parser();
  // Returns nullopt only if tree-sitter gives up (cancellation or an internal limit).
  [[nodiscard]] std::optional<Tree> parse(std::string_view text);

 private:
  std::unique_ptr<TSParser, ParserDeleter> parser_;
};

const TSLanguage* python_language();

// The allocation functions tree-sitter uses, process-wide. Each must accept memory that plain
// malloc/free (and the others) handle, since trees may already exist; they must not throw.
// driver/budget.cpp counts trees in a file's memory budget this way.
void use_allocator(void* (*malloc_fn)(size_t), void* (*calloc_fn)(size_t, size_t),
                   void* (*realloc_fn)(void*, size_t), void (*free_fn)(void*));

// The first ERROR or MISSING node in document order, if any.
Node first_error(Node root);

// How deep the tree nests below `root` (root = 1), counting stops once past `stop_above`.
// Iterative: safe on any input.
uint32_t nesting_depth(Node root, uint32_t stop_above);

// Pre-order walk over named nodes; `visit` returns false to skip a node's children.
void walk_named(Node root, const std::function<bool(Node)>& visit);

template <typename F>
void walk(Node node, F&& visit) {
  walk_named(node, std::function<bool(Node)>(std::forward<F>(visit)));
}

}  // namespace graphmend::syntax
