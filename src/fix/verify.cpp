#include "graphmend/fix/verify.h"

namespace graphmend::fix {

VerifiedResult apply_and_verify(std::string_view text, const std::vector<const source::Fix*>& fixes,
                                syntax::Parser& parser) {
  VerifiedResult result;
  result.applied = apply_fixes(text, fixes);
  if (result.applied.text == text) return result;
  auto tree = parser.parse(result.applied.text);
  if (!tree || tree->has_error()) {
    result.reverted = true;
    result.applied.text = std::string(text);
    result.applied.skipped.insert(result.applied.skipped.end(), result.applied.applied.begin(),
                                  result.applied.applied.end());
    result.applied.applied.clear();
  }
  return result;
}

}  // namespace graphmend::fix
