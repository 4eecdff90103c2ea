#include "graphmend/analysis/summary_codec.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace graphmend::analysis {

namespace {

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

// How many values each enum has: the reader refuses any other.
template <class E> constexpr uint64_t kValues = 0;
template <> constexpr uint64_t kValues<S::Definition::Kind> = 4;
template <> constexpr uint64_t kValues<TraceExclusion> = 4;
template <> constexpr uint64_t kValues<ir::Parameter::Kind> = 4;
template <> constexpr uint64_t kValues<S::Argument::Kind> = 4;
template <> constexpr uint64_t kValues<S::CallSite::Receiver> = 4;
template <> constexpr uint64_t kValues<S::CompileSite::Kind> = 2;

template <class T> struct IsVector : std::false_type {};
template <class T> struct IsVector<std::vector<T>> : std::true_type {};
template <class T> struct IsPair : std::false_type {};
template <class A, class B> struct IsPair<std::pair<A, B>> : std::true_type {};

class Writer {
 public:
  template <class... T> void operator()(const T&... values) { (put(values), ...); }
  std::string bytes;

 private:
  void number(uint64_t v) {
    for (; v >= 0x80; v >>= 7) bytes.push_back(static_cast<char>((v & 0x7f) | 0x80));
    bytes.push_back(static_cast<char>(v));
  }
  template <class T> void put(const T& v) {
    if constexpr (std::is_same_v<T, bool>) {
      number(v ? 1 : 0);
    } else if constexpr (std::is_enum_v<T>) {
      static_assert(kValues<T> > 0, "an enum of the summary needs its count in kValues");
      number(static_cast<uint64_t>(v));
    } else if constexpr (std::is_same_v<T, int>) {
      // Zigzag: -1, the usual "none", takes one byte.
      const auto u = static_cast<uint32_t>(v);
      number((u << 1) ^ (v < 0 ? 0xffffffffU : 0U));
    } else if constexpr (std::is_same_v<T, uint32_t>) {
      number(v);
    } else if constexpr (std::is_same_v<T, std::string>) {
      number(v.size());
      bytes.append(v);
    } else if constexpr (IsVector<T>::value) {
      number(v.size());
      for (const auto& element : v) put(element);
    } else if constexpr (IsPair<T>::value) {
      put(v.first);
      put(v.second);
    } else {
      fields(*this, const_cast<T&>(v));  // the list is shared with the reader; writing changes nothing
    }
  }
};

// The fewest bytes a value of type T encodes to: one per scalar, string and vector (its count), the
// sum of the fields for a struct.
template <class T> size_t min_encoded_size();

struct MinSize {
  template <class... T> void operator()(T&...) { total += (min_encoded_size<T>() + ...); }
  size_t total = 0;
};

template <class T> size_t min_encoded_size() {
  if constexpr (IsPair<T>::value) {
    return min_encoded_size<typename T::first_type>() + min_encoded_size<typename T::second_type>();
  } else if constexpr (std::is_class_v<T> && !IsVector<T>::value && !std::is_same_v<T, std::string>) {
    static const size_t size = [] {
      MinSize m;
      T value{};
      fields(m, value);
      return m.total;
    }();
    return size;
  } else {
    return 1;
  }
}

// Reads what Writer wrote; the first mismatch makes it fail, and every later read is a no-op.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : rest_(bytes) {}
  template <class... T> void operator()(T&... values) { (get(values), ...); }
  [[nodiscard]] bool done() const { return ok_ && rest_.empty(); }

 private:
  bool number(uint64_t& v) {
    v = 0;
    for (int shift = 0; ok_ && shift < 64; shift += 7) {
      if (rest_.empty()) break;
      const auto byte = static_cast<unsigned char>(rest_.front());
      rest_.remove_prefix(1);
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return true;
    }
    return ok_ = false;
  }
  // A count of elements that each take at least `element_size` bytes: never more than the bytes
  // left hold, so what damaged bytes make the reader allocate stays within a small multiple of
  // their size (a struct's size over its smallest encoding).
  bool count(size_t& n, size_t element_size) {
    uint64_t v = 0;
    if (!number(v) || v > rest_.size() / element_size) return ok_ = false;
    n = static_cast<size_t>(v);
    return true;
  }
  template <class T> void get(T& v) {
    if (!ok_) return;
    if constexpr (std::is_same_v<T, bool>) {
      uint64_t n = 0;
      if (number(n) && n > 1) ok_ = false;
      v = n == 1;
    } else if constexpr (std::is_enum_v<T>) {
      uint64_t n = 0;
      if (number(n) && n >= kValues<T>) ok_ = false;
      v = static_cast<T>(ok_ ? n : 0);
    } else if constexpr (std::is_same_v<T, int>) {
      uint64_t n = 0;
      if (number(n) && n > 0xffffffffULL) ok_ = false;
      const auto u = static_cast<uint32_t>(n);
      v = static_cast<int>((u >> 1) ^ (0U - (u & 1U)));
    } else if constexpr (std::is_same_v<T, uint32_t>) {
      uint64_t n = 0;
      if (number(n) && n > 0xffffffffULL) ok_ = false;
      v = static_cast<uint32_t>(n);
    } else if constexpr (std::is_same_v<T, std::string>) {
      size_t n = 0;
      if (!count(n, 1)) return;
      v.assign(rest_.substr(0, n));
      rest_.remove_prefix(n);
    } else if constexpr (IsVector<T>::value) {
      size_t n = 0;
      if (!count(n, min_encoded_size<typename T::value_type>())) return;
      v.clear();
      v.reserve(n);
      for (size_t i = 0; i < n && ok_; ++i) get(v.emplace_back());
    } else if constexpr (IsPair<T>::value) {
      get(v.first);
      get(v.second);
    } else {
      fields(*this, v);
    }
  }

  std::string_view rest_;
  bool ok_ = true;
};

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
