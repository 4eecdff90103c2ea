#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "graphmend/rules/registry.h"
#include "graphmend/rules/rule.h"
#include "test_support.h"
#include "graphmend/rules/rule_docs.h"

namespace graphmend::rules {
namespace {

TEST(Registry, CodesAndNamesAreUniqueSortedAndWellFormed) {
  std::set<std::string_view> codes, names;
  std::string_view previous;
  const std::regex code_re("GM[1-9][0-9]{2}");
  const std::regex name_re("[a-z0-9]+(-[a-z0-9]+)*");
  for (const Rule* r : all_rules()) {
    const RuleInfo& info = r->info();
    EXPECT_TRUE(codes.insert(info.code).second) << info.code;
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_TRUE(std::regex_match(std::string(info.code), code_re)) << info.code;
    EXPECT_TRUE(std::regex_match(std::string(info.name), name_re)) << info.name;
    EXPECT_TRUE(info.graph_break) << info.code << " names no PyTorch break";
    EXPECT_LT(previous, info.code) << "registry must be sorted by code";
    previous = info.code;
    EXPECT_EQ(find_rule(info.code), r);
    EXPECT_EQ(find_rule(info.name), r);
  }
}

// How the result cache reads a diagnostic's rule back: exactly one code, rules and meta alike.
TEST(Registry, EveryCodeLeadsBackToItsInfo) {
  for (const RuleInfo* info : all_rule_infos()) EXPECT_EQ(info_of_code(info->code), info) << info->code;
  EXPECT_EQ(info_of_code("GM10"), nullptr);
  EXPECT_EQ(info_of_code("gm101"), nullptr);  // users' spellings go through find_info
  EXPECT_EQ(info_of_code("tensor-branch"), nullptr);
  EXPECT_EQ(info_of_code(""), nullptr);
}

TEST(GraphBreaks, EveryIdLeadsBackToItsBreakAndIsCitedWithDynamosWords) {
  for (const analysis::GraphBreakEntry& e : analysis::kGraphBreakTable) {
    EXPECT_EQ(graph_break_with_id(e.id), e.graph_break) << e.id;
    EXPECT_FALSE(e.text.empty()) << e.id;
    EXPECT_FALSE(e.hint.empty()) << e.id;
  }
  EXPECT_EQ(cite(GraphBreak::DataDependentBranching), "GB0170: Data-dependent branching");
  EXPECT_EQ(id_of(GraphBreak::PythonTypeCall), "GB4841");
  EXPECT_EQ(graph_break_with_id("GB0000"), std::nullopt);
  EXPECT_EQ(graph_break_with_id("GB9999"), std::nullopt);
  EXPECT_EQ(graph_break_with_id(""), std::nullopt);
}

TEST(Registry, EveryRuleHasADocument) {
  std::set<std::string_view> documented;
  for (const RuleDoc& d : rule_docs()) {
    documented.insert(d.code);
    EXPECT_NE(d.markdown.find("## What it does"), std::string_view::npos) << d.code;
  }
  for (const Rule* r : all_rules()) EXPECT_TRUE(documented.contains(r->info().code)) << r->info().code;
  EXPECT_TRUE(documented.contains(kSyntaxErrorInfo.code));
}

}  // namespace
}  // namespace graphmend::rules

// The engine's one walk (rules::check_file): each rule sees only the nodes of its kinds, in source
// order, in compiled functions only; a rule that skips a subtree skips it for itself alone.
namespace graphmend::testing {
namespace {

class RecordingRule final : public rules::Rule {
 public:
  RecordingRule(const syntax::Kind* kind, bool prune_ifs, std::vector<std::string>& seen)
      : kind_(kind), prune_ifs_(prune_ifs), seen_(seen) {}
  [[nodiscard]] const rules::RuleInfo& info() const override {
    static const rules::RuleInfo kInfo{"GM999", "recording", "test", std::nullopt, rules::RuleFamily::Report,
                                       rules::FixAvailability::None};
    return kInfo;
  }
  [[nodiscard]] std::span<const syntax::Kind* const> kinds() const override { return {&kind_, 1}; }
  [[nodiscard]] std::unique_ptr<rules::FilePass> start(const rules::RuleContext& ctx,
                                                       rules::DiagnosticSink&) const override {
    return rules::file_pass([this, &m = ctx.module](ir::Node n) {
      seen_.emplace_back(m.text(n).substr(0, m.text(n).find('\n')));
      return !(prune_ifs_ && n.is(kind::if_statement));
    });
  }

 private:
  const syntax::Kind* kind_;
  bool prune_ifs_;
  std::vector<std::string>& seen_;
};

TEST(RuleEngine, OneWalkHandsEachRuleItsKindsAndPrunesPerRule) {
  ParsedModule parsed = parse_module(
      "import torch\n"
      "def eager(x):\n"
      "    print(x)\n"
      "@torch.compile\n"
      "def f(x):\n"
      "    if x:\n"
      "        print(1)\n"
      "        if x:\n"
      "            print(2)\n"
      "    print(3)\n");
  analysis::Project project;
  project.add(parsed.module.get());
  const analysis::CompileRegions regions(project);
  analysis::TypeOracle types(project);
  const analysis::FixOptions options;
  rewrite::SiteNamer names(*parsed.module);
  const rules::RuleContext ctx{{*parsed.module, project, regions, types, options}, names};
  std::vector<std::string> calls, ifs;
  const RecordingRule call_rule(&kind::call, false, calls);
  const RecordingRule if_rule(&kind::if_statement, true, ifs);
  const std::array<const rules::Rule*, 2> both{&call_rule, &if_rule};
  rules::DiagnosticSink sink;
  rules::check_file(ctx, both, sink);
  EXPECT_EQ(calls, (std::vector<std::string>{"print(1)", "print(2)", "print(3)"}));  // not eager's
  EXPECT_EQ(ifs, (std::vector<std::string>{"if x:"}));  // the inner `if` lies in its pruned subtree
  EXPECT_TRUE(sink.diagnostics().empty());
}

}  // namespace
}  // namespace graphmend::testing
