"""`check`'s result cache: an unchanged tree is answered from the cache with the same report,
exit code and warnings in every format; any change to a file the run analyses (context files
included), to the settings or to graphmend's binary is analysed afresh; `fix` never uses it; a
cache that cannot be read or written changes nothing but speed."""

import json
import re
import shutil
from pathlib import Path

import pytest

FORMATS = ["text", "concise", "json", "json-lines", "sarif", "github", "gitlab", "junit"]
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def normalised(text):
    """The report without the run's duration (the summary's "in 12.3 ms", JSON's elapsed_ms)."""
    text = re.sub(r" in [0-9.]+ (ms|s)\b", " in T", text)
    return re.sub(r'"elapsed_ms": [0-9.e+-]+', '"elapsed_ms": T', text)


def entries(root):
    return sorted((root / ".graphmend_cache" / "v1").glob("*.json"))


@pytest.fixture
def tree(tmp_path):
    """Every golden fixture (all rules, a syntax error, suppression comments) as one tree, with a
    binary file and one that is not UTF-8 (exit code 2)."""
    shutil.copytree(FIXTURES, tmp_path / "fixtures", ignore=shutil.ignore_patterns("*.expected"))
    (tmp_path / "fixtures" / "binary.py").write_bytes(b"\x00\x01binary")
    (tmp_path / "fixtures" / "latin1.py").write_bytes(b"s = '\xe9'\n")
    return tmp_path


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_warm_run_reports_exactly_what_a_fresh_run_does(gm, tree, fmt):
    fresh = gm("check", "fixtures", "--output-format", fmt, "--no-cache", cwd=tree)
    assert not (tree / ".graphmend_cache").exists()  # --no-cache writes nothing
    first = gm("check", "fixtures", "--output-format", fmt, cwd=tree)
    warm = gm("check", "fixtures", "--output-format", fmt, cwd=tree)
    assert len(entries(tree)) == 1
    for run in (first, warm):
        assert run.returncode == fresh.returncode == 2
        assert normalised(run.stdout) == normalised(fresh.stdout)
        assert normalised(run.stderr) == normalised(fresh.stderr)


def test_standard_input_is_never_cached(gm, tmp_path):
    for _ in range(2):
        r = gm("check", "-", "--stdin-filename", "m.py", cwd=tmp_path, stdin="import torch\n")
        assert r.returncode == 0, r.stderr
    assert not (tmp_path / ".graphmend_cache").exists()


def tamper(root, old, new):
    """Rewrites a message in the stored entry: a run that shows `new` was answered from the cache."""
    (entry,) = entries(root)
    text = entry.read_text()
    assert old in text
    entry.write_text(text.replace(old, new))


MODEL = """import torch

from .helpers import report


class Model(torch.nn.Module):
    def forward(self, x):
        report(x)
        return x * 2
"""

HELPERS = """def report(x):
    print("value", x)
"""


@pytest.fixture
def package(tmp_path):
    """A helper module whose print is a finding only because another file's forward calls it."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "model.py").write_text(MODEL)
    (tmp_path / "pkg" / "helpers.py").write_text(HELPERS)
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'pkg'\n")
    return tmp_path


def test_the_cache_answers_only_an_unchanged_tree(gm, package):
    first = gm("check", "pkg/helpers.py", cwd=package)
    assert first.returncode == 1 and "GM201" in first.stdout
    tamper(package, "`print` cannot be traced", "MARK from the cache")
    assert "MARK from the cache" in gm("check", "pkg/helpers.py", cwd=package).stdout

    # A change to a context file (not named on the command line) is a change: the helper is no
    # longer reached from compiled code, so its print is no finding.
    (package / "pkg" / "model.py").write_text(MODEL.replace("        report(x)\n", ""))
    r = gm("check", "pkg/helpers.py", cwd=package)
    assert r.returncode == 0, r.stdout
    assert "MARK" not in r.stdout and "GM201" not in r.stdout
    assert len(entries(package)) == 1  # the entry was replaced, not added to


def test_other_settings_or_another_binary_do_not_read_the_entry(gm, package, graphmend_bin, tmp_path):
    gm("check", "pkg", cwd=package)
    tamper(package, "`print` cannot be traced", "MARK from the cache")
    assert "MARK" not in gm("check", "pkg", "--select", "GM2", cwd=package).stdout
    assert "MARK" not in gm("check", "pkg", "--no-project-context", cwd=package).stdout
    assert "MARK" in gm("check", "pkg", cwd=package).stdout  # its own entry is still there

    # A rebuilt (here: copied) binary never reads what another build stored.
    other = tmp_path / "bin" / "graphmend"
    other.parent.mkdir()
    shutil.copy2(graphmend_bin, other)
    r = gm("check", "pkg", cwd=package, binary=other)
    assert "GM201" in r.stdout and "MARK" not in r.stdout


def test_fix_never_reads_the_cache(gm, package):
    gm("check", "pkg", cwd=package)
    tamper(package, "`print` cannot be traced", "MARK from the cache")
    for args in (["fix", "--diff", "pkg"], ["check", "--fix", "--diff", "pkg"]):
        r = gm(*args, cwd=package)
        assert "MARK" not in r.stdout + r.stderr
    r = gm("fix", "pkg", cwd=package)
    assert r.returncode == 0 and "MARK" not in r.stdout
    assert "_graphmend" in (package / "pkg" / "helpers.py").read_text()
    # And the fixed tree is a new tree for `check`.
    assert "MARK" not in gm("check", "pkg", cwd=package).stdout


def test_a_damaged_entry_is_ignored_and_replaced(gm, package):
    expected = gm("check", "pkg", cwd=package)
    (entry,) = entries(package)
    entry.write_text('{"format": 1, "digest": ')
    r = gm("check", "pkg", cwd=package)
    assert (r.returncode, normalised(r.stdout)) == (expected.returncode, normalised(expected.stdout))
    assert json.loads(entry.read_text())["format"] == 1


def test_a_cache_that_cannot_be_written_changes_nothing_but_speed(gm, package):
    (package / "blocker").write_text("not a folder")
    r = gm("check", "pkg", "--cache-dir", package / "blocker" / "cache", cwd=package)
    assert r.returncode == 1 and "GM201" in r.stdout and r.stderr == ""


def test_the_cache_folder_keeps_itself_out_of_git_and_honours_config_and_env(gm, package):
    gm("check", "pkg", cwd=package)
    assert (package / ".graphmend_cache" / ".gitignore").read_text().splitlines()[-1] == "*"

    shutil.rmtree(package / ".graphmend_cache")
    gm("check", "pkg", cwd=package, env={"GRAPHMEND_NO_CACHE": "1"})
    assert not (package / ".graphmend_cache").exists()

    (package / "pyproject.toml").write_text("[project]\nname = 'pkg'\n\n[tool.graphmend]\ncache-dir = 'build/gm'\n")
    gm("check", "pkg", cwd=package / "pkg")  # from a subfolder: relative to the configuration
    assert list((package / "build" / "gm" / "v1").glob("*.json"))
    assert not (package / "pkg" / ".graphmend_cache").exists()


def summary_counts(stderr):
    """What a run with GRAPHMEND_PHASES reports of its stored module summaries: (read, stored)."""
    (match,) = re.findall(r"^graphmend-summaries read=(\d+) stored=(\d+)$", stderr, re.MULTILINE)
    return int(match[0]), int(match[1])


def summaries(root):
    """The keys of the module summaries the cache folder keeps, in its file's order."""
    (path,) = (root / ".graphmend_cache").glob("summaries-v*")
    data = path.read_bytes()
    assert data.startswith(b"graphmend module summaries ")  # and the build that wrote them
    keys, at = [], data.index(b"\n") + 1
    while at < len(data):
        end = data.index(b"\n", at)
        key, _checksum, length = data[at:end].decode().split(" ")
        keys.append(key)
        at = end + 1 + int(length)
    assert at == len(data)
    return keys


def test_each_modules_summary_is_kept_and_read_back_while_its_file_is_unchanged(gm, package):
    phases = {"GRAPHMEND_PHASES": "1"}
    first = gm("check", "pkg", cwd=package, env=phases)
    assert summary_counts(first.stderr) == (0, 3)  # __init__, model, helpers
    assert len(summaries(package)) == 3

    # One file changed: the run cannot replay the last one's findings, and takes that file's
    # summary afresh; the other two come from the store. The findings are a fresh run's.
    (package / "pkg" / "helpers.py").write_text(HELPERS + "\n\ndef unused():\n    print('never')\n")
    second = gm("check", "pkg", cwd=package, env=phases)
    assert summary_counts(second.stderr) == (2, 1)
    assert len(summaries(package)) == 4  # the old text's summary stays, for a branch switched back
    fresh = gm("check", "pkg", "--no-cache", cwd=package)
    assert (second.returncode, normalised(second.stdout)) == (fresh.returncode, normalised(fresh.stdout))

    # The change undone: every summary is read back, and the findings are the first run's.
    (package / "pkg" / "helpers.py").write_text(HELPERS)
    (package / "pkg" / "model.py").write_text(MODEL + "\n")
    third = gm("check", "pkg", cwd=package, env=phases)
    assert summary_counts(third.stderr) == (2, 1)
    assert normalised(third.stdout) == normalised(first.stdout)


def test_a_damaged_summary_is_taken_afresh_and_replaced(gm, package):
    phases = {"GRAPHMEND_PHASES": "1"}
    expected = gm("check", "pkg", "--no-cache", cwd=package)

    def check_without_the_result_entry():
        for entry in entries(package):
            entry.unlink()  # so that the run analyses, and reads the summaries
        r = gm("check", "pkg", cwd=package, env=phases)
        assert (r.returncode, normalised(r.stdout)) == (expected.returncode, normalised(expected.stdout))
        return summary_counts(r.stderr)

    gm("check", "pkg", cwd=package)
    (path,) = (package / ".graphmend_cache").glob("summaries-v*")
    data = bytearray(path.read_bytes())
    data[-5] ^= 0x20  # in the last entry's bytes: that entry's checksum no longer holds
    path.write_bytes(bytes(data))
    assert check_without_the_result_entry() == (2, 1)
    assert check_without_the_result_entry() == (3, 0)  # replaced

    # Garbage in place of the file: every summary is taken again, and the file written anew.
    path.write_bytes(b"\x00" * 100)
    assert check_without_the_result_entry() == (0, 3)
    assert len(summaries(package)) == 3
    assert check_without_the_result_entry() == (3, 0)


def test_summaries_another_build_stored_are_not_read(gm, package, graphmend_bin, tmp_path):
    phases = {"GRAPHMEND_PHASES": "1"}
    gm("check", "pkg", cwd=package)
    other = tmp_path / "bin" / "graphmend"
    other.parent.mkdir()
    shutil.copy2(graphmend_bin, other)
    r = gm("check", "pkg", cwd=package, env=phases, binary=other)
    assert summary_counts(r.stderr) == (0, 3)
    assert len(summaries(package)) == 3  # the other build's summaries are dropped, not kept beside


def evidence_counts(stderr):
    """What a run with GRAPHMEND_PHASES reports of the call evidence: (typed, reused)."""
    (match,) = re.findall(r"^graphmend-evidence typed=(\d+) reused=(\d+)$", stderr, re.MULTILINE)
    return int(match[0]), int(match[1])


LAYERS = """import torch


def scale(v, k):
    if v > 0:
        return v * k
    return v
"""


def test_the_typings_of_compiled_calls_are_kept_for_the_next_check(gm, package):
    """A check stores each compiled caller's typing; the next, of one changed file with the rest
    as context, types again only the callers of what changed, and reports what a check keeping
    nothing reports."""
    phases = {"GRAPHMEND_PHASES": "1"}
    (package / "pkg" / "layers.py").write_text(LAYERS)
    (package / "pkg" / "block.py").write_text(
        "import torch\n\nfrom .layers import scale\n\n\nclass Block(torch.nn.Module):\n"
        "    def forward(self, x: torch.Tensor):\n        return scale(x, 2)\n")
    first = gm("check", "pkg", cwd=package, env=phases)
    assert evidence_counts(first.stderr) == (2, 0)  # Model.forward, Block.forward
    assert list((package / ".graphmend_cache").glob("evidence-v*"))
    assert "pkg/layers.py:5:8: GM101" in first.stdout  # scale's `v` is a tensor: Block passes one

    (package / "pkg" / "model.py").write_text(MODEL + "\n")
    second = gm("check", "pkg/model.py", cwd=package, env=phases)
    assert evidence_counts(second.stderr) == (1, 1)  # Block's typing read back
    fresh = gm("check", "pkg/model.py", "--no-cache", cwd=package)
    assert (second.returncode, normalised(second.stdout)) == (fresh.returncode, normalised(fresh.stdout))

    # What Block passes changed: its caller is typed again, and scale's `v` is no tensor.
    (package / "pkg" / "block.py").write_text((package / "pkg" / "block.py").read_text().replace("scale(x, 2)",
                                                                                                 "scale(2, x)"))
    third = gm("check", "pkg/layers.py", cwd=package, env=phases)
    assert evidence_counts(third.stderr) == (1, 1)
    assert "GM101" not in third.stdout
    fresh = gm("check", "pkg/layers.py", "--no-cache", cwd=package)
    assert (third.returncode, normalised(third.stdout)) == (fresh.returncode, normalised(fresh.stdout))


def deferred_counts(stderr):
    """What a run with GRAPHMEND_PHASES reports of the modules whose parse it deferred: (deferred,
    built because the analysis read them)."""
    (match,) = re.findall(r"^graphmend-deferred modules=(\d+) built=(\d+)$", stderr, re.MULTILINE)
    return int(match[0]), int(match[1])


BLOCK = ("import torch\n\nfrom .layers import scale\n\n\nclass Block(torch.nn.Module):\n"
         "    def forward(self, x: torch.Tensor):\n        y = scale(x, 2)\n        if y.sum() > 0:\n"
         "            return y\n        return -y\n")


def with_unrelated_modules(package):
    """The package, with a compiled Block calling layers.scale, and four modules nothing imports."""
    (package / "pkg" / "layers.py").write_text(LAYERS)
    (package / "pkg" / "block.py").write_text(BLOCK)
    for k in range(4):
        (package / "pkg" / f"unrelated{k}.py").write_text(f"def f{k}(x):\n    print(x)\n    return x\n")


def test_a_check_of_one_file_parses_only_the_files_its_analysis_reads(gm, package):
    """With the last check's summaries kept, the other files of the project stand in with their
    summaries, and one is parsed only when the analysis reads its code. block.py changed: its
    branch on `y` is a tensor branch only if layers.scale returns a tensor, so its rules read
    scale's returns and layers.py is parsed; the other files are not. The report is that of a
    check keeping nothing."""
    phases = {"GRAPHMEND_PHASES": "1"}
    with_unrelated_modules(package)
    first = gm("check", "pkg", cwd=package, env=phases)
    assert "graphmend-deferred" not in first.stderr  # every file checked is parsed
    (package / "pkg" / "block.py").write_text(BLOCK + "\n")
    second = gm("check", "pkg/block.py", cwd=package, env=phases)
    assert deferred_counts(second.stderr) == (8, 1)  # all but block.py; layers.py read
    assert "pkg/block.py:9:12: GM101" in second.stdout
    fresh = gm("check", "pkg/block.py", "--no-cache", cwd=package)
    assert (second.returncode, normalised(second.stdout)) == (fresh.returncode, normalised(fresh.stdout))

    # helpers.py is checked now: its finding needs model.py's compiled forward, which is not
    # typed again (its typing is kept), so the report comes from model.py's summary alone.
    (package / "pkg" / "helpers.py").write_text(HELPERS + "\n")
    third = gm("check", "pkg/helpers.py", cwd=package, env=phases)
    assert "GM201" in third.stdout
    fresh = gm("check", "pkg/helpers.py", "--no-cache", cwd=package)
    assert (third.returncode, normalised(third.stdout)) == (fresh.returncode, normalised(fresh.stdout))


def test_a_stored_summary_that_does_not_fit_its_file_is_found_out_when_the_file_is_read(gm, package):
    """The summaries file with two entries' contents swapped, each still matching its checksum (a
    crafted cache): a deferred module, once read, is checked against its summary; it does not fit,
    and the run parses every file and starts again, reporting what a check keeping nothing
    reports."""
    phases = {"GRAPHMEND_PHASES": "1"}
    with_unrelated_modules(package)
    # A `scale` too, so that layers.py's name still resolves with this file's summary in its place,
    # and a second function, so that the summary does not fit layers.py.
    (package / "pkg" / "unrelated0.py").write_text("def scale(v, k):\n    return v\n\n\ndef unused():\n    return 0\n")
    gm("check", "pkg", cwd=package)
    (path,) = (package / ".graphmend_cache").glob("summaries-v*")
    data = path.read_bytes()
    header_end = data.index(b"\n") + 1
    entries_by_key, at = {}, header_end
    while at < len(data):
        end = data.index(b"\n", at)
        key, checksum, length = data[at:end].split(b" ")
        entries_by_key[key] = (checksum, data[end + 1:end + 1 + int(length)])
        at = end + 1 + int(length)
    layers_key = next(k for k, (_, payload) in entries_by_key.items()
                      if b"scale" in payload and b"Block" not in payload and b"unused" not in payload)
    other_key = next(k for k, (_, payload) in entries_by_key.items() if b"unused" in payload)
    entries_by_key[layers_key], entries_by_key[other_key] = entries_by_key[other_key], entries_by_key[layers_key]
    out = bytearray(data[:header_end])
    for key, (checksum, payload) in entries_by_key.items():
        out += b"%s %s %d\n" % (key, checksum, len(payload)) + payload
    path.write_bytes(bytes(out))

    (package / "pkg" / "block.py").write_text(BLOCK + "\n")
    r = gm("check", "pkg/block.py", cwd=package, env=phases)
    assert re.search(r"^graphmend-deferred failed: \S*pkg/layers.py: its stored summary does not fit its text$",
                     r.stderr, re.MULTILINE)
    fresh = gm("check", "pkg/block.py", "--no-cache", cwd=package)
    assert (r.returncode, normalised(r.stdout)) == (fresh.returncode, normalised(fresh.stdout))
    # The second attempt types every caller again: no typing kept is read (the failed one stored
    # Block's, typed with the summary that did not fit).
    assert re.findall(r"^graphmend-evidence typed=(\d+) reused=(\d+)$", r.stderr, re.MULTILINE)[-1] == ("2", "0")

    # The summaries were written again as taken: the next check defers and trusts them.
    (package / "pkg" / "block.py").write_text(BLOCK + "\n\n")
    again = gm("check", "pkg/block.py", cwd=package, env=phases)
    assert "graphmend-deferred failed" not in again.stderr and deferred_counts(again.stderr) == (8, 1)
    assert (again.returncode, normalised(again.stdout)) == (fresh.returncode, normalised(fresh.stdout))


ATT = """import torch


class {name}(torch.nn.Module):
    def forward(self, x):
        print("scaled")
        return x * {k}
"""


def test_a_copy_of_a_fixed_definition_is_parsed_only_where_it_may_equal_it(gm, package):
    """A fix in a definition that other files copy ("# Copied from") is withheld where a copy
    equals it now. Of the files not named, a check parses only those whose text may hold such a
    copy: b.py marks a copy, but its text lacks a line of the source, so it cannot equal it and is
    not parsed; c.py's copy equals it, is parsed, and withholds the fix; d.py copies nothing. The
    report is that of a check keeping nothing, and of one without any deferral."""
    phases = {"GRAPHMEND_PHASES": "1"}
    (package / "pkg" / "att.py").write_text(ATT.format(name="Att", k=2))
    for name, k in (("b", 3), ("c", 2)):
        (package / "pkg" / f"{name}.py").write_text(
            ATT.format(name=name.upper() + "Att", k=k).replace("\n\n\nclass", "\n\n\n# Copied from pkg.att.Att with Att->"
                                                                   + name.upper() + "Att\nclass"))
    (package / "pkg" / "d.py").write_text("def unrelated():\n    return 0\n")
    gm("check", "pkg", cwd=package)
    (package / "pkg" / "att.py").write_text(ATT.format(name="Att", k=2) + "# changed\n")
    r = gm("check", "--output-format", "json", "pkg/att.py", cwd=package, env=phases)
    (finding,) = [d for d in json.loads(r.stdout)["diagnostics"] if d["code"] == "GM201"]
    assert finding["decline_code"] == "copied-pair-would-differ" and "pkg.c.CAtt" in finding["decline_reason"]
    # __init__, model, helpers, b, c, d deferred: c parsed for its copy; model and helpers read
    # for nothing this file needs.
    assert deferred_counts(r.stderr) == (6, 1)
    fresh = gm("check", "--output-format", "json", "pkg/att.py", "--no-cache", cwd=package)
    assert normalised(r.stdout) == normalised(fresh.stdout)

    # A copy that ignores parts of itself is compared by the changes a fix makes, whatever its
    # text: b.py is parsed then, and its copy (equal but for the ignored line) withholds the fix.
    (package / "pkg" / "b.py").write_text((package / "pkg" / "b.py").read_text().replace(
        "        return x * 3", "        # Ignore copy\n        return x * 3"))
    gm("check", "pkg", cwd=package)  # b.py's summary stored: it is deferred below
    (package / "pkg" / "att.py").write_text(ATT.format(name="Att", k=2) + "# changed again\n")
    r = gm("check", "--output-format", "json", "pkg/att.py", cwd=package, env=phases)
    (finding,) = [d for d in json.loads(r.stdout)["diagnostics"] if d["code"] == "GM201"]
    assert "pkg.b.BAtt" in finding["decline_reason"]
    assert deferred_counts(r.stderr) == (6, 1)  # b.py; c.py's pair is not needed once b's withholds
    fresh = gm("check", "--output-format", "json", "pkg/att.py", "--no-cache", cwd=package)
    assert normalised(r.stdout) == normalised(fresh.stdout)


def test_a_kept_typing_stands_for_the_same_text_in_the_same_place_only(gm, tmp_path):
    """Scripts in two folders, both `model.py`, each importing the `base` beside it and the one
    `util` there is: the text of one copied to the other is the same module name and text, but
    its `base` is another one, so the typing kept for the first is not the second's (an
    adversarial review's case)."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'r'\n")
    base = ("import torch\n\n\nclass Base(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
            "        self.w = {}\n")
    model = ("import torch\nimport base\nimport util\n\n\nclass Block(base.Base):\n    def forward(self, x):\n"
             "        return util.g(self.w)\n")
    for folder, stored in (("a", "3"), ("b", "torch.ones(2)")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "base.py").write_text(base.format(stored))
    (tmp_path / "a" / "util.py").write_text("def g(v):\n    if v > 0:\n        return v\n    return v\n")
    (tmp_path / "a" / "model.py").write_text(model)
    (tmp_path / "b" / "model.py").write_text(model + "# b\n")
    first = gm("check", ".", cwd=tmp_path)
    assert "a/util.py:2:8: GM101" in first.stdout  # b's Block passes its tensor

    # b's text now is a's, and a's is new: a's old typing (self.w an int) must not serve b.
    (tmp_path / "b" / "model.py").write_text(model)
    (tmp_path / "a" / "model.py").write_text(model + "# a\n")
    second = gm("check", ".", cwd=tmp_path, env={"GRAPHMEND_PHASES": "1"})
    fresh = gm("check", ".", "--no-cache", cwd=tmp_path)
    assert "a/util.py:2:8: GM101" in fresh.stdout
    assert (second.returncode, normalised(second.stdout)) == (fresh.returncode, normalised(fresh.stdout))
    assert evidence_counts(second.stderr) == (2, 0)
