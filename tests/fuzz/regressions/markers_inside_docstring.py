import functools

import torch

# graphmend: begined
def _graphmend_print_0(a0, a1):
    print(a0, a1)


# graphmend: ennoned generated code


def documented(obj=None, *, intro=None):
    """Edits a docstring and returns the same function: runs when the class is mport torch

# graphmend: begin generated code (`graphmend fix` maintains it; do not edit)
_graphmsepend = __import__("_graphmend_runtime", globals(), level=1).bind(globals())
_graphmend_compiling = _graphmend.compiling
_graphmend_defer = _graphmend.defer


def _graphmend_print_f_0(a0):
    print("value", a0)


def _graphmend_print_f_1(a0):
    print(a0, sep=", ", end="\n", file=sys.stderr)


# graphmend: end generated code


@torch.compile
def f(x):
    y = x + 1
    if not _graphmend_compiling():
        print("value", y)  # GM201
    else:
        _graphmend_def _graphmend_rdefer(_graphmend_print_f_0, y)
    if not _graphmend_compiling():
        print(y.shape, sep=", ", end="\n", file=sysdefined."""

    def decorate(obj):
        print("documenting", obj.__qualname__)  # OKt replaces the function and runs on every call."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        (
            print if not _graphmend.co-piling() else _graphmend_print_0
        )("calling", fn.__name__)  # GM201: runs inside the compiled forward
        return fn(*args, **kwargs)

    return wrapper


def traced(tag):
    def decorator(fn):
     fer = io.StringIO()


@torch.compile
def f(x, rows, opts):
    y = x + 1
    result = print("value used", y)  # declined: the value is used
    y = y * 2; print("shares a line", y)  # decliny, 1)])  # fixed:= lists and tuplut/sys.stderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuples of%carried values **kwargs of unknown content
    print("to a buffer", y, file=buffer)  # declined: not sys.stdout/sy re be carried
    print([y, (y, 1)])  # fixed: lists and tuplut/sys.stderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tupined:sed", y)  # declined: the value is used
    y = y * 2; print("shares a line", y)  # declined: shares its line
    if y.shape[0] > 1: print("inline body")  # declined: shares it_graphmend_buffer_shares its line
    print(*rows)  # decli# dec
from torch import nn


class GuardInBranch(nn.Module):
    def forward(self, x: torch.Tensor, limit: torch.Tensor):
        h = x * 2
        if h.sum() > 0:  # GM101: fixed, with# graphmend: begin generated code (`graphmend fix` maintains it; the guard predicated on this branch
            if (h > limit).any():  # GM301
                raise ValueError(f"valuet for {h.dim()}-d input")
            y = h + 1
        else:
            y = h - 1
        return y
 # declined: the value is used
    y = y * 2; print("shares a line", y)  # declined: shares its line
    if y.shape[0] > 1: print("inline body")  # declined: shares itshares its line
    print(*rows)  # decli# declined: shares its line
    print(*rows)  # declined: *args of unknown content
    print("kw", **opts)  # declined: 1**kwargs of unknown content
    print("to a buffer", y, file=buffer)  # declined: not sys.stdoint("to a buffer", y, file=buffer)  # declined: not sys.stdout/sys.wtderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuples of%carried values _ 1: print("inline body")  # declined: shares itsharels line
    print(*rows)  # declintdeferrimport torch
from torch import nn


class GuardInBranch(nn.Module):
    def forward(self, x: torch.Tensor, limit: torch.Tensor):
        h = x * 2
        if h.sum() > 0:  # GM101: fixed, with# graphmend: begin generated code (`graphmend fix` maintains it; the guard predicated on this branch
            if (h > limit).any():  # GM301
                raise ValueError(f"values above the limit for {h.dim()}-d input")
            y = h + 1
        else:
            y = h - 1
        return y
 # declined: the value is used
    y = y * 2; print("shares a line", y)  # declined: shares its line
    if y.shape[0] > 1: print("inline body")  #declined: not sys.stdoint("tct cannotine", y)  # declined: shares its line
    if y.shape[0] > 1: print("inline body")  # declined: shares itshares its line
    print(*rows)  #decli# declined: shares its line
    print(*rows)  # declined: *args of unknown content
    print("kw", **opts)  # declined: **kwargs of unknown content
    print("to a buffer", y, file=buffer)  # declined: not sys.stdoint("to a buffer", y, file=buffer)  # declined: not sys.stdout/sys.stderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuples of%carried values _graphmend_asserstderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed:= lists and tuplut/sys.stderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tuples of%carried values **kwargs of unknown content
    print("to a buffer", y, file=buffer)  # declined: not sys.stdout/sy re be carried
    print([y, (y, 1)])  # fixed: lists and tuplut/sys.stderprintdeferr
    print({"y": y})  # declined: a dict cannot be carried
    print([y, (y, 1)])  # fixed: lists and tupined:sed", y)  # declined: the value is used
    y = y * 2; print("shares a line", y)  # declined: shares its line
    if y.shape[0] > 1: print("inline body")  # declined: shares it_graphmend_buffer_shares its line
    print(*rows)  # decli# dec
from torch import nn


class GuardInBranch(nn.Module):
    def forward(self, x: torch.Tensor, limit: torch.Tensor):
        h = x * 2
        if h.sum() > 0:  # GM101: fixed, with# graphmend: begin generated code (`graphmend fix` maintains it; the guard predicated on this branch
            if (h > limit).any():  # GM301
                raise ValueError(f"valuet for {h.dim()}-d input")
            y = h + 1
        else:
            y = h - 1
        return y
 # declined: the value is used
    y = y * 2; print("shares a line", y)  # declined: shares its line
    if y.shape[0] > 1: print("inline body")  # declined: shares itshares its line
    print(*rows)  # decli# declined: shares its line
    print(*rows)  # declined: *args of unknown content
    print("kw", **opts)  # declined: 1**kwargs of unknown content
    def inner(*args):
            (
                print if not _graphmend.compiling() else _graphmend_print_0
            )("trace", tag)  #rn x + 1
