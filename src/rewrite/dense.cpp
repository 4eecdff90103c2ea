#include "graphmend/rewrite/dense.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>

#include "graphmend/analysis/truth.h"

namespace graphmend::rewrite {

namespace {

constexpr std::string_view kRouted = "_graphmend_routed";

// The assignment a statement consists of, or null.
ir::Node assignment_of(ir::Node stmt) {
  ir::Node a = ir::sole_expression(stmt);
  return a.is(kind::assignment) ? a : ir::Node{};
}

// The identifiers of a two-name pattern `a, b` (parenthesised or not), or nullopt.
std::optional<std::array<ir::Node, 2>> two_names(ir::Node target) {
  target = ir::unparenthesize(target);
  if (!target.is(kind::pattern_list) && !target.is(kind::tuple_pattern)) return std::nullopt;
  const std::vector<ir::Node> named = ir::children_without_comments(target);
  if (named.size() != 2 || !named[0].is(kind::identifier) || !named[1].is(kind::identifier)) return std::nullopt;
  return std::array<ir::Node, 2>{named[0], named[1]};
}

// The call's positional arguments, or nullopt when it has keywords or splats.
std::optional<std::vector<ir::Node>> positional_arguments(ir::Node call) {
  ir::Node args = call.field("arguments");
  if (!args || !args.is(kind::argument_list)) return std::nullopt;
  std::vector<ir::Node> out;
  for (ir::Node a : args.named_children()) {
    if (a.is(kind::comment)) continue;
    if (a.is(kind::keyword_argument) || a.is(kind::list_splat) || a.is(kind::dictionary_splat)) return std::nullopt;
    out.push_back(a);
  }
  return out;
}

// The expression's text without whitespace (the forms compared here hold no strings).
std::string compact(const ir::Module& m, ir::Node n) {
  std::string out;
  for (char c : m.text(n)) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\\') out += c;
  }
  return out;
}

bool is_identifier(const ir::Module& m, ir::Node n, std::string_view name) {
  n = ir::unparenthesize(n);
  return n.is(kind::identifier) && m.text(n) == name;
}

// A single-argument `torch.where(...)`.
bool is_gather(const analysis::FileContext& ctx, ir::Node call) {
  if (!call.is(kind::call)) return false;
  const auto q = analysis::callee_name(ctx.module, call);
  const auto args = positional_arguments(call);
  return q && *q == "torch.where" && args && args->size() == 1;
}

// True when some occurrence of the identifier `name` in `body` lies in [from, to) outside `allowed`.
bool occurs_between(const ir::Module& m, ir::Node body, std::string_view name, uint32_t from, uint32_t to,
                    const std::vector<source::TextRange>& allowed) {
  bool found = false;
  syntax::walk(body, [&](ir::Node n) {
    if (found || n.end() <= from || n.start() >= to) return false;
    if (n.is(kind::identifier) && m.text(n) == name &&
        std::none_of(allowed.begin(), allowed.end(), [&](const source::TextRange& r) { return r.contains(n.range()); })) {
      found = true;
    }
    return !found;
  });
  return found;
}

// True when `stmt` runs whenever `later` (after it) does: it is a statement of `later`'s block or
// of a block around it.
bool runs_before(ir::Node stmt, ir::Node later) {
  if (!stmt || stmt.end() > later.start()) return false;
  for (ir::Node p = later.parent(); p; p = p.parent()) {
    if (p == stmt.parent()) return true;
    if (p.is(kind::function_definition)) return false;
  }
  return false;
}

// The bindings of the local `use` names, in source order.
std::vector<const ir::Binding*> bindings_in_order(const ir::Module& m, ir::Node use) {
  std::vector<const ir::Binding*> out;
  for (int b : m.bindings_of(use)) out.push_back(&m.bindings[static_cast<size_t>(b)]);
  std::sort(out.begin(), out.end(),
            [](const ir::Binding* a, const ir::Binding* b) { return a->target.start() < b->target.start(); });
  return out;
}

struct Loop {
  ir::Node expert;     // e
  ir::Node layer;      // layer = experts[e]
  ir::Node slot;       // idx
  ir::Node tokens;     // top_x
  ir::Node state;      // state = hidden[None, top_x].reshape(-1, dim)
  ir::Node out;        // out = layer(state) * weights[top_x, idx, None]
  ir::Node mask;       // mask, in `torch.where(mask[e])`
  ir::Node weights;    // weights, in `weights[top_x, idx, None]`
  ir::Node final;      // final, in `final.index_add_(...)`
  ir::Node experts;    // experts, in `layer = experts[e]`
  ir::Node hidden;     // hidden, in the state's statement
  ir::Node dim;        // dim, in the state's statement
  ir::Node addend;     // index_add_'s third argument
  ir::Node skip;       // `if top_x.shape[0] == 0: continue`, or null
  std::vector<ir::Node> body;  // the five statements (without the skip)
  ir::Node mask_statement;     // the mask's one binding (check_routing)
};

Declined statement_form(const ir::Module& m, ir::Node stmt, std::string_view what) {
  return Declined{decline<DeclineCode::DispatchStatementForm>(snippet(m, stmt), what)};
}

// The five statements of the loop body (and an optional skip of no tokens), read into `loop`.
std::optional<Declined> read_body(const analysis::FileContext& ctx, ir::Node for_statement, Loop& loop) {
  const ir::Module& m = ctx.module;
  loop.body = ir::children_without_comments(for_statement.field("body"));
  if (loop.body.size() != 5 && loop.body.size() != 6) return Declined{decline<DeclineCode::DispatchLoopBody>()};
  const std::string expert(m.text(loop.expert));

  // layer = experts[e]: an attribute of a name, subscripted by the loop variable.
  ir::Node a = assignment_of(loop.body[0]);
  ir::Node rhs = a ? ir::unparenthesize(a.field("right")) : ir::Node{};
  if (!a || !a.field("left").is(kind::identifier) || !rhs.is(kind::subscript) ||
      !rhs.field("value").is(kind::attribute) || rhs.children_by_field("subscript").size() != 1 ||
      !is_identifier(m, rhs.children_by_field("subscript")[0], expert)) {
    return statement_form(m, loop.body[0], "`layer = self.<experts>[e]`");
  }
  loop.layer = a.field("left");
  loop.experts = rhs.field("value");

  // idx, top_x = torch.where(mask[e])
  a = assignment_of(loop.body[1]);
  rhs = a ? ir::unparenthesize(a.field("right")) : ir::Node{};
  const auto pair = a ? two_names(a.field("left")) : std::nullopt;
  ir::Node gathered = rhs && is_gather(ctx, rhs) ? ir::unparenthesize((*positional_arguments(rhs))[0]) : ir::Node{};
  if (!pair || !gathered || !gathered.is(kind::subscript) || !gathered.field("value").is(kind::identifier) ||
      gathered.children_by_field("subscript").size() != 1 ||
      !is_identifier(m, gathered.children_by_field("subscript")[0], expert)) {
    return statement_form(m, loop.body[1], "`idx, top_x = torch.where(mask[e])`");
  }
  loop.slot = (*pair)[0];
  loop.tokens = (*pair)[1];
  loop.mask = gathered.field("value");
  const std::string tokens(m.text(loop.tokens)), slot(m.text(loop.slot));

  // Jamba's and Phi-MoE's `if top_x.shape[0] == 0: continue`, kept as written: over every token
  // it skips only when there is no token at all, when the original skips every expert too.
  if (loop.body.size() == 6) {
    ir::Node skip = loop.body[2];
    const std::vector<ir::Node> then = skip.is(kind::if_statement) ? ir::children_without_comments(skip.field("consequence"))
                                                                   : std::vector<ir::Node>{};
    const std::string test = skip.is(kind::if_statement) ? compact(m, skip.field("condition")) : "";
    if (!skip.is(kind::if_statement) || !skip.children_by_field("alternative").empty() || then.size() != 1 ||
        !then[0].is(kind::continue_statement) ||
        (test != tokens + ".shape[0]==0" && test != tokens + ".numel()==0")) {
      return statement_form(m, skip.is(kind::if_statement) ? skip.field("condition") : skip,
                            "`top_x.shape[0] == 0` in `if top_x.shape[0] == 0: continue`");
    }
    loop.skip = skip;
    loop.body.erase(loop.body.begin() + 2);
  }

  // state = hidden[None, top_x].reshape(-1, dim)
  a = assignment_of(loop.body[2]);
  rhs = a ? ir::unparenthesize(a.field("right")) : ir::Node{};
  bool state_ok = a && a.field("left").is(kind::identifier) && rhs.is(kind::call) &&
                  rhs.field("function").is(kind::attribute) && m.text(rhs.field("function").field("attribute")) == "reshape";
  if (state_ok) {
    ir::Node gather = ir::unparenthesize(rhs.field("function").field("object"));
    const auto shape = positional_arguments(rhs);
    const auto subs = gather.is(kind::subscript) ? gather.children_by_field("subscript") : std::vector<ir::Node>{};
    state_ok = gather.is(kind::subscript) && gather.field("value").is(kind::identifier) && subs.size() == 2 &&
               subs[0].is(kind::none) && is_identifier(m, subs[1], tokens) && shape && shape->size() == 2 &&
               compact(m, (*shape)[0]) == "-1" &&
               ((*shape)[1].is(kind::identifier) || (*shape)[1].is(kind::integer));
  }
  if (!state_ok) return statement_form(m, loop.body[2], "`state = hidden[None, top_x].reshape(-1, dim)`");
  loop.state = a.field("left");
  loop.hidden = ir::unparenthesize(rhs.field("function").field("object")).field("value");
  loop.dim = (*positional_arguments(rhs))[1];

  // out = layer(state) * weights[top_x, idx, None]
  a = assignment_of(loop.body[3]);
  rhs = a ? ir::unparenthesize(a.field("right")) : ir::Node{};
  bool out_ok = a && a.field("left").is(kind::identifier) && rhs.is(kind::binary_operator) &&
                m.text(rhs.field("operator")) == "*";
  if (out_ok) {
    ir::Node call = ir::unparenthesize(rhs.field("left"));
    ir::Node pick = ir::unparenthesize(rhs.field("right"));
    const auto args = call.is(kind::call) ? positional_arguments(call) : std::nullopt;
    const auto subs = pick.is(kind::subscript) ? pick.children_by_field("subscript") : std::vector<ir::Node>{};
    out_ok = args && args->size() == 1 && is_identifier(m, call.field("function"), m.text(loop.layer)) &&
             is_identifier(m, (*args)[0], m.text(loop.state)) && pick.field("value").is(kind::identifier) &&
             subs.size() == 3 && is_identifier(m, subs[0], tokens) && is_identifier(m, subs[1], slot) &&
             subs[2].is(kind::none);
    if (out_ok) loop.weights = pick.field("value");
  }
  if (!out_ok) return statement_form(m, loop.body[3], "`out = layer(state) * weights[top_x, idx, None]`");
  loop.out = a.field("left");

  // final.index_add_(0, top_x, out) or (0, top_x, out.to(...))
  ir::Node stmt = loop.body[4];
  ir::Node call = ir::sole_expression(stmt);
  bool add_ok = call && call.is(kind::call) && call.field("function").is(kind::attribute) &&
                m.text(call.field("function").field("attribute")) == "index_add_" &&
                call.field("function").field("object").is(kind::identifier);
  if (add_ok) {
    const auto args = positional_arguments(call);
    add_ok = args && args->size() == 3 && compact(m, (*args)[0]) == "0" && is_identifier(m, (*args)[1], tokens);
    if (add_ok) {
      ir::Node addend = ir::unparenthesize((*args)[2]);
      // The contribution row for row: `out` itself, or `out.to(<anything not bound by the loop>)`.
      ir::Node object = addend;
      if (addend.is(kind::call) && addend.field("function").is(kind::attribute) &&
          m.text(addend.field("function").field("attribute")) == "to") {
        object = ir::unparenthesize(addend.field("function").field("object"));
      }
      add_ok = is_identifier(m, object, m.text(loop.out));
      loop.addend = (*args)[2];
    }
  }
  if (!add_ok) return statement_form(m, stmt, "`final.index_add_(0, top_x, out)` or `...(0, top_x, out.to(dtype))`");
  loop.final = call.field("function").field("object");

  // The six names the loop binds are distinct, and none is read where the loop reads a value from
  // before it: the experts, the hidden states and dim, the weights, the output, the mask, the
  // addend's dtype.
  const std::array<std::string_view, 6> bound = {m.text(loop.expert), m.text(loop.layer), m.text(loop.slot),
                                                 m.text(loop.tokens), m.text(loop.state), m.text(loop.out)};
  for (size_t i = 0; i < bound.size(); ++i) {
    for (size_t j = i + 1; j < bound.size(); ++j) {
      if (bound[i] == bound[j]) return Declined{decline<DeclineCode::DispatchLoopBody>()};
    }
  }
  ir::Node addend = ir::unparenthesize(loop.addend);
  const std::array<ir::Node, 7> outside = {loop.experts, loop.hidden, loop.dim, loop.weights, loop.final, loop.mask,
                                           addend.is(kind::call) ? addend.field("arguments") : ir::Node{}};
  bool reads_bound = false;
  for (ir::Node n : outside) {
    if (!n) continue;
    syntax::walk(n, [&](ir::Node id) {
      if (id.is(kind::identifier) && std::find(bound.begin(), bound.end(), m.text(id)) != bound.end()) reads_bound = true;
      return !reads_bound;
    });
  }
  if (reads_bound) return Declined{decline<DeclineCode::DispatchLoopBody>()};
  return std::nullopt;
}

// The mask is `one_hot(selected, ...).permute(2, 1, 0)` of torch.topk's indices along the last
// dimension, and the weights are that topk's values kept in shape; neither touched otherwise
// before the loop (`first`, its first statement). Sets loop.mask_statement.
std::optional<Declined> check_routing(const analysis::FileContext& ctx, ir::Node body, ir::Node first, Loop& loop) {
  const ir::Module& m = ctx.module;
  const std::string mask(m.text(loop.mask));
  const std::vector<const ir::Binding*> mask_bindings = bindings_in_order(m, loop.mask);
  if (mask_bindings.size() != 1) return Declined{decline<DeclineCode::DispatchMaskSource>(mask)};
  const ir::Node mask_stmt = loop.mask_statement = mask_bindings[0]->statement;
  ir::Node a = assignment_of(mask_stmt);
  ir::Node rhs = a && a.field("left") == mask_bindings[0]->target ? ir::unparenthesize(a.field("right")) : ir::Node{};
  ir::Node one_hot;
  if (rhs && rhs.is(kind::call) && rhs.field("function").is(kind::attribute) &&
      m.text(rhs.field("function").field("attribute")) == "permute" && positional_arguments(rhs) &&
      compact(m, rhs.field("arguments")) == "(2,1,0)") {
    one_hot = ir::unparenthesize(rhs.field("function").field("object"));
  }
  const auto one_hot_name = one_hot && one_hot.is(kind::call) ? analysis::callee_name(m, one_hot) : std::nullopt;
  ir::Node args = one_hot ? one_hot.field("arguments") : ir::Node{};
  ir::Node selected = args && args.named_child_count() >= 1 ? args.named_child(0) : ir::Node{};
  if (!one_hot_name || *one_hot_name != "torch.nn.functional.one_hot" || !selected || !selected.is(kind::identifier) ||
      !runs_before(mask_stmt, first)) {
    return Declined{decline<DeclineCode::DispatchMaskSource>(mask)};
  }

  // The selected experts: the second name of `values, indices = torch.topk(..., dim=-1)`.
  const std::string selected_name(m.text(selected));
  const std::vector<const ir::Binding*> selected_bindings = bindings_in_order(m, selected);
  ir::Node topk_stmt = selected_bindings.size() == 1 ? selected_bindings[0]->statement : ir::Node{};
  a = topk_stmt ? assignment_of(topk_stmt) : ir::Node{};
  const auto pair = a ? two_names(a.field("left")) : std::nullopt;
  rhs = a ? ir::unparenthesize(a.field("right")) : ir::Node{};
  bool topk_ok = pair && (*pair)[1] == selected_bindings[0]->target && rhs.is(kind::call) &&
                 analysis::callee_name(m, rhs) == std::optional<std::string>("torch.topk") &&
                 runs_before(topk_stmt, mask_stmt);
  if (topk_ok) {
    // Along the last dimension: no `dim`, `dim=-1`, or -1 as the third positional argument.
    int positional = 0;
    for (ir::Node arg : rhs.field("arguments").named_children()) {
      if (arg.is(kind::comment)) continue;
      if (arg.is(kind::list_splat) || arg.is(kind::dictionary_splat)) topk_ok = false;
      if (arg.is(kind::keyword_argument)) {
        if (m.text(arg.field("name")) == "dim" && compact(m, arg.field("value")) != "-1") topk_ok = false;
        continue;
      }
      if (++positional == 3 && compact(m, arg) != "-1") topk_ok = false;
    }
  }
  if (!topk_ok || occurs_between(m, body, selected_name, topk_stmt.end(), mask_stmt.start(), {})) {
    return Declined{decline<DeclineCode::DispatchExpertsNotTopk>(selected_name)};
  }

  // The weights: topk's values, then, up to the loop, only `w /= ...`, `w *= ...` or
  // `w = w.to(...)`, nothing else naming them in between.
  const std::string weights(m.text(loop.weights));
  std::vector<source::TextRange> kept_in_shape;
  const std::vector<const ir::Binding*> weight_bindings = bindings_in_order(m, loop.weights);
  const auto from_topk = std::find_if(weight_bindings.begin(), weight_bindings.end(),
                                      [&](const ir::Binding* b) { return b->target == (*pair)[0]; });
  bool weights_ok = from_topk != weight_bindings.end();
  for (auto it = weights_ok ? std::next(from_topk) : weight_bindings.end(); weights_ok && it != weight_bindings.end();
       ++it) {
    const ir::Node target = (*it)->target;
    if (target.start() >= first.start()) break;  // after the loop begins: not what it reads
    const ir::Node stmt = (*it)->statement;
    const ir::Node node = ir::sole_expression(stmt);
    bool in_shape = false;
    if (node && node.is(kind::augmented_assignment) && node.field("left") == target) {
      const std::string_view op = m.text(node.field("operator"));
      in_shape = op == "/=" || op == "*=";
    } else if (node && node.is(kind::assignment) && node.field("left") == target) {
      ir::Node value = ir::unparenthesize(node.field("right"));
      in_shape = value.is(kind::call) && value.field("function").is(kind::attribute) &&
                 m.text(value.field("function").field("attribute")) == "to" &&
                 is_identifier(m, value.field("function").field("object"), weights);
    }
    weights_ok = in_shape && stmt.end() <= first.start();
    kept_in_shape.push_back(stmt.range());
  }
  if (!weights_ok || occurs_between(m, body, weights, topk_stmt.end(), first.start(), kept_in_shape)) {
    return Declined{decline<DeclineCode::DispatchWeightsSource>(weights)};
  }
  return std::nullopt;
}

}  // namespace

ir::Node expert_gather_call(const analysis::FileContext& ctx, ir::Node for_statement) {
  if (!for_statement.is(kind::for_statement)) return {};
  const ir::Module& m = ctx.module;
  ir::Node gather;
  std::string tokens;
  for (ir::Node stmt : ir::children_without_comments(for_statement.field("body"))) {
    if (ir::Node a = assignment_of(stmt)) {
      const auto pair = two_names(a.field("left"));
      ir::Node rhs = ir::unparenthesize(a.field("right"));
      if (pair && !gather && is_gather(ctx, rhs)) {
        gather = rhs;
        tokens = std::string(m.text((*pair)[1]));
      }
      continue;
    }
    ir::Node call = ir::sole_expression(stmt);
    if (!gather || !call || !call.is(kind::call) || !call.field("function").is(kind::attribute) ||
        m.text(call.field("function").field("attribute")) != "index_add_") {
      continue;
    }
    const auto args = positional_arguments(call);
    if (args && args->size() >= 2 && is_identifier(m, (*args)[1], tokens)) return gather;
  }
  return {};
}

std::variant<source::Fix, Declined> plan_expert_dispatch(const analysis::FileContext& ctx, ir::Node for_statement,
                                                         FunctionIndex& index) {
  const ir::Module& m = ctx.module;
  const int fi = m.function_of(for_statement);
  if (fi < 0) return Declined{decline<DeclineCode::NotInFunction>()};
  ir::Node body = m.functions[static_cast<size_t>(fi)].node.field("body");
  if (for_statement.field("alternative")) return Declined{decline<DeclineCode::DispatchLoopElse>()};
  Loop loop;
  loop.expert = for_statement.field("left");
  if (!loop.expert.is(kind::identifier)) return Declined{decline<DeclineCode::DispatchLoopBody>()};
  if (auto bad = read_body(ctx, for_statement, loop)) return *bad;
  const std::string mask(m.text(loop.mask));

  // What the loop runs over: `range(...)` (the same experts, each on every token), or the list of
  // experts with routed tokens, made by the statement just before (every expert, in order: one
  // with no routed token adds zeros).
  ir::Node first = for_statement;
  std::string iteration;
  ir::Node iterable = ir::unparenthesize(for_statement.field("right"));
  std::string hit_list;
  if (iterable.is(kind::call) && analysis::callee_name(m, iterable) == std::optional<std::string>("range")) {
    iteration = copied(m, for_statement.field("right"));
  } else if (iterable.is(kind::identifier)) {
    hit_list = std::string(m.text(iterable));
    ir::Node previous = for_statement.prev_named_sibling();
    while (previous && previous.is(kind::comment)) previous = previous.prev_named_sibling();
    ir::Node a = previous ? assignment_of(previous) : ir::Node{};
    const std::string form = a ? compact(m, a.field("right")) : "";
    const std::string summed = mask + ".sum(dim=(-1,-2))";
    const bool listed = form == "(" + summed + ">0).nonzero(as_tuple=True)[0].tolist()" ||
                        form == "torch.greater(" + summed + ",0).nonzero(as_tuple=True)[0].tolist()";
    if (!listed || !is_identifier(m, a.field("left"), hit_list) || bindings_in_order(m, iterable).size() != 1) {
      return Declined{decline<DeclineCode::DispatchHitList>(hit_list)};
    }
    first = previous;
    iteration = fmt::format("range({}.shape[0])", mask);
  } else {
    return Declined{decline<DeclineCode::DispatchIteration>(snippet(m, iterable))};
  }

  if (auto bad = check_routing(ctx, body, first, loop)) return *bad;

  // The output: `final = torch.zeros(...)`, its one binding before the loop, not named again
  // before it, so it holds +0.0 (never -0.0) and every later sum keeps it so: adding +0.0 leaves
  // it as it is.
  const std::string final(m.text(loop.final));
  std::vector<const ir::Binding*> final_bindings = bindings_in_order(m, loop.final);
  std::erase_if(final_bindings, [&](const ir::Binding* b) { return b->target.start() >= first.start(); });
  ir::Node final_stmt = final_bindings.size() == 1 ? final_bindings[0]->statement : ir::Node{};
  ir::Node final_assign = final_stmt ? assignment_of(final_stmt) : ir::Node{};
  ir::Node zeros = final_assign && final_assign.field("left") == final_bindings[0]->target
                       ? ir::unparenthesize(final_assign.field("right"))
                       : ir::Node{};
  if (!zeros || !zeros.is(kind::call) || analysis::callee_name(m, zeros) != std::optional<std::string>("torch.zeros") ||
      !runs_before(final_stmt, first) || occurs_between(m, body, final, final_stmt.end(), first.start(), {})) {
    return Declined{decline<DeclineCode::DispatchOutputSource>(final)};
  }
  // The mask too: not named between its binding and the loop (the list of experts hit is `first`).
  if (occurs_between(m, body, mask, loop.mask_statement.end(), first.start(), {})) {
    return Declined{decline<DeclineCode::DispatchMaskSource>(mask)};
  }

  // The loop's own names are dead after it: the fixed-shape loop binds them to other values.
  const LaterNames later = index.names_after(fi, for_statement);
  for (ir::Node name : {loop.expert, loop.layer, loop.slot, loop.tokens, loop.state, loop.out}) {
    if (later.contains(std::string(m.text(name)))) {
      return Declined{decline<DeclineCode::DispatchNameAfter>(std::string(m.text(name)))};
    }
  }
  if (!hit_list.empty() && later.contains(hit_list)) return Declined{decline<DeclineCode::DispatchNameAfter>(hit_list)};
  if (m.text(m.functions[static_cast<size_t>(fi)].node).find(kRouted) != std::string_view::npos) {
    return Declined{decline<DeclineCode::DispatchNameTaken>(std::string(kRouted))};
  }

  // The fixed-shape loop: each token's slot for expert e (the one 1 in its column of mask[e]; 0,
  // masked, for a token e did not route), every token, the two statements as written, and the
  // contribution of a token e did not route masked to +0.0.
  const std::string expert(m.text(loop.expert)), slot(m.text(loop.slot)), tokens(m.text(loop.tokens));
  CompiledCode compiled;
  compiled.line(fmt::format("for {} in {}:", expert, iteration));
  ++compiled.level;
  compiled.line(reindented(m, loop.body[0], compiled.level));
  compiled.line(fmt::format("{} = {}[{}].any(0)", kRouted, mask, expert));
  compiled.line(fmt::format("{}, {} = {}[{}].argmax(0), _graphmend.torch.arange({}.shape[-1], device={}.device)", slot,
                            tokens, mask, expert, mask, mask));
  if (loop.skip) compiled.line(reindented(m, loop.skip, compiled.level));
  compiled.line(reindented(m, loop.body[2], compiled.level));
  compiled.line(reindented(m, loop.body[3], compiled.level));
  // Masked before the index_add_, which stays as written: selecting +0.0 commutes with the
  // addend's `.to(...)` (a cast of +0.0 is +0.0), and `out` is dead after the loop.
  const std::string out(m.text(loop.out));
  compiled.line(fmt::format("{} = _graphmend.torch.where({}[:, None], {}, 0)", out, kRouted, out));
  compiled.line(reindented(m, loop.body[4], compiled.level));

  source::Fix fix;
  fix.applicability = source::Applicability::Unsafe;
  fix.title =
      "run every expert on every token, each token's contribution masked, in fixed shapes (unsafe: assumes an expert "
      "treats tokens independently, as an MLP does; a matrix product over every token may round differently from one "
      "over the routed tokens; each expert does the work of every token, not only its own; eager, and grad-enabled "
      "code, unchanged)";
  // A topk of no experts per token leaves no slot to find: the original runs.
  const std::string gate =
      fmt::format("not _graphmend.compiling() or _graphmend.torch.is_grad_enabled() or {}.shape[1] == 0", mask);
  if (auto declined = wrap_for_compile(m, first, for_statement, compiled.text, fix, gate)) return *declined;
  return fix;
}

}  // namespace graphmend::rewrite
