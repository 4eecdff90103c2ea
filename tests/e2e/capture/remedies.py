"""What the capture flags do, site by site (GM401-GM404, GM406, GM411, GM412): each function holds
one site, and test_capture_remedies.py checks the remedy graphmend's finding gives for it against
torch: `data`, the flag alone keeps the function in one graph (fullgraph=True, outputs identical,
no recompile); `control`, the value decides Python control flow and the flags do not help;
`elsewhere`, the value, or a tensor whose size it sets, goes on to code the finding does not follow
(a call, a return). A full reduction (`.sum()`) ends a data-dependent size: its result has one
element."""
import math

import torch


def count(x: torch.Tensor):
    return (x > 0).sum()  # computed in the graph: Dynamo does not know its value


@torch.compile
def item_operand(x: torch.Tensor):
    s = count(x).item()
    return x * s


@torch.compile
def item_size(x: torch.Tensor):
    n = count(x).item()
    return (torch.zeros(n) + 1).sum()


@torch.compile
def item_arange_end(x: torch.Tensor):
    return (torch.arange(count(x).item()) * 2).sum()


@torch.compile
def item_slice_bound(x: torch.Tensor):
    n = count(x).item()
    return (x[:n] * 2).sum()


@torch.compile
def item_index(x: torch.Tensor):
    n = count(x).item()
    return x[n - 1] * 2


@torch.compile
def item_max_builtin(x: torch.Tensor):
    n = max(count(x).item(), 1)
    return (torch.ones(n, 2) * 3).sum()


@torch.compile
def int_size(x: torch.Tensor):
    return (torch.ones(int(count(x))) * 2).sum()


@torch.compile
def float_operand(x: torch.Tensor):
    return x * float(x.max())


@torch.compile
def tolist_split_sizes(x: torch.Tensor):
    sizes = torch.stack([count(x), x.shape[0] - count(x)]).tolist()
    return (x.split(sizes)[0] * 2).sum()


@torch.compile
def nonzero_index_add(x: torch.Tensor):
    idx = torch.nonzero(x > 0).squeeze(-1)
    out = torch.zeros_like(x)
    out.index_add_(0, idx, x[idx] * 2)
    return out


@torch.compile
def mask_sum(x: torch.Tensor):
    return x[x > 0].sum()


@torch.compile
def nonzero_shape_as_size(x: torch.Tensor):
    idx = (x > 0).nonzero()
    return (torch.zeros(idx.shape[0]) + 1).sum()


@torch.compile
def unique_values(x: torch.Tensor):  # a full reduction: one element, whatever the size
    return (torch.unique(x.round()) * 2).sum()


@torch.compile
def tensor_as_size(x: torch.Tensor):
    k = count(x)
    return (torch.arange(k) * 2).sum()


@torch.compile
def tensor_slice_bound(x: torch.Tensor):
    return (x[: count(x)] * 2).sum()


@torch.compile
def item_if(x: torch.Tensor):
    n = count(x).item()
    if n > 2:
        return x + 1
    return x - 1


@torch.compile
def item_conditional(x: torch.Tensor):
    n = count(x).item()
    y = x + 1 if n > 2 else x - 1
    return y * 2


@torch.compile
def item_range(x: torch.Tensor):
    out = x.clone()
    for _ in range(count(x).item()):
        out = out + 1
    return out


@torch.compile
def nonzero_shape_if(x: torch.Tensor):
    idx = (x > 0).nonzero()
    if idx.shape[0] == 0:
        return x
    return x * 2


@torch.compile
def nonzero_loop(x: torch.Tensor):
    out = x.clone()
    for i in torch.nonzero(x > 0):
        out = out + i
    return out


@torch.compile
def item_size_returned(x: torch.Tensor):
    n = count(x).item()
    return torch.zeros(n) + 1  # a size the caller may branch on


def scale_by(x: torch.Tensor, n):
    if n > 2:
        return x * n
    return x


@torch.compile
def item_passed_on(x: torch.Tensor):
    n = count(x).item()
    return scale_by(x, n)


@torch.compile
def equal_as_number(x: torch.Tensor):
    return x * torch.equal(x, x.clone())


@torch.compile
def math_of_tensor(x: torch.Tensor):
    return x * math.sqrt(x.abs().max())


# What graphmend's finding should say, per function.
EXPECTED = {
    "item_operand": ("GM401", "data"), "item_size": ("GM401", "data"), "item_arange_end": ("GM401", "data"),
    "item_slice_bound": ("GM401", "data"), "item_index": ("GM401", "data"), "item_max_builtin": ("GM401", "data"),
    "int_size": ("GM403", "data"), "float_operand": ("GM403", "data"), "tolist_split_sizes": ("GM402", "data"),
    "nonzero_index_add": ("GM404", "data"), "mask_sum": ("GM404", "data"), "nonzero_shape_as_size": ("GM404", "data"),
    "unique_values": ("GM404", "data"), "tensor_as_size": ("GM411", "data"), "tensor_slice_bound": ("GM412", "data"),
    "item_if": ("GM401", "control"), "item_conditional": ("GM401", "control"), "item_range": ("GM401", "control"),
    "nonzero_shape_if": ("GM404", "control"), "nonzero_loop": ("GM404", "control"),
    "item_passed_on": ("GM401", "elsewhere"), "item_size_returned": ("GM401", "elsewhere"), "equal_as_number": ("GM406", "control"),
    "math_of_tensor": ("GM406", "control"),
}

# One input with a count of 0 (an empty slice, an empty nonzero), two others.
INPUTS = [torch.tensor([1.0, -2.0, 3.0, 0.0, 5.0]), torch.tensor([-1.0, -2.0, -3.0, 0.0, -5.0]),
          torch.tensor([4.0, 2.0, 3.0, 1.0, 5.0])]
