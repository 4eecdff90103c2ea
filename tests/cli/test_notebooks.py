"""Jupyter notebooks (.ipynb), checked and fixed as ruff does: findings by cell, IPython lines left
alone, every byte outside the changed cells kept, the result a valid nbformat 4 notebook."""

import json

import jsonschema
import nbformat
import pytest
from test_formats import sarif_schema

FORWARD = (
    "class Model(torch.nn.Module):\n"
    "    def forward(self, x):\n"
    '        print("forward", x.shape)\n'
    "        return x * 2"
)


def notebook(*cells, language="python"):
    """An nbformat 4 notebook as Jupyter writes it; a cell is source text, or ("markdown"|"raw", text)."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "k", "language": language, "display_name": "K"}
    for cell in cells:
        if isinstance(cell, tuple):
            kind, text = cell
            nb.cells.append(nbformat.v4.new_markdown_cell(text) if kind == "markdown" else nbformat.v4.new_raw_cell(text))
        else:
            nb.cells.append(nbformat.v4.new_code_cell(cell))
    return nbformat.writes(nb) + "\n"


def model_notebook():
    text = notebook(
        ("markdown", "# A model"),
        "%matplotlib inline\nimport torch",
        FORWARD,
        "!echo hello\nm = torch.compile(Model())\nm(torch.ones(2))",
    )
    # Outputs and metadata that a fix must leave byte for byte.
    nb = json.loads(text)
    nb["cells"][3]["outputs"] = [{"name": "stdout", "output_type": "stream", "text": ["forward torch.Size([2])\n"]}]
    nb["cells"][3]["execution_count"] = 7
    nb["metadata"]["custom"] = {"é": [1, 2]}
    return json.dumps(nb, indent=1, ensure_ascii=False) + "\n"


def source_span(text, cell_index):
    """The byte span of cell `cell_index`'s "source" value (a list) in the notebook's JSON text."""
    at = 0
    for _ in range(cell_index + 1):
        at = text.index('"cell_type"', at) + 1
    start = text.index('"source": [', at) + len('"source": ')
    return start, text.index("\n   ]", start) + len("\n   ]")


def assert_valid(path):
    nbformat.validate(nbformat.read(str(path), as_version=nbformat.NO_CONVERT))


def test_check_reports_findings_by_cell(gm, tmp_path):
    (tmp_path / "nb.ipynb").write_text(model_notebook())
    r = gm("check", "nb.ipynb", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    assert r.stdout.startswith("nb.ipynb:cell 3:3:9: GM201 `print` cannot be traced")
    assert '3 |         print("forward", x.shape)' in r.stdout  # the frame numbers the cell's line
    assert "GM901" not in r.stdout  # the magic and shell lines are no syntax error
    assert "Checked 1 file: 1 finding" in r.stdout


def test_json_and_sarif_locations_name_the_cell(gm, tmp_path):
    (tmp_path / "nb.ipynb").write_text(model_notebook())
    d = json.loads(gm("check", "--output-format", "json", "nb.ipynb", cwd=tmp_path).stdout)["diagnostics"][0]
    assert (d["cell"], d["location"], d["end_location"]) == (
        3,
        {"row": 3, "column": 9, "cell": 3},
        {"row": 3, "column": 34, "cell": 3},
    )
    sarif = json.loads(gm("check", "--output-format", "sarif", "nb.ipynb", cwd=tmp_path).stdout)
    jsonschema.validate(sarif, sarif_schema())
    result = sarif["runs"][0]["results"][0]
    location = result["locations"][0]
    assert location["properties"] == {"cell": 3}
    assert location["physicalLocation"]["region"]["startLine"] == 3
    assert "fixes" not in result  # replacements in the joined code would not fit the JSON file
    github = gm("check", "--output-format", "github", "nb.ipynb", cwd=tmp_path).stdout
    assert "file=nb.ipynb::nb.ipynb:cell 3:3:9: GM201" in github
    gitlab = json.loads(gm("check", "--output-format", "gitlab", "nb.ipynb", cwd=tmp_path).stdout)[0]
    assert gitlab["description"].startswith("cell 3: GM201") and gitlab["location"]["lines"] == {"begin": 3, "end": 3}
    junit = gm("check", "--output-format", "junit", "nb.ipynb", cwd=tmp_path).stdout
    assert '<testcase name="GM201 cell 3:3:9" classname="nb.ipynb" file="nb.ipynb" line="3">' in junit


def test_a_syntax_error_is_located_in_its_cell(gm, tmp_path):
    (tmp_path / "nb.ipynb").write_text(notebook("import torch", ("markdown", "text"), "x = 1\ndef f(:\n    pass"))
    r = gm("check", "--output-format", "concise", "nb.ipynb", cwd=tmp_path)
    assert r.returncode == 1 and r.stdout.startswith("nb.ipynb:cell 3:2:7: GM901 syntax error")


def test_a_python_file_keeps_its_json_locations(gm, tmp_path):
    (tmp_path / "m.py").write_text("import torch\n\n\n" + FORWARD + "\n")
    d = json.loads(gm("check", "--output-format", "json", "m.py", cwd=tmp_path).stdout)["diagnostics"][0]
    assert "cell" not in d and d["location"] == {"row": 6, "column": 9}


def test_fix_rewrites_only_the_changed_cell(gm, tmp_path):
    path = tmp_path / "nb.ipynb"
    before = model_notebook()
    path.write_text(before)
    r = gm("fix", "nb.ipynb", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    after = path.read_text()
    assert_valid(path)
    # Every byte before and after cell 3's "source" value is the original's.
    start, end = source_span(before, 2)
    new_end = len(after) - (len(before) - end)
    assert after[:start] == before[:start] and after[new_end:] == before[end:]
    cells = json.loads(after)["cells"]
    fixed = "".join(cells[2]["source"])
    # The runtime is inline, at the top of the first cell that needs it; the print is deferred.
    assert fixed.startswith("# graphmend: begin generated code")
    assert '_graphmend.call(print)("forward", x.shape)' in fixed
    assert cells[2]["source"][-1] == "        return x * 2"  # no line break added at the end
    assert "".join(cells[1]["source"]) == "%matplotlib inline\nimport torch"
    # A second run finds nothing and changes nothing.
    again = gm("fix", "nb.ipynb", cwd=tmp_path)
    assert again.returncode == 0 and path.read_text() == after
    assert "no graph-break sites found" in gm("check", "nb.ipynb", cwd=tmp_path).stdout


def test_fix_diff_is_per_cell_and_writes_nothing(gm, tmp_path):
    before = model_notebook()
    (tmp_path / "nb.ipynb").write_text(before)
    r = gm("fix", "--diff", "nb.ipynb", cwd=tmp_path)
    assert r.returncode == 1
    assert "--- a/nb.ipynb:cell 3\n+++ b/nb.ipynb:cell 3\n" in r.stdout
    assert '-        print("forward", x.shape)' in r.stdout
    assert "nb.ipynb:cell 2" not in r.stdout
    assert (tmp_path / "nb.ipynb").read_text() == before


def test_magics_are_neither_errors_nor_rewritten(gm, tmp_path):
    cells = (
        "import torch",
        "%%bash\necho 'not python {'",
        "!pip install torch\n%load_ext autoreload\ntorch.compile?\nfiles = !ls",
        FORWARD.replace('        print("forward", x.shape)\n', '        %time y = 1\n        print("forward", x.shape)\n'),
    )
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook(*cells))
    r = gm("check", "--output-format", "json", "nb.ipynb", cwd=tmp_path)
    codes = [(d["code"], d["cell"], d["location"]["row"]) for d in json.loads(r.stdout)["diagnostics"]]
    assert codes == [("GM201", 4, 4)]
    assert gm("fix", "nb.ipynb", cwd=tmp_path).returncode == 0
    assert_valid(path)
    fixed = ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]]
    assert fixed[:3] == list(cells[:3])
    assert "        %time y = 1\n        _graphmend.call(print)" in fixed[3]


def test_percent_lines_inside_strings_are_python(gm, tmp_path):
    # A `%` line inside a triple-quoted message is text: the [Trap] fix copies the message into
    # its check, and both copies must be the message itself.
    guard = (
        "class Model(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        if x.sum() > 0:\n"
        '            raise ValueError("""positive\n%s input\n""")\n'
        "        return x"
    )
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook("import torch", guard))
    assert gm("fix", "nb.ipynb", cwd=tmp_path).returncode == 0
    assert_valid(path)
    fixed = "".join(json.loads(path.read_text())["cells"][1]["source"])
    assert fixed.count('"""positive\n%s input\n"""') == 2 and "_graphmend.check(ValueError" in fixed


def test_transparent_cell_magics_are_analysed_and_automagic_cells_skipped(gm, tmp_path):
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook("pip install torch", "import torch", "%%time\n" + FORWARD))
    r = gm("check", "--output-format", "concise", "nb.ipynb", cwd=tmp_path)
    assert r.stdout.splitlines()[0].startswith("nb.ipynb:cell 3:4:9: GM201")
    assert gm("fix", "nb.ipynb", cwd=tmp_path).returncode == 0
    assert_valid(path)
    fixed = ["".join(c["source"]) for c in json.loads(path.read_text())["cells"]]
    assert fixed[0] == "pip install torch" and fixed[2].startswith("%%time\n\n# graphmend: begin generated code")


def test_a_continued_shell_line_with_an_indented_continuation_is_one_command(gm, tmp_path):
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook("!pip install torch \\\n    torchvision\nimport torch", "%time x = \\\n  1", FORWARD))
    r = gm("check", "--output-format", "concise", "nb.ipynb", cwd=tmp_path)
    assert "GM901" not in r.stdout
    assert r.stdout.startswith("nb.ipynb:cell 3:3:9: GM201")


def test_pip_install_inside_a_string_is_python_and_an_automagic_cell_is_left_out_with_a_warning(gm, tmp_path):
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook('import torch\nHELP = """\npip install torch\n"""\n' + FORWARD, "x = 1\npip install x"))
    r = gm("check", "--output-format", "concise", "nb.ipynb", cwd=tmp_path)
    assert r.stdout.startswith("nb.ipynb:cell 1:7:9: GM201")
    assert (
        "warning: nb.ipynb:cell 2:2: the cell is left out: `pip install x` is an IPython automagic command"
        in r.stderr
    )


def test_leading_blank_lines_and_indented_cells_as_ipython_reads_them(gm, tmp_path):
    path = tmp_path / "nb.ipynb"
    path.write_text(notebook("\n%%bash\necho hi", "  %%bash\necho hi", "    x = 1\n    y = x + 1", "x[0]?\ntorch.*cuda*?"))
    r = gm("check", "nb.ipynb", cwd=tmp_path)
    assert r.returncode == 0 and "GM901" not in r.stdout
    assert "warning: nb.ipynb:cell 3:1: the cell is left out: it is indented as a whole" in r.stderr


def test_a_code_frame_shows_the_ipython_line_not_its_stand_in(gm, tmp_path):
    (tmp_path / "nb.ipynb").write_text(notebook("x = 1\n    %ls -l"))
    r = gm("check", "nb.ipynb", cwd=tmp_path)
    assert "nb.ipynb:cell 1:2:5: GM901" in r.stdout
    assert "2 |     %ls -l\n" in r.stdout


def test_folder_walks_include_notebooks(gm, tmp_path):
    (tmp_path / "nb.ipynb").write_text(model_notebook())
    (tmp_path / "m.py").write_text("import torch\n")
    checkpoints = tmp_path / ".ipynb_checkpoints"
    checkpoints.mkdir()
    (checkpoints / "nb-checkpoint.ipynb").write_text(model_notebook())
    r = gm("check", "--output-format", "concise", ".", cwd=tmp_path)
    assert r.stdout.splitlines()[0].startswith("nb.ipynb:cell 3:3:9: GM201")
    assert "Checked 2 files" in r.stdout and "checkpoint" not in r.stdout


@pytest.mark.parametrize(
    "text, message",
    [
        ('{"cells": [', "its JSON does not parse"),
        ('{"nbformat": 3, "nbformat_minor": 0, "worksheets": []}', "nbformat 3 notebooks are not supported"),
        ('{"nbformat": 4, "metadata": {}}', "no `cells` list"),
        ('{"nbformat": 4, "cells": [{"cell_type": "code", "metadata": {}}]}', "cell 1 has no `source`"),
    ],
)
def test_bad_notebooks_are_clear_errors_and_left_alone(gm, tmp_path, text, message):
    path = tmp_path / "bad.ipynb"
    path.write_text(text)
    for command in ("check", "fix"):
        r = gm(command, "bad.ipynb", cwd=tmp_path)
        assert r.returncode == 2
        assert "error: bad.ipynb: " in r.stderr and message in r.stderr
        assert "Traceback" not in r.stderr and path.read_text() == text


def test_an_oversized_notebook_is_skipped_and_an_empty_one_is_clean(gm, tmp_path):
    (tmp_path / "big.ipynb").write_text(model_notebook())
    r = gm("check", "--max-file-size", "100", "big.ipynb", cwd=tmp_path)
    assert r.returncode == 2 and "over the 100-byte limit" in r.stderr
    (tmp_path / "empty.ipynb").write_text(notebook())
    r = gm("fix", "empty.ipynb", cwd=tmp_path)
    assert r.returncode == 0 and "Checked 1 file: no graph-break sites found" in r.stdout


def test_a_notebook_of_another_language_is_skipped_with_a_warning(gm, tmp_path):
    (tmp_path / "r.ipynb").write_text(notebook("x <- c(1, 2)", language="R"))
    r = gm("check", "r.ipynb", cwd=tmp_path)
    assert r.returncode == 0
    assert "warning: r.ipynb: the notebook's kernel language is R, not Python: skipped" in r.stderr


def test_warnings_name_the_cell_and_its_line(gm, tmp_path):
    (tmp_path / "nb.ipynb").write_text(notebook("import torch", "x = 1\ny = 2  # noqa: GM999"))
    r = gm("check", "nb.ipynb", cwd=tmp_path)
    assert "warning: nb.ipynb:cell 2:2: suppression comment names `GM999`" in r.stderr


def test_standard_input_as_a_notebook(gm, tmp_path):
    text = model_notebook()
    check = gm("check", "--stdin-filename", "nb.ipynb", "-", stdin=text, cwd=tmp_path)
    assert check.stdout.startswith("nb.ipynb:cell 3:3:9: GM201")
    fixed = gm("fix", "--stdin-filename", "nb.ipynb", "-", stdin=text, cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stderr
    nbformat.validate(nbformat.reads(fixed.stdout, as_version=nbformat.NO_CONVERT))
    assert "_graphmend.call(print)" in "".join(json.loads(fixed.stdout)["cells"][2]["source"])


def test_the_cache_keeps_notebook_locations(gm, tmp_path):
    (tmp_path / "nb.ipynb").write_text(model_notebook())
    args = ("check", "--cache-dir", "cache", "--output-format", "concise", "nb.ipynb")
    first = gm(*args, cwd=tmp_path)
    assert any((tmp_path / "cache").iterdir())
    second = gm(*args, cwd=tmp_path)  # replayed from the cache
    assert first.stdout.splitlines()[0] == second.stdout.splitlines()[0] == (
        "nb.ipynb:cell 3:3:9: GM201 `print` cannot be traced; the graph is split around it "
        "(GB0059: Failed to trace builtin operator)"
    )
