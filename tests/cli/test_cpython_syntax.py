"""CPython decides what is Python: a file CPython rejects is reported (GM901) and never rewritten;
a file it accepts is analysed, and whatever graphmend writes compiles with CPython too."""

import random

import pytest

from conftest import MODEL

REJECTED = {
    "tab_after_spaces.py": "import torch\n\n@torch.compile\ndef f(x):\n    if x > 0:\n\tprint(x)\n    return x\n",
    "unindent_mismatch.py": "import torch\n\n@torch.compile\ndef f(x):\n        print(x)\n    return x\n",
    "dedent_to_nowhere.py": "import torch\n\n@torch.compile\ndef f(x):\n    print(x)\n  return x\n",
    "continuation_at_eof.py": "import torch\n\n@torch.compile\ndef f(x):\n    print(x)\n    return x \\\n",
    "else_misaligned.py": "import torch\n\n@torch.compile\ndef f(x):\n    if x:\n        print(x)\n      else:\n        pass\n    return x\n",
    "fstring_nested_too_deeply.py": "import torch\n\n@torch.compile\ndef f(x, w=8, p=2):\n    print(f'{x:{w:{p}}}')\n    return x\n",
    "fstring_brace_in_nested_spec.py": "import torch\n\n@torch.compile\ndef f(x, w=8):\n    print(f'{x:{w:{{}}}}')\n    return x\n",
    # Found by the fuzzer: tree-sitter skips a vertical tab as whitespace, CPython rejects it.
    "vertical_tab_in_code.py": "import torch\n\n@torch.compile\ndef f(x):\n    if (x > 0).any():\x0b\n        print(x)\n    return x\n",
    # Found by the fuzzer: a format spec running onto the next line, in a single-quoted f-string.
    "fstring_spec_line_break.py": "import torch\n\n@torch.compile\ndef f(x):\n    print(f'{x:\n>8}')\n    return x\n",
    "control_char_in_fstring_field.py": "import torch\n\n@torch.compile\ndef f(x):\n    print(f'{x\x01}')\n    return x\n",
    # Found by the fuzzer: a second BOM (the first is the encoding's, the second is code). The
    # grammar skips U+FEFF, U+200B and U+2060 as whitespace, and Unicode spaces such as U+00A0;
    # CPython rejects each ("invalid non-printable character").
    "second_bom.py": "\ufeff\ufeffimport torch\n\n@torch.compile\ndef f(x):\n    print(x)\n    return x\n",
    "zero_width_space_in_code.py": "import torch\n\n@torch.compile\ndef f(x):\n    print(x)\u200b\n    return x\n",
    "word_joiner_in_code.py": "import torch\n\n@torch.compile\ndef f(x):\n    print(\u2060x)\n    return x\n",
    "no_break_space_in_code.py": "import torch\n\n@torch.compile\ndef f(x):\n    y = x\u00a0+ 1\n    print(y)\n    return y\n",
    "ideographic_space_in_fstring_field.py": "import torch\n\n@torch.compile\ndef f(x):\n    print(f'{x\u3000}')\n    return x\n",
}


def cpython_accepts(source: bytes) -> bool:
    try:
        compile(source, "m.py", "exec")
        return True
    except (SyntaxError, ValueError):
        return False


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_files_cpython_rejects_are_reported_and_left_alone(gm, tmp_path, name):
    source = REJECTED[name].encode()
    assert not cpython_accepts(source)
    (tmp_path / name).write_bytes(source)
    r = gm("fix", name, cwd=tmp_path)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "GM901" in r.stdout
    assert (tmp_path / name).read_bytes() == source


def test_control_characters_in_strings_and_comments_are_python(gm, tmp_path):
    source = "import torch\n\n@torch.compile\ndef f(x):  # a \x0b in a comment\n    print('\x0b\x01', x)\n    return x\n"
    assert cpython_accepts(source.encode())
    (tmp_path / "m.py").write_text(source)
    r = gm("check", "m.py", cwd=tmp_path)
    assert "GM901" not in r.stdout
    assert "GM201" in r.stdout


def test_unicode_spaces_in_strings_comments_and_format_specs_are_python(gm, tmp_path):
    source = ("\ufeffimport torch\n\n@torch.compile\ndef f(x):  # \u00a0\u200b\ufeff\u3000\n"
              "    print('\u00a0\\n\u200b', f'\u2060{x:\u00a0>8}\u00a0', x)\n    return x\n")
    assert cpython_accepts(source.encode())
    (tmp_path / "m.py").write_text(source)
    r = gm("check", "m.py", cwd=tmp_path)
    assert "GM901" not in r.stdout, r.stdout
    assert "GM201" in r.stdout


def test_a_line_break_in_a_triple_quoted_format_spec_is_python(gm, tmp_path):
    source = 'import torch\n\n@torch.compile\ndef f(x):\n    print(f"""{x:\n>8}""")\n    return x\n'
    (tmp_path / "m.py").write_text(source)
    r = gm("check", "m.py", cwd=tmp_path)
    assert "GM901" not in r.stdout


def test_tabs_used_consistently_are_python(gm, tmp_path):
    source = MODEL.replace("    ", "\t")
    assert cpython_accepts(source.encode())
    (tmp_path / "m.py").write_text(source)
    r = gm("fix", "m.py", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert cpython_accepts((tmp_path / "m.py").read_bytes())


def test_old_mac_line_endings_are_python_and_stay_so(gm, tmp_path):
    source = MODEL.replace("\n", "\r").encode()
    assert cpython_accepts(source)
    (tmp_path / "m.py").write_bytes(source)
    r = gm("fix", "m.py", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    fixed = (tmp_path / "m.py").read_bytes()
    assert b"\n" not in fixed and b"_graphmend" in fixed
    assert cpython_accepts(fixed)


def mutants(seed: int, count: int):
    """Small edits of a model file that break or keep its syntax: indentation, tabs, backslashes,
    brackets, colons, quotes, line endings."""
    rng = random.Random(seed)
    base = MODEL.splitlines(keepends=True)
    edits = [
        lambda s: "\t" + s, lambda s: " " + s, lambda s: s[1:], lambda s: s.replace("    ", "\t", 1),
        lambda s: s.rstrip("\n") + " \\\n", lambda s: s.replace(":", "", 1), lambda s: s.replace("(", "", 1),
        lambda s: s.replace('"', "", 1), lambda s: s.replace("\n", "\r"), lambda s: s.replace("\n", "\r\n"),
        lambda s: s + "  " + s, lambda s: "",
    ]
    for _ in range(count):
        lines = list(base)
        for _ in range(rng.randint(1, 3)):
            i = rng.randrange(len(lines))
            lines[i] = rng.choice(edits)(lines[i])
        yield "".join(lines).encode()


def test_mutants_cpython_rejects_are_never_rewritten(gm, tmp_path):
    rewritten = rejected = 0
    for n, source in enumerate(mutants(seed=2509, count=300)):
        path = tmp_path / f"m{n}.py"
        path.write_bytes(source)
    r = gm("fix", ".", cwd=tmp_path)
    assert r.returncode in (0, 1, 2), r.stderr
    for n, source in enumerate(mutants(seed=2509, count=300)):
        after = (tmp_path / f"m{n}.py").read_bytes()
        if not cpython_accepts(source):
            rejected += 1
            assert after == source, f"m{n}.py: CPython rejects it, graphmend rewrote it"
        elif after != source:
            rewritten += 1
            assert cpython_accepts(after), f"m{n}.py: the rewrite does not compile"
    assert rejected > 50 and rewritten > 50, (rejected, rewritten)


def test_a_field_nested_once_in_a_format_spec_is_python(gm, tmp_path):
    source = MODEL.replace('print("forward", x.shape)', 'print(f"{x.shape!s:>{len(x.shape) + 8}}")')
    assert cpython_accepts(source.encode())
    (tmp_path / "m.py").write_text(source)
    r = gm("fix", "m.py", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "_graphmend" in (tmp_path / "m.py").read_text()
    assert cpython_accepts((tmp_path / "m.py").read_bytes())


def test_control_characters_in_a_string_are_python_and_fixed(gm, tmp_path):
    # Found by the fuzzer (tests/fuzz/regressions): raw \x01 and \x02 bytes in an f-string message
    # were taken for the rewriter's own markers (an internal error, the file skipped).
    source = MODEL.replace('print("forward", x.shape)', 'print(f"\x01{x.shape}\x02 and \x01")')
    assert cpython_accepts(source.encode())
    (tmp_path / "m.py").write_text(source)
    r = gm("fix", "m.py", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    fixed = (tmp_path / "m.py").read_bytes()
    assert b"_graphmend" in fixed and cpython_accepts(fixed)


def test_a_nul_byte_anywhere_is_not_python(gm, tmp_path):
    # CPython rejects a NUL anywhere in a source file, not only in its first 8 KB.
    source = MODEL + "#" + "x" * 10_000 + "\n" + "s = '\0'\n"
    assert not cpython_accepts(source.encode())
    (tmp_path / "m.py").write_text(source)
    r = gm("fix", "m.py", cwd=tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "NUL" in r.stderr
    assert (tmp_path / "m.py").read_text() == source


def test_an_internal_error_in_one_file_shows_no_diff(gm, tmp_path):
    # A file whose processing fails is reported as it is on disk: `--diff` shows nothing for it
    # (it used to show every line deleted). The budget makes one file fail on purpose.
    big = "import torch\n\n@torch.compile\ndef f(x):\n" + "    y = 1\n" * 150_000 + "    print(y)\n    return x\n"
    (tmp_path / "big.py").write_text(big)
    r = gm("fix", "--diff", "--max-file-memory", "20", "big.py", cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert "---" not in r.stdout and "-    y = 1" not in r.stdout


def test_marker_lines_inside_a_string_are_text_not_a_block(gm, tmp_path):
    """Found by the fuzzer: a docstring holding graphmend's marker lines. Taken for the block, its
    text was rewritten (the string's value changed) and a second fix changed it again; now the
    block counts as damaged, the file is left as it is and the fixes that need the block decline."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    source = (
        'import torch\n\n"""Notes:\n'
        "# graphmend: begin generated code (`graphmend fix` maintains it; do not edit)\n"
        "x = 1\n"
        "# graphmend: end generated code\n"
        '"""\n\n\n@torch.compile\ndef f(x):\n    print("value", x)\n    return x\n'
    )
    (pkg / "m.py").write_text(source)
    r = gm("fix", "pkg/m.py", cwd=tmp_path)
    assert (pkg / "m.py").read_text() == source, r.stdout
    assert "inside a string" in r.stdout + r.stderr
    assert r.returncode == 1
