// Control-flow graph of one function body, with reaching definitions.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
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
  // Bindings of `symbol` that reach the start of CFG node `at`, ascending. Thread-safe.
  [[nodiscard]] std::vector<int> reaching(int at, int symbol) const;

  void map(syntax::Node n, int cfg_node) { ranges_.push_back({n.start(), n.end(), cfg_node}); }
  void index();  // sorts the mapped ranges; call once after construction
  // Groups straight-line nodes into basic blocks and indexes each block's definitions; the
  // reaching sets themselves are computed on demand (see reaching()). Call once after `gen` is set.
  void index_definitions(const Module& module);

 private:
  struct Definition {
    int symbol, position, binding;  // position: the node's index inside its basic block
  };
  // The definitions of `symbol` that reach the start of basic block `block`.
  std::shared_ptr<const std::vector<int>> block_entry(int block, int symbol) const;
  // The last definition of `symbol` in `block` before `position` (INT32_MAX: anywhere), or -1.
  [[nodiscard]] int last_definition(int block, int symbol, int position) const;

  struct MappedRange {
    uint32_t start, end;
    int cfg_node;
  };
  std::vector<MappedRange> ranges_;  // sorted by start, then wider first
  // Reaching definitions are sparse: nothing is stored per statement. A straight run of
  // statements is one basic block, whose definitions are listed once; a query searches its own
  // block, then walks predecessor blocks, and memoizes the answer per (block, symbol) along
  // single-predecessor chains. Memory is linear in the definitions plus the queries' answers.
  std::vector<int> block_of_;                           // node -> basic block
  std::vector<int> position_;                           // node -> index inside its block
  std::vector<std::vector<int>> block_preds_;           // block -> predecessor blocks
  std::vector<std::vector<Definition>> block_defs_;     // block -> sorted by (symbol, position)
  mutable std::unique_ptr<std::mutex> memo_mutex_ = std::make_unique<std::mutex>();
  mutable std::unordered_map<uint64_t, std::shared_ptr<const std::vector<int>>> memo_;  // (block, symbol)
};

}  // namespace graphmend::ir
