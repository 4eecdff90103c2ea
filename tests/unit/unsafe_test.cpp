// Why a fix is unsafe is data, as declines are: a code, a stable name and a sentence from one
// table. These tests read as the contract the JSON report (`fix.unsafe_code`) relies on.
#include "graphmend/rewrite/unsafe.h"

#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <string>

namespace graphmend::rewrite {
namespace {

TEST(Unsafe, RendersItsSentenceWithItsFields) {
  EXPECT_EQ(render(unsafe<UnsafeCode::KeptObjectReplaced>("h", ", the caller's argument")),
            "the selected tensor is a new object, where the original keeps `h`, the caller's argument");
  EXPECT_EQ(render(unsafe<UnsafeCode::BufferRebound>("")),
            "it becomes a new tensor where the original rebinds it to an existing one");
}

TEST(Unsafe, MarkingAFixSetsItsApplicabilityAndCode) {
  source::Fix fix;
  const std::string sentence = mark_unsafe(fix, unsafe<UnsafeCode::BoundObjectReplaced>());
  EXPECT_EQ(fix.applicability, source::Applicability::Unsafe);
  EXPECT_EQ(fix.unsafe_code, "bound-object-replaced");
  EXPECT_EQ(sentence, "the selected tensor is a new object, where the original kept or bound an existing one");
  EXPECT_TRUE(fix.title.empty()) << "the planner writes the title around the sentence";
}

TEST(Unsafe, EveryCodeHasAUniqueStableName) {
  std::set<std::string_view> names;
  for (size_t i = 0; i < kUnsafeTable.size(); ++i) {
    const std::string_view name = code_name(static_cast<UnsafeCode>(i));
    EXPECT_TRUE(names.insert(name).second) << "duplicate name " << name;
    ASSERT_FALSE(name.empty());
    for (const char c : name) EXPECT_TRUE(std::islower(static_cast<unsigned char>(c)) || c == '-') << name;
  }
}

TEST(Unsafe, EverySentenceRendersWithItsFieldCount) {
  for (size_t i = 0; i < kUnsafeTable.size(); ++i) {
    const auto code = static_cast<UnsafeCode>(i);
    const std::string text = render(Unsafe{code, std::vector<std::string>(field_count(code), "F")});
    EXPECT_EQ(text.find("{}"), std::string::npos) << code_name(code);
    EXPECT_FALSE(text.ends_with(".")) << code_name(code) << ": a reason is a clause, without a full stop";
  }
}

}  // namespace
}  // namespace graphmend::rewrite
