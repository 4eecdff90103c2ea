#include "graphmend/rewrite/defer.h"

#include <fmt/format.h>

#include <algorithm>

#include "graphmend/analysis/api_facts.h"
#include "graphmend/rewrite/compile_gates.h"
#include "graphmend/rewrite/item_effect.h"

namespace graphmend::rewrite {

namespace {

namespace api = analysis::api;

struct Argument {
  std::string keyword;  // empty for positional
  ir::Node value;
};


// `<name>.__class__.__name__` or `type(<name>).__name__`: a class's name, a constant for
// Dynamo, which guards the type already.
bool is_class_name(const ir::Module& m, ir::Node e) {
  e = ir::unparenthesize(e);
  if (!e.is(kind::attribute) || m.text(e.field(field::attribute)) != "__name__") return false;
  const ir::Node owner = ir::unparenthesize(e.field(field::object));
  if (owner.is(kind::attribute)) {
    return m.text(owner.field(field::attribute)) == "__class__" &&
           ir::unparenthesize(owner.field(field::object)).is(kind::identifier);
  }
  if (!owner.is(kind::call) || !owner.field(field::function).is(kind::identifier) ||
      m.text(owner.field(field::function)) != "type" || m.lookup_at(owner.field(field::function)) >= 0) {
    return false;
  }
  const std::vector<ir::Node> args = ir::children_without_comments(owner.field(field::arguments));
  return args.size() == 1 && ir::unparenthesize(args[0]).is(kind::identifier);
}

constexpr int kMaxConstantHops = 4;

// `self`, the first parameter of the method `use` is in, never rebound.
bool is_method_self(const ir::Module& m, ir::Node use) {
  if (!use.is(kind::identifier) || m.text(use) != "self") return false;
  const int fi = m.function_of(use);
  if (fi < 0) return false;
  const ir::Function& f = m.functions[static_cast<size_t>(fi)];
  if (f.klass < 0 || f.params.empty() || f.params[0].name != "self") return false;
  const std::span<const int> bindings = m.bindings_of(use);
  return bindings.size() == 1 && m.bindings[static_cast<size_t>(bindings[0])].kind == ir::BindingKind::Parameter;
}

// A value Dynamo holds as a guarded constant while tracing, never as a dynamic one, so formatting
// it there gives eager's text with no break: a class's name; a dtype (`t.dtype`, `torch.float16`,
// `torch.get_autocast_gpu_dtype()`); a dtype or name from the module's configuration
// (`self.config.torch_dtype`, `self.config._attn_implementation`); a local name every reaching
// binding of which assigns one of these (transformers' `target_dtype`, picked from three of them).
// A value this misjudges is formatted by Dynamo anyway or breaks the graph at the f-string, as the
// original broke at the call: never a different text.
bool is_trace_constant(const ir::Module& m, ir::Node e, int hops) {
  e = ir::unparenthesize(e);
  if (is_class_name(m, e)) return true;
  if (e.is(kind::attribute)) {
    if (m.text(e.field(field::attribute)) == "dtype") return true;
    if (const auto q = m.qualified_name(e); q && api::has(api::Space::Global, *q, api::Fact::DtypeName)) return true;
    // self.config.<name>: a dtype or a name, by what the attribute is called (`torch_dtype`,
    // `_attn_implementation`). Never a number: Dynamo makes one that differs between compiled
    // instances dynamic, and formatting it then breaks the graph again.
    const std::string_view attribute = m.text(e.field(field::attribute));
    if (!attribute.ends_with("dtype") && !attribute.ends_with("_implementation")) return false;
    const ir::Node config = ir::unparenthesize(e.field(field::object));
    if (!config.is(kind::attribute) || m.text(config.field(field::attribute)) != "config") return false;
    return is_method_self(m, ir::unparenthesize(config.field(field::object)));
  }
  if (e.is(kind::call)) {
    const auto q = m.qualified_name(e.field(field::function));
    if (!q || !api::has(api::Space::Global, *q, api::Fact::ReturnsDtype)) return false;
    for (ir::Node a : ir::children_without_comments(e.field(field::arguments))) {
      if (!ir::unparenthesize(a).is(kind::string)) return false;
    }
    return true;
  }
  if (!e.is(kind::identifier) || hops >= kMaxConstantHops) return false;
  const std::span<const int> all = m.bindings_of(e);
  const auto plain = [&](int b) {
    const ir::Binding& binding = m.bindings[static_cast<size_t>(b)];
    return binding.kind == ir::BindingKind::Assignment && binding.value;
  };
  if (all.empty() || !std::all_of(all.begin(), all.end(), plain)) return false;
  const std::optional<std::vector<int>> reaching = m.ordered_reaching_bindings(e);
  if (!reaching || reaching->empty()) return false;
  return std::all_of(reaching->begin(), reaching->end(), [&](int b) {
    return is_trace_constant(m, m.bindings[static_cast<size_t>(b)].value, hops + 1);
  });
}

// A string Dynamo makes into a constant while tracing, as it does for the original call: plain,
// or an f-string whose every value is a trace constant (above). Passed as it is, it costs no
// recompile and no break, so the call needs no helper to format it.
bool is_constant_string(const ir::Module& m, ir::Node n) {
  n = ir::unparenthesize(n);
  if (n.is(kind::concatenated_string)) {
    for (ir::Node part : n.named_children()) {
      if (!part.is(kind::comment) && !is_constant_string(m, part)) return false;
    }
    return true;
  }
  if (!n.is(kind::string) || !is_text_string(m, n)) return false;
  for (ir::Node c : n.named_children()) {
    if (!c.is(kind::interpolation)) continue;
    const std::vector<ir::Node> parts = ir::children_without_comments(c);
    if (parts.empty() || !is_trace_constant(m, parts[0], 0)) return false;
    for (size_t k = 1; k < parts.size(); ++k) {
      if (!parts[k].is(kind::type_conversion) && !(parts[k].is(kind::format_specifier) &&
                                                    parts[k].named_child_count() == 0)) {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

bool is_builtin_print(const ir::Module& m, ir::Node call) {
  const ir::Node fn = call.field(field::function);
  return fn.is(kind::identifier) && m.text(fn) == "print" && m.lookup_at(fn) < 0;
}

std::string_view deferred_kind_tag(DeferredCall kind) {
  switch (kind) {
    case DeferredCall::Print: return "print";
    case DeferredCall::LoggerMethod:
    case DeferredCall::LoggingFunction: return "log";
    case DeferredCall::WarningsWarn: return "warn";
  }
  return "call";
}

std::variant<DeferredCallText, Declined> render_deferred_call(const analysis::FileContext& ctx, ir::Node call,
                                                              DeferredCall kind, bool share) {
  const ir::Module& m = ctx.module;

  // 1. A call standing alone as a statement.
  ir::Node stmt = call.parent();
  if (!stmt.is(kind::expression_statement) || stmt.named_child_count() != 1) {
    return Declined{decline<DeclineCode::CallValueUsed>()};
  }

  // 2. The callee, which the helper must be able to name.
  ir::Node fn = ir::unparenthesize(call.field(field::function));
  std::string callee;
  std::string method;
  if (kind == DeferredCall::Print) {
    callee = "print";
  } else {
    if (!fn.is(kind::attribute) && !(kind == DeferredCall::WarningsWarn && fn.is(kind::identifier))) {
      return Declined{decline<DeclineCode::CalleeNotPlainName>()};
    }
    ir::Node root = ir::dotted_root(fn);
    const ir::Symbol* sym = root ? m.module_symbol(root) : nullptr;
    if (!sym || (root != fn && fn.field(field::object) != root)) {
      return Declined{
          decline<DeclineCode::CalleeNotModuleLevel>(m.text(fn.is(kind::attribute) ? fn.field(field::object) : fn))};
    }
    if (kind == DeferredCall::LoggerMethod &&
        !m.bound_only_by(*sym, {ir::BindingKind::Assignment, ir::BindingKind::AnnotatedAssignment,
                                 ir::BindingKind::Import})) {
      return Declined{decline<DeclineCode::LoggerRebound>(m.text(root))};
    }
    if (kind != DeferredCall::LoggerMethod && !m.bound_only_by(*sym, {ir::BindingKind::Import})) {
      return Declined{decline<DeclineCode::NotStandardModule>(m.text(root))};
    }
    if (fn.is(kind::attribute)) method = std::string(m.text(fn.field(field::attribute)));
    if (method == "exception") {
      return Declined{decline<DeclineCode::LogsHandledException>()};
    }
    if (method == "warn_explicit") {
      return Declined{decline<DeclineCode::WarnExplicit>()};
    }
    callee = std::string(m.text(fn));
  }

  // 3. Arguments.
  ir::Node arglist = call.field(field::arguments);
  if (!arglist.is(kind::argument_list)) {
    return Declined{decline<DeclineCode::GeneratorArgument>()};
  }
  std::vector<Argument> args;
  for (ir::Node a : arglist.named_children()) {
    if (a.is(kind::comment)) continue;
    if (a.is(kind::list_splat) || a.is(kind::dictionary_splat)) {
      return Declined{decline<DeclineCode::UnpackedArguments>()};
    }
    if (a.is(kind::keyword_argument)) {
      args.push_back({std::string(m.text(a.field(field::name))), a.field(field::value)});
    } else {
      args.push_back({"", a});
    }
  }

  SiteRenderer renderer(ctx);
  // Print and log helpers are shared by every site of one shape, their messages carried from the
  // call. A warning keeps a helper per site: the warnings registry keys on the line it warns from.
  const bool shared = share && kind != DeferredCall::WarningsWarn;
  if (shared) renderer.carry_string_literals();
  std::vector<const Argument*> kept;  // rendered into the helper's call, in order
  for (const Argument& a : args) {
    const std::string& kw = a.keyword;
    if (kind == DeferredCall::Print) {
      if (kw == "file") {
        ir::Node v = ir::unparenthesize(a.value);
        if (!v.is(kind::none) && !renderer.is_stable_reference(v)) {
          return Declined{decline<DeclineCode::PrintFileUnreachable>(m.text(a.value))};
        }
      } else if (!kw.empty() && kw != "sep" && kw != "end" && kw != "flush") {
        return Declined{decline<DeclineCode::PrintUnknownKeyword>(kw)};
      }
    } else if (kind == DeferredCall::WarningsWarn) {
      const size_t position = static_cast<size_t>(&a - args.data());
      const bool is_stacklevel = kw == "stacklevel" || (kw.empty() && position == 2);
      const bool is_category = kw == "category" || (kw.empty() && position == 1);
      if (kw == "source" || kw == "skip_file_prefixes") {
        return Declined{decline<DeclineCode::CallPointKeyword>(kw)};
      }
      if (is_category && !renderer.is_stable_reference(ir::unparenthesize(a.value)) &&
          !ir::unparenthesize(a.value).is(kind::none)) {
        return Declined{decline<DeclineCode::CategoryNotNameable>(m.text(a.value))};
      }
      if (is_stacklevel) {
        if (!is_literal(a.value)) return Declined{decline<DeclineCode::ComputedStacklevel>()};
        // The helper warns from its own line (one per call site), so the original stack depth
        // would point into torch; see rules/GM203.md.
        continue;
      }
    } else {
      if (kw == "exc_info" || kw == "stack_info") {
        return Declined{decline<DeclineCode::CallPointException>(kw)};
      }
      if (kw == "stacklevel" && !is_literal(a.value)) return Declined{decline<DeclineCode::ComputedStacklevel>()};
      if (!kw.empty() && kw != "stacklevel" && kw != "extra") {
        return Declined{decline<DeclineCode::KeywordNotDeferred>(kw)};
      }
    }
    kept.push_back(&a);
  }

  std::vector<std::string> rendered;
  for (const Argument* a : kept) {
    auto r = renderer.render(a->value);
    if (!r) return Declined{*renderer.declined()};
    rendered.push_back(a->keyword.empty() ? *r : a->keyword + "=" + *r);
  }
  renderer.choose_names(m.text(call));

  DeferredCallText out;
  out.statement = stmt;
  out.shared = shared;
  std::vector<std::string> finished;
  for (const std::string& r : rendered) finished.push_back(renderer.finish(r));
  out.site_call = helper_call(callee, finished, 4);
  out.params = renderer.params();
  out.hole_args = renderer.hole_args();
  // Every argument positional and carried as it is: only the callee changes under torch.compile,
  // to a helper that defers the call; the arguments stay written once.
  out.callee_only = shared && kept.size() == args.size();
  for (size_t i = 0; out.callee_only && i < kept.size(); ++i) {
    out.callee_only = kept[i]->keyword.empty() &&
                      (rendered[i] == SiteRenderer::hole_marker(i) || is_constant_string(m, kept[i]->value));
  }
  // A warning with a constant message and a named category, both positional: the runtime issues
  // it from the site's own line (the warnings registry keys on it), so it needs no helper either.
  const bool warning_callee_only =
      (args.size() == 1 || args.size() == 2) && kept.size() == args.size() &&
      std::all_of(args.begin(), args.end(), [](const Argument& a) { return a.keyword.empty(); }) &&
      is_constant_string(m, args[0].value) && (args.size() == 1 || !ir::unparenthesize(args[1].value).is(kind::none));
  if (kind == DeferredCall::WarningsWarn) out.callee_only = warning_callee_only;
  out.callee = callee;
  return out;
}

std::variant<Fix, Declined> plan_defer(const analysis::FileContext& ctx, ir::Node call, DeferredCall kind, SiteNamer& names,
                                       FunctionIndex& index) {
  const ir::Module& m = ctx.module;
  if (decided_by_item_effect(ctx, call, index)) return Declined{decline<DeclineCode::DeferredWithItem>()};
  if (auto dead = cannot_run(ctx.module, call)) return *dead;
  if (auto failing = tracing_may_fail(ctx, call)) return *failing;
  auto rendered_call = render_deferred_call(ctx, call, kind);
  if (auto* d = std::get_if<Declined>(&rendered_call)) return std::move(*d);
  const DeferredCallText& text = std::get<DeferredCallText>(rendered_call);
  const ir::Node stmt = text.statement;
  const ir::Node fn = ir::unparenthesize(call.field(field::function));

  // 4. The site helper, and the statement wrapped to call it under torch.compile.
  const int fi = m.function_of(call);
  const std::string function = fi >= 0 ? m.functions[static_cast<size_t>(fi)].name : "module";
  const std::string& site_call = text.site_call;
  const bool shared = text.shared;

  Fix fix;
  fix.title = kind == DeferredCall::Print          ? "run the print inside the compiled graph (eager path unchanged)"
              : kind == DeferredCall::WarningsWarn ? "run the warning inside the compiled graph (eager path unchanged)"
                                                   : "run the log call inside the compiled graph (eager path unchanged)";
  fix.applicability = source::Applicability::Safe;

  if (text.callee_only) {
    if (auto taken = runtime_unavailable(m)) return *taken;
    // No helper: the call defers itself under torch.compile, its callee written as before.
    call_through_runtime(m, fn, fix);
    return fix;
  }

  const std::string signature = helper_signature(site_helper("", text.params, site_call));
  const std::string site = shared ? names.shared(deferred_kind_tag(kind), signature)
                                  : names.own(deferred_kind_tag(kind), signature);
  if (auto declined = wrap_for_compile(m, stmt, fmt::format("_graphmend.defer({}{})", site, text.hole_args), fix)) {
    return *declined;
  }
  fix.helpers = {site_helper(site, text.params, site_call)};
  return fix;
}

}  // namespace graphmend::rewrite
