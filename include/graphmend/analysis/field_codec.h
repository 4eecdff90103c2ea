// Plain structs as bytes and back, read without trust, for what graphmend keeps between runs
// (analysis/summary_codec.h, the evidence records of analysis/call_evidence.h).
//
// A codec lists each struct's fields once, as `template <class A> void fields(A& a, T& t) { a(t.x,
// t.y); }` in the struct's own namespace (found by argument-dependent lookup), and that one list
// drives both directions. Integers are variable-length numbers (an `int` zigzagged, so -1 takes one
// byte); strings and vectors a count and their elements; a pair its two halves; an enum its value,
// which must be below kValues<E>. The reader checks every count against what the bytes left can
// hold, given the smallest encoding of an element, so what damaged bytes make it allocate stays
// within a small multiple of their size; the first mismatch fails it, and every later read is a
// no-op.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace graphmend::analysis::field_codec {

// How many values each enum has: the reader refuses any other. A codec specialises it for each
// enum it writes, before its first use.
template <class E> inline constexpr uint64_t kValues = 0;

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
      static_assert(kValues<T> > 0, "an enum written needs its count in kValues");
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

}  // namespace graphmend::analysis::field_codec
