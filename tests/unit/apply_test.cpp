#include <gtest/gtest.h>

#include "graphmend/fix/apply.h"

namespace graphmend::fix {
namespace {

using source::Edit;
using source::Fix;

ApplyResult apply(std::string_view text, const std::vector<Fix>& fixes) {
  std::vector<const Fix*> ptrs;
  for (const Fix& f : fixes) ptrs.push_back(&f);
  return apply_fixes(text, ptrs);
}

TEST(ApplyFixes, EmptyFileNoFixes) {
  auto r = apply("", {});
  EXPECT_EQ(r.text, "");
  EXPECT_TRUE(r.applied.empty());
}

TEST(ApplyFixes, OneInsertion) {
  auto r = apply("ab", {Fix{{Edit::insertion(1, "X")}}});
  EXPECT_EQ(r.text, "aXb");
}

TEST(ApplyFixes, OneReplacement) {
  auto r = apply("hello world", {Fix{{Edit::replace({6, 11}, "there")}}});
  EXPECT_EQ(r.text, "hello there");
}

TEST(ApplyFixes, OneRemovalAndTwoRemovals) {
  EXPECT_EQ(apply("abcdef", {Fix{{Edit::deletion({1, 3})}}}).text, "adef");
  EXPECT_EQ(apply("abcdef", {Fix{{Edit::deletion({0, 1}), Edit::deletion({4, 6})}}}).text, "bcd");
}

TEST(ApplyFixes, OverlappingFixIsDroppedWhole) {
  Fix first{{Edit::replace({0, 4}, "AAAA")}};
  Fix second{{Edit::replace({2, 6}, "BBBB"), Edit::insertion(8, "!")}};
  auto r = apply("0123456789", {first, second});
  EXPECT_EQ(r.text, "AAAA456789");  // none of `second` applied, including its later insertion
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0], 1u);
}

TEST(ApplyFixes, AdjacentEditsBothApply) {
  auto r = apply("0123", {Fix{{Edit::replace({0, 2}, "ab")}}, Fix{{Edit::replace({2, 4}, "cd")}}});
  EXPECT_EQ(r.text, "abcd");
  EXPECT_EQ(r.applied.size(), 2u);
}

TEST(ApplyFixes, InsertionsAtSameOffsetKeepInputOrder) {
  auto r = apply("x", {Fix{{Edit::insertion(0, "a")}}, Fix{{Edit::insertion(0, "b")}}});
  EXPECT_EQ(r.text, "abx");
}

TEST(ApplyFixes, IdenticalEditSharedByTwoFixesAppliesOnce) {
  Edit helper = Edit::insertion(0, "import torch\n");
  auto r = apply("y = 1\n", {Fix{{helper, Edit::replace({0, 1}, "z")}}, Fix{{helper}}});
  EXPECT_EQ(r.text, "import torch\nz = 1\n");
  EXPECT_EQ(r.applied.size(), 2u);
}

TEST(ApplyFixes, FixesAreTakenInSourceOrder) {
  auto r = apply("abc", {Fix{{Edit::replace({2, 3}, "C")}}, Fix{{Edit::replace({0, 1}, "A")}}});
  EXPECT_EQ(r.text, "AbC");
}

TEST(ApplyFixes, OutOfBoundsEditIsRejected) {
  auto r = apply("abc", {Fix{{Edit::replace({2, 9}, "X")}}});
  EXPECT_EQ(r.text, "abc");
  EXPECT_EQ(r.skipped.size(), 1u);
}

}  // namespace
}  // namespace graphmend::fix
