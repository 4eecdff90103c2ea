// Tensor-ness of parameters from the compiled calls that reach them (issue 16, item 4): an
// unannotated `forward(self, x)` or helper `def scale(v, k)` is typed by what compiled callers in
// the analysed files pass it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

// What one gathering typed for each compiled caller, kept for the next gathering over a project
// that changed in a few modules (the editor server, at each keystroke), which then types again
// only the callers whose inputs changed. Its result is the evidence gather_parameter_evidence
// finds, exactly: typing a caller is a function of its calls, of the modules its typing read (the
// code it typed, the summaries its names resolved through, as Project::ReadLog notes them) and of
// the evidence it read, and a typing is reused only where all of those are the same.
// - A module is the same when it is the same object: the memo keeps the modules of the gathering
//   that filled it alive, so that no other module can take one's address later.
// - Where the project's layout (Project::layout) changed, a name may find another module: the
//   memo starts afresh.
// - The evidence a typing read is compared by value: the evidence of every function it read.
// Thread-safe: one gathering at a time.
class EvidenceMemo {
 public:
  // The evidence of `project`, as gather_parameter_evidence(project, regions, jobs) finds it.
  // `modules` own the project's modules: the memo keeps them until the next gathering.
  ParameterEvidence gather(const Project& project, const CompileRegions& regions, unsigned jobs,
                           std::vector<std::shared_ptr<const ir::Module>> modules);

  // What the last gathering did: callers typed afresh, and typings taken from the memo.
  struct Counts {
    size_t typed = 0;
    size_t reused = 0;
  };
  [[nodiscard]] Counts last_counts() const;

  // The records as bytes, for a later run (driver/cache.h, the evidence file), with each module
  // named by `key_of`: a key that stands for its name, its text and its place (Project::place_of),
  // which make what typing reads of it (an empty key: none, and the records that name it are left
  // out). Like a summary, the bytes are compact and read without trust (analysis/field_codec.h).
  [[nodiscard]] std::string encode(const std::function<std::string_view(const ir::Module&)>& key_of) const;
  // Replaces the records with those `bytes` hold, each module found by its key with `module_of`
  // (null: not in this run, or not one module). A record that names a module not found, or a
  // function, parameter or module index that is not there, is left out; bytes that do not decode
  // whole leave no records, and a module two keys find is named by neither. A module of the same
  // key is the same text under the same name in the same place, so a record that stands is what
  // a gathering in this run would keep of that caller.
  // The indices are checked against each module's summary where `summary_of` gives one (the
  // modules a check defers are not built), else against its tables.
  using SummaryOf = std::function<const ModuleSummary&(const ir::Module&)>;
  void decode(std::string_view bytes, const std::function<const ir::Module*(std::string_view key)>& module_of,
              const SummaryOf& summary_of = nullptr);

  // One typing of a caller's calls: what it saw, and what it read.
  struct Typing {
    std::vector<std::pair<ParameterKey, ValueType>> seen;
    std::vector<FunctionRef> reads;                                  // functions whose evidence it read
    std::vector<std::pair<ParameterKey, ValueType>> evidence_read;  // their evidence then
  };
  struct Call {
    uint32_t call_index = 0;
    FunctionRef callee;
    bool receiver_bound = false;
    friend bool operator==(const Call&, const Call&) = default;
  };
  struct Caller {
    std::vector<Call> calls;
    std::vector<const ir::Module*> modules;  // read by its typings, its own and its callees' included
    std::vector<Typing> typings;             // one per round that typed it
  };

 private:
  mutable std::mutex mutex_;
  std::map<std::pair<const ir::Module*, int>, Caller> callers_;
  std::vector<std::string> layout_;
  std::vector<std::shared_ptr<const ir::Module>> modules_;
  Counts counts_;
};

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
