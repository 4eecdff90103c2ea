"""The wild census's smoke run (issue 49): bench/wild/wild_census.py end to end on two models of
vector-quantize-pytorch in the test command's environment (torch 2.13.0 CPU), each arm in its own
process: FSQ (no break) and VectorQuantize (a one-time init guard on a boolean buffer,
`if self.initted:`, breaks three times; graphmend declines it; the capture flags do not help)."""
from __future__ import annotations

import json
import pathlib
import subprocess
import sys

CENSUS = pathlib.Path(__file__).resolve().parents[2] / "bench" / "wild" / "wild_census.py"
INIT_GUARD = "vector_quantize_pytorch/vector_quantize_pytorch.py:454"


def test_two_models_before_and_after_and_with_capture_flags(graphmend_bin, tmp_path):
    out = tmp_path / "wild.json"
    done = subprocess.run(
        [sys.executable, str(CENSUS), "--python", sys.executable, "--graphmend", graphmend_bin,
         "--models", "vector_quantize_pytorch/VectorQuantize", "vector_quantize_pytorch/FSQ",
         "--out", str(out), "--work", str(tmp_path / "work"), "--timeout", "400"],
        capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    census = json.loads(out.read_text())
    results = {r["model_type"].split("/")[1]: r for r in census["results"]}
    assert sorted(results) == ["FSQ", "VectorQuantize"]
    for name, r in results.items():
        original = r["original"]
        for kind in ("plain", "unsafe"):
            patched = r[kind]
            assert original["stage"] == patched["stage"] == "done", (name, kind, original, patched)
            # The patched copy is the one imported (graphmend's unsafe fixes change nothing here, so
            # the unsafe copy is byte-identical to the plain one and the plain arm stands for it).
            ran_as = patched.get("same_sources_as", kind)
            assert (kind, ran_as) in {("plain", "plain"), ("unsafe", "unsafe"), ("unsafe", "plain")}
            assert f"/work/{ran_as}/vector_quantize_pytorch" in patched["library_path"], patched["library_path"]
            # Its outputs, eager and compiled, equal the original's eager output, bit for bit.
            assert patched["eager_sha256"] == patched["compiled_sha256"] == original["eager_sha256"], (name, kind)
            assert patched["breaks"] == original["breaks"], (name, kind)
    assert results["FSQ"]["original"]["breaks"] == 0 and "capture" not in results["FSQ"]
    quantize = results["VectorQuantize"]
    assert quantize["original"]["breaks"] == 3
    assert [b["site"] for b in quantize["plain"]["break_sites"]] == [INIT_GUARD]
    assert quantize["plain"]["break_sites"][0]["cause"] == "Data-dependent branching"
    # A branch on a tensor is not a data-dependent shape or a scalar: the capture flags keep it.
    capture = quantize["capture"]
    assert capture["breaks"] == 3 and capture["compiled_sha256"] == quantize["original"]["eager_sha256"]
    assert capture["fullgraph"]["ok"] is False and capture["fullgraph"]["site"] == INIT_GUARD
    summary = census["summary"]
    assert summary["ran"] == summary["identical_plain"] == summary["identical_unsafe"] == 2
    assert summary["breaks_before"] == summary["breaks_plain"] == summary["breaks_unsafe"] == 3
