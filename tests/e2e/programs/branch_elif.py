"""[Where] elif chain: with the first test false, Dynamo also breaks on the elif."""
import torch


@torch.compile
def pick(x: torch.Tensor):
    h = x * 2
    if h.mean() > 10:
        out = h
    elif h.mean() > 0:
        out = h + 1
    else:
        out = -h
    return out


def cases():
    return [(pick, (torch.ones(3),))]
