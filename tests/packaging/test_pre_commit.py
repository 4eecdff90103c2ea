"""The pre-commit hooks, through the real pre-commit: a commit blocked by a finding passes after
the fix hook has run; a change to a helper alone is judged with the rest of the project; the
configuration the README and docs/ci.md show pins with `pre-commit autoupdate` and runs."""

import pathlib
import re
import sys

import pytest
import yaml

from conftest import ROOT, git, new_repo, pre_commit_env, run

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


PUBLISHED_REPO = "https://github.com/graphmend/graphmend"

MODEL_WITH_PRINT = '''import torch


class Model(torch.nn.Module):
    def forward(self, x):
        print("forward", x.shape)
        return x * 2
'''


def documented_config(doc: pathlib.Path) -> str:
    """The one YAML block of `doc` that names graphmend's repository."""
    blocks = [b for b in re.findall(r"```yaml\n(.*?)```", doc.read_text(), re.S) if PUBLISHED_REPO in b]
    assert len(blocks) == 1, blocks
    return blocks[0]


def test_hooks_block_a_commit_until_fixed(tmp_path):
    repo = new_repo(tmp_path / "repo")
    (repo / "pkg").mkdir()
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
    env = pre_commit_env()
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


@pytest.mark.parametrize("doc", ["README.md", "docs/ci.md"])
def test_documented_config_pins_with_autoupdate_and_runs(doc, tmp_path):
    config = documented_config(ROOT / doc)
    head = git(ROOT, "rev-parse", "HEAD").stdout.strip()
    # The published repository, out of reach here, is played by a copy of this checkout whose
    # default branch is at HEAD.
    upstream = tmp_path / "upstream.git"
    git(tmp_path, "clone", "-q", "--bare", ROOT, upstream)
    git(upstream, "update-ref", "refs/heads/main", head)
    git(upstream, "symbolic-ref", "HEAD", "refs/heads/main")

    # The revision as written exists there (else pre-commit stops: "pathspec ... did not match").
    written = yaml.safe_load(config)["repos"][0]["rev"]
    assert git(upstream, "rev-parse", "--verify", "-q", f"{written}^{{commit}}", check=False).returncode == 0, written

    project = new_repo(tmp_path / "project")
    (project / "model.py").write_text(MODEL_WITH_PRINT)
    config_file = project / ".pre-commit-config.yaml"
    config_file.write_text(config.replace(PUBLISHED_REPO, str(upstream)))
    env = pre_commit_env()
    # autoupdate also checks that the hooks the configuration names exist at the pinned revision.
    updated = run([sys.executable, "-m", "pre_commit", "autoupdate"], cwd=project, env=env, check=False)
    assert updated.returncode == 0, updated.stdout + updated.stderr
    pinned = yaml.safe_load(config_file.read_text())["repos"][0]["rev"]
    tags = git(ROOT, "tag", "--merged", "HEAD").stdout.split()
    # The newest tag, or while none is tagged the full SHA: never a branch name.
    assert pinned in tags if tags else pinned == head, (pinned, tags)

    # The pinned configuration runs the hooks at HEAD from this checkout (the environment of
    # conftest.hook_environment and the test above: one build).
    config_file.write_text(config_file.read_text().replace(str(upstream), str(ROOT)).replace(pinned, head))
    git(project, "add", "-A")
    checked = run([sys.executable, "-m", "pre_commit", "run", "--all-files"], cwd=project, env=env, check=False)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert "model.py:6:9: GM201" in checked.stdout, checked.stdout
