#include "graphmend/rules/where_buffer.h"

#include <fmt/format.h>

#include <algorithm>

#include "graphmend/rules/conditions.h"
#include "graphmend/rules/where_rewrite.h"

namespace graphmend::rules {

namespace {

using source::Fix;

// `R.register_buffer(...)` as a whole statement: the call, or null.
ir::Node register_buffer_call(const ir::Module& m, ir::Node statement) {
  if (!statement || !statement.is("expression_statement") || statement.named_child_count() != 1) return {};
  ir::Node call = statement.named_child(0);
  if (!call.is("call")) return {};
  ir::Node fn = call.field("function");
  if (!fn.is("attribute") || m.text(fn.field("attribute")) != "register_buffer") return {};
  return call;
}

// The characters of a plain one-part string literal that names an attribute, or nullopt.
std::optional<std::string> attribute_name_literal(const ir::Module& m, ir::Node n) {
  if (!n || !n.is("string") || !is_plain_string(n)) return std::nullopt;
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

std::vector<ir::Node> statements(ir::Node block) {
  std::vector<ir::Node> out;
  for (ir::Node s : block.named_children()) {
    if (!s.is("comment")) out.push_back(s);
  }
  return out;
}

bool has_call(ir::Node n) {
  bool found = false;
  syntax::walk(n, [&](ir::Node c) {
    found |= c.is("call");
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
  ir::Node value;  // X of register_buffer("N", X, persistent=False)
};

struct Matcher {
  const RuleContext& ctx;
  const ir::Module& m;
  std::string receiver;     // R
  std::string buffer_name;  // N
  std::string why;

  bool fail(std::string reason) {
    why = std::move(reason);
    return false;
  }

  bool is_receiver_attribute(ir::Node n, std::string_view attribute = {}) const {
    n = ir::unparenthesize(n);
    return n.is("attribute") && n.field("object").is("identifier") && m.text(n.field("object")) == receiver &&
           (attribute.empty() || m.text(n.field("attribute")) == attribute);
  }

  bool register_call(ir::Node call, Branch& branch) {
    ir::Node fn = call.field("function");
    ir::Node object = fn.field("object");
    if (!object.is("identifier")) {
      return fail(fmt::format("`{}` is not called on a plain name", snippet(m, fn)));
    }
    if (receiver.empty()) receiver = std::string(m.text(object));
    if (m.text(object) != receiver) return fail("the branches register buffers on different objects");
    std::vector<ir::Node> positional;
    bool non_persistent = false;
    for (ir::Node a : call.field("arguments").named_children()) {
      if (a.is("comment")) continue;
      if (a.is("keyword_argument")) {
        if (m.text(a.field("name")) != "persistent" || m.text(a.field("value")) != "False") {
          return fail(fmt::format("register_buffer's argument `{}` is not `persistent=False`", snippet(m, a)));
        }
        non_persistent = true;
      } else if (a.is("list_splat") || a.is("dictionary_splat")) {
        return fail("register_buffer is called with unpacked arguments");
      } else {
        positional.push_back(a);
      }
    }
    if (positional.size() != 2 || !non_persistent) {
      return fail("only `register_buffer(\"name\", value, persistent=False)` rebinds a buffer graphmend can "
                  "prove already exists");
    }
    auto name = attribute_name_literal(m, positional[0]);
    if (!name) return fail(fmt::format("the buffer name `{}` is not a plain string", snippet(m, positional[0])));
    if (buffer_name.empty()) buffer_name = *name;
    if (*name != buffer_name) return fail("the branches register different buffers");
    branch.value = positional[1];
    return true;
  }

  bool memo(ir::Node statement, Branch& branch) {
    ir::Node cond = ir::unparenthesize(statement.field("condition"));
    ir::Node test = cond.is("not_operator") ? ir::unparenthesize(cond.field("argument")) : ir::Node{};
    if (!test || !test.is("call") || m.text(test.field("function")) != "hasattr" ||
        m.lookup_at(test.field("function")) >= 0 || !statement.children_by_field("alternative").empty()) {
      return false;
    }
    std::vector<ir::Node> args;
    for (ir::Node a : test.field("arguments").named_children()) {
      if (!a.is("comment")) args.push_back(a);
    }
    if (args.size() != 2 || !args[0].is("identifier") || m.text(args[0]) != receiver) return false;
    auto attribute = attribute_name_literal(m, args[1]);
    if (!attribute) return false;
    auto body = statements(statement.field("consequence"));
    ir::Node assignment = body.size() == 1 && body[0].is("expression_statement") && body[0].named_child_count() == 1
                              ? body[0].named_child(0)
                              : ir::Node{};
    if (!assignment || !assignment.is("assignment") || !assignment.field("right") ||
        !assignment.field("right").is("call") || assignment.field("type")) {
      return fail(fmt::format("the cache `{}` is not filled by one `= call(...)` assignment", *attribute));
    }
    Memo memo{*attribute, {}, assignment.field("right"), {}};
    ir::Node left = ir::unparenthesize(assignment.field("left"));
    int caches = 0;
    if (left.is("pattern_list") || left.is("tuple_pattern")) {
      for (ir::Node t : left.named_children()) memo.targets.push_back(t);
    } else {
      memo.targets.push_back(left);
    }
    for (ir::Node t : memo.targets) {
      if (is_receiver_attribute(t, *attribute)) {
        ++caches;
      } else if (!t.is("identifier") || m.text(t) == receiver) {
        return fail(fmt::format("the cache `{}` is filled together with `{}`", *attribute, snippet(m, t)));
      }
    }
    if (caches != 1) return fail(fmt::format("the assignment under `hasattr` does not fill `{}`", *attribute));
    ir::Node callee = memo.call.field("function");
    if (has_call(callee)) return fail(fmt::format("the cache's initialiser `{}` is not a plain name", snippet(m, callee)));
    for (ir::Node a : memo.call.field("arguments").named_children()) {
      if (a.is("comment")) continue;
      if (a.is("list_splat") || a.is("dictionary_splat")) {
        return fail("the cache's initialiser is called with unpacked arguments");
      }
      if (auto bad = branch_effect(ctx, a)) return fail("an argument of the cache's initialiser " + bad->substr(9));
    }
    branch.memos.push_back(std::move(memo));
    return true;
  }

  bool move(ir::Node statement, Branch& branch) {
    ir::Node a = statement.is("expression_statement") && statement.named_child_count() == 1 ? statement.named_child(0)
                                                                                             : ir::Node{};
    if (!a || !a.is("assignment") || !is_receiver_attribute(a.field("left")) || !a.field("right")) return false;
    ir::Node call = a.field("right");
    if (!call.is("call") || !call.field("function").is("attribute")) return false;
    ir::Node fn = call.field("function");
    if (m.text(fn.field("attribute")) != "to" || m.text(fn.field("object")) != m.text(a.field("left"))) return false;
    std::vector<ir::Node> args;
    for (ir::Node x : call.field("arguments").named_children()) {
      if (!x.is("comment")) args.push_back(x);
    }
    if (args.size() != 1 || !(args[0].is("identifier") || args[0].is("attribute")) || has_call(args[0])) return false;
    branch.moves.push_back({a.field("left"), args[0]});
    return true;
  }

  std::optional<Branch> branch(ir::Node block) {
    auto body = statements(block);
    Branch out;
    if (body.empty() || !register_buffer_call(m, body.back())) {
      fail("a branch does not end by registering the buffer");
      return std::nullopt;
    }
    if (!register_call(register_buffer_call(m, body.back()), out)) return std::nullopt;
    for (size_t i = 0; i + 1 < body.size(); ++i) {
      ir::Node s = body[i];
      if (s.is("if_statement") && memo(s, out)) continue;
      if (!why.empty()) return std::nullopt;
      if (move(s, out)) continue;
      fail(fmt::format("a branch has `{}` before registering the buffer; only a cache filled under "
                       "`if not hasattr(...)` and a `.to(device)` move are handled there",
                       snippet(m, s)));
      return std::nullopt;
    }
    // The value: a cache this branch fills, or a pure expression that reads no cache.
    for (const Memo& memo : out.memos) {
      if (is_receiver_attribute(out.value, memo.attribute)) return out;
    }
    if (auto bad = branch_effect(ctx, out.value)) {
      fail("the registered value: " + *bad);
      return std::nullopt;
    }
    return out;
  }
};

std::string target_text(const ir::Module& m, const Memo& memo, const std::string& receiver) {
  std::string out;
  for (ir::Node t : memo.targets) {
    if (!out.empty()) out += ", ";
    const bool cache = t.is("attribute") && m.text(t.field("object")) == receiver &&
                       m.text(t.field("attribute")) == memo.attribute;
    out += cache ? memo.local : "_graphmend_unused";
  }
  return out;
}

}  // namespace

std::optional<std::variant<Fix, Declined>> plan_buffer_selection(const RuleContext& ctx, ir::Node if_statement) {
  const ir::Module& m = ctx.module;
  ir::Node else_block;
  bool elif = false;
  for (ir::Node alt : if_statement.children_by_field("alternative")) {
    if (alt.is("elif_clause")) elif = true;
    else else_block = alt.field("body");
  }
  ir::Node consequence = if_statement.field("consequence");
  auto ends_in_register = [&](ir::Node block) {
    auto body = block ? statements(block) : std::vector<ir::Node>{};
    return !body.empty() && bool(register_buffer_call(m, body.back()));
  };
  if (!ends_in_register(consequence) && !ends_in_register(else_block)) return std::nullopt;
  if (elif || !else_block) {
    return Declined{"a buffer is registered under an `if` without exactly one `else`; only an if/else pair "
                    "selects between two buffers"};
  }
  ir::Node cond = ir::unparenthesize(if_statement.field("condition"));
  if (cond.is("boolean_operator") && m.text(cond.field("operator")) == "and" &&
      classify_truth(ctx, cond.field("left")).kind == TruthKind::Static) {
    return Declined{"a static conjunct before a buffer selection is not rewritten in this version"};
  }
  bool uses_equal = false;
  std::string why;
  auto lowered = lower_tensor_condition(ctx, cond, uses_equal, why);
  if (!lowered) return Declined{why};

  Matcher match{ctx, m, {}, {}, {}};
  std::vector<Branch> branches;
  for (ir::Node block : {consequence, else_block}) {
    auto b = match.branch(block);
    if (!b) return Declined{match.why};
    branches.push_back(std::move(*b));
  }
  // Both values are computed on every compiled call: neither may read a cache the other branch
  // fills (it may not exist yet).
  for (size_t i = 0; i < branches.size(); ++i) {
    for (size_t j = 0; j < branches.size(); ++j) {
      for (const Memo& memo : branches[j].memos) {
        const bool own = i == j && match.is_receiver_attribute(branches[i].value, memo.attribute);
        bool reads = false;
        syntax::walk(branches[i].value, [&](ir::Node n) {
          reads |= match.is_receiver_attribute(n, memo.attribute);
          return !reads;
        });
        if (reads && !own) {
          return Declined{fmt::format("a registered value reads the cache `{}` outside the branch that fills it",
                                      memo.attribute)};
        }
      }
    }
  }
  // Names a cache assignment binds besides the cache are not bound under compile: nothing may
  // read them after the `if`.
  const int fi = m.function_of(if_statement);
  if (fi < 0) return Declined{"the `if` is not inside a function"};
  std::set<std::string> later;
  walk_body(m.functions[static_cast<size_t>(fi)], [&](ir::Node n) {
    if (n.start() >= if_statement.end() && n.is("identifier")) later.insert(std::string(m.text(n)));
    return true;
  });
  int memo_count = 0;
  for (Branch& b : branches) {
    for (Memo& memo : b.memos) {
      memo.local = fmt::format("_graphmend_m{}", memo_count++);
      for (ir::Node t : memo.targets) {
        if (t.is("identifier") && later.contains(std::string(m.text(t)))) {
          return Declined{fmt::format("`{}`, which the cache assignment also binds, is read after the `if`",
                                      m.text(t))};
        }
      }
    }
  }

  std::string code;
  int level = 0;
  auto line = [&](const std::string& text) {
    if (!code.empty()) code += '\n';
    code.append(static_cast<size_t>(level), kIndentStep);
    code += text;
  };
  const std::string& r = match.receiver;
  line("_graphmend_c = " + *lowered);
  // A cache the original fills only on its branch is read when present, else computed without
  // being stored: the selection needs its value on every call (the speculation the fix title states).
  for (const Branch& b : branches) {
    for (const Memo& memo : b.memos) {
      line(fmt::format("if hasattr({}, \"{}\"):", r, memo.attribute));
      ++level;
      line(fmt::format("{} = {}.{}", memo.local, r, memo.attribute));
      --level;
      line("else:");
      ++level;
      line(target_text(m, memo, r) + " = " + reindented(m, memo.call, level));
      --level;
    }
  }
  std::vector<std::string> values;
  for (size_t i = 0; i < branches.size(); ++i) {
    std::string value;
    for (const Memo& memo : branches[i].memos) {
      if (match.is_receiver_attribute(branches[i].value, memo.attribute)) value = memo.local;
    }
    if (value.empty()) value = reindented(m, branches[i].value, level);
    values.push_back(fmt::format("_graphmend_v{}", i));
    line(values.back() + " = " + value);
  }
  std::string preconditions = fmt::format("_graphmend_selectable(_graphmend_c, ({}, {})) and _graphmend_buffer_slot({}, \"{}\")",
                                          values[0], values[1], r, match.buffer_name);
  for (const Branch& b : branches) {
    for (const Move& mv : b.moves) {
      preconditions += fmt::format(" and _graphmend_unmoved({}, {})", copied(m, mv.attribute), copied(m, mv.device));
    }
  }
  line("if " + preconditions + ":");
  ++level;
  line(fmt::format("{}._buffers[\"{}\"] = _graphmend_where(_graphmend_c, {}, {})", r, match.buffer_name, values[0],
                   values[1]));
  --level;
  line("else:");
  ++level;
  line(reindented(m, if_statement, level));

  Fix fix;
  fix.applicability = source::Applicability::Unsafe;
  std::string title = fmt::format(
      "select the buffer `{}` with torch.where under torch.compile (unsafe: it becomes a new tensor where the "
      "original rebinds it to an existing one",
      match.buffer_name);
  for (const Branch& b : branches) {
    for (const Memo& memo : b.memos) {
      title += fmt::format("; `{}` runs, unstored, on calls where the original would not run it: assumed pure and "
                           "unable to raise",
                           snippet(m, memo.call.field("function")));
    }
  }
  fix.title = title + ")";
  fix.helpers = {runtime_prelude(m), where_runtime(), buffer_runtime()};
  if (uses_equal) fix.helpers.push_back(equal_runtime());
  if (auto declined = wrap_for_compile(m, if_statement, code, fix,
                                       "not _graphmend_compiling() or _graphmend_torch.is_grad_enabled()")) {
    return *declined;
  }
  return fix;
}

}  // namespace graphmend::rules
