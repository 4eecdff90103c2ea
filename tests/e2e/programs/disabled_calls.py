"""GM408: calls to functions under torch.compiler.disable split the graph at the call; inside a
disabled function nothing is traced (so its print and tensor branch break nothing), except what a
recursive=False function calls, which Dynamo compiles as a new frame."""
import torch
from torch import nn


@torch.compiler.disable
def build_scale(x):
    print("eager only")
    if (x > 0).any():
        return x.abs().max()
    return x.new_ones(())


@torch._dynamo.disable(recursive=False)
def shallow(x):
    return shift(x) + 1


def shift(x):
    y = x * 3
    if (y < 0).all():
        return y - 1
    return y


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    @torch.compiler.disable
    def log_stats(self, h):
        if h.mean() > 10:
            print("large activations")
        return h

    def forward(self, x):
        h = self.lin(x)
        h = h * build_scale(h)
        h = h.sin()
        h = shallow(h)
        h = h.cos()
        h = self.log_stats(h)
        return h.relu()


class Skipped(nn.Module):
    @torch.compiler.disable
    def forward(self, x):
        if x.sum() > 0:
            return x + 1
        return x


compiled = torch.compile(Block())


def cases():
    return [(Block(), (torch.randn(2, 4),)), (Skipped(), (torch.randn(3),))]
