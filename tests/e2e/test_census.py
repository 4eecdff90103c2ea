"""The census's smoke run (issue 14): bench/census/census.py end to end on three architectures of
the installed transformers (4.52.4), each arm in its own process: gpt2 (no break), t5 (a logger
call in the stack's forward: fixed) and mixtral (data-dependent expert dispatch: left, with its
sites and causes)."""
from __future__ import annotations

import json
import pathlib
import subprocess
import sys

CENSUS = pathlib.Path(__file__).resolve().parents[2] / "bench" / "census" / "census.py"


def test_three_architectures_before_and_after(graphmend_bin, tmp_path):
    out = tmp_path / "census.json"
    done = subprocess.run(
        [sys.executable, str(CENSUS), "--python", sys.executable, "--graphmend", graphmend_bin,
         "--models", "gpt2", "t5", "mixtral", "--out", str(out), "--work", str(tmp_path / "work"),
         "--timeout", "400"],
        capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    census = json.loads(out.read_text())
    results = {r["model_type"]: r for r in census["results"]}
    assert sorted(results) == ["gpt2", "mixtral", "t5"]
    for name, r in results.items():
        original, patched = r["original"], r["patched"]
        assert original["stage"] == patched["stage"] == "done", (name, original, patched)
        # Identical outputs: the patched model, eager and compiled, against the original's eager.
        assert patched["eager_sha256"] == original["eager_sha256"] == original["compiled_sha256"], name
        assert patched["compiled_sha256"] == original["eager_sha256"], name
        assert patched["breaks"] <= original["breaks"], name
        # Each remaining break is named: Dynamo logs each distinct site once, however often it breaks.
        assert bool(patched["break_sites"]) == bool(patched["breaks"]), name
        for site in patched["break_sites"]:
            assert site["site"].split(":")[-1].isdigit() and site["cause"], site
    assert results["gpt2"]["original"]["breaks"] == results["gpt2"]["patched"]["breaks"] == 0
    assert results["t5"]["original"]["breaks"] > 0 and results["t5"]["patched"]["breaks"] == 0
    mixtral = results["mixtral"]["patched"]
    assert mixtral["breaks"] > 0
    assert all(s["site"].startswith("models/mixtral/modeling_mixtral.py:") for s in mixtral["break_sites"])
    summary = census["summary"]
    assert summary["compared"] == summary["outputs_identical"] == 3
    assert summary["breaks_after"] == mixtral["breaks"] < summary["breaks_before"]
