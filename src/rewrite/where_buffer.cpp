#include "graphmend/rewrite/where_buffer.h"

#include <fmt/format.h>

#include <algorithm>

#include "graphmend/analysis/truth.h"
#include "graphmend/rewrite/compile_gates.h"
#include "graphmend/rewrite/compiled_code.h"
#include "graphmend/rewrite/unsafe.h"
#include "graphmend/rewrite/where_parts.h"

namespace graphmend::rewrite {

using analysis::TruthKind;
using analysis::classify_truth;

namespace {


// `R.register_buffer(...)` as a whole statement: the call, or null.
ir::Node register_buffer_call(const ir::Module& m, ir::Node statement) {
  if (!statement || !statement.is(kind::expression_statement) || statement.named_child_count() != 1) return {};
  ir::Node call = statement.named_child(0);
  if (!call.is(kind::call)) return {};
  ir::Node fn = call.field(field::function);
  if (!fn.is(kind::attribute) || m.text(fn.field(field::attribute)) != "register_buffer") return {};
  return call;
}

// The characters of a plain one-part string literal that names an attribute, or nullopt.
std::optional<std::string> attribute_name_literal(const ir::Module& m, ir::Node n) {
  if (!n || !n.is(kind::string) || !is_plain_string(n)) return std::nullopt;
  const std::string_view text = m.text(n);
  if (text.size() < 3 || (text.front() != '"' && text.front() != '\'') || text.back() != text.front()) {
    return std::nullopt;
  }
  const std::string_view inner = text.substr(1, text.size() - 2);
  const bool identifier = std::all_of(inner.begin(), inner.end(), [](char c) {
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  });
  if (!identifier || (inner.front() >= '0' && inner.front() <= '9')) return std::nullopt;
  return std::string(inner);
}

bool has_call(ir::Node n) {
  bool found = false;
  syntax::walk(n, [&](ir::Node c) {
    found |= c.is(kind::call);
    return !found;
  });
  return found;
}

// `if not hasattr(R, "K"): <R.K[, names]> = <call>`: a lazily filled cache of the call's result.
struct Memo {
  std::string attribute;           // K
  std::vector<ir::Node> targets;   // the assignment's targets, R.K among them
  ir::Node call;
  std::string local;               // its compiled-form name
};

// `R.A = R.A.to(D)`: a move that is the identity when A already lives on D.
struct Move {
  ir::Node attribute;  // R.A
  ir::Node device;     // D
};

struct Branch {
  std::vector<Memo> memos;
  std::vector<Move> moves;
  ir::Node value;       // X of register_buffer("N", X, persistent=False)
  int value_memo = -1;  // the index of the cache X is, or -1 when X is an expression
};

struct Matcher {
  const analysis::FileContext& ctx;
  const ir::Module& m;
  std::string receiver;     // R
  std::string buffer_name;  // N
  std::optional<Decline> why;

  bool fail(Decline reason) {
    why = std::move(reason);
    return false;
  }

  bool is_receiver_attribute(ir::Node n, std::string_view attribute = {}) const {
    n = ir::unparenthesize(n);
    return n.is(kind::attribute) && n.field(field::object).is(kind::identifier) &&
           m.text(n.field(field::object)) == receiver &&
           (attribute.empty() || m.text(n.field(field::attribute)) == attribute);
  }

  bool register_call(ir::Node call, Branch& branch) {
    ir::Node fn = call.field(field::function);
    ir::Node object = fn.field(field::object);
    if (!object.is(kind::identifier)) {
      return fail(decline<DeclineCode::BufferCallNotOnName>(snippet(m, fn)));
    }
    if (receiver.empty()) receiver = std::string(m.text(object));
    if (m.text(object) != receiver) return fail(decline<DeclineCode::BufferDifferentObjects>());
    std::vector<ir::Node> positional;
    bool non_persistent = false;
    for (ir::Node a : ir::children_without_comments(call.field(field::arguments))) {
      if (a.is(kind::keyword_argument)) {
        if (m.text(a.field(field::name)) != "persistent" || m.text(a.field(field::value)) != "False") {
          return fail(decline<DeclineCode::BufferNotNonPersistent>(snippet(m, a)));
        }
        non_persistent = true;
      } else if (a.is(kind::list_splat) || a.is(kind::dictionary_splat)) {
        return fail(decline<DeclineCode::BufferUnpackedArguments>());
      } else {
        positional.push_back(a);
      }
    }
    if (positional.size() != 2 || !non_persistent) {
      return fail(decline<DeclineCode::BufferCallForm>());
    }
    auto name = attribute_name_literal(m, positional[0]);
    if (!name) return fail(decline<DeclineCode::BufferNameNotString>(snippet(m, positional[0])));
    if (buffer_name.empty()) buffer_name = *name;
    if (*name != buffer_name) return fail(decline<DeclineCode::BufferDifferentNames>());
    branch.value = positional[1];
    return true;
  }

  bool memo(ir::Node statement, Branch& branch) {
    ir::Node cond = ir::unparenthesize(statement.field(field::condition));
    ir::Node test = cond.is(kind::not_operator) ? ir::unparenthesize(cond.field(field::argument)) : ir::Node{};
    if (!test || !test.is(kind::call) || m.text(test.field(field::function)) != "hasattr" ||
        m.lookup_at(test.field(field::function)) >= 0 || !statement.children_by_field(field::alternative).empty()) {
      return false;
    }
    const std::vector<ir::Node> args = ir::children_without_comments(test.field(field::arguments));
    if (args.size() != 2 || !args[0].is(kind::identifier) || m.text(args[0]) != receiver) return false;
    auto attribute = attribute_name_literal(m, args[1]);
    if (!attribute) return false;
    auto body = ir::children_without_comments(statement.field(field::consequence));
    ir::Node assignment = body.size() == 1 ? ir::sole_expression(body[0]) : ir::Node{};
    if (!assignment || !assignment.is(kind::assignment) || !assignment.field(field::right) ||
        !assignment.field(field::right).is(kind::call) || assignment.field(field::type)) {
      return fail(decline<DeclineCode::CacheNotOneAssignment>(*attribute));
    }
    Memo memo{*attribute, {}, assignment.field(field::right), {}};
    ir::Node left = ir::unparenthesize(assignment.field(field::left));
    int caches = 0;
    if (left.is(kind::pattern_list) || left.is(kind::tuple_pattern)) {
      for (ir::Node t : left.named_children()) memo.targets.push_back(t);
    } else {
      memo.targets.push_back(left);
    }
    for (ir::Node t : memo.targets) {
      if (is_receiver_attribute(t, *attribute)) {
        ++caches;
      } else if (!t.is(kind::identifier) || m.text(t) == receiver) {
        return fail(decline<DeclineCode::CacheFilledTogether>(*attribute, snippet(m, t)));
      }
    }
    if (caches != 1) return fail(decline<DeclineCode::CacheNotFilled>(*attribute));
    ir::Node callee = memo.call.field(field::function);
    if (has_call(callee)) {
      return fail(decline<DeclineCode::CacheInitialiserNotName>(snippet(m, callee)));
    }
    for (ir::Node a : ir::children_without_comments(memo.call.field(field::arguments))) {
      if (a.is(kind::list_splat) || a.is(kind::dictionary_splat)) {
        return fail(decline<DeclineCode::CacheInitialiserUnpacked>());
      }
      if (auto bad = branch_effect(ctx, a, "an argument of the cache's initialiser")) return fail(std::move(*bad));
    }
    branch.memos.push_back(std::move(memo));
    return true;
  }

  bool move(ir::Node statement, Branch& branch) {
    ir::Node a = ir::sole_expression(statement);
    if (!a || !a.is(kind::assignment) || !is_receiver_attribute(a.field(field::left)) || !a.field(field::right)) {
      return false;
    }
    ir::Node call = a.field(field::right);
    if (!call.is(kind::call) || !call.field(field::function).is(kind::attribute)) return false;
    ir::Node fn = call.field(field::function);
    if (m.text(fn.field(field::attribute)) != "to" || m.text(fn.field(field::object)) != m.text(a.field(field::left))) {
      return false;
    }
    const std::vector<ir::Node> args = ir::children_without_comments(call.field(field::arguments));
    if (args.size() != 1 || !(args[0].is(kind::identifier) || args[0].is(kind::attribute)) || has_call(args[0])) return false;
    branch.moves.push_back({a.field(field::left), args[0]});
    return true;
  }

  std::optional<Branch> branch(ir::Node block) {
    auto body = ir::children_without_comments(block);
    Branch out;
    ir::Node registration = body.empty() ? ir::Node{} : register_buffer_call(m, body.back());
    if (!registration) {
      fail(decline<DeclineCode::BufferNotLast>());
      return std::nullopt;
    }
    if (!register_call(registration, out)) return std::nullopt;
    for (size_t i = 0; i + 1 < body.size(); ++i) {
      ir::Node s = body[i];
      if (s.is(kind::if_statement) && memo(s, out)) continue;
      if (why) return std::nullopt;
      if (move(s, out)) continue;
      fail(decline<DeclineCode::BufferAfterOther>(snippet(m, s)));
      return std::nullopt;
    }
    // The value: a cache this branch fills, or a pure expression that reads no cache.
    for (size_t i = 0; i < out.memos.size(); ++i) {
      if (is_receiver_attribute(out.value, out.memos[i].attribute)) {
        out.value_memo = static_cast<int>(i);
        return out;
      }
    }
    if (auto bad = branch_effect(ctx, out.value)) {
      fail(decline<DeclineCode::RegisteredValue>(render(*bad)));
      return std::nullopt;
    }
    return out;
  }
};

// The cache assignment's targets under compile: the cache's local, and a throwaway for the rest.
std::string target_text(const Matcher& match, const Memo& memo) {
  std::string out;
  for (ir::Node t : memo.targets) {
    if (!out.empty()) out += ", ";
    out += match.is_receiver_attribute(t, memo.attribute) ? memo.local : "_graphmend_unused";
  }
  return out;
}

}  // namespace

std::optional<std::variant<Fix, Declined>> plan_buffer_selection(const analysis::FileContext& ctx, ir::Node if_statement,
                                                                 const LaterNames& later) {
  const ir::Module& m = ctx.module;
  ir::Node else_block;
  bool elif = false;
  for (ir::Node alt : if_statement.children_by_field(field::alternative)) {
    if (alt.is(kind::elif_clause)) elif = true;
    else else_block = alt.field(field::body);
  }
  ir::Node consequence = if_statement.field(field::consequence);
  auto ends_in_register = [&](ir::Node block) {
    auto body = block ? ir::children_without_comments(block) : std::vector<ir::Node>{};
    return !body.empty() && bool(register_buffer_call(m, body.back()));
  };
  if (!ends_in_register(consequence) && !ends_in_register(else_block)) return std::nullopt;
  if (elif || !else_block) {
    return Declined{decline<DeclineCode::BufferWithoutElse>()};
  }
  ir::Node cond = ir::unparenthesize(if_statement.field(field::condition));
  if (cond.is(kind::boolean_operator) && m.text(cond.field(field::operator_)) == "and" &&
      classify_truth(ctx, cond.field(field::left)).kind == TruthKind::Static) {
    return Declined{decline<DeclineCode::StaticConjunctBeforeBuffer>()};
  }
  bool uses_equal = false;
  std::optional<Decline> why;
  auto lowered = lower_tensor_condition(ctx, cond, uses_equal, why, true);
  if (!lowered) return Declined{std::move(*why)};
  // torch.finfo, or an operation that raises on some dtypes (`t.abs()`), in a branch or a later
  // atom of the condition: this form has no gate to check a dtype in.
  for (ir::Node block : {consequence, else_block}) {
    if (auto bad = dtype_preconditions(ctx, block, {}, if_statement, nullptr)) return Declined{std::move(*bad)};
  }
  if (auto bad = dtype_preconditions(ctx, cond, {}, if_statement, nullptr, first_atom(cond))) return Declined{std::move(*bad)};

  Matcher match{ctx, m, {}, {}, {}};
  std::vector<Branch> branches;
  for (ir::Node block : {consequence, else_block}) {
    auto b = match.branch(block);
    if (!b) return Declined{std::move(*match.why)};
    branches.push_back(std::move(*b));
  }
  // Both values are computed on every compiled call: neither may read a cache the other branch
  // fills (it may not exist yet).
  for (size_t i = 0; i < branches.size(); ++i) {
    for (size_t j = 0; j < branches.size(); ++j) {
      for (size_t k = 0; k < branches[j].memos.size(); ++k) {
        const Memo& memo = branches[j].memos[k];
        const bool own = i == j && branches[i].value_memo == static_cast<int>(k);
        bool reads = false;
        syntax::walk(branches[i].value, [&](ir::Node n) {
          reads |= match.is_receiver_attribute(n, memo.attribute);
          return !reads;
        });
        if (reads && !own) {
          return Declined{decline<DeclineCode::CacheReadOutsideBranch>(memo.attribute)};
        }
      }
    }
  }
  // Names a cache assignment binds besides the cache are not bound under compile: nothing may
  // read them after the `if`.
  int memo_count = 0;
  for (Branch& b : branches) {
    for (Memo& memo : b.memos) {
      memo.local = fmt::format("_graphmend_m{}", memo_count++);
      for (ir::Node t : memo.targets) {
        if (t.is(kind::identifier) && later.contains(std::string(m.text(t)))) {
          return Declined{decline<DeclineCode::CacheBindingReadAfter>(m.text(t))};
        }
      }
    }
  }

  CompiledCode compiled;
  const std::string& r = match.receiver;
  compiled.line("_graphmend_c = " + *lowered);
  // A cache the original fills only on its branch is read when present, else computed without
  // being stored: the selection needs its value on every call (the speculation the fix title states).
  for (const Branch& b : branches) {
    for (const Memo& memo : b.memos) {
      compiled.line(fmt::format("if hasattr({}, \"{}\"):", r, memo.attribute));
      ++compiled.level;
      compiled.line(fmt::format("{} = {}.{}", memo.local, r, memo.attribute));
      --compiled.level;
      compiled.line("else:");
      ++compiled.level;
      compiled.line(target_text(match, memo) + " = " + reindented(m, memo.call, compiled.level));
      --compiled.level;
    }
  }
  std::vector<std::string> values;
  for (size_t i = 0; i < branches.size(); ++i) {
    const Branch& b = branches[i];
    const std::string value = b.value_memo >= 0 ? b.memos[static_cast<size_t>(b.value_memo)].local
                                                 : reindented(m, b.value, compiled.level);
    values.push_back(fmt::format("_graphmend_v{}", i));
    compiled.line(values.back() + " = " + value);
  }
  std::string preconditions =
      fmt::format("_graphmend.selectable(_graphmend_c, ({}, {})) and _graphmend.buffer_slot({}, \"{}\")", values[0],
                  values[1], r, match.buffer_name);
  for (const Branch& b : branches) {
    for (const Move& mv : b.moves) {
      preconditions += fmt::format(" and _graphmend.unmoved({}, {})", copied(m, mv.attribute), copied(m, mv.device));
    }
  }
  compiled.line(fmt::format("{} = {}", kDoneFlag, preconditions));
  compiled.line(fmt::format("if {}:", kDoneFlag));
  ++compiled.level;
  compiled.line(fmt::format("{}._buffers[\"{}\"] = _graphmend.where(_graphmend_c, {}, {})", r, match.buffer_name,
                            values[0], values[1]));

  Fix fix;
  std::string unstored;
  for (const Branch& b : branches) {
    for (const Memo& memo : b.memos) {
      unstored += fmt::format(
          "; `{}` runs, unstored, on calls where the original would not run it: assumed pure and "
          "unable to raise",
          snippet(m, memo.call.field(field::function)));
    }
  }
  fix.title = fmt::format("select the buffer `{}` with torch.where under torch.compile (unsafe: {})", match.buffer_name,
                          mark_unsafe(fix, unsafe<UnsafeCode::BufferRebound>(unstored)));
  if (auto declined = select_before_if(m, if_statement, compiled.text, fix, kWhereCompiled)) {
    return *declined;
  }
  return fix;
}

}  // namespace graphmend::rewrite
