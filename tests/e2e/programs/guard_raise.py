"""[Trap] validation guards: `if not <tensor>.all(): raise` and a comparison of a reduction."""
import torch


@torch.compile
def check(x: torch.Tensor, mask: torch.Tensor):
    y = x * mask
    if not mask.all():
        raise ValueError("mask must be all true")
    z = y + 1
    if (z < 0).sum() > 100:
        raise RuntimeError("too many negatives")
    return z


def cases():
    return [(check, (torch.randn(4), torch.ones(4, dtype=torch.bool)))]
