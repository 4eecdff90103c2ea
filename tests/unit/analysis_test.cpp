#include <fmt/format.h>
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <random>
#include <optional>

#include "graphmend/analysis/api_facts.h"
#include "graphmend/analysis/call_evidence.h"
#include "graphmend/analysis/compile_regions.h"
#include "graphmend/analysis/effects.h"
#include "graphmend/analysis/tensor_types.h"
#include "graphmend/analysis/totality.h"
#include "graphmend/analysis/truth.h"
#include "test_support.h"

namespace graphmend::testing {
namespace {

using analysis::ValueKind;

// With Evidence::FromCompiledCalls, the oracle also knows what compiled callers pass (issue 16,
// item 4), as in a run.
enum class Evidence { None, FromCompiledCalls };

struct Analysed {
  ParsedModule parsed;
  analysis::Project project;
  analysis::ParameterEvidence evidence;
  std::unique_ptr<analysis::TypeOracle> types;
  explicit Analysed(std::string text, Evidence with = Evidence::None) : parsed(parse_module(std::move(text))) {
    project.add(parsed.module.get());
    if (with == Evidence::FromCompiledCalls) {
      evidence = analysis::gather_parameter_evidence(project, analysis::CompileRegions(project));
    }
    types = std::make_unique<analysis::TypeOracle>(project, &evidence);
  }
  const ir::Module& m() const { return *parsed.module; }
  // The value of the last assignment to `name`.
  ir::Node assigned(std::string_view name) const {
    ir::Node value;
    syntax::walk(m().root(), [&](ir::Node n) {
      if (n.is(kind::assignment) && m().text(n.field(field::left)) == name) value = n.field(field::right);
      return true;
    });
    return value;
  }
  ValueKind kind_of_assigned(std::string_view name) { return types->type_of(m(), assigned(name)).kind; }
};

TEST(TensorTypes, SourcesOfTensorness) {
  Analysed a(
      "import torch\n"
      "import torch.nn.functional as F\n"
      "from typing import Optional\n"
      "def f(x: torch.Tensor, m: Optional[torch.Tensor], n: int, u, v, k=3):\n"
      "    t1 = torch.zeros(3)\n"
      "    t2 = x.sum()\n"
      "    t3 = F.relu(x) * 2\n"
      "    s1 = x.shape[0]\n"
      "    s2 = x.size(1) + n\n"
      "    s3 = x.dtype == torch.float16\n"
      "    s4 = len(u)\n"
      "    s5 = k * 2\n"
      "    d1 = t2.item()\n"
      "    d2 = int(t2)\n"
      "    d3 = torch.equal(x, x)\n"
      "    l1 = u.mean()\n"
      "    o1 = m\n"
      "    b1 = x > 0\n"
      "    un = v + 1\n"
      "    lu = u + 1\n"
      "    return t1\n");
  EXPECT_EQ(a.kind_of_assigned("t1"), ValueKind::Tensor);
  EXPECT_EQ(a.kind_of_assigned("t2"), ValueKind::Tensor);
  EXPECT_EQ(a.kind_of_assigned("t3"), ValueKind::Tensor);
  EXPECT_EQ(a.kind_of_assigned("s1"), ValueKind::Static);
  EXPECT_EQ(a.kind_of_assigned("s2"), ValueKind::Static);
  EXPECT_EQ(a.kind_of_assigned("s3"), ValueKind::Static);
  EXPECT_EQ(a.kind_of_assigned("s4"), ValueKind::Static);
  EXPECT_EQ(a.kind_of_assigned("s5"), ValueKind::Static);
  EXPECT_EQ(a.kind_of_assigned("d1"), ValueKind::DataScalar);
  EXPECT_EQ(a.kind_of_assigned("d2"), ValueKind::DataScalar);
  EXPECT_EQ(a.kind_of_assigned("d3"), ValueKind::DataScalar);
  EXPECT_EQ(a.kind_of_assigned("l1"), ValueKind::LikelyTensor);
  EXPECT_EQ(a.kind_of_assigned("o1"), ValueKind::OptionalTensor);
  EXPECT_EQ(a.kind_of_assigned("un"), ValueKind::Unknown);
  // `u.mean()` runs on every call: a parameter no Python number could be.
  EXPECT_EQ(a.kind_of_assigned("lu"), ValueKind::LikelyTensor);
}

TEST(Totality, PythonNumbersAreProvenNotAssumed) {
  Analysed a(
      "import math\n"
      "import torch\n"
      "def f(x: torch.Tensor, p: float):\n"
      "    n1 = -3\n"
      "    n2 = torch.finfo(x.dtype).max - 1000\n"
      "    n3 = float('-inf')\n"
      "    n4 = n1 * 2 + math.pi\n"
      "    n5 = 2 ** -2\n"
      "    c1 = 2j\n"
      "    c2 = (-8) ** (1 / 3)\n"
      "    c3 = p\n"
      "    c4 = x.sum()\n"
      "    c5 = n1 * c1\n");
  for (const char* name : {"n1", "n2", "n3", "n4", "n5"}) {
    EXPECT_TRUE(analysis::is_python_number(a.m(), a.assigned(name))) << name;
  }
  // Imaginary literals and fractional powers may be complex; a parameter or a tensor may be anything.
  for (const char* name : {"c1", "c2", "c3", "c4", "c5"}) {
    EXPECT_FALSE(analysis::is_python_number(a.m(), a.assigned(name))) << name;
  }
}

TEST(Totality, OneTensorOperationsByTheMeasuredTable) {
  Analysed a(
      "import torch\n"
      "def f(x: torch.Tensor, m, limit: float):\n"
      "    t1 = x.sum()\n"
      "    t2 = x - 1\n"
      "    t3 = x.view(2, -1)\n"
      "    t4 = x.amax()\n"
      "    t5 = torch.clamp(x, min=-limit)\n"
      "    t6 = x.mT\n"
      "    t7 = m.abs()\n"
      "    t8 = x.shape\n"
      "    t9 = x is None\n");
  using K = analysis::Totality::Kind;
  auto of = [&](const char* name) { return analysis::totality_of(a.m(), *a.types, a.assigned(name)); };
  EXPECT_EQ(of("t1")->kind, K::Total);
  EXPECT_EQ(of("t2")->kind, K::NeedsNonBool);   // bool minus a number raises; any other dtype does not
  EXPECT_EQ(of("t3")->kind, K::MayRaise);       // a shape argument: not in the table
  EXPECT_EQ(of("t4")->kind, K::MayRaise);       // raises on an empty tensor
  EXPECT_EQ(of("t5")->kind, K::NeedsFloating);
  ASSERT_EQ(of("t5")->numbers.size(), 1u);      // `limit` checked to be a number
  EXPECT_EQ(a.m().text(of("t5")->numbers[0]), "limit");
  EXPECT_EQ(of("t6")->kind, K::MayRaise);       // raises below two dimensions
  EXPECT_EQ(of("t8")->kind, K::Total);
  EXPECT_FALSE(of("t9").has_value());  // identity is no tensor operation and never raises
  EXPECT_FALSE(of("t7").has_value() && of("t7")->kind == K::Total);  // `m` is a tensor only by its use
}

// A planner's assumption covers its own module's region: the callee `pick`, typed from its module
// `b`, has an `x` at offsets inside `f`'s region in `a`, and that `x` (an int) stays what it is.
TEST(TensorTypes, AnAssumptionHoldsInItsOwnModuleOnly) {
  ParsedModule a = parse_module(
      "from b import pick\n"
      "def f(x, m):\n"
      "    return pick(m)\n",
      "a");
  ParsedModule b = parse_module(
      "def pick(m, x=3):\n"
      "    return x\n",
      "b");
  analysis::Project project;
  project.add(a.module.get());
  project.add(b.module.get());
  const ir::Module& am = *a.module;
  const ir::Node call = find_node(am, "call", "pick(m)");
  const ir::Node x_in_a = nth_identifier(am, "x", 0);
  const ir::Node x_in_b = nth_identifier(*b.module, "x", 1);  // the one returned
  ASSERT_TRUE(call && x_in_a && x_in_b);
  ASSERT_GT(x_in_b.start(), find_node(am, "function_definition").start());  // inside f's region, by offset
  analysis::TypeOracle plain(project);
  const ValueKind returned = plain.type_of(am, call).kind;
  ASSERT_NE(returned, ValueKind::Tensor);
  analysis::TypeOracle types(project);
  const ir::Node f = find_node(am, "function_definition");
  const analysis::TypeOracle::Assumption assumed(types, am, am.functions[0].scope, {f.start(), f.end()}, {"x"});
  EXPECT_EQ(types.type_of(am, x_in_a).kind, ValueKind::Tensor);
  EXPECT_EQ(types.type_of(am, call).kind, returned);
  EXPECT_EQ(types.type_of(*b.module, x_in_b).kind, plain.type_of(*b.module, x_in_b).kind);
}

// ...and for the variable it names only: a comprehension's own `x` is another variable.
TEST(TensorTypes, AnAssumptionHoldsForItsVariableOnly) {
  ParsedModule parsed = parse_module(
      "def f(x, xs):\n"
      "    ys = [x for x in xs]\n"
      "    return x\n");
  const ir::Module& m = *parsed.module;
  analysis::Project project;
  project.add(&m);
  const ir::Node in_comprehension = nth_identifier(m, "x", 1);
  const ir::Node returned = nth_identifier(m, "x", 3);
  ASSERT_TRUE(in_comprehension && returned);
  analysis::TypeOracle plain(project);
  const ValueKind element = plain.type_of(m, in_comprehension).kind;
  ASSERT_NE(element, ValueKind::Tensor);
  analysis::TypeOracle types(project);
  const ir::Node f = find_node(m, "function_definition");
  const analysis::TypeOracle::Assumption assumed(types, m, m.functions[0].scope, {f.start(), f.end()}, {"x"});
  EXPECT_EQ(types.type_of(m, returned).kind, ValueKind::Tensor);
  EXPECT_EQ(types.type_of(m, in_comprehension).kind, element);
}

TEST(TensorTypes, AParameterIsATensorByAUseThatRunsOnEveryCall) {
  Analysed a(
      "import torch\n"
      "def f(a, b, c, d, e, g, h):\n"
      "    a.abs()\n"
      "    if b is not None:\n"
      "        b.abs()\n"
      "    ok = c is None or c.abs()\n"
      "    d.float()\n"
      "    g = torch.zeros(1)\n"
      "    g.abs()\n"
      "    ra = a + 1\n"
      "    rb = b + 1\n"
      "    rc = c + 1\n"
      "    rd = d + 1\n"
      "    if h > 2:\n"
      "        return e\n"
      "    e.abs()\n"
      "    re = e + 1\n"
      "    rh = h + 1\n"
      "    return ra\n");
  EXPECT_EQ(a.kind_of_assigned("ra"), ValueKind::LikelyTensor);  // a statement of the body
  EXPECT_EQ(a.kind_of_assigned("rb"), ValueKind::Unknown);        // under an `if`
  EXPECT_EQ(a.kind_of_assigned("rc"), ValueKind::Unknown);        // the right operand of `or`
  EXPECT_EQ(a.kind_of_assigned("rd"), ValueKind::Unknown);        // nn.Module has .float() too
  EXPECT_EQ(a.kind_of_assigned("re"), ValueKind::Unknown);        // after an early return
  EXPECT_EQ(a.kind_of_assigned("rh"), ValueKind::Unknown);        // no use at all
}

TEST(TensorTypes, TypeCommentsTypeParametersAsAnnotationsWould) {
  Analysed a(
      "import torch\n"
      "from torch import Tensor\n"
      "from typing import Optional\n"
      "class Tensorish:\n"
      "    pass\n"
      "def f(a, b, c, d, e, g, h):\n"
      "    # type: (Tensor, torch.Tensor, Optional[Tensor], int, List[Tensor], Tensorish, Tensor | None) -> Tensor\n"
      "    ra = a + 1\n"
      "    rb = b + 1\n"
      "    rc = c\n"
      "    rd = d\n"
      "    re = e\n"
      "    rg = g\n"
      "    rh = h\n"
      "    return ra\n"
      "def shadowed(x):\n"
      "    # type: (Tensorish) -> None\n"
      "    rx = x\n");
  EXPECT_EQ(a.kind_of_assigned("ra"), ValueKind::Tensor);   // `Tensor` resolved through its import
  EXPECT_EQ(a.kind_of_assigned("rb"), ValueKind::Tensor);
  EXPECT_EQ(a.kind_of_assigned("rc"), ValueKind::OptionalTensor);
  EXPECT_EQ(a.kind_of_assigned("rd"), ValueKind::Static);
  EXPECT_EQ(a.kind_of_assigned("re"), ValueKind::Unknown);  // a list of tensors is no tensor
  EXPECT_EQ(a.kind_of_assigned("rg"), ValueKind::Unknown);  // a class of this module
  EXPECT_EQ(a.kind_of_assigned("rh"), ValueKind::OptionalTensor);
  EXPECT_EQ(a.kind_of_assigned("rx"), ValueKind::Unknown);
}

TEST(TensorTypes, TypeCommentsOfAnyLengthAndNestingAreReadWithoutRecursion) {
  // A reviewer's 100,000-part union and 100,000-deep Optional overflowed the stack.
  std::string parts = "torch.Tensor";
  std::string opening, closing;
  for (int i = 0; i < 100000; ++i) {
    parts += " | torch.Tensor";
    opening += "Optional[";
    closing += "]";
  }
  const std::string nested = opening + "Tensor" + closing;
  Analysed a("import torch\nfrom torch import Tensor\nfrom typing import Optional\n"
             "def f(x, y):\n"
             "    # type: (" + parts + ", " + nested + ") -> None\n"
             "    rx = x\n"
             "    ry = y\n");
  EXPECT_EQ(a.kind_of_assigned("rx"), ValueKind::Tensor);
  EXPECT_EQ(a.kind_of_assigned("ry"), ValueKind::OptionalTensor);
}

TEST(TensorTypes, AStarParametersDeclaredTypeIsItsElementsType) {
  // `*xs: Tensor` makes `xs` a tuple of tensors, not a tensor: `if xs:` asks whether any were
  // passed, which Dynamo answers from the call (the reviewer's false GM101).
  Analysed a(
      "import torch\n"
      "from torch import Tensor\n"
      "def f(*xs: torch.Tensor, **kw: torch.Tensor):\n"
      "    rx = xs\n"
      "    r0 = xs[0]\n"
      "    rk = kw\n"
      "def g(*ys, **kws):\n"
      "    # type: (*Tensor, **Tensor) -> None\n"
      "    ry = ys\n"
      "    rks = kws\n");
  EXPECT_EQ(a.kind_of_assigned("rx"), ValueKind::TensorTuple);
  EXPECT_EQ(a.kind_of_assigned("r0"), ValueKind::LikelyTensor);
  EXPECT_EQ(a.kind_of_assigned("rk"), ValueKind::Unknown);
  EXPECT_EQ(a.kind_of_assigned("ry"), ValueKind::TensorTuple);
  EXPECT_EQ(a.kind_of_assigned("rks"), ValueKind::Unknown);
}

TEST(TensorTypes, AnAnnotationWinsOverATypeComment) {
  Analysed a(
      "import torch\n"
      "from torch import Tensor\n"
      "def f(n: int, t):\n"
      "    # type: (Tensor, Tensor) -> Tensor\n"
      "    rn = n\n"
      "    rt = t\n");
  EXPECT_EQ(a.kind_of_assigned("rn"), ValueKind::Static);
  EXPECT_EQ(a.kind_of_assigned("rt"), ValueKind::Tensor);
}

TEST(TensorTypes, FlowSensitiveThroughReassignmentAndLoops) {
  Analysed a(
      "import torch\n"
      "def f(x: torch.Tensor, n: int):\n"
      "    v = n\n"
      "    a1 = v\n"
      "    v = x.sum()\n"
      "    a2 = v\n"
      "    while v < 10:\n"
      "        v = v + 1\n"
      "    a3 = v\n");
  EXPECT_EQ(a.kind_of_assigned("a1"), ValueKind::Static);
  EXPECT_EQ(a.kind_of_assigned("a2"), ValueKind::Tensor);
  EXPECT_EQ(a.kind_of_assigned("a3"), ValueKind::Tensor);  // loop-carried definition
}

TEST(TensorTypes, ElementsOfIteratedTensorsThroughZipAndEnumerate) {
  Analysed a(
      "import torch\n"
      "def f(hs: torch.Tensor, ws: torch.Tensor, names: list):\n"
      "    for h, w in zip(hs, ws):\n"
      "        a1 = h\n"
      "        a2 = w\n"
      "    for i, h in enumerate(hs):\n"
      "        a3 = i\n"
      "        a4 = h\n"
      "    for h, name in zip(hs, names):\n"
      "        a5 = name\n"
      "    for p, q in zip(hs, ws, names):\n"
      "        a6 = p\n"
      "    a7 = [h for h, w in zip(hs, ws)]\n"
      "    a8 = [w + 1 for w in ws][0]\n"
      "    for k in range(3):\n"
      "        a9 = k\n"
      "    pads = [hs.max() - n for n in range(3)]\n"
      "    for i, (n, p) in enumerate(zip(range(3), pads)):\n"
      "        a13 = p\n"
      "    for i, (h, w) in enumerate(zip(hs, names)):\n"
      "        a10 = i\n"
      "        a11 = h\n"
      "        a12 = w\n");
  EXPECT_EQ(a.kind_of_assigned("a1"), ValueKind::Tensor);
  EXPECT_EQ(a.kind_of_assigned("a2"), ValueKind::Tensor);
  EXPECT_EQ(a.kind_of_assigned("a3"), ValueKind::Static);  // enumerate's count
  EXPECT_EQ(a.kind_of_assigned("a4"), ValueKind::Tensor);
  EXPECT_EQ(a.kind_of_assigned("a5"), ValueKind::Unknown);  // an element of a list
  EXPECT_EQ(a.kind_of_assigned("a6"), ValueKind::Unknown);  // targets and iterables do not pair up
  EXPECT_EQ(a.kind_of_assigned("a9"), ValueKind::Static);
  EXPECT_EQ(a.kind_of_assigned("a10"), ValueKind::Static);  // nested: enumerate of a zip
  EXPECT_EQ(a.kind_of_assigned("a11"), ValueKind::Tensor);
  EXPECT_EQ(a.kind_of_assigned("a12"), ValueKind::Unknown);
  EXPECT_EQ(a.kind_of_assigned("pads"), ValueKind::TensorTuple);  // a list comprehension of tensors
  EXPECT_EQ(a.kind_of_assigned("a13"), ValueKind::LikelyTensor);
  // A comprehension's variable is an element of its iterable as a loop's is.
  ir::Node element;
  syntax::walk(a.m().root(), [&](ir::Node n) {
    if (n.is(kind::binary_operator) && a.m().text(n) == "w + 1") element = n;
    return true;
  });
  EXPECT_EQ(a.types->type_of(a.m(), element).kind, ValueKind::Tensor);
}

TEST(TensorTypes, MasksStayMasksThroughOptionalAndDtypeKeepingMethods) {
  Analysed a(
      "import torch\n"
      "def f(x: torch.Tensor, mask: torch.BoolTensor | None = None, ids: torch.Tensor = None):\n"
      "    a1 = mask\n"
      "    a2 = mask.to(x.device)\n"
      "    a3 = ids.eq(2).to(x.device).unsqueeze(0)\n"
      "    a4 = ids.eq(2).to(torch.float)\n"
      "    a5 = ids.eq(2).to(x)\n"
      "    a6 = x[mask]\n");
  const auto mask_of = [&](std::string_view name) { return a.types->type_of(a.m(), a.assigned(name)); };
  EXPECT_EQ(mask_of("a1"), (analysis::ValueType{ValueKind::OptionalTensor, true}));
  EXPECT_EQ(mask_of("a2"), (analysis::ValueType{ValueKind::Tensor, true}));
  EXPECT_EQ(mask_of("a3"), (analysis::ValueType{ValueKind::Tensor, true}));
  EXPECT_EQ(mask_of("a4"), (analysis::ValueType{ValueKind::Tensor, false}));  // a new dtype
  EXPECT_EQ(mask_of("a5"), (analysis::ValueType{ValueKind::Tensor, false}));  // another tensor's dtype
  // An optional mask indexes as a mask.
  const ir::Node index = a.assigned("a6");
  EXPECT_TRUE(a.types->boolean_mask_index(a.m(), index.field(field::value), index.field(field::subscript)));
}

TEST(TensorTypes, ModuleAttributesAndSubmoduleCalls) {
  Analysed a(
      "import torch\n"
      "from torch import nn\n"
      "class Inner(nn.Module):\n"
      "    def forward(self, x):\n"
      "        return torch.tanh(x)\n"
      "class M(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.lin = nn.Linear(2, 2)\n"
      "        self.inner = Inner()\n"
      "        self.w = nn.Parameter(torch.ones(2))\n"
      "        self.register_buffer('mask', torch.ones(2, dtype=torch.bool))\n"
      "        self.scale = 0.5\n"
      "    def forward(self, x):\n"
      "        h1 = self.lin(x)\n"
      "        h2 = self.inner(x)\n"
      "        h3 = self.w\n"
      "        h4 = self.mask\n"
      "        h5 = self.scale\n"
      "        return h1\n");
  EXPECT_EQ(a.kind_of_assigned("h1"), ValueKind::Tensor);
  EXPECT_EQ(a.kind_of_assigned("h2"), ValueKind::Tensor);  // Inner.forward returns a tensor
  EXPECT_EQ(a.kind_of_assigned("h3"), ValueKind::Tensor);
  EXPECT_EQ(a.kind_of_assigned("h4"), ValueKind::Tensor);
  EXPECT_EQ(a.kind_of_assigned("h5"), ValueKind::Static);
}

TEST(Effects, PureAllowListAndEffects) {
  Analysed a(
      "import torch\n"
      "def f(x: torch.Tensor, obj):\n"
      "    a = torch.relu(x) + x.sum()\n"
      "    x.add_(1)\n"
      "    obj.attr = 3\n"
      "    obj[0] = 1\n"
      "    print(x)\n"
      "    y = obj.mystery()\n"
      "    z = torch.add(x, 1, out=x)\n"
      "    return a\n");
  const ir::Module& m = a.m();
  const ir::Node body = m.functions[0].node.field(field::body);
  auto kinds_of = [&](uint32_t i) {
    std::vector<analysis::EffectKind> out;
    for (const auto& e : analysis::effects_of(m, *a.types, body.named_child(i))) out.push_back(e.kind);
    return out;
  };
  using K = analysis::EffectKind;
  EXPECT_TRUE(kinds_of(0).empty());
  EXPECT_EQ(kinds_of(1), std::vector<K>{K::InPlaceMutation});
  EXPECT_EQ(kinds_of(2), std::vector<K>{K::AttributeStore});
  // A subscript store on an unknown object may also raise (IndexError, KeyError).
  EXPECT_EQ(kinds_of(3), (std::vector<K>{K::SubscriptStore, K::MayRaise}));
  EXPECT_EQ(kinds_of(4), std::vector<K>{K::IO});
  EXPECT_EQ(kinds_of(5), std::vector<K>{K::UnknownCall});
  EXPECT_EQ(kinds_of(6), std::vector<K>{K::InPlaceMutation});
  EXPECT_EQ(kinds_of(7), std::vector<K>{K::ControlTransfer});
}

TEST(ApiFacts, OneTableAnsweredBySpaceNameAndFact) {
  using analysis::api::Fact;
  using analysis::api::Space;
  using analysis::api::has;
  EXPECT_TRUE(has(Space::Global, "torch.where", Fact::Pure));
  EXPECT_TRUE(has(Space::Global, "len", Fact::Pure));
  EXPECT_TRUE(has(Space::Global, "len", Fact::Static));
  EXPECT_TRUE(has(Space::Global, "print", Fact::Io));
  EXPECT_FALSE(has(Space::Global, "len", Fact::Io));
  // A name's facts belong to its space: `where` is not a builtin, `view` not a torch function.
  EXPECT_FALSE(has(Space::Global, "where", Fact::Pure));
  EXPECT_FALSE(has(Space::Global, "view", Fact::MayAlias));
  EXPECT_TRUE(has(Space::TensorMethod, "view", Fact::MayAlias));
  EXPECT_FALSE(has(Space::TensorMethod, "view", Fact::DynamicShape));
  EXPECT_TRUE(has(Space::TensorMethod, "nonzero", Fact::DynamicShape));
  EXPECT_TRUE(has(Space::Global, "torch.nonzero", Fact::DynamicShape));
  EXPECT_TRUE(has(Space::TensorAttribute, "shape", Fact::Static));
  EXPECT_TRUE(has(Space::TensorAttribute, "T", Fact::ReturnsTensor));
  EXPECT_TRUE(has(Space::Global, "torch.equal", Fact::DataDependent));
  EXPECT_TRUE(has(Space::Global, "ValueError", Fact::ExceptionClass));
  EXPECT_FALSE(has(Space::Global, "ValueError", Fact::WarningCategory));
  EXPECT_TRUE(has(Space::Global, "UserWarning", Fact::WarningCategory));
  EXPECT_TRUE(has(Space::LoggerMethod, "warning_once", Fact::Logs));
  EXPECT_TRUE(has(Space::ModuleMethod, "eval", Fact::ReturnsSelf));
  EXPECT_TRUE(has(Space::Global, "logging.DEBUG", Fact::LoggingLevel));
  // Unknown is no fact at all.
  EXPECT_FALSE(has(Space::Global, "torch.some_future_op", Fact::Pure));
}

TEST(ApiFacts, TorchsOwnSchemasCorrectTheTable) {
  using analysis::api::Fact;
  using analysis::api::Space;
  using analysis::api::has;
  // The table lists `torch.squeeze` as pure only; its schema returns `Tensor(a)`: it may alias.
  EXPECT_TRUE(has(Space::Global, "torch.squeeze", Fact::MayAlias));
  EXPECT_TRUE(has(Space::Global, "torch.squeeze", Fact::Pure));
  EXPECT_FALSE(has(Space::Global, "torch.squeeze", Fact::Allocates));
  // Allocating, and its schema agrees (no alias, no write, no random draw).
  EXPECT_TRUE(has(Space::Global, "torch.clamp", Fact::Allocates));
  EXPECT_TRUE(has(Space::TensorMethod, "clamp", Fact::Allocates));
  EXPECT_TRUE(has(Space::Global, "torch.nn.functional.layer_norm", Fact::Allocates));
  // Random (the nondeterministic_seeded tag): never pure.
  EXPECT_FALSE(has(Space::Global, "torch.nn.functional.dropout", Fact::Pure));
  EXPECT_TRUE(has(Space::Global, "torch.as_tensor", Fact::MayAlias));
  EXPECT_FALSE(has(Space::TensorMethod, "", Fact::Pure));
  EXPECT_TRUE(analysis::api::in_opaque_torch_namespace("torch.cuda.synchronize"));
  EXPECT_FALSE(analysis::api::in_opaque_torch_namespace("torch.cudax"));
}

TEST(CompileRegions, EntryPointsAndReachability) {
  Analysed a(
      "import torch\n"
      "from torch import nn\n"
      "def helper(t):\n"
      "    return t * 2\n"
      "def unused(t):\n"
      "    return t\n"
      "@torch.compile\n"
      "def decorated(x):\n"
      "    return helper(x)\n"
      "def plain(x):\n"
      "    return x\n"
      "fast = torch.compile(plain)\n"
      "class Base:\n"
      "    def forward(self, x):\n"
      "        return x\n"
      "class Sub(nn.Module):\n"
      "    def forward(self, x):\n"
      "        return x\n"
      "class Net(nn.Module):\n"
      "    def __init__(self):\n"
      "        super().__init__()\n"
      "        self.sub = Sub()\n"
      "    def forward(self, x):\n"
      "        return self.tail(self.sub(x))\n"
      "    def tail(self, x):\n"
      "        return x\n"
      "    def not_called(self):\n"
      "        return 1\n");
  analysis::CompileRegions regions(a.project);
  auto compiled = [&](std::string_view qualname) {
    for (size_t i = 0; i < a.m().functions.size(); ++i) {
      if (a.m().functions[i].qualname == qualname) return regions.is_compiled(a.m(), static_cast<int>(i));
    }
    ADD_FAILURE() << "no function " << qualname;
    return false;
  };
  EXPECT_TRUE(compiled("decorated"));
  EXPECT_TRUE(compiled("helper"));
  EXPECT_FALSE(compiled("unused"));
  EXPECT_TRUE(compiled("plain"));
  EXPECT_FALSE(compiled("Base.forward"));  // no nn.Module base
  EXPECT_TRUE(compiled("Sub.forward"));
  EXPECT_TRUE(compiled("Net.forward"));
  EXPECT_TRUE(compiled("Net.tail"));
  EXPECT_FALSE(compiled("Net.not_called"));
  EXPECT_FALSE(compiled("Net.__init__"));
}

// A chain of bases deeper than is_nn_module follows at once still reaches nn.Module: each class's
// answer is settled in source order, the base before the class that names it.
TEST(CompileRegions, ALongChainOfBasesReachesModule) {
  std::string text = "import torch\nclass C0(torch.nn.Module):\n    pass\n";
  for (int i = 1; i < 24; ++i) text += fmt::format("class C{}(C{}):\n    pass\n", i, i - 1);
  text += "class Leaf(C23):\n    def forward(self, x):\n        return x\n";
  Analysed a(std::move(text));
  analysis::CompileRegions regions(a.project);
  const int leaf = static_cast<int>(a.m().classes.size()) - 1;
  EXPECT_TRUE(regions.is_nn_module({&a.m(), leaf}));
  ASSERT_EQ(a.m().functions.size(), 1u);
  EXPECT_TRUE(regions.is_compiled(a.m(), 0));  // Leaf.forward
}

// A class that defines forward() is taken to be an nn.Module only when a base lies outside the
// analysed files; a comment among its bases is not a base.
TEST(CompileRegions, ACommentAmongTheBasesIsNoBase) {
  Analysed a(
      "import torch\n"
      "from torch import nn\n"
      "class Mixin:\n"
      "    pass\n"
      "class Plain(\n"
      "    Mixin,  # the only base\n"
      "):\n"
      "    def forward(self, x):\n"
      "        return x\n"
      "class Layer(\n"
      "    Mixin,  # and a Module\n"
      "    nn.Module,\n"
      "):\n"
      "    def forward(self, x):\n"
      "        return x\n"
      "class Outside(some_library.Base):\n"
      "    def forward(self, x):\n"
      "        return x\n");
  analysis::CompileRegions regions(a.project);
  EXPECT_FALSE(regions.is_nn_module({&a.m(), 1}));  // Plain
  EXPECT_TRUE(regions.is_nn_module({&a.m(), 2}));   // Layer
  EXPECT_TRUE(regions.is_nn_module({&a.m(), 3}));   // Outside: assumed
  EXPECT_EQ(a.m().classes[1].bases.size(), 1u);
}

// The regions follow calls into another module from its summary: a method of an instance that
// a subclass two levels down passes to `__init__`, `super()`, the wrappers a decorator of another
// module returns (bare, called, or applied in a `return`), and `torch.compile(obj.method)`.
// A base named through a class's own method sends resolution through the class's bases, which
// name it again: resolution gives up within its budget instead of recursing without end (this
// two-line file crashed `check` with a stack overflow).
TEST(CompileRegions, AClassBasedOnItsOwnMethodResolvesNoBase) {
  Analysed a(
      "class B(B.m):\n"
      "    pass\n"
      "class C(D.m):\n"
      "    def m(self):\n"
      "        pass\n"
      "class D(C.m):\n"
      "    def m(self):\n"
      "        pass\n");
  const analysis::CompileRegions regions(a.project);
  EXPECT_TRUE(a.project.bases_of({&a.m(), 0}).empty());
  EXPECT_FALSE(regions.is_nn_module({&a.m(), 0}));
  EXPECT_FALSE(a.project.find_method({&a.m(), 0}, "m"));
  EXPECT_TRUE(a.project.find_method({&a.m(), 1}, "m"));
}

// What subclasses pass up through `super().__init__(sub)` reaches the class that stores it, however
// often each passes it: the question is answered once per class, parameter and depth.
TEST(CompileRegions, AnInstancePassedUpAChainOfInitsIsStoredWhereverItLands) {
  std::string text =
      "import torch\n"
      "from torch import nn\n"
      "class Helper:\n"
      "    def run(self, x):\n"
      "        return x\n"
      "class A(nn.Module):\n"
      "    def __init__(self, sub):\n"
      "        super().__init__()\n"
      "        self.sub = sub\n"
      "    def forward(self, x):\n"
      "        return self.sub.run(x)\n";
  const char* chain[] = {"A", "B", "C", "D"};
  for (int k = 1; k < 4; ++k) {
    text += fmt::format("class {}({}):\n    def __init__(self, sub):\n", chain[k], chain[k - 1]);
    for (int copy = 0; copy < 30; ++copy) text += "        super().__init__(sub)\n";
  }
  text += "class E(D):\n    def __init__(self):\n        super().__init__(Helper())\n";
  Analysed a(text);
  const analysis::CompileRegions regions(a.project);
  EXPECT_TRUE(regions.is_compiled(a.m(), 0));  // Helper.run, reached from A.forward
}

TEST(CompileRegions, FollowsCallsIntoAnotherModule) {
  ParsedModule layers = parse_module(
      "import torch\n"
      "def logged(func):\n"
      "    def wrapper(*args):\n"
      "        return func(*args)\n"
      "    return wrapper\n"
      "def configurable(flag=True):\n"
      "    def decorate(func):\n"
      "        def inner(*args):\n"
      "            return func(*args)\n"
      "        return inner\n"
      "    return decorate\n"
      "def either(func=None, *, flag=True):\n"
      "    def wrap(f):\n"
      "        def call(*args):\n"
      "            return f(*args)\n"
      "        return call\n"
      "    return wrap(func)\n"
      "def helper(x):\n"
      "    return x\n"
      "class Block:\n"
      "    def run(self, x):\n"
      "        return x\n"
      "    def forward(self, x):\n"
      "        return x\n"
      "class Base(torch.nn.Module):\n"
      "    def __init__(self, block):\n"
      "        super().__init__()\n"
      "        self.block = block\n"
      "    def forward(self, x):\n"
      "        return self.block.run(x)\n"
      "    def step(self, x):\n"
      "        return x\n"
      "    def unused(self):\n"
      "        pass\n",
      "pkg.layers");
  ParsedModule model = parse_module(
      "import torch\n"
      "from pkg.layers import Base, Block, helper, logged, configurable, either\n"
      "class Mid(Base):\n"
      "    def __init__(self, block):\n"
      "        super().__init__(block)\n"
      "class Net(Mid):\n"
      "    def __init__(self):\n"
      "        super().__init__((Block()))\n"
      "    @logged\n"
      "    def forward(self, x):\n"
      "        x = super().step(x)\n"
      "        return self.more(helper(x))\n"
      "    @configurable(flag=False)\n"
      "    def more(self, x):\n"
      "        return self.last(x)\n"
      "    @either\n"
      "    def last(self, x):\n"
      "        return x\n"
      "class Solo:\n"
      "    def go(self, x):\n"
      "        return x\n"
      "s = Solo()\n"
      "g = torch.compile(s.go)\n",
      "pkg.model");
  analysis::Project project;
  project.add(layers.module.get());
  project.add(model.module.get());
  analysis::CompileRegions regions(project);
  const auto ref = [](const ParsedModule& p, std::string_view qualname) {
    for (size_t i = 0; i < p.module->functions.size(); ++i) {
      if (p.module->functions[i].qualname == qualname) return analysis::FunctionRef{p.module.get(), static_cast<int>(i)};
    }
    ADD_FAILURE() << "no function " << qualname;
    return analysis::FunctionRef{};
  };
  const auto reason = [&](const ParsedModule& p, std::string_view qualname) -> std::string {
    const analysis::FunctionRef f = ref(p, qualname);
    const analysis::RegionEntry* entry = regions.find(*f.module, f.function);
    return entry ? entry->reason : "not compiled";
  };
  EXPECT_EQ(reason(layers, "Block.run"), "called from compiled Base.forward");  // Block() passed two levels up
  EXPECT_EQ(reason(layers, "Base.step"), "called from compiled Net.forward");   // super().step
  EXPECT_EQ(reason(layers, "helper"), "called from compiled Net.forward");
  EXPECT_EQ(reason(model, "Net.last"), "called from compiled Net.more");
  EXPECT_EQ(reason(layers, "logged.<locals>.wrapper"), "wrapper of decorator on Net.forward");
  EXPECT_EQ(reason(layers, "configurable.<locals>.decorate.<locals>.inner"), "wrapper of decorator on Net.more");
  EXPECT_EQ(reason(layers, "either.<locals>.wrap.<locals>.call"), "wrapper of decorator on Net.last");
  EXPECT_EQ(reason(model, "Solo.go"), "passed to torch.compile at line 23");
  EXPECT_EQ(reason(layers, "Block.forward"), "not compiled");  // no Module: its own forward is no entry
  EXPECT_EQ(reason(layers, "Base.unused"), "not compiled");
  EXPECT_EQ(reason(layers, "configurable.<locals>.decorate"), "not compiled");  // runs at import
  const std::span<const analysis::FunctionRef> wrapped = regions.wrapped_by(ref(layers, "logged.<locals>.wrapper"));
  ASSERT_EQ(wrapped.size(), 1u);
  EXPECT_EQ(wrapped[0], ref(model, "Net.forward"));
  // Each recorded call leads back to its node, and its callee is found from that node in its own
  // module only.
  size_t runs = 0;
  for (const analysis::CompiledCall& call : regions.calls()) {
    if (call.callee != ref(layers, "Block.run")) continue;
    ++runs;
    EXPECT_EQ(layers.module->text(call.call_node()), "self.block.run(x)");
    EXPECT_TRUE(call.receiver_bound);
    EXPECT_EQ(regions.callee_of(*layers.module, call.call_node()), ref(layers, "Block.run"));
    EXPECT_EQ(regions.callee_of(*model.module, call.call_node()), std::nullopt);
  }
  EXPECT_EQ(runs, 1u);
}

// What a decorator keeps out of Dynamo (any import spelling), and what that does to the regions: a
// disabled or opaque function is never compiled code, nor is what only it calls, except below a
// recursive=False disable, whose callees Dynamo compiles as new frames. The compiled caller's call
// still resolves to the disabled function (GM408 reports it).
TEST(CompileRegions, DecoratorsThatKeepABodyOutOfDynamo) {
  Analysed a(
      "import torch\n"
      "from torch import nn\n"
      "from torch.compiler import disable as no_compile\n"
      "@torch.compiler.disable\n"
      "def off(t):\n"
      "    return below_off(t)\n"
      "def below_off(t):\n"
      "    return t\n"
      "@no_compile()\n"
      "def off_called(t):\n"
      "    return t\n"
      "@torch._dynamo.disable(recursive=False)\n"
      "def shallow(t):\n"
      "    return below_shallow(t)\n"
      "def below_shallow(t):\n"
      "    return t\n"
      "@torch.compiler.disable(recursive=FLAG)\n"
      "def unknown_flag(t):\n"
      "    return t\n"
      "@torch.library.custom_op(\"ns::op\", mutates_args=())\n"
      "def op(t: torch.Tensor) -> torch.Tensor:\n"
      "    return t.clone()\n"
      "@torch.compiler.allow_in_graph\n"
      "def in_graph(t):\n"
      "    return t\n"
      "@torch._dynamo.assume_constant_result\n"
      "def constant():\n"
      "    return 4\n"
      "@staticmethod\n"
      "def plain(t):\n"
      "    return t\n"
      "class Net(nn.Module):\n"
      "    def forward(self, x):\n"
      "        x = off(x) + off_called(x) + shallow(x) + unknown_flag(x)\n"
      "        return op(x) + in_graph(x) * constant() + plain(x)\n");
  analysis::CompileRegions regions(a.project);
  std::map<std::string, analysis::TraceExclusion> exclusion;
  std::map<std::string, bool> compiled;
  for (size_t i = 0; i < a.m().functions.size(); ++i) {
    const ir::Function& fn = a.m().functions[i];
    exclusion[fn.qualname] = analysis::trace_exclusion(a.m(), fn);
    compiled[fn.qualname] = regions.is_compiled(a.m(), static_cast<int>(i));
  }
  using analysis::TraceExclusion;
  EXPECT_EQ(exclusion["off"], TraceExclusion::Disabled);
  EXPECT_EQ(exclusion["off_called"], TraceExclusion::Disabled);  // an alias, called with no arguments
  EXPECT_EQ(exclusion["shallow"], TraceExclusion::DisabledShallow);
  EXPECT_EQ(exclusion["unknown_flag"], TraceExclusion::Disabled);  // only a literal False is shallow
  EXPECT_EQ(exclusion["op"], TraceExclusion::Opaque);
  EXPECT_EQ(exclusion["in_graph"], TraceExclusion::Opaque);
  EXPECT_EQ(exclusion["constant"], TraceExclusion::Opaque);
  EXPECT_EQ(exclusion["plain"], TraceExclusion::None);
  EXPECT_TRUE(compiled["Net.forward"]);
  for (const char* never : {"off", "below_off", "off_called", "shallow", "unknown_flag", "op", "in_graph", "constant"}) {
    EXPECT_FALSE(compiled[never]) << never;
  }
  EXPECT_TRUE(compiled["below_shallow"]);
  EXPECT_TRUE(compiled["plain"]);
  // The compiled forward's calls resolve to the functions it calls, disabled ones included.
  size_t resolved_to_disabled = 0;
  syntax::walk(a.m().root(), [&](ir::Node n) {
    if (!n.is(kind::call)) return true;
    if (auto callee = regions.callee_of(a.m(), n)) {
      const ir::Function& fn = callee->module->functions[static_cast<size_t>(callee->function)];
      const TraceExclusion e = analysis::trace_exclusion(*callee->module, fn);
      resolved_to_disabled += e == TraceExclusion::Disabled || e == TraceExclusion::DisabledShallow;
    }
    return true;
  });
  EXPECT_EQ(resolved_to_disabled, 4u);  // off, off_called, shallow, unknown_flag
}

}  // namespace
}  // namespace graphmend::testing

namespace graphmend::testing {
namespace {

// Dynamo folds is_compiling() to True and the tracing-state calls to False: a condition they decide
// is decided through `not`, `and`/`or` and local names assigned alike on every path; anything else
// (a parameter, a tensor test) leaves it open.
TEST(Truth, IsCompilingDecidesOnlyWhatItShortCircuits) {
  Analysed a(
      "import torch\n"
      "from torch.compiler import is_compiling\n"
      "def is_torchdynamo_compiling():\n"
      "    return torch.compiler.is_compiling()\n"
      "def f(t, flag):\n"
      "    c01 = torch.compiler.is_compiling()\n"
      "    c02 = not torch.compiler.is_compiling()\n"
      "    c03 = not is_torchdynamo_compiling() and t.any()\n"
      "    c04 = is_compiling() or t.any()\n"
      "    c05 = not (not is_compiling() and t.any())\n"
      "    c06 = (not is_compiling()) or flag\n"
      "    c07 = is_compiling() and flag\n"
      "    c08 = t.any() and not is_compiling()\n"
      "    c09 = torch.jit.is_scripting()\n"
      "    c10 = is_compiling(flag)\n"
      "    c11 = torch.jit.is_tracing() or is_torchdynamo_compiling()\n"
      "    c12 = flag and not is_compiling()\n"
      "    c13 = flag or is_compiling()\n"
      "    c14 = not c11 and t.any()\n"
      "    c15 = c12\n"
      "    c16 = torch.jit.is_tracing()\n"
      "    if flag:\n"
      "        c16 = flag\n"
      "    c17 = c16\n");
  std::map<std::string, std::optional<bool>> truth;
  syntax::walk(a.m().root(), [&](ir::Node n) {
    if (n.is(kind::assignment)) {
      truth[std::string(a.m().text(n.field(field::left)))] = analysis::compile_time_truth(a.m(), n.field(field::right));
    }
    return true;
  });
  EXPECT_EQ(truth["c01"], true);
  EXPECT_EQ(truth["c02"], false);
  EXPECT_EQ(truth["c03"], false);
  EXPECT_EQ(truth["c04"], true);
  EXPECT_EQ(truth["c05"], true);
  EXPECT_EQ(truth["c06"], std::nullopt);  // `False or flag` is flag
  EXPECT_EQ(truth["c07"], std::nullopt);  // `True and flag` is flag
  EXPECT_EQ(truth["c08"], false);  // false, though the tensor is tested first (a break all the same)
  EXPECT_EQ(truth["c09"], false);  // torch.jit.is_scripting() is False while tracing
  EXPECT_EQ(truth["c10"], std::nullopt);  // not the argument-less call Dynamo folds
  EXPECT_EQ(truth["c11"], true);
  EXPECT_EQ(truth["c12"], false);  // `flag` is evaluated, but the result is false either way
  EXPECT_EQ(truth["c13"], true);
  EXPECT_EQ(truth["c14"], false);  // through the local `c11`
  EXPECT_EQ(truth["c15"], false);
  EXPECT_EQ(truth["c17"], std::nullopt);  // `c16` may be `flag` here
}

TEST(TensorTypes, MutuallyReachingAugmentedAssignmentsTerminate) {
  Analysed a(
      "import torch\n"
      "def f(x: torch.Tensor, n: int):\n"
      "    acc = x\n"
      "    for i in range(n):\n"
      "        acc += 1\n"
      "        acc += i\n"
      "        acc *= 2\n"
      "    out = acc\n");
  EXPECT_EQ(a.kind_of_assigned("out"), ValueKind::Tensor);
}

// Issue 16, item 4: a parameter is a tensor where a compiled call passes it one, whatever its
// annotation says; a call from code that is not compiled, or an int, adds nothing.
TEST(TensorTypes, ParametersTypedByWhatCompiledCallersPass) {
  ParsedModule parsed = parse_module(
      "import torch\n"
      "from typing import Tuple\n"
      "def pad(h, paddings: Tuple[int, int]):\n"
      "    left, right = paddings\n"
      "    a1 = max(left, right)\n"
      "def helper(v, n):\n"
      "    a2 = v\n"
      "    a3 = n\n"
      "    return deeper(w=v)\n"
      "def deeper(w):\n"
      "    a4 = w\n"
      "def eager_only(e):\n"
      "    a5 = e\n"
      "@torch.compile\n"
      "def f(x: torch.Tensor):\n"
      "    pad(x, (x.sum(), x.mean()))\n"
      "    return helper(x.sum(), 3)\n"
      "def g():\n"
      "    eager_only(torch.ones(2))\n");
  analysis::Project project;
  project.add(parsed.module.get());
  const analysis::CompileRegions regions(project);
  const analysis::ParameterEvidence evidence = analysis::gather_parameter_evidence(project, regions);
  analysis::TypeOracle types(project, &evidence);
  const ir::Module& m = *parsed.module;
  auto kind_of = [&](std::string_view name, analysis::TypeOracle* oracle = nullptr) {
    ir::Node value;
    syntax::walk(m.root(), [&](ir::Node n) {
      if (n.is(kind::assignment) && m.text(n.field(field::left)) == name) value = n.field(field::right);
      return true;
    });
    return (oracle ? *oracle : types).type_of(m, value).kind;
  };
  EXPECT_EQ(kind_of("a1"), ValueKind::LikelyTensor);  // a tuple of tensors, unpacked, then max
  EXPECT_EQ(kind_of("a2"), ValueKind::LikelyTensor);
  EXPECT_EQ(kind_of("a3"), ValueKind::Unknown);       // only ever passed an int
  EXPECT_EQ(kind_of("a4"), ValueKind::LikelyTensor);  // two calls down, by keyword
  EXPECT_EQ(kind_of("a5"), ValueKind::Unknown);       // its caller is not compiled
  analysis::TypeOracle without_evidence(project);
  EXPECT_EQ(kind_of("a1", &without_evidence), ValueKind::Unknown);
  EXPECT_EQ(kind_of("a2", &without_evidence), ValueKind::Unknown);
}

// A compiled caller that passes a tensor or None (an `Optional[torch.Tensor]` parameter) tells the
// callee as much: what only a tensor supports (a subscript) is then a tensor, a test against None
// is not. A tensor passed by another compiled call outweighs it, in either order.
TEST(TensorTypes, ParametersPassedATensorOrNone) {
  Analysed a(
      "import torch\n"
      "from typing import Optional\n"
      "def encode(values):\n"
      "    b1 = values\n"
      "    b2 = values[:, None]\n"
      "def mixed(h):\n"
      "    b3 = h\n"
      "@torch.compile\n"
      "def f(x: Optional[torch.Tensor], y: torch.Tensor):\n"
      "    encode(x)\n"
      "    mixed(x)\n"
      "@torch.compile\n"
      "def g(y: torch.Tensor):\n"
      "    mixed(y)\n",
      Evidence::FromCompiledCalls);
  EXPECT_EQ(a.kind_of_assigned("b1"), ValueKind::OptionalTensor);
  EXPECT_EQ(a.kind_of_assigned("b2"), ValueKind::Tensor);  // None has no subscript: where it runs, a tensor
  EXPECT_EQ(a.kind_of_assigned("b3"), ValueKind::LikelyTensor);
}

// The compiled calls are typed on several threads, each with a slice of them; the evidence is the
// same as one thread's, including along a chain of calls that takes several rounds.
TEST(TensorTypes, ParameterEvidenceIsTheSameOnAnyNumberOfThreads) {
  std::string text = "import torch\n";
  constexpr int kHelpers = 1600;
  for (int i = 0; i < kHelpers; ++i) text += fmt::format("def h{}(v, n):\n    return v\n", i);
  text += "def link0(a):\n    return a\ndef link1(b):\n    link0(b)\ndef link2(c):\n    link1(c)\n";
  text += "@torch.compile\ndef f(x: torch.Tensor):\n    link1(3)\n";
  for (int i = 0; i < kHelpers; ++i) text += fmt::format("    h{}(x, {})\n", i, i);
  text += "    link2(x)\n";
  ParsedModule parsed = parse_module(text);
  analysis::Project project;
  project.add(parsed.module.get());
  const analysis::CompileRegions regions(project);
  ASSERT_GT(regions.calls().size(), 3u * 512u);  // enough calls for three threads' slices
  const analysis::ParameterEvidence one = analysis::gather_parameter_evidence(project, regions, 1);
  const analysis::ParameterEvidence three = analysis::gather_parameter_evidence(project, regions, 3);
  EXPECT_EQ(one, three);
  const auto found = [&](std::string_view function) {
    for (const auto& [key, type] : three) {
      if (key.module->functions[static_cast<size_t>(key.function)].name == function) return type.kind;
    }
    return ValueKind::Unknown;
  };
  EXPECT_EQ(found("h7"), ValueKind::LikelyTensor);
  EXPECT_EQ(found("link0"), ValueKind::LikelyTensor);  // two calls down from f
  size_t typed_n = 0;
  for (const auto& [key, type] : three) typed_n += key.parameter == 1;
  EXPECT_EQ(typed_n, 0u);  // every `n` is only passed ints
}

// Modules by name, each replaced by a new one when its text is set: the project an editor
// analyses keystroke after keystroke.
class Workspace {
 public:
  void set(const std::string& name, std::string text) {
    auto parsed = std::make_shared<ParsedModule>(parse_module(std::move(text), name));
    modules_[name] = std::shared_ptr<const ir::Module>(parsed, parsed->module.get());
  }
  void remove(const std::string& name) { modules_.erase(name); }
  // The same texts parsed again, as the next run of a check parses them: new module objects.
  [[nodiscard]] Workspace parsed_again() const {
    Workspace next;
    for (const auto& [name, m] : modules_) next.set(name, std::string(m->text()));
    return next;
  }
  // Each module's key, as a summary key stands for it: its name and its text.
  [[nodiscard]] std::map<const ir::Module*, std::string> keys() const {
    std::map<const ir::Module*, std::string> out;
    for (const auto& [name, m] : modules_) out[m.get()] = name + '\n' + std::string(m->text());
    return out;
  }
  // The memo's records as the run that gathered them stores them, read back by the next run.
  static void carry(const analysis::EvidenceMemo& from, const Workspace& before, analysis::EvidenceMemo& to,
                    const Workspace& after, const std::function<std::string(std::string)>& damage = nullptr) {
    const std::map<const ir::Module*, std::string> keys = before.keys();
    std::string bytes = from.encode([&](const ir::Module& m) { return std::string_view(keys.at(&m)); });
    if (damage) bytes = damage(std::move(bytes));
    std::map<std::string, const ir::Module*, std::less<>> modules;
    for (const auto& [m, key] : after.keys()) modules[key] = m;
    to.decode(bytes, [&](std::string_view key) -> const ir::Module* {
      const auto it = modules.find(key);
      return it == modules.end() ? nullptr : it->second;
    });
  }
  [[nodiscard]] const ir::Module& module(const std::string& name) const { return *modules_.at(name); }

  // The evidence as the memo gathers it, and as a fresh gathering does: they must be equal.
  std::pair<analysis::ParameterEvidence, analysis::ParameterEvidence> gather(analysis::EvidenceMemo& memo,
                                                                             unsigned jobs = 1) const {
    analysis::Project project;
    std::vector<std::shared_ptr<const ir::Module>> owners;
    for (const auto& [name, m] : modules_) {
      project.add(m.get());
      owners.push_back(m);
    }
    const analysis::CompileRegions regions(project);
    return {memo.gather(project, regions, jobs, owners), analysis::gather_parameter_evidence(project, regions)};
  }

  // The evidence as the memo gathers it, checked against a fresh gathering's.
  analysis::ParameterEvidence gather_checked(analysis::EvidenceMemo& memo) const {
    auto [memoised, fresh] = gather(memo);
    EXPECT_EQ(memoised, fresh);
    return memoised;
  }

  // The evidence of `module.function`'s parameter `parameter`.
  [[nodiscard]] ValueKind kind_of(const analysis::ParameterEvidence& evidence, const std::string& module,
                                  std::string_view function, int parameter) const {
    const ir::Module& m = *modules_.at(module);
    const auto it = evidence.find({&m, m.module_function(function), parameter});
    return it == evidence.end() ? ValueKind::Unknown : it->second.kind;
  }

 private:
  std::map<std::string, std::shared_ptr<const ir::Module>> modules_;
};

// The memo types again only the callers a change reaches: its own module's, those whose typing
// read the changed module (a callee's return, a re-export), and those that read evidence the
// change moved; a module a name newly finds starts it afresh. Each time the evidence equals a
// fresh gathering's.
TEST(EvidenceMemo, TypesAgainOnlyTheCallersAChangeReaches) {
  Workspace w;
  w.set("layers",
        "import torch\n"
        "def make(v):\n"
        "    return v\n"
        "def scale(v, k):\n"
        "    return deep(v)\n"
        "def deep(w):\n"
        "    return w\n");
  w.set("api", "from layers import make\n");
  w.set("model",
        "import torch\n"
        "import api, layers\n"
        "@torch.compile\n"
        "def forward(x: torch.Tensor):\n"
        "    h = api.make(x)\n"
        "    return layers.scale(h, 2)\n");
  w.set("other",
        "import torch\n"
        "import layers\n"
        "@torch.compile\n"
        "def run(y: torch.Tensor):\n"
        "    return layers.deep(3)\n");
  analysis::EvidenceMemo memo;
  analysis::ParameterEvidence evidence = w.gather_checked(memo);
  EXPECT_EQ(w.kind_of(evidence, "layers", "scale", 0), ValueKind::LikelyTensor);
  EXPECT_EQ(w.kind_of(evidence, "layers", "deep", 0), ValueKind::LikelyTensor);  // through scale, a round later
  EXPECT_EQ(memo.last_counts().reused, 0u);
  const size_t typed_at_first = memo.last_counts().typed;
  EXPECT_GE(typed_at_first, 3u);  // forward, scale (twice: its evidence came a round later), run

  // Nothing changed: nothing is typed.
  evidence = w.gather_checked(memo);
  EXPECT_EQ(memo.last_counts().typed, 0u);
  EXPECT_EQ(memo.last_counts().reused, typed_at_first);

  // A module no other caller reads: its own caller alone.
  w.set("other",
        "import torch\n"
        "import layers\n"
        "@torch.compile\n"
        "def run(y: torch.Tensor):\n"
        "    return layers.deep(y)\n");
  evidence = w.gather_checked(memo);
  EXPECT_EQ(memo.last_counts().typed, 1u);

  // A callee's return, read through a re-export, changes: the caller in another module is typed
  // again, and so is scale, whose evidence the change moved.
  w.set("layers",
        "import torch\n"
        "def make(v):\n"
        "    return 3\n"
        "def scale(v, k):\n"
        "    return deep(v)\n"
        "def deep(w):\n"
        "    return w\n");
  evidence = w.gather_checked(memo);
  EXPECT_EQ(w.kind_of(evidence, "layers", "scale", 0), ValueKind::Unknown);
  EXPECT_EQ(w.kind_of(evidence, "layers", "deep", 0), ValueKind::LikelyTensor);  // run passes its tensor now
  EXPECT_GE(memo.last_counts().typed, 2u);
  EXPECT_EQ(memo.last_counts().reused, 0u);  // run read layers too: deep's parameters

  // A module that a failed name now finds: everything is typed afresh.
  w.set("model",
        "import torch\n"
        "import helpers, layers\n"
        "@torch.compile\n"
        "def forward(x: torch.Tensor):\n"
        "    return layers.scale(helpers.make(x), 2)\n");
  evidence = w.gather_checked(memo);
  EXPECT_EQ(w.kind_of(evidence, "layers", "scale", 0), ValueKind::Unknown);
  w.set("helpers", "def make(v):\n    return v\n");
  evidence = w.gather_checked(memo);
  EXPECT_EQ(w.kind_of(evidence, "layers", "scale", 0), ValueKind::LikelyTensor);
  EXPECT_EQ(memo.last_counts().reused, 0u);
}

// A module of random code calling others': compiled functions and nn.Module classes (whose
// forward is compiled) based on other modules' classes, passing tensors, ints, tuples and other
// calls' results along. It imports some of the other modules, and re-exports a function of one;
// a call may name a re-export another module lacks, which a later edit may add.
std::string random_module(std::mt19937& random, int index, int modules) {
  const auto pick = [&](std::initializer_list<std::string> options) {
    return *(options.begin() + std::uniform_int_distribution<size_t>(0, options.size() - 1)(random));
  };
  std::vector<int> imported;
  for (int m = 0; m < modules; ++m) {
    if (m != index && random() % 2) imported.push_back(m);
  }
  const auto any_imported = [&]() { return imported[random() % imported.size()]; };
  const auto function = [&]() {
    const int k = static_cast<int>(random() % 3);
    if (imported.empty() || random() % 4 == 0) return fmt::format("f{}", k);
    return random() % 3 == 0 ? fmt::format("m{}.r{}", any_imported(), k) : fmt::format("m{}.f{}", any_imported(), k);
  };
  std::string text = "import torch\n";
  for (int m : imported) text += fmt::format("import m{}\n", m);
  if (!imported.empty()) {
    const int k = static_cast<int>(random() % 3);
    text += fmt::format("from m{} import f{} as r{}\n", any_imported(), k, k);
  }
  const std::string base =
      imported.empty() || random() % 2 ? "torch.nn.Module" : fmt::format("m{}.C{}", any_imported(), random() % modules);
  text += fmt::format("class C{}({}):\n    def __init__(self):\n        super().__init__()\n        self.w = {}\n",
                      index, base, pick({"torch.ones(2)", "3", "None", "(torch.ones(1), torch.ones(1))"}));
  text += fmt::format("    def forward(self, x):\n        return {}(self.w, x)\n", function());
  for (int f = 0; f < 3; ++f) {
    if (random() % 3 == 0) text += "@torch.compile\n";
    text += fmt::format("def f{}({}, q):\n", f, random() % 4 == 0 ? "p: torch.Tensor" : "p");
    for (int statements = 1 + static_cast<int>(random() % 3); statements > 0; --statements) {
      if (random() % 2) {
        text += fmt::format("    r = {}\n", pick({"p", "q", "p.sum()", "torch.ones(2)", "3", "(p, q)", function() + "(p, q)", "None"}));
      } else {
        const auto arg = [&]() { return pick({"p", "q", "torch.zeros(1)", "1", "(p, p)", function() + "(q, p)"}); };
        text += fmt::format("    {}({}, {})\n", function(), arg(), arg());
      }
    }
    text += fmt::format("    return {}\n", pick({"p", "q", "3", "torch.ones(1)", function() + "(p, q)", "None"}));
  }
  return text;
}

// Edit after edit, the memo's evidence is a fresh gathering's: a module rewritten, parsed again
// with the same text, or added and removed.
TEST(EvidenceMemo, EqualsAFreshGatheringAfterRandomEdits) {
  constexpr int kModules = 6;
  std::mt19937 random(20261207);
  Workspace w;
  for (int m = 0; m < kModules; ++m) w.set(fmt::format("m{}", m), random_module(random, m, kModules));
  analysis::EvidenceMemo memo;
  size_t typed = 0, reused = 0, tensors = 0;
  for (int step = 0; step < 200; ++step) {
    const int m = static_cast<int>(random() % (kModules + 1));
    const std::string name = fmt::format("m{}", m);
    const unsigned what = random() % 10;
    if (m == kModules && what < 5) {
      w.remove(name);  // a module the others' names find, or not
    } else if (what < 2 && m < kModules) {
      w.set(name, std::string(w.module(name).text()));  // the same text, a new module
    } else {
      w.set(name, random_module(random, m, kModules));
    }
    const auto [memoised, fresh] = w.gather(memo, 1 + step % 2);
    ASSERT_EQ(memoised, fresh) << "step " << step;
    typed += memo.last_counts().typed;
    reused += memo.last_counts().reused;
    for (const auto& [key, type] : fresh) tensors += type.kind == ValueKind::LikelyTensor;
  }
  EXPECT_GT(tensors, 200u);  // the programs pass tensors along
  EXPECT_GT(reused, typed);  // most typings are taken from the memo
  EXPECT_GT(typed, 0u);
}

// A check keeps the memo's records on disk, each module named by its summary key, and the next
// run reads them against modules parsed anew: a record stands where every module it names has
// the same key, so the run types again only the callers of a changed module.
TEST(EvidenceMemo, StoredRecordsStandForModulesOfTheSameKeyInTheNextRun) {
  Workspace w;
  w.set("layers", "import torch\ndef scale(v, k):\n    return v\n");
  w.set("model",
        "import torch\nimport layers\n@torch.compile\ndef forward(x: torch.Tensor):\n    return layers.scale(x, 2)\n");
  // A module read neither as a caller's nor as a callee's: a base class's attribute store.
  w.set("base",
        "import torch\nclass Base(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.w = torch.ones(2)\n");
  w.set("block",
        "import torch\nimport base, layers\nclass Block(base.Base):\n    def forward(self, x):\n"
        "        return layers.scale(x, self.w)\n");
  w.set("other", "import torch\nimport layers\n@torch.compile\ndef run(y: torch.Tensor):\n    return layers.scale(3, y)\n");
  analysis::EvidenceMemo first;
  EXPECT_EQ(w.kind_of(w.gather_checked(first), "layers", "scale", 1), ValueKind::LikelyTensor);  // self.w
  const size_t typed_at_first = first.last_counts().typed;
  EXPECT_EQ(typed_at_first, 3u);

  // The next run, nothing changed: every typing is read back.
  Workspace same = w.parsed_again();
  analysis::EvidenceMemo second;
  Workspace::carry(first, w, second, same);
  same.gather_checked(second);
  EXPECT_EQ(second.last_counts().typed, 0u);
  EXPECT_EQ(second.last_counts().reused, typed_at_first);

  // `other` changed: its caller alone is typed, `forward`'s typing stands.
  Workspace edited = same.parsed_again();
  edited.set("other", "import torch\nimport layers\n@torch.compile\ndef run(y: torch.Tensor):\n    return layers.scale(y, 3)\n");
  analysis::EvidenceMemo third;
  Workspace::carry(second, same, third, edited);
  const analysis::ParameterEvidence evidence = edited.gather_checked(third);
  EXPECT_EQ(third.last_counts().typed, 1u);
  EXPECT_EQ(third.last_counts().reused, 2u);
  EXPECT_EQ(edited.kind_of(evidence, "layers", "scale", 0), ValueKind::LikelyTensor);

  // The base class's store changed: Block.forward read it, and is typed again.
  Workspace edited_base = edited.parsed_again();
  edited_base.set("base",
                  "import torch\nclass Base(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                  "        self.w = 3\n");
  analysis::EvidenceMemo fourth;
  Workspace::carry(third, edited, fourth, edited_base);
  EXPECT_EQ(edited_base.kind_of(edited_base.gather_checked(fourth), "layers", "scale", 1), ValueKind::Unknown);
  EXPECT_EQ(fourth.last_counts().typed, 1u);
  EXPECT_EQ(fourth.last_counts().reused, 2u);

  // `layers` changed: every caller calls into it.
  Workspace edited_layers = edited_base.parsed_again();
  edited_layers.set("layers", "import torch\ndef scale(v, k):\n    return k\n");
  analysis::EvidenceMemo fifth;
  Workspace::carry(fourth, edited_base, fifth, edited_layers);
  edited_layers.gather_checked(fifth);
  EXPECT_EQ(fifth.last_counts().typed, 3u);
  EXPECT_EQ(fifth.last_counts().reused, 0u);
}

// Run after run, with random edits in between, the evidence gathered with the records the run
// before stored is a fresh gathering's. Damaged records (cut short, a byte changed: what the
// file's checksum keeps from a run, tested in cache_test.cpp) are read without trust: they never
// make a key that names no parameter of the run's modules, nor crash the reader.
TEST(EvidenceMemo, StoredRecordsGiveAFreshGatheringsEvidenceAfterRandomEdits) {
  constexpr int kModules = 5;
  std::mt19937 random(20261208);
  Workspace w;
  for (int m = 0; m < kModules; ++m) w.set(fmt::format("m{}", m), random_module(random, m, kModules));
  auto memo = std::make_unique<analysis::EvidenceMemo>();
  w.gather_checked(*memo);
  size_t typed = 0, reused = 0, damaged_reused = 0;
  for (int step = 0; step < 80; ++step) {
    Workspace next = w.parsed_again();
    const int m = static_cast<int>(random() % (kModules + 1));
    const std::string name = fmt::format("m{}", m);
    if (m == kModules && random() % 2) {
      next.remove(name);
    } else if (random() % 3) {
      next.set(name, random_module(random, m, kModules));
    }
    const auto damage = [&](std::string bytes) {
      if (bytes.empty()) return bytes;
      if (random() % 2) {
        bytes.resize(random() % bytes.size());
      } else {
        bytes[random() % bytes.size()] ^= static_cast<char>(1 + random() % 255);
      }
      return bytes;
    };
    analysis::EvidenceMemo damaged;
    Workspace::carry(*memo, w, damaged, next, damage);
    const auto modules = next.keys();
    for (const auto& [key, type] : next.gather(damaged).first) {
      ASSERT_TRUE(modules.contains(key.module)) << "step " << step;
      const auto& functions = key.module->functions;
      ASSERT_TRUE(key.function >= 0 && static_cast<size_t>(key.function) < functions.size());
      ASSERT_TRUE(key.parameter >= 0 &&
                  static_cast<size_t>(key.parameter) < functions[static_cast<size_t>(key.function)].params.size());
    }
    damaged_reused += damaged.last_counts().reused;

    auto read_back = std::make_unique<analysis::EvidenceMemo>();
    Workspace::carry(*memo, w, *read_back, next);
    const auto [stored, fresh] = next.gather(*read_back, 1 + step % 2);
    ASSERT_EQ(stored, fresh) << "step " << step;
    typed += read_back->last_counts().typed;
    reused += read_back->last_counts().reused;
    memo = std::move(read_back);
    w = std::move(next);
  }
  EXPECT_GT(reused, typed);  // most typings are read back
  EXPECT_GT(typed, 0u);
  EXPECT_GT(damaged_reused, 0u);  // a damaged byte costs the records it is in, not every one
}

// Evidence by function name and parameter, for comparing the evidence of two texts.
std::map<std::pair<std::string, int>, ValueKind> evidence_by_name(const analysis::ParameterEvidence& evidence) {
  std::map<std::pair<std::string, int>, ValueKind> out;
  for (const auto& [key, type] : evidence) {
    out[{key.module->functions[static_cast<size_t>(key.function)].qualname, key.parameter}] = type.kind;
  }
  return out;
}

analysis::ParameterEvidence gathered(const std::vector<const ir::Module*>& modules) {
  analysis::Project project;
  for (const ir::Module* m : modules) project.add(m);
  return analysis::gather_parameter_evidence(project, analysis::CompileRegions(project));
}

// A round types again only the compiled functions whose types read evidence that the round
// before changed; the reads count wherever they happen, here inside the return type of another
// function: `g`'s call of `sink` is typed anew once `ident`'s parameter is known, a round later.
TEST(TensorTypes, EvidenceReadThroughAnotherFunctionsReturnIsFollowed) {
  ParsedModule parsed = parse_module(
      "import torch\n"
      "def ident(a):\n"
      "    return a\n"
      "def sink(s):\n"
      "    pass\n"
      "@torch.compile\n"
      "def f(x: torch.Tensor):\n"
      "    ident(x)\n"
      "@torch.compile\n"
      "def g(y):\n"
      "    sink(ident(y))\n");
  analysis::Project project;
  project.add(parsed.module.get());
  const analysis::ParameterEvidence evidence =
      analysis::gather_parameter_evidence(project, analysis::CompileRegions(project));
  const auto kinds = evidence_by_name(evidence);
  EXPECT_EQ(kinds.at({"ident", 0}), ValueKind::LikelyTensor);
  ASSERT_TRUE(kinds.contains({"sink", 0}));
  EXPECT_EQ(kinds.at({"sink", 0}), ValueKind::LikelyTensor);
}

// A fix pass replaces the modules it changed and analyses them again. Their evidence is carried
// to the fixed text instead of being gathered again: the fix kept every call and its arguments,
// so the carried evidence is what gathering on the fixed text finds, while helpers the fix added
// before the functions moved every function's index.
TEST(TensorTypes, EvidenceCarriedToAFixedModuleIsWhatGatheringFindsThere) {
  const std::string body =
      "def scale(v, n):\n"
      "    return v * n\n"
      "class Block(torch.nn.Module):\n"
      "    def forward(self, x: torch.Tensor):\n"
      "        y = scale(x, 2)\n"
      "        REWRITTEN\n"
      "        return self.tail(y)\n"
      "    def tail(self, t):\n"
      "        return t\n";
  auto replace = [](std::string text, std::string_view what, std::string_view with) {
    return text.replace(text.find(what), what.size(), with);
  };
  ParsedModule before = parse_module("import torch\n" + replace(body, "REWRITTEN", "print(y)"));
  ParsedModule after = parse_module("import torch\ndef _graphmend_site_0(a):\n    print(a)\n" +
                                    replace(body, "REWRITTEN", "_graphmend_site_0(y)"));
  const analysis::ParameterEvidence old = gathered({before.module.get()});
  const analysis::ParameterEvidence carried =
      analysis::carry_evidence(old, {analysis::replaced_module(*before.module, *after.module)});
  for (const auto& [key, type] : carried) EXPECT_EQ(key.module, after.module.get());
  std::map<std::pair<std::string, int>, ValueKind> expected = evidence_by_name(gathered({after.module.get()}));
  expected.erase({"_graphmend_site_0", 0});  // the fix's own helper: no rule looks into it
  EXPECT_EQ(evidence_by_name(carried), expected);
  EXPECT_EQ(evidence_by_name(carried).at({"Block.tail", 1}), ValueKind::LikelyTensor);
  EXPECT_EQ(evidence_by_name(carried).at({"scale", 0}), ValueKind::LikelyTensor);
}

// What cannot be matched loses its evidence: a name defined a different number of times, a
// parameter list that changed, a module that left the analysis. Other modules keep theirs.
TEST(TensorTypes, EvidenceWithoutACounterpartIsDropped) {
  const std::string calls =
      "@torch.compile\n"
      "def f(x: torch.Tensor):\n"
      "    twice(x)\n"
      "    renamed(x)\n"
      "    kept(x)\n";
  ParsedModule before = parse_module("import torch\n"
                                     "def twice(a):\n    pass\n"
                                     "def twice(a):\n    pass\n"
                                     "def renamed(a):\n    pass\n"
                                     "def kept(a):\n    pass\n" + calls);
  ParsedModule after = parse_module("import torch\n"
                                    "def twice(a):\n    pass\n"
                                    "def renamed(b):\n    pass\n"
                                    "def kept(a):\n    pass\n" + calls);
  ParsedModule other = parse_module("import torch\n"
                                    "def helper(h):\n    pass\n"
                                    "@torch.compile\n"
                                    "def g(x: torch.Tensor):\n    helper(x)\n", "other");
  ParsedModule gone = parse_module("import torch\n"
                                   "def lost(h):\n    pass\n"
                                   "@torch.compile\n"
                                   "def k(x: torch.Tensor):\n    lost(x)\n", "gone");
  const analysis::ParameterEvidence old = gathered({before.module.get(), other.module.get(), gone.module.get()});
  const auto names = [](const analysis::ParameterEvidence& e) {
    std::vector<std::string> out;
    for (const auto& [key, type] : e) out.push_back(key.module->functions[static_cast<size_t>(key.function)].qualname);
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(names(old), (std::vector<std::string>{"helper", "kept", "lost", "renamed", "twice"}));
  const analysis::ParameterEvidence carried = analysis::carry_evidence(
      old, {analysis::replaced_module(*before.module, *after.module), {gone.module.get(), nullptr, {}}});
  EXPECT_EQ(names(carried), (std::vector<std::string>{"helper", "kept"}));
}

// Module-level definitions all reach each other (reaching is flow-insensitive there). Explored
// along every order, 16 augmented assignments were 16! paths (a fuzzer's slow input took seconds
// with 9); each definition is now evaluated once, and the work of one query is bounded.
TEST(TensorTypes, ModuleLevelAugmentedAssignmentsAreEvaluatedOnce) {
  std::string text = "import torch\nacc = torch.zeros(2)\n";
  for (int i = 0; i < 16; ++i) text += "acc += 1\n";
  text += "def f():\n    out = acc\n";
  Analysed a(text);
  EXPECT_EQ(a.kind_of_assigned("out"), ValueKind::Tensor);
}

}  // namespace
}  // namespace graphmend::testing
