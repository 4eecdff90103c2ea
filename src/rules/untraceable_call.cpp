#include "graphmend/rules/untraceable_call.h"

#include <array>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "graphmend/analysis/api_facts.h"
#include "graphmend/rules/conditions.h"

namespace graphmend::rules {

namespace {

namespace api = analysis::api;

// True when a numpy.random draw is given a size (not a literal None): it is then an array, which
// Dynamo traces.
bool given_size(const ir::Module& m, ir::Node call, int size_at) {
  int position = 0;
  for (ir::Node a : ir::children_without_comments(call.field(field::arguments))) {
    if (a.is(kind::list_splat) || a.is(kind::dictionary_splat)) return true;  // unknown: assume an array
    ir::Node value = a;
    if (a.is(kind::keyword_argument)) {
      if (m.text(a.field(field::name)) != "size") continue;
      value = a.field(field::value);
    } else if (size_at != api::kEveryPositional && position++ < size_at) {
      continue;
    }
    if (!ir::unparenthesize(value).is(kind::none)) return true;
  }
  return false;
}

}  // namespace

const RuleInfo& UntraceableCallRule::info() const {
  static const RuleInfo kInfo{"GM409", "untraceable-call",
                              "a call Dynamo does not trace (a clock, `random`, a stream write, a tensor's copy or "
                              "str) splits the graph",
                              GraphBreak::SkippedFunction, RuleFamily::Report, FixAvailability::None};
  return kInfo;
}

std::span<const syntax::Kind* const> UntraceableCallRule::kinds() const {
  static const std::array<const syntax::Kind*, 1> kKinds{&kind::call};
  return kKinds;
}

std::unique_ptr<FilePass> UntraceableCallRule::start(const RuleContext& ctx, DiagnosticSink& sink) const {
  return file_pass([this, &ctx, &sink, &m = ctx.module](ir::Node n) mutable {
    // Most calls are method calls that are none of these: look at the attribute before resolving
    // the chain (a plain name is resolved: `from time import perf_counter as clock`).
    ir::Node fn = ir::unparenthesize(n.field(field::function));
    if (fn.is(kind::attribute)) {
      const std::string_view method = m.text(fn.field(field::attribute));
      if (const auto logger_break = api::graph_break_of(api::Space::LoggerMethod, method)) {
        ir::Node receiver = fn.field(field::object);
        if (!is_logger(ctx, m, receiver)) return true;
        Diagnostic d = make_diagnostic(
            info(), n,
            fmt::format("`{}.{}` cannot be traced; the graph is split around it ({})", m.text(receiver), method,
                        cite(*logger_break)),
            "read the logger's level once outside the compiled region and pass the result in");
        d.graph_break = *logger_break;  // the break the message cites, not the rule's first
        sink.report(std::move(d));
        return true;
      }
      if (!api::some_breaking_call_ends_with(method)) return true;
    }
    const auto q = callee_name(m, n);
    if (!q) return true;
    // The calls Dynamo 2.13 does not trace are rows of the table of API facts (Breaks, with their
    // break; BreaksOnTensor for those that break only on a tensor): each is checked against
    // Dynamo's break sites in tests/e2e/programs/untraceable_calls.py. Close relatives that Dynamo
    // does trace are left out of it on purpose (random.randint, random.uniform, torch.seed,
    // numpy.random.seed, os.environ.get, os.getenv, os.path.join, torch.cuda.empty_cache,
    // torch.cuda.is_available, platform.system).
    const std::optional<GraphBreak> why = api::graph_break_of(api::Space::Global, *q);
    if (!why) return true;
    if (api::has(api::Space::Global, *q, api::Fact::Breaks)) {
      const int size_at = api::size_argument(api::Space::Global, *q);
      if (size_at != api::kNoSize && given_size(m, n, size_at)) return true;
    } else if (api::has(api::Space::Global, *q, api::Fact::BreaksOnTensor)) {
      // One positional argument, a tensor (or a dict, list or tuple display holding one).
      const std::vector<ir::Node> args = ir::children_without_comments(n.field(field::arguments));
      if (args.size() != 1 || args[0].is(kind::keyword_argument)) return true;
      ir::Node arg = ir::unparenthesize(args[0]);
      bool tensor = ctx.types.type_of(m, arg).tensor_like();
      if (!tensor && (arg.is(kind::dictionary) || arg.is(kind::list) || arg.is(kind::tuple))) {
        syntax::walk(arg, [&](ir::Node e) {
          if (tensor) return false;
          if (e.is(kind::pair)) {
            tensor = ctx.types.type_of(m, e.field(field::value)).tensor_like();
            return false;
          }
          if (e == arg) return true;
          tensor = ctx.types.type_of(m, e).tensor_like();
          return false;
        });
      }
      if (!tensor) return true;
    } else {
      return true;
    }
    Diagnostic d =
        make_diagnostic(info(), n, fmt::format("`{}` cannot be traced; the graph is split around it ({})", *q, cite(*why)),
                        "move the call out of the compiled region, or keep its value as a tensor");
    d.graph_break = *why;
    sink.report(std::move(d));
    return true;
  });
}

}  // namespace graphmend::rules
