#include "graphmend/report/report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>

#include "graphmend/fix/verify.h"
#include "graphmend/rules/registry.h"
#include "graphmend/rules/rule_docs.h"
#include "graphmend/source/source_file.h"
#include "graphmend/syntax/tree.h"

namespace graphmend::report {
namespace {

using nlohmann::ordered_json;
// A JSON string is Unicode: a byte that is not UTF-8 (in a file name) is written as U+FFFD.
constexpr auto kReplaceInvalidUtf8 = ordered_json::error_handler_t::replace;

// Where an offset of a file's disk_text() is, as reports print it: line and column in the file,
// or for a notebook in its cell (source/notebook.h), with the cell's number.
struct Place {
  std::optional<uint32_t> cell;  // a notebook's cell, 1-based over all cells
  uint32_t line = 1;
  uint32_t column = 1;

  // "3:9", or "cell 2:3:9" in a notebook.
  [[nodiscard]] std::string text() const {
    return cell ? fmt::format("cell {}:{}:{}", *cell, line, column) : fmt::format("{}:{}", line, column);
  }
};

// The Place of offsets in one file's disk_text(), its line index built once.
class Locator {
 public:
  explicit Locator(const driver::FileReport& f)
      : text_(f.disk_text()),
        lines_(text_),
        notebook_(f.original ? f.original->notebook.get() : nullptr),
        cells_(f.disk_cells()),
        // A notebook's code frames show its IPython lines, not their stand-ins.
        shown_(notebook_ && cells_ ? source::shown_text(*notebook_, text_, *cells_) : std::string()) {}

  [[nodiscard]] Place at(uint32_t offset) const {
    if (notebook_ && cells_) {
      const source::CellPlace p = source::locate(*notebook_, text_, *cells_, offset);
      return {p.cell, p.line, p.column};
    }
    const source::LineColumn lc = lines_.location(text_, offset);
    return {std::nullopt, lc.line, lc.column};
  }
  // The text a code frame quotes.
  [[nodiscard]] std::string_view text() const { return notebook_ && cells_ ? std::string_view(shown_) : text_; }
  [[nodiscard]] const source::LineIndex& lines() const { return lines_; }
  [[nodiscard]] bool notebook() const { return notebook_ != nullptr; }

 private:
  std::string_view text_;
  source::LineIndex lines_;
  const source::Notebook* notebook_;
  const source::CellLayout* cells_;
  std::string shown_;
};

std::string fix_status(const rules::Diagnostic& d) {
  if (d.fix) {
    return fmt::format("fix [{}]: {}", source::applicability_name(d.fix->applicability), d.fix->title);
  }
  if (d.decline_reason) return fmt::format("no fix: {}", rewrite::render(*d.decline_reason));
  return {};  // report-only rules: the help line gives PyTorch's remedy
}

bool continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Messages quote source; a text report shows at most this much of one.
constexpr size_t kMaxMessageBytes = 400;

std::string bounded_message(std::string_view message) {
  if (message.size() <= kMaxMessageBytes) return std::string(message);
  size_t cut = kMaxMessageBytes;
  while (cut > 0 && continuation(message[cut])) --cut;
  return std::string(message.substr(0, cut)) + "…";
}

// The line holding the diagnostic's start, numbered `shown` (its line in a notebook's cell).
void code_frame(std::ostream& out, std::string_view text, const source::LineIndex& lines,
                const rules::Diagnostic& d, uint32_t shown) {
  const uint32_t line = lines.line_of(d.range.start);
  const std::string_view full_line = lines.line_text(text, line);
  const uint32_t line_start = lines.line_start(line);
  uint32_t from = d.range.start - line_start;
  const uint32_t full_to =
      std::min<uint32_t>(d.range.end, line_start + static_cast<uint32_t>(full_line.size())) - line_start;
  const uint32_t shift = from;
  const std::string line_text = line_excerpt(full_line, from);
  // The caret end moves with the excerpt; it stops at the excerpt's end.
  const uint32_t to = std::min<uint32_t>(from + (full_to - shift), static_cast<uint32_t>(line_text.size()));
  const std::string num = std::to_string(shown);
  const std::string pad(num.size(), ' ');
  out << fmt::format("{} |\n{} | {}\n", pad, num, line_text);
  // Caret under the range (clipped to the first line), tabs kept so columns line up.
  std::string marker;
  for (uint32_t i = 0; i < from && i < line_text.size(); ++i) {
    if (continuation(line_text[i])) continue;
    marker.push_back(line_text[i] == '\t' ? '\t' : ' ');
  }
  uint32_t carets = 0;
  for (uint32_t i = from; i < to; ++i) {
    if (!continuation(line_text[i])) ++carets;
  }
  marker.append(std::max<uint32_t>(carets, 1), '^');
  out << fmt::format("{} | {}\n", pad, marker);
}

// ANSI styles for a terminal (EmitOptions::color); empty otherwise.
struct Style {
  bool on;
  [[nodiscard]] std::string paint(std::string_view text, std::string_view code) const {
    return on ? fmt::format("\x1b[{}m{}\x1b[0m", code, text) : std::string(text);
  }
  [[nodiscard]] std::string bold(std::string_view t) const { return paint(t, "1"); }
  [[nodiscard]] std::string red(std::string_view t) const { return paint(t, "1;31"); }
  [[nodiscard]] std::string green(std::string_view t) const { return paint(t, "32"); }
  [[nodiscard]] std::string yellow(std::string_view t) const { return paint(t, "33"); }
  [[nodiscard]] std::string dim(std::string_view t) const { return paint(t, "2"); }
};

void emit_text(const driver::RunReport& run, const EmitOptions& options, std::ostream& out) {
  const Style style{options.color};
  for (const driver::FileReport& f : run.files) {
    if (f.error || f.diagnostics.empty()) continue;
    const Locator locator(f);  // once: disk_text() compares the whole file
    for (const rules::Diagnostic& d : f.diagnostics) {
      const Place loc = locator.at(d.range.start);
      out << fmt::format("{}: {} {}\n", style.bold(fmt::format("{}:{}", f.display, loc.text())),
                         style.red(d.rule->code), bounded_message(d.message));
      if (options.format == Format::Concise) continue;
      code_frame(out, locator.text(), locator.lines(), d, loc.line);
      const std::string pad(std::to_string(loc.line).size(), ' ');
      if (!d.function.empty()) {
        out << fmt::format("{} = in `{}`{}\n", pad, d.function,
                           d.region_reason.empty() ? "" : fmt::format(" ({})", d.region_reason));
      }
      if (std::string status = fix_status(d); !status.empty()) {
        out << fmt::format("{} = {}\n", pad, d.fix ? style.green(status) : style.yellow(status));
      }
      // A site left as it is (declined, or report only) gives PyTorch's remedy for it.
      if (!d.fix && !d.help.empty()) out << fmt::format("{} = help: {}\n", pad, d.help);
      out << fmt::format("{} = {}\n", pad, style.dim(fmt::format("rule: `graphmend rule {}`", d.rule->code)));
      out << "\n";
    }
  }
}

// In a notebook, `row` is the line in the cell `cell` names.
ordered_json location_json(const Locator& locator, uint32_t offset) {
  const Place loc = locator.at(offset);
  ordered_json j{{"row", loc.line}, {"column", loc.column}};
  if (loc.cell) j["cell"] = *loc.cell;
  return j;
}

struct Totals {
  std::map<std::string, size_t> by_code;
  size_t checked = 0, skipped = 0, findings = 0;
  size_t fixes = 0;                 // written (fix), or that would be written (--diff)
  size_t fixable = 0, unsafe_fixable = 0;  // remaining findings with a safe / an unsafe fix
};

Totals totals_of(const driver::RunReport& run) {
  Totals t;
  for (const driver::FileReport& f : run.files) {
    if (f.error) {
      ++t.skipped;
      continue;
    }
    ++t.checked;
    // Only what reached the disk counts (--diff: what would).
    if (f.written || (f.from_stdin && f.changed()) || (run.dry_run && f.changed())) {
      t.fixes += static_cast<size_t>(f.fixes_applied);
    }
    for (const auto& d : f.diagnostics) {
      ++t.by_code[std::string(d.rule->code)];
      ++t.findings;
      if (d.fix && d.fix->applicability == source::Applicability::Safe) ++t.fixable;
      if (d.fix && d.fix->applicability == source::Applicability::Unsafe) ++t.unsafe_fixable;
    }
  }
  return t;
}

// `locator` is over f.disk_text(), made once per file by the caller (it compares the whole file).
ordered_json diagnostic_json(const driver::FileReport& f, const Locator& locator, const rules::Diagnostic& d) {
  ordered_json j;
  j["code"] = d.rule->code;
  j["name"] = d.rule->name;
  j["message"] = d.message;
  j["fixable"] = d.fix != nullptr;
  j["graph_break_id"] = d.graph_break ? ordered_json(rules::id_of(*d.graph_break)) : ordered_json(nullptr);
  j["filename"] = f.display;
  if (locator.notebook()) j["cell"] = location_json(locator, d.range.start)["cell"];
  j["location"] = location_json(locator, d.range.start);
  j["end_location"] = location_json(locator, d.range.end);
  j["range"] = {{"start", d.range.start}, {"end", d.range.end}};
  j["function"] = d.function.empty() ? ordered_json(nullptr) : ordered_json(d.function);
  j["compile_region"] = d.region_reason.empty() ? ordered_json(nullptr) : ordered_json(d.region_reason);
  if (d.fix) {
    ordered_json edits = ordered_json::array();
    for (const source::Edit& e : d.fix->edits) {
      edits.push_back({{"range", {{"start", e.range.start}, {"end", e.range.end}}},
                       {"location", location_json(locator, e.range.start)},
                       {"end_location", location_json(locator, e.range.end)},
                       {"content", e.replacement}});
    }
    j["fix"] = {{"applicability", source::applicability_name(d.fix->applicability)},
                {"title", d.fix->title},
                {"unsafe_code", d.fix->unsafe_code.empty() ? ordered_json(nullptr) : ordered_json(d.fix->unsafe_code)},
                {"edits", edits}};
  } else {
    j["fix"] = nullptr;
  }
  j["decline_reason"] = d.decline_reason ? ordered_json(rewrite::render(*d.decline_reason)) : ordered_json(nullptr);
  j["decline_code"] =
      d.decline_reason ? ordered_json(rewrite::code_name(d.decline_reason->code)) : ordered_json(nullptr);
  j["help"] = d.help.empty() ? ordered_json(nullptr) : ordered_json(d.help);
  return j;
}

void emit_json(const driver::RunReport& run, std::ostream& out) {
  ordered_json diagnostics = ordered_json::array();
  ordered_json errors = ordered_json::array();
  ordered_json files = ordered_json::array();
  for (const driver::DiscoveryError& e : run.discovery_errors) {
    errors.push_back({{"filename", e.display}, {"kind", "discovery"}, {"message", e.message}});
  }
  for (const driver::FileReport& f : run.files) {
    if (f.error) {
      errors.push_back({{"filename", f.display}, {"kind", "read"}, {"message", f.error->message}});
      continue;
    }
    if (f.write_error) {
      errors.push_back({{"filename", f.display}, {"kind", "write"}, {"message", *f.write_error}});
    }
    files.push_back({{"filename", f.display},
                     {"fixes_applied", f.fixes_applied},
                     {"changed", f.changed()},
                     {"written", f.written},
                     {"notes", f.notes},
                     {"warnings", f.warnings},
                     {"fixed", f.fixed_codes}});
    const Locator locator(f);
    for (const rules::Diagnostic& d : f.diagnostics) diagnostics.push_back(diagnostic_json(f, locator, d));
  }
  const Totals t = totals_of(run);
  ordered_json summary = {{"files_checked", t.checked},
                          {"files_skipped", t.skipped},
                          {"findings", t.findings},
                          {"by_code", t.by_code},
                          {"fixes_applied", run.dry_run ? 0 : t.fixes},
                          {"fixes_pending", run.dry_run ? t.fixes : 0},
                          {"fixable", t.fixable},
                          {"unsafe_fixable", t.unsafe_fixable},
                          {"compiled_functions", run.compiled_functions},
                          {"elapsed_ms", run.elapsed_ms}};
  ordered_json runtime_files = ordered_json::array();
  for (const driver::GeneratedFile& g : run.runtime_files) {
    runtime_files.push_back({{"filename", g.display},
                             {"created", !g.before.has_value()},
                             {"written", g.written},
                             {"error", g.write_error ? ordered_json(*g.write_error) : ordered_json(nullptr)}});
    if (g.write_error) errors.push_back({{"filename", g.display}, {"kind", "write"}, {"message", *g.write_error}});
  }
  ordered_json root = {{"schema_version", 1},
                       {"tool", {{"name", "graphmend"}, {"version", GRAPHMEND_VERSION}}},
                       {"diagnostics", diagnostics},
                       {"errors", errors},
                       {"files", files},
                       {"runtime_files", runtime_files},
                       {"summary", summary},
                       {"exit_code", driver::exit_code(run)}};
  out << root.dump(2, ' ', false, kReplaceInvalidUtf8) << "\n";
}

}  // namespace

std::string summary_line(const driver::RunReport& run) {
  const Totals t = totals_of(run);
  std::string codes;
  for (const auto& [code, n] : t.by_code) {
    codes += fmt::format("{}{}: {}", codes.empty() ? "" : ", ", code, n);
  }
  std::string line = fmt::format("Checked {} file{}", t.checked, t.checked == 1 ? "" : "s");
  if (t.skipped > 0) line += fmt::format(" ({} skipped)", t.skipped);
  // A path that could not be found or read is an error, never "nothing found".
  const size_t unread = run.discovery_errors.size();
  if (unread > 0) line += fmt::format("; {} path{} could not be read", unread, unread == 1 ? "" : "s");
  if (t.fixes > 0) {
    line += fmt::format(", {} {} fix{}", run.dry_run ? "would apply" : "applied", t.fixes, t.fixes == 1 ? "" : "es");
  }
  // After fixes, what is counted is what they leave.
  const std::string_view left = t.fixes == 0 ? "" : run.dry_run ? " would be left" : " left";
  if (t.findings == 0 && (unread > 0 || t.skipped > 0)) {
    line += fmt::format(": no graph-break sites{} in the files read", t.fixes == 0 ? " found" : left);
  } else if (t.findings == 0) {
    line += fmt::format(": no graph-break sites{}", t.fixes == 0 ? " found" : left);
  } else {
    line += fmt::format(": {} finding{}{} ({}) in {:.1f} ms", t.findings, t.findings == 1 ? "" : "s", left, codes,
                        run.elapsed_ms);
    std::vector<std::string> more;
    if (t.fixable > 0) more.push_back(fmt::format("{} fixable with `graphmend fix`", t.fixable));
    if (t.unsafe_fixable > 0) {
      more.push_back(fmt::format("{} {}with `--unsafe-fixes`", t.unsafe_fixable, t.fixable > 0 ? "more " : "fixable "));
    }
    for (size_t i = 0; i < more.size(); ++i) line += (i ? ", " : "; ") + more[i];
    return line;
  }
  line += fmt::format(" in {:.1f} ms", run.elapsed_ms);
  return line;
}

namespace {

void emit_json_lines(const driver::RunReport& run, std::ostream& out) {
  for (const driver::FileReport& f : run.files) {
    if (f.error || f.diagnostics.empty()) continue;
    const Locator locator(f);
    for (const rules::Diagnostic& d : f.diagnostics) {
      out << diagnostic_json(f, locator, d).dump(-1, ' ', false, kReplaceInvalidUtf8) << "\n";
    }
  }
}

// A relative path as a SARIF/URI reference: '/' separators, anything outside RFC 3986's
// unreserved set percent-encoded.
std::string uri_of(std::string_view path) {
  std::string out;
  for (const char c : path) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out.push_back(c);
    } else {
      out += fmt::format("%{:02X}", u);
    }
  }
  return out;
}

std::string_view rule_markdown(std::string_view code) {
  for (const rules::RuleDoc& doc : rules::rule_docs()) {
    if (doc.code == code) return doc.markdown;
  }
  return {};
}

std::string_view level_of(const rules::RuleInfo& info) {
  return &info == &rules::kUnusedNoqaInfo ? "warning" : "error";
}

// Applies sorted, non-overlapping edits from the last to the first, so earlier offsets hold.
std::string applied(std::string_view text, const std::vector<source::Edit>& edits) {
  std::string out(text);
  for (auto it = edits.rbegin(); it != edits.rend(); ++it) {
    out.replace(it->range.start, it->range.length(), it->replacement);
  }
  return out;
}

// A position in the text a batch of edits made, in the coordinates of the text before them;
// nullopt inside (or at either end of) what an edit wrote.
std::optional<uint32_t> before_batch(uint32_t at, const std::vector<source::Edit>& batch) {
  int64_t delta = 0;
  for (const source::Edit& e : batch) {
    const int64_t written_start = static_cast<int64_t>(e.range.start) + delta;
    const int64_t written_end = written_start + static_cast<int64_t>(e.replacement.size());
    if (at < written_start) break;
    if (at <= written_end) return std::nullopt;
    delta += static_cast<int64_t>(e.replacement.size()) - static_cast<int64_t>(e.range.length());
  }
  return static_cast<uint32_t>(at - delta);
}

}  // namespace

std::optional<std::vector<source::Edit>> whole_fix_edits(std::string_view text, const source::Fix& one,
                                                         syntax::Parser& parser, const fix::RuntimeLink& link,
                                                         syntax::Node root) {
  const fix::VerifiedResult v = fix::apply_and_verify(text, {&one}, parser, link, root);
  if (v.reverted || v.applied.applied.empty()) return std::nullopt;
  const std::string& after = v.applied.text;
  if (after == text) return std::nullopt;
  // The batches (the fixes, then the block; or both at once) as one, in `text`'s coordinates.
  std::vector<source::Edit> edits;
  if (!v.edit_batches.empty() && v.edit_batches.size() <= 2) {
    edits = v.edit_batches[0];
    if (v.edit_batches.size() == 2) {
      for (const source::Edit& e : v.edit_batches[1]) {
        const auto start = before_batch(e.range.start, v.edit_batches[0]);
        const auto end = before_batch(e.range.end, v.edit_batches[0]);
        if (!start || !end || *end - *start != e.range.length()) {
          edits.clear();
          break;
        }
        edits.push_back({{*start, *end}, e.replacement});
      }
    }
    std::sort(edits.begin(), edits.end());
    // Edits that touch become one, so that no two replacements meet and any order of applying
    // them gives the same text.
    std::vector<source::Edit> joined;
    for (source::Edit& e : edits) {
      if (joined.empty() || e.range.start > joined.back().range.end) {
        joined.push_back(std::move(e));
      } else if (e.range.start == joined.back().range.end) {
        joined.back().range.end = e.range.end;
        joined.back().replacement += e.replacement;
      } else {
        joined.clear();  // overlapping: spelled out below instead
        break;
      }
    }
    edits = std::move(joined);
  }
  if (!edits.empty() && applied(text, edits) == after) return edits;
  // Otherwise one replacement of what differs, cut at character boundaries.
  size_t prefix = 0;
  while (prefix < text.size() && prefix < after.size() && text[prefix] == after[prefix]) ++prefix;
  size_t suffix = 0;
  while (suffix < text.size() - prefix && suffix < after.size() - prefix &&
         text[text.size() - 1 - suffix] == after[after.size() - 1 - suffix]) {
    ++suffix;
  }
  while (prefix > 0 && continuation(text[prefix])) --prefix;
  while (suffix > 0 && continuation(text[text.size() - suffix])) --suffix;
  const auto start = static_cast<uint32_t>(prefix);
  const auto end = static_cast<uint32_t>(text.size() - suffix);
  return std::vector<source::Edit>{{{start, end}, after.substr(prefix, after.size() - suffix - prefix)}};
}

namespace {

// SARIF text regions of one file: 1-based lines and columns in code points, as the results'
// regions, with the same span as `charOffset`/`charLength` (code points from the start of the
// text, after a UTF-8 BOM).
class SarifRegions {
 public:
  explicit SarifRegions(std::string_view text) : text_(text), lines_(text) {}

  ordered_json region(uint32_t start, uint32_t end) {
    const auto from = lines_.location(text_, start);
    const auto to = lines_.location(text_, end);
    const uint32_t offset = chars_before(from);
    return {{"startLine", from.line},   {"startColumn", from.column},
            {"endLine", to.line},       {"endColumn", to.column},
            {"charOffset", offset},     {"charLength", chars_before(to) - offset}};
  }

 private:
  uint32_t chars_before(source::LineColumn at) {
    if (line_chars_.empty()) {  // code points before each line's start
      line_chars_.reserve(lines_.line_count());
      uint32_t chars = 0;
      uint32_t offset = 0;
      for (uint32_t line = 1; line <= lines_.line_count(); ++line) {
        for (const uint32_t start = lines_.line_start(line); offset < start; ++offset) {
          if (!continuation(text_[offset])) ++chars;
        }
        line_chars_.push_back(chars);
      }
    }
    return line_chars_[at.line - 1] + at.column - 1;
  }

  std::string_view text_;
  source::LineIndex lines_;
  std::vector<uint32_t> line_chars_;
};

ordered_json sarif_replacement(ordered_json region, std::string_view inserted) {
  ordered_json r = {{"deletedRegion", std::move(region)}};
  if (!inserted.empty()) r["insertedContent"] = {{"text", inserted}};  // absent: a deletion
  return r;
}

// A result's `fixes`: the fix as `graphmend fix` applies it alone (whole_fix_edits), with the
// runtime file it needs beside a package's module when that file is missing or stale.
// The runtime files `fix` would write, by package root (each looked at once).
using RuntimeFiles = std::map<std::filesystem::path, std::optional<driver::GeneratedFile>>;

ordered_json sarif_fix(const driver::FileReport& f, std::string_view text, SarifRegions& regions,
                       const source::Fix& one, const std::vector<source::Edit>& edits, RuntimeFiles& runtime_files) {
  ordered_json replacements = ordered_json::array();
  const bool cr_only = f.original && f.original->cr_only;  // `text` holds its CRs as LF
  for (const source::Edit& e : edits) {
    std::string inserted = e.replacement;
    if (cr_only) std::replace(inserted.begin(), inserted.end(), '\n', '\r');
    replacements.push_back(sarif_replacement(regions.region(e.range.start, e.range.end), inserted));
  }
  ordered_json changes = ordered_json::array();
  changes.push_back({{"artifactLocation", {{"uri", uri_of(f.display)}}}, {"replacements", std::move(replacements)}});
  const std::optional<driver::GeneratedFile>* runtime = nullptr;
  if (f.package_root && f.link.package_level && driver::binds_packaged_runtime(applied(text, edits))) {
    auto [it, fresh] = runtime_files.try_emplace(*f.package_root);
    if (fresh) it->second = driver::runtime_file_to_write(*f.package_root);
    runtime = &it->second;
  }
  if (runtime && *runtime) {
    // A missing file: inserted whole into an empty one. A stale one: its text replaced whole.
    const std::string before = (*runtime)->before.value_or("");
    SarifRegions old(before);
    changes.push_back({{"artifactLocation", {{"uri", uri_of((*runtime)->display)}}},
                       {"replacements", {sarif_replacement(old.region(0, static_cast<uint32_t>(before.size())),
                                                           (*runtime)->after)}}});
  }
  return {{"description", {{"text", one.title}}},
          {"artifactChanges", std::move(changes)},
          {"properties", {{"applicability", source::applicability_name(one.applicability)}}}};
}

void emit_sarif(const driver::RunReport& run, std::ostream& out) {
  ordered_json rules_json = ordered_json::array();
  std::map<const rules::RuleInfo*, size_t> rule_index;
  for (const rules::RuleInfo* info : rules::all_rule_infos()) {
    rule_index[info] = rules_json.size();
    ordered_json r = {{"id", info->code},
                      {"name", info->name},
                      {"shortDescription", {{"text", info->summary}}},
                      {"defaultConfiguration", {{"level", level_of(*info)}}}};
    if (const std::string_view md = rule_markdown(info->code); !md.empty()) {
      r["help"] = {{"text", md}, {"markdown", md}};
    }
    if (info->graph_break) r["properties"] = {{"graph_break_id", rules::id_of(*info->graph_break)}};
    rules_json.push_back(std::move(r));
  }
  ordered_json results = ordered_json::array();
  ordered_json notifications = ordered_json::array();
  const auto notify = [&](std::string_view file, std::string_view message) {
    notifications.push_back({{"level", "error"},
                             {"message", {{"text", fmt::format("{}: {}", file, message)}}},
                             {"locations", {{{"physicalLocation", {{"artifactLocation", {{"uri", uri_of(file)}}}}}}}}});
  };
  for (const driver::DiscoveryError& e : run.discovery_errors) notify(e.display, e.message);
  syntax::Parser parser;
  RuntimeFiles runtime_files;
  for (const driver::FileReport& f : run.files) {
    if (f.error) notify(f.display, f.error->message);
    if (f.write_error) notify(f.display, fmt::format("cannot write: {}", *f.write_error));
    if (f.error || f.diagnostics.empty()) continue;
    const std::string_view text = f.disk_text();
    const Locator locator(f);
    // Parsed once, for the files with a fix to spell out.
    std::optional<syntax::Tree> tree;
    std::optional<SarifRegions> regions;
    std::map<const source::Fix*, std::optional<std::vector<source::Edit>>> whole;  // chain arms share one
    for (const rules::Diagnostic& d : f.diagnostics) {
      const Place start = locator.at(d.range.start);
      const Place end = locator.at(d.range.end);
      ordered_json result = {
          {"ruleId", d.rule->code},
          {"level", level_of(*d.rule)},
          {"message", {{"text", d.message}}},
          {"locations",
           {{{"physicalLocation",
              {{"artifactLocation", {{"uri", uri_of(f.display)}}},
               {"region",
                {{"startLine", start.line},
                 {"startColumn", start.column},
                 {"endLine", end.line},
                 {"endColumn", end.column}}}}}}}}};
      if (start.cell) {
        // In a notebook the region's lines are the cell's; the location says which cell.
        result["locations"][0]["properties"] = {{"cell", *start.cell}};
        result["locations"][0]["logicalLocations"] = {{{"name", fmt::format("cell {}", *start.cell)}, {"kind", "cell"}}};
      }
      if (auto it = rule_index.find(d.rule); it != rule_index.end()) result["ruleIndex"] = it->second;
      ordered_json properties = ordered_json::object();
      if (!d.function.empty()) properties["function"] = d.function;
      if (d.fix) {
        properties["fix"] = {{"applicability", source::applicability_name(d.fix->applicability)},
                             {"title", d.fix->title}};
        if (!d.fix->unsafe_code.empty()) properties["fix"]["unsafe_code"] = d.fix->unsafe_code;
      }
      if (d.decline_reason) {
        properties["decline_reason"] = rewrite::render(*d.decline_reason);
        properties["decline_code"] = rewrite::code_name(d.decline_reason->code);
      }
      // A notebook's replacements would be in its joined code, not in its JSON: none are spelled out.
      if (d.fix && !locator.notebook()) {
        if (!regions) {
          tree = parser.parse(text);
          regions.emplace(text);
        }
        auto [it, fresh] = whole.try_emplace(d.fix.get());
        if (fresh) {
          const syntax::Node root = tree && !tree->has_error() ? tree->root() : syntax::Node{};
          it->second = whole_fix_edits(text, *d.fix, parser, f.link, root);
        }
        if (it->second) result["fixes"] = {sarif_fix(f, text, *regions, *d.fix, *it->second, runtime_files)};
      }
      if (!properties.empty()) result["properties"] = std::move(properties);
      results.push_back(std::move(result));
    }
  }
  ordered_json invocation = {{"executionSuccessful", driver::exit_code(run) != 2}};
  if (!notifications.empty()) invocation["toolExecutionNotifications"] = std::move(notifications);
  ordered_json root = {
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs",
       {{{"tool",
          {{"driver",
            {{"name", "graphmend"},
             {"version", GRAPHMEND_VERSION},
             {"informationUri", "https://github.com/graphmend/graphmend"},
             {"rules", std::move(rules_json)}}}}},
         {"invocations", {std::move(invocation)}},
         {"columnKind", "unicodeCodePoints"},
         {"results", std::move(results)}}}}};
  out << root.dump(2, ' ', false, kReplaceInvalidUtf8) << "\n";
}

// GitHub workflow commands: `%`, CR and LF escaped in the message; `:` and `,` too in properties.
// `text` with each byte that is not UTF-8 (a file name may hold any byte) as `invalid`.
template <typename Invalid>
std::string with_invalid_bytes_as(std::string_view text, Invalid invalid) {
  std::string out;
  while (!text.empty()) {
    const std::optional<size_t> bad = source::find_invalid_utf8(text);
    if (!bad) break;
    out.append(text.substr(0, *bad));
    out += invalid(static_cast<unsigned char>(text[*bad]));
    text.remove_prefix(*bad + 1);
  }
  out.append(text);
  return out;
}

std::string github_escape(std::string_view raw, bool property) {
  // Workflow commands are UTF-8 text: a byte that is not becomes U+FFFD, as in every JSON report.
  const std::string text = with_invalid_bytes_as(raw, [](unsigned char) { return std::string("\xEF\xBF\xBD"); });
  std::string out;
  for (const char c : text) {
    if (c == '%') out += "%25";
    else if (c == '\r') out += "%0D";
    else if (c == '\n') out += "%0A";
    else if (property && c == ':') out += "%3A";
    else if (property && c == ',') out += "%2C";
    else out.push_back(c);
  }
  return out;
}

void emit_github(const driver::RunReport& run, std::ostream& out) {
  for (const driver::FileReport& f : run.files) {
    if (f.error) {
      out << fmt::format("::error file={}::{}\n", github_escape(f.display, true), github_escape(f.error->message, false));
      continue;
    }
    const Locator locator(f);
    for (const rules::Diagnostic& d : f.diagnostics) {
      const Place start = locator.at(d.range.start);
      const Place end = locator.at(d.range.end);
      if (start.cell) {
        // A line of a notebook's cell is no line of its file: the annotation is on the file.
        out << fmt::format("::{} title=graphmend ({}),file={}::{}\n", level_of(*d.rule), d.rule->code,
                           github_escape(f.display, true),
                           github_escape(fmt::format("{}:{}: {} {}", f.display, start.text(), d.rule->code, d.message),
                                         false));
        continue;
      }
      out << fmt::format("::{} title=graphmend ({}),file={},line={},col={},endLine={},endColumn={}::{}\n",
                         level_of(*d.rule), d.rule->code, github_escape(f.display, true),
                         start.line, start.column, end.line, end.column,
                         github_escape(fmt::format("{}:{}:{}: {} {}", f.display, start.line, start.column, d.rule->code,
                                                   d.message),
                                       false));
    }
  }
}

// FNV-1a, 64 bits: a fingerprint that is the same on every machine and run.
uint64_t fnv1a(std::string_view bytes, uint64_t hash = 14695981039346656037ull) {
  for (const char c : bytes) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return hash;
}

void emit_gitlab(const driver::RunReport& run, std::ostream& out) {
  ordered_json issues = ordered_json::array();
  for (const driver::FileReport& f : run.files) {
    if (f.error) continue;
    const std::string_view text = f.disk_text();
    const Locator locator(f);
    const source::LineIndex& lines = locator.lines();
    // Same finding, same fingerprint, wherever its line moves: path, code, message, the line's
    // text and how many identical findings came before it.
    std::map<uint64_t, int> seen;
    for (const rules::Diagnostic& d : f.diagnostics) {
      const Place start = locator.at(d.range.start);
      const Place end = locator.at(d.range.end);
      uint64_t h = fnv1a(f.display);
      h = fnv1a(d.rule->code, fnv1a("\x1f", h));
      h = fnv1a(d.message, fnv1a("\x1f", h));
      h = fnv1a(lines.line_text(text, lines.line_of(d.range.start)), fnv1a("\x1f", h));
      const int occurrence = seen[h]++;
      h = fnv1a(std::to_string(occurrence), fnv1a("\x1f", h));
      // In a notebook the lines are the cell's, and the description names the cell.
      const std::string cell = start.cell ? fmt::format("cell {}: ", *start.cell) : "";
      issues.push_back({{"description", fmt::format("{}{} {}", cell, d.rule->code, d.message)},
                        {"check_name", d.rule->code},
                        {"fingerprint", fmt::format("{:016x}", h)},
                        {"severity", level_of(*d.rule) == "error" ? "major" : "minor"},
                        {"location", {{"path", f.display}, {"lines", {{"begin", start.line}, {"end", end.line}}}}}});
    }
  }
  out << issues.dump(2, ' ', false, kReplaceInvalidUtf8) << "\n";
}

std::string xml_escape(std::string_view raw) {
  // XML is Unicode text: a byte that is not UTF-8 is written as `\xNN`, as control characters are.
  const std::string text =
      with_invalid_bytes_as(raw, [](unsigned char b) { return fmt::format("\\x{:02x}", b); });
  std::string out;
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 allows no control characters but tab and line breaks.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r') {
          out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
        } else {
          out.push_back(c);
        }
    }
  }
  return out;
}

void emit_junit(const driver::RunReport& run, std::ostream& out) {
  size_t tests = 0, failures = 0, errors = 0;
  std::string suites;
  for (const driver::FileReport& f : run.files) {
    std::string cases;
    size_t file_failures = 0;
    if (f.error) {
      ++errors;
      ++tests;
      cases += fmt::format("    <testcase name=\"graphmend\" classname=\"{}\"><error message=\"{}\"/></testcase>\n",
                           xml_escape(f.display), xml_escape(f.error->message));
    } else if (f.diagnostics.empty()) {
      ++tests;
      cases += fmt::format("    <testcase name=\"graphmend\" classname=\"{}\"/>\n", xml_escape(f.display));
    } else {
      const Locator locator(f);
      for (const rules::Diagnostic& d : f.diagnostics) {
        const Place loc = locator.at(d.range.start);
        ++tests;
        ++file_failures;
        cases += fmt::format(
            "    <testcase name=\"{} {}\" classname=\"{}\" file=\"{}\" line=\"{}\">\n"
            "      <failure message=\"{}\" type=\"{}\">{}:{}: {} {}</failure>\n    </testcase>\n",
            d.rule->code, loc.text(), xml_escape(f.display), xml_escape(f.display), loc.line,
            xml_escape(d.message), d.rule->code, xml_escape(f.display), loc.text(), d.rule->code,
            xml_escape(d.message));
      }
    }
    failures += file_failures;
    suites += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n{}  </testsuite>\n",
                          xml_escape(f.display), std::max<size_t>(1, file_failures) , file_failures,
                          f.error ? 1 : 0, cases);
  }
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out << fmt::format("<testsuites name=\"graphmend\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n{}</testsuites>\n",
                     tests, failures, errors, suites);
}

// --statistics: one row per code, most frequent first.
void emit_statistics(const driver::RunReport& run, bool json, std::ostream& out) {
  struct Row {
    const rules::RuleInfo* rule = nullptr;
    size_t count = 0;
    size_t fixable = 0;
  };
  std::map<std::string_view, Row> by_code;
  for (const driver::FileReport& f : run.files) {
    for (const rules::Diagnostic& d : f.diagnostics) {
      Row& r = by_code[d.rule->code];
      r.rule = d.rule;
      ++r.count;
      r.fixable += d.fix ? 1u : 0u;
    }
  }
  std::vector<Row> rows;
  for (auto& [code, row] : by_code) rows.push_back(row);
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.count > b.count; });
  if (json) {
    ordered_json j = ordered_json::array();
    for (const Row& r : rows) {
      j.push_back({{"code", r.rule->code}, {"name", r.rule->name}, {"count", r.count}, {"fixable", r.fixable}});
    }
    out << j.dump(2, ' ', false, kReplaceInvalidUtf8) << "\n";
    return;
  }
  for (const Row& r : rows) {
    out << fmt::format("{:>5}\t{}\t{} {}\n", r.count, r.rule->code, r.fixable ? "[*]" : "[ ]", r.rule->name);
  }
}

// --show-fixes: what was fixed (or, with --diff, would be), by file and rule.
void emit_fixes(const driver::RunReport& run, std::ostream& out) {
  size_t total = 0;
  std::string body;
  for (const driver::FileReport& f : run.files) {
    const bool counts = f.written || f.from_stdin || (run.dry_run && f.changed());
    if (!counts || f.fixed_codes.empty()) continue;
    body += fmt::format("- {}:\n", f.display);
    for (const auto& [code, n] : f.fixed_codes) {
      body += fmt::format("    {} × {} ({})\n", n, code, rules::info_of_code(code)->name);
      total += static_cast<size_t>(n);
    }
  }
  if (total == 0) return;
  out << fmt::format("{} {} fix{}:\n{}\n", run.dry_run ? "Would apply" : "Applied", total, total == 1 ? "" : "es", body);
}

}  // namespace

std::optional<Format> format_named(std::string_view name) {
  static const std::pair<std::string_view, Format> kNames[] = {
      {"text", Format::Text},   {"concise", Format::Concise}, {"json", Format::Json},     {"json-lines", Format::JsonLines},
      {"sarif", Format::Sarif}, {"github", Format::Github},   {"gitlab", Format::Gitlab}, {"junit", Format::Junit}};
  for (const auto& [n, f] : kNames) {
    if (n == name) return f;
  }
  return std::nullopt;
}

bool is_machine_format(Format format) { return format != Format::Text && format != Format::Concise; }

std::string line_excerpt(std::string_view line, uint32_t& focus, uint32_t max_bytes) {
  if (line.size() <= max_bytes) return std::string(line);
  // A third of the room before the focus, the rest after it.
  uint32_t begin = focus > max_bytes / 3 ? focus - max_bytes / 3 : 0;
  uint32_t end = std::min<uint32_t>(static_cast<uint32_t>(line.size()), begin + max_bytes);
  if (end - begin < max_bytes) begin = end > max_bytes ? end - max_bytes : 0;
  while (begin > 0 && continuation(line[begin])) --begin;
  while (end < line.size() && continuation(line[end])) ++end;
  std::string out;
  if (begin > 0) out += "…";
  const uint32_t prefix = static_cast<uint32_t>(out.size());
  out += line.substr(begin, end - begin);
  if (end < line.size()) out += "…";
  focus = focus >= begin ? focus - begin + prefix : prefix;
  return out;
}

namespace {

// A file's unified diff; a notebook's cell by cell, as ruff shows it (`nb.ipynb:cell 3`), each
// changed cell's source before and after.
std::string file_diff(const driver::FileReport& f) {
  if (!f.original->notebook) return unified_diff(f.original->text, f.text(), f.display);
  const source::Notebook& notebook = *f.original->notebook;
  const std::optional<std::vector<std::string>> after =
      f.cells ? source::cell_sources(notebook, f.text(), *f.cells) : std::nullopt;
  if (!after) return unified_diff(f.original->text, f.text(), f.display);  // not writable: see the error
  std::string out;
  for (size_t k = 0; k < notebook.cells.size(); ++k) {
    if ((*after)[k] == notebook.cells[k].source) continue;
    out += unified_diff(notebook.cells[k].source, (*after)[k], fmt::format("{}:cell {}", f.display, notebook.cells[k].number));
  }
  return out;
}

}  // namespace

void emit(const driver::RunReport& run, const EmitOptions& options, std::ostream& out, std::ostream& err) {
  for (const driver::DiscoveryError& e : run.discovery_errors) {
    err << fmt::format("error: {}: {}\n", e.display, e.message);
  }
  for (const driver::FileReport& f : run.files) {
    if (f.error) err << fmt::format("error: {}: {}\n", f.display, f.error->message);
    if (f.write_error) err << fmt::format("error: {}: cannot write: {}\n", f.display, *f.write_error);
    for (const std::string& note : f.notes) err << fmt::format("note: {}: {}\n", f.display, note);
  }
  for (const driver::GeneratedFile& g : run.runtime_files) {
    if (g.write_error) err << fmt::format("error: {}: cannot write the graphmend runtime: {}\n", g.display, *g.write_error);
  }
  // A package with many generated files (transformers has 56) would fill the screen with one
  // sentence per file: the first few in full, then the rest by name on one line.
  constexpr std::string_view kGeneratedWarning = "1: the file says it is generated";
  constexpr size_t kGeneratedInFull = 3;
  std::vector<std::string_view> more_generated;
  size_t generated = 0;
  for (const driver::FileReport& f : run.files) {
    for (const std::string& w : f.warnings) {
      if (w.starts_with(kGeneratedWarning) && ++generated > kGeneratedInFull) {
        more_generated.push_back(f.display);
        continue;
      }
      err << fmt::format("warning: {}:{}\n", f.display, w);
    }
  }
  if (!more_generated.empty()) {
    err << fmt::format("warning: {} more files say they are generated and are left to their generators alike: {}\n",
                       more_generated.size(), fmt::join(more_generated, ", "));
  }
  const bool machine = is_machine_format(options.format);
  if (options.diff && !machine) {
    for (const driver::FileReport& f : run.files) {
      if (f.changed()) out << file_diff(f);
    }
    // The package's runtime file last: the user's own code comes first in a review.
    for (const driver::GeneratedFile& g : run.runtime_files) {
      if (!g.write_error) out << unified_diff(g.before.value_or(""), g.after, g.display);
    }
  }
  if (options.statistics && (options.format == Format::Json || !machine)) {
    emit_statistics(run, options.format == Format::Json, out);
    return;
  }
  switch (options.format) {
    case Format::Json: emit_json(run, out); return;
    case Format::JsonLines: emit_json_lines(run, out); return;
    case Format::Sarif: emit_sarif(run, out); return;
    case Format::Github: emit_github(run, out); return;
    case Format::Gitlab: emit_gitlab(run, out); return;
    case Format::Junit: emit_junit(run, out); return;
    case Format::Text:
    case Format::Concise: break;
  }
  emit_text(run, options, out);
  if (options.show_fixes) emit_fixes(run, out);
  // Nothing read, and a path missing or unreadable: the errors say it all, no "Checked 0 files".
  const bool nothing_read = run.files.empty() && !run.discovery_errors.empty();
  if (options.show_summary && !nothing_read) out << summary_line(run) << "\n";
}

}  // namespace graphmend::report
