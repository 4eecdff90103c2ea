"""GM411: a tensor computed in the graph and used as a size (of a new tensor, a view, a repeat, a
split, a pad, top-k's k) asks Dynamo for its value as a Python int, which the graph does not have:
it breaks at the call (GB0033 Data dependent operator). Each call is followed by tensor work, so
every split shows.

After the split the tensor is an input of the graph that resumes, and Dynamo reads an input's
value while it traces (specialising on it), so a second use of the same name breaks nothing: only
the first is reported, and not even that one when another split (a tensor branch, a print) lies
between the size's definition and its use. A branch on Python values between them splits nothing. Sizes read from shapes (`x.shape[0]`, `x.size(1)`) are static and break
nothing, nor does a torch function of such sizes (`torch.div(x.size(0), 2, rounding_mode="trunc")`,
which Dynamo folds to a constant, as Longformer's chunking does), nor a tensor in a place that
takes a tensor (the fill value of torch.full), nor a size that arrives as an argument of the
compiled function (Dynamo reads an input's value); arithmetic on such an argument, or an element
of it, is computed in the graph and breaks."""
from typing import Optional

import torch
import torch.nn.functional as F
from torch import nn


def count(x: torch.Tensor):
    return (x > 0).sum() // 2 + 1


@torch.compile
def new_tensors(x: torch.Tensor):
    y = x * 2
    a = torch.zeros(count(x))  # expect: GM411 reported
    y = y + 1
    b = torch.ones((count(x), 2))  # expect: GM411 reported
    y = y - 1
    c = torch.empty(count(x), 3)  # expect: GM411 reported
    y = y * 3
    d = torch.full((count(x),), 1.0)  # expect: GM411 reported
    y = y + 2
    e = torch.rand(count(x))  # expect: GM411 reported
    y = y - 2
    f = torch.randn([2, count(x)])  # expect: GM411 reported
    y = y * 4
    g = torch.arange(count(x))  # expect: GM411 reported
    y = y + 3
    h = torch.arange(0, x.max().long() + 2)  # expect: GM411 reported
    y = y - 3
    i = torch.eye(count(x))  # expect: GM411 reported
    y = y * 5
    j = torch.randperm(count(x))  # expect: GM411 reported
    y = y + 4
    k = x.new_zeros(count(x))  # expect: GM411 reported
    y = y - 4
    m = x.new_ones((count(x), 2))  # expect: GM411 reported
    y = y * 6
    o = x.new_empty(count(x))  # expect: GM411 reported
    y = y + 5
    p = x.new_full((count(x),), 2.0)  # expect: GM411 reported
    y = y - 5
    q = torch.zeros(size=(count(x),))  # expect: GM411 reported
    y = y * 7
    return y, (a, b, c, d, e, f, g, h, i, j, k, m, o, p, q)


@torch.compile
def reshaped(x: torch.Tensor):
    y = x * 2
    a = x.view(count(x), -1)  # expect: GM411 reported
    y = y + 1
    b = x.reshape(-1, count(x))  # expect: GM411 reported
    y = y - 1
    c = x[:1].expand(count(x), 6)  # expect: GM411 reported
    y = y * 3
    d = x.repeat(count(x))  # expect: GM411 reported
    y = y + 2
    e = x.tile((count(x),))  # expect: GM411 reported
    y = y - 2
    f = x.narrow(0, 0, count(x))  # expect: GM411 reported
    y = y * 4
    g = x.topk(count(x))  # expect: GM411 reported
    y = y + 3
    h = x.roll(count(x))  # expect: GM411 reported
    y = y - 3
    i = x.split(count(x))  # expect: GM411 reported
    y = y * 5
    j = torch.split(x, count(x))  # expect: GM411 reported
    y = y + 4
    k = x.chunk(count(x))  # expect: GM411 reported
    y = y - 4
    m = x.unflatten(0, (count(x), -1))  # expect: GM411 reported
    y = y * 6
    o = F.pad(x, (0, count(x)))  # expect: GM411 reported
    y = y + 5
    p = F.interpolate(x.view(1, 1, -1), size=count(x))  # expect: GM411 reported
    y = y - 5
    q = torch.linspace(0, 1, count(x))  # expect: GM411 reported
    y = y * 7
    r = F.interpolate(x.view(1, 1, -1), scale_factor=2.0)
    y = y + 6
    return y, (a, b, c, d, e, f, g, h, i, j, k, m, o, p, q, r)


@torch.compile
def static_sizes(x: torch.Tensor):
    n = x.shape[0] // 2
    y = x * 2
    a = torch.zeros(n, x.size(0))
    y = y + 1
    b = x.view(n, -1)
    y = y - 1
    c = torch.full((3,), y.sum())
    y = y * 3
    e = torch.arange(x.numel())
    y = y - 2
    chunks = torch.div(x.size(0), 2, rounding_mode="trunc")
    f = x.view(chunks, -1)
    y = y * 4
    g = x.new_zeros(torch.div(x.size(0), 3, rounding_mode="floor") + 1)
    y = y + 3
    return y, (a, b, c, e, f, g)


@torch.compile
def one_size_twice(x: torch.Tensor):
    n = (x > 0).sum() + 1
    y = x * 2
    a = torch.zeros(n)  # expect: GM411 reported
    y = y + 1
    b = x.new_ones(n)
    y = y - 1
    m = n * 2
    y = y * 3
    c = torch.arange(m)  # expect: GM411 reported
    y = y + 2
    return y, (a, b, c)


@torch.compile
def split_before_use(x: torch.Tensor):
    n = (x > 0).sum() + 1
    y = x * 2
    if y.sum() > 100:  # expect: GM101 fixed
        y = y + 1
    a = torch.zeros(n)
    y = y - 1
    m = (x > 1).sum() + 1
    print("sizes ready")  # expect: GM201 fixed
    b = x.new_ones(m)
    y = y * 3
    return y, (a, b)


@torch.compile
def static_branch_between(x: torch.Tensor):
    n = (x > 0).sum() + 1
    y = x * 2
    if x.dim() == 1 and isinstance(x, torch.Tensor):
        y = y + len(x)
    a = torch.zeros(n)  # expect: GM411 reported
    y = y - 1
    return y, a


@torch.compile
def given_size(x: torch.Tensor, n: torch.Tensor, lengths: torch.Tensor):
    y = x * 2
    a = torch.zeros(n)
    y = y + 1
    b = torch.zeros(n + 1)  # expect: GM411 reported
    y = y - 1
    c = torch.arange(lengths[0])  # expect: GM411 reported
    y = y * 3
    return y, (a, b, c)


@torch.compile
def sizes_from_zip(x: torch.Tensor):
    """ViLT's position embeddings: sizes unpacked from `zip` of two tensors in a comprehension."""
    y = x * 2
    heights = (y > 0).sum(dim=(1, 2, 3)) % 3 + 1
    widths = (y < 0).sum(dim=(1, 2, 3)) % 3 + 1
    return [F.interpolate(y[:1], size=(h, w)) for h, w in zip(heights, widths)]  # expect: GM413 reported, GM411 reported


@torch.compile
def sizes_inside_calls(x: torch.Tensor):
    """A size among another call's arguments (`out.append(torch.arange(n))`; two sizes in one
    `meshgrid`, as GroundingDINO's reference points): the call around them runs after its arguments,
    and a size after the first split is an input of the graph that resumes, which splits nothing."""
    n = (x > 0).sum() + 1
    m = (x < 0).sum() + 1
    y = x * 2
    out = []
    out.append(torch.arange(n))  # expect: GM411 reported
    y = y + 1
    gy, gx = torch.meshgrid(torch.arange(n + 1), torch.arange(m), indexing="ij")  # expect: GM411 reported
    y = y - 1
    return y, out, gy, gx


class CausalMask(nn.Module):
    """PaliGemma's and Gemma 3's mask size: a Python condition picks a static size or one computed
    from `cache_position`. Without an attention mask the computed one is taken and breaks; the
    mask's `.dim()` test between the definition and the use splits nothing."""

    def forward(self, x: torch.Tensor, attention_mask: Optional[torch.Tensor] = None,
                cache_position: Optional[torch.Tensor] = None):
        return x.sum() + self.mask(attention_mask, cache_position, x).sum()

    def mask(self, attention_mask, cache_position=None, input_tensor=None):
        sequence_length = input_tensor.shape[1]
        if isinstance(attention_mask, str):
            target_length = len(attention_mask)
        else:
            target_length = (
                attention_mask.shape[-1]
                if isinstance(attention_mask, torch.Tensor)
                else cache_position[0] + sequence_length + 1
            )
        if attention_mask is not None and attention_mask.dim() == 4:
            return attention_mask
        return torch.full((sequence_length, target_length), fill_value=-1.0)  # expect: GM411 reported


def cases():
    return [
        (new_tensors, (torch.randn(6),)),
        # Three positive elements: count(x) == 2, which view(count, -1) and reshape(-1, count)
        # accept; a random input with six positives (count 4) made the program itself raise.
        (reshaped, (torch.tensor([0.3, -1.2, 0.8, -0.4, 1.1, -0.7]),)),
        (static_sizes, (torch.randn(6),)),
        (one_size_twice, (torch.randn(6),)),
        (split_before_use, (torch.randn(6),)),
        (static_branch_between, (torch.randn(6),)),
        (given_size, (torch.randn(6), torch.tensor(3), torch.tensor([2, 4]))),
        (CausalMask(), (torch.randn(2, 3), None, torch.arange(3))),
        (sizes_from_zip, (torch.randn(2, 3, 4, 4),)),
        (sizes_inside_calls, (torch.tensor([0.3, -1.2, 0.8, -0.4, 1.1, -0.7]),)),
    ]
