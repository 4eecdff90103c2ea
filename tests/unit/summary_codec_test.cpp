// analysis::encode / decode (analysis/summary_codec.h): a module's summary comes back from its bytes
// field for field, and bytes that are not such a summary, damaged anywhere, come back as nothing.
#include "graphmend/analysis/summary_codec.h"

#include <gtest/gtest.h>

#include "graphmend/analysis/call_evidence.h"
#include "graphmend/analysis/compile_regions.h"
#include "graphmend/analysis/project.h"
#include "graphmend/analysis/tensor_types.h"
#include "graphmend/rewrite/site.h"
#include "graphmend/rules/conditions.h"
#include "graphmend/rules/rule.h"

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "test_support.h"

namespace graphmend {
namespace {

using analysis::ModuleSummary;

// A module with a fact of every kind the summary keeps: definitions of each kind, bases, methods,
// self stores, decorators, calls through every receiver, returned closures, `super().__init__`
// arguments, compile sites of both kinds, and loggers bound by imports, factories and names.
constexpr const char* kEverything = R"(import logging
import torch
from torch import nn
from .layers import Block, make
from transformers.utils import logging as hf_logging

logger = logging.getLogger(__name__)
log = logger
other = hf_logging.get_logger(__name__)
VALUE = 3


def wrap(func):
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)
    return wrapper


def apply(func):
    def inner(x):
        return x
    return inner(func)


@torch.compiler.disable
def helper(x, *rest, scale=1.0, **options) -> dict:
    return {"x": make(x)}


class Base(nn.Module):
    def __init__(self, width, inner):
        super().__init__()
        self.inner = inner
        self.block = Block(width)

    @wrap
    def forward(self, x):
        y = self.block.run(x)
        z = super().forward(y)
        return self.step(helper(z, scale=2.0))

    @staticmethod
    def step(x):
        return x


@torch.compile
class Model(Base):
    def __init__(self, width):
        super().__init__(width, Block(width), *extra, key=width, **more)


def train(model):
    compiled = torch.compile(helper)
    model.compile()
    torch.compile(model.forward)
    return compiled
)";

ModuleSummary summary_of(const std::string& text, const std::string& name = "pkg.model") {
  testing::ParsedModule p = testing::parse_module(text, name);
  return analysis::summarize(*p.module);
}

// A damaged summary is refused both ways: it is not consistent, and its bytes decode to nothing.
bool refused(const ModuleSummary& damaged) {
  return !analysis::is_consistent(damaged) && !analysis::decode(analysis::encode(damaged));
}

TEST(SummaryCodec, EveryKindOfFactComesBackAsItWasTaken) {
  const ModuleSummary s = summary_of(kEverything);
  // The module holds what the round trip is to carry: none of these may be empty.
  ASSERT_FALSE(s.names.empty());
  ASSERT_EQ(s.classes.size(), 2u);
  ASSERT_FALSE(s.classes[0].bases.empty());
  ASSERT_FALSE(s.classes[0].methods.empty());
  ASSERT_FALSE(s.classes[0].self_stores.empty());
  ASSERT_TRUE(s.classes[1].compiled);
  ASSERT_FALSE(s.compile_sites.empty());
  ASSERT_FALSE(s.loggers.empty());
  ASSERT_FALSE(s.logger_values.empty());
  ASSERT_TRUE(s.mentions_torch);
  bool calls = false, decorators = false, returned = false, applied = false, super_init = false, container = false;
  for (const ModuleSummary::FunctionFacts& f : s.functions) {
    calls = calls || !f.calls.empty();
    decorators = decorators || !f.decorators.empty();
    returned = returned || !f.returned.empty();
    applied = applied || !f.applied_in_return.empty();
    super_init = super_init || !f.super_init_calls.empty();
    container = container || f.returns_container;
  }
  ASSERT_TRUE(calls && decorators && returned && applied && super_init && container);

  const std::string bytes = analysis::encode(s);
  const std::optional<ModuleSummary> back = analysis::decode(bytes);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, s);
  EXPECT_EQ(analysis::encode(*back), bytes);
}

TEST(SummaryCodec, EveryFixturesSummaryComesBackAsItWasTaken) {
  int modules = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(GM_FIXTURES_DIR)) {
    if (entry.path().extension() != ".py") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const ModuleSummary s = summary_of(text.str(), "pkg." + entry.path().stem().string());
    ASSERT_TRUE(analysis::is_consistent(s)) << entry.path();
    const std::optional<ModuleSummary> back = analysis::decode(analysis::encode(s));
    ASSERT_TRUE(back) << entry.path();
    EXPECT_EQ(*back, s) << entry.path();
    ++modules;
  }
  EXPECT_GT(modules, 100);
}

TEST(SummaryCodec, BytesCutShortOrRunningOnAreNoSummary) {
  const std::string bytes = analysis::encode(summary_of(kEverything));
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(analysis::decode(std::string_view(bytes).substr(0, n))) << "the first " << n << " bytes";
  }
  EXPECT_FALSE(analysis::decode(bytes + '\0'));
}

TEST(SummaryCodec, AnIndexOutOfItsTableIsNoSummary) {
  const ModuleSummary s = summary_of(kEverything);
  ASSERT_TRUE(analysis::decode(analysis::encode(s)));
  ModuleSummary a = s;
  a.classes[0].methods[0].second = static_cast<int>(a.functions.size());
  EXPECT_TRUE(refused(a));
  ModuleSummary b = s;
  b.functions[0].calls.push_back({.call_index = 0, .callee = {.qualified = static_cast<int>(b.strings.size())}});
  EXPECT_TRUE(refused(b));
  ModuleSummary c = s;
  c.classes[1].bases[0].local_class = 2;
  EXPECT_TRUE(refused(c));
  ModuleSummary d = s;
  d.loggers[0].second.push_back({.value = static_cast<int>(d.logger_values.size())});
  EXPECT_TRUE(refused(d));
  ModuleSummary e = s;
  e.compile_sites[0].self_class = -2;
  EXPECT_TRUE(refused(e));
  // Lookups by name search these tables in order: out of order, a name would not be found.
  ModuleSummary f = s;
  std::swap(f.names.front(), f.names.back());
  EXPECT_TRUE(refused(f));
  // A method call on the instance without its method's name, or `self.x.m()` without `x`.
  for (const auto receiver : {ModuleSummary::CallSite::Receiver::Self, ModuleSummary::CallSite::Receiver::SelfMember,
                              ModuleSummary::CallSite::Receiver::Super}) {
    ModuleSummary g = s;
    g.functions[0].calls.push_back({.receiver = receiver, .attribute = -1, .member = 0});
    EXPECT_TRUE(refused(g));
  }
  ModuleSummary h = s;
  h.functions[0].calls.push_back({.receiver = ModuleSummary::CallSite::Receiver::SelfMember, .attribute = 0});
  EXPECT_TRUE(refused(h));
}

TEST(SummaryCodec, LoggerValuesAreAForestOfBindingsThatEachNameOneThing) {
  const ModuleSummary s = summary_of(kEverything);
  ASSERT_GE(s.logger_values.size(), 2u);
  // A binding that is neither an import nor a value, or both.
  ModuleSummary a = s;
  a.loggers[0].second.push_back({.import_path = -1, .value = -1});
  EXPECT_TRUE(refused(a));
  ModuleSummary b = s;
  b.loggers[0].second.push_back({.import_path = 0, .value = 0});
  EXPECT_TRUE(refused(b));
  // A value named twice: shared values would let a reader's walk take time to the power of the depth.
  ModuleSummary c = s;
  c.logger_values.push_back({.bound_by = {{.value = 0}}});
  c.logger_values.push_back({.bound_by = {{.value = 0}}});
  EXPECT_TRUE(refused(c));
  // A value that names itself or a later one.
  ModuleSummary d = s;
  d.logger_values.push_back({.bound_by = {{.value = static_cast<int>(d.logger_values.size())}}});
  EXPECT_TRUE(refused(d));
}

TEST(SummaryCodec, ASummaryFitsTheModuleItWasTakenOf) {
  testing::ParsedModule p = testing::parse_module(kEverything, "pkg.model");
  const ModuleSummary s = analysis::summarize(*p.module);
  EXPECT_TRUE(analysis::fits(s, *p.module));
  testing::ParsedModule other = testing::parse_module("def f():\n    return g()\n", "pkg.model");
  EXPECT_FALSE(analysis::fits(s, *other.module));
  ModuleSummary far = s;
  far.functions[0].calls.push_back({.call_index = 0x7ffffff0});
  EXPECT_FALSE(analysis::fits(far, *p.module));
  ModuleSummary not_a_call = s;
  not_a_call.functions[0].calls.push_back({.call_index = 0});  // the module node
  EXPECT_FALSE(analysis::fits(not_a_call, *p.module));
}

TEST(SummaryCodec, AnEnumValueItDoesNotHaveIsNoSummary) {
  ModuleSummary s;
  s.functions.push_back({.qualname = "f"});
  const std::string bytes = analysis::encode(s);
  ASSERT_TRUE(analysis::decode(bytes));
  // The function's fields after its name: klass (-1 as one byte), params (none), then the trace
  // exclusion, which has four values.
  const size_t exclusion = bytes.find('f') + 3;
  ASSERT_EQ(bytes[exclusion], '\0');
  std::string damaged = bytes;
  damaged[exclusion] = 4;
  EXPECT_FALSE(analysis::decode(damaged));
  damaged[exclusion] = 3;
  EXPECT_TRUE(analysis::decode(damaged));
}

// Random damage anywhere: every result is either nothing or a summary its readers can trust. Those
// that fit the module are read as a check reads them: the compile regions and the call evidence
// over a project of that module, and the logger rules.
TEST(SummaryCodec, DamagedBytesNeverGiveASummaryThatMisleadsAReader) {
  testing::ParsedModule p = testing::parse_module(kEverything, "pkg.model");
  // A module that reaches into it: its loggers, its classes, its functions.
  testing::ParsedModule importer = testing::parse_module(
      "import torch\nfrom pkg.model import logger, log, other, VALUE, Base, Model, helper, train\n\n"
      "@torch.compile\ndef run(x):\n    logger.info(x)\n    log.info(x)\n    other.info(x)\n    VALUE.info(x)\n"
      "    y = Base(3, Model(2))(x)\n    return helper(train(y), scale=x)\n",
      "pkg.importer");
  const std::string bytes = analysis::encode(analysis::summarize(*p.module));
  std::mt19937 random(51);
  int decoded = 0, read = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    std::string damaged = bytes;
    const int changes = 1 + static_cast<int>(random() % 3);
    for (int k = 0; k < changes; ++k) {
      const size_t at = random() % damaged.size();
      switch (random() % 3) {
        case 0: damaged[at] = static_cast<char>(random()); break;
        case 1: damaged.erase(at, 1 + random() % 4); break;
        default: damaged.insert(at, 1, static_cast<char>(random())); break;
      }
      if (damaged.empty()) damaged = "x";
    }
    if (std::optional<ModuleSummary> s = analysis::decode(damaged)) {
      EXPECT_TRUE(analysis::is_consistent(*s));
      ++decoded;
      if (!analysis::fits(*s, *p.module)) continue;
      ++read;
      analysis::Project project;
      project.add(p.module.get(), std::make_shared<const ModuleSummary>(std::move(*s)));
      project.add(importer.module.get());
      const analysis::CompileRegions regions(project);
      analysis::gather_parameter_evidence(project, regions);
      analysis::TypeOracle types(project);
      const analysis::FixOptions options;
      rewrite::SiteNamer names(*importer.module);
      const rules::RuleContext context{{*importer.module, project, regions, types, options}, names};
      for (const char* logger : {"logger", "log", "other", "VALUE"}) {
        rules::is_logger(context, *importer.module, testing::nth_identifier(*importer.module, logger, 1));
      }
    }
  }
  // Some damage leaves a valid summary (a changed letter of a name): the check is not vacuous.
  EXPECT_GT(decoded, 0);
  EXPECT_GT(read, 0);
}

TEST(SummaryCodec, ACountLargerThanTheBytesLeftIsNoSummary) {
  // names: a count of 2^62 elements, in nine bytes; nothing follows.
  const std::string bytes("\x80\x80\x80\x80\x80\x80\x80\x80\x40", 9);
  EXPECT_FALSE(analysis::decode(bytes));
}

}  // namespace
}  // namespace graphmend
