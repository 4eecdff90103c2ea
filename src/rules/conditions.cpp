#include "graphmend/rules/conditions.h"

#include <map>
#include <string>
#include <tuple>

namespace graphmend::rules {

namespace {

// What one is_logger query found of the imports it followed, by importer, path and depth: the
// answer depends on nothing else, and modules that each import a name many times over would
// otherwise follow it again for every import (time to the power of the depth).
using ImportAnswers = std::map<std::tuple<const ir::Module*, std::string, int>, bool>;

bool is_logger_expr(const RuleContext& ctx, const ir::Module& m, ir::Node expr, int depth, ImportAnswers& answers);
bool is_logger_import(const RuleContext& ctx, const ir::Module& importer, std::string_view path, int depth,
                      ImportAnswers& answers);

// A value of another module that may be a logger (analysis::ModuleSummary::LoggerValue), read as
// is_logger_expr reads one of `m`'s own.
bool is_logger_value(const RuleContext& ctx, const ir::Module& m, int value, int depth, ImportAnswers& answers) {
  if (depth > analysis::kMaxLoggerDepth) return false;
  const analysis::ModuleSummary& summary = ctx.project.summary_of(m);
  const analysis::ModuleSummary::LoggerValue& v = summary.logger_values[static_cast<size_t>(value)];
  if (v.factory) return true;
  if (v.bound_by.empty()) return false;
  return std::all_of(v.bound_by.begin(), v.bound_by.end(), [&](const analysis::ModuleSummary::LoggerBinding& b) {
    return b.import_path >= 0 ? is_logger_import(ctx, m, summary.interned(b.import_path), depth, answers)
                              : is_logger_value(ctx, m, b.value, depth + 1, answers);
  });
}

// `from pkg.utils import logger`, as `importer` imports it: the definition in the analysed files,
// followed through re-exports (`from .log import logger` in a package's `__init__`) as name
// resolution follows them, from the same importer. Read from the module's summary. Counts toward
// is_logger's depth.
bool is_logger_import_uncached(const RuleContext& ctx, const ir::Module& importer, std::string_view path, int depth,
                               ImportAnswers& answers);

bool is_logger_import(const RuleContext& ctx, const ir::Module& importer, std::string_view path, int depth,
                      ImportAnswers& answers) {
  if (depth > analysis::kMaxLoggerDepth) return false;
  const auto key = std::tuple{&importer, std::string(path), depth};
  if (const auto it = answers.find(key); it != answers.end()) return it->second;
  const bool found = is_logger_import_uncached(ctx, importer, path, depth, answers);
  answers.emplace(key, found);
  return found;
}

bool is_logger_import_uncached(const RuleContext& ctx, const ir::Module& importer, std::string_view path, int depth,
                               ImportAnswers& answers) {
  const auto dot = path.rfind('.');
  if (dot == std::string_view::npos) return false;
  const ir::Module* other = ctx.project.find_module(path.substr(0, dot), &importer);
  if (!other) return false;
  const analysis::ModuleSummary& summary = ctx.project.summary_of(*other);
  const std::string_view name = path.substr(dot + 1);
  if (const auto* bindings = summary.logger_bindings_of(name)) {
    return std::all_of(bindings->begin(), bindings->end(), [&](const analysis::ModuleSummary::LoggerBinding& b) {
      return b.import_path >= 0 ? is_logger_import(ctx, importer, summary.interned(b.import_path), depth + 1, answers)
                                : is_logger_value(ctx, *other, b.value, depth + 1, answers);
    });
  }
  // Otherwise only a name bound by imports alone may be one.
  const auto* defs = summary.definitions_of(name);
  using Kind = analysis::ModuleSummary::Definition::Kind;
  return defs && std::all_of(defs->begin(), defs->end(), [&](const analysis::ModuleSummary::Definition& d) {
    return d.kind == Kind::Import && is_logger_import(ctx, importer, d.import_path, depth + 1, answers);
  });
}

// is_logger, at most kMaxLoggerDepth bindings deep.
bool is_logger_expr(const RuleContext& ctx, const ir::Module& m, ir::Node expr, int depth, ImportAnswers& answers) {
  expr = ir::unparenthesize(expr);
  if (depth > analysis::kMaxLoggerDepth) return false;
  if (expr.is(kind::call)) {
    auto q = callee_name(m, expr);
    return q && analysis::is_logger_factory(*q);
  }
  if (expr.is(kind::identifier)) {
    auto bindings = m.reaching_bindings(expr);
    if (bindings.empty()) return false;
    for (int bi : bindings) {
      const ir::Binding& b = m.bindings[static_cast<size_t>(bi)];
      if (b.kind == ir::BindingKind::Import) {
        if (!is_logger_import(ctx, m, b.import_path, depth, answers)) return false;
        continue;
      }
      if (!b.value || !is_logger_expr(ctx, m, b.value, depth + 1, answers)) return false;
    }
    return true;
  }
  return false;
}

}  // namespace

bool is_logger(const RuleContext& ctx, const ir::Module& m, ir::Node expr) {
  ImportAnswers answers;
  return is_logger_expr(ctx, m, expr, 0, answers);
}

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
