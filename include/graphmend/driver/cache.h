// The `check` result cache: a tree that has not changed since the last run re-checks without
// parsing anything.
//
// What a file's findings depend on reaches past the file: which of its functions run compiled,
// and what their callees and base classes are, come from the rest of the project. So a run's
// results are stored as one entry under a key of everything else they depend on (graphmend's
// version and binary, the settings, the paths given), and the entry is used only while every file
// the run analyses, context files included, still has the same path, module name and content.
// Any difference re-runs the analysis and replaces the entry. A cache that cannot be read or
// written is ignored: the run goes on as if there were none.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "graphmend/analysis/summary.h"
#include "graphmend/rules/diagnostic.h"

namespace graphmend::driver::cache {

// What one run's files hash to: each file's path, module name, role and content, in run order.
class TreeDigest {
 public:
  void add(std::string_view display, std::string_view module_name, bool context_only, std::string_view text);
  [[nodiscard]] std::string hex() const;

 private:
  uint64_t a_ = 0x6a09e667f3bcc908ULL;
  uint64_t b_ = 0xbb67ae8584caa73bULL;
  uint64_t files_ = 0;
};

// One analysed file's findings, as the report shows them.
struct FileResult {
  std::vector<rules::Diagnostic> diagnostics;
  std::vector<std::string> warnings;
  bool syntax_error = false;
};

struct Entry {
  std::string digest;  // TreeDigest::hex() of the run it describes
  size_t compiled_functions = 0;
  std::vector<FileResult> files;  // the run's own files (not context files), in run order
};

// The key of a run: `material` (the settings and paths, as the caller writes them down) with
// graphmend's version and the identity of its binary, so a rebuilt graphmend never reads results
// an older build stored.
std::string run_key(std::string_view material);

// The entry stored under `key` in `dir` when its digest is `digest`.
std::optional<Entry> load(const std::filesystem::path& dir, const std::string& key, const std::string& digest);

// Stores `entry` under `key` (replacing what was there), creating `dir` with a `.gitignore` that
// keeps it out of version control, and removes all but the 32 newest entries. Failures are ignored.
void store(const std::filesystem::path& dir, const std::string& key, const Entry& entry);

// Each module's summary (analysis::ModuleSummary), kept apart from the run entries: unlike a run's
// findings, a summary depends on its own file alone, so it stays valid while that file does,
// whatever else changed (docs/incremental.md). A summary is stored under a key of what it is taken
// from: the module's name, whether it is a package's `__init__`, its text, and graphmend's version
// and binary.
std::string summary_key(std::string_view module_name, bool package_init, std::string_view text);

// The summaries a cache folder keeps, all in one file (`summaries-v<format>`): a project's
// thousands of summaries written as one file take a few milliseconds, where a file each took
// about a second of the system's time to create. The file names the graphmend version and binary
// that wrote it, and is an empty store to any other. Each entry carries its key and a checksum of
// its bytes, which find() checks before it decodes them (analysis::decode checks them again, field
// by field), so a damaged entry reads as none and the others stay. A file that cannot be read is
// an empty store; one that cannot be written leaves the run as it was.
class SummaryStore {
 public:
  // Whose file to read: a check reads only what its own build wrote (another build's summaries
  // may differ); a tool that measures the file (bench/summary_load.cpp) reads any.
  enum class Writer { ThisBuild, AnyBuild };
  // Reads the folder's summaries, if any.
  explicit SummaryStore(std::filesystem::path dir, Writer writer = Writer::ThisBuild);

  // The summary stored under `key`, if its entry is whole. Safe to call from several threads.
  [[nodiscard]] std::optional<analysis::ModuleSummary> find(std::string_view key) const;
  // The keys it holds, in the file's order (the last run's first).
  [[nodiscard]] const std::vector<std::string_view>& keys() const { return order_; }

  // A summary of one run's module, under its key: read from this store (find), or taken anew.
  struct RunSummary {
    std::string key;
    std::shared_ptr<const analysis::ModuleSummary> summary;
    bool found = false;  // find(key) gave it: its stored bytes are written again as they are
  };
  using RunSummaries = std::vector<RunSummary>;
  // Writes the folder's file again when `run` holds a summary not found here (else leaves it):
  // first the run's summaries, then those it had of other texts, the most recently written first,
  // while they number fewer than `keep` in all and take no more than three times the bytes of the
  // run's own. So the file stays bounded, while an edited file's older text (a branch switched
  // back) keeps its summary for a while. Returns how many summaries it added.
  size_t save(const RunSummaries& run, size_t keep) const;

 private:
  std::filesystem::path dir_;
  std::string bytes_;  // the file as read
  struct Stored {
    std::string_view checksum;
    std::string_view payload;
  };
  std::unordered_map<std::string_view, Stored> index_;  // views into bytes_
  std::vector<std::string_view> order_;               // the keys in file order
};

// The call evidence a run gathered, as its records (analysis::EvidenceMemo::encode), for the next
// run to type again only the compiled callers whose inputs changed. The folder keeps one file of
// them (`evidence-v<format>`), the last run's: it names the graphmend version and binary that
// wrote it and carries a checksum. load_evidence() gives the records, or nothing where there is no
// file, another build wrote it, or it is damaged; store_evidence() replaces the file atomically,
// and a failure leaves the run as it was.
std::string load_evidence(const std::filesystem::path& dir);
void store_evidence(const std::filesystem::path& dir, std::string_view records);

}  // namespace graphmend::driver::cache
