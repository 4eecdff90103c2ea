#include "graphmend/ir/cfg.h"

#include <algorithm>
#include <climits>
#include <cstdint>

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

void Cfg::index_definitions(const Module& module) {
  const size_t n = nodes.size();
  block_of_.assign(n, -1);
  position_.assign(n, 0);
  block_preds_.clear();
  block_defs_.clear();
  memo_.clear();
  // A node continues its predecessor's block when it is that node's only successor and that
  // node is its only predecessor.
  auto continues = [&](int node) {
    const auto& pred = nodes[static_cast<size_t>(node)].pred;
    return pred.size() == 1 && pred[0] != node && nodes[static_cast<size_t>(pred[0])].succ.size() == 1;
  };
  for (size_t head = 0; head < n; ++head) {
    if (block_of_[head] >= 0 || continues(static_cast<int>(head))) continue;
    const int block = static_cast<int>(block_preds_.size());
    block_preds_.emplace_back();
    block_defs_.emplace_back();
    int position = 0;
    for (int node = static_cast<int>(head);;) {
      block_of_[static_cast<size_t>(node)] = block;
      position_[static_cast<size_t>(node)] = position;
      for (int b : nodes[static_cast<size_t>(node)].gen) {
        block_defs_.back().push_back({module.bindings[static_cast<size_t>(b)].symbol, position, b});
      }
      ++position;
      const auto& succ = nodes[static_cast<size_t>(node)].succ;
      if (succ.size() != 1 || !continues(succ[0]) || block_of_[static_cast<size_t>(succ[0])] >= 0) break;
      node = succ[0];
    }
  }
  // A node on a cycle of single-successor nodes has no head above; it starts its own block.
  for (size_t node = 0; node < n; ++node) {
    if (block_of_[node] >= 0) continue;
    block_of_[node] = static_cast<int>(block_preds_.size());
    block_preds_.emplace_back();
    block_defs_.emplace_back();
    for (int b : nodes[node].gen) block_defs_.back().push_back({module.bindings[static_cast<size_t>(b)].symbol, 0, b});
  }
  for (size_t node = 0; node < n; ++node) {
    if (position_[node] != 0) continue;  // inside a block: its predecessor is in the block
    auto& preds = block_preds_[static_cast<size_t>(block_of_[node])];
    for (int p : nodes[node].pred) preds.push_back(block_of_[static_cast<size_t>(p)]);
    std::sort(preds.begin(), preds.end());
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
  }
  // Within a node, a later definition of the same symbol wins: the sort is stable.
  for (auto& defs : block_defs_) {
    std::stable_sort(defs.begin(), defs.end(), [](const Definition& a, const Definition& b) {
      return a.symbol != b.symbol ? a.symbol < b.symbol : a.position < b.position;
    });
  }
}

int Cfg::last_definition(int block, int symbol, int position) const {
  const auto& defs = block_defs_[static_cast<size_t>(block)];
  // The first definition at or after (symbol, position); the one before it is the answer.
  auto it = std::lower_bound(defs.begin(), defs.end(), std::pair{symbol, position},
                             [](const Definition& d, const std::pair<int, int>& key) {
                               return d.symbol != key.first ? d.symbol < key.first : d.position < key.second;
                             });
  if (it == defs.begin()) return -1;
  --it;
  return it->symbol == symbol ? it->binding : -1;
}

std::shared_ptr<const std::vector<int>> Cfg::block_entry(int block, int symbol) const {
  constexpr int kAnywhere = INT32_MAX;
  auto key = [symbol](int b) { return static_cast<uint64_t>(static_cast<uint32_t>(b)) << 32 | static_cast<uint32_t>(symbol); };
  // Walk up the single-predecessor chain: every block on it has the same entry set.
  std::vector<int> chain;
  std::shared_ptr<const std::vector<int>> answer;
  for (int cur = block; !answer;) {
    if (auto it = memo_.find(key(cur)); it != memo_.end()) {
      answer = it->second;
      break;
    }
    chain.push_back(cur);
    const auto& preds = block_preds_[static_cast<size_t>(cur)];
    if (preds.size() == 1 && preds[0] != cur) {
      if (const int def = last_definition(preds[0], symbol, kAnywhere); def >= 0) {
        answer = std::make_shared<const std::vector<int>>(std::vector<int>{def});
      } else {
        cur = preds[0];
      }
      continue;
    }
    // A join (or the entry): the definitions with a definition-free path to `cur`, found by a
    // backward search that stops at each block defining the symbol.
    std::vector<int> found;
    std::vector<char> seen(block_preds_.size(), 0);
    std::vector<int> stack(preds.begin(), preds.end());
    while (!stack.empty()) {
      const int b = stack.back();
      stack.pop_back();
      if (seen[static_cast<size_t>(b)]) continue;
      seen[static_cast<size_t>(b)] = 1;
      if (const int def = last_definition(b, symbol, kAnywhere); def >= 0) {
        found.push_back(def);
      } else if (auto it = memo_.find(key(b)); it != memo_.end()) {
        found.insert(found.end(), it->second->begin(), it->second->end());
      } else {
        for (int p : block_preds_[static_cast<size_t>(b)]) stack.push_back(p);
      }
    }
    std::sort(found.begin(), found.end());
    found.erase(std::unique(found.begin(), found.end()), found.end());
    answer = std::make_shared<const std::vector<int>>(std::move(found));
  }
  for (int b : chain) memo_.emplace(key(b), answer);
  return answer;
}

std::vector<int> Cfg::reaching(int at, int symbol) const {
  if (at < 0 || static_cast<size_t>(at) >= block_of_.size()) return {};
  const int block = block_of_[static_cast<size_t>(at)];
  if (const int def = last_definition(block, symbol, position_[static_cast<size_t>(at)]); def >= 0) return {def};
  const std::lock_guard lock(*memo_mutex_);
  return *block_entry(block, symbol);
}

}  // namespace graphmend::ir
