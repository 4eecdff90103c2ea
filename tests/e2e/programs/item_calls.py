"""Report-only: Tensor.item() (GB0124)."""
import torch


@torch.compile
def norm(x: torch.Tensor):
    total = x.abs().sum()
    scale = total.item()
    y = x / scale
    return y * 2


def cases():
    return [(norm, (torch.randn(5),))]
