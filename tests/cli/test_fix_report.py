"""What `fix` reports as left is what a fresh `check` of the files it wrote finds.

A fix run analyses the tree once, then after each pass that changed a file re-analyses every file
(another file reads the changed one's function bodies), with facts carried over from the first
pass (the call-site evidence that types unannotated parameters). These tests hold the run's report
to the reference: `check` of the fixed tree from scratch.
"""

import importlib.util
import json
import pathlib
import shutil

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
E2E_PROGRAMS = ROOT / "tests" / "e2e" / "programs"

# The comparison bench/fix_report.py makes over large trees: one definition of what is compared.
_spec = importlib.util.spec_from_file_location("fix_report", ROOT / "bench" / "fix_report.py")
fix_report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fix_report)
findings = fix_report.findings


# `route` is typed only by what the compiled forward in another module passes it: its `h` has no
# annotation and no use only a tensor supports. Its print is fixed, so the second pass analyses
# helpers.py again, with the evidence carried over; the GM101 it still reports needs that evidence.
HELPERS = '''import torch


def route(h, k):
    print("route", k)
    if h > 0:
        return None
    return h * k
'''

MODEL = '''import torch

from .helpers import route


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        return route(x.sum(), 2)
'''


def write_package(root: pathlib.Path, helpers: str, model: str) -> pathlib.Path:
    """`pkg/` under `root`, with helpers.py and model.py."""
    pkg = root / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "helpers.py").write_text(helpers)
    (pkg / "model.py").write_text(model)
    return pkg


def test_a_fixed_module_keeps_the_evidence_other_modules_give_it(gm, tmp_path):
    pkg = write_package(tmp_path, HELPERS, MODEL)
    fixed = gm("fix", "pkg", "--output-format", "json", cwd=tmp_path)
    assert fixed.returncode == 1, fixed.stderr
    report = json.loads(fixed.stdout)
    assert {f["filename"]: f["fixed"] for f in report["files"]}["pkg/helpers.py"] == {"GM201": 1}
    left = findings(fixed.stdout)
    assert [(f[0], f[1], f[5]) for f in left] == [("pkg/helpers.py", "GM101", "python-value-selected")]
    assert left[0][2] == (pkg / "helpers.py").read_text().index("h > 0")
    again = gm("check", "pkg", "--no-cache", "--output-format", "json", cwd=tmp_path)
    assert findings(again.stdout) == left


@pytest.mark.parametrize("unsafe", [[], ["--unsafe-fixes"]], ids=["plain", "unsafe"])
def test_findings_left_over_the_e2e_programs_are_a_fresh_checks(gm, tmp_path, unsafe):
    shutil.copytree(E2E_PROGRAMS, tmp_path / "programs")
    fixed = gm("fix", *unsafe, "programs", "--output-format", "json", cwd=tmp_path)
    assert fixed.returncode in (0, 1), fixed.stderr
    report = json.loads(fixed.stdout)
    assert sum(f["fixes_applied"] for f in report["files"]) > 20  # the check below covers fixed files
    again = gm("check", *unsafe, "programs", "--no-cache", "--output-format", "json", cwd=tmp_path)
    assert findings(again.stdout) == findings(fixed.stdout)


# `model.py` has nothing to fix: its branch calls `log_and_double`, whose print makes it decline.
# The fix changes only helpers.py, and the decline names what the branch now calls. Before every
# file was re-analysed, model.py kept the decline of the text before the fix ("calls `print`").
PRINTING_HELPER = '''import torch


def log_and_double(x):
    print("doubling", x.shape)
    return x * 2
'''

BRANCH_ON_HELPER = '''import torch

from .helpers import log_and_double


class Model(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            y = log_and_double(x)
        else:
            y = x
        return y
'''


def test_a_file_the_fix_left_alone_reports_what_it_reads_of_the_fixed_one(gm, tmp_path):
    pkg = write_package(tmp_path, PRINTING_HELPER, BRANCH_ON_HELPER)
    fixed = gm("fix", "pkg", "--output-format", "json", cwd=tmp_path)
    assert fixed.returncode == 1, fixed.stderr
    assert (pkg / "model.py").read_text() == BRANCH_ON_HELPER
    assert (pkg / "helpers.py").read_text() != PRINTING_HELPER

    def described(stdout):
        return [(d["filename"], d["code"], d["message"], d["decline_code"], d["decline_reason"])
                for d in json.loads(stdout)["diagnostics"]]

    left = described(fixed.stdout)
    assert [(f[0], f[1]) for f in left] == [("pkg/model.py", "GM101")]
    again = gm("check", "pkg", "--no-cache", "--output-format", "json", cwd=tmp_path)
    assert described(again.stdout) == left
