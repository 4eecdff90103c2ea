#include "graphmend/rewrite/dense.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>

#include "graphmend/analysis/truth.h"
#include "graphmend/rewrite/compile_gates.h"
#include "graphmend/rewrite/compiled_code.h"
#include "graphmend/rewrite/unsafe.h"

namespace graphmend::rewrite {

namespace {

constexpr std::string_view kRouted = "_graphmend_routed";
constexpr std::string_view kRows = "_graphmend_rows";

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
  ir::Node args = call.field(field::arguments);
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
  loop.body = ir::children_without_comments(for_statement.field(field::body));
  if (loop.body.size() != 5 && loop.body.size() != 6) return Declined{decline<DeclineCode::DispatchLoopBody>()};
  const std::string expert(m.text(loop.expert));

  // layer = experts[e]: an attribute of a name, subscripted by the loop variable.
  ir::Node a = assignment_of(loop.body[0]);
  ir::Node rhs = a ? ir::unparenthesize(a.field(field::right)) : ir::Node{};
  if (!a || !a.field(field::left).is(kind::identifier) || !rhs.is(kind::subscript) ||
      !rhs.field(field::value).is(kind::attribute) || rhs.children_by_field(field::subscript).size() != 1 ||
      !is_identifier(m, rhs.children_by_field(field::subscript)[0], expert)) {
    return statement_form(m, loop.body[0], "`layer = self.<experts>[e]`");
  }
  loop.layer = a.field(field::left);
  loop.experts = rhs.field(field::value);

  // idx, top_x = torch.where(mask[e])
  a = assignment_of(loop.body[1]);
  rhs = a ? ir::unparenthesize(a.field(field::right)) : ir::Node{};
  const auto pair = a ? two_names(a.field(field::left)) : std::nullopt;
  ir::Node gathered = rhs && is_gather(ctx, rhs) ? ir::unparenthesize((*positional_arguments(rhs))[0]) : ir::Node{};
  if (!pair || !gathered || !gathered.is(kind::subscript) || !gathered.field(field::value).is(kind::identifier) ||
      gathered.children_by_field(field::subscript).size() != 1 ||
      !is_identifier(m, gathered.children_by_field(field::subscript)[0], expert)) {
    return statement_form(m, loop.body[1], "`idx, top_x = torch.where(mask[e])`");
  }
  loop.slot = (*pair)[0];
  loop.tokens = (*pair)[1];
  loop.mask = gathered.field(field::value);
  const std::string tokens(m.text(loop.tokens)), slot(m.text(loop.slot));

  // Jamba's and Phi-MoE's `if top_x.shape[0] == 0: continue`, kept as written: over every token
  // it skips only when there is no token at all, when the original skips every expert too.
  if (loop.body.size() == 6) {
    ir::Node skip = loop.body[2];
    const std::vector<ir::Node> then = skip.is(kind::if_statement)
                                           ? ir::children_without_comments(skip.field(field::consequence))
                                           : std::vector<ir::Node>{};
    const std::string test = skip.is(kind::if_statement) ? compact(m, skip.field(field::condition)) : "";
    if (!skip.is(kind::if_statement) || !skip.children_by_field(field::alternative).empty() || then.size() != 1 ||
        !then[0].is(kind::continue_statement) || (test != tokens + ".shape[0]==0" && test != tokens + ".numel()==0")) {
      return statement_form(m, skip.is(kind::if_statement) ? skip.field(field::condition) : skip,
                            "`top_x.shape[0] == 0` in `if top_x.shape[0] == 0: continue`");
    }
    loop.skip = skip;
    loop.body.erase(loop.body.begin() + 2);
  }

  // state = hidden[None, top_x].reshape(-1, dim)
  a = assignment_of(loop.body[2]);
  rhs = a ? ir::unparenthesize(a.field(field::right)) : ir::Node{};
  bool state_ok = a && a.field(field::left).is(kind::identifier) && rhs.is(kind::call) &&
                  rhs.field(field::function).is(kind::attribute) &&
                  m.text(rhs.field(field::function).field(field::attribute)) == "reshape";
  if (state_ok) {
    ir::Node gather = ir::unparenthesize(rhs.field(field::function).field(field::object));
    const auto shape = positional_arguments(rhs);
    const auto subs = gather.is(kind::subscript) ? gather.children_by_field(field::subscript) : std::vector<ir::Node>{};
    state_ok = gather.is(kind::subscript) && gather.field(field::value).is(kind::identifier) && subs.size() == 2 &&
               subs[0].is(kind::none) && is_identifier(m, subs[1], tokens) && shape && shape->size() == 2 &&
               compact(m, (*shape)[0]) == "-1" && ((*shape)[1].is(kind::identifier) || (*shape)[1].is(kind::integer));
  }
  if (!state_ok) return statement_form(m, loop.body[2], "`state = hidden[None, top_x].reshape(-1, dim)`");
  loop.state = a.field(field::left);
  loop.hidden = ir::unparenthesize(rhs.field(field::function).field(field::object)).field(field::value);
  loop.dim = (*positional_arguments(rhs))[1];

  // out = layer(state) * weights[top_x, idx, None]
  a = assignment_of(loop.body[3]);
  rhs = a ? ir::unparenthesize(a.field(field::right)) : ir::Node{};
  bool out_ok = a && a.field(field::left).is(kind::identifier) && rhs.is(kind::binary_operator) &&
                m.text(rhs.field(field::operator_)) == "*";
  if (out_ok) {
    ir::Node call = ir::unparenthesize(rhs.field(field::left));
    ir::Node pick = ir::unparenthesize(rhs.field(field::right));
    const auto args = call.is(kind::call) ? positional_arguments(call) : std::nullopt;
    const auto subs = pick.is(kind::subscript) ? pick.children_by_field(field::subscript) : std::vector<ir::Node>{};
    out_ok = args && args->size() == 1 && is_identifier(m, call.field(field::function), m.text(loop.layer)) &&
             is_identifier(m, (*args)[0], m.text(loop.state)) && pick.field(field::value).is(kind::identifier) &&
             subs.size() == 3 && is_identifier(m, subs[0], tokens) && is_identifier(m, subs[1], slot) &&
             subs[2].is(kind::none);
    if (out_ok) loop.weights = pick.field(field::value);
  }
  if (!out_ok) return statement_form(m, loop.body[3], "`out = layer(state) * weights[top_x, idx, None]`");
  loop.out = a.field(field::left);

  // final.index_add_(0, top_x, out) or (0, top_x, out.to(...))
  ir::Node stmt = loop.body[4];
  ir::Node call = ir::sole_expression(stmt);
  bool add_ok = call && call.is(kind::call) && call.field(field::function).is(kind::attribute) &&
                m.text(call.field(field::function).field(field::attribute)) == "index_add_" &&
                call.field(field::function).field(field::object).is(kind::identifier);
  if (add_ok) {
    const auto args = positional_arguments(call);
    add_ok = args && args->size() == 3 && compact(m, (*args)[0]) == "0" && is_identifier(m, (*args)[1], tokens);
    if (add_ok) {
      ir::Node addend = ir::unparenthesize((*args)[2]);
      // The contribution row for row: `out` itself, or `out.to(<anything not bound by the loop>)`.
      ir::Node object = addend;
      if (addend.is(kind::call) && addend.field(field::function).is(kind::attribute) &&
          m.text(addend.field(field::function).field(field::attribute)) == "to") {
        object = ir::unparenthesize(addend.field(field::function).field(field::object));
      }
      add_ok = is_identifier(m, object, m.text(loop.out));
      loop.addend = (*args)[2];
    }
  }
  if (!add_ok) return statement_form(m, stmt, "`final.index_add_(0, top_x, out)` or `...(0, top_x, out.to(dtype))`");
  loop.final = call.field(field::function).field(field::object);

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
                                           addend.is(kind::call) ? addend.field(field::arguments) : ir::Node{}};
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
  ir::Node rhs =
      a && a.field(field::left) == mask_bindings[0]->target ? ir::unparenthesize(a.field(field::right)) : ir::Node{};
  ir::Node one_hot;
  if (rhs && rhs.is(kind::call) && rhs.field(field::function).is(kind::attribute) &&
      m.text(rhs.field(field::function).field(field::attribute)) == "permute" && positional_arguments(rhs) &&
      compact(m, rhs.field(field::arguments)) == "(2,1,0)") {
    one_hot = ir::unparenthesize(rhs.field(field::function).field(field::object));
  }
  const auto one_hot_name = one_hot && one_hot.is(kind::call) ? analysis::callee_name(m, one_hot) : std::nullopt;
  ir::Node args = one_hot ? one_hot.field(field::arguments) : ir::Node{};
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
  // (null names when the statement is not `values, indices = ...`)
  const std::array<ir::Node, 2> pair =
      (a ? two_names(a.field(field::left)) : std::nullopt).value_or(std::array<ir::Node, 2>{});
  rhs = a ? ir::unparenthesize(a.field(field::right)) : ir::Node{};
  bool topk_ok = pair[1] && pair[1] == selected_bindings[0]->target && rhs.is(kind::call) &&
                 analysis::callee_name(m, rhs) == std::optional<std::string>("torch.topk") &&
                 runs_before(topk_stmt, mask_stmt);
  if (topk_ok) {
    // Along the last dimension: no `dim`, `dim=-1`, or -1 as the third positional argument.
    int positional = 0;
    for (ir::Node arg : rhs.field(field::arguments).named_children()) {
      if (arg.is(kind::comment)) continue;
      if (arg.is(kind::list_splat) || arg.is(kind::dictionary_splat)) topk_ok = false;
      if (arg.is(kind::keyword_argument)) {
        if (m.text(arg.field(field::name)) == "dim" && compact(m, arg.field(field::value)) != "-1") topk_ok = false;
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
                                      [&](const ir::Binding* b) { return b->target == pair[0]; });
  bool weights_ok = from_topk != weight_bindings.end();
  for (auto it = weights_ok ? std::next(from_topk) : weight_bindings.end(); weights_ok && it != weight_bindings.end();
       ++it) {
    const ir::Node target = (*it)->target;
    if (target.start() >= first.start()) break;  // after the loop begins: not what it reads
    const ir::Node stmt = (*it)->statement;
    const ir::Node node = ir::sole_expression(stmt);
    bool in_shape = false;
    if (node && node.is(kind::augmented_assignment) && node.field(field::left) == target) {
      const std::string_view op = m.text(node.field(field::operator_));
      in_shape = op == "/=" || op == "*=";
    } else if (node && node.is(kind::assignment) && node.field(field::left) == target) {
      ir::Node value = ir::unparenthesize(node.field(field::right));
      in_shape = value.is(kind::call) && value.field(field::function).is(kind::attribute) &&
                 m.text(value.field(field::function).field(field::attribute)) == "to" &&
                 is_identifier(m, value.field(field::function).field(field::object), weights);
    }
    weights_ok = in_shape && stmt.end() <= first.start();
    kept_in_shape.push_back(stmt.range());
  }
  if (!weights_ok || occurs_between(m, body, weights, topk_stmt.end(), first.start(), kept_in_shape)) {
    return Declined{decline<DeclineCode::DispatchWeightsSource>(weights)};
  }
  return std::nullopt;
}

// Declined when function `fi` already uses `name`, which the fixed-shape loop binds.
std::optional<Declined> name_taken(const ir::Module& m, int fi, std::string_view name) {
  if (m.text(m.functions[static_cast<size_t>(fi)].node).find(name) == std::string_view::npos) return std::nullopt;
  return Declined{decline<DeclineCode::DispatchNameTaken>(std::string(name))};
}

// Why a dispatch loop (in function `fi`, -1 for none) cannot be rewritten at all, or nullopt.
std::optional<Declined> loop_declined(int fi, ir::Node for_statement) {
  if (fi < 0) return Declined{decline<DeclineCode::NotInFunction>()};
  if (for_statement.field(field::alternative)) return Declined{decline<DeclineCode::DispatchLoopElse>()};
  return std::nullopt;
}

// The masked-store form (Switch Transformers, GPTSan): each expert's rows are selected with a
// boolean mask, read and written back, `out[mask] = expert(hidden[mask])`.
struct MaskedStore {
  ir::Node expert;     // e
  ir::Node layer;      // the second name of `for e, layer in enumerate(...)`, or null
  ir::Node named;      // K of `K = <column>`, or null
  ir::Node column;     // the mask: `M[:, :, e]`, perhaps `.bool()` of it
  ir::Node base;       // M
  size_t rank = 0;     // M's subscripts: its rank
  bool casts = false;  // the column is `.bool()` of the subscript
  ir::Node store;      // `A[mask] = ...`
  ir::Node output;     // A
  ir::Node call;       // `expert(H[mask])`
  ir::Node hidden;     // H
  ir::Node cast_args;  // the arguments of a `.to(...)` of the call, or null
};

// True when `rhs` is `<anything>.bool()`.
bool is_bool_cast(const ir::Module& m, ir::Node rhs) {
  rhs = ir::unparenthesize(rhs);
  return rhs.is(kind::call) && rhs.field(field::function).is(kind::attribute) &&
         m.text(rhs.field(field::function).field(field::attribute)) == "bool" &&
         compact(m, rhs.field(field::arguments)) == "()";
}

// `M[:, ..., e]` (every subscript a bare `:` but the last, the loop variable), or `.bool()` of it:
// the loop variable's column of M along its last dimension.
bool read_column(const ir::Module& m, ir::Node n, std::string_view expert, MaskedStore& s) {
  n = ir::unparenthesize(n);
  const bool casts = is_bool_cast(m, n);
  if (casts) n = ir::unparenthesize(n.field(field::function).field(field::object));
  if (!n.is(kind::subscript) || !n.field(field::value).is(kind::identifier)) return false;
  const std::vector<ir::Node> subs = n.children_by_field(field::subscript);
  if (subs.size() < 2 || !is_identifier(m, subs.back(), expert)) return false;
  for (size_t i = 0; i + 1 < subs.size(); ++i) {
    if (!subs[i].is(kind::slice) || compact(m, subs[i]) != ":") return false;
  }
  s.base = n.field(field::value);
  s.rank = subs.size();
  s.casts = casts;
  return true;
}

// `A[mask] = expert(H[mask])` or `... .to(...)`, perhaps after `K = <column>`, read into `s`.
std::optional<Declined> read_store_body(const ir::Module& m, ir::Node for_statement, MaskedStore& s) {
  const Declined bad{decline<DeclineCode::DispatchStoreBody>()};
  const std::vector<ir::Node> body = ir::children_without_comments(for_statement.field(field::body));
  if (body.size() != 1 && body.size() != 2) return bad;
  const std::string expert(m.text(s.expert));
  if (body.size() == 2) {
    ir::Node a = assignment_of(body[0]);
    if (!a || !a.field(field::left).is(kind::identifier) || !read_column(m, a.field(field::right), expert, s)) {
      return bad;
    }
    s.named = a.field(field::left);
    s.column = a.field(field::right);
  }
  ir::Node a = assignment_of(body.back());
  ir::Node target = a ? a.field(field::left) : ir::Node{};
  if (!target || !target.is(kind::subscript) || !target.field(field::value).is(kind::identifier) ||
      target.children_by_field(field::subscript).size() != 1) {
    return bad;
  }
  ir::Node index = target.children_by_field(field::subscript)[0];
  if (s.named ? !is_identifier(m, index, m.text(s.named)) : !read_column(m, index, expert, s)) return bad;
  if (!s.named) s.column = index;
  s.store = body.back();
  s.output = target.field(field::value);

  ir::Node value = ir::unparenthesize(a.field(field::right));
  if (value.is(kind::call) && value.field(field::function).is(kind::attribute) &&
      m.text(value.field(field::function).field(field::attribute)) == "to") {
    s.cast_args = value.field(field::arguments);
    value = ir::unparenthesize(value.field(field::function).field(field::object));
  }
  const auto args = value.is(kind::call) ? positional_arguments(value) : std::nullopt;
  ir::Node gathered = args && args->size() == 1 ? ir::unparenthesize((*args)[0]) : ir::Node{};
  if (!gathered || !gathered.is(kind::subscript) || !gathered.field(field::value).is(kind::identifier) ||
      gathered.children_by_field(field::subscript).size() != 1 ||
      compact(m, gathered.children_by_field(field::subscript)[0]) != compact(m, index)) {
    return bad;
  }
  s.call = value;
  s.hidden = gathered.field(field::value);

  // The names the loop binds (e, the layer, K) are distinct from each other and from what it
  // reads from before it (A, H, M), and the mask is neither the output nor the input.
  std::vector<std::string_view> bound = {m.text(s.expert)};
  if (s.layer) bound.push_back(m.text(s.layer));
  if (s.named) bound.push_back(m.text(s.named));
  const std::array<std::string_view, 3> outside = {m.text(s.output), m.text(s.hidden), m.text(s.base)};
  for (size_t i = 0; i < bound.size(); ++i) {
    for (size_t j = i + 1; j < bound.size(); ++j) {
      if (bound[i] == bound[j]) return bad;
    }
    if (std::find(outside.begin(), outside.end(), bound[i]) != outside.end()) return bad;
  }
  if (outside[2] == outside[0] || outside[2] == outside[1]) return bad;
  return std::nullopt;
}

// The one binding of `name` (an identifier) that reaches it, when it is `name = <rhs>`: the
// assignment, else null.
ir::Node sole_reaching_assignment(const ir::Module& m, ir::Node name) {
  const auto reaching = m.ordered_reaching_bindings(name);
  if (!reaching || reaching->size() != 1) return {};
  const ir::Binding& b = m.bindings[static_cast<size_t>(reaching->front())];
  ir::Node a = assignment_of(b.statement);
  return a && a.field(field::left) == b.target ? a : ir::Node{};
}

// The identifier named `name` inside `n`, or null.
ir::Node identifier_in(const ir::Module& m, ir::Node n, std::string_view name) {
  ir::Node found;
  syntax::walk(n, [&](ir::Node id) {
    if (!found && id.is(kind::identifier) && m.text(id) == name) found = id;
    return !found;
  });
  return found;
}

}  // namespace

ir::Node expert_gather_call(const analysis::FileContext& ctx, ir::Node for_statement) {
  if (!for_statement.is(kind::for_statement)) return {};
  const ir::Module& m = ctx.module;
  ir::Node gather;
  std::string tokens;
  for (ir::Node stmt : ir::children_without_comments(for_statement.field(field::body))) {
    if (ir::Node a = assignment_of(stmt)) {
      const auto pair = two_names(a.field(field::left));
      ir::Node rhs = ir::unparenthesize(a.field(field::right));
      if (pair && !gather && is_gather(ctx, rhs)) {
        gather = rhs;
        tokens = std::string(m.text((*pair)[1]));
      }
      continue;
    }
    ir::Node call = ir::sole_expression(stmt);
    if (!gather || !call || !call.is(kind::call) || !call.field(field::function).is(kind::attribute) ||
        m.text(call.field(field::function).field(field::attribute)) != "index_add_") {
      continue;
    }
    const auto args = positional_arguments(call);
    if (args && args->size() >= 2 && is_identifier(m, (*args)[1], tokens)) return gather;
  }
  return {};
}

namespace {

// What the analysis of an expert loop proved, for render_expert_dispatch to lay out (which may
// still decline where the layout cannot be written: a shared line, no runtime).
struct ExpertDispatchPlan {
  Loop loop;
  ir::Node for_statement;
  ir::Node first;         // the statement the fixed-shape loop goes before: the list of experts hit, or the loop
  std::string iteration;  // what the fixed-shape loop runs over
};

std::variant<ExpertDispatchPlan, Declined> analyse_expert_dispatch(const analysis::FileContext& ctx,
                                                                    ir::Node for_statement, FunctionIndex& index) {
  const ir::Module& m = ctx.module;
  const int fi = m.function_of(for_statement);
  if (auto declined = loop_declined(fi, for_statement)) return *declined;
  ir::Node body = m.functions[static_cast<size_t>(fi)].node.field(field::body);
  Loop loop;
  loop.expert = for_statement.field(field::left);
  if (!loop.expert.is(kind::identifier)) return Declined{decline<DeclineCode::DispatchLoopBody>()};
  if (auto bad = read_body(ctx, for_statement, loop)) return *bad;
  const std::string mask(m.text(loop.mask));

  // What the loop runs over: `range(...)` (the same experts, each on every token), or the list of
  // experts with routed tokens, made by the statement just before (every expert, in order: one
  // with no routed token adds zeros).
  ir::Node first = for_statement;
  std::string iteration;
  ir::Node iterable = ir::unparenthesize(for_statement.field(field::right));
  std::string hit_list;
  if (iterable.is(kind::call) && analysis::callee_name(m, iterable) == std::optional<std::string>("range")) {
    iteration = copied(m, for_statement.field(field::right));
  } else if (iterable.is(kind::identifier)) {
    hit_list = std::string(m.text(iterable));
    ir::Node previous = ir::previous_statement(for_statement);
    ir::Node a = previous ? assignment_of(previous) : ir::Node{};
    const std::string form = a ? compact(m, a.field(field::right)) : "";
    const std::string summed = mask + ".sum(dim=(-1,-2))";
    const bool listed = form == "(" + summed + ">0).nonzero(as_tuple=True)[0].tolist()" ||
                        form == "torch.greater(" + summed + ",0).nonzero(as_tuple=True)[0].tolist()";
    if (!listed || !is_identifier(m, a.field(field::left), hit_list) || bindings_in_order(m, iterable).size() != 1) {
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
  ir::Node zeros = final_assign && final_assign.field(field::left) == final_bindings[0]->target
                       ? ir::unparenthesize(final_assign.field(field::right))
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
  if (auto taken = name_taken(m, fi, kRouted)) return *taken;
  if (first == for_statement) {
    if (auto taken = name_taken(m, fi, kIteratedName)) return *taken;
  }
  return ExpertDispatchPlan{loop, for_statement, first, iteration};
}

std::variant<source::Fix, Declined> render_expert_dispatch(const ir::Module& m, const ExpertDispatchPlan& plan) {
  const Loop& loop = plan.loop;
  const std::string mask(m.text(loop.mask));
  // The fixed-shape loop: each token's slot for expert e (the one 1 in its column of mask[e]; 0,
  // masked, for a token e did not route), every token, the two statements as written, and the
  // contribution of a token e did not route masked to +0.0.
  const std::string expert(m.text(loop.expert)), slot(m.text(loop.slot)), tokens(m.text(loop.tokens));
  CompiledCode compiled;
  compiled.line(fmt::format("for {} in {}:", expert, plan.iteration));
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
  fix.title = fmt::format(
      "run every expert on every token, each token's contribution masked, in fixed shapes (unsafe: {})",
      mark_unsafe(fix, unsafe<UnsafeCode::ExpertOnEveryToken>()));
  // A topk of no experts per token leaves no slot to find: the original runs.
  const std::string gate =
      fmt::format("not _graphmend.compiling() or _graphmend.torch.is_grad_enabled() or {}.shape[1] == 0", mask);
  if (auto declined = compile_before_loop(m, plan.first, plan.for_statement, compiled.text, fix, gate)) {
    return *declined;
  }
  return fix;
}

}  // namespace

std::variant<source::Fix, Declined> plan_expert_dispatch(const analysis::FileContext& ctx, ir::Node for_statement,
                                                         FunctionIndex& index) {
  auto plan = analyse_expert_dispatch(ctx, for_statement, index);
  if (auto* declined = std::get_if<Declined>(&plan)) return *declined;
  return render_expert_dispatch(ctx.module, std::get<ExpertDispatchPlan>(plan));
}

ir::Node expert_masked_gather(const analysis::FileContext& ctx, ir::Node for_statement) {
  if (!for_statement.is(kind::for_statement)) return {};
  const ir::Module& m = ctx.module;
  for (ir::Node stmt : ir::children_without_comments(for_statement.field(field::body))) {
    ir::Node a = assignment_of(stmt);
    ir::Node target = a ? a.field(field::left) : ir::Node{};
    if (!target || !target.is(kind::subscript) || target.children_by_field(field::subscript).size() != 1) continue;
    const std::string index = compact(m, target.children_by_field(field::subscript)[0]);
    ir::Node gathered;
    syntax::walk(a.field(field::right), [&](ir::Node n) {
      if (gathered) return false;
      if (!n.is(kind::call)) return true;
      const auto args = positional_arguments(n);
      ir::Node arg = args && args->size() == 1 ? ir::unparenthesize((*args)[0]) : ir::Node{};
      if (arg && arg.is(kind::subscript) && arg.children_by_field(field::subscript).size() == 1) {
        ir::Node mask = arg.children_by_field(field::subscript)[0];
        if (compact(m, mask) == index && ctx.types.boolean_mask_index(m, arg.field(field::value), mask)) gathered = arg;
      }
      return !gathered;
    });
    if (gathered) return gathered;
  }
  return {};
}

namespace {

// What the analysis of a masked-store loop proved, for render_masked_dispatch to lay out (which
// may still decline where the layout cannot be written: a shared line, no runtime).
struct MaskedDispatchPlan {
  enum class Over { Range, Enumerate, HitList };
  MaskedStore store;
  Over over = Over::Range;
  ir::Node for_statement;
  ir::Node first;          // the statement the fixed-shape loop goes before (over the list of experts hit)
  std::string iteration;   // what the loop runs over
  std::string count_gate;  // the trace-time check the list of experts hit relies on, or ""
};

std::variant<MaskedDispatchPlan, Declined> analyse_masked_dispatch(const analysis::FileContext& ctx,
                                                                    ir::Node for_statement, FunctionIndex& index) {
  using Over = MaskedDispatchPlan::Over;
  const ir::Module& m = ctx.module;
  const int fi = m.function_of(for_statement);
  if (auto declined = loop_declined(fi, for_statement)) return *declined;
  ir::Node body = m.functions[static_cast<size_t>(fi)].node.field(field::body);
  MaskedStore s;
  ir::Node left = for_statement.field(field::left);
  ir::Node iterable = ir::unparenthesize(for_statement.field(field::right));
  const auto callee = iterable.is(kind::call) ? analysis::callee_name(m, iterable) : std::nullopt;
  Over over;
  const std::array<ir::Node, 2> pair = two_names(left).value_or(std::array<ir::Node, 2>{});
  if (pair[0] && callee == std::optional<std::string>("enumerate")) {
    over = Over::Enumerate;  // every expert, each with its index
    s.expert = pair[0];
    s.layer = pair[1];
    const auto args = positional_arguments(iterable);
    if (!args || args->size() != 1) return Declined{decline<DeclineCode::DispatchIteration>(snippet(m, iterable))};
  } else if (left.is(kind::identifier) && callee == std::optional<std::string>("range")) {
    over = Over::Range;
    s.expert = left;
  } else if (left.is(kind::identifier) && iterable.is(kind::identifier)) {
    over = Over::HitList;
    s.expert = left;
  } else {
    return Declined{decline<DeclineCode::DispatchIteration>(snippet(m, iterable))};
  }
  if (auto bad = read_store_body(m, for_statement, s)) return *bad;
  const std::string base(m.text(s.base)), output(m.text(s.output)), hidden(m.text(s.hidden));

  // The mask is boolean: `.bool()` of the column, or its tensor bound once, before the loop, to
  // `... .bool()`. (An integer tensor would index rows by number.) The list of experts hit counts
  // the mask's elements, so there the tensor itself must be boolean.
  ir::Node base_binding = sole_reaching_assignment(m, s.base);
  const bool base_is_bool = base_binding && is_bool_cast(m, base_binding.field(field::right)) &&
                            runs_before(base_binding.parent(), for_statement);
  if (!base_is_bool && (!s.casts || over == Over::HitList)) {
    return Declined{decline<DeclineCode::DispatchStoreMask>(base)};
  }

  // The list of experts hit: `L = torch.nonzero(S, as_tuple=True)[0].tolist()` just before the
  // loop, `S = M.reshape(rows, experts).sum(dim=0)` before that. With `S.shape == M.shape[-1:]`
  // (checked at trace time) the reshape keeps M's last dimension as its columns, so S counts each
  // expert's routed tokens and L lists, in ascending order, exactly the experts with one: an
  // expert left out would select no row.
  ir::Node first = for_statement;
  std::string iteration = copied(m, for_statement.field(field::right));
  std::string count_gate;
  if (over == Over::HitList) {
    const std::string list(m.text(iterable));
    const Declined bad{decline<DeclineCode::DispatchStoreHitList>(list)};
    ir::Node previous = ir::previous_statement(for_statement);
    ir::Node a = previous ? assignment_of(previous) : ir::Node{};
    if (!a || !is_identifier(m, a.field(field::left), list) || sole_reaching_assignment(m, iterable) != a) return bad;
    const std::string form = compact(m, a.field(field::right));
    const std::string prefix = "torch.nonzero(", suffix = ",as_tuple=True)[0].tolist()";
    if (!form.starts_with(prefix) || !form.ends_with(suffix) ||
        analysis::callee_name(m, ir::unparenthesize(a.field(field::right))
                                     .field(field::function)
                                     .field(field::object)
                                     .field(field::value)) != std::optional<std::string>("torch.nonzero")) {
      return bad;
    }
    const std::string counts = form.substr(prefix.size(), form.size() - prefix.size() - suffix.size());
    ir::Node counts_use = identifier_in(m, a.field(field::right), counts);
    ir::Node summed = counts_use ? sole_reaching_assignment(m, counts_use) : ir::Node{};
    ir::Node sum = summed ? ir::unparenthesize(summed.field(field::right)) : ir::Node{};
    ir::Node reshape = sum && sum.is(kind::call) && sum.field(field::function).is(kind::attribute) &&
                               m.text(sum.field(field::function).field(field::attribute)) == "sum" &&
                               compact(m, sum.field(field::arguments)) == "(dim=0)"
                           ? ir::unparenthesize(sum.field(field::function).field(field::object))
                           : ir::Node{};
    const auto shape = reshape && reshape.is(kind::call) ? positional_arguments(reshape) : std::nullopt;
    if (!shape || shape->size() != 2 || !reshape.field(field::function).is(kind::attribute) ||
        m.text(reshape.field(field::function).field(field::attribute)) != "reshape" ||
        !is_identifier(m, reshape.field(field::function).field(field::object), base) ||
        !runs_before(summed.parent(), previous) || !runs_before(base_binding.parent(), summed.parent()) ||
        occurs_between(m, body, base, summed.end(), for_statement.start(), {}) ||
        occurs_between(m, body, counts, summed.end(), previous.start(), {})) {
      return bad;
    }
    first = previous;
    iteration = fmt::format("range({}.shape[-1])", base);
    count_gate = fmt::format(" or {}.shape != {}.shape[-1:]", counts, base);
  }

  if (auto taken = name_taken(m, fi, kRows)) return *taken;
  // The loop's own names are dead after it: the fixed-shape loop binds them to other values
  // (the list of experts hit is not made at all).
  const LaterNames later = index.names_after(fi, for_statement);
  for (ir::Node name : {s.expert, s.layer, s.named}) {
    if (name && later.contains(std::string(m.text(name)))) {
      return Declined{decline<DeclineCode::DispatchNameAfter>(std::string(m.text(name)))};
    }
  }
  if (over == Over::HitList && later.contains(std::string(m.text(iterable)))) {
    return Declined{decline<DeclineCode::DispatchNameAfter>(std::string(m.text(iterable)))};
  }
  return MaskedDispatchPlan{s, over, for_statement, first, iteration, count_gate};
}

std::variant<source::Fix, Declined> render_masked_dispatch(const ir::Module& m, const MaskedDispatchPlan& plan) {
  using Over = MaskedDispatchPlan::Over;
  const MaskedStore& s = plan.store;
  const std::string base(m.text(s.base)), output(m.text(s.output)), hidden(m.text(s.hidden));

  // Every expert computes every row, and its rows are selected with torch.where into the output
  // in place, as the original's store writes them; the cast is the one the store makes.
  // Over `range(...)` or `enumerate(...)` the loop stays and only the store is replaced; over
  // the list of experts hit, the loop runs over every expert instead.
  CompiledCode compiled;
  if (plan.over == Over::HitList) {
    compiled.line(fmt::format("for {} in {}:", m.text(s.expert), plan.iteration));
    ++compiled.level;
  }
  // The mask with a trailing dimension, to select whole rows: `K[..., None]`, or a subscript
  // column with one more index, `m[:, :, e, None]`.
  std::string mask = s.named ? std::string(m.text(s.named)) + "[..., None]" : reindented(m, s.column, compiled.level);
  if (!s.named) {
    if (ir::unparenthesize(s.column).is(kind::subscript) && mask.ends_with(']')) {
      mask.insert(mask.size() - 1, ", None");
    } else {
      mask += "[..., None]";
    }
  }
  // The expert's rows, then each cast a statement of its own (a chain of calls on one line would
  // pass the line length, where graphmend's wrapping finds no bracket to break at).
  compiled.line(
      fmt::format("{} = {}({})", kRows, reindented(m, s.call.field(field::function), compiled.level), hidden));
  const std::string to_output = fmt::format("({}.dtype)", output);
  if (s.cast_args) compiled.line(fmt::format("{} = {}.to{}", kRows, kRows, reindented(m, s.cast_args, compiled.level)));
  if (!s.cast_args || compact(m, s.cast_args) != to_output) {
    compiled.line(fmt::format("{} = {}.to{}", kRows, kRows, to_output));
  }
  compiled.line(fmt::format("{}.copy_({}.where({}, {}))", output, kRows, mask, output));

  source::Fix fix;
  fix.title = fmt::format(
      "run every expert on every row and select each expert's rows with torch.where, in fixed shapes (unsafe: {})",
      mark_unsafe(fix, unsafe<UnsafeCode::ExpertOnEveryRow>()));
  // The shapes the selection relies on, static under Dynamo: M has the column's rank, so the
  // mask has the rows' shape, that of the input and of the output less their last dimension
  // (the features; equal tuples have equal lengths).
  const std::string gate = fmt::format(
      "not _graphmend.compiling() or _graphmend.torch.is_grad_enabled() or {b}.dim() != {r} "
      "or {b}.shape[:-1] != {h}.shape[:-1] or {h}.shape[:-1] != {o}.shape[:-1]{c}",
      fmt::arg("b", base), fmt::arg("h", hidden), fmt::arg("o", output), fmt::arg("r", s.rank),
      fmt::arg("c", plan.count_gate));
  if (plan.over != Over::HitList) {
    if (auto declined = wrap_for_compile(m, s.store, compiled.text, fix, gate)) return *declined;
    return fix;
  }
  if (auto declined = compile_before_loop(m, plan.first, plan.for_statement, compiled.text, fix, gate)) {
    return *declined;
  }
  return fix;
}

}  // namespace

std::variant<source::Fix, Declined> plan_masked_dispatch(const analysis::FileContext& ctx, ir::Node for_statement,
                                                         FunctionIndex& index) {
  auto plan = analyse_masked_dispatch(ctx, for_statement, index);
  if (auto* declined = std::get_if<Declined>(&plan)) return *declined;
  return render_masked_dispatch(ctx.module, std::get<MaskedDispatchPlan>(plan));
}

}  // namespace graphmend::rewrite
