#include "graphmend/driver/copied_pairs.h"

#include <algorithm>
#include <functional>
#include <cctype>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "graphmend/syntax/kinds.h"

namespace graphmend::driver {

namespace {

struct Replacement {
  std::string from;
  std::string to;
};

// One definition marked as a copy: where it is, and what it is a copy of.
struct Copy {
  size_t file = 0;
  syntax::Node definition;  // the class or function definition (its `def`/`class` line on)
  std::string name;         // the definition's name, for the decline sentence
  std::string source;       // the dotted path after "Copied from"
  std::vector<Replacement> replacements;
  // The copy holds `# Ignore copy` blocks, which the copy check skips. The two sides then differ
  // as texts, and a fix passes only when it makes the same changes on both (same_changes).
  bool ignores_parts = false;
};

struct Side {
  size_t file = 0;
  syntax::Node definition;
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

std::string_view trim(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// `A->B, C->D all-casing`: each rule in order, as check_copies reads them (a rule's first word; with
// `all-casing`, the lower- and upper-case forms too).
std::vector<Replacement> parse_replacements(std::string_view spec) {
  std::vector<Replacement> out;
  while (!spec.empty()) {
    const size_t comma = spec.find(',');
    const std::string_view rule = trim(spec.substr(0, comma));
    spec = comma == std::string_view::npos ? std::string_view{} : spec.substr(comma + 1);
    const size_t space = rule.find(' ');
    const std::string_view pattern = rule.substr(0, space);
    const size_t arrow = pattern.find("->");
    if (arrow == std::string_view::npos || arrow == 0) continue;
    Replacement r{std::string(pattern.substr(0, arrow)), std::string(pattern.substr(arrow + 2))};
    const bool all_casing = space != std::string_view::npos && rule.substr(space).find("all-casing") != std::string_view::npos;
    out.push_back(r);
    if (all_casing) {
      out.push_back({lower(r.from), lower(r.to)});
      out.push_back({upper(r.from), upper(r.to)});
    }
  }
  return out;
}

std::string replaced(std::string text, const std::vector<Replacement>& replacements) {
  for (const Replacement& r : replacements) {
    if (r.from.empty()) continue;
    std::string out;
    size_t at = 0;
    for (size_t hit = text.find(r.from); hit != std::string::npos; hit = text.find(r.from, at)) {
      out.append(text, at, hit - at);
      out += r.to;
      at = hit + r.from.size();
    }
    out.append(text, at);
    text = std::move(out);
  }
  return text;
}

// A definition's text without its first line (the names differ) and with each line stripped: the
// comparison check_copies makes, give or take its formatter.
std::string normal(std::string_view text) {
  std::string out;
  size_t at = text.find('\n');
  while (at != std::string_view::npos) {
    const size_t next = text.find('\n', at + 1);
    out += trim(text.substr(at + 1, next == std::string_view::npos ? std::string_view::npos : next - at - 1));
    out += '\n';
    at = next;
  }
  return out;
}

// The line before the one `offset` is on (its line break excluded), or nullopt on the first line.
std::optional<std::string_view> line_above(std::string_view text, uint32_t offset) {
  if (offset == 0) return std::nullopt;
  const size_t line_break = text.rfind('\n', offset - 1);  // ends the line above
  if (line_break == std::string_view::npos) return std::nullopt;
  const size_t above = line_break == 0 ? std::string_view::npos : text.rfind('\n', line_break - 1);
  const size_t begin = above == std::string_view::npos ? 0 : above + 1;
  return text.substr(begin, line_break - begin);
}

// The marker a line holds, "# Copied from <dotted>[ with <spec>]", spaced as check_copies accepts it
// (`#Copied from`, several spaces): its source and replacements. `is_marker` says whether the line
// is one at all (a marker line with an empty or spaced source names nothing).
std::optional<Copy> marker_on_line(std::string_view line, bool& is_marker) {
  constexpr std::string_view kMarker = "Copied from";
  is_marker = false;
  line = trim(line);
  if (!line.starts_with('#')) return std::nullopt;
  line = trim(line.substr(1));
  if (!line.starts_with(kMarker) || line.size() == kMarker.size() || (line[kMarker.size()] != ' ' && line[kMarker.size()] != '\t')) {
    return std::nullopt;
  }
  is_marker = true;
  line = trim(line.substr(kMarker.size()));
  const size_t with = line.find(" with ");
  Copy copy;
  copy.source = std::string(trim(line.substr(0, with)));
  if (copy.source.empty() || copy.source.find_first_of(" \t") != std::string::npos) return std::nullopt;
  if (with != std::string_view::npos) copy.replacements = parse_replacements(line.substr(with + 6));
  return copy;
}

// The marker on the line above `definition` (or above its decorators).
std::optional<Copy> copy_marker(std::string_view text, syntax::Node statement, syntax::Node definition) {
  for (const uint32_t at : {definition.start(), statement.start()}) {
    const std::optional<std::string_view> above = line_above(text, at);
    if (!above) continue;
    bool is_marker = false;
    std::optional<Copy> copy = marker_on_line(*above, is_marker);
    if (is_marker) return copy;
  }
  return std::nullopt;
}

// The blocks of a compound statement that run when its scope is defined (`if`, `try`, `with`, ...),
// in which a definition is still the scope's own.
std::vector<syntax::Node> inner_blocks(syntax::Node statement) {
  std::vector<syntax::Node> out;
  if (!statement.is(kind::if_statement) && !statement.is(kind::try_statement) && !statement.is(kind::with_statement)) {
    return out;
  }
  syntax::walk(statement, [&](syntax::Node n) {
    if (n == statement) return true;
    if (n.is(kind::block)) {
      out.push_back(n);
      return false;
    }
    return !n.is(kind::function_definition) && !n.is(kind::class_definition);
  });
  return out;
}

// Each definition of a scope's block, its statement (decorated or not) first, through `if`/`try`/
// `with` blocks; into class bodies when `into_classes`.
template <class F>
void each_definition(syntax::Node block, bool into_classes, F&& visit) {
  for (syntax::Node statement : block.named_children()) {
    for (syntax::Node inner : inner_blocks(statement)) each_definition(inner, into_classes, visit);
    syntax::Node definition = statement.is(kind::decorated_definition) ? statement.field(field::definition) : statement;
    if (!definition.is(kind::function_definition) && !definition.is(kind::class_definition)) continue;
    visit(statement, definition);
    if (into_classes && definition.is(kind::class_definition)) each_definition(definition.field(field::body), true, visit);
  }
}

// The definition `path` (names joined by dots) names in `module`: a top-level class or function,
// then members of classes; the last of several with one name, as Python binds it.
syntax::Node find_definition(const ir::Module& module, std::string_view path) {
  syntax::Node scope = module.root();
  syntax::Node found;
  while (!path.empty()) {
    const size_t dot = path.find('.');
    const std::string_view name = path.substr(0, dot);
    path = dot == std::string_view::npos ? std::string_view{} : path.substr(dot + 1);
    found = {};
    each_definition(scope, false, [&](syntax::Node, syntax::Node d) {
      if (module.text(d.field(field::name)) == name) found = d;
    });
    if (found.is_null()) return {};
    if (!path.empty()) {
      if (!found.is(kind::class_definition)) return {};
      scope = found.field(field::body);
    }
  }
  return found;
}

// The fixes pending in one file, each once (the arms of a chain share theirs).
std::vector<const source::Fix*> pending_fixes(const CopiedPairFile& file, source::Applicability required) {
  std::vector<const source::Fix*> out;
  if (!file.diagnostics) return out;
  std::set<const source::Fix*> seen;
  for (const rules::Diagnostic& d : *file.diagnostics) {
    if (d.fix && d.fix->applies(required) && seen.insert(d.fix.get()).second) out.push_back(d.fix.get());
  }
  return out;
}

// Whether the edit changes the definition's text: it replaces bytes inside it, or inserts inside
// or right at its end (a statement wrapped at the end of a body gains its `else:` there).
bool touches(const source::Edit& e, const source::TextRange& definition) {
  if (e.range.empty()) return e.range.start > definition.start && e.range.start <= definition.end;
  return e.range.start < definition.end && e.range.end > definition.start;
}

bool touches(const source::Fix& fix, const source::TextRange& definition) {
  return std::any_of(fix.edits.begin(), fix.edits.end(), [&](const source::Edit& e) { return touches(e, definition); });
}

// The edits of the pending fixes that touch the definition, in order, leaving out the fixes whose
// every edit lies in `skipped`; nullopt when one of them reaches across the definition's edge or two
// overlap (apply() would skip one).
std::optional<std::vector<const source::Edit*>> touching_edits(const source::TextRange& range,
                                                               const std::vector<const source::Fix*>& fixes,
                                                               const std::vector<source::TextRange>& skipped) {
  const auto in_skipped = [&](const source::Edit& e) {
    return std::any_of(skipped.begin(), skipped.end(), [&](const source::TextRange& r) { return r.contains(e.range); });
  };
  std::vector<const source::Edit*> inside;
  for (const source::Fix* f : fixes) {
    if (!touches(*f, range)) continue;
    if (!skipped.empty() && std::all_of(f->edits.begin(), f->edits.end(), in_skipped)) continue;
    for (const source::Edit& e : f->edits) {
      if (!range.contains(e.range)) return std::nullopt;
      inside.push_back(&e);
    }
  }
  std::sort(inside.begin(), inside.end(),
            [](const source::Edit* a, const source::Edit* b) { return a->range.start < b->range.start; });
  for (size_t k = 1; k < inside.size(); ++k) {
    if (inside[k]->range.start < inside[k - 1]->range.end) return std::nullopt;
  }
  return inside;
}

// The definition's text once the pending fixes that touch it are applied.
std::optional<std::string> patched_text(const ir::Module& module, syntax::Node definition,
                                        const std::vector<const source::Fix*>& fixes) {
  const source::TextRange range = definition.range();
  const auto inside = touching_edits(range, fixes, {});
  if (!inside) return std::nullopt;
  const std::string_view text = module.text();
  std::string out;
  uint32_t at = range.start;
  for (const source::Edit* e : *inside) {
    out.append(text.substr(at, e->range.start - at));
    out += e->replacement;
    at = e->range.end;
  }
  out.append(text.substr(at, range.end - at));
  return out;
}

// The statements of `definition` that the copy check skips: each one right after an
// `# Ignore copy` comment, in the same block.
std::vector<source::TextRange> ignored_statements(const ir::Module& module, syntax::Node definition) {
  std::vector<source::TextRange> out;
  syntax::walk(definition, [&](syntax::Node n) {
    if (!n.is(kind::comment) || trim(module.text(n)) != "# Ignore copy") return true;
    syntax::Node next = n.next_named_sibling();
    while (!next.is_null() && next.is(kind::comment)) next = next.next_named_sibling();
    if (!next.is_null()) out.push_back(next.range());
    return true;
  });
  return out;
}

// The changes the pending fixes make to the definition, in order, outside the statements in
// `skipped`: each edit's replaced text and its replacement, lines stripped (after `replacements`,
// for a source).
std::optional<std::vector<std::string>> changes(const ir::Module& module, syntax::Node definition,
                                                const std::vector<const source::Fix*>& fixes,
                                                const std::vector<Replacement>& replacements,
                                                const std::vector<source::TextRange>& skipped) {
  const auto inside = touching_edits(definition.range(), fixes, skipped);
  if (!inside) return std::nullopt;
  std::vector<std::string> out;
  for (const source::Edit* e : *inside) {
    // normal() drops a first line: a newline in front keeps every line.
    out.push_back(normal("\n" + replaced(std::string(module.text().substr(e->range.start, e->range.length())), replacements)));
    out.push_back(normal("\n" + replaced(e->replacement, replacements)));
  }
  return out;
}

bool any_touches(const std::vector<const source::Fix*>& fixes, syntax::Node definition) {
  return std::any_of(fixes.begin(), fixes.end(), [&](const source::Fix* f) { return touches(*f, definition.range()); });
}

// Withholds the pending fixes that touch `definition` (every diagnostic they fix); returns how many.
size_t withhold_touching(const CopiedPairFile& file, const std::vector<const source::Fix*>& fixes,
                         syntax::Node definition, const std::string& copy_name, const std::string& source) {
  std::set<const source::Fix*> withheld;
  for (const source::Fix* f : fixes) {
    if (touches(*f, definition.range())) withheld.insert(f);
  }
  for (rules::Diagnostic& d : *file.diagnostics) {
    if (!d.fix || !withheld.contains(d.fix.get())) continue;
    d.fix.reset();
    d.decline_reason = rewrite::decline<rewrite::DeclineCode::CopiedPairWouldDiffer>(copy_name, source);
  }
  return withheld.size();
}

// `Class.method` for a method, `name` for a top-level definition.
std::string qualified_definition_name(const ir::Module& module, syntax::Node definition) {
  std::string name(module.text(definition.field(field::name)));
  for (syntax::Node n = definition.parent(); !n.is_null(); n = n.parent()) {
    if (n.is(kind::class_definition)) name = std::string(module.text(n.field(field::name))) + "." + name;
  }
  return name;
}

}  // namespace

size_t keep_copied_pairs_identical(std::span<const CopiedPairFile> files, source::Applicability required) {
  std::unordered_map<std::string_view, size_t> by_module;
  for (size_t i = 0; i < files.size(); ++i) {
    if (files[i].module) by_module.emplace(files[i].module->module_name(), i);
  }
  std::vector<std::vector<const source::Fix*>> pending(files.size());
  const auto refresh_pending = [&] {
    for (size_t i = 0; i < files.size(); ++i) pending[i] = pending_fixes(files[i], required);
  };
  refresh_pending();
  // Only a pair with a side in a file with fixes pending can have a fix withheld: none, none to
  // look for.
  const size_t fixed_files = static_cast<size_t>(std::count_if(pending.begin(), pending.end(),
                                                               [](const auto& fixes) { return !fixes.empty(); }));
  if (fixed_files == 0) return 0;
  // With few such files (an editor's, pre-commit's), a file without fixes pending matters only as
  // the copy of a definition that a pending fix touches, and its marker names that definition; so
  // it is read for copies (and parsed, where its parse was deferred) only where its text names
  // one, and only once a pass reaches it. With many, every file is, to stay linear.
  constexpr size_t kFewFixedFiles = 8;
  const bool every_file = fixed_files > kFewFixedFiles;
  std::vector<uint8_t> marked(files.size(), 0);  // the file's text has a "Copied from"
  for (size_t i = 0; i < files.size(); ++i) {
    marked[i] = files[i].module && files[i].module->text().find("Copied from") != std::string_view::npos;
  }

  // A file's marked copies with their sources found, identical to them now, each with a fix
  // pending on a side when found (fixes pending only ever shrink below: one that has none then
  // never will, and its source's module need not be read).
  const auto pairs_in = [&](size_t i) {
    std::vector<std::pair<Copy, Side>> pairs;
    const ir::Module* module = files[i].module;
    each_definition(module->root(), true, [&](syntax::Node statement, syntax::Node definition) {
      std::optional<Copy> copy = copy_marker(module->text(), statement, definition);
      if (!copy) return;
      const bool copy_touched = any_touches(pending[i], definition);
      copy->file = i;
      copy->definition = definition;
      copy->name = module->module_name() + "." + qualified_definition_name(*module, definition);
      // The longest dotted prefix that names an analysed module; the rest names the definition.
      for (size_t dot = copy->source.rfind('.'); dot != std::string::npos && dot > 0;
           dot = copy->source.rfind('.', dot - 1)) {
        const auto it = by_module.find(std::string_view(copy->source).substr(0, dot));
        if (it == by_module.end()) continue;
        if (!copy_touched && pending[it->second].empty()) break;
        const syntax::Node source = find_definition(*files[it->second].module, std::string_view(copy->source).substr(dot + 1));
        if (source.is_null() || (it->second == i && source.range() == definition.range())) break;
        const std::string copied = replaced(std::string(files[it->second].module->text(source)), copy->replacements);
        copy->ignores_parts = module->text(definition).find("# Ignore copy") != std::string_view::npos;
        if (copy->ignores_parts || normal(copied) == normal(module->text(definition))) {
          pairs.push_back({std::move(*copy), {it->second, source}});
        }
        break;
      }
    });
    return pairs;
  };
  std::vector<std::optional<std::vector<std::pair<Copy, Side>>>> pairs_of(files.size());

  size_t withheld = 0;
  for (size_t withheld_in_pass = 1; withheld_in_pass > 0;) {
    withheld_in_pass = 0;
    refresh_pending();
    std::vector<std::string> touched;  // `module.Class.method`: each definition a pending fix touches
    if (!every_file) {
      for (size_t i = 0; i < files.size(); ++i) {
        if (pending[i].empty()) continue;
        const ir::Module& module = *files[i].module;
        each_definition(module.root(), true, [&](syntax::Node, syntax::Node definition) {
          if (any_touches(pending[i], definition)) {
            touched.push_back(module.module_name() + "." + qualified_definition_name(module, definition));
          }
        });
      }
    }
    using Searcher = std::boyer_moore_horspool_searcher<std::string::const_iterator>;
    std::vector<Searcher> names;  // a name's first letter is too common to scan for
    for (const std::string& name : touched) names.emplace_back(name.begin(), name.end());
    const auto names_a_touched_definition = [&](size_t i) {
      const std::string_view text = files[i].module->text();
      return std::any_of(names.begin(), names.end(), [&](const Searcher& name) {
        return std::search(text.begin(), text.end(), name) != text.end();
      });
    };
    // Whether a file without fixes pending may hold, as told by its text alone, the copy of a
    // definition a pending fix touches that equals it now: a marker line naming such a
    // definition, where each line of the definition (stripped, the marker's replacements made)
    // is in the text; or a copy that ignores parts of itself. Every marker is such a line, so a
    // file that has none holds no pair that a pass would not pass over.
    const auto may_copy_a_touched_definition = [&](size_t i) {
      const std::string_view text = files[i].module->text();
      if (text.find("# Ignore copy") != std::string_view::npos) return true;
      for (size_t at = text.find("Copied from"); at != std::string_view::npos; at = text.find("Copied from", at + 1)) {
        const size_t line_break = text.rfind('\n', at);
        const size_t begin = line_break == std::string_view::npos ? 0 : line_break + 1;
        bool is_marker = false;
        const std::optional<Copy> copy = marker_on_line(text.substr(begin, text.find('\n', at) - begin), is_marker);
        if (!copy) continue;
        // The source, found as pairs_in finds it.
        for (size_t dot = copy->source.rfind('.'); dot != std::string::npos && dot > 0;
             dot = copy->source.rfind('.', dot - 1)) {
          const auto it = by_module.find(std::string_view(copy->source).substr(0, dot));
          if (it == by_module.end()) continue;
          if (pending[it->second].empty()) break;
          const ir::Module& source_module = *files[it->second].module;
          const syntax::Node source = find_definition(source_module, std::string_view(copy->source).substr(dot + 1));
          if (source.is_null() || !any_touches(pending[it->second], source)) break;
          const std::string expected = normal(replaced(std::string(source_module.text(source)), copy->replacements));
          bool every_line = true;
          for (size_t from = 0; from < expected.size() && every_line;) {
            const size_t to = std::min(expected.find('\n', from), expected.size());
            every_line = text.find(std::string_view(expected).substr(from, to - from)) != std::string_view::npos;
            from = to + 1;
          }
          if (every_line) return true;
          break;
        }
      }
      return false;
    };
    // The pairs in file order, as a pass over all of them would meet them; a file skipped holds
    // only pairs whose sides no pending fix touches, or that are not identical now, which such a
    // pass would pass over.
    for (size_t i = 0; i < files.size() && withheld_in_pass == 0; ++i) {
      if (!marked[i] || (!every_file && pending[i].empty() &&
                         !(names_a_touched_definition(i) && may_copy_a_touched_definition(i)))) {
        continue;
      }
      if (!pairs_of[i]) pairs_of[i] = pairs_in(i);
      for (const auto& [copy, source] : *pairs_of[i]) {
        const std::vector<const source::Fix*>& copy_fixes = pending[copy.file];
        const std::vector<const source::Fix*>& source_fixes = pending[source.file];
        if (!any_touches(copy_fixes, copy.definition) && !any_touches(source_fixes, source.definition)) continue;
        const std::optional<std::string> patched_copy = patched_text(*files[copy.file].module, copy.definition, copy_fixes);
        const std::optional<std::string> patched_source =
            patched_text(*files[source.file].module, source.definition, source_fixes);
        if (copy.ignores_parts) {
          const auto copy_changes = changes(*files[copy.file].module, copy.definition, copy_fixes, {},
                                            ignored_statements(*files[copy.file].module, copy.definition));
          const auto source_changes =
              changes(*files[source.file].module, source.definition, source_fixes, copy.replacements, {});
          if (copy_changes && source_changes && *copy_changes == *source_changes) continue;
        } else if (patched_copy && patched_source &&
                   normal(replaced(*patched_source, copy.replacements)) == normal(*patched_copy)) {
          continue;
        }
        // A side whose fixes are not applied in this pass (diagnostics null) has none pending.
        if (files[copy.file].diagnostics) {
          withheld_in_pass += withhold_touching(files[copy.file], copy_fixes, copy.definition, copy.name, copy.source);
        }
        if (files[source.file].diagnostics) {
          withheld_in_pass += withhold_touching(files[source.file], source_fixes, source.definition, copy.name, copy.source);
        }
        if (withheld_in_pass > 0) break;  // the pending fixes changed: start the pass again
      }
    }
    withheld += withheld_in_pass;
  }
  return withheld;
}

}  // namespace graphmend::driver
