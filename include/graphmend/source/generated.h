// Where graphmend's generated code sits in a module's text. Detection is textual so every layer
// (the rules skip generated functions; the fix stage rewrites the block) can find it.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "graphmend/source/edit.h"

#include "graphmend/source/text.h"

namespace graphmend::source {

// The block graphmend maintains in a patched module: the runtime binding and the site helpers.
inline constexpr std::string_view kGeneratedBegin =
    "# graphmend: begin generated code (`graphmend fix` maintains it; do not edit)";
inline constexpr std::string_view kGeneratedEnd = "# graphmend: end generated code";

// The markers of graphmend 0.1's block, which pasted the whole runtime into each module; the fix
// stage replaces such a block with the current form.
inline constexpr std::string_view kLegacyGeneratedBegin =
    "# --- graphmend: generated helpers (begin); graphmend maintains this block ---";
inline constexpr std::string_view kLegacyGeneratedEnd = "# --- graphmend: generated helpers (end) ---";

struct GeneratedBlock {
  TextRange range;  // from the begin marker to the end of the end marker (its newline excluded)
  bool legacy = false;
};

// The module's generated block, if it has one (each marker starts a line).
std::optional<GeneratedBlock> find_generated_block(std::string_view text);

// The site helpers a block's text defines, by name, each as top-level Python with '\n' newlines
// ending in one newline. graphmend 0.1's blocks (`legacy`) also held the runtime; only their
// `@_graphmend_site` functions count, without the decorator.
std::vector<Helper> generated_helpers(std::string_view block, bool legacy);

}  // namespace graphmend::source
