#include "graphmend/rules/conditions.h"

namespace graphmend::rules {

namespace {

bool is_logger_factory(const std::string& q) {
  return q == "logging.getLogger" || q.ends_with(".get_logger") || q.ends_with(".getLogger");
}

bool is_logger_expr(const RuleContext& ctx, const ir::Module& m, ir::Node expr, int depth);

// `from pkg.utils import logger`, as `importer` imports it: the definition in the analysed files,
// followed through re-exports (`from .log import logger` in a package's `__init__`) as name
// resolution follows them, from the same importer. Counts toward is_logger's depth.
bool is_logger_import(const RuleContext& ctx, const ir::Module& importer, std::string_view path, int depth) {
  if (depth > 4) return false;
  const auto dot = path.rfind('.');
  if (dot == std::string_view::npos) return false;
  const ir::Module* other = ctx.project.find_module(path.substr(0, dot), &importer);
  if (!other) return false;
  auto it = other->scopes[0].symbols.find(path.substr(dot + 1));
  if (it == other->scopes[0].symbols.end()) return false;
  for (int ob : other->symbols[static_cast<size_t>(it->second)].bindings) {
    const ir::Binding& o = other->bindings[static_cast<size_t>(ob)];
    if (o.kind == ir::BindingKind::Import) {
      if (!is_logger_import(ctx, importer, o.import_path, depth + 1)) return false;
    } else if (!o.value || !is_logger_expr(ctx, *other, o.value, depth + 1)) {
      return false;
    }
  }
  return true;
}

// is_logger, at most 4 bindings deep.
bool is_logger_expr(const RuleContext& ctx, const ir::Module& m, ir::Node expr, int depth) {
  expr = ir::unparenthesize(expr);
  if (depth > 4) return false;
  if (expr.is(kind::call)) {
    auto q = callee_name(m, expr);
    return q && is_logger_factory(*q);
  }
  if (expr.is(kind::identifier)) {
    auto bindings = m.reaching_bindings(expr);
    if (bindings.empty()) return false;
    for (int bi : bindings) {
      const ir::Binding& b = m.bindings[static_cast<size_t>(bi)];
      if (b.kind == ir::BindingKind::Import) {
        if (!is_logger_import(ctx, m, b.import_path, depth)) return false;
        continue;
      }
      if (!b.value || !is_logger_expr(ctx, m, b.value, depth + 1)) return false;
    }
    return true;
  }
  return false;
}

}  // namespace

bool is_logger(const RuleContext& ctx, const ir::Module& m, ir::Node expr) { return is_logger_expr(ctx, m, expr, 0); }

SharedPlan share(std::variant<source::Fix, rewrite::Declined> plan) {
  if (auto* fix = std::get_if<source::Fix>(&plan)) return std::make_shared<const source::Fix>(std::move(*fix));
  return std::get<rewrite::Declined>(std::move(plan));
}

void attach_plan(Diagnostic& d, const SharedPlan& plan) {
  if (const auto* fix = std::get_if<std::shared_ptr<const source::Fix>>(&plan)) {
    d.fix = *fix;
  } else {
    d.decline_reason = std::get<rewrite::Declined>(plan).reason;
  }
}

void attach_plan(Diagnostic& d, std::variant<source::Fix, rewrite::Declined> plan) {
  attach_plan(d, share(std::move(plan)));
}

Diagnostic make_diagnostic(const RuleInfo& info, ir::Node site, std::string message, std::string help) {
  Diagnostic d;
  d.rule = &info;
  d.range = site.range();
  d.message = std::move(message);
  d.graph_break = info.graph_break;
  d.help = std::move(help);
  return d;
}

}  // namespace graphmend::rules
