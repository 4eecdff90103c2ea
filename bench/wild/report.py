"""The wild census's report (issue 49): recall of Dynamo's break sites by `graphmend check`, the
capture table, the chart, and bench/RESULTS.md's wild section, from bench/results/wild.json.

    python bench/wild/report.py [--results JSON] [--graphmend BIN] [--no-write]

Recall is counted as bench/census/recall.py counts it for transformers: a break site Dynamo logged on
an original model is found when a `graphmend check` finding over the same (original) library covers
its line; one entry per model and site. Sites in torch's own files are listed apart (graphmend does
not check torch). Needs matplotlib (bench/wild/setup.sh installs it into the census's environment).
"""
from __future__ import annotations

import argparse
import collections
import json
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(ROOT / "bench" / "census"))
from _sections import replace_section
from recall import covered_lines

BEGIN = "<!-- wild: begin (bench/wild/report.py writes this section) -->"
END = "<!-- wild: end -->"
KINDS = ("plain", "unsafe")


def cause_class(cause: str) -> str:
    """Dynamo's cause in the issue's terms."""
    text = cause.lower()
    if "dynamic shape operator" in text or "data-dependent output" in text or "nonzero" in text:
        return "data-dependent output shape"
    if "item()" in text or "tensor.item" in text or "scalar" in text or "tolist" in text:
        return ".item() / scalar"
    if "data-dependent branching" in text:
        return "branch on a tensor"
    return cause


def distinct_sites(arm: dict) -> list[dict]:
    seen, out = set(), []
    for b in arm.get("break_sites") or []:
        if (b["site"], b["cause"]) not in seen:
            seen.add((b["site"], b["cause"]))
            out.append(b)
    return out


def recall(results: list[dict], graphmend: str) -> dict:
    """Of the distinct break sites per model on the originals, those a finding covers."""
    covered, findings = {}, 0
    for library in sorted({r["library"] for r in results if r["original"].get("stage") == "done"}):
        path = next(r["original"]["library_path"] for r in results if r["library"] == library and
                    r["original"].get("library_path"))
        lines, n = covered_lines(graphmend, pathlib.Path(path))
        findings += n
        covered.update({f"{library}/{rel}": rows for rel, rows in lines.items()})
    found, missed, outside = [], collections.Counter(), collections.Counter()
    for r in results:
        for b in {b["site"]: b for b in distinct_sites(r["original"])}.values():
            path, line = b["site"].rsplit(":", 1)
            if path.split("/", 1)[0] not in {x["library"] for x in results}:
                outside[(b["site"], b["cause"])] += 1
            elif int(line) in covered.get(path, ()):
                found.append(b["site"])
            else:
                missed[(b["site"], b["cause"])] += 1
    return {"found": len(found), "total": len(found) + sum(missed.values()), "findings": findings,
            "distinct_found": len(set(found)), "distinct_total": len(set(found)) + len(missed),
            "missed": [{"site": s, "cause": c, "models": n} for (s, c), n in sorted(missed.items())],
            "outside": [{"site": s, "cause": c, "models": n} for (s, c), n in sorted(outside.items())]}


def capture_rows(results: list[dict]) -> list[dict]:
    """Per remaining break site (after plain fix) of a data-dependent shape or a scalar: does it still
    break with the capture flags, and what the model then gives with fullgraph=True."""
    rows = []
    for r in results:
        c = r.get("capture")
        if not c:
            continue
        still = {b["site"] for b in c.get("break_sites") or []}
        full = c.get("fullgraph") or {}
        for b in distinct_sites(r.get("plain", {})):
            kind = cause_class(b["cause"])
            if kind not in ("data-dependent output shape", ".item() / scalar"):
                continue
            rows.append({
                "model": r["model_type"], "site": b["site"], "class": kind,
                "breaks_with_flags": c.get("breaks"), "site_still_breaks": b["site"] in still if "breaks" in c else None,
                "capture_error": c.get("capture_error"),
                "identical": (c.get("compiled_sha256") == r["original"]["eager_sha256"]) if "breaks" in c else None,
                "fullgraph": full})
    return rows


def chart(results: list[dict], path: pathlib.Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in results if r["original"].get("breaks")]
    fig, ax = plt.subplots(figsize=(max(6, 0.8 * len(rows)), 4.5))
    xs = range(len(rows))
    bars = [("original", lambda r: r["original"]["breaks"]),
            ("graphmend fix", lambda r: r.get("plain", {}).get("breaks", 0)),
            ("fix --unsafe-fixes", lambda r: r.get("unsafe", {}).get("breaks", 0)),
            ("original + capture flags", lambda r: r.get("capture", {}).get("breaks", 0))]
    for i, (label, value) in enumerate(bars):
        ax.bar([x - 0.3 + 0.2 * i for x in xs], [value(r) for r in rows], 0.2, label=label)
    for x, r in zip(xs, rows):  # a flagged run that raised has no count: marked
        if "breaks" not in r.get("capture", {}):
            ax.text(x + 0.3, 0.2, "fails when run", rotation=90, fontsize=7, ha="center")
    ax.set_xticks(list(xs), [r["model_type"].split("/", 1)[1] for r in rows], rotation=40, ha="right", fontsize=7)
    ax.set_ylabel("graph breaks")
    ax.set_title("wild census: breaking models, before and after (torch 2.14.1, CPU)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def fullgraph_verdict(full: dict) -> str:
    if full.get("ok"):
        return "one graph"
    if not full:
        return "?"
    guard = re.search(r"data-dependent expression (.+?)(?: \(unhinted|$)", full.get("data_dependent_expression") or "")
    expression = guard and re.sub(r" \(unh\w*$", "", guard.group(1))
    if expression and len(expression) > 100:
        expression = expression[:100] + " …"
    return (f"{full.get('error_class')}" + (f" at `{full['site']}`" if full.get("site") else "")
            + (f": guard on `{expression}`" if expression else f": {full.get('error', '')[:90]}")
            + ("; asks for torch._check" if full.get("asks_torch_check") else ""))


def section(data: dict, rec: dict, rows: list[dict], commit: str) -> str:
    s, results = data["summary"], data["results"]
    versions = ", ".join(f"{k} {v}" for k, v in {r["library"]: r["original"].get("version") for r in results
                                                   if r["original"].get("version")}.items())
    twins = sorted({f"{k} copies byte-identical to the {r[k]['same_sources_as']} copies" for r in results
                    for k in KINDS if r.get(k, {}).get("same_sources_as")})
    lines = [BEGIN, "", "## Wild census: torchvision, diffusers, x-transformers, vector-quantize-pytorch, timm (issue 49)",
             "", (f"`python bench/wild/wild_census.py --resume` then `python bench/wild/report.py` (graphmend {commit}; "
                  f"CPU, 2 shared cores, 2 arms at a time; torch 2.14.1 and torchvision 0.29.1 are the index's CUDA "
                  f"builds, run on CPU; {versions}; random weights pinned across arms, backend \"eager\", "
                  "dynamic=False)." + ("" if data["complete"] else " **Partial run**: only the models listed ran.")),
             "", f"- models: {s['models']}; ran: {s['ran']}; breaking: {s['breaking']}",
             (f"- breaks before: {s['breaks_before']}; after plain `fix`: {s['breaks_plain']}; after "
              f"`fix --unsafe-fixes`: {s['breaks_unsafe']}"),
             f"- outputs identical (patched eager and compiled against the original's eager, bit for bit): plain "
             f"{s['identical_plain']} of {s['ran']}, unsafe {s['identical_unsafe']} of {s['ran']}"
             + (f"; differing: {', '.join(s['differing'])}" if s["differing"] else ""),
             *([(f"- `fix --unsafe-fixes` changes nothing more than plain `fix` in these libraries ({', '.join(twins)}): "
                "the same code, measured once")] if twins else []),
             "- the original's own compiled output differs from its eager output: "
             + (", ".join(s["compiled_unlike_eager_in_original"]) or "none"),
             f"- detection recall: `graphmend check` covers **{rec['found']} of {rec['total']}** break sites Dynamo "
             f"logged on the originals (one per model and site); distinct sites: {rec['distinct_found']} of "
             f"{rec['distinct_total']}"
             + (f"; {sum(o['models'] for o in rec['outside'])} more in torch's own files" if rec["outside"] else ""),
             "", "![wild census: breaking models](results/wild.png)", "",
             "| library | models | ran | breaking | breaks before | plain | unsafe | identical plain | identical unsafe |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for library, p in s["per_library"].items():
        if p["models"]:
            lines.append(f"| {library} | {p['models']} | {p['ran']} | {p['breaking']} | {p['breaks_before']} | "
                         f"{p['breaks_plain']} | {p['breaks_unsafe']} | {p['identical_plain']} | {p['identical_unsafe']} |")
    lines += ["", "| model | breaks before → plain → unsafe | remaining sites after plain fix (site: cause) |",
              "|---|---|---|"]
    for r in results:
        o = r["original"]
        if o.get("stage") != "done" or not o["breaks"]:
            continue
        after = " → ".join(str(r.get(k, {}).get("breaks", r.get(k, {}).get("error", "?"))) for k in KINDS)
        sites = "; ".join(f"`{b['site']}`: {b['cause']}" for b in distinct_sites(r.get("plain", {})))
        lines.append(f"| {r['model_type']} | {o['breaks']} → {after} | {sites or 'none'} |")
    if rec["missed"]:
        lines += ["", f"Break sites `graphmend check` misses ({rec['total'] - rec['found']}):", "",
                  "| site | Dynamo's cause | models |", "|---|---|---:|"]
        lines += [f"| `{m['site']}` | {m['cause']} | {m['models']} |" for m in rec["missed"]]
    else:
        lines += ["", "Break sites `graphmend check` misses: none."]
    if rec["outside"]:
        lines += ["", "Sites in torch's own files (not counted): "
                  + "; ".join(f"`{o['site']}` ({o['cause']})" for o in rec["outside"])]
    lines += ["", "### What the capture flags do with the breaks that remain",
              "", ("Each breaking original once more with `capture_scalar_outputs` and "
                   "`capture_dynamic_output_shape_ops` on (bench/wild/wild_arm.py --capture): its breaks with the "
                   "flags and whether the output stays identical to the original's eager output (a run the flags make "
                   "fail is shown with its error), then `fullgraph=True`: one graph, or what stops it (the site, the "
                   "data-dependent guard, and whether Dynamo asks for a `torch._check` hint)."), "",
              "| model | breaks before → with flags | identical | fullgraph=True | sites still breaking with flags |",
              "|---|---|---|---|---|"]
    for r in results:
        c = r.get("capture")
        if not c:
            continue
        err = c.get("capture_error")
        flags = (f"fails when run: {err['error_class']}: {err['error'][:90]}"
                 + (f" at `{err['site']}`" if err.get("site") else "")
                 + (f" (called from `{err['called_from']}`)" if err.get("called_from") else "") if err else
                 c.get("breaks", c.get("error", "?")))
        same = "—" if "compiled_sha256" not in c else ("yes" if c["compiled_sha256"] == r["original"]["eager_sha256"]
                                                        else "**no**")
        if c.get("eager_sha256") not in (None, r["original"]["eager_sha256"]):
            same += " (its eager output differs from the original arm's: not the same weights or inputs)"
        lines.append(f"| {r['model_type']} | {r['original']['breaks']} → {flags} | {same} | "
                     f"{fullgraph_verdict(c.get('fullgraph') or {})} | "
                     + ("; ".join(f"`{b['site']}`: {b['cause']}" for b in distinct_sites(c)) or "—") + " |")
    lines += ["", ("Per remaining data-dependent-shape or scalar site (after plain fix): does it still break with "
              "the flags, in the models whose flagged run completed?"), "",
              "| site | class | models | still breaks with flags |", "|---|---|---:|---|"]
    by_site = collections.defaultdict(list)
    for row in rows:
        by_site[(row["site"], row["class"])].append(row)
    for (site, kind), group in sorted(by_site.items()):
        ran = [g for g in group if g["site_still_breaks"] is not None]
        still = sum(1 for g in ran if g["site_still_breaks"])
        failed = len(group) - len(ran)
        lines.append(f"| `{site}` | {kind} | {len(group)} | {still} of {len(ran)}"
                     + (f" ({failed} flagged runs failed)" if failed else "") + " |")
    if s["not_run"]:
        lines += ["", "Not run: " + "; ".join(f"{m} ({e})" for m, e in s["not_run"].items())]
    wall = sum(r.get("seconds", 0) for r in results)
    lines += ["", f"Time per model summed (its arms one after another; two models at a time): {wall / 60:.0f} minutes.",
              "", END]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", default=str(ROOT / "bench" / "results" / "wild.json"))
    parser.add_argument("--graphmend", default=str(ROOT / "build" / "graphmend"))
    parser.add_argument("--no-write", action="store_true", help="print the section only")
    parser.add_argument("--graphmend-label", help="which graphmend the run used (default: this checkout's commit)")
    args = parser.parse_args()
    write_report(pathlib.Path(args.results), args.graphmend, not args.no_write, args.graphmend_label)


def write_report(results: pathlib.Path, graphmend: str = str(ROOT / "build" / "graphmend"), write: bool = True,
                 label: str | None = None) -> None:
    data = json.loads(results.read_text())
    rec = recall(data["results"], graphmend)
    rows = capture_rows(data["results"])
    data["recall"], data["capture_table"] = rec, rows
    results.write_text(json.dumps(data, indent=1) + "\n")
    commit = label or subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT,
                            check=False).stdout.strip()
    text = section(data, rec, rows, commit)
    print(text)
    if write:
        replace_section(ROOT / "bench" / "RESULTS.md", BEGIN, END, text)
        chart(data["results"], ROOT / "bench" / "results" / "wild.png")


if __name__ == "__main__":
    main()
