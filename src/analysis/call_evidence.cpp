#include "graphmend/analysis/call_evidence.h"

#include <algorithm>
#include <exception>
#include <limits>
#include <optional>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
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

// The evidence of function `f`'s parameters: a run of the map, in key order.
struct EvidenceRun {
  ParameterEvidence::const_iterator first, last;
  [[nodiscard]] ParameterEvidence::const_iterator begin() const { return first; }
  [[nodiscard]] ParameterEvidence::const_iterator end() const { return last; }
};
EvidenceRun evidence_of(const ParameterEvidence& evidence, const FunctionRef& f) {
  const auto first = evidence.lower_bound(ParameterKey{f.module, f.function, std::numeric_limits<int>::min()});
  auto last = first;
  while (last != evidence.end() && last->first.module == f.module && last->first.function == f.function) ++last;
  return {first, last};
}

// The evidence of the functions `reads` (sorted), in key order.
std::vector<Observation> evidence_of(const ParameterEvidence& evidence, const std::vector<FunctionRef>& reads) {
  std::vector<Observation> out;
  for (const FunctionRef& f : reads) {
    const auto run = evidence_of(evidence, f);
    out.insert(out.end(), run.begin(), run.end());
  }
  return out;
}

// True when `evidence` holds for the functions a typing read what it held then (evidence_of,
// without a copy).
bool reads_as_now(const EvidenceMemo::Typing& typing, const ParameterEvidence& evidence) {
  auto expected = typing.evidence_read.begin();
  for (const FunctionRef& f : typing.reads) {
    for (const auto& [key, type] : evidence_of(evidence, f)) {
      if (expected == typing.evidence_read.end() || !(expected->first == key && expected->second == type)) return false;
      ++expected;
    }
  }
  return expected == typing.evidence_read.end();
}

bool by_address(const FunctionRef& a, const FunctionRef& b) {
  return std::pair{a.module, a.function} < std::pair{b.module, b.function};
}

void sort_unique(std::vector<const ir::Module*>& modules) {
  std::sort(modules.begin(), modules.end());
  modules.erase(std::unique(modules.begin(), modules.end()), modules.end());
}

using CallerKey = std::pair<const ir::Module*, int>;

// A memo's records, where a gathering takes typings from and keeps them in.
struct MemoUse {
  std::map<CallerKey, EvidenceMemo::Caller>* before = nullptr;  // null: nothing to reuse; emptied as taken
  std::map<CallerKey, EvidenceMemo::Caller> after;
  EvidenceMemo::Counts counts;
};

ParameterEvidence gather(const Project& project, const CompileRegions& regions, unsigned jobs, MemoUse* memo) {
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
    EvidenceMemo::Caller* before = nullptr;  // the memo's record, where its calls and modules stand
    EvidenceMemo::Caller* after = nullptr;         // this gathering's record, with a memo
  };
  std::vector<Caller> callers;
  {
    std::map<CallerKey, size_t> index;  // first appearance in calls()
    for (size_t i = 0; i < calls.size(); ++i) {
      const auto [it, added] = index.emplace(CallerKey{calls[i].caller.module, calls[i].caller.function}, callers.size());
      if (added) callers.emplace_back();
      callers[it->second].calls.push_back(i);
    }
    if (memo) {
      std::unordered_set<const ir::Module*> present(project.modules().begin(), project.modules().end());
      for (const auto& [key, k] : index) {
        Caller& c = callers[k];
        EvidenceMemo::Caller& record = memo->after[key];
        for (size_t i : c.calls) {
          record.calls.push_back({calls[i].call_index, calls[i].callee, calls[i].receiver_bound});
          record.modules.push_back(calls[i].callee.module);
        }
        record.modules.push_back(key.first);
        c.after = &record;
        if (!memo->before) continue;
        const auto known = memo->before->find(key);
        if (known == memo->before->end() || known->second.calls != record.calls) continue;
        const std::vector<const ir::Module*>& read = known->second.modules;
        if (std::all_of(read.begin(), read.end(), [&](const ir::Module* m) { return present.contains(m); })) {
          c.before = &known->second;
        }
      }
    }
  }
  ParameterEvidence evidence;
  for (int round = 0; round < kMaxRounds; ++round) {
    std::vector<Caller*> todo;
    size_t todo_calls = 0;
    for (Caller& c : callers) {
      if (!c.stale) continue;
      if (c.before) {
        // A typing of the memo's that read the evidence as it is now would be made again as it
        // was. It is taken out: the evidence a caller reads differs from round to round.
        std::vector<EvidenceMemo::Typing>& typings = c.before->typings;
        const auto same = std::find_if(typings.begin(), typings.end(),
                                       [&](const EvidenceMemo::Typing& t) { return reads_as_now(t, evidence); });
        if (same != typings.end()) {
          c.seen = same->seen;
          c.reads = same->reads;
          c.after->typings.push_back(std::move(*same));
          typings.erase(same);
          c.after->modules.insert(c.after->modules.end(), c.before->modules.begin(), c.before->modules.end());
          ++memo->counts.reused;
          continue;
        }
      }
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
          {
            std::optional<Project::ReadLog> log;  // the modules it reads, into its record
            if (memo) log.emplace(c.after->modules);
            TypeOracle types(project, &evidence);
            types.record_evidence_reads(&c.reads);
            for (size_t i : c.calls) observe(calls[i], types, c.seen);
          }
          std::sort(c.reads.begin(), c.reads.end(), by_address);
          c.reads.erase(std::unique(c.reads.begin(), c.reads.end()), c.reads.end());
          if (memo) {
            for (const FunctionRef& f : c.reads) c.after->modules.push_back(f.module);
            c.after->typings.push_back({c.seen, c.reads, evidence_of(evidence, c.reads)});
          }
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
    if (memo) memo->counts.typed += todo.size();
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
    std::set<CallerKey> changed;
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
  if (memo) {
    for (auto& [key, record] : memo->after) sort_unique(record.modules);
  }
  return evidence;
}

}  // namespace

ParameterEvidence gather_parameter_evidence(const Project& project, const CompileRegions& regions, unsigned jobs) {
  return gather(project, regions, jobs, nullptr);
}

ParameterEvidence EvidenceMemo::gather(const Project& project, const CompileRegions& regions, unsigned jobs,
                                       std::vector<std::shared_ptr<const ir::Module>> modules) {
  const std::lock_guard lock(mutex_);
  std::vector<std::string> layout = project.layout();
  MemoUse use;
  if (layout == layout_) use.before = &callers_;
  ParameterEvidence evidence = analysis::gather(project, regions, jobs, &use);
  // The records name modules of `project`; they stand only while those modules are kept.
  std::unordered_set<const ir::Module*> owned;
  for (const auto& m : modules) owned.insert(m.get());
  const bool all_owned = std::all_of(project.modules().begin(), project.modules().end(),
                                     [&](const ir::Module* m) { return owned.contains(m); });
  callers_ = all_owned ? std::move(use.after) : decltype(callers_){};
  layout_ = std::move(layout);
  modules_ = std::move(modules);
  counts_ = use.counts;
  return evidence;
}

EvidenceMemo::Counts EvidenceMemo::last_counts() const {
  const std::lock_guard lock(mutex_);
  return counts_;
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
