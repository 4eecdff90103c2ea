"""Per-file budgets (issue 12): a file whose analysis goes over --max-file-time or --max-file-memory
is skipped with a clear message and left as it was, while the other files are checked and fixed;
the exit code is 2."""

import pytest

from conftest import MODEL

HEADER = ("import torch\nimport torch.nn as nn\n\n\nclass Big(nn.Module):\n"
          "    def forward(self, x: torch.Tensor) -> torch.Tensor:\n")


def big_module(statements: int) -> str:
    return HEADER + "        y = 1\n" * statements + "        print(y)\n        return x\n"


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "big.py").write_text(big_module(150_000))
    (tmp_path / "model.py").write_text(MODEL)
    return tmp_path


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_over_the_memory_budget_one_file_is_skipped_and_the_others_fixed(gm, tree, jobs):
    before = (tree / "big.py").read_text()
    r = gm("fix", "--isolated", "-j", jobs, "--max-file-memory", "20", "big.py", "model.py", cwd=tree)
    assert r.returncode == 2, r.stdout + r.stderr
    assert ("big.py: skipped and not modified: its analysis needed more than the per-file memory "
            "budget of 20 MB (--max-file-memory)") in r.stderr
    assert (tree / "big.py").read_text() == before
    assert "_graphmend" in (tree / "model.py").read_text()


def test_over_the_time_budget_one_file_is_skipped(gm, tree):
    # 150,000 statements take about a second to analyse on a fast machine, the small model under a
    # millisecond: a budget of 50 ms lies far from both on any machine.
    r = gm("check", "--isolated", "--max-file-time", "0.05", "big.py", "model.py", cwd=tree)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "big.py: skipped and not modified: its analysis took longer than the per-file time budget of 0.05 s" in r.stderr
    assert "model.py:6:9: GM201" in r.stdout


def test_budgets_come_from_the_configuration_and_zero_means_no_limit(gm, tree):
    (tree / "graphmend.toml").write_text("max-file-memory = 20\n")
    r = gm("check", "big.py", cwd=tree)
    assert r.returncode == 2 and "--max-file-memory" in r.stderr, r.stdout + r.stderr
    r = gm("check", "--max-file-memory", "0", "big.py", cwd=tree)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "big.py:" in r.stdout and "GM201" in r.stdout


def test_a_fractional_time_budget_is_accepted_from_the_configuration(gm, tree):
    (tree / "graphmend.toml").write_text("max-file-time = 0.05\n")
    r = gm("check", "big.py", "model.py", cwd=tree)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "per-file time budget of 0.05 s (--max-file-time)" in r.stderr
    assert "model.py:6:9: GM201" in r.stdout


def test_a_budget_that_is_not_a_number_is_a_configuration_error(gm, tree):
    (tree / "graphmend.toml").write_text('max-file-time = "soon"\n')
    r = gm("check", "model.py", cwd=tree)
    assert r.returncode == 2
    assert "max-file-time" in r.stderr
