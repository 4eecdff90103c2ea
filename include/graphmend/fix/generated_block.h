// The generated block of a patched module: one marked region after the module's imports with
//   - the `_graphmend` binding of the runtime (fix/runtime.h),
//   - the module's own site helpers (top-level functions the in-graph ops call back);
// or, in a package's module that needs no helper, the binding line alone, unmarked: right above
// the first statement after the imports when that is a simple one (`logger = ...`), so the patch
// adds one line, else after the imports with the blank lines the project's isort wants.
// The block is derived from the rest of the module each time: a helper stays while some code
// outside the block names it, the runtime binding while anything uses `_graphmend`, and the block
// goes away when nothing does. So re-running `fix` drops helpers whose site is gone, and a block
// written by graphmend 0.1 (the whole runtime pasted in) is replaced by the current form.
#pragma once

#include <span>
#include <vector>

#include "graphmend/fix/runtime.h"
#include "graphmend/source/edit.h"
#include "graphmend/syntax/tree.h"

namespace graphmend::fix {

// The edits (sorted, non-overlapping; empty when the block is already right) that make `text`'s
// block what its code needs, adding `new_helpers` (site helpers of fixes just applied; a helper
// already in the block keeps its text). `root` is `text`'s tree. No edits when the block's markers
// are damaged (source::GeneratedMarkers::damage): such a block is left alone.
// With `pending` (sorted, non-overlapping edits inside the module's code, away from its block and
// imports), the edits are predicted for the text once they apply, in `text`'s coordinates, so the
// fix stage parses once: the names the pending replacements spell are read from their text,
// strings and comments included, so the prediction can keep a name too many; the caller checks it
// (the edits for the result must be none) and otherwise parses the edited text and asks again.
std::vector<source::Edit> generated_block_edits(std::string_view text, syntax::Node root,
                                                const std::vector<const source::Helper*>& new_helpers,
                                                const RuntimeLink& link, std::span<const source::Edit> pending = {});

}  // namespace graphmend::fix
