// EvidenceMemo's records as bytes and back (analysis/call_evidence.h): what a `check` keeps of the
// call evidence for the next one.
#include <algorithm>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "graphmend/analysis/call_evidence.h"
#include "graphmend/analysis/field_codec.h"

namespace graphmend::analysis {

static_assert(static_cast<int>(ValueKind::Bottom) == 9, "kValues<ValueKind> counts ValueKind's values");
template <> inline constexpr uint64_t field_codec::kValues<ValueKind> = 10;

// The records as stored: a module is its index in the table of keys.
namespace stored_evidence {

struct Function {
  uint32_t module = 0;
  int function = -1;
};
struct Key {
  uint32_t module = 0;
  int function = -1;
  int parameter = -1;
};
struct Call {
  uint32_t call_index = 0;
  Function callee;
  bool receiver_bound = false;
};
using Observation = std::pair<Key, ValueType>;
struct Typing {
  std::vector<Observation> seen;
  std::vector<Function> reads;
  std::vector<Observation> evidence_read;
};
struct Caller {
  Function caller;
  std::vector<Call> calls;
  std::vector<uint32_t> modules;
  std::vector<Typing> typings;
};
struct Records {
  std::vector<std::string> layout;
  std::vector<std::string> modules;  // summary keys
  std::vector<Caller> callers;
};

// Each struct's fields, once, for the writer and the reader.
template <class A> void fields(A& a, Function& f) { a(f.module, f.function); }
template <class A> void fields(A& a, Key& k) { a(k.module, k.function, k.parameter); }
template <class A> void fields(A& a, Call& c) { a(c.call_index, c.callee, c.receiver_bound); }
template <class A> void fields(A& a, Typing& t) { a(t.seen, t.reads, t.evidence_read); }
template <class A> void fields(A& a, Caller& c) { a(c.caller, c.calls, c.modules, c.typings); }
template <class A> void fields(A& a, Records& r) { a(r.layout, r.modules, r.callers); }

}  // namespace stored_evidence

// ValueType lives in analysis; its list is found beside it.
template <class A> void fields(A& a, ValueType& t) { a(t.kind, t.bool_tensor); }

namespace {

namespace stored = stored_evidence;

// Numbers the modules a record names, each once, by its key.
class ModuleTable {
 public:
  explicit ModuleTable(const std::function<std::string_view(const ir::Module&)>& key_of) : key_of_(key_of) {}

  // The module's index; nullopt where it has no key.
  std::optional<uint32_t> index(const ir::Module* module) {
    const auto [it, added] = index_.try_emplace(module, 0);
    if (added) {
      const std::string_view key = module ? key_of_(*module) : std::string_view();
      it->second = key.empty() ? kNone : static_cast<uint32_t>(keys.size());
      if (!key.empty()) keys.emplace_back(key);
    }
    if (it->second == kNone) return std::nullopt;
    return it->second;
  }

  std::vector<std::string> keys;

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  const std::function<std::string_view(const ir::Module&)>& key_of_;
  std::unordered_map<const ir::Module*, uint32_t> index_;
};

// A record in stored form; nullopt where it names a module without a key.
std::optional<stored::Caller> to_stored(std::pair<const ir::Module*, int> caller, const EvidenceMemo::Caller& record,
                                        ModuleTable& table) {
  bool whole = true;
  const auto module = [&](const ir::Module* m) {
    const std::optional<uint32_t> i = table.index(m);
    whole = whole && i.has_value();
    return i.value_or(0);
  };
  const auto function = [&](const FunctionRef& f) { return stored::Function{module(f.module), f.function}; };
  const auto observations = [&](const std::vector<std::pair<ParameterKey, ValueType>>& from) {
    std::vector<stored::Observation> out;
    out.reserve(from.size());
    for (const auto& [key, type] : from) out.push_back({{module(key.module), key.function, key.parameter}, type});
    return out;
  };
  stored::Caller out;
  out.caller = {module(caller.first), caller.second};
  for (const EvidenceMemo::Call& c : record.calls) out.calls.push_back({c.call_index, function(c.callee), c.receiver_bound});
  for (const ir::Module* m : record.modules) out.modules.push_back(module(m));
  for (const EvidenceMemo::Typing& t : record.typings) {
    stored::Typing& typing = out.typings.emplace_back();
    typing.seen = observations(t.seen);
    for (const FunctionRef& f : t.reads) typing.reads.push_back(function(f));
    typing.evidence_read = observations(t.evidence_read);
  }
  if (!whole) return std::nullopt;
  return out;
}

// Turns stored records back into a memo's, against this run's modules (by table index): each
// index is checked against what it points into, and a record with one that is not there is
// dropped whole.
class Translation {
 public:
  Translation(std::vector<const ir::Module*> modules, const EvidenceMemo::SummaryOf& summary_of)
      : modules_(std::move(modules)), summary_of_(summary_of) {}

  std::optional<std::pair<std::pair<const ir::Module*, int>, EvidenceMemo::Caller>> caller(const stored::Caller& s) {
    ok_ = true;
    const FunctionRef owner = function(s.caller);
    EvidenceMemo::Caller out;
    for (const stored::Call& c : s.calls) out.calls.push_back({c.call_index, function(c.callee), c.receiver_bound});
    for (uint32_t m : s.modules) out.modules.push_back(module(m));
    for (const stored::Typing& t : s.typings) {
      EvidenceMemo::Typing& typing = out.typings.emplace_back();
      typing.seen = observations(t.seen);
      for (const stored::Function& f : t.reads) typing.reads.push_back(function(f));
      typing.evidence_read = observations(t.evidence_read);
      // In this run's order: a gathering compares reads and evidence in the order of the
      // modules' addresses, which differ from the run that stored them.
      std::sort(typing.reads.begin(), typing.reads.end(), [](const FunctionRef& a, const FunctionRef& b) {
        return std::pair{a.module, a.function} < std::pair{b.module, b.function};
      });
      std::sort(typing.evidence_read.begin(), typing.evidence_read.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
    }
    std::sort(out.modules.begin(), out.modules.end());
    out.modules.erase(std::unique(out.modules.begin(), out.modules.end()), out.modules.end());
    if (!ok_) return std::nullopt;
    return std::pair{std::pair{owner.module, owner.function}, std::move(out)};
  }

 private:
  const ir::Module* module(uint32_t index) {
    const ir::Module* m = index < modules_.size() ? modules_[index] : nullptr;
    ok_ = ok_ && m != nullptr;
    return m;
  }
  FunctionRef function(const stored::Function& f) {
    const ir::Module* m = module(f.module);
    ok_ = ok_ && m && f.function >= 0 && static_cast<size_t>(f.function) < function_count(*m);
    return {m, f.function};
  }
  std::vector<std::pair<ParameterKey, ValueType>> observations(const std::vector<stored::Observation>& from) {
    std::vector<std::pair<ParameterKey, ValueType>> out;
    out.reserve(from.size());
    for (const auto& [key, type] : from) {
      const FunctionRef f = function({key.module, key.function});
      ok_ = ok_ && key.parameter >= 0 && static_cast<size_t>(key.parameter) < parameter_count(f);
      if (!ok_) break;  // f may not index anything
      out.push_back({ParameterKey{f.module, f.function, key.parameter}, type});
    }
    return out;
  }

  // Counted in the module's summary where the run gives one: the module may not be built yet.
  size_t function_count(const ir::Module& m) const {
    return summary_of_ ? summary_of_(m).functions.size() : m.functions.size();
  }
  size_t parameter_count(FunctionRef f) const {
    const auto i = static_cast<size_t>(f.function);
    return summary_of_ ? summary_of_(*f.module).functions[i].params.size() : f.module->functions[i].params.size();
  }

  std::vector<const ir::Module*> modules_;
  const EvidenceMemo::SummaryOf& summary_of_;
  bool ok_ = true;
};

}  // namespace

std::string EvidenceMemo::encode(const std::function<std::string_view(const ir::Module&)>& key_of) const {
  const std::lock_guard lock(mutex_);
  ModuleTable table(key_of);
  stored::Records records;
  records.layout = layout_;
  for (const auto& [caller, record] : callers_) {
    if (std::optional<stored::Caller> s = to_stored(caller, record, table)) records.callers.push_back(std::move(*s));
  }
  records.modules = std::move(table.keys);
  field_codec::Writer w;
  w(records);
  return std::move(w.bytes);
}

void EvidenceMemo::decode(std::string_view bytes,
                          const std::function<const ir::Module*(std::string_view key)>& module_of,
                          const SummaryOf& summary_of) {
  const std::lock_guard lock(mutex_);
  callers_.clear();
  layout_.clear();
  modules_.clear();
  counts_ = {};
  stored::Records records;
  field_codec::Reader r(bytes);
  r(records);
  if (!r.done()) return;
  std::vector<const ir::Module*> modules;
  modules.reserve(records.modules.size());
  for (const std::string& key : records.modules) modules.push_back(module_of(key));
  // A module two entries of the table name (a key written twice) is named by neither.
  std::vector<const ir::Module*> sorted = modules;
  std::sort(sorted.begin(), sorted.end());
  for (const ir::Module*& m : modules) {
    if (m && std::upper_bound(sorted.begin(), sorted.end(), m) - std::lower_bound(sorted.begin(), sorted.end(), m) > 1) {
      m = nullptr;
    }
  }
  Translation translation(std::move(modules), summary_of);
  for (const stored::Caller& s : records.callers) {
    if (auto record = translation.caller(s)) callers_.insert(std::move(*record));
  }
  layout_ = std::move(records.layout);
}

}  // namespace graphmend::analysis
