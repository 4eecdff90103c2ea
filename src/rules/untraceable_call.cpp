#include "graphmend/rules/untraceable_call.h"

#include <algorithm>
#include <array>
#include <string_view>

#include <fmt/format.h>

#include "graphmend/rules/conditions.h"

namespace graphmend::rules {

namespace {

// Calls TorchDynamo 2.13 does not trace, by qualified name, with its break: each one is checked
// against Dynamo's break sites in tests/e2e/programs/untraceable_calls.py. Close relatives that
// Dynamo does trace are left out on purpose (random.randint, random.uniform, torch.seed,
// numpy.random.seed, os.environ.get, torch.cuda.empty_cache).
struct Untraceable {
  std::string_view name;
  std::string_view why;  // break id and Dynamo's words
};
constexpr std::array kUntraceable{
    Untraceable{"time.time", "GB0007: Attempted to call function marked as skipped"},
    Untraceable{"time.perf_counter", "GB0007: Attempted to call function marked as skipped"},
    Untraceable{"time.monotonic", "GB0007: Attempted to call function marked as skipped"},
    Untraceable{"time.sleep", "GB0007: Attempted to call function marked as skipped"},
    Untraceable{"time.time_ns", "GB0007: Attempted to call function marked as skipped"},
    Untraceable{"time.process_time", "GB0007: Attempted to call function marked as skipped"},
    Untraceable{"random.random", "GB0007: Attempted to call function marked as skipped"},
    Untraceable{"random.choice", "GB0007: Attempted to call function marked as skipped"},
    Untraceable{"random.gauss", "GB0007: Attempted to call function marked as skipped"},
    Untraceable{"random.shuffle", "GB0007: Attempted to call function marked as skipped"},
    Untraceable{"random.seed", "GB0007: Attempted to call function marked as skipped"},
    Untraceable{"torch.manual_seed", "GB0007: Attempted to call function marked as skipped"},
    Untraceable{"torch.random.manual_seed", "GB0007: Attempted to call function marked as skipped"},
    Untraceable{"torch.cuda.manual_seed", "GB0007: Attempted to call function marked as skipped"},
    Untraceable{"torch.get_rng_state", "GB0007: Attempted to call function marked as skipped"},
    Untraceable{"torch.set_rng_state", "GB0007: Attempted to call function marked as skipped"},
    Untraceable{"torch.cuda.memory_allocated", "GB0208: torch.* op returned non-Tensor"},
    Untraceable{"os.getpid", "GB0007: Attempted to call function marked as skipped"},
    Untraceable{"uuid.uuid4", "GB0007: Attempted to call function marked as skipped"},
    Untraceable{"gc.collect", "GB0007: Attempted to call function marked as skipped"},
    Untraceable{"sys.getsizeof", "GB0007: Attempted to call function marked as skipped"},
    Untraceable{"inspect.currentframe", "GB0007: Attempted to call function marked as skipped"},
    Untraceable{"threading.current_thread", "GB0007: Attempted to call function marked as skipped"},
    Untraceable{"warnings.simplefilter", "GB0007: Attempted to call function marked as skipped"},
    Untraceable{"json.dumps", "GB0156: Unsupported method call"},
    Untraceable{"datetime.datetime.now", "GB0156: Unsupported method call"},
    Untraceable{"sys.stdout.write", "GB0156: Unsupported method call"},
    Untraceable{"sys.stderr.write", "GB0156: Unsupported method call"},
    Untraceable{"sys.stdout.flush", "GB0156: Unsupported method call"},
    Untraceable{"sys.stderr.flush", "GB0156: Unsupported method call"},
};

// logging.Logger methods other than the log calls (GM202 reports those, with a fix): a test of the
// logger's level or handlers in compiled code is a break of its own.
std::optional<std::string_view> logger_method_break(std::string_view method) {
  if (method == "isEnabledFor" || method == "getEffectiveLevel" || method == "setLevel" || method == "hasHandlers" ||
      method == "getChild") {
    return "GB0291: logging.Logger method not supported";
  }
  if (method == "addHandler") return "GB0156: Unsupported method call";
  return std::nullopt;
}

// Calls that break only on a tensor argument.
std::optional<std::string_view> breaks_on_tensor(std::string_view name) {
  if (name == "copy.deepcopy") return "GB4198: Attempted to copy.deepcopy a tensor";
  if (name == "copy.copy") return "GB0208: torch.* op returned non-Tensor";
  if (name == "str") return "GB0059: Failed to trace builtin operator";
  if (name == "repr") return "GB0569: repr() on tensor";
  return std::nullopt;
}

// The last part of each name above: an attribute call `a.b.<last>(...)` can be one of them only
// with one of these (an alias renames a module or a function bound by name, never an attribute).
bool could_be_untraceable(std::string_view last) {
  static constexpr std::array<std::string_view, 30> kLast{
      "time",          "perf_counter",   "monotonic",     "sleep",     "time_ns",        "process_time",
      "random",        "choice",         "gauss",         "shuffle",   "seed",           "manual_seed",
      "get_rng_state", "set_rng_state",  "memory_allocated", "getpid", "uuid4",          "collect",
      "getsizeof",     "currentframe",   "current_thread", "simplefilter", "dumps",      "now",
      "write",         "flush",          "deepcopy",      "copy",      "str",            "repr"};
  return std::find(kLast.begin(), kLast.end(), last) != kLast.end();
}

}  // namespace

const RuleInfo& UntraceableCallRule::info() const {
  static const RuleInfo kInfo{"GM409", "untraceable-call",
                              "a call Dynamo does not trace (a clock, `random`, a stream write, a tensor's copy or "
                              "str) splits the graph",
                              "GB0007", RuleFamily::Report, FixAvailability::None};
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
      if (const auto logger_break = logger_method_break(method)) {
        ir::Node receiver = fn.field(field::object);
        if (!is_logger(ctx, m, receiver)) return true;
        sink.report(make_diagnostic(
            info(), n,
            fmt::format("`{}.{}` cannot be traced; the graph is split around it ({})", m.text(receiver), method,
                        *logger_break),
            "read the logger's level once outside the compiled region and pass the result in"));
        return true;
      }
      if (!could_be_untraceable(method)) return true;
    }
    const auto q = callee_name(m, n);
    if (!q) return true;
    const auto known = std::find_if(kUntraceable.begin(), kUntraceable.end(),
                                    [&](const Untraceable& u) { return u.name == *q; });
    std::string_view why;
    if (known != kUntraceable.end()) {
      why = known->why;
    } else if (const auto on_tensor = breaks_on_tensor(*q)) {
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
      why = *on_tensor;
    } else {
      return true;
    }
    sink.report(make_diagnostic(info(), n,
                                fmt::format("`{}` cannot be traced; the graph is split around it ({})", *q, why),
                                "move the call out of the compiled region, or keep its value as a tensor"));
    return true;
  });
}

}  // namespace graphmend::rules
