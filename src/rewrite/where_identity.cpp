#include "graphmend/rewrite/where_identity.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>
#include <tuple>

#include "graphmend/analysis/api_facts.h"
#include "graphmend/analysis/init_modules.h"
#include "graphmend/analysis/call_evidence.h"
#include "graphmend/analysis/effects.h"
#include "graphmend/rewrite/site.h"
#include "graphmend/rewrite/where_parts.h"

namespace graphmend::rewrite {
namespace {

namespace api = analysis::api;

// Deeper operator nests than this are not followed (no recursion proportional to the input).
constexpr int kMaxDepth = 16;
// A proof looks at most this many statements back for the definition, and this many nodes between
// it and the end of the `if`: each site costs a bounded amount, so n sites cost O(n), not O(n^2).
constexpr int kMaxStatementsBack = 64;
constexpr int kMaxNodesScanned = 8192;
// A proof follows calls into the `forward` of at most this many modules of the user's own classes.
constexpr int kMaxUserModules = 8;

// True when the statement `s` binds `name` other than as `name = value`: as an element of an
// unpacking target (`name, other = pair`), further along a chain (`a = name = v`) or by augmented
// assignment.
bool binds_otherwise(const ir::Module& m, ir::Node s, std::string_view name) {
  if (!s.is(kind::expression_statement) || s.named_child_count() != 1) return false;
  ir::Node a = s.named_child(0);
  if (a.is(kind::augmented_assignment)) {
    return a.field(field::left).is(kind::identifier) && m.text(a.field(field::left)) == name;
  }
  if (!a.is(kind::assignment)) return false;
  // `name = value`
  if (a.field(field::left).is(kind::identifier) && m.text(a.field(field::left)) == name) return false;
  bool found = false;
  for (ir::Node target = a; target && target.is(kind::assignment) && !found; target = target.field(field::right)) {
    // Only the pattern's own elements bind; `obj.name` and `x[name]` do not.
    syntax::walk(target.field(field::left), [&](ir::Node n) {
      if (n.is(kind::identifier)) found |= m.text(n) == name;
      return !found && (n.is(kind::pattern_list) || n.is(kind::tuple_pattern) || n.is(kind::list_pattern) ||
                        n.is(kind::list_splat_pattern) || n == target.field(field::left));
    });
  }
  return found;
}

bool has_keyword(const ir::Module& m, ir::Node call, std::string_view keyword) {
  ir::Node args = call.field(field::arguments);
  if (!args) return false;
  for (ir::Node a : args.named_children()) {
    if (a.is(kind::keyword_argument) && m.text(a.field(field::name)) == keyword) return true;
    if (a.is(kind::dictionary_splat)) return true;  // may hold it
  }
  return false;
}

// The checks in one order, whatever order the proof found them in (the emitted code is stable).
void sort_checks(std::vector<ModuleCheck>& checks) {
  std::sort(checks.begin(), checks.end(), [](const ModuleCheck& a, const ModuleCheck& b) {
    return std::tie(a.module, a.cls) < std::tie(b.module, b.cls);
  });
}

void add_check(std::vector<ModuleCheck>& checks, ModuleCheck check) {
  if (std::find(checks.begin(), checks.end(), check) == checks.end()) checks.push_back(std::move(check));
}

// What a reason shows for an occurrence `n` of a name that may leak it: the construct that uses it
// (for an argument, the call it is passed to).
ir::Node shown_use(ir::Node n) {
  ir::Node parent = n.parent();
  ir::Node shown = parent && !parent.is(kind::block) ? parent : n;
  if (shown.is(kind::keyword_argument)) shown = shown.parent();
  if (shown.is(kind::argument_list)) shown = shown.parent();
  return shown;
}

bool numeric_literal(ir::Node e) {
  e = ir::unparenthesize(e);
  if (e.is(kind::unary_operator)) e = ir::unparenthesize(e.field(field::argument));
  return e.is(kind::integer) || e.is(kind::float_);
}

// A module of the user's own class: `self.<attr>`, which `__init__` assigns `Cls(...)` once, where
// `Cls` is a name of this module's own scope, bound once (a class definition or an import), to a
// class of the analysed files that defines `forward` itself. The runtime check names `Cls` from the
// method, so the method must see the same binding.
struct UserModule {
  analysis::ClassRef cls;
  std::string name;
};

std::optional<UserModule> user_module_class(const analysis::FileContext& ctx, const ir::Function& fn,
                                            ir::Node callee) {
  const ir::Module& m = ctx.module;
  ir::Node value = analysis::sole_init_value(m, fn, callee);
  if (!value.is(kind::call)) return std::nullopt;
  ir::Node ctor = ir::unparenthesize(value.field(field::function));
  if (!ctor.is(kind::identifier)) return std::nullopt;
  const int symbol = m.lookup_at(ctor);
  if (symbol < 0 || m.lookup(fn.scope, m.text(ctor)) != symbol) return std::nullopt;
  const ir::Symbol& sym = m.symbols[static_cast<size_t>(symbol)];
  if (m.scopes[static_cast<size_t>(sym.scope)].kind != ir::ScopeKind::Module || sym.bindings.size() != 1) {
    return std::nullopt;
  }
  const ir::BindingKind bound = m.bindings[static_cast<size_t>(sym.bindings[0])].kind;
  if (bound != ir::BindingKind::ClassDef && bound != ir::BindingKind::Import) return std::nullopt;
  const auto cls = ctx.project.class_of_expr(m, ctor);
  if (!cls) return std::nullopt;
  // `def forward` in the class body, and nothing else there binding the name.
  const ir::Module& cm = *cls->module;
  cm.ensure_built();
  const ir::Class& k = cm.classes[static_cast<size_t>(cls->klass)];
  const ir::Scope& body = cm.scopes[static_cast<size_t>(k.scope)];
  const auto forward = body.symbols.find("forward");
  if (!k.methods.contains("forward") || forward == body.symbols.end() ||
      cm.symbols[static_cast<size_t>(forward->second)].bindings.size() != 1) {
    return std::nullopt;
  }
  return UserModule{*cls, std::string(m.text(ctor))};
}

// What a proof carries beyond the type oracle: how many more user modules it may follow (shared
// by every frame it enters), and, in the forward of one it follows, which parameters that call
// passes a tensor (by the caller's types: `forward(self, x)` need not annotate `x`).
struct Follow {
  int* user_modules_left;
  std::vector<bool> tensor_params;  // by index into the function's params
};

std::optional<std::string> forward_not_new_storage(const analysis::FileContext& ctx, const Follow& follow,
                                                   ir::Node call, const UserModule& user, int depth);

// True when `o` names a parameter of `fn` that no assignment has replaced where `o` reads it, and
// the call being followed passes that parameter a tensor.
bool passed_tensor(const ir::Module& m, const ir::Function& fn, ir::Node o, const Follow& follow) {
  if (follow.tensor_params.empty() || !o.is(kind::identifier)) return false;
  const auto reaching = m.ordered_reaching_bindings(o);
  if (!reaching || reaching->empty()) return false;
  for (int b : *reaching) {
    if (m.bindings[static_cast<size_t>(b)].kind != ir::BindingKind::Parameter) return false;
  }
  for (size_t i = 0; i < fn.params.size() && i < follow.tensor_params.size(); ++i) {
    if (fn.params[i].name == m.text(o)) return follow.tensor_params[i];
  }
  return false;
}

// Why `e` may not evaluate to new storage, or nullopt when it does (with the modules that proof
// needs checked at trace time added to `checks`).
std::optional<std::string> not_new_storage(const analysis::FileContext& ctx, const ir::Function& fn, ir::Node e,
                                           std::vector<ModuleCheck>& checks, int depth, const Follow& follow) {
  const ir::Module& m = ctx.module;
  e = ir::unparenthesize(e);
  if (depth > kMaxDepth) return fmt::format("`{}` nests too deeply to follow", snippet(m, e));
  // An operand of a tensor operator: a number, a tensor, or new storage itself.
  auto operand = [&](ir::Node o) -> std::optional<std::string> {
    o = ir::unparenthesize(o);
    if (numeric_literal(o) || ctx.types.type_of(m, o).kind == analysis::ValueKind::Tensor ||
        passed_tensor(m, fn, o, follow)) {
      return std::nullopt;
    }
    if (!not_new_storage(ctx, fn, o, checks, depth + 1, follow)) return std::nullopt;
    return fmt::format("`{}` is not known to be a tensor", snippet(m, o));
  };
  if (e.is(kind::binary_operator)) {
    // Tensor arithmetic, bitwise and matrix operators always allocate their result.
    for (ir::Node side : {e.field(field::left), e.field(field::right)}) {
      if (auto why = operand(side)) return why;
    }
    return std::nullopt;
  }
  if (e.is(kind::unary_operator)) {
    // `+t` is torch.positive, which returns `t` itself.
    if (m.text(e.field(field::operator_)) == "+") return fmt::format("`{}` returns its operand itself", snippet(m, e));
    return operand(e.field(field::argument));
  }
  if (e.is(kind::call)) {
    ir::Node callee = ir::unparenthesize(e.field(field::function));
    if (has_keyword(m, e, "out")) return fmt::format("`{}` returns its `out=` tensor", snippet(m, e));
    const auto q = m.qualified_name(callee);
    if (q && api::has(api::Space::Global, *q, api::Fact::Allocates)) return std::nullopt;
    if (callee.is(kind::attribute) &&
        api::has(api::Space::TensorMethod, m.text(callee.field(field::attribute)), api::Fact::Allocates) &&
        ctx.types.type_of(m, callee.field(field::object)).kind == analysis::ValueKind::Tensor) {
      return std::nullopt;
    }
    if (auto cls = analysis::allocating_module_class(m, fn, callee)) {
      add_check(checks, {std::string(m.text(callee)), *cls});
      return std::nullopt;
    }
    if (auto user = user_module_class(ctx, fn, callee)) {
      if (*follow.user_modules_left <= 0) {
        return fmt::format("`{}` is one module call too many to follow", snippet(m, callee));
      }
      --*follow.user_modules_left;
      if (auto why = forward_not_new_storage(ctx, follow, e, *user, depth + 1)) return why;
      add_check(checks, {std::string(m.text(callee)), user->name, true});
      return std::nullopt;
    }
    return fmt::format("`{}` is not known to return a new tensor", snippet(m, callee));
  }
  return fmt::format("`{}` is not known to be a new tensor", snippet(m, e));
}

// True when this occurrence of a name only reads its tensor: whatever it is passed to keeps no
// reference to it and returns none.
bool only_read(const analysis::FileContext& ctx, const ir::Function& fn, ir::Node id, std::vector<ModuleCheck>& checks) {
  const ir::Module& m = ctx.module;
  ir::Node n = id;
  ir::Node p = n.parent();
  while (p && p.is(kind::parenthesized_expression)) {
    n = p;
    p = p.parent();
  }
  if (!p) return false;
  auto pure_call = [&](ir::Node call, std::optional<std::string> q) {
    if (has_keyword(m, call, "out") || has_keyword(m, call, "inplace")) return false;
    return q && analysis::is_pure_torch_function(*q) && !api::torch_function_may_alias(*q);
  };
  if (p.is(kind::attribute)) {
    if (!(p.field(field::object) == n)) return false;
    const std::string_view attr = m.text(p.field(field::attribute));
    ir::Node call = p.parent();
    if (call && call.is(kind::call) && call.field(field::function) == p) {
      return analysis::is_pure_tensor_method(attr) && !api::has(api::Space::TensorMethod, attr, api::Fact::MayAlias) &&
             !has_keyword(m, call, "out");
    }
    return api::has(api::Space::TensorAttribute, attr, api::Fact::Static);
  }
  if (p.is(kind::comparison_operator) || p.is(kind::not_operator)) return true;
  if (p.is(kind::binary_operator)) {
    // The other operand's reflected operator could keep it, unless that operand is a number or
    // a tensor (whose operator is torch's).
    ir::Node other = p.field(field::left) == n ? p.field(field::right) : p.field(field::left);
    return numeric_literal(other) || ctx.types.type_of(m, other).kind == analysis::ValueKind::Tensor;
  }
  if (p.is(kind::unary_operator)) return m.text(p.field(field::operator_)) != "+";
  if (p.is(kind::keyword_argument)) {
    if (!(p.field(field::value) == n) || m.text(p.field(field::name)) == "out") return false;
    n = p;
    p = p.parent();
  }
  if (p.is(kind::argument_list)) {
    ir::Node call = p.parent();
    if (!call || !call.is(kind::call)) return false;
    if (pure_call(call, m.qualified_name(call.field(field::function)))) return true;
    // An allocating module (checked at trace time) reads its input and keeps nothing.
    if (auto cls = analysis::allocating_module_class(m, fn, call.field(field::function))) {
      add_check(checks, {std::string(m.text(ir::unparenthesize(call.field(field::function)))), *cls});
      return true;
    }
  }
  return false;
}

// The proof of prove_kept_value_unobservable, anchored at `if_statement`, or at a `return` of the
// name itself (a user module's forward: the object then leaves the frame by that one reference).
// `kept` begins each reason.
std::variant<KeptValueProof, std::string> prove_held_only_by_name(const analysis::FileContext& ctx,
                                                                  const ir::Function& fn, bool inspects_frame,
                                                                  ir::Node if_statement, std::string_view name,
                                                                  const std::string& kept, ir::Node* kept_value,
                                                                  int depth, const Follow& follow) {
  const ir::Module& m = ctx.module;
  if (kept_value) *kept_value = ir::Node{};
  // `return name`: that occurrence hands the object to the caller and is the only one it keeps.
  const ir::Node returned = if_statement.is(kind::return_statement) && if_statement.named_child_count() == 1
                                ? ir::unparenthesize(if_statement.named_child(0))
                                : ir::Node{};
  // 1. The definition of `name` that reaches the `if`: the last `name = value` among the statements
  // that dominate it (earlier statements of its block, then of each enclosing `if` block).
  ir::Node definition;
  int statements_back = 0;
  for (ir::Node stmt = if_statement; stmt && !definition;) {
    for (ir::Node s = stmt.prev_named_sibling(); s; s = s.prev_named_sibling()) {
      if (++statements_back > kMaxStatementsBack) {
        return fmt::format("{}, assigned too far before the `if` to analyse", kept);
      }
      if (binds_otherwise(m, s, name)) {
        return fmt::format("{}, which `{}` binds (only a `{} = value` definition is traced)", kept, snippet(m, s), name);
      }
      if (!s.is(kind::expression_statement) || s.named_child_count() != 1) continue;
      ir::Node a = s.named_child(0);
      if (a.is(kind::assignment) && a.field(field::left).is(kind::identifier) && m.text(a.field(field::left)) == name) {
        definition = a;
        break;
      }
    }
    if (definition) break;
    ir::Node block = stmt.parent();
    ir::Node owner = block ? block.parent() : ir::Node{};
    if (!owner || owner.is(kind::function_definition)) {
      for (const ir::Parameter& p : fn.params) {
        if (p.name == name) return fmt::format("{}, the caller's argument", kept);
      }
      return fmt::format("{}, not assigned a value in this function before the `if`", kept);
    }
    if (owner.is(kind::else_clause) || owner.is(kind::elif_clause)) owner = owner.parent();
    if (owner.is(kind::for_statement) || owner.is(kind::while_statement)) {
      return fmt::format("{}, assigned before the loop or by an earlier iteration (only a definition earlier in the "
                         "same iteration is traced)",
                         kept);
    }
    if (!owner.is(kind::if_statement)) return fmt::format("{}, assigned outside the `if`'s enclosing blocks", kept);
    stmt = owner;
  }
  ir::Node value = definition.field(field::right);
  if (kept_value) *kept_value = value;
  if (!value || value.is(kind::assignment) || definition.field(field::type)) {
    return fmt::format("{}, which `{}` binds to other names too", kept, snippet(m, definition));
  }
  // 2. That value is new storage, made here.
  KeptValueProof proof;
  if (auto why = not_new_storage(ctx, fn, value, proof.modules, depth, follow)) {
    return fmt::format("{} ({})", kept, *why);
  }
  // 3. Nothing held it but the name: every occurrence of the name from its definition to the end
  // of the `if` reads it (a branch may rebind it), and nothing reaches the frame's locals.
  if (inspects_frame) return fmt::format("{}; the function inspects its own frame", kept);
  const uint32_t from = definition.end();
  std::optional<std::string> escape;
  // The nodes from the definition to the end of the `if`, in source order (the tree is one
  // pre-order array): nested functions and lambdas included, as a closure that reads the name
  // keeps the object.
  const auto& nodes = if_statement.tree_data()->nodes;
  const uint32_t last = nodes[if_statement.index()].subtree_end;
  if (last - definition.index() > static_cast<uint32_t>(kMaxNodesScanned)) {
    return fmt::format("{}, assigned too far before the `if` to analyse", kept);
  }
  for (uint32_t i = definition.index(); i < last && !escape; ++i) {
    const ir::Node n(if_statement.tree_data(), i);
    if (n.end() <= from || !n.is(kind::identifier) || m.text(n) != name || n == returned) continue;
    ir::Node parent = n.parent();
    const bool rebinding = parent && parent.is(kind::assignment) && parent.field(field::left) == n &&
                           parent.start() > if_statement.start();
    if (rebinding || only_read(ctx, fn, n, proof.modules)) continue;
    const bool binding = parent && parent.is(kind::assignment) && parent.field(field::left) == n;
    if (binding && parent.parent().is(kind::expression_statement) && !parent.field(field::type) &&
        !parent.field(field::right).is(kind::assignment) &&
        !not_new_storage(ctx, fn, parent.field(field::right), proof.modules, depth, follow)) {
      continue;  // another definition on some path, new storage too
    }
    if (binding) {
      escape = fmt::format("{}, which `{}` may rebind before the `if`", kept, snippet(m, parent));
    } else {
      escape = fmt::format("{}, and `{}` may keep a reference to it", kept, snippet(m, shown_use(n)));
    }
  }
  if (escape) return *escape;
  // 4. A module the runtime checks is read again at the selection: nothing in between may
  // change what the attribute holds.
  // Calls of the checked modules themselves have no effect (that is what the check proves).
  if (!proof.modules.empty()) {
    sort_checks(proof.modules);
    auto checked = [&](const analysis::Effect& e) {
      if (e.kind != analysis::EffectKind::UnknownCall || !e.node.is(kind::call)) return false;
      const std::string_view callee = m.text(ir::unparenthesize(e.node.field(field::function)));
      return std::any_of(proof.modules.begin(), proof.modules.end(), [&](const ModuleCheck& c) { return c.module == callee; });
    };
    for (ir::Node s = definition.parent().next_named_sibling(); s && s.start() < if_statement.start();
         s = s.next_named_sibling()) {
      for (const analysis::Effect& e : analysis::effects_of(m, ctx.types, s)) {
        if (!checked(e)) {
          return fmt::format("{}; `{}` runs between the call that made it and the `if`", kept, snippet(m, s));
        }
      }
    }
  }
  return proof;
}

// Why a call of a module of the user's class, running that class's own `forward` (the runtime
// check sees to that), may not return new storage that nothing else holds; nullopt when every
// `return` of forward returns such storage: an allocating expression, or a name defined by one that
// only ever read it. A reason names what forward returns.
std::optional<std::string> forward_not_new_storage(const analysis::FileContext& ctx, const Follow& follow,
                                                   ir::Node call, const UserModule& user, int depth) {
  const ir::Module& cm = *user.cls.module;
  cm.ensure_built();
  const ir::Class& cls = cm.classes[static_cast<size_t>(user.cls.klass)];
  const int forward_index = cls.methods.at("forward");
  const ir::Function& forward = cm.functions[static_cast<size_t>(forward_index)];
  const std::string owner = fmt::format("`{}.forward`", cls.name);
  if (depth > kMaxDepth) return fmt::format("{} nests too deeply to follow", owner);
  if (!forward.decorators.empty()) return fmt::format("{} is decorated", owner);
  if (forward.node.child(0).is(kind::async)) return fmt::format("{} is a coroutine", owner);
  const analysis::FileContext callee{cm, ctx.project, ctx.regions, ctx.types, ctx.options};
  // The caller's `ctx.module` function holding `call` is the one `follow` describes.
  Follow inner_follow{follow.user_modules_left, std::vector<bool>(forward.params.size(), false)};
  const int caller_fn = ctx.module.function_of(call);
  analysis::for_each_argument(ctx.project, ctx.module, call, analysis::FunctionRef{&cm, forward_index}, true, [&](int p, ir::Node arg) {
    arg = ir::unparenthesize(arg);
    const bool tensor = ctx.types.type_of(ctx.module, arg).kind == analysis::ValueKind::Tensor ||
                        (caller_fn >= 0 && passed_tensor(ctx.module, ctx.module.functions[static_cast<size_t>(caller_fn)],
                                                         arg, follow));
    if (p >= 0 && static_cast<size_t>(p) < inner_follow.tensor_params.size()) inner_follow.tensor_params[static_cast<size_t>(p)] = tensor;
  });
  std::vector<ir::Node> returns;
  bool yields = false;
  bool inspects_frame = false;
  int nodes = 0;
  analysis::walk_body(forward, [&](ir::Node n) {
    ++nodes;
    if (n.is(kind::yield)) {
      yields = true;
    } else if (n.is(kind::return_statement)) {
      returns.push_back(n);
    } else if (n.is(kind::call) && !inspects_frame) {
      const auto q = cm.qualified_name(n.field(field::function));
      inspects_frame = q && reads_frame(*q);
    }
    return nodes <= kMaxNodesScanned;
  });
  if (nodes > kMaxNodesScanned) return fmt::format("{} is too long to follow", owner);
  if (yields) return fmt::format("{} is a generator", owner);
  if (returns.empty()) return fmt::format("{} returns None", owner);
  for (ir::Node r : returns) {
    if (r.named_child_count() != 1) return fmt::format("{} has `{}`", owner, snippet(cm, r));
    ir::Node value = ir::unparenthesize(r.named_child(0));
    std::vector<ModuleCheck> inner;
    if (value.is(kind::identifier)) {
      const std::string kept = fmt::format("{} returns `{}`", owner, cm.text(value));
      auto proof = prove_held_only_by_name(callee, forward, inspects_frame, r, cm.text(value), kept, nullptr, depth,
                                           inner_follow);
      if (auto* why = std::get_if<std::string>(&proof)) return *why;
      inner = std::get<KeptValueProof>(proof).modules;
    } else if (auto why = not_new_storage(callee, forward, value, inner, depth, inner_follow)) {
      return fmt::format("{} returns `{}` ({})", owner, snippet(cm, value), *why);
    }
    // A check of forward's own submodules would run in the caller, after forward; not attempted.
    if (!inner.empty()) {
      return fmt::format("{} returns `{}`, which relies on checking `{}`", owner, snippet(cm, value), inner[0].module);
    }
  }
  return std::nullopt;
}

// only_read, for an object others may hold too: an identity or membership test (`is`, `in`)
// compares it with their references, so it tells the kept object from the selection.
bool read_by_value(const analysis::FileContext& ctx, const ir::Function& fn, ir::Node id,
                   std::vector<ModuleCheck>& checks) {
  ir::Node p = id.parent();
  while (p && p.is(kind::parenthesized_expression)) p = p.parent();
  if (p && p.is(kind::comparison_operator)) {
    for (ir::Node op : p.children()) {
      if (op.is_named()) continue;
      const std::string_view t = ctx.module.text(op);
      if (t.starts_with("is") || t == "in" || t.starts_with("not")) return false;
    }
  }
  return only_read(ctx, fn, id, checks);
}

// The other way to an unobservable kept object (rules/GM101.md, "Kept values", 3): whatever the
// object is (the caller's argument too), after the `if` the name is only read by what keeps no
// reference to it (rebinding it ends nothing: later reads are checked all the same), nothing
// else there runs that could write into the object through another reference or observe it (no
// call but of a pure function or a checked allocating module, no store, no I/O), and no nested
// function or frame inspection can reach the name. The `if` sits in `if` blocks only, so the
// statements after it, in order, are the rest of each enclosing block.
std::optional<std::string> not_only_read_after(const analysis::FileContext& ctx, const ir::Function& fn,
                                               bool inspects_frame, ir::Node if_statement, std::string_view name,
                                               std::vector<ModuleCheck>& checks) {
  const ir::Module& m = ctx.module;
  if (inspects_frame) return "the function inspects its own frame";
  std::vector<ir::Node> after;  // the statements that may run after the `if`, in order
  for (ir::Node stmt = if_statement;;) {
    for (ir::Node s = stmt.next_named_sibling(); s; s = s.next_named_sibling()) {
      if (s.is(kind::comment)) continue;
      if (after.size() >= static_cast<size_t>(kMaxStatementsBack)) return "too much code follows to analyse it";
      after.push_back(s);
    }
    ir::Node owner = stmt.parent() ? stmt.parent().parent() : ir::Node{};
    if (!owner || owner == fn.node) break;
    if (owner.is(kind::else_clause) || owner.is(kind::elif_clause)) owner = owner.parent();
    if (owner.is(kind::for_statement) || owner.is(kind::while_statement)) {
      return "the loop runs again";
    }
    if (!owner.is(kind::if_statement)) {
      const std::string_view text = m.text(owner);
      return fmt::format("it is inside a `{}` block", text.substr(0, text.find_first_of(" :(")));
    }
    stmt = owner;
  }
  // Every occurrence of the name after the `if`, nested functions included.
  const auto& nodes = if_statement.tree_data()->nodes;
  const uint32_t first = nodes[if_statement.index()].subtree_end;
  const uint32_t last = nodes[fn.node.index()].subtree_end;
  if (last - first > static_cast<uint32_t>(kMaxNodesScanned)) return "too much code follows to analyse it";
  for (uint32_t i = first; i < last; ++i) {
    const ir::Node n(if_statement.tree_data(), i);
    if (!n.is(kind::identifier) || m.text(n) != name) continue;
    if (m.scope_of(n) != fn.scope) return fmt::format("a nested scope reads `{}`", name);
    ir::Node parent = n.parent();
    if (parent && parent.is(kind::assignment) && parent.field(field::left) == n) continue;  // a rebinding
    if (read_by_value(ctx, fn, n, checks)) continue;
    ir::Node shown = shown_use(n);
    if (shown.is(kind::expression_list)) shown = shown.parent();  // `return a, b`: the statement
    return fmt::format("`{}` may keep, hand on or compare `{}`", snippet(m, shown), name);
  }
  for (ir::Node s : after) {
    for (const analysis::Effect& e : analysis::effects_of(m, ctx.types, s)) {
      // A raise or return ends the frame; `yield` and `await` let other code run and come back.
      if (e.kind == analysis::EffectKind::MayRaise) continue;
      if (e.kind == analysis::EffectKind::ControlTransfer && !e.node.is(kind::yield) && !e.node.is(kind::await)) {
        continue;
      }
      if (e.kind == analysis::EffectKind::UnknownCall && e.node.is(kind::call)) {
        ir::Node callee = ir::unparenthesize(e.node.field(field::function));
        if (auto cls = analysis::allocating_module_class(m, fn, callee)) {
          add_check(checks, {std::string(m.text(callee)), *cls});
          continue;
        }
      }
      return fmt::format("`{}` runs", snippet(m, s));
    }
  }
  return std::nullopt;
}

}  // namespace

std::string module_check_call(const ModuleCheck& check) {
  return check.user_class ? fmt::format("_graphmend.user_module({}, {})", check.module, check.cls)
                          : fmt::format("_graphmend.allocating_module({}, \"{}\")", check.module, check.cls);
}

std::variant<KeptValueProof, Unsafe> prove_kept_value_unobservable(const analysis::FileContext& ctx,
                                                                    const ir::Function& fn, bool inspects_frame,
                                                                    ir::Node if_statement, std::string_view name,
                                                                    ir::Node* kept_value) {
  // The reasons follow the name in the kept-object-replaced sentence.
  int user_modules_left = kMaxUserModules;
  auto proof = prove_held_only_by_name(ctx, fn, inspects_frame, if_statement, name, "", kept_value, 0,
                                       Follow{&user_modules_left, {}});
  if (auto* held_only = std::get_if<KeptValueProof>(&proof)) return *held_only;
  // Whatever the kept object is, nothing after the `if` may tell it from the selection.
  KeptValueProof after;
  const auto why_not = not_only_read_after(ctx, fn, inspects_frame, if_statement, name, after.modules);
  if (!why_not) {
    sort_checks(after.modules);
    return after;
  }
  const std::string& why = std::get<std::string>(proof);
  if (inspects_frame) return unsafe<UnsafeCode::KeptObjectReplaced>(name, why);  // said once
  return unsafe<UnsafeCode::KeptObjectReplaced>(name, fmt::format("{}; after the `if`, {}", why, *why_not));
}

}  // namespace graphmend::rewrite
