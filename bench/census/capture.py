"""The census's capture table (issue 49 item 4): what the capture flags do with the breaks `fix` leaves.

    python bench/census/capture.py [--python PY] [--models TYPE ...] [--timeout 300] [--write]

Reads bench/results/census-<version>.json (the version of PY's transformers; default .venv's,
4.52.4) and picks the architectures whose patched copy still breaks on a data-dependent output shape
(nonzero, a boolean mask, unique, repeat_interleave: Dynamo's "Dynamic shape operator" and "Data
dependent operator") or on a Python scalar (`.item()`, `int()` of a tensor, `.tolist()`). Each runs
once more, patched by plain `graphmend fix` as the census patches it, in its own process under a
timeout, with capture_scalar_outputs and capture_dynamic_output_shape_ops on (arm.py --capture): its
graphs and break sites with the flags, whether fullgraph=True then compiles (else the error, the
site it names, and the data-dependent guard Dynamo asks a torch._check hint for), and whether the
outputs equal the original's eager output bit for bit (the census's digest: the weights are made
from the same seed, and the arm's own eager digest is compared with it too). Each site is put beside
what `graphmend check` says at its line of the patched copy (the rule and its remedy). Writes
bench/results/capture-<version>.json; --write also writes its section of bench/RESULTS.md.
"""
from __future__ import annotations

import argparse
import collections
import json
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "bench" / "wild"))
from _sections import replace_section
from census import environment, patched_copy, run_arm

from report import fullgraph_verdict

# Dynamo's causes (torch 2.13) for the breaks a capture flag may keep in the graph.
SHAPE = ("Dynamic shape operator", "Data dependent operator")
SCALAR = ("Tensor.item()", "tolist", "scalar")


def cause_class(cause: str) -> str | None:
    """The flag a cause belongs to: a data-dependent output shape, a Python scalar, or none."""
    if any(c in cause for c in SHAPE):
        return "data-dependent shape"
    if any(c in cause for c in SCALAR):
        return "scalar"
    return None


def distinct(sites: list[dict]) -> list[dict]:
    seen = set()
    return [b for b in sites if (b["site"], b["cause"]) not in seen and not seen.add((b["site"], b["cause"]))]


def selected(census: dict) -> dict[str, dict]:
    """The architectures whose patched copy still breaks at a site of either class, by model type."""
    return {r["model_type"]: r for r in census["results"]
            if any(cause_class(b["cause"]) for b in r.get("patched", {}).get("break_sites") or [])}


def findings_by_line(graphmend: str, package: pathlib.Path) -> dict[str, list[dict]]:
    """`graphmend check` over the patched copy: per "file:line" (relative to transformers/), the
    findings whose range covers the line, with their message and remedy."""
    out = subprocess.run([graphmend, "check", "--no-cache", "-j2", "--output-format", "json-lines", str(package)],
                         capture_output=True, text=True, check=False)
    if out.returncode not in (0, 1):
        sys.exit(f"graphmend check failed ({out.returncode}): {out.stderr[-500:]}")
    by_line = collections.defaultdict(list)
    for row in out.stdout.splitlines():
        d = json.loads(row)
        rel = pathlib.Path(d["filename"]).resolve().relative_to(package.resolve()).as_posix()
        for line in range(d["location"]["row"], d["end_location"]["row"] + 1):
            by_line[f"{rel}:{line}"].append({"code": d["code"], "message": d["message"], "help": d.get("help")})
    return by_line


def plain(r: dict) -> dict:
    """The patched copy without the flags, as the capture arm measured it (its lines are this copy's;
    the census's patched copy may have been made by an earlier graphmend), else as the census did."""
    return r["capture"].get("plain") or r["patched"]


def table(results: list[dict], findings: dict[str, list[dict]]) -> list[dict]:
    """One row per architecture and distinct site of either class."""
    rows = []
    for r in results:
        c, original = r["capture"], r["original"]
        ran = "breaks" in c
        still = {b["site"] for b in c.get("break_sites") or []}
        for b in distinct(plain(r)["break_sites"]):
            kind = cause_class(b["cause"])
            if not kind:
                continue
            rows.append({
                "model": r["model_type"], "site": b["site"], "cause": b["cause"], "class": kind,
                "breaks_plain": plain(r)["breaks"], "breaks_with_flags": c.get("breaks"),
                "site_still_breaks": (b["site"] in still) if ran else None,
                "capture_error": c.get("capture_error"),
                "identical": (c["compiled_sha256"] == original["eager_sha256"]) if ran else None,
                "fullgraph": c.get("fullgraph") or {},
                "fullgraph_identical": (c["fullgraph"]["compiled_sha256"] == original["eager_sha256"]
                                        if (c.get("fullgraph") or {}).get("ok") else None),
                "findings": [{"code": f["code"], "message": f["message"], "help": f["help"]}
                             for f in findings.get(b["site"], [])]})
    return rows


def finding_text(row: dict) -> str:
    if not row["findings"]:
        return "no finding at this line"
    return "; ".join(f"{f['code']}: {f['help'] or f['message']}" for f in row["findings"])


def section(version: str, results: list[dict], rows: list[dict], command: str, commit: str) -> tuple[str, str, str]:
    key = f"capture-{version}"
    begin, end = f"<!-- {key}: begin (bench/census/capture.py writes this section) -->", f"<!-- {key}: end -->"
    ran = [r for r in results if "breaks" in r["capture"]]
    one_graph = [r for r in results if (r["capture"].get("fullgraph") or {}).get("ok")]
    same = [r for r in ran if r["capture"]["compiled_sha256"] == r["original"]["eager_sha256"]]
    eager_drift = [r["model_type"] for r in results
                   if r["capture"].get("eager_sha256") not in (None, r["original"]["eager_sha256"])]
    moved = [f"{r['model_type']} ({r['patched']['breaks']} → {plain(r)['breaks']})" for r in results
             if plain(r)["breaks"] != r["patched"]["breaks"]]
    lines = [begin, "", f"## What the capture flags do with the breaks `fix` leaves: transformers {version}", "",
             (f"`{command}` (graphmend {commit}; CPU; torch 2.13.0; each architecture patched by plain `fix`, in its own "
              "process, random weights from the census's seed, backend \"eager\", dynamic=False). The architectures "
              "whose patched copy still breaks on a data-dependent output shape or a Python scalar, once more with "
              "`capture_scalar_outputs` and `capture_dynamic_output_shape_ops` on: the breaks with the flags, whether "
              "the output stays identical to the original's eager output, then `fullgraph=True`: one graph, or what "
              "stops it."), "",
             (f"- architectures: {len(results)}; the flagged run completes: {len(ran)}; output identical (bit for bit): "
              f"{len(same)} of {len(ran)}; one graph under fullgraph=True: {len(one_graph)}"),
             (f"- breaks after plain fix → with the flags: {sum(plain(r)['breaks'] for r in ran)} → "
              f"{sum(r['capture']['breaks'] for r in ran)} (the architectures whose flagged run completes)"),
             *([f"- the arm's own eager output differs from the original's: {', '.join(eager_drift)}"]
               if eager_drift else []),
             *([f"- breaks without the flags differ from the census's patched arm: {', '.join(moved)}"]
               if moved else []),
             "", ("| architecture | breaks after fix → with flags | identical | fullgraph=True | sites still breaking "
                  "with flags |"), "|---|---|---|---|---|"]
    for r in results:
        c = r["capture"]
        err = c.get("capture_error")
        flags = (f"fails when run: {err['error_class']}: {err['error'][:90]}"
                 + (f" at `{err['site']}`" if err.get("site") else "") if err else c.get("breaks", c.get("error", "?")))
        same_text = "—" if "compiled_sha256" not in c else (
            "yes" if c["compiled_sha256"] == r["original"]["eager_sha256"] else "**no**")
        full = c.get("fullgraph") or {}
        if full.get("ok"):
            same_text += "; fullgraph: " + ("yes" if full["compiled_sha256"] == r["original"]["eager_sha256"] else "**no**")
        lines.append(f"| {r['model_type']} | {plain(r)['breaks']} → {flags} | {same_text} | {fullgraph_verdict(full)} | "
                     + ("; ".join(f"`{b['site']}`: {b['cause']}" for b in distinct(c.get("break_sites") or [])) or "—")
                     + " |")
    lines += ["", ("Per site (after plain fix; lines of the patched copy): does it still break with the flags, and what "
                   "`graphmend check` says there."), "",
              "| site | class | architectures | still breaks with flags | graphmend's finding and remedy |",
              "|---|---|---:|---|---|"]
    by_site = collections.defaultdict(list)
    for row in rows:
        by_site[(row["site"], row["class"])].append(row)
    for (site, kind), group in sorted(by_site.items()):
        done = [g for g in group if g["site_still_breaks"] is not None]
        still = sum(1 for g in done if g["site_still_breaks"])
        lines.append(f"| `{site}` | {kind} | {', '.join(g['model'] for g in group)} | {still} of {len(done)}"
                     + (f" ({len(group) - len(done)} flagged runs failed)" if len(group) > len(done) else "")
                     + f" | {finding_text(group[0])} |")
    lines += ["", end]
    return begin, end, "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", default=str(ROOT / ".venv" / "bin" / "python"))
    parser.add_argument("--graphmend", default=str(ROOT / "build" / "graphmend"))
    parser.add_argument("--models", nargs="*", help="model types (default: every one the census selects)")
    parser.add_argument("--timeout", type=int, default=300)
    parser.add_argument("--census", help="the census JSON (default bench/results/census-<version>.json)")
    parser.add_argument("--out", help="the results JSON (default bench/results/capture-<version>.json)")
    parser.add_argument("--resume", action="store_true", help="keep the architectures the results JSON already has")
    parser.add_argument("--write", action="store_true", help="also write bench/RESULTS.md's section")
    args = parser.parse_args()
    env = environment(args.python)
    version = env["version"]
    census = json.loads(pathlib.Path(args.census or ROOT / "bench" / "results" / f"census-{version}.json").read_text())
    chosen = selected(census)
    models = args.models or sorted(chosen)
    out = pathlib.Path(args.out) if args.out else ROOT / "bench" / "results" / f"capture-{version}.json"
    work = ROOT / "bench" / ".work" / f"capture-{version}"
    work.mkdir(parents=True, exist_ok=True)
    site = patched_copy(args.graphmend, env["path"], work)
    done = {r["model_type"]: r for r in json.loads(out.read_text())["results"]} if args.resume and out.exists() else {}
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT,
                            check=False).stdout.strip()
    for m in models:
        if m in done:
            continue
        r = chosen[m]
        with tempfile.TemporaryDirectory(prefix="capture-weights-") as folder:
            # The original's eager output, measured here (the census's digests may come from another
            # CPU); it saves the weights the patched arm then loads strictly.
            weights = pathlib.Path(folder) / "w.pt"
            original = run_arm(args.python, m, weights, None, args.timeout, options=("--eager-only",))
            facts = run_arm(args.python, m, weights, site, args.timeout, options=("--capture",))
        done[m] = {"model_type": m, "original": {"eager_sha256": original.get("eager_sha256"),
                                                 "error": original.get("error"), "breaks": r["original"]["breaks"],
                                                 "census_eager_sha256": r["original"]["eager_sha256"]},
                   "patched": {k: r["patched"].get(k) for k in ("breaks", "break_sites")}, "capture": facts}
        full = facts.get("fullgraph") or {}
        print(f"{m}: {plain(done[m])['breaks']} -> {facts.get('breaks', (facts.get('capture_error') or {}).get('error_class', facts.get('error')))}"
              f"; fullgraph {'ok' if full.get('ok') else full.get('error_class')}", flush=True)
        out.write_text(json.dumps({"transformers": version, "graphmend": commit,
                                   "results": [done[k] for k in models if k in done]}, indent=1) + "\n")
    results = [done[k] for k in models]
    rows = table(results, findings_by_line(args.graphmend, site / "transformers"))
    out.write_text(json.dumps({"transformers": version, "graphmend": commit, "results": results,
                               "capture_table": rows}, indent=1) + "\n")
    if args.write:
        command = "python bench/census/capture.py" + ("" if args.python.endswith(".venv/bin/python") or
                                                       "/.venv/" in args.python else
                                                       " --python \"$(bash bench/census/setup_5x.sh)\"")
        begin, end, text = section(version, results, rows, command, commit)
        print(text)
        replace_section(ROOT / "bench" / "RESULTS.md", begin, end, text)


if __name__ == "__main__":
    main()
