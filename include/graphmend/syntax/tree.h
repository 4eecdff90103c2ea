// RAII owners over the tree-sitter C API and a borrowed Node view.
//
// Lifetimes: `Parser` and `Tree` are move-only owners. `Node` is a trivially-copyable view that is
// valid while the `Tree` it came from lives (moving the Tree keeps it valid); it never owns
// anything. tree-sitter's own tree lives only inside Parser::parse.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "graphmend/source/edit.h"
#include "graphmend/source/text.h"
#include "graphmend/syntax/kinds.h"

struct TSLanguage;

namespace graphmend::syntax {

namespace detail {

inline constexpr uint32_t kNoNode = UINT32_MAX;

// One node of a parsed file, copied out of tree-sitter's tree. Nodes lie in pre-order, so a
// node's descendants are the indices (index, subtree_end) and a walk is a scan of an array.
// 24 bytes a node (a file's tree is about 160 nodes a kilobyte of source). Child counts of 65,535
// and more are counted again when asked (kManyChildren).
inline constexpr uint16_t kManyChildren = UINT16_MAX;
struct NodeData {
  uint32_t start = 0;                // byte range
  uint32_t end = 0;
  uint32_t parent = kNoNode;
  uint32_t subtree_end = 0;          // one past the node's last descendant
  uint16_t symbol = 0;               // grammar symbol (aliases applied)
  uint16_t child_count = 0;          // named and anonymous, up to kManyChildren
  uint16_t named_child_count = 0;    // up to kManyChildren
  uint8_t field = 0;                 // the field this node fills in its parent; 0 for none
  uint8_t flags = 0;
};
static_assert(sizeof(NodeData) == 24);

enum NodeFlag : uint8_t { kNamed = 1, kError = 2, kMissing = 4, kHasError = 8 };

struct TreeData {
  std::vector<NodeData> nodes;  // never resized once built: Nodes point into it
};

}  // namespace detail

// A node of a Tree. Every accessor is O(1) except those that step over siblings (child(i),
// field(), the sibling and descendant searches: O(children)).
class Node {
 public:
  Node() = default;
  Node(const detail::TreeData* tree, uint32_t index) : tree_(tree), index_(index) {}

  [[nodiscard]] bool is_null() const { return tree_ == nullptr; }
  explicit operator bool() const { return !is_null(); }

  [[nodiscard]] std::string_view type() const;  // for messages; test kinds with is()
  [[nodiscard]] bool is(const Kind& kind) const { return !is_null() && kind.matches(data().symbol); }
  [[nodiscard]] uint16_t symbol() const { return is_null() ? 0 : data().symbol; }
  [[nodiscard]] bool is_named() const { return has_flag(detail::kNamed); }
  [[nodiscard]] bool is_error() const { return has_flag(detail::kError); }      // ERROR node
  [[nodiscard]] bool is_missing() const { return has_flag(detail::kMissing); }  // MISSING node inserted by recovery
  [[nodiscard]] bool has_error() const { return has_flag(detail::kHasError); }  // anywhere below

  [[nodiscard]] uint32_t start() const { return is_null() ? 0 : data().start; }
  [[nodiscard]] uint32_t end() const { return is_null() ? 0 : data().end; }
  [[nodiscard]] source::TextRange range() const { return {start(), end()}; }
  [[nodiscard]] std::string_view text(std::string_view source) const {
    return source.substr(start(), end() - start());
  }

  [[nodiscard]] Node parent() const {
    return is_null() || data().parent == detail::kNoNode ? Node() : Node(tree_, data().parent);
  }
  [[nodiscard]] Node field(const Field& field) const;
  [[nodiscard]] uint32_t child_count() const {
    return is_null() ? 0 : data().child_count == detail::kManyChildren ? count_children(false) : data().child_count;
  }
  [[nodiscard]] uint32_t named_child_count() const {
    return is_null()                                        ? 0
           : data().named_child_count == detail::kManyChildren ? count_children(true)
                                                              : data().named_child_count;
  }
  [[nodiscard]] Node child(uint32_t i) const;
  [[nodiscard]] Node named_child(uint32_t i) const;
  [[nodiscard]] std::vector<Node> children() const;
  [[nodiscard]] std::vector<Node> named_children() const;
  // Children carrying `field` (e.g. several `alternative` clauses of an if).
  [[nodiscard]] std::vector<Node> children_by_field(const Field& field) const;
  [[nodiscard]] Node next_named_sibling() const;
  [[nodiscard]] Node prev_named_sibling() const;
  // The smallest named node below this one that spans [start, end).
  [[nodiscard]] Node named_descendant_for_range(uint32_t start, uint32_t end) const;

  // Identity: same node of the same tree.
  [[nodiscard]] const void* id() const { return is_null() ? nullptr : &data(); }
  friend bool operator==(const Node& a, const Node& b) { return a.tree_ == b.tree_ && a.index_ == b.index_; }

  // The storage behind the node, for walks over the array (see walk()).
  [[nodiscard]] const detail::TreeData* tree_data() const { return tree_; }
  [[nodiscard]] uint32_t index() const { return index_; }

 private:
  [[nodiscard]] const detail::NodeData& data() const { return tree_->nodes[index_]; }
  [[nodiscard]] uint32_t count_children(bool named_only) const;
  [[nodiscard]] bool has_flag(uint8_t flag) const { return !is_null() && (data().flags & flag) != 0; }

  const detail::TreeData* tree_ = nullptr;
  uint32_t index_ = 0;
};

// A parsed file. Parsing copies tree-sitter's tree into a flat array of nodes and frees it at
// once: the copy is smaller, and walking an array is much faster than tree-sitter's cursors.
class Tree {
 public:
  [[nodiscard]] Node root() const { return Node(data_.get(), 0); }
  [[nodiscard]] bool has_error() const { return root().has_error(); }
  [[nodiscard]] size_t node_count() const { return data_->nodes.size(); }

 private:
  friend class Parser;
  explicit Tree(std::unique_ptr<detail::TreeData> data) : data_(std::move(data)) {}
  std::unique_ptr<detail::TreeData> data_;  // a stable address: Nodes outlive moves of the Tree
};

// A Python parser. Not thread-safe; use one per thread.
class Parser {
 public:
  Parser();
  // Returns nullopt only if tree-sitter gives up (cancellation or an internal limit).
  [[nodiscard]] std::optional<Tree> parse(std::string_view text);

  // parse(text), where `edits` (sorted, non-overlapping, in `old_text`'s coordinates) made `text`
  // from `old_text`, whose tree (without errors) `old_root` is the root of. Only the runs of
  // top-level statements the edits touch are parsed again, each followed by the next untouched
  // statement so that tree-sitter looks ahead at what a whole parse sees; the other statements'
  // nodes are copied, shifted. A run is cut only before a statement that starts a line, where
  // tree-sitter's state is that of a fresh parse. The result is the whole parse's, node for node
  // (tests/unit/tree_test.cpp compares them); anything that cannot be shown so (an error in a
  // run, a run whose statements end past the next one's start) falls back to parse(text).
  [[nodiscard]] std::optional<Tree> parse_edited(std::string_view text, Node old_root, std::string_view old_text,
                                                 std::span<const source::Edit> edits);

  // The bytes tree-sitter read in the last parse or parse_edited (all of them after a fallback).
  [[nodiscard]] size_t last_parsed_bytes() const { return last_parsed_bytes_; }

 private:
  size_t last_parsed_bytes_ = 0;
};

const TSLanguage* python_language();

// The allocation functions tree-sitter uses, process-wide. Each must accept memory that plain
// malloc/free (and the others) handle, since trees may already exist; they must not throw.
// driver/budget.cpp counts trees in a file's memory budget this way.
void use_allocator(void* (*malloc_fn)(size_t), void* (*calloc_fn)(size_t, size_t),
                   void* (*realloc_fn)(void*, size_t), void (*free_fn)(void*));

// The byte ranges of the statements directly below `root` (a module), comments left out.
std::vector<source::TextRange> top_level_statements(Node root);

// The first ERROR or MISSING node in document order, if any.
Node first_error(Node root);

// How deep the tree nests below `root` (root = 1), counting stops once past `stop_above`.
// Iterative: safe on any input.
uint32_t nesting_depth(Node root, uint32_t stop_above);

// Pre-order walk over named nodes below and including `root` (which is visited even if
// anonymous); `visit` returns false to skip a node's children. A scan of the node array.
template <typename F>
void walk(Node root, F&& visit) {
  if (root.is_null()) return;
  const std::vector<detail::NodeData>& nodes = root.tree_data()->nodes;
  const detail::TreeData* tree = root.tree_data();
  uint32_t i = root.index();
  const uint32_t stop = nodes[i].subtree_end;
  if (!visit(root)) return;
  for (++i; i < stop;) {
    if ((nodes[i].flags & detail::kNamed) != 0 && !visit(Node(tree, i))) {
      i = nodes[i].subtree_end;
    } else {
      ++i;
    }
  }
}


}  // namespace graphmend::syntax
