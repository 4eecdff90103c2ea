// Decline reasons are data: a code, a stable name and a sentence from one table, rendered in one
// place. These tests read as the contract reports and the result cache rely on.
#include "graphmend/rewrite/decline.h"

#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <string>

namespace graphmend::rewrite {
namespace {

TEST(Decline, RendersItsSentenceWithItsFields) {
  EXPECT_EQ(render(decline<DeclineCode::AssignedTwice>("x")), "`x` is assigned twice in one branch");
  EXPECT_EQ(render(decline<DeclineCode::NotInFunction>()), "the `if` is not inside a function");
  EXPECT_EQ(render(decline<DeclineCode::PartNotProvenPure>("the condition", "calls `mask.any`")),
            "the condition calls `mask.any`, which graphmend cannot prove pure and unable to raise");
}

TEST(Decline, AFieldIsRenderedVerbatimEvenWithBraces) {
  EXPECT_EQ(render(decline<DeclineCode::UnselectableStatement>("d = {}")),
            "a branch has the statement `d = {}`; only `name = value` assignments (or one `return` in each "
            "branch) are selected");
}

TEST(Decline, EveryCodeHasAUniqueStableNameThatReadsBack) {
  std::set<std::string_view> names;
  for (size_t i = 0; i < kDeclineTable.size(); ++i) {
    const auto code = static_cast<DeclineCode>(i);
    const std::string_view name = code_name(code);
    EXPECT_TRUE(names.insert(name).second) << "duplicate name " << name;
    EXPECT_EQ(code_named(name), code) << name;
    ASSERT_FALSE(name.empty());
    for (const char c : name) EXPECT_TRUE(std::islower(static_cast<unsigned char>(c)) || c == '-') << name;
  }
  EXPECT_FALSE(code_named("no-such-reason"));
}

TEST(Decline, EverySentenceRendersWithItsFieldCount) {
  for (size_t i = 0; i < kDeclineTable.size(); ++i) {
    const auto code = static_cast<DeclineCode>(i);
    Decline reason{code, std::vector<std::string>(field_count(code), "F")};
    const std::string text = render(reason);
    EXPECT_EQ(text.find("{}"), std::string::npos) << code_name(code);
    EXPECT_FALSE(text.ends_with(".")) << code_name(code) << ": a reason is a clause, without a full stop";
  }
}

TEST(Decline, MissingFieldsRenderEmptyInsteadOfThrowing) {
  EXPECT_EQ(render(Decline{DeclineCode::AssignedTwice, {}}), "`` is assigned twice in one branch");
}

}  // namespace
}  // namespace graphmend::rewrite
