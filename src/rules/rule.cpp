#include "graphmend/rules/rule.h"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "graphmend/source/text.h"

namespace graphmend::rules {
namespace {

// The statement of the site's own function whose body holds the site and that `holds` accepts
// (a loop, a `try`). A `for`'s iterable, a `while`'s test (Dynamo resumes at the loop's head:
// measured), an `else`, a `try`'s handlers and `finally` are not its body. Nested functions,
// lambdas and comprehensions are frames of their own and end the search.
template <typename Holds>
std::optional<ir::Node> enclosing_body_of(const ir::Module& m, source::TextRange site, Holds holds) {
  ir::Node n = m.root().named_descendant_for_range(site.start, site.end);
  for (ir::Node child = n; n; child = n, n = n.parent()) {
    if (n.is(kind::function_definition) || n.is(kind::lambda) || n.is(kind::class_definition) ||
        n.is(kind::list_comprehension) || n.is(kind::set_comprehension) || n.is(kind::dictionary_comprehension) ||
        n.is(kind::generator_expression)) {
      return std::nullopt;
    }
    if (holds(n) && child == n.field(field::body)) return n;
  }
  return std::nullopt;
}

bool is_loop(ir::Node n) { return n.is(kind::for_statement) || n.is(kind::while_statement); }
bool is_try(ir::Node n) { return n.is(kind::try_statement); }

std::optional<ir::Node> enclosing_loop(const ir::Module& m, source::TextRange site) {
  return enclosing_body_of(m, site, is_loop);
}

// The first statement, in source order, of `function` whose body (as enclosing_body_of reads it)
// holds one of `found`'s breaks; null when none does.
template <typename Holds>
ir::Node first_holding_a_break(const ir::Module& m, std::span<const Diagnostic> found, int function, Holds holds) {
  ir::Node first;
  for (const Diagnostic& d : found) {
    if (!d.graph_break || d.function_index != function || d.consequence) continue;
    const std::optional<ir::Node> statement = enclosing_body_of(m, d.range, holds);
    if (statement && (!first || statement->start() < first.start())) first = *statement;
  }
  return first;
}

// Dynamo cannot resume after a break inside a loop: it gives up the whole frame and runs the
// function's own code eagerly, every graph of it lost; only the functions it calls are compiled,
// each as a frame of its own (measured on torch 2.13, one kind of break after another:
// tests/e2e/test_breaks_in_loops.py). Nor inside the body of a `try` (Python 3.11: Dynamo logs
// "Failed to handle graph break gracefully. Skipping the function", with no break id of its own).
// The site's message says so, with the loop's or the `try`'s line.
void note_breaks_in_loops(const ir::Module& m, std::vector<Diagnostic>& diagnostics) {
  std::optional<source::LineIndex> lines;
  for (Diagnostic& d : diagnostics) {
    if (!d.graph_break || d.function.empty() || d.consequence) continue;
    if (const std::optional<ir::Node> loop = enclosing_loop(m, d.range)) {
      if (!lines) lines.emplace(m.text());
      d.message += fmt::format("; in the loop at line {} this makes Dynamo skip `{}`: its own code runs eagerly ({})",
                               lines->line_of(loop->start()), d.function, cite(GraphBreak::GraphBreakInLoop));
    } else if (const std::optional<ir::Node> in_try = enclosing_body_of(m, d.range, is_try)) {
      if (!lines) lines.emplace(m.text());
      d.message += fmt::format(
          "; in the body of the `try` at line {} Dynamo cannot resume, and skips `{}`: its own code runs eagerly",
          lines->line_of(in_try->start()), d.function);
    }
  }
}

}  // namespace

ir::Node try_that_skips(const ir::Module& m, std::span<const Diagnostic> found, int function) {
  return first_holding_a_break(m, found, function, is_try);
}

ir::Node loop_that_skips(const ir::Module& m, std::span<const Diagnostic> found, int function) {
  return first_holding_a_break(m, found, function, is_loop);
}

ir::Node try_around_wrapped_call(const RuleContext& ctx, int function) {
  if (ctx.regions.wrapped_by({&ctx.module, function}).empty()) return {};
  return try_around_outer_parameter_call(ctx.module, function);
}

ir::Node try_around_outer_parameter_call(const ir::Module& m, int function) {
  const ir::Function& fn = m.functions[static_cast<size_t>(function)];
  ir::Node found;
  walk_body(fn, [&](ir::Node n) {
    if (found) return false;
    if (!n.is(kind::try_statement)) return true;
    syntax::walk(n.field(field::body), [&](ir::Node c) {
      if (found || c.is(kind::function_definition) || c.is(kind::lambda)) return false;
      if (!c.is(kind::call)) return true;
      const ir::Node callee = ir::unparenthesize(c.field(field::function));
      const int symbol = callee.is(kind::identifier) ? m.lookup_at(callee) : -1;
      if (symbol < 0) return true;
      const ir::Symbol& s = m.symbols[static_cast<size_t>(symbol)];
      const int owner = m.scopes[static_cast<size_t>(s.scope)].function;
      // The decorator's own parameter, not one of a factory around it (`def hooked(hook)`).
      if (owner >= 0 && owner == fn.enclosing_function && m.bound_only_by(s, {ir::BindingKind::Parameter})) {
        found = n;
      }
      return !found;
    });
    return !found;
  });
  return found;
}

void report_in_function(const RuleContext& ctx, DiagnosticSink& sink, int function, Diagnostic d) {
  const ir::Function& fn = ctx.module.functions[static_cast<size_t>(function)];
  const auto* region = ctx.regions.find(ctx.module, function);
  sink.enter_function(function, fn.qualname, region ? std::string_view(region->reason) : std::string_view());
  sink.report(std::move(d));
}

void check_file(const RuleContext& ctx, std::span<const Rule* const> selected, DiagnosticSink& sink,
                std::span<const Rule* const> unselected, rewrite::SiteNamer* unselected_names) {
  const std::vector<int> functions = ctx.compiled_functions();
  if (functions.empty() || selected.empty()) return;
  std::vector<const Rule*> rules(selected.begin(), selected.end());
  rules.insert(rules.end(), unselected.begin(), unselected.end());
  const RuleContext unselected_ctx{static_cast<const analysis::FileContext&>(ctx),
                                   unselected_names ? *unselected_names : ctx.names};
  // Which rules want each grammar symbol: a node costs one lookup, whatever the rule count.
  std::vector<std::vector<size_t>> by_symbol;
  for (size_t r = 0; r < rules.size(); ++r) {
    for (const syntax::Kind* k : rules[r]->kinds()) {
      for (uint16_t symbol : k->symbols()) {
        if (symbol >= by_symbol.size()) by_symbol.resize(symbol + 1u);
        if (std::find(by_symbol[symbol].begin(), by_symbol[symbol].end(), r) == by_symbol[symbol].end()) {
          by_symbol[symbol].push_back(r);
        }
      }
    }
  }
  std::vector<std::unique_ptr<FilePass>> passes;
  passes.reserve(rules.size());
  for (size_t r = 0; r < rules.size(); ++r) {
    passes.push_back(rules[r]->start(r < selected.size() ? ctx : unselected_ctx, sink));
  }
  std::vector<uint32_t> skip_until(rules.size());  // a rule's pruned subtree ends here
  for (int fi : functions) {
    std::fill(skip_until.begin(), skip_until.end(), 0u);
    const ir::Function& fn = ctx.module.functions[static_cast<size_t>(fi)];
    const auto* region = ctx.regions.find(ctx.module, fi);
    sink.enter_function(fi, fn.qualname, region ? std::string_view(region->reason) : std::string_view());
    walk_body(fn, [&](ir::Node n) {
      const uint16_t symbol = n.symbol();
      if (symbol >= by_symbol.size()) return true;
      for (size_t r : by_symbol[symbol]) {
        if (n.start() < skip_until[r]) continue;
        if (!passes[r]->on_node(n)) skip_until[r] = n.end();
      }
      return true;
    });
  }
  for (auto& pass : passes) pass->finish(sink.diagnostics());
  note_breaks_in_loops(ctx.module, sink.diagnostics());
}

}  // namespace graphmend::rules
