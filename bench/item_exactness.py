"""Is `.item()` kept a tensor exact? (issue 49 item 3)

For each reduction kind, operation, dtype and mode (eager, aot_eager, inductor), runs

    def f(x):                              def f(x):
        s = <reduction of x>.item()            s = <reduction of x><keep>
        return <operation of x and s>          return <operation of x and s>

with each <keep> of `--keeps` (forms separated by ';': "" drops `.item()`, ".detach()", GM401's
".detach().nan_to_num(torch.nan, torch.inf, -torch.inf)"), on a fixed set of inputs (random values,
0 and -0, negatives, subnormals, the largest finite values, inf, nan, a nan with its sign and a
payload bit set, all zeros, a 0-d and a 2-d tensor), and compares the patched function with the original in the same mode: outputs bit for
bit (dtype, shape, every bit of every element), or the same exception class and message. With
`--grad` the floating-point inputs require grad and the gradients of x (for a fixed upstream
gradient) are compared too.

Each compiled function is made from its own source text, so each has its own code object (Dynamo
caches per code object). The original compiled breaks at `.item()`: the Python float then enters
the next graph as an input (torch 2.13 does not specialize floats).

    .venv/bin/python bench/item_exactness.py [--modes eager,aot_eager,inductor] [--grad]
        [--keeps ".detach();..."] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import sys
import time

import torch
import torch._dynamo

torch._dynamo.config.recompile_limit = 10_000
torch._dynamo.config.accumulated_recompile_limit = 100_000

FLOATS = ["float32", "float64", "float16", "bfloat16"]
INTS = ["int32", "int64", "uint8", "bool"]

# reduction kind -> (expression, which dtypes it applies to)
REDUCTIONS = {
    "abs().max()": ("x.abs().max()", "select"),
    "max()": ("x.max()", "select"),
    "min()": ("x.min()", "select"),
    "abs().amax()": ("x.abs().amax()", "select"),
    "amax()": ("x.amax()", "select"),
    "amin()": ("x.amin()", "select"),
    "abs().amin()": ("x.abs().amin()", "select"),
    "neg().max()": ("x.neg().max()", "select"),
    "sum()": ("x.sum()", "accumulate"),
    "mean()": ("x.mean()", "accumulate"),
    "norm()": ("x.norm()", "accumulate"),
}

OPS = {
    "x + s": "x + s",
    "s + x": "s + x",
    "x - s": "x - s",
    "s - x": "s - x",
    "x * s": "x * s",
    "s * x": "s * x",
    "x / s": "x / s",
    "s / x": "s / x",
    "x ** s": "x ** s",
    "s ** x": "s ** x",
    "x // s": "x // s",
    "clamp(min=s)": "x.clamp(min=s)",
    "clamp(max=s)": "x.clamp(max=s)",
    "torch.clamp(x, -s, s)": "torch.clamp(x, -s, s)",
    "x < s": "x < s",
    "x >= s": "x >= s",
    "x == s": "x == s",
    "torch.where(c, x, s)": "torch.where(x > 0, x, s)",
    "x.add(s)": "x.add(s)",
    "x.div(s)": "x.div(s)",
    "x.mul(s)": "x.mul(s)",
    "x.sub(s)": "x.sub(s)",
    "torch.maximum(x, s)": "torch.maximum(x, s)",
}

GRAD_OPS = {"x + s", "s + x", "x - s", "s - x", "x * s", "s * x", "x / s", "s / x", "x ** s",
            "clamp(min=s)", "clamp(max=s)", "torch.clamp(x, -s, s)", "torch.where(c, x, s)",
            "x.add(s)", "x.div(s)", "x.mul(s)", "x.sub(s)"}


def inputs(dtype_name: str) -> list[tuple[str, torch.Tensor]]:
    dtype = getattr(torch, dtype_name)
    g = torch.Generator().manual_seed(49)
    n = 64
    if dtype.is_floating_point:
        fi = torch.finfo(dtype)
        rand = torch.randn(n, generator=g, dtype=torch.float64) * 3
        edge = torch.tensor([0.0, -0.0, 1.0, -1.0, fi.tiny, -fi.tiny, fi.smallest_normal / 4,
                             -fi.smallest_normal / 8, fi.max, -fi.max, fi.max / 3, 0.1, 1 / 3,
                             -2.5, 1e-3, 7.0], dtype=torch.float64)
        big = torch.randn(n, generator=g, dtype=torch.float64) * (float(fi.max) / 4)
        small = torch.randn(n, generator=g, dtype=torch.float64) * float(fi.smallest_normal)
        with_inf = rand.clone()
        with_inf[3] = math.inf
        with_ninf = rand.clone()
        with_ninf[5] = -math.inf
        with_nan = rand.clone()
        with_nan[7] = math.nan
        sets = [("randn", rand), ("edge", edge.repeat(4)), ("big", big), ("subnormal", small),
                ("inf", with_inf), ("-inf", with_ninf), ("nan", with_nan),
                ("zeros", torch.zeros(n, dtype=torch.float64)),
                ("negative", -rand.abs() - 0.5)]
        out = [(name, t.to(dtype)) for name, t in sets]
        # A NaN with its sign bit and a payload bit set: the bits a kept value must carry as the
        # Python float does.
        odd_nan = with_nan.to(dtype).clone()
        as_int = odd_nan.view({2: torch.int16, 4: torch.int32, 8: torch.int64}[odd_nan.element_size()])
        as_int[7] |= torch.iinfo(as_int.dtype).min | 1
        out.append(("-nan payload", odd_nan))
        out.append(("0-d", torch.tensor(-2.75, dtype=dtype)))
        out.append(("2-d", (torch.randn(4, 16, generator=g) * 5).to(dtype)))
        return out
    if dtype == torch.bool:
        return [("random", torch.rand(64, generator=g) > 0.5),
                ("false", torch.zeros(64, dtype=torch.bool)),
                ("0-d", torch.tensor(True)), ("2-d", torch.rand(4, 16, generator=g) > 0.3)]
    ii = torch.iinfo(dtype)
    lo = max(ii.min, -1000)
    rand = torch.randint(lo, 1000, (64,), generator=g, dtype=torch.int64).to(dtype)
    sets = [("random", rand), ("zeros", torch.zeros(64, dtype=dtype)),
            ("0-d", torch.tensor(3, dtype=dtype)),
            ("2-d", torch.randint(0, 50, (4, 16), generator=g).to(dtype))]
    if ii.min < 0:
        neg = torch.randint(-1000, -1, (64,), generator=g).to(dtype)
        extreme = rand.clone()
        extreme[0] = ii.min
        extreme[1] = ii.max
        sets += [("negative", neg), ("extremes", extreme)]
    return sets


def make(reduction: str, op: str, keep: str, tag: str):
    red_expr = REDUCTIONS[reduction][0]
    src = f"def f_{tag}(x):\n    s = {red_expr}{keep}\n    return {OPS[op]}\n"
    ns = {"torch": torch}
    exec(compile(src, f"<item_exactness {tag}>", "exec"), ns)  # noqa: S102  (a code object per function)
    return ns[f"f_{tag}"]


def run(fn, x: torch.Tensor, grad: bool):
    """The output (and x's gradient) or the exception, as something comparable."""
    try:
        if grad:
            x = x.detach().clone().requires_grad_(True)
        out = fn(x)
        result = {"out": out.detach().clone()}
        if grad and out.requires_grad:
            up = torch.linspace(-1.5, 2.0, out.numel(), dtype=torch.float64).to(out.dtype)
            out.backward(up.reshape(out.shape))
            result["grad"] = None if x.grad is None else x.grad.clone()
        elif grad:
            result["grad"] = "no grad path"
        return result
    except Exception as e:  # noqa: BLE001  (the exception is the result)
        return {"error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"}


def bits(t: torch.Tensor) -> torch.Tensor:
    if t.dtype.is_floating_point:
        return t.view({2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])
    if t.is_complex():
        return torch.view_as_real(t).view(torch.int32 if t.dtype == torch.complex64 else torch.int64)
    return t


def same_tensor(a, b) -> str:
    if a is None or b is None or isinstance(a, str) or isinstance(b, str):
        return "" if a == b else f"grad {a!r} vs {b!r}"[:80]
    if a.dtype != b.dtype:
        return f"dtype {a.dtype} vs {b.dtype}"
    if a.shape != b.shape:
        return f"shape {tuple(a.shape)} vs {tuple(b.shape)}"
    if torch.equal(bits(a), bits(b)):
        return ""
    if a.dtype.is_floating_point and torch.equal(a.isnan(), b.isnan()) and torch.equal(
            torch.nan_to_num(a, nan=0.0), torch.nan_to_num(b, nan=0.0)):
        return "nan payload"
    diff = (a.double() - b.double()).abs()
    diff = torch.nan_to_num(diff, nan=math.inf)
    return f"values (max diff {diff.max().item():.3g})"


def compare(a: dict, b: dict) -> str:
    if "error" in a or "error" in b:
        if a.get("error") == b.get("error"):
            return ""
        return f"error {a.get('error', 'none')!r} vs {b.get('error', 'none')!r}"[:160]
    why = same_tensor(a["out"], b["out"])
    if why:
        return why
    if "grad" in a or "grad" in b:
        why = same_tensor(a.get("grad"), b.get("grad"))
        if why:
            return "grad: " + why
    return ""


def compiled(fn, mode: str):
    if mode == "eager-mode":
        return fn
    return torch.compile(fn, backend=mode)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--modes", default="eager,aot_eager,inductor")
    ap.add_argument("--dtypes", default=",".join(FLOATS + INTS))
    ap.add_argument("--reductions", default=",".join(REDUCTIONS))
    ap.add_argument("--ops", default="|".join(OPS))
    ap.add_argument("--keeps", default=".detach()", help="forms in place of .item(), separated by ';'")
    ap.add_argument("--grad", action="store_true")
    ap.add_argument("--json", type=pathlib.Path)
    args = ap.parse_args()
    modes = ["eager-mode" if m == "eager" else m for m in args.modes.split(",")]
    keeps = args.keeps.split(";")
    rows = []
    t0 = time.time()
    tag = 0
    for dtype_name in args.dtypes.split(","):
        is_float = getattr(torch, dtype_name).is_floating_point
        xs = inputs(dtype_name)
        if args.grad and not is_float:
            continue
        for reduction in args.reductions.split(","):
            if REDUCTIONS[reduction][1] == "accumulate" and not is_float:
                continue
            for op in args.ops.split("|"):
                if args.grad and op not in GRAD_OPS:
                    continue
                for mode in modes:
                    tag += 1
                    orig = compiled(make(reduction, op, ".item()", f"o{tag}"), mode)
                    # Compiled, the 0-d input would only add a recompile; it runs eagerly.
                    these = [(n, x) for n, x in xs if mode == "eager-mode" or n != "0-d"]
                    ref = [run(orig, x, args.grad) for _, x in these]
                    eager_errors = sum("error" in r for r in ref)
                    for keep in keeps:
                        tag += 1
                        patched = compiled(make(reduction, op, keep, f"p{tag}"), mode)
                        bad = []
                        for (name, x), r in zip(these, ref):
                            why = compare(r, run(patched, x, args.grad))
                            if why:
                                bad.append(f"{name}: {why}")
                        rows.append({"dtype": dtype_name, "reduction": reduction, "op": op,
                                     "mode": mode.replace("-mode", ""), "keep": keep or "(dropped)",
                                     "grad": args.grad, "exact": not bad, "differs": bad,
                                     "inputs": len(these), "errors_in_original": eager_errors})
                print(f"[{time.time() - t0:6.0f}s] {dtype_name} {reduction} {op}: "
                      + ", ".join(f"{r['mode']}{r['keep']}={'ok' if r['exact'] else 'DIFF'}"
                                  for r in rows[-len(modes) * len(keeps):]), flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
