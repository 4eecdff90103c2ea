// syntax::Tree is a copy of tree-sitter's tree in a flat array. These tests hold every accessor
// against tree-sitter's own answer on every fixture, and state the lifetimes and walks.
#include <gtest/gtest.h>
#include <tree_sitter/api.h>

#include <algorithm>
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

// Every node of both trees, field for field.
void expect_identical(const Tree& edited, const Tree& whole, const std::string& where) {
  const std::vector<detail::NodeData>& a = edited.root().tree_data()->nodes;
  const std::vector<detail::NodeData>& b = whole.root().tree_data()->nodes;
  ASSERT_EQ(a.size(), b.size()) << where;
  for (size_t i = 0; i < a.size(); ++i) {
    const detail::NodeData& x = a[i];
    const detail::NodeData& y = b[i];
    const bool same = x.start == y.start && x.end == y.end && x.parent == y.parent && x.subtree_end == y.subtree_end &&
                      x.symbol == y.symbol && x.child_count == y.child_count &&
                      x.named_child_count == y.named_child_count && x.field == y.field && x.flags == y.flags;
    ASSERT_TRUE(same) << where << ": node " << i << " differs ("
                      << Node(edited.root().tree_data(), static_cast<uint32_t>(i)).type() << " at " << x.start
                      << " against " << Node(whole.root().tree_data(), static_cast<uint32_t>(i)).type() << " at "
                      << y.start << ")";
  }
}

std::string with_edits(std::string text, const std::vector<source::Edit>& edits) {
  for (auto it = edits.rbegin(); it != edits.rend(); ++it) {
    text.replace(it->range.start, it->range.length(), it->replacement);
  }
  return text;
}

// Parses `old_text`, applies `edits`, and holds parse_edited against a whole parse of the result.
// Returns whether parse_edited read fewer bytes than the whole text (it parsed only some).
bool edited_is_whole(const std::string& old_text, std::vector<source::Edit> edits, const std::string& where) {
  Parser parser;
  const std::optional<Tree> old = parser.parse(old_text);
  EXPECT_TRUE(old && !old->has_error()) << where;
  if (!old) return false;
  std::sort(edits.begin(), edits.end());
  const std::string text = with_edits(old_text, edits);
  const std::optional<Tree> edited = parser.parse_edited(text, old->root(), old_text, edits);
  const bool partial = parser.last_parsed_bytes() < text.size();
  const std::optional<Tree> whole = Parser().parse(text);
  EXPECT_TRUE(edited && whole) << where;
  if (edited && whole) expect_identical(*edited, *whole, where);
  return partial;
}

source::Edit insert(const std::string& text, std::string_view before, std::string replacement) {
  const size_t at = text.find(before);
  EXPECT_NE(at, std::string::npos) << before;
  return source::Edit::insertion(static_cast<uint32_t>(at), std::move(replacement));
}

source::Edit replace(const std::string& text, std::string_view what, std::string replacement) {
  const size_t at = text.find(what);
  EXPECT_NE(at, std::string::npos) << what;
  return source::Edit::replace({static_cast<uint32_t>(at), static_cast<uint32_t>(at + what.size())},
                               std::move(replacement));
}

const std::string kThreeFunctions =
    "import torch\n\n\n"
    "def first(x):\n    return x + 1\n\n\n"
    "def second(x):\n    if x.sum() > 0:\n        x = x * 2\n    return x\n\n\n"
    "def third(x):\n    return x - 1\n";

TEST(ParseEdited, ParsesAgainOnlyTheStatementsAnEditTouchesAndTheNextOne) {
  const std::string& t = kThreeFunctions;
  Parser parser;
  const std::optional<Tree> old = parser.parse(t);
  ASSERT_TRUE(old);
  const std::vector<source::Edit> edits{replace(t, "x = x * 2", "x = torch.where(x.sum() > 0, x * 2, x)")};
  const std::string text = with_edits(t, edits);
  const std::optional<Tree> edited = parser.parse_edited(text, old->root(), t, edits);
  ASSERT_TRUE(edited);
  // `second`, then `third` as what tree-sitter looks ahead at; not the import or `first`.
  EXPECT_EQ(parser.last_parsed_bytes(), text.size() - text.find("def second"));
  expect_identical(*edited, *Parser().parse(text), "edit in the middle function");
}

TEST(ParseEdited, IsTheWholeParseAtEveryKindOfBoundary) {
  const std::string& t = kThreeFunctions;
  const auto end = static_cast<uint32_t>(t.size());
  EXPECT_TRUE(edited_is_whole(t, {source::Edit::insertion(0, "from x import y\n")}, "insertion at the start"));
  EXPECT_TRUE(edited_is_whole(t, {insert(t, "def first", "_graphmend = 1\n\n\n")}, "a statement before a def"));
  EXPECT_TRUE(edited_is_whole(t, {source::Edit::insertion(end, "\n\ndef fourth():\n    pass\n")}, "appended"));
  EXPECT_TRUE(edited_is_whole(t, {replace(t, "return x - 1", "return x - 2")}, "the last statement"));
  EXPECT_TRUE(edited_is_whole(t, {replace(t, "return x + 1", "return x + 3"), replace(t, "return x - 1", "pass")},
                              "two runs"));
  EXPECT_TRUE(edited_is_whole(
      t, {replace(t, "def second(x):\n    if x.sum() > 0:\n        x = x * 2\n    return x\n\n\n", "")},
      "a statement deleted"));
  EXPECT_FALSE(edited_is_whole(t, {source::Edit::replace({0, end}, "y = 2\n")}, "everything replaced"));

  const std::string semicolons = "a = 1; b = 2\nc = 3\nd = 4\n";
  edited_is_whole(semicolons, {replace(semicolons, "b = 2", "b = 5")}, "after a semicolon");
  edited_is_whole(semicolons, {replace(semicolons, "c = 3", "c = 6; e = 1")}, "a semicolon added");

  const std::string continued = "x = 1 + \\\n    2\ny = [1,\n2]\nz = 3\n";
  edited_is_whole(continued, {replace(continued, "2]", "3]")}, "a bracket continued over lines");
  edited_is_whole(continued, {replace(continued, "    2", "    4")}, "a backslash continuation");
  const std::string bare_backslash = "x = 1\n\\\ny = 2\nz = 3\n";
  edited_is_whole(bare_backslash, {replace(bare_backslash, "x = 1", "x = 5")}, "a line that is a backslash");

  const std::string comments =
      "class A:\n    def f(self):\n        return 1\n# col 0, after the body\n\n    # indented, after it\n"
      "class B:\n    pass\n    # trailing\n# last\nclass C:\n    pass\n";
  EXPECT_TRUE(edited_is_whole(comments, {replace(comments, "return 1", "return 2")}, "comments after a body"));
  edited_is_whole(comments, {replace(comments, "pass", "x = 1")}, "comments at the end");

  const std::string compound =
      "import a\nif a.X:\n    v = 1\nelif a.Y:\n    v = 2\nelse:\n    v = 3\n"
      "try:\n    w = 1\nexcept E:\n    w = 2\nfinally:\n    pass\n"
      "@dec\n@dec2(1)\ndef g():\n    return v\nwhile w:\n    break\nelse:\n    pass\n";
  edited_is_whole(compound, {replace(compound, "v = 3", "v = 4")}, "an else of a top-level if");
  edited_is_whole(compound, {replace(compound, "w = 2", "w = 5")}, "an except clause");
  EXPECT_TRUE(edited_is_whole(compound, {replace(compound, "return v", "return v + 1")}, "a decorated def"));
  edited_is_whole(compound, {insert(compound, "@dec\n", "z = 0\n")}, "before decorators");

  const std::string crlf = "import torch\r\n\r\ndef f(x):\r\n    return x\r\n\r\ndef g(x):\r\n    return x\r\n";
  EXPECT_TRUE(edited_is_whole(crlf, {replace(crlf, "return x\r\n\r\ndef g", "return x * 2\r\n\r\ndef g")}, "CRLF"));
}

TEST(ParseEdited, FallsBackToTheWholeParseWhenAnEditBreaksOrSpillsOver) {
  const std::string& t = kThreeFunctions;
  // A syntax error: the tree is the whole parse's, error nodes and all.
  EXPECT_FALSE(edited_is_whole(t, {replace(t, "return x + 1", "return x +")}, "syntax error"));
  // A string opened in one statement swallows the ones after it.
  EXPECT_FALSE(edited_is_whole(t, {replace(t, "return x + 1", "return \"\"\"x")}, "an unclosed string"));
  // An open bracket carries the next statements into this one.
  EXPECT_FALSE(edited_is_whole(t, {replace(t, "return x + 1", "return (x")}, "an unclosed bracket"));
}

// Edits of the kinds fixes make, statement by statement over every fixture: a statement inserted
// before one, a comment after one, a line inserted at the top of a body, a statement deleted.
TEST(ParseEdited, IsTheWholeParseForEditsAcrossEveryFixture) {
  size_t cases = 0;
  size_t partial = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(GM_FIXTURES_DIR)) {
    if (entry.path().extension() != ".py") continue;
    const std::string text = read(entry.path());
    const std::optional<Tree> tree = Parser().parse(text);
    if (!tree || tree->has_error()) continue;
    const std::vector<Node> statements = tree->root().named_children();
    for (size_t k = 0; k < statements.size() && k < 40; ++k) {
      const Node s = statements[k];
      const std::string where = entry.path().filename().string() + " statement " + std::to_string(k);
      const bool line_start = s.start() == 0 || text[s.start() - 1] == '\n';
      std::vector<std::vector<source::Edit>> variants;
      if (line_start) variants.push_back({source::Edit::insertion(s.start(), "_probe = 0\n")});
      variants.push_back({source::Edit::insertion(s.end(), "  # probe")});
      // The first statement of the first body below it, with its indentation.
      walk(s, [&](Node n) {
        if (!n.is(kind::block) || n.named_child_count() == 0) return true;
        const Node first = n.named_child(0);
        const size_t line = text.rfind('\n', first.start());
        const size_t column = first.start() - (line == std::string::npos ? 0 : line + 1);
        if (text.find_first_not_of(' ', first.start() - column) != first.start()) return false;  // not alone
        variants.push_back({source::Edit::insertion(first.start(), "pass\n" + std::string(column, ' '))});
        return false;
      });
      if (line_start && k + 1 < statements.size() && text[statements[k + 1].start() - 1] == '\n') {
        variants.push_back({source::Edit::deletion({s.start(), statements[k + 1].start()})});
      }
      for (auto& edits : variants) {
        ++cases;
        partial += edited_is_whole(text, edits, where) ? 1 : 0;
        if (HasFailure()) return;
      }
    }
  }
  EXPECT_GT(cases, 500u);
  EXPECT_GT(partial * 10, cases * 9);  // nearly every edit parsed only part of its file
}

}  // namespace
}  // namespace graphmend::syntax
