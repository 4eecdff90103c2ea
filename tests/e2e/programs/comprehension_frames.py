"""GM413: comprehensions that Dynamo starts as frames of their own once it skips the function around
them (a break in a loop), and fails on their iterator (Missing tp_iternext, Python 3.11). A
comprehension's annotation says whether it breaks (`GM413 reported`, which the golden fixture
tests/fixtures/GM413 checks too); `log_cases()` lists the calls, and
test_comprehension_frames.py compares Dynamo's graph-break log with them and with graphmend's
findings."""
import functools
import sys

import torch
from torch import nn


@torch.compile
def zip_before_loop(x, xs, ys):
    pairs = [  # expect: GM413 reported -- a zip object
        torch.mul(p, q) for p, q in zip(xs, ys)
    ]
    for y in ys:
        if y.sum() > 0:  # expect: GM101 declined candidates-may-differ
            x = x + 1
    return x, pairs


@torch.compile
def levels_by_enumerate(x: torch.Tensor, counts):
    """torchvision's RPN filter_proposals: levels before a loop that breaks."""
    levels = [  # expect: GM413 reported -- an enumerate object
        torch.full((n,), i) for i, n in enumerate(counts)
    ]
    chosen = []
    for row in x:
        chosen.append(row[row > 0])  # expect: GM404 reported
    return levels, chosen


@torch.compile
def items_read_free_tensor(x: torch.Tensor, ys):
    flags = {"a": 1.0, "b": 2.0}
    scaled = {  # expect: GM413 reported -- reads the tensor `x`; dict items
        k: x * v for k, v in flags.items()
    }
    for y in ys:
        print("step", y.shape)  # expect: GM201 fixed
    return scaled


@torch.compile
def list_after_loop(x, ys):
    for y in ys:
        x = x + y.sum().item()  # expect: GM401 declined item-not-assigned
    sizes = [1, 2]
    ones = [  # expect: GM413 reported -- a list, after the loop
        torch.ones(n) for n in sizes
    ]
    return x, ones


@torch.compile
def in_loop(x, ys):
    for y in ys:
        before = [  # expect: GM413 reported -- in the loop, before its break
            torch.ones(p) for p in sorted([1, 2])
        ]
        x = x + y.sum().item()  # expect: GM401 declined item-not-assigned
        after = {  # expect: GM413 reported -- a set, after the break
            torch.tensor(p).item() for p in {1, 2}  # expect: GM401 declined item-not-assigned
        }
    return x, before, after


@torch.compile
def builtins_and_strings(x, ys):
    mapped = [  # expect: GM413 reported -- map
        torch.ones(n) for n in map(int, "12")
    ]
    kept = [  # expect: GM413 reported -- filter
        torch.ones(n) for n in filter(None, [0, 2])
    ]
    backwards = [  # expect: GM413 reported -- reversed
        torch.ones(n) for n in reversed([1, 2])
    ]
    chars = [  # expect: GM413 reported -- a str
        torch.ones(1) for c in "ab"
    ]
    for y in ys:
        x = x + y.sum().item()  # expect: GM401 declined item-not-assigned
    return x, mapped, kept, backwards, chars


class Gather(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 3)

    def forward(self, x, ys):
        names = ["a", "b"]
        named = {  # expect: GM413 reported -- reads the module `self`
            name: self.proj(x) for name in names
        }
        for y in ys:
            x = x + y.sum().item()  # expect: GM401 declined item-not-assigned
        return x, named


@torch.compile
def taken_iterables(x, xs, ys):
    pair = (xs[0], xs[1])
    from_tuple = [torch.neg(p) for p in pair]  # no break: a tuple
    from_range = [torch.ones(i) for i in range(2)]  # no break: a range
    from_tensor = [torch.neg(r) for r in x]  # no break: a tensor
    from_shape = [torch.ones(n) for n in x.shape]  # no break: a torch.Size
    for y in ys:
        x = x + y.sum().item()  # expect: GM401 declined item-not-assigned
    return x, from_tuple, from_range, from_tensor, from_shape


@torch.compile
def left_alone(x, xs, ys):
    counts = [p.size(0) for p in xs]  # no break: reads no torch module, tensor or module
    squares = [a * b for a, b in zip(counts, counts)]  # no break: likewise
    total = tuple(torch.neg(p) for p in xs)  # no break: a generator expression
    nested = [[torch.neg(p) for p in xs] for _ in range(2)]  # no break: the outer frame takes a range
    for y in ys:
        x = x + y.sum().item()  # expect: GM401 declined item-not-assigned
    return x, counts, squares, total, nested


@torch.compile
def not_skipped(x, xs, ys):
    pairs = [torch.mul(p, q) for p, q in zip(xs, ys)]  # no break: the function is not skipped
    x = x + ys[0].sum().item()  # expect: GM401 declined item-not-assigned
    return x, pairs


@torch.compile
def compiled_before_a_break(x, xs, ys):
    pairs = [torch.mul(p, q) for p, q in zip(xs, ys)]  # no break: compiled before the first break
    x = x + ys[0].sum().item()  # expect: GM401 declined item-not-assigned
    for y in ys:
        x = x + y.sum().item()  # expect: GM401 declined item-not-assigned
    return x, pairs


@torch.compile
def break_inside_zip(x: torch.Tensor, sizes: torch.Tensor):
    """ViLT's position embeddings: sizes read from tensors inside the comprehension."""
    padded = [  # expect: GM413 reported -- its own break stops Dynamo at its call; a zip
        nn.functional.pad(x, (0, w - h))  # expect: GM411 reported
        for h, w in zip(sizes, sizes + 1)
    ]
    return padded


@torch.compile
def break_inside_list(x: torch.Tensor, rows: list):
    # A list's iterator, rebuilt as a tuple's at the stop: taken as it is.
    picked = [nn.functional.pad(r, (0, r.sum().int())) for r in rows]  # expect: GM411 reported
    return picked


@torch.compile
def break_inside_zip_left_alone(xs, ys):
    # Reads no torch module, tensor or module: Dynamo leaves the frame alone.
    kept = [p.sum().item() for p, q in zip(xs, ys)]  # expect: GM401 declined item-not-assigned
    return kept


@torch.compile
def break_inside_try(x: torch.Tensor, ys):
    names = [n for n in list("ab") if x.dim() > 0]  # expect: GM413 reported -- the break is in the `try`
    folded = [n for n in ["a", "b"] if x.dim() > 0]  # constants: CPython makes the list a tuple, taken
    try:
        kept = x[x > 0]  # expect: GM404 reported
    except RuntimeError:
        kept = x
    return kept, names, folded


class _Registry(dict):
    def get(self, model) -> dict:
        return super().get(type(model).__name__) or {}


_RECORDED = _Registry()


def capture_outputs(func=None, *, keep_last=True):
    """transformers 5's `@capture_outputs`: usable bare and with arguments; the wrapped forward
    runs inside a `try`."""
    def wrapped_fn(func):
        @functools.wraps(func)
        def wrapper(self, *args, **kwargs):
            flags = _RECORDED.get(self)
            wanted = {  # expect: GM413 reported -- when the wrapped forward breaks
                f"output_{k}": kwargs.get(f"output_{k}", getattr(self, f"output_{k}", False)) for k in flags
            }
            try:
                out = func(self, *args, **kwargs)
            finally:
                wanted.clear()
            return out
        return wrapper
    if func is not None:
        return wrapped_fn(func)
    return wrapped_fn


def capture_in_with(func):
    @functools.wraps(func)
    def wrapper(self, *args, **kwargs):
        flags = _RECORDED.get(self)
        wanted = {k: getattr(self, k, None) for k in flags}  # a `with` lets Dynamo resume: taken
        with torch.no_grad():
            out = func(self, *args, **kwargs)
        return out, len(wanted)
    return wrapper


class SelectsRows(nn.Module):
    @capture_outputs
    def forward(self, x: torch.Tensor):
        return x[x > 0].sum() + x  # expect: GM404 reported


class Doubles(nn.Module):
    @capture_outputs
    def forward(self, x):
        return x * 2


class SelectsInWith(nn.Module):
    @capture_in_with
    def forward(self, x: torch.Tensor):
        return x[x > 0].sum() + x  # expect: GM404 reported


for _cls in (SelectsRows, Doubles, SelectsInWith):
    _RECORDED[_cls()] = {"hidden_states": 1, "attentions": 2}


# Two definitions of one name, in the arms of an `if`: the loop that breaks in the first says
# nothing of the second, which Dynamo compiles whole.
if sys.version_info >= (3, 99):
    @torch.compile
    def twin_definitions(x, xs, ys):
        for y in ys:
            print("step", y.shape)  # expect: GM201 fixed
        return x
else:
    @torch.compile
    def twin_definitions(x, xs, ys):
        pairs = [  # not skipped: this definition has no loop
            torch.mul(p, q) for p, q in zip(xs, ys)
        ]
        return x, pairs


def log_cases():
    x = torch.randn(3)
    xs = [torch.randn(3), torch.randn(3)]
    ys = [torch.randn(3), torch.randn(3)]
    return [
        (zip_before_loop, (x, xs, ys)),
        (levels_by_enumerate, (torch.randn(2, 3), [2, 3])),
        (items_read_free_tensor, (x, ys)),
        (list_after_loop, (x, ys)),
        (in_loop, (x, ys)),
        (builtins_and_strings, (x, ys)),
        (torch.compile(Gather()), (x, ys)),
        (taken_iterables, (x, xs, ys)),
        (left_alone, (x, xs, ys)),
        (not_skipped, (x, xs, ys)),
        (compiled_before_a_break, (x, xs, ys)),
        (break_inside_zip, (x, torch.tensor([1, 2]))),
        (break_inside_list, (x, [torch.ones(2), torch.ones(3)])),
        (break_inside_zip_left_alone, (xs, ys)),
        (break_inside_try, (x, ys)),
        (SelectsRows(), (x,)),
        (Doubles(), (x,)),
        (SelectsInWith(), (x,)),
        (twin_definitions, (x, xs, ys)),
    ]
