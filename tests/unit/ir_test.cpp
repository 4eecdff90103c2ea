#include <gtest/gtest.h>
#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>
#include <atomic>
#include <functional>
#include <optional>
#include <thread>
#include <variant>

#include "test_support.h"

namespace graphmend::testing {
namespace {

using ir::BindingKind;
using ir::ScopeKind;

// The types PEP 484 type comments give, as text, per parameter of the function named `name`.
std::vector<std::string> comment_types(const ir::Module& m, std::string_view name) {
  for (const ir::Function& f : m.functions) {
    if (f.name != name) continue;
    std::vector<std::string> out;
    for (const ir::Parameter& p : f.params) {
      out.emplace_back(m.text().substr(p.type_comment.start, p.type_comment.length()));
    }
    return out;
  }
  return {};
}

TEST(TypeComments, SignatureAndPerArgumentFormsLandOnTheirParameters) {
  auto p = parse_module(
      "def paste(mask, box, im_h, im_w):\n"
      "    # type: (Tensor, Optional[Tensor], int, Tuple[int, int]) -> Tensor\n"
      "    return mask\n"
      "def same_line(a, b):  # type: (Tensor, int) -> None\n"
      "    pass\n"
      "def per_argument(a,  # type: Tensor\n"
      "                 b,\n"
      "                 *rest,  # type: float\n"
      "                 ):\n"
      "    # type: (...) -> Tensor\n"
      "    pass\n"
      "class C:\n"
      "    def method(self, x, y):\n"
      "        # type: (Tensor, List[Tensor]) -> Tensor\n"
      "        pass\n"
      "    @staticmethod\n"
      "    def static(x, y):\n"
      "        # type: (Tensor) -> Tensor\n"
      "        pass\n"
      "def stars(*args, **kwargs):\n"
      "    # type: (*Tensor, **int) -> None\n"
      "    pass\n");
  const ir::Module& m = *p.module;
  using V = std::vector<std::string>;
  EXPECT_EQ(comment_types(m, "paste"), (V{"Tensor", "Optional[Tensor]", "int", "Tuple[int, int]"}));
  EXPECT_EQ(comment_types(m, "same_line"), (V{"Tensor", "int"}));
  // `(...)` gives the return type alone; the per-argument comments still count.
  EXPECT_EQ(comment_types(m, "per_argument"), (V{"Tensor", "", "float"}));
  // A method's signature may leave `self` out...
  EXPECT_EQ(comment_types(m, "method"), (V{"", "Tensor", "List[Tensor]"}));
  // ...but a staticmethod has no `self`: one type for two parameters is no mapping at all.
  EXPECT_EQ(comment_types(m, "static"), (V{"", ""}));
  EXPECT_EQ(comment_types(m, "stars"), (V{"Tensor", "int"}));
}

TEST(TypeComments, WhatIsNotATypeCommentGivesNoType) {
  auto p = parse_module(
      "def ignored(a, b):  # type: ignore\n"
      "    pass\n"
      "def too_few(a, b, c):\n"
      "    # type: (Tensor) -> Tensor\n"
      "    pass\n"
      "def after_statement(a):\n"
      "    x = 1\n"
      "    # type: (Tensor) -> Tensor\n"
      "    return a\n"
      "def prose(a):\n"
      "    # the type: a tensor\n"
      "    return a\n"
      "def next_line_comment(a,\n"
      "                      # type: Tensor\n"
      "                      b):\n"
      "    pass\n"
      "def trailing(a):\n"
      "    # type: (Tensor) -> int  # the count\n"
      "    pass\n");
  const ir::Module& m = *p.module;
  using V = std::vector<std::string>;
  EXPECT_EQ(comment_types(m, "ignored"), (V{"", ""}));
  EXPECT_EQ(comment_types(m, "too_few"), (V{"", "", ""}));
  EXPECT_EQ(comment_types(m, "after_statement"), (V{""}));
  EXPECT_EQ(comment_types(m, "prose"), (V{""}));
  // A comment on a line of its own between parameters belongs to neither.
  EXPECT_EQ(comment_types(m, "next_line_comment"), (V{"", ""}));
  EXPECT_EQ(comment_types(m, "trailing"), (V{"Tensor"}));
}

TEST(Scopes, FunctionClassLambdaComprehensionScopes) {
  auto p = parse_module(
      "x = 1\n"
      "class C:\n"
      "    y = 2\n"
      "    def m(self):\n"
      "        return y\n"      // class scope is not visible from methods
      "f = lambda a: a + x\n"
      "zs = [z * x for z in range(3)]\n");
  const ir::Module& m = *p.module;
  int kinds[5] = {};
  for (const auto& s : m.scopes) kinds[static_cast<int>(s.kind)]++;
  EXPECT_EQ(kinds[static_cast<int>(ScopeKind::Module)], 1);
  EXPECT_EQ(kinds[static_cast<int>(ScopeKind::Class)], 1);
  EXPECT_EQ(kinds[static_cast<int>(ScopeKind::Function)], 1);
  EXPECT_EQ(kinds[static_cast<int>(ScopeKind::Lambda)], 1);
  EXPECT_EQ(kinds[static_cast<int>(ScopeKind::Comprehension)], 1);
  // `y` inside the method does not resolve to the class attribute.
  ir::Node y_use = nth_identifier(m, "y", 1);
  EXPECT_EQ(m.lookup_at(y_use), -1);
  // `z` in the comprehension is local to it; `x` resolves to the module symbol.
  ir::Node z_use = nth_identifier(m, "z", 0);
  const int z = m.lookup_at(z_use);
  ASSERT_GE(z, 0);
  EXPECT_EQ(m.scopes[static_cast<size_t>(m.symbols[static_cast<size_t>(z)].scope)].kind, ScopeKind::Comprehension);
  ir::Node x_in_lambda = nth_identifier(m, "x", 1);
  EXPECT_EQ(m.symbols[static_cast<size_t>(m.lookup_at(x_in_lambda))].scope, 0);
}

TEST(Scopes, GlobalAndNonlocalRebindOuterSymbols) {
  auto p = parse_module(
      "count = 0\n"
      "def bump():\n"
      "    global count\n"
      "    count = count + 1\n"
      "def outer():\n"
      "    total = 0\n"
      "    def inner():\n"
      "        nonlocal total\n"
      "        total = 5\n"
      "    return total\n");
  const ir::Module& m = *p.module;
  ASSERT_TRUE(m.scopes[0].symbols.contains("count"));
  const int module_count = m.scopes[0].symbols.find("count")->second;
  EXPECT_EQ(m.symbols[static_cast<size_t>(module_count)].bindings.size(), 2u);  // module + bump()
  const int outer_scope = m.functions[static_cast<size_t>(m.module_function("outer"))].scope;
  ASSERT_TRUE(m.scopes[static_cast<size_t>(outer_scope)].symbols.contains("total"));
  const int total = m.scopes[static_cast<size_t>(outer_scope)].symbols.find("total")->second;
  EXPECT_EQ(m.symbols[static_cast<size_t>(total)].bindings.size(), 2u);  // outer + inner
}

TEST(Imports, AliasesResolveToQualifiedNames) {
  auto p = parse_module(
      "import torch as T\n"
      "import torch.nn.functional as F\n"
      "from torch import nn, where\n"
      "import os.path\n"
      "from . import sibling\n"
      "from ..base import Base as B\n"
      "G = F\n"
      "T.where\nnn.Module\nwhere\nos.path.join\nsibling.f\nB\nG.relu\n",
      "pkg.sub.mod");
  const ir::Module& m = *p.module;
  auto q = [&](std::string_view text) { return m.qualified_name(find_node(m, text.find('.') != std::string_view::npos ? "attribute" : "identifier", text)); };
  EXPECT_EQ(q("T.where"), "torch.where");
  EXPECT_EQ(q("nn.Module"), "torch.nn.Module");
  EXPECT_EQ(m.qualified_name(nth_identifier(m, "where", 2)), "torch.where");
  EXPECT_EQ(q("os.path.join"), "os.path.join");
  EXPECT_EQ(q("sibling.f"), "pkg.sub.sibling.f");
  EXPECT_EQ(m.qualified_name(nth_identifier(m, "B", 1)), "pkg.base.Base");
  EXPECT_EQ(q("G.relu"), "torch.nn.functional.relu");
}

TEST(Imports, ACycleOfAliasesHasNoQualifiedName) {
  // Found by the fuzzer: a name bound to an attribute of itself sent qualified_name round the
  // cycle until the stack overflowed. `import os; os = os.path` is valid Python.
  auto p = parse_module(
      "import os\n"
      "os = os.path\n"
      "a = b.x\n"
      "b = a.y\n"
      "os.join\na.z\n");
  const ir::Module& m = *p.module;
  EXPECT_EQ(m.qualified_name(find_node(m, "attribute", "os.join")), std::nullopt);
  EXPECT_EQ(m.qualified_name(find_node(m, "attribute", "a.z")), std::nullopt);
}

TEST(Cfg, ReachingDefinitionsAreFlowSensitive) {
  auto p = parse_module(
      "def f(a, flag):\n"
      "    x = 1\n"          // d1
      "    if flag:\n"
      "        x = a\n"      // d2
      "    use1 = x\n"       // reached by d1, d2
      "    x = 'z'\n"        // d3
      "    use2 = x\n"       // reached by d3 only
      "    for i in range(3):\n"
      "        x = i\n"      // d4
      "    use3 = x\n"       // d3 (zero iterations) and d4
      "    return x\n");
  const ir::Module& m = *p.module;
  auto values = [&](int nth) {
    std::vector<std::string> out;
    for (int b : m.reaching_bindings(nth_identifier(m, "x", nth))) {
      out.emplace_back(m.text(m.bindings[static_cast<size_t>(b)].value));
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  // identifiers named x in order: d1, d2(target), use1, d3, use2, d4, use3, return
  EXPECT_EQ(values(2), (std::vector<std::string>{"1", "a"}));
  EXPECT_EQ(values(4), (std::vector<std::string>{"'z'"}));
  EXPECT_EQ(values(6), (std::vector<std::string>{"'z'", "i"}));
}

TEST(Cfg, TryExceptWithWhileAndBreak) {
  auto p = parse_module(
      "def f(n):\n"
      "    y = 0\n"
      "    try:\n"
      "        y = n.compute()\n"
      "    except ValueError as err:\n"
      "        y = -1\n"
      "    while y:\n"
      "        if y > 3:\n"
      "            break\n"
      "        y = y - 1\n"
      "    with open('f') as fh:\n"
      "        z = fh\n"
      "    return y\n");
  const ir::Module& m = *p.module;
  EXPECT_GE(m.cfg(0).nodes.size(), 12u);
  // The handler may be entered before the try body assigned y: both y = 0 and y = n.compute()
  // reach it; after the try, y = n.compute() and y = -1 reach `while y`.
  std::vector<std::string> at_while;
  for (int b : m.reaching_bindings(nth_identifier(m, "y", 3))) {
    at_while.emplace_back(m.text(m.bindings[static_cast<size_t>(b)].value));
  }
  std::sort(at_while.begin(), at_while.end());
  EXPECT_EQ(at_while, (std::vector<std::string>{"-1", "n.compute()", "y - 1"}));
  bool has_with = false, has_handler = false;
  for (const auto& node : m.cfg(0).nodes) {
    has_with |= node.kind == ir::CfgKind::WithItem;
    has_handler |= node.kind == ir::CfgKind::Handler;
  }
  EXPECT_TRUE(has_with);
  EXPECT_TRUE(has_handler);
}

TEST(Cfg, MatchStatementCapturesBind) {
  auto p = parse_module(
      "def f(cmd):\n"
      "    match cmd:\n"
      "        case [a, b]:\n"
      "            r = a\n"
      "        case other:\n"
      "            r = other\n"
      "    return r\n");
  const ir::Module& m = *p.module;
  EXPECT_GE(m.lookup_at(nth_identifier(m, "other", 1)), 0);
  EXPECT_EQ(m.reaching_bindings(nth_identifier(m, "r", 2)).size(), 2u);
}

TEST(Functions, ParametersDecoratorsAndQualnames) {
  auto p = parse_module(
      "import torch\n"
      "class Net:\n"
      "    @torch.compile(dynamic=False)\n"
      "    def forward(self, x: torch.Tensor, *args, scale=1.0, **kw):\n"
      "        def inner():\n"
      "            return x\n"
      "        return inner()\n");
  const ir::Module& m = *p.module;
  ASSERT_EQ(m.functions.size(), 2u);
  const ir::Function& fwd = m.functions[0];
  EXPECT_EQ(fwd.qualname, "Net.forward");
  EXPECT_EQ(m.functions[1].qualname, "Net.forward.<locals>.inner");
  ASSERT_EQ(fwd.params.size(), 5u);
  EXPECT_EQ(fwd.params[2].kind, ir::Parameter::Kind::VarArgs);
  EXPECT_EQ(fwd.params[3].kind, ir::Parameter::Kind::KeywordOnly);
  EXPECT_EQ(fwd.params[4].kind, ir::Parameter::Kind::VarKeyword);
  ASSERT_EQ(fwd.decorators.size(), 1u);
  EXPECT_EQ(m.text(fwd.decorators[0]), "torch.compile(dynamic=False)");
  EXPECT_EQ(m.classes[0].methods.count("forward"), 1u);
}

// Whether the n-th identifier `name` (0-based, in document order) is always bound where it stands.
bool always_bound(const ParsedModule& p, std::string_view name, int nth) {
  return p.module->always_bound_at(nth_identifier(*p.module, name, nth));
}

TEST(AlwaysBoundAt, AParameterIsBoundEverywhereInItsFunction) {
  auto p = parse_module(
      "def f(x):\n"
      "    return x\n");
  EXPECT_TRUE(always_bound(p, "x", 1));
}

TEST(AlwaysBoundAt, ALocalBoundOnEveryPathBeforeTheUse) {
  auto p = parse_module(
      "def f(c):\n"
      "    if c:\n"
      "        y = 1\n"
      "    else:\n"
      "        y = 2\n"
      "    return y\n");
  EXPECT_TRUE(always_bound(p, "y", 2));
}

TEST(AlwaysBoundAt, ALocalBoundOnOneBranchOnlyMayBeUnbound) {
  auto p = parse_module(
      "def f(c):\n"
      "    if c:\n"
      "        y = 1\n"
      "    return y\n");
  EXPECT_FALSE(always_bound(p, "y", 1));
}

TEST(AlwaysBoundAt, ALoopTargetIsBoundInItsBodyButNotAfterAnEmptyLoop) {
  auto p = parse_module(
      "def f(xs):\n"
      "    for i in xs:\n"
      "        use(i)\n"
      "    return i\n");
  EXPECT_TRUE(always_bound(p, "i", 1));
  EXPECT_FALSE(always_bound(p, "i", 2));
}

TEST(AlwaysBoundAt, ABindingInATryCountsOnlyInsideThatTry) {
  auto p = parse_module(
      "def f():\n"
      "    try:\n"
      "        y = g()\n"
      "        use(y)\n"
      "    except Exception:\n"
      "        pass\n"
      "    return y\n");
  EXPECT_TRUE(always_bound(p, "y", 1));
  EXPECT_FALSE(always_bound(p, "y", 2));  // g() raised: the handler skipped the binding
}

TEST(AlwaysBoundAt, ANameThatIsDeletedOrNotTheFunctionsOwnNeverIs) {
  auto p = parse_module(
      "g = 1\n"
      "def f():\n"
      "    y = 1\n"
      "    del y\n"
      "    y = 2\n"
      "    return y, g\n");
  EXPECT_FALSE(always_bound(p, "y", 3));
  EXPECT_FALSE(always_bound(p, "g", 1));
}

TEST(ModuleSymbols, AUseResolvesToTheModulesSymbolOnlyWhereNoLocalHidesIt) {
  auto p = parse_module(
      "import torch\n"
      "x = 1\n"
      "def f(x):\n"
      "    return torch, x\n");
  const ir::Module& m = *p.module;
  const ir::Symbol* torch = m.module_symbol(nth_identifier(m, "torch", 1));
  ASSERT_NE(torch, nullptr);
  EXPECT_EQ(torch, m.module_symbol_named("torch"));
  EXPECT_EQ(m.module_symbol(nth_identifier(m, "x", 2)), nullptr);  // the parameter
  EXPECT_EQ(m.module_symbol(nth_identifier(m, "x", 0))->name, "x");
  EXPECT_EQ(m.module_symbol_named("f")->name, "f");
  EXPECT_EQ(m.module_symbol_named("print"), nullptr);
}

TEST(ModuleSymbols, BoundOnlyByAcceptsASymbolWhoseEveryBindingIsOfTheKinds) {
  auto p = parse_module(
      "import torch\n"
      "class C:\n"
      "    pass\n"
      "if torch:\n"
      "    C = None\n");
  const ir::Module& m = *p.module;
  EXPECT_TRUE(m.bound_only_by(*m.module_symbol_named("torch"), {BindingKind::Import}));
  EXPECT_FALSE(m.bound_only_by(*m.module_symbol_named("C"), {BindingKind::ClassDef, BindingKind::Import}));
  EXPECT_TRUE(m.bound_only_by(*m.module_symbol_named("C"), {BindingKind::ClassDef, BindingKind::Assignment}));
  EXPECT_FALSE(m.bound_only_by(ir::Symbol{}, {BindingKind::Import}));  // never bound
}

TEST(DottedRoot, IsTheIdentifierADottedNameStartsWith) {
  auto p = parse_module("a.b.c\nf().x\n");
  const ir::Module& m = *p.module;
  EXPECT_EQ(m.text(ir::dotted_root(find_node(m, "attribute", "a.b.c"))), "a");
  EXPECT_EQ(m.text(ir::dotted_root(nth_identifier(m, "a", 0))), "a");
  EXPECT_FALSE(ir::dotted_root(find_node(m, "attribute", "f().x")));
}

TEST(ComparisonOperator, IsSpelledAsPythonSpellsItWhateverTheSpacing) {
  auto p = parse_module("a < b\nh is  not None\nx not   in y\nh is (None)\na < b < c\n");
  const ir::Module& m = *p.module;
  EXPECT_EQ(ir::comparison_operator(m, find_node(m, "comparison_operator", "a < b")), "<");
  EXPECT_EQ(ir::comparison_operator(m, find_node(m, "comparison_operator", "h is  not None")), "is not");
  EXPECT_EQ(ir::comparison_operator(m, find_node(m, "comparison_operator", "x not   in y")), "not in");
  EXPECT_EQ(ir::comparison_operator(m, find_node(m, "comparison_operator", "h is (None)")), "is");
  // A chain compares twice: no one operator.
  EXPECT_EQ(ir::comparison_operator(m, find_node(m, "comparison_operator", "a < b < c")), std::nullopt);
  EXPECT_EQ(ir::comparison_operator(m, find_node(m, "identifier", "a")), std::nullopt);
}

// A module built when first read (Module::Deferred): what a check defers for each file it does
// not ask about, standing in with the file's stored summary until the analysis reads its code.
struct DeferredModule {
  explicit DeferredModule(std::string text, std::function<std::optional<std::string>(const ir::Module&)> accept = nullptr)
      : file(std::make_unique<source::SourceFile>()) {
    file->text = std::move(text);
    file->display_path = "pkg/m.py";
    ir::Module::Deferred how;
    how.parse = [this](const source::SourceFile& f) -> std::variant<syntax::Tree, std::string> {
      ++parses;
      if (f.text.find("not python") != std::string::npos) return std::string("it no longer parses");
      return *syntax::Parser().parse(f.text);
    };
    how.accept = accept ? std::move(accept) : [](const ir::Module&) { return std::optional<std::string>(); };
    module = std::make_unique<ir::Module>(*file, "pkg.m", std::move(how));
  }
  std::unique_ptr<source::SourceFile> file;
  std::atomic<int> parses{0};
  std::unique_ptr<ir::Module> module;
};

TEST(Deferred, AModuleIsBuiltByItsFirstReaderOnceAndAsAModuleBuiltAtOnceIs) {
  const std::string text = "import torch\n\nclass A:\n    def f(self, x):\n        return x\n\ndef g(y):\n    return y\n";
  DeferredModule deferred(text);
  const ir::Module& m = *deferred.module;
  // Its name and text need no parse.
  EXPECT_EQ(m.module_name(), "pkg.m");
  EXPECT_EQ(m.text(), text);
  EXPECT_TRUE(m.is_deferred() && m.is_unbuilt());
  EXPECT_TRUE(m.functions.empty());
  EXPECT_EQ(deferred.parses, 0);

  // Readers on several threads at once: one builds, the others wait for it.
  std::vector<std::thread> readers;
  std::vector<int> found(8, -2);
  for (size_t t = 0; t < found.size(); ++t) readers.emplace_back([&, t] { found[t] = m.module_function("g"); });
  for (std::thread& r : readers) r.join();
  EXPECT_EQ(deferred.parses, 1);
  EXPECT_FALSE(m.is_unbuilt());

  const ParsedModule eager = parse_module(text, "pkg.m");
  EXPECT_EQ(found, std::vector<int>(8, eager.module->module_function("g")));
  ASSERT_EQ(m.functions.size(), eager.module->functions.size());
  for (size_t i = 0; i < m.functions.size(); ++i) EXPECT_EQ(m.functions[i].qualname, eager.module->functions[i].qualname);
  EXPECT_EQ(m.classes.size(), eager.module->classes.size());
  EXPECT_EQ(m.symbols.size(), eager.module->symbols.size());
  EXPECT_EQ(m.root().named_child_count(), eager.module->root().named_child_count());
  EXPECT_EQ(m.mentions_torch(), eager.module->mentions_torch());
  (void)m.root();
  (void)m.cfg(0);
  EXPECT_EQ(deferred.parses, 1);
}

TEST(Deferred, AnExceptionWhileBuildingLeavesNothingHalfBuiltForTheNextReader) {
  // The file's budget or memory can run out in the middle of a build: the first check throws
  // after the tables are filled, and the next reader builds the module from the start.
  const std::string text = "class A:\n    def f(self):\n        return 1\n\ndef g():\n    return 2\n";
  int checks = 0;
  DeferredModule deferred(text, [&](const ir::Module&) -> std::optional<std::string> {
    if (++checks == 1) throw std::runtime_error("over the file's budget");
    return std::nullopt;
  });
  EXPECT_THROW((void)deferred.module->root(), std::runtime_error);
  EXPECT_TRUE(deferred.module->is_unbuilt());
  EXPECT_TRUE(deferred.module->functions.empty());
  const ParsedModule eager = parse_module(text, "pkg.m");
  EXPECT_EQ(deferred.module->module_function("g"), eager.module->module_function("g"));
  EXPECT_EQ(deferred.module->functions.size(), eager.module->functions.size());
  EXPECT_EQ(deferred.module->scopes.size(), eager.module->scopes.size());
  EXPECT_EQ(deferred.module->bindings.size(), eager.module->bindings.size());
  EXPECT_EQ(deferred.parses, 2);
  EXPECT_FALSE(deferred.module->is_unbuilt());
}

TEST(Deferred, AModuleThatCannotBeBuiltAsItsStandInSaysThrowsForEveryReader) {
  DeferredModule unparsable("def f(:\n    not python\n");
  for (int attempt = 0; attempt < 2; ++attempt) {
    EXPECT_THROW((void)unparsable.module->root(), ir::DeferredBuildFailed);
    EXPECT_THROW((void)unparsable.module->module_function("f"), ir::DeferredBuildFailed);
  }
  EXPECT_EQ(unparsable.parses, 1);  // the failure is kept, not found again
  EXPECT_TRUE(unparsable.module->is_unbuilt());

  // The check against its stand-in reads the built module (its own accessors do not wait for
  // the build they are part of), and says why it does not fit.
  int functions_seen = -1;
  DeferredModule misfit("def f():\n    return 1\n", [&](const ir::Module& m) -> std::optional<std::string> {
    functions_seen = static_cast<int>(m.functions.size());
    return m.module_function("f") == 0 ? std::optional<std::string>("its summary names two functions") : std::nullopt;
  });
  try {
    (void)misfit.module->root();
    ADD_FAILURE() << "a module that does not fit was read";
  } catch (const ir::DeferredBuildFailed& e) {
    EXPECT_EQ(std::string(e.what()), "pkg/m.py: its summary names two functions");
  }
  EXPECT_EQ(functions_seen, 1);
  EXPECT_TRUE(misfit.module->is_unbuilt());
}

}  // namespace
}  // namespace graphmend::testing

namespace graphmend::testing {

// The sparse, on-demand reaching definitions (basic blocks, memoized walks) give exactly what the
// textbook dense dataflow over the same CFG gives, on random functions with branches, loops,
// break and continue.
namespace {

std::string random_body(std::mt19937& rng, int depth, bool in_loop, int indent) {
  const std::string pad(static_cast<size_t>(indent), ' ');
  std::string out;
  const int statements = 1 + static_cast<int>(rng() % 4);
  for (int s = 0; s < statements; ++s) {
    const unsigned pick = rng() % (depth < 3 ? 9u : 4u);
    const char* name = rng() % 2 ? "x" : "y";
    switch (pick) {
      case 0: case 1: out += pad + name + " = " + std::to_string(rng() % 100) + "\n"; break;
      case 2: out += pad + name + " = x + y\n"; break;
      case 3:
        out += pad + (in_loop && rng() % 3 == 0 ? (rng() % 2 ? "break" : "continue") : "use(x, y)") + "\n";
        break;
      case 4: case 5:
        out += pad + "if " + name + ":\n" + random_body(rng, depth + 1, in_loop, indent + 4);
        if (rng() % 2) out += pad + "else:\n" + random_body(rng, depth + 1, in_loop, indent + 4);
        break;
      case 6: out += pad + "while " + name + ":\n" + random_body(rng, depth + 1, true, indent + 4); break;
      case 7: out += pad + "for x in y:\n" + random_body(rng, depth + 1, true, indent + 4); break;
      default: out += pad + "use(" + name + ")\n"; break;
    }
  }
  return out;
}

// Dense reaching definitions at the start of each CFG node, for one symbol.
std::vector<std::set<int>> dense_reaching(const ir::Cfg& cfg, const ir::Module& m, int symbol) {
  const size_t n = cfg.nodes.size();
  std::vector<std::set<int>> in(n), out(n);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t v = 0; v < n; ++v) {
      std::set<int> merged;
      for (int p : cfg.nodes[v].pred) merged.insert(out[static_cast<size_t>(p)].begin(), out[static_cast<size_t>(p)].end());
      std::set<int> o = merged;
      for (int b : cfg.nodes[v].gen) {
        if (m.bindings[static_cast<size_t>(b)].symbol != symbol) continue;
        o = {b};  // a later definition in the same node wins
      }
      in[v] = std::move(merged);
      if (o != out[v]) {
        out[v] = std::move(o);
        changed = true;
      }
    }
  }
  return in;
}

}  // namespace

TEST(Cfg, SparseReachingDefinitionsEqualTheDenseSolution) {
  std::mt19937 rng(12);
  int uses_checked = 0;
  for (int program = 0; program < 300; ++program) {
    const std::string source = "def f(x, y):\n" + random_body(rng, 0, false, 4) + "    return x, y\n";
    auto p = parse_module(source);
    const ir::Module& m = *p.module;
    ASSERT_EQ(m.functions.size(), 1u) << source;
    const ir::Cfg& cfg = m.cfg(0);
    std::map<int, std::vector<std::set<int>>> dense;  // by symbol
    syntax::walk(m.root(), [&](ir::Node n) {
      if (!n.is(kind::identifier) || (m.text(n) != "x" && m.text(n) != "y")) return true;
      const int symbol = m.lookup_at(n);
      const int at = cfg.node_containing(n);
      if (symbol < 0 || at < 0) return true;
      auto it = dense.find(symbol);
      if (it == dense.end()) it = dense.emplace(symbol, dense_reaching(cfg, m, symbol)).first;
      const std::vector<int> sparse = m.reaching_bindings(n);
      const std::set<int>& expected = it->second[static_cast<size_t>(at)];
      EXPECT_EQ(std::set<int>(sparse.begin(), sparse.end()), expected)
          << "at byte " << n.start() << " of\n" << source;
      EXPECT_TRUE(std::is_sorted(sparse.begin(), sparse.end()));
      ++uses_checked;
      return true;
    });
  }
  EXPECT_GT(uses_checked, 3000);
}

}  // namespace graphmend::testing
