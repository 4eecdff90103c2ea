#include "graphmend/analysis/tensor_types.h"

#include <algorithm>
#include <set>
#include <utility>
#include <span>
#include <string>

#include "graphmend/analysis/api_facts.h"

namespace graphmend::analysis {
namespace {

using std::string_view;

bool is_torch_nn_class(const std::string& q) {
  if (!q.starts_with("torch.nn.") || q.find("functional") != std::string::npos) return false;
  const auto dot = q.rfind('.');
  return std::isupper(static_cast<unsigned char>(q[dot + 1])) != 0;
}

ValueType of(ValueKind k, bool b = false) { return ValueType{k, b}; }

// The type a qualified type name denotes (`torch.Tensor`, `int`), as far as the analysis tells.
ValueType type_named(const std::string& q) {
  if (api::has(api::Space::Global, q, api::Fact::StaticType)) return of(ValueKind::Static);
  if (q == "torch.Tensor" || q == "torch.nn.Parameter" ||
      (q.starts_with("torch.") && q.ends_with("Tensor") && q.find('.', 6) == std::string::npos)) {
    return of(ValueKind::Tensor, q == "torch.BoolTensor");
  }
  return {};
}

string_view trimmed(string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// What one name of a type comment denotes (`None`, `int`, `Tensor`, `torch.Tensor`): its root
// resolves through the module's imports, as an annotation's would.
ValueType comment_name_type(const ir::Module& m, string_view name) {
  if (name == "None") return of(ValueKind::None);
  const bool dotted_name = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return c == '_' || c == '.' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  });
  if (!dotted_name) return {};
  const string_view root = name.substr(0, name.find('.'));
  const ir::Symbol* symbol = m.module_symbol_named(root);
  if (!symbol) return type_named(std::string(name));  // a builtin: int, float, bool
  std::optional<std::string_view> imported;
  for (int bi : symbol->bindings) {
    const ir::Binding& b = m.bindings[static_cast<size_t>(bi)];
    if (b.kind != ir::BindingKind::Import || (imported && *imported != b.import_path)) return {};
    imported = b.import_path;
  }
  if (!imported) return {};
  return type_named(std::string(*imported) + std::string(name.substr(root.size())));
}

// Tensor methods whose result has the receiver's dtype (a mask stays a mask): those the API table
// says keep it, and `.to(<device>)` (`.to(x.device)`, `.to("cuda")`, `.to(device=d)`).
bool keeps_dtype(const ir::Module& m, string_view method, ir::Node args) {
  if (api::has(api::Space::TensorMethod, method, api::Fact::KeepsDtype)) return true;
  if (method != "to" || !args) return false;
  const std::vector<ir::Node> a = ir::children_without_comments(args);
  if (a.size() != 1) return false;
  ir::Node device = a[0];
  if (device.is(kind::keyword_argument)) return m.text(device.field(field::name)) == "device";
  device = ir::unparenthesize(device);
  if (device.is(kind::attribute)) return m.text(device.field(field::attribute)) == "device";
  if (device.is(kind::identifier)) return m.text(device) == "device";
  return device.is(kind::string);
}

// True when every call of the function that returns normally hands the parameter bound by `b` a
// tensor, as its uses show (issue 16, item 4): a statement directly in the function's body,
// before any `return`, `yield` or `raise` in its text and outside any condition (`if`, `and`,
// `x if c else y`, a comprehension or lambda), calls a method on the parameter that only tensors
// have (a Tensor method that nn.Module does not share: `x.abs()`, not `x.float()`), with no
// rebinding in between. A float or an int there would raise AttributeError.
bool used_as_tensor(const ir::Module& m, const ir::Binding& b) {
  const std::string& name = m.symbols[static_cast<size_t>(b.symbol)].name;
  if (name == "self" || name == "cls") return false;
  const int scope = m.symbols[static_cast<size_t>(b.symbol)].scope;
  const int f = scope >= 0 ? m.scopes[static_cast<size_t>(scope)].function : -1;
  if (f < 0) return false;
  const ir::Node body = m.functions[static_cast<size_t>(f)].node.field(field::body);
  if (!body) return false;
  bool found = false;
  bool stopped = false;  // a return, yield or raise seen: later statements may not run
  for (ir::Node statement : ir::children_without_comments(body)) {
    if (found || stopped) break;
    syntax::walk(statement, [&](ir::Node n) {
      if (found || stopped) return false;
      if (n.is(kind::function_definition) || n.is(kind::class_definition) || n.is(kind::lambda)) return false;
      if (n.is(kind::return_statement) || n.is(kind::yield) || n.is(kind::raise_statement)) {
        stopped = true;
        return false;
      }
      // Code that may not run on every call (a compound statement's body, the right operand of
      // `and`/`or`, an assert under `python -O`): its uses are no evidence, but an exit inside
      // it stops the scan all the same.
      const ir::Node parent = n.parent();
      const bool right_operand = parent && parent.is(kind::boolean_operator) && n == parent.field(field::right);
      if (right_operand || n.is(kind::if_statement) || n.is(kind::for_statement) || n.is(kind::while_statement) ||
          n.is(kind::try_statement) || n.is(kind::with_statement) || n.is(kind::match_statement) ||
          n.is(kind::assert_statement) || n.is(kind::conditional_expression) || n.is(kind::list_comprehension) ||
          n.is(kind::set_comprehension) || n.is(kind::dictionary_comprehension) ||
          n.is(kind::generator_expression)) {
        syntax::walk(n, [&](ir::Node inner) {
          if (inner.is(kind::function_definition) || inner.is(kind::class_definition) || inner.is(kind::lambda)) return false;
          if (inner.is(kind::return_statement) || inner.is(kind::yield) || inner.is(kind::raise_statement)) stopped = true;
          return !stopped;
        });
        return false;
      }
      if (!n.is(kind::call)) return true;
      const ir::Node fn = ir::unparenthesize(n.field(field::function));
      if (!fn.is(kind::attribute)) return true;
      const ir::Node receiver = ir::unparenthesize(fn.field(field::object));
      if (!receiver.is(kind::identifier) || m.text(receiver) != name) return true;
      const string_view method = m.text(fn.field(field::attribute));
      if (!api::has(api::Space::TensorMethod, method, api::Fact::TensorEvidence) ||
          api::has(api::Space::ModuleMethod, method, api::Fact::ReturnsSelf)) {
        return true;
      }
      const std::vector<int> reaching = m.reaching_bindings(receiver);
      found = reaching.size() == 1 && &m.bindings[static_cast<size_t>(reaching[0])] == &b;
      return !found;
    });
  }
  return found;
}

}  // namespace


ValueType join(ValueType a, ValueType b) {
  if (a.kind == ValueKind::Bottom) return b;
  if (b.kind == ValueKind::Bottom) return a;
  if (a.kind == b.kind) return {a.kind, a.bool_tensor && b.bool_tensor};
  auto tensorish = [](ValueKind k) { return k == ValueKind::Tensor || k == ValueKind::LikelyTensor; };
  if (tensorish(a.kind) && tensorish(b.kind)) return of(ValueKind::LikelyTensor, a.bool_tensor && b.bool_tensor);
  auto optional_mix = [&](ValueKind x, ValueKind y) {
    return (x == ValueKind::Tensor || x == ValueKind::OptionalTensor) &&
           (y == ValueKind::None || y == ValueKind::OptionalTensor);
  };
  if (optional_mix(a.kind, b.kind) || optional_mix(b.kind, a.kind)) {
    // A mask or None stays a mask when it is one (`mask: torch.BoolTensor | None`).
    const auto mask = [](ValueType t) { return t.kind == ValueKind::None || t.bool_tensor; };
    return of(ValueKind::OptionalTensor, mask(a) && mask(b));
  }
  // None and static scalars are both non-tensors; Dynamo treats both as constants.
  if ((a.kind == ValueKind::None && b.kind == ValueKind::Static) ||
      (a.kind == ValueKind::Static && b.kind == ValueKind::None)) {
    return of(ValueKind::Static);
  }
  return of(ValueKind::Unknown);
}

bool TypeOracle::boolean_mask_index(const ir::Module& module, ir::Node value, ir::Node index) {
  const ValueType v = type_of(module, value);
  if (!v.tensor_like() && v.kind != ValueKind::Unknown) return false;
  const ValueType i = type_of(module, index);
  // An optional mask indexes as a mask: `x[None]` only adds a dimension, which no code means.
  return i.tensor_or_optional() && i.bool_tensor;
}

ValueType TypeOracle::type_of(const ir::Module& module, ir::Node expr) {
  if (!expr) return {};
  const void* key = expr.id();
  const auto [entry, inserted] = memo_.try_emplace(key, Memo{{}, true});
  if (!inserted) {
    if (!entry->second.in_progress) return entry->second.type;
    // A definition that reaches itself (x = x + 1 in a loop) contributes nothing new: the
    // optimistic fixpoint. Results computed under that assumption are not cached.
    ++cycles_;
    return ValueType{ValueKind::Bottom, false};
  }
  if (depth_ > 48) {
    memo_.erase(entry);
    return {};
  }
  // The map's nodes stay put while compute() adds entries, so the slot outlives rehashing.
  Memo& slot = entry->second;
  ++depth_;
  const int cycles_before = cycles_;
  ValueType t = compute(module, expr);
  --depth_;
  if (depth_ == 0) end_outermost_query(t);
  if (cycles_ == cycles_before || depth_ == 0) {
    slot = Memo{t, false};
  } else {
    memo_.erase(key);
  }
  return t;
}

ValueType TypeOracle::compute(const ir::Module& m, ir::Node e) {
  Project::note_read(m);
  if (e.is(kind::parenthesized_expression)) return type_of(m, e.named_child(0));
  if (e.is(kind::named_expression)) return type_of(m, e.field(field::value));  // `(m := value)` is its value
  if (e.is(kind::integer) || e.is(kind::float_) || e.is(kind::string) || e.is(kind::concatenated_string) ||
      e.is(kind::true_) || e.is(kind::false_) || e.is(kind::ellipsis)) {
    return of(ValueKind::Static);
  }
  if (e.is(kind::none)) return of(ValueKind::None);
  if (e.is(kind::identifier)) return identifier(m, e);
  if (e.is(kind::attribute)) return attribute(m, e);
  if (e.is(kind::call)) return call(m, e);
  if (e.is(kind::tuple) || e.is(kind::list) || e.is(kind::expression_list)) {
    // A sequence of tensors, as a call's argument or a function's result, keeps its elements'
    // tensor-ness for whoever unpacks or indexes it.
    const std::vector<ir::Node> elements = ir::children_without_comments(e);
    for (ir::Node element : elements) {
      if (!type_of(m, element).tensor_like()) return {};
    }
    return elements.empty() ? ValueType{} : of(ValueKind::TensorTuple);
  }
  if (e.is(kind::list_comprehension)) {
    // `[m - v for v in counts]`: a list of tensors when its element is one.
    return type_of(m, e.field(field::body)).tensor_like() ? of(ValueKind::TensorTuple) : ValueType{};
  }
  if (e.is(kind::subscript)) {
    ValueType v = type_of(m, e.field(field::value));
    if (v.kind == ValueKind::TensorTuple) {
      ir::Node index = e.field(field::subscript);
      return index && index.is(kind::slice) ? v : of(ValueKind::LikelyTensor);
    }
    if (v.tensor_like()) return of(v.kind, v.bool_tensor);
    if (v.kind == ValueKind::OptionalTensor) return of(ValueKind::Tensor, v.bool_tensor);
    if (v.kind == ValueKind::Static || v.kind == ValueKind::DataScalar) return of(v.kind);
    return {};
  }
  if (e.is(kind::binary_operator)) {
    ValueType l = type_of(m, e.field(field::left));
    ValueType r = type_of(m, e.field(field::right));
    const string_view op = m.text(e.field(field::operator_));
    const bool logical = op == "&" || op == "|" || op == "^";
    if (l.tensor_like() || r.tensor_like()) {
      const bool proven = l.kind == ValueKind::Tensor || r.kind == ValueKind::Tensor;
      const bool b = logical && (l.bool_tensor || !l.tensor_like()) && (r.bool_tensor || !r.tensor_like());
      return of(proven ? ValueKind::Tensor : ValueKind::LikelyTensor, b);
    }
    if (l.kind == ValueKind::Bottom || r.kind == ValueKind::Bottom) return of(ValueKind::Bottom);
    if (l.kind == ValueKind::DataScalar || r.kind == ValueKind::DataScalar) return of(ValueKind::DataScalar);
    if (l.kind == ValueKind::Static && r.kind == ValueKind::Static) return of(ValueKind::Static);
    return {};
  }
  if (e.is(kind::unary_operator)) {
    ValueType v = type_of(m, e.field(field::argument));
    return v;
  }
  if (e.is(kind::comparison_operator)) {
    bool identity = false;
    for (ir::Node c : e.children()) {
      if (c.is(kind::is_) || c.is(kind::is_not) || c.is(kind::in_) || c.is(kind::not_in)) identity = true;
    }
    for (ir::Node op : e.children_by_field(field::operators)) {
      const string_view s = m.text(op);
      if (s == "is" || s == "in" || s.starts_with("is") || s.starts_with("not")) identity = true;
    }
    if (identity) return of(ValueKind::Static);
    bool any_tensor = false, proven = false, any_data = false, all_static = true;
    for (ir::Node c : e.named_children()) {
      ValueType v = type_of(m, c);
      any_tensor |= v.tensor_like();
      proven |= v.kind == ValueKind::Tensor;
      any_data |= v.kind == ValueKind::DataScalar;
      all_static &= v.kind == ValueKind::Static || v.kind == ValueKind::None;
    }
    if (any_tensor) return of(proven ? ValueKind::Tensor : ValueKind::LikelyTensor, true);
    if (any_data) return of(ValueKind::DataScalar);
    if (all_static) return of(ValueKind::Static);
    return {};
  }
  if (e.is(kind::not_operator) || e.is(kind::boolean_operator)) {
    bool any_tensor = false, any_data = false, all_static = true;
    for (ir::Node c : e.named_children()) {
      ValueType v = type_of(m, c);
      any_tensor |= v.tensor_like();
      any_data |= v.kind == ValueKind::DataScalar;
      all_static &= v.kind == ValueKind::Static || v.kind == ValueKind::None;
    }
    if (any_tensor || any_data) return of(ValueKind::DataScalar);
    if (all_static) return of(ValueKind::Static);
    return {};
  }
  if (e.is(kind::conditional_expression)) {
    auto kids = e.named_children();
    if (kids.size() == 3) return join(type_of(m, kids[0]), type_of(m, kids[2]));
    return {};
  }
  if (e.is(kind::lambda)) return of(ValueKind::Static);
  return {};
}

TypeOracle::Assumption::Assumption(TypeOracle& oracle, const ir::Module& module, int scope, source::TextRange region,
                                   const std::vector<std::string>& names)
    : oracle_(oracle) {
  oracle_.saved_memo_ = std::exchange(oracle_.memo_, {});
  oracle_.saved_binding_memo_ = std::exchange(oracle_.binding_memo_, {});
  oracle_.saved_unordered_plain_ = std::exchange(oracle_.unordered_plain_, {});
  oracle_.saved_returns_ = std::exchange(oracle_.returns_, {});
  oracle_.saved_self_stores_ = std::exchange(oracle_.self_stores_, {});
  std::vector<int> symbols;
  for (const std::string& name : names) {
    if (const int symbol = module.lookup(scope, name); symbol >= 0) symbols.push_back(symbol);
  }
  oracle_.assumed_ = Assumed{&module, region, std::move(symbols)};
}

TypeOracle::Assumption::~Assumption() {
  oracle_.memo_ = std::exchange(oracle_.saved_memo_, {});
  oracle_.binding_memo_ = std::exchange(oracle_.saved_binding_memo_, {});
  oracle_.unordered_plain_ = std::exchange(oracle_.saved_unordered_plain_, {});
  oracle_.returns_ = std::exchange(oracle_.saved_returns_, {});
  oracle_.self_stores_ = std::exchange(oracle_.saved_self_stores_, {});
  oracle_.assumed_.reset();
}

ValueType TypeOracle::identifier(const ir::Module& m, ir::Node id) {
  if (assumed_ && &m == assumed_->module && id.start() >= assumed_->region.start && id.end() <= assumed_->region.end) {
    const std::vector<int>& symbols = assumed_->symbols;
    if (std::find(symbols.begin(), symbols.end(), m.lookup_at(id)) != symbols.end()) return of(ValueKind::Tensor);
  }
  const auto bindings = m.reaching_bindings(id);
  if (bindings.empty()) {
    const string_view name = m.text(id);
    if (name == "True" || name == "False") return of(ValueKind::Static);
    if (name == "None") return of(ValueKind::None);
    return {};
  }
  std::optional<ValueType> acc;
  for (int b : bindings) {
    ValueType v = binding(m, b);
    acc = acc ? join(*acc, v) : v;
    if (acc->kind == ValueKind::Unknown) break;
  }
  return acc.value_or(ValueType{});
}

ValueType TypeOracle::annotation(const ir::Module& m, ir::Node ann) {
  if (!ann) return {};
  if (ann.is(kind::type)) ann = ann.named_child(0);
  ann = ir::unparenthesize(ann);
  if (ann.is(kind::string)) {
    // Forward references: judge by the text.
    const string_view s = m.text(ann);
    if (s.find("Tensor") != string_view::npos) {
      return of(s.find("Optional") != string_view::npos || s.find("None") != string_view::npos
                    ? ValueKind::OptionalTensor
                    : ValueKind::Tensor);
    }
    return {};
  }
  if (ann.is(kind::binary_operator) && m.text(ann.field(field::operator_)) == "|") {
    ValueType l = annotation(m, ann.field(field::left));
    ValueType r = annotation(m, ann.field(field::right));
    return join(l, r);
  }
  if (ann.is(kind::none)) return of(ValueKind::None);
  if (ann.is(kind::generic_type) || ann.is(kind::subscript)) {
    ir::Node base = ann.is(kind::subscript) ? ann.field(field::value) : ann.named_child(0);
    auto q = m.qualified_name(base);
    std::string name = q ? *q : std::string(m.text(base));
    if (name == "typing.Optional" || name == "Optional") {
      ir::Node arg = ann.is(kind::subscript) ? ann.field(field::subscript) : ann.named_child(1);
      if (arg && arg.is(kind::type_parameter)) arg = arg.named_child(0);
      ValueType inner = annotation(m, arg);
      return join(inner, of(ValueKind::None));
    }
    if (name == "typing.Union" || name == "Union") {
      std::optional<ValueType> acc;
      ir::Node args = ann.is(kind::subscript) ? ann : ann.named_child(1);
      for (ir::Node a : args.named_children()) {
        if (a == base) continue;
        ValueType v = annotation(m, a.is(kind::type) ? a.named_child(0) : a);
        acc = acc ? join(*acc, v) : v;
      }
      return acc.value_or(ValueType{});
    }
    return {};
  }
  auto q = m.qualified_name(ann);
  if (!q) return {};
  return type_named(*q);
}

ValueType TypeOracle::comment_type(const ir::Module& m, string_view type) {
  // The forms TorchScript-era comments write: a dotted name, `Optional[X]`, `X | Y`. Read in
  // loops, not by recursion: a comment is input of any length and nesting.
  type = trimmed(type);
  bool optional = false;
  for (bool unwrapped = true; unwrapped;) {
    unwrapped = false;
    for (string_view prefix : {"Optional[", "typing.Optional["}) {
      if (type.starts_with(prefix) && type.ends_with(']')) {
        type = trimmed(type.substr(prefix.size(), type.size() - prefix.size() - 1));
        optional = unwrapped = true;
      }
    }
  }
  if (type.find('[') != string_view::npos) return {};  // a container, or a generic of its own
  std::optional<ValueType> acc;
  if (optional) acc = of(ValueKind::None);
  for (size_t start = 0; start <= type.size();) {
    const size_t bar = std::min(type.find('|', start), type.size());
    const ValueType part = comment_name_type(m, trimmed(type.substr(start, bar - start)));
    acc = acc ? join(*acc, part) : part;
    if (acc->kind == ValueKind::Unknown) break;
    start = bar + 1;
  }
  return acc.value_or(ValueType{});
}

ValueType TypeOracle::binding(const ir::Module& m, int bi) {
  // Definitions can reach each other in loops (a += 1; a += 2): a re-entered binding adds
  // nothing new, like a re-entered expression.
  // A result reached without a cycle is final and kept. One reached under a cycle assumed the
  // definitions in progress contribute nothing yet, and holds only until the outermost query
  // ends; within it, each definition is still evaluated once. Otherwise definitions that all
  // reach each other (a name augmented k times at module level, where reaching is
  // flow-insensitive) were explored along every order, k! of them. The work of one outermost
  // query is also bounded, past which a definition is Unknown, the conservative answer.
  const ir::Binding& b = m.bindings[static_cast<size_t>(bi)];
  const void* key = b.target.id();
  const auto [entry, inserted] = binding_memo_.try_emplace(key, Memo{{}, true});
  if (!inserted) {
    if (!entry->second.in_progress) return entry->second.type;
    ++cycles_;
    return ValueType{ValueKind::Bottom, false};
  }
  // Not final and not in progress: provisional, over its budget, or evaluated now.
  if (auto known = provisional_bindings_.find(key); known != provisional_bindings_.end()) {
    binding_memo_.erase(entry);
    ++cycles_;  // what depends on it is provisional too
    return known->second;
  }
  if (++binding_steps_ > kMaxBindingSteps) {
    binding_memo_.erase(entry);
    ++cycles_;  // a truncated answer is not cached
    return {};
  }
  Memo& slot = entry->second;  // stays put while binding_uncached() adds entries
  const int cycles_before = cycles_;
  ValueType result = binding_uncached(m, bi);
  if (cycles_ == cycles_before) {
    slot = Memo{result, false};
  } else {
    binding_memo_.erase(key);
    provisional_bindings_[key] = result;
  }
  return result;
}

void TypeOracle::end_outermost_query(ValueType& result) {
  // What held only while the query ran (results under a cycle, the work bound) ends with it;
  // an answer still waiting on a cycle is no answer.
  cycles_ = 0;
  binding_steps_ = 0;
  // clear() costs the bucket count even when empty, and most queries meet no cycle.
  if (!provisional_bindings_.empty()) provisional_bindings_.clear();
  if (result.kind == ValueKind::Bottom) result = {};
}

ValueType TypeOracle::parameter_type(const ir::Module& m, int function, size_t index) {
  Project::note_read(m);
  const ir::Function& f = m.functions[static_cast<size_t>(function)];
  if (index >= f.params.size() || f.scope < 0) return {};
  const auto& symbols = m.scopes[static_cast<size_t>(f.scope)].symbols;
  const auto it = symbols.find(f.params[index].name);
  if (it == symbols.end()) return {};
  for (int bi : m.symbols[static_cast<size_t>(it->second)].bindings) {
    const ir::Binding& b = m.bindings[static_cast<size_t>(bi)];
    if (b.kind != ir::BindingKind::Parameter || b.statement != f.params[index].node) continue;
    const bool outermost = depth_ == 0;
    ValueType t = binding(m, bi);
    if (outermost) end_outermost_query(t);
    return t;
  }
  return {};
}

ValueType TypeOracle::parameter(const ir::Module& m, const ir::Binding& b) {
  // What compiled callers pass outweighs an annotation that says the parameter is not a tensor:
  // EnCodec's `_pad1d(..., paddings: Tuple[int, int])` receives a tuple of buffers.
  std::optional<ValueType> observed;
  if (evidence_ && (evidence_reads_ || !evidence_->empty())) {
    const int scope = m.symbols[static_cast<size_t>(b.symbol)].scope;
    const int f = scope >= 0 ? m.scopes[static_cast<size_t>(scope)].function : -1;
    if (f >= 0) {
      if (evidence_reads_) evidence_reads_->push_back({&m, f});
      const auto& params = m.functions[static_cast<size_t>(f)].params;
      for (size_t i = 0; i < params.size(); ++i) {
        if (params[i].node != b.statement) continue;
        if (auto it = evidence_->find({&m, f, static_cast<int>(i)}); it != evidence_->end()) observed = it->second;
      }
    }
  }
  // `*xs: Tensor` (or `# type: (*Tensor) -> ...`) types the elements: `xs` itself is a tuple,
  // and `**kw: Tensor` a dict.
  const ir::Parameter* p = m.parameter_of(b);
  const bool collects = p && (p->kind == ir::Parameter::Kind::VarArgs || p->kind == ir::Parameter::Kind::VarKeyword);
  std::optional<ValueType> declared;
  if (collects) {
    if (p->kind == ir::Parameter::Kind::VarArgs) {
      const ValueType element = b.annotation ? annotation(m, b.annotation)
                                : p->type_comment.empty()
                                    ? ValueType{}
                                    : comment_type(m, m.text().substr(p->type_comment.start, p->type_comment.length()));
      if (element.kind == ValueKind::Tensor) return of(ValueKind::TensorTuple);
    }
  } else if (b.annotation) {
    declared = annotation(m, b.annotation);
  } else if (p && !p->type_comment.empty()) {
    declared = comment_type(m, m.text().substr(p->type_comment.start, p->type_comment.length()));
  }
  if (declared) {
    const ValueType a = *declared;
    if (a.kind == ValueKind::Tensor || a.kind == ValueKind::OptionalTensor || a.kind == ValueKind::Module) return a;
    if (observed) return *observed;
    if (a.kind != ValueKind::Unknown) return a;
  }
  if (observed) return *observed;
  if (used_as_tensor(m, b)) return of(ValueKind::LikelyTensor);
  ir::Node def = b.statement.field(field::value);
  if (def && !def.is(kind::none)) {
    ValueType d = type_of(m, def);
    if (d.kind == ValueKind::Static) return d;
  }
  return {};
}

ValueType TypeOracle::unordered_plain_definitions(const ir::Module& m, std::span<const int> bindings) {
  // Where definitions are unordered (module and class scope), every augmented assignment reaches
  // every other, and following those chains costs k² for k of them. The operator on a tensor is a
  // tensor and on statics static, so the plain definitions and the augmented value alone decide
  // the result: the other augmented assignments are not followed, and the join is kept per name.
  if (auto known = unordered_plain_.find(bindings.data()); known != unordered_plain_.end()) return known->second;
  const int cycles_before = cycles_;
  std::optional<ValueType> joined;
  for (int p : bindings) {
    if (m.bindings[static_cast<size_t>(p)].kind == ir::BindingKind::AugmentedAssignment) continue;
    ValueType plain = binding(m, p);
    joined = joined ? join(*joined, plain) : plain;
  }
  const ValueType result = joined.value_or(ValueType{});
  if (cycles_ == cycles_before) unordered_plain_[bindings.data()] = result;
  return result;
}

ValueType TypeOracle::binding_uncached(const ir::Module& m, int bi) {
  const ir::Binding& b = m.bindings[static_cast<size_t>(bi)];
  switch (b.kind) {
    case ir::BindingKind::Parameter: return parameter(m, b);
    case ir::BindingKind::Assignment:
    case ir::BindingKind::AnnotatedAssignment:
    case ir::BindingKind::Walrus: {
      if (b.annotation) {
        ValueType a = annotation(m, b.annotation);
        if (a.kind != ValueKind::Unknown) return a;
      }
      if (b.value) return type_of(m, b.value);
      // Destructuring: elements of a static (shape) or tensor value.
      ir::Node stmt = b.statement;
      ir::Node assign = stmt.is(kind::expression_statement) ? stmt.named_child(0) : stmt;
      if (assign && assign.is(kind::assignment)) {
        ir::Node right = assign.field(field::right);
        while (right && right.is(kind::assignment)) right = right.field(field::right);
        ValueType r = type_of(m, right);
        if (r.kind == ValueKind::Static) return r;
        if (r.tensor_like()) return of(r.kind);
        if (r.kind == ValueKind::TensorTuple) return of(ValueKind::LikelyTensor);
      }
      return {};
    }
    case ir::BindingKind::AugmentedAssignment: {
      ValueType v = type_of(m, b.value);
      ValueType pv;
      if (const auto ordered = m.ordered_reaching_bindings(b.target)) {
        std::optional<ValueType> prev;
        for (int p : *ordered) {
          if (p == bi) continue;
          ValueType reaching = binding(m, p);
          prev = prev ? join(*prev, reaching) : reaching;
        }
        pv = prev.value_or(ValueType{});
      } else {
        pv = unordered_plain_definitions(m, m.bindings_of(b.target));
      }
      if (pv.tensor_like() || v.tensor_like()) {
        return of(pv.kind == ValueKind::Tensor || v.kind == ValueKind::Tensor ? ValueKind::Tensor
                                                                            : ValueKind::LikelyTensor);
      }
      if (pv.kind == ValueKind::Static && v.kind == ValueKind::Static) return of(ValueKind::Static);
      if (pv.kind == ValueKind::DataScalar || v.kind == ValueKind::DataScalar) return of(ValueKind::DataScalar);
      return {};
    }
    case ir::BindingKind::For:
    case ir::BindingKind::ComprehensionTarget: {
      // `for t in <iterable>` and `[... for t in <iterable>]`: an element of what is iterated,
      // unpacked along the target's place in the pattern (`for i, (h, w) in enumerate(zip(a, b))`).
      std::vector<Unpack> path;
      const ir::Node left = ir::unparenthesize(b.statement.field(field::left));
      for (ir::Node n = b.target; n && n != left;) {
        const ir::Node pattern = n.parent();
        if (!pattern || !(pattern.is(kind::pattern_list) || pattern.is(kind::tuple_pattern) ||
                          pattern.is(kind::list_pattern))) {
          return {};
        }
        const std::vector<ir::Node> parts = ir::children_without_comments(pattern);
        const auto at = std::find(parts.begin(), parts.end(), n);
        if (at == parts.end()) return {};
        path.insert(path.begin(), Unpack{static_cast<size_t>(at - parts.begin()), parts.size()});
        n = pattern;
        // `for (h, w) in ...`: the parenthesised pattern is the target list itself.
        if (ir::unparenthesize(n) == left) break;
      }
      return iterated_element(m, b.statement.field(field::right), path);
    }
    case ir::BindingKind::FunctionDef:
    case ir::BindingKind::ClassDef:
    case ir::BindingKind::Import:
      return of(ValueKind::Static);
    default:
      return {};
  }
}

ValueType TypeOracle::iterated_element(const ir::Module& m, ir::Node iterable, std::span<const Unpack> path) {
  // Dynamo unpacks a tensor along its first dimension into tensors, and an element of a tensor
  // unpacks into tensors again; `zip` and `enumerate` pair each place with an iterable.
  iterable = ir::unparenthesize(iterable);
  if (iterable && iterable.is(kind::call)) {
    const auto q = m.qualified_name(iterable.field(field::function));
    if (q && *q == "range") return path.empty() ? of(ValueKind::Static) : ValueType{};
    if (q && (*q == "zip" || *q == "enumerate")) {
      if (path.empty()) return {};  // a tuple
      const std::vector<ir::Node> args = ir::children_without_comments(iterable.field(field::arguments));
      const bool plain = std::none_of(args.begin(), args.end(), [](ir::Node a) {
        return a.is(kind::keyword_argument) || a.is(kind::list_splat) || a.is(kind::dictionary_splat);
      });
      if (!plain) return {};
      const Unpack place = path.front();
      if (*q == "zip") {
        if (place.width != args.size()) return {};
        return iterated_element(m, args[place.index], path.subspan(1));
      }
      if (place.width != 2 || args.size() != 1) return {};
      if (place.index == 0) return path.size() == 1 ? of(ValueKind::Static) : ValueType{};
      return iterated_element(m, args[0], path.subspan(1));
    }
  }
  const ValueType r = type_of(m, iterable);
  if (r.tensor_like()) return of(r.kind);
  if (r.kind == ValueKind::TensorTuple) return of(ValueKind::LikelyTensor);
  return {};
}

ValueType TypeOracle::attribute(const ir::Module& m, ir::Node attr) {
  const string_view name = m.text(attr.field(field::attribute));
  ir::Node obj = ir::unparenthesize(attr.field(field::object));
  if (api::has(api::Space::TensorAttribute, name, api::Fact::Static)) return of(ValueKind::Static);
  if (auto q = m.qualified_name(attr)) {
    // Module-level constants of torch (dtypes, torch.pi, ...).
    if (q->starts_with("torch.") && !q->starts_with("torch.nn.") && q->find('.', 6) == std::string::npos) {
      return of(ValueKind::Static);
    }
    if (q->starts_with("math.")) return of(ValueKind::Static);
  }
  if (obj.is(kind::identifier) && m.text(obj) == "self") {
    const int f = m.function_of(attr);
    if (f >= 0 && m.functions[static_cast<size_t>(f)].klass >= 0) {
      return self_attribute(m, m.functions[static_cast<size_t>(f)].klass, name);
    }
    return {};
  }
  ValueType o = type_of(m, obj);
  if (api::has(api::Space::TensorAttribute, name, api::Fact::ReturnsTensor) && o.tensor_or_optional()) {
    return of(o.kind == ValueKind::LikelyTensor ? ValueKind::LikelyTensor : ValueKind::Tensor);
  }
  return {};
}

const SelfStores& TypeOracle::self_stores(ClassRef cls) {
  Project::note_read(*cls.module);
  cls.module->ensure_built();
  const ir::Class& k = cls.module->classes[static_cast<size_t>(cls.klass)];
  auto it = self_stores_.find(k.node.id());
  if (it == self_stores_.end()) it = self_stores_.emplace(k.node.id(), index_self_stores(*cls.module, k)).first;
  return it->second;
}

ValueType TypeOracle::self_attribute(const ir::Module& m, int klass, std::string_view name) {
  if (name == "training") return of(ValueKind::Static);
  std::optional<ValueType> acc;
  std::vector<ClassRef> classes{ClassRef{&m, klass}};
  for (ClassRef b : project_.bases_of(ClassRef{&m, klass})) classes.push_back(b);
  for (ClassRef c : classes) {
    const SelfStores& stores = self_stores(c);
    auto it = stores.find(std::string(name));
    if (it == stores.end()) continue;
    for (const SelfStore& store : it->second) {
      ValueType v = type_of(*c.module, store.value);
      acc = acc ? join(*acc, v) : v;
    }
  }
  return acc.value_or(ValueType{});
}

ValueType TypeOracle::function_return(FunctionRef f) {
  Project::note_read(*f.module);
  f.module->ensure_built();
  const ir::Function& fn = f.module->functions[static_cast<size_t>(f.function)];
  const void* key = fn.node.id();
  if (auto it = returns_.find(key); it != returns_.end()) return it->second;
  returns_[key] = ValueType{ValueKind::Bottom, false};  // recursion guard
  std::optional<ValueType> acc;
  bool has_return = false;
  syntax::walk(fn.node.field(field::body), [&](ir::Node n) {
    if (n.is(kind::function_definition) || n.is(kind::class_definition) || n.is(kind::lambda)) return false;
    if (n.is(kind::return_statement)) {
      has_return = true;
      ValueType v = n.named_child_count() > 0 ? type_of(*f.module, n.named_child(0)) : of(ValueKind::None);
      acc = acc ? join(*acc, v) : v;
      return false;
    }
    return true;
  });
  ValueType result = has_return ? acc.value_or(ValueType{}) : of(ValueKind::None);
  returns_[key] = result;
  return result;
}

ValueType TypeOracle::call(const ir::Module& m, ir::Node call) {
  ir::Node fn = ir::unparenthesize(call.field(field::function));
  ir::Node args = call.field(field::arguments);
  auto first_arg = [&]() -> ir::Node {
    if (!args) return {};
    for (ir::Node a : args.named_children()) {
      if (!a.is(kind::keyword_argument) && !a.is(kind::comment)) return a;
    }
    return {};
  };
  auto q = m.qualified_name(fn);
  if (q) {
    const std::string& name = *q;
    if (name.find('.') == std::string::npos) {
      if (name == "int" || name == "float" || name == "bool" || name == "complex") {
        ValueType a = type_of(m, first_arg());
        if (a.tensor_like() || a.kind == ValueKind::DataScalar) return of(ValueKind::DataScalar);
        return of(ValueKind::Static);
      }
      if (name == "abs" || name == "round") return type_of(m, first_arg());
      if (name == "max" || name == "min") {
        // Dynamo turns max/min of tensors into torch.maximum/clamp: a tensor, no break.
        if (!args || !args.is(kind::argument_list)) return {};
        const std::vector<ir::Node> operands = ir::children_without_comments(args);
        if (operands.size() != 2) return {};
        for (ir::Node a : operands) {
          if (a.is(kind::keyword_argument) || a.is(kind::list_splat) || a.is(kind::dictionary_splat)) return {};
        }
        const ValueType l = type_of(m, operands[0]);
        const ValueType r = type_of(m, operands[1]);
        if (!l.tensor_like() && !r.tensor_like()) return {};
        return of(l.kind == ValueKind::Tensor || r.kind == ValueKind::Tensor ? ValueKind::Tensor : ValueKind::LikelyTensor);
      }
      if (api::has(api::Space::Global, name, api::Fact::Static)) return of(ValueKind::Static);
    }
    if (api::has(api::Space::Global, name, api::Fact::DataDependent)) return of(ValueKind::DataScalar);
    if (api::has(api::Space::Global, name, api::Fact::Static)) return of(ValueKind::Static);
    if (name.starts_with("torch.")) {
      if (name == "torch.nn.Parameter" || name == "torch.nn.parameter.Parameter" ||
          name == "torch.nn.Buffer") {
        return of(ValueKind::Tensor);
      }
      if (is_torch_nn_class(name)) return of(ValueKind::Module);
      if (api::in_opaque_torch_namespace(name)) return {};
      bool is_bool = api::has(api::Space::Global, name, api::Fact::ReturnsBool);
      if (args) {
        for (ir::Node a : args.named_children()) {
          if (a.is(kind::keyword_argument) && m.text(a.field(field::name)) == "dtype") {
            auto dq = m.qualified_name(a.field(field::value));
            if (dq && *dq == "torch.bool") is_bool = true;
          }
        }
      }
      return of(ValueKind::Tensor, is_bool);
    }
    if (name.starts_with("math.")) return of(ValueKind::Static);
  }
  if (auto f = project_.function_of_expr(m, fn)) return function_return(*f);
  if (auto c = project_.class_of_expr(m, fn)) {
    c->module->ensure_built();
    const ir::Class& k = c->module->classes[static_cast<size_t>(c->klass)];
    if (k.methods.contains("forward")) return of(ValueKind::Module);
    return {};
  }
  if (!fn.is(kind::attribute)) return {};
  ir::Node obj = ir::unparenthesize(fn.field(field::object));
  const string_view method = m.text(fn.field(field::attribute));
  // self.sub(...): a submodule call returns what its forward returns.
  if (obj.is(kind::identifier) && m.text(obj) == "self") {
    const int f = m.function_of(call);
    if (f >= 0 && m.functions[static_cast<size_t>(f)].klass >= 0) {
      const int klass = m.functions[static_cast<size_t>(f)].klass;
      if (auto meth = project_.find_method(ClassRef{&m, klass}, method)) return function_return(*meth);
      std::optional<ValueType> acc;
      const SelfStores& stores = self_stores(ClassRef{&m, klass});
      if (auto st = stores.find(std::string(method)); st != stores.end()) {
        for (const SelfStore& store : st->second) {
          ir::Node right = ir::unparenthesize(store.value);
          if (store.buffer || !right.is(kind::call)) continue;
          ValueType v;
          ir::Node ctor = right.field(field::function);
          if (auto cq = m.qualified_name(ctor); cq && is_torch_nn_class(*cq)) {
            v = api::has(api::Space::Global, *cq, api::Fact::ReturnsTuple) ? ValueType{} : of(ValueKind::Tensor);
          } else if (auto cls = project_.class_of_expr(m, ctor)) {
            if (auto fwd = project_.find_method(*cls, "forward")) v = function_return(*fwd);
          }
          acc = acc ? join(*acc, v) : v;
        }
      }
      return acc.value_or(ValueType{});
    }
  }
  ValueType r = type_of(m, obj);
  if (method == "item" || method == "tolist") {
    return r.kind == ValueKind::Static ? of(ValueKind::Static) : of(ValueKind::DataScalar);
  }
  if (api::has(api::Space::TensorMethod, method, api::Fact::Static) && r.kind != ValueKind::Module) {
    if (r.tensor_or_optional() || r.kind == ValueKind::Unknown) {
      return of(ValueKind::Static);
    }
  }
  if (r.tensor_or_optional()) {
    const ValueKind k = r.kind == ValueKind::LikelyTensor ? ValueKind::LikelyTensor : ValueKind::Tensor;
    if (method == "type" && !first_arg()) return {};
    return of(k, api::has(api::Space::TensorMethod, method, api::Fact::ReturnsBool) ||
                     (r.bool_tensor && keeps_dtype(m, method, args)));
  }
  if (r.kind == ValueKind::Unknown && api::has(api::Space::TensorMethod, method, api::Fact::TensorEvidence)) {
    return of(ValueKind::LikelyTensor, api::has(api::Space::TensorMethod, method, api::Fact::ReturnsBool));
  }
  return {};
}

}  // namespace graphmend::analysis
