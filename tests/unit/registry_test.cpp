#include <gtest/gtest.h>

#include <regex>
#include <set>

#include "graphmend/rules/registry.h"
#include "graphmend/rules/rule_docs.h"

namespace graphmend::rules {
namespace {

TEST(Registry, CodesAndNamesAreUniqueSortedAndWellFormed) {
  std::set<std::string_view> codes, names;
  std::string_view previous;
  const std::regex code_re("GM[1-9][0-9]{2}");
  const std::regex name_re("[a-z0-9]+(-[a-z0-9]+)*");
  const std::regex gb_re("GB[0-9]{4}");
  for (const Rule* r : all_rules()) {
    const RuleInfo& info = r->info();
    EXPECT_TRUE(codes.insert(info.code).second) << info.code;
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_TRUE(std::regex_match(std::string(info.code), code_re)) << info.code;
    EXPECT_TRUE(std::regex_match(std::string(info.name), name_re)) << info.name;
    EXPECT_TRUE(std::regex_match(std::string(info.graph_break_id), gb_re)) << info.graph_break_id;
    EXPECT_LT(previous, info.code) << "registry must be sorted by code";
    previous = info.code;
    EXPECT_EQ(find_rule(info.code), r);
    EXPECT_EQ(find_rule(info.name), r);
  }
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
