#include "graphmend/driver/run.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <numeric>
#include <unordered_map>
#include <optional>
#include <unordered_set>
#include <thread>
#include <variant>

#include "graphmend/analysis/call_evidence.h"
#include "graphmend/analysis/compile_regions.h"
#include "graphmend/analysis/project.h"
#include "graphmend/driver/cache.h"
#include "graphmend/driver/copied_pairs.h"
#include "graphmend/driver/style.h"
#include "graphmend/fix/apply.h"
#include "graphmend/fix/runtime.h"
#include "graphmend/fix/verify.h"
#include "graphmend/fix/write.h"
#include "graphmend/ir/module.h"
#include "graphmend/rewrite/python_layout.h"
#include "graphmend/rules/conditions.h"
#include "graphmend/rules/registry.h"
#include "graphmend/rules/selection.h"
#include "graphmend/rules/suppression.h"
#include "graphmend/rules/unused_noqa.h"
#include "graphmend/source/generated.h"
#include "graphmend/syntax/python_rules.h"
#include "graphmend/syntax/tree.h"

#include <sys/resource.h>

namespace graphmend::driver {
namespace {

using Clock = std::chrono::steady_clock;

// Why a file's processing stopped: an exception, or its budget (then over_budget).
struct FileFailure {
  std::string message;  // empty: no failure
  bool over_budget = false;
  bool deferred_build = false;  // a deferred module read by this file's analysis could not be built
};

// The per-file budget and the time each file has used so far, over all stages.
struct FileBudgets {
  Budget limits;
  std::vector<std::chrono::nanoseconds> spent;
};

// Runs body(i, worker) for i in [0, count) on `jobs` threads, each call under file i's budget. An
// exception (bad_alloc in a huge file, the budget, a bug) is that file's failure, recorded in
// `failures[i]`, never the process's end.
template <typename F>
void parallel_for(size_t count, unsigned jobs, std::vector<FileFailure>& failures, FileBudgets& budgets, F&& body,
                  const std::function<void(size_t)>& finished = {}) {
  std::atomic<size_t> done{0};
  const auto guarded = [&](size_t i, unsigned w) {
    try {
      const BudgetScope scope(budgets.limits, budgets.spent[i]);
      body(i, w);
      budgets.spent[i] += scope.elapsed();
    } catch (const BudgetExceeded& e) {
      failures[i] = {e.what(), true};
    } catch (const ir::DeferredBuildFailed& e) {
      failures[i] = {e.what(), false, true};
    } catch (const std::exception& e) {
      failures[i] = {e.what(), false};
    } catch (...) {
      failures[i] = {"unknown exception", false};
    }
    if (finished) finished(++done);
  };
  const unsigned workers = std::max(1u, std::min<unsigned>(jobs, static_cast<unsigned>(count)));
  if (workers <= 1) {
    for (size_t i = 0; i < count; ++i) guarded(i, 0u);
    return;
  }
  std::atomic<size_t> next{0};
  std::vector<std::thread> threads;
  threads.reserve(workers);
  for (unsigned w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      for (size_t i = next++; i < count; i = next++) guarded(i, w);
    });
  }
  for (auto& t : threads) t.join();
}

// One file as the analysis sees it: its text (possibly fixed) and IR.
struct Unit {
  DiscoveredFile input;
  fix::RuntimeLink link;  // how a patched version of this module reaches the runtime
  FormatterStyle style;   // the project's formatter settings for this file
  bool produced = false;  // `current` is text this run wrote (its generated block is up to date)
  std::shared_ptr<const source::SourceFile> current;  // text being analysed
  std::shared_ptr<const ir::Module> module;           // null when unread or unparsable
  std::shared_ptr<const analysis::ModuleSummary> summary;  // of `module`, taken by the worker that built it
  std::optional<rules::Diagnostic> syntax_error;
};

// tree-sitter's Python scanner stores each indentation width in one byte (tree-sitter-python
// 0.23.6, scanner.c serialize), so it misreads lines indented further.
constexpr size_t kParserIndentLimit = 255;

// The widest indentation of any line, in columns (a tab to the next multiple of 8, as CPython).
size_t deepest_indentation(std::string_view text) {
  size_t deepest = 0;
  size_t column = 0;
  bool leading = true;
  for (const char c : text) {
    if (c == '\n' || c == '\r') {
      column = 0;
      leading = true;
    } else if (leading && c == ' ') {
      ++column;
    } else if (leading && c == '\t') {
      column = (column / 8 + 1) * 8;
    } else if (leading && c != '\f') {
      deepest = std::max(deepest, column);
      leading = false;
    }
  }
  return deepest;
}

// Where parse_unit finds a module's summary: a store of earlier runs' summaries, and this
// module's record for SummaryStore::save.
struct SummaryLookup {
  const cache::SummaryStore& store;
  cache::SummaryStore::RunSummary& record;
};

// The module's summary: the one the store keeps for the same module and text, else taken now;
// with no lookup, taken now.
std::shared_ptr<const analysis::ModuleSummary> summary_of(const ir::Module& module, SummaryLookup* lookup) {
  if (!lookup) return std::make_shared<const analysis::ModuleSummary>(analysis::summarize(module));
  cache::SummaryStore::RunSummary& record = lookup->record;
  record.key = cache::summary_key(module.module_name(), module.is_package_init(), module.file().text);
  std::optional<analysis::ModuleSummary> stored = lookup->store.find(record.key);
  record.found = stored && analysis::fits(*stored, module);
  record.summary = std::make_shared<const analysis::ModuleSummary>(record.found ? std::move(*stored)
                                                                                : analysis::summarize(module));
  return record.summary;
}

// The text's tree, or the diagnostic that says why graphmend does not analyse it: tree-sitter gave
// up or found a syntax error, a line indents or nests deeper than it reads, or CPython's tokenizer
// refuses the text. `verified` is that text's tree, already parsed and checked against CPython's
// tokenizer rules (fix::apply_and_verify), which is not run again.
std::variant<syntax::Tree, rules::Diagnostic> parse_checked(std::string_view text, syntax::Parser& parser,
                                                            std::optional<syntax::Tree> verified = std::nullopt) {
  const bool checked = verified.has_value();
  std::optional<syntax::Tree> tree = checked ? std::move(verified) : parser.parse(text);
  rules::Diagnostic d;
  if (!tree) {
    d.rule = &rules::kSyntaxErrorInfo;
    d.message = "tree-sitter could not parse the file";
    return d;
  }
  if (tree->has_error() && deepest_indentation(text) > kParserIndentLimit) {
    // CPython reads this file; tree-sitter's Python scanner keeps each indentation in one byte.
    d.rule = &rules::kTooDeepInfo;
    d.message = fmt::format("the file indents a line more than {} columns, deeper than graphmend's parser reads; "
                            "graphmend does not analyse or modify it",
                            kParserIndentLimit);
    return d;
  }
  if (tree->has_error()) {
    syntax::Node err = syntax::first_error(tree->root());
    d.rule = &rules::kSyntaxErrorInfo;
    d.range = err ? err.range() : source::TextRange{0, 0};
    if (err && err.is_missing()) {
      d.message = fmt::format("syntax error: expected `{}`; the file is not analysed or modified", err.type());
    } else {
      d.message = "syntax error; the file is not analysed or modified";
    }
    return d;
  }
  if (auto error = checked ? std::nullopt : syntax::cpython_tokenizer_error(text, tree->root())) {
    d.rule = &rules::kSyntaxErrorInfo;
    d.range = {error->offset, error->offset};
    d.message = fmt::format("{}; the file is not analysed or modified", error->message);
    return d;
  }
  if (const uint32_t depth = syntax::nesting_depth(tree->root(), rules::kMaxNesting); depth > rules::kMaxNesting) {
    d.rule = &rules::kTooDeepInfo;
    d.message = fmt::format("the file nests more than {} levels deep (a very long `and`/`or` chain, or deeply nested "
                            "expressions); graphmend does not analyse or modify it",
                            rules::kMaxNesting);
    return d;
  }
  return std::move(*tree);
}

// Builds the unit's IR from its text, or from `verified` (see parse_checked). With a lookup, the
// module's summary is read from its store when that has one.
void parse_unit(Unit& u, syntax::Parser& parser, std::optional<syntax::Tree> verified = std::nullopt,
                SummaryLookup* lookup = nullptr) {
  u.module.reset();
  u.summary.reset();
  u.syntax_error.reset();
  std::variant<syntax::Tree, rules::Diagnostic> parsed = parse_checked(u.current->text, parser, std::move(verified));
  if (auto* d = std::get_if<rules::Diagnostic>(&parsed)) {
    u.syntax_error = std::move(*d);
    return;
  }
  u.module = std::make_unique<ir::Module>(*u.current, std::move(std::get<syntax::Tree>(parsed)), u.input.module_name);
  u.summary = summary_of(*u.module, lookup);
}

// Stands the unit's module in with its stored summary, where the store has one for its text, and
// defers its parse until something reads its code (ir::Module::Deferred): a check of a few files
// of a project reads the code of few of the others. A summary is stored only for a module that was
// built, so the same text parses again; the build still checks, and a failure to parse or to fit
// the summary throws ir::DeferredBuildFailed, after which the run builds every module (Run).
bool defer_unit(Unit& u, SummaryLookup& lookup, const Budget& limits, std::chrono::nanoseconds spent) {
  const bool package_init = u.input.path.filename() == "__init__.py";
  std::string key = cache::summary_key(u.input.module_name, package_init, u.current->text);
  std::optional<analysis::ModuleSummary> stored = lookup.store.find(key);
  if (!stored) return false;
  auto summary = std::make_shared<const analysis::ModuleSummary>(std::move(*stored));
  ir::Module::Deferred how;
  how.parse = [](const source::SourceFile& file) -> std::variant<syntax::Tree, std::string> {
    thread_local syntax::Parser parser;
    std::variant<syntax::Tree, rules::Diagnostic> parsed = parse_checked(file.text, parser);
    if (auto* d = std::get_if<rules::Diagnostic>(&parsed)) return "its text does not parse as it did (" + d->message + ")";
    return std::move(std::get<syntax::Tree>(parsed));
  };
  how.accept = [summary](const ir::Module& m) -> std::optional<std::string> {
    if (analysis::fits(*summary, m)) return std::nullopt;
    return "its stored summary does not fit its text";
  };
  // Under the file's own budget, as its parse would have been: a file over it is dropped from the
  // project before the analysis, which the run can only do by building every module afresh.
  how.within = [limits, spent, display = u.current->display_path](const std::function<void()>& build) {
    try {
      const BudgetScope scope(limits, spent);
      build();
    } catch (const BudgetExceeded& e) {
      throw ir::DeferredBuildFailed(display + ": " + e.what());
    }
  };
  u.module = std::make_shared<ir::Module>(*u.current, u.input.module_name, std::move(how));
  u.summary = summary;
  u.syntax_error.reset();
  lookup.record.key = std::move(key);
  lookup.record.found = true;
  lookup.record.summary = std::move(summary);
  return true;
}

}  // namespace

struct ParsedFiles::Entry {
  std::shared_ptr<const source::SourceFile> file;
  std::string module_name;
  std::shared_ptr<const ir::Module> module;  // over `file`
  std::shared_ptr<const analysis::ModuleSummary> summary;  // of `module`
  std::optional<rules::Diagnostic> syntax_error;
};

std::shared_ptr<const ParsedFiles::Entry> ParsedFiles::find(const std::filesystem::path& path) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = entries_.find(path);
  return it == entries_.end() ? nullptr : it->second;
}

void ParsedFiles::store(const std::filesystem::path& path, std::shared_ptr<const Entry> entry) {
  std::lock_guard<std::mutex> lock(mutex_);
  entries_[path] = std::move(entry);
}

namespace {

struct UnitFindings {
  std::vector<rules::Diagnostic> diagnostics;
  std::vector<std::string> warnings;  // suppression comments naming unknown graphmend codes
};

std::string display_of(const std::filesystem::path& path);

// GM904 for a module that binds its package's runtime file when that file is missing or of
// another version than this graphmend's (a stale copy): `fix` writes it.
std::optional<rules::Diagnostic> runtime_file_finding(const Unit& u) {
  if (!u.input.package_root || !binds_packaged_runtime(u.current->text)) return std::nullopt;
  const std::filesystem::path path = *u.input.package_root / fix::kRuntimeFileName;
  std::string state;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    state = "is missing";
  } else {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    const std::optional<std::string> version = fix::runtime_version_of(text.str());
    if (!version || *version == fix::runtime_version()) return std::nullopt;  // current, or not graphmend's
    state = fmt::format("is runtime {}, and this graphmend writes runtime {}", *version, fix::runtime_version());
  }
  const std::string_view text = u.current->text;
  const size_t at = text.find(fmt::format("__import__(\"{}\"", fix::kRuntimeModule));
  rules::Diagnostic d;
  d.rule = &rules::kRuntimeFileInfo;
  d.range = {static_cast<uint32_t>(at), static_cast<uint32_t>(at)};
  d.message = fmt::format("the graphmend runtime this module imports, {}, {}: `graphmend fix` writes it; commit it "
                          "with the module",
                          display_of(path), state);
  return d;
}

// The header line of a file generated from another source, as generators mark them (transformers'
// modular converter, `@generated`, "DO NOT EDIT"): the leading comment lines, graphmend's own
// block markers aside.
std::optional<std::string> generated_header(std::string_view text) {
  size_t pos = 0;
  for (int line = 0; line < 40 && pos < text.size(); ++line) {
    const size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view l = text.substr(pos, end - pos);
    pos = end + 1;
    while (!l.empty() && (l.back() == '\r' || l.back() == ' ')) l.remove_suffix(1);
    if (l.empty()) continue;
    if (!l.starts_with('#')) break;
    std::string lower(l);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    if (lower.find("graphmend") != std::string::npos) continue;
    if (lower.find("automatically generated from") != std::string::npos || lower.find("@generated") != std::string::npos ||
        lower.find("do not edit") != std::string::npos) {
      const size_t first = l.find_first_not_of("# ");
      return std::string(first == std::string_view::npos ? l : l.substr(first));
    }
  }
  return std::nullopt;
}

UnitFindings check_unit(const Unit& u, const analysis::Project& project, const analysis::CompileRegions& regions,
                        analysis::TypeOracle& types, const Options& options, const FileSettings& settings,
                        const rules::Selection& selection) {
  UnitFindings findings;
  std::vector<rules::Diagnostic>& out = findings.diagnostics;
  if (u.current && u.current->notebook && u.current->notebook->other_language) {
    findings.warnings.push_back(fmt::format(" the notebook's kernel language is {}, not Python: skipped",
                                            *u.current->notebook->other_language));
    return findings;
  }
  if (u.current && u.current->notebook) {
    for (const std::string& note : u.current->notebook->left_out) findings.warnings.push_back(note);
  }
  if (u.syntax_error) {
    out.push_back(*u.syntax_error);
    return findings;
  }
  if (!u.module) return findings;
  const source::LineIndex lines(u.current->text);
  rules::Suppressions suppressions = rules::Suppressions::read(u.current->text, u.module->root(), lines);
  if (suppressions.file_ignored()) return findings;
  for (const rules::SuppressionDirective& d : suppressions.directives()) {
    for (const rules::SuppressionCode& c : d.codes) {
      if (!rules::is_unknown_graphmend_code(c.code)) continue;
      findings.warnings.push_back(fmt::format("{}: suppression comment names `{}`, which is no graphmend rule",
                                              lines.line_of(c.range.start), c.code));
    }
  }
  if (const source::GeneratedMarkers& markers = u.module->generated(); markers.damage) {
    findings.warnings.push_back(fmt::format(
        "{}: graphmend's generated block is damaged ({}); `fix` leaves it as it is and makes no fix that "
        "needs it: restore it from version control, or remove the repeated or altered lines",
        lines.line_of(markers.damage_at), *markers.damage));
  }
  rewrite::SiteNamer names(*u.module);
  const rewrite::GeneratedLineLength line_length(u.style.line_length);
  rules::RuleContext ctx{{*u.module, project, regions, types, settings.rule_options}, names};
  // A module that never names torch is checked only when a compiled call reaches one of its
  // functions (a helper called from another file's forward).
  if (u.module->mentions_torch() || !ctx.compiled_functions().empty()) {
    rules::DiagnosticSink sink;
    std::vector<const rules::Rule*> enabled, unselected;
    for (const rules::Rule* rule : rules::all_rules()) {
      (selection.enabled(rule->info().code) ? enabled : unselected).push_back(rule);
    }
    // A rule that reads other rules' findings needs every break found, selected or not.
    if (std::none_of(enabled.begin(), enabled.end(), [](const rules::Rule* r) { return r->reads_other_findings(); })) {
      unselected.clear();
    }
    rewrite::SiteNamer unselected_names(*u.module);
    rules::check_file(ctx, enabled, sink, unselected, &unselected_names);
    const std::vector<source::TextRange> dead = rules::compile_dead_ranges(ctx);
    for (rules::Diagnostic& d : sink.diagnostics()) {
      if (!selection.enabled(d.rule->code)) continue;
      if (std::any_of(dead.begin(), dead.end(), [&](const source::TextRange& r) { return r.contains(d.range); })) {
        continue;  // never traced: Dynamo folds the is_compiling() test
      }
      if (suppressions.suppresses(lines.line_of(d.range.start), d.rule->code)) continue;
      out.push_back(std::move(d));
    }
  }
  // Findings no rule pass reports (check_file names the compiled function of each of those): the
  // innermost function around their text, if any.
  const auto add_with_function = [&](rules::Diagnostic d) {
    const ir::Node node = u.module->root().named_descendant_for_range(d.range.start, d.range.end);
    if (const int f = node ? u.module->function_of(node) : -1; f >= 0) {
      d.function = u.module->functions[static_cast<size_t>(f)].qualname;
      if (const auto* r = regions.find(*u.module, f)) d.region_reason = r->reason;
    }
    out.push_back(std::move(d));
  };
  if (selection.enabled(rules::kRuntimeFileInfo.code) && !options.fix && !options.diff) {
    if (std::optional<rules::Diagnostic> d = runtime_file_finding(u)) {
      if (!suppressions.suppresses(lines.line_of(d->range.start), d->rule->code)) add_with_function(std::move(*d));
    }
  }
  if (selection.enabled(rules::kUnusedNoqaInfo.code)) {
    for (rules::Diagnostic& d : rules::unused_suppressions(suppressions, u.current->text, selection)) {
      add_with_function(std::move(d));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const rules::Diagnostic& a, const rules::Diagnostic& b) {
    // Start, then code, then end: the duplicates removed below, same range and code, end up adjacent.
    if (a.range.start != b.range.start) return a.range.start < b.range.start;
    if (a.rule != b.rule) return a.rule->code < b.rule->code;
    return a.range.end < b.range.end;
  });
  // One site can match two views (e.g. a call inside a condition): keep one per (range, code).
  out.erase(std::unique(out.begin(), out.end(),
                        [](const rules::Diagnostic& a, const rules::Diagnostic& b) {
                          return a.range == b.range && a.rule == b.rule;
                        }),
            out.end());
  // A file generated from another source is its generator's to write: its findings are
  // reported, its fixes withheld, and the warning says where the fix belongs.
  if (std::optional<std::string> header = settings.fix_generated ? std::nullopt : generated_header(u.current->text)) {
    bool withheld = false;
    for (rules::Diagnostic& d : out) withheld = std::exchange(d.fix, nullptr) != nullptr || withheld;
    if (withheld) {
      findings.warnings.push_back(fmt::format(
          "1: the file says it is generated (`{}`): graphmend leaves it to its generator and fixes "
          "nothing here; fix the source it is generated from (or pass --fix-generated)",
          *header));
    }
  }
  return findings;
}

std::string display_of(const std::filesystem::path& path) {
  std::error_code ec;
  const std::filesystem::path rel = std::filesystem::relative(path, std::filesystem::current_path(ec), ec);
  if (!ec && !rel.empty() && *rel.begin() != "..") return rel.string();
  return path.string();
}

// The runtime file of each package whose modules now bind it: created when missing, rewritten
// when its version differs, never touched otherwise; written (unless --diff) before any module
// that needs it. Returns, per unit, why that unit must not be written ("" when it may).
std::vector<std::string> prepare_runtime_files(const std::vector<FileReport>& files, const std::vector<Unit>& units,
                                               const Options& options, RunReport& report) {
  std::vector<std::string> errors(units.size());
  if (!options.fix && !options.diff) return errors;
  std::map<std::filesystem::path, std::vector<size_t>> dependents;
  for (size_t i = 0; i < units.size(); ++i) {
    // Every module of the run that binds the runtime, changed by this run or patched before (a
    // runtime file lost or left at an older version is written again); not a context-only file,
    // which the run reads but does not fix.
    if (files[i].error || units[i].input.context_only || !binds_packaged_runtime(files[i].text())) continue;
    if (const auto& root = units[i].input.package_root) dependents[*root / fix::kRuntimeFileName].push_back(i);
  }
  for (const auto& [path, users] : dependents) {
    GeneratedFile g;
    g.path = path;
    g.display = display_of(path);
    g.after = std::string(fix::runtime_source());
    std::optional<std::string> problem;
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) {
      source::ReadResult r = source::read_source(path, g.display, options.read);
      if (auto* err = std::get_if<source::ReadError>(&r)) {
        problem = err->message;
      } else {
        g.before = std::get<source::SourceFile>(r).text;
        const auto version = fix::runtime_version_of(*g.before);
        if (!version) {
          problem = "it exists and is not graphmend's runtime (no RUNTIME_VERSION); rename it, then re-run";
        } else if (*version == fix::runtime_version()) {
          continue;  // current: never edited
        }
      }
    }
    // Written only when some module that needs it can be written: a run whose every write
    // fails leaves the package as it was.
    const bool some_writable = std::any_of(users.begin(), users.end(),
                                           [&](size_t i) { return !fix::refusal(units[i].input.path); });
    if (!problem && options.fix && !options.diff && !some_writable) continue;
    if (!problem && options.fix && !options.diff) {
      problem = g.before ? fix::write_atomically(path, g.after) : fix::create_atomically(path, g.after);
      g.written = !problem;
    }
    if (problem) {
      g.write_error = *problem;
      for (size_t i : users) {
        std::string_view why = *problem;
        if (why.ends_with("; not modified")) why.remove_suffix(std::string_view("; not modified").size());
        errors[i] = fmt::format("needs the graphmend runtime {}, which cannot be written: {}; not modified", g.display,
                                why);
      }
    }
    report.runtime_files.push_back(std::move(g));
  }
  return errors;
}

// A file found by walking a folder whose real path lies outside it (a symlink pointing out of the
// tree): its findings are reported, but a fix never writes there.
std::optional<std::string> outside_walk_root(const DiscoveredFile& input) {
  if (!input.walk_root) return std::nullopt;
  std::error_code ec;
  const std::filesystem::path real = std::filesystem::canonical(input.path, ec);
  if (ec) return std::nullopt;  // the writer reports what is wrong with it
  const std::filesystem::path rel = real.lexically_relative(*input.walk_root);
  if (!rel.empty() && *rel.begin() != "..") return std::nullopt;
  return fmt::format("a symbolic link to {}, outside {}; not modified (name the file itself to fix it)", real.string(),
                     input.walk_root->string());
}

// `range` of the text before `batch` (sorted, non-overlapping edits) in the text after it, or
// nullopt when an edit reaches into it (its text was rewritten or moved in). An insertion at its
// start moves it; one at its end does not touch it.
std::optional<source::TextRange> map_through(source::TextRange range, const std::vector<source::Edit>& batch,
                                             const std::vector<int64_t>& shift_before) {
  // Edits ending at or before the start come first; the next one must start at or after the end.
  const auto after = std::upper_bound(batch.begin(), batch.end(), range.start,
                                      [](uint32_t at, const source::Edit& e) { return at < e.range.end; });
  if (after != batch.end() && after->range.start < range.end) return std::nullopt;
  if (after != batch.end() && after->range.start == range.start && !after->range.empty()) return std::nullopt;
  const int64_t shift = shift_before[static_cast<size_t>(after - batch.begin())];
  return source::TextRange{static_cast<uint32_t>(range.start + shift), static_cast<uint32_t>(range.end + shift)};
}

// Each of `ranges` where the fixes' edits (`history`, batch after batch) carried it; nullopt for
// one an edit reached into.
std::vector<std::optional<source::TextRange>> carried_ranges(const std::vector<source::TextRange>& ranges,
                                                             const std::vector<std::vector<source::Edit>>& history) {
  std::vector<std::optional<source::TextRange>> carried(ranges.begin(), ranges.end());
  for (const std::vector<source::Edit>& batch : history) {
    std::vector<int64_t> shift_before(batch.size() + 1, 0);
    for (size_t i = 0; i < batch.size(); ++i) {
      shift_before[i + 1] = shift_before[i] + static_cast<int64_t>(batch[i].replacement.size()) -
                            static_cast<int64_t>(batch[i].range.length());
    }
    for (auto& r : carried) {
      if (r) r = map_through(*r, batch, shift_before);
    }
  }
  return carried;
}

// The lone CRs of the original (as offsets of the LFs that stand for them) where the fixes'
// edits carried them; those inside rewritten text are dropped.
std::vector<uint32_t> carried_lone_crs(const std::vector<uint32_t>& original,
                                       const std::vector<std::vector<source::Edit>>& history) {
  std::vector<source::TextRange> ranges;
  for (uint32_t at : original) ranges.push_back({at, at + 1});
  std::vector<uint32_t> out;
  for (const auto& r : carried_ranges(ranges, history)) {
    if (r) out.push_back(r->start);
  }
  return out;
}

// A notebook's cell layout where the fixes' edits carried it; nullopt when an edit reached into a
// cell's separator or a masked line.
std::optional<source::CellLayout> carried_layout(const source::CellLayout& original,
                                                 const std::vector<std::vector<source::Edit>>& history) {
  if (history.empty()) return original;
  std::vector<source::TextRange> ranges;
  for (uint32_t at : original.separators) ranges.push_back({at, at + 1});
  ranges.insert(ranges.end(), original.masked.begin(), original.masked.end());
  const std::vector<std::optional<source::TextRange>> carried = carried_ranges(ranges, history);
  if (std::any_of(carried.begin(), carried.end(), [](const auto& r) { return !r.has_value(); })) return std::nullopt;
  source::CellLayout out;
  for (size_t k = 0; k < carried.size(); ++k) {
    if (k < original.separators.size()) {
      out.separators.push_back(carried[k]->start);
    } else {
      out.masked.push_back(*carried[k]);
    }
  }
  return out;
}

// The findings left in a file that was fixed in memory but not written, as they stand in the file
// on disk: each finding of the final text is the first pass's finding of the same code whose range
// the fixes' edits (`history`, batch after batch) carry to the same place; failing that, the first
// one on the same source text. A finding the first pass fixed is none of them: its text stays in
// the fixed file (for eager mode), where another site with the same text would take its place.
// The findings' range, fix and edits refer to the text on disk.
std::vector<rules::Diagnostic> as_on_disk(const FileReport& f, std::vector<rules::Diagnostic> first,
                                          std::vector<bool> fixed_in_first_pass,
                                          const std::vector<std::vector<source::Edit>>& history) {
  std::vector<rules::Diagnostic> out;
  std::vector<bool> used = std::move(fixed_in_first_pass);
  used.resize(first.size(), false);
  std::vector<std::optional<source::TextRange>> carried(first.size());
  for (size_t k = 0; k < first.size(); ++k) carried[k] = first[k].range;
  for (const std::vector<source::Edit>& batch : history) {
    std::vector<int64_t> shift_before(batch.size() + 1, 0);
    for (size_t i = 0; i < batch.size(); ++i) {
      shift_before[i + 1] = shift_before[i] + static_cast<int64_t>(batch[i].replacement.size()) -
                            static_cast<int64_t>(batch[i].range.length());
    }
    for (auto& r : carried) {
      if (r) r = map_through(*r, batch, shift_before);
    }
  }
  const std::string_view fixed = f.text();
  const std::string_view disk = f.original->text;
  std::vector<size_t> by_place(f.diagnostics.size(), first.size());
  for (size_t i = 0; i < f.diagnostics.size(); ++i) {
    const rules::Diagnostic& d = f.diagnostics[i];
    for (size_t k = 0; k < first.size(); ++k) {
      if (used[k] || first[k].rule != d.rule || carried[k] != d.range) continue;
      used[k] = true;
      by_place[i] = k;
      break;
    }
  }
  for (size_t i = 0; i < f.diagnostics.size(); ++i) {
    const rules::Diagnostic& d = f.diagnostics[i];
    if (by_place[i] == first.size()) {
      const std::string_view site = fixed.substr(d.range.start, d.range.length());
      for (size_t k = 0; k < first.size(); ++k) {
        if (used[k] || first[k].rule != d.rule) continue;
        if (disk.substr(first[k].range.start, first[k].range.length()) != site) continue;
        used[k] = true;
        by_place[i] = k;
        break;
      }
    }
    if (by_place[i] < first.size()) out.push_back(std::move(first[by_place[i]]));
  }
  return out;
}

// A notebook's warnings ("<line>: ...", a line of its joined cells, in `text`) with the line as
// its cell's ("cell 3:2: ..."). A warning already so placed (replayed from the cache) is kept.
std::vector<std::string> warnings_by_cell(const source::Notebook& notebook, std::string_view text,
                                          const source::CellLayout& cells, std::vector<std::string> warnings) {
  const source::LineIndex lines(text);
  for (std::string& w : warnings) {
    const size_t colon = w.find(':');
    if (colon == 0 || colon == std::string::npos || colon > 9 ||
        !std::all_of(w.begin(), w.begin() + static_cast<std::ptrdiff_t>(colon), [](char c) { return c >= '0' && c <= '9'; })) {
      continue;
    }
    const auto line = static_cast<uint32_t>(std::stoul(w.substr(0, colon)));
    if (line == 0 || line > lines.line_count()) continue;
    const source::CellPlace at = source::locate(notebook, text, cells, lines.line_start(line));
    w = fmt::format("cell {}:{}{}", at.cell, at.line, w.substr(colon));
  }
  return warnings;
}

// Everything besides the files themselves that a check's findings depend on (the cache key).
std::string cache_material(const std::vector<std::string>& paths, const Options& options,
                           const std::vector<std::shared_ptr<const FileSettings>>& settings) {
  std::error_code ec;
  std::string m = fmt::format("cwd {}\npaths {}\n", std::filesystem::current_path(ec).string(), fmt::join(paths, "\x1f"));
  // Each configuration the files take, once (a run with other settings keeps its own entry).
  std::unordered_set<const FileSettings*> listed;
  for (const auto& s : settings) {
    if (listed.insert(s.get()).second) m += s->key();
  }
  const DiscoverOptions& d = options.discovery;
  m += fmt::format("exclude {}\ngitignore {} force {} context {} root {}\n", fmt::join(d.exclude, "\x1f"),
                   d.respect_gitignore, d.force_exclude, d.project_context, d.root.string());
  m += fmt::format("unsafe {} max-bytes {}\n", options.unsafe_fixes, options.read.max_bytes);
  return m;
}

// The discovery options, with each folder's own excludes when the files take their own configuration.
DiscoverOptions discovery_options(const Options& options) {
  DiscoverOptions d = options.discovery;
  if (const std::shared_ptr<SettingsResolver> resolver = options.settings) {
    d.excluded = [resolver](const std::filesystem::path& path, bool is_dir, bool named) {
      const std::shared_ptr<const FileSettings> s = resolver->for_folder(is_dir ? path : path.parent_path());
      return named ? s->excludes_path(path) : s->excludes_entry(path);
    };
  }
  return d;
}

// Every file's settings when the run has no resolver: the options' own.
std::shared_ptr<const FileSettings> run_settings(const Options& options) {
  auto s = std::make_shared<FileSettings>();
  s->root = options.discovery.root;
  s->selection = options.selection;
  s->per_file_ignores = options.per_file_ignores;
  s->exclude = options.discovery.exclude;
  s->fix_generated = options.fix_generated;
  s->rule_options = options.rule_options;
  s->finish();
  return s;
}

// A developer's aid for measuring where a run's time and memory go (bench/incremental.py): with
// GRAPHMEND_PHASES set, the end of each stage is written to stderr as
// `graphmend-phase <stage> wall=<s> cpu=<s> peak_rss_mb=<MB>`, each counted from the run's start.
class PhaseLog {
 public:
  PhaseLog() : enabled_(std::getenv("GRAPHMEND_PHASES") != nullptr), start_(Clock::now()) {}

  void operator()(std::string_view stage) const {
    if (!enabled_) return;
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto seconds = [](const timeval& t) {
      return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
    };
    const std::string line = fmt::format("graphmend-phase {} wall={:.3f} cpu={:.3f} peak_rss_mb={}\n", stage,
                                         std::chrono::duration<double>(Clock::now() - start_).count(),
                                         seconds(usage.ru_utime) + seconds(usage.ru_stime), usage.ru_maxrss / 1024);
    std::fputs(line.c_str(), stderr);
  }
  // A line of counts beside the stages.
  void note(std::string_view line) const {
    if (enabled_) std::fputs(fmt::format("{}\n", line).c_str(), stderr);
  }

 private:
  bool enabled_;
  Clock::time_point start_;
};

// One run over the discovered files, stage by stage: read (and parse), replay the cache or analyse
// and fix until the text settles, then write and report. Each stage runs on the run's threads;
// a file whose processing threw is dropped from then on (see drop_failed).
class Run {
 public:
  Run(const std::vector<std::string>& paths, const Options& options)
      : paths_(paths), options_(options), discovery_(discover(paths, discovery_options(options))) {
    report_.discovery_errors = std::move(discovery_.errors);
    report_.stdin_excluded = discovery_.stdin_excluded;
    settings_.reserve(discovery_.files.size());
    if (options.settings) {
      for (const DiscoveredFile& f : discovery_.files) settings_.push_back(options.settings->for_path(f.path));
      report_.config_errors = options.settings->errors();
    } else {
      settings_.assign(discovery_.files.size(), run_settings(options));
    }
    jobs_ = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
    // `check` of files on disk may reuse the results of an earlier run over the same tree.
    use_cache_ = options.cache_dir && !options.fix && !options.diff &&
                 std::none_of(discovery_.files.begin(), discovery_.files.end(),
                              [](const DiscoveredFile& f) { return f.from_stdin; });
    const size_t n = discovery_.files.size();
    units_.resize(n);
    files_.resize(n);
    parsers_.resize(jobs_);
    failures_.resize(n);
    budgets_ = {options.budget, std::vector<std::chrono::nanoseconds>(n)};
    reverted_.assign(n, 0);
    diags_.resize(n);
    warnings_.resize(n);
    syntax_errors_.assign(n, false);
    first_diags_.resize(n);
    fixed_in_first_pass_.resize(n);
    edit_history_.resize(n);
    overlapped_.assign(n, 0);
  }

  RunReport operator()() {
    if (!report_.config_errors.empty()) return std::move(report_);  // nothing is checked
    const auto t0 = Clock::now();
    read();
    phase_("read");
    if (use_cache_) replay_or_parse();
    if (!replayed_) {
      try {
        analyse_and_fix();
      } catch (const ir::DeferredBuildFailed& e) {
        // A module deferred on the strength of its stored summary did not build as that summary
        // says (damaged bytes that kept their checksum): every module is built now, and the
        // analysis starts again.
        phase_.note(fmt::format("graphmend-deferred failed: {}", e.what()));
        build_deferred_modules();
        analyse_and_fix();
      }
    }
    write_and_report();
    store_in_cache();
    phase_("report");
    // Context-only files informed the analysis; they are not the run's files.
    for (size_t i = 0; i < units_.size(); ++i) {
      if (!units_[i].input.context_only) report_.files.push_back(std::move(files_[i]));
    }
    report_.elapsed_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    report_.dry_run = options_.diff;
    if (options_.keep_analysis) report_.analysis = std::make_shared<const std::vector<Unit>>(std::move(units_));
    return std::move(report_);
  }

 private:
  std::function<void(size_t)> stage(std::string_view name) const {
    if (!options_.progress) return {};
    return [this, name, total = units_.size()](size_t done) { options_.progress(name, done, total); };
  }

  template <typename F>
  void each_file(F&& body, std::string_view stage_name) {
    parallel_for(units_.size(), jobs_, failures_, budgets_, std::forward<F>(body), stage(stage_name));
  }

  // A file whose processing threw is skipped from then on, once no worker can still reach it.
  void drop_failed() {
    for (size_t i = 0; i < units_.size(); ++i) {
      if (failures_[i].message.empty()) continue;
      any_failure_ = true;
      files_[i].error =
          failures_[i].over_budget
              ? source::ReadError{source::ReadErrorKind::OverBudget,
                                  fmt::format("skipped and not modified: {}", failures_[i].message)}
              : source::ReadError{source::ReadErrorKind::Io,
                                  fmt::format("internal error ({}); the file was skipped and not modified (please "
                                              "report it)",
                                              failures_[i].message)};
      units_[i].module.reset();
      units_[i].summary.reset();
      units_[i].current.reset();
      // Its report shows the file as it is: nothing changed, nothing to write or diff.
      files_[i].keep_original_text();
      failures_[i] = {};
    }
  }

  void read() {
    StyleFinder styles;
    each_file([&](size_t i, unsigned w) {
      Unit& u = units_[i];
      u.input = discovery_.files[i];
      // Text from standard input binds its package's runtime as the file on disk would, so the
      // printed text is what `fix FILE` writes; the runtime file is written as for any module.
      u.style = styles.for_file(u.input.path);
      // A notebook is no module of a package: it carries the runtime inline.
      const bool notebook = source::is_notebook_path(u.input.path.string());
      u.link = notebook ? fix::RuntimeLink::inline_source() : fix::runtime_link_for(u.input.path, u.input.package_root);
      u.link.lines_after_imports = u.style.lines_after_imports;
      FileReport& fr = files_[i];
      fr.link = u.link;
      fr.package_root = notebook ? std::nullopt : u.input.package_root;
      fr.display = u.input.display;
      fr.path = u.input.path;
      fr.from_stdin = u.input.from_stdin;
      const std::string* unsaved = unsaved_text(u.input);
      if (!use_cache_ && !unsaved && take_unchanged(u)) {
        fr.original = u.current;
        return;
      }
      source::ReadResult r =
          u.input.from_stdin ? source::decode_source(options_.stdin_text.value_or(""), u.input.path, u.input.display,
                                                     options_.read)
          : unsaved ? source::decode_source(*unsaved, u.input.path, u.input.display, options_.read)
                    : source::read_source(u.input.path, u.input.display, options_.read);
      if (auto* err = std::get_if<source::ReadError>(&r)) {
        fr.error = *err;
        return;
      }
      u.current = std::make_shared<const source::SourceFile>(std::move(std::get<source::SourceFile>(r)));
      if (!use_cache_) parse_or_reuse(u, parsers_[w]);  // else parsed below, when the cache has no entry
      fr.original = u.current;
    }, "reading");
    drop_failed();
  }

  // Only context files take earlier runs' parses (Options::parsed): their text is never written,
  // so the disk stamp of the earlier read that comes with it guards no write.
  bool takes_earlier_parses(const DiscoveredFile& input) const {
    return options_.parsed && input.context_only && !input.from_stdin;
  }

  static std::filesystem::path parsed_key(const DiscoveredFile& input) {
    std::error_code ec;
    return std::filesystem::absolute(input.path, ec).lexically_normal();
  }

  static void take(Unit& u, const ParsedFiles::Entry& earlier) {
    u.current = earlier.file;
    u.module = earlier.module;
    u.summary = earlier.summary;
    u.syntax_error = earlier.syntax_error;
  }

  // Takes an earlier run's parse of a file whose bytes are still the text it parsed: the bytes
  // are compared, not decoded, hashed or parsed again (a keystroke in the editor reads the whole
  // project). A file whose text is not its bytes (a BOM, CRs) goes through read_source.
  bool take_unchanged(Unit& u) const {
    if (!takes_earlier_parses(u.input)) return false;
    const std::shared_ptr<const ParsedFiles::Entry> earlier = options_.parsed->find(parsed_key(u.input));
    if (!earlier || earlier->module_name != u.input.module_name || !source::text_is_bytes(*earlier->file)) return false;
    const std::optional<std::string> bytes = source::read_bytes(u.input.path, options_.read.max_bytes);
    if (!bytes || *bytes != earlier->file->text) return false;
    take(u, *earlier);
    return true;
  }

  // Parses a unit, or takes an earlier run's parse of the same text (Options::parsed), keeping
  // the module object: what the evidence memo knows of it stands.
  void parse_or_reuse(Unit& u, syntax::Parser& parser) const {
    if (!takes_earlier_parses(u.input)) {
      parse_unit(u, parser);
      return;
    }
    const std::filesystem::path key = parsed_key(u.input);
    const std::shared_ptr<const ParsedFiles::Entry> earlier = options_.parsed->find(key);
    if (earlier && earlier->module_name == u.input.module_name && earlier->file->text == u.current->text) {
      take(u, *earlier);
    } else {
      parse_unit(u, parser);
    }
    options_.parsed->store(key, std::make_shared<const ParsedFiles::Entry>(ParsedFiles::Entry{
                                    u.current, u.input.module_name, u.module, u.summary, u.syntax_error}));
  }

  // The editor's text of a file, when it has one (Options::unsaved).
  const std::string* unsaved_text(const DiscoveredFile& input) const {
    if (options_.unsaved.empty() || input.from_stdin) return nullptr;
    std::error_code ec;
    const auto it = options_.unsaved.find(std::filesystem::absolute(input.path, ec).lexically_normal());
    return it == options_.unsaved.end() ? nullptr : &it->second;
  }

  // The findings of an earlier run over the same tree, or else every file parsed for analysis.
  void replay_or_parse() {
    cache::TreeDigest tree;
    for (size_t i = 0; i < units_.size(); ++i) {
      const Unit& u = units_[i];
      // A notebook's text is its joined cells: marked, so no .py file's entry can stand for it.
      const std::string_view kind = u.current && u.current->notebook ? "\x1fnotebook" : "";
      // A script's imports search the directory of the file it may link to: a link pointed
      // elsewhere resolves them elsewhere, with every text the same.
      std::string searched;
      if (auto dir = analysis::script_search_directory(u.input.path, u.input.module_name)) {
        searched = "\x1f" + dir->string();
      }
      tree.add(u.input.display,
               u.input.module_name + "\x1f" + u.style.key() + "\x1f" + settings_[i]->key() + std::string(kind) + searched,
               u.input.context_only,
               u.current ? std::string_view(u.current->text) : std::string_view("\0unread", 7));
    }
    digest_ = tree.hex();
    cache_key_ = cache::run_key(cache_material(paths_, options_, settings_));
    if (std::optional<cache::Entry> entry = cache::load(*options_.cache_dir, cache_key_, digest_)) {
      size_t k = 0;
      for (size_t i = 0; i < units_.size() && k < entry->files.size(); ++i) {
        if (units_[i].input.context_only) continue;
        cache::FileResult& r = entry->files[k++];
        diags_[i] = std::move(r.diagnostics);
        warnings_[i] = std::move(r.warnings);
        syntax_errors_[i] = r.syntax_error;
      }
      replayed_ = true;
      report_.compiled_functions = entry->compiled_functions;
      return;
    }
    // Each module's summary kept for later runs: read back where its text is unchanged, taken and
    // stored where not.
    const cache::SummaryStore summaries(*options_.cache_dir);
    cache::SummaryStore::RunSummaries run_summaries(units_.size());
    each_file([&](size_t i, unsigned w) {
      SummaryLookup lookup{summaries, run_summaries[i]};
      Unit& u = units_[i];
      if (!u.current) return;
      // A file of the project's context whose summary is kept waits until its code is read.
      if (u.input.context_only && defer_unit(u, lookup, budgets_.limits, budgets_.spent[i])) return;
      parse_unit(u, parsers_[w], std::nullopt, &lookup);
    }, "parsing");
    const size_t read = static_cast<size_t>(std::count_if(run_summaries.begin(), run_summaries.end(),
                                                          [](const auto& r) { return r.found; }));
    // The file keeps several times the project's files: older texts' summaries for a while.
    const size_t stored = summaries.save(run_summaries, std::max<size_t>(4096, 4 * units_.size()));
    phase_.note(fmt::format("graphmend-summaries read={} stored={}", read, stored));
    summary_keys_.resize(units_.size());
    for (size_t i = 0; i < units_.size(); ++i) summary_keys_[i] = std::move(run_summaries[i].key);
    phase_("parse");
    drop_failed();
  }

  // How many modules waited for a reader, and how many a reader built.
  void note_deferred() {
    size_t deferred = 0, unbuilt = 0;
    for (const Unit& u : units_) {
      deferred += u.module && u.module->is_deferred();
      unbuilt += u.module && u.module->is_unbuilt();
    }
    if (deferred > 0) phase_.note(fmt::format("graphmend-deferred modules={} built={}", deferred, deferred - unbuilt));
  }

  // Builds every deferred module from its text, with its summary taken afresh. The stored
  // summaries are written again as taken now, and the typings kept with them are not read: a
  // typing stored under a module's key may have read a summary that did not fit it.
  void build_deferred_modules() {
    for (FileFailure& f : failures_) {
      if (f.deferred_build) f = {};
    }
    each_file([&](size_t i, unsigned w) {
      Unit& u = units_[i];
      if (u.module && u.module->is_deferred()) parse_unit(u, parsers_[w]);
    }, "parsing");
    drop_failed();
    trust_kept_evidence_ = false;
    if (!options_.cache_dir || summary_keys_.size() != units_.size()) return;
    const cache::SummaryStore summaries(*options_.cache_dir);
    cache::SummaryStore::RunSummaries taken(units_.size());
    for (size_t i = 0; i < units_.size(); ++i) {
      if (units_[i].summary && !summary_keys_[i].empty()) taken[i] = {summary_keys_[i], units_[i].summary, false};
    }
    summaries.save(taken, std::max<size_t>(4096, 4 * units_.size()));
  }

  // The rules each file runs: its configuration's selection, less its per-file ignores.
  std::vector<rules::Selection> selections() const {
    std::vector<rules::Selection> out;
    out.reserve(units_.size());
    for (size_t i = 0; i < units_.size(); ++i) {
      out.push_back(settings_[i]->selection);
      const std::vector<std::string> ignored = settings_[i]->ignored_for(units_[i].input.path);
      out.back().ignore.insert(out.back().ignore.end(), ignored.begin(), ignored.end());
    }
    return out;
  }

  // The call evidence of the project: from the run's memo where it has one, which keeps the
  // modules until the next run's; else, with the cache on, from the records the last run stored,
  // each module known by its summary key, storing this run's for the next.
  analysis::ParameterEvidence gather_evidence(const analysis::Project& project, const analysis::CompileRegions& regions) {
    std::shared_ptr<analysis::EvidenceMemo> memo = options_.evidence_memo;
    const bool stored = !memo && options_.cache_dir && summary_keys_.size() == units_.size();
    // A module's key in the records: its summary key (its name and text) and its place, since a
    // script's imports find the modules beside it. A key names one module: a key two modules share
    // stands for neither, in this run's records or the last run's.
    std::vector<std::string> keys(units_.size());
    std::unordered_map<std::string_view, const ir::Module*> module_of_key;
    std::unordered_map<const ir::Module*, std::string_view> key_of_module;
    if (stored) {
      for (size_t i = 0; i < units_.size(); ++i) {
        if (!units_[i].module || summary_keys_[i].empty()) continue;
        keys[i] = summary_keys_[i] + '\n' + project.place_of(*units_[i].module);
        const auto [it, added] = module_of_key.emplace(keys[i], units_[i].module.get());
        if (!added) it->second = nullptr;
      }
      for (size_t i = 0; i < units_.size(); ++i) {
        if (!keys[i].empty() && module_of_key.at(keys[i])) key_of_module.emplace(units_[i].module.get(), keys[i]);
      }
      memo = std::make_shared<analysis::EvidenceMemo>();
      if (trust_kept_evidence_) memo->decode(
          cache::load_evidence(*options_.cache_dir),
          [&](std::string_view key) -> const ir::Module* {
            const auto it = module_of_key.find(key);
            return it == module_of_key.end() ? nullptr : it->second;
          },
          [&](const ir::Module& m) -> const analysis::ModuleSummary& { return project.summary_of(m); });
    }
    if (!memo) return analysis::gather_parameter_evidence(project, regions, jobs_);
    std::vector<std::shared_ptr<const ir::Module>> modules;
    for (const Unit& u : units_) {
      if (!u.module) continue;
      // The module with the text it views, in one owner.
      const auto both = std::make_shared<std::pair<std::shared_ptr<const source::SourceFile>,
                                                   std::shared_ptr<const ir::Module>>>(u.current, u.module);
      modules.emplace_back(both, u.module.get());
    }
    analysis::ParameterEvidence evidence = memo->gather(project, regions, jobs_, std::move(modules));
    const analysis::EvidenceMemo::Counts counts = memo->last_counts();
    phase_.note(fmt::format("graphmend-evidence typed={} reused={}", counts.typed, counts.reused));
    // Where nothing was typed, the stored records still hold every typing this run took.
    if (stored && counts.typed > 0) {
      cache::store_evidence(*options_.cache_dir, memo->encode([&](const ir::Module& m) {
        const auto it = key_of_module.find(&m);
        return it == key_of_module.end() ? std::string_view() : it->second;
      }));
    }
    return evidence;
  }

  // The order the units' modules join the project: by module name and where the module is found,
  // not by the paths the run was given. So a check of one file of a project builds the project a
  // check of all of it builds (the same layout), and the call evidence one stored stands for the
  // other (gather_evidence).
  std::vector<size_t> project_order() const {
    std::vector<std::string> place(units_.size());
    for (size_t i = 0; i < units_.size(); ++i) {
      const DiscoveredFile& f = units_[i].input;
      std::optional<std::filesystem::path> root = f.package_root;
      if (!root) root = analysis::script_search_directory(f.path, f.module_name);
      place[i] = f.module_name + '\0' + (root ? root->string() : std::string());
    }
    std::vector<size_t> order(units_.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return place[a] < place[b]; });
    return order;
  }

  // Analyses every file; with fix or diff, applies the fixes and analyses every file again until
  // no fix applies (or the pass limit, after which one more analysis describes the final text).
  void analyse_and_fix() {
    const std::vector<rules::Selection> selected = selections();
    // Which files the last pass changed. Another file is checked again only because it reads
    // them: that check of its unchanged text has a budget of its own, not what is left of its
    // first one.
    std::vector<uint8_t> changed(units_.size(), 1);
    bool analysis_only = false;  // set for the last pass: report on the final text, fix nothing
    // Gathered once, over the text on disk; each later pass carries it to the fixed modules.
    std::optional<analysis::ParameterEvidence> carried_evidence;
    const std::vector<size_t> joining = project_order();
    for (int iteration = 0;; ++iteration) {
      analysis::Project project;
      std::vector<const ir::Module*> analysed(units_.size(), nullptr);  // compared as keys only, later
      for (size_t i : joining) {
        analysed[i] = units_[i].module.get();
        if (analysed[i]) project.add(analysed[i], units_[i].summary);
      }
      const analysis::CompileRegions regions(project);
      report_.compiled_functions = regions.size();
      phase_("regions");
      const analysis::ParameterEvidence evidence =
          carried_evidence ? std::move(*carried_evidence) : gather_evidence(project, regions);
      carried_evidence.reset();
      phase_("evidence");
      std::vector<std::unique_ptr<analysis::TypeOracle>> oracles;
      for (unsigned w = 0; w < jobs_; ++w) oracles.push_back(std::make_unique<analysis::TypeOracle>(project, &evidence));
      std::vector<std::chrono::nanoseconds> held(units_.size());
      for (size_t i = 0; i < units_.size(); ++i) {
        if (!changed[i]) std::swap(held[i], budgets_.spent[i]);
      }
      each_file([&](size_t i, unsigned w) {
        if (!units_[i].current || units_[i].input.context_only) return;
        UnitFindings found = check_unit(units_[i], project, regions, *oracles[w], options_, *settings_[i], selected[i]);
        diags_[i] = std::move(found.diagnostics);
        warnings_[i] = std::move(found.warnings);
      }, iteration == 0 ? "checking" : "re-checking");
      for (size_t i = 0; i < units_.size(); ++i) {
        if (!changed[i]) budgets_.spent[i] = held[i];
      }
      for (FileFailure& f : failures_) {
        if (f.deferred_build) throw ir::DeferredBuildFailed(std::exchange(f, {}).message);
      }
      phase_(iteration == 0 ? "check" : "re-check");
      keep_copies_identical();
      phase_("copies");
      note_deferred();
      if (iteration == 0 && (options_.fix || options_.diff)) first_diags_ = diags_;  // the text on disk
      for (size_t i = 0; i < units_.size(); ++i) {
        if (!failures_[i].message.empty()) diags_[i].clear();
      }
      drop_failed();
      if ((!options_.fix && !options_.diff) || analysis_only) return;

      std::vector<std::optional<analysis::ReplacedModule>> replaced(units_.size());
      changed = apply_fixes(iteration, replaced);
      if (std::find(changed.begin(), changed.end(), 1) == changed.end()) return;
      carried_evidence = analysis::carry_evidence(evidence, replacements(analysed, replaced));
      if (iteration + 1 >= options_.max_fix_iterations) {
        for (size_t i = 0; i < units_.size(); ++i) {
          if (!changed[i]) continue;
          files_[i].notes.push_back(fmt::format(
              "fixes did not converge after {} passes (a graphmend bug: please report it)",
              options_.max_fix_iterations));
        }
        analysis_only = true;  // one more analysis, so the diagnostics describe the final text
      }
      // The next pass analyses every file again, not only those a fix changed: other files read a
      // changed file's function bodies (a callee's effects, its returns, whether tracing its
      // callers may fail), so their findings and fixes may change too. The report then describes
      // the text a fresh check would read, and a fix that a changed callee makes possible is
      // applied in this run.
    }
  }

  // Withholds the fixes that would make a "Copied from" pair differ (see copied_pairs.h).
  void keep_copies_identical() {
    const source::Applicability required =
        options_.unsafe_fixes ? source::Applicability::Unsafe : source::Applicability::Safe;
    std::vector<CopiedPairFile> files(units_.size());
    for (size_t i = 0; i < units_.size(); ++i) {
      if (!failures_[i].message.empty()) continue;  // its findings, if any, are from an older text
      files[i].module = units_[i].module.get();
      if (!units_[i].input.context_only) files[i].diagnostics = &diags_[i];
    }
    keep_copied_pairs_identical(files, required);
  }

  // Applies every applicable fix; re-parses; reverts a file whose fix breaks
  // its syntax. Returns which files changed (their fixed module, mapped to the one analysed, in
  // `replaced`).
  std::vector<uint8_t> apply_fixes(int iteration, std::vector<std::optional<analysis::ReplacedModule>>& replaced) {
    const source::Applicability required =
        options_.unsafe_fixes ? source::Applicability::Unsafe : source::Applicability::Safe;
    // Per-file flags that workers set side by side are bytes: std::vector<bool> packs them into
    // shared words, and two threads setting neighbouring bits race (ThreadSanitizer found it).
    std::vector<uint8_t> changed(units_.size(), 0);
    each_file([&](size_t i, unsigned w) {
      overlapped_[i] = 0;
      if (!units_[i].module || units_[i].input.context_only || reverted_[i]) return;
      std::vector<const source::Fix*> fixes;
      std::unordered_set<const source::Fix*> listed;  // arms of one chain share their fix
      for (const auto& d : diags_[i]) {
        if (d.fix && d.fix->applies(required) && listed.insert(d.fix.get()).second) fixes.push_back(d.fix.get());
      }
      withhold_notebook_fixes(i, fixes);
      // A module with a generated block is maintained even with no fix to apply: helpers whose
      // site is gone leave, and graphmend 0.1's block is replaced.
      // A text this run produced already has its block derived from it.
      if (fixes.empty() && (units_[i].produced || !units_[i].module->generated().block)) return;
      fix::VerifiedResult verified = fix::apply_and_verify(units_[i].current->text, fixes, parsers_[w],
                                                           link_for_fixes(i, fixes), units_[i].module->root());
      if (verified.reverted) {
        files_[i].notes.push_back(
            "a fix introduced a syntax error; all fixes to this file were reverted (this is a "
            "graphmend bug: please report it)");
        reverted_[i] = 1;  // its text stays as it was: later passes fix nothing in it
        return;
      }
      fix::ApplyResult& applied = verified.applied;
      overlapped_[i] = applied.skipped.size();  // a later pass retries them
      if (applied.text == units_[i].current->text) return;
      for (auto& batch : verified.edit_batches) edit_history_[i].push_back(std::move(batch));
      auto next = std::make_shared<source::SourceFile>(*units_[i].current);
      next->text = std::move(applied.text);
      Unit candidate;
      candidate.input = units_[i].input;
      candidate.link = units_[i].link;
      candidate.current = next;
      candidate.produced = true;
      parse_unit(candidate, parsers_[w], std::move(verified.tree));
      count_applied(i, iteration, fixes, applied);
      if (candidate.module) replaced[i] = analysis::replaced_module(*units_[i].module, *candidate.module);
      units_[i] = std::move(candidate);
      changed[i] = 1;
    }, "fixing");
    drop_failed();
    return changed;
  }

  // In a notebook, a fix that would change an IPython line (masked in the text) or a cell boundary
  // is not applied: the note says which.
  void withhold_notebook_fixes(size_t i, std::vector<const source::Fix*>& fixes) {
    const std::shared_ptr<const source::Notebook>& notebook = units_[i].current->notebook;
    if (!notebook) return;
    const std::optional<source::CellLayout> cells = carried_layout(notebook->layout, edit_history_[i]);
    std::erase_if(fixes, [&](const source::Fix* fix) {
      const bool touches = !cells || std::any_of(fix->edits.begin(), fix->edits.end(), [&](const source::Edit& e) {
        return source::touches_protected(*cells, e.range);
      });
      if (!touches) return false;
      for (const rules::Diagnostic& d : diags_[i]) {
        if (d.fix.get() != fix || !cells) continue;
        const source::CellPlace at = source::locate(*notebook, units_[i].current->text, *cells, d.range.start);
        std::string note = fmt::format("cell {}:{}:{}: the {} fix is not applied: it would change an IPython line "
                                       "(a magic, shell or help line) or a cell boundary",
                                       at.cell, at.line, at.column, d.rule->code);
        if (std::find(files_[i].notes.begin(), files_[i].notes.end(), note) == files_[i].notes.end()) {
          files_[i].notes.push_back(std::move(note));
        }
        break;
      }
      return true;
    });
  }

  // The unit's runtime link; in a notebook, with the first cell the fixes change.
  fix::RuntimeLink link_for_fixes(size_t i, const std::vector<const source::Fix*>& fixes) const {
    fix::RuntimeLink link = units_[i].link;
    const std::shared_ptr<const source::Notebook>& notebook = units_[i].current->notebook;
    if (!notebook || fixes.empty()) return link;
    const std::optional<source::CellLayout> cells = carried_layout(notebook->layout, edit_history_[i]);
    if (!cells) return link;
    uint32_t first = UINT32_MAX;
    for (const source::Fix* fix : fixes) first = std::min(first, fix->min_start());
    const auto k = static_cast<size_t>(std::lower_bound(cells->separators.begin(), cells->separators.end(), first) -
                                       cells->separators.begin());
    if (k == cells->separators.size()) return link;
    uint32_t start = k == 0 ? 0 : cells->separators[k - 1] + 1;
    // A cell magic (`%%time`) must stay its cell's first line: a block goes below a masked first line.
    const std::string_view text = units_[i].current->text;
    for (const source::TextRange& m : cells->masked) {
      if (m.start == text.find_first_not_of(" \t\r\n", start)) start = static_cast<uint32_t>(std::min(text.find('\n', m.end), text.size() - 1) + 1);
    }
    link.first_fixed_cell = source::TextRange{std::min(start, cells->separators[k]), cells->separators[k]};
    return link;
  }

  // Counted by site: the arms of a chain fixed by one shared rewrite count one each.
  void count_applied(size_t i, int iteration, const std::vector<const source::Fix*>& fixes,
                     const fix::ApplyResult& applied) {
    std::unordered_set<const source::Fix*> applied_fixes;
    for (size_t k : applied.applied) applied_fixes.insert(fixes[k]);
    if (iteration == 0) fixed_in_first_pass_[i].assign(diags_[i].size(), false);
    for (size_t k = 0; k < diags_[i].size(); ++k) {
      const rules::Diagnostic& d = diags_[i][k];
      if (!d.fix || !applied_fixes.contains(d.fix.get())) continue;
      if (iteration == 0) fixed_in_first_pass_[i][k] = true;
      ++files_[i].fixes_applied;
      ++files_[i].fixed_codes[std::string(d.rule->code)];
    }
  }

  // Every module the evidence names is either unchanged, replaced by its fixed text, or gone (a
  // file dropped for its budget or an internal error): its keys go too, before a new module can
  // take its address.
  std::vector<analysis::ReplacedModule> replacements(
      const std::vector<const ir::Module*>& analysed,
      std::vector<std::optional<analysis::ReplacedModule>>& replaced) const {
    std::vector<analysis::ReplacedModule> out;
    for (size_t i = 0; i < units_.size(); ++i) {
      if (!analysed[i] || units_[i].module.get() == analysed[i]) continue;
      if (replaced[i] && units_[i].module.get() == replaced[i]->after) {
        out.push_back(std::move(*replaced[i]));
      } else {
        out.push_back({analysed[i], nullptr, {}});
      }
    }
    return out;
  }

  void write_and_report() {
    for (size_t i = 0; i < units_.size(); ++i) {
      FileReport& fr = files_[i];
      if (fr.error) continue;
      if (units_[i].current != fr.original) fr.set_text(units_[i].current->text);
    }
    const std::vector<std::string> runtime_errors = prepare_runtime_files(files_, units_, options_, report_);

    // Each file is written (temporary, fsync, rename) or mapped back to the text on disk on the
    // run's threads: the syncs of 263 patched transformers files took half a second one by one.
    // Nothing here runs under a file's budget, which could stop a file between its write and its
    // report; only a real allocation failure lands in `failures_`.
    FileBudgets unlimited{Budget{}, std::vector<std::chrono::nanoseconds>(units_.size())};
    parallel_for(units_.size(), jobs_, failures_, unlimited, [&](size_t i, unsigned) {
      if (!files_[i].error) report_file(i, runtime_errors[i]);
    }, stage(options_.fix && !options_.diff ? "writing" : "reporting"));
    for (size_t i = 0; i < units_.size(); ++i) {
      if (failures_[i].message.empty()) continue;
      any_failure_ = true;
      if (!files_[i].written) {
        files_[i].write_error =
            fmt::format("internal error ({}); not modified (please report it)", failures_[i].message);
      }
    }
  }

  void report_file(size_t i, const std::string& runtime_error) {
    FileReport& fr = files_[i];
    if (overlapped_[i]) {
      fr.notes.push_back(fmt::format("{} fix(es) not applied because they overlap another fix", overlapped_[i]));
    }
    fr.syntax_error = replayed_ ? syntax_errors_[i] : units_[i].syntax_error.has_value();
    fr.diagnostics = std::move(diags_[i]);
    fr.warnings = std::move(warnings_[i]);
    fr.lone_crs = carried_lone_crs(fr.original->lone_crs, edit_history_[i]);
    if (fr.original->notebook) fr.cells = carried_layout(fr.original->notebook->layout, edit_history_[i]);
    if (fr.original->notebook && fr.cells) {
      fr.warnings = warnings_by_cell(*fr.original->notebook, fr.text(), *fr.cells, std::move(fr.warnings));
    }
    if (fr.from_stdin) {
      // Never written: `fix` prints the fixed text; the findings are those the fixes leave.
    } else if (!runtime_error.empty() && fr.changed()) {
      fr.write_error = runtime_error;
    } else if (options_.fix && !options_.diff && fr.changed()) {
      const EncodedFile encoded = encode_final_text(fr);
      if (encoded.error) {
        fr.write_error = *encoded.error;
      } else if (auto outside = outside_walk_root(units_[i].input)) {
        fr.write_error = *outside;
      } else if (auto err = fix::write_atomically(fr.path, encoded.bytes,
                                                  fr.original->disk ? &*fr.original->disk : nullptr)) {
        fr.write_error = *err;
      } else {
        fr.written = true;
      }
    }
    // Not written: the file on disk is the original. After a failed write every finding of it
    // stands; with --diff, those the fixes would leave.
    if (fr.changed() && fr.write_error) {
      fr.diagnostics = std::move(first_diags_[i]);
    } else if (fr.changed() && !fr.written && !fr.from_stdin) {
      fr.diagnostics =
          as_on_disk(fr, std::move(first_diags_[i]), std::move(fixed_in_first_pass_[i]), edit_history_[i]);
    }
  }

  // A run with a failure is not cached: a budget or an internal error may not recur.
  void store_in_cache() {
    if (!use_cache_ || replayed_ || any_failure_) return;
    cache::Entry entry{digest_, report_.compiled_functions, {}};
    for (size_t i = 0; i < units_.size(); ++i) {
      if (units_[i].input.context_only) continue;
      entry.files.push_back({files_[i].diagnostics, files_[i].warnings, files_[i].syntax_error});
    }
    cache::store(*options_.cache_dir, cache_key_, entry);
  }

  const std::vector<std::string>& paths_;
  const Options& options_;
  PhaseLog phase_;  // before discovery_: the run's clock starts first
  Discovery discovery_;
  std::vector<std::shared_ptr<const FileSettings>> settings_;  // by unit
  RunReport report_;
  unsigned jobs_ = 1;
  bool use_cache_ = false;
  std::vector<Unit> units_;
  std::vector<FileReport> files_;
  std::vector<syntax::Parser> parsers_;
  std::vector<FileFailure> failures_;
  FileBudgets budgets_;
  std::vector<uint8_t> reverted_;  // a fix broke the file's syntax: its fixes were all reverted
  bool any_failure_ = false;
  // Findings per file, and what the cache or the last analysis said of each.
  std::vector<std::vector<rules::Diagnostic>> diags_;
  std::vector<std::vector<std::string>> warnings_;
  std::vector<bool> syntax_errors_;
  bool replayed_ = false;  // the findings come from the cache
  std::string cache_key_;
  std::string digest_;
  std::vector<std::string> summary_keys_;  // by unit, with the cache on: its module's summary key
  bool trust_kept_evidence_ = true;  // false once a deferred module did not fit its stored summary
  // What a fix run needs to report on the text on disk: the first pass's findings, which of them
  // it fixed, every pass's edits; and the fixes the latest pass had to leave out.
  std::vector<std::vector<rules::Diagnostic>> first_diags_;
  std::vector<std::vector<bool>> fixed_in_first_pass_;  // by first_diags_ index
  std::vector<std::vector<std::vector<source::Edit>>> edit_history_;
  std::vector<size_t> overlapped_;
};

}  // namespace

RunReport run(const std::vector<std::string>& paths, const Options& options) { return Run(paths, options)(); }

void apply_settings(const Settings& settings, Options& o) {
  o.unsafe_fixes = settings.unsafe_fixes.value_or(false);
  o.jobs = settings.jobs.value_or(0);
  o.read.max_bytes = settings.max_file_size.value_or(source::ReadOptions{}.max_bytes);
  o.budget.time = time_budget(settings.max_file_time.value_or(120));
  o.budget.memory_bytes = static_cast<uint64_t>(settings.max_file_memory.value_or(2048)) << 20;
  o.discovery.force_exclude = settings.force_exclude.value_or(false);
  o.discovery.respect_gitignore = settings.respect_gitignore.value_or(true);
  o.discovery.project_context = settings.project_context.value_or(true);
  o.discovery.root = settings.root;
}

std::chrono::milliseconds time_budget(double seconds) {
  return std::chrono::milliseconds(seconds > 0 ? std::max<int64_t>(1, std::llround(seconds * 1000)) : 0);
}

bool binds_packaged_runtime(std::string_view text) {
  return text.find(fmt::format("__import__(\"{}\", globals(), level=", fix::kRuntimeModule)) != std::string_view::npos;
}

std::optional<GeneratedFile> runtime_file_to_write(const std::filesystem::path& package_root) {
  GeneratedFile g;
  g.path = package_root / fix::kRuntimeFileName;
  g.display = display_of(g.path);
  g.after = std::string(fix::runtime_source());
  std::error_code ec;
  if (std::filesystem::exists(g.path, ec)) {
    source::ReadResult r = source::read_source(g.path, g.display, {});
    if (std::holds_alternative<source::ReadError>(r)) return std::nullopt;
    g.before = std::move(std::get<source::SourceFile>(r).text);
    const std::optional<std::string> version = fix::runtime_version_of(*g.before);
    if (!version || *version == fix::runtime_version()) return std::nullopt;
  } else if (ec) {
    return std::nullopt;
  }
  return g;
}

const source::CellLayout* FileReport::disk_cells() const {
  if (!original || !original->notebook) return nullptr;
  if (&disk_text() == &original->text) return &original->notebook->layout;
  return cells ? &*cells : nullptr;
}

EncodedFile encode_final_text(const FileReport& f) {
  if (!f.original->notebook) return {source::encode_for_write(*f.original, f.text(), f.lone_crs), std::nullopt};
  if (!f.changed()) return {f.original->notebook->json, std::nullopt};
  std::optional<std::string> bytes =
      f.cells ? source::notebook_bytes(*f.original->notebook, f.text(), *f.cells) : std::nullopt;
  if (!bytes) {
    return {{}, "the fixed code no longer fits the notebook's cells (a graphmend bug: please report it); not modified"};
  }
  return {std::move(*bytes), std::nullopt};
}

const std::string& FileReport::text() const {
  static const std::string kNone;
  return fixed_ ? *fixed_ : original ? original->text : kNone;
}

void FileReport::set_text(std::string text) {
  if (original && text == original->text) {
    fixed_.reset();
  } else {
    fixed_ = std::move(text);
  }
}

int exit_code(const RunReport& report) {
  bool findings = false;
  for (const GeneratedFile& g : report.runtime_files) {
    if (g.write_error) return 2;
  }
  for (const FileReport& f : report.files) {
    if (f.error || f.write_error) return 2;
    findings |= !f.diagnostics.empty();
  }
  if (!report.discovery_errors.empty()) return 2;
  return findings || report.pending_files() > 0 ? 1 : 0;
}

size_t RunReport::pending_files() const {
  if (!dry_run) return 0;
  size_t n = 0;
  for (const FileReport& f : files) n += f.changed() && !f.error ? 1u : 0u;
  for (const GeneratedFile& g : runtime_files) n += g.write_error ? 0u : 1u;
  return n;
}

}  // namespace graphmend::driver
