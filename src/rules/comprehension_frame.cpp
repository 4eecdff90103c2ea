#include "graphmend/rules/comprehension_frame.h"

#include <algorithm>
#include <array>
#include <vector>

#include <fmt/format.h>

#include "graphmend/rules/conditions.h"
#include "graphmend/source/text.h"

namespace graphmend::rules {

namespace {

// On Python 3.11 a list, set or dict comprehension is a function of its own, called with the
// iterator of its first iterable. While Dynamo traces the function around it, it inlines that
// call; once it skips the function (a break in a loop, GB7000), the comprehension runs as a frame
// of its own, which Dynamo starts tracing on that iterator. It can take the iterator of a tuple, a
// `range`, a tensor or a torch.Size, and no other: of a list, a set, a dict or its views, a str,
// or what these builtins return, it fails at once (measured on torch 2.13:
// tests/e2e/test_comprehension_frames.py).
constexpr std::array<std::string_view, 9> kIteratorBuiltins{"zip",  "enumerate", "map",  "filter", "reversed",
                                                            "sorted", "list",    "set",  "dict"};

// True for a display whose elements are all literals (strings, numbers, True/False/None, or
// tuples of those).
bool all_constants(ir::Node display) {
  for (ir::Node e : ir::children_without_comments(display)) {
    e = ir::unparenthesize(e);
    const bool literal = e.is(kind::string) || e.is(kind::concatenated_string) || e.is(kind::integer) ||
                         e.is(kind::float_) || e.is(kind::true_) || e.is(kind::false_) || e.is(kind::none) ||
                         (e.is(kind::tuple) && all_constants(e));
    if (!literal) return false;
  }
  return true;
}

// True when `method` (`registry.get`) is a method of a class of the analysed files, reached
// through a module-level instance of it (`registry = Registry()`), whose return annotation is a
// list, set or dict (`-> dict`, `-> list[str]`): transformers 5's `_CAN_RECORD_REGISTRY.get(self)`.
bool returns_container(const RuleContext& ctx, ir::Node method) {
  const ir::Module& m = ctx.module;
  const ir::Node receiver = ir::unparenthesize(method.field(field::object));
  if (!receiver.is(kind::identifier)) return false;
  const ir::Symbol* symbol = m.module_symbol(receiver);
  if (!symbol || symbol->bindings.size() != 1) return false;
  const ir::Binding& b = m.bindings[static_cast<size_t>(symbol->bindings.front())];
  const ir::Node value = b.kind == ir::BindingKind::Assignment && b.value ? ir::unparenthesize(b.value) : ir::Node{};
  if (!value || !value.is(kind::call)) return false;
  const std::optional<analysis::ClassRef> cls = ctx.project.class_of_expr(m, value.field(field::function));
  if (!cls) return false;
  const std::optional<analysis::FunctionRef> found = ctx.project.find_method(*cls, m.text(method.field(field::attribute)));
  return found && ctx.project.facts_of(*found).returns_container;
}

// True when the iterator of `iterable` is one Dynamo cannot start a frame on: a display or a
// comprehension of a list, set or dict, a string, a call of one of kIteratorBuiltins, a
// dict's `.items()`, `.keys()` or `.values()`, a tensor's `.tolist()`, or a local name that every
// definition reaching it binds to one of those.
bool untakeable_iterable(const RuleContext& ctx, ir::Node iterable, bool through_names = true) {
  const ir::Module& m = ctx.module;
  iterable = ir::unparenthesize(iterable);
  if (!iterable) return false;
  // CPython folds a list display of constants that is the iterable itself into a tuple constant
  // (`for n in ["a", "b"]`), which is taken; a set display into a frozenset, which is not
  // (measured), and a name bound to a list display is a list.
  if (through_names && iterable.is(kind::list) && all_constants(iterable)) return false;
  if (iterable.is(kind::list) || iterable.is(kind::set) || iterable.is(kind::dictionary) ||
      iterable.is(kind::list_comprehension) || iterable.is(kind::set_comprehension) ||
      iterable.is(kind::dictionary_comprehension) || iterable.is(kind::string) ||
      iterable.is(kind::concatenated_string)) {
    return true;
  }
  if (iterable.is(kind::call)) {
    const ir::Node fn = ir::unparenthesize(iterable.field(field::function));
    const bool no_arguments = ir::children_without_comments(iterable.field(field::arguments)).empty();
    if (fn.is(kind::attribute)) {
      const std::string_view method = m.text(fn.field(field::attribute));
      const analysis::ValueType receiver = ctx.types.type_of(m, fn.field(field::object));
      if (method == "tolist") return no_arguments && receiver.tensor_like();
      if (returns_container(ctx, fn)) return true;
      return no_arguments && !receiver.tensor_or_optional() && receiver.kind != analysis::ValueKind::Module &&
             (method == "items" || method == "keys" || method == "values");
    }
    if (!fn.is(kind::identifier)) return false;
    const auto name = callee_name(m, iterable);
    return name && *name == m.text(fn) &&
           std::find(kIteratorBuiltins.begin(), kIteratorBuiltins.end(), *name) != kIteratorBuiltins.end();
  }
  if (iterable.is(kind::identifier) && through_names) {
    const auto bindings = m.ordered_reaching_bindings(iterable);
    if (!bindings || bindings->empty()) return false;
    return std::all_of(bindings->begin(), bindings->end(), [&](int b) {
      const ir::Binding& binding = m.bindings[static_cast<size_t>(b)];
      return binding.kind == ir::BindingKind::Assignment && binding.value &&
             untakeable_iterable(ctx, binding.value, false);
    });
  }
  return false;
}

// Modules of torch that a `from ... import` binds (`from torch import nn`); an `import` statement
// always binds a module.
constexpr std::array<std::string_view, 8> kTorchSubmodules{
    "torch.nn", "torch.nn.functional", "torch.linalg", "torch.fft", "torch.special", "torch.distributed",
    "torch.autograd", "torch.nn.init"};

bool is_torch_module_import(const ir::Binding& b) {
  const std::string_view path = b.import_path;
  if (path != "torch" && !path.starts_with("torch.")) return false;
  return b.statement.is(kind::import_statement) ||
         std::find(kTorchSubmodules.begin(), kTorchSubmodules.end(), path) != kTorchSubmodules.end();
}

// An identifier that reads a variable: not an attribute's name, nor a keyword argument's.
bool is_variable_read(ir::Node id) {
  const ir::Node parent = id.parent();
  if (parent.is(kind::attribute) && parent.field(field::attribute) == id) return false;
  if (parent.is(kind::keyword_argument) && parent.field(field::name) == id) return false;
  return true;
}

// True when `symbol` is `self`, the first parameter of a method of an nn.Module class: the module.
// So is the first parameter of a decorator's wrapper that stands in for methods of nn.Module
// classes only (`def wrapper(self, *args, **kwargs)` of transformers' `@capture_outputs`).
bool is_module_self(const RuleContext& ctx, const ir::Symbol& symbol) {
  const ir::Module& m = ctx.module;
  const int function = m.scopes[static_cast<size_t>(symbol.scope)].function;
  if (function < 0) return false;
  const ir::Function& fn = m.functions[static_cast<size_t>(function)];
  if (fn.params.empty() || fn.params.front().name != symbol.name) return false;
  if (fn.klass >= 0) return symbol.name == "self" && ctx.regions.is_nn_module(analysis::ClassRef{&m, fn.klass});
  const std::span<const analysis::FunctionRef> wrapped = ctx.regions.wrapped_by({&m, function});
  return !wrapped.empty() && std::all_of(wrapped.begin(), wrapped.end(), [&](const analysis::FunctionRef& w) {
    const int klass = ctx.project.facts_of(w).klass;  // from its summary: w may lie in a module not built
    return klass >= 0 && ctx.regions.is_nn_module(analysis::ClassRef{w.module, klass});
  });
}

// The name that makes Dynamo trace the comprehension's frame rather than leave it alone
// (torch/_dynamo/convert_frame.py, has_tensor_in_frame): a global bound to a torch module, or a
// variable of the enclosing function that holds a tensor, a module or a tuple or list of tensors.
// The first iterable is evaluated by the enclosing frame and does not count. Null when none does.
ir::Node name_that_traces(const RuleContext& ctx, ir::Node comprehension, ir::Node first_iterable) {
  const ir::Module& m = ctx.module;
  ir::Node found;
  syntax::walk(comprehension, [&](ir::Node n) {
    if (found || (n.start() == first_iterable.start() && n.end() == first_iterable.end())) return false;
    if (n.is(kind::lambda)) return false;
    if (!n.is(kind::identifier) || !is_variable_read(n)) return true;
    const int symbol = m.lookup_at(n);
    if (symbol < 0) return true;
    const ir::Symbol& s = m.symbols[static_cast<size_t>(symbol)];
    const ir::ScopeKind scope = m.scopes[static_cast<size_t>(s.scope)].kind;
    if (scope == ir::ScopeKind::Module) {
      if (m.bound_only_by(s, {ir::BindingKind::Import}) &&
          std::all_of(s.bindings.begin(), s.bindings.end(),
                      [&](int b) { return is_torch_module_import(m.bindings[static_cast<size_t>(b)]); })) {
        found = n;
      }
    } else if (scope == ir::ScopeKind::Function) {
      const analysis::ValueType t = ctx.types.type_of(m, n);
      if (t.tensor_like() || t.kind == analysis::ValueKind::Module || t.kind == analysis::ValueKind::TensorTuple ||
          is_module_self(ctx, s)) {
        found = n;
      }
    }
    return false;
  });
  return found;
}

// True when a comprehension before the loop lies before a break on the way to it: Dynamo compiles
// the function up to that break, comprehension included, and skips only the frame that resumes
// after it.
bool compiled_before(std::span<const Diagnostic> found, int function, ir::Node comprehension, ir::Node loop) {
  return std::any_of(found.begin(), found.end(), [&](const Diagnostic& d) {
    return d.graph_break && !d.consequence && d.function_index == function &&
           d.range.start >= comprehension.end() && d.range.start < loop.start();
  });
}

struct Candidate {
  ir::Node comprehension;
  ir::Node iterable;
  ir::Node traced_by;
  int function = -1;
};

// A graph break inside the comprehension, its first iterable aside: Dynamo, inlining the
// comprehension, stops at its call in the enclosing frame, and runs it as a frame of its own.
const Diagnostic* break_inside(std::span<const Diagnostic> found, const Candidate& c) {
  for (const Diagnostic& d : found) {
    if (!d.graph_break || d.consequence) continue;
    const bool inside = d.range.start >= c.comprehension.start() && d.range.end <= c.comprehension.end();
    const bool in_iterable = d.range.start >= c.iterable.start() && d.range.end <= c.iterable.end();
    if (inside && !in_iterable) return &d;
  }
  return nullptr;
}

// `zip(...)`, the builtin. At such a stop Dynamo rebuilds the iterator it holds to pass it to the
// call: a list's or a range's as a tuple's, which the new frame then takes, and a zip as a zip,
// which it cannot (measured: tests/e2e/test_comprehension_frames.py). Other iterators fail in
// other ways, not all at the comprehension's line, and are not reported.
bool is_zip_call(const ir::Module& m, ir::Node iterable) {
  iterable = ir::unparenthesize(iterable);
  if (!iterable.is(kind::call)) return false;
  const ir::Node fn = ir::unparenthesize(iterable.field(field::function));
  return fn.is(kind::identifier) && m.text(fn) == "zip" && callee_name(m, iterable) == "zip";
}

}  // namespace

const RuleInfo& ComprehensionFrameRule::info() const {
  static const RuleInfo kInfo{"GM413", "comprehension-frame",
                              "a comprehension in a function Dynamo skips is a frame it cannot iterate",
                              GraphBreak::MissingIterNext, RuleFamily::Report, FixAvailability::None};
  return kInfo;
}

std::span<const syntax::Kind* const> ComprehensionFrameRule::kinds() const {
  static const std::array<const syntax::Kind*, 3> kKinds{&kind::list_comprehension, &kind::set_comprehension,
                                                         &kind::dictionary_comprehension};
  return kKinds;
}

std::unique_ptr<FilePass> ComprehensionFrameRule::start(const RuleContext& ctx, DiagnosticSink& sink) const {
  struct Pass final : FilePass {
    Pass(const RuleInfo& info, const RuleContext& ctx, DiagnosticSink& sink) : info_(info), ctx_(ctx), sink_(sink) {}

    // A comprehension nested in another is inlined into the outer one's frame: only the outermost
    // is looked at.
    bool on_node(ir::Node n) override {
      ir::Node clause;
      for (ir::Node c : n.named_children()) {
        if (c.is(kind::for_in_clause)) {
          clause = c;
          break;
        }
      }
      if (!clause || ctx_.module.text(clause).starts_with("async")) return false;
      const ir::Node iterable = clause.field(field::right);
      if (!untakeable_iterable(ctx_, iterable)) return false;
      const ir::Node traced_by = name_that_traces(ctx_, n, iterable);
      if (!traced_by) return false;
      candidates_.push_back({n, iterable, traced_by, ctx_.module.function_of(n)});
      return false;
    }

    void finish(std::span<const Diagnostic> found) override {
      const ir::Module& m = ctx_.module;
      std::vector<std::pair<int, Diagnostic>> reports;
      std::optional<source::LineIndex> lines;
      for (const Candidate& c : candidates_) {
        if (c.function < 0) continue;
        const ir::Function& fn = m.functions[static_cast<size_t>(c.function)];
        if (!lines) lines.emplace(m.text());
        // Its own break first: Dynamo stops at the comprehension's call, and the frame follows.
        if (const Diagnostic* inner = break_inside(found, c); inner && is_zip_call(m, c.iterable)) {
          const size_t line = lines->line_of(inner->range.start);
          reports.emplace_back(
              c.function,
              make_diagnostic(
                  info_, c.comprehension,
                  fmt::format("the break at line {} inside this comprehension stops Dynamo at its call; on "
                              "Python 3.11 it then runs as a frame of its own (it reads `{}`), which Dynamo starts "
                              "on the iterator of `{}` and cannot step ({})",
                              line, m.text(c.traced_by), ir::snippet(m, c.iterable), cite(GraphBreak::MissingIterNext)),
                  fmt::format("it goes with the break at line {}: fix that one. Python 3.12 inlines comprehensions "
                              "(PEP 709), so there is no such frame",
                              line)));
          continue;
        }
        // Why Dynamo skips the function: a break in one of its loops, a break inside a `try`, or,
        // in a decorator's wrapper, a break in the function it wraps, called inside a `try`.
        std::string why, remedy;
        ir::Node skipper = loop_that_skips(m, found, c.function);
        if (skipper) {
          why = fmt::format("for the break in the loop at line {}", lines->line_of(skipper.start()));
          remedy = fmt::format("fix that one (the loop at line {})", lines->line_of(skipper.start()));
        } else if ((skipper = try_that_skips(m, found, c.function))) {
          why = fmt::format("for the break inside the `try` at line {}", lines->line_of(skipper.start()));
          remedy = fmt::format("fix that one (the `try` at line {})", lines->line_of(skipper.start()));
        } else if ((skipper = try_around_wrapped_call(ctx_, c.function))) {
          why = fmt::format("whenever the function it wraps breaks the graph (it is called inside the `try` at "
                            "line {})",
                            lines->line_of(skipper.start()));
          remedy = "fix the breaks of the functions it wraps, or call the wrapped function outside the `try` "
                   "(a `with` block lets Dynamo resume)";
        }
        if (!skipper || compiled_before(found, c.function, c.comprehension, skipper)) continue;
        reports.emplace_back(
            c.function,
            make_diagnostic(
                info_, c.comprehension,
                fmt::format("Dynamo skips `{}` {}; on Python 3.11 this comprehension (it reads `{}`) is then a "
                            "frame of its own, which Dynamo starts on the iterator of `{}` and cannot step ({})",
                            fn.qualname, why, m.text(c.traced_by), ir::snippet(m, c.iterable),
                            cite(GraphBreak::MissingIterNext)),
                fmt::format("it goes with the break that makes Dynamo skip `{}`: {}. A tuple, `range` or tensor "
                            "iterable is taken as it is; Python 3.12 inlines comprehensions (PEP 709), so there "
                            "is no such frame",
                            fn.qualname, remedy)));
      }
      for (auto& [function, d] : reports) {
        d.consequence = true;
        report_in_function(ctx_, sink_, function, std::move(d));
      }
    }

    const RuleInfo& info_;
    const RuleContext& ctx_;
    DiagnosticSink& sink_;
    std::vector<Candidate> candidates_;
  };
  return std::make_unique<Pass>(info(), ctx, sink);
}

}  // namespace graphmend::rules
