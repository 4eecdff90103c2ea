// Tensor-ness of parameters from the compiled calls that reach them (issue 16, item 4): an
// unannotated `forward(self, x)` or helper `def scale(v, k)` is typed by what compiled callers in
// the analysed files pass it.
#pragma once


#include "graphmend/analysis/compile_regions.h"
#include "graphmend/analysis/tensor_types.h"

namespace graphmend::analysis {

// A parameter is a LikelyTensor when some compiled call passes it a tensor (proven or likely),
// and a TensorTuple when some call passes a tuple or list of tensors and none passes a tensor.
// Dynamo traces each of those calls with that value, so a branch on it breaks there. Evidence
// flows along chains of calls: gathered again with what was found until nothing changes (at most
// a few rounds). The first round types every compiled call's arguments; a later one only the
// calls of the compiled functions whose types read evidence the round before changed (the rest
// would be typed the same). Up to `jobs` threads, with the same result for any number of them.
ParameterEvidence gather_parameter_evidence(const Project& project, const CompileRegions& regions,
                                            unsigned jobs = 1);

// A module of the project that fixes replaced, and the function of its replacement that stands
// for each of its functions (-1: none).
struct ReplacedModule {
  const ir::Module* before = nullptr;  // compared as a key only: it may be gone
  const ir::Module* after = nullptr;   // null: the module left the analysis, and its evidence too
  std::vector<int> counterparts;       // by function index of `before`
};

// Pairs a module with the module a fix made of it: a function's counterpart is the function of
// the same qualified name and parameters, and the same rank among functions of that name, where
// both define that name equally often.
ReplacedModule replaced_module(const ir::Module& before, const ir::Module& after);

// The evidence of a project in which fixes replaced some modules, without gathering it again.
// A fix keeps every call and the expressions of its arguments (it moves statements, computes
// branches on every path and adds helpers of its own), and the evidence is flow-insensitive:
// "some compiled call passes a tensor". So each key of a replaced module moves to its function's
// counterpart, or is dropped when there is none. Keys of other modules stay as they are.
ParameterEvidence carry_evidence(const ParameterEvidence& evidence, const std::vector<ReplacedModule>& replaced);

}  // namespace graphmend::analysis
