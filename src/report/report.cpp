#include "graphmend/report/report.h"

#include <fmt/format.h>

#include <map>
#include <nlohmann/json.hpp>

#include "graphmend/rules/registry.h"

namespace graphmend::report {
namespace {

using nlohmann::ordered_json;

std::string_view rule_name(std::string_view code) {
  if (code == rules::kSyntaxErrorInfo.code) return rules::kSyntaxErrorInfo.name;
  if (code == rules::kTooDeepInfo.code) return rules::kTooDeepInfo.name;
  const rules::Rule* r = rules::find_rule(code);
  return r ? r->info().name : std::string_view();
}

std::string fix_status(const rules::Diagnostic& d) {
  if (d.fix) {
    return fmt::format("fix [{}]: {}", source::applicability_name(d.fix->applicability), d.fix->title);
  }
  if (d.decline_reason) return fmt::format("no fix: {}", *d.decline_reason);
  return {};  // report-only rules: the help line gives PyTorch's remedy
}

void code_frame(std::ostream& out, const driver::FileReport& f, const source::LineIndex& lines,
                const rules::Diagnostic& d) {
  const std::string_view text = f.disk_text();
  const uint32_t line = lines.line_of(d.range.start);
  const std::string_view line_text = lines.line_text(text, line);
  const uint32_t line_start = lines.line_start(line);
  const std::string num = std::to_string(line);
  const std::string pad(num.size(), ' ');
  out << fmt::format("{} |\n{} | {}\n", pad, num, line_text);
  // Caret under the range (clipped to the first line), tabs kept so columns line up.
  std::string marker;
  const uint32_t from = d.range.start - line_start;
  const uint32_t to = std::min<uint32_t>(d.range.end, line_start + static_cast<uint32_t>(line_text.size())) - line_start;
  for (uint32_t i = 0; i < from && i < line_text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(line_text[i]);
    if ((c & 0xC0) == 0x80) continue;
    marker.push_back(line_text[i] == '\t' ? '\t' : ' ');
  }
  uint32_t carets = 0;
  for (uint32_t i = from; i < to; ++i) {
    if ((static_cast<unsigned char>(line_text[i]) & 0xC0) != 0x80) ++carets;
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
    const source::LineIndex lines(f.disk_text());
    for (const rules::Diagnostic& d : f.diagnostics) {
      const auto loc = lines.location(f.disk_text(), d.range.start);
      out << fmt::format("{}: {} {}\n", style.bold(fmt::format("{}:{}:{}", f.display, loc.line, loc.column)),
                         style.red(d.code), d.message);
      if (options.format == Format::Concise) continue;
      code_frame(out, f, lines, d);
      const std::string pad(std::to_string(loc.line).size(), ' ');
      if (!d.function.empty()) {
        out << fmt::format("{} = in `{}`{}\n", pad, d.function,
                           d.region_reason.empty() ? "" : fmt::format(" ({})", d.region_reason));
      }
      if (std::string status = fix_status(d); !status.empty()) {
        out << fmt::format("{} = {}\n", pad, d.fix ? style.green(status) : style.yellow(status));
      } else if (!d.help.empty()) {
        out << fmt::format("{} = help: {}\n", pad, d.help);
      }
      out << fmt::format("{} = {}\n", pad, style.dim(fmt::format("rule: `graphmend rule {}`", d.code)));
      out << "\n";
    }
  }
}

ordered_json location_json(const source::LineIndex& lines, std::string_view text, uint32_t offset) {
  const auto loc = lines.location(text, offset);
  return ordered_json{{"row", loc.line}, {"column", loc.column}};
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
    if (f.written || (run.dry_run && f.changed())) t.fixes += static_cast<size_t>(f.fixes_applied);
    for (const auto& d : f.diagnostics) {
      ++t.by_code[std::string(d.code)];
      ++t.findings;
      if (d.fix && d.fix->applicability == source::Applicability::Safe) ++t.fixable;
      if (d.fix && d.fix->applicability == source::Applicability::Unsafe) ++t.unsafe_fixable;
    }
  }
  return t;
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
                     {"notes", f.notes}});
    const std::string_view text = f.disk_text();
    const source::LineIndex lines(text);
    for (const rules::Diagnostic& d : f.diagnostics) {
      ordered_json j;
      j["code"] = d.code;
      j["name"] = rule_name(d.code);
      j["message"] = d.message;
      j["fixable"] = d.fix.has_value();
      j["graph_break_id"] = d.graph_break_id.empty() ? ordered_json(nullptr) : ordered_json(d.graph_break_id);
      j["filename"] = f.display;
      j["location"] = location_json(lines, text, d.range.start);
      j["end_location"] = location_json(lines, text, d.range.end);
      j["range"] = {{"start", d.range.start}, {"end", d.range.end}};
      j["function"] = d.function.empty() ? ordered_json(nullptr) : ordered_json(d.function);
      j["compile_region"] = d.region_reason.empty() ? ordered_json(nullptr) : ordered_json(d.region_reason);
      if (d.fix) {
        ordered_json edits = ordered_json::array();
        for (const source::Edit& e : d.fix->edits) {
          edits.push_back({{"range", {{"start", e.range.start}, {"end", e.range.end}}},
                           {"location", location_json(lines, text, e.range.start)},
                           {"end_location", location_json(lines, text, e.range.end)},
                           {"content", e.replacement}});
        }
        j["fix"] = {{"applicability", source::applicability_name(d.fix->applicability)},
                    {"title", d.fix->title},
                    {"edits", edits}};
      } else {
        j["fix"] = nullptr;
      }
      j["decline_reason"] = d.decline_reason ? ordered_json(*d.decline_reason) : ordered_json(nullptr);
      j["help"] = d.help.empty() ? ordered_json(nullptr) : ordered_json(d.help);
      diagnostics.push_back(std::move(j));
    }
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
  out << root.dump(2) << "\n";
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
  if (t.fixes > 0) {
    line += fmt::format(", {} {} fix{}", run.dry_run ? "would apply" : "applied", t.fixes, t.fixes == 1 ? "" : "es");
  }
  if (t.findings == 0) {
    line += ": no graph-break sites found";
  } else {
    line += fmt::format(": {} finding{} ({}) in {:.1f} ms", t.findings, t.findings == 1 ? "" : "s", codes,
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
  if (options.diff) {
    for (const driver::FileReport& f : run.files) {
      if (f.changed()) out << unified_diff(f.original->text, f.text, f.display);
    }
    // The package's runtime file last: the user's own code comes first in a review.
    for (const driver::GeneratedFile& g : run.runtime_files) {
      if (!g.write_error) out << unified_diff(g.before.value_or(""), g.after, g.display);
    }
  }
  if (options.format == Format::Json) {
    emit_json(run, out);
    return;
  }
  emit_text(run, options, out);
  if (options.show_summary) out << summary_line(run) << "\n";
}

}  // namespace graphmend::report
