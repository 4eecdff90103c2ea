"""Report-only: data-dependent output shapes (GB0036)."""
import torch


@torch.compile
def select(x: torch.Tensor):
    y = x + 1
    idx = torch.nonzero(y)
    y = y * 2
    kept = y[y > 1]
    y = y - 1
    uniq = torch.unique(y)
    y = y.abs()
    picked = torch.masked_select(y, y > 0.5)
    y = y + 2
    nz = y.nonzero()
    return idx, kept, uniq, picked, nz


def cases():
    return [(select, (torch.randn(6),))]
