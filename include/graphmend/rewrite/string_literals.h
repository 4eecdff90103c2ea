// String literals in generated code, laid out as ruff's formatter would leave them: a literal that
// alone makes a line pass the line length is cut at spaces into adjacent literals (Python joins
// them back into the same value), and literals the original concatenated over lines are joined
// into one. Both read text (a site helper's body), not a tree, and leave alone what they cannot
// prove equal: triple-quoted strings, `\N{...}` escapes, quotes inside f-string fields.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace graphmend::rewrite {

// `code` with each line that passes the line length only because of a string literal inside
// brackets (the line is one literal, then nothing, or a closing `,` `)` `),`) cut into adjacent
// literals on lines of their own, each within the line length where a space allows. A piece of an
// f-string without a replacement field loses its `f` (ruff's F541) and its doubled braces. Code
// with a triple-quoted string is returned as it is.
std::string split_long_literals(std::string_view code);

// `code` with each implicit concatenation of plain and f-string literals (same quotes, only white
// space between) joined into one literal, as ruff's formatter joins those that fit; the plain
// parts' braces doubled where the result is an f-string. nullopt when nothing was joined, or when
// the code holds a literal graphmend does not join (raw, bytes, triple-quoted).
std::optional<std::string> joined_string_runs(std::string_view code);

}  // namespace graphmend::rewrite
