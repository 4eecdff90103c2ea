// Control-flow graph of one function body, with reaching definitions.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "graphmend/syntax/tree.h"

namespace graphmend::ir {

class Module;

enum class CfgKind {
  Entry,
  Exit,
  Statement,  // a simple statement
  Condition,  // if/elif/while condition, match subject, case pattern
  LoopHeader, // for-loop target binding (iterable evaluated here too)
  WithItem,
  Handler,    // except clause (binds `as` name)
  Definition, // nested def / class statement (binds its name)
};

struct CfgNode {
  CfgKind kind = CfgKind::Statement;
  syntax::Node node;
  std::vector<int> succ;
  std::vector<int> pred;
  std::vector<int> gen;  // Module::bindings indices defined here (function-local symbols)
};

class Cfg {
 public:
  std::vector<CfgNode> nodes;
  int entry = -1;
  int exit = -1;

  // The CFG node that evaluates `n` (walks up to the nearest mapped ancestor), or -1.
  [[nodiscard]] int node_containing(syntax::Node n) const;
  // Bindings of `symbol` that reach the start of CFG node `at`.
  [[nodiscard]] std::vector<int> reaching(int at, int symbol, const Module& module) const;
  // True if some path from `from` reaches `to`.
  [[nodiscard]] bool reachable(int from, int to) const;

  void map(syntax::Node n, int cfg_node) { ranges_.push_back({n.start(), n.end(), cfg_node}); }
  void index();  // sorts the mapped ranges; call once after construction
  void solve_reaching_definitions(const Module& module);

 private:
  struct MappedRange {
    uint32_t start, end;
    int cfg_node;
  };
  std::vector<MappedRange> ranges_;  // sorted by start, then wider first
  std::vector<int> def_bindings_;                 // bit i <-> binding def_bindings_[i]
  std::unordered_map<int, size_t> def_bit_;       // binding -> bit
  std::vector<std::vector<uint64_t>> reach_in_;   // per node
};

}  // namespace graphmend::ir
