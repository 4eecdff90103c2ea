// syntax::Tree is a copy of tree-sitter's tree in a flat array. These tests hold every accessor
// against tree-sitter's own answer on every fixture, and state the lifetimes and walks.
#include <gtest/gtest.h>
#include <tree_sitter/api.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "graphmend/syntax/tree.h"

namespace graphmend::syntax {
namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The same node: same kind, same bytes, same flags.
void expect_same(TSNode raw, Node flat, const std::string& where) {
  ASSERT_EQ(ts_node_is_null(raw), flat.is_null()) << where;
  if (flat.is_null()) return;
  EXPECT_EQ(ts_node_symbol(raw), flat.symbol()) << where;
  EXPECT_EQ(ts_node_start_byte(raw), flat.start()) << where;
  EXPECT_EQ(ts_node_end_byte(raw), flat.end()) << where;
}

class TreeAgreesWithTreeSitter : public ::testing::Test {
 protected:
  void compare_file(const std::string& text, const std::string& name) {
    TSParser* raw_parser = ts_parser_new();
    ts_parser_set_language(raw_parser, python_language());
    TSTree* raw_tree = ts_parser_parse_string(raw_parser, nullptr, text.data(), static_cast<uint32_t>(text.size()));
    std::optional<Tree> tree = Parser().parse(text);
    ASSERT_TRUE(tree) << name;
    std::vector<std::string> fields;
    for (TSFieldId id = 1; id <= ts_language_field_count(python_language()); ++id) {
      fields.emplace_back(ts_language_field_name_for_id(python_language(), id));
    }
    // Pre-order over both: a cursor over tree-sitter's, the array index over the copy.
    std::vector<TSNode> raw_nodes;
    TSTreeCursor cursor = ts_tree_cursor_new(ts_tree_root_node(raw_tree));
    for (bool more = true; more;) {
      raw_nodes.push_back(ts_tree_cursor_current_node(&cursor));
      if (ts_tree_cursor_goto_first_child(&cursor)) continue;
      while (!ts_tree_cursor_goto_next_sibling(&cursor)) {
        if (!ts_tree_cursor_goto_parent(&cursor)) {
          more = false;
          break;
        }
      }
    }
    ts_tree_cursor_delete(&cursor);
    ASSERT_EQ(raw_nodes.size(), tree->node_count()) << name;
    for (uint32_t i = 0; i < raw_nodes.size(); ++i) {
      const TSNode raw = raw_nodes[i];
      const Node flat(tree->root().tree_data(), i);
      const std::string where = name + " node " + std::to_string(i) + " " + std::string(flat.type());
      expect_same(raw, flat, where);
      EXPECT_EQ(ts_node_type(raw), flat.type()) << where;
      EXPECT_EQ(ts_node_is_named(raw), flat.is_named()) << where;
      EXPECT_EQ(ts_node_is_missing(raw), flat.is_missing()) << where;
      EXPECT_EQ(ts_node_is_error(raw), flat.is_error()) << where;
      EXPECT_EQ(ts_node_has_error(raw), flat.has_error()) << where;
      EXPECT_EQ(ts_node_child_count(raw), flat.child_count()) << where;
      EXPECT_EQ(ts_node_named_child_count(raw), flat.named_child_count()) << where;
      expect_same(ts_node_parent(raw), flat.parent(), where + " parent");
      expect_same(ts_node_next_named_sibling(raw), flat.next_named_sibling(), where + " next");
      expect_same(ts_node_prev_named_sibling(raw), flat.prev_named_sibling(), where + " prev");
      for (uint32_t c = 0; c < flat.child_count(); ++c) expect_same(ts_node_child(raw, c), flat.child(c), where);
      for (uint32_t c = 0; c < flat.named_child_count(); ++c) {
        expect_same(ts_node_named_child(raw, c), flat.named_child(c), where);
      }
      for (const std::string& f : fields) {
        expect_same(ts_node_child_by_field_name(raw, f.data(), static_cast<uint32_t>(f.size())),
                    flat.field(syntax::Field(f)), where + " field " + f);
      }
      // Empty ranges at its ends, a range inside the node, and one across two of its children.
      expect_same(ts_node_named_descendant_for_byte_range(raw, flat.start(), flat.start()),
                  flat.named_descendant_for_range(flat.start(), flat.start()), where + " descendant");
      expect_same(ts_node_named_descendant_for_byte_range(raw, flat.end(), flat.end()),
                  flat.named_descendant_for_range(flat.end(), flat.end()), where + " descendant");
      const uint32_t mid = flat.start() + (flat.end() - flat.start()) / 2;
      expect_same(ts_node_named_descendant_for_byte_range(raw, mid, mid + 1), flat.named_descendant_for_range(mid, mid + 1),
                  where + " descendant");
      expect_same(ts_node_named_descendant_for_byte_range(raw, flat.start(), mid),
                  flat.named_descendant_for_range(flat.start(), mid), where + " descendant");
    }
    ts_tree_delete(raw_tree);
    ts_parser_delete(raw_parser);
  }
};

TEST_F(TreeAgreesWithTreeSitter, OnEveryFixture) {
  size_t files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(GM_FIXTURES_DIR)) {
    if (entry.path().extension() != ".py") continue;
    compare_file(read(entry.path()), entry.path().string());
    ++files;
    if (HasFailure()) return;  // one file's differences are enough to read
  }
  EXPECT_GT(files, 50u);
}

TEST_F(TreeAgreesWithTreeSitter, OnSyntaxErrorsAndRecovery) {
  compare_file("def f(:\n    return x +\n", "broken def");
  compare_file("x = (1,\ny = 2\n", "unclosed paren");
  compare_file("if x\n    pass\n", "missing colon");
  compare_file("", "empty");
  compare_file("\xef\xbb\xbfprint('bom')\r\n", "bom and crlf");
}

TEST(Tree, NodesStayValidWhenTheTreeMoves) {
  std::optional<Tree> tree = Parser().parse("def f(x):\n    return x\n");
  ASSERT_TRUE(tree);
  const Node fn = tree->root().named_child(0);
  Tree moved = std::move(*tree);
  EXPECT_EQ(fn, moved.root().named_child(0));
  EXPECT_TRUE(fn.is(kind::function_definition));
  EXPECT_EQ(fn.field(field::name).text("def f(x):\n    return x\n"), "f");
}

// A field constant is the grammar's id for its name, and finds what tree-sitter finds by name.
TEST(Tree, FieldConstantsAreTheGrammarsFields) {
  for (const Field* f : {&field::function, &field::arguments, &field::left, &field::right, &field::operator_,
                         &field::alternative, &field::subscript, &field::module_name}) {
    ASSERT_NE(f->id(), 0) << f->name();
    EXPECT_EQ(std::string_view(ts_language_field_name_for_id(python_language(), f->id())), f->name());
  }
  const std::string text = "y = f(a) if a < b else g[i, j]\n";
  std::optional<Tree> tree = Parser().parse(text);
  ASSERT_TRUE(tree);
  const Node conditional = tree->root().named_child(0).named_child(0).field(field::right);
  ASSERT_TRUE(conditional.is(kind::conditional_expression));
  const Node call = conditional.named_child(0);
  EXPECT_EQ(call.field(field::function).text(text), "f");
  EXPECT_EQ(call.field(field::arguments).text(text), "(a)");
  EXPECT_EQ(conditional.named_child(1).field(field::operators).text(text), "<");
  std::vector<std::string> subscripts;
  for (Node s : conditional.named_child(2).children_by_field(field::subscript)) subscripts.emplace_back(s.text(text));
  EXPECT_EQ(subscripts, (std::vector<std::string>{"i", "j"}));
  EXPECT_TRUE(call.field(field::left).is_null());  // a call has no `left`
}

TEST(Tree, WalkVisitsNamedNodesInPreorderAndSkipsWhereAsked) {
  const std::string text = "a = f(b)\nc = [d for d in e]\n";
  std::optional<Tree> tree = Parser().parse(text);
  ASSERT_TRUE(tree);
  std::vector<std::string> seen;
  walk(tree->root(), [&](Node n) {
    if (n.is(kind::identifier)) seen.emplace_back(n.text(text));
    return !n.is(kind::list_comprehension);  // its names are not visited
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"a", "f", "b", "c"}));
}

TEST(Tree, ChildCountsPastSixteenBitsAreCountedAgain) {
  // A node keeps its child counts in 16 bits; 70,000 statements in a module are counted on demand.
  std::string text;
  for (int i = 0; i < 70'000; ++i) text += "x = " + std::to_string(i) + "\n";
  std::optional<Tree> tree = Parser().parse(text);
  ASSERT_TRUE(tree);
  EXPECT_EQ(tree->root().child_count(), 70'000u);
  EXPECT_EQ(tree->root().named_child_count(), 70'000u);
  EXPECT_EQ(tree->root().named_child(69'999).start(), text.rfind("x = "));
  EXPECT_EQ(tree->root().children().size(), 70'000u);
}

TEST(Tree, NullNodesAnswerEmpty) {
  const Node none;
  EXPECT_FALSE(none);
  EXPECT_EQ(none.start(), 0u);
  EXPECT_EQ(none.child_count(), 0u);
  EXPECT_FALSE(none.field(field::body));
  EXPECT_FALSE(none.parent());
  EXPECT_TRUE(none.children().empty());
  EXPECT_EQ(none.id(), nullptr);
}

TEST(Tree, NestingDepthAndFirstError) {
  std::optional<Tree> tree = Parser().parse("x = ((((1))))\ny = (\n");
  ASSERT_TRUE(tree);
  EXPECT_TRUE(tree->has_error());
  const Node err = first_error(tree->root());
  ASSERT_TRUE(err);
  EXPECT_GE(err.start(), 14u);  // in the second statement
  EXPECT_EQ(nesting_depth(tree->root(), 3), 4u);  // counting stops past the limit
  EXPECT_GT(nesting_depth(tree->root(), 100), 6u);
}

}  // namespace
}  // namespace graphmend::syntax
