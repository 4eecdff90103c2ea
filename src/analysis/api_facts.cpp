#include "graphmend/analysis/api_facts.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace graphmend::analysis::api {

namespace {

using F = Fact;

constexpr Fact operator|(Fact a, Fact b) { return static_cast<Fact>(static_cast<uint32_t>(a) | static_cast<uint32_t>(b)); }

struct Row {
  Space space;
  std::string_view name;
  Fact facts;
  std::optional<GraphBreak> graph_break = std::nullopt;  // Breaks, BreaksOnTensor: how
  int size_argument = kNoSize;                           // TakesSize, a numpy draw's Breaks: which argument
};

// Sorted by space, then name; one row per name. Kept by hand: every fact here is one an analysis
// or a rewrite relies on for soundness, so a name is added only with the reason it holds.
constexpr Row kRows[] = {
    // Global
    {Space::Global, "ArithmeticError", F::ExceptionClass},
    {Space::Global, "AssertionError", F::ExceptionClass},
    {Space::Global, "AttributeError", F::ExceptionClass},
    {Space::Global, "BytesWarning", F::WarningCategory},
    {Space::Global, "DeprecationWarning", F::WarningCategory},
    {Space::Global, "EncodingWarning", F::WarningCategory},
    {Space::Global, "Exception", F::ExceptionClass},
    {Space::Global, "FutureWarning", F::WarningCategory},
    {Space::Global, "ImportWarning", F::WarningCategory},
    {Space::Global, "IndexError", F::ExceptionClass},
    {Space::Global, "KeyError", F::ExceptionClass},
    {Space::Global, "LookupError", F::ExceptionClass},
    {Space::Global, "NotImplementedError", F::ExceptionClass},
    {Space::Global, "OverflowError", F::ExceptionClass},
    {Space::Global, "PendingDeprecationWarning", F::WarningCategory},
    {Space::Global, "ResourceWarning", F::WarningCategory},
    {Space::Global, "RuntimeError", F::ExceptionClass},
    {Space::Global, "RuntimeWarning", F::WarningCategory},
    {Space::Global, "SyntaxWarning", F::WarningCategory},
    {Space::Global, "TypeError", F::ExceptionClass},
    {Space::Global, "UnicodeWarning", F::WarningCategory},
    {Space::Global, "UserWarning", F::WarningCategory},
    {Space::Global, "ValueError", F::ExceptionClass},
    {Space::Global, "Warning", F::WarningCategory},
    {Space::Global, "ZeroDivisionError", F::ExceptionClass},
    {Space::Global, "abs", F::Pure},
    {Space::Global, "all", F::Static},
    {Space::Global, "any", F::Static},
    {Space::Global, "bin", F::Static},
    {Space::Global, "bool", F::Pure | F::StaticType},
    {Space::Global, "breakpoint", F::Io},
    {Space::Global, "bytes", F::StaticType},
    {Space::Global, "callable", F::Static},
    {Space::Global, "chr", F::Static},
    {Space::Global, "copy.copy", F::BreaksOnTensor, GraphBreak::NonTensorResult},
    {Space::Global, "copy.deepcopy", F::BreaksOnTensor, GraphBreak::TensorDeepcopy},
    {Space::Global, "datetime.datetime.now", F::Breaks, GraphBreak::UnsupportedMethodCall},
    {Space::Global, "dict", F::Pure | F::Static},
    {Space::Global, "divmod", F::Static},
    {Space::Global, "enumerate", F::Pure | F::Static | F::TracedBuiltin},
    {Space::Global, "eval", F::Io},
    {Space::Global, "exec", F::Io},
    {Space::Global, "filter", F::Static},
    {Space::Global, "float", F::Pure | F::StaticType},
    {Space::Global, "format", F::Static},
    {Space::Global, "frozenset", F::Static},
    {Space::Global, "gc.collect", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "getattr", F::Pure | F::TracedBuiltin},
    {Space::Global, "hasattr", F::Pure | F::Static | F::TracedBuiltin},
    {Space::Global, "hash", F::Static},
    {Space::Global, "hashlib.md5", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "hex", F::Static},
    {Space::Global, "id", F::Static},
    {Space::Global, "importlib.import_module", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "input", F::Io},
    {Space::Global, "inspect.currentframe", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "int", F::Pure | F::StaticType},
    {Space::Global, "isinstance", F::Pure | F::Static | F::TracedBuiltin},
    {Space::Global, "issubclass", F::Static},
    {Space::Global, "json.dumps", F::Breaks, GraphBreak::UnsupportedMethodCall},
    {Space::Global, "len", F::Pure | F::Static | F::TracedBuiltin},
    {Space::Global, "list", F::Pure | F::Static},
    {Space::Global, "logging.CRITICAL", F::LoggingLevel},
    {Space::Global, "logging.DEBUG", F::LoggingLevel},
    {Space::Global, "logging.ERROR", F::LoggingLevel},
    {Space::Global, "logging.FATAL", F::LoggingLevel},
    {Space::Global, "logging.INFO", F::LoggingLevel},
    {Space::Global, "logging.NOTSET", F::LoggingLevel},
    {Space::Global, "logging.WARN", F::LoggingLevel},
    {Space::Global, "logging.WARNING", F::LoggingLevel},
    {Space::Global, "map", F::Static},
    {Space::Global, "math.acos", F::NeedsPythonNumber},
    {Space::Global, "math.acosh", F::NeedsPythonNumber},
    {Space::Global, "math.asin", F::NeedsPythonNumber},
    {Space::Global, "math.asinh", F::NeedsPythonNumber},
    {Space::Global, "math.atan", F::NeedsPythonNumber},
    {Space::Global, "math.atan2", F::NeedsPythonNumber},
    {Space::Global, "math.atanh", F::NeedsPythonNumber},
    {Space::Global, "math.cbrt", F::NeedsPythonNumber},
    {Space::Global, "math.ceil", F::NeedsPythonNumber},
    {Space::Global, "math.copysign", F::NeedsPythonNumber},
    {Space::Global, "math.cos", F::NeedsPythonNumber},
    {Space::Global, "math.cosh", F::NeedsPythonNumber},
    {Space::Global, "math.degrees", F::NeedsPythonNumber},
    {Space::Global, "math.erf", F::NeedsPythonNumber},
    {Space::Global, "math.erfc", F::NeedsPythonNumber},
    {Space::Global, "math.exp", F::NeedsPythonNumber},
    {Space::Global, "math.exp2", F::NeedsPythonNumber},
    {Space::Global, "math.expm1", F::NeedsPythonNumber},
    {Space::Global, "math.fabs", F::NeedsPythonNumber},
    {Space::Global, "math.factorial", F::NeedsPythonNumber},
    {Space::Global, "math.floor", F::NeedsPythonNumber},
    {Space::Global, "math.fmod", F::NeedsPythonNumber},
    {Space::Global, "math.gamma", F::NeedsPythonNumber},
    {Space::Global, "math.hypot", F::NeedsPythonNumber},
    {Space::Global, "math.isclose", F::NeedsPythonNumber},
    {Space::Global, "math.isfinite", F::NeedsPythonNumber},
    {Space::Global, "math.isinf", F::NeedsPythonNumber},
    {Space::Global, "math.isnan", F::NeedsPythonNumber},
    {Space::Global, "math.isqrt", F::NeedsPythonNumber},
    {Space::Global, "math.ldexp", F::NeedsPythonNumber},
    {Space::Global, "math.lgamma", F::NeedsPythonNumber},
    {Space::Global, "math.log", F::NeedsPythonNumber},
    {Space::Global, "math.log10", F::NeedsPythonNumber},
    {Space::Global, "math.log1p", F::NeedsPythonNumber},
    {Space::Global, "math.log2", F::NeedsPythonNumber},
    {Space::Global, "math.pow", F::NeedsPythonNumber},
    {Space::Global, "math.remainder", F::NeedsPythonNumber},
    {Space::Global, "math.sin", F::NeedsPythonNumber},
    {Space::Global, "math.sinh", F::NeedsPythonNumber},
    {Space::Global, "math.sqrt", F::NeedsPythonNumber},
    {Space::Global, "math.tan", F::NeedsPythonNumber},
    {Space::Global, "math.tanh", F::NeedsPythonNumber},
    {Space::Global, "max", F::Pure},
    {Space::Global, "min", F::Pure},
    {Space::Global, "numpy.random.beta", F::Breaks, GraphBreak::UnsupportedNumpy},
    {Space::Global, "numpy.random.binomial", F::Breaks, GraphBreak::UnsupportedNumpy},
    {Space::Global, "numpy.random.choice", F::Breaks, GraphBreak::DataDependentOperator},
    {Space::Global, "numpy.random.default_rng", F::Breaks, GraphBreak::UnsupportedNumpy},
    {Space::Global, "numpy.random.dirichlet", F::Breaks, GraphBreak::UnsupportedNumpy},
    {Space::Global, "numpy.random.exponential", F::Breaks, GraphBreak::UnsupportedNumpy},
    {Space::Global, "numpy.random.gamma", F::Breaks, GraphBreak::UnsupportedNumpy},
    {Space::Global, "numpy.random.geometric", F::Breaks, GraphBreak::UnsupportedNumpy},
    {Space::Global, "numpy.random.get_state", F::Breaks, GraphBreak::UnsupportedNumpy},
    {Space::Global, "numpy.random.laplace", F::Breaks, GraphBreak::UnsupportedNumpy},
    {Space::Global, "numpy.random.lognormal", F::Breaks, GraphBreak::UnsupportedNumpy},
    {Space::Global, "numpy.random.multinomial", F::Breaks, GraphBreak::UnsupportedNumpy},
    {Space::Global, "numpy.random.normal", F::Breaks, GraphBreak::DataDependentOperator, 2},
    {Space::Global, "numpy.random.permutation", F::Breaks, GraphBreak::UnsupportedNumpy},
    {Space::Global, "numpy.random.poisson", F::Breaks, GraphBreak::UnsupportedNumpy},
    {Space::Global, "numpy.random.rand", F::Breaks, GraphBreak::DataDependentOperator, kEveryPositional},
    {Space::Global, "numpy.random.randint", F::Breaks, GraphBreak::DataDependentOperator, 2},
    {Space::Global, "numpy.random.randn", F::Breaks, GraphBreak::DataDependentOperator, kEveryPositional},
    {Space::Global, "numpy.random.random", F::Breaks, GraphBreak::DataDependentOperator, 0},
    {Space::Global, "numpy.random.random_integers", F::Breaks, GraphBreak::UnsupportedNumpy},
    {Space::Global, "numpy.random.random_sample", F::Breaks, GraphBreak::DataDependentOperator, 0},
    {Space::Global, "numpy.random.ranf", F::Breaks, GraphBreak::UnsupportedNumpy},
    {Space::Global, "numpy.random.sample", F::Breaks, GraphBreak::DataDependentOperator, 0},
    {Space::Global, "numpy.random.standard_normal", F::Breaks, GraphBreak::UnsupportedNumpy},
    {Space::Global, "numpy.random.triangular", F::Breaks, GraphBreak::UnsupportedNumpy},
    {Space::Global, "numpy.random.uniform", F::Breaks, GraphBreak::DataDependentOperator, 2},
    {Space::Global, "oct", F::Static},
    {Space::Global, "open", F::Io | F::Breaks, GraphBreak::BuiltinOperator},
    {Space::Global, "ord", F::Static},
    {Space::Global, "os.getpid", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "os.listdir", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "os.path.exists", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "pickle.dumps", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "pow", F::Static},
    {Space::Global, "print", F::Static | F::Io},
    {Space::Global, "random.choice", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "random.gauss", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "random.random", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "random.seed", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "random.shuffle", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "range", F::Pure | F::Static | F::TracedBuiltin},
    {Space::Global, "repr", F::Static | F::BreaksOnTensor, GraphBreak::TensorRepr},
    {Space::Global, "reversed", F::Static},
    {Space::Global, "round", F::Pure},
    {Space::Global, "set", F::Pure | F::Static},
    {Space::Global, "sorted", F::Static | F::BreaksOnTensor, GraphBreak::BuiltinOperator},
    {Space::Global, "str", F::Pure | F::Static | F::StaticType | F::BreaksOnTensor, GraphBreak::BuiltinOperator},
    {Space::Global, "sum", F::Pure},
    {Space::Global, "super", F::Static},
    {Space::Global, "sys.getsizeof", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "sys.stderr.flush", F::Breaks, GraphBreak::UnsupportedMethodCall},
    {Space::Global, "sys.stderr.write", F::Breaks, GraphBreak::UnsupportedMethodCall},
    {Space::Global, "sys.stdout.flush", F::Breaks, GraphBreak::UnsupportedMethodCall},
    {Space::Global, "sys.stdout.write", F::Breaks, GraphBreak::UnsupportedMethodCall},
    {Space::Global, "threading.current_thread", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "time.monotonic", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "time.perf_counter", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "time.process_time", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "time.sleep", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "time.strftime", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "time.time", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "time.time_ns", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "torch.Generator", F::Breaks, GraphBreak::OpaqueObject},
    {Space::Global, "torch.Size", F::Static | F::StaticType},
    {Space::Global, "torch._check_tensor_all", F::Breaks, GraphBreak::TensorItem},
    {Space::Global, "torch._dynamo.is_compiling", F::Static},
    {Space::Global, "torch.abs", F::Pure | F::Allocates},
    {Space::Global, "torch.acos", F::Pure},
    {Space::Global, "torch.add", F::Pure | F::Allocates},
    {Space::Global, "torch.addcdiv", F::Pure | F::Allocates},
    {Space::Global, "torch.addcmul", F::Pure | F::Allocates},
    {Space::Global, "torch.all", F::Pure | F::ReturnsBool | F::Allocates},
    {Space::Global, "torch.allclose", F::DataDependent},
    {Space::Global, "torch.amax", F::Pure | F::Allocates},
    {Space::Global, "torch.amin", F::Pure | F::Allocates},
    {Space::Global, "torch.any", F::Pure | F::ReturnsBool | F::Allocates},
    {Space::Global, "torch.arange", F::Pure | F::TakesSize, {}, kEveryPositional},
    {Space::Global, "torch.argmax", F::Pure},
    {Space::Global, "torch.argmin", F::Pure},
    {Space::Global, "torch.argwhere", F::DynamicShape},
    {Space::Global, "torch.as_tensor", F::Pure | F::MayAlias},  // the tensor itself when no copy is needed
    {Space::Global, "torch.asin", F::Pure},
    {Space::Global, "torch.atan", F::Pure},
    {Space::Global, "torch.atan2", F::Pure},
    {Space::Global, "torch.autocast", F::Static},
    {Space::Global, "torch.bfloat16", F::DtypeName},
    {Space::Global, "torch.bincount", F::DynamicShape},
    {Space::Global, "torch.bmm", F::Pure | F::Allocates},
    {Space::Global, "torch.bool", F::DtypeName},
    {Space::Global, "torch.broadcast_shapes", F::Static},
    {Space::Global, "torch.cat", F::Pure | F::Allocates},
    {Space::Global, "torch.cdouble", F::DtypeName},
    {Space::Global, "torch.ceil", F::Pure},
    {Space::Global, "torch.cfloat", F::DtypeName},
    {Space::Global, "torch.clamp", F::Pure | F::Allocates},
    {Space::Global, "torch.clamp_max", F::Pure | F::Allocates},
    {Space::Global, "torch.clamp_min", F::Pure | F::Allocates},
    {Space::Global, "torch.clip", F::Pure},
    {Space::Global, "torch.clone", F::Pure | F::Allocates},
    {Space::Global, "torch.compiler.is_compiling", F::Static},
    {Space::Global, "torch.compiler.is_dynamo_compiling", F::Static},
    {Space::Global, "torch.complex128", F::DtypeName},
    {Space::Global, "torch.complex64", F::DtypeName},
    {Space::Global, "torch.concat", F::Pure},
    {Space::Global, "torch.cos", F::Pure},
    {Space::Global, "torch.cosh", F::Pure},
    {Space::Global, "torch.cuda.current_device", F::Static},
    // Breaks, not Static: Dynamo 2.13 folds current_device and is_available, but traces
    // device_count as an op returning an int, and breaks (GB0208).
    {Space::Global, "torch.cuda.device_count", F::Breaks, GraphBreak::NonTensorResult},
    {Space::Global, "torch.cuda.is_available", F::Static},
    {Space::Global, "torch.cuda.manual_seed", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "torch.cuda.memory_allocated", F::Breaks, GraphBreak::NonTensorResult},
    {Space::Global, "torch.cumprod", F::Pure},
    {Space::Global, "torch.cumsum", F::Pure | F::Allocates},
    {Space::Global, "torch.device", F::Static | F::StaticType},
    {Space::Global, "torch.div", F::Pure | F::Allocates},
    {Space::Global, "torch.double", F::DtypeName},
    {Space::Global, "torch.dtype", F::Static | F::StaticType},
    {Space::Global, "torch.einsum", F::Pure | F::Allocates},
    {Space::Global, "torch.empty", F::Pure | F::TakesSize, {}, kEveryPositional},
    {Space::Global, "torch.empty_like", F::Pure},
    {Space::Global, "torch.enable_grad", F::Static},
    {Space::Global, "torch.eq", F::Pure | F::ReturnsBool | F::Allocates},
    {Space::Global, "torch.equal", F::Pure | F::DataDependent},
    {Space::Global, "torch.erf", F::Pure | F::Allocates},
    {Space::Global, "torch.exp", F::Pure | F::Allocates},
    {Space::Global, "torch.expm1", F::Pure},
    {Space::Global, "torch.eye", F::Pure | F::TakesSize, {}, kEveryPositional},
    {Space::Global, "torch.finfo", F::Pure | F::Static},
    {Space::Global, "torch.flatten", F::Pure},
    {Space::Global, "torch.float", F::DtypeName},
    {Space::Global, "torch.float16", F::DtypeName},
    {Space::Global, "torch.float32", F::DtypeName},
    {Space::Global, "torch.float64", F::DtypeName},
    {Space::Global, "torch.floor", F::Pure},
    {Space::Global, "torch.full", F::Pure | F::TakesSize, {}, 0},
    {Space::Global, "torch.full_like", F::Pure},
    {Space::Global, "torch.fx._symbolic_trace.is_fx_tracing", F::Static},
    {Space::Global, "torch.ge", F::Pure | F::ReturnsBool | F::Allocates},
    {Space::Global, "torch.get_autocast_cpu_dtype", F::ReturnsDtype},
    {Space::Global, "torch.get_autocast_dtype", F::ReturnsDtype},
    {Space::Global, "torch.get_autocast_gpu_dtype", F::Static | F::ReturnsDtype},
    {Space::Global, "torch.get_default_dtype", F::Static | F::ReturnsDtype},
    {Space::Global, "torch.get_num_threads", F::Breaks, GraphBreak::NonTensorResult},
    {Space::Global, "torch.get_rng_state", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "torch.greater", F::ReturnsBool},
    {Space::Global, "torch.greater_equal", F::ReturnsBool},
    {Space::Global, "torch.gt", F::Pure | F::ReturnsBool | F::Allocates},
    {Space::Global, "torch.half", F::DtypeName},
    {Space::Global, "torch.iinfo", F::Pure | F::Static},
    {Space::Global, "torch.inference_mode", F::Static},
    {Space::Global, "torch.int", F::DtypeName},
    {Space::Global, "torch.int16", F::DtypeName},
    {Space::Global, "torch.int32", F::DtypeName},
    {Space::Global, "torch.int64", F::DtypeName},
    {Space::Global, "torch.int8", F::DtypeName},
    {Space::Global, "torch.is_autocast_enabled", F::Static},
    {Space::Global, "torch.is_complex", F::Static},
    {Space::Global, "torch.is_floating_point", F::Static},
    {Space::Global, "torch.is_grad_enabled", F::Static},
    {Space::Global, "torch.is_inference_mode_enabled", F::Static},
    {Space::Global, "torch.is_nonzero", F::DataDependent},
    {Space::Global, "torch.is_storage", F::Static},
    {Space::Global, "torch.is_tensor", F::Static},
    {Space::Global, "torch.isclose", F::ReturnsBool},
    {Space::Global, "torch.isfinite", F::Pure | F::ReturnsBool | F::Allocates},
    {Space::Global, "torch.isin", F::ReturnsBool},
    {Space::Global, "torch.isinf", F::Pure | F::ReturnsBool | F::Allocates},
    {Space::Global, "torch.isnan", F::Pure | F::ReturnsBool | F::Allocates},
    {Space::Global, "torch.jit.is_scripting", F::Static},
    {Space::Global, "torch.jit.is_tracing", F::Static},
    {Space::Global, "torch.layout", F::StaticType},
    {Space::Global, "torch.le", F::Pure | F::ReturnsBool | F::Allocates},
    {Space::Global, "torch.lerp", F::Pure},
    {Space::Global, "torch.less", F::ReturnsBool},
    {Space::Global, "torch.less_equal", F::ReturnsBool},
    {Space::Global, "torch.linspace", F::Pure | F::TakesSize, {}, 2},
    {Space::Global, "torch.log", F::Pure | F::Allocates},
    {Space::Global, "torch.log10", F::Pure},
    {Space::Global, "torch.log1p", F::Pure},
    {Space::Global, "torch.log2", F::Pure},
    {Space::Global, "torch.logical_and", F::Pure | F::ReturnsBool | F::Allocates},
    {Space::Global, "torch.logical_not", F::Pure | F::ReturnsBool | F::Allocates},
    {Space::Global, "torch.logical_or", F::Pure | F::ReturnsBool | F::Allocates},
    {Space::Global, "torch.logical_xor", F::Pure | F::ReturnsBool},
    {Space::Global, "torch.long", F::DtypeName},
    {Space::Global, "torch.lt", F::Pure | F::ReturnsBool | F::Allocates},
    {Space::Global, "torch.manual_seed", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "torch.masked_fill", F::Pure | F::Allocates},
    {Space::Global, "torch.masked_select", F::DynamicShape},
    {Space::Global, "torch.matmul", F::Pure | F::Allocates},
    {Space::Global, "torch.max", F::Pure},
    {Space::Global, "torch.maximum", F::Pure | F::Allocates},
    {Space::Global, "torch.mean", F::Pure | F::Allocates},
    {Space::Global, "torch.memory_format", F::StaticType},
    {Space::Global, "torch.min", F::Pure},
    {Space::Global, "torch.minimum", F::Pure | F::Allocates},
    {Space::Global, "torch.mm", F::Pure},
    {Space::Global, "torch.mul", F::Pure | F::Allocates},
    {Space::Global, "torch.nan_to_num", F::Pure | F::Allocates},
    {Space::Global, "torch.ne", F::Pure | F::ReturnsBool | F::Allocates},
    {Space::Global, "torch.neg", F::Pure | F::Allocates},
    {Space::Global, "torch.nn.Conv1d", F::AllocatingModule},
    {Space::Global, "torch.nn.Conv2d", F::AllocatingModule},
    {Space::Global, "torch.nn.Conv3d", F::AllocatingModule},
    {Space::Global, "torch.nn.Embedding", F::AllocatingModule},
    {Space::Global, "torch.nn.GRU", F::ReturnsTuple},
    {Space::Global, "torch.nn.GroupNorm", F::AllocatingModule},
    {Space::Global, "torch.nn.LSTM", F::ReturnsTuple},
    {Space::Global, "torch.nn.LayerNorm", F::AllocatingModule},
    {Space::Global, "torch.nn.Linear", F::AllocatingModule},
    {Space::Global, "torch.nn.ModuleDict", F::ReturnsTuple},
    {Space::Global, "torch.nn.ModuleList", F::ReturnsTuple},
    {Space::Global, "torch.nn.MultiheadAttention", F::ReturnsTuple},
    {Space::Global, "torch.nn.ParameterDict", F::ReturnsTuple},
    {Space::Global, "torch.nn.ParameterList", F::ReturnsTuple},
    {Space::Global, "torch.nn.RMSNorm", F::AllocatingModule},
    {Space::Global, "torch.nn.RNN", F::ReturnsTuple},
    // Not pure: random when training (its branch computed unconditionally would advance the RNG);
    // in eval it returns its input itself.
    {Space::Global, "torch.nn.functional.dropout", F::MayAlias},
    {Space::Global, "torch.nn.functional.gelu", F::Pure | F::Allocates},
    {Space::Global, "torch.nn.functional.interpolate", F::TakesSize, {}, 1},
    {Space::Global, "torch.nn.functional.layer_norm", F::Pure | F::Allocates},
    {Space::Global, "torch.nn.functional.linear", F::Pure | F::Allocates},
    {Space::Global, "torch.nn.functional.log_softmax", F::Pure | F::Allocates},
    {Space::Global, "torch.nn.functional.normalize", F::Pure | F::Allocates},
    {Space::Global, "torch.nn.functional.pad", F::Pure | F::TakesSize, {}, 1},
    {Space::Global, "torch.nn.functional.relu", F::Pure},
    {Space::Global, "torch.nn.functional.sigmoid", F::Pure},
    {Space::Global, "torch.nn.functional.silu", F::Pure},
    {Space::Global, "torch.nn.functional.softmax", F::Pure | F::Allocates},
    {Space::Global, "torch.nn.functional.tanh", F::Pure},
    {Space::Global, "torch.no_grad", F::Static},
    {Space::Global, "torch.nonzero", F::DynamicShape},
    {Space::Global, "torch.not_equal", F::ReturnsBool},
    {Space::Global, "torch.numel", F::Pure | F::Static},
    {Space::Global, "torch.ones", F::Pure | F::Allocates | F::TakesSize, {}, kEveryPositional},
    {Space::Global, "torch.ones_like", F::Pure | F::Allocates},
    // Custom operators are facts like any other: torchvision's NMS keeps as many boxes as the
    // scores allow (its fake implementation asks for a new dynamic size).
    {Space::Global, "torch.ops.torchvision.nms", F::DynamicShape},
    {Space::Global, "torch.outer", F::Pure},
    {Space::Global, "torch.permute", F::Pure},
    {Space::Global, "torch.pow", F::Pure | F::Allocates},
    {Space::Global, "torch.prod", F::Pure},
    {Space::Global, "torch.promote_types", F::Static},
    {Space::Global, "torch.rand", F::TakesSize, {}, kEveryPositional},
    {Space::Global, "torch.randn", F::TakesSize, {}, kEveryPositional},
    {Space::Global, "torch.random.manual_seed", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "torch.randperm", F::TakesSize, {}, 0},
    {Space::Global, "torch.reciprocal", F::Pure},
    {Space::Global, "torch.relu", F::Pure},
    {Space::Global, "torch.repeat_interleave", F::DynamicShape},
    {Space::Global, "torch.reshape", F::Pure},
    {Space::Global, "torch.result_type", F::Static},
    {Space::Global, "torch.round", F::Pure},
    {Space::Global, "torch.rsqrt", F::Pure | F::Allocates},
    {Space::Global, "torch.set_grad_enabled", F::Static},
    {Space::Global, "torch.set_num_threads", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "torch.set_rng_state", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "torch.short", F::DtypeName},
    {Space::Global, "torch.sigmoid", F::Pure | F::Allocates},
    {Space::Global, "torch.sign", F::Pure},
    {Space::Global, "torch.sin", F::Pure},
    {Space::Global, "torch.sinh", F::Pure},
    {Space::Global, "torch.softmax", F::Pure | F::Allocates},
    {Space::Global, "torch.split", F::TakesSize, {}, 1},
    {Space::Global, "torch.sqrt", F::Pure | F::Allocates},
    {Space::Global, "torch.square", F::Pure},
    {Space::Global, "torch.squeeze", F::Pure},
    {Space::Global, "torch.stack", F::Pure | F::Allocates},
    {Space::Global, "torch.std", F::Pure},
    {Space::Global, "torch.sub", F::Pure | F::Allocates},
    {Space::Global, "torch.sum", F::Pure | F::Allocates},
    {Space::Global, "torch.tanh", F::Pure | F::Allocates},
    {Space::Global, "torch.tensor", F::Pure | F::Allocates},
    {Space::Global, "torch.transpose", F::Pure},
    {Space::Global, "torch.tril", F::Pure},
    {Space::Global, "torch.triu", F::Pure},
    {Space::Global, "torch.trunc", F::Pure},
    {Space::Global, "torch.uint8", F::DtypeName},
    {Space::Global, "torch.unique", F::DynamicShape},
    {Space::Global, "torch.unique_consecutive", F::DynamicShape},
    {Space::Global, "torch.unsqueeze", F::Pure},
    {Space::Global, "torch.var", F::Pure},
    {Space::Global, "torch.where", F::Pure | F::Allocates},
    {Space::Global, "torch.zeros", F::Pure | F::Allocates | F::TakesSize, {}, kEveryPositional},
    {Space::Global, "torch.zeros_like", F::Pure | F::Allocates},
    // torchvision's wrappers of the above, seen from the code that calls them: each returns as
    // many boxes (or indices) as the data keeps.
    {Space::Global, "torchvision.ops.batched_nms", F::DynamicShape},
    {Space::Global, "torchvision.ops.boxes.batched_nms", F::DynamicShape},
    {Space::Global, "torchvision.ops.boxes.nms", F::DynamicShape},
    {Space::Global, "torchvision.ops.boxes.remove_small_boxes", F::DynamicShape},
    {Space::Global, "torchvision.ops.nms", F::DynamicShape},
    {Space::Global, "torchvision.ops.remove_small_boxes", F::DynamicShape},
    {Space::Global, "traceback.format_stack", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "tuple", F::Pure | F::Static},
    {Space::Global, "type", F::Pure | F::Static},
    {Space::Global, "uuid.uuid4", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "vars", F::Static},
    {Space::Global, "warnings.simplefilter", F::Breaks, GraphBreak::SkippedFunction},
    {Space::Global, "zip", F::Pure | F::Static | F::TracedBuiltin},
    // TensorMethod
    {Space::TensorMethod, "__len__", F::Static},
    {Space::TensorMethod, "abs", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "add", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "addmm", F::TensorEvidence},
    {Space::TensorMethod, "all", F::Pure | F::ReturnsBool | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "amax", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "amin", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "any", F::Pure | F::ReturnsBool | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "argmax", F::Pure | F::TensorEvidence},
    {Space::TensorMethod, "argmin", F::Pure | F::TensorEvidence},
    {Space::TensorMethod, "argsort", F::TensorEvidence},
    {Space::TensorMethod, "argwhere", F::DynamicShape},
    {Space::TensorMethod, "as_strided", F::MayAlias},
    {Space::TensorMethod, "baddbmm", F::TensorEvidence},
    {Space::TensorMethod, "bfloat16", F::Pure | F::TensorEvidence | F::MayAlias},
    {Space::TensorMethod, "bincount", F::DynamicShape},
    {Space::TensorMethod, "bmm", F::TensorEvidence},
    {Space::TensorMethod, "bool", F::Pure | F::ReturnsBool | F::TensorEvidence | F::MayAlias},
    {Space::TensorMethod, "ceil", F::Pure | F::TensorEvidence},
    {Space::TensorMethod, "chunk", F::MayAlias | F::TakesSize, {}, 0},
    {Space::TensorMethod, "clamp", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "clamp_max", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "clamp_min", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "clone", F::Pure | F::TensorEvidence | F::Allocates | F::KeepsDtype},
    {Space::TensorMethod, "contiguous", F::Pure | F::TensorEvidence | F::MayAlias | F::KeepsDtype},
    {Space::TensorMethod, "cos", F::Pure},
    {Space::TensorMethod, "count_nonzero", F::TensorEvidence},
    {Space::TensorMethod, "cpu", F::TensorEvidence | F::KeepsDtype},
    {Space::TensorMethod, "cuda", F::TensorEvidence | F::KeepsDtype},
    {Space::TensorMethod, "cumprod", F::TensorEvidence},
    {Space::TensorMethod, "cumsum", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "data_ptr", F::Static},
    {Space::TensorMethod, "detach", F::Pure | F::TensorEvidence | F::MayAlias | F::KeepsDtype},
    {Space::TensorMethod, "diagonal", F::TensorEvidence | F::MayAlias},
    {Space::TensorMethod, "dim", F::Pure | F::Static},
    {Space::TensorMethod, "div", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "double", F::Pure | F::TensorEvidence | F::MayAlias},
    {Space::TensorMethod, "element_size", F::Static},
    {Space::TensorMethod, "eq", F::Pure | F::ReturnsBool | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "exp", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "expand", F::Pure | F::TensorEvidence | F::MayAlias | F::KeepsDtype | F::TakesSize, {}, kEveryPositional},
    {Space::TensorMethod, "expand_as", F::Pure | F::TensorEvidence | F::MayAlias | F::KeepsDtype},
    {Space::TensorMethod, "flatten", F::Pure | F::TensorEvidence | F::MayAlias | F::KeepsDtype},
    {Space::TensorMethod, "float", F::Pure | F::TensorEvidence | F::MayAlias},
    {Space::TensorMethod, "floor", F::Pure | F::TensorEvidence},
    {Space::TensorMethod, "frac", F::TensorEvidence},
    {Space::TensorMethod, "gather", F::TensorEvidence},
    {Space::TensorMethod, "ge", F::Pure | F::ReturnsBool | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "get_device", F::Static},
    {Space::TensorMethod, "gt", F::Pure | F::ReturnsBool | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "half", F::Pure | F::TensorEvidence | F::MayAlias},
    {Space::TensorMethod, "has_names", F::Static},
    {Space::TensorMethod, "imag", F::MayAlias},
    {Space::TensorMethod, "index_select", F::TensorEvidence},
    {Space::TensorMethod, "int", F::Pure | F::MayAlias},
    {Space::TensorMethod, "is_complex", F::Static},
    {Space::TensorMethod, "is_contiguous", F::Static},
    {Space::TensorMethod, "is_floating_point", F::Static},
    {Space::TensorMethod, "is_pinned", F::Static},
    {Space::TensorMethod, "is_shared", F::Static},
    {Space::TensorMethod, "is_signed", F::Static},
    {Space::TensorMethod, "isclose", F::ReturnsBool},
    {Space::TensorMethod, "isfinite", F::Pure | F::ReturnsBool | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "isinf", F::Pure | F::ReturnsBool | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "isnan", F::Pure | F::ReturnsBool | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "isneginf", F::ReturnsBool},
    {Space::TensorMethod, "isposinf", F::ReturnsBool},
    {Space::TensorMethod, "item", F::TensorEvidence | F::MovesToPython},
    {Space::TensorMethod, "le", F::Pure | F::ReturnsBool | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "log", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "log_softmax", F::TensorEvidence},
    {Space::TensorMethod, "logical_and", F::Pure | F::ReturnsBool | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "logical_not", F::Pure | F::ReturnsBool | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "logical_or", F::Pure | F::ReturnsBool | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "logical_xor", F::ReturnsBool},
    {Space::TensorMethod, "long", F::Pure | F::TensorEvidence | F::MayAlias},
    {Space::TensorMethod, "lt", F::Pure | F::ReturnsBool | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "masked_fill", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "masked_fill_", F::TensorEvidence},
    {Space::TensorMethod, "masked_select", F::TensorEvidence | F::DynamicShape},
    {Space::TensorMethod, "matmul", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "max", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "mean", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "min", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "mm", F::TensorEvidence},
    {Space::TensorMethod, "movedim", F::MayAlias},
    {Space::TensorMethod, "mul", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "nan_to_num", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "narrow", F::TensorEvidence | F::MayAlias | F::TakesSize, {}, 2},
    {Space::TensorMethod, "ndimension", F::Static},
    {Space::TensorMethod, "ne", F::Pure | F::ReturnsBool | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "neg", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "nelement", F::Static},
    {Space::TensorMethod, "new_empty", F::Pure | F::TensorEvidence | F::TakesSize, {}, kEveryPositional},
    {Space::TensorMethod, "new_full", F::Pure | F::TensorEvidence | F::TakesSize, {}, 0},
    {Space::TensorMethod, "new_ones", F::Pure | F::TensorEvidence | F::TakesSize, {}, kEveryPositional},
    {Space::TensorMethod, "new_tensor", F::TensorEvidence},
    {Space::TensorMethod, "new_zeros", F::Pure | F::TensorEvidence | F::TakesSize, {}, kEveryPositional},
    {Space::TensorMethod, "nonzero", F::TensorEvidence | F::DynamicShape},
    {Space::TensorMethod, "norm", F::Pure | F::TensorEvidence},
    {Space::TensorMethod, "numel", F::Pure | F::Static},
    {Space::TensorMethod, "numpy", F::MovesToPython},
    {Space::TensorMethod, "permute", F::Pure | F::TensorEvidence | F::MayAlias | F::KeepsDtype},
    {Space::TensorMethod, "pow", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "prod", F::Pure | F::TensorEvidence},
    {Space::TensorMethod, "real", F::MayAlias},
    {Space::TensorMethod, "reciprocal", F::Pure | F::TensorEvidence},
    {Space::TensorMethod, "relu", F::TensorEvidence},
    {Space::TensorMethod, "repeat", F::TensorEvidence | F::TakesSize, {}, kEveryPositional},
    {Space::TensorMethod, "repeat_interleave", F::DynamicShape},
    {Space::TensorMethod, "reshape", F::Pure | F::TensorEvidence | F::MayAlias | F::KeepsDtype | F::TakesSize, {}, kEveryPositional},
    {Space::TensorMethod, "reshape_as", F::Pure | F::TensorEvidence | F::MayAlias},
    {Space::TensorMethod, "roll", F::TakesSize, {}, 0},
    {Space::TensorMethod, "round", F::Pure},
    {Space::TensorMethod, "rsqrt", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "scatter", F::TensorEvidence},
    {Space::TensorMethod, "select", F::MayAlias},
    {Space::TensorMethod, "sigmoid", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "sign", F::Pure | F::TensorEvidence},
    {Space::TensorMethod, "sin", F::Pure},
    {Space::TensorMethod, "size", F::Pure | F::Static},
    {Space::TensorMethod, "softmax", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "split", F::MayAlias | F::TakesSize, {}, 0},
    {Space::TensorMethod, "sqrt", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "square", F::Pure | F::TensorEvidence},
    {Space::TensorMethod, "squeeze", F::Pure | F::TensorEvidence | F::MayAlias | F::KeepsDtype},
    {Space::TensorMethod, "std", F::Pure | F::TensorEvidence},
    {Space::TensorMethod, "storage_offset", F::Static},
    {Space::TensorMethod, "stride", F::Static},
    {Space::TensorMethod, "sub", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "sum", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "t", F::MayAlias | F::KeepsDtype},
    {Space::TensorMethod, "tanh", F::Pure | F::TensorEvidence | F::Allocates},
    {Space::TensorMethod, "tile", F::TakesSize, {}, kEveryPositional},
    {Space::TensorMethod, "to", F::Pure | F::TensorEvidence | F::MayAlias},
    {Space::TensorMethod, "tolist", F::TensorEvidence | F::MovesToPython},
    {Space::TensorMethod, "topk", F::TensorEvidence | F::TakesSize, {}, 0},
    {Space::TensorMethod, "transpose", F::Pure | F::TensorEvidence | F::MayAlias | F::KeepsDtype},
    {Space::TensorMethod, "tril", F::Pure | F::TensorEvidence},
    {Space::TensorMethod, "triu", F::Pure | F::TensorEvidence},
    {Space::TensorMethod, "trunc", F::TensorEvidence},
    {Space::TensorMethod, "type", F::MayAlias},
    {Space::TensorMethod, "type_as", F::Pure | F::TensorEvidence | F::MayAlias},
    {Space::TensorMethod, "unbind", F::TensorEvidence | F::MayAlias},
    {Space::TensorMethod, "unflatten", F::MayAlias | F::TakesSize, {}, 1},
    {Space::TensorMethod, "unique", F::TensorEvidence | F::DynamicShape},
    {Space::TensorMethod, "unique_consecutive", F::DynamicShape},
    {Space::TensorMethod, "unsqueeze", F::Pure | F::TensorEvidence | F::MayAlias | F::KeepsDtype},
    {Space::TensorMethod, "var", F::Pure | F::TensorEvidence},
    {Space::TensorMethod, "view", F::Pure | F::TensorEvidence | F::MayAlias | F::TakesSize, {}, kEveryPositional},
    {Space::TensorMethod, "view_as", F::Pure | F::TensorEvidence | F::MayAlias},
    {Space::TensorMethod, "view_as_real", F::MayAlias},
    // TensorAttribute
    {Space::TensorAttribute, "H", F::ReturnsTensor},
    {Space::TensorAttribute, "T", F::ReturnsTensor},
    {Space::TensorAttribute, "data", F::ReturnsTensor},
    {Space::TensorAttribute, "device", F::Static},
    {Space::TensorAttribute, "dtype", F::Static},
    {Space::TensorAttribute, "grad", F::ReturnsTensor},
    {Space::TensorAttribute, "imag", F::ReturnsTensor},
    {Space::TensorAttribute, "is_cpu", F::Static},
    {Space::TensorAttribute, "is_cuda", F::Static},
    {Space::TensorAttribute, "is_leaf", F::Static},
    {Space::TensorAttribute, "is_meta", F::Static},
    {Space::TensorAttribute, "is_mps", F::Static},
    {Space::TensorAttribute, "is_quantized", F::Static},
    {Space::TensorAttribute, "is_sparse", F::Static},
    {Space::TensorAttribute, "itemsize", F::Static},
    {Space::TensorAttribute, "layout", F::Static},
    {Space::TensorAttribute, "mH", F::ReturnsTensor},
    {Space::TensorAttribute, "mT", F::ReturnsTensor},
    {Space::TensorAttribute, "names", F::Static},
    {Space::TensorAttribute, "ndim", F::Static},
    {Space::TensorAttribute, "real", F::ReturnsTensor},
    {Space::TensorAttribute, "requires_grad", F::Static},
    {Space::TensorAttribute, "shape", F::Static},
    {Space::TensorAttribute, "training", F::Static},
    // LoggerMethod
    {Space::LoggerMethod, "addHandler", F::Breaks, GraphBreak::UnsupportedMethodCall},
    {Space::LoggerMethod, "critical", F::Logs},
    {Space::LoggerMethod, "debug", F::Logs},
    {Space::LoggerMethod, "error", F::Logs},
    {Space::LoggerMethod, "exception", F::Logs},
    {Space::LoggerMethod, "fatal", F::Logs},
    {Space::LoggerMethod, "getChild", F::Breaks, GraphBreak::LoggerMethod},
    {Space::LoggerMethod, "getEffectiveLevel", F::Breaks, GraphBreak::LoggerMethod},
    {Space::LoggerMethod, "hasHandlers", F::Breaks, GraphBreak::LoggerMethod},
    {Space::LoggerMethod, "info", F::Logs},
    {Space::LoggerMethod, "info_once", F::Logs},
    {Space::LoggerMethod, "isEnabledFor", F::Breaks, GraphBreak::LoggerMethod},
    {Space::LoggerMethod, "log", F::Logs},
    {Space::LoggerMethod, "setLevel", F::Breaks, GraphBreak::LoggerMethod},
    {Space::LoggerMethod, "warn", F::Logs},
    {Space::LoggerMethod, "warning", F::Logs},
    {Space::LoggerMethod, "warning_advice", F::Logs},
    {Space::LoggerMethod, "warning_once", F::Logs},
    // ModuleMethod
    {Space::ModuleMethod, "bfloat16", F::ReturnsSelf},
    {Space::ModuleMethod, "cpu", F::ReturnsSelf},
    {Space::ModuleMethod, "cuda", F::ReturnsSelf},
    {Space::ModuleMethod, "double", F::ReturnsSelf},
    {Space::ModuleMethod, "eval", F::ReturnsSelf},
    {Space::ModuleMethod, "float", F::ReturnsSelf},
    {Space::ModuleMethod, "half", F::ReturnsSelf},
    {Space::ModuleMethod, "requires_grad_", F::ReturnsSelf},
    {Space::ModuleMethod, "to", F::ReturnsSelf},
    {Space::ModuleMethod, "train", F::ReturnsSelf},
};

// What every row must carry, checked when this compiles: one row per name, in order (space, then
// name), so a name is never listed twice with different facts; a call that breaks names its
// break, and only such a call has one; a size taker names its size argument, and otherwise only a
// numpy draw that breaks without a size has one.
constexpr bool has_fact(const Row& r, Fact f) { return (static_cast<uint32_t>(r.facts) & static_cast<uint32_t>(f)) != 0; }
constexpr bool rows_well_formed() {
  for (size_t i = 0; i < std::size(kRows); ++i) {
    const Row& r = kRows[i];
    if (i > 0) {
      const Row& p = kRows[i - 1];
      if (p.space > r.space || (p.space == r.space && !(p.name < r.name))) return false;
    }
    if ((has_fact(r, F::Breaks) || has_fact(r, F::BreaksOnTensor)) != r.graph_break.has_value()) return false;
    if (has_fact(r, F::TakesSize) && r.size_argument == kNoSize) return false;
    if (!has_fact(r, F::TakesSize) && r.size_argument != kNoSize && !has_fact(r, F::Breaks)) return false;
  }
  return true;
}
static_assert(rows_well_formed(), "kRows: sorted by space then name, one row per name; breaks and size arguments "
                                  "where their facts say");

constexpr std::string_view kOpaqueTorchNamespaces[] = {
    "torch.cuda.",
    "torch.distributed.",
    "torch.backends.",
    "torch.utils.",
    "torch.jit.",
    "torch.fx.",
    "torch.library.",
    "torch._C.",
    "torch.testing.",
    "torch.hub.",
    "torch.onnx.",
    "torch.profiler.",
    "torch.autograd.",
    "torch.compiler.",
    "torch._dynamo.",
    "torch.export.",
    "torch.multiprocessing.",
    "torch.optim.",
    "torch.package."};

// A row's key: the table's names are string literals, so a lookup allocates nothing.
struct Key {
  Space space;
  std::string_view name;
  friend bool operator==(const Key&, const Key&) = default;
};

struct KeyHash {
  size_t operator()(const Key& k) const {
    return std::hash<std::string_view>()(k.name) * 31 + static_cast<size_t>(k.space);
  }
};

// What torch's operator schemas say of each ATen operator (generated by
// scripts/torch_schema_facts.py from the pinned torch; tests/runtime/test_torch_schema_facts.py
// fails when it drifts).
struct SchemaFacts {
  std::string_view name;
  uint8_t flags;
};
constexpr uint8_t kSchemaMutates = 1;
constexpr uint8_t kSchemaAliases = 2;
constexpr uint8_t kSchemaRandom = 4;
constexpr SchemaFacts kSchemaFacts[] = {
#include "torch_schema_facts.inc"
};

// The ATen operator a row names: `torch.clamp`, `torch.nn.functional.gelu` and the method `clamp`
// are `aten::clamp`, `aten::gelu`, `aten::clamp`.
std::optional<uint8_t> schema_flags(Space space, std::string_view name) {
  if (space == Space::Global) {
    if (name.starts_with("torch.nn.functional.")) {
      name.remove_prefix(20);
    } else if (name.starts_with("torch.")) {
      name.remove_prefix(6);
    } else {
      return std::nullopt;
    }
    if (name.find('.') != std::string_view::npos) return std::nullopt;
  } else if (space != Space::TensorMethod) {
    return std::nullopt;
  }
  const auto* end = std::end(kSchemaFacts);
  const auto* it = std::lower_bound(std::begin(kSchemaFacts), end, name,
                                    [](const SchemaFacts& f, std::string_view n) { return f.name < n; });
  if (it == end || it->name != name) return std::nullopt;
  return it->flags;
}

// A row's facts, corrected by the schema: not pure when the operator writes an argument or draws
// random numbers, may alias when a result may be an argument, allocating only when none holds.
uint32_t with_schema(const Row& r) {
  uint32_t facts = static_cast<uint32_t>(r.facts);
  const auto flags = schema_flags(r.space, r.name);
  if (!flags) return facts;
  if (*flags & (kSchemaMutates | kSchemaRandom)) facts &= ~(static_cast<uint32_t>(F::Pure) | static_cast<uint32_t>(F::Allocates));
  if (*flags & kSchemaAliases) {
    facts |= static_cast<uint32_t>(F::MayAlias);
    facts &= ~static_cast<uint32_t>(F::Allocates);
  }
  return facts;
}

struct Indexed {
  uint32_t facts;  // the row's, corrected by the schema
  const Row* row;
};

const std::unordered_map<Key, Indexed, KeyHash>& index() {
  static const std::unordered_map<Key, Indexed, KeyHash> built = [] {
    std::unordered_map<Key, Indexed, KeyHash> m;
    for (const Row& r : kRows) m.emplace(Key{r.space, r.name}, Indexed{with_schema(r), &r});
    return m;
  }();
  return built;
}

const Indexed* find(Space space, std::string_view name) {
  const auto& m = index();
  const auto it = m.find(Key{space, name});
  return it == m.end() ? nullptr : &it->second;
}

}  // namespace

bool has(Space space, std::string_view name, Fact fact) {
  const Indexed* found = find(space, name);
  return found && (found->facts & static_cast<uint32_t>(fact)) != 0;
}

std::optional<GraphBreak> graph_break_of(Space space, std::string_view name) {
  const Indexed* found = find(space, name);
  return found ? found->row->graph_break : std::nullopt;
}

int size_argument(Space space, std::string_view name) {
  const Indexed* found = find(space, name);
  return found ? found->row->size_argument : kNoSize;
}

bool some_breaking_call_ends_with(std::string_view method) {
  static const std::unordered_set<std::string_view> last_names = [] {
    std::unordered_set<std::string_view> out;
    for (const Row& r : kRows) {
      const bool breaks = (static_cast<uint32_t>(r.facts) &
                           (static_cast<uint32_t>(F::Breaks) | static_cast<uint32_t>(F::BreaksOnTensor))) != 0;
      const size_t dot = r.name.rfind('.');
      if (r.space == Space::Global && breaks && dot != std::string_view::npos) out.insert(r.name.substr(dot + 1));
    }
    return out;
  }();
  return last_names.contains(method);
}

namespace {

using S = OpMeta::Shape;
using D = OpMeta::Dtype;

// Sorted by key. Each zero_grad_safe entry is run on real torch by tests/runtime/test_op_meta.py:
// a zero gradient through it, on inputs holding inf and NaN, must come out exactly zero, and the
// shape and dtype rules must hold for every dtype class.
constexpr std::pair<std::string_view, OpMeta> kOpMeta[] = {
    {"Tensor.abs", {S::Elementwise, D::Same, {}, true}},
    {"Tensor.all", {S::FullReduction, D::Bool, {}, true}},
    {"Tensor.amax", {S::FullReduction, D::Same, {}, false}},
    {"Tensor.amin", {S::FullReduction, D::Same, {}, false}},
    {"Tensor.any", {S::FullReduction, D::Bool, {}, true}},
    {"Tensor.bfloat16", {S::Elementwise, D::Fixed, "torch.bfloat16", true}},
    {"Tensor.bool", {S::Elementwise, D::Bool, {}, true}},
    {"Tensor.ceil", {S::Elementwise, D::Same, {}, true}},
    {"Tensor.clamp", {S::Elementwise, D::Promote, {}, true}},
    {"Tensor.clamp_max", {S::Elementwise, D::Promote, {}, true}},
    {"Tensor.clamp_min", {S::Elementwise, D::Promote, {}, true}},
    {"Tensor.clip", {S::Elementwise, D::Promote, {}, true}},
    {"Tensor.clone", {S::Elementwise, D::Same, {}, true}},
    {"Tensor.contiguous", {S::Elementwise, D::Same, {}, true}},
    {"Tensor.detach", {S::Elementwise, D::Same, {}, true}},
    {"Tensor.double", {S::Elementwise, D::Fixed, "torch.float64", true}},
    {"Tensor.eq", {S::Elementwise, D::Bool, {}, true}},
    {"Tensor.exp", {S::Elementwise, D::FloatOrSame, {}, false}},
    {"Tensor.float", {S::Elementwise, D::Fixed, "torch.float32", true}},
    {"Tensor.floor", {S::Elementwise, D::Same, {}, true}},
    {"Tensor.ge", {S::Elementwise, D::Bool, {}, true}},
    {"Tensor.gt", {S::Elementwise, D::Bool, {}, true}},
    {"Tensor.half", {S::Elementwise, D::Fixed, "torch.float16", true}},
    {"Tensor.isfinite", {S::Elementwise, D::Bool, {}, true}},
    {"Tensor.isinf", {S::Elementwise, D::Bool, {}, true}},
    {"Tensor.isnan", {S::Elementwise, D::Bool, {}, true}},
    {"Tensor.le", {S::Elementwise, D::Bool, {}, true}},
    {"Tensor.log", {S::Elementwise, D::FloatOrSame, {}, false}},
    {"Tensor.logical_and", {S::Elementwise, D::Bool, {}, true}},
    {"Tensor.logical_not", {S::Elementwise, D::Bool, {}, true}},
    {"Tensor.logical_or", {S::Elementwise, D::Bool, {}, true}},
    {"Tensor.lt", {S::Elementwise, D::Bool, {}, true}},
    {"Tensor.masked_fill", {S::Elementwise, D::Same, {}, true}},
    {"Tensor.max", {S::FullReduction, D::Same, {}, true}},
    {"Tensor.maximum", {S::Elementwise, D::Promote, {}, true}},
    {"Tensor.mean", {S::FullReduction, D::Same, {}, true}},
    {"Tensor.min", {S::FullReduction, D::Same, {}, true}},
    {"Tensor.minimum", {S::Elementwise, D::Promote, {}, true}},
    {"Tensor.nan_to_num", {S::Elementwise, D::Same, {}, true}},
    {"Tensor.ne", {S::Elementwise, D::Bool, {}, true}},
    {"Tensor.neg", {S::Elementwise, D::Same, {}, true}},
    {"Tensor.norm", {S::FullReduction, D::Same, {}, false}},
    {"Tensor.relu", {S::Elementwise, D::Same, {}, true}},
    {"Tensor.round", {S::Elementwise, D::Same, {}, true}},
    {"Tensor.rsqrt", {S::Elementwise, D::FloatOrSame, {}, false}},
    {"Tensor.sigmoid", {S::Elementwise, D::FloatOrSame, {}, false}},
    {"Tensor.sign", {S::Elementwise, D::Same, {}, true}},
    {"Tensor.softmax", {S::Elementwise, D::FloatOrSame, {}, false}},
    {"Tensor.sqrt", {S::Elementwise, D::FloatOrSame, {}, false}},
    {"Tensor.sum", {S::FullReduction, D::SumLike, {}, true}},
    {"Tensor.tanh", {S::Elementwise, D::FloatOrSame, {}, false}},
    {"Tensor.type_as", {S::Elementwise, D::Same, {}, true}},
    {"torch.abs", {S::Elementwise, D::Same, {}, true}},
    {"torch.all", {S::FullReduction, D::Bool, {}, true}},
    {"torch.amax", {S::FullReduction, D::Same, {}, false}},
    {"torch.amin", {S::FullReduction, D::Same, {}, false}},
    {"torch.any", {S::FullReduction, D::Bool, {}, true}},
    {"torch.ceil", {S::Elementwise, D::Same, {}, true}},
    {"torch.clamp", {S::Elementwise, D::Promote, {}, true}},
    {"torch.clip", {S::Elementwise, D::Promote, {}, true}},
    {"torch.exp", {S::Elementwise, D::FloatOrSame, {}, false}},
    {"torch.floor", {S::Elementwise, D::Same, {}, true}},
    {"torch.full_like", {S::Elementwise, D::Same, {}, true}},
    {"torch.isfinite", {S::Elementwise, D::Bool, {}, true}},
    {"torch.isinf", {S::Elementwise, D::Bool, {}, true}},
    {"torch.isnan", {S::Elementwise, D::Bool, {}, true}},
    {"torch.log", {S::Elementwise, D::FloatOrSame, {}, false}},
    {"torch.logical_and", {S::Elementwise, D::Bool, {}, true}},
    {"torch.logical_not", {S::Elementwise, D::Bool, {}, true}},
    {"torch.logical_or", {S::Elementwise, D::Bool, {}, true}},
    {"torch.max", {S::FullReduction, D::Same, {}, true}},
    {"torch.maximum", {S::Elementwise, D::Promote, {}, true}},
    {"torch.mean", {S::FullReduction, D::Same, {}, true}},
    {"torch.min", {S::FullReduction, D::Same, {}, true}},
    {"torch.minimum", {S::Elementwise, D::Promote, {}, true}},
    {"torch.nan_to_num", {S::Elementwise, D::Same, {}, true}},
    {"torch.neg", {S::Elementwise, D::Same, {}, true}},
    {"torch.nn.functional.gelu", {S::Elementwise, D::Same, {}, false}},
    {"torch.nn.functional.relu", {S::Elementwise, D::Same, {}, true}},
    {"torch.nn.functional.silu", {S::Elementwise, D::Same, {}, false}},
    {"torch.nn.functional.softmax", {S::Elementwise, D::FloatOrSame, {}, false}},
    {"torch.norm", {S::FullReduction, D::Same, {}, false}},
    {"torch.ones_like", {S::Elementwise, D::Same, {}, true}},
    {"torch.relu", {S::Elementwise, D::Same, {}, true}},
    {"torch.round", {S::Elementwise, D::Same, {}, true}},
    {"torch.rsqrt", {S::Elementwise, D::FloatOrSame, {}, false}},
    {"torch.sigmoid", {S::Elementwise, D::FloatOrSame, {}, false}},
    {"torch.sign", {S::Elementwise, D::Same, {}, true}},
    {"torch.softmax", {S::Elementwise, D::FloatOrSame, {}, false}},
    {"torch.sqrt", {S::Elementwise, D::FloatOrSame, {}, false}},
    {"torch.sum", {S::FullReduction, D::SumLike, {}, true}},
    {"torch.tanh", {S::Elementwise, D::FloatOrSame, {}, false}},
    {"torch.where", {S::Elementwise, D::Promote, {}, true}},
    {"torch.zeros_like", {S::Elementwise, D::Same, {}, true}},
};

}  // namespace

const OpMeta* op_meta(std::string_view key) {
  static_assert(std::is_sorted(std::begin(kOpMeta), std::end(kOpMeta),
                               [](const auto& a, const auto& b) { return a.first < b.first; }));
  const auto it = std::lower_bound(std::begin(kOpMeta), std::end(kOpMeta), key,
                                   [](const auto& row, std::string_view k) { return row.first < k; });
  return it != std::end(kOpMeta) && it->first == key ? &it->second : nullptr;
}

bool torch_function_may_alias(std::string_view qualified_name) {
  if (has(Space::Global, qualified_name, Fact::MayAlias)) return true;
  return qualified_name.starts_with("torch.") && has(Space::TensorMethod, qualified_name.substr(6), Fact::MayAlias);
}

bool in_opaque_torch_namespace(std::string_view qualified_name) {
  for (std::string_view prefix : kOpaqueTorchNamespaces) {
    if (qualified_name.starts_with(prefix)) return true;
  }
  return false;
}

}  // namespace graphmend::analysis::api
