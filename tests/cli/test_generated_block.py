"""The generated block `fix` maintains in a patched module: the runtime binding line and, after it,
the module's site helpers. When the block is damaged (a bad merge repeats it, a hand edit alters the
binding line, graphmend's older marker lines do not pair up), graphmend says so, leaves the block
and the file as they are, and declines the fixes that would need the block."""

import ast
import re

from conftest import MODEL

BEGIN = "# graphmend: begin generated code (`graphmend fix` maintains it; do not edit)\n"
END = "# graphmend: end generated code\n"


def block_span(text):
    """(start, end) of the block: from the binding line to the end of the last helper after it."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    offset = [0]
    for line in lines:
        offset.append(offset[-1] + len(line))
    nodes = iter(tree.body)
    for node in nodes:
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "_graphmend":
            start = end = node
            break
    for node in nodes:
        if not (isinstance(node, ast.FunctionDef) and node.name.startswith("_graphmend_")):
            break
        end = node
    return offset[start.lineno - 1], offset[end.end_lineno]


def patched_with_damaged_block(gm, project):
    """pkg/model.py patched by `fix`, then merged so that its block appears twice, with a new print
    site in forward."""
    model = project / "pkg" / "model.py"
    r = gm("fix", "pkg", cwd=project)
    assert r.returncode == 0, r.stdout + r.stderr
    text = model.read_text()
    assert re.search(r"def _graphmend_raise_[0-9a-f]{6}\(", text) and BEGIN not in text and END not in text
    begin, end = block_span(text)
    text = text[:end] + "\n\n" + text[begin:end] + text[end:]
    text = text.replace("        return x * 2\n", '        print("again")\n        return x * 2\n')
    model.write_text(text)
    return model, text


def test_a_damaged_block_is_reported_and_the_file_left_alone(gm, project):
    model, damaged = patched_with_damaged_block(gm, project)
    line = damaged[: damaged.index(BINDING)].count("\n") + 1
    expected = (
        f"warning: pkg/model.py:{line}: graphmend's generated block is damaged "
        "(the runtime binding line appears 2 times, where one belongs)"
    )

    check = gm("check", "pkg", cwd=project)
    assert check.returncode == 1, check.stdout + check.stderr
    assert expected in check.stderr
    # The new print is still reported, and its fix is declined with the reason.
    assert "GM201" in check.stdout
    assert "generated block in this module is damaged" in check.stdout

    for _ in range(2):  # and again: a second run must not cut anything either
        fix = gm("fix", "pkg", cwd=project)
        assert expected in fix.stderr
        assert model.read_text() == damaged


def test_once_the_block_is_whole_again_fix_resumes(gm, project):
    model, damaged = patched_with_damaged_block(gm, project)
    # The user deletes the second copy of the block.
    first = damaged.index(BINDING)
    second = damaged.index(BINDING, first + 1)
    begin, end = block_span(damaged[:first] + damaged[second:])
    model.write_text(damaged[:first] + damaged[second:])

    r = gm("fix", "pkg", cwd=project)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "damaged" not in r.stderr
    text = model.read_text()
    assert text.count(BINDING) == 1 and len(re.findall(r"def _graphmend_raise_[0-9a-f]{6}\(", text)) == 1
    # The new print is fixed: called through the compile-time choice, not directly.
    assert '("again")' in text and 'print("again")' not in text
    compile(text, "model.py", "exec")


def test_markers_in_an_unpatched_file_only_warn(gm, tmp_path):
    (tmp_path / "m.py").write_text(END + MODEL)
    r = gm("check", "m.py", cwd=tmp_path)
    assert "warning: m.py:1: graphmend's generated block is damaged (it has 0 begin and 1 end markers" in r.stderr


# A module that needs the runtime but no helper of its own gets the binding line alone: its diff is
# that line. Its helpers follow it when one arrives, and go when the helper's site goes.
LOGGING_MODEL = '''import logging

import torch

logger = logging.getLogger(__name__)


class Model(torch.nn.Module):
    def forward(self, x):
        logger.warning("constant message")
        return x * 2
'''
BINDING = '_graphmend = __import__("_graphmend_runtime", globals(), level=1).bind(globals())\n'


def test_a_module_without_helpers_gets_one_binding_line(gm, project):
    model = project / "pkg" / "model.py"
    model.write_text(LOGGING_MODEL)
    r = gm("fix", "pkg", cwd=project)
    assert r.returncode == 0, r.stdout + r.stderr
    text = model.read_text()
    assert BEGIN not in text and END not in text
    called = LOGGING_MODEL.replace('logger.warning("', '_graphmend.call(logger).warning("')
    # One line added, joining the statements after the imports, as a maintainer would add it.
    assert text == called.replace("logger = logging", BINDING + "logger = logging", 1)
    assert gm("fix", "pkg", cwd=project).returncode == 0  # nothing left to do, nothing changes
    assert model.read_text() == text


def test_before_a_definition_the_binding_line_stands_apart(gm, project):
    model = project / "pkg" / "model.py"
    source = LOGGING_MODEL.replace("logger = logging.getLogger(__name__)\n\n\n", "\n")
    model.write_text(source.replace('logger.warning("', 'logging.warning("'))
    assert gm("fix", "pkg", cwd=project).returncode == 0
    assert model.read_text().startswith("import logging\n\nimport torch\n\n" + BINDING + "\n\nclass Model")


def test_the_binding_line_grows_into_a_block_and_back(gm, project):
    model = project / "pkg" / "model.py"
    model.write_text(LOGGING_MODEL)
    assert gm("fix", "pkg", cwd=project).returncode == 0
    one_line = model.read_text()

    # A guard that needs a helper of its own: the helper follows the binding line, with the blank
    # lines a formatter puts around a function, and no marker lines.
    guard = '        if x.sum() > 0:\n            raise ValueError(f"positive input of shape {x.shape}")\n'
    model.write_text(one_line.replace("        return x * 2\n", guard + "        return x * 2\n"))
    assert gm("fix", "pkg", cwd=project).returncode == 0
    with_helper = model.read_text()
    assert BEGIN not in with_helper and END not in with_helper and with_helper.count(BINDING) == 1
    assert re.search(re.escape(BINDING) + r"\n\ndef _graphmend_raise_[0-9a-f]{6}\(a0\):\n", with_helper)
    assert "\n\n\nlogger = logging.getLogger(__name__)\n" in with_helper
    assert gm("fix", "pkg", cwd=project).returncode == 0 and model.read_text() == with_helper

    # The guard goes: so does its helper, and the block is the binding line again.
    start = with_helper.index('        _graphmend.call(logger).warning("constant message")\n')
    start = with_helper.index("\n", start) + 1
    model.write_text(with_helper[:start] + with_helper[with_helper.index("        return x * 2\n") :])
    assert gm("fix", "pkg", cwd=project).returncode == 0
    assert model.read_text() == one_line

    # The logger call goes too: nothing uses the runtime, and the file is the original again.
    model.write_text(one_line.replace('        _graphmend.call(logger).warning("constant message")\n', ""))
    assert gm("fix", "pkg", cwd=project).returncode == 0
    assert model.read_text() == LOGGING_MODEL.replace('        logger.warning("constant message")\n', "")


def test_a_repeated_or_altered_binding_line_is_damage(gm, project):
    model = project / "pkg" / "model.py"
    model.write_text(LOGGING_MODEL)
    assert gm("fix", "pkg", cwd=project).returncode == 0
    one_line = model.read_text()
    line = one_line[: one_line.index(BINDING)].count("\n") + 1
    for damaged, why in [
        (one_line.replace(BINDING, BINDING + BINDING), "the runtime binding line appears 2 times, where one belongs"),
        (one_line.replace(BINDING, BINDING.replace("bind(globals())", "bind(vars())")),
         "the runtime binding line was altered"),
    ]:
        damaged = damaged.replace("        return x * 2\n", '        print("again")\n        return x * 2\n')
        model.write_text(damaged)
        r = gm("fix", "pkg", cwd=project)
        assert f"warning: pkg/model.py:{line}: graphmend's generated block is damaged ({why})" in r.stderr
        assert model.read_text() == damaged  # left alone; the new print's fix is declined


def test_a_line_added_to_a_helper_stays_with_it(gm, project):
    """An indented line right after the last helper is part of its body (the fuzzer's find, once
    with markers): `fix` keeps the helper as it is and cuts nothing, on every run."""
    model = project / "pkg" / "model.py"
    assert gm("fix", "pkg", cwd=project).returncode == 0
    text = model.read_text()
    _begin, end = block_span(text)
    edited = text[:end] + "    _graphmend_stray = 1\n" + text[end:]
    edited = edited.replace("        return x * 2\n", '        print("again")\n        return x * 2\n')
    model.write_text(edited)
    for _ in range(2):
        r = gm("fix", "pkg", cwd=project)
        assert r.returncode == 0, r.stdout + r.stderr
        fixed = model.read_text()
        assert "    _graphmend_stray = 1\n" in fixed and 'print("again")' not in fixed
        compile(fixed, "model.py", "exec")


def test_a_binding_line_in_a_docstring_is_not_a_block(gm, tmp_path):
    (tmp_path / "m.py").write_text('"""Patched modules begin with\n' + BINDING + '"""\n' + MODEL)
    r = gm("check", "m.py", cwd=tmp_path)
    assert "warning: m.py:2: graphmend's generated block is damaged (one of its lines lies inside a string" in r.stderr


def test_a_marked_block_holding_only_the_binding_becomes_the_line(gm, project):
    """graphmend before this form marked every block; the next `fix` leaves the binding alone."""
    model = project / "pkg" / "model.py"
    model.write_text(LOGGING_MODEL)
    assert gm("fix", "pkg", cwd=project).returncode == 0
    one_line = model.read_text()
    model.write_text(one_line.replace(BINDING, BEGIN + BINDING + END))
    r = gm("fix", "pkg", cwd=project)
    assert r.returncode == 0, r.stdout + r.stderr
    assert model.read_text() == one_line
