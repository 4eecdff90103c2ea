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
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

}  // namespace graphmend::driver::cache
