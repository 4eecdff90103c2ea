#include "graphmend/rules/requires_grad_assignment.h"

#include <array>

#include <fmt/format.h>

#include "graphmend/rules/conditions.h"

namespace graphmend::rules {

namespace {

// The tensor-valued object whose `requires_grad` the node sets, if it sets one: the object of an
// assignment's `t.requires_grad` target (each target of a chained assignment is an assignment
// node of its own), or the first argument of `setattr(t, "requires_grad", v)`.
ir::Node requires_grad_object(const ir::Module& m, ir::Node n) {
  if (n.is(kind::assignment)) {
    ir::Node left = ir::unparenthesize(n.field(field::left));
    if (!left.is(kind::attribute) || m.text(left.field(field::attribute)) != "requires_grad") return {};
    return left.field(field::object);
  }
  ir::Node fn = ir::unparenthesize(n.field(field::function));
  if (!fn.is(kind::identifier) || m.text(fn) != "setattr") return {};
  const std::vector<ir::Node> args = ir::children_without_comments(n.field(field::arguments));
  if (args.size() != 3 || args[0].is(kind::keyword_argument)) return {};
  const std::string_view name = m.text(args[1]);
  if (name != "\"requires_grad\"" && name != "'requires_grad'") return {};
  if (callee_name(m, n) != "setattr") return {};  // a local `setattr` is someone else's
  return args[0];
}

}  // namespace

const RuleInfo& RequiresGradAssignmentRule::info() const {
  static const RuleInfo kInfo{"GM410", "requires-grad-assignment",
                              "setting a tensor's `requires_grad` attribute in compiled code splits the graph",
                              GraphBreak::RequiresGradSetattr, RuleFamily::Report, FixAvailability::None};
  return kInfo;
}

std::span<const syntax::Kind* const> RequiresGradAssignmentRule::kinds() const {
  static const std::array<const syntax::Kind*, 2> kKinds{&kind::assignment, &kind::call};
  return kKinds;
}

std::unique_ptr<FilePass> RequiresGradAssignmentRule::start(const RuleContext& ctx, DiagnosticSink& sink) const {
  return file_pass([this, &ctx, &sink, &m = ctx.module](ir::Node n) mutable {
    const ir::Node object = requires_grad_object(m, n);
    if (!object || !ctx.types.type_of(m, ir::unparenthesize(object)).tensor_like()) return true;
    sink.report(make_diagnostic(
        info(), n,
        fmt::format("setting `{}.requires_grad` cannot be traced; the graph is split here ({})", m.text(object),
                    cite(GraphBreak::RequiresGradSetattr)),
        "set requires_grad outside the compiled region (on the inputs before the call, on parameters at "
        "construction), or `.detach()` a tensor whose values alone are needed"));
    return true;
  });
}

}  // namespace graphmend::rules
