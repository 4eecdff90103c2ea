"""Configuration files, suppression comments, excludes, .gitignore and standard input, through the CLI."""

import json
import subprocess

import pytest


def findings(result):
    return [(d["filename"], d["code"]) for d in json.loads(result.stdout)["diagnostics"]]


def test_pyproject_section_selects_and_ignores(gm, project):
    (project / "pyproject.toml").write_text('[tool.graphmend]\nignore = ["GM3"]\n')
    assert findings(gm("check", "pkg", "--output-format", "json", cwd=project)) == [("pkg/model.py", "GM201")]
    # The command line overrides: --select replaces the configuration's selection.
    r = gm("check", "pkg", "--output-format", "json", "--isolated", cwd=project)
    assert len(findings(r)) == 2


def test_graphmend_toml_wins_over_a_farther_pyproject(gm, project):
    (project / "pyproject.toml").write_text('[tool.graphmend]\nignore = ["GM3"]\n')
    (project / "pkg" / "graphmend.toml").write_text('ignore = ["GM2"]\n')
    assert findings(gm("check", "pkg", "--output-format", "json", cwd=project)) == [("pkg/model.py", "GM301")]
    r = gm("check", "pkg", "--output-format", "json", "--config", project / "pyproject.toml", cwd=project)
    assert findings(r) == [("pkg/model.py", "GM201")]


def test_per_file_ignores_and_output_format_from_configuration(gm, project):
    (project / "pyproject.toml").write_text(
        '[tool.graphmend]\noutput-format = "json"\n[tool.graphmend.per-file-ignores]\n"pkg/model.py" = ["GM201"]\n'
    )
    assert findings(gm("check", "pkg", cwd=project)) == [("pkg/model.py", "GM301")]


def test_a_bad_configuration_is_exit_2_with_file_line_and_key(gm, project):
    (project / "pyproject.toml").write_text('[tool.graphmend]\nselect = ["GM1"]\nunsafe_fixes = true\n')
    r = gm("check", "pkg", cwd=project)
    assert r.returncode == 2
    assert "pyproject.toml:3: unsafe_fixes: unknown key" in r.stderr
    (project / "pyproject.toml").write_text('[tool.graphmend]\nextend-select = ["GM9999"]\n')
    r = gm("check", "pkg", cwd=project)
    assert r.returncode == 2
    assert "pyproject.toml:2: extend-select: `GM9999` is no rule code" in r.stderr


def test_noqa_comments_are_read_from_comments_only(gm, project):
    model = project / "pkg" / "model.py"
    text = model.read_text()
    text = text.replace('print("forward", x.shape)', 'print("forward #noqa", x.shape)  # TODO: without noqa')
    model.write_text(text)
    assert ("pkg/model.py", "GM201") in findings(gm("check", "pkg", "--output-format", "json", cwd=project))
    model.write_text(text.replace("# TODO: without noqa", "# noqa: GM201"))
    assert ("pkg/model.py", "GM201") not in findings(gm("check", "pkg", "--output-format", "json", cwd=project))
    model.write_text("# graphmend: ignore-file\n" + text)
    assert findings(gm("check", "pkg", "--output-format", "json", cwd=project)) == []


def test_unknown_codes_are_warned_and_unused_ones_reported_when_selected(gm, project):
    model = project / "pkg" / "model.py"
    model.write_text(model.read_text().replace("return x * 2", "return x * 2  # noqa: GM999, GM201"))
    r = gm("check", "pkg", "--output-format", "json", cwd=project)
    assert "warning: pkg/model.py:9: suppression comment names `GM999`" in r.stderr
    assert ("pkg/model.py", "GM903") not in findings(r)  # opt-in
    r = gm("check", "pkg", "--output-format", "json", "--extend-select", "GM903", cwd=project)
    unused = [d for d in json.loads(r.stdout)["diagnostics"] if d["code"] == "GM903"]
    assert len(unused) == 1
    assert "unused: GM201" in unused[0]["message"] and "unknown: GM999" in unused[0]["message"]
    gm("fix", "pkg", "--extend-select", "GM903", cwd=project)
    assert "noqa" not in model.read_text()


def test_gitignore_default_excludes_and_exclude(gm, project):
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / ".gitignore").write_text("generated/\n")
    for folder in ("generated", "dist", "other"):
        (project / folder).mkdir()
        (project / folder / "m.py").write_text((project / "pkg" / "model.py").read_text())
    files = {f for f, _ in findings(gm("check", ".", "--output-format", "json", cwd=project))}
    assert files == {"pkg/model.py", "other/m.py"}
    files = {f for f, _ in findings(gm("check", ".", "--no-respect-gitignore", "--output-format", "json", cwd=project))}
    assert files == {"pkg/model.py", "other/m.py", "generated/m.py"}
    files = {f for f, _ in findings(gm("check", ".", "--extend-exclude", "other", "--output-format", "json", cwd=project))}
    assert files == {"pkg/model.py"}
    # A file named on the command line is checked, unless --force-exclude (what pre-commit passes).
    assert findings(gm("check", "dist/m.py", "--output-format", "json", cwd=project))
    assert findings(gm("check", "dist/m.py", "--force-exclude", "--output-format", "json", cwd=project)) == []


def test_named_file_is_analysed_with_its_project_but_only_it_is_reported(gm, project):
    (project / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (project / "pkg" / "util.py").write_text("def helper(x):\n    print('helper')\n    return x\n")
    model = project / "pkg" / "model.py"
    model.write_text(model.read_text().replace("import torch\n", "import torch\nfrom .util import helper\n")
                     .replace("return x * 2", "return helper(x) * 2"))
    r = gm("check", "pkg/util.py", "--output-format", "json", cwd=project)
    assert findings(r) == [("pkg/util.py", "GM201")]
    assert json.loads(r.stdout)["summary"]["files_checked"] == 1
    r = gm("fix", "pkg/util.py", cwd=project)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "_graphmend" in (project / "pkg" / "util.py").read_text()
    assert "_graphmend" not in model.read_text()  # context only: never written
    r = gm("check", "pkg/util.py", "--no-project-context", "--output-format", "json", cwd=project)
    assert findings(r) == []


def test_standard_input(gm, project):
    text = (project / "pkg" / "model.py").read_text()
    r = gm("check", "-", "--stdin-filename", "pkg/model.py", "--output-format", "json", cwd=project, stdin=text)
    assert r.returncode == 1
    assert findings(r) == [("pkg/model.py", "GM201"), ("pkg/model.py", "GM301")]
    r = gm("fix", "-", "--stdin-filename", "pkg/model.py", cwd=project, stdin=text)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("import torch\n")
    assert "_graphmend.compiling()" in r.stdout
    assert (project / "pkg" / "model.py").read_text() == text  # printed, not written
    compile(r.stdout, "model.py", "exec")
    r = gm("check", "-", "x.py", cwd=project, stdin=text)
    assert r.returncode == 2


@pytest.mark.parametrize("absolute", [False, True])
def test_standard_input_is_the_only_module_of_its_name(gm, tmp_path, absolute):
    """An editor's unsaved text, given on standard input, is what imports in the project resolve to:
    its stale copy on disk is no second module of the same name."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").touch()
    (tmp_path / "pkg" / "train.py").write_text("import torch\nfrom pkg.model import step\nf = torch.compile(step)\n")
    on_disk = "import torch\ndef step(x):\n    return x * 2\n"
    edited = "import torch\ndef step(x):\n    if x.sum() > 0:\n        x = x * 2\n    return x\n"
    (tmp_path / "pkg" / "model.py").write_text(on_disk)
    name = str(tmp_path / "pkg" / "model.py") if absolute else "pkg/model.py"
    for _ in range(3):  # the same answer every run
        r = gm("check", "-", "--stdin-filename", name, "--output-format", "json", cwd=tmp_path, stdin=edited)
        assert findings(r) == [(name, "GM101")], r.stdout + r.stderr
    (tmp_path / "pkg" / "model.py").write_text(edited)
    assert findings(gm("check", "pkg/model.py", "--output-format", "json", cwd=tmp_path)) == [("pkg/model.py", "GM101")]


SCALE = "import torch\n\n\ndef scale(v, k):\n    if k > 0:\n        v = v * k\n    return v\n"


@pytest.mark.parametrize("tensor_in", ["a", "b"])
def test_a_script_imports_its_own_directorys_module_of_a_shared_name(gm, tmp_path, tensor_in):
    """`a/model.py` and `b/model.py` are both the module `model`. Each directory's `train.py` imports
    its own, as Python does when it runs that script, so only the `scale` that a compiled call
    passes a tensor to branches on one, whichever directory comes first."""
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "model.py").write_text(SCALE)
        k = "x.sum()" if d == tensor_in else "2"
        (tmp_path / d / "train.py").write_text(
            f"import torch\nfrom model import scale\n\n\n@torch.compile\ndef step(x):\n    return scale(x, {k})\n"
        )
    r = gm("check", ".", "--output-format", "json", cwd=tmp_path)
    assert findings(r) == [(f"{tensor_in}/model.py", "GM101")], r.stdout + r.stderr


def test_a_shared_module_name_outside_the_importers_root_reaches_neither(gm, tmp_path):
    """A package module importing `model`, which names two scripts and neither beside the package,
    gets neither: no guess at the first one."""
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "model.py").write_text(SCALE)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").touch()
    (tmp_path / "pkg" / "train.py").write_text(
        "import torch\nfrom model import scale\n\n\n@torch.compile\ndef step(x):\n    return scale(x, x.sum())\n"
    )
    r = gm("check", ".", "--output-format", "json", cwd=tmp_path)
    assert findings(r) == [], r.stdout + r.stderr
    # With one script of that name, the import reaches it wherever it is.
    (tmp_path / "b" / "model.py").unlink()
    r = gm("check", ".", "--output-format", "json", cwd=tmp_path)
    assert findings(r) == [("a/model.py", "GM101")], r.stdout + r.stderr


COMPILED_STEP = "import torch\nfrom {source} import scale\n\n\n@torch.compile\ndef step(x):\n    return scale(x, x.sum())\n"


def notebook(code):
    cell = {"cell_type": "code", "metadata": {}, "source": code, "outputs": [], "execution_count": None}
    return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


# Two files named `model` and one compiled caller: the layout, the paths checked, and the `scale`
# Python runs (checked with `python`, `jupyter` alike: the directory of the script it runs, links
# resolved, comes first on sys.path; a re-export searches that path too).
SHARED_NAME_LAYOUTS = {
    "notebook": ({"model.py": SCALE, "b/model.py": SCALE, "b/nb.ipynb": notebook(COMPILED_STEP.format(source="model"))},
                 ["."], "b/model.py"),
    "dotted script stem": ({"model.py": SCALE, "b/model.py": SCALE, "b/train.v2.py": COMPILED_STEP.format(source="model")},
                           ["."], "b/model.py"),
    "linked script": ({"a/model.py": SCALE, "b/model.py": SCALE, "a/train.py": COMPILED_STEP.format(source="model"),
                       "b/train.py": "-> ../a/train.py"}, ["b", "a/model.py"], "a/model.py"),
    "linked script, other order": ({"a/model.py": SCALE, "b/model.py": SCALE,
                                    "a/train.py": COMPILED_STEP.format(source="model"),
                                    "b/train.py": "-> ../a/train.py"}, ["b", "a"], "a/model.py"),
    "re-export": ({"model.py": SCALE, "a/model.py": SCALE, "common.py": "import torch\nfrom model import scale\n",
                   "a/train.py": COMPILED_STEP.format(source="common")}, ["."], "a/model.py"),
}


@pytest.mark.parametrize("layout", SHARED_NAME_LAYOUTS)
def test_a_shared_module_name_reaches_the_file_python_imports(gm, tmp_path, layout):
    files, paths, imported = SHARED_NAME_LAYOUTS[layout]
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        if text.startswith("-> "):
            (tmp_path / name).symlink_to(text[3:])
        else:
            (tmp_path / name).write_text(text)
    r = gm("check", *paths, "--output-format", "json", cwd=tmp_path)
    assert findings(r) == [(imported, "GM101")], r.stdout + r.stderr


def test_a_linked_module_reaches_its_own_definitions(gm, tmp_path):
    """`b/model.py` links to `c/model.py`, beside a second `model` in `a/`: the names the linked
    module reaches through itself are its own, wherever its link points."""
    own = SCALE + "\n\n@torch.compile\ndef step(x):\n    g = scale\n    return g(x, x.sum())\n"
    for name, text in {"a/model.py": SCALE, "c/model.py": own}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "model.py").symlink_to("../c/model.py")
    r = gm("check", "a", "b", "--output-format", "json", "--no-cache", cwd=tmp_path)
    assert findings(r) == [("b/model.py", "GM101")], r.stdout + r.stderr


def test_the_result_cache_sees_a_scripts_link_pointed_elsewhere(gm, tmp_path):
    """A linked script's imports search its target's directory: pointing the link at a copy
    elsewhere, every analysed text the same, changes what they reach."""
    for name, text in {"a/model.py": SCALE, "b/model.py": SCALE, "a/run.py": COMPILED_STEP.format(source="model"),
                       "d/run.py": COMPILED_STEP.format(source="model")}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "b" / "run.py").symlink_to("../a/run.py")
    first = gm("check", "b", "a/model.py", "--output-format", "json", cwd=tmp_path)
    assert findings(first) == [("a/model.py", "GM101")], first.stdout + first.stderr
    (tmp_path / "b" / "run.py").unlink()
    (tmp_path / "b" / "run.py").symlink_to("../d/run.py")  # d/ holds no `model` the run analyses
    again = gm("check", "b", "a/model.py", "--output-format", "json", cwd=tmp_path)
    assert findings(again) == [], again.stdout + again.stderr


def test_a_tracked_symlink_is_walked_inside_a_git_work_tree(gm, project, tmp_path_factory):
    outside = tmp_path_factory.mktemp("outside") / "real.py"
    outside.write_text((project / "pkg" / "model.py").read_text())
    (project / "pkg" / "link.py").symlink_to(outside)
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    subprocess.run(["git", "add", "-A"], cwd=project, check=True)
    files = {f for f, _ in findings(gm("check", ".", "--output-format", "json", cwd=project))}
    assert files == {"pkg/model.py", "pkg/link.py"}


def codes_by_file(result):
    out = {}
    for d in json.loads(result.stdout)["diagnostics"]:
        out.setdefault(d["filename"], []).append(d["code"])
    return out


def test_each_file_takes_its_nearest_configuration_whatever_the_order_of_paths(gm, project):
    """Two configurations: each file takes the nearest above it, as ruff does, whichever path comes first."""
    (project / "pyproject.toml").write_text('[tool.graphmend]\nignore = ["GM3"]\n')
    (project / "sub").mkdir()
    (project / "sub" / "model.py").write_text((project / "pkg" / "model.py").read_text())
    (project / "sub" / "pyproject.toml").write_text('[tool.graphmend]\nignore = ["GM2"]\n')
    expected = {"pkg/model.py": ["GM201"], "sub/model.py": ["GM301"]}
    for paths in (("pkg/model.py", "sub/model.py"), ("sub/model.py", "pkg/model.py"), ("sub", "pkg"), (".",)):
        r = gm("check", *paths, "--output-format", "json", cwd=project)
        assert codes_by_file(r) == expected, paths
    # The command line overrides every file's configuration.
    r = gm("check", "sub", "pkg", "--ignore", "GM3", "--output-format", "json", cwd=project)
    assert codes_by_file(r) == {"pkg/model.py": ["GM201"]}
    r = gm("check", "sub", "pkg", "--select", "GM3", "--output-format", "json", cwd=project)
    assert codes_by_file(r) == {"sub/model.py": ["GM301"]}
    # --config and --isolated still decide for every file.
    r = gm("check", "sub", "pkg", "--config", project / "sub" / "pyproject.toml", "--output-format", "json", cwd=project)
    assert codes_by_file(r) == {"pkg/model.py": ["GM301"], "sub/model.py": ["GM301"]}
    r = gm("check", "sub", "pkg", "--isolated", "--output-format", "json", cwd=project)
    assert codes_by_file(r) == {"pkg/model.py": ["GM201", "GM301"], "sub/model.py": ["GM201", "GM301"]}


def test_the_nearest_configuration_wins_in_nested_folders(gm, project):
    """A nested configuration replaces its parent's (no inheritance without `extend`); patterns start at its folder."""
    model = (project / "pkg" / "model.py").read_text()
    (project / "pyproject.toml").write_text('[tool.graphmend]\nignore = ["GM3"]\n')
    deep = project / "pkg" / "inner" / "deeper"
    deep.mkdir(parents=True)
    (project / "pkg" / "inner" / "graphmend.toml").write_text(
        'ignore = ["GM2"]\nextend-exclude = ["skipped/*.py"]\n[per-file-ignores]\n"deeper/model.py" = ["GM3"]\n'
    )
    (project / "pkg" / "inner" / "model.py").write_text(model)
    (deep / "model.py").write_text(model)
    (project / "pkg" / "inner" / "skipped").mkdir()
    (project / "pkg" / "inner" / "skipped" / "model.py").write_text(model)
    r = gm("check", ".", "--output-format", "json", cwd=project)
    assert codes_by_file(r) == {"pkg/model.py": ["GM201"], "pkg/inner/model.py": ["GM301"]}
    # The same from inside the nested folder, and for the deeper file alone.
    r = gm("check", ".", "--output-format", "json", cwd=project / "pkg" / "inner")
    assert codes_by_file(r) == {"model.py": ["GM301"]}
    r = gm("check", "pkg/inner/deeper/model.py", "--output-format", "json", cwd=project)
    assert codes_by_file(r) == {}


def test_show_settings_names_the_configuration_and_the_effective_values(gm, project):
    (project / "pyproject.toml").write_text('[tool.graphmend]\nignore = ["GM3"]\noutput-format = "json"\n')
    (project / "pkg" / "graphmend.toml").write_text('ignore = ["GM2"]\n[per-file-ignores]\n"x.py" = ["GM4"]\n')
    r = gm("check", "--show-settings", "pkg/model.py", cwd=project)
    assert r.returncode == 0, r.stderr
    assert "Resolved settings for: pkg/model.py" in r.stdout
    assert f"Configuration file: {project / 'pkg' / 'graphmend.toml'}" in r.stdout
    assert 'ignore = ["GM2"]' in r.stdout
    assert 'per-file-ignores = {"x.py" = ["GM4"]}' in r.stdout
    assert "line-length = 88" in r.stdout
    # The run's settings come from the configuration of the folder holding every path: here pkg's.
    assert f"run configuration file = {project / 'pkg' / 'graphmend.toml'}" in r.stdout
    assert "GM201" not in r.stdout  # nothing is checked
    r = gm("check", "--show-settings", "--select", "GM1", "--isolated", "pkg/model.py", cwd=project)
    assert "Configuration file: none (the defaults)" in r.stdout
    assert 'select = ["GM1"]' in r.stdout
    r = gm("check", "--show-settings", "pkg/model.py", "pkg", cwd=project)
    assert r.returncode == 2 and "--show-settings takes one path" in r.stderr


def test_conflicting_flags_are_rejected(gm, project):
    (project / "pyproject.toml").write_text('[tool.graphmend]\nignore = ["GM3"]\n')
    r = gm("check", "pkg", "--isolated", "--config", project / "pyproject.toml", cwd=project)
    assert r.returncode == 2
    assert "--isolated and --config cannot be used together" in r.stderr
    assert r.stdout == ""


def test_force_exclude_applies_to_the_stdin_filename(gm, project):
    text = (project / "pkg" / "model.py").read_text()
    (project / "pyproject.toml").write_text('[tool.graphmend]\nextend-exclude = ["pkg/model.py"]\n')
    args = ("-", "--stdin-filename", "pkg/model.py", "--force-exclude")
    r = gm("check", *args, cwd=project, stdin=text)
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    r = gm("fix", *args, cwd=project, stdin=text)
    assert (r.returncode, r.stdout, r.stderr) == (0, text, "")  # passed through unchanged
    # Without --force-exclude, a path named (or given for stdin) is checked.
    r = gm("check", *args[:-1], "--output-format", "json", cwd=project, stdin=text)
    assert r.returncode == 1 and findings(r)
    # A nested configuration's excludes apply to a stdin path below it.
    (project / "pyproject.toml").unlink()
    (project / "pkg" / "graphmend.toml").write_text('extend-exclude = ["model.py"]\n')
    r = gm("check", *args, cwd=project, stdin=text)
    assert (r.returncode, r.stdout) == (0, "")


def test_a_missing_path_is_an_error_without_a_clean_summary(gm, project):
    r = gm("check", "missing.py", cwd=project)
    assert r.returncode == 2
    assert "error: missing.py: no such file or directory" in r.stderr
    assert "Checked" not in r.stdout and "no graph-break sites" not in r.stdout
    r = gm("check", "missing.py", "pkg", "--output-format", "json", cwd=project)
    assert r.returncode == 2 and json.loads(r.stdout)["errors"][0]["filename"] == "missing.py"


def findings_by_row(gm, root):
    """What `check pkg` finds under `root`: findings() with each diagnostic's row."""
    r = gm("check", "pkg", "--no-cache", "--output-format", "json", cwd=root)
    return [(d["filename"], d["code"], d["location"]["row"]) for d in json.loads(r.stdout)["diagnostics"]]


# A logger imported through a package's re-export (`from .log import logger` in its `__init__`) is
# the logger the package's module made: its calls break the graph as a direct import's do.
def test_a_logger_re_exported_by_a_package_is_a_logger(gm, tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "log.py").write_text("import logging\n\nlogger = logging.getLogger(__name__)\nlevel = 3\n")
    (pkg / "__init__.py").write_text("from .log import level, logger\n")
    (pkg / "model.py").write_text(
        "import torch\n\nfrom pkg import level, logger\nfrom pkg.log import logger as direct\n\n\n"
        "class M(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        logger.info('x')\n"
        "        direct.info('y')\n"
        "        level.bit_length()\n"
        "        return x\n")
    found = findings_by_row(gm, tmp_path)
    assert found == [("pkg/model.py", "GM202", 9), ("pkg/model.py", "GM202", 10)]


# A logger reached through modules that each import it many times over (a generated file, or one
# pasted together): still a logger, and each import is followed once per question, not once per
# path through the copies (300 copies in three modules took 13 s when every path was followed).
def test_a_logger_imported_many_times_over_through_modules_is_a_logger(gm, tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "l3.py").write_text("import logging\n\nlg = logging.getLogger(__name__)\n")
    for level in (2, 1, 0):
        (pkg / f"l{level}.py").write_text(f"from pkg.l{level + 1} import lg\n" * 300)
    (pkg / "model.py").write_text(
        "import torch\n\nfrom pkg.l0 import lg\n\n\n"
        "class M(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        lg.info('x')\n"
        "        return x\n")
    found = findings_by_row(gm, tmp_path)
    assert found == [("pkg/model.py", "GM202", 8)]


@pytest.mark.parametrize("named", ["pkg/./helpers.py", "./pkg/helpers.py", "pkg/sub/../helpers.py"])
def test_a_path_written_with_dots_names_the_same_module(gm, tmp_path, named):
    """`pkg/./helpers.py` is the module `pkg.helpers`, as `pkg/helpers.py` is: the compiled
    forward of `pkg/model.py` passes its helper a tensor either way."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "helpers.py").write_text("def scale(v):\n    if v > 0:\n        return v\n    return -v\n")
    (tmp_path / "pkg" / "model.py").write_text(
        "import torch\n\nfrom .helpers import scale\n\n\nclass Model(torch.nn.Module):\n"
        "    def forward(self, x: torch.Tensor):\n        return scale(x)\n")
    r = gm("check", named, "--output-format", "json", "--no-cache", cwd=tmp_path)
    assert [code for _, code in findings(r)] == ["GM101"], r.stdout + r.stderr
