"""Dynamo rewrites `assert <tensor>, "literal"` into the graph; a formatted message breaks."""
import torch


@torch.compile
def checked(x: torch.Tensor):
    y = x + 1
    assert (y > 0).all(), "inputs must be positive"
    z = y * 2
    assert (z > 0).all(), f"bad values for shape {tuple(z.shape)}"
    return z


def cases():
    return [(checked, (torch.ones(3),))]
