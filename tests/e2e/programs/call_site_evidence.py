"""Unannotated code typed by its compiled callers (issue 16, item 4): a parameter that a compiled
call passes a tensor is a tensor there, whatever its annotation says (EnCodec's `_pad1d`)."""
import torch
import torch.nn as nn
from typing import Tuple


def scale(v, k):
    if v > k:  # a tensor from Outer.forward: breaks
        return v * 2
    return v


def offset(n):
    if n > 2:  # only ever an int: no break
        return n + 1
    return n


def first_of(pair):
    count, t = pair
    if count > 1:  # the int half of a mixed tuple: no break
        return t + count
    return t


def outer_helper(v):
    return inner_helper(v) + 1


def inner_helper(w):
    if w < 0:  # a tensor two calls down: breaks
        return -w
    return w


def eager_only(v):
    if v > 0:  # called with a tensor, but only from code that is not compiled
        return v
    return -v


class Inner(nn.Module):
    def forward(self, x):
        if x.max() > 0:  # breaks (a tensor method)
            x = x + 1
        if x > 0:  # x is a tensor at the only call: breaks
            x = x * 2
        return x


class Pad(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("total", torch.tensor(3), persistent=False)

    @staticmethod
    def _pad1d(hidden: torch.Tensor, paddings: Tuple[int, int]):
        length = hidden.shape[-1]
        left, right = paddings
        biggest = max(left, right)  # Dynamo takes max of tensors as a tensor: no break
        if length <= biggest:  # the annotation says ints; the caller passes buffers: breaks
            hidden = hidden + 1
        return hidden

    def forward(self, hidden):
        extra = (hidden.sum() > 0).long()
        return self._pad1d(hidden, (self.total, extra))


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Inner()
        self.pad = Pad()

    def forward(self, x: torch.Tensor):
        y = self.inner(x.sum())
        z = x * scale(x.sum(), k=0.5) + offset(3) + first_of((2, x))
        return self.pad(z) + y + outer_helper(x.mean())


def run_eagerly():
    return eager_only(torch.ones(()))


def cases():
    return [(Outer(), (torch.ones(4),)), (Outer(), (-torch.ones(4),))]
