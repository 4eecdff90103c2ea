// The golden fixtures' `# expect:` annotations (fixture_expectations.h): what they parse to,
// what they reject, and how a difference from what graphmend found reads.
#include "fixture_expectations.h"

#include <gtest/gtest.h>

namespace graphmend::testing::expect {
namespace {

Finding at(int line, std::string code, Outcome outcome, std::string reason = {}) {
  return {line, std::move(code), outcome, std::move(reason)};
}

TEST(FixtureExpectations, ReadsTrailingAndNextLineAnnotations) {
  const Annotations a = parse(
      "import torch\n"
      "    print(y)  # expect: GM201 fixed\n"
      "    y = y * 2; print(y)  # expect: GM201 declined shares-line -- the `;` shares the line\n"
      "    # expect-next-line: GM401 reported, GM101 unsafe kept-object-replaced\n"
      "    n = t.item()\n"
      "    return y  # OK: a comment that expects nothing\n");
  EXPECT_TRUE(a.errors.empty()) << a.errors.front();
  EXPECT_EQ(a.expected, (std::vector<Finding>{at(2, "GM201", Outcome::Fixed),
                                              at(3, "GM201", Outcome::Declined, "shares-line"),
                                              at(5, "GM401", Outcome::Reported),
                                              at(5, "GM101", Outcome::Unsafe, "kept-object-replaced")}));
}

TEST(FixtureExpectations, AnAnnotationMayFollowAnotherComment) {
  const Annotations a = parse("print(y)  # noqa: GM201  # expect: GM903 reported\n");
  EXPECT_TRUE(a.errors.empty());
  EXPECT_EQ(a.expected, (std::vector<Finding>{at(1, "GM903", Outcome::Reported)}));
}

TEST(FixtureExpectations, RejectsWhatItCannotCheck) {
  const auto errors = [](std::string_view text) { return parse(text).errors; };
  EXPECT_EQ(errors("x  # expect: GM999 fixed\n"),
            std::vector<std::string>{"line 1: `GM999 fixed`: not a code graphmend reports"});
  EXPECT_EQ(errors("x  # expect: GM201 declined shares-its-line\n"),
            std::vector<std::string>{
                "line 1: `GM201 declined shares-its-line`: `shares-its-line` is not a decline code of kDeclineTable"});
  EXPECT_EQ(errors("x  # expect: GM201 declined\n").size(), 1u);
  EXPECT_EQ(errors("x  # expect: GM101 unsafe\n").size(), 1u);                  // no unsafe code
  EXPECT_EQ(errors("x  # expect: GM101 unsafe shares-line\n"),                  // a decline code
            std::vector<std::string>{
                "line 1: `GM101 unsafe shares-line`: `shares-line` is not an unsafe code of kUnsafeTable"});
  EXPECT_EQ(errors("x  # expect: GM201\n").size(), 1u);                 // no outcome
  EXPECT_EQ(errors("x  # expect: GM201 fixd\n").size(), 1u);            // a misspelt outcome
  EXPECT_EQ(errors("x  # expect: GM201 fixed because\n").size(), 1u);   // free text without ` -- `
  EXPECT_EQ(errors("x  # expect: GM201 fixed,\n").size(), 1u);          // an empty item
  EXPECT_EQ(errors("x  # expect GM201 fixed\n").size(), 1u);            // no colon
  EXPECT_EQ(errors("x  # Expect: GM201 fixed\n").size(), 1u);           // not the exact spelling
  EXPECT_EQ(errors("x  # expect-next-line: GM201 fixed\n").size(), 1u);  // not on a line of its own
  EXPECT_EQ(errors("# expect: GM201 fixed\nx\n").size(), 1u);            // trailing form alone
  EXPECT_TRUE(errors("x  # we expect nothing here\n").empty());          // prose is not an annotation
}

TEST(FixtureExpectations, SaysWhereFoundAndExpectedDiffer) {
  const std::vector<Finding> expected{at(3, "GM201", Outcome::Declined, "shares-line"), at(4, "GM404", Outcome::Reported),
                                      at(7, "GM201", Outcome::Fixed)};
  const std::vector<Finding> found{at(3, "GM201", Outcome::Fixed), at(7, "GM201", Outcome::Fixed),
                                   at(9, "GM101", Outcome::Unsafe, "kept-object-replaced")};
  EXPECT_EQ(compare(expected, found),
            (std::vector<std::string>{"line 3: found GM201 fixed, expected GM201 declined shares-line",
                                      "line 4: expected GM404 reported, not found",
                                      "line 9: found GM101 unsafe kept-object-replaced, which no annotation expects"}));
  EXPECT_TRUE(compare(found, found).empty());
}

TEST(FixtureExpectations, CountsRepeatedFindingsOnOneLine) {
  // Two findings of one rule on a line need two items.
  const std::vector<Finding> two{at(2, "GM406", Outcome::Reported), at(2, "GM406", Outcome::Reported)};
  EXPECT_EQ(compare({at(2, "GM406", Outcome::Reported)}, two),
            std::vector<std::string>{"line 2: found GM406 reported, which no annotation expects"});
  EXPECT_TRUE(compare(parse("x  # expect: GM406 reported, GM406 reported\n").expected,
                      {at(1, "GM406", Outcome::Reported), at(1, "GM406", Outcome::Reported)})
                  .empty());
}

}  // namespace
}  // namespace graphmend::testing::expect
