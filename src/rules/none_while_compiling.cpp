#include "graphmend/rules/none_while_compiling.h"

#include <algorithm>
#include <array>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "graphmend/rules/conditions.h"
#include "graphmend/source/text.h"

namespace graphmend::rules {

namespace {

// Callers followed into callees, at most: transformers' LongT5 passes its mask two calls deep.
constexpr int kMaxCallDepth = 3;

// The `X is None` among the conjuncts of an `and` chain, X a plain name; null when there is none.
ir::Node none_tested_name(const ir::Module& m, ir::Node cond) {
  cond = ir::unparenthesize(cond);
  if (cond.is(kind::boolean_operator)) {
    if (m.text(cond.field(field::operator_)) != "and") return {};
    if (ir::Node left = none_tested_name(m, cond.field(field::left))) return left;
    return none_tested_name(m, cond.field(field::right));
  }
  if (!cond.is(kind::comparison_operator) || ir::comparison_operator(m, cond) != "is") return {};
  const ir::Node name = ir::unparenthesize(cond.named_child(0));
  const ir::Node none = ir::unparenthesize(cond.named_child(1));
  return name.is(kind::identifier) && none.is(kind::none) ? name : ir::Node{};
}

bool mentions(const ir::Module& m, ir::Node expr, std::string_view name) {
  bool found = false;
  syntax::walk(expr, [&](ir::Node n) {
    if (found) return false;
    found = n.is(kind::identifier) && m.text(n) == name;
    return !found;
  });
  return found;
}

// True when something between the function's body and `use` may keep `use` from running with
// None, or from raising out of the frame: a condition on the name (`if x is not None:`, `x and
// x.y`, `a if x is None else b`), a `try` (a handler may catch the exception; a `finally` moves
// the logged site), a `with` (a context manager may swallow the exception), or a frame of its own
// (a comprehension or lambda).
bool guarded(const ir::Module& m, ir::Node use, ir::Node body, std::string_view name) {
  for (ir::Node child = use, n = use.parent(); n && n != body; child = n, n = n.parent()) {
    if (n.is(kind::if_statement) || n.is(kind::elif_clause) || n.is(kind::while_statement)) {
      const ir::Node cond = n.field(field::condition);
      if (!cond.range().contains(use.range()) && mentions(m, cond, name)) return true;
    } else if (n.is(kind::conditional_expression) && n.named_child_count() == 3) {
      if (child != n.named_child(1) && mentions(m, n.named_child(1), name)) return true;
    } else if (n.is(kind::boolean_operator)) {
      if (child == n.field(field::right) && mentions(m, n.field(field::left), name)) return true;
    } else if (n.is(kind::try_statement)) {
      // A handler may catch it; a `finally` re-raises it from its own last line, where Dynamo
      // then logs it (measured), not here.
      if (child == n.field(field::body)) return true;
    } else if (n.is(kind::with_statement) || n.is(kind::lambda) || n.is(kind::list_comprehension) ||
               n.is(kind::set_comprehension) || n.is(kind::dictionary_comprehension) ||
               n.is(kind::generator_expression)) {
      return true;
    }
  }
  return false;
}

// The part of `n` that tests a value, if `n` tests one: an `if`'s, `elif`'s or `while`'s
// condition, an `assert`, the test of `a if c else b`, the left of `and`/`or`.
ir::Node tested_part(ir::Node n) {
  if (n.is(kind::if_statement) || n.is(kind::elif_clause) || n.is(kind::while_statement)) {
    return n.field(field::condition);
  }
  if (n.is(kind::assert_statement)) return n;
  if (n.is(kind::conditional_expression) && n.named_child_count() == 3) return n.named_child(1);
  if (n.is(kind::boolean_operator)) return n.field(field::left);
  return {};
}

// Where the first test of the name in the function after `from` ends: a use at or after it may
// follow an `if x is None: return ...` that ends the None path there. One walk per name.
uint32_t end_of_first_test(const ir::Module& m, const ir::Function& fn, size_t from, std::string_view name) {
  uint32_t first_end = UINT32_MAX;
  analysis::walk_body(fn, [&](ir::Node n) {
    if (n.end() <= from || n.start() >= first_end) return false;
    const ir::Node cond = tested_part(n);
    if (cond && cond.start() >= from && mentions(m, cond, name)) first_end = std::min(first_end, cond.end());
    return true;
  });
  return first_end;
}

// True when `use` runs whenever its function does: in no block nested in the body (an `if`'s
// condition is evaluated, its branches may not be), not in a branch of `a if c else b` and not
// on the right of `and`/`or`.
bool runs_on_entry(ir::Node use, ir::Node body) {
  for (ir::Node child = use, n = use.parent(); n && n != body; child = n, n = n.parent()) {
    if (n.is(kind::block)) return false;
    if (n.is(kind::conditional_expression) && n.named_child_count() == 3 && child != n.named_child(1)) return false;
    if (n.is(kind::boolean_operator) && child == n.field(field::right)) return false;
  }
  return true;
}

// What using the name at `use` does with None: raises (the exception's name), or passes it to a
// call (`argument` set); neither: nothing is known.
struct UseOfNone {
  std::string_view raises;
  ir::Node call;      // the call the name is an argument of
  ir::Node argument;  // the argument: `use` or the keyword argument holding it
};

UseOfNone use_of_none(const ir::Module& m, ir::Node use) {
  const ir::Node parent = use.parent();
  if (parent.is(kind::attribute) && parent.field(field::object) == use) {
    return {m.text(parent.field(field::attribute)).starts_with("__") ? "" : "AttributeError", {}, {}};
  }
  // An arithmetic operand is not one: a tensor times None fails Dynamo's fake-tensor run, an
  // error out of torch.compile rather than a break (measured).
  if ((parent.is(kind::subscript) && parent.field(field::value) == use) ||
      (parent.is(kind::call) && parent.field(field::function) == use)) {
    return {"TypeError", {}, {}};
  }
  if (parent.is(kind::argument_list) && parent.parent().is(kind::call)) return {"", parent.parent(), use};
  if (parent.is(kind::keyword_argument) && parent.field(field::value) == use && parent.parent().is(kind::argument_list)) {
    return {"", parent.parent().parent(), parent};
  }
  return {};
}

// The statement `n` belongs to: its ancestor that is a child of a block.
ir::Node statement_of(ir::Node n) {
  while (n.parent() && !n.parent().is(kind::block)) n = n.parent();
  return n;
}

// A use of the None that raises: where, what, and the path of calls that brought it there.
struct Raise {
  ir::Node site;  // the expression that raises
  int function = -1;
  std::string_view name;  // what holds the None there
  std::string_view exception;
  std::vector<std::pair<int, std::string_view>> passed;  // (function, parameter) it came through
};

class NoneTracker {
 public:
  // Follows the None in `m`, this file or another one (a function a decorator here wraps).
  NoneTracker(const RuleContext& ctx, const ir::Module& m) : ctx_(ctx), m_(m) {}

  // The uses of `name` (a variable of `function`) after `from` that raise first while it holds
  // None, followed into the callees of this module it is passed to. `holds_none(binding)` says
  // which bindings reaching a use carry the None; `other(binding)` which others may reach too
  // (never with None).
  template <typename HoldsNone, typename Other>
  std::vector<Raise> first_raises(int function, std::string_view name, size_t from, HoldsNone holds_none,
                                  Other other, int depth) const {
    const ir::Module& m = m_;
    const ir::Function& fn = m.functions[static_cast<size_t>(function)];
    const int symbol = m.lookup(fn.scope, name);
    if (symbol < 0) return {};
    const ir::Node body = fn.node.field(field::body);
    const uint32_t tested_from = end_of_first_test(m, fn, from, name);
    std::vector<std::pair<ir::Node, std::vector<Raise>>> candidates;  // the use, what it raises
    analysis::walk_body(fn, [&](ir::Node n) {
      if (n.is(kind::list_comprehension) || n.is(kind::set_comprehension) ||
          n.is(kind::dictionary_comprehension) || n.is(kind::generator_expression)) {
        return false;
      }
      if (!n.is(kind::identifier) || n.start() < from || m.text(n) != name || m.lookup_at(n) != symbol) return true;
      const std::optional<std::vector<int>> reaching = m.ordered_reaching_bindings(n);
      if (!reaching || reaching->empty()) return true;
      bool with_none = false;
      for (int b : *reaching) {
        if (holds_none(b)) {
          with_none = true;
        } else if (!other(b)) {
          return true;
        }
      }
      if (!with_none || guarded(m, n, body, name) || tested_from <= n.start()) return true;
      // In a callee only a use that runs on every call counts: whether a branch of it is taken
      // depends on what the caller passes besides the None (BioGPT passes position_ids, and its
      // positional embedding reads the mask only without them).
      if (depth > 0 && !runs_on_entry(n, body)) return true;
      const UseOfNone use = use_of_none(m, n);
      if (!use.raises.empty()) {
        candidates.push_back({n, {Raise{n.parent(), function, name, use.raises, {}}}});
      } else if (use.call && depth < kMaxCallDepth) {
        std::vector<Raise> inner = into_callee(use, depth);
        for (Raise& r : inner) r.passed.insert(r.passed.begin(), {function, name});
        if (!inner.empty()) candidates.push_back({n, std::move(inner)});
      }
      return true;
    });
    // The first raise on a path ends it: a use that runs only after another raised is not reached,
    // that is, one inside the block of an earlier candidate's statement (candidates come in
    // source order).
    std::vector<Raise> out;
    std::set<const void*> blocks_after_a_raise;
    for (auto& [use, raises] : candidates) {
      bool after_another = false;
      for (ir::Node n = use.parent(); n && !after_another; n = n.parent()) {
        after_another = blocks_after_a_raise.contains(n.id());
      }
      blocks_after_a_raise.insert(statement_of(use).parent().id());
      if (after_another) continue;
      for (Raise& r : raises) out.push_back(std::move(r));
    }
    return out;
  }

 private:
  // The raises inside the function of this module that `use.call` calls, of the parameter the
  // None is passed as, before anything rebinds it.
  std::vector<Raise> into_callee(const UseOfNone& use, int depth) const {
    const ir::Module& m = m_;
    const std::optional<analysis::FunctionRef> callee = ctx_.regions.callee_of(m_, use.call);
    if (!callee || callee->module != &m) return {};
    const ir::Function& target = m.functions[static_cast<size_t>(callee->function)];
    const ir::Node fn_node = ir::unparenthesize(use.call.field(field::function));
    const bool receiver_bound = fn_node.is(kind::attribute) && target.klass >= 0 && !target.params.empty() &&
                                (target.params.front().name == "self" || target.params.front().name == "cls");
    int parameter = -1;
    const bool complete = analysis::for_each_argument(ctx_.project, m, use.call, *callee, receiver_bound, [&](int p, ir::Node arg) {
      if (arg == use.argument || (use.argument.is(kind::keyword_argument) && arg == use.argument.field(field::value))) {
        parameter = p;
      }
    });
    if (!complete || parameter < 0 || static_cast<size_t>(parameter) >= target.params.size()) return {};
    const ir::Parameter& param = target.params[static_cast<size_t>(parameter)];
    if (param.kind != ir::Parameter::Kind::Regular && param.kind != ir::Parameter::Kind::KeywordOnly) return {};
    const int symbol = m.lookup(target.scope, param.name);
    if (symbol < 0) return {};
    const auto is_parameter = [&](int b) {
      const ir::Binding& binding = m.bindings[static_cast<size_t>(b)];
      return binding.kind == ir::BindingKind::Parameter && binding.symbol == symbol;
    };
    return first_raises(callee->function, param.name, target.node.field(field::body).start(), is_parameter,
                        [](int) { return false; }, depth + 1);
  }

  const RuleContext& ctx_;
  const ir::Module& m_;
};

// An `if` that sets a default only outside torch.compile: `if x is None and not
// is_torchdynamo_compiling(): x = ...`, with no else. Under compile its body never runs, and x
// stays what it was: None, when the caller left it so.
struct CompileSkippedDefault {
  ir::Node statement;
  ir::Node name;  // in the condition
  int function = -1;
};

// The compile-skipped default `n` sets, if it is one.
std::optional<CompileSkippedDefault> compile_skipped_default(const ir::Module& m, ir::Node n) {
  if (!n.is(kind::if_statement) || !n.children_by_field(field::alternative).empty()) return std::nullopt;
  const ir::Node cond = n.field(field::condition);
  const ir::Node name = none_tested_name(m, cond);
  if (!name) return std::nullopt;
  const std::optional<bool> truth = analysis::compile_time_truth(m, cond);
  if (!truth || *truth) return std::nullopt;
  return CompileSkippedDefault{n, name, m.function_of(n)};
}

// True when the binding can hold None: a parameter whose default is None, or `x = None`.
bool may_bind_none(const ir::Module& m, const ir::Binding& b) {
  if (b.kind == ir::BindingKind::Parameter) {
    const ir::Parameter* p = m.parameter_of(b);
    return p && p->default_value && ir::unparenthesize(p->default_value).is(kind::none);
  }
  return b.kind == ir::BindingKind::Assignment && b.value && ir::unparenthesize(b.value).is(kind::none);
}

// " through `f` through `g`": the functions between the one that leaves the None and the raise.
std::string exception_path(const ir::Module& m, const Raise& r) {
  std::string out;
  for (size_t i = 1; i < r.passed.size(); ++i) {
    out += fmt::format(" through `{}`", m.functions[static_cast<size_t>(r.passed[i].first)].qualname);
  }
  return out;
}

// The first raises of the None that `d` leaves, here or in the callees it is passed to; none when
// no None reaches the test or the default is never bound.
std::vector<Raise> raises_of(const NoneTracker& tracker, const ir::Module& m, const CompileSkippedDefault& d) {
  if (d.function < 0) return {};
  const ir::Node consequence = d.statement.field(field::consequence);
  const std::optional<std::vector<int>> before = m.ordered_reaching_bindings(d.name);
  if (!before || before->empty()) return {};
  const bool none_reaches = std::any_of(before->begin(), before->end(), [&](int b) {
    return may_bind_none(m, m.bindings[static_cast<size_t>(b)]);
  });
  const auto sets_default = [&](int b) {
    const ir::Binding& binding = m.bindings[static_cast<size_t>(b)];
    return binding.target && consequence.range().contains(binding.target.range());
  };
  const std::span<const int> all = m.bindings_of(d.name);
  if (!none_reaches || std::none_of(all.begin(), all.end(), sets_default)) return {};
  const auto holds_none = [&](int b) { return std::find(before->begin(), before->end(), b) != before->end(); };
  return tracker.first_raises(d.function, m.text(d.name), d.statement.end(), holds_none, sets_default, 0);
}

// The line at which Dynamo logs an exception passing `try_statement`'s `finally`: its last
// statement, when that is a simple one (after a compound one it is whichever line ran last).
// Null when there is no `finally`, or a handler may catch the exception first.
ir::Node last_statement_of_finally(ir::Node try_statement) {
  ir::Node last;
  for (ir::Node c : try_statement.named_children()) {
    if (c.is(kind::except_clause) || c.is(kind::except_group_clause)) return {};
    if (!c.is(kind::finally_clause)) continue;
    const std::vector<ir::Node> block = ir::children_without_comments(c.named_child(c.named_child_count() - 1));
    if (!block.empty() && (block.back().is(kind::expression_statement) || block.back().is(kind::delete_statement))) {
      last = block.back();
    }
  }
  return last;
}

}  // namespace

const RuleInfo& NoneWhileCompilingRule::info() const {
  static const RuleInfo kInfo{"GM414", "none-while-compiling",
                              "a value that an `is_compiling()` test leaves None under torch.compile is used as if "
                              "set: the traced code raises and Dynamo gives up the frame",
                              GraphBreak::ObservedException, RuleFamily::Report, FixAvailability::None};
  return kInfo;
}

std::span<const syntax::Kind* const> NoneWhileCompilingRule::kinds() const {
  static const std::array<const syntax::Kind*, 1> kKinds{&kind::if_statement};
  return kKinds;
}

std::unique_ptr<FilePass> NoneWhileCompilingRule::start(const RuleContext& ctx, DiagnosticSink& sink) const {
  struct Pass final : FilePass {
    Pass(const RuleInfo& info, const RuleContext& ctx, DiagnosticSink& sink) : info_(info), ctx_(ctx), sink_(sink) {}

    bool on_node(ir::Node n) override {
      if (std::optional<CompileSkippedDefault> d = compile_skipped_default(ctx_.module, n)) defaults_.push_back(*d);
      return true;
    }

    void finish(std::span<const Diagnostic> /*found*/) override {
      const ir::Module& m = ctx_.module;
      std::optional<source::LineIndex> lines;
      std::set<std::pair<int, size_t>> reported;
      const NoneTracker tracker(ctx_, m);
      for (const CompileSkippedDefault& d : defaults_) {
        const std::vector<Raise> raises = raises_of(tracker, m, d);
        if (raises.empty()) continue;
        if (!lines) lines.emplace(m.text());
        const size_t test_line = lines->line_of(d.statement.start());
        const std::string_view name = m.text(d.name);
        const std::string test = ir::snippet(m, d.statement.field(field::condition));
        const std::string_view caller = m.functions[static_cast<size_t>(d.function)].qualname;
        for (const Raise& r : raises) {
          if (!reported.emplace(r.function, r.site.start()).second) continue;
          std::string message;
          if (r.passed.empty()) {
            message = fmt::format(
                "under torch.compile `{}` is still None here when it is None on entry: `{}` (line {}) is false "
                "while Dynamo traces, so its default is never made; the traced code raises {} where eager code "
                "does not, and Dynamo gives up the frame and runs it eagerly ({})",
                name, test, test_line, r.exception, cite(GraphBreak::ObservedException));
          } else {
            message = fmt::format(
                "under torch.compile `{}` is None here when `{}` passes it `{}`{}, which `{}` (line {}) leaves None "
                "while Dynamo traces; the traced code raises {} where eager code does not, and Dynamo gives up the "
                "frame and runs it eagerly ({})",
                r.name, caller, name, exception_path(m, r), test, test_line, r.exception,
                cite(GraphBreak::ObservedException));
          }
          Diagnostic diagnostic = make_diagnostic(
              info_, r.site, std::move(message),
              fmt::format("make the default for `{}` under torch.compile too: drop the `is_compiling()` test from line {} (eager "
                          "code computes it anyway), or test `{} is not None` before using it",
                          name, test_line, name));
          report_in_function(ctx_, sink_, r.function, std::move(diagnostic));
        }
      }
      report_wrappers_passing_a_raise();
    }

    // A decorator's wrapper that calls what it wraps inside `try: ... finally:` (transformers'
    // `capture_outputs`): when a wrapped function, here or in another file, raises so under
    // torch.compile, the exception passes the `finally`, and Dynamo logs it again at the
    // finally's last line (measured: tests/e2e/test_wrapped_raise.py). A consequence of that site.
    void report_wrappers_passing_a_raise() {
      const ir::Module& m = ctx_.module;
      for (const int wrapper : ctx_.compiled_functions()) {
        const ir::Node try_statement = try_around_wrapped_call(ctx_, wrapper);
        const ir::Node last = try_statement ? last_statement_of_finally(try_statement) : ir::Node{};
        if (!last) continue;
        for (const analysis::FunctionRef& wrapped : ctx_.regions.wrapped_by({&m, wrapper})) {
          const std::optional<Raise> raise = first_raise_in(wrapped);
          if (!raise || !reaches_finally_traced(wrapped, wrapper)) continue;
          const ir::Module& wm = *wrapped.module;
          const ir::Function& fn = wm.functions[static_cast<size_t>(wrapped.function)];
          const uint32_t line = source::LineIndex(wm.text()).line_of(raise->site.start());  // one per wrapper
          const std::string where =
              &wm == &m ? fmt::format("line {}", line) : fmt::format("{}:{}", wm.module_name(), line);
          Diagnostic diagnostic = make_diagnostic(
              info_, last,
              fmt::format("`{}`, which this wrapper calls inside the `try`, raises under torch.compile ({}: `{}` is "
                          "left None by an `is_compiling()` test); the exception passes this `finally`, and Dynamo "
                          "gives up this frame too, logged at its last line ({})",
                          fn.qualname, where, raise->name, cite(GraphBreak::ObservedException)),
              fmt::format("fix the raise in `{}` ({}); this line follows from it", fn.qualname, where));
          diagnostic.consequence = true;
          report_in_function(ctx_, sink_, wrapper, std::move(diagnostic));
          break;
        }
      }
    }

    // True when the exception `f` raises reaches `wrapper`'s `finally` while Dynamo still traces
    // it: every decorator inside `wrapper`'s (between it and `f`) is one of the analysed code
    // whose wrappers hold no `try` around the call they make. Such a `try` (transformers'
    // `capture_outputs` under `merge_with_config_defaults`) comes with breaks of its own that
    // make Dynamo skip the outer frame first (the 5.24.0 census logs only the inner `finally`);
    // a pass-through like `deprecate_kwarg` does not.
    bool reaches_finally_traced(analysis::FunctionRef f, int wrapper) const {
      f.module->ensure_built();
      const ir::Function& fn = f.module->functions[static_cast<size_t>(f.function)];
      for (auto it = fn.decorators.rbegin(); it != fn.decorators.rend(); ++it) {
        ir::Node expr = ir::unparenthesize(*it);
        if (expr.is(kind::call)) expr = ir::unparenthesize(expr.field(field::function));
        const std::optional<analysis::FunctionRef> decorator = ctx_.project.function_of_expr(*f.module, expr);
        if (!decorator) return false;
        const ir::Module& dm = *decorator->module;
        dm.ensure_built();
        bool holds_try = false;
        for (int fi = 0; fi < static_cast<int>(dm.functions.size()) && !holds_try; ++fi) {
          bool inside = false;
          for (int e = fi; e >= 0 && !inside; e = dm.functions[static_cast<size_t>(e)].enclosing_function) {
            inside = e == decorator->function;
          }
          if (!inside) continue;
          if (&dm == &ctx_.module && fi == wrapper) return true;
          holds_try = static_cast<bool>(try_around_outer_parameter_call(dm, fi));
        }
        if (holds_try) return false;
      }
      return false;
    }

    // The first raise, in source order, of a None that a compile-skipped default in `f` leaves.
    std::optional<Raise> first_raise_in(analysis::FunctionRef f) const {
      const ir::Module& fm = *f.module;
      fm.ensure_built();
      const NoneTracker tracker(ctx_, fm);
      std::optional<Raise> first;
      analysis::walk_body(fm.functions[static_cast<size_t>(f.function)], [&](ir::Node n) {
        if (const std::optional<CompileSkippedDefault> d = compile_skipped_default(fm, n)) {
          for (Raise& r : raises_of(tracker, fm, *d)) {
            if (!first || r.site.start() < first->site.start()) first = std::move(r);
          }
        }
        return true;
      });
      return first;
    }

    const RuleInfo& info_;
    const RuleContext& ctx_;
    DiagnosticSink& sink_;
    std::vector<CompileSkippedDefault> defaults_;
  };
  return std::make_unique<Pass>(info(), ctx, sink);
}

}  // namespace graphmend::rules
