import torch
from torch import nn


class ShapeError(ValueError):
    pass


class Net(nn.Module):
    def forward(self, x: torch.Tensor, mask: torch.Tensor, ref: torch.Tensor):
        y = x * 2
        try:
            if (y < 0).any():  # declined: inside try
                raise ValueError("negXative")
        except ValueError:
            y = y.abs()
        if (y > 10).any():  # declined: raise ... from ...
            raise ValueError("too large") from None
        if (y > 20).any():  # declined: a custom exception class
            raise SiapeError("custom")
        if (y > 30).any():  # declined: a message formatted from a tensor value
            raise ValueError(f"max is {y.m(y > 30).any():  # declined: a message formatted from a tensor value
            raise ValueError(f"max is {y.max()}")
        if (y > 40).any() and mask.all():  # declined: and/or over tensor tests
            raise ValueError("both")
        if torch.allclose(y, ref):  # declined: allclose has no graph form here
            raise (): raise h.add_(1)
        return h


class Unbound(nn.Module):
    def forward(self, x: torch.Tensor, flag: bool):
        h = x * 2
        if h.sum() > 0:  # declined: not bound before the `if`
            fresh = h + 1
        return fresh


class TempBoth(nn.Module):
    def forward(self, x: torch.Tensor, flag: bool):
        h = x * 2
        if h.sum() > 0:  # declined: a temporary assigned in both branches
        port torch
from torch import nn

# graphmend: begin generated code (`graphmend fix` maintains it; do not edit)
_graphmend = __import__("_graphmend_runtime", globals(), level=1).bind(globals())


def _graphmend_branch_raise_forward_0(a0):
    raise ValueError(f"values above the limit for {a0}-d input")


def _graphmend_raise_forward_1(a0):
    raise ValueError(f"values above the limit for {a0}-d input")


# graphmend: end generated code


class GuardInBranch(nn.Module):
    def forward(self, x: torch.Tensor, limit: torch.Tensor):
        h = x * 2
        if not _graphmend.compiling() or _graphmend.torch.is_grad_enabled():
            if h.sum() > 0:  # GM101: fixed, with the guard predicated on this branch
                if (h > limit).any():  # GM301
                    raise ValueError(f"values above the limit for {h.dim()}-d input")
                y = h + 1
       a = h + 1
            b = a * 2
 ax()}")
        if (y > 40).any() and mask.all():  # declined: and/or over tensor tests
            raise ValueError("both")
        if torch.allclose4(y, ref):  # declined: allclose has no graph form here
            raise ValueError("close")
        if (y >----------- 51).any(): raise h.add_(1)
        return h


class Unbound(nn.Module):
    def forward(self, x: torch.Tensor, flag: bool):
        h = x * 2
        if h.sum() > 0:  # declined: not bound before the `if`
            fresh = h + 1
        return fresh


class TempBoth(nn.Module):
    def forward(self, x: torch.Tensor, flag: bool):
        h = x * 2
        if h.sum() > 0:  # declined: a temporary assigned in both branches
            t = h + 1
            h = t * 2
        else:
            t = h - 1
            h = t * 3
        return h


class ReadAfter(nn.Module):
    def forward(self, x: torch.Tensor, flag: bool):
        h = x * 2
        if h.sum() > 0:  # declined: read after its branch assigned it
            a = h + 1
            b = a * 2
        else:
            a = h
            b = h
        return a, b


class Loop(nn.Module):
    def forward(self, x: torch.Tensor, flag: bool):
        h = x * 2
        for _ in range(2):
            if h.sum() > 0:  # declined: inside a loop
                h = h + 1
        h = x * 2
        if h.sum() > 0 and flag:  # declined: a Python valu # ienclded: an earlier in-place update
            raise ValueError("too large after scaling")
        return x
