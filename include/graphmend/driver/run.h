// One run over a set of paths: discover -> read -> parse -> IR -> compile regions -> rules ->
// fix (apply, verify, iterate) -> write. Per-file work is parallel; results are in path order.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "graphmend/driver/config.h"
#include "graphmend/driver/budget.h"
#include "graphmend/driver/discover.h"
#include "graphmend/driver/resolve.h"
#include "graphmend/fix/runtime.h"
#include "graphmend/rules/diagnostic.h"
#include "graphmend/rules/rule.h"
#include "graphmend/rules/selection.h"
#include "graphmend/source/source_file.h"

namespace graphmend::analysis {
class EvidenceMemo;
}  // namespace graphmend::analysis

namespace graphmend::driver {

// Files parsed by earlier runs, kept for later ones (a language server's, between keystrokes): a
// file read only for project context whose text and module name are unchanged is not parsed
// again. Shared by the runs that are given it; thread-safe.
class ParsedFiles {
 public:
  struct Entry;  // the file's text and its module, or why it has none (run.cpp)
  [[nodiscard]] std::shared_ptr<const Entry> find(const std::filesystem::path& path) const;
  void store(const std::filesystem::path& path, std::shared_ptr<const Entry> entry);

 private:
  mutable std::mutex mutex_;
  std::map<std::filesystem::path, std::shared_ptr<const Entry>> entries_;  // by absolute path
};

struct Options {
  bool fix = false;           // apply fixes (in memory; written unless `diff`)
  bool diff = false;          // print diffs instead of writing
  bool unsafe_fixes = false;  // also apply fixes marked Unsafe
  bool fix_generated = false;  // also fix files whose header says they are generated
  // Each file's configuration (resolve.h): its selection, per-file-ignores, excludes,
  // fix-generated and trap-async, in place of the five fields below. Null: those fields, for every file.
  std::shared_ptr<SettingsResolver> settings;
  rules::Selection selection;  // --select / --extend-select / --ignore
  std::vector<PerFileIgnore> per_file_ignores;  // patterns relative to `discovery.root`
  DiscoverOptions discovery;   // excludes, .gitignore, project context, the stdin file's name
  std::optional<std::string> stdin_text;  // the text of `-` (read by the caller)
  // Texts read in place of the files on disk, by absolute, lexically normal path: an editor's
  // unsaved buffers, which the other files' analysis sees as the project's current state.
  std::map<std::filesystem::path, std::string> unsaved;
  std::shared_ptr<ParsedFiles> parsed;  // none: every file is parsed
  // The call evidence of an earlier run, kept beside `parsed`: a run types again only the compiled
  // callers whose inputs changed (analysis/call_evidence.h). None: every caller is typed.
  std::shared_ptr<analysis::EvidenceMemo> evidence_memo;
  unsigned jobs = 0;  // 0 = hardware concurrency
  source::ReadOptions read;
  Budget budget;  // per file: over it, the file is skipped and reported (exit 2)
  rules::RuleOptions rule_options;
  int max_fix_iterations = 8;
  // `check` only: the folder of the result cache (driver/cache.h); none: no cache.
  std::optional<std::filesystem::path> cache_dir;
  // Called from worker threads as files finish a stage ("reading", "checking", "fixing"): done of
  // total. Must be thread-safe and cheap.
  std::function<void(std::string_view stage, size_t done, size_t total)> progress;
  // Hand every file's text and IR to the report (RunReport::analysis) instead of freeing them
  // on return: a process that exits next need not free millions of small objects one by one.
  bool keep_analysis = false;
};

struct FileReport {
  std::string display;
  std::filesystem::path path;
  std::optional<source::ReadError> error;  // could not be read or decoded: skipped
  std::shared_ptr<const source::SourceFile> original;
  std::vector<rules::Diagnostic> diagnostics;  // against disk_text()
  bool syntax_error = false;
  int fixes_applied = 0;
  std::vector<std::string> notes;           // fix notes: overlaps, reverts, non-convergence
  std::vector<std::string> warnings;        // "<line>: ..." about suppression comments
  std::map<std::string, int> fixed_codes;   // fixes applied, by rule code
  bool from_stdin = false;
  std::optional<std::string> write_error;
  bool written = false;
  // Where the final text's LFs stand for the original's lone CRs (SourceFile::lone_crs, carried
  // through the fixes' edits; a lone CR inside rewritten code becomes the code's own LF).
  std::vector<uint32_t> lone_crs;
  // A notebook's cells as they stand in text(), carried through the fixes' edits; nullopt for a
  // .py file, or when an edit rewrote a cell's separator or a masked line (then it is not written).
  std::optional<source::CellLayout> cells;
  // How a fix of this module reaches the runtime, and the package root its runtime file lies at
  // (none for a loose script): what the report needs to spell a fix out whole (SARIF `fixes`).
  fix::RuntimeLink link;
  std::optional<std::filesystem::path> package_root;

  // The final text: the fixed one, or the original (not copied: a check holds every file's text once).
  [[nodiscard]] const std::string& text() const;
  void set_text(std::string text);
  void keep_original_text() { fixed_.reset(); }
  [[nodiscard]] bool changed() const { return fixed_.has_value(); }
  // The text the diagnostics refer to: the file as it is on disk after the run (the fixed text
  // once written; the original when nothing was written, as with --diff or a failed write).
  // For standard input, the text `fix` prints.
  [[nodiscard]] const std::string& disk_text() const {
    return changed() && !written && !from_stdin ? original->text : text();
  }
  // A notebook's cells in disk_text(); null for a .py file.
  [[nodiscard]] const source::CellLayout* disk_cells() const;

 private:
  std::optional<std::string> fixed_;  // set only when it differs from the original
};

// A file graphmend writes whole: the runtime at the root of a package whose modules it patched.
struct GeneratedFile {
  std::filesystem::path path;
  std::string display;
  std::optional<std::string> before;  // its text on disk; nullopt when it does not exist yet
  std::string after;
  bool written = false;
  std::optional<std::string> write_error;
};

struct RunReport {
  std::vector<FileReport> files;
  std::vector<GeneratedFile> runtime_files;  // by path
  std::vector<DiscoveryError> discovery_errors;
  double elapsed_ms = 0;
  size_t compiled_functions = 0;
  bool dry_run = false;  // --diff: fixes were computed, nothing was written
  bool stdin_excluded = false;  // `-` was not checked: --force-exclude, and --stdin-filename is excluded
  std::vector<ConfigError> config_errors;  // a file's configuration could not be read: nothing was checked
  std::shared_ptr<const void> analysis;  // with Options::keep_analysis; else null

  // Files whose fixed text differs from disk but was not written (--diff), runtime files included.
  [[nodiscard]] size_t pending_files() const;
};

RunReport run(const std::vector<std::string>& paths, const Options& options);

// The run-wide keys of a configuration (unsafe-fixes, jobs, max-file-size/-time/-memory,
// force-exclude, respect-gitignore, project-context, its root) set on `o`, each at its default
// where the configuration says nothing: a run as configured, before any command-line flag.
void apply_settings(const Settings& settings, Options& o);
// A per-file time budget in seconds as the run counts it: whole milliseconds, at least one for
// any positive budget (0 or less: no limit).
std::chrono::milliseconds time_budget(double seconds);

// The bytes `fix` writes (or prints, for standard input) for a file's final text: a .py file
// with its BOM and line breaks restored; a notebook's JSON with its changed cells rewritten.
struct EncodedFile {
  std::string bytes;
  std::optional<std::string> error;  // the notebook's cells cannot be written back: nothing is written
};
EncodedFile encode_final_text(const FileReport& f);

// Whether a module's text binds its package's runtime file (then `fix` writes that file).
bool binds_packaged_runtime(std::string_view text);

// The runtime file `fix` writes at the root of the package `package_root` for a module that binds
// it: when it is missing (`before` nullopt) or of another runtime version. Nullopt when it is
// current, or when a file of that name is not graphmend's (`fix` refuses to replace it) or cannot
// be read.
std::optional<GeneratedFile> runtime_file_to_write(const std::filesystem::path& package_root);

// 0: nothing found or all fixed; 1: findings remain, or (--diff) fixes that were not written;
// 2: an input could not be processed.
int exit_code(const RunReport& report);

}  // namespace graphmend::driver
