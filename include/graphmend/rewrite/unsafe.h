// Why a fix is unsafe, as data: a code and the fields its sentence names, as declines are
// (decline.h). A fix marked unsafe is applied only with --unsafe-fixes; its title says why, after
// "unsafe: ", in the sentence rendered here, and the JSON report names the code
// (`fix.unsafe_code`), so benches and users can group fixes by reason. A new reason is one
// enumerator and one table entry, in the same order (checked when this compiles); a name never
// changes meaning once released.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graphmend/source/edit.h"

namespace graphmend::rewrite {

enum class UnsafeCode : std::uint8_t {
  // [Where]
  KeptObjectReplaced,   // fields: the name, then why the replacement may be seen, as it follows
                        // the name (", which `x = f()` binds ...", "; after the `if`, ...")
  BoundObjectReplaced,  // no field
  BufferRebound,        // field: the calls the selection runs unstored, each after "; ", or ""
  // [Dense]
  ExpertOnEveryToken,
  ExpertOnEveryRow,
};

struct UnsafeEntry {
  UnsafeCode code;
  std::string_view name;      // stable, for JSON: "kept-object-replaced"
  std::string_view sentence;  // what users read after "unsafe: "; each `{}` is one field
};

inline constexpr auto kUnsafeTable = std::to_array<UnsafeEntry>({
    // [Where]
    {UnsafeCode::KeptObjectReplaced, "kept-object-replaced",
     "the selected tensor is a new object, where the original keeps `{}`{}"},
    {UnsafeCode::BoundObjectReplaced, "bound-object-replaced",
     "the selected tensor is a new object, where the original kept or bound an existing one"},
    {UnsafeCode::BufferRebound, "buffer-rebound",
     "it becomes a new tensor where the original rebinds it to an existing one{}"},
    // [Dense]
    {UnsafeCode::ExpertOnEveryToken, "expert-on-every-token",
     "assumes an expert treats tokens independently, as an MLP does; a matrix product over every token may round "
     "differently from one over the routed tokens; each expert does the work of every token, not only its own; "
     "eager, and grad-enabled code, unchanged"},
    {UnsafeCode::ExpertOnEveryRow, "expert-on-every-row",
     "assumes an expert treats rows independently, as an MLP does; a matrix product over every row may round "
     "differently from one over the selected rows; each expert does the work of every row, not only its own; eager, "
     "and grad-enabled code, unchanged"},
});

constexpr bool unsafe_table_in_enum_order() {
  for (size_t i = 0; i < kUnsafeTable.size(); ++i) {
    if (static_cast<size_t>(kUnsafeTable[i].code) != i) return false;
  }
  return true;
}
static_assert(unsafe_table_in_enum_order(), "kUnsafeTable must list every UnsafeCode once, in the enum's order");
static_assert(static_cast<size_t>(UnsafeCode::ExpertOnEveryRow) + 1 == kUnsafeTable.size(),
              "every UnsafeCode needs a table entry");

constexpr size_t field_count(UnsafeCode code) {
  const std::string_view sentence = kUnsafeTable[static_cast<size_t>(code)].sentence;
  size_t count = 0;
  for (size_t at = sentence.find("{}"); at != std::string_view::npos; at = sentence.find("{}", at + 2)) ++count;
  return count;
}

struct Unsafe {
  UnsafeCode code;
  std::vector<std::string> fields;  // the sentence's `{}`, in order

  bool operator==(const Unsafe&) const = default;
};

// A reason with its fields; their number is checked against the sentence when this compiles.
template <UnsafeCode Code, class... Fields>
Unsafe unsafe(Fields&&... fields) {
  static_assert(sizeof...(Fields) == field_count(Code), "an unsafe reason needs one field per `{}` of its sentence");
  return Unsafe{Code, {std::string(std::forward<Fields>(fields))...}};
}

// The sentence users read after "unsafe: ".
std::string render(const Unsafe& reason);
// The code's stable name ("kept-object-replaced"), as the JSON report writes it.
std::string_view code_name(UnsafeCode code);

// Marks `fix` unsafe for `reason` (its applicability and code); returns the sentence its title
// gives after "unsafe: ".
std::string mark_unsafe(source::Fix& fix, const Unsafe& reason);

}  // namespace graphmend::rewrite
