// "Copied from" pairs kept identical by `fix`. transformers (and diffusers, and projects that
// borrowed the convention) mark a definition copied from another one with a comment on the line
// above it:
//
//     # Copied from transformers.models.bart.modeling_bart.BartAttention with Bart->MBart
//     class MBartAttention(nn.Module):
//
// and their CI fails when a copy no longer equals its source with the `with` replacements applied
// (utils/check_copies.py). A fix applied to one side only would fail that check, so across the
// analysed files a fix inside either side of a pair that is identical now is withheld unless the
// other side gets the same change.
#pragma once

#include <span>
#include <vector>

#include "graphmend/ir/module.h"
#include "graphmend/rules/diagnostic.h"
#include "graphmend/source/edit.h"

namespace graphmend::driver {

struct CopiedPairFile {
  const ir::Module* module = nullptr;  // null when the file was not parsed
  // Its findings; the fixes of those that would make a pair differ are withheld (fix reset, the
  // decline reason set). Null for a file whose fixes are not applied in this pass.
  std::vector<rules::Diagnostic>* diagnostics = nullptr;
};

// Withholds the fixes (of at least `required` applicability) that would make a pair, identical in
// the current texts, differ once applied: the fixes inside both sides, repeated until every pair
// that is identical now stays identical. A source found in no analysed module, or not identical to
// its copy now, constrains nothing. Returns how many fixes were withheld. Linear in the files'
// size, plus the text of the marked definitions.
size_t keep_copied_pairs_identical(std::span<const CopiedPairFile> files, source::Applicability required);

}  // namespace graphmend::driver
