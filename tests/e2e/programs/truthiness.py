"""Report-only: a tensor's truth value outside an if statement."""
import torch


@torch.compile
def mix(x: torch.Tensor):
    y = x * 2
    z = y if y.sum() > 0 else -y
    w = z + 1
    both = (w.sum() > 0) and (w.mean() < 100)
    v = w - 1
    flag = not v.any()
    return v, both, flag


def cases():
    return [(mix, (torch.ones(3),))]
