"""How graphmend's time and memory grow with the size of one file, for the shapes issue 12 names.

    bash bench/scale/run.sh            # builds graphmend, makes bench/.venv-scale (matplotlib), runs this

Each shape is one Python file whose size is set by n (statements, sites, arms, operands or
functions), generated at doubling sizes. `graphmend check` and `graphmend fix --unsafe-fixes` (on a
copy) each run in their own process under /usr/bin/time (wall seconds, peak RSS). The growth
exponent is the slope of log(time) against log(n) over the largest sizes: 1 is linear, 2 quadratic.
Writes bench/results/scale.json, bench/results/scale.png and the scale section of bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import json
import math
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
from _sections import replace_section  # noqa: E402  (bench/ is not a package)
RESULTS = ROOT / "bench" / "results"
BEGIN = "<!-- scale: begin (bench/scale/shapes.py writes this section) -->"
END = "<!-- scale: end -->"

HEADER = ("import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n"
          "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n")


def statements(n: int) -> str:
    """n assignments of one name in one compiled function (the quadratic-memory case)."""
    return HEADER + "        y = 1\n" * n + "        print(y)\n        return x\n"


def names(n: int) -> str:
    """n distinct names assigned, then each read once at the end."""
    body = "".join(f"        y{i} = {i}\n" for i in range(n))
    reads = "".join(f"        print(y{i})\n" for i in range(0, n, max(1, n // 64)))
    return HEADER + body + reads + "        return x\n"


def print_sites(n: int) -> str:
    """n [Defer] sites in one function."""
    return HEADER + "".join(f"        print('step', {i})\n" for i in range(n)) + "        return x\n"


def elif_chain(n: int) -> str:
    """One if/elif chain of n arms on tensor conditions."""
    out = HEADER + "        if x.sum() > 0:\n            y = x + 0\n"
    out += "".join(f"        elif x.sum() > {i}:\n            y = x + {i}\n" for i in range(1, n))
    return out + "        else:\n            y = x\n        return y\n"


def if_sequence(n: int) -> str:
    """n consecutive [Where] sites, each reading what the one before selected."""
    out = HEADER + "        y = x\n"
    out += "".join(f"        if y.sum() > {i}:\n            y = y + {i}\n        else:\n            y = y - 1\n"
                   for i in range(n))
    return out + "        return y\n"


def and_chain(n: int) -> str:
    """One condition of n `and` operands."""
    cond = " and ".join(["x.sum() > 0"] * n)
    return HEADER + f"        if {cond}:\n            y = x + 1\n        else:\n            y = x\n        return y\n"


def functions(n: int) -> str:
    """n compiled functions (module forwards) in one file."""
    out = "import torch\nimport torch.nn as nn\n"
    out += "".join(f"\n\nclass Model{i}(nn.Module):\n    def forward(self, x: torch.Tensor) -> torch.Tensor:\n"
                   f"        print('model', {i})\n        return x\n" for i in range(n))
    return out


def module_augmented(n: int) -> str:
    """n augmented assignments of one module-level name, read in a compiled function: module-level
    definitions all reach each other, the case a fuzzer found (exponential before)."""
    out = "import torch\nimport torch.nn as nn\n\nacc = torch.zeros(2)\n" + "acc += 1\n" * n
    return out + ("\n\nclass Model(nn.Module):\n    def forward(self, x: torch.Tensor) -> torch.Tensor:\n"
                  "        if acc.sum() > 0:\n            x = x + 1\n        return x\n")


SHAPES = {  # name -> (generator, sizes)
    "statements": (statements, [25_000, 50_000, 100_000, 200_000, 400_000]),
    "names": (names, [5_000, 10_000, 20_000, 40_000, 80_000]),
    "print_sites": (print_sites, [2_000, 4_000, 8_000, 16_000, 32_000]),
    "elif_chain": (elif_chain, [1_000, 2_000, 4_000, 8_000, 16_000]),
    "if_sequence": (if_sequence, [500, 1_000, 2_000, 4_000, 8_000]),
    "and_chain": (and_chain, [2_000, 4_000, 8_000, 16_000, 32_000]),
    "functions": (functions, [2_500, 5_000, 10_000, 20_000, 40_000]),
    "module_augmented": (module_augmented, [1_000, 2_000, 4_000, 8_000, 16_000]),
}


def timed(cmd: list[str], timeout: float) -> tuple[float, int, int]:
    """(wall seconds, peak RSS in MB, exit code); wall = timeout when killed."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        try:
            done = subprocess.run(["/usr/bin/time", "-f", "%e %M", "-o", t.name, *cmd],
                                  capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return timeout, 0, 124
        wall, kb = t.read().split()[-2:]
    return float(wall), int(kb) // 1024, done.returncode


def slope(points: list[tuple[int, float]]) -> float | None:
    """Least-squares slope of log(value) on log(n) over the given points."""
    pts = [(math.log(n), math.log(max(v, 1e-3))) for n, v in points]
    if len(pts) < 2:
        return None
    mx = sum(x for x, _ in pts) / len(pts)
    my = sum(y for _, y in pts) / len(pts)
    den = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / den if den else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graphmend", default=str(ROOT / "build" / "graphmend"))
    ap.add_argument("--shapes", nargs="*", default=list(SHAPES), choices=list(SHAPES))
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per run; a run killed stops its shape")
    ap.add_argument("--no-write", action="store_true", help="print only; leave bench/results alone")
    args = ap.parse_args()

    results: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory(prefix="graphmend-scale-") as tmp:
        for shape in args.shapes:
            make, sizes = SHAPES[shape]
            rows = results.setdefault(shape, [])
            for n in sizes:
                src = pathlib.Path(tmp, f"{shape}_{n}.py")
                src.write_text(make(n))
                check = timed([args.graphmend, "check", "--no-cache", "--isolated", "--no-project-context", str(src)], args.timeout)
                copy = pathlib.Path(tmp, f"{shape}_{n}_fix.py")
                shutil.copyfile(src, copy)
                fix = timed([args.graphmend, "fix", "--isolated", "--no-project-context", "--unsafe-fixes", str(copy)],
                            args.timeout)
                row = {"n": n, "bytes": src.stat().st_size, "check_s": check[0], "check_mb": check[1],
                       "check_rc": check[2], "fix_s": fix[0], "fix_mb": fix[1], "fix_rc": fix[2]}
                rows.append(row)
                print(f"{shape:12} n={n:>7} {row['bytes'] / 1e6:6.2f} MB  check {check[0]:7.2f} s {check[1]:6} MB "
                      f"(rc {check[2]})  fix {fix[0]:7.2f} s {fix[1]:6} MB (rc {fix[2]})", flush=True)
                if 124 in (check[2], fix[2]):
                    break
                src.unlink()
                copy.unlink()

    summary = {}
    for shape, rows in results.items():
        tail = [r for r in rows if 124 not in (r["check_rc"], r["fix_rc"])][-3:]
        summary[shape] = {
            "check_time_exponent": slope([(r["n"], r["check_s"]) for r in tail]),
            "fix_time_exponent": slope([(r["n"], r["fix_s"]) for r in tail]),
            "check_memory_exponent": slope([(r["n"], float(r["check_mb"])) for r in tail]),
            "fix_memory_exponent": slope([(r["n"], float(r["fix_mb"])) for r in tail]),
        }
    for shape, s in summary.items():
        print(f"{shape:12} growth exponents over the 3 largest sizes: " +
              ", ".join(f"{k.replace('_exponent', '')} {v:.2f}" for k, v in s.items() if v is not None))
    if args.no_write:
        return 0
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "scale.json").write_text(json.dumps({"runs": results, "exponents": summary}, indent=2) + "\n")
    plot(results)
    write_section(results, summary)
    return 0


def plot(results: dict[str, list[dict]]) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8))
    for shape, rows in results.items():
        ns = [r["n"] for r in rows]
        (line,) = axes[0].loglog(ns, [max(r["check_s"], 0.01) for r in rows], "o-", label=shape)
        axes[0].loglog(ns, [max(r["fix_s"], 0.01) for r in rows], "x--", color=line.get_color())
        axes[1].loglog(ns, [max(r["check_mb"], 1) for r in rows], "o-", color=line.get_color(), label=shape)
        axes[1].loglog(ns, [max(r["fix_mb"], 1) for r in rows], "x--", color=line.get_color())
    axes[0].set(title="time (solid: check, dashed: fix)", xlabel="n (per shape)", ylabel="seconds")
    axes[1].set(title="peak RSS (solid: check, dashed: fix)", xlabel="n (per shape)", ylabel="MB")
    for ax in axes:
        ax.grid(True, which="both", alpha=0.3)
    axes[1].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(RESULTS / "scale.png", dpi=110)


def write_section(results: dict[str, list[dict]], summary: dict[str, dict]) -> None:
    lines = [BEGIN, "", "### Cost against the size of one file (bench/scale)", "",
             "`bash bench/scale/run.sh`: one generated file per shape and size, each run in its own process; "
             "exponent = slope of log(time or RSS) on log(n) over the three largest sizes (1 = linear).", "",
             "| shape | largest n | file MB | check s | check MB | fix s | fix MB | time exponent check / fix | "
             "memory exponent check / fix |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for shape, rows in results.items():
        r, s = rows[-1], summary[shape]
        fmt = lambda v: "n/a" if v is None else f"{v:.2f}"  # noqa: E731
        lines.append(f"| {shape} | {r['n']:,} | {r['bytes'] / 1e6:.1f} | {r['check_s']:.2f} | {r['check_mb']} | "
                     f"{r['fix_s']:.2f} | {r['fix_mb']} | {fmt(s['check_time_exponent'])} / "
                     f"{fmt(s['fix_time_exponent'])} | {fmt(s['check_memory_exponent'])} / "
                     f"{fmt(s['fix_memory_exponent'])} |")
    lines += ["", "![time and memory against size](results/scale.png)", "", END]
    replace_section(ROOT / "bench" / "RESULTS.md", BEGIN, END, "\n".join(lines), new_file="# Results\n")


if __name__ == "__main__":
    sys.exit(main())
