"""A break inside a loop costs the whole function: Dynamo cannot resume inside a loop, gives up the
frame and runs it eagerly (GB7000). graphmend says so in the message of such a site. Here each kind
of break graphmend reports sits in a loop's body, where torch.compile must then give no graph at all,
and in the places that are not the loop's body (a `for`'s iterable, a `while`'s test, a loop's `else`,
after the loop), where it still compiles graphs; the message notes the loop exactly for the first.
The body of a `try` is the same (Python 3.11; not its `finally`)."""
from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap
import warnings

import pytest
import torch
import torch._dynamo

PROGRAM = textwrap.dedent('''
    import logging
    import warnings

    import torch

    logger = logging.getLogger(__name__)


    @torch.compile
    def branch(x, ys):
        a = x * 2
        for y in ys:
            if y.sum() > 0:
                a = a + 1
        return a


    @torch.compile
    def truthiness(x, ys):
        a = x * 2
        for y in ys:
            if y.sum():
                a = a + 1
        return a


    @torch.compile
    def prints(x, ys):
        a = x * 2
        for y in ys:
            print("adding", y.shape)
            a = a + y.sum()
        return a


    @torch.compile
    def logs(x, ys):
        a = x * 2
        for y in ys:
            logger.warning("adding %s", y.shape)
            a = a + y.sum()
        return a


    @torch.compile
    def warns(x, ys):
        a = x * 2
        for y in ys:
            warnings.warn("adding")
            a = a + y.sum()
        return a


    @torch.compile
    def guard(x, ys):
        a = x * 2
        for y in ys:
            if (y > 5).any():
                raise ValueError("too large")
            a = a + y.sum()
        return a


    @torch.compile
    def item(x, ys):
        a = x * 2
        for y in ys:
            a = a + y.sum().item()
        return a


    @torch.compile
    def tolist(x, ys):
        a = x * 2
        for y in ys:
            a = a + sum(y.tolist())
        return a


    @torch.compile
    def to_int(x, ys):
        a = x * 2
        for y in ys:
            a = a + int(y.sum())
        return a


    @torch.compile
    def nonzero(x, ys):
        a = x * 2
        for y in ys:
            a = a + torch.nonzero(y).sum()
        return a


    @torch.compiler.disable
    def eager_only(y):
        return y * 2


    @torch.compile
    def disabled_call(x, ys):
        a = x * 2
        for y in ys:
            a = a + eager_only(y).sum()
        return a


    @torch.compile
    def untraceable(x, ys):
        a = x * 2
        for y in ys:
            a = a + len(repr(torch.as_tensor(y)))
        return a


    @torch.compile
    def slice_bound(x, ys):
        a = x * 2
        i = 0
        while i < 2:
            a = a + x[: (ys[i] > 0).sum()].sum()
            i += 1
        return a


    @torch.compile
    def in_iterable(x, ys):
        a = x * 2
        for v in torch.nonzero(x > 0):
            a = a + v.sum()
        return a


    @torch.compile
    def in_while_test(x, ys):
        a = x * 2
        while a.sum() > 0:
            a = a - 1
        return a


    @torch.compile
    def in_else(x, ys):
        a = x * 2
        for y in ys:
            a = a + 1
        else:
            if a.sum() > 0:
                a = a * 2
        return a


    @torch.compile
    def in_try(x, ys):
        a = x * 2
        try:
            print("adding", ys[0].shape)
            a = a + ys[0].sum()
        finally:
            a = a - 1
        return a


    @torch.compile
    def in_try_except(x, ys):
        a = x * 2
        try:
            if ys[0].sum() > 0:
                a = a + 1
        except ValueError:
            a = a - 1
        return a


    @torch.compile
    def in_finally(x, ys):
        a = x * 2
        try:
            a = a + 1
        finally:
            if a.sum() > 0:
                a = a * 2
        return a


    @torch.compile
    def after_loop(x, ys):
        a = x * 2
        for y in ys:
            a = a + y.sum()
        if a.sum() > 0:
            a = a * 2
        return a
''')

IN_LOOP = {"branch", "truthiness", "prints", "logs", "warns", "guard", "item", "tolist", "to_int", "nonzero",
           "disabled_call", "untraceable", "slice_bound"}
IN_TRY = {"in_try", "in_try_except"}
NOT_IN_LOOP = {"in_iterable", "in_while_test", "in_else", "in_finally", "after_loop"}


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    folder = tmp_path_factory.mktemp("loops")
    path = folder / "loops_program.py"
    path.write_text(PROGRAM)
    found = subprocess.run([os.environ["GRAPHMEND_BIN"], "check", "--no-cache", "--output-format", "json", path],
                           capture_output=True, text=True, check=False)
    assert found.returncode in (0, 1), found.stderr
    diagnostics = json.loads(found.stdout)["diagnostics"]
    sys.path.insert(0, str(folder))
    try:
        import loops_program
    finally:
        sys.path.remove(str(folder))
    return loops_program, diagnostics


@pytest.mark.parametrize("name", sorted(IN_LOOP | IN_TRY | NOT_IN_LOOP))
def test_a_site_in_a_loop_costs_the_whole_function_and_says_so(program, name):
    module, diagnostics = program
    mine = [d for d in diagnostics if d["function"] == name]
    assert mine, f"graphmend reports no site in {name}"
    noted = [d for d in mine if "GB7000" in d["message"]]
    graphs = []
    torch._dynamo.reset()
    compiled = torch.compile(getattr(module, name)._torchdynamo_orig_callable,
                             backend=lambda gm, example: graphs.append(gm) or gm.forward, dynamic=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled(torch.tensor([1.0, 2.0, 3.0]), [torch.tensor([1.0, 2.0, 3.0]), -torch.ones(3)])
    if name in IN_LOOP:
        assert graphs == [], f"{name}: Dynamo compiled {len(graphs)} graphs"
        assert noted == mine, [d["message"] for d in mine]
        loop_line = next(i for i, line in enumerate(PROGRAM.splitlines(), 1)
                         if line.startswith(f"def {name}(")) + 2 + (name == "slice_bound")
        assert (f"in the loop at line {loop_line} this makes Dynamo skip `{name}`: its own code runs eagerly"
                in noted[0]["message"])
    elif name in IN_TRY:
        assert graphs == [], f"{name}: Dynamo compiled {len(graphs)} graphs"
        try_line = next(i for i, line in enumerate(PROGRAM.splitlines(), 1) if line.startswith(f"def {name}(")) + 2
        assert all(f"in the body of the `try` at line {try_line} Dynamo cannot resume, and skips `{name}`: its own "
                   "code runs eagerly" in d["message"] for d in mine), [d["message"] for d in mine]
    else:
        assert graphs, f"{name}: no graph"
        assert noted == [], [d["message"] for d in noted]
        assert not any("`try`" in d["message"] for d in mine), [d["message"] for d in mine]
