// What CPython's tokenizer rejects and tree-sitter's grammar accepts: indentation that does not
// line up (IndentationError), tabs and spaces that disagree about it (TabError), a line
// continuation that ends the file, f-string format specs nested too deeply, and lone CRs mixed
// with other line endings. A file with such an error is not Python: graphmend reports
// it (GM901) and never modifies it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "graphmend/source/generated.h"
#include "graphmend/syntax/tree.h"

namespace graphmend::syntax {

struct TokenizerError {
  uint32_t offset = 0;  // where CPython reports it
  std::string message;  // "TabError: inconsistent use of tabs and spaces in indentation"
};

// Checks `text`, whose tree (without error nodes) is `root`. Visits statements and clauses with an
// explicit stack, then format specs in one iterative walk: linear in the tree, whatever its nesting.
// The first line of `markers` (lines that read as graphmend's generated block) that the parsed file
// does not hold where a block belongs: a marker line that is not a comment, or a binding line that
// is not a module-level statement. Such a line inside a string literal is text, and a block
// "found" there would make graphmend rewrite the string. nullopt when every line is in place.
std::optional<uint32_t> generated_line_misplaced(Node root, const source::GeneratedMarkers& markers);

std::optional<TokenizerError> cpython_tokenizer_error(std::string_view text, Node root);

}  // namespace graphmend::syntax
