"""[Where] and identity: an `if` that skips a name keeps the very object the name held, where the
selection is a new tensor. test_where_identity.py checks that plain `graphmend fix` (safe fixes
only) rewrites the PROVEN classes, whose kept object is new storage this frame made and nothing
else ever held, and leaves every UNPROVEN class to --unsafe-fixes, each with an observation that
the unsafe selection changes (which is why it is not safe).

Each class: forward(x) for compiled calls, and observe(x) -> a tuple of facts about identity and
aliasing that the caller can see, computed from forward's result.
"""
import torch
from torch import nn


# ---- proven: plain `graphmend fix` selects -------------------------------------------------------

class FreshArithmetic(nn.Module):
    def forward(self, x: torch.Tensor):
        h = x * 2 + 1
        if (h > 3).any():
            h = torch.clamp(h, max=3.0)
        return h


class LayerNormOverflowGuard(nn.Module):
    """BART's encoder layer: a LayerNorm's output, then the fp16 overflow guard."""

    def __init__(self):
        super().__init__()
        self.final_layer_norm = nn.LayerNorm(4)

    def forward(self, x: torch.Tensor):
        hidden_states = self.final_layer_norm(x)
        if hidden_states.dtype == torch.float16 and (
            torch.isinf(hidden_states).any() or torch.isnan(hidden_states).any()
        ):
            clamp_value = torch.finfo(hidden_states.dtype).max - 1000
            hidden_states = torch.clamp(hidden_states, min=-clamp_value, max=clamp_value)
        return hidden_states


class UnderStaticIf(nn.Module):
    """DETR's encoder layer: the guard nested in a Python `if` on a module flag."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.guard = True

    def forward(self, x: torch.Tensor):
        h = self.proj(x)
        if self.guard:
            if torch.isinf(h).any() or torch.isnan(h).any():
                h = torch.clamp(h, min=-100.0, max=100.0)
        return h


class ConditionalNorm(nn.Module):
    """D-FINE's encoder layer: the LayerNorm runs on some paths only, between the definition and
    the guard (it reads the value and keeps nothing, as the runtime check proves)."""

    def __init__(self):
        super().__init__()
        self.final_layer_norm = nn.LayerNorm(4)
        self.normalize_before = False

    def forward(self, x: torch.Tensor):
        hidden_states = x * 2.0
        if not self.normalize_before:
            hidden_states = self.final_layer_norm(hidden_states)
        if torch.isinf(hidden_states).any() or torch.isnan(hidden_states).any():
            hidden_states = torch.clamp(hidden_states, min=-100.0, max=100.0)
        return hidden_states


class OnesInitialised(nn.Module):
    """A scale that torch.ones made in this frame: new storage nothing else holds."""

    def forward(self, x: torch.Tensor):
        scale = torch.ones((), dtype=x.dtype)
        if (x.abs() > 4).any():
            scale = x.abs().sum() / 4
        return x / scale


class ZerosLikeInitialised(nn.Module):
    """A bias that torch.zeros_like made in this frame."""

    def forward(self, x: torch.Tensor):
        bias = torch.zeros_like(x)
        if (x < 0).any():
            bias = torch.clamp(x, max=0.0) * -1.0
        return x + bias


class TemporaryAssignedAgain(nn.Module):
    """LongT5's and Switch Transformers' layers: two guards in a row, each with its own Python
    `clamp_value`; the first guard's temporary is read after it only where the second guard has
    assigned it anew, so it needs no selection (reaching definitions)."""

    def forward(self, x: torch.Tensor):
        h = x * 2
        if (h > 3).any():
            limit = 3.0
            h = torch.clamp(h, max=limit)
        h = h - 1
        if (h < -3).any():
            limit = -3.0
            h = torch.clamp(h, min=limit)
        return h


class CentredNorm(nn.Module):
    """Autoformer's layer norm: a module of the user's own class whose forward returns an operator's
    result, new storage (graphmend reads this forward to prove it)."""

    def __init__(self):
        super().__init__()
        self.layernorm = nn.LayerNorm(4)

    def forward(self, x):
        x_hat = self.layernorm(x)
        bias = torch.mean(x_hat, dim=1).unsqueeze(1)
        return x_hat - bias


class UserNormOverflowGuard(nn.Module):
    """Autoformer's encoder layer: the fp16 overflow guard after a module of the user's own class;
    the runtime check (user_module) confirms at trace time that the call ran CentredNorm.forward."""

    def __init__(self):
        super().__init__()
        self.final_layer_norm = CentredNorm()

    def forward(self, x: torch.Tensor):
        hidden_states = self.final_layer_norm(x)
        if hidden_states.dtype == torch.float16 and (
            torch.isinf(hidden_states).any() or torch.isnan(hidden_states).any()
        ):
            clamp_value = torch.finfo(hidden_states.dtype).max - 1000
            hidden_states = torch.clamp(hidden_states, min=-clamp_value, max=clamp_value)
        return hidden_states


class ResidualFeedForward(nn.Module):
    """T5's feed-forward layer: forward returns a name its residual sum defined and nothing else
    read; its parameter is unannotated, and the caller passes it a tensor."""

    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(4)
        self.dense = nn.Linear(4, 4)

    def forward(self, hidden_states):
        forwarded = self.norm(hidden_states)
        forwarded = self.dense(forwarded)
        hidden_states = hidden_states + forwarded
        return hidden_states


class ResidualGuard(nn.Module):
    def __init__(self):
        super().__init__()
        self.ff = ResidualFeedForward()

    def forward(self, x: torch.Tensor):
        h = self.ff(x)
        if (h > 3).any():
            h = torch.clamp(h, max=3.0)
        return h


class ArgumentOnlyReadAfter(nn.Module):
    """The caller's argument, clamped on an unannotated-style guard; after the `if` only a Linear
    (checked at trace time) and an operator read it, and nothing else runs: nothing can tell the
    kept object from the selection."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor):
        if (x.abs() > 5.0).any():
            x = torch.clamp(x, min=-5.0, max=5.0)
        return self.proj(x) * 2


class ArgumentReadByPureOps(nn.Module):
    """The caller's argument, read after the `if` by pure torch functions and methods only."""

    def forward(self, x: torch.Tensor):
        if (x > 3).any():
            x = torch.clamp(x, max=3.0)
        y = torch.relu(x) + x.sum()
        return y


class HookedProjAfter(ArgumentOnlyReadAfter):
    """ArgumentOnlyReadAfter with a forward hook on the Linear that keeps its input: the runtime
    check (allocating_module) fails and the original `if` runs, so the hook keeps the caller's own
    tensor, as in the original."""

    def __init__(self):
        super().__init__()
        self.seen = None

        def keep(module, args, output):
            self.seen = args[0]

        self.proj.register_forward_hook(keep)

    def observe(self, x):
        self(x)
        return (self.seen is x,)


class HookedUserNorm(UserNormOverflowGuard):
    """UserNormOverflowGuard with a forward hook on the user's module that returns a tensor it holds:
    the runtime check (user_module) fails and the original `if` runs."""

    def __init__(self):
        super().__init__()
        self.held = None

        def hold(module, args, output):
            self.held = output.clone()
            return self.held

        self.final_layer_norm.register_forward_hook(hold)

    def observe(self, x):
        out = self(x)
        return (out is self.held,)


class OwnForwardReplaced(UserNormOverflowGuard):
    """UserNormOverflowGuard whose module instance got a forward of its own that returns its input:
    the runtime check fails and the original `if` runs."""

    def __init__(self):
        super().__init__()
        self.final_layer_norm.forward = lambda x: x

    def observe(self, x):
        return (self(x) is x,)


class HookedNorm(LayerNormOverflowGuard):
    """The same code as LayerNormOverflowGuard, but a forward hook makes the norm return a tensor
    it holds: the runtime check (allocating_module) fails and the original `if` runs."""

    def __init__(self):
        super().__init__()
        self.held = None

        def hold(module, args, output):
            self.held = output.clone()
            return self.held

        self.final_layer_norm.register_forward_hook(hold)

    def observe(self, x):
        out = self(x)
        return (out is self.held,)


class ReplacedLayerNorm(LayerNormOverflowGuard):
    """LayerNormOverflowGuard whose norm a user replaced after construction by nn.Identity (which
    returns its input): the runtime check fails and the original `if` runs."""

    def __init__(self):
        super().__init__()
        self.final_layer_norm = nn.Identity()

    def observe(self, x):
        return (self(x) is x,)


def proven_cases():
    """(name, module, inputs taking both paths: condition true, false, NaN and inf in fp16)."""
    t = torch.tensor
    h16 = torch.float16
    big = [[1.0, 70000.0, 3.0, 4.0]]
    return [
        ("fresh arithmetic", FreshArithmetic(), [(t([[0.0, 5.0]]),), (t([[0.0, 0.5]]),)]),
        ("LayerNorm output, fp16 overflow guard", LayerNormOverflowGuard(),
         [(t(big, dtype=h16),), (t([[1.0, 2.0, 3.0, 4.0]], dtype=h16),), (t([[1.0, 2.0, 3.0, 4.0]]),),
          (t([[float("nan"), 2.0, 3.0, 4.0]], dtype=h16),)]),
        ("Linear output under a static if", UnderStaticIf(),
         [(t([[1.0, 2.0, 3.0, 4.0]]),), (t([[float("inf"), 2.0, 3.0, 4.0]]),)]),
        ("LayerNorm on some paths before the guard", ConditionalNorm(),
         [(t([[1.0, 2.0, 3.0, 4.0]]),), (t([[float("nan"), 2.0, 3.0, 4.0]]),)]),
        ("a scale torch.ones made", OnesInitialised(), [(t([1.0, 8.0]),), (t([1.0, 2.0]),), (t([1.0, float("inf")]),)]),
        ("a bias torch.zeros_like made", ZerosLikeInitialised(), [(t([1.0, -2.0]),), (t([1.0, 2.0]),)]),
        ("a temporary assigned again before its next read", TemporaryAssignedAgain(),
         [(t([[0.0, 5.0]]),), (t([[-5.0, 0.5]]),), (t([[-5.0, 5.0]]),), (t([[0.0, 0.5]]),)]),
        ("a module of the user's class returning an operator's result", UserNormOverflowGuard(),
         [(t(big, dtype=h16),), (t([[1.0, 2.0, 3.0, 4.0]], dtype=h16),), (t([[1.0, 2.0, 3.0, 4.0]]),),
          (t([[float("nan"), 2.0, 3.0, 4.0]], dtype=h16),)]),
        ("a module of the user's class returning its residual sum", ResidualGuard(),
         [(t([[0.0, 5.0, 1.0, 2.0]]),), (t([[0.0, 0.5, 0.1, 0.2]]),)]),
        ("the caller's argument, only read after the `if`", ArgumentOnlyReadAfter(),
         [(t([[1.0, 9.0, -7.0, 2.0]]),), (t([[1.0, 2.0, 3.0, 4.0]]),)]),
        ("the caller's argument, read by pure ops after the `if`", ArgumentReadByPureOps(),
         [(t([[0.0, 5.0]]),), (t([[0.0, 0.5]]),)]),
        ("hooked Linear after the `if`: runtime check fails, original runs", HookedProjAfter(),
         [(t([[1.0, 9.0, -7.0, 2.0]]),), (t([[1.0, 2.0, 3.0, 4.0]]),)]),
        ("hooked user module: runtime check fails, original runs", HookedUserNorm(),
         [(t(big, dtype=h16),), (t([[1.0, 2.0, 3.0, 4.0]], dtype=h16),)]),
        ("user module's own forward: runtime check fails, original runs", OwnForwardReplaced(),
         [(t(big, dtype=h16),), (t([[1.0, 2.0, 3.0, 4.0]], dtype=h16),)]),
        ("hooked LayerNorm: runtime check fails, original runs", HookedNorm(),
         [(t(big, dtype=h16),), (t([[1.0, 2.0, 3.0, 4.0]], dtype=h16),)]),
        ("replaced LayerNorm: runtime check fails, original runs", ReplacedLayerNorm(),
         [(t(big, dtype=h16),), (t([[1.0, 2.0, 3.0, 4.0]], dtype=h16),)]),
    ]


# ---- not proven: left to --unsafe-fixes, each with what the selection would change ---------------

class KeptArgument(nn.Module):
    def forward(self, x: torch.Tensor):
        if (x > 3).any():
            x = torch.clamp(x, max=3.0)
        return x

    def observe(self, x):
        return (self(x) is x,)


class KeptView(nn.Module):
    def forward(self, x: torch.Tensor):
        h = x.view(-1)
        if (h > 3).any():
            h = torch.clamp(h, max=3.0)
        return h

    def observe(self, x):
        x = x.clone()
        self(x).add_(1)  # writes through the view into x, in the original
        return (x.sum().item(),)


class AliasedBeforeIf(nn.Module):
    def forward(self, x: torch.Tensor):
        h = x + 1
        before = h
        if (h > 3).any():
            h = torch.clamp(h, max=3.0)
        return h, before

    def observe(self, x):
        out, before = self(x)
        return (out is before,)


class StoredBeforeIf(nn.Module):
    def forward(self, x: torch.Tensor):
        h = x + 1
        self.last = h
        if (h > 3).any():
            h = torch.clamp(h, max=3.0)
        return h

    def observe(self, x):
        return (self(x) is self.last,)


class PassedToCallee(nn.Module):
    def remember(self, t):
        self.seen = t
        return t.sum()

    def forward(self, x: torch.Tensor):
        h = x + 1
        total = self.remember(h)
        if (h > 3).any():
            h = torch.clamp(h, max=3.0)
        return h, total

    def observe(self, x):
        out, _ = self(x)
        return (out is self.seen,)


class CapturedByClosure(nn.Module):
    def forward(self, x: torch.Tensor):
        h = x + 1
        get = lambda h=h: h  # noqa: E731  (the default keeps the object itself)
        if (h > 3).any():
            h = torch.clamp(h, max=3.0)
        return h, get

    def observe(self, x):
        out, get = self(x)
        return (out is get(),)


class PositiveOperator(nn.Module):
    def forward(self, x: torch.Tensor):
        h = +x  # torch.positive: x itself
        if (h > 3).any():
            h = torch.clamp(h, max=3.0)
        return h

    def observe(self, x):
        return (self(x) is x,)


class ToSameDtype(nn.Module):
    def forward(self, x: torch.Tensor):
        h = x.to(torch.float32)  # x itself when it is float32 already
        if (h > 3).any():
            h = torch.clamp(h, max=3.0)
        return h

    def observe(self, x):
        return (self(x) is x,)


class RebindingBranchBefore(nn.Module):
    """d_fine's shape: another binding may or may not run between the definition and the `if`."""

    def __init__(self):
        super().__init__()
        self.keep_input = True

    def forward(self, x: torch.Tensor):
        h = x + 1
        if self.keep_input:
            h = x
        if (h > 3).any():
            h = torch.clamp(h, max=3.0)
        return h

    def observe(self, x):
        return (self(x) is x,)


class PassThrough(nn.Module):
    def forward(self, x: torch.Tensor):
        return x


class UserModuleCall(nn.Module):
    """A call of a module of the user's own class, which may return its input."""

    def __init__(self):
        super().__init__()
        self.norm = PassThrough()

    def forward(self, x: torch.Tensor):
        h = self.norm(x)
        if (h > 3).any():
            h = torch.clamp(h, max=3.0)
        return h

    def observe(self, x):
        return (self(x) is x,)


class StoringScale(nn.Module):
    def forward(self, x):
        out = x - 0.5
        self.last = out
        return out


class UserModuleKeepsItsResult(nn.Module):
    """A module of the user's own class whose forward stores what it returns."""

    def __init__(self):
        super().__init__()
        self.scale = StoringScale()

    def forward(self, x: torch.Tensor):
        h = self.scale(x)
        if (h > 3).any():
            h = torch.clamp(h, max=3.0)
        return h

    def observe(self, x):
        return (self(x) is self.scale.last,)


class ArgumentWrittenThroughAlias(nn.Module):
    """The caller's argument, read after the `if` only by an operator, but a method runs in between
    that writes into a tensor the caller may also hold: the original reads the write, a selection
    (a new tensor) would not."""

    def __init__(self):
        super().__init__()
        self.buf = torch.zeros(1)

    def bump(self):
        self.buf.add_(1.0)

    def forward(self, x: torch.Tensor):
        if (x > 3).any():
            x = torch.clamp(x, max=3.0)
        self.bump()
        return x * 2

    def observe(self, x):
        x = x.clone()
        self.buf = x
        return (self(x).tolist(),)


class ArgumentComparedAfter(nn.Module):
    """The caller's argument, tested by identity after the `if`."""

    def __init__(self):
        super().__init__()
        self.ref = torch.zeros(1)

    def forward(self, x: torch.Tensor):
        if (x > 3).any():
            x = torch.clamp(x, max=3.0)
        return x * 2, x is self.ref

    def observe(self, x):
        self.ref = x
        return (self(x)[1],)


def unproven_cases():
    """(name, module, input on which the condition is false: the kept object is returned)."""
    t = torch.tensor
    low = t([[0.0, 1.0, 2.0, 0.5]])
    return [
        ("the caller's argument", KeptArgument(), low),
        ("a view of the argument", KeptView(), low),
        ("another name holds it", AliasedBeforeIf(), low),
        ("stored in an attribute first", StoredBeforeIf(), low),
        ("passed to a user method first", PassedToCallee(), low),
        ("captured by a closure", CapturedByClosure(), low),
        ("unary plus returns its operand", PositiveOperator(), low),
        ("`.to` may return its receiver", ToSameDtype(), low),
        ("a conditional rebinding before the `if`", RebindingBranchBefore(), low),
        ("a module of the user's own class", UserModuleCall(), low),
        ("a user module's forward stores its result", UserModuleKeepsItsResult(), low),
        ("the argument, written through another reference after", ArgumentWrittenThroughAlias(), low),
        ("the argument, compared by identity after", ArgumentComparedAfter(), low),
        ("kept across the iterations of a loop", LoopKeepsCallerObject(), low),
    ]


# ---- declined outright, or selected only when a trace-time check passes ---------------------------

class UpdatedInPlaceAfter(nn.Module):
    """Declined: the original's `h.mul_` after the `if` writes into the caller's tensor when the
    branch is not taken; a selection would write into a copy."""

    def forward(self, x: torch.Tensor):
        h = x
        if (h > 3).any():
            h = torch.clamp(h, max=3.0)
        h.mul_(2)
        return h


class SideEffectInBranch(nn.Module):
    """Declined: computing both branches would run the user's method when its branch is not taken."""

    def __init__(self):
        super().__init__()
        self.calls = 0

    def count(self, t):
        self.calls += 1
        return t * 2

    def forward(self, x: torch.Tensor):
        h = x + 1
        if (h > 3).any():
            h = self.count(h)
        return h


class PromotionInBranch(nn.Module):
    """Fixed, but an integer input makes the candidates' dtypes differ (the branch promotes to
    float): `selectable` fails at trace time and the original `if` runs."""

    def forward(self, x: torch.Tensor):
        h = x * 2
        if (h > 3).any():
            h = h * 0.5
        return h


class BroadcastInBranch(nn.Module):
    """Declined (may raise): `h + bias` broadcasts to a larger shape here, and for other shapes it
    fails, where the original, skipping the branch, does not."""

    def forward(self, x: torch.Tensor, bias: torch.Tensor):
        h = x * 2
        if (h > 3).any():
            h = h + bias
        return h


class GradThroughBothArms(nn.Module):
    """Fixed; with grad enabled the gate runs the original, so gradients are the original's."""

    def forward(self, x: torch.Tensor):
        h = x * 2
        if (h > 3).any():
            h = torch.clamp(h, max=3.0)
        return h


class PythonFlag(nn.Module):
    """Declined (python-value-selected): LayerDrop's flag holds Python bools, which torch.where does
    not select; the later `if skip:` decides which code runs."""

    def forward(self, x: torch.Tensor):
        skip = False
        if (x > 3).any():
            skip = True
        if skip:
            return x
        return x * 2


class PythonNumberKept(nn.Module):
    """Declined (python-value-selected): the value kept when the branch does not run is the Python
    number 1.0."""

    def forward(self, x: torch.Tensor):
        scale = 1.0
        if (x > 3).any():
            scale = x.abs().amax()
        return x / scale


class ContinueInLoop(nn.Module):
    """Declined (branch-decides-control): the branch decides whether the rest of the loop body runs."""

    def forward(self, x: torch.Tensor):
        h = x
        for _ in range(2):
            if (h > 3).any():
                continue
            h = h * 2
        return h


class TemporaryReadAfter(nn.Module):
    """Declined (python-value-selected): the branch's `limit` is read after the `if` on the path
    where the Python `if` does not assign it again."""

    def __init__(self):
        super().__init__()
        self.relax = False

    def forward(self, x: torch.Tensor):
        h = x * 2
        limit = 10.0
        if (h > 3).any():
            limit = 3.0
            h = torch.clamp(h, max=limit)
        if self.relax:
            limit = 20.0
        return h / limit


class TemporaryDeletedAfter(nn.Module):
    """Declined (python-value-selected): `del limit` reads the binding, and fails when the branch
    did not run."""

    def forward(self, x: torch.Tensor):
        h = x * 2
        if (h > 3).any():
            limit = 3.0
            h = torch.clamp(h, max=limit)
        try:
            del limit
            ran = 1.0
        except NameError:
            ran = 0.0
        return h + ran


class TemporaryInClosure(nn.Module):
    """Declined (python-value-selected): a lambda made before the `if` reads `limit` when it is
    called after it (NameError where the branch did not run)."""

    def forward(self, x: torch.Tensor):
        h = x * 2
        bound = lambda: limit  # noqa: E731
        if (h > 3).any():
            limit = 3.0
            h = torch.clamp(h, max=limit)
        try:
            seen = bound()
        except NameError:
            seen = 0.0
        return h + seen


class BroadcastMayRaise(nn.Module):
    """Declined (may raise): `h * m` fails for shapes that do not broadcast, and the original
    skips it when no element of `m` is positive; a selection would compute it regardless."""

    def forward(self, x: torch.Tensor, m: torch.Tensor):
        h = x * 2
        if (m > 0).any():
            h = h * m
        return h


class BroadcastCallMayRaise(nn.Module):
    """Declined (may raise): `torch.mul(h, m)` and `torch.cat([h, m])` combine two tensors as
    `h * m` does, and fail for shapes that do not broadcast or match; the original skips them
    when no element of `m` is positive."""

    def forward(self, x: torch.Tensor, m: torch.Tensor):
        h = x * 2
        if (m > 0).any():
            h = torch.mul(h, m)
        return h


class ConcatCallMayRaise(nn.Module):
    """Declined (may raise): `torch.cat([h, m], dim=0)` needs the other dimensions to match."""

    def forward(self, x: torch.Tensor, m: torch.Tensor):
        h = x * 2
        if (m > 0).any():
            h = torch.cat([h, m], dim=0)
        return h


class IndexMayRaise(nn.Module):
    """Declined (may raise): zamba2's mask: `m[:, :, None]` fails on a mask of one dimension,
    which the original never indexes when every element is 1."""

    def forward(self, x: torch.Tensor, m: torch.Tensor):
        h = x * 2
        if not torch.all(m == 1):
            h = (h * 0.5).abs() + m[:, :, None].sum()
        return h


class ViewMayRaise(nn.Module):
    """Declined (may raise): `h.view(2, -1)` fails on an odd number of elements, which the
    original never views when no element is above 4."""

    def forward(self, x: torch.Tensor):
        h = x * 2
        if (h > 8).any():
            h = h.view(2, -1).transpose(0, 1).reshape(-1) * 1
        return h


class TransposeAttributeMayRaise(nn.Module):
    """Declined (may raise): the attribute `h.mT` raises on fewer than two dimensions, and a
    one-dimensional input never takes the branch."""

    def forward(self, x: torch.Tensor):
        h = x * 2
        if (h > 8).any():
            h = (h.mT * 1).contiguous()
        return h


class AmaxOfEmptyMayRaise(nn.Module):
    """Declined (may raise): `amax()` of an empty tensor raises; `(h > 0).any()` of one is False,
    so the original never asks."""

    def forward(self, x: torch.Tensor):
        peak = x.sum()
        if (x > 0).any():
            peak = x.amax()
        return peak


def scaled_by(t: torch.Tensor, bound: float):
    return torch.tanh(t / bound) * bound


class HelperWithNumberParameter(nn.Module):
    """Declined (may raise): inside the helper, `t / bound` divides by a parameter that an
    annotation says is a float; a tensor there would broadcast, so it is not proven."""

    def forward(self, x: torch.Tensor):
        h = x * 2
        if (h > 8).any():
            h = scaled_by(h, 3.0)
        return h


class ArithmeticOnAnyDtype(nn.Module):
    """`h - 1` raises on a bool tensor, which the original never subtracts from when the sum is
    small: the gate checks `h` floating-point at trace time and sends a mask to the original `if`."""

    def forward(self, x: torch.Tensor):
        h = x.clone()
        if h.sum() > 100:
            h = h - 1
        return h


class NumberParameterGivenATensor(nn.Module):
    """`torch.clamp(h, max=limit)` uses `limit` as a number; a caller that passes a tensor which
    does not broadcast would make the selection fail where the original skips the branch: the gate
    checks `limit` is a Python number at trace time and runs the original `if` otherwise."""

    def forward(self, x: torch.Tensor, limit: float):
        h = x * 2
        if h.sum() > 100:
            h = torch.clamp(h, max=limit)
        return h


class BoundOnSomePaths(nn.Module):
    """Declined (not-bound-before): `h` is bound before the `if` only when `self.warm`; when it is
    not and the branch runs, the original never reads the old `h`, where a selection would, and
    raise UnboundLocalError."""

    def __init__(self):
        super().__init__()
        self.warm = False

    def forward(self, x: torch.Tensor):
        if self.warm:
            h = x * 2
        if (x > 3).any():
            h = torch.clamp(x, max=3.0)
        return h + 1


class DeletedBeforeIf(nn.Module):
    """Declined (not-bound-before): a `del` on some path leaves `h` unbound at the `if`."""

    def __init__(self):
        super().__init__()
        self.drop = True

    def forward(self, x: torch.Tensor):
        h = x * 2
        if self.drop:
            del h
        if (x > 3).any():
            h = torch.clamp(x, max=3.0)
        return h + 1


class BranchReadsUnbound(nn.Module):
    """Declined (branch-reads-unbound): the first branch reads `magnitude`, bound only when
    `self.warm`; the original reads it only when that branch runs, the selection always."""

    def __init__(self):
        super().__init__()
        self.warm = False

    def forward(self, x: torch.Tensor):
        if self.warm:
            magnitude = x.abs()
        if (x > 3).any():
            h = torch.clamp(magnitude, max=3.0)
        else:
            h = x * 2
        return h


class BoundByEarlierIteration(nn.Module):
    """Declined (not-bound-before): inside a loop, `h` is bound before the `if` only by an earlier
    iteration's branch; on the first iteration a selection would read it unbound."""

    def forward(self, x: torch.Tensor):
        for _ in range(2):
            if (x > 3).any():
                h = torch.clamp(x, max=3.0)
            x = x + 1
        return h


class UpdatedAtLoopTop(nn.Module):
    """Declined (later-in-place-update): `h.mul_` at the top of the loop runs after the `if` of
    the iteration before."""

    def forward(self, x: torch.Tensor):
        h = x * 1
        for _ in range(2):
            h.mul_(2)
            if (h > 3).any():
                h = torch.clamp(h, max=3.0)
        return h


class LoopKeepsCallerObject(nn.Module):
    """Not proven: inside a loop the kept `h` may be the caller's tensor (the first iteration)
    or the last iteration's selection; only a definition earlier in the same iteration proves a
    kept value, so the fix is unsafe."""

    def forward(self, x: torch.Tensor):
        h = x
        for _ in range(2):
            if (h > 3).any():
                h = torch.clamp(h, max=3.0)
        return h

    def observe(self, x):
        return (self(x) is x,)


LAST_SCALE = torch.ones(2)


class GlobalBoundInBranch(nn.Module):
    """Declined (binds-outer-name): the branch rebinds the global `LAST_SCALE`, which the function
    never reads again; a selection would rebind it on every path, taken or not."""

    def forward(self, x: torch.Tensor):
        global LAST_SCALE
        if (x > 3).any():
            LAST_SCALE = x * 2
            y = x * 2
        else:
            y = x * 3
        return y


class NonlocalBoundInBranch(nn.Module):
    """Declined (binds-outer-name): the inner function's branch rebinds the enclosing `h`."""

    def forward(self, x: torch.Tensor):
        h = x * 2

        def halve_if_large():
            nonlocal h
            if (x > 3).any():
                h = h * 0.5
                y = x * 2
            else:
                y = x * 3
            return y

        y = halve_if_large()
        return y + h


class LoopVariableAfterLoop(nn.Module):
    """Declined (branch-reads-unbound): a `for` over an empty range leaves `i` unbound, and only the
    branch the original skips then reads it."""

    def forward(self, x: torch.Tensor):
        for i in range(x.shape[0] - 2):
            x = x + 0
        if (x > 3).any():
            h = x * i
        else:
            h = x * 1
        return h


class WalrusInElif(nn.Module):
    """Declined (walrus-in-condition): the `elif` binds `m` only when the first condition is
    false; a selection evaluates every condition, so `m` would change when the first holds."""

    def forward(self, x: torch.Tensor):
        m = x.min()
        if (x > 3).any():
            h = x - 1
        elif (m := x.max()) > 1:
            h = x + 1
        else:
            h = x * 1
        return h + m


class WalrusAfterAnd(nn.Module):
    """Declined (walrus-in-condition): `and` evaluates its walrus only when the left operand holds."""

    def forward(self, x: torch.Tensor):
        m = x.min()
        h = x * 2
        if (x > 3).any() and (m := x.max()) > 4:
            h = h - 1
        return h + m


def declined_cases():
    """(name, module, inputs): no fix at all, plain or unsafe."""
    t = torch.tensor
    return [
        ("an in-place update after the `if`", UpdatedInPlaceAfter(), [(t([1.0, 5.0]),), (t([1.0, 2.0]),)]),
        ("a user method with a side effect in the branch", SideEffectInBranch(), [(t([1.0, 5.0]),), (t([1.0, 2.0]),)]),
        ("a flag set to a Python bool", PythonFlag(), [(t([1.0, 5.0]),), (t([1.0, 2.0]),)]),
        ("a Python number kept", PythonNumberKept(), [(t([1.0, 5.0]),), (t([1.0, 2.0]),)]),
        ("a `continue` in the branch", ContinueInLoop(), [(t([1.0, 5.0]),), (t([1.0, 2.0]),)]),
        ("a temporary read after the `if`", TemporaryReadAfter(), [(t([1.0, 5.0]),), (t([1.0, 1.0]),)]),
        ("a temporary deleted after the `if`", TemporaryDeletedAfter(), [(t([1.0, 5.0]),), (t([1.0, 1.0]),)]),
        ("a temporary a closure reads", TemporaryInClosure(), [(t([1.0, 5.0]),), (t([1.0, 1.0]),)]),
        ("may raise on shapes: broadcasting to a larger shape", BroadcastInBranch(),
         [(t([1.0, 5.0]), t([[1.0], [2.0]])), (t([1.0, 2.0]), t([[1.0], [2.0]]))]),
        ("may raise on shapes: broadcasting", BroadcastMayRaise(),
         [(t([1.0, 2.0]), t([-1.0, -1.0, -1.0])), (t([1.0, 2.0]), t([1.0, -1.0]))]),
        ("may raise on shapes: torch.mul of two tensors", BroadcastCallMayRaise(),
         [(t([1.0, 2.0]), t([-1.0, -1.0, -1.0])), (t([1.0, 2.0]), t([1.0, -1.0]))]),
        ("may raise on shapes: torch.cat of two tensors", ConcatCallMayRaise(),
         [(t([[1.0, 2.0]]), t([[-1.0, -1.0, -1.0]])), (t([[1.0, 2.0]]), t([[1.0, -1.0]])),
          (t([[1.0, 2.0]]), t([[-1.0, -1.0]]))]),
        ("may raise on shapes: a view of one tensor", ViewMayRaise(), [(t([1.0, 2.0, 3.0]),), (t([1.0, 5.0, 3.0, 0.0]),)]),
        ("may raise on shapes: amax of an empty tensor", AmaxOfEmptyMayRaise(), [(t([]),), (t([1.0, -2.0]),)]),
        ("may raise on shapes: the attribute mT", TransposeAttributeMayRaise(),
         [(t([1.0, 2.0]),), (t([[1.0, 9.0], [2.0, 3.0]]),)]),
        ("may raise: a helper's parameter not proven a number", HelperWithNumberParameter(),
         [(t([1.0, 2.0]),), (t([1.0, 5.0]),)]),
        ("may raise on shapes: an index", IndexMayRaise(), [(t([1.0, 2.0]), t([1.0, 1.0])), (t([1.0, 2.0]), t([[[1.0, 0.0]]]))]),
        # Inputs on which the original runs without error: the branch that binds the name.
        ("unbound: a name bound on some paths only", BoundOnSomePaths(), [(t([1.0, 5.0]),)]),
        ("unbound: a name deleted on some path", DeletedBeforeIf(), [(t([1.0, 5.0]),)]),
        ("unbound: a branch reads a name bound on some paths only", BranchReadsUnbound(), [(t([1.0, 2.0]),)]),
        ("unbound: bound only by an earlier iteration", BoundByEarlierIteration(), [(t([1.0, 5.0]),)]),
        ("an in-place update at the top of the loop", UpdatedAtLoopTop(), [(t([1.0, 5.0]),), (t([0.5, 1.0]),)]),
        ("unbound: a loop variable after a loop over an empty range", LoopVariableAfterLoop(), [(t([1.0, 2.0]),)]),
        ("outer name: a global bound in a branch", GlobalBoundInBranch(), [(t([1.0, 2.0]),), (t([1.0, 5.0]),)]),
        ("outer name: a nonlocal bound in a branch", NonlocalBoundInBranch(), [(t([1.0, 2.0]),), (t([1.0, 5.0]),)]),
        ("a walrus in an elif condition", WalrusInElif(), [(t([1.0, 5.0]),), (t([1.0, 2.0]),), (t([0.1, 0.2]),)]),
        ("a walrus after `and`", WalrusAfterAnd(), [(t([1.0, 5.0]),), (t([1.0, 2.0]),)]),
    ]


class FinfoOnAnyDtype(nn.Module):
    """DETR's guard on a tensor that may hold integers: torch.finfo raises TypeError on an integer
    dtype, which the original never asks for (no integer is inf or NaN); the gate checks the dtype
    at trace time and sends integers to the original `if`."""

    def forward(self, x: torch.Tensor):
        h = x * 2
        if torch.isinf(h).any() or torch.isnan(h).any():
            clamp_value = torch.finfo(h.dtype).max - 1000
            h = torch.clamp(h, min=-clamp_value, max=clamp_value)
        return h


def fallback_cases():
    """(name, module, inputs): fixed safely; on these inputs a trace-time check sends them to the
    original `if` (promotion) or grad is enabled (autograd)."""
    t = torch.tensor
    return [
        ("int/float promotion", PromotionInBranch(), [(t([1, 5]),), (t([1, 2]),)]),
        ("torch.finfo of an integer dtype", FinfoOnAnyDtype(), [(t([1, 5]),), (t([1.0, float("inf")]),), (t([1.0, 2.0]),)]),
        ("a number parameter given a tensor", NumberParameterGivenATensor(),
         [(t([1.0, 2.0, 3.0]), t([1.0, 2.0])), (t([100.0, 1.0]), 5.0), (t([1.0, 2.0]), 5.0)]),
        ("arithmetic that raises on a bool tensor", ArithmeticOnAnyDtype(),
         [(t([True, False]),), (t([1.0, 2.0]),), (t([1.0, 200.0]),)]),
        ("autograd through both arms", GradThroughBothArms(), [(t([1.0, 5.0]),), (t([1.0, 2.0]),)]),
    ]

