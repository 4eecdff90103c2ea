"""The census (issue 14): every transformers architecture built from a small config, graph breaks
before and after plain `graphmend fix`, outputs identical, every remaining break with its site.

    python bench/census/census.py [--python PY] [--models TYPE ...] [--jobs 2] [--timeout 150] [--write]

PY is the interpreter of the environment to census (default .venv/bin/python: transformers 4.52.4;
bench/census/setup_5x.sh makes bench/.venv-census5 with the newest 5.x). Its transformers is copied
and fixed with plain `graphmend fix` (build/graphmend) into bench/.work/census-<version>/. Each
architecture of its AutoModel table (the base models) runs in two processes (bench/census/arm.py),
each under a timeout: the original, which saves the weights, and the patched copy, which loads them
strictly. An architecture that does not build, or has no inputs the census knows how to make, is
counted as not built, with the reason. Writes bench/results/census-<version>.json; --write also
writes the census section of bench/RESULTS.md and bench/results/census-<version>.png.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "bench"))
from _sections import replace_section  # noqa: E402  (bench/ is not a package)


def environment(python: str) -> dict:
    script = ("import json, os, transformers\n"
              "from transformers.models.auto.modeling_auto import MODEL_MAPPING_NAMES\n"
              "print(json.dumps({'version': transformers.__version__, "
              "'path': os.path.dirname(transformers.__file__), 'models': sorted(MODEL_MAPPING_NAMES)}))")
    out = subprocess.run([python, "-c", script], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def patched_copy(graphmend: str, source: str, work: pathlib.Path, unsafe: bool = False) -> pathlib.Path:
    site = work / "patched"
    if site.exists():
        shutil.rmtree(site)
    fixed_copy(graphmend, source, site / "transformers", unsafe)
    return site


def fixed_copy(graphmend: str, source: str, package: pathlib.Path, unsafe: bool = False) -> None:
    """A copy of the package folder `source` at `package`, fixed by `graphmend fix` in place."""
    shutil.copytree(source, package, ignore=shutil.ignore_patterns("__pycache__"))
    flags = ["--unsafe-fixes"] if unsafe else []
    fixed = subprocess.run([graphmend, "fix", "--no-cache", "--fix-generated", *flags, str(package)], capture_output=True,
                           text=True, check=False)
    if fixed.returncode not in (0, 1):
        sys.exit(f"graphmend fix failed ({fixed.returncode}): {fixed.stderr[-500:]}")


def run_arm(python: str, model_type: str, weights: pathlib.Path, site: pathlib.Path | None, timeout: int,
            save_compiled: pathlib.Path | None = None, arm: pathlib.Path = HERE / "arm.py",
            options: tuple[str, ...] = ()) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if site is not None:
        env["PYTHONPATH"] = str(site)
    env["OMP_NUM_THREADS"] = "1"  # two arms at a time on two cores
    saving = ["--save-compiled", str(save_compiled)] if save_compiled else []
    try:
        out = subprocess.run([python, str(arm), model_type, "--weights", str(weights), *saving, *options],
                             capture_output=True, text=True, env=env, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"model_type": model_type, "error": f"timeout after {timeout} s"}
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    if not lines:
        return {"model_type": model_type, "error": (out.stderr.strip().splitlines() or ["?"])[-1][:200]}
    return json.loads(lines[-1])


def largest_difference(a: pathlib.Path, b: pathlib.Path) -> float | None:
    """The largest absolute difference between two saved outputs (None when they do not line up)."""
    import torch

    x, y = torch.load(a), torch.load(b)
    if len(x) != len(y) or any(s.shape != t.shape for s, t in zip(x, y)):
        return None
    return max([(s.double() - t.double()).abs().max().item() for s, t in zip(x, y) if s.is_floating_point() and
                s.numel()] or [0.0])


def census_one(python: str, model_type: str, site: pathlib.Path, work: pathlib.Path, timeout: int) -> dict:
    weights = work / f"{model_type}.pt"
    saved = [work / f"{model_type}-original.out", work / f"{model_type}-patched.out"]
    original = run_arm(python, model_type, weights, None, timeout, saved[0])
    result = {"model_type": model_type, "original": original}
    if original.get("stage") == "done":  # an architecture that does not run has nothing to compare
        result["patched"] = run_arm(python, model_type, weights, site, timeout, saved[1])
        patched = result["patched"]
        if patched.get("stage") == "done" and patched["compiled_sha256"] != original["compiled_sha256"]:
            patched["compiled_largest_difference"] = largest_difference(*saved)
    for path in [weights, *saved]:
        path.unlink(missing_ok=True)
    return result


def summarize(results: list[dict]) -> dict:
    built = [r for r in results if r["original"].get("stage") == "done"]
    compared = [r for r in built if r.get("patched", {}).get("stage") == "done"]
    # The patched model must reproduce the original in each mode. Eager and compiled are not compared
    # with each other: a model may choose another path under Dynamo itself (recurrent_gemma skips a
    # normalisation when is_torchdynamo_compiling()), which is the model's doing, not graphmend's.
    identical = [r for r in compared
                 if r["patched"]["eager_sha256"] == r["original"]["eager_sha256"]
                 and r["patched"]["compiled_sha256"] == r["original"]["compiled_sha256"]]
    breaking = [r for r in compared if r["original"]["breaks"]]
    causes = collections.Counter(b["cause"] for r in compared for b in r["patched"]["break_sites"])
    not_built = collections.Counter((r["original"].get("error") or "?").split(":")[0] for r in results
                                    if r["original"].get("stage") != "done")
    return {
        "architectures": len(results), "built": len(built), "compared": len(compared),
        "patched_failed": [r["model_type"] for r in built if r.get("patched", {}).get("stage") != "done"],
        "outputs_identical": len(identical),
        "eager_identical": sum(1 for r in compared if r["patched"]["eager_sha256"] == r["original"]["eager_sha256"]),
        "differing": [r["model_type"] for r in compared if r not in identical],
        "compiled_largest_difference": {r["model_type"]: r["patched"]["compiled_largest_difference"] for r in compared
                                        if r["patched"].get("compiled_largest_difference") is not None},
        "compiled_unlike_eager_in_original": [r["model_type"] for r in compared
                                              if r["original"]["compiled_sha256"] != r["original"]["eager_sha256"]],
        "breaking_before": len(breaking),
        "breaking_after": sum(1 for r in compared if r["patched"]["breaks"]),
        "breaks_before": sum(r["original"]["breaks"] for r in compared),
        "breaks_after": sum(r["patched"]["breaks"] for r in compared),
        "remaining_causes": dict(causes.most_common()),
        "not_built_by_error": dict(not_built.most_common()),
    }


def section(version: str, summary: dict, results: list[dict], command: str, label: str = "") -> str:
    """`label`: "" for the census of plain `graphmend fix`, "-unsafe" for one with --unsafe-fixes."""
    key = f"census-{version}{label}"
    begin, end = f"<!-- {key}: begin (bench/census/census.py writes this section) -->", f"<!-- {key}: end -->"
    removed = summary["breaks_before"] - summary["breaks_after"]
    share = f"{100 * removed / summary['breaks_before']:.0f}%" if summary["breaks_before"] else "n/a"
    title = (f"## Census: transformers {version}, every base architecture from a small config (issue 14)" if not label
             else f"## Census: transformers {version} with `graphmend fix --unsafe-fixes`, the architectures named")
    how = "plain `graphmend fix`" if not label else "`graphmend fix --unsafe-fixes`"
    lines = [begin, "", title, "",
             f"`{command}` (CPU, 2 cores; {how}; each arm in its own process with pinned weights).",
             "", f"- architectures {'in the AutoModel table' if not label else 'named'}: {summary['architectures']}; "
             f"built and run: {summary['built']}; compared (the patched arm ran too): {summary['compared']}",
             f"- breaking before: {summary['breaking_before']} architectures, {summary['breaks_before']} breaks; "
             f"after: {summary['breaking_after']} architectures, {summary['breaks_after']} breaks ({share} removed)",
             f"- outputs identical (patched against original, eager and compiled each, bit for bit): "
             f"{summary['outputs_identical']} of {summary['compared']}"
             + (f"; differing: {', '.join(summary['differing'])}" if summary["differing"] else ""),
             *([f"- eager outputs identical (bit for bit): {summary['eager_identical']} of {summary['compared']}"]
               if label else []),
             *([f"- largest difference of a differing compiled output from the original's: "
                + ", ".join(f"{m} {d:.2g}" for m, d in summary["compiled_largest_difference"].items())]
               if summary.get("compiled_largest_difference") else []),
             "- the original's own compiled output differs from its eager output (the model's doing, "
             "patched or not): " + (", ".join(summary["compiled_unlike_eager_in_original"]) or "none"),
             "", f"![breaking architectures of transformers {version}, before and after](results/{key}.png)",
             "", "| architecture | class | breaks before → after | remaining breaks (site: cause) |", "|---|---|---|---|"]
    for r in results:
        o, p = r["original"], r.get("patched", {})
        if o.get("stage") != "done" or not o.get("breaks"):
            continue
        remaining = "; ".join(f"`{b['site']}`: {b['cause']}" for b in p.get("break_sites", [])) or "none"
        after = p.get("breaks", p.get("error", "?"))
        lines.append(f"| {r['model_type']} | {o.get('class', '')} | {o['breaks']} → {after} | {remaining} |")
    lines += ["", "Remaining causes: " + (", ".join(f"{c} ({n})" for c, n in summary["remaining_causes"].items()) or "none"),
              "", "Not built, by error: " + ", ".join(f"{c} ({n})" for c, n in summary["not_built_by_error"].items()),
              "", end]
    return begin, end, "\n".join(lines)


def chart(version: str, results: list[dict], path: pathlib.Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in results if r["original"].get("breaks") and r.get("patched", {}).get("stage") == "done"]
    fig, ax = plt.subplots(figsize=(max(6, 0.35 * len(rows)), 4))
    xs = range(len(rows))
    ax.bar([x - 0.2 for x in xs], [r["original"]["breaks"] for r in rows], 0.4, label="original")
    ax.bar([x + 0.2 for x in xs], [r["patched"]["breaks"] for r in rows], 0.4, label="graphmend fix")
    ax.set_xticks(list(xs), [r["model_type"] for r in rows], rotation=70, fontsize=7)
    ax.set_ylabel("graph breaks")
    ax.set_title(f"transformers {version}: breaking architectures, before and after")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--python", default=str(ROOT / ".venv" / "bin" / "python"))
    parser.add_argument("--graphmend", default=str(ROOT / "build" / "graphmend"))
    parser.add_argument("--models", nargs="*", help="model types (default: every base architecture)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=150)
    parser.add_argument("--out", help="the results JSON (default bench/results/census-<version>.json)")
    parser.add_argument("--work", help="where the patched copy goes (default bench/.work/census-<version>)")
    parser.add_argument("--write", action="store_true", help="also write bench/RESULTS.md's section and the chart")
    parser.add_argument("--unsafe-fixes", action="store_true",
                        help="patch with `fix --unsafe-fixes` (results, work folder and section named <version>-unsafe)")
    parser.add_argument("--resume", action="store_true",
                        help="keep the architectures the results JSON already has (a run stopped part way)")
    parser.add_argument("--retry-not-run", action="store_true",
                        help="with --resume: measure again the architectures that did not run (after arm.py learnt "
                             "new inputs)")
    args = parser.parse_args()
    env = environment(args.python)
    version = env["version"]
    label = "-unsafe" if args.unsafe_fixes else ""
    work = pathlib.Path(args.work) if args.work else ROOT / "bench" / ".work" / f"census-{version}{label}"
    work.mkdir(parents=True, exist_ok=True)
    site = patched_copy(args.graphmend, env["path"], work, args.unsafe_fixes)
    models = args.models or env["models"]
    out = pathlib.Path(args.out) if args.out else ROOT / "bench" / "results" / f"census-{version}{label}.json"
    done = {}
    if args.resume and out.exists():
        done = {r["model_type"]: r for r in json.loads(out.read_text())["results"]
                if not (args.retry_not_run and r["original"].get("stage") != "done")}
    with tempfile.TemporaryDirectory(prefix="census-weights-") as weights, \
            concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {m: pool.submit(census_one, args.python, m, site, pathlib.Path(weights), args.timeout)
                   for m in models if m not in done}
        for m in models:
            if m not in futures:
                continue
            r = done[m] = futures[m].result()
            o, p = r["original"], r.get("patched", {})
            print(f"{m}: {o.get('breaks', o.get('error'))} -> {p.get('breaks', p.get('error', '-'))}", flush=True)
            # Written as it goes: a run stopped part way keeps what it measured (--resume goes on).
            partial = [done[k] for k in models if k in done]
            out.write_text(json.dumps({"transformers": version, "complete": len(partial) == len(models),
                                       "summary": summarize(partial), "results": partial}, indent=1) + "\n")
    results = [done[m] for m in models]
    summary = summarize(results)
    out.write_text(json.dumps({"transformers": version, "complete": True, "summary": summary, "results": results},
                              indent=1) + "\n")
    print(json.dumps(summary, indent=1))
    if args.write:
        command = "python bench/census/census.py" + ("" if args.python.endswith(".venv/bin/python") else
                                                      f" --python {os.path.relpath(args.python, ROOT)}")
        if args.unsafe_fixes:
            command += " --unsafe-fixes"
        if args.models:
            command += " --models " + " ".join(args.models)
        begin, end, text = section(version, summary, results, command, label)
        replace_section(ROOT / "bench" / "RESULTS.md", begin, end, text)
        chart(version, results, ROOT / "bench" / "results" / f"census-{version}{label}.png")


if __name__ == "__main__":
    main()
