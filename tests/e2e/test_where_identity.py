"""[Where] and identity on real PyTorch (rules/GM101.md, "Kept values"): an else-less update keeps
the object the name held, where the selection is a new tensor.

- Proven (where/identity_forms.py, proven_cases): plain `graphmend fix`, with no flag, rewrites
  the site; the patched copy gives the original's results bit for bit, eager and compiled under
  torch.no_grad() on eager / aot_eager / inductor, with fullgraph=True, one graph per input shape
  and no recompile when the condition flips. The hooked LayerNorm case fails the runtime check,
  runs the original `if` and returns the very tensor the hook holds, as the original does.
- Not proven (unproven_cases): plain fix leaves the site, offering only an unsafe fix whose title
  says why; applied with --unsafe-fixes, the selection changes what the caller sees (an identity
  or an aliasing write), which is what the decline protects.
- Declined outright (declined_cases: an in-place update after the `if`, a user method with a side
  effect in the branch, a Python value among the candidates, a `continue` in a branch, a branch
  that may raise on its tensors' shapes): no fix, plain or unsafe, and both copies behave as the
  original (compiled too, for the shape cases).
- Fixed, but sent to the original at trace time (fallback_cases: int/float promotion, torch.finfo
  of an integer dtype) or by the grad gate (autograd through both arms): compiled results and
  gradients are the original's.
"""
from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

import pytest
import torch
import torch._dynamo
from torch._dynamo.utils import counters

import behaviour
from behaviour import same_result

FORMS = pathlib.Path(__file__).resolve().parent / "where" / "identity_forms.py"
BACKENDS = ["eager", "aot_eager", "inductor"]


def _fix(graphmend_bin, workdir: pathlib.Path, *flags: str):
    copy = workdir / FORMS.name
    shutil.copy(FORMS, copy)
    out = subprocess.run([graphmend_bin, "fix", *flags, "--output-format", "json", str(copy)],
                         capture_output=True, text=True)
    assert out.returncode in (0, 1), out.stderr
    return copy, json.loads(out.stdout)


@pytest.fixture(scope="module")
def modules(graphmend_bin, tmp_path_factory):
    safe_copy, _ = _fix(graphmend_bin, tmp_path_factory.mktemp("identity-safe"))
    check = subprocess.run([graphmend_bin, "check", "--output-format", "json", str(FORMS)], capture_output=True, text=True)
    safe_report = json.loads(check.stdout)
    unsafe_copy, _ = _fix(graphmend_bin, tmp_path_factory.mktemp("identity-unsafe"), "--unsafe-fixes")
    fixed = safe_copy.read_bytes()
    subprocess.run([graphmend_bin, "fix", str(safe_copy)], capture_output=True, text=True)
    assert safe_copy.read_bytes() == fixed, "a second fix must change nothing"
    return {
        "original": behaviour.import_path(FORMS, "identity_forms__original"),
        "safe": behaviour.import_path(safe_copy, "identity_forms__safe"),
        "unsafe": behaviour.import_path(unsafe_copy, "identity_forms__unsafe"),
        "report": safe_report,
    }


def _sites(report):
    """GM101 diagnostics of the plain fix, by the qualified name of their function."""
    return {d["function"]: d for d in report["diagnostics"] if d["code"] == "GM101"}


PROVEN = [name for name, *_ in behaviour.import_path(FORMS, "identity_forms__names").proven_cases()]
SELECTED = [name for name in PROVEN if "runtime check fails" not in name]
CHECK_FAILS = [name for name in PROVEN if "runtime check fails" in name]
UNPROVEN = [name for name, *_ in behaviour.import_path(FORMS, "identity_forms__names2").unproven_cases()]


def _proven(module, name):
    return next((m, inputs) for n, m, inputs in module.proven_cases() if n == name)


def _unproven(module, name):
    return next((m, x) for n, m, x in module.unproven_cases() if n == name)


def test_plain_fix_applies_every_proven_site_and_no_other(modules):
    sites = _sites(modules["report"])
    fixed = {f for f, d in sites.items() if d["fix"] and d["fix"]["applicability"] == "safe"}
    assert fixed == {"FreshArithmetic.forward", "LayerNormOverflowGuard.forward", "UnderStaticIf.forward",
                     "ConditionalNorm.forward", "OnesInitialised.forward", "ZerosLikeInitialised.forward",
                     "PromotionInBranch.forward", "GradThroughBothArms.forward", "FinfoOnAnyDtype.forward",
                     "TemporaryAssignedAgain.forward", "UserNormOverflowGuard.forward", "ResidualGuard.forward",
                     "ArgumentOnlyReadAfter.forward", "ArgumentReadByPureOps.forward",
                     "ArithmeticOnAnyDtype.forward", "NumberParameterGivenATensor.forward"}
    again = [d for d in modules["report"]["diagnostics"] if d["function"] == "TemporaryAssignedAgain.forward"]
    assert [d["fix"]["applicability"] for d in again] == ["safe", "safe"], "both guards, the first included"
    for name in UNPROVEN:
        module, _ = _unproven(modules["original"], name)
        site = sites[f"{type(module).__name__}.forward"]
        assert site["fix"]["applicability"] == "unsafe", name
        assert "the selected tensor is a new object" in site["fix"]["title"], site["fix"]["title"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", SELECTED)
def test_proven_selection_is_identical_without_breaks(modules, name, backend):
    original, inputs = _proven(modules["original"], name)
    patched, _ = _proven(modules["safe"], name)
    patched.load_state_dict(original.state_dict())
    with torch.no_grad():
        reference = [original(*args) for args in inputs]
        assert same_result([patched(*args) for args in inputs], reference)  # eager: the original code
        torch._dynamo.reset()
        counters.clear()
        compiled = torch.compile(patched, backend=backend, fullgraph=True)
        results = [compiled(*args) for args in inputs * 2]  # both paths, twice
    assert same_result(results, reference * 2, exact=backend != "inductor")
    shapes = {tuple((tuple(a.shape), a.dtype) for a in args) for args in inputs}
    assert counters["stats"]["unique_graphs"] == len(shapes), "no break, no recompile when the condition flips"


@pytest.mark.parametrize("name", CHECK_FAILS)
def test_a_hooked_or_replaced_module_still_gives_the_originals_values(modules, name):
    """A forward hook returns a tensor it holds, or the LayerNorm was replaced by nn.Identity after
    construction: what `__init__` made is what the proof takes the module for (rules/GM101.md,
    "Kept values"), so the selection returns a new tensor where the original returns the held
    one. The values are the original's, eager and compiled: only that identity differs."""
    original, inputs = _proven(modules["original"], name)
    patched, _ = _proven(modules["safe"], name)
    patched.load_state_dict(original.state_dict())
    with torch.no_grad():
        for args in inputs:
            assert same_result([patched(*args)], [original(*args)])
    torch._dynamo.reset()
    patched.compile(backend="aot_eager")
    with torch.no_grad():
        for args in inputs * 2:
            assert same_result([patched(*args)], [original(*args)])
        low = inputs[-1]
        assert original.observe(*low) == (True,), "the case returns the held object when the condition is false"


@pytest.mark.parametrize("name", UNPROVEN)
def test_unsafe_selection_changes_what_the_caller_sees(modules, name):
    original, x = _unproven(modules["original"], name)
    unsafe, _ = _unproven(modules["unsafe"], name)
    torch._dynamo.reset()
    unsafe.compile(backend="aot_eager")
    with torch.no_grad():
        assert same_result([unsafe(x)[0] if isinstance(unsafe(x), tuple) else unsafe(x)],
                           [original(x)[0] if isinstance(original(x), tuple) else original(x)])
        assert unsafe.observe(x) != original.observe(x)


DECLINED = [name for name, *_ in behaviour.import_path(FORMS, "identity_forms__names3").declined_cases()]
FALLBACK = [name for name, *_ in behaviour.import_path(FORMS, "identity_forms__names4").fallback_cases()]


@pytest.mark.parametrize("name", DECLINED)
def test_declined_sites_get_no_fix_and_the_patched_copy_behaves_the_same(modules, name):
    module = next(m for n, m, _ in modules["original"].declined_cases() if n == name)
    # The site is in forward, or in a function nested in it (`forward.<locals>.inner`).
    site = next(d for f, d in _sites(modules["report"]).items() if f.startswith(f"{type(module).__name__}.forward"))
    assert site["fix"] is None and site["decline_reason"], site
    for copy in ("safe", "unsafe"):
        _, patched, inputs = next(c for c in modules[copy].declined_cases() if c[0] == name)
        _, original, _ = next(c for c in modules["original"].declined_cases() if c[0] == name)
        with torch.no_grad():
            for args in inputs:
                mine = [a.clone() for a in args]
                theirs = [a.clone() for a in args]
                assert same_result([patched(*mine), *mine], [original(*theirs), *theirs])
        if name.startswith("a user method"):
            assert patched.calls == original.calls


def test_what_no_selection_expresses_is_declined_with_its_reason(modules):
    """A Python value among the candidates (`selectable` would reject it at every trace) or a
    `continue` in a branch: declined before anything else, with the reason that says so. A Python
    temporary is a candidate when some read after the `if` may see the branch's binding: a path
    that does not assign it again, a `del`, or a closure made before the `if` and called after."""
    sites = _sites(modules["report"])
    expected = {"PythonFlag.forward": "python-value-selected", "PythonNumberKept.forward": "python-value-selected",
                "ContinueInLoop.forward": "branch-decides-control",
                "TemporaryReadAfter.forward": "python-value-selected",
                "TemporaryDeletedAfter.forward": "python-value-selected",
                "TemporaryInClosure.forward": "python-value-selected"}
    assert {f: sites[f]["decline_code"] for f in expected} == expected
    assert "`skip` would be selected from the Python value `True`" in sites["PythonFlag.forward"]["decline_reason"]
    assert "`scale` would be selected from the Python value `1.0`" in sites["PythonNumberKept.forward"]["decline_reason"]


@pytest.mark.parametrize("name", [n for n in DECLINED if n.startswith("unbound")])
def test_a_name_that_may_be_unbound_at_the_if_is_never_read_by_a_selection(modules, name):
    """The selection reads the kept value and every branch's values on every path; the original
    reads them only on its own path. A name that some path leaves unbound (a conditional binding,
    a `del`) would raise UnboundLocalError in the selection where the original runs: declined with
    the reason that says so, and the compiled copy returns what the original does."""
    module = next(m for n, m, _ in modules["original"].declined_cases() if n == name)
    site = _sites(modules["report"])[f"{type(module).__name__}.forward"]
    assert site["decline_code"] in ("not-bound-before", "branch-reads-unbound"), site
    assert "may be unbound when the `if` starts" in site["decline_reason"], site
    for copy in ("safe", "unsafe"):
        _, patched, inputs = next(c for c in modules[copy].declined_cases() if c[0] == name)
        _, original, _ = next(c for c in modules["original"].declined_cases() if c[0] == name)
        torch._dynamo.reset()
        compiled = torch.compile(patched, backend="aot_eager")
        with torch.no_grad():
            for args in inputs:
                assert same_result([compiled(*args)], [original(*args)])


@pytest.mark.parametrize("name", [n for n in DECLINED if n.startswith("outer name")])
def test_a_branch_binding_a_global_or_nonlocal_name_is_declined(modules, name):
    """A name declared `global` or `nonlocal` outlives the function: a branch's binding of it is
    never a temporary the selection may compute on every path. Declined; compiled, the global
    and the result stay the original's when the branch is not taken."""
    module = next(m for n, m, _ in modules["original"].declined_cases() if n == name)
    site = _sites(modules["report"])
    site = next(d for f, d in site.items() if f.startswith(type(module).__name__ + ".forward"))
    assert site["decline_code"] == "binds-outer-name" and site["fix"] is None, site
    for copy in ("safe", "unsafe"):
        _, patched, inputs = next(c for c in modules[copy].declined_cases() if c[0] == name)
        _, original, _ = next(c for c in modules["original"].declined_cases() if c[0] == name)
        torch._dynamo.reset()
        compiled = torch.compile(patched, backend="aot_eager")
        for args in inputs:
            modules[copy].LAST_SCALE = torch.ones(2)
            modules["original"].LAST_SCALE = torch.ones(2)
            with torch.no_grad():
                assert same_result([compiled(*args)], [original(*args)])
            assert same_result([modules[copy].LAST_SCALE], [modules["original"].LAST_SCALE])


@pytest.mark.parametrize("name", [n for n in DECLINED if n.startswith("may raise on shapes")])
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_branch_that_may_raise_on_shapes_is_left_to_the_original(modules, name, backend):
    """Both branches of a selection run while Dynamo traces, and a shape error there is a
    TorchRuntimeError, not a break: where the original skips a branch that fails for the
    input's shapes, the site is declined, and compiled code returns what the original does."""
    module = next(m for n, m, _ in modules["original"].declined_cases() if n == name)
    site = _sites(modules["report"])[f"{type(module).__name__}.forward"]
    assert site["decline_code"] == "has-effect" and "may raise on" in site["decline_reason"], site
    for copy in ("safe", "unsafe"):
        _, patched, inputs = next(c for c in modules[copy].declined_cases() if c[0] == name)
        _, original, _ = next(c for c in modules["original"].declined_cases() if c[0] == name)
        torch._dynamo.reset()
        compiled = torch.compile(patched, backend=backend)
        with torch.no_grad():
            for args in inputs:
                assert same_result([compiled(*args)], [original(*args)])


@pytest.mark.parametrize("name", FALLBACK)
def test_fallbacks_give_the_original_result(modules, name):
    """Promotion fails `selectable` at trace time, an integer dtype the gate's check for
    torch.finfo; grad enabled runs the original:
    results (and gradients) are the original's, compiled."""
    original = next(m for n, m, _ in modules["original"].fallback_cases() if n == name)
    patched, inputs = next((m, i) for n, m, i in modules["safe"].fallback_cases() if n == name)
    site = _sites(modules["report"])[f"{type(original).__name__}.forward"]
    assert site["fix"] and site["fix"]["applicability"] == "safe", site
    torch._dynamo.reset()
    compiled = torch.compile(patched, backend="aot_eager")
    grad = name.startswith("autograd")
    for args in inputs:
        if grad:
            mine = [a.detach().clone().requires_grad_() for a in args]
            theirs = [a.detach().clone().requires_grad_() for a in args]
            y, ref = compiled(*mine), original(*theirs)
            y.sum().backward()
            ref.sum().backward()
            assert same_result([y.detach(), *[a.grad for a in mine]], [ref.detach(), *[a.grad for a in theirs]])
        else:
            with torch.no_grad():
                assert same_result([compiled(*args)], [original(*args)])

