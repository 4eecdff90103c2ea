"""What a [Where] or [Trap] fix leaves in the diff: the rewritten `if` keeps every line where it was,
byte for byte, except its `if`, which becomes `elif`; everything else the fix adds is new lines
before it. A module patched in an earlier form is still recognised: `check` reports nothing there
and `fix` leaves it. The forms: the `if` moved in behind the gate, [Where]'s fallback a second
copy; and the gate on when the original runs, whose first branch only cleared the flag (before
the flag was cleared ahead of a gate on when the selection runs)."""

import difflib

import pytest

SITES = '''import torch


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        h = x * 2
        # the branch
        if (h.sum() > 0 and  # a tensor test
                h.mean() < 10):
            y = h + 1  # up
        elif h.mean() < -1:
            y = h - 1
        else:
            y = -h
        if (y < -5).any():
            raise ValueError("too small")
        return y
'''

EARLIER_FORM = '''import torch

_graphmend = __import__("_graphmend_runtime", globals(), level=1).bind(globals())


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        h = x * 2
        if not _graphmend.compiling() or _graphmend.torch.is_grad_enabled():
            if h.sum() > 0:
                y = h + 1
            else:
                y = h - 1
        else:
            _graphmend_c = (h.sum() > 0)
            _graphmend_v0_0 = h + 1
            _graphmend_v1_0 = h - 1
            if _graphmend.selectable(_graphmend_c, (_graphmend_v0_0, _graphmend_v1_0)):
                y = _graphmend.where(_graphmend_c, _graphmend_v0_0, _graphmend_v1_0)
            else:
                if h.sum() > 0:
                    y = h + 1
                else:
                    y = h - 1
        return y
'''

GATE_ON_THE_ORIGINAL_FORM = '''import torch

_graphmend = __import__("_graphmend_runtime", globals(), level=1).bind(globals())


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        h = x * 2
        if not _graphmend.compiling() or _graphmend.torch.is_grad_enabled():
            _graphmend_done = False
        else:
            _graphmend_c = (h.sum() > 0)
            _graphmend_v0_0 = h + 1
            _graphmend_v1_0 = h - 1
            _graphmend_done = _graphmend.selectable(
                _graphmend_c, (_graphmend_v0_0, _graphmend_v1_0)
            )
            if _graphmend_done:
                y = _graphmend.where(_graphmend_c, _graphmend_v0_0, _graphmend_v1_0)
        if _graphmend_done:
            pass
        elif h.sum() > 0:
            y = h + 1
        else:
            y = h - 1
        return y
'''


def changed_lines(before: str, after: str):
    """(removed, added) line pairs of every change that is not a pure insertion."""
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            out.append((a[i1:i2], b[j1:j2]))
    return out


def package_module(root, text):
    """pkg/model.py holding `text`, in a package (so the runtime is a file of its own)."""
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    model = root / "pkg" / "model.py"
    model.write_text(text)
    return model


def test_a_rewritten_if_keeps_its_lines_and_only_its_keyword_changes(gm, tmp_path):
    model = package_module(tmp_path, SITES)
    r = gm("fix", "pkg", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    # The chain's two arms and the guard; the summary counts what the fixes leave.
    assert "applied 3 fixes: no graph-break sites left" in r.stdout, r.stdout
    after = model.read_text()

    # Every change is an insertion, except the two `if` lines, now `elif` with the same text.
    changes = changed_lines(SITES, after)
    assert len(changes) == 2, changes
    for removed, added in changes:
        assert len(removed) == 1
        assert added[-1] == removed[0].replace("if ", "elif ", 1), (removed, added)
    # The [Where] fallback is that one copy: the branch's lines occur once in the patched file.
    for line in ("            y = h + 1  # up\n", "            y = -h\n", '            raise ValueError("too small")\n'):
        assert after.count(line) == 1, line
    # A second run changes nothing and reports nothing.
    again = gm("fix", "pkg", cwd=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "no graph-break sites found" in again.stdout, again.stdout
    assert model.read_text() == after


@pytest.mark.parametrize(
    "form", [EARLIER_FORM, GATE_ON_THE_ORIGINAL_FORM], ids=["if-moved-in", "gate-on-the-original"]
)
def test_a_module_patched_in_an_earlier_form_is_left_as_it_is(gm, tmp_path, form):
    model = package_module(tmp_path, form)
    # No runtime file beside it: GM904 says so (tests/cli/test_project_style.py); not the point here.
    check = gm("check", "--ignore", "GM904", "pkg", cwd=tmp_path)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "no graph-break sites" in check.stdout
    r = gm("fix", "pkg", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert model.read_text() == form
