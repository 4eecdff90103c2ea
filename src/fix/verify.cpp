#include "graphmend/fix/verify.h"

#include "graphmend/fix/helpers.h"

namespace graphmend::fix {

namespace {

VerifiedResult revert(std::string_view text, VerifiedResult result) {
  result.reverted = true;
  result.applied.text = std::string(text);
  result.applied.skipped.insert(result.applied.skipped.end(), result.applied.applied.begin(),
                                result.applied.applied.end());
  result.applied.applied.clear();
  return result;
}

}  // namespace

VerifiedResult apply_and_verify(std::string_view text, const std::vector<const source::Fix*>& fixes,
                                syntax::Parser& parser) {
  VerifiedResult result;
  result.applied = apply_fixes(text, fixes);
  if (result.applied.text == text) return result;
  auto tree = parser.parse(result.applied.text);
  if (!tree || tree->has_error()) return revert(text, std::move(result));

  // The helpers of the fixes that went in, in fix order, rendered into the module's block.
  std::vector<const source::Helper*> helpers;
  for (size_t index : result.applied.applied) {
    for (const source::Helper& h : fixes[index]->helpers) helpers.push_back(&h);
  }
  if (helpers.empty()) return result;
  auto edit = helper_block_edit(result.applied.text, *tree, helpers);
  if (!edit) return result;
  result.applied.text.replace(edit->range.start, edit->range.length(), edit->replacement);
  tree = parser.parse(result.applied.text);
  if (!tree || tree->has_error()) return revert(text, std::move(result));
  return result;
}

}  // namespace graphmend::fix
