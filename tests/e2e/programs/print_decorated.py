"""[Defer] print inside a @torch.compile function."""
import torch


@torch.compile
def step(x):
    y = torch.relu(x) + 1
    print("step", y.shape)
    return y * 2


def cases():
    return [(step, (torch.randn(4),))]
