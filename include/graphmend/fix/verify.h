// Apply fixes and verify the result: the output must parse wherever the input did.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "graphmend/fix/apply.h"
#include "graphmend/syntax/tree.h"

namespace graphmend::fix {

struct VerifiedResult {
  ApplyResult applied;
  bool reverted = false;  // the fixes introduced a syntax error; `applied.text` is the input
};

// Applies `fixes`, re-parses, and reverts every edit if the output has a syntax error.
VerifiedResult apply_and_verify(std::string_view text, const std::vector<const source::Fix*>& fixes,
                                syntax::Parser& parser);

}  // namespace graphmend::fix
