"""GM408: calls to functions under torch.compiler.disable split the graph at the call; inside a
disabled function nothing is traced (so its print and tensor branch break nothing), except what a
recursive=False function calls, which Dynamo compiles as a new frame. A custom op, an
allow_in_graph function and an assume_constant_result function are not traced either, and their
calls break nothing."""
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
    if (y < 0).all():  # expect: GM101 declined unselectable-statement
        return y - 1
    return y


@torch.library.custom_op("graphmend_e2e::doubled_if_positive", mutates_args=())
def doubled_if_positive(x: torch.Tensor) -> torch.Tensor:
    print("runs outside Dynamo")
    if (x > 0).any():
        return x * 2
    return x.clone()


@doubled_if_positive.register_fake
def _(x):
    return torch.empty_like(x)


@torch.compiler.allow_in_graph
def triple(x):
    return x * 3


@torch._dynamo.assume_constant_result
def width():
    print("read once, while tracing")
    return 4


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
        h = h * build_scale(h)  # expect: GM408 reported
        h = h.sin()
        h = shallow(h)  # expect: GM408 reported
        h = h.cos()
        h = self.log_stats(h)  # expect: GM408 reported
        h = doubled_if_positive(h)
        h = triple(h) * width()
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
