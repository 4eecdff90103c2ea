// Golden fixtures: tests/fixtures/<CODE>/<case>.py with <case>.expected (diagnostics) and, where a
// fix applies, <case>.fixed.py. A folder with an `__init__.py` is a package, whose modules bind
// the runtime file; the others are loose scripts, which get the runtime inline. Each case also checks that the output re-parses, that a second run
// makes no edits (idempotence), and that a file with nothing to fix is byte-identical.
// GRAPHMEND_UPDATE_GOLDEN=1 rewrites the snapshots; CI never sets it.
// The input's `# expect:` annotations (fixture_expectations.h) are checked on every run, the
// update included: they state what each line should get and are never rewritten.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fmt/format.h>

#include "graphmend/driver/run.h"
#include "graphmend/source/text.h"
#include "graphmend/syntax/tree.h"
#include "fixture_expectations.h"
#include "test_support.h"

namespace graphmend::testing {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> fixture_cases() {
  std::vector<fs::path> out;
  for (const auto& entry : fs::recursive_directory_iterator(GM_FIXTURES_DIR)) {
    const std::string name = entry.path().filename().string();
    if (entry.path().extension() == ".py" && !name.ends_with(".fixed.py") && name != "__init__.py") {
      out.push_back(entry.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string render(const driver::FileReport& f) {
  // Findings are reported against the file as it is on disk (a --diff run writes nothing).
  const source::LineIndex lines(f.disk_text());
  std::string out;
  for (const rules::Diagnostic& d : f.diagnostics) {
    const auto loc = lines.location(f.disk_text(), d.range.start);
    out += fmt::format("{}:{} {} {}\n", loc.line, loc.column, d.rule->code, d.message);
    if (d.fix) {
      out += fmt::format("  fix[{}]: {}\n", source::applicability_name(d.fix->applicability), d.fix->title);
    } else if (d.decline_reason) {
      out += fmt::format("  declined: {}\n", rewrite::render(*d.decline_reason));
    }
  }
  for (const std::string& note : f.notes) out += fmt::format("note: {}\n", note);
  return out;
}

// A fixture named *_unsafe.py is fixed with --unsafe-fixes.
driver::FileReport run_one(const fs::path& path) {
  driver::Options options;
  options.fix = true;
  options.unsafe_fixes = path.stem().string().ends_with("_unsafe");
  options.diff = true;  // fix in memory, write nothing
  options.jobs = 1;
  driver::RunReport report = driver::run({path.string()}, options);
  EXPECT_EQ(report.files.size(), 1u);
  return std::move(report.files.front());
}

driver::FileReport check_one(const fs::path& path) {
  driver::Options options;
  options.unsafe_fixes = path.stem().string().ends_with("_unsafe");
  options.jobs = 1;
  driver::RunReport report = driver::run({path.string()}, options);
  EXPECT_EQ(report.files.size(), 1u);
  return std::move(report.files.front());
}

// A report's findings as annotations state them, at the line (of the file on disk) where each
// range starts, as render() numbers them.
std::vector<expect::Finding> findings(const driver::FileReport& f) {
  const source::LineIndex lines(f.disk_text());
  std::vector<expect::Finding> out;
  for (const rules::Diagnostic& d : f.diagnostics) {
    expect::Finding e{static_cast<int>(lines.location(f.disk_text(), d.range.start).line), std::string(d.rule->code),
                      expect::Outcome::Reported, {}};
    if (d.fix && d.fix->applicability == source::Applicability::Safe) {
      e.outcome = expect::Outcome::Fixed;
    } else if (d.fix) {
      e.outcome = expect::Outcome::Unsafe;
      e.reason = d.fix->unsafe_code;
    } else if (d.decline_reason) {
      e.outcome = expect::Outcome::Declined;
      e.reason = std::string(rewrite::code_name(d.decline_reason->code));
    }
    out.push_back(std::move(e));
  }
  return out;
}

// The annotations against what graphmend finds. A fix run reports only the findings it leaves,
// so every finding comes from a check of the file; the fix run must then leave none of those
// whose fix it applies (`fixed`, and `unsafe` in a *_unsafe.py case: else a note says why). The
// others may go: a fix that rewrites their code resolves them too (GM407's loop takes its
// `.tolist()` with it).
void check_annotations(const fs::path& input, const std::string& text, const driver::FileReport& fixed) {
  const expect::Annotations annotations = expect::parse(text);
  for (const std::string& error : annotations.errors) ADD_FAILURE() << input.string() << ": " << error;
  const std::vector<expect::Finding> all = findings(check_one(input));
  for (const std::string& diff : expect::compare(annotations.expected, all)) {
    ADD_FAILURE() << input.string() << ": " << diff;
  }
  const bool unsafe = input.stem().string().ends_with("_unsafe");
  for (const expect::Finding& f : findings(fixed)) {
    if (f.outcome == expect::Outcome::Fixed || (unsafe && f.outcome == expect::Outcome::Unsafe)) {
      ADD_FAILURE() << input.string() << ": line " << f.line << ": " << expect::describe(f)
                    << ", but the fix run did not apply it (see the notes)";
    }
  }
}

class Golden : public ::testing::TestWithParam<fs::path> {};

TEST_P(Golden, MatchesSnapshotAndIsIdempotent) {
  const fs::path input = GetParam();
  const fs::path expected_path = fs::path(input).replace_extension(".expected");
  const fs::path fixed_path = fs::path(input).replace_extension(".fixed.py");
  const std::string original = read_bytes(input);
  driver::FileReport first = run_one(input);
  ASSERT_FALSE(first.error.has_value());
  const std::string diagnostics = render(first);
  check_annotations(input, original, first);
  // A rule that rewrites gives each site a fix, or the reason it declined: none is left unexplained.
  for (const rules::Diagnostic& d : first.diagnostics) {
    if (d.rule->fix == rules::FixAvailability::None || d.rule->family == rules::RuleFamily::Meta) continue;
    EXPECT_TRUE(d.fix || d.decline_reason) << d.rule->code << " at byte " << d.range.start
                                           << " has neither a fix nor a decline reason";
  }

  if (std::getenv("GRAPHMEND_UPDATE_GOLDEN")) {
    std::ofstream(expected_path, std::ios::binary) << diagnostics;
    if (first.changed()) {
      std::ofstream(fixed_path, std::ios::binary) << first.text();
    } else {
      fs::remove(fixed_path);
    }
    GTEST_SKIP() << "snapshot updated";
  }
  ASSERT_TRUE(fs::exists(expected_path)) << "missing snapshot " << expected_path;
  EXPECT_EQ(diagnostics, read_bytes(expected_path));
  EXPECT_EQ(read_bytes(input), original) << "a fixture must never be modified on disk";
  if (fs::exists(fixed_path)) {
    EXPECT_EQ(first.text(), read_bytes(fixed_path));
  } else {
    EXPECT_EQ(first.text(), original) << "no fix expected: the output must be byte-identical";
  }
  if (!first.syntax_error) {
    // The output parses, and running again on it makes no further edits.
    syntax::Parser parser;
    auto tree = parser.parse(first.text());
    ASSERT_TRUE(tree.has_value());
    EXPECT_FALSE(tree->has_error());
    TempDir dir;
    // In a package too when the fixture is, so the runtime is reached the same way.
    if (fs::exists(input.parent_path() / "__init__.py")) dir.write("__init__.py", "");
    const fs::path again = dir.write(input.filename().string(), first.text());
    driver::FileReport second = run_one(again);
    EXPECT_EQ(second.text(), first.text()) << "fixes are not idempotent";
    EXPECT_EQ(second.fixes_applied, 0);
    // Nor does it have anything to say: a revert ("a fix introduced a syntax error") keeps the text.
    EXPECT_TRUE(second.notes.empty()) << second.notes.front();
  } else {
    EXPECT_EQ(first.text(), original);
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, Golden, ::testing::ValuesIn(fixture_cases()),
                         [](const ::testing::TestParamInfo<fs::path>& info) {
                           std::string name = info.param.parent_path().filename().string() + "_" +
                                              info.param.stem().string();
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace graphmend::testing
