// What CPython's tokenizer rejects and tree-sitter's grammar accepts: indentation that does not
// line up (IndentationError), tabs and spaces that disagree about it (TabError), and a line
// continuation that ends the file. A file with such an error is not Python: graphmend reports
// it (GM901) and never modifies it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "graphmend/syntax/tree.h"

namespace graphmend::syntax {

struct TokenizerError {
  uint32_t offset = 0;  // where CPython reports it
  std::string message;  // "TabError: inconsistent use of tabs and spaces in indentation"
};

// Checks `text`, whose tree (without error nodes) is `root`. Visits statements and clauses only,
// with an explicit stack: linear in the number of statements, whatever their nesting.
std::optional<TokenizerError> cpython_tokenizer_error(std::string_view text, Node root);

}  // namespace graphmend::syntax
