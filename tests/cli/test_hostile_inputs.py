"""Inputs hostile testing found graphmend mishandling (issue 45, defects 6 to 8), each checked as a
user meets it: the exit code, what is written and what is reported."""
from __future__ import annotations

import importlib
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import xml.dom.minidom

import pytest

PRINTING = "import torch\n\n\n@torch.compile\ndef f(x):\n    print(x)\n    return x\n"


def _compiles(data: bytes) -> bool:
    try:
        compile(data, "<fixed>", "exec")
    except SyntaxError:
        return False
    return True


@pytest.mark.parametrize(
    "head",
    [b"# coding: klingon\n", b"# coding: utf-16\n", b"\xef\xbb\xbf# coding: latin-1\n", b"# -*- coding: rot13 -*-\n",
     b"# coding: utf-7\n", b"# coding: cp037\n"],
    ids=["unknown", "utf-16", "bom-with-latin-1", "not-a-text-codec", "utf-7", "ebcdic"],
)
def test_an_encoding_cpython_rejects_or_reads_otherwise_is_never_rewritten(gm, tmp_path, head):
    """CPython's codec rules decide: such a file is reported as unreadable (exit 2), unchanged."""
    path = tmp_path / "m.py"
    data = head + PRINTING.encode()
    path.write_bytes(data)
    out = gm("fix", path)
    assert out.returncode == 2, out.stdout + out.stderr
    assert "encoding" in out.stderr
    assert path.read_bytes() == data


@pytest.mark.parametrize("head", [b"# coding: latin-1\n", b"# vim: set fileencoding=cp1252 :\n", b"# coding: ascii\n"])
def test_an_ascii_file_declaring_an_ascii_compatible_codec_is_fixed(gm, tmp_path, head):
    path = tmp_path / "m.py"
    path.write_bytes(head + PRINTING.encode())
    out = gm("fix", path)
    assert out.returncode == 0, out.stdout + out.stderr
    fixed = path.read_bytes()
    assert fixed.startswith(head) and _compiles(fixed)


def test_a_package_folder_with_a_dot_binds_the_runtime_from_its_root(gm, tmp_path):
    """`pk.v2/sub/m.py`: the runtime lies at `pk.v2/`, two package levels up from `m`."""
    root = tmp_path / "pk.v2"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "sub" / "__init__.py").write_text("")
    (root / "sub" / "m.py").write_text(PRINTING)
    out = gm("fix", root / "sub" / "m.py")
    assert out.returncode == 0, out.stdout + out.stderr
    assert (root / "_graphmend_runtime.py").exists()
    # A dotted folder imports under any package name a loader gives it; `m` must import there.
    script = (
        "import importlib.util, sys\n"
        f"spec = importlib.util.spec_from_file_location('pkv2', {str(root / '__init__.py')!r},"
        f" submodule_search_locations=[{str(root)!r}])\n"
        "pkg = importlib.util.module_from_spec(spec); sys.modules['pkv2'] = pkg; spec.loader.exec_module(pkg)\n"
        "import pkv2.sub.m as m\n"
        "import torch\n"
        "print(m.f.__wrapped__(torch.ones(2)) if hasattr(m.f, '__wrapped__') else 'ok')\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


@pytest.fixture
def odd_name(tmp_path):
    folder = tmp_path / "odd"
    folder.mkdir()
    (folder / os.fsdecode(b"b\xffd\x01.py")).write_text(PRINTING)
    return folder


@pytest.mark.parametrize("fmt", ["json", "json-lines", "gitlab", "sarif", "junit", "github"])
@pytest.mark.parametrize("command", ["check", "fix"])
def test_every_machine_format_takes_any_byte_in_a_file_name(gm, tmp_path, odd_name, fmt, command):
    """A file name that is not UTF-8 (and holds a control character): the report is valid for
    its format, and a `fix` that wrote the file still exits as it should."""
    out = gm(command, "--output-format", fmt, odd_name)
    assert out.returncode in (0, 1), out.stderr
    assert "internal error" not in out.stderr
    if fmt in ("json", "gitlab", "sarif"):
        json.loads(out.stdout)
    elif fmt == "json-lines":
        for line in out.stdout.splitlines():
            json.loads(line)
    elif fmt == "junit":
        xml.dom.minidom.parseString(out.stdout.encode())
    else:
        out.stdout.encode("utf-8")
    if command == "fix":
        fixed = next(odd_name.iterdir()).read_bytes()
        assert _compiles(fixed) and b"print" in fixed


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("runuser") is None, reason="needs root to run as nobody")
def test_an_unreadable_folder_is_an_input_error(graphmend_bin):
    # Outside pytest's own (private) temporary folder, so that `nobody` reaches the tree.
    tree = pathlib.Path(tempfile.mkdtemp(prefix="graphmend-unreadable-"))
    (tree / "locked").mkdir()
    (tree / "locked" / "m.py").write_text(PRINTING)
    (tree / "open.py").write_text(PRINTING)
    os.chmod(tree, 0o755)
    os.chmod(tree / "locked", 0)
    try:
        out = subprocess.run(["runuser", "-u", "nobody", "--", graphmend_bin, "check", str(tree)], capture_output=True,
                             text=True)
    finally:
        os.chmod(tree / "locked", 0o755)
        shutil.rmtree(tree)
    assert out.returncode == 2, out.stdout + out.stderr
    assert "cannot read the folder" in out.stderr and "locked" in out.stderr
    assert "no graph-break sites found" not in out.stdout.replace("found in the files read", "")


def test_fix_of_standard_input_counts_the_fixes_it_prints(gm):
    out = gm("fix", "-", stdin=PRINTING)
    assert out.returncode == 0
    assert _compiles(out.stdout.encode())
    assert "applied 1 fix" in out.stderr


def test_a_nested_same_quote_f_string_is_carried_as_one_value(gm, tmp_path):
    """PEP 701 (3.12): `f"{f"{x}"}"`; the inner f-string is one hole, not a field of the outer."""
    path = tmp_path / "m.py"
    path.write_text('import torch\n\n\n@torch.compile\ndef f(x):\n    print(f"{f"{x}"}")\n    return x\n')
    out = gm("fix", path)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "reverted" not in out.stderr
    assert 'print(f"{f"{x}"}")' in path.read_text()


def test_a_file_mixing_lone_cr_with_lf_is_analysed_and_keeps_its_line_breaks(gm, tmp_path):
    """CPython reads a lone CR as a line break: the site is found, and the fixed file keeps every
    lone CR outside the rewritten statement."""
    path = tmp_path / "m.py"
    data = b"import torch\r\n\n@torch.compile\rdef f(x):\n    print(x)\r    return x\n"
    path.write_bytes(data)
    assert _compiles(data)
    out = gm("fix", path)
    assert out.returncode == 0, out.stdout + out.stderr
    fixed = path.read_bytes()
    assert _compiles(fixed)
    assert b"@torch.compile\rdef f(x):\n" in fixed


def test_indentation_past_the_parsers_reach_is_reported_for_what_it_is(gm, tmp_path):
    """More than 63 nested blocks (over 255 columns) parse in CPython; graphmend's parser cannot
    read them, so it says so (GM902), not that the file has a syntax error (GM901)."""
    lines = ["import torch", "", "", "@torch.compile", "def f(x):"]
    indent = "    "
    for i in range(70):
        lines.append(f"{indent}if x.shape[0] > {i}:")
        indent += "    "
    lines += [f"{indent}print(x)", "    return x", ""]
    path = tmp_path / "m.py"
    path.write_text("\n".join(lines))
    assert _compiles(path.read_bytes())
    out = gm("check", "--output-format", "concise", path)
    assert "GM902" in out.stdout and "GM901" not in out.stdout


def test_a_long_elif_chain_is_written_flat(gm, tmp_path):
    """Nesting is independent of the chain's length: CPython rejects more than 200 nested brackets."""
    lines = ["import torch", "", "", "@torch.compile", "def f(x: torch.Tensor):"]
    for i in range(250):
        lines += [f"    {'if' if i == 0 else 'elif'} x.sum() > {i}:", f"        y = x * {i}"]
    lines += ["    else:", "        y = -x", "    return y", ""]
    path = tmp_path / "m.py"
    path.write_text("\n".join(lines))
    gm("fix", path)
    text = path.read_text()
    assert _compiles(text.encode())
    assert max(line.count("(") for line in text.splitlines()) < 10
