"""Conditions that torch.compiler.is_compiling() decides: Dynamo folds the call to True while
tracing, so a tensor tested after `not is_compiling() and` (or `is_compiling() or`) is never
tested under torch.compile, and code only such a branch runs never breaks the graph; the same for
torch.jit.is_tracing() and is_scripting() (False), also through a local name. The controls break:
`tracing` may be `verbose` (a plain Python value) where its `and` tests the mask, and the last `if`
tests its tensor first."""
import logging

import torch

logger = logging.getLogger(__name__)


def is_torchdynamo_compiling():  # transformers' spelling
    return torch.compiler.is_compiling()


@torch.compile
def guarded(x: torch.Tensor, mask: torch.Tensor, verbose: bool = False):
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
    if torch.jit.is_scripting():
        y = y + x.nonzero().sum()
    if y.dim() == 1 and not torch.compiler.is_compiling():
        logger.warning("one-dimensional input")
    is_tracing = torch.jit.is_tracing() or is_torchdynamo_compiling()
    if not is_tracing and torch.all(mask == 1):
        y = y + 4
    y = y * 2 if torch.compiler.is_compiling() else y * (x > 0).sum().item()
    tracing = torch.jit.is_tracing()
    if verbose:
        tracing = verbose
    if not tracing and (mask > 5).any():  # expect: GM101 declined candidates-may-differ
        y = y + 5
    if (x > 50).any() and not torch.compiler.is_compiling():  # expect: GM101 declined static-after-tensor
        y = y * 2
    return y


def cases():
    return [(guarded, (torch.randn(8), torch.ones(8)))]
