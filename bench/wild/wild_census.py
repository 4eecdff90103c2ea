"""The wild census (issue 49): models of torchvision, timm, diffusers, x-transformers and
vector-quantize-pytorch (bench/wild/models.py), graph breaks before and after `graphmend fix`
(plain and --unsafe-fixes), outputs identical, every remaining break with its site, and what
capture_scalar_outputs / capture_dynamic_output_shape_ops make of the breaks that remain.

    python bench/wild/wild_census.py [--python PY] [--models LIB/NAME ...] [--libraries LIB ...]
                                [--jobs 2] [--timeout 300] [--resume] [--write]

PY is the interpreter of the census's environment (default: the one bench/wild/setup.sh makes,
/work/venv-tv: torch 2.14.1 and torchvision 0.29.1, CUDA builds run on CPU). Each library the run
needs is copied twice into bench/.work/wild/ and fixed, once with plain `graphmend fix`, once with
`--unsafe-fixes`; each copy is put first on the arm's PYTHONPATH. Per model, in separate processes
under a timeout (bench/wild/wild_arm.py): the original (saves the weights), the plain and the unsafe
copies (load them strictly; when the unsafe copies are byte-identical to the plain ones, the plain
arm's result stands for both, marked `same_sources_as`), and, when the original breaks, the original
once more with the capture flags. Writes bench/results/wild.json as it goes (--resume keeps what it has); --write also writes
the wild section of bench/RESULTS.md and bench/results/wild.png.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures
import hashlib
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "bench" / "census"))
sys.path.insert(0, str(HERE))
from census import fixed_copy, largest_difference, run_arm
from models import LIBRARIES, MODELS

ARM = HERE / "wild_arm.py"
FIXES = {"plain": False, "unsafe": True}


def library_dirs(python: str, libraries: list[str]) -> dict[str, str]:
    script = ("import json, os, sys, importlib\n"
              "print(json.dumps({n: os.path.dirname(importlib.import_module(n).__file__) for n in sys.argv[1:]}))")
    out = subprocess.run([python, "-c", script, *libraries], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def patched_sites(graphmend: str, sources: dict[str, str], work: pathlib.Path, jobs: int) -> dict[str, pathlib.Path]:
    """Per kind of fix, a folder with a fixed copy of each library (to go first on PYTHONPATH)."""
    sites = {kind: work / kind for kind in FIXES}
    tasks = []
    for kind, site in sites.items():
        if site.exists():
            shutil.rmtree(site)
        site.mkdir(parents=True)
        for name, source in sources.items():
            tasks.append((source, site / name, FIXES[kind]))
            # A wheel's bundled shared libraries sit beside the package (torchvision.libs): its
            # extension modules find them relative to their own folder.
            for beside in pathlib.Path(source).parent.glob(f"{name}.libs"):
                (site / beside.name).symlink_to(beside)
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        list(pool.map(lambda t: fixed_copy(graphmend, *t), tasks))
    return sites


def tree_digest(folder: pathlib.Path) -> str:
    """Every file's path and bytes under `folder` (links followed, __pycache__ left out)."""
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            h.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def same_sources(sites: dict[str, pathlib.Path]) -> dict[str, str]:
    """The kinds of fix whose copies are byte-identical to an earlier kind's: the same code runs, so
    their arm is not run again and the earlier arm's result stands (marked `same_sources_as`)."""
    digests, twins = {}, {}
    for kind, site in sites.items():
        d = tree_digest(site)
        if d in digests:
            twins[kind] = digests[d]
        digests.setdefault(d, kind)
    return twins


def census_one(python: str, model: str, sites: dict[str, pathlib.Path], twins: dict[str, str], work: pathlib.Path,
               timeout: int) -> dict:
    stem = model.replace("/", "--")
    weights = work / f"{stem}.pt"
    saved = {arm: work / f"{stem}-{arm}.out" for arm in ("original", *FIXES)}
    started = time.perf_counter()
    original = run_arm(python, model, weights, None, timeout, saved["original"], ARM)
    result = {"model_type": model, "library": MODELS[model][0], "original": original}
    if original.get("stage") == "done":  # a model that does not run has nothing to compare
        for kind, site in sites.items():
            if kind in twins:
                result[kind] = {**result[twins[kind]], "same_sources_as": twins[kind]}
                continue
            patched = result[kind] = run_arm(python, model, weights, site, timeout, saved[kind], ARM)
            if patched.get("stage") == "done" and patched["compiled_sha256"] != original["compiled_sha256"]:
                patched["compiled_largest_difference"] = largest_difference(saved["original"], saved[kind])
        if original["breaks"]:
            result["capture"] = run_arm(python, model, weights, None, timeout, None, ARM, ("--capture",))
    result["seconds"] = round(time.perf_counter() - started, 1)
    for path in [weights, *saved.values()]:
        path.unlink(missing_ok=True)
    return result


def recapture(python: str, results: list[dict], jobs: int, timeout: int) -> None:
    """The capture arm again for models already measured. The weights are rebuilt from the same seed
    (the arm's eager digest, compared with the original's, shows they are the same)."""
    def one(r):
        with tempfile.TemporaryDirectory(prefix="wild-recapture-") as folder:
            r["capture"] = run_arm(python, r["model_type"], pathlib.Path(folder) / "w.pt", None, timeout, None, ARM,
                                   ("--capture",))
            print(f"{r['model_type']}: capture again: {r['capture'].get('breaks', r['capture'].get('error'))}",
                  flush=True)
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        list(pool.map(one, results))


def identical(r: dict, kind: str) -> bool:
    """The patched model's eager and compiled outputs both equal the original's eager output, bit for bit."""
    o, p = r["original"], r.get(kind, {})
    return p.get("stage") == "done" and p["eager_sha256"] == p["compiled_sha256"] == o["eager_sha256"]


def summarize(results: list[dict]) -> dict:
    ran = [r for r in results if r["original"].get("stage") == "done"]
    per_library = {}
    for library in LIBRARIES:
        rows = [r for r in results if r["library"] == library]
        done = [r for r in rows if r["original"].get("stage") == "done"]
        per_library[library] = {
            "models": len(rows), "ran": len(done),
            "breaking": sum(1 for r in done if r["original"]["breaks"]),
            "breaks_before": sum(r["original"]["breaks"] for r in done),
            **{f"breaks_{kind}": sum(r.get(kind, {}).get("breaks", 0) for r in done) for kind in FIXES},
            **{f"identical_{kind}": sum(1 for r in done if identical(r, kind)) for kind in FIXES},
        }
    return {
        "models": len(results), "ran": len(ran),
        "not_run": {r["model_type"]: r["original"].get("error", "?") for r in results if r not in ran},
        "patched_failed": [f"{r['model_type']} ({kind})" for r in ran for kind in FIXES
                           if r.get(kind, {}).get("stage") != "done"],
        "breaking": sum(1 for r in ran if r["original"]["breaks"]),
        "breaks_before": sum(r["original"]["breaks"] for r in ran),
        **{f"breaks_{kind}": sum(r.get(kind, {}).get("breaks", 0) for r in ran) for kind in FIXES},
        **{f"identical_{kind}": sum(1 for r in ran if identical(r, kind)) for kind in FIXES},
        "differing": [f"{r['model_type']} ({kind})" for r in ran for kind in FIXES if not identical(r, kind)],
        "compiled_unlike_eager_in_original": [r["model_type"] for r in ran
                                              if r["original"]["compiled_sha256"] != r["original"]["eager_sha256"]],
        "remaining_causes": dict(collections.Counter(
            b["cause"] for r in ran for b in r.get("plain", {}).get("break_sites", [])).most_common()),
        "per_library": per_library,
    }


def write(out: pathlib.Path, versions: dict, results: list[dict], complete: bool) -> dict:
    summary = summarize(results)
    versions = {**{r["library"]: r["original"]["version"] for r in results if r["original"].get("version")},
                **versions}
    out.write_text(json.dumps({"versions": versions, "complete": complete, "summary": summary, "results": results},
                              indent=1) + "\n")
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", default="/work/venv-tv/bin/python")
    parser.add_argument("--graphmend", default=str(ROOT / "build" / "graphmend"))
    parser.add_argument("--models", nargs="*", help="LIB/NAME of bench/wild/models.py (default: all)")
    parser.add_argument("--libraries", nargs="*", help="every model of these libraries")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=int, default=300)
    parser.add_argument("--out", default=str(ROOT / "bench" / "results" / "wild.json"))
    parser.add_argument("--work", default=str(ROOT / "bench" / ".work" / "wild"))
    parser.add_argument("--resume", action="store_true", help="keep the models the results JSON already has")
    parser.add_argument("--retry-not-run", action="store_true",
                        help="with --resume: measure again the models that did not run (after models.py changed)")
    parser.add_argument("--recapture", action="store_true",
                        help="with --resume: run the capture arm again for the breaking models already measured "
                             "(after wild_arm.py learnt to say more)")
    parser.add_argument("--write", action="store_true", help="also write bench/RESULTS.md's section and the chart")
    args = parser.parse_args()
    models = args.models or [m for m in MODELS if not args.libraries or MODELS[m][0] in args.libraries]
    unknown = [m for m in models if m not in MODELS]
    if unknown:
        sys.exit(f"unknown models: {unknown}")
    out, work = pathlib.Path(args.out), pathlib.Path(args.work)
    done = {}
    if args.resume and out.exists():
        done = {r["model_type"]: r for r in json.loads(out.read_text())["results"]
                if not (args.retry_not_run and r["original"].get("stage") != "done")}
    libraries = sorted({MODELS[m][0] for m in models})
    sources = library_dirs(args.python, libraries)
    sites = patched_sites(args.graphmend, sources, work, args.jobs)
    twins = same_sources(sites)
    for kind, twin in twins.items():
        print(f"the {kind} copies are byte-identical to the {twin} copies: {kind} arms not run again", flush=True)
    versions = {}
    if args.recapture:
        recapture(args.python, [done[m] for m in models if m in done and "capture" in done[m]], args.jobs,
                  args.timeout)
        write(out, versions, [done[k] for k in MODELS if k in done], all(m in done for m in MODELS))
    with tempfile.TemporaryDirectory(prefix="wild-weights-") as weights, \
            concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        futures = {m: pool.submit(census_one, args.python, m, sites, twins, pathlib.Path(weights), args.timeout)
                   for m in models if m not in done}
        for m in models:
            if m not in futures:
                continue
            r = done[m] = futures[m].result()
            o = r["original"]
            versions.setdefault(r["library"], o.get("version"))
            after = " ".join(f"{k} {r.get(k, {}).get('breaks', r.get(k, {}).get('error', '-'))}" for k in FIXES)
            print(f"{m}: {o.get('breaks', o.get('error'))} -> {after} ({r['seconds']} s)", flush=True)
            # Written as it goes: a run stopped part way keeps what it measured (--resume goes on).
            write(out, versions, [done[k] for k in MODELS if k in done], False)
    results = [done[k] for k in MODELS if k in done]
    summary = write(out, versions, results, all(m in done for m in MODELS))
    print(json.dumps({k: v for k, v in summary.items() if k != "per_library"}, indent=1))
    if args.write:
        from report import write_report

        write_report(out, args.graphmend)


if __name__ == "__main__":
    main()
