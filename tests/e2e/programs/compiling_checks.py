"""Conditions that torch.compiler.is_compiling() decides: Dynamo folds the call to True while
tracing, so a tensor tested after `not is_compiling() and` (or `is_compiling() or`) is never
tested under torch.compile, and code only such a branch runs never breaks the graph. The last
`if` tests its tensor first, so it breaks: the control."""
import logging

import torch

logger = logging.getLogger(__name__)


def is_torchdynamo_compiling():  # transformers' spelling
    return torch.compiler.is_compiling()


@torch.compile
def guarded(x: torch.Tensor, mask: torch.Tensor):
    if not torch.compiler.is_compiling() and (x > 100).any():
        raise ValueError("too large")
    if not is_torchdynamo_compiling() and mask.sum() != x.numel():
        covered = mask.sum().item()
        raise ValueError(f"the mask covers {covered} elements")
    first_is_zero = x[0] == 0
    if not torch.compiler.is_compiling() and first_is_zero:
        logger.warning("the first element is zero")
    if torch.compiler.is_compiling() or (x < -100).all():
        y = x + 1
    else:
        print("eager only")
        y = x - 1
    if x.shape[0] > 100:
        y = y + 2
    elif not torch.compiler.is_compiling() and (x > 10).any():
        print("large values")
    positive = not torch.compiler.is_compiling() and bool(x.sum() > 0)
    if positive:
        y = y + 3
    if (x > 50).any() and not torch.compiler.is_compiling():
        y = y * 2
    return y


def cases():
    return [(guarded, (torch.randn(8), torch.ones(8)))]
