#include "graphmend/rules/logger_call.h"

#include <array>

#include <fmt/format.h>

#include <set>

#include "graphmend/analysis/api_facts.h"
#include "graphmend/rules/conditions.h"
#include "graphmend/rewrite/defer.h"

namespace graphmend::rules {

using rewrite::DeferredCall;
using rewrite::plan_defer;

const RuleInfo& LoggerCallRule::info() const {
  static const RuleInfo kInfo{"GM202", "logger-call-in-graph",
                              "a logging call in compiled code splits the graph", GraphBreak::LoggerMethod,
                              RuleFamily::Defer, FixAvailability::Sometimes};
  return kInfo;
}

std::span<const syntax::Kind* const> LoggerCallRule::kinds() const {
  static const std::array<const syntax::Kind*, 1> kKinds{&kind::call};
  return kKinds;
}

std::unique_ptr<FilePass> LoggerCallRule::start(const RuleContext& ctx, DiagnosticSink& sink) const {
  return file_pass([this, &ctx, &sink, &m = ctx.module, &names = ctx.names,
                    index = rewrite::FunctionIndex(ctx)](ir::Node n) mutable {
    ir::Node fn = ir::unparenthesize(n.field(field::function));
    if (!fn.is(kind::attribute)) return true;
    const std::string_view method = m.text(fn.field(field::attribute));
    if (!analysis::api::has(analysis::api::Space::LoggerMethod, method, analysis::api::Fact::Logs)) return true;
    ir::Node receiver = fn.field(field::object);
    auto q = m.qualified_name(fn);
    if (q && *q == fmt::format("logging.{}", method)) {
      Diagnostic d = make_diagnostic(
          info(), n,
          fmt::format("`logging.{}` is traced into the logging module, where Dynamo breaks ({})", method,
                      cite(GraphBreak::PythonTypeCall)),
          "run the log call inside the graph, or move it out of the compiled code");
      d.graph_break = GraphBreak::PythonTypeCall;
      attach_plan(d, plan_defer(ctx, n, DeferredCall::LoggingFunction, names, index));
      sink.report(std::move(d));
      return true;
    }
    if (is_logger(ctx, m, receiver)) {
      Diagnostic d = make_diagnostic(
          info(), n,
          fmt::format("`{}.{}` cannot be traced; the graph is split around it ({})", m.text(receiver), method,
                      cite(GraphBreak::LoggerMethod)),
          "run the log call inside the graph, or move it out of the compiled code");
      attach_plan(d, plan_defer(ctx, n, DeferredCall::LoggerMethod, names, index));
      sink.report(std::move(d));
    }
    return true;
  });
}

}  // namespace graphmend::rules
