"""One small row served end to end without Python (issue 15, item 5): fix, export, package, C++.

tests/e2e/export/export_forms.py has a site of each rewrite; its original cannot be exported.
Patched by `graphmend fix`, it is exported, compiled into an AOTInductor package, and run by the
C++ harness bench/serve/harness.cpp (graphmend_serve: LibTorch's AOTIModelPackageLoader), which
must return eager's outputs bit for bit for inputs taking both branches, and stop an input that
fails the [Trap] guard with the original exception's class and message. The harness is built once
by scripts/test.sh (GRAPHMEND_SERVE_BIN); run alone, this test builds it (bench/serve/build.sh).
"""
from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest
import torch

import behaviour

ROOT = pathlib.Path(__file__).resolve().parents[2]
FORMS = pathlib.Path(__file__).resolve().parent / "export" / "export_forms.py"
MESSAGE = "ValueError: activations overflowed"


@pytest.fixture(scope="module")
def harness():
    given = os.environ.get("GRAPHMEND_SERVE_BIN")
    if given:
        return given
    built = subprocess.run(["bash", str(ROOT / "bench" / "serve" / "build.sh")], capture_output=True, text=True,
                           env=dict(os.environ, PYTHON=sys.executable))
    assert built.returncode == 0, built.stderr[-2000:]
    return built.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def packaged(graphmend_bin, tmp_path_factory):
    """The patched Block's .pt2 and its eager reference (the original module's, same weights)."""
    work = tmp_path_factory.mktemp("serve")
    copy = work / FORMS.name
    shutil.copy(FORMS, copy)
    fixed = subprocess.run([graphmend_bin, "fix", str(copy)], capture_output=True, text=True)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    original = behaviour.import_path(FORMS, "serve_forms__original")
    patched = behaviour.import_path(copy, "serve_forms__patched")
    torch.manual_seed(1)
    reference = original.Block().eval()
    target = patched.Block().eval()
    target.load_state_dict(reference.state_dict())
    with torch.no_grad():
        program = torch.export.export(target, (original.inputs()[0],), strict=False)
        package = torch._inductor.aoti_compile_and_package(program, package_path=str(work / "forms.pt2"))
    return work, package, reference, original.inputs()


def _serve(harness, package, io_path):
    out = subprocess.run([harness, "--package", package, "--io", str(io_path), "--warm", "5"],
                         capture_output=True, text=True, timeout=300)
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    assert lines, out.stderr[-2000:]
    return out.returncode, json.loads(lines[-1])


def test_cpp_outputs_equal_eager_and_the_trap_still_raises(harness, packaged):
    work, package, reference, inputs = packaged
    bad = [torch.full((2, 4), 1e6), torch.full((2, 4), -1e6)]
    with torch.no_grad():
        for bad_input in bad:
            with pytest.raises(ValueError, match="activations overflowed"):
                reference(bad_input)
        # inputs() takes the `if` branch and the `else` branch of the [Where] site.
        assert {bool(reference.proj(x).sum() > 0) for x in inputs} == {True, False}
        for index, x in enumerate(inputs):
            io_path = work / f"case{index}.io.pt"
            torch.save({"inputs": [x], "outputs": [reference(x)],
                        "failing": [[[b], MESSAGE] for b in bad]}, io_path)
            status, facts = _serve(harness, package, io_path)
            assert status == 0 and facts["identical"], facts
            assert facts["failing_inputs"] == 2 and facts["failing_raised"] == 2, facts
            assert facts["warm_calls"] == 5 and facts["warm_p10_ms"] <= facts["warm_median_ms"] <= facts["warm_p90_ms"]


def test_harness_reports_a_differing_output(harness, packaged):
    """The comparison is bit for bit: one flipped last bit is a difference, and exit status 1."""
    work, package, reference, inputs = packaged
    with torch.no_grad():
        expected = reference(inputs[0]).clone()
    expected.view(torch.int32)[0, 0] ^= 1
    io_path = work / "tampered.io.pt"
    torch.save({"inputs": [inputs[0]], "outputs": [expected]}, io_path)
    status, facts = _serve(harness, package, io_path)
    assert status == 1 and facts["identical"] is False, facts
