"""The pre-commit hooks, through the real pre-commit: a commit blocked by a finding passes after
the fix hook has run; a change to a helper alone is judged with the rest of the project."""

import os
import pathlib
import sys

from conftest import ROOT, run

MODEL = '''import torch

from .util import scale


class Model(torch.nn.Module):
    def forward(self, x):
        return scale(x) * 2
'''

UTIL = '''def scale(x):
    return x + 1
'''

UTIL_WITH_PRINT = '''def scale(x):
    print("scaling", x.shape)
    return x + 1
'''


def git(repo, *args, check=True):
    return run(["git", "-C", repo, *args], check=check)


def pre_commit_env(tmp_path):
    bin_dir = pathlib.Path(sys.executable).parent
    # The hook environment is built once per run of the test suite; locally it is kept in build/.
    home = os.environ.get("PRE_COMMIT_HOME") or str(ROOT / "build" / "pre-commit-home")
    env = {"PRE_COMMIT_HOME": home, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "SKBUILD_BUILD_DIR": None}
    return env


def test_hooks_block_a_commit_until_fixed(tmp_path):
    repo = tmp_path / "repo"
    (repo / "pkg").mkdir(parents=True)
    git(tmp_path, "init", "-q", repo)
    git(repo, "config", "user.email", "dev@example.com")
    git(repo, "config", "user.name", "dev")
    (repo / "pyproject.toml").write_text("[project]\nname = 'pkg'\nversion = '0'\n")
    (repo / "pkg" / "__init__.py").write_text("")
    (repo / "pkg" / "model.py").write_text(MODEL)
    (repo / "pkg" / "util.py").write_text(UTIL)
    head = git(ROOT, "rev-parse", "HEAD").stdout.strip()
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {ROOT}\n  rev: {head}\n  hooks:\n  - id: graphmend-check\n"
        "  - id: graphmend-fix\n    stages: [manual]\n"
    )
    git(repo, "add", "-A")
    env = pre_commit_env(tmp_path)
    run([sys.executable, "-m", "pre_commit", "install"], cwd=repo, env=env)
    run(["git", "commit", "-q", "-m", "clean start"], cwd=repo, env=env)

    # Only util.py changes: its print is reached from Model.forward in a file not committed now.
    (repo / "pkg" / "util.py").write_text(UTIL_WITH_PRINT)
    git(repo, "add", "pkg/util.py")
    blocked = run(["git", "commit", "-m", "add a print"], cwd=repo, env=env, check=False)
    assert blocked.returncode != 0, blocked.stdout + blocked.stderr
    assert "pkg/util.py:2:5: GM201" in blocked.stdout + blocked.stderr
    assert "model.py" not in (blocked.stdout + blocked.stderr).split("graphmend check")[-1]

    fixed = run([sys.executable, "-m", "pre_commit", "run", "--hook-stage", "manual", "graphmend-fix",
                 "--files", "pkg/util.py"], cwd=repo, env=env, check=False)
    assert fixed.returncode == 1, fixed.stdout  # pre-commit fails a hook that modified files
    assert "files were modified by this hook" in fixed.stdout
    assert '_graphmend.call(print)("scaling", x.shape)' in (repo / "pkg" / "util.py").read_text()
    assert (repo / "pkg" / "model.py").read_text() == MODEL  # context only: never rewritten
    assert (repo / "pkg" / "_graphmend_runtime.py").is_file()
    git(repo, "add", "-A")
    run(["git", "commit", "-q", "-m", "add a print, fixed"], cwd=repo, env=env)

    # try-repo, as a hook author would test it, agrees: nothing left to report.
    tried = run([sys.executable, "-m", "pre_commit", "try-repo", ROOT, "graphmend-check", "--all-files"],
                cwd=repo, env=env, check=False)
    assert tried.returncode == 0, tried.stdout + tried.stderr
