#include "graphmend/analysis/summary_codec.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "graphmend/analysis/field_codec.h"

namespace graphmend::analysis {

namespace field_codec {
template <> inline constexpr uint64_t kValues<ModuleSummary::Definition::Kind> = 4;
template <> inline constexpr uint64_t kValues<TraceExclusion> = 4;
template <> inline constexpr uint64_t kValues<ir::Parameter::Kind> = 4;
template <> inline constexpr uint64_t kValues<ModuleSummary::Argument::Kind> = 4;
template <> inline constexpr uint64_t kValues<ModuleSummary::CallSite::Receiver> = 4;
template <> inline constexpr uint64_t kValues<ModuleSummary::CompileSite::Kind> = 2;
}  // namespace field_codec

using S = ModuleSummary;

// Each struct's fields, once, for both directions: the writer and the reader call the same list.
// A field added to ModuleSummary is added here (and kSummaryFormat bumped); the round trip of every
// fixture's summary (tests/unit/summary_codec_test.cpp) compares all fields and fails otherwise.
template <class A> void fields(A& a, S::Definition& d) { a(d.kind, d.index, d.import_path); }
template <class A> void fields(A& a, S::Base& b) { a(b.local_class, b.qualified); }
template <class A> void fields(A& a, S::NameRef& r) { a(r.local_function, r.local_class, r.qualified); }
template <class A> void fields(A& a, S::StoreFact& f) { a(f.constructor, f.init_parameter); }
template <class A> void fields(A& a, S::ClassFacts& c) { a(c.qualname, c.bases, c.methods, c.compiled, c.self_stores); }
template <class A> void fields(A& a, S::Argument& g) { a(g.kind, g.keyword, g.instance, g.identifier); }
template <class A> void fields(A& a, S::CallSite& c) {
  a(c.call_index, c.callee, c.via_attribute, c.receiver, c.attribute, c.member);
}
template <class A> void fields(A& a, S::Decorator& d) { a(d.callee, d.call); }
template <class A> void fields(A& a, S::LoggerBinding& b) { a(b.import_path, b.value); }
template <class A> void fields(A& a, S::LoggerValue& v) { a(v.factory, v.bound_by); }
template <class A> void fields(A& a, S::CompileSite& c) {
  a(c.kind, c.line, c.function, c.instance, c.owner, c.attribute, c.self_class);
}
template <class A> void fields(A& a, S::Parameter& p) { a(p.name, p.kind); }
template <class A> void fields(A& a, S::FunctionFacts& f) {
  a(f.qualname, f.klass, f.params, f.trace_exclusion, f.staticmethod, f.compiled, f.returns_container, f.decorators,
    f.calls, f.returned, f.applied_in_return, f.calls_enclosing_parameter, f.super_init_calls);
}
template <class A> void fields(A& a, S& s) {
  a(s.names, s.classes, s.functions, s.compile_sites, s.loggers, s.logger_values, s.mentions_torch, s.strings);
}

namespace {

using field_codec::Reader;
using field_codec::Writer;

// Checks the indices of one summary against its tables.
class Consistency {
 public:
  explicit Consistency(const S& s) : s_(s) {}

  bool check() {
    for (const auto& [name, definitions] : s_.names) {
      for (const S::Definition& d : definitions) {
        if (d.kind == S::Definition::Kind::Function) function(d.index);
        if (d.kind == S::Definition::Kind::Class) klass(d.index);
      }
    }
    for (const S::ClassFacts& c : s_.classes) {
      for (const S::Base& b : c.bases) optional_class(b.local_class);
      for (const auto& [name, method] : c.methods) function(method);
      for (const auto& [attribute, stores] : c.self_stores) {
        for (const S::StoreFact& f : stores) {
          name(f.constructor);
          optional_string(f.init_parameter);
        }
      }
      sorted(c.methods);
      sorted(c.self_stores);
    }
    for (const S::FunctionFacts& f : s_.functions) {
      optional_class(f.klass);
      for (const S::Decorator& d : f.decorators) name(d.callee);
      for (const S::CallSite& c : f.calls) {
        name(c.callee);
        // A method call on the instance names its method, and `self.x.m()` its member too.
        if (c.receiver == S::CallSite::Receiver::None) {
          optional_string(c.attribute);
        } else {
          string(c.attribute);
        }
        if (c.receiver == S::CallSite::Receiver::SelfMember) {
          string(c.member);
        } else {
          optional_string(c.member);
        }
      }
      for (const int nested : f.returned) function(nested);
      for (const int nested : f.applied_in_return) function(nested);
      for (const std::vector<S::Argument>& call : f.super_init_calls) {
        for (const S::Argument& a : call) {
          optional_string(a.keyword);
          optional_string(a.identifier);
          instance(a.instance);
        }
      }
    }
    for (const S::CompileSite& c : s_.compile_sites) {
      name(c.function);
      instance(c.instance);
      instance(c.owner);
      optional_string(c.attribute);
      optional_class(c.self_class);
    }
    // The logger values form a forest, as summarize() writes them: a value's bindings name values
    // before it, and each value is named once. A reader's walk of them then takes at most one
    // step per value.
    std::vector<uint8_t> named(s_.logger_values.size(), 0);
    for (const auto& [logger, bindings] : s_.loggers) bindings_in_range(bindings, s_.logger_values.size(), named);
    for (size_t i = 0; i < s_.logger_values.size(); ++i) bindings_in_range(s_.logger_values[i].bound_by, i, named);
    sorted(s_.names);
    sorted(s_.loggers);
    return ok_;
  }

 private:
  static bool in(int index, size_t size) { return index >= 0 && static_cast<size_t>(index) < size; }
  void function(int i) { ok_ = ok_ && in(i, s_.functions.size()); }
  void klass(int i) { ok_ = ok_ && in(i, s_.classes.size()); }
  void optional_function(int i) { ok_ = ok_ && (i == -1 || in(i, s_.functions.size())); }
  void optional_class(int i) { ok_ = ok_ && (i == -1 || in(i, s_.classes.size())); }
  void optional_string(int i) { ok_ = ok_ && (i == -1 || in(i, s_.strings.size())); }
  void string(int i) { ok_ = ok_ && in(i, s_.strings.size()); }
  void name(const S::NameRef& r) {
    optional_function(r.local_function);
    optional_class(r.local_class);
    optional_string(r.qualified);
  }
  void instance(const S::Instance& constructors) {
    for (const S::NameRef& r : constructors) name(r);
  }
  // Each binding either an import (its path) or a value among the first `values`, named once.
  void bindings_in_range(const std::vector<S::LoggerBinding>& bindings, size_t values, std::vector<uint8_t>& named) {
    for (const S::LoggerBinding& b : bindings) {
      if (b.import_path >= 0) {
        ok_ = ok_ && b.value == -1 && in(b.import_path, s_.strings.size());
      } else {
        ok_ = ok_ && in(b.value, values) && !named[static_cast<size_t>(b.value)]++;
      }
      if (!ok_) return;
    }
  }
  // The lookups by name (ModuleSummary::definitions_of and the others) search these in order.
  template <class Value> void sorted(const std::vector<std::pair<std::string, Value>>& table) {
    ok_ = ok_ && std::is_sorted(table.begin(), table.end(),
                                [](const auto& a, const auto& b) { return a.first < b.first; });
  }

  const S& s_;
  bool ok_ = true;
};

}  // namespace

std::string encode(const ModuleSummary& summary) {
  Writer w;
  w(summary);
  return std::move(w.bytes);
}

std::optional<ModuleSummary> decode(std::string_view bytes) {
  ModuleSummary summary;
  Reader r(bytes);
  r(summary);
  if (!r.done() || !is_consistent(summary)) return std::nullopt;
  return summary;
}

bool is_consistent(const ModuleSummary& summary) { return Consistency(summary).check(); }

}  // namespace graphmend::analysis
