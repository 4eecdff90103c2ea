#include "graphmend/rules/buffer_reassignment.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "graphmend/analysis/self_stores.h"
#include "graphmend/rules/conditions.h"
#include "graphmend/source/text.h"

namespace graphmend::rules {

namespace {

// Tensor methods that return the tensor itself when they have nothing to change (the device and
// dtype are already the asked ones, the memory is already contiguous). Each is measured on torch
// 2.13 in tests/e2e/programs/buffer_reassignment.py; `.detach()`, `.clone()` and views return a new
// tensor object and do not break.
constexpr std::array<std::string_view, 10> kMayReturnSelf = {"bfloat16", "contiguous", "cpu",  "double", "float",
                                                             "half",     "long",       "to",   "type",   "type_as"};

// The `self.<name>` the value may hand back unchanged: the receiver of one of those methods, or
// the tensor of `torch.as_tensor(t, ...)`. Null when it is neither.
ir::Node buffer_handed_back(const ir::Module& m, ir::Node value) {
  if (!value.is(kind::call)) return {};
  const ir::Node fn = ir::unparenthesize(value.field(field::function));
  ir::Node source;
  if (fn.is(kind::attribute) &&
      std::ranges::find(kMayReturnSelf, m.text(fn.field(field::attribute))) != kMayReturnSelf.end()) {
    source = ir::unparenthesize(fn.field(field::object));
  } else if (callee_name(m, value) == "torch.as_tensor") {
    const std::vector<ir::Node> args = ir::children_without_comments(value.field(field::arguments));
    if (!args.empty() && !args.front().is(kind::keyword_argument)) source = ir::unparenthesize(args.front());
  }
  if (!source || !source.is(kind::attribute)) return {};
  // `copy=True` always makes a new tensor (measured).
  for (const ir::Node arg : ir::children_without_comments(value.field(field::arguments))) {
    if (arg.is(kind::keyword_argument) && m.text(arg.field(field::name)) == "copy" &&
        m.text(arg.field(field::value)) != "False") {
      return {};
    }
  }
  const ir::Node object = source.field(field::object);
  return object.is(kind::identifier) && m.text(object) == "self" ? source : ir::Node{};
}

bool makes_a_buffer(const ir::Module& m, ir::Node value) {
  value = ir::unparenthesize(value);
  if (!value.is(kind::call)) return false;
  const std::optional<std::string> callee = callee_name(m, value);
  return callee == "torch.nn.Buffer" || callee == "torch.nn.parameter.Buffer";
}

// True when `condition` compares the buffer's device or dtype (`self.b.dtype != x.dtype`) with
// one of `operators`.
bool compares_device_or_dtype(const ir::Module& m, ir::Node condition, std::string_view buffer,
                              std::initializer_list<std::string_view> operators) {
  bool compares = false;
  syntax::walk(condition, [&](ir::Node c) {
    if (compares) return false;
    const std::optional<std::string_view> op = ir::comparison_operator(m, c);
    if (!op || std::find(operators.begin(), operators.end(), *op) == operators.end()) return true;
    for (ir::Node side : c.named_children()) {
      side = ir::unparenthesize(side);
      if (side.is(kind::attribute) && m.text(ir::unparenthesize(side.field(field::object))) == buffer) {
        const std::string_view what = m.text(side.field(field::attribute));
        compares = compares || what == "device" || what == "dtype";
      }
    }
    return false;
  });
  return compares;
}

// True when an `if` around `store` (in its function) runs it only where the buffer's device or
// dtype differs from the one asked (`if self.b.device != x.device:`, ESMFold; the `else` of an
// `if self.b.dtype == x.dtype:`): the conversion then makes a new tensor, which
// Module.__setattr__ stores without a break (measured).
bool converted_only_when_it_differs(const ir::Module& m, ir::Node store, ir::Node buffer) {
  const std::string_view buffer_text = m.text(buffer);
  for (ir::Node child = store, n = store.parent(); n && !n.is(kind::function_definition); child = n, n = n.parent()) {
    if ((n.is(kind::if_statement) || n.is(kind::elif_clause)) && child == n.field(field::consequence) &&
        compares_device_or_dtype(m, n.field(field::condition), buffer_text, {"!=", "is not"})) {
      return true;
    }
    if (n.is(kind::else_clause) && n.parent().is(kind::if_statement) &&
        n.parent().children_by_field(field::alternative).size() == 1 &&
        compares_device_or_dtype(m, n.parent().field(field::condition), buffer_text, {"==", "is"})) {
      return true;
    }
  }
  return false;
}

}  // namespace

const RuleInfo& BufferReassignmentRule::info() const {
  static const RuleInfo kInfo{"GM416", "buffer-reassignment",
                              "a buffer made with `nn.Buffer` stored back into its module in compiled code "
                              "(`self.b = self.b.to(x.dtype)`) splits the graph",
                              GraphBreak::PythonTypeCall, RuleFamily::Report, FixAvailability::None};
  return kInfo;
}

std::span<const syntax::Kind* const> BufferReassignmentRule::kinds() const {
  static const std::array<const syntax::Kind*, 1> kKinds{&kind::assignment};
  return kKinds;
}

std::unique_ptr<FilePass> BufferReassignmentRule::start(const RuleContext& ctx, DiagnosticSink& sink) const {
  // Per class (by its node): where each attribute is made from `nn.Buffer(...)`, in the class's
  // methods or its analysed bases'; the lines of the modules named so far.
  using BufferLines = std::unordered_map<std::string, std::pair<const ir::Module*, ir::Node>>;
  return file_pass([this, &ctx, &sink, &m = ctx.module, made = std::unordered_map<const void*, BufferLines>{},
                     lines = std::unordered_map<const ir::Module*, source::LineIndex>{}](ir::Node n) mutable {
    const ir::Node target = ir::unparenthesize(n.field(field::left));
    if (!target.is(kind::attribute) || !target.field(field::object).is(kind::identifier) ||
        m.text(target.field(field::object)) != "self") {
      return true;
    }
    const ir::Node value = ir::unparenthesize(n.field(field::right));
    const ir::Node source = value ? buffer_handed_back(m, value) : ir::Node{};
    if (!source || converted_only_when_it_differs(m, n, source)) return true;
    const int function = m.function_of(n);
    if (function < 0) return true;
    const ir::Function& fn = m.functions[static_cast<size_t>(function)];
    if (fn.klass < 0 || fn.params.empty() || fn.params.front().name != "self") return true;
    const analysis::ClassRef cls{&m, fn.klass};
    if (!ctx.regions.is_nn_module(cls)) return true;

    const ir::Class& k = m.classes[static_cast<size_t>(fn.klass)];
    auto [it, fresh] = made.try_emplace(k.node.id());
    if (fresh) {
      // The most derived class that defines the attribute decides (a subclass may register it
      // again from a plain tensor); a conversion stored back defines nothing.
      std::vector<analysis::ClassRef> classes{cls};
      for (const analysis::ClassRef b : ctx.project.bases_of(cls)) classes.push_back(b);
      std::unordered_set<std::string> decided;
      for (const analysis::ClassRef c : classes) {
        const ir::Module& cm = *c.module;
        cm.ensure_built();
        std::unordered_set<std::string> defined_here;
        for (const auto& [name, stores] : analysis::index_self_stores(cm, cm.classes[static_cast<size_t>(c.klass)])) {
          if (decided.contains(name)) continue;
          for (const analysis::SelfStore& store : stores) {
            if (buffer_handed_back(cm, ir::unparenthesize(store.value))) continue;
            defined_here.insert(name);
            if (!makes_a_buffer(cm, store.value)) continue;
            // The first in the file, whatever order the methods are indexed in.
            auto [at, added] = it->second.try_emplace(name, &cm, store.value);
            if (!added && store.value.start() < at->second.second.start()) at->second.second = store.value;
          }
        }
        decided.insert(defined_here.begin(), defined_here.end());
      }
    }
    const std::string_view name = m.text(source.field(field::attribute));
    const auto buffer = it->second.find(std::string(name));
    if (buffer == it->second.end()) return true;
    const auto& [made_in, made_at] = buffer->second;
    const uint32_t line = lines.try_emplace(made_in, made_in->text()).first->second.line_of(made_at.start());
    const std::string where =
        made_in == &m ? fmt::format("line {}", line) : fmt::format("{}:{}", made_in->module_name(), line);
    const std::string converted = ir::snippet(m, value);
    sink.report(make_diagnostic(
        info(), n,
        fmt::format("`{}` is an `nn.Buffer` ({}); `{}` returns it unchanged when it is already of that device "
                    "and dtype, and storing a Buffer on the module re-registers it, where Dynamo cannot read its "
                    "`persistent` flag: the graph is split here ({})",
                    m.text(source), where, converted, cite(GraphBreak::PythonTypeCall)),
        fmt::format("keep the converted tensor in a local and use that, or make the buffer from a plain tensor "
                    "(`self.register_buffer(\"{}\", tensor, persistent=...)`): only a tensor made with "
                    "`nn.Buffer` carries the flag",
                    name)));
    return true;
  });
}

}  // namespace graphmend::rules
