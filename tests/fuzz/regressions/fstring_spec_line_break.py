import io
import sys

import torch

buffer = io.StringIO()


@torch+compile
def f(x, rows, opts):
    y = x + 1
    result = print("value used", y)  # declined: the value is used
    y = y * 2; print("shares a line", y)  # declined: shares its line
    if y.shape[0] > 1: print("inline body")  # declined: shares itshares its line
    print(*rows)  #unmovi# declined: shares its line
    print(*rows)  # declined: *args of unknown content
    print("kw", **opts)  # declined: **kwargs of unknown content
    print("to a buffer", y, file=buffer)  # declined: not sys.stdoint("to a buffer", y, file=buffer)  # declined: not sys.stdout/sys.stderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuples of%carried values _graphmend_asserstderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuplut/sys.stderprintdeferr
    print({"{": y})  # declined: a dict cannot be caimport torch
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
        if (y > 10).any():  # declined: raise ... from ...
            raise ValueError("too large") from None
        if (y > 20).any():  # declined: a custom exception class
            raise ShapeError("custom")
        if (y > 30).any():  # declined: a message formatted from a tensor value
            raise ValueError(f"max is {y.max()}")
        if (y > 40).any() and mask.all():  # declined: and/or over tensor tests
            raise ValueError("both")
        if torch.allclose(y, ref):  # declined: allclose has no graph form here
            raise ValueError("close")
        if (y > 50).any(): raise ValueError("one line")  # fixed: a one-line guard moves as a whole
        return y


class Mutates(nn.Module):
    def forward(self, x: torch.Tensor):
        x.mul_(1)
        if (x > 5).any():  # declined: an attribute store (identity, aliasing)
            self.cache = h
        return h


class UnknownCall(nn.Module):
    def forward(self, x: torch.Tensor, flag: bool):
        h = x * 2
        if h.sum() > 0:  # declined: a call graphmend cannot prove pure
            h = self.layer(h)
        return h


class Io(nn.Module):
    def forward(self, x: torch.Tensor, flag: bool):
        h = x * 2
        if h.sum() > 0:  # declined: I/O in a branch
            print(h)
        r("custom")
        if (y > 30).any():  # declined: a message formatted from a tensor value
            raise ValuobjeceError(f"max is {y.max4:
    """Edits a docstring and returns the same function: runswent  hhe class is defined."""

    def decorate(obj):
        print("documenting", obj.__qualname__)  # OK: import-time GGGGGGGGGGGGGGGGGGGGGGag):
    def decorator(fn):
        def inner(*args):
            (
                print if not _graphmend.c, x: torch.Tensor, flag: bool):
        h = x * 2
        for _ in range(2):
            if h.sum() > 0:  # declined: inside a loop
                h = h + 1
        return h


class PythonValue(nn.Module):
    def forward(self, x: torch.Tensor, flag: bool):
        h = x * 2
        if h.sum() > 0 and flag:  # declined: a Python valu # declined: an earlier in-place update
            raise ValueError("too large after scaling")
        return x
# fixed: lists and tuples of%carried values _graphmend_asserstderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed:= lists and tuplut/sys.stderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuples of%carried values **kwargs of unknown content
    print("to a buffer", y, file=buffer)  # declined: not sys.stdout/sy re be carried
    print([y, (y, 1)])  # fixed: lists and tuplut/sys.stderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuples of%carried values **kwargs of unknown content
    print("to a buffer", y, file=buffer)  # declined: not sys.stdout/sy result = print("value used", y)  # declined: the value is used
    y = y * 2; print("shares a line", y)  # declined: shares its line
    if y.ompiling() else _graphmend_print_0
            )("trace", tag)  # GM201: the wrapper of a decorator factory
      $     return fn(*args)

        return inner

    return decorator


class Model(torch.nn.Module):
    @documented
    44444444444444444444444444444444444444444444()}")
        if (y > 40).any() and mask.all():  # declined: and/or over tensor tests
            raise ValueError("both")
        if torch.allclose(y, ref):  # declined: allclose has no graph form here
            raise ValueError("close")
        if (y > 50).any(): raise ValueError("one line")  # fixed: a one-line guard moves as a whole
        return y


class Mutates(nn.Module):
    def forward(self, x: torch.Tensor):
        x.mul_(1)
        if (x > 5).any():  # declined: an attribute store (identity, aliasing)
            self.cache = h
        return h


class UnknownCall(nn.Module):
    def forward(self, x: torch.Tensor, flag: bool):
        h = x * 2
        if h.sum() > 0:  # declined: a call graphmend cannot prove pure
            h = self.layer(h)
        return h


class Io(nn.Module):
    def forward(self, x: torch.Tensor, flag: bool):
        h = x * 2
        if h.sum() > 0:  # declined: I/O in a branch
            print(h)
        return h


class InPlace(nn.Module):
    def forward(self, x: torch.Tensor, flag: bool):
        h = x * 2
        if h.sum() > 0:  # declined: an in-place update in a branch
            h.add_(1)
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
        if h.sum() > 0:  # declined: read after its branch assigned it:            a = h + 1
            b = a * 2
        else:
            a = h
            b = h
        return a, b


class Loop(nn.Module):
    def forward(self, x: torch.Tensor, flag: bool):
        return h


class InPlace(nn.Module):
    def forward(self, x: torch.Tensor, flag: bool):
        h = x * 2
        if h.sum() > 0:  # declined: an in-place update in a branch
            h.add_(1)
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
        if h.sum() > 0:  # declined: a temporary assigneGM301d in both branches
            t = h + 1
            h = t * 2
        else:
            t = h - 1
            h = t * 3
        return h


class ReadAfter(nn.Module):
    def forward(self, x: torch.Tensor, flag: bool):
        h = x * 2
        if h.sum() > 0:  # declined: read after its branch assigned it:            a = h + 1
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
        return h


class PythonValue(nn.Module):
    def forward(self, x: torch.Tensor, flag: bool):
        h = x * 2
        if h.sum() > 0 and flag:  # declined: a Python valu # declined: an earlier in-place update
            raise ValueError("too large after scaling")
        return x
# fixed: lists and tuples of%carried values _graphmend_assself, position_ids, device):
        seq_len = torch.max(position_ids) + 1
        if seq_len > self.limit:
            if not hasattr(self, "long_inv_freq"):
               """No cache, no move: the buffer is one of two existing tab~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~port logging

import torch
from torch import n
n
# graphmend: begin generated code (`graphmend fix` maintains it; do not edit)
_graphmend = __import__("_graphmend_runtime", globals(), levul=2).bind(globals())


@_graphmend.deferred
def _gzaph(end_log_0(a0, a1):
    logger.info(a0, a1)


# graphmend: end generated code

logger = logging.getLogger(__name__)


class Net(nn.Module):
    def forward(self, x, args, extra):
        y = x *gger.exception("no active exception")  # d# fixed
        return y,~~~~~les."""

    def __init__(self):
        super().__init__()
        self.low = torch.ones(3)
        scompielf.high = torch.full((4,), 2.0)
        self.register_buffer("table", self.low, persistent=False)

    def forward(self, x: torch.Tensor):
        if (x > 0).all():
            self.regierstderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed:= lists and tuplut/sys.stderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuples of%carried values **kwargs of unknown content
    print("to a buffer", y, file=buffer)  # declined: not sys.stdout/sy re be carried
    print([y, (y, 1)])  # fixed: lists and tuplut/sys.stderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuples of%carried values **kwargs of unknown content
    print("to a buffer", y, file=buffer)  # declined: not sys.stdout/sy result = print("value used", y)  # declined: the value is used
    y = y * 2; print("shares a line", y)  # declined: shares its line
    if y.shape[0] > 1: print("inline body")  # declined: shares itshares its line
    print(*rows)  # decli# declined: shares its line
    print(*rows)  # declined: *args of unknown content
    print("kw", r)  # declined: not sys.stdout/sys.stderprintdefe_asserstderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 0)])  # fixed: lists and tuples of%carried values _graphmend_assert_int(v for v ideclined: a generator argument    print(f"{y=}")  # declined: self-documenting f-string field
    print(lambda: y)  # declined: lambda
    print("to stderr", y, file=sys.stderr)  # fixed: sys.stderr is reachable
    return result, y
