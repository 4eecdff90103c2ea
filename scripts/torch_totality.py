"""Generates src/analysis/torch_totality.inc: which tensor operations torch accepts for every shape,
by dtype class, as graphmend's [Where] needs to know of code the original may skip.

    .venv/bin/python scripts/torch_totality.py            # rewrites the table
    .venv/bin/python scripts/torch_totality.py --check    # exit 1 when it would change

[Where] computes every branch of an `if` on every call, and Dynamo runs each operation on the
input's shapes and dtypes while it traces: an operation that raises there fails the compiled call
where the original, skipping the branch, ran. So a branch may only hold operations that cannot
raise for the tensors at hand. This script finds them by running each form on real tensors of
every dtype class (bool; uint8 to int64; float16, bfloat16, float32, float64; complex64 and
complex128) and of the shapes (), (0,), (3,), (2, 0, 3) and (2, 3, 4): a scalar, empty tensors
and several ranks. A Python number argument is tried with each of 2, -1, 0, 2.5, -0.5 and 0.0
(every combination when there are several), since graphmend does not know its value. A form holds
for a dtype class when no call raised and none warned (a warning is emitted text the original
would not print). Forms:

- operators with a Python number on either side or the same tensor on both (`x - n`, `n / x`,
  `x * x`) and the unary operators (`-x`, `~x`);
- attributes (`Tensor.shape`; `Tensor.mT` raises below two dimensions, `Tensor.T` warns);
- calls with only the tensor, or the tensor and named number parameters: `torch.clamp(x, min=n)`,
  `Tensor.clamp(min=n, max=n)`, `torch.nn.functional.gelu(x)`. The parameters are listed in
  their positional order (`kTotalSignatures`), so graphmend maps positional arguments to them.

What is left out (a dimension, a shape, a second tensor) is not in the table, and graphmend takes
such a call as one that may raise. tests/runtime/test_torch_totality.py regenerates the table
from the installed torch and fails on drift.
"""
from __future__ import annotations

import itertools
import pathlib
import sys
import warnings

import torch
from generated_table import wants_check, write_or_check

ROOT = pathlib.Path(__file__).resolve().parents[1]
TABLE = ROOT / "src" / "analysis" / "torch_totality.inc"

DTYPE_CLASSES = {
    1: [torch.bool],
    2: [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64],
    4: [torch.float16, torch.bfloat16, torch.float32, torch.float64],
    8: [torch.complex64, torch.complex128],
}
SHAPES = [(), (0,), (3,), (2, 0, 3), (2, 3, 4)]
NUMBERS = [2, -1, 0, 2.5, -0.5, 0.0]

BINARY = ["+", "-", "*", "/", "//", "%", "**", "<", "<=", ">", ">=", "==", "!=", "&", "|", "^", "<<", ">>"]
UNARY = ["-", "+", "~"]

# Callables with no argument besides the tensor.
PLAIN = """abs neg negative exp exp2 expm1 log log1p log2 log10 sqrt rsqrt sigmoid tanh sin cos tan asin
acos atan sinh cosh erf erfc relu floor ceil round trunc frac sign sgn signbit reciprocal square
isinf isnan isfinite isposinf isneginf isreal logical_not bitwise_not nan_to_num clone detach
contiguous zeros_like ones_like sum prod mean nansum amax amin max min all any norm std var logsumexp
softmax float half double bfloat16 int long bool t flatten ravel positive angle conj as_tensor dim numel nelement
ndimension size is_floating_point is_complex element_size is_contiguous""".split()
# Callables with named number parameters, in positional order after the tensor.
WITH_NUMBERS = {
    "clamp": ["min", "max"], "clip": ["min", "max"], "clamp_min": ["min"], "clamp_max": ["max"],
    "pow": ["exponent"], "float_power": ["exponent"], "add": ["other"], "sub": ["other"], "mul": ["other"],
    "div": ["other"], "true_divide": ["other"], "fmod": ["other"], "remainder": ["other"],
    "full_like": ["fill_value"], "nan_to_num": ["nan", "posinf", "neginf"], "round": ["decimals"],
}
FUNCTIONAL = {
    "relu": [], "relu6": [], "gelu": [], "silu": [], "mish": [], "selu": [], "hardswish": [], "hardsigmoid": [],
    "logsigmoid": [], "softsign": [], "tanhshrink": [], "sigmoid": [], "tanh": [],
    "softplus": ["beta", "threshold"], "leaky_relu": ["negative_slope"], "elu": ["alpha"], "celu": ["alpha"],
    "hardtanh": ["min_val", "max_val"],
}
KEYWORD_ONLY = {"round": ["decimals"]}  # torch.round(x, decimals=n): not positional
# Tensor attributes read without a call (`h.shape`; `h.mT` raises below two dimensions).
ATTRIBUTES = """T mT H mH real imag shape dtype device ndim is_cuda data grad requires_grad layout is_leaf
grad_fn itemsize nbytes""".split()


def tensors(dtypes):
    # Deterministic values with negatives, zero and positives (an integer zero divides by zero).
    for dtype in dtypes:
        for shape in SHAPES:
            n = 1
            for d in shape:
                n *= d
            values = (torch.arange(n, dtype=torch.float64) - n // 2).reshape(shape)
            if dtype == torch.bool:
                yield values > 0
            elif dtype.is_complex:
                yield torch.complex(values, -values).to(dtype)
            else:
                yield (values * 1.5).to(dtype) if dtype.is_floating_point else values.to(dtype)


def holds(call, dtypes, arity) -> bool:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for x in tensors(dtypes):
            for numbers in itertools.product(NUMBERS, repeat=arity):
                try:
                    call(x, *numbers)
                except Exception:  # noqa: BLE001 (any exception, or a warning turned into one)
                    return False
    return True


def mask(call, arity=0) -> int:
    return sum(bit for bit, dtypes in DTYPE_CLASSES.items() if holds(call, dtypes, arity))


def operator_forms() -> dict[str, int]:
    out = {}
    for op in BINARY:
        out[f"x {op} n"] = mask(eval(f"lambda x, n: x {op} n"), 1)  # noqa: S307 (the operator's own text)
        out[f"n {op} x"] = mask(eval(f"lambda x, n: n {op} x"), 1)  # noqa: S307
        out[f"x {op} x"] = mask(eval(f"lambda x: x {op} x"))  # noqa: S307
    for op in UNARY:
        out[f"{op}x"] = mask(eval(f"lambda x: {op}x"))  # noqa: S307
    return out


def attribute_forms() -> dict[str, int]:
    return {f"Tensor.{name}": mask(lambda x, _n=name: getattr(x, _n)) for name in ATTRIBUTES}


def call_forms() -> tuple[dict[str, int], dict[str, list[str]]]:
    forms: dict[str, int] = {}
    signatures: dict[str, list[str]] = {}
    callables = []  # (displayed name, function taking (x, **kwargs), parameters)
    for name in sorted(set(PLAIN) | set(WITH_NUMBERS)):
        params = WITH_NUMBERS.get(name, [])
        if hasattr(torch, name):
            callables.append((f"torch.{name}", lambda x, _f=getattr(torch, name), **kw: _f(x, **kw), params))
        if hasattr(torch.Tensor, name):
            callables.append((f"Tensor.{name}", lambda x, _n=name, **kw: getattr(x, _n)(**kw), params))
    for name, params in FUNCTIONAL.items():
        f = getattr(torch.nn.functional, name)
        callables.append((f"torch.nn.functional.{name}", lambda x, _f=f, **kw: _f(x, **kw), params))
    for shown, call, params in callables:
        if params:
            positional = [p for p in params if p not in KEYWORD_ONLY.get(shown.split(".")[-1], [])]
            signatures[shown] = positional
        for k in range(len(params) + 1):
            for chosen in itertools.combinations(params, k):
                bits = mask(lambda x, *ns, _c=call, _p=chosen: _c(x, **dict(zip(_p, ns))), len(chosen))
                if not bits:
                    continue
                receiver = "" if shown.startswith("Tensor.") else "x"
                args = ", ".join([receiver] * bool(receiver) + [f"{p}=n" for p in chosen])
                forms[f"{shown}({args})"] = bits
    return forms, signatures


def render(forms: dict[str, int], signatures: dict[str, list[str]]) -> str:
    lines = [
        f"// Generated by scripts/torch_totality.py from torch {torch.__version__.split('+')[0]}; do not edit.",
        "// The forms torch accepts for every shape tried, by dtype class: 1 bool, 2 integer, 4 floating,",
        "// 8 complex. tests/runtime/test_torch_totality.py fails when torch says otherwise.",
        "#ifdef GM_TOTAL_FORM",
    ]
    lines += [f'GM_TOTAL_FORM("{form}", {bits})' for form, bits in sorted(forms.items()) if bits]
    lines += ["#endif", "#ifdef GM_TOTAL_SIGNATURE"]
    lines += [f'GM_TOTAL_SIGNATURE("{name}", "{" ".join(params)}")' for name, params in sorted(signatures.items())]
    lines += ["#endif"]
    return "\n".join(lines) + "\n"


def main() -> int:
    check = wants_check()
    torch.set_warn_always(True)  # a warning torch gives once per process is a warning every time here
    forms = operator_forms()
    forms.update(attribute_forms())
    calls, signatures = call_forms()
    forms.update(calls)
    return write_or_check(TABLE, render(forms, signatures), check, __file__)


if __name__ == "__main__":
    sys.exit(main())
