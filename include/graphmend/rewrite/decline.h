// Why a rewrite planner declined a site, as data: a code and the fields its sentence names.
// Every reason is one entry of kDeclineTable below: the code, its stable name in reports and the
// result cache (JSON `decline_code`) and the sentence users read, whose `{}` are the reason's
// fields in order. The sentence is rendered in one place (render), so the report, the cache and
// the benches can group sites by code while users read the same sentence as before. A new reason
// is one enumerator and one table entry (in the same order: checked when this compiles); a name
// never changes meaning once released.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace graphmend::rewrite {

enum class DeclineCode : std::uint8_t {
  // Shared by every rewrite: the statement and the module.
  SharesLine,
  GeneratedBlockDamaged,
  RuntimeNameTaken,
  CopiedPairWouldDiffer,

  // Values a site helper would need carried into the graph (SiteRenderer).
  UncarriableValue,
  ObjectArgument,
  YieldAwaitLambda,
  SelfDocumentingField,

  // [Defer]
  CallValueUsed,
  CalleeNotPlainName,
  CalleeNotModuleLevel,
  LoggerRebound,
  NotStandardModule,
  LogsHandledException,
  WarnExplicit,
  GeneratorArgument,
  UnpackedArguments,
  PrintFileUnreachable,
  PrintUnknownKeyword,
  CallPointKeyword,
  CategoryNotNameable,
  ComputedStacklevel,
  CallPointException,
  KeywordNotDeferred,

  // [Trap]
  TruthBeforeLastOperand,
  NotTestsTruth,
  BoolFromTensorData,
  EqualArguments,
  BareRaise,
  RaiseFrom,
  NotBuiltinException,
  GeneratorException,
  ExceptionKeywords,
  MessageFromTensor,
  MessageTensorUnbound,
  GuardInTry,
  EarlierInPlaceUpdate,
  AsyncNeedsLiteral,

  // [Where]: where the `if` is.
  NotAnIf,
  InsideTry,
  NotInFunction,

  // [Where]: what no selection of values can express.
  BranchDecidesControl,
  PythonValueSelected,

  // [Where]: effects of a part of the `if` (the first field names the part: "a branch", "the
  // condition", "the static conjunct", ...).
  PartStoresAttribute,
  PartNotProvenPure,
  PartTransfersControl,
  PartHasEffect,

  // [Where]: the condition.
  ConditionTooNested,
  PythonValueInCondition,
  StaticAfterTensor,
  NoTensorForm,
  NotSelectableTensor,
  StaticConjunctWithReturns,

  // [Where]: the branches.
  AssignsAttribute,
  TupleReadsItsTarget,
  GuardCannotRun,
  UnselectableStatement,
  AssignedTwice,
  NothingUsedAfter,
  GuardTestsSelected,
  GuardMessageReadsSelected,
  GuardMessageReadsShared,
  TemporaryAcrossBranches,
  ReadAfterOwnBranch,
  TemporaryReadBeforeAssigned,
  NotBoundBefore,
  BranchReadsUnbound,
  ConditionReadsUnbound,
  BindsOuterName,
  BindsBesidesTarget,
  FrameInspected,
  WalrusInCondition,
  LaterInPlaceUpdate,
  NoTorchName,
  SpansLinesUnformatted,
  ConditionShapeUnknown,
  CandidatesMayDiffer,
  GuardInBranch,
  TemporaryReadByCondition,
  LongChainReadsSelected,
  PythonArithmeticMayRaise,
  TracingMayFail,
  NeverRuns,
  AlwaysNameError,

  // [Where]: a buffer selection (register_buffer in both branches; where_buffer.cpp).
  BufferCallNotOnName,
  BufferDifferentObjects,
  BufferNotNonPersistent,
  BufferUnpackedArguments,
  BufferCallForm,
  BufferNameNotString,
  BufferDifferentNames,
  CacheNotOneAssignment,
  CacheFilledTogether,
  CacheNotFilled,
  CacheInitialiserNotName,
  CacheInitialiserUnpacked,
  BufferNotLast,
  BufferAfterOther,
  RegisteredValue,
  BufferWithoutElse,
  StaticConjunctBeforeBuffer,
  CacheReadOutsideBranch,
  CacheBindingReadAfter,

  // [Defer] of an effect decided by a `.item()` value (item_effect.cpp).
  ItemNotAssigned,
  ItemNoTestAfter,
  ItemNumberInexact,
  ItemBodyNotDeferrable,
  ItemBodyCarries,
  ItemNameNotLocal,
  ItemNameUsedElsewhere,
  ItemFrameInspected,
  DeferredWithItem,

  // [Trap] of an `assert` on a `.item()` value (trap.cpp).
  ItemAssertForm,
  ItemAssertOperand,
  ItemAssertMessage,

  // A `.item()` value kept a tensor (item_tensor.cpp).
  ItemTensorReduction,
  ItemTensorUnproven,
  ItemValueUse,
  ItemOperandOtherTensor,
  ItemUseNotAfter,
  ItemOperandRebound,
  ItemLineTooLong,
  ItemUseMayRunEagerly,

  // [Dense] expert dispatch in fixed shapes (dense.cpp).
  DispatchLoopElse,
  DispatchLoopBody,
  DispatchStatementForm,
  DispatchIteration,
  DispatchHitList,
  DispatchMaskSource,
  DispatchExpertsNotTopk,
  DispatchWeightsSource,
  DispatchOutputSource,
  DispatchNameAfter,
  DispatchNameTaken,
  DispatchStoreBody,
  DispatchStoreMask,
  DispatchStoreHitList,
};

struct DeclineEntry {
  DeclineCode code;
  std::string_view name;      // stable, for JSON and the cache: "not-in-function"
  std::string_view sentence;  // what users read; each `{}` is one field
};

inline constexpr auto kDeclineTable = std::to_array<DeclineEntry>({
    // Shared by every rewrite: the statement and the module.
    {DeclineCode::SharesLine, "shares-line",
     "the statement shares its line with other code; put it on a line of its own"},
    {DeclineCode::GeneratedBlockDamaged, "generated-block-damaged",
     "graphmend's generated block in this module is damaged ({}); restore it from version control, or "
     "remove the repeated or altered lines the warning names"},
    {DeclineCode::RuntimeNameTaken, "runtime-name-taken",
     "the module already binds the name `_graphmend`, which graphmend's generated code needs"},
    {DeclineCode::CopiedPairWouldDiffer, "copied-pair-would-differ",
     "`{}` is marked `# Copied from {}` and the fix would change one side of the pair only, which the "
     "project's copy check rejects (transformers: `make repo-consistency`): both sides stay as they are"},

    // Values a site helper would need carried into the graph (SiteRenderer).
    {DeclineCode::UncarriableValue, "uncarriable-value",
     "the argument `{}` is a {}, which cannot be carried into the graph; only tensors, numbers, strings, "
     "booleans, None, torch.Size, dtypes and tuples and lists of them can"},
    {DeclineCode::ObjectArgument, "object-argument",
     "the argument `{}` is an object, which cannot be carried into the graph"},
    {DeclineCode::YieldAwaitLambda, "yield-await-lambda", "the argument `{}` contains yield, await or lambda"},
    {DeclineCode::SelfDocumentingField, "self-documenting-field",
     "the f-string `{}` uses a self-documenting `=` field, whose text would name the helper's parameter"},

    // [Defer]
    {DeclineCode::CallValueUsed, "call-value-used",
     "the call's value is used; only a call that is a statement on its own can be deferred"},
    {DeclineCode::CalleeNotPlainName, "callee-not-plain-name",
     "the callee is not a plain name graphmend can reference from a helper"},
    {DeclineCode::CalleeNotModuleLevel, "callee-not-module-level",
     "`{}` is not a module-level name; a helper outside this function could not reach it"},
    {DeclineCode::LoggerRebound, "logger-rebound", "the logger `{}` is rebound in ways graphmend cannot follow"},
    {DeclineCode::NotStandardModule, "not-standard-module", "`{}` is not only an import of the standard module"},
    {DeclineCode::LogsHandledException, "logs-handled-exception",
     "`exception` logs the exception being handled, which the deferred call cannot see"},
    {DeclineCode::WarnExplicit, "warn-explicit",
     "`warnings.warn_explicit` names its own location and registry; it is left as it is"},
    {DeclineCode::GeneratorArgument, "generator-argument", "a generator argument cannot be carried into the graph"},
    {DeclineCode::UnpackedArguments, "unpacked-arguments",
     "`*args`/`**kwargs` of unknown content cannot be carried into the graph"},
    {DeclineCode::PrintFileUnreachable, "print-file-unreachable",
     "print(file={}) writes to an object graphmend cannot reach from the graph; only sys.stdout and "
     "sys.stderr are deferred"},
    {DeclineCode::PrintUnknownKeyword, "print-unknown-keyword", "print has no keyword `{}`"},
    {DeclineCode::CallPointKeyword, "call-point-keyword",
     "`{}=` refers to the call point, which the deferred call does not have"},
    {DeclineCode::CategoryNotNameable, "category-not-nameable",
     "the category `{}` is not a class graphmend can name from a helper"},
    {DeclineCode::ComputedStacklevel, "computed-stacklevel", "a computed stacklevel cannot be deferred"},
    {DeclineCode::CallPointException, "call-point-exception",
     "`{}=` describes the call point's exception or stack, which the deferred call cannot see"},
    {DeclineCode::KeywordNotDeferred, "keyword-not-deferred", "the keyword `{}` is not one graphmend defers"},

    // [Trap]
    {DeclineCode::TruthBeforeLastOperand, "truth-before-last-operand",
     "`and`/`or` tests a tensor's truth before the last operand; only a static Python test may come first "
     "(`x.dtype == torch.float16 and t.any()`)"},
    {DeclineCode::NotTestsTruth, "not-tests-truth", "a `not` inside the condition tests a tensor's truth"},
    {DeclineCode::BoolFromTensorData, "bool-from-tensor-data",
     "`{}` returns a Python bool from tensor data; it has no graph form here"},
    {DeclineCode::EqualArguments, "equal-arguments",
     "`torch.equal` is called with other than two positional arguments"},
    {DeclineCode::BareRaise, "bare-raise", "a bare `raise` re-raises an exception the graph does not have"},
    {DeclineCode::RaiseFrom, "raise-from",
     "`raise ... from ...` chains an exception object graphmend does not carry"},
    {DeclineCode::NotBuiltinException, "not-builtin-exception",
     "`{}` is not a builtin exception class; constructing it may have side effects graphmend cannot rule "
     "out"},
    {DeclineCode::GeneratorException, "generator-exception", "the exception's argument is a generator"},
    {DeclineCode::ExceptionKeywords, "exception-keywords",
     "the exception is constructed with keyword or unpacked arguments"},
    {DeclineCode::MessageFromTensor, "message-from-tensor",
     "the message is formatted from the tensor expression `{}`, which the check would compute on every call (a "
     "tensor field is carried only as a name bound on every path to the guard)"},
    {DeclineCode::MessageTensorUnbound, "message-tensor-unbound",
     "the message is formatted from the tensor `{}`, which may be unbound at the guard; the check would read it on "
     "every call"},
    {DeclineCode::GuardInTry, "guard-in-try",
     "the guard is inside a `try`; its handler would see the exception raised from inside the graph"},
    {DeclineCode::EarlierInPlaceUpdate, "earlier-in-place-update",
     "an in-place update comes earlier in this function ({}); compiled, it is applied when the graph "
     "returns, so a guard failing inside the graph would leave it undone"},
    {DeclineCode::AsyncNeedsLiteral, "async-needs-literal",
     "the asynchronous tier needs a literal message (torch._assert_async takes a constant string)"},

    // [Where]: where the `if` is.
    {DeclineCode::NotAnIf, "not-an-if", "not an `if` statement"},
    {DeclineCode::InsideTry, "inside-try",
     "the `if` is inside a `try`; an exception there hands the partial state of the branches to the "
     "handlers, which is not analysed"},
    {DeclineCode::NotInFunction, "not-in-function", "the `if` is not inside a function"},

    // [Where]: what no selection of values can express.
    {DeclineCode::BranchDecidesControl, "branch-decides-control",
     "a branch has `{}`: the condition decides which statements run next, and torch.where selects "
     "values, not statements"},
    {DeclineCode::PythonValueSelected, "python-value-selected",
     "{} would be selected from the Python value `{}`; torch.where selects tensors only, so the "
     "original `if` would run under torch.compile all the same"},

    // [Where]: effects of a part of the `if` (the first field names the part: "a branch", "the
    // condition", "the static conjunct", ...).
    {DeclineCode::PartStoresAttribute, "stores-attribute",
     "{} {}: the stored object's identity and aliasing cannot be kept by a selection"},
    {DeclineCode::PartNotProvenPure, "not-proven-pure",
     "{} {}, which graphmend cannot prove pure and unable to raise"},
    {DeclineCode::PartTransfersControl, "transfers-control", "{} transfers control ({})"},
    {DeclineCode::PartHasEffect, "has-effect", "{} {} ({})"},

    // [Where]: the condition.
    {DeclineCode::ConditionTooNested, "condition-too-nested",
     "the condition nests more than {} `and`/`or`/`not` levels"},
    {DeclineCode::PythonValueInCondition, "python-value-in-condition",
     "the condition mixes the Python value `{}` into its tensor part"},
    {DeclineCode::StaticAfterTensor, "static-after-tensor",
     "the Python value `{}` follows the tensor part and would be tested first, where the original may not test "
     "it; graphmend proves that safe only for `is None`, `is not None`, a local name checked to be a bool, and `not` of these"},
    {DeclineCode::NoTensorForm, "no-tensor-form", "`{}` has no tensor form here"},
    {DeclineCode::NotSelectableTensor, "not-selectable-tensor", "`{}` is not a tensor graphmend can select on"},
    {DeclineCode::StaticConjunctWithReturns, "static-conjunct-with-returns",
     "a static conjunct with `return` branches is not rewritten in this version"},

    // [Where]: the branches.
    {DeclineCode::AssignsAttribute, "assigns-attribute",
     "a branch assigns the attribute `{}`; a selection would not keep the stored object's identity and "
     "aliasing"},
    {DeclineCode::TupleReadsItsTarget, "tuple-reads-its-target",
     "the tuple assignment `{}` reads `{}`, which it also assigns"},
    {DeclineCode::GuardCannotRun, "guard-cannot-run", "a guard in a branch cannot run in the graph: {}"},
    {DeclineCode::UnselectableStatement, "unselectable-statement",
     "a branch has the statement `{}`; only `name = value` assignments (or one `return` in each branch) "
     "are selected"},
    {DeclineCode::AssignedTwice, "assigned-twice", "`{}` is assigned twice in one branch"},
    {DeclineCode::NothingUsedAfter, "nothing-used-after", "no value the branches compute is used after the `if`"},
    {DeclineCode::GuardTestsSelected, "guard-tests-selected",
     "the guard in a branch tests `{}`, which a branch assigns"},
    {DeclineCode::GuardMessageReadsSelected, "guard-message-reads-selected",
     "the guard's message reads `{}`, which a branch selects"},
    {DeclineCode::GuardMessageReadsShared, "guard-message-reads-shared",
     "the guard's message reads `{}`, which several branches assign"},
    {DeclineCode::TemporaryAcrossBranches, "temporary-across-branches",
     "the temporary `{}` is assigned in one branch and read in another"},
    {DeclineCode::ReadAfterOwnBranch, "read-after-own-branch", "`{}` is read after its branch assigned it"},
    {DeclineCode::TemporaryReadBeforeAssigned, "temporary-read-before-assigned",
     "the temporary `{}` is assigned in more than one branch and read in one before that branch assigns it"},
    {DeclineCode::NotBoundBefore, "not-bound-before",
     "`{}` may be unbound when the `if` starts (a path that does not bind it, or a `del`), so a branch "
     "that skips it has no value to select"},
    {DeclineCode::BranchReadsUnbound, "branch-reads-unbound",
     "`{}` may be unbound when the `if` starts (a path that does not bind it, or a `del`), and the "
     "selection computes every branch: reading it would raise where the original skips that branch"},
    {DeclineCode::ConditionReadsUnbound, "condition-reads-unbound",
     "`{}` may be unbound when the `if` starts (a path that does not bind it, or a `del`), and the tensor part "
     "of the condition would run only when the Python values tested first are true: the original reads it, and "
     "raises, on every run"},
    {DeclineCode::BindsOuterName, "binds-outer-name",
     "a branch binds `{}`, declared `{}`: other code sees that binding, and a selection would make it on "
     "every path"},
    {DeclineCode::BindsBesidesTarget, "binds-besides-target",
     "`{}` also binds `{}`; a selection binds only the names the branches assign to"},
    {DeclineCode::FrameInspected, "frame-inspected",
     "the function reads its own frame (locals(), vars(), eval, exec or its frame object), which would see the "
     "names the rewrite binds on paths the original does not"},
    {DeclineCode::WalrusInCondition, "walrus-in-condition",
     "the condition binds `{}` with `:=` where the original may not evaluate it: the selection evaluates "
     "every condition of the chain and every operand of `and`/`or`"},
    {DeclineCode::LaterInPlaceUpdate, "later-in-place-update",
     "a tensor is updated in place after the `if` ({}); the selected value would not alias what the "
     "original bound"},
    {DeclineCode::NoTorchName, "no-torch-name",
     "the module binds no name to torch (`import torch`), which the fix's code needs (`torch.where`, `torch.nan`)"},
    {DeclineCode::SpansLinesUnformatted, "spans-lines-unformatted",
     "`{}` spans lines with a comment, a multi-line string or a trailing comma; graphmend does not reformat it"},
    {DeclineCode::ConditionShapeUnknown, "condition-shape-unknown",
     "the condition `{}` is not known to hold one element; torch.where would broadcast it where `if` raises"},
    {DeclineCode::CandidatesMayDiffer, "candidates-may-differ",
     "the values {} takes may differ in shape, dtype or device ({}); torch.where would broadcast or promote"},
    {DeclineCode::GuardInBranch, "guard-in-branch", "a branch holds a validation guard, which this version does not select"},
    {DeclineCode::TemporaryReadByCondition, "temporary-read-by-condition",
     "a condition reads `{}`, which a branch assigns as a temporary; the selection computes it first"},
    {DeclineCode::LongChainReadsSelected, "chain-reads-selected",
     "a condition or value reads {}, which an earlier line of the selection rebinds"},
    {DeclineCode::PythonArithmeticMayRaise, "python-arithmetic-may-raise",
     "`{}` may raise in Python (a division by a value that may be zero, an overflowing power), and the selection "
     "computes it where the original may not"},
    {DeclineCode::TracingMayFail, "tracing-may-fail",
     "`{}`, in this function or a compiled caller, may overflow a float, on which Dynamo fails while tracing "
     "(an internal error): what the fix moves into the graph would be lost with it"},
    {DeclineCode::NeverRuns, "never-runs", "the site sits under `{}`, which never runs its body: nothing to fix"},
    {DeclineCode::AlwaysNameError, "always-name-error",
     "the site can only raise NameError: `{}` inside class `{}` means `{}` (name mangling), which is bound nowhere; "
     "nothing to fix"},

    // [Where]: a buffer selection (register_buffer in both branches; where_buffer.cpp).
    {DeclineCode::BufferCallNotOnName, "buffer-call-not-on-name", "`{}` is not called on a plain name"},
    {DeclineCode::BufferDifferentObjects, "buffer-different-objects",
     "the branches register buffers on different objects"},
    {DeclineCode::BufferNotNonPersistent, "buffer-not-non-persistent",
     "register_buffer's argument `{}` is not `persistent=False`"},
    {DeclineCode::BufferUnpackedArguments, "buffer-unpacked-arguments",
     "register_buffer is called with unpacked arguments"},
    {DeclineCode::BufferCallForm, "buffer-call-form",
     "only `register_buffer(\"name\", value, persistent=False)` rebinds a buffer graphmend can prove "
     "already exists"},
    {DeclineCode::BufferNameNotString, "buffer-name-not-string", "the buffer name `{}` is not a plain string"},
    {DeclineCode::BufferDifferentNames, "buffer-different-names", "the branches register different buffers"},
    {DeclineCode::CacheNotOneAssignment, "cache-not-one-assignment",
     "the cache `{}` is not filled by one `= call(...)` assignment"},
    {DeclineCode::CacheFilledTogether, "cache-filled-together", "the cache `{}` is filled together with `{}`"},
    {DeclineCode::CacheNotFilled, "cache-not-filled", "the assignment under `hasattr` does not fill `{}`"},
    {DeclineCode::CacheInitialiserNotName, "cache-initialiser-not-name",
     "the cache's initialiser `{}` is not a plain name"},
    {DeclineCode::CacheInitialiserUnpacked, "cache-initialiser-unpacked",
     "the cache's initialiser is called with unpacked arguments"},
    {DeclineCode::BufferNotLast, "buffer-not-last", "a branch does not end by registering the buffer"},
    {DeclineCode::BufferAfterOther, "buffer-after-other",
     "a branch has `{}` before registering the buffer; only a cache filled under `if not hasattr(...)` and "
     "a `.to(device)` move are handled there"},
    {DeclineCode::RegisteredValue, "registered-value", "the registered value: {}"},
    {DeclineCode::BufferWithoutElse, "buffer-without-else",
     "a buffer is registered under an `if` without exactly one `else`; only an if/else pair selects "
     "between two buffers"},
    {DeclineCode::StaticConjunctBeforeBuffer, "static-conjunct-before-buffer",
     "a static conjunct before a buffer selection is not rewritten in this version"},
    {DeclineCode::CacheReadOutsideBranch, "cache-read-outside-branch",
     "a registered value reads the cache `{}` outside the branch that fills it"},
    {DeclineCode::CacheBindingReadAfter, "cache-binding-read-after",
     "`{}`, which the cache assignment also binds, is read after the `if`"},

    // [Defer] of an effect decided by a `.item()` value (item_effect.cpp).
    {DeclineCode::ItemNotAssigned, "item-not-assigned",
     "the value is not assigned to a name by a statement of its own; only `name = t.item()` followed by an "
     "`if` that compares `name` with a number, and an `assert` on `t.item()`, are rewritten"},
    {DeclineCode::ItemNoTestAfter, "item-no-test-after",
     "the next statement is not an `if` (without `elif` or `else`) that compares `{}` with a number"},
    {DeclineCode::ItemNumberInexact, "item-number-inexact",
     "the number `{}` has no exact float64 value, so a tensor comparison could differ from Python's"},
    {DeclineCode::ItemBodyNotDeferrable, "item-body-not-deferrable",
     "the `if` that tests `{}` does something other than one `print` or `warnings.warn` call"},
    {DeclineCode::ItemBodyCarries, "item-body-carries",
     "the call under the `if` has arguments other than literals and module-level names; they would be "
     "computed whether or not the test passes"},
    {DeclineCode::ItemNameNotLocal, "item-name-not-local", "`{}` is not a local variable of this function"},
    {DeclineCode::ItemNameUsedElsewhere, "item-name-used-elsewhere",
     "`{}` is used or bound elsewhere in the function; under compile it is not bound"},
    {DeclineCode::ItemFrameInspected, "item-frame-inspected",
     "the function reads its own frame (locals(), vars(), eval or exec), which could see `{}`"},
    {DeclineCode::DeferredWithItem, "deferred-with-item",
     "the `.item()` value the enclosing `if` tests is rewritten together with it (GM401's fix), which defers "
     "this call"},

    // [Trap] of an `assert` on a `.item()` value (trap.cpp).
    {DeclineCode::ItemAssertForm, "item-assert-form",
     "the assert tests something other than `t.item()` or `t.item() <op> n` (one comparison, `.item()` on "
     "the left)"},
    {DeclineCode::ItemAssertOperand, "item-assert-operand",
     "`{}` is neither a number nor a local name bound on every path to the assert; evaluated first, it "
     "could raise where `.item()` raised"},
    {DeclineCode::ItemAssertMessage, "item-assert-message",
     "the assert's message needs values from the call point; the original computes it only when the "
     "test fails"},

    // A `.item()` value kept a tensor (item_tensor.cpp).
    {DeclineCode::ItemTensorReduction, "item-tensor-reduction",
     "`{}` is not the `amax()` or `amin()` of a whole tensor held by a name (`x.amax()`, `x.abs().amax()`); "
     "only those are kept a tensor, as one of the tensor's own elements in its dtype"},
    {DeclineCode::ItemTensorUnproven, "item-tensor-unproven",
     "`{}` is not proven a tensor; `.item()` of another type (a NumPy array) is not kept"},
    {DeclineCode::ItemValueUse, "item-value-use",
     "`{}` is used in `{}`, not only as the number in `x + v`, `x * v`, `v * x` or `x / v` with "
     "the tensor it was taken from; kept a tensor, it could change that result"},
    {DeclineCode::ItemOperandOtherTensor, "item-operand-other-tensor",
     "`{}` is an operand beside `{}`, not beside `{}` that it was taken from: with another dtype, a 0-d "
     "tensor promotes differently from a Python number"},
    {DeclineCode::ItemUseNotAfter, "item-use-not-after",
     "`{}` is used outside the statements after it in the same block"},
    {DeclineCode::ItemOperandRebound, "item-operand-rebound",
     "`{}` may not be the same tensor at each use: it is bound again, deleted, its `.data` replaced, a "
     "name of another scope, or read by a nested function"},
    {DeclineCode::ItemLineTooLong, "item-line-too-long",
     "the statement that binds `{}`, fixed, does not fit the line length even with one method call a line"},
    {DeclineCode::ItemUseMayRunEagerly, "item-use-may-run-eagerly",
     "a loop, `try`, `with` or `match` comes before a use of `{}`: a graph break there can make Dynamo run the "
     "use eagerly, where the number keeps the bits of a NaN the compiled amax gave it"},

    // [Dense] expert dispatch in fixed shapes (dense.cpp).
    {DeclineCode::DispatchLoopElse, "dispatch-loop-else", "the loop has an `else` clause"},
    {DeclineCode::DispatchLoopBody, "dispatch-loop-body",
     "the loop body is not the five statements of an expert dispatch: `layer = experts[e]`, "
     "`idx, tok = torch.where(mask[e])` (then perhaps `if tok.shape[0] == 0: continue`), "
     "`state = hidden[None, tok].reshape(-1, dim)`, `out = layer(state) * weights[tok, idx, None]`, "
     "`final.index_add_(0, tok, out...)`"},
    {DeclineCode::DispatchStatementForm, "dispatch-statement-form", "`{}` is not {}"},
    {DeclineCode::DispatchIteration, "dispatch-iteration",
     "the loop runs over `{}`, neither `range(...)` nor the list of experts with routed tokens made just "
     "before it"},
    {DeclineCode::DispatchHitList, "dispatch-hit-list",
     "`{}` is not `(mask.sum(dim=(-1, -2)) > 0).nonzero(as_tuple=True)[0].tolist()` of the loop's mask, "
     "bound once"},
    {DeclineCode::DispatchMaskSource, "dispatch-mask-source",
     "the mask `{}` is not bound once, before the loop, to `one_hot(selected, ...).permute(2, 1, 0)`"},
    {DeclineCode::DispatchExpertsNotTopk, "dispatch-experts-not-topk",
     "the selected experts `{}` are not bound once to the indices of `torch.topk(..., dim=-1)`: a token "
     "could select one expert twice"},
    {DeclineCode::DispatchWeightsSource, "dispatch-weights-source",
     "the routing weights `{}` are not the values of the same `torch.topk`, kept in shape (`/=`, `*=`, "
     "`.to(...)`)"},
    {DeclineCode::DispatchOutputSource, "dispatch-output-source",
     "the output `{}` is not bound once before the loop, to `torch.zeros(...)`, and left untouched until it"},
    {DeclineCode::DispatchNameAfter, "dispatch-name-after",
     "`{}`, which the loop binds, is read after it; the fixed-shape loop binds it to other values"},
    {DeclineCode::DispatchNameTaken, "dispatch-name-taken",
     "the function already uses the name `{}`, which the fixed-shape loop needs"},
    {DeclineCode::DispatchStoreBody, "dispatch-store-body",
     "the loop body is not a masked expert store: `out[mask] = expert(hidden[mask])` (or `.to(...)` of it), "
     "perhaps after `mask = m[:, :, e].bool()`, the mask the loop variable's column of a tensor, every name "
     "distinct"},
    {DeclineCode::DispatchStoreMask, "dispatch-store-mask",
     "the mask `{}` is not proven boolean: neither `.bool()` of the column nor bound once before the loop to "
     "`... .bool()` (an integer index would gather rows, not select them)"},
    {DeclineCode::DispatchStoreHitList, "dispatch-store-hit-list",
     "`{}` is not `torch.nonzero(s, as_tuple=True)[0].tolist()` of `s = mask.reshape(rows, experts).sum(dim=0)` "
     "of the loop's boolean mask, bound just before the loop"},
});

// The table lists every code once, in the enum's order, so a code indexes its entry.
constexpr bool table_in_enum_order() {
  for (size_t i = 0; i < kDeclineTable.size(); ++i) {
    if (static_cast<size_t>(kDeclineTable[i].code) != i) return false;
  }
  return true;
}
static_assert(table_in_enum_order(), "kDeclineTable must list every DeclineCode once, in the enum's order");
static_assert(static_cast<size_t>(DeclineCode::DispatchStoreHitList) + 1 == kDeclineTable.size(),
              "every DeclineCode needs a table entry");

// How many fields a code's sentence names (its `{}`).
constexpr size_t field_count(DeclineCode code) {
  const std::string_view sentence = kDeclineTable[static_cast<size_t>(code)].sentence;
  size_t count = 0;
  for (size_t at = sentence.find("{}"); at != std::string_view::npos; at = sentence.find("{}", at + 2)) ++count;
  return count;
}

struct Decline {
  DeclineCode code;
  std::vector<std::string> fields;  // the sentence's `{}`, in order

  bool operator==(const Decline&) const = default;
};

// A reason with its fields (anything a std::string can be made from); the number of fields is
// checked against the sentence when this compiles.
template <DeclineCode Code, class... Fields>
Decline decline(Fields&&... fields) {
  static_assert(sizeof...(Fields) == field_count(Code), "a decline reason needs one field per `{}` of its sentence");
  return Decline{Code, {std::string(std::forward<Fields>(fields))...}};
}

// A planner's answer when it makes no fix: why, as data.
struct Declined {
  Decline reason;
};

// The sentence users read ("the `if` is not inside a function").
std::string render(const Decline& reason);
// The code's stable name ("not-in-function"), as JSON reports and the cache write it.
std::string_view code_name(DeclineCode code);
std::optional<DeclineCode> code_named(std::string_view name);

}  // namespace graphmend::rewrite
