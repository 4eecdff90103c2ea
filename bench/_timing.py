"""How the bench scripts time a command and keep what they measured: each run in its own process
under /usr/bin/time (wall seconds, user + system CPU seconds, peak RSS), the results as JSON under
bench/results/."""

from __future__ import annotations

import json
import pathlib
import subprocess
import tempfile

RESULTS = pathlib.Path(__file__).resolve().parent / "results"


def timed(cmd: list[str], cwd: pathlib.Path | None = None, env: dict[str, str] | None = None) -> dict:
    """Wall and CPU seconds, peak RSS in MB, stdout and stderr of one run of `cmd`."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        done = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", t.name, *cmd], cwd=cwd, env=env,
                              capture_output=True, text=True)
        # The last line: a command killed by a signal has /usr/bin/time write a line before it.
        wall, user, system, kb = t.read().split()[-4:]
    return {"wall_s": float(wall), "cpu_s": round(float(user) + float(system), 2), "peak_rss_mb": int(kb) // 1024,
            "stdout": done.stdout, "stderr": done.stderr}


def write_results(name: str, results: dict) -> None:
    """bench/results/<name>.json, and the same JSON on stdout."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{name}.json").write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
