"""Report-only: torch.equal outside a branch (GB0033)."""
import torch


@torch.compile
def compare(a: torch.Tensor, b: torch.Tensor):
    c = a * 2
    same = torch.equal(c, b)
    return c + 1, same


def cases():
    return [(compare, (torch.ones(2), torch.ones(2)))]
