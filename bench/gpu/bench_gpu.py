"""CUDA graphs and latency of original vs graphmend-patched transformers, in both [Defer] forms.

    python bench/gpu/bench_gpu.py [--device cuda|cpu] [--patched-site DIR] [--rows ROW ...] [--write]

DIR holds a graphmend-fixed copy of transformers (bench/run_models.sh leaves one in
bench/.work/patched; bench/gpu/prepare.sh makes one for a device machine). For each row (t5-small
fp32, Phi-3 LongRoPE bf16, bart fp16) and each arm, a fresh process with private Inductor and
Triton caches. The arms: the original; the patched copy with [Defer] in-graph (the default); the
patched copy with GRAPHMEND_DEFER=epilogue (effects recorded in the graph, emitted after it
returns; rules/GM201.md). Each process:

- builds the model with pinned weights (saved by the first arm, loaded strictly by the others) and
  records a digest of one eager forward (the arms' eager outputs must be identical);
- counts the graphs of one forward (breaks = graphs - 1) and graphmend's host ops in them: the
  runtime's in-graph ops, whose Python runs on the host in the middle of the graph;
- compiles with mode="reduce-overhead" (CUDA graphs) after one eager warm-up, and measures cold
  latency (the first compiled call, compilation included) and warm latency (the median of the
  following calls), synchronising after each;
- on CUDA, for one warm call: CUDA-graph launches (torch.profiler events named cudaGraphLaunch),
  host-device synchronisations (torch.cuda.set_sync_debug_mode warnings) and every reason
  Inductor gave for not using CUDA graphs ("skipping cudagraphs due to ...").

`--device cpu` runs the same code path with mode="default" (no CUDA graphs), as a dry run: it
gives the graph and host-op counts. `--write` writes bench/results/gpu_<device>.json and .md.
Sized to finish in about 4 minutes on an H100-class GPU (bench/gpu/device.sh runs it).
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time
import warnings

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "bench" / "models"))

ROWS = {
    "t5-small": ("t5-small", None),
    "Phi-3 LongRoPE bf16": ("Phi-4-mini-instruct", "bfloat16"),
    "bart fp16": ("bart fp16", None),
}
# arm -> (uses the patched copy, GRAPHMEND_DEFER)
ARMS = {"original": (False, None), "in-graph": (True, "in-graph"), "epilogue": (True, "epilogue")}


def record_cudagraph_skips() -> list[str]:
    """Every message Inductor logs when it does not use CUDA graphs, collected in a list. The
    modules that log it imported the function by name, so each of their names is wrapped."""
    import importlib

    skips: list[str] = []
    utils = importlib.import_module("torch._inductor.cudagraph_utils")
    original = utils.log_cudagraph_skip_and_bump_counter

    def recording(msg: str, *args, **kwargs):
        skips.append(msg.splitlines()[0])
        return original(msg, *args, **kwargs)

    for name in ("torch._inductor.cudagraph_utils", "torch._inductor.output_code",
                 "torch._inductor.cudagraph_trees", "torch._inductor.compile_fx"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if hasattr(module, "log_cudagraph_skip_and_bump_counter"):
            module.log_cudagraph_skip_and_bump_counter = recording
    return skips


def count_graphs(model, inputs) -> tuple[int, int]:
    """(graphs, graphmend host ops) of one compiled forward."""
    import torch

    graphs = []
    torch._dynamo.reset()
    torch.compile(model, backend=lambda gm, ex: graphs.append(gm) or gm.forward, dynamic=False)(**inputs)
    host_ops = sum(1 for gm in graphs for n in gm.graph.nodes if "graphmend_rt" in str(n.target))
    torch._dynamo.reset()
    return len(graphs), host_ops


def worker(row: str, device: str, weights: str, runs: int) -> dict:
    import torch
    import torch._dynamo

    from registry import build
    from run_row import digest

    name, dtype = ROWS[row]
    torch.manual_seed(0)
    model, inputs = build(name)
    if dtype:
        model = model.to(getattr(torch, dtype))
    if os.path.exists(weights):
        model.load_state_dict(torch.load(weights), strict=True)
    else:
        torch.save(model.state_dict(), weights)
    model = model.to(device).eval()
    inputs = {k: v.to(device) for k, v in inputs.items()}
    cuda = device == "cuda"
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    if cuda:
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.set_float32_matmul_precision("high")
    skips = record_cudagraph_skips()
    facts: dict = {"row": row, "torch": torch.__version__}

    with torch.inference_mode():
        facts["eager_sha256"] = digest(model(**inputs))  # also the warm-up: lazy caches filled
        sync()
        facts["graphs"], facts["host_ops"] = count_graphs(model, inputs)
        facts["breaks"] = facts["graphs"] - 1
        compiled = torch.compile(model, mode="reduce-overhead" if cuda else "default")
        times = []
        for _ in range(runs):
            if cuda:
                torch.compiler.cudagraph_mark_step_begin()
            start = time.perf_counter()
            compiled(**inputs)
            sync()
            times.append(time.perf_counter() - start)
        if cuda:
            from torch.profiler import ProfilerActivity, profile

            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                torch.compiler.cudagraph_mark_step_begin()
                compiled(**inputs)
                sync()
            facts["cudagraph_launches"] = sum(1 for e in prof.events() if "cudaGraphLaunch" in e.name)
            torch.compiler.cudagraph_mark_step_begin()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                torch.cuda.set_sync_debug_mode("warn")
                try:
                    compiled(**inputs)
                finally:
                    torch.cuda.set_sync_debug_mode("default")
            sync()
            facts["syncs"] = sum(1 for w in caught if "synchronizing" in str(w.message))
            facts["cudagraph_skips"] = sorted(set(skips))
    warm = sorted(times[1:])
    facts["cold_ms"] = times[0] * 1e3
    facts["warm_ms"] = warm[len(warm) // 2] * 1e3
    return facts


def run_arm(row: str, arm: str, device: str, weights: pathlib.Path, site: str, runs: int) -> dict:
    patched, form = ARMS[arm]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GRAPHMEND_DEFER")}
    if patched:
        env["PYTHONPATH"] = site
        env["GRAPHMEND_DEFER"] = form
    with tempfile.TemporaryDirectory() as inductor, tempfile.TemporaryDirectory() as triton:
        env["TORCHINDUCTOR_CACHE_DIR"], env["TRITON_CACHE_DIR"] = inductor, triton
        out = subprocess.run([sys.executable, __file__, "--worker", row, "--device", device, "--weights",
                              str(weights), "--runs", str(runs)], capture_output=True, text=True, env=env,
                             check=False)
    if out.returncode != 0:
        return {"row": row, "error": (out.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def table(device: str, results: list[dict]) -> list[str]:
    mode = "reduce-overhead" if device == "cuda" else "default (a dry run: no CUDA graphs)"
    lines = [f"## GPU: CUDA graphs and latency ({device}; mode={mode}; private caches per arm)", "",
             "Arms: original; patched with [Defer] in-graph (default); patched with "
             "GRAPHMEND_DEFER=epilogue. Host ops: graphmend's in-graph ops per forward, whose Python "
             "runs on the host mid-graph. Syncs: host-device synchronisations in one warm forward.", "",
             "| row | arm | torch | eager = original | breaks | host ops | cold ms | warm ms | "
             "CUDA-graph launches | syncs | CUDA-graph skip reasons |",
             "|---|---|---|---|---:|---:|---:|---:|---:|---:|---|"]
    for result in results:
        reference = result["arms"].get("original", {}).get("eager_sha256")  # None: not run
        for arm, f in result["arms"].items():
            if "error" in f:
                lines.append(f"| {result['row']} | {arm} | | error: {f['error']} |" + " |" * 7)
                continue
            same = "?" if reference is None else "yes" if f["eager_sha256"] == reference else "NO"
            skips = "; ".join(f.get("cudagraph_skips", [])) or ("none" if device == "cuda" else "n/a")
            lines.append(
                f"| {result['row']} | {arm} | {f['torch']} | {same} | {f['breaks']} | {f['host_ops']} | "
                f"{f['cold_ms']:.0f} | {f['warm_ms']:.3f} | {f.get('cudagraph_launches', 'n/a')} | "
                f"{f.get('syncs', 'n/a')} | {skips} |")
    return lines


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--patched-site", default=str(ROOT / "bench" / ".work" / "patched"))
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--rows", nargs="*", default=list(ROWS))
    parser.add_argument("--arms", nargs="*", default=list(ARMS))
    parser.add_argument("--write", action="store_true", help="write bench/results/gpu_<device>.json and .md")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--weights", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.device, args.weights, args.runs)))
        return
    results = []
    with tempfile.TemporaryDirectory() as work:
        for row in args.rows:
            weights = pathlib.Path(work) / (row.replace(" ", "_") + ".pt")
            arms = {arm: run_arm(row, arm, args.device, weights, args.patched_site, args.runs) for arm in args.arms}
            results.append({"row": row, "arms": arms})
            print(json.dumps(results[-1]), flush=True)
    lines = table(args.device, results)
    print("\n".join(lines))
    if args.write:
        out = ROOT / "bench" / "results"
        (out / f"gpu_{args.device}.json").write_text(json.dumps(results, indent=1) + "\n")
        (out / f"gpu_{args.device}.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
