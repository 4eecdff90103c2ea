"""The model table: breaks before/after graphmend, identical outputs, fullgraph, Inductor timings.

    python bench/models/run_table.py [--rows NAME ...] [--no-timing] [--train] [--graphmend build/graphmend]

1. Copies the installed transformers package twice and runs `graphmend fix --unsafe-fixes` over
   one copy (files, fixes by rule, time) and plain `graphmend fix` (safe fixes only) over the other.
2. Runs every row of registry.py in fresh processes: original, patched with --unsafe-fixes (timed)
   and patched with plain fix (breaks and outputs), with weights pinned by a strict state_dict and
   a private Inductor cache per process (cold compilation).
3. Writes bench/results/models.json, bench/RESULTS.md and bench/results/breaks.png.

With --train, the rows whose patched arms hold a [Where] fix (registry.WHERE_ROWS) take one
training step instead (run_row.py --train: grad enabled, dropout at zero) in each of the three
arms; written to bench/results/models-train.json and RESULTS.md's `train` section.

Run it through bench/run_models.sh, which creates the pinned virtual environment.
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import pathlib
import platform
import shutil
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
from registry import FP16_ROWS, ROWS, WHERE_ROWS  # noqa: E402

RESULTS = ROOT / "bench" / "results"


def log(message: str):
    print(message, flush=True)


def patch_transformers(graphmend: str, work: pathlib.Path, *flags: str, name: str = "patched") -> dict:
    import transformers

    source = pathlib.Path(transformers.__file__).parent
    site = work / name
    if site.exists():
        shutil.rmtree(site)
    shutil.copytree(source, site / "transformers")
    # Which sites have a fix, by rule (before fixing), then the fix itself, timed.
    check = subprocess.run([graphmend, "check", "--no-cache", "--fix-generated", *flags, "--output-format", "json", str(site / "transformers")],
                           capture_output=True, text=True)
    before = json.loads(check.stdout)
    # A fix counts when this run may apply it: plain `fix` applies only the safe ones.
    applicable = {"safe", "unsafe"} if "--unsafe-fixes" in flags else {"safe"}
    fixable = collections.Counter(d["code"] for d in before["diagnostics"]
                                  if d["fix"] and d["fix"]["applicability"] in applicable)
    start = time.perf_counter()
    fixed = subprocess.run([graphmend, "fix", "--fix-generated", *flags, "--output-format", "json", str(site / "transformers")],
                           capture_output=True, text=True)
    seconds = time.perf_counter() - start
    report = json.loads(fixed.stdout)
    assert report["errors"] == [], report["errors"]
    remaining = collections.Counter(d["code"] for d in report["diagnostics"])
    return {
        "source": str(source), "site": str(site), "files": report["summary"]["files_checked"],
        "fixes_applied": report["summary"]["fixes_applied"], "fixable_by_rule": dict(sorted(fixable.items())),
        "findings_before": before["summary"]["findings"], "findings_after": report["summary"]["findings"],
        "remaining_by_rule": dict(sorted(remaining.items())), "fix_seconds": round(seconds, 1),
        "files_changed": sum(1 for f in report["files"] if f["written"]),
        "runtime_files": [f["filename"] for f in report.get("runtime_files", []) if f["written"]],
        # What graphmend says of each site it left, by `file:line` in the fixed copy (run_table.py --train
        # names the finding at each break that remains).
        "remaining_at": {f"{d['filename'].split('transformers/', 1)[1]}:{d['location']['row']}":
                         f"{d['code']} {d.get('decline_code') or d['name']}" for d in report["diagnostics"]},
    }


def run_arm(row: str, weights: pathlib.Path, site: str | None, timing: bool, *flags: str) -> dict:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if site:
        env["PYTHONPATH"] = site
    with tempfile.TemporaryDirectory(prefix="inductor-cache-") as cache:
        env["TORCHINDUCTOR_CACHE_DIR"] = cache  # cold compilation in each arm
        cmd = [sys.executable, str(HERE / "run_row.py"), row, "--weights", str(weights),
               "--first", "compiled" if site else "eager"]
        if timing:
            cmd.append("--timing")
        cmd += flags
        out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=weights.parent)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr.strip() else f"exit {out.returncode}"}
    return json.loads(out.stdout.strip().splitlines()[-1])


def summarize(row: str, paper: str, rule: str, original: dict, patched: dict) -> dict:
    if "error" in original or "error" in patched:
        return {"row": row, "paper": paper, "rule": rule, "error": original.get("error") or patched.get("error")}
    # Like for like: eager against eager, the counting backend against the counting backend, and
    # fullgraph=True (when the patched arm passes it) against eager. The patched arm's first call
    # goes through aot_eager, whose decompositions may round differently from eager on some models
    # (CLAP), with or without graphmend; it is reported on its own.
    reference = original["eager_sha256"]
    outputs = [patched["eager_sha256"] == reference, patched["counting_sha256"] == original["counting_sha256"]]
    outputs += [patched[k] == reference for k in ("fullgraph_eager_sha256",) if k in patched]
    result = {
        "row": row, "paper": paper, "rule": rule,
        "graphs_before": original["graphs"], "graphs_after": patched["graphs"],
        "breaks_before": original["breaks"], "breaks_after": patched["breaks"],
        "explain_reasons_before": original["break_reasons"], "remaining": patched["breaks_detail"],
        "outputs_identical": all(outputs), "fullgraph_before": original["fullgraph_eager"],
        "fullgraph_after": patched["fullgraph_eager"], "recompiled_after": patched["recompiled"],
        "first_call_records_identical": patched["first_call_records"] == original["first_call_records"],
        "first_compiled_call_equals_eager": patched["first_call_sha256"] == reference,
    }
    if "inductor_cold_s" in original and "inductor_cold_s" in patched:
        result.update({
            "cold_s_before": round(original["inductor_cold_s"], 2), "cold_s_after": round(patched["inductor_cold_s"], 2),
            "warm_ms_before": round(original["inductor_warm_s"] * 1e3, 3),
            "warm_ms_after": round(patched["inductor_warm_s"] * 1e3, 3),
            "cold_ratio": round(original["inductor_cold_s"] / patched["inductor_cold_s"], 2),
            "warm_ratio": round(original["inductor_warm_s"] / patched["inductor_warm_s"], 2),
            "inductor_outputs_identical": original["inductor_sha256"] == patched["inductor_sha256"],
        })
    return result


def category(reason: str) -> str:
    if "Dynamic shape" in reason:
        return "DS (data-dependent output shape)"
    if "Data dependent operator" in reason:
        return "DO (data-dependent operator)"
    if "item()" in reason:
        return "TI (Tensor.item())"
    if "branching" in reason or "generic_jump" in reason:
        return "DC (data-dependent branch)"
    if "logging" in reason or "skipped" in reason or "builtin" in reason:
        return "LC (logging / warnings)"
    return "other"


def plain_columns(original: dict, plain: dict) -> dict:
    """The row patched by plain `graphmend fix`: breaks after, and outputs identical."""
    if "error" in original or "error" in plain:
        return {"plain_error": plain.get("error") or original.get("error")}
    reference = original["eager_sha256"]
    outputs = [plain["eager_sha256"] == reference, plain["counting_sha256"] == original["counting_sha256"]]
    outputs += [plain[k] == reference for k in ("fullgraph_eager_sha256",) if k in plain]
    return {"breaks_after_plain": plain["breaks"], "outputs_identical_plain": all(outputs),
            "fullgraph_after_plain": plain["fullgraph_eager"]}


TRAIN_MODES = ("eager", "counting", "aot_eager")


def _grouped(sites: list[str], lines: list[str], findings: dict | None = None) -> list[str]:
    """Each break site once, in first-seen order, with how often it broke (`×n`) and, given a fix
    report's `remaining_at`, graphmend's finding at that line."""
    counts = collections.Counter(zip(sites, lines))
    out = []
    for (site, line), n in counts.items():
        file, code = site.split(": ", 1)
        note = f" ({findings.get(line, 'no finding')})" if findings is not None else ""
        out.append(f"`{line}` `{code}`" + (f" ×{n}" if n > 1 else "") + note)
    return out


def train_columns(original: dict, arm: dict, fix: dict) -> dict:
    """One patched arm's training step against the original's: breaks with grad enabled, and the
    loss and gradients mode for mode, then each compiled mode against the original's eager step
    (the parameters whose gradients differ are named)."""
    if "error" in original or "error" in arm:
        return {"error": arm.get("error") or original.get("error")}

    def same(mode, reference_mode):
        return {"loss": arm[f"{mode}_loss"] == original[f"{reference_mode}_loss"],
                "grads": arm[f"{mode}_grads"] == original[f"{reference_mode}_grads"],
                "grads_differing": [name for name, h in arm[f"{mode}_grad_each"].items()
                                    if original[f"{reference_mode}_grad_each"].get(name) != h]}

    assert pathlib.Path(arm["transformers"]).parent == pathlib.Path(fix["site"]), arm["transformers"]
    return {"breaks": arm["breaks"], "sites": _grouped(arm["breaks_detail"], arm["breaks_lines"], fix["remaining_at"]),
            "same_mode": {mode: same(mode, mode) for mode in TRAIN_MODES},
            "against_original_eager": {mode: same(mode, "eager") for mode in TRAIN_MODES[1:]},
            "parameters": len(arm["eager_grad_each"])}


def train_row(name: str, original: dict, plain: dict, unsafe: dict, fix: dict, plain_fix: dict) -> dict:
    row = {"row": name, "where_site": WHERE_ROWS[name]}
    if "error" in original:
        return {**row, "error": original["error"]}
    # The original's own compiled steps against its eager one: where these differ, a patched
    # arm's compiled step cannot be expected to equal the original's eager step either.
    own = {mode: {"loss": original[f"{mode}_loss"] == original["eager_loss"],
                  "grads": original[f"{mode}_grads"] == original["eager_grads"],
                  "grads_differing": [name for name, h in original[f"{mode}_grad_each"].items()
                                      if original["eager_grad_each"][name] != h]} for mode in TRAIN_MODES[1:]}
    return {**row, "breaks_before": original["breaks"],
            "sites_before": _grouped(original["breaks_detail"], original["breaks_lines"]),
            "original_compiled_equals_eager": own,
            "plain": train_columns(original, plain, plain_fix), "unsafe": train_columns(original, unsafe, fix)}


def _yes(flag: bool) -> str:
    return "yes" if flag else "**NO**"


def write_train_results(rows: list[dict], fix: dict, plain_fix: dict, args, elapsed: float):
    import torch
    import transformers

    sys.path.insert(0, str(ROOT / "bench"))
    from _sections import replace_section

    env = {"python": platform.python_version(), "torch": torch.__version__, "transformers": transformers.__version__,
           "machine": f"{platform.machine()}, {os.cpu_count()} CPUs", "elapsed_min": round(elapsed / 60, 1),
           "rerun_rows": args.rows or []}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "models-train.json").write_text(json.dumps(
        {"environment": env, "fix_applied": fix["fixes_applied"], "plain_fix_applied": plain_fix["fixes_applied"],
         "rows": rows}, indent=2) + "\n")

    def cell(arm: dict, own: dict) -> list[str]:
        if "error" in arm:
            return [f"error: {arm['error']}", "", ""]
        same = all(arm["same_mode"][m]["loss"] and arm["same_mode"][m]["grads"] for m in TRAIN_MODES)

        def against(mode, v):
            if v["loss"] and v["grads"]:
                return f"{mode} yes"
            # A difference the original's own compiled step has too is the backend's, not the patch's.
            as_own = (v["loss"] == own[mode]["loss"] and v["grads_differing"] == own[mode]["grads_differing"])
            return (f"{mode} no: " + ("" if v["loss"] else "the loss and ")
                    + f"{len(v['grads_differing'])} of {arm['parameters']} gradients differ"
                    + (", as in the original's own step" if as_own else ", **unlike the original's own step**"))

        return [str(arm["breaks"]), _yes(same), "; ".join(against(m, v) for m, v in arm["against_original_eager"].items())]

    begin = "<!-- train: begin (bench/models/run_table.py --train writes this section) -->"
    end = "<!-- train: end -->"
    lines = [
        begin,
        "## A training step of the [Where] rows (issue #46)",
        "",
        "`bash bench/run_models.sh --train` (bench/models/run_table.py --train"
        + (f" --rows {' '.join(repr(r) for r in env['rerun_rows'])}" if env["rerun_rows"] else "")
        + f"; Python {env['python']}, torch {env['torch']}, transformers {env['transformers']}, {env['machine']}, "
        f"CPU only; {env['elapsed_min']} min"
        + (", the other rows from the previous run)." if env["rerun_rows"] else ")."),
        "",
        "The rows whose patched arms hold a [Where] fix that the row runs (bench/models/registry.py `WHERE_ROWS`), "
        "each in three fresh processes on the same pinned weights: the original, plain `graphmend fix` and "
        "`graphmend fix --unsafe-fixes`. One training step each (bench/models/run_row.py --train): training mode "
        "with every dropout probability at zero, grad enabled, forward, the loss (the sum of every floating "
        "output, in fp32) and backward; run eagerly, under a counting backend (`dynamic=False`; breaks = "
        "graphs − 1) and with aot_eager.",
        "",
        "- **breaks**: graph breaks with grad enabled, original → patched.",
        "- **same loss and gradients**: the loss and every parameter's gradient have the same SHA-256 as the "
        "original's in the same mode (eager against eager, counting against counting, aot_eager against aot_eager).",
        "- **compiled = original eager**: the patched arm's compiled steps against the original's eager step.",
        "",
        "| row | [Where] site | breaks: original → plain fix | same loss and gradients | compiled = original eager "
        "| breaks: → `--unsafe-fixes` | same loss and gradients | compiled = original eager |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['row']} | {r['where_site']} | error: {r['error']} | | | | | |")
            continue
        own = r["original_compiled_equals_eager"]
        plain, unsafe = cell(r["plain"], own), cell(r["unsafe"], own)
        lines.append(f"| {r['row']} | {r['where_site']} | {r['breaks_before']} → {plain[0]} | {plain[1]} | {plain[2]} "
                     f"| {unsafe[0]} | {unsafe[1]} | {unsafe[2]} |")
    lines += ["", "The original's own compiled steps against its eager step (where these differ, so may a patched arm's):",
              ""]
    for r in rows:
        if "error" not in r:
            lines.append(f"- {r['row']}: " + "; ".join(
                f"{m} {'yes' if v['loss'] and v['grads'] else 'no'}"
                + ("" if v["loss"] else ", the loss differs")
                + (f", {len(v['grads_differing'])} gradients differ" if v["grads_differing"] else "")
                for m, v in r["original_compiled_equals_eager"].items()))
    lines += ["", "Breaks with grad enabled, site by site, from Dynamo's graph-break log (`file:line` `source`, ×n where "
              "it was logged n times; the log counts Dynamo's break events, the table graphs − 1, and the two "
              "need not match); for the breaks that remain, graphmend's finding at that line of the fixed copy "
              "(rule and decline code):", ""]
    for r in rows:
        if "error" in r:
            continue
        lines.append(f"- {r['row']}, original: " + ("; ".join(r["sites_before"]) or "none"))
        for arm in ("plain", "unsafe"):
            if "error" not in r[arm]:
                lines.append(f"  - {'plain fix' if arm == 'plain' else '--unsafe-fixes'}, remaining: "
                             + ("; ".join(r[arm]["sites"]) or "none"))
    lines.append(end)
    replace_section(ROOT / "bench" / "RESULTS.md", begin, end, "\n".join(lines), before="<!-- speed: begin")


def train(args, fix: dict, plain_fix: dict, work: pathlib.Path, start: float):
    names = args.rows or list(WHERE_ROWS)
    previous = {}
    if args.rows and (RESULTS / "models-train.json").exists():  # re-running some rows: keep the others
        previous = {r["row"]: r for r in json.loads((RESULTS / "models-train.json").read_text())["rows"]}
    rows = []
    for i, name in enumerate(names, 1):
        weights = work / f"{name.replace(' ', '_')}-train.pt"
        weights.unlink(missing_ok=True)
        t0 = time.perf_counter()
        original = run_arm(name, weights, None, False, "--train")  # saves the pinned weights
        plain = run_arm(name, weights, plain_fix["site"], False, "--train")
        unsafe = run_arm(name, weights, fix["site"], False, "--train")
        rows.append(train_row(name, original, plain, unsafe, fix, plain_fix))
        r = rows[-1]
        status = r.get("error") or (f"breaks {r['breaks_before']} -> plain {r['plain'].get('breaks', r['plain'].get('error'))}"
                                    f", unsafe {r['unsafe'].get('breaks', r['unsafe'].get('error'))}")
        log(f"[{i}/{len(names)}] {name} (training step): {status} ({time.perf_counter() - t0:.0f} s)")
    if previous:
        fresh = {r["row"]: r for r in rows}
        rows = [fresh.get(name, previous.get(name)) for name in WHERE_ROWS if name in fresh or name in previous]
    write_train_results(rows, fix, plain_fix, args, time.perf_counter() - start)
    log(f"wrote {ROOT / 'bench' / 'RESULTS.md'} (train section) and {RESULTS / 'models-train.json'}")


def write_results(rows: list[dict], fix: dict, plain_fix: dict, args, elapsed: float):
    RESULTS.mkdir(parents=True, exist_ok=True)
    import torch
    import transformers

    env = {"python": platform.python_version(), "torch": torch.__version__, "transformers": transformers.__version__,
           "machine": f"{platform.machine()}, {os.cpu_count()} CPUs", "timing": not args.no_timing,
           "elapsed_min": round(elapsed / 60, 1),
           "rerun_rows": args.rows or [],
           "timings_from_previous_run": bool(args.no_timing and any("cold_ratio" in r for r in rows))}
    fix, plain_fix = ({k: v for k, v in f.items() if k != "remaining_at"} for f in (fix, plain_fix))  # --train's
    (RESULTS / "models.json").write_text(json.dumps({"environment": env, "fix": fix, "plain_fix": plain_fix,
                                                     "rows": rows}, indent=2) + "\n")

    def totals(names, after="breaks_after"):
        sel = [r for r in rows if r["row"] in names and "error" not in r and after in r]
        return sum(r["breaks_before"] for r in sel), sum(r[after] for r in sel)

    fp32_before, fp32_after = totals(ROWS)
    fp16_before, fp16_after = totals(FP16_ROWS)
    _, fp32_plain = totals(ROWS, "breaks_after_plain")
    _, fp16_plain = totals(FP16_ROWS, "breaks_after_plain")
    plain_identical = all(r.get("outputs_identical_plain", False) for r in rows if "error" not in r)
    lines = [
        "# Model table: graph breaks before and after `graphmend fix`",
        "",
        "Generated by `bash bench/run_models.sh` (bench/models/run_table.py); do not edit by hand.",
        "",
        f"Environment: Python {env['python']}, torch {env['torch']}, transformers {env['transformers']}, "
        f"{env['machine']}, CPU only. This run: {env['elapsed_min']} min"
        + (f" (re-ran {', '.join(env['rerun_rows'])}; the other rows are from the previous full run)."
           if env['rerun_rows'] else ", every row.")
        + (" This run measured breaks and outputs only (`--no-timing`); the cold/warm columns are the previous"
           " full run's." if env.get("timings_from_previous_run") else ""),
        "",
        "## graphmend fix over the whole transformers package",
        "",
        f"`graphmend fix --unsafe-fixes` over a copy of transformers ({fix['files']} files). It applied "
        f"{fix['fixes_applied']} fixes and changed {fix['files_changed']} files in {fix['fix_seconds']} s.",
        f"Sites with a fix, by rule: {fix['fixable_by_rule']}.",
        f"Findings left (declined or out of scope): {fix['findings_after']} {fix['remaining_by_rule']}.",
        f"Plain `graphmend fix` (safe fixes only) over another copy applied {plain_fix['fixes_applied']} fixes in "
        f"{plain_fix['files_changed']} files; sites with a safe fix, by rule: {plain_fix['fixable_by_rule']}.",
        "",
        "## Rows (small configs, random weights pinned across arms, CPU, fp32 unless noted)",
        "",
        "- Breaks are counted with a counting backend (`dynamic=False`).",
        "- **identical**: the patched arm's outputs have the same SHA-256 as the original's: eager against",
        "  eager, the counting backend against the counting backend, and (when the patched arm passes it)",
        "  `fullgraph=True` against eager.",
        "- **plain fix**: breaks after plain `graphmend fix` (no flag), and whether those outputs are identical.",
        "- **cold** / **warm**: Inductor latency ratios, original / patched.",
        "  - cold: the first call, compilation included, with a private cache per arm;",
        "  - warm: the median of 20 calls.",
        "",
        "| row | paper impl. | breaks before → after | identical | fullgraph after | plain fix: after, identical | cold × | warm × | rule |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['row']} | {r['paper']} | error: {r['error']} | | | | | | {r['rule']} |")
            continue
        lines.append(
            f"| {r['row']} | {r['paper']} | {r['breaks_before']} → {r['breaks_after']} | "
            f"{'yes' if r['outputs_identical'] else '**NO**'} | {'yes' if r['fullgraph_after'] else 'no'} | "
            + (f"{r['breaks_after_plain']}, {'yes' if r['outputs_identical_plain'] else '**NO**'} | "
               if "breaks_after_plain" in r else f"{r.get('plain_error', '–')} | ")
            + f"{r.get('cold_ratio', '–')} | {r.get('warm_ratio', '–')} | {r['rule']} |")
    lines += [
        "",
        f"**Totals.** The 21 fp32 rows go from {fp32_before} to {fp32_after} breaks; the paper's "
        "implementation measured 89 → 19 on torch 2.12.1.",
        f"The fp16 rows go from {fp16_before} to {fp16_after}.",
        f"With plain `graphmend fix` (safe fixes only): fp32 {fp32_before} → {fp32_plain}, fp16 {fp16_before} → "
        f"{fp16_plain}; outputs identical in every row: {'yes' if plain_identical else '**NO**'}.",
        "",
        "## Every remaining break, with its category",
        "",
    ]
    for r in rows:
        for site in r.get("remaining", []):
            lines.append(f"- {r['row']}: {site} — {category(site)}")
    lines += ["", "![breaks before and after](results/breaks.png)", ""]
    results = ROOT / "bench" / "RESULTS.md"
    # The sections other scripts write after the table (bench/speed.py's, bench/scale's, ...) are
    # kept as they were: everything from the first of them to the end.
    previous = results.read_text() if results.exists() else ""
    begin = previous.find("<!-- train: begin")
    if begin < 0:
        begin = previous.find("<!-- speed: begin")
    text = "\n".join(lines)
    if begin >= 0:
        text += "\n" + previous[begin:]
    results.write_text(text)

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log("matplotlib missing: no chart")
        return
    ok = [r for r in rows if "error" not in r]
    fig, ax = plt.subplots(figsize=(12, 5))
    xs = range(len(ok))
    ax.bar([x - 0.2 for x in xs], [r["breaks_before"] for r in ok], width=0.4, label="original")
    ax.bar([x + 0.2 for x in xs], [r["breaks_after"] for r in ok], width=0.4, label="graphmend fix")
    ax.set_xticks(list(xs))
    ax.set_xticklabels([r["row"] for r in ok], rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("graph breaks")
    ax.set_title(f"Graph breaks per model row (transformers {env['transformers']}, torch {env['torch']})")
    ax.legend()
    fig.tight_layout()
    fig.savefig(RESULTS / "breaks.png", dpi=120)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", nargs="*", help="only these rows (default: every row)")
    parser.add_argument("--no-timing", action="store_true", help="skip the Inductor cold/warm timings")
    parser.add_argument("--train", action="store_true",
                        help="one training step of the [Where] rows (registry.WHERE_ROWS) in each arm")
    parser.add_argument("--graphmend", default=str(ROOT / "build" / "graphmend"))
    args = parser.parse_args()
    if args.train and args.rows and not set(args.rows) <= set(WHERE_ROWS):
        parser.error(f"--train takes rows of registry.WHERE_ROWS: {', '.join(WHERE_ROWS)}")
    start = time.perf_counter()
    work = ROOT / "bench" / ".work"
    work.mkdir(parents=True, exist_ok=True)
    log("patching a copy of transformers with graphmend fix --unsafe-fixes ...")
    fix = patch_transformers(args.graphmend, work, "--unsafe-fixes")
    log(f"  {fix['fixes_applied']} fixes in {fix['files_changed']} files, {fix['fix_seconds']} s; "
        f"fixable by rule: {fix['fixable_by_rule']}")
    log("patching another copy with plain graphmend fix (safe fixes only) ...")
    plain_fix = patch_transformers(args.graphmend, work, name="patched-plain")
    log(f"  {plain_fix['fixes_applied']} fixes in {plain_fix['files_changed']} files")
    if args.train:
        train(args, fix, plain_fix, work, start)
        return
    table = {**ROWS, **FP16_ROWS}
    names = args.rows or list(table)
    rows = []
    previous = {}
    if args.rows and (RESULTS / "models.json").exists():  # re-running some rows: keep the others
        previous = {r["row"]: r for r in json.loads((RESULTS / "models.json").read_text())["rows"]}
    for i, name in enumerate(names, 1):
        _builder, paper, rule = table[name]
        weights = work / f"{name.replace(' ', '_')}.pt"
        weights.unlink(missing_ok=True)
        t0 = time.perf_counter()
        original = run_arm(name, weights, None, not args.no_timing)  # saves the pinned weights
        patched = run_arm(name, weights, fix["site"], not args.no_timing)
        plain = run_arm(name, weights, plain_fix["site"], False)
        rows.append(summarize(name, paper, rule, original, patched))
        r = rows[-1]
        if "error" not in r:
            r.update(plain_columns(original, plain))
        status = r.get("error") or (f"breaks {r['breaks_before']} -> {r['breaks_after']}, identical "
                                    f"{r['outputs_identical']}, fullgraph {r['fullgraph_after']}, "
                                    f"plain fix {r.get('breaks_after_plain', r.get('plain_error'))}, "
                                    f"cold x{r.get('cold_ratio', '-')}, warm x{r.get('warm_ratio', '-')}")
        log(f"[{i}/{len(names)}] {name}: {status} ({time.perf_counter() - t0:.0f} s)")
    if previous:
        fresh = {r["row"]: r for r in rows}
        rows = [fresh.get(name, previous.get(name)) for name in table if name in fresh or name in previous]
    if args.no_timing and (RESULTS / "models.json").exists():
        # Keep the previous run's timings of each row (said so in RESULTS.md), not blanks.
        timed = {r["row"]: r for r in json.loads((RESULTS / "models.json").read_text())["rows"]}
        for r in rows:
            for key, value in timed.get(r["row"], {}).items():
                if key.startswith(("cold_", "warm_")) or key == "inductor_outputs_identical":
                    r.setdefault(key, value)
    write_results(rows, fix, plain_fix, args, time.perf_counter() - start)
    log(f"wrote {ROOT / 'bench' / 'RESULTS.md'} and {RESULTS}")


if __name__ == "__main__":
    main()
