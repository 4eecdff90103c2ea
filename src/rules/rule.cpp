#include "graphmend/rules/rule.h"

#include <algorithm>

namespace graphmend::rules {

void check_file(const RuleContext& ctx, std::span<const Rule* const> rules, DiagnosticSink& sink) {
  const std::vector<int> functions = ctx.compiled_functions();
  if (functions.empty() || rules.empty()) return;
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
  for (const Rule* rule : rules) passes.push_back(rule->start(ctx, sink));
  std::vector<uint32_t> skip_until(rules.size());  // a rule's pruned subtree ends here
  for (int fi : functions) {
    std::fill(skip_until.begin(), skip_until.end(), 0u);
    const ir::Function& fn = ctx.module.functions[static_cast<size_t>(fi)];
    const auto* region = ctx.regions.find(ctx.module, fi);
    sink.enter_function(fn.qualname, region ? std::string_view(region->reason) : std::string_view());
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
}

}  // namespace graphmend::rules
