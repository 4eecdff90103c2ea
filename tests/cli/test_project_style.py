"""`fix` writes in the project's own style (issue 47, item 3): the line length generated code
wraps at and the blank lines after the imports come from the project's ruff, black, isort or
setup.cfg settings, so that a file the project's `ruff check` (isort included) and
`ruff format --check` accepted before the fix, they accept after it."""

import pathlib
import re
import subprocess
import sys

import pytest

RUFF = pathlib.Path(sys.executable).parent / "ruff"

MODULE = '''import logging

import torch


logger = logging.getLogger(__name__)


class Model(torch.nn.Module):
    def forward(self, x: torch.Tensor):
        logger.warning("the input went through the first layer of this model, which warns about it")
        print(f"input of shape {x.shape} reached forward, which prints it before it returns a value")
        if x.sum() > 0:
            raise ValueError(
                f"this model expects a non-positive input, and the sum of this one, of shape {x.shape}, "
                "is positive: scale it down first"
            )
        return x * 2
'''

# Each way a project states the same style: line length 119, two blank lines after the imports.
STYLES = {
    "pyproject-ruff": ("pyproject.toml",
                       "[tool.ruff]\nline-length = 119\n\n[tool.ruff.lint.isort]\nlines-after-imports = 2\n"),
    "ruff.toml": ("ruff.toml", "line-length = 119\n\n[lint.isort]\nlines-after-imports = 2\n"),
    "ruff.toml-legacy-isort": ("ruff.toml", "line-length = 119\n\n[isort]\nlines-after-imports = 2\n"),
    "pyproject-black-isort": (
        "pyproject.toml",
        '[tool.black]\nline-length = 119\n\n[tool.isort]\nprofile = "black"\nlines_after_imports = 2\n',
    ),
    "setup.cfg": ("setup.cfg", "[isort]\nline_length = 119\nlines_after_imports = 2\n"),
}

BLOCK = r"(# graphmend: begin generated code[^\n]*\n)?_graphmend = "


def written_lines(text):
    """The lines graphmend wrote: its block (the binding line and the helpers after it) and every
    line naming `_graphmend`."""
    block = text[text.index("_graphmend = "):text.index("\nlogger = ")]
    return block.splitlines() + [line for line in text.splitlines() if "_graphmend" in line]


def blank_lines_before_binding(text):
    found = re.search(r"^import torch\n(\n*)" + BLOCK, text, re.M)
    assert found, text
    return len(found[1])


RUFF_SETTINGS = ["--line-length", "119", "--config", "lint.isort.lines-after-imports = 2"]


def ruff(*args, cwd):
    return subprocess.run([str(RUFF), *args, "--isolated", *RUFF_SETTINGS], cwd=cwd, capture_output=True,
                          text=True)


def ruff_accepts(cwd, path):
    lint = ruff("check", "--select", "E,F,W,I", "--ignore", "E501", "--no-cache", path, cwd=cwd)
    form = ruff("format", "--check", "--diff", "--no-cache", path, cwd=cwd)
    return lint.returncode == 0 and form.returncode == 0, lint.stdout + form.stdout


@pytest.mark.parametrize("style", sorted(STYLES))
def test_fix_writes_what_the_projects_ruff_accepts(gm, tmp_path, style):
    name, text = STYLES[style]
    (tmp_path / name).write_text(text)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    model = tmp_path / "pkg" / "model.py"
    model.write_text(MODULE)
    accepted, why = ruff_accepts(tmp_path, "pkg/model.py")
    assert accepted, why  # the original follows the style

    out = gm("fix", "pkg", cwd=tmp_path)
    assert out.returncode in (0, 1), out.stderr
    fixed = model.read_text()
    assert fixed != MODULE and "_graphmend" in fixed
    accepted, why = ruff_accepts(tmp_path, "pkg/model.py")
    assert accepted, f"{why}\n{fixed}"
    assert blank_lines_before_binding(fixed) == 2  # as isort writes them
    assert max(len(line) for line in written_lines(fixed)) > 88  # wrapped at 119, not 88


def test_without_settings_the_defaults_hold(gm, tmp_path):
    """No configuration: 88 columns and one blank line after the imports (ruff's defaults)."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    model = tmp_path / "pkg" / "model.py"
    model.write_text(MODULE.replace("import torch\n\n\nlogger", "import torch\n\nlogger"))
    out = gm("fix", "pkg", cwd=tmp_path)
    assert out.returncode in (0, 1), out.stderr
    fixed = model.read_text()
    assert blank_lines_before_binding(fixed) == 1
    assert max(len(line) for line in written_lines(fixed)) <= 88, fixed
    lint = subprocess.run([str(RUFF), "check", "--isolated", "--select", "I", "--no-cache", "pkg/model.py"],
                          cwd=tmp_path, capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout


def test_the_nearest_settings_apply_to_each_file(gm, tmp_path):
    """Two packages, one with its own ruff.toml: each file gets its own project's style."""
    for package in ("wide", "narrow"):
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
        (tmp_path / package / "model.py").write_text(MODULE)
    (tmp_path / "wide" / "ruff.toml").write_text("line-length = 119\n[lint.isort]\nlines-after-imports = 2\n")
    out = gm("fix", "narrow", "wide", cwd=tmp_path)
    assert out.returncode in (0, 1), out.stderr
    assert blank_lines_before_binding((tmp_path / "wide" / "model.py").read_text()) == 2
    narrow = (tmp_path / "narrow" / "model.py").read_text()
    assert blank_lines_before_binding(narrow) == 1
    assert max(len(line) for line in written_lines(narrow)) <= 88


GENERATED_HEADERS = [
    (
        "#           This file was automatically generated from src/pkg/modular_model.py.\n"
        "#               Do NOT edit this file manually as any edits will be overwritten\n"
    ),
    "# @generated by protoc-like tooling\n",
    "# DO NOT EDIT: produced by scripts/make_model.py\n",
]


@pytest.mark.parametrize("header", GENERATED_HEADERS)
def test_generated_files_are_reported_and_left_to_their_generator(gm, tmp_path, header):
    """Issue 47, item 4: a file whose header says it is generated keeps its text; its findings
    are reported without fixes, with a warning that names the header; its neighbours are fixed."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    generated = tmp_path / "pkg" / "modeling_model.py"
    generated.write_text(header + MODULE)
    source = tmp_path / "pkg" / "modular_model.py"
    source.write_text(MODULE)
    out = gm("fix", "--output-format", "json", "pkg", cwd=tmp_path)
    assert out.returncode == 1, out.stderr
    assert generated.read_text() == header + MODULE
    assert source.read_text() != MODULE
    import json

    report = json.loads(out.stdout)
    left = [d for d in report["diagnostics"] if d["filename"].endswith("modeling_model.py")]
    assert left and all(d["fix"] is None for d in left)
    check = gm("check", "pkg/modeling_model.py", cwd=tmp_path)
    assert "generated" in check.stdout + check.stderr
    assert "fix the source it is generated from" in check.stdout + check.stderr


def test_fix_generated_fixes_them_too(gm, tmp_path):
    """--fix-generated, or `fix-generated = true` in the configuration, fixes generated files, as
    when patching an installed library that will not be regenerated."""
    for flag, config in (("--fix-generated", ""), (None, "[tool.graphmend]\nfix-generated = true\n")):
        root = tmp_path / ("flag" if flag else "config")
        (root / "pkg").mkdir(parents=True)
        (root / "pkg" / "__init__.py").write_text("")
        (root / "pyproject.toml").write_text(config)
        generated = root / "pkg" / "modeling_model.py"
        generated.write_text(GENERATED_HEADERS[0] + MODULE)
        out = gm("fix", *([flag] if flag else []), "pkg", cwd=root)
        assert out.returncode in (0, 1), out.stderr
        assert "_graphmend" in generated.read_text(), flag
        assert "generated" not in out.stderr


def test_a_lost_or_stale_runtime_file_is_reported_and_written_again(gm, tmp_path):
    """Issue 47, item 5: after `fix`, a missing runtime file is GM904 on each patched module's
    binding line; `fix` writes it again; a stale version is reported and rewritten the same way."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    model = tmp_path / "pkg" / "model.py"
    model.write_text(MODULE)
    assert gm("fix", "pkg", cwd=tmp_path).returncode in (0, 1)
    runtime = tmp_path / "pkg" / "_graphmend_runtime.py"
    current = runtime.read_text()
    assert gm("check", "--select", "GM904", "pkg", cwd=tmp_path).returncode == 0

    runtime.unlink()
    out = gm("check", "--select", "GM904", "pkg", cwd=tmp_path)
    assert out.returncode == 1
    assert "GM904" in out.stdout and "_graphmend_runtime.py" in out.stdout and "is missing" in out.stdout
    line = next(i for i, text in enumerate(model.read_text().splitlines(), 1) if "__import__(" in text)
    assert f"model.py:{line}:" in out.stdout
    # Fixing another file of the project (model.py only its context) leaves the runtime alone.
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'pkg'\n")
    assert gm("fix", "pkg/__init__.py", cwd=tmp_path).returncode == 0
    assert not runtime.exists()
    fixed = gm("fix", "pkg", cwd=tmp_path)
    assert fixed.returncode in (0, 1), fixed.stderr
    assert runtime.read_text() == current
    assert gm("check", "--select", "GM904", "pkg", cwd=tmp_path).returncode == 0

    stale = re.sub(r'RUNTIME_VERSION = "\d+"', 'RUNTIME_VERSION = "1"', current)
    runtime.write_text(stale)
    out = gm("check", "--select", "GM904", "pkg", cwd=tmp_path)
    assert out.returncode == 1 and "is runtime 1" in out.stdout
    gm("fix", "pkg", cwd=tmp_path)
    assert runtime.read_text() == current


def test_many_generated_files_are_named_on_one_line(gm, tmp_path):
    """transformers has 56 generated modules: the first three warnings in full, then the rest by name
    on one line, not a screenful of one sentence."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    for n in range(5):
        (tmp_path / "pkg" / f"modeling_{n}.py").write_text(GENERATED_HEADERS[0] + MODULE)
    out = gm("check", "pkg", cwd=tmp_path)
    lines = [line for line in out.stderr.splitlines() if "generated" in line]
    assert len(lines) == 4, out.stderr
    assert all("the file says it is generated" in line for line in lines[:3])
    assert lines[3] == ("warning: 2 more files say they are generated and are left to their generators alike: "
                        "pkg/modeling_3.py, pkg/modeling_4.py")


KEPT_TENSORS = '''import torch


@torch.compile
def short(x: torch.Tensor) -> torch.Tensor:
    scale = x.abs().amax().item()
    return x / scale


@torch.compile
def normalize(hidden: torch.Tensor) -> torch.Tensor:
    largest_magnitude_seen = hidden.abs().amax().item()  # the peak
    return hidden / largest_magnitude_seen


@torch.compile
def fluent(activations_of_the_layer_with_a_long_name: torch.Tensor) -> torch.Tensor:
    largest_seen_so_far = activations_of_the_layer_with_a_long_name.abs().amax().item()
    return activations_of_the_layer_with_a_long_name * largest_seen_so_far
'''


@pytest.mark.parametrize("width", [88, 119])
def test_a_value_kept_a_tensor_is_laid_out_as_ruff_formats_it(gm, tmp_path, width):
    """GM401's `.detach().nan_to_num(...)` lengthens a line: on it, in parentheses, or one method
    call a line, whichever ruff itself writes at the project's line length."""
    (tmp_path / "ruff.toml").write_text(f"line-length = {width}\n")
    model = tmp_path / "model.py"
    model.write_text(KEPT_TENSORS)
    settings = ["--isolated", "--line-length", str(width)]
    before = subprocess.run([str(RUFF), "format", "--check", *settings, "model.py"], cwd=tmp_path,
                            capture_output=True, text=True)
    assert before.returncode == 0, before.stdout
    out = gm("fix", "model.py", cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    fixed = model.read_text()
    assert fixed.count(".nan_to_num(torch.nan, torch.inf, -torch.inf)") == 3 and ".item()" not in fixed
    after = subprocess.run([str(RUFF), "format", "--check", "--diff", *settings, "model.py"], cwd=tmp_path,
                           capture_output=True, text=True)
    assert after.returncode == 0, after.stdout + fixed
    if width == 88:
        assert "(\n        hidden.abs()" in fixed and "\n        .amax()\n" in fixed, fixed


def wide_text_module():
    """Guards and prints whose messages hold characters wider, in bytes, than the columns they take
    ("—" is three bytes and one column, "中" three bytes and two), at every length around the line
    length: the written lines fit by columns where they do not by bytes."""
    lines = ["import torch", "", "", "class Model(torch.nn.Module):", "    def forward(self, x, mask):"]
    for i in range(24):
        words = ("mask — “docs” " if i % 2 else "掩码必须全部为真 ") + "x" * i
        lines += [f"        if not mask[{i}].all():", f'            raise ValueError("{words}")']
        lines += [f'        print("{words} {"y" * 10}")']
    lines += ["        return x", ""]
    return "\n".join(lines)


def test_characters_wider_in_bytes_than_columns_are_laid_out_as_ruff_formats_them(gm, tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    model = tmp_path / "pkg" / "model.py"
    model.write_text(wide_text_module(), encoding="utf-8")
    settings = ["--isolated", "--line-length", "88"]
    before = subprocess.run([str(RUFF), "format", "--check", *settings, "pkg/model.py"], cwd=tmp_path,
                            capture_output=True, text=True)
    assert before.returncode == 0, before.stdout
    out = gm("fix", "pkg", cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr  # every finding fixed
    fixed = model.read_text(encoding="utf-8")
    assert fixed.count("_graphmend.check(") == 24 and fixed.count("_graphmend.call(print)") == 24, fixed
    after = subprocess.run([str(RUFF), "format", "--check", "--diff", *settings, "pkg/model.py"], cwd=tmp_path,
                           capture_output=True, text=True)
    assert after.returncode == 0, after.stdout


def test_a_loose_scripts_inline_runtime_is_laid_out_as_ruff_formats_it(gm, tmp_path):
    """A script outside any package gets the runtime inline, in a call ruff leaves as it is."""
    script = tmp_path / "train.py"
    script.write_text("import torch\n\n\n@torch.compile\ndef step(x):\n    print(x)\n    return x * 2\n")
    out = gm("fix", "train.py", cwd=tmp_path)
    assert out.returncode == 0, out.stdout + out.stderr
    fixed = script.read_text()
    assert "_graphmend.call(print)" in fixed and "exec(\n" in fixed, fixed
    for command in (["format", "--check", "--diff"], ["check", "--select", "E,F,W"]):
        r = subprocess.run([str(RUFF), *command, "--isolated", "--no-cache", "train.py"], cwd=tmp_path,
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr
