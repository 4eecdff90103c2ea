#include "graphmend/syntax/kinds.h"

#include <tree_sitter/api.h>

#include <cstdio>
#include <cstdlib>

#include "graphmend/syntax/tree.h"

namespace graphmend::syntax {

Kind::Kind(std::string_view name) : name_(name) {
  const TSLanguage* language = python_language();
  const uint32_t count = ts_language_symbol_count(language);
  for (uint32_t s = 0; s < count; ++s) {
    const char* symbol_name = ts_language_symbol_name(language, static_cast<TSSymbol>(s));
    if (symbol_name == nullptr || name != symbol_name) continue;
    if (count_ == symbols_.size()) {
      std::fprintf(stderr, "graphmend: node kind `%.*s` has too many symbols\n", static_cast<int>(name.size()),
                   name.data());
      std::abort();
    }
    if (s >= kMaxSymbols) {
      std::fprintf(stderr, "graphmend: node kind `%.*s` has a symbol id past %u\n", static_cast<int>(name.size()),
                   name.data(), static_cast<unsigned>(kMaxSymbols));
      std::abort();
    }
    symbols_[count_++] = static_cast<uint16_t>(s);
    members_[s / 64] |= uint64_t{1} << (s % 64);
  }
  if (count_ == 0) {
    // A name the grammar does not have: a bug in kinds.h, caught at start-up by every binary.
    std::fprintf(stderr, "graphmend: tree-sitter-python has no node kind `%.*s`\n", static_cast<int>(name.size()),
                 name.data());
    std::abort();
  }
}

Field::Field(std::string_view name) : name_(name) {
  const TSFieldId id =
      ts_language_field_id_for_name(python_language(), name.data(), static_cast<uint32_t>(name.size()));
  if (id == 0 || id > UINT8_MAX) {
    // A field the grammar does not have (or more than a node stores): a bug in kinds.h, caught
    // at start-up by every binary.
    std::fprintf(stderr, "graphmend: tree-sitter-python has no field `%.*s`\n", static_cast<int>(name.size()),
                 name.data());
    std::abort();
  }
  id_ = static_cast<uint8_t>(id);
}

}  // namespace graphmend::syntax
