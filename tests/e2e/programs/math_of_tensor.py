"""GM406: a `math` function of a tensor asks Dynamo for the tensor's value as a Python number,
which the graph does not have: it breaks there (GB0033 Data dependent operator). Each call is
followed by tensor work, so every split shows. `math` functions of shapes and constants, and
`math.radians` (which Dynamo traces as tensor arithmetic), break nothing."""
import math
from math import floor as round_down

import torch


@torch.compile
def one_argument(x: torch.Tensor):
    y = x.sigmoid() + 0.5
    a = math.sqrt(y.sum())  # expect: GM406 reported
    y = y * 2
    b = math.ceil(y.mean())  # expect: GM406 reported
    y = y + 1
    c = math.floor(y.mean())  # expect: GM406 reported
    y = y - 1
    d = math.exp(y.mean())  # expect: GM406 reported
    y = y * 3
    e = math.log(y.mean())  # expect: GM406 reported
    y = y + 2
    f = math.log2(y.mean())  # expect: GM406 reported
    y = y - 2
    g = math.log10(y.mean())  # expect: GM406 reported
    y = y * 4
    h = math.log1p(y.mean())  # expect: GM406 reported
    y = y + 3
    i = math.expm1(y.mean())  # expect: GM406 reported
    y = y - 3
    j = math.fabs(y.mean())  # expect: GM406 reported
    y = y.cos() + 1.5
    k = math.sin(y.mean()) + math.cos(y[0])  # expect: GM406 reported, GM406 reported
    y = y * 5
    m = math.tan(y.mean())  # expect: GM406 reported
    y = y + 4
    n = math.tanh(y.mean())  # expect: GM406 reported
    y = y - 4
    return y, (a, b, c, d, e, f, g, h, i, j, k, m, n)


@torch.compile
def more_functions(x: torch.Tensor):
    y = x.sigmoid() * 0.5
    a = math.asin(y.mean()) + math.acos(y[1])  # expect: GM406 reported, GM406 reported
    y = y * 2
    b = math.atan(y.mean())  # expect: GM406 reported
    y = y + 1
    c = math.sinh(y.mean()) + math.cosh(y[0])  # expect: GM406 reported, GM406 reported
    y = y - 1
    d = math.asinh(y.mean())  # expect: GM406 reported
    y = y * 0.5
    e = math.atanh(y[0] * 0.1)  # expect: GM406 reported
    y = y + 2
    f = math.erf(y.mean()) + math.erfc(y[0])  # expect: GM406 reported, GM406 reported
    y = y - 2
    g = math.exp2(y.mean())  # expect: GM406 reported
    y = y * 3
    h = math.cbrt(y.mean())  # expect: GM406 reported
    y = y + 1
    i = math.gamma(y.mean() + 1) + math.lgamma(y[0] + 1)  # expect: GM406 reported, GM406 reported
    y = y - 1
    j = math.degrees(y.mean())  # expect: GM406 reported
    y = y * 2
    return y, (a, b, c, d, e, f, g, h, i, j)


@torch.compile
def two_arguments(x: torch.Tensor):
    y = x.sigmoid() + 0.5
    a = math.pow(2.0, y.sum())  # expect: GM406 reported
    y = y * 2
    b = math.log(y.sum(), 2)  # expect: GM406 reported
    y = y + 1
    c = math.atan2(1.0, y.mean())  # expect: GM406 reported
    y = y - 1
    d = math.hypot(y[0], y[1])  # expect: GM406 reported
    y = y * 3
    e = math.copysign(1.0, y.mean())  # expect: GM406 reported
    y = y + 2
    f = math.fmod(y.sum(), 3.0)  # expect: GM406 reported
    y = y - 2
    g = math.isclose(y.mean(), 1.0)  # expect: GM406 reported
    y = y * 4
    h = math.isqrt(y.sum().long())  # expect: GM406 reported
    y = y + 3
    i = math.factorial(y.sum().long() % 5)  # expect: GM406 reported
    y = y - 3
    j = math.remainder(y.sum(), 3.0)  # expect: GM406 reported
    y = y * 5
    k = math.ldexp(y.mean(), 2)  # expect: GM406 reported
    y = y + 4
    m = round_down(y.mean())  # expect: GM406 reported
    y = y - 4
    return y, (a, b, c, d, e, f, g, h, i, j, k, m)


@torch.compile
def tests_of_value(x: torch.Tensor):
    y = x.sigmoid()
    bad = math.isnan(y.sum()) or math.isinf(y.mean())  # expect: GM406 reported, GM406 reported
    y = y * 2
    if math.isfinite(y.sum()):  # expect: GM406 reported
        y = y + 1
    return y, bad


@torch.compile
def static_arguments(x: torch.Tensor):
    y = x.sin()
    scale = math.sqrt(y.shape[-1])
    y = y * scale
    blocks = math.ceil(y.size(0) / 2)
    y = y + blocks
    half = math.log(8) + math.pi
    y = y - half
    angle = math.radians(y.mean())
    y = y * angle
    return y


def cases():
    return [
        (one_argument, (torch.randn(4),)),
        (more_functions, (torch.randn(4),)),
        (two_arguments, (torch.randn(4),)),
        (tests_of_value, (torch.randn(4),)),
        (static_arguments, (torch.randn(4),)),
    ]
