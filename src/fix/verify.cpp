#include "graphmend/fix/verify.h"

#include <algorithm>

#include "graphmend/fix/generated_block.h"
#include "graphmend/source/generated.h"
#include "graphmend/syntax/python_rules.h"

namespace graphmend::fix {

namespace {

// What CPython would accept, as far as graphmend checks it (the same test a file must pass to be
// analysed): a tree without errors, and none of the tokenizer's rules broken. A fuzzed file whose
// generated block's end marker sat inside a helper's body lost the helper's first lines to block
// maintenance; tree-sitter parsed the dangling indented lines, CPython would not.
bool is_python(std::string_view text, const std::optional<syntax::Tree>& tree) {
  return tree && !tree->has_error() && !syntax::cpython_tokenizer_error(text, tree->root());
}

VerifiedResult revert(std::string_view text, VerifiedResult result) {
  result.reverted = true;
  result.applied.text = std::string(text);
  result.applied.skipped.insert(result.applied.skipped.end(), result.applied.applied.begin(),
                                result.applied.applied.end());
  result.applied.applied.clear();
  return result;
}

// Applies sorted, non-overlapping edits from the last to the first, so earlier offsets hold.
void apply_in_place(std::string& text, const std::vector<source::Edit>& edits) {
  for (auto it = edits.rbegin(); it != edits.rend(); ++it) {
    text.replace(it->range.start, it->range.length(), it->replacement);
  }
}

// The one-parse way: the block edits predicted from the input's tree go in with the fixes, and
// the result is parsed once. Nullopt when the result is not Python or the prediction is not what
// the result's own code needs; the caller then takes the two-parse way, whose answer is the
// reference.
std::optional<VerifiedResult> apply_predicted(std::string_view text, syntax::Node root, const ApplyResult& applied,
                                              const std::vector<const source::Helper*>& helpers,
                                              syntax::Parser& parser, const RuntimeLink& link) {
  std::vector<source::Edit> edits = applied.edits;
  const std::vector<source::Edit> block = generated_block_edits(text, root, helpers, link, edits);
  edits.insert(edits.end(), block.begin(), block.end());
  std::sort(edits.begin(), edits.end());
  for (size_t i = 1; i < edits.size(); ++i) {
    if (edits[i].range.start < edits[i - 1].range.end) return std::nullopt;
  }
  std::string out(text);
  apply_in_place(out, edits);
  auto tree = parser.parse_edited(out, root, text, edits);
  if (!is_python(out, tree) || !generated_block_edits(out, tree->root(), helpers, link).empty()) return std::nullopt;
  VerifiedResult result;
  result.applied = applied;
  result.applied.text = std::move(out);
  if (result.applied.text != text) {
    result.tree = std::move(tree);
    result.edit_batches.push_back(std::move(edits));
  }
  return result;
}

}  // namespace

VerifiedResult apply_and_verify(std::string_view text, const std::vector<const source::Fix*>& fixes,
                                syntax::Parser& parser, const RuntimeLink& link, syntax::Node root) {
  VerifiedResult result;
  result.applied = apply_fixes(text, fixes);
  // The site helpers of the fixes that went in, in fix order; the block is re-derived from the
  // code even when no fix applied, so helpers whose site is gone leave with it.
  std::vector<const source::Helper*> helpers;
  for (size_t index : result.applied.applied) {
    for (const source::Helper& h : fixes[index]->helpers) helpers.push_back(&h);
  }
  // Helpers with nowhere to go (the rewrites decline fixes that need a damaged block): the fixes'
  // calls would be left dangling.
  const bool damaged = !helpers.empty() && source::scan_generated_markers(result.applied.text).damage;
  if (root && !damaged) {
    if (auto done = apply_predicted(text, root, result.applied, helpers, parser, link)) return std::move(*done);
  }
  auto tree = parser.parse(result.applied.text);
  if (!is_python(result.applied.text, tree)) {
    if (result.applied.text == text) return result;
    return revert(text, std::move(result));
  }
  if (damaged) return revert(text, std::move(result));
  std::vector<source::Edit> edits = generated_block_edits(result.applied.text, tree->root(), helpers, link);
  if (!edits.empty()) {
    apply_in_place(result.applied.text, edits);
    tree = parser.parse(result.applied.text);
    if (!is_python(result.applied.text, tree)) return revert(text, std::move(result));
  }
  if (result.applied.text != text) {
    result.tree = std::move(tree);
    if (!result.applied.edits.empty()) result.edit_batches.push_back(result.applied.edits);
    if (!edits.empty()) result.edit_batches.push_back(std::move(edits));
  }
  return result;
}

}  // namespace graphmend::fix
