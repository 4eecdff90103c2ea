import os
import subprocess

import pytest


@pytest.fixture
def gm(graphmend_bin):
    """Runs graphmend; returns the CompletedProcess (text mode)."""

    def run(*args, cwd=None, stdin=None, env=None, binary=None):
        return subprocess.run(
            [str(binary or graphmend_bin), *map(str, args)],
            cwd=cwd,
            input=stdin,
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {})},
            timeout=120,
        )

    return run


MODEL = '''import torch


class Model(torch.nn.Module):
    def forward(self, x):
        print("forward", x.shape)
        if x.sum() > 0:
            raise ValueError(f"positive input of shape {x.shape}")
        return x * 2
'''


@pytest.fixture
def project(tmp_path):
    """A small package with graph-break sites: pkg/model.py (print, guard) and pkg/util.py."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "model.py").write_text(MODEL)
    return tmp_path
