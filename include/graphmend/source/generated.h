// Where graphmend's generated code sits in a module's text. Detection is textual so every layer
// (the rules skip generated functions; the fix stage rewrites the block) can find it.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "graphmend/source/edit.h"

#include "graphmend/source/text.h"

namespace graphmend::source {

// The block graphmend maintains in a patched module: the runtime binding and the site helpers.
// A module of a package has no markers: the binding line, then its site helpers (top-level
// functions named `_graphmend_*`, only blank lines between them), which is what a maintainer reads
// in its diff. A loose script's block holds the runtime itself, between these markers (as did
// every block written by graphmend before runtime 17, which the fix stage rewrites).
inline constexpr std::string_view kGeneratedBegin =
    "# graphmend: begin generated code (`graphmend fix` maintains it; do not edit)";
inline constexpr std::string_view kGeneratedEnd = "# graphmend: end generated code";

// The binding of the package's runtime module: kRuntimeBindingStart, the package level (digits),
// kRuntimeBindingEnd, on one line at column 0.
inline constexpr std::string_view kRuntimeBindingStart =
    "_graphmend = __import__(\"_graphmend_runtime\", globals(), level=";
inline constexpr std::string_view kRuntimeBindingEnd = ").bind(globals())";

// The markers of graphmend 0.1's block, which pasted the whole runtime into each module; the fix
// stage replaces such a block with the current form.
inline constexpr std::string_view kLegacyGeneratedBegin =
    "# --- graphmend: generated helpers (begin); graphmend maintains this block ---";
inline constexpr std::string_view kLegacyGeneratedEnd = "# --- graphmend: generated helpers (end) ---";

struct GeneratedBlock {
  // From the begin marker to the end of the end marker, or from the binding line to the end of the
  // last site helper after it (extend_over_helpers; the last newline excluded).
  TextRange range;
  bool legacy = false;
};

// What a module's marker lines say. A marker line starts at column 0; a line that starts like a
// marker but is not exactly one counts as an altered marker.
struct GeneratedMarkers {
  // The block, when there is exactly one begin marker followed by exactly one end marker of the
  // same kind and no other marker line; or, with no marker line, exactly one binding line.
  std::optional<GeneratedBlock> block;
  // Why the markers cannot be trusted, when they cannot: an altered, repeated or unpaired marker,
  // an altered or repeated binding line, or one outside the marked block.
  // Maintaining such a block could cut code that is not graphmend's (and a second run would cut
  // more), so graphmend leaves it alone and declines the fixes that need it.
  std::optional<std::string> damage;
  uint32_t damage_at = 0;  // the offset of the marker line concerned (the altered one, or the first)
  std::vector<uint32_t> lines;  // the offset of every marker line found, in order

  // The offset of the binding line that starts a block without marker lines.
  [[nodiscard]] std::optional<uint32_t> binding_line() const {
    return block && lines.empty() ? std::optional(block->range.start) : std::nullopt;
  }
};

GeneratedMarkers scan_generated_markers(std::string_view text);

// A block without markers runs from its binding line over the site helpers right after it: each
// top-level statement (`statements`, in order) that defines a `_graphmend_` function, with only
// blank lines before it. scan_generated_markers finds the binding line only, since where a
// helper ends takes the parse (its strings may hold lines at column 0).
void extend_over_helpers(std::string_view text, GeneratedMarkers& markers, std::span<const TextRange> statements);

// The module's generated block, if its markers pair up (scan_generated_markers(text).block).
std::optional<GeneratedBlock> find_generated_block(std::string_view text);

// The site helpers the block of module `text` defines, by name, each as top-level Python with '\n'
// newlines ending in one newline. `statements` are the module's top-level statements (the parse
// tree knows where one ends: a helper's string may hold lines at column 0). graphmend 0.1's blocks
// (`block.legacy`) also held the runtime; only their `@_graphmend_site` functions count, without
// the decorator.
std::vector<Helper> generated_helpers(std::string_view text, const GeneratedBlock& block,
                                     std::span<const TextRange> statements);

}  // namespace graphmend::source
