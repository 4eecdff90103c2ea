#include "graphmend/ir/module.h"

#include <algorithm>
#include <functional>
#include <tuple>
#include <unordered_set>

#include "graphmend/ir/type_comments.h"
#include "graphmend/syntax/python_rules.h"

namespace graphmend::ir {

Node unparenthesize(Node n) {
  while (n.is(kind::parenthesized_expression) && n.named_child_count() == 1) n = n.named_child(0);
  return n;
}

std::optional<std::string_view> comparison_operator(const Module& m, Node comparison) {
  if (!comparison.is(kind::comparison_operator)) return std::nullopt;
  const std::vector<Node> ops = comparison.children_by_field(field::operators);
  if (ops.size() != 1) return std::nullopt;
  // The two-word operators are one token each, which may hold any spacing (`is  not`).
  if (ops[0].is(kind::is_not)) return "is not";
  if (ops[0].is(kind::not_in)) return "not in";
  return m.text(ops[0]);
}

Node dotted_root(Node n) {
  while (n.is(kind::attribute)) n = n.field(field::object);
  return n.is(kind::identifier) ? n : Node{};
}

std::vector<Node> children_without_comments(Node n) {
  std::vector<Node> out;
  for (Node c : n.named_children()) {
    if (!c.is(kind::comment)) out.push_back(c);
  }
  return out;
}

Node previous_statement(Node statement) {
  Node before = statement.prev_named_sibling();
  while (before && before.is(kind::comment)) before = before.prev_named_sibling();
  return before;
}

Node sole_expression(Node statement) {
  return statement.is(kind::expression_statement) && statement.named_child_count() == 1 ? statement.named_child(0)
                                                                                       : Node{};
}

namespace {

// How surely the import `statement` runs whenever the module does: 2 for a statement of the
// module itself, 1 under module-level `if`s that are not for type checkers only (`if
// is_torch_available():`, not `if TYPE_CHECKING:` or `if False:`), 0 otherwise (in a `try`, a
// `with`, a class or a function: `global torch`).
int import_runs(const Module& m, Node statement) {
  int sure = 2;
  for (Node at = statement ? statement.parent() : Node{}; at; at = at.parent()) {
    if (at.is(kind::module_)) return sure;
    if (at.is(kind::block) || at.is(kind::else_clause)) continue;
    if (!at.is(kind::if_statement) && !at.is(kind::elif_clause)) return 0;
    const std::string_view condition = m.text(at.field(field::condition));
    if (condition.ends_with("TYPE_CHECKING") || condition == "False" || condition == "0") return 0;
    sure = 1;
  }
  return 0;
}

}  // namespace

std::optional<std::string> torch_name_at(const Module& m, Node at) {
  // Names bound only by imports of torch that run, the surest first, then `torch`, then by name.
  std::vector<std::tuple<int, bool, std::string>> found;
  for (const auto& [name, sym] : m.scopes[0].symbols) {
    const ir::Symbol& symbol = m.symbols[static_cast<size_t>(sym)];
    int sure = symbol.bindings.empty() ? 0 : 2;
    for (int b : symbol.bindings) {
      const ir::Binding& binding = m.bindings[static_cast<size_t>(b)];
      const bool torch = binding.kind == ir::BindingKind::Import && binding.import_path == "torch";
      sure = std::min(sure, torch ? import_runs(m, binding.statement) : 0);
    }
    if (sure > 0 && m.lookup(m.scope_of(at), name) == sym) found.emplace_back(-sure, name != "torch", name);
  }
  if (found.empty()) return std::nullopt;
  return std::get<2>(*std::min_element(found.begin(), found.end()));
}

std::string snippet(const Module& m, Node n) {
  std::string s(m.text(n));
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::erase(s, '\r');
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

bool Module::is_package_init() const {
  return file_->path.filename() == "__init__.py";
}

// Builds scopes, symbols, bindings, functions and classes, then one CFG per function.
class Builder {
 public:
  explicit Builder(Module& m) : m_(m) {}

  void build() {
    const int module_scope = new_scope(ScopeKind::Module, m_.root(), -1);
    collect_declarations(m_.root(), module_scope);
    visit_block(m_.root(), module_scope);
  }

  // The CFG of function `fi` of a built module (Module::cfg builds each on first use).
  static void build_cfg(const Module& m, int fi, Cfg& cfg);

 private:
  Module& m_;
  // Each scope's names while the module is built; Module's constructor then fills Scope::symbols.
  std::vector<std::unordered_map<std::string, int>> names_;

  std::string_view text(Node n) const { return m_.text(n); }

  int new_scope(ScopeKind kind, Node node, int parent) {
    Scope s;
    s.kind = kind;
    s.node = node;
    s.parent = parent;
    m_.scopes.push_back(std::move(s));
    names_.emplace_back();
    const int id = static_cast<int>(m_.scopes.size() - 1);
    m_.scope_by_node_[node.id()] = id;
    return id;
  }

  int module_scope() const { return 0; }

  void set_import_path(int binding, std::string path) {
    m_.bindings[static_cast<size_t>(binding)].import_path = m_.import_paths_.emplace_back(std::move(path));
  }

  int symbol_in(int scope, std::string_view name) {
    auto& syms = names_[static_cast<size_t>(scope)];
    auto it = syms.find(std::string(name));
    if (it != syms.end()) return it->second;
    Symbol s;
    s.name = std::string(name);
    s.scope = scope;
    m_.symbols.push_back(std::move(s));
    const int id = static_cast<int>(m_.symbols.size() - 1);
    syms.emplace(std::string(name), id);
    return id;
  }

  // The symbol a binding of `name` in `scope` writes, honouring global/nonlocal.
  int target_symbol(int scope, std::string_view name) {
    int sym = symbol_in(scope, name);
    const Symbol& s = m_.symbols[static_cast<size_t>(sym)];
    if (s.declared_global) return symbol_in(module_scope(), name);
    if (s.declared_nonlocal) {
      for (int p = m_.scopes[static_cast<size_t>(scope)].parent; p >= 0;
           p = m_.scopes[static_cast<size_t>(p)].parent) {
        const auto& sc = m_.scopes[static_cast<size_t>(p)];
        if (sc.kind != ScopeKind::Function) continue;
        const auto& names = names_[static_cast<size_t>(p)];
        if (const auto it = names.find(std::string(name)); it != names.end()) return it->second;
      }
    }
    return sym;
  }

  int bind(int scope, BindingKind kind, Node target, Node statement, Node value = {},
           Node annotation = {}) {
    Binding b;
    b.kind = kind;
    b.target = target;
    b.statement = statement;
    b.value = value;
    b.annotation = annotation;
    b.symbol = target_symbol(scope, text(target));
    m_.bindings.push_back(std::move(b));
    return static_cast<int>(m_.bindings.size() - 1);
  }

  // global / nonlocal statements apply to the whole scope body, wherever they appear.
  void collect_declarations(Node body, int scope) {
    syntax::walk(body, [&](Node n) {
      if (n == body) return true;
      if (n.is(kind::function_definition) || n.is(kind::class_definition) || n.is(kind::lambda) ||
          is_comprehension(n)) {
        return false;
      }
      if (n.is(kind::global_statement) || n.is(kind::nonlocal_statement)) {
        for (Node id : n.named_children()) {
          if (!id.is(kind::identifier)) continue;
          int sym = symbol_in(scope, text(id));
          if (n.is(kind::global_statement)) {
            m_.symbols[static_cast<size_t>(sym)].declared_global = true;
          } else {
            m_.symbols[static_cast<size_t>(sym)].declared_nonlocal = true;
          }
        }
        return false;
      }
      return true;
    });
  }

  static bool is_comprehension(Node n) {
    return n.is(kind::list_comprehension) || n.is(kind::set_comprehension) ||
           n.is(kind::dictionary_comprehension) || n.is(kind::generator_expression);
  }

  void visit_block(Node block, int scope) {
    for (Node stmt : block.named_children()) visit_statement(stmt, scope);
  }

  void visit_with(Node stmt, int scope) {
    for (Node c : stmt.named_children()) {
      if (c.is(kind::with_clause)) {
        for (Node item : c.named_children()) {
          if (!item.is(kind::with_item)) continue;
          Node value = item.field(field::value);
          if (value.is(kind::as_pattern)) {
            visit_expr(value.named_child(0), scope);
            Node alias = value.field(field::alias);
            if (alias) {
              Node target = alias.is(kind::as_pattern_target) ? alias.named_child(0) : alias;
              bind_targets(target, scope, BindingKind::With, item, {});
            }
          } else {
            visit_expr(value, scope);
          }
        }
      }
    }
    visit_block(stmt.field(field::body), scope);
  }

  void visit_try(Node stmt, int scope) {
    for (Node c : stmt.named_children()) {
      if (c.is(kind::block)) {
        visit_block(c, scope);
      } else if (c.is(kind::except_clause) || c.is(kind::except_group_clause)) {
        for (Node e : c.named_children()) {
          if (e.is(kind::block)) {
            visit_block(e, scope);
          } else if (e.is(kind::as_pattern)) {
            visit_expr(e.named_child(0), scope);
            Node alias = e.field(field::alias);
            if (alias) {
              Node target = alias.is(kind::as_pattern_target) ? alias.named_child(0) : alias;
              if (target.is(kind::identifier)) bind(scope, BindingKind::Except, target, c);
            }
          } else {
            visit_expr(e, scope);
          }
        }
        if (Node alias = c.field(field::alias); alias && alias.is(kind::identifier)) {
          bind(scope, BindingKind::Except, alias, c);
        }
      } else if (c.is(kind::else_clause) || c.is(kind::finally_clause)) {
        for (Node b : c.named_children()) {
          if (b.is(kind::block)) visit_block(b, scope);
        }
      }
    }
  }

  void visit_match(Node stmt, int scope) {
    for (Node s : stmt.children_by_field(field::subject)) visit_expr(s, scope);
    Node body = stmt.field(field::body);
    for (Node clause : body.named_children()) {
      if (!clause.is(kind::case_clause)) continue;
      for (Node c : clause.named_children()) {
        if (c.is(kind::block)) {
          visit_block(c, scope);
        } else {
          // Capture patterns: a one-name dotted_name directly under a case or keyword pattern
          // (a class pattern's class name is under class_pattern), `as` aliases, and splats.
          syntax::walk(c, [&](Node n) {
            Node parent = n.parent();
            if (n.is(kind::identifier) && (parent.is(kind::as_pattern) || parent.is(kind::splat_pattern))) {
              if (text(n) != "_") bind(scope, BindingKind::MatchCapture, n, clause);
              return false;
            }
            if (n.is(kind::dotted_name) && n.named_child_count() == 1 &&
                (parent.is(kind::case_pattern) || parent.is(kind::keyword_pattern))) {
              Node id = n.named_child(0);
              if (text(id) != "_") bind(scope, BindingKind::MatchCapture, id, clause);
              return false;
            }
            return true;
          });
        }
      }
    }
  }

  void visit_delete(Node stmt, int scope) {
    for (Node c : stmt.named_children()) {
      std::vector<Node> targets{c};
      if (c.is(kind::expression_list)) targets = c.named_children();
      for (Node target : targets) {
        if (target.is(kind::identifier)) {
          bind(scope, BindingKind::Delete, target, stmt);
        } else {
          visit_expr(target, scope);
        }
      }
    }
  }

  void visit_statement(Node stmt, int scope) {
    if (stmt.is(kind::decorated_definition)) {
      Node def = stmt.field(field::definition);
      std::vector<Node> decorators;
      for (Node c : stmt.named_children()) {
        if (c.is(kind::decorator)) {
          Node expr = c.named_child(0);
          decorators.push_back(expr);
          visit_expr(expr, scope);
        }
      }
      if (def.is(kind::function_definition)) {
        visit_function(def, stmt, scope, std::move(decorators));
      } else if (def.is(kind::class_definition)) {
        visit_class(def, stmt, scope, std::move(decorators));
      }
      return;
    }
    if (stmt.is(kind::function_definition)) {
      visit_function(stmt, stmt, scope, {});
      return;
    }
    if (stmt.is(kind::class_definition)) {
      visit_class(stmt, stmt, scope, {});
      return;
    }
    if (stmt.is(kind::expression_statement)) {
      for (Node c : stmt.named_children()) {
        if (c.is(kind::assignment)) {
          visit_assignment(c, stmt, scope);
        } else if (c.is(kind::augmented_assignment)) {
          visit_expr(c.field(field::right), scope);
          Node left = c.field(field::left);
          if (left.is(kind::identifier)) {
            bind(scope, BindingKind::AugmentedAssignment, left, stmt, c.field(field::right));
          } else {
            visit_expr(left, scope);
          }
        } else {
          visit_expr(c, scope);
        }
      }
      return;
    }
    if (stmt.is(kind::import_statement) || stmt.is(kind::future_import_statement)) {
      visit_import(stmt, scope);
      return;
    }
    if (stmt.is(kind::import_from_statement)) {
      visit_import_from(stmt, scope);
      return;
    }
    if (stmt.is(kind::for_statement)) {
      visit_expr(stmt.field(field::right), scope);
      bind_targets(stmt.field(field::left), scope, BindingKind::For, stmt, {});
      visit_block(stmt.field(field::body), scope);
      if (Node alt = stmt.field(field::alternative)) visit_block(alt.field(field::body), scope);
      return;
    }
    if (stmt.is(kind::with_statement)) return visit_with(stmt, scope);
    if (stmt.is(kind::try_statement)) return visit_try(stmt, scope);
    if (stmt.is(kind::match_statement)) return visit_match(stmt, scope);
    if (stmt.is(kind::delete_statement)) return visit_delete(stmt, scope);
    if (stmt.is(kind::global_statement) || stmt.is(kind::nonlocal_statement)) return;
    // Compound statements with conditions and blocks; simple statements with expressions.
    for (Node c : stmt.named_children()) {
      if (c.is(kind::block)) {
        visit_block(c, scope);
      } else if (c.is(kind::elif_clause) || c.is(kind::else_clause) || c.is(kind::finally_clause)) {
        visit_statement(c, scope);
      } else {
        visit_expr(c, scope);
      }
    }
  }

  void visit_assignment(Node assign, Node stmt, int scope) {
    Node right = assign.field(field::right);
    Node type = assign.field(field::type);
    if (right) visit_expr(right, scope);
    // Chained assignment: a = b = value nests assignments in `right`.
    Node value = right;
    while (value && value.is(kind::assignment)) value = value.field(field::right);
    Node left = assign.field(field::left);
    if (type && !right) {
      if (left.is(kind::identifier)) bind(scope, BindingKind::AnnotatedAssignment, left, stmt, {}, type);
      return;
    }
    if (right && right.is(kind::assignment)) {
      // a = b = v: bind `a`; the nested assignment binds `b` via its own visit.
      bind_targets(left, scope, BindingKind::Assignment, stmt, value);
      visit_assignment(right, stmt, scope);
      return;
    }
    bind_targets(left, scope, type ? BindingKind::AnnotatedAssignment : BindingKind::Assignment,
                 stmt, value, type);
  }

  void bind_targets(Node target, int scope, BindingKind kind, Node stmt, Node value,
                    Node annotation = {}) {
    target = unparenthesize(target);
    if (target.is(kind::identifier)) {
      bind(scope, kind, target, stmt, value, annotation);
      return;
    }
    if (target.is(kind::pattern_list) || target.is(kind::tuple_pattern) || target.is(kind::list_pattern) ||
        target.is(kind::tuple) || target.is(kind::list) || target.is(kind::expression_list)) {
      for (Node c : target.named_children()) bind_targets(c, scope, kind, stmt, {});
      return;
    }
    if (target.is(kind::list_splat_pattern) || target.is(kind::list_splat)) {
      bind_targets(target.named_child(0), scope, kind, stmt, {});
      return;
    }
    // attribute / subscript targets are stores, not bindings; their sub-expressions are uses.
    visit_expr(target, scope);
  }

  void visit_import(Node stmt, int scope) {
    for (Node c : stmt.children_by_field(field::name)) {
      if (c.is(kind::dotted_name)) {
        std::string full(text(c));
        std::string first = full.substr(0, full.find('.'));
        int b = bind(scope, BindingKind::Import, c.named_child(0), stmt);
        set_import_path(b, std::move(first));
      } else if (c.is(kind::aliased_import)) {
        Node alias = c.field(field::alias);
        int b = bind(scope, BindingKind::Import, alias, stmt);
        set_import_path(b, std::string(text(c.field(field::name))));
      }
    }
  }

  std::string resolve_from_module(Node module_name) {
    if (!module_name.is(kind::relative_import)) return std::string(text(module_name));
    size_t dots = 0;
    std::string rest;
    for (Node c : module_name.children()) {
      if (c.is(kind::import_prefix)) dots = text(c).size();
      if (c.is(kind::dotted_name)) rest = std::string(text(c));
    }
    std::string base = m_.module_name();
    // In a package's __init__, one dot means the package itself.
    size_t drop = m_.is_package_init() ? dots - 1 : dots;
    for (size_t i = 0; i < drop; ++i) {
      auto pos = base.rfind('.');
      base = pos == std::string::npos ? std::string() : base.substr(0, pos);
    }
    if (rest.empty()) return base;
    return base.empty() ? rest : base + "." + rest;
  }

  void visit_import_from(Node stmt, int scope) {
    const std::string from = resolve_from_module(stmt.field(field::module_name));
    for (Node c : stmt.children_by_field(field::name)) {
      Node name = c, alias = c;
      if (c.is(kind::aliased_import)) {
        name = c.field(field::name);
        alias = c.field(field::alias);
      }
      if (alias.is(kind::dotted_name)) alias = alias.named_child(0);
      int b = bind(scope, BindingKind::Import, alias, stmt);
      set_import_path(b, from.empty() ? std::string(text(name)) : from + "." + std::string(text(name)));
    }
  }

  // Visits an expression for bindings it makes (walrus) and scopes it opens.
  void visit_expr(Node expr, int scope) {
    if (!expr) return;
    syntax::walk(expr, [&](Node n) {
      if (n.is(kind::lambda)) {
        const int s = new_scope(ScopeKind::Lambda, n, scope);
        if (Node params = n.field(field::parameters)) {
          for (Node p : params.named_children()) {
            if (Node id = param_identifier(p)) bind(s, BindingKind::Parameter, id, p);
            if (Node def = p.field(field::value)) visit_expr(def, scope);
          }
        }
        visit_expr(n.field(field::body), s);
        return false;
      }
      if (is_comprehension(n)) {
        visit_comprehension(n, scope);
        return false;
      }
      if (n.is(kind::named_expression)) {
        visit_expr(n.field(field::value), scope);
        // A walrus inside a comprehension binds in the enclosing non-comprehension scope.
        int s = scope;
        while (m_.scopes[static_cast<size_t>(s)].kind == ScopeKind::Comprehension) {
          s = m_.scopes[static_cast<size_t>(s)].parent;
        }
        Node stmt = n;
        while (stmt.parent() && !stmt.parent().is(kind::block) && !stmt.parent().is(kind::module_)) {
          stmt = stmt.parent();
        }
        bind(s, BindingKind::Walrus, n.field(field::name), stmt, n.field(field::value));
        return false;
      }
      return true;
    });
  }

  void visit_comprehension(Node comp, int scope) {
    const int s = new_scope(ScopeKind::Comprehension, comp, scope);
    bool first = true;
    for (Node c : comp.named_children()) {
      if (c.is(kind::for_in_clause)) {
        // The first iterable is evaluated in the enclosing scope.
        visit_expr(c.field(field::right), first ? scope : s);
        bind_targets(c.field(field::left), s, BindingKind::ComprehensionTarget, c, {});
        first = false;
      }
    }
    for (Node c : comp.named_children()) {
      if (c.is(kind::for_in_clause)) continue;
      visit_expr(c, s);
    }
  }

  static Node param_identifier(Node p) {
    if (p.is(kind::identifier)) return p;
    if (p.is(kind::default_parameter) || p.is(kind::typed_default_parameter)) {
      Node name = p.field(field::name);
      return name.is(kind::identifier) ? name : Node();
    }
    if (p.is(kind::typed_parameter)) {
      for (Node c : p.named_children()) {
        if (c.is(kind::identifier)) return c;
        if (c.is(kind::list_splat_pattern) || c.is(kind::dictionary_splat_pattern)) return c.named_child(0);
      }
      return Node();
    }
    if (p.is(kind::list_splat_pattern) || p.is(kind::dictionary_splat_pattern)) {
      Node c = p.named_child(0);
      return c.is(kind::identifier) ? c : Node();
    }
    return Node();
  }

  int enclosing_function_of_scope(int scope) const {
    for (int s = scope; s >= 0; s = m_.scopes[static_cast<size_t>(s)].parent) {
      if (m_.scopes[static_cast<size_t>(s)].kind == ScopeKind::Function) {
        return m_.scopes[static_cast<size_t>(s)].function;
      }
    }
    return -1;
  }

  std::string qualname_prefix(int scope) const {
    const Scope& s = m_.scopes[static_cast<size_t>(scope)];
    if (s.kind == ScopeKind::Class) return m_.classes[static_cast<size_t>(s.klass)].qualname + ".";
    if (s.kind == ScopeKind::Function) {
      return m_.functions[static_cast<size_t>(s.function)].qualname + ".<locals>.";
    }
    return "";
  }

  void visit_function(Node def, Node outer, int scope, std::vector<Node> decorators) {
    Function f;
    f.node = def;
    f.outer = outer;
    f.name = std::string(text(def.field(field::name)));
    f.qualname = qualname_prefix(scope) + f.name;
    f.enclosing_function = enclosing_function_of_scope(scope);
    f.decorators = std::move(decorators);
    const Scope& parent = m_.scopes[static_cast<size_t>(scope)];
    if (parent.kind == ScopeKind::Class) f.klass = parent.klass;
    // Defaults and annotations are evaluated in the enclosing scope.
    Node params = def.field(field::parameters);
    for (Node p : params.named_children()) {
      if (Node v = p.field(field::value)) visit_expr(v, scope);
    }
    m_.functions.push_back(std::move(f));
    const int fi = static_cast<int>(m_.functions.size() - 1);
    const int b = bind(scope, BindingKind::FunctionDef, def.field(field::name), outer);
    m_.bindings[static_cast<size_t>(b)].function = fi;
    if (parent.kind == ScopeKind::Class) {
      m_.classes[static_cast<size_t>(parent.klass)].methods[m_.functions[static_cast<size_t>(fi)].name] = fi;
    }
    const int s = new_scope(ScopeKind::Function, def, scope);
    m_.scopes[static_cast<size_t>(s)].function = fi;
    m_.functions[static_cast<size_t>(fi)].scope = s;
    collect_declarations(def.field(field::body), s);
    bool keyword_only = false;
    for (Node p : params.named_children()) {
      Parameter param;
      param.node = p;
      if (p.is(kind::keyword_separator)) {
        keyword_only = true;
        continue;
      }
      if (p.is(kind::positional_separator)) continue;
      Node id = param_identifier(p);
      if (!id) continue;
      param.name = std::string(text(id));
      param.annotation = p.field(field::type);
      param.default_value = p.field(field::value);
      const bool var_args = p.is(kind::list_splat_pattern) ||
                            (p.is(kind::typed_parameter) && p.named_child(0).is(kind::list_splat_pattern));
      const bool var_kw = p.is(kind::dictionary_splat_pattern) ||
                          (p.is(kind::typed_parameter) && p.named_child(0).is(kind::dictionary_splat_pattern));
      param.kind = var_args ? Parameter::Kind::VarArgs
                   : var_kw ? Parameter::Kind::VarKeyword
                   : keyword_only ? Parameter::Kind::KeywordOnly
                                  : Parameter::Kind::Regular;
      if (var_args) keyword_only = true;
      bind(s, BindingKind::Parameter, id, p, {}, param.annotation);
      m_.functions[static_cast<size_t>(fi)].params.push_back(std::move(param));
    }
    attach_type_comments(m_.functions[static_cast<size_t>(fi)]);
    visit_block(def.field(field::body), s);
  }

  void attach_type_comments(Function& f) {
    if (f.params.empty()) return;
    std::vector<Node> nodes;
    for (const Parameter& p : f.params) nodes.push_back(p.node);
    bool is_method = f.klass >= 0;
    for (Node d : f.decorators) {
      if (text(d) == "staticmethod") is_method = false;
    }
    const auto types = parameter_type_comments(f.node, m_.text(), nodes, is_method);
    for (size_t i = 0; i < f.params.size(); ++i) f.params[i].type_comment = types[i];
  }

  void visit_class(Node def, Node outer, int scope, std::vector<Node> decorators) {
    Class c;
    c.node = def;
    c.outer = outer;
    c.name = std::string(text(def.field(field::name)));
    c.qualname = qualname_prefix(scope) + c.name;
    c.decorators = std::move(decorators);
    if (Node supers = def.field(field::superclasses)) {
      for (Node b : supers.named_children()) {
        visit_expr(b, scope);
        if (!b.is(kind::keyword_argument) && !b.is(kind::comment)) c.bases.push_back(b);
      }
    }
    m_.classes.push_back(std::move(c));
    const int ci = static_cast<int>(m_.classes.size() - 1);
    const int b = bind(scope, BindingKind::ClassDef, def.field(field::name), outer);
    m_.bindings[static_cast<size_t>(b)].klass = ci;
    const int s = new_scope(ScopeKind::Class, def, scope);
    m_.scopes[static_cast<size_t>(s)].klass = ci;
    m_.classes[static_cast<size_t>(ci)].scope = s;
    collect_declarations(def.field(field::body), s);
    visit_block(def.field(field::body), s);
  }

  // ---- CFG ----------------------------------------------------------------------------------

  struct LoopTargets {
    int header;
    std::vector<int>* breaks;
  };

  struct CfgBuilder {
    Cfg& cfg;
    std::vector<LoopTargets> loops;
    std::vector<std::vector<int>*> try_bodies;  // nodes created inside each active try body

    int add(CfgKind kind, Node n) {
      CfgNode node;
      node.kind = kind;
      node.node = n;
      cfg.nodes.push_back(std::move(node));
      const int id = static_cast<int>(cfg.nodes.size() - 1);
      if (n) cfg.map(n, id);
      for (auto* body : try_bodies) body->push_back(id);
      return id;
    }
    void edge(int a, int b) {
      auto& s = cfg.nodes[static_cast<size_t>(a)].succ;
      if (std::find(s.begin(), s.end(), b) != s.end()) return;
      s.push_back(b);
      cfg.nodes[static_cast<size_t>(b)].pred.push_back(a);
    }
    void connect(const std::vector<int>& preds, int to) {
      for (int p : preds) edge(p, to);
    }

    std::vector<int> block(Node block, std::vector<int> preds) {
      if (!block) return preds;
      for (Node stmt : block.named_children()) {
        if (stmt.is(kind::comment)) continue;
        preds = statement(stmt, std::move(preds));
      }
      return preds;
    }

    std::vector<int> statement(Node stmt, std::vector<int> preds) {
      if (stmt.is(kind::if_statement)) {
        int cond = add(CfgKind::Condition, stmt.field(field::condition));
        connect(preds, cond);
        std::vector<int> out = block(stmt.field(field::consequence), {cond});
        int last = cond;
        bool has_else = false;
        for (Node alt : stmt.children_by_field(field::alternative)) {
          if (alt.is(kind::elif_clause)) {
            int c = add(CfgKind::Condition, alt.field(field::condition));
            edge(last, c);
            auto r = block(alt.field(field::consequence), {c});
            out.insert(out.end(), r.begin(), r.end());
            last = c;
          } else if (alt.is(kind::else_clause)) {
            has_else = true;
            auto r = block(alt.field(field::body), {last});
            out.insert(out.end(), r.begin(), r.end());
          }
        }
        if (!has_else) out.push_back(last);
        return out;
      }
      if (stmt.is(kind::for_statement) || stmt.is(kind::while_statement)) {
        const bool is_for = stmt.is(kind::for_statement);
        int header = is_for ? add(CfgKind::LoopHeader, stmt.field(field::left))
                            : add(CfgKind::Condition, stmt.field(field::condition));
        if (is_for) cfg.map(stmt.field(field::right), header);
        connect(preds, header);
        std::vector<int> breaks;
        loops.push_back({header, &breaks});
        auto body_end = block(stmt.field(field::body), {header});
        loops.pop_back();
        connect(body_end, header);
        std::vector<int> out;
        if (Node alt = stmt.field(field::alternative)) {
          out = block(alt.field(field::body), {header});
        } else {
          out.push_back(header);
        }
        out.insert(out.end(), breaks.begin(), breaks.end());
        return out;
      }
      if (stmt.is(kind::try_statement)) {
        std::vector<int> body_nodes;
        try_bodies.push_back(&body_nodes);
        Node body = stmt.field(field::body);
        std::vector<int> entry_preds = preds;
        auto body_end = block(body, preds);
        try_bodies.pop_back();
        std::vector<int> out;
        std::vector<int> handler_ends;
        Node else_clause, finally_clause;
        for (Node c : stmt.named_children()) {
          if (c.is(kind::except_clause) || c.is(kind::except_group_clause)) {
            int h = add(CfgKind::Handler, c);
            connect(entry_preds, h);
            connect(body_nodes, h);
            Node hb;
            for (Node e : c.named_children()) {
              if (e.is(kind::block)) hb = e;
            }
            auto r = block(hb, {h});
            handler_ends.insert(handler_ends.end(), r.begin(), r.end());
          } else if (c.is(kind::else_clause)) {
            else_clause = c;
          } else if (c.is(kind::finally_clause)) {
            finally_clause = c;
          }
        }
        if (else_clause) body_end = block(else_clause.field(field::body), body_end);
        out = body_end;
        out.insert(out.end(), handler_ends.begin(), handler_ends.end());
        if (finally_clause) {
          Node fb;
          for (Node e : finally_clause.named_children()) {
            if (e.is(kind::block)) fb = e;
          }
          // Exceptions escaping the try also run the finally block.
          std::vector<int> fin_preds = out;
          fin_preds.insert(fin_preds.end(), body_nodes.begin(), body_nodes.end());
          auto fin_end = block(fb, fin_preds);
          for (int n : fin_end) edge(n, cfg.exit);
          return fin_end;
        }
        return out;
      }
      if (stmt.is(kind::with_statement)) {
        std::vector<int> cur = preds;
        for (Node c : stmt.named_children()) {
          if (!c.is(kind::with_clause)) continue;
          for (Node item : c.named_children()) {
            if (!item.is(kind::with_item)) continue;
            int w = add(CfgKind::WithItem, item);
            connect(cur, w);
            cur = {w};
          }
        }
        return block(stmt.field(field::body), cur);
      }
      if (stmt.is(kind::match_statement)) {
        std::vector<Node> subjects = stmt.children_by_field(field::subject);
        int subject = add(CfgKind::Condition, subjects.empty() ? Node() : subjects.front());
        for (Node s : subjects) cfg.map(s, subject);
        connect(preds, subject);
        int last = subject;
        std::vector<int> out;
        bool irrefutable = false;
        for (Node clause : stmt.field(field::body).named_children()) {
          if (!clause.is(kind::case_clause)) continue;
          int c = add(CfgKind::Condition, clause);
          edge(last, c);
          Node body;
          for (Node e : clause.named_children()) {
            if (e.is(kind::block)) body = e;
          }
          auto r = block(body, {c});
          out.insert(out.end(), r.begin(), r.end());
          last = c;
        }
        if (!irrefutable) out.push_back(last);
        return out;
      }
      if (stmt.is(kind::function_definition) || stmt.is(kind::class_definition) || stmt.is(kind::decorated_definition)) {
        int d = add(CfgKind::Definition, stmt);
        Node def = stmt.is(kind::decorated_definition) ? stmt.field(field::definition) : stmt;
        cfg.map(def, d);
        connect(preds, d);
        return {d};
      }
      int n = add(CfgKind::Statement, stmt);
      connect(preds, n);
      if (stmt.is(kind::return_statement) || stmt.is(kind::raise_statement)) {
        edge(n, cfg.exit);
        return {};
      }
      if (stmt.is(kind::break_statement)) {
        if (!loops.empty()) loops.back().breaks->push_back(n);
        return {};
      }
      if (stmt.is(kind::continue_statement)) {
        if (!loops.empty()) edge(n, loops.back().header);
        return {};
      }
      return {n};
    }
  };
};

void Builder::build_cfg(const Module& m, int fi, Cfg& cfg) {
  const Function& f = m.functions[static_cast<size_t>(fi)];
  CfgBuilder b{cfg, {}, {}};
  cfg.entry = b.add(CfgKind::Entry, Node());
  cfg.exit = b.add(CfgKind::Exit, Node());
  cfg.map(f.node.field(field::parameters), cfg.entry);
  auto end = b.block(f.node.field(field::body), {cfg.entry});
  b.connect(end, cfg.exit);
  cfg.index();
  // Attach bindings of this function's own locals to the CFG node that makes them.
  const int scope = f.scope;
  for (const auto& [name, sym] : m.scopes[static_cast<size_t>(scope)].symbols) {
    (void)name;
    for (int bi : m.symbols[static_cast<size_t>(sym)].bindings) {
      const Binding& binding = m.bindings[static_cast<size_t>(bi)];
      int at = binding.kind == BindingKind::Parameter ? cfg.entry
                                                      : cfg.node_containing(binding.target);
      if (binding.kind == BindingKind::FunctionDef || binding.kind == BindingKind::ClassDef) {
        at = cfg.node_containing(binding.statement);
      }
      if (at < 0) continue;
      cfg.nodes[static_cast<size_t>(at)].gen.push_back(bi);
    }
  }
  for (auto& node : cfg.nodes) std::sort(node.gen.begin(), node.gen.end());
  cfg.index_definitions(m);
}

SymbolTable::const_iterator SymbolTable::find(std::string_view name) const {
  const auto it = std::lower_bound(entries_.begin(), entries_.end(), name,
                                   [](const Entry& e, std::string_view n) { return e.first < n; });
  return it != entries_.end() && it->first == name ? it : entries_.end();
}

void SymbolTable::assign(std::vector<Entry> entries) {
  std::sort(entries.begin(), entries.end());
  entries_ = std::move(entries);
  entries_.shrink_to_fit();
}

Module::Module(const source::SourceFile& file, syntax::Tree tree, std::string module_name)
    : file_(&file), tree_(std::move(tree)), module_name_(std::move(module_name)) {
  build();
}

Module::Module(const source::SourceFile& file, std::string module_name, Deferred deferred)
    : file_(&file), module_name_(std::move(module_name)), deferred_(std::make_unique<DeferredState>()) {
  deferred_->how = std::move(deferred);
  mentions_torch_ = file.text.find("torch") != std::string::npos;
}

namespace {
// The module this thread is building: its own accessors, called while it is built and checked,
// must not wait for the build they are part of.
thread_local const Module* building = nullptr;
}  // namespace

void Module::ensure_built() const {
  if (!deferred_ || building == this) return;
  std::call_once(deferred_->once, [this] {
    const Module* const outer = building;
    building = this;
    struct Restore {
      const Module* outer;
      ~Restore() { building = outer; }
    } restore{outer};
    // Built at most once, by the first reader; the others wait here. The object was never
    // const: only this once-guarded step writes it.
    auto& self = const_cast<Module&>(*this);
    // An exception (the file's budget, memory) leaves no half-built module: the flag stays unset,
    // and the next reader builds it from the start.
    const auto work = [&] {
      std::variant<syntax::Tree, std::string> parsed = deferred_->how.parse(*file_);
      if (auto* reason = std::get_if<std::string>(&parsed)) {
        self.deferred_->failure = std::move(*reason);
        return;
      }
      self.tree_ = std::move(std::get<syntax::Tree>(parsed));
      self.build();
      if (std::optional<std::string> misfit = deferred_->how.accept(*this)) {
        self.deferred_->failure = std::move(*misfit);
        self.discard_build();
      }
    };
    try {
      if (deferred_->how.within) {
        deferred_->how.within(work);
      } else {
        work();
      }
      if (deferred_->failure) return;
    } catch (...) {
      self.discard_build();
      throw;
    }
    deferred_->built.store(true, std::memory_order_release);
  });
  if (deferred_->failure) {
    throw DeferredBuildFailed(file_->display_path + ": " + *deferred_->failure);
  }
}

void Module::discard_build() {
  scopes.clear();
  symbols.clear();
  bindings.clear();
  functions.clear();
  classes.clear();
  scope_by_node_.clear();
  symbol_bindings_.clear();
  import_paths_.clear();
  cfg_built_.reset();
  cfgs_.reset();
  generated_ = {};
  tree_.reset();
}

void Module::build() {
  mentions_torch_ = file_->text.find("torch") != std::string::npos;
  generated_ = source::scan_generated_markers(file_->text);
  if (!generated_.damage) {
    if (const auto at = syntax::generated_line_misplaced(tree_->root(), generated_)) {
      generated_.block.reset();
      generated_.damage = "one of its lines lies inside a string or other code, where graphmend did not write it";
      generated_.damage_at = *at;
    }
  }
  if (!generated_.damage) source::extend_over_helpers(file_->text, generated_, syntax::top_level_statements(tree_->root()));
  Builder(*this).build();
  index_scopes();
  // Every module is held to the end of the run; growth by doubling left a third of these
  // vectors' memory unused on average.
  scopes.shrink_to_fit();
  symbols.shrink_to_fit();
  bindings.shrink_to_fit();
  functions.shrink_to_fit();
  classes.shrink_to_fit();
  // Each symbol's bindings, in source order, as one run of a single array (one allocation a
  // module, not one a symbol).
  std::vector<size_t> next(symbols.size() + 1, 0);
  for (const Binding& b : bindings) ++next[static_cast<size_t>(b.symbol) + 1];
  for (size_t i = 1; i < next.size(); ++i) next[i] += next[i - 1];
  symbol_bindings_.resize(bindings.size());
  for (size_t i = 0; i < symbols.size(); ++i) {
    symbols[i].bindings = std::span<const int>(symbol_bindings_.data() + next[i], next[i + 1] - next[i]);
  }
  for (size_t bi = 0; bi < bindings.size(); ++bi) {
    symbol_bindings_[next[static_cast<size_t>(bindings[bi].symbol)]++] = static_cast<int>(bi);
  }
  // After the last move of `symbols`: the tables view the symbols' names.
  std::vector<std::vector<SymbolTable::Entry>> tables(scopes.size());
  for (size_t i = 0; i < symbols.size(); ++i) {
    tables[static_cast<size_t>(symbols[i].scope)].emplace_back(symbols[i].name, static_cast<int>(i));
  }
  for (size_t i = 0; i < scopes.size(); ++i) scopes[i].symbols.assign(std::move(tables[i]));
  for (Function& f : functions) f.params.shrink_to_fit();
  cfg_built_ = std::make_unique<std::once_flag[]>(functions.size());
  cfgs_ = std::make_unique<std::unique_ptr<Cfg>[]>(functions.size());
}

void Module::index_scopes() {
  for (size_t i = 0; i < scopes.size(); ++i) {
    Scope& sc = scopes[i];
    const Node n = sc.node;
    switch (sc.kind) {
      case ScopeKind::Module:
        sc.inner = n.range();
        break;
      case ScopeKind::Function: {
        // Parameters and body; the name and decorators belong to the enclosing scope.
        sc.inner = {n.field(field::parameters).start(), n.end()};
        for (Node p : n.field(field::parameters).named_children()) {
          if (Node v = p.field(field::value)) sc.holes.push_back(v.range());
        }
        break;
      }
      case ScopeKind::Class:
        sc.inner = n.field(field::body).range();
        break;
      case ScopeKind::Lambda:
        sc.inner = n.range();
        break;
      case ScopeKind::Comprehension:
        sc.inner = n.range();
        for (Node c : n.named_children()) {
          if (c.is(kind::for_in_clause)) {
            sc.holes.push_back(c.field(field::right).range());
            break;
          }
        }
        break;
    }
    if (sc.parent >= 0) scopes[static_cast<size_t>(sc.parent)].children.push_back(static_cast<int>(i));
  }
  for (Scope& sc : scopes) {
    std::sort(sc.children.begin(), sc.children.end(), [&](int a, int b) {
      return scopes[static_cast<size_t>(a)].inner.start < scopes[static_cast<size_t>(b)].inner.start;
    });
  }
}

int Module::scope_of(Node n) const {
  // Descend the scope tree by byte range: no parent walks (ts_node_parent is O(depth)).
  const source::TextRange r = n.range();
  int current = 0;
  for (;;) {
    const auto& kids = scopes[static_cast<size_t>(current)].children;
    auto it = std::upper_bound(kids.begin(), kids.end(), r.start, [&](uint32_t pos, int child) {
      return pos < scopes[static_cast<size_t>(child)].inner.start;
    });
    if (it == kids.begin()) return current;
    const Scope& candidate = scopes[static_cast<size_t>(*std::prev(it))];
    if (!candidate.inner.contains(r) || candidate.node == n) return current;
    bool in_hole = false;
    for (const auto& hole : candidate.holes) in_hole |= hole.contains(r);
    if (in_hole) return current;
    current = *std::prev(it);
  }
}

int Module::function_of(Node n) const {
  for (int s = scope_of(n); s >= 0; s = scopes[static_cast<size_t>(s)].parent) {
    if (scopes[static_cast<size_t>(s)].kind == ScopeKind::Function) {
      return scopes[static_cast<size_t>(s)].function;
    }
  }
  return -1;
}

int Module::lookup(int scope, std::string_view name) const {
  ensure_built();
  bool first = true;
  const std::string key(name);
  for (int s = scope; s >= 0; s = scopes[static_cast<size_t>(s)].parent, first = false) {
    const Scope& sc = scopes[static_cast<size_t>(s)];
    if (sc.kind == ScopeKind::Class && !first) continue;
    auto it = sc.symbols.find(key);
    if (it == sc.symbols.end()) continue;
    const Symbol& sym = symbols[static_cast<size_t>(it->second)];
    if (sym.declared_global) {
      auto g = scopes[0].symbols.find(key);
      return g == scopes[0].symbols.end() ? -1 : g->second;
    }
    if (sym.declared_nonlocal && sym.bindings.empty()) continue;
    if (sym.bindings.empty() && sc.kind != ScopeKind::Module) continue;
    return it->second;
  }
  return -1;
}

int Module::lookup_at(Node use) const { return lookup(scope_of(use), text(use)); }

const Cfg& Module::cfg(int function) const {
  ensure_built();
  const auto f = static_cast<size_t>(function);
  std::call_once(cfg_built_[f], [&] {
    auto cfg = std::make_unique<Cfg>();
    Builder::build_cfg(*this, function, *cfg);
    cfgs_[f] = std::move(cfg);
  });
  return *cfgs_[f];
}

std::optional<std::vector<int>> Module::ordered_reaching_bindings(Node use) const {
  const int sym = lookup_at(use);
  if (sym < 0) return std::nullopt;
  return ordered_reaching(use, sym);
}

std::optional<std::vector<int>> Module::ordered_reaching(Node use, int sym) const {
  const Scope& owner = scopes[static_cast<size_t>(symbols[static_cast<size_t>(sym)].scope)];
  if (owner.kind != ScopeKind::Function || function_of(use) != owner.function) return std::nullopt;
  const Cfg& cfg = this->cfg(owner.function);
  const int at = cfg.node_containing(use);
  if (at < 0) return std::nullopt;
  return cfg.reaching(at, sym);
}

std::vector<int> Module::reaching_bindings(Node use) const {
  const int sym = lookup_at(use);
  if (sym < 0) return {};
  if (auto ordered = ordered_reaching(use, sym)) return std::move(*ordered);
  const std::span<const int> all = symbols[static_cast<size_t>(sym)].bindings;
  return {all.begin(), all.end()};
}

std::span<const int> Module::bindings_of(Node use) const {
  const int sym = lookup_at(use);
  if (sym < 0) return {};
  return symbols[static_cast<size_t>(sym)].bindings;
}

bool Module::always_bound_at(int function, int symbol, Node at) const {
  if (function < 0 || symbol < 0) return false;
  const Symbol& s = symbols[static_cast<size_t>(symbol)];
  if (s.scope != functions[static_cast<size_t>(function)].scope || s.declared_global || s.declared_nonlocal) {
    return false;
  }
  bool parameter = false;
  for (int b : s.bindings) {
    const BindingKind kind = bindings[static_cast<size_t>(b)].kind;
    if (kind == BindingKind::Delete) return false;
    parameter = parameter || kind == BindingKind::Parameter;
  }
  if (parameter) return true;
  const Cfg& cfg = this->cfg(function);
  const int target = cfg.node_containing(at);
  if (target < 0 || cfg.entry < 0) return false;
  const auto binds_here = [&](const CfgNode& node) {
    for (int b : node.gen) {
      const Binding& binding = bindings[static_cast<size_t>(b)];
      if (binding.symbol != symbol) continue;
      bool skippable = false;
      for (Node p = binding.statement.parent(); p && !p.is(kind::function_definition); p = p.parent()) {
        skippable = skippable || ((p.is(kind::try_statement) || p.is(kind::with_statement)) && !p.range().contains(at.range()));
      }
      if (!skippable) return true;
    }
    return false;
  };
  // Is `target` reachable from the entry along nodes that bind nothing of `symbol`? The search
  // stops at every binding, so it explores only the code no binding dominates.
  std::unordered_set<int> seen;
  std::vector<int> stack{cfg.entry};
  while (!stack.empty()) {
    const int n = stack.back();
    stack.pop_back();
    if (n == target) return false;
    if (!seen.insert(n).second) continue;
    const CfgNode& node = cfg.nodes[static_cast<size_t>(n)];
    if (!binds_here(node)) {
      for (int next : node.succ) stack.push_back(next);
    } else if (node.kind == CfgKind::LoopHeader) {
      // A `for` binds its target only on the way into its body: when the iterable is exhausted
      // (or empty) the loop exits with the name as it was.
      const Node loop = node.node.parent();
      const Node body = loop ? loop.field(field::body) : Node{};
      for (int next : node.succ) {
        const Node to = cfg.nodes[static_cast<size_t>(next)].node;
        if (!(body && to && body.range().contains(to.range()))) stack.push_back(next);
      }
    }
  }
  return true;
}

bool Module::always_bound_at(Node use) const { return always_bound_at(function_of(use), lookup_at(use), use); }

std::optional<std::string> Module::qualified_name(Node expr, int alias_hops) const {
  expr = unparenthesize(expr);
  if (expr.is(kind::attribute)) {
    auto base = qualified_name(expr.field(field::object), alias_hops);
    if (!base) return std::nullopt;
    return *base + "." + std::string(text(expr.field(field::attribute)));
  }
  if (!expr.is(kind::identifier)) return std::nullopt;
  const int sym = lookup_at(expr);
  if (sym < 0) return std::string(text(expr));  // builtin or undefined: its bare name
  const Symbol& s = symbols[static_cast<size_t>(sym)];
  std::optional<std::string> result;
  for (int bi : s.bindings) {
    const Binding& b = bindings[static_cast<size_t>(bi)];
    std::optional<std::string> q;
    if (b.kind == BindingKind::Import) {
      q = std::string(b.import_path);
    } else if ((b.kind == BindingKind::FunctionDef || b.kind == BindingKind::ClassDef) &&
               scopes[static_cast<size_t>(s.scope)].kind == ScopeKind::Module) {
      q = module_name_.empty() ? s.name : module_name_ + "." + s.name;
    } else if ((b.kind == BindingKind::Assignment || b.kind == BindingKind::AnnotatedAssignment) &&
               b.value && (b.value.is(kind::attribute) || b.value.is(kind::identifier)) &&
               !(b.value == expr)) {
      // Aliases such as `F = torch.nn.functional`; guard against self-reference.
      if (b.value.is(kind::identifier) && text(b.value) == s.name) return std::nullopt;
      if (alias_hops >= kMaxAliasHops) return std::nullopt;  // a cycle of aliases, found by the fuzzer
      q = qualified_name(b.value, alias_hops + 1);
    }
    if (!q) return std::nullopt;
    if (result && *result != *q) return std::nullopt;
    result = q;
  }
  return result;
}

const Parameter* Module::parameter_of(const Binding& binding) const {
  if (binding.kind != BindingKind::Parameter || binding.symbol < 0) return nullptr;
  const int scope = symbols[static_cast<size_t>(binding.symbol)].scope;
  const int function = scope >= 0 ? scopes[static_cast<size_t>(scope)].function : -1;
  if (function < 0) return nullptr;
  for (const Parameter& p : functions[static_cast<size_t>(function)].params) {
    if (p.node == binding.statement) return &p;
  }
  return nullptr;
}

int Module::module_function(std::string_view name) const {
  ensure_built();
  const Symbol* symbol = module_symbol_named(name);
  if (!symbol) return -1;
  for (int bi : symbol->bindings) {
    if (bindings[static_cast<size_t>(bi)].kind == BindingKind::FunctionDef) {
      return bindings[static_cast<size_t>(bi)].function;
    }
  }
  return -1;
}

int Module::module_class(std::string_view name) const {
  ensure_built();
  const Symbol* symbol = module_symbol_named(name);
  if (!symbol) return -1;
  for (int bi : symbol->bindings) {
    if (bindings[static_cast<size_t>(bi)].kind == BindingKind::ClassDef) {
      return bindings[static_cast<size_t>(bi)].klass;
    }
  }
  return -1;
}

const Symbol* Module::module_symbol_named(std::string_view name) const {
  ensure_built();
  auto it = scopes[0].symbols.find(std::string(name));
  return it == scopes[0].symbols.end() ? nullptr : &symbols[static_cast<size_t>(it->second)];
}

const Symbol* Module::module_symbol(Node use) const {
  const int s = lookup_at(use);
  if (s < 0) return nullptr;
  const Symbol& symbol = symbols[static_cast<size_t>(s)];
  return symbol.scope == 0 ? &symbol : nullptr;
}

const Binding* Module::first_binding_at(Node use, BindingKind kind) const {
  const int sym = lookup_at(use);
  if (sym < 0) return nullptr;
  for (int bi : symbols[static_cast<size_t>(sym)].bindings) {
    if (bindings[static_cast<size_t>(bi)].kind == kind) return &bindings[static_cast<size_t>(bi)];
  }
  return nullptr;
}

bool Module::bound_only_by(const Symbol& symbol, std::initializer_list<BindingKind> kinds) const {
  if (symbol.bindings.empty()) return false;
  return std::all_of(symbol.bindings.begin(), symbol.bindings.end(), [&](int b) {
    return std::find(kinds.begin(), kinds.end(), bindings[static_cast<size_t>(b)].kind) != kinds.end();
  });
}

}  // namespace graphmend::ir
