"""[Where] forms: `if` statements on one-element tensors that select tensor values.

Each case lists inputs that take every branch (including NaN, +-inf, 0-d and one-element
conditions); test_where.py compares the original (eager) with the graphmend-patched copy, eager
and compiled, bit for bit, and counts graphs (no break, no recompile when the branch flips).
"""
from __future__ import annotations

import torch
from torch import nn


class IfElse(nn.Module):
    def forward(self, x: torch.Tensor):
        h = x * 2
        if h.sum() > 0:
            scale = 3.0
            y = h * scale
        else:
            y = h - 1
        return y + 1


class TemporaryInBothBranches(nn.Module):
    """Each branch assigns `t` and reads only its own: computed one after the other, each reads
    the value it just made (and `t` is dead after the `if`)."""

    def forward(self, x: torch.Tensor):
        h = x * 2
        if h.sum() > 0:
            t = h * 3
            y = t + 1
        else:
            t = h - 3
            y = t * 2
        return y


class NotFiniteAll(nn.Module):
    def forward(self, x: torch.Tensor):
        h = x * 2
        if not torch.isfinite(h).all():
            h = torch.nan_to_num(h)
        return h


class AnyOrAny(nn.Module):
    def forward(self, x: torch.Tensor):
        h = x * 2
        if torch.isinf(h).any() | torch.isnan(h).any():
            h = torch.clamp(h, -1.0, 1.0)
        return h


class ReturnBoth(nn.Module):
    def forward(self, x: torch.Tensor):
        h = x + 1
        if (h > 0).all():
            return h.exp()
        else:
            return h * 0.5


class ElseLess(nn.Module):
    def forward(self, x: torch.Tensor):
        h = x + 1
        if h.max() > 3:
            h = h.clamp(max=3)
        return h * 2


class ElifChain(nn.Module):
    def forward(self, x: torch.Tensor):
        h = x * 2
        if h.sum() > 0:
            h = h + 1
        elif h.mean() < -1:
            h = h - 1
        else:
            h = -h
        return h


class Fp16Guard(nn.Module):
    """The overflow guard of BART, Marian, Blenderbot: a static conjunct, then `or` of tensors."""

    def forward(self, x: torch.Tensor):
        h = x * 1
        if h.dtype == torch.float16 and (torch.isinf(h).any() or torch.isnan(h).any()):
            clamp_value = torch.finfo(h.dtype).max - 1000
            h = torch.clamp(h, min=-clamp_value, max=clamp_value)
        return h


class StaticConjunctElse(nn.Module):
    """A static conjunct and an `else`: where the conjunct is false (float32) the `else` runs,
    compiled as in eager."""

    def forward(self, x: torch.Tensor):
        h = x * 2
        if h.dtype == torch.float16 and (h > 0).all():
            y = h + 1
        else:
            y = h - 1
        return y


class NotOr(nn.Module):
    def forward(self, x: torch.Tensor):
        h = x - 1
        if not (h > 0).any() or h.sum() < -5:
            out = h * 0
        else:
            out = h * h
        return out


class EqualCondition(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor):
        s = a * 1
        if torch.equal(s, b):  # unequal shapes are unequal: a branch combining `s` and `b` may raise
            out = s * 2
        else:
            out = b - 1
        return out


class GivenCondition(nn.Module):
    """The condition is an input: 0-d, one-element, NaN, inf; multi-element ones must still fail."""

    def forward(self, c: torch.Tensor, x: torch.Tensor):
        h = x * 3
        if c:
            y = h + 1
        else:
            y = h - 1
        return y


def _frequencies(limit, device, seq_len=None):
    factor = 2.0 if seq_len and seq_len > limit else 1.0
    return 1.0 / (factor * 10000 ** (torch.arange(0, 8, 2, device=device).float() / 8)), 1.0


class LongShortRope(nn.Module):
    """The Phi-3 LongRoPE update (transformers' modeling_rope_utils): the buffer is rebound to a
    lazily built long table or to the original one, which the buffer aliases at first."""

    def __init__(self, limit: int = 4):
        super().__init__()
        self.limit = limit
        self.init_fn = _frequencies
        inv_freq, _ = self.init_fn(limit, None)
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.original_inv_freq = self.inv_freq

    def update(self, position_ids, device):
        seq_len = torch.max(position_ids) + 1
        if seq_len > self.limit:
            if not hasattr(self, "long_inv_freq"):
                self.long_inv_freq, _ = self.init_fn(
                    self.limit, device, seq_len=self.limit + 1
                )
            self.register_buffer("inv_freq", self.long_inv_freq, persistent=False)
        else:
            self.original_inv_freq = self.original_inv_freq.to(device)
            self.register_buffer("inv_freq", self.original_inv_freq, persistent=False)

    def forward(self, x: torch.Tensor, position_ids: torch.Tensor):
        self.update(position_ids, x.device)
        return x * self.inv_freq


class TwoTables(nn.Module):
    """The buffer is rebound to one of two existing tables."""

    def __init__(self):
        super().__init__()
        self.low = torch.ones(4)
        self.high = torch.full((4,), 2.0)
        self.register_buffer("table", self.low, persistent=False)

    def forward(self, x: torch.Tensor):
        if (x > 0).all():
            self.register_buffer("table", self.high, persistent=False)
        else:
            self.register_buffer("table", self.low, persistent=False)
        return x * self.table


def rope_positions():
    """Inputs of one shape whose positions are short, long, short (the long -> short transition),
    long again: the condition flips while the shape stays."""
    x = torch.tensor([1.0, -2.0, 3.0, 0.5])
    short = torch.arange(4).reshape(1, 4) - 1  # seq_len 3 <= 4
    long = torch.arange(4).reshape(1, 4) + 3   # seq_len 7 > 4
    return [(x, short), (x, long), (x, short), (x, long), (x, long), (x, short)]


SOFT_BOUND = 3.0


def soft_clip(t: torch.Tensor):
    """A helper of the analysed file: pure (its body has no effect) and total (tensor / number,
    tanh and tensor * number accept every shape and dtype), so a branch may call it."""
    scaled = t / SOFT_BOUND
    return torch.tanh(scaled) * SOFT_BOUND


class IdentityTestInBranch(nn.Module):
    """`m is None` in a branch's value: identity never raises, so the branch may run on every call."""

    def forward(self, x: torch.Tensor, m=None):
        h = x * 2
        if (h > 3).any():
            h = torch.clamp(h, max=3.0) if m is None else torch.clamp(h, max=2.0)
        return h


class PureHelperInBranch(nn.Module):
    def forward(self, x: torch.Tensor):
        h = x * 2
        if h.abs().max() > 3:
            y = soft_clip(h)
        else:
            y = h + 0.5
        return y


class TupleTargets(nn.Module):
    """`lo, hi = a, b` in each branch: one selection per name, the values in the same order."""

    def forward(self, x: torch.Tensor):
        h = x * 2
        if h.sum() > 0:
            lo, hi = h - 1, h + 1
        else:
            lo, hi = h + 1, (h - 1).abs()
        return lo * hi


class InsideNoGrad(nn.Module):
    """A `with` body runs once and in order: the selection inside it is the straight-line case."""

    def forward(self, x: torch.Tensor):
        with torch.no_grad():
            h = x * 2
            if h.sum() > 0:
                y = h + 1
            else:
                y = h - 1
        return y * 3


class InsideAutocast(nn.Module):
    """Under autocast both branches run on the bfloat16 product, as the taken one does in the
    original. (A branch `torch.mm(h, h)` would be declined: graphmend cannot prove `h` square.)"""

    def forward(self, x: torch.Tensor):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            h = torch.mm(x, x.t())
            if h.sum() > 0:
                y = h * 3 + 1
            else:
                y = h - 1
        return y.float()


class IfElseInLoop(nn.Module):
    """An if/else inside a loop: both branches assign fresh values each iteration, and the next
    iteration's condition reads what this one selected."""

    def forward(self, x: torch.Tensor):
        h = x
        for _ in range(3):
            if h.sum() > 0:
                h = h - 1
            else:
                h = h + 2
        return h


class ClampInLoop(nn.Module):
    """An else-less clamp per layer: the kept value is new storage the same iteration made."""

    def forward(self, x: torch.Tensor):
        h = x
        for _ in range(3):
            h = torch.tanh(h) * 4
            if (h.abs() > 3).any():
                h = torch.clamp(h, -3.0, 3.0)
        return h


class Fp16GuardInLoop(nn.Module):
    """BART's fp16 overflow guard once per layer, its `clamp_value` a temporary of the branch.
    (The inf comes with the input: an overflow made inside the graph is not seen by Inductor
    unless torch._inductor.config.emulate_precision_casts is set; rules/GM101.md, "Under
    Inductor".)"""

    def forward(self, x: torch.Tensor):
        h = x
        for _ in range(2):
            h = h * 0.5
            if h.dtype == torch.float16 and torch.isinf(h).any():
                clamp_value = torch.finfo(h.dtype).max - 1000
                h = torch.clamp(h, min=-clamp_value, max=clamp_value)
        return h


class TemporaryInLoop(nn.Module):
    """`t` is read only after its own branch binds it; `acc` is read again by the next iteration
    before the `if`, so it is selected."""

    def forward(self, x: torch.Tensor):
        acc = x * 0
        for _ in range(3):
            acc = acc + x
            if (acc > 2).any():
                t = acc - 2
                acc = t * 1
        return acc


class IfInWhileLoop(nn.Module):
    """The same inside a `while` loop over a Python counter."""

    def forward(self, x: torch.Tensor):
        h = x
        i = 0
        while i < 3:
            if h.sum() > 0:
                h = h - 1
            else:
                h = h + 2
            i += 1
        return h


class WalrusInCondition(nn.Module):
    """`if (m := h.max()) > 3:`: the lone condition binds `m` once, as the original does."""

    def forward(self, x: torch.Tensor):
        h = x * 2
        if (m := h.max()) > 3:
            h = torch.clamp(h, max=3.0)
        return h + m


def flag_last(x: torch.Tensor, flag: bool):
    """A flag after the tensor atom: tested first under the compile gate, once checked a bool (a
    false one runs the original `if`, break included: flag_false_cases)."""
    h = x.float()
    if h.sum() > 0 and flag:
        y = h * 2.0
    else:
        y = h - 1.0
    return y


def none_test_last(x: torch.Tensor, mask=None):
    """Two tensor atoms, then an `is None` test: it goes first, as the Python `if` (every mode)."""
    h = x.float()
    if (h > 1.0).any() and (h < 0.0).any() and mask is None:
        y = h * 0.5
    else:
        y = h + 1.0
    return y


class PythonValuesAfterTensor(nn.Module):
    """An `is None` test both ways and a true flag, in one graph (Dynamo specialises on them)."""

    def forward(self, x: torch.Tensor):
        return torch.stack([flag_last(x, True), none_test_last(x), none_test_last(x, mask=x)])


class FalseFlagAfterTensor(nn.Module):
    def forward(self, x: torch.Tensor):
        return flag_last(x, False)


class _NoEnabled:
    pass


def attribute_after_tensor(x: torch.Tensor, cfg):
    h = x.float()
    if h.sum() > 0 and cfg.enabled:  # the original reads `cfg.enabled` only when the sum is positive
        y = h * 2.0
    else:
        y = h - 1.0
    return y


class AttributeAfterTensor(nn.Module):
    """Declined: tested first, `cfg.enabled` would raise AttributeError where the original runs."""

    def forward(self, x: torch.Tensor):
        return attribute_after_tensor(x, _NoEnabled())


class FirstAtomIndexes(nn.Module):
    """`cache_position[0]` raises IndexError on an empty tensor: the selection evaluates it first,
    as the original does, so it raises the original's exception (raising_cases)."""

    def forward(self, x: torch.Tensor, cache_position: torch.Tensor | None = None):
        h = x.float()
        if cache_position is not None and cache_position[0].sum() > 0:
            y = h * 2.0
        else:
            y = h - 1.0
        return y


def cases():
    """(name, module, [inputs covering every branch])."""
    t = torch.tensor
    h16 = torch.float16
    return [
        ("if/else with a temporary", IfElse(), [(t([1.0, 2.0]),), (t([-1.0, -2.0]),)]),
        ("return in both branches", ReturnBoth(), [(t([1.0, 2.0]),), (t([-3.0, 2.0]),)]),
        ("a temporary in both branches", TemporaryInBothBranches(), [(t([1.0, 2.0]),), (t([-1.0, -2.0]),)]),
        ("not isfinite(h).all()", NotFiniteAll(),
         [(t([1.0, 2.0]),), (t([float("nan"), 2.0]),), (t([float("inf"), 2.0]),)]),
        ("any() | any()", AnyOrAny(), [(t([1.0, 2.0]),), (t([float("nan"), 2.0]),), (t([float("-inf"), 2.0]),)]),
        ("else-less update", ElseLess(), [(t([1.0, 5.0]),), (t([0.0, 1.0]),)]),
        ("elif chain", ElifChain(), [(t([1.0, 2.0]),), (t([-1.0, -2.0]),), (t([-0.1, 0.05]),)]),
        ("fp16 overflow guard", Fp16Guard(),
         [(t([1.0, float("inf")], dtype=h16),), (t([1.0, 2.0], dtype=h16),), (t([float("nan"), 2.0], dtype=h16),),
          (t([float("-inf"), 2.0], dtype=h16),), (t([1.0, float("inf")]),)]),
        ("a static conjunct with an else", StaticConjunctElse(),
         [(t([1.0, 2.0], dtype=h16),), (t([-1.0, 2.0], dtype=h16),), (t([1.0, 2.0]),)]),
        ("not / or lowered", NotOr(), [(t([0.0, 0.5]),), (t([3.0, 2.0]),), (t([-9.0, 2.0]),)]),
        ("torch.equal", EqualCondition(),
         [(t([1.0, 2.0]), t([1.0, 2.0])), (t([1.0, 2.0]), t([1.0, 3.0])), (t([float("nan")]), t([float("nan")]))]),
        ("0-d, one-element, NaN and inf conditions", GivenCondition(),
         [(t(True), t([1.0])), (t(False), t([1.0])), (t([1]), t([1.0])), (t([0.0]), t([1.0])),
          (t(float("nan")), t([1.0])), (t(float("inf")), t([1.0])), (t(-0.0), t([1.0]))]),
        ("buffer selection (LongRoPE)", LongShortRope(), rope_positions()),
        ("an identity test in a branch", IdentityTestInBranch(), [(t([1.0, 2.0]),), (t([1.0, 0.2]),)]),
        ("tuple targets", TupleTargets(), [(t([1.0, 2.0]),), (t([-1.0, -2.0]),)]),
        ("inside torch.no_grad()", InsideNoGrad(), [(t([1.0, 2.0]),), (t([-1.0, -2.0]),)]),
        ("inside torch.autocast", InsideAutocast(), [(t([[1.0, 2.0]]),), (t([[0.0, 0.0]]),)]),
        ("if/else inside a loop", IfElseInLoop(), [(t([1.0, 2.0]),), (t([-5.0, 1.0]),), (t([0.5, -0.4]),)]),
        ("else-less clamp inside a loop", ClampInLoop(), [(t([1.0, 2.0]),), (t([0.01, -0.02]),)]),
        ("fp16 overflow guard inside a loop", Fp16GuardInLoop(),
         [(t([1.0, 2.0], dtype=h16),), (t([float("inf"), 2.0], dtype=h16),), (t([float("-inf"), 2.0]),)]),
        ("a branch temporary inside a loop", TemporaryInLoop(), [(t([1.0, 2.0]),), (t([0.1, 0.2]),)]),
        ("if/else inside a while loop", IfInWhileLoop(), [(t([1.0, 2.0]),), (t([-5.0, 1.0]),)]),
        ("a walrus in a lone condition", WalrusInCondition(), [(t([1.0, 1.0]),), (t([1.0, 5.0]),)]),
        ("Python values after the tensor part", PythonValuesAfterTensor(),
         [(t([1.0, 2.0]),), (t([-1.0, -2.0]),), (t([2.0, -0.5]),), (t([2.0, -3.0]),)]),
        ("an index that may raise, first", FirstAtomIndexes(),
         [(t([1.0, 2.0]), t([3, 4])), (t([1.0, 2.0]), t([0, 1]))]),
        ("buffer selection (two tables)", TwoTables(),
         [(t([1.0, 2.0, 3.0, 4.0]),), (t([1.0, -2.0, 3.0, 4.0]),), (t([1.0, 2.0, 3.0, 4.0]),)]),
    ]


def declined_cases():
    """Forms this version declines (each with its reason): the patched program is the original."""
    t = torch.tensor
    # A helper's result: its shape, dtype and device are not followed into the helper.
    return [("a pure helper in a branch", PureHelperInBranch(), [(t([1.0, 2.0]),), (t([1.0, 0.2]),)]),
            # `cfg.enabled` after the tensor part: it would be read first, and raise here.
            ("an attribute after the tensor part", AttributeAfterTensor(), [(t([-1.0, -2.0]),), (t([0.0, 0.0]),)])]


def flag_false_cases():
    """A false flag after the tensor part: the gate runs the original `if` (a break, no error)."""
    t = torch.tensor
    return [(FalseFlagAfterTensor(), [(t([1.0, 2.0]),), (t([-1.0, -2.0]),)])]


def raising_cases():
    """A condition's first atom raises: the patched code raises the original's exception."""
    t = torch.tensor
    return [(FirstAtomIndexes(), (t([1.0, 2.0]), torch.zeros(0, dtype=torch.long)))]


def multi_element_cases():
    """Conditions with more than one element: the original raises; so must the patched code."""
    t = torch.tensor
    return [(GivenCondition(), (t([1.0, 0.0]), t([1.0])))]


class DtypeMismatch(nn.Module):
    """Branches of different dtypes: torch.where would promote, so the original must run."""

    def forward(self, x: torch.Tensor):
        h = x * 2
        if h.sum() > 0:
            y = h * 3
        else:
            y = h.double() * 3
        return y


def mismatch_cases():
    t = torch.tensor
    return [(DtypeMismatch(), [(t([1.0, 2.0]),), (t([-1.0, -2.0]),)])]


class GuardInBranch(nn.Module):
    """A validation guard inside a branch: it must raise only when its branch is taken. `limit` is
    used as a number; the gate checks that it is one (a tensor there may not broadcast)."""

    def forward(self, x: torch.Tensor, limit: float):
        h = x * 2
        if h.sum() > 0:
            if (h > limit).any():
                raise ValueError(f"values above the limit for {h.dim()}-d input")
            y = h + 1
        else:
            if not (h > -limit).all():
                raise RuntimeError("values below the negative limit")
            y = h - 1
        return y


class GuardBesideBranch(nn.Module):
    """A guard before the branch and another inside it: each failing input raises its own guard's
    exception (their generated helpers once shared a name, and the inner check raised the outer
    guard's message)."""

    def forward(self, x: torch.Tensor):
        if (x < -100).any():
            raise ValueError("below -100")
        if x.sum() > 0:
            if (x > 10).any():
                raise RuntimeError("above 10 in the positive branch")
            y = x * 2
        else:
            y = x - 1
        return y


def guard_cases():
    """(module, [inputs]) taking each branch, passing and failing each guard, and guards that
    would fail if they ran in the branch not taken."""
    t = torch.tensor
    lim = 20.0  # a Python number, one for every call (the gate checks it is one)
    return [(GuardInBranch(), [(t([1.0, 2.0, 3.0]), lim), (t([1.0, 2.0, 15.0]), lim), (t([-1.0, -2.0, -3.0]), lim),
                               (t([-1.0, -2.0, -15.0]), lim), (t([7.5, 7.5, -12.5]), lim), (t([12.5, -9.0, -9.0]), lim)]),
            (GuardBesideBranch(), [(t([1.0, 2.0]),), (t([1.0, 20.0]),), (t([-200.0, 300.0]),), (t([-1.0, -2.0]),),
                                   (t([-200.0, 1.0]),)])]
