#include "graphmend/analysis/call_evidence.h"

#include <algorithm>
#include <exception>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

namespace graphmend::analysis {
namespace {

constexpr int kMaxRounds = 4;  // call chains deeper than this add no evidence past it
// Below this many calls per thread, starting a thread costs more than it saves.
constexpr size_t kMinCallsPerChunk = 512;

using Observation = std::pair<ParameterKey, ValueType>;

// What one compiled call tells about its callee's parameters: a tensor, a tensor or None, or a
// tuple of tensors.
void observe(const CompiledCall& c, TypeOracle& types, std::vector<Observation>& out) {
  for_each_argument(types.project(), *c.caller.module, c.call_node(), c.callee, c.receiver_bound, [&](int parameter, ir::Node argument) {
    const ValueType t = types.type_of(*c.caller.module, argument);
    ValueType seen;
    if (t.tensor_like()) {
      seen = ValueType{ValueKind::LikelyTensor, false};
    } else if (t.kind == ValueKind::TensorTuple || t.kind == ValueKind::OptionalTensor) {
      seen = ValueType{t.kind, false};
    } else {
      return;
    }
    out.emplace_back(ParameterKey{c.callee.module, c.callee.function, parameter}, seen);
  });
}

}  // namespace

ParameterEvidence gather_parameter_evidence(const Project& project, const CompileRegions& regions, unsigned jobs) {
  const std::vector<CompiledCall>& calls = regions.calls();
  // The calls of each compiled function, typed together by a fresh oracle of their own: what
  // their types depend on, of the evidence, is then exactly what that oracle read. A round types
  // again only the functions whose reads changed in the round before; the others' observations
  // stand, as typing them again would give the same.
  struct Caller {
    std::vector<size_t> calls;
    std::vector<Observation> seen;
    std::vector<FunctionRef> reads;
    bool stale = true;
  };
  std::vector<Caller> callers;
  {
    std::map<std::pair<const ir::Module*, int>, size_t> index;  // first appearance in calls()
    for (size_t i = 0; i < calls.size(); ++i) {
      const auto [it, added] = index.emplace(std::pair{calls[i].caller.module, calls[i].caller.function}, callers.size());
      if (added) callers.emplace_back();
      callers[it->second].calls.push_back(i);
    }
  }
  ParameterEvidence evidence;
  for (int round = 0; round < kMaxRounds; ++round) {
    std::vector<Caller*> todo;
    size_t todo_calls = 0;
    for (Caller& c : callers) {
      if (!c.stale) continue;
      todo.push_back(&c);
      todo_calls += c.calls.size();
    }
    // Each chunk of callers is typed on its own thread; the observations are merged in caller
    // order, and the merge keeps the strongest kind seen for each key whatever the order, so the
    // result is the same for any number of chunks.
    const size_t chunks = std::clamp<size_t>(jobs, 1, std::max<size_t>(1, todo_calls / kMinCallsPerChunk));
    std::vector<std::exception_ptr> failures(chunks);
    const auto observe_chunk = [&](size_t k) {
      try {
        const size_t begin = todo.size() * k / chunks, end = todo.size() * (k + 1) / chunks;
        for (size_t t = begin; t < end; ++t) {
          Caller& c = *todo[t];
          c.seen.clear();
          c.reads.clear();
          TypeOracle types(project, &evidence);
          types.record_evidence_reads(&c.reads);
          for (size_t i : c.calls) observe(calls[i], types, c.seen);
          std::sort(c.reads.begin(), c.reads.end(), [](const FunctionRef& a, const FunctionRef& b) {
            return std::pair{a.module, a.function} < std::pair{b.module, b.function};
          });
          c.reads.erase(std::unique(c.reads.begin(), c.reads.end()), c.reads.end());
        }
      } catch (...) {
        failures[k] = std::current_exception();
      }
    };
    {
      std::vector<std::jthread> threads;
      for (size_t k = 1; k < chunks; ++k) threads.emplace_back(observe_chunk, k);
      observe_chunk(0);
    }
    for (const std::exception_ptr& e : failures) {
      if (e) std::rethrow_exception(e);
    }
    ParameterEvidence found = evidence;
    for (const Caller& c : callers) {
      for (const auto& [key, type] : c.seen) {
        auto [it, inserted] = found.emplace(key, type);
        // A tensor passed anywhere outweighs a tuple of tensors passed elsewhere; either outweighs
        // a tensor or None.
        if (!inserted && ((it->second.kind == ValueKind::TensorTuple && type.kind == ValueKind::LikelyTensor) ||
                          (it->second.kind == ValueKind::OptionalTensor && type.kind != ValueKind::OptionalTensor))) {
          it->second = type;
        }
      }
    }
    if (found == evidence) break;
    // Keys are only ever added or strengthened: the functions whose evidence changed.
    std::set<std::pair<const ir::Module*, int>> changed;
    for (const auto& [key, type] : found) {
      const auto before = evidence.find(key);
      if (before == evidence.end() || !(before->second == type)) changed.emplace(key.module, key.function);
    }
    for (Caller& c : callers) {
      c.stale = std::any_of(c.reads.begin(), c.reads.end(),
                            [&](const FunctionRef& f) { return changed.contains({f.module, f.function}); });
    }
    evidence = std::move(found);
  }
  return evidence;
}

ReplacedModule replaced_module(const ir::Module& before, const ir::Module& after) {
  const auto by_name = [](const ir::Module& m) {
    std::unordered_map<std::string_view, std::vector<int>> out;
    for (size_t f = 0; f < m.functions.size(); ++f) out[m.functions[f].qualname].push_back(static_cast<int>(f));
    return out;
  };
  const auto before_by_name = by_name(before);
  const auto after_by_name = by_name(after);
  ReplacedModule r{&before, &after, std::vector<int>(before.functions.size(), -1)};
  for (const auto& [name, old_functions] : before_by_name) {
    const auto it = after_by_name.find(name);
    if (it == after_by_name.end() || it->second.size() != old_functions.size()) continue;
    for (size_t k = 0; k < old_functions.size(); ++k) {
      const auto& old_params = before.functions[static_cast<size_t>(old_functions[k])].params;
      const auto& new_params = after.functions[static_cast<size_t>(it->second[k])].params;
      const bool same = std::equal(old_params.begin(), old_params.end(), new_params.begin(), new_params.end(),
                                   [](const ir::Parameter& a, const ir::Parameter& b) {
                                     return a.name == b.name && a.kind == b.kind;
                                   });
      if (same) r.counterparts[static_cast<size_t>(old_functions[k])] = it->second[k];
    }
  }
  return r;
}

ParameterEvidence carry_evidence(const ParameterEvidence& evidence, const std::vector<ReplacedModule>& replaced) {
  std::unordered_map<const ir::Module*, const ReplacedModule*> by_before;
  for (const ReplacedModule& r : replaced) by_before[r.before] = &r;
  ParameterEvidence out;
  for (const auto& [key, type] : evidence) {
    const auto it = by_before.find(key.module);
    if (it == by_before.end()) {
      out.emplace(key, type);
      continue;
    }
    const ReplacedModule& r = *it->second;
    const int f = r.after ? r.counterparts[static_cast<size_t>(key.function)] : -1;
    if (f >= 0) out.emplace(ParameterKey{r.after, f, key.parameter}, type);
  }
  return out;
}

}  // namespace graphmend::analysis
