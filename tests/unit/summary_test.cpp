// analysis::ModuleSummary: what name resolution reads of a module, taken from its IR as plain data.
#include <gtest/gtest.h>

#include "graphmend/analysis/project.h"
#include "graphmend/analysis/summary.h"
#include "test_support.h"

namespace graphmend::testing {
namespace {

using analysis::ModuleSummary;
using Kind = ModuleSummary::Definition::Kind;

}  // namespace
}  // namespace graphmend::testing

namespace graphmend::analysis {
// Readable failures.
void PrintTo(const ModuleSummary::Base& base, std::ostream* os) {
  *os << "{" << base.local_class << ", \"" << base.qualified << "\"}";
}
void PrintTo(const ModuleSummary::Parameter& p, std::ostream* os) {
  *os << "{\"" << p.name << "\", " << static_cast<int>(p.kind) << "}";
}
void PrintTo(const ModuleSummary::Definition& d, std::ostream* os) {
  *os << "{" << static_cast<int>(d.kind) << ", " << d.index << ", \"" << d.import_path << "\"}";
}
}  // namespace graphmend::analysis

namespace graphmend::testing {
namespace {

int class_named(const ir::Module& m, std::string_view name) {
  for (size_t i = 0; i < m.classes.size(); ++i) {
    if (m.classes[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

TEST(ModuleSummary, KeepsTheModuleScopesDefinitionsInSourceOrderAndNothingElse) {
  ParsedModule parsed = parse_module(
      "import torch.nn as nn\n"
      "from pkg.layers import Block as B\n"
      "X = 1\n"
      "def f():\n"
      "    def inner():\n"
      "        pass\n"
      "class A:\n"
      "    pass\n"
      "def f():\n"
      "    pass\n"
      "for X in ():\n"
      "    pass\n",
      "m");
  const ir::Module& m = *parsed.module;
  const ModuleSummary s = analysis::summarize(m);
  ASSERT_EQ(s.names.size(), 4u);  // A, B, f, nn: X has no definition, `inner` is not module scope
  EXPECT_EQ(s.definitions_of("X"), nullptr);
  EXPECT_EQ(s.definitions_of("inner"), nullptr);
  ASSERT_NE(s.definitions_of("nn"), nullptr);
  EXPECT_EQ(*s.definitions_of("nn"), (std::vector<ModuleSummary::Definition>{{Kind::Import, -1, "torch.nn"}}));
  EXPECT_EQ(*s.definitions_of("B"), (std::vector<ModuleSummary::Definition>{{Kind::Import, -1, "pkg.layers.Block"}}));
  EXPECT_EQ(*s.definitions_of("A"), (std::vector<ModuleSummary::Definition>{{Kind::Class, class_named(m, "A"), ""}}));
  const std::vector<ModuleSummary::Definition>& f = *s.definitions_of("f");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].kind, Kind::Function);
  EXPECT_EQ(m.functions[static_cast<size_t>(f[0].index)].node.start(), find_node(m, "function_definition").start());
  EXPECT_GT(m.functions[static_cast<size_t>(f[1].index)].node.start(),
            m.functions[static_cast<size_t>(f[0].index)].node.start());
}

TEST(ModuleSummary, ABaseIsAClassOfItsOwnScopeOrAQualifiedNameOrBoth) {
  ParsedModule parsed = parse_module(
      "import torch.nn as nn\n"
      "from pkg.layers import Block\n"
      "class A:\n"
      "    pass\n"
      "def build():\n"
      "    class A:\n"
      "        pass\n"
      "    class Inner(A):\n"
      "        pass\n"
      "class C(A, nn.Module, (Block), make(), Missing):\n"
      "    pass\n",
      "m");
  const ir::Module& m = *parsed.module;
  const ModuleSummary s = analysis::summarize(m);
  ASSERT_EQ(s.classes.size(), m.classes.size());
  const int outer_a = class_named(m, "A");
  const int inner = class_named(m, "Inner");
  const int c = class_named(m, "C");
  // `Inner(A)` names the A of build()'s scope, not the module's.
  ASSERT_EQ(s.classes[static_cast<size_t>(inner)].bases.size(), 1u);
  const int inner_base = s.classes[static_cast<size_t>(inner)].bases[0].local_class;
  ASSERT_GE(inner_base, 0);
  EXPECT_NE(inner_base, outer_a);
  EXPECT_EQ(m.classes[static_cast<size_t>(inner_base)].name, "A");
  EXPECT_EQ(s.classes[static_cast<size_t>(c)].bases,
            (std::vector<ModuleSummary::Base>{{outer_a, "m.A"},
                                              {-1, "torch.nn.Module"},
                                              {-1, "pkg.layers.Block"},
                                              {-1, ""},
                                              {-1, "Missing"}}));  // unbound: taken as a global name
}

TEST(ModuleSummary, FindsAClassesOwnMethodsByName) {
  ParsedModule parsed = parse_module(
      "class Base:\n"
      "    def forward(self):\n"
      "        pass\n"
      "class A(Base):\n"
      "    def g(self):\n"
      "        pass\n"
      "    def __init__(self):\n"
      "        pass\n",
      "m");
  const ir::Module& m = *parsed.module;
  const ModuleSummary s = analysis::summarize(m);
  const int a = class_named(m, "A");
  ASSERT_GE(s.method_of(a, "g"), 0);
  EXPECT_EQ(m.functions[static_cast<size_t>(s.method_of(a, "g"))].qualname, "A.g");
  EXPECT_EQ(m.functions[static_cast<size_t>(s.method_of(a, "__init__"))].qualname, "A.__init__");
  EXPECT_EQ(s.method_of(a, "forward"), -1);  // a base's method is the project's to find
  analysis::Project project;
  project.add(&m);
  const auto forward = project.find_method({&m, a}, "forward");
  ASSERT_TRUE(forward);
  EXPECT_EQ(m.functions[static_cast<size_t>(forward->function)].qualname, "Base.forward");
}

TEST(ModuleSummary, KeepsEachFunctionsSignatureAndWhatItsDecoratorsDoToTracing) {
  ParsedModule parsed = parse_module(
      "import torch\n"
      "class A:\n"
      "    @staticmethod\n"
      "    def make(n, *rest, flag=False, **extra):\n"
      "        pass\n"
      "    @torch.compiler.disable(recursive=False)\n"
      "    def shallow(self):\n"
      "        pass\n"
      "@torch.library.custom_op('m::op', mutates_args=())\n"
      "def op(x: torch.Tensor) -> torch.Tensor:\n"
      "    return x\n",
      "m");
  const ir::Module& m = *parsed.module;
  const ModuleSummary s = analysis::summarize(m);
  ASSERT_EQ(s.functions.size(), m.functions.size());
  using P = ir::Parameter::Kind;
  const ModuleSummary::FunctionFacts& make = s.functions[0];
  EXPECT_EQ(make.qualname, "A.make");
  EXPECT_EQ(make.klass, class_named(m, "A"));
  EXPECT_TRUE(make.staticmethod);
  EXPECT_EQ(make.trace_exclusion, analysis::TraceExclusion::None);
  EXPECT_EQ(make.params, (std::vector<ModuleSummary::Parameter>{
                             {"n", P::Regular}, {"rest", P::VarArgs}, {"flag", P::KeywordOnly}, {"extra", P::VarKeyword}}));
  EXPECT_FALSE(s.functions[1].staticmethod);
  EXPECT_EQ(s.functions[1].trace_exclusion, analysis::TraceExclusion::DisabledShallow);
  EXPECT_EQ(s.functions[2].klass, -1);
  EXPECT_EQ(s.functions[2].trace_exclusion, analysis::TraceExclusion::Opaque);
}

// Resolution across modules reads the summaries: a re-export followed to its definition, and a
// method through a base in another module.
TEST(ModuleSummary, ProjectResolvesReExportsAndInheritedMethodsAcrossModules) {
  ParsedModule layers = parse_module(
      "class Block:\n"
      "    def forward(self, x):\n"
      "        return x\n",
      "pkg.layers");
  ParsedModule init = parse_module("from pkg.layers import Block\n", "pkg");
  ParsedModule model = parse_module(
      "from pkg import Block\n"
      "class Model(Block):\n"
      "    pass\n",
      "pkg.model");
  analysis::Project project;
  project.add(layers.module.get());
  project.add(init.module.get());
  project.add(model.module.get());
  const auto block = project.resolve_class("pkg.Block", model.module.get());
  ASSERT_TRUE(block);
  EXPECT_EQ(block->module, layers.module.get());
  const auto forward = project.resolve_function("pkg.model.Model.forward", model.module.get());
  ASSERT_TRUE(forward);
  EXPECT_EQ(forward->module, layers.module.get());
  EXPECT_EQ(layers.module->functions[static_cast<size_t>(forward->function)].qualname, "Block.forward");
  EXPECT_FALSE(project.resolve_function("pkg.model.Model.backward", model.module.get()));
}

}  // namespace
}  // namespace graphmend::testing
