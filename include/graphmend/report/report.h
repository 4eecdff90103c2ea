// Emitting a run: human text with code frames, JSON (schema in docs/json-output.md), JSON lines,
// SARIF 2.1.0, GitHub workflow annotations, GitLab code quality, JUnit XML; unified diffs.
// Machine formats put the report alone on stdout.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "graphmend/driver/run.h"
#include "graphmend/fix/runtime.h"
#include "graphmend/source/edit.h"
#include "graphmend/syntax/tree.h"

namespace graphmend::report {

enum class Format { Text, Concise, Json, JsonLines, Sarif, Github, Gitlab, Junit };

// "text", "json-lines", ... (the names --output-format takes); nullopt for an unknown name.
std::optional<Format> format_named(std::string_view name);
// True for the formats meant for a program: stdout carries the report and nothing else.
bool is_machine_format(Format format);

struct EmitOptions {
  Format format = Format::Text;
  bool show_summary = true;
  bool color = false;
  bool diff = false;        // print unified diffs of changed files (text formats)
  bool statistics = false;  // counts by rule instead of the findings (text and json)
  bool show_fixes = false;  // list the fixes applied, by file and rule (text formats)
};

void emit(const driver::RunReport& run, const EmitOptions& options, std::ostream& out, std::ostream& err);

// The edits that turn `text` into what `graphmend fix` makes of it with `fix` alone: the fix's
// own edits and those of the module's generated block (the runtime binding or inline runtime,
// the site helpers), all in `text`'s coordinates, sorted and non-overlapping. Nullopt when the
// fix alone would not apply or would be reverted. `root`: `text`'s tree (SARIF fixes, the
// language server's code actions).
std::optional<std::vector<source::Edit>> whole_fix_edits(std::string_view text, const source::Fix& fix,
                                                         syntax::Parser& parser, const fix::RuntimeLink& link,
                                                         syntax::Node root);

// Unified diff of two texts (empty when equal).
std::string unified_diff(std::string_view before, std::string_view after, std::string_view path);

// The summary line: files, findings by code, elapsed time.
std::string summary_line(const driver::RunReport& run);

// At most `max_bytes` of a line around `focus` (a byte offset in it), cut at UTF-8 boundaries,
// with "…" where it was cut; `focus` is moved to index the excerpt.
std::string line_excerpt(std::string_view line, uint32_t& focus, uint32_t max_bytes = 160);

}  // namespace graphmend::report
