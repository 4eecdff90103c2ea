#include "graphmend/analysis/totality.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "graphmend/ir/module.h"

namespace graphmend::analysis {

namespace {

using std::string_view;

constexpr uint8_t kBool = 1, kFloating = 4, kEveryDtype = 15;

struct Table {
  std::unordered_map<string_view, uint8_t> forms;                      // "Tensor.clamp(min=n)" -> dtype classes
  std::unordered_map<string_view, std::vector<string_view>> signatures;  // positional number parameters
  std::unordered_set<string_view> callables;                           // "torch.clamp", "Tensor.abs"
};

const Table& table() {
  static const Table t = [] {
    Table out;
#define GM_TOTAL_FORM(form, dtypes) out.forms.emplace(form, dtypes);
#include "torch_totality.inc"
#undef GM_TOTAL_FORM
    // The parameters, split on spaces (the table keeps them as one string).
    const std::vector<std::pair<string_view, string_view>> lists = {
#define GM_TOTAL_SIGNATURE(callable, parameters) {callable, parameters},
#include "torch_totality.inc"
#undef GM_TOTAL_SIGNATURE
    };
    for (const auto& [callable, parameters] : lists) {
      std::vector<string_view>& names = out.signatures[callable];
      for (size_t at = 0; at < parameters.size();) {
        const size_t space = std::min(parameters.find(' ', at), parameters.size());
        names.push_back(parameters.substr(at, space - at));
        at = space + 1;
      }
    }
    for (const auto& [form, dtypes] : out.forms) {
      const size_t paren = form.find('(');
      if (paren != string_view::npos) out.callables.insert(form.substr(0, paren));
    }
    return out;
  }();
  return t;
}

bool is_tensor(const ValueType& t) { return t.tensor_or_optional(); }

Totality may_raise(ir::Node operand, std::string why) { return {Totality::Kind::MayRaise, operand, std::move(why), {}}; }

std::string unknown_form(const ir::Module& m, ir::Node n) {
  return fmt::format(
      "`{}` may raise on the shapes or dtypes at hand (graphmend proves only operations torch accepts for every "
      "shape: scripts/torch_totality.py)",
      ir::snippet(m, n));
}

// An integer literal, optionally signed: a real number to that power is real (a fractional power
// of a negative one is complex). `2j` parses as an integer too.
bool integer_literal(const ir::Module& m, ir::Node e) {
  e = ir::unparenthesize(e);
  if (e.is(kind::unary_operator)) {
    const string_view op = m.text(e.field(field::operator_));
    if (op != "-" && op != "+") return false;
    e = ir::unparenthesize(e.field(field::argument));
  }
  return e.is(kind::integer) && m.text(e).find_first_of("jJ") == string_view::npos;
}

// Arithmetic of numbers is a number: for unary `+`/`-` and the binary arithmetic operators,
// pushes the operands (which must be numbers too); other operators are rejected.
enum class Arithmetic { Pushed, Rejected, NotAnOperator };
Arithmetic push_number_operands(const ir::Module& m, ir::Node x, std::vector<ir::Node>& pending) {
  if (x.is(kind::unary_operator)) {
    const string_view op = m.text(x.field(field::operator_));
    if (op != "-" && op != "+") return Arithmetic::Rejected;
    pending.push_back(x.field(field::argument));
    return Arithmetic::Pushed;
  }
  if (x.is(kind::binary_operator)) {
    static const std::unordered_set<string_view> arithmetic = {"+", "-", "*", "/", "//", "%", "**"};
    const string_view op = m.text(x.field(field::operator_));
    if (!arithmetic.contains(op)) return Arithmetic::Rejected;
    // `(-8) ** (1 / 3)` is complex: a power is a real number only to an integer exponent.
    if (op == "**" && !integer_literal(m, x.field(field::right))) return Arithmetic::Rejected;
    pending.push_back(x.field(field::left));
    pending.push_back(x.field(field::right));
    return Arithmetic::Pushed;
  }
  return Arithmetic::NotAnOperator;
}

// A value used as a Python number: proven, or arithmetic of numbers and names that a trace-time
// check can prove (names not known to hold a tensor: `limit`, `-limit`, `limit * 2`), which go
// to `numbers`. False when neither.
bool number_or_checkable(const ir::Module& m, TypeOracle& types, ir::Node value, std::vector<ir::Node>& numbers);

// Why `value`, used as a number operand of a tensor operation, may make it raise: not a number
// graphmend can prove or check, or a Python int beyond int64 (torch cannot hold it: Dynamo's
// fake tensors raise on `h * 2**70`, which eager mode computes).
std::optional<std::string> number_operand_problem(const ir::Module& m, TypeOracle& types, ir::Node n, ir::Node value,
                                                  std::vector<ir::Node>& numbers) {
  if (!number_or_checkable(m, types, value, numbers)) {
    return fmt::format("`{}` may raise: graphmend cannot prove `{}` a Python number", ir::snippet(m, n),
                       ir::snippet(m, value));
  }
  if (!python_number_fits_torch(m, value)) {
    return fmt::format("`{}` may raise: `{}` may be a Python int beyond int64, which torch cannot hold while "
                       "Dynamo traces",
                       ir::snippet(m, n), ir::snippet(m, value));
  }
  return std::nullopt;
}

bool number_or_checkable(const ir::Module& m, TypeOracle& types, ir::Node value, std::vector<ir::Node>& numbers) {
  std::vector<ir::Node> pending{value};
  std::vector<ir::Node> names;
  for (int budget = 16; !pending.empty(); --budget) {
    const ir::Node x = ir::unparenthesize(pending.back());
    pending.pop_back();
    if (budget == 0 || !x) return false;
    if (is_python_number(m, x)) continue;
    if (const Arithmetic a = push_number_operands(m, x, pending); a != Arithmetic::NotAnOperator) {
      if (a == Arithmetic::Rejected) return false;
      continue;
    }
    if (!x.is(kind::identifier)) return false;
    const ValueKind k = types.type_of(m, x).kind;
    if (k == ValueKind::Tensor || k == ValueKind::LikelyTensor || k == ValueKind::OptionalTensor ||
        k == ValueKind::TensorTuple || k == ValueKind::None || k == ValueKind::Module) {
      return false;
    }
    names.push_back(x);
  }
  numbers.insert(numbers.end(), names.begin(), names.end());
  return true;
}

// What the measured dtype classes of a form prove of the operation `n` on `operand`.
Totality decide(const ir::Module& m, TypeOracle& types, ir::Node n, ir::Node operand, uint8_t dtypes) {
  const ValueType t = types.type_of(m, operand);
  if (dtypes == kEveryDtype || (t.bool_tensor && (dtypes & kBool) != 0)) {
    // A tensor of any dtype will do; a value that may be None (or is a tensor only by its uses)
    // is checked to be one.
    if (t.kind == ValueKind::Tensor) return {Totality::Kind::Total, operand, {}, {}};
    return {Totality::Kind::NeedsTensor, operand, {}, {}};
  }
  // Every dtype but bool (`-x`, `x - n`): a bool tensor raises, any number does not.
  if (dtypes == (kEveryDtype & ~kBool) && !t.bool_tensor) return {Totality::Kind::NeedsNonBool, operand, {}, {}};
  if ((dtypes & kFloating) != 0) return {Totality::Kind::NeedsFloating, operand, {}, {}};
  return may_raise(operand,
                   fmt::format("`{}` raises on floating-point tensors, and graphmend cannot prove `{}` a boolean or integer one",
                               ir::snippet(m, n), ir::snippet(m, operand)));
}

std::optional<Totality> with_numbers(Totality t, std::vector<ir::Node> numbers) {
  if (t.kind != Totality::Kind::MayRaise) t.numbers = std::move(numbers);
  return t;
}

std::optional<Totality> operator_totality(const ir::Module& m, TypeOracle& types, ir::Node n) {
  if (n.is(kind::unary_operator)) {
    const ir::Node operand = ir::unparenthesize(n.field(field::argument));
    if (!is_tensor(types.type_of(m, operand))) return std::nullopt;
    const std::string form = fmt::format("{}x", m.text(n.field(field::operator_)));
    const auto it = table().forms.find(form);
    if (it == table().forms.end()) return may_raise(operand, unknown_form(m, n));
    return decide(m, types, n, operand, it->second);
  }
  ir::Node l;
  ir::Node r;
  string_view op;
  if (n.is(kind::binary_operator)) {
    l = ir::unparenthesize(n.field(field::left));
    r = ir::unparenthesize(n.field(field::right));
    op = m.text(n.field(field::operator_));
  } else {  // a comparison of two operands (a chain compares tensors' truth: not an operation here)
    const std::vector<ir::Node> operands = n.named_children();
    const std::optional<string_view> comparison = ir::comparison_operator(m, n);
    if (operands.size() != 2 || !comparison) return std::nullopt;
    l = ir::unparenthesize(operands[0]);
    r = ir::unparenthesize(operands[1]);
    op = *comparison;
    // Identity never raises (`h is None`); `n in h` is looked up like any other form.
    if (op == "is" || op == "is not") return std::nullopt;
  }
  const bool left = is_tensor(types.type_of(m, l));
  const bool right = is_tensor(types.type_of(m, r));
  // Python arithmetic alone (`1.0 / count`) is no tensor operation: an exception there, while
  // Dynamo traces, is a graph break that runs the frame eagerly (the gate's `compiling()` is then
  // false and the original `if` runs), not an error.
  if (!left && !right) return std::nullopt;
  std::string form;
  std::vector<ir::Node> numbers;
  if (left && right) {
    // `h * h`: one value, so one shape; two values are shape_raises_of's broadcasting case.
    if (!l.is(kind::identifier) || !r.is(kind::identifier) || m.text(l) != m.text(r)) return std::nullopt;
    form = fmt::format("x {} x", op);
  } else {
    const ir::Node other = left ? r : l;
    if (auto problem = number_operand_problem(m, types, n, other, numbers)) return may_raise(left ? l : r, *problem);
    form = left ? fmt::format("x {} n", op) : fmt::format("n {} x", op);
  }
  const auto it = table().forms.find(form);
  if (it == table().forms.end()) return may_raise(left ? l : r, unknown_form(m, n));
  return with_numbers(decide(m, types, n, left ? l : r, it->second), std::move(numbers));
}

std::optional<Totality> call_totality(const ir::Module& m, TypeOracle& types, ir::Node n) {
  const ir::Node fn = ir::unparenthesize(n.field(field::function));
  const ir::Node args = n.field(field::arguments);
  if (!args || !args.is(kind::argument_list)) return std::nullopt;
  const std::vector<ir::Node> arguments = ir::children_without_comments(args);
  const auto splat = [](ir::Node a) { return a.is(kind::list_splat) || a.is(kind::dictionary_splat); };
  const auto q = m.qualified_name(fn);
  // The callable's name in the table, its tensor operand, and the arguments besides it.
  std::string callable;
  ir::Node operand;
  std::vector<ir::Node> rest;
  if (q && q->starts_with("torch.")) {
    for (ir::Node a : arguments) {
      const bool input = a.is(kind::keyword_argument) && m.text(a.field(field::name)) == "input";
      if (!operand && (input || (!a.is(kind::keyword_argument) && !splat(a)))) {
        operand = ir::unparenthesize(input ? a.field(field::value) : a);
      } else {
        rest.push_back(a);
      }
    }
    if (!operand || !is_tensor(types.type_of(m, operand))) return std::nullopt;
    callable = *q;
  } else if (fn.is(kind::attribute) && is_tensor(types.type_of(m, fn.field(field::object)))) {
    operand = ir::unparenthesize(fn.field(field::object));
    callable = fmt::format("Tensor.{}", m.text(fn.field(field::attribute)));
    rest = arguments;
  } else if (q && q->find('.') == std::string::npos && m.lookup_at(fn) < 0) {
    // A builtin with a tensor argument: `abs(h)` is `h.abs()`; `isinstance` cannot raise; the
    // rest (`len(h)` on a 0-d tensor, `max(h, 0)`) may.
    const auto tensor_argument = std::find_if(arguments.begin(), arguments.end(), [&](ir::Node a) {
      return is_tensor(types.type_of(m, ir::unparenthesize(a)));
    });
    if (tensor_argument == arguments.end() || *q == "isinstance") return std::nullopt;
    if (*q == "abs" && arguments.size() == 1) {
      const auto it = table().forms.find("Tensor.abs()");
      if (it != table().forms.end()) return decide(m, types, n, ir::unparenthesize(arguments[0]), it->second);
    }
    return may_raise(ir::unparenthesize(*tensor_argument), unknown_form(m, n));
  } else {
    return std::nullopt;
  }
  if (!table().callables.contains(callable)) return may_raise(operand, unknown_form(m, n));
  // Each other argument is a number parameter, by position or by name.
  const auto signature = table().signatures.find(callable);
  const std::vector<string_view> none;
  const std::vector<string_view>& positional = signature == table().signatures.end() ? none : signature->second;
  std::vector<std::pair<size_t, string_view>> passed;  // (order in the signature, name)
  std::vector<ir::Node> numbers;
  size_t position = 0;
  for (ir::Node a : rest) {
    if (splat(a)) return may_raise(operand, unknown_form(m, n));
    string_view name;
    ir::Node value;
    if (a.is(kind::keyword_argument)) {
      name = m.text(a.field(field::name));
      value = a.field(field::value);
    } else {
      if (position >= positional.size()) return may_raise(operand, unknown_form(m, n));
      name = positional[position++];
      value = a;
    }
    if (auto problem = number_operand_problem(m, types, n, value, numbers)) return may_raise(operand, *problem);
    const auto order = std::find(positional.begin(), positional.end(), name);
    passed.emplace_back(static_cast<size_t>(order - positional.begin()), name);
  }
  std::stable_sort(passed.begin(), passed.end());
  std::string form = callable + "(";
  bool first = true;
  if (!callable.starts_with("Tensor.")) {
    form += "x";
    first = false;
  }
  for (const auto& [order, name] : passed) {
    form += fmt::format("{}{}=n", first ? "" : ", ", name);
    first = false;
  }
  form += ")";
  const auto it = table().forms.find(form);
  if (it == table().forms.end()) return may_raise(operand, unknown_form(m, n));
  return with_numbers(decide(m, types, n, operand, it->second), std::move(numbers));
}

// A tensor attribute read without a call (`h.shape`, `h.mT`); a method's attribute is its call's.
std::optional<Totality> attribute_totality(const ir::Module& m, TypeOracle& types, ir::Node n) {
  const ir::Node parent = n.parent();
  if (parent && parent.is(kind::call) && ir::unparenthesize(parent.field(field::function)) == n) return std::nullopt;
  const ir::Node object = ir::unparenthesize(n.field(field::object));
  if (!is_tensor(types.type_of(m, object))) return std::nullopt;
  const auto it = table().forms.find(fmt::format("Tensor.{}", m.text(n.field(field::attribute))));
  if (it == table().forms.end()) return may_raise(object, unknown_form(m, n));
  return decide(m, types, n, object, it->second);
}

}  // namespace

std::optional<Totality> totality_of(const ir::Module& m, TypeOracle& types, ir::Node n) {
  if (n.is(kind::unary_operator) || n.is(kind::binary_operator) || n.is(kind::comparison_operator)) {
    return operator_totality(m, types, n);
  }
  if (n.is(kind::call)) return call_totality(m, types, n);
  if (n.is(kind::attribute)) return attribute_totality(m, types, n);
  return std::nullopt;
}

std::string tensor_demand(const ir::Module& m, ir::Node n, const Totality& t) {
  return fmt::format("`{}` may raise unless `{}` is a {}tensor", ir::snippet(m, n), ir::snippet(m, t.operand),
                     t.kind == Totality::Kind::NeedsFloating  ? "floating-point "
                     : t.kind == Totality::Kind::NeedsNonBool ? "non-bool "
                                                              : "");
}

std::string number_demand(const ir::Module& m, ir::Node n, ir::Node number) {
  return fmt::format("`{}` may raise unless `{}` is a Python number", ir::snippet(m, n), ir::snippet(m, number));
}

namespace {

__extension__ typedef __int128 Wide;  // wide enough for int64's bounds and a step past them

// What a Python number expression may evaluate to, as far as torch is concerned: a float (any
// value will do), an int within [lo, hi], or unknown. Ints are kept as 128-bit intervals; an
// operation whose bounds leave that range makes the value unknown.
struct NumberRange {
  enum class Kind { Float, Int, Unknown } kind = Kind::Unknown;
  Wide lo = 0, hi = 0;
  static NumberRange floating() { return {Kind::Float, 0, 0}; }
  static NumberRange exactly(Wide v) { return {Kind::Int, v, v}; }
  static NumberRange unknown() { return {}; }
};

std::optional<Wide> integer_literal_value(string_view text) {
  std::string digits;
  for (char c : text) {
    if (c != '_') digits += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  int base = 10;
  size_t at = 0;
  if (digits.size() > 1 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'o' || digits[1] == 'b')) {
    base = digits[1] == 'x' ? 16 : digits[1] == 'o' ? 8 : 2;
    at = 2;
  }
  Wide value = 0;
  for (; at < digits.size(); ++at) {
    const char c = digits[at];
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : 99;
    if (d >= base) return std::nullopt;
    if (__builtin_mul_overflow(value, base, &value) || __builtin_add_overflow(value, d, &value)) return std::nullopt;
  }
  return value;
}

NumberRange range_of(const ir::Module& m, ir::Node e, int& budget) {
  e = ir::unparenthesize(e);
  if (!e || --budget <= 0) return NumberRange::unknown();
  if (e.is(kind::float_)) return NumberRange::floating();
  if (e.is(kind::integer)) {
    const auto v = integer_literal_value(m.text(e));
    return v ? NumberRange::exactly(*v) : NumberRange::unknown();
  }
  if (e.is(kind::unary_operator)) {
    const NumberRange a = range_of(m, e.field(field::argument), budget);
    if (a.kind != NumberRange::Kind::Int || m.text(e.field(field::operator_)) != "-") return a;
    return {NumberRange::Kind::Int, -a.hi, -a.lo};
  }
  if (e.is(kind::binary_operator)) {
    const string_view op = m.text(e.field(field::operator_));
    const NumberRange a = range_of(m, e.field(field::left), budget);
    const NumberRange b = range_of(m, e.field(field::right), budget);
    if (a.kind == NumberRange::Kind::Unknown || b.kind == NumberRange::Kind::Unknown) return NumberRange::unknown();
    if (op == "/" || a.kind == NumberRange::Kind::Float || b.kind == NumberRange::Kind::Float) {
      return NumberRange::floating();
    }
    Wide c[4];
    if (op == "+" || op == "-") {
      const Wide blo = op == "+" ? b.lo : -b.hi, bhi = op == "+" ? b.hi : -b.lo;
      if (__builtin_add_overflow(a.lo, blo, &c[0]) || __builtin_add_overflow(a.hi, bhi, &c[1])) {
        return NumberRange::unknown();
      }
      return {NumberRange::Kind::Int, c[0], c[1]};
    }
    if (op == "*") {
      if (__builtin_mul_overflow(a.lo, b.lo, &c[0]) || __builtin_mul_overflow(a.lo, b.hi, &c[1]) ||
          __builtin_mul_overflow(a.hi, b.lo, &c[2]) || __builtin_mul_overflow(a.hi, b.hi, &c[3])) {
        return NumberRange::unknown();
      }
      return {NumberRange::Kind::Int, std::min({c[0], c[1], c[2], c[3]}), std::max({c[0], c[1], c[2], c[3]})};
    }
    if (op == "**" && a.lo == a.hi && b.lo == b.hi) {
      if (b.lo < 0) return NumberRange::floating();
      Wide value = 1;
      for (Wide i = 0; i < b.lo; ++i) {
        if (__builtin_mul_overflow(value, a.lo, &value)) return NumberRange::unknown();
        if (value == 0 || value == 1) break;
      }
      return NumberRange::exactly(value);
    }
    if ((op == "//" || op == "%") && a.lo == a.hi && b.lo == b.hi && b.lo != 0) {
      // Python floors; the magnitude never grows past the dividend's (or the divisor's).
      const Wide bound = std::max(a.lo < 0 ? -a.lo : a.lo, b.lo < 0 ? -b.lo : b.lo);
      return {NumberRange::Kind::Int, -bound, bound};
    }
    return NumberRange::unknown();
  }
  if (e.is(kind::call)) {
    const auto q = m.qualified_name(ir::unparenthesize(e.field(field::function)));
    return q && *q == "float" ? NumberRange::floating() : NumberRange::unknown();
  }
  if (e.is(kind::attribute)) {
    const auto q = m.qualified_name(e);
    if (q && q->starts_with("math.")) return NumberRange::floating();
    const ir::Node object = ir::unparenthesize(e.field(field::object));
    const auto info = object.is(kind::call) ? m.qualified_name(ir::unparenthesize(object.field(field::function)))
                                            : std::nullopt;
    if (info && *info == "torch.finfo" && m.text(e.field(field::attribute)) != "bits") return NumberRange::floating();
    return NumberRange::unknown();  // iinfo(torch.uint64).max is 2**64 - 1
  }
  if (e.is(kind::identifier)) {
    const std::span<const int> bindings = m.bindings_of(e);
    if (bindings.empty()) return NumberRange::unknown();
    NumberRange out;
    bool first = true;
    for (int b : bindings) {
      const ir::Binding& binding = m.bindings[static_cast<size_t>(b)];
      if (binding.kind != ir::BindingKind::Assignment || !binding.value) return NumberRange::unknown();
      const NumberRange r = range_of(m, binding.value, budget);
      if (r.kind == NumberRange::Kind::Unknown || (!first && r.kind != out.kind)) return NumberRange::unknown();
      if (first) {
        out = r;
      } else if (r.kind == NumberRange::Kind::Int) {
        out.lo = std::min(out.lo, r.lo);
        out.hi = std::max(out.hi, r.hi);
      }
      first = false;
    }
    return out;
  }
  return NumberRange::unknown();
}

}  // namespace

bool python_number_fits_torch(const ir::Module& m, ir::Node e) {
  // Only what a trace-time check cannot settle counts against it: a name of unknown value is
  // checked to be a number at trace time (numbers()), and that check holds it within int64 too.
  if (!is_python_number(m, e)) return true;
  int budget = 64;
  const NumberRange r = range_of(m, e, budget);
  if (r.kind == NumberRange::Kind::Float) return true;
  constexpr Wide kMin = -(Wide{1} << 63), kMax = (Wide{1} << 63) - 1;
  return r.kind == NumberRange::Kind::Int && r.lo >= kMin && r.hi <= kMax;
}

bool is_python_number(const ir::Module& m, ir::Node e) {
  // A worklist of expressions that must all be numbers, with a bound on the nodes looked at (a
  // name bound from itself, `n = n + 1`, would otherwise go round).
  std::vector<ir::Node> pending{e};
  for (int budget = 32; !pending.empty(); --budget) {
    if (budget == 0) return false;
    const ir::Node x = ir::unparenthesize(pending.back());
    pending.pop_back();
    if (!x) return false;
    if (x.is(kind::integer) || x.is(kind::float_)) {
      // `2j` parses as a number too: a complex one would make a real tensor complex.
      if (m.text(x).find_first_of("jJ") != string_view::npos) return false;
      continue;
    }
    if (const Arithmetic a = push_number_operands(m, x, pending); a != Arithmetic::NotAnOperator) {
      if (a == Arithmetic::Rejected) return false;
      continue;
    }
    if (x.is(kind::call)) {
      // `float("inf")`, `float(n)`, `int(n)`.
      const auto q = m.qualified_name(ir::unparenthesize(x.field(field::function)));
      const std::vector<ir::Node> args = ir::children_without_comments(x.field(field::arguments));
      if (!q || (*q != "float" && *q != "int") || m.lookup_at(ir::unparenthesize(x.field(field::function))) >= 0 ||
          args.size() != 1) {
        return false;
      }
      const ir::Node a = ir::unparenthesize(args[0]);
      if (a.is(kind::string)) {
        static const std::unordered_set<string_view> specials = {"\"inf\"", "\"-inf\"", "\"nan\"", "'inf'", "'-inf'",
                                                                 "'nan'"};
        if (*q != "float" || !specials.contains(m.text(a))) return false;
        continue;
      }
      pending.push_back(a);
      continue;
    }
    if (x.is(kind::attribute)) {
      if (const auto q = m.qualified_name(x)) {
        static const std::unordered_set<string_view> constants = {"math.inf", "math.nan", "math.pi", "math.e",
                                                                  "math.tau"};
        if (constants.contains(*q)) continue;
      }
      // `torch.finfo(dtype).max`: a number whenever the call succeeds (it is checked apart).
      static const std::unordered_set<string_view> limits = {"max", "min", "eps", "tiny", "smallest_normal",
                                                             "resolution", "bits"};
      const ir::Node object = ir::unparenthesize(x.field(field::object));
      if (!limits.contains(m.text(x.field(field::attribute))) || !object.is(kind::call)) return false;
      const auto info = m.qualified_name(ir::unparenthesize(object.field(field::function)));
      if (!info || (*info != "torch.finfo" && *info != "torch.iinfo")) return false;
      continue;
    }
    if (x.is(kind::identifier)) {
      const std::span<const int> bindings = m.bindings_of(x);
      if (bindings.empty()) return false;
      for (int b : bindings) {
        const ir::Binding& binding = m.bindings[static_cast<size_t>(b)];
        if (binding.kind != ir::BindingKind::Assignment || !binding.value) return false;
        pending.push_back(binding.value);
      }
      continue;
    }
    return false;
  }
  return true;
}

namespace {

// A numeric literal, possibly negated: its value as a double, and whether it is an int.
std::optional<std::pair<double, bool>> literal_number(const ir::Module& m, ir::Node e) {
  e = ir::unparenthesize(e);
  double sign = 1;
  while (e.is(kind::unary_operator) && (m.text(e.field(field::operator_)) == "-" || m.text(e.field(field::operator_)) == "+")) {
    if (m.text(e.field(field::operator_)) == "-") sign = -sign;
    e = ir::unparenthesize(e.field(field::argument));
  }
  if (!e.is(kind::integer) && !e.is(kind::float_)) return std::nullopt;
  std::string text;
  for (char c : m.text(e)) {
    if (c != '_') text += c;
  }
  if (text.find_first_of("jJ") != std::string::npos) return std::nullopt;
  if (e.is(kind::integer)) {
    const auto v = integer_literal_value(text);
    if (!v) return std::pair{sign * 1e300 * 1e10, true};  // beyond 128 bits: inf as a double
    return std::pair{sign * static_cast<double>(*v), true};
  }
  return std::pair{sign * std::strtod(text.c_str(), nullptr), false};
}

bool python_operation_may_raise(const ir::Module& m, TypeOracle& types, ir::Node n) {
  if (n.is(kind::call)) {
    const auto q = m.qualified_name(ir::unparenthesize(n.field(field::function)));
    if (!q) return false;
    if (q->starts_with("math.")) return true;
    if ((*q == "int" || *q == "float") && m.lookup_at(ir::unparenthesize(n.field(field::function))) < 0) {
      const std::vector<ir::Node> args = ir::children_without_comments(n.field(field::arguments));
      if (args.size() != 1) return true;
      const ir::Node a = ir::unparenthesize(args[0]);
      static const std::unordered_set<string_view> specials = {"\"inf\"", "\"-inf\"", "\"nan\"", "'inf'", "'-inf'", "'nan'"};
      if (*q == "float" && a.is(kind::string) && specials.contains(m.text(a))) return false;
      const auto v = literal_number(m, a);
      return !v || (*q == "int" && !std::isfinite(v->first));
    }
    return false;
  }
  if (!n.is(kind::binary_operator)) return false;
  const string_view op = m.text(n.field(field::operator_));
  if (op != "/" && op != "//" && op != "%" && op != "**") return false;
  const ir::Node l = n.field(field::left);
  const ir::Node r = n.field(field::right);
  if (types.type_of(m, l).tensor_like() || types.type_of(m, r).tensor_like()) return false;
  const auto a = literal_number(m, l);
  const auto b = literal_number(m, r);
  if (op != "**") {
    // By a nonzero literal: raises only for an int too large for a float (`10**400 / 3`), which
    // the left operand's own operations, checked too, would have to make.
    return !b || b->first == 0 || (a && !std::isfinite(a->first));
  }
  if (!a || !b) return true;
  if (a->first == 0 && b->first < 0) return true;  // ZeroDivisionError
  if (a->second && b->second && b->first >= 0) return false;  // ints: Python's are unbounded
  return !std::isfinite(std::pow(a->first, b->first));  // OverflowError
}

}  // namespace

ir::Node python_arithmetic_may_crash_tracing(const ir::Module& m, TypeOracle& types, ir::Node root) {
  ir::Node found;
  syntax::walk(root, [&](ir::Node n) {
    if (found) return false;
    if (n.is(kind::binary_operator) && m.text(n.field(field::operator_)) == "**") {
      // An exponent between -1 and 1 overflows only for an int base of 2**1024 or more, taken as
      // absent (sizes and counts); literals are computed; anything else may overflow.
      const auto exponent = literal_number(m, n.field(field::right));
      const bool root_like = exponent && std::fabs(exponent->first) <= 1 && !literal_number(m, n.field(field::left));
      if (!root_like && python_operation_may_raise(m, types, n)) found = n;
    } else if (n.is(kind::call)) {
      // float() of a literal too large, or of a power: float() of a name is the same assumption.
      const ir::Node callee = ir::unparenthesize(n.field(field::function));
      const std::vector<ir::Node> args = ir::children_without_comments(n.field(field::arguments));
      if (callee.is(kind::identifier) && m.text(callee) == "float" && m.lookup_at(callee) < 0 && args.size() == 1) {
        const ir::Node a = ir::unparenthesize(args[0]);
        const auto v = literal_number(m, a);
        if ((v && !std::isfinite(v->first)) ||
            (a.is(kind::binary_operator) && m.text(a.field(field::operator_)) == "**")) {
          found = n;
        }
      }
    }
    return !found;
  });
  return found;
}

ir::Node python_arithmetic_may_raise(const ir::Module& m, TypeOracle& types, ir::Node root, ir::Node skip) {
  ir::Node found;
  syntax::walk(root, [&](ir::Node n) {
    if (found || n.is(kind::lambda) || n == skip) return false;
    if (python_operation_may_raise(m, types, n)) found = n;
    return !found;
  });
  return found;
}

}  // namespace graphmend::analysis
