#include "graphmend/rules/tensor_slice_bound.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "graphmend/rules/capture_remedy.h"
#include "graphmend/rules/conditions.h"

namespace graphmend::rules {

namespace {

// The first bound of `n` that is a tensor: an expression of a slice (`a:b:c`), or an argument of
// a call to the builtin `slice`.
ir::Node tensor_bound(const RuleContext& ctx, const ir::Module& m, ir::Node n) {
  std::vector<ir::Node> bounds;
  if (n.is(kind::slice)) {
    bounds = ir::children_without_comments(n);
  } else {
    const ir::Node fn = ir::unparenthesize(n.field(field::function));
    if (!fn.is(kind::identifier) || m.text(fn) != "slice" || callee_name(m, n) != "slice") return {};
    for (ir::Node a : ir::children_without_comments(n.field(field::arguments))) {
      if (a.is(kind::keyword_argument) || a.is(kind::list_splat) || a.is(kind::dictionary_splat)) return {};
      bounds.push_back(a);
    }
  }
  for (ir::Node b : bounds) {
    b = ir::unparenthesize(b);
    if (b && ctx.types.type_of(m, b).tensor_like()) return b;
  }
  return {};
}

// The statement that evaluates `site` whenever it runs, found by climbing to the statement that
// sits directly in a block; null when the site is evaluated only on some paths through that
// statement (an arm of `a if c else b`, an operand of `and`/`or`, an `elif` condition, a lambda's
// or a comprehension's body).
ir::Node unconditional_statement(ir::Node site) {
  for (ir::Node n = site; n; n = n.parent()) {
    if (n.is(kind::conditional_expression) || n.is(kind::boolean_operator) || n.is(kind::lambda) ||
        n.is(kind::list_comprehension) || n.is(kind::set_comprehension) || n.is(kind::dictionary_comprehension) ||
        n.is(kind::generator_expression) || n.is(kind::elif_clause) || n.is(kind::else_clause) ||
        n.is(kind::except_clause) || n.is(kind::case_clause)) {
      return {};
    }
    const ir::Node parent = n.parent();
    if (parent && (parent.is(kind::block) || parent.is(kind::module_))) return n;
  }
  return {};
}

}  // namespace

const RuleInfo& TensorSliceBoundRule::info() const {
  static const RuleInfo kInfo{"GM412", "tensor-slice-bound",
                              "a tensor used as a slice bound needs its value as a Python int; Dynamo stops "
                              "compiling there",
                              GraphBreak::TensorItem, RuleFamily::Report, FixAvailability::None};
  return kInfo;
}

std::span<const syntax::Kind* const> TensorSliceBoundRule::kinds() const {
  static const std::array<const syntax::Kind*, 2> kKinds{&kind::slice, &kind::call};
  return kKinds;
}

std::unique_ptr<FilePass> TensorSliceBoundRule::start(const RuleContext& ctx, DiagnosticSink& sink) const {
  // Statements that stop Dynamo's trace of their function: a slice there is evaluated on every run
  // of the statement, and Dynamo runs the rest of the function eagerly, so another site in the
  // same statement, or in a later statement of the same block (or nested in one), is never traced
  // and is not reported. Kept per block: where its first such statement starts.
  return file_pass([this, &ctx, &sink, &m = ctx.module, first_stop = std::unordered_map<const void*, uint32_t>(),
                    reported = std::unordered_set<const void*>()](ir::Node n) mutable {
    // One finding per subscript: its first slice with a tensor bound.
    if (n.is(kind::slice) && n.parent().is(kind::subscript) && reported.contains(n.parent().id())) return true;
    const ir::Node bound = tensor_bound(ctx, m, n);
    if (!bound) return true;
    // Within its own function (the climb ends at the definition), a statement holding the site,
    // or one before it in the same block, stops the trace first (a compound statement's header
    // runs before its body).
    for (ir::Node a = n; a && !a.is(kind::function_definition); a = a.parent()) {
      const ir::Node block = a.parent();
      if (!block || !(block.is(kind::block) || block.is(kind::module_))) continue;
      if (const auto stop = first_stop.find(block.id()); stop != first_stop.end() && stop->second <= a.start()) {
        return true;
      }
    }
    if (const ir::Node statement = unconditional_statement(n)) {
      const auto [stop, added] = first_stop.try_emplace(statement.parent().id(), statement.start());
      if (!added) stop->second = std::min(stop->second, statement.start());
    }
    if (n.is(kind::slice) && n.parent().is(kind::subscript)) reported.insert(n.parent().id());
    sink.report(make_diagnostic(
        info(), n,
        fmt::format("the slice bound `{}` is a tensor: Dynamo needs it as a Python int, calls `.item()`, and stops "
                    "compiling here; the rest of the function runs eagerly ({})",
                    m.text(bound), cite(GraphBreak::TensorItem)),
        // The slice has a size Dynamo does not know: what needs it decides whether the flag is enough.
        capture_remedy(ctx, n.is(kind::slice) ? n.parent() : n, CapturedValue::Sized, kCaptureScalarOutputs,
                       "bound the slice with Python ints from shapes (x.shape, x.size()), or mask a slice of static "
                       "size")));
    return true;
  });
}

}  // namespace graphmend::rules
