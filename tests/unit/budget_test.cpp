// Per-file budgets (driver/budget.h): the memory a file's analysis holds, its syntax tree
// included, is bounded, and going over is an exception the file's work unwinds from.
#include <gtest/gtest.h>

#include <string>

#include "graphmend/driver/budget.h"
#include "graphmend/syntax/tree.h"

namespace graphmend::driver {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kBudgetsEnforced = false;  // a sanitizer's allocator stays: nothing is counted
#else
constexpr bool kBudgetsEnforced = true;
#endif

std::string statements(size_t count) {
  std::string text;
  for (size_t i = 0; i < count; ++i) text += "x = y + " + std::to_string(i) + "\n";
  return text;
}

TEST(Budget, ATreeAloneOverTheMemoryBudgetStopsTheFile) {
  if (!kBudgetsEnforced) GTEST_SKIP() << "sanitizer build";
  syntax::Parser parser;
  const std::string text = statements(100'000);  // about 1.4 MB; its tree is tens of MB
  bool thrown = false;
  try {
    const BudgetScope scope(Budget{std::chrono::milliseconds(0), uint64_t{8} << 20}, std::chrono::nanoseconds(0));
    // tree-sitter's allocations (C code, recorded, cannot throw) put the balance over 8 MB; the
    // copy of its tree, a C++ allocation inside parse(), throws, and tree-sitter's tree is freed.
    const std::optional<syntax::Tree> tree = parser.parse(text);
    EXPECT_FALSE(tree) << "not reached";
  } catch (const BudgetExceeded& e) {
    thrown = true;
    EXPECT_NE(std::string(e.what()).find("--max-file-memory"), std::string::npos);
  }
  EXPECT_TRUE(thrown);
  // The parser is whole afterwards.
  EXPECT_TRUE(parser.parse("x = 1\n"));
}

TEST(Budget, ATreeWithinTheBudgetIsFine) {
  syntax::Parser parser;
  const std::string text = statements(1'000);
  const BudgetScope scope(Budget{std::chrono::milliseconds(0), uint64_t{512} << 20}, std::chrono::nanoseconds(0));
  auto tree = parser.parse(text);
  const std::string next(1000, 'x');
  EXPECT_TRUE(tree && !tree->has_error());
  EXPECT_EQ(next.size(), 1000u);
}

TEST(Budget, AScopeInsideAnotherCountsForItselfWhileTheOuterPauses) {
  if (!kBudgetsEnforced) GTEST_SKIP() << "sanitizer build";
  // Another file's module built where this file's analysis reads it first (a deferred module):
  // its memory counts against its own budget, and this file's budget finds it as it left it.
  const Budget small{std::chrono::milliseconds(0), uint64_t{8} << 20};
  const Budget large{std::chrono::milliseconds(0), uint64_t{64} << 20};
  const BudgetScope outer(small, std::chrono::nanoseconds(0));
  std::string built;
  {
    const BudgetScope inner(large, std::chrono::nanoseconds(0));
    built.assign(size_t{32} << 20, 'x');  // over the outer budget, within the inner one
  }
  std::string more(size_t{4} << 20, 'y');  // the outer budget counts its own 4 MB only
  EXPECT_EQ(built.size() + more.size(), size_t{36} << 20);

  bool inner_thrown = false;
  try {
    const BudgetScope inner(small, std::chrono::nanoseconds(0));
    const std::string over(size_t{16} << 20, 'z');
    ADD_FAILURE() << "not reached";
  } catch (const BudgetExceeded&) {
    inner_thrown = true;
  }
  EXPECT_TRUE(inner_thrown);
  // The outer budget is armed again, with its own balance.
  bool outer_thrown = false;
  try {
    const std::string over(size_t{6} << 20, 'w');
    ADD_FAILURE() << "not reached";
  } catch (const BudgetExceeded&) {
    outer_thrown = true;
  }
  EXPECT_TRUE(outer_thrown);
}

}  // namespace
}  // namespace graphmend::driver
