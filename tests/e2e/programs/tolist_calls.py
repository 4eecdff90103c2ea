"""Report-only: Tensor.tolist() on a float tensor (GB0109)."""
import torch


@torch.compile
def to_python(x: torch.Tensor):
    y = x * 2
    values = y.tolist()
    return y + len(values)


def cases():
    return [(to_python, (torch.randn(3),))]
