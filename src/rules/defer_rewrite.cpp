#include "graphmend/rules/defer_rewrite.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "graphmend/source/text.h"

namespace graphmend::rules {

namespace {

using source::Edit;
using source::Fix;

// Builtin classes a helper may name directly (warning categories, mostly).
const std::set<std::string_view> kBuiltinClasses = {
    "Warning", "UserWarning", "DeprecationWarning", "PendingDeprecationWarning", "SyntaxWarning",
    "RuntimeWarning", "FutureWarning", "ImportWarning", "UnicodeWarning", "BytesWarning",
    "ResourceWarning", "EncodingWarning"};

const std::set<std::string_view> kLoggingLevels = {"logging.DEBUG", "logging.INFO",    "logging.WARNING",
                                                   "logging.WARN",  "logging.ERROR",   "logging.CRITICAL",
                                                   "logging.FATAL", "logging.NOTSET"};

// Values that are not carried but cannot be passed to the helper either.
const std::set<std::string_view> kUncarriable = {
    "list", "dictionary", "set", "tuple", "list_comprehension", "dictionary_comprehension",
    "set_comprehension", "generator_expression", "lambda", "await", "yield"};

bool is_plain_string(ir::Node n) {
  if (n.is("concatenated_string")) {
    for (ir::Node part : n.named_children()) {
      if (!is_plain_string(part)) return false;
    }
    return true;
  }
  if (!n.is("string")) return false;
  for (ir::Node c : n.named_children()) {
    if (c.is("interpolation")) return false;
  }
  return true;
}

bool is_literal(ir::Node n) {
  n = ir::unparenthesize(n);
  if (n.is("integer") || n.is("float") || n.is("true") || n.is("false") || n.is("none")) return true;
  if (n.is("unary_operator")) return is_literal(n.field("argument"));
  return is_plain_string(n);
}

// The symbol a module-level name refers to at `use`, if it is one no function rebinds.
const ir::Symbol* module_symbol(const ir::Module& m, ir::Node use) {
  const int s = m.lookup_at(use);
  if (s < 0) return nullptr;
  const ir::Symbol& sym = m.symbols[static_cast<size_t>(s)];
  return sym.scope == 0 ? &sym : nullptr;
}

bool bound_only_by(const ir::Module& m, const ir::Symbol& sym, std::initializer_list<ir::BindingKind> kinds) {
  if (sym.bindings.empty()) return false;
  return std::all_of(sym.bindings.begin(), sym.bindings.end(), [&](int b) {
    const ir::BindingKind k = m.bindings[static_cast<size_t>(b)].kind;
    return std::find(kinds.begin(), kinds.end(), k) != kinds.end();
  });
}

// The root identifier of a dotted name (`a` of `a.b.c`), or null.
ir::Node dotted_root(ir::Node n) {
  while (n.is("attribute")) n = n.field("object");
  return n.is("identifier") ? n : ir::Node{};
}

// Builds the helper's copy of a call: stable parts verbatim, every other value a parameter
// ("hole") whose value the graph carries from the call point.
class CallRenderer {
 public:
  CallRenderer(const RuleContext& ctx) : ctx_(ctx), m_(ctx.module) {}

  std::optional<std::string> render(ir::Node value) {
    value = ir::unparenthesize(value);
    if (is_literal(value)) return normalized(m_.text(value));
    if (value.is("string") || value.is("concatenated_string")) return render_fstring(value);
    if (kUncarriable.contains(value.type())) {
      return decline(fmt::format("the argument `{}` is a {}, which cannot be carried into the graph; only "
                                 "tensors, numbers, strings, booleans, None, torch.Size and dtypes can",
                                 snippet(value), readable_type(value)));
    }
    if (is_stable_reference(value)) return normalized(m_.text(value));
    if (value.is("call")) {
      ir::Node fn = value.field("function");
      if (fn.is("identifier") && m_.lookup_at(fn) < 0 && kBuiltinClasses.contains(m_.text(fn))) {
        return decline(fmt::format("the argument `{}` is an object, which cannot be carried into the graph",
                                   snippet(value)));
      }
    }
    return hole(value);
  }

  // A name the helper can evaluate itself with the same result: a builtin warning class, a
  // module-level class or import, sys.stdout/sys.stderr, a logging level.
  bool is_stable_reference(ir::Node n) const {
    if (n.is("identifier")) {
      if (m_.lookup_at(n) < 0) return kBuiltinClasses.contains(m_.text(n));
      const ir::Symbol* sym = module_symbol(m_, n);
      return sym && bound_only_by(m_, *sym, {ir::BindingKind::ClassDef, ir::BindingKind::Import});
    }
    if (n.is("attribute")) {
      ir::Node root = dotted_root(n);
      if (!root) return false;
      const ir::Symbol* sym = module_symbol(m_, root);
      if (!sym || !bound_only_by(m_, *sym, {ir::BindingKind::Import})) return false;
      auto q = m_.qualified_name(n);
      return q && (*q == "sys.stdout" || *q == "sys.stderr" || kLoggingLevels.contains(*q));
    }
    return false;
  }

  const std::vector<ir::Node>& holes() const { return holes_; }
  const std::optional<std::string>& declined() const { return declined_; }

  std::string param(size_t i) const { return fmt::format("{}{}", prefix_, i); }
  void set_prefix(std::string prefix) { prefix_ = std::move(prefix); }

 private:
  std::optional<std::string> decline(std::string reason) {
    if (!declined_) declined_ = std::move(reason);
    return std::nullopt;
  }

  std::optional<std::string> hole(ir::Node value) {
    for (ir::Node n : {value}) {
      bool bad = false;
      syntax::walk(n, [&](ir::Node c) {
        if (c.is("yield") || c.is("await") || c.is("lambda")) bad = true;
        return !bad;
      });
      if (bad) return decline(fmt::format("the argument `{}` contains yield, await or lambda", snippet(value)));
    }
    holes_.push_back(value);
    return fmt::format("\x01{}\x02", holes_.size() - 1);  // placeholder; named in finish()
  }

  // An f-string stays in the helper; each replacement field's expression becomes a hole.
  std::optional<std::string> render_fstring(ir::Node value) {
    std::string out;
    uint32_t cursor = value.start();
    bool ok = true;
    syntax::walk(value, [&](ir::Node n) {
      if (!ok) return false;
      ir::Node expr;
      if (n.is("interpolation")) {
        for (ir::Node c : n.children()) {
          if (!c.is_named() && m_.text(c) == "=") {
            ok = false;
            decline(fmt::format("the f-string `{}` uses a self-documenting `=` field, whose text would name "
                                "the helper's parameter",
                                snippet(value)));
            return false;
          }
        }
        expr = n.named_child(0);
      } else if (n.is("format_expression")) {
        expr = n.named_child(0);
      } else {
        return true;
      }
      if (!expr || expr.is("type_conversion") || expr.is("format_specifier")) return true;
      out += normalized(m_.text().substr(cursor, expr.start() - cursor));
      auto h = hole(expr);
      if (!h) {
        ok = false;
        return false;
      }
      out += *h;
      cursor = expr.end();
      // Still visit the format specifier for nested fields, which come after the expression.
      return true;
    });
    if (!ok) return std::nullopt;
    out += normalized(m_.text().substr(cursor, value.end() - cursor));
    return out;
  }

  std::string snippet(ir::Node n) const {
    std::string s(m_.text(n));
    std::replace(s.begin(), s.end(), '\n', ' ');
    std::erase(s, '\r');
    if (s.size() > 40) s = s.substr(0, 37) + "...";
    return s;
  }

  static std::string readable_type(ir::Node n) {
    std::string t(n.type());
    std::replace(t.begin(), t.end(), '_', ' ');
    if (t == "dictionary") t = "dict";
    return t;
  }

  static std::string normalized(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
      if (s[i] == '\r') {
        if (i + 1 < s.size() && s[i + 1] == '\n') continue;
        out += '\n';
        continue;
      }
      out += s[i];
    }
    return out;
  }

  const RuleContext& ctx_;
  const ir::Module& m_;
  std::vector<ir::Node> holes_;
  std::optional<std::string> declined_;
  std::string prefix_ = "a";
};

// Replaces the \x01N\x02 placeholders with parameter names.
std::string name_holes(std::string_view text, const CallRenderer& r) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\x01') {
      out += text[i];
      continue;
    }
    const size_t close = text.find('\x02', i);
    out += r.param(static_cast<size_t>(std::stoul(std::string(text.substr(i + 1, close - i - 1)))));
    i = close;
  }
  return out;
}

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 1469598103934665603ULL;
  for (char c : s) {
    h ^= static_cast<uint8_t>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

struct Argument {
  std::string keyword;  // empty for positional
  ir::Node value;
};

std::string_view kind_tag(DeferredCall kind) {
  switch (kind) {
    case DeferredCall::Print: return "print";
    case DeferredCall::LoggerMethod:
    case DeferredCall::LoggingFunction: return "log";
    case DeferredCall::WarningsWarn: return "warn";
  }
  return "call";
}

}  // namespace

std::string SiteNamer::next(std::string_view kind, std::string_view function) {
  for (int n = 0;; ++n) {
    std::string name = fmt::format("_graphmend_{}_{}_{}", kind, function, n);
    if (taken_.contains(name) || module_.scopes[0].symbols.contains(name)) continue;
    taken_.insert(name);
    return name;
  }
}

std::variant<Fix, Declined> plan_defer(const RuleContext& ctx, ir::Node call, DeferredCall kind, SiteNamer& names) {
  const ir::Module& m = ctx.module;
  const std::string_view text = m.text();

  // 1. A call standing alone as a statement, on lines of its own.
  ir::Node stmt = call.parent();
  if (!stmt.is("expression_statement") || stmt.named_child_count() != 1) {
    return Declined{"the call's value is used; only a call that is a statement on its own can be deferred"};
  }
  ir::Node block = stmt.parent();
  const std::string_view indent = source::indentation_at(text, stmt.start());
  const uint32_t line_start = stmt.start() - static_cast<uint32_t>(indent.size());
  const bool starts_line = line_start == 0 || text[line_start - 1] == '\n' || text[line_start - 1] == '\r';
  uint32_t after = stmt.end();
  while (after < text.size() && (text[after] == ' ' || text[after] == '\t')) ++after;
  if (after < text.size() && text[after] == '#') {
    while (after < text.size() && text[after] != '\n' && text[after] != '\r') ++after;
  }
  const bool ends_line = after == text.size() || text[after] == '\n' || text[after] == '\r';
  if (!block.is("block") || !starts_line || !ends_line) {
    return Declined{"the call shares its line with other code; put it on a line of its own"};
  }

  // 2. The callee, which the helper must be able to name.
  ir::Node fn = ir::unparenthesize(call.field("function"));
  std::string callee;
  std::string method;
  if (kind == DeferredCall::Print) {
    callee = "print";
  } else {
    if (!fn.is("attribute") && !(kind == DeferredCall::WarningsWarn && fn.is("identifier"))) {
      return Declined{"the callee is not a plain name graphmend can reference from a helper"};
    }
    ir::Node root = dotted_root(fn);
    const ir::Symbol* sym = root ? module_symbol(m, root) : nullptr;
    if (!sym || (root != fn && fn.field("object") != root)) {
      return Declined{fmt::format("`{}` is not a module-level name; a helper outside this function could "
                                  "not reach it",
                                  m.text(fn.is("attribute") ? fn.field("object") : fn))};
    }
    if (kind == DeferredCall::LoggerMethod &&
        !bound_only_by(m, *sym, {ir::BindingKind::Assignment, ir::BindingKind::AnnotatedAssignment,
                                 ir::BindingKind::Import})) {
      return Declined{fmt::format("the logger `{}` is rebound in ways graphmend cannot follow", m.text(root))};
    }
    if (kind != DeferredCall::LoggerMethod && !bound_only_by(m, *sym, {ir::BindingKind::Import})) {
      return Declined{fmt::format("`{}` is not only an import of the standard module", m.text(root))};
    }
    if (fn.is("attribute")) method = std::string(m.text(fn.field("attribute")));
    if (method == "exception") {
      return Declined{"`exception` logs the exception being handled, which the deferred call cannot see"};
    }
    if (method == "warn_explicit") {
      return Declined{"`warnings.warn_explicit` names its own location and registry; it is left as it is"};
    }
    callee = std::string(m.text(fn));
  }

  // 3. Arguments.
  ir::Node arglist = call.field("arguments");
  if (!arglist.is("argument_list")) {
    return Declined{"a generator argument cannot be carried into the graph"};
  }
  std::vector<Argument> args;
  for (ir::Node a : arglist.named_children()) {
    if (a.is("comment")) continue;
    if (a.is("list_splat") || a.is("dictionary_splat")) {
      return Declined{"`*args`/`**kwargs` of unknown content cannot be carried into the graph"};
    }
    if (a.is("keyword_argument")) {
      args.push_back({std::string(m.text(a.field("name"))), a.field("value")});
    } else {
      args.push_back({"", a});
    }
  }

  CallRenderer renderer(ctx);
  std::vector<const Argument*> kept;  // rendered into the helper's call, in order
  std::vector<const Argument*> dropped;
  for (const Argument& a : args) {
    const std::string& kw = a.keyword;
    if (kind == DeferredCall::Print) {
      if (kw == "file") {
        ir::Node v = ir::unparenthesize(a.value);
        if (!v.is("none") && !renderer.is_stable_reference(v)) {
          return Declined{fmt::format("print(file={}) writes to an object graphmend cannot reach from the graph; "
                                      "only sys.stdout and sys.stderr are deferred",
                                      m.text(a.value))};
        }
      } else if (!kw.empty() && kw != "sep" && kw != "end" && kw != "flush") {
        return Declined{fmt::format("print has no keyword `{}`", kw)};
      }
    } else if (kind == DeferredCall::WarningsWarn) {
      const size_t position = static_cast<size_t>(&a - args.data());
      const bool is_stacklevel = kw == "stacklevel" || (kw.empty() && position == 2);
      const bool is_category = kw == "category" || (kw.empty() && position == 1);
      if (kw == "source" || kw == "skip_file_prefixes") {
        return Declined{fmt::format("`{}=` refers to the call point, which the deferred call does not have", kw)};
      }
      if (is_category && !renderer.is_stable_reference(ir::unparenthesize(a.value)) &&
          !ir::unparenthesize(a.value).is("none")) {
        return Declined{fmt::format("the category `{}` is not a class graphmend can name from a helper",
                                    m.text(a.value))};
      }
      if (is_stacklevel) {
        if (!is_literal(a.value)) return Declined{"a computed stacklevel cannot be deferred"};
        // The helper warns from its own line (one per call site), so the original stack depth
        // would point into torch; see rules/GM203.md.
        dropped.push_back(&a);
        continue;
      }
    } else {
      if (kw == "exc_info" || kw == "stack_info") {
        return Declined{fmt::format("`{}=` describes the call point's exception or stack, which the deferred call "
                                    "cannot see",
                                    kw)};
      }
      if (kw == "stacklevel" && !is_literal(a.value)) return Declined{"a computed stacklevel cannot be deferred"};
      if (!kw.empty() && kw != "stacklevel" && kw != "extra") {
        return Declined{fmt::format("the keyword `{}` is not one graphmend defers", kw)};
      }
    }
    kept.push_back(&a);
  }
  (void)dropped;

  std::vector<std::string> rendered;
  for (const Argument* a : kept) {
    auto r = renderer.render(a->value);
    if (!r) return Declined{*renderer.declined()};
    rendered.push_back(a->keyword.empty() ? *r : a->keyword + "=" + *r);
  }
  // Parameter names must not capture a name the copied call uses.
  const std::string_view call_text = m.text(call);
  for (std::string prefix : {"a", "_gm_a", "_graphmend_a"}) {
    bool clash = false;
    for (size_t i = 0; i < renderer.holes().size() && !clash; ++i) {
      clash = call_text.find(fmt::format("{}{}", prefix, i)) != std::string_view::npos;
    }
    renderer.set_prefix(prefix);
    if (!clash) break;
  }

  // 4. The helper and the two insertions around the statement.
  const int fi = m.function_of(call);
  const std::string function = fi >= 0 ? m.functions[static_cast<size_t>(fi)].name : "module";
  const std::string site = names.next(kind_tag(kind), function);
  std::string params;
  std::string hole_args;
  for (size_t i = 0; i < renderer.holes().size(); ++i) {
    params += (i ? ", " : "") + renderer.param(i);
    hole_args += ", ";
    hole_args += m.text(renderer.holes()[i]);
  }
  std::string site_call = callee + "(";
  for (size_t i = 0; i < rendered.size(); ++i) site_call += (i ? ", " : "") + name_holes(rendered[i], renderer);
  site_call += ")";

  Fix fix;
  fix.title = kind == DeferredCall::Print          ? "run the print inside the compiled graph (eager path unchanged)"
              : kind == DeferredCall::WarningsWarn ? "run the warning inside the compiled graph (eager path unchanged)"
                                                   : "run the log call inside the compiled graph (eager path unchanged)";
  fix.applicability = source::Applicability::Safe;
  const std::string newline(source::newline_text(source::detect_newline(text)));
  std::string_view header_indent = source::indentation_at(text, block.parent().start());
  std::string unit = indent.starts_with(header_indent) && indent.size() > header_indent.size()
                         ? std::string(indent.substr(header_indent.size()))
                         : std::string("    ");
  const std::string inner = std::string(indent) + unit;
  fix.edits.push_back(Edit::insertion(stmt.start(), "if not _graphmend_compiling():" + newline + inner));
  // Continuation lines move in with the statement, except lines that lie inside a multi-line
  // string, whose bytes are the string's value.
  std::vector<source::TextRange> multiline_strings;
  syntax::walk(stmt, [&](ir::Node n) {
    if (n.is("string")) {
      if (text.substr(n.start(), n.end() - n.start()).find_first_of("\r\n") != std::string_view::npos) {
        multiline_strings.push_back(n.range());
      }
      return false;
    }
    return true;
  });
  for (uint32_t i = stmt.start(); i < stmt.end(); ++i) {
    if (text[i] != '\n' && !(text[i] == '\r' && (i + 1 >= text.size() || text[i + 1] != '\n'))) continue;
    const uint32_t next = i + 1;
    if (next >= stmt.end() || text[next] == '\n' || text[next] == '\r') continue;  // blank line
    const bool in_string = std::any_of(multiline_strings.begin(), multiline_strings.end(),
                                       [&](const source::TextRange& r) { return r.start < next && next < r.end; });
    if (!in_string) fix.edits.push_back(Edit::insertion(next, unit));
  }
  uint32_t eol = after;
  fix.edits.push_back(Edit::insertion(
      eol, fmt::format("{nl}{ind}else:{nl}{inner}_graphmend_defer({site}{holes})", fmt::arg("nl", newline),
                       fmt::arg("ind", indent), fmt::arg("inner", inner), fmt::arg("site", site),
                       fmt::arg("holes", hole_args))));
  // The runtime's version is part of the op's name: Inductor's on-disk cache keys compiled code by
  // op name, and must never serve code compiled against another runtime.
  const std::string key = m.module_name().empty() ? std::string(m.file().display_path) : m.module_name();
  fix.helpers.push_back({"_graphmend_defer", defer_runtime_helper(fmt::format("graphmend_v1_{:016x}", fnv1a(key)))});
  fix.helpers.push_back(
      {site, fmt::format("@_graphmend_site\ndef {}({}):\n    {}\n", site, params, site_call)});
  return fix;
}

void attach_defer_fix(const RuleContext& ctx, ir::Node call, DeferredCall kind, SiteNamer& names, Diagnostic& d) {
  auto plan = plan_defer(ctx, call, kind, names);
  if (auto* fix = std::get_if<Fix>(&plan)) {
    d.fix = std::move(*fix);
  } else {
    d.decline_reason = std::get<Declined>(plan).reason;
  }
}

}  // namespace graphmend::rules
