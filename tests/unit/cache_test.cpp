// The `check` result cache (driver/cache.h): what goes in comes out the same, and only under the
// key and digest it was stored with.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <iterator>

#include "graphmend/analysis/summary_codec.h"
#include "graphmend/driver/cache.h"
#include "graphmend/rules/registry.h"
#include "test_support.h"

namespace graphmend::driver::cache {
namespace {

rules::Diagnostic with_everything() {
  rules::Diagnostic d;
  d.rule = rules::info_of_code("GM101");
  d.range = {10, 42};
  d.message = "branch on a tensor's value: \"quoted\", tab\t, é";
  d.graph_break = rules::GraphBreak::DataDependentBranching;
  source::Fix fix;
  fix.edits = {source::Edit::insertion(10, "if a:\n    "), source::Edit::replace({20, 30}, "x")};
  fix.helpers = {{"_graphmend_print_0", "def _graphmend_print_0(a0):\n    print(a0)\n"}};
  fix.applicability = source::Applicability::Unsafe;
  fix.title = "select with torch.where";
  d.fix = std::make_shared<const source::Fix>(fix);
  d.help = "";
  d.function = "Model.forward";
  d.region_reason = "forward of nn.Module subclass Model";
  return d;
}

TEST(ResultCache, AnEntryComesBackAsItWasStored) {
  testing::TempDir dir;
  rules::Diagnostic declined;
  declined.rule = &rules::kSyntaxErrorInfo;
  declined.range = {0, 1};
  declined.message = "syntax error";
  declined.decline_reason = rewrite::decline<rewrite::DeclineCode::AssignedTwice>("x");
  Entry entry{"digest-1", 7, {{{with_everything(), declined}, {"3: a warning"}, true}, {}}};
  store(dir.path, "key", entry);

  const std::optional<Entry> loaded = load(dir.path, "key", "digest-1");
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->compiled_functions, 7u);
  ASSERT_EQ(loaded->files.size(), 2u);
  const FileResult& f = loaded->files[0];
  EXPECT_TRUE(f.syntax_error);
  EXPECT_EQ(f.warnings, std::vector<std::string>{"3: a warning"});
  ASSERT_EQ(f.diagnostics.size(), 2u);
  const rules::Diagnostic& d = f.diagnostics[0];
  const rules::Diagnostic expected = with_everything();
  EXPECT_EQ(d.rule, expected.rule);  // the rule's own metadata, not a copy
  EXPECT_EQ(d.range, expected.range);
  EXPECT_EQ(d.message, expected.message);
  EXPECT_EQ(d.graph_break, expected.graph_break);
  ASSERT_TRUE(d.fix);
  EXPECT_EQ(d.fix->edits, expected.fix->edits);
  EXPECT_EQ(d.fix->helpers, expected.fix->helpers);
  EXPECT_EQ(d.fix->applicability, expected.fix->applicability);
  EXPECT_EQ(d.fix->title, expected.fix->title);
  EXPECT_FALSE(d.decline_reason);
  EXPECT_EQ(d.function, expected.function);
  EXPECT_EQ(d.region_reason, expected.region_reason);
  EXPECT_FALSE(f.diagnostics[1].fix);
  EXPECT_EQ(f.diagnostics[1].rule, &rules::kSyntaxErrorInfo);
  EXPECT_FALSE(f.diagnostics[1].graph_break);
  EXPECT_EQ(f.diagnostics[1].decline_reason, rewrite::decline<rewrite::DeclineCode::AssignedTwice>("x"));
  EXPECT_TRUE(loaded->files[1].diagnostics.empty());
}

// An entry naming a rule code or a break id this binary does not know is not read.
TEST(ResultCache, AnUnknownCodeOrBreakIsAMiss) {
  testing::TempDir dir;
  store(dir.path, "key", Entry{"digest-1", 0, {{{with_everything()}, {}, false}}});
  const std::filesystem::path path = dir.path / "v1" / "key.json";
  const std::string stored = testing::read_bytes(path);
  ASSERT_TRUE(load(dir.path, "key", "digest-1"));
  for (const auto& [from, to] : {std::pair{"\"GM101\"", "\"GM199\""}, std::pair{"\"GB0170\"", "\"GB9999\""}}) {
    std::string changed = stored;
    const size_t at = changed.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    changed.replace(at, std::string_view(from).size(), to);
    std::ofstream(path, std::ios::binary) << changed;
    EXPECT_FALSE(load(dir.path, "key", "digest-1")) << to;
  }
}

TEST(ResultCache, AnotherDigestOrKeyFindsNothing) {
  testing::TempDir dir;
  store(dir.path, "key", Entry{"digest-1", 0, {}});
  EXPECT_TRUE(load(dir.path, "key", "digest-1"));
  EXPECT_FALSE(load(dir.path, "key", "digest-2"));
  EXPECT_FALSE(load(dir.path, "other-key", "digest-1"));
  EXPECT_FALSE(load(dir.path / "elsewhere", "key", "digest-1"));
}

TEST(ResultCache, OnlyTheNewestEntriesAreKept) {
  testing::TempDir dir;
  for (int i = 0; i < 40; ++i) {
    store(dir.path, "key" + std::to_string(i), Entry{"d", 0, {}});
    // Distinct modification times, oldest first.
    std::filesystem::last_write_time(dir.path / "v1" / ("key" + std::to_string(i) + ".json"),
                                     std::filesystem::file_time_type::clock::now() - std::chrono::hours(40 - i));
  }
  store(dir.path, "newest", Entry{"d", 0, {}});
  size_t kept = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path / "v1")) ++kept;
  EXPECT_EQ(kept, 32u);
  EXPECT_TRUE(load(dir.path, "newest", "d"));
  EXPECT_TRUE(load(dir.path, "key39", "d"));
  EXPECT_FALSE(load(dir.path, "key0", "d"));
}

TEST(ResultCache, TheDigestSeesEveryFieldOfEveryFile) {
  const auto digest = [](std::initializer_list<std::array<std::string_view, 3>> files, bool context = false) {
    TreeDigest d;
    for (const auto& [display, module, text] : files) d.add(display, module, context, text);
    return d.hex();
  };
  const std::string base = digest({{"a.py", "a", "x = 1\n"}, {"b.py", "b", "y = 2\n"}});
  EXPECT_EQ(base, digest({{"a.py", "a", "x = 1\n"}, {"b.py", "b", "y = 2\n"}}));
  EXPECT_NE(base, digest({{"a.py", "a", "x = 2\n"}, {"b.py", "b", "y = 2\n"}}));   // content
  EXPECT_NE(base, digest({{"c.py", "a", "x = 1\n"}, {"b.py", "b", "y = 2\n"}}));   // path
  EXPECT_NE(base, digest({{"a.py", "p.a", "x = 1\n"}, {"b.py", "b", "y = 2\n"}})); // module name
  EXPECT_NE(base, digest({{"b.py", "b", "y = 2\n"}, {"a.py", "a", "x = 1\n"}}));   // order
  EXPECT_NE(base, digest({{"a.py", "a", "x = 1\n"}}));                             // a file fewer
  EXPECT_NE(base, digest({{"a.py", "a", "x = 1\n"}, {"b.py", "b", "y = 2\n"}}, true));  // role
  // Field boundaries count: moving bytes from one field to the next is a change.
  EXPECT_NE(digest({{"a.py", "ab", "c"}}), digest({{"a.py", "a", "bc"}}));
}


analysis::ModuleSummary a_summary() {
  testing::ParsedModule p = testing::parse_module(
      "import torch\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return helper(x)\n\n"
      "def helper(x):\n    return x\n",
      "pkg.m");
  return analysis::summarize(*p.module);
}

std::filesystem::path summaries_file(const std::filesystem::path& dir) {
  return dir / fmt::format("summaries-v{}", analysis::kSummaryFormat);
}

SummaryStore::RunSummary taken(std::string key, const analysis::ModuleSummary& s) {
  return {std::move(key), std::make_shared<const analysis::ModuleSummary>(s), false};
}

TEST(SummaryStore, ASummaryComesBackUnderItsKeyOnly) {
  testing::TempDir dir;
  const analysis::ModuleSummary s = a_summary();
  const std::string key = summary_key("pkg.m", false, "text");
  EXPECT_FALSE(SummaryStore(dir.path).find(key));
  EXPECT_EQ(SummaryStore(dir.path).save({taken(key, s)}, 10), 1u);
  const SummaryStore store(dir.path);
  const std::optional<analysis::ModuleSummary> back = store.find(key);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, s);
  EXPECT_FALSE(store.find(summary_key("pkg.m", false, "other text")));
  EXPECT_TRUE(std::filesystem::exists(dir.path / ".gitignore"));
}

TEST(SummaryStore, AnotherBuildsFileIsEmptyToACheckButReadableByATool) {
  testing::TempDir dir;
  const std::string key = summary_key("pkg.m", false, "text");
  SummaryStore(dir.path).save({taken(key, a_summary())}, 10);
  std::string bytes;
  {
    std::ifstream in(summaries_file(dir.path), std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  // The first line ends in the writer's build: make it another's.
  const size_t build = bytes.find('\n') - 16;
  bytes.replace(build, 16, std::string(16, '0'));
  std::ofstream(summaries_file(dir.path), std::ios::binary | std::ios::trunc) << bytes;
  EXPECT_TRUE(SummaryStore(dir.path).keys().empty());
  const SummaryStore any(dir.path, SummaryStore::Writer::AnyBuild);
  EXPECT_EQ(any.find(key), a_summary());
}

TEST(SummaryStore, TheKeySeesTheModulesNameItsRoleAndItsText) {
  const std::string base = summary_key("pkg.m", false, "x = 1\n");
  EXPECT_EQ(base, summary_key("pkg.m", false, "x = 1\n"));
  EXPECT_NE(base, summary_key("pkg.n", false, "x = 1\n"));
  EXPECT_NE(base, summary_key("pkg.m", true, "x = 1\n"));
  EXPECT_NE(base, summary_key("pkg.m", false, "x = 2\n"));
}

TEST(SummaryStore, ARunThatFoundEverythingWritesNothing) {
  testing::TempDir dir;
  const std::string key = summary_key("pkg.m", false, "text");
  SummaryStore(dir.path).save({taken(key, a_summary())}, 10);
  const auto before = std::filesystem::last_write_time(summaries_file(dir.path));
  const SummaryStore store(dir.path);
  const auto found = std::make_shared<const analysis::ModuleSummary>(*store.find(key));
  EXPECT_EQ(store.save({{key, found, true}}, 10), 0u);
  EXPECT_EQ(std::filesystem::last_write_time(summaries_file(dir.path)), before);
}

TEST(SummaryStore, AnyChangedByteOfAnEntryLosesThatEntryOnly) {
  testing::TempDir dir;
  const analysis::ModuleSummary s = a_summary();
  const std::string first = summary_key("pkg.a", false, "a");
  const std::string second = summary_key("pkg.b", false, "b");
  SummaryStore(dir.path).save({taken(first, s), taken(second, s)}, 10);
  std::string bytes;
  {
    std::ifstream in(summaries_file(dir.path), std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  // The second entry starts at its key, after the first entry's bytes.
  const size_t second_starts = bytes.find(second);
  ASSERT_NE(second_starts, std::string::npos);
  for (size_t at = 0; at < bytes.size(); ++at) {
    std::string damaged = bytes;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x20);
    std::ofstream(summaries_file(dir.path), std::ios::binary | std::ios::trunc) << damaged;
    const SummaryStore store(dir.path);
    if (at < second_starts) {
      EXPECT_FALSE(store.find(first)) << "byte " << at;
    } else {
      EXPECT_EQ(store.find(first), s) << "byte " << at;
      EXPECT_FALSE(store.find(second)) << "byte " << at;
    }
  }
  std::ofstream(summaries_file(dir.path), std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() - 1);
  EXPECT_TRUE(SummaryStore(dir.path).find(first));
  EXPECT_FALSE(SummaryStore(dir.path).find(second));
}

TEST(SummaryStore, TheFileKeepsTheRunsSummariesThenTheMostRecentOthersUpToItsBound) {
  testing::TempDir dir;
  const analysis::ModuleSummary s = a_summary();
  const auto key = [](int i) { return summary_key("pkg.m", false, std::to_string(i)); };
  // Five runs, each of one text of the module: the file keeps the newest four.
  for (int i = 0; i < 5; ++i) SummaryStore(dir.path).save({taken(key(i), s)}, 4);
  SummaryStore store(dir.path);
  EXPECT_EQ(store.keys(), (std::vector<std::string_view>{key(4), key(3), key(2), key(1)}));
  // A run that reads the oldest and adds one: they come first, then the others while room is left.
  const auto found = std::make_shared<const analysis::ModuleSummary>(*store.find(key(1)));
  EXPECT_EQ(store.save({{key(1), found, true}, taken(key(5), s)}, 4), 1u);
  EXPECT_EQ(SummaryStore(dir.path).keys(), (std::vector<std::string_view>{key(1), key(5), key(4), key(3)}));
}

TEST(SummaryStore, OtherTextsKeepNoMoreThanThreeTimesTheBytesOfTheRunsOwn) {
  testing::TempDir dir;
  std::string text = "import torch\n";
  for (int i = 0; i < 40; ++i) text += fmt::format("\ndef f{}(x):\n    return torch.relu(f{}(x))\n", i, i + 1);
  testing::ParsedModule big = testing::parse_module(text, "pkg.big");
  const analysis::ModuleSummary large = analysis::summarize(*big.module);
  const analysis::ModuleSummary small;
  // With its line (a key, a checksum, a length), a small summary's entry takes about 90 bytes.
  ASSERT_GT(analysis::encode(large).size(), 3 * 100u);
  const auto key = [](int i) { return summary_key("pkg.m", false, std::to_string(i)); };
  SummaryStore(dir.path).save({taken(key(0), large)}, 100);
  for (int i = 1; i <= 3; ++i) SummaryStore(dir.path).save({taken(key(i), small)}, 100);
  // The large summary of an older text outweighs three times a run of one small summary.
  EXPECT_EQ(SummaryStore(dir.path).keys(), (std::vector<std::string_view>{key(3), key(2), key(1)}));
}

TEST(SummaryStore, AWritersLeftoverTemporaryIsRemovedOnceStale) {
  testing::TempDir dir;
  const std::filesystem::path stale = dir.write(".entry-AAAAAA", "a killed writer's bytes");
  const std::filesystem::path live = dir.write(".entry-BBBBBB", "a writer's bytes, being written");
  std::filesystem::last_write_time(stale, std::filesystem::file_time_type::clock::now() - std::chrono::hours(2));
  SummaryStore(dir.path).save({taken(summary_key("pkg.m", false, "text"), a_summary())}, 10);
  EXPECT_FALSE(std::filesystem::exists(stale));
  EXPECT_TRUE(std::filesystem::exists(live));
}

// The call evidence records are bytes to the cache: what it stores comes back whole, or not at
// all where any byte of the file changed, its length did, or another build wrote it.
TEST(EvidenceFile, TheRecordsComeBackWholeOrNotAtAll) {
  testing::TempDir dir;
  EXPECT_EQ(load_evidence(dir.path), "");  // no file yet
  const std::string records("records\n\0with any byte \xff", 25);
  store_evidence(dir.path, records);
  EXPECT_EQ(load_evidence(dir.path), records);
  EXPECT_TRUE(std::filesystem::exists(dir.path / ".gitignore"));
  const std::filesystem::path file = dir.path / "evidence-v1";
  std::string bytes;
  {
    std::ifstream in(file, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  for (size_t at = 0; at < bytes.size(); ++at) {
    std::string damaged = bytes;
    damaged[at] = static_cast<char>(damaged[at] ^ 0x20);
    std::ofstream(file, std::ios::binary | std::ios::trunc) << damaged;
    EXPECT_EQ(load_evidence(dir.path), "") << "byte " << at;
  }
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes.substr(0, bytes.size() - 1);
  EXPECT_EQ(load_evidence(dir.path), "");
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes << "x";
  EXPECT_EQ(load_evidence(dir.path), "");
  store_evidence(dir.path, "newer");  // replaced whole
  EXPECT_EQ(load_evidence(dir.path), "newer");
}

}  // namespace
}  // namespace graphmend::driver::cache
