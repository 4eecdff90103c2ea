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
      "    return x\n"
      "def table() -> dict[str, int]:\n"
      "    return {}\n"
      "def maybe() -> list | None:\n"
      "    return None\n",
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
  // The return annotation, as GM413 reads a method of another module: a list, set or dict.
  EXPECT_FALSE(s.functions[2].returns_container);
  EXPECT_TRUE(s.functions[3].returns_container);
  EXPECT_FALSE(s.functions[4].returns_container);  // a union
}

int function_named(const ir::Module& m, std::string_view qualname) {
  for (size_t i = 0; i < m.functions.size(); ++i) {
    if (m.functions[i].qualname == qualname) return static_cast<int>(i);
  }
  return -1;
}

// The text of a recorded call, read back through its stable id.
std::string_view call_text(const ir::Module& m, const ModuleSummary::CallSite& site) {
  return m.text(ir::Node(m.root().tree_data(), site.call_index));
}

TEST(ModuleSummary, RecordsTheCallsOfAFunctionsOwnBodyThatMayReachADefinition) {
  ParsedModule parsed = parse_module(
      "import torch.nn as nn\n"
      "def helper(x):\n"
      "    return x\n"
      "class Block:\n"
      "    pass\n"
      "class Net(Base):\n"
      "    def forward(self, x):\n"
      "        y = x.view(-1)\n"
      "        helper(nn.functional.relu(y))\n"
      "        Block()\n"
      "        self.g()\n"
      "        self.sub.run()\n"
      "        super().forward(x)\n"
      "        def inner():\n"
      "            helper(1)\n"
      "        return (lambda: helper(2))()\n"
      "def free(obj):\n"
      "    obj.run()\n"
      "    self.g()\n",
      "m");
  const ir::Module& m = *parsed.module;
  const ModuleSummary s = analysis::summarize(m);
  using Receiver = ModuleSummary::CallSite::Receiver;
  const ModuleSummary::FunctionFacts& forward = s.functions[static_cast<size_t>(function_named(m, "Net.forward"))];
  std::vector<std::string_view> texts;
  for (const ModuleSummary::CallSite& c : forward.calls) texts.push_back(call_text(m, c));
  // `x.view(-1)`, the lambda's own call and `super()` (an undotted global name: no module to find
  // it in) name nothing that resolves; `inner`'s call is its own; a call in a lambda is the
  // function's.
  EXPECT_EQ(texts, (std::vector<std::string_view>{"helper(nn.functional.relu(y))", "nn.functional.relu(y)", "Block()",
                                                  "self.g()", "self.sub.run()", "super().forward(x)", "helper(2)"}));
  ASSERT_EQ(forward.calls.size(), 7u);
  EXPECT_EQ(forward.calls[0].callee.local_function, function_named(m, "helper"));
  EXPECT_EQ(s.interned(forward.calls[0].callee.qualified), "m.helper");
  EXPECT_FALSE(forward.calls[0].via_attribute);
  EXPECT_EQ(s.interned(forward.calls[1].callee.qualified), "torch.nn.functional.relu");
  EXPECT_TRUE(forward.calls[1].via_attribute);
  EXPECT_EQ(forward.calls[1].receiver, Receiver::None);
  EXPECT_EQ(forward.calls[2].callee.local_class, class_named(m, "Block"));
  EXPECT_EQ(forward.calls[3].receiver, Receiver::Self);
  EXPECT_EQ(s.interned(forward.calls[3].attribute), "g");
  EXPECT_EQ(forward.calls[4].receiver, Receiver::SelfMember);
  EXPECT_EQ(s.interned(forward.calls[4].member), "sub");
  EXPECT_EQ(s.interned(forward.calls[4].attribute), "run");
  EXPECT_EQ(forward.calls[5].receiver, Receiver::Super);
  EXPECT_EQ(s.interned(forward.calls[5].attribute), "forward");
  // A parameter's method names nothing. Outside a class `self` is a name like any other: unbound
  // here, so a global name, but no receiver.
  const ModuleSummary::FunctionFacts& free = s.functions[static_cast<size_t>(function_named(m, "free"))];
  ASSERT_EQ(free.calls.size(), 1u);
  EXPECT_EQ(call_text(m, free.calls[0]), "self.g()");
  EXPECT_EQ(s.interned(free.calls[0].callee.qualified), "self.g");
  EXPECT_EQ(free.calls[0].receiver, Receiver::None);
}

TEST(ModuleSummary, KeepsTheSelfStoresThatTellAnAttributesClass) {
  ParsedModule parsed = parse_module(
      "import torch\n"
      "class Block:\n"
      "    pass\n"
      "class Net:\n"
      "    def __init__(self, inner, size, other):\n"
      "        self.block = Block()\n"
      "        self.inner = inner\n"
      "        self.size = 3\n"
      "        self.register_buffer('mask', torch.ones(size))\n"
      "        other = Block()\n"
      "        self.other = other\n"
      "    def reset(self, inner):\n"
      "        self.inner = inner\n",
      "m");
  const ir::Module& m = *parsed.module;
  const ModuleSummary s = analysis::summarize(m);
  const int net = class_named(m, "Net");
  ASSERT_NE(s.self_stores_of(net, "block"), nullptr);
  ASSERT_EQ(s.self_stores_of(net, "block")->size(), 1u);
  EXPECT_EQ(s.self_stores_of(net, "block")->front().constructor.local_class, class_named(m, "Block"));
  // `inner` is __init__'s parameter; the store in `reset` is not in __init__ and tells nothing.
  ASSERT_NE(s.self_stores_of(net, "inner"), nullptr);
  ASSERT_EQ(s.self_stores_of(net, "inner")->size(), 1u);
  EXPECT_EQ(s.interned(s.self_stores_of(net, "inner")->front().init_parameter), "inner");
  EXPECT_EQ(s.self_stores_of(net, "size"), nullptr);   // a constant
  EXPECT_EQ(s.self_stores_of(net, "mask"), nullptr);   // a buffer
  EXPECT_EQ(s.self_stores_of(net, "other"), nullptr);  // rebound before the store: no longer the parameter
}

TEST(ModuleSummary, KeepsWhatADecoratorReturnsAndWhatSuperInitIsPassed) {
  ParsedModule parsed = parse_module(
      "import functools\n"
      "def logged(func):\n"
      "    def wrapper(*args):\n"
      "        return func(*args)\n"
      "    def unused():\n"
      "        pass\n"
      "    return wrapper\n"
      "def maybe(func=None, *, flag=True):\n"
      "    def wrap(f):\n"
      "        return f\n"
      "    return wrap(func)\n"
      "class Block:\n"
      "    pass\n"
      "class Base:\n"
      "    def __init__(self, block, n):\n"
      "        pass\n"
      "class Net(Base):\n"
      "    @logged\n"
      "    def __init__(self, n, *rest):\n"
      "        super().__init__(Block(), n=n, *rest)\n",
      "m");
  const ir::Module& m = *parsed.module;
  const ModuleSummary s = analysis::summarize(m);
  const ModuleSummary::FunctionFacts& logged = s.functions[static_cast<size_t>(function_named(m, "logged"))];
  EXPECT_EQ(logged.returned, (std::vector<int>{function_named(m, "logged.<locals>.wrapper")}));
  EXPECT_TRUE(logged.applied_in_return.empty());
  EXPECT_TRUE(s.functions[static_cast<size_t>(function_named(m, "logged.<locals>.wrapper"))].calls_enclosing_parameter);
  EXPECT_FALSE(s.functions[static_cast<size_t>(function_named(m, "logged.<locals>.unused"))].calls_enclosing_parameter);
  const ModuleSummary::FunctionFacts& maybe = s.functions[static_cast<size_t>(function_named(m, "maybe"))];
  EXPECT_EQ(maybe.applied_in_return, (std::vector<int>{function_named(m, "maybe.<locals>.wrap")}));
  const ModuleSummary::FunctionFacts& init = s.functions[static_cast<size_t>(function_named(m, "Net.__init__"))];
  ASSERT_EQ(init.decorators.size(), 1u);
  EXPECT_EQ(init.decorators[0].callee.local_function, function_named(m, "logged"));
  EXPECT_FALSE(init.decorators[0].call);
  ASSERT_EQ(init.super_init_calls.size(), 1u);
  const std::vector<ModuleSummary::Argument>& args = init.super_init_calls[0];
  using Kind = ModuleSummary::Argument::Kind;
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args[0].kind, Kind::Positional);
  ASSERT_EQ(args[0].instance.size(), 1u);
  EXPECT_EQ(args[0].instance[0].local_class, class_named(m, "Block"));
  EXPECT_EQ(args[1].kind, Kind::Keyword);
  EXPECT_EQ(s.interned(args[1].keyword), "n");
  EXPECT_EQ(s.interned(args[1].identifier), "n");
  EXPECT_EQ(args[2].kind, Kind::ListSplat);
  // Bound to Base.__init__'s parameters past `self`: Block() to `block`, n= to `n`; the splat
  // leaves the binding incomplete.
  std::vector<std::pair<int, Kind>> bound;
  const bool complete = analysis::for_each_argument(
      s.functions[static_cast<size_t>(function_named(m, "Base.__init__"))].params, s, args, true,
      [&](int index, const ModuleSummary::Argument& a) { bound.emplace_back(index, a.kind); });
  EXPECT_FALSE(complete);
  EXPECT_EQ(bound, (std::vector<std::pair<int, Kind>>{{1, Kind::Positional}, {2, Kind::Keyword}}));
}

TEST(ModuleSummary, KeepsWhereTheModuleHandsSomethingToTorchCompile) {
  ParsedModule parsed = parse_module(
      "import torch\n"
      "class Net(torch.nn.Module):\n"
      "    def forward(self, x):\n"
      "        return x\n"
      "    def fast(self):\n"
      "        return torch.compile(self.forward)\n"
      "@torch.compile\n"
      "def step(x):\n"
      "    return x\n"
      "def f(x):\n"
      "    return x\n"
      "g = torch.compile(f)\n"
      "net = Net()\n"
      "net.compile()\n"
      "torch.compile(mode='max-autotune')\n",
      "m");
  const ir::Module& m = *parsed.module;
  const ModuleSummary s = analysis::summarize(m);
  EXPECT_TRUE(s.mentions_torch);
  EXPECT_TRUE(s.functions[static_cast<size_t>(function_named(m, "step"))].compiled);
  EXPECT_FALSE(s.functions[static_cast<size_t>(function_named(m, "f"))].compiled);
  using Kind = ModuleSummary::CompileSite::Kind;
  ASSERT_EQ(s.compile_sites.size(), 3u);  // a call with only keywords hands nothing over
  EXPECT_EQ(s.compile_sites[0].kind, Kind::Target);
  EXPECT_EQ(s.compile_sites[0].line, 6u);
  EXPECT_EQ(s.interned(s.compile_sites[0].attribute), "forward");
  EXPECT_EQ(s.compile_sites[0].self_class, class_named(m, "Net"));
  EXPECT_EQ(s.compile_sites[1].function.local_function, function_named(m, "f"));
  EXPECT_EQ(s.compile_sites[2].kind, Kind::ObjectCompile);
  ASSERT_EQ(s.compile_sites[2].instance.size(), 1u);
  EXPECT_EQ(s.compile_sites[2].instance[0].local_class, class_named(m, "Net"));
}

TEST(ModuleSummary, KeepsTheNamesThatMayBindALoggerWithEachOfTheirBindings) {
  ParsedModule parsed = parse_module(
      "import logging\n"
      "from .log import shared\n"
      "logger = logging.getLogger(__name__)\n"
      "alias = logger\n"
      "either = logger\n"
      "either = shared\n"
      "maybe = None\n"
      "maybe = logging.getLogger()\n"
      "count = len([])\n"
      "try:\n"
      "    from pkg.utils import fallback\n"
      "except ImportError:\n"
      "    fallback = None\n",
      "pkg.m");
  const ir::Module& m = *parsed.module;
  const ModuleSummary s = analysis::summarize(m);
  using Binding = ModuleSummary::LoggerBinding;
  std::vector<std::string> names;
  for (const auto& [name, bindings] : s.loggers) names.push_back(name);
  // `maybe` is also None, `count` no factory's; `shared` is bound by an import alone (`names` has it).
  EXPECT_EQ(names, (std::vector<std::string>{"alias", "either", "logger"}));
  const std::vector<Binding>& logger = *s.logger_bindings_of("logger");
  ASSERT_EQ(logger.size(), 1u);
  EXPECT_TRUE(s.logger_values[static_cast<size_t>(logger[0].value)].factory);
  const std::vector<Binding>& either = *s.logger_bindings_of("either");
  ASSERT_EQ(either.size(), 2u);
  const ModuleSummary::LoggerValue& second = s.logger_values[static_cast<size_t>(either[1].value)];
  ASSERT_EQ(second.bound_by.size(), 1u);
  EXPECT_EQ(s.interned(second.bound_by[0].import_path), "pkg.log.shared");
  // A name bound by an import and by something else keeps the other binding, as Other.
  EXPECT_EQ(*s.definitions_of("fallback"),
            (std::vector<ModuleSummary::Definition>{{Kind::Import, -1, "pkg.utils.fallback"}, {Kind::Other, -1, ""}}));
  EXPECT_EQ(s.definitions_of("count"), nullptr);
}

// Resolution across modules reads the summaries: a re-export followed to its definition, and a
// method through a base in another module.
TEST(ModuleSummary, ProjectResolvesReExportsAndInheritedMethodsAcrossModules) {
  ParsedModule layers = parse_module(
      "class Block:\n"
      "    def forward(self, x):\n"
      "        return x\n",
      "pkg.layers");
  // A name bound by an import and by a fallback (Definition::Other) still resolves through the import.
  ParsedModule init = parse_module(
      "try:\n"
      "    from pkg.layers import Block\n"
      "except ImportError:\n"
      "    Block = None\n",
      "pkg");
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
