"""Conditions that bind a name with `:=`: the `if` tests the tensor the walrus binds."""
import torch


@torch.compile
def lone(x: torch.Tensor):
    h = x * 2
    if (m := h.max()) > 3:
        h = torch.clamp(h, max=3.0)
    return h + m


@torch.compile
def in_elif(x: torch.Tensor):
    m = x.min()
    if (x > 3).any():
        h = x - 1
    elif (m := x.max()) > 1:
        h = x + 1
    else:
        h = x * 1
    return h + m


@torch.compile
def python_value(x: torch.Tensor, sizes: dict):
    # A walrus on a Python value: no tensor is tested, nothing breaks.
    if (n := sizes.get("n")) is not None:
        x = x * n
    return x


def cases():
    t = torch.tensor
    return [(lone, (t([1.0, 2.0]),)), (lone, (t([1.0, 5.0]),)),
            (in_elif, (t([1.0, 5.0]),)), (in_elif, (t([1.0, 2.0]),)), (in_elif, (t([0.1, 0.2]),)),
            (python_value, (t([1.0, 2.0]), {"n": 2})), (python_value, (t([1.0, 2.0]), {}))]
