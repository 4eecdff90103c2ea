"""GPU latency of original vs graphmend-patched transformers (an H200 when a session has one).

    python bench/gpu/bench_gpu.py --patched-site DIR [--device cuda] [--append-results]

DIR holds a graphmend-fixed copy of transformers (bench/run_models.sh leaves one in
bench/.work/patched). For each row (t5-small fp32, Phi-3 LongRoPE bf16, bart fp16) and each arm
(original, patched), a fresh process:

- builds the model with pinned weights (saved by the original arm, loaded strictly by the other);
- runs one eager warm-up forward, so lazy caches are filled outside CUDA-graph capture;
- compiles with mode="reduce-overhead" (CUDA graphs), with private Inductor and Triton caches;
- measures cold latency (the first compiled call, compilation included) and warm latency (the
  median of the following calls), synchronising after each;
- counts graph breaks (graphs - 1) and CUDA-graph launches per forward (torch.profiler events
  named cudaGraphLaunch during one warm call).

Sized to finish within 8 minutes on an H200. `--device cpu` runs the same code path without
CUDA graphs (mode="default"), as a dry run on a machine without a GPU.
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

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT / "bench" / "models"))

ROWS = {
    "t5-small": ("t5-small", None),
    "Phi-3 LongRoPE bf16": ("Phi-4-mini-instruct", "bfloat16"),
    "bart fp16": ("bart fp16", None),
}


def worker(row: str, device: str, weights: str, runs: int) -> dict:
    import torch
    import torch._dynamo

    from registry import build

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
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    if device == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.set_float32_matmul_precision("high")

    with torch.inference_mode():
        model(**inputs)  # eager warm-up
        sync()
        compiled = torch.compile(model, mode="reduce-overhead" if device == "cuda" else "default")
        times = []
        for _ in range(runs):
            if device == "cuda":
                torch.compiler.cudagraph_mark_step_begin()
            start = time.perf_counter()
            compiled(**inputs)
            sync()
            times.append(time.perf_counter() - start)
        launches = 0
        if device == "cuda":
            from torch.profiler import ProfilerActivity, profile

            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
                torch.compiler.cudagraph_mark_step_begin()
                compiled(**inputs)
                sync()
            launches = sum(1 for e in prof.events() if "cudaGraphLaunch" in e.name)
        torch._dynamo.reset()
        counted = []
        torch.compile(model, backend=lambda gm, ex: counted.append(gm) or gm.forward, dynamic=False)(**inputs)
    warm = sorted(times[1:])
    return {"row": row, "cold_ms": times[0] * 1e3, "warm_ms": warm[len(warm) // 2] * 1e3,
            "breaks": len(counted) - 1, "cudagraph_launches": launches}


def run_arm(row: str, device: str, weights: pathlib.Path, site: str | None, runs: int) -> dict:
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if site:
        env["PYTHONPATH"] = site
    with tempfile.TemporaryDirectory() as inductor, tempfile.TemporaryDirectory() as triton:
        env["TORCHINDUCTOR_CACHE_DIR"], env["TRITON_CACHE_DIR"] = inductor, triton
        out = subprocess.run([sys.executable, __file__, "--worker", row, "--device", device, "--weights",
                              str(weights), "--runs", str(runs)], capture_output=True, text=True, env=env)
    if out.returncode != 0:
        return {"row": row, "error": (out.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--patched-site", default=str(ROOT / "bench" / ".work" / "patched"))
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--rows", nargs="*", default=list(ROWS))
    parser.add_argument("--append-results", action="store_true", help="append the table to bench/RESULTS.md")
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
            original = run_arm(row, args.device, weights, None, args.runs)
            patched = run_arm(row, args.device, weights, args.patched_site, args.runs)
            results.append((row, original, patched))
            print(json.dumps({"row": row, "original": original, "patched": patched}), flush=True)
    mode = "reduce-overhead" if args.device == "cuda" else "default (a dry run: no CUDA graphs)"
    lines = [f"\n## GPU ({args.device}; mode={mode}, private caches per arm, eager warm-up)\n",
             "| row | breaks before → after | cold ms before → after (×) | warm ms before → after (×) | "
             "CUDA-graph launches / forward |", "|---|---|---|---|---|"]
    for row, o, p in results:
        if "error" in o or "error" in p:
            lines.append(f"| {row} | error: {o.get('error') or p.get('error')} | | | |")
            continue
        lines.append(f"| {row} | {o['breaks']} → {p['breaks']} | {o['cold_ms']:.0f} → {p['cold_ms']:.0f} "
                     f"({o['cold_ms'] / p['cold_ms']:.2f}×) | {o['warm_ms']:.3f} → {p['warm_ms']:.3f} "
                     f"({o['warm_ms'] / p['warm_ms']:.2f}×) | {o['cudagraph_launches']} → {p['cudagraph_launches']} |")
    print("\n".join(lines))
    if args.append_results:
        with open(ROOT / "bench" / "RESULTS.md", "a") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
