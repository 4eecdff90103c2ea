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

#include "graphmend/syntax/tree.h"

namespace graphmend::syntax {

struct TokenizerError {
  uint32_t offset = 0;  // where CPython reports it
  std::string message;  // "TabError: inconsistent use of tabs and spaces in indentation"
};

// Checks `text`, whose tree (without error nodes) is `root`. Visits statements and clauses with an
// explicit stack, then format specs in one iterative walk: linear in the tree, whatever its nesting.
// The first of `marker_lines` (offsets of lines that read as graphmend's generated-block markers)
// that is not a comment of the parsed file: a marker inside a string literal is text, and a block
// "found" there would make graphmend rewrite the string. nullopt when every one is a comment.
std::optional<uint32_t> marker_outside_comment(Node root, std::span<const uint32_t> marker_lines);

std::optional<TokenizerError> cpython_tokenizer_error(std::string_view text, Node root);

}  // namespace graphmend::syntax
