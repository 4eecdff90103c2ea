// The generated helper block: one per module, between two marker comments, holding every
// top-level definition graphmend's rewrites rely on. Later runs find it and add to it.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "graphmend/source/edit.h"
#include "graphmend/syntax/tree.h"

namespace graphmend::fix {

inline constexpr std::string_view kHelperBlockBegin =
    "# --- graphmend: generated helpers (begin); graphmend maintains this block ---";
inline constexpr std::string_view kHelperBlockEnd = "# --- graphmend: generated helpers (end) ---";

// The byte range of the module's helper block (marker lines included), if it has one.
std::optional<source::TextRange> find_helper_block(std::string_view text);

// True if the block's text already binds `name` at top level (`def name(` or `name =`).
bool block_defines(std::string_view block, std::string_view name);

// The one edit that adds `helpers` (in order, first occurrence of each name, skipping names the
// block already binds) to `text`'s helper block, creating the block after the module's leading
// docstring and imports when there is none. nullopt when nothing needs adding.
std::optional<source::Edit> helper_block_edit(std::string_view text, const syntax::Tree& tree,
                                              const std::vector<const source::Helper*>& helpers);

}  // namespace graphmend::fix
