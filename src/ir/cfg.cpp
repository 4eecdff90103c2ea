#include "graphmend/ir/cfg.h"

#include <algorithm>

#include "graphmend/ir/module.h"

namespace graphmend::ir {

void Cfg::index() {
  std::sort(ranges_.begin(), ranges_.end(), [](const MappedRange& a, const MappedRange& b) {
    return a.start != b.start ? a.start < b.start : a.end > b.end;
  });
}

int Cfg::node_containing(syntax::Node n) const {
  // The innermost mapped range containing n: the last one (by start) that still covers it.
  const uint32_t start = n.start(), end = n.end();
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), start,
                             [](uint32_t pos, const MappedRange& r) { return pos < r.start; });
  while (it != ranges_.begin()) {
    --it;
    if (it->end >= end) return it->cfg_node;
  }
  return -1;
}

void Cfg::solve_reaching_definitions(const Module& module) {
  def_bindings_.clear();
  def_bit_.clear();
  for (const auto& node : nodes) {
    for (int b : node.gen) {
      if (!def_bit_.contains(b)) {
        def_bit_[b] = def_bindings_.size();
        def_bindings_.push_back(b);
      }
    }
  }
  const size_t words = (def_bindings_.size() + 63) / 64;
  // kill[symbol] = all defs of that symbol
  std::unordered_map<int, std::vector<uint64_t>> kill;
  for (size_t i = 0; i < def_bindings_.size(); ++i) {
    const int sym = module.bindings[static_cast<size_t>(def_bindings_[i])].symbol;
    auto& k = kill[sym];
    if (k.empty()) k.assign(words, 0);
    k[i / 64] |= uint64_t{1} << (i % 64);
  }
  std::vector<std::vector<uint64_t>> out(nodes.size(), std::vector<uint64_t>(words, 0));
  reach_in_.assign(nodes.size(), std::vector<uint64_t>(words, 0));
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t n = 0; n < nodes.size(); ++n) {
      std::vector<uint64_t> in(words, 0);
      for (int p : nodes[n].pred) {
        for (size_t w = 0; w < words; ++w) in[w] |= out[static_cast<size_t>(p)][w];
      }
      std::vector<uint64_t> o = in;
      // Defs in one node are applied in order: a later def of the same symbol wins.
      for (int b : nodes[n].gen) {
        const int sym = module.bindings[static_cast<size_t>(b)].symbol;
        const auto& k = kill[sym];
        for (size_t w = 0; w < words; ++w) o[w] &= ~k[w];
        const size_t bit = def_bit_[b];
        o[bit / 64] |= uint64_t{1} << (bit % 64);
      }
      if (in != reach_in_[n]) reach_in_[n] = std::move(in);
      if (o != out[n]) {
        out[n] = std::move(o);
        changed = true;
      }
    }
  }
}

std::vector<int> Cfg::reaching(int at, int symbol, const Module& module) const {
  std::vector<int> result;
  if (at < 0 || static_cast<size_t>(at) >= reach_in_.size()) return result;
  const auto& in = reach_in_[static_cast<size_t>(at)];
  for (size_t i = 0; i < def_bindings_.size(); ++i) {
    if (!(in[i / 64] >> (i % 64) & 1)) continue;
    if (module.bindings[static_cast<size_t>(def_bindings_[i])].symbol == symbol) {
      result.push_back(def_bindings_[i]);
    }
  }
  return result;
}

bool Cfg::reachable(int from, int to) const {
  std::vector<bool> seen(nodes.size(), false);
  std::vector<int> stack{from};
  while (!stack.empty()) {
    int n = stack.back();
    stack.pop_back();
    if (n == to) return true;
    if (seen[static_cast<size_t>(n)]) continue;
    seen[static_cast<size_t>(n)] = true;
    for (int s : nodes[static_cast<size_t>(n)].succ) stack.push_back(s);
  }
  return false;
}

}  // namespace graphmend::ir
