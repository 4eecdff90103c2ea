#include "graphmend/rewrite/site.h"

#include <fmt/format.h>

#include <algorithm>

#include "graphmend/analysis/api_facts.h"
#include "graphmend/analysis/totality.h"
#include "graphmend/rewrite/compiled_code.h"
#include "graphmend/rewrite/python_layout.h"
#include "graphmend/rewrite/string_literals.h"
#include "graphmend/source/generated.h"
#include "graphmend/source/text.h"

namespace graphmend::rewrite {

namespace {

// Builtin classes a helper may name directly: warning categories and exception classes.
bool is_builtin_class(std::string_view name) {
  using analysis::api::Fact;
  return analysis::api::has(analysis::api::Space::Global, name, Fact::ExceptionClass) ||
         analysis::api::has(analysis::api::Space::Global, name, Fact::WarningCategory);
}

// Displays and functions: values that can be neither carried nor named.
bool is_uncarriable(ir::Node n) {
  for (const syntax::Kind* k : {&kind::dictionary, &kind::set, &kind::list_comprehension,
                                &kind::dictionary_comprehension, &kind::set_comprehension,
                                &kind::generator_expression, &kind::lambda, &kind::await, &kind::yield}) {
    if (n.is(*k)) return true;
  }
  return false;
}

std::string readable_type(ir::Node n) {
  std::string t(n.type());
  std::replace(t.begin(), t.end(), '_', ' ');
  if (t == "dictionary") t = "dict";
  return t;
}

}  // namespace

bool is_plain_string(ir::Node n) {
  if (n.is(kind::concatenated_string)) {
    for (ir::Node part : n.named_children()) {
      if (!is_plain_string(part)) return false;
    }
    return true;
  }
  if (!n.is(kind::string)) return false;
  for (ir::Node c : n.named_children()) {
    if (c.is(kind::interpolation)) return false;
  }
  return true;
}

bool is_text_string(const ir::Module& m, ir::Node n) {
  if (n.is(kind::concatenated_string)) {
    for (ir::Node part : n.named_children()) {
      if (!is_text_string(m, part)) return false;
    }
    return true;
  }
  const std::string_view text = m.text(n);
  const size_t quote = text.find_first_of("\"'");
  return quote != std::string_view::npos && text.substr(0, quote).find_first_of("bB") == std::string_view::npos;
}

bool is_literal(ir::Node n) {
  n = ir::unparenthesize(n);
  if (n.is(kind::integer) || n.is(kind::float_) || n.is(kind::true_) || n.is(kind::false_) || n.is(kind::none)) return true;
  if (n.is(kind::unary_operator)) return is_literal(n.field(field::argument));
  return is_plain_string(n);
}

bool is_carried_literal(const ir::Module& m, ir::Node n) {
  n = ir::unparenthesize(n);
  if (n.is(kind::true_) || n.is(kind::false_) || n.is(kind::none)) return true;
  if (n.is(kind::unary_operator)) n = ir::unparenthesize(n.field(field::argument));
  if (n.is(kind::integer) || n.is(kind::float_)) return m.text(n).find_first_of("jJ") == std::string_view::npos;
  return is_plain_string(n) && is_text_string(m, n);
}

std::string SiteNamer::fresh(const std::string& prefix) {
  // Numbers only grow per prefix, so naming n sites costs O(n), not O(n^2).
  for (int& n = next_number_[prefix];; ++n) {
    std::string name = fmt::format("{}{}", prefix, n);
    if (taken_.contains(name) || module_.scopes[0].symbols.contains(name)) continue;
    taken_.insert(name);
    ++n;
    return name;
  }
}

namespace {

// FNV-1a of a helper's signature, 24 bits: a short name that the same text always gets.
uint32_t text_hash(const std::string& signature) {
  uint32_t hash = 2166136261u;
  for (const char c : signature) hash = (hash ^ static_cast<uint8_t>(c)) * 16777619u;
  return hash & 0xffffffu;
}

}  // namespace

std::string SiteNamer::own(std::string_view kind, const std::string& signature) {
  return fresh(fmt::format("_graphmend_{}_{:06x}_", kind, text_hash(signature)));
}

std::string SiteNamer::shared(std::string_view kind, const std::string& signature) {
  if (!block_read_) {
    block_read_ = true;
    if (const auto& block = module_.generated().block) {
      const std::vector<source::TextRange> statements = syntax::top_level_statements(module_.root());
      for (const source::Helper& h : source::generated_helpers(module_.text(), *block, statements)) {
        by_signature_.emplace(helper_signature(h), h.name);
      }
    }
  }
  if (auto it = by_signature_.find(signature); it != by_signature_.end()) return it->second;
  // Named from its text, not by a count in this file: code copied between files (transformers'
  // "Copied from") gets the same helper name in each copy.
  const std::string base = fmt::format("_graphmend_{}_{:06x}", kind, text_hash(signature));
  std::string name = base;
  if (taken_.contains(name) || module_.scopes[0].symbols.contains(name)) {
    name = fresh(base + "_");
  } else {
    taken_.insert(name);
  }
  by_signature_.emplace(signature, name);
  return name;
}

std::optional<std::string> SiteRenderer::render(ir::Node value) {
  value = ir::unparenthesize(value);
  if (carry_strings_ && is_plain_string(value) && is_text_string(m_, value)) return hole(value);
  if (is_literal(value)) return source::with_lf_newlines(m_.text(value));
  if (value.is(kind::string) || value.is(kind::concatenated_string)) return render_fstring(value);
  if (is_uncarriable(value)) {
    return decline(rewrite::decline<DeclineCode::UncarriableValue>(snippet(m_, value), readable_type(value)));
  }
  if (is_stable_reference(value)) return source::with_lf_newlines(m_.text(value));
  if (value.is(kind::call)) {
    ir::Node fn = value.field(field::function);
    if (fn.is(kind::identifier) && m_.lookup_at(fn) < 0 && is_builtin_class(m_.text(fn))) {
      return decline(rewrite::decline<DeclineCode::ObjectArgument>(snippet(m_, value)));
    }
  }
  return hole(value);
}

bool SiteRenderer::is_stable_reference(ir::Node n) const {
  if (n.is(kind::identifier)) {
    if (m_.lookup_at(n) < 0) return is_builtin_class(m_.text(n));
    const ir::Symbol* sym = m_.module_symbol(n);
    return sym && m_.bound_only_by(*sym, {ir::BindingKind::ClassDef, ir::BindingKind::Import});
  }
  if (n.is(kind::attribute)) {
    ir::Node root = ir::dotted_root(n);
    if (!root) return false;
    const ir::Symbol* sym = m_.module_symbol(root);
    if (!sym || !m_.bound_only_by(*sym, {ir::BindingKind::Import})) return false;
    auto q = m_.qualified_name(n);
    return q && (*q == "sys.stdout" || *q == "sys.stderr" || analysis::api::has(analysis::api::Space::Global, *q, analysis::api::Fact::LoggingLevel));
  }
  return false;
}

std::optional<std::string> SiteRenderer::decline(Decline reason) {
  if (!declined_) declined_ = std::move(reason);
  return std::nullopt;
}

std::optional<std::string> SiteRenderer::hole(ir::Node value) {
  bool bad = false;
  syntax::walk(value, [&](ir::Node c) {
    if (c.is(kind::yield) || c.is(kind::await) || c.is(kind::lambda)) bad = true;
    return !bad;
  });
  if (bad) return decline(rewrite::decline<DeclineCode::YieldAwaitLambda>(snippet(m_, value)));
  holes_.push_back(value);
  return hole_marker(holes_.size() - 1);
}

// An f-string stays in the helper; each replacement field's expression becomes a hole.
std::optional<std::string> SiteRenderer::render_fstring(ir::Node value) {
  std::string out;
  uint32_t cursor = value.start();
  bool ok = true;
  syntax::walk(value, [&](ir::Node n) {
    if (!ok) return false;
    // Inside an expression already carried as a hole (a nested f-string, PEP 701): its own
    // fields are the hole's business.
    if (n.start() < cursor) return false;
    ir::Node expr;
    if (n.is(kind::interpolation)) {
      for (ir::Node c : n.children()) {
        if (!c.is_named() && m_.text(c) == "=") {
          ok = false;
          decline(rewrite::decline<DeclineCode::SelfDocumentingField>(snippet(m_, value)));
          return false;
        }
      }
      expr = n.named_child(0);
    } else if (n.is(kind::format_expression)) {
      expr = n.named_child(0);
    } else {
      return true;
    }
    if (!expr || expr.is(kind::type_conversion) || expr.is(kind::format_specifier)) return true;
    out += source::with_lf_newlines(m_.text().substr(cursor, expr.start() - cursor));
    auto h = hole(expr);
    if (!h) {
      ok = false;
      return false;
    }
    out += *h;
    cursor = expr.end();
    return true;  // a format specifier's nested fields come after the expression
  });
  if (!ok) return std::nullopt;
  out += source::with_lf_newlines(m_.text().substr(cursor, value.end() - cursor));
  return out;
}

void SiteRenderer::choose_names(std::string_view source_text) {
  for (std::string prefix : {"a", "_gm_a", "_graphmend_a"}) {
    prefix_ = prefix;
    bool clash = false;
    for (size_t i = 0; i < holes_.size() && !clash; ++i) {
      clash = source_text.find(param(i)) != std::string_view::npos;
    }
    if (!clash) return;
  }
}

std::string SiteRenderer::hole_marker(size_t i) {
  // NUL never occurs in a source graphmend analyses (source/source_file.cpp rejects it), so
  // markers cannot collide with the text around them.
  return fmt::format("{}{}{}", '\0', i, '\0');
}

std::string SiteRenderer::param(size_t i) const { return fmt::format("{}{}", prefix_, i); }

std::string SiteRenderer::finish(std::string_view rendered) const {
  std::string out;
  for (size_t i = 0; i < rendered.size(); ++i) {
    if (rendered[i] != '\0') {
      out += rendered[i];
      continue;
    }
    const size_t close = rendered.find('\0', i + 1);
    out += param(static_cast<size_t>(std::stoul(std::string(rendered.substr(i + 1, close - i - 1)))));
    i = close;
  }
  return out;
}

std::string SiteRenderer::params() const {
  std::string out;
  for (size_t i = 0; i < holes_.size(); ++i) out += (i ? ", " : "") + param(i);
  return out;
}

std::string SiteRenderer::hole_args() const {
  std::string out;
  for (ir::Node h : holes_) {
    out += ", ";
    out += copied(m_, h);
  }
  return out;
}

std::optional<Declined> cannot_run(const ir::Module& m, ir::Node site) {
  ir::Node klass;
  for (ir::Node n = site, p = site.parent(); p; n = p, p = p.parent()) {
    const bool guarded_body = (p.is(kind::if_statement) && n == p.field(field::consequence)) ||
                              (p.is(kind::while_statement) && n == p.field(field::body));
    if (guarded_body && ir::unparenthesize(p.field(field::condition)).is(kind::false_)) {
      return Declined{decline<DeclineCode::NeverRuns>(fmt::format("{} False:", p.is(kind::if_statement) ? "if" : "while"))};
    }
    if (!klass && p.is(kind::class_definition)) klass = p;
  }
  if (!klass) return std::nullopt;
  const std::string_view class_name = m.text(klass.field(field::name));
  const size_t first = class_name.find_first_not_of('_');
  if (first == std::string_view::npos) return std::nullopt;  // a class named only `_`s mangles nothing
  std::optional<Declined> found;
  syntax::walk(site, [&](ir::Node n) {
    if (found) return false;
    if (!n.is(kind::identifier)) return true;
    const std::string_view name = m.text(n);
    if (!name.starts_with("__") || name.ends_with("__")) return true;
    const ir::Node parent = n.parent();
    if (parent && parent.is(kind::attribute) && parent.field(field::attribute) == n) return true;  // `x.__y`: mangled too, on an object
    if (parent && parent.is(kind::keyword_argument) && parent.field(field::name) == n) return true;
    const std::string mangled = fmt::format("_{}{}", class_name.substr(first), name);
    // Resolved to the module's binding (a local, mangled alike, would be found first).
    const int symbol = m.lookup_at(n);
    const bool module_level = symbol >= 0 && m.symbols[static_cast<size_t>(symbol)].scope == 0;
    if (module_level && !m.module_symbol_named(mangled)) {
      found = Declined{decline<DeclineCode::AlwaysNameError>(name, class_name, mangled)};
    }
    return !found;
  });
  return found;
}

std::optional<Declined> tracing_may_fail(const analysis::FileContext& ctx, ir::Node site) {
  const int fi = ctx.module.function_of(site);
  if (fi < 0) return std::nullopt;
  // The function and every compiled function that reaches it: Dynamo inlines them into one
  // frame, so a failure in a caller after the call loses what the callee's fix put in the graph.
  std::vector<analysis::FunctionRef> pending = {{&ctx.module, fi}};
  std::set<std::pair<const ir::Module*, int>> seen = {{&ctx.module, fi}};
  while (!pending.empty()) {
    const analysis::FunctionRef f = pending.back();
    pending.pop_back();
    f.module->ensure_built();
    const ir::Node body = f.module->functions[static_cast<size_t>(f.function)].node.field(field::body);
    if (const ir::Node n = analysis::python_arithmetic_may_crash_tracing(*f.module, ctx.types, body)) {
      return Declined{decline<DeclineCode::TracingMayFail>(snippet(*f.module, n))};
    }
    for (const analysis::FunctionRef& caller : ctx.regions.callers_of(f)) {
      if (seen.insert({caller.module, caller.function}).second) pending.push_back(caller);
    }
  }
  return std::nullopt;
}

std::string helper_call(const std::string& callee, const std::vector<std::string>& args, size_t lead) {
  std::string one_line = callee + "(";
  bool multiline = false;
  for (size_t i = 0; i < args.size(); ++i) {
    one_line += (i ? ", " : "") + args[i];
    multiline |= args[i].find('\n') != std::string::npos;
  }
  one_line += ")";
  if (!multiline && lead + display_width(one_line) <= generated_line_length()) return one_line;
  std::string out = callee + "(";
  for (const std::string& arg : args) {
    std::vector<std::string_view> lines;
    for (size_t pos = 0; pos <= arg.size();) {
      const size_t nl = std::min(arg.find('\n', pos), arg.size());
      lines.push_back(std::string_view(arg).substr(pos, nl - pos));
      pos = nl + 1;
    }
    const bool has_long_string = arg.find("\"\"\"") != std::string::npos || arg.find("'''") != std::string::npos;
    size_t common = std::string::npos;
    for (size_t i = 1; i < lines.size(); ++i) {
      const size_t first_column = lines[i].find_first_not_of(' ');
      if (first_column != std::string_view::npos) common = std::min(common, first_column);
    }
    out += "\n        ";
    out += lines[0];
    for (size_t i = 1; i < lines.size(); ++i) {
      out += "\n";
      if (has_long_string || common == std::string::npos || lines[i].size() < common) {
        out += lines[i];
      } else {
        out += "        ";
        out += lines[i].substr(common);
      }
    }
    if (args.size() > 1) out += ",";  // one argument stays hugged by the parentheses, as ruff leaves it
  }
  out += "\n    )";
  return out;
}

source::Helper site_helper(const std::string& name, const std::string& params, const std::string& body) {
  // The body is one line unless it keeps a string's own line breaks; one line is wrapped at the
  // line length as black would (a helper's lines are graphmend's, and ruff checks them). Strings
  // the original concatenated over lines are joined where the joined line fits, as ruff would.
  auto lay_out = [](const std::string& code) {
    return code.find('\n') == std::string::npos ? wrapped_line(code, "    ", "    ", "\n") : "    " + code;
  };
  std::string line = lay_out(body);
  if (body.find('\n') != std::string::npos) {
    if (std::optional<std::string> joined = joined_string_runs(body)) {
      // `callee(` / one argument, now on one line / `)`: ruff puts it back on one line if it fits.
      const size_t open = joined->find("(\n"), close = joined->rfind("\n");
      if (open != std::string::npos && close > open && joined->ends_with(")")) {
        const std::string_view inside = std::string_view(*joined).substr(open + 2, close - open - 2);
        const size_t first = inside.find_first_not_of(" \t");
        if (first != std::string_view::npos && inside.find('\n') == std::string_view::npos &&
            std::string_view(*joined).substr(close + 1).find_first_not_of(" \t") == joined->size() - close - 2) {
          *joined = joined->substr(0, open + 1) + std::string(inside.substr(first)) + ")";
        }
      }
      const std::string candidate = lay_out(*joined);
      bool fits = true;
      for (size_t from = 0; from <= candidate.size();) {
        const size_t to = std::min(candidate.find('\n', from), candidate.size());
        fits = fits && display_width(std::string_view(candidate).substr(from, to - from)) <= generated_line_length();
        from = to + 1;
      }
      if (fits) line = candidate;
    }
  }
  return {name, "def " + name + fmt::format("({}):\n{}\n", params, split_long_literals(line))};
}

std::string helper_signature(const source::Helper& helper) {
  std::string code = helper.code;
  const std::string def = "def " + helper.name + "(";
  if (const size_t at = code.find(def); at != std::string::npos) code.replace(at, def.size(), "def (");
  return code;
}

}  // namespace graphmend::rewrite
