// Apply fixes and verify the result: the output must parse wherever the input did.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graphmend/fix/apply.h"
#include "graphmend/fix/runtime.h"
#include "graphmend/syntax/tree.h"

namespace graphmend::fix {

struct VerifiedResult {
  ApplyResult applied;
  bool reverted = false;  // the fixes introduced a syntax error; `applied.text` is the input
  // `applied.text` parsed, when it changed: a tree without errors that keeps CPython's tokenizer
  // rules (syntax/python_rules.h), for reuse without checking it again.
  std::optional<syntax::Tree> tree;
  // Every edit that made `applied.text`, in batches applied one after the other, each sorted and
  // in the coordinates of the text before it (the fixes, then the block; or both at once). Empty
  // when nothing changed or the edits were reverted.
  std::vector<std::vector<source::Edit>> edit_batches;
};

// Applies `fixes`, brings the module's generated block up to date (fix/generated_block.h; also
// with no fixes), re-parses, and reverts every edit if the output has a syntax error or breaks a
// rule of CPython's tokenizer (syntax/python_rules.h).
// With `root`, `text`'s tree, the block edits are predicted from it and the output is parsed once
// (twice only when the prediction is not what the output needs); the result is the same. That
// parse reads only the top-level statements the edits touch (syntax::Parser::parse_edited).
VerifiedResult apply_and_verify(std::string_view text, const std::vector<const source::Fix*>& fixes,
                                syntax::Parser& parser, const RuntimeLink& link = RuntimeLink::inline_source(),
                                syntax::Node root = {});

}  // namespace graphmend::fix
