"""What `graphmend fix` leaves in a package, run on real torch: one runtime file at the package
root, a one-line binding per module, nothing imported at import time that the original did not
import (a helper module that never imports torch still imports without torch), and the fixes
work whichever module is imported first."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import textwrap

import pytest

HELPERS = '''\
"""Helpers without torch: called from a compiled forward in another module."""


def describe(x):
    print("shape", tuple(x.shape))
    return x
'''

MODEL = '''\
import torch

from .helpers import describe


class Model(torch.nn.Module):
    def forward(self, x):
        y = describe(x * 2)
        print("sum", y.sum())
        return y + 1
'''

# Importing torch fails, as on a machine without it.
NO_TORCH = textwrap.dedent('''
    import sys

    class Blocker:
        def find_spec(self, name, path=None, target=None):
            if name == "torch" or name.startswith("torch."):
                raise ImportError("torch is not installed here")

    sys.meta_path.insert(0, Blocker())
''')


@pytest.fixture(scope="module")
def package(graphmend_bin, tmp_path_factory):
    root = tmp_path_factory.mktemp("emission")
    pkg = root / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "helpers.py").write_text(HELPERS)
    (pkg / "model.py").write_text(MODEL)
    out = subprocess.run([graphmend_bin, "fix", str(pkg)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    return root


def run(root: pathlib.Path, code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)


def test_one_runtime_file_and_one_binding_line(package):
    pkg = package / "pkg"
    assert (pkg / "_graphmend_runtime.py").is_file()
    for name in ("helpers.py", "model.py"):
        text = (pkg / name).read_text()
        assert text.count('__import__("_graphmend_runtime", globals(), level=1).bind(globals())') == 1
        assert "custom_op" not in text and "import torch as" not in text
    assert "import torch" not in (pkg / "helpers.py").read_text()


def test_patched_helper_imports_and_runs_without_torch(package):
    done = run(package, NO_TORCH + textwrap.dedent('''
        import pkg.helpers

        class Shaped:
            shape = (2, 3)

        assert pkg.helpers.describe(Shaped()).shape == (2, 3)
        assert not any(m == "torch" or m.startswith("torch.") for m in sys.modules), "torch was imported"
        print("ok")
    '''))
    assert done.stdout.splitlines() == ["shape (2, 3)", "ok"], done.stderr


@pytest.mark.parametrize("first", ["pkg.model", "pkg.helpers"])
def test_compiled_forward_has_one_graph_whichever_module_comes_first(package, first):
    # pkg.helpers first: it binds the runtime before torch is imported; the model's binding,
    # after torch, completes it, so the helper's print is in the graph too.
    done = run(package, textwrap.dedent(f'''
        import {first}
        import torch
        import pkg.model

        model = pkg.model.Model()
        x = torch.arange(6.0).reshape(2, 3)
        eager = model(x)
        compiled = torch.compile(model, fullgraph=True, backend="aot_eager")
        assert torch.equal(compiled(x), eager)
        print("done")
    '''))
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == [
        "shape (2, 3)", "sum tensor(30.)", "shape (2, 3)", "sum tensor(30.)", "done"
    ], done.stdout
