// PEP 484 type comments on a function's parameters, the way TorchScript-era code (torchvision,
// much of torch itself) types its functions:
//
//   def paste_mask_in_image(mask, box, im_h, im_w):
//       # type: (Tensor, Tensor, int, int) -> Tensor
//
//   def resize(image,  # type: Tensor
//              size,   # type: int
//              ):
//
// Only where each type lands is read here; what a type means is the analysis's business.
#pragma once

#include <string_view>
#include <vector>

#include "graphmend/source/text.h"
#include "graphmend/syntax/tree.h"

namespace graphmend::ir {

// The byte range of the type each parameter of `def` (a function_definition) is given by a type
// comment, in the order of `parameters` (the identifiers the IR binds, separators left out); an
// empty range where it has none. A per-argument comment (`x,  # type: Tensor` on the parameter's
// line) wins over the signature comment. The signature comment (`# type: (A, B) -> R`, between
// the header's `:` and the first statement) names every parameter, or every one but the first of
// a method (`self`, `cls`), which PEP 484 lets it leave out; a count that fits neither is read as
// no types at all, since guessing which parameter a type belongs to is how a wrong type gets in.
// `is_method`: `def` is defined in a class body and is not a staticmethod.
std::vector<source::TextRange> parameter_type_comments(syntax::Node def, std::string_view text,
                                                       const std::vector<syntax::Node>& parameters,
                                                       bool is_method);

}  // namespace graphmend::ir
