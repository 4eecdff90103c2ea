#include "graphmend/rules/untraceable_call.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "graphmend/rules/conditions.h"

namespace graphmend::rules {

namespace {

// Calls TorchDynamo 2.13 does not trace, by qualified name, with its break: each one is checked
// against Dynamo's break sites in tests/e2e/programs/untraceable_calls.py. Close relatives that
// Dynamo does trace are left out on purpose (random.randint, random.uniform, torch.seed,
// numpy.random.seed, os.environ.get, os.getenv, os.path.join, torch.cuda.empty_cache,
// torch.cuda.is_available, platform.system).
//
// numpy.random's draws that PyTorch implements trace as arrays: they break only when they return
// one Python number, that is without a size (`np.random.uniform(0, 1)`, but not
// `np.random.uniform(0, 1, size=3)` or `np.random.rand(3)`).
constexpr int kAlways = -2;  // breaks whatever the arguments
constexpr int kDims = -1;    // rand, randn: every positional argument is a dimension
struct Untraceable {
  std::string_view name;
  GraphBreak why;
  int size_at = kAlways;  // else: the position of the `size` argument that makes it an array
};
constexpr GraphBreak kSkipped = GraphBreak::SkippedFunction;
constexpr GraphBreak kMethodCall = GraphBreak::UnsupportedMethodCall;
constexpr GraphBreak kNonTensor = GraphBreak::NonTensorResult;
constexpr GraphBreak kNumpyScalar = GraphBreak::DataDependentOperator;
constexpr GraphBreak kNumpyUnsupported = GraphBreak::UnsupportedNumpy;
constexpr std::array kUntraceable{
    Untraceable{"time.time", kSkipped},
    Untraceable{"time.perf_counter", kSkipped},
    Untraceable{"time.monotonic", kSkipped},
    Untraceable{"time.sleep", kSkipped},
    Untraceable{"time.time_ns", kSkipped},
    Untraceable{"time.process_time", kSkipped},
    Untraceable{"random.random", kSkipped},
    Untraceable{"random.choice", kSkipped},
    Untraceable{"random.gauss", kSkipped},
    Untraceable{"random.shuffle", kSkipped},
    Untraceable{"random.seed", kSkipped},
    Untraceable{"torch.manual_seed", kSkipped},
    Untraceable{"torch.random.manual_seed", kSkipped},
    Untraceable{"torch.cuda.manual_seed", kSkipped},
    Untraceable{"torch.get_rng_state", kSkipped},
    Untraceable{"torch.set_rng_state", kSkipped},
    Untraceable{"torch.cuda.memory_allocated", kNonTensor},
    Untraceable{"os.getpid", kSkipped},
    Untraceable{"uuid.uuid4", kSkipped},
    Untraceable{"gc.collect", kSkipped},
    Untraceable{"sys.getsizeof", kSkipped},
    Untraceable{"inspect.currentframe", kSkipped},
    Untraceable{"threading.current_thread", kSkipped},
    Untraceable{"warnings.simplefilter", kSkipped},
    Untraceable{"json.dumps", kMethodCall},
    Untraceable{"datetime.datetime.now", kMethodCall},
    Untraceable{"sys.stdout.write", kMethodCall},
    Untraceable{"sys.stderr.write", kMethodCall},
    Untraceable{"sys.stdout.flush", kMethodCall},
    Untraceable{"sys.stderr.flush", kMethodCall},
    Untraceable{"torch.cuda.device_count", kNonTensor},
    Untraceable{"torch.get_num_threads", kNonTensor},
    Untraceable{"torch.set_num_threads", kSkipped},
    Untraceable{"torch.Generator", GraphBreak::OpaqueObject},
    Untraceable{"os.path.exists", kSkipped},
    Untraceable{"os.listdir", kSkipped},
    Untraceable{"time.strftime", kSkipped},
    Untraceable{"hashlib.md5", kSkipped},
    Untraceable{"pickle.dumps", kSkipped},
    Untraceable{"traceback.format_stack", kSkipped},
    Untraceable{"importlib.import_module", kSkipped},
    Untraceable{"open", GraphBreak::BuiltinOperator},
    Untraceable{"numpy.random.randint", kNumpyScalar, 2},
    Untraceable{"numpy.random.normal", kNumpyScalar, 2},
    Untraceable{"numpy.random.uniform", kNumpyScalar, 2},
    Untraceable{"numpy.random.rand", kNumpyScalar, kDims},
    Untraceable{"numpy.random.randn", kNumpyScalar, kDims},
    Untraceable{"numpy.random.random", kNumpyScalar, 0},
    Untraceable{"numpy.random.random_sample", kNumpyScalar, 0},
    Untraceable{"numpy.random.sample", kNumpyScalar, 0},
    Untraceable{"numpy.random.choice", kNumpyScalar},
    Untraceable{"numpy.random.permutation", kNumpyUnsupported},
    Untraceable{"numpy.random.standard_normal", kNumpyUnsupported},
    Untraceable{"numpy.random.exponential", kNumpyUnsupported},
    Untraceable{"numpy.random.binomial", kNumpyUnsupported},
    Untraceable{"numpy.random.poisson", kNumpyUnsupported},
    Untraceable{"numpy.random.beta", kNumpyUnsupported},
    Untraceable{"numpy.random.gamma", kNumpyUnsupported},
    Untraceable{"numpy.random.laplace", kNumpyUnsupported},
    Untraceable{"numpy.random.lognormal", kNumpyUnsupported},
    Untraceable{"numpy.random.geometric", kNumpyUnsupported},
    Untraceable{"numpy.random.triangular", kNumpyUnsupported},
    Untraceable{"numpy.random.multinomial", kNumpyUnsupported},
    Untraceable{"numpy.random.dirichlet", kNumpyUnsupported},
    Untraceable{"numpy.random.random_integers", kNumpyUnsupported},
    Untraceable{"numpy.random.ranf", kNumpyUnsupported},
    Untraceable{"numpy.random.default_rng", kNumpyUnsupported},
    Untraceable{"numpy.random.get_state", kNumpyUnsupported},
};

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
    } else if (size_at != kDims && position++ < size_at) {
      continue;
    }
    if (!ir::unparenthesize(value).is(kind::none)) return true;
  }
  return false;
}

// Calls that break only on a tensor argument.
constexpr std::array kUntraceableOnTensor{
    Untraceable{"copy.deepcopy", GraphBreak::TensorDeepcopy},
    Untraceable{"copy.copy", kNonTensor},
    Untraceable{"str", GraphBreak::BuiltinOperator},
    Untraceable{"repr", GraphBreak::TensorRepr},
    Untraceable{"sorted", GraphBreak::BuiltinOperator},
};

template <size_t N>
const Untraceable* find(const std::array<Untraceable, N>& table, std::string_view name) {
  const auto it = std::find_if(table.begin(), table.end(), [&](const Untraceable& u) { return u.name == name; });
  return it == table.end() ? nullptr : &*it;
}

// logging.Logger methods other than the log calls (GM202 reports those, with a fix): a test of the
// logger's level or handlers in compiled code is a break of its own.
std::optional<GraphBreak> logger_method_break(std::string_view method) {
  if (method == "isEnabledFor" || method == "getEffectiveLevel" || method == "setLevel" || method == "hasHandlers" ||
      method == "getChild") {
    return GraphBreak::LoggerMethod;
  }
  if (method == "addHandler") return kMethodCall;
  return std::nullopt;
}

// An attribute call `a.b.<method>(...)` can be one of the calls above only if a name in the tables
// ends with `.<method>` (an alias renames a module or a function bound by name, never an attribute).
bool could_be_untraceable(std::string_view method) {
  const auto ends_with_method = [&](const Untraceable& u) {
    return u.name.size() > method.size() && u.name.ends_with(method) && u.name[u.name.size() - method.size() - 1] == '.';
  };
  return std::any_of(kUntraceable.begin(), kUntraceable.end(), ends_with_method) ||
         std::any_of(kUntraceableOnTensor.begin(), kUntraceableOnTensor.end(), ends_with_method);
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
      if (const auto logger_break = logger_method_break(method)) {
        ir::Node receiver = fn.field(field::object);
        if (!is_logger(ctx, m, receiver)) return true;
        sink.report(make_diagnostic(
            info(), n,
            fmt::format("`{}.{}` cannot be traced; the graph is split around it ({})", m.text(receiver), method,
                        cite(*logger_break)),
            "read the logger's level once outside the compiled region and pass the result in"));
        return true;
      }
      if (!could_be_untraceable(method)) return true;
    }
    const auto q = callee_name(m, n);
    if (!q) return true;
    GraphBreak why;
    if (const Untraceable* known = find(kUntraceable, *q)) {
      if (known->size_at != kAlways && given_size(m, n, known->size_at)) return true;
      why = known->why;
    } else if (const Untraceable* on_tensor = find(kUntraceableOnTensor, *q)) {
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
      why = on_tensor->why;
    } else {
      return true;
    }
    sink.report(make_diagnostic(info(), n,
                                fmt::format("`{}` cannot be traced; the graph is split around it ({})", *q, cite(why)),
                                "move the call out of the compiled region, or keep its value as a tensor"));
    return true;
  });
}

}  // namespace graphmend::rules
